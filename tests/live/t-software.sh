# software:EVENT:PERIOD and hardware:EVENT:PERIOD probes (perf_event_open
# sampling): page faults of a workload of known size, counted exactly;
# hardware counters where the machine has them, a clear refusal where not.
. "$LIVE_DIR/lib.sh"

if ! command -v faulter > /dev/null; then
	skip software "no faulter helper"
	exit 0
fi
# faulter re-executes itself without ASLR as "exe" (see faulter.c): its
# count is then the same on every run, and N pages are N faults more.
count_faults() {
	"$FTR" -e 'software:page-faults:1 /comm == "exe"/ { @ = count(); @p[probe] = count(); }' \
		-- faulter "$1" > "$TMP/o$1" 2> "$TMP/e$1"
	sed -n 's/^@: //p' "$TMP/o$1"
}
a=$(count_faults 0)
b=$(count_faults 700)
if [ -z "$a" ] && grep -q 'perf_event_paranoid\|cannot sample' "$TMP/e0"; then
	skip software-page-faults "perf_event_open refused here: $(head -1 "$TMP/e0")"
elif [ -n "$a" ] && [ -n "$b" ] && [ $((b - a)) -eq 700 ]; then
	ok "software-page-faults ($a + 700 = $b)"
else
	fail software-page-faults "faulter 0: '$a', faulter 700: '$b' $(head -2 "$TMP/e0" "$TMP/e700")"
fi
grep -q '^@p\[software:page-faults:1\]: ' "$TMP/o700" && ok software-probe-name ||
	fail software-probe-name "$(cat "$TMP/o700" | head -4)"
# The default period (bpftrace's: 100 for page-faults): 700 faults more
# are 7 samples more.
"$FTR" -e 'software:faults /comm == "exe"/ { @ = count(); }' -- faulter 0 > "$TMP/o" 2> "$TMP/e"
a=$(sed -n 's/^@: //p' "$TMP/o")
"$FTR" -e 'software:faults /comm == "exe"/ { @ = count(); }' -- faulter 700 > "$TMP/o" 2> "$TMP/e"
b=$(sed -n 's/^@: //p' "$TMP/o")
[ $(( ${b:-0} - ${a:-0} )) -ge 6 ] && [ $(( ${b:-0} - ${a:-0} )) -le 8 ] && ok software-default-period ||
	fail software-default-period "a=$a b=$b $(head -2 "$TMP/e")"

"$FTR" -e 'software:no-such-event:1 { @ = count(); }' -d 1 > /dev/null 2> "$TMP/e"; rc=$?
[ $rc -ne 0 ] && grep -q "unknown software event 'no-such-event'" "$TMP/e" && ok software-unknown ||
	fail software-unknown "rc=$rc $(cat "$TMP/e")"

# Hardware: runs where the machine has a PMU; else the refusal says so.
"$FTR" -e 'hardware:instructions:100000 /comm == "exe"/ { @ = count(); }' -- faulter 100 > "$TMP/o" 2> "$TMP/e"; rc=$?
if [ $rc -eq 0 ] && grep -q '^@: [1-9]' "$TMP/o"; then
	ok hardware-instructions
elif [ $rc -eq 1 ] && grep -q 'no hardware counter' "$TMP/e"; then
	ok hardware-refused-clearly
	skip hardware-instructions "no hardware counters on this machine: $(head -1 "$TMP/e")"
else
	fail hardware-instructions "rc=$rc $(head -3 "$TMP/o" "$TMP/e")"
fi
exit $FAILED
