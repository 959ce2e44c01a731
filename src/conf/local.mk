# src/conf: kaid.yaml and kai.yaml (base, libyaml; model for the Slurm
# time-limit syntax of partitions).
noinst_LIBRARIES += src/conf/libkaiconf.a
src_conf_libkaiconf_a_SOURCES = \
	src/conf/conf.c \
	src/conf/conf.h \
	src/conf/conf_int.h \
	src/conf/conf_fs.c \
	src/conf/conf_lists.c \
	src/conf/conf_pools.c \
	src/conf/conf_qos.c \
	src/conf/conf_sched.c \
	src/conf/conf_table.c \
	src/conf/conf_types.c \
	src/conf/conf_yaml.c
src_conf_libkaiconf_a_CFLAGS = $(AM_CFLAGS) $(YAML_CFLAGS)

check_PROGRAMS += tests/unit/conf-load
tests_unit_conf_load_SOURCES = tests/unit/conf-load.c
tests_unit_conf_load_CPPFLAGS = $(AM_CPPFLAGS) \
	-DTOP_SRCDIR='"$(abs_top_srcdir)"'
tests_unit_conf_load_LDADD = tests/lib/libtap.a src/conf/libkaiconf.a \
	src/model/libkaimodel.a src/base/libkaibase.a $(YAML_LIBS)
TESTS += tests/unit/conf-load

check_PROGRAMS += tests/unit/conf-pools
tests_unit_conf_pools_SOURCES = tests/unit/conf-pools.c
tests_unit_conf_pools_LDADD = tests/lib/libtap.a src/conf/libkaiconf.a \
	src/model/libkaimodel.a src/base/libkaibase.a $(YAML_LIBS)
TESTS += tests/unit/conf-pools

check_PROGRAMS += tests/unit/conf-qos
tests_unit_conf_qos_SOURCES = tests/unit/conf-qos.c
tests_unit_conf_qos_LDADD = tests/lib/libtap.a src/conf/libkaiconf.a \
	src/model/libkaimodel.a src/base/libkaibase.a $(YAML_LIBS)
TESTS += tests/unit/conf-qos

dist_man_MANS += doc/man/kaid.yaml.5
EXTRA_DIST += etc/kaid.yaml.example etc/kai.yaml.example
# End of src/conf/local.mk
