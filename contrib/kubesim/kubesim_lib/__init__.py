"""kubesim: a stand-in Kubernetes API server with simulated GPU nodes.

Modules:
  store     objects, the global resourceVersion counter and the watch history
  objects   Kubernetes semantics shared by every resource: Status errors,
            selectors, patches, pod defaulting
  schema    strict validation against the OpenAPI v2 swagger.json
  registry  the resource operations (create, bind, status, delete ...)
  api       the HTTPS front end: routing, auth, watches, logs, --record
  faults    injected failures (/kubesim/fail)
  kubelet   the node/kubelet simulation, which talks to the cluster only
            through a small backend interface
  local     that backend, in process, on top of the registry
  remote    that backend over HTTPS to a real kube-apiserver
            (kubesim --kubelet-only)
  kubeletserver  the kubelets' HTTPS port that a real apiserver proxies
            pods/NAME/log to (kubesim --kubelet-only)
  nodes     the nodes file
  tls       certificates and the kubeconfig
"""
