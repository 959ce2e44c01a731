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
TESTS += tests/pod/shims.t tests/pod/shellcheck.t
dist_check_SCRIPTS += tests/pod/shims.t tests/pod/shellcheck.t
# End of pod/local.mk
