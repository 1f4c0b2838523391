/* jit_cache.h — the on-disk cache of JIT compilations (as NVIDIA's CUDA_CACHE_PATH): a program whose binaries
 * carry only PTX compiles each module once per machine, not once per run.
 *
 * Key: P2H128 over the compiler's build id, every p2n_options field that can change the output, each input's
 * file name and PTX text, and for code built for this very CPU (host-native) the CPU's identity. Entry: one file
 * per key, `<32 hex digits>.p2nj`, holding a header (magic, key, sizes, a P2H128 checksum of the payload), the
 * code and the compiler's diagnostics (warnings are replayed on a hit). Written to a temporary file in the same
 * directory and renamed into place, so processes filling the cache at once never see half an entry; a damaged
 * entry (short, wrong magic/key, checksum mismatch) is deleted and the module recompiled, never loaded.
 * Size limit with least-recently-used eviction: a hit touches the entry's mtime; a store that takes the
 * directory over the limit deletes the oldest entries until it is under 90 % of it.
 *
 * Environment: $P2N_CACHE_PATH (default $XDG_CACHE_HOME/ptx2native/jit, else ~/.cache/ptx2native/jit),
 * $P2N_CACHE_MAXSIZE (bytes, suffix K/M/G allowed; default 1 GiB; 0 disables), $P2N_CACHE_DISABLE=1.
 * Only successful compilations are stored. A cache that cannot be used (no directory, read-only) is skipped;
 * P2N_VERBOSE=1 says why. */
#ifndef P2N_JIT_CACHE_H
#define P2N_JIT_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ptx2native.h"

typedef struct p2n_jit_key {
    uint64_t lo, hi;
} p2n_jit_key;

/* The key of compiling these inputs (linked or alone) with these options. */
p2n_jit_key p2n_jit_cache_key(const p2n_input *in, unsigned n, int link, const p2n_options *opt);

/* true: *image (size *size) and *log (NUL-terminated, possibly empty) are malloc'd copies of the entry. */
bool p2n_jit_cache_lookup(p2n_jit_key key, uint8_t **image, size_t *size, char **log);

/* Stores a successful compilation; failures to write are silent (verbose: said). */
void p2n_jit_cache_store(p2n_jit_key key, const uint8_t *image, size_t size, const char *log);

#endif
