# Bad input: usage errors exit 2, failures exit 1, help exits 0; no permission
# is named as such.
. "$LIVE_DIR/lib.sh"

"$FTR" > /dev/null 2> "$TMP/e"; rc=$?
[ $rc -eq 2 ] && grep -q usage "$TMP/e" && ok usage-no-command || fail usage-no-command "rc=$rc"
# ftr alone: a short usage, the three commands to start with and where the
# rest is; ftr -h: every command of the table.
n=$(grep -c -e '^  ftr doctor ' -e "^  ftr -e 'PROGRAM'" -e '^  ftr trace EVENT' "$TMP/e")
[ "$n" -eq 3 ] && grep -q 'ftr -h: every command' "$TMP/e" && [ "$(wc -l < "$TMP/e")" -le 10 ] &&
	ok usage-no-command-short || fail usage-no-command-short "$n of 3 commands: $(cat "$TMP/e")"
"$FTR" -h > "$TMP/o" 2>&1; rc=$?
n=$(grep -c -E '^  (doctor|list|trace|count|hist|record|report|run|reset|profile|stat|latency|funccount|functrace|graph|funcslower) ' "$TMP/o")
[ $rc -eq 0 ] && [ "$n" -eq 16 ] && ok usage-help-all || fail usage-help-all "rc=$rc, $n of 16 commands"
"$FTR" frobnicate > /dev/null 2> "$TMP/e"; rc=$?
check usage-unknown-command [ $rc -eq 2 ]
grep -q "'frobnicate' is not an ftr command" "$TMP/e" && ok usage-unknown-command-message ||
	fail usage-unknown-command-message "$(cat "$TMP/e")"
"$FTR" doctor --frob > /dev/null 2> "$TMP/e"; rc=$?
check usage-unknown-option [ $rc -eq 2 ]
"$FTR" list a b > /dev/null 2>&1; rc=$?
check usage-extra-argument [ $rc -eq 2 ]
for c in doctor list reset; do
	"$FTR" $c -h > "$TMP/o" 2>&1; rc=$?
	if [ $rc -eq 0 ] && grep -q "usage: ftr $c" "$TMP/o"; then ok "usage-help-$c"
	else fail "usage-help-$c" "rc=$rc"; fi
done
# ftrace's function-tracer commands: bad operands and options are usage
# errors (exit 2, the option and value named) before any tracefs work, so
# they hold on every kernel, with or without a usable function tracer.
fn_usage() { # NAME EXPECTED-TEXT FTR-ARGS...
	name=$1 want=$2
	shift 2
	"$FTR" "$@" > /dev/null 2> "$TMP/e"; rc=$?
	[ $rc -eq 2 ] && grep -qF -- "$want" "$TMP/e" && ok "usage-$name" ||
		fail "usage-$name" "rc=$rc $(head -2 "$TMP/e" | tr '\n' '|')"
}
for c in funccount functrace graph; do
	fn_usage "$c-bad-duration" "bad duration 'x'" $c vfs_read -d x
	fn_usage "$c-bad-max-funcs" "bad --max-funcs '0': a count" $c vfs_read --max-funcs 0
	fn_usage "$c-bad-pattern" "bad pattern ''" $c ''
	fn_usage "$c-pid-and-cmd" "-p and -- CMD exclude each other" $c vfs_read -p 1 -- true
	fn_usage "$c-unknown-option" "--frob" $c vfs_read --frob
done
fn_usage funccount-no-pattern "a PATTERN is needed" funccount -d 1
fn_usage graph-no-pattern "a PATTERN or -g FUNC is needed" graph -d 1
fn_usage funcslower-operands "FUNC and USECS are needed" funcslower vfs_read
fn_usage funcslower-bad-usecs "bad USECS 'x'" funcslower vfs_read x
fn_usage funcslower-bad-duration "bad duration '0'" funcslower vfs_read 10 -d 0
# --where: auto, kernel or user (the maps), ftrace or kprobe (the backend)
fn_usage run-bad-where "ftrace or kprobe (what serves kprobe clauses), not 'bogus'" \
	run --where bogus -e 'BEGIN { exit(); }'
"$FTR" --version | grep -q '^ftr [0-9]' && ok usage-version || fail usage-version "no version"

# Not root: says tracing needs root, exits 1, and leaves nothing.
if [ "$(id -u)" = 0 ] && command -v asuser >/dev/null 2>&1 && [ -n "$T" ] && ! tracing_locked; then
	asuser 65534 "$FTR" list sched:sched_switch > /dev/null 2> "$TMP/e"; rc=$?
	check usage-not-root-exit [ $rc -eq 1 ]
	grep -q 'needs root' "$TMP/e" && ok usage-not-root-message ||
		fail usage-not-root-message "$(cat "$TMP/e")"
else
	skip usage-not-root "needs root and the asuser helper"
fi

# The README's first command, as written there (only beside the tree: the
# guests have no README): the opens-by-process program over du -s /usr/share
# prints du's count line even on a machine doing nothing else.
readme=$LIVE_DIR/../../README.md
if [ ! -f "$readme" ]; then
	skip usage-readme-first "no README.md beside the tests (a guest)"
elif [ -z "$T" ] || tracing_locked || [ ! -d "$T/events/syscalls/sys_enter_openat" ] ||
     [ ! -d /usr/share ] || [ "$(id -u)" != 0 ]; then
	skip usage-readme-first "needs root, syscall tracepoints and /usr/share"
else
	snapshot > "$TMP/before"
	prog=$(sed -n 's|^make deps && make && ./build/ftr doctor && ./build/ftr ||p' "$readme")
	eval "set -- $prog"
	"$FTR" "$@" > "$TMP/o" 2> "$TMP/e"; rc=$?
	n=$(grep -Ec '^@\[du\]: [1-9][0-9]*$' "$TMP/o")
	[ -n "$prog" ] && [ $rc -eq 0 ] && [ "$n" -eq 1 ] && ok usage-readme-first ||
		fail usage-readme-first "rc=$rc, '$prog': $(cat "$TMP/o" "$TMP/e" | head -3)"
	same_as_before usage-readme-first-leaves-tracefs "$TMP/before"
fi

# bpftrace's invocation forms (its runtime suite's basic cases): the program
# on stdin, a script that is not there and -p's checks in bpftrace's words,
# --no-warnings, --probe-filter.
printf 'BEGIN { printf("from stdin\\n"); exit(); }\n' | "$FTR" - > "$TMP/o" 2>&1; rc=$?
[ $rc -eq 0 ] && [ "$(count_lines '^from stdin$' "$TMP/o")" = 1 ] && ok usage-bt-stdin ||
	fail usage-bt-stdin "rc=$rc $(head -2 "$TMP/o")"
"$FTR" no_such_script.bt > "$TMP/o" 2>&1; rc=$?
[ $rc -eq 1 ] && grep -qx "ERROR: failed to open file 'no_such_script.bt': No such file or directory" "$TMP/o" &&
	ok usage-bt-no-file || fail usage-bt-no-file "rc=$rc $(head -2 "$TMP/o")"
"$FTR" -p 12x -e 'BEGIN { exit(); }' > "$TMP/o" 2>&1; rc=$?
[ $rc -eq 1 ] && grep -qx "ERROR: Failed to parse pid: invalid trailing bytes: 12x" "$TMP/o" &&
	ok usage-bt-pid || fail usage-bt-pid "rc=$rc $(head -2 "$TMP/o")"
"$FTR" -e 'BEGIN { warnf("w1"); @x = 1 / 0; exit(); }' --no-warnings > "$TMP/o" 2>&1; rc=$?
[ $rc -eq 0 ] && ! grep -q 'w1\|WARNING' "$TMP/o" && grep -qx '@x: 1' "$TMP/o" &&
	ok usage-bt-no-warnings || fail usage-bt-no-warnings "rc=$rc $(head -3 "$TMP/o")"
"$FTR" --probe-filter ':200' -e 'i:ms:100 { printf("bad\n"); exit(); }
	i:ms:200 { printf("hit\n"); exit(); } END { printf("end\n"); }' > "$TMP/o" 2>&1; rc=$?
[ $rc -eq 0 ] && [ "$(grep -c -e '^hit$' -e '^end$' "$TMP/o")" = 2 ] && ! grep -q bad "$TMP/o" &&
	ok usage-bt-probe-filter || fail usage-bt-probe-filter "rc=$rc $(head -3 "$TMP/o")"
# bpftrace's string length: str() cut at N bytes and the trailer; an
# explicit length cuts with none; a length ftr cannot honour is refused
BPFTRACE_MAX_STRLEN=5 BPFTRACE_STR_TRUNC_TRAILER=_x "$FTR" -e 'BEGIN { printf("%s|%s|%s\n",
	str("abcdefgh"), str("abcde"), str("abcdefgh", 3)); exit(); }' > "$TMP/o" 2>&1; rc=$?
[ $rc -eq 0 ] && grep -qx 'abcde_x|abcde|ab' "$TMP/o" &&
	ok usage-bt-max-strlen || fail usage-bt-max-strlen "rc=$rc $(head -2 "$TMP/o")"
BPFTRACE_MAX_STRLEN=9999 "$FTR" -e 'BEGIN { printf("%s\n", "abcdefgh"); exit(); }' > "$TMP/o" 2>&1; rc=$?
[ $rc -eq 1 ] && ! grep -q abcdefgh "$TMP/o" && grep -q 'BPFTRACE_MAX_STRLEN=9999: ftr cuts str() at 1 to 1024 bytes' "$TMP/o" &&
	ok usage-bt-max-strlen-refused || fail usage-bt-max-strlen-refused "rc=$rc $(head -2 "$TMP/o")"
# named parameters: the words after '--' are the program's when it calls getopt()
"$FTR" -e 'BEGIN { print((getopt("aa", 1), getopt("bb"), $1)); exit(); }' -- --aa=-7 --bb p1 > "$TMP/o" 2>&1; rc=$?
[ $rc -eq 0 ] && grep -qx '(-7, true, p1)' "$TMP/o" &&
	ok usage-bt-getopt || fail usage-bt-getopt "rc=$rc $(head -2 "$TMP/o")"
"$FTR" -e 'BEGIN { print(getopt("aa", 1)); exit(); }' -- --cc > "$TMP/o" 2>&1; rc=$?
[ $rc -eq 1 ] && grep -qx 'ERROR: unexpected program command line options: --cc' "$TMP/o" &&
	ok usage-bt-getopt-unknown || fail usage-bt-getopt-unknown "rc=$rc $(head -2 "$TMP/o")"
