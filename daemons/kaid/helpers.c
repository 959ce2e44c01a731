/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * helpers.c: the wrapper and shims of job pods, shipped once.
 *
 * Every pod needs the wrapper that runs the batch script and the
 * scontrol, srun and --signal shims (the files of pod/, compiled into
 * kaid), and the in-pod clients, pod/kaistep: a static program of about
 * 1.4 MB, 0.6 MB gzip'd, which fits a ConfigMap's 1 MiB only so (the
 * wrapper unpacks it; gzip is in every image that has a shell).
 * Carried in each pod they are about 6 KB of its 8 to 10, and every byte
 * of a pod is stored in etcd and sent to every watcher: the API server's
 * create rate falls as pods grow.  With kubernetes.pod_helpers configmap
 * kaid keeps them in one ConfigMap of its namespace, and every pod mounts
 * it read-only at HELPERS_DIR and runs `/bin/sh HELPERS_DIR/wrapper.sh`.
 *
 * The ConfigMap is named after its content ("kaibatch-pod-" and 10 hex
 * digits of its SHA-256), so a kaid of another version never changes
 * the files under pods that run: it makes its own ConfigMap, and a create
 * answered 409 means the one there holds these very files.  kaid creates
 * it at start and again every HELPERS_RECHECK_S (an operator who deleted
 * it gets it back; a pod created meanwhile waits in ContainerCreating
 * until it is there, as the kubelet retries the mount), sooner after a
 * failure.  Old ConfigMaps are left for the operator to delete (a few KB
 * each, one per kaid version; the label app.kubernetes.io/managed-by=kaid
 * finds them).
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base64.h"
#include "base/sha256.h"
#include "base/xmalloc.h"
#include "dispatch.h"
#include "kaid.h"
#include "kaistep_bin.h"
#include "sys/log.h"

#define HELPERS_RECHECK_S 600
#define HELPERS_RETRY_S	  5
/* The in-pod clients, gzip'd (pod/kaistep_bin.c): binaryData. */
#define KAISTEP_KEY	  "kaistep.gz"

struct helpers {
	char name[64];		/* the ConfigMap's: "kaibatch-pod-" + hash */
	char *kaistep_b64;	/* kaistep.gz in base64; NULL = none */
	bool inflight;		/* a create is under way */
	int64_t next;		/* unix s of the next create */
};

/* The ConfigMap's keys and contents, and where each file goes. */
static const char *const files[][3] = {
	{"wrapper.sh", podshim_wrapper, "wrapper.sh"},
	{"signal.sh", podshim_signal, "signal.sh"},
	{"scontrol", podshim_scontrol, "bin/scontrol"},
	{"srun", podshim_srun, "bin/srun"},
};

void
helpers_init(struct kaid *k)
{
	struct kai_sha256 h;
	uint8_t d[32];
	size_t i;
	int n;

	kai_sha256_init(&h);
	for (i = 0; i < KAI_NELEM(files); i++) {
		/* Key and content, each with its NUL: no two splits alike. */
		kai_sha256_update(&h, files[i][0], strlen(files[i][0]) + 1);
		kai_sha256_update(&h, files[i][1], strlen(files[i][1]) + 1);
	}
	if (kaistep_gz_len() > 0) {
		kai_sha256_update(&h, KAISTEP_KEY, sizeof(KAISTEP_KEY));
		kai_sha256_update(&h, kaistep_gz, kaistep_gz_len());
	}
	kai_sha256_final(&h, d);
	k->helpers = kai_xcalloc(1, sizeof(*k->helpers));
	if (kaistep_gz_len() > 0)
		k->helpers->kaistep_b64 = kai_base64_encode(kaistep_gz,
		    kaistep_gz_len());
	n = snprintf(k->helpers->name, sizeof(k->helpers->name),
	    "kaibatch-pod-%02x%02x%02x%02x%02x", d[0], d[1], d[2], d[3], d[4]);
	KAI_ASSERT(n > 0 && (size_t)n < sizeof(k->helpers->name));
}

void
helpers_free(struct kaid *k)
{
	if (k->helpers != NULL)
		KAI_FREE(k->helpers->kaistep_b64);
	KAI_FREE(k->helpers);
}

const char *
helpers_configmap(const struct kaid *k)
{
	return k->helpers->name;
}

static void
on_created(int code, const struct kai_err *err, void *ctx)
{
	struct kaid *k = ctx;
	/* The API server's answer arrives here, outside any tick. */
	int64_t now = kaid_now();

	k->helpers->inflight = false;
	if (code == 0 || code == KAI_EEXIST) {
		if (code == 0)
			kai_log_info("created configmap \"%s\" (the job "
			    "wrapper and shims)", k->helpers->name);
		k->helpers->next = now + HELPERS_RECHECK_S;
		return;
	}
	if (code != KAI_EAGAIN)
		kai_log_warn("%s; job pods wait for it", kai_err_msg(err));
	k->helpers->next = now + HELPERS_RETRY_S;
}

void
helpers_ensure(struct kaid *k, int64_t now)
{
	const char *kv[2 * KAI_NELEM(files)], *bin[2];
	size_t i;

	if (k->conf->pod_helpers != KAI_CONF_HELPERS_CONFIGMAP ||
	    k->helpers->inflight || now < k->helpers->next)
		return;
	for (i = 0; i < KAI_NELEM(files); i++) {
		kv[2 * i] = files[i][0];
		kv[2 * i + 1] = files[i][1];
	}
	bin[0] = KAISTEP_KEY;
	bin[1] = k->helpers->kaistep_b64;
	k->helpers->inflight = true;
	kai_kube_configmap_create(k->kube, k->helpers->name, kv,
	    KAI_NELEM(files), bin, bin[1] != NULL ? 1 : 0, on_created, k);
}

/* The items of the pods' volume: key, file pairs, as files[] says,
 * and kaistep.gz last (left out when there is none). */
static const char *const items[] = {
	"wrapper.sh", "wrapper.sh", "signal.sh", "signal.sh",
	"scontrol", "bin/scontrol", "srun", "bin/srun",
	KAISTEP_KEY, KAISTEP_KEY,
};

const char *const *
helpers_items(size_t *n)
{
	*n = KAI_NELEM(items) / 2 - (kaistep_gz_len() > 0 ? 0 : 1);
	return items;
}
