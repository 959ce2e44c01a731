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
# from `kqueue --noheader -o %i` (your own jobs), queues (kshare -A)
# from `kctl queue list`.

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
	kcancel)
		mapfile -t COMPREPLY < <(compgen -W "$(_kaibatch_jobids)" -- "$cur")
		;;
	esac
}

complete -F _kaibatch ksubmit kqueue kcancel kacct ksim kctl kshare
