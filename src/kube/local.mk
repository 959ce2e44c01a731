# src/kube: see the module's header.
noinst_LIBRARIES += src/kube/libkaikube.a
src_kube_libkaikube_a_SOURCES = \
	src/kube/admission.c \
	src/kube/admission.h \
	src/kube/gpushare.c \
	src/kube/gpushare.h \
	src/kube/kube.h \
	src/kube/kube_config.c \
	src/kube/kube_event.c \
	src/kube/kube_http.c \
	src/kube/kube_int.h \
	src/kube/kube_json.c \
	src/kube/kube_jctx.h \
	src/kube/kube_podparse.c \
	src/kube/kube_time.c \
	src/kube/kube_lean.c \
	src/kube/kube_log.c \
	src/kube/kube_kaistatus.c \
	src/kube/kube_object.c \
	src/kube/kube_pod.c \
	src/kube/kube_podjson.c \
	src/kube/kube_qty.c \
	src/kube/kube_queue.c \
	src/kube/kube_token.c \
	src/kube/kube_watch.c
src_kube_libkaikube_a_CFLAGS = $(AM_CFLAGS) $(CURL_CFLAGS) $(JSONC_CFLAGS) \
	$(YAML_CFLAGS)

KUBE_TEST_LIBS = tests/lib/libtap.a src/kube/libkaikube.a \
	src/proto/libkaiproto.a src/sys/libkaisys.a src/base/libkaibase.a \
	$(CURL_LIBS) $(JSONC_LIBS) $(YAML_LIBS)

check_PROGRAMS += tests/unit/kube-json
tests_unit_kube_json_SOURCES = tests/unit/kube-json.c
tests_unit_kube_json_CFLAGS = $(AM_CFLAGS) $(CURL_CFLAGS) $(JSONC_CFLAGS)
tests_unit_kube_json_LDADD = $(KUBE_TEST_LIBS)
TESTS += tests/unit/kube-json

check_PROGRAMS += tests/unit/kube-gpushare
tests_unit_kube_gpushare_SOURCES = tests/unit/kube-gpushare.c
tests_unit_kube_gpushare_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS)
tests_unit_kube_gpushare_LDADD = $(KUBE_TEST_LIBS)
TESTS += tests/unit/kube-gpushare

check_PROGRAMS += tests/unit/kube-admission
tests_unit_kube_admission_SOURCES = tests/unit/kube-admission.c
tests_unit_kube_admission_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS)
tests_unit_kube_admission_LDADD = $(KUBE_TEST_LIBS)
TESTS += tests/unit/kube-admission

check_PROGRAMS += tests/unit/kube-object
tests_unit_kube_object_SOURCES = tests/unit/kube-object.c
tests_unit_kube_object_CFLAGS = $(AM_CFLAGS) $(CURL_CFLAGS) $(JSONC_CFLAGS)
tests_unit_kube_object_LDADD = $(KUBE_TEST_LIBS)
TESTS += tests/unit/kube-object

check_PROGRAMS += tests/unit/kube-podspec
tests_unit_kube_podspec_SOURCES = tests/unit/kube-podspec.c
tests_unit_kube_podspec_CFLAGS = $(AM_CFLAGS) $(CURL_CFLAGS) $(JSONC_CFLAGS)
tests_unit_kube_podspec_LDADD = $(KUBE_TEST_LIBS)
TESTS += tests/unit/kube-podspec

check_PROGRAMS += tests/unit/kube-config
tests_unit_kube_config_SOURCES = tests/unit/kube-config.c
tests_unit_kube_config_LDADD = $(KUBE_TEST_LIBS)
TESTS += tests/unit/kube-config

# Needs kubesim (contrib/kubesim); kube-client.t starts it.
check_PROGRAMS += tests/unit/kube-client
tests_unit_kube_client_SOURCES = tests/unit/kube-client.c
tests_unit_kube_client_CFLAGS = $(AM_CFLAGS) $(CURL_CFLAGS) $(JSONC_CFLAGS)
tests_unit_kube_client_LDADD = $(KUBE_TEST_LIBS)
dist_check_SCRIPTS += tests/unit/kube-client.t
TESTS += tests/unit/kube-client.t
# The dispatch benchmark's raw client: not run by make check
# (tests/bench/bench-dispatch.sh runs it).
noinst_PROGRAMS += tests/bench/bench-podrate
tests_bench_bench_podrate_SOURCES = tests/bench/bench-podrate.c
tests_bench_bench_podrate_CFLAGS = $(AM_CFLAGS) $(CURL_CFLAGS) $(JSONC_CFLAGS)
tests_bench_bench_podrate_LDADD = src/kube/libkaikube.a src/sys/libkaisys.a \
	src/base/libkaibase.a $(CURL_LIBS) $(JSONC_LIBS) $(YAML_LIBS)
# End of src/kube/local.mk

check_PROGRAMS += tests/unit/kube-queue
tests_unit_kube_queue_SOURCES = tests/unit/kube-queue.c
tests_unit_kube_queue_CFLAGS = $(AM_CFLAGS) $(CURL_CFLAGS) $(JSONC_CFLAGS)
tests_unit_kube_queue_LDADD = $(KUBE_TEST_LIBS)
TESTS += tests/unit/kube-queue
