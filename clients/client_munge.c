/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * client_munge.c: the clients' auth backend, MUNGE (client.h
 * client_cred_new()).  Kept apart from client.c so that a program that
 * must not link libmunge (pod/kaistep) links another backend instead.
 */
#include "config.h"

#include "client.h"

#include "auth/auth.h"

int
client_cred_new(const char *munge_socket,
    const uint8_t digest[KAI_PROTO_DIGEST_LEN], int ttl_s, char **cred,
    struct kai_err *err)
{
	return kai_auth_cred_new(munge_socket, digest, KAI_PROTO_DIGEST_LEN,
	    ttl_s, cred, err);
}
