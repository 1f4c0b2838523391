/* parser.h — PTX text to IR. */
#ifndef P2N_PARSER_H
#define P2N_PARSER_H

#include "diag.h"
#include "ir.h"

/* Parses a whole module. Returns the module even when there were errors (diags->nerrors > 0) so a caller can
 * inspect it, but such a module must not be compiled. Never returns NULL except when out of memory. */
ir_module *ptx_parse(const char *src, size_t len, p2n_diags *diags);

#endif
