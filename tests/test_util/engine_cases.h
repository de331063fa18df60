// Running ONNX test folders (model.onnx + test_data_set_0) through the public Engine API,
// shared by the CPU conformance tests and the CUDA engine tests.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "amp/engine.h"
#include "graph/ir/tensor_data.h"

namespace amp::test {

Tensor to_tensor(const graph::TensorData& t);
graph::TensorData to_data(const Tensor& t);

// Loads <dir>/model.onnx with `opt`, runs test_data_set_0's inputs and compares every
// output with rtol/atol (compare_tensors). "" on pass, else the reason (errors included).
std::string run_case(const std::filesystem::path& dir, const Options& opt, double rtol,
                     double atol);

// Cosine similarity, max |a - e| and max |a - e| / max(|e|, 1e-3) of two float tensors.
struct Agreement {
  double cosine = 0, max_abs = 0, max_rel = 0, scale = 0;
  bool argmax_same = true;  // per row, for [N, C] outputs with C > 1
};
// An all-zero tensor against a non-zero one has cosine 0 (as amprun's verdict says).
Agreement agreement(const graph::TensorData& expected, const Tensor& actual);
// agreement(...).cosine of two engine outputs.
double cosine(const Tensor& expected, const Tensor& actual);

}  // namespace amp::test
