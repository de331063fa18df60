// The protocol-neutral form of one Open Inference Protocol (KServe v2) request, which both
// frontends (REST and gRPC) parse into and InferenceService runs, and the tensor checks
// they share.
//
// Every check that can be made against the model's inputs is made before the request is
// queued: a request that would fail inside a merged batch would fail its companions too.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "amp/engine.h"

namespace amp::serve {

struct RequestedOutput {
  std::string name;
  bool binary = false;  // REST: as binary data after the JSON header
};

struct InferRequest {
  std::string model;
  std::string id;  // echoed in the response
  std::vector<NamedTensor> inputs;
  std::vector<RequestedOutput> outputs;  // empty: every output of the model
  bool binary_outputs = false;           // REST "binary_data_output": when outputs is empty
  std::optional<int64_t> timeout_us;     // the request's "timeout" parameter
};

// The protocol's datatype names ("FP32", "INT64", "BF16", ...); nullopt for the ones AMPRT
// has no dtype for (BYTES, UINT16, UINT32, UINT64).
std::optional<DType> dtype_from_v2(std::string_view name);
std::string_view v2_datatype(DType t);
// Triton model configuration names ("TYPE_FP32", ...).
std::string_view triton_config_type(DType t);

// Elements of `shape`, refusing negative dims and counts past 2^40 (no request needs more,
// and a hostile shape must not reach an allocation or overflow). Throws ServeError.
int64_t checked_numel(const std::vector<int64_t>& shape, std::string_view what);

// What an input's description comes to once checked: its dtype, elements and bytes.
struct CheckedInput {
  DType dtype = DType::kUndefined;
  int64_t numel = 0;
  size_t bytes = 0;
};

// Checks one input tensor's description (both protocols send name, datatype, shape) against
// the model's: a supported datatype, known name, the model's dtype, rank, static dims,
// element count (checked_numel); with max_batch_size > 0 the first dim is the batch
// (1..max_batch_size). Throws ServeError (bad request) naming the problem.
CheckedInput check_input(const std::vector<TensorInfo>& model_inputs, const std::string& name,
                         std::string_view datatype, const std::vector<int64_t>& shape,
                         int max_batch_size);

// Checks the request as a whole: every model input given exactly once, requested outputs
// known and not repeated. Throws ServeError.
void check_request(const InferRequest& request, const std::vector<TensorInfo>& model_inputs,
                   const std::vector<TensorInfo>& model_outputs);

}  // namespace amp::serve
