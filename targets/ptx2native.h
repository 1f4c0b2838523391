/* ptx2native.h — the public C interface of libptx2native.
 *
 * The CLI (`ptx2native`), the fatbin tool (`ptx2native-fatbin`) and the driver stub (`libcuda.so.1`) all
 * compile PTX through these few calls, in process. Everything here is thread-safe: one p2n_compile() per
 * thread may run concurrently (the fatbin tool compiles many modules with -j N).
 */
#ifndef PTX2NATIVE_H
#define PTX2NATIVE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define P2N_VERSION_STRING "0.1.0"

/* What p2n_compile() hands back. */
typedef enum p2n_emit {
    P2N_EMIT_OBJ = 0, /* native code: ELF shared object (host), HSA code object (amdgpu), SPIR-V binary */
    P2N_EMIT_IR,      /* our IR, printed as PTX text that the front end reads back */
    P2N_EMIT_LLVM,    /* LLVM IR text, after optimisation */
    P2N_EMIT_ASM,     /* target assembly text */
} p2n_emit;

/* Exit statuses shared by every tool: 0 ok, 1 bad input (diagnostics say where), 2 internal error. */
typedef enum p2n_status {
    P2N_OK = 0,
    P2N_BAD_INPUT = 1,
    P2N_INTERNAL_ERROR = 2,
    P2N_UNSUPPORTED = 3, /* valid input the requested target cannot (yet) compile; diagnostics name it */
} p2n_status;

typedef struct p2n_options {
    const char *arch;        /* one target name ("host", "gfx942", "spirv64", ...); NULL = "host" */
    int opt_level;           /* 0..3 */
    p2n_emit emit;
    int verbose;
    /* PTX compile options recorded in fatbins, honoured when compiling (see docs/fatbin-format.md). */
    int max_reg_count;       /* 0 = unlimited (-maxrregcount) */
    int no_fmad;             /* --fmad=false: never contract mul+add */
    /* Threads for per-kernel parallel optimisation + code generation (-j N): 0 = unset ($P2N_JOBS, else 1),
     * N > 0 = at most N partitions on N threads, < 0 = one per online CPU for modules where the split is
     * estimated to pay (several kernels, enough work; the command line's default). The output is functionally
     * the same for every value (same kernels, globals, shared layout); SPIR-V and text output ignore it. */
    int jobs;
    /* What the device that will run the code lacks (P2N_LACKS_* bits; 0 = a full-featured device of the
     * target). The driver stub sets them for the device it found (e.g. PoCL's CPU device has no sub-groups). */
    unsigned device_lacks;
    /* Nonzero: a kernel that uses PTX the target (or the device, see device_lacks) cannot run is compiled as a
     * stub that fails at launch with CUDA_ERROR_NOT_SUPPORTED and a message naming the instruction and its
     * location, instead of failing the whole module; the diagnostic becomes a warning. Zero: an error. */
    int defer_unsupported;
    /* Per-thread bytes of the explicit stack that replaces recursion when the device lacks a call stack
     * (P2N_LACKS_RECURSION; targets/llvm/eliminate_recursion.h); 0 = the default, 16 KiB. */
    unsigned recursion_stack;
    /* Nonzero (AMDGPU targets; others ignore it): atom/red.add.f32 on global and generic memory use the device's
     * floating-point atomic add (global_atomic_add_f32) instead of a compare-exchange loop. Faster under
     * contention, but NVIDIA flushes subnormal operands and results of these adds on global memory and the
     * hardware add's subnormal handling is the device's (--fp-atomics=native; docs/atomics.md). */
    int fp_atomics_native;
    /* Nonzero (host targets; others ignore it): every host kernel keeps all its entries — fiber, coroutine and
     * block entry — so that the runtime's P2N_CPU_THREADLOOP=0 / P2N_CPU_CORO=0 / P2N_CPU_WORK_ITEM_LOOPS=0 can
     * pick another. Zero: only the entry the runtime uses by default is compiled (--host-entries=fast|all;
     * targets/host/drop_fallback_entries.c). */
    int host_fallback_entries;
    /* Nonzero: a DWARF line table maps the code to the PTX source lines (--line-info, nvcc's -lineinfo): `.loc`
     * in assembly, .debug_line in objects. Changes no generated instruction (targets/llvm/emit_line_info.c). */
    int line_info;
} p2n_options;

/* p2n_options.device_lacks bits */
#define P2N_LACKS_SUBGROUPS 1u        /* no sub-groups of 32 work-items: warp shuffles, votes, match, ldmatrix */
#define P2N_LACKS_FORWARD_PROGRESS 2u /* work-items of a group run one after another between barriers (PoCL's
                                       * CPU device): a work-item spinning on another's store never returns */
#define P2N_LACKS_WG_COLLECTIVES 4u   /* no OpenCL work-group collective functions (bar.red's work-group
                                       * all/any/reduce; PoCL 3.1's CPU device cannot link them) */
#define P2N_LACKS_PROGRAM_GLOBALS 8u  /* no program-scope variables shared by the kernels of a module (OpenCL's
                                       * CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE 0; PoCL 3.1 gives each kernel its own
                                       * copy): module variables live in a runtime buffer (targets/spirv) */
#define P2N_LACKS_FAULT_ISOLATION 16u /* a memory fault in kernel code kills the process (PoCL's CPU device runs
                                       * work-groups on its own threads): global/generic accesses are checked
                                       * against the null page and end the work-item with an illegal-address
                                       * error instead (targets/spirv) */
#define P2N_LACKS_SPACE_QUERY 32u     /* to_private/to_local do not tell the state space of a generic address
                                       * (PoCL 3.1: plain casts): isspacep.local by the work-item's local window
                                       * (targets/spirv) */
#define P2N_LACKS_RECURSION 64u       /* no call stack: recursive .funcs become loops over an explicit stack in
                                       * private memory (targets/llvm/eliminate_recursion.c); always on for
                                       * SPIR-V (OpenCL forbids recursion) */

/* A finished compilation. `data` holds the output bytes (binary or text); `diagnostics` holds every
 * message in `file:line:col: error: ...` form, one per line, NUL-terminated (empty when there were none).
 * Free with p2n_result_free(). */
typedef struct p2n_result {
    p2n_status status;
    uint8_t *data;
    size_t size;
    char *diagnostics;
} p2n_result;

/* Compiles one PTX module. `filename` is used only in diagnostics. `ptx` need not be NUL-terminated. */
p2n_status p2n_compile(const char *ptx, size_t len, const char *filename, const p2n_options *opt,
                       p2n_result *out);
void p2n_result_free(p2n_result *r);

/* One PTX text of a separately compiled program (nvcc -rdc=true: one per translation unit). */
typedef struct p2n_input {
    const char *ptx;       /* need not be NUL-terminated */
    size_t len;
    const char *filename;  /* used only in diagnostics */
} p2n_input;

/* Compiles n PTX modules linked into one (PTX ISA "Linking directives": .extern declarations resolve to
 * the .visible/.weak/.common definitions of the other modules; a strong definition wins over .weak ones,
 * .common takes the largest). Every module's kernels are in the output. Duplicate definitions, type or size
 * mismatches, different .address_size and uses of symbols no module defines are errors naming the symbol and
 * both locations. The output uses the highest .version and .target of the inputs. With n == 1 the module is
 * linked alone: unlike p2n_compile(), a used .extern symbol it does not define is an error. */
p2n_status p2n_compile_linked(const p2n_input *inputs, unsigned n, const p2n_options *opt, p2n_result *out);

/* Target names the library knows, NULL-terminated; whether each is implemented yet is p2n_target_ready(). */
const char *const *p2n_target_names(void);
int p2n_target_ready(const char *arch);

/* A stable identifier of the compiler build: part of every cache key (a new build never reuses old code). */
const char *p2n_build_id(void);

#ifdef __cplusplus
}
#endif
#endif
