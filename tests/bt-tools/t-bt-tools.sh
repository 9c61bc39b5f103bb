# bpftrace's own tools (Debian 12's bpftrace 0.17.0, 38 .bt files), run
# UNCHANGED by ftr, each for a few seconds under a workload that triggers
# it.  Copied by tests/bt-tools/run.sh as $LIVE_DIR/bt/tools.sh, with the
# tools in $LIVE_DIR/bt/ and its settings in $LIVE_DIR/bt/config, and run
# in parts (t-bt-tools-N.sh sets BT_PART=N of BT_PARTS: every BT_PARTS-th
# tool), so that a guest that times out still reports the parts it ran.
#
# One line per tool, with the seconds it took:
#   ok bt-NAME: runs, output as expected (Ns)
#   skip bt-NAME: REFUSES (Ns): <ftr's message>  (a kernel function, module,
#                                               library or program is missing)
#   skip bt-NAME: WRONG OUTPUT (Ns, ...): ...    (ran; the output lacks what
#                                               bpftrace prints for the workload)
#   skip bt-NAME: FAILS (Ns): <ftr's message>    (a syntax or semantic error)
# and `ok bt-tools-part-N` with the part's counts.  run.sh checks the
# thresholds (--min-pass, --max-fail) over all parts, per kernel.
. "$LIVE_DIR/lib.sh"
BT=$LIVE_DIR/bt
BT_SECS=2
BT_ONLY=
BT_KERNEL_BTF=1
[ -f "$BT/config" ] && . "$BT/config"
if [ ! -d "$BT" ] || [ -z "$(ls "$BT"/*.bt 2>/dev/null)" ]; then
	skip bt-tools "no tools in $BT (tests/bt-tools/run.sh copies them)"
	exit 0
fi
require_tracing bt-tools
# A kernel without BTF of its own (before 5.2) whose types were made on the
# host with pahole -J (the matrix's -btf rows: FTR_KERNEL_BTF): the tools
# get them as a user of such a kernel gives them, unchanged, through
# FTR_VMLINUX_BTF.
# (run.sh --no-kernel-btf: not given, as a user without the file)
if [ -n "${FTR_KERNEL_BTF:-}" ] && [ ! -e /sys/kernel/btf/vmlinux ] && [ "$BT_KERNEL_BTF" = 1 ]; then
	export FTR_VMLINUX_BTF="$FTR_KERNEL_BTF"
	echo "# kernel types from $FTR_KERNEL_BTF (FTR_VMLINUX_BTF)"
fi

# A guest lacks bash and libc: run.sh brought this machine's (sysroot/);
# only missing files are added, so a host is left as it is.
if [ -d "$BT/sysroot" ] && [ "$(cat "$BT/sysroot.arch" 2>/dev/null)" = "$(uname -m)" ]; then
	(cd "$BT/sysroot" && find . -type f) | while read -r f; do
		f=${f#.}
		[ -e "$f" ] || { mkdir -p "${f%/*}" && cp "$BT/sysroot$f" "$f"; }
	done
fi

# A real machine's storage, for xfsdist, mdflush and swapin, in a guest
# only: run.sh brought this kernel's modules in bt/modules/RELEASE (never
# the host's release, whose kernel and disks are left alone) and an XFS
# image.  zram disks, as the guest has no other: zram0 swap, zram1 and
# zram2 a raid1 md0, zram3 the XFS mounted on $BT_XFS.  Each tool sets up
# what it needs just before it runs (its time is the tool's).
MODS=$BT/modules/$(uname -r)
BT_XFS=/tmp/bt-xfs BT_SWAPCG=/sys/fs/cgroup/bt-swap
kload() { # NAME [PARAM=VALUE]: insmod NAME after what it depends on
	grep -q "^$(echo "$1" | tr - _) " /proc/modules && return 0
	[ -f "$MODS/$1.ko" ] || return 1
	for dep in $(cat "$MODS/$1.dep"); do kload "$dep" || return 1; done
	insmod "$MODS/$1.ko" ${2:+"$2"}
}
zram_disk() { # N SIZE
	[ -b /dev/zram0 ] || { kload zram num_devices=4 && { kload lzo-rle || true; }; } || return 1
	echo "$2" > "/sys/block/zram$1/disksize"
}
bt_env() { # TOOL
	[ -d "$MODS" ] && [ ! -e "/tmp/bt-env-$1" ] || return 0
	: > "/tmp/bt-env-$1"
	case $1 in
	xfsdist)
		# run.sh's image: its blocks that are not zeros, by block number
		{ [ -d "$BT/xfs" ] || { echo "no XFS image (run.sh: mkfs.xfs, xfsprogs)"; false; }; } &&
			kload xfs && zram_disk 3 32M &&
			( for f in "$BT"/xfs/*; do
				dd if="$f" of=/dev/zram3 bs=4k seek="${f##*/}" conv=notrunc || exit 1
			  done ) && mkdir -p $BT_XFS && mount -t xfs /dev/zram3 $BT_XFS ;;
	mdflush)
		# No mdadm: an array without superblocks, through md's sysfs.
		kload raid1 && zram_disk 1 8M && zram_disk 2 8M &&
			echo md0 > /sys/module/md_mod/parameters/new_array &&
			( cd /sys/block/md0/md && echo none > metadata_version &&
			  echo raid1 > level && echo 2 > raid_disks &&
			  cat /sys/block/zram1/dev > new_dev && cat /sys/block/zram2/dev > new_dev &&
			  echo 0 > dev-zram1/slot && echo 1 > dev-zram2/slot &&
			  echo 8192 > dev-zram1/size && echo 8192 > dev-zram2/size &&
			  echo 8192 > component_size && echo none > resync_start &&
			  echo active > array_state ) ;;
	swapin)
		# Swapped out by a memory cgroup's reclaim, no memory pressure.
		zram_disk 0 16M && mkswap /dev/zram0 > /dev/null && swapon /dev/zram0 &&
			{ grep -q '^cgroup2 /sys/fs/cgroup ' /proc/mounts ||
			  mount -t cgroup2 cgroup2 /sys/fs/cgroup; } &&
			echo +memory > /sys/fs/cgroup/cgroup.subtree_control && mkdir -p $BT_SWAPCG ;;
	esac > "$TMP/env" 2>&1 || BT_ENVERR="set-up failed: $(tr '\n' ' ' < "$TMP/env" | cut -c1-120)"
}
xfs_io_once() { # open, write, fsync and read(2) a file on the XFS (not
	# cat: busybox's uses sendfile, which 6.12 serves without read_iter)
	[ -d $BT_XFS ] || return 0
	dd if=/dev/zero of=$BT_XFS/f bs=4k count=4 conv=fsync && dd if=$BT_XFS/f of=/dev/null bs=4k
}
md_flush_once() { # a write and the flush of its fsync on md0
	[ -b /dev/md0 ] && dd if=/dev/zero of=/dev/md0 bs=4k count=1 conv=fsync
}
swap_once() { # 4 MB of tmpfs swapped out by memory.reclaim, then read by cat
	[ -d $BT_SWAPCG ] || return 0
	sh -c "echo \$\$ > $BT_SWAPCG/cgroup.procs && dd if=/dev/zero of=/dev/shm/bt-swap bs=64k count=64"
	# (EAGAIN when less than 8M could go: not an error.)  Before 5.19,
	# no memory.reclaim: a 1 MB limit swaps the rest out.
	if [ -e $BT_SWAPCG/memory.reclaim ]; then
		echo 8M > $BT_SWAPCG/memory.reclaim
	else
		echo 1M > $BT_SWAPCG/memory.max
	fi
	sh -c "echo \$\$ > $BT_SWAPCG/cgroup.procs && cat /dev/shm/bt-swap > /dev/null"
	echo max > $BT_SWAPCG/memory.max
	rm -f /dev/shm/bt-swap
}

# Busybox's applets, also on a host whose own tools differ (nc, stat).
if command -v busybox >/dev/null 2>&1; then BB=busybox; else BB=; fi
busybox ifconfig lo 127.0.0.1 up 2>/dev/null || ip link set lo up 2>/dev/null

tcp_once() { # a listener on 127.0.0.1:7777 and one connection to it
	$BB nc -l -p 7777 > /dev/null 2>&1 &
	l=$!
	sleep 0.3
	echo hello | $BB nc 127.0.0.1 7777 > /dev/null 2>&1 &
	c=$!
	sleep 0.5
	kill $c $l 2>/dev/null
	wait $c $l 2>/dev/null
}

# tcpdrop: tcp_once's drops (NO_SOCKET: the client's late segment after
# the listener is gone) are real, but on loopback the dropped skb owns no
# socket (skb->sk is NULL), so bpftrace prints its header only, reading 0
# through the NULL sk; ftr reads 0 there too (typed.c guard()).  Seen in
# the 6.1 and 6.12 guests: reasons 1-3, every sk NULL.
# NAME | WORKLOAD (sh) | what the output must hold (grep -E)
TABLE='bashreadline|true|Tracing bash commands
biolatency|sync|Tracing block device I/O
biosnoop|sync|TIME\(ms\) +DISK +COMM
biostacks|sync|Tracing block I/O with init stacks
bitesize|sync|Tracing block device I/O
capable|asuser 65534 true|asuser +[0-9]+ +CAP_SET[UG]ID
cpuwalk|hotpath 500|^@cpu:
dcsnoop|ls /etc /proc/self/ > /dev/null|[0-9]+ +ls +[RM] 
execsnoop|writer 1|^[0-9]+ +[0-9]+ +writer 1$
gethostlatency|getent hosts localhost > /dev/null|getent
killsnoop|sleep 30 & p=$!; kill $p; wait $p|15 +[0-9]+ +0$
loads|sleep 1|load averages: [0-9]+\.[0-9]{3}
mdflush|md_flush_once|^[0-9]{2}:[0-9]{2}:[0-9]{2} +[0-9]+ +dd +md0$
naptime|timers 3 0 0 nanosleep|^[0-9]{2}:[0-9]{2}:[0-9]{2} +[0-9]+ +[^ ]+ +[0-9]+ +timers +0\.000$
oomkill|true|Tracing oom_kill_process
opensnoop|opener 3 /etc/passwd|opener +[0-9]+ +0 /etc/passwd
pidpersec|for i in 1 2 3 4 5; do /bin/sh -c true; done; sleep 1.2|PIDs/sec: @: [1-9]
runqlat|hotpath 300 & hotpath 300; wait $!|^@usecs:
runqlen|hotpath 300|^@runqlen:
setuids|asuser 65534 true|set(res)?uid +.*65534
ssllatency|true|Tracing SSL/TLS handshake
sslsnoop|true|Tracing SSL/TLS handshake
statsnoop|$BB stat -f / > /dev/null|(stat|busybox) +0 /$
swapin|swap_once|^@\[cat, [0-9]+\]: [1-9]
syncsnoop|sync|sync +tracepoint:syscalls:sys_enter_sync$
syscount|writer 100|^@process\[writer\]: [0-9]+
tcpaccept|tcp_once|127\.0\.0\.1 +7777
tcpconnect|tcp_once|127\.0\.0\.1 +7777
tcpdrop|tcp_once|Tracing tcp drops
tcplife|tcp_once|127\.0\.0\.1 +7777|127\.0\.0\.1 +[0-9]+ +127\.0\.0\.1 
tcpretrans|tcp_once|Tracing tcp retransmits
tcpsynbl|tcp_once|^@backlog\[
threadsnoop|true|TIME\(ms\) +PID +COMM +FUNC
undump|unixsock 3|unixsock +[0-9]+ +12 +ftr-undump\\x01\\xff$
vfscount|writer 10|^@\[vfs_write\]: [0-9]+
vfsstat|writer 10|@\[vfs_write\]: [0-9]+
writeback|sync|Tracing writeback
xfsdist|xfs_io_once|^@us\[xfs_file_read_iter\]:'

# A refusal names what this kernel or machine lacks (or the BPF helper a
# feature needs: curtask is bpf_get_current_task's); anything else that
# stops a tool is a syntax or semantic error of the language.
refusal() {
	grep -Eq "not a probeable|no kprobe events|no uprobe events|cannot find '|no function '|\
no probeable|does not exist|not a probeable function|this kernel has no|no such (event|file|tracepoint)|not found|\
no event (for|matches)|lockdown|not a function of the running kernel|cannot read '.*available_filter|kernel .*lacks|not in this \
kernel|module .* not loaded|is not loaded|ENOENT|No such file|does not export|no such symbol|only a BPF program|\
no event '|is not in the BTF|has no member|nothing on this kernel can fetch" "$1"
}

npass=0 nref=0 nwrong=0 nfail=0 ntools=0
echo "# bt-tools: $(cat "$BT/VERSION" 2>/dev/null), kernel $(uname -r), ftr run FILE, ${BT_SECS}s each"
i=0
while IFS='|' read -r name work expect; do
	i=$((i + 1))
	[ $(( (i - 1) % ${BT_PARTS:-1} + 1 )) = "${BT_PART:-1}" ] || continue
	case ",$BT_ONLY," in ,,|*",$name,"*) ;; *) continue ;; esac
	t0=$(date +%s)
	BT_ENVERR=
	bt_env "$name"
	[ -f "$BT/$name.bt" ] || { skip "bt-$name" "REFUSES: the tool file is missing"; nref=$((nref + 1)); continue; }
	ntools=$((ntools + 1))
	"$FTR" run "$BT/$name.bt" > "$TMP/o" 2> "$TMP/e" < /dev/null &
	pid=$!
	# Wait until it traces (or has given up), up to 30 s: vfscount's 70
	# kprobes take seconds to make and remove under emulation.  Tracing
	# once BEGIN has printed its first line: ftr, as bpftrace, runs BEGIN
	# once every probe, hist trigger and counter is live (tracing_on alone
	# comes before ftr continues its hist triggers).  A tool whose BEGIN
	# prints nothing (swapin): once ftr's lock file says "running" (not
	# tracing_on: a new instance has it set before ftr configures it).
	n=0
	while [ $n -lt 300 ] && kill -0 $pid 2>/dev/null; do
		if grep -q '^BEGIN' "$BT/$name.bt"; then
			[ -s "$TMP/o" ] && break
		elif [ "$(cat "/run/ftr/ftr_$pid.lock" 2>/dev/null)" = running ]; then
			break
		fi
		sleep 0.1
		n=$((n + 1))
	done
	if kill -0 $pid 2>/dev/null; then
		eval "$work" > /dev/null 2>&1
		sleep "$BT_SECS"
		kill -INT $pid 2>/dev/null
	fi
	n=0
	while [ $n -lt 300 ] && kill -0 $pid 2>/dev/null; do sleep 0.1; n=$((n + 1)); done
	if kill -0 $pid 2>/dev/null; then
		kill -KILL $pid 2>/dev/null
		wait $pid 2>/dev/null
		"$FTR" reset > /dev/null 2>&1
		skip "bt-$name" "FAILS ($(($(date +%s) - t0))s): did not stop within 30 s of SIGINT"
		nfail=$((nfail + 1))
		continue
	fi
	wait $pid
	rc=$?
	msg=$(grep -m1 -E 'error|cannot|refus' "$TMP/e" | cut -c1-200)
	[ -n "$msg" ] || msg=$(head -1 "$TMP/e" | cut -c1-200)
	[ -z "$BT_ENVERR" ] || msg="$msg ($BT_ENVERR)"
	dt="$(($(date +%s) - t0))s"
	if [ $rc -eq 0 ] && grep -Eq -- "$expect" "$TMP/o"; then
		ok "bt-$name: runs, output as expected ($dt)"
		npass=$((npass + 1))
	elif [ $rc -eq 0 ] || [ $rc -eq 130 ]; then
		skip "bt-$name" "WRONG OUTPUT ($dt, rc=$rc; wanted /$expect/): $(grep -v '^$' "$TMP/o" | tail -2 | tr '\n' '|' | cut -c1-160) $msg"
		nwrong=$((nwrong + 1))
	elif refusal "$TMP/e"; then
		skip "bt-$name" "REFUSES ($dt): $msg"
		nref=$((nref + 1))
	else
		skip "bt-$name" "FAILS ($dt): $msg"
		nfail=$((nfail + 1))
	fi
done <<EOT
$TABLE
EOT
# The thresholds apply to all parts together: run.sh checks them.
ok "bt-tools-part-${BT_PART:-1}: $npass of $ntools run as expected, $nref refuse, $nwrong other output, $nfail fail"
exit 0
