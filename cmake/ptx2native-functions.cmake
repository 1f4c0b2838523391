# ptx2native-functions.cmake — CMake functions of the ptx2native package (loaded by find_package(ptx2native)).
#
# ptx2native_precompile(<target> OFFLOAD_ARCH <arch>... [OUTPUT <file> | IN_PLACE] [JOBS <n>]
#                       [REPORT <file.json>] [CACHE_DIR <dir>])
#   After <target> (a CUDA executable or shared library) is linked, stores native code for every fatbin
#   container's PTX in it (`ptx2native-fatbin rewrite`): in the binary itself (IN_PLACE, the default) or in a
#   copy (OUTPUT). Runs again whenever the binary or the compiler changes. A target <target>_ptx2native (part
#   of `all`) does the work; its property P2N_PRECOMPILED names the rewritten file. The compilation cache is
#   ${CMAKE_BINARY_DIR}/ptx2native-cache unless CACHE_DIR says otherwise.
#
# ptx2native_add_code_object(<name> SOURCES <k.ptx|k.cu>... OFFLOAD_ARCH <arch>... [OUTPUT <file>]
#                            [CUDA_ARCH <sm_XX>] [NVCC_FLAGS <flag>...])
#   Compiles the sources into one native code object (several sources are linked, as nvcc -rdc=true; several
#   targets give one P2NCODE1 container) with ptx2native. .cu files are turned into PTX first by nvcc -ptx
#   (CUDA_ARCH, default sm_80, or the first of CMAKE_CUDA_ARCHITECTURES). Creates target <name> (in `all`);
#   its property P2N_CODE_OBJECT names the file (default ${CMAKE_CURRENT_BINARY_DIR}/<name>.p2n).
include_guard(GLOBAL)

function(ptx2native_precompile target)
  cmake_parse_arguments(PARSE_ARGV 1 P "IN_PLACE" "OUTPUT;JOBS;REPORT;CACHE_DIR" "OFFLOAD_ARCH")
  if(P_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "ptx2native_precompile: unknown arguments ${P_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "ptx2native_precompile: ${target} is not a target")
  endif()
  if(NOT P_OFFLOAD_ARCH)
    message(FATAL_ERROR "ptx2native_precompile(${target}): OFFLOAD_ARCH needs at least one target")
  endif()
  if(P_OUTPUT AND P_IN_PLACE)
    message(FATAL_ERROR "ptx2native_precompile(${target}): OUTPUT and IN_PLACE exclude each other")
  endif()
  list(JOIN P_OFFLOAD_ARCH "," archs)
  set(args --offload-arch=${archs})
  if(P_JOBS)
    list(APPEND args -j ${P_JOBS})
  endif()
  if(P_REPORT)
    get_filename_component(P_REPORT "${P_REPORT}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
    list(APPEND args --report=${P_REPORT})
  endif()
  if(NOT P_CACHE_DIR)
    set(P_CACHE_DIR "${CMAKE_BINARY_DIR}/ptx2native-cache")
  endif()
  list(APPEND args --cache-dir ${P_CACHE_DIR})
  # What a change of must re-run the rewrite: the tool and the compiler library it loads.
  set(tool_deps $<TARGET_FILE:ptx2native::fatbin>)
  if(DEFINED ptx2native_RUNTIME_DIR AND EXISTS "${ptx2native_RUNTIME_DIR}/libp2n_compiler.so")
    list(APPEND tool_deps "${ptx2native_RUNTIME_DIR}/libp2n_compiler.so")
  endif()
  if(P_OUTPUT)
    get_filename_component(out "${P_OUTPUT}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
    add_custom_command(OUTPUT ${out}
      COMMAND ptx2native::fatbin rewrite $<TARGET_FILE:${target}> ${args} -o ${out}
      DEPENDS ${target} $<TARGET_FILE:${target}> ${tool_deps}
      COMMENT "ptx2native: precompiling ${target} for ${archs} -> ${out}" VERBATIM)
    add_custom_target(${target}_ptx2native ALL DEPENDS ${out})
    set_target_properties(${target}_ptx2native PROPERTIES P2N_PRECOMPILED ${out})
  else()
    # In place: a stamp made after the rewrite (so newer than the rewritten binary) stands for it.
    set(stamp ${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/${target}_ptx2native.stamp)
    add_custom_command(OUTPUT ${stamp}
      COMMAND ptx2native::fatbin rewrite $<TARGET_FILE:${target}> ${args} --in-place
      COMMAND ${CMAKE_COMMAND} -E touch ${stamp}
      DEPENDS ${target} $<TARGET_FILE:${target}> ${tool_deps}
      COMMENT "ptx2native: precompiling ${target} for ${archs} (in place)" VERBATIM)
    add_custom_target(${target}_ptx2native ALL DEPENDS ${stamp})
    set_target_properties(${target}_ptx2native PROPERTIES P2N_PRECOMPILED $<TARGET_FILE:${target}>)
  endif()
endfunction()

function(ptx2native_add_code_object name)
  cmake_parse_arguments(PARSE_ARGV 1 P "" "OUTPUT;CUDA_ARCH" "SOURCES;OFFLOAD_ARCH;NVCC_FLAGS")
  if(P_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "ptx2native_add_code_object: unknown arguments ${P_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT P_SOURCES OR NOT P_OFFLOAD_ARCH)
    message(FATAL_ERROR "ptx2native_add_code_object(${name}): needs SOURCES and OFFLOAD_ARCH")
  endif()
  if(NOT P_OUTPUT)
    set(P_OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/${name}.p2n)
  endif()
  get_filename_component(out "${P_OUTPUT}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  if(NOT P_CUDA_ARCH)
    set(P_CUDA_ARCH sm_80)
    if(CMAKE_CUDA_ARCHITECTURES AND NOT CMAKE_CUDA_ARCHITECTURES MATCHES "^(all|native)")
      list(GET CMAKE_CUDA_ARCHITECTURES 0 _a)
      string(REGEX REPLACE "-.*" "" _a "${_a}")
      set(P_CUDA_ARCH sm_${_a})
    endif()
  endif()
  string(REPLACE "sm_" "compute_" virt "${P_CUDA_ARCH}")
  set(ptx_files)
  foreach(src IN LISTS P_SOURCES)
    get_filename_component(src "${src}" ABSOLUTE)
    get_filename_component(ext "${src}" LAST_EXT)
    get_filename_component(base "${src}" NAME_WE)
    if(ext STREQUAL ".ptx")
      list(APPEND ptx_files ${src})
    elseif(ext STREQUAL ".cu")
      if(CMAKE_CUDA_COMPILER)
        set(nvcc ${CMAKE_CUDA_COMPILER})
      else()
        find_program(PTX2NATIVE_NVCC nvcc HINTS /usr/local/cuda/bin REQUIRED)
        set(nvcc ${PTX2NATIVE_NVCC})
      endif()
      set(ptx ${CMAKE_CURRENT_BINARY_DIR}/${name}.dir/${base}.ptx)
      add_custom_command(OUTPUT ${ptx}
        COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/${name}.dir
        COMMAND ${nvcc} -ptx -arch=${virt} ${P_NVCC_FLAGS} ${src} -o ${ptx}
        DEPENDS ${src} COMMENT "nvcc -ptx ${base}.cu" VERBATIM)
      list(APPEND ptx_files ${ptx})
    else()
      message(FATAL_ERROR "ptx2native_add_code_object(${name}): ${src}: only .ptx and .cu sources")
    endif()
  endforeach()
  list(JOIN P_OFFLOAD_ARCH "," archs)
  add_custom_command(OUTPUT ${out}
    COMMAND ptx2native::compiler ${ptx_files} --offload-arch=${archs} -o ${out}
    DEPENDS ${ptx_files} $<TARGET_FILE:ptx2native::compiler>
    COMMENT "ptx2native: ${name} for ${archs}" VERBATIM)
  add_custom_target(${name} ALL DEPENDS ${out})
  set_target_properties(${name} PROPERTIES P2N_CODE_OBJECT ${out})
endfunction()
