// Bad files and settings: one error line each, exit code 1.
// RUN: rm -rf %t && mkdir -p %t
// RUN: /usr/bin/python3 -c "import numpy as np; np.save('%t/k.npy', np.ones((64, 8), np.float32)); np.save('%t/k64.npy', np.ones((64, 8))); np.save('%t/q9.npy', np.ones((64, 9), np.float32)); np.save('%t/k1.npy', np.ones(64, np.float32)); np.save('%t/b3.npy', np.zeros(3, np.float32)); np.save('%t/b4x9.npy', np.zeros((4, 9), np.float32))"
// RUN: not indexpool-fidelity --keys=@%t/missing.npy --queries=@%t/k.npy 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: indexpool-fidelity: error: --keys: {{.*}}missing.npy: cannot open
// RUN: not indexpool-fidelity --keys=@%t/k64.npy --queries=@%t/k.npy 2>&1 | FileCheck %s --check-prefix=DTYPE
// DTYPE: indexpool-fidelity: error: --keys: {{.*}}k64.npy holds <f8, expected float32 (<f4)
// RUN: not indexpool-fidelity --keys=@%t/k1.npy --queries=@%t/k1.npy 2>&1 | FileCheck %s --check-prefix=RANK
// RANK: indexpool-fidelity: error: --keys: expected a non-empty [T, D] array, got [64]
// RUN: not indexpool-fidelity --keys=@%t/k.npy --queries=@%t/q9.npy 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: indexpool-fidelity: error: --queries: expected the keys' shape [64, 8], got [64, 9]
// RUN: not indexpool-fidelity --keys=@%t/k.npy --queries=@%t/k.npy --last=65 --k=16 2>&1 | FileCheck %s --check-prefix=LAST
// LAST: indexpool-fidelity: error: --last=65 exceeds the 64 tokens
// RUN: not indexpool-fidelity --keys=@%t/k.npy --queries=@%t/k.npy --last=61 --k=16 2>&1 | FileCheck %s --check-prefix=EARLY
// EARLY: indexpool-fidelity: error: --last=61 reaches queries with no complete group before them (T - N must be at least the pool size 4)
// RUN: not indexpool-fidelity --keys=@%t/k.npy --queries=@%t/k.npy --k=18 2>&1 | FileCheck %s --check-prefix=KP
// KP: indexpool-fidelity: error: --k=18 must be a positive multiple of the pool size 4
// RUN: not indexpool-fidelity --keys=@%t/k.npy --queries=@%t/k.npy --k=68 2>&1 | FileCheck %s --check-prefix=KBIG
// KBIG: indexpool-fidelity: error: --k=68 exceeds the 64 tokens of complete groups
// RUN: not indexpool-fidelity --keys=@%t/k.npy --queries=@%t/k.npy --pool-size=6 2>&1 | FileCheck %s --check-prefix=POW2
// POW2: indexpool-fidelity: error: --pool-size=6 must be a power of two in [2, 64]
// RUN: not indexpool-fidelity --keys=@%t/k.npy --queries=@%t/k.npy --k=16 --bias=@%t/b3.npy 2>&1 | FileCheck %s --check-prefix=BIAS
// BIAS: indexpool-fidelity: error: --bias: expected [4] or [4, 8], got [3]
// RUN: not indexpool-fidelity --keys=@%t/k.npy --queries=@%t/k.npy --k=16 --bias=@%t/b4x9.npy 2>&1 | FileCheck %s --check-prefix=BIAS2
// BIAS2: indexpool-fidelity: error: --bias: expected [4] or [4, 8], got [4, 9]
// RUN: not indexpool-fidelity --keys=@%t/k.npy --queries=@%t/k.npy --k=16 --refine=8 2>&1 | FileCheck %s --check-prefix=REFINE
// REFINE: indexpool-fidelity: error: --refine=8 keeps 8 x 4 pools, more than the 16 complete groups
// RUN: not indexpool-fidelity --keys=@%t/k.npy --queries=@%t/k.npy --k=16 --refine=-1 2>&1 | FileCheck %s --check-prefix=REFINENEG
// REFINENEG: indexpool-fidelity: error: --refine=-1 must be positive (0: no refinement)
// RUN: not indexpool-fidelity --keys=@%t/k.npy --queries=@%t/k.npy --format=bf16 2>&1 | FileCheck %s --check-prefix=FORMAT
// FORMAT: indexpool-fidelity: error: --format: unknown pool format "bf16" (known: none, fp8, f8E4M3FN, i8, i4 or f4E2M1FN)

// The first-stage variants and the token tier (first-stage.mlir).
// RUN: /usr/bin/python3 -c "import numpy as np; np.save('%t/g9.npy', np.ones(9, np.float32))"
// RUN: not indexpool-fidelity --keys=@%t/k.npy --queries=@%t/k.npy --k=16 --first-stage=max 2>&1 | FileCheck %s --check-prefix=STAGE
// STAGE: indexpool-fidelity: error: --first-stage=max: expected mean or max-aware
// RUN: not indexpool-fidelity --keys=@%t/k.npy --queries=@%t/k.npy --k=16 --first-stage=max-aware --bound-weight=-0.5 2>&1 | FileCheck %s --check-prefix=WEIGHT
// WEIGHT: indexpool-fidelity: error: --bound-weight=-0.5 must be a finite non-negative number
// RUN: not indexpool-fidelity --keys=@%t/k.npy --queries=@%t/k.npy --k=16 --bound-weight=0.5 2>&1 | FileCheck %s --check-prefix=WEIGHTMEAN
// WEIGHTMEAN: indexpool-fidelity: error: --bound-weight needs --first-stage=max-aware
// RUN: not indexpool-fidelity --keys=@%t/k.npy --queries=@%t/k.npy --k=16 --gate=@%t/g9.npy 2>&1 | FileCheck %s --check-prefix=GATESHAPE
// GATESHAPE: indexpool-fidelity: error: --gate: expected [8], got [9]
// RUN: not indexpool-fidelity --keys=@%t/k.npy --queries=@%t/k.npy --k=16 --gate=@%t/k.npy 2>&1 | FileCheck %s --check-prefix=GATERANK
// GATERANK: indexpool-fidelity: error: --gate: expected [8], got [64, 8]
// RUN: not indexpool-fidelity --keys=@%t/k.npy --queries=@%t/k.npy --k=16 --gate=@%t/g9.npy --score=norm 2>&1 | FileCheck %s --check-prefix=GATENORM
// GATENORM: indexpool-fidelity: error: --gate replaces the pooling scores: it cannot be combined with --score=norm
// RUN: not indexpool-fidelity --keys=@%t/k.npy --queries=@%t/k.npy --k=16 --refine=2 --refine-keys=token-bf16 2>&1 | FileCheck %s --check-prefix=TIER
// TIER: indexpool-fidelity: error: --refine-keys=token-bf16: expected exact, i8, fp8, token-fp8 or token-i8
// RUN: not indexpool-calibrate --keys=@%t/k.npy --queries=@%t/k.npy --k=16 --train=32 --held-out=16 -o %t/b.npy --gate=mean-query 2>&1 | FileCheck %s --check-prefix=GATEOUT
// GATEOUT: indexpool-calibrate: error: --gate needs --gate-output=FILE.npy
// RUN: not indexpool-calibrate --keys=@%t/k.npy --queries=@%t/k.npy --k=16 --train=32 --held-out=16 -o %t/b.npy --gate-output=%t/g.npy 2>&1 | FileCheck %s --check-prefix=GATEIN
// GATEIN: indexpool-calibrate: error: --gate-output needs --gate
// RUN: not indexpool-calibrate --keys=@%t/k.npy --queries=@%t/k.npy --k=16 --train=32 --held-out=16 -o %t/b.npy --gate=channel --gate-output=%t/g.npy --score=norm 2>&1 | FileCheck %s --check-prefix=CALNORM
// CALNORM: indexpool-calibrate: error: --gate replaces the pooling scores: it cannot be combined with --score=norm
// RUN: not indexpool-calibrate --keys=@%t/k.npy --queries=@%t/k.npy -o %t/b.npy --gate=query --gate-output=%t/g.npy 2>&1 | FileCheck %s --check-prefix=GATEKIND
// GATEKIND: indexpool-calibrate: error: --gate=query: expected none, mean-query or channel
