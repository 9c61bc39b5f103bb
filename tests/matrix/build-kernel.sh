#!/bin/bash
# build-kernel.sh — build the matrix's own kernels, without BPF, once.
#
# Usage: tests/matrix/build-kernel.sh [-j N] [--ready-dir DIR] KVER...
#        tests/matrix/build-kernel.sh --kernels
#        (KVER: 6.1-bpfless, 6.1-tiny, 6.1-bpfless-btf, 4.4, 4.9, 4.14, 4.19,
#        4.19-btf; default: 6.1-bpfless; --kernels prints them)
#
#   --ready-dir DIR   touch DIR/KVER as soon as KVER is in the cache (or
#                     DIR/KVER.failed when its build failed): run.sh boots
#                     each row as its kernel is ready, while the next builds
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
# The old kernels, 4.4, 4.9, 4.14 and 4.19, are what older-kernel users run
# (Ubuntu 16.04 and CIP, Debian 9, Amazon Linux 2 and Android, Debian 10);
# Debian serves none of them.  They are built from the trimmed stable trees
# in ../shared/kernels (beside the clone, or $FTR_OLD_KERNELS): the
# tarball linux-VERSION.N-trimmed.tar.xz, its folder's patches/ (upstream
# build fixes for gcc 12 and binutils 2.40), and kconfig/old.config plus
# old-VERSION.config, applied as that folder's mkconfig.sh applies its
# fragment (allnoconfig, scripts/config, olddefconfig twice: the trimmed
# trees hold the files of that configuration).  4.19-btf is 4.19 with
# DWARF in vmlinux (old-btf.config), for a BTF file made by pahole -J.
#
# Cache, in ${FTR_CACHE:-/var/cache/ftr-matrix} beside the fetched kernels:
#
#   vmlinuz-KVER           the bzImage run.sh boots
#   vmlinuz-KVER.version   "uname -r", source package, config, key, build time
#   vmlinuz-KVER.key       sha256 of the fragment, the source package's
#                          version (an old kernel's: its tarball's and
#                          patches' sha256) and the compiler's: a run whose
#                          key is the same is a cache hit and touches neither
#                          apt nor the network
#   btf-KVER               (-btf only) the BTF file, `pahole -J` of vmlinux
#
# On a miss it installs what building needs (linux-source-6.1, flex, bison,
# bc, libelf-dev, libssl-dev; dwarves for -btf) with apt-get, unpacks the
# source under $FTR_CACHE/build (removed at the end: about 1.5 GB with the
# objects) and builds bzImage with make -jN (default: the number of CPUs).
# Two runs at once wait for each other (flock on $FTR_CACHE/build-kernel.lock,
# taken for one kernel at a time); a failed kernel does not stop the next.
# Exit status 1 if any kernel was not built.
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
	4.4|4.9|4.14|4.19) echo old "old-$1" ;;
	4.19-btf)        echo old old-4.19 old-btf ;;
	*) die "unknown kernel '$1' (6.1-bpfless, 6.1-tiny, 6.1-bpfless-btf, 4.4, 4.9, 4.14, 4.19, 4.19-btf)" ;;
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

is_old() { [[ $1 == 4.* ]]; }

# The old kernels' trees: ../shared/kernels beside the clone (or beside the
# main worktree of a linked one), or $FTR_OLD_KERNELS.
old_dir() {
	local top d
	if [ -n "${FTR_OLD_KERNELS:-}" ]; then echo "$FTR_OLD_KERNELS"; return; fi
	for top in "$(git -C "$HERE" rev-parse --show-toplevel 2>/dev/null)" \
		   "$(dirname "$(git -C "$HERE" rev-parse --path-format=absolute --git-common-dir 2>/dev/null)")" \
		   "$HERE/../.."; do
		d=$(dirname "$top")/shared/kernels
		[ -n "$top" ] && [ -d "$d" ] && { (cd "$d" && pwd); return; }
	done
	echo "$HERE/../../../shared/kernels"
}

old_tarball() { # KVER (4.19-btf: 4.19's)
	local v=${1%-btf} f
	for f in "$(old_dir)"/linux-"$v".[0-9]*-trimmed.tar.xz; do
		[ -f "$f" ] && { echo "$f"; return; }
	done
	die "no linux-$v.N-trimmed.tar.xz in $(old_dir) (set FTR_OLD_KERNELS)"
}

old_source_key() { # KVER: what the build reads besides the fragment
	local t
	t=$(old_tarball "$1")
	sha256sum "$t" | cut -c1-64
	# (4.9 has no patches: the key of no bytes)
	{ cat "${t%-trimmed.tar.xz}"/patches/*.patch 2>/dev/null || true; } | sha256sum | cut -c1-64
}

key_of() { # KVER
	{ merged_fragment "$1"
	  if is_old "$1"; then old_source_key "$1"; else echo "src $(src_version)"; fi
	  gcc -dumpfullversion 2>/dev/null || true; } |
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
	# (waiting for dpkg's lock, which another run's apt-get may hold)
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
		-o DPkg::Lock::Timeout=600 "${missing[@]}" \
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

# The fragment as scripts/config options, for the old trees.
fragment_options() { # KVER
	merged_fragment "$1" | sed -E 's/^CONFIG_([A-Za-z0-9_]+)=y$/--enable \1/;
		s/^CONFIG_([A-Za-z0-9_]+)=m$/--module \1/;
		s/^# CONFIG_([A-Za-z0-9_]+) is not set$/--disable \1/;
		s/^CONFIG_([A-Za-z0-9_]+)=(.*)$/--set-val \1 \2/'
}

# DWARF in vmlinux -> a detached BTF file, as the kernel's own build would
# put in vmlinux with CONFIG_DEBUG_INFO_BTF.
make_btf() { # KVER VMLINUX LOGDIR
	ensure_pkgs dwarves
	pahole -J --btf_encode_detached="$CACHE/btf-$1.tmp" "$2" >"$3/pahole.log" 2>&1 ||
		{ tail -n 20 "$3/pahole.log" >&2; die "$1: pahole -J failed"; }
	mv "$CACHE/btf-$1.tmp" "$CACHE/btf-$1"
	note "$1: BTF $CACHE/btf-$1 ($(stat -c %s "$CACHE/btf-$1") bytes, pahole $(pahole --version))"
}

# Into the cache: the image, its .version line, then its key (last: the key
# makes it a hit).
install_image() { # KVER BZIMAGE VERSION-LINE
	cp "$2" "$CACHE/vmlinuz-$1.tmp"
	mv "$CACHE/vmlinuz-$1.tmp" "$CACHE/vmlinuz-$1"
	echo "$3" >"$CACHE/vmlinuz-$1.version"
	key_of "$1" >"$CACHE/vmlinuz-$1.key.tmp"
	mv "$CACHE/vmlinuz-$1.key.tmp" "$CACHE/vmlinuz-$1.key"
}

# make bzImage (with the caller's mk command), the BTF file of a -btf
# kernel, then into the cache.
make_install() { # KVER OBJ T0 SOURCE-WORDS
	local kver=$1 obj=$2 t0=$3 t1 rel
	note "$kver: building bzImage (${mk[0]} make -j$JOBS; log $obj/build.log)"
	"${mk[@]}" -j"$JOBS" bzImage >"$obj/build.log" 2>&1 ||
		{ tail -n 30 "$obj/build.log" >&2; die "$kver: make bzImage failed"; }
	t1=$(date +%s)
	rel=$(cat "$obj/include/config/kernel.release")
	[[ $kver == *-btf ]] && make_btf "$kver" "$obj/vmlinux" "$obj"
	install_image "$kver" "$obj/arch/x86/boot/bzImage" \
		"$rel ($4, $(fragments_of "$kver" | tr ' ' +).config, key $(key_of "$kver"), built in $((t1 - t0)) s with -j$JOBS)"
	note "$kver: $CACHE/vmlinuz-$kver, $(stat -c %s "$CACHE/vmlinuz-$kver") bytes, built in $((t1 - t0)) s"
}

build_old() { # KVER
	local kver=$1 tarball base src obj t0 p opts pass
	tarball=$(old_tarball "$kver")
	base=$(basename "$tarball" -trimmed.tar.xz)
	src=$CACHE/build/$base
	obj=$CACHE/build/obj-$kver
	rm -rf "$src" "$obj"
	mkdir -p "$CACHE/build" "$obj"
	t0=$(date +%s)
	note "$kver: unpacking $(basename "$tarball"), applying $(ls "${tarball%-trimmed.tar.xz}"/patches/*.patch 2>/dev/null | wc -l) patch(es)"
	tar -C "$CACHE/build" -xJf "$tarball"
	for p in "${tarball%-trimmed.tar.xz}"/patches/*.patch; do
		[ -f "$p" ] || continue
		patch -s -d "$src" -p1 <"$p" || die "$kver: $(basename "$p") does not apply"
	done
	merged_fragment "$kver" >"$obj/fragment.config"
	local mk=(nice make -C "$src" O="$obj" ARCH=x86_64 KBUILD_BUILD_USER=ftr
	          KBUILD_BUILD_HOST=matrix KBUILD_BUILD_TIMESTAMP="$base")
	"${mk[@]}" -s allnoconfig >"$obj/config.log" 2>&1 ||
		{ tail -n 20 "$obj/config.log" >&2; die "$kver: make allnoconfig failed"; }
	mapfile -t opts < <(fragment_options "$kver" | tr ' ' '\n')
	# Twice: a line whose dependencies only the first olddefconfig made
	# visible holds after the second (mkconfig.sh does the same).
	for pass in 1 2; do
		"$src/scripts/config" --file "$obj/.config" "${opts[@]}"
		"${mk[@]}" -s olddefconfig >>"$obj/config.log" 2>&1 ||
			{ tail -n 20 "$obj/config.log" >&2; die "$kver: make olddefconfig failed"; }
	done
	check_config "$kver" "$obj/.config"
	make_install "$kver" "$obj" "$t0" "$(basename "$tarball") + patches"
	rm -rf "$obj" "$src"
}

build_one() { # KVER
	local kver=$1 work src obj t0
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
	local mk=(nice make -C "$src" O="$obj" ARCH=x86_64 KBUILD_BUILD_USER=ftr
	          KBUILD_BUILD_HOST=matrix KBUILD_BUILD_TIMESTAMP="$SRCPKG $(src_version)")
	"${mk[@]}" -s KCONFIG_ALLCONFIG="$obj/fragment.config" allnoconfig >"$obj/config.log" 2>&1 ||
		{ tail -n 20 "$obj/config.log" >&2; die "$kver: make allnoconfig failed"; }
	check_config "$kver" "$obj/.config"
	make_install "$kver" "$obj" "$t0" "$SRCPKG $(src_version)"
	rm -rf "$obj"
}

# One kernel, under the lock: another run may have built it meanwhile.
build_locked() { # KVER (the lock held)
	local k=$1
	# (4.19's and 6.1's kconfig generate their parsers with flex and bison;
	# objtool links libelf; patch applies the old trees' fixes)
	ensure_pkgs flex bison bc libelf-dev libssl-dev make gcc xz-utils patch
	if ! is_old "$k"; then
		ensure_pkgs "$SRCPKG"
		[ -f "$TARBALL" ] || die "$TARBALL is missing (package $SRCPKG)"
	fi
	# The key names the source version: read again now that it is there.
	if ! cached "$k"; then
		if is_old "$k"; then build_old "$k"; else build_one "$k"; fi
	fi
	# The 6.1 source stays unpacked for this run's next 6.1 kernel.
	[ "${MORE_61:-0}" = 1 ] || rm -rf "$CACHE/build"
}

main() {
	local kvers=() k todo=() rc=0 ready='' i j r
	while [ $# -gt 0 ]; do
		case $1 in
		-j)  JOBS=${2:?-j needs a number}; shift 2 ;;
		-j*) JOBS=${1#-j}; shift ;;
		--ready-dir) ready=${2:?--ready-dir needs a directory}; shift 2 ;;
		--kernels) echo "6.1-bpfless 6.1-tiny 6.1-bpfless-btf 4.4 4.9 4.14 4.19 4.19-btf"; exit 0 ;;
		-h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
		-*)  die "unknown option '$1'" ;;
		*)   kvers+=("$1"); shift ;;
		esac
	done
	[ ${#kvers[@]} -gt 0 ] || kvers=(6.1-bpfless)
	for k in "${kvers[@]}"; do fragments_of "$k" >/dev/null; done
	[ -z "$ready" ] || mkdir -p "$ready"
	# A hit needs no lock (the image and its key are renamed into place):
	# a row whose kernel is cached does not wait for another one's build.
	for k in "${kvers[@]}"; do
		if cached "$k"; then
			[ -z "$ready" ] || touch "$ready/$k"
		else
			todo+=("$k")
		fi
	done
	[ ${#todo[@]} = 0 ] && return 0
	mkdir -p "$CACHE" || die "cannot create $CACHE (set FTR_CACHE)"
	exec 9>"$CACHE/build-kernel.lock"
	# The lock is taken per kernel, not for the whole list: a run that
	# waits for one kernel (run.sh, booting each row as its kernel is
	# ready) gets it when that one is built, not when another run's whole
	# list is.  A failed kernel does not stop the others: each is built in
	# a subshell, whose die ends it alone.
	for i in "${!todo[@]}"; do
		k=${todo[$i]}
		MORE_61=0
		if ! is_old "$k"; then
			for j in "${todo[@]:$((i + 1))}"; do is_old "$j" || MORE_61=1; done
		fi
		# Waiting for the lock, which another run may hold for another
		# kernel for minutes: this one may be cached meanwhile (that run
		# built it), and is then ready without the lock.
		r=0
		until flock -w 10 9; do
			cached "$k" && { r=hit; break; }
		done
		if [ "$r" = hit ]; then
			r=0
		else
			set +e
			(set -e; MORE_61=$MORE_61 build_locked "$k")
			r=$?
			set -e
			flock -u 9
		fi
		if [ $r = 0 ]; then
			[ -z "$ready" ] || touch "$ready/$k"
		else
			rc=1
			note "$k: not built"
			[ -z "$ready" ] || touch "$ready/$k.failed"
		fi
	done
	return $rc
}

main "$@"; exit  # nothing after this line is read, even if the file changes
