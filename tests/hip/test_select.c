/* test_select.c — hip.select.*: cuInit through the HIP backend picks the (stand-in) HIP device; its name and
 * attributes come from hipGetDeviceProperties. No launch: no emulator needed.   test_hip_select gfxNNN */
#include <string.h>

#include "../driver/check.h"

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    MUST(cuInit(0));
    int n = 0, v = 0;
    char name[256];
    OK(cuDeviceGetCount(&n));
    TRUE(n == 1);
    OK(cuDeviceGetName(name, sizeof name, 0));
    printf("device: %s\n", name);
    TRUE(strstr(name, argv[1]) != NULL);
    OK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 0));
    TRUE(v == 32);
    OK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 0));
    TRUE(v == 65536);
    OK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0));
    TRUE(v == 4);
    size_t mem = 0;
    OK(cuDeviceTotalMem(&mem, 0));
    TRUE(mem == 16ull << 30);
    return check_done("test_hip_select");
}
