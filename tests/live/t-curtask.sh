# curtask on kernels without the $current fetch argument (fetchargs.h typed_cur):
# the running task's per-CPU slot, read for each possible CPU, the event's
# CPU choosing.  Its reads are compared with what the shell knows: timers
# (pinned to each CPU in turn where taskset can) is a child of an sh that
# prints its pid, itself the child of ftr.
. "$LIVE_DIR/lib.sh"
require_tracing curtask
snapshot > "$TMP/before"

TP='tracepoint:syscalls:sys_enter_clock_nanosleep /comm == "timers"/ {
	$t = (struct task_struct *)curtask;
	printf("tp %d %d %d %d %d %d %s\n", cpu, pid, $t->pid, $t->tgid, $t->real_parent->pid,
	       $t->real_parent->real_parent->pid, $t->comm); }'
KP='kprobe:hrtimer_nanosleep /comm == "timers"/ {
	printf("kp %d %d %d %d %d %s\n", cpu, pid, curtask->pid, curtask->tgid,
	       curtask->real_parent->pid, curtask->comm); }'
# Pinned to CPU 0, then 1, where there are two and a taskset.
if [ "$(nproc 2> /dev/null || echo 1)" -ge 2 ] && taskset 1 true 2> /dev/null; then
	CMD='echo sh=$$; taskset 1 timers 2 0 0; taskset 2 timers 2 0 0; exit 0'
	pinned=1
else
	CMD='echo sh=$$; timers 4 0 0; exit 0'
	pinned=
fi
run() {
	"$FTR" -e "$1" -- sh -c "$CMD" > "$TMP/o" 2> "$TMP/e" &
	fpid=$!
	wait $fpid
	rc=$?
}
# (CLASS, want lines): every line of CLASS is the truth, and its CPUs are
# the two pinned ones, twice each.
check_lines() {
	shpid=$(sed -n 's/^sh=//p' "$TMP/o")
	awk -v c="$1" -v sh="$shpid" -v f="$fpid" -v pinned="$pinned" '
		$1 == c { n++
			if ($3 != $4 || $3 != $5 || $6 != sh || $NF != "timers" ||
			    (c == "tp" && $7 != f)) bad = bad " [" $0 "]"
			cpus[$2]++ }
		END { if (pinned && (cpus[0] != 2 || cpus[1] != 2)) bad = bad " cpus 0:" cpus[0] " 1:" cpus[1]
		      if (n != 4) bad = bad " " n " lines"
		      if (bad != "") { print bad; exit 1 } }' "$TMP/o"
}

# A kernel without BTF whose types were made with pahole -J (the matrix's
# -btf rows: FTR_KERNEL_BTF): given as a user gives them, FTR_VMLINUX_BTF.
if [ ! -e /sys/kernel/btf/vmlinux ] && [ -n "${FTR_KERNEL_BTF:-}" ]; then
	export FTR_VMLINUX_BTF="$FTR_KERNEL_BTF"
fi
if ! has_kprobes; then
	skip curtask-kprobe "no kprobe events on this kernel"
	skip curtask-eprobe "no kprobe events on this kernel"
elif [ ! -e /sys/kernel/btf/vmlinux ] && [ -z "${FTR_VMLINUX_BTF:-}" ]; then
	skip curtask-kprobe "no /sys/kernel/btf/vmlinux for struct task_struct"
	skip curtask-eprobe "no /sys/kernel/btf/vmlinux for struct task_struct"
else
	run "$TP $KP"
	if [ $rc -ne 0 ] && grep -q 'eprobe on it (Linux 5.15 on), and this kernel has' "$TMP/e"; then
		skip curtask-eprobe "$(sed -n 's/.*and this kernel has //p' "$TMP/e" | head -1)"
		run "$KP"
		tp=
	else
		tp=1
	fi
	if [ $rc -ne 0 ] && grep -q '/proc/kallsyms has no' "$TMP/e"; then
		# Only where kallsyms lacks the symbols indeed (no KALLSYMS_ALL).
		# (one read: kallsyms takes seconds in an emulated guest)
		if awk '$3 == "__per_cpu_offset" { o = 1 }
			$3 ~ /^(current_task|pcpu_hot|__entry_task)$/ { v = 1 }
			END { exit !(o && v) }' /proc/kallsyms; then
			fail curtask-kprobe "refused, yet kallsyms has them: $(head -1 "$TMP/e")"
		else
			skip curtask-kprobe "$(sed -n 's/.*instead: //p' "$TMP/e" | head -1)"
		fi
		[ -n "$tp" ] && skip curtask-eprobe "as curtask-kprobe"
	elif [ $rc -ne 0 ] && grep -q 'possible CPUs' "$TMP/e"; then
		skip curtask-kprobe "$(head -1 "$TMP/e")"
		[ -n "$tp" ] && skip curtask-eprobe "$(head -1 "$TMP/e")"
	else
		why=$(check_lines kp) && [ $rc -eq 0 ] && ok curtask-kprobe ||
			fail curtask-kprobe "rc=$rc$why $(head -2 "$TMP/e") $(head -3 "$TMP/o" | tr '\n' ' ')"
		if [ -n "$tp" ]; then
			why=$(check_lines tp) && [ $rc -eq 0 ] && ok curtask-eprobe ||
				fail curtask-eprobe "rc=$rc$why $(head -2 "$TMP/e") $(grep '^tp' "$TMP/o" | head -2 | tr '\n' ' ')"
		fi
	fi
fi
same_as_before curtask-clean "$TMP/before"
exit $FAILED
