# tests/realapi: the "real API" tier, against a real kube-apiserver v1.20.2
# + etcd on loopback (contrib/k8s/).  The apiserver is built once, outside
# the build, by contrib/k8s/build-apiserver.sh; without it (or with
# KAI_SKIP_REALAPI set) every test here prints "1..0 # SKIP" (except the
# manifest validation of manifests.t, which needs no server).
REALAPI_TESTS = \
	tests/realapi/manifests.t \
	tests/realapi/rbac.t \
	tests/realapi/kubelet.t \
	tests/realapi/compare.t
TESTS += $(REALAPI_TESTS)
EXTRA_DIST += $(REALAPI_TESTS) \
	contrib/k8s/build-apiserver.sh \
	contrib/k8s/start-apiserver.sh \
	contrib/k8s/stop-apiserver.sh \
	contrib/k8s/realapi.sh \
	contrib/k8s/nodetier.sh \
	contrib/k8s/nodes-node.yaml \
	contrib/k8s/nodes-node2.yaml \
	contrib/k8s/build-images.sh \
	contrib/k8s/oci-image.py \
	contrib/k8s/fake-gpu-plugin.py \
	contrib/k8s/kapply \
	contrib/kubernetes/namespace.yaml \
	contrib/kubernetes/rbac.yaml \
	contrib/kubernetes/rbac-native.yaml \
	contrib/kubernetes/crds/podgroup.yaml \
	contrib/kubernetes/crds/queue.yaml \
	contrib/kubernetes/crds/jobset.yaml \
	contrib/kubernetes/crds/pytorchjob.yaml \
	contrib/kubernetes/crds/raycluster.yaml \
	contrib/kubernetes/crds/leaderworkerset.yaml \
	contrib/kubernetes/kaid-deployment.yaml \
	contrib/kubernetes/kaid-service.yaml \
	contrib/kubernetes/webhook.yaml \
	contrib/kubernetes/webhook-cert.sh \
	contrib/kubernetes/Containerfile \
	doc/admin-guide.md
# End of tests/realapi/local.mk
