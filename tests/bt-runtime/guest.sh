# guest.sh — runs cases of bpftrace's runtime suite in a matrix guest
# (busybox sh, no python): sourced by the live files run.py --guest writes,
# t-bt-runtime-K.sh, one `rt_case` line per case.  Nothing is judged here:
# each case's stdout, stderr, exit code and whether TIMEOUT stopped it go
# back to the host as "file" lines on the result port (base64 of gzip), and
# run.py matches them there as on the host (verdict.py).
#
# rt_case ID TIMEOUT KMIN KMAX SETUP CLEANUP AFTER NEWPIDNS ENV CMD REQUIRES [BEFORE...]
#   ENV: "K=V K=V"; REQUIRES: commands, one a line; CMD: the shell command
#   ({{BPFTRACE}} already replaced by bpftrace, which is ftr under that name;
#   {{BEFORE_PID}} replaced here).
# Each case prints "file rt-ID.res data ..." (how it ended: "ran RC TIMEDOUT"
# or "skip WHY"), and for a run rt-ID.out and rt-ID.err (gzdata).

RT=$LIVE_DIR/rt
RT_WORK=$RT/work
RT_TMP=${TMPDIR:-/tmp}/rt
RT_GRACE=${RT_GRACE:-1}
export PATH="$RT/bin:$PATH"
mkdir -p "$RT_TMP"
rt_done=0 rt_skipped=0

rt_file() { # ID KIND FILE: the file to the host
	head -c 262144 "$3" | gzip -c | base64 | sed "s/^/file rt-$1.$2 gzdata /"
}
rt_res() { # ID TEXT
	printf '%s\n' "$2" | base64 | sed "s/^/file rt-$1.res data /"
}
# KVER >= WANT, both x.y[.z]
rt_kver_ge() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		split(a, x, /[^0-9]+/); split(b, y, /[^0-9]+/)
		for (i = 1; i <= 3; i++) { if (x[i] + 0 != y[i] + 0) exit !(x[i] + 0 > y[i] + 0) }
		exit 0 }'
}
# PID and every descendant of it, one a line.
rt_tree() {
	cat /proc/[0-9]*/stat 2> /dev/null | awk -v root="$1" '
		{ pid = $1; r = $0; sub(/^.*\) /, "", r); split(r, g, " ")
		  kids[g[2]] = kids[g[2]] " " pid }
		END { q[1] = root; n = 1
		      for (i = 1; i <= n; i++) {
			print q[i]; m = split(kids[q[i]], k, " ")
			for (j = 1; j <= m; j++) q[++n] = k[j] } }'
}
rt_kill() { # SIG PID
	# shellcheck disable=SC2046  # one pid a word
	kill -"$1" $(rt_tree "$2") 2>/dev/null
}
# The pid of a process named NAME (comm, 15 chars), or nothing by DEADLINE.
rt_wait_comm() { # NAME DEADLINE
	n=$(printf '%s' "$1" | cut -c1-15)
	while [ "$(date +%s)" -lt "$2" ]; do
		for c in /proc/[0-9]*/comm; do
			[ "$(cat "$c" 2>/dev/null)" = "$n" ] || continue
			p=${c#/proc/}; echo "${p%/comm}"; return 0
		done
		sleep 0.05
	done
	return 1
}

rt_case() {
	id=$1 to=$2 kmin=$3 kmax=$4 setup=$5 cleanup=$6 after=$7 pidns=$8 envs=$9
	shift 9
	cmd=$1 reqs=$2
	shift 2
	d=$RT_TMP/$id
	rm -rf "$d"; mkdir -p "$d"
	kv=$(uname -r)
	if [ -n "$kmin" ] && ! rt_kver_ge "$kv" "$kmin"; then
		rt_res "$id" "skip MIN_KERNEL $kmin"; rt_skipped=$((rt_skipped + 1)); return
	fi
	if [ -n "$kmax" ] && ! rt_kver_ge "$kmax" "$kv"; then
		rt_res "$id" "skip MAX_KERNEL $kmax"; rt_skipped=$((rt_skipped + 1)); return
	fi
	why=
	while IFS= read -r r; do
		[ -n "$r" ] || continue
		(cd "$RT_WORK" && sh -c "$r") > /dev/null 2>&1 < /dev/null || { why="REQUIRES $r"; break; }
	done <<EOF
$reqs
EOF
	if [ -z "$why" ] && [ -n "$setup" ]; then
		(cd "$RT_WORK" && sh -c "$setup") > "$d/setup" 2>&1 < /dev/null ||
			why="SETUP failed: $setup: $(head -c 200 "$d/setup")"
	fi
	if [ -n "$why" ]; then
		rt_res "$id" "skip $why"; rt_skipped=$((rt_skipped + 1)); return
	fi
	wait_to=$to; [ "$wait_to" -lt 10 ] && wait_to=10
	bpids='' bpid='' ns=''
	for b in "$@"; do
		if [ "$pidns" = 1 ] && [ -z "$ns" ]; then
			# busybox's unshare: -f, no --kill-child (the tree is killed
			# at the end).
			# shellcheck disable=SC2086  # the command's words
			(cd "$RT_WORK" && exec unshare -f -p --mount-proc -r -- $b) \
				> /dev/null 2>&1 < /dev/null &
			bpids="$bpids $!"
			dl=$(( $(date +%s) + wait_to ))
			c=
			while [ -z "$c" ] && [ "$(date +%s)" -lt "$dl" ]; do
				c=$(rt_tree "$!" | sed -n 2p); sleep 0.05
			done
			ns="nsenter -p -m -t $c"
			continue
		fi
		# shellcheck disable=SC2086
		(cd "$RT_WORK" && exec $ns $b) > "$d/before" 2>&1 < /dev/null &
		bpids="$bpids $!" blast=$!
		last=${b##* }; [ -n "$ns" ] && last=${b%% *}
		p=$(rt_wait_comm "${last##*/}" $(( $(date +%s) + wait_to ))) || {
			# One that failed is this guest's lack (pivot_root of
			# the initramfs is EINVAL), as a SETUP that fails.
			if ! kill -0 "$blast" 2> /dev/null && ! wait "$blast"; then
				rt_res "$id" "skip BEFORE failed: $b: $(head -c 200 "$d/before")"
				rt_skipped=$((rt_skipped + 1))
			else
				rt_res "$id" "ran - 1 BEFORE $b never ran"
			fi
			for p in $bpids; do rt_kill 9 "$p"; done
			return
		}
		[ -z "$bpid" ] && bpid=$p
	done
	case $cmd in *"{{BEFORE_PID}}"*)
		cmd=$(printf '%s' "$cmd" | sed "s/{{BEFORE_PID}}/$bpid/g") ;;
	esac
	[ -n "$ns" ] && cmd="$ns $cmd" && [ -n "$after" ] && after="$ns $after"
	# shellcheck disable=SC2086  # K=V words
	(cd "$RT_WORK" && exec env -i PATH="$PATH" test="$id" \
		__BPFTRACE_NOTIFY_PROBES_ATTACHED=1 $envs sh -c "$cmd") \
		> "$d/out" 2> "$d/err" < /dev/null &
	pid=$!
	start=$(date +%s)
	# Ticks of 0.1 s: AFTER once ftr has run RT_GRACE s (it prints no
	# attach line), TIMEOUT counted from then.
	t=0 apid='' tout=0
	while kill -0 "$pid" 2> /dev/null; do
		if [ -n "$after" ] && [ -z "$apid" ] && [ $t -ge $((RT_GRACE * 10)) ]; then
			(cd "$RT_WORK" && exec sh -c "$after") > /dev/null 2>&1 < /dev/null &
			apid=$!
		fi
		if [ $t -ge $(( (RT_GRACE + to) * 10 )) ]; then
			tout=1
			rt_kill TERM "$pid"
			# Up to 5 s for ftr to undo its tracefs work (emulated:
			# slow); killed, `ftr reset` removes what it left.
			k=0
			while kill -0 "$pid" 2> /dev/null && [ $k -lt 50 ]; do
				sleep 0.1; k=$((k + 1))
			done
			if kill -0 "$pid" 2> /dev/null; then
				rt_kill KILL "$pid"
				wait "$pid" 2> /dev/null
				ftr reset > /dev/null 2>&1
			fi
			break
		fi
		sleep 0.1
		t=$((t + 1))
	done
	wait "$pid"
	rc=$?
	for p in $bpids $apid; do rt_kill KILL "$p"; done
	wait 2> /dev/null
	[ -n "$cleanup" ] && (cd "$RT_WORK" && sh -c "$cleanup") > /dev/null 2>&1 < /dev/null
	rt_res "$id" "ran $rc $tout $(( $(date +%s) - start ))"
	rt_file "$id" out "$d/out"
	rt_file "$id" err "$d/err"
	rm -rf "$d"
	rt_done=$((rt_done + 1))
}

rt_end() { # PART: the live runner's verdict line for this part
	echo "ok bt-runtime-$1: $rt_done cases ran, $rt_skipped skipped (judged on the host)"
}
