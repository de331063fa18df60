// The REST form of the Open Inference Protocol's infer messages: a JSON request, optionally
// followed by binary tensor data (the binary tensor data extension), and the response.
//
// Request: the body's first `Inference-Header-Content-Length` bytes (all of it without
// that header) are a JSON object
//   {"id": "...", "parameters": {"binary_data_output": true, "timeout": 5000},
//    "inputs": [{"name": "x", "datatype": "FP32", "shape": [1, 3],
//                "data": [1, 2, 3]                          // nested or flat, row-major
//                | "parameters": {"binary_data_size": 12}}], // bytes after the header
//    "outputs": [{"name": "y", "parameters": {"binary_data": true}}]}
// and the binary parts follow in input order, each exactly its tensor's bytes.
//
// Parsing is the server's exposure to hostile bytes (the libFuzzer target
// tests/fuzz/v2_request_fuzzer.cc drives it): every size is checked before it is used, the
// element count of a shape is checked against the bytes or values actually present before
// anything is allocated, and every refusal is a ServeError naming the field.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "amp/engine.h"
#include "tools/serve/infer_request.h"

namespace amp::serve {

// `header_length`: the Inference-Header-Content-Length header's value, if present.
// Checks every input against `model_inputs` (check_input) but not the request as a whole
// (check_request). Throws ServeError.
InferRequest parse_infer_request(std::string_view body, std::optional<size_t> header_length,
                                 const std::vector<TensorInfo>& model_inputs, int max_batch_size);

// Parses the Inference-Header-Content-Length header value (digits only). Throws ServeError.
size_t parse_header_length(std::string_view value);

struct EncodedResponse {
  std::string body;
  std::optional<size_t> header_length;  // set when binary data follows the JSON
};

// `outputs` in the order to report them; `binary[i]`: send outputs[i] as binary data.
EncodedResponse encode_infer_response(const std::string& model, const std::string& id,
                                      const std::vector<NamedTensor>& outputs,
                                      const std::vector<bool>& binary);

// {"error": message}, as Triton's REST errors read.
std::string error_json(const std::string& message);

}  // namespace amp::serve
