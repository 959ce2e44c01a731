/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fuzz-kube-watch.c: the pod watch stream (one JSON event a line, split
 * anywhere by the network) and a pod list page, through kube_watch.c's
 * test seam.  The first byte is the size of the pieces the stream is
 * fed in (0: all at once); the rest is the stream, and also the list.
 */
#include "config.h"

#include <stdlib.h>

#include "fuzz.h"
#include "kube/kube_int.h"

static void
on_pod(enum kai_kube_event ev, const struct kai_pod *pod, void *ctx)
{
	size_t *n = ctx;

	/* Touch what a callback would read, so ASan sees a bad pod. */
	if (pod != NULL && pod->name != NULL)
		*n += (size_t)ev + (size_t)pod->name[0];
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kube_watch *w;
	struct kai_err err;
	size_t step, off, k, seen = 0;
	char *list;

	if (size < 1)
		return 0;
	step = data[0] == 0 ? size : data[0];
	data++;
	size--;
	w = kube_watch_test_new(on_pod, &seen);
	for (off = 0; off < size; off += k) {
		k = size - off < step ? size - off : step;
		if (kube_watch_test_feed(w, (const char *)data + off, k) != 0)
			break;
	}
	(void)kube_watch_test_end(w);
	(void)kube_watch_test_rv(w);
	kube_watch_free(w);

	list = fuzz_strdup(data, size);
	w = kube_watch_test_new(on_pod, &seen);
	(void)!kube_watch_test_list(w, list, &err);
	kube_watch_free(w);
	free(list);
	return 0;
}
