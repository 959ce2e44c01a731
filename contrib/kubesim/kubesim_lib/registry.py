"""Resource operations: what each API call does to the store.

One method per operation (create_pod, bind_pod, patch_status, delete_pod,
...), each answering the way a v1.20 kube-apiserver does (see
shared/reference/k8s-apiserver-notes.md) and raising objects.ApiError for
every failure.  The HTTP layer (api.py) and the in-process kubelet backend
(local.py) both come through here, so a status change made by the
simulated kubelet is the same write, with the same watch event, as one
made by a client.

Expensive work on a request body (validation, defaulting) happens before
the store lock is taken; under the lock there is only the read-check-write.
Objects in the store are immutable (see store.py): updates build new dicts
and share the untouched subtrees.
"""

import base64
import binascii
import itertools
import random
import re
import time

from . import objects as ob
from .objects import ApiError
from .store import TooLarge, TooOld

_DNS1123_SUBDOMAIN = re.compile(
    r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_DNS1035_LABEL = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
TOO_LARGE_WAIT = 3.0    # seconds a LIST waits for a future resourceVersion
_NAME_RULES = {
    _DNS1123_SUBDOMAIN: "a lowercase RFC 1123 subdomain must consist of lower "
    "case alphanumeric characters, '-' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'example.com', regex used for validation "
    "is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    _DNS1035_LABEL: "a DNS-1035 label must consist of lower case alphanumeric "
    "characters or '-', start with an alphabetic character, and end with an "
    "alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for "
    "validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
}
_GENERATE_CHARS = "bcdfghjklmnpqrstvwxz2456789"   # as the real namer


class Resource:
    """What the generic code needs to know about one resource type."""

    def __init__(self, name, kind, namespaced, fields):
        self.name = name                  # "pods": URL segment, store kind
        self.kind = kind                  # "Pod"
        self.namespaced = namespaced
        self.fields = {f: ob.path_getter(f) for f in fields}   # fieldSelector


RESOURCES = {r.name: r for r in (
    Resource("pods", "Pod", True,
             ("metadata.name", "metadata.namespace", "spec.nodeName",
              "spec.restartPolicy", "spec.schedulerName",
              "spec.serviceAccountName", "status.phase", "status.podIP",
              "status.nominatedNodeName")),
    Resource("nodes", "Node", False,
             ("metadata.name", "spec.unschedulable")),
    Resource("events", "Event", True,
             ("metadata.name", "metadata.namespace", "involvedObject.kind",
              "involvedObject.namespace", "involvedObject.name",
              "involvedObject.uid", "involvedObject.apiVersion",
              "involvedObject.resourceVersion", "involvedObject.fieldPath",
              "reason", "reportingComponent", "source.component", "type")),
    Resource("services", "Service", True,
             ("metadata.name", "metadata.namespace")),
    Resource("configmaps", "ConfigMap", True,
             ("metadata.name", "metadata.namespace")),
    Resource("secrets", "Secret", True,
             ("metadata.name", "metadata.namespace", "type")),
    Resource("namespaces", "Namespace", False,
             ("metadata.name", "status.phase")),
)}

PATCH_TYPES = {
    "application/merge-patch+json": ob.merge_patch,
    "application/strategic-merge-patch+json": ob.strategic_merge_patch,
    "application/json-patch+json": ob.json_patch,
}

# Metadata that a client cannot change with an update or patch.
_FIXED_META = ("name", "namespace", "uid", "creationTimestamp",
               "resourceVersion", "deletionTimestamp",
               "deletionGracePeriodSeconds", "generateName")


class Selector:
    """Namespace + labelSelector + fieldSelector of one list or watch."""

    def __init__(self, res, ns, label_text, field_text):
        self.ns = ns
        self.labels = ob.parse_label_selector(label_text)
        self.fields = ob.parse_field_selector(field_text, res.fields)

    def __call__(self, obj):
        if obj is None:
            return False
        meta = obj["metadata"]
        return ((self.ns is None or meta.get("namespace") == self.ns)
                and ob.labels_match(self.labels, meta.get("labels"))
                and ob.fields_match(self.fields, obj))


class Registry:
    def __init__(self, store, schema=None, namespaces=("default",)):
        self.store = store
        self.schema = schema
        self.counters = {"pods_created": 0, "bindings": 0, "pod_deletes": 0}
        self._service_ips = itertools.count(10)      # 10.96.0.10 onwards
        self._node_ports = itertools.count(30000)
        with store.lock:
            for ns in ("default", "kube-system", "kube-public",
                       "kube-node-lease") + tuple(namespaces):
                if store.get("namespaces", "", ns) is None:
                    store.put("namespaces", {
                        "kind": "Namespace", "apiVersion": "v1",
                        "metadata": {"name": ns, "uid": ob.new_uid(),
                                     "creationTimestamp": ob.now()},
                        "spec": {"finalizers": ["kubernetes"]},
                        "status": {"phase": "Active"}}, "ADDED")

    # -- helpers -------------------------------------------------------------

    @staticmethod
    def decode(body, kind):
        """Check a request body is an object of kind (kind and apiVersion
        may be left out: the endpoint implies them)."""
        if not isinstance(body, dict):
            raise ob.bad_request("the body of the request must be a JSON "
                                 "object of kind %s" % kind)
        have = body.get("kind", kind)
        if have != kind:
            raise ob.bad_request('%s in version "v1" cannot be handled as a '
                                 '%s: the object kind "%s" does not match '
                                 'the expected kind "%s"'
                                 % (have, kind, have, kind))
        version = body.get("apiVersion", "v1")
        if version != "v1":
            raise ob.bad_request('the API version in the data (%s) does not '
                                 'match the expected API version (v1)'
                                 % version)
        meta = body.setdefault("metadata", {})
        if not isinstance(meta, dict):
            raise ob.bad_request("metadata must be an object")
        body["kind"], body["apiVersion"] = kind, "v1"
        return body

    def validate(self, kind, obj, extra_errors=()):
        """Schema errors (with --schema) plus the basic checks the caller
        made, as one 422."""
        errs = []
        if self.schema is not None:
            errs = self.schema.errors("io.k8s.api.core.v1." + kind, obj)
        errs = errs + list(extra_errors)
        if errs:
            meta = obj.get("metadata") or {}
            name = meta.get("name") or meta.get("generateName") or ""
            raise ob.invalid(kind, name, errs)

    @staticmethod
    def name_errors(meta, pattern=_DNS1123_SUBDOMAIN):
        """metadata.name checks, with the real server's messages."""
        name = meta.get("name")
        if not name and not meta.get("generateName"):
            return [("metadata.name", "FieldValueRequired",
                     "Required value: name or generateName is required")]
        if name and (not isinstance(name, str) or len(name) > 253
                     or not pattern.match(name)):
            return [("metadata.name", "FieldValueInvalid",
                     'Invalid value: "%s": %s' % (name, _NAME_RULES[pattern]))]
        return []

    def _prepare_new(self, res, obj, ns):
        """Server-set metadata for a create; returns the namespace."""
        meta = obj["metadata"]
        if res.namespaced:
            if meta.get("namespace", ns) != ns:
                raise ob.bad_request("the namespace of the provided object "
                                     "does not match the namespace sent on "
                                     "the request")
            meta["namespace"] = ns
        else:
            meta.pop("namespace", None)
        for k in ("resourceVersion", "deletionTimestamp",
                  "deletionGracePeriodSeconds"):
            meta.pop(k, None)
        meta["uid"] = ob.new_uid()
        meta["creationTimestamp"] = ob.now()

    def _insert(self, res, obj):
        """Store a new object (lock held); 404 for a missing namespace,
        409 if the name is taken, a fresh name for generateName."""
        meta = obj["metadata"]
        ns = meta.get("namespace", "")
        if res.namespaced and self.store.get("namespaces", "", ns) is None:
            raise ob.not_found("namespaces", ns)
        if not meta.get("name"):
            while True:
                meta["name"] = meta["generateName"] + "".join(
                    random.choice(_GENERATE_CHARS) for _ in range(5))
                if self.store.get(res.name, ns, meta["name"]) is None:
                    break
        if self.store.get(res.name, ns, meta["name"]) is not None:
            raise ob.already_exists(res.name, meta["name"])
        return self.store.put(res.name, ob.go_shape(res.name, obj), "ADDED")

    def _current(self, res, ns, name):
        """The stored object or 404 (lock held)."""
        obj = self.store.get(res.name, ns if res.namespaced else "", name)
        if obj is None:
            raise ob.not_found(res.name, name)
        return obj

    def _update(self, res, old, new):
        """Store new over old unless nothing changed: like etcd's
        GuaranteedUpdate a no-op write keeps the RV and sends no event."""
        new["metadata"] = dict(new["metadata"],
                               resourceVersion=old["metadata"]["resourceVersion"])
        if new == old:
            return old
        return self.store.put(res.name, ob.go_shape(res.name, new), "MODIFIED")

    @staticmethod
    def _check_rv(res, old, rv):
        if rv and rv != old["metadata"]["resourceVersion"]:
            raise ob.modified_conflict(res.name, old["metadata"]["name"])

    @classmethod
    def _check_patch_rv(cls, res, old, patch):
        """A metadata.resourceVersion in a patch is a precondition."""
        if isinstance(patch, dict):
            cls._check_rv(res, old, (patch.get("metadata") or {})
                          .get("resourceVersion"))

    # -- generic read/delete/patch -------------------------------------------

    def get(self, resname, ns, name):
        res = RESOURCES[resname]
        with self.store.lock:
            return self._current(res, ns, name)

    def list(self, resname, selector, rv=None, match=None):
        """(items, list resourceVersion), honouring resourceVersionMatch."""
        res = RESOURCES[resname]
        with self.store.lock:
            current = self.store.rv
            try:
                if match == "Exact" and rv:
                    if rv > current:
                        raise ApiError(500, None, "etcdserver: mvcc: "
                                       "required revision is a future "
                                       "revision")
                    objs = self.store.list_at(res.name, rv)
                    current = rv
                elif rv and rv > current:
                    # The watch cache waits up to 3 s to catch up first.
                    end = time.monotonic() + TOO_LARGE_WAIT
                    while self.store.rv < rv and time.monotonic() < end:
                        self.store.lock.wait(end - time.monotonic())
                    current = self.store.rv
                    if rv > current:
                        raise TooLarge(rv, current)
                    objs = self.store.list(res.name, selector.ns)
                else:
                    objs = self.store.list(res.name, selector.ns)
            except TooOld:
                raise ob.expired("The resourceVersion for the provided list "
                                 "is too old.") from None
            except TooLarge as e:
                raise ob.too_large_rv(e.rv, e.current) from None
        return [o for o in objs if selector(o)], current

    def patch(self, resname, ns, name, patch, ctype):
        """PATCH on the main resource: metadata and (for pods, within the
        mutable fields) spec; status is silently ignored as it is only
        writable through /status."""
        res = RESOURCES[resname]
        apply = self._patcher(ctype)
        with self.store.lock:
            old = self._current(res, ns, name)
            self._check_patch_rv(res, old, patch)
            new = apply(old, patch)
            if not isinstance(new.get("metadata"), dict):
                raise ob.bad_request("metadata must be an object")
            meta = dict(new["metadata"])
            for k in _FIXED_META:
                meta.pop(k, None)
                if k in old["metadata"]:
                    meta[k] = old["metadata"][k]
            new = dict(new, metadata=meta, kind=res.kind, apiVersion="v1")
            if "status" in old:
                new["status"] = old["status"]
            if res.name == "pods":
                self._check_pod_spec_update(old, new)
            return self._update(res, old, new)

    @staticmethod
    def _patcher(ctype):
        ctype = (ctype or "").split(";")[0].strip()
        if ctype not in PATCH_TYPES:
            raise ApiError(415, "UnsupportedMediaType",
                           "the body of the request was in an unknown format "
                           "- accepted media types include: "
                           + ", ".join(sorted(PATCH_TYPES)))
        return PATCH_TYPES[ctype]

    @staticmethod
    def _check_pod_spec_update(old, new):
        def fixed(spec):
            spec = dict(spec or {})
            for k in ("activeDeadlineSeconds", "tolerations"):
                spec.pop(k, None)
            spec["containers"] = [dict(c, image=None)
                                  for c in spec.get("containers", [])]
            return spec
        if fixed(old["spec"]) != fixed(new.get("spec")):
            raise ob.invalid("Pod", old["metadata"]["name"], [(
                "spec", "FieldValueForbidden",
                "Forbidden: pod updates may not change fields other than "
                "`spec.containers[*].image`, `spec.activeDeadlineSeconds` or "
                "`spec.tolerations` (only additions to existing tolerations)")])

    def delete(self, resname, ns, name):
        """DELETE for everything but pods: the object goes at once and the
        answer is a Status (pods answer with the Pod, see delete_pod)."""
        res = RESOURCES[resname]
        with self.store.lock:
            gone = self.store.remove(res.name, self._current(res, ns, name))
        return ob.status_body("Success", 0, details={
            "name": name, "kind": res.name,
            "uid": gone["metadata"]["uid"]})

    # -- pods ----------------------------------------------------------------

    def create_pod(self, ns, body):
        res = RESOURCES["pods"]
        pod = self.decode(body, "Pod")
        errs = self.name_errors(pod["metadata"])
        spec = pod.get("spec")
        containers = spec.get("containers") if isinstance(spec, dict) else None
        if not isinstance(containers, list) or not containers:
            errs.append(("spec.containers", "FieldValueRequired",
                         "Required value"))
        else:
            for i, c in enumerate(containers):
                for key in ("name", "image"):
                    if not isinstance(c, dict) or not c.get(key):
                        errs.append(("spec.containers[%d].%s" % (i, key),
                                     "FieldValueRequired", "Required value"))
        self.validate("Pod", pod, errs)
        self._prepare_new(res, pod, ns)
        ob.default_pod(pod)
        if spec.get("nodeName"):
            pod["status"]["conditions"] = [
                ob.pod_condition("PodScheduled", "True")]
        with self.store.lock:
            pod = self._insert(res, pod)
            self.counters["pods_created"] += 1
        return pod

    def bind_pod(self, ns, name, body):
        binding = self.decode(body, "Binding")
        self.validate("Binding", binding)
        if binding["metadata"].get("name") != name:
            raise ob.bad_request("name in URL does not match name in Binding "
                                 "object")
        target = binding.get("target") or {}
        if not target.get("name"):
            # a 500 with no reason in v1.20: not converted to a Status
            raise ApiError(500, None, "target.name: Required value")
        node = target["name"]
        with self.store.lock:
            pod = self._current(RESOURCES["pods"], ns, name)
            if pod["metadata"].get("deletionTimestamp"):
                raise ob.conflict("pods/binding", name, "pod %s is being "
                                  "deleted, cannot be assigned to a host"
                                  % name)
            if pod["spec"].get("nodeName"):
                raise ob.conflict("pods/binding", name,
                                  'pod %s is already assigned to node "%s"'
                                  % (name, pod["spec"]["nodeName"]))
            meta = pod["metadata"]
            if binding["metadata"].get("annotations"):
                meta = dict(meta, annotations=dict(
                    meta.get("annotations") or {},
                    **binding["metadata"]["annotations"]))
            status = ob.strategic_merge_patch(pod["status"], {
                "conditions": [ob.pod_condition("PodScheduled", "True")]})
            self.store.put("pods", ob.go_shape("pods", dict(
                pod, metadata=meta, status=status,
                spec=dict(pod["spec"], nodeName=node))), "MODIFIED")
            self.counters["bindings"] += 1
        return ob.status_body("Success", 201)

    def patch_status(self, resname, ns, name, patch, ctype):
        """PATCH .../status: only status changes, whatever else the patch
        says (the real status strategy copies spec and metadata over)."""
        res = RESOURCES[resname]
        apply = self._patcher(ctype)
        with self.store.lock:
            old = self._current(res, ns, name)
            self._check_patch_rv(res, old, patch)
            status = apply(old, patch).get("status") or {}
            if not isinstance(status, dict):
                raise ob.bad_request("status must be an object")
            return self._update(res, old, dict(old, status=status))

    def put_status(self, resname, ns, name, body):
        """PUT .../status: a stale metadata.resourceVersion is a 409; with
        none the update is unconditional."""
        res = RESOURCES[resname]
        obj = self.decode(body, res.kind)
        if obj["metadata"].get("name", name) != name:
            raise ob.bad_request("the name of the object (%s) does not match "
                                 "the name on the URL (%s)"
                                 % (obj["metadata"]["name"], name))
        status = obj.get("status") or {}
        if not isinstance(status, dict):
            raise ob.bad_request("status must be an object")
        with self.store.lock:
            old = self._current(res, ns, name)
            self._check_rv(res, old, obj["metadata"].get("resourceVersion"))
            return self._update(res, old, dict(old, status=status))

    def delete_pod(self, ns, name, grace=None, uid=None, rv=None):
        """DELETE a pod; returns the Pod.  A bound running one gets
        deletionTimestamp and deletionGracePeriodSeconds and stays until the
        kubelet has stopped it; grace 0 removes it at once (MODIFIED, then
        DELETED).  An unbound or terminal pod goes at once, as with grace 0
        (also MODIFIED with a deletionTimestamp first, as a real server)."""
        with self.store.lock:
            pod = self._current(RESOURCES["pods"], ns, name)
            meta = pod["metadata"]
            if uid and uid != meta["uid"]:
                raise ob.conflict("Pod", name, "the UID in the precondition "
                                  "(%s) does not match the UID in record (%s)."
                                  " The object might have been deleted and "
                                  "then recreated" % (uid, meta["uid"]))
            if rv and rv != meta["resourceVersion"]:
                raise ob.conflict("Pod", name, "the ResourceVersion in the "
                                  "precondition (%s) does not match the "
                                  "ResourceVersion in record (%s). The object "
                                  "might have been modified"
                                  % (rv, meta["resourceVersion"]))
            self.counters["pod_deletes"] += 1
            if not pod["spec"].get("nodeName") or ob.pod_terminal(pod):
                # The pod strategy makes the grace period 0; the object
                # still gets its deletionTimestamp (MODIFIED, DELETED).
                grace = 0
            if grace is None:
                grace = pod["spec"].get("terminationGracePeriodSeconds", 30)
            grace = max(0, int(grace))
            pending = meta.get("deletionGracePeriodSeconds")
            if pending is not None and pending <= grace:
                return pod          # already terminating, no sooner
            pod = self.store.put("pods", dict(pod, metadata=dict(
                meta, deletionTimestamp=ob.now(grace),
                deletionGracePeriodSeconds=grace)), "MODIFIED")
            if grace == 0:
                return self.store.remove("pods", pod)
            return pod

    # -- nodes ---------------------------------------------------------------

    def create_node(self, body, from_admin=False):
        """POST a Node.  Like the TaintNodesByCondition admission plugin,
        a posted node gets the not-ready:NoSchedule taint (nothing removes
        it without a node controller); nodes from the nodes file
        (from_admin) are registered clean, as a running cluster's are."""
        res = RESOURCES["nodes"]
        node = self.decode(body, "Node")
        self.validate("Node", node, self.name_errors(node["metadata"]))
        self._prepare_new(res, node, "")
        node.setdefault("spec", {})
        status = node.setdefault("status", {})
        # Defaulting, and Go's encoder writing the non-pointer structs.
        if "capacity" in status:
            status.setdefault("allocatable", dict(status["capacity"]))
        status.setdefault("daemonEndpoints", {"kubeletEndpoint": {"Port": 0}})
        status.setdefault("nodeInfo", dict.fromkeys((
            "machineID", "systemUUID", "bootID", "kernelVersion", "osImage",
            "containerRuntimeVersion", "kubeletVersion", "kubeProxyVersion",
            "operatingSystem", "architecture"), ""))
        if not from_admin:
            taints = node["spec"].setdefault("taints", [])
            if not any(t.get("key") == "node.kubernetes.io/not-ready"
                       for t in taints):
                taints.append({"key": "node.kubernetes.io/not-ready",
                               "effect": "NoSchedule"})
        with self.store.lock:
            return self._insert(res, node)

    # -- events and services -----------------------------------------------------

    def create_event(self, ns, body):
        res = RESOURCES["events"]
        event = self.decode(body, "Event")
        errs = self.name_errors(event["metadata"])
        involved = event.get("involvedObject")
        if isinstance(involved, dict) and involved.get("namespace", ns) != ns:
            errs.append(("involvedObject.namespace", "FieldValueInvalid",
                         'Invalid value: "%s": does not match event.namespace'
                         % involved["namespace"]))
        self.validate("Event", event, errs)
        self._prepare_new(res, event, ns)
        with self.store.lock:
            return self._insert(res, event)

    def create_configmap(self, ns, body):
        res = RESOURCES["configmaps"]
        cm = self.decode(body, "ConfigMap")
        errs = self.name_errors(cm["metadata"])
        data = cm.get("data") or {}
        if not isinstance(data, dict) or not all(
                isinstance(v, str) for v in data.values()):
            errs.append(("data", "FieldValueInvalid",
                         "Invalid value: a map of strings"))
        elif sum(len(k) + len(v.encode()) for k, v in data.items()) > 1048576:
            errs.append(("data", "FieldValueTooLong",
                         "Too long: must have at most 1048576 bytes"))
        self.validate("ConfigMap", cm, errs)
        self._prepare_new(res, cm, ns)
        with self.store.lock:
            return self._insert(res, cm)

    def create_secret(self, ns, body):
        res = RESOURCES["secrets"]
        sec = self.decode(body, "Secret")
        errs = self.name_errors(sec["metadata"])
        data = sec.get("data") or {}
        if not isinstance(data, dict) or not all(
                isinstance(v, str) for v in data.values()):
            errs.append(("data", "FieldValueInvalid",
                         "Invalid value: a map of strings"))
        else:
            for k, v in data.items():
                try:
                    base64.b64decode(v, validate=True)
                except (ValueError, binascii.Error):
                    errs.append(("data[%s]" % k, "FieldValueInvalid",
                                 "Invalid value: illegal base64 data"))
        self.validate("Secret", sec, errs)
        self._prepare_new(res, sec, ns)
        sec.setdefault("type", "Opaque")
        with self.store.lock:
            return self._insert(res, sec)

    def create_service(self, ns, body):
        res = RESOURCES["services"]
        svc = self.decode(body, "Service")
        errs = self.name_errors(svc["metadata"], _DNS1035_LABEL)
        spec = svc.setdefault("spec", {})
        if not isinstance(spec, dict):
            raise ob.bad_request("spec must be an object")
        headless = spec.get("clusterIP") == "None"
        if not spec.get("ports") and not headless:
            errs.append(("spec.ports", "FieldValueRequired", "Required value"))
        self.validate("Service", svc, errs)
        self._prepare_new(res, svc, ns)
        spec.setdefault("type", "ClusterIP")
        spec.setdefault("sessionAffinity", "None")
        for port in spec.get("ports") or []:
            port.setdefault("protocol", "TCP")
            port.setdefault("targetPort", port.get("port"))
        svc.setdefault("status", {"loadBalancer": {}})
        with self.store.lock:
            if not spec.get("clusterIP"):
                n = next(self._service_ips)
                spec["clusterIP"] = "10.96.%d.%d" % (n // 256 % 256, n % 256)
            spec["clusterIPs"] = [spec["clusterIP"]]
            # No ipFamilies/ipFamilyPolicy: dual-stack is alpha (off) in 1.20.
            if spec["type"] == "NodePort":
                for port in spec.get("ports") or []:
                    port.setdefault("nodePort", next(self._node_ports))
            return self._insert(res, svc)
