/* emit_line_info.c — --line-info: a DWARF line table mapping the generated code to PTX source lines.
 *
 * What nvcc's -lineinfo gives a CUDA developer (profilers and debuggers name the line of a hot or faulting
 * instruction), here for the PTX we compiled: every LLVM instruction emitted for a PTX instruction carries that
 * instruction's line and column, every function a subprogram, and LLVM keeps the locations through optimisation
 * and code generation (`.loc` in assembly, .debug_line in objects). Code the optimiser inlines from bodies without
 * locations (math libraries) takes the line of the PTX instruction it was inlined for. Line info changes no
 * instruction LLVM generates; it only adds the tables.
 *
 * Linked inputs (ptx2native a.ptx b.ptx) keep their own files: a line of segment k (p2n_diags.seg_base) is that
 * file's line, through a lexical-block-file scope of the function's subprogram.
 */
#include "emit_line_info.h"

#include "debug_locs.h"

#include <llvm-c/DebugInfo.h>
#include <stdlib.h>
#include <string.h>

struct line_info {
    LLVMDIBuilderRef dib;
    LLVMMetadataRef *files;  /* per segment (one when the module is one file) */
    unsigned nfiles;
    LLVMMetadataRef sub_ty;  /* void() */
    LLVMMetadataRef sp;      /* subprogram of the function being emitted */
    LLVMMetadataRef *scopes; /* per segment: the scope of a location in that file, inside sp */
};

static LLVMMetadataRef make_file(LLVMDIBuilderRef dib, const char *path) {
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t dirlen = slash ? (size_t)(slash - path) : 1;
    return LLVMDIBuilderCreateFile(dib, base, strlen(base), slash ? path : ".", dirlen);
}

/* the linked input (index into files/scopes) a module line belongs to, and *line within that input's file:
 * diagnostics' mapping (diag_locate), its file found among the segments */
static unsigned seg_of(const p2n_diags *d, uint32_t *line) {
    const char *file = diag_locate(d, line);
    for (unsigned k = 0; k < d->nsegs; k++)
        if (d->seg_file[k] == file) return k;
    return 0;
}

void line_info_begin(emit_ctx *E) {
    struct line_info *L = calloc(1, sizeof *L);
    L->dib = LLVMCreateDIBuilder(E->M);
    L->nfiles = E->d->nsegs ? E->d->nsegs : 1;
    L->files = calloc(L->nfiles, sizeof *L->files);
    L->scopes = calloc(L->nfiles, sizeof *L->scopes);
    for (unsigned k = 0; k < L->nfiles; k++)
        L->files[k] = make_file(L->dib, E->d->nsegs ? E->d->seg_file[k] : (E->d->file ? E->d->file : "<ptx>"));
    static const char producer[] = "ptx2native";
    LLVMDIBuilderCreateCompileUnit(L->dib, LLVMDWARFSourceLanguageC, L->files[0], producer, sizeof producer - 1,
                                   1 /* optimised */, "", 0, 0, "", 0, LLVMDWARFEmissionLineTablesOnly, 0, 0, 0,
                                   "", 0, "", 0);
    L->sub_ty = LLVMDIBuilderCreateSubroutineType(L->dib, L->files[0], NULL, 0, LLVMDIFlagZero);
    LLVMAddModuleFlag(E->M, LLVMModuleFlagBehaviorWarning, "Debug Info Version", 18,
                      LLVMValueAsMetadata(LLVMConstInt(E->i32, LLVMDebugMetadataVersion(), 0)));
    LLVMAddModuleFlag(E->M, LLVMModuleFlagBehaviorWarning, "Dwarf Version", 13,
                      LLVMValueAsMetadata(LLVMConstInt(E->i32, 5, 0)));
    E->line_info = L;
}

void line_info_function(emit_ctx *E) {
    struct line_info *L = E->line_info;
    if (!L) return;
    uint32_t line = E->f->line;
    unsigned k = seg_of(E->d, &line);
    size_t len = 0;
    const char *name = LLVMGetValueName2(E->cur, &len);
    L->sp = LLVMDIBuilderCreateFunction(L->dib, L->files[k], name, len, name, len, L->files[k], line, L->sub_ty,
                                        1 /* local */, 1 /* definition */, line, LLVMDIFlagZero, 1 /* optimised */);
    LLVMSetSubprogram(E->cur, L->sp);
    for (unsigned s = 0; s < L->nfiles; s++)
        L->scopes[s] = s == k ? L->sp : LLVMDIBuilderCreateLexicalBlockFile(L->dib, L->sp, L->files[s], 0);
}

void line_info_at(emit_ctx *E, const ir_ins *ins) {
    struct line_info *L = E->line_info;
    if (!L || !L->sp) return;
    uint32_t line = ins->line;
    unsigned k = seg_of(E->d, &line);
    LLVMSetCurrentDebugLocation2(E->B, LLVMDIBuilderCreateDebugLocation(E->C, line, ins->col, L->scopes[k], NULL));
}

void line_info_function_end(emit_ctx *E) {
    struct line_info *L = E->line_info;
    if (!L) return;
    LLVMSetCurrentDebugLocation2(E->B, NULL);
    L->sp = NULL;
}

void line_info_finish(emit_ctx *E) {
    struct line_info *L = E->line_info;
    if (!L) return;
    LLVMDIBuilderFinalize(L->dib);
    LLVMDisposeDIBuilder(L->dib);
    debug_locs_rehome(E->M); /* the targets' entry wrappers around bodies: subprograms of their own */
    free(L->files);
    free(L->scopes);
    free(L);
    E->line_info = NULL;
}
