/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * compiler.h: attribute macros shared by every module.
 *
 * KAI_MUST_CHECK marks functions whose return value carries an error code;
 * ignoring it is a bug (cast to (void) with a comment when it truly is not).
 */
#ifndef KAI_BASE_COMPILER_H
#define KAI_BASE_COMPILER_H

#define KAI_MUST_CHECK	   __attribute__((warn_unused_result))
#define KAI_PRINTF(f, a)   __attribute__((format(printf, f, a)))
#define KAI_NORETURN	   __attribute__((noreturn))
#define KAI_UNUSED	   __attribute__((unused))
#define KAI_NELEM(a)	   (sizeof(a) / sizeof((a)[0]))

/*
 * KAI_ASSERT stays on in release builds: a broken invariant is reported with
 * its place and the process aborts, which beats carrying on with bad state.
 */
#define KAI_ASSERT(e)                                                      \
	((e) ? (void)0 : kai_assert_fail(#e, __FILE__, __LINE__))

KAI_NORETURN void kai_assert_fail(const char *expr, const char *file, int line);

#endif /* KAI_BASE_COMPILER_H */
