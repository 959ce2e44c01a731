#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""oci-image.py ROOTFS NAME OUT.tar [ENTRYPOINT...]: packs the directory
ROOTFS as an OCI image archive (one gzipped layer, a config, a manifest,
index.json and oci-layout) that `ctr images import` loads under NAME.

The node test tier has no registry: its images are made on this machine
(contrib/k8s/build-images.sh) and imported into each test's containerd,
and pods name them with imagePullPolicy IfNotPresent.  The layer is
made by tar(1) (it keeps device nodes, hard links, owners and modes the
way a root filesystem needs them); the rest is JSON.
"""
import gzip
import hashlib
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile


def blob(out, data, media):
    """Adds data as a blob of out; returns its descriptor."""
    digest = hashlib.sha256(data).hexdigest()
    info = tarfile.TarInfo("blobs/sha256/" + digest)
    info.size = len(data)
    info.mode = 0o644
    out.addfile(info, io.BytesIO(data))
    return {"mediaType": media, "digest": "sha256:" + digest,
            "size": len(data)}


def main():
    if len(sys.argv) < 4:
        sys.stderr.write("usage: oci-image.py ROOTFS NAME OUT.tar "
                         "[ENTRYPOINT...]\n")
        return 2
    rootfs, name, dest = sys.argv[1:4]
    entry = sys.argv[4:]
    if not os.path.isdir(rootfs):
        sys.stderr.write("oci-image.py: error: \"%s\" is not a directory\n"
                         % rootfs)
        return 1
    with tempfile.TemporaryFile() as raw:
        # Sorted names and fixed times: the same tree gives the same layer.
        subprocess.run(["tar", "-C", rootfs, "--numeric-owner",
                        "--sort=name", "--mtime=@0", "-cf", "-", "."],
                       stdout=raw, check=True)
        raw.seek(0)
        diff = hashlib.sha256()
        zbuf = io.BytesIO()
        with gzip.GzipFile(fileobj=zbuf, mode="wb", mtime=0) as z:
            for chunk in iter(lambda: raw.read(1 << 20), b""):
                diff.update(chunk)
                z.write(chunk)
    layer_gz = zbuf.getvalue()
    config = {
        "architecture": "amd64",
        "os": "linux",
        "config": {
            "Env": ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:"
                    "/usr/bin:/sbin:/bin"],
            "WorkingDir": "/",
        },
        "rootfs": {"type": "layers",
                   "diff_ids": ["sha256:" + diff.hexdigest()]},
        "history": [{"created_by": "kaibatch contrib/k8s/oci-image.py"}],
    }
    if entry:
        config["config"]["Entrypoint"] = entry
    tmp = dest + ".tmp"
    with tarfile.open(tmp, "w") as out:
        ldesc = blob(out, layer_gz,
                     "application/vnd.oci.image.layer.v1.tar+gzip")
        cdesc = blob(out, json.dumps(config, sort_keys=True).encode(),
                     "application/vnd.oci.image.config.v1+json")
        manifest = {"schemaVersion": 2,
                    "mediaType": "application/vnd.oci.image.manifest.v1+json",
                    "config": cdesc, "layers": [ldesc]}
        mdesc = blob(out, json.dumps(manifest, sort_keys=True).encode(),
                     "application/vnd.oci.image.manifest.v1+json")
        mdesc["annotations"] = {
            "io.containerd.image.name": name,
            "org.opencontainers.image.ref.name": name.rsplit(":", 1)[-1],
        }
        index = {"schemaVersion": 2, "manifests": [mdesc]}
        for fname, data in (("index.json", json.dumps(index).encode()),
                            ("oci-layout",
                             b'{"imageLayoutVersion":"1.0.0"}')):
            info = tarfile.TarInfo(fname)
            info.size = len(data)
            info.mode = 0o644
            out.addfile(info, io.BytesIO(data))
    os.rename(tmp, dest)
    return 0


if __name__ == "__main__":
    sys.exit(main())
