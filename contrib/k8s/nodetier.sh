# SPDX-License-Identifier: GPL-3.0-or-later
# shellcheck shell=bash
#
# nodetier.sh: the "node" tier of tests/lib/stack.sh (sourced, bash): a
# real Kubernetes node in the test bed.  Beside the real kube-apiserver +
# etcd of the real-API tier (start-apiserver.sh) it runs, all on this
# machine and all stopped by pid:
#
#   - kube-controller-manager (deployment, replicaset, statefulset, job,
#     garbagecollector, nodelifecycle), so Kubernetes-native workloads
#     and node conditions behave as on a cluster;
#   - for each node of the nodes file, a containerd + kubelet pair with
#     its own root, state, sockets, ports, cgroup root and network: a
#     Linux bridge the test creates with a private /24 (the node's
#     InternalIP is the bridge's .1; pods get the rest through the CNI
#     bridge plugin), no default route in the pods, no masquerade, and
#     nothing forwarded to the uplink; the pods' one route,
#     10.192.0.0/10 (where nodetier_claim_net takes every node's /24) via
#     their bridge's .1, reaches this machine's addresses on the other
#     nodes' bridges, such as kaid's pod_controller on the first node's;
#   - each pair in a mount namespace of its own (a "holder" process made
#     by unshare; containerd and the kubelet enter it with nsenter) where
#     the two paths the kubelet 1.20 cannot move are the node's own
#     directories: /var/log/pods (a kubelet removes the log directories
#     of pods it does not know: the other nodes' and other stacks') and
#     /var/lib/kubelet/device-plugins (its device plugin socket); the
#     namespace also takes every mount the pair makes with it;
#   - the images of contrib/k8s/build-images.sh (the job image and the
#     pause image), imported into each containerd;
#   - fake GPUs: a device plugin (fake-gpu-plugin.py) registers
#     nvidia.com/gpu with each kubelet, as many as the file's "gpus", and
#     gives a pod its GPUs as /dev/nvidiaN (clones of /dev/null) with
#     NVIDIA_VISIBLE_DEVICES; the node carries the GPU Feature Discovery
#     labels nvidia.com/gpu.count, .product, .memory and the file's own
#     labels.
#
# The nodes file is kubesim's (contrib/kubesim/nodes.example.yaml): name,
# gpus, gpu_product, gpu_memory and labels are honoured; cpu and memory
# are this machine's (each kubelet reports what it sees).
#
#	nodetier_missing             prints what this machine lacks, if anything
#	nodetier_start DIR NODES     everything; writes DIR/kubeconfig (kaid's)
#	                             and DIR/kubesim/ca.crt, exports KUBESIM_URL,
#	                             KUBESIM_TOKEN and KUBESIM_AUTH (the admin's,
#	                             as realapi.sh does), NODETIER_IMAGE
#	nodetier_stop DIR            deletes the pods, stops everything started,
#	                             unmounts, removes cgroups and bridges
#
# Facts this follows (measured here, see issue 11): containerd needs
# restrict_oom_score_adj (the sandbox refuses a negative oom_score_adj);
# the kubelet refuses a loopback node IP; cgroup v1 is writable.  Needs
# root, STACK_SRC, and the caches of build-apiserver.sh and
# build-images.sh (this file never builds anything).

NODETIER_K8S=${KAI_K8S_CACHE:-/var/cache/kaibatch/kube-apiserver-1.20.2}
NODETIER_IMAGES=${KAI_IMAGE_CACHE:-/var/cache/kaibatch/images-1}
NODETIER_IMAGE=localhost/kaitest/bookworm:minbase
NODETIER_PAUSE=localhost/kaitest/pause:1
NODETIER_CNI=${KAI_CNI_BIN:-/usr/lib/cni}
# Short paths for the sockets (a unix socket path is at most 107 bytes)
# and the claims on the private subnets, shared by concurrent stacks.
NODETIER_RUN=/run/kaibatch-nodetier

nodetier_missing()
{
	local b
	[ "$(id -u)" -eq 0 ] || { echo "the node tier needs root"; return; }
	for b in kube-apiserver kubelet kube-controller-manager; do
		[ -x "$NODETIER_K8S/$b" ] || {
			echo "no cached $b (run contrib/k8s/build-apiserver.sh)"
			return
		}
	done
	for b in bookworm pause; do
		[ -s "$NODETIER_IMAGES/$b.oci.tar" ] || {
			echo "no cached $b image (run contrib/k8s/build-images.sh)"
			return
		}
	done
	for b in containerd ctr runc ip etcd curl findmnt; do
		command -v "$b" >/dev/null 2>&1 || {
			echo "$b not found (contrib/deps.sh installs it)"
			return
		}
	done
	[ -x "$NODETIER_CNI/bridge" ] && [ -x "$NODETIER_CNI/host-local" ] &&
	    [ -x "$NODETIER_CNI/loopback" ] ||
	    { echo "no CNI plugins in $NODETIER_CNI (apt-get install containernetworking-plugins)"; return; }
	/usr/bin/python3 -c 'import grpc' 2>/dev/null ||
	    { echo "python3-grpcio not installed (the fake GPU device plugin needs it)"; return; }
	[ -d /sys/fs/cgroup/memory ] && [ -d /sys/fs/cgroup/cpu ] ||
	    { echo "no cgroup v1 memory and cpu hierarchies (the kubelet here uses cgroupfs v1)"; return; }
}

# nodetier_api DIR METHOD PATH [BODY [CONTENT-TYPE]]: the admin's call
# (the token in a header file, never on a command line).
nodetier_api()
{
	local k=$1/k8s
	[ -s "$k/auth-admin" ] ||
	    (umask 077 && printf 'Authorization: Bearer %s\n' \
	    "$(cat "$k/token-admin")" >"$k/auth-admin") || return 1
	curl -sS --cacert "$k/ca.crt" -H "@$k/auth-admin" -X "$2" \
	    ${4:+-H "Content-Type: ${5:-application/json}"} ${4:+--data-binary "$4"} \
	    "$(cat "$k/apiserver.url")$3"
}

# nodetier_claim_net: claims a free 10.A.B.0/24 for this machine's tests
# (a directory under NODETIER_RUN, made atomically) and prints "A B".
nodetier_claim_net()
{
	local a b i
	mkdir -p "$NODETIER_RUN" || return 1
	for i in $(seq 1 200); do
		a=$((200 + RANDOM % 50))
		b=$((RANDOM % 256))
		ip -4 route show | grep -q "^10\.$a\.$b\." && continue
		ip -4 addr show | grep -q "inet 10\.$a\.$b\." && continue
		mkdir "$NODETIER_RUN/10-$a-$b" 2>/dev/null || continue
		echo "$a $b"
		return 0
	done
	echo "no free private /24 found" >&2
	return 1
}

# nodetier_nodes NODES: one line per node: NAME GPUS LABELS (k=v,k=v).
nodetier_nodes()
{
	python3 - "$1" <<'EOF'
import sys, yaml
doc = yaml.safe_load(open(sys.argv[1]))
for n in doc["nodes"]:
    gpus = int(n.get("gpus", 0))
    labels = {"nvidia.com/gpu.count": str(gpus)}
    if "gpu_product" in n:
        labels["nvidia.com/gpu.product"] = n["gpu_product"]
    if "gpu_memory" in n:
        labels["nvidia.com/gpu.memory"] = str(n["gpu_memory"])
    labels.update(n.get("labels") or {})
    print(n["name"], gpus, ",".join("%s=%s" % kv for kv in labels.items()))
EOF
}

# nodetier_cgroup_root CG: the cgroup root of one kubelet, in every v1
# hierarchy (the kubelet checks it exists; cpuset's must have cpus and
# mems before a task can join anything below it).
nodetier_cgroup_root()
{
	local cg=$1 h
	for h in /sys/fs/cgroup/*/; do
		[ -d "$h" ] && [ "$h" != /sys/fs/cgroup/unified/ ] || continue
		mkdir -p "$h$cg" || return 1
		if [ -f "${h}cpuset.cpus" ]; then
			cat "${h}cpuset.cpus" >"$h$cg/cpuset.cpus" &&
			    cat "${h}cpuset.mems" >"$h$cg/cpuset.mems" || return 1
		fi
	done
}

# nodetier_runtime DIR INDEX NAME: the first half of a node, which needs
# no API server (the stack starts it meanwhile): its network, its mount
# namespace, containerd and the images.
nodetier_runtime()
{
	local d=$1 i=$2 name=$3 a b n run
	read -r a b <<<"$(nodetier_claim_net)" || return 1
	[ -n "$b" ] || return 1
	n=$d/node-$i
	run=$NODETIER_RUN/10-$a-$b
	mkdir -p "$n/cni" "$n/containerd" "$n/kubelet" "$n/ipam" || return 1
	echo "$a $b" >"$n/net"
	# The bridge and the node's address.
	ip link add "kt-$a-$b" type bridge &&
	    ip addr add "10.$a.$b.1/24" dev "kt-$a-$b" &&
	    ip link set "kt-$a-$b" up || {
		echo "cannot create bridge kt-$a-$b" >&2
		return 1
	}
	cat >"$n/cni/10-kaitest.conflist" <<EOF
{
  "cniVersion": "0.4.0",
  "name": "kaitest",
  "plugins": [
    {
      "type": "bridge",
      "bridge": "kt-$a-$b",
      "isGateway": false,
      "ipMasq": false,
      "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "dataDir": "$n/ipam",
        "ranges": [[{"subnet": "10.$a.$b.0/24",
                     "rangeStart": "10.$a.$b.2", "rangeEnd": "10.$a.$b.254"}]],
        "routes": [{"dst": "10.192.0.0/10", "gw": "10.$a.$b.1"}]
      }
    }
  ]
}
EOF
	# containerd: its own root, state and sockets.
	cat >"$n/containerd/config.toml" <<EOF
version = 2
root = "$n/containerd/root"
state = "$run/state"
oom_score = 0
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.zfs", "io.containerd.tracing.processor.v1.otlp"]
[grpc]
  address = "$run/containerd.sock"
[ttrpc]
  address = "$run/containerd.ttrpc.sock"
[debug]
  address = ""
[metrics]
  address = ""
[plugins."io.containerd.internal.v1.opt"]
  path = "$n/containerd/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$NODETIER_PAUSE"
  restrict_oom_score_adj = true
  disable_apparmor = true
  enable_selinux = false
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "$NODETIER_CNI"
    conf_dir = "$n/cni"
    max_conf_num = 1
EOF
	mkdir -p "$run/state" "$n/logs" "$n/device-plugins" /var/log/pods \
	    /var/lib/kubelet/device-plugins || return 1
	unshare --mount --propagation private sleep 1000000 \
	    </dev/null >/dev/null 2>&1 &
	echo $! >"$n/holder.pid"
	disown $!
	local k hp
	hp=$(cat "$n/holder.pid")
	for k in $(seq 1 50); do
		[ "$(readlink "/proc/$hp/ns/mnt")" != "$(readlink /proc/self/ns/mnt)" ] && break
		sleep 0.05
	done
	nsenter -t "$hp" -m mount --bind "$n/logs" /var/log/pods &&
	    nsenter -t "$hp" -m mount --bind "$n/device-plugins" \
	    /var/lib/kubelet/device-plugins || {
		echo "cannot make node $name's mount namespace" >&2
		return 1
	}
	nsenter -t "$hp" -m containerd --config "$n/containerd/config.toml" \
	    </dev/null >"$n/containerd.log" 2>&1 &
	echo $! >"$n/containerd.pid"
	disown $!
	for k in $(seq 1 100); do
		ctr -a "$run/containerd.sock" version >/dev/null 2>&1 && break
		kill -0 "$(cat "$n/containerd.pid")" 2>/dev/null || break
		sleep 0.1
	done
	ctr -a "$run/containerd.sock" version >/dev/null 2>&1 || {
		echo "containerd of node $name did not start:" >&2
		tail -n 20 "$n/containerd.log" >&2
		return 1
	}
	for k in pause bookworm; do
		ctr -a "$run/containerd.sock" -n k8s.io images import \
		    "$NODETIER_IMAGES/$k.oci.tar" >>"$n/import.log" 2>&1 || {
			echo "cannot import the $k image into node $name:" >&2
			tail -n 5 "$n/import.log" >&2
			return 1
		}
	done
}

# nodetier_kubelet DIR INDEX NAME GPUS LABELS: the second half: the
# kubelet, in its own cgroup root under every hierarchy, and the fake
# GPU device plugin.
nodetier_kubelet()
{
	local d=$1 i=$2 name=$3 gpus=$4 labels=$5 a b n run port hp
	n=$d/node-$i
	read -r a b <"$n/net" && hp=$(cat "$n/holder.pid") || return 1
	run=$NODETIER_RUN/10-$a-$b
	nodetier_cgroup_root "kaitest-$a-$b" || {
		echo "cannot create cgroup /kaitest-$a-$b" >&2
		return 1
	}
	port=$(stack_free_port)
	echo "# no DNS: the node tier keeps pods off the network" >"$n/resolv.conf"
	cat >"$n/kubelet.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: 10.$a.$b.1
port: $port
readOnlyPort: 0
healthzPort: 0
authentication:
  anonymous: {enabled: true}
  webhook: {enabled: false}
authorization: {mode: AlwaysAllow}
cgroupDriver: cgroupfs
cgroupRoot: /kaitest-$a-$b
cgroupsPerQOS: true
enforceNodeAllocatable: [pods]
failSwapOn: false
evictionHard: {memory.available: "0%", nodefs.available: "0%", nodefs.inodesFree: "0%", imagefs.available: "0%"}
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
resolvConf: $n/resolv.conf
serializeImagePulls: false
syncFrequency: 10s
fileCheckFrequency: 20s
nodeStatusUpdateFrequency: 1s
EOF
	nsenter -t "$hp" -m "$NODETIER_K8S/kubelet" --config "$n/kubelet.yaml" \
	    --kubeconfig "$d/k8s/kubeconfig-kubelet-sim" \
	    --container-runtime=remote \
	    --container-runtime-endpoint="unix://$run/containerd.sock" \
	    --pod-infra-container-image="$NODETIER_PAUSE" \
	    --root-dir "$n/kubelet" --cert-dir "$n/kubelet/pki" \
	    --hostname-override "$name" --node-ip "10.$a.$b.1" \
	    --node-labels "$labels" --v=1 \
	    </dev/null >"$n/kubelet.log" 2>&1 &
	echo $! >"$n/kubelet.pid"
	disown $!
	[ "$gpus" -gt 0 ] || return 0
	"$STACK_SRC/contrib/k8s/fake-gpu-plugin.py" "$n/device-plugins" "$gpus" \
	    "$n/dev" "$n/gpu-plugin.pid" </dev/null >"$n/gpu-plugin.log" 2>&1 &
	disown $!
}

# nodetier_ready DIR NAME GPUS: waits until the node is Ready, untainted
# and offers its fake GPUs (allocatable nvidia.com/gpu).
nodetier_ready()
{
	local d=$1 name=$2 gpus=$3 st end=$((SECONDS + 60))
	while [ "$SECONDS" -lt "$end" ]; do
		st=$(nodetier_api "$d" GET "/api/v1/nodes/$name" 2>/dev/null |
		    python3 -c '
import json, sys
n = json.load(sys.stdin)
ready = [c["status"] for c in n.get("status", {}).get("conditions", [])
         if c["type"] == "Ready"]
gpus = n.get("status", {}).get("allocatable", {}).get("nvidia.com/gpu", "0")
print("ready" if ready == ["True"] and not n["spec"].get("taints") and
      gpus == sys.argv[1] else "no")' "$gpus" 2>/dev/null)
		[ "$st" = ready ] && return 0
		sleep 0.1
	done
	echo "node $name not Ready, untainted and with $gpus GPUs after 60 s" >&2
	return 1
}

nodetier_start()
{
	local d=$1 nodes=$2 k i name gpus labels pids=() rc=0
	k=$d/k8s
	mkdir -p "$k" "$d/kubesim" || return 1
	nodetier_nodes "$nodes" >"$d/nodetier.list" || return 1
	[ -s "$d/nodetier.list" ] || { echo "no node in $nodes" >&2; return 1; }
	# The nodes' runtimes (image imports: seconds each) while the API
	# server starts.
	i=0
	while read -r name gpus labels; do
		mkdir -p "$d/node-$i" || return 1
		nodetier_runtime "$d" "$i" "$name" >"$d/node-$i/runtime.err" 2>&1 &
		pids+=($!)
		i=$((i + 1))
	done <"$d/nodetier.list"
	"$STACK_SRC/contrib/k8s/start-apiserver.sh" "$k" >"$k/start.log" 2>&1 || {
		echo "kube-apiserver did not start:" >&2
		tail -n 20 "$k/start.log" >&2
		rc=1
	}
	for i in "${!pids[@]}"; do
		wait "${pids[$i]}" || { cat "$d/node-$i/runtime.err" >&2; rc=1; }
	done
	[ "$rc" -eq 0 ] || return 1
	"$STACK_SRC/contrib/k8s/kapply" --kubeconfig "$k/kubeconfig-admin" \
	    "$STACK_SRC/contrib/kubernetes/namespace.yaml" \
	    "$STACK_SRC/contrib/kubernetes/rbac.yaml" >"$k/apply.log" 2>&1 || {
		echo "could not apply rbac.yaml:" >&2
		cat "$k/apply.log" >&2
		return 1
	}
	"$NODETIER_K8S/kube-controller-manager" \
	    --kubeconfig "$k/kubeconfig-admin" \
	    --controllers=deployment,replicaset,statefulset,job,garbagecollector,nodelifecycle \
	    --leader-elect=false --port=0 --secure-port=0 \
	    --use-service-account-credentials=false \
	    </dev/null >"$k/controller-manager.log" 2>&1 &
	echo $! >"$k/controller-manager.pid"
	disown $!
	i=0
	while read -r name gpus labels; do
		nodetier_kubelet "$d" "$i" "$name" "$gpus" "$labels" || return 1
		i=$((i + 1))
	done <"$d/nodetier.list"
	while read -r name gpus labels; do
		nodetier_ready "$d" "$name" "$gpus" || {
			tail -n 20 "$d"/node-*/kubelet.log "$d"/node-*/gpu-plugin.log >&2
			return 1
		}
	done <"$d/nodetier.list"
	cp "$k/kubeconfig-kaid" "$d/kubeconfig" &&
	    cp "$k/ca.crt" "$d/kubesim/ca.crt" || return 1
	KUBESIM_URL=$(cat "$k/apiserver.url")
	KUBESIM_TOKEN=$(cat "$k/token-admin")
	KUBESIM_AUTH=$k/auth-admin
	export KUBESIM_TOKEN KUBESIM_URL KUBESIM_AUTH NODETIER_IMAGE
}

# The daemons are disowned when started: the shell neither waits for
# them nor reports their SIGKILL in the test's output.
# nodetier_kill PIDFILE: SIGKILL (nothing of a test node needs a clean
# shutdown: everything it leaves is removed below) and a wait for the
# exit, so that what it held (ports, sockets, mounts) is free.
nodetier_kill()
{
	local pid
	pid=$(cat "$1" 2>/dev/null) || return 0
	if kill -9 "$pid" 2>/dev/null; then
		for _ in $(seq 1 50); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.05
		done
	fi
	rm -f "$1"
}

# nodetier_stop_node DIR N: what one node left: its containers,
# containerd and the shims it started, the mount namespace (and with it
# every mount, the pods' network namespaces included: their files under
# /run/netns, named now, are removed after), cgroups, the bridge and the
# subnet claim.
nodetier_stop_node()
{
	local n=$1 a b run sock c pid netns=
	read -r a b <"$n/net" 2>/dev/null || return 0
	run=$NODETIER_RUN/10-$a-$b
	sock=$run/containerd.sock
	if [ -s "$n/holder.pid" ] && kill -0 "$(cat "$n/holder.pid")" 2>/dev/null; then
		netns=$(nsenter -t "$(cat "$n/holder.pid")" -m findmnt -rn -o TARGET |
		    grep '^/run/netns/cni-\|^/var/run/netns/cni-')
	fi
	nodetier_kill "$n/gpu-plugin.pid"
	nodetier_kill "$n/kubelet.pid"
	# What the kubelet left running: every process of its cgroup tree
	# (the containers and their sandboxes), by pid.
	for pid in $(cat /sys/fs/cgroup/pids/kaitest-$a-$b/*/cgroup.procs \
	    /sys/fs/cgroup/pids/kaitest-$a-$b/*/*/cgroup.procs \
	    /sys/fs/cgroup/pids/kaitest-$a-$b/*/*/*/cgroup.procs \
	    /sys/fs/cgroup/pids/kaitest-$a-$b/*/*/*/*/cgroup.procs 2>/dev/null); do
		kill -9 "$pid" 2>/dev/null
	done
	nodetier_kill "$n/containerd.pid"
	# Shims whose containerd was this one (by their -address argument).
	for pid in $(grep -l -F -- "$sock" /proc/[0-9]*/cmdline 2>/dev/null |
	    cut -d/ -f3); do
		[ "$pid" != $$ ] && kill -9 "$pid" 2>/dev/null
	done
	# The holder last: the mount namespace and all its mounts go with it.
	nodetier_kill "$n/holder.pid"
	for c in $netns; do
		rm -f "$c"
	done
	findmnt -rn -o TARGET | grep -e "^$n/" -e "^$run/" | sort -r |
	    while read -r m; do umount -l "$m" 2>/dev/null; done
	for c in /sys/fs/cgroup/*/kaitest-$a-$b; do
		[ -d "$c" ] || continue
		for _ in $(seq 1 20); do
			find "$c" -depth -type d -exec rmdir {} + 2>/dev/null
			[ -d "$c" ] || break
			sleep 0.1
		done
	done
	ip link del "kt-$a-$b" 2>/dev/null
	rm -rf "$run"
	rm -f "$n/net"
}

nodetier_stop()
{
	local d=$1 n
	[ -d "$d/k8s" ] || return 0
	nodetier_kill "$d/k8s/controller-manager.pid"
	for n in "$d"/node-*; do
		[ -d "$n" ] && nodetier_stop_node "$n"
	done
	"$STACK_SRC/contrib/k8s/stop-apiserver.sh" "$d/k8s"
	return 0
}
