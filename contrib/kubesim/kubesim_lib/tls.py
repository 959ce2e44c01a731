"""TLS material and the kubeconfig.

ensure_certs() makes, with the openssl command (the ssl module cannot
create certificates), a CA and a server certificate signed by it for
IP:127.0.0.1 and DNS:localhost, unless DIR already has them; so a test can
keep a tls-dir across restarts and its clients keep trusting the CA.
"""

import base64
import os
import ssl
import subprocess

import yaml


class TLSError(Exception):
    pass


def _openssl(*args, cwd):
    try:
        subprocess.run(("openssl",) + args, cwd=cwd, check=True,
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE)
    except FileNotFoundError:
        raise TLSError("openssl: command not found") from None
    except subprocess.CalledProcessError as e:
        raise TLSError("openssl %s failed: %s" % (
            args[0], e.stderr.decode(errors="replace").strip())) from None


def ensure_certs(tls_dir):
    """Create ca.crt/ca.key and server.crt/server.key in tls_dir if missing;
    returns the paths (ca, cert, key)."""
    os.makedirs(tls_dir, exist_ok=True)
    ca, crt, key = (os.path.join(tls_dir, n) for n in
                    ("ca.crt", "server.crt", "server.key"))
    if all(os.path.exists(p) for p in (ca, crt, key)):
        return ca, crt, key
    # Write under temporary names and rename last, so that a run killed
    # half-way never leaves a server.crt that the CA did not sign.
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes",
             "-keyout", "ca.key.tmp", "-out", "ca.crt.tmp", "-days", "3650",
             "-subj", "/CN=kubesim-ca",
             "-addext", "basicConstraints=critical,CA:TRUE",
             "-addext", "keyUsage=critical,keyCertSign,cRLSign", cwd=tls_dir)
    _openssl("req", "-newkey", "rsa:2048", "-nodes",
             "-keyout", "server.key.tmp", "-out", "server.csr",
             "-subj", "/CN=kube-apiserver", cwd=tls_dir)
    with open(os.path.join(tls_dir, "server.ext"), "w") as f:
        f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\n"
                "extendedKeyUsage=serverAuth\n"
                "keyUsage=critical,digitalSignature,keyEncipherment\n")
    _openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.crt.tmp",
             "-CAkey", "ca.key.tmp", "-CAcreateserial", "-days", "3650",
             "-extfile", "server.ext", "-out", "server.crt.tmp", cwd=tls_dir)
    for name in ("server.csr", "server.ext", "ca.crt.srl"):
        try:
            os.unlink(os.path.join(tls_dir, name))
        except FileNotFoundError:
            pass
    for name in ("ca.key", "server.key", "ca.crt", "server.crt"):
        path = os.path.join(tls_dir, name)
        if name.endswith(".key"):
            os.chmod(path + ".tmp", 0o600)
        os.replace(path + ".tmp", path)
    return ca, crt, key


def server_context(crt, key):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(crt, key)
    # HTTP/1.1 only: libcurl then does not try HTTP/2
    ctx.set_alpn_protocols(["http/1.1"])
    return ctx


def write_kubeconfig(path, port, ca_path, token):
    with open(ca_path, "rb") as f:
        ca_data = base64.b64encode(f.read()).decode()
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "kubesim", "cluster": {
            "server": "https://127.0.0.1:%d" % port,
            "certificate-authority-data": ca_data}}],
        "users": [{"name": "kubesim-admin", "user": {"token": token}}],
        "contexts": [{"name": "kubesim", "context": {
            "cluster": "kubesim", "user": "kubesim-admin",
            "namespace": "default"}}],
        "current-context": "kubesim",
        "preferences": {},
    }
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        yaml.safe_dump(config, f, default_flow_style=False, sort_keys=False)
    os.chmod(tmp, 0o600)
    os.replace(tmp, path)
