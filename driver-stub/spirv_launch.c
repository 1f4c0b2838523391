/* spirv_launch.c — the launch ABI of ptx2native's SPIR-V kernels, shared by the SPIR-V backends (spirv_launch.h). */
#include <string.h>

#include "spirv_launch.h"

void p2n_spv_launch_args(const spirv_kernel_meta *km, const p2n_bk_launch *l, void *rec, void *gbuf,
                         p2n_spv_args *out) {
    const uint8_t *pb = l->params;
    unsigned n = 0;
    for (unsigned i = 0; i < km->nparams; i++)
        out->a[n++] = (p2n_spv_arg){.kind = P2N_SPV_ARG_VALUE, .size = km->sizes[i], .value = pb + km->offs[i]};
    size_t lbytes = (size_t)km->static_smem + l->dynamic_shared_bytes;
    out->a[n++] = (p2n_spv_arg){.kind = P2N_SPV_ARG_LOCAL, .size = lbytes ? lbytes : 16};
    out->dyn = l->dynamic_shared_bytes;
    out->a[n++] = (p2n_spv_arg){.kind = P2N_SPV_ARG_VALUE, .size = 4, .value = &out->dyn};
    if (rec) out->a[n++] = (p2n_spv_arg){.kind = P2N_SPV_ARG_POINTER, .size = sizeof rec, .ptr = rec};
    if (gbuf) out->a[n++] = (p2n_spv_arg){.kind = P2N_SPV_ARG_POINTER, .size = sizeof gbuf, .ptr = gbuf};
    out->n = n;
}

CUresult p2n_spv_record_prepare(void *rec, const p2n_bk_launch *l, void *heap, p2n_spv_copy_fn write) {
    /* %globaltimer's base (spirv_trap.c) */
    uint64_t now = p2n_rec_now_ns();
    CUresult r = write((char *)rec + SPIRV_REC_TIME_OFF, &now, sizeof now);
    /* the launch flags (a cluster launch: targets/llvm/emit_cluster.c) */
    if (r == CUDA_SUCCESS) r = write((char *)rec + SPIRV_REC_LAUNCH_OFF, &l->launch_flags, sizeof l->launch_flags);
    if (r == CUDA_SUCCESS && heap) { /* malloc/free find the heap through the record (spirv_heap.c) */
        uint64_t a = (uint64_t)(uintptr_t)heap;
        r = write((char *)rec + SPIRV_REC_HEAP_OFF, &a, sizeof a);
    }
    return r;
}

CUresult p2n_spv_heap_create(CUresult (*alloc)(size_t size, void **out), void (*release)(void *p),
                             p2n_spv_copy_fn write, void **out, char **err) {
    size_t bytes = p2n_drv_heap_claim();
    void *h;
    if (alloc(SPIRV_HEAP_HDR + bytes, &h) != CUDA_SUCCESS) {
        if (err) *err = p2n_bk_msg("cannot allocate the device heap (%zu bytes)", bytes);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    uint64_t hdr[SPIRV_HEAP_HDR / 8] = {0};
    hdr[SPIRV_HEAP_BUMP / 8] = SPIRV_HEAP_HDR;
    hdr[SPIRV_HEAP_END / 8] = SPIRV_HEAP_HDR + (uint64_t)bytes;
    if (write(h, hdr, sizeof hdr) != CUDA_SUCCESS) {
        release(h);
        if (err) *err = p2n_bk_msg("cannot initialise the device heap");
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *out = h;
    return CUDA_SUCCESS;
}

CUresult p2n_spv_record_check(void *rec, const char *kernel, p2n_spv_copy_fn read, p2n_spv_copy_fn write,
                              p2n_rec_read_fn read_dev, char **err) {
    uint32_t r[P2N_REC_ERR_WORDS];
    if (!rec || read(r, rec, sizeof r) != CUDA_SUCCESS || !r[0]) return CUDA_SUCCESS;
    uint32_t zero[P2N_REC_ERR_WORDS] = {0};
    write(rec, zero, sizeof zero);
    return p2n_rec_report(r, kernel, read_dev, NULL, err);
}
