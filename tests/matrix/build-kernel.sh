#!/bin/bash
# build-kernel.sh — build the matrix's own kernels, without BPF, once.
#
# Usage: tests/matrix/build-kernel.sh [-j N] KVER...
#        (KVER: 6.1-bpfless, 6.1-tiny, 6.1-bpfless-btf; default: 6.1-bpfless)
#
# Every other kernel of the matrix is a Debian distribution kernel, and all
# of them have BPF and BTF.  ftr is for the kernels that do not: these are
# built here from Debian's linux-source-6.1 package, configured as a small
# embedded vendor would, `make allnoconfig` (x86-64) plus a fragment in
# tests/matrix/kconfig/:
#
#   6.1-bpfless      bpfless.config: boot under qemu with the matrix's
#                    initramfs and serial ports, tracing (ftrace, kprobe and
#                    uprobe events, hist triggers, perf events) on;
#                    CONFIG_BPF_SYSCALL, CONFIG_DEBUG_INFO_BTF, CONFIG_MODULES
#                    off
#   6.1-tiny         bpfless.config + tiny.config: no kprobes, no hist
#                    triggers (tracepoints, uprobes and perf events only)
#   6.1-bpfless-btf  bpfless.config + btf.config: the same kernel with DWARF
#                    in its vmlinux, from which `pahole -J` (dwarves) makes
#                    a BTF file the kernel itself does not have, for ftr's
#                    --btf FILE
#
# The fragment is applied as KCONFIG_ALLCONFIG (later lines win), and every
# line of it is then checked in the final .config: Kconfig silently drops a
# symbol whose dependencies are off.
#
# Cache, in ${FTR_CACHE:-/var/cache/ftr-matrix} beside the fetched kernels:
#
#   vmlinuz-KVER           the bzImage run.sh boots
#   vmlinuz-KVER.version   "uname -r", source package, config, key, build time
#   vmlinuz-KVER.key       sha256 of the fragment, the source package's
#                          version and the compiler's: a run whose key is the
#                          same is a cache hit and touches neither apt nor the
#                          network
#   btf-KVER               (-btf only) the BTF file, `pahole -J` of vmlinux
#
# On a miss it installs what building needs (linux-source-6.1, flex, bison,
# bc, libelf-dev, libssl-dev; dwarves for -btf) with apt-get, unpacks the
# source under $FTR_CACHE/build (removed at the end: about 1.5 GB with the
# objects) and builds bzImage with make -jN (default: the number of CPUs).
# Two runs at once wait for each other (flock on $FTR_CACHE/build-kernel.lock).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
CACHE=${FTR_CACHE:-/var/cache/ftr-matrix}
SRCPKG=linux-source-6.1
TARBALL=/usr/src/$SRCPKG.tar.xz
JOBS=$(nproc)

die()  { echo "build-kernel: error: $*" >&2; exit 1; }
note() { echo "build-kernel: $*" >&2; }

# KVER -> its fragments, in the order applied.
fragments_of() {
	case $1 in
	6.1-bpfless)     echo bpfless ;;
	6.1-tiny)        echo bpfless tiny ;;
	6.1-bpfless-btf) echo bpfless btf ;;
	*) die "unknown kernel '$1' (6.1-bpfless, 6.1-tiny, 6.1-bpfless-btf)" ;;
	esac
}

# The fragments, merged: one line per symbol, the last one given wins.
merged_fragment() { # KVER
	local f files=()
	for f in $(fragments_of "$1"); do files+=("$HERE/kconfig/$f.config"); done
	awk '/^CONFIG_[A-Za-z0-9_]+=/ { s = $0; sub(/=.*/, "", s); v[s] = $0; if (!(s in o)) { o[s] = n++ } }
	     /^# CONFIG_[A-Za-z0-9_]+ is not set/ { s = $2; v[s] = $0; if (!(s in o)) { o[s] = n++ } }
	     END { for (s in o) k[o[s]] = s; for (i = 0; i < n; i++) print v[k[i]] }' "${files[@]}"
}

src_version() { dpkg-query -W -f '${Version}' "$SRCPKG" 2>/dev/null || true; }

key_of() { # KVER
	{ merged_fragment "$1"; echo "src $(src_version)"; gcc -dumpfullversion 2>/dev/null || true; } |
		sha256sum | cut -c1-16
}

cached() { # KVER: the image is there and was built from this key
	[ -s "$CACHE/vmlinuz-$1" ] && [ -f "$CACHE/vmlinuz-$1.key" ] &&
		[ "$(cat "$CACHE/vmlinuz-$1.key")" = "$(key_of "$1")" ] &&
		{ [[ $1 != *-btf ]] || [ -s "$CACHE/btf-$1" ]; }
}

ensure_pkgs() { # PKG...
	local p missing=()
	for p in "$@"; do
		# (one status line per installed architecture of a multiarch one)
		dpkg-query -W -f '${Status}\n' "$p" 2>/dev/null | grep -qx 'install ok installed' ||
			missing+=("$p")
	done
	[ ${#missing[@]} = 0 ] && return 0
	note "installing ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" \
		>/dev/null || die "apt-get install ${missing[*]} failed"
}

# Every line of the fragment must hold in .config.
check_config() { # KVER DOTCONFIG
	local line sym bad=0
	while IFS= read -r line; do
		case $line in
		CONFIG_*)  grep -qxF "$line" "$2" || { note "$1: wanted $line, got: $(grep -E "^(# )?${line%%=*}[= ]" "$2" || echo 'no such line')"; bad=1; } ;;
		"# CONFIG_"*)
			sym=${line#\# }; sym=${sym%% *}
			if grep -q "^$sym=" "$2"; then note "$1: wanted '$line', got: $(grep "^$sym=" "$2")"; bad=1; fi ;;
		esac
	done < <(merged_fragment "$1")
	[ $bad = 0 ] || die "$1: the configuration lacks what its fragment asks (dependencies off?)"
}

build_one() { # KVER
	local kver=$1 work src obj t0 t1 rel key
	key=$(key_of "$kver")
	work=$CACHE/build
	src=$work/$SRCPKG
	obj=$work/obj-$kver
	if [ ! -f "$src/Makefile" ]; then
		rm -rf "$src"
		mkdir -p "$work"
		note "unpacking $TARBALL ($SRCPKG $(src_version))"
		# Whole: Kconfig reads Documentation/Kconfig and the other
		# architectures' crypto/Kconfig files.
		tar -C "$work" -xJf "$TARBALL"
	fi
	rm -rf "$obj"
	mkdir -p "$obj"
	merged_fragment "$kver" >"$obj/fragment.config"
	t0=$(date +%s)
	# Reproducible names in the image: no user, host or date of this machine.
	local mk=(make -C "$src" O="$obj" ARCH=x86_64 KBUILD_BUILD_USER=ftr
	          KBUILD_BUILD_HOST=matrix KBUILD_BUILD_TIMESTAMP="$SRCPKG $(src_version)")
	"${mk[@]}" -s KCONFIG_ALLCONFIG="$obj/fragment.config" allnoconfig >"$obj/config.log" 2>&1 ||
		{ tail -n 20 "$obj/config.log" >&2; die "$kver: make allnoconfig failed"; }
	check_config "$kver" "$obj/.config"
	note "$kver: building bzImage (make -j$JOBS; log $obj/build.log)"
	"${mk[@]}" -j"$JOBS" bzImage >"$obj/build.log" 2>&1 ||
		{ tail -n 30 "$obj/build.log" >&2; die "$kver: make bzImage failed"; }
	t1=$(date +%s)
	rel=$(cat "$obj/include/config/kernel.release")
	if [[ $kver == *-btf ]]; then
		ensure_pkgs dwarves
		# A detached BTF file, as the kernel's own build would put in
		# vmlinux with CONFIG_DEBUG_INFO_BTF.
		pahole -J --btf_encode_detached="$CACHE/btf-$kver.tmp" "$obj/vmlinux" \
			>"$obj/pahole.log" 2>&1 ||
			{ tail -n 20 "$obj/pahole.log" >&2; die "$kver: pahole -J failed"; }
		mv "$CACHE/btf-$kver.tmp" "$CACHE/btf-$kver"
		note "$kver: BTF $CACHE/btf-$kver ($(stat -c %s "$CACHE/btf-$kver") bytes, pahole $(pahole --version), $(($(date +%s) - t1)) s)"
	fi
	cp "$obj/arch/x86/boot/bzImage" "$CACHE/vmlinuz-$kver.tmp"
	mv "$CACHE/vmlinuz-$kver.tmp" "$CACHE/vmlinuz-$kver"
	echo "$rel ($SRCPKG $(src_version), $(fragments_of "$kver" | tr ' ' +).config, key $key, built in $((t1 - t0)) s with -j$JOBS)" \
		>"$CACHE/vmlinuz-$kver.version"
	echo "$key" >"$CACHE/vmlinuz-$kver.key.tmp"
	mv "$CACHE/vmlinuz-$kver.key.tmp" "$CACHE/vmlinuz-$kver.key"
	note "$kver: $CACHE/vmlinuz-$kver, $(stat -c %s "$CACHE/vmlinuz-$kver") bytes, built in $((t1 - t0)) s"
	rm -rf "$obj"
}

main() {
	local kvers=() k todo=()
	while [ $# -gt 0 ]; do
		case $1 in
		-j)  JOBS=${2:?-j needs a number}; shift 2 ;;
		-j*) JOBS=${1#-j}; shift ;;
		-h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
		-*)  die "unknown option '$1'" ;;
		*)   kvers+=("$1"); shift ;;
		esac
	done
	[ ${#kvers[@]} -gt 0 ] || kvers=(6.1-bpfless)
	for k in "${kvers[@]}"; do fragments_of "$k" >/dev/null; done
	# A hit needs no lock (the image and its key are renamed into place):
	# a row whose kernel is cached does not wait for another one's build.
	for k in "${kvers[@]}"; do cached "$k" || todo+=("$k"); done
	[ ${#todo[@]} = 0 ] && return 0
	mkdir -p "$CACHE" || die "cannot create $CACHE (set FTR_CACHE)"
	exec 9>"$CACHE/build-kernel.lock"
	flock 9
	ensure_pkgs "$SRCPKG" flex bison bc libelf-dev libssl-dev make gcc xz-utils
	[ -f "$TARBALL" ] || die "$TARBALL is missing (package $SRCPKG)"
	# The key names the source version: read again now that it is there.
	for k in "${todo[@]}"; do cached "$k" || build_one "$k"; done
	rm -rf "$CACHE/build"
}

main "$@"; exit  # nothing after this line is read, even if the file changes
