#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t1000-submit: a user submits a batch script; it runs as a pod on a
# simulated GPU node as that user's uid/gid, writes its output file, and
# kacct shows it COMPLETED with exit code 0:0.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"

stack_tiers kubesim real node
stack_require

T=$(mktemp -d /tmp/kai-t1000.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
stack_start "$T" || bail_out "could not start the stack"

A=$STACK_ALICE
W=$T/work-alice
mkdir -p "$W" && chown "$A:" "$W"
cat >"$W/hello.sh" <<'EOS'
#!/bin/sh
#SBATCH -J hello
#SBATCH --output=hello-%j.out
#SBATCH -t 5
echo "uid=$(id -u) gid=$(id -g) job=$SLURM_JOB_ID name=$SLURM_JOB_NAME"
echo "args: $*"
echo "to stderr" >&2
sleep 1
EOS
chown "$A:" "$W/hello.sh"

out=$(cd "$W" && as_user "$A" ksubmit hello.sh one two 2>&1)
like "ksubmit prints the job id" "$out" '^Submitted batch job [0-9]+$'
id=${out##* }

q=$(as_user "$A" kqueue)
like "kqueue has the squeue header" "$(echo "$q" | head -n 1)" \
    '^ +JOBID PARTITION +NAME +USER ST +TIME +NODES NODELIST\(REASON\)'
like "kqueue lists the job as pending or running" "$q" \
    "^ +$id +batch +hello +kaitest- +(PD|CF|R) "

ok "job starts running" wait_state "$id" RUNNING
q=$(as_user "$A" kqueue -j "$id" --noheader)
like "kqueue shows it running on a node" "$q" "^ +$id +batch +hello .* R .*(gpu-|cpu-|node-)"

ok "job completes" wait_state "$id" COMPLETED
f=$W/hello-$id.out
ok "output file exists" test -f "$f"
is "the pod ran as alice's uid and gid" "$(head -n 1 "$f")" \
    "uid=$(id -u "$A") gid=$(id -g "$A") job=$id name=hello"
like "script arguments arrive" "$(cat "$f")" 'args: one two'
like "stderr goes to the same file by default" "$(cat "$f")" 'to stderr'
is "output file belongs to alice" "$(stat -c %U "$f")" "$A"

a=$(as_user "$A" kacct -j "$id" --parsable2 --noheader \
    --format=JobID,JobName,State,ExitCode,Elapsed,User)
like "kacct shows COMPLETED 0:0 with elapsed time" "$a" \
    "^$id\|hello\|COMPLETED\|0:0\|00:00:0[0-9]\|$A$"

q=$(as_user "$A" kqueue --noheader -j "$id")
is "a finished job leaves kqueue" "$q" ""

if [ "$STACK_API" = kubesim ]; then
	n=$(grep -c '"method": *"POST", *"path": *"/api/v1/namespaces/default/pods"' "$T/kubesim.record")
	is "exactly one pod was created" "$n" 1
fi
# kubesim checks every object it is sent against the official Kubernetes
# OpenAPI schema (strict: unknown fields are errors) when it has the schema.
if [ "$STACK_API" != kubesim ]; then
	diag "real kube-apiserver: the server itself validated the pod"
elif [ -f "${KAI_K8S_SCHEMA:-$top_srcdir/../shared/k8s-openapi/swagger.json}" ]; then
	like "kubesim validated the pod against the OpenAPI schema" \
	    "$(kubesim_ctl /kubesim/stats)" '"schema_validation": *true'
else
	diag "no OpenAPI schema beside the tree: pods were not schema-checked"
fi

ok "kaid stops cleanly on SIGTERM" kaid_stop_clean

done_testing
