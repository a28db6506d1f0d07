// --indexpool-check-kernel-limits: a kernel whose static shared memory
// (workgroup attributions, 16-byte aligned, and the workgroup globals it
// reads) is beyond the 48 KiB a block has without the dynamic opt-in, or
// whose block (x * y * z) has more threads than the chip's, is refused at
// compile time, naming the kernel, the chip and the limit; a
// kernel at the limit passes; an unknown chip is an error listing the
// table's chips.
// RUN: indexpool-opt %s -split-input-file --indexpool-check-kernel-limits=chip=sm_90 -verify-diagnostics | FileCheck %s
// RUN: not indexpool-opt %s -split-input-file --indexpool-check-kernel-limits=chip=sm_75 2>&1 | FileCheck %s --check-prefix=CHIP

// CHIP: unknown chip 'sm_75'; known chips: sm_80,

// CHECK: gpu.func @at_limit
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @at_limit(%a: memref<4xf32>)
        workgroup(%s: memref<12284xf32, #gpu.address_space<workgroup>>,
                  %t: memref<3xf32, #gpu.address_space<workgroup>>)
        kernel attributes {known_block_size = array<i32: 1024, 1, 1>} {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    // expected-error @below {{kernel 'over' needs 49168 bytes of static shared memory per block on sm_90, beyond its limit of 49152: a launch would fail on the device}}
    gpu.func @over(%a: memref<4xf32>)
        workgroup(%s: memref<12288xf32, #gpu.address_space<workgroup>>,
                  %t: memref<1xi8, #gpu.address_space<workgroup>>)
        kernel {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    memref.global "private" @big : memref<8192xf32, #gpu.address_space<workgroup>>
    // expected-error @below {{kernel 'global' needs 65536 bytes of static shared memory per block on sm_90}}
    gpu.func @global(%a: memref<4xf32>)
        workgroup(%s: memref<8192xf32, #gpu.address_space<workgroup>>)
        kernel {
      %g = memref.get_global @big : memref<8192xf32, #gpu.address_space<workgroup>>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    // expected-error @below {{kernel 'wide' needs 2048 threads per block on sm_90, beyond its limit of 1024: a launch would fail on the device}}
    gpu.func @wide(%a: memref<4xf32>)
        kernel attributes {known_block_size = array<i32: 1024, 2, 1>} {
      gpu.return
    }
  }
}
