/* progress.h — progress of `rewrite` on stderr (progress.c says when and how). */
#ifndef P2N_FATBIN_PROGRESS_H
#define P2N_FATBIN_PROGRESS_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum { PROGRESS_OFF, PROGRESS_TTY, PROGRESS_LINES } progress_mode;

typedef struct progress {
    progress_mode mode;
    double interval, t0;
    size_t files_total, files_done, modules_done;
    uint64_t bytes_total, bytes_done;
    const char *current;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t thread;
    int has_thread, stop;
} progress;

void progress_start(progress *p, size_t files_total, uint64_t bytes_total, int quiet);
void progress_file_start(progress *p, const char *name);
/* the library's per-job callback (p2n_fb_rewrite_opts.progress): one more (module, target) finished */
void progress_module_done(void *p, size_t done, size_t total);
void progress_file_done(progress *p, uint64_t bytes);
void progress_finish(progress *p);

#endif
