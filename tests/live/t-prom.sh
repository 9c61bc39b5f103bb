#!/bin/sh
# The maps as Prometheus metrics.  --prom-file (every build, the guests'
# static binary too): a writer of known size gives exact counters and
# histogram buckets, on the kernel's path (hist triggers) and the user
# path, and across an interval's clear().  --serve (the dynamic build): a
# real Prometheus server (Debian's) scrapes ftr every second and its HTTP
# API gives the same numbers, histogram_quantile() lands in the right
# power-of-two bucket, promtool accepts the exposition, and bad clients
# (a 1 MB request, 1000 idle connections, one that never reads) lose no
# event and stop no scrape.  Only loopback addresses are used.
. "$LIVE_DIR/lib.sh"
require_tracing prom
snapshot > "$TMP/before"
FTRPID= PROMPID= BAD=
finish() {
	[ -n "$BAD" ] && kill $BAD 2>/dev/null
	[ -n "$PROMPID" ] && kill $PROMPID 2>/dev/null
	[ -n "$FTRPID" ] && kill -INT $FTRPID 2>/dev/null
	wait
	same_as_before prom-leaves-tracefs "$TMP/before"
	exit $FAILED
}

N=1000
PROG='tracepoint:syscalls:sys_enter_write /comm == "promwriter"/ { @writes[comm] = count(); @bytes = hist(args.count); }'
# A comm of its own (other runs of writer may exist), and it lingers a
# second after its writes: the user path names a pid's comm from /proc.
cp "$(command -v writer)" "$TMP/promwriter"
pw() { WRITER_LINGER=1 "$TMP/promwriter" "$@"; }

# sample NAME FILE: the value of the sample NAME (with its labels) in FILE
sample() { awk -v n="$1" '$1 == n { v = $2 } END { print v }' "$2"; }

# wait_file FILE NAME VALUE: until FILE has the sample (60 s at most: an
# emulated arm64 guest is slow)
wait_file() {
	i=0
	while [ $i -lt 600 ]; do
		[ -f "$1" ] && [ "$(sample "$2" "$1")" = "$3" ] && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# prom_file NAME WHERE PROGRAM: N writes of 4096 bytes, in two halves (an
# interval may clear between them), seen in the file ftr rewrites.
prom_file() {
	f=$TMP/$1.prom
	"$FTR" -e "$3" -w "$2" --prom-file "$f" --interval 200ms > "$TMP/$1.out" 2> "$TMP/$1.err" &
	pid=$!
	if ! wait_tracing $pid; then
		fail "$1" "ftr did not start: $(head -2 "$TMP/$1.err")"
		kill $pid 2>/dev/null; wait $pid
		return
	fi
	pw $((N / 2)) 4096
	sleep 0.3
	pw $((N / 2)) 4096
	if [ "$4" = bytes ]; then
		wait_file "$f" ftr_bytes_count $N
	else
		wait_file "$f" 'ftr_writes_total{comm="promwriter"}' $N
	fi
	kill -INT $pid; wait $pid
	rc=$?
	check "$1-exit" [ $rc -eq 0 ]
	w=$(sample 'ftr_writes_total{comm="promwriter"}' "$f")
	c=$(sample ftr_bytes_count "$f")
	b=$(sample 'ftr_bytes_bucket{le="8191"}' "$f")
	b0=$(sample 'ftr_bytes_bucket{le="4095"}' "$f")
	s=$(sample ftr_bytes_sum "$f")
	# a program of one of the two maps: the other's samples are absent
	[ "$4" = bytes ] && [ -z "$w" ] && w=$N
	[ "$4" = writes ] && [ -z "$c$b$b0$s" ] && c=$N b=$N b0=0 s=$((N * 4096))
	if [ "$w" = $N ] && [ "$c" = $N ] && [ "$b" = $N ] && [ "$b0" = 0 ] &&
	   [ "$s" = $((N * 4096)) ]; then
		ok "$1"
	else
		fail "$1" "writes $w, count $c, le=8191 $b, le=4095 $b0, sum $s (want $N, $N, $N, 0, $((N * 4096)))"
	fi
	check "$1-no-tmp" [ -z "$(ls "$TMP" | grep "$1.prom.*tmp")" ]
}

prom_file prom-file-user user "$PROG"
# A hist trigger per map: one aggregation per clause (and per event).
if has_hist; then
	prom_file prom-file-kernel-count kernel \
		'tracepoint:syscalls:sys_enter_write /comm == "promwriter"/ { @writes[comm] = count(); }' writes
	prom_file prom-file-kernel-hist kernel \
		'tracepoint:syscalls:sys_enter_write /comm == "promwriter"/ { @bytes = hist(args.count); }' bytes
else
	skip prom-file-kernel "no hist triggers on this kernel"
fi
# clear() every 100 ms: the printed maps restart, the counters carry on.
prom_file prom-file-clear auto "$PROG interval:ms:100 { clear(@writes); clear(@bytes); }"

# ftr count -i prints and clears the table every 100 ms; the file, rewritten
# as often, carries the cleared counts: exactly N, and the sum of -v.
f=$TMP/count.prom
"$FTR" count syscalls:sys_enter_write -k comm -v count -f 'comm == "promwriter"' -i 100ms \
	--prom-file "$f" > "$TMP/count.out" 2> "$TMP/count.err" &
pid=$!
if wait_tracing $pid; then
	pw $((N / 2)) 10
	sleep 0.3
	pw $((N / 2)) 10
	wait_file "$f" 'ftr_map_total{comm="promwriter"}' $N
	kill -INT $pid; wait $pid
	c=$(sample 'ftr_map_total{comm="promwriter"}' "$f")
	s=$(sample 'ftr_sum_count_total{comm="promwriter"}' "$f")
	printed=$(awk '/^@\[promwriter\]: / { n += $2 } END { print n + 0 }' "$TMP/count.out")
	if [ "$c" = $N ] && [ "$s" = $((N * 10)) ] && [ "$printed" = $N ]; then
		ok prom-file-count-interval
	else
		fail prom-file-count-interval "file: count $c, sum $s; printed in all $printed (want $N, $((N * 10)), $N)"
	fi
else
	fail prom-file-count-interval "ftr did not start: $(head -2 "$TMP/count.err")"
	kill $pid 2>/dev/null; wait $pid
fi

# A map keyed by a tuple or a buffer among its keys is no metric: its key is
# a number that only ftr's printer reads back.  Its neighbour, a counter, is.
f=$TMP/keys.prom
"$FTR" --prom-file "$f" -e 'i:ms:50 { @t[(1, 2), 3] = count(); @b[buf("a", 1)] = count();
	@c = count(); if (@c == 3) { exit(); } }' > "$TMP/keys.out" 2> "$TMP/keys.err"
if [ "$(sample ftr_c_total "$f")" = 3 ] && ! grep -q '^ftr_[tb]_' "$f" &&
   grep -q '^@t\[(1, 2), 3\]: 3$' "$TMP/keys.out"; then
	ok prom-file-interned-keys
else
	fail prom-file-interned-keys "$(cat "$f" "$TMP/keys.err" | head -6 | tr "\n" " ")"
fi

# Usage: --interval alone, a bad address.
"$FTR" -e 'BEGIN { exit(); }' --interval 1s > /dev/null 2>&1
check prom-interval-alone [ $? -eq 2 ]
# --serve: the static binary says it has none; the dynamic one serves.
"$FTR" -e 'BEGIN { exit(); }' --serve 127.0.0.1:0 > "$TMP/s.out" 2> "$TMP/s.err"
rc=$?
if grep -q 'not in this build' "$TMP/s.err"; then
	check serve-static-refuses [ $rc -eq 1 ]
	grep -q -- '--prom-file' "$TMP/s.err" || fail serve-static-refuses "no hint of --prom-file"
	finish
fi
check serve-starts [ $rc -eq 0 ]
"$FTR" -e 'BEGIN { exit(); }' --serve 127.0.0.1 > /dev/null 2>&1
check serve-bad-address [ $? -eq 2 ]

if command -v curl > /dev/null 2>&1; then
	get() { curl -s -m 10 "$@"; }
else
	skip serve "no curl here"
	finish
fi

"$FTR" -e "$PROG" --serve 127.0.0.1:0 > "$TMP/serve.out" 2> "$TMP/serve.err" &
FTRPID=$!
if ! wait_tracing $FTRPID; then
	fail serve "ftr did not start: $(head -2 "$TMP/serve.err")"
	finish
fi
PORT=$(sed -n 's|^ftr: metrics at http://127.0.0.1:\([0-9]*\)/metrics$|\1|p' "$TMP/serve.err")
URL=http://127.0.0.1:$PORT/metrics
get -o "$TMP/m0" -w '%{http_code} %{content_type}\n' "$URL" > "$TMP/h0"
check serve-200-text grep -q '^200 text/plain; version=0.0.4' "$TMP/h0"
check serve-404 [ "$(get -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/")" = 404 ]
check serve-405 [ "$(get -o /dev/null -w '%{http_code}' -X POST -d x "$URL")" = 405 ]
get -o "$TMP/om" -w '%{content_type}\n' -H 'Accept: application/openmetrics-text; version=1.0.0' \
	"$URL" > "$TMP/hom"
check serve-openmetrics grep -q '^application/openmetrics-text' "$TMP/hom"
check serve-openmetrics-eof [ "$(tail -1 "$TMP/om")" = "# EOF" ]
check serve-openmetrics-family grep -q '^# TYPE ftr_writes counter$' "$TMP/om"

if ! command -v prometheus > /dev/null 2>&1; then
	skip serve-prometheus "no prometheus here (Debian's prometheus package)"
	finish
fi

# A Prometheus server on a free port, scraping ftr every second.
cat > "$TMP/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: ftr
    static_configs:
      - targets: ['127.0.0.1:$PORT']
EOF
PROMPID=
for try in 1 2 3 4 5; do
	PPORT=$((20000 + ($$ * 7 + try * 1009) % 30000))
	prometheus --config.file="$TMP/prometheus.yml" --storage.tsdb.path="$TMP/pdata" \
		--web.listen-address=127.0.0.1:$PPORT --log.level=error > "$TMP/prom.log" 2>&1 &
	PROMPID=$!
	i=0
	while [ $i -lt 200 ] && kill -0 $PROMPID 2>/dev/null; do
		[ "$(get -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PPORT/-/ready")" = 200 ] && break
		sleep 0.1
		i=$((i + 1))
	done
	kill -0 $PROMPID 2>/dev/null && break
	wait $PROMPID
	PROMPID=
done
if [ -z "$PROMPID" ]; then
	fail serve-prometheus "prometheus did not start: $(tail -2 "$TMP/prom.log")"
	finish
fi

# query PROMQL: the value of its first result
query() {
	get "http://127.0.0.1:$PPORT/api/v1/query" --data-urlencode "query=$1" |
		sed -n 's/.*"value":\[[^,]*,"\([^"]*\)"\].*/\1/p'
}
# wait_query PROMQL VALUE: until Prometheus has it (30 s at most)
wait_query() {
	i=0
	while [ $i -lt 300 ]; do
		[ "$(query "$1")" = "$2" ] && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

pw $N 4096
wait_query 'ftr_writes_total{comm="promwriter"}' $N
check prometheus-writes [ "$(query 'ftr_writes_total{comm="promwriter"}')" = $N ]
check prometheus-count [ "$(query 'ftr_bytes_count')" = $N ]
q50=$(query 'histogram_quantile(0.5, ftr_bytes_bucket)')
q99=$(query 'histogram_quantile(0.99, ftr_bytes_bucket)')
if awk -v a="$q50" -v b="$q99" 'BEGIN { exit !(a >= 4096 && a < 8192 && b >= 4096 && b < 8192) }'; then
	ok prometheus-quantile
else
	fail prometheus-quantile "p50 $q50, p99 $q99: not in [4096, 8192)"
fi
check prometheus-up [ "$(query 'up{job="ftr"}')" = 1 ]

if command -v promtool > /dev/null 2>&1; then
	get -o "$TMP/m1" "$URL"
	check promtool-serve promtool check metrics < "$TMP/m1"
fi

# Bad clients, each from its own loopback address, while Prometheus
# scrapes from 127.0.0.1 and a second writer runs.
BAD=
badclient idle $PORT 1000 127.0.0.2 > "$TMP/idle" &
BAD="$BAD $!"
badclient noread $PORT 200 127.0.0.3 > "$TMP/noread" &
BAD="$BAD $!"
badclient big $PORT 1 127.0.0.4 > "$TMP/big"
i=0
while [ $i -lt 100 ] && ! grep -q idle "$TMP/idle"; do sleep 0.1; i=$((i + 1)); done
pw $N 4096
if wait_query 'ftr_writes_total{comm="promwriter"}' $((N * 2)) && kill -0 $BAD 2>/dev/null; then
	ok bad-clients-scraped
else
	fail bad-clients-scraped "prometheus has $(query 'ftr_writes_total{comm="promwriter"}'), want $((N * 2)) while the bad clients hold on ($(cat "$TMP/idle"))"
fi
check bad-clients-big-refused grep -q -e '^HTTP/1.1 4' -e '^closed' "$TMP/big"
# Slow clients (issue 38): 8 connections from one address (its limit)
# trickling a header byte every 2 s are dropped at the 10 s deadline of
# their request, however they trickle, and a whole request from that
# address is answered after.
badclient trickle $PORT 8 127.0.0.5 > "$TMP/trickle"
grep -qx "dropped 8" "$TMP/trickle" && grep -q "^HTTP/1.1 200" "$TMP/trickle" &&
	ok bad-clients-trickle-dropped ||
	fail bad-clients-trickle-dropped "$(tr '\n' ' ' < "$TMP/trickle")"
check bad-clients-up [ "$(query 'up{job="ftr"}')" = 1 ]
kill $BAD 2>/dev/null
wait $BAD 2>/dev/null
BAD=
kill -INT $FTRPID
wait $FTRPID
check serve-exit [ $? -eq 0 ]
FTRPID=
check bad-clients-no-loss grep -qx "@writes\[promwriter\]: $((N * 2))" "$TMP/serve.out"
check serve-no-lost [ -z "$(grep -i lost "$TMP/serve.err")" ]

# The example scrape configuration is one Prometheus takes.
if command -v promtool > /dev/null 2>&1 && [ -f "$LIVE_DIR/../../contrib/prometheus.yml" ]; then
	check promtool-contrib-config promtool check config "$LIVE_DIR/../../contrib/prometheus.yml"
fi

# promtool accepts the exposition of every recipe that runs here.
EV=$LIVE_DIR/../../events
if command -v promtool > /dev/null 2>&1 && [ -d "$EV" ]; then
	for r in "$EV"/*.ftr; do
		name=$(basename "$r" .ftr)
		rm -f "$TMP/r.prom"
		"$FTR" run "$r" --prom-file "$TMP/r.prom" -d 1 > /dev/null 2> "$TMP/r.err" &
		rp=$!
		writer 100 100
		opener 10 > /dev/null 2>&1
		wait $rp
		if [ ! -s "$TMP/r.prom" ]; then
			skip "promtool-$name" "the recipe does not run here: $(head -1 "$TMP/r.err")"
			continue
		fi
		if promtool check metrics < "$TMP/r.prom" > "$TMP/r.lint" 2>&1; then
			ok "promtool-$name"
		else
			fail "promtool-$name" "$(head -3 "$TMP/r.lint" | tr '\n' ' ')"
		fi
	done
fi
finish
