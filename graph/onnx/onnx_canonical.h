// Canonical op forms (importer-internal): rewrites a node written against an older
// ai.onnx opset into the newest input layout, so downstream code sees one form per op.
// The rules, per op, are listed in graph/onnx/README.md.
//
//   CanonContext ctx{graph, names, used};
//   AMP_RETURN_IF_ERROR(canonicalize_node(node, ctx));  // node.op_version = model opset
#pragma once

#include <vector>

#include "graph/ir/graph.h"
#include "graph/onnx/onnx_internal.h"
#include "runtime/common/status.h"

namespace amp::graph::onnx_import {

struct CanonContext {
  Graph& graph;      // receives the constants made from moved attributes
  NameTable& names;  // value names in use
  // Per ValueId: read by some node or a graph output. BatchNormalization's training
  // outputs (opset < 14) may be dropped only when nothing reads them.
  const std::vector<bool>& used;
};

// Rewrites `node` in place (node.op_version is the model's opset). kUnsupported names
// the op, version and attribute for version-specific semantics not implemented;
// kInvalidModel for a node that breaks its own schema (e.g. a required attr missing).
Status canonicalize_node(Node& node, CanonContext& ctx);

}  // namespace amp::graph::onnx_import
