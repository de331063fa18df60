#include "tests/fuzz/v2_request_pipeline.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tools/serve/serve_error.h"
#include "tools/serve/v2_json_codec.h"

namespace amp::fuzz {
namespace {

const std::vector<TensorInfo>& model_inputs() {
  static const std::vector<TensorInfo> inputs = {
      {"x", DType::kF32, {-1, 2}, {"N", ""}},   {"ids", DType::kI64, {-1, 3}, {"N", ""}},
      {"h", DType::kF16, {-1, -1}, {"N", "S"}}, {"mask", DType::kBool, {-1, 4}, {"N", ""}},
      {"u", DType::kU8, {-1, 2}, {"N", ""}},
  };
  return inputs;
}

}  // namespace

bool run_v2_request(const uint8_t* data, size_t size) {
  if (size < 1) return false;
  const uint8_t mode = data[0];
  std::string body(reinterpret_cast<const char*>(data + 1), size - 1);
  std::optional<size_t> header_length;
  if (mode == 0xff) {
    header_length = body.size() + 1;
  } else if (mode & 1) {
    const size_t newline = body.find('\n');
    header_length = newline == std::string::npos ? body.size() : newline;
    if (newline != std::string::npos) body.erase(newline, 1);
  }
  try {
    const serve::InferRequest r =
        serve::parse_infer_request(body, header_length, model_inputs(), 8);
    std::vector<bool> binary;
    for (size_t i = 0; i < r.inputs.size(); ++i) binary.push_back(i % 2 == 0);
    const serve::EncodedResponse e = serve::encode_infer_response("m", r.id, r.inputs, binary);
    const size_t json_size = e.header_length.value_or(e.body.size());
    if (nlohmann::json::parse(e.body.substr(0, json_size), nullptr, false).is_discarded())
      __builtin_trap();  // the encoder wrote invalid JSON
    return true;
  } catch (const serve::ServeError&) {
    return false;  // a refusal naming the problem: the expected outcome for most inputs
  }
}

}  // namespace amp::fuzz
