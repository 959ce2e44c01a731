/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * server_limits.c: what one client may make kaid hold on the client port.
 *
 * server.c reads and writes; this file decides who may connect and for
 * how long (kaid.yaml(5), LIMITS).  At accept: limits.connections in all
 * and limits.connections_per_peer from one address, a refusal being one
 * error frame written if the socket takes it, then close.  The
 * descriptor ceiling: past the reserve kept for munged, PostgreSQL and
 * the API server, server.c pauses the listener (listener.c, which also
 * pauses when accept() runs out of descriptors).  A sweep
 * timer closes connections past limits.header_timeout (a frame whose
 * header and credential do not come: a slowloris) and
 * limits.idle_timeout.  Refusals come in floods, so they are logged
 * once, then once a minute with their count, as munged logs a repeating
 * accept() error.
 */
#include "config.h"

#include <sys/resource.h>
#include <sys/socket.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kaid.h"
#include "server_int.h"
#include "sys/log.h"

#define REFUSE_LOG_MS	(60 * 1000)	/* one line per minute of refusals */
#define FD_RESERVE	32		/* kept for munged, PostgreSQL, the API */

/*
 * Refusals come in floods: one line when they start, then one a minute
 * with the count, as munged logs a repeating accept() error.
 */
static void
refuse_log(struct kaid *k, const char *why)
{
	int64_t now = kai_loop_now_ms(k->loop);

	k->server->refused++;
	if (k->server->refuse_log_ms != 0 &&
	    now - k->server->refuse_log_ms < REFUSE_LOG_MS)
		return;
	kai_log_warn("refused %" PRIu64 " client connection%s: %s",
	    k->server->refused, k->server->refused == 1 ? "" : "s", why);
	k->server->refuse_log_ms = now;
	k->server->refused = 0;
}

/* One error frame, written if the socket takes it now, then close. */
static void
refuse(struct kaid *k, int fd, const char *msg, const char *hint)
{
	struct kai_buf b, f;

	kai_buf_init(&b, KAI_PROTO_BODY_MAX);
	kai_buf_init(&f, KAI_PROTO_BODY_MAX + KAI_PROTO_HDR_LEN);
	if (kai_msg_error_encode(&b, KAI_EAGAIN, msg, hint) == 0 &&
	    kai_frame_build(&f, KAI_MSG_ERROR, 0, NULL, b.data, b.len) == 0 &&
	    write(fd, f.data, f.len) < 0)
		kai_log_debug("could not refuse a client: %s", strerror(errno));
	kai_buf_fini(&b);
	kai_buf_fini(&f);
	(void)close(fd);
	refuse_log(k, msg);
}

bool
limits_admit(struct kaid *k, int fd, const char *peer)
{
	char msg[160];
	int64_t same = 0;
	size_t i;

	if ((int64_t)k->server->nconns >= k->conf->max_conns) {
		(void)snprintf(msg, sizeof(msg), "kaid holds %zu connections, "
		    "its limit", k->server->nconns);
		refuse(k, fd, msg, "try again later; the limit is "
		    "limits.connections in kaid.yaml");
		return false;
	}
	for (i = 0; i < k->server->nconns; i++)
		same += strcmp(k->server->conns[i]->peer, peer) == 0;
	if (same >= k->conf->max_conns_per_peer) {
		(void)snprintf(msg, sizeof(msg), "too many connections from "
		    "%s (%" PRId64 ")", peer, same);
		refuse(k, fd, msg, "the limit is limits.connections_per_peer "
		    "in kaid.yaml");
		return false;
	}
	return true;
}

/*
 * The descriptor limit, raised to its hard maximum, less a reserve: a
 * client accepted on a descriptor past it is served, but accepting
 * pauses, so that verifying its credential (a socket to munged) and the
 * database and API connections still find descriptors.
 */
static void
fd_ceiling_init(struct kaid *k)
{
	struct rlimit rl;
	rlim_t reserve;

	k->server->fd_ceiling = -1;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
		return;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (rl.rlim_max == RLIM_INFINITY || setrlimit(RLIMIT_NOFILE,
			&rl) != 0)
			(void)getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > INT32_MAX)
		return;
	reserve = rl.rlim_cur / 4 < FD_RESERVE ? rl.rlim_cur / 4 : FD_RESERVE;
	k->server->fd_ceiling = (int)(rl.rlim_cur - reserve);
	if (k->conf->max_conns + k->conf->http_max_conns >=
	    k->server->fd_ceiling)
		kai_log_warn("limits.connections (%" PRId64 ") and "
		    "limits.http_connections (%" PRId64 ") pass the %d "
		    "descriptors kaid may use for clients: raise its "
		    "descriptor limit (LimitNOFILE=)", k->conf->max_conns,
		    k->conf->http_max_conns, k->server->fd_ceiling);
}

/* A frame that will not come in time: a best-effort error, then close. */
static void
conn_abort(struct kaid *k, struct conn *c, const char *msg)
{
	kai_log_info("client %s: %s: closed", c->peer, msg);
	c->out.len = 0;
	server_reply_error(k, c, KAI_ETIMEDOUT, msg, NULL);
	if (c->out.len > 0 && write(c->fd, c->out.data, c->out.len) < 0)
		kai_log_debug("client %s: %s", c->peer, strerror(errno));
	server_conn_close(k, c);
}

/*
 * The timeouts, checked a few times per shortest timeout: a frame whose
 * header and credential are not in after limits.header_timeout (a
 * slowloris), a connection that completed no request and took no answer
 * bytes for limits.idle_timeout.  A deferred reply (a submission in the
 * group commit, klog -f) is kaid's to give: that connection is idle only
 * while an answer waits unread.
 */
static void
sweep(struct kai_loop *loop, uint64_t id, void *ctx)
{
	const struct kai_conf *conf;
	struct kaid *k = ctx;
	int64_t now = kai_loop_now_ms(loop), tick;
	struct conn *c;
	char msg[128];
	size_t i;

	(void)id;
	conf = k->conf;
	for (i = k->server->nconns; i-- > 0;) {
		c = k->server->conns[i];
		if (c->closing)
			continue;
		if (c->in.len > 0 && !c->authed && !c->waiting &&
		    now - c->frame_ms >= conf->header_timeout_ms) {
			(void)snprintf(msg, sizeof(msg), "request header and "
			    "credential not received within %" PRId64 " ms",
			    conf->header_timeout_ms);
			conn_abort(k, c, msg);
		} else if ((!c->waiting || c->out.len > 0) &&
		    now - c->active_ms >= conf->idle_timeout_ms) {
			if (c->out.len > 0)
				kai_log_warn("client %s: %zu answer bytes not "
				    "read within %" PRId64 " ms: closed",
				    c->peer, c->out.len, conf->idle_timeout_ms);
			else
				kai_log_debug("client %s: idle: closed",
				    c->peer);
			server_conn_close(k, c);
		}
	}
	tick = conf->header_timeout_ms < conf->idle_timeout_ms ?
	    conf->header_timeout_ms : conf->idle_timeout_ms;
	tick = tick / 4 < 50 ? 50 : tick / 4 > 1000 ? 1000 : tick / 4;
	k->server->sweep_timer = kai_loop_timer_add(loop, tick, sweep, k);
}

void
limits_start(struct kaid *k)
{
	k->server->sweep_timer = kai_loop_timer_add(k->loop, 50, sweep, k);
	fd_ceiling_init(k);
}
