// The static budget of the README's decode select (ESTIMATES, no GPU runs):
// examples/glm5_indexer.mlir's @select_tokens, compiled (indexpool-compile
// fuses it) for sm_80, sm_90 and sm_100, every kernel checked by
// bench/gpu/static_report.py --budget against the table of
// docs/performance.md ("Budget: the README's decode select"), the one place
// the budgets live: registers, occupancy and spills with ptxas alone (every
// machine), and where nvdisasm is, the score loop's SASS instructions per 16
// B of keys on sm_80 and sm_90 (nvdisasm 11.8 decodes nothing newer). A
// kernel over its budget, without a row, or a row without a kernel fails.
// RUN: rm -rf %t
// RUN: indexpool-compile %indexpool_src/examples/glm5_indexer.mlir --function=select_tokens --chip=sm_80 --emit=ptx -o %t/sm_80
// RUN: indexpool-compile %indexpool_src/examples/glm5_indexer.mlir --function=select_tokens --chip=sm_90 --emit=ptx -o %t/sm_90
// RUN: indexpool-compile %indexpool_src/examples/glm5_indexer.mlir --function=select_tokens --chip=sm_100 --emit=ptx -o %t/sm_100
// RUN: python3 %indexpool_src/bench/gpu/static_report.py --no-sass --budget=%indexpool_src/docs/performance.md %t | FileCheck %s --check-prefix=PTXAS
// RUN: %if nvdisasm %{ python3 %indexpool_src/bench/gpu/static_report.py --budget=%indexpool_src/docs/performance.md %t | FileCheck %s --check-prefix=SASS %}
// A planted table (Inputs/static-budget-planted.md) the code cannot meet:
// the check fails and names the kernel, the chip and the limit.
// RUN: not python3 %indexpool_src/bench/gpu/static_report.py --no-sass --budget=%S/Inputs/static-budget-planted.md %t | FileCheck %s --check-prefix=PLANTED
// RUN: %if nvdisasm %{ not python3 %indexpool_src/bench/gpu/static_report.py --budget=%S/Inputs/static-budget-planted.md %t | FileCheck %s --check-prefix=PLANTED-SASS %}

// PTXAS: Static budget: ESTIMATES from ptxas -v and the chip table
// PTXAS: | select_tokens_kernel_0 | sm_80 | {{[0-9]+}} ({{[0-9]+}}) | {{.*}} | not checked (--no-sass) ({{[0-9.]+}}) | not checked (--no-sass) ({{[0-9]+}}) | ok |
// PTXAS-NOT: OVER
// PTXAS: within budget: 21 kernels on sm_100, sm_80, sm_90

// SASS: Static budget: ESTIMATES from ptxas -v, nvdisasm and the chip table
// SASS: | select_tokens_kernel_0 | sm_80 | {{.*}} | {{[0-9]+\.[0-9]+}} ({{[0-9.]+}}) | {{[0-9]+}} ({{[0-9]+}}) | ok |
// SASS: | select_tokens_kernel_0 | sm_90 | {{.*}} | {{[0-9]+\.[0-9]+}} ({{[0-9.]+}}) | {{[0-9]+}} ({{[0-9]+}}) | ok |
// SASS-NOT: OVER
// SASS: within budget: 21 kernels on sm_100, sm_80, sm_90

// PLANTED: OVER BUDGET: select_tokens_kernel on sm_100: no budget row
// PLANTED: OVER BUDGET: select_tokens_kernel_0 on sm_100: occupancy 37.5% < 50% (3 blocks/SM, limited by registers)
// PLANTED: OVER BUDGET: select_tokens_kernel_0 on sm_90: registers {{[0-9]+}} > 32
// PLANTED: OVER BUDGET: select_tokens_kernel_9 on sm_90: a budget row ({{.*}}static-budget-planted.md:12) for a kernel the manifests of sm_90 do not launch
// PLANTED-SASS: OVER BUDGET: select_tokens_kernel_0 on sm_80: loop instructions per 16 B of stream {{[0-9.]+}} > 6.1
// PLANTED-SASS: OVER BUDGET: select_tokens_kernel_0 on sm_90: SASS instructions {{[0-9]+}} > 133
