// ONNX -> graph IR importer.
//
//   ImportOptions opts;
//   opts.input_shapes["data"] = {1, 3, 224, 224};   // fixes the symbolic batch dim
//   AMP_ASSIGN_OR_RETURN(Graph g, import_onnx_file("model.onnx", opts));
//   AMP_RETURN_IF_ERROR(infer_shapes(g));          // ops/shape_inference.h
//
// What the importer guarantees about the result (see graph/onnx/README.md):
//   - it passes verify_graph (topological order, one producer per value, unique names);
//   - every node is in its canonical (newest-opset) input layout, with
//     Node::op_version = the model's ai.onnx opset;
//   - initializers and Constant nodes are constant Values; graph inputs are only the
//     true run-time inputs;
//   - graph inputs/outputs carry the dtype and shape of the file's ValueInfo (symbolic
//     dims keep their names); node outputs carry value_info hints where present.
//
// Errors: kInvalidModel for malformed files (bad protobuf, size mismatches, undefined
// or twice-defined values, cycles, hostile external-data paths); kUnsupported for valid
// ONNX that AMPRT does not implement - one error listing every unsupported op, dtype and
// attribute of the model at once; kInvalidArgument for bad options; kNotFound for files
// that cannot be opened. Never crashes on hostile input.
//
// Lifetime: the returned Graph owns its weights (bytes taken over from the parsed
// protobuf or read from external-data files); nothing refers back to the input buffer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "graph/ir/graph.h"
#include "runtime/common/status.h"

namespace amp::graph {

struct ImportOptions {
  // Fixes symbolic/any dims of graph inputs: name -> dims (from `--shape name=1x3x224x224`).
  // The symbol names replaced this way are fixed in every value of the graph.
  std::map<std::string, std::vector<int64_t>> input_shapes;
  // Directory for external-data tensors; defaults to the model file's directory
  // (import_onnx_bytes has no default: a model with external data then fails).
  std::string external_data_dir;
};

Result<Graph> import_onnx_file(const std::string& path, const ImportOptions& opts = {});
Result<Graph> import_onnx_bytes(const void* data, size_t size, const ImportOptions& opts = {});

// The op an ONNX op_type of the default domain imports as: its row in the op table, or the
// op a retired ONNX op is rewritten to (Upsample -> Resize); nullopt when unsupported.
std::optional<OpType> onnx_op_type(const std::string& op_type);

// Parses "data=1x3x224x224" into ("data", {1, 3, 224, 224}). The name is everything
// before the last '='; "name=" is a scalar. Errors are kInvalidArgument.
Result<std::pair<std::string, std::vector<int64_t>>> parse_shape_arg(const std::string& arg);

}  // namespace amp::graph
