/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * conf_fs.c: whether a job's paths lie on the shared filesystems.
 *
 * A job's working directory and output files must be on a filesystem its
 * pods mount, or the job fails in its pod (cannot chdir, cannot write
 * the output) after it waited its turn; kaid refuses it at submit
 * instead.  The test is lexical, on the path as the login node gave it:
 * "." and ".." are resolved by name, and symbolic links are not followed
 * (kaid cannot see the login node's links, and a job sees the paths as
 * they are spelt).
 *
 * A Slurm file pattern (%j, %u, ...) is checked by the directory its
 * fixed part names: "/home/alice/out-%j.log" lies in /home/alice.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/xmalloc.h"
#include "conf/conf.h"

/*
 * The absolute path p with "." and ".." resolved and repeated and final
 * slashes dropped ("/" stays "/"); caller owns it.
 */
static char *
normalize(const char *p)
{
	char *out = kai_xmalloc(strlen(p) + 2);
	size_t len = 0, n;

	while (*p != '\0') {
		while (*p == '/')
			p++;
		n = strcspn(p, "/");
		if (n == 0)
			break;
		if (n == 1 && p[0] == '.') {
			/* nothing */
		} else if (n == 2 && p[0] == '.' && p[1] == '.') {
			while (len > 0 && out[len - 1] != '/')
				len--;
			if (len > 0)
				len--;	/* the slash before it */
		} else {
			out[len++] = '/';
			memcpy(out + len, p, n);
			len += n;
		}
		p += n;
	}
	if (len == 0)
		out[len++] = '/';
	out[len] = '\0';
	return out;
}

const struct kai_conf_fs *
kai_conf_fs_find(const struct kai_conf_fs *fs, size_t n, const char *path)
{
	char *p;
	size_t i, len;

	if (path == NULL || *path != '/')
		return NULL;
	p = normalize(path);
	for (i = 0; i < n; i++) {
		len = strlen(fs[i].path);
		if (strncmp(p, fs[i].path, len) == 0 &&
		    (p[len] == '\0' || p[len] == '/'))
			break;
	}
	free(p);
	return i < n ? &fs[i] : NULL;
}

const struct kai_conf_fs *
kai_conf_fs_find_pattern(const struct kai_conf_fs *fs, size_t n,
    const char *workdir, const char *pattern)
{
	const struct kai_conf_fs *f;
	char *full, *cut;

	if (*pattern == '/')
		full = kai_xstrdup(pattern);
	else
		full = kai_xasprintf("%s/%s", workdir, pattern);
	if ((cut = strchr(full, '%')) != NULL)
		*cut = '\0';
	/* The directory the file is in: up to the last slash. */
	cut = strrchr(full, '/');
	if (cut != NULL)
		*(cut == full ? cut + 1 : cut) = '\0';
	f = kai_conf_fs_find(fs, n, full);
	free(full);
	return f;
}

char *
kai_conf_fs_names(const struct kai_conf_fs *fs, size_t n)
{
	struct kai_buf b;
	size_t i;

	kai_buf_init(&b, (size_t)64 * 4096);
	for (i = 0; i < n; i++)
		KAI_ASSERT(kai_buf_addf(&b, "%s%s", i > 0 ? ", " : "",
		    fs[i].path) == 0);
	if (n == 0)
		KAI_ASSERT(kai_buf_adds(&b, "none") == 0);
	return kai_buf_detach(&b, NULL);
}
