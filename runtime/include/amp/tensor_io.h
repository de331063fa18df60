// Reading and writing tensors as ONNX TensorProto files (the input_N.pb / output_N.pb
// layout of ONNX test data), for tools and tests.
//
//   amp::Tensor x = amp::load_tensor_pb("test_data_set_0/input_0.pb");
//   amp::save_tensor_pb("out/output_0.pb", y, "output");
#pragma once

#include <string>

#include "amp/tensor.h"

namespace amp {

// Throws amp::Error (kNotFound, kInvalidModel, kUnsupported for dtypes AMPRT lacks).
Tensor load_tensor_pb(const std::string& path);
// `name` is stored in the proto's name field. Throws amp::Error on I/O failure.
void save_tensor_pb(const std::string& path, const Tensor& tensor, const std::string& name = "");

}  // namespace amp
