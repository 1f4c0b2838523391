/* cpu_loader.c — loads host code objects (x86-64 ELF shared objects written by ptx2native for
 * --offload-arch=host) from memory.
 *
 * Every load is a separate instance: the image is written to a fresh memfd and dlopen()ed through
 * /proc/self/fd/N. glibc identifies loaded objects by name and by (device, inode); both are unique per memfd
 * as long as the fd stays open, so the fd is kept until the module is unloaded.
 *
 * Before dlopen runs anything of the image we check that it is an x86-64 ELF shared object whose dynamic
 * symbol table defines __p2n_module and __p2n_rt, so a foreign library's constructors never run. */
#include "cpu_internal.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static cpu_status fail(char **error, cpu_status st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static cpu_status fail(char **error, cpu_status st, const char *fmt, ...) {
    if (error) {
        va_list ap;
        va_start(ap, fmt);
        char *msg = NULL;
        if (vasprintf(&msg, fmt, ap) < 0)
            msg = NULL;
        va_end(ap);
        *error = msg;
    }
    return st;
}

static int range_ok(size_t size, uint64_t off, uint64_t len) {
    return off <= size && len <= size - off;
}

/* Checks the ELF header and looks for the two required symbols in .dynsym. Returns NULL or a reason. */
static const char *check_elf(const uint8_t *img, size_t size) {
    if (size < sizeof(Elf64_Ehdr) || memcmp(img, ELFMAG, SELFMAG) != 0)
        return "not an ELF file";
    Elf64_Ehdr eh;
    memcpy(&eh, img, sizeof eh);
    if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB)
        return "not a 64-bit little-endian ELF file";
    if (eh.e_machine != EM_X86_64)
        return "ELF file is not for x86-64 (a GPU code object or another architecture?)";
    if (eh.e_type != ET_DYN)
        return "ELF file is not a shared object";
    if (eh.e_phnum == 0 || eh.e_phentsize != sizeof(Elf64_Phdr) ||
        !range_ok(size, eh.e_phoff, (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr)))
        return "ELF program headers are missing or truncated";
    for (unsigned i = 0; i < eh.e_phnum; i++) {
        Elf64_Phdr ph;
        memcpy(&ph, img + eh.e_phoff + (size_t)i * sizeof ph, sizeof ph);
        if (ph.p_type == PT_LOAD && !range_ok(size, ph.p_offset, ph.p_filesz))
            return "ELF image is truncated (a loadable segment lies beyond its end)";
    }
    if (eh.e_shnum == 0 || eh.e_shentsize != sizeof(Elf64_Shdr) ||
        !range_ok(size, eh.e_shoff, (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr)))
        return "ELF section headers are missing or truncated";
    int have_module = 0, have_rt = 0, have_dynsym = 0;
    for (unsigned i = 0; i < eh.e_shnum; i++) {
        Elf64_Shdr sh;
        memcpy(&sh, img + eh.e_shoff + (size_t)i * sizeof sh, sizeof sh);
        if (sh.sh_type != SHT_DYNSYM)
            continue;
        have_dynsym = 1;
        if (sh.sh_entsize != sizeof(Elf64_Sym) || !range_ok(size, sh.sh_offset, sh.sh_size) || sh.sh_link >= eh.e_shnum)
            return "ELF dynamic symbol table is malformed";
        Elf64_Shdr str;
        memcpy(&str, img + eh.e_shoff + (size_t)sh.sh_link * sizeof str, sizeof str);
        if (!range_ok(size, str.sh_offset, str.sh_size))
            return "ELF dynamic string table is malformed";
        const char *strtab = (const char *)img + str.sh_offset;
        for (uint64_t s = 0; s < sh.sh_size / sizeof(Elf64_Sym); s++) {
            Elf64_Sym sym;
            memcpy(&sym, img + sh.sh_offset + s * sizeof sym, sizeof sym);
            if (sym.st_shndx == SHN_UNDEF || sym.st_name >= str.sh_size)
                continue;
            const char *name = strtab + sym.st_name;
            size_t maxlen = str.sh_size - sym.st_name;
            if (strnlen(name, maxlen) == maxlen)
                continue;
            if (strcmp(name, "__p2n_module") == 0)
                have_module = 1;
            else if (strcmp(name, "__p2n_rt") == 0)
                have_rt = 1;
        }
    }
    if (!have_dynsym)
        return "ELF shared object has no dynamic symbol table";
    if (!have_module || !have_rt)
        return "not a ptx2native host code object (no __p2n_module/__p2n_rt symbols)";
    return NULL;
}

static int is_pow2(uint32_t v) { return v && !(v & (v - 1)); }

/* Kernel i of the table: version 1 entries end before block_entry, versions 2 and 3 before coro_entry, version 4
 * before own_smem_bytes (their stride is that field's offset). */
static const p2n_kernel_desc *kdesc(const p2n_module_desc *d, uint32_t i) {
    size_t stride = d->abi_version == 1   ? offsetof(p2n_kernel_desc, block_entry)
                    : d->abi_version <= 3 ? offsetof(p2n_kernel_desc, coro_entry)
                    : d->abi_version == 4 ? offsetof(p2n_kernel_desc, own_smem_bytes)
                                          : sizeof(p2n_kernel_desc);
    return (const p2n_kernel_desc *)(const void *)((const char *)d->kernels + (size_t)i * stride);
}

static const char *check_desc(const p2n_module_desc *d, char *why, size_t whylen) {
    if (d->nkernels > (1u << 20) || (d->nkernels && !d->kernels))
        return "module descriptor has a bad kernel table";
    if (d->nglobals > (1u << 24) || (d->nglobals && !d->globals))
        return "module descriptor has a bad global table";
    for (uint32_t i = 0; i < d->nkernels; i++) {
        const p2n_kernel_desc *k = kdesc(d, i);
        if (!k->name || !k->entry) {
            snprintf(why, whylen, "kernel #%u has no name or entry point", i);
            return why;
        }
        if (k->num_params > 4096 || (k->num_params && (!k->param_offsets || !k->param_sizes))) {
            snprintf(why, whylen, "kernel '%s' has a bad parameter table", k->name);
            return why;
        }
        for (uint32_t p = 0; p < k->num_params; p++)
            if ((uint64_t)k->param_offsets[p] + k->param_sizes[p] > k->param_buffer_size) {
                snprintf(why, whylen, "kernel '%s': parameter %u lies outside the parameter buffer", k->name, p);
                return why;
            }
        if (k->dynamic_smem_align && !is_pow2(k->dynamic_smem_align)) {
            snprintf(why, whylen, "kernel '%s': dynamic shared alignment %u is not a power of two", k->name,
                     k->dynamic_smem_align);
            return why;
        }
        uint64_t maxn = (uint64_t)k->maxntid[0] * (k->maxntid[1] ? k->maxntid[1] : 1) * (k->maxntid[2] ? k->maxntid[2] : 1);
        uint64_t reqn = (uint64_t)k->reqntid[0] * (k->reqntid[1] ? k->reqntid[1] : 1) * (k->reqntid[2] ? k->reqntid[2] : 1);
        if (maxn > 1024 || reqn > 1024) {
            snprintf(why, whylen, "kernel '%s': .maxntid/.reqntid exceeds 1024 threads", k->name);
            return why;
        }
        for (uint32_t j = 0; j < i; j++)
            if (strcmp(kdesc(d, j)->name, k->name) == 0) {
                snprintf(why, whylen, "kernel '%s' is defined twice", k->name);
                return why;
            }
    }
    for (uint32_t i = 0; i < d->nglobals; i++)
        if (!d->globals[i].name || (d->globals[i].size && !d->globals[i].addr)) {
            snprintf(why, whylen, "global #%u has no name or address", i);
            return why;
        }
    return NULL;
}

cpu_status cpu_module_load(const void *image, size_t size, cpu_module **out, char **error) {
    if (error)
        *error = NULL;
    if (!out || (!image && size))
        return fail(error, CPU_ERR_INVALID_VALUE, "cpu_module_load: NULL argument");
    *out = NULL;
    if (!image)
        return fail(error, CPU_ERR_INVALID_IMAGE, "host code object: empty image");
    const char *why = check_elf(image, size);
    if (why)
        return fail(error, CPU_ERR_INVALID_IMAGE, "host code object: %s", why);

    int fd = memfd_create("p2n-host-module", MFD_CLOEXEC);
    if (fd < 0)
        return fail(error, CPU_ERR_NO_MEMORY, "host code object: memfd_create failed: %s", strerror(errno));
    const uint8_t *p = image;
    size_t left = size;
    while (left) {
        ssize_t w = write(fd, p, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int e = errno;
            close(fd);
            return fail(error, CPU_ERR_NO_MEMORY, "host code object: writing the memfd failed: %s", strerror(e));
        }
        p += w;
        left -= (size_t)w;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        cpu_status st = fail(error, CPU_ERR_INVALID_IMAGE, "host code object: dlopen failed: %s", e ? e : "?");
        close(fd);
        return st;
    }
    const p2n_module_desc *d = dlsym(h, "__p2n_module");
    const p2n_rt_table **rt = dlsym(h, "__p2n_rt");
    char whybuf[256];
    cpu_status st = CPU_OK;
    if (!d || !rt)
        st = fail(error, CPU_ERR_INVALID_IMAGE, "host code object: __p2n_module or __p2n_rt not found");
    else if (d->abi_version < 1 || d->abi_version > P2N_HOST_ABI_VERSION) /* 1, 2: ctx without launch_flags */
        st = fail(error, CPU_ERR_INVALID_IMAGE,
                  "host code object: ABI version %u, this runtime implements version %u (recompile the module)",
                  d->abi_version, P2N_HOST_ABI_VERSION);
    else if ((why = check_desc(d, whybuf, sizeof whybuf)) != NULL)
        st = fail(error, CPU_ERR_INVALID_IMAGE, "host code object: %s", why);
    cpu_module *m = NULL;
    if (st == CPU_OK) {
        m = calloc(1, sizeof *m);
        if (m && d->nkernels)
            m->kernels = calloc(d->nkernels, sizeof *m->kernels);
        if (!m || (d->nkernels && !m->kernels)) {
            if (m)
                free(m);
            m = NULL;
            st = fail(error, CPU_ERR_NO_MEMORY, "host code object: out of memory");
        }
    }
    if (st != CPU_OK) {
        dlclose(h);
        close(fd);
        return st;
    }
    *rt = &p2n_cpu_rt_table;
    m->handle = h;
    m->fd = fd;
    m->desc = d;
    m->nkernels = d->nkernels;
    /* P2N_CPU_WORK_ITEM_LOOPS=0: kernels with barriers run their coroutine entries instead (comparisons, bench) */
    const char *wi_env = getenv("P2N_CPU_WORK_ITEM_LOOPS");
    bool wi_off = wi_env && wi_env[0] == '0';
    for (uint32_t i = 0; i < d->nkernels; i++) {
        m->kernels[i].module = m;
        m->kernels[i].desc = kdesc(d, i);
        /* the flag and the entry must agree: an object claiming one without the other gets fibers */
        uint32_t kf = m->kernels[i].desc->flags;
        m->kernels[i].fiber_stub = kf & P2N_KERNEL_FIBER_STUB;
        if (d->abi_version >= 4 && (kf & P2N_KERNEL_CORO))
            m->kernels[i].coro_entry = m->kernels[i].desc->coro_entry;
        if (d->abi_version >= 2 && (kf & P2N_KERNEL_THREAD_LOOP)) {
            bool skip = wi_off && (kf & P2N_KERNEL_WORK_ITEM_LOOPS);
            if (skip && m->kernels[i].fiber_stub && !m->kernels[i].coro_entry) { /* no way without them */
                cpu_note_fast_only(&m->kernels[i], "P2N_CPU_WORK_ITEM_LOOPS");
                skip = false;
            }
            if (!skip) m->kernels[i].block_entry = m->kernels[i].desc->block_entry;
        }
        m->kernels[i].own_smem_valid = d->abi_version >= 5;
    }
    *out = m;
    return CPU_OK;
}

void cpu_note_fast_only(cpu_kernel *k, const char *var) {
    if (__atomic_exchange_n(&k->way_noted, true, __ATOMIC_RELAXED)) return;
    fprintf(stderr, "libcuda (ptx2native): %s=0 does not apply to kernel '%s': its precompiled host code has only "
            "its fastest entry (build it with ptx2native --host-entries=all, or let the JIT compile the PTX)\n",
            var, k->desc->name);
}

void cpu_module_unload(cpu_module *m) {
    if (!m)
        return;
    dlclose(m->handle);
    close(m->fd);
    free(m->kernels);
    free(m);
}

cpu_status cpu_module_get_kernel(cpu_module *m, const char *name, cpu_kernel **out) {
    if (!m || !name || !out)
        return CPU_ERR_INVALID_VALUE;
    for (uint32_t i = 0; i < m->nkernels; i++)
        if (strcmp(m->kernels[i].desc->name, name) == 0) {
            *out = &m->kernels[i];
            return CPU_OK;
        }
    return CPU_ERR_NOT_FOUND;
}

cpu_status cpu_module_get_global(cpu_module *m, const char *name, void **addr, size_t *size) {
    if (!m || !name)
        return CPU_ERR_INVALID_VALUE;
    for (uint32_t i = 0; i < m->desc->nglobals; i++)
        if (strcmp(m->desc->globals[i].name, name) == 0) {
            if (addr)
                *addr = m->desc->globals[i].addr;
            if (size)
                *size = (size_t)m->desc->globals[i].size;
            return CPU_OK;
        }
    return CPU_ERR_NOT_FOUND;
}

void cpu_kernel_get_info(const cpu_kernel *k, cpu_kernel_info *info) {
    const p2n_kernel_desc *d = k->desc;
    memset(info, 0, sizeof *info);
    info->name = d->name;
    info->num_params = d->num_params;
    info->param_offsets = d->param_offsets;
    info->param_sizes = d->param_sizes;
    info->param_buffer_size = d->param_buffer_size;
    /* objects older than version 5 only know the module-wide window */
    info->static_shared_bytes = k->own_smem_valid ? d->own_smem_bytes : d->static_smem_bytes;
    info->local_bytes = d->local_bytes;
    bool waits = d->flags & (P2N_KERNEL_USES_BARRIERS | P2N_KERNEL_USES_WARP_OPS | P2N_KERNEL_MAY_SPIN);
    /* the hints name the variables that select another way only where the object has one (fiber_stub: not) */
    info->execution = k->block_entry && (d->flags & P2N_KERNEL_WORK_ITEM_LOOPS)
                          ? k->fiber_stub
                                ? "work-item loops: the code between two barriers as a loop over the block's threads"
                                : "work-item loops: the code between two barriers as a loop over the block's threads "
                                  "(P2N_CPU_WORK_ITEM_LOOPS=0: coroutines)"
                      : k->block_entry ? "a loop over each block's threads (no thread waits for another)"
                      : k->coro_entry ? k->fiber_stub ? "coroutines, one stack per block"
                                                      : "coroutines, one stack per block (P2N_CPU_CORO=0: fibers)"
                      : waits ? "fibers, a stack per thread (a wait lies in a called function, or the kernel uses "
                                "activemask or isspacep.local: targets/host/host_coro.c)"
                              : "fibers that never switch";
    uint32_t maxt = 1024;
    if (d->maxntid[0]) {
        uint32_t n = d->maxntid[0] * (d->maxntid[1] ? d->maxntid[1] : 1) * (d->maxntid[2] ? d->maxntid[2] : 1);
        if (n < maxt)
            maxt = n;
    }
    if (d->reqntid[0]) {
        uint32_t n = d->reqntid[0] * (d->reqntid[1] ? d->reqntid[1] : 1) * (d->reqntid[2] ? d->reqntid[2] : 1);
        if (n < maxt)
            maxt = n;
        for (int i = 0; i < 3; i++)
            info->reqntid[i] = d->reqntid[i] ? d->reqntid[i] : 1;
    }
    info->max_threads_per_block = maxt;
    info->cluster_launch = (d->flags & P2N_KERNEL_CLUSTER_LAUNCH) != 0;
    info->cluster_dims_fixed = (d->flags & P2N_KERNEL_CLUSTER_DIMS) != 0;
}
