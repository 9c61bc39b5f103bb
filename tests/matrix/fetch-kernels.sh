#!/bin/bash
# fetch-kernels.sh — fill the kernel-matrix cache, once.
#
# Usage: tests/matrix/fetch-kernels.sh [--modules] [KVER...]
#        (default: 5.10 6.1 6.12 6.1-arm64 6.1-armhf 6.1-rt)
#        tests/matrix/fetch-kernels.sh --no-kernels   (busybox and tools only)
#
# For each kernel version it fetches Debian's cloud kernel of the matching
# release and keeps only its compressed image:
#
#     5.10 <- bullseye   6.1 <- bookworm   6.12 <- trixie     (amd64)
#     6.1-arm64 <- bookworm linux-image-cloud-arm64            (arm64)
#     6.1-armhf <- bookworm linux-image-armmp-lpae             (armhf)
#     6.1-rt    <- bookworm linux-image-rt-amd64   (amd64, PREEMPT_RT)
#
#     $FTR_CACHE/vmlinuz-KVER          the kernel image booted by run.sh
#     $FTR_CACHE/vmlinuz-KVER.version  "uname -r" and package version, for reports
#     $FTR_CACHE/modules-KVER/RELEASE  with --modules only: the package's module
#                                      tree (lib/modules/RELEASE, as shipped: no
#                                      modules.dep), for guests that load modules
#                                      (tests/bt-tools: xfs, md, zram); its
#                                      .version matches vmlinuz-KVER.version,
#                                      else both are fetched anew
#     $FTR_CACHE/busybox               static x86-64 busybox, the guest's userland
#     $FTR_CACHE/busybox-arm64         static arm64 busybox (bookworm's
#                                      busybox-static:arm64), for arm64 kernels
#     $FTR_CACHE/busybox-armhf         the same for armhf (busybox-static:armhf)
#
# A KVER ending in -arm64 is an arm64 kernel: its package lists, kernel and
# busybox come from a private apt tree whose only architecture is arm64, so
# the system's dpkg needs no foreign architecture for them.  Debian's arm64
# vmlinuz is a gzip'd Image, which qemu-system-aarch64 -kernel unpacks itself.
# A KVER ending in -armhf is alike for 32-bit ARM; Debian has no cloud
# flavour there, so it is armmp-lpae's (ARMv7 with LPAE: a Cortex-A15, which
# qemu-system-arm -M virt emulates), a zImage that -kernel boots as is.
#
# It also installs the host tools run.sh needs when they are missing (cpio,
# qemu-system-x86, and for arm64 kernels qemu-system-arm, binutils for
# readelf, busybox-static), with the system's apt.
#
# FTR_CACHE defaults to /var/cache/ftr-matrix: the images are 8-10 MB each and
# their packages 60-100 MB, which must never land in the repository.
#
# Idempotent: whatever is already in the cache is not fetched again, and a run
# with everything cached touches neither the network nor apt.
#
# Nothing here touches the system's apt state: each release gets a private apt
# tree under $FTR_CACHE/apt/SUITE-ARCH (sources list, lists, cache, an empty dpkg
# status file), selected with apt's -c option, and removed once its kernel is
# cached.  The system's apt.conf.d is still
# read, so a proxy configured there keeps working; its update hooks are cleared.
#
# Mirror: no host is named in this file.  The Debian mirror URI is read at run
# time from the machine's own apt configuration (deb822 "URIs:" in
# /etc/apt/sources.list.d/*.sources, or one-line /etc/apt/sources.list) and the
# suite is substituted.  FTR_DEBIAN_MIRROR=URI overrides it.
#
# Signatures: every private sources entry says
#     Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
# i.e. apt verifies each InRelease against the system's Debian keyring, nothing
# is marked trusted=yes.  Bookworm's debian-archive-keyring 2023.3+deb12u2 (a
# bookworm point release) already carries the bullseye, bookworm AND trixie
# keys.  An older bookworm keyring (2023.3, 2023.3+deb12u1) has no trixie key;
# the correct fix is not to bypass the check but to upgrade
# debian-archive-keyring from the host's own, already-trusted release
# (`apt-get install debian-archive-keyring`), which this script does when it
# finds /usr/share/keyrings/debian-archive-SUITE-automatic.gpg missing.
set -euo pipefail

CACHE=${FTR_CACHE:-/var/cache/ftr-matrix}
MODULES=0
ALL_KVERS="5.10 6.1 6.12 6.1-arm64 6.1-armhf 6.1-rt"
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

die()  { echo "fetch-kernels: error: $*" >&2; exit 1; }
note() { echo "fetch-kernels: $*" >&2; }

# KVER -> Debian architecture: "6.1-arm64" is arm64, "6.1-armhf" armhf, a
# bare version amd64.
arch_of() { case $1 in *-arm64) echo arm64 ;; *-armhf) echo armhf ;; *) echo amd64 ;; esac; }
# KVER -> the image flavour: linux-image-FLAVOUR is its metapackage.  A KVER
# ending in -rt is Debian's PREEMPT_RT flavour (rt-amd64): the only Debian
# kernel with osnoise, timerlat and hwlat (cloud-amd64 has none of them).
flavour_of() {
	case $1 in *-rt) echo rt-amd64; return ;; esac
	case $(arch_of "$1") in armhf) echo armmp-lpae ;; *) echo "cloud-$(arch_of "$1")" ;; esac
}
# KVER -> its kernel version: "6.1-arm64" -> "6.1", "6.1-rt" -> "6.1".
kver_base() { local k=${1%-arm*}; echo "${k%-rt}"; }

suite_of() {
	case $(kver_base "$1") in
	5.10) echo bullseye ;;
	6.1)  echo bookworm ;;
	6.12) echo trixie ;;
	*)    die "unknown kernel version '$1' (known: $ALL_KVERS)" ;;
	esac
}

# Host tools the matrix needs (run.sh calls us first).  Installed with the system's apt (as the brief
# allows) only when missing, so a warm machine does no network access here.
ensure_host_pkg() { # COMMAND-PATH PACKAGE
	[ -e "$1" ] && return 0
	[ "$(id -u)" = 0 ] || die "$1 is missing: install package $2 (needs root)"
	note "installing $2 (for $1)"
	# A fresh machine may never have run apt-get update: retry after one.
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o DPkg::Lock::Timeout=600 --no-install-recommends "$2" >&2 ||
		{ apt-get update -q >&2 &&
		  DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o DPkg::Lock::Timeout=600 --no-install-recommends "$2" >&2; } ||
		die "could not install $2: is the network up?"
	[ -e "$1" ] || die "$2 is installed but $1 is still missing"
}

# Print the Debian mirror URI from the host's apt configuration.  We look for
# an enabled "deb" entry whose suite is a plain Debian codename/alias (so not
# NAME-security or NAME-updates, which live on other paths or are partial) and
# whose components include main.  Third-party repos use their own suite names.
debian_mirror() {
	if [ -n "${FTR_DEBIAN_MIRROR:-}" ]; then echo "$FTR_DEBIAN_MIRROR"; return; fi
	local codenames='^(buster|bullseye|bookworm|trixie|forky|duke|sid|oldoldstable|oldstable|stable|testing|unstable)$'
	local f uri=
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -r "$f" ] || continue
		# deb822: paragraphs separated by blank lines; continuation lines
		# start with white space; '#' lines are comments.
		uri=$(awk -v re="$codenames" '
			function flush(   n, i, s, ok) {
				if (types ~ /(^|[ \t])deb([ \t]|$)/ && enabled !~ /^[ \t]*no/ &&
				    comps ~ /(^|[ \t])main([ \t]|$)/ && uris != "") {
					n = split(suites, s, /[ \t]+/); ok = 0
					for (i = 1; i <= n; i++) if (s[i] ~ re) ok = 1
					if (ok) { split(uris, s, /[ \t]+/); print s[1]; found = 1; exit }
				}
				types = suites = comps = uris = enabled = ""
			}
			/^#/ { next }
			/^[ \t]*$/ { flush(); next }
			/^[ \t]/ { if (last == "uris") uris = uris " " $0; next }
			{
				key = tolower($0); sub(/:.*/, "", key)
				val = $0; sub(/^[^:]*:[ \t]*/, "", val)
				last = key
				if (key == "types") types = val
				else if (key == "suites") suites = val
				else if (key == "components") comps = val
				else if (key == "uris") uris = val
				else if (key == "enabled") enabled = val
			}
			END { if (!found) flush() }' "$f")
		uri=${uri# }
		[ -n "$uri" ] && { echo "$uri"; return; }
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -r "$f" ] || continue
		# one-line format: deb [options] URI SUITE COMPONENT...
		uri=$(awk -v re="$codenames" '
			$1 != "deb" { next }
			{ i = 2
			  if ($i ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
			  u = $i; s = $(i + 1); m = 0
			  for (j = i + 2; j <= NF; j++) if ($j == "main") m = 1
			  if (s ~ re && m) { print u; exit } }' "$f")
		[ -n "$uri" ] && { echo "$uri"; return; }
	done
	die "no Debian mirror found in /etc/apt/sources.list{,.d/*}; set FTR_DEBIAN_MIRROR=URI"
}

# Make sure the system keyring can verify SUITE's Release file (see header).
ensure_keyring() { # SUITE
	[ -r "$KEYRING" ] || ensure_host_pkg "$KEYRING" debian-archive-keyring
	[ -e "/usr/share/keyrings/debian-archive-$1-automatic.gpg" ] && return 0
	note "the system keyring has no key for $1: upgrading debian-archive-keyring"
	[ "$(id -u)" = 0 ] || die "debian-archive-keyring lacks the $1 key; upgrade it (needs root)"
	{ apt-get update -q >&2 &&
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o DPkg::Lock::Timeout=600 debian-archive-keyring >&2; } ||
		die "could not upgrade debian-archive-keyring: is the network up?"
	[ -e "/usr/share/keyrings/debian-archive-$1-automatic.gpg" ] ||
		die "debian-archive-keyring still has no key for $1"
}

# Run apt-get/apt-cache on the private tree of SUITE and ARCH.
papt() { # SUITE ARCH apt-get|apt-cache ARGS...
	local suite=$1 arch=$2 tool=$3; shift 3
	"$tool" -c "$CACHE/apt/$suite-$arch/apt.conf" "$@"
}

# Set up SUITE-ARCH's private tree and fetch its package lists.  WHAT names
# the cached file we are after, for the error message.
private_update() { # SUITE ARCH WHAT
	local suite=$1 arch=$2
	ensure_keyring "$suite"
	setup_private_apt "$suite" "$arch"
	note "apt-get update ($suite $arch, private lists under $CACHE/apt/$suite-$arch)"
	# apt-get update may exit 0 after failing to reach the mirror ("Some
	# index files failed to download"), so also check that a Packages index
	# actually arrived.  Errors go to the terminal: they say what failed.
	if ! papt "$suite" "$arch" apt-get -q -o APT::Update::Error-Mode=any update >&2 ||
	   ! ls "$CACHE/apt/$suite-$arch/lists/"*_dists_"${suite}"_main_binary-"${arch}"_Packages* >/dev/null 2>&1; then
		die "cannot fetch the $suite $arch package lists (network unavailable?) and $3 is not cached"
	fi
}

# One private tree per suite and architecture: $CACHE/apt/SUITE-ARCH.
setup_private_apt() { # SUITE ARCH
	local suite=$1 arch=$2 d="$CACHE/apt/$1-$2" mirror
	mirror=$(debian_mirror)
	mkdir -p "$d/lists/partial" "$d/cache/archives/partial" "$d/state" "$d/etc"
	: >"$d/state/status"          # private, empty dpkg status
	cat >"$d/etc/debian.sources" <<-EOF
		Types: deb
		URIs: $mirror
		Suites: $suite
		Components: main
		Architectures: $arch
		Signed-By: $KEYRING
	EOF
	# Read after /etc/apt/apt.conf.d (via -c), so it wins.  The #clear lines
	# drop the system's update/dpkg hooks (PackageKit, AppStream refresh),
	# which would otherwise act on the *system's* state after our update.
	cat >"$d/apt.conf" <<-EOF
		#clear APT::Update::Pre-Invoke;
		#clear APT::Update::Post-Invoke;
		#clear APT::Update::Post-Invoke-Success;
		#clear DPkg::Pre-Invoke;
		#clear DPkg::Post-Invoke;
		Dir::Etc::SourceList "$d/etc/debian.sources";
		Dir::Etc::SourceParts "/dev/null";
		Dir::Etc::Preferences "/dev/null";
		Dir::Etc::PreferencesParts "/dev/null";
		Dir::State "$d/state";
		Dir::State::Lists "$d/lists";
		Dir::State::status "$d/state/status";
		Dir::Cache "$d/cache";
		Dir::Cache::pkgcache "";
		Dir::Cache::srcpkgcache "";
		APT::Architecture "$arch";
		APT::Architectures { "$arch"; };
		Acquire::Languages "none";
		Acquire::Retries "2";
		Acquire::http::Timeout "30";
		// the download directory is a root-only mktemp dir; do not switch
		// to the _apt user just to be refused access to it
		APT::Sandbox::User "root";
	EOF
}

fetch_kernel() { # KVER
	local kver=$1 suite arch flav meta dep pkg tmp img ver
	suite=$(suite_of "$kver")
	arch=$(arch_of "$kver")
	flav=$(flavour_of "$kver")
	private_update "$suite" "$arch" "$CACHE/vmlinuz-$kver"
	# linux-image-FLAVOUR is the metapackage; its Depends names the
	# current ABI's image package, e.g. linux-image-6.1.0-37-cloud-amd64.
	meta=$(papt "$suite" "$arch" apt-cache show --no-all-versions "linux-image-$flav") ||
		die "$suite: no linux-image-$flav in the lists"
	dep=$(printf '%s\n' "$meta" | sed -n 's/^Depends: //p' | tr ',|' '\n' |
		sed 's/^ *//; s/ .*//' | grep -E "^linux-image-[0-9].*-$flav(-unsigned)?\$" | head -n1)
	[ -n "$dep" ] || die "$suite: cannot resolve linux-image-$flav's image package"
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/ftr-fetch.XXXXXX")
	TMPDIRS+=("$tmp")
	# The signed image (the metapackage's choice) and the -unsigned one both
	# carry boot/vmlinuz-*; try the metapackage's first.
	for pkg in "$dep" "${dep%-unsigned}-unsigned"; do
		note "$kver: apt-get download $pkg"
		if ! (cd "$tmp" && papt "$suite" "$arch" apt-get -q download "$pkg" >&2); then
			# the metapackage's own dependency must exist: failing to get
			# it means the mirror is unreachable, not a missing twin
			[ "$pkg" = "$dep" ] && die "cannot download $pkg (network unavailable?)"
			continue
		fi
		mkdir -p "$tmp/x"
		dpkg-deb -x "$tmp"/"$pkg"_*.deb "$tmp/x"
		img=$(find "$tmp/x/boot" -name 'vmlinuz-*' 2>/dev/null | head -n1) || true
		[ -n "$img" ] && break
		rm -rf "$tmp/x" "$tmp"/*.deb
	done
	[ -n "${img:-}" ] || die "$suite: no boot/vmlinuz-* in $dep or its -unsigned twin"
	ver=$(dpkg-deb -f "$tmp"/"$pkg"_*.deb Version)
	case ${img##*/vmlinuz-} in
	"$(kver_base "$kver")".*) ;;
	*) die "$suite gave kernel ${img##*/vmlinuz-}, expected $(kver_base "$kver").*" ;;
	esac
	# Write under a temporary name, then rename: an interrupted fetch never
	# leaves a truncated image that a later run would take as cached.
	cp "$img" "$CACHE/vmlinuz-$kver.tmp"
	echo "${img##*/vmlinuz-} ($pkg $ver)" >"$CACHE/vmlinuz-$kver.version"
	mv "$CACHE/vmlinuz-$kver.tmp" "$CACHE/vmlinuz-$kver"
	[ $MODULES = 0 ] || keep_modules "$kver" "$tmp/x"
	rm -rf "$tmp"
	note "$kver: cached $CACHE/vmlinuz-$kver = $(cat "$CACHE/vmlinuz-$kver.version")"
}

# The package's lib/modules/RELEASE (usr/lib/... in trixie's merged /usr),
# moved whole to $CACHE/modules-KVER/RELEASE, tagged with the kernel's
# .version line: a later vmlinuz fetch makes it stale, and then it is
# fetched again with the image (modules_current).
keep_modules() { # KVER XDIR
	local d new=$CACHE/modules-$1.tmp
	d=$(find "$2/lib/modules" "$2/usr/lib/modules" -mindepth 1 -maxdepth 1 -type d 2>/dev/null |
		head -n1) || true
	[ -n "$d" ] || die "$1: no lib/modules/* in the image package"
	rm -rf "$new" && mkdir -p "$new"
	mv "$d" "$new/"
	cp "$CACHE/vmlinuz-$1.version" "$new/.version"
	rm -rf "$CACHE/modules-$1" && mv "$new" "$CACHE/modules-$1"
	note "$1: cached $CACHE/modules-$1/${d##*/} ($(du -sh "$CACHE/modules-$1" | cut -f1))"
}

modules_current() { # KVER
	[ -f "$CACHE/modules-$1/.version" ] &&
		cmp -s "$CACHE/modules-$1/.version" "$CACHE/vmlinuz-$1.version"
}

is_static_elf() { # FILE: an ELF with no program interpreter
	local h
	h=$(LC_ALL=C readelf -l "$1" 2>/dev/null) || return 1
	case $h in *"Requesting program interpreter"*) return 1 ;; esac
}

fetch_busybox() {
	local bb=/bin/busybox
	# busybox-static ships a static /bin/busybox; the plain "busybox"
	# package ships a dynamic one, useless inside an initramfs with no libc.
	if ! dpkg-query -W -f '${Status}' busybox-static 2>/dev/null | grep -q 'ok installed'; then
		[ "$(id -u)" = 0 ] || die "package busybox-static is not installed (needs root)"
		note "installing busybox-static"
		{ DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o DPkg::Lock::Timeout=600 busybox-static >&2 ||
		  { apt-get update -q >&2 &&
		    DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o DPkg::Lock::Timeout=600 busybox-static >&2; }; } ||
			die "could not install busybox-static: is the network up?"
	fi
	is_static_elf "$bb" || die "$bb is not a static binary"
	cp "$bb" "$CACHE/busybox.tmp" && mv "$CACHE/busybox.tmp" "$CACHE/busybox"
	note "cached $CACHE/busybox ($(dpkg-query -W -f '${Version}' busybox-static))"
}

# The guest userland of a foreign architecture: that architecture's
# busybox-static from bookworm (the host's own release), downloaded with the
# private apt tree and unpacked, never installed (it would replace the host's
# /bin/busybox).
fetch_busybox_foreign() { # ARCH
	local arch=$1 suite=bookworm tmp ver machine
	private_update "$suite" "$arch" "$CACHE/busybox-$arch"
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/ftr-fetch.XXXXXX")
	TMPDIRS+=("$tmp")
	note "apt-get download busybox-static ($suite $arch)"
	(cd "$tmp" && papt "$suite" "$arch" apt-get -q download busybox-static >&2) ||
		die "cannot download busybox-static:$arch (network unavailable?)"
	dpkg-deb -x "$tmp"/busybox-static_*.deb "$tmp/x"
	ver=$(dpkg-deb -f "$tmp"/busybox-static_*.deb Version)
	is_static_elf "$tmp/x/bin/busybox" || die "busybox-static:$arch has no static bin/busybox"
	machine=$(LC_ALL=C readelf -h "$tmp/x/bin/busybox" | sed -n 's/^ *Machine: *//p')
	case $arch:$machine in
	arm64:AArch64 | armhf:ARM) ;;
	*) die "busybox-static:$arch is for '$machine'" ;;
	esac
	cp "$tmp/x/bin/busybox" "$CACHE/busybox-$arch.tmp"
	echo "busybox-static:$arch $ver" >"$CACHE/busybox-$arch.version"
	mv "$CACHE/busybox-$arch.tmp" "$CACHE/busybox-$arch"
	rm -rf "$tmp"
	note "cached $CACHE/busybox-$arch ($ver)"
}

# Scratch directories (the .deb files, 60-100 MB each) go when we exit,
# however we exit.
TMPDIRS=()
# shellcheck disable=SC2317  # called by the EXIT trap
cleanup() { local d; for d in "${TMPDIRS[@]}"; do rm -rf "$d"; done; }
trap cleanup EXIT

main() {
	[ "${1:-}" = --modules ] && { MODULES=1; shift; }
	local kvers=("$@") k
	# --no-kernels: only busybox and the host tools (run.sh, when every
	# row's kernel is one build-kernel.sh makes)
	if [ "${1:-}" = --no-kernels ]; then
		kvers=()
	elif [ ${#kvers[@]} = 0 ]; then
		read -r -a kvers <<<"$ALL_KVERS"
	fi
	for k in "${kvers[@]}"; do suite_of "$k" >/dev/null; done
	mkdir -p "$CACHE" || die "cannot create $CACHE (set FTR_CACHE)"
	ensure_host_pkg /usr/bin/readelf binutils
	ensure_host_pkg /usr/bin/dpkg-deb dpkg
	ensure_host_pkg /usr/bin/cpio cpio
	ensure_host_pkg /usr/bin/qemu-system-x86_64 qemu-system-x86
	[ -x "$CACHE/busybox" ] || fetch_busybox
	for k in "${kvers[@]}"; do
		case $(arch_of "$k") in
		arm64) ensure_host_pkg /usr/bin/qemu-system-aarch64 qemu-system-arm
		       [ -x "$CACHE/busybox-arm64" ] || fetch_busybox_foreign arm64 ;;
		armhf) ensure_host_pkg /usr/bin/qemu-system-arm qemu-system-arm
		       [ -x "$CACHE/busybox-armhf" ] || fetch_busybox_foreign armhf ;;
		esac
	done
	for k in "${kvers[@]}"; do
		if [ ! -s "$CACHE/vmlinuz-$k" ] || { [ $MODULES = 1 ] && ! modules_current "$k"; }; then
			fetch_kernel "$k"
		fi
	done
	# The private lists (~20 MB a suite and architecture) are only needed
	# to resolve and download; a later fetch of a missing file updates them
	# anew.  (A failed fetch leaves them: the next attempt reuses them.)
	rm -rf "$CACHE/apt"
}

main "$@"; exit  # nothing after this line is read, even if the file changes
