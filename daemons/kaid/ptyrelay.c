/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * ptyrelay.c: interactive sessions (ksrun --pty, ksalloc, ksattach),
 * relayed through kaid.
 *
 * A session is one job's terminal and has two ends.  The pod's end is
 * `kaistep pty-serve` in the job (pod/ptyserve.c): it sends PTY_SERVE
 * with the job's credential.  The client's end is ksrun or ksattach on a
 * login node: PTY_ATTACH with the user's MUNGE credential.  Both requests
 * go through rpc_dispatch() like any other; their handlers hand the
 * socket over (server_handoff()), and from then on the connection
 * carries IO frames (proto/proto_pty.h) which this file passes from one
 * end to the other.  Nothing else of kaid sees them, so a session costs
 * the rest of kaid nothing but two descriptors.
 *
 * Bounds: each end reads one IO frame at a time (at most 20 +
 * KAI_PTY_IO_MAX bytes held), and an end stops reading while more than
 * PTY_HIGH bytes wait for the other end, so a fast producer and a slow
 * consumer make kaid hold PTY_HIGH plus a frame per direction, never
 * more.  What the pod writes while no client is attached is kept, the
 * last PTY_BACKLOG bytes of it, and given to the next client (ksattach
 * sees the screen's recent past).  At most PTY_SESSIONS sessions, and
 * PTY_PER_USER of one user's jobs.
 *
 * Lifetime: a client that opened the session as its owner (ksrun, ksalloc)
 * ends it when it goes: the pod gets HANGUP and ends the command, as the
 * terminal's hangup would (Slurm's srun --pty).  A ksattach leaves the
 * session as it found it.  A timer checks every second that each
 * session's job is still active; once it is not, its ends are told why
 * and closed, and the session is forgotten.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/xmalloc.h"
#include "kaid.h"
#include "model/jobstate.h"
#include "proto/proto_pty.h"
#include "sys/log.h"

#define PTY_SESSIONS 1024
#define PTY_PER_USER 64	/* so that one user cannot take them all */
#define PTY_HIGH     (256 * 1024)
#define PTY_OUT_MAX  (PTY_HIGH + 2 * (KAI_PROTO_HDR_LEN + KAI_PTY_IO_MAX))
#define PTY_IN_MAX   (KAI_PROTO_HDR_LEN + KAI_PTY_IO_MAX)
#define PTY_BACKLOG  (64 * 1024)
#define PTY_CHECK_MS 1000

struct psess;

/* One end: the socket and its two buffers. */
struct pend {
	struct kaid *k;
	struct psess *s;	/* NULL for an end being refused */
	int fd;
	bool is_pod;
	bool owner;		/* a client whose leaving ends the session */
	bool closing;		/* close once out is flushed */
	uint16_t version;	/* of its request: frames to it speak it */
	struct kai_buf in;	/* at most one frame */
	struct kai_buf out;	/* frames to write */
};

struct psess {
	uint64_t job;
	uint32_t uid;		/* the job's owner */
	struct pend *client;	/* NULL when none is attached */
	struct pend *pod;	/* NULL until the pod serves */
	bool owner_gone;	/* the owner left: the pod gets HANGUP */
	bool ended;		/* the pod sent EXIT */
	uint16_t rows, cols;	/* the client's window, for a late pod */
	struct kai_buf back;	/* the pod's recent output, no client */
};

struct ptyrelay {
	struct psess *v[PTY_SESSIONS];
	size_t n;
	uint64_t timer;		/* 0 = not armed */
};

/* An accepted request, until the socket is ours (server_handoff()). */
struct claim {
	bool is_pod;
	uint64_t job;
	uint32_t uid;
	bool owner;		/* ATTACH: KAI_PTY_OWNER */
	uint16_t rows, cols;
};

static void end_event(struct kai_loop *loop, int fd, int events, void *ctx);
static void check(struct kai_loop *loop, uint64_t id, void *ctx);
static void sess_update(struct psess *s);

static struct ptyrelay *
relay_of(struct kaid *k)
{
	if (k->ptyrelay == NULL)
		k->ptyrelay = kai_xcalloc(1, sizeof(*k->ptyrelay));
	return k->ptyrelay;
}

static struct psess *
sess_find(struct kaid *k, uint64_t job)
{
	struct ptyrelay *r = relay_of(k);
	size_t i;

	for (i = 0; i < r->n; i++)
		if (r->v[i]->job == job)
			return r->v[i];
	return NULL;
}

/* Queues one IO frame to e; false (and e is closing) when it is full. */
static bool
end_send(struct pend *e, const struct kai_pty_io *io)
{
	struct kai_buf body;
	bool ok;

	if (e == NULL || e->closing)
		return false;
	kai_buf_init(&body, KAI_PTY_IO_MAX);
	ok = kai_msg_pty_io_encode(&body, io) == 0 &&
	    kai_frame_build_version(&e->out, e->version, KAI_MSG_PTY_IO_OUT, 0,
		NULL, body.data, body.len) == 0;
	kai_buf_fini(&body);
	if (!ok) {
		kai_log_warn("session of job %" PRIu64 ": the %s's output is "
		    "full: closed", e->s != NULL ? e->s->job : 0,
		    e->is_pod ? "pod" : "client");
		e->out.len = 0;
		e->closing = true;
	}
	return ok;
}

static void
end_notice(struct pend *e, const char *msg)
{
	struct kai_pty_io io;

	memset(&io, 0, sizeof(io));
	io.kind = KAI_PTY_NOTICE;
	io.data = msg;
	io.len = strlen(msg);
	(void)end_send(e, &io);
}

static void
end_free(struct pend *e)
{
	kai_loop_fd_del(e->k->loop, e->fd);
	(void)close(e->fd);
	kai_buf_fini(&e->in);
	kai_buf_fini(&e->out);
	free(e);
}

static void
sess_free(struct kaid *k, struct psess *s)
{
	struct ptyrelay *r = relay_of(k);
	size_t i;

	for (i = 0; i < r->n; i++)
		if (r->v[i] == s) {
			r->v[i] = r->v[--r->n];
			break;
		}
	if (s->client != NULL)
		end_free(s->client);
	if (s->pod != NULL)
		end_free(s->pod);
	kai_buf_fini(&s->back);
	free(s);
}

/* Keeps the last PTY_BACKLOG bytes the pod wrote while nobody watched. */
static void
back_add(struct psess *s, const char *p, size_t n)
{
	if (n >= PTY_BACKLOG) {
		p += n - PTY_BACKLOG;
		n = PTY_BACKLOG;
	}
	if (s->back.len + n > PTY_BACKLOG)
		kai_buf_consume(&s->back, s->back.len + n - PTY_BACKLOG);
	if (kai_buf_add(&s->back, p, n) != 0)
		kai_buf_reset(&s->back); /* cannot happen: room was made */
}

/* The side e stopped (closed, broke the protocol): what it means. */
static void
end_gone(struct pend *e)
{
	struct psess *s = e->s;
	struct kaid *k = e->k;
	struct kai_pty_io io;

	if (s == NULL) {
		end_free(e);
		return;
	}
	if (e->is_pod) {
		s->pod = NULL;
		if (s->client != NULL && !s->ended) {
			end_notice(s->client, "the job's terminal closed");
			s->client->closing = true;
		} else if (s->client != NULL) {
			s->client->closing = true;
		}
	} else {
		s->client = NULL;
		if (e->owner) {
			s->owner_gone = true;
			memset(&io, 0, sizeof(io));
			io.kind = KAI_PTY_HANGUP;
			(void)end_send(s->pod, &io);
		}
	}
	end_free(e);
	if (s->pod == NULL && s->client == NULL && (s->ended ||
	    !s->owner_gone))
		sess_free(k, s);
	else
		sess_update(s);
}

/* One IO frame from e, to the other end. Returns false to drop e. */
static bool
end_route(struct pend *e, const struct kai_pty_io *io)
{
	struct psess *s = e->s;
	struct pend *to = e->is_pod ? s->client : s->pod;

	if (e->is_pod) {
		switch (io->kind) {
		case KAI_PTY_DATA:
			if (to == NULL)
				back_add(s, io->data, io->len);
			break;
		case KAI_PTY_EXIT:
			s->ended = true;
			break;
		case KAI_PTY_NOTICE:
		case KAI_PTY_EOF:
			break;
		default:
			return false;
		}
	} else {
		switch (io->kind) {
		case KAI_PTY_WINSIZE:
			s->rows = io->rows;
			s->cols = io->cols;
			break;
		case KAI_PTY_DATA:
		case KAI_PTY_EOF:
		case KAI_PTY_SIGNAL:
			break;
		default:
			return false;
		}
	}
	if (to != NULL)
		(void)end_send(to, io);
	return true;
}

/* Whether e may read: its peer's output has room (or there is none). */
static bool
end_may_read(const struct pend *e)
{
	const struct pend *to;

	if (e->closing || e->s == NULL)
		return false;
	to = e->is_pod ? e->s->client : e->s->pod;
	return to == NULL || to->out.len < PTY_HIGH;
}

static void
end_watch(struct pend *e)
{
	int ev = 0;

	if (end_may_read(e))
		ev |= KAI_LOOP_READ;
	/* A closing end with nothing to write: writable at once, so the
	 * next event closes it (end_event()), outside this caller. */
	if (e->out.len > 0 || (e->closing && e->out.len == 0))
		ev |= KAI_LOOP_WRITE;
	if (kai_loop_fd_set(e->k->loop, e->fd, ev, end_event, e) != 0)
		e->closing = true;
}

static void
sess_update(struct psess *s)
{
	if (s->client != NULL)
		end_watch(s->client);
	if (s->pod != NULL)
		end_watch(s->pod);
}

/* Decodes the frames in e->in.  Returns false when e broke the protocol. */
static bool
end_parse(struct pend *e)
{
	struct kai_frame_hdr h;
	struct kai_pty_io io;
	struct kai_err err;
	size_t total;

	while (e->in.len >= KAI_PROTO_HDR_LEN && !e->closing) {
		if (kai_frame_hdr_decode(e->in.data, e->in.len, &h, &err) != 0)
			goto bad;
		if (h.type != KAI_MSG_PTY_IO || h.cred_len != 0 ||
		    h.body_len > KAI_PTY_IO_MAX) {
			kai_err_set(&err, KAI_EPROTO, "unexpected frame (type "
			    "%u, %u credential bytes, %u body bytes) in a "
			    "session", (unsigned)h.type, (unsigned)h.cred_len,
			    (unsigned)h.body_len);
			goto bad;
		}
		total = KAI_PROTO_HDR_LEN + h.body_len;
		if (e->in.len < total)
			return true;
		if (kai_msg_pty_io_decode(e->in.data + KAI_PROTO_HDR_LEN,
		    h.body_len, &io, &err) != 0)
			goto bad;
		if (!end_route(e, &io)) {
			kai_err_set(&err, KAI_EPROTO, "a %s may not send IO "
			    "of kind %d", e->is_pod ? "pod" : "client",
			    (int)io.kind);
			goto bad;
		}
		kai_buf_consume(&e->in, total);
	}
	return true;
bad:
	kai_log_warn("session of job %" PRIu64 ": %s: %s: closed",
	    e->s != NULL ? e->s->job : 0, e->is_pod ? "pod" : "client",
	    kai_err_msg(&err));
	return false;
}

/* Reads what e's socket has, a frame's room at a time. */
static bool
end_read(struct pend *e)
{
	char tmp[PTY_IN_MAX];
	ssize_t n;
	size_t room;

	for (;;) {
		if (!end_may_read(e))
			return true;
		room = PTY_IN_MAX - e->in.len;
		n = read(e->fd, tmp, room);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return true;
		if (n <= 0)
			return false;
		if (kai_buf_add(&e->in, tmp, (size_t)n) != 0 || !end_parse(e))
			return false;
		if ((size_t)n < room)
			return true;
	}
}

static bool
end_write(struct pend *e)
{
	ssize_t n;

	while (e->out.len > 0) {
		n = write(e->fd, e->out.data, e->out.len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return true;
		if (n <= 0)
			return false;
		kai_buf_consume(&e->out, (size_t)n);
	}
	return true;
}

static void
end_event(struct kai_loop *loop, int fd, int events, void *ctx)
{
	struct pend *e = ctx;
	struct pend *peer;

	(void)loop;
	(void)fd;
	if ((events & KAI_LOOP_READ) && !end_read(e)) {
		end_gone(e);
		return;
	}
	peer = e->s == NULL ? NULL : e->is_pod ? e->s->client : e->s->pod;
	if (peer != NULL && peer->out.len > 0 && !end_write(peer)) {
		end_gone(peer);
		return;
	}
	if (e->out.len > 0 && !end_write(e)) {
		end_gone(e);
		return;
	}
	if (e->closing && e->out.len == 0) {
		end_gone(e);
		return;
	}
	if (peer != NULL && peer->closing && peer->out.len == 0) {
		end_gone(peer);
		return;
	}
	if (e->s != NULL)
		sess_update(e->s);
	else
		end_watch(e);
}

/* A refused end: the error, then the socket closes. */
static void
end_refuse(struct pend *e, int code, const char *msg, const char *hint)
{
	struct kai_buf b;

	kai_buf_init(&b, KAI_PROTO_BODY_MAX);
	if (kai_msg_error_encode(&b, code, msg, hint) != 0 ||
	    kai_frame_build_version(&e->out, e->version, KAI_MSG_ERROR, 0,
		NULL, b.data, b.len) != 0)
		kai_log_warn("session: could not encode \"%s\"", msg);
	kai_buf_fini(&b);
	e->closing = true;
	end_watch(e);
}

/* The session the claim joins, or NULL with e refused. */
static struct psess *
claim_session(struct kaid *k, struct pend *e, const struct claim *c)
{
	struct ptyrelay *r = relay_of(k);
	const struct kai_job *j = state_job(k, c->job);
	struct psess *s = sess_find(k, c->job);
	size_t i, mine;
	char msg[256];

	if (j == NULL || kai_jobstate_is_terminal(j->state)) {
		(void)snprintf(msg, sizeof(msg), "job %" PRIu64 " is not "
		    "active: it has ended or never existed", c->job);
		end_refuse(e, KAI_ENOENT, msg, NULL);
		return NULL;
	}
	if (!c->is_pod && j->uid != c->uid && !rpc_is_operator(k, c->uid)) {
		(void)snprintf(msg, sizeof(msg), "permission denied: job %"
		    PRIu64 " belongs to another user", c->job);
		end_refuse(e, KAI_EPERM, msg, NULL);
		return NULL;
	}
	if (s != NULL && !c->is_pod && s->client != NULL) {
		(void)snprintf(msg, sizeof(msg), "job %" PRIu64 "'s terminal "
		    "already has a client attached", c->job);
		end_refuse(e, KAI_EEXIST, msg,
		    "only one client may attach at a time");
		return NULL;
	}
	if (s != NULL && c->is_pod && s->pod != NULL) {
		(void)snprintf(msg, sizeof(msg), "job %" PRIu64 " already "
		    "serves a terminal", c->job);
		end_refuse(e, KAI_EEXIST, msg, NULL);
		return NULL;
	}
	if (s != NULL && !c->is_pod && (s->owner_gone || s->ended)) {
		(void)snprintf(msg, sizeof(msg), "job %" PRIu64 "'s session "
		    "has ended", c->job);
		end_refuse(e, KAI_ENOENT, msg, NULL);
		return NULL;
	}
	if (s == NULL && !c->is_pod && !c->owner) {
		(void)snprintf(msg, sizeof(msg), "job %" PRIu64 " has no "
		    "terminal: %s", c->job, j->state == KAI_JOB_PENDING ?
		    "it has not started" : "it runs no \"kaistep pty-serve\"");
		end_refuse(e, KAI_ENOENT, msg, NULL);
		return NULL;
	}
	if (s != NULL)
		return s;
	for (i = 0, mine = 0; i < r->n; i++)
		mine += r->v[i]->uid == j->uid;
	if (r->n == PTY_SESSIONS || mine >= PTY_PER_USER) {
		(void)snprintf(msg, sizeof(msg), "too many interactive "
		    "sessions: %s", r->n == PTY_SESSIONS ? "kaid's limit "
		    "(1024) is reached" : "the job's user has 64");
		end_refuse(e, KAI_EAGAIN, msg, NULL);
		return NULL;
	}
	s = kai_xcalloc(1, sizeof(*s));
	s->job = c->job;
	s->uid = j->uid;
	kai_buf_init(&s->back, PTY_BACKLOG);
	r->v[r->n++] = s;
	if (r->timer == 0)
		r->timer = kai_loop_timer_add(k->loop, PTY_CHECK_MS,
		    check, k);
	return s;
}

/* Sends what a joining end must hear first, after its reply. */
static void
join_greet(struct psess *s, struct pend *e, const struct claim *c)
{
	const struct kai_job *j;
	struct kai_pty_io io;
	char msg[96];
	size_t off, n;

	memset(&io, 0, sizeof(io));
	io.kind = KAI_PTY_START;
	(void)end_send(e->is_pod ? s->client : s->pod != NULL ? e : NULL,
	    &io);
	if (e->is_pod) {
		if (s->rows != 0 || s->cols != 0) {
			io.kind = KAI_PTY_WINSIZE;
			io.rows = s->rows;
			io.cols = s->cols;
			(void)end_send(e, &io);
		}
		if (s->owner_gone) {
			io.kind = KAI_PTY_HANGUP;
			(void)end_send(e, &io);
		}
		return;
	}
	if (c->rows != 0) {
		s->rows = c->rows;
		s->cols = c->cols;
	}
	/* srun's line, which users wait on when the cluster is full. */
	j = state_job(e->k, s->job);
	if (s->pod == NULL && j != NULL && j->state == KAI_JOB_PENDING) {
		(void)snprintf(msg, sizeof(msg), "job %" PRIu64 " queued and "
		    "waiting for resources", s->job);
		end_notice(e, msg);
	}
	if (s->back.len > 0) {
		io.kind = KAI_PTY_DATA;
		io.stream = 1;
		for (off = 0; off < s->back.len; off += n) {
			n = s->back.len - off;
			n = n > KAI_PTY_DATA_MAX ? KAI_PTY_DATA_MAX : n;
			io.data = s->back.data + off;
			io.len = n;
			(void)end_send(e, &io);
		}
		kai_buf_reset(&s->back);
	}
	if (c->rows != 0 && s->pod != NULL) {
		io.kind = KAI_PTY_WINSIZE;
		io.rows = c->rows;
		io.cols = c->cols;
		(void)end_send(s->pod, &io);
	}
}

/* server_handoff()'s callback: the socket is ours now. */
static void
adopt(struct kaid *k, int fd, const void *ahead, size_t nahead,
    uint16_t version, void *ctx)
{
	struct claim *c = ctx;
	struct pend *e = kai_xcalloc(1, sizeof(*e));
	struct psess *s;
	struct kai_buf b;

	e->k = k;
	e->fd = fd;
	e->is_pod = c->is_pod;
	e->version = version;
	kai_buf_init(&e->in, PTY_IN_MAX);
	kai_buf_init(&e->out, PTY_OUT_MAX);
	if ((s = claim_session(k, e, c)) == NULL) {
		free(c);
		return;
	}
	e->s = s;
	if (c->is_pod)
		s->pod = e;
	else
		s->client = e;
	e->owner = c->owner;
	kai_buf_init(&b, 16);
	if (kai_msg_u64_encode(&b, c->job) != 0 ||
	    kai_frame_build_version(&e->out, version, c->is_pod ?
		KAI_MSG_PTY_SERVE_REPLY : KAI_MSG_PTY_ATTACH_REPLY, 0, NULL,
		b.data, b.len) != 0)
		e->closing = true; /* cannot happen: an empty buffer */
	kai_buf_fini(&b);
	join_greet(s, e, c);
	kai_log_info("audit: uid=%u action=pty-%s job=%" PRIu64 "%s", c->uid,
	    c->is_pod ? "serve" : "attach", c->job,
	    c->owner ? " owner" : "");
	free(c);
	if (nahead > 0 && (kai_buf_add(&e->in, ahead, nahead) != 0 ||
	    !end_parse(e))) {
		end_gone(e);
		return;
	}
	sess_update(s);
}

/*
 * The owners' end decides; the timer notices jobs that ended: their
 * ends hear why and are closed, and the session goes.
 */
static void
check(struct kai_loop *loop, uint64_t id, void *ctx)
{
	struct kaid *k = ctx;
	struct ptyrelay *r = relay_of(k);
	const struct kai_job *j;
	struct psess *s;
	char msg[128];
	size_t i;

	(void)id;
	r->timer = 0;
	for (i = r->n; i-- > 0;) {
		s = r->v[i];
		j = state_job(k, s->job);
		if (j != NULL && !kai_jobstate_is_terminal(j->state))
			continue;
		if (s->client != NULL && !s->ended) {
			(void)snprintf(msg, sizeof(msg), "job %" PRIu64
			    " ended%s%s", s->job, j != NULL ? ": " : "",
			    j != NULL ? kai_jobstate_name(j->state) : "");
			end_notice(s->client, msg);
			(void)end_write(s->client);
		}
		sess_free(k, s);
	}
	if (r->n > 0)
		r->timer = kai_loop_timer_add(loop, PTY_CHECK_MS,
		    check, k);
}

static bool
claim_hand(struct kaid *k, const struct rpc_req *req, struct claim *c)
{
	struct claim *p = kai_xmalloc(sizeof(*p));

	*p = *c;
	return server_handoff(k, req->conn, adopt, free, p);
}

bool
rpc_pty_attach(struct kaid *k, const struct rpc_req *req)
{
	struct kai_pty_open o;
	struct claim c;
	struct kai_err err;

	if (kai_msg_pty_attach_decode(req->body, req->len, &o, &err) != 0) {
		server_reply_error(k, req->conn, err.code, err.msg, NULL);
		return false;
	}
	if (!jobauth_enabled(k)) {
		server_reply_error(k, req->conn, KAI_EINVAL,
		    "interactive sessions are off: kaid has no job_key_file",
		    "the pods' end of a session authenticates with the "
		    "job's key (kaid.yaml(5) job_key_file)");
		return false;
	}
	memset(&c, 0, sizeof(c));
	c.job = o.job;
	c.uid = req->uid;
	c.owner = (o.flags & KAI_PTY_OWNER) != 0;
	c.rows = o.rows;
	c.cols = o.cols;
	return claim_hand(k, req, &c);
}

bool
rpc_pty_serve(struct kaid *k, const struct rpc_req *req)
{
	struct kai_pty_open o;
	struct claim c;
	struct kai_err err;

	if (req->job_id == 0) {
		server_reply_error(k, req->conn, KAI_EPERM,
		    "permission denied: a terminal is served with a job "
		    "credential", "kaistep pty-serve runs inside a job");
		return false;
	}
	if (kai_msg_pty_serve_decode(req->body, req->len, &o, &err) != 0) {
		server_reply_error(k, req->conn, err.code, err.msg, NULL);
		return false;
	}
	memset(&c, 0, sizeof(c));
	c.is_pod = true;
	c.job = req->job_id;
	c.uid = req->uid;
	return claim_hand(k, req, &c);
}

size_t
ptyrelay_count(const struct kaid *k)
{
	return k->ptyrelay != NULL ? k->ptyrelay->n : 0;
}

void
ptyrelay_free(struct kaid *k)
{
	struct ptyrelay *r = k->ptyrelay;

	if (r == NULL)
		return;
	if (r->timer != 0 && k->loop != NULL)
		kai_loop_timer_del(k->loop, r->timer);
	while (r->n > 0)
		sess_free(k, r->v[0]);
	KAI_FREE(k->ptyrelay);
}
