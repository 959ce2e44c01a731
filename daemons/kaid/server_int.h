/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * server_int.h: the client connection, shared by server.c (its reads and
 * writes) and server_limits.c (who may connect, and for how long).
 */
#ifndef KAID_SERVER_INT_H
#define KAID_SERVER_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "kaid.h"

struct conn {
	int fd;
	char peer[64];		/* numeric address, for limits and logs */
	struct kai_buf in;
	struct kai_buf out;
	bool waiting;		/* a deferred reply is due */
	bool closing;		/* close once out is flushed */
	uint16_t version;	/* of the last request: replies speak it */
	bool authed;		/* the frame at in's head has a good credential */
	struct rpc_cred who;	/* its identity and payload */
	int64_t frame_ms;	/* loop time that frame began; valid if in.len */
	int64_t active_ms;	/* last request done or answer bytes taken */
	server_produce_fn *produce; /* a reply made as it is read, or NULL */
	void (*produce_free)(void *ctx);
	void *produce_ctx;
	server_adopt_fn *adopt;	/* server_handoff(): who takes the socket */
	void (*adopt_free)(void *ctx);
	void *adopt_ctx;
};

/* The client port's state, kept by these two files alone. */
struct server {
	struct listener *listener; /* NULL until server_listen() */
	struct conn **conns;
	size_t nconns;
	size_t capconns;
	uint64_t sweep_timer;	/* server_limits.c: header and idle timeouts */
	int64_t refuse_log_ms;	/* last "refused" log line */
	uint64_t refused;	/* connections refused since that line */
	int fd_ceiling;		/* accept pauses past it; -1 none */
};

/* server.c */
/* Closes c now and forgets it (its deferred replies are dropped). */
void server_conn_close(struct kaid *k, struct conn *c);

/* server_limits.c */
/* Starts the timeout sweep and sets the descriptor ceiling (listen). */
void limits_start(struct kaid *k);
/* Whether one more connection from peer is within the limits; if not,
 * fd got a refusal and is closed. */
bool limits_admit(struct kaid *k, int fd, const char *peer);

#endif /* KAID_SERVER_INT_H */
