// The LLVM steps tritonc's NVIDIA (nvptx.cpp) and AMD (amdgpu.cpp) back ends share once a
// `gpu.module` is LLVM IR: linking a bitcode library, the O3 pipeline, collecting LLVM's
// error diagnostics and emitting assembly or an object. Header-only: each back end's
// translation unit includes it.

#pragma once

#include "llvm/ADT/StringSet.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/IPO/Internalize.h"

#include <memory>
#include <string>

namespace tritonc {

/// LLVM's O3 pipeline over `module`, with the target's own passes (NVPTX's NVVMReflect,
/// which resolves libdevice's `__nvvm_reflect` queries, among them).
inline void optimize(llvm::Module &module, llvm::TargetMachine &machine) {
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager sccs;
  llvm::ModuleAnalysisManager modules;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopUnrolling = true;
  tuning.LoopInterleaving = true;
  tuning.LoopVectorization = true;
  tuning.SLPVectorization = true;
  llvm::PassBuilder builder(&machine, tuning);
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(sccs);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, sccs, modules);
  llvm::ModulePassManager passes =
      builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  passes.run(module, modules);
}

/// Links the bitcode file at `path` into `module`, importing only the functions it
/// uses and internalizing them (so the optimizer may inline and drop them).
inline bool linkLibrary(llvm::Module &module, llvm::StringRef path, std::string &error) {
  llvm::SMDiagnostic diagnostic;
  std::unique_ptr<llvm::Module> library =
      llvm::getLazyIRFileModule(path, diagnostic, module.getContext());
  if (!library) {
    error = ("cannot load " + path + ": " + diagnostic.getMessage()).str();
    return false;
  }
  library->setTargetTriple(module.getTargetTriple());
  library->setDataLayout(module.getDataLayout());
  bool failed = llvm::Linker::linkModules(
      module, std::move(library), llvm::Linker::Flags::LinkOnlyNeeded,
      [](llvm::Module &linked, const llvm::StringSet<> &imported) {
        llvm::internalizeModule(linked, [&imported](const llvm::GlobalValue &value) {
          return !value.hasName() || !imported.contains(value.getName());
        });
      });
  if (failed)
    error = ("cannot link " + path).str();
  return !failed;
}

/// Collects LLVM's error diagnostics (an inline-asm constraint the back end cannot
/// satisfy, say) into the `std::string` `context` instead of LLVM's default handler,
/// which prints them and exits the process. Warnings and remarks are dropped.
inline void collectErrors(const llvm::DiagnosticInfo *info, void *context) {
  if (info->getSeverity() != llvm::DS_Error)
    return;
  auto &errors = *static_cast<std::string *>(context);
  llvm::raw_string_ostream stream(errors);
  if (!errors.empty())
    stream << "\n";
  llvm::DiagnosticPrinterRawOStream printer(stream);
  info->print(printer);
}

/// `module` compiled by `machine` into `out`, as assembly or an object (`type`); false
/// when the target cannot emit that kind of file.
inline bool emit(llvm::Module &module, llvm::TargetMachine &machine,
                 llvm::CodeGenFileType type, std::string &out) {
  llvm::raw_string_ostream stream(out);
  llvm::buffer_ostream buffered(stream);
  llvm::legacy::PassManager passes;
  if (machine.addPassesToEmitFile(passes, buffered, nullptr, type))
    return false;
  passes.run(module);
  return true;
}

} // namespace tritonc
