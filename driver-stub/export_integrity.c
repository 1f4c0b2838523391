/* export_integrity.c — INTEGRITY_CHECK (d4082055…) slot 1: the answer cudart 13 checks before its first
 * runtime call succeeds (cudart-driver.md §4, verified bit-for-bit against driver 580). For version % 10 == 2
 * it is HMAC-MD2 over the process identity, the two table addresses cudart was handed and every device's
 * UUID + PCI location; versions ending in 0 and 1 get fixed constants. The inputs come from OUR
 * cuDriverGetVersion / cuDeviceGetUuid / cuDeviceGetAttribute, so the hash stays consistent with what cudart
 * reads from us through those entry points. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "export_md2.h"
#include "exports.h"

static const uint8_t hmac_key[16] = {0x14, 0x6a, 0xdd, 0xae, 0x53, 0xa9, 0xa7, 0x52,
                                     0xaa, 0x08, 0x41, 0x36, 0x0b, 0xf5, 0x5a, 0x9f};

static void put_u32(p2n_md2_ctx *h, uint32_t v)
{
    uint8_t b[4];
    for (int i = 0; i < 4; i++)
        b[i] = (uint8_t)(v >> (8 * i));
    p2n_md2_update(h, b, 4);
}

static void put_u64(p2n_md2_ctx *h, uint64_t v)
{
    put_u32(h, (uint32_t)v);
    put_u32(h, (uint32_t)(v >> 32));
}

/* The HMAC is computed in one streaming pass; these mirror p2n_hmac_md2's inner/outer pads. */
static void pad_key(p2n_md2_ctx *h, uint8_t x)
{
    uint8_t pad[16];
    for (int i = 0; i < 16; i++)
        pad[i] = hmac_key[i] ^ x;
    p2n_md2_init(h);
    p2n_md2_update(h, pad, 16);
}

CUresult p2n_drv_integrity_hash(uint32_t version, uint64_t unix_seconds, uint64_t out[2],
                                const p2n_export_slot *iface, const p2n_export_slot *itab)
{
    if (!out)
        return CUDA_ERROR_INVALID_VALUE;
    switch (version % 10) {
    case 0:
        out[0] = 0x3341181c03cb675cull;
        out[1] = 0x8ed383aa1f4cd1e8ull;
        return CUDA_SUCCESS;
    case 1:
        out[0] = 0x1841181c03cb675cull;
        out[1] = 0x8ed383aa1f4cd1e8ull;
        return CUDA_SUCCESS;
    case 2:
        break;
    default:
        fprintf(stderr, "ptx2native libcuda: INTEGRITY_CHECK[1] called with unknown version %u\n", version);
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    int drv_version = 0, ndev = 0;
    CUresult r = cuDriverGetVersion(&drv_version);
    if (r == CUDA_SUCCESS)
        r = cuDeviceGetCount(&ndev);
    if (r != CUDA_SUCCESS)
        return r;

    p2n_md2_ctx h;
    pad_key(&h, 0x36);
    put_u32(&h, (uint32_t)drv_version);
    put_u32(&h, version);
    put_u32(&h, (uint32_t)getpid());
    put_u32(&h, (uint32_t)(uintptr_t)pthread_self());   /* pthread_self, not gettid: what the driver hashes */
    put_u64(&h, (uint64_t)(uintptr_t)iface);
    put_u64(&h, (uint64_t)(uintptr_t)itab);
    put_u64(&h, (uint64_t)(uintptr_t)itab[1].fn);
    put_u64(&h, unix_seconds);
    for (int d = 0; d < ndev; d++) {
        CUuuid uuid;
        int pci[3];
        static const CUdevice_attribute attrs[3] = {CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID,
                                                    CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID};
        r = cuDeviceGetUuid(&uuid, d);
        for (int i = 0; i < 3 && r == CUDA_SUCCESS; i++)
            r = cuDeviceGetAttribute(&pci[i], attrs[i], d);
        if (r != CUDA_SUCCESS)
            return r;
        p2n_md2_update(&h, uuid.bytes, 16);
        for (int i = 0; i < 3; i++)
            put_u32(&h, (uint32_t)pci[i]);
    }
    uint8_t inner[16], digest[16];
    p2n_md2_final(&h, inner);
    pad_key(&h, 0x5c);
    p2n_md2_update(&h, inner, 16);
    p2n_md2_final(&h, digest);
    memcpy(out, digest, 16);   /* the 16 digest bytes in order = two little-endian u64 */
    return CUDA_SUCCESS;
}
