//===- CacheBindings.h - indexpool.Cache in _indexpool ----------*- C++ -*-===//
#ifndef INDEXPOOL_PYTHON_CACHEBINDINGS_H
#define INDEXPOOL_PYTHON_CACHEBINDINGS_H

#include <pybind11/pybind11.h>

namespace indexpool::python {

/// Adds Cache (lib/Cache's PagedCache on the CPU kernels, with snapshots).
void bindCache(pybind11::module &m);

} // namespace indexpool::python

#endif // INDEXPOOL_PYTHON_CACHEBINDINGS_H
