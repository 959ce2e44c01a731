#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t6460-account-fairshare: the accounts' weights inside a queue, Slurm's
# association shares (issue 12; kaid.yaml accounts.fairshare).  One node
# of 4 GPUs, accounts "heavy" (fairshare 3) and "light" (1), each with
# six 1-GPU jobs released at once, light's submitted first: the GPUs go
# 3 to heavy and 1 to light (by age alone light would get all four), and
# kshare shows each account's weight, its part of the queue's fair share
# and what it holds.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
stack_require

KAID_CONF_EXTRA='accounts:
  - name: heavy
    fairshare: 3
  - name: light
    fairshare: 1'
export KAID_CONF_EXTRA

T=$(mktemp -d /tmp/kai-t6460.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
cat >"$T/nodes.yaml" <<'EON'
nodes:
  - name: gpu-1
    cpu: 32
    memory: 64Gi
    gpus: 4
EON
stack_start "$T" "$T/nodes.yaml" || bail_out "could not start the stack"
A=$STACK_ALICE
mkdir -p "$T/work" && chown "$A:" "$T/work"

submit()
{
	(cd "$T/work" && as_user "$A" ksubmit --parsable -H "$@" \
	    --gres=gpu:1 --wrap "sleep 300")
}

ids=
for i in 1 2 3 4 5 6; do ids="$ids $(submit -A light)"; done
for i in 1 2 3 4 5 6; do ids="$ids $(submit -A heavy)"; done
# shellcheck disable=SC2086
as_user "$A" kctl release $ids
running()
{
	stack_psql "select account from jobs where state = 'RUNNING'
	    order by account" | uniq -c | awk '{print $2 "=" $1}' | tr '\n' ' '
}
for _ in $(seq 1 100); do
	[ "$(stack_psql "select count(*) from jobs where state = 'RUNNING'")" = 4 ] && break
	sleep 0.1
done
is "the 4 GPUs go 3:1 by the accounts' weights" "$(running)" \
    "heavy=3 light=1 "

# kshare: Queue|User|GPUQuota|GPULimit|GPUWeight|GPUFairShare|GPUAlloc|...
for _ in $(seq 1 50); do
	kshare --parsable2 --noheader | grep -q 'account:heavy' && break
	sleep 0.2
done
rows=$(kshare --parsable2 --noheader | awk -F'|' '$2 ~ /^account:/ {print $2, $5, $6, $7}')
is "kshare: each account's weight, part of the fair share, GPUs held" \
    "$rows" "account:heavy 3 3 3
account:light 1 1 1"
is "kshare --json: the account's fairshare" \
    "$(kshare --json | python3 -c '
import json, sys
for u in json.load(sys.stdin)["users"]:
    if u.get("account"):
        print(u["account"], u["fairshare"], u["gpu_fair_share"])')" \
    "heavy 3 3
light 1 1"

# shellcheck disable=SC2086
as_user "$A" kcancel $ids
done_testing
