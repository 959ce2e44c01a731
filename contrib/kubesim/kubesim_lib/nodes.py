"""The nodes file: simulated GPU nodes, and the Node objects made from them.

    nodes:
      - name: gpu-a1
        cpu: 32                  # cores (or a quantity string such as "500m")
        memory: 256Gi            # quantity string (or bytes as an integer)
        gpus: 8                  # optional, default 0
        gpu_product: NVIDIA-A100-SXM4-80GB   # optional
        gpu_memory: 81920        # optional, MiB per GPU
        labels: {kaibatch.io/rack: r1}       # optional

A missing key, a wrong type or an unknown key is a NodesError whose
one-line message names the node and the key.  The labels follow NVIDIA GPU
feature discovery (nvidia.com/gpu.count, .product, .memory), which is what
a scheduler reads on a real GPU cluster.
"""

import yaml

from .objects import new_uid, now
from .schema import QUANTITY_RE

# key: (required, accepted types, description for the error)
_KEYS = {
    "name": (True, (str,), "a string"),
    "cpu": (True, (int, str), "an integer or a quantity string"),
    "memory": (True, (str, int), "a quantity string"),
    "gpus": (False, (int,), "an integer"),
    "gpu_product": (False, (str,), "a string"),
    "gpu_memory": (False, (int,), "an integer (MiB)"),
    "labels": (False, (dict,), "a map of strings"),
}


class NodesError(Exception):
    pass


def load(path):
    """Parse the nodes file into a list of checked dicts."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = yaml.safe_load(f)
    except (OSError, yaml.YAMLError) as e:
        raise NodesError("%s: %s" % (path, str(e).replace("\n", " "))) from None
    if not isinstance(doc, dict) or not isinstance(doc.get("nodes"), list):
        raise NodesError('%s: expected a map with a list "nodes"' % path)
    if set(doc) != {"nodes"}:
        extra = sorted(set(doc) - {"nodes"})[0]
        raise NodesError('%s: unrecognized key "%s"' % (path, extra))
    seen, out = set(), []
    for i, node in enumerate(doc["nodes"]):
        out.append(_check(path, i, node))
        if node["name"] in seen:
            raise NodesError('%s: node "%s": duplicate name'
                             % (path, node["name"]))
        seen.add(node["name"])
    return out


def _check(path, index, node):
    if not isinstance(node, dict):
        raise NodesError("%s: node #%d: expected a map" % (path, index + 1))
    name = node.get("name")
    who = 'node "%s"' % name if isinstance(name, str) else "node #%d" % (index + 1)

    def fail(key, what):
        raise NodesError('%s: %s: key "%s": %s' % (path, who, key, what))

    for key in node:
        if key not in _KEYS:
            fail(key, "unrecognized key")
    for key, (required, types, desc) in _KEYS.items():
        if key not in node:
            if required:
                fail(key, "missing")
            continue
        val = node[key]
        if isinstance(val, bool) or not isinstance(val, types):
            fail(key, "expected %s, got %s" % (desc, type(val).__name__))
    for key in ("cpu", "memory"):
        val = node[key]
        if isinstance(val, str) and not QUANTITY_RE.match(val):
            fail(key, 'invalid quantity "%s"' % val)
        if isinstance(val, int) and val <= 0:
            fail(key, "must be positive")
    if node.get("gpus", 0) < 0:
        fail("gpus", "must not be negative")
    for k, v in node.get("labels", {}).items():
        if not isinstance(k, str) or not isinstance(v, str):
            fail("labels", "expected a map of strings, got %r: %r" % (k, v))
    return node


def node_object(spec, index):
    """The v1 Node a kubelet would register for one entry of the file."""
    name = spec["name"]
    gpus = spec.get("gpus", 0)
    labels = {
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        "nvidia.com/gpu.count": str(gpus),
    }
    if "gpu_product" in spec:
        labels["nvidia.com/gpu.product"] = spec["gpu_product"]
    if "gpu_memory" in spec:
        labels["nvidia.com/gpu.memory"] = str(spec["gpu_memory"])
    labels.update(spec.get("labels", {}))
    capacity = {
        "cpu": str(spec["cpu"]),
        "memory": str(spec["memory"]),
        "pods": "110",
        "nvidia.com/gpu": str(gpus),
    }
    stamp = now()
    conditions = [
        {"type": t, "status": "False", "reason": "Kubelet" + r,
         "message": m, "lastHeartbeatTime": stamp, "lastTransitionTime": stamp}
        for t, r, m in (
            ("MemoryPressure", "HasSufficientMemory",
             "kubelet has sufficient memory available"),
            ("DiskPressure", "HasNoDiskPressure", "kubelet has no disk pressure"),
            ("PIDPressure", "HasSufficientPID",
             "kubelet has sufficient PID available"))]
    conditions.append({"type": "Ready", "status": "True",
                       "reason": "KubeletReady",
                       "message": "kubelet is posting ready status",
                       "lastHeartbeatTime": stamp,
                       "lastTransitionTime": stamp})
    return {
        "kind": "Node", "apiVersion": "v1",
        "metadata": {"name": name, "uid": new_uid(),
                     "creationTimestamp": stamp, "labels": labels},
        "spec": {},
        "status": {
            "capacity": capacity,
            "allocatable": dict(capacity),
            "conditions": conditions,
            "addresses": [
                {"type": "InternalIP",
                 "address": "172.16.%d.%d" % (index // 250, index % 250 + 1)},
                {"type": "Hostname", "address": name}],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "nodeInfo": {
                "machineID": new_uid().replace("-", ""),
                "systemUUID": new_uid(),
                "bootID": new_uid(),
                "kernelVersion": "6.1.0-kubesim",
                "osImage": "kubesim simulated node",
                "containerRuntimeVersion": "kubesim://1",
                "kubeletVersion": "v1.20.2",
                "kubeProxyVersion": "v1.20.2",
                "operatingSystem": "linux",
                "architecture": "amd64",
            },
        },
    }
