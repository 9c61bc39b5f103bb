#!/bin/sh
# deb.sh — check a package from `make deb`: lintian, then install, run and
# remove it in an empty root.
#
#   tests/deb.sh build/deb/ftr_VERSION_ARCH.deb
#
# 1. lintian: no error (the two a static binary must have are overridden in
#    the package itself, with the reason), and the warnings are shown;
# 2. dpkg --root=DIR -i into an empty root (a dpkg database and nothing
#    else): every file where Debian puts it;
# 3. in that root, through chroot in a mount namespace of its own (proc,
#    sys and dev bind-mounted there vanish with it, on any exit): `ftr
#    doctor`, `ftr run --list` (the recipes from /usr/share/ftr) and a
#    one-liner on a tracepoint with an exact answer, from /usr/bin/ftr;
#    this step uses tracefs, so it runs under /run/ftr-live.lock;
# 4. dpkg --root=DIR --purge: the root holds nothing of ftr's afterwards.
# Prints ok/not ok lines and "deb: N passed, N failed".  Needs root
# (chroot, mounts).  About 10 s.
set -u
deb=${1:?usage: tests/deb.sh FILE.deb}
pass=0 fail=0
ok()     { echo "ok $1"; pass=$((pass + 1)); }
not_ok() { echo "not ok $1"; fail=$((fail + 1)); }
[ -f "$deb" ] || { echo "deb: $deb is missing (make deb)" >&2; exit 2; }
root=$(mktemp -d "${TMPDIR:-/tmp}/ftr-deb.XXXXXX")
trap 'rm -rf "$root"' EXIT

# 1. lintian
if command -v lintian >/dev/null; then
	out=$(lintian --no-cfg "$deb" 2>&1 | grep -v 'running with root privileges')
	[ -n "$out" ] && echo "$out" | sed 's/^/# lintian: /'
	if echo "$out" | grep -q '^E: '; then
		not_ok "deb-lintian: $(echo "$out" | grep -c '^E: ') errors"
	else
		ok "deb-lintian ($(echo "$out" | grep -c '^W: ') warnings, no error)"
	fi
else
	echo "skip deb-lintian: lintian is not installed (make deps)"
fi

if [ "$(id -u)" != 0 ]; then
	echo "skip deb-install: installing into a root, chroot and mounts need root"
	echo "deb: $pass passed, $fail failed"
	[ $fail = 0 ]; exit
fi

# 2. install into an empty root
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
: >"$root/var/lib/dpkg/status"
: >"$root/var/lib/dpkg/available"
if dpkg --root="$root" --log=/dev/null -i "$deb" >"$root.log" 2>&1; then
	ok "deb-install"
else
	not_ok "deb-install: $(tail -n 3 "$root.log" | tr '\n' ' ')"
fi
rm -f "$root.log"
missing=
for f in usr/bin/ftr usr/share/man/man1/ftr.1.gz usr/share/man/man7/ftr-language.7.gz \
	 usr/share/bash-completion/completions/ftr usr/share/ftr/events/opensnoop.ftr \
	 usr/share/ftr/filters/not_ftr.ftr usr/share/doc/ftr/copyright \
	 usr/share/doc/ftr/changelog.Debian.gz; do
	[ -f "$root/$f" ] || missing="$missing $f"
done
[ -z "$missing" ] && ok "deb-files" || not_ok "deb-files: missing$missing"

# 3. run it from /usr/bin/ftr inside the root
if [ -x "$root/usr/bin/ftr" ]; then
	mkdir -p "$root/proc" "$root/sys" "$root/dev" "$root/tmp"
	res=$(flock /run/ftr-live.lock unshare --mount --propagation private sh -c '
		r=$1
		mount --rbind /proc "$r/proc" && mount --rbind /sys "$r/sys" &&
			mount --rbind /dev "$r/dev" || exit 9
		echo "== doctor"; chroot "$r" /usr/bin/ftr doctor 2>&1; echo "rc=$?"
		echo "== list"; chroot "$r" /usr/bin/ftr run --list 2>&1; echo "rc=$?"
		echo "== oneliner"
		chroot "$r" /usr/bin/ftr -e "tracepoint:syscalls:sys_enter_execve /pid == cpid/ { @ = count(); }" \
			-- /usr/bin/ftr --version 2>&1; echo "rc=$?"' sh "$root" 2>&1)
	section() { echo "$res" | awk -v s="== $1" '$0 == s { on = 1; next } /^== / { on = 0 } on'; }
	d=$(section doctor)
	if echo "$d" | grep -q '^rc=0$'; then ok "deb-doctor ($(echo "$d" | wc -l) lines)"
	else not_ok "deb-doctor: $(echo "$d" | tail -n 3 | tr '\n' ' ')"; fi
	l=$(section list)
	if echo "$l" | grep -q '^opensnoop ' && echo "$l" | grep -q '^rc=0$'; then
		ok "deb-recipes-found ($(echo "$l" | grep -vc '^rc=') recipes from /usr/share/ftr)"
	else
		not_ok "deb-recipes-found: $(echo "$l" | tail -n 3 | tr '\n' ' ')"
	fi
	o=$(section oneliner)
	if echo "$o" | grep -q '^@: 1$' && echo "$o" | grep -q '^rc=0$'; then
		ok "deb-oneliner (one execve by the command)"
	else
		not_ok "deb-oneliner: want '@: 1': $(echo "$o" | tr '\n' ' ')"
	fi
fi
# nothing stays mounted: the namespace took its mounts with it
if grep -q " $root/" /proc/self/mounts; then not_ok "deb-no-mounts-left"; fi

# 4. remove
if dpkg --root="$root" --log=/dev/null --purge ftr >"$root.log" 2>&1; then
	left=$(cd "$root" && find . -path ./var/lib/dpkg -prune -o -path ./proc -prune -o \
		-path ./sys -prune -o -path ./dev -prune -o -path ./tmp -prune -o -type f -print)
	known=$(grep -c '^Package: ftr$' "$root/var/lib/dpkg/status")
	if [ -z "$left" ] && [ "$known" = 0 ] && ! ls "$root/var/lib/dpkg/info/ftr."* >/dev/null 2>&1; then
		ok "deb-purge-clean"
	else
		not_ok "deb-purge-clean: left$(echo " $left" | tr '\n' ' ') (status entries: $known)"
	fi
else
	not_ok "deb-purge: $(tail -n 3 "$root.log" | tr '\n' ' ')"
fi
rm -f "$root.log"
echo "deb: $pass passed, $fail failed"
[ $fail = 0 ]
