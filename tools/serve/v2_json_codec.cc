#include "tools/serve/v2_json_codec.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>

#include "runtime/common/half.h"
#include "tools/serve/serve_error.h"

namespace amp::serve {
namespace {

using json = nlohmann::json;

// Deeper nesting than any tensor's rank is hostile, not data.
constexpr int kMaxDataDepth = 32;

[[noreturn]] void bad(const std::string& message) {
  throw ServeError(ServeStatus::kBadRequest, message);
}

const json* member(const json& object, const char* key) {
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

const std::string& string_member(const json& object, const char* key, const std::string& where) {
  const json* v = member(object, key);
  if (!v) bad(where + ": missing \"" + key + "\"");
  if (!v->is_string()) bad(where + ": \"" + key + "\" must be a string");
  return v->get_ref<const std::string&>();
}

// The "parameters" object of `object`, or null.
const json* parameters(const json& object, const std::string& where) {
  const json* p = member(object, "parameters");
  if (p && !p->is_object()) bad(where + ": \"parameters\" must be an object");
  return p;
}

std::vector<int64_t> parse_shape(const json& input, const std::string& where) {
  const json* s = member(input, "shape");
  if (!s) bad(where + ": missing \"shape\"");
  if (!s->is_array()) bad(where + ": \"shape\" must be an array of integers");
  std::vector<int64_t> shape;
  for (const json& d : *s) {
    if (!d.is_number_integer()) bad(where + ": \"shape\" must be an array of integers");
    if (d.is_number_unsigned() && d.get<uint64_t>() > uint64_t{1} << 40)
      bad(where + ": shape dim " + d.dump() + " is too large");
    shape.push_back(d.get<int64_t>());
  }
  return shape;
}

// Appends the leaves of a nested "data" array, row-major.
void flatten(const json& v, int depth, std::vector<const json*>& leaves, int64_t limit,
             const std::string& where) {
  if (!v.is_array()) {
    if (static_cast<int64_t>(leaves.size()) >= limit)
      bad(where + ": \"data\" holds more elements than its shape");
    leaves.push_back(&v);
    return;
  }
  if (depth >= kMaxDataDepth) bad(where + ": \"data\" is nested too deeply");
  for (const json& e : v) flatten(e, depth + 1, leaves, limit, where);
}

template <typename T>
void store_integers(const std::vector<const json*>& leaves, void* dst, const std::string& where) {
  T* out = static_cast<T*>(dst);
  for (size_t i = 0; i < leaves.size(); ++i) {
    const json& v = *leaves[i];
    bool fits = false;
    if (v.is_number_unsigned()) {
      fits = v.get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<T>::max());
    } else if (v.is_number_integer()) {
      const int64_t x = v.get<int64_t>();
      fits = x >= static_cast<int64_t>(std::numeric_limits<T>::min()) &&
             (x < 0 ||
              static_cast<uint64_t>(x) <= static_cast<uint64_t>(std::numeric_limits<T>::max()));
    } else {
      bad(where + ": element " + std::to_string(i) + " (" + v.dump().substr(0, 32) +
          ") is not an integer");
    }
    if (!fits)
      bad(where + ": element " + std::to_string(i) + " (" + v.dump() + ") is out of range");
    out[i] = static_cast<T>(v.get<int64_t>());
  }
}

std::vector<float> floats_of(const std::vector<const json*>& leaves, const std::string& where) {
  std::vector<float> f(leaves.size());
  for (size_t i = 0; i < leaves.size(); ++i) {
    if (!leaves[i]->is_number())
      bad(where + ": element " + std::to_string(i) + " (" + leaves[i]->dump().substr(0, 32) +
          ") is not a number");
    f[i] = static_cast<float>(leaves[i]->get<double>());
  }
  return f;
}

Tensor tensor_from_json_data(const json& data, DType dtype, const std::vector<int64_t>& shape,
                             int64_t numel, const std::string& where) {
  std::vector<const json*> leaves;
  flatten(data, 0, leaves, numel, where);
  if (static_cast<int64_t>(leaves.size()) != numel)
    bad(where + ": \"data\" holds " + std::to_string(leaves.size()) +
        " elements, its shape needs " + std::to_string(numel));
  Tensor t = Tensor::empty(dtype, shape);
  void* dst = t.raw_data();
  switch (dtype) {
    case DType::kBool: {
      auto* out = static_cast<bool*>(dst);
      for (size_t i = 0; i < leaves.size(); ++i) {
        if (!leaves[i]->is_boolean())
          bad(where + ": element " + std::to_string(i) + " is not a boolean");
        out[i] = leaves[i]->get<bool>();
      }
      break;
    }
    case DType::kU8:
      store_integers<uint8_t>(leaves, dst, where);
      break;
    case DType::kI8:
      store_integers<int8_t>(leaves, dst, where);
      break;
    case DType::kI16:
      store_integers<int16_t>(leaves, dst, where);
      break;
    case DType::kI32:
      store_integers<int32_t>(leaves, dst, where);
      break;
    case DType::kI64:
      store_integers<int64_t>(leaves, dst, where);
      break;
    case DType::kF64: {
      auto* out = static_cast<double*>(dst);
      for (size_t i = 0; i < leaves.size(); ++i) {
        if (!leaves[i]->is_number())
          bad(where + ": element " + std::to_string(i) + " is not a number");
        out[i] = leaves[i]->get<double>();
      }
      break;
    }
    case DType::kF32: {
      const std::vector<float> f = floats_of(leaves, where);
      if (!f.empty()) std::memcpy(dst, f.data(), f.size() * sizeof(float));
      break;
    }
    case DType::kF16:
      convert_f32_to_f16(floats_of(leaves, where).data(), static_cast<uint16_t*>(dst),
                         leaves.size());
      break;
    case DType::kBF16:
      convert_f32_to_bf16(floats_of(leaves, where).data(), static_cast<uint16_t*>(dst),
                          leaves.size());
      break;
    case DType::kUndefined:
      bad(where + ": undefined datatype");
  }
  return t;
}

json json_data(const Tensor& t) {
  json a = json::array();
  const int64_t n = t.numel();
  switch (t.dtype()) {
    case DType::kBool:
      for (int64_t i = 0; i < n; ++i) a.push_back(t.data<bool>()[i]);
      break;
    case DType::kU8:
      for (int64_t i = 0; i < n; ++i) a.push_back(t.data<uint8_t>()[i]);
      break;
    case DType::kI8:
      for (int64_t i = 0; i < n; ++i) a.push_back(t.data<int8_t>()[i]);
      break;
    case DType::kI16:
      for (int64_t i = 0; i < n; ++i) a.push_back(t.data<int16_t>()[i]);
      break;
    case DType::kI32:
      for (int64_t i = 0; i < n; ++i) a.push_back(t.data<int32_t>()[i]);
      break;
    case DType::kI64:
      for (int64_t i = 0; i < n; ++i) a.push_back(t.data<int64_t>()[i]);
      break;
    case DType::kF64:
      for (int64_t i = 0; i < n; ++i) a.push_back(t.data<double>()[i]);
      break;
    default:  // f32, f16, bf16: through float, exactly
      for (float v : t.to_float_vector()) a.push_back(v);
      break;
  }
  return a;
}

}  // namespace

size_t parse_header_length(std::string_view value) {
  if (value.empty() || value.size() > 18)
    bad("Inference-Header-Content-Length '" + std::string(value.substr(0, 32)) +
        "' is not a byte count");
  size_t n = 0;
  for (char c : value) {
    if (c < '0' || c > '9')
      bad("Inference-Header-Content-Length '" + std::string(value) + "' is not a byte count");
    n = n * 10 + static_cast<size_t>(c - '0');
  }
  return n;
}

InferRequest parse_infer_request(std::string_view body, std::optional<size_t> header_length,
                                 const std::vector<TensorInfo>& model_inputs, int max_batch_size) {
  const size_t json_size = header_length.value_or(body.size());
  if (json_size > body.size())
    bad("Inference-Header-Content-Length " + std::to_string(json_size) + " exceeds the body's " +
        std::to_string(body.size()) + " bytes");
  const json header = json::parse(body.substr(0, json_size), nullptr, /*allow_exceptions=*/false);
  if (header.is_discarded()) bad("the request's JSON is malformed");
  if (!header.is_object()) bad("the request must be a JSON object");

  InferRequest request;
  if (const json* id = member(header, "id")) {
    if (!id->is_string()) bad("\"id\" must be a string");
    request.id = id->get<std::string>();
  }
  if (const json* p = parameters(header, "the request")) {
    if (const json* b = member(*p, "binary_data_output")) {
      if (!b->is_boolean()) bad("parameter \"binary_data_output\" must be a boolean");
      request.binary_outputs = b->get<bool>();
    }
    if (const json* t = member(*p, "timeout")) {
      if (!t->is_number_integer()) bad("parameter \"timeout\" must be an integer (microseconds)");
      request.timeout_us = t->get<int64_t>();
    }
  }

  const json* inputs = member(header, "inputs");
  if (!inputs || !inputs->is_array()) bad("the request needs an \"inputs\" array");
  std::string_view binary = body.substr(json_size);
  for (size_t i = 0; i < inputs->size(); ++i) {
    const json& in = (*inputs)[i];
    if (!in.is_object()) bad("inputs[" + std::to_string(i) + "] must be an object");
    const std::string& name = string_member(in, "name", "inputs[" + std::to_string(i) + "]");
    const std::string where = "input '" + name + "'";
    const std::string& type_name = string_member(in, "datatype", where);
    const std::vector<int64_t> shape = parse_shape(in, where);
    const CheckedInput checked = check_input(model_inputs, name, type_name, shape, max_batch_size);
    const DType dtype = checked.dtype;
    const size_t bytes = checked.bytes;

    const json* data = member(in, "data");
    const json* binary_size = nullptr;
    if (const json* p = parameters(in, where)) binary_size = member(*p, "binary_data_size");
    if (data && binary_size) bad(where + ": has both \"data\" and \"binary_data_size\"");
    if (binary_size) {
      if (!binary_size->is_number_unsigned())
        bad(where + ": \"binary_data_size\" must be a non-negative integer");
      const uint64_t size = binary_size->get<uint64_t>();
      if (size != bytes)
        bad(where + ": binary_data_size " + std::to_string(size) + " but its shape and " +
            type_name + " need " + std::to_string(bytes) + " bytes");
      if (size > binary.size())
        bad(where + ": binary_data_size " + std::to_string(size) + " but only " +
            std::to_string(binary.size()) + " bytes of binary data are left");
      request.inputs.push_back(
          {name, Tensor::from_bytes(dtype, shape, binary.data(), static_cast<size_t>(size))});
      binary.remove_prefix(static_cast<size_t>(size));
    } else if (data) {
      request.inputs.push_back(
          {name, tensor_from_json_data(*data, dtype, shape, checked.numel, where)});
    } else {
      bad(where + ": needs \"data\" or parameters.binary_data_size");
    }
  }
  if (!binary.empty())
    bad(std::to_string(binary.size()) +
        " bytes of binary data after the inputs' binary_data_size are not claimed by any input");

  if (const json* outputs = member(header, "outputs")) {
    if (!outputs->is_array()) bad("\"outputs\" must be an array");
    for (size_t i = 0; i < outputs->size(); ++i) {
      const json& o = (*outputs)[i];
      if (!o.is_object()) bad("outputs[" + std::to_string(i) + "] must be an object");
      RequestedOutput r;
      r.name = string_member(o, "name", "outputs[" + std::to_string(i) + "]");
      r.binary = request.binary_outputs;
      if (const json* p = parameters(o, "output '" + r.name + "'")) {
        if (const json* b = member(*p, "binary_data")) {
          if (!b->is_boolean())
            bad("output '" + r.name + "': parameter \"binary_data\" must be a boolean");
          r.binary = b->get<bool>();
        }
        if (member(*p, "classification"))
          bad("output '" + r.name + "': the classification extension is not supported");
      }
      request.outputs.push_back(std::move(r));
    }
  }
  return request;
}

EncodedResponse encode_infer_response(const std::string& model, const std::string& id,
                                      const std::vector<NamedTensor>& outputs,
                                      const std::vector<bool>& binary) {
  json header = {{"model_name", model}, {"model_version", "1"}};
  if (!id.empty()) header["id"] = id;
  json outs = json::array();
  std::string tail;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& t = outputs[i].tensor;
    json o = {{"name", outputs[i].name},
              {"datatype", std::string(v2_datatype(t.dtype()))},
              {"shape", t.shape()}};
    if (binary[i]) {
      o["parameters"] = {{"binary_data_size", t.byte_size()}};
      tail.append(static_cast<const char*>(t.raw_data()), t.byte_size());
    } else {
      o["data"] = json_data(t);
    }
    outs.push_back(std::move(o));
  }
  header["outputs"] = std::move(outs);
  EncodedResponse r;
  r.body = header.dump(-1, ' ', false, json::error_handler_t::replace);
  if (!tail.empty() || std::find(binary.begin(), binary.end(), true) != binary.end()) {
    r.header_length = r.body.size();
    r.body += tail;
  }
  return r;
}

std::string error_json(const std::string& message) {
  return json{{"error", message}}.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace amp::serve
