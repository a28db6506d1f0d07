//===- CpuTargetMachine.cpp - a CPU target row, the host, LLVM ------------===//

#include "indexpool/Tooling/CpuTargetMachine.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <algorithm>
#include <mutex>

using namespace mlir::indexpool;

/// Every target LLVM was built with: a row of another architecture than
/// the host's is compiled (indexpool-compile --target=cpu) here too.
static void initializeTargets() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
  });
}

static const llvm::Target *lookup(const CpuTarget &row, std::string &error) {
  initializeTargets();
  std::string why;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(llvm::Triple(std::string(row.triple)), why);
  if (!target)
    error = "CPU target '" + std::string(row.name) + "': this LLVM has no " +
            std::string(row.triple) + " backend (" + why + ")";
  return target;
}

/// Features of instructions LLVM emits only for their own intrinsics
/// (system, security and cache-control instructions: no compiled op calls
/// them), which virtual machines often hide: a host without them still
/// runs the code. Every other feature the row's CPU implies is checked.
static bool onlyThroughIntrinsics(llvm::StringRef feature) {
  static const llvm::StringRef names[] = {
      "cldemote", "clflushopt", "clwb",     "clzero",   "cmpccxadd",
      "enqcmd",   "fsgsbase",   "hreset",   "invpcid",  "kl",
      "lwp",      "movdir64b",  "movdiri",  "mwaitx",   "pconfig",
      "pku",      "prefetchi",  "ptwrite",  "raoint",   "rdpid",
      "rdpru",    "rdrnd",      "rdseed",   "rtm",      "serialize",
      "sgx",      "shstk",      "tsxldtrk", "uintr",    "usermsr",
      "waitpkg",  "wbnoinvd",   "widekl",   "xsave",    "xsavec",
      "xsaveopt", "xsaves"};
  return llvm::is_contained(names, feature);
}

static bool sameArchitecture(const CpuTarget &row) {
  return llvm::Triple(std::string(row.triple)).getArch() ==
         llvm::Triple(llvm::sys::getProcessTriple()).getArch();
}

std::vector<std::string>
mlir::indexpool::impliedFeatures(const CpuTarget &row) {
  std::string error;
  const llvm::Target *target = lookup(row, error);
  if (!target)
    return {};
  std::unique_ptr<llvm::MCSubtargetInfo> info(target->createMCSubtargetInfo(
      llvm::Triple(std::string(row.triple)), row.llvmCpu, ""));
  std::vector<std::string> implied;
  for (const llvm::SubtargetFeatureKV &feature :
       info->getAllProcessorFeatures())
    if (info->checkFeatures("+" + std::string(feature.Key)))
      implied.push_back(feature.Key);
  std::sort(implied.begin(), implied.end());
  return implied;
}

std::vector<std::string>
mlir::indexpool::missingHostFeatures(const CpuTarget &row) {
  if (!sameArchitecture(row))
    return {};
  // The host map names every ISA feature LLVM detects, false where absent;
  // a CPU's tuning flags are not in it and are not features to check.
  const llvm::StringMap<bool> host = llvm::sys::getHostCPUFeatures();
  std::vector<std::string> missing;
  for (const std::string &name : impliedFeatures(row)) {
    auto found = host.find(name);
    if (found != host.end() && !found->second && !onlyThroughIntrinsics(name))
      missing.push_back(name);
  }
  return missing;
}

bool mlir::indexpool::cpuTargetRunsHere(const CpuTarget &row,
                                        std::string &error) {
  if (!lookup(row, error))
    return false;
  const std::string here =
      llvm::Triple(llvm::sys::getProcessTriple()).getArchName().str();
  if (!sameArchitecture(row)) {
    error = "CPU target '" + std::string(row.name) + "' is " +
            std::string(row.arch) + " code; this host is " + here +
            " (indexpool-compile --target=cpu --cpu=" +
            std::string(row.name) + " builds it for another machine)";
    return false;
  }
  const std::vector<std::string> missing = missingHostFeatures(row);
  if (missing.empty())
    return true;
  std::string list;
  for (const std::string &name : missing)
    list += (list.empty() ? "" : ", ") + name;
  error = "CPU target '" + std::string(row.name) + "' needs features this " +
          "host (" + llvm::sys::getHostCPUName().str() + ") lacks: " + list;
  return false;
}

const CpuTarget *mlir::indexpool::hostCpuTarget(std::string &error) {
  static const CpuTarget *host = [] {
    std::string ignored;
    for (const CpuTarget &row : ::indexpool::target::allCpuTargets())
      if (cpuTargetRunsHere(row, ignored))
        return &row;
    return static_cast<const CpuTarget *>(nullptr);
  }();
  if (!host)
    error = "no CPU target of the table runs on this host (" +
            llvm::sys::getProcessTriple() + ", " +
            llvm::sys::getHostCPUName().str() +
            "); known: " + ::indexpool::target::knownCpuTargetNames();
  return host;
}

const CpuTarget *mlir::indexpool::resolveCpuTarget(const std::string &name,
                                                   bool toRun,
                                                   std::string &error) {
  if (name.empty() || name == "host")
    return hostCpuTarget(error);
  const CpuTarget *row = ::indexpool::target::findCpuTarget(name, error);
  if (!row || (toRun && !cpuTargetRunsHere(*row, error)))
    return nullptr;
  return row;
}

std::unique_ptr<llvm::TargetMachine>
mlir::indexpool::makeCpuTargetMachine(const CpuTarget &row, bool forJit,
                                      std::string &error) {
  const llvm::Target *target = lookup(row, error);
  if (!target)
    return nullptr;
  // For the JIT, LLVM's JIT defaults (JIT = true: on x86-64 the large code
  // model, since the JIT's code, constants and the libraries it calls may
  // lie more than 2 GiB apart); for objects, position-independent code.
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      llvm::Triple(std::string(row.triple)), row.llvmCpu, "",
      llvm::TargetOptions(),
      forJit ? std::optional<llvm::Reloc::Model>() : llvm::Reloc::PIC_,
      std::nullopt, llvm::CodeGenOptLevel::Aggressive, /*JIT=*/forJit));
  if (!machine)
    error = "CPU target '" + std::string(row.name) +
            "': LLVM made no target machine for " + std::string(row.llvmCpu);
  return machine;
}
