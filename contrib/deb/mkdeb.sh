#!/bin/sh
# mkdeb.sh — pack a static ftr into a Debian binary package, with dpkg-deb.
#
#   contrib/deb/mkdeb.sh OUTDIR VERSION ARCH BINARY
#
# ARCH is ftr's name for it (x86_64, arm64, armhf); BINARY the static ftr
# built with PREFIX=/usr (it looks for its recipes and filters in
# /usr/share/ftr).  Writes OUTDIR/ftr_VERSION_DEBARCH.deb and prints its path.
# Run from the top of the source tree (`make deb` does).
#
# Why dpkg-deb and not dpkg-buildpackage: the package holds one static
# binary that the Makefile already cross-builds for each architecture
# (`make static ARCH=...`); dpkg-buildpackage would need a debian/ source
# package, build dependencies installed for each target architecture
# through its own cross-build machinery, and it rebuilds everything under
# debhelper.  Staging the tree by hand is a page of shell: the files go where
# Debian policy puts them, and lintian checks the result (tests/deb.sh).
set -eu

out=$1 version=$2 arch=$3 bin=$4
case $arch in
x86_64) debarch=amd64 ;;
arm64)  debarch=arm64 ;;
armhf)  debarch=armhf ;;
*) echo "mkdeb: unknown architecture '$arch'" >&2; exit 2 ;;
esac
[ -x "$bin" ] || { echo "mkdeb: $bin is missing" >&2; exit 1; }
maint=${DEB_MAINTAINER:-ftr maintainers <maintainers@users.noreply.a-seed-21f5f4a2.example>}
# Reproducible: the dates come from the last commit (or SOURCE_DATE_EPOCH).
epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}

root=$out/ftr_${version}_$debarch
rm -rf "$root"
umask 022
install -d "$root/DEBIAN" "$root/usr/bin" "$root/usr/share/man/man1" \
	"$root/usr/share/man/man7" "$root/usr/share/bash-completion/completions" \
	"$root/usr/share/ftr/events" "$root/usr/share/ftr/filters" "$root/usr/share/doc/ftr"
install -m 755 "$bin" "$root/usr/bin/ftr"
for m in man/*.1 man/*.7; do
	[ -f "$m" ] || continue
	sec=${m##*.}
	gzip -9n <"$m" >"$root/usr/share/man/man$sec/${m##*/}.gz"
done
install -m 644 contrib/ftr.bash "$root/usr/share/bash-completion/completions/ftr"
for lib in events filters; do
	for f in "$lib"/*.ftr; do
		[ -f "$f" ] && install -m 644 "$f" "$root/usr/share/ftr/$lib/"
	done
done

# The libraries linked into the static binary: Built-Using names their
# source packages (Debian policy 7.8, for their licences), as installed for
# this architecture.
built_using=
for p in libc6-dev libtracefs-dev libtraceevent-dev libelf-dev zlib1g-dev libzstd-dev; do
	s=$(dpkg-query -W -f '${source:Package} (= ${source:Version})' "$p:$debarch" 2>/dev/null) ||
		{ echo "mkdeb: $p:$debarch is not installed (make deps)" >&2; exit 1; }
	built_using="${built_using:+$built_using, }$s"
done

cat >"$root/usr/share/doc/ftr/copyright" <<COPYRIGHT
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: ftr
Comment: /usr/bin/ftr is linked statically with glibc (LGPL-2.1+),
 libtracefs and libtraceevent (LGPL-2.1), elfutils' libelf (GPL-2+ or
 LGPL-3+), zlib (Zlib) and zstd (BSD-3-clause or GPL-2): their sources are
 the packages the Built-Using field names, and their licences are in
 /usr/share/common-licenses and in those packages' copyright files.

Files: *
Copyright: 2026 the ftr authors
License: GPL-2+

License: GPL-2+
 This program is free software; you can redistribute it and/or modify it
 under the terms of the GNU General Public License as published by the Free
 Software Foundation; either version 2 of the License, or (at your option)
 any later version.
 .
 This program is distributed in the hope that it will be useful, but WITHOUT
 ANY WARRANTY; without even the implied warranty of MERCHANTABILITY or
 FITNESS FOR A PARTICULAR PURPOSE.  See the GNU General Public License for
 more details.
 .
 On Debian systems, the complete text of the GNU General Public License
 version 2 can be found in "/usr/share/common-licenses/GPL-2".
COPYRIGHT

# Two of lintian's errors are what the package is for: one static binary,
# with no run-time dependencies, for rescue systems and boards (zlib is
# linked in with the rest; Built-Using names it).
install -d "$root/usr/share/lintian/overrides"
cat >"$root/usr/share/lintian/overrides/ftr" <<OVERRIDES
# ftr is one statically linked binary by design (no run-time dependencies,
# for rescue systems and boards); Built-Using names the libraries in it.
ftr: statically-linked-binary [usr/bin/ftr]
ftr: embedded-library zlib [usr/bin/ftr]
OVERRIDES

cat <<CHANGELOG | gzip -9n >"$root/usr/share/doc/ftr/changelog.Debian.gz"
ftr ($version) unstable; urgency=medium

  * Built from the ftr source tree by \`make deb\`: the static binary, its
    man pages, bash completion, recipes and filters.

 -- $maint  $(LC_ALL=C date -u -R -d "@$epoch")
CHANGELOG

cat >"$root/DEBIAN/control" <<CONTROL
Package: ftr
Version: $version
Architecture: $debarch
Maintainer: $maint
Installed-Size: $(du -sk --apparent-size "$root/usr" | cut -f1)
Built-Using: $built_using
Section: devel
Priority: optional
Description: tracer for Linux kernels without BPF
 ftr traces a running Linux kernel and its programs where BPF is absent
 (kernels built without it, embedded boards, rescue systems), with the
 kernel's own tracing: tracepoints, kprobe and uprobe events, event
 filters, histogram triggers and perf events.  It speaks bpftrace's
 language, counts, aggregates and prints histograms, profiles with stack
 traces, and records trace files.
 .
 This package holds one statically linked binary, with no run-time
 dependencies, and its recipes.
CONTROL
(cd "$root" && find usr -type f | LC_ALL=C sort | xargs md5sum) >"$root/DEBIAN/md5sums"
chmod 644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"
# Every file's time stamp is the commit's, for a reproducible package.
find "$root" -exec touch -h -d "@$epoch" {} +
deb=$out/ftr_${version}_$debarch.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
rm -rf "$root"
echo "$deb"
