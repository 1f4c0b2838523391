/* native_lookup.h — ahead-of-time native code from `.p2n_native` sections (docs/fatbin-native-section.md). */
#ifndef P2N_DRV_NATIVE_LOOKUP_H
#define P2N_DRV_NATIVE_LOOKUP_H

#include <stddef.h>
#include <stdint.h>

/* Native code for the fatbin container at `container` (`size` bytes: headerSize + fatSize) and the target
 * `target` ("host", "spirv64", "gfx942"): looks in the `.p2n_native` section of the loaded ELF object whose
 * segments hold the container. Returns 1 with a malloc'd copy in *out; 0 when there is none, with the reason
 * in `why` (one line, no newline). Thread-safe; each object's file is opened and checked once per process. */
__attribute__((visibility("hidden"))) int p2n_drv_native_code(const void *container, size_t size, const char *target,
                                                              uint8_t **out, size_t *len, char *why, size_t why_len);

/* $P2N_REQUIRE_NATIVE=1: every JIT compilation of PTX at module load is an error instead (deployments that
 * must never compile at run time). */
__attribute__((visibility("hidden"))) int p2n_drv_require_native(void);

#endif
