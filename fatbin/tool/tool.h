/* tool.h — shared pieces of the ptx2native-fatbin CLI. */
#ifndef P2N_FATBIN_TOOL_H
#define P2N_FATBIN_TOOL_H

#include "p2n_fatbin.h"

#include <stdint.h>
#include <stdio.h>

enum { EXIT_OK = 0, EXIT_BAD_INPUT = 1, EXIT_INTERNAL = 2 };

extern int g_verbose;

/* What a walked path becomes: rewritten (ELF files and archives), or, when mirroring a directory into -o OUT,
 * created (directories), copied (other files) or recreated (symbolic links). */
typedef enum input_kind { IN_REWRITE, IN_DIR, IN_COPY, IN_LINK } input_kind;

/* one input path (after expanding directories) */
typedef struct input {
    char *path; /* as found */
    char *rel;  /* path relative to the argument it came from (basename for file arguments) */
    char *root; /* realpath of the directory argument it came from; NULL for file arguments */
    int from_dir;
    input_kind kind;
    unsigned mode;   /* permission bits */
    uint64_t size;
} input;

typedef struct input_list { input *v; size_t n, cap; } input_list;
/* all = 0: ELF files and archives only (list); 1: every directory, file and link (rewrite mirroring a tree).
 * A directory whose realpath is `skip_dir` (the output directory, when it lies inside an input) is not walked.
 * Returns 0, else an exit code. */
int collect_inputs(char **args, int nargs, int all, const char *skip_dir, input_list *out);
void free_inputs(input_list *l);

/* tree.c: writing under an output directory without following links there */
int safe_parent(const char *out, const char *rel, int dir_ok, char *err, size_t errlen);
int copy_atomic(const char *src, const char *dest, char *err, size_t errlen);
int link_atomic(const input *in, const char *dest, char *err, size_t errlen);

void json_str(FILE *o, const char *s, size_t n);
int write_atomic(const char *path, const void *data, size_t len, const char *mode_from, char *err, size_t errlen);
int mkdir_p(const char *dir);

int cmd_rewrite(int argc, char **argv);

#endif
