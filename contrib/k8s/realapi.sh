# SPDX-License-Identifier: GPL-3.0-or-later
# shellcheck shell=bash
#
# realapi.sh: the "real API" tier of tests/lib/stack.sh (sourced, bash):
# a real kube-apiserver + etcd (start-apiserver.sh) with kubesim's
# simulated kubelets (kubesim --kubelet-only) in place of kubesim's API
# server, and kaid given the token of user "kaid", which has only what
# contrib/kubernetes/rbac.yaml grants.  The functions mirror kubesim_start
# so that the stack can take either:
#
#	realapi_missing              prints what this machine lacks, if anything
#	realapi_start DIR NODES      everything in DIR/k8s; writes DIR/kubeconfig
#	                             (kaid's) and DIR/kubesim/ca.crt, exports
#	                             KUBESIM_URL (the apiserver) and
#	                             KUBESIM_TOKEN (admin) and KUBESIM_AUTH (a 0600
#	                             file with its curl header), as kubesim_start does
#	realapi_stop DIR             stops the kubelets, the apiserver and etcd
#	                             by their pid files; nothing when not started
#
# What kubesim_start offers and this tier does not: the /kubesim/ control
# endpoints (fail, expire-watches, stats) and --record.  Needs STACK_SRC.
# The apiserver binary comes from contrib/k8s/build-apiserver.sh's cache
# (KAI_K8S_CACHE); this file never builds it.

REALAPI_CACHE=${KAI_K8S_CACHE:-/var/cache/kaibatch/kube-apiserver-1.20.2}

realapi_missing()
{
	[ -x "${KAI_K8S_APISERVER:-$REALAPI_CACHE/kube-apiserver}" ] || {
		echo "no cached kube-apiserver (run contrib/k8s/build-apiserver.sh)"
		return
	}
	command -v etcd >/dev/null 2>&1 || [ -n "${KAI_K8S_ETCD:-}" ] ||
	    { echo "etcd not installed (apt-get install etcd-server)"; return; }
	command -v curl >/dev/null 2>&1 || { echo "curl not found"; return; }
}

realapi_start()
{
	local d=$1 nodes=$2 k i
	k=$d/k8s
	mkdir -p "$k" "$d/kubesim" || return 1
	"$STACK_SRC/contrib/k8s/start-apiserver.sh" "$k" >"$k/start.log" 2>&1 || {
		echo "kube-apiserver did not start:" >&2
		tail -n 20 "$k/start.log" >&2
		return 1
	}
	"$STACK_SRC/contrib/k8s/kapply" --kubeconfig "$k/kubeconfig-admin" \
	    "$STACK_SRC/contrib/kubernetes/namespace.yaml" \
	    "$STACK_SRC/contrib/kubernetes/rbac.yaml" >"$k/apply.log" 2>&1 || {
		echo "could not apply rbac.yaml:" >&2
		cat "$k/apply.log" >&2
		return 1
	}
	"$STACK_SRC/contrib/kubesim/kubesim" --kubelet-only \
	    --kubeconfig "$k/kubeconfig-kubelet-sim" --nodes "$nodes" \
	    --log-dir "$d/kubesim" --pid-file "$d/kubesim.pid" \
	    >"$d/kubesim.log" 2>&1 &
	stack_wait_file "$d/kubesim.pid" 200 || {
		echo "kubesim --kubelet-only did not start:" >&2
		tail -n 20 "$d/kubesim.log" >&2
		return 1
	}
	cp "$k/kubeconfig-kaid" "$d/kubeconfig" &&
	    cp "$k/ca.crt" "$d/kubesim/ca.crt" || return 1
	KUBESIM_URL=$(cat "$k/apiserver.url")
	KUBESIM_TOKEN=$(cat "$k/token-admin")
	KUBESIM_AUTH=$k/auth-admin
	(umask 077 && printf 'Authorization: Bearer %s\n' "$KUBESIM_TOKEN" \
	    >"$KUBESIM_AUTH") || return 1
	export KUBESIM_TOKEN KUBESIM_URL KUBESIM_AUTH
	# kaid's first node list must see every node of the file.
	local want
	want=$(python3 -c 'import sys, yaml; print(len(yaml.safe_load(open(sys.argv[1]))["nodes"]))' "$nodes")
	for i in $(seq 1 100); do
		[ "$(curl -sS --cacert "$k/ca.crt" -H "@$KUBESIM_AUTH" \
		    "$KUBESIM_URL/api/v1/nodes" | python3 -c 'import json, sys; print(len(json.load(sys.stdin)["items"]))' 2>/dev/null)" = "$want" ] &&
		    return 0
		sleep 0.1
	done
	echo "the simulated nodes did not register (after ${i}0 ms)" >&2
	return 1
}

realapi_stop()
{
	local d=$1 pid
	if pid=$(cat "$d/kubesim.pid" 2>/dev/null); then
		kill "$pid" 2>/dev/null
		for _ in $(seq 1 100); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
	fi
	[ -d "$d/k8s" ] && "$STACK_SRC/contrib/k8s/stop-apiserver.sh" "$d/k8s"
	return 0
}
