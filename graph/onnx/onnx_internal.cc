#include "graph/onnx/onnx_internal.h"

namespace amp::graph::onnx_import {

Status UnsupportedReport::to_status() const {
  // Enough to act on without flooding a terminal when a model repeats one problem.
  constexpr size_t kMaxIssues = 20;
  constexpr size_t kNodesNamed = 3;
  std::string msg;
  if (!ops_.empty()) {
    msg = "unsupported ops: ";
    bool first = true;
    for (const auto& [key, nodes] : ops_) {
      if (!first) msg += ", ";
      first = false;
      msg +=
          key + " x" + std::to_string(nodes.size()) + (nodes.size() > 1 ? " (nodes " : " (node ");
      for (size_t i = 0; i < nodes.size() && i < kNodesNamed; ++i)
        msg += (i ? ", '" : "'") + nodes[i] + "'";
      if (nodes.size() > kNodesNamed) msg += ", ...";
      msg += ")";
    }
  }
  if (!issues_.empty()) {
    if (!msg.empty()) msg += "; ";
    msg += "unsupported features: ";
    for (size_t i = 0; i < issues_.size() && i < kMaxIssues; ++i) {
      if (i > 0) msg += "; ";
      msg += issues_[i];
    }
    if (issues_.size() > kMaxIssues)
      msg += "; ... and " + std::to_string(issues_.size() - kMaxIssues) + " more";
  }
  return unsupported(msg);
}

std::string onnx_dtype_name(int32_t t) {
  // Spelled out rather than taken from onnx-ml.pb.h: libonnx 1.12 predates the
  // float8/int4 types that newer files carry, and the user should see their names.
  static const char* const kNames[] = {
      "UNDEFINED",      "FLOAT",    "UINT8",        "INT8",           "UINT16",
      "INT16",          "INT32",    "INT64",        "STRING",         "BOOL",
      "FLOAT16",        "DOUBLE",   "UINT32",       "UINT64",         "COMPLEX64",
      "COMPLEX128",     "BFLOAT16", "FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2",
      "FLOAT8E5M2FNUZ", "UINT4",    "INT4",         "FLOAT4E2M1",     "FLOAT8E8M0",
      "UINT2",          "INT2"};
  if (t >= 0 && static_cast<size_t>(t) < sizeof(kNames) / sizeof(kNames[0])) return kNames[t];
  return "type " + std::to_string(t);
}

}  // namespace amp::graph::onnx_import
