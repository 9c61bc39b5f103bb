#!/bin/sh
# survive.sh — the kernel-survival test at length (issue #27), for `make soak`:
# tests/live/t-survive.sh in each matrix row with FTR_SURVIVE_SECS seconds
# per run (default 60: issue #27's mutex-latency program runs a minute under
# exec churn) and FTR_SURVIVE_ROUNDS set-up/tear-down rounds of its sleeper
# pattern (default 20), then bpftrace's 38 tools (tests/bt-tools) in the 6.1
# and 6.12 rows.  Every guest's console and kernel log is watched (run.sh's
# matrix-kernel): a BUG, Oops, WARNING or panic fails the row.
#
# Usage: tests/matrix/survive.sh [ROWS]   (default 5.10,6.1,6.12,arm64-6.1)
#
# Takes the guest lock itself; needs make static helpers-static (and
# ARCH=arm64 for the arm64 row), as make check-matrix.  In `make check`,
# t-survive runs in every row at 1 s per run (about 30 s a row).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
ROWS=${1:-5.10,6.1,6.12,arm64-6.1}
SECS=${FTR_SURVIVE_SECS:-60}
ROUNDS=${FTR_SURVIVE_ROUNDS:-20}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ftr-survive.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# A live directory with only t-survive, its defaults raised (the guest's
# /init passes no environment to the tests).
mkdir -p "$WORK/live"
cp "$REPO/tests/live/run.sh" "$REPO/tests/live/lib.sh" "$WORK/live/"
{
	echo "FTR_SURVIVE_SECS=\${FTR_SURVIVE_SECS:-$SECS} FTR_SURVIVE_ROUNDS=\${FTR_SURVIVE_ROUNDS:-$ROUNDS}"
	echo "FTR_SURVIVE_FULL=1; export FTR_SURVIVE_SECS FTR_SURVIVE_ROUNDS FTR_SURVIVE_FULL"
	cat "$REPO/tests/live/t-survive.sh"
} > "$WORK/live/t-survive.sh"

rc=0
# A minute per run, about ten runs and the recipes: give each guest time.
flock /run/ftr-qemu.lock env FTR_LIVE_DIR="$WORK/live" \
	"$REPO/tests/matrix/run.sh" --rows "$ROWS" -j 1 --timeout $((SECS * 20 + 300)) || rc=1
# The bt-tools harness boots its own guests (and takes the lock itself); its
# thresholds are those of the rows it knows (6.1, 6.12).
bt_rows=$(echo "$ROWS" | tr , '\n' | grep -xE '6\.1|6\.12' | paste -sd, -) || true
if [ -n "$bt_rows" ]; then
	"$REPO/tests/bt-tools/run.sh" --rows "$bt_rows" --secs 2 || rc=1
fi
exit $rc
