/* support.c — the few helpers both sides need (support.h); depends on nothing. */
#include "support.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

double p2n_now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

uint64_t p2n_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int p2n_read_file(const char *path, uint8_t **data, size_t *size) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errno;
    size_t n = 0, cap = 1 << 16;
    uint8_t *buf = malloc(cap + 1);
    int err = buf ? 0 : ENOMEM;
    while (!err) {
        if (n == cap) {
            uint8_t *nb = realloc(buf, 2 * cap + 1);
            if (!nb) {
                err = ENOMEM;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) err = errno;
        if (r <= 0) break;
        n += (size_t)r;
    }
    close(fd);
    if (err) {
        free(buf);
        return err;
    }
    buf[n] = 0;
    *data = buf;
    *size = n;
    return 0;
}

bool p2n_write_all(int fd, const void *data, size_t n) {
    const uint8_t *c = data;
    while (n) {
        ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        c += w;
        n -= (size_t)w;
    }
    return true;
}

bool p2n_read_all(int fd, void *data, size_t n) {
    uint8_t *c = data;
    while (n) {
        ssize_t r = read(fd, c, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return false;
        c += r;
        n -= (size_t)r;
    }
    return true;
}
