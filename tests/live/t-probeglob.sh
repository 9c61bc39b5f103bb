# Probe wildcards (kprobe:vfs_*, uprobe:PATH:ftr_*), each match its own
# probe and func; the cap; a named kprobe this kernel lacks skipped in a
# clause of several probes; bpftrace's kretfunc:/fexit: spellings.
. "$LIVE_DIR/lib.sh"
require_tracing probeglob
snapshot > "$TMP/before"

tgt=$(command -v uprobe-target)
if has_uprobes && [ -n "$tgt" ]; then
	# ftr_target is called 10 times, ftr_target_str and ftr_target_many
	# once each; ftr_local (not matched) once.
	"$FTR" -e "uprobe:$tgt:ftr_target* { @[func] = count(); }" -- uprobe-target > "$TMP/o" 2> "$TMP/e"
	got=$(grep '^@' "$TMP/o" | sort | tr '\n' ' ')
	[ "$got" = "@[ftr_target]: 10 @[ftr_target_many]: 1 @[ftr_target_str]: 1 " ] &&
		ok uprobe-glob-func || fail uprobe-glob-func "got: $got $(head -3 "$TMP/e")"
	"$FTR" -e "uretprobe:$tgt:ftr_targ?t { @[probe] = sum(retval); }" -- uprobe-target 4 100 > "$TMP/o" 2> "$TMP/e"
	# 3 * (100 + 101 + 102 + 103) + 4 * 7
	# (a long path is cut at 64 bytes, as map keys are)
	grep -q "^@\[uretprobe:/.*\]: 1246\$" "$TMP/o" && [ "$(grep -c '^@' "$TMP/o")" = 1 ] &&
		ok uprobe-glob-probe || fail uprobe-glob-probe "$(cat "$TMP/o" "$TMP/e" | head -4 | tr "\n" " ")"
	FTR_MAX_PROBES=2 "$FTR" -e "uprobe:$tgt:ftr_* { @ = count(); }" -- uprobe-target > "$TMP/o" 2> "$TMP/e"; rc=$?
	[ $rc -eq 1 ] && grep -q 'matches 4 functions, more than 2' "$TMP/e" && grep -q FTR_MAX_PROBES "$TMP/e" &&
		ok uprobe-glob-cap || fail uprobe-glob-cap "rc=$rc $(cat "$TMP/e")"
	"$FTR" -e "uprobe:$tgt:zz_no_such_* { @ = count(); }" -- uprobe-target > "$TMP/o" 2> "$TMP/e"; rc=$?
	[ $rc -eq 1 ] && grep -q 'no probeable function matches' "$TMP/e" &&
		ok uprobe-glob-none || fail uprobe-glob-none "rc=$rc $(cat "$TMP/e")"
else
	skip uprobe-glob "no uprobe events or no uprobe-target helper"
fi

if has_kprobes; then
	# writer makes exactly 300 write(2) calls: vfs_write 300 times, and
	# none of the other vfs_writ* functions (vfs_writev).
	"$FTR" -e 'kprobe:vfs_writ* /comm == "writer"/ { @[func] = count(); }' -- writer 300 > "$TMP/o" 2> "$TMP/e"
	got=$(grep '^@' "$TMP/o" | tr '\n' ' ')
	[ "$got" = "@[vfs_write]: 300 " ] && ok kprobe-glob-func || fail kprobe-glob-func "got: $got $(head -3 "$TMP/e")"
	"$FTR" -e 'kretprobe:vfs_wri?e /comm == "writer"/ { @[probe] = count(); }' -- writer 7 > "$TMP/o" 2> "$TMP/e"
	grep -q '^@\[kretprobe:vfs_write\]: 7$' "$TMP/o" && ok kprobe-glob-ret ||
		fail kprobe-glob-ret "$(cat "$TMP/o" "$TMP/e" | head -4 | tr "\n" " ")"
	# vfs_* matches many functions (about 60 on 6.1): they are all
	# created, counted, and removed.
	"$FTR" -e 'kprobe:vfs_* /comm == "writer"/ { @[func] = count(); }' -- writer 5 > "$TMP/o" 2> "$TMP/e"
	grep -q '^@\[vfs_write\]: 5$' "$TMP/o" && ok kprobe-glob-many ||
		fail kprobe-glob-many "$(cat "$TMP/o" "$TMP/e" | head -4 | tr "\n" " ")"
	FTR_MAX_PROBES=3 "$FTR" -e 'kprobe:vfs_* { @ = count(); }' -- writer 1 > "$TMP/o" 2> "$TMP/e"; rc=$?
	[ $rc -eq 1 ] && grep -q 'more than 3' "$TMP/e" && ok kprobe-glob-cap || fail kprobe-glob-cap "rc=$rc $(cat "$TMP/e")"
	# bpftrace's biolatency names two spellings of one function; a kernel
	# has one: the other is skipped with a note.
	"$FTR" -e 'kprobe:ftr_no_such_function,kprobe:vfs_write /comm == "writer"/ { @ = count(); }' \
		-- writer 9 > "$TMP/o" 2> "$TMP/e"
	grep -q '^@: 9$' "$TMP/o" && grep -q "note: 'kprobe:ftr_no_such_function'" "$TMP/e" &&
		ok kprobe-optional-missing || fail kprobe-optional-missing "$(cat "$TMP/o" "$TMP/e" | head -4 | tr "\n" " ")"
	"$FTR" -e 'kprobe:ftr_no_such_function { @ = count(); }' -- writer 1 > "$TMP/o" 2> "$TMP/e"; rc=$?
	check kprobe-missing-alone [ $rc -eq 1 ]
	"$FTR" -e 'kretfunc:vfs_write /comm == "writer"/ { @ = sum(retval); }' -- writer 6 3 > "$TMP/o" 2> "$TMP/e"
	grep -q '^@: 18$' "$TMP/o" && ok kretfunc-spelling || fail kretfunc-spelling "$(cat "$TMP/o" "$TMP/e" | head -4 | tr "\n" " ")"
else
	"$FTR" -e 'kprobe:vfs_* { @ = count(); }' -d 1 > /dev/null 2> "$TMP/e"; rc=$?
	[ $rc -eq 1 ] && grep -q 'no kprobe events' "$TMP/e" && ok kprobe-glob-absent ||
		fail kprobe-glob-absent "rc=$rc $(cat "$TMP/e")"
fi
same_as_before probeglob-clean "$TMP/before"
exit $FAILED
