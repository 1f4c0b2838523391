/* hash.c — P2H128, the 128-bit content hash keying `.p2n_native` (specified in docs/fatbin-native-section.md).
 *
 * Design: two 64-bit lanes. Each 16-byte little-endian block (x, y) goes through a 64x64->128 multiply
 * ("fold": low half XOR high half) with both lanes mixed in, then lane a is rotated/multiplied and lane b
 * accumulates. The tail (< 16 bytes) is zero-padded into a last block; the length enters the initial state
 * and the finaliser. Not cryptographic: it identifies content, it does not authenticate it. */
#include "fb_internal.h"

#include <stdio.h>

#define K0 0x9E3779B97F4A7C15ull
#define K1 0xC2B2AE3D27D4EB4Full
#define K2 0x165667B19E3779F9ull
#define K3 0xD6E8FEB86659FD93ull

static inline uint64_t rotl64(uint64_t v, unsigned r) { return (v << r) | (v >> (64 - r)); }

static inline uint64_t fold(uint64_t a, uint64_t b) {
    __extension__ typedef unsigned __int128 u128;
    u128 r = (u128)a * b;
    return (uint64_t)r ^ (uint64_t)(r >> 64);
}

static inline uint64_t fmix(uint64_t v) {
    v ^= v >> 33;
    v *= K1;
    v ^= v >> 29;
    v *= K2;
    v ^= v >> 32;
    return v;
}

static inline void block(uint64_t *a, uint64_t *b, uint64_t x, uint64_t y) {
    uint64_t m = fold(x ^ *a ^ K2, y ^ *b ^ K3);
    *a = rotl64(*a ^ m, 27) * K0 + y;
    *b = rotl64(*b + m + x, 31) * K1;
}

p2n_hash128 p2n_hash128_bytes(const void *data, size_t len, uint64_t seed) {
    const uint8_t *p = data;
    uint64_t a = seed ^ K0 ^ (uint64_t)len, b = rotl64(seed, 32) ^ K1 ^ ((uint64_t)len * K2);
    size_t n = len;
    while (n >= 16) {
        block(&a, &b, rd64(p), rd64(p + 8));
        p += 16;
        n -= 16;
    }
    uint8_t tail[16] = {0};
    memcpy(tail, p, n);
    block(&a, &b, rd64(tail) ^ (uint64_t)n, rd64(tail + 8));
    p2n_hash128 h;
    h.lo = fmix(a + rotl64(b, 17));
    h.hi = fmix(b ^ rotl64(a, 41) ^ K3);
    return h;
}

void p2n_hash128_hex(p2n_hash128 h, char out[33]) {
    snprintf(out, 33, "%016llx%016llx", (unsigned long long)h.hi, (unsigned long long)h.lo);
}
