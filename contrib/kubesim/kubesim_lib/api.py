"""The HTTPS front end: routing, bearer-token auth, JSON in and out,
watches, pod logs, the /kubesim/ control endpoints and --record.

One thread per connection (ThreadingHTTPServer), HTTP/1.1 keep-alive, TLS
handshake done in that thread so a slow client cannot stall accept().
Each response goes out in one write.  Watches and followed logs stream
with chunked encoding, as a real apiserver does.

Routing maps the URL to (resource, subresource, namespace, name) as the
apiserver's RequestInfo does; that also gives the verb that a 403 message
names.  The resource semantics live in registry.py.
"""

import json
import os
import socket
import ssl
import sys
import time
import threading
import traceback
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit

from . import objects as ob
from .faults import Faults
from .objects import ApiError
from .registry import RESOURCES, Selector
from .store import TooLarge, TooOld

PUBLIC_PATHS = ("/version", "/healthz", "/readyz", "/livez")
MAX_BODY = 3 * 1024 * 1024          # the real server's request size limit
BOOKMARK_EVERY = 10.0               # seconds between periodic bookmarks
LOG_POLL = 0.1                      # seconds between reads of a followed log
VERSION = {"major": "1", "minor": "20", "gitVersion": "v1.20.2",
           "gitCommit": "kubesim", "gitTreeState": "clean",
           "buildDate": "2021-01-13T13:20:00Z", "goVersion": "go1.19.8",
           "compiler": "gc", "platform": "linux/amd64"}

# (resource, subresource, is item) -> {method: Api method name}
ROUTES = {
    ("pods", None, False): {"GET": "list", "POST": "create",
                            "DELETE": "delete_collection"},
    ("pods", None, True): {"GET": "get", "PATCH": "patch",
                           "DELETE": "delete"},
    ("pods", "binding", True): {"POST": "bind"},
    ("pods", "status", True): {"GET": "get", "PATCH": "patch_status",
                               "PUT": "put_status"},
    ("pods", "log", True): {"GET": "log"},
    ("nodes", None, False): {"GET": "list", "POST": "create"},
    ("nodes", None, True): {"GET": "get", "PATCH": "patch", "DELETE": "delete"},
    ("nodes", "status", True): {"GET": "get", "PATCH": "patch_status",
                                "PUT": "put_status"},
    ("events", None, False): {"GET": "list", "POST": "create"},
    ("events", None, True): {"GET": "get", "PATCH": "patch", "DELETE": "delete"},
    ("services", None, False): {"GET": "list", "POST": "create"},
    ("services", None, True): {"GET": "get", "PATCH": "patch",
                               "DELETE": "delete"},
    ("configmaps", None, False): {"GET": "list", "POST": "create"},
    ("configmaps", None, True): {"GET": "get", "PATCH": "patch",
                                 "DELETE": "delete"},
    ("secrets", None, False): {"GET": "list", "POST": "create"},
    ("secrets", None, True): {"GET": "get", "PATCH": "patch",
                              "DELETE": "delete"},
    ("namespaces", None, False): {"GET": "list"},
    ("namespaces", None, True): {"GET": "get"},
}


def _resource_list():
    """/api/v1 discovery, enough for kubectl."""
    out = []
    for (res, sub, item) in sorted(ROUTES, key=lambda k: (k[0], k[1] or "")):
        if item and sub is None:
            continue
        verbs = {"binding": ["create"], "status": ["get", "patch", "update"],
                 "log": ["get"]}.get(sub, ["create", "delete", "get", "list",
                                           "patch", "watch"])
        out.append({"name": res + ("/" + sub if sub else ""),
                    "singularName": "",
                    "namespaced": RESOURCES[res].namespaced,
                    "kind": "Binding" if sub == "binding"
                    else RESOURCES[res].kind, "verbs": verbs})
    return {"kind": "APIResourceList", "groupVersion": "v1", "resources": out}


DISCOVERY = {
    "/version": VERSION,
    "/api": {"kind": "APIVersions", "versions": ["v1"],
             "serverAddressByClientCIDRs": []},
    "/apis": {"kind": "APIGroupList", "apiVersion": "v1", "groups": []},
    "/api/v1": _resource_list(),
}


_CREATE = {"pods": "create_pod", "nodes": "create_node",
           "events": "create_event", "services": "create_service",
           "configmaps": "create_configmap", "secrets": "create_secret"}


def _no_such_path():
    return ApiError(404, "NotFound",
                    "the server could not find the requested resource", {})


class Request:
    """One parsed request, the apiserver's RequestInfo plus the body."""

    def __init__(self, handler):
        url = urlsplit(handler.path)
        self.handler = handler
        self.method = handler.command
        self.path = url.path
        self.query = dict(parse_qsl(url.query, keep_blank_values=True))
        self.resource = self.sub = self.ns = self.name = None
        self.body = None
        self.raw = b""
        self.status = None          # set when the response starts
        parts = [p for p in self.path.split("/") if p]
        if parts[:2] != ["api", "v1"] or len(parts) < 3:
            return
        rest = parts[2:]
        if rest[0] == "namespaces" and len(rest) >= 3:
            self.ns, rest = rest[1], rest[2:]
        if len(rest) <= 3 and rest[0] in RESOURCES:
            self.resource = rest[0]
            self.name = rest[1] if len(rest) > 1 else None
            self.sub = rest[2] if len(rest) > 2 else None

    @property
    def watching(self):
        return self.query.get("watch") in ("1", "true")

    @property
    def verb(self):
        if not self.resource:
            return self.method.lower()
        if self.method == "GET":
            return "get" if self.name else (
                "watch" if self.watching else "list")
        return {"POST": "create", "PUT": "update", "PATCH": "patch",
                "DELETE": "delete" if self.name else "deletecollection"
                }.get(self.method, self.method.lower())


class Api:
    def __init__(self, registry, kubelet, token, record_path=None):
        self.registry = registry
        self.store = registry.store
        self.kubelet = kubelet
        self.token = token
        self.faults = Faults()
        self.server_address = None      # "host:port", for GET /api
        # 0600: the record holds every request, job scripts and
        # environments included.
        self._record = os.fdopen(os.open(
            record_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC,
            0o600), "a", encoding="utf-8") if record_path else None
        self._record_lock = threading.Lock()

    # -- the request cycle -------------------------------------------------

    def handle(self, handler):
        req = Request(handler)
        try:
            self._read_body(req)
            auth = handler.headers.get("Authorization")
            if auth is None:
                if req.path not in PUBLIC_PATHS:
                    raise self._forbidden(req)
            elif auth != "Bearer " + self.token:
                raise ApiError(401, "Unauthorized", "Unauthorized")
            if req.raw and req.method in ("POST", "PUT", "PATCH", "DELETE"):
                try:
                    req.body = json.loads(req.raw)
                except (ValueError, UnicodeDecodeError) as e:
                    raise ob.bad_request("couldn't get version/kind; json "
                                         "parse error: %s" % e) from None
            self._dispatch(req)
        except ApiError as e:
            self.send_json(req, e.code, e.status())
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError,
                socket.timeout):
            handler.close_connection = True
        except Exception as e:
            traceback.print_exc(file=sys.stderr)
            if req.status is None:
                self.send_json(req, 500, ApiError(
                    500, "InternalError", "Internal error occurred: %s" % e
                ).status())
            handler.close_connection = True

    def _read_body(self, req):
        h = req.handler
        if h.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks = []
            while True:
                size = int(h.rfile.readline().split(b";")[0], 16)
                if size == 0:
                    h.rfile.readline()
                    break
                chunks.append(h.rfile.read(size))
                h.rfile.readline()
            req.raw = b"".join(chunks)
        else:
            length = int(h.headers.get("Content-Length") or 0)
            if length > MAX_BODY:
                h.close_connection = True
                raise ApiError(413, "RequestEntityTooLarge",
                               "Request entity too large: limit is 3145728")
            req.raw = h.rfile.read(length) if length else b""

    @staticmethod
    def _forbidden(req):
        who = 'User "system:anonymous" cannot %s' % req.verb
        if not req.resource:
            return ApiError(403, "Forbidden", 'forbidden: %s path "%s"'
                            % (who, req.path), {})
        res = req.resource + ("/" + req.sub if req.sub else "")
        subject = '%s "%s"' % (res, req.name) if req.name else res
        where = ' in the namespace "%s"' % req.ns if req.ns else \
            " at the cluster scope"
        details = {"kind": req.resource}
        if req.name:
            details = {"name": req.name, "kind": req.resource}
        return ApiError(403, "Forbidden",
                        '%s is forbidden: %s resource "%s" in API group ""%s'
                        % (subject, who, res, where), details)

    def _dispatch(self, req):
        path = req.path.rstrip("/") or "/"
        if path in ("/healthz", "/readyz", "/livez") and req.method == "GET":
            return self.send(req, 200, b"ok", "text/plain; charset=utf-8")
        if path == "/api" and req.method == "GET" and self.server_address:
            return self.send_json(req, 200, dict(
                DISCOVERY[path], serverAddressByClientCIDRs=[{
                    "clientCIDR": "0.0.0.0/0",
                    "serverAddress": self.server_address}]))
        if path in DISCOVERY and req.method == "GET":
            return self.send_json(req, 200, DISCOVERY[path])
        if path == "/kubesim/stats" and req.method == "GET":
            return self.send_json(req, 200, self.stats())
        if path == "/kubesim/expire-watches" and req.method == "POST":
            self.store.expire_all()
            return self.send_json(req, 200, ob.status_body("Success", 200))
        if path == "/kubesim/token" and req.method == "POST":
            # A rotation: the old token is refused from now on, as an
            # expired service-account token is.  Open watches go on.
            new = req.query.get("value", "")
            if not new:
                raise ob.bad_request("value: the new token is empty")
            self.token = new
            return self.send_json(req, 200, ob.status_body("Success", 200))
        if path == "/kubesim/fail" and req.method in ("POST", "DELETE"):
            if req.method == "POST":
                self.faults.add(req.query)
            else:
                self.faults.clear()
            return self.send_json(req, 200, ob.status_body("Success", 200))
        if req.resource is None:
            raise _no_such_path()
        self.faults.check(req.verb, req.resource +
                          ("/" + req.sub if req.sub else ""))
        if req.ns is None and RESOURCES[req.resource].namespaced and \
                (req.name or req.method != "GET"):
            raise _no_such_path()          # items live under namespaces/NS/
        if req.ns is not None and not RESOURCES[req.resource].namespaced:
            raise _no_such_path()
        methods = ROUTES.get((req.resource, req.sub, req.name is not None))
        if methods is None:
            raise _no_such_path()
        if req.method not in methods:
            raise ApiError(405, "MethodNotAllowed", "the server does not "
                           "allow this method on the requested resource", {})
        getattr(self, methods[req.method])(req)

    # -- responses ---------------------------------------------------------------

    def send(self, req, code, body, ctype="application/json"):
        head = "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n" \
               "Cache-Control: no-cache, private\r\n\r\n" % (
                   code, HTTPStatus(code).phrase, ctype, len(body))
        self._recorded(req, code)
        req.handler.wfile.write(head.encode() + body)

    def send_json(self, req, code, obj):
        self.send(req, code, ob.dumps(obj).encode())

    def start_stream(self, req, ctype):
        self._recorded(req, 200)
        req.handler.wfile.write(
            b"HTTP/1.1 200 OK\r\nContent-Type: %s\r\nTransfer-Encoding: "
            b"chunked\r\nCache-Control: no-cache, private\r\n\r\n"
            % ctype.encode())

    @staticmethod
    def chunk(req, data):
        if data:
            req.handler.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))

    @staticmethod
    def end_stream(req):
        req.handler.wfile.write(b"0\r\n\r\n")

    def _recorded(self, req, code):
        req.status = code
        if self._record is None:
            return
        try:
            body = json.loads(req.raw) if req.raw else None
        except ValueError:
            body = None
        line = ob.dumps({"method": req.method, "path": req.path,
                         "query": req.query, "status": code, "body": body})
        with self._record_lock:
            self._record.write(line + "\n")
            self._record.flush()

    def stats(self):
        with self.store.lock:
            counts = dict(self.registry.counters,
                          schema_validation=self.registry.schema is not None,
                          pods=self.store.count("pods"),
                          nodes=self.store.count("nodes"),
                          open_watches=self.store.open_watches,
                          resourceVersion=self.store.rv)
        counts["running_processes"] = self.kubelet.processes
        counts["injected_failures"] = self.faults.injected
        return counts

    # -- resource handlers ---------------------------------------------------------------

    def get(self, req):
        self.send_json(req, 200, self.registry.get(req.resource, req.ns,
                                                   req.name))

    def list(self, req):
        res = RESOURCES[req.resource]
        sel = _selector(req)
        if req.watching:
            return self.watch(req, sel)
        items, rv = self.registry.list(
            req.resource, sel, ob.parse_rv(req.query.get("resourceVersion")),
            req.query.get("resourceVersionMatch"))
        self.send_json(req, 200, _list_body(res, items, rv))

    def create(self, req):
        method = getattr(self.registry, _CREATE[req.resource])
        if req.resource == "nodes":
            obj = method(req.body)
        else:
            obj = method(req.ns, req.body)
        self.send_json(req, 201, obj)

    def patch(self, req):
        self.send_json(req, 200, self.registry.patch(
            req.resource, req.ns, req.name, req.body,
            req.handler.headers.get("Content-Type")))

    def patch_status(self, req):
        self.send_json(req, 200, self.registry.patch_status(
            req.resource, req.ns, req.name, req.body,
            req.handler.headers.get("Content-Type")))

    def put_status(self, req):
        self.send_json(req, 200, self.registry.put_status(
            req.resource, req.ns, req.name, req.body))

    def bind(self, req):
        self.send_json(req, 201, self.registry.bind_pod(req.ns, req.name,
                                                        req.body))

    def delete(self, req):
        if req.resource != "pods":
            return self.send_json(req, 200, self.registry.delete(
                req.resource, req.ns, req.name))
        grace, uid, rv = _delete_options(req)
        self.send_json(req, 200, self.registry.delete_pod(
            req.ns, req.name, grace, uid, rv))

    def delete_collection(self, req):
        """DELETE .../pods?labelSelector=...: each pod as a DELETE would,
        answered with the PodList of what was deleted."""
        if req.ns is None:
            raise _no_such_path()
        grace, _, _ = _delete_options(req)
        pods, _ = self.registry.list("pods", _selector(req))
        done = []
        for pod in pods:
            try:
                done.append(self.registry.delete_pod(
                    req.ns, pod["metadata"]["name"], grace))
            except ApiError as e:
                if e.code != 404:
                    raise
        self.send_json(req, 200, _list_body(RESOURCES["pods"], done,
                                            self.store.rv))

    # -- streams ----------------------------------------------------------------------------

    def watch(self, req, sel):
        res = RESOURCES[req.resource]
        rv = ob.parse_rv(req.query.get("resourceVersion"))
        try:
            timeout = float(req.query.get("timeoutSeconds") or 1800)
        except ValueError:
            raise ob.bad_request("invalid timeoutSeconds") from None
        bookmarks = req.query.get("allowWatchBookmarks") in ("true", "1")
        try:
            w = self.store.open_watch(res.name, rv)
        except TooLarge as e:
            raise ob.too_large_rv(e.rv, e.current) from None
        except TooOld as e:
            self.start_stream(req, "application/json")
            self.chunk(req, _expired_line(e.rv, e.oldest))
            return self.end_stream(req)
        try:
            self._stream_watch(req, sel, w, timeout, bookmarks)
        finally:
            self.store.close_watch(w)

    def _stream_watch(self, req, sel, w, timeout, bookmarks):
        self.start_stream(req, "application/json")
        plain = sel.ns is None and not sel.labels and not sel.fields
        self.chunk(req, b"".join(_event_lines(w.initial, sel, plain)))
        start = time.monotonic()
        end = start + timeout
        last_bookmark = end - min(2.0, timeout / 4)   # as 1.20: just before
        next_bookmark = min(start + BOOKMARK_EVERY, last_bookmark)
        while True:
            now = time.monotonic()
            if now >= end:
                break
            wake = min(end, next_bookmark) if bookmarks else end
            events = self.store.next_events(w, wake)
            if events is None:
                with self.store.lock:
                    oldest = self.store.oldest_rv()
                self.chunk(req, _expired_line(w.pos, oldest))
                break
            self.chunk(req, b"".join(_event_lines(events, sel, plain)))
            if bookmarks and time.monotonic() >= next_bookmark:
                self.chunk(req, ob.dumps({"type": "BOOKMARK", "object": {
                    "kind": RESOURCES[req.resource].kind, "apiVersion": "v1",
                    "metadata": {"resourceVersion": str(w.pos)}}}
                ).encode() + b"\n")
                next_bookmark = min(time.monotonic() + BOOKMARK_EVERY,
                                    last_bookmark)
                if next_bookmark <= time.monotonic():
                    next_bookmark = end + 1     # the last one was sent
        self.end_stream(req)

    def log(self, req):
        """pods/NAME/log: the first container's stdout+stderr; follow=true
        streams until the container has ended."""
        pod = self.registry.get("pods", req.ns, req.name)
        names = [c["name"] for c in pod["spec"]["containers"]]
        container = req.query.get("container") or names[0]
        if container not in names:
            raise ob.bad_request("container %s is not valid for pod %s"
                                 % (container, req.name))
        node = pod["spec"].get("nodeName")
        if not node:
            # No node, no kubelet to ask: an empty answer.
            return self.send(req, 204, b"", "text/plain")
        with self.store.lock:
            known = self.store.get("nodes", "", node) is not None
        if not known:
            # (sic: the 1.20 node lookup names the node a pod)
            raise ob.not_found("pods", node)
        path = self.kubelet.log_file(pod) if container == names[0] else None
        if path is None:
            raise ob.bad_request('container "%s" in pod "%s" is waiting to '
                                 'start: ContainerCreating'
                                 % (container, req.name))
        with open(path, "rb") as f:
            if req.query.get("follow") not in ("true", "1"):
                return self.send(req, 200, _tail(f.read(), req.query),
                                 "text/plain")
            self.start_stream(req, "text/plain")
            self.chunk(req, _tail(f.read(), req.query))
            while True:
                ended = self._container_ended(req)
                data = f.read()
                self.chunk(req, data)
                if ended:
                    break
                if not data:
                    time.sleep(LOG_POLL)
        self.end_stream(req)

    def _container_ended(self, req):
        with self.store.lock:
            pod = self.store.get("pods", req.ns, req.name)
        if pod is None or ob.pod_terminal(pod):
            return True
        statuses = pod["status"].get("containerStatuses") or [{}]
        state = statuses[0].get("state") or {}
        return bool(state.get("terminated")) or bool(state.get("waiting"))


def _selector(req):
    return Selector(RESOURCES[req.resource], req.ns,
                    req.query.get("labelSelector"),
                    req.query.get("fieldSelector"))


def _list_body(res, items, rv):
    # items of a real list carry no kind/apiVersion
    return {"kind": res.kind + "List", "apiVersion": "v1",
            "metadata": {"resourceVersion": str(rv)},
            "items": [{k: v for k, v in o.items()
                       if k not in ("kind", "apiVersion")} for o in items]}


def _delete_options(req):
    """gracePeriodSeconds (query or DeleteOptions body; the query wins)
    and the uid/resourceVersion preconditions."""
    opts = req.body if isinstance(req.body, dict) else {}
    if opts.get("kind", "DeleteOptions") != "DeleteOptions":
        raise ob.bad_request("expected a DeleteOptions body")
    grace = req.query.get("gracePeriodSeconds", opts.get("gracePeriodSeconds"))
    if grace is not None:
        try:
            grace = int(grace)
        except ValueError:
            raise ob.bad_request("invalid gracePeriodSeconds: %s"
                                 % grace) from None
    pre = opts.get("preconditions") or {}
    return grace, pre.get("uid"), pre.get("resourceVersion")


def _expired_line(rv, oldest):
    return ob.dumps({"type": "ERROR", "object": ApiError(
        410, "Expired", "too old resource version: %d (%d)" % (rv, oldest)
    ).status()}).encode() + b"\n"


def _event_lines(events, sel, plain):
    """Watch lines for events as this watcher sees them: with a selector a
    change can make an object enter (ADDED) or leave (DELETED) its view."""
    for ev in events:
        etype = ev.type
        if not plain:
            now_in = etype != "DELETED" and sel(ev.obj)
            was_in = sel(ev.prev)
            if etype == "DELETED":
                etype = "DELETED" if was_in else None
            elif now_in:
                etype = "MODIFIED" if was_in else "ADDED"
            else:
                etype = "DELETED" if was_in else None
            if etype is None:
                continue
        if ev.encoded is None:
            ev.encoded = ob.dumps(ev.obj).encode()
        yield b'{"type":"%s","object":%s}\n' % (etype.encode(), ev.encoded)


def _tail(data, query):
    lines = query.get("tailLines")
    if lines and lines.isdigit():
        data = b"".join(data.splitlines(keepends=True)[-int(lines):]) \
            if int(lines) else b""
    limit = query.get("limitBytes")
    if limit and limit.isdigit():
        data = data[:int(limit)]
    return data


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "kubesim"
    timeout = 600               # idle keep-alive connections are closed

    def do_GET(self):
        self.server.api.handle(self)

    do_POST = do_PUT = do_PATCH = do_DELETE = do_GET

    def log_message(self, fmt, *args):
        """Quiet: --record is the request log."""


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128

    def __init__(self, addr, ssl_context, api):
        self.ssl_context = ssl_context
        self.api = api
        super().__init__(addr, Handler)

    def finish_request(self, request, client_address):
        # The TLS handshake runs here, in the connection's own thread.
        request.settimeout(Handler.timeout)
        try:
            conn = self.ssl_context.wrap_socket(request, server_side=True)
        except (ssl.SSLError, OSError):
            request.close()
            return
        try:
            Handler(conn, client_address, self)
        except (ssl.SSLError, OSError):
            pass
