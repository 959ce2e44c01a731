# SPDX-License-Identifier: GPL-3.0-or-later
#
# kaibatch.bash: bash completion for the kaibatch clients.
#
#	. contrib/completion/kaibatch.bash	(or install it in
#	  /usr/share/bash-completion/completions/ under each program's name)
#
# Options are read from each program's own --help, so the completion can
# never drift from the option tables.  Values are completed where the
# answer is known locally: partitions and states from fixed lists, users
# from the passwd database, files for scripts and -o/-e/-D, and job ids
# from `kqueue --noheader -o %i` (your own jobs); node and partition
# names from kinfo, queues (kshare -A) from `kctl queue list`, and kctl's
# commands from fixed lists.

_kaibatch_opts()
{
	# "-A, --account=ACCOUNT  text" -> "--account=" ; "--hold  text" -> "--hold"
	"$1" --help 2>/dev/null |
	    sed -n 's/^ *\(-[A-Za-z], \)\{0,1\}\(--[A-Za-z0-9-]*=\{0,1\}\).*/\2/p'
}

_kaibatch_jobids()
{
	kqueue --me --noheader -o %i 2>/dev/null
}

_kaibatch_nodes()
{
	kinfo -N --noheader -o %n 2>/dev/null | sort -u
}

_kaibatch_partitions()
{
	kinfo --noheader -o %R 2>/dev/null | sort -u
}

# kctl: its commands, then what each one takes.  Returns 1 when the word
# is an option, for the generic code below.
_kaibatch_kctl()
{
	local cur=$1 words
	[[ "$cur" == -* ]] && return 1
	case "$COMP_CWORD:${COMP_WORDS[1]:-}:${COMP_WORDS[2]:-}" in
	1:*)
		words="show hold release requeue update queue" ;;
	2:show:*)
		words="job node partition qos" ;;
	3:show:job | *:hold:* | *:release:* | *:requeue:* | 3:update:job)
		words=$(_kaibatch_jobids) ;;
	2:update:*)
		words="job" ;;
	*:update:job)
		words="TimeLimit= Partition=" ;;
	3:show:node)
		words=$(_kaibatch_nodes) ;;
	3:show:partition)
		words=$(_kaibatch_partitions) ;;
	3:show:qos)
		words=$(_kaibatch_qos) ;;
	2:queue:*)
		words="list create update delete apply" ;;
	*)
		return 0 ;;
	esac
	mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
	[[ "${COMPREPLY[0]:-}" == *= ]] && compopt -o nospace 2>/dev/null
	return 0
}

# QoS names, from kctl show qos.
_kaibatch_qos()
{
	kctl show qos 2>/dev/null | sed -n 's/^QOS=//p'
}

_kaibatch_queues()
{
	kctl queue list 2>/dev/null | awk 'NR > 1 { print $1 }'
}

_kaibatch()
{
	local cur prev prog opts
	COMPREPLY=()
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}
	prog=${COMP_WORDS[0]##*/}

	if [ "$prog" = kctl ] && _kaibatch_kctl "$cur"; then
		return
	fi
	if [ "$prog" = kinfo ]; then
		case "$prev" in
		-t | --states)
			mapfile -t COMPREPLY < <(compgen -W "idle mix alloc down
			    drain drng all" -- "$cur")
			return
			;;
		-n | --nodes)
			mapfile -t COMPREPLY < <(compgen -W "$(_kaibatch_nodes)" \
			    -- "$cur")
			return
			;;
		-p | --partition)
			mapfile -t COMPREPLY < <(compgen -W \
			    "$(_kaibatch_partitions)" -- "$cur")
			return
			;;
		esac
	fi
	case "$prev" in
	-u | --user | --users)
		mapfile -t COMPREPLY < <(compgen -u -- "$cur")
		return
		;;
	-t | --states | --state | -s)
		mapfile -t COMPREPLY < <(compgen -W "PENDING CONFIGURING RUNNING
		    COMPLETED FAILED CANCELLED TIMEOUT PREEMPTED NODE_FAIL
		    OUT_OF_MEMORY PD CF R CD F CA TO PR NF OOM all" -- "$cur")
		return
		;;
	-o | --output | -e | --error | -D | --chdir | -f)
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		return
		;;
	--queue)
		mapfile -t COMPREPLY < <(compgen -W "$(_kaibatch_queues)" -- "$cur")
		return
		;;
	-q | --qos)
		mapfile -t COMPREPLY < <(compgen -W "$(_kaibatch_qos)" -- "$cur")
		return
		;;
	--open-mode)
		mapfile -t COMPREPLY < <(compgen -W "append truncate" -- "$cur")
		return
		;;
	--mail-type)
		mapfile -t COMPREPLY < <(compgen -W "NONE BEGIN END FAIL REQUEUE
		    ALL INVALID_DEPEND STAGE_OUT TIME_LIMIT TIME_LIMIT_90
		    TIME_LIMIT_80 TIME_LIMIT_50 ARRAY_TASKS" -- "$cur")
		return
		;;
	--kill-on-invalid-dep)
		mapfile -t COMPREPLY < <(compgen -W "yes no" -- "$cur")
		return
		;;
	-A)
		[ "$prog" = kshare ] &&
		    mapfile -t COMPREPLY < <(compgen -W "$(_kaibatch_queues)" -- "$cur")
		return
		;;
	-j | --jobs)
		mapfile -t COMPREPLY < <(compgen -W "$(_kaibatch_jobids)" -- "$cur")
		return
		;;
	esac
	if [[ "$cur" == -* ]]; then
		opts=$(_kaibatch_opts "${COMP_WORDS[0]}")
		mapfile -t COMPREPLY < <(compgen -W "$opts" -- "$cur")
		# No space after "--opt=": the value follows.
		[[ "${COMPREPLY[0]:-}" == *= ]] && compopt -o nospace 2>/dev/null
		return
	fi
	case "$prog" in
	ksubmit | ksim)
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		;;
	kcancel | klog | kseff | ksattach)
		mapfile -t COMPREPLY < <(compgen -W "$(_kaibatch_jobids)" -- "$cur")
		;;
	ksrun | ksalloc)
		mapfile -t COMPREPLY < <(compgen -c -- "$cur")
		;;
	esac
}

complete -F _kaibatch ksubmit kqueue kcancel kacct ksim kctl kinfo klog kshare \
    kseff ksrun ksalloc ksattach
