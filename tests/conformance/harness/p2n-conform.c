/*
 * p2n-conform: conformance harness for ptx2native.
 *
 * Runs PTX conformance cases through the CUDA driver API only (whatever
 * libcuda.so.1 the dynamic loader finds) and either records the results
 * (--record OUTDIR) or checks them against recorded ones (--check EXPDIR).
 * --dry-run parses and validates the case files without touching a GPU.
 *
 * Every case runs in a forked child process (the parent never initialises
 * CUDA), with a timeout, so that a trap or a crash cannot end the run.
 * The case and result formats are described in ../README.md.
 */
#define _GNU_SOURCE
#define CUDA_ENABLE_DEPRECATED 1 /* texture/surface references (`ref`): deprecated API, still in libcuda */
#include <cuda.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_BUFS 32
#define MAX_OUTS 32
#define MAX_LAUNCHES 16
#define MAX_PARAMS 48
#define MAX_PARAM_BYTES 256
#define NAME_LEN 128
#define MAX_ARRAYS 8
#define MAX_OBJS 16

/* ------------------------------------------------------------------ */
/* utilities                                                           */

static void *xmalloc(size_t n)
{
    void *p = calloc(1, n ? n : 1);
    if (!p) {
        fprintf(stderr, "p2n-conform: out of memory\n");
        exit(2);
    }
    return p;
}

static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = xmalloc(n);
    memcpy(p, s, n);
    return p;
}

/* The whole stream (a file or a pipe), NUL-terminated; NULL when out of memory. The caller closes it. */
static char *read_stream(FILE *f, size_t *len)
{
    size_t cap = 4096, n = 0;
    char *buf = xmalloc(cap);
    for (;;) {
        if (n + 4096 + 1 > cap) {
            cap *= 2;
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                return NULL;
            }
            buf = nb;
        }
        size_t r = fread(buf + n, 1, 4096, f);
        n += r;
        if (r < 4096)
            break;
    }
    buf[n] = 0;
    if (len)
        *len = n;
    return buf;
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = read_stream(f, len);
    fclose(f);
    return buf;
}

/* The expected result of a case: <name>.out, or <name>.out.gz (large recordings, e.g. family sweep, are kept
 * compressed: the suite's text is ~8x smaller), decompressed by gzip through a pipe. */
static char *read_expected(const char *path, size_t *len)
{
    char *t = read_file(path, len);
    if (t)
        return t;
    char gz[8300], cmd[8400];
    snprintf(gz, sizeof gz, "%s.gz", path);
    if (access(gz, R_OK) != 0 || strchr(gz, '\''))
        return NULL;
    snprintf(cmd, sizeof cmd, "gzip -dc -- '%s'", gz);
    FILE *f = popen(cmd, "r");
    if (!f)
        return NULL;
    char *buf = read_stream(f, len);
    if (pclose(f) != 0) { /* gzip failed: a damaged .gz is no expected result */
        free(buf);
        return NULL;
    }
    return buf;
}

static int mkdir_p(const char *path)
{
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s", path);
    for (char *p = tmp + 1; *p; p++) {
        if (*p == '/') {
            *p = 0;
            if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    }
    if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
        return -1;
    return 0;
}

static const struct {
    int code;
    const char *name;
} g_errnames[] = {
    {0, "CUDA_SUCCESS"},
    {1, "CUDA_ERROR_INVALID_VALUE"},
    {2, "CUDA_ERROR_OUT_OF_MEMORY"},
    {3, "CUDA_ERROR_NOT_INITIALIZED"},
    {4, "CUDA_ERROR_DEINITIALIZED"},
    {34, "CUDA_ERROR_STUB_LIBRARY"},
    {100, "CUDA_ERROR_NO_DEVICE"},
    {101, "CUDA_ERROR_INVALID_DEVICE"},
    {200, "CUDA_ERROR_INVALID_IMAGE"},
    {201, "CUDA_ERROR_INVALID_CONTEXT"},
    {209, "CUDA_ERROR_NO_BINARY_FOR_GPU"},
    {218, "CUDA_ERROR_INVALID_PTX"},
    {221, "CUDA_ERROR_JIT_COMPILER_NOT_FOUND"},
    {222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"},
    {300, "CUDA_ERROR_INVALID_SOURCE"},
    {400, "CUDA_ERROR_INVALID_HANDLE"},
    {500, "CUDA_ERROR_NOT_FOUND"},
    {700, "CUDA_ERROR_ILLEGAL_ADDRESS"},
    {701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"},
    {702, "CUDA_ERROR_LAUNCH_TIMEOUT"},
    {709, "CUDA_ERROR_CONTEXT_IS_DESTROYED"},
    {710, "CUDA_ERROR_ASSERT"},
    {714, "CUDA_ERROR_HARDWARE_STACK_ERROR"},
    {715, "CUDA_ERROR_ILLEGAL_INSTRUCTION"},
    {716, "CUDA_ERROR_MISALIGNED_ADDRESS"},
    {717, "CUDA_ERROR_INVALID_ADDRESS_SPACE"},
    {718, "CUDA_ERROR_INVALID_PC"},
    {719, "CUDA_ERROR_LAUNCH_FAILED"},
    {720, "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE"},
    {800, "CUDA_ERROR_NOT_PERMITTED"},
    {801, "CUDA_ERROR_NOT_SUPPORTED"},
    {999, "CUDA_ERROR_UNKNOWN"},
};

/* Our own name table, so that the recorded text does not depend on the
 * cuGetErrorName of whichever driver runs the harness. */
static const char *errname(int code, char *buf, size_t n)
{
    for (size_t i = 0; i < sizeof g_errnames / sizeof g_errnames[0]; i++)
        if (g_errnames[i].code == code)
            return g_errnames[i].name;
    snprintf(buf, n, "CUresult_%d", code);
    return buf;
}

/* ------------------------------------------------------------------ */
/* case model                                                          */

enum { ET_NONE, ET_U8, ET_S8, ET_U16, ET_S16, ET_U32, ET_S32, ET_U64, ET_S64, ET_F16, ET_BF16, ET_F32, ET_F64 };

static const struct {
    const char *name;
    int et;
    int size;
} g_types[] = {
    {"u8", ET_U8, 1},   {"s8", ET_S8, 1},   {"b8", ET_U8, 1},     {"u16", ET_U16, 2}, {"s16", ET_S16, 2},
    {"b16", ET_U16, 2}, {"u32", ET_U32, 4}, {"s32", ET_S32, 4},   {"b32", ET_U32, 4}, {"u64", ET_U64, 8},
    {"s64", ET_S64, 8}, {"b64", ET_U64, 8}, {"f16", ET_F16, 2},   {"bf16", ET_BF16, 2}, {"f32", ET_F32, 4},
    {"f64", ET_F64, 8},
};

static int type_lookup(const char *s, int *size)
{
    for (size_t i = 0; i < sizeof g_types / sizeof g_types[0]; i++)
        if (strcmp(s, g_types[i].name) == 0) {
            if (size)
                *size = g_types[i].size;
            return g_types[i].et;
        }
    return ET_NONE;
}

static bool et_is_float(int et) { return et == ET_F16 || et == ET_BF16 || et == ET_F32 || et == ET_F64; }
static int et_size(int et)
{
    switch (et) {
    case ET_U8: case ET_S8: return 1;
    case ET_U16: case ET_S16: case ET_F16: case ET_BF16: return 2;
    case ET_U32: case ET_S32: case ET_F32: return 4;
    default: return 8;
    }
}

enum { CMP_EXACT, CMP_EXACT_NAN, CMP_ULP, CMP_ABS, CMP_REL, CMP_ABSREL };

typedef struct {
    char name[NAME_LEN];
    size_t size;
    unsigned char *init;
} Buffer;

#define MAX_RANGES 64

typedef struct {
    int buf; /* buffer index, or -1 for an array output (output-array) */
    int arr; /* array index for output-array, else -1 */
    int cmp;
    int et;
    uint64_t ulp;
    double eps;
} Output;

/* `compare BUF OFF LEN CMP`: bytes [OFF, OFF+LEN) of output BUF compared with CMP instead of the output's own */
typedef struct {
    int out; /* index into outs */
    size_t off, len;
    Output o;
} Range;

typedef struct {
    bool is_ptr;
    bool is_obj; /* param tex/surf: the 64-bit handle of object `obj` */
    int obj;
    int buf;
    size_t size;
    uint64_t align_pad; /* unused, keeps struct simple */
    unsigned char bytes[MAX_PARAM_BYTES];
} Param;

typedef struct {
    char kernel[NAME_LEN];
    unsigned grid[3], block[3];
    unsigned shared;
    Param params[MAX_PARAMS];
    int nparams;
} Launch;

/* a CUDA array (directive `array`): cuArray3DCreate with these exact descriptor fields, filled from buffer `from` */
typedef struct {
    char name[NAME_LEN];
    unsigned format, channels, flags, elem;
    size_t w, h, d;
    int from;
} Array;

enum { RES_ARRAY, RES_LINEAR, RES_PITCH2D };

/* a texture or surface object (directives `texture` / `surface`) */
typedef struct {
    char name[NAME_LEN];
    bool surface;
    int res;          /* RES_* */
    int arr, buf;     /* the array, or the buffer of a linear / pitch2d resource */
    size_t offset;    /* bytes added to the buffer's address (alignment error cases) */
    size_t bytes, w, h, pitch;
    unsigned format, channels;
    unsigned addr[3], filter, flags;
    float border[4];
    bool ref;         /* `ref`: no object; the module's .texref/.surfref NAME is bound with this state */
} TexObj;

typedef struct {
    char path[PATH_MAX];
    char name[PATH_MAX];
    char ptx[PATH_MAX];
    Buffer bufs[MAX_BUFS];
    int nbufs;
    Array arrays[MAX_ARRAYS];
    int narrays;
    TexObj objs[MAX_OBJS];
    int nobjs;
    Output outs[MAX_OUTS];
    int nouts;
    Range ranges[MAX_RANGES];
    int nranges;
    Launch launches[MAX_LAUNCHES];
    int nlaunches;
    int timeout;
    char env[4][128]; /* `env NAME=VALUE` lines: set in the case's child before cuInit */
    int nenv;
} Case;

static void case_free(Case *c)
{
    for (int i = 0; i < c->nbufs; i++)
        free(c->bufs[i].init);
    free(c);
}

/* ------------------------------------------------------------------ */
/* value parsing                                                       */

static int g_err_line;
static char g_err_msg[512];

static int perr(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_err_msg, sizeof g_err_msg, fmt, ap);
    va_end(ap);
    return -1;
}

/* exponent bits / mantissa bits for the float formats */
static void fmt_bits(int et, int *e, int *m)
{
    switch (et) {
    case ET_F16: *e = 5; *m = 10; break;
    case ET_BF16: *e = 8; *m = 7; break;
    case ET_F32: *e = 8; *m = 23; break;
    default: *e = 11; *m = 52; break;
    }
}

static int special_float(int et, const char *tok, uint64_t *out)
{
    int e, m;
    fmt_bits(et, &e, &m);
    bool neg = false;
    if (*tok == '-') {
        neg = true;
        tok++;
    } else if (*tok == '+') {
        tok++;
    }
    uint64_t expmask = (1ull << e) - 1, mmask = (1ull << m) - 1, bias = (1ull << (e - 1)) - 1;
    uint64_t v;
    if (!strcmp(tok, "0") || !strcmp(tok, "zero")) v = 0;
    else if (!strcmp(tok, "inf")) v = expmask << m;
    else if (!strcmp(tok, "nan") || !strcmp(tok, "qnan")) v = (expmask << m) | (1ull << (m - 1));
    else if (!strcmp(tok, "snan")) v = (expmask << m) | 1;
    else if (!strcmp(tok, "dmin")) v = 1;
    else if (!strcmp(tok, "dmax")) v = mmask;
    else if (!strcmp(tok, "nmin")) v = 1ull << m;
    else if (!strcmp(tok, "max")) v = ((expmask - 1) << m) | mmask;
    else if (!strcmp(tok, "one") || !strcmp(tok, "1")) v = bias << m;
    else if (!strcmp(tok, "1+ulp")) v = (bias << m) + 1;
    else if (!strcmp(tok, "1-ulp")) v = (bias << m) - 1;
    else if (!strcmp(tok, "two") || !strcmp(tok, "2")) v = (bias + 1) << m;
    else if (!strcmp(tok, "half")) v = (bias - 1) << m;
    else return -1;
    if (neg)
        v |= 1ull << (e + m);
    *out = v;
    return 0;
}

/* Parse one value of type et into little-endian bytes. */
static int parse_value(int et, const char *tok, unsigned char *dst)
{
    int sz = et_size(et);
    uint64_t bits = 0;
    if (et_is_float(et)) {
        const char *t = tok;
        bool neg = false;
        if (t[0] == '-' && t[1] == '0' && (t[2] == 'x' || t[2] == 'X')) {
            neg = true;
            t++;
        }
        if (t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
            char *end;
            errno = 0;
            bits = strtoull(t, &end, 16);
            if (*end || errno)
                return perr("bad hex value '%s'", tok);
            if (sz < 8 && (bits >> (sz * 8)))
                return perr("hex value '%s' too wide", tok);
            if (neg)
                bits |= 1ull << (sz * 8 - 1);
        } else if (special_float(et, tok, &bits) == 0) {
            /* ok */
        } else if (et == ET_F32 || et == ET_F64) {
            char *end;
            if (et == ET_F32) {
                float f = strtof(tok, &end);
                uint32_t u;
                memcpy(&u, &f, 4);
                bits = u;
            } else {
                double d = strtod(tok, &end);
                memcpy(&bits, &d, 8);
            }
            if (*end || end == tok)
                return perr("bad float value '%s'", tok);
        } else {
            return perr("value '%s' for f16/bf16 must be hex bits or a special name", tok);
        }
    } else {
        char *end;
        errno = 0;
        if (tok[0] == '-') {
            long long v = strtoll(tok, &end, 0);
            bits = (uint64_t)v;
        } else {
            bits = strtoull(tok, &end, 0);
        }
        if (*end || end == tok || errno)
            return perr("bad integer value '%s'", tok);
    }
    for (int i = 0; i < sz; i++)
        dst[i] = (unsigned char)(bits >> (8 * i));
    return 0;
}

/* splitmix64: the PRNG of 'prng' buffers (documented in README.md) */
static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int hexval(int ch)
{
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

/* parse hex bytes from tokens (whitespace already split) */
static int parse_hex_tokens(char **tok, int ntok, unsigned char *dst, size_t cap, size_t *len)
{
    size_t n = 0;
    for (int i = 0; i < ntok; i++) {
        const char *s = tok[i];
        size_t l = strlen(s);
        if (l % 2)
            return perr("odd number of hex digits in '%s'", s);
        for (size_t j = 0; j < l; j += 2) {
            int hi = hexval(s[j]), lo = hexval(s[j + 1]);
            if (hi < 0 || lo < 0)
                return perr("bad hex '%s'", s);
            if (n >= cap)
                return perr("hex data longer than %zu bytes", cap);
            dst[n++] = (unsigned char)(hi * 16 + lo);
        }
    }
    *len = n;
    return 0;
}

static int find_buf(Case *c, const char *name)
{
    for (int i = 0; i < c->nbufs; i++)
        if (!strcmp(c->bufs[i].name, name))
            return i;
    return -1;
}

static int find_array(const Case *c, const char *name)
{
    for (int i = 0; i < c->narrays; i++)
        if (!strcmp(c->arrays[i].name, name))
            return i;
    return -1;
}

static int find_obj(const Case *c, const char *name)
{
    for (int i = 0; i < c->nobjs; i++)
        if (!strcmp(c->objs[i].name, name))
            return i;
    return -1;
}

/* bytes of an array as cuMemcpy3D moves it: tightly packed rows, a 1D array has one row, 2D one slice */
static size_t array_bytes(const Array *a)
{
    return a->w * a->elem * (a->h ? a->h : 1) * (a->d ? a->d : 1);
}

/* element format words of the case format -> CUarray_format and bytes per channel */
static int format_lookup(const char *s, unsigned *fmt, unsigned *bytes)
{
    static const struct {
        const char *name;
        unsigned fmt, bytes;
    } t[] = {
        {"u8", CU_AD_FORMAT_UNSIGNED_INT8, 1}, {"u16", CU_AD_FORMAT_UNSIGNED_INT16, 2},
        {"u32", CU_AD_FORMAT_UNSIGNED_INT32, 4}, {"s8", CU_AD_FORMAT_SIGNED_INT8, 1},
        {"s16", CU_AD_FORMAT_SIGNED_INT16, 2}, {"s32", CU_AD_FORMAT_SIGNED_INT32, 4},
        {"f16", CU_AD_FORMAT_HALF, 2}, {"f32", CU_AD_FORMAT_FLOAT, 4},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (!strcmp(s, t[i].name)) {
            *fmt = t[i].fmt;
            *bytes = t[i].bytes;
            return 0;
        }
    return perr("unknown format '%s' (u8 s8 u16 s16 u32 s32 f16 f32)", s);
}

static bool name_taken(const Case *c, const char *name)
{
    return find_buf((Case *)c, name) >= 0 || find_array(c, name) >= 0 || find_obj(c, name) >= 0;
}

static int parse_size(const char *s, size_t *v, const char *what)
{
    char *end;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 0);
    if (*end || end == s || errno || s[0] == '-')
        return perr("bad %s '%s'", what, s);
    *v = (size_t)x;
    return 0;
}

/* array NAME FORMAT CHANNELS W [H [D]] [layered] [cubemap] [surface] [gather] from BUF */
static int parse_array(Case *c, char **tok, int ntok)
{
    if (ntok < 7)
        return perr("array NAME FORMAT CHANNELS W [H [D]] [layered] [cubemap] [surface] [gather] from BUF");
    if (c->narrays >= MAX_ARRAYS)
        return perr("too many arrays");
    if (name_taken(c, tok[1]))
        return perr("name '%s' already used", tok[1]);
    Array *a = &c->arrays[c->narrays];
    memset(a, 0, sizeof *a);
    snprintf(a->name, sizeof a->name, "%s", tok[1]);
    unsigned bytes = 0; /* set by format_lookup; initialised for gcc -O3 -Werror=maybe-uninitialized */
    if (format_lookup(tok[2], &a->format, &bytes))
        return -1;
    size_t ch = 0;
    if (parse_size(tok[3], &ch, "channel count"))
        return -1;
    a->channels = (unsigned)ch; /* not checked: cuArray3DCreate's answer to 3 channels is recorded */
    a->elem = bytes * a->channels;
    int i = 4, nd = 0;
    size_t dims[3] = {0, 0, 0};
    for (; i < ntok && isdigit((unsigned char)tok[i][0]); i++) {
        if (nd == 3)
            return perr("at most 3 sizes");
        if (parse_size(tok[i], &dims[nd++], "size"))
            return -1;
    }
    if (nd == 0)
        return perr("array needs a width");
    a->w = dims[0];
    a->h = dims[1];
    a->d = dims[2];
    a->from = -1;
    for (; i < ntok; i++) {
        if (!strcmp(tok[i], "layered")) a->flags |= CUDA_ARRAY3D_LAYERED;
        else if (!strcmp(tok[i], "cubemap")) a->flags |= CUDA_ARRAY3D_CUBEMAP;
        else if (!strcmp(tok[i], "surface")) a->flags |= CUDA_ARRAY3D_SURFACE_LDST;
        else if (!strcmp(tok[i], "gather")) a->flags |= CUDA_ARRAY3D_TEXTURE_GATHER;
        else if (!strcmp(tok[i], "from") && i + 1 < ntok) {
            a->from = find_buf(c, tok[++i]);
            if (a->from < 0)
                return perr("array: unknown buffer '%s' (declare buffers first)", tok[i]);
        } else
            return perr("array: unexpected '%s'", tok[i]);
    }
    if (a->from < 0)
        return perr("array needs 'from BUF' (CUDA arrays start undefined)");
    if (array_bytes(a) != 0 && c->bufs[a->from].size != array_bytes(a)) /* 0: a creation error case */
        return perr("array %s holds %zu bytes but buffer %s has %zu", a->name, array_bytes(a), c->bufs[a->from].name,
                    c->bufs[a->from].size);
    c->narrays++;
    return 0;
}

static int parse_addr_mode(const char *s, unsigned addr[3])
{
    char spec[128];
    snprintf(spec, sizeof spec, "%s", s);
    int n = 0;
    for (char *save = NULL, *w = strtok_r(spec, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        if (n == 3)
            return perr("at most 3 address modes");
        if (!strcmp(w, "wrap")) addr[n] = CU_TR_ADDRESS_MODE_WRAP;
        else if (!strcmp(w, "clamp")) addr[n] = CU_TR_ADDRESS_MODE_CLAMP;
        else if (!strcmp(w, "mirror")) addr[n] = CU_TR_ADDRESS_MODE_MIRROR;
        else if (!strcmp(w, "border")) addr[n] = CU_TR_ADDRESS_MODE_BORDER;
        else return perr("unknown address mode '%s'", w);
        n++;
    }
    if (n == 0)
        return perr("addr needs a mode");
    for (int k = n; k < 3; k++) /* one word applies to every coordinate */
        addr[k] = addr[n - 1];
    return 0;
}

/* texture NAME array ARR | linear BUF FORMAT CHANNELS [BYTES] | pitch2d BUF FORMAT CHANNELS W H PITCH,
 * then options: addr M[,M[,M]] filter point|linear normalized integer srgb border R G B A offset BYTES */
static int parse_texture(Case *c, char **tok, int ntok)
{
    if (ntok < 4)
        return perr("texture NAME array ARR | linear BUF FORMAT CHANNELS [BYTES] | pitch2d BUF FORMAT CHANNELS W H PITCH");
    if (c->nobjs >= MAX_OBJS)
        return perr("too many texture/surface objects");
    if (name_taken(c, tok[1]))
        return perr("name '%s' already used", tok[1]);
    TexObj *t = &c->objs[c->nobjs];
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", tok[1]);
    t->arr = t->buf = -1;
    int i;
    if (!strcmp(tok[2], "array")) {
        t->res = RES_ARRAY;
        t->arr = find_array(c, tok[3]);
        if (t->arr < 0)
            return perr("texture: unknown array '%s'", tok[3]);
        i = 4;
    } else if (!strcmp(tok[2], "linear") || !strcmp(tok[2], "pitch2d")) {
        t->res = !strcmp(tok[2], "linear") ? RES_LINEAR : RES_PITCH2D;
        if (ntok < 6)
            return perr("texture %s needs BUF FORMAT CHANNELS", tok[2]);
        t->buf = find_buf(c, tok[3]);
        if (t->buf < 0)
            return perr("texture: unknown buffer '%s'", tok[3]);
        unsigned bytes = 0;
        size_t ch = 0;
        if (format_lookup(tok[4], &t->format, &bytes) || parse_size(tok[5], &ch, "channel count"))
            return -1;
        t->channels = (unsigned)ch;
        i = 6;
        if (t->res == RES_LINEAR) {
            t->bytes = c->bufs[t->buf].size;
            if (i < ntok && isdigit((unsigned char)tok[i][0]) && parse_size(tok[i++], &t->bytes, "size"))
                return -1;
        } else {
            if (i + 3 > ntok || parse_size(tok[i], &t->w, "width") || parse_size(tok[i + 1], &t->h, "height") ||
                parse_size(tok[i + 2], &t->pitch, "pitch"))
                return perr("pitch2d BUF FORMAT CHANNELS W H PITCH");
            i += 3;
        }
    } else {
        return perr("texture resource must be array, linear or pitch2d");
    }
    t->addr[0] = t->addr[1] = t->addr[2] = CU_TR_ADDRESS_MODE_CLAMP;
    t->filter = CU_TR_FILTER_MODE_POINT;
    for (; i < ntok; i++) {
        const char *w = tok[i];
        if (!strcmp(w, "addr") && i + 1 < ntok) {
            if (parse_addr_mode(tok[++i], t->addr))
                return -1;
        } else if (!strcmp(w, "filter") && i + 1 < ntok) {
            i++;
            if (!strcmp(tok[i], "point")) t->filter = CU_TR_FILTER_MODE_POINT;
            else if (!strcmp(tok[i], "linear")) t->filter = CU_TR_FILTER_MODE_LINEAR;
            else return perr("filter point|linear");
        } else if (!strcmp(w, "normalized")) {
            t->flags |= CU_TRSF_NORMALIZED_COORDINATES;
        } else if (!strcmp(w, "integer")) {
            t->flags |= CU_TRSF_READ_AS_INTEGER;
        } else if (!strcmp(w, "srgb")) {
            t->flags |= CU_TRSF_SRGB;
        } else if (!strcmp(w, "border") && i + 4 < ntok) {
            for (int k = 0; k < 4; k++) {
                unsigned char b[4];
                if (parse_value(ET_F32, tok[i + 1 + k], b))
                    return -1;
                memcpy(&t->border[k], b, 4);
            }
            i += 4;
        } else if (!strcmp(w, "offset") && i + 1 < ntok && t->res != RES_ARRAY) {
            if (parse_size(tok[++i], &t->offset, "offset"))
                return -1;
        } else if (!strcmp(w, "ref")) {
            t->ref = true;
        } else {
            return perr("texture: unexpected '%s'", w);
        }
    }
    c->nobjs++;
    return 0;
}

/* surface NAME ARR */
static int parse_surface(Case *c, char **tok, int ntok)
{
    if (ntok != 3 && !(ntok == 4 && !strcmp(tok[3], "ref")))
        return perr("surface NAME ARRAY [ref]");
    if (c->nobjs >= MAX_OBJS)
        return perr("too many texture/surface objects");
    if (name_taken(c, tok[1]))
        return perr("name '%s' already used", tok[1]);
    TexObj *t = &c->objs[c->nobjs];
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", tok[1]);
    t->surface = true;
    t->res = RES_ARRAY;
    t->buf = -1;
    t->arr = find_array(c, tok[2]);
    if (t->arr < 0)
        return perr("surface: unknown array '%s'", tok[2]);
    t->ref = ntok == 4;
    c->nobjs++;
    return 0;
}

static int parse_buffer(Case *c, char **tok, int ntok)
{
    if (ntok < 4)
        return perr("buffer NAME SIZE INIT...");
    if (c->nbufs >= MAX_BUFS)
        return perr("too many buffers");
    if (name_taken(c, tok[1]))
        return perr("duplicate name '%s'", tok[1]);
    Buffer *b = &c->bufs[c->nbufs];
    snprintf(b->name, sizeof b->name, "%s", tok[1]);
    char *end;
    b->size = strtoull(tok[2], &end, 0);
    if (*end || b->size == 0 || b->size > (1ull << 31))
        return perr("bad buffer size '%s'", tok[2]);
    b->init = xmalloc(b->size);
    c->nbufs++;
    const char *kind = tok[3];
    if (!strcmp(kind, "zeros")) {
        if (ntok != 4)
            return perr("zeros takes no arguments");
    } else if (!strcmp(kind, "fill")) {
        unsigned char pat[256];
        size_t n;
        if (parse_hex_tokens(tok + 4, ntok - 4, pat, sizeof pat, &n) || n == 0)
            return perr("fill needs hex bytes");
        for (size_t i = 0; i < b->size; i++)
            b->init[i] = pat[i % n];
    } else if (!strcmp(kind, "hex")) {
        size_t n;
        if (parse_hex_tokens(tok + 4, ntok - 4, b->init, b->size, &n))
            return -1;
    } else if (!strcmp(kind, "values")) {
        if (ntok < 5)
            return perr("values TYPE V...");
        int sz;
        int et = type_lookup(tok[4], &sz);
        if (et == ET_NONE)
            return perr("unknown type '%s'", tok[4]);
        size_t off = 0;
        for (int i = 5; i < ntok; i++) {
            if (off + (size_t)sz > b->size)
                return perr("values overflow buffer '%s' (%zu bytes)", b->name, b->size);
            if (parse_value(et, tok[i], b->init + off))
                return -1;
            off += (size_t)sz;
        }
    } else if (!strcmp(kind, "iota")) {
        if (ntok != 7)
            return perr("iota TYPE START STEP");
        int sz;
        int et = type_lookup(tok[4], &sz);
        if (et == ET_NONE || et_is_float(et))
            return perr("iota needs an integer type");
        long long start = strtoll(tok[5], NULL, 0), step = strtoll(tok[6], NULL, 0);
        for (size_t i = 0; (i + 1) * (size_t)sz <= b->size; i++) {
            uint64_t v = (uint64_t)start + (uint64_t)i * (uint64_t)step;
            for (int k = 0; k < sz; k++)
                b->init[i * (size_t)sz + (size_t)k] = (unsigned char)(v >> (8 * k));
        }
    } else if (!strcmp(kind, "prng")) {
        if (ntok != 6 && ntok != 8)
            return perr("prng SEED TYPE [LO HI]");
        uint64_t state = strtoull(tok[4], NULL, 0);
        int sz;
        int et = type_lookup(tok[5], &sz);
        if (et == ET_NONE || et == ET_F16 || et == ET_BF16)
            return perr("prng type '%s' not supported", tok[5]);
        bool ranged = ntok == 8;
        for (size_t i = 0; (i + 1) * (size_t)sz <= b->size; i++) {
            uint64_t r = splitmix64(&state), v = r;
            if (ranged) {
                if (et == ET_F32 || et == ET_F64) {
                    double lo = strtod(tok[6], NULL), hi = strtod(tok[7], NULL);
                    double d = lo + (double)(r >> 11) * (1.0 / 9007199254740992.0) * (hi - lo);
                    if (et == ET_F32) {
                        float f = (float)d;
                        uint32_t u;
                        memcpy(&u, &f, 4);
                        v = u;
                    } else {
                        memcpy(&v, &d, 8);
                    }
                } else {
                    long long lo = strtoll(tok[6], NULL, 0), hi = strtoll(tok[7], NULL, 0);
                    if (hi < lo)
                        return perr("prng range empty");
                    uint64_t span = (uint64_t)(hi - lo) + 1;
                    v = (uint64_t)lo + (span ? r % span : r);
                }
            } else if (et == ET_F32 || et == ET_F64) {
                return perr("prng float needs a range");
            }
            for (int k = 0; k < sz; k++)
                b->init[i * (size_t)sz + (size_t)k] = (unsigned char)(v >> (8 * k));
        }
    } else {
        return perr("unknown buffer init '%s'", kind);
    }
    return 0;
}

static int parse_param(Case *c, Launch *l, char **tok, int ntok)
{
    if (ntok < 3)
        return perr("param TYPE VALUE");
    if (l->nparams >= MAX_PARAMS)
        return perr("too many params");
    Param *p = &l->params[l->nparams];
    memset(p, 0, sizeof *p);
    if (!strcmp(tok[1], "ptr")) {
        if (ntok != 3)
            return perr("param ptr BUFFER");
        p->is_ptr = true;
        p->buf = find_buf(c, tok[2]);
        if (p->buf < 0)
            return perr("param ptr: unknown buffer '%s' (declare buffers first)", tok[2]);
        p->size = 8;
    } else if (!strcmp(tok[1], "tex") || !strcmp(tok[1], "surf")) {
        if (ntok != 3)
            return perr("param %s NAME", tok[1]);
        p->is_obj = true;
        p->obj = find_obj(c, tok[2]);
        if (p->obj < 0 || c->objs[p->obj].surface != !strcmp(tok[1], "surf") || c->objs[p->obj].ref)
            return perr("param %s: unknown %s '%s' (declare it first)", tok[1],
                        !strcmp(tok[1], "surf") ? "surface" : "texture", tok[2]);
        p->size = 8;
    } else if (!strcmp(tok[1], "bytes")) {
        if (parse_hex_tokens(tok + 2, ntok - 2, p->bytes, sizeof p->bytes, &p->size) || p->size == 0)
            return perr("param bytes HEX...");
    } else {
        int sz;
        int et = type_lookup(tok[1], &sz);
        if (et == ET_NONE || ntok != 3)
            return perr("bad param '%s'", tok[1]);
        if (parse_value(et, tok[2], p->bytes))
            return -1;
        p->size = (size_t)sz;
    }
    l->nparams++;
    return 0;
}

static const char *out_name(const Case *c, const Output *o)
{
    return o->arr >= 0 ? c->arrays[o->arr].name : c->bufs[o->buf].name;
}

static size_t out_size(const Case *c, const Output *o)
{
    return o->arr >= 0 ? array_bytes(&c->arrays[o->arr]) : c->bufs[o->buf].size;
}

static int parse_cmp(Case *c, Output *o, const char *cmp, size_t size);

/* output BUF [CMP] and output-array ARR [CMP] */
static int parse_output(Case *c, char **tok, int ntok)
{
    if (ntok < 2 || ntok > 3)
        return perr("%s [CMP]", !strcmp(tok[0], "output") ? "output BUFFER" : "output-array ARRAY");
    if (c->nouts >= MAX_OUTS)
        return perr("too many outputs");
    Output *o = &c->outs[c->nouts];
    memset(o, 0, sizeof *o);
    o->buf = o->arr = -1;
    if (!strcmp(tok[0], "output-array")) {
        o->arr = find_array(c, tok[1]);
        if (o->arr < 0)
            return perr("output-array: unknown array '%s'", tok[1]);
    } else {
        o->buf = find_buf(c, tok[1]);
        if (o->buf < 0)
            return perr("output: unknown buffer '%s'", tok[1]);
    }
    int r = parse_cmp(c, o, ntok == 3 ? tok[2] : NULL, out_size(c, o));
    if (r)
        return r;
    c->nouts++;
    return 0;
}

/* EPS of abs:/rel:, a number or 2^X (X may be fractional: the PTX ISA's bounds, e.g. 2^-22.9) */
static double parse_eps(const char *b)
{
    if (b[0] == '2' && b[1] == '^')
        return pow(2.0, strtod(b + 2, NULL));
    return strtod(b, NULL);
}

/* CMP of `output` and `compare`; NULL or "exact": byte for byte. size: bytes compared */
static int parse_cmp(Case *c, Output *o, const char *cmp, size_t size)
{
    (void)c;
    o->cmp = CMP_EXACT;
    if (cmp && strcmp(cmp, "exact") != 0) {
        char spec[128];
        snprintf(spec, sizeof spec, "%s", cmp);
        char *a = strtok(spec, ":"), *b = strtok(NULL, ":"), *t = strtok(NULL, ":");
        if (!a)
            return perr("bad compare '%s'", cmp);
        if (!strcmp(a, "exact-nan")) {
            o->cmp = CMP_EXACT_NAN;
            t = b;
        } else if (!strcmp(a, "ulp")) {
            o->cmp = CMP_ULP;
            if (!b)
                return perr("ulp:N:TYPE");
            o->ulp = strtoull(b, NULL, 0);
        } else if (!strcmp(a, "abs") || !strcmp(a, "rel") || !strcmp(a, "absrel")) {
            o->cmp = !strcmp(a, "abs") ? CMP_ABS : !strcmp(a, "rel") ? CMP_REL : CMP_ABSREL;
            if (!b)
                return perr("%s:EPS:TYPE", a);
            o->eps = parse_eps(b);
        } else {
            return perr("unknown compare '%s'", a);
        }
        if (!t)
            return perr("compare '%s' needs a float type", cmp);
        o->et = type_lookup(t, NULL);
        if (!et_is_float(o->et))
            return perr("compare type must be f16/bf16/f32/f64");
        if (size % (size_t)et_size(o->et))
            return perr("buffer size not a multiple of the compare element");
    }
    return 0;
}

/* compare BUF OFF LEN CMP (after `output BUF`) */
static int parse_compare(Case *c, char **tok, int ntok)
{
    if (ntok != 5)
        return perr("compare BUFFER OFFSET LENGTH CMP");
    if (c->nranges >= MAX_RANGES)
        return perr("too many compare lines");
    int b = find_buf(c, tok[1]), out = -1;
    for (int i = 0; i < c->nouts; i++)
        if (c->outs[i].buf == b && b >= 0) out = i;
    if (out < 0)
        return perr("compare: '%s' is not an output buffer (declare `output %s` first)", tok[1], tok[1]);
    Range *g = &c->ranges[c->nranges];
    memset(g, 0, sizeof *g);
    g->out = out;
    g->off = (size_t)strtoull(tok[2], NULL, 0);
    g->len = (size_t)strtoull(tok[3], NULL, 0);
    if (g->off + g->len > c->bufs[b].size || g->off + g->len < g->off)
        return perr("compare: range outside buffer '%s'", tok[1]);
    g->o.buf = b;
    g->o.arr = -1;
    int r = parse_cmp(c, &g->o, tok[4], g->len);
    if (r)
        return r;
    c->nranges++;
    return 0;
}

static int parse_dims(char **tok, int ntok, unsigned d[3])
{
    if (ntok < 2 || ntok > 4)
        return perr("%s X [Y [Z]]", tok[0]);
    d[0] = d[1] = d[2] = 1;
    for (int i = 1; i < ntok; i++) {
        char *end;
        unsigned long v = strtoul(tok[i], &end, 0);
        if (*end || v == 0 || v > 0x7fffffffu)
            return perr("bad dimension '%s'", tok[i]);
        d[i - 1] = (unsigned)v;
    }
    return 0;
}

/* name = path relative to the "cases" dir, without ".case" */
static void case_name_from_path(const char *path, char *name, size_t n)
{
    const char *p = strstr(path, "cases/");
    const char *last = NULL;
    while (p) {
        last = p;
        p = strstr(p + 1, "cases/");
    }
    const char *s;
    if (last) {
        s = last + 6;
    } else {
        /* fall back to the last two components */
        s = path + strlen(path);
        int slashes = 0;
        while (s > path) {
            if (s[-1] == '/' && ++slashes == 2)
                break;
            s--;
        }
    }
    snprintf(name, n, "%s", s);
    size_t l = strlen(name);
    if (l > 5 && !strcmp(name + l - 5, ".case"))
        name[l - 5] = 0;
}

static char g_root[PATH_MAX] = "";

static void root_for(const char *path, char *root, size_t n)
{
    if (g_root[0]) {
        snprintf(root, n, "%s", g_root);
        return;
    }
    const char *p = strstr(path, "cases/"), *last = NULL;
    while (p) {
        if (p == path || p[-1] == '/')
            last = p;
        p = strstr(p + 1, "cases/");
    }
    if (!last) {
        snprintf(root, n, ".");
    } else if (last == path) {
        snprintf(root, n, ".");
    } else {
        snprintf(root, n, "%.*s", (int)(last - path - 1), path);
    }
}

static Case *parse_case(const char *path)
{
    size_t len;
    char *text = read_file(path, &len);
    g_err_line = 0;
    if (!text) {
        perr("cannot read: %s", strerror(errno));
        return NULL;
    }
    Case *c = xmalloc(sizeof *c);
    snprintf(c->path, sizeof c->path, "%s", path);
    case_name_from_path(path, c->name, sizeof c->name);
    c->timeout = 10;
    /* join continuation lines: backslash-newline becomes spaces */
    for (size_t i = 0; i + 1 < len; i++)
        if (text[i] == '\\' && text[i + 1] == '\n')
            text[i] = text[i + 1] = ' ';
    int lineno = 0;
    char *save = NULL;
    Launch *cur = NULL;
    bool ok = true;
    char **tok = xmalloc(sizeof(char *) * 65536);
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = 0;
        int ntok = 0;
        char *s2 = NULL;
        for (char *t = strtok_r(line, " \t\r", &s2); t; t = strtok_r(NULL, " \t\r", &s2)) {
            if (ntok >= 65535) {
                perr("line too long");
                ok = false;
                break;
            }
            tok[ntok++] = t;
        }
        if (!ok)
            break;
        if (ntok == 0)
            continue;
        g_err_line = lineno;
        int r = 0;
        const char *k = tok[0];
        if (!strcmp(k, "ptx")) {
            if (ntok != 2) r = perr("ptx PATH");
            else snprintf(c->ptx, sizeof c->ptx, "%s", tok[1]);
        } else if (!strcmp(k, "kernel")) {
            if (ntok != 2) r = perr("kernel NAME");
            else if (c->nlaunches >= MAX_LAUNCHES) r = perr("too many launches");
            else {
                cur = &c->launches[c->nlaunches++];
                memset(cur, 0, sizeof *cur);
                snprintf(cur->kernel, sizeof cur->kernel, "%s", tok[1]);
                cur->grid[0] = cur->grid[1] = cur->grid[2] = 1;
                cur->block[0] = cur->block[1] = cur->block[2] = 1;
            }
        } else if (!strcmp(k, "grid") || !strcmp(k, "block") || !strcmp(k, "shared") || !strcmp(k, "param")) {
            if (!cur) r = perr("'%s' before 'kernel'", k);
            else if (!strcmp(k, "grid")) r = parse_dims(tok, ntok, cur->grid);
            else if (!strcmp(k, "block")) r = parse_dims(tok, ntok, cur->block);
            else if (!strcmp(k, "shared")) {
                if (ntok != 2) r = perr("shared BYTES");
                else cur->shared = (unsigned)strtoul(tok[1], NULL, 0);
            } else r = parse_param(c, cur, tok, ntok);
        } else if (!strcmp(k, "buffer")) {
            r = parse_buffer(c, tok, ntok);
        } else if (!strcmp(k, "output") || !strcmp(k, "output-array")) {
            r = parse_output(c, tok, ntok);
        } else if (!strcmp(k, "compare")) {
            r = parse_compare(c, tok, ntok);
        } else if (!strcmp(k, "array")) {
            r = parse_array(c, tok, ntok);
        } else if (!strcmp(k, "texture")) {
            r = parse_texture(c, tok, ntok);
        } else if (!strcmp(k, "surface")) {
            r = parse_surface(c, tok, ntok);
        } else if (!strcmp(k, "env")) {
            /* a switch of our driver stub that a case needs (NVIDIA's libcuda ignores it), e.g. the opt-in
             * null-page checks of the OpenCL backend for a case that stores through a null pointer */
            if (ntok != 2 || !strchr(tok[1], '=') || tok[1][0] == '=') r = perr("env NAME=VALUE");
            else if (c->nenv >= 4) r = perr("at most 4 env lines");
            else if (strlen(tok[1]) >= sizeof c->env[0]) r = perr("env line too long");
            else snprintf(c->env[c->nenv++], sizeof c->env[0], "%s", tok[1]);
        } else if (!strcmp(k, "timeout")) {
            if (ntok != 2) r = perr("timeout SECONDS");
            else c->timeout = atoi(tok[1]);
        } else {
            r = perr("unknown directive '%s'", k);
        }
        if (r) {
            ok = false;
            break;
        }
    }
    free(tok);
    free(text);
    if (ok) {
        g_err_line = 0;
        if (!c->ptx[0]) { perr("no 'ptx' line"); ok = false; }
        else if (c->nlaunches == 0) { perr("no 'kernel' line"); ok = false; }
        else if (c->nouts == 0) { perr("no 'output' line"); ok = false; }
        for (int i = 0; ok && i < c->nlaunches; i++) {
            Launch *l = &c->launches[i];
            unsigned long long t = (unsigned long long)l->block[0] * l->block[1] * l->block[2];
            if (t > 1024) { perr("launch %d: block of %llu threads", i, t); ok = false; }
        }
    }
    if (!ok) {
        case_free(c);
        return NULL;
    }
    return c;
}

/* ------------------------------------------------------------------ */
/* running one case (in the child)                                    */

#define CHK(call, what)                                                                                          \
    do {                                                                                                         \
        CUresult r_ = (call);                                                                                    \
        if (r_ != CUDA_SUCCESS) {                                                                                \
            char nb_[64];                                                                                        \
            fprintf(res, "%s %s\n", what, errname((int)r_, nb_, sizeof nb_));                                    \
            goto done;                                                                                           \
        }                                                                                                        \
    } while (0)

static void dump_hex(FILE *f, const unsigned char *p, size_t n)
{
    for (size_t off = 0; off < n; off += 16) {
        fprintf(f, "%08zx", off);
        for (size_t i = off; i < off + 16 && i < n; i++) {
            if ((i - off) % 4 == 0)
                fputc(' ', f);
            fprintf(f, "%02x", p[i]);
        }
        fputc('\n', f);
    }
}

/* cuMemcpy3D between a host buffer (tightly packed) and the whole of an array */
static CUresult copy_array(CUarray arr, const Array *a, void *host, bool to_array)
{
    CUDA_MEMCPY3D m;
    memset(&m, 0, sizeof m);
    size_t row = a->w * a->elem, rows = a->h ? a->h : 1, slices = a->d ? a->d : 1;
    if (to_array) {
        m.srcMemoryType = CU_MEMORYTYPE_HOST;
        m.srcHost = host;
        m.srcPitch = row;
        m.srcHeight = rows;
        m.dstMemoryType = CU_MEMORYTYPE_ARRAY;
        m.dstArray = arr;
    } else {
        m.srcMemoryType = CU_MEMORYTYPE_ARRAY;
        m.srcArray = arr;
        m.dstMemoryType = CU_MEMORYTYPE_HOST;
        m.dstHost = host;
        m.dstPitch = row;
        m.dstHeight = rows;
    }
    m.WidthInBytes = row;
    m.Height = rows;
    m.Depth = slices;
    return cuMemcpy3D(&m);
}

/* `texture ... ref` / `surface ... ref`: the module's .texref/.surfref of that name bound with the reference API
 * (CUDA <= 11 programs) to the resource and state an object would get */
static CUresult bind_reference(CUmodule mod, const TexObj *t, const CUDA_RESOURCE_DESC *rd)
{
    if (t->surface) {
        CUsurfref sr;
        CUresult r = cuModuleGetSurfRef(&sr, mod, t->name);
        return r != CUDA_SUCCESS ? r : cuSurfRefSetArray(sr, rd->res.array.hArray, 0);
    }
    CUtexref tr;
    CUresult r = cuModuleGetTexRef(&tr, mod, t->name);
    if (r == CUDA_SUCCESS && t->res == RES_ARRAY) {
        r = cuTexRefSetArray(tr, rd->res.array.hArray, CU_TRSA_OVERRIDE_FORMAT);
    } else if (r == CUDA_SUCCESS && t->res == RES_LINEAR) {
        size_t off = 0;
        r = cuTexRefSetFormat(tr, rd->res.linear.format, (int)rd->res.linear.numChannels);
        if (r == CUDA_SUCCESS)
            r = cuTexRefSetAddress(&off, tr, rd->res.linear.devPtr, rd->res.linear.sizeInBytes);
    } else if (r == CUDA_SUCCESS) {
        CUDA_ARRAY_DESCRIPTOR ad = {.Width = rd->res.pitch2D.width, .Height = rd->res.pitch2D.height,
                                    .Format = rd->res.pitch2D.format, .NumChannels = rd->res.pitch2D.numChannels};
        r = cuTexRefSetAddress2D(tr, &ad, rd->res.pitch2D.devPtr, rd->res.pitch2D.pitchInBytes);
    }
    for (int k = 0; k < 3 && r == CUDA_SUCCESS; k++)
        r = cuTexRefSetAddressMode(tr, k, (CUaddress_mode)t->addr[k]);
    if (r == CUDA_SUCCESS)
        r = cuTexRefSetFilterMode(tr, (CUfilter_mode)t->filter);
    if (r == CUDA_SUCCESS)
        r = cuTexRefSetFlags(tr, t->flags);
    if (r == CUDA_SUCCESS)
        r = cuTexRefSetBorderColor(tr, (float *)t->border);
    return r;
}

/* Creates the arrays and texture/surface objects of a case (or binds its references); each call's result goes
 * into the result text (a case may test an error). Returns false at the first failure: nothing is launched then. */
static bool create_resources(const Case *c, FILE *res, CUmodule mod, const CUdeviceptr *dptr, CUarray *harr,
                             unsigned long long *hobj)
{
    char nb[64], nb2[64];
    for (int i = 0; i < c->narrays; i++) {
        const Array *a = &c->arrays[i];
        CUDA_ARRAY3D_DESCRIPTOR ad;
        memset(&ad, 0, sizeof ad);
        ad.Width = a->w;
        ad.Height = a->h;
        ad.Depth = a->d;
        ad.Format = (CUarray_format)a->format;
        ad.NumChannels = a->channels;
        ad.Flags = a->flags;
        CUresult r = cuArray3DCreate(&harr[i], &ad);
        CUresult rc = r == CUDA_SUCCESS ? copy_array(harr[i], a, c->bufs[a->from].init, true) : r;
        fprintf(res, "array %s create=%s copy=%s\n", a->name, errname((int)r, nb, sizeof nb),
                r == CUDA_SUCCESS ? errname((int)rc, nb2, sizeof nb2) : "-");
        if (r != CUDA_SUCCESS || rc != CUDA_SUCCESS)
            return false;
    }
    for (int i = 0; i < c->nobjs; i++) {
        const TexObj *t = &c->objs[i];
        CUDA_RESOURCE_DESC rd;
        memset(&rd, 0, sizeof rd);
        if (t->res == RES_ARRAY) {
            rd.resType = CU_RESOURCE_TYPE_ARRAY;
            rd.res.array.hArray = harr[t->arr];
        } else if (t->res == RES_LINEAR) {
            rd.resType = CU_RESOURCE_TYPE_LINEAR;
            rd.res.linear.devPtr = dptr[t->buf] + t->offset;
            rd.res.linear.format = (CUarray_format)t->format;
            rd.res.linear.numChannels = t->channels;
            rd.res.linear.sizeInBytes = t->bytes;
        } else {
            rd.resType = CU_RESOURCE_TYPE_PITCH2D;
            rd.res.pitch2D.devPtr = dptr[t->buf] + t->offset;
            rd.res.pitch2D.format = (CUarray_format)t->format;
            rd.res.pitch2D.numChannels = t->channels;
            rd.res.pitch2D.width = t->w;
            rd.res.pitch2D.height = t->h;
            rd.res.pitch2D.pitchInBytes = t->pitch;
        }
        CUresult r;
        if (t->ref) {
            r = bind_reference(mod, t, &rd);
            fprintf(res, "%s %s %s\n", t->surface ? "surfref" : "texref", t->name, errname((int)r, nb, sizeof nb));
            if (r != CUDA_SUCCESS)
                return false;
            continue;
        }
        if (t->surface) {
            CUsurfObject so = 0;
            r = cuSurfObjectCreate(&so, &rd);
            hobj[i] = so;
        } else {
            CUDA_TEXTURE_DESC td;
            memset(&td, 0, sizeof td);
            for (int k = 0; k < 3; k++)
                td.addressMode[k] = (CUaddress_mode)t->addr[k];
            td.filterMode = (CUfilter_mode)t->filter;
            td.flags = t->flags;
            memcpy(td.borderColor, t->border, sizeof td.borderColor);
            CUtexObject to = 0;
            r = cuTexObjectCreate(&to, &rd, &td, NULL);
            hobj[i] = to;
        }
        fprintf(res, "%s %s %s\n", t->surface ? "surface" : "texture", t->name, errname((int)r, nb, sizeof nb));
        if (r != CUDA_SUCCESS)
            return false;
    }
    return true;
}

static int run_case_child(const Case *c, const char *resfile)
{
    FILE *res = fopen(resfile, "w");
    if (!res)
        return 3;
    for (int i = 0; i < c->nenv; i++) {
        char name[128];
        snprintf(name, sizeof name, "%s", c->env[i]);
        *strchr(name, '=') = 0;
        setenv(name, strchr(c->env[i], '=') + 1, 1);
    }
    char root[PATH_MAX], ptxpath[PATH_MAX * 2 + 2];
    root_for(c->path, root, sizeof root);
    snprintf(ptxpath, sizeof ptxpath, "%s/%s", root, c->ptx);
    size_t ptxlen;
    char *ptx = read_file(ptxpath, &ptxlen);
    CUdeviceptr dptr[MAX_BUFS] = {0};
    CUarray harr[MAX_ARRAYS] = {0};
    unsigned long long hobj[MAX_OBJS] = {0};
    CUmodule mod = NULL;
    CUcontext ctx = NULL;
    CUdevice dev = 0;
    bool failed = false;
    char nb[64];
    if (!ptx) {
        fprintf(res, "error cannot read %s\n", ptxpath);
        fclose(res);
        return 3;
    }
    CHK(cuInit(0), "init");
    CHK(cuDeviceGet(&dev, 0), "device");
    {
        char gpu[256] = "";
        int drv = 0, maj = 0, min = 0;
        cuDeviceGetName(gpu, sizeof gpu, dev);
        cuDriverGetVersion(&drv);
        cuDeviceGetAttribute(&maj, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
        cuDeviceGetAttribute(&min, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
        fprintf(res, "device gpu=\"%s\" cc=%d.%d cuDriverGetVersion=%d\n", gpu, maj, min, drv);
    }
    CHK(cuDevicePrimaryCtxRetain(&ctx, dev), "context");
    CHK(cuCtxSetCurrent(ctx), "context");
    {
        CUresult r = cuModuleLoadDataEx(&mod, ptx, 0, NULL, NULL);
        fprintf(res, "load %s\n", errname((int)r, nb, sizeof nb));
        if (r != CUDA_SUCCESS)
            goto done;
    }
    for (int i = 0; i < c->nbufs; i++) {
        CHK(cuMemAlloc(&dptr[i], c->bufs[i].size), "alloc");
        CHK(cuMemcpyHtoD(dptr[i], c->bufs[i].init, c->bufs[i].size), "upload");
    }
    if (!create_resources(c, res, mod, dptr, harr, hobj))
        failed = true;
    for (int li = 0; li < c->nlaunches && !failed; li++) {
        const Launch *l = &c->launches[li];
        CUfunction fn;
        CUresult r = cuModuleGetFunction(&fn, mod, l->kernel);
        if (r != CUDA_SUCCESS) {
            fprintf(res, "launch %d %s getfunction=%s\n", li, l->kernel, errname((int)r, nb, sizeof nb));
            failed = true;
            break;
        }
        if (l->shared > 48 * 1024)
            cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)l->shared);
        void *args[MAX_PARAMS];
        unsigned long long ptrvals[MAX_PARAMS];
        for (int p = 0; p < l->nparams; p++) {
            if (l->params[p].is_ptr) {
                ptrvals[p] = (unsigned long long)dptr[l->params[p].buf];
                args[p] = &ptrvals[p];
            } else if (l->params[p].is_obj) {
                ptrvals[p] = hobj[l->params[p].obj];
                args[p] = &ptrvals[p];
            } else {
                args[p] = (void *)l->params[p].bytes;
            }
        }
        CUresult rl = cuLaunchKernel(fn, l->grid[0], l->grid[1], l->grid[2], l->block[0], l->block[1], l->block[2],
                                     l->shared, NULL, l->nparams ? args : NULL, NULL);
        CUresult rs = rl == CUDA_SUCCESS ? cuCtxSynchronize() : rl;
        char nb2[64];
        fprintf(res, "launch %d %s launch=%s sync=%s\n", li, l->kernel, errname((int)rl, nb, sizeof nb),
                errname((int)rs, nb2, sizeof nb2));
        if (rl != CUDA_SUCCESS || rs != CUDA_SUCCESS)
            failed = true;
    }
    if (!failed) {
        for (int o = 0; o < c->nouts; o++) {
            const Output *out = &c->outs[o];
            size_t size = out_size(c, out);
            unsigned char *host = xmalloc(size);
            CUresult r = out->arr >= 0 ? copy_array(harr[out->arr], &c->arrays[out->arr], host, false)
                                       : cuMemcpyDtoH(host, dptr[out->buf], size);
            if (r != CUDA_SUCCESS) {
                fprintf(res, "buffer %s unavailable %s\n", out_name(c, out), errname((int)r, nb, sizeof nb));
            } else {
                fprintf(res, "buffer %s %zu\n", out_name(c, out), size);
                dump_hex(res, host, size);
            }
            free(host);
        }
    } else {
        for (int o = 0; o < c->nouts; o++)
            fprintf(res, "buffer %s unavailable\n", out_name(c, &c->outs[o]));
    }
done:
    fflush(stdout);
    fprintf(res, "endrun\n");
    fclose(res);
    free(ptx);
    /* no teardown: the process exits, which is what a failed context needs anyway */
    fflush(stdout);
    return 0;
}

/* ------------------------------------------------------------------ */
/* result text: parse, compare                                         */

typedef struct {
    char *head;      /* everything but buffer dumps and stdout: load/launch lines */
    int nbufs;
    char names[MAX_OUTS][NAME_LEN];
    unsigned char *data[MAX_OUTS]; /* NULL when unavailable */
    size_t size[MAX_OUTS];
    char *out;       /* captured stdout */
    size_t outlen;
} Result;

static void result_free(Result *r)
{
    free(r->head);
    for (int i = 0; i < r->nbufs; i++)
        free(r->data[i]);
    free(r->out);
    memset(r, 0, sizeof *r);
}

static void str_append(char **s, size_t *len, size_t *cap, const char *add, size_t n)
{
    if (*len + n + 1 > *cap) {
        *cap = (*len + n + 1) * 2;
        char *ns = realloc(*s, *cap);
        if (!ns) {
            fprintf(stderr, "p2n-conform: out of memory\n");
            exit(2);
        }
        *s = ns;
    }
    memcpy(*s + *len, add, n);
    *len += n;
    (*s)[*len] = 0;
}

/* Parse a .out text (as written by record). Returns 0 on success. */
static int parse_result(const char *text, Result *r)
{
    memset(r, 0, sizeof *r);
    size_t hl = 0, hc = 0, ol = 0, oc = 0;
    str_append(&r->head, &hl, &hc, "", 0);
    str_append(&r->out, &ol, &oc, "", 0);
    const char *p = text;
    int cur = -1;
    while (*p) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        char line[4096];
        size_t cn = n < sizeof line - 1 ? n : sizeof line - 1;
        memcpy(line, p, cn);
        line[cn] = 0;
        if (line[0] == '#') {
            /* comment */
        } else if (!strncmp(line, "buffer ", 7)) {
            if (r->nbufs >= MAX_OUTS)
                return -1;
            char nm[NAME_LEN] = "", sz[64] = "";
            sscanf(line + 7, "%127s %63s", nm, sz);
            cur = r->nbufs++;
            snprintf(r->names[cur], NAME_LEN, "%s", nm);
            if (!strcmp(sz, "unavailable")) {
                r->data[cur] = NULL;
                cur = -1;
            } else {
                r->size[cur] = strtoull(sz, NULL, 10);
                r->data[cur] = xmalloc(r->size[cur]);
            }
            str_append(&r->head, &hl, &hc, line, strlen(line));
            str_append(&r->head, &hl, &hc, "\n", 1);
        } else if (isxdigit((unsigned char)line[0]) && cur >= 0) {
            char *q;
            unsigned long off = strtoul(line, &q, 16);
            size_t i = off;
            while (*q) {
                while (*q == ' ')
                    q++;
                while (isxdigit((unsigned char)q[0]) && isxdigit((unsigned char)q[1])) {
                    if (i < r->size[cur])
                        r->data[cur][i] = (unsigned char)(hexval(q[0]) * 16 + hexval(q[1]));
                    i++;
                    q += 2;
                }
                if (*q && *q != ' ')
                    return -1;
            }
        } else if (line[0] == '|') {
            const char *s = line + 1;
            if (*s == ' ')
                s++;
            /* unescape */
            while (*s) {
                char ch = *s++;
                if (ch == '\\') {
                    char x = *s++;
                    if (x == 'n') ch = '\n';
                    else if (x == 't') ch = '\t';
                    else if (x == '\\') ch = '\\';
                    else if (x == 'x' && isxdigit((unsigned char)s[0]) && isxdigit((unsigned char)s[1])) {
                        ch = (char)(hexval(s[0]) * 16 + hexval(s[1]));
                        s += 2;
                    } else
                        return -1;
                }
                str_append(&r->out, &ol, &oc, &ch, 1);
            }
            r->outlen = ol;
        } else if (!strncmp(line, "stdout ", 7) || !strcmp(line, "end") || line[0] == 0) {
            cur = -1;
        } else {
            cur = -1;
            str_append(&r->head, &hl, &hc, line, strlen(line));
            str_append(&r->head, &hl, &hc, "\n", 1);
        }
        p += n;
        if (*p == '\n')
            p++;
    }
    r->outlen = ol;
    return 0;
}

static void write_stdout_section(FILE *f, const char *s, size_t n)
{
    fprintf(f, "stdout %zu\n", n);
    size_t i = 0;
    while (i < n) {
        fputs("| ", f);
        while (i < n) {
            unsigned char ch = (unsigned char)s[i++];
            if (ch == '\n') {
                fputs("\\n", f);
                break;
            } else if (ch == '\\') {
                fputs("\\\\", f);
            } else if (ch == '\t') {
                fputs("\\t", f);
            } else if (ch < 32 || ch >= 127) {
                fprintf(f, "\\x%02x", ch);
            } else {
                fputc(ch, f);
            }
        }
        fputc('\n', f);
    }
}

static uint64_t load_le(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static bool is_nan_bits(int et, uint64_t v)
{
    int e, m;
    fmt_bits(et, &e, &m);
    uint64_t expmask = (1ull << e) - 1;
    return ((v >> m) & expmask) == expmask && (v & ((1ull << m) - 1)) != 0;
}

static double to_double(int et, uint64_t v)
{
    if (et == ET_F64) {
        double d;
        memcpy(&d, &v, 8);
        return d;
    }
    if (et == ET_F32) {
        uint32_t u = (uint32_t)v;
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    if (et == ET_BF16) {
        uint32_t u = (uint32_t)v << 16;
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    /* f16 */
    int s = (int)(v >> 15) & 1, ex = (int)(v >> 10) & 31, mant = (int)(v & 1023);
    double d;
    if (ex == 0) d = ldexp(mant, -24);
    else if (ex == 31) d = mant ? NAN : INFINITY;
    else d = ldexp(mant + 1024, ex - 25);
    return s ? -d : d;
}

/* monotonic integer image of a float's bits */
static int64_t ordered(int et, uint64_t v)
{
    int bits = et_size(et) * 8;
    uint64_t sign = 1ull << (bits - 1);
    uint64_t mag = v & (sign - 1);
    return (v & sign) ? -(int64_t)mag : (int64_t)mag;
}

/* Compare one buffer; on mismatch fill reason and return false. */
static bool compare_buf(const Output *o, const char *name, const unsigned char *exp, const unsigned char *got,
                        size_t n, char *reason, size_t rn)
{
    if (o->cmp == CMP_EXACT) {
        for (size_t i = 0; i < n; i++)
            if (exp[i] != got[i]) {
                size_t a = i & ~(size_t)3;
                char eh[16] = "", gh[16] = "";
                for (size_t k = a; k < a + 4 && k < n; k++) {
                    snprintf(eh + 2 * (k - a), 3, "%02x", exp[k]);
                    snprintf(gh + 2 * (k - a), 3, "%02x", got[k]);
                }
                size_t bad = 0;
                for (size_t k = i; k < n; k++)
                    bad += exp[k] != got[k];
                snprintf(reason, rn, "buffer %s, offset %zu: expected %s got %s (bytes at 0x%zx; %zu bytes differ)",
                         name, i, eh, gh, a, bad);
                return false;
            }
        return true;
    }
    int es = et_size(o->et);
    size_t bad = 0, first = (size_t)-1;
    uint64_t fe = 0, fg = 0;
    for (size_t i = 0; i + (size_t)es <= n; i += (size_t)es) {
        uint64_t e = load_le(exp + i, es), g = load_le(got + i, es);
        bool ok;
        if (e == g) ok = true;
        else if (is_nan_bits(o->et, e) || is_nan_bits(o->et, g)) ok = is_nan_bits(o->et, e) && is_nan_bits(o->et, g);
        else if (o->cmp == CMP_EXACT_NAN) ok = false;
        else if (o->cmp == CMP_REL || o->cmp == CMP_ABSREL) {
            double de = to_double(o->et, e), dg = to_double(o->et, g);
            if (isinf(de) || isinf(dg)) ok = de == dg;
            else ok = fabs(de - dg) <= o->eps * fabs(de) || (o->cmp == CMP_ABSREL && fabs(de - dg) <= o->eps);
        }
        else if (o->cmp == CMP_ULP) {
            int64_t d = ordered(o->et, e) - ordered(o->et, g);
            uint64_t ad = d < 0 ? (uint64_t)(-d) : (uint64_t)d;
            ok = ad <= o->ulp;
        } else {
            double de = to_double(o->et, e), dg = to_double(o->et, g);
            if (isinf(de) || isinf(dg)) ok = de == dg;
            else ok = fabs(de - dg) <= o->eps;
        }
        if (!ok) {
            if (!bad) {
                first = i;
                fe = e;
                fg = g;
            }
            bad++;
        }
    }
    if (bad) {
        snprintf(reason, rn, "buffer %s, offset %zu: expected 0x%0*" PRIx64 " (%.9g) got 0x%0*" PRIx64
                 " (%.9g); %zu elements out of tolerance",
                 name, first, es * 2, fe, to_double(o->et, fe), es * 2, fg, to_double(o->et, fg), bad);
        return false;
    }
    return true;
}

/* Output o of case c: its `compare` ranges with their own CMP, the rest with the output's CMP. */
static bool compare_out(const Case *c, int o, const char *name, const unsigned char *exp, const unsigned char *got,
                        size_t n, char *reason, size_t rn)
{
    unsigned char *tmp = NULL;
    for (int i = 0; i < c->nranges; i++) {
        const Range *g = &c->ranges[i];
        if (g->out != o || g->off + g->len > n)
            continue;
        if (!compare_buf(&g->o, name, exp + g->off, got + g->off, g->len, reason, rn)) {
            char r2[1000]; /* the prefix + the reason cut to 900 bytes: fits every reason buffer (1024) */
            snprintf(r2, sizeof r2, "compare range 0x%zx+0x%zx: %.900s", g->off, g->len, reason);
            snprintf(reason, rn, "%s", r2);
            free(tmp);
            return false;
        }
        if (!tmp) {
            tmp = malloc(n ? n : 1);
            if (!tmp)
                exit(2);
            memcpy(tmp, exp, n);
        }
        memcpy(tmp + g->off, got + g->off, g->len); /* checked: the rest compares without it */
    }
    bool ok = compare_buf(&c->outs[o], name, tmp ? tmp : exp, got, n, reason, rn);
    free(tmp);
    return ok;
}

/* ------------------------------------------------------------------ */
/* driver: collect cases, fork, record/check                          */

typedef struct {
    char **v;
    int n, cap;
} StrList;

static void sl_push(StrList *l, const char *s)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 64;
        char **nv = realloc(l->v, sizeof(char *) * (size_t)l->cap);
        if (!nv)
            exit(2);
        l->v = nv;
    }
    l->v[l->n++] = xstrdup(s);
}

static int cmpstr(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void collect(const char *path, StrList *out)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "p2n-conform: %s: %s\n", path, strerror(errno));
        sl_push(out, path); /* reported as a failing case */
        return;
    }
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        if (!d)
            return;
        StrList sub = {0};
        struct dirent *e;
        while ((e = readdir(d))) {
            if (e->d_name[0] == '.')
                continue;
            char p[PATH_MAX];
            snprintf(p, sizeof p, "%s/%s", path, e->d_name);
            sl_push(&sub, p);
        }
        closedir(d);
        qsort(sub.v, (size_t)sub.n, sizeof(char *), cmpstr);
        for (int i = 0; i < sub.n; i++) {
            struct stat s2;
            size_t l = strlen(sub.v[i]);
            if (stat(sub.v[i], &s2) == 0 && (S_ISDIR(s2.st_mode) || (l > 5 && !strcmp(sub.v[i] + l - 5, ".case"))))
                collect(sub.v[i], out);
            free(sub.v[i]);
        }
        free(sub.v);
    } else {
        sl_push(out, path);
    }
}

enum { MODE_NONE, MODE_RECORD, MODE_CHECK, MODE_DRY };

typedef struct {
    pid_t pid;
    int idx;
    Case *c;
    char resfile[PATH_MAX];
    char outfile[PATH_MAX];
    struct timespec start;
    bool killed;
} Job;

static int g_mode;
static const char *g_dir;
static char g_tmpdir[PATH_MAX];
static FILE *g_recorded_on;
static int g_pass, g_fail;
static bool g_verbose;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void report(bool pass, const char *name, const char *reason)
{
    if (pass) {
        g_pass++;
        printf("PASS %s\n", name);
    } else {
        g_fail++;
        printf("FAIL %s (%s)\n", name, reason);
    }
    fflush(stdout);
}

/* Build the canonical result text (without the device line) */
__attribute__((noinline)) static char *finish_text(Job *j, int status, char **devline)
{
    size_t len = 0, cap = 0;
    char *txt = NULL;
    char hdr[PATH_MAX + 64];
    snprintf(hdr, sizeof hdr, "# p2n-conform result v1\ncase %s\n", j->c->name);
    str_append(&txt, &len, &cap, hdr, strlen(hdr));
    size_t rl;
    char *res = read_file(j->resfile, &rl);
    bool ended = false;
    if (res) {
        char *save = NULL;
        for (char *line = strtok_r(res, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
            if (!strncmp(line, "device ", 7)) {
                if (devline)
                    *devline = xstrdup(line + 7);
                continue;
            }
            if (!strcmp(line, "endrun")) {
                ended = true;
                continue;
            }
            str_append(&txt, &len, &cap, line, strlen(line));
            str_append(&txt, &len, &cap, "\n", 1);
        }
        free(res);
    }
    char tail[128];
    if (j->killed)
        snprintf(tail, sizeof tail, "abnormal timeout\n");
    else if (WIFSIGNALED(status))
        snprintf(tail, sizeof tail, "abnormal signal %d\n", WTERMSIG(status));
    else if (!ended)
        snprintf(tail, sizeof tail, "abnormal exit %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    else
        tail[0] = 0;
    str_append(&txt, &len, &cap, tail, strlen(tail));
    size_t ol = 0;
    char *outs = read_file(j->outfile, &ol);
    char *mem = NULL;
    size_t ml = 0;
    FILE *mf = open_memstream(&mem, &ml);
    write_stdout_section(mf, outs ? outs : "", outs ? ol : 0);
    fclose(mf);
    str_append(&txt, &len, &cap, mem, ml);
    free(mem);
    free(outs);
    str_append(&txt, &len, &cap, "end\n", 4);
    return txt;
}

static void finish_job(Job *j, int status)
{
    char *dev = NULL;
    char *txt = finish_text(j, status, &dev);
    const Case *c = j->c;
    char path[PATH_MAX * 2];
    snprintf(path, sizeof path, "%s/%s.out", g_dir, c->name);
    bool abnormal = strstr(txt, "\nabnormal ") != NULL;
    if (g_mode == MODE_RECORD) {
        char dir[PATH_MAX * 2];
        snprintf(dir, sizeof dir, "%s", path);
        char *sl = strrchr(dir, '/');
        if (sl) {
            *sl = 0;
            mkdir_p(dir);
        }
        FILE *f = fopen(path, "w");
        if (!f) {
            report(false, c->name, "cannot write expected file");
        } else {
            fputs(txt, f);
            fclose(f);
            if (g_recorded_on)
                fprintf(g_recorded_on, "%s %s\n", c->name, dev ? dev : "device=unknown");
            Result r;
            parse_result(txt, &r);
            bool loadok = strstr(txt, "\nload CUDA_SUCCESS\n") != NULL;
            if (abnormal || !loadok) {
                char reason[256], what[128] = "load failed";
                const char *ab = strstr(txt, "\nabnormal ");
                if (ab)
                    snprintf(what, sizeof what, "%.100s", ab + 1);
                snprintf(reason, sizeof reason, "recorded, but the run was abnormal or the module did not load: %s",
                         what);
                char *nl = strchr(reason, '\n');
                if (nl)
                    *nl = 0;
                report(false, c->name, reason);
            } else {
                report(true, c->name, NULL);
            }
            result_free(&r);
        }
    } else {
        size_t el;
        char *etxt = read_expected(path, &el);
        char reason[1024] = "";
        bool pass = true;
        if (!etxt) {
            pass = false;
            snprintf(reason, sizeof reason, "no expected file %.900s", path);
        } else {
            Result e, g;
            if (parse_result(etxt, &e) || parse_result(txt, &g)) {
                pass = false;
                snprintf(reason, sizeof reason, "unparsable result text");
            } else if (strcmp(e.head, g.head) != 0) {
                pass = false;
                /* first differing line */
                const char *a = e.head, *b = g.head;
                while (*a && *a == *b) {
                    a++;
                    b++;
                }
                while (a > e.head && a[-1] != '\n') a--;
                while (b > g.head && b[-1] != '\n') b--;
                int an = (int)strcspn(a, "\n"), bn = (int)strcspn(b, "\n");
                snprintf(reason, sizeof reason, "status: expected '%.*s' got '%.*s'", an, a, bn, b);
            } else {
                for (int o = 0; o < c->nouts && pass; o++) {
                    const char *bn = out_name(c, &c->outs[o]);
                    int ei = -1, gi = -1;
                    for (int k = 0; k < e.nbufs; k++)
                        if (!strcmp(e.names[k], bn)) ei = k;
                    for (int k = 0; k < g.nbufs; k++)
                        if (!strcmp(g.names[k], bn)) gi = k;
                    if (ei < 0 && gi < 0) {
                        /* neither run got as far as reading buffers: the status lines decide */
                    } else if (ei < 0 || gi < 0) {
                        pass = false;
                        snprintf(reason, sizeof reason, "buffer %s missing from %s", bn, ei < 0 ? "expected" : "result");
                    } else if (!e.data[ei] || !g.data[gi]) {
                        if (e.data[ei] || g.data[gi]) {
                            pass = false;
                            snprintf(reason, sizeof reason, "buffer %s availability differs", bn);
                        }
                    } else if (e.size[ei] != g.size[gi]) {
                        pass = false;
                        snprintf(reason, sizeof reason, "buffer %s size differs", bn);
                    } else {
                        pass = compare_out(c, o, bn, e.data[ei], g.data[gi], e.size[ei], reason, sizeof reason);
                    }
                }
                if (pass && (e.outlen != g.outlen || memcmp(e.out, g.out, e.outlen) != 0)) {
                    pass = false;
                    size_t i = 0;
                    while (i < e.outlen && i < g.outlen && e.out[i] == g.out[i])
                        i++;
                    snprintf(reason, sizeof reason, "stdout differs at byte %zu (expected %zu bytes, got %zu)", i,
                             e.outlen, g.outlen);
                }
            }
            if (parse_result(etxt, &e) == 0) {
            }
            result_free(&e);
            result_free(&g);
            free(etxt);
        }
        report(pass, c->name, reason);
        if (!pass && g_verbose) {
            fprintf(stderr, "---- got for %s ----\n%s", c->name, txt);
        }
    }
    free(dev);
    free(txt);
    unlink(j->resfile);
    unlink(j->outfile);
}

static void usage(void)
{
    fprintf(stderr,
            "usage: p2n-conform (--record OUTDIR | --check EXPECTEDDIR | --dry-run) [-j N] [--root DIR] [-v]\n"
            "                   CASE-FILE-OR-DIR...\n");
    exit(2);
}

int main(int argc, char **argv)
{
    int jobs = 1;
    StrList inputs = {0};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--record") && i + 1 < argc) {
            g_mode = MODE_RECORD;
            g_dir = argv[++i];
        } else if (!strcmp(argv[i], "--check") && i + 1 < argc) {
            g_mode = MODE_CHECK;
            g_dir = argv[++i];
        } else if (!strcmp(argv[i], "--dry-run")) {
            g_mode = MODE_DRY;
        } else if (!strcmp(argv[i], "-j") && i + 1 < argc) {
            jobs = atoi(argv[++i]);
            if (jobs < 1)
                jobs = 1;
        } else if (!strcmp(argv[i], "--root") && i + 1 < argc) {
            snprintf(g_root, sizeof g_root, "%s", argv[++i]);
        } else if (!strcmp(argv[i], "-v")) {
            g_verbose = true;
        } else if (argv[i][0] == '-') {
            usage();
        } else {
            sl_push(&inputs, argv[i]);
        }
    }
    if (g_mode == MODE_NONE || inputs.n == 0)
        usage();
    StrList files = {0};
    for (int i = 0; i < inputs.n; i++)
        collect(inputs.v[i], &files);

    if (g_mode == MODE_DRY) {
        for (int i = 0; i < files.n; i++) {
            char nm[PATH_MAX];
            case_name_from_path(files.v[i], nm, sizeof nm);
            Case *c = parse_case(files.v[i]);
            char reason[1024];
            if (!c) {
                snprintf(reason, sizeof reason, "%s:%d: %s", files.v[i], g_err_line, g_err_msg);
                report(false, nm, reason);
                continue;
            }
            char root[PATH_MAX], pp[PATH_MAX * 2 + 2];
            root_for(c->path, root, sizeof root);
            snprintf(pp, sizeof pp, "%s/%s", root, c->ptx);
            char *ptx = read_file(pp, NULL);
            bool ok = ptx != NULL;
            if (!ok)
                snprintf(reason, sizeof reason, "cannot read PTX %.900s", pp);
            for (int l = 0; ok && l < c->nlaunches; l++) {
                char pat[NAME_LEN + 16];
                snprintf(pat, sizeof pat, ".entry %s", c->launches[l].kernel);
                const char *h = ptx;
                bool found = false;
                while ((h = strstr(h, pat))) {
                    char nx = h[strlen(pat)];
                    if (!(isalnum((unsigned char)nx) || nx == '_' || nx == '$')) {
                        found = true;
                        break;
                    }
                    h++;
                }
                if (!found) {
                    ok = false;
                    snprintf(reason, sizeof reason, "kernel %.100s not found in %.800s", c->launches[l].kernel, c->ptx);
                }
            }
            free(ptx);
            report(ok, c->name, reason);
            case_free(c);
        }
        printf("%d passed, %d failed\n", g_pass, g_fail);
        return g_fail ? 1 : 0;
    }

    const char *tmp = getenv("TMPDIR");
    snprintf(g_tmpdir, sizeof g_tmpdir, "%s/p2n-conform.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(g_tmpdir)) {
        perror("mkdtemp");
        return 2;
    }
    if (g_mode == MODE_RECORD) {
        mkdir_p(g_dir);
        char p[PATH_MAX * 2];
        snprintf(p, sizeof p, "%s/RECORDED_ON.txt", g_dir);
        g_recorded_on = fopen(p, "w");
    }
    Job *running = xmalloc(sizeof(Job) * (size_t)jobs);
    int nrun = 0, next = 0;
    while (next < files.n || nrun > 0) {
        while (nrun < jobs && next < files.n) {
            int idx = next++;
            Case *c = parse_case(files.v[idx]);
            if (!c) {
                char nm[PATH_MAX], reason[1024];
                case_name_from_path(files.v[idx], nm, sizeof nm);
                snprintf(reason, sizeof reason, "parse error %s:%d: %s", files.v[idx], g_err_line, g_err_msg);
                report(false, nm, reason);
                continue;
            }
            Job *j = &running[nrun];
            memset(j, 0, sizeof *j);
            j->idx = idx;
            j->c = c;
            snprintf(j->resfile, sizeof j->resfile, "%.3000s/r%d", g_tmpdir, idx);
            snprintf(j->outfile, sizeof j->outfile, "%.3000s/o%d", g_tmpdir, idx);
            fflush(stdout);
            fflush(stderr);
            pid_t pid = fork();
            if (pid < 0) {
                perror("fork");
                return 2;
            }
            if (pid == 0) {
                int fd = open(j->outfile, O_WRONLY | O_CREAT | O_TRUNC, 0644);
                if (fd >= 0) {
                    dup2(fd, 1);
                    close(fd);
                }
                setvbuf(stdout, NULL, _IOFBF, 1 << 16);
                int rc = run_case_child(c, j->resfile);
                fflush(stdout);
                _exit(rc);
            }
            j->pid = pid;
            clock_gettime(CLOCK_MONOTONIC, &j->start);
            nrun++;
        }
        if (nrun == 0)
            break;
        int status;
        pid_t w = waitpid(-1, &status, WNOHANG);
        if (w > 0) {
            for (int k = 0; k < nrun; k++)
                if (running[k].pid == w) {
                    finish_job(&running[k], status);
                    case_free(running[k].c);
                    running[k] = running[--nrun];
                    break;
                }
            continue;
        }
        double t = now_s();
        /* P2N_CONFORM_TIMEOUT_SCALE stretches every case's limit: cold PoCL builds of SPIR-V take seconds, and
         * sanitizer builds or a loaded CI machine run several times slower than the recorded limits assume */
        static double scale = 0;
        if (scale == 0) {
            const char *e = getenv("P2N_CONFORM_TIMEOUT_SCALE");
            scale = e && atof(e) > 0 ? atof(e) : 1;
        }
        for (int k = 0; k < nrun; k++) {
            double st = (double)running[k].start.tv_sec + (double)running[k].start.tv_nsec * 1e-9;
            if (!running[k].killed && t - st > running[k].c->timeout * scale) {
                kill(running[k].pid, SIGKILL);
                running[k].killed = true;
            }
        }
        struct timespec ts = {0, 2000000};
        nanosleep(&ts, NULL);
    }
    if (g_recorded_on)
        fclose(g_recorded_on);
    rmdir(g_tmpdir);
    printf("%d passed, %d failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
