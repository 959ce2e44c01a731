# tests/fuzz: libFuzzer harnesses, one per parser a user, a client or the
# API server can feed (tests/fuzz/fuzz.h).  With configure --enable-fuzzing
# (clang) they are libFuzzer programs: tests/fuzz/run.sh runs each for a
# bounded time (contrib/run-tests.sh's fuzz tier).  In every other build
# they link driver.c instead, and corpus.t replays the seeds and every
# crash found so far (tests/fuzz/corpus/<harness>/) in `make check`.
if KAI_FUZZING
FUZZ_MAIN =
else
FUZZ_MAIN = tests/fuzz/driver.c
endif
FUZZ_COMMON = tests/fuzz/fuzz.h tests/fuzz/fuzz_util.c $(FUZZ_MAIN)
FUZZ_LINK_FLAGS = $(AM_LDFLAGS) $(KAI_FUZZ_LDFLAGS)
FUZZ_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/clients -I$(top_srcdir)/tests/fuzz
FUZZ_PROTO_LIBS = src/proto/libkaiproto.a src/model/libkaimodel.a \
	src/base/libkaibase.a
FUZZ_KUBE_LIBS = src/kube/libkaikube.a src/proto/libkaiproto.a src/sys/libkaisys.a \
	src/base/libkaibase.a $(CURL_LIBS) $(JSONC_LIBS) $(YAML_LIBS)

FUZZ_HARNESSES = \
	tests/fuzz/fuzz-admission \
	tests/fuzz/fuzz-conf \
	tests/fuzz/fuzz-directives \
	tests/fuzz/fuzz-frame \
	tests/fuzz/fuzz-http \
	tests/fuzz/fuzz-kube-node \
	tests/fuzz/fuzz-kube-pod \
	tests/fuzz/fuzz-kube-watch \
	tests/fuzz/fuzz-mem \
	tests/fuzz/fuzz-model \
	tests/fuzz/fuzz-msg \
	tests/fuzz/fuzz-options \
	tests/fuzz/fuzz-pattern \
	tests/fuzz/fuzz-queue-yaml \
	tests/fuzz/fuzz-scenario \
	tests/fuzz/fuzz-time
check_PROGRAMS += $(FUZZ_HARNESSES)
# Only the harnesses and what they link (contrib/run-tests.sh's fuzz tier).
fuzz-harnesses: $(FUZZ_HARNESSES)
.PHONY: fuzz-harnesses

tests_fuzz_fuzz_frame_SOURCES = tests/fuzz/fuzz-frame.c \
	tests/fuzz/fuzz_msg.c tests/fuzz/fuzz_msg.h $(FUZZ_COMMON)
tests_fuzz_fuzz_frame_CPPFLAGS = $(FUZZ_CPPFLAGS)
tests_fuzz_fuzz_frame_LDFLAGS = $(FUZZ_LINK_FLAGS)
tests_fuzz_fuzz_frame_LDADD = $(FUZZ_PROTO_LIBS)

tests_fuzz_fuzz_msg_SOURCES = tests/fuzz/fuzz-msg.c \
	tests/fuzz/fuzz_msg.c tests/fuzz/fuzz_msg.h $(FUZZ_COMMON)
tests_fuzz_fuzz_msg_CPPFLAGS = $(FUZZ_CPPFLAGS)
tests_fuzz_fuzz_msg_LDFLAGS = $(FUZZ_LINK_FLAGS)
tests_fuzz_fuzz_msg_LDADD = $(FUZZ_PROTO_LIBS)

tests_fuzz_fuzz_http_SOURCES = tests/fuzz/fuzz-http.c $(FUZZ_COMMON)
tests_fuzz_fuzz_http_CPPFLAGS = $(FUZZ_CPPFLAGS)
tests_fuzz_fuzz_http_LDFLAGS = $(FUZZ_LINK_FLAGS)
tests_fuzz_fuzz_http_LDADD = $(FUZZ_PROTO_LIBS)

tests_fuzz_fuzz_directives_SOURCES = tests/fuzz/fuzz-directives.c \
	tests/fuzz/fuzz_submit.c tests/fuzz/fuzz_submit.h $(FUZZ_COMMON)
tests_fuzz_fuzz_directives_CPPFLAGS = $(FUZZ_CPPFLAGS) $(JSONC_CFLAGS)
tests_fuzz_fuzz_directives_LDFLAGS = $(FUZZ_LINK_FLAGS)
tests_fuzz_fuzz_directives_LDADD = $(CLIENT_LIBS)

tests_fuzz_fuzz_options_SOURCES = tests/fuzz/fuzz-options.c \
	tests/fuzz/fuzz_submit.c tests/fuzz/fuzz_submit.h $(FUZZ_COMMON)
tests_fuzz_fuzz_options_CPPFLAGS = $(FUZZ_CPPFLAGS) $(JSONC_CFLAGS)
tests_fuzz_fuzz_options_LDFLAGS = $(FUZZ_LINK_FLAGS)
tests_fuzz_fuzz_options_LDADD = $(CLIENT_LIBS)

tests_fuzz_fuzz_time_SOURCES = tests/fuzz/fuzz-time.c $(FUZZ_COMMON)
tests_fuzz_fuzz_time_CPPFLAGS = $(FUZZ_CPPFLAGS)
tests_fuzz_fuzz_time_LDFLAGS = $(FUZZ_LINK_FLAGS)
tests_fuzz_fuzz_time_LDADD = clients/libkaicmd.a $(FUZZ_PROTO_LIBS)

tests_fuzz_fuzz_mem_SOURCES = tests/fuzz/fuzz-mem.c $(FUZZ_COMMON)
tests_fuzz_fuzz_mem_CPPFLAGS = $(FUZZ_CPPFLAGS) $(CURL_CFLAGS) $(JSONC_CFLAGS)
tests_fuzz_fuzz_mem_LDFLAGS = $(FUZZ_LINK_FLAGS)
tests_fuzz_fuzz_mem_LDADD = src/proto/libkaiproto.a src/model/libkaimodel.a \
	$(FUZZ_KUBE_LIBS)

tests_fuzz_fuzz_pattern_SOURCES = tests/fuzz/fuzz-pattern.c $(FUZZ_COMMON)
tests_fuzz_fuzz_pattern_CPPFLAGS = $(FUZZ_CPPFLAGS)
tests_fuzz_fuzz_pattern_LDFLAGS = $(FUZZ_LINK_FLAGS)
tests_fuzz_fuzz_pattern_LDADD = src/model/libkaimodel.a src/base/libkaibase.a

tests_fuzz_fuzz_model_SOURCES = tests/fuzz/fuzz-model.c $(FUZZ_COMMON)
tests_fuzz_fuzz_model_CPPFLAGS = $(FUZZ_CPPFLAGS)
tests_fuzz_fuzz_model_LDFLAGS = $(FUZZ_LINK_FLAGS)
tests_fuzz_fuzz_model_LDADD = src/model/libkaimodel.a src/base/libkaibase.a

tests_fuzz_fuzz_conf_SOURCES = tests/fuzz/fuzz-conf.c $(FUZZ_COMMON)
tests_fuzz_fuzz_conf_CPPFLAGS = $(FUZZ_CPPFLAGS)
tests_fuzz_fuzz_conf_LDFLAGS = $(FUZZ_LINK_FLAGS)
tests_fuzz_fuzz_conf_LDADD = src/conf/libkaiconf.a src/model/libkaimodel.a \
	src/base/libkaibase.a $(YAML_LIBS)

tests_fuzz_fuzz_queue_yaml_SOURCES = tests/fuzz/fuzz-queue-yaml.c \
	clients/kctl_apply.c clients/ytree.c $(FUZZ_COMMON)
tests_fuzz_fuzz_queue_yaml_CPPFLAGS = $(FUZZ_CPPFLAGS) $(JSONC_CFLAGS) \
	$(YAML_CFLAGS)
tests_fuzz_fuzz_queue_yaml_LDFLAGS = $(FUZZ_LINK_FLAGS)
tests_fuzz_fuzz_queue_yaml_LDADD = $(CLIENT_LIBS) $(YAML_LIBS)

tests_fuzz_fuzz_scenario_SOURCES = tests/fuzz/fuzz-scenario.c \
	$(KSIM_CORE_SOURCES) $(FUZZ_COMMON)
tests_fuzz_fuzz_scenario_CPPFLAGS = $(FUZZ_CPPFLAGS) $(YAML_CFLAGS)
tests_fuzz_fuzz_scenario_LDFLAGS = $(FUZZ_LINK_FLAGS)
tests_fuzz_fuzz_scenario_LDADD = src/sched/libkaisched.a \
	src/model/libkaimodel.a src/base/libkaibase.a $(YAML_LIBS)

tests_fuzz_fuzz_admission_SOURCES = tests/fuzz/fuzz-admission.c \
	$(FUZZ_COMMON)
tests_fuzz_fuzz_admission_CPPFLAGS = $(FUZZ_CPPFLAGS) $(JSONC_CFLAGS)
tests_fuzz_fuzz_admission_LDFLAGS = $(FUZZ_LINK_FLAGS)
tests_fuzz_fuzz_admission_LDADD = $(FUZZ_KUBE_LIBS)

tests_fuzz_fuzz_kube_pod_SOURCES = tests/fuzz/fuzz-kube-pod.c $(FUZZ_COMMON)
tests_fuzz_fuzz_kube_pod_CPPFLAGS = $(FUZZ_CPPFLAGS) $(CURL_CFLAGS) \
	$(JSONC_CFLAGS)
tests_fuzz_fuzz_kube_pod_LDFLAGS = $(FUZZ_LINK_FLAGS)
tests_fuzz_fuzz_kube_pod_LDADD = $(FUZZ_KUBE_LIBS)

tests_fuzz_fuzz_kube_node_SOURCES = tests/fuzz/fuzz-kube-node.c $(FUZZ_COMMON)
tests_fuzz_fuzz_kube_node_CPPFLAGS = $(FUZZ_CPPFLAGS) $(CURL_CFLAGS) \
	$(JSONC_CFLAGS)
tests_fuzz_fuzz_kube_node_LDFLAGS = $(FUZZ_LINK_FLAGS)
tests_fuzz_fuzz_kube_node_LDADD = $(FUZZ_KUBE_LIBS)

tests_fuzz_fuzz_kube_watch_SOURCES = tests/fuzz/fuzz-kube-watch.c \
	$(FUZZ_COMMON)
tests_fuzz_fuzz_kube_watch_CPPFLAGS = $(FUZZ_CPPFLAGS) $(CURL_CFLAGS) \
	$(JSONC_CFLAGS)
tests_fuzz_fuzz_kube_watch_LDFLAGS = $(FUZZ_LINK_FLAGS)
tests_fuzz_fuzz_kube_watch_LDADD = $(FUZZ_KUBE_LIBS)

# Every harness over its corpus, in this build (gcc, sanitizers, fuzzing).
TESTS += tests/fuzz/corpus.t
dist_check_SCRIPTS += tests/fuzz/corpus.t
EXTRA_DIST += tests/fuzz/driver.c tests/fuzz/run.sh tests/fuzz/corpus \
	tests/fuzz/README.md

# The seeds of the frame and message corpora are made by the encoders, so
# a change of the wire format is one `make fuzz-seeds` away; corpus.t
# fails while the seeds in the tree are not what the encoders write.
check_PROGRAMS += tests/fuzz/fuzz-seeds
tests_fuzz_fuzz_seeds_SOURCES = tests/fuzz/fuzz-seeds.c
tests_fuzz_fuzz_seeds_LDADD = $(FUZZ_PROTO_LIBS)
# Sample records are string literals assigned to the structs' char *.
tests_fuzz_fuzz_seeds_CFLAGS = $(AM_CFLAGS) -Wno-write-strings
fuzz-seeds: tests/fuzz/fuzz-seeds$(EXEEXT)
	tests/fuzz/fuzz-seeds $(srcdir)/tests/fuzz/corpus
.PHONY: fuzz-seeds
# End of tests/fuzz/local.mk
