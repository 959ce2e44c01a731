# src/sched: the pure scheduler core.  Uses base only; no I/O, no clock.
noinst_LIBRARIES += src/sched/libkaisched.a
src_sched_libkaisched_a_SOURCES = \
	src/sched/sched.c \
	src/sched/sched.h

check_PROGRAMS += tests/unit/sched-plan
tests_unit_sched_plan_SOURCES = tests/unit/sched-plan.c
tests_unit_sched_plan_LDADD = tests/lib/libtap.a src/sched/libkaisched.a \
	src/base/libkaibase.a
TESTS += tests/unit/sched-plan
# End of src/sched/local.mk
