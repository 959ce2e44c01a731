#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t1290-qos: QoS and accounts as a Slurm user meets them (issue 12).
# kaid.yaml defines the QoS (normal, the default; debug, short and of
# high priority) and the accounts (six@a100 for alice only; open for
# anyone).  -q names the QoS and never the partition; the job shows it in
# kqueue %q, kacct's QOS, kctl show job and SLURM_JOB_QOS; an unknown QoS,
# an account the user may not charge and a -t over the QoS's MaxWall are
# refused with Slurm's messages and exit 1, and nothing is written.
# -p a,b runs the job in the first listed partition that can run it.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"

stack_require

KAID_CONF_EXTRA='qos:
  - name: normal
  - name: debug
    priority: 125
    max_wall: "10:00"
  - name: scavenger
    priority: 10
    preemptible: "true"
accounts:
  - name: six@a100
    users: [kaitest-alice]
  - name: open'
export KAID_CONF_EXTRA

T=$(mktemp -d /tmp/kai-t1290.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
stack_start "$T" || bail_out "could not start the stack"

A=$STACK_ALICE
B=$STACK_BOB
W=$T/work
mkdir -p "$W" && chmod 777 "$W" && cd "$W" || exit 1
cat >env.sh <<'EOS'
#!/bin/sh
#SBATCH -t 5
echo "QOS=${SLURM_JOB_QOS-unset} ACCOUNT=${SLURM_JOB_ACCOUNT-unset}" \
    >"$SLURM_SUBMIT_DIR/env-$SLURM_JOB_ID.txt"
EOS
chmod 644 env.sh

jobs()
{
	stack_psql "select count(*) from jobs"
}

# refused TITLE REGEX USER ARGS...: ksubmit exits 1 with one line matching
# REGEX, and no job is written.
refused()
{
	local title=$1 re=$2 u=$3 out rc before
	shift 3
	before=$(jobs)
	out=$(as_user "$u" ksubmit "$@" 2>&1 >/dev/null)
	rc=$?
	is "$title: exit 1" "$rc" 1
	like "$title: Slurm's message" "$out" "$re"
	is "$title: a single line" "$(printf '%s\n' "$out" | grep -c .)" 1
	is "$title: nothing written" "$(jobs)" "$before"
}

id_of()
{
	printf '%s\n' "${1##* }"
}

# kctl show qos: what kaid loaded, for anyone.
is "kctl show qos debug" "$(as_user "$B" kctl show qos debug)" \
"QOS=debug
   Default=NO Priority=125 Preemptible=auto
   MaxWall=00:10:00 MaxTRESPerUser=N/A"
is "kctl show qos: every QoS, the default marked" \
    "$(kctl show qos | grep -E '^QOS=|Default=' | tr -s ' \n' ' ')" \
    "QOS=normal Default=YES Priority=N/A Preemptible=auto QOS=debug Default=NO Priority=125 Preemptible=auto QOS=scavenger Default=NO Priority=10 Preemptible=true "
out=$(kctl show qos nosuch 2>&1)
is "kctl show qos of an unknown QoS: exit 1" "$?" 1
is "and says so" "$out" "kctl: error: QOS nosuch not found"

# -q names the QoS; -A an account alice may charge.
out=$(as_user "$A" ksubmit -q debug -A six@a100 env.sh 2>&1)
like "ksubmit -q debug -A six@a100" "$out" '^Submitted batch job [0-9]+$'
id=$(id_of "$out")
is "kqueue %q %a %P: the QoS, the account, the default partition" \
    "$(kqueue -h -j "$id" -o '%q %a %P')" "debug six@a100 batch"
like "kctl show job: QOS=" "$(kctl show job "$id" | grep 'QOS=')" \
    'Account=six@a100 QOS=debug$'
ok "the job completes" wait_state "$id" COMPLETED
is "the job sees SLURM_JOB_QOS and SLURM_JOB_ACCOUNT" \
    "$(cat "env-$id.txt")" "QOS=debug ACCOUNT=six@a100"
is "kacct -o qos,account" \
    "$(as_user "$A" kacct -n -P -X -j "$id" -o qos,account)" "debug|six@a100"
like "kacct --json has the qos" \
    "$(as_user "$A" kacct --json -j "$id")" '"qos": *"debug"'

# -q filters kqueue and kacct, as squeue -q and sacct -q do.
id2=$(id_of "$(as_user "$A" ksubmit -H env.sh)")
is "kqueue -q debug: the debug jobs only" \
    "$(kqueue -h -q debug -o '%i' -t all | tr '\n' ' ')" "$id "
is "kqueue -q debug,normal: both" \
    "$(kqueue -h -q debug,normal -o '%i' -t all -j "$id,$id2" | sort -n | tr '\n' ' ')" \
    "$id $id2 "
is "kacct -q debug" "$(as_user "$A" kacct -n -X -P -q debug -o jobid)" "$id"
as_user "$A" kcancel "$id2"

# No -q: the default QoS.  No -A: the first account the user may charge
# (Slurm's default account): six@a100 for alice, open for bob.
id=$(id_of "$(as_user "$A" ksubmit -H env.sh)")
is "no -q: the default QoS; no -A: alice's default account" \
    "$(kqueue -h -j "$id" -o '%q %a')" "normal six@a100"
id=$(id_of "$(as_user "$B" ksubmit -H env.sh)")
is "bob's default account is the one anyone may charge" \
    "$(kqueue -h -j "$id" -o '%q %a')" "normal open"

# #SBATCH -q after -p: the partition stays, the QoS is set.
printf '#!/bin/sh\n#SBATCH -p gpu\n#SBATCH -q debug\n#SBATCH -t 5\ntrue\n' \
    >dirs.sh
id=$(id_of "$(as_user "$A" ksubmit -H dirs.sh)")
is "#SBATCH -q debug after #SBATCH -p gpu" \
    "$(kqueue -h -j "$id" -o '%P %q')" "gpu debug"

# The QoS's MaxWall: a job without -t gets it (the partition's default
# is longer), one that asks for more is refused.
id=$(id_of "$(printf '#!/bin/sh\ntrue\n' | as_user "$A" ksubmit -H -q debug)")
is "no -t under debug: the time limit is its MaxWall" \
    "$(kqueue -h -j "$id" -o '%l')" "10:00"
refused "-t over the QoS's MaxWall" \
    "^ksubmit: error: Job violates accounting/QOS policy \\(job submit limit, user's size and/or time limits\\): time limit 30:00 exceeds MaxWall 10:00 of QOS \"debug\"$" \
    "$A" -q debug -t 30 env.sh

# kctl update job TimeLimit= keeps the QoS's MaxWall too.
out=$(as_user "$A" kctl update job "$id" TimeLimit=30 2>&1)
is "kctl update TimeLimit over MaxWall: exit 1" "$?" 1
is "kctl update TimeLimit over MaxWall: Slurm's message" "$out" \
    "kctl: error: Job violates accounting/QOS policy (job submit limit, user's size and/or time limits): time limit 30:00 exceeds MaxWall 10:00 of QOS \"debug\""
as_user "$A" kctl update job "$id" TimeLimit=5
is "kctl update TimeLimit under MaxWall" "$(kqueue -h -j "$id" -o '%l')" "5:00"

refused "an unknown QoS" '^ksubmit: error: Invalid qos specification$' \
    "$A" -q nosuch env.sh
printf '#!/bin/sh\n#SBATCH -q high\ntrue\n' >high.sh
refused "an unknown QoS in #SBATCH -q" '^ksubmit: error: Invalid qos specification$' \
    "$A" high.sh
refused "an account bob may not charge" \
    '^ksubmit: error: Invalid account or account/partition combination specified$' \
    "$B" -A six@a100 env.sh
refused "an account nobody defined" \
    '^ksubmit: error: Invalid account or account/partition combination specified$' \
    "$A" -A physics env.sh

# The QoS's priority and preemptibility are the scheduler's.
id=$(id_of "$(as_user "$A" ksubmit -q scavenger env.sh)")
is "scavenger: priority 10, preemptible" \
    "$(stack_psql "select priority || ' ' || preemptible from jobs where id = $id")" \
    "10 true"
id=$(id_of "$(as_user "$A" ksubmit -q debug env.sh)")
is "debug: priority 125, not preemptible" \
    "$(stack_psql "select priority || ' ' || preemptible from jobs where id = $id")" \
    "125 false"
id=$(id_of "$(as_user "$A" ksubmit -q debug --priority build env.sh)")
is "an explicit --priority class wins over the QoS's priority" \
    "$(stack_psql "select priority from jobs where id = $id")" 100

# A held job has priority 0; released, it gets its submission's back.
# prio ID: the job's priority as kqueue shows it.
prio()
{
	kqueue -h -j "$1" -o '%Q' | tr -d ' '
}
h1=$(id_of "$(as_user "$A" ksubmit -H -q scavenger env.sh)")
h2=$(id_of "$(as_user "$A" ksubmit -H -q debug --priority build env.sh)")
h3=$(id_of "$(as_user "$A" ksubmit -H env.sh)")
is "held: priority 0" "$(prio "$h1") $(prio "$h2") $(prio "$h3")" "0 0 0"
as_user "$A" kctl release "$h1" "$h2" "$h3"
# Released, they may run and end before kqueue is asked (it shows
# active jobs only): their records say it.
is "released: the QoS's, the class's, the default class's" \
    "$(stack_psql "select string_agg(priority::text, ' ' order by id) from jobs where id in ($h1, $h2, $h3)")" \
    "10 100 50"

# -p a,b: the first listed partition that can run the job.
id=$(id_of "$(as_user "$A" ksubmit -H -p gpu,batch env.sh)")
is "-p gpu,batch: the first" "$(kqueue -h -j "$id" -o '%P')" gpu
id=$(id_of "$(as_user "$A" ksubmit -H -p short,batch -t 60 env.sh)")
is "-p short,batch -t 60: short's MaxTime is 10, so batch" \
    "$(kqueue -h -j "$id" -o '%P %l')" "batch 1:00:00"
id=$(id_of "$(as_user "$A" ksubmit -H -p nosuch,short env.sh)")
is "-p nosuch,short: the one that exists" "$(kqueue -h -j "$id" -o '%P')" short
printf '#!/bin/sh\n#SBATCH -p short,gpu\n#SBATCH -t 2:00:00\ntrue\n' >list.sh
id=$(id_of "$(as_user "$A" ksubmit -H list.sh)")
is "#SBATCH -p short,gpu -t 2:00:00: gpu" "$(kqueue -h -j "$id" -o '%P')" gpu
refused "-p short,nosuch -t 60: none can; the first one's reason" \
    '^ksubmit: error: requested time limit exceeds the limit of partition "short"$' \
    "$A" -p short,nosuch -t 60 env.sh
refused "-p with an empty name" '^ksubmit: error: invalid partition specified: ""$' \
    "$A" -p ,nosuch env.sh

done_testing
