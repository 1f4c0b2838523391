#!/usr/bin/env bash
# check-exports.sh LIBCUDA CUDA_H — the ABI surface of our libcuda.so.1:
#   SONAME libcuda.so.1; only cu* functions exported, unversioned; each one is a name cuda.h (or cudaProfiler.h
#   beside it, for cuProfiler*) declares
#   (the real driver's symbol names: cuMemAlloc_v2, cuMemcpyHtoD_v2_ptds, ...); the names cudart and
#   driver-API programs bind by name are all there. Prints the exported symbol count.
set -u
lib=$1 hdr=$2
prof=$(dirname "$hdr")/cudaProfiler.h
fail=0
soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = "libcuda.so.1" ] || { echo "SONAME is '$soname', expected libcuda.so.1"; fail=1; }
syms=$(nm -D --defined-only "$lib" | awk '{ print $2, $3 }')
others=$(echo "$syms" | awk '$2 !~ /^cu[A-Z]/ { print $2 }')
[ -z "$others" ] || { echo "exported symbols that are not cu*: $others"; fail=1; }
nontext=$(echo "$syms" | awk '$1 != "T" { print $2 }')
[ -z "$nontext" ] || { echo "exported non-function symbols: $nontext"; fail=1; }
if nm -D --defined-only "$lib" | grep -q '@'; then echo "exports carry symbol versions"; fail=1; fi
names=$(echo "$syms" | awk '{ print $2 }')
for s in $names; do
    case $s in
    *_ptds) base=${s%_ptds}; pat="__CUDA_API_PTDS($base)" ;;  # per-thread-stream names are made by macros
    *_ptsz) base=${s%_ptsz}; pat="__CUDA_API_PTSZ($base)" ;;
    *) pat="" ;;
    esac
    if [ -n "$pat" ]; then
        grep -qF "$pat" "$hdr" || grep -qw "$s" "$hdr" || { echo "exported $s is not a name cuda.h declares"; fail=1; }
    else
        grep -qw "$s" "$hdr" "$prof" 2>/dev/null || { echo "exported $s is not a name cuda.h declares"; fail=1; }
    fi
done
for s in cuInit cuDriverGetVersion cuGetProcAddress cuGetProcAddress_v2 cuGetExportTable cuGetErrorName \
         cuGetErrorString cuDeviceGet cuDeviceGetCount cuDeviceGetName cuDeviceGetAttribute cuDeviceTotalMem_v2 \
         cuDeviceGetUuid cuDeviceGetUuid_v2 cuCtxCreate_v2 cuCtxCreate_v4 cuCtxDestroy_v2 cuCtxSynchronize \
         cuCtxSynchronize_v2 cuCtxSetCurrent cuCtxGetCurrent cuCtxPushCurrent_v2 cuCtxPopCurrent_v2 \
         cuCtxGetDevice cuCtxGetDevice_v2 cuDevicePrimaryCtxRetain cuDevicePrimaryCtxRelease \
         cuDevicePrimaryCtxRelease_v2 cuDevicePrimaryCtxReset_v2 cuDevicePrimaryCtxGetState \
         cuDevicePrimaryCtxSetFlags_v2 cuModuleLoad cuModuleLoadData cuModuleLoadDataEx cuModuleLoadFatBinary \
         cuModuleUnload cuModuleGetFunction cuModuleGetGlobal_v2 cuLibraryLoadData cuLibraryGetKernel \
         cuMemAlloc cuMemAlloc_v2 cuMemFree_v2 cuMemGetInfo_v2 cuMemAllocHost_v2 cuMemFreeHost cuMemHostAlloc \
         cuMemcpyHtoD_v2 cuMemcpyDtoH_v2 cuMemcpyDtoD_v2 cuMemcpyHtoDAsync_v2 cuMemcpyDtoHAsync_v2 \
         cuMemcpyDtoDAsync_v2 cuMemcpy cuMemcpyAsync cuMemsetD8_v2 cuMemsetD16_v2 cuMemsetD32_v2 \
         cuMemsetD8Async cuMemsetD16Async cuMemsetD32Async cuStreamCreate cuStreamDestroy_v2 \
         cuStreamSynchronize cuStreamQuery cuEventCreate cuEventRecord cuEventSynchronize cuEventElapsedTime \
         cuEventElapsedTime_v2 cuEventDestroy_v2 cuLaunchKernel cuFuncGetAttribute cuFuncSetAttribute \
         cuPointerGetAttribute; do
    echo "$names" | grep -qx "$s" || { echo "missing export $s"; fail=1; }
done
echo "libcuda.so.1 exports $(echo "$names" | wc -l) cu* functions"
exit $fail
