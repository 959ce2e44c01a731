/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * leader.c: several kaid, one leader.
 *
 * Every kaid opens the database and its HTTP endpoint; only the one that
 * holds the lead (src/db/db_leader.c: a PostgreSQL session advisory lock
 * and an epoch raised with each new leader) loads the jobs, watches the
 * cluster, listens on the client port and schedules.  The others are
 * standbys: /healthz answers (the loop runs), /readyz says "standby", so
 * a Service sends clients to the leader only, and every LEADER_POLL_MS
 * they try to take the lead.  PostgreSQL frees it when the leader's
 * session ends, so a standby leads about a second after a leader dies,
 * and a new leader starts as a restarted kaid does: everything from the
 * database and the cluster, pods adopted by their deterministic names.
 * A leader that learns it was replaced (its connection was reopened and
 * the lead was taken, or a change of its was fenced off) stops at once,
 * with status 1.
 */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <inttypes.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/xmalloc.h"
#include "kaid.h"
#include "sys/log.h"

#define LEADER_POLL_MS 1000

/* "host:pid", for the other kaids' logs. */
static void
holder_name(char *buf, size_t size)
{
	char host[256];

	if (gethostname(host, sizeof(host)) != 0)
		(void)snprintf(host, sizeof(host), "unknown");
	host[sizeof(host) - 1] = '\0';
	(void)snprintf(buf, size, "%s:%ld", host, (long)getpid());
}

static void leader_poll(struct kai_loop *loop, uint64_t id, void *ctx);

/* Whether this kaid leads, and a standby's next try. */
struct leader {
	bool leading;
	uint64_t timer;
	int64_t seen_epoch;	/* a standby's: the leader's it last told */
	char self[300];		/* advertised(), once: "" until then */
};

static struct leader *
ld(struct kaid *k)
{
	if (k->leader == NULL)
		k->leader = kai_xcalloc(1, sizeof(*k->leader));
	return k->leader;
}

bool
leader_leading(const struct kaid *k)
{
	return k->leader != NULL && k->leader->leading;
}

void
leader_free(struct kaid *k)
{
	KAI_FREE(k->leader);
}

/*
 * This host's address for others: its name resolved (a pod's /etc/hosts
 * maps it to the Pod IP, which the other replicas reach where they could
 * not resolve the name), the first address that is not loopback; the
 * name itself when it resolves to none.
 */
static void
host_address(char *buf, size_t size)
{
	struct addrinfo hints, *res, *ai;
	char host[256], num[INET6_ADDRSTRLEN];
	const void *a;

	if (gethostname(host, sizeof(host)) != 0)
		(void)snprintf(host, sizeof(host), "localhost");
	host[sizeof(host) - 1] = '\0';
	(void)snprintf(buf, size, "%s", host);
	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	if (getaddrinfo(host, NULL, &hints, &res) != 0)
		return;
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		if (ai->ai_family == AF_INET) {
			const struct sockaddr_in *v4 =
			    (const struct sockaddr_in *)(const void *)ai->ai_addr;

			if ((ntohl(v4->sin_addr.s_addr) >> 24) == 127)
				continue;
			a = &v4->sin_addr;
		} else if (ai->ai_family == AF_INET6) {
			const struct sockaddr_in6 *v6 =
			    (const struct sockaddr_in6 *)(const void *)ai->ai_addr;

			if (IN6_IS_ADDR_LOOPBACK(&v6->sin6_addr))
				continue;
			a = &v6->sin6_addr;
		} else {
			continue;
		}
		if (inet_ntop(ai->ai_family, a, num, sizeof(num)) == NULL)
			continue;
		if (ai->ai_family == AF_INET6)
			(void)snprintf(buf, size, "[%s]", num);
		else
			(void)snprintf(buf, size, "%s", num);
		break;
	}
	freeaddrinfo(res);
}

/*
 * Where clients reach this kaid when it leads, for the standbys to
 * forward them to: advertise, or with "auto" the listen address, whose
 * wildcard host (0.0.0.0, [::]) becomes this host's address.
 */
static void
advertised(const struct kaid *k, char *buf, size_t size)
{
	const char *a = k->conf->advertise, *l = k->conf->listen;
	const char *port = strrchr(l, ':');
	char host[300];

	if (strcmp(a, "auto") != 0 || port == NULL) {
		(void)snprintf(buf, size, "%s", strcmp(a, "auto") != 0 ? a : l);
		return;
	}
	if (strncmp(l, "0.0.0.0:", 8) != 0 && strncmp(l, "[::]:", 5) != 0) {
		(void)snprintf(buf, size, "%s", l);
		return;
	}
	host_address(host, sizeof(host));
	(void)snprintf(buf, size, "%s%s", host, port);
}

/* This kaid's advertised address, worked out once (like listen, a
 * change of advertise takes a restart). */
static const char *
self_address(struct kaid *k)
{
	if (ld(k)->self[0] == '\0')
		advertised(k, ld(k)->self, sizeof(ld(k)->self));
	return ld(k)->self;
}

/* Tries to take the lead; *leads tells.  Errors are the database's. */
static int
try_lead(struct kaid *k, bool *leads, struct kai_err *err)
{
	const char *address = self_address(k);
	char holder[300];

	holder_name(holder, sizeof(holder));
	if (kai_db_leader_try(k->db, holder, address, kaid_now(), leads,
	    err) != 0)
		return err->code;
	if (!*leads)
		return 0;
	ld(k)->leading = true;
	kai_log_info("leading (epoch %" PRId64 "), clients at %s",
	    kai_db_epoch(k->db), address);
	relay_stop(k);	/* its port is the leader's now */
	return kaid_lead(k, err);
}

/*
 * Waits as a standby: says who leads (at first and when that changes),
 * forwards clients to it (relay.c), and tries again in LEADER_POLL_MS.
 */
static void
standby(struct kaid *k, bool first)
{
	struct kai_err err;
	char *holder = NULL, *address = NULL;
	int64_t epoch = 0;

	if (kai_db_leader_holder(k->db, &holder, &address, &epoch,
	    &err) == 0) {
		if (first || epoch != ld(k)->seen_epoch)
			kai_log_info("standby: kaid %s leads (epoch %" PRId64
			    "); taking over when it stops", holder, epoch);
		ld(k)->seen_epoch = epoch;
		/* Its own address (a copy of this kaid's configuration on
		 * another host): forwarding there would loop. */
		relay_update(k, strcmp(address, self_address(k)) == 0 ? "" :
		    address);
	}
	free(holder);
	free(address);
	ld(k)->timer = kai_loop_timer_add(k->loop, LEADER_POLL_MS,
	    leader_poll, k);
}

static void
leader_poll(struct kai_loop *loop, uint64_t id, void *ctx)
{
	struct kaid *k = ctx;
	struct kai_err err;
	bool leads = false;

	(void)id;
	ld(k)->timer = 0;
	if (try_lead(k, &leads, &err) != 0) {
		if (!leads) {	/* the database is away: try again */
			kai_log_debug("standby: %s", err.msg);
			standby(k, false);
			return;
		}
		/* Half a leader is no leader: let a restart start afresh. */
		kai_log_err("could not take over: %s", err.msg);
		k->exit_code = 1;
		kai_loop_stop(loop);
		return;
	}
	if (!leads)
		standby(k, false);
}

int
leader_start(struct kaid *k, struct kai_err *err)
{
	bool leads = false;

	if (try_lead(k, &leads, err) != 0)
		return err->code;
	if (!leads)
		standby(k, true);
	return 0;
}

void
leader_check(struct kaid *k)
{
	if (!leader_leading(k) || !kai_db_deposed(k->db))
		return;
	kai_log_err("another kaid took the lead (this one had epoch %" PRId64
	    "): stopping", kai_db_epoch(k->db));
	k->exit_code = 1;
	kai_loop_stop(k->loop);
}
