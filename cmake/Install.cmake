# Install.cmake — the relocatable install tree (issue 17). Included once, last, from the top-level
# CMakeLists.txt; refers to targets by name only. Layout (GNUInstallDirs, relative to the prefix):
#
#   bin/ptx2native, bin/ptx2native-fatbin, bin/ptx2native-run     the tools and the launcher
#   lib/ptx2native/libcuda.so.1 (+ libcuda.so)                    the driver stub: put this directory on
#                                                                 LD_LIBRARY_PATH (ptx2native-run does)
#   lib/ptx2native/libp2n_compiler.so                             the compiler + LLVM, loaded on demand
#     (-> libp2n_compiler.so.0.1 (the SONAME) -> libp2n_compiler.so.0.1.0, the file)
#   lib/libptx2native.so -> ptx2native/libp2n_compiler.so         the public API, shared (same object)
#   lib/libptx2native.a                                           the public API, static (+ LLVM, see .pc)
#   lib/pkgconfig/ptx2native.pc, lib/cmake/ptx2native/            pkg-config, find_package(ptx2native CONFIG)
#   include/ptx2native/ptx2native.h                               the public API
#   share/man/man1/*.1, share/bash-completion/completions/*       man pages (from the --help text), completion
#
# Nothing installed names a build or source path: the compiler is found relative to libcuda.so.1 or to the
# executable (targets/compiler_loader.c), no installed ELF file has an RPATH (CMake drops the build tree's at
# install; nothing needs one: libcuda.so.1 and the tools link this project's code statically), debug information maps
# the source and build directories away (-ffile-prefix-map, top-level CMakeLists.txt). install.no-build-paths
# checks it.
include(GNUInstallDirs)

set(P2N_INSTALL_PRIVLIBDIR ${CMAKE_INSTALL_LIBDIR}/ptx2native)   # libcuda.so.1 and the compiler
set(P2N_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/ptx2native)
# The path from bin/ to the private library directory, compiled into the loader (relative, so the tree moves).
file(RELATIVE_PATH P2N_BIN_TO_PRIVLIB /${CMAKE_INSTALL_BINDIR} /${P2N_INSTALL_PRIVLIBDIR})
target_compile_definitions(p2n_compiler_loader PRIVATE P2N_COMPILER_REL_DIR="${P2N_BIN_TO_PRIVLIB}")

# Build tree: libcuda.so.1 finds the compiler next to itself, as in the installed tree (a link, not a
# compiled-in build path).
if(TARGET cuda_stub)
  # (a dependency of cuda_stub, as the compiled-in build path used to be: building any program that uses the
  # stub builds the compiler and the link too)
  add_custom_target(p2n_build_tree_compiler_link ALL
    COMMAND ${CMAKE_COMMAND} -E create_symlink $<TARGET_FILE:p2n_compiler>
            $<TARGET_FILE_DIR:cuda_stub>/libp2n_compiler.so
    DEPENDS p2n_compiler
    COMMENT "libp2n_compiler.so next to libcuda.so.1 (build tree)")
  add_dependencies(cuda_stub p2n_build_tree_compiler_link)
endif()

# ---- help text: one source for --help and the man page -----------------------------------------------
find_package(Python3 REQUIRED COMPONENTS Interpreter)
set(P2N_GEN ${CMAKE_BINARY_DIR}/generated)
set(P2N_HELP_TOOLS "ptx2native|${CMAKE_SOURCE_DIR}/targets/cli_help.txt|ptx2native"
                   "ptx2native-fatbin|${CMAKE_SOURCE_DIR}/fatbin/tool/help.txt|ptx2native-fatbin"
                   "ptx2native-run|${CMAKE_SOURCE_DIR}/packaging/ptx2native-run.txt|")
set(_pages)
foreach(_t IN LISTS P2N_HELP_TOOLS)
  string(REPLACE "|" ";" _t "${_t}")
  list(GET _t 0 _name)
  list(GET _t 1 _txt)
  list(GET _t 2 _target)
  string(MAKE_C_IDENTIFIER "${_name}" _id)
  add_custom_command(OUTPUT ${P2N_GEN}/${_id}_help.h ${P2N_GEN}/man/${_name}.1
    COMMAND Python3::Interpreter ${CMAKE_SOURCE_DIR}/packaging/help2man.py ${_txt} ${_name}
            ${PROJECT_VERSION} ${P2N_GEN}/${_id}_help.h ${P2N_GEN}/man/${_name}.1
    DEPENDS ${_txt} ${CMAKE_SOURCE_DIR}/packaging/help2man.py
    COMMENT "help text and man page of ${_name}")
  add_custom_target(${_id}_help DEPENDS ${P2N_GEN}/${_id}_help.h ${P2N_GEN}/man/${_name}.1)
  list(APPEND _pages ${_id}_help)
  if(_target AND TARGET ${_target})
    add_dependencies(${_target} ${_id}_help)
    target_include_directories(${_target} PRIVATE ${P2N_GEN})
    target_compile_definitions(${_target} PRIVATE P2N_HELP_HEADER="${_id}_help.h")
  endif()
  install(FILES ${P2N_GEN}/man/${_name}.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT tools)
endforeach()
add_custom_target(p2n_man_pages ALL DEPENDS ${_pages})

# ---- the launcher -------------------------------------------------------------------------------------
file(READ ${CMAKE_SOURCE_DIR}/packaging/ptx2native-run.txt P2N_RUN_HELP)
string(REGEX REPLACE "@[a-z-]+:[^\n]*\n" "" P2N_RUN_HELP "${P2N_RUN_HELP}")
configure_file(${CMAKE_SOURCE_DIR}/packaging/ptx2native-run.in ${P2N_GEN}/ptx2native-run @ONLY)
install(PROGRAMS ${P2N_GEN}/ptx2native-run DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT tools)

# ---- executables and libraries ------------------------------------------------------------------------
install(TARGETS ptx2native ptx2native-fatbin EXPORT ptx2nativeTargets
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT tools)
set_target_properties(ptx2native PROPERTIES EXPORT_NAME compiler)
set_target_properties(ptx2native-fatbin PROPERTIES EXPORT_NAME fatbin)
install(TARGETS p2n_compiler LIBRARY DESTINATION ${P2N_INSTALL_PRIVLIBDIR} COMPONENT tools)
if(TARGET cuda_stub)
  # NAMELINK: libcuda.so next to libcuda.so.1, for programs linked with -lcuda against this directory.
  install(TARGETS cuda_stub EXPORT ptx2nativeTargets
          LIBRARY DESTINATION ${P2N_INSTALL_PRIVLIBDIR} COMPONENT tools)
  set_target_properties(cuda_stub PROPERTIES EXPORT_NAME runtime)
endif()

# libptx2native, shared: the compiler library itself (exports p2n_* only, LLVM hidden), under the public name.
install(CODE "
  set(_d \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}\")
  file(MAKE_DIRECTORY \"\${_d}\")
  file(CREATE_LINK ptx2native/libp2n_compiler.so \"\${_d}/libptx2native.so\" SYMBOLIC)
  message(STATUS \"Installing: \${_d}/libptx2native.so -> ptx2native/libp2n_compiler.so\")"
  COMPONENT tools)

# libptx2native, static: ptx2native_lib and every static library of this project it links (found by walking
# the link graph, so per-layer libraries split out of it are included), merged into one archive. The LLVM
# target stubs stay separate: they must come after lld's archives (see Libs.private below).
function(p2n_static_closure out)
  set(seen)
  set(todo ${ARGN})
  while(todo)
    list(POP_FRONT todo t)
    if(t MATCHES "^\\$<LINK_ONLY:(.*)>$")
      set(t "${CMAKE_MATCH_1}")
    endif()
    if(NOT TARGET ${t} OR t IN_LIST seen OR t STREQUAL "p2n_llvm_stubs")
      continue()
    endif()
    get_target_property(_type ${t} TYPE)
    get_target_property(_imported ${t} IMPORTED)
    if(_imported OR NOT _type STREQUAL "STATIC_LIBRARY")
      continue()
    endif()
    list(APPEND seen ${t})
    get_target_property(_deps ${t} LINK_LIBRARIES)
    if(_deps)
      list(APPEND todo ${_deps})
    endif()
  endwhile()
  set(${out} ${seen} PARENT_SCOPE)
endfunction()
p2n_static_closure(_merge_libs ptx2native_lib)
set(_mri "CREATE ${CMAKE_BINARY_DIR}/install-staging/libptx2native.a\n")
set(_merge_deps)
foreach(_l IN LISTS _merge_libs)
  string(APPEND _mri "ADDLIB $<TARGET_FILE:${_l}>\n")
  list(APPEND _merge_deps ${_l})
endforeach()
string(APPEND _mri "SAVE\nEND\n")
file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/install-staging/libptx2native.mri CONTENT "${_mri}")
add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/install-staging/libptx2native.a
  COMMAND ${CMAKE_COMMAND} -E rm -f ${CMAKE_BINARY_DIR}/install-staging/libptx2native.a
  COMMAND ${CMAKE_AR} -M < ${CMAKE_BINARY_DIR}/install-staging/libptx2native.mri
  DEPENDS ${_merge_deps} ${CMAKE_BINARY_DIR}/install-staging/libptx2native.mri
  COMMENT "libptx2native.a (merged static library)")
add_custom_target(p2n_static_merged ALL DEPENDS ${CMAKE_BINARY_DIR}/install-staging/libptx2native.a)
install(FILES ${CMAKE_BINARY_DIR}/install-staging/libptx2native.a DESTINATION ${CMAKE_INSTALL_LIBDIR}
        COMPONENT dev)
install(FILES ${CMAKE_SOURCE_DIR}/targets/ptx2native.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ptx2native
        COMPONENT dev)

# ---- pkg-config -------------------------------------------------------------------------------------------
# Libs.private: what the static archive needs (LLVM 22 and lld, static, from Debian's llvm-22-dev; the same
# components as cmake/StaticLLVM.cmake, whose variables are local to targets/llvm/).
set(P2N_PC_LIBS_PRIVATE "")
if(LLVM_CONFIG)
  execute_process(COMMAND ${LLVM_CONFIG} --link-static --libfiles amdgpu spirv x86 passes linker bitreader bitwriter
                          irreader lto option dtlto
                  OUTPUT_VARIABLE _llvm_libs OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  separate_arguments(_llvm_libs UNIX_COMMAND "${_llvm_libs}")
  list(FILTER _llvm_libs EXCLUDE REGEX "/libPolly(ISL)?\\.a$")
  # as -L/-l (pkg-config drops bare archive paths); Debian ships these archives without .so twins
  set(P2N_PC_LIBS_PRIVATE " -L${LLVM_LIB_DIR}")
  foreach(_l ${LLVM_LIB_DIR}/liblldELF.a ${LLVM_LIB_DIR}/liblldCommon.a ${_llvm_libs})
    get_filename_component(_n "${_l}" NAME_WE)
    string(REGEX REPLACE "^lib" "" _n "${_n}")
    string(APPEND P2N_PC_LIBS_PRIVATE " -l${_n}")
  endforeach()
endif()
# the empty initialisers of the LLVM targets we do not link (cmake/StaticLLVM.cmake): after lld's archives
if(TARGET p2n_llvm_stubs)
  install(FILES $<TARGET_FILE:p2n_llvm_stubs> DESTINATION ${CMAKE_INSTALL_LIBDIR}
          RENAME libptx2native_llvm_stubs.a COMPONENT dev)
  string(APPEND P2N_PC_LIBS_PRIVATE " -L\${libdir} -lptx2native_llvm_stubs")
endif()
if(SPIRV_TOOLS_LIB)
  string(APPEND P2N_PC_LIBS_PRIVATE " -lSPIRV-Tools")
endif()
string(APPEND P2N_PC_LIBS_PRIVATE " -lzstd -lz -lstdc++ -lpthread -ldl -lrt -lm")
file(RELATIVE_PATH P2N_PC_TO_PREFIX /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
string(REGEX REPLACE "/$" "" P2N_PC_TO_PREFIX "${P2N_PC_TO_PREFIX}")
configure_file(${CMAKE_SOURCE_DIR}/packaging/ptx2native.pc.in ${P2N_GEN}/ptx2native.pc @ONLY)
install(FILES ${P2N_GEN}/ptx2native.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT dev)

# ---- bash completion --------------------------------------------------------------------------------------
install(FILES ${CMAKE_SOURCE_DIR}/packaging/bash-completion/ptx2native
              ${CMAKE_SOURCE_DIR}/packaging/bash-completion/ptx2native-fatbin
              ${CMAKE_SOURCE_DIR}/packaging/bash-completion/ptx2native-run
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions COMPONENT tools)

# ---- CMake package: find_package(ptx2native CONFIG) -------------------------------------------------------
include(CMakePackageConfigHelpers)
file(RELATIVE_PATH P2N_CMAKEDIR_TO_BINDIR /${P2N_INSTALL_CMAKEDIR} /${CMAKE_INSTALL_BINDIR})
install(EXPORT ptx2nativeTargets NAMESPACE ptx2native:: DESTINATION ${P2N_INSTALL_CMAKEDIR} COMPONENT dev)
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/ptx2nativeConfig.cmake.in
  ${CMAKE_BINARY_DIR}/install-staging/ptx2nativeConfig.cmake INSTALL_DESTINATION ${P2N_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_LIBDIR P2N_INSTALL_PRIVLIBDIR)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/install-staging/ptx2nativeConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/install-staging/ptx2nativeConfig.cmake
              ${CMAKE_BINARY_DIR}/install-staging/ptx2nativeConfigVersion.cmake
              ${CMAKE_SOURCE_DIR}/cmake/ptx2native-functions.cmake
        DESTINATION ${P2N_INSTALL_CMAKEDIR} COMPONENT dev)

# ---- tests of the installed tree --------------------------------------------------------------------------
add_test(NAME install.no-build-paths
  COMMAND bash ${CMAKE_SOURCE_DIR}/tests/install/no-build-paths.sh ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR})
set(_app)
if(TARGET test_driver_native)
  set(_app $<TARGET_FILE:test_driver_native>)   # an nvcc-built program: the installed compiler loads into both
endif()
add_test(NAME install.layout
  COMMAND bash ${CMAKE_SOURCE_DIR}/tests/install/layout.sh ${CMAKE_BINARY_DIR} ${_app})
if(NVCC AND TARGET cuda_stub)
  add_test(NAME install.example
    COMMAND bash ${CMAKE_SOURCE_DIR}/tests/install/example.sh ${CMAKE_BINARY_DIR}
            ${CMAKE_SOURCE_DIR}/examples/cmake-precompile ${NVCC} ${CMAKE_COMMAND})
  set_tests_properties(install.example PROPERTIES TIMEOUT 900 LABELS needs-host-target)
endif()
set_tests_properties(install.no-build-paths install.layout PROPERTIES TIMEOUT 600)
if(P2N_SANITIZE)
  # The installed libraries are instrumented: nvcc's programs (not instrumented) need the sanitizer runtime
  # loaded first, as driver.cudart.* do, and C programs linked against libptx2native need it on their link line.
  execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libasan.so OUTPUT_VARIABLE _libasan
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  # GCC 12's sanitizer source locations ignore -ffile-prefix-map: the source path stays in instrumented binaries
  set_property(TEST install.no-build-paths APPEND PROPERTY ENVIRONMENT "P2N_TEST_ALLOW_SOURCE_PATHS=1")
  set_property(TEST install.layout APPEND PROPERTY ENVIRONMENT
               "P2N_TEST_CFLAGS=-fsanitize=address,undefined" "ASAN_OPTIONS=detect_leaks=0")
  if(TEST install.example)
    set_property(TEST install.example APPEND PROPERTY ENVIRONMENT
                 "P2N_TEST_APP_PRELOAD=${_libasan}" "ASAN_OPTIONS=detect_leaks=0")
  endif()
endif()
