#include "amp/tensor_io.h"

#include <onnx/onnx_pb.h>

#include <fstream>
#include <sstream>

#include "graph/onnx/onnx_tensor.h"
#include "runtime/common/status.h"

namespace amp {

Tensor load_tensor_pb(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw Error(ErrorCode::kNotFound, "cannot open tensor file '" + path + "'");
  std::stringstream ss;
  ss << f.rdbuf();
  onnx::TensorProto proto;
  if (!proto.ParseFromString(ss.str()))
    throw Error(ErrorCode::kInvalidModel, "'" + path + "' is not a TensorProto");
  graph::TensorData t = value_or_throw(graph::onnx_import::decode_tensor(proto, path, {}));
  return Tensor::from_bytes(t.dtype(), t.dims(), t.bytes(), t.byte_size());
}

void save_tensor_pb(const std::string& path, const Tensor& tensor, const std::string& name) {
  onnx::TensorProto proto;
  proto.set_name(name);
  proto.set_data_type(static_cast<int32_t>(tensor.dtype()));  // DType values are ONNX codes
  for (int64_t d : tensor.shape()) proto.add_dims(d);
  proto.set_raw_data(tensor.raw_data(), tensor.byte_size());
  std::ofstream f(path, std::ios::binary);
  if (!f || !proto.SerializeToOstream(&f))
    throw Error(ErrorCode::kNotFound, "cannot write tensor file '" + path + "'");
}

}  // namespace amp
