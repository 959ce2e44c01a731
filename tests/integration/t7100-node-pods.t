#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t7100-node-pods: jobs in real containers, as a user sees them (node
# tier only: KAI_STACK_API=node, a real kube-apiserver, containerd and
# kubelet).  The job runs in its directory on the shared filesystem
# (/tmp, the node tier's), writes its output there owned by the user, and
# finds itself: `id -un` and `whoami` name the user, HOME, USER and
# LOGNAME are set with --export=NONE, /dev/shm is sized from --mem, the
# wrapper and shims come from kaid's ConfigMap, and every rule of the
# restricted profile holds in the kernel's own words (no_new_privs, no
# capability, a seccomp filter, not root).  A job over its --mem ends
# OUT_OF_MEMORY from the real cgroup, one over its -t ends TIMEOUT from
# the real kubelet; exit codes and signals come back as Slurm shows them;
# kcancel gives the script SIGTERM and, after the grace period, SIGKILL;
# klog shows the output; a directory outside the filesystems is refused
# at submit; a node tainted NoSchedule gets no pods until the taint goes.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"

stack_tiers node -- "runs jobs in real containers (KAI_STACK_API=node)"
stack_require

T=$(mktemp -d /tmp/kai-t7100.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
stack_start "$T" || bail_out "could not start the stack"

A=$STACK_ALICE
AU=$(id -u "$A")
AH=$(getent passwd "$A" | cut -d: -f6)
W=$T/alice
mkdir -p "$W" && chown "$A:" "$W" && chmod 755 "$T"

submit()
{
	(cd "$W" && as_user "$A" ksubmit --parsable "$@")
}
acct()
{
	as_user "$A" kacct -j "$1" -P -n --format=State,ExitCode
}
api()	# METHOD PATH [JSON]: the API server's answer
{
	curl -sS --cacert "$STACK_DIR/kubesim/ca.crt" \
	    -H "Authorization: Bearer $KUBESIM_TOKEN" -X "$1" \
	    -H 'Content-Type: application/merge-patch+json' \
	    ${3:+-d "$3"} "$KUBESIM_URL$2"
}

# --- who and where the job is
cat >"$W/who.sh" <<'EOS'
#!/bin/sh
echo "id-un=$(id -un) whoami=$(whoami) uid=$(id -u)"
echo "HOME=$HOME USER=$USER LOGNAME=$LOGNAME"
echo "pwd=$(pwd)"
echo "shm=$(df -k /dev/shm | awk 'NR == 2 { print $1, $2 }')"
echo "scontrol=$(command -v scontrol) $(scontrol show hostnames 'n[1-2]' | tr '\n' ' ')"
grep -E '^(NoNewPrivs|CapEff|CapPrm|Seccomp):' /proc/self/status | tr -s '\t' ' '
EOS
chown "$A:" "$W/who.sh"
id=$(submit --export=NONE --mem=256M -t 2 who.sh)
ok "a job with --export=NONE completes" wait_state "$id" COMPLETED 600
f=$W/slurm-$id.out
is "its output is in the user's directory, owned by the user" \
    "$(stat -c %U "$f" 2>/dev/null)" "$A"
out=$(cat "$f" 2>/dev/null)
like "id -un and whoami name the user" "$out" \
    "id-un=$A whoami=$A uid=$AU"
like "HOME, USER and LOGNAME with --export=NONE" "$out" \
    "HOME=$AH USER=$A LOGNAME=$A"
like "it runs in its submit directory" "$out" "pwd=$W"
like "/dev/shm is memory (tmpfs)" "$out" "shm=tmpfs "
like "scontrol comes from kaid's ConfigMap" "$out" \
    "scontrol=/kaibatch/bin/scontrol n1 n2"
like "restricted: no privilege escalation (no_new_privs)" "$out" "NoNewPrivs: 1"
like "restricted: every capability dropped" "$out" \
    "CapEff: 0000000000000000"
like "restricted: the runtime's seccomp filter" "$out" "Seccomp: 2"
unlike "restricted: not root" "$out" "uid=0"

# --- limits: the real cgroup, the real kubelet
cat >"$W/hog.sh" <<'EOS'
#!/bin/sh
echo filling
x=$(head -c 400000000 /dev/zero | tr '\0' a)
echo "survived ${#x}"
EOS
chown "$A:" "$W/hog.sh"
id=$(submit --mem=64M -t 2 hog.sh)
ok "a job over its --mem ends OUT_OF_MEMORY" wait_state "$id" OUT_OF_MEMORY 900
like "kacct: Reason OOMKilled" \
    "$(as_user "$A" kacct -j "$id" -P -n --format=State,Reason)" \
    '^OUT_OF_MEMORY\|OOMKilled'
id=$(submit -t 0:05 --wrap 'echo start; sleep 300')
ok "a job over its -t ends TIMEOUT" wait_state "$id" TIMEOUT 900

# --- exit codes, signals, klog
id=$(submit --wrap 'echo "about to fail"; exit 3')
ok "exit 3 is FAILED" wait_state "$id" FAILED 600
is "ExitCode 3:0" "$(acct "$id")" "FAILED|3:0"
like "kacct keeps its last lines as the reason" \
    "$(as_user "$A" kacct -j "$id" -P -n --format=Reason)" 'about to fail'
id=$(submit --wrap 'echo dying; kill -USR1 $$; sleep 5')
ok "death by a signal is FAILED" wait_state "$id" FAILED 600
is "ExitCode 0:10 (SIGUSR1)" "$(acct "$id")" "FAILED|0:10"

cat >"$W/term.sh" <<'EOS'
#!/bin/sh
trap 'echo "got TERM"; trap "" TERM' TERM
echo running
i=0
while :; do sleep 1; i=$((i + 1)); echo "tick $i"; done
EOS
chown "$A:" "$W/term.sh"
id=$(submit -t 5 term.sh)
ok "a job that ignores SIGTERM runs" wait_state "$id" RUNNING 600
out=
for _ in $(seq 1 100); do
	out=$(as_user "$A" klog "$id" 2>&1)
	printf '%s' "$out" | grep -q '^running' && break
	sleep 0.1
done
like "klog shows its output from the container" "$out" '^running'
start=$(date +%s)
as_user "$A" kcancel "$id"
ok "kcancel ends it CANCELLED" wait_state "$id" CANCELLED 100
gone=
for _ in $(seq 1 600); do
	[ "$(api GET "/api/v1/namespaces/default/pods/kai-$id-0" |
	    python3 -c 'import json, sys; print(json.load(sys.stdin).get("code", 200))')" = 404 ] &&
	    { gone=$(date +%s); break; }
	sleep 0.1
done
like "the script got SIGTERM" "$(cat "$W/slurm-$id.out")" "got TERM"
ok "and SIGKILL after the grace period (30 s)" \
    test -n "$gone" -a $((gone - start)) -ge 25 -a $((gone - start)) -le 60
n1=$(wc -l <"$W/slurm-$id.out")
sleep 2
is "nothing runs after it" "$(wc -l <"$W/slurm-$id.out")" "$n1"

# --- refused at submit
mkdir -p "$AH" && chown "$A:" "$AH"
out=$(cd "$AH" && as_user "$A" ksubmit --wrap true 2>&1)
is "a job from outside the shared filesystems is refused" "$out" \
    "ksubmit: error: working directory \"$AH\" is not on a shared filesystem (/tmp)"

# --- a tainted node gets no pods
is "node-1 is tainted NoSchedule" \
    "$(api PATCH /api/v1/nodes/node-1 '{"spec":{"taints":[{"key":"kaibatch.io/maint","effect":"NoSchedule"}]}}' |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["spec"]["taints"][0]["key"])')" \
    kaibatch.io/maint
id=$(submit --wrap 'echo ran')
sleep 3
is "a job waits" "$(stack_psql "select state from jobs where id = $id")" PENDING
is "with no pod on the tainted node" \
    "$(stack_psql "select count(*) from allocations where job_id = $id")" 0
api PATCH /api/v1/nodes/node-1 '{"spec":{"taints":null}}' >/dev/null
ok "once the taint is gone it runs" wait_state "$id" COMPLETED 600

done_testing
