/* json.c — JSON string output for reports and `list --json`.
 *
 * File names are bytes, not text: valid UTF-8 passes through unchanged (so names read back exactly); control
 * characters, DEL and every byte that is not part of a valid UTF-8 sequence (overlong forms, surrogates, code
 * points above U+10FFFF, stray continuation bytes) become \u00XX. JSON has no escape for a raw byte, so an
 * invalid byte 0xNN reads back as U+00NN: the output is always valid JSON, and such names are marked rather
 * than lost. */
#include "tool.h"

#include <stdint.h>

/* Length of the valid UTF-8 sequence starting at s[0] (a byte >= 0x80), 0 if it is not one. */
static size_t utf8_len(const unsigned char *s, size_t n) {
    unsigned char c = s[0];
    size_t len;
    uint32_t cp;
    if (c >= 0xc2 && c <= 0xdf) len = 2, cp = c & 0x1f;
    else if (c >= 0xe0 && c <= 0xef) len = 3, cp = c & 0x0f;
    else if (c >= 0xf0 && c <= 0xf4) len = 4, cp = c & 0x07;
    else return 0; /* continuation byte, overlong 0xc0/0xc1, or 0xf5.. */
    if (n < len) return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80) return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    static const uint32_t min_cp[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min_cp[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
    return len;
}

void json_str(FILE *o, const char *s, size_t n) {
    const unsigned char *u = (const unsigned char *)s;
    fputc('"', o);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = u[i];
        if (c == '"' || c == '\\') fprintf(o, "\\%c", c);
        else if (c == '\n') fputs("\\n", o);
        else if (c == '\t') fputs("\\t", o);
        else if (c == '\r') fputs("\\r", o);
        else if (c < 0x20 || c == 0x7f) fprintf(o, "\\u%04x", c);
        else if (c < 0x80) fputc(c, o);
        else {
            size_t k = utf8_len(u + i, n - i);
            if (!k) fprintf(o, "\\u%04x", c);
            else {
                fwrite(u + i, 1, k, o);
                i += k - 1;
            }
        }
    }
    fputc('"', o);
}
