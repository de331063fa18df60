// Decoding ONNX TensorProtos and AttributeProtos into the IR (importer-internal).
//
//   TensorSource src{"/models/llama"};           // where external data lives
//   AMP_ASSIGN_OR_RETURN(TensorData t, decode_tensor(proto, "initializer 'w'", src));
//
// decode_tensor takes the proto by non-const reference because it steals raw_data
// (no copy of multi-GB weights); the proto must not be read for its data afterwards.
#pragma once

#include <string>

#include <onnx/onnx_pb.h>

#include "graph/ir/attribute.h"
#include "graph/ir/tensor_data.h"
#include "runtime/common/status.h"

namespace amp::graph::onnx_import {

struct TensorSource {
  // Directory that external-data locations are relative to; empty: external data is
  // an error (import from bytes without ImportOptions::external_data_dir).
  std::string external_dir;
};

// Decodes raw_data, the typed fields (float_data, int32_data, int64_data, double_data)
// or external data. `label` names the tensor in errors ("initializer 'w'").
// kUnsupported for dtypes outside amp::DType and segmented tensors; kInvalidModel for
// negative dims, a byte size that does not match dtype x shape, hostile or
// out-of-range external references.
Result<TensorData> decode_tensor(onnx::TensorProto& t, const std::string& label,
                                 const TensorSource& src);

// Converts one attribute (INT, FLOAT, STRING, INTS, FLOATS, STRINGS, TENSOR) into `out`.
// kUnsupported for GRAPH(S), SPARSE_TENSOR(S), TYPE_PROTO(S).
Status convert_attribute(onnx::AttributeProto& a, const std::string& label, const TensorSource& src,
                         Attributes& out);

}  // namespace amp::graph::onnx_import
