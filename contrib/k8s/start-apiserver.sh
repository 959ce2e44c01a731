#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# start-apiserver.sh DIR: a real Kubernetes control plane on loopback for
# tests: Debian's etcd and the kube-apiserver that build-apiserver.sh put
# in the cache, on free ports chosen now (so that parallel test runs do
# not collide), with everything in DIR:
#
#   ca.crt ca.key            a CA made for this run
#   apiserver.crt/.key       serving certificate (127.0.0.1, localhost)
#   sa.key sa.pub            service-account signing keys
#   tokens.csv               static tokens: admin (system:masters),
#                            kaid (no groups: only what RBAC grants),
#                            kubelet-sim (system:masters, for kubesim)
#   token-USER               each token alone
#   kubeconfig-admin, kubeconfig-kaid, kubeconfig-kubelet-sim
#                            CA data + token, context namespace "default"
#   apiserver.url            https://127.0.0.1:PORT
#   audit.log                one JSON line per pod create, bind or delete
#                            and pods/status patch (audit-policy.yaml):
#                            what tests count
#   etcd.pid apiserver.pid   for stop-apiserver.sh DIR
#   etcd.log apiserver.log   etcd/ (its data)
#
# It returns once /readyz answers "ok" (5-10 s).  The flags follow
# ../../../shared/reference/k8s-apiserver-notes.md: RBAC authorization,
# ServiceAccount admission off (no controller-manager makes tokens),
# --endpoint-reconciler-type=none (127.0.0.1 must not become the
# "kubernetes" service endpoint), service-account issuer flags (required
# in 1.20), and InternalIP first for the kubelet connection, so that
# pods/NAME/log reaches kubesim --kubelet-only on 127.0.0.1.
#
# Environment: KAI_K8S_CACHE (where build-apiserver.sh put the binary),
# KAI_K8S_APISERVER (the binary itself), KAI_K8S_ETCD (default: etcd on
# PATH, from Debian's etcd-server).
#
# Exit status: 0 when ready; 1 otherwise, with one line on stderr (and
# the log's tail) and nothing left running.

set -u
PROG=start-apiserver.sh
die() { echo "$PROG: error: $*" >&2; exit 1; }

[ $# -eq 1 ] || { echo "usage: $PROG DIR" >&2; exit 2; }
D=$1
CACHE=${KAI_K8S_CACHE:-/var/cache/kaibatch/kube-apiserver-1.20.2}
APISERVER=${KAI_K8S_APISERVER:-$CACHE/kube-apiserver}
ETCD=${KAI_K8S_ETCD:-$(command -v etcd 2>/dev/null || echo /usr/bin/etcd)}
HERE=$(cd "$(dirname "$0")" && pwd)

[ -x "$APISERVER" ] ||
    die "kube-apiserver not found at \"$APISERVER\" (run contrib/k8s/build-apiserver.sh)"
[ -x "$ETCD" ] || die "etcd not found at \"$ETCD\" (apt-get install etcd-server)"
for tool in openssl curl python3; do
	command -v $tool >/dev/null 2>&1 || die "$tool not found"
done
mkdir -p "$D" || die "cannot create \"$D\""
D=$(cd "$D" && pwd)
for f in etcd.pid apiserver.pid; do
	if [ -s "$D/$f" ] && kill -0 "$(cat "$D/$f")" 2>/dev/null; then
		die "\"$D\" already has a running ${f%.pid} (pid $(cat "$D/$f"))"
	fi
	rm -f "$D/$f"
done

# --- certificates, keys, tokens ---------------------------------------------
ssl() { openssl "$@" >>"$D/openssl.log" 2>&1 || die "openssl $1 failed (see $D/openssl.log)"; }
(
	cd "$D" || exit 1
	umask 077
	ssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt \
	    -days 3650 -subj /CN=kaibatch-test-ca \
	    -addext basicConstraints=critical,CA:TRUE \
	    -addext keyUsage=critical,keyCertSign,cRLSign
	ssl req -newkey rsa:2048 -nodes -keyout apiserver.key \
	    -out apiserver.csr -subj /CN=kube-apiserver
	printf '%s\n' "subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes.default.svc" \
	    "extendedKeyUsage=serverAuth" \
	    "keyUsage=critical,digitalSignature,keyEncipherment" >apiserver.ext
	ssl x509 -req -in apiserver.csr -CA ca.crt -CAkey ca.key \
	    -CAcreateserial -days 3650 -extfile apiserver.ext -out apiserver.crt
	ssl genrsa -out sa.key 2048
	ssl rsa -in sa.key -pubout -out sa.pub
	rm -f apiserver.csr apiserver.ext ca.srl
	: >tokens.csv
	for spec in admin:system:masters kaid: kubelet-sim:system:masters; do
		user=${spec%%:*} groups=${spec#*:}
		tok=$(openssl rand -hex 16) || exit 1
		printf '%s\n' "$tok" >"token-$user"
		if [ -n "$groups" ]; then
			echo "$tok,$user,$user-uid,\"$groups\"" >>tokens.csv
		else
			echo "$tok,$user,$user-uid" >>tokens.csv
		fi
	done
) || exit 1

# --- ports ------------------------------------------------------------------
# Three distinct free ports, held open together while chosen.
PORTS=$(python3 -c '
import socket
s = [socket.socket() for _ in range(3)]
for x in s:
    x.bind(("127.0.0.1", 0))
print(" ".join(str(x.getsockname()[1]) for x in s))') || die "cannot pick free ports"
# shellcheck disable=SC2086
set -- $PORTS
ETCD_CLIENT=$1 ETCD_PEER=$2 API_PORT=$3
URL=https://127.0.0.1:$API_PORT

stop_all() {
	"$HERE/stop-apiserver.sh" "$D" >/dev/null 2>&1
}
fail_log() {
	echo "$PROG: error: $1" >&2
	tail -n 15 "$2" | sed 's/^/  /' >&2
	stop_all
	exit 1
}

# --- etcd -------------------------------------------------------------------
rm -rf "$D/etcd"
"$ETCD" --name kaitest --data-dir "$D/etcd" \
    --listen-client-urls "http://127.0.0.1:$ETCD_CLIENT" \
    --advertise-client-urls "http://127.0.0.1:$ETCD_CLIENT" \
    --listen-peer-urls "http://127.0.0.1:$ETCD_PEER" \
    --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER" \
    --initial-cluster "kaitest=http://127.0.0.1:$ETCD_PEER" \
    --listen-metrics-urls "" \
    </dev/null >"$D/etcd.log" 2>&1 &
echo $! >"$D/etcd.pid"
i=0
until curl -fsS "http://127.0.0.1:$ETCD_CLIENT/health" 2>/dev/null | grep -q '"health":"true"'; do
	i=$((i + 1))
	kill -0 "$(cat "$D/etcd.pid")" 2>/dev/null || fail_log "etcd exited" "$D/etcd.log"
	[ $i -lt 150 ] || fail_log "etcd not healthy after 15 s" "$D/etcd.log"
	sleep 0.1
done

# --- kube-apiserver ------------------------------------------------------------
# The audit log records each pod create and delete with its answer, so a
# test can tell whether a pod was created twice (kubesim has its own
# record; a real API server has this).
cat >"$D/audit-policy.yaml" <<'EOF2'
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: Request
  verbs: ["create", "delete"]
  resources:
  - group: ""
    resources: ["pods", "pods/binding"]
- level: Request
  verbs: ["patch"]
  resources:
  - group: ""
    resources: ["pods/status"]
- level: None
EOF2
"$APISERVER" \
    --etcd-servers="http://127.0.0.1:$ETCD_CLIENT" \
    --bind-address=127.0.0.1 --secure-port="$API_PORT" \
    --advertise-address=127.0.0.1 \
    --tls-cert-file="$D/apiserver.crt" --tls-private-key-file="$D/apiserver.key" \
    --client-ca-file="$D/ca.crt" \
    --token-auth-file="$D/tokens.csv" --authorization-mode=RBAC \
    --service-account-issuer=https://kubernetes.default.svc \
    --service-account-key-file="$D/sa.pub" \
    --service-account-signing-key-file="$D/sa.key" \
    --api-audiences=https://kubernetes.default.svc \
    --service-cluster-ip-range=10.96.0.0/16 \
    --endpoint-reconciler-type=none \
    --disable-admission-plugins=ServiceAccount \
    --kubelet-preferred-address-types=InternalIP \
    --allow-privileged=true --profiling=false \
    --audit-policy-file="$D/audit-policy.yaml" \
    --audit-log-path="$D/audit.log" --audit-log-format=json \
    </dev/null >"$D/apiserver.log" 2>&1 &
echo $! >"$D/apiserver.pid"
ADMIN=$(cat "$D/token-admin")
i=0
until [ "$(curl -sS --cacert "$D/ca.crt" -H "Authorization: Bearer $ADMIN" \
    "$URL/readyz" 2>/dev/null)" = ok ]; do
	i=$((i + 1))
	kill -0 "$(cat "$D/apiserver.pid")" 2>/dev/null ||
	    fail_log "kube-apiserver exited" "$D/apiserver.log"
	[ $i -lt 600 ] || fail_log "kube-apiserver not ready after 60 s" "$D/apiserver.log"
	sleep 0.1
done

# --- kubeconfigs --------------------------------------------------------------
CA_DATA=$(base64 -w0 <"$D/ca.crt")
for user in admin kaid kubelet-sim; do
	umask 077
	cat >"$D/kubeconfig-$user" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: kaitest
  cluster:
    server: $URL
    certificate-authority-data: $CA_DATA
users:
- name: $user
  user:
    token: $(cat "$D/token-$user")
contexts:
- name: $user@kaitest
  context:
    cluster: kaitest
    user: $user
    namespace: default
current-context: $user@kaitest
EOF
done
echo "$URL" >"$D/apiserver.url.tmp" && mv "$D/apiserver.url.tmp" "$D/apiserver.url"
echo "$PROG: kube-apiserver ready at $URL (etcd 127.0.0.1:$ETCD_CLIENT)"
exit 0
