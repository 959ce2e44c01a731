"""Kubernetes semantics shared by every resource.

- ApiError and the Status bodies a real apiserver sends (same fields, same
  reasons, same message wording as v1.20, see
  shared/reference/k8s-apiserver-notes.md).
- Label and field selectors.
- JSON merge patch (RFC 7386), strategic merge patch (the subset with merge
  keys that pods and nodes use) and JSON patch (RFC 6902).
- Pod defaulting on create (what the defaulting code and the admission
  plugins of a real server add) and the QoS class.
- clone() and now(): copying and timestamps, done one way everywhere.
"""

import datetime
import json
import re
import uuid

_encode = json.JSONEncoder(separators=(",", ":")).encode


def dumps(obj):
    return _encode(obj)


def clone(obj):
    """A deep copy of a JSON value (faster than copy.deepcopy)."""
    return json.loads(_encode(obj))


def now(offset=0.0):
    """RFC 3339 UTC timestamp with second precision, as metav1.Time."""
    t = datetime.datetime.now(datetime.timezone.utc)
    t += datetime.timedelta(seconds=offset)
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def new_uid():
    return str(uuid.uuid4())


# -- errors ----------------------------------------------------------------

class ApiError(Exception):
    """An error answered as a metav1.Status body."""

    def __init__(self, code, reason, message, details=None):
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.details = details

    def status(self):
        return status_body("Failure", self.code, self.message, self.reason,
                           self.details)


def status_body(status, code, message=None, reason=None, details=None):
    """A Status in the real server's field order; empty fields are omitted
    as Go's omitempty does (code 0 too: the Status a DELETE of a node,
    service or event answers has none)."""
    body = {"kind": "Status", "apiVersion": "v1", "metadata": {},
            "status": status}
    if message:
        body["message"] = message
    if reason:
        body["reason"] = reason
    if details is not None:
        body["details"] = details
    if code:
        body["code"] = code
    return body


def not_found(resource, name):
    return ApiError(404, "NotFound", '%s "%s" not found' % (resource, name),
                    {"name": name, "kind": resource})


def already_exists(resource, name):
    return ApiError(409, "AlreadyExists",
                    '%s "%s" already exists' % (resource, name),
                    {"name": name, "kind": resource})


def conflict(resource, name, why):
    return ApiError(409, "Conflict",
                    'Operation cannot be fulfilled on %s "%s": %s'
                    % (resource, name, why),
                    {"name": name, "kind": resource})


def modified_conflict(resource, name):
    return conflict(resource, name,
                    "the object has been modified; please apply your "
                    "changes to the latest version and try again")


def bad_request(message):
    return ApiError(400, "BadRequest", message)


def invalid(kind, name, errors):
    """422 Invalid.  errors: [(field, cause reason, detail)] as
    field.ErrorList: one error prints bare, several in brackets."""
    texts = ["%s: %s" % (f, d) for f, _, d in errors]
    text = texts[0] if len(texts) == 1 else "[%s]" % ", ".join(texts)
    causes = [{"reason": r, "message": d, "field": f} for f, r, d in errors]
    return ApiError(422, "Invalid", '%s "%s" is invalid: %s' % (kind, name, text),
                    {"name": name, "kind": kind, "causes": causes})


def expired(message):
    return ApiError(410, "Expired", message)


def too_large_rv(rv, current):
    return ApiError(504, "Timeout",
                    "Timeout: Too large resource version: %d, current: %d"
                    % (rv, current),
                    {"causes": [{"reason": "ResourceVersionTooLarge",
                                 "message": "Too large resource version"}],
                     "retryAfterSeconds": 1})


def parse_rv(text):
    """A resourceVersion from a request: None if absent, else an int."""
    if text is None or text == "":
        return None
    if not text.isdigit():
        raise bad_request('invalid resource version: "%s"' % text)
    return int(text)


# -- selectors ----------------------------------------------------------------

# One requirement: key, op, values.  ops: = != in notin exists !exists.
_SET_REQ = re.compile(r"^\s*(\S+?)\s+(in|notin)\s+\(([^)]*)\)\s*$")
_SET_NO_PAREN = re.compile(r"^\s*\S+?\s+(?:in|notin)\s+([^\s(]+)")


def _split_selector(text):
    """Split on commas that are not inside parentheses."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    return [p.strip() for p in parts if p.strip()]


def parse_label_selector(text):
    """labelSelector: k=v, k==v, k!=v, k, !k, k in (a,b), k notin (a,b),
    all ANDed.  None or "" selects everything."""
    reqs = []
    for part in _split_selector(text or ""):
        m = _SET_REQ.match(part)
        bad = _SET_NO_PAREN.match(part)
        if bad:
            raise bad_request("unable to parse requirement: found '%s' "
                              "expected: '('" % bad.group(1))
        if m:
            vals = {v.strip() for v in m.group(3).split(",") if v.strip()}
            reqs.append((m.group(1), m.group(2), vals))
        elif "!=" in part:
            k, v = part.split("!=", 1)
            reqs.append((k.strip(), "!=", v.strip()))
        elif "==" in part or "=" in part:
            k, v = part.replace("==", "=", 1).split("=", 1)
            reqs.append((k.strip(), "=", v.strip()))
        elif part.startswith("!"):
            reqs.append((part[1:].strip(), "!exists", None))
        elif re.match(r"^[A-Za-z0-9./_-]+$", part):
            reqs.append((part, "exists", None))
        else:
            raise bad_request('unable to parse requirement: "%s"' % part)
    return reqs


def _req_match(op, have, want):
    if op == "=":
        return have == want
    if op == "!=":
        return have != want
    if op == "in":
        return have in want
    if op == "notin":
        return have not in want
    if op == "exists":
        return have is not None
    return have is None  # !exists


def labels_match(reqs, labels):
    labels = labels or {}
    return all(_req_match(op, labels.get(k), v) for k, op, v in reqs)


def parse_field_selector(text, fields):
    """fieldSelector: f=v, f==v, f!=v, ANDed.  fields maps each supported
    name to a getter; anything else is rejected as the real server does."""
    reqs = []
    for part in _split_selector(text or ""):
        if "!=" in part:
            f, v = part.split("!=", 1)
            op = "!="
        elif "=" in part:
            f, v = part.replace("==", "=", 1).split("=", 1)
            op = "="
        else:
            raise bad_request('invalid selector: \'%s\'; can\'t understand '
                              '\'%s\'' % (text, part))
        f = f.strip()
        if f not in fields:
            raise bad_request("field label not supported: %s" % f)
        reqs.append((fields[f], op, v.strip()))
    return reqs


def fields_match(reqs, obj):
    return all((get(obj) == v) == (op == "=") for get, op, v in reqs)


def path_getter(path):
    """A getter for a dotted field path; missing values read as ""."""
    keys = path.split(".")

    def get(obj):
        for k in keys:
            if not isinstance(obj, dict):
                return ""
            obj = obj.get(k)
        if obj is None:
            return ""
        return str(obj).lower() if isinstance(obj, bool) else str(obj)
    return get


# -- patches --------------------------------------------------------------------

def merge_patch(target, patch):
    """RFC 7386: objects merge recursively, null deletes, the rest
    replaces.  Returns a new value; neither argument is changed."""
    if not isinstance(patch, dict):
        return clone(patch)
    out = dict(target) if isinstance(target, dict) else {}
    for k, v in patch.items():
        if v is None:
            out.pop(k, None)
        else:
            out[k] = merge_patch(out.get(k), v)
    return out


# Lists that a strategic merge patch merges by key instead of replacing,
# from the x-kubernetes-patch-merge-key markers of the Pod, Node and Service
# types (swagger.json).  Every other list, containerStatuses and taints
# included, is replaced whole, as on a real server.  "ports" is keyed by
# containerPort in a Container and by port in a ServiceSpec.
STRATEGIC_KEYS = {
    "conditions": ("type",),
    "containers": ("name",),
    "initContainers": ("name",),
    "ephemeralContainers": ("name",),
    "env": ("name",),
    "volumes": ("name",),
    "volumeMounts": ("mountPath",),
    "imagePullSecrets": ("name",),
    "ownerReferences": ("uid",),
    "podIPs": ("ip",),
    "hostIPs": ("ip",),
    "addresses": ("type",),
    "ports": ("containerPort", "port"),
}


def strategic_merge_patch(target, patch):
    """A strategic merge patch: as merge_patch, but the lists named in
    STRATEGIC_KEYS merge element by element on their key, and an element
    {"$patch": "delete", key: ...} removes the matching one."""
    if not isinstance(patch, dict):
        return clone(patch)
    out = dict(target) if isinstance(target, dict) else {}
    for k, v in patch.items():
        if k.startswith("$"):
            continue
        if v is None:
            out.pop(k, None)
        elif (k in STRATEGIC_KEYS and isinstance(v, list)
              and isinstance(out.get(k), list)):
            out[k] = _merge_list(out[k], v, STRATEGIC_KEYS[k])
        else:
            out[k] = strategic_merge_patch(out.get(k), v)
    return out


def _merge_list(old, new, keys):
    """Merge by key, in the order apimachinery's normalizeElementOrder
    gives: the patch's elements in patch order, and the elements only the
    server has in their old order, interleaved by their old positions; a
    patch element the server did not have goes before the server-only
    element it is compared with (so new conditions come first)."""
    key = next((k for k in keys for e in new + old
                if isinstance(e, dict) and k in e), keys[0])
    order = {e.get(key): i for i, e in enumerate(old) if isinstance(e, dict)}
    patched, named, doomed = [], set(), set()
    for e in new:
        if not isinstance(e, dict):
            patched.append(e)
            continue
        if e.get("$patch") == "delete":
            doomed.add(e.get(key))
            continue
        i = order.get(e.get(key))
        patched.append(strategic_merge_patch(
            old[i] if i is not None else {}, e))
        named.add(e.get(key))
    server_only = [e for e in old if not isinstance(e, dict)
                   or (e.get(key) not in named and e.get(key) not in doomed)]
    out, i, j = [], 0, 0
    while i < len(patched) and j < len(server_only):
        li = order.get(patched[i].get(key)) \
            if isinstance(patched[i], dict) else None
        ri = order.get(server_only[j].get(key)) \
            if isinstance(server_only[j], dict) else None
        if li is not None and ri is not None and ri < li:
            out.append(server_only[j])
            j += 1
        else:
            out.append(patched[i])
            i += 1
    return out + patched[i:] + server_only[j:]


def _pointer(path):
    if not path.startswith("/"):
        raise bad_request("invalid JSON pointer: %s" % path)
    return [p.replace("~1", "/").replace("~0", "~") for p in path[1:].split("/")]


def json_patch(target, ops):
    """RFC 6902 add/remove/replace/test (what clients use on pods)."""
    doc = clone(target)
    if not isinstance(ops, list):
        raise bad_request("json patch must be a list of operations")
    for op in ops:
        try:
            parts = _pointer(op["path"])
            parent = doc
            for p in parts[:-1]:
                parent = parent[int(p)] if isinstance(parent, list) else parent[p]
            last = parts[-1]
            kind = op["op"]
            if isinstance(parent, list):
                idx = len(parent) if last == "-" else int(last)
                if kind == "add":
                    parent.insert(idx, op["value"])
                elif kind == "remove":
                    del parent[idx]
                elif kind == "replace":
                    parent[idx] = op["value"]
                elif kind == "test" and parent[idx] != op["value"]:
                    raise ApiError(422, "Invalid", "testing value %s failed"
                                   % op["path"])
            elif kind in ("add", "replace"):
                if kind == "replace" and last not in parent:
                    raise KeyError(last)
                parent[last] = op["value"]
            elif kind == "remove":
                del parent[last]
            elif kind == "test" and parent.get(last) != op["value"]:
                raise ApiError(422, "Invalid", "testing value %s failed"
                               % op["path"])
        except (KeyError, IndexError, ValueError, TypeError) as e:
            raise ApiError(422, "Invalid", "the server rejected our request "
                           "due to an error in our request: %s: %r" % (op, e))
    return doc


# -- pods ------------------------------------------------------------------------

POD_SUCCEEDED, POD_FAILED = "Succeeded", "Failed"


# Fields that Go's encoder writes even when unset (a metav1.Time struct
# or a string without omitempty): a real server's objects always have
# them, as null or "".
_GO_CONDITION_NULLS = {
    "pods": ("lastProbeTime", "lastTransitionTime"),
    "nodes": ("lastHeartbeatTime", "lastTransitionTime"),
}
_GO_EVENT_FIELDS = (("firstTimestamp", None), ("lastTimestamp", None),
                    ("eventTime", None), ("reportingComponent", ""),
                    ("reportingInstance", ""))


def go_shape(kind, obj):
    """obj with the always-present fields a real server would show; obj is
    not changed (stored objects are shared), a copy is made if needed."""
    nulls = _GO_CONDITION_NULLS.get(kind)
    if nulls:
        status = obj.get("status")
        conds = status.get("conditions") if isinstance(status, dict) else None
        if isinstance(conds, list) and any(
                isinstance(c, dict) and any(k not in c for k in nulls)
                for c in conds):
            fixed = [dict(dict.fromkeys(nulls), **c) if isinstance(c, dict)
                     else c for c in conds]
            obj = dict(obj, status=dict(status, conditions=fixed))
    elif kind == "events" and any(k not in obj for k, _ in _GO_EVENT_FIELDS):
        obj = dict(obj)
        for k, v in _GO_EVENT_FIELDS:
            obj.setdefault(k, v)
    return obj


def pod_terminal(pod):
    return pod.get("status", {}).get("phase") in (POD_SUCCEEDED, POD_FAILED)


def qos_class(pod):
    """Guaranteed: every container has cpu and memory limits equal to its
    requests; BestEffort: no cpu/memory request or limit anywhere (GPUs do
    not count); Burstable otherwise."""
    containers = pod["spec"].get("containers", []) + \
        pod["spec"].get("initContainers", [])
    any_set, guaranteed = False, True
    for c in containers:
        res = c.get("resources") or {}
        req, lim = res.get("requests") or {}, res.get("limits") or {}
        for r in ("cpu", "memory"):
            if r in req or r in lim:
                any_set = True
            if r not in lim or req.get(r, lim.get(r)) != lim[r]:
                guaranteed = False
    if not any_set:
        return "BestEffort"
    return "Guaranteed" if guaranteed else "Burstable"


_DEFAULT_TOLERATIONS = [
    {"key": "node.kubernetes.io/not-ready", "operator": "Exists",
     "effect": "NoExecute", "tolerationSeconds": 300},
    {"key": "node.kubernetes.io/unreachable", "operator": "Exists",
     "effect": "NoExecute", "tolerationSeconds": 300},
]


def _default_container(c):
    c.setdefault("terminationMessagePath", "/dev/termination-log")
    c.setdefault("terminationMessagePolicy", "File")
    image = c.get("image", "")
    tagged = ":" in image.rsplit("/", 1)[-1] and not image.endswith(":latest")
    c.setdefault("imagePullPolicy", "IfNotPresent" if tagged or "@" in image
                 else "Always")
    res = c.setdefault("resources", {})
    # requests default to limits, resource by resource
    limits = res.get("limits") or {}
    if limits:
        req = res.setdefault("requests", {})
        for k, v in limits.items():
            req.setdefault(k, v)


def default_pod(pod):
    """Fill in what the defaulting code and default admission plugins add
    on create.  pod is a fresh copy owned by the caller."""
    spec = pod["spec"]
    spec.setdefault("restartPolicy", "Always")
    spec.setdefault("terminationGracePeriodSeconds", 30)
    spec.setdefault("dnsPolicy", "ClusterFirst")
    spec.setdefault("securityContext", {})
    spec.setdefault("schedulerName", "default-scheduler")
    spec.setdefault("enableServiceLinks", True)
    spec.setdefault("priority", 0)
    spec.setdefault("preemptionPolicy", "PreemptLowerPriority")
    tolerations = spec.setdefault("tolerations", [])
    have = {(t.get("key"), t.get("effect")) for t in tolerations}
    for t in _DEFAULT_TOLERATIONS:
        if (t["key"], t["effect"]) not in have:
            tolerations.append(dict(t))
    for c in spec.get("containers", []) + spec.get("initContainers", []):
        _default_container(c)
    pod["status"] = {"phase": "Pending", "qosClass": qos_class(pod)}
    return pod


def pod_condition(ctype, status, reason=None):
    cond = {"type": ctype, "status": status, "lastProbeTime": None,
            "lastTransitionTime": now()}
    if reason:
        cond["reason"] = reason
    return cond
