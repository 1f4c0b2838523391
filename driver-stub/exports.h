/* exports.h — the private export tables handed out by cuGetExportTable (exports.c) and their helpers.
 * Facts behind every slot: /work/shared/docs/cudart-driver.md §2–§4 (measured against NVIDIA's driver 580). */
#ifndef P2N_DRIVER_EXPORTS_H
#define P2N_DRIVER_EXPORTS_H

#include <stdint.h>

#include "internal.h"

/* One slot of a table: the first slot of most tables is the table's size in bytes, the rest are functions.
 * A union keeps function pointers out of data-pointer casts. */
typedef void (*p2n_export_fn)(void);
typedef union p2n_export_slot {
    uintptr_t size;
    p2n_export_fn fn;
} p2n_export_slot;

/* export_integrity.c: INTEGRITY_CHECK slot 1 (exports.c's slot function passes the two tables the hash covers:
 * CUDART_INTERFACE and INTEGRITY_CHECK itself, whose slot 1 is hashed too; stable for the life of the process) */
P2N_DRV_HIDDEN CUresult p2n_drv_integrity_hash(uint32_t version, uint64_t unix_seconds, uint64_t out[2],
                                               const p2n_export_slot *iface, const p2n_export_slot *itab);

/* export_ctx_storage.c: CONTEXT_LOCAL_STORAGE slots 0..2 (a context that dies drops its entries, calling each
 * entry's destructor: its P2N_CTX_RELEASE_CLS hook) */
P2N_DRV_HIDDEN CUresult p2n_drv_cls_put(CUcontext ctx, void *key, void *value, void *dtor);
P2N_DRV_HIDDEN CUresult p2n_drv_cls_delete(CUcontext ctx, void *key);
P2N_DRV_HIDDEN CUresult p2n_drv_cls_get(void **value, CUcontext ctx, void *key);

#endif
