#include "amp/tensor_io.h"

#include <onnx/onnx_pb.h>

#include <fstream>
#include <sstream>

#include "graph/onnx/onnx_tensor.h"
#include "runtime/common/status.h"
#include "runtime/tensor_pb.h"

namespace amp {

namespace runtime {

Result<Tensor> read_tensor_pb(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return not_found("cannot open tensor file '" + path + "'");
  std::stringstream ss;
  ss << f.rdbuf();
  onnx::TensorProto proto;
  if (!proto.ParseFromString(ss.str())) return invalid_model("'" + path + "' is not a TensorProto");
  AMP_ASSIGN_OR_RETURN(graph::TensorData t, graph::onnx_import::decode_tensor(proto, path, {}));
  return Tensor::from_bytes(t.dtype(), t.dims(), t.bytes(), t.byte_size());
}

}  // namespace runtime

Tensor load_tensor_pb(const std::string& path) {
  return value_or_throw(runtime::read_tensor_pb(path));
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
