/* tool.h — shared pieces of the ptx2native-fatbin CLI. */
#ifndef P2N_FATBIN_TOOL_H
#define P2N_FATBIN_TOOL_H

#include "p2n_fatbin.h"

#include <stdio.h>

enum { EXIT_OK = 0, EXIT_BAD_INPUT = 1, EXIT_INTERNAL = 2 };

extern int g_verbose;

/* one input file (after expanding directories) */
typedef struct input {
    char *path; /* as found */
    char *rel;  /* path relative to the argument it came from (basename for file arguments) */
    int from_dir;
} input;

typedef struct input_list { input *v; size_t n, cap; } input_list;
int collect_inputs(char **args, int nargs, input_list *out); /* 0 ok, else exit code */
void free_inputs(input_list *l);

void json_str(FILE *o, const char *s, size_t n);
int write_atomic(const char *path, const void *data, size_t len, const char *mode_from, char *err, size_t errlen);
int mkdir_p(const char *dir);

int cmd_rewrite(int argc, char **argv);

#endif
