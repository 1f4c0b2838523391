/* A shared object that is not a ptx2native host code object. */
int not_ours(int x);
int not_ours(int x) { return x + 1; }
