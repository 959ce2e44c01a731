#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t1510-incluster: kaid with no kubeconfig finds its API server the way it
# does in a pod: KUBERNETES_SERVICE_HOST / KUBERNETES_SERVICE_PORT and the
# service-account files token, ca.crt and namespace under
# /var/run/secrets/kubernetes.io/serviceaccount/.  The files are put
# where a pod would see them without touching the host: kaid runs under
# `unshare --mount`, with an overlay (or, failing that, a tmpfs) mounted
# on /run in its own mount namespace only.  The token and CA are those of
# the API server the stack started (kubesim, or with KAI_STACK_API=real
# the real kube-apiserver and the RBAC-limited user "kaid"); the namespace
# file says kube-public, which both servers have, so the job's pod and
# its Scheduled event land there and not in "default".  Without the files
# kaid refuses to start, naming what is missing.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"

stack_require
stack_tiers kubesim real
[ "$(id -u)" -eq 0 ] || skip_all "needs root for unshare --mount"
command -v unshare >/dev/null 2>&1 ||
    skip_all "unshare not found (util-linux)"
unshare --mount true 2>/dev/null ||
    skip_all "unshare --mount is not permitted here"

T=$(mktemp -d /tmp/kai-t1510.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
stack_start "$T" || bail_out "could not start the stack"
kaid_stop

NS=kube-public
SA=/var/run/secrets/kubernetes.io/serviceaccount
RUN=$(readlink -f /var/run)
if [ "$STACK_API" = real ]; then
	TOKEN_FILE=$T/k8s/token-kaid
	CA_FILE=$T/k8s/ca.crt
else
	printf '%s' "$KUBESIM_TOKEN" >"$T/token-sim"
	TOKEN_FILE=$T/token-sim
	CA_FILE=$T/kubesim/ca.crt
fi
hostport=${KUBESIM_URL#https://}
SVC_HOST=${hostport%:*}
SVC_PORT=${hostport##*:}

# kaid.yaml as in a pod: no kubeconfig, no namespace.
# (the kubernetes: section stays for the stack's other keys, pod_helpers)
sed -e '/^  kubeconfig:/d' -e '/^  namespace:/d' \
    "$T/kaid.yaml" >"$T/kaid-ic.yaml"
unlike "the configuration names no kubeconfig" "$(cat "$T/kaid-ic.yaml")" \
    'kubeconfig|namespace'

# Without the files, kaid refuses to start and says why.
if [ ! -e "$SA" ]; then
	out=$(KUBERNETES_SERVICE_HOST=$SVC_HOST KUBERNETES_SERVICE_PORT=$SVC_PORT \
	    timeout 20 "$STACK_BIN/daemons/kaid/kaid" -F -f "$T/kaid-ic.yaml" 2>&1)
	rc=$?
	ok "without the service-account files kaid exits non-zero" \
	    test "$rc" -ne 0 -a "$rc" -ne 124
	like "and names the token file" "$out" "$SA/token"
else
	diag "$SA exists on this host: the refusal without it is not tried"
fi

# The pod's view, built in kaid's own mount namespace.
host_secrets=$([ -e "$RUN/secrets" ] && echo present || echo absent)
mkdir -p "$T/ovl/upper" "$T/ovl/work"
cat >"$T/incluster.sh" <<EOF
#!/bin/sh
set -e
mount --make-rprivate /
mount -t overlay overlay -o lowerdir=$RUN,upperdir=$T/ovl/upper,workdir=$T/ovl/work $RUN 2>/dev/null ||
    mount -t tmpfs -o mode=755 tmpfs $RUN
mkdir -p $RUN/secrets/kubernetes.io/serviceaccount
cp $TOKEN_FILE $RUN/secrets/kubernetes.io/serviceaccount/token
cp $CA_FILE $RUN/secrets/kubernetes.io/serviceaccount/ca.crt
printf %s $NS >$RUN/secrets/kubernetes.io/serviceaccount/namespace
exec env KUBERNETES_SERVICE_HOST=$SVC_HOST KUBERNETES_SERVICE_PORT=$SVC_PORT \\
    $STACK_BIN/daemons/kaid/kaid -F -f $T/kaid-ic.yaml
EOF
chmod 755 "$T/incluster.sh"
unshare --mount "$T/incluster.sh" >>"$T/kaid.log" 2>&1 &
echo $! >"$T/kaid.pid"
for _ in $(seq 1 100); do
	kqueue --noheader >/dev/null 2>&1 && break
	kill -0 "$(cat "$T/kaid.pid")" 2>/dev/null || break
	sleep 0.1
done
ok "kaid starts from the in-cluster files" kqueue --noheader ||
    bail_out "kaid did not start: $(tail -n 1 "$T/kaid.log")"
is "the host's view of $RUN is unchanged" \
    "$([ -e "$RUN/secrets" ] && echo present || echo absent)" "$host_secrets"

A=$STACK_ALICE
W=$T/work-alice
mkdir -p "$W" && chown "$A:" "$W"
cat >"$W/ic.sh" <<'EOS'
#!/bin/sh
#SBATCH -t 5
echo "in-cluster job $SLURM_JOB_ID"
EOS
chown "$A:" "$W/ic.sh"
out=$(cd "$W" && as_user "$A" ksubmit ic.sh 2>&1)
like "ksubmit prints the job id" "$out" '^Submitted batch job [0-9]+$'
id=${out##* }
ok "the job completes" wait_state "$id" COMPLETED
is "its output is there" "$(cat "$W/slurm-$id.out" 2>/dev/null)" \
    "in-cluster job $id"
node=$(stack_psql "select node from allocations where job_id = $id")
ev=$(kubesim_ctl "/api/v1/namespaces/$NS/events?fieldSelector=involvedObject.name%3Dkai-$id-0" |
    python3 -c 'import json, sys; print(" ".join(e["message"] for e in json.load(sys.stdin)["items"]))')
is "the pod was made in the service account's namespace" "$ev" \
    "Successfully assigned $NS/kai-$id-0 to $node"

# The kubelet rotates the token; kaid must pick up the new one.  kubesim
# can refuse the old token from a given moment, as an expired one is; the
# real server's static tokens cannot be retired while it runs.
if [ "$STACK_API" = real ]; then
	diag "token rotation is tried on kubesim only (static tokens here)"
else
	new=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
	nsenter --mount --target "$(cat "$T/kaid.pid")" sh -c \
	    "printf '%s\n' $new >$SA/token.new && mv $SA/token.new $SA/token"
	kubesim_ctl "/kubesim/token?value=$new" POST >/dev/null
	KUBESIM_TOKEN=$new
	is "kubesim refuses the old token" "$(curl -s -o /dev/null \
	    -w '%{http_code}' --cacert "$CA_FILE" \
	    -H "Authorization: Bearer $(cat "$TOKEN_FILE")" \
	    "$KUBESIM_URL/api/v1/nodes")" 401
	out=$(cd "$W" && as_user "$A" ksubmit ic.sh 2>&1)
	id2=${out##* }
	ok "a job submitted after the rotation completes" \
	    wait_state "$id2" COMPLETED
	like "kaid logged the new token" "$(cat "$T/kaid.log")" \
	    'read a new token from "[^"]*/serviceaccount/token"'
fi

ok "kaid stops cleanly on SIGTERM" kaid_stop_clean

done_testing
