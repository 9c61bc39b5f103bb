# ftr profile: a program with a known hot path (hotpath: leaf_a and leaf_b
# in a 3:1 ratio under main -> run -> work_a/work_b) named with the right
# shares and callers; folded stacks that feed the SVG writer; the seed's
# two stack warnings; kernel frames; -p, -a; bad input.
#
# The split between the two leaves is checked within 10 percentage points
# of 75/25 (with ~1000 samples the binomial spread is about 1.4 points, so
# 10 is far outside chance and still catches a wrong attribution), and the
# two together must hold most of the samples (emulated guests spend a
# share in the kernel's interrupt paths).
. "$LIVE_DIR/lib.sh"

require_sampling profile

xml_ok() {
	if command -v xmllint > /dev/null 2>&1; then
		xmllint --noout "$1" 2> /dev/null
	elif command -v python3 > /dev/null 2>&1; then
		python3 -c 'import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])' "$1" 2> /dev/null
	else
		return 2
	fi
}

# share FOLDED REGEX: per cent of the samples whose leaf frame matches.
share() {
	awk -v re="$2" '{ n = $NF; t += n; f = $0; sub(/ [0-9]+$/, "", f);
		k = split(f, a, ";"); if (a[k] ~ re) s += n }
		END { if (t) printf "%.1f", 100 * s / t; else print 0 }' "$1"
}
near() { awk -v v="$1" -v w="$2" 'BEGIN { d = v - w; if (d < 0) d = -d; exit !(d <= 10) }'; }

"$FTR" profile -g --folded -- hotpath 1000 > "$TMP/f" 2> "$TMP/e"; rc=$?
a=$(share "$TMP/f" '^leaf_a$'); b=$(share "$TMP/f" '^leaf_b$')
ra=$(awk -v a="$a" -v b="$b" 'BEGIN { if (a + b) printf "%.1f", 100 * a / (a + b); else print 0 }')
[ $rc -eq 0 ] && near "$ra" 75 && awk -v a="$a" -v b="$b" 'BEGIN { exit !(a + b >= 50) }' &&
	ok profile-shares ||
	fail profile-shares "rc=$rc leaf_a $a%, leaf_b $b% of all: $ra% of the two to leaf_a (want 75+-10, both >= 50%) $(head -2 "$TMP/e")"
grep -q '^hotpath;.*;main;run;work_a;leaf_a [0-9]*$' "$TMP/f" &&
	grep -q '^hotpath;.*;main;run;work_b;leaf_b [0-9]*$' "$TMP/f" && ok profile-callers ||
	fail profile-callers "$(sort -t' ' -k2 -n -r "$TMP/f" | head -2)"
grep -q 'one-frame' "$TMP/e" && fail profile-fp-no-warning "$(cat "$TMP/e")" ||
	ok profile-fp-no-warning
# The folded format: frames, a space, a count; nothing else.
bad=$(grep -cv '^[^ ].* [0-9][0-9]*$' "$TMP/f")
check profile-folded-format [ "$bad" -eq 0 ]

# The folded stacks feed the SVG writer.
"$FTR" profile -i "$TMP/f" --svg "$TMP/f.svg" > /dev/null 2> "$TMP/e"; rc=$?
total=$(awk '{ t += $NF } END { print t }' "$TMP/f")
[ $rc -eq 0 ] && grep -q "<title>all ($total samples, 100.00%)</title>" "$TMP/f.svg" &&
	grep -q '<title>leaf_a (' "$TMP/f.svg" && grep -q '<title>work_b (' "$TMP/f.svg" &&
	ok profile-folded-to-svg || fail profile-folded-to-svg "rc=$rc $(head -2 "$TMP/e")"
xml_ok "$TMP/f.svg"; r=$?
if [ $r -eq 2 ]; then skip profile-svg-xml "no XML parser (xmllint, python3) on this system"
elif [ $r -eq 0 ]; then ok profile-svg-xml; else fail profile-svg-xml "not well-formed XML"; fi
# Read back, the folded stacks are the same stacks.
"$FTR" profile -i "$TMP/f" --folded > "$TMP/f2" 2>&1
sort "$TMP/f" > "$TMP/s1"; sort "$TMP/f2" > "$TMP/s2"
cmp -s "$TMP/s1" "$TMP/s2" && ok profile-folded-roundtrip || fail profile-folded-roundtrip \
	"$(diff "$TMP/s1" "$TMP/s2" | head -3)"

# The SVG straight from a profile, and the top report.
"$FTR" profile -g --svg "$TMP/p.svg" -- hotpath 300 > "$TMP/top" 2> "$TMP/e"; rc=$?
[ $rc -eq 0 ] && [ ! -s "$TMP/top" ] && grep -q '<title>leaf_a (' "$TMP/p.svg" &&
	grep -q 'onload="init(evt)"' "$TMP/p.svg" && ok profile-svg || fail profile-svg "rc=$rc $(head -2 "$TMP/e")"
xml_ok "$TMP/p.svg"; r=$?
if [ $r -eq 2 ]; then skip profile-svg2-xml "no XML parser (xmllint, python3) on this system"
elif [ $r -eq 0 ]; then ok profile-svg2-xml; else fail profile-svg2-xml "not well-formed XML"; fi
"$FTR" profile -g -- hotpath 300 > "$TMP/top" 2> "$TMP/e"; rc=$?
first=$(grep -m1 '%  \[' "$TMP/top")
case $first in *'[.] leaf_a') ok profile-top-first ;; *) fail profile-top-first "first: '$first'" ;; esac
# Under leaf_a, its callers, nearest first.
awk '/\[\.\] leaf_a$/ { on = 1; next } on && /---/ { print; getline; print; getline; print; exit }' \
	"$TMP/top" | tr -d ' |' > "$TMP/chain"
[ "$(tr '\n' ' ' < "$TMP/chain")" = "---work_a run main " ] && ok profile-top-chain ||
	fail profile-top-chain "$(tr '\n' ' ' < "$TMP/chain")"
grep -q '^# ftr profile: .* none lost' "$TMP/top" && ok profile-none-lost ||
	fail profile-none-lost "$(head -1 "$TMP/top")"

"$FTR" profile -j -- hotpath 200 > "$TMP/j" 2> "$TMP/e"; rc=$?
[ $rc -eq 0 ] && grep -q '"symbols":\[{"name":"leaf_a","kernel":false' "$TMP/j" && ok profile-json ||
	fail profile-json "rc=$rc $(head -c 300 "$TMP/j")"

# --max-stacks: past the cap a new stack is only counted, into one
# [dropped] frame; the total still holds every sample (hotpath has two
# leaves, so one kept stack leaves some dropped).
"$FTR" -v profile -g -j --max-stacks 1 -- hotpath 200 > "$TMP/j" 2> "$TMP/e"; rc=$?
d=$(sed -n 's/.*"dropped":\([0-9]*\),.*/\1/p' "$TMP/j")
dj=$(sed -n 's/.*{"frames":\["\[dropped\]"\],"count":\([0-9]*\)}.*/\1/p' "$TMP/j")
tot=$(sed -n 's/.*"samples":\([0-9]*\),.*/\1/p' "$TMP/j")
v=$(grep -o '[0-9]* samples, 1 distinct stacks, [0-9]* dropped' "$TMP/e")
[ $rc -eq 0 ] && [ "${d:-0}" -gt 0 ] && [ "$dj" = "$d" ] && [ "$v" = "$tot samples, 1 distinct stacks, $d dropped" ] &&
	grep -q "$d samples of stacks past the first 1 distinct ones are counted as \[dropped\]" "$TMP/e" &&
	ok profile-max-stacks || fail profile-max-stacks "rc=$rc dropped '$d' '$dj' samples '$tot' -v '$v' $(head -c 300 "$TMP/e")"
"$FTR" profile --max-stacks x -- true > /dev/null 2>&1
check profile-max-stacks-usage [ $? -eq 2 ]

# The seed's stack-walk advice: a binary without frame pointers has
# one-frame stacks by frame pointers, and ftr says so (-g walks CFI where it
# can: t-unwind.sh); a stripped one has no names.
if command -v hotpath-nofp > /dev/null 2>&1; then
	"$FTR" profile --call-graph fp --folded -- hotpath-nofp 300 > "$TMP/f" 2> "$TMP/e"; rc=$?
	[ $rc -eq 0 ] && grep -q "samples in '.*hotpath-nofp' have a one-frame user stack" "$TMP/e" &&
		grep -q 'fno-omit-frame-pointer' "$TMP/e" && ok profile-nofp-warning ||
		fail profile-nofp-warning "rc=$rc $(head -3 "$TMP/e")"
else
	skip profile-nofp-warning "no hotpath-nofp helper"
fi
if command -v hotpath-stripped > /dev/null 2>&1; then
	"$FTR" profile -g -- hotpath-stripped 300 > "$TMP/o" 2> "$TMP/e"; rc=$?
	[ $rc -eq 0 ] && grep -q "'.*hotpath-stripped' is stripped" "$TMP/e" &&
		grep -q '\[unknown\] (in .*hotpath-stripped)' "$TMP/o" && ok profile-stripped-warning ||
		fail profile-stripped-warning "rc=$rc $(head -3 "$TMP/e")"
	grep -q 'one-frame' "$TMP/e" && fail profile-stripped-not-one-frame "$(cat "$TMP/e")" ||
		ok profile-stripped-not-one-frame
else
	skip profile-stripped-warning "no hotpath-stripped helper"
fi

# Kernel frames (the seed's S2): copying /dev/zero is the kernel's work.
# What is asserted is the kernel's own read path, named and chained under
# dd's frames (vfs_read calling /dev/zero's read), and a kernel share of at
# least 5%: the share itself depends on the machine (natively it is most of
# the samples; in the emulated arm64 guest, busybox dd's user loop takes
# 74-87% of them).
"$FTR" profile -g --folded -- dd if=/dev/zero of=/dev/null bs=64k count=20000 > "$TMP/f" 2> "$TMP/e"; rc=$?
k=$(share "$TMP/f" '_[[]k[]]$')
# (4.14's vfs_read calls __vfs_read, which calls /dev/zero's read_iter: the
# unwinder may give either)
named=$(grep -c '^dd;.*;\(__\)\{0,1\}vfs_read_\[k\];read\(_iter\)\{0,1\}_zero_\[k\]' "$TMP/f")
if [ $rc -eq 0 ] && awk -v k="$k" 'BEGIN { exit !(k >= 5) }' && [ "$named" -gt 0 ]; then
	ok profile-kernel-frames
elif grep -q 'kernel frames have no names' "$TMP/e"; then
	skip profile-kernel-frames "$(grep 'kernel frames' "$TMP/e")"
else
	fail profile-kernel-frames "rc=$rc kernel share $k%, $named stacks through vfs_read and read_zero: $(awk '{ if ($NF > m) { m = $NF; l = $0 } } END { print l }' "$TMP/f" | cut -c1-300)"
fi

# -p: a running process, for a time; -a: everything.
hotpath 5000 &
hp=$!
"$FTR" profile -p $hp -d 500ms --folded > "$TMP/f" 2> "$TMP/e"; rc=$?
kill $hp 2>/dev/null; wait $hp 2>/dev/null
[ $rc -eq 0 ] && grep -q ';leaf_a [0-9]*$' "$TMP/f" && ok profile-pid ||
	fail profile-pid "rc=$rc $(head -2 "$TMP/e")"
"$FTR" profile -a -d 300ms > "$TMP/o" 2> "$TMP/e"; rc=$?
[ $rc -eq 0 ] && grep -q '^# ftr profile: [0-9]* samples' "$TMP/o" && ok profile-all ||
	fail profile-all "rc=$rc $(head -2 "$TMP/e")"

# Lost samples are counted and said: a one-page ring (some 30 samples with
# call chains), and ftr stopped for three seconds while the process it
# profiles keeps running.
hotpath 12000 &
hp=$!
"$FTR" -v profile -g -m 1 -j -p $hp -d 8 > "$TMP/j" 2> "$TMP/e" &
fp=$!
# Sampling is on once ftr -v says so; the run lasts 8 s from then, so that
# the stop below always falls inside it, however loaded the box.  (Waiting
# on wchan or a fixed time was not enough for a guest on a busy host.)
i=0
while [ $i -lt 600 ] && ! grep -q 'sampling at' "$TMP/e" 2>/dev/null; do
	sleep 0.1; i=$((i + 1))
done
kill -STOP $fp; sleep 3; kill -CONT $fp
wait $fp; rc=$?
kill $hp 2>/dev/null; wait $hp 2>/dev/null
lost=$(sed -n 's/.*"lost":\([0-9]*\),.*/\1/p' "$TMP/j")
[ $rc -eq 0 ] && [ "${lost:-0}" -gt 0 ] && grep -q "samples LOST in" "$TMP/e" && ok profile-lost-reported ||
	fail profile-lost-reported "rc=$rc lost=${lost:-none} $(head -c 200 "$TMP/j") $(head -2 "$TMP/e")"

# Bad input.
"$FTR" profile -h > "$TMP/o" 2>&1; rc=$?
[ $rc -eq 0 ] && grep -q 'usage: ftr profile' "$TMP/o" && ok profile-help || fail profile-help "rc=$rc"
"$FTR" profile > /dev/null 2>&1; rc=$?
check profile-nothing-usage [ $rc -eq 2 ]
"$FTR" profile -F 0 -- true > /dev/null 2>&1; rc=$?
check profile-bad-frequency-usage [ $rc -eq 2 ]
"$FTR" profile -a -p 1 > /dev/null 2>&1; rc=$?
check profile-two-targets-usage [ $rc -eq 2 ]
"$FTR" profile -p 999999999 > /dev/null 2> "$TMP/e"; rc=$?
[ $rc -eq 1 ] && grep -q 'no process with pid 999999999' "$TMP/e" && ok profile-bad-pid ||
	fail profile-bad-pid "rc=$rc $(cat "$TMP/e")"
"$FTR" profile -- /nonexistent/prog > /dev/null 2> "$TMP/e"; rc=$?
[ $rc -eq 1 ] && grep -q "cannot run '/nonexistent/prog'" "$TMP/e" && ok profile-bad-command ||
	fail profile-bad-command "rc=$rc $(cat "$TMP/e")"
echo 'main;work 12x' > "$TMP/bad"
"$FTR" profile -i "$TMP/bad" > /dev/null 2> "$TMP/e"; rc=$?
[ $rc -eq 1 ] && grep -q 'line 1: not a folded stack' "$TMP/e" && ok profile-bad-folded ||
	fail profile-bad-folded "rc=$rc $(cat "$TMP/e")"
"$FTR" profile -i "$TMP/none" > /dev/null 2> "$TMP/e"; rc=$?
check profile-missing-input [ $rc -eq 1 ]

par=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null)
if [ "$(id -u)" = 0 ] && command -v asuser > /dev/null 2>&1 && [ -n "$par" ]; then
	asuser 65534 "$FTR" profile -a -d 100ms > /dev/null 2> "$TMP/e"; rc=$?
	if [ "$par" -gt 0 ]; then
		[ $rc -eq 1 ] && grep -q "kernel.perf_event_paranoid is $par" "$TMP/e" &&
			grep -q 'perf_event_paranoid=0' "$TMP/e" && ok profile-paranoid-explained ||
			fail profile-paranoid-explained "rc=$rc $(cat "$TMP/e")"
	else
		check profile-paranoid-allows-all [ $rc -eq 0 ]
	fi
	if [ "$par" -eq 2 ]; then
		asuser 65534 "$FTR" profile -g --folded -- hotpath 200 > "$TMP/f" 2> "$TMP/e"; rc=$?
		[ $rc -eq 0 ] && grep -q 'user space only' "$TMP/e" && grep -q ';leaf_a [0-9]*$' "$TMP/f" &&
			ok profile-user-only || fail profile-user-only "rc=$rc $(cat "$TMP/e")"
	fi
else
	skip profile-paranoid "needs root, the asuser helper and perf_event_paranoid"
fi
