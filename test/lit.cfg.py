# -*- Python -*-
import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "IndexPool"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.indexpool_obj_root, "test")
# A run for another CPU target (-Dcpu=NAME, below) keeps its outputs apart:
# ctest runs those beside the host's.
if lit_config.params.get("cpu"):
    config.test_exec_root = os.path.join(
        config.indexpool_obj_root, "test-cpu-" + lit_config.params["cpu"])
config.excludes = ["CMakeLists.txt", "README.md", "lit.cfg.py", "lit.site.cfg.py",
                   "ptxas_report.py"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%shlibext", config.llvm_shlib_ext))
config.substitutions.append(("%indexpool_src", config.indexpool_src_root))
config.substitutions.append(("%indexpool_libs", config.indexpool_lib_dir))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP",
                                     "CUDA_HOME", "CUDA_ROOT", "CUDA_PATH"])
llvm_config.use_default_substitutions()
# FileCheck, not and count come from LLVM 22, never from the LLVM 14 on PATH.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.indexpool_tools_dir, append_path=True)

tool_dirs = [config.indexpool_tools_dir, config.llvm_tools_dir]
tools = [
    "indexpool-opt",
    "indexpool-compile",
    # Every JIT run is bounds-checked: an access outside its buffer fails
    # the test with one error line instead of corrupting the heap
    # (`lit -Dcheck_bounds=0` runs without, to time the difference).
    # `lit -Dcpu=NAME` compiles every run for that CPU target instead of
    # the host's (ctest's lit-cpu-* entries: the generic and AVX2 rows on
    # the CPU integration tests).
    ToolSubst("indexpool-run", extra_args=(
        ["--check-bounds"]
        if lit_config.params.get("check_bounds", "1") != "0" else []) + (
        ["--cpu=" + lit_config.params["cpu"]]
        if lit_config.params.get("cpu") else [])),
    "indexpool-launch",
    "indexpool-tune",
    "indexpool-tune-measure",
    "indexpool-cache-sim",
    # The stock Debian mlir-opt, for the plugin test.
    ToolSubst("%mlir_opt", os.path.join(config.llvm_tools_dir, "mlir-opt"),
              unresolved="fatal"),
    ToolSubst("%mlir_runner", os.path.join(config.llvm_tools_dir, "mlir-runner"),
              unresolved="fatal"),
]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# What code lowered by --indexpool-to-cpu needs at run time under mlir-runner.
runner_libs = ["libmlir_runner_utils", "libmlir_c_runner_utils", "libomp"]
llvm_lib_dir = os.path.join(os.path.dirname(config.llvm_tools_dir), "lib")
config.substitutions.append(("%runner_libs", ",".join(
    os.path.join(llvm_lib_dir, name + config.llvm_shlib_ext) for name in runner_libs)))

# The host's x86 vector extensions, for the CPU target tests (REQUIRES:
# x86-avx2: the x86-64-v3 row runs here; amx: Intel's AMX tiles).
try:
    with open("/proc/cpuinfo") as _cpuinfo:
        _flags = next((line.split(":", 1)[1].split() for line in _cpuinfo
                       if line.startswith("flags")), [])
except OSError:
    _flags = []
if {"avx2", "fma", "f16c", "bmi2", "movbe"} <= set(_flags):
    config.available_features.add("x86-avx2")
if "amx_tile" in _flags:
    config.available_features.add("amx")
import platform
if platform.machine() == "x86_64":
    config.available_features.add("host-x86_64")
# A forced row this host cannot run (lit -Dcpu=x86-64-v3 without AVX2):
# every test is unsupported rather than failing on the refusal.
if (lit_config.params.get("cpu") == "x86-64-v3"
        and "x86-avx2" not in config.available_features):
    config.unsupported = True

# GPU tests (REQUIRES: cuda) run only where the CUDA driver loads.
try:
    import ctypes
    ctypes.CDLL("libcuda.so.1")
    config.available_features.add("cuda")
except OSError:
    pass

# The static report's SASS (REQUIRES: nvdisasm) where the report finds an
# nvdisasm ($NVDISASM, scripts/get-nvdisasm.sh's copy, PATH): the tests get
# the same one. nvdisasm-sm90: it decodes up to sm_90 only (before CUDA
# 12.8, like the fetched 11.8), so the report gives a note for newer chips.
import importlib.util

_spec = importlib.util.spec_from_file_location(
    "static_report", os.path.join(config.indexpool_src_root, "bench", "gpu",
                                  "static_report.py"))
_static_report = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_static_report)
_nvdisasm, _ = _static_report.find_nvdisasm()
if _nvdisasm:
    config.available_features.add("nvdisasm")
    config.environment["NVDISASM"] = _nvdisasm
    _version = _static_report.nvdisasm_version(_nvdisasm)
    if _version and _version < (12, 8):
        config.available_features.add("nvdisasm-sm90")

# A sanitized plugin cannot be loaded by the (unsanitized) stock mlir-opt.
if config.indexpool_sanitizers:
    config.available_features.add("sanitizers")
    config.environment["LSAN_OPTIONS"] = "suppressions=" + os.path.join(
        config.test_source_root, "lsan.supp")
    # LLVM's BumpPtrAllocator poisons its slabs in our sanitized objects
    # (inline code of llvm/Support/Allocator.h) but libMLIR.so, built
    # without ASan, allocates from the same slabs without unpoisoning them:
    # a false "use-after-poison". Manual poisoning is ignored; every real
    # heap error is still reported.
    config.environment["ASAN_OPTIONS"] = ":".join(
        o for o in (os.environ.get("ASAN_OPTIONS", ""),
                    "allow_user_poisoning=0") if o)

# Files under Inputs/ are read by tests, they are not tests themselves.
config.excludes.append("Inputs")

# A hung test fails on its own, naming its file, instead of stalling the
# suite (lit needs psutil for this: python3-psutil, installed by setup.sh).
try:
    import psutil  # noqa: F401
    lit_config.maxIndividualTestTime = 600
except ImportError:
    lit_config.warning("python3-psutil is missing: no per-test timeout")

# The fuzz targets, when scripts/fuzz.sh has built them (build-fuzz, or
# $INDEXPOOL_FUZZ_BUILD_DIR): test/Fuzz replays the saved crashers.
fuzz_bin = os.path.join(os.environ.get(
    "INDEXPOOL_FUZZ_BUILD_DIR",
    os.path.join(config.indexpool_src_root, "build-fuzz")), "bin")
fuzz_targets = ["npy-reader", "manifest-reader", "tuning-db-reader",
                "ir-parser", "differential"]
if all(os.path.exists(os.path.join(fuzz_bin, "fuzz-" + t)) for t in fuzz_targets):
    config.available_features.add("fuzz")
    config.substitutions.append(("%fuzz_bin", fuzz_bin))
