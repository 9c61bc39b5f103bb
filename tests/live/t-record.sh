# ftr record / report / run -i: a trace-cmd data file of exactly the
# workload's events, read by trace-cmd and by ftr; a killed recorder's file
# completed; malformed files refused; nothing left behind.
. "$LIVE_DIR/lib.sh"
require_tracing record
if [ ! -d "$T/events/syscalls/sys_enter_write" ]; then
	skip record "no syscall tracepoints on this kernel"
	exit 0
fi
snapshot > "$TMP/before"
# check_all NAME 'CONDITION': each part of a compound condition counts
# (check NAME [ A ] && [ B ] would check A alone).
check_all() { if eval "$2"; then ok "$1"; else fail "$1" "failed: $2"; fi; }
F="$TMP/w.dat"

"$FTR" record -o "$F" -e syscalls:sys_enter_write -f 'comm == "writer"' -- writer 1000 7 \
	> "$TMP/o" 2> "$TMP/e"
rc=$?
magic=$(od -An -c -N 10 "$F" 2>/dev/null | tr -d ' ')
[ $rc -eq 0 ] && [ "$magic" = '027\bDtracing' ] && [ ! -e "$F.cpu0" ] && ok record-writes ||
	fail record-writes "rc=$rc magic='$magic' $(head -2 "$TMP/e")"
grep -q '^ftr: 1000 events in ' "$TMP/e" && ok record-counts ||
	fail record-counts "$(head -2 "$TMP/e")"

# trace-cmd's own reader: exactly the 1000 writes, with their fields.
if command -v trace-cmd > /dev/null 2>&1; then
	trace-cmd report "$F" > "$TMP/tc" 2> "$TMP/e"
	n=$(count_lines 'writer-[0-9]* *\[[0-9]*\] *[0-9.]*: sys_enter_write: *fd: 0x0000000[0-9], buf: 0x[0-9a-f]*, count: 0x00000007$' "$TMP/tc")
	all=$(count_lines 'sys_enter_write' "$TMP/tc")
	[ "$n" -eq 1000 ] && [ "$all" -eq 1000 ] && ok record-trace-cmd-reads ||
		fail record-trace-cmd-reads "$n of $all lines match, want 1000 $(head -2 "$TMP/e")"
else
	skip record-trace-cmd-reads "no trace-cmd here (the file is read on the host by the matrix)"
fi

# printf's %gr names GFP flags from kmem:kmalloc's print format, as the
# kernel prints the field: over one recording, each event's names as
# trace-cmd renders them (libtraceevent reads the same print format) and as
# ftr's %gr prints them.
if command -v trace-cmd > /dev/null 2>&1 && [ -d "$T/events/kmem/kmalloc" ]; then
	K="$TMP/k.dat"
	"$FTR" record -o "$K" -e kmem:kmalloc -- sh -c 'ls / > /dev/null; cat /proc/self/stat' \
		> /dev/null 2>&1
	trace-cmd report "$K" 2> /dev/null | sed -n 's/.* gfp_flags=\([^ ]*\).*/\1/p' | sort \
		> "$TMP/k.tc"
	"$FTR" -i "$K" -e 'tracepoint:kmem:kmalloc { printf("%gr\n", args.gfp_flags); }' \
		2> "$TMP/e" | grep . | sort > "$TMP/k.ftr"
	if [ -s "$TMP/k.tc" ] && cmp -s "$TMP/k.tc" "$TMP/k.ftr"; then
		ok "record-gfp-names-as-trace-cmd ($(wc -l < "$TMP/k.tc") events)"
	else
		fail record-gfp-names-as-trace-cmd "$(diff "$TMP/k.tc" "$TMP/k.ftr" | head -3 | tr '\n' ' ') $(head -1 "$TMP/e")"
	fi
fi

# ftr's reader (the dynamic build; the static one says it has none).
"$FTR" report "$F" > "$TMP/r" 2> "$TMP/e"
if grep -q 'not in this build' "$TMP/e"; then
	skip record-report "this ftr is built without libtracecmd: $(head -1 "$TMP/e")"
	# In the qemu matrix: a kprobe, an eprobe and a tracepoint recorded
	# here go out on the result port ("file NAME ..." lines, base64), and
	# the host reads them with the dynamic ftr and trace-cmd
	# (tests/matrix/run.sh) and checks the counts these lines expect.
	# gzip'd first (a file is mostly kallsyms: 7.1 MB became 1.2 MB),
	# as the serial port of an emulated guest is slow: 9 MB took minutes.
	send() { # FILE NAME
		if command -v gzip > /dev/null 2>&1; then
			gzip -c "$1" | base64 | sed "s/^/file $2 gzdata /"
		else
			base64 "$1" | sed "s/^/file $2 data /"
		fi
	}
	if has_kprobes && ! "$FTR" doctor 2>/dev/null | grep -q '^yes *eprobe events'; then
		skip record-probes "no eprobe events here: $("$FTR" doctor 2>/dev/null | grep 'eprobe events')"
	elif has_kprobes && command -v base64 > /dev/null 2>&1; then
		P="$TMP/probes.dat"
		"$FTR" record -o "$P" -e syscalls:sys_enter_write kprobe:vfs_write \
			eprobe:syscalls:sys_enter_write 'n=$count:u64' -- writer 200 7 > /dev/null 2> "$TMP/e"
		rc=$?
		if [ $rc -eq 0 ] && grep -q '^ftr: 600 events in ' "$TMP/e"; then
			ok record-probes
			send "$P" probes.dat
			echo 'file probes.dat expect ftr 200 writer-[0-9]+ +\[[0-9]+\] [0-9.]+: sys_enter_write: __syscall_nr=[0-9]+ fd=[0-9]+ buf=0x[0-9a-f]+ count=7$'
			echo 'file probes.dat expect ftr 200 writer-[0-9]+ +\[[0-9]+\] [0-9.]+: sys_enter_write[_0-9]*: n=7$'
			echo 'file probes.dat expect ftr 200 writer-[0-9]+ +\[[0-9]+\] [0-9.]+: vfs_write[_0-9]*: '
			echo 'file probes.dat expect trace-cmd 200 writer-[0-9]+ .*: sys_enter_write: +fd: 0x[0-9a-f]+, buf: 0x[0-9a-f]+, count: 0x0*7$'
			echo 'file probes.dat expect trace-cmd 200 writer-[0-9]+ .*: vfs_write[_0-9]*: '
			echo 'file probes.dat expect run 200 tracepoint:ftr_*:vfs_write* { @[comm] = count(); }'
		elif grep -q -i 'eprobe' "$TMP/e"; then
			skip record-probes "no eprobes here: $(head -1 "$TMP/e")"
		else
			fail record-probes "rc=$rc $(head -2 "$TMP/e")"
		fi
	fi
	# A program's kprobe with an argument (ftr record -e PROGRAM), read
	# back on the host by the same program.
	if has_kprobes && command -v base64 > /dev/null 2>&1; then
		P='kprobe:vfs_write /comm == "writer" && arg2 == 7/ { @[comm] = count(); }'
		"$FTR" record -o "$TMP/prog.dat" -e "$P" -- writer 200 7 > /dev/null 2> "$TMP/e"
		rc=$?
		if [ $rc -eq 0 ] && [ ! -e "$TMP/prog.dat.cpu0" ]; then
			ok record-program
			send "$TMP/prog.dat" prog.dat
			echo "file prog.dat expect run 200 $P"
			echo 'file prog.dat expect trace-cmd 200 writer-[0-9]+ .*: vfs_write[_0-9]*: .*arg2=7'
		else
			fail record-program "rc=$rc $(head -2 "$TMP/e")"
		fi
		# str() of a user pointer: an eprobe (or the syscall wrapper's
		# kprobe) stands in for the tracepoint, and is found in the file.
		P='tracepoint:syscalls:sys_enter_write /comm == "writer" && str(args.buf) == ""/ { @[comm] = count(); }'
		"$FTR" record -o "$TMP/strp.dat" -e "$P" -- writer 200 7 > /dev/null 2> "$TMP/e"
		rc=$?
		if [ $rc -eq 0 ] && [ "$(uname -m)" = armv7l ]; then
			# 32-bit ARM has no pt_regs syscall wrappers: the fetch is
			# a kprobe on sys_write itself, which 'ftr run -i' does not
			# yet map back to the tracepoint ("no event ... in the
			# recording", a refusal): the host's check is not asked.
			ok record-program-str
			skip record-program-str-file "on 32-bit ARM the file holds sys_write's kprobe, which ftr run -i does not read as sys_enter_write yet"
		elif [ $rc -eq 0 ]; then
			ok record-program-str
			send "$TMP/strp.dat" strp.dat
			echo "file strp.dat expect run 200 $P"
		elif grep -q 'nothing on this kernel can fetch it' "$TMP/e"; then
			skip record-program-str "no eprobe events, nor kprobes that read user memory (ustring, 5.5) on this kernel"
		else
			fail record-program-str "rc=$rc $(head -2 "$TMP/e")"
		fi
	fi
	same_as_before record-leaves-nothing "$TMP/before"
	exit $FAILED
fi
n=$(count_lines 'writer-[0-9]* *\[[0-9]*\] [0-9.]*: sys_enter_write: __syscall_nr=[0-9]* fd=[0-9] buf=0x[0-9a-f]* count=7$' "$TMP/r")
check_all record-report '[ "$n" -eq 1000 ] && [ "$(wc -l < "$TMP/r")" -eq 1000 ]'
"$FTR" report -j -F count "$F" -f 'count == 7' > "$TMP/r" 2>&1
n=$(count_lines '^{"ts":[0-9.]*,"cpu":[0-9]*,"comm":"writer","pid":[0-9]*,"event":"syscalls:sys_enter_write","fields":{"count":7}}$' "$TMP/r")
check record-report-json-filter [ "$n" -eq 1000 ]
"$FTR" report "$F" -f 'count != 7' > "$TMP/r" 2>&1
rc=$?
check_all record-report-filter-none '[ $rc -eq 0 ] && [ ! -s "$TMP/r" ]'

# The language over the recording: the same answer as live.
"$FTR" run -i "$F" 'tracepoint:syscalls:sys_enter_write { @[comm] = count(); }' > "$TMP/r" 2>&1
check record-run-input [ "$(cat "$TMP/r")" = "${EXIT_LINES}@[writer]: 1000" ]
"$FTR" count --input "$F" -k comm syscalls:sys_enter_write > "$TMP/r" 2>&1
check record-count-input grep -q '^@\[writer\]: 1000$' "$TMP/r"
# ksym() from the file's kallsyms.
s=vfs_write
a=$(awk '$3 == "vfs_write" && $1 !~ /^0*$/ { print $1; exit }' /proc/kallsyms)
if [ -n "$a" ]; then
	"$FTR" run -i "$F" "tracepoint:syscalls:sys_enter_write { @[ksym(0x$a)] = count(); }" \
		> "$TMP/r" 2>&1
	check record-ksym-from-file [ "$(cat "$TMP/r")" = "${EXIT_LINES}@[$s]: 1000" ]
	# ... and from a trace-cmd version 7 file (trace-cmd convert of this
	# one, a name changed in its kallsyms first): the file's symbols, not
	# the running kernel's.
	if command -v trace-cmd > /dev/null 2>&1; then
		sed 's/ T vfs_write$/ T vfs_wrXte/' "$F" > "$TMP/x6.dat"
		trace-cmd convert -i "$TMP/x6.dat" -o "$TMP/x7.dat" --file-version 7 > /dev/null 2>&1
		"$FTR" run -i "$TMP/x7.dat" "tracepoint:syscalls:sys_enter_write { @[ksymoff(0x$a + 4)] = count(); }" \
			> "$TMP/r" 2>&1
		v=$(od -An -c -N 11 "$TMP/x7.dat" | tr -d ' ')
		check_all record-ksym-v7-file '[ "$v" = "027\\bDtracing7" ] &&
			[ "$(cat "$TMP/r")" = "${EXIT_LINES}@[vfs_wrXte+0x4]: 1000" ]'
	fi
fi

# kstack over a recording (-k) names the frames as a live run does.
P='tracepoint:syscalls:sys_enter_write { @[kstack] = count(); }'
"$FTR" record -k -o "$TMP/k.dat" -e syscalls:sys_enter_write -- writer 10 7 > /dev/null 2>&1
"$FTR" run -i "$TMP/k.dat" "$P" > "$TMP/r1" 2>&1
"$FTR" run -e "$P" -- writer 10 7 > "$TMP/r2" 2>&1
[ "$(tail -1 "$TMP/r1")" = "]: 10" ] && grep -q 'do_syscall_64' "$TMP/r1" && cmp -s "$TMP/r1" "$TMP/r2" &&
	ok record-kstack-as-live || fail record-kstack-as-live "$(tr '\n' ' ' < "$TMP/r1") vs $(tr '\n' ' ' < "$TMP/r2")"

# A program's events (ftr record -e PROGRAM): its tracepoint and the
# uprobes it makes, one with an argument; the same program over the file
# answers as the live run, and trace-cmd sees the probes' events.
if has_uprobes; then
	W=$(command -v writer)
	P="tracepoint:syscalls:sys_enter_write /comm == \"writer\"/ { @[comm] = count(); }
	   uprobe:$W:main { @m[arg0] = count(); } uprobe:$W:main { @n = count(); }"
	"$FTR" record -o "$TMP/p.dat" -e "$P" -- writer 300 7 > /dev/null 2> "$TMP/e"
	rc=$?
	"$FTR" run -i "$TMP/p.dat" "$P" > "$TMP/r1" 2>&1
	"$FTR" run -e "$P" -- writer 300 7 > "$TMP/r2" 2>&1
	printf '\n\n@[writer]: 300\n\n@m[3]: 1\n\n@n: 1\n' > "$TMP/want"
	[ $rc -eq 0 ] && cmp -s "$TMP/r1" "$TMP/want" && cmp -s "$TMP/r2" "$TMP/want" &&
		ok record-program-as-live ||
		fail record-program-as-live "rc=$rc $(head -1 "$TMP/e") file: $(tr '\n' ' ' < "$TMP/r1") live: $(tr '\n' ' ' < "$TMP/r2")"
	if command -v trace-cmd > /dev/null 2>&1; then
		trace-cmd report "$TMP/p.dat" > "$TMP/tc" 2> /dev/null
		n=$(count_lines 'writer-[0-9]* .*: sys_enter_write: ' "$TMP/tc")
		m=$(count_lines 'writer-[0-9]* .*: main: .*arg0=3' "$TMP/tc")
		m2=$(count_lines 'writer-[0-9]* .*: main_2: ' "$TMP/tc")
		[ "$n" -eq 300 ] && [ "$m" -eq 1 ] && [ "$m2" -eq 1 ] && ok record-program-trace-cmd ||
			fail record-program-trace-cmd "$n writes (want 300), $m main, $m2 main_2 (want 1)"
	fi
	# A probe that cannot be made, after one that was: nothing is left
	# (checked at the end), and a file recorded by another program is
	# refused by name.
	"$FTR" record -o "$TMP/p2.dat" -e "uprobe:$W:main { @ = count(); }
		uprobe:$W:no_such_function_here { @ = count(); }" -- writer 1 1 > /dev/null 2> "$TMP/e"
	rc=$?
	check_all record-program-fails-clean '[ $rc -eq 1 ] && grep -q no_such_function_here "$TMP/e"'
	"$FTR" run -i "$TMP/p.dat" "uprobe:$W:write_loop_nowhere { @ = count(); }" > /dev/null 2> "$TMP/e"
	rc=$?
	check_all record-program-not-recorded '[ $rc -eq 1 ] && grep -q "is not in the recording" "$TMP/e"'
else
	skip record-program-as-live "no uprobe events here"
fi

# A file of trace-cmd's own (version 7, compressed, the events in an
# instance's buffer): 'trace-cmd record' cannot run where ftrace_enabled is
# refused, but 'trace-cmd extract' of an instance filled here can.
if command -v trace-cmd > /dev/null 2>&1; then
	I="$T/instances/ftrtest_$$"
	mkdir "$I" && echo 'comm == "writer"' > "$I/events/syscalls/sys_enter_write/filter" &&
		echo 1 > "$I/events/syscalls/sys_enter_write/enable" && writer 50 3 &&
		echo 0 > "$I/tracing_on" &&
		trace-cmd extract -B "ftrtest_$$" -o "$TMP/tc.dat" > "$TMP/e" 2>&1
	[ -d "$I" ] && rmdir "$I"
	"$FTR" report -F count "$TMP/tc.dat" > "$TMP/r" 2>&1
	check record-reads-trace-cmd-file [ "$(count_lines 'writer-[0-9]* .*sys_enter_write: count=3$' "$TMP/r")" -eq 50 ]
	"$FTR" run -i "$TMP/tc.dat" 'tracepoint:syscalls:sys_enter_write { @[comm] = count(); }' \
		> "$TMP/r" 2>&1
	check record-run-trace-cmd-file [ "$(cat "$TMP/r")" = "${EXIT_LINES}@[writer]: 50" ]
	# ksym() from the kallsyms trace-cmd stored (version 7: libtracecmd
	# reads them; without them the address prints as a number).
	if [ -n "$a" ]; then
		"$FTR" run -i "$TMP/tc.dat" "tracepoint:syscalls:sys_enter_write { @[ksym(0x$a + 4)] = count(); }" \
			> "$TMP/r" 2>&1
		check record-ksym-trace-cmd-file [ "$(cat "$TMP/r")" = "${EXIT_LINES}@[$s]: 50" ]
	fi
fi

# A recorder killed (SIGKILL): its pages are in FILE.cpuN.  Readers never
# write (issue 38): ftr report and run -i refuse the unfinished file and
# leave it and its side files as they were; ftr record --finish completes
# it, and then trace-cmd reads it too.
K="$TMP/k.dat"
"$FTR" record -o "$K" -e syscalls:sys_enter_write -f 'comm == "writer" && count == 5' \
	> /dev/null 2>&1 &
fpid=$!
if wait_tracing $fpid; then
	writer 3000 5
	sleep 1
fi
kill -9 $fpid
wait $fpid 2> /dev/null
"$FTR" reset > /dev/null 2>&1
ls "$K".cpu* > /dev/null 2>&1 && ok record-kill-side-files ||
	fail record-kill-side-files "no $K.cpuN after the kill"
sums() { cksum "$K" "$K".cpu* 2> /dev/null; ls -l "$K".* 2> /dev/null | awk '{ print $1, $5, $NF }'; }
before=$(sums)
"$FTR" report -F count "$K" > "$TMP/r" 2> "$TMP/e"
rc=$?
"$FTR" run -i "$K" 'tracepoint:syscalls:sys_enter_write { @ = count(); }' > /dev/null 2>> "$TMP/e"
rc2=$?
[ $rc -eq 1 ] && [ $rc2 -eq 1 ] && grep -q 'record --finish' "$TMP/e" && [ "$(sums)" = "$before" ] &&
	ok record-report-never-writes ||
	fail record-report-never-writes "rc=$rc/$rc2, changed: $([ "$(sums)" = "$before" ] || echo yes) $(head -1 "$TMP/e")"
# Side files that are symbolic links (to a victim file), and an unfinished
# file without any: --finish refuses, and writes nothing anywhere.
mkdir "$TMP/sl"
cp "$K" "$TMP/sl/k.dat"
seq 1 20000 > "$TMP/victim"
vsum=$(cksum < "$TMP/victim")
ln -s "$TMP/victim" "$TMP/sl/k.dat.cpu0"
ksum=$(cksum < "$TMP/sl/k.dat")
"$FTR" report "$TMP/sl/k.dat" > /dev/null 2>&1
"$FTR" record --finish "$TMP/sl/k.dat" > /dev/null 2> "$TMP/e"
rc=$?
[ $rc -eq 1 ] && grep -q 'symbolic link' "$TMP/e" && [ "$(cksum < "$TMP/victim")" = "$vsum" ] &&
	[ "$(cksum < "$TMP/sl/k.dat")" = "$ksum" ] && [ -L "$TMP/sl/k.dat.cpu0" ] &&
	ok record-finish-symlink-side ||
	fail record-finish-symlink-side "rc=$rc $(head -1 "$TMP/e")"
rm "$TMP/sl/k.dat.cpu0"
"$FTR" record --finish "$TMP/sl/k.dat" > /dev/null 2> "$TMP/e"
rc=$?
[ $rc -eq 1 ] && grep -q 'no side file' "$TMP/e" && [ "$(cksum < "$TMP/sl/k.dat")" = "$ksum" ] &&
	ok record-finish-no-side ||
	fail record-finish-no-side "rc=$rc $(head -1 "$TMP/e")"
"$FTR" record --finish "$K" > /dev/null 2> "$TMP/e"
rc=$?
"$FTR" report -F count "$K" > "$TMP/r" 2>> "$TMP/e"
n=$(count_lines 'count=5$' "$TMP/r")
[ $rc -eq 0 ] && [ "$n" -eq 3000 ] && grep -q 'finished' "$TMP/e" && ok record-kill-recovered ||
	fail record-kill-recovered "rc=$rc, $n events, want 3000 $(head -2 "$TMP/e")"
# -o a device or a pipe: refused, and never unlinked (it was /dev/null).
"$FTR" record -o /dev/null -e syscalls:sys_enter_write -- true > /dev/null 2> "$TMP/e"
rc=$?
"$FTR" record -o /dev/stdout -e syscalls:sys_enter_write -- true 2>> "$TMP/e" | cat > /dev/null
[ $rc -eq 1 ] && [ -c /dev/null ] && [ "$(grep -c 'not a regular file' "$TMP/e")" -eq 2 ] &&
	ok record-output-not-regular ||
	fail record-output-not-regular "rc=$rc $(ls -l /dev/null) $(head -2 "$TMP/e")"
if command -v trace-cmd > /dev/null 2>&1; then
	check record-kill-trace-cmd-reads [ "$(trace-cmd report "$K" 2>/dev/null |
		grep -c 'sys_enter_write:')" -eq 3000 ]
fi

# --max-size: the file stays within it, and reads.
hdr=$(stat -c %s "$F")
"$FTR" record --max-size $((hdr + 200000)) -b 256 -o "$TMP/m.dat" \
	-e syscalls:sys_enter_write -f 'comm == "writer"' -- writer 100000 7 > /dev/null 2> "$TMP/e"
rc=$?
sz=$(stat -c %s "$TMP/m.dat")
"$FTR" report "$TMP/m.dat" > "$TMP/r" 2>&1
n=$(count_lines 'count=7$' "$TMP/r")
[ $rc -eq 0 ] && [ "$sz" -le $((hdr + 200000)) ] && [ "$n" -gt 0 ] && [ "$n" -lt 100000 ] &&
	grep -q 'max-size reached' "$TMP/e" && ok record-max-size ||
	fail record-max-size "rc=$rc size=$sz (limit $((hdr + 200000))) events=$n $(head -1 "$TMP/e")"

# Lost events (a small buffer): the pages say where, both readers show
# it, and what the file holds plus what it says was lost is the workload.
"$FTR" record -b 8 -o "$TMP/l.dat" -e syscalls:sys_enter_write -- writer 300000 7 > /dev/null 2>&1
"$FTR" report -F count "$TMP/l.dat" > "$TMP/r" 2>&1
n=$(count_lines 'count=7$' "$TMP/r")
lost=$(sed -n 's/^-- cpu [0-9]*: \([0-9]*\) events lost here --$/\1/p' "$TMP/r" | awk '{ s += $1 } END { print s + 0 }')
[ $((n + lost)) -eq 300000 ] && ok record-lost-in-file ||
	fail record-lost-in-file "$n events + $lost lost != 300000"
if command -v trace-cmd > /dev/null 2>&1; then
	tl=$(trace-cmd report "$TMP/l.dat" 2>/dev/null | sed -n 's/.*\[\([0-9]*\) EVENTS DROPPED\].*/\1/p' | awk '{ s += $1 } END { print s + 0 }')
	check record-lost-trace-cmd [ "$tl" -eq "$lost" ]
fi

# A full disk: recording stops at the last whole page, and the file is
# finished all the same (the data moves into it a page at a time).
D="$TMP/full"
mkdir "$D"
if mount -t tmpfs -o size=$(( (hdr + 1500000) / 1024 ))k tmpfs "$D" 2> /dev/null; then
	"$FTR" record -o "$D/f.dat" -e syscalls:sys_enter_write -f 'comm == "writer"' \
		-- writer 100000 7 > /dev/null 2> "$TMP/e"
	rc=$?
	"$FTR" report "$D/f.dat" > "$TMP/r" 2>&1
	n=$(count_lines 'count=7$' "$TMP/r")
	left=$(ls "$D" | tr '\n' ' ')
	[ $rc -eq 1 ] && grep -q 'No space left' "$TMP/e" && [ "$n" -gt 0 ] && [ "$n" -lt 100000 ] &&
		[ "$left" = "f.dat " ] && ok record-disk-full ||
		fail record-disk-full "rc=$rc events=$n files: $left $(head -1 "$TMP/e")"
	umount "$D"
else
	skip record-disk-full "cannot mount a tmpfs here"
fi

# Malformed files: a clear error, exit 1, no crash.
: > "$TMP/empty"
"$FTR" report "$TMP/empty" > /dev/null 2> "$TMP/e"
rc=$?
check_all record-empty-file '[ $rc -eq 1 ] && grep -q empty "$TMP/e"'
head -c 4000 "$F" > "$TMP/t1"
"$FTR" report "$TMP/t1" > /dev/null 2> "$TMP/e"
rc=$?
check_all record-truncated-header '[ $rc -eq 1 ] && grep -q truncated "$TMP/e"'
head -c $((hdr - 100)) "$F" > "$TMP/t2"
"$FTR" run -i "$TMP/t2" 'tracepoint:syscalls:sys_enter_write { @ = count(); }' > /dev/null 2> "$TMP/e"
rc=$?
check_all record-truncated-data '[ $rc -eq 1 ] && grep -q truncated "$TMP/e"'
# Bytes flipped all over the file: any answer but a crash.
crashed=0
for off in 3 12 40 300 2000 100000 $((hdr - 40)) $((hdr - 5000)) $((hdr - 65536 + 20)); do
	cp "$F" "$TMP/b"
	printf '\377\377\377\377' | dd of="$TMP/b" bs=1 seek=$off conv=notrunc 2>/dev/null
	"$FTR" report "$TMP/b" > /dev/null 2>&1
	rc=$?
	[ $rc -gt 1 ] && crashed="$crashed $off:$rc" && cp "$TMP/b" "${TMPDIR:-/tmp}/ftr-record-crash.$off"
done
check record-bit-flips [ "$crashed" = 0 ]

same_as_before record-leaves-nothing "$TMP/before"
exit $FAILED
