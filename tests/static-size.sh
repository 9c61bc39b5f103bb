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
pass=0 fail=0
for spec in "$@"; do
	arch=${spec%%:*} rest=${spec#*:}
	file=${rest%:*} limit=${rest##*:}
	if [ ! -f "$file" ]; then
		echo "not ok static-size-$arch: $file is missing (make static ARCH=$arch)"
		fail=$((fail + 1))
		continue
	fi
	size=$(stat -c %s "$file")
	if [ "$size" -le "$limit" ]; then
		echo "ok static-size-$arch ($size bytes, limit $limit, $((100 * size / limit))%)"
		pass=$((pass + 1))
	else
		echo "not ok static-size-$arch: $size bytes, over its limit of $limit"
		fail=$((fail + 1))
	fi
done
echo "static-size: $pass passed, $fail failed"
[ $fail = 0 ]
