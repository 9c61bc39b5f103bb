# ftr count and ftr hist: exact answers for workloads of known size, the
# same by the kernel path (hist triggers) and the user path, bounded tables.
. "$LIVE_DIR/lib.sh"
require_tracing agg
if [ ! -d "$T/events/syscalls/sys_enter_write" ]; then
	skip agg "no syscall tracepoints on this kernel"
	exit 0
fi
snapshot > "$TMP/before"
# opener's openat flags, O_RDONLY|O_NOFOLLOW: the number differs by architecture.
OFLAGS=$(opener --flags)

"$FTR" count syscalls:sys_enter_openat -k comm -f "flags == $OFLAGS" -- opener 41 > "$TMP/o" 2> "$TMP/e"
grep -qx '@\[opener\]: 41' "$TMP/o" && ok count-by-comm || fail count-by-comm "$(cat "$TMP/o" "$TMP/e" | head -4)"

# A keyless count: a hist trigger where the kernel has them, perf tracepoint
# counters where it has not (exact, no ring buffer), the same number.
"$FTR" count syscalls:sys_enter_openat -f "flags == $OFLAGS" -- opener 33 > "$TMP/o" 2> "$TMP/e"
grep -qx '@: 33' "$TMP/o" && ok count-keyless || fail count-keyless "$(cat "$TMP/o" "$TMP/e" | head -4)"
"$FTR" count -E syscalls:sys_enter_openat -f "flags == $OFLAGS" > "$TMP/x" 2>&1
if has_hist; then want='a hist trigger'; else want='perf tracepoint counter'; fi
grep -q "$want" "$TMP/x" && ok count-keyless-plan || fail count-keyless-plan "$(grep '^@' "$TMP/x")"

# The seed's histogram: 2000 writes of 4K and 60 of 1M, by dd.
"$FTR" hist syscalls:sys_enter_write -k count -f 'comm == "dd"' \
	-- sh -c 'dd if=/dev/zero of=/tmp/ftr-h1 bs=4k count=2000 2>/dev/null; dd if=/dev/zero of=/tmp/ftr-h2 bs=1M count=60 2>/dev/null' \
	> "$TMP/h" 2> "$TMP/e"
rm -f /tmp/ftr-h1 /tmp/ftr-h2
grep -q '^\[4K, 8K) *2000 ' "$TMP/h" && grep -q '^\[1M, 2M) *60 ' "$TMP/h" && ok hist-write-sizes ||
	fail hist-write-sizes "$(head -12 "$TMP/h" "$TMP/e")"

"$FTR" hist syscalls:sys_enter_write -k count.linear=100,comm -f 'fd == 3' \
	-- sh -c 'writer 30 150; writer 5 1000' > "$TMP/o" 2> "$TMP/e"
grep -q '^@count\[writer\]:$' "$TMP/o" && grep -q '^\[100, 200) *30 ' "$TMP/o" &&
	grep -q '^\[1000, 1100) *5 ' "$TMP/o" && ok hist-linear-by-comm ||
	fail hist-linear-by-comm "$(head -12 "$TMP/o" "$TMP/e")"

"$FTR" count -v count syscalls:sys_enter_write -k comm -f 'fd == 3' -- writer 10 7 > "$TMP/o" 2> "$TMP/e"
grep -qx '@\[writer\]: 10' "$TMP/o" && grep -qx '@sum_count\[writer\]: 70' "$TMP/o" && ok count-with-sum ||
	fail count-with-sum "$(cat "$TMP/o" "$TMP/e" | head -5)"

# More distinct keys than --size: the excess is counted as dropped.  1000
# writes with sizes cycling 1..200, a table of 128: sizes 1..128 are kept
# (640 writes), the other 360 writes are dropped.
"$FTR" count syscalls:sys_enter_write -k count -f 'fd == 3' --size 128 --where user \
	-- writer 1000 -200 > "$TMP/u" 2> "$TMP/ue"
n=$(grep -c '^@\[' "$TMP/u")
[ "$n" -eq 128 ] && grep -q '360 updates dropped: the map holds 128 entries' "$TMP/ue" &&
	ok count-bounded-drops || fail count-bounded-drops "$n entries; $(cat "$TMP/ue")"

if has_hist; then
	"$FTR" count syscalls:sys_enter_write -k count -f 'fd == 3' --size 128 --where kernel \
		-- writer 1000 -200 > "$TMP/k" 2> "$TMP/ke"
	cmp -s "$TMP/u" "$TMP/k" && grep -q '360 updates dropped' "$TMP/ke" && ok count-bounded-kernel-same ||
		fail count-bounded-kernel-same "$(diff "$TMP/u" "$TMP/k" | head -3 | tr '\n' ' ') $(cat "$TMP/ke")"
	for kind in count hist; do
		"$FTR" $kind syscalls:sys_enter_write -k count,comm -f 'fd == 3' --where user \
			-- sh -c 'writer 100 10; writer 50 5000' > "$TMP/u" 2> /dev/null
		"$FTR" $kind syscalls:sys_enter_write -k count,comm -f 'fd == 3' --where kernel \
			-- sh -c 'writer 100 10; writer 50 5000' > "$TMP/k" 2> "$TMP/ke"
		[ -s "$TMP/u" ] && cmp -s "$TMP/u" "$TMP/k" && ok "$kind-kernel-equals-user" ||
			fail "$kind-kernel-equals-user" "$(diff "$TMP/u" "$TMP/k" | head -3 | tr '\n' ' ') $(head -2 "$TMP/ke")"
	done
else
	"$FTR" count syscalls:sys_enter_write -k comm --where kernel -d 1 > /dev/null 2> "$TMP/e"; rc=$?
	[ $rc -eq 1 ] && grep -q 'no hist triggers' "$TMP/e" && ok count-where-kernel-refused ||
		fail count-where-kernel-refused "rc=$rc $(cat "$TMP/e")"
fi

# Bad input.
"$FTR" count syscalls:sys_enter_write -k nosuch -d 1 > /dev/null 2> "$TMP/e"; rc=$?
[ $rc -eq 1 ] && grep -q "unknown field 'nosuch'" "$TMP/e" && ok count-unknown-key ||
	fail count-unknown-key "rc=$rc $(cat "$TMP/e")"
"$FTR" hist syscalls:sys_enter_write -d 1 > /dev/null 2>&1; rc=$?
check hist-needs-key [ $rc -eq 2 ]
"$FTR" count nosuch:event > /dev/null 2> "$TMP/e"; rc=$?
check count-unknown-event [ $rc -eq 1 ]
same_as_before agg-leaves-tracefs "$TMP/before"
