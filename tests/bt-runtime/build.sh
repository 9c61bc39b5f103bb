#!/bin/bash
# build.sh — the test programs and libraries of bpftrace's runtime tests
# (tests/testprogs, tests/testlibs), built from ../shared, unchanged, with
# Debian's compilers, as bpftrace's CMake files build them:
#   testprogs/NAME and NAME-pie  -g -O0 -fno-omit-frame-pointer
#                                -mno-omit-leaf-frame-pointer, -no-pie / -pie
#   testlibs/libNAME.so          -g -O0 -shared -fPIC, not executable
# plus false.bin, archive.zip, the stripped/split-debug variants.
# The programs' DWARF names their sources under /bpftrace/tests
# (-fdebug-prefix-map), a path without the '-' of this copy's, which the
# suite's regexes for ustack's file:line ([\w\/]+.c) do not allow.
#
#   tests/bt-runtime/build.sh TESTS_DIR OUT_DIR [--static]
#
# --static: static executables for the guests (busybox, no libc there); the
# -pie ones are static-pie.  A program that does not build is reported in
# OUT_DIR/NOT-BUILT (name: first error line) and the cases needing it skip.
set -u
SRC=${1:?tests dir}; OUT=${2:?out dir}; STATIC=${3:-}
mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
CC=${CC:-gcc}; CXX=${CXX:-g++}
P=$OUT/testprogs L=$OUT/testlibs
mkdir -p "$P" "$L" "$P/external_debug/dwo" "$P/external_debug/dwp" "$P/.debug"
: > "$OUT/NOT-BUILT.new"
CFL="-g -O0 -fno-omit-frame-pointer"
$CC -mno-omit-leaf-frame-pointer -x c -c -o /dev/null /dev/null 2>/dev/null &&
	CFL="$CFL -mno-omit-leaf-frame-pointer"
INC="-I$HERE/include -I$SRC/testlibs"
MAP="-fdebug-prefix-map=$SRC=/bpftrace/tests"
# Everything is rebuilt when the flags change.
printf '%s %s\n' "$CFL" "$MAP" | cmp -s - "$OUT/FLAGS" || printf '%s %s\n' "$CFL" "$MAP" > "$OUT/FLAGS"
SL=; [ "$STATIC" = --static ] && SL=-static

fail() { # NAME LOGFILE
	printf '%s: %s\n' "$1" "$(grep -m1 -i 'error' "$2" || head -n1 "$2")" >> "$OUT/NOT-BUILT.new"
}
newer() { # TARGET SOURCE...: true when TARGET must be (re)built
	[ -e "$1" ] || return 0
	local t=$1 src; shift
	for src; do [ "$src" -nt "$t" ] && return 0; done
	return 1
}

# The libraries first: usdt_lib links usdt_tp.
for s in "$SRC"/testlibs/*.c; do
	n=$(basename "$s" .c)
	newer "$L/lib$n.so" "$s" "$OUT/FLAGS" || continue
	# shellcheck disable=SC2086  # two -I words
	if $CC -g -O0 -fPIC -shared $MAP $INC -o "$L/lib$n.so" "$s" 2> "$OUT/log"; then
		chmod -x "$L/lib$n.so"
	else
		fail "testlibs/lib$n.so" "$OUT/log"
	fi
done

for s in "$SRC"/testprogs/*.c "$SRC"/testprogs/*.cpp; do
	[ -f "$s" ] || continue
	n=$(basename "$s"); n=${n%.*}
	cc=$CC; case $s in *.cpp) cc=$CXX ;; esac
	fl=$CFL; extra=
	case $n in
	uprobe_nofp) fl="-g -O1 -fomit-frame-pointer -fno-optimize-sibling-calls" ;;
	usdt_semaphore_test) extra=-DBT_USDT_SEMAPHORES ;;
	usdt_lib)
		if [ -n "$SL" ]; then
			echo "testprogs/usdt_lib: static: it loads libusdt_tp.so" >> "$OUT/NOT-BUILT.new"
			continue
		fi
		extra="-fPIC -L$L -lusdt_tp -Wl,-rpath,$L" ;;
	esac
	case $n in *thread*) extra="$extra -pthread" ;; esac
	for v in "" -pie; do
		if [ -z "$v" ]; then pie="-no-pie"; else pie="-fpie -pie"; fi
		[ -n "$SL" ] && { [ -z "$v" ] && pie="-static" || pie="-fpie -static-pie"; }
		newer "$P/$n$v" "$s" "$OUT/FLAGS" || continue
		# shellcheck disable=SC2086
		$cc $fl $MAP $pie $INC -o "$P/$n$v" "$s" $extra 2> "$OUT/log" ||
			fail "testprogs/$n$v" "$OUT/log"
	done
done

# Go and Rust programs, when their compilers are there.
if command -v go > /dev/null; then
	# CGO_ENABLED=0: a static binary, for the guests too.
	newer "$P/hello_go" "$SRC/testprogs/hello_go.go" &&
		{ (cd "$SRC/testprogs" && CGO_ENABLED=0 GOCACHE=$OUT/go-cache go build \
			-o "$P/hello_go" hello_go.go) > "$OUT/log" 2>&1 || fail testprogs/hello_go "$OUT/log"; }
else
	echo "testprogs/hello_go: no go compiler (golang-go)" >> "$OUT/NOT-BUILT.new"
fi
if [ -z "$SL" ] && command -v rustc > /dev/null; then
	newer "$P/hello_rust" "$SRC/testprogs/hello_rust.rs" &&
		{ rustc -C symbol_mangling_version=v0 -o "$P/hello_rust" "$SRC/testprogs/hello_rust.rs" \
			> "$OUT/log" 2>&1 || fail testprogs/hello_rust "$OUT/log"; }
else
	echo "testprogs/hello_rust: ${SL:+static: }no rustc${SL:+ for a static target}" >> "$OUT/NOT-BUILT.new"
fi

# binutils first: llvm-objcopy 14 rejects static binaries (.rela.plt).
OBJCOPY=$(command -v objcopy || command -v llvm-objcopy)
# A flat binary of false.c's main: uprobes on a file that is no ELF.
if newer "$P/false.bin" "$SRC/testprogs/false.c"; then
	$CC -c -o "$OUT/false.o" "$SRC/testprogs/false.c" &&
	$OBJCOPY -S --only-section=.text --keep-symbol=main -O binary "$OUT/false.o" "$P/false.bin" ||
		echo "testprogs/false.bin: objcopy failed" >> "$OUT/NOT-BUILT.new"
	rm -f "$OUT/false.o"
fi
if [ -f "$P/true" ] && newer "$P/archive.zip" "$P/true"; then
	rm -f "$P/archive.zip"
	if command -v zip > /dev/null; then
		zip -q -0 -j "$P/archive.zip" "$P/true"
	else
		echo "testprogs/archive.zip: no zip" >> "$OUT/NOT-BUILT.new"
	fi
fi
# Stripped binaries with their debug info elsewhere.
if [ -f "$P/uprobe_test" ] && newer "$P/uprobe_test-stripped" "$P/uprobe_test"; then
	$OBJCOPY --only-keep-debug "$P/uprobe_test" "$P/external_debug/uprobe_test-stripped.debug"
	$OBJCOPY --strip-debug "$P/uprobe_test" "$P/uprobe_test-stripped"
fi
if [ -f "$P/uprobe_separate_debug" ] &&
   newer "$P/uprobe_separate_debug-stripped" "$P/uprobe_separate_debug"; then
	$OBJCOPY --only-keep-debug "$P/uprobe_separate_debug" \
		"$P/.debug/uprobe_separate_debug-stripped.debug"
	$OBJCOPY --strip-debug "$P/uprobe_separate_debug" "$P/uprobe_separate_debug-stripped"
	$OBJCOPY --add-gnu-debuglink="$P/.debug/uprobe_separate_debug-stripped.debug" \
		"$P/uprobe_separate_debug-stripped"
fi
for d in dwo dwp; do
	newer "$P/external_debug/$d/uprobe_test-split" "$SRC/testprogs/uprobe_test.c" || continue
	(cd "$P/external_debug/$d" && $CC -g -O0 -gsplit-dwarf $SL \
		"$SRC/testprogs/uprobe_test.c" -o uprobe_test-split) 2> "$OUT/log" ||
		fail "testprogs/external_debug/$d/uprobe_test-split" "$OUT/log"
done
# The .dwo files packed in a .dwp: llvm-dwp or binutils' dwp.
DWP=$(command -v llvm-dwp || command -v dwp)
if [ -f "$P/external_debug/dwp/uprobe_test-split" ] &&
   newer "$P/external_debug/dwp/uprobe_test-split.dwp" "$P/external_debug/dwp/uprobe_test-split"; then
	if [ -n "$DWP" ] && (cd "$P/external_debug/dwp" &&
		"$DWP" -e uprobe_test-split -o uprobe_test-split.dwp) 2> "$OUT/log"; then
		rm -f "$P"/external_debug/dwp/*.dwo
	else
		echo "testprogs/external_debug/dwp/uprobe_test-split.dwp: no llvm-dwp or dwp" \
			>> "$OUT/NOT-BUILT.new"
	fi
fi
rm -f "$OUT/log"
# What failed this time and did not build before (an up-to-date target is not retried).
sort -u "$OUT/NOT-BUILT.new" > "$OUT/NOT-BUILT"
rm -f "$OUT/NOT-BUILT.new"
if [ -s "$OUT/NOT-BUILT" ]; then
	echo "bt-runtime: not built (their cases skip):" >&2
	sed 's/^/  /' "$OUT/NOT-BUILT" >&2
fi
exit 0
