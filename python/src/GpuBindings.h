//===- GpuBindings.h - GPU devices and functions in _indexpool --*- C++ -*-===//
#ifndef INDEXPOOL_PYTHON_GPUBINDINGS_H
#define INDEXPOOL_PYTHON_GPUBINDINGS_H

#include <pybind11/pybind11.h>

namespace indexpool::python {

/// Adds GpuDevice and GpuFunction (the MLIR-free runtime) to `m`.
void bindGpu(pybind11::module &m);

} // namespace indexpool::python

#endif // INDEXPOOL_PYTHON_GPUBINDINGS_H
