#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# completion: contrib/completion/kaibatch.bash completes what the real
# programs accept, read from their --help.

. "$top_srcdir/tests/lib/tap.sh"
[ -x "$top_builddir/clients/ksubmit" ] || skip_all "clients not built"
PATH=$top_builddir/clients:$PATH
. "$top_srcdir/contrib/completion/kaibatch.bash"

# complete WORDS...: runs the completion for the command line WORDS (the
# last one being completed) and prints the candidates, one line.
complete_line()
{
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	_kaibatch
	[ ${#COMPREPLY[@]} -eq 0 ] || printf '%s ' "${COMPREPLY[@]}"
}

is "ksubmit --par completes the three options" \
    "$(complete_line ksubmit --par)" "--parsable --partition= --parse-only "
like "ksubmit options come from its --help" "$(complete_line ksubmit --)" \
    '--gres= .*--wrap='
is "ksubmit --open-mode offers its two modes" \
    "$(complete_line ksubmit --open-mode "")" "append truncate "
is "ksubmit --kill-on-invalid-dep offers yes and no" \
    "$(complete_line ksubmit --kill-on-invalid-dep y)" "yes "
is "kqueue --noh completes --noheader" "$(complete_line kqueue --noh)" "--noheader "
like "kacct --format= is offered" "$(complete_line kacct --form)" '^--format= $'
is "states after -t" "$(complete_line kqueue -t RUN)" "RUNNING "
is "users after -u" "$(complete_line kqueue -u roo)" "root "
is "kshare --pa completes --parsable2" "$(complete_line kshare --pa)" \
    "--parsable2 "
is "kshare: users after --users" "$(complete_line kshare --users roo)" "root "
is "an unknown prefix completes to nothing" "$(complete_line kcancel --zz)" ""
is "kinfo --no completes --nodes= and --noheader" "$(complete_line kinfo --no)" "--nodes= --noheader "
is "kinfo -t offers node states" "$(complete_line kinfo -t dr)" "drain drng "
is "klog --f completes --follow" "$(complete_line klog --f)" "--follow "
is "kctl's commands" "$(complete_line kctl "")" \
    "show hold release requeue update queue "
is "kctl show's entities" "$(complete_line kctl show "")" \
    "job node partition qos "
is "kctl update job's keys" "$(complete_line kctl update job 42 T)" \
    "TimeLimit= "
is "kctl queue's commands" "$(complete_line kctl queue de)" "delete "

done_testing
