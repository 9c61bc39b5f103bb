# bpftrace's front door: scripts with a #! line, ftr FILE [ARGS], positional
# parameters, bpftrace's flags (-c -o -f json -q -B), maps stored with '='
# printed at exit, system()/cat(), and kernel globals read from /proc/kcore.
. "$LIVE_DIR/lib.sh"

# A script that names ftr on its #! line runs when executed, with its
# arguments as $1, $2 ... (no tracefs needed: BEGIN only).
{
	echo "#!$FTR"
	printf '%s\n' 'BEGIN { printf("n=%d a=%d b=%s c=%s sum=%d\n", $#, $1, str($2), str($3), $1 + 1); exit(); }'
} > "$TMP/tool.bt"
chmod +x "$TMP/tool.bt"
"$TMP/tool.bt" 42 hello > "$TMP/o" 2> "$TMP/e"
grep -qx 'n=2 a=42 b=hello c= sum=43' "$TMP/o" && ok script-shebang ||
	fail script-shebang "$(cat "$TMP/o" "$TMP/e" | head -3)"
"$FTR" "$TMP/tool.bt" 7 > "$TMP/o" 2> "$TMP/e"
grep -qx 'n=1 a=7 b= c= sum=8' "$TMP/o" && ok script-file-args ||
	fail script-file-args "$(cat "$TMP/o" "$TMP/e" | head -3)"
"$FTR" -q -B line -e 'BEGIN { printf("%s %d\n", str($1), $2 * 1e3); exit(); }' x 1_2 > "$TMP/o" 2> "$TMP/e"
grep -qx 'x 12000' "$TMP/o" && ok script-e-args ||
	fail script-e-args "$(cat "$TMP/o" "$TMP/e" | head -3)"

# -o FILE and -f json (bpftrace's lines; t-bpfjson compares them with bpftrace's)
"$FTR" -o "$TMP/out" -f json -e 'BEGIN { @x = 5; @y[2] = 3; exit(); }' > "$TMP/o" 2> "$TMP/e"
[ ! -s "$TMP/o" ] && grep -qx '{"type": "map", "data": {"@x": 5}}' "$TMP/out" &&
	grep -qx '{"type": "map", "data": {"@y": {"2": 3}}}' "$TMP/out" &&
	ok script-output-json || fail script-output-json "$(cat "$TMP/o" "$TMP/out" "$TMP/e" | head -4)"

# system() needs --unsafe, as in bpftrace; cat() does not.
"$FTR" -e 'BEGIN { system("echo unsafe"); exit(); }' > "$TMP/o" 2> "$TMP/e"; rc=$?
[ $rc -eq 1 ] && grep -q '1:9: system() runs a command: it needs --unsafe' "$TMP/e" && [ ! -s "$TMP/o" ] &&
	ok script-system-refused || fail script-system-refused "rc=$rc $(cat "$TMP/o" "$TMP/e" | head -3)"
"$FTR" --unsafe -e 'BEGIN { printf("a\n"); system("echo %s-%d", "unsafe", 5); cat("/proc/sys/kernel/ostype"); exit(); }' \
	> "$TMP/o" 2> "$TMP/e"
[ "$(cat "$TMP/o" | tr '\n' ' ')" = "a unsafe-5 Linux   " ] && ok script-system-cat ||
	fail script-system-cat "$(cat "$TMP/o" "$TMP/e" | head -4)"

# Kernel globals outside events: *kaddr() reads /proc/kcore.  linux_banner
# starts "Linux ve": as a little-endian 64-bit number, 0x65762078756e694c.
prog='BEGIN { printf("%lx\n", *kaddr("linux_banner")); exit(); }'
"$FTR" -e "$prog" > "$TMP/o" 2> "$TMP/e"; rc=$?
if [ $rc -eq 0 ]; then
	grep -qx '65762078756e694c' "$TMP/o" && ok script-kaddr-read ||
		fail script-kaddr-read "$(cat "$TMP/o" "$TMP/e" | head -3)"
	# loads.bt's way: the address in a variable, read in an interval clause
	"$FTR" -e 'interval:ms:100 { $a = kaddr("linux_banner"); printf("%lx %x\n", *$a, *($a + 8) & 0xff); exit(); }' \
		> "$TMP/o" 2> "$TMP/e"
	grep -qx '65762078756e694c [0-9a-f]*' "$TMP/o" && ok script-kaddr-interval ||
		fail script-kaddr-interval "$(cat "$TMP/o" "$TMP/e" | head -3)"
elif ! grep -q ' linux_banner$' /proc/kallsyms 2>/dev/null || ! head -c 4 /proc/kcore > /dev/null 2>&1; then
	# the refusal says why, at once
	[ $rc -eq 1 ] && grep -q -E 'CONFIG_KALLSYMS_ALL|CONFIG_PROC_KCORE|locked down|kptr_restrict|cannot open /proc/kcore' "$TMP/e" &&
		ok script-kaddr-refused || fail script-kaddr-refused "rc=$rc $(head -3 "$TMP/e")"
	skip script-kaddr-read "$(head -1 "$TMP/e" | sed 's/^ftr: error: //')"
else
	fail script-kaddr-read "rc=$rc $(cat "$TMP/o" "$TMP/e" | head -3)"
fi

require_tracing script-events
if [ ! -d "$T/events/syscalls/sys_enter_openat" ]; then
	skip script-events "no syscall tracepoints on this kernel"
	exit 0
fi
snapshot > "$TMP/before"
OFLAGS=$(opener --flags)
# bpftrace -l PATTERN
"$FTR" -l 'tracepoint:syscalls:sys_enter_openat' > "$TMP/o" 2> "$TMP/e"
[ "$(cat "$TMP/o")" = "tracepoint:syscalls:sys_enter_openat" ] && ok script-list-probes ||
	fail script-list-probes "$(cat "$TMP/o" "$TMP/e" | head -3)"
# bpftrace -l: every provider ftr has (the tracepoint above, the kernel's
# functions as kprobe: where kprobe events are, the 9 software and 8
# hardware events and their 5 aliases); -l -p: the process's files' functions.
"$FTR" -l > "$TMP/o" 2> "$TMP/e"; rc=$?
if has_kprobes; then
	grep -q '^kprobe:vfs_read$' "$TMP/o"
else
	grep -q 'no kprobe events' "$TMP/e" && ! grep -q '^kprobe:' "$TMP/o"
fi && [ $rc -eq 0 ] && grep -qx 'tracepoint:syscalls:sys_enter_openat' "$TMP/o" &&
	grep -qx 'software:page-faults:' "$TMP/o" &&
	[ "$(grep -c '^software:' "$TMP/o")" = 12 ] && [ "$(grep -c '^hardware:' "$TMP/o")" = 10 ] &&
	ok script-list-all || fail script-list-all "rc=$rc $(head -3 "$TMP/e")"
exe=$(readlink /proc/$$/exe)
"$FTR" -l 'uprobe:*' -p $$ > "$TMP/o" 2> "$TMP/e"; rc=$?
if [ $rc -eq 1 ] && grep -q 'no probe matches' "$TMP/e"; then
	skip script-list-pid "no function symbols in the files $$ ($exe) maps"
else
	# every line a function of a file the process maps
	bad=$(cut -d: -f2 "$TMP/o" | sort -u | while read -r f; do
		grep -q " $f\$" /proc/$$/maps || echo "$f"; done)
	[ $rc -eq 0 ] && [ -s "$TMP/o" ] && ! grep -qv '^uprobe:/' "$TMP/o" && [ -z "$bad" ] &&
		ok script-list-pid || fail script-list-pid "rc=$rc $bad $(head -3 "$TMP/e")"
fi
# BPFTRACE_STACK_MODE is a stack's default mode: raw, printed by printf, is
# bpftrace's "\nADDR\nADDR\n" (hex, nothing else: the "|" after it on a
# line of its own); a config block's
# stack_mode gives way to it, as in bpftrace.
BPFTRACE_STACK_MODE=raw "$FTR" -e 'config = { stack_mode = perf }
	tracepoint:syscalls:sys_enter_openat { printf("%s|\n", kstack(2)); exit(); }' -- cat /dev/null \
	> "$TMP/o" 2> "$TMP/e"; rc=$?
[ $rc -eq 0 ] && [ "$(sed -n 1p "$TMP/o")" = "" ] && sed -n 2p "$TMP/o" | grep -qx '[0-9a-f][0-9a-f]*' &&
	sed -n 3p "$TMP/o" | grep -qx '[0-9a-f][0-9a-f]*' && [ "$(sed -n 4p "$TMP/o")" = "|" ] &&
	[ "$(grep -c . "$TMP/o")" = 3 ] &&
	ok script-stack-mode-env || fail script-stack-mode-env "rc=$rc $(head -3 "$TMP/o" "$TMP/e")"
# config missing_probes: warn skips a probe that names nothing here with
# bpftrace's warning, ignore silently; with nothing left, bpftrace's error.
for m in warn ignore; do
	"$FTR" -e 'config = { missing_probes = '$m' }
		tracepoint:syscalls:sys_enter_openat,tracepoint:nonsense:nonsense {
		printf("%s\n", probe); exit(); }' -- cat /dev/null > "$TMP/o" 2> "$TMP/e"; rc=$?
	w="ftr: 2:40: WARNING: No matches for tracepoint nonsense:nonsense. Skipping."
	[ $m = ignore ] && w=
	[ $rc -eq 0 ] && [ "$(cat "$TMP/o")" = tracepoint:syscalls:sys_enter_openat ] &&
		[ "$(cat "$TMP/e")" = "$w" ] && ok script-missing-probes-$m ||
		fail script-missing-probes-$m "rc=$rc $(cat "$TMP/o" "$TMP/e" | head -3)"
done
"$FTR" -e 'config = { missing_probes = ignore } tracepoint:nonsense:nonsense { exit(); }' \
	> "$TMP/o" 2> "$TMP/e"; rc=$?
[ $rc -eq 1 ] && [ ! -s "$TMP/o" ] && grep -q '^ftr: error: 1:38: No probes to attach$' "$TMP/e" &&
	ok script-missing-probes-none || fail script-missing-probes-none "rc=$rc $(head -3 "$TMP/e")"
# --dry-run: set up and attached, then stopped: neither BEGIN nor END runs, no map printed.
"$FTR" --dry-run -e 'BEGIN { printf("hello\n"); @ = 0; }
	tracepoint:syscalls:sys_enter_openat { @n = count(); } END { printf("end\n"); }' > "$TMP/o" 2> "$TMP/e"; rc=$?
[ $rc -eq 0 ] && [ ! -s "$TMP/o" ] && [ ! -s "$TMP/e" ] && ok script-dry-run ||
	fail script-dry-run "rc=$rc $(cat "$TMP/o" "$TMP/e" | head -3)"
# cat() prints 10240 bytes of a file at most, or BPFTRACE_MAX_CAT_BYTES, as bpftrace
# (then the two empty lines at exit).
head -c 20000 /dev/zero | tr '\0' a > "$TMP/big"
"$FTR" -e 'BEGIN { cat("'"$TMP/big"'"); exit(); }' > "$TMP/o" 2> "$TMP/e"
a=$(wc -c < "$TMP/o")
BPFTRACE_MAX_CAT_BYTES=5 "$FTR" -e 'BEGIN { cat("'"$TMP/big"'"); exit(); }' > "$TMP/o" 2> "$TMP/e"
[ "$a" = 10242 ] && [ "$(cat "$TMP/o")" = aaaaa ] && ok script-cat-max ||
	fail script-cat-max "$a bytes, then: $(head -c 100 "$TMP/o") $(head -3 "$TMP/e")"

# Reading kernel memory at an event is refused with its position (but
# read-only data by kaddr(): t-realprog).
"$FTR" -e 'tracepoint:syscalls:sys_enter_openat { @x = *0xffffffff81000000; }' > "$TMP/o" 2> "$TMP/e"; rc=$?
[ $rc -eq 1 ] && grep -q '1:45: \*: reading kernel memory at an event needs BPF' "$TMP/e" &&
	ok script-deref-at-event-refused || fail script-deref-at-event-refused "rc=$rc $(head -3 "$TMP/e")"

# Maps stored with '=' (and +=) print at exit as bpftrace prints them; the
# flags come in as $1, the command from -c.
"$FTR" -e 'tracepoint:syscalls:sys_enter_openat /args.flags == $1/ { @flags = args.flags; @n += 1; @who[comm] = 1; }' \
	-c "opener 57" "$OFLAGS" > "$TMP/o" 2> "$TMP/e"
grep -qx "@flags: $OFLAGS" "$TMP/o" && grep -qx '@n: 57' "$TMP/o" && grep -qx '@who\[opener\]: 1' "$TMP/o" &&
	ok script-plain-stores-print || fail script-plain-stores-print "$(cat "$TMP/o" "$TMP/e" | head -5)"

# print(@m, top) and 1e6-style literals in a tool's END
"$FTR" -e 'tracepoint:syscalls:sys_enter_openat /args.flags == '"$OFLAGS"'/ { @[comm] = count(); @t[tid] = count(); }
	END { print(@, 1); clear(@); print(@t, 1, 1e1); clear(@t); }' -- opener 50 > "$TMP/o" 2> "$TMP/e"
[ "$(grep -c . "$TMP/o")" = 2 ] && grep -qx '@\[opener\]: 50' "$TMP/o" && grep -q '^@t\[[0-9]*\]: 5$' "$TMP/o" &&
	ok script-print-top-div || fail script-print-top-div "$(cat "$TMP/o" "$TMP/e" | head -5)"

# printf's %gr: this kernel's GFP names, from kmem:kmalloc's format (bit 0 is
# GFP_DMA on every kernel; t-record compares whole events with trace-cmd's)
if [ -d "$T/events/kmem/kmalloc" ]; then
	"$FTR" -e 'BEGIN { printf("%gr|%gr|%gr\n", 0x1, 0, 1 << 40); exit(); }' > "$TMP/o" 2> "$TMP/e"
	[ "$(cat "$TMP/o")" = 'GFP_DMA|none|0x10000000000' ] && ok script-printf-gfp ||
		fail script-printf-gfp "$(cat "$TMP/o" "$TMP/e" | head -3)"
else
	skip script-printf-gfp "no kmem:kmalloc tracepoint"
fi

# join(args.argv) at execve, as bpftrace's execsnoop: the strings are fetched
# at the event by an eprobe or a kprobe on the syscall's wrapper.
if [ -d "$T/events/syscalls/sys_enter_execve" ]; then
	"$FTR" -e 'tracepoint:syscalls:sys_enter_execve { printf("%d ", $#); join(args.argv); }' -- \
		sh -c 'writer 1 2; true' > "$TMP/o" 2> "$TMP/e"; rc=$?
	if [ $rc -ne 0 ] && grep -q 'join(args.argv): the kernel records a char \*\* argument as an address' "$TMP/e"; then
		skip script-join "$(head -1 "$TMP/e" | sed 's/^ftr: error: [0-9:]* //')"
	else
		grep -qx '0 sh -c writer 1 2; true' "$TMP/o" && grep -qx '0 writer 1 2' "$TMP/o" &&
			ok script-join || fail script-join "rc=$rc $(cat "$TMP/o" "$TMP/e" | head -5)"
		# (in -f json: bpftrace's "join" line, without the newline)
		"$FTR" -f json -e 'tracepoint:syscalls:sys_enter_execve { join(args.argv, ","); }' -- \
			sh -c 'writer 1 2; true' > "$TMP/o" 2> "$TMP/e"
		grep -qx '{"type": "join", "data": "writer,1,2"}' "$TMP/o" && ok script-join-delim ||
			fail script-join-delim "$(cat "$TMP/o" "$TMP/e" | head -5)"
		# str(args.argv[K]): one element, in the predicate and the body,
		# cut by str's length; past the array's NULL an empty string
		"$FTR" -e 'tracepoint:syscalls:sys_enter_execve /str(args.argv[0]) == "writer"/ {
			printf("%s|%s|%s|%s|\n", str(args.argv[1]), str(args.argv[2], 2),
			       str(args.argv[3]), str(args.argv[15])); }' -- \
			sh -c 'writer 1 22; true' > "$TMP/o" 2> "$TMP/e"
		[ "$(cat "$TMP/o")" = '1|2|||' ] && ok script-argv-elem ||
			fail script-argv-elem "$(cat "$TMP/o" "$TMP/e" | head -5)"
		# ... of a char ** only: a char *'s bytes are no addresses
		"$FTR" -e 'tracepoint:syscalls:sys_enter_execve { print(str(args.filename[0])); }' \
			-d 1 > "$TMP/o" 2> "$TMP/e"; rc=$?
		[ $rc = 1 ] && grep -q "'filename' is const char \*" "$TMP/e" &&
			ok script-argv-elem-char-ptr-refused ||
			fail script-argv-elem-char-ptr-refused "rc=$rc $(head -3 "$TMP/e")"
	fi
else
	skip script-join "no syscalls:sys_enter_execve tracepoint"
fi

# ustack at events: the instance's userstacktrace option, where the kernel
# writes user stacks (kallsyms names stack_trace_save_user; arm64 kernels
# do not).  hotpath is built with frame pointers: main -> run -> (work_b)
# -> leaf_b, whose entry the uprobe sees before leaf_b's own frame: the
# kernel's walk skips work_b, whose return address ftr's uprobe fetches at
# the stack pointer (x86); on arm64 the uprobe fetches the frame records
# itself, and the link register names work_b.
if [ ! -e "$T/options/userstacktrace" ]; then
	skip script-ustack "no userstacktrace option in this kernel's tracefs"
else
	if grep -q ' stack_trace_save_user$' /proc/kallsyms 2>/dev/null; then
		"$FTR" -e 'tracepoint:syscalls:sys_enter_write /comm == "writer" && args.count == 10/ { @[ustack(1)] = count(); }' \
			-- writer 3 10 > "$TMP/o" 2> "$TMP/e"
		[ "$(grep -c '^]: 3$' "$TMP/o")" = 1 ] && [ "$(grep -c '^@\[$' "$TMP/o")" = 1 ] &&
			grep -q '^        [^ ]' "$TMP/o" &&
			ok script-ustack-tracepoint || fail script-ustack-tracepoint "$(cat "$TMP/o" "$TMP/e" | head -6)"
	else
		# No user stacks from this kernel: refused, not printed empty.
		"$FTR" -e 'tracepoint:syscalls:sys_enter_write { @[ustack] = count(); }' -- true \
			> "$TMP/o" 2> "$TMP/e"
		rc=$?
		[ $rc = 1 ] && grep -q 'does not write (no CONFIG_USER_STACKTRACE_SUPPORT)' "$TMP/e" &&
			ok script-ustack-refused || fail script-ustack-refused "rc=$rc $(cat "$TMP/e" | head -3)"
	fi
	if has_uprobes; then
		hp=$(command -v hotpath)
		# hotpath has DWARF: a frame's source file and line after it,
		# as binutils' addr2line gives them for its address (where the
		# guest has no addr2line, the file's name and a line)
		"$FTR" -e "uprobe:$hp:leaf_b { @[ustack] = count(); exit(); }" -- hotpath 300 > "$TMP/o" 2> "$TMP/e"
		fold=$(awk '/^        / && $1 != "[inlined]" { f = $1; sub(/@.*$/, "", f)
			sub(/\+[0-9]+$/, "", f); s = s f ";" } END { print s }' "$TMP/o")
		case "$fold" in leaf_b\;work_b\;run\;main\;*) wb=0 ;; *) wb=1 ;; esac
		if command -v addr2line > /dev/null && command -v nm > /dev/null; then
			at=$(addr2line -e "$hp" "$(nm "$hp" | awk '$3 == "leaf_b" { print $1 }')" |
				sed 's/ (discriminator [0-9]*)$//')
			exact=-F
		else
			at='/.*/hotpath\.c:[1-9][0-9]*' exact=
		fi
		grep -qx $exact "        leaf_b+0@$at" "$TMP/o" && grep -qx ']: 1' "$TMP/o" && [ $wb = 0 ] &&
			ok script-ustack-uprobe || fail script-ustack-uprobe "want leaf_b+0@$at: $(cat "$TMP/o" "$TMP/e" | head -12 | tr '\n' '|')"
		# show_debug_info = 0: bpftrace 0.17's frames, no file:line
		"$FTR" -e "config = { show_debug_info = 0 } uprobe:$hp:leaf_b { print(ustack(2)); exit(); }" \
			-- hotpath 300 > "$TMP/o" 2> "$TMP/e"
		[ "$(grep -v '^$' "$TMP/o" | sed 's/+[0-9]*$/+N/' | tr '\n' '|')" = \
		  "        leaf_b+N|        work_b+N|" ] && grep -qx '        leaf_b+0' "$TMP/o" &&
			ok script-ustack-no-lines || fail script-ustack-no-lines "$(cat "$TMP/o" "$TMP/e" | head -6 | tr '\n' '|')"
		# perf's mode names the file; build ids the file's id and offset
		"$FTR" -e "uprobe:$hp:leaf_b { printf(\"%s%s\", ustack(perf, 1), ustack(build_id, 1));
			exit(); }" -- hotpath 300 > "$TMP/o" 2> "$TMP/e"
		printf '\t' > "$TMP/tab"
		grep -q "^$(cat "$TMP/tab")[0-9a-f]* leaf_b+0 ($hp)\$" "$TMP/o" &&
			grep -q '^[0-9a-f]\{40\} 0x[0-9a-f][0-9a-f]*$' "$TMP/o" &&
			[ "$(grep -c . "$TMP/o")" = 2 ] &&
			ok script-ustack-modes || fail script-ustack-modes "$(cat "$TMP/o" "$TMP/e" | head -6 | tr '\n' '|')"
		# A build id printed after its process ended, of a file first read
		# while it ran (through /proc/PID/map_files, gone with it): it was
		# a bare address (issue 38; the race of script-ustack-modes on a
		# busy machine, made certain here).
		"$FTR" -e "uprobe:$hp:leaf_b /@n++ == 0/ { printf(\"%s\", ustack(perf, 1)); }
			uprobe:$hp:leaf_b { @s[ustack(build_id, 1)] = count(); }" -- hotpath 300 \
			> "$TMP/o" 2> "$TMP/e"
		grep -q '^[0-9a-f]\{40\} 0x[0-9a-f][0-9a-f]*$' "$TMP/o" &&
			ok script-ustack-build-id-after-exit ||
			fail script-ustack-build-id-after-exit "$(cat "$TMP/o" "$TMP/e" | head -8 | tr '\n' '|')"
	fi
fi
same_as_before script-clean "$TMP/before"
