#!/bin/bash
# Benchmark for issue 26: how long a recipe takes to start and to stop on
# each plan, inside the qemu guests (where the kernel has hist triggers).
# For each recipe and plan (--where kernel, --where user), RUNS times:
#   run   `ftr run RECIPE --where W -d 1`, start to exit (the acceptance figure)
#   ready start to the run's lock file saying "running" (/run/ftr: every
#         event, trigger and counter in place)
#   stop  SIGINT to exit (the maps read, printed, and the kernel undone)
# Times from /proc/uptime (10 ms).  Medians.  Several binaries side by side
# in one boot: FTR_BENCH_BINS="old=/path/ftr-static:1 new=build/ftr-static"
# (":N": that binary runs N times only, for a slow one).
#
#   bench/recipes.sh [RUNS] [ROWS] [RECIPES]   (defaults 3, "6.1", "syscount errors")
set -u
RUNS=${1:-3}
ROWS=${2:-6.1}
RECIPES=${3:-syscount errors}
top=$(cd "$(dirname "$0")/.." && pwd)
BINS=${FTR_BENCH_BINS:-ftr=$top/build/ftr-static}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

gdir=$work/guest
mkdir -p "$gdir/bins"
names=""
for b in $BINS; do
	path=${b#*=}
	runs=$RUNS
	case $path in *:*) runs=${path##*:} path=${path%:*} ;; esac
	cp "$path" "$gdir/bins/${b%%=*}"
	names="$names ${b%%=*}"
	echo "${b%%=*} $runs" >> "$gdir/bins/runs"
done
cat > "$gdir/run.sh" <<GEOF
#!/bin/sh
RUNS=$RUNS
NAMES="$names"
RECIPES="$RECIPES"
GEOF
cat >> "$gdir/run.sh" <<'GEOF'
D=$(dirname "$0")/bins
now() { cut -d' ' -f1 /proc/uptime; }
med() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# Each run's answer is kept: one line per map entry count, to compare plans.
for r in $(seq $RUNS); do
	for rc in $RECIPES; do
		for n in $NAMES; do
			[ "$r" -le "$(awk -v n=$n '$1 == n { print $2 }' $D/runs)" ] || continue
			for w in kernel user; do
				t0=$(now)
				$D/$n run $rc --where $w -d 1 > /tmp/o.$n.$w 2> /tmp/e.$n.$w
				t1=$(now)
				echo "$t1 - $t0" | awk '{ print $1 - $3 }' >> /tmp/run.$rc.$n.$w
				$D/$n run $rc --where $w > /dev/null 2>&1 &
				p=$!
				t0=$(now)
				i=0
				while ! grep -qs running /run/ftr/ftr_$p.lock && [ $i -lt 1200 ]; do
					i=$((i + 1))
					sleep 0.05
					kill -0 $p 2> /dev/null || break
				done
				t1=$(now)
				kill -INT $p
				wait $p
				t2=$(now)
				awk -v a=$t0 -v b=$t1 'BEGIN { print b - a }' >> /tmp/ready.$rc.$n.$w
				awk -v a=$t1 -v b=$t2 'BEGIN { print b - a }' >> /tmp/stop.$rc.$n.$w
			done
		done
	done
done
for rc in $RECIPES; do
	for n in $NAMES; do
		for w in kernel user; do
			printf 'guest: %-9s %-8s --where %-6s run -d 1 %6.2fs  ready %6.2fs  Ctrl-C to exit %6.2fs  (%s lines)\n' \
				$rc $n $w $(med < /tmp/run.$rc.$n.$w) $(med < /tmp/ready.$rc.$n.$w) \
				$(med < /tmp/stop.$rc.$n.$w) $(wc -l < /tmp/o.$n.$w)
		done
		grep -h 'error\|warn' /tmp/e.$n.* | head -3 | sed 's/^/guest: stderr: /'
		$D/$n run $rc -E 2>&1 | grep 'setup+teardown' | sed "s/^/guest: $n plan: /"
	done
done
echo "ok bench"
echo "live: 1 passed, 0 failed, 0 skipped"
GEOF
chmod +x "$gdir/run.sh"
for row in ${ROWS//,/ }; do
	FTR_LIVE_DIR=$gdir flock /run/ftr-qemu.lock "$top/tests/matrix/run.sh" --rows "$row" \
		--timeout 1800 2>&1 | grep 'guest:' | sed "s/^\[$row\] guest:/$row:/"
done
