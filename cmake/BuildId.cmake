# Writes build_id.h with a hash of every compiler source file (abi, front end, IR, passes, targets): the build id
# that caches key on changes exactly when the compiler's code changes, committed or not. Run at build time
# (cmake -P) so it is never stale; the header is rewritten only when the id changes.
file(GLOB_RECURSE srcs
     ${SRC}/abi/*.c ${SRC}/abi/*.h ${SRC}/frontend/*.c ${SRC}/frontend/*.h ${SRC}/ir/*.c ${SRC}/ir/*.h ${SRC}/ir/*.def
     ${SRC}/passes/*.c ${SRC}/passes/*.h ${SRC}/targets/*.c ${SRC}/targets/*.h ${SRC}/targets/*.cpp)
list(SORT srcs)
set(all "")
foreach(f ${srcs})
  file(SHA256 ${f} h)
  string(APPEND all "${h}")
endforeach()
string(SHA256 id "${all}")
string(SUBSTRING ${id} 0 16 id)
set(content "#define P2N_BUILD_ID \"${id}\"\n")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT "${old}" STREQUAL "${content}")
  file(WRITE ${OUT} "${content}")
endif()
