# tests: the TAP harness, unit tests per module, integration tests.
noinst_LIBRARIES += tests/lib/libtap.a
tests_lib_libtap_a_SOURCES = tests/lib/tap.c tests/lib/tap.h

UNIT_LIBS_BASE = tests/lib/libtap.a src/base/libkaibase.a

check_PROGRAMS += tests/unit/base-buf
tests_unit_base_buf_SOURCES = tests/unit/base-buf.c
tests_unit_base_buf_LDADD = $(UNIT_LIBS_BASE)
TESTS += tests/unit/base-buf

# End of tests/local.mk
