// LLVM's half of tritonc's AMD back end: a `gpu.module` already lowered to the LLVM and
// ROCDL dialects becomes LLVM IR for `amdgcn-amd-amdhsa`, is linked with the ROCm device
// libraries (ocml, ockl) when it calls into them, is optimized at O3 and is compiled by
// LLVM's AMDGPU back end to AMDGCN assembly (`--emit amdgcn`) and to a relocatable
// object, which src/amdgpu/link.rs links into a code object (HSACO) with ld.lld.
//
// What Triton's AMD back end does to its LLVM module is done here too: code-object
// version 5 (`amdhsa_code_object_version` = 500), the device libraries' `__oclc_*`
// control constants (ABI 500, the ISA version, no finite-only or unsafe math, no
// denormal flushing, correctly rounded fp32 sqrt, wave64), and the kernels' flat
// work-group size `1,<threads>`, `amdgpu-waves-per-eu` and arguments passed `inreg`
// (preloaded into scalar registers where the processor can).

#include "mlir-c/IR.h"
#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm_steps.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/IPO/Internalize.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <memory>
#include <mutex>
#include <string>

extern "C" void LLVMInitializeAMDGPUTargetInfo();
extern "C" void LLVMInitializeAMDGPUTarget();
extern "C" void LLVMInitializeAMDGPUTargetMC();
extern "C" void LLVMInitializeAMDGPUAsmPrinter();

namespace {

using tritonc::collectErrors;
using tritonc::emit;
using tritonc::linkLibrary;
using tritonc::optimize;

constexpr const char *kTriple = "amdgcn-amd-amdhsa";

/// What tritoncAmdgpuCompile hands back through its sink.
enum SinkKind : int { kError = 0, kLlvmIr = 1, kAssembly = 2, kObject = 3 };

using Sink = void (*)(void *user, int kind, const char *data, size_t length);

void initializeAmdgpu() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTarget();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUAsmPrinter();
  });
}

std::unique_ptr<llvm::TargetMachine> createMachine(llvm::StringRef chip,
                                                   llvm::StringRef features,
                                                   bool fpFusion,
                                                   std::string &error) {
  initializeAmdgpu();
  llvm::Triple triple(kTriple);
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return nullptr;
  llvm::TargetOptions options;
  options.AllowFPOpFusion =
      fpFusion ? llvm::FPOpFusion::Fast : llvm::FPOpFusion::Strict;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, chip, features, options, llvm::Reloc::PIC_, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  if (!machine)
    error = "LLVM cannot create a target machine for " + chip.str();
  return machine;
}

/// A constant the device libraries read (`__oclc_wavefrontsize64` & co.), defined as
/// Triton defines it: link-once, in the constant address space.
void defineControl(llvm::Module &module, llvm::StringRef name, unsigned bits,
                   uint64_t value) {
  if (module.getNamedGlobal(name))
    return;
  llvm::Type *type = llvm::IntegerType::get(module.getContext(), bits);
  auto *global = new llvm::GlobalVariable(
      module, type, /*isConstant=*/true, llvm::GlobalValue::LinkOnceODRLinkage,
      llvm::ConstantInt::get(type, value), name, nullptr,
      llvm::GlobalValue::NotThreadLocal, /*AddressSpace=*/4);
  global->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
  global->setVisibility(llvm::GlobalValue::ProtectedVisibility);
}

/// Whether `module` declares a function that is called and is not an intrinsic: a
/// device-library function to link.
bool callsLibraries(const llvm::Module &module) {
  for (const llvm::Function &f : module)
    if (f.isDeclaration() && !f.isIntrinsic() && !f.use_empty())
      return true;
  return false;
}

} // namespace

extern "C" {

/// Compiles `gpuModule` (LLVM and ROCDL dialects only) for the AMD processor `chip`
/// (`gfx942`): `isaVersion` is the device libraries' `__oclc_ISA_version` (9402),
/// `threads` the kernels' work-group size, `wavesPerEu` Triton's `waves_per_eu` (0:
/// none). The bitcode `libraries` are linked when the kernel calls a function it does not
/// define. Calls `sink` with kind 1 and the optimized LLVM IR when `wantLlvmIr`, kind 2
/// and the AMDGCN assembly, kind 3 and the relocatable object; on failure with kind 0
/// and a message, and returns false.
bool tritoncAmdgpuCompile(MlirOperation gpuModule, MlirStringRef chip,
                          unsigned isaVersion, unsigned threads,
                          unsigned wavesPerEu, bool fpFusion,
                          const MlirStringRef *libraries, size_t numLibraries,
                          bool wantLlvmIr, Sink sink, void *user) {
  auto fail = [&](const std::string &message) {
    sink(user, kError, message.data(), message.size());
    return false;
  };
  llvm::StringRef chipRef = unwrap(chip);
  std::string error;
  std::unique_ptr<llvm::TargetMachine> machine =
      createMachine(chipRef, "", fpFusion, error);
  if (!machine)
    return fail(error);

  llvm::LLVMContext context;
  std::string llvmErrors;
  context.setDiagnosticHandlerCallBack(collectErrors, &llvmErrors);
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
  module->addModuleFlag(llvm::Module::Error, "amdhsa_code_object_version", 500);

  for (llvm::Function &f : *module) {
    if (f.getCallingConv() != llvm::CallingConv::AMDGPU_KERNEL)
      continue;
    f.addFnAttr("amdgpu-flat-work-group-size", "1," + std::to_string(threads));
    // `0, 0`: no limit (LLVM's default), written as Triton writes it.
    f.addFnAttr("amdgpu-waves-per-eu",
                std::to_string(wavesPerEu) + ", " + std::to_string(wavesPerEu));
    f.addFnAttr("uniform-work-group-size", "true");
    f.addFnAttr("denormal-fp-math-f32", "ieee");
    // Arguments preloaded into user SGPRs where the processor can (gfx942), as Triton asks.
    for (llvm::Argument &argument : f.args())
      argument.addAttr(llvm::Attribute::InReg);
  }

  if (callsLibraries(*module) && numLibraries > 0) {
    defineControl(*module, "__oclc_ABI_version", 32, 500);
    defineControl(*module, "__oclc_ISA_version", 32, isaVersion);
    defineControl(*module, "__oclc_finite_only_opt", 8, 0);
    defineControl(*module, "__oclc_unsafe_math_opt", 8, 0);
    defineControl(*module, "__oclc_daz_opt", 8, 0);
    defineControl(*module, "__oclc_correctly_rounded_sqrt32", 8, 1);
    defineControl(*module, "__oclc_wavefrontsize64", 8, 1);
    for (size_t i = 0; i < numLibraries; ++i) {
      std::string error;
      if (!linkLibrary(*module, unwrap(libraries[i]), error))
        return fail(error);
    }
  }
  for (const llvm::Function &f : *module)
    if (f.isDeclaration() && !f.isIntrinsic() && !f.use_empty())
      return fail("`" + f.getName().str() +
                  "` is called but defined in none of the linked device libraries "
                  "(ocml, ockl)");

  optimize(*module, *machine);
  if (!llvmErrors.empty())
    return fail("LLVM: " + llvmErrors);
  if (wantLlvmIr) {
    std::string text;
    llvm::raw_string_ostream stream(text);
    module->print(stream, nullptr);
    sink(user, kLlvmIr, text.data(), text.size());
  }

  // Code generation changes the IR it runs on: each output gets its own copy.
  std::unique_ptr<llvm::Module> forAssembly = llvm::CloneModule(*module);
  std::string assembly;
  if (!emit(*forAssembly, *machine, llvm::CodeGenFileType::AssemblyFile, assembly))
    return fail("LLVM's AMDGPU back end cannot emit assembly for " + chipRef.str());
  std::unique_ptr<llvm::TargetMachine> objectMachine =
      createMachine(chipRef, "", fpFusion, error);
  if (!objectMachine)
    return fail(error);
  std::string object;
  if (!emit(*module, *objectMachine, llvm::CodeGenFileType::ObjectFile, object))
    return fail("LLVM's AMDGPU back end cannot emit an object for " + chipRef.str());
  if (!llvmErrors.empty())
    return fail("LLVM's AMDGPU back end: " + llvmErrors);
  sink(user, kAssembly, assembly.data(), assembly.size());
  sink(user, kObject, object.data(), object.size());
  return true;
}

} // extern "C"
