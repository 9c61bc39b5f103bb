# ftr doctor's verdicts match what the kernel really does.
. "$LIVE_DIR/lib.sh"
require_tracing doctor

snapshot > "$TMP/before"
"$FTR" doctor > "$TMP/out" 2>&1
rc=$?
check doctor-exit-0 [ $rc -eq 0 ]

# BPF, in its first lines: absent on a kernel without the bpf() syscall
# (the matrix's bpfless and tiny rows), said to be there elsewhere.  The
# witness here is not ftr's (the syscall and a sysctl) but the kernel's
# symbol table: bpf_check, the verifier's entry, which kernel/bpf/verifier.c
# has had since BPF's first days and is built only with CONFIG_BPF_SYSCALL.
# (The syscall's own entry is no witness: without BPF_SYSCALL, COND_SYSCALL
# still defines a weak __x64_sys_bpf stub of its own that calls
# sys_ni_syscall: the bpfless row has one at its own address.)
head -n 8 "$TMP/out" > "$TMP/head"
bpf_in_kallsyms() {
	awk '$3 == "bpf_check" { found = 1 } END { exit !found }' /proc/kallsyms
}
if bpf_in_kallsyms 2>/dev/null; then
	grep -qx 'bpf  *yes (ftr does not use it)' "$TMP/head" &&
		! grep -q 'cannot run here' "$TMP/out" && ok doctor-bpf-present ||
		fail doctor-bpf-present "$(grep -A1 '^bpf' "$TMP/out" | head -2)"
elif grep -q ' vfs_write$' /proc/kallsyms 2>/dev/null; then
	grep -q '^bpf  *none: this kernel has no bpf() system call' "$TMP/head" &&
		grep -q 'bpftrace and bcc cannot run here' "$TMP/head" &&
		grep -q 'perf_event_open' "$TMP/head" && ok doctor-bpf-absent ||
		fail doctor-bpf-absent "$(head -n 8 "$TMP/head")"
else
	skip doctor-bpf "no kallsyms to tell whether this kernel has bpf()"
fi
if [ -r /sys/kernel/btf/vmlinux ]; then
	grep -q '^btf  */sys/kernel/btf/vmlinux' "$TMP/head" && ok doctor-btf ||
		fail doctor-btf "$(grep '^btf' "$TMP/out")"
else
	grep -q '^btf  *none: .*--btf FILE' "$TMP/head" && ok doctor-btf ||
		fail doctor-btf "$(grep -A1 '^btf' "$TMP/out")"
fi

# What an old kernel lacks that ftr's plans lean on, said in the first lines
# with what ftr does instead (the 4.x rows): no hist triggers (4.7), no
# $argN (4.20), no error_log (5.4).  Witnesses: the tracefs files and
# README themselves.
head -n 24 "$TMP/out" | sed '/^$/,$d' > "$TMP/top"
gaps=0
if ! has_hist; then
	gaps=1
	grep -q '^hist  *none' "$TMP/top" && grep -q 'aggregate in user space' "$TMP/top" &&
		ok doctor-gap-hist || fail doctor-gap-hist "$(grep -A2 '^hist' "$TMP/out")"
fi
if has_kprobes && ! grep -q 'arg<N>' "$T/README"; then
	gaps=1
	grep -q '^kprobes  *arguments by register: no \$argN before 4.20' "$TMP/top" &&
		ok doctor-gap-argn || fail doctor-gap-argn "$(grep -A1 '^kprobes' "$TMP/out")"
fi
if [ ! -e "$T/error_log" ]; then
	gaps=1
	grep -q '^error_log  *none' "$TMP/top" && ok doctor-gap-error-log ||
		fail doctor-gap-error-log "$(grep -A1 '^error_log' "$TMP/out")"
fi
[ $gaps = 1 ] || { grep -qE '^(hist|kprobes|error_log) ' "$TMP/top" &&
	fail doctor-gaps "a gap said where there is none: $(grep -E '^(hist|kprobes|error_log) ' "$TMP/top")" ||
	ok doctor-gaps; }

# kernel.panic_on_warn: no warnings line where it is 0; set for the length
# of one doctor run, the line says the kernel panics on a WARNING and how to
# stop ftr instead.  Only in the matrix's guests (FTR_DISPOSABLE): on a real
# machine a WARNING from anything else in that second would panic it.
pow=/proc/sys/kernel/panic_on_warn
if [ "${FTR_DISPOSABLE:-0}" != 1 ]; then
	skip doctor-panic-on-warn "sets kernel.panic_on_warn: only in the matrix's throwaway guests"
elif [ -w "$pow" ] && [ "$(cat "$pow")" = 0 ]; then
	if echo 1 > "$pow" 2> /dev/null; then
		"$FTR" doctor > "$TMP/pow" 2>&1
		echo 0 > "$pow"
		! grep -q '^warnings' "$TMP/out" &&
			grep -q '^warnings    panic (kernel.panic_on_warn=1)' "$TMP/pow" &&
			grep -q 'not kill -9' "$TMP/pow" && ok doctor-panic-on-warn ||
			fail doctor-panic-on-warn "$(grep -A2 '^warnings' "$TMP/out" "$TMP/pow" | head -4)"
	else
		skip doctor-panic-on-warn "kernel.panic_on_warn cannot be set here"
	fi
else
	skip doctor-panic-on-warn "kernel.panic_on_warn is not 0 and writable"
fi

verdict() { grep -E "^(yes|no) +$1 " "$TMP/out" | awk '{print $1}'; }

if has_kprobes; then want=yes; else want=no; fi
check doctor-kprobe-verdict [ "$(verdict 'kprobe events')" = $want ]
if ! has_kprobes; then
	# It says no: a kprobe really cannot be created here.
	f=$T/dynamic_events
	[ -e "$f" ] || f=$T/kprobe_events
	if echo 'p:ftrtest_chk/vfs_w vfs_write' >> "$f" 2>/dev/null; then
		echo '-:ftrtest_chk/vfs_w' >> "$f"
		fail doctor-kprobe-really-absent "a kprobe could be created"
	else
		ok doctor-kprobe-really-absent
	fi
	grep -A1 '^no  *kprobe events' "$TMP/out" | grep -q 'instead:' &&
		ok doctor-kprobe-instead || fail doctor-kprobe-instead "no fallback named"
fi
if has_uprobes; then want=yes; else want=no; fi
check doctor-uprobe-verdict [ "$(verdict 'uprobe events')" = $want ]
if has_hist; then want=yes; else want=no; fi
check doctor-hist-verdict [ "$(verdict 'histogram triggers')" = $want ]
if has_hist; then
	# The modifiers ftr relies on are read from this kernel's README.
	grep '^yes  *histogram triggers' "$TMP/out" | grep -q '\.log2' &&
		ok doctor-hist-modifiers || fail doctor-hist-modifiers "no .log2 listed"
else
	grep -A2 '^no  *histogram triggers' "$TMP/out" | grep -q 'user space' &&
		ok doctor-hist-fallback || fail doctor-hist-fallback "fallback not named"
fi
# Tried, not read from available_tracers: listed and refused (EPERM on a
# hardened kernel) is "no", with the kernel's answer.
if has_tracer function; then want=yes; else want=no; fi
check doctor-function-tracer [ "$(verdict 'function tracer')" = $want ]
if [ $want = no ] && grep -qw function "$T/available_tracers"; then
	grep '^no  *function tracer' "$TMP/out" | grep -q 'present but not permitted: .*: ' &&
		ok doctor-function-refused || fail doctor-function-refused \
		"$(grep -A1 '^no  *function tracer' "$TMP/out")"
fi

"$FTR" doctor --json > "$TMP/json" 2>&1
if has_hist; then want=true; else want=false; fi
grep -q "\"hist_triggers\":{\"available\":$want" "$TMP/json" &&
	ok doctor-json || fail doctor-json "$(head -c 200 "$TMP/json")"
same_as_before doctor-leaves-tracefs "$TMP/before"
