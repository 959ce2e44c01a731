#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""fake-gpu-plugin.py PLUGIN-DIR COUNT DEVDIR [PIDFILE]: a Kubernetes
device plugin (API v1beta1) for the node test tier that hands out fake
GPUs as the NVIDIA device plugin hands out real ones: it registers
resource nvidia.com/gpu with the kubelet at PLUGIN-DIR/kubelet.sock
(what the kubelet sees as /var/lib/kubelet/device-plugins), lists COUNT
healthy devices
GPU-0.., and for each allocation gives the container the device nodes
/dev/nvidiaN (DEVDIR/nvidiaN on the host: clones of /dev/null, made
here) and NVIDIA_VISIBLE_DEVICES, the variable the NVIDIA runtime reads.

The messages are few and small, so they are encoded here by hand (the
protobuf wire format) and served with grpcio's generic handlers: no
generated code.  It serves once the kubelet's socket exists (the kubelet
empties the directory when it starts) and registers again when that
socket is re-created.
"""
import os
import stat
import sys
import threading
import time
from concurrent import futures

import grpc

RESOURCE = "nvidia.com/gpu"


# --- protobuf wire format (only what these messages use) ------------------
def _varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _field(num, data):
    """A length-delimited field (string, bytes, message)."""
    if isinstance(data, str):
        data = data.encode()
    return _varint(num << 3 | 2) + _varint(len(data)) + data


def _bool(num, val):
    return _varint(num << 3) + _varint(1 if val else 0) if val else b""


def _parse(buf):
    """[(field number, value)]: bytes for length-delimited, int else."""
    out, i = [], 0
    while i < len(buf):
        key, i = _read_varint(buf, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            val, i = _read_varint(buf, i)
        elif wt == 2:
            n, i = _read_varint(buf, i)
            val, i = buf[i:i + n], i + n
        elif wt == 5:
            val, i = buf[i:i + 4], i + 4
        elif wt == 1:
            val, i = buf[i:i + 8], i + 8
        else:
            raise ValueError("wire type %d" % wt)
        out.append((num, val))
    return out


def _read_varint(buf, i):
    n = shift = 0
    while True:
        b = buf[i]
        i += 1
        n |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return n, i


def _map_entry(key, val):
    return _field(1, key) + _field(2, val)


# --- the plugin ---------------------------------------------------------------
class Plugin:
    def __init__(self, count, devdir):
        self.ids = ["GPU-%d" % i for i in range(count)]
        self.devdir = devdir
        self.stop = threading.Event()

    def options(self, req, ctx):
        return b""  # no PreStartContainer, no preferred allocation

    def list_and_watch(self, req, ctx):
        devs = b"".join(_field(1, _field(1, d) + _field(2, "Healthy"))
                        for d in self.ids)
        yield devs
        while not self.stop.wait(3600):
            yield devs

    def allocate(self, req, ctx):
        resp = b""
        for num, creq in _parse(req):
            if num != 1:
                continue
            ids = [v.decode() for n, v in _parse(creq) if n == 1]
            c = _field(1, _map_entry("NVIDIA_VISIBLE_DEVICES", ",".join(ids)))
            for d in ids:
                idx = d.split("-", 1)[1]
                c += _field(3, _field(1, "/dev/nvidia" + idx) +
                            _field(2, os.path.join(self.devdir,
                                                   "nvidia" + idx)) +
                            _field(3, "rw"))
            resp += _field(1, c)
        return resp

    def preferred(self, req, ctx):
        return b""

    def prestart(self, req, ctx):
        return b""


def _ident(b):
    return b


def serve(plugdir, count, devdir):
    sock = os.path.join(plugdir, "kaitest-fake-gpu.sock")
    kubelet = os.path.join(plugdir, "kubelet.sock")
    os.makedirs(devdir, exist_ok=True)
    for i in range(count):
        path = os.path.join(devdir, "nvidia%d" % i)
        if not os.path.exists(path):
            os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
            os.chmod(path, 0o666)
    # The kubelet empties its plugin directory when it starts: serve once
    # its own socket is there.
    while not os.path.exists(kubelet):
        time.sleep(0.1)
    p = Plugin(count, devdir)
    h = {
        "GetDevicePluginOptions": grpc.unary_unary_rpc_method_handler(
            p.options, _ident, _ident),
        "ListAndWatch": grpc.unary_stream_rpc_method_handler(
            p.list_and_watch, _ident, _ident),
        "Allocate": grpc.unary_unary_rpc_method_handler(
            p.allocate, _ident, _ident),
        "GetPreferredAllocation": grpc.unary_unary_rpc_method_handler(
            p.preferred, _ident, _ident),
        "PreStartContainer": grpc.unary_unary_rpc_method_handler(
            p.prestart, _ident, _ident),
    }
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler("v1beta1.DevicePlugin", h),))
    if os.path.exists(sock):
        os.unlink(sock)
    server.add_insecure_port("unix://" + sock)
    server.start()
    registered = None
    while True:
        try:
            st = os.stat(kubelet)
        except FileNotFoundError:
            st = None
        if st is not None and st.st_ino != registered:
            ch = grpc.insecure_channel("unix://" + kubelet)
            reg = ch.unary_unary("/v1beta1.Registration/Register",
                                 request_serializer=_ident,
                                 response_deserializer=_ident)
            try:
                reg(_field(1, "v1beta1") +
                    _field(2, os.path.basename(sock)) +
                    _field(3, RESOURCE), timeout=5)
                registered = st.st_ino
            except grpc.RpcError as e:
                sys.stderr.write("fake-gpu-plugin: register: %s\n" % e)
            ch.close()
        time.sleep(0.5)


def main():
    if len(sys.argv) not in (4, 5):
        sys.stderr.write("usage: fake-gpu-plugin.py PLUGIN-DIR COUNT "
                         "DEVDIR [PIDFILE]\n")
        return 2
    if len(sys.argv) == 5:
        with open(sys.argv[4], "w") as f:
            f.write("%d\n" % os.getpid())
    serve(sys.argv[1], int(sys.argv[2]), sys.argv[3])
    return 0


if __name__ == "__main__":
    sys.exit(main())
