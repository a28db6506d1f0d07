//===- Version.h - the version of the IndexPool runtime ---------*- C++ -*-===//
#ifndef INDEXPOOL_RUNTIME_VERSION_H
#define INDEXPOOL_RUNTIME_VERSION_H

namespace indexpool::runtime {
/// "MAJOR.MINOR.PATCH" of the project (CMake's project version).
const char *version();
} // namespace indexpool::runtime

#endif // INDEXPOOL_RUNTIME_VERSION_H
