#!/bin/sh
# Soak: ftr's memory under high-cardinality keys (a new key per event, past
# the map's bound), a flood that loses events, and a deep-stack profile,
# for SOAK_TIME seconds each (default 60); ftr's RSS is sampled every 2 s.
# Bounded means: the last sample is within 25% (and 8 MB) of the sample a
# quarter of the way in.  Not in `make check` (minutes, and timing); run by
# `make soak` as root, under the live-test lock.
#
#   FTR=build/ftr PATH=build/tests-bin:$PATH bench/soak.sh
: "${FTR:?set FTR to the ftr binary}"
: "${SOAK_TIME:=60}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0

rss() { awk '/^VmRSS:/ { print $2 }' /proc/$1/status 2>/dev/null; }

# sample NAME PID: RSS every 2 s while PID runs; verdict at the end.  Only
# the samples of the run's SOAK_TIME seconds are judged: after them ftr
# names what it kept (kallsyms, the files' symbol tables), which is the
# report's memory, not growth; its peak is printed apart.
sample() {
	name=$1 pid=$2 t0=$(date +%s)
	: > "$tmp/rss"
	while kill -0 "$pid" 2>/dev/null; do
		r=$(rss "$pid")
		[ -n "$r" ] && echo "$(($(date +%s) - t0)) $r" >> "$tmp/rss"
		sleep 2
	done
	wait "$pid"
	awk -v name="$name" -v T="$SOAK_TIME" '
		$1 < T { v[++n] = $2; if ($2 > max) max = $2; next }
		{ if ($2 > after) after = $2 }
		END { q = int(n / 4); if (q < 1) q = 1
		      ok = n > 0 && (v[n] <= v[q] * 1.25 || v[n] - v[q] <= 8192)
		      printf "soak %s: %d samples while running, RSS %d KB at 1/4, %d KB at the end, " \
			     "max %d KB; %d KB at most while reporting: %s\n",
			     name, n, v[q], v[n], max, after, ok ? "bounded" : "GROWING"
		      exit !ok }' "$tmp/rss" || status=1
}

flood() { while :; do writer 20000 1 > /dev/null; done; }
flood & f1=$!
flood & f2=$!

# A new key per event: the map stops at its bound, the rest is counted as dropped.
"$FTR" -e 'tracepoint:syscalls:sys_enter_write { @k[nsecs, tid] = count(); @c[comm, args.count] = sum(args.count); }' \
	-d "$SOAK_TIME" --where user > /dev/null 2> "$tmp/e1" &
sample keys $!
# Every event streamed into small buffers: lost events, all the time.
"$FTR" trace syscalls:sys_enter_write -b 64 -d "$SOAK_TIME" > /dev/null 2> "$tmp/e2" &
sample lost-flood $!
kill $f1 $f2 2>/dev/null
wait $f1 $f2 2>/dev/null
# Stacks without end: a system-wide profile with call chains while
# processes come and go (every pid is a new stack and a new address space:
# the stacks past --max-stacks count as [dropped], and at most 32 address
# spaces keep their CFI).
churn() { while :; do sh -c 'for i in 1 2 3; do :; done'; ls / > /dev/null; done; }
churn & c1=$!
"$FTR" -v profile -g -d "$SOAK_TIME" -a --max-stacks 20000 --folded > /dev/null 2> "$tmp/e3" &
sample profile-stacks $!
kill $c1 2>/dev/null
wait $c1 2>/dev/null
grep 'distinct stacks' "$tmp/e3"
exit $status
