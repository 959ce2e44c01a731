/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kube-config: kubeconfig and in-cluster files written into a temporary
 * directory (data vs file, token vs tokenFile vs client certificate,
 * context selection, and every refusal with its message), and the base64
 * decoder the embedded certificates need.
 */
#include "config.h"

#include <sys/stat.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base64.h"
#include "base/xmalloc.h"
#include "kube/kube.h"
#include "tap.h"

static void
b64(const char *in, const char *want)
{
	struct kai_err err;
	char *out;
	size_t n;

	if (kai_base64_decode(in, strlen(in), &out, &n, &err) != 0) {
		ok(0, "base64 \"%s\": %s", in, kai_err_msg(&err));
		return;
	}
	ok(n == strlen(want) && strcmp(out, want) == 0, "base64 \"%.*s\"",
	    (int)strcspn(in, "\r\n"), in);
	free(out);
}

static void
b64_bad(const char *in, const char *msg)
{
	struct kai_err err;
	char *out = (char *)1;

	kai_err_clear(&err);
	is_int(kai_base64_decode(in, strlen(in), &out, NULL, &err), KAI_EINVAL,
	    "base64 \"%s\" refused", in);
	ok(out == NULL, "no output");
	is_str(err.msg, msg, "message");
}

static void
test_base64(void)
{
	b64("", "");
	b64("aGVsbG8=", "hello");
	b64("aGVsbG8", "hello");
	b64("aGVsbA==", "hell");
	b64("aGVs", "hel");
	b64("aGVs\nbG8h\r\n", "hello!");
	b64("+/+/", "\xfb\xff\xbf");
	b64_bad("aGVsbG8*", "invalid base64: unexpected character at offset 7");
	b64_bad("aGVsb", "invalid base64: truncated data");
	b64_bad("aGVsbG8==", "invalid base64: wrong amount of padding");
	b64_bad("aG=VsbG8",
	    "invalid base64: unexpected character after padding");
}

/* Writes text to dir/name. */
static void
write_file(const char *dir, const char *name, const char *text)
{
	char *path = kai_xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "w");

	if (f == NULL || fputs(text, f) == EOF || fclose(f) != 0)
		diag("could not write %s", path);
	free(path);
}

static const char kubeconfig[] =
    "apiVersion: v1\n"
    "kind: Config\n"
    "current-context: dev\n"
    "contexts:\n"
    "- name: dev\n"
    "  context:\n"
    "    cluster: c1\n"
    "    user: u-token\n"
    "    namespace: batch\n"
    "- name: files\n"
    "  context: {cluster: c2, user: u-tokenfile}\n"
    "- name: certs\n"
    "  context: {cluster: c1, user: u-cert}\n"
    "- name: nouser\n"
    "  context: {cluster: c1}\n"
    "- name: nocluster\n"
    "  context: {user: u-token}\n"
    "- name: noserver\n"
    "  context: {cluster: c-noserver}\n"
    "- name: badb64\n"
    "  context: {cluster: c-bad64}\n"
    "- name: nofile\n"
    "  context: {cluster: c-nofile}\n"
    "- name: badbool\n"
    "  context: {cluster: c-badbool}\n"
    "- name: ghost\n"
    "  context: {cluster: nope}\n"
    "- name: exec\n"
    "  context: {cluster: c1, user: u-exec}\n"
    "- name: half\n"
    "  context: {cluster: c1, user: u-half}\n"
    "- name: emptytoken\n"
    "  context: {cluster: c1, user: u-emptytoken}\n"
    "clusters:\n"
    "- name: c1\n"
    "  cluster:\n"
    "    server: https://127.0.0.1:6443\n"
    "    certificate-authority-data: Y2EtcGVtCg==\n"
    "- name: c2\n"
    "  cluster:\n"
    "    server: https://10.0.0.1:6443\n"
    "    certificate-authority: ca.crt\n"
    "    insecure-skip-tls-verify: true\n"
    "- name: c-noserver\n"
    "  cluster: {certificate-authority-data: Y2EtcGVtCg==}\n"
    "- name: c-bad64\n"
    "  cluster: {server: https://x, certificate-authority-data: \"Y2E*\"}\n"
    "- name: c-nofile\n"
    "  cluster: {server: https://x, certificate-authority: missing.crt}\n"
    "- name: c-badbool\n"
    "  cluster: {server: https://x, insecure-skip-tls-verify: maybe}\n"
    "users:\n"
    "- name: u-token\n"
    "  user: {token: abc123}\n"
    "- name: u-tokenfile\n"
    "  user: {tokenFile: token.txt}\n"
    "- name: u-cert\n"
    "  user: {client-certificate-data: Y2VydC1wZW0K, client-key: client.key}\n"
    "- name: u-exec\n"
    "  user: {exec: {command: aws}}\n"
    "- name: u-half\n"
    "  user: {client-certificate: client.crt}\n"
    "- name: u-emptytoken\n"
    "  user: {tokenFile: empty.txt}\n";

static void
cfg_bad(const char *path, const char *context, const char *msg)
{
	struct kai_kube_config cfg;
	struct kai_err err;

	kai_err_clear(&err);
	is_int(kai_kube_config_load(path, context, &cfg, &err), KAI_ECONFIG,
	    "context %s refused", context != NULL ? context : "(current)");
	is_str(err.msg, msg, "message");
	ok(cfg.server == NULL && cfg.token == NULL && cfg.ca_pem == NULL,
	    "nothing left allocated");
}

static void
test_kubeconfig_good(const char *path)
{
	struct kai_kube_config cfg;
	struct kai_err err;

	is_int(kai_kube_config_load(path, NULL, &cfg, &err), 0,
	    "current-context loads");
	is_str(cfg.server, "https://127.0.0.1:6443", "server");
	is_str(cfg.ca_pem, "ca-pem\n", "certificate-authority-data decoded");
	is_str(cfg.token, "abc123", "token");
	is_str(cfg.namespace, "batch", "namespace");
	ok(!cfg.insecure && cfg.client_cert_pem == NULL, "verify, no cert");
	kai_kube_config_fini(&cfg);

	is_int(kai_kube_config_load(path, "files", &cfg, &err), 0,
	    "context \"files\" loads");
	is_str(cfg.server, "https://10.0.0.1:6443", "its server");
	is_str(cfg.ca_pem, "ca file\n", "CA file relative to the kubeconfig");
	is_str(cfg.token, "file-token", "tokenFile without the newline");
	ok(cfg.insecure && cfg.namespace == NULL, "insecure, no namespace");
	kai_kube_config_fini(&cfg);

	is_int(kai_kube_config_load(path, "certs", &cfg, &err), 0,
	    "context \"certs\" loads");
	is_str(cfg.client_cert_pem, "cert-pem\n", "client-certificate-data");
	is_str(cfg.client_key_pem, "key file\n", "client-key file");
	ok(cfg.token == NULL, "no token");
	kai_kube_config_fini(&cfg);

	is_int(kai_kube_config_load(path, "nouser", &cfg, &err), 0,
	    "a context without a user loads");
	ok(cfg.token == NULL && cfg.client_cert_pem == NULL, "no credentials");
	kai_kube_config_fini(&cfg);
}

/* cfg_bad() with the message "kubeconfig \"path\": " + fmt. */
static void cfg_badf(const char *path, const char *context, const char *fmt,
    ...) KAI_PRINTF(3, 4);

static void
cfg_badf(const char *path, const char *context, const char *fmt, ...)
{
	char msg[512];
	int n;
	va_list ap;

	n = snprintf(msg, sizeof(msg), "kubeconfig \"%s\": ", path);
	va_start(ap, fmt);
	(void)vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
	va_end(ap);
	cfg_bad(path, context, msg);
}

static void
test_kubeconfig_bad(const char *path, const char *dir)
{
	cfg_badf(path, "ghost", "cluster \"nope\" not found");
	cfg_badf(path, "nosuch", "context \"nosuch\" not found");
	cfg_badf(path, "nocluster", "context \"nocluster\" has no cluster");
	cfg_badf(path, "noserver", "cluster \"c-noserver\": no server");
	cfg_badf(path, "badb64", "cluster \"c-bad64\": %s: %s",
	    "certificate-authority-data",
	    "invalid base64: unexpected character at offset 3");
	cfg_badf(path, "badbool", "cluster \"c-badbool\": %s: %s",
	    "insecure-skip-tls-verify",
	    "expected true or false, not \"maybe\"");
	cfg_badf(path, "exec",
	    "user \"u-exec\": \"exec\" credentials are not supported");
	cfg_badf(path, "half",
	    "user \"u-half\": client-certificate and client-key go together");
	cfg_badf(path, "nofile",
	    "cluster \"c-nofile\": certificate-authority: could not open "
	    "\"%s/missing.crt\": No such file or directory",
	    dir);
	cfg_badf(path, "emptytoken",
	    "user \"u-emptytoken\": tokenFile: token file \"%s/empty.txt\" "
	    "is empty",
	    dir);
}

/* Files of the kubeconfig test, all in one directory. */
static const char *const kc_files[][2] = {
    {"config", kubeconfig},
    {"ca.crt", "ca file\n"},
    {"token.txt", "file-token\n"},
    {"client.key", "key file\n"},
    {"client.crt", "cert file\n"},
    {"empty.txt", "\n"},
    {"nocurrent", "contexts: []\n"},
    {"broken", "clusters: [1, 2\n"},
    {"list", "- a\n- b\n"},
};

static void
test_kubeconfig_files(const char *dir)
{
	char *path, *msg;

	path = kai_xasprintf("%s/config", dir);
	test_kubeconfig_good(path);
	test_kubeconfig_bad(path, dir);
	free(path);
	path = kai_xasprintf("%s/nocurrent", dir);
	cfg_badf(path, NULL, "no current-context and no context given");
	free(path);
	path = kai_xasprintf("%s/broken", dir);
	cfg_badf(path, NULL, "line 2: did not find expected ',' or ']'");
	free(path);
	path = kai_xasprintf("%s/list", dir);
	cfg_badf(path, NULL, "not a YAML mapping");
	free(path);
	path = kai_xasprintf("%s/absent", dir);
	msg = kai_xasprintf("kubeconfig \"%s\": could not open: %s", path,
	    "No such file or directory");
	cfg_bad(path, NULL, msg);
	free(msg);
	free(path);
}

/* A fresh directory under $TMPDIR; caller owns the name. */
static char *
make_tmpdir(const char *what)
{
	const char *tmp = getenv("TMPDIR");
	char *dir;

	dir = kai_xasprintf("%s/%s.XXXXXX", tmp != NULL ? tmp : "/tmp", what);
	if (mkdtemp(dir) == NULL) {
		free(dir);
		return NULL;
	}
	return dir;
}

/* Removes dir/name for each name, then dir. */
static void
remove_tmpdir(char *dir, const char *const *names, size_t n)
{
	char *path;
	size_t i;

	for (i = 0; i < n; i++) {
		path = kai_xasprintf("%s/%s", dir, names[i]);
		(void)unlink(path);
		free(path);
	}
	if (rmdir(dir) != 0)
		diag("could not remove %s", dir);
	free(dir);
}

static void
test_kubeconfig(void)
{
	const char *names[KAI_NELEM(kc_files)];
	char *dir;
	size_t i;

	if ((dir = make_tmpdir("kube-json")) == NULL) {
		ok(0, "make a temporary directory");
		return;
	}
	for (i = 0; i < KAI_NELEM(kc_files); i++) {
		write_file(dir, kc_files[i][0], kc_files[i][1]);
		names[i] = kc_files[i][0];
	}
	test_kubeconfig_files(dir);
	remove_tmpdir(dir, names, KAI_NELEM(names));
}

static void
test_incluster(void)
{
	static const char *const names[] = {"token", "ca.crt", "namespace"};
	struct kai_kube_config cfg;
	struct kai_err err;
	char *dir;

	if ((dir = make_tmpdir("kube-sa")) == NULL) {
		ok(0, "make a temporary directory");
		return;
	}
	write_file(dir, "token", "sa-token\n");
	write_file(dir, "ca.crt", "sa ca\n");
	write_file(dir, "namespace", "kaibatch");
	is_int(kai_kube_config_incluster(dir, "10.96.0.1", "443", &cfg, &err),
	    0, "in-cluster files load");
	ok(strcmp(cfg.server, "https://10.96.0.1:443") == 0 &&
		strcmp(cfg.token, "sa-token") == 0 &&
		strcmp(cfg.ca_pem, "sa ca\n") == 0 &&
		strcmp(cfg.namespace, "kaibatch") == 0,
	    "server, token, CA, namespace");
	kai_kube_config_fini(&cfg);
	is_int(kai_kube_config_incluster(dir, "fd00::1", "443", &cfg, &err), 0,
	    "an IPv6 service host");
	is_str(cfg.server, "https://[fd00::1]:443", "gets brackets");
	kai_kube_config_fini(&cfg);
	is_int(kai_kube_config_incluster(dir, NULL, "443", &cfg, &err),
	    KAI_ECONFIG, "no service host is refused");
	remove_tmpdir(dir, names, KAI_NELEM(names));
	is_int(kai_kube_config_incluster("/nonexistent-sa", "h", "1", &cfg,
		   &err),
	    KAI_ECONFIG, "no token file is refused");
	is_str(err.msg,
	    "in-cluster config: could not open "
	    "\"/nonexistent-sa/token\": No such file or directory",
	    "message");
}

int
main(void)
{
	test_base64();
	test_kubeconfig();
	test_incluster();
	return done_testing();
}
