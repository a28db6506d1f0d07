//===- InputShape.h - "--input-shape=I:AxBxC" -------------------*- C++ -*-===//
//
// The command-line syntax that gives an input's shape when inputs are drawn
// at random (indexpool-run and indexpool-launch): "I:AxBxC", input I has
// shape AxBxC. MLIR-free, so that the runtime's tools share it.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_RUNTIME_INPUTSHAPE_H
#define INDEXPOOL_RUNTIME_INPUTSHAPE_H

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace indexpool::runtime {

/// Parses `text` ("I:AxBxC") into `shapes` (index -> shape), for a function
/// of `count` inputs that messages call `noun`s ("input", "argument"). On a
/// mistake returns false with `error` one line naming --input-shape, e.g.
/// "--input-shape=0:8xq: 'q' is not a size".
bool parseInputShape(std::string_view text, size_t count,
                     std::map<size_t, std::vector<int64_t>> &shapes,
                     std::string &error, const char *noun = "input");

} // namespace indexpool::runtime

#endif // INDEXPOOL_RUNTIME_INPUTSHAPE_H
