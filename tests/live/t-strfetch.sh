# str() of a syscall's string argument (strfetch.c): where the kernel can
# fetch user strings (eprobe events, or kprobe events and the syscall's
# wrapper) the tracepoint is replaced by a probe that fetches them, and the
# program prints the real names; elsewhere ftr refuses it, saying why.
. "$LIVE_DIR/lib.sh"
require_tracing strfetch
if [ ! -d "$T/events/syscalls/sys_enter_openat" ]; then
	skip strfetch "no syscall tracepoints on this kernel"
	exit 0
fi
snapshot > "$TMP/before"

# Can this kernel fetch them?  Eprobe events (ftr doctor proves them by
# creating one), or kprobe events and openat's syscall wrapper.
"$FTR" doctor --json > "$TMP/doctor" 2>/dev/null
eprobes=no
grep -q '"eprobe_events": *{ *"available": *true' "$TMP/doctor" && eprobes=yes
kprobes=no
has_kprobes && grep -q -E ' (__x64_sys_openat|__arm64_sys_openat)$' /proc/kallsyms && kprobes=yes

# The workload writes the path it opens (a file of ours) into its stack
# first: a name in a page not yet touched would read as empty.
P="$TMP/strfetch-target"
: > "$P"
OFLAGS=$(opener --flags)
PROG='tracepoint:syscalls:sys_enter_openat { printf("%s %s\n", comm, str(args.filename)); }'
# opensnoop's entry/return pattern: the pointer kept in a map at the entry,
# str() of the map at the return (issue #13).
SNOOP="tracepoint:syscalls:sys_enter_openat /args.flags == $OFLAGS/ { @filename[tid] = args.filename; }
tracepoint:syscalls:sys_exit_openat /@filename[tid]/ {
	printf(\"%s %d %s\\n\", comm, args.ret >= 0, str(@filename[tid])); delete(@filename[tid]); }
END { clear(@filename); }"
BUFPROG='tracepoint:syscalls:sys_enter_write /comm == "unixsock"/ {
	printf("%d %r\n", args.count, buf(args.buf, args.count)); }'

# The same pattern at a uprobe (gethostlatency: @name[tid] = arg0 at
# getaddrinfo, str(@name[tid]) at its return): the probe itself fetches
# the string at the store.  ftr_target_str("hello-ftr", 10) returns 19.
tgt=$(command -v uprobe-target)
if has_uprobes && [ -n "$tgt" ]; then
	"$FTR" -e "uprobe:$tgt:ftr_target_str { @s[tid] = arg0; }
		uretprobe:$tgt:ftr_target_str /@s[tid]/ { printf(\"%s %d\\n\", str(@s[tid]), retval); delete(@s[tid]); }" \
		-- uprobe-target > "$TMP/o" 2> "$TMP/e"
	[ "$(grep -c . "$TMP/o")" = 2 ] && grep -q '^hello-ftr 19$' "$TMP/o" && ok strfetch-map-uprobe ||
		fail strfetch-map-uprobe "$(cat "$TMP/o" "$TMP/e" | head -3 | tr '\n' ' ')"
else
	skip strfetch-map-uprobe "no uprobe events or no uprobe-target helper"
fi

if [ $eprobes = no ] && [ $kprobes = no ]; then
	"$FTR" -e "$PROG" -- opener 3 "$P" > "$TMP/o" 2> "$TMP/e"
	rc=$?
	[ $rc -eq 1 ] && grep -q 'str(args.filename): filename is a user-space address' "$TMP/e" &&
		grep -q 'nothing on this kernel can fetch it: no eprobe events.*no kprobe events' "$TMP/e" &&
		grep -q 'eprobe events, or kprobe events for a syscall.s entry, would' "$TMP/e" &&
		ok strfetch-refused || fail strfetch-refused "rc=$rc $(head -2 "$TMP/e")"
	# A map read by str() fetches at its store: the same refusal, saying so.
	"$FTR" -e "$SNOOP" -- opener 3 "$P" > "$TMP/o" 2> "$TMP/e"
	rc=$?
	[ $rc -eq 1 ] && grep -q 'a map read by str() keeps the string behind the address stored in it, fetched here, at the store: str(args.filename)' "$TMP/e" &&
		ok strfetch-map-refused || fail strfetch-map-refused "rc=$rc $(head -2 "$TMP/e")"
	"$FTR" -e "$BUFPROG" -- unixsock 1 > "$TMP/o" 2> "$TMP/e"
	rc=$?
	[ $rc -eq 1 ] && grep -q "buf(args.buf): syscalls:sys_enter_write records the address, and the kernel copies no bytes behind it at a tracepoint; nothing on this kernel can fetch it: no eprobe events" "$TMP/e" &&
		ok strfetch-buf-refused || fail strfetch-buf-refused "rc=$rc $(head -2 "$TMP/e")"
	skip strfetch-buf "this kernel has neither eprobe nor kprobe events (the refusal is checked)"
	skip strfetch-map "this kernel has neither eprobe nor kprobe events (the refusal is checked)"
	skip strfetch-names "this kernel has neither eprobe nor kprobe events (the refusal is checked)"
	same_as_before strfetch-clean "$TMP/before"
	exit 0
fi

# The plan names the replacement and why, and writes its definition.
"$FTR" -E -e "$PROG" > "$TMP/o" 2> "$TMP/e"
if [ $eprobes = yes ]; then
	grep -q 'tracepoint:syscalls:sys_enter_openat is an eprobe on it' "$TMP/o" &&
		grep -q "echo 'e:ftr_[0-9]*/sys_enter_openat syscalls.sys_enter_openat filename=+0(\$filename):ustring" "$TMP/o" &&
		ok strfetch-explain || fail strfetch-explain "$(head -3 "$TMP/o" "$TMP/e")"
else
	grep -q "tracepoint:syscalls:sys_enter_openat is a kprobe on the syscall's wrapper" "$TMP/o" &&
		grep -q "echo 'p:ftr_[0-9]*/__.*_sys_openat __.*_sys_openat filename=+0(+[0-9]*(%[dx][i0])):ustring" "$TMP/o" &&
		ok strfetch-explain || fail strfetch-explain "$(head -3 "$TMP/o" "$TMP/e")"
fi

# The scenario as written: every openat of the command, its comm and name.
# opener opens the path exactly 7 times.
"$FTR" -e "$PROG" -- opener 7 "$P" > "$TMP/o" 2> "$TMP/e"
rc=$?
n=$(count_lines "^opener $P\$" "$TMP/o")
[ $rc -eq 0 ] && [ "$n" = 7 ] && ok strfetch-names ||
	fail strfetch-names "rc=$rc, $n lines 'opener $P' (want 7): $(head -3 "$TMP/o" "$TMP/e")"

# A predicate on another field goes to the kernel's filter on the probe
# (fetched with the tracepoint's type), and the probe builtin still names
# the tracepoint; exactly the workload's 11 opens pass.
"$FTR" -e "tracepoint:syscalls:sys_enter_openat /args.flags == $OFLAGS/ {
	printf(\"%s|%s|%d\n\", probe, str(args.filename), args.flags); }" \
	-- opener 11 "$P" > "$TMP/o" 2> "$TMP/e"
rc=$?
n=$(count_lines "^tracepoint:syscalls:sys_enter_openat|$P|$OFLAGS\$" "$TMP/o")
all=$(grep -c . "$TMP/o")
[ $rc -eq 0 ] && [ "$n" = 11 ] && [ "$all" -eq 11 ] && ok strfetch-filter ||
	fail strfetch-filter "rc=$rc, $n of $all lines right (want 11 of 11): $(head -3 "$TMP/o" "$TMP/e")"

# The entry/return pattern: exactly the 9 opens, each with its name, every
# one a success; nothing printed at exit (END clears the map) but
# bpftrace's two empty lines (lines with text are counted).
"$FTR" -e "$SNOOP" -- opener 9 "$P" > "$TMP/o" 2> "$TMP/e"
rc=$?
n=$(count_lines "^opener 1 $P\$" "$TMP/o")
all=$(grep -c . "$TMP/o")
[ $rc -eq 0 ] && [ "$n" = 9 ] && [ "$all" -eq 9 ] && ok strfetch-map ||
	fail strfetch-map "rc=$rc, $n of $all lines right (want 9 of 9): $(head -3 "$TMP/o" "$TMP/e")"
# A failed open: the name is the one given, as bpftrace prints it.
"$FTR" -e "$SNOOP" -- opener 4 "$P/nonexistent" > "$TMP/o" 2> "$TMP/e"
rc=$?
n=$(count_lines "^opener 0 $P/nonexistent\$" "$TMP/o")
[ "$n" = 1 ] && [ "$(grep -c . "$TMP/o")" -eq 1 ] && ok strfetch-map-failed-open ||
	fail strfetch-map-failed-open "rc=$rc, $n lines right (want 1): $(head -3 "$TMP/o" "$TMP/e")"

# buf(args.buf, args.count) at write(2): the bytes written, fetched at the
# event by the same probe (buf_buf); unixsock writes its 12 known bytes 3
# times, as bpftrace prints them.
"$FTR" -e "$BUFPROG" -- unixsock 3 > "$TMP/o" 2> "$TMP/e"
rc=$?
n=$(count_lines '^12 ftr-undump\\x01\\xff$' "$TMP/o")
[ $rc -eq 0 ] && [ "$n" = 3 ] && [ "$(grep -c . "$TMP/o")" -eq 3 ] && ok strfetch-buf ||
	fail strfetch-buf "rc=$rc, $n lines right (want 3 of 3): $(cat "$TMP/o" "$TMP/e" | head -4 | tr '\n' ' ')"

same_as_before strfetch-clean "$TMP/before"
