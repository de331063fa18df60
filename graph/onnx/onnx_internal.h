// Small helpers shared by the importer's files (not a public header).
//
//   UnsupportedReport report;        // collects, so one error lists everything
//   report.add_op("Loop (opset 13)", "loop_0");
//   report.add_issue("initializer 'w' has dtype STRING");
//   if (!report.empty()) return report.to_status();
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "graph/ir/name_table.h"  // NameTable: the importer's value and node names
#include "runtime/common/status.h"

namespace amp::graph::onnx_import {

// Everything in a model that is valid ONNX but not implemented here. The importer keeps
// going after the first one so that the user sees the whole list in one error.
class UnsupportedReport {
 public:
  // `key` is an op as the user should read it: "Loop (opset 13)", "com.ms::FusedConv";
  // `node` the name of a node that uses it (the first few are named in the error).
  void add_op(const std::string& key, const std::string& node) { ops_[key].push_back(node); }
  // Anything else: a dtype, an attribute kind, a version-specific attribute value.
  void add_issue(const std::string& message) { issues_.push_back(message); }
  bool empty() const { return ops_.empty() && issues_.empty(); }
  // "unsupported ops: Loop (opset 13) x1 (node 'l'), NonMaxSuppression (opset 13) x2
  // (nodes 'a', 'b'); unsupported features: ..."
  Status to_status() const;

 private:
  std::map<std::string, std::vector<std::string>> ops_;  // sorted by op: stable messages
  std::vector<std::string> issues_;
};

// ONNX TensorProto.DataType name ("FLOAT", "STRING", "FLOAT8E4M3FN", ...).
std::string onnx_dtype_name(int32_t onnx_type);

}  // namespace amp::graph::onnx_import
