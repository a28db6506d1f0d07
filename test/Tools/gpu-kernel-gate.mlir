// The static GPU kernel gate (test/gpu_kernel_gate.py, ctest's
// gpu-kernel-gate) fails where it must, on this file's one kernel on sm_90.
// The kernel is clean; it spills when ptxas runs on its PTX without the
// launch bounds (which override -maxrregcount) and with 16 registers
// (Inputs/ptxas-unbounded.py). A spill is NEW and fails, naming file,
// function, chip and kernel with ptxas's numbers (as with a baseline that
// does not list it):
// RUN: rm -rf %t && mkdir %t && echo "# nothing known" > %t/empty
// RUN: not python3 %S/../gpu_kernel_gate.py --tools %indexpool_libs/../bin --source %indexpool_src --cache %t/cache --chip=sm_90 --ptxas %S/Inputs/ptxas-unbounded.py --ptxas-arg=-maxrregcount=16 %s | FileCheck %s --check-prefix=NEW
// RUN: not python3 %S/../gpu_kernel_gate.py --tools %indexpool_libs/../bin --source %indexpool_src --cache %t/cache --chip=sm_90 --baseline %t/empty --ptxas %S/Inputs/ptxas-unbounded.py --ptxas-arg=-maxrregcount=16 %s | FileCheck %s --check-prefix=NEW
// --write-baseline lists it, and with that baseline the same run passes:
// RUN: python3 %S/../gpu_kernel_gate.py --tools %indexpool_libs/../bin --source %indexpool_src --cache %t/cache --chip=sm_90 --baseline %t/spills --ptxas %S/Inputs/ptxas-unbounded.py --ptxas-arg=-maxrregcount=16 --write-baseline %s
// RUN: FileCheck %s --check-prefix=BASELINE < %t/spills
// RUN: not python3 %S/../gpu_kernel_gate.py --tools %indexpool_libs/../bin --source %indexpool_src --chip=sm_90 --write-baseline %s 2>&1 | FileCheck %s --check-prefix=NO-FILE
// RUN: python3 %S/../gpu_kernel_gate.py --tools %indexpool_libs/../bin --source %indexpool_src --cache %t/cache --chip=sm_90 --baseline %t/spills --ptxas %S/Inputs/ptxas-unbounded.py --ptxas-arg=-maxrregcount=16 %s | FileCheck %s --check-prefix=KNOWN
// More spill bytes than its line says: WORSE, a failure.
// RUN: sed 's/spill_stores=[0-9]*/spill_stores=4/' %t/spills > %t/fewer
// RUN: not python3 %S/../gpu_kernel_gate.py --tools %indexpool_libs/../bin --source %indexpool_src --cache %t/cache --chip=sm_90 --baseline %t/fewer --ptxas %S/Inputs/ptxas-unbounded.py --ptxas-arg=-maxrregcount=16 %s | FileCheck %s --check-prefix=WORSE
// With the real ptxas the kernel is clean: its line is STALE, a failure
// (the baseline only shrinks); without a baseline the run passes.
// RUN: not python3 %S/../gpu_kernel_gate.py --tools %indexpool_libs/../bin --source %indexpool_src --cache %t/cache --chip=sm_90 --baseline %t/spills %s | FileCheck %s --check-prefix=STALE
// RUN: python3 %S/../gpu_kernel_gate.py --tools %indexpool_libs/../bin --source %indexpool_src --cache %t/cache --chip=sm_90 %s | FileCheck %s --check-prefix=CLEAN
// The chips are indexpool-compile's table; --chip must name one of them.
// RUN: not python3 %S/../gpu_kernel_gate.py --tools %indexpool_libs/../bin --source %indexpool_src --chip=sm_42 %s 2>&1 | FileCheck %s --check-prefix=CHIP

// NEW: NEW test/Tools/gpu-kernel-gate.mlir tiny sm_90 tiny_kernel stack={{[1-9][0-9]*}} spill_stores={{[1-9][0-9]*}} spill_loads={{[1-9][0-9]*}} registers={{[0-9]+}}
// NEW: # kernels checked: sm_90 1
// NEW: # offenders 1 (known 0, WORSE 0, NEW 1), STALE 0
// NEW: FAILED

// NO-FILE: --write-baseline needs --baseline FILE

// BASELINE: This is debt, not an allowance.
// BASELINE: {{^}}test/Tools/gpu-kernel-gate.mlir tiny sm_90 tiny_kernel stack={{[0-9]+}} spill_stores={{[0-9]+}} spill_loads={{[0-9]+}} R{{$}}

// KNOWN: known test/Tools/gpu-kernel-gate.mlir tiny sm_90 tiny_kernel stack=
// KNOWN: # offenders 1 (known 1, WORSE 0, NEW 0), STALE 0
// KNOWN-NOT: FAILED

// WORSE: WORSE test/Tools/gpu-kernel-gate.mlir tiny sm_90 tiny_kernel stack={{.*}} (baseline: {{.*}} spill_stores=4
// WORSE: FAILED

// STALE: STALE test/Tools/gpu-kernel-gate.mlir tiny sm_90 tiny_kernel: no longer offends
// STALE: # offenders 0 (known 0, WORSE 0, NEW 0), STALE 1
// STALE: FAILED

// CLEAN: # kernels checked: sm_90 1
// CLEAN: # offenders 0 (known 0, WORSE 0, NEW 0), STALE 0
// CLEAN-NOT: FAILED

// CHIP: sm_42 not in indexpool-compile's chip table: sm_80, {{.*}}sm_90

func.func @tiny(%keys: tensor<1024x64xbf16>, %scores: tensor<1024x64xf32>)
    -> (tensor<256x64xf8E4M3FN>, tensor<256xf32>) {
  %q, %s, %w = indexpool.compress %keys, %scores {pool_size = 4 : i64, rotate}
      : (tensor<1024x64xbf16>, tensor<1024x64xf32>)
        -> (tensor<256x64xf8E4M3FN>, tensor<256xf32>, tensor<256x4x64xf32>)
  return %q, %s : tensor<256x64xf8E4M3FN>, tensor<256xf32>
}
