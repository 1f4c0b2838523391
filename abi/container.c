/* container.c — P2NCODE1 writer and checking reader. */
#include "container.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEADER_SIZE 24u
#define ENTRY_SIZE 64u

static void put32(uint8_t *p, uint32_t v) { for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i)); }
static void put64(uint8_t *p, uint64_t v) { for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i)); }
static uint32_t get32(const uint8_t *p) { uint32_t v = 0; for (int i = 3; i >= 0; i--) v = v << 8 | p[i]; return v; }
static uint64_t get64(const uint8_t *p) { uint64_t v = 0; for (int i = 7; i >= 0; i--) v = v << 8 | p[i]; return v; }
static uint64_t align16(uint64_t v) { return (v + 15) & ~(uint64_t)15; }

int p2n_container_is(const void *data, size_t size) {
    return size >= HEADER_SIZE && memcmp(data, P2N_CONTAINER_MAGIC, 8) == 0;
}

uint8_t *p2n_container_write(const p2n_container_entry *e, unsigned n, size_t *size_out) {
    uint64_t size = align16(HEADER_SIZE + (uint64_t)ENTRY_SIZE * n);
    for (unsigned i = 0; i < n; i++) {
        if (strnlen(e[i].target, sizeof e[i].target) >= sizeof e[i].target) return NULL;
        size = align16(size + e[i].code_size);
        size = align16(size + e[i].meta_size);
    }
    uint8_t *buf = calloc(1, size ? size : 1);
    if (!buf) return NULL;
    memcpy(buf, P2N_CONTAINER_MAGIC, 8);
    put32(buf + 8, 1);
    put32(buf + 12, n);
    put64(buf + 16, size);
    uint64_t at = align16(HEADER_SIZE + (uint64_t)ENTRY_SIZE * n);
    for (unsigned i = 0; i < n; i++) {
        uint8_t *ent = buf + HEADER_SIZE + (size_t)ENTRY_SIZE * i;
        memcpy(ent, e[i].target, strlen(e[i].target));
        put32(ent + 24, e[i].kind);
        put64(ent + 32, at);
        put64(ent + 40, e[i].code_size);
        if (e[i].code_size) memcpy(buf + at, e[i].code, e[i].code_size);
        at = align16(at + e[i].code_size);
        put64(ent + 48, at);
        put64(ent + 56, e[i].meta_size);
        if (e[i].meta_size) memcpy(buf + at, e[i].meta, e[i].meta_size);
        at = align16(at + e[i].meta_size);
    }
    *size_out = (size_t)size;
    return buf;
}

int p2n_container_read(const uint8_t *d, size_t size, p2n_container_entry *out, unsigned max, char *err,
                       size_t errlen) {
    if (!p2n_container_is(d, size)) { snprintf(err, errlen, "not a ptx2native code container (bad magic)"); return -1; }
    uint32_t version = get32(d + 8), n = get32(d + 12);
    uint64_t total = get64(d + 16);
    if (version != 1) { snprintf(err, errlen, "container version %u is not supported (expected 1)", version); return -1; }
    if (total > size) {
        snprintf(err, errlen, "container is truncated: header says %llu bytes, %zu available",
                 (unsigned long long)total, size);
        return -1;
    }
    if (n > (total - HEADER_SIZE) / ENTRY_SIZE) { snprintf(err, errlen, "entry count %u does not fit the container", n); return -1; }
    for (uint32_t i = 0; i < n && i < max; i++) {
        const uint8_t *ent = d + HEADER_SIZE + (size_t)ENTRY_SIZE * i;
        p2n_container_entry *o = &out[i];
        memcpy(o->target, ent, 24);
        if (memchr(o->target, 0, 24) == NULL) {
            snprintf(err, errlen, "entry %u at offset %u: target name not terminated", i, HEADER_SIZE + ENTRY_SIZE * i);
            return -1;
        }
        o->kind = get32(ent + 24);
        uint64_t co = get64(ent + 32), cs = get64(ent + 40), mo = get64(ent + 48), ms = get64(ent + 56);
        if (o->kind < P2N_CODE_HOST_ELF || o->kind > P2N_CODE_SPIRV) {
            snprintf(err, errlen, "entry %u (%s): unknown code kind %u", i, o->target, o->kind);
            return -1;
        }
        if (co > total || cs > total - co || mo > total || ms > total - mo) {
            snprintf(err, errlen, "entry %u (%s): code or metadata outside the container", i, o->target);
            return -1;
        }
        o->code = d + co;
        o->code_size = cs;
        o->meta = (const char *)(d + mo);
        o->meta_size = ms;
    }
    return (int)n;
}
