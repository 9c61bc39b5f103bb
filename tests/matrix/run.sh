#!/bin/bash
# run.sh — run ftr's live tests on each kernel of the matrix, under qemu.
#
# Usage: tests/matrix/run.sh [--rows NAME,NAME...] [-j N] [--timeout SEC] [-k] [--list]
#
#   --rows     run only these rows (default: all; see --list)
#   -j N       boot up to N guests at once (default 2: one per host core)
#   --timeout  seconds one guest may run before it is killed and counted as a
#              failure (default 900, or $FTR_MATRIX_TIMEOUT; an arm64 guest
#              gets twice that, or $FTR_MATRIX_TIMEOUT_ARM64)
#   -k         keep the work directory (initramfs, serial logs) and say where
#   --list     print the rows and exit
#
# Environment: FTR_STATIC (default build/ftr-static), FTR_CACHE (default
# /var/cache/ftr-matrix, filled by fetch-kernels.sh, which this script calls
# first: it does nothing when the cache is complete), FTR_LIVE_DIR (default
# tests/live), FTR_TESTS_BIN (default build/tests-static); for the arm64 rows
# FTR_STATIC_ARM64 (default build/arm64/ftr-static) and FTR_TESTS_BIN_ARM64
# (default build/arm64/tests-static), from `make static helpers-static
# ARCH=arm64`.  FTR_MATRIX_TIMEOUT_ARM64 (default twice the timeout) bounds
# an arm64 guest, which, emulated on an x86 host, is the slowest.
# FTR_MATRIX_TCG_THREAD (default single) and FTR_MATRIX_APPEND (more kernel
# options) are for hunts: x86 guests run one-thread TCG, and
# FTR_MATRIX_TCG_THREAD=multi brings back the emulator race of issue #27
# (docs/kernel-safety.md).
# FTR_SYSROOT (default build/sysroot) and FTR_SYSROOT_ARM64 (default
# build/arm64/sysroot), from `make sysroot` (and ARCH=arm64): the dynamic
# build with its libraries, for the rows marked "sysroot" (see ROWS).
#
# For each row it boots the row's kernel with an initramfs holding busybox,
# /bin/ftr, /tests/live and /tests/bin, whose /init runs
# `sh /tests/live/run.sh` with FTR=/bin/ftr.  The guest writes that output,
# between ==FTR-BEGIN== and ==FTR-END rc=N== markers, to a serial port of its
# own (ttyS1 on x86, a PCI 16550 seen as ttyS0 on arm64), which is NOT the
# kernel console (ttyS0 on x86, ttyAMA0 on arm64): kernel messages,
# even with `quiet`, may be printed in the middle of a line on the console, and
# a dedicated port makes that impossible.  The console is logged too and its
# tail is shown when a guest does not report.
#
# Output: each guest line prefixed with "[ROW] ", then per row
#   matrix ROW: N passed, N failed, N skipped
# and last
#   matrix: N passed, N failed, N skipped
# Exit status: non-zero if any row had a failed test, a non-zero runner
# status, or did not report (timeout, panic, no END marker).
# shellcheck disable=SC2317  # arch_*, serial_*, cleanup are called by name
set -euo pipefail
# The whole script is one { ... } block, which bash parses completely before
# running any of it: a guest run takes minutes, and an edit to this file in
# the meantime (a shared working tree) must not change what is running.
{

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
CACHE=${FTR_CACHE:-/var/cache/ftr-matrix}
FTR_STATIC=${FTR_STATIC:-$REPO/build/ftr-static}
LIVE_DIR=${FTR_LIVE_DIR:-$REPO/tests/live}
TESTS_BIN=${FTR_TESTS_BIN:-$REPO/build/tests-static}
FTR_STATIC_ARM64=${FTR_STATIC_ARM64:-$REPO/build/arm64/ftr-static}
TESTS_BIN_ARM64=${FTR_TESTS_BIN_ARM64:-$REPO/build/arm64/tests-static}
FTR_STATIC_ARMHF=${FTR_STATIC_ARMHF:-$REPO/build/armhf/ftr-static}
TESTS_BIN_ARMHF=${FTR_TESTS_BIN_ARMHF:-$REPO/build/armhf/tests-static}
# Set by the caller, a sysroot must be there; by default, a missing one is
# said and its tests skip.
SYSROOT_X86_64=${FTR_SYSROOT:-$REPO/build/sysroot}
SYSROOT_AARCH64=${FTR_SYSROOT_ARM64:-$REPO/build/arm64/sysroot}
SYSROOT_MUST_x86_64=${FTR_SYSROOT:+1}
SYSROOT_MUST_aarch64=${FTR_SYSROOT_ARM64:+1}
TIMEOUT=${FTR_MATRIX_TIMEOUT:-900}
TIMEOUT_ARM64=${FTR_MATRIX_TIMEOUT_ARM64:-}
JOBS=2
KEEP=0
SELECT=
AHEAD='' AHEAD_STOP=''
# The console watch: what a kernel says when it is hurt.  Any of it on a
# guest's console, or in its kernel log at the end (the guest's /init sends
# those lines as "kmsg ..."), fails the row (matrix-kernel): a tracing run
# must never take a kernel down, nor make it warn.  No '\', '/' or '&' (sed
# puts it into /init); "panic=" (the command line) is not a panic.
KMSG_BAD='BUG:|Oops|WARNING:|[Pp]anic[^=]|general protection fault'
# ...but for one WARNING the kernel gives whatever the tracer: a mkdir of an
# instance that is SIGKILLed while the kernel allocates its ring buffer.
# __rb_allocate_pages gives up on a fatal signal, and trace_rb_cpu_prepare
# WARNs where it meets that as a failed allocation (6.1 and 6.12: a busybox
# `mkdir instances/x` killed by `kill -9` does it, no ftr involved; see
# docs/kernel-safety.md).  t-kill SIGKILLs ftr at random moments on purpose,
# and the kernel then returns ENOMEM and keeps nothing.  These lines are
# counted and shown, not failed on.
KMSG_KNOWN='WARNING: CPU: [0-9]+ PID: [0-9]+ at kernel.trace.ring_buffer.c:[0-9]+ trace_rb_cpu_prepare'

# ---------------------------------------------------------------------------
# The matrix.  A row is: NAME | ARCH | KERNEL | APPEND-EXTRA | TESTS | SYSROOT
#   KERNEL        selects the image $CACHE/vmlinuz-KERNEL (fetch-kernels.sh)
#   APPEND-EXTRA  added to the kernel command line
#   TESTS         the live files the row runs (names without t- and .sh,
#                 comma-separated); "-A,B": all but these; empty: all.
#                 $FTR_MATRIX_ALL=1 runs all of them on every row.
#   SYSROOT       "sysroot": the guest also gets the dynamic build, with
#                 its shared libraries and loader (`make sysroot`), in
#                 /tests/sysroot, and FTR_SYSROOT names it.  It holds
#                 libdw, which the static build has no room for: t-unwind
#                 runs its CFI unwinder's tests with it.  One row per
#                 architecture (5.10, the oldest x86 kernel, and arm64): it
#                 adds megabytes to the initramfs and the DWARF tests' time,
#                 and is copied only where a file the row runs uses it.
# Not every file on every row: the guests are emulated (no KVM) and the run
# must fit CI's 30 minutes.  The differential tests and the kill test, the
# longest, run where their plans differ (6.1, 6.12: hist triggers, eprobes),
# the lockdown rows what lockdown changes; see tests/matrix/README.md.
# ARCH selects a profile (arch_ARCH below) that supplies the qemu command,
# the console device, the guest's result port and the guest binaries.
# An arm64 KERNEL is named "VERSION-arm64" (fetch-kernels.sh).
# The armhf row (32-bit ARM, bookworm's armmp-lpae kernel) runs the files
# whose outcome a 32-bit word can change: trace (ring-buffer records, whose
# long and pointer fields are 4 bytes), agg and prom (sums and counts: ftr's
# sums are 64-bit there, not 128), lang (integer arithmetic, casts, printing),
# probe (ARM's argument registers, u32/s32 fetchargs, kprobes and uprobes),
# stat (64-bit perf counters read on a 32-bit CPU), plans (the kernel's
# pushdowns against user space with 4-byte longs), curtask (task_struct
# offsets), strfetch and record (syscall strings through sys_NAME's own
# argument registers), usdt (ARM's operands), and 00-mount and doctor.
# 219 s of tests, 184 passed (tests/matrix/README.md: what the other files
# hit on armhf).
ARMHF_TESTS=00-mount,doctor,trace,agg,lang,probe,stat,plans,prom,curtask,strfetch,record,usdt
# The kernels built here (build-kernel.sh, from Debian's linux-source-6.1,
# allnoconfig plus a fragment): 6.1-bpfless has no bpf() and no BTF,
# 6.1-tiny has neither kprobes nor hist triggers either.  They run the files
# whose outcome those absences change: doctor (it must say BPF is absent),
# types (kernel types refused, naming --btf), probe, plans and agg (kprobes
# and hist triggers absent: user-space plans), trace, stat and usdt
# (tracepoints, perf events, uprobes, which both have), 00-mount.
# bpfless-6.1 also runs latency: its fragment has irqsoff and the other
# latency tracers, which Debian's kernels lack (rt-6.1 has all but irqsoff
# and preemptoff).
BUILT_TESTS=00-mount,doctor,types,trace,agg,probe,stat,plans,usdt
# 6.1-tiny is the row without kprobe events but with the function tracer
# and function_graph (top level only in 6.1): kprobe clauses that read no
# argument run on the function tracer there, kretprobe clauses and the
# latency idiom on function_graph (--global-tracer), as do funccount,
# functrace, graph and funcslower (t-ftrace, issue #34).  In make check
# with that file alone (its kernel build is CI's cost); tiny-full-6.1, the
# same kernel, runs the files its absences change too.
TINY_TESTS=00-mount,doctor,ftrace
TINY_FULL_TESTS=$BUILT_TESTS,ftrace
# The old kernels (build-kernel.sh, from the trimmed stable trees of
# ../shared/kernels): what older-kernel users run, where bpftrace cannot
# follow.  Each runs the seed's S1 (stat), S3 and S4 (lang) and what an old
# kernel changes everywhere (00-mount, doctor, probe: arguments by register
# below 4.20, kprobe_events without dynamic_events, no error_log); then the
# files whose outcome that version's own gap changes: 4.4 (no hist triggers)
# the user-space plans (plans, agg) and the seed's S2 with kernel stacks
# walked by frame pointer (profile: FRAME_POINTER in old-4.4.config), 4.9
# the event stream (trace) and S2 by frame pointer too (profile), 4.14 the plans on hist triggers of 2 keys
# (plans) and S2 with ORC-unwound kernel stacks (profile), 4.19 (the last
# without $argN, the one with synthetic events) overlapping runs and
# cleanup (reset), the BTF refusal (types) and S2.  About two minutes each.
OLD_TESTS=00-mount,doctor,probe,stat,lang
# Debian's PREEMPT_RT kernel (bookworm's rt-amd64): the only Debian kernel
# with the osnoise, timerlat and hwlat tracers.  It runs what PREEMPT_RT or
# those tracers change: latency (the tracers), doctor (it lists them), and
# trace (events and sched_switch under a preemptible kernel).
RT_TESTS=00-mount,doctor,latency,trace
ROWS=(
	"5.10|x86_64|5.10||-diff,fuzz,kill|sysroot"
	"6.1|x86_64|6.1||"
	"6.12|x86_64|6.12||-kill"
	"6.1-lockdown-integrity|x86_64|6.1|lockdown=integrity|00-mount,lockdown,doctor,trace,probe,strfetch,types,record,script"
	"6.12-lockdown-confidentiality|x86_64|6.12|lockdown=confidentiality|00-mount,lockdown,doctor,usage,list,trace,harden,langprof,stat,profile"
	"arm64-6.1|aarch64|6.1-arm64||-diff,fuzz,kill|sysroot"
	"armhf-6.1|armhf|6.1-armhf||$ARMHF_TESTS"
	"bpfless-6.1|x86_64|6.1-bpfless||$BUILT_TESTS,latency"
	"rt-6.1|x86_64|6.1-rt||$RT_TESTS"
	"4.4|x86_64|4.4||$OLD_TESTS,plans,agg,profile"
	"4.9|x86_64|4.9||$OLD_TESTS,trace,profile"
	"4.14|x86_64|4.14||$OLD_TESTS,plans,profile"
	"4.19|x86_64|4.19||$OLD_TESTS,reset,types,profile"
	"tiny-6.1|x86_64|6.1-tiny||$TINY_TESTS"
)
# Rows run only when named (--rows; `make check-matrix-extra`): each needs
# a kernel build of its own (about 4 minutes on 2 cores, 7 with debug
# information), which CI's time does not have room for.  SYSROOT "btf": the
# guest also gets the BTF file `pahole -J` made from the kernel's vmlinux
# (build-kernel.sh), as /tests/kernel.btf, and FTR_KERNEL_BTF names it.
EXTRA_ROWS=(
	"tiny-full-6.1|x86_64|6.1-tiny||$TINY_FULL_TESTS"
	"bpfless-btf-6.1|x86_64|6.1-bpfless-btf||00-mount,doctor,types|btf"
	"4.19-btf|x86_64|4.19-btf||00-mount,doctor,types,curtask|btf"
)

# Arch profile arch_ARCH sets QEMU (array: the command without -kernel,
# -initrd, -append and serial ports), CONSOLE (the kernel's console device),
# OUTDEV (the guest's result port), BUSYBOX, FTR_BIN, TESTS_BIN_DIR,
# ELF_MACHINE (readelf -h's "Machine:" for the guest's binaries), ROW_TIMEOUT;
# and serial_ARCH CONSOLE_LOG RESULT_LOG sets SERIAL (array: qemu options
# that wire the console and the result port to those files).
arch_x86_64() {
	# -accel kvm does not work on this project's machines (the guest hangs
	# or dies with an emulation failure): TCG.  -nic none: the guest needs no
	# network and gets none.  -monitor none: no monitor on stdio.
	# thread=single: both vCPUs in one host thread.  With multi-threaded
	# TCG, the 6.12 guest sometimes dies with "Oops: int3" in __schedule
	# while tracepoints are switched on or off: x86 patches its jump labels
	# through a temporary int3 (text_poke_bp) and the other vCPU runs stale
	# translated code that still holds it.  That is an emulator race, not a
	# kernel one, and one-thread TCG does not have it (it is also issue
	# #27's panic, docs/kernel-safety.md).  FTR_MATRIX_TCG_THREAD=multi
	# brings it back, to check a QEMU said to fix it.
	QEMU=(qemu-system-x86_64 -accel "tcg,thread=${FTR_MATRIX_TCG_THREAD:-single}"
	      -cpu max -m 512 -smp 2 -nographic -monitor none -no-reboot -nic none)
	CONSOLE=ttyS0
	OUTDEV=ttyS1
	# no_timer_check: the kernel's boot-time check that the IO-APIC's timer
	# interrupt arrives (check_timer(), arch/x86/kernel/apic/io_apic.c)
	# waits a fixed number of delay-loop turns; an emulated CPU on a busy
	# host misses it and the guest panics "IO-APIC + timer doesn't work!"
	# before /init (seen once with two guests on a loaded host).  KVM guests
	# skip the check for the same reason (kvm_guest_init); so do these.
	ARCH_APPEND=no_timer_check
	BUSYBOX=$CACHE/busybox
	FTR_BIN=$FTR_STATIC
	TESTS_BIN_DIR=$TESTS_BIN
	ELF_MACHINE="Advanced Micro Devices X86-64"
	ROW_TIMEOUT=$TIMEOUT
	SYSROOT=$SYSROOT_X86_64
	SYSROOT_MUST=$SYSROOT_MUST_x86_64
}
# First -serial is ttyS0 (console), second ttyS1 (results).
serial_x86_64() { # CONSOLE_LOG RESULT_LOG
	SERIAL=(-serial "file:$1" -serial "file:$2")
}

arch_aarch64() {
	ARCH_APPEND=
	# TCG, as for x86 (the host is x86-64).  -cpu max keeps every feature
	# the kernel may use, pointer authentication included; but Debian's arm64
	# kernel signs the return address in every function, and QEMU's
	# architected PAC algorithm (QARMA) is very slow under TCG:
	# pauth-impdef=on swaps in QEMU's cheap one (same instructions, same
	# behaviour) and takes boot-to-/init from 11-16 s to about 5 s here.
	# shellcheck disable=SC2054  # the comma in -cpu's value is qemu's
	QEMU=(qemu-system-aarch64 -M virt -cpu max,pauth-impdef=on -m 1024 -smp 2
	      -nographic -monitor none -no-reboot -nic none)
	CONSOLE=ttyAMA0
	# virt has a single PL011 (the console).  A second port: a PCI 16550
	# (qemu's pci-serial), which the cloud kernel drives with built-in
	# 8250_pci and names ttyS0.  virtio-serial (hvc0) would need the
	# virtio_mmio and virtio_console modules, which this kernel has only as
	# modules and the initramfs does not carry.
	OUTDEV=ttyS0
	BUSYBOX=$CACHE/busybox-arm64
	FTR_BIN=$FTR_STATIC_ARM64
	TESTS_BIN_DIR=$TESTS_BIN_ARM64
	ELF_MACHINE=AArch64
	ROW_TIMEOUT=${TIMEOUT_ARM64:-$((TIMEOUT * 2))}
	SYSROOT=$SYSROOT_AARCH64
	SYSROOT_MUST=$SYSROOT_MUST_aarch64
}
serial_aarch64() { # CONSOLE_LOG RESULT_LOG
	SERIAL=(-serial "file:$1" -chardev "file,id=ftrout,path=$2"
	        -device "pci-serial,chardev=ftrout")
}

arch_armhf() {
	ARCH_APPEND=
	# 32-bit ARM: Debian's armmp-lpae kernel (ARMv7 with the Large Physical
	# Address Extension) on virt's Cortex-A15, the CPU that has it.  As on
	# arm64: the console on virt's PL011 (ttyAMA0) and the results on a PCI
	# 16550, driven by the kernel's built-in 8250_pci as ttyS0.
	QEMU=(qemu-system-arm -M virt -cpu cortex-a15 -m 1024 -smp 2
	      -nographic -monitor none -no-reboot -nic none)
	CONSOLE=ttyAMA0
	OUTDEV=ttyS0
	BUSYBOX=$CACHE/busybox-armhf
	FTR_BIN=$FTR_STATIC_ARMHF
	TESTS_BIN_DIR=$TESTS_BIN_ARMHF
	ELF_MACHINE=ARM
	ROW_TIMEOUT=${TIMEOUT_ARM64:-$((TIMEOUT * 2))}
	SYSROOT=
	SYSROOT_MUST=
}
serial_armhf() { serial_aarch64 "$@"; }

# ---------------------------------------------------------------------------
die()  { echo "matrix: error: $*" >&2; exit 2; }
note() { echo "matrix: $*" >&2; }

usage() { sed -n '2,/^# shellcheck/{/^# shellcheck/d;s/^# \{0,1\}//;p}' "$0"; }

while [ $# -gt 0 ]; do
	case $1 in
	--rows)     SELECT=${2:?--rows needs a list}; shift 2 ;;
	--rows=*)   SELECT=${1#--rows=}; shift ;;
	-j)         JOBS=${2:?-j needs a number}; shift 2 ;;
	-j*)        JOBS=${1#-j}; shift ;;
	--timeout)  TIMEOUT=${2:?--timeout needs seconds}; shift 2 ;;
	-k|--keep)  KEEP=1; shift ;;
	--build-ahead) AHEAD=${2:?--build-ahead needs a directory}; shift 2 ;;
	--build-ahead-stop) AHEAD_STOP=${2:?--build-ahead-stop needs a directory}; shift 2 ;;
	--list)     for r in "${ROWS[@]}" "${EXTRA_ROWS[@]}"; do IFS='|' read -r n a k x t y <<<"$r"
	                printf '%-32s %-7s vmlinuz-%-10s %s%s%s\n' "$n" "$a" "$k" "$x" \
	                       "${t:+ (tests: $t)}" "${y:+ +$y}"; done
	            exit 0 ;;
	-h|--help)  usage; exit 0 ;;
	*)          usage >&2; exit 2 ;;
	esac
done
[[ $JOBS =~ ^[1-9][0-9]*$ ]] || die "-j wants a positive number"
[[ $TIMEOUT =~ ^[1-9][0-9]*$ ]] || die "--timeout wants seconds"
[[ -z $TIMEOUT_ARM64 || $TIMEOUT_ARM64 =~ ^[1-9][0-9]*$ ]] ||
	die "FTR_MATRIX_TIMEOUT_ARM64 wants seconds"

# Select rows, in matrix order; an unknown name is an error, not a silent skip.
SEL=()
if [ -n "$SELECT" ]; then
	IFS=, read -r -a want <<<"$SELECT"
	for w in "${want[@]}"; do
		found=0
		for r in "${ROWS[@]}" "${EXTRA_ROWS[@]}"; do [ "${r%%|*}" = "$w" ] && found=1; done
		[ $found = 1 ] || die "unknown row '$w' (see --list)"
	done
	for r in "${ROWS[@]}" "${EXTRA_ROWS[@]}"; do
		for w in "${want[@]}"; do [ "${r%%|*}" = "$w" ] && SEL+=("$r"); done
	done
else
	SEL=("${ROWS[@]}")
fi

# The rows' kernels: Debian's (fetch-kernels.sh) and those built here
# (build-kernel.sh, which names them), each once, in matrix order.
kernels=() built=()
HERE_BUILT=" $("$HERE/build-kernel.sh" --kernels) "
for r in "${SEL[@]}"; do
	IFS='|' read -r _ _ k _ <<<"$r"
	if [[ $HERE_BUILT == *" $k "* ]]; then
		[[ " ${built[*]} " == *" $k "* ]] || built+=("$k")
	else
		[[ " ${kernels[*]} " == *" $k "* ]] || kernels+=("$k")
	fi
done

# --build-ahead DIR: start building, in the background, the kernels the
# selected rows need and the cache lacks, and return at once.  `make check`
# does it first, so that the builds (minutes each on a fresh machine) run
# while the host's own tests do, instead of one after another in front of
# the matrix.  The build runs in a session of its own, at the lowest CPU
# and I/O priority (nice 19, ionice idle): it takes what the tests leave
# of the CPUs, and a test's process, woken, has the CPU back at once.
# DIR/matrix-build.pid and DIR/matrix-build.log; --build-ahead-stop DIR
# ends it (make check, when a phase before the matrix fails).  The matrix
# itself then waits for each kernel (build-kernel.sh's lock) as it needs it.
if [ -n "$AHEAD_STOP" ]; then
	pf=$AHEAD_STOP/matrix-build.pid
	if [ -f "$pf" ]; then
		p=$(cat "$pf")
		# (its own session and process group, whose id is that pid)
		if [[ $p =~ ^[0-9]+$ ]] && kill -0 -- "-$p" 2>/dev/null; then
			note "stopping the kernel builds started ahead (pid $p)"
			kill -TERM -- "-$p" 2>/dev/null || true
		fi
		rm -f "$pf"
	fi
	exit 0
fi
if [ -n "$AHEAD" ]; then
	[ ${#built[@]} -gt 0 ] || exit 0
	mkdir -p "$AHEAD" "$CACHE" 2>/dev/null && [ -w "$CACHE" ] ||
		{ note "cannot write $CACHE: no kernel built ahead"; exit 0; }
	command -v setsid >/dev/null || { note "no setsid: no kernel built ahead"; exit 0; }
	# (setsid from a non-leader execs in place: $! is the session's id)
	FTR_CACHE=$CACHE setsid nice -n 19 ionice -c 3 "$HERE/build-kernel.sh" "${built[@]}" \
		</dev/null >"$AHEAD/matrix-build.log" 2>&1 &
	echo $! >"$AHEAD/matrix-build.pid"
	note "kernels ${built[*]}: built ahead in the background where not cached (pid $!, log $AHEAD/matrix-build.log)"
	exit 0
fi

# ---------------------------------------------------------------------------
# Preconditions, checked before any guest boots.
is_static_elf() { # FILE: an ELF with no program interpreter
	local h
	h=$(LC_ALL=C readelf -l "$1" 2>/dev/null) || return 1
	case $h in *"Requesting program interpreter"*) return 1 ;; esac
}

elf_machine() { LC_ALL=C readelf -h "$1" 2>/dev/null | sed -n 's/^ *Machine: *//p'; }

command -v readelf >/dev/null || die "readelf is missing (package binutils)"
[ -f "$LIVE_DIR/run.sh" ] || die "$LIVE_DIR/run.sh is missing (or set FTR_LIVE_DIR)"
# Each arch's ftr and helpers: there, static, and built for that arch (an x86
# helper in an arm64 guest would make its tests skip or fail for no reason
# that has to do with ftr).
checked=" "
for r in "${SEL[@]}"; do
	IFS='|' read -r _ arch _ _ <<<"$r"
	[[ $checked == *" $arch "* ]] && continue
	checked+="$arch "
	"arch_$arch"
	case $arch in
	x86_64)  how="make static (or set FTR_STATIC)" ;;
	aarch64) how="make static ARCH=arm64 (or set FTR_STATIC_ARM64)" ;;
	armhf)   how="make static ARCH=armhf (or set FTR_STATIC_ARMHF)" ;;
	esac
	[ -f "$FTR_BIN" ] || die "$FTR_BIN is missing: run '$how'"
	is_static_elf "$FTR_BIN" || die "$FTR_BIN is not a static ELF: the guest has no libc"
	[ "$(elf_machine "$FTR_BIN")" = "$ELF_MACHINE" ] ||
		die "$FTR_BIN is for '$(elf_machine "$FTR_BIN")', the $arch rows need $ELF_MACHINE"
	if [ -d "$TESTS_BIN_DIR" ]; then
		for f in "$TESTS_BIN_DIR"/*; do
			[ -f "$f" ] || continue
			{ is_static_elf "$f" && [ "$(elf_machine "$f")" = "$ELF_MACHINE" ]; } ||
				die "$f is not a static $ELF_MACHINE ELF (the $arch guests' /tests/bin)"
		done
	fi
done

# row_sysroot ROW-SPEC: the row is marked for the sysroot and runs a live
# file that uses it (names FTR_SYSROOT): only then is it copied in.
row_sysroot() {
	local tests sr f n
	IFS='|' read -r _ _ _ _ tests sr <<<"$1"
	[ "$sr" = sysroot ] || return 1
	[ "${FTR_MATRIX_ALL:-0}" = 1 ] && tests=
	for f in "$LIVE_DIR"/t-*.sh; do
		[ -f "$f" ] || continue
		n=${f##*/t-}; n=${n%.sh}
		case $tests in
		"") ;;
		-*) [[ ,${tests#-}, == *",$n,"* ]] && continue ;;
		*)  [[ ,$tests, == *",$n,"* ]] || continue ;;
		esac
		grep -q FTR_SYSROOT "$f" && return 0
	done
	return 1
}
# Each arch's sysroot, where a selected row needs it: there and for that
# arch (its ftr's ELF machine), else an error if the caller named it, or a
# note (the DWARF tests then skip in that row, saying why).
declare -A HAVE_SYSROOT
for r in "${SEL[@]}"; do
	row_sysroot "$r" || continue
	IFS='|' read -r name arch _ <<<"$r"
	[ -n "${HAVE_SYSROOT[$arch]:-}" ] && continue
	"arch_$arch"
	HAVE_SYSROOT[$arch]=0
	how="make sysroot"; [ "$arch" = aarch64 ] && how="make sysroot ARCH=arm64"
	if [ -f "$SYSROOT/TRIPLET" ] && [ -f "$SYSROOT/prog/ftr" ]; then
		[ "$(elf_machine "$SYSROOT/prog/ftr")" = "$ELF_MACHINE" ] ||
			die "$SYSROOT/prog/ftr is for '$(elf_machine "$SYSROOT/prog/ftr")', the $arch rows need $ELF_MACHINE"
		HAVE_SYSROOT[$arch]=1
	elif [ -n "$SYSROOT_MUST" ]; then
		die "$SYSROOT is not a sysroot: run '$how'"
	else
		note "no $SYSROOT ('$how'): the DWARF unwinding tests skip in $name"
	fi
done
# The initramfs a row boots: its arch's, with the sysroot or without.
row_initrd_key() { # ROW-SPEC
	local arch kernel sr
	IFS='|' read -r _ arch kernel _ _ sr <<<"$1"
	if [ "$sr" = btf ]; then
		echo "$arch-btf-$kernel"
	elif [ "${HAVE_SYSROOT[$arch]:-0}" = 1 ] && row_sysroot "$1"; then
		echo "$arch-sysroot"
	else
		echo "$arch"
	fi
}

# Fills the cache and installs missing host tools; a no-op when all is there.
FTR_CACHE=$CACHE "$HERE/fetch-kernels.sh" "${kernels[@]:---no-kernels}" ||
	die "kernel cache incomplete (see above)"
for t in cpio gzip timeout; do
	command -v $t >/dev/null || die "$t is missing"
done
for r in "${SEL[@]}"; do
	IFS='|' read -r _ arch _ _ <<<"$r"
	"arch_$arch"
	command -v "${QEMU[0]}" >/dev/null || die "${QEMU[0]} is missing"
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/ftr-matrix.XXXXXX")
cleanup() {
	# a killed run must not leave guests behind
	local p
	for p in "$WORK"/row*/pid; do
		if [ -f "$p" ]; then kill "$(cat "$p")" 2>/dev/null || true; fi
	done
	# nor a kernel build (its own session: make and the compilers too)
	if [ -n "${BUILDER:-}" ] && kill -0 "$BUILDER" 2>/dev/null; then
		kill -TERM -- "-$BUILDER" 2>/dev/null || true
	fi
	wait 2>/dev/null || true
	if [ "$KEEP" = 1 ]; then note "work directory kept: $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The kernels built here: minutes each on a fresh machine, then a cache
# hit.  They are built in the background, one after another, while the
# rows whose kernels are there (Debian's, and those cached) boot: each row
# boots as soon as build-kernel.sh says its kernel is ready
# ($WORK/ready/KVER; KVER.failed fails the row).  A build started ahead
# (--build-ahead, make check) holds build-kernel.sh's lock for the kernel
# it builds: this one waits for it, then finds the kernel cached.
READY=$WORK/ready
mkdir -p "$READY"
BUILDER=
if [ ${#built[@]} -gt 0 ]; then
	FTR_CACHE=$CACHE setsid "$HERE/build-kernel.sh" --ready-dir "$READY" "${built[@]}" </dev/null &
	BUILDER=$!
fi
# A row's kernel: 0 ready, 1 not yet, 2 its build failed.
kernel_state() { # KVER
	[[ " ${built[*]} " == *" $1 "* ]] || return 0
	[ -e "$READY/$1" ] && return 0
	[ -e "$READY/$1.failed" ] && return 2
	# the builder ended without a word on it (killed)
	{ [ -n "$BUILDER" ] && kill -0 "$BUILDER" 2>/dev/null; } || return 2
	return 1
}

# ---------------------------------------------------------------------------
# The guest's /init.  Runs as PID 1 under busybox sh.  busybox ash waits for
# its foreground job with waitpid(-1), so orphans reparented to PID 1 are
# reaped while the tests run (no zombie stays "alive" for kill -0).
write_init() { # DEST
	cat >"$1" <<'EOF'
#!/bin/sh
export PATH=/tests/bin:/bin:/sbin:/usr/bin:/usr/sbin HOME=/root TERM=dumb TMPDIR=/tmp
# A throwaway machine: tests may set what would endanger a real one
# (t-doctor's kernel.panic_on_warn).
export FTR_DISPOSABLE=1
# Applet symlinks are made on the host when its busybox runs there; for a
# foreign arch (arm64) they are made here, first, after /proc (busybox
# --install reads /proc/self/exe to know where it lives).
if [ ! -e /bin/ls ]; then
	/bin/busybox mount -t proc proc /proc
	/bin/busybox --install -s
else
	mount -t proc proc /proc
fi
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
# Not tracefs (nor debugfs, which automounts it on old kernels): ftr must
# find and mount it itself.
up=$(cut -d' ' -f1 /proc/uptime)

# ftr.out=DEV on the kernel command line names the result port;
# ftr.tests=A,B the live files to run (default: all).
out=console tests=
for a in $(cat /proc/cmdline); do
	case $a in
	ftr.out=*) out=${a#ftr.out=} ;;
	ftr.tests=*) tests=$(echo "${a#ftr.tests=}" | tr , ' ') ;;
	esac
done
case $tests in
-*)	# all but these
	all=
	for f in /tests/live/t-*.sh; do
		n=${f##*/t-}; n=${n%.sh}
		case " ${tests#-} " in *" $n "*) ;; *) all="$all $n" ;; esac
	done
	tests=$all ;;
esac
[ -c /dev/$out ] || out=console
# no \n -> \r\n, no echo of input.  A port whose device is absent (ttyS0
# with no UART behind it) fails here: say so where the host will look.
stty -F /dev/$out raw -echo 2>/dev/null ||
	echo "init: result port /dev/$out is unusable; see /proc/tty/driver" >/dev/console

KMSG_BAD='@KMSG_BAD@'
KMSG_KNOWN='@KMSG_KNOWN@'
{
	echo "==FTR-BEGIN=="
	echo "# kernel $(uname -r), boot-to-init ${up}s, cmdline: $(cat /proc/cmdline)"
	cd /tmp
	[ -n "$tests" ] && echo "# this row runs: $tests"
	# The dynamic build, for the files that use it (t-unwind).
	# The BTF made on the host from this kernel's vmlinux (t-types).
	if [ -f /tests/kernel.btf ]; then
		export FTR_KERNEL_BTF=/tests/kernel.btf
		echo "# kernel BTF in $FTR_KERNEL_BTF, made on the host with pahole -J"
	fi
	if [ -f /tests/sysroot/TRIPLET ]; then
		export FTR_SYSROOT=/tests/sysroot
		echo "# dynamic build in $FTR_SYSROOT ($(cat $FTR_SYSROOT/TRIPLET))"
	fi
	# shellcheck disable=SC2086  # one word per test
	FTR=/bin/ftr sh /tests/live/run.sh $tests </dev/null
	rc=$?
	# What the kernel said of itself while the tests ran: the host fails
	# the row on any of it (its console watch).  `quiet` keeps WARNINGs
	# (KERN_WARNING) off the console, so the log is read here.
	dmesg 2>/dev/null | grep -E "$KMSG_BAD" | grep -vE "$KMSG_KNOWN" | head -n 20 | sed 's/^/kmsg /'
	# The known one (KMSG_KNOWN, above): a few, for the host to count.
	dmesg 2>/dev/null | grep -E "$KMSG_KNOWN" | head -n 5 | sed 's/^/kmsg /'
	echo "# guest uptime at end $(cut -d' ' -f1 /proc/uptime)s"
	echo "==FTR-END rc=$rc=="
} >/dev/$out 2>&1
# The last close of the tty above waits until its output is sent; then off.
sync
poweroff -f
EOF
	chmod 755 "$1"
}

# Build ARCH's gzip'd newc initramfs once (rows of one arch share it).
build_initramfs() { # KEY (ARCH or ARCH-sysroot) -> prints path
	local arch=${1%-sysroot} root="$WORK/root-$1" img="$WORK/initramfs-$1.cpio.gz" a btf=
	case $1 in *-btf-*) arch=${1%%-btf-*}; btf=$CACHE/btf-${1#*-btf-} ;; esac
	[ -f "$img" ] && { echo "$img"; return; }
	"arch_$arch"
	is_static_elf "$BUSYBOX" || die "$BUSYBOX is not a static ELF"
	mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,etc,proc,sys,dev,tmp,root,run,tests/bin}
	chmod 1777 "$root/tmp"
	install -m 755 "$BUSYBOX" "$root/bin/busybox"
	install -m 755 "$FTR_BIN" "$root/bin/ftr"
	# One symlink per applet, at the path busybox itself would install it.
	# (Needs a busybox that runs on the host; for a foreign arch, or should
	# this fail, /init's `busybox --install -s` does it at boot.)
	if "$BUSYBOX" --list-full >"$WORK/applets-$arch" 2>/dev/null; then
		while read -r a; do
			[ -e "$root/$a" ] || ln -s /bin/busybox "$root/$a"
		done <"$WORK/applets-$arch"
	fi
	ln -sf busybox "$root/bin/sh"
	cp -R "$LIVE_DIR" "$root/tests/live"
	# ftr's library (recipes and named filters) where the static ftr, built
	# with the default PREFIX, looks for it: as `make install` puts it.
	mkdir -p "$root/usr/local/share/ftr"
	for lib in events filters; do
		[ -d "$REPO/$lib" ] && cp -R "$REPO/$lib" "$root/usr/local/share/ftr/$lib"
	done
	if [ -d "$TESTS_BIN_DIR" ]; then
		cp -R "$TESTS_BIN_DIR"/. "$root/tests/bin/"
	fi
	[ "$1" = "$arch-sysroot" ] && cp -R "$SYSROOT" "$root/tests/sysroot"
	if [ -n "$btf" ]; then
		[ -s "$btf" ] || die "$btf is missing (tests/matrix/build-kernel.sh ${btf#*/btf-})"
		cp "$btf" "$root/tests/kernel.btf"
	fi
	printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' >"$root/etc/passwd"
	printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
	write_init "$root/init"
	sed -i "s/@KMSG_BAD@/$KMSG_BAD/; s/@KMSG_KNOWN@/$KMSG_KNOWN/" "$root/init"
	# The kernel opens /dev/console before /init runs; its built-in
	# initramfs has the node, but ship one too (mknod needs root).
	mknod -m 600 "$root/dev/console" c 5 1 2>/dev/null || true
	(cd "$root" && find . -print | LC_ALL=C sort |
		cpio -o -H newc -R 0:0 --quiet) | gzip -1 >"$img"
	echo "$img"
}

# Boot one row; leaves ROWDIR/{console.log,result.log,qemu.log,status,wall}.
boot_row() { # ROW-SPEC ROWDIR INITRD
	local name arch kernel extra dir=$2 initrd=$3 t0 rc
	local tests
	IFS='|' read -r name arch kernel extra tests _ <<<"$1"
	"arch_$arch"
	mkdir -p "$dir"
	[ "${FTR_MATRIX_ALL:-0}" = 1 ] && tests=
	local append="console=$CONSOLE quiet panic=-1 ftr.out=$OUTDEV${ARCH_APPEND:+ $ARCH_APPEND}${extra:+ $extra}${tests:+ ftr.tests=$tests}"
	# FTR_MATRIX_APPEND: more kernel options, for a hunt (loglevel=7 shows
	# the soft-lockup reports that quiet keeps off the console)
	append+=${FTR_MATRIX_APPEND:+ $FTR_MATRIX_APPEND}
	"serial_$arch" "$dir/console.log" "$dir/result.log"
	local cmd=("${QEMU[@]}" "${SERIAL[@]}" -kernel "$CACHE/vmlinuz-$kernel" -initrd "$initrd" -append "$append")
	printf '%q ' "${cmd[@]}" >"$dir/cmdline"
	t0=$(date +%s.%N)
	rc=0
	# GNU timeout puts itself in its own process group, so a ^C on our
	# terminal does not reach it: remember its pid for cleanup().  It
	# passes a TERM on to qemu.
	echo "$ROW_TIMEOUT" >"$dir/timeout"
	timeout -k 10 "$ROW_TIMEOUT" "${cmd[@]}" </dev/null >"$dir/qemu.log" 2>&1 &
	echo $! >"$dir/pid"
	wait $! || rc=$?
	rm -f "$dir/pid"
	awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f\n", b - a }' >"$dir/wall"
	echo "$rc" >"$dir/status"
}

# "NAME ftr|trace-cmd|run N WHAT": read the guest's file on the host, count.
# Prints an ok/not ok/skip line; returns 0 for ok.
host_check() { # ROWDIR LINE K
	local file tool n what got test
	read -r file tool n what <<<"$2"
	test="record-host-$3-$tool-${file%.dat}"
	if [ ! -f "$1/files/$file" ]; then
		if [ -f "$1/files/$file.gz.b64" ]; then
			base64 -d <"$1/files/$file.gz.b64" | gunzip >"$1/files/$file" 2>/dev/null
		else
			base64 -d <"$1/files/$file.b64" >"$1/files/$file" 2>/dev/null
		fi
	fi
	case $tool in
	ftr)       [ -x "${FTR_HOST:-}" ] || { echo "skip $test: no dynamic ftr (FTR_HOST)"; return 1; }
	           got=$("$FTR_HOST" report "$1/files/$file" 2>&1 | grep -cE -- "$what") ;;
	trace-cmd) command -v trace-cmd >/dev/null || { echo "skip $test: no trace-cmd"; return 1; }
	           got=$(trace-cmd report "$1/files/$file" 2>&1 | grep -cE -- "$what") ;;
	run)       [ -x "${FTR_HOST:-}" ] || { echo "skip $test: no dynamic ftr (FTR_HOST)"; return 1; }
	           got=$("$FTR_HOST" run -i "$1/files/$file" "$what" 2>&1 | grep -c "^@\[writer\]: $n\$")
	           [ "$got" = 1 ] && got=$n ;;
	esac
	if [ "$got" = "$n" ]; then
		echo "ok $test ($n: $what)"
	else
		echo "not ok $test: $got lines, want $n: $what"
		return 1
	fi
}

# Report one row from its logs; prints lines, returns counts via globals.
report_row() { # ROW-SPEC ROWDIR
	local name arch kernel dir=$2 qrc wall p=0 f=0 s=0 endrc='' why=''
	IFS='|' read -r name arch kernel _ <<<"$1"
	qrc=$(cat "$dir/status" 2>/dev/null || echo 255)
	wall=$(cat "$dir/wall" 2>/dev/null || echo "?")
	# Only what lies between the markers counts; \r from any tty post-
	# processing is dropped.  A missing END means the guest did not report.
	local body
	body=$(tr -d '\r' <"$dir/result.log" 2>/dev/null | awk '
		/^==FTR-BEGIN==$/ { on = 1; next }
		/^==FTR-END rc=[0-9]+==$/ { if (on) { sub(/^==FTR-END rc=/, ""); sub(/==$/, "");
		                                      print "\001END " $0; exit } }
		on { print }') || true
	# "file NAME data|gzdata B64" and "file NAME expect ..." lines (t-record.sh):
	# the file and what the host should find in it, to files/.
	mkdir -p "$dir/files"
	awk -v d="$dir/files" '$1 == "file" && $3 == "data" { print $4 > (d "/" $2 ".b64") }
		$1 == "file" && $3 == "gzdata" { print $4 > (d "/" $2 ".gz.b64") }
		$1 == "file" && $3 == "expect" { n = $2; sub(/^file [^ ]* expect /, "");
		                                 print n " " $0 > (d "/" n ".expect") }' <<<"$body"
	while IFS= read -r line; do
		case $line in
		$'\001END '*) endrc=${line#$'\001END '}; continue ;;
		"ok "*)       p=$((p + 1)) ;;
		"not ok "*)   f=$((f + 1)); FAILS+=("[$name] $line") ;;
		"skip "*)     s=$((s + 1)) ;;
		"file "*)     continue ;;
		"kmsg "*)     KMSG+=("${line#kmsg }") ;;
		esac
		printf '[%s] %s\n' "$name" "$line"
	done <<<"$body"
	# Files the guest sent out (t-record.sh): read here, by the dynamic
	# ftr and trace-cmd, with the counts the guest expects.
	# The console watch (KMSG_BAD): the guest's kernel log as it sent it,
	# then its console, which also holds what a dying kernel printed.
	local bad known
	bad=$( { printf '%s\n' "${KMSG[@]}"
	         tr -d '\r' <"$dir/console.log" 2>/dev/null |
	         sed 's/\x1b\[[0-9;?]*[A-Za-z]//g; s/\x1bc//g'; } |
	       grep -E -- "$KMSG_BAD") || true
	known=$(grep -cE -- "$KMSG_KNOWN" <<<"$bad") || true
	bad=$(grep -vE -- "$KMSG_KNOWN" <<<"$bad" | head -n 8) || true
	KMSG=()
	[ "$known" -gt 0 ] && printf '[%s] # %s\n' "$name" \
		"the kernel's WARNING of a SIGKILLed instance creation, $known line(s) (KMSG_KNOWN)"
	if [ -f "$dir/nokernel" ]; then
		:  # not booted: the row fails below
	elif [ -n "$bad" ]; then
		f=$((f + 1))
		line="not ok matrix-kernel: the kernel complained: $(head -n 1 <<<"$bad")"
		FAILS+=("[$name] $line")
		printf '[%s] %s\n' "$name" "$line"
		awk -v p="[$name] #   " '{ print p $0 }' <<<"$bad"
	else
		p=$((p + 1))
		printf '[%s] ok matrix-kernel: no BUG, Oops, WARNING or panic from the kernel\n' "$name"
	fi
	local chk k=0
	for chk in "$dir"/files/*.expect; do
		[ -e "$chk" ] || continue
		while IFS= read -r line; do
			k=$((k + 1))
			if line=$(host_check "$dir" "$line" "$k"); then
				p=$((p + 1))
			elif [ "${line#skip }" != "$line" ]; then
				s=$((s + 1))
			else
				f=$((f + 1))
				FAILS+=("[$name] $line")
			fi
			printf '[%s] %s\n' "$name" "$line"
		done <"$chk"
	done
	if [ -f "$dir/nokernel" ]; then
		why=$(cat "$dir/nokernel")
	elif [ -z "$endrc" ]; then
		if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
			why="did not report: killed after $(cat "$dir/timeout" 2>/dev/null || echo "$TIMEOUT")s"
		else
			why="did not report: qemu exited with status $qrc"
		fi
	elif [ "$endrc" != 0 ] && [ $f = 0 ]; then
		why="live runner exited with status $endrc but reported no failure"
	elif [ $((p + f + s)) = 0 ]; then
		why="live runner ran no test"
	fi
	if [ -n "$why" ]; then
		f=$((f + 1))
		FAILS+=("[$name] not ok matrix-row: $why")
		printf '[%s] not ok matrix-row: %s\n' "$name" "$why"
		# The console log starts with SeaBIOS's terminal escapes and may
		# lack a final newline: strip the escapes, let awk end each line.
		printf '[%s] # last console lines:\n' "$name"
		tr -d '\r' <"$dir/console.log" 2>/dev/null |
			sed 's/\x1b\[[0-9;?]*[A-Za-z]//g; s/\x1bc//g' | grep -v '^$' |
			tail -n 15 | awk -v p="[$name] #   " '{ print p $0 }' || true
		grep -v '^$' "$dir/qemu.log" 2>/dev/null | tail -n 5 |
			awk -v p="[$name] # qemu: " '{ print p $0 }' || true
	fi
	printf '[%s] # wall %ss, %s vmlinuz-%s = %s\n' "$name" "$wall" "$arch" "$kernel" \
		"$(cat "$CACHE/vmlinuz-$kernel.version" 2>/dev/null || echo '?')"
	printf 'matrix %s: %d passed, %d failed, %d skipped\n' "$name" $p $f $s
	TP=$((TP + p)) TF=$((TF + f)) TS=$((TS + s))
	[ $f = 0 ]
}

# ---------------------------------------------------------------------------
T0=$(date +%s)
# Build the initramfs of every arch involved before starting guests (a build
# error should stop us before any boot); a row with a kernel's BTF file gets
# its own when that kernel is built.
declare -A INITRD
for r in "${SEL[@]}"; do
	key=$(row_initrd_key "$r")
	[[ $key == *-btf-* ]] && continue
	[ -n "${INITRD[$key]:-}" ] || INITRD[$key]=$(build_initramfs "$key")
done

# Boot the rows, at most JOBS at a time; each writes only to its own dir.
# The emulated-arm64 rows are the longest (about 1.5 times the x86 6.1 row):
# they start first, so that the x86 rows fill the other slot meanwhile
# instead of the arm64 row running alone at the end.  A row whose kernel
# is still being built waits, and the next ready row takes its turn.
order=()
for i in "${!SEL[@]}"; do [[ ${SEL[$i]} == *"|aarch64|"* || ${SEL[$i]} == *"|armhf|"* ]] && order+=("$i"); done
for i in "${!SEL[@]}"; do [[ ${SEL[$i]} == *"|aarch64|"* || ${SEL[$i]} == *"|armhf|"* ]] || order+=("$i"); done
GUESTS=()
running_guests() { # -> the pids of the guests still running
	local p
	for p in "${GUESTS[@]}"; do kill -0 "$p" 2>/dev/null && echo "$p"; done
	return 0
}
waiting=0
while [ ${#order[@]} -gt 0 ]; do
	rest=() started=0
	for i in "${order[@]}"; do
		r=${SEL[$i]}
		IFS='|' read -r name arch kernel _ <<<"$r"
		st=0
		kernel_state "$kernel" || st=$?
		if [ $st = 2 ]; then
			mkdir -p "$WORK/row$i"
			echo "vmlinuz-$kernel was not built (build-kernel.sh's lines above)" >"$WORK/row$i/nokernel"
			continue
		fi
		if [ $st = 1 ] || [ "$(running_guests | wc -l)" -ge "$JOBS" ]; then
			rest+=("$i")
			continue
		fi
		key=$(row_initrd_key "$r")
		[ -n "${INITRD[$key]:-}" ] || INITRD[$key]=$(build_initramfs "$key")
		note "booting $name"
		boot_row "$r" "$WORK/row$i" "${INITRD[$key]}" &
		GUESTS+=($!)
		started=1
	done
	order=("${rest[@]}")
	[ ${#order[@]} -gt 0 ] || break
	[ $started = 1 ] && continue
	mapfile -t live < <(running_guests)
	if [ ${#live[@]} -ge "$JOBS" ]; then
		wait -n "${live[@]}" 2>/dev/null || true
	else
		# free slots, and the rows left wait for their kernels: poll the
		# builder's ready files (a kernel takes minutes)
		# (said once, after a first poll: a cached kernel is ready at once)
		[ $waiting != 1 ] || note "waiting for the kernels of: $(for i in "${order[@]}"; do printf '%s ' "${SEL[$i]%%|*}"; done)"
		waiting=$((waiting + 1))
		sleep 2
	fi
done
[ ${#GUESTS[@]} = 0 ] || wait "${GUESTS[@]}" 2>/dev/null || true
if [ -n "$BUILDER" ]; then wait "$BUILDER" 2>/dev/null || true; fi

# Report in matrix order.
TP=0 TF=0 TS=0 bad=0 i=0 FAILS=() KMSG=()
for r in "${SEL[@]}"; do
	report_row "$r" "$WORK/row$i" || bad=1
	i=$((i + 1))
done
note "${#SEL[@]} rows in $(( $(date +%s) - T0 ))s"
# The failures again, last: a CI log may keep only its tail.
if [ ${#FAILS[@]} -gt 0 ]; then
	note "failed:"
	printf '%s\n' "${FAILS[@]:0:30}" | cut -c1-400
fi
echo "matrix: $TP passed, $TF failed, $TS skipped"
exit $bad
}
