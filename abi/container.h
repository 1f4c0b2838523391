/* container.h — the multi-target code container P2NCODE1 (docs/native-container.md): writer and a reader
 * that checks every offset, for the CLI, the fatbin tool and the driver stub. */
#ifndef P2N_CONTAINER_H
#define P2N_CONTAINER_H

#include <stddef.h>
#include <stdint.h>

enum { P2N_CODE_HOST_ELF = 1, P2N_CODE_AMDGPU_HSACO = 2, P2N_CODE_SPIRV = 3 };

typedef struct p2n_container_entry {
    char target[24];           /* NUL-terminated */
    uint32_t kind;
    const uint8_t *code;
    uint64_t code_size;
    const char *meta;          /* not NUL-terminated */
    uint64_t meta_size;
} p2n_container_entry;

#define P2N_CONTAINER_MAGIC "P2NCODE1"

/* Serialises entries into one malloc'd buffer. Returns NULL on bad arguments (target name too long). */
uint8_t *p2n_container_write(const p2n_container_entry *entries, unsigned n, size_t *size_out);

/* Parses a container in place (entries point into `data`). Returns the entry count, or -1 with a message in
 * `err` (size errlen) naming what is wrong and at which offset. `max` bounds the entries written to `out`. */
int p2n_container_read(const uint8_t *data, size_t size, p2n_container_entry *out, unsigned max, char *err,
                       size_t errlen);

/* Whether a buffer starts like a container. */
int p2n_container_is(const void *data, size_t size);

#endif
