# ftr profile --call-graph dwarf|auto: user stacks from the files' CFI on a
# copy of the stack (PERF_SAMPLE_REGS_USER + STACK_USER), for programs built
# as distributions build them: unwindme (main -> mid -> leaf_a 3/4, leaf_b
# 1/4; frameless leaves) -O2 without frame pointers, the same stripped, and
# with frame pointers (where the leaves still have no frame, so a frame-
# pointer walk loses mid).  Also libc's memcpy unwinding into its caller, a
# stack deeper than the copy (counted, located, and fixed by a bigger copy),
# --pprof read by go tool pprof with the shares of --top, the language's
# ustack, and symbols from .gnu_debuglink and MiniDebugInfo.
#
# The static build has no CFI unwinder: it must refuse dwarf in words.
. "$LIVE_DIR/lib.sh"
atleast() { awk -v v="$1" -v w="$2" 'BEGIN { exit !(v + 0 >= w) }'; }
# enough N STDERR: a run has at least 100 samples; 10 where the kernel
# lowered the rate (ftr says so) or in an emulated matrix guest (with
# FTR_SYSROOT).  A guest is slow in the sampling interrupt
# (kernel.perf_event_max_sample_rate fell to 250 Hz in the arm64 one), its
# timer fires late when the host is busy (one sample for several periods),
# and its system calls are slow (unwindme's clock reads take a larger share):
# its leaves got 8 to 400 samples.  A walk that fails, fails for every
# sample at that pc: nine in ten of 10 is no accident either.
enough() {
	if [ -n "${FTR_SYSROOT:-}" ] || grep -q 'sampling at [0-9]* Hz, not 999' "$2"; then
		[ "$1" -ge 10 ]
	else
		[ "$1" -ge 100 ]
	fi
}

require_sampling unwind
if ! command -v unwindme-nofp > /dev/null 2>&1; then
	skip unwind "the unwindme helpers are not on PATH (make helpers)"
	exit 0
fi

# Symbols of a stripped file from its .gnu_debuglink file (beside it, CRC
# checked): every build.
# leaves FOLDED: the per cent of the samples whose leaf is in unwindme that
# are named leaf_a or leaf_b (not "[unknown] (in ...unwindme-*)"), and the
# number of all samples.
leaves() {
	awk '{ n = $NF; t += n; if ($0 ~ /;leaf_[ab] [0-9]+$/) s += n
		else if ($0 ~ /;\[unknown\] \(in [^;]*unwindme-[^;]*\) [0-9]+$/) u += n }
		END { if (s + u) printf "%.1f %d", 100 * s / (s + u), t; else print "0 0" }' "$1"
}
if command -v unwindme-debuglink > /dev/null 2>&1; then
	"$FTR" profile --folded -- unwindme-debuglink 400 > "$TMP/f" 2> "$TMP/e"; rc=$?
	set -- $(leaves "$TMP/f")
	[ $rc -eq 0 ] && enough "$2" "$TMP/e" && atleast "$1" 50 && ! grep -q "unwindme-debuglink' is stripped" "$TMP/e" &&
		ok unwind-sym-debuglink || fail unwind-sym-debuglink "rc=$rc $1% of $2 named leaves $(head -2 "$TMP/e")"
else
	skip unwind-sym-debuglink "no unwindme-debuglink helper (make helpers)"
fi

# The language's ustack takes the source lines from the same debug file:
# each frame's file and line are those addr2line -i gives last for its
# address (a return address less one: the call), where binutils is there.
dl=$(command -v unwindme-debuglink 2> /dev/null)
if [ -z "$dl" ] || ! command -v addr2line > /dev/null || ! command -v nm > /dev/null; then
	skip unwind-lang-lines "no unwindme-debuglink helper, or no addr2line and nm here"
else
	"$FTR" -e 'profile:hz:999 /comm == "unwindme-debugl"/ { @[ustack(3)] = count(); }' \
		-- unwindme-debuglink 300 > "$TMP/o" 2> "$TMP/e"; rc=$?
	# "SYMBOL OFFSET CALL FILE:LINE" a frame of unwindme, then its address
	nm "$dl.debug" > "$TMP/syms"
	awk 'FNR == NR { a[$3] = $1; next }
	     $0 == "@[" { i = 0; next }
	     /^        / && $1 != "[inlined]" { call = i++ > 0
		if (!match($1, /\+[0-9]+@/)) next
		f = substr($1, 1, RSTART - 1)
		if (f in a) print a[f], substr($1, RSTART + 1, RLENGTH - 2), call,
			substr($1, RSTART + RLENGTH) }' "$TMP/syms" "$TMP/o" > "$TMP/frames"
	while read -r sym off call line; do
		printf '%x\n' $((0x$sym + off - call))
	done < "$TMP/frames" > "$TMP/addrs"
	addr2line -a -i -e "$dl.debug" < "$TMP/addrs" | sed 's/ (discriminator [0-9]*)$//' |
		awk '/^0x/ { if (l != "") print l; l = ""; next } { l = $0 } END { if (l != "") print l }' \
		> "$TMP/want"
	awk '{ print $4 }' "$TMP/frames" > "$TMP/got"
	n=$(wc -l < "$TMP/got")
	[ $rc -eq 0 ] && [ "$n" -ge 3 ] && cmp -s "$TMP/got" "$TMP/want" &&
		ok "unwind-lang-lines ($n frames as addr2line)" ||
		fail unwind-lang-lines "rc=$rc $n frames: $(diff "$TMP/got" "$TMP/want" | head -4 | tr '\n' '|') $(head -2 "$TMP/e")"
fi

# Usage: the modes and sizes there are.
for bad in bogus fp,4096 dwarf,100 dwarf,32 auto,70000; do
	"$FTR" profile --call-graph $bad -- true > /dev/null 2> "$TMP/e"; rc=$?
	[ $rc -eq 2 ] && grep -q "bad \(call graph\|stack size\)" "$TMP/e" || {
		fail unwind-usage "--call-graph $bad: rc=$rc $(head -1 "$TMP/e")"; bad=; break; }
done
[ -n "$bad" ] && ok unwind-usage
# Programs: ustack at events comes from tracefs (no registers, no stack copy).
"$FTR" --call-graph dwarf -e 'uprobe:/bin/sh:main { @[ustack] = count(); }' > /dev/null 2> "$TMP/e"
rc=$?
[ $rc -eq 2 ] && grep -q 'walked by frame pointers (a tracefs record carries no registers' "$TMP/e" &&
	ok unwind-run-refuses || fail unwind-run-refuses "rc=$rc $(head -1 "$TMP/e")"

"$FTR" profile --call-graph dwarf --folded -- true > "$TMP/o" 2> "$TMP/e"; rc=$?
if grep -q 'not in this static build' "$TMP/e"; then
	[ $rc -eq 1 ] && grep -q 'use the dynamic build' "$TMP/e" && ok unwind-static-refuses ||
		fail unwind-static-refuses "rc=$rc $(head -2 "$TMP/e")"
	# A matrix row that carries the dynamic build (tests/matrix/README.md,
	# "The dynamic build in a guest"): ftr and the unwindme helpers with the
	# host's shared libraries, each run through the sysroot's loader, so the
	# rest runs there as on a host (libc's memcpy from libc.so.6).
	if [ -z "${FTR_SYSROOT:-}" ] || [ ! -x "$FTR_SYSROOT/bin/ftr" ]; then
		skip unwind "no CFI unwinder in the static build (it has no libdw)"
		exit 0
	fi
	FTR=$FTR_SYSROOT/bin/ftr PATH=$FTR_SYSROOT/bin:$PATH
	echo "# the dynamic ftr of $FTR_SYSROOT ($(cat "$FTR_SYSROOT/TRIPLET"))"
fi

# under FOLDED LEAF CHAIN: per cent of the samples whose leaf is LEAF that
# end in CHAIN;LEAF (CHAIN a regex of frames, outermost first).
under() {
	awk -v leaf="$2" -v chain="$3" '{ n = $NF; f = $0; sub(/ [0-9]+$/, "", f);
		k = split(f, a, ";"); if (a[k] != leaf) next; t += n;
		if (f ~ ("(^|;)" chain ";" leaf "$")) s += n }
		END { if (t) printf "%.1f %d", 100 * s / t, t; else print "0 0" }' "$1"
}

# top FOLDED: the two heaviest stacks, for a failure's message.
top() { awk '{ print $NF "\t" $0 }' "$1" | sort -nr | head -2 | cut -f2- | tr '\n' '|'; }
# share FOLDED: leaf_a's and leaf_b's per cent of all samples (the leaf
# shares, to set beside perf's where there is a perf; unwindme's are 3:1).
share() {
	awk '{ n = $NF; t += n; if ($0 ~ /;leaf_a [0-9]+$/) a += n; if ($0 ~ /;leaf_b [0-9]+$/) b += n }
		END { if (t) printf "leaf_a %.1f%%, leaf_b %.1f%% of %d", 100 * a / t, 100 * b / t, t }' "$1"
}

for mode in dwarf auto; do
	"$FTR" profile --call-graph $mode --folded -- unwindme-nofp 600 > "$TMP/f" 2> "$TMP/e"; rc=$?
	set -- $(under "$TMP/f" leaf_a 'main;mid'); a=$1 na=$2
	set -- $(under "$TMP/f" leaf_b 'main;mid'); b=$1 nb=$2
	[ $rc -eq 0 ] && enough "$na" "$TMP/e" && atleast "$a" 90 && atleast "$b" 90 &&
		ok "unwind-$mode-nofp (leaf_a $a% of $na under main;mid, leaf_b $b% of $nb; $(share "$TMP/f"))" || fail unwind-$mode-nofp \
		"rc=$rc leaf_a $a% of $na under main;mid, leaf_b $b% of $nb $(top "$TMP/f") $(head -2 "$TMP/e")"
done

# Processes of one file, one after another and two at once (each its own
# load address): its ELF is opened once and lent to every address space
# (unwind.c's shared table), and each walk still finds main;mid.
"$FTR" profile --call-graph dwarf --folded -- sh -c \
	'unwindme-nofp 200; unwindme-nofp 200 & unwindme-nofp 200; wait' > "$TMP/f" 2> "$TMP/e"; rc=$?
set -- $(under "$TMP/f" leaf_a 'main;mid'); a=$1 na=$2
set -- $(under "$TMP/f" leaf_b 'main;mid'); b=$1 nb=$2
[ $rc -eq 0 ] && enough $((na + nb)) "$TMP/e" && atleast "$a" 90 && atleast "$b" 90 &&
	ok "unwind-shared-files (leaf_a $a% of $na under main;mid, leaf_b $b% of $nb)" || fail unwind-shared-files \
	"rc=$rc leaf_a $a% of $na under main;mid, leaf_b $b% of $nb $(head -2 "$TMP/e")"

# Stripped: no names, but the same three frames of the program under libc's
# start, for nine samples in ten of those whose leaf is in the program.
# libc's start is named where libc's symbols are (libc6-dbg), a frame in
# libc.so.6 where not (a matrix guest's sysroot, a host without it).
"$FTR" profile --call-graph dwarf --folded -- unwindme-stripped 600 > "$TMP/f" 2> "$TMP/e"; rc=$?
set -- $(awk '{ n = $NF; f = $0; sub(/ [0-9]+$/, "", f); k = split(f, a, ";");
	if (a[k] !~ /^\[unknown\] \(in .*unwindme-stripped\)$/) next; t += n;
	if (k >= 4 && (a[k-3] == "__libc_start_call_main" || a[k-3] ~ /^\[unknown\] \(in .*\/libc\.so\.6\)$/) &&
	    a[k-2] == a[k] && a[k-1] == a[k]) s += n }
	END { if (t) printf "%.1f %d", 100 * s / t, t; else print "0 0" }' "$TMP/f")
[ $rc -eq 0 ] && enough "$2" "$TMP/e" && atleast "$1" 90 &&
	ok "unwind-dwarf-stripped ($1% of $2 three frames of the program under libc's start)" ||
	fail unwind-dwarf-stripped "rc=$rc $1% of $2 $(top "$TMP/f")"

# Frame pointers, frameless leaves: fp loses mid (the walk goes from the
# leaf to the frame of its caller's caller), auto gets it back from the
# leaf's CFI.
"$FTR" profile --call-graph fp --folded -- unwindme-fp 400 > "$TMP/f" 2> "$TMP/e"
set -- $(under "$TMP/f" leaf_a 'main;mid'); fpa=$1
"$FTR" profile -g --folded -- unwindme-fp 600 > "$TMP/f" 2> "$TMP/e"; rc=$?
set -- $(under "$TMP/f" leaf_a 'main;mid'); a=$1 na=$2
[ $rc -eq 0 ] && enough "$na" "$TMP/e" && atleast "$a" 90 && ! atleast "$fpa" 50 &&
	ok "unwind-auto-frameless-leaf (auto: leaf_a $a% of $na under main;mid, fp: $fpa%)" || fail unwind-auto-frameless-leaf \
	"rc=$rc auto: $a% of $na leaf_a under main;mid (fp: $fpa%) $(top "$TMP/f")"

# libc's memcpy (no frame pointer) unwinds into its caller.  Its variants
# (ifuncs) are named where libc's symbols are, else a frame in libc.so.6.
"$FTR" profile --call-graph dwarf --folded -- unwindme-nofp -m 600 > "$TMP/f" 2> "$TMP/e"; rc=$?
set -- $(awk '{ n = $NF; f = $0; sub(/ [0-9]+$/, "", f); k = split(f, a, ";");
	if (a[k] !~ /memcpy|memmove|^\[unknown\] \(in .*\/libc\.so\.6\)$/) next; t += n;
	if (f ~ /;main;copy;[^;]*$/) s += n }
	END { if (t) printf "%.1f %d", 100 * s / t, t; else print "0 0" }' "$TMP/f")
[ $rc -eq 0 ] && enough "$2" "$TMP/e" && atleast "$1" 90 &&
	ok "unwind-libc-memcpy ($1% of $2 under main;copy)" ||
	fail unwind-libc-memcpy "rc=$rc $1% of $2 memcpy samples under main;copy $(top "$TMP/f")"

# 20 frames of 1 KB: more than the 8 KB copy.  Counted and located; a
# 64 KB copy reaches main.  (Stacks may end early elsewhere: in an emulated
# guest, samples land in the loader's start, whose callers are lost, and in
# _exit, where the copy ended early 6 times in one 5.10 run.)
"$FTR" profile --call-graph dwarf --folded -- unwindme-nofp -d 20 400 > "$TMP/f" 2> "$TMP/e"; rc=$?
[ $rc -eq 0 ] && grep -q 'user stacks (.*) end early, at the end of the 8192-byte stack copy: [0-9]* at deep in .*unwindme-nofp' "$TMP/e" &&
	ok unwind-stack-too-small-warned || fail unwind-stack-too-small-warned "rc=$rc $(head -3 "$TMP/e")"
"$FTR" profile --call-graph dwarf,65528 --folded -- unwindme-nofp -d 20 400 > "$TMP/f" 2> "$TMP/e"; rc=$?
set -- $(under "$TMP/f" leaf_a "main$(printf ';deep%.0s' 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21)")
[ $rc -eq 0 ] && enough "$2" "$TMP/e" && atleast "$1" 90 && ! grep -q 'byte stack copy: [0-9]* at deep' "$TMP/e" &&
	ok unwind-big-stack-copy || fail unwind-big-stack-copy "rc=$rc $1% of $2 $(head -2 "$TMP/e")"

# --pprof: go tool pprof reads it and names the same top functions with the
# same shares as --top, from the same samples: the shares may differ by
# rounding only (0.01 point), plus one sample's worth for safety.  Those of
# 1% or more are compared (pprof leaves out nodes under half a per cent).
if ! command -v go > /dev/null 2>&1; then
	skip unwind-pprof-go "no go tool here (Debian's golang-go)"
else
	"$FTR" profile -g --pprof "$TMP/p.pb.gz" -- unwindme-nofp 600 > "$TMP/top" 2> "$TMP/e"; rc=$?
	HOME=${HOME:-$TMP} GOCACHE=$TMP/gocache GOPATH=$TMP/gopath \
		go tool pprof -top -nodefraction=0 -nodecount=20 "$TMP/p.pb.gz" > "$TMP/gt" 2> "$TMP/ge"
	total=$(sed -n 's/^# ftr profile: \([0-9]*\) samples.*/\1/p' "$TMP/top")
	awk '/^ *[0-9.]+% +\[/ && $1 + 0 >= 1 { print $3, $1 }' "$TMP/top" | tr -d % > "$TMP/ours"
	awk '$2 ~ /%$/ && NF >= 6 { print $6, $2 }' "$TMP/gt" | tr -d % > "$TMP/theirs"
	diff=$(awk -v t="${total:-1}" 'NR == FNR { g[$1] = $2; next }
		{ if (!($1 in g)) { print "missing " $1; exit } d = g[$1] - $2; if (d < 0) d = -d;
		  if (d > 0.01 + 100 / t) { print $1 " " $2 " vs " g[$1]; exit } m++ }
		END { if (m < 2) print "only " m " functions compared" }' "$TMP/theirs" "$TMP/ours")
	[ $rc -eq 0 ] && [ -s "$TMP/theirs" ] && [ -z "$diff" ] &&
		[ "$(head -1 "$TMP/ours" | cut -d' ' -f1)" = "$(head -1 "$TMP/theirs" | cut -d' ' -f1)" ] &&
		ok unwind-pprof-go || fail unwind-pprof-go \
		"rc=$rc $diff ours: $(tr '\n' ' ' < "$TMP/ours") go: $(tr '\n' ' ' < "$TMP/theirs") $(head -2 "$TMP/ge")"
fi

# The language's ustack takes the same unwinder: leaf_a's callers in the
# -O2 build without frame pointers.  (The arm64 guest gave it 8 to 57 of
# leaf_a's samples in 600 ms, a fifth of what profile gets there: it runs
# longer in a guest.)
ms=600
[ -n "${FTR_SYSROOT:-}" ] && ms=1500
"$FTR" -e 'profile:hz:999 { @[ustack] = count(); }' -- unwindme-nofp $ms > "$TMP/o" 2> "$TMP/e"; rc=$?
set -- $(awk '$0 == "@[" { on = 1; s = ""; next }
	on && /^\]: [0-9]+$/ { if (s ~ /^leaf_a;/) { t += $2; if (s ~ /^leaf_a;mid;main;/) m += $2 } on = 0; next }
	on && $1 == "[inlined]" { next }
	on { f = $1; sub(/@.*$/, "", f); sub(/\+[0-9]+$/, "", f); s = s f ";" }
	END { if (t) printf "%.1f %d", 100 * m / t, t; else print "0 0" }' "$TMP/o")
[ $rc -eq 0 ] && enough "$2" "$TMP/e" && atleast "$1" 90 &&
	ok "unwind-lang-ustack (leaf_a $1% of $2 under mid;main)" ||
	fail unwind-lang-ustack "rc=$rc $1% of $2 leaf_a stacks under mid;main $(head -2 "$TMP/e")"

# MiniDebugInfo (.gnu_debugdata, xz): the dynamic build reads it.
"$FTR" profile --folded -- unwindme-minidebug 400 > "$TMP/f" 2> "$TMP/e"; rc=$?
set -- $(leaves "$TMP/f")
[ $rc -eq 0 ] && enough "$2" "$TMP/e" && atleast "$1" 50 && ! grep -q "unwindme-minidebug' is stripped" "$TMP/e" &&
	ok unwind-sym-minidebuginfo || fail unwind-sym-minidebuginfo "rc=$rc $1% of $2 named leaves $(head -2 "$TMP/e")"

# --debuginfod, against elfutils' own server (Debian's debuginfod) serving
# the debug file of a stripped copy that has no other way to its symbols:
# named with --debuginfod (and cached), not without it although
# DEBUGINFOD_URLS is set: never by default.
dl=$(command -v unwindme-debuglink 2> /dev/null)
if ! command -v debuginfod > /dev/null 2>&1; then
	skip unwind-debuginfod "no debuginfod server here (Debian's debuginfod)"
elif [ -z "$dl" ] || [ ! -f "$dl.debug" ]; then
	skip unwind-debuginfod "no unwindme-debuglink helper and debug file (make helpers)"
else
	mkdir -p "$TMP/dbg" "$TMP/bin"
	cp "$dl.debug" "$TMP/dbg/"
	cp "$dl" "$TMP/bin/unwindme-bare"
	port=$((20000 + $$ % 10000))
	debuginfod -F -p $port -d "$TMP/dbg.sqlite" "$TMP/dbg" > "$TMP/srv.log" 2>&1 &
	srv=$!
	export DEBUGINFOD_URLS=http://127.0.0.1:$port DEBUGINFOD_CACHE_PATH=$TMP/dcache
	# The server scans its directory at start: ask until it answers.
	id=$(readelf -n "$dl.debug" 2> /dev/null | sed -n 's/.*Build ID: *//p')
	i=0
	while [ $i -lt 50 ] && command -v debuginfod-find > /dev/null 2>&1 &&
			! DEBUGINFOD_CACHE_PATH=$TMP/probe debuginfod-find debuginfo "$id" > /dev/null 2>&1; do
		sleep 0.2; i=$((i + 1))
	done
	"$FTR" profile --folded -- "$TMP/bin/unwindme-bare" 300 > "$TMP/f0" 2> "$TMP/e0"
	"$FTR" profile --debuginfod --folded -- "$TMP/bin/unwindme-bare" 400 > "$TMP/f" 2> "$TMP/e"; rc=$?
	kill $srv 2> /dev/null; wait $srv 2> /dev/null
	unset DEBUGINFOD_URLS DEBUGINFOD_CACHE_PATH
	set -- $(leaves "$TMP/f"); named=$1 n=$2
	set -- $(leaves "$TMP/f0"); named0=$1
	[ $rc -eq 0 ] && enough "$n" "$TMP/e" && atleast "$named" 50 && ! atleast "$named0" 1 &&
		[ -n "$(ls -A "$TMP/dcache" 2> /dev/null)" ] && ok unwind-debuginfod ||
		fail unwind-debuginfod "rc=$rc with: $named% of $n named leaves, without: $named0% $(head -2 "$TMP/e") $(tail -2 "$TMP/srv.log")"
fi

# JIT code (jitme: a loop in an anonymous executable mapping): CFI cannot
# go through it, and ftr says so, with or without a perf map to name it.
if command -v jitme > /dev/null 2>&1; then
	"$FTR" profile --call-graph dwarf --folded -- jitme 300 > "$TMP/f" 2> "$TMP/e"; rc=$?
	[ $rc -eq 0 ] && grep -q 'user stacks (.*) end early, at JIT code (anonymous memory): [0-9]* at \[unknown\] (pid [0-9]*, 0x[0-9a-f]*)\(, and elsewhere\)\{0,1\}: JIT code without a perf map' "$TMP/e" &&
		ok unwind-jit-no-map || fail unwind-jit-no-map "rc=$rc $(head -2 "$TMP/e")"
	"$FTR" profile --call-graph dwarf --folded -- jitme -p 300 > "$TMP/f" 2> "$TMP/e"; rc=$?
	pid=$(sed -n 's/.* at jit_loop (pid \([0-9]*\),.*/\1/p' "$TMP/e" | head -1)
	[ -n "$pid" ] && rm -f "/tmp/perf-$pid.map"
	n=$(awk '$0 ~ /^jitme;jit_loop [0-9]+$/ { s += $NF } END { print s + 0 }' "$TMP/f")
	[ $rc -eq 0 ] && [ -n "$pid" ] && enough "$n" "$TMP/e" && grep -q 'its perf map names it' "$TMP/e" &&
		ok unwind-jit-perf-map || fail unwind-jit-perf-map "rc=$rc $n named $(head -2 "$TMP/e")"
else
	skip unwind-jit-no-map "no jitme helper (make helpers)"
fi
