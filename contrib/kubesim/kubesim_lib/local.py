"""The kubelet's backend when it runs inside kubesim.

kubelet.Kubelet talks to "the cluster" only through three calls (see the
kubelet module docstring).  This implements them straight on the
registry, so every status change the simulated kubelet makes is the same
write, with the same watch event, as a client's PATCH .../status.
remote.py implements the same three calls over HTTPS for a real
apiserver (kubesim --kubelet-only).
"""

import base64

from .objects import ApiError


class LocalBackend:
    def __init__(self, registry):
        self.registry = registry

    def subscribe(self, callback):
        """callback(kind, type, obj) for every node and pod change, first
        the current objects as ADDED.  Called with the store lock held, so
        the callback must only queue the event."""
        def listener(ev):
            if ev.kind in ("pods", "nodes"):
                callback(ev.kind, ev.type, ev.obj)
        for ev in self.registry.store.subscribe(listener, ("nodes", "pods")):
            callback(ev.kind, ev.type, ev.obj)

    def patch_pod_status(self, ns, name, status):
        """Strategic merge of status (conditions merge by type).  Returns
        the pod, or None if it is gone."""
        try:
            return self.registry.patch_status(
                "pods", ns, name, {"status": status},
                "application/strategic-merge-patch+json")
        except ApiError as e:
            if e.code == 404:
                return None
            raise

    def volume_files(self, ns, kind, name):
        """{file name: bytes} of ConfigMap or Secret NAME (kind "configMap"
        or "secret"), or None when it does not exist (yet)."""
        try:
            obj = self.registry.get(
                "configmaps" if kind == "configMap" else "secrets", ns, name)
        except ApiError as e:
            if e.code == 404:
                return None
            raise
        if obj is None:
            return None
        files = {}
        if kind == "configMap":
            for k, v in (obj.get("data") or {}).items():
                files[k] = v.encode()
            for k, v in (obj.get("binaryData") or {}).items():
                files[k] = base64.b64decode(v)
        else:
            for k, v in (obj.get("data") or {}).items():
                files[k] = base64.b64decode(v)
        return files

    def delete_pod(self, ns, name, uid):
        """Finish a deletion: gracePeriodSeconds=0 with a UID precondition,
        so a new pod of the same name is never hit."""
        try:
            self.registry.delete_pod(ns, name, grace=0, uid=uid)
        except ApiError as e:
            if e.code not in (404, 409):
                raise
