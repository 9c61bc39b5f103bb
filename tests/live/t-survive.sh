# The kernel survives ftr (issue #27): probe patterns chosen to stress the
# kernel's probe machinery, and every recipe of events/, run while
# processes fork, exec, exit, sleep and write; each run must give its
# answer, tracefs must be left as it was, and the kernel must say nothing of
# itself (no BUG, Oops, WARNING or panic in its log).  In the matrix the
# host also watches each guest's console (tests/matrix/run.sh,
# matrix-kernel), which sees what a dying kernel prints.
#
# The patterns:
#   mutexlat   the program of issue #27, unchanged: entry and return probes
#              on mutex_lock, a kstack(5) key taken in the return probe
#   retlock    return probes on hot locking functions
#   retmem     return probes on hot memory functions, kstack keys
#   kstackall  a kstack key on every kind of probe: tracepoint, kprobe,
#              kretprobe, profile
#   sleepers   return probes on functions tasks sleep in (nanosleep,
#              wait4), created and removed again and again while those
#              tasks sleep, so that the probes go away under them
#   many       many probes at once (a wildcard over vfs_*)
#   toggle     issue #27's probes armed and disarmed hundreds of times
#              through tracefs itself (FTR_SURVIVE_FULL; toggle_storm), and
#              through perf_event_open's kprobe PMU (kpmu_storm)
#   recipes    every recipe of events/, all at once (FTR_SURVIVE_FULL)
#   ftrace     the function tracer on hot functions (locks, slab), two runs
#              at once, and function_graph on hot functions where an
#              instance runs it (6.11+): with or without kprobes
# In make check the patterns share two runs of FTR_SURVIVE_SECS (default 1)
# each: a probe's set-up and tear-down take seconds in an emulated guest.
# FTR_SURVIVE_FULL=1 (make soak, tests/matrix/survive.sh) runs each pattern
# alone, `sleepers` FTR_SURVIVE_ROUNDS times (default 3), and `many`.
. "$LIVE_DIR/lib.sh"
require_tracing survive
snapshot > "$TMP/before"
SECS=${FTR_SURVIVE_SECS:-1}
ROUNDS=${FTR_SURVIVE_ROUNDS:-3}
# The kernel log so far: only what this file's runs add is judged.
kmsg0=$(dmesg 2>/dev/null | wc -l)

# The workload, until $TMP/stop (or $TMP is gone: lib.sh removes it when
# this file ends early): fork/exec/exit and writes in two loops, and tasks
# that sleep (in nanosleep, and in wait4 for them).
going() { [ -d "$TMP" ] && [ ! -e "$TMP/stop" ]; }
churn() {
	while going; do
		sh -c true
		ls / > /dev/null
		cat /proc/self/stat > /dev/null
		dd if=/dev/zero of="$TMP/churn.$1" bs=4k count=16 2> /dev/null
		sync
	done
}
sleeper() { while going; do sleep 1; done; }
churn 1 & c1=$!
churn 2 & c2=$!
sleeper & s1=$!
sleeper & s2=$!
stop_churn() { touch "$TMP/stop"; wait $c1 $c2 $s1 $s2 2> /dev/null; }

# run NAME WANT PROGRAM [FUNC]: one run of SECS under the workload; ok when
# ftr exits 0 and its output holds WANT (a grep -E pattern); skipped, saying
# why, where the kernel refuses to create the probe on FUNC.
run() {
	n=$1 want=$2 prog=$3 t0=$(date +%s)
	"$FTR" -e "$prog" -d "${SECS}s" > "$TMP/o.$n" 2> "$TMP/e.$n"
	rc=$?
	# where the time goes (the matrix's budget), not a verdict
	echo "# survive-$n: ftr ran $(($(date +%s) - t0))s for ${SECS}s of tracing"
	if [ $rc = 1 ] && [ -n "${4:-}" ] && grep -q "cannot create .* at '$4'" "$TMP/e.$n"; then
		# The kernel refuses a probe on this function: ftr said so and
		# why, nothing ran (the program is refused, the kernel unhurt).
		skip "survive-$n" "this kernel refuses the probe on $4: $(tr '\n' ' ' < "$TMP/e.$n")"
	elif [ $rc -ne 0 ]; then
		fail "survive-$n" "ftr exited $rc: $(head -n 3 "$TMP/e.$n" | tr '\n' ' ')"
	elif ! grep -Eq -- "$want" "$TMP/o.$n"; then
		fail "survive-$n" "no '$want' in the output: $(head -n 3 "$TMP/o.$n" | tr '\n' ' ')"
	else
		ok "survive-$n"
	fi
}

MUTEXLAT='kprobe:mutex_lock, kprobe:mutex_lock_interruptible { @start[tid]=nsecs; @addr[tid]=arg0 }
kretprobe:mutex_lock, kretprobe:mutex_lock_interruptible { @lat[ksym(@addr[tid]), kstack(5), comm] = hist(nsecs - @start[tid]); delete(@start[tid]); delete(@addr[tid]) }'
RETLOCK='kretprobe:mutex_unlock, kretprobe:down_read, kretprobe:up_read,
kretprobe:down_write, kretprobe:up_write { @l[func] = count(); }'
RETMEM='kretprobe:kfree, kretprobe:kmem_cache_free { @m[kstack(3)] = count(); }
kprobe:kfree { @n = count(); }'
KSTACKALL='tracepoint:sched:sched_process_exec { @e[kstack(4)] = count(); }
kprobe:do_exit { @x[kstack(4)] = count(); }
kretprobe:kernel_clone { @c[kstack(4)] = count(); }
profile:hz:49 { @p[kstack(4)] = count(); }'
SLEEPERS='kprobe:hrtimer_nanosleep, kprobe:kernel_wait4 { @t[tid] = nsecs; }
kretprobe:hrtimer_nanosleep, kretprobe:kernel_wait4 /@t[tid]/ { @s[comm, kstack(2)] = hist(nsecs - @t[tid]); delete(@t[tid]); }'
# toggle_storm SECS: issue #27's probes (entry and return on mutex_lock and
# mutex_lock_interruptible, kernel stacks on), armed and disarmed through
# tracefs itself as fast as the kernel lets, for SECS under the workload,
# and re-created every 25 rounds while tasks sleep inside the functions.
# Each arming and disarming patches the functions' ftrace call sites
# (text_poke_bp: int3, then the new bytes) while other CPUs run through
# them, the one part of the machinery that changes code under running CPUs,
# which a run of ftr does twice (it arms once and disarms once).  Raw
# tracefs, so that a crash here is the kernel's alone.
toggle_storm() {
	ti=$T/instances/ftr_survive_$$ tg=ftr_survive_$$ n=0 re=0 t0=$(date +%s)
	ts_mk() {
		for f in mutex_lock mutex_lock_interruptible; do
			echo "p:$tg/e_$f $f" >> "$T/kprobe_events" &&
				echo "r:$tg/r_$f $f" >> "$T/kprobe_events" || return 1
		done
	}
	ts_rm() {
		echo 0 > "$ti/events/$tg/enable" 2> /dev/null
		for f in mutex_lock mutex_lock_interruptible; do
			echo "-:$tg/e_$f" >> "$T/kprobe_events"
			echo "-:$tg/r_$f" >> "$T/kprobe_events"
		done 2> /dev/null
	}
	# (lib.sh's own EXIT trap removes $TMP: kept)
	trap 'ts_rm; rmdir "$ti" 2> /dev/null; rm -rf "$TMP"' EXIT
	if ! mkdir "$ti" || ! ts_mk; then
		skip survive-toggle "cannot create the probes on mutex_lock through tracefs"
		ts_rm; rmdir "$ti"; trap 'rm -rf "$TMP"' EXIT
		return
	fi
	echo 1 > "$ti/options/stacktrace"
	while [ $(($(date +%s) - t0)) -lt "$1" ]; do
		echo 1 > "$ti/events/$tg/enable"
		sleep 0.0$((n % 7))
		echo 0 > "$ti/events/$tg/enable"
		n=$((n + 1))
		if [ $((n % 25)) = 0 ]; then
			ts_rm; ts_mk || break
			re=$((re + 1))
		fi
	done
	ts_rm; rmdir "$ti"; trap 'rm -rf "$TMP"' EXIT
	ok "survive-toggle ($n armings, $re re-creations in $(($(date +%s) - t0))s)"
}

# kpmu_storm SECS: the same probes and the same arming and disarming through
# perf_event_open's kprobe PMU (the tests' kpmu helper), the way perf and
# bpftrace attach them: what a storm does to a kernel, through the door
# that is not ftr's.
kpmu_storm() {
	if ! command -v kpmu > /dev/null 2>&1; then
		skip survive-kpmu "the kpmu helper is not on PATH (make helpers)"
		return
	fi
	kpmu "$1" mutex_lock mutex_lock_interruptible > "$TMP/kpmu" 2>&1
	case $? in
	0)	if grep -q ' 0 samples$' "$TMP/kpmu"; then
			fail survive-kpmu "the probes never fired under the workload: $(cat "$TMP/kpmu")"
		else
			ok "survive-kpmu ($(sed 's/^kpmu: //' "$TMP/kpmu") in ${1}s)"
		fi ;;
	77) skip survive-kpmu "$(cat "$TMP/kpmu")" ;;
	*) fail survive-kpmu "$(head -n 2 "$TMP/kpmu" | tr '\n' ' ')" ;;
	esac
}

if ! has_kprobes; then
	skip survive-probes "no kprobe events on this kernel (the recipes and a tracepoint run)"
	run kstack-tracepoint '^@e\[' 'tracepoint:sched:sched_process_exec { @e[kstack(4)] = count(); }'
elif [ -z "${FTR_SURVIVE_FULL:-}" ]; then
	# make check: a set-up costs seconds in an emulated guest, so the
	# patterns share two runs.
	run mutexlat '^@lat\[' "$MUTEXLAT" mutex_lock
	run patterns '^@s\[' "$RETLOCK
$RETMEM
$KSTACKALL
$SLEEPERS"
	for m in l m n e x c; do
		grep -Eq "^@$m(\[|:)" "$TMP/o.patterns" ||
			fail survive-patterns-$m "no @$m in the output: its probe never fired"
	done
else
	run mutexlat '^@lat\[' "$MUTEXLAT" mutex_lock
	run retlock '^@l\[' "$RETLOCK"
	run retmem '^@m\[' "$RETMEM"
	run kstackall '^@x\[' "$KSTACKALL"
	i=0
	while [ $i -lt "$ROUNDS" ]; do
		i=$((i + 1))
		run sleepers-$i '^@s\[' "$SLEEPERS"
	done
	run many '^@\[' 'kprobe:vfs_* { @[func] = count(); }'
	toggle_storm $((SECS * 3))
	kpmu_storm $((SECS * 3))
fi

# Every recipe at once (soak only: sixteen set-ups at once take minutes in
# an emulated guest, and t-recipes runs each recipe in every row of make
# check, under the matrix's console watch): they all set up and tear down
# together.
# A recipe this kernel cannot run refuses at once (exit 1, naming what it
# lacks: t-recipes checks which); here only a crash, a hang or a signal
# counts, and what the kernel says.
recipes=$("$FTR" run --list 2> /dev/null | awk '{ print $1 }')
if [ -z "${FTR_SURVIVE_FULL:-}" ] && has_kprobes; then
	:	# (without kprobes, as on the host, they are what there is to run)
elif [ -z "$recipes" ]; then
	fail survive-recipes "ftr run --list names no recipe"
else
	bad='' n=0 pids=''
	for r in $recipes; do
		"$FTR" run "$r" -d "${SECS}s" > "$TMP/r.$r" 2>&1 &
		pids="$pids $!:$r" n=$((n + 1))
		if [ $((n % 8)) = 0 ]; then
			for p in $pids; do wait "${p%%:*}"; rc=$?; [ $rc -le 1 ] || bad="$bad ${p#*:}($rc)"; done
			pids=
		fi
	done
	for p in $pids; do wait "${p%%:*}"; rc=$?; [ $rc -le 1 ] || bad="$bad ${p#*:}($rc)"; done
	if [ -n "$bad" ]; then fail survive-recipes "ended by a signal or an error:$bad"
	else ok "survive-recipes ($n recipes)"; fi
fi
# ftrace's own tracers on hot functions, under the workload: two function
# tracer runs at once (each its own instance and ftrace_ops on the same
# functions), then function_graph.  Records are lost at these rates (the
# counts are short, which is said); only the exit, the table and the
# kernel's silence count here.
if has_tracer function; then
	t0=$(date +%s)
	"$FTR" funccount 'mutex_*' '_raw_spin_lock*' 'kmem_cache_*' 'kfree' -d "${SECS}s" \
		> "$TMP/o.fc1" 2> "$TMP/e.fc1" &
	f1=$!
	"$FTR" functrace 'mutex_lock' '_raw_spin_lock' -d "${SECS}s" > /dev/null 2> "$TMP/e.fc2"
	rc2=$?
	wait $f1
	rc1=$?
	echo "# survive-ftrace: $(($(date +%s) - t0))s for ${SECS}s of tracing"
	[ $rc1 = 0 ] && [ $rc2 = 0 ] && grep -q '^FUNC  *COUNT$' "$TMP/o.fc1" && ok survive-ftrace ||
		fail survive-ftrace "rc=$rc1/$rc2 $(head -n 2 "$TMP/e.fc1" "$TMP/e.fc2" | tr '\n' ' ')"
else
	skip survive-ftrace "no usable function tracer on this kernel"
fi
# function_graph in ftr's instance (6.11+), or before that the top level's
# (--global-tracer, taken when idle and put back): the call tree, then the
# latency idiom's kprobe and kretprobe clauses on it.
GT=
has_tracer function_graph || GT=--global-tracer
if has_tracer function_graph || { has_tracer function &&
	grep -qw function_graph "$T/available_tracers" 2>/dev/null; }; then
	"$FTR" graph $GT 'mutex_*' 'kfree' '_raw_spin_lock' -d "${SECS}s" > /dev/null 2> "$TMP/e.fg"
	rc=$?
	[ $rc = 0 ] && ok survive-fgraph || fail survive-fgraph "rc=$rc $(head -n 2 "$TMP/e.fg")"
	"$FTR" --where ftrace $GT -d "${SECS}s" -e 'kprobe:mutex_lock, kprobe:kfree { @s[tid] = nsecs; }
		kretprobe:mutex_lock, kretprobe:kfree /@s[tid]/ {
		@[probe] = hist(nsecs - @s[tid]); delete(@s[tid]); }' > /dev/null 2> "$TMP/e.fgl"
	rc=$?
	[ $rc = 0 ] && ok survive-fgraph-lang || fail survive-fgraph-lang "rc=$rc $(head -n 2 "$TMP/e.fgl")"
else
	skip survive-fgraph "no function_graph on this kernel"
fi
stop_churn

same_as_before survive-tracefs-clean "$TMP/before"
dmesg 2>/dev/null | tail -n +$((kmsg0 + 1)) | grep -E 'BUG:|Oops|WARNING:|[Pp]anic[^=]' \
	> "$TMP/kmsg"
if [ -s "$TMP/kmsg" ]; then
	fail survive-kernel-quiet "the kernel complained: $(head -n 1 "$TMP/kmsg")"
else
	ok survive-kernel-quiet
fi
