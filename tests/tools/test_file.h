/* test_file.h — reading a whole test input file, shared by the C test programs (header-only: each test is its
 * own executable and links nothing else of tests/). */
#ifndef P2N_TEST_FILE_H
#define P2N_TEST_FILE_H

#include <stdio.h>
#include <stdlib.h>

/* The file's bytes plus a terminating NUL (PTX is handed on as a C string too); *len = size without the NUL.
 * NULL when it cannot be opened or read (len untouched). */
static inline char *test_read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = NULL;
    long n = -1;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (!buf) return NULL;
    buf[n] = 0;
    if (len) *len = (size_t)n;
    return buf;
}

#endif
