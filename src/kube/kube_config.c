/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kube_config.c: where the cluster is and how to log in to it, from a
 * kubeconfig file (libyaml) or the in-cluster service-account files.
 *
 * Only what kaid uses is read: the chosen context's cluster (server, CA,
 * insecure-skip-tls-verify), user (bearer token or client certificate)
 * and namespace.  Credentials kaid cannot use (exec plugins,
 * auth-provider, basic auth) are an error rather than a silent anonymous
 * login.  Every file is read whole with a size limit; secrets (the token,
 * the client key) are wiped when freed.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

#include "base/base64.h"
#include "base/xmalloc.h"
#include "kube/kube_int.h"

#define FILE_MAX (4u << 20) /* a kubeconfig, certificate or token file */

/*
 * Reads path whole (at most FILE_MAX bytes); caller owns *out.  Messages
 * name the file as `could not open "path": ...`, or leave the name out
 * when the caller's prefix already gives it (named false).
 */
static int
read_file(const char *path, bool named, char **out, size_t *outlen,
    struct kai_err *err)
{
	struct kai_buf b;
	char chunk[8192], name[PATH_MAX + 4] = "";
	ssize_t n;
	int fd, r = 0;

	*out = NULL;
	if (named)
		(void)snprintf(name, sizeof(name), " \"%s\"", path);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return kai_err_set(err, KAI_ECONFIG, "could not open%s: %s",
		    name, strerror(errno));
	kai_buf_init(&b, FILE_MAX);
	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			r = kai_err_set(err, KAI_ECONFIG,
			    "could not read%s: %s", name, strerror(errno));
			break;
		}
		if (kai_buf_add(&b, chunk, (size_t)n) != 0) {
			r = kai_err_set(err, KAI_ECONFIG,
			    "file%s is larger than %u bytes", name, FILE_MAX);
			break;
		}
	}
	(void)close(fd);
	explicit_bzero(chunk, sizeof(chunk));
	if (r != 0) {
		if (b.cap > 0)
			explicit_bzero(b.data, b.cap);
		kai_buf_fini(&b);
		return r;
	}
	*out = kai_buf_detach(&b, outlen);
	return 0;
}

/* A token file's content without the trailing newline. */
int
kube_token_read(const char *path, char **out, struct kai_err *err)
{
	size_t n = 0;
	int r;

	if ((r = read_file(path, true, out, &n, err)) != 0)
		return r;
	while (n > 0 && strchr(" \t\r\n", (*out)[n - 1]) != NULL)
		(*out)[--n] = '\0';
	if (n == 0 || strlen(*out) != n) {
		kai_free_secret(*out, n);
		*out = NULL;
		return kai_err_set(err, KAI_ECONFIG, "token file \"%s\" is %s",
		    path, n == 0 ? "empty" : "not text");
	}
	return 0;
}

struct kcfg {
	const char *path; /* the kubeconfig */
	char *dir;        /* its directory, for relative paths */
	yaml_document_t doc;
	struct kai_err *err;
};

static int kfail(struct kcfg *k, const char *fmt, ...) KAI_PRINTF(2, 3);

static int
kfail(struct kcfg *k, const char *fmt, ...)
{
	char msg[KAI_ERR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return kai_err_set(k->err, KAI_ECONFIG, "kubeconfig \"%s\": %s",
	    k->path, msg);
}

/* The value of key in mapping m, or NULL. */
static yaml_node_t *
map_get(struct kcfg *k, yaml_node_t *m, const char *key)
{
	yaml_node_pair_t *p;
	yaml_node_t *kn;

	if (m == NULL || m->type != YAML_MAPPING_NODE)
		return NULL;
	for (p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top;
	     p++) {
		kn = yaml_document_get_node(&k->doc, p->key);
		if (kn != NULL && kn->type == YAML_SCALAR_NODE &&
		    strcmp((const char *)kn->data.scalar.value, key) == 0)
			return yaml_document_get_node(&k->doc, p->value);
	}
	return NULL;
}

/* A scalar of m as a string; NULL when absent, an error if not scalar. */
static int
map_str(struct kcfg *k, yaml_node_t *m, const char *key, const char *where,
    const char **out)
{
	yaml_node_t *v = map_get(k, m, key);

	*out = NULL;
	if (v == NULL)
		return 0;
	if (v->type != YAML_SCALAR_NODE)
		return kfail(k, "line %lu: %s%s: expected a string",
		    (unsigned long)v->start_mark.line + 1, where, key);
	*out = (const char *)v->data.scalar.value;
	/* "key:" with no value, "key: null" and "key: ~" are all null. */
	if (v->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	    (**out == '\0' || strcmp(*out, "null") == 0 ||
		strcmp(*out, "~") == 0))
		*out = NULL;
	return 0;
}

/* The named entry of a list such as "contexts" (its "context" mapping). */
static int
named(struct kcfg *k, const char *list, const char *name, const char *inner,
    yaml_node_t **out)
{
	yaml_node_t *seq, *item;
	yaml_node_item_t *it;
	const char *s;

	*out = NULL;
	seq = map_get(k, yaml_document_get_root_node(&k->doc), list);
	if (seq != NULL && seq->type != YAML_SEQUENCE_NODE)
		return kfail(k, "line %lu: %s: expected a list",
		    (unsigned long)seq->start_mark.line + 1, list);
	for (it = seq != NULL ? seq->data.sequence.items.start : NULL;
	     it != NULL && it < seq->data.sequence.items.top; it++) {
		item = yaml_document_get_node(&k->doc, *it);
		if (map_str(k, item, "name", list, &s) != 0)
			return KAI_ECONFIG;
		if (s == NULL || strcmp(s, name) != 0)
			continue;
		*out = map_get(k, item, inner);
		if (*out == NULL || (*out)->type != YAML_MAPPING_NODE)
			return kfail(k, "%s \"%s\" has no %s mapping", inner,
			    name, inner);
		return 0;
	}
	return kfail(k, "%s \"%s\" not found", inner, name);
}

/* A path from the file, made absolute against the kubeconfig's dir. */
static char *
kpath(struct kcfg *k, const char *p)
{
	if (p[0] == '/')
		return kai_xstrdup(p);
	return kai_xasprintf("%s/%s", k->dir, p);
}

/*
 * PEM from "<key>-data" (base64) or the file named by "<key>"; NULL when
 * neither is there.
 */
static int
pem(struct kcfg *k, yaml_node_t *m, const char *key, const char *where,
    char **out)
{
	char dkey[64], *file;
	const char *data, *name;
	struct kai_err e;
	int r;

	*out = NULL;
	(void)snprintf(dkey, sizeof(dkey), "%s-data", key);
	if ((r = map_str(k, m, dkey, where, &data)) != 0 ||
	    (r = map_str(k, m, key, where, &name)) != 0)
		return r;
	if (data != NULL) {
		if (kai_base64_decode(data, strlen(data), out, NULL, &e) != 0)
			return kfail(k, "%s%s: %s", where, dkey,
			    kai_err_msg(&e));
		return 0;
	}
	if (name == NULL)
		return 0;
	file = kpath(k, name);
	r = read_file(file, true, out, NULL, &e);
	free(file);
	if (r != 0)
		return kfail(k, "%s%s: %s", where, key, kai_err_msg(&e));
	return 0;
}

static int
cluster(struct kcfg *k, const char *name, struct kai_kube_config *cfg)
{
	char where[160];
	yaml_node_t *c;
	const char *s;
	int r;

	if ((r = named(k, "clusters", name, "cluster", &c)) != 0)
		return r;
	(void)snprintf(where, sizeof(where), "cluster \"%s\": ", name);
	if ((r = map_str(k, c, "server", where, &s)) != 0)
		return r;
	if (s == NULL)
		return kfail(k, "%sno server", where);
	cfg->server = kai_xstrdup(s);
	if ((r = map_str(k, c, "insecure-skip-tls-verify", where, &s)) != 0)
		return r;
	if (s != NULL && strcmp(s, "true") != 0 && strcmp(s, "false") != 0)
		return kfail(k, "%s%s: expected true or false, not \"%s\"",
		    where, "insecure-skip-tls-verify", s);
	cfg->insecure = s != NULL && strcmp(s, "true") == 0;
	return pem(k, c, "certificate-authority", where, &cfg->ca_pem);
}

static int
unsupported_auth(struct kcfg *k, yaml_node_t *u, const char *where)
{
	static const char *const keys[] = {"exec", "auth-provider", "username",
	    "password"};
	size_t i;

	for (i = 0; i < KAI_NELEM(keys); i++)
		if (map_get(k, u, keys[i]) != NULL)
			return kfail(k,
			    "%s\"%s\" credentials are not supported", where,
			    keys[i]);
	return 0;
}

static int
user(struct kcfg *k, const char *name, struct kai_kube_config *cfg)
{
	char where[160], *file;
	const char *tok, *tokfile;
	struct kai_err e;
	yaml_node_t *u;
	int r;

	if ((r = named(k, "users", name, "user", &u)) != 0)
		return r;
	(void)snprintf(where, sizeof(where), "user \"%s\": ", name);
	if ((r = map_str(k, u, "token", where, &tok)) != 0 ||
	    (r = map_str(k, u, "tokenFile", where, &tokfile)) != 0 ||
	    (r = pem(k, u, "client-certificate", where,
		 &cfg->client_cert_pem)) != 0 ||
	    (r = pem(k, u, "client-key", where, &cfg->client_key_pem)) != 0)
		return r;
	if ((cfg->client_cert_pem == NULL) != (cfg->client_key_pem == NULL))
		return kfail(k,
		    "%sclient-certificate and client-key go together", where);
	if (tok != NULL) {
		cfg->token = kai_xstrdup(tok);
	} else if (tokfile != NULL) {
		file = kpath(k, tokfile);
		r = kube_token_read(file, &cfg->token, &e);
		if (r != 0) {
			free(file);
			return kfail(k, "%stokenFile: %s", where,
			    kai_err_msg(&e));
		}
		cfg->token_file = file;
	} else if (cfg->client_cert_pem == NULL) {
		return unsupported_auth(k, u, where);
	}
	return 0;
}

static int
kload(struct kcfg *k, const char *context, struct kai_kube_config *cfg)
{
	const char *ctxname = context, *cl, *us, *ns;
	yaml_node_t *root, *c;
	int r;

	root = yaml_document_get_root_node(&k->doc);
	if (root == NULL || root->type != YAML_MAPPING_NODE)
		return kfail(k, "not a YAML mapping");
	if (ctxname == NULL &&
	    (r = map_str(k, root, "current-context", "", &ctxname)) != 0)
		return r;
	if (ctxname == NULL)
		return kfail(k, "no current-context and no context given");
	if ((r = named(k, "contexts", ctxname, "context", &c)) != 0)
		return r;
	if ((r = map_str(k, c, "cluster", "context: ", &cl)) != 0 ||
	    (r = map_str(k, c, "user", "context: ", &us)) != 0 ||
	    (r = map_str(k, c, "namespace", "context: ", &ns)) != 0)
		return r;
	if (cl == NULL)
		return kfail(k, "context \"%s\" has no cluster", ctxname);
	if (ns != NULL)
		cfg->namespace = kai_xstrdup(ns);
	if ((r = cluster(k, cl, cfg)) != 0)
		return r;
	return us != NULL ? user(k, us, cfg) : 0;
}

static int
kparse(struct kcfg *k, const char *text, size_t len)
{
	yaml_parser_t parser;
	int r = 0;

	if (!yaml_parser_initialize(&parser))
		return kfail(k, "could not initialise the YAML parser");
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &k->doc)) {
		r = kfail(k, "line %lu: %s",
		    (unsigned long)parser.problem_mark.line + 1,
		    parser.problem != NULL ? parser.problem : "invalid YAML");
		memset(&k->doc, 0, sizeof(k->doc));
	}
	yaml_parser_delete(&parser);
	return r;
}

int
kai_kube_config_load(const char *path, const char *context,
    struct kai_kube_config *cfg, struct kai_err *err)
{
	struct kcfg k;
	const char *slash;
	size_t len;
	char *text;
	int r;

	memset(cfg, 0, sizeof(*cfg));
	memset(&k, 0, sizeof(k));
	k.path = path;
	k.err = err;
	if ((r = read_file(path, false, &text, &len, err)) != 0) {
		if (err != NULL)
			(void)kai_err_prefix(err, "kubeconfig \"%s\"", path);
		return r;
	}
	slash = strrchr(path, '/');
	if (slash == NULL)
		k.dir = kai_xstrdup(".");
	else if (slash == path)
		k.dir = kai_xstrdup("/");
	else
		k.dir = kai_xstrndup(path, (size_t)(slash - path));
	if ((r = kparse(&k, text, len)) == 0) {
		r = kload(&k, context, cfg);
		yaml_document_delete(&k.doc);
	}
	kai_free_secret(text, len);
	free(k.dir);
	if (r != 0)
		kai_kube_config_fini(cfg);
	return r;
}

int
kai_kube_config_incluster(const char *dir, const char *host, const char *port,
    struct kai_kube_config *cfg, struct kai_err *err)
{
	char *path, *ns = NULL;
	int r;

	memset(cfg, 0, sizeof(*cfg));
	if (host == NULL || *host == '\0' || port == NULL || *port == '\0')
		return kai_err_set(err, KAI_ECONFIG, "in-cluster config: %s",
		    "no service host and port (KUBERNETES_SERVICE_HOST/PORT)");
	/* An IPv6 address needs brackets in a URL. */
	if (strchr(host, ':') != NULL)
		cfg->server = kai_xasprintf("https://[%s]:%s", host, port);
	else
		cfg->server = kai_xasprintf("https://%s:%s", host, port);
	path = kai_xasprintf("%s/token", dir);
	r = kube_token_read(path, &cfg->token, err);
	cfg->token_file = path;	/* the kubelet rotates it */
	if (r == 0) {
		path = kai_xasprintf("%s/ca.crt", dir);
		r = read_file(path, true, &cfg->ca_pem, NULL, err);
		free(path);
	}
	if (r == 0) {
		path = kai_xasprintf("%s/namespace", dir);
		/* Optional: kaid.yaml may name the namespace. */
		if (access(path, F_OK) == 0 &&
		    (r = kube_token_read(path, &ns, err)) == 0)
			cfg->namespace = ns;
		free(path);
	}
	if (r != 0) {
		kai_kube_config_fini(cfg);
		if (err != NULL)
			(void)kai_err_prefix(err, "in-cluster config");
	}
	return r;
}

static void
free_secret_str(char *s)
{
	if (s != NULL)
		kai_free_secret(s, strlen(s));
}

void
kai_kube_config_fini(struct kai_kube_config *cfg)
{
	free(cfg->server);
	free(cfg->ca_pem);
	free_secret_str(cfg->token);
	free(cfg->token_file);
	free(cfg->client_cert_pem);
	free_secret_str(cfg->client_key_pem);
	free(cfg->namespace);
	memset(cfg, 0, sizeof(*cfg));
}

static char *
dup_or_null(const char *s)
{
	return s != NULL ? kai_xstrdup(s) : NULL;
}

void
kube_config_copy(struct kai_kube_config *dst, const struct kai_kube_config *src)
{
	dst->server = dup_or_null(src->server);
	dst->ca_pem = dup_or_null(src->ca_pem);
	dst->token = dup_or_null(src->token);
	dst->token_file = dup_or_null(src->token_file);
	dst->client_cert_pem = dup_or_null(src->client_cert_pem);
	dst->client_key_pem = dup_or_null(src->client_key_pem);
	dst->namespace = dup_or_null(src->namespace);
	dst->insecure = src->insecure;
}
