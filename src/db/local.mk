# src/db: the PostgreSQL store (see src/db/db.h).  The schema comes from
# sql/, compiled into sql/migrations.c by the rule in sql/local.mk.
noinst_LIBRARIES += src/db/libkaidb.a
src_db_libkaidb_a_SOURCES = \
	src/db/db.c \
	src/db/db.h \
	src/db/db_array.c \
	src/db/db_async.c \
	src/db/db_array.h \
	src/db/db_change.c \
	src/db/db_fields.c \
	src/db/db_internal.h \
	src/db/db_job.c \
	src/db/db_jobedit.c \
	src/db/db_mail.c \
	src/db/db_jobsize.c \
	src/db/db_steps.c \
	src/db/db_leader.c \
	src/db/db_query.c \
	src/db/db_queue.c \
	src/db/db_report.c \
	src/db/db_usage.c \
	src/db/db_util.c
nodist_src_db_libkaidb_a_SOURCES = sql/migrations.c
src_db_libkaidb_a_CPPFLAGS = $(AM_CPPFLAGS) $(PQ_CFLAGS)

# The unit test runs against a private PostgreSQL started by its wrapper.
check_PROGRAMS += tests/unit/db-store
tests_unit_db_store_SOURCES = tests/unit/db-store.c
tests_unit_db_store_CPPFLAGS = $(AM_CPPFLAGS) $(PQ_CFLAGS)
tests_unit_db_store_LDADD = tests/lib/libtap.a src/db/libkaidb.a \
	src/sys/libkaisys.a src/model/libkaimodel.a src/base/libkaibase.a \
	$(PQ_LIBS)
dist_check_SCRIPTS += tests/unit/db-store.t
TESTS += tests/unit/db-store.t
EXTRA_DIST += tests/lib/pg.sh

# The queue tree (kctl queue) against a private PostgreSQL, like db-store.
check_PROGRAMS += tests/unit/db-queues
tests_unit_db_queues_SOURCES = tests/unit/db-queues.c
tests_unit_db_queues_CPPFLAGS = $(AM_CPPFLAGS) $(PQ_CFLAGS)
tests_unit_db_queues_LDADD = tests/lib/libtap.a src/db/libkaidb.a \
	src/sys/libkaisys.a src/proto/libkaiproto.a src/model/libkaimodel.a \
	src/base/libkaibase.a $(PQ_LIBS)
dist_check_SCRIPTS += tests/unit/db-queues.t
TESTS += tests/unit/db-queues.t
# The decayed usage aggregate against the closed form of src/sched/decay.c.
check_PROGRAMS += tests/unit/db-usage
tests_unit_db_usage_SOURCES = tests/unit/db-usage.c
tests_unit_db_usage_CPPFLAGS = $(AM_CPPFLAGS) $(PQ_CFLAGS)
tests_unit_db_usage_LDADD = tests/lib/libtap.a src/db/libkaidb.a \
	src/sched/libkaisched.a src/sys/libkaisys.a src/model/libkaimodel.a \
	src/base/libkaibase.a $(PQ_LIBS) -lm
dist_check_SCRIPTS += tests/unit/db-usage.t
TESTS += tests/unit/db-usage.t
# End of src/db/local.mk
