/* test_container.c — P2NCODE1 writer/reader round trip and the reader's refusal of damaged containers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "container.h"

static int failures, checks;
#define CHECK(c) do { checks++; if (!(c)) { failures++; fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c); } } while (0)

int main(void) {
    const uint8_t code_a[] = {1, 2, 3}, code_b[] = {9, 8, 7, 6, 5};
    const char *meta = "kernel k params=1 bufsize=8 smem=0 dynalign=16 local=0 maxntid=0,0,0 reqntid=0,0,0 flags=0\nparam 0 8\n";
    p2n_container_entry in[2] = {
        {.target = "gfx942", .kind = P2N_CODE_AMDGPU_HSACO, .code = code_a, .code_size = 3, .meta = meta, .meta_size = strlen(meta)},
        {.target = "spirv64", .kind = P2N_CODE_SPIRV, .code = code_b, .code_size = 5, .meta = "", .meta_size = 0},
    };
    size_t size;
    uint8_t *buf = p2n_container_write(in, 2, &size);
    CHECK(buf && size % 16 == 0 && p2n_container_is(buf, size));
    p2n_container_entry out[4];
    char err[256];
    int n = p2n_container_read(buf, size, out, 4, err, sizeof err);
    CHECK(n == 2);
    CHECK(strcmp(out[0].target, "gfx942") == 0 && out[0].kind == P2N_CODE_AMDGPU_HSACO && out[0].code_size == 3 &&
          memcmp(out[0].code, code_a, 3) == 0 && out[0].meta_size == strlen(meta) && memcmp(out[0].meta, meta, strlen(meta)) == 0);
    CHECK(strcmp(out[1].target, "spirv64") == 0 && out[1].code_size == 5 && memcmp(out[1].code, code_b, 5) == 0);
    /* truncation, bad version, offsets outside, bad kind: all refused with a message */
    CHECK(p2n_container_read(buf, size - 16, out, 4, err, sizeof err) < 0 && strstr(err, "truncated"));
    uint8_t *bad = malloc(size);
    memcpy(bad, buf, size);
    bad[8] = 2;
    CHECK(p2n_container_read(bad, size, out, 4, err, sizeof err) < 0 && strstr(err, "version"));
    memcpy(bad, buf, size);
    bad[24 + 32 + 7] = 0x40; /* entry 0 code offset far outside */
    CHECK(p2n_container_read(bad, size, out, 4, err, sizeof err) < 0 && strstr(err, "outside"));
    memcpy(bad, buf, size);
    bad[24 + 24] = 9;
    CHECK(p2n_container_read(bad, size, out, 4, err, sizeof err) < 0 && strstr(err, "kind"));
    CHECK(!p2n_container_is("ELF", 3));
    p2n_container_entry longname = {.target = {0}};
    memset(longname.target, 'x', sizeof longname.target); /* no room for the NUL */
    CHECK(p2n_container_write(&longname, 1, &size) == NULL);
    free(bad);
    free(buf);
    printf("%d passed, %d failed\n", checks - failures, failures);
    return failures != 0;
}
