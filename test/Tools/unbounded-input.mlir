// Inputs that never end -- a character device, a FIFO fed without end -- and
// JSON nested without end: every reader stops at its limit with one line and
// exit code 1 instead of reading forever or overflowing the stack. Each RUN
// finishes in well under a second (the largest limit, 256 MiB, is read from
// /dev/zero once per .mlir tool).
//
// RUN: rm -rf %t && mkdir -p %t

// The .mlir input of each tool: 256 MiB at most.
// RUN: sh -c "indexpool-opt /dev/zero 2>&1; echo rc=\$?" | FileCheck %s --check-prefix=OPT-ZERO
// OPT-ZERO: /dev/zero: larger than the limit of 268435456 bytes (256 MiB) for an .mlir input
// OPT-ZERO-NEXT: rc=1
// RUN: sh -c "indexpool-run /dev/zero --function=f 2>&1; echo rc=\$?" | FileCheck %s --check-prefix=RUN-ZERO
// RUN-ZERO: indexpool-run: error: /dev/zero: larger than the limit of 268435456 bytes (256 MiB) for an .mlir input
// RUN-ZERO-NEXT: rc=1
// RUN: sh -c "indexpool-compile /dev/zero --chip=sm_90 -o %t/out 2>&1; echo rc=\$?" | FileCheck %s --check-prefix=COMPILE-ZERO
// COMPILE-ZERO: indexpool-compile: error: /dev/zero: larger than the limit of 268435456 bytes (256 MiB) for an .mlir input
// COMPILE-ZERO-NEXT: rc=1
// RUN: not indexpool-opt %t 2>&1 | FileCheck %s --check-prefix=OPT-DIR
// OPT-DIR: {{.*}}: not a regular file (a directory)
// A FIFO fed without end stops at the limit (its writer then gets SIGPIPE;
// dd opens the FIFO under a timeout so that no writer outlives a failure).
// RUN: mkfifo %t/endless.mlir
// RUN: sh -c "(yes '// more' | timeout 60 dd of=%t/endless.mlir 2>/dev/null &) ; indexpool-opt %t/endless.mlir 2>&1; echo rc=\$?" | FileCheck %s --check-prefix=OPT-FIFO
// OPT-FIFO: endless.mlir: larger than the limit of 268435456 bytes (256 MiB) for an .mlir input
// OPT-FIFO-NEXT: rc=1
// Standard input is read with the same limit.
// RUN: sh -c "indexpool-opt - < /dev/zero 2>&1; echo rc=\$?" | FileCheck %s --check-prefix=OPT-STDIN
// OPT-STDIN: <stdin>: larger than the limit of 268435456 bytes (256 MiB) for an .mlir input
// OPT-STDIN-NEXT: rc=1

// .npy inputs: read piece by piece, as the header says (at most 2^30
// elements), so /dev/zero has a bad magic and an endless stream after a
// valid array is trailing data.
// RUN: indexpool-run %s --function=f --random-inputs=1 --output=@%t/x.npy
// RUN: sh -c "indexpool-run %s --function=f --input=@/dev/zero 2>&1; echo rc=\$?" | FileCheck %s --check-prefix=NPY-ZERO --implicit-check-not=error:
// NPY-ZERO: indexpool-run: error: input #0: /dev/zero: not a .npy file (bad magic)
// NPY-ZERO-NEXT: rc=1
// RUN: mkfifo %t/endless.npy
// RUN: sh -c "((cat %t/x.npy; cat /dev/zero) | timeout 60 dd of=%t/endless.npy 2>/dev/null &) ; indexpool-run %s --function=f --input=@%t/endless.npy 2>&1; echo rc=\$?" | FileCheck %s --check-prefix=NPY-FIFO --implicit-check-not=error:
// NPY-FIFO: indexpool-run: error: input #0: {{.*}}endless.npy: trailing data: shape [4, 8] of <f4 needs 128 bytes, the file has more
// NPY-FIFO-NEXT: rc=1
// RUN: sh -c "indexpool-launch %S/Inputs/launch/fake.json --input=@/dev/urandom --input=@/dev/zero --input=@/dev/zero 2>&1; echo rc=\$?" | FileCheck %s --check-prefix=LAUNCH-NPY --implicit-check-not=error:
// LAUNCH-NPY: indexpool-launch: error: input #0: /dev/urandom: not a .npy file (bad magic)
// LAUNCH-NPY-NEXT: rc=1

// Manifests (64 MiB at most) and their binaries (256 MiB at most).
// RUN: sh -c "indexpool-launch /dev/zero 2>&1; echo rc=\$?" | FileCheck %s --check-prefix=MANIFEST-ZERO --implicit-check-not=error:
// MANIFEST-ZERO: indexpool-launch: error: /dev/zero: larger than the limit of 67108864 bytes (64 MiB) for a manifest
// MANIFEST-ZERO-NEXT: rc=1
// RUN: sed 's|"expand.ptx"|"/dev/zero"|' %S/Inputs/launch/expand.json > %t/zero-binary.json
// RUN: sh -c "indexpool-launch %t/zero-binary.json --random-inputs=1 2>&1; echo rc=\$?" | FileCheck %s --check-prefix=BINARY-ZERO --implicit-check-not=error:
// BINARY-ZERO: indexpool-launch: error: the binary of {{.*}}zero-binary.json (binary.path "/dev/zero"): /dev/zero: larger than the limit of 268435456 bytes (256 MiB) for a kernel binary
// BINARY-ZERO-NEXT: rc=1
// RUN: sed 's|"expand.ptx"|"/tmp"|' %S/Inputs/launch/expand.json > %t/dir-binary.json
// RUN: not indexpool-launch %t/dir-binary.json --random-inputs=1 2>&1 | FileCheck %s --check-prefix=BINARY-DIR --implicit-check-not=error:
// BINARY-DIR: indexpool-launch: error: the binary of {{.*}}dir-binary.json (binary.path "/tmp"): /tmp: not a regular file (a directory)
// RUN: sh -c "yes '{' | indexpool-launch - 2>&1; echo rc=\$?" | FileCheck %s --check-prefix=MANIFEST-PIPE --implicit-check-not=error:
// MANIFEST-PIPE: indexpool-launch: error: <stdin>: larger than the limit of 67108864 bytes (64 MiB) for a manifest
// MANIFEST-PIPE-NEXT: rc=1
// Deep nesting: one line, not a stack overflow.
// RUN: head -c 100000 /dev/zero | tr '\0' '[' > %t/deep.json
// RUN: sh -c "indexpool-launch %t/deep.json 2>&1; echo rc=\$?" | FileCheck %s --check-prefix=MANIFEST-DEEP --implicit-check-not=error:
// MANIFEST-DEEP: indexpool-launch: error: {{.*}}deep.json:1:257: nesting deeper than 256 levels
// MANIFEST-DEEP-NEXT: rc=1

// The tuning database of --indexpool-configure (64 MiB at most; nesting is
// checked before llvm::json::parse, which recurses).
// RUN: not indexpool-opt %s --indexpool-configure="chip=sm_90 tuning-db=/dev/zero" 2>&1 | FileCheck %s --check-prefix=DB-ZERO
// DB-ZERO: error: tuning-db '/dev/zero': larger than the limit of 67108864 bytes (64 MiB) for a tuning database
// RUN: not indexpool-opt %s --indexpool-configure="chip=sm_90 tuning-db=%t/deep.json" 2>&1 | FileCheck %s --check-prefix=DB-DEEP
// DB-DEEP: error: tuning-db '{{.*}}deep.json': invalid JSON: 1:257: nesting deeper than 256 levels
// RUN: not indexpool-opt %s --indexpool-configure="chip=sm_90 tuning-db=%t" 2>&1 | FileCheck %s --check-prefix=DB-DIR
// DB-DIR: error: tuning-db '{{.*}}': cannot read: not a regular file (a directory)

func.func @f(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  return %x : tensor<4x8xf32>
}
