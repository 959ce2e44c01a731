/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fuzz-kube-watch.c: a watch stream (one JSON event a line, split
 * anywhere by the network) and a list page, through kube_watch.c's test
 * seam.  The first byte says how: its high bit picks the node watch
 * (else the pod watch), the low seven bits are the size of the pieces the
 * stream is fed in (0: all at once).  The rest is the stream, and also
 * the list page.  Stream and page go to a KAI Queue watch as well
 * (kube_queue.c's conversion).
 */
#include "config.h"

#include <stdlib.h>

#include "fuzz.h"
#include "kube/kube_int.h"

/* Touch what a callback would read, so that ASan sees a bad object. */
static void
on_pod(enum kai_kube_event ev, const struct kai_pod *pod, void *ctx)
{
	size_t *n = ctx;

	if (pod != NULL && pod->name != NULL)
		*n += (size_t)ev + (size_t)pod->name[0];
}

static void
on_node(enum kai_kube_event ev, const struct kai_node *node, void *ctx)
{
	size_t *n = ctx;

	if (node != NULL && node->name != NULL)
		*n += (size_t)ev + (size_t)node->name[0];
}

static void
on_queue(enum kai_kube_event ev, const struct kai_kube_queue *q, void *ctx)
{
	size_t *n = ctx;

	if (q != NULL)
		*n += (size_t)ev + (size_t)q->name[0] +
		    (q->error != NULL ? (size_t)q->error[0] :
		    (size_t)q->q.res[0].quota);
}

static struct kube_watch *
watch(int nodes, size_t *seen)
{
	return nodes ? kube_watch_test_new_nodes(on_node, seen) :
		       kube_watch_test_new(on_pod, seen);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kube_watch *w;
	struct kai_err err;
	size_t step, off, k, seen = 0;
	int nodes;
	char *list;

	if (size < 1)
		return 0;
	nodes = data[0] & 0x80;
	step = (data[0] & 0x7f) == 0 ? size : (size_t)(data[0] & 0x7f);
	data++;
	size--;
	w = watch(nodes, &seen);
	for (off = 0; off < size; off += k) {
		k = size - off < step ? size - off : step;
		if (kube_watch_test_feed(w, (const char *)data + off, k) != 0)
			break;
	}
	(void)kube_watch_test_end(w);
	(void)kube_watch_test_rv(w);
	kube_watch_free(w);

	list = fuzz_strdup(data, size);
	w = watch(nodes, &seen);
	(void)!kube_watch_test_list(w, list, &err);
	kube_watch_free(w);
	w = kube_watch_test_new_queues(on_queue, &seen);
	(void)!kube_watch_test_list(w, list, &err);
	(void)kube_watch_test_feed(w, (const char *)data, size);
	kube_watch_free(w);
	free(list);
	return 0;
}
