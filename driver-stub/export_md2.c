/* export_md2.c — MD2 (RFC 1319, with its published erratum: the checksum byte is XORed, not assigned) and
 * HMAC-MD2 (RFC 2104; B = 16, MD2's block size). Written from the RFC text; used only for cudart's
 * integrity check, never for security. */
#include "export_md2.h"

#include <string.h>

/* RFC 1319 §3.2: the permutation of 0..255 "constructed from the digits of pi" */
static const uint8_t pi_subst[256] = {
    41, 46, 67, 201, 162, 216, 124, 1, 61, 54, 84, 161, 236, 240, 6, 19,
    98, 167, 5, 243, 192, 199, 115, 140, 152, 147, 43, 217, 188, 76, 130, 202,
    30, 155, 87, 60, 253, 212, 224, 22, 103, 66, 111, 24, 138, 23, 229, 18,
    190, 78, 196, 214, 218, 158, 222, 73, 160, 251, 245, 142, 187, 47, 238, 122,
    169, 104, 121, 145, 21, 178, 7, 63, 148, 194, 16, 137, 11, 34, 95, 33,
    128, 127, 93, 154, 90, 144, 50, 39, 53, 62, 204, 231, 191, 247, 151, 3,
    255, 25, 48, 179, 72, 165, 181, 209, 215, 94, 146, 42, 172, 86, 170, 198,
    79, 184, 56, 210, 150, 164, 125, 182, 118, 252, 107, 226, 156, 116, 4, 241,
    69, 157, 112, 89, 100, 113, 135, 32, 134, 91, 207, 101, 230, 45, 168, 2,
    27, 96, 37, 173, 174, 176, 185, 246, 28, 70, 97, 105, 52, 64, 126, 15,
    85, 71, 163, 35, 221, 81, 175, 58, 195, 92, 249, 206, 186, 197, 234, 38,
    44, 83, 13, 110, 133, 40, 132, 9, 211, 223, 205, 244, 65, 129, 77, 82,
    106, 220, 55, 200, 108, 193, 171, 250, 36, 225, 123, 8, 12, 189, 177, 74,
    120, 136, 149, 139, 227, 99, 232, 109, 233, 203, 213, 254, 59, 0, 29, 57,
    242, 239, 183, 14, 102, 88, 208, 228, 166, 119, 114, 248, 235, 117, 75, 10,
    49, 68, 80, 180, 143, 237, 31, 26, 219, 153, 141, 51, 159, 17, 131, 20,
};

/* §3.4 (18 rounds over the 48-byte state) and §3.2 (checksum) for one 16-byte block */
static void block(p2n_md2_ctx *h, const uint8_t m[16])
{
    uint8_t l = h->sum[15];
    for (int j = 0; j < 16; j++) {
        h->sum[j] ^= pi_subst[m[j] ^ l];
        l = h->sum[j];
    }
    for (int j = 0; j < 16; j++) {
        h->x[16 + j] = m[j];
        h->x[32 + j] = (uint8_t)(m[j] ^ h->x[j]);
    }
    uint8_t t = 0;
    for (int round = 0; round < 18; round++) {
        for (int k = 0; k < 48; k++)
            t = h->x[k] ^= pi_subst[t];
        t = (uint8_t)(t + round);
    }
}

void p2n_md2_init(p2n_md2_ctx *h)
{
    memset(h, 0, sizeof *h);
}

void p2n_md2_update(p2n_md2_ctx *h, const void *data, size_t len)
{
    const uint8_t *p = data;
    while (len > 0) {
        size_t take = 16 - h->n < len ? 16 - h->n : len;
        memcpy(h->buf + h->n, p, take);
        h->n += take;
        p += take;
        len -= take;
        if (h->n == 16) {
            block(h, h->buf);
            h->n = 0;
        }
    }
}

void p2n_md2_final(p2n_md2_ctx *h, uint8_t out[16])
{
    /* §3.1: pad with i bytes of value i, 1 <= i <= 16 (a full block when already aligned) */
    uint8_t pad = (uint8_t)(16 - h->n);
    memset(h->buf + h->n, pad, pad);
    block(h, h->buf);
    /* §3.2: the checksum is the last block; the checksum update it causes is irrelevant */
    uint8_t sum[16];
    memcpy(sum, h->sum, 16);
    block(h, sum);
    memcpy(out, h->x, 16);
}

void p2n_md2(const void *data, size_t len, uint8_t out[16])
{
    p2n_md2_ctx h;
    p2n_md2_init(&h);
    p2n_md2_update(&h, data, len);
    p2n_md2_final(&h, out);
}

void p2n_hmac_md2(const uint8_t *key, size_t key_len, const void *msg, size_t len, uint8_t out[16])
{
    uint8_t k[16] = {0}, pad[16], inner[16];
    if (key_len > 16)
        p2n_md2(key, key_len, k);   /* RFC 2104 §2: longer keys are hashed first */
    else
        memcpy(k, key, key_len);
    p2n_md2_ctx h;
    for (int i = 0; i < 16; i++)
        pad[i] = k[i] ^ 0x36;
    p2n_md2_init(&h);
    p2n_md2_update(&h, pad, 16);
    p2n_md2_update(&h, msg, len);
    p2n_md2_final(&h, inner);
    for (int i = 0; i < 16; i++)
        pad[i] = k[i] ^ 0x5c;
    p2n_md2_init(&h);
    p2n_md2_update(&h, pad, 16);
    p2n_md2_update(&h, inner, 16);
    p2n_md2_final(&h, out);
}
