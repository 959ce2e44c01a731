# pod: the shell kaid puts in every job pod (the wrapper that runs the
# batch script, the --signal timer, and the scontrol and srun that Slurm
# scripts call).  build-aux/pod2c.sh compiles them into pod/podshim.c (in
# the build tree), which kaid links, so kaid never reads them from disk.
POD_FILES = \
	pod/scontrol.sh \
	pod/signal.sh \
	pod/srun.sh \
	pod/wrapper.sh

EXTRA_DIST += $(POD_FILES) build-aux/pod2c.sh
CLEANFILES += pod/podshim.c

pod/podshim.c: $(POD_FILES) $(top_srcdir)/build-aux/pod2c.sh
	$(AM_V_GEN)$(MKDIR_P) pod && \
	$(SHELL) $(top_srcdir)/build-aux/pod2c.sh $(srcdir) $@ $(POD_FILES)

# kai-podtext prints the compiled text, so the tests run what pods get.
noinst_PROGRAMS += tests/tools/kai-podtext
tests_tools_kai_podtext_SOURCES = tests/tools/kai-podtext.c
nodist_tests_tools_kai_podtext_SOURCES = pod/podshim.c

# The shims and the wrapper run alone, and shellcheck (when installed)
# reads every file.
TESTS += tests/pod/shims.t tests/pod/shellcheck.t tests/pod/kaistep.t
dist_check_SCRIPTS += tests/pod/shims.t tests/pod/shellcheck.t \
	tests/pod/kaistep.t
# kaistep: ksubmit/sbatch, kqueue/squeue, kcancel/scancel and kctl
# inside job pods (pod/kaistep.c), one static program built from the
# clients' own files (their lists in clients/local.mk): each client's main() is renamed by -Dmain (its
# prototype forced in from kaistep.h), and the job-credential backend
# replaces MUNGE at link time.  Stripped (-s): it travels in the helpers
# ConfigMap, whose limit is 1 MiB.
if KAISTEP
noinst_PROGRAMS += pod/kaistep
noinst_LIBRARIES += pod/libstep_ksubmit.a pod/libstep_kqueue.a \
	pod/libstep_kcancel.a pod/libstep_kctl.a
STEP_CPPFLAGS = $(CLIENT_CPPFLAGS) $(YAML_CFLAGS) -I$(top_srcdir)/clients \
	-include $(top_srcdir)/pod/kaistep.h
pod_libstep_ksubmit_a_SOURCES = $(KSUBMIT_SOURCES)
pod_libstep_ksubmit_a_CPPFLAGS = $(STEP_CPPFLAGS) -Dmain=kaistep_ksubmit
pod_libstep_kqueue_a_SOURCES = $(KQUEUE_SOURCES)
pod_libstep_kqueue_a_CPPFLAGS = $(STEP_CPPFLAGS) -Dmain=kaistep_kqueue
pod_libstep_kcancel_a_SOURCES = $(KCANCEL_SOURCES)
pod_libstep_kcancel_a_CPPFLAGS = $(STEP_CPPFLAGS) -Dmain=kaistep_kcancel
pod_libstep_kctl_a_SOURCES = $(KCTL_SOURCES)
pod_libstep_kctl_a_CPPFLAGS = $(STEP_CPPFLAGS) -Dmain=kaistep_kctl
pod_kaistep_SOURCES = pod/kaistep.c pod/kaistep.h pod/kaistep_srun.c \
	pod/srun_relay.c pod/srun_relay.h pod/kaistep_agent.c pod/ptyserve.c \
	pod/kaid_away.c pod/kaid_away.h
pod_kaistep_CPPFLAGS = $(STEP_CPPFLAGS)
pod_kaistep_LDFLAGS = $(AM_LDFLAGS) -static -s
pod_kaistep_LDADD = pod/libstep_ksubmit.a pod/libstep_kqueue.a \
	pod/libstep_kcancel.a pod/libstep_kctl.a clients/libkaicmd.a \
	clients/libkaiclient.a clients/libkaiclientjob.a \
	src/auth/libkaijobcred.a src/proto/libkaiproto.a src/conf/libkaiconf.a \
	src/model/libkaimodel.a src/sys/libkaisys.a src/base/libkaibase.a \
	-lyaml -ljson-c

pod/kaistep.gz: pod/kaistep
	$(AM_V_GEN)gzip -9n <pod/kaistep >$@.tmp && mv $@.tmp $@
CLEANFILES += pod/kaistep.gz
# The .incbin of kaistep_bin.c, which dependency tracking does not see.
pod/kaistep_bin.$(OBJEXT): pod/kaistep.gz
endif
EXTRA_DIST += pod/kaistep.c pod/kaistep.h pod/kaistep_srun.c \
	pod/srun_relay.c pod/srun_relay.h pod/kaistep_agent.c pod/ptyserve.c \
	pod/kaid_away.c pod/kaid_away.h

# kaid's copy of kaistep.gz (kaistep_bin.c).
noinst_LIBRARIES += pod/libkaistepbin.a
pod_libkaistepbin_a_SOURCES = pod/kaistep_bin.c pod/kaistep_bin.h
# End of pod/local.mk
