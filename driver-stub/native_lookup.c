/* native_lookup.c — finds the native code `ptx2native-fatbin rewrite` recorded for a fatbin container, so a
 * module load compiles no PTX (docs/fatbin-native-section.md, "Run-time lookup").
 *
 * The container handed to cuModuleLoadData / cuLibraryLoadData lies in an allocated section (`.nv_fatbin`) of
 * some loaded ELF object. dladdr names the object whose mapping holds the address; its file
 * (dlpi_name, or /proc/self/exe for the main program) is mapped read-only and the non-allocated
 * `.p2n_native` section located from the section headers (p2n_native_find: the fatbin library's bounds-checked
 * reader) and checked once (structure + checksum). Entries are keyed by the P2H128 of the container bytes
 * *in memory*, so a section that no longer matches the code (the binary was modified after the rewrite, the
 * file on disk was replaced) simply has no entry and the PTX is JIT-compiled. An entry made by another
 * compiler build (build id != p2n_build_id()) is ignored the same way: its code may not match what this
 * stub's backends expect.
 *
 * Objects are cached for the life of the process (a mapping is kept; pages are read only when used).
 */
#include <fcntl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "native_lookup.h"
#include "p2n_fatbin.h"
#include "ptx2native.h"

typedef struct native_obj {
    uintptr_t base;        /* dlpi_addr: with the name, identifies the loaded object */
    char *name;            /* dlpi_name; "" for the main program */
    const char *path;      /* the file read */
    const uint8_t *sec;    /* checked `.p2n_native` section, NULL when there is none usable */
    size_t sec_len;
    char note[400];        /* why sec is NULL */
} native_obj;

static pthread_mutex_t obj_lock = PTHREAD_MUTEX_INITIALIZER;
static native_obj **objs;
static size_t nobjs, capobjs;

int p2n_drv_require_native(void)
{
    const char *v = getenv("P2N_REQUIRE_NATIVE");
    return v && *v && strcmp(v, "0") != 0;
}

/* The loaded object holding `addr`: dladdr() (glibc matches the object's whole mapped range). <link.h>'s
 * dl_iterate_phdr is not usable here: this directory's "link.h" (cuLink*) shadows it on the include path.
 * dladdr names the main program by argv[0], which is not a path to rely on, so the main program is
 * recognised by its load base (that of its program headers, AT_PHDR) and read through /proc/self/exe. */
static int object_of(const void *addr, uintptr_t *base, const char **name)
{
    Dl_info info, main_info;
    if (!dladdr(addr, &info) || !info.dli_fbase)
        return 0;
    *base = (uintptr_t)info.dli_fbase;
    *name = info.dli_fname ? info.dli_fname : "";
    const void *phdr = (const void *)getauxval(AT_PHDR);
    if (phdr && dladdr(phdr, &main_info) && main_info.dli_fbase == info.dli_fbase)
        *name = "";
    return 1;
}

/* Maps the object's file and checks its section; fills o->sec or o->note. */
static void open_obj(native_obj *o)
{
    int fd = open(o->path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_size <= 0) {
        snprintf(o->note, sizeof o->note, "%s: cannot read the file", o->path);
        if (fd >= 0)
            close(fd);
        return;
    }
    size_t n = (size_t)st.st_size;
    void *map = mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) {
        snprintf(o->note, sizeof o->note, "%s: cannot map the file", o->path);
        return;
    }
    uint64_t off = 0, len = 0;
    int r = p2n_native_find(map, n, &off, &len);
    char err[300] = "";
    if (r == 1 && p2n_native_check((const uint8_t *)map + off, len, err, sizeof err) == P2N_FB_OK) {
        o->sec = (const uint8_t *)map + off;
        o->sec_len = len;
        return;   /* the mapping stays for the life of the process */
    }
    if (r == 1)
        snprintf(o->note, sizeof o->note, "%s: damaged %s section ignored:%s", o->path, P2N_NATIVE_SECTION, err);
    else
        snprintf(o->note, sizeof o->note, "%s: %s", o->path,
                 r == 0 ? "no " P2N_NATIVE_SECTION " section (not rewritten by ptx2native-fatbin)"
                        : "malformed ELF section headers");
    munmap(map, n);
}

/* The cached object holding `addr`, created on first use; NULL when no loaded object holds it (a heap
 * buffer: e.g. a fatbin the program read from a file). */
static native_obj *obj_for(const void *addr)
{
    uintptr_t base;
    const char *name;
    if (!object_of(addr, &base, &name))
        return NULL;
    pthread_mutex_lock(&obj_lock);
    native_obj *o = NULL;
    for (size_t i = 0; i < nobjs && !o; i++)
        if (objs[i]->base == base && strcmp(objs[i]->name, name) == 0)
            o = objs[i];
    if (!o && (o = calloc(1, sizeof *o)) != NULL && (o->name = strdup(name)) != NULL) {
        o->base = base;
        o->path = name[0] ? o->name : "/proc/self/exe";
        open_obj(o);
        if (nobjs == capobjs) {
            size_t nc = capobjs ? capobjs * 2 : 8;
            native_obj **no = realloc(objs, nc * sizeof *no);
            if (!no)
                abort();
            objs = no;
            capobjs = nc;
        }
        objs[nobjs++] = o;
    } else if (o && !o->name) {
        free(o);
        o = NULL;
    }
    pthread_mutex_unlock(&obj_lock);
    return o;
}

int p2n_drv_native_code(const void *container, size_t size, const char *target, uint8_t **out, size_t *len,
                        char *why, size_t why_len)
{
    native_obj *o = obj_for(container);
    if (!o) {
        snprintf(why, why_len, "fatbin container at %p: not inside a loaded ELF object", container);
        return 0;
    }
    if (!o->sec) {
        snprintf(why, why_len, "fatbin container at %p in %s", container, o->note);
        return 0;
    }
    const uint8_t *payload = NULL;
    size_t plen = 0;
    const char *bid = NULL;
    if (!p2n_native_lookup_entry(o->sec, o->sec_len, container, size, target, &payload, &plen, &bid)) {
        p2n_hash128 h = p2n_hash128_bytes(container, size, 0);
        char hex[33];
        p2n_hash128_hex(h, hex);
        snprintf(why, why_len,
                 "fatbin container at %p (%zu bytes, P2H128 %s) in %s: %s has no entry for it and target '%s' "
                 "(stale: the container changed after `ptx2native-fatbin rewrite`, or that target was not "
                 "compiled)",
                 container, size, hex, o->path, P2N_NATIVE_SECTION, target);
        return 0;
    }
    if (!bid || strcmp(bid, p2n_build_id()) != 0) {
        snprintf(why, why_len, "fatbin container at %p in %s: stale %s entry for '%s' (compiler build '%s', this "
                 "is '%s')", container, o->path, P2N_NATIVE_SECTION, target, bid ? bid : "", p2n_build_id());
        return 0;
    }
    uint8_t *copy = malloc(plen ? plen : 1);
    if (!copy) {
        snprintf(why, why_len, "out of memory copying %zu bytes of native code", plen);
        return 0;
    }
    memcpy(copy, payload, plen);
    *out = copy;
    *len = plen;
    if (p2n_drv_verbose())
        fprintf(stderr, "ptx2native: fatbin container at %p: native '%s' code (%zu bytes) from %s of %s; no JIT\n",
                container, target, plen, P2N_NATIVE_SECTION, o->path);
    return 1;
}
