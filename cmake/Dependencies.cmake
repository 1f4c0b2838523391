# Locates the Debian packages installed by scripts/install-deps.sh. Every dependency is optional at
# configure time only where a component can be honestly left out; the core needs none of them.
find_program(LLVM_CONFIG NAMES llvm-config-22 REQUIRED)
execute_process(COMMAND ${LLVM_CONFIG} --includedir OUTPUT_VARIABLE LLVM_INCLUDE_DIR OUTPUT_STRIP_TRAILING_WHITESPACE)
execute_process(COMMAND ${LLVM_CONFIG} --libdir OUTPUT_VARIABLE LLVM_LIB_DIR OUTPUT_STRIP_TRAILING_WHITESPACE)
execute_process(COMMAND ${LLVM_CONFIG} --bindir OUTPUT_VARIABLE LLVM_BIN_DIR OUTPUT_STRIP_TRAILING_WHITESPACE)
execute_process(COMMAND ${LLVM_CONFIG} --version OUTPUT_VARIABLE LLVM_VERSION OUTPUT_STRIP_TRAILING_WHITESPACE)

find_package(PkgConfig REQUIRED)
pkg_check_modules(LIBELF REQUIRED IMPORTED_TARGET libelf)
pkg_check_modules(LZ4 REQUIRED IMPORTED_TARGET liblz4)
pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)

set(CUDA_ROOT /usr/local/cuda CACHE PATH "CUDA toolkit (tests and cuda.h types only, never a run-time dependency)")
find_program(NVCC nvcc HINTS ${CUDA_ROOT}/bin)
find_program(PTXAS ptxas HINTS ${CUDA_ROOT}/bin)
