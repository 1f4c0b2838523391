/* A host code object built for another ABI version. */
#include "fake.h"
const p2n_rt_table *__p2n_rt;
const p2n_module_desc __p2n_module = {99u, 0, 0, 0, 0};
