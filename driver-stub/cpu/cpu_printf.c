/* cpu_printf.c — CUDA device printf: a format string plus the packed argument buffer the compiler builds.
 *
 * Buffer layout (what nvcc/clang emit for vprintf): the arguments after default promotions, each at its natural
 * alignment: char/short/int/unsigned -> 4 bytes; long, long long, size_t, ptrdiff_t, intmax_t -> 8 bytes;
 * float/double -> double (8 bytes); %s/%p/%n -> an 8-byte pointer. */
#include "cpu_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int p2n_buf_reserve(p2n_buf *b, size_t extra) {
    if (b->len + extra + 1 <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1)
        cap *= 2;
    char *d = realloc(b->data, cap);
    if (!d)
        return -1;
    b->data = d;
    b->cap = cap;
    return 0;
}

void p2n_buf_append(p2n_buf *b, const char *s, size_t n) {
    if (!n || p2n_buf_reserve(b, n))
        return;
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = 0;
}

static void append_fmt(p2n_buf *b, const char *spec, ...) __attribute__((format(printf, 2, 3)));
static void append_fmt(p2n_buf *b, const char *spec, ...) {
    char small[128];
    va_list ap;
    va_start(ap, spec);
    int n = vsnprintf(small, sizeof small, spec, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        p2n_buf_append(b, small, (size_t)n);
        return;
    }
    if (p2n_buf_reserve(b, (size_t)n))
        return;
    va_start(ap, spec);
    vsnprintf(b->data + b->len, (size_t)n + 1, spec, ap);
    va_end(ap);
    b->len += (size_t)n;
}

typedef struct argreader {
    const uint8_t *base;
    size_t off;
    int count;
} argreader;

static uint64_t take(argreader *r, unsigned size) {
    r->off = (r->off + size - 1) & ~(size_t)(size - 1);
    uint64_t v = 0;
    if (r->base) {
        if (size == 4) {
            uint32_t w;
            memcpy(&w, r->base + r->off, 4);
            v = w;
        } else {
            memcpy(&v, r->base + r->off, 8);
        }
    }
    r->off += size;
    r->count++;
    return v;
}

int p2n_format_printf(p2n_buf *out, const char *fmt, const void *args) {
    if (!fmt)
        return -1;
    argreader r = {args, 0, 0};
    const char *p = fmt;
    while (*p) {
        if (*p != '%') {
            const char *q = strchr(p, '%');
            size_t n = q ? (size_t)(q - p) : strlen(p);
            p2n_buf_append(out, p, n);
            p += n;
            continue;
        }
        const char *start = p++;
        if (*p == '%') {
            p2n_buf_append(out, "%", 1);
            p++;
            continue;
        }
        /* Rebuild a host format spec: % flags width .precision length conv, '*' resolved to numbers. */
        char spec[64];
        size_t sl = 0;
        spec[sl++] = '%';
        while (*p && strchr("-+ #0'", *p)) {
            if (sl < 12)
                spec[sl++] = *p;
            p++;
        }
        int width = -1, prec = -1, width_star = 0;
        if (*p == '*') {
            width = (int)(int32_t)take(&r, 4);
            width_star = 1;
            p++;
        } else if (*p >= '0' && *p <= '9') {
            width = 0;
            while (*p >= '0' && *p <= '9') {
                if (width < 100000)
                    width = width * 10 + (*p - '0');
                p++;
            }
        }
        if (*p == '.') {
            p++;
            prec = 0;
            if (*p == '*') {
                prec = (int)(int32_t)take(&r, 4);
                p++;
            } else {
                while (*p >= '0' && *p <= '9') {
                    if (prec < 100000)
                        prec = prec * 10 + (*p - '0');
                    p++;
                }
            }
        }
        if (width_star && width < 0) { /* a negative '*' width means left-justify */
            if (sl < 13)
                spec[sl++] = '-';
            width = -width;
        }
        if (width >= 0)
            sl += (size_t)snprintf(spec + sl, sizeof spec - sl, "%d", width);
        if (prec >= 0)
            sl += (size_t)snprintf(spec + sl, sizeof spec - sl, ".%d", prec);
        int wide = 0, half = 0; /* 8-byte integer argument; h / hh conversions of the promoted int */
        for (;;) {
            if (*p == 'l' || *p == 'j' || *p == 'z' || *p == 't' || *p == 'q') {
                wide = 1;
                p++;
            } else if (*p == 'h') {
                half++;
                p++;
            } else if (*p == 'L') {
                p++;
            } else {
                break;
            }
        }
        char conv = *p;
        if (!conv) { /* dangling '%...' at the end: print it as is */
            p2n_buf_append(out, start, strlen(start));
            break;
        }
        p++;
        switch (conv) {
        case 'd': case 'i': case 'u': case 'o': case 'x': case 'X': {
            uint64_t v = take(&r, wide ? 8 : 4);
            spec[sl++] = 'l';
            spec[sl++] = 'l';
            spec[sl++] = conv;
            spec[sl] = 0;
            long long sv = wide ? (long long)v : (long long)(int32_t)(uint32_t)v;
            unsigned long long uv = wide ? (unsigned long long)v : (unsigned long long)(uint32_t)v;
            if (!wide && half == 1) {
                sv = (int16_t)(uint16_t)v;
                uv = (uint16_t)v;
            } else if (!wide && half >= 2) {
                sv = (int8_t)(uint8_t)v;
                uv = (uint8_t)v;
            }
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
            if (conv == 'd' || conv == 'i')
                append_fmt(out, spec, sv);
            else
                append_fmt(out, spec, uv);
#pragma GCC diagnostic pop
            break;
        }
        case 'c': {
            uint64_t v = take(&r, wide ? 8 : 4);
            spec[sl++] = 'c';
            spec[sl] = 0;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
            append_fmt(out, spec, (int)(unsigned char)v);
#pragma GCC diagnostic pop
            break;
        }
        case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A': {
            uint64_t v = take(&r, 8);
            double d;
            memcpy(&d, &v, 8);
            spec[sl++] = conv;
            spec[sl] = 0;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
            append_fmt(out, spec, d);
#pragma GCC diagnostic pop
            break;
        }
        case 's': case 'p': {
            uint64_t v = take(&r, 8);
            const char *s = (const char *)(uintptr_t)v;
            spec[sl++] = conv;
            spec[sl] = 0;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
            if (conv == 'p')
                append_fmt(out, spec, (void *)(uintptr_t)v);
            else
                append_fmt(out, spec, s ? s : "(null)");
#pragma GCC diagnostic pop
            break;
        }
        case 'n':
            take(&r, 8); /* not supported on the device either: consumes the pointer, prints nothing */
            break;
        default: /* unknown conversion: print the spec text unchanged, consume nothing */
            p2n_buf_append(out, start, (size_t)(p - start));
            break;
        }
    }
    return r.count;
}
