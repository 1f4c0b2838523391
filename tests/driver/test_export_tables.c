/* test_export_tables.c — cuGetExportTable (driver-stub/exports.c and friends): MD2 / HMAC-MD2 against
 * independent vectors, then the tables cudart 13 uses, with the arguments and result codes measured on
 * NVIDIA's driver (/work/shared/docs/cudart-driver.md §2–§4). The integrity hash is recomputed here from
 * what the public entry points report, which is exactly the consistency cudart relies on. */
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "../../driver-stub/export_md2.h"
#include "check.h"

static void hex(const uint8_t *d, char *out)
{
    for (int i = 0; i < 16; i++)
        sprintf(out + 2 * i, "%02x", d[i]);
}

static void md2_vectors(void)
{
    /* RFC 1319 appendix A.5 */
    static const char *const rfc[][2] = {
        {"", "8350e5a3e24c153df2275c9f80692773"},
        {"a", "32ec01ec4a6dac72c0ab96fb34c0b5d1"},
        {"abc", "da853b0d3f88d99b30283a69e6ded6bb"},
        {"message digest", "ab4f496bfb2a530b219ff33031fe06b0"},
        {"abcdefghijklmnopqrstuvwxyz", "4e8ddff3650292ab5a4108c3aa47940b"},
        {"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "da33def2a42df13975352846c30338cd"},
        {"12345678901234567890123456789012345678901234567890123456789012345678901234567890",
         "d5976f79d83d3a0dc9806c3c66f3efd8"},
    };
    for (size_t i = 0; i < sizeof rfc / sizeof rfc[0]; i++) {
        uint8_t d[16];
        char h[33];
        p2n_md2(rfc[i][0], strlen(rfc[i][0]), d);
        hex(d, h);
        if (strcmp(h, rfc[i][1]) != 0) {
            fprintf(stderr, "MD2(\"%s\") = %s, expected %s\n", rfc[i][0], h, rfc[i][1]);
            check_failures++;
        }
    }
    /* streaming in odd pieces gives the one-shot digest */
    const char *msg = rfc[6][0];
    p2n_md2_ctx c;
    p2n_md2_init(&c);
    for (size_t off = 0, step = 1; off < strlen(msg); off += step, step = step % 7 + 1)
        p2n_md2_update(&c, msg + off, off + step > strlen(msg) ? strlen(msg) - off : step);
    uint8_t d[16];
    char h[33];
    p2n_md2_final(&c, d);
    hex(d, h);
    TRUE(strcmp(h, rfc[6][1]) == 0);

    /* HMAC-MD2: expected values from Python's hmac module (RFC 2104) with an MD2 of block size 16 */
    static const uint8_t key[16] = {0x14, 0x6a, 0xdd, 0xae, 0x53, 0xa9, 0xa7, 0x52,
                                    0xaa, 0x08, 0x41, 0x36, 0x0b, 0xf5, 0x5a, 0x9f};
    static const char fox[] = "The quick brown fox jumps over the lazy dog";
    uint8_t long_key[40], long_msg[100];
    for (int i = 0; i < 100; i++)
        long_msg[i] = (uint8_t)i;
    memcpy(long_key, long_msg, 40);
    struct {
        const uint8_t *key;
        size_t key_len;
        const void *msg;
        size_t len;
        const char *want;
    } hm[] = {
        {key, 16, "", 0, "f66b07aba4a875ea140c2cc013a41c6a"},
        {key, 16, fox, strlen(fox), "6ff0a92b1488b5790782668dc4f71b6a"},
        {(const uint8_t *)"key", 3, fox, strlen(fox), "13758b9534bfb38d850457814613b0c1"},
        {long_key, 40, long_msg, 100, "8ca9377d42a49a7d9d10f86f7f809eff"},   /* key longer than a block */
    };
    for (size_t i = 0; i < sizeof hm / sizeof hm[0]; i++) {
        p2n_hmac_md2(hm[i].key, hm[i].key_len, hm[i].msg, hm[i].len, d);
        hex(d, h);
        if (strcmp(h, hm[i].want) != 0) {
            fprintf(stderr, "HMAC-MD2 vector %zu = %s, expected %s\n", i, h, hm[i].want);
            check_failures++;
        }
    }
}

static const void *table(const uint8_t *uuid)
{
    CUuuid id;
    memcpy(id.bytes, uuid, 16);
    const void *t = (const void *)1;
    OK(cuGetExportTable(&t, &id));
    TRUE(t != NULL);
    return t;
}

typedef CUresult (*primary_fn)(CUcontext *, CUdevice);
typedef void *(*hooks_fn)(void **, size_t *);
typedef CUresult (*cls_put_fn)(CUcontext, void *, void *, void *);
typedef CUresult (*cls_del_fn)(CUcontext, void *);
typedef CUresult (*cls_get_fn)(void **, CUcontext, void *);
typedef CUresult (*checks_fn)(CUcontext, uint32_t *, void **);
typedef CUresult (*integrity_fn)(uint32_t, uint64_t, uint64_t *);

static int dtor_calls;
static void *dtor_value;
static void cls_dtor(CUcontext ctx, void *key, void *value)
{
    (void)ctx, (void)key;
    dtor_calls++;
    dtor_value = value;
}

static void put_bytes(uint8_t **p, const void *v, size_t n)
{
    memcpy(*p, v, n);
    *p += n;
}

int main(void)
{
    md2_vectors();

    static const uint8_t u_f8[16] = {0xf8, 0xcf, 0xf9, 0x51, 0x21, 0x46, 0x8b, 0x4e, 0xb9, 0xe2, 0xfb, 0x46, 0x9e, 0x7c, 0x0d, 0xd9};
    static const uint8_t u_iface[16] = {0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a, 0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d, 0xf9};
    static const uint8_t u_hooks[16] = {0xa0, 0x94, 0x79, 0x8c, 0x2e, 0x74, 0x2e, 0x74, 0x93, 0xf2, 0x08, 0x00, 0x20, 0x0c, 0x0a, 0x66};
    static const uint8_t u_tls[16] = {0x42, 0xd8, 0x5a, 0x81, 0x23, 0xf6, 0xcb, 0x47, 0x82, 0x98, 0xf6, 0xe7, 0x8a, 0x3a, 0xec, 0xdc};
    static const uint8_t u_cls[16] = {0xc6, 0x93, 0x33, 0x6e, 0x11, 0x21, 0xdf, 0x11, 0xa8, 0xc3, 0x68, 0xf3, 0x55, 0xd8, 0x95, 0x93};
    static const uint8_t u_checks[16] = {0x26, 0x3e, 0x88, 0x60, 0x7c, 0xd2, 0x61, 0x43, 0x92, 0xf6, 0xbb, 0xd5, 0x00, 0x6d, 0xfa, 0x7e};
    static const uint8_t u_integ[16] = {0xd4, 0x08, 0x20, 0x55, 0xbd, 0xe6, 0x70, 0x4b, 0x8d, 0x34, 0xba, 0x12, 0x3c, 0x66, 0xe1, 0xf2};

    /* unknown UUID: NVIDIA's answer */
    CUuuid bogus = {{0}};
    const void *t = (const void *)1;
    EXPECT(cuGetExportTable(&t, &bogus), CUDA_ERROR_INVALID_VALUE);
    TRUE(t == NULL);

    MUST(cuInit(0));
    const uint64_t *f8 = table(u_f8), *iface = table(u_iface), *hooks = table(u_hooks), *tls = table(u_tls);
    const uint64_t *cls = table(u_cls), *checks = table(u_checks), *integ = table(u_integ);
    /* layouts of §3: size first where NVIDIA's table has one; same address on every request */
    TRUE(f8[0] == 0x18 && iface[0] == 0x68 && hooks[0] == 0x38 && tls[0] == 0x18 && checks[0] == 0x78 &&
         integ[0] == 0x18);
    TRUE(iface[10] == 0 && iface[11] != 0 && iface[12] != 0 && cls[0] != 0 && cls[2] != 0 && cls[3] == 0);
    TRUE(table(u_iface) == (const void *)iface && table(u_integ) == (const void *)integ);
    /* an unimplemented slot answers NOT_SUPPORTED instead of crashing */
    EXPECT(((CUresult(*)(void))(uintptr_t)tls[1])(), CUDA_ERROR_NOT_SUPPORTED);

    /* CUDART_INTERFACE[2]: the primary context before retain, usable by cuCtxSetCurrent, same as retain's */
    CUcontext pre = NULL, ret = NULL, cur = NULL;
    OK(((primary_fn)(uintptr_t)iface[2])(&pre, 0));
    TRUE(pre != NULL);
    EXPECT(((primary_fn)(uintptr_t)iface[2])(&pre, 99), CUDA_ERROR_INVALID_DEVICE);

    /* TOOLS_RUNTIME_CALLBACK_HOOKS[2]/[6]: driver buffers of 0x400 and 0xe bytes */
    void *p = NULL;
    size_t n = 0;
    void *rp = ((hooks_fn)(uintptr_t)hooks[2])(&p, &n);
    TRUE(p != NULL && rp == p && n == 0x400);
    rp = ((hooks_fn)(uintptr_t)hooks[6])(&p, &n);
    TRUE(p != NULL && rp == p && n == 0xe);

    /* CONTEXT_LOCAL_STORAGE, in cudart's bring-up order (§2 step 13) */
    static int key, value;
    cls_get_fn get = (cls_get_fn)(uintptr_t)cls[2];
    void *v = NULL;
    EXPECT(get(&v, NULL, &key), CUDA_ERROR_INVALID_CONTEXT);     /* nothing current */
    OK(cuCtxSetCurrent(pre));
    EXPECT(get(&v, NULL, &key), CUDA_ERROR_INVALID_CONTEXT);     /* current but not retained yet */
    OK(cuDevicePrimaryCtxRetain(&ret, 0));
    TRUE(ret == pre);
    OK(cuCtxGetCurrent(&cur));
    TRUE(cur == pre);
    EXPECT(get(&v, NULL, &key), CUDA_ERROR_INVALID_HANDLE);      /* retained, nothing stored */
    uint32_t u = 7;
    void *o2 = NULL;
    OK(((checks_fn)(uintptr_t)checks[2])(ret, &u, &o2));
    TRUE(u == 0);
    OK(((cls_put_fn)(uintptr_t)cls[0])(NULL, &key, &value, (void *)(uintptr_t)cls_dtor));
    OK(get(&v, NULL, &key));
    TRUE(v == &value);
    OK(get(&v, ret, &key));
    TRUE(v == &value);
    /* delete: gone, destructor not called (the caller disposes of its value) */
    OK(((cls_del_fn)(uintptr_t)cls[1])(ret, &key));
    EXPECT(get(&v, NULL, &key), CUDA_ERROR_INVALID_HANDLE);
    TRUE(dtor_calls == 0);
    /* a primary-context reset drops the entry and calls its destructor with the value */
    OK(((cls_put_fn)(uintptr_t)cls[0])(NULL, &key, &value, (void *)(uintptr_t)cls_dtor));
    OK(cuDevicePrimaryCtxReset(0));
    TRUE(dtor_calls == 1 && dtor_value == &value);
    OK(cuDevicePrimaryCtxRetain(&ret, 0));
    EXPECT(get(&v, NULL, &key), CUDA_ERROR_INVALID_HANDLE);

    /* INTEGRITY_CHECK[1]: the two constants, then HMAC-MD2 over §4's message built from public answers */
    integrity_fn check = (integrity_fn)(uintptr_t)integ[1];
    uint64_t out[2] = {0, 0};
    OK(check(13000, 1764547200, out));
    TRUE(out[0] == 0x3341181c03cb675cull && out[1] == 0x8ed383aa1f4cd1e8ull);
    OK(check(13001, 1764547200, out));
    TRUE(out[0] == 0x1841181c03cb675cull && out[1] == 0x8ed383aa1f4cd1e8ull);
    const uint64_t secs = 1764547201;
    OK(check(13002, secs, out));
    int drv = 0, ndev = 0;
    OK(cuDriverGetVersion(&drv));
    OK(cuDeviceGetCount(&ndev));
    uint8_t msg[1024], *m = msg;
    uint32_t w[4] = {(uint32_t)drv, 13002, (uint32_t)getpid(), (uint32_t)(uintptr_t)pthread_self()};
    uint64_t q[4] = {(uint64_t)(uintptr_t)iface, (uint64_t)(uintptr_t)integ, integ[1], secs};
    put_bytes(&m, w, sizeof w);   /* little-endian host: memory order = the message's byte order */
    put_bytes(&m, q, sizeof q);
    for (int d = 0; d < ndev && d < 16; d++) {
        CUuuid id;
        int pci[3];
        OK(cuDeviceGetUuid(&id, d));
        OK(cuDeviceGetAttribute(&pci[0], CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, d));
        OK(cuDeviceGetAttribute(&pci[1], CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, d));
        OK(cuDeviceGetAttribute(&pci[2], CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, d));
        put_bytes(&m, id.bytes, 16);
        put_bytes(&m, pci, sizeof pci);
    }
    static const uint8_t key16[16] = {0x14, 0x6a, 0xdd, 0xae, 0x53, 0xa9, 0xa7, 0x52,
                                      0xaa, 0x08, 0x41, 0x36, 0x0b, 0xf5, 0x5a, 0x9f};
    uint8_t want[16];
    p2n_hmac_md2(key16, 16, msg, (size_t)(m - msg), want);
    TRUE(memcmp(out, want, 16) == 0);
    uint64_t out2[2];
    OK(check(13002, secs + 1, out2));
    TRUE(memcmp(out, out2, 16) != 0);   /* the time is part of the message */
    return check_done("test_export_tables");
}
