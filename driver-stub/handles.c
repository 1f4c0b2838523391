/* handles.c — registry of live handles (contexts, modules, functions, streams, events).
 *
 * A handle is valid when it is in this set AND starts with the magic of the expected kind. Garbage or stale
 * handles are therefore rejected (CUDA_ERROR_INVALID_HANDLE / INVALID_CONTEXT) without being dereferenced.
 * Open addressing over pointer values, tombstones on removal, grown at 50 % load.
 */
#include <stdlib.h>

#include "internal.h"

#define TOMB ((void *)1)

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static void **slots;
static size_t nslots, nused, nlive;

static size_t hash_ptr(const void *p)
{
    uint64_t x = (uint64_t)(uintptr_t)p;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return (size_t)x;
}

static void grow(void)
{
    size_t n = nslots ? nslots * 2 : 256;
    void **ns = calloc(n, sizeof *ns);
    if (!ns)
        abort();
    for (size_t i = 0; i < nslots; i++) {
        void *p = slots[i];
        if (!p || p == TOMB)
            continue;
        size_t j = hash_ptr(p) & (n - 1);
        while (ns[j])
            j = (j + 1) & (n - 1);
        ns[j] = p;
    }
    free(slots);
    slots = ns;
    nslots = n;
    nused = nlive;
}

void p2n_drv_register(void *h)
{
    pthread_mutex_lock(&reg_lock);
    if ((nused + 1) * 2 > nslots)
        grow();
    size_t j = hash_ptr(h) & (nslots - 1);
    while (slots[j] && slots[j] != TOMB)
        j = (j + 1) & (nslots - 1);
    if (!slots[j])
        nused++;
    slots[j] = h;
    nlive++;
    pthread_mutex_unlock(&reg_lock);
}

static size_t find_slot(const void *h)
{
    if (!nslots)
        return SIZE_MAX;
    size_t j = hash_ptr(h) & (nslots - 1);
    while (slots[j]) {
        if (slots[j] == h)
            return j;
        j = (j + 1) & (nslots - 1);
    }
    return SIZE_MAX;
}

void p2n_drv_unregister(void *h)
{
    pthread_mutex_lock(&reg_lock);
    size_t j = find_slot(h);
    if (j != SIZE_MAX) {
        slots[j] = TOMB;
        nlive--;
    }
    pthread_mutex_unlock(&reg_lock);
}

int p2n_drv_is_live(const void *h, uint32_t magic)
{
    if (!h || h == TOMB)
        return 0;
    pthread_mutex_lock(&reg_lock);
    int live = find_slot(h) != SIZE_MAX && *(const uint32_t *)h == magic;
    pthread_mutex_unlock(&reg_lock);
    return live;
}
