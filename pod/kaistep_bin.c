/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kaistep_bin.c: pod/kaistep, gzip'd, inside kaid (kaistep_bin.h).
 *
 * kaid never reads the pods' helpers from disk (helpers.c): the program
 * is assembled into kaid's read-only data with .incbin from the build
 * tree (pod/local.mk makes pod/kaistep.gz first and rebuilds this file
 * when it changes).  Without kaistep (configure found no static
 * libraries) the data are empty and kaid ships the shell shims alone.
 */
#include "config.h"

#include "kaistep_bin.h"

#ifdef KAI_HAVE_KAISTEP
__asm__(".section .rodata\n"
	".balign 16\n"
	".globl kaistep_gz\n"
	"kaistep_gz:\n"
	".incbin \"pod/kaistep.gz\"\n"
	".globl kaistep_gz_end\n"
	"kaistep_gz_end:\n"
	".byte 0\n"
	".previous\n");

size_t
kaistep_gz_len(void)
{
	return (size_t)(kaistep_gz_end - kaistep_gz);
}
#else
/* Two objects of their own: their distance means nothing, so no length. */
const unsigned char kaistep_gz[1] = {0};
const unsigned char kaistep_gz_end[1] = {0};

size_t
kaistep_gz_len(void)
{
	return 0;
}
#endif
