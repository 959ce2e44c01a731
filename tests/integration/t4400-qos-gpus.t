#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t4400-qos-gpus: a QoS's per-user GPU limit (kaid.yaml
# qos[].max_gpus_per_user, Slurm's MaxTRESPerUser=gres/gpu).  A user's
# running jobs of the QoS hold at most that many GPUs; the next one waits
# with Slurm's reason QOSMaxGRESPerUser (kqueue %r) while the nodes have
# room, and starts when an earlier one ends.  Other users, and the same
# user in another QoS, are not held back.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"

stack_require

KAID_CONF_EXTRA='qos:
  - name: normal
  - name: gpu2
    max_gpus_per_user: 2'
export KAID_CONF_EXTRA

T=$(mktemp -d /tmp/kai-t4400.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
stack_start "$T" || bail_out "could not start the stack"

A=$STACK_ALICE
B=$STACK_BOB
W=$T/work
mkdir -p "$W" && chmod 777 "$W" && cd "$W" || exit 1

# submit USER ARGS...: the job id.
submit()
{
	local u=$1 out
	shift
	out=$(as_user "$u" ksubmit -t 10 -o /dev/null "$@" 2>&1)
	printf '%s\n' "${out##* }"
}

# reason_is ID WANT: kqueue %r says WANT within 20 s.
reason_is()
{
	local i r
	for i in $(seq 200); do
		r=$(kqueue -h -j "$1" -o '%r')
		[ "$r" = "$2" ] && return 0
		sleep 0.1
	done
	echo "# job $1: reason \"$r\", not \"$2\"" >&2
	return 1
}

a1=$(submit "$A" -q gpu2 --gres=gpu:2 --wrap "sleep 300")
ok "alice's first job of 2 GPUs runs" wait_state "$a1" RUNNING
a2=$(submit "$A" -q gpu2 --gres=gpu:1 --wrap "sleep 300")
ok "her second waits with QOSMaxGRESPerUser" reason_is "$a2" QOSMaxGRESPerUser
is "it is pending" "$(kqueue -h -j "$a2" -o '%T')" PENDING
like "kctl show job says why in words" \
    "$(kctl show job "$a2" | grep 'Why=')" \
    'Why=the QoS lets a user.s jobs hold 2 GPUs: 2 in use, the job needs 1$'
like "kqueue --why says it too" "$(kqueue -h --why -j "$a2" -o '%r')" \
    '2 in use, the job needs 1'

b1=$(submit "$B" -q gpu2 --gres=gpu:2 --wrap "sleep 300")
ok "bob has a limit of his own: his job runs" wait_state "$b1" RUNNING
a3=$(submit "$A" --gres=gpu:4 --wrap "sleep 300")
ok "alice's job in another QoS runs" wait_state "$a3" RUNNING
is "her job of the limited QoS still waits" "$(kqueue -h -j "$a2" -o '%r')" \
    QOSMaxGRESPerUser
a4=$(submit "$A" -q gpu2 --wrap "sleep 300")
ok "a job of the QoS that asks for no GPU runs" wait_state "$a4" RUNNING

as_user "$A" kcancel "$a1"
ok "when her first job ends, the waiting one starts" wait_state "$a2" RUNNING

a5=$(submit "$A" -q gpu2 --gres=gpu:3 --wrap "true")
ok "a job over the limit by itself waits, as in Slurm" \
    reason_is "$a5" QOSMaxGRESPerUser

as_user "$A" kcancel "$a2" "$a3" "$a4" "$a5"
as_user "$B" kcancel "$b1"
done_testing
