"""The kubelet's backend when it runs against a real kube-apiserver.

kubesim --kubelet-only drives the same kubelet.Kubelet as the in-process
mode, through this backend instead of local.LocalBackend: the three calls
of the kubelet module docstring over the REST API, with http.client over
TLS verified against the kubeconfig's CA and the kubeconfig's bearer
token.

    register()          POST each simulated node with its status (nodes
                        accept status on create), then PATCH away the
                        node.kubernetes.io/not-ready taint that the
                        TaintNodesByCondition admission plugin adds and
                        that nothing else removes without a node
                        controller; a node that exists (409) is patched
                        instead: labels, taints, and status through
                        nodes/NAME/status
    subscribe(cb)       LIST nodes and bound pods (fieldSelector
                        spec.nodeName!=) and hand them over as ADDED, then
                        one thread per kind WATCHes from the list's
                        resourceVersion; an ERROR 410 event (or HTTP 410)
                        means relist, and a relist reports what changed
                        meanwhile, including DELETED for what is gone
    patch_pod_status()  PATCH pods/NAME/status, strategic merge (the
                        conditions merge by type, as the kubelet's own)
    delete_pod()        DELETE with gracePeriodSeconds=0 and a UID
                        precondition: a real apiserver leaves a deleted
                        running pod Terminating until its kubelet finishes
                        the deletion this way

The backend keeps the last object of each pod it has seen (pod(ns, name))
for the kubelet's log endpoint, see kubeletserver.py.
"""

import base64
import http.client
import json
import socket
import ssl
import sys
import threading
import time
from urllib.parse import quote, urlencode, urlsplit

import yaml

WATCH_TIMEOUT = 300         # seconds; the server ends the watch, we rewatch
RETRY_DELAY = 1.0
NOT_READY_TAINT = "node.kubernetes.io/not-ready"


class RemoteError(Exception):
    """A one-line failure to reach or use the apiserver."""


class HttpError(RemoteError):
    def __init__(self, method, path, code, body):
        message = body.get("message") if isinstance(body, dict) else body
        super().__init__("%s %s: HTTP %d: %s" % (method, path, code,
                                                 str(message)[:300]))
        self.code = code
        self.body = body


def load_kubeconfig(path, server=None):
    """(server URL, CA PEM text or None, token) of the current context."""
    try:
        with open(path, encoding="utf-8") as f:
            kc = yaml.safe_load(f)
    except OSError as e:
        raise RemoteError('could not read kubeconfig "%s": %s'
                          % (path, e.strerror)) from None
    except yaml.YAMLError as e:
        raise RemoteError('kubeconfig "%s": %s' % (
            path, str(e).replace("\n", " "))) from None

    def named(section, name):
        for item in (kc or {}).get(section) or []:
            if item.get("name") == name:
                return item
        raise RemoteError('kubeconfig %s: no %s named "%s"'
                          % (path, section[:-1], name))
    try:
        ctx_name = kc.get("current-context")
        if not ctx_name:
            raise RemoteError("kubeconfig %s: no current-context" % path)
        ctx = named("contexts", ctx_name)["context"]
        cluster = named("clusters", ctx["cluster"])["cluster"]
        user = named("users", ctx["user"])["user"] or {}
    except (AttributeError, KeyError, TypeError) as e:
        raise RemoteError("kubeconfig %s: malformed: missing %s"
                          % (path, e)) from None
    ca = None
    if cluster.get("certificate-authority-data"):
        ca = base64.b64decode(cluster["certificate-authority-data"]).decode()
    elif cluster.get("certificate-authority"):
        with open(cluster["certificate-authority"], encoding="utf-8") as f:
            ca = f.read()
    token = user.get("token")
    if not token and user.get("tokenFile"):
        with open(user["tokenFile"], encoding="utf-8") as f:
            token = f.read().strip()
    if not token:
        raise RemoteError("kubeconfig %s: user %s has no token (only bearer "
                          "tokens are supported)" % (path, ctx["user"]))
    server = server or cluster.get("server")
    if not server:
        raise RemoteError("kubeconfig %s: cluster has no server" % path)
    return server, ca, token


class Client:
    """Bearer-token JSON client of one apiserver; one keep-alive
    connection per thread."""

    def __init__(self, server, ca_pem, token, insecure=False):
        url = urlsplit(server)
        if url.scheme != "https" or not url.hostname:
            raise RemoteError('apiserver "%s": expected https://HOST[:PORT]'
                              % server)
        self.host, self.port = url.hostname, url.port or 443
        self.token = token
        self.ctx = ssl.create_default_context(cadata=ca_pem) \
            if ca_pem else ssl.create_default_context()
        if insecure:
            self.ctx.check_hostname = False
            self.ctx.verify_mode = ssl.CERT_NONE
        self._local = threading.local()

    def connect(self, timeout=30):
        return http.client.HTTPSConnection(self.host, self.port,
                                           context=self.ctx, timeout=timeout)

    def headers(self, ctype=None):
        h = {"Authorization": "Bearer " + self.token,
             "Accept": "application/json", "User-Agent": "kubesim-kubelet"}
        if ctype:
            h["Content-Type"] = ctype
        return h

    def call(self, method, path, body=None, ctype="application/json"):
        """(status, parsed JSON body); retries once on a dropped
        keep-alive connection.  Raises RemoteError when unreachable."""
        data = None if body is None else json.dumps(body).encode()
        for attempt in (1, 2):
            conn = getattr(self._local, "conn", None)
            if conn is None:
                conn = self._local.conn = self.connect()
            try:
                conn.request(method, path, body=data, headers=self.headers(
                    ctype if data is not None else None))
                resp = conn.getresponse()
                raw = resp.read()
                break
            except (http.client.HTTPException, OSError) as e:
                conn.close()
                self._local.conn = None
                if attempt == 2:
                    raise RemoteError("%s %s: %s" % (method, path, e)) from None
        try:
            value = json.loads(raw) if raw else None
        except ValueError:
            value = raw.decode(errors="replace")
        return resp.status, value

    def must(self, method, path, body=None, ctype="application/json",
             ok=(200, 201)):
        status, value = self.call(method, path, body, ctype)
        if status not in ok:
            raise HttpError(method, path, status, value)
        return value


class RemoteBackend:
    def __init__(self, client, nodes, log=None):
        self.client = client
        self.nodes = nodes              # Node objects to register
        self.node_names = {n["metadata"]["name"] for n in nodes}
        self.log = log or (lambda msg: print("kubesim: kubelet: " + msg,
                                             file=sys.stderr, flush=True))
        self._pods = {}                 # (ns, name) -> latest pod
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._streams = set()           # open watch connections
        self._threads = []

    # -- nodes -------------------------------------------------------------------

    def register(self):
        for node in self.nodes:
            self._register(node)

    def _register(self, node):
        name = node["metadata"]["name"]
        path = "/api/v1/nodes/" + quote(name)
        body = {k: v for k, v in node.items()}
        body["metadata"] = {k: v for k, v in node["metadata"].items()
                            if k not in ("uid", "creationTimestamp")}
        status, value = self.client.call("POST", "/api/v1/nodes", body)
        if status == 409:
            # Left by an earlier run: take it over as a restarted kubelet.
            self.client.must("PATCH", path + "/status",
                             {"status": node["status"]},
                             "application/merge-patch+json")
            self.client.must("PATCH", path, {
                "metadata": {"labels": node["metadata"]["labels"]},
                "spec": {"unschedulable": None}},
                "application/merge-patch+json")
        elif status != 201:
            raise HttpError("POST", "/api/v1/nodes", status, value)
        current = self.client.must("GET", path)
        taints = [t for t in current["spec"].get("taints") or []
                  if t.get("key") != NOT_READY_TAINT]
        if taints != (current["spec"].get("taints") or []):
            self.client.must("PATCH", path, {"spec": {"taints": taints or None}},
                             "application/merge-patch+json")

    # -- the three kubelet calls ---------------------------------------------------

    def subscribe(self, callback):
        """The current nodes and bound pods as ADDED (before returning, so
        the kubelet knows its nodes before their pods), then every change
        from a watch thread per kind."""
        for kind, path in (("nodes", "/api/v1/nodes"),
                           ("pods", "/api/v1/pods?" + urlencode(
                               {"fieldSelector": "spec.nodeName!="}))):
            known = {}
            rv = self._relist(kind, path, known, callback)
            t = threading.Thread(target=self._watch_loop,
                                 args=(kind, path, known, rv, callback),
                                 name="watch-" + kind, daemon=True)
            self._threads.append(t)
        for t in self._threads:
            t.start()

    def patch_pod_status(self, ns, name, status):
        path = "/api/v1/namespaces/%s/pods/%s/status" % (quote(ns), quote(name))
        code, value = self.client.call(
            "PATCH", path, {"status": status},
            "application/strategic-merge-patch+json")
        if code == 404:
            return None
        if code != 200:
            raise HttpError("PATCH", path, code, value)
        self._remember(value)
        return value

    def delete_pod(self, ns, name, uid):
        path = "/api/v1/namespaces/%s/pods/%s" % (quote(ns), quote(name))
        code, value = self.client.call("DELETE", path, {
            "kind": "DeleteOptions", "apiVersion": "v1",
            "gracePeriodSeconds": 0, "preconditions": {"uid": uid}})
        if code not in (200, 404, 409):
            raise HttpError("DELETE", path, code, value)

    # -- for the log endpoint and shutdown ---------------------------------------------

    def pod(self, ns, name):
        with self._lock:
            return self._pods.get((ns, name))

    def stop(self):
        self._stopping.set()
        with self._lock:
            streams = list(self._streams)
        for conn in streams:
            try:
                conn.sock.shutdown(socket.SHUT_RDWR)
            except (AttributeError, OSError):
                pass
        for t in self._threads:
            t.join(2)

    # -- list and watch --------------------------------------------------------------------

    def _remember(self, pod, deleted=False):
        key = (pod["metadata"].get("namespace"), pod["metadata"]["name"])
        with self._lock:
            if deleted:
                old = self._pods.get(key)
                if old and old["metadata"]["uid"] == pod["metadata"]["uid"]:
                    del self._pods[key]
            else:
                self._pods[key] = pod

    def _emit(self, kind, etype, obj, known, callback):
        uid = obj["metadata"]["uid"]
        if etype == "DELETED":
            known.pop(uid, None)
        else:
            known[uid] = obj
        if kind == "pods":
            self._remember(obj, etype == "DELETED")
        callback(kind, etype, obj)

    def _relist(self, kind, path, known, callback):
        """LIST; report each object (ADDED if new, MODIFIED if known) and
        DELETED for every known object that is gone.  Returns the list's
        resourceVersion."""
        body = self.client.must("GET", path)
        seen = set()
        for obj in body.get("items") or []:
            obj.setdefault("kind", "Pod" if kind == "pods" else "Node")
            obj.setdefault("apiVersion", "v1")
            uid = obj["metadata"]["uid"]
            seen.add(uid)
            self._emit(kind, "MODIFIED" if uid in known else "ADDED", obj,
                       known, callback)
        for uid in [u for u in known if u not in seen]:
            self._emit(kind, "DELETED", known[uid], known, callback)
        return body["metadata"]["resourceVersion"]

    def _watch_loop(self, kind, path, known, rv, callback):
        """Watch, and relist when the watch expired (at once) or failed
        (after RETRY_DELAY), until stop()."""
        while not self._stopping.is_set():
            started, delay = time.monotonic(), 0.0
            try:
                rv = self._watch_once(kind, path, known, rv, callback)
                if rv is not None and time.monotonic() - started < 1.0:
                    delay = RETRY_DELAY / 2   # a server ending watches at once
            except (RemoteError, http.client.HTTPException, OSError,
                    ValueError) as e:
                if self._stopping.is_set():
                    return
                self.log("watch %s: %s; relisting" % (kind, e))
                rv, delay = None, RETRY_DELAY
            if self._stopping.wait(delay):
                return
            while rv is None and not self._stopping.is_set():
                try:
                    rv = self._relist(kind, path, known, callback)
                except (RemoteError, OSError) as e:
                    self.log("list %s: %s" % (kind, e))
                    if self._stopping.wait(RETRY_DELAY):
                        return

    def _watch_once(self, kind, path, known, rv, callback):
        """One watch request; returns the resourceVersion to go on from,
        or None when a relist is needed (410 Expired)."""
        sep = "&" if "?" in path else "?"
        url = path + sep + urlencode({
            "watch": "1", "resourceVersion": rv, "allowWatchBookmarks": "true",
            "timeoutSeconds": str(WATCH_TIMEOUT)})
        conn = self.client.connect(timeout=WATCH_TIMEOUT + 30)
        with self._lock:
            self._streams.add(conn)
        try:
            conn.request("GET", url, headers=self.client.headers())
            resp = conn.getresponse()
            if resp.status == 410:
                return None
            if resp.status != 200:
                raise HttpError("GET", url, resp.status, resp.read()[:300])
            while not self._stopping.is_set():
                line = resp.readline()
                if not line:
                    return rv           # the server ended the watch
                if not line.strip():
                    continue
                ev = json.loads(line)
                obj = ev.get("object") or {}
                etype = ev.get("type")
                if etype == "ERROR":
                    if obj.get("code") == 410:
                        return None
                    raise RemoteError("watch %s: %s" % (kind, obj.get("message")))
                rv = obj.get("metadata", {}).get("resourceVersion", rv)
                if etype in ("ADDED", "MODIFIED", "DELETED"):
                    self._emit(kind, etype, obj, known, callback)
            return rv
        finally:
            with self._lock:
                self._streams.discard(conn)
            conn.close()


def node_for_remote(node, kubelet_port):
    """A nodes-file Node as this kubelet registers it with a real server:
    its address is 127.0.0.1 (where the log endpoint listens; a real
    apiserver proxies pods/NAME/log to InternalIP:kubeletEndpoint.Port),
    and it has no Hostname address, which the apiserver would try first."""
    node = dict(node, status=dict(node["status"]))
    node["status"]["addresses"] = [{"type": "InternalIP",
                                    "address": "127.0.0.1"}]
    node["status"]["daemonEndpoints"] = {
        "kubeletEndpoint": {"Port": kubelet_port}}
    return node
