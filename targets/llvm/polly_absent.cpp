// polly_absent.cpp — static LLVM only (cmake/StaticLLVM.cmake). Debian's LLVM registers the Polly plug-in
// through LLVMExtensions (LTO back end, opt's driver) but ships no static archive of it. Nothing of ours runs
// LTO or opt's driver; this plug-in registers nothing, so the references resolve and behave as "no Polly".
#include <llvm/Config/llvm-config.h>
#include <llvm/Plugins/PassPlugin.h>

llvm::PassPluginLibraryInfo getPollyPluginInfo();
llvm::PassPluginLibraryInfo getPollyPluginInfo() {
    return {LLVM_PLUGIN_API_VERSION, "polly-absent", LLVM_VERSION_STRING, nullptr, nullptr};
}
