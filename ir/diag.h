/* diag.h — diagnostics in `file:line:col: error: message` form, collected so a run reports every error. */
#ifndef P2N_DIAG_H
#define P2N_DIAG_H

#include <stddef.h>
#include <stdint.h>

typedef struct p2n_diags {
    const char *file;
    char *text;        /* all messages, one per line */
    size_t len, cap;
    unsigned nerrors, nwarnings;
    unsigned max_errors; /* stop recording (not counting) beyond this many; 0 = 200 */
    /* Linked modules (passes/link_modules.c): a line above seg_base[k] (and not above seg_base[k+1]) is line
     * `line - seg_base[k]` of seg_file[k]. nsegs 0: every line is in `file`. */
    unsigned nsegs;
    const char *const *seg_file;
    const uint32_t *seg_base;
} p2n_diags;

void diag_error(p2n_diags *d, uint32_t line, uint32_t col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void diag_warning(p2n_diags *d, uint32_t line, uint32_t col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* A message without a source position (`file: error: ...`). */
void diag_plain(p2n_diags *d, const char *kind, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void diag_free(p2n_diags *d);
/* The input file a line of the (possibly linked) module belongs to; *line becomes the line in that file. */
const char *diag_locate(const p2n_diags *d, uint32_t *line);

#endif
