# src/sys: the system edge (logging, event loop, sockets, time).
noinst_LIBRARIES += src/sys/libkaisys.a
src_sys_libkaisys_a_SOURCES = \
	src/sys/log.c \
	src/sys/log.h
# End of src/sys/local.mk
