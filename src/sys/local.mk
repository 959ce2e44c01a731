# src/sys: the system edge (logging, event loop, sockets, time).
noinst_LIBRARIES += src/sys/libkaisys.a
src_sys_libkaisys_a_SOURCES = \
	src/sys/log.c \
	src/sys/log.h \
	src/sys/loop.c \
	src/sys/loop.h

check_PROGRAMS += tests/unit/sys-loop
tests_unit_sys_loop_SOURCES = tests/unit/sys-loop.c
tests_unit_sys_loop_LDADD = tests/lib/libtap.a src/sys/libkaisys.a \
	src/base/libkaibase.a
TESTS += tests/unit/sys-loop
# End of src/sys/local.mk
