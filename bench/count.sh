#!/bin/bash
# Benchmark for `ftr count` and the language's count()/hist() (issues #4, #5):
# N write(2) calls counted by comm, side by side in one run with bpftrace,
# and the keyless count (perf counters where there are no hist triggers).
# Then the same inside the 6.1 guest (kernel path = hist triggers, user
# path = raw stream), and the peak memory of the user path with 100,000
# distinct keys against --size.
#
#   bench/count.sh [N] [RUNS] [--no-guest]     (defaults 2000000, 5; root)
set -u
N=${1:-2000000}
RUNS=${2:-5}
GUEST=yes
[ "${3:-}" = --no-guest ] && GUEST=no
top=$(cd "$(dirname "$0")/.." && pwd)
FTR=${FTR:-$top/build/ftr}
BIN=$top/build/tests-bin
W="$BIN/writer $N 1"
export WRITER_TIME=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.6f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
elapsed() { sed -n 's/^writer: elapsed=\([0-9.]*\).*/\1/p' "$1"; }
tracer_cpu() {
	awk '/^writer:/ { for (i = 2; i <= NF; i++) { split($i, kv, "="); w[kv[1]] = kv[2] } }
	     /^rusage:/ { for (i = 2; i <= NF; i++) { split($i, kv, "="); r[kv[1]] = kv[2] } }
	     END { printf "%.6f\n", (r["user"] + r["sys"]) - (w["user"] + w["sys"]) }' "$1"
}

for r in $(seq "$RUNS"); do
	$W 2> "$work/e"; elapsed "$work/e" >> "$work/untraced"

	"$BIN/rusage" "$FTR" count syscalls:sys_enter_write -k comm -- $W > "$work/o" 2> "$work/e"
	elapsed "$work/e" >> "$work/ftr.t"; tracer_cpu "$work/e" >> "$work/ftr.cpu"
	sed -n 's/^@\[writer\]: //p' "$work/o" >> "$work/ftr.n"

	"$BIN/rusage" "$FTR" count syscalls:sys_enter_write -- $W > "$work/o" 2> "$work/e"
	elapsed "$work/e" >> "$work/ftrk.t"; tracer_cpu "$work/e" >> "$work/ftrk.cpu"
	sed -n 's/^@: //p' "$work/o" >> "$work/ftrk.n"

	# The language's one-liner, the text bpftrace runs below.
	"$BIN/rusage" "$FTR" -e 'tracepoint:syscalls:sys_enter_write /comm == "writer"/ { @[comm] = count(); }' \
		-- $W > "$work/o" 2> "$work/e"
	elapsed "$work/e" >> "$work/lang.t"; tracer_cpu "$work/e" >> "$work/lang.cpu"
	sed -n 's/^@\[writer\]: //p' "$work/o" >> "$work/lang.n"

	if command -v bpftrace > /dev/null; then
		"$BIN/rusage" bpftrace -e 'tracepoint:syscalls:sys_enter_write /comm == "writer"/ { @[comm] = count(); }' \
			-c "$W" > "$work/o" 2> "$work/e"
		elapsed "$work/e" >> "$work/bpf.t"; tracer_cpu "$work/e" >> "$work/bpf.cpu"
		sed -n 's/^@\[writer\]: //p' "$work/o" >> "$work/bpf.n"
	fi
done
un=$(median < "$work/untraced")
printf 'count sys_enter_write by comm, N = %d writes, %d runs, medians (untraced %.3fs)\n\n' "$N" "$RUNS" "$un"
printf '%-40s %9s %12s %14s\n' "tool" slowdown count "tracer CPU/evt"
row() {
	[ -s "$work/$1.t" ] || return 0
	awk -v name="$2" -v t="$(median < "$work/$1.t")" -v u="$un" -v n="$(median < "$work/$1.n")" \
	    -v c="$(median < "$work/$1.cpu")" -v N="$N" \
	    'BEGIN { printf "%-40s %8.2fx %12d %11.0f ns\n", name, t / u, n, c * 1e9 / N }'
}
row ftr "ftr count -k comm (user path here)"
row ftrk "ftr count, no key (perf counters here)"
row lang "ftr -e '/comm == \"writer\"/ @[comm] = count()'"
row bpf "bpftrace @[comm] = count()"
echo
echo "plans (ftr -E):"
"$FTR" count -E syscalls:sys_enter_write -k comm 2>&1 | sed -n '/^# plan/,/^# tracefs/p' | grep -v '^#' | sed 's/^/  count -k comm: /'
"$FTR" count -E syscalls:sys_enter_write 2>&1 | sed -n '/^# plan/,/^# tracefs/p' | grep -v '^#' | sed 's/^/  count: /'
"$FTR" -E -e 'tracepoint:syscalls:sys_enter_write /comm == "writer"/ { @[comm] = count(); }' 2>&1 |
	sed -n '/^# plan/,/^# tracefs/p' | grep -v '^#' | sed 's/^/  -e: /'

# Memory of the user path: 100,000 distinct keys, tables of 2048 and 131072.
for size in 2048 131072; do
	"$BIN/rusage" "$FTR" count syscalls:sys_enter_write -k count --size $size --where user \
		-- "$BIN/writer" 200000 -100000 > /dev/null 2> "$work/m"
	printf 'peak RSS, 100000 distinct keys, --size %-7d %6s KB (%s)\n' $size \
		"$(sed -n 's/.*maxrss_kb=\([0-9]*\).*/\1/p' "$work/m")" \
		"$(grep -o '[0-9]* updates dropped' "$work/m" || echo 'none dropped')"
done

[ $GUEST = yes ] || exit 0
# Inside the 6.1 guest (TCG: compare ratios within the guest only).
gdir=$work/guest
mkdir -p "$gdir"
cat > "$gdir/run.sh" <<'GEOF'
#!/bin/sh
N=200000
export WRITER_TIME=1
med() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for r in 1 2 3 4 5; do
	writer $N 1 2>&1 | sed -n 's/^writer: elapsed=\([0-9.]*\).*/\1/p' >> /tmp/u
	$FTR count syscalls:sys_enter_write -k comm --where kernel -- writer $N 1 2>&1 >/tmp/ko |
		sed -n 's/^writer: elapsed=\([0-9.]*\).*/\1/p' >> /tmp/k
	$FTR count syscalls:sys_enter_write -k comm --where user -- writer $N 1 2>&1 >/tmp/uo |
		sed -n 's/^writer: elapsed=\([0-9.]*\).*/\1/p' >> /tmp/us
done
u=$(med < /tmp/u); k=$(med < /tmp/k); us=$(med < /tmp/us)
echo "guest: N=$N writes, medians of 5: untraced ${u}s"
awk -v u="$u" -v k="$k" -v us="$us" 'BEGIN { printf "guest: kernel path (hist trigger) %.2fx, user path (raw stream) %.2fx\n", k / u, us / u }'
echo "guest: kernel path count: $(cat /tmp/ko)"
echo "guest: user path count: $(cat /tmp/uo)"
echo "ok bench"
echo "live: 1 passed, 0 failed, 0 skipped"
GEOF
chmod +x "$gdir/run.sh"
FTR_LIVE_DIR=$gdir "$top/tests/matrix/run.sh" --rows 6.1 --timeout 900 2>&1 | grep 'guest:' | sed 's/^\[6.1\] //'
