# contrib: kubesim, the quickstart and test scripts, examples.  Nothing in
# the build depends on these; they ship in the tarball.
KUBESIM_FILES = \
	contrib/kubesim/README.md \
	contrib/kubesim/kubesim \
	contrib/kubesim/kubesim_lib/__init__.py \
	contrib/kubesim/kubesim_lib/api.py \
	contrib/kubesim/kubesim_lib/faults.py \
	contrib/kubesim/kubesim_lib/kubelet.py \
	contrib/kubesim/kubesim_lib/kubeletserver.py \
	contrib/kubesim/kubesim_lib/local.py \
	contrib/kubesim/kubesim_lib/nodes.py \
	contrib/kubesim/kubesim_lib/objects.py \
	contrib/kubesim/kubesim_lib/registry.py \
	contrib/kubesim/kubesim_lib/remote.py \
	contrib/kubesim/kubesim_lib/schema.py \
	contrib/kubesim/kubesim_lib/store.py \
	contrib/kubesim/kubesim_lib/tls.py \
	contrib/kubesim/nodes.example.yaml
EXTRA_DIST += $(KUBESIM_FILES) \
	contrib/deps.sh \
	contrib/examples/hello-gpu.sh \
	contrib/quickstart.sh \
	contrib/run-tests.sh \
	.ci/run

TESTS += tests/kubesim/kubesim-api.t
EXTRA_DIST += tests/kubesim/kubesim-api.t

# Bash completion, tested against the built clients' own --help.
EXTRA_DIST += contrib/completion/kaibatch.bash tests/unit/completion.t
TESTS += tests/unit/completion.t
# End of contrib/local.mk
