# src/proto: the client <-> kaid wire protocol (frame + one codec per
# message family).  Pure: base and model only, no I/O.
noinst_LIBRARIES += src/proto/libkaiproto.a
src_proto_libkaiproto_a_SOURCES = \
	src/proto/codec.c \
	src/proto/codec.h \
	src/proto/frame.c \
	src/proto/http.c \
	src/proto/http.h \
	src/proto/msg_array.c \
	src/proto/msg_cancel.c \
	src/proto/msg_error.c \
	src/proto/msg_jobctl.c \
	src/proto/msg_jobs.c \
	src/proto/msg_nodes.c \
	src/proto/msg_ping.c \
	src/proto/msg_pty.c \
	src/proto/msg_queue.c \
	src/proto/msg_select.c \
	src/proto/msg_qos.c \
	src/proto/msg_report.c \
	src/proto/msg_share.c \
	src/proto/msg_step.c \
	src/proto/msg_submit.c \
	src/proto/msg_tools.h \
	src/proto/msgtype.h \
	src/proto/prom.c \
	src/proto/prom.h \
	src/proto/proto.h \
	src/proto/proto_array.h \
	src/proto/proto_pty.h \
	src/proto/proto_qos.h \
	src/proto/proto_report.h \
	src/proto/proto_step.h \
	src/proto/queue.c \
	src/proto/queue_types.c

check_PROGRAMS += tests/unit/proto-codec
tests_unit_proto_codec_SOURCES = tests/unit/proto-codec.c
tests_unit_proto_codec_LDADD = tests/lib/libtap.a src/proto/libkaiproto.a \
	src/model/libkaimodel.a src/base/libkaibase.a
TESTS += tests/unit/proto-codec

# The queue messages of kctl, the queue checks and decimal conversions.
check_PROGRAMS += tests/unit/proto-queue
tests_unit_proto_queue_SOURCES = tests/unit/proto-queue.c
tests_unit_proto_queue_LDADD = tests/lib/libtap.a src/proto/libkaiproto.a \
	src/model/libkaimodel.a src/base/libkaibase.a
TESTS += tests/unit/proto-queue

# The HTTP request head parser and the Prometheus exposition writer of
# kaid's health and metrics endpoint.
check_PROGRAMS += tests/unit/proto-http tests/unit/proto-prom
tests_unit_proto_http_SOURCES = tests/unit/proto-http.c
tests_unit_proto_http_LDADD = tests/lib/libtap.a src/proto/libkaiproto.a \
	src/base/libkaibase.a
TESTS += tests/unit/proto-http
tests_unit_proto_prom_SOURCES = tests/unit/proto-prom.c
tests_unit_proto_prom_LDADD = tests/lib/libtap.a src/proto/libkaiproto.a \
	src/base/libkaibase.a
TESTS += tests/unit/proto-prom

# The messages of kinfo, kctl's job verbs and klog (msg_tools.h).
check_PROGRAMS += tests/unit/proto-tools
tests_unit_proto_tools_SOURCES = tests/unit/proto-tools.c
tests_unit_proto_tools_LDADD = tests/lib/libtap.a src/proto/libkaiproto.a \
	src/model/libkaimodel.a src/base/libkaibase.a
TESTS += tests/unit/proto-tools

# The interactive session messages (proto_pty.h).
check_PROGRAMS += tests/unit/proto-pty
tests_unit_proto_pty_SOURCES = tests/unit/proto-pty.c
tests_unit_proto_pty_LDADD = tests/lib/libtap.a src/proto/libkaiproto.a \
	src/model/libkaimodel.a src/base/libkaibase.a
TESTS += tests/unit/proto-pty

# kshare's messages: round trips, frames that split, bad frames.
check_PROGRAMS += tests/unit/proto-share
tests_unit_proto_share_SOURCES = tests/unit/proto-share.c
tests_unit_proto_share_LDADD = tests/lib/libtap.a src/proto/libkaiproto.a \
	src/model/libkaimodel.a src/base/libkaibase.a
TESTS += tests/unit/proto-share

# A test tool for the integration tests: sends fresh, saved, replayed or
# tampered frames to kaid (replay protection, credential binding).
noinst_PROGRAMS += tests/tools/kai-rawreq
tests_tools_kai_rawreq_SOURCES = tests/tools/kai-rawreq.c
tests_tools_kai_rawreq_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/clients
tests_tools_kai_rawreq_LDADD = clients/libkaiclient.a \
	clients/libkaiclientmunge.a src/conf/libkaiconf.a \
	src/auth/libkaiauth.a src/proto/libkaiproto.a src/model/libkaimodel.a \
	src/base/libkaibase.a $(MUNGE_LIBS) $(YAML_LIBS)

EXTRA_DIST += doc/design/PROTOCOL.md
# End of src/proto/local.mk
