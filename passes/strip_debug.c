/* strip_debug.c — removes debug-location and pragma pseudo-instructions from function bodies. Code generation
 * does not use them, and -G modules carry one per instruction. (Module-level .file/.section items stay, so
 * --emit=ir after this pass still prints a valid module.) */
#include "passes.h"

bool pass_strip_debug(ir_module *m, const pass_options *opt) {
    (void)opt;
    bool changed = false;
    for (uint32_t fi = 0; fi < m->nfuncs; fi++) {
        ir_func *f = &m->funcs[fi];
        for (uint32_t b = 0; b < f->nblocks; b++) {
            ir_block *blk = &f->blocks[b];
            uint32_t w = 0;
            for (uint32_t i = 0; i < blk->n; i++) {
                if (blk->ins[i].op == IR_OP_LOC || blk->ins[i].op == IR_OP_PRAGMA) { changed = true; continue; }
                blk->ins[w++] = blk->ins[i];
            }
            blk->n = w;
        }
    }
    return changed;
}
