// What the GraphDef fuzz targets do with a parsed graph: everything weft
// does with an untrusted graph file before a session is made, so that a
// file that parses but crashes a later stage is found too.
#ifndef WEFT_FUZZ_GRAPH_PIPELINE_H_
#define WEFT_FUZZ_GRAPH_PIPELINE_H_

#include "graph/graph_def.h"

namespace weft::fuzz {

// Imports `def` (every node checked against its registered op), infers
// shapes, runs the import diagnosis that goes on past problems, and
// serializes the graph in both formats. Errors are the expected outcome
// for most inputs; only crashes, sanitizer reports and broken invariants
// (a serialized graph that does not parse back) are findings, the last
// reported by abort().
void RunGraphPipeline(const GraphDef& def);

}  // namespace weft::fuzz

#endif  // WEFT_FUZZ_GRAPH_PIPELINE_H_
