/* p2n_fatbin.h — reading CUDA fat binaries out of ELF files, and the `.p2n_native` side section.
 *
 * Layout of everything read here: /work/shared/docs/fatbin-format.md (NVIDIA's format) and
 * docs/fatbin-native-section.md (our section). All parsing is bounds-checked: malformed input gives
 * P2N_FB_BAD_INPUT and an error message naming the file, section and byte offset, never a crash.
 *
 * Two levels:
 *   - memory level (usable from the driver stub, no libelf, no file I/O): p2n_fb_parse_container(),
 *     p2n_fb_parse_wrapper(), p2n_fb_decode(), p2n_fb_select_ptx(), p2n_hash128(), p2n_native_lookup().
 *   - file level: p2n_fb_open() / p2n_fb_load() walk ELF files and `!<arch>` archives;
 *     p2n_native_rewrite() / p2n_native_verify() / p2n_native_strip() manage the `.p2n_native` section.
 */
#ifndef P2N_FATBIN_H
#define P2N_FATBIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes (same numbers as p2n_status). */
enum { P2N_FB_OK = 0, P2N_FB_BAD_INPUT = 1, P2N_FB_INTERNAL = 2, P2N_FB_UNSUPPORTED = 3 };

#define P2N_FB_CONTAINER_MAGIC 0xBA55ED50u
#define P2N_FB_WRAPPER_MAGIC 0x466243B1u

/* Entry kinds (u16 at +0). */
enum { P2N_FB_KIND_PTX = 1, P2N_FB_KIND_ELF = 2, P2N_FB_KIND_OLDCUBIN = 4, P2N_FB_KIND_LTOIR = 8 };

/* Entry flags (u64 at +0x28). */
#define P2N_FB_FLAG_64BIT 0x1ull
#define P2N_FB_FLAG_DEBUG 0x2ull
#define P2N_FB_FLAG_LZ4 0x2000ull
#define P2N_FB_FLAG_ZSTD 0x8000ull
#define P2N_FB_FLAG_LTO_PRIVATE 0x10000ull
#define P2N_FB_FLAG_ARCH_A 0x100000ull
#define P2N_FB_FLAG_ARCH_F 0x200000ull

typedef enum p2n_fb_compression {
    P2N_FB_COMP_NONE = 0,
    P2N_FB_COMP_LZ4,
    P2N_FB_COMP_ZSTD,
    P2N_FB_COMP_LTO_PRIVATE, /* flag 0x10000 on LTO-IR: not decodable (nvJitLink only) */
    P2N_FB_COMP_UNKNOWN,     /* compressedSize != 0 without a known algorithm flag */
} p2n_fb_compression;

/* One entry of a container. Pointers point into the parsed buffer (valid while it is). */
typedef struct p2n_fb_entry {
    uint64_t offset;          /* of the entry header, relative to the container start */
    uint16_t kind;
    uint16_t version;
    uint32_t header_size;
    uint64_t payload_size;    /* stored bytes incl. padding */
    uint32_t compressed_size; /* 0 = plain */
    uint32_t options_desc_offset;
    uint16_t code_minor, code_major;
    uint32_t arch;            /* SM number, e.g. 80, 90, 100 */
    uint64_t flags;
    uint64_t lto_key;         /* +0x30 */
    uint64_t uncompressed_size;
    p2n_fb_compression compression;
    const uint8_t *payload;   /* stored bytes (compressed or plain) */
    uint64_t stored_len;      /* compressed_size, or payload_size when plain */
    const char *ident;        /* not NUL-terminated; length ident_len; NULL if none */
    uint32_t ident_len;
    const char *options;      /* ptxas options recorded by fatbinary; not NUL-terminated */
    uint32_t options_len;
} p2n_fb_entry;

typedef struct p2n_fb_container {
    const uint8_t *data;      /* start of the container header */
    uint64_t size;            /* headerSize + fatSize = bytes hashed for the native key */
    uint64_t file_offset;     /* offset in the file (0 when parsed from memory) */
    uint64_t section_offset;  /* offset inside its section */
    uint64_t vaddr;           /* link-time address, 0 when unknown / relocatable */
    const char *section;      /* owning section name ("" when unknown); owned by the p2n_fb_file */
    const char *member;       /* archive member name, NULL outside archives; owned by the p2n_fb_file */
    unsigned section_index;
    int wrapper_version;      /* 0 = no wrapper points at it (dead), else 1 or 2 (live) */
    size_t n_entries;
    p2n_fb_entry *entries;
} p2n_fb_container;

typedef struct p2n_fb_wrapper {
    uint64_t file_offset;     /* of the 24-byte wrapper */
    uint32_t version;
    uint64_t data_vaddr;      /* resolved value of the data pointer (section offset for .o files) */
    int container;            /* index into p2n_fb_file.containers, -1 if unresolved */
    const char *member;
} p2n_fb_wrapper;

typedef enum p2n_fb_file_kind { P2N_FB_FILE_ELF = 1, P2N_FB_FILE_ARCHIVE, P2N_FB_FILE_CONTAINER } p2n_fb_file_kind;

typedef struct p2n_fb_file {
    char *path;
    const uint8_t *data;
    size_t size;
    p2n_fb_file_kind kind;
    int elf_type;             /* e_type of a plain ELF file */
    int has_native;           /* a `.p2n_native` section is present */
    size_t n_containers, cap_containers;
    p2n_fb_container *containers;
    size_t n_wrappers, cap_wrappers;
    p2n_fb_wrapper *wrappers;
    size_t n_warnings;
    char **warnings;          /* soft problems (e.g. a magic match that is not a container outside NVIDIA sections) */
    /* private */
    void *priv;
} p2n_fb_file;

/* ---- memory level ---- */

/* Parses one container at `p` with at most `avail` bytes readable (pass SIZE_MAX when the extent is not
 * known, as in cuModuleLoadData: then the header defines it). On success fills *out (free with
 * p2n_fb_container_free). `where` prefixes error messages (e.g. "file: section .nv_fatbin"), `base_off` is
 * added to reported offsets. */
int p2n_fb_parse_container(const void *p, size_t avail, const char *where, uint64_t base_off,
                           p2n_fb_container *out, char *err, size_t errlen);
void p2n_fb_container_free(p2n_fb_container *c);

/* Parses a wrapper {magic, version, data, filename_or_fatbins} in process memory (pointers already
 * relocated) and the container its data points to. *version gets 1 or 2. */
int p2n_fb_parse_wrapper(const void *wrapper, uint32_t *version, p2n_fb_container *out, char *err, size_t errlen);

/* Decodes an entry's payload (LZ4 block, zstd frame or plain copy) into a malloc'ed buffer. PTX keeps no
 * trailing NULs but gets one NUL after *out_len (so it is a C string). */
int p2n_fb_decode(const p2n_fb_entry *e, uint8_t **out, size_t *out_len, const char *where, uint64_t entry_off,
                  char *err, size_t errlen);

/* Index of the PTX entry with the highest arch <= max_arch; if none, the lowest PTX arch above it
 * (*above set to 1). -1 when the container has no PTX. */
int p2n_fb_select_ptx(const p2n_fb_container *c, unsigned max_arch, int *above);

/* 1 when the container is relocatable device code (nvcc -rdc=true: section `__nv_relfatbin`). Its PTX needs a
 * device link with the other translation units' PTX, which the driver stub does when it loads the version-2
 * wrapper; on its own it is never loaded, so `rewrite` does not compile it and `verify` does not ask for it. */
int p2n_fb_container_is_relocatable(const p2n_fb_container *c);
/* The device-link container of an nvcc -rdc=true file: the one container (by content) that a version-2 wrapper
 * points at, that is not relocatable and carries no PTX (nvlink's output), when the file also has relocatable
 * containers with PTX. Its index, else -1. `rewrite` records the relocatable PTX compiled linked into one module
 * under this container's key, which is what the driver stub is handed for the device link. */
int p2n_fb_linked_container(const p2n_fb_file *f);
/* What `rewrite --report` and `verify` say about such a container. */
#define P2N_FB_RDC_NOTE "relocatable device code: compiled at run time (JIT)"

/* "ptx", "elf", "ltoir", "cubin-old", "kind-N" */
const char *p2n_fb_kind_name(unsigned kind);
const char *p2n_fb_compression_name(p2n_fb_compression c);
/* "sm_80", "sm_90a", "sm_100f" */
void p2n_fb_arch_name(const p2n_fb_entry *e, char *buf, size_t len);

/* ---- file level ---- */

/* Reads and walks a file (ELF, `!<arch>` archive, or a raw container file). On P2N_FB_BAD_INPUT the error
 * names the file, section and offset; *out is still valid (partial) and must be closed. */
int p2n_fb_open(const char *path, p2n_fb_file *out, char *err, size_t errlen);
/* Same over a caller-owned buffer (not copied; must outlive the p2n_fb_file). */
int p2n_fb_load(const char *name, const void *data, size_t size, p2n_fb_file *out, char *err, size_t errlen);
void p2n_fb_close(p2n_fb_file *f);

/* ---- hashing ---- */

typedef struct p2n_hash128 { uint64_t lo, hi; } p2n_hash128;
/* P2H128 (docs/fatbin-native-section.md): a 128-bit non-cryptographic hash, stable across platforms. */
p2n_hash128 p2n_hash128_bytes(const void *data, size_t len, uint64_t seed);
void p2n_hash128_hex(p2n_hash128 h, char out[33]);

/* ---- the `.p2n_native` section ---- */

#define P2N_NATIVE_SECTION ".p2n_native"

/* Options recorded in a PTX entry, mapped to compiler fields. */
typedef struct p2n_fb_ptx_opts {
    int max_reg_count; /* 0 = none */
    int no_fmad;       /* --fmad false / -fmad=0 */
    int opt_level;     /* -1 = not given, else 0..3 (-O<n>) */
    int debug;         /* -g / entry debug flag */
} p2n_fb_ptx_opts;
void p2n_fb_parse_ptx_options(const char *opts, size_t len, p2n_fb_ptx_opts *out);

/* One PTX text of a device link (p2n_fb_compile_req.linked) */
typedef struct p2n_fb_ptx_text {
    const char *ptx;
    size_t len;
    const char *name;
} p2n_fb_ptx_text;

/* One compilation request handed to the compile callback. */
typedef struct p2n_fb_compile_req {
    const char *ptx;          /* decompressed PTX, NUL-terminated */
    size_t ptx_len;
    const char *name;         /* "file:container N:sm_80 PTX" for diagnostics */
    const char *target;       /* "host", "gfx942", ... */
    p2n_fb_ptx_opts opts;
    p2n_hash128 ptx_hash;
    unsigned container;       /* index of the (first) container with these bytes in the file */
    /* a device link (nlinked > 0): the relocatable PTX texts compiled linked into one module, as the driver stub
     * links them at load time; ptx is then NULL and ptx_len 0, ptx_hash that of all of them */
    const p2n_fb_ptx_text *linked;
    size_t nlinked;
} p2n_fb_compile_req;

/* Compile callback: returns P2N_FB_OK and a malloc'ed payload, or an error status (P2N_FB_UNSUPPORTED,
 * P2N_FB_BAD_INPUT, ...) with an optional malloc'ed diagnostic. Must be thread-safe when jobs > 1. */
typedef int (*p2n_fb_compile_fn)(void *ctx, const p2n_fb_compile_req *req, uint8_t **out, size_t *out_len,
                                 char **diag);

/* Result of one compile job, reported to the caller. */
typedef struct p2n_fb_job_result {
    unsigned container;       /* container index in the file */
    int ptx_entry;            /* chosen entry (-1: none) */
    unsigned ptx_arch;
    int ptx_above_max;
    const char *target;
    int status;               /* P2N_FB_* */
    char *diag;               /* malloc'ed or NULL */
} p2n_fb_job_result;

typedef struct p2n_fb_rewrite_opts {
    const char *const *targets; /* NULL-terminated list */
    unsigned max_ptx_arch;      /* highest PTX arch considered first (default 90) */
    const char *build_id;       /* recorded per entry */
    p2n_fb_compile_fn compile;
    void *compile_ctx;
    int jobs;                   /* parallel compile threads (>= 1) */
    /* progress callback (may be NULL): done / total jobs */
    void (*progress)(void *ctx, size_t done, size_t total);
    void *progress_ctx;
    /* 0: any failed (module, target) fails the whole file (no output). 1: failed jobs are left out of the
     * section (those modules are JIT-compiled at run time) and the file is still built; r->n_failed says how
     * many, r->jobs which. */
    int keep_going;
} p2n_fb_rewrite_opts;

typedef struct p2n_fb_rewrite_result {
    uint8_t *data;              /* the new file bytes (malloc'ed), NULL on failure */
    size_t size;
    size_t n_jobs;
    p2n_fb_job_result *jobs;    /* one per (distinct non-relocatable container with PTX, target) */
    size_t n_containers, n_with_ptx, n_skipped_no_ptx, n_compiled, n_failed;
    size_t n_relocatable;       /* containers with PTX of a device link (-rdc) */
    size_t n_linked;            /* of those, compiled linked under the device-link container (the rest: JIT) */
} p2n_fb_rewrite_result;
void p2n_fb_rewrite_result_free(p2n_fb_rewrite_result *r);

/* Builds the rewritten bytes of an ELF file (an existing `.p2n_native` is replaced). Returns P2N_FB_OK only
 * when every job compiled (or, with o->keep_going, when the section could be built at all); otherwise the first
 * failing status (and r->data == NULL). Archives: BAD_INPUT. */
int p2n_native_rewrite(const p2n_fb_file *f, const p2n_fb_rewrite_opts *o, p2n_fb_rewrite_result *r, char *err,
                       size_t errlen);

/* Original bytes of a rewritten file (malloc'ed). BAD_INPUT if there is no (valid) `.p2n_native` section. */
int p2n_native_strip(const uint8_t *data, size_t size, const char *name, uint8_t **out, size_t *out_len, char *err,
                     size_t errlen);

/* Checks the section: structure, checksum, container/PTX/payload hashes, coverage of every container with
 * PTX, build id (when expect_build_id != NULL). Messages go to `report` (one per line, malloc'ed). */
int p2n_native_verify(const p2n_fb_file *f, const char *expect_build_id, char **report, char *err, size_t errlen);

/* Runtime lookup inside a section image: payload for (container bytes, target). Returns 1 when found. */
int p2n_native_lookup(const uint8_t *section, size_t section_len, const void *container, size_t container_len,
                      const char *target, const uint8_t **payload, size_t *payload_len);

/* The same in two steps, for a caller that looks up many containers in one section (the driver stub): the
 * structural check and checksum once (P2N_FB_OK, or BAD_INPUT with a message naming the offset), then any
 * number of lookups that also return the entry's compiler build id (a string inside the section). */
int p2n_native_check(const uint8_t *section, size_t section_len, char *err, size_t errlen);
int p2n_native_lookup_entry(const uint8_t *section, size_t section_len, const void *container, size_t container_len,
                            const char *target, const uint8_t **payload, size_t *payload_len, const char **build_id);

/* Locates the `.p2n_native` section of an ELF image: 1 found (offset/size set), 0 none, -1 malformed. */
int p2n_native_find(const uint8_t *data, size_t size, uint64_t *off, uint64_t *len);

#ifdef __cplusplus
}
#endif
#endif
