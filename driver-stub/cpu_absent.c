/* cpu_absent.c — stands in for the CPU runtime (driver-stub/cpu/) while it is not part of the build:
 * every host code object is refused with a message saying why. Compiled only when CMake finds no
 * p2n_cpu_backend target. */
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu_backend.h"

static void say(char **error)
{
    if (error)
        *error = strdup("ptx2native: this libcuda.so.1 was built without the CPU runtime (driver-stub/cpu)");
}

cpu_status cpu_module_load(const void *image, size_t size, cpu_module **out, char **error)
{
    (void)image;
    (void)size;
    *out = NULL;
    say(error);
    return CPU_ERR_INVALID_IMAGE;
}

void cpu_module_unload(cpu_module *m) { (void)m; }

cpu_status cpu_module_get_kernel(cpu_module *m, const char *name, cpu_kernel **out)
{
    (void)m;
    (void)name;
    (void)out;
    return CPU_ERR_NOT_FOUND;
}

cpu_status cpu_module_get_global(cpu_module *m, const char *name, void **addr, size_t *size)
{
    (void)m;
    (void)name;
    (void)addr;
    (void)size;
    return CPU_ERR_NOT_FOUND;
}

void cpu_kernel_get_info(const cpu_kernel *k, cpu_kernel_info *info)
{
    (void)k;
    memset(info, 0, sizeof *info);
}

cpu_status cpu_launch_kernel(cpu_kernel *k, const cpu_launch *launch, char **error)
{
    (void)k;
    (void)launch;
    say(error);
    return CPU_ERR_LAUNCH_FAILED;
}
