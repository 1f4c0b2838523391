/* support.h — the few helpers both sides (compiler, runtime, fatbin tools) need; depends on nothing. */
#ifndef P2N_ABI_SUPPORT_H
#define P2N_ABI_SUPPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* CLOCK_MONOTONIC, in seconds / in nanoseconds */
double p2n_now_s(void);
uint64_t p2n_now_ns(void);

/* The whole file at `path` (any readable file: regular, pipe, /proc, ...) in *data, malloc'd, NUL-terminated one
 * byte past *size (text can be used as a C string). Returns 0, or an errno value (ENOENT, EACCES, ... from open;
 * ENOMEM; the read error) and leaves *data / *size alone. Callers keep their own messages. */
int p2n_read_file(const char *path, uint8_t **data, size_t *size);

/* All n bytes to / from a file descriptor, retrying after EINTR and short transfers. False on an error or (read)
 * at end of file before n bytes; errno says which error. */
bool p2n_write_all(int fd, const void *data, size_t n);
bool p2n_read_all(int fd, void *data, size_t n);

/* x rounded up to a multiple of a (a == 0: x itself) */
static inline uint64_t p2n_align_up(uint64_t x, uint64_t a) { return a ? (x + a - 1) / a * a : x; }

#endif
