"""The simulated kubelets of the nodes in the nodes file.

A pod bound to one of those nodes is started at once: phase Running with
startTime, podIP, hostIP, the Initialized/Ready/ContainersReady conditions
and a running containerStatus; then its first container runs as a local
process (command + args exec'd directly, env, workingDir, a process group
of its own, the pod's securityContext identity when kubesim is root,
stdout+stderr to a per-pod log file).  The annotation
kubesim.kaibatch.io/duration replaces the process by a sleep (with
kubesim.kaibatch.io/exit-code and kubesim.kaibatch.io/oom as test hooks;
the oom annotation added to a running pod OOM-kills its process).
Exit, activeDeadlineSeconds, graceful deletion (SIGTERM, SIGKILL after the
grace period, a terminal status, then the final delete) and node loss are
handled as a real kubelet does.

The kubelet touches the cluster only through a backend with three calls,
so the same code can later drive a real apiserver over HTTP:

    backend.subscribe(callback)   callback(kind, type, obj) for "nodes" and
                                  "pods": the current objects as ADDED, then
                                  every change; it must only queue the event
    backend.patch_pod_status(ns, name, status)
                                  strategic merge patch of pods/NAME/status;
                                  returns the pod or None if it is gone
    backend.delete_pod(ns, name, uid)
                                  gracePeriodSeconds=0 with a UID precondition

Volumes (--volumes, kubesim's own kubelet only): a pod is a process on
this host, which cannot see a mountPath, so configMap and secret volumes
are written to a directory of the pod's own (the files of the object,
owned by the pod's user, a secret's readable by it alone), and every
argument and env value that names a path under a mountPath is rewritten
to that directory.  Like a kubelet, the pod waits (a few seconds at
most) for an object that does not exist yet.  Without --volumes a pod
gets no volume at all.

Threading: one worker thread owns all the state.  Watch events, process
exits (from one waiter thread per process) and timers all arrive on one
queue, so nothing here needs a lock, and statuses are written in order.
"""

import heapq
import itertools
import os
import pwd
import queue
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

from . import objects as ob

ANN_DURATION = "kubesim.kaibatch.io/duration"
ANN_EXIT_CODE = "kubesim.kaibatch.io/exit-code"
ANN_OOM = "kubesim.kaibatch.io/oom"
DEADLINE_MESSAGE = "Pod was active on the node longer than the specified deadline"
NOBODY = NOGROUP = 65534        # a pod without runAsUser, when kubesim is root
DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
_VAR_REF = re.compile(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)")
_FIELD_KEY = re.compile(r"^metadata\.(labels|annotations)\['([^']*)'\]$")


class PodRun:
    """What the kubelet knows of one pod it has taken on."""

    def __init__(self, pod):
        meta = pod["metadata"]
        self.ns, self.name, self.uid = meta["namespace"], meta["name"], meta["uid"]
        self.node = pod["spec"]["nodeName"]
        self.container = pod["spec"]["containers"][0]
        self.grace = pod["spec"].get("terminationGracePeriodSeconds", 30)
        self.deadline = pod["spec"].get("activeDeadlineSeconds")
        self.annotations = pod["metadata"].get("annotations") or {}
        self.proc = None           # subprocess.Popen of the container
        self.started = time.monotonic()
        self.started_at = ob.now()
        self.done = False          # terminal status written (or never runs)
        self.deleting = False      # deletionTimestamp seen
        self.deadline_hit = False
        self.oom_killed = False    # the OOM hook killed the process


class Kubelet:
    def __init__(self, backend, node_names, log_dir, volumes=False):
        self.backend = backend
        # --volumes: the pods' volume directories, under one of kubesim's
        self.volumes = tempfile.mkdtemp(prefix="kubesim-volumes.") \
            if volumes else None
        if self.volumes is not None:
            os.chmod(self.volumes, 0o711)
        self.sim_nodes = set(node_names)
        self.log_dir = log_dir
        self.nodes = {}            # live simulated node name -> Node
        self.runs = {}             # pod uid -> PodRun, until the pod is gone
        self._live = {}            # pod uid -> PodRun with a process running
        self._queue = queue.Queue()
        self._timers = []          # heap of (monotonic time, seq, action, uid)
        self._seq = itertools.count()
        self._ips = itertools.count(1)
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="kubelet",
                                        daemon=True)

    # -- called from other threads ----------------------------------------------

    def start(self):
        self.backend.subscribe(
            lambda kind, etype, obj: self._queue.put((kind, etype, obj)))
        self._thread.start()

    def stop(self):
        """Kill every container process; called once at exit.  The worker
        stops after the item in hand (the queue may be long), so that it
        starts no process after the kill below."""
        self._stopping.set()
        self._queue.put(("stop", None, None))
        self._thread.join(5)
        for run in list(self._live.values()):
            self._kill(run, signal.SIGKILL)
        if self.volumes is not None:
            shutil.rmtree(self.volumes, ignore_errors=True)

    @property
    def processes(self):
        """Container processes running now (for /kubesim/stats)."""
        return len(self._live)

    def log_file(self, pod):
        path = self._log_path(pod["metadata"])
        return path if os.path.exists(path) else None

    # -- the worker -------------------------------------------------------------

    def _loop(self):
        # Queue items are (kind, a, b): ("nodes"|"pods", type, object) from
        # the backend, ("exit", returncode, pod uid) from a waiter thread.
        while not self._stopping.is_set():
            timeout = None
            if self._timers:
                timeout = max(0.0, self._timers[0][0] - time.monotonic())
            try:
                kind, etype, obj = self._queue.get(timeout=timeout)
            except queue.Empty:
                kind = None
            try:
                if kind == "nodes":
                    self._on_node(etype, obj)
                elif kind == "pods":
                    self._on_pod(etype, obj)
                elif kind == "exit":
                    self._on_exit(obj, etype)
                self._run_timers()
            except Exception as e:  # keep simulating the other pods
                print("kubesim: kubelet: %s: %s" % (type(e).__name__, e),
                      file=sys.stderr, flush=True)

    def _after(self, seconds, action, uid):
        heapq.heappush(self._timers, (time.monotonic() + seconds,
                                      next(self._seq), action, uid))

    def _run_timers(self):
        while self._timers and self._timers[0][0] <= time.monotonic():
            _, _, action, uid = heapq.heappop(self._timers)
            run = self.runs.get(uid)
            if run is None or run.done:
                continue          # timers are never cancelled, just ignored
            if action == "finish":
                self._finish_simulated(run)
            elif action == "kill":
                self._kill(run, signal.SIGKILL)
            elif action == "deadline":
                self._check_deadline(run)

    # -- events ----------------------------------------------------------------------

    def _on_node(self, etype, node):
        name = node["metadata"]["name"]
        if name not in self.sim_nodes:
            return
        if etype != "DELETED":
            self.nodes[name] = node
            return
        self.nodes.pop(name, None)
        for run in list(self.runs.values()):
            if run.node == name and not run.done:
                self._node_lost(run)

    def _on_pod(self, etype, pod):
        uid = pod["metadata"]["uid"]
        run = self.runs.get(uid)
        if etype == "DELETED":
            if run is not None:
                self.runs.pop(uid)
                if not run.done:       # removed with grace 0: kill at once
                    run.done = True
                    self._kill(run, signal.SIGKILL)
            return
        if run is None:
            if (pod["spec"].get("nodeName") in self.nodes
                    and not ob.pod_terminal(pod)):
                if pod["status"].get("startTime"):
                    self._lost(pod)     # started by a kubelet before us
                elif not pod["metadata"].get("deletionTimestamp"):
                    self._start(pod)
            return
        run.annotations = pod["metadata"].get("annotations") or {}
        if (run.annotations.get(ANN_OOM) == "true" and run.proc is not None
                and not run.done and not run.oom_killed):
            # As the kernel's OOM killer would: SIGKILL, reported OOMKilled.
            run.oom_killed = True
            self._kill(run, signal.SIGKILL)
        deadline = pod["spec"].get("activeDeadlineSeconds")
        if deadline != run.deadline and not run.done:
            run.deadline = deadline
            if deadline is not None:
                self._after(run.started + deadline - time.monotonic(),
                            "deadline", uid)
        if pod["metadata"].get("deletionTimestamp") and not run.deleting:
            run.deleting = True
            self._terminate(run, pod["metadata"]["deletionGracePeriodSeconds"])

    def _on_exit(self, uid, returncode):
        run = self._live.pop(uid, None)
        if run is None:
            return
        self._kill(run, signal.SIGKILL)   # the container's other processes
        run.proc = None
        if run.done:
            return
        code = 128 - returncode if returncode < 0 else returncode
        if run.oom_killed:
            self._finished(run, 137, "OOMKilled")
        else:
            self._finished(run, code)

    # -- starting -----------------------------------------------------------------

    def _start(self, pod):
        run = PodRun(pod)
        self.runs[run.uid] = run
        node = self.nodes[run.node]
        host_ip = next((a["address"] for a in node["status"].get("addresses", [])
                        if a.get("type") == "InternalIP"), "127.0.0.1")
        n = next(self._ips)
        pod_ip = "10.%d.%d.%d" % (1 + (n >> 16) % 254, (n >> 8) & 255, n & 255)
        # No hostIPs: a 1.20 kubelet does not write it (1.28 added it).
        status = {"startTime": run.started_at, "hostIP": host_ip,
                  "podIP": pod_ip, "podIPs": [{"ip": pod_ip}]}
        os.close(_open_log(self._log_path(pod["metadata"])))
        try:
            identity = self._identity(pod)
        except ValueError as e:
            # kubelet refuses to create the container: the pod stays Pending
            run.done = True
            status["conditions"] = [
                ob.pod_condition("Initialized", "True"),
                ob.pod_condition("Ready", "False", "ContainersNotReady"),
                ob.pod_condition("ContainersReady", "False",
                                 "ContainersNotReady")]
            status["containerStatuses"] = [self._container_status(run, {
                "waiting": {"reason": "CreateContainerConfigError",
                            "message": str(e)}}, False)]
            self.backend.patch_pod_status(run.ns, run.name, status)
            return
        try:
            if ANN_DURATION in run.annotations:
                self._after(float(run.annotations[ANN_DURATION]), "finish",
                            run.uid)
            else:
                self._spawn(run, pod, pod_ip, host_ip, identity)
        except (OSError, ValueError, subprocess.SubprocessError) as e:
            status.update(self._terminal(run, 128, "StartError", str(e)))
            run.done = True
            self.backend.patch_pod_status(run.ns, run.name, status)
            return
        status["phase"] = "Running"
        status["conditions"] = [ob.pod_condition(t, "True") for t in
                                ("Initialized", "Ready", "ContainersReady")]
        status["containerStatuses"] = [self._container_status(run, {
            "running": {"startedAt": run.started_at}}, True)]
        if self.backend.patch_pod_status(run.ns, run.name, status) is None:
            self._kill(run, signal.SIGKILL)
            run.done = True
        elif run.deadline is not None:
            self._after(run.deadline, "deadline", run.uid)

    @staticmethod
    def _identity(pod):
        """(uid, gid, groups) to run as, or None to stay kubesim's own user
        (when kubesim is not root).  As root, a pod without runAsUser runs
        as nobody, never as root.
        Raises ValueError for runAsNonRoot without a non-root runAsUser,
        with kubelet's message."""
        psc = pod["spec"].get("securityContext") or {}
        csc = pod["spec"]["containers"][0].get("securityContext") or {}

        def pick(key):
            return csc[key] if csc.get(key) is not None else psc.get(key)
        user, group = pick("runAsUser"), pick("runAsGroup")
        if pick("runAsNonRoot") and not user:
            raise ValueError('container has runAsNonRoot and image will run '
                             'as root (pod: "%s_%s(%s)", container: %s)' % (
                                 pod["metadata"]["name"],
                                 pod["metadata"]["namespace"],
                                 pod["metadata"]["uid"],
                                 pod["spec"]["containers"][0]["name"]))
        groups = list(psc.get("supplementalGroups") or [])
        if psc.get("fsGroup") is not None and psc["fsGroup"] not in groups:
            groups.append(psc["fsGroup"])
        if os.geteuid() != 0:
            return None
        if user is None:
            # A runtime would run the image's user; kubesim has no image,
            # and running it as kubesim's own user would hand root to
            # anyone who may create a pod: nobody, as for an image that
            # declares none.
            return (NOBODY, group if group is not None else NOGROUP, groups)
        # as a container runtime: gid 0 when only the uid is given
        return (user, group if group is not None else 0, groups)

    def _spawn(self, run, pod, pod_ip, host_ip, identity):
        c = run.container
        env = {"PATH": DEFAULT_PATH, "HOSTNAME": run.name, "HOME": "/"}
        if identity is not None:
            try:
                env["HOME"] = pwd.getpwuid(identity[0]).pw_dir
            except KeyError:
                pass
        fields = {"metadata.name": run.name, "metadata.namespace": run.ns,
                  "metadata.uid": run.uid, "spec.nodeName": run.node,
                  "spec.serviceAccountName":
                      pod["spec"].get("serviceAccountName", ""),
                  "status.podIP": pod_ip, "status.hostIP": host_ip}
        for var in c.get("env") or []:
            ref = (var.get("valueFrom") or {}).get("fieldRef")
            if "value" in var or not var.get("valueFrom"):
                env[var["name"]] = _expand(var.get("value") or "", env)
            elif ref:
                value = _field_value(pod, fields, ref.get("fieldPath", ""))
                if value is not None:
                    env[var["name"]] = value
        argv = [_expand(a, env) for a in
                (c.get("command") or []) + (c.get("args") or [])]
        if self.volumes is not None:
            mounts = self._mount(run, pod, identity)

            def host(v):
                for path, d in mounts:
                    if v == path or v.startswith(path.rstrip("/") + "/"):
                        return d + v[len(path.rstrip("/")):]
                return v
            argv = [host(a) for a in argv]
            env = {k: host(v) for k, v in env.items()}
        if not argv:
            raise ValueError("kubesim: container %s has no command (and no "
                             "%s annotation)" % (c["name"], ANN_DURATION))
        kwargs = {}
        if identity is not None:
            kwargs = {"user": identity[0], "group": identity[1],
                      "extra_groups": identity[2]}
        with os.fdopen(_open_log(self._log_path(pod["metadata"])),
                       "ab") as log:
            run.proc = subprocess.Popen(
                argv, env=env, cwd=c.get("workingDir") or "/",
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True, **kwargs)
        self._live[run.uid] = run
        proc, uid = run.proc, run.uid
        threading.Thread(target=lambda: self._queue.put(
            ("exit", proc.wait(), uid)), name="wait-%d" % proc.pid,
            daemon=True).start()

    def _mount(self, run, pod, identity):
        """[(mountPath, host directory)] of the container's configMap and
        secret volumes, written for this pod.  ValueError (the pod fails
        to start) for an object still missing after a few seconds."""
        vols = {v["name"]: v for v in pod["spec"].get("volumes") or []}
        uid, gid = (identity[0], identity[1]) if identity else (-1, -1)
        top = os.path.join(self.volumes, run.uid)
        os.makedirs(top, mode=0o711, exist_ok=True)
        out = []
        for m in run.container.get("volumeMounts") or []:
            v = vols.get(m.get("name")) or {}
            kind = "configMap" if "configMap" in v else \
                "secret" if "secret" in v else None
            if kind is None:
                continue
            src = v[kind]
            name = src.get("name") or src.get("secretName")
            files = None
            for _ in range(100):
                files = self.backend.volume_files(run.ns, kind, name)
                if files is not None:
                    break
                time.sleep(0.05)
            if files is None:
                raise ValueError('%s "%s" not found' % (kind, name))
            d = os.path.join(top, m["name"])
            os.makedirs(d, mode=0o755 if kind == "configMap" else 0o500,
                        exist_ok=True)
            mode = src.get("defaultMode", 0o644)
            for item in src.get("items") or [{"key": k, "path": k}
                                             for k in files]:
                if item["key"] not in files:
                    continue
                f = os.path.join(d, item["path"])
                os.makedirs(os.path.dirname(f), mode=0o755, exist_ok=True)
                with open(f, "wb") as fh:
                    fh.write(files[item["key"]])
                os.chmod(f, item.get("mode", mode))
                if os.geteuid() == 0:
                    os.chown(f, uid, gid)
            if os.geteuid() == 0:
                os.chown(d, uid, gid)
            out.append((m["mountPath"], d))
        return out

    # -- stopping -----------------------------------------------------------------

    def _kill(self, run, sig):
        if run.proc is not None:
            try:
                os.killpg(run.proc.pid, sig)
            except (ProcessLookupError, PermissionError):
                pass

    def _terminate(self, run, grace):
        """Graceful deletion: SIGTERM now, SIGKILL after grace seconds; a
        pod with nothing running is deleted at once."""
        if run.done:
            self.backend.delete_pod(run.ns, run.name, run.uid)
        elif run.proc is not None:
            self._kill(run, signal.SIGTERM if grace > 0 else signal.SIGKILL)
            self._after(grace, "kill", run.uid)
        else:
            self._finished(run, 128 + signal.SIGTERM)   # a simulated run

    def _check_deadline(self, run):
        if run.deadline is None or \
                time.monotonic() < run.started + run.deadline - 0.001:
            return              # the deadline was moved since this timer
        run.deadline_hit = True
        if run.proc is not None:
            self._kill(run, signal.SIGTERM)
            self._after(run.grace, "kill", run.uid)
        else:
            self._finished(run, 128 + signal.SIGTERM)

    def _finish_simulated(self, run):
        ann = run.annotations
        if ann.get(ANN_OOM) == "true":
            self._finished(run, 137, "OOMKilled")
        else:
            try:
                code = int(ann.get(ANN_EXIT_CODE, "0"))
            except ValueError:
                code = 1
            self._finished(run, code)

    def _finished(self, run, code, reason=None):
        """Write the terminal status; finish a pending deletion."""
        run.done = True
        status = self._terminal(run, code, reason)
        if run.deadline_hit:
            status.update(phase="Failed", reason="DeadlineExceeded",
                          message=DEADLINE_MESSAGE)
        self.backend.patch_pod_status(run.ns, run.name, status)
        if run.deleting:
            self.backend.delete_pod(run.ns, run.name, run.uid)

    def _lost(self, pod):
        """A pod that a previous kubesim --kubelet-only started: its process
        died with that kubelet, so it fails, as a real kubelet reports a
        container it cannot find; a pending deletion is then finished."""
        run = PodRun(pod)
        self.runs[run.uid] = run
        run.deleting = bool(pod["metadata"].get("deletionTimestamp"))
        run.started_at = pod["status"]["startTime"]
        self._finished(run, 137, "ContainerStatusUnknown")

    def _node_lost(self, run):
        self._kill(run, signal.SIGKILL)
        run.done = True
        status = self._terminal(run, 137)
        status.update(reason="NodeLost", message="Node %s which was running "
                      "pod %s is unresponsive" % (run.node, run.name))
        self.backend.patch_pod_status(run.ns, run.name, status)

    def _terminal(self, run, code, reason=None, message=None):
        """Status fields of a pod whose container exited with code."""
        terminated = {"exitCode": code,
                      "reason": reason or ("Completed" if code == 0 else "Error"),
                      "startedAt": run.started_at, "finishedAt": ob.now(),
                      "containerID": "kubesim://" + run.uid}
        failed = code != 0 or reason == "OOMKilled"
        if not message and failed and run.container.get(
                "terminationMessagePolicy") == "FallbackToLogsOnError":
            message = self._log_tail(run)
        if message:
            terminated["message"] = message
        return {
            "phase": "Failed" if failed else "Succeeded",
            "conditions": [
                ob.pod_condition("Ready", "False", "PodCompleted"),
                ob.pod_condition("ContainersReady", "False", "PodCompleted")],
            "containerStatuses": [self._container_status(run, {
                "terminated": terminated}, False)],
        }

    @staticmethod
    def _container_status(run, state, ready):
        return {"name": run.container["name"], "state": state, "lastState": {},
                "ready": ready, "started": ready, "restartCount": 0,
                "image": run.container.get("image", ""), "imageID": "",
                "containerID": "kubesim://" + run.uid}

    def _log_tail(self, run):
        """FallbackToLogsOnError, as the kubelet does it: the last 80 lines
        of the container's log, at most 2048 bytes of them."""
        try:
            with open(self._log_path({"namespace": run.ns, "name": run.name,
                                      "uid": run.uid}), "rb") as f:
                f.seek(0, os.SEEK_END)
                f.seek(max(0, f.tell() - 2048))
                tail = f.read()
        except OSError:
            return ""
        lines = tail.split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()
        return b"\n".join(lines[-80:]).decode("utf-8", "replace")

    def _log_path(self, meta):
        return os.path.join(self.log_dir, "%s_%s_%s.log" % (
            meta["namespace"], meta["name"], meta["uid"]))


def _open_log(path):
    """A container log, created 0600: jobs' output is for their owner
    (and kubesim, which serves it through pods/log), not for every local
    user."""
    return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC,
                   0o600)


def _expand(text, env):
    """Kubernetes $(VAR) expansion: known variables are replaced, unknown
    references are left as they are, $$ is a literal $."""
    def sub(m):
        if m.group(0) == "$$":
            return "$"
        return env.get(m.group(1), m.group(0))
    return _VAR_REF.sub(sub, text)


def _field_value(pod, fields, path):
    if path in fields:
        return fields[path]
    m = _FIELD_KEY.match(path)
    if m:
        return (pod["metadata"].get(m.group(1)) or {}).get(m.group(2))
    return None
