// export_onnx: an IR graph as an ONNX model, so that the models we build ourselves (the
// demo encoders of tools/demo) can be run by other runtimes side by side with ours
// (tools/bench/bench_vs_ort.py runs ONNX Runtime on them).
//
// The IR holds every op in its canonical form, the newest ONNX layout (graph/ir/graph.h:
// parameters that later opsets moved to inputs are inputs), so the model declares the
// ai.onnx opset max(18, the newest op_version of its nodes): 18 is where the last of those
// moves (Reduce* axes, Split's num_outputs) happened. Constants become initializers,
// symbolic dims dim_params. Not exported, with an error naming the node: control flow
// (bodies with captured inputs are ours, not ONNX's), attributes the load-time passes
// add (fused_*), and nodes whose op_version selects older semantics than that opset.
#pragma once

#include <string>

#include "graph/ir/graph.h"
#include "runtime/common/status.h"

namespace amp::graph {

// The serialized ModelProto.
Result<std::string> export_onnx(const Graph& g);
Status write_onnx_file(const Graph& g, const std::string& path);

}  // namespace amp::graph
