# Probe wildcards (kprobe:vfs_*, uprobe:PATH:ftr_*), each match its own
# probe and func; the cap; a named kprobe this kernel lacks skipped in a
# clause of several probes; bpftrace's kretfunc:/fexit: spellings.
. "$LIVE_DIR/lib.sh"
require_tracing probeglob
snapshot > "$TMP/before"

tgt=$(command -v uprobe-target)
if has_uprobes && [ -n "$tgt" ]; then
	# ftr_target is called 10 times, ftr_target_str and ftr_target_many
	# once each, ftr_target_buf only with --buf; ftr_local (not matched) once.
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
	[ $rc -eq 1 ] && grep -q 'matches 5 functions, more than 2' "$TMP/e" && grep -q FTR_MAX_PROBES "$TMP/e" &&
		ok uprobe-glob-cap || fail uprobe-glob-cap "rc=$rc $(cat "$TMP/e")"
	"$FTR" -e "uprobe:$tgt:zz_no_such_* { @ = count(); }" -- uprobe-target > "$TMP/o" 2> "$TMP/e"; rc=$?
	[ $rc -eq 1 ] && grep -q 'no probeable function matches' "$TMP/e" &&
		ok uprobe-glob-none || fail uprobe-glob-none "rc=$rc $(cat "$TMP/e")"
else
	skip uprobe-glob "no uprobe events or no uprobe-target helper"
fi

# A bare library name, as bpftrace resolves it: uprobe:libc:write is the
# libc programs load; with -p, the one that process maps (a copy, found
# through LD_LIBRARY_PATH); a function a stub only passes on (glibc >= 2.34's
# libpthread.so.0 needs libc.so.6, which has pthread_create) is probed there.
libc=$(grep -o '/[^ ]*/libc[.-][^ ]*so[^ ]*' /proc/self/maps | head -1)
wr=$(command -v writer)
if has_uprobes && [ -n "$libc" ] && [ -n "$wr" ] && grep -q ld-linux "$wr"; then
	"$FTR" -e 'uprobe:libc:write { @ = count(); }' -- writer 50 > "$TMP/o" 2> "$TMP/e"
	grep -q '^@: 50$' "$TMP/o" && ok uprobe-libname ||
		fail uprobe-libname "$(cat "$TMP/o" "$TMP/e" | head -3 | tr "\n" " ")"
	mkdir -p "$TMP/lib" && cp "$libc" "$TMP/lib/"
	lib=$(cd "$TMP/lib" && pwd -P)
	LD_LIBRARY_PATH=$lib sleep 5 &
	p=$!
	n=0
	while [ $n -lt 50 ] && ! grep -q "$lib" "/proc/$p/maps" 2>/dev/null; do sleep 0.1; n=$((n + 1)); done
	"$FTR" run --explain -p $p -e 'uprobe:libc:write { @ = count(); }' > "$TMP/o" 2> "$TMP/e"
	grep -q "p:ftr_[0-9]*/write $lib/libc" "$TMP/o" && ok uprobe-libname-pid ||
		fail uprobe-libname-pid "$(grep -m1 write "$TMP/o") $(head -2 "$TMP/e")"
	kill $p 2> /dev/null
	wait $p 2> /dev/null
	"$FTR" run --explain -e 'uprobe:libpthread:pthread_create { @ = count(); }' > "$TMP/o" 2> "$TMP/e"
	rc=$?
	# Old glibc: libpthread has it; new: libc, with a note saying so.
	{ grep -q 'p:ftr_[0-9]*/pthread_create /[^ ]*/libpthread' "$TMP/o" ||
	  { grep -q "'pthread_create' is not in .*libpthread.* but in .*libc" "$TMP/e" &&
	    grep -q 'p:ftr_[0-9]*/pthread_create /[^ ]*/libc[.-]' "$TMP/o"; }; } && [ $rc -eq 0 ] &&
		ok uprobe-libname-needed || fail uprobe-libname-needed "rc=$rc $(head -2 "$TMP/e")"
else
	skip uprobe-libname "no uprobe events, or no dynamic libc and writer (a static userland)"
fi

# comm at a uprobe is the name at the event ($comm fetched by the probe):
# asuser has exec'd true by the time ftr reads its event.
as=$(command -v asuser)
if has_uprobes && [ -n "$as" ]; then
	"$FTR" -e "uprobe:$as:main { printf(\"%s\\n\", comm); }" -- asuser 65534 true > "$TMP/o" 2> "$TMP/e"
	[ "$(cat "$TMP/o")" = asuser ] && ok uprobe-comm-at-event ||
		fail uprobe-comm-at-event "$(cat "$TMP/o" "$TMP/e" | head -3 | tr '\n' ' ')"
else
	skip uprobe-comm-at-event "no uprobe events or no asuser helper"
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
