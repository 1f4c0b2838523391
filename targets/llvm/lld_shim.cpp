// lld_shim.cpp — the one C++ file: lld has no C API. Links object files into an ELF shared object in
// process, serialised by a mutex (lld keeps global state). Returns -1 when in-process lld may not be used
// again (the caller then runs ld.lld as a subprocess).
#include <mutex>
#include <vector>
#include <string>

#include "lld/Common/Driver.h"
#include "llvm/Support/raw_ostream.h"

LLD_HAS_DRIVER(elf)

static std::mutex lld_mutex;
static bool lld_broken;

extern "C" int p2n_lld_link_elf(const char *const *args, int nargs, char *err, unsigned long errlen) {
    std::lock_guard<std::mutex> lock(lld_mutex);
    if (lld_broken) return -1;
    std::string out, errs;
    llvm::raw_string_ostream os(out), es(errs);
    std::vector<const char *> argv(args, args + nargs);
    lld::Result r = lld::lldMain(argv, os, es, {{lld::Gnu, &lld::elf::link}});
    es.flush();
    if (err && errlen) {
        size_t n = errs.size() < errlen - 1 ? errs.size() : errlen - 1;
        errs.copy(err, n);
        err[n] = 0;
    }
    if (!r.canRunAgain) lld_broken = true;
    if (r.retCode != 0) return r.canRunAgain ? 1 : -1;
    return 0;
}
