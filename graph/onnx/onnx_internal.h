// Small helpers shared by the importer's files (not a public header).
//
//   UnsupportedReport report;        // collects, so one error lists everything
//   report.add_op("Loop (opset 13)");
//   report.add_issue("initializer 'w' has dtype STRING");
//   if (!report.empty()) return report.to_status();
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/status.h"
#include "ir/name_table.h"  // NameTable: the importer's value and node names

namespace amp::graph::onnx_import {

// Everything in a model that is valid ONNX but not implemented here. The importer keeps
// going after the first one so that the user sees the whole list in one error.
class UnsupportedReport {
 public:
  // `key` is an op as the user should read it: "Loop (opset 13)", "com.ms::FusedConv".
  void add_op(const std::string& key) { ++ops_[key]; }
  // Anything else: a dtype, an attribute kind, a version-specific attribute value.
  void add_issue(const std::string& message) { issues_.push_back(message); }
  bool empty() const { return ops_.empty() && issues_.empty(); }
  // "unsupported ops: Loop (opset 13) x1, NonMaxSuppression (opset 13) x2; also: ..."
  Status to_status() const;

 private:
  std::map<std::string, int64_t> ops_;  // sorted by name: stable messages
  std::vector<std::string> issues_;
};

// ONNX TensorProto.DataType name ("FLOAT", "STRING", "FLOAT8E4M3FN", ...).
std::string onnx_dtype_name(int32_t onnx_type);

}  // namespace amp::graph::onnx_import
