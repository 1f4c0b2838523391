/* link.h — what link.c (cuLink*) and module.c share: compiling several PTX texts linked into one module. */
#ifndef P2N_DRV_LINK_H
#define P2N_DRV_LINK_H

#include "internal.h"
#include "p2n_fatbin.h"
#include "ptx2native.h"

/* cuLinkComplete's image: this magic, the native code's size (u64), then the code object for this process's
 * backend. cuModuleLoadData and friends recognise it and hand the code on unchanged. */
#define P2N_LINKED_MAGIC "P2NLINKD"

/* Compiles n PTX texts linked into one (p2n_compile_linked) with the JIT options of cuLinkCreate (error and
 * info logs written there); on success *image is a malloc'd P2N_LINKED_MAGIC image. Link and compile errors
 * in the PTX: CUDA_ERROR_INVALID_SOURCE (NVIDIA's answer to a multiple definition or an undefined reference;
 * the log says why); NOT_SUPPORTED when the target cannot compile valid PTX. */
P2N_DRV_HIDDEN CUresult p2n_drv_link_ptx(const p2n_input *in, unsigned n, unsigned nopt, CUjit_option *opts,
                                         void **vals, uint8_t **image, size_t *size);
/* Writes `error_text` into the error log buffer named by JIT options (if any). */
P2N_DRV_HIDDEN CUresult p2n_drv_jit_log(unsigned nopt, CUjit_option *opts, void **vals, const char *error_text);
/* The PTX the device would use from a fatbin container (malloc'd, NUL-terminated), its name for diagnostics
 * ("WHAT:sm_80.ptx"); no PTX: CUDA_ERROR_NO_BINARY_FOR_GPU and a malloc'd *log naming `what` and its entries. */
P2N_DRV_HIDDEN CUresult p2n_drv_container_ptx(const p2n_fb_container *c, const char *what, char **ptx, size_t *len,
                                              char *name, size_t name_len, char **log);

#endif
