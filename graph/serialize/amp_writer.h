// Writes a Graph as an .amp model file (format: serialize/amp_format.h, schema:
// schema/model.fbs).
//
//   Graph g = ...;
//   AMP_RETURN_IF_ERROR(write_amp_file(g, "model.amp"));        // atomic replace
//   AMP_ASSIGN_OR_RETURN(std::vector<uint8_t> image, write_amp_bytes(g));
//
// File layout: [uint32 L][FlatBuffer, L bytes, identifier "AMP1"][zero padding to 256]
// [weight blobs, each at a 256-byte aligned file offset]. Weights are out of line, so
// files may exceed 2 GB and the reader can mmap them. Constants that share storage
// (TensorData copies of one buffer, e.g. tied embeddings) are written once.
//
// Before writing anything the graph is checked, so a file this writer produces is one the
// reader (amp_reader.h) accepts, and reads back as an equal Graph (Graph::operator==):
//   1. graph::verify_graph (ir/verifier.h);
//   2. every dtype is an amp::DType value; ranks <= kAmpMaxRank; dims are >= 0 or -1.
// Failures are kInvalidModel naming the value or node. I/O failures are kNotFound
// naming the path and the OS error (there is no dedicated I/O code).
//
// write_amp_file writes "<path>.tmp.<pid>.<n>", fsyncs, then renames over `path`, so a
// reader never sees a half-written file and a model that is mmapped elsewhere keeps its
// old inode. The FlatBuffer part (names, shapes, attributes) must stay under
// FlatBuffers' 2 GB limit; only weights may be larger.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph/ir/graph.h"
#include "runtime/common/status.h"

namespace amp::graph {

Status write_amp_file(const Graph& g, const std::string& path);
// The whole file image in memory.
Result<std::vector<uint8_t>> write_amp_bytes(const Graph& g);

}  // namespace amp::graph
