#!/bin/sh
# Bash completion (contrib/ftr.bash): `complete -p ftr` after sourcing it,
# and scripted completions (COMP_WORDS, COMP_CWORD, COMP_LINE, COMP_POINT,
# then _ftr) of commands, options from each command's help, recipe names,
# tracepoint names (from ftr list) and files.
. "$LIVE_DIR/lib.sh"
COMP=$LIVE_DIR/../../contrib/ftr.bash
if ! command -v bash > /dev/null 2>&1; then
	skip completion "no bash here"
	exit 0
fi
if [ ! -f "$COMP" ]; then
	skip completion "no contrib/ftr.bash next to the tests"
	exit 0
fi
mkdir -p "$TMP/d" && touch "$TMP/d/metrics.prom"
# comp LINE: the completions of LINE (completed at its end), one a line;
# the first word is ftr itself.
cat > "$TMP/comp.bash" <<'EOS'
. "$COMP"
complete -p ftr > /dev/null || exit 3
# readline splits at ':' too (COMP_WORDBREAKS)
COMP_WORDS=($(printf '%s\n' "$LINE" | sed 's/:/ : /g'))
case $LINE in *" ") COMP_WORDS+=("") ;; esac
COMP_WORDS[0]=$FTR
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
COMP_LINE="ftr ${LINE#* }"
COMP_POINT=${#COMP_LINE}
_ftr
printf '%s\n' "${COMPREPLY[@]}"
EOS
comp() { LINE="ftr $1" COMP="$COMP" FTR="$FTR" bash "$TMP/comp.bash"; }
# has LINE WORD: WORD is one of LINE's completions
has() { comp "$1" | grep -qx -- "$2"; }

out=$(LINE="ftr " COMP="$COMP" FTR="$FTR" bash -c '. "$COMP"; complete -p ftr')
check completion-registered [ "$out" = "complete -F _ftr ftr" ]
check completion-commands [ "$(comp "co" | tr '\n' ' ')" = "count " ]
all=$(comp "" | tr '\n' ' ')
case $all in *"doctor "*"list "*"trace "*"count "*"hist "*"run "*"reset "*"profile "*"stat "*) ok completion-all-commands ;;
*) fail completion-all-commands "got: $all" ;; esac
check completion-run-options [ "$(comp "run --prom" | tr '\n' ' ')" = "--prom-file " ]
check completion-run-probe-filter [ "$(comp "run --probe-f" | tr '\n' ' ')" = "--probe-filter " ]
check completion-serve-option has "run --se" --serve
check completion-count-options has "count --cum" --cumulative
check completion-recipes [ "$(comp "run biol" | tr '\n' ' ')" = "biolatency " ]
check completion-file [ "$(comp "run writesize --prom-file $TMP/d/met" | tr '\n' ' ')" = "$TMP/d/metrics.prom " ]
check completion-where [ "$(comp "count -w ke" | tr '\n' ' ')" = "kernel " ]
check completion-latency-tracer [ "$(comp "latency time" | tr '\n' ' ')" = "timerlat " ]
check completion-latency-mode [ "$(comp "latency timerlat h" | tr '\n' ' ')" = "hist " ]
check completion-latency-format [ "$(comp "latency osnoise top -f j" | tr '\n' ' ')" = "json " ]
check completion-latency-options has "latency timerlat top --stop" --stop-at
check completion-after-dashdash has "count sched:sched_switch -- bas" bash
if [ -d "$T/events/syscalls/sys_enter_openat" ]; then
	# after "syscalls:" readline replaces what follows the ':'
	out=$(comp "count syscalls:sys_enter_opena")
	if printf '%s\n' "$out" | grep -qx sys_enter_openat && ! printf '%s\n' "$out" | grep -q :; then
		ok completion-tracepoint
	else
		fail completion-tracepoint "got: $(printf '%s' "$out" | tr '\n' ' ')"
	fi
	check completion-tracepoint-system has "hist sysc" syscalls:sys_enter_write
else
	skip completion-tracepoint "no syscalls:sys_enter_openat here"
fi
exit $FAILED
