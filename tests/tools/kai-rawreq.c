/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kai-rawreq: send one hand-made request frame to kaid (a test tool).
 *
 * The integration tests use it to prove what the real clients never do:
 * that kaid refuses a credential used twice (--save, then --replay), a
 * credential moved onto another body (--swap-body), a stale credential
 * (--ttl 1 and a wait), and bytes that are not a frame at all (--raw).
 * --save writes the frame it sends; with --no-send it only writes it, so
 * that the credential inside is still unused for a later --replay or
 * --swap-body.  --no-cred sends the body with no credential at all.
 * After --raw bytes the sending side is shut down, so a peer waiting for
 * the rest of a header sees the end instead of a hang.  It prints kaid's
 * answer as one line on stdout, so a test compares a string:
 *
 *	ok TYPE				any reply but KAI_MSG_ERROR (its type number)
 *	ok uid=U gid=G			the reply to --ping
 *	error CODE NAME: message	KAI_MSG_ERROR (e.g. "error -5 EAUTH: ...");
 *					" [protocol N]" after it when the frame
 *					came in another version than ours
 *
 * `kai-rawreq --make-submit-body SCRIPT OUT [PARTITION [NAME]]` writes the
 * body of a minimal submission of SCRIPT (working directory: the current
 * one) to OUT, for the tests to send, save and replay; PARTITION and NAME
 * are sent as they are, unchecked, as a hostile client would;
 * KAI_RAWREQ_WORKLOAD, when set, is sent as the workload field.
 * `--make-submit-body-v1 SCRIPT OUT` writes it as a protocol 1 client
 * did (positional fields, no record length, the 28 fields of then).
 * --proto-version N sends the frame in version N, as an older or newer
 * client would.
 * `kai-rawreq --make-query-body STATE-MASK FLAGS OUT` writes a QUERY body
 * asking for exactly those state bits and KAI_QUERY_* flags, which no
 * client sends in every combination.  The jobs of a QUERY_REPLY are
 * printed before the "ok" line, one per line: "job ID uid=UID STATE
 * workdir=DIR".
 *
 * Exit status: 0 ok, 1 error reply, 2 usage, 3 no usable reply
 * (connection, credential or a broken reply frame; reason on stderr).
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/types.h>

#include <errno.h>
#include <stdbool.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/strconv.h"
#include "client.h"
#include "proto/proto.h"

#define PROG     "kai-rawreq"
#define FILE_MAX (4 * 1024 * 1024) /* --raw may exceed the frame limits */

struct opts {
	const char *controller;
	const char *munge_socket;
	const char *body_file;
	const char *save;
	const char *replay;
	const char *swap_body;
	const char *raw;
	int64_t type; /* -1 = not given */
	int64_t ttl;  /* 0 = munged's default */
	int64_t version; /* --proto-version */
	int ping;
	int no_send; /* --save without sending */
	int no_cred; /* a frame with cred_len 0 */
};

static void
usage(FILE *f)
{
	(void)fprintf(f,
	    "usage: %s [--controller host:port] [--munge-socket path] "
	    "[--ttl s] [--save file]\n"
	    "           [--no-send] [--proto-version n] (--ping | --type n "
	    "[--body-file file] "
	    "[--no-cred] |\n"
	    "            --replay frame [--swap-body file] | --raw file)\n",
	    PROG);
}

/* Reads a whole file into b (reset first). */
static int
read_file(const char *path, struct kai_buf *b)
{
	char chunk[16384];
	FILE *f;
	size_t n;
	int r = 0;

	kai_buf_reset(b);
	if ((f = fopen(path, "rb")) == NULL) {
		client_error(PROG, NULL, "could not open \"%s\": %s", path,
		    strerror(errno));
		return -1;
	}
	while (r == 0 && (n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		if (kai_buf_add(b, chunk, n) != 0) {
			client_error(PROG, NULL,
			    "file \"%s\" too large: over "
			    "%d bytes",
			    path, FILE_MAX);
			r = -1;
		}
	if (r == 0 && ferror(f)) {
		client_error(PROG, NULL, "could not read \"%s\"", path);
		r = -1;
	}
	(void)fclose(f);
	return r;
}

static int
write_file(const char *path, const struct kai_buf *b)
{
	FILE *f;
	int bad;

	if ((f = fopen(path, "wb")) == NULL) {
		client_error(PROG, NULL, "could not create \"%s\": %s", path,
		    strerror(errno));
		return -1;
	}
	bad = fwrite(b->data, 1, b->len, f) != b->len;
	if (fclose(f) != 0 || bad) {
		client_error(PROG, NULL, "could not write \"%s\"", path);
		return -1;
	}
	return 0;
}

/*
 * A saved frame's header and credential with another body: the header's
 * body_len is fixed up so the frame is well-formed and only the
 * credential binding can catch the swap.
 */
static int
swap_body(const struct kai_buf *saved, const struct kai_buf *body,
    struct kai_buf *out)
{
	struct kai_frame_hdr h;
	struct kai_err err;
	uint8_t x[KAI_PROTO_HDR_LEN];

	if (kai_frame_hdr_decode(saved->data, saved->len, &h, &err) != 0 ||
	    saved->len < KAI_PROTO_HDR_LEN + (size_t)h.cred_len) {
		client_error(PROG, NULL, "saved frame is not a frame: %s",
		    err.msg);
		return -1;
	}
	h.body_len = (uint32_t)body->len;
	kai_frame_hdr_encode(&h, x);
	if (kai_buf_add(out, x, sizeof(x)) != 0 ||
	    kai_buf_add(out, saved->data + KAI_PROTO_HDR_LEN, h.cred_len) ||
	    kai_buf_add(out, body->data, body->len) != 0) {
		client_error(PROG, NULL, "frame too large");
		return -1;
	}
	return 0;
}

/* A fresh frame: the body file (or nothing) under a new credential. */
static int
fresh_frame(const struct opts *o, const char *munge_socket,
    struct kai_buf *body, struct kai_buf *out)
{
	struct kai_err err;

	if (o->body_file != NULL && read_file(o->body_file, body) != 0)
		return -1;
	if (o->no_cred) {
		if (kai_frame_build_version(out, (uint16_t)o->version,
		    (uint16_t)o->type, 0, NULL, body->data, body->len) == 0)
			return 0;
		client_error(PROG, NULL, "body too large for a frame");
		return -1;
	}
	if (client_frame_new_version(out, (uint16_t)o->version,
	    (uint16_t)o->type, body->data, body->len, munge_socket,
	    (int)o->ttl, &err) != 0) {
		client_error(PROG, err.hint, "%s", err.msg);
		return err.code == KAI_EINVAL ? -1 : -3;
	}
	return 0;
}

/*
 * Fills out with the bytes to send, as the options ask.  Returns 0, -1
 * for a usage or file problem, -3 when no credential could be made.
 */
static int
make_frame(const struct opts *o, const char *munge_socket, struct kai_buf *out)
{
	struct kai_buf body, saved;
	int r;

	kai_buf_init(&body, FILE_MAX);
	kai_buf_init(&saved, FILE_MAX);
	if (o->raw != NULL)
		r = read_file(o->raw, out);
	else if (o->replay != NULL && o->swap_body == NULL)
		r = read_file(o->replay, out);
	else if (o->replay != NULL)
		r = (read_file(o->replay, &saved) != 0 ||
			read_file(o->swap_body, &body) != 0 ||
			swap_body(&saved, &body, out) != 0)
		    ? -1
		    : 0;
	else
		r = fresh_frame(o, munge_socket, &body, out);
	kai_buf_fini(&body);
	kai_buf_fini(&saved);
	return r;
}

/* One line per job of a QUERY_REPLY frame. */
static int
print_jobs(const struct kai_buf *body)
{
	struct kai_jobinfo *jobs = NULL;
	struct kai_err err;
	size_t n = 0, i;

	if (kai_msg_jobs_decode(body->data, body->len, &jobs, &n, &err) != 0) {
		client_error(PROG, NULL, "invalid query reply: %s", err.msg);
		return -1;
	}
	for (i = 0; i < n; i++) {
		printf("job %" PRIu64 " uid=%u %s workdir=%s\n", jobs[i].id,
		    jobs[i].uid, kai_jobstate_name(jobs[i].state),
		    jobs[i].workdir != NULL ? jobs[i].workdir : "");
		kai_jobinfo_fini(&jobs[i]);
	}
	free(jobs);
	return 0;
}

/* Reads replies until the last frame; prints the result line. */
static int
print_reply(int fd, const struct opts *o, const char *where)
{
	struct kai_frame_hdr h;
	struct kai_buf body;
	struct kai_msg_error m;
	struct kai_err err;
	uint32_t uid, gid;
	int rc = CLIENT_EXIT_OK;

	kai_buf_init(&body, KAI_PROTO_BODY_MAX);
	do {
		if (client_recv_frame(fd, &h, &body, &err) != 0) {
			client_error(PROG, NULL,
			    "no usable reply from kaid at "
			    "\"%s\": %s",
			    where, err.msg);
			rc = CLIENT_EXIT_CONNECT;
		} else if (h.type == KAI_MSG_QUERY_REPLY &&
		    print_jobs(&body) != 0) {
			rc = CLIENT_EXIT_CONNECT;
		} else if (h.type == KAI_MSG_ERROR) {
			if (kai_msg_error_decode(body.data, body.len, &m,
				&err) != 0) {
				client_error(PROG, NULL,
				    "invalid error reply: "
				    "%s",
				    err.msg);
				rc = CLIENT_EXIT_CONNECT;
				break;
			}
			/* A frame of another version says so. */
			if (h.version != KAI_PROTO_VERSION)
				printf("error %d %s: %s [protocol %u]\n",
				    m.code, kai_errname(m.code), m.msg,
				    h.version);
			else
				printf("error %d %s: %s\n", m.code,
				    kai_errname(m.code), m.msg);
			kai_msg_error_fini(&m);
			rc = CLIENT_EXIT_REFUSED;
		}
	} while (rc == CLIENT_EXIT_OK && (h.flags & KAI_FRAME_MORE) != 0);
	if (rc == CLIENT_EXIT_OK && o->ping && h.type == KAI_MSG_PING_REPLY) {
		if (kai_msg_ping_reply_decode(body.data, body.len, &uid, &gid,
			&err) != 0) {
			client_error(PROG, NULL, "invalid ping reply: %s",
			    err.msg);
			rc = CLIENT_EXIT_CONNECT;
		} else {
			printf("ok uid=%u gid=%u\n", uid, gid);
		}
	} else if (rc == CLIENT_EXIT_OK) {
		printf("ok %u\n", h.type);
	}
	kai_buf_fini(&body);
	return rc;
}

/* Exactly one way to make the frame, and only options that fit it. */
static int
check_opts(struct opts *o, int extra_args)
{
	int modes;

	if (o->ping)
		o->type = KAI_MSG_PING;
	modes = (o->type >= 0) + (o->replay != NULL) + (o->raw != NULL);
	if (extra_args || modes != 1 || (o->ping && o->body_file) ||
	    (o->swap_body != NULL && o->replay == NULL) ||
	    (o->no_send && o->save == NULL) || (o->no_cred && o->type < 0)) {
		usage(stderr);
		return -1;
	}
	return 0;
}

static int
parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
	    {"controller", required_argument, NULL, 'c'},
	    {"munge-socket", required_argument, NULL, 'm'},
	    {"type", required_argument, NULL, 't'},
	    {"body-file", required_argument, NULL, 'b'},
	    {"ttl", required_argument, NULL, 'T'},
	    {"save", required_argument, NULL, 's'},
	    {"replay", required_argument, NULL, 'r'},
	    {"swap-body", required_argument, NULL, 'w'},
	    {"raw", required_argument, NULL, 'R'},
	    {"ping", no_argument, NULL, 'p'},
	    {"no-send", no_argument, NULL, 'n'},
	    {"dry-run", no_argument, NULL, 'n'},
	    {"no-cred", no_argument, NULL, 'C'},
	    {"proto-version", required_argument, NULL, 'V'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct kai_err err;
	int c;

	memset(o, 0, sizeof(*o));
	o->type = -1;
	o->version = KAI_PROTO_VERSION;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			o->controller = optarg;
			break;
		case 'm':
			o->munge_socket = optarg;
			break;
		case 'b':
			o->body_file = optarg;
			break;
		case 's':
			o->save = optarg;
			break;
		case 'r':
			o->replay = optarg;
			break;
		case 'w':
			o->swap_body = optarg;
			break;
		case 'R':
			o->raw = optarg;
			break;
		case 'p':
			o->ping = 1;
			break;
		case 'C':
			o->no_cred = 1;
			break;
		case 'n':
			o->no_send = 1;
			break;
		case 't':
			if (kai_strtoi64(optarg, 0, UINT16_MAX, &o->type,
				"type", &err) != 0)
				goto bad;
			break;
		case 'T':
			if (kai_strtoi64(optarg, 0, INT_MAX, &o->ttl, "ttl",
				&err) != 0)
				goto bad;
			break;
		case 'V':
			if (kai_strtoi64(optarg, 0, UINT16_MAX, &o->version,
				"protocol version", &err) != 0)
				goto bad;
			break;
		case 'h':
			usage(stdout);
			exit(CLIENT_EXIT_OK);
		default:
			usage(stderr);
			return -1;
		}
	}
	return check_opts(o, optind != argc);
bad:
	client_error(PROG, NULL, "%s", err.msg);
	return -1;
}

/*
 * Encodes a minimal submission of script into the file out; v1: as a
 * protocol 1 client wrote it, the record's fields without its length
 * and without the fields appended since (umask, a u32).
 */
static int
make_submit_body(const char *script, const char *out, const char *queue,
    const char *name, bool v1)
{
	struct kai_jobspec js;
	struct kai_buf b, body;
	char cwd[PATH_MAX];
	int r;

	memset(&js, 0, sizeof(js));
	kai_buf_init(&b, FILE_MAX);
	kai_buf_init(&body, KAI_PROTO_BODY_MAX);
	if (getcwd(cwd, sizeof(cwd)) == NULL) {
		client_error(PROG, NULL, "could not get the working directory");
		return CLIENT_EXIT_USAGE;
	}
	r = read_file(script, &b);
	js.script = b.data;
	js.workdir = cwd;
	js.name = (char *)(name != NULL ? name : "rawreq");
	js.queue = (char *)queue;
	/* A field only kaid may set, for the test that it is refused. */
	js.workload = getenv("KAI_RAWREQ_WORKLOAD");
	js.time_limit_s = KAI_TIME_UNSET;
	if (r == 0 && kai_msg_submit_encode(&body, &js) != 0) {
		client_error(PROG, NULL, "could not encode \"%s\"", script);
		r = -1;
	}
	if (r == 0 && v1) {
		kai_buf_consume(&body, 4);
		body.len -= 4;
		body.data[body.len] = '\0';
	}
	if (r == 0)
		r = write_file(out, &body);
	kai_buf_fini(&b);
	kai_buf_fini(&body);
	return r == 0 ? CLIENT_EXIT_OK : CLIENT_EXIT_USAGE;
}

/* A QUERY body with the given state mask and flags into the file out. */
static int
make_query_body(const char *states, const char *flags, const char *out)
{
	struct kai_query q;
	struct kai_buf body;
	struct kai_err err;
	uint64_t mask, fl;
	int r = 0;

	memset(&q, 0, sizeof(q));
	if (kai_strtou64(states, UINT32_MAX, &mask, "state mask", &err) != 0 ||
	    kai_strtou64(flags, UINT32_MAX, &fl, "flags", &err) != 0) {
		client_error(PROG, NULL, "%s", err.msg);
		return CLIENT_EXIT_USAGE;
	}
	q.state_mask = (uint32_t)mask;
	q.flags = (uint32_t)fl;
	kai_buf_init(&body, KAI_PROTO_BODY_MAX);
	if (kai_msg_query_encode(&body, &q) != 0) {
		client_error(PROG, NULL, "could not encode the query");
		r = -1;
	}
	if (r == 0)
		r = write_file(out, &body);
	kai_buf_fini(&body);
	return r == 0 ? CLIENT_EXIT_OK : CLIENT_EXIT_USAGE;
}

int
main(int argc, char **argv)
{
	struct client_target t = {NULL, NULL};
	struct kai_buf frame;
	struct kai_err err;
	struct opts o;
	int fd = -1, r, rc;

	if (argc >= 4 && argc <= 6 &&
	    strcmp(argv[1], "--make-submit-body") == 0)
		return make_submit_body(argv[2], argv[3],
		    argc >= 5 ? argv[4] : NULL, argc >= 6 ? argv[5] : NULL,
		    false);
	if (argc == 4 && strcmp(argv[1], "--make-submit-body-v1") == 0)
		return make_submit_body(argv[2], argv[3], NULL, NULL, true);
	if (argc == 5 && strcmp(argv[1], "--make-query-body") == 0)
		return make_query_body(argv[2], argv[3], argv[4]);
	if (parse_opts(argc, argv, &o) != 0)
		return CLIENT_EXIT_USAGE;
	if ((o.controller == NULL || o.munge_socket == NULL) &&
	    client_target_load(&t, &err) != 0) {
		client_error(PROG, err.hint, "%s", err.msg);
		return CLIENT_EXIT_CONNECT;
	}
	if (o.controller == NULL)
		o.controller = t.controller;
	if (o.munge_socket == NULL)
		o.munge_socket = t.munge_socket;
	kai_buf_init(&frame, FILE_MAX);
	r = make_frame(&o, o.munge_socket, &frame);
	if (r == 0 && o.save != NULL)
		r = write_file(o.save, &frame);
	if (r != 0) {
		rc = r == -3 ? CLIENT_EXIT_CONNECT : CLIENT_EXIT_USAGE;
	} else if (o.no_send) {
		rc = CLIENT_EXIT_OK;
	} else if (client_connect(o.controller, &fd, &err) != 0 ||
	    client_send(fd, frame.data, frame.len, &err) != 0) {
		client_error(PROG, err.hint,
		    "cannot connect to kaid at \"%s\": "
		    "%s",
		    o.controller, err.msg);
		rc = CLIENT_EXIT_CONNECT;
	} else {
		/* Not a frame: say it is all there is. */
		if (o.raw != NULL)
			(void)shutdown(fd, SHUT_WR);
		rc = print_reply(fd, &o, o.controller);
	}
	if (fd != -1)
		(void)close(fd);
	kai_buf_fini(&frame);
	client_target_fini(&t);
	return rc;
}
