# ftr -f json against bpftrace -f json itself: the same programs under both, on deterministic
# workloads (BEGIN only, a few interval ticks, writer's 100 writes of sizes 1..5), compared line by
# line with nothing normalised: every program here has as many probes written as bpftrace
# attaches (the "probes" counts differ only for wildcards, which bpftrace counts per match).
# Needs a bpftrace that runs: the qemu guests have none, so this is a host test.
. "$LIVE_DIR/lib.sh"
if ! command -v bpftrace > /dev/null 2>&1; then
	skip bpfjson "no bpftrace on this machine (contrib/install-deps.sh installs it)"
	exit 0
fi
ulimit -l 8192 2> /dev/null	# else bpftrace warns about RLIMIT_MEMLOCK (on stderr)
if ! bpftrace -e 'BEGIN { exit(); }' > /dev/null 2> "$TMP/be"; then
	skip bpfjson "bpftrace cannot run here (no BPF?): $(grep -m1 ERROR "$TMP/be")"
	exit 0
fi
require_tracing bpfjson
snapshot > "$TMP/before"

# same NAME FLAGS PROGRAM [COMMAND ARGS...]: both outputs, byte for byte.
same() {
	name=$1 flags=$2 prog=$3
	shift 3
	if [ $# -gt 0 ]; then
		bpftrace $flags --unsafe -f json -e "$prog" -c "$*" > "$TMP/b" 2> "$TMP/be"
		"$FTR" $flags --unsafe -f json -e "$prog" -- "$@" > "$TMP/f" 2> "$TMP/fe"
	else
		bpftrace $flags --unsafe -f json -e "$prog" > "$TMP/b" 2> "$TMP/be"
		"$FTR" $flags --unsafe -f json -e "$prog" > "$TMP/f" 2> "$TMP/fe"
	fi
	# Today's bpftrace adds "count" to 0.17's attached_probes line (its
	# runtime suite, json-output's "attached probes"): ftr prints today's.
	sed -i 's/^{"type": "attached_probes", "data": {"probes": \([0-9]*\)}}$/{"type": "attached_probes", "count": \1, "data": {"probes": \1}}/' "$TMP/b"
	if [ ! -s "$TMP/b" ]; then
		fail "$name" "bpftrace printed nothing: $(grep -v RLIMIT "$TMP/be" | head -2)"
	elif cmp -s "$TMP/b" "$TMP/f"; then
		ok "$name"
	else
		fail "$name" "$(diff "$TMP/b" "$TMP/f" | head -6) $(head -2 "$TMP/fe")"
	fi
}

printf 'a "quoted"\tline\n' > "$TMP/cat.txt"

# Every map kind at exit (sorted by name), keys of one and two parts, negative and zero hist
# buckets, lhist's open ends and the empty buckets between, string escapes.
same bpfjson-maps '' 'BEGIN { @a[1] = count(); @b = hist(5); @c = sum(3); @s = stats(5);
	@m[1, "x"] = max(5); @l = lhist(3, 0, 10, 2); @v = avg(4); @h[1] = hist(5); @h[2] = hist(-3);
	@h[2] = hist(0); @h[3] = hist(1); @h[3] = hist(100); @ll = lhist(-5, 0, 10, 2);
	@ll = lhist(50, 0, 10, 2); @e["a\"b\n\tc\\"] = sum(-3); @n = min(-3); @st = "x\"y";
	@z[2] = 1; @z[1] = 2; printf("hi %d\n", 4); exit(); }'

# print() mid-run, with top and div; stats and avg with keys; a cleared map prints nothing;
# printf without a newline; cat() and system() as lines of their own; END's output before the maps.
same bpfjson-print '' 'BEGIN { @s[1] = stats(5); @s[2] = stats(-7); @v["k"] = avg(4); @v["k"] = avg(5);
	@h = hist(3); print(@h); print(@s); print(@v); @e[1] = count(); clear(@e); print(@e);
	@x[5] = count(); @x[3] = count(); @x[3] = count(); @y["b"] = sum(10); @y["a"] = sum(2);
	print(@x, 1); print(@y, 2, 2); cat("'"$TMP/cat.txt"'"); system("echo sys"); printf("no line");
	printf(" %s|%d\n", "a", -5); exit(); } END { printf("end\n"); @end = 1; }'

# interval ticks print mid-run, END adds a map; -q: no attached_probes line.
same bpfjson-interval -q 'interval:ms:50 { @c = count(); print(@c); @n++; if (@n > 2) { exit(); } }
	END { @j = 1; clear(@n); }'

# print() of values (numbers in their type's sign, strings; a comparison is a bool, printed
# true by today's bpftrace and 1 by 0.17: cast to a number here); zero() keeps a map's keys at 0,
# every kind (bpftrace zeroes after the probe has run: no update follows a zero here).
same bpfjson-values '' 'BEGIN { $x = 5; print(1); print("a\"b"); print($x); print(-3);
	print((uint8)255); print((uint64)-1); print((int8)-1); print((uint32)-1); print((uint64)(1 < 2));
	@c[1] = count(); @h = hist(5); @s = stats(3); @a = avg(4); @m = max(7); @n = min(2); @x = 5;
	zero(@c); zero(@h); zero(@s); zero(@a); zero(@m); zero(@n); zero(@x); print(@c); print(@h);
	exit(); }'

# A tracepoint over a workload of known size: writer's 100 writes, sizes 1..5 twenty times each,
# under a name of its own (nothing else on the machine writes as it).
if [ -d "$T/events/syscalls/sys_enter_write" ]; then
	ln -sf "$(command -v writer)" "$TMP/jsonwr"
	same bpfjson-writes '' 'tracepoint:syscalls:sys_enter_write /comm == "jsonwr"/ { @[comm] = count();
		@sz = hist(args->count); @l = lhist(args->count, 0, 6, 2); @s = stats(args->count);
		@a = avg(args->count); @by[args->count, comm] = sum(args->count);
		if (args->count == 5) { printf("five %s\n", comm); } }' "$TMP/jsonwr" 100 -5
	# cpid: the pid of -c's command, BEGIN before it runs.
	same bpfjson-cpid '' 'BEGIN { print((uint64)(cpid > 0)); } tracepoint:syscalls:sys_enter_write
		/pid == cpid/ { @w[comm] = count(); }' "$TMP/jsonwr" 7
else
	skip bpfjson-writes "no syscall tracepoints"
fi

# time() is a "time" line (its text is the clock's: not compared with bpftrace's).
"$FTR" -f json -e 'BEGIN { time("%Y\n"); exit(); }' > "$TMP/f" 2> "$TMP/fe"
grep -qx '{"type": "time", "data": "[0-9]*\\n"}' "$TMP/f" && ok bpfjson-time ||
	fail bpfjson-time "$(cat "$TMP/f" "$TMP/fe" | head -3)"
# -j keeps ftr's own JSON.
"$FTR" -j -e 'BEGIN { @m[1, "x"] = 5; exit(); }' > "$TMP/f" 2> "$TMP/fe"
grep -qx '{"@m": \[{"key": \[1, "x"\], "value": 5}\]}' "$TMP/f" && ok bpfjson-j-own ||
	fail bpfjson-j-own "$(cat "$TMP/f" "$TMP/fe" | head -3)"
same_as_before bpfjson-clean "$TMP/before"
