# SPDX-License-Identifier: GPL-3.0-or-later
# shellcheck shell=bash
#
# webhook.sh: kaid's admission webhook in a test stack (sourced after
# stack.sh, bash), registered with the real API server as a cluster would
# have it: contrib/kubernetes/webhook-cert.sh makes the CA and
# certificate, contrib/kubernetes/webhook.yaml is the registration, its
# Service reference swapped for kaid's address on loopback.
#
#	webhook_prepare DIR   certificates in DIR/tls; sets WEBHOOK_PORT and
#	                      WEBHOOK_CONF (kaid.yaml lines of the native:
#	                      section) for the caller's KAID_CONF_EXTRA
#	webhook_register DIR  registers it (the stack running); returns once
#	                      the API server calls it
#	webhook_mutated NS    whether a server-side dry run of a sharing pod
#	                      in NS comes back mutated now

webhook_prepare()
{
	local d=$1
	"$STACK_SRC/contrib/kubernetes/webhook-cert.sh" "$d/tls" IP:127.0.0.1 \
	    >/dev/null || return 1
	# Below the kernel's ephemeral range (32768 and up): the API server's
	# and kubelets' own connections, made before kaid starts, cannot
	# take it meanwhile, as they could a port stack_free_port gave.
	WEBHOOK_PORT=$(python3 -c 'import random, socket
for _ in range(200):
    p = random.randint(20000, 29999)
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", p))
    except OSError:
        continue
    print(p)
    break') || return 1
	[ -n "$WEBHOOK_PORT" ] || return 1
	WEBHOOK_CONF="  webhook_listen: 127.0.0.1:$WEBHOOK_PORT
  webhook_cert: $d/tls/webhook.crt
  webhook_key: $d/tls/webhook.key"
}

webhook_mutated()
{
	printf '%s' '{"apiVersion": "v1", "kind": "Pod",
 "metadata": {"name": "webhook-probe", "annotations": {"gpu-fraction": "0.5"}},
 "spec": {"schedulerName": "kaid",
  "containers": [{"name": "c", "image": "busybox"}]}}' |
	    kubectl --kubeconfig "$STACK_DIR/k8s/kubeconfig-admin" -n "$1" \
	    create --dry-run=server -o json -f - 2>/dev/null |
	    grep -q 'gpu-share-configmap'
}

# The registration of contrib/kubernetes/webhook.yaml, by URL.
webhook_json()
{
	python3 -c '
import json, sys, yaml
for doc in yaml.safe_load_all(open(sys.argv[1])):
    if doc["kind"] != "MutatingWebhookConfiguration":
        continue
    for w in doc["webhooks"]:
        path = w["clientConfig"]["service"]["path"]
        w["clientConfig"] = {"url": "https://127.0.0.1:%s%s" % (sys.argv[2], path),
                             "caBundle": sys.argv[3]}
    print(json.dumps(doc))' "$STACK_SRC/contrib/kubernetes/webhook.yaml" \
	    "$WEBHOOK_PORT" "$(base64 -w0 <"$1/tls/ca.crt")"
}

webhook_register()
{
	local d=$1
	webhook_json "$d" >"$d/webhook.json" || return 1
	kubectl --kubeconfig "$STACK_DIR/k8s/kubeconfig-admin" create \
	    -f "$d/webhook.json" >/dev/null || return 1
	for _ in $(seq 1 300); do
		webhook_mutated default && return 0
		sleep 0.1
	done
	echo "the API server never called the webhook" >&2
	return 1
}
