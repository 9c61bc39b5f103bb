# ftr latency: the kernel's latency tracers, where the kernel has them (the
# rt-6.1 row: timerlat, osnoise, hwlat; a self-built row: irqsoff).  Each
# tracer skips with the reason where absent.  Known answers, from the run's
# own output rather than wall-clock bounds (TCG's timing is unstable): a
# FIFO:99 hog on CPU 1 is the blocking thread the analysis names, its pid
# the hog's own; a histogram's buckets add up to its count; every global
# knob is as found after each run and after a SIGKILL plus `ftr reset`.
. "$LIVE_DIR/lib.sh"
require_tracing latency

has_tracer() { grep -qw "$1" "$T/available_tracers" 2>/dev/null; }
# The global knobs a run may change (src/kernel/knobs.c), with their values.
knobs() {
	for f in osnoise/cpus osnoise/period_us osnoise/runtime_us osnoise/stop_tracing_us \
		osnoise/stop_tracing_total_us osnoise/timerlat_period_us osnoise/print_stack \
		tracing_thresh hwlat_detector/width hwlat_detector/window; do
		[ -r "$T/$f" ] && echo "$f: $(cat "$T/$f")"
	done
}
same_knobs() {
	knobs > "$TMP/knobs.now"
	if cmp -s "$TMP/knobs0" "$TMP/knobs.now"; then
		ok "$1"
	else
		fail "$1" "$(diff "$TMP/knobs0" "$TMP/knobs.now" | grep '^[<>]' | head -4 | tr '\n' ' ')"
	fi
}
snapshot > "$TMP/before"
knobs > "$TMP/knobs0"
ncpu=$(grep -c '^processor' /proc/cpuinfo)

"$FTR" latency -h > "$TMP/help" 2>&1
grep -q 'load the CPUs they measure' "$TMP/help" && ok latency-help-says-load ||
	fail latency-help-says-load "$(head -3 "$TMP/help")"
"$FTR" latency bogus > /dev/null 2>&1
check latency-unknown-tracer-usage [ $? -eq 2 ]

# doctor lists the tracers the kernel has, in its own order.
"$FTR" doctor > "$TMP/doc" 2>&1
want=
for t in timerlat osnoise hwlat irqsoff preemptoff preemptirqsoff wakeup wakeup_rt wakeup_dl; do
	has_tracer $t && want="$want $t"
done
got=$(sed -n 's/^latency     present: //p' "$TMP/doc")
[ "$got" = "${want# }" ] || { [ -z "$want" ] && [ "$got" = none ]; } && ok latency-doctor-lists ||
	fail latency-doctor-lists "want '$want', doctor says '$got'"

if ! has_tracer timerlat; then
	"$FTR" latency timerlat top -d 1 > "$TMP/o" 2> "$TMP/e"
	rc=$?
	[ $rc -eq 1 ] && grep -q "no 'timerlat' tracer.*CONFIG_TIMERLAT_TRACER" "$TMP/e" &&
		ok latency-timerlat-absent-says-so || fail latency-timerlat-absent-says-so "rc $rc: $(cat "$TMP/e")"
	skip latency-timerlat "no timerlat tracer on this kernel (CONFIG_TIMERLAT_TRACER)"
elif [ "$ncpu" -lt 2 ]; then
	skip latency-timerlat "one CPU: the hog and the tests need CPU 1"
else
	# top: one row per CPU, IRQ and thread columns.
	"$FTR" latency timerlat top -d 2 -q > "$TMP/top" 2> "$TMP/e"
	rc=$?
	[ $rc -eq 0 ] && grep -q '^CPU COUNT' "$TMP/top" && grep -q '^  0 #[1-9]' "$TMP/top" &&
		grep -q '^  1 #[1-9]' "$TMP/top" && ok latency-timerlat-top ||
		fail latency-timerlat-top "rc $rc: $(cat "$TMP/top" "$TMP/e" | head -8 | tr '\n' '|')"
	same_knobs latency-timerlat-top-knobs-restored

	# hist on CPU 1 only: its buckets and over: add up to count:, per column.
	"$FTR" latency timerlat hist -c 1 -d 2 -b 10 -E 50 -q > "$TMP/hist" 2> "$TMP/e"
	rc=$?
	awk '/^Index/ { hdr = $0; next }
	     /^over:/ { o1 = $2; o2 = $3; next }
	     /^count:/ { c1 = $2; c2 = $3; next }
	     /^[0-9]/ { s1 += $2; s2 += $3; n++ }
	     END { exit !(hdr ~ /IRQ-001 +Thr-001$/ && c1 > 0 && s1 + o1 == c1 && s2 + o2 == c2) }' \
		"$TMP/hist" && [ $rc -eq 0 ] && grep -q '^max:' "$TMP/hist" && ok latency-timerlat-hist ||
		fail latency-timerlat-hist "rc $rc: $(cat "$TMP/hist" "$TMP/e" | head -8 | tr '\n' '|')"
	grep -q 'IRQ-000' "$TMP/hist" && fail latency-hist-cpus "CPU 0 measured with -c 1" ||
		ok latency-hist-cpus

	"$FTR" latency timerlat top -c 1 -d 1 -f json > "$TMP/json" 2> "$TMP/e"
	grep -q '^{"tracer": "timerlat top".*"cpus": \[{"cpu": 1, "irq": {"count": [1-9]' "$TMP/json" &&
		ok latency-timerlat-json || fail latency-timerlat-json "$(head -c 300 "$TMP/json")"

	# The hog: 300 ms bursts at FIFO:99 on CPU 1.  --stop-at 100 ms; the
	# analysis must name it, by comm and pid, as the blocking thread, and
	# the thread latency must be at least the threshold and mostly the hog.
	if command -v rthog > /dev/null 2>&1; then
		"$FTR" latency timerlat top -c 1 -a 100000 -d 20 -q > "$TMP/aa" 2> "$TMP/e" &
		fp=$!
		if wait_tracing $fp; then
			rthog 1 300 20 100 > "$TMP/hog" 2>&1 &
			hp=$!
			wait $fp
			rc=$?
			kill $hp 2>/dev/null
			wait $hp 2>/dev/null
			hog=$(head -1 "$TMP/hog")
			blk=$(awk '/^  Blocking thread:/ { getline; print $1; print $2; exit }' "$TMP/aa")
			thr=$(awk '/^  Thread latency:/ { print $3 }' "$TMP/aa")
			bus=$(awk '/^  Blocking thread:/ { print $3 }' "$TMP/aa")
			if [ $rc -eq 0 ] && grep -q 'hit stop tracing' "$TMP/aa" &&
				[ "$(echo "$blk" | head -1)" = "rthog:$hog" ]; then
				ok latency-stop-at-names-hog
			else
				fail latency-stop-at-names-hog "rc $rc hog $hog: $(cat "$TMP/aa" "$TMP/e" | head -30 | tr '\n' '|')"
			fi
			awk -v t="$thr" -v b="$bus" 'BEGIN { exit !(t >= 100000 && b * 2 >= t && b <= t) }' &&
				ok latency-stop-at-figures ||
				fail latency-stop-at-figures "thread $thr us, blocking $bus us"
		else
			kill $fp 2>/dev/null
			fail latency-stop-at-names-hog "ftr never traced: $(cat "$TMP/e")"
		fi
		same_knobs latency-stop-at-knobs-restored
	else
		skip latency-stop-at-names-hog "the rthog helper is not on PATH (make helpers)"
	fi

	# One user at a time: osnoise while our timerlat runs is refused, with
	# the holder named.
	if has_tracer osnoise; then
		"$FTR" latency timerlat top -c 1 -d 30 -q > /dev/null 2>&1 &
		fp=$!
		if wait_tracing $fp; then
			"$FTR" latency osnoise top -c 1 -d 1 -q > "$TMP/o" 2> "$TMP/e"
			rc=$?
			[ $rc -eq 1 ] && grep -q "instance ftr_$fp (timerlat, an ftr run, pid $fp)" "$TMP/e" &&
				ok latency-busy-names-holder || fail latency-busy-names-holder "rc $rc: $(cat "$TMP/e")"
			"$FTR" doctor > "$TMP/doc" 2>&1
			grep -q "busy: timerlat and the tracers it excludes, held by instance ftr_$fp" \
				"$TMP/doc" && ok latency-doctor-busy ||
				fail latency-doctor-busy "$(grep -A3 '^latency' "$TMP/doc" | tr '\n' '|')"
		else
			fail latency-busy-names-holder "ftr never traced"
		fi
		kill -INT $fp 2>/dev/null
		wait $fp
		same_knobs latency-busy-knobs-restored
	fi

	# The language: osnoise's events are tracepoints like any other.
	# While timerlat runs on CPU 1, the hog's blocking shows as
	# osnoise:thread_noise (reported only between the timer IRQ and the
	# timerlat thread, timerlat_thread_exit); the histogram of its
	# durations holds exactly as many as the count.
	if command -v rthog > /dev/null 2>&1; then
		"$FTR" -e 'tracepoint:osnoise:thread_noise /args.comm == "rthog"/ {
				@n[args.comm] = count(); @d = hist(args.duration); }
			tracepoint:sched:sched_process_exit /comm == "rthog"/ { exit(); }' \
			> "$TMP/lang" 2> "$TMP/elang" &
		lp=$!
		"$FTR" latency timerlat top -c 1 -d 60 -q > /dev/null 2>&1 &
		fp=$!
		if wait_tracing $lp && wait_tracing $fp; then
			rthog 1 50 10 50 > /dev/null 2>&1
			wait $lp
			rc=$?
			kill -INT $fp
			wait $fp
			n=$(sed -n 's/^@n\[rthog\]: //p' "$TMP/lang")
			awk -v n="$n" '/^\[/ { s += $3 } END { exit !(n > 0 && s == n) }' "$TMP/lang" &&
				[ $rc -eq 0 ] && ok latency-lang-thread-noise ||
				fail latency-lang-thread-noise "rc $rc n '$n': $(cat "$TMP/lang" "$TMP/elang" | head -12 | tr '\n' '|')"
		else
			kill -INT $lp $fp 2>/dev/null
			wait $lp $fp
			fail latency-lang-thread-noise "ftr never traced: $(cat "$TMP/elang")"
		fi
		same_knobs latency-lang-knobs-restored
	fi

	# SIGKILL: the knobs stay changed until `ftr reset` puts them back.
	"$FTR" latency timerlat top -c 1 -a 54321 -p 2000 -d 60 -q > /dev/null 2>&1 &
	fp=$!
	if wait_tracing $fp; then
		kill -9 $fp
		wait $fp 2>/dev/null
		[ "$(cat "$T/osnoise/stop_tracing_us")" = 54321 ] &&
			[ "$(cat "$T/osnoise/timerlat_period_us")" = 2000 ] && ok latency-kill-leaves-knobs ||
			fail latency-kill-leaves-knobs "$(knobs | tr '\n' ' ')"
		"$FTR" reset > "$TMP/reset" 2>&1
		grep -q "restored $T/osnoise/stop_tracing_us" "$TMP/reset" && ok latency-reset-says ||
			fail latency-reset-says "$(cat "$TMP/reset")"
		same_knobs latency-reset-restores-knobs
	else
		kill -9 $fp 2>/dev/null
		fail latency-kill-leaves-knobs "ftr never traced"
	fi
fi

if ! has_tracer osnoise; then
	skip latency-osnoise "no osnoise tracer on this kernel (CONFIG_OSNOISE_TRACER)"
else
	# 50 ms of each 100 ms of CPU 1: a sample each period.
	"$FTR" latency osnoise top -c 1 -p 100000 -r 50000 -d 2 -q > "$TMP/os" 2> "$TMP/e"
	rc=$?
	[ $rc -eq 0 ] && grep -q '% CPU Aval' "$TMP/os" && grep -q '^  1 #[1-9]' "$TMP/os" &&
		! grep -q '^  0 #' "$TMP/os" && ok latency-osnoise-top ||
		fail latency-osnoise-top "rc $rc: $(cat "$TMP/os" "$TMP/e" | head -6 | tr '\n' '|')"
	# Runtime is the sum of the samples' runtimes: 50000 us each.
	awk '/^  1 #/ { n = substr($2, 2); exit !($3 == n * 50000 || $3 >= (n - 1) * 50000) }' "$TMP/os" &&
		ok latency-osnoise-runtime || fail latency-osnoise-runtime "$(grep '^  1 #' "$TMP/os")"
	# hist: the single noises of 1 us or more (osnoise:sample_threshold),
	# their buckets and over: adding up to count:.
	"$FTR" latency osnoise hist -c 1 -p 100000 -r 50000 -T 1 -b 10 -E 20 -d 2 -q \
		> "$TMP/oh" 2> "$TMP/e"
	rc=$?
	awk '/^Index/ { hdr = $0; next } /^over:/ { o = $2; next } /^count:/ { c = $2; next }
	     /^[0-9]/ { s += $2 }
	     END { exit !(hdr ~ /CPU-001$/ && c > 0 && s + o == c) }' "$TMP/oh" && [ $rc -eq 0 ] &&
		ok latency-osnoise-hist ||
		fail latency-osnoise-hist "rc $rc: $(cat "$TMP/oh" "$TMP/e" | head -8 | tr '\n' '|')"
	same_knobs latency-osnoise-knobs-restored
fi

if ! has_tracer hwlat; then
	skip latency-hwlat "no hwlat tracer on this kernel (CONFIG_HWLAT_TRACER)"
else
	"$FTR" latency hwlat -p 200000 -r 20000 -d 1 -q > "$TMP/hw" 2> "$TMP/e"
	rc=$?
	[ $rc -eq 0 ] && grep -q '^CPU  SAMPLES' "$TMP/hw" && ok latency-hwlat ||
		fail latency-hwlat "rc $rc: $(cat "$TMP/hw" "$TMP/e" | head -5 | tr '\n' '|')"
	same_knobs latency-hwlat-knobs-restored
fi

for tr in irqsoff preemptoff wakeup_rt; do
	if ! has_tracer $tr; then
		skip latency-$tr "no $tr tracer on this kernel"
		continue
	fi
	"$FTR" latency $tr -d 1 > "$TMP/sec" 2> "$TMP/e"
	rc=$?
	[ $rc -eq 0 ] && grep -q "^$tr: max latency [0-9]* us" "$TMP/sec" && ok latency-$tr ||
		fail latency-$tr "rc $rc: $(cat "$TMP/sec" "$TMP/e" | head -5 | tr '\n' '|')"
done

same_as_before latency-leaves-tracefs "$TMP/before"
exit $FAILED
