"""The simulated kubelets' HTTPS endpoint, for kubesim --kubelet-only.

A real kube-apiserver does not read container logs itself: GET
pods/NAME/log is proxied to the kubelet of the pod's node, at
https://<node InternalIP>:<status.daemonEndpoints.kubeletEndpoint.Port>
/containerLogs/NS/POD/CONTAINER?follow=..&tailLines=..&limitBytes=..
The kubelet answers with the log as text/plain, or with an error whose
text the apiserver turns into the Status message (400 -> BadRequest,
404 -> NotFound).  One server answers for every simulated node (they
all register 127.0.0.1 and this port); the messages are the kubelet's.

It does not authenticate the apiserver (a real kubelet checks its client
certificate or token); it listens on loopback only.
"""

import ssl
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, unquote, urlsplit

from . import objects as ob
from .api import _tail

LOG_POLL = 0.1


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "kubesim-kubelet"

    def log_message(self, fmt, *args):
        pass

    def _send(self, code, text, ctype="text/plain; charset=utf-8"):
        body = text if isinstance(text, bytes) else text.encode()
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        url = urlsplit(self.path)
        parts = [unquote(p) for p in url.path.split("/") if p]
        if parts in (["healthz"], ["readyz"]):
            return self._send(200, "ok")
        if len(parts) != 4 or parts[0] != "containerLogs":
            return self._send(404, "404 page not found")
        query = dict(parse_qsl(url.query, keep_blank_values=True))
        try:
            self.server.logs(self, parts[1], parts[2], parts[3], query)
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError):
            self.close_connection = True


class KubeletServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, addr, ssl_context, backend, kubelet):
        self.ssl_context = ssl_context
        self.backend = backend
        self.kubelet = kubelet
        super().__init__(addr, _Handler)
        self._thread = threading.Thread(target=self.serve_forever,
                                        kwargs={"poll_interval": 0.2},
                                        name="kubelet-server", daemon=True)

    def start(self):
        self._thread.start()

    def stop(self):
        self.shutdown()
        self.server_close()

    def finish_request(self, request, client_address):
        request.settimeout(600)
        try:
            conn = self.ssl_context.wrap_socket(request, server_side=True)
        except (ssl.SSLError, OSError):
            request.close()
            return
        try:
            _Handler(conn, client_address, self)
        except (ssl.SSLError, OSError):
            pass

    def logs(self, h, ns, name, container, query):
        pod = self.backend.pod(ns, name)
        if pod is None:
            return h._send(404, 'pod "%s" does not exist' % name)
        names = [c["name"] for c in pod["spec"]["containers"]]
        if container not in names:
            return h._send(404, 'container "%s" not found in pod "%s"'
                           % (container, name))
        path = self.kubelet.log_file(pod) if container == names[0] else None
        if path is None:
            return h._send(400, 'container "%s" in pod "%s" is waiting to '
                           'start: ContainerCreating' % (container, name))
        with open(path, "rb") as f:
            if query.get("follow") not in ("true", "1"):
                return h._send(200, _tail(f.read(), query), "text/plain")
            h.send_response(200)
            h.send_header("Content-Type", "text/plain")
            h.send_header("Transfer-Encoding", "chunked")
            h.end_headers()
            _chunk(h, _tail(f.read(), query))
            while True:
                ended = self._ended(ns, name, pod["metadata"]["uid"])
                data = f.read()
                _chunk(h, data)
                if ended:
                    break
                if not data:
                    time.sleep(LOG_POLL)
            h.wfile.write(b"0\r\n\r\n")

    def _ended(self, ns, name, uid):
        pod = self.backend.pod(ns, name)
        if pod is None or pod["metadata"]["uid"] != uid or \
                ob.pod_terminal(pod):
            return True
        statuses = pod["status"].get("containerStatuses") or [{}]
        state = statuses[0].get("state") or {}
        return bool(state.get("terminated")) or bool(state.get("waiting"))


def _chunk(h, data):
    if data:
        h.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))

