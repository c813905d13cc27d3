// LLVM's half of tritonc's NVIDIA back end: a `gpu.module` already lowered to the LLVM
// and NVVM dialects becomes LLVM IR, is linked with libdevice when it calls into it, is
// optimized at O3 and is compiled to PTX by LLVM's NVPTX back end (src/serialize.rs).
//
// This replaces MLIR's `gpu-module-to-binary` pass, which does the same steps, so that
//  - the optimized LLVM IR can be printed (`--emit llir`, Triton's "llir" stage);
//  - libdevice is linked only when the kernel needs it and only from the path tritonc
//    located (MLIR's serializer also links any libdevice under $CUDA_HOME);
//  - no `gpu.binary` op is built around the PTX text (an attribute MLIR uniques), and
//    MLIR's verifier does not run after the serialization.

#include "mlir-c/IR.h"
#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm_steps.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Verifier.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/IPO/Internalize.h"

#include <memory>
#include <mutex>
#include <string>

extern "C" void LLVMInitializeNVPTXTargetInfo();
extern "C" void LLVMInitializeNVPTXTarget();
extern "C" void LLVMInitializeNVPTXTargetMC();
extern "C" void LLVMInitializeNVPTXAsmPrinter();

namespace {

using tritonc::collectErrors;
using tritonc::emit;
using tritonc::linkLibrary;
using tritonc::optimize;

constexpr const char *kTriple = "nvptx64-nvidia-cuda";

/// What tritoncNvptxCompile hands back through its sink.
enum SinkKind : int { kError = 0, kLlvmIr = 1, kPtx = 2 };

using Sink = void (*)(void *user, int kind, const char *data, size_t length);

/// Registers the NVPTX target once per process and makes shared-memory pointers 32 bits
/// wide (NVPTX's `nvptx-short-ptr` option, read when a target machine computes its data
/// layout): shared addresses then live in 32-bit registers and their arithmetic is 32-bit,
/// where 64-bit generic-width pointers cost a widening multiply and a carry add per
/// address (`ldmatrix`, `cp.async`, the reductions' scratch), as in Triton's PTX.
void initializeNvptx() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    auto &&options = llvm::cl::getRegisteredOptions();
    auto shortPointers = options.find("nvptx-short-ptr");
    if (shortPointers != options.end())
      static_cast<llvm::cl::opt<bool> *>(shortPointers->second)->setValue(true);
  });
}

/// A new target machine for `chip` and `features`, with code generation at O3 (as
/// `gpu-module-to-binary{O=3}` and Triton set it); null with `error` set on failure.
///
/// With `fpFusion` the back end may fuse any floating-point multiply and add into one
/// `fma` (`FPOpFusion::Fast`, what Triton's `enable_fp_fusion` sets), not only those
/// the IR marks `contract`; without it nothing is fused (`Strict`, as Triton).
std::unique_ptr<llvm::TargetMachine> createMachine(llvm::StringRef chip,
                                                   llvm::StringRef features,
                                                   bool fpFusion,
                                                   std::string &error) {
  initializeNvptx();
  llvm::Triple triple(kTriple);
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return nullptr;
  llvm::TargetOptions options;
  options.AllowFPOpFusion =
      fpFusion ? llvm::FPOpFusion::Fast : llvm::FPOpFusion::Strict;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, chip, features, options, std::nullopt, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  if (!machine)
    error = "LLVM cannot create a target machine for " + chip.str() + " (" +
            features.str() + ")";
  return machine;
}

} // namespace

extern "C" {

/// Compiles `gpuModule` (LLVM and NVVM dialects only) to PTX for `chip`/`features`,
/// fusing multiplies and adds when `fpFusion`, linking the bitcode `libraries` first.
/// Calls `sink` with kind 1 and the optimized LLVM IR when `wantLlvmIr`, then with kind
/// 2 and the PTX; on failure with kind 0 and a message (MLIR's own diagnostics go to
/// the context's handlers) and returns false.
bool tritoncNvptxCompile(MlirOperation gpuModule, MlirStringRef chip,
                         MlirStringRef features, bool fpFusion,
                         const MlirStringRef *libraries, size_t numLibraries,
                         bool wantLlvmIr, Sink sink, void *user) {
  auto fail = [&](const std::string &message) {
    sink(user, kError, message.data(), message.size());
    return false;
  };
  // A new target machine per kernel, as `gpu-module-to-binary` does: NVPTX numbers
  // its call sequences per target machine, so a reused one would make a kernel's PTX
  // depend on what the process compiled before it.
  llvm::StringRef chipRef = unwrap(chip), featuresRef = unwrap(features);
  std::string error;
  std::unique_ptr<llvm::TargetMachine> machine =
      createMachine(chipRef, featuresRef, fpFusion, error);
  if (!machine)
    return fail(error);

  llvm::LLVMContext context;
  std::string llvmErrors;
  context.setDiagnosticHandlerCallBack(collectErrors, &llvmErrors);
  // Verified here rather than by the translation, which prints the verifier's findings
  // to stderr: here they become the error's text.
  std::unique_ptr<llvm::Module> module = mlir::translateModuleToLLVMIR(
      unwrap(gpuModule), context, "LLVMDialectModule", /*disableVerification=*/true);
  if (!module)
    return fail("the translation of the kernel's MLIR to LLVM IR failed");
  {
    std::string findings;
    llvm::raw_string_ostream stream(findings);
    if (llvm::verifyModule(*module, &stream))
      return fail("the kernel's LLVM IR is invalid: " + findings);
  }
  module->setDataLayout(machine->createDataLayout());
  module->setTargetTriple(machine->getTargetTriple());

  for (size_t i = 0; i < numLibraries; ++i) {
    std::string error;
    if (!linkLibrary(*module, unwrap(libraries[i]), error))
      return fail(error);
  }

  optimize(*module, *machine);
  if (!llvmErrors.empty())
    return fail("LLVM: " + llvmErrors);
  if (wantLlvmIr) {
    std::string text;
    llvm::raw_string_ostream stream(text);
    module->print(stream, nullptr);
    sink(user, kLlvmIr, text.data(), text.size());
  }

  std::string ptx;
  if (!emit(*module, *machine, llvm::CodeGenFileType::AssemblyFile, ptx))
    return fail("LLVM's NVPTX back end cannot emit assembly for " + chipRef.str());
  if (!llvmErrors.empty())
    return fail("LLVM's NVPTX back end: " + llvmErrors);
  sink(user, kPtx, ptx.data(), ptx.size());
  return true;
}

} // extern "C"
