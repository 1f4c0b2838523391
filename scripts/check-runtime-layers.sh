#!/usr/bin/env bash
# check-runtime-layers.sh — fails when the driver stub's files call each other in a ring.
#
#   scripts/check-runtime-layers.sh OBJECT...     (every object of libcuda.so.1: ctest layers.runtime passes those of
#                                                  cuda_stub and of each static library linked into it)
#   scripts/check-runtime-layers.sh DIR           (every *.o under DIR, e.g. build/driver-stub)
#
# The file-level call graph comes from the objects themselves: file A depends on file B when A has an undefined
# symbol (`nm`: U) that B defines. Every cycle of that graph is a layering error (driver-stub/README.md, "Layers"):
# the script prints each one it finds as `a.c -> b.c -> a.c` and exits 1; with no cycle it prints the graph's
# edges in layer order and exits 0.
set -euo pipefail
NM=${NM:-nm}
objs=()
for a in "$@"; do
  if [ -d "$a" ]; then
    while IFS= read -r o; do objs+=("$o"); done < <(find "$a" -name '*.o' | sort)
  elif [ -f "$a" ]; then
    objs+=("$a")
  else
    echo "check-runtime-layers: $a: no such object file or directory" >&2; exit 2
  fi
done
[ ${#objs[@]} -gt 0 ] || { echo "check-runtime-layers: no object files given" >&2; exit 2; }

# lines "D obj sym" (defined) and "U obj sym" (undefined), one nm run each (nm -A: "obj.o:[addr] type sym")
{
  "$NM" -A -g --defined-only "${objs[@]}" | awk '{ o = $0; sub(/\.o:.*/, ".o", o); print "D", o, $NF }'
  "$NM" -A -u "${objs[@]}" | awk '{ o = $0; sub(/\.o:.*/, ".o", o); print "U", o, $NF }'
} | awk '
  # the file name of an object, from the CMake object path .../<dir>/CMakeFiles/<lib>.dir/<source>.o: files of
  # the stub itself by their source path (ctx.c, opencl/backend_opencl.c), those of a library linked into it
  # prefixed with its folder (cpu/cpu_sync.c, abi/container.c, fatbin/src/container.c: two libraries may have files of one name);
  # any other object by its file name
  {
    n = split($2, q, "/"); f = q[n]; sub(/\.o$/, "", f)
    for (i = n - 1; i >= 2; i--)
      if (q[i] ~ /\.dir$/ && q[i - 1] == "CMakeFiles") {
        f = ""; for (k = i + 1; k <= n; k++) if (q[k] != ".") f = f (f == "" ? "" : "/") q[k]; sub(/\.o$/, "", f)
        if (q[i] != "cuda_stub.dir" && i >= 3) f = q[i - 2] "/" f
        break
      }
    $2 = f
  }
  $1 == "D" { def[$3] = $2; files[$2] = 1; next }
  $1 == "U" { use[++nu] = $2 SUBSEP $3; files[$2] = 1 }
  END {
    for (i = 1; i <= nu; i++) {
      split(use[i], p, SUBSEP)
      if ((p[2] in def) && def[p[2]] != p[1] && !((p[1], def[p[2]]) in edge)) {
        edge[p[1], def[p[2]]] = p[2]
        out[p[1]] = out[p[1]] " " def[p[2]]
      }
    }
    nf = 0
    for (f in files) name[++nf] = f
    # sort the file names (stable output)
    for (i = 2; i <= nf; i++) { v = name[i]; for (j = i - 1; j >= 1 && name[j] > v; j--) name[j + 1] = name[j]; name[j + 1] = v }
    ncyc = 0
    for (i = 1; i <= nf; i++) if (!(name[i] in color)) dfs(name[i], 0)
    if (ncyc) { printf "check-runtime-layers: %d cycle(s) in the driver stub'"'"'s file-level call graph\n", ncyc; exit 1 }
    # layer order: reverse post-order of the DFS = callers before callees; print callees first
    printf "check-runtime-layers: no cycle among %d files; lowest layer first:\n", nf
    for (i = 1; i <= npost; i++) {
      f = post[i]; n = split(out[f], t, " "); s = ""
      for (k = 1; k <= n; k++) s = s " " t[k]
      printf "  %-28s ->%s\n", f, s == "" ? " (nothing)" : s
    }
  }
  function dfs(u, depth,    n, t, k, v, j, s) {
    color[u] = 1; stack[depth] = u
    n = split(out[u], t, " ")
    for (k = 1; k <= n; k++) {
      v = t[k]
      if ((v in color) && color[v] == 1) {
        s = v
        for (j = depth; j >= 0 && stack[j] != v; j--) ;
        s = ""
        for (; j <= depth; j++) s = s stack[j] " -> "
        printf "cycle: %s%s   (%s calls %s)\n", s, v, u, edge[u, v]
        ncyc++
      } else if (!(v in color)) dfs(v, depth + 1)
    }
    color[u] = 2; post[++npost] = u
  }'
