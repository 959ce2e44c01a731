/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fuzz-conf.c: kaid.yaml through kai_conf_load() (the table-driven
 * loader, partitions, the scheduler's settings), then the effective
 * configuration as `kaid -n -v` prints it; and the same bytes as a
 * client's kai.yaml.
 */
#include "config.h"

#include <stdlib.h>

#include "conf/conf.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(data, size);
	struct kai_client_conf cc;
	struct kai_conf *conf;
	struct kai_err err;

	if (kai_conf_load(path, &conf, &err) == 0) {
		free(kai_conf_dump(conf));
		kai_conf_free(conf);
	}
	if (kai_client_conf_load(path, &cc, &err) == 0)
		kai_client_conf_fini(&cc);
	return 0;
}
