/* fb_internal.h — helpers shared by the fatbin library sources (not installed). */
#ifndef P2N_FB_INTERNAL_H
#define P2N_FB_INTERNAL_H

#include "p2n_fatbin.h"

#include <stdint.h>
#include <string.h>
#include "support.h"

static inline uint16_t rd16(const void *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static inline uint32_t rd32(const void *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static inline uint64_t rd64(const void *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static inline void wr16(void *p, uint16_t v) { memcpy(p, &v, 2); }
static inline void wr32(void *p, uint32_t v) { memcpy(p, &v, 4); }
static inline void wr64(void *p, uint64_t v) { memcpy(p, &v, 8); }

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "ptx2native-fatbin reads little-endian data with memcpy; add byte swapping for big-endian hosts"
#endif

void fb_err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
