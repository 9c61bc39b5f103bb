# bash completion for ftr.  Installed by `make install` as
# $(PREFIX)/share/bash-completion/completions/ftr; or: . contrib/ftr.bash
#
# Commands and each command's options come from ftr's own help, so that
# they never fall behind; recipe names from `ftr run --list`; tracepoint
# names from `ftr list` (it needs tracefs: as root), asked once per shell.

_ftr_cmds() {
	"$1" -h 2>/dev/null | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }'
}

_ftr_opts() {
	"$1" "$2" -h 2>/dev/null | grep -o -e '--[a-z][a-z-]*' -e '^ *-[a-zA-Z]' -e ', -[a-zA-Z]' |
		sed 's/^[ ,]*//' | sort -u
}

_ftr_events() {
	if [ -z "${_ftr_event_cache+x}" ]; then
		_ftr_event_cache=$("$1" list 2>/dev/null | sed -n 's/^tracepoint://p')
	fi
	printf '%s\n' "$_ftr_event_cache"
}

_ftr() {
	local cur prev ftr cmd i words
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	ftr=${COMP_WORDS[0]}
	COMPREPLY=()

	# The command, and whether a "--" (a command to trace) came before.
	cmd=
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		--)
			# after --: the traced command and its arguments
			if ((i == COMP_CWORD - 1)); then
				COMPREPLY=($(compgen -c -- "$cur"))
			else
				COMPREPLY=($(compgen -f -- "$cur"))
			fi
			return 0
			;;
		-e) [ -z "$cmd" ] && cmd=run ;;
		-*|:) ;;
		*) [ -z "$cmd" ] && cmd=${COMP_WORDS[i]} ;;
		esac
	done
	if [ -z "$cmd" ]; then
		case $cur in
		-*) COMPREPLY=($(compgen -W "-h --help -V --version -v -e" -- "$cur")) ;;
		*) COMPREPLY=($(compgen -W "$(_ftr_cmds "$ftr")" -- "$cur")) ;;
		esac
		return 0
	fi

	# ftr latency: the tracer, then top or hist; -f is its --format.
	if [ "$cmd" = latency ]; then
		case $prev in
		-f|--format) COMPREPLY=($(compgen -W "text json" -- "$cur")); return 0 ;;
		-c|-C|--cpus|-p|--period|-r|--runtime|-a|--stop-at|-T|--threshold|\
		-b|--bucket-size|-E|--entries) return 0 ;;
		latency)
			COMPREPLY=($(compgen -W "timerlat osnoise hwlat irqsoff preemptoff
				preemptirqsoff wakeup wakeup_rt wakeup_dl" -- "$cur"))
			return 0 ;;
		timerlat|osnoise)
			[[ $cur != -* ]] && { COMPREPLY=($(compgen -W "top hist" -- "$cur")); return 0; } ;;
		esac
	fi

	# Options that take a value.
	case $prev in
	--prom-file|-o|--output|--svg|--folded|--pprof|--json-file)
		COMPREPLY=($(compgen -f -- "$cur"))
		return 0
		;;
	--serve)
		COMPREPLY=($(compgen -W "127.0.0.1:9469 :9469 0.0.0.0:9469" -- "$cur"))
		return 0
		;;
	-w|--where)
		COMPREPLY=($(compgen -W "auto kernel user" -- "$cur"))
		return 0
		;;
	-e|-p|--pid|-d|--duration|-i|--interval|-k|--keys|-v|--value|-f|--filter|\
	-s|--sort|--top|--size)
		return 0	# free text
		;;
	esac

	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_ftr_opts "$ftr" "$cmd")" -- "$cur"))
		return 0
	fi
	case $cmd in
	run)
		# a recipe NAME, or a FILE
		COMPREPLY=($(compgen -W "$("$ftr" run --list 2>/dev/null | awk '{ print $1 }')" \
			-- "$cur") $(compgen -f -- "$cur"))
		;;
	count|hist|trace|list)
		# SYSTEM:EVENT.  ':' breaks words for readline (COMP_WORDBREAKS):
		# the whole word is taken from the line, and the replies are
		# what follows its last ':', the part readline replaces.
		local line=${COMP_LINE:0:COMP_POINT} word pre
		word=${line##*[[:space:]]}
		pre=${word%"${word##*:}"}
		COMPREPLY=($(compgen -W "$(_ftr_events "$ftr")" -- "$word"))
		if [ -n "$pre" ]; then
			COMPREPLY=("${COMPREPLY[@]#"$pre"}")
		fi
		;;
	*)
		COMPREPLY=($(compgen -f -- "$cur"))
		;;
	esac
	return 0
}

complete -F _ftr ftr
