# The differential fuzzer (issue #13): programs generated from the language's
# grammar (tests/helpers/ftrfuzz.c) run over one deterministic workload on
# every plan this kernel offers — the default plan (hist triggers, perf
# counters), --where kernel where the kernel takes every map — and each must
# print exactly what the user path, the reference, prints: as SQL engines are
# tested against a reference engine.
#
#   FTR_FUZZ_SEED  the generator's seed (default 13: the same programs on
#                  every kernel, so that a failure names a program to rerun)
#   FTR_FUZZ_N     how many programs (default 24: make check stays short);
#                  the long mode is a large N, and seeds varied by hand
#
# A failure prints the seed, the program's index and text, and the first
# differing lines; `ftrfuzz gen SEED N | sed -n Kp` gives it back.
. "$LIVE_DIR/lib.sh"
require_tracing fuzz
if ! command -v ftrfuzz > /dev/null 2>&1; then
	skip fuzz "the ftrfuzz helper is not on PATH (make helpers)"
	exit 0
fi
for e in syscalls/sys_enter_write syscalls/sys_exit_write syscalls/sys_enter_openat \
		syscalls/sys_exit_openat syscalls/sys_enter_read syscalls/sys_exit_read syscalls/sys_enter_close \
		syscalls/sys_enter_sched_yield sched/sched_process_fork; do
	if [ ! -d "$T/events/$e" ]; then
		skip fuzz "no $e tracepoint on this kernel"
		exit 0
	fi
done
snapshot > "$TMP/before"
seed=${FTR_FUZZ_SEED:-13}
n=${FTR_FUZZ_N:-24}
ftrfuzz gen "$seed" "$n" > "$TMP/progs"

i=0 runs=0 kruns=0 bad=0 refused=0
while IFS= read -r prog; do
	i=$((i + 1))
	if ! "$FTR" --where user -e "$prog" -- ftrfuzz work > "$TMP/u" 2> "$TMP/ue"; then
		fail "fuzz-$seed-$i" "the user path failed: $(head -2 "$TMP/ue" | tr '\n' ' ') program: $prog"
		bad=$((bad + 1))
		continue
	fi
	# --where kernel first: where it takes the program, the default plan is
	# the same plan (one planner), and is not run again.
	kdone=0
	for w in kernel auto; do
		[ $w = auto ] && [ $kdone = 1 ] && continue
		if ! "$FTR" --where $w -e "$prog" -- ftrfuzz work > "$TMP/k" 2> "$TMP/ke"; then
			# --where kernel refuses a program with a map the kernel
			# cannot hold: that is a plan not offered, not an error.
			if [ $w = kernel ] && grep -q 'cannot be aggregated in the kernel' "$TMP/ke"; then
				refused=$((refused + 1))
				continue
			fi
			fail "fuzz-$seed-$i" "--where $w failed: $(head -2 "$TMP/ke" | tr '\n' ' ') program: $prog"
			bad=$((bad + 1))
			continue
		fi
		runs=$((runs + 1))
		[ $w = kernel ] && kruns=$((kruns + 1)) && kdone=1
		# Compared exactly: the maps print in one order on every plan
		# (agg.c sorts by value, then by key), so nothing is normalised.
		if ! cmp -s "$TMP/u" "$TMP/k"; then
			fail "fuzz-$seed-$i" "--where $w differs from --where user: $(diff "$TMP/u" "$TMP/k" | grep '^[-+<>][^-+]' | head -4 | tr '\n' ' ') program: $prog"
			bad=$((bad + 1))
		fi
	done
done < "$TMP/progs"
echo "# fuzz: seed $seed, $i programs, $runs plan runs compared ($kruns --where kernel, $refused refused by it), $bad disagreements"
[ $bad -eq 0 ] && ok "fuzz (seed $seed: $i programs, $runs plan runs equal to the user path, $kruns of them --where kernel)"
same_as_before fuzz-leaves-tracefs-clean "$TMP/before"
exit $FAILED
