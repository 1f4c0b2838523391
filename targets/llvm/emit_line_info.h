/* emit_line_info.h — --line-info (p2n_options.line_info): PTX source lines on the emitted code (emit_line_info.c). */
#ifndef P2N_EMIT_LINE_INFO_H
#define P2N_EMIT_LINE_INFO_H

#include "emit.h"

void line_info_begin(emit_ctx *E);          /* the compile unit and files; E->line_info set */
void line_info_function(emit_ctx *E);       /* a subprogram for E->cur (E->f) */
void line_info_at(emit_ctx *E, const ir_ins *ins); /* E->B's location: this PTX instruction's */
void line_info_function_end(emit_ctx *E);
void line_info_finish(emit_ctx *E);         /* before the module leaves emission */

#endif
