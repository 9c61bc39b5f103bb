#!/bin/sh
# Live tests on the running kernel.  POSIX sh: the same scripts run on the
# host and inside the qemu guests under busybox.
#
#   FTR=/path/to/ftr tests/live/run.sh [t-name ...]
#
# Each t-*.sh prints `ok NAME`, `not ok NAME: why` or `skip NAME: why`; this
# runner sums them up into `live: N passed, N failed, N skipped`.
dir=$(cd "$(dirname "$0")" && pwd)
: "${FTR:?set FTR to the ftr binary}"
export FTR LIVE_DIR="$dir"

# Tests compare tracefs before and after (instances, probes, the current
# tracer): a second suite on the same kernel, or a developer's ftr wrapped in
# the same lock, would show up as this one's leftovers.  One suite per kernel
# at a time; busybox guests without flock run alone anyway.
if [ -z "$FTR_LIVE_LOCKED" ] && command -v flock >/dev/null 2>&1 && [ -d /run ]; then
	if ! flock -n /run/ftr-live.lock true 2>/dev/null; then
		echo "# waiting for another live suite on this kernel (/run/ftr-live.lock)"
	fi
	FTR_LIVE_LOCKED=1 exec flock /run/ftr-live.lock sh "$0" "$@"
fi

pass=0 fail=0 skipped=0 failed_list=
if [ $# -gt 0 ]; then
	tests=""
	for n in "$@"; do
		# A subset directory (FTR_LIVE_DIR in the matrix) may lack some.
		if [ -f "$dir/t-$n.sh" ]; then
			tests="$tests $dir/t-$n.sh"
		else
			echo "# no t-$n.sh in $dir"
		fi
	done
else
	tests=$(ls "$dir"/t-*.sh | sort)
fi
for t in $tests; do
	name=$(basename "$t" .sh)
	t0=$(date +%s)
	# Descriptors the caller left open (an editor's, a CI agent's) would
	# shift the numbers the workloads' files get: tests filter on fd == 3.
	out=$(sh "$t" 2>&1 3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&-)
	rc=$?
	# Where the time goes (the matrix budget), and the machine's uptime and
	# available memory after it (a kernel message on the console names an
	# uptime; a 512 MB guest that runs short says it here): not verdicts.
	echo "# time $name $(($(date +%s) - t0))s, up $(cut -d' ' -f1 /proc/uptime)s," \
		"$(awk '$1 == "MemAvailable:" { print $2 }' /proc/meminfo) kB available"
	lines=0
	while IFS= read -r line; do
		case "$line" in
		"ok "*) pass=$((pass + 1)); lines=$((lines + 1)); echo "$line" ;;
		"not ok "*) fail=$((fail + 1)); lines=$((lines + 1)); echo "$line"
			failed_list="$failed_list
# $name: $line" ;;
		"skip "*) skipped=$((skipped + 1)); lines=$((lines + 1)); echo "$line" ;;
		# A file for the host to check (t-record.sh in the qemu matrix).
		"file "*) echo "$line" ;;
		*) [ -n "$LIVE_VERBOSE" ] && echo "  | $line" ;;
		esac
	done <<EOT
$out
EOT
	if [ $lines -eq 0 ] || { [ $rc -ne 0 ] && ! printf '%s\n' "$out" | grep -q '^not ok '; }; then
		echo "not ok $name: the script exited $rc without a verdict"
		printf '%s\n' "$out" | tail -5 | sed 's/^/  | /'
		fail=$((fail + 1))
		failed_list="$failed_list
# $name: exited $rc without a verdict"
	fi
done
# The failures again, last: a CI log may keep only its tail (as comments,
# which the matrix does not count again).
if [ -n "$failed_list" ]; then
	echo "# failed:"
	printf '%s\n' "$failed_list" | sed '1d' | head -n 30
fi
echo "live: $pass passed, $fail failed, $skipped skipped"
[ $fail -eq 0 ]
