/* procaddr.c — cuGetProcAddress / cuGetProcAddress_v2: (name, CUDA version, flags) → entry point.
 *
 * cudart binds nothing but cuGetProcAddress_v2 by name (docs: /work/shared/docs/cudart-driver.md) and asks
 * for every other function with the CUDA version that introduced the ABI it was built against. Each row
 * below is one ABI of one API name: {name, first CUDA version of that ABI, symbol, per-thread-default-stream
 * symbol}. A lookup takes the newest row whose version <= the requested one; flag
 * CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM picks the _ptds/_ptsz symbol where there is one. Unknown
 * name → CUDA_SUCCESS, *pfn = NULL, status SYMBOL_NOT_FOUND; known name, version too old → CUDA_SUCCESS,
 * *pfn = NULL, status VERSION_NOT_SUFFICIENT (what NVIDIA's driver answers). Only implemented functions are
 * listed here. A cuda.h function that is not implemented is refused by name: the lookup hands out its stub
 * from refused_table.c (status SUCCESS, at any version), which returns the documented error and says on stderr
 * which function was called and why it is refused (refused.h; the reasons are driver-stub/api-status.txt).
 * docs/driver-api.md, generated from this table and api-status.txt, lists every cuda.h function's status.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "refused.h"

typedef struct proc_entry {
    const char *name;
    int version;
    void *fn;
    void *fn_ptds;
} proc_entry;

#define E(name, ver, fn) {name, ver, (void *)(fn), NULL}
#define P(name, ver, fn, ptds) {name, ver, (void *)(fn), (void *)(ptds)}

static const proc_entry table[] = {
    /* initialisation, version, errors */
    E("cuInit", 2000, cuInit),
    E("cuDriverGetVersion", 2020, cuDriverGetVersion),
    E("cuGetErrorName", 6000, cuGetErrorName),
    E("cuGetErrorString", 6000, cuGetErrorString),
    E("cuGetProcAddress", 11030, cuGetProcAddress),
    E("cuGetProcAddress", 12000, cuGetProcAddress_v2),
    E("cuGetExportTable", 3000, cuGetExportTable),
    /* devices */
    E("cuDeviceGet", 2000, cuDeviceGet),
    E("cuDeviceGetCount", 2000, cuDeviceGetCount),
    E("cuDeviceGetName", 2000, cuDeviceGetName),
    E("cuDeviceTotalMem", 2000, cuDeviceTotalMem),
    E("cuDeviceTotalMem", 3020, cuDeviceTotalMem_v2),
    E("cuDeviceGetAttribute", 2000, cuDeviceGetAttribute),
    E("cuDeviceComputeCapability", 2000, cuDeviceComputeCapability),
    E("cuDeviceGetProperties", 2000, cuDeviceGetProperties),
    E("cuDeviceGetUuid", 9020, cuDeviceGetUuid),
    E("cuDeviceGetUuid", 11040, cuDeviceGetUuid_v2),
    E("cuDeviceGetPCIBusId", 4010, cuDeviceGetPCIBusId),
    E("cuDeviceGetByPCIBusId", 4010, cuDeviceGetByPCIBusId),
    E("cuDeviceCanAccessPeer", 4000, cuDeviceCanAccessPeer),
    /* primary contexts */
    E("cuDevicePrimaryCtxRetain", 7000, cuDevicePrimaryCtxRetain),
    E("cuDevicePrimaryCtxRelease", 7000, cuDevicePrimaryCtxRelease),
    E("cuDevicePrimaryCtxRelease", 11000, cuDevicePrimaryCtxRelease_v2),
    E("cuDevicePrimaryCtxReset", 7000, cuDevicePrimaryCtxReset),
    E("cuDevicePrimaryCtxReset", 11000, cuDevicePrimaryCtxReset_v2),
    E("cuDevicePrimaryCtxSetFlags", 7000, cuDevicePrimaryCtxSetFlags),
    E("cuDevicePrimaryCtxSetFlags", 11000, cuDevicePrimaryCtxSetFlags_v2),
    E("cuDevicePrimaryCtxGetState", 7000, cuDevicePrimaryCtxGetState),
    /* contexts */
    E("cuCtxCreate", 2000, cuCtxCreate),
    E("cuCtxCreate", 3020, cuCtxCreate_v2),
    E("cuCtxCreate", 11040, cuCtxCreate_v3),
    E("cuCtxCreate", 12050, cuCtxCreate_v4),
    E("cuCtxDestroy", 2000, cuCtxDestroy),
    E("cuCtxDestroy", 4000, cuCtxDestroy_v2),
    E("cuCtxPushCurrent", 2000, cuCtxPushCurrent),
    E("cuCtxPushCurrent", 4000, cuCtxPushCurrent_v2),
    E("cuCtxPopCurrent", 2000, cuCtxPopCurrent),
    E("cuCtxPopCurrent", 4000, cuCtxPopCurrent_v2),
    E("cuCtxSetCurrent", 4000, cuCtxSetCurrent),
    E("cuCtxGetCurrent", 4000, cuCtxGetCurrent),
    E("cuCtxGetDevice", 2000, cuCtxGetDevice),
    E("cuCtxGetDevice", 13000, cuCtxGetDevice_v2),
    E("cuCtxSynchronize", 2000, cuCtxSynchronize),
    E("cuCtxSynchronize", 13000, cuCtxSynchronize_v2),
    E("cuCtxGetFlags", 7000, cuCtxGetFlags),
    E("cuCtxSetFlags", 12010, cuCtxSetFlags),
    E("cuCtxGetApiVersion", 3020, cuCtxGetApiVersion),
    E("cuCtxGetLimit", 3010, cuCtxGetLimit),
    E("cuCtxSetLimit", 3010, cuCtxSetLimit),
    E("cuCtxGetCacheConfig", 3020, cuCtxGetCacheConfig),
    E("cuCtxSetCacheConfig", 3020, cuCtxSetCacheConfig),
    E("cuCtxGetStreamPriorityRange", 5050, cuCtxGetStreamPriorityRange),
    E("cuCtxResetPersistingL2Cache", 11000, cuCtxResetPersistingL2Cache),
    E("cuCtxGetSharedMemConfig", 4020, cuCtxGetSharedMemConfig),
    E("cuCtxSetSharedMemConfig", 4020, cuCtxSetSharedMemConfig),
    /* modules and libraries */
    E("cuModuleLoad", 2000, cuModuleLoad),
    E("cuModuleLoadData", 2000, cuModuleLoadData),
    E("cuModuleLoadDataEx", 2010, cuModuleLoadDataEx),
    E("cuModuleLoadFatBinary", 2000, cuModuleLoadFatBinary),
    E("cuModuleUnload", 2000, cuModuleUnload),
    E("cuModuleGetFunction", 2000, cuModuleGetFunction),
    E("cuModuleGetGlobal", 2000, cuModuleGetGlobal),
    E("cuModuleGetGlobal", 3020, cuModuleGetGlobal_v2),
    E("cuLinkCreate", 5050, cuLinkCreate),
    E("cuLinkCreate", 6050, cuLinkCreate_v2),
    E("cuLinkAddData", 5050, cuLinkAddData),
    E("cuLinkAddData", 6050, cuLinkAddData_v2),
    E("cuLinkAddFile", 5050, cuLinkAddFile),
    E("cuLinkAddFile", 6050, cuLinkAddFile_v2),
    E("cuLinkComplete", 5050, cuLinkComplete),
    E("cuLinkDestroy", 5050, cuLinkDestroy),
    E("cuModuleGetLoadingMode", 11070, cuModuleGetLoadingMode),
    E("cuLibraryLoadData", 12000, cuLibraryLoadData),
    E("cuLibraryLoadFromFile", 12000, cuLibraryLoadFromFile),
    E("cuLibraryUnload", 12000, cuLibraryUnload),
    E("cuLibraryGetKernel", 12000, cuLibraryGetKernel),
    E("cuLibraryGetModule", 12000, cuLibraryGetModule),
    E("cuLibraryGetGlobal", 12000, cuLibraryGetGlobal),
    E("cuLibraryGetManaged", 12000, cuLibraryGetManaged),
    E("cuKernelGetFunction", 12000, cuKernelGetFunction),
    E("cuKernelGetAttribute", 12000, cuKernelGetAttribute),
    E("cuKernelSetAttribute", 12000, cuKernelSetAttribute),
    E("cuKernelGetName", 12030, cuKernelGetName),
    E("cuKernelSetCacheConfig", 12000, cuKernelSetCacheConfig),
    E("cuKernelGetParamInfo", 12040, cuKernelGetParamInfo),
    E("cuKernelGetLibrary", 12050, cuKernelGetLibrary),
    /* functions and launches */
    E("cuFuncGetAttribute", 2020, cuFuncGetAttribute),
    E("cuFuncSetAttribute", 9000, cuFuncSetAttribute),
    E("cuFuncSetCacheConfig", 3000, cuFuncSetCacheConfig),
    E("cuFuncSetSharedMemConfig", 4020, cuFuncSetSharedMemConfig),
    E("cuFuncGetName", 12030, cuFuncGetName),
    E("cuFuncGetModule", 11000, cuFuncGetModule),
    E("cuFuncGetParamInfo", 12040, cuFuncGetParamInfo),
    E("cuFuncIsLoaded", 12040, cuFuncIsLoaded),
    E("cuFuncLoad", 12040, cuFuncLoad),
    P("cuLaunchKernel", 4000, cuLaunchKernel, cuLaunchKernel_ptsz),
    P("cuLaunchKernelEx", 11060, cuLaunchKernelEx, cuLaunchKernelEx_ptsz),
    P("cuLaunchCooperativeKernel", 9000, cuLaunchCooperativeKernel, cuLaunchCooperativeKernel_ptsz),
    P("cuLaunchHostFunc", 10000, cuLaunchHostFunc, cuLaunchHostFunc_ptsz),
    E("cuOccupancyMaxActiveBlocksPerMultiprocessor", 6050, cuOccupancyMaxActiveBlocksPerMultiprocessor),
    E("cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags", 7000,
      cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags),
    E("cuOccupancyMaxPotentialBlockSize", 6050, cuOccupancyMaxPotentialBlockSize),
    E("cuOccupancyMaxPotentialBlockSizeWithFlags", 7000, cuOccupancyMaxPotentialBlockSizeWithFlags),
    E("cuOccupancyAvailableDynamicSMemPerBlock", 10020, cuOccupancyAvailableDynamicSMemPerBlock),
    /* profiler control (profiler.c) */
    E("cuProfilerInitialize", 4000, cuProfilerInitialize),
    E("cuProfilerStart", 4000, cuProfilerStart),
    E("cuProfilerStop", 4000, cuProfilerStop),
    /* memory */
    E("cuMemAlloc", 2000, cuMemAlloc),
    E("cuMemAlloc", 3020, cuMemAlloc_v2),
    E("cuMemFree", 2000, cuMemFree),
    E("cuMemFree", 3020, cuMemFree_v2),
    E("cuMemGetInfo", 2000, cuMemGetInfo),
    E("cuMemGetInfo", 3020, cuMemGetInfo_v2),
    E("cuMemAllocHost", 2000, cuMemAllocHost),
    E("cuMemAllocHost", 3020, cuMemAllocHost_v2),
    E("cuMemFreeHost", 2000, cuMemFreeHost),
    E("cuMemHostAlloc", 2020, cuMemHostAlloc),
    E("cuMemAllocPitch", 3020, cuMemAllocPitch_v2),
    E("cuMemHostRegister", 4000, cuMemHostRegister),
    E("cuMemHostRegister", 6050, cuMemHostRegister_v2),
    E("cuMemHostUnregister", 4000, cuMemHostUnregister),
    E("cuMemHostGetDevicePointer", 3020, cuMemHostGetDevicePointer_v2),
    E("cuMemHostGetFlags", 2030, cuMemHostGetFlags),
    E("cuMemGetAddressRange", 3020, cuMemGetAddressRange_v2),
    E("cuPointerGetAttribute", 4000, cuPointerGetAttribute),
    E("cuPointerGetAttributes", 7000, cuPointerGetAttributes),
    /* inter-process memory and events (ipc.c) */
    E("cuIpcGetMemHandle", 4010, cuIpcGetMemHandle),
    E("cuIpcOpenMemHandle", 4010, cuIpcOpenMemHandle),
    E("cuIpcOpenMemHandle", 11000, cuIpcOpenMemHandle_v2),
    E("cuIpcCloseMemHandle", 4010, cuIpcCloseMemHandle),
    E("cuIpcGetEventHandle", 4010, cuIpcGetEventHandle),
    E("cuIpcOpenEventHandle", 4010, cuIpcOpenEventHandle),
    E("cuMemPoolExportToShareableHandle", 11020, cuMemPoolExportToShareableHandle),
    E("cuMemPoolImportFromShareableHandle", 11020, cuMemPoolImportFromShareableHandle),
    E("cuMemPoolExportPointer", 11020, cuMemPoolExportPointer),
    E("cuMemPoolImportPointer", 11020, cuMemPoolImportPointer),
    /* managed memory (managed.c) */
    E("cuMemAllocManaged", 6000, cuMemAllocManaged),
    P("cuStreamAttachMemAsync", 6000, cuStreamAttachMemAsync, cuStreamAttachMemAsync_ptsz),
    P("cuMemPrefetchAsync", 8000, cuMemPrefetchAsync, cuMemPrefetchAsync_ptsz),
    P("cuMemPrefetchAsync", 12020, cuMemPrefetchAsync_v2, cuMemPrefetchAsync_v2_ptsz),
    P("cuMemPrefetchBatchAsync", 12080, cuMemPrefetchBatchAsync, cuMemPrefetchBatchAsync_ptsz),
    P("cuMemDiscardBatchAsync", 12080, cuMemDiscardBatchAsync, cuMemDiscardBatchAsync_ptsz),
    P("cuMemDiscardAndPrefetchBatchAsync", 12080, cuMemDiscardAndPrefetchBatchAsync,
      cuMemDiscardAndPrefetchBatchAsync_ptsz),
    E("cuMemAdvise", 8000, cuMemAdvise),
    E("cuMemAdvise", 12020, cuMemAdvise_v2),
    E("cuMemRangeGetAttribute", 8000, cuMemRangeGetAttribute),
    E("cuMemRangeGetAttributes", 8000, cuMemRangeGetAttributes),
    /* memory pools, stream-ordered allocation (mempool.c) */
    P("cuMemAllocAsync", 11020, cuMemAllocAsync, cuMemAllocAsync_ptsz),
    P("cuMemAllocFromPoolAsync", 11020, cuMemAllocFromPoolAsync, cuMemAllocFromPoolAsync_ptsz),
    P("cuMemFreeAsync", 11020, cuMemFreeAsync, cuMemFreeAsync_ptsz),
    E("cuMemPoolCreate", 11020, cuMemPoolCreate),
    E("cuMemPoolDestroy", 11020, cuMemPoolDestroy),
    E("cuMemPoolTrimTo", 11020, cuMemPoolTrimTo),
    E("cuMemPoolSetAttribute", 11020, cuMemPoolSetAttribute),
    E("cuMemPoolGetAttribute", 11020, cuMemPoolGetAttribute),
    E("cuMemPoolSetAccess", 11020, cuMemPoolSetAccess),
    E("cuMemPoolGetAccess", 11020, cuMemPoolGetAccess),
    E("cuDeviceGetDefaultMemPool", 11020, cuDeviceGetDefaultMemPool),
    E("cuDeviceGetMemPool", 11020, cuDeviceGetMemPool),
    E("cuDeviceSetMemPool", 11020, cuDeviceSetMemPool),
    E("cuMemGetDefaultMemPool", 13000, cuMemGetDefaultMemPool),
    E("cuMemGetMemPool", 13000, cuMemGetMemPool),
    E("cuMemSetMemPool", 13000, cuMemSetMemPool),
    /* virtual memory management (vmm.c) */
    E("cuMemAddressReserve", 10020, cuMemAddressReserve),
    E("cuMemAddressFree", 10020, cuMemAddressFree),
    E("cuMemCreate", 10020, cuMemCreate),
    E("cuMemRelease", 10020, cuMemRelease),
    E("cuMemMap", 10020, cuMemMap),
    E("cuMemUnmap", 10020, cuMemUnmap),
    E("cuMemSetAccess", 10020, cuMemSetAccess),
    E("cuMemGetAccess", 10020, cuMemGetAccess),
    E("cuMemGetAllocationGranularity", 10020, cuMemGetAllocationGranularity),
    E("cuMemGetAllocationPropertiesFromHandle", 10020, cuMemGetAllocationPropertiesFromHandle),
    E("cuMemRetainAllocationHandle", 11000, cuMemRetainAllocationHandle),
    E("cuMemExportToShareableHandle", 10020, cuMemExportToShareableHandle),
    E("cuMemImportFromShareableHandle", 10020, cuMemImportFromShareableHandle),
    E("cuMemcpyHtoD", 2000, cuMemcpyHtoD),
    P("cuMemcpyHtoD", 3020, cuMemcpyHtoD_v2, cuMemcpyHtoD_v2_ptds),
    E("cuMemcpyDtoH", 2000, cuMemcpyDtoH),
    P("cuMemcpyDtoH", 3020, cuMemcpyDtoH_v2, cuMemcpyDtoH_v2_ptds),
    E("cuMemcpyDtoD", 2000, cuMemcpyDtoD),
    P("cuMemcpyDtoD", 3020, cuMemcpyDtoD_v2, cuMemcpyDtoD_v2_ptds),
    E("cuMemcpyHtoDAsync", 2000, cuMemcpyHtoDAsync),
    P("cuMemcpyHtoDAsync", 3020, cuMemcpyHtoDAsync_v2, cuMemcpyHtoDAsync_v2_ptsz),
    E("cuMemcpyDtoHAsync", 2000, cuMemcpyDtoHAsync),
    P("cuMemcpyDtoHAsync", 3020, cuMemcpyDtoHAsync_v2, cuMemcpyDtoHAsync_v2_ptsz),
    E("cuMemcpyDtoDAsync", 3000, cuMemcpyDtoDAsync),
    P("cuMemcpyDtoDAsync", 3020, cuMemcpyDtoDAsync_v2, cuMemcpyDtoDAsync_v2_ptsz),
    P("cuMemcpy", 4000, cuMemcpy, cuMemcpy_ptds),
    P("cuMemcpyAsync", 4000, cuMemcpyAsync, cuMemcpyAsync_ptsz),
    E("cuMemsetD8", 2000, cuMemsetD8),
    P("cuMemsetD8", 3020, cuMemsetD8_v2, cuMemsetD8_v2_ptds),
    E("cuMemsetD16", 2000, cuMemsetD16),
    P("cuMemsetD16", 3020, cuMemsetD16_v2, cuMemsetD16_v2_ptds),
    E("cuMemsetD32", 2000, cuMemsetD32),
    P("cuMemsetD32", 3020, cuMemsetD32_v2, cuMemsetD32_v2_ptds),
    P("cuMemsetD8Async", 3020, cuMemsetD8Async, cuMemsetD8Async_ptsz),
    P("cuMemsetD16Async", 3020, cuMemsetD16Async, cuMemsetD16Async_ptsz),
    P("cuMemsetD32Async", 3020, cuMemsetD32Async, cuMemsetD32Async_ptsz),
    E("cuMemsetD2D8", 3020, cuMemsetD2D8_v2),
    P("cuMemsetD2D8", 7000, cuMemsetD2D8_v2, cuMemsetD2D8_v2_ptds),
    E("cuMemsetD2D16", 3020, cuMemsetD2D16_v2),
    P("cuMemsetD2D16", 7000, cuMemsetD2D16_v2, cuMemsetD2D16_v2_ptds),
    E("cuMemsetD2D32", 3020, cuMemsetD2D32_v2),
    P("cuMemsetD2D32", 7000, cuMemsetD2D32_v2, cuMemsetD2D32_v2_ptds),
    P("cuMemsetD2D8Async", 3020, cuMemsetD2D8Async, cuMemsetD2D8Async_ptsz),
    P("cuMemsetD2D16Async", 3020, cuMemsetD2D16Async, cuMemsetD2D16Async_ptsz),
    P("cuMemsetD2D32Async", 3020, cuMemsetD2D32Async, cuMemsetD2D32Async_ptsz),
    P("cuMemcpyPeer", 4000, cuMemcpyPeer, cuMemcpyPeer_ptds),
    P("cuMemcpyPeerAsync", 4000, cuMemcpyPeerAsync, cuMemcpyPeerAsync_ptsz),
    /* CUDA arrays, shaped copies, texture and surface objects (array.c, memcpy3d.c, texobj.c) */
    E("cuArrayCreate", 3020, cuArrayCreate_v2),
    E("cuArrayGetDescriptor", 3020, cuArrayGetDescriptor_v2),
    E("cuArray3DCreate", 3020, cuArray3DCreate_v2),
    E("cuArray3DGetDescriptor", 3020, cuArray3DGetDescriptor_v2),
    E("cuArrayDestroy", 2000, cuArrayDestroy),
    E("cuMipmappedArrayCreate", 5000, cuMipmappedArrayCreate),
    E("cuMipmappedArrayGetLevel", 5000, cuMipmappedArrayGetLevel),
    E("cuMipmappedArrayDestroy", 5000, cuMipmappedArrayDestroy),
    E("cuMemcpy2D", 3020, cuMemcpy2D_v2),
    P("cuMemcpy2D", 7000, cuMemcpy2D_v2, cuMemcpy2D_v2_ptds),
    E("cuMemcpy2DUnaligned", 3020, cuMemcpy2DUnaligned_v2),
    P("cuMemcpy2DUnaligned", 7000, cuMemcpy2DUnaligned_v2, cuMemcpy2DUnaligned_v2_ptds),
    E("cuMemcpy2DAsync", 3020, cuMemcpy2DAsync_v2),
    P("cuMemcpy2DAsync", 7000, cuMemcpy2DAsync_v2, cuMemcpy2DAsync_v2_ptsz),
    E("cuMemcpy3D", 3020, cuMemcpy3D_v2),
    P("cuMemcpy3D", 7000, cuMemcpy3D_v2, cuMemcpy3D_v2_ptds),
    E("cuMemcpy3DAsync", 3020, cuMemcpy3DAsync_v2),
    P("cuMemcpy3DAsync", 7000, cuMemcpy3DAsync_v2, cuMemcpy3DAsync_v2_ptsz),
    P("cuMemcpy3DPeer", 4000, cuMemcpy3DPeer, cuMemcpy3DPeer_ptds),
    P("cuMemcpy3DPeerAsync", 4000, cuMemcpy3DPeerAsync, cuMemcpy3DPeerAsync_ptsz),
    E("cuMemcpyHtoA", 3020, cuMemcpyHtoA_v2),
    P("cuMemcpyHtoA", 7000, cuMemcpyHtoA_v2, cuMemcpyHtoA_v2_ptds),
    E("cuMemcpyAtoH", 3020, cuMemcpyAtoH_v2),
    P("cuMemcpyAtoH", 7000, cuMemcpyAtoH_v2, cuMemcpyAtoH_v2_ptds),
    E("cuMemcpyAtoD", 3020, cuMemcpyAtoD_v2),
    P("cuMemcpyAtoD", 7000, cuMemcpyAtoD_v2, cuMemcpyAtoD_v2_ptds),
    E("cuMemcpyDtoA", 3020, cuMemcpyDtoA_v2),
    P("cuMemcpyDtoA", 7000, cuMemcpyDtoA_v2, cuMemcpyDtoA_v2_ptds),
    E("cuMemcpyAtoA", 3020, cuMemcpyAtoA_v2),
    P("cuMemcpyAtoA", 7000, cuMemcpyAtoA_v2, cuMemcpyAtoA_v2_ptds),
    E("cuMemcpyHtoAAsync", 3020, cuMemcpyHtoAAsync_v2),
    P("cuMemcpyHtoAAsync", 7000, cuMemcpyHtoAAsync_v2, cuMemcpyHtoAAsync_v2_ptsz),
    E("cuMemcpyAtoHAsync", 3020, cuMemcpyAtoHAsync_v2),
    P("cuMemcpyAtoHAsync", 7000, cuMemcpyAtoHAsync_v2, cuMemcpyAtoHAsync_v2_ptsz),
    E("cuTexObjectCreate", 5000, cuTexObjectCreate),
    E("cuTexObjectDestroy", 5000, cuTexObjectDestroy),
    E("cuTexObjectGetResourceDesc", 5000, cuTexObjectGetResourceDesc),
    E("cuTexObjectGetTextureDesc", 5000, cuTexObjectGetTextureDesc),
    E("cuTexObjectGetResourceViewDesc", 5000, cuTexObjectGetResourceViewDesc),
    E("cuSurfObjectCreate", 5000, cuSurfObjectCreate),
    E("cuSurfObjectDestroy", 5000, cuSurfObjectDestroy),
    E("cuSurfObjectGetResourceDesc", 5000, cuSurfObjectGetResourceDesc),
    /* texture and surface references (texref.c) */
    E("cuModuleGetTexRef", 2000, cuModuleGetTexRef),
    E("cuModuleGetSurfRef", 3000, cuModuleGetSurfRef),
    E("cuTexRefSetArray", 2000, cuTexRefSetArray),
    E("cuTexRefSetMipmappedArray", 5000, cuTexRefSetMipmappedArray),
    E("cuTexRefSetAddress", 2000, cuTexRefSetAddress),
    E("cuTexRefSetAddress", 3020, cuTexRefSetAddress_v2),
    E("cuTexRefSetAddress2D", 2020, cuTexRefSetAddress2D),
    E("cuTexRefSetAddress2D", 3020, cuTexRefSetAddress2D_v2),
    E("cuTexRefSetAddress2D", 4010, cuTexRefSetAddress2D_v3),
    E("cuTexRefSetFormat", 2000, cuTexRefSetFormat),
    E("cuTexRefSetAddressMode", 2000, cuTexRefSetAddressMode),
    E("cuTexRefSetFilterMode", 2000, cuTexRefSetFilterMode),
    E("cuTexRefSetMipmapFilterMode", 5000, cuTexRefSetMipmapFilterMode),
    E("cuTexRefSetMipmapLevelBias", 5000, cuTexRefSetMipmapLevelBias),
    E("cuTexRefSetMipmapLevelClamp", 5000, cuTexRefSetMipmapLevelClamp),
    E("cuTexRefSetMaxAnisotropy", 5000, cuTexRefSetMaxAnisotropy),
    E("cuTexRefSetBorderColor", 8000, cuTexRefSetBorderColor),
    E("cuTexRefSetFlags", 2000, cuTexRefSetFlags),
    E("cuTexRefGetAddress", 2000, cuTexRefGetAddress),
    E("cuTexRefGetAddress", 3020, cuTexRefGetAddress_v2),
    E("cuTexRefGetArray", 2000, cuTexRefGetArray),
    E("cuTexRefGetMipmappedArray", 5000, cuTexRefGetMipmappedArray),
    E("cuTexRefGetAddressMode", 2000, cuTexRefGetAddressMode),
    E("cuTexRefGetFilterMode", 2000, cuTexRefGetFilterMode),
    E("cuTexRefGetFormat", 2000, cuTexRefGetFormat),
    E("cuTexRefGetMipmapFilterMode", 5000, cuTexRefGetMipmapFilterMode),
    E("cuTexRefGetMipmapLevelBias", 5000, cuTexRefGetMipmapLevelBias),
    E("cuTexRefGetMipmapLevelClamp", 5000, cuTexRefGetMipmapLevelClamp),
    E("cuTexRefGetMaxAnisotropy", 5000, cuTexRefGetMaxAnisotropy),
    E("cuTexRefGetBorderColor", 8000, cuTexRefGetBorderColor),
    E("cuTexRefGetFlags", 2000, cuTexRefGetFlags),
    E("cuSurfRefSetArray", 3000, cuSurfRefSetArray),
    E("cuSurfRefGetArray", 3000, cuSurfRefGetArray),
    /* streams and events */
    E("cuStreamCreate", 2000, cuStreamCreate),
    E("cuStreamCreateWithPriority", 5050, cuStreamCreateWithPriority),
    E("cuStreamDestroy", 2000, cuStreamDestroy),
    E("cuStreamDestroy", 4000, cuStreamDestroy_v2),
    P("cuStreamSynchronize", 2000, cuStreamSynchronize, cuStreamSynchronize_ptsz),
    P("cuStreamQuery", 2000, cuStreamQuery, cuStreamQuery_ptsz),
    P("cuStreamWaitEvent", 3020, cuStreamWaitEvent, cuStreamWaitEvent_ptsz),
    P("cuStreamGetFlags", 5050, cuStreamGetFlags, cuStreamGetFlags_ptsz),
    P("cuStreamGetPriority", 5050, cuStreamGetPriority, cuStreamGetPriority_ptsz),
    P("cuStreamGetCtx", 9020, cuStreamGetCtx, cuStreamGetCtx_ptsz),
    P("cuStreamGetCtx", 12050, cuStreamGetCtx_v2, cuStreamGetCtx_v2_ptsz),
    P("cuStreamGetDevice", 12080, cuStreamGetDevice, cuStreamGetDevice_ptsz),
    P("cuStreamIsCapturing", 10000, cuStreamIsCapturing, cuStreamIsCapturing_ptsz),
    P("cuStreamGetCaptureInfo", 10010, cuStreamGetCaptureInfo, cuStreamGetCaptureInfo_ptsz),
    P("cuStreamGetCaptureInfo", 11030, cuStreamGetCaptureInfo_v2, cuStreamGetCaptureInfo_v2_ptsz),
    P("cuStreamGetCaptureInfo", 12030, cuStreamGetCaptureInfo_v3, cuStreamGetCaptureInfo_v3_ptsz),
    E("cuThreadExchangeStreamCaptureMode", 10010, cuThreadExchangeStreamCaptureMode),
    /* stream capture (graph_capture.c) */
    P("cuStreamBeginCapture", 10000, cuStreamBeginCapture, cuStreamBeginCapture_ptsz),
    P("cuStreamBeginCapture", 10010, cuStreamBeginCapture_v2, cuStreamBeginCapture_v2_ptsz),
    P("cuStreamBeginCaptureToGraph", 12030, cuStreamBeginCaptureToGraph, cuStreamBeginCaptureToGraph_ptsz),
    P("cuStreamEndCapture", 10000, cuStreamEndCapture, cuStreamEndCapture_ptsz),
    P("cuStreamUpdateCaptureDependencies", 11030, cuStreamUpdateCaptureDependencies,
      cuStreamUpdateCaptureDependencies_ptsz),
    P("cuStreamUpdateCaptureDependencies", 12030, cuStreamUpdateCaptureDependencies_v2,
      cuStreamUpdateCaptureDependencies_v2_ptsz),
    /* graphs (graph_build.c) */
    E("cuGraphCreate", 10000, cuGraphCreate),
    E("cuGraphDestroy", 10000, cuGraphDestroy),
    E("cuGraphClone", 10000, cuGraphClone),
    E("cuGraphNodeFindInClone", 10000, cuGraphNodeFindInClone),
    E("cuGraphAddKernelNode", 10000, cuGraphAddKernelNode),
    E("cuGraphAddKernelNode", 12000, cuGraphAddKernelNode_v2),
    E("cuGraphKernelNodeGetParams", 10000, cuGraphKernelNodeGetParams),
    E("cuGraphKernelNodeGetParams", 12000, cuGraphKernelNodeGetParams_v2),
    E("cuGraphKernelNodeSetParams", 10000, cuGraphKernelNodeSetParams),
    E("cuGraphKernelNodeSetParams", 12000, cuGraphKernelNodeSetParams_v2),
    E("cuGraphAddMemcpyNode", 10000, cuGraphAddMemcpyNode),
    E("cuGraphMemcpyNodeGetParams", 10000, cuGraphMemcpyNodeGetParams),
    E("cuGraphMemcpyNodeSetParams", 10000, cuGraphMemcpyNodeSetParams),
    E("cuGraphAddMemsetNode", 10000, cuGraphAddMemsetNode),
    E("cuGraphMemsetNodeGetParams", 10000, cuGraphMemsetNodeGetParams),
    E("cuGraphMemsetNodeSetParams", 10000, cuGraphMemsetNodeSetParams),
    E("cuGraphAddHostNode", 10000, cuGraphAddHostNode),
    E("cuGraphHostNodeGetParams", 10000, cuGraphHostNodeGetParams),
    E("cuGraphHostNodeSetParams", 10000, cuGraphHostNodeSetParams),
    E("cuGraphAddChildGraphNode", 10000, cuGraphAddChildGraphNode),
    E("cuGraphChildGraphNodeGetGraph", 10000, cuGraphChildGraphNodeGetGraph),
    E("cuGraphAddEmptyNode", 10000, cuGraphAddEmptyNode),
    E("cuGraphAddEventRecordNode", 11010, cuGraphAddEventRecordNode),
    E("cuGraphEventRecordNodeGetEvent", 11010, cuGraphEventRecordNodeGetEvent),
    E("cuGraphEventRecordNodeSetEvent", 11010, cuGraphEventRecordNodeSetEvent),
    E("cuGraphAddEventWaitNode", 11010, cuGraphAddEventWaitNode),
    E("cuGraphEventWaitNodeGetEvent", 11010, cuGraphEventWaitNodeGetEvent),
    E("cuGraphEventWaitNodeSetEvent", 11010, cuGraphEventWaitNodeSetEvent),
    E("cuGraphAddNode", 12020, cuGraphAddNode),
    E("cuGraphAddNode", 12030, cuGraphAddNode_v2),
    E("cuGraphNodeSetParams", 12020, cuGraphNodeSetParams),
    /* graph memory and conditional nodes (graph_memnode.c, graph_cond.c) */
    E("cuGraphAddMemAllocNode", 11040, cuGraphAddMemAllocNode),
    E("cuGraphMemAllocNodeGetParams", 11040, cuGraphMemAllocNodeGetParams),
    E("cuGraphAddMemFreeNode", 11040, cuGraphAddMemFreeNode),
    E("cuGraphMemFreeNodeGetParams", 11040, cuGraphMemFreeNodeGetParams),
    E("cuDeviceGraphMemTrim", 11040, cuDeviceGraphMemTrim),
    E("cuDeviceGetGraphMemAttribute", 11040, cuDeviceGetGraphMemAttribute),
    E("cuDeviceSetGraphMemAttribute", 11040, cuDeviceSetGraphMemAttribute),
    E("cuGraphConditionalHandleCreate", 12030, cuGraphConditionalHandleCreate),
    E("cuGraphNodeGetType", 10000, cuGraphNodeGetType),
    E("cuGraphGetNodes", 10000, cuGraphGetNodes),
    E("cuGraphGetRootNodes", 10000, cuGraphGetRootNodes),
    E("cuGraphGetEdges", 10000, cuGraphGetEdges),
    E("cuGraphGetEdges", 12030, cuGraphGetEdges_v2),
    E("cuGraphNodeGetDependencies", 10000, cuGraphNodeGetDependencies),
    E("cuGraphNodeGetDependencies", 12030, cuGraphNodeGetDependencies_v2),
    E("cuGraphNodeGetDependentNodes", 10000, cuGraphNodeGetDependentNodes),
    E("cuGraphNodeGetDependentNodes", 12030, cuGraphNodeGetDependentNodes_v2),
    E("cuGraphAddDependencies", 10000, cuGraphAddDependencies),
    E("cuGraphAddDependencies", 12030, cuGraphAddDependencies_v2),
    E("cuGraphRemoveDependencies", 10000, cuGraphRemoveDependencies),
    E("cuGraphRemoveDependencies", 12030, cuGraphRemoveDependencies_v2),
    E("cuGraphDestroyNode", 10000, cuGraphDestroyNode),
    E("cuGraphDebugDotPrint", 11030, cuGraphDebugDotPrint),
    E("cuGraphKernelNodeGetAttribute", 11000, cuGraphKernelNodeGetAttribute),
    E("cuGraphKernelNodeSetAttribute", 11000, cuGraphKernelNodeSetAttribute),
    E("cuGraphKernelNodeCopyAttributes", 11000, cuGraphKernelNodeCopyAttributes),
    /* instantiated graphs (graph_exec.c) */
    E("cuGraphInstantiate", 10000, cuGraphInstantiate),
    E("cuGraphInstantiate", 11000, cuGraphInstantiate_v2),
    E("cuGraphInstantiateWithFlags", 11040, cuGraphInstantiateWithFlags),
    P("cuGraphInstantiateWithParams", 12000, cuGraphInstantiateWithParams, cuGraphInstantiateWithParams_ptsz),
    P("cuGraphUpload", 11010, cuGraphUpload, cuGraphUpload_ptsz),
    P("cuGraphLaunch", 10000, cuGraphLaunch, cuGraphLaunch_ptsz),
    E("cuGraphExecDestroy", 10000, cuGraphExecDestroy),
    E("cuGraphExecGetFlags", 12000, cuGraphExecGetFlags),
    E("cuGraphExecKernelNodeSetParams", 10010, cuGraphExecKernelNodeSetParams),
    E("cuGraphExecKernelNodeSetParams", 12000, cuGraphExecKernelNodeSetParams_v2),
    E("cuGraphExecMemcpyNodeSetParams", 10020, cuGraphExecMemcpyNodeSetParams),
    E("cuGraphExecMemsetNodeSetParams", 10020, cuGraphExecMemsetNodeSetParams),
    E("cuGraphExecHostNodeSetParams", 10020, cuGraphExecHostNodeSetParams),
    E("cuGraphExecChildGraphNodeSetParams", 11010, cuGraphExecChildGraphNodeSetParams),
    E("cuGraphExecEventRecordNodeSetEvent", 11010, cuGraphExecEventRecordNodeSetEvent),
    E("cuGraphExecEventWaitNodeSetEvent", 11010, cuGraphExecEventWaitNodeSetEvent),
    E("cuGraphExecNodeSetParams", 12020, cuGraphExecNodeSetParams),
    E("cuGraphExecUpdate", 10020, cuGraphExecUpdate),
    E("cuGraphExecUpdate", 12000, cuGraphExecUpdate_v2),
    E("cuGraphNodeSetEnabled", 11060, cuGraphNodeSetEnabled),
    E("cuGraphNodeGetEnabled", 11060, cuGraphNodeGetEnabled),
    P("cuStreamGetAttribute", 11000, cuStreamGetAttribute, cuStreamGetAttribute_ptsz),
    P("cuStreamSetAttribute", 11000, cuStreamSetAttribute, cuStreamSetAttribute_ptsz),
    P("cuStreamCopyAttributes", 11000, cuStreamCopyAttributes, cuStreamCopyAttributes_ptsz),
    P("cuStreamAddCallback", 5000, cuStreamAddCallback, cuStreamAddCallback_ptsz),
    E("cuEventCreate", 2000, cuEventCreate),
    P("cuEventRecord", 2000, cuEventRecord, cuEventRecord_ptsz),
    P("cuEventRecordWithFlags", 11010, cuEventRecordWithFlags, cuEventRecordWithFlags_ptsz),
    E("cuEventQuery", 2000, cuEventQuery),
    E("cuEventSynchronize", 2000, cuEventSynchronize),
    E("cuEventElapsedTime", 2000, cuEventElapsedTime),
    E("cuEventElapsedTime", 12080, cuEventElapsedTime_v2),
    E("cuEventDestroy", 2000, cuEventDestroy),
    E("cuEventDestroy", 4000, cuEventDestroy_v2),
};

static int refused_cmp(const void *key, const void *entry)
{
    return strcmp((const char *)key, ((const p2n_refused_entry *)entry)->name);
}

static const p2n_refused_entry *refused_lookup(const char *symbol)
{
    return bsearch(symbol, p2n_refused_table, p2n_refused_count, sizeof p2n_refused_table[0], refused_cmp);
}

static CUresult lookup(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
                       CUdriverProcAddressQueryResult *status)
{
    if (!symbol || !pfn)
        return CUDA_ERROR_INVALID_VALUE;
    *pfn = NULL;
    const proc_entry *best = NULL;
    int known = 0;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (strcmp(table[i].name, symbol) != 0)
            continue;
        known = 1;
        if (table[i].version <= cudaVersion && (!best || table[i].version > best->version))
            best = &table[i];
    }
    if (!best && !known) {
        const p2n_refused_entry *r = refused_lookup(symbol);
        if (r) {
            *pfn = r->fn;
            if (status)
                *status = CU_GET_PROC_ADDRESS_SUCCESS;
            return CUDA_SUCCESS;
        }
    }
    if (!best) {
        if (status)
            *status = known ? CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
        return CUDA_SUCCESS;
    }
    *pfn = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) && best->fn_ptds ? best->fn_ptds : best->fn;
    if (status)
        *status = CU_GET_PROC_ADDRESS_SUCCESS;
    return CUDA_SUCCESS;
}

CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
                             CUdriverProcAddressQueryResult *symbolStatus)
{
    if (flags & ~(cuuint64_t)(CU_GET_PROC_ADDRESS_LEGACY_STREAM | CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM))
        return CUDA_ERROR_INVALID_VALUE;
    return lookup(symbol, pfn, cudaVersion, flags, symbolStatus);
}

CUresult cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags)
{
    if (flags & ~(cuuint64_t)(CU_GET_PROC_ADDRESS_LEGACY_STREAM | CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM))
        return CUDA_ERROR_INVALID_VALUE;
    CUdriverProcAddressQueryResult st = CU_GET_PROC_ADDRESS_SUCCESS;
    CUresult r = lookup(symbol, pfn, cudaVersion, flags, &st);
    if (r == CUDA_SUCCESS && st != CU_GET_PROC_ADDRESS_SUCCESS)
        return CUDA_ERROR_NOT_FOUND;   /* the v1 entry point has no status argument */
    return r;
}
