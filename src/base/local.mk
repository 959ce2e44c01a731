# src/base: pure helpers (errors, memory, buffers, numbers).  No I/O.
noinst_LIBRARIES += src/base/libkaibase.a
src_base_libkaibase_a_SOURCES = \
	src/base/base64.c \
	src/base/base64.h \
	src/base/buf.c \
	src/base/buf.h \
	src/base/compiler.h \
	src/base/err.c \
	src/base/err.h \
	src/base/map.c \
	src/base/map.h \
	src/base/sha256.c \
	src/base/sha256.h \
	src/base/strconv.c \
	src/base/strconv.h \
	src/base/utf8.c \
	src/base/utf8.h \
	src/base/xmalloc.c \
	src/base/xmalloc.h

check_PROGRAMS += tests/unit/base-sha256
tests_unit_base_sha256_SOURCES = tests/unit/base-sha256.c
tests_unit_base_sha256_LDADD = tests/lib/libtap.a src/base/libkaibase.a
TESTS += tests/unit/base-sha256

check_PROGRAMS += tests/unit/base-base64
tests_unit_base_base64_SOURCES = tests/unit/base-base64.c
tests_unit_base_base64_LDADD = tests/lib/libtap.a src/base/libkaibase.a
TESTS += tests/unit/base-base64

check_PROGRAMS += tests/unit/base-utf8
tests_unit_base_utf8_SOURCES = tests/unit/base-utf8.c
tests_unit_base_utf8_LDADD = tests/lib/libtap.a src/base/libkaibase.a
TESTS += tests/unit/base-utf8
# End of src/base/local.mk
