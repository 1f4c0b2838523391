/* exports.c — cuGetExportTable: the driver's private ("dark API") tables that cudart needs.
 *
 * cudart 13 asks for seven tables by UUID (/work/shared/docs/cudart-driver.md §3); this file holds their
 * layouts. Every table is a static const array, so it is handed out at one address for the life of the
 * process: cudart hashes the CUDART_INTERFACE and INTEGRITY_CHECK addresses (export_integrity.c) and compares.
 * Slot 0 is the table's size in bytes where NVIDIA's table has one (all but CONTEXT_LOCAL_STORAGE). Slots
 * that cudart 13 was never seen calling point to a stub that answers CUDA_ERROR_NOT_SUPPORTED and says once
 * on stderr which table and slot was called, so a future cudart that needs more is diagnosed, not a crash.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "exports.h"

static CUresult unsupported(atomic_flag *said, const char *table, int slot)
{
    if (!atomic_flag_test_and_set(said))
        fprintf(stderr, "ptx2native libcuda: export table %s slot %d called: not implemented\n", table, slot);
    return CUDA_ERROR_NOT_SUPPORTED;
}

/* A stub per unimplemented slot (arguments, whatever they are, are ignored: the SysV ABI lets a callee
 * declared without parameters be called with any). NSQ: a slot cudart 13 was seen calling that tolerates the
 * refusal (the program goes on and gives right results): said only with P2N_VERBOSE. */
#define NS(tab, n) \
    static CUresult ns_##tab##_##n(void) \
    { \
        static atomic_flag said = ATOMIC_FLAG_INIT; \
        return unsupported(&said, #tab, n); \
    }
#define NSQ(tab, n) \
    static CUresult ns_##tab##_##n(void) \
    { \
        static atomic_flag said = ATOMIC_FLAG_INIT; \
        if (!p2n_drv_verbose()) \
            return CUDA_ERROR_NOT_SUPPORTED; \
        return unsupported(&said, #tab, n); \
    }
#define FN(f) {.fn = (p2n_export_fn)(f)}

/* ---- f8cff951…: never called; present as NVIDIA's is (2 slots) ---- */
NS(F8CFF951, 1) NS(F8CFF951, 2)
static const p2n_export_slot table_f8cff951[] = {{.size = 0x18}, FN(ns_F8CFF951_1), FN(ns_F8CFF951_2)};

/* ---- 6bd5fb6c… CUDART_INTERFACE: [2] = a device's primary context, before it is retained ---- */
static CUresult cudart_primary_ctx(CUcontext *out, CUdevice dev)
{
    CUresult r = p2n_drv_check_device(dev);
    if (r != CUDA_SUCCESS)
        return r;
    if (!out)
        return CUDA_ERROR_INVALID_VALUE;
    /* the same stable handle cuDevicePrimaryCtxRetain returns; cuCtxSetCurrent accepts it before retain */
    *out = (CUcontext)&p2n_drv.primary[dev];
    return CUDA_SUCCESS;
}
NS(CUDART_INTERFACE, 1) NS(CUDART_INTERFACE, 3) NS(CUDART_INTERFACE, 4) NS(CUDART_INTERFACE, 5)
NS(CUDART_INTERFACE, 6) NS(CUDART_INTERFACE, 7) NS(CUDART_INTERFACE, 8) NS(CUDART_INTERFACE, 9)
NS(CUDART_INTERFACE, 11) NS(CUDART_INTERFACE, 12)
static const p2n_export_slot table_cudart_interface[] = {
    {.size = 0x68}, FN(ns_CUDART_INTERFACE_1), FN(cudart_primary_ctx), FN(ns_CUDART_INTERFACE_3),
    FN(ns_CUDART_INTERFACE_4), FN(ns_CUDART_INTERFACE_5), FN(ns_CUDART_INTERFACE_6), FN(ns_CUDART_INTERFACE_7),
    FN(ns_CUDART_INTERFACE_8), FN(ns_CUDART_INTERFACE_9), {.fn = NULL}, FN(ns_CUDART_INTERFACE_11),
    FN(ns_CUDART_INTERFACE_12)};

/* ---- a094798c… TOOLS_RUNTIME_CALLBACK_HOOKS: [2] and [6] hand cudart driver-owned buffers (0x400 and 0xe
 * bytes) through which tools would hook the runtime; zeroed = no tool attached ---- */
static _Alignas(16) unsigned char hooks_buf2[0x400], hooks_buf6[0xe];
static void *hooks_buffer2(void **p, size_t *n)
{
    if (p)
        *p = hooks_buf2;
    if (n)
        *n = sizeof hooks_buf2;
    return hooks_buf2;
}
static void *hooks_buffer6(void **p, size_t *n)
{
    if (p)
        *p = hooks_buf6;
    if (n)
        *n = sizeof hooks_buf6;
    return hooks_buf6;
}
/* [1] and [4] are called (then TOOLS_TLS [2]) when a graph memory free node is added behind a kernel node
 * (cudaGraphAddMemFreeNode; NVIDIA's graphMemoryNodes sample, tests/programs/graph_memory.cu): refused, the
 * program goes on and its results are right */
NSQ(TOOLS_RUNTIME_CALLBACK_HOOKS, 1) NS(TOOLS_RUNTIME_CALLBACK_HOOKS, 3) NSQ(TOOLS_RUNTIME_CALLBACK_HOOKS, 4)
NS(TOOLS_RUNTIME_CALLBACK_HOOKS, 5)
static const p2n_export_slot table_tools_hooks[] = {
    {.size = 0x38}, FN(ns_TOOLS_RUNTIME_CALLBACK_HOOKS_1), FN(hooks_buffer2), FN(ns_TOOLS_RUNTIME_CALLBACK_HOOKS_3),
    FN(ns_TOOLS_RUNTIME_CALLBACK_HOOKS_4), FN(ns_TOOLS_RUNTIME_CALLBACK_HOOKS_5), FN(hooks_buffer6)};

/* ---- 42d85a81… TOOLS_TLS: must exist; [2] is called with TOOLS_RUNTIME_CALLBACK_HOOKS [1] and [4] above ---- */
NS(TOOLS_TLS, 1) NSQ(TOOLS_TLS, 2)
static const p2n_export_slot table_tools_tls[] = {{.size = 0x18}, FN(ns_TOOLS_TLS_1), FN(ns_TOOLS_TLS_2)};

/* ---- c693336e… CONTEXT_LOCAL_STORAGE_INTERFACE_V0301: no size slot; put, delete, get, then NULL ---- */
static const p2n_export_slot table_ctx_storage[] = {
    FN(p2n_drv_cls_put), FN(p2n_drv_cls_delete), FN(p2n_drv_cls_get), {.fn = NULL}};

/* ---- 263e8860… CONTEXT_CHECKS: [2](ctx, u32 *out, void **) -> 0 with *out = 0 at context bring-up and
 * synchronisation; [3](key, 0x40, 0, p, p, 0x50) -> 0 once at init (argument meaning not established) ---- */
static CUresult checks_ctx(CUcontext ctx, uint32_t *out1, void **out2)
{
    (void)ctx;
    (void)out2;   /* NVIDIA's value here was not established; left as cudart set it */
    if (out1)
        *out1 = 0;
    return CUDA_SUCCESS;
}
static CUresult checks_init(void *key, uint64_t a, uint64_t b, void *p, void *q, uint64_t c)
{
    (void)key, (void)a, (void)b, (void)p, (void)q, (void)c;
    return CUDA_SUCCESS;
}
NS(CONTEXT_CHECKS, 1) NS(CONTEXT_CHECKS, 4) NS(CONTEXT_CHECKS, 5) NS(CONTEXT_CHECKS, 6) NS(CONTEXT_CHECKS, 7)
NS(CONTEXT_CHECKS, 8) NS(CONTEXT_CHECKS, 9) NS(CONTEXT_CHECKS, 10) NS(CONTEXT_CHECKS, 11) NS(CONTEXT_CHECKS, 12)
NS(CONTEXT_CHECKS, 13) NS(CONTEXT_CHECKS, 14)
static const p2n_export_slot table_ctx_checks[] = {
    {.size = 0x78}, FN(ns_CONTEXT_CHECKS_1), FN(checks_ctx), FN(checks_init), FN(ns_CONTEXT_CHECKS_4),
    FN(ns_CONTEXT_CHECKS_5), FN(ns_CONTEXT_CHECKS_6), FN(ns_CONTEXT_CHECKS_7), FN(ns_CONTEXT_CHECKS_8),
    FN(ns_CONTEXT_CHECKS_9), FN(ns_CONTEXT_CHECKS_10), FN(ns_CONTEXT_CHECKS_11), FN(ns_CONTEXT_CHECKS_12),
    FN(ns_CONTEXT_CHECKS_13), FN(ns_CONTEXT_CHECKS_14)};

/* ---- d4082055… INTEGRITY_CHECK: [1] = export_integrity.c's hash over this file's two tables ---- */
NS(INTEGRITY_CHECK, 2)
static const p2n_export_slot table_integrity[3];

static CUresult integrity_check(uint32_t version, uint64_t unix_seconds, uint64_t out[2])
{
    return p2n_drv_integrity_hash(version, unix_seconds, out, table_cudart_interface, table_integrity);
}

static const p2n_export_slot table_integrity[3] = {
    {.size = 0x18}, FN(integrity_check), FN(ns_INTEGRITY_CHECK_2)};

typedef struct export_row {
    const char *label;
    unsigned char uuid[16];
    const p2n_export_slot *table;
} export_row;

static const export_row export_tables[] = {
    {"unnamed (not needed)", {0xf8, 0xcf, 0xf9, 0x51, 0x21, 0x46, 0x8b, 0x4e, 0xb9, 0xe2, 0xfb, 0x46, 0x9e, 0x7c, 0x0d, 0xd9}, table_f8cff951},
    {"CUDART_INTERFACE", {0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a, 0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d, 0xf9}, table_cudart_interface},
    {"TOOLS_RUNTIME_CALLBACK_HOOKS", {0xa0, 0x94, 0x79, 0x8c, 0x2e, 0x74, 0x2e, 0x74, 0x93, 0xf2, 0x08, 0x00, 0x20, 0x0c, 0x0a, 0x66}, table_tools_hooks},
    {"TOOLS_TLS", {0x42, 0xd8, 0x5a, 0x81, 0x23, 0xf6, 0xcb, 0x47, 0x82, 0x98, 0xf6, 0xe7, 0x8a, 0x3a, 0xec, 0xdc}, table_tools_tls},
    {"CONTEXT_LOCAL_STORAGE_INTERFACE_V0301", {0xc6, 0x93, 0x33, 0x6e, 0x11, 0x21, 0xdf, 0x11, 0xa8, 0xc3, 0x68, 0xf3, 0x55, 0xd8, 0x95, 0x93}, table_ctx_storage},
    {"CONTEXT_CHECKS", {0x26, 0x3e, 0x88, 0x60, 0x7c, 0xd2, 0x61, 0x43, 0x92, 0xf6, 0xbb, 0xd5, 0x00, 0x6d, 0xfa, 0x7e}, table_ctx_checks},
    {"INTEGRITY_CHECK", {0xd4, 0x08, 0x20, 0x55, 0xbd, 0xe6, 0x70, 0x4b, 0x8d, 0x34, 0xba, 0x12, 0x3c, 0x66, 0xe1, 0xf2}, table_integrity},
};

CUresult cuGetExportTable(const void **ppExportTable, const CUuuid *pExportTableId)
{
    if (!ppExportTable || !pExportTableId)
        return CUDA_ERROR_INVALID_VALUE;
    *ppExportTable = NULL;
    for (size_t i = 0; i < sizeof export_tables / sizeof export_tables[0]; i++)
        if (memcmp(export_tables[i].uuid, pExportTableId->bytes, 16) == 0) {
            *ppExportTable = export_tables[i].table;
            if (p2n_drv_verbose())
                fprintf(stderr, "ptx2native libcuda: export table %s at %p\n", export_tables[i].label,
                        (const void *)export_tables[i].table);
            return CUDA_SUCCESS;
        }
    return CUDA_ERROR_INVALID_VALUE;   /* NVIDIA's answer for an unknown UUID */
}
