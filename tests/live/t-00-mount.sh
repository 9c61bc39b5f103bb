# ftr finds tracefs by filesystem type and mounts it when it is absent.
NO_AUTOMOUNT=1
. "$LIVE_DIR/lib.sh"

# debugfs's automounted tracefs (/sys/kernel/debug/tracing) counts as
# mounted too: take it away first when nothing uses it.
dbg=$(awk '$3 == "tracefs" && $2 != "/sys/kernel/tracing" { print $2 }' /proc/mounts)
for m in $dbg; do
	[ -z "$(ls "$m/instances" 2>/dev/null)" ] && umount "$m" 2>/dev/null
done
mounted=$(tracefs_path)
if [ -n "$mounted" ]; then
	# Only unmount what nobody uses: no instances, nothing enabled (or,
	# under lockdown, an empty tracefs).
	if [ -z "$(ls "$mounted/instances" 2>/dev/null)" ] &&
	   { [ ! -e "$mounted/README" ] || { [ "$(cat "$mounted/tracing_on")" = 1 ] &&
	     ! grep -q '^1' "$mounted/events/enable" 2>/dev/null; }; } &&
	   umount "$mounted" 2>/dev/null; then
		mounted=""
	else
		skip mount-when-absent "tracefs is mounted and in use; not unmounting it"
		exit 0
	fi
fi
if ! grep -qw tracefs /proc/filesystems; then
	skip mount-when-absent "kernel without tracefs"
	exit 0
fi
out=$("$FTR" doctor 2>&1)
T=$(tracefs_path)
check mount-when-absent [ "$T" = /sys/kernel/tracing ]
case "$out" in
*"mounted by ftr"*) ok doctor-says-mounted ;;
*) fail doctor-says-mounted "doctor did not say it mounted tracefs: $(echo "$out" | grep tracefs)" ;;
esac
out=$("$FTR" doctor 2>&1)
case "$out" in
*"already mounted"*) ok doctor-says-found ;;
*) fail doctor-says-found "second run: $(echo "$out" | grep tracefs)" ;;
esac
