// Small helpers shared by the importer's files (not a public header).
//
//   NameTable names;                 // every value name in the graph being built
//   names.claim("x");                // false when "x" is taken
//   std::string n = names.fresh("conv1_axes");   // "conv1_axes", "conv1_axes_1", ...
//
//   UnsupportedReport report;        // collects, so one error lists everything
//   report.add_op("Loop (opset 13)");
//   report.add_issue("initializer 'w' has dtype STRING");
//   if (!report.empty()) return report.to_status();
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_set>
#include <vector>

#include "common/status.h"

namespace amp::graph::onnx_import {

// Unique names in O(1) per query; Graph::unique_value_name is linear and would make a
// big import quadratic.
class NameTable {
 public:
  bool contains(const std::string& name) const { return used_.count(name) != 0; }
  // Reserves `name`; false when it is already taken.
  bool claim(const std::string& name) { return used_.insert(name).second; }
  // Reserves and returns `base`, or `base_1`, `base_2`, ... when taken.
  std::string fresh(const std::string& base);

 private:
  std::unordered_set<std::string> used_;
};

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
