// Reads an .amp model file into a Graph, verifying everything before trusting it.
//
//   AMP_ASSIGN_OR_RETURN(Graph g, read_amp_file("model.amp"));   // mmap, zero-copy
//   auto bytes = std::make_shared<const std::vector<uint8_t>>(std::move(image));
//   AMP_ASSIGN_OR_RETURN(Graph g2, read_amp_bytes(bytes));        // views into `bytes`
//
// Lifetime: constants are TensorData::view()s into the mapping (or the byte vector); each
// holds a shared_ptr to it, so the mapping lives until the last constant referring to it
// is gone, whatever happens to the Graph. ReadOptions::use_mmap = false reads the file
// into a heap buffer instead (for filesystems without mmap). Weights are 256-byte aligned
// in memory when read from a file (either way); read_amp_bytes gives them 256-byte
// alignment relative to bytes->data(), which std::vector only aligns to 16.
//
// File layout: [uint32 L][FlatBuffer, L bytes, identifier "AMP1" at [8,12)][zero padding]
// [weight blobs, each at a 256-byte aligned file offset] (serialize/amp_format.h).
//
// Verification, in order; the first failure is returned. Codes: kNotFound for a file
// that cannot be opened or mapped, kUnsupported for a newer schema version, an unknown
// attribute kind or an unknown op, kOutOfMemory for the cap below, kInvalidModel for
// everything else. Messages name the
// value or node by name and index.
//   1. the file holds at least kAmpMinFileSize (12) bytes;
//   2. the identifier at [8, 12) is "AMP1";
//   3. the size prefix L fits the file (4 + L <= file size) and FlatBuffers' 2 GB limit;
//   4. the root table alone verifies and Model.schema_version is 1..kAmpSchemaVersion
//      (0 = missing: kInvalidModel; newer: kUnsupported);
//   5. flatbuffers::Verifier over [0, 4 + L) (max depth 16 + 5 per subgraph level allowed,
//      i.e. 181; max tables L/4 + 1024, which a buffer without shared subtables never reaches);
//   6. per value: dtype is an amp::DType; has_shape => rank <= 64 and dims >= 0 or -1;
//      weight => dtype defined, rank <= 64, offset and size inside the file after the
//      FlatBuffer (overflow-safe), offset 256-aligned, size == numel(dims) x dtype size
//      (checked_numel, overflow-safe);
//   7. per node: op name known (op_from_name), input/output indices in range or -1;
//      attributes named uniquely, kind known, tensor attributes with a defined dtype,
//      rank <= 64 and bytes == numel x dtype size;
//   8. graph inputs/outputs are in range (never -1); steps 6-8 again for every subgraph
//      attribute (If/Loop/Scan bodies), nested at most kMaxSubgraphDepth (32) levels;
//   9. graph::verify_graph: unique names, one definition per value, topological order
//      (so no cycles), constants agree with their declared dtype/shape.
// Materializing is capped at 16 x L + 64 MiB of memory (kOutOfMemory beyond), so a small
// file whose FlatBuffer reuses one subtable many times (legal for the Verifier) cannot
// demand absurd allocations. Not defended: the time such a file spends in the Verifier (at
// most max-tables x L), and SIGBUS if the file is truncated while mapped.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "graph/ir/graph.h"
#include "graph/serialize/mapped_file.h"
#include "runtime/common/status.h"

namespace amp::graph {

struct ReadOptions {
  bool use_mmap = true;
};

Result<Graph> read_amp_file(const std::string& path, const ReadOptions& options = {});
// The same over a file the caller mapped (and may keep, to drop pages no kernel reads:
// runtime/weight_pages.h). `path` names the file in errors.
Result<Graph> read_amp_mapped(std::shared_ptr<const MappedFile> file, const std::string& path);
// Constants view into `bytes`, which they keep alive.
Result<Graph> read_amp_bytes(std::shared_ptr<const std::vector<uint8_t>> bytes);

}  // namespace amp::graph
