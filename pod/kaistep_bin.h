/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kaistep_bin.h: the in-pod clients (pod/kaistep), gzip'd, as kaid
 * ships them in the helpers ConfigMap.  kaistep_gz_len() is 0 when
 * kaistep was not built.
 */
#ifndef KAI_POD_KAISTEP_BIN_H
#define KAI_POD_KAISTEP_BIN_H

#include <stddef.h>

extern const unsigned char kaistep_gz[];
extern const unsigned char kaistep_gz_end[];
size_t kaistep_gz_len(void);

#endif /* KAI_POD_KAISTEP_BIN_H */
