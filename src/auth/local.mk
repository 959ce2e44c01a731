# src/auth: MUNGE credentials bound to request bytes (libmunge).
noinst_LIBRARIES += src/auth/libkaiauth.a
src_auth_libkaiauth_a_SOURCES = \
	src/auth/auth.h \
	src/auth/auth_munge.c
src_auth_libkaiauth_a_CFLAGS = $(AM_CFLAGS) $(MUNGE_CFLAGS)

# The C test needs a munged; auth-munge.t starts a private one.
check_PROGRAMS += tests/unit/auth-munge
tests_unit_auth_munge_SOURCES = tests/unit/auth-munge.c
tests_unit_auth_munge_LDADD = tests/lib/libtap.a src/auth/libkaiauth.a \
	src/base/libkaibase.a $(MUNGE_LIBS)
TESTS += tests/unit/auth-munge.t
dist_check_SCRIPTS += tests/unit/auth-munge.t
EXTRA_DIST += tests/lib/munge.sh

# Job credentials: pure (base only), so the static in-pod program links
# them without libmunge.
noinst_LIBRARIES += src/auth/libkaijobcred.a
src_auth_libkaijobcred_a_SOURCES = \
	src/auth/jobcred.c \
	src/auth/jobcred.h

check_PROGRAMS += tests/unit/auth-jobcred
tests_unit_auth_jobcred_SOURCES = tests/unit/auth-jobcred.c
tests_unit_auth_jobcred_LDADD = tests/lib/libtap.a src/auth/libkaijobcred.a \
	src/base/libkaibase.a
TESTS += tests/unit/auth-jobcred
# End of src/auth/local.mk
