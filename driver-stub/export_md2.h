/* export_md2.h — MD2 (RFC 1319) and HMAC-MD2 (RFC 2104 with MD2's 16-byte block), the primitives of the
 * export-table integrity check (export_integrity.c). Pure functions, no driver state: the unit test
 * (tests/driver/test_export_md2.c) compiles export_md2.c on its own. */
#ifndef P2N_EXPORT_MD2_H
#define P2N_EXPORT_MD2_H

#include <stddef.h>
#include <stdint.h>

typedef struct p2n_md2 {
    uint8_t x[48];        /* the 48-byte state; bytes 0..15 are the digest */
    uint8_t sum[16];      /* running checksum */
    uint8_t buf[16];      /* partial block */
    size_t n;             /* bytes in buf */
} p2n_md2_ctx;

void p2n_md2_init(p2n_md2_ctx *h);
void p2n_md2_update(p2n_md2_ctx *h, const void *data, size_t len);
void p2n_md2_final(p2n_md2_ctx *h, uint8_t out[16]);
void p2n_md2(const void *data, size_t len, uint8_t out[16]);
void p2n_hmac_md2(const uint8_t *key, size_t key_len, const void *msg, size_t len, uint8_t out[16]);

#endif
