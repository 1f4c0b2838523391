/* link.c — cuLinkCreate / cuLinkAddData / cuLinkAddFile / cuLinkComplete / cuLinkDestroy: the JIT linker.
 *
 * Inputs are PTX texts (CU_JIT_INPUT_PTX, or the PTX a fatbin holds for this device); cuLinkComplete compiles
 * them linked into one module (p2n_compile_linked: .extern symbols resolve across the inputs, as nvlink does for
 * -rdc code) for the backend and hands back a P2N_LINKED_MAGIC image (link.h) that cuModuleLoadData accepts.
 * NVIDIA machine code (cubin, relocatable objects, libraries) and LTO-IR cannot be used here: those inputs fail
 * with CUDA_ERROR_NOT_SUPPORTED and say so in the error log.
 *
 * As in CUDA, the option arrays of cuLinkCreate must stay valid while the state lives (the logs are written at
 * cuLinkAddData/cuLinkComplete), the inputs are copied, and the image belongs to the state.
 * PTX is parsed when it is added, so a syntax error is CUDA_ERROR_INVALID_PTX from cuLinkAddData; symbol
 * resolution and code generation happen in cuLinkComplete (errors: CUDA_ERROR_INVALID_SOURCE with the
 * diagnostics, `file:line:col: error: ...`, in the error log).
 *
 * NVIDIA's driver (580, H200; tests/driver/rdc/probe_link_nvidia.c) answers: no current context
 * INVALID_CONTEXT; multiple definition INVALID_SOURCE, already from the cuLinkAddData that adds the second one
 * (here only from cuLinkComplete: resolution needs every input); undefined reference INVALID_SOURCE from
 * cuLinkComplete; bad PTX INVALID_PTX; garbage cubin, LTO-IR or fatbin INVALID_IMAGE (a garbage object is
 * accepted, a garbage library UNKNOWN: we answer NOT_SUPPORTED for every cubin/object/library/LTO-IR input,
 * valid or not, since none can run here); a bad input type, NULL data or size 0 INVALID_VALUE; a missing file
 * FILE_NOT_FOUND; cuLinkComplete with no inputs INVALID_IMAGE; NULL state INVALID_HANDLE; NULL cubinOut
 * INVALID_VALUE.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "link.h"

#define P2N_MAGIC_LINK 0x4c4e4b21u /* "LNK!" */

typedef struct p2n_link {
    uint32_t magic;
    unsigned nopt;
    CUjit_option *opts;  /* the caller's arrays (CUDA: valid for the life of the state) */
    void **vals;         /* written back: the log sizes are in/out */
    void **orig;         /* the values as given to cuLinkCreate (the buffer sizes before any write-back) */
    p2n_input *in;
    unsigned n, cap;
    uint8_t *image;      /* cuLinkComplete's output */
    size_t size;
} p2n_link;

static p2n_link *get(CUlinkState s)
{
    return s && p2n_drv_is_live(s, P2N_MAGIC_LINK) ? (p2n_link *)s : NULL;
}

static CUresult link_create(unsigned numOptions, CUjit_option *options, void **optionValues, CUlinkState *stateOut)
{
    CUresult r = p2n_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!stateOut || (numOptions && (!options || !optionValues)))
        return CUDA_ERROR_INVALID_VALUE;
    p2n_ctx *c;
    r = p2n_drv_get_ctx(NULL, &c); /* the link targets the current context's device */
    if (r != CUDA_SUCCESS)
        return r;
    void **orig = calloc(numOptions ? numOptions : 1, sizeof *orig);
    if (!orig)
        return CUDA_ERROR_OUT_OF_MEMORY;
    if (numOptions)
        memcpy(orig, optionValues, numOptions * sizeof *orig);
    p2n_link *l = calloc(1, sizeof *l);
    if (!l) {
        free(orig);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    l->orig = orig;
    l->magic = P2N_MAGIC_LINK;
    l->nopt = numOptions;
    l->opts = options;
    l->vals = optionValues;
    p2n_drv_register(l);
    *stateOut = (CUlinkState)l;
    return CUDA_SUCCESS;
}

CUresult cuLinkCreate(unsigned int numOptions, CUjit_option *options, void **optionValues, CUlinkState *stateOut)
{
    return link_create(numOptions, options, optionValues, stateOut);
}

CUresult cuLinkCreate_v2(unsigned int numOptions, CUjit_option *options, void **optionValues, CUlinkState *stateOut)
{
    return link_create(numOptions, options, optionValues, stateOut);
}

/* Option values for one log write: a fresh copy of what cuLinkCreate got (module.c writes the sizes back into
 * it); copy_back() then hands the written sizes to the caller's array, as CUDA does. */
static void **fresh_vals(p2n_link *l)
{
    void **v = calloc(l->nopt ? l->nopt : 1, sizeof *v);
    if (v && l->nopt)
        memcpy(v, l->orig, l->nopt * sizeof *v);
    return v;
}

static void copy_back(p2n_link *l, void **v)
{
    for (unsigned i = 0; v && i < l->nopt; i++)
        if (l->opts[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES || l->opts[i] == CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES ||
            l->opts[i] == CU_JIT_WALL_TIME)
            l->vals[i] = v[i];
    free(v);
}

/* A failure while adding: the message goes to the link's error log (and, with P2N_VERBOSE, stderr). */
static CUresult fail(p2n_link *l, CUresult r, const char *msg)
{
    void **v = fresh_vals(l);
    if (v)
        p2n_drv_jit_log(l->nopt, l->opts, v, msg);
    copy_back(l, v);
    if (p2n_drv_verbose())
        fprintf(stderr, "ptx2native: cuLink: %s", msg);
    return r;
}

static CUresult add_ptx(p2n_link *l, const char *ptx, size_t size, const char *name)
{
    size_t len = strnlen(ptx, size);
    if (!len)
        return fail(l, CUDA_ERROR_INVALID_PTX, "ptx2native: empty PTX input\n");
    /* parse now (a syntax error belongs to this input, as ptxas reports it here in CUDA) */
    p2n_options po = {.arch = "host", .emit = P2N_EMIT_IR};
    p2n_result res;
    p2n_status st = p2n_compile(ptx, len, name, &po, &res);
    if (st != P2N_OK) {
        CUresult r = fail(l, st == P2N_BAD_INPUT ? CUDA_ERROR_INVALID_PTX : CUDA_ERROR_UNKNOWN,
                          res.diagnostics && *res.diagnostics ? res.diagnostics : "ptx2native: invalid PTX\n");
        p2n_result_free(&res);
        return r;
    }
    p2n_result_free(&res);
    if (l->n == l->cap) {
        unsigned c = l->cap ? l->cap * 2 : 4;
        p2n_input *ni = realloc(l->in, c * sizeof *ni);
        if (!ni)
            return CUDA_ERROR_OUT_OF_MEMORY;
        l->in = ni;
        l->cap = c;
    }
    char *text = malloc(len + 1), *nm = strdup(name);
    if (!text || !nm) {
        free(text);
        free(nm);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    memcpy(text, ptx, len);
    text[len] = 0;
    l->in[l->n++] = (p2n_input){text, len, nm};
    return CUDA_SUCCESS;
}

static CUresult add_fatbin(p2n_link *l, const void *data, size_t size, const char *name)
{
    char err[512];
    p2n_fb_container c;
    memset(&c, 0, sizeof c);
    uint32_t magic;
    memcpy(&magic, data, 4);
    uint32_t ver = 0;
    int st = magic == P2N_FB_WRAPPER_MAGIC ? p2n_fb_parse_wrapper(data, &ver, &c, err, sizeof err)
                                           : p2n_fb_parse_container(data, size, name, 0, &c, err, sizeof err);
    if (st != P2N_FB_OK) {
        size_t k = strlen(err);
        if (k + 1 < sizeof err)
            err[k] = '\n', err[k + 1] = 0;
        return fail(l, CUDA_ERROR_INVALID_IMAGE, err);
    }
    char *ptx = NULL, *log = NULL, pname[128];
    size_t len = 0;
    CUresult r = p2n_drv_container_ptx(&c, name, &ptx, &len, pname, sizeof pname, &log);
    p2n_fb_container_free(&c);
    if (r != CUDA_SUCCESS) {
        r = fail(l, r, log ? log : "ptx2native: fatbin without usable PTX\n");
        free(log);
        return r;
    }
    r = add_ptx(l, ptx, len + 1, pname);
    free(ptx);
    return r;
}

static CUresult add_data(p2n_link *l, CUjitInputType type, const void *data, size_t size, const char *name)
{
    if (!data || !size || (unsigned)type >= CU_JIT_NUM_INPUT_TYPES)
        return CUDA_ERROR_INVALID_VALUE;
    char msg[256];
    switch (type) {
    case CU_JIT_INPUT_PTX: return add_ptx(l, data, size, name);
    case CU_JIT_INPUT_FATBINARY:
        if (size < 16)
            return fail(l, CUDA_ERROR_INVALID_IMAGE, "ptx2native: fatbin input too short\n");
        return add_fatbin(l, data, size, name);
    default:
        snprintf(msg, sizeof msg, "ptx2native: cannot link input '%s': %s cannot run on this device; only PTX "
                 "(or a fatbin holding PTX) can be linked\n", name,
                 type == CU_JIT_INPUT_NVVM ? "LTO-IR (NVVM)" : type == CU_JIT_INPUT_CUBIN ? "NVIDIA machine code (cubin)"
                 : type == CU_JIT_INPUT_OBJECT ? "an NVIDIA relocatable object" : "an NVIDIA device library");
        return fail(l, CUDA_ERROR_NOT_SUPPORTED, msg);
    }
}

static CUresult link_add_data(CUlinkState state, CUjitInputType type, void *data, size_t size, const char *name)
{
    p2n_link *l = get(state);
    if (!l)
        return CUDA_ERROR_INVALID_HANDLE;
    return add_data(l, type, data, size, name && *name ? name : "<input>");
}

CUresult cuLinkAddData(CUlinkState state, CUjitInputType type, void *data, size_t size, const char *name,
                       unsigned int numOptions, CUjit_option *options, void **optionValues)
{
    (void)numOptions, (void)options, (void)optionValues; /* per-input compiler options: the state's apply */
    return link_add_data(state, type, data, size, name);
}

CUresult cuLinkAddData_v2(CUlinkState state, CUjitInputType type, void *data, size_t size, const char *name,
                          unsigned int numOptions, CUjit_option *options, void **optionValues)
{
    (void)numOptions, (void)options, (void)optionValues;
    return link_add_data(state, type, data, size, name);
}

static CUresult link_add_file(CUlinkState state, CUjitInputType type, const char *path)
{
    p2n_link *l = get(state);
    if (!l)
        return CUDA_ERROR_INVALID_HANDLE;
    if (!path)
        return CUDA_ERROR_INVALID_VALUE;
    FILE *f = fopen(path, "rb");
    if (!f)
        return CUDA_ERROR_FILE_NOT_FOUND;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap) {
            char *nb = realloc(buf, cap * 2 + 1);
            if (!nb)
                free(buf);
            buf = nb;
            cap *= 2;
        }
    }
    fclose(f);
    if (!buf)
        return CUDA_ERROR_OUT_OF_MEMORY;
    buf[n] = 0;
    CUresult r = n ? add_data(l, type, buf, type == CU_JIT_INPUT_PTX ? n + 1 : n, path) : CUDA_ERROR_INVALID_VALUE;
    free(buf);
    return r;
}

CUresult cuLinkAddFile(CUlinkState state, CUjitInputType type, const char *path, unsigned int numOptions,
                       CUjit_option *options, void **optionValues)
{
    (void)numOptions, (void)options, (void)optionValues;
    return link_add_file(state, type, path);
}

CUresult cuLinkAddFile_v2(CUlinkState state, CUjitInputType type, const char *path, unsigned int numOptions,
                          CUjit_option *options, void **optionValues)
{
    (void)numOptions, (void)options, (void)optionValues;
    return link_add_file(state, type, path);
}

CUresult cuLinkComplete(CUlinkState state, void **cubinOut, size_t *sizeOut)
{
    p2n_link *l = get(state);
    if (!l)
        return CUDA_ERROR_INVALID_HANDLE;
    if (!cubinOut)
        return CUDA_ERROR_INVALID_VALUE;
    if (!l->n)
        return fail(l, CUDA_ERROR_INVALID_IMAGE, "ptx2native: cuLinkComplete: no inputs were added\n");
    free(l->image);
    l->image = NULL;
    void **v = fresh_vals(l);
    if (!v)
        return CUDA_ERROR_OUT_OF_MEMORY;
    CUresult r = p2n_drv_link_ptx(l->in, l->n, l->nopt, l->opts, v, &l->image, &l->size);
    copy_back(l, v);
    if (r != CUDA_SUCCESS)
        return r;
    *cubinOut = l->image;
    if (sizeOut)
        *sizeOut = l->size;
    return CUDA_SUCCESS;
}

CUresult cuLinkDestroy(CUlinkState state)
{
    p2n_link *l = get(state);
    if (!l)
        return CUDA_ERROR_INVALID_HANDLE;
    p2n_drv_unregister(l);
    l->magic = 0;
    for (unsigned k = 0; k < l->n; k++) {
        free((void *)l->in[k].ptx);
        free((void *)l->in[k].filename);
    }
    free(l->in);
    free(l->orig);
    free(l->image);
    free(l);
    return CUDA_SUCCESS;
}
