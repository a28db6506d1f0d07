//===- Version.cpp - the version of the IndexPool runtime -----------------===//

#include "indexpool/Runtime/Version.h"

#ifndef INDEXPOOL_VERSION
#error "INDEXPOOL_VERSION must be set by CMake"
#endif

const char *indexpool::runtime::version() { return INDEXPOOL_VERSION; }
