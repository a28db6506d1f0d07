// Malformed or invalid IR and missing files end with a diagnostic and exit
// code 1: never a crash, an assertion or a silent success.
// RUN: not indexpool-opt %S/Inputs/malformed.mlir 2>&1 | FileCheck %s --check-prefix=SYNTAX
// RUN: sh -c "indexpool-opt %S/Inputs/malformed.mlir > /dev/null 2>&1; echo rc=\$?" | FileCheck %s --check-prefix=RC
// RUN: not indexpool-opt %S/Inputs/invalid-topk.mlir 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: sh -c "indexpool-opt %S/Inputs/invalid-topk.mlir > /dev/null 2>&1; echo rc=\$?" | FileCheck %s --check-prefix=RC
// RUN: not indexpool-opt %S/Inputs/unknown-op.mlir 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not indexpool-opt %S/Inputs/missing-property.mlir 2>&1 | FileCheck %s --check-prefix=PROP
// RUN: not indexpool-opt %S/Inputs/does-not-exist.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// indexpool-compile: the error and its source line, not the op printed after.
// RUN: not indexpool-compile %S/Inputs/invalid-topk.mlir --chip=sm_90 -o %t 2>&1 | FileCheck %s --check-prefix=VERIFY --implicit-check-not=note:
// RUN: sh -c "indexpool-opt %S/Inputs/does-not-exist.mlir > /dev/null 2>&1; echo rc=\$?" | FileCheck %s --check-prefix=RC

// SYNTAX: malformed.mlir:3:{{[0-9]+}}: error: expected ')'
// VERIFY: invalid-topk.mlir:2:{{[0-9]+}}: error: 'indexpool.topk' op k must be at most N = 8 (the number of columns), got 9
// UNKNOWN: unknown-op.mlir:2:{{[0-9]+}}: error: custom op 'indexpool.pools' is unknown
// PROP: missing-property.mlir:2:{{[0-9]+}}: error: 'indexpool.expand' op requires attribute 'pool_size'
// RC: rc=1
// MISSING: cannot open input file '{{.*}}does-not-exist.mlir': No such file or directory
