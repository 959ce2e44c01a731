/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kube_token.c: the bearer token, kept fresh from its file.
 *
 * A service-account token in a pod is short-lived: the kubelet writes a
 * new one into the projected volume well before the old one expires
 * (about every hour by default), and a client that read the file once
 * at start-up is refused with 401 a few hours later.  client-go re-reads
 * the file every minute; kaid looks at the file's identity (inode, size,
 * modification time; the kubelet replaces the file through a symlink
 * swap, so stat() follows to the new one) at most once a second before a
 * request and reads it again when that changed, so a rotation takes
 * effect within a second without a read per request.  A file that cannot
 * be read or is empty keeps the token already held: the old one may
 * still be valid, and a refused request says more than a guess would.
 * The same holds for a kubeconfig's tokenFile.
 */
#include "config.h"

#include <sys/stat.h>

#include <string.h>

#include "base/xmalloc.h"
#include "kube/kube_int.h"
#include "sys/log.h"

#define TOKEN_CHECK_MS 1000

static void
set_header(struct kai_kube *kube, const char *token)
{
	if (kube->auth_hdr != NULL)
		kai_free_secret(kube->auth_hdr, strlen(kube->auth_hdr));
	kube->auth_hdr = token != NULL
	    ? kai_xasprintf("Authorization: Bearer %s", token) : NULL;
}

static void
remember(struct kube_tokstat *ts, const struct stat *st)
{
	ts->ino = (uint64_t)st->st_ino;
	ts->size = (uint64_t)st->st_size;
	ts->mtime_ns = (int64_t)st->st_mtim.tv_sec * 1000000000 +
	    st->st_mtim.tv_nsec;
}

void
kube_token_init(struct kai_kube *kube)
{
	struct stat st;

	set_header(kube, kube->cfg.token);
	kube->tok.checked_ms = kai_loop_now_ms(kube->loop);
	if (kube->cfg.token_file != NULL &&
	    stat(kube->cfg.token_file, &st) == 0)
		remember(&kube->tok, &st);
}

void
kube_token_refresh(struct kai_kube *kube)
{
	struct kube_tokstat seen = kube->tok;
	const char *path = kube->cfg.token_file;
	int64_t now = kai_loop_now_ms(kube->loop);
	struct kai_err err;
	struct stat st;
	char *tok;

	if (path == NULL || now - kube->tok.checked_ms < TOKEN_CHECK_MS)
		return;
	kube->tok.checked_ms = now;
	if (stat(path, &st) != 0)
		return;	/* mid-swap, or gone: keep what we have */
	remember(&seen, &st);
	if (seen.ino == kube->tok.ino && seen.size == kube->tok.size &&
	    seen.mtime_ns == kube->tok.mtime_ns)
		return;
	if (kube_token_read(path, &tok, &err) != 0) {
		kai_log_warn("kubernetes: keeping the current token: %s",
		    err.msg);
		return;
	}
	kube->tok = seen;
	if (kube->cfg.token != NULL && strcmp(tok, kube->cfg.token) == 0) {
		kai_free_secret(tok, strlen(tok));
		return;	/* touched, not changed */
	}
	if (kube->cfg.token != NULL)
		kai_free_secret(kube->cfg.token, strlen(kube->cfg.token));
	kube->cfg.token = tok;
	set_header(kube, tok);
	kai_log_info("kubernetes: read a new token from \"%s\"", path);
}
