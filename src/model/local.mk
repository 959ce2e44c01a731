# src/model: the job model (specs, reports, the state machine, Slurm value
# syntaxes).  Pure: base only, no I/O.
noinst_LIBRARIES += src/model/libkaimodel.a
src_model_libkaimodel_a_SOURCES = \
	src/model/array.c \
	src/model/array.h \
	src/model/dep.c \
	src/model/dep.h \
	src/model/job.c \
	src/model/job.h \
	src/model/hostlist.c \
	src/model/hostlist.h \
	src/model/nodelists.c \
	src/model/nodelists.h \
	src/model/constraint.c \
	src/model/constraint.h \
	src/model/jobfields.c \
	src/model/jobfields.def \
	src/model/jobfields.h \
	src/model/jobgpus.c \
	src/model/jobstate.c \
	src/model/jobstate.h \
	src/model/mail.c \
	src/model/mail.h \
	src/model/sgtree.c \
	src/model/sgtree.h \
	src/model/jobsched.c

check_PROGRAMS += tests/unit/model-job
tests_unit_model_job_SOURCES = tests/unit/model-job.c
tests_unit_model_job_LDADD = tests/lib/libtap.a src/model/libkaimodel.a \
	src/base/libkaibase.a
TESTS += tests/unit/model-job

check_PROGRAMS += tests/unit/model-hostlist
tests_unit_model_hostlist_SOURCES = tests/unit/model-hostlist.c
tests_unit_model_hostlist_LDADD = tests/lib/libtap.a src/model/libkaimodel.a \
	src/base/libkaibase.a
TESTS += tests/unit/model-hostlist

check_PROGRAMS += tests/unit/model-array
tests_unit_model_array_SOURCES = tests/unit/model-array.c
tests_unit_model_array_LDADD = tests/lib/libtap.a src/model/libkaimodel.a \
	src/base/libkaibase.a
TESTS += tests/unit/model-array
check_PROGRAMS += tests/unit/model-mail
tests_unit_model_mail_SOURCES = tests/unit/model-mail.c
tests_unit_model_mail_LDADD = tests/lib/libtap.a src/model/libkaimodel.a \
	src/base/libkaibase.a
TESTS += tests/unit/model-mail

check_PROGRAMS += tests/unit/model-constraint
tests_unit_model_constraint_SOURCES = tests/unit/model-constraint.c
tests_unit_model_constraint_LDADD = tests/lib/libtap.a \
	src/model/libkaimodel.a src/base/libkaibase.a
TESTS += tests/unit/model-constraint
# End of src/model/local.mk
