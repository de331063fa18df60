// Reading an ONNX TensorProto file (the test-data layout's input_N.pb) inside the library,
// as a Result; amp::load_tensor_pb (amp/tensor_io.h) is the throwing public form.
#pragma once

#include <string>

#include "amp/tensor.h"
#include "runtime/common/status.h"

namespace amp::runtime {

Result<Tensor> read_tensor_pb(const std::string& path);

}  // namespace amp::runtime
