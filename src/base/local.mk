# src/base: pure helpers (errors, memory, buffers, numbers).  No I/O.
noinst_LIBRARIES += src/base/libkaibase.a
src_base_libkaibase_a_SOURCES = \
	src/base/buf.c \
	src/base/buf.h \
	src/base/compiler.h \
	src/base/err.c \
	src/base/err.h \
	src/base/map.c \
	src/base/map.h \
	src/base/strconv.c \
	src/base/strconv.h \
	src/base/xmalloc.c \
	src/base/xmalloc.h
# End of src/base/local.mk
