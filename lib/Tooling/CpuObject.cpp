//===- CpuObject.cpp - a function compiled ahead of time for a CPU --------===//
//
// indexpool-compile --target=cpu: the JIT's lowering (lowerForCpu), then
// LLVM IR for the row's triple and CPU, optimized at O3 as the JIT does,
// and the target's code generator writing an object file or assembly. A
// row of another architecture (aarch64 here) compiles the same way, so its
// code can be built and read on any machine.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Tooling/CPUJit.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

using namespace mlir;
using namespace mlir::indexpool;

bool mlir::indexpool::emitCpuCode(func::FuncOp func,
                                  const CPUJitOptions &options, bool assembly,
                                  std::string &out, std::string &error) {
  CpuLowering lowering;
  if (!lowerForCpu(func, options, /*toRun=*/false, lowering, error))
    return false;
  OwningOpRef<ModuleOp> &lowered = lowering.module;
  llvm::TargetMachine *machine = lowering.machine.get();
  const CpuTarget *cpu = lowering.cpu;
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> module =
      translateModuleToLLVMIR(*lowered, context, func.getSymName());
  if (!module) {
    error = "translating @" + func.getSymName().str() + " to LLVM IR failed";
    return false;
  }
  module->setTargetTriple(machine->getTargetTriple());
  module->setDataLayout(machine->createDataLayout());
  if (llvm::Error failed =
          makeOptimizingTransformer(/*optLevel=*/3, /*sizeLevel=*/0,
                                    machine)(module.get())) {
    error = "optimizing @" + func.getSymName().str() +
            " failed: " + llvm::toString(std::move(failed));
    return false;
  }
  llvm::SmallString<0> bytes;
  llvm::raw_svector_ostream stream(bytes);
  llvm::legacy::PassManager codegen;
  if (machine->addPassesToEmitFile(codegen, stream, nullptr,
                                   assembly ? llvm::CodeGenFileType::AssemblyFile
                                            : llvm::CodeGenFileType::ObjectFile)) {
    error = "CPU target '" + std::string(cpu->name) +
            "': LLVM cannot emit " + (assembly ? "assembly" : "objects");
    return false;
  }
  codegen.run(*module);
  out.assign(bytes.begin(), bytes.end());
  return true;
}
