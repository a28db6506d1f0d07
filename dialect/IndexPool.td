//===- IndexPool.td - the whole indexpool dialect ---------*- tablegen -*-===//
//
// Ops and attributes together, for the generated reference
// (docs/IndexPoolOps.md); the C++ is generated from each file alone.
//
//===----------------------------------------------------------------------===//

#ifndef INDEXPOOL_TD
#define INDEXPOOL_TD

include "IndexPoolOps.td"
include "IndexPoolAttrs.td"

#endif // INDEXPOOL_TD
