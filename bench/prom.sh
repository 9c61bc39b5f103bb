#!/bin/bash
# Benchmark for --serve (issue #17): the count-by-comm workload (N write(2)
# calls counted by comm in user space) with ftr serving /metrics, without
# a scraper and with Debian's Prometheus scraping it every second; ftr
# without --serve and the untraced workload for reference.  Medians of
# RUNS runs: the workload's slowdown and ftr's CPU per event (the HTTP
# thread included: ftr's whole rusage minus the workload's).
#
#   bench/prom.sh [N] [RUNS]          (defaults 5000000, 5; root)
set -u
N=${1:-5000000}
RUNS=${2:-5}
top=$(cd "$(dirname "$0")/.." && pwd)
FTR=${FTR:-$top/build/ftr}
BIN=$top/build/tests-bin
W="$BIN/writer $N 1"
PROG='tracepoint:syscalls:sys_enter_write /comm == "writer"/ { @[comm] = count(); }'
export WRITER_TIME=1
work=$(mktemp -d)
PROMPID=
trap '[ -n "$PROMPID" ] && kill $PROMPID; wait; rm -rf "$work"' EXIT

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.6f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
elapsed() { sed -n 's/^writer: elapsed=\([0-9.]*\).*/\1/p' "$1"; }
# the workload's own CPU (user + sys): what tracing adds to each write(2),
# less disturbed than its wall time by other loads of a shared machine
wcpu() { sed -n 's/^writer: .*user=\([0-9.]*\) sys=\([0-9.]*\).*/\1 \2/p' "$1" | awk '{ print $1 + $2 }'; }
tracer_cpu() {
	awk '/^writer:/ { for (i = 2; i <= NF; i++) { split($i, kv, "="); w[kv[1]] = kv[2] } }
	     /^rusage:/ { for (i = 2; i <= NF; i++) { split($i, kv, "="); r[kv[1]] = kv[2] } }
	     END { printf "%.6f\n", (r["user"] + r["sys"]) - (w["user"] + w["sys"]) }' "$1"
}
PORT=$((40000 + $$ % 20000))
PPORT=$((PORT + 1))

# run NAME [ARGS...]: one traced run
run() {
	local name=$1
	shift
	"$BIN/rusage" "$FTR" -e "$PROG" "$@" -- $W > "$work/o" 2> "$work/e"
	elapsed "$work/e" >> "$work/$name.t"
	wcpu "$work/e" >> "$work/$name.w"
	tracer_cpu "$work/e" >> "$work/$name.cpu"
	sed -n 's/^@\[writer\]: //p' "$work/o" >> "$work/$name.n"
}

cat > "$work/p.yml" <<EOC
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: ftr
    static_configs:
      - targets: ['127.0.0.1:$PORT']
EOC
for r in $(seq "$RUNS"); do
	$W 2> "$work/e"; elapsed "$work/e" >> "$work/untraced"; wcpu "$work/e" >> "$work/untraced.w"
	run plain
	run serve --serve 127.0.0.1:$PORT
	if [ -z "$PROMPID" ]; then
		prometheus --config.file="$work/p.yml" --storage.tsdb.path="$work/data" \
			--web.listen-address=127.0.0.1:$PPORT --log.level=error > "$work/prom.log" 2>&1 &
		PROMPID=$!
		sleep 2
	fi
	run scraped --serve 127.0.0.1:$PORT
	# scrapes that reached ftr (its last run)
	curl -s "http://127.0.0.1:$PPORT/api/v1/query" \
		--data-urlencode 'query=count_over_time(up{job="ftr"}[20s])' > "$work/q" 2>/dev/null
done
un=$(median < "$work/untraced")
uw=$(median < "$work/untraced.w")
printf 'count sys_enter_write by comm, N = %d writes, %d runs, medians (untraced %.3fs wall, %.3fs CPU)\n\n' \
	"$N" "$RUNS" "$un" "$uw"
printf '%-42s %9s %9s %10s %12s\n' "ftr -e '@[comm] = count()'" "wall" "work CPU" count "ftr CPU/evt"
row() {
	awk -v name="$2" -v t="$(median < "$work/$1.t")" -v u="$un" -v n="$(median < "$work/$1.n")" \
	    -v c="$(median < "$work/$1.cpu")" -v N="$N" -v w="$(median < "$work/$1.w")" -v uw="$uw" \
	    'BEGIN { printf "%-42s %8.3fx %8.3fx %10d %9.1f ns\n", name, t / u, w / uw, n, c * 1e9 / N }'
}
row plain "without --serve"
row serve "--serve, nobody scraping"
row scraped "--serve, Prometheus scraping every 1 s"
echo
printf 'per-run seconds (serve / scraped): %s / %s\n' "$(tr '\n' ' ' < "$work/serve.t")" \
	"$(tr '\n' ' ' < "$work/scraped.t")"
printf 'ftr CPU seconds (serve / scraped): %s / %s\n' "$(tr '\n' ' ' < "$work/serve.cpu")" \
	"$(tr '\n' ' ' < "$work/scraped.cpu")"
echo "prometheus scrapes seen in the last 20 s: $(sed -n 's/.*"value":\[[^,]*,"\([^"]*\)"\].*/\1/p' "$work/q")"
