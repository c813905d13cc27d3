// Registers exactly the MLIR dialects, interfaces, translations and passes that
// tritonc's NVIDIA and AMD pipelines use (src/context.rs, src/pipeline.rs).
//
// MLIR's C API only offers "register everything" (mlirRegisterAllDialects & co.), and a
// static link of that pulls in every LLVM target with its static constructors, and every
// dialect extension runs when a dialect loads: together several milliseconds of every
// `tritonc compile`. Each registration here is one inline C++ call into MLIR's own API.

#include "mlir-c/IR.h"
#include "mlir/CAPI/IR.h"
#include "mlir/IR/DialectRegistry.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"

#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/ROCDL/ROCDLToLLVMIRTranslation.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/LLVMIR/Transforms/Passes.h"

extern "C" {

/// The dialects tritonc emits (gpu, llvm, nvvm, arith, scf, cf) plus `ub`, which the
/// conversions produce, and `rocdl`, which `convert-gpu-to-rocdl` produces for AMD; their
/// conversion-to-LLVM interfaces, which `convert-gpu-to-nvvm` collects from the loaded
/// dialects; and the translations to LLVM IR (cpp/nvptx.cpp, cpp/amdgpu.cpp).
void tritoncRegisterNvvmDialects(MlirDialectRegistry c_registry) {
  mlir::DialectRegistry &registry = *unwrap(c_registry);
  registry.insert<mlir::arith::ArithDialect, mlir::cf::ControlFlowDialect,
                  mlir::gpu::GPUDialect, mlir::LLVM::LLVMDialect,
                  mlir::NVVM::NVVMDialect, mlir::ROCDL::ROCDLDialect,
                  mlir::scf::SCFDialect,
                  mlir::ub::UBDialect>();

  mlir::arith::registerConvertArithToLLVMInterface(registry);
  mlir::cf::registerConvertControlFlowToLLVMInterface(registry);
  mlir::NVVM::registerConvertGpuToNVVMInterface(registry);
  mlir::registerConvertNVVMToLLVMInterface(registry);
  mlir::ub::registerConvertUBToLLVMInterface(registry);

  mlir::registerBuiltinDialectTranslation(registry);
  mlir::registerGPUDialectTranslation(registry);
  mlir::registerLLVMDialectTranslation(registry);
  mlir::registerNVVMDialectTranslation(registry);
  mlir::registerROCDLDialectTranslation(registry);
}

/// The passes of the textual pipeline in src/pipeline.rs, so it parses.
void tritoncRegisterNvvmPasses(void) {
  mlir::registerSCFToControlFlowPass();
  mlir::registerConvertGpuOpsToNVVMOps();
  mlir::registerConvertGpuOpsToROCDLOps();
  mlir::LLVM::registerDIScopeForLLVMFuncOpPass();
  mlir::registerReconcileUnrealizedCastsPass();
}

} // extern "C"
