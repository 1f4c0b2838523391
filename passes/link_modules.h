/* link_modules.h — links several parsed PTX modules into one (separate compilation, nvcc -rdc=true).
 *
 * Symbols with linkage (.visible, .extern, .weak, .common, and every .entry) are resolved across the modules
 * as the PTX ISA's "Linking directives" section says: a definition satisfies the .extern declarations of the
 * other modules, a strong (.visible) definition wins over .weak ones (else the first .weak one), .common
 * variables take the largest size. Symbols without linkage stay private to their module and are renamed when
 * their name is taken (`name$p2nN`). Kernels of every module end up in the output.
 *
 * Errors (each names the symbol and both locations): two strong definitions, a type or size mismatch between
 * a declaration and the definition, a variable and a function of one name, different .address_size, and a
 * symbol that is .extern in every module yet used (the error points at the use; dynamic .extern .shared
 * arrays and the runtime functions vprintf/malloc/free/__assertfail are exempt).
 *
 * Line numbers of the output are made unique across the inputs (input k's lines are offset by the line
 * counts of inputs 0..k-1) and `d` learns the mapping (p2n_diags.nsegs), so every later diagnostic names the
 * right file and line. */
#ifndef P2N_LINK_MODULES_H
#define P2N_LINK_MODULES_H

#include "diag.h"
#include "ir.h"

/* mods[k] was parsed from files[k], which has lines[k] lines. Returns the linked module (the inputs are left
 * as they were; the caller frees them), or NULL after reporting errors in `d`. `seg_base` (n entries, owned by
 * the caller, alive as long as `d` is used) receives the line offsets that `d` then refers to. */
ir_module *link_modules(ir_module *const *mods, const char *const *files, const uint32_t *lines, unsigned n,
                        p2n_diags *d, uint32_t *seg_base);

#endif
