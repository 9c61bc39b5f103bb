#!/bin/sh
# static-size.sh — hold each static ftr at its size limit (issue 24).
#
#   tests/static-size.sh ARCH:FILE:LIMIT...
#
# One line per binary: "ok static-size-ARCH (N bytes, limit L)", "not ok"
# when it is over its limit or is not there, and last "static-size: N passed,
# N failed".  The limits are the Makefile's STATIC_LIMIT_ARCH (1.5 MiB on the
# boards' arm64 and armhf, 1.66 MiB on x86-64: see the Makefile on why);
# `make static` refuses to leave a binary over its limit behind, and this
# test says so in the test log, with the figures, for every architecture
# built.  Where to look when it grows: `make static STATIC_MAP=1` writes the
# link map beside the binary (which archive member each symbol pulled in).
#
# The size held to the limit is the file's size less the zeros between its
# loaded segments: arm64's linker ends RELRO on a 64 KiB page (for kernels
# with 64 KiB pages), so a few bytes more of code can add up to 64 KiB of
# padding to the file (55 KB on 2026-12-07).  `-z norelro` would drop it with
# the hardening; counting what the binary holds keeps both.  readelf reads
# any architecture's ELF.  `static-size.sh --held FILE` prints that size.
held() {
	sz=$(stat -c %s "$1") || return 1
	gap=0 end=
	# LOAD Offset VirtAddr PhysAddr FileSiz MemSiz Flg Align, in hex.
	for seg in $(readelf -lW "$1" 2>/dev/null | awk '$1 == "LOAD" { print $2 ":" $5 }'); do
		off=$(($(echo "${seg%:*}"))) fs=$(($(echo "${seg#*:}")))
		[ -n "$end" ] && [ "$off" -gt "$end" ] && gap=$((gap + off - end))
		end=$((off + fs))
	done
	echo $((sz - gap))
}
if [ "$1" = --held ]; then
	held "$2"
	exit
fi
pass=0 fail=0
for spec in "$@"; do
	arch=${spec%%:*} rest=${spec#*:}
	file=${rest%:*} limit=${rest##*:}
	if [ ! -f "$file" ]; then
		echo "not ok static-size-$arch: $file is missing (make static ARCH=$arch)"
		fail=$((fail + 1))
		continue
	fi
	size=$(held "$file")
	pad=$(($(stat -c %s "$file") - size))
	if [ "$size" -le "$limit" ]; then
		echo "ok static-size-$arch ($size bytes, limit $limit, $((100 * size / limit))%;" \
			"$pad bytes of segment padding besides)"
		pass=$((pass + 1))
	else
		echo "not ok static-size-$arch: $size bytes, over its limit of $limit"
		fail=$((fail + 1))
	fi
done
echo "static-size: $pass passed, $fail failed"
[ $fail = 0 ]
