#!/bin/sh
# sysroot.sh — put dynamically linked programs, with every shared library
# they load and their dynamic loader, into a directory that a guest without
# a libc (the matrix's busybox initramfs) runs them from.
#
# Usage: tests/matrix/sysroot.sh DIR PROGRAM...
#
# DIR/prog/NAME  each PROGRAM, as is
# DIR/lib/       the libraries (DT_NEEDED, followed through the libraries)
#                and the loader (PT_INTERP), from this machine's multiarch
#                directories for the programs' architecture: /usr/lib/TRIPLET
#                holds the arm64 ones once `make deps` installed them
# DIR/bin/NAME   sh wrappers: exec DIR/lib/LOADER --library-path DIR/lib
#                DIR/prog/NAME "$@", found from $0, so that DIR can move
#
# The loader is run as a program, so the guest needs nothing at /lib: only
# the files here are used, and the guest's other tests see the busybox root
# they always saw.  readelf, not ldd: ldd runs the program, which a cross
# build cannot do here.
set -eu
[ $# -ge 2 ] || { echo "usage: $0 DIR PROGRAM..." >&2; exit 2; }
out=$1; shift
readelf=${READELF:-readelf}
case $(LC_ALL=C $readelf -h "$1" | sed -n 's/^ *Machine: *//p') in
AArch64) triplet=aarch64-linux-gnu ;;
"Advanced Micro Devices X86-64") triplet=x86_64-linux-gnu ;;
*) echo "sysroot: $1: not an arm64 or x86-64 ELF" >&2; exit 1 ;;
esac
interp=$(LC_ALL=C $readelf -l "$1" | sed -n 's/.*Requesting program interpreter: \([^]]*\)\]/\1/p')
[ -n "$interp" ] || { echo "sysroot: $1 has no program interpreter (static?)" >&2; exit 1; }
ld=${interp##*/}

rm -rf "$out"
mkdir -p "$out/lib" "$out/prog" "$out/bin"
cp -L "$interp" "$out/lib/$ld"
needed() { LC_ALL=C $readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'; }
# Breadth first over the NEEDED names; each library is copied once.
todo=
for p in "$@"; do
	cp "$p" "$out/prog/"
	todo="$todo $(needed "$p")"
	n=${p##*/}
	# shellcheck disable=SC2016  # the wrapper's own expansions
	printf '#!/bin/sh\nd=$(cd "${0%%/*}/.." && pwd)\nexec "$d/lib/%s" --library-path "$d/lib" "$d/prog/%s" "$@"\n' \
		"$ld" "$n" > "$out/bin/$n"
	chmod 755 "$out/bin/$n"
done
while [ -n "${todo# }" ]; do
	# shellcheck disable=SC2086  # one word per library
	set -- $todo
	todo=
	for l; do
		[ -e "$out/lib/$l" ] && continue
		f=
		for d in /lib/$triplet /usr/lib/$triplet /lib /usr/lib; do
			[ -e "$d/$l" ] && { f=$d/$l; break; }
		done
		[ -n "$f" ] || { echo "sysroot: $l (needed by the programs) is not in /usr/lib/$triplet" >&2; exit 1; }
		cp -L "$f" "$out/lib/$l"
		todo="$todo $(needed "$out/lib/$l")"
	done
done
echo "$triplet" > "$out/TRIPLET"
