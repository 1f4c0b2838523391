/* diag.c — formatting and collecting diagnostics. */
#include "diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void append(p2n_diags *d, const char *s, size_t n) {
    if (d->len + n + 1 > d->cap) {
        size_t c = d->cap ? d->cap * 2 : 1024;
        while (c < d->len + n + 1) c *= 2;
        char *t = realloc(d->text, c);
        if (!t) return; /* diagnostics are best effort under memory exhaustion; the count still rises */
        d->text = t;
        d->cap = c;
    }
    memcpy(d->text + d->len, s, n);
    d->len += n;
    d->text[d->len] = 0;
}

static void emit(p2n_diags *d, const char *kind, uint32_t line, uint32_t col, const char *fmt, va_list ap) {
    unsigned limit = d->max_errors ? d->max_errors : 200;
    unsigned total = d->nerrors + d->nwarnings;
    if (total > limit) return;
    char buf[1024];
    int n;
    const char *file = diag_locate(d, &line);
    if (total == limit) {
        n = snprintf(buf, sizeof buf, "%s: note: too many diagnostics, further ones are not shown\n",
                     d->file ? d->file : "<input>");
    } else {
        n = line ? snprintf(buf, sizeof buf, "%s:%u:%u: %s: ", file ? file : "<input>", line, col, kind)
                 : snprintf(buf, sizeof buf, "%s: %s: ", file ? file : "<input>", kind);
        if (n < 0) n = 0;
        int m = vsnprintf(buf + n, sizeof buf - (size_t)n - 1, fmt, ap);
        if (m > 0) n += m;
        if ((size_t)n > sizeof buf - 2) n = (int)sizeof buf - 2;
        buf[n++] = '\n';
        buf[n] = 0;
    }
    append(d, buf, (size_t)n);
}

void diag_error(p2n_diags *d, uint32_t line, uint32_t col, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    emit(d, "error", line, col, fmt, ap);
    va_end(ap);
    d->nerrors++;
}

void diag_warning(p2n_diags *d, uint32_t line, uint32_t col, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    emit(d, "warning", line, col, fmt, ap);
    va_end(ap);
    d->nwarnings++;
}

void diag_plain(p2n_diags *d, const char *kind, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    emit(d, kind, 0, 0, fmt, ap);
    va_end(ap);
    if (strcmp(kind, "error") == 0) d->nerrors++;
    else d->nwarnings++;
}

const char *diag_locate(const p2n_diags *d, uint32_t *line) {
    for (unsigned k = d->nsegs; *line && k-- > 0;) /* which linked input the line belongs to */
        if (*line > d->seg_base[k]) {
            *line -= d->seg_base[k];
            return d->seg_file[k];
        }
    return d->file;
}

void diag_free(p2n_diags *d) {
    free(d->text);
    d->text = NULL;
    d->len = d->cap = 0;
}
