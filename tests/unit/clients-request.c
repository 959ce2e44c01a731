/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * clients-request: client_request() and kai-rawreq against a scripted
 * peer on a real TCP socket, with real credentials from a private munged.
 *
 * Run by clients-request.t, which starts munged and passes its socket
 * (argv[1]) and the kai-rawreq binary (argv[2]).  The peer is a child
 * process that answers one connection the way a scenario says: verify the
 * credential like kaid and answer, refuse, send a chain of frames, send
 * something broken, or hang up.  The checks are what a user sees: the
 * callback's frames, the exit status and the stderr line.
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "auth/auth.h"
#include "base/buf.h"
#include "base/xmalloc.h"
#include "client.h"
#include "proto/proto.h"
#include "tap.h"

enum scenario {
	S_VERIFY,     /* like kaid: check the credential, then answer */
	S_REFUSE,     /* KAI_MSG_ERROR EPERM with a hint */
	S_CHAIN,      /* three QUERY_REPLY frames linked by KAI_FRAME_MORE */
	S_WRONG_TYPE, /* a reply of an unrelated type */
	S_BAD_MAGIC,  /* 20 bytes that are not a kaibatch header */
	S_HANGUP,     /* close without a word */
	S_SHORT_BODY, /* header promises 100 bytes, 10 come */
	S_OLD_REFUSE, /* a protocol 1 kaid refusing our version */
	S_OLD_REPLY   /* a protocol 1 kaid answering anyway */
};

static const char *sock;
static char tmpdir[256];
#define PATH_LEN (sizeof(tmpdir) + 16)

static int
read_n(int fd, void *p, size_t n)
{
	size_t got = 0;
	ssize_t r;

	while (got < n) {
		r = read(fd, (char *)p + got, n - got);
		if (r == -1 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

static void
send_frame_version(int fd, uint16_t version, uint16_t type, uint32_t flags,
    const struct kai_buf *b)
{
	struct kai_buf f;

	kai_buf_init(&f, 2 * KAI_PROTO_BODY_MAX);
	if (kai_frame_build_version(&f, version, type, flags, NULL, b->data,
	    b->len) != 0 ||
	    write(fd, f.data, f.len) != (ssize_t)f.len)
		_exit(10);
	kai_buf_fini(&f);
}

static void
send_frame(int fd, uint16_t type, uint32_t flags, const struct kai_buf *b)
{
	send_frame_version(fd, KAI_PROTO_VERSION, type, flags, b);
}

static void
send_error(int fd, int code, const char *msg, const char *hint)
{
	struct kai_buf b;

	kai_buf_init(&b, KAI_PROTO_BODY_MAX);
	if (kai_msg_error_encode(&b, code, msg, hint) != 0)
		_exit(11);
	send_frame(fd, KAI_MSG_ERROR, 0, &b);
	kai_buf_fini(&b);
}

/* What kaid does with a request: header, credential, body, verify. */
static void
serve_verify(int fd)
{
	uint8_t x[KAI_PROTO_HDR_LEN], d[KAI_PROTO_DIGEST_LEN];
	struct kai_frame_hdr h;
	struct kai_err err;
	struct kai_buf b;
	char *cred, *body;
	uint32_t uid, gid;

	if (read_n(fd, x, sizeof(x)) != 0)
		_exit(12);
	if (kai_frame_hdr_decode(x, sizeof(x), &h, &err) != 0) {
		send_error(fd, err.code, err.msg, err.hint);
		return;
	}
	cred = kai_xcalloc(1, (size_t)h.cred_len + 1);
	body = kai_xmalloc((size_t)h.body_len + 1);
	if (read_n(fd, cred, h.cred_len) != 0 ||
	    read_n(fd, body, h.body_len) != 0)
		_exit(13);
	kai_frame_digest(h.version, h.type, body, h.body_len, d);
	kai_buf_init(&b, KAI_PROTO_BODY_MAX);
	if (kai_auth_verify(sock, cred, d, sizeof(d), &uid, &gid, &err) != 0)
		send_error(fd, err.code, err.msg, err.hint);
	else if (h.type == KAI_MSG_PING &&
	    kai_msg_ping_reply_encode(&b, uid, gid) == 0)
		send_frame(fd, KAI_MSG_PING_REPLY, 0, &b);
	else if (kai_msg_u64_encode(&b, 42) == 0)
		send_frame(fd, (uint16_t)(h.type + 1), 0, &b);
	kai_buf_fini(&b);
	free(cred);
	free(body);
}

static void
serve_chain(int fd)
{
	struct kai_jobinfo j[3];
	struct kai_buf b;
	size_t i, first;

	memset(j, 0, sizeof(j));
	kai_buf_init(&b, KAI_PROTO_BODY_MAX);
	for (i = 0; i < 3; i++) {
		j[i].id = 100 + i;
		first = i;
		kai_buf_reset(&b);
		if (kai_msg_jobs_encode(&b, j, i + 1, &first,
			KAI_PROTO_BODY_MAX) != 0)
			_exit(14);
		send_frame(fd, KAI_MSG_QUERY_REPLY, i < 2 ? KAI_FRAME_MORE : 0,
		    &b);
	}
	kai_buf_fini(&b);
}

static void
serve(int fd, enum scenario s)
{
	static const uint8_t garbage[KAI_PROTO_HDR_LEN] = "HTTP/1.1 400 Bad R";
	struct kai_frame_hdr h = {KAI_PROTO_MAGIC, KAI_PROTO_VERSION,
	    KAI_MSG_SUBMIT_REPLY, 0, 0, 100};
	uint8_t x[KAI_PROTO_HDR_LEN + 10];
	struct kai_buf b;

	kai_buf_init(&b, 1024);
	switch (s) {
	case S_VERIFY:
		serve_verify(fd);
		break;
	case S_REFUSE:
		send_error(fd, KAI_EPERM, "job 7 belongs to uid 1001",
		    "only its owner or an operator may cancel it");
		break;
	case S_CHAIN:
		serve_chain(fd);
		break;
	case S_WRONG_TYPE:
		send_frame(fd, 77, 0, &b);
		break;
	case S_BAD_MAGIC:
		if (write(fd, garbage, sizeof(garbage)) < 0)
			_exit(15);
		break;
	case S_HANGUP:
		break;
	case S_OLD_REFUSE:
		/* what kaid 1 said to any other version, in version 1 */
		if (kai_msg_error_encode(&b, KAI_EPROTO,
		    "protocol version mismatch: client speaks 3, kaid speaks 1",
		    "install the same kaibatch release on the clients and the "
		    "controller") != 0)
			_exit(11);
		send_frame_version(fd, 1, KAI_MSG_ERROR, 0, &b);
		break;
	case S_OLD_REPLY:
		send_frame_version(fd, 1, KAI_MSG_QUERY_REPLY, 0, &b);
		break;
	case S_SHORT_BODY:
		memset(x, 0, sizeof(x));
		kai_frame_hdr_encode(&h, x);
		if (write(fd, x, sizeof(x)) < 0)
			_exit(15);
		break;
	}
	kai_buf_fini(&b);
}

/*
 * Listens on a fresh loopback port, forks a peer that answers one
 * connection per scenario in s[0..n), and points KAI_CONTROLLER at it.
 */
static pid_t
peer_start(const enum scenario *s, size_t n)
{
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);
	char addr[64];
	int lfd, fd;
	size_t i;
	pid_t pid;

	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((lfd = socket(AF_INET, SOCK_STREAM, 0)) == -1 ||
	    bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) == -1 ||
	    listen(lfd, 8) == -1 ||
	    getsockname(lfd, (struct sockaddr *)&sa, &sl) == -1)
		abort();
	(void)snprintf(addr, sizeof(addr), "127.0.0.1:%u", ntohs(sa.sin_port));
	setenv("KAI_CONTROLLER", addr, 1);
	fflush(stdout);
	if ((pid = fork()) == -1)
		abort();
	if (pid == 0) {
		for (i = 0; i < n; i++) {
			if ((fd = accept(lfd, NULL, NULL)) == -1)
				_exit(16);
			serve(fd, s[i]);
			(void)shutdown(fd, SHUT_WR);
			/* let the client read everything before the close */
			while (read(fd, addr, sizeof(addr)) > 0) {
				/* drain */
			}
			(void)close(fd);
		}
		_exit(0);
	}
	(void)close(lfd);
	return pid;
}

static int
peer_wait(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) == -1)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Runs f with stderr going to a file; returns that file's text. */
static char *
capture_stderr(int (*f)(void *), void *arg, int *rc)
{
	char path[PATH_LEN], *text;
	int saved, fd;
	FILE *fp;
	long n;

	(void)snprintf(path, sizeof(path), "%s/stderr", tmpdir);
	fflush(stderr);
	saved = dup(2);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600)) == -1)
		abort();
	dup2(fd, 2);
	close(fd);
	*rc = f(arg);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	if ((fp = fopen(path, "r")) == NULL)
		abort();
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	rewind(fp);
	text = kai_xcalloc(1, (size_t)n + 1);
	if (fread(text, 1, (size_t)n, fp) != (size_t)n)
		abort();
	fclose(fp);
	return text;
}

/* Captured text for a test description: newlines shown as " | ". */
static const char *
oneline(const char *s)
{
	static char buf[1024];
	size_t i, n = 0;

	for (i = 0; s[i] != '\0' && n + 4 < sizeof(buf); i++) {
		if (s[i] == '\n' && s[i + 1] != '\0') {
			memcpy(buf + n, " | ", 3);
			n += 3;
		} else if (s[i] != '\n') {
			buf[n++] = s[i];
		}
	}
	buf[n] = '\0';
	return buf;
}

struct call {
	uint16_t type;
	int frames;      /* replies the callback saw */
	uint64_t ids[8]; /* job ids seen in QUERY_REPLY frames */
	size_t nids;
	uint32_t uid, gid;
};

static int
on_reply(uint16_t type, const void *body, size_t len, void *ctx)
{
	struct call *c = ctx;
	struct kai_jobinfo *j = NULL;
	struct kai_err err;
	size_t n = 0, i;

	c->frames++;
	if (type == KAI_MSG_PING_REPLY &&
	    kai_msg_ping_reply_decode(body, len, &c->uid, &c->gid, &err) != 0)
		return CLIENT_EXIT_CONNECT;
	if (type == KAI_MSG_QUERY_REPLY) {
		if (kai_msg_jobs_decode(body, len, &j, &n, &err) != 0)
			return CLIENT_EXIT_CONNECT;
		for (i = 0; i < n; i++) {
			if (c->nids < 8)
				c->ids[c->nids++] = j[i].id;
			kai_jobinfo_fini(&j[i]);
		}
		free(j);
	}
	return CLIENT_EXIT_OK;
}

static int
do_request(void *arg)
{
	struct call *c = arg;

	return client_request("ktest", c->type, NULL, 0, on_reply, c);
}

/* One scenario through client_request(): exit status and stderr. */
static char *
run(enum scenario s, uint16_t type, struct call *c, int *rc)
{
	pid_t pid = peer_start(&s, 1);
	char *text;

	memset(c, 0, sizeof(*c));
	c->type = type;
	text = capture_stderr(do_request, c, rc);
	if (peer_wait(pid) != 0)
		diag("peer for scenario %d failed", (int)s);
	return text;
}

static void
test_request(void)
{
	struct call c;
	char *e;
	int rc;

	e = run(S_VERIFY, KAI_MSG_PING, &c, &rc);
	is_int(rc, CLIENT_EXIT_OK, "ping: exit 0");
	ok(c.frames == 1 && c.uid == getuid() && c.gid == getgid(),
	    "ping: the peer verified our credential and saw uid %u", c.uid);
	is_str(e, "", "ping: nothing on stderr");
	free(e);

	e = run(S_REFUSE, KAI_MSG_CANCEL, &c, &rc);
	is_int(rc, CLIENT_EXIT_REFUSED, "refusal: exit 1");
	is_str(e,
	    "ktest: error: job 7 belongs to uid 1001\n"
	    "hint: only its owner or an operator may cancel it\n",
	    "refusal: kaid's message and hint, as they came");
	ok(c.frames == 0, "refusal: callback not called");
	free(e);

	e = run(S_CHAIN, KAI_MSG_QUERY, &c, &rc);
	is_int(rc, CLIENT_EXIT_OK, "chain: exit 0");
	ok(c.frames == 3 && c.nids == 3 && c.ids[0] == 100 && c.ids[1] == 101 &&
		c.ids[2] == 102,
	    "chain: three frames, each job once, in order (%d frames)",
	    c.frames);
	free(e);

	e = run(S_WRONG_TYPE, KAI_MSG_QUERY, &c, &rc);
	is_int(rc, CLIENT_EXIT_CONNECT, "unexpected type: exit 3");
	ok(strstr(e, "invalid reply from kaid at \"127.0.0.1:") != NULL &&
		strstr(e, "reply type 77 to request type 4\n") != NULL,
	    "unexpected type: says so (%s)", oneline(e));
	free(e);

	e = run(S_BAD_MAGIC, KAI_MSG_QUERY, &c, &rc);
	is_int(rc, CLIENT_EXIT_CONNECT, "bad magic: exit 3");
	ok(strstr(e, "bad magic 0x48545450: not a kaibatch peer") != NULL,
	    "bad magic: says so (%s)", oneline(e));
	free(e);

	e = run(S_HANGUP, KAI_MSG_SUBMIT, &c, &rc);
	is_int(rc, CLIENT_EXIT_CONNECT, "hang-up: exit 3");
	ok(strstr(e, "no reply from kaid at") != NULL &&
		strstr(e, "kaid closed the connection without a reply") != NULL,
	    "hang-up: says so (%s)", oneline(e));
	free(e);

	e = run(S_OLD_REFUSE, KAI_MSG_QUERY, &c, &rc);
	is_int(rc, CLIENT_EXIT_REFUSED, "an older kaid's refusal: exit 1");
	is_str(e,
	    "ktest: error: protocol version mismatch: client speaks 3, kaid "
	    "speaks 1\n"
	    "hint: install the same kaibatch release on the clients and the "
	    "controller\n",
	    "an older kaid's refusal: its line, naming both versions");
	free(e);

	e = run(S_OLD_REPLY, KAI_MSG_QUERY, &c, &rc);
	is_int(rc, CLIENT_EXIT_CONNECT, "an older kaid's reply: exit 3");
	ok(strstr(e, "protocol version mismatch: client speaks 3, kaid "
	    "speaks 1\n") != NULL && c.frames == 0,
	    "an older kaid's reply: not decoded, both versions named (%s)",
	    oneline(e));
	free(e);

	e = run(S_SHORT_BODY, KAI_MSG_SUBMIT, &c, &rc);
	is_int(rc, CLIENT_EXIT_CONNECT, "short body: exit 3");
	ok(strstr(e,
	       "connection closed inside a frame body (10 of 100 "
	       "bytes)") != NULL,
	    "short body: says so (%s)", oneline(e));
	free(e);
}

static int
do_ping(void *arg)
{
	(void)arg;
	return client_request("ktest", KAI_MSG_PING, NULL, 0, NULL, NULL);
}

static void
test_connect(void)
{
	char path[PATH_LEN];
	FILE *f;
	char *e;
	int rc, lfd;
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);

	/* A port nobody listens on: bind one, note it, close it. */
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
	    getsockname(lfd, (struct sockaddr *)&sa, &sl) != 0)
		abort();
	close(lfd);
	(void)snprintf(path, sizeof(path), "127.0.0.1:%u", ntohs(sa.sin_port));
	setenv("KAI_CONTROLLER", path, 1);
	e = capture_stderr(do_ping, NULL, &rc);
	is_int(rc, CLIENT_EXIT_CONNECT, "refused connection: exit 3");
	ok(strncmp(e, "ktest: error: cannot connect to kaid at \"127.0.0.1:",
	       50) == 0 &&
		strstr(e, "\": Connection refused\nhint: ") != NULL,
	    "refused connection: message and hint (%s)", oneline(e));
	free(e);

	setenv("KAI_CONTROLLER", "127.0.0.1:http", 1);
	e = capture_stderr(do_ping, NULL, &rc);
	is_int(rc, CLIENT_EXIT_CONNECT, "bad address: exit 3");
	is_str(e,
	    "ktest: error: cannot connect to kaid at \"127.0.0.1:http\": "
	    "invalid controller address \"127.0.0.1:http\": expected "
	    "host:port\n",
	    "bad address: message");
	free(e);

	/* kai.yaml names the controller when the variable does not. */
	unsetenv("KAI_CONTROLLER");
	(void)snprintf(path, sizeof(path), "%s/kai.yaml", tmpdir);
	if ((f = fopen(path, "w")) == NULL)
		abort();
	fprintf(f, "controller: \"[::1]:%u\"\n", ntohs(sa.sin_port));
	fclose(f);
	setenv("KAI_CONF", path, 1);
	e = capture_stderr(do_ping, NULL, &rc);
	is_int(rc, CLIENT_EXIT_CONNECT, "kai.yaml controller: exit 3");
	ok(strstr(e, "cannot connect to kaid at \"[::1]:") != NULL,
	    "kai.yaml controller is used (%s)", oneline(e));
	free(e);

	if ((f = fopen(path, "w")) == NULL)
		abort();
	fprintf(f, "controler: x\n");
	fclose(f);
	e = capture_stderr(do_ping, NULL, &rc);
	is_int(rc, CLIENT_EXIT_CONNECT, "broken kai.yaml: exit 3");
	ok(strstr(e, "kai.yaml:1:") != NULL,
	    "broken kai.yaml: names the "
	    "place (%s)",
	    oneline(e));
	free(e);
	unsetenv("KAI_CONF");

	setenv("KAI_MUNGE_SOCKET", "/nonexistent/munge.sock", 1);
	setenv("KAI_CONTROLLER", "127.0.0.1:1", 1);
	e = capture_stderr(do_ping, NULL, &rc);
	is_int(rc, CLIENT_EXIT_CONNECT, "no munged: exit 3");
	ok(strstr(e,
	       "cannot connect to kaid at \"127.0.0.1:1\": could not "
	       "create credential: ") != NULL &&
		strstr(e, "hint: is munged running?") != NULL,
	    "no munged: message and hint (%s)", oneline(e));
	free(e);
	setenv("KAI_MUNGE_SOCKET", sock, 1);
}

/*
 * kai-rawreq
 */

static const char *rawreq;

/* Runs kai-rawreq with args (NULL-terminated); returns its stdout. */
static char *
rawreq_run(int *rc, const char **args)
{
	char path[PATH_LEN], *text;
	const char *argv[16];
	FILE *fp;
	pid_t pid;
	long n;
	int fd;
	size_t i;

	argv[0] = rawreq;
	for (i = 0; i < 14 && args[i] != NULL; i++)
		argv[i + 1] = args[i];
	argv[i + 1] = NULL;
	(void)snprintf(path, sizeof(path), "%s/stdout", tmpdir);
	fflush(stdout);
	if ((pid = fork()) == 0) {
		if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600)) == -1)
			_exit(99);
		dup2(fd, 1);
		execv(rawreq, (char *const *)argv);
		_exit(98);
	}
	*rc = peer_wait(pid);
	if ((fp = fopen(path, "r")) == NULL)
		return kai_xstrdup("");
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	rewind(fp);
	text = kai_xcalloc(1, (size_t)n + 1);
	if (fread(text, 1, (size_t)n, fp) != (size_t)n)
		abort();
	fclose(fp);
	return text;
}

static void
write_tmp(const char *name, const char *text, char *path, size_t psz)
{
	FILE *f;

	(void)snprintf(path, psz, "%s/%s", tmpdir, name);
	if ((f = fopen(path, "w")) == NULL)
		abort();
	fputs(text, f);
	fclose(f);
}

static void
test_rawreq(void)
{
	enum scenario v[7] = {S_VERIFY, S_VERIFY, S_VERIFY, S_VERIFY, S_VERIFY,
	    S_VERIFY, S_VERIFY};
	char body1[PATH_LEN], body2[PATH_LEN], saved[PATH_LEN],
	    saved2[PATH_LEN];
	char raw[PATH_LEN];
	char *out;
	pid_t pid;
	int rc;

	(void)snprintf(saved, sizeof(saved), "%s/saved", tmpdir);
	(void)snprintf(saved2, sizeof(saved2), "%s/saved2", tmpdir);
	write_tmp("body1", "cancel job 1", body1, sizeof(body1));
	write_tmp("body2", "cancel job 2", body2, sizeof(body2));
	write_tmp("raw", "GET / HTTP/1.0\r\nHost: kaid\r\n\r\n", raw,
	    sizeof(raw));

	pid = peer_start(v, 7);
	out = rawreq_run(&rc, (const char *[]){"--ping", NULL});
	is_int(rc, 0, "rawreq --ping: exit 0");
	ok(strncmp(out, "ok uid=", 7) == 0, "rawreq --ping: %s", oneline(out));
	free(out);

	out = rawreq_run(&rc,
	    (const char *[]){"--type", "6", "--body-file", body1, "--save",
		saved, NULL});
	is_int(rc, 0, "rawreq fresh request: exit 0");
	is_str(out, "ok 7\n", "rawreq fresh request: reply type printed");
	free(out);

	out = rawreq_run(&rc, (const char *[]){"--replay", saved, NULL});
	is_int(rc, 1, "rawreq --replay: exit 1");
	is_str(out, "error -5 EAUTH: credential replayed\n",
	    "rawreq --replay: the same bytes again are a replay");
	free(out);

	out = rawreq_run(&rc,
	    (const char *[]){"--no-send", "--type", "6", "--body-file", body1,
		"--save", saved2, NULL});
	is_int(rc, 0, "rawreq --no-send: exit 0");
	is_str(out, "", "rawreq --no-send: sends nothing");
	free(out);
	out = rawreq_run(&rc,
	    (const char *[]){"--replay", saved2, "--swap-body", body2, NULL});
	is_int(rc, 1, "rawreq --swap-body: exit 1");
	is_str(out, "error -5 EAUTH: credential does not match the request\n",
	    "rawreq --swap-body: credential bound to the body");
	free(out);

	out = rawreq_run(&rc,
	    (const char *[]){"--type", "6", "--body-file", body1, "--no-cred",
		NULL});
	is_int(rc, 1, "rawreq --no-cred: exit 1");
	is_str(out, "error -5 EAUTH: missing credential\n",
	    "rawreq --no-cred: the frame carries no credential");
	free(out);

	out = rawreq_run(&rc,
	    (const char *[]){"--no-send", "--ttl", "1", "--type", "6",
		"--body-file", body1, "--save", saved, NULL});
	free(out);
	diag("waiting 3 s for a 1 s credential to expire");
	sleep(3);
	out = rawreq_run(&rc, (const char *[]){"--replay", saved, NULL});
	is_str(out, "error -5 EAUTH: credential expired\n",
	    "rawreq --ttl: the credential's lifetime is the one asked for");
	free(out);

	out = rawreq_run(&rc, (const char *[]){"--raw", raw, NULL});
	is_int(rc, 1, "rawreq --raw: exit 1");
	is_str(out,
	    "error -8 EPROTO: bad magic 0x47455420: not a kaibatch "
	    "peer\n",
	    "rawreq --raw: bytes sent as they are");
	free(out);
	is_int(peer_wait(pid), 0, "peer answered every rawreq connection");

	out = rawreq_run(&rc,
	    (const char *[]){"--type", "6", "--raw", raw, NULL});
	is_int(rc, 2, "rawreq with two modes: usage, exit 2");
	free(out);
	setenv("KAI_CONTROLLER", "127.0.0.1:1", 1);
	out = rawreq_run(&rc, (const char *[]){"--ping", NULL});
	is_int(rc, 3, "rawreq with nothing listening: exit 3");
	is_str(out, "", "and nothing on stdout");
	free(out);
}

int
main(int argc, char **argv)
{
	const char *t = getenv("TMPDIR");

	if (argc < 3)
		skip_all("usage: clients-request MUNGE_SOCKET KAI_RAWREQ "
			 "(run clients-request.t)");
	sock = argv[1];
	rawreq = argv[2];
	(void)snprintf(tmpdir, sizeof(tmpdir), "%s/kai-clients-request.XXXXXX",
	    t != NULL && t[0] != '\0' ? t : "/tmp");
	if (mkdtemp(tmpdir) == NULL)
		abort();
	setenv("KAI_MUNGE_SOCKET", sock, 1);
	setenv("KAI_CONF", "/nonexistent/kai.yaml", 1);
	test_request();
	unsetenv("KAI_CONF");
	test_connect();
	setenv("KAI_CONF", "/nonexistent/kai.yaml", 1);
	test_rawreq();
	return done_testing();
}
