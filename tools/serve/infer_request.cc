#include "tools/serve/infer_request.h"

#include <set>

#include "tools/serve/serve_error.h"

namespace amp::serve {
namespace {

struct V2Type {
  DType dtype;
  std::string_view v2, config;
};
constexpr V2Type kTypes[] = {
    {DType::kBool, "BOOL", "TYPE_BOOL"},  {DType::kU8, "UINT8", "TYPE_UINT8"},
    {DType::kI8, "INT8", "TYPE_INT8"},    {DType::kI16, "INT16", "TYPE_INT16"},
    {DType::kI32, "INT32", "TYPE_INT32"}, {DType::kI64, "INT64", "TYPE_INT64"},
    {DType::kF16, "FP16", "TYPE_FP16"},   {DType::kF32, "FP32", "TYPE_FP32"},
    {DType::kF64, "FP64", "TYPE_FP64"},   {DType::kBF16, "BF16", "TYPE_BF16"},
};

std::string shape_string(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

std::string names(const std::vector<TensorInfo>& infos) {
  std::string s;
  for (const TensorInfo& t : infos) s += (s.empty() ? "'" : ", '") + t.name + "'";
  return s;
}

[[noreturn]] void bad(const std::string& message) {
  throw ServeError(ServeStatus::kBadRequest, message);
}

}  // namespace

std::optional<DType> dtype_from_v2(std::string_view name) {
  for (const V2Type& t : kTypes)
    if (t.v2 == name) return t.dtype;
  return std::nullopt;
}

std::string_view v2_datatype(DType t) {
  for (const V2Type& v : kTypes)
    if (v.dtype == t) return v.v2;
  return "INVALID";
}

std::string_view triton_config_type(DType t) {
  for (const V2Type& v : kTypes)
    if (v.dtype == t) return v.config;
  return "TYPE_INVALID";
}

int64_t checked_numel(const std::vector<int64_t>& shape, std::string_view what) {
  constexpr int64_t kMaxElements = int64_t{1} << 40;
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) bad(std::string(what) + ": shape " + shape_string(shape) + " has a negative dim");
    if (d != 0 && n > kMaxElements / d)
      bad(std::string(what) + ": shape " + shape_string(shape) + " has too many elements");
    n *= d;
  }
  return n;
}

CheckedInput check_input(const std::vector<TensorInfo>& model_inputs, const std::string& name,
                         std::string_view datatype, const std::vector<int64_t>& shape,
                         int max_batch_size) {
  const std::optional<DType> parsed = dtype_from_v2(datatype);
  if (!parsed)
    bad("input '" + name + "': datatype '" + std::string(datatype) + "' is not supported");
  const DType dtype = *parsed;
  const TensorInfo* info = nullptr;
  for (const TensorInfo& t : model_inputs)
    if (t.name == name) info = &t;
  if (!info) bad("unknown input '" + name + "'; the model's inputs are " + names(model_inputs));
  const std::string what = "input '" + name + "'";
  if (dtype != info->dtype)
    bad(what + ": datatype " + std::string(v2_datatype(dtype)) + ", but the model takes " +
        std::string(v2_datatype(info->dtype)));
  if (shape.size() != info->shape.size())
    bad(what + ": shape " + shape_string(shape) + " has rank " + std::to_string(shape.size()) +
        ", the model takes rank " + std::to_string(info->shape.size()) + " " +
        shape_string(info->shape));
  const int64_t numel = checked_numel(shape, what);
  for (size_t d = 0; d < shape.size(); ++d) {
    if (d == 0 && max_batch_size > 0) {
      if (shape[0] < 1 || shape[0] > max_batch_size)
        bad(what + ": batch dim " + std::to_string(shape[0]) + " is outside 1.." +
            std::to_string(max_batch_size) + " (the model's max_batch_size)");
      continue;
    }
    if (info->shape[d] >= 0 && shape[d] != info->shape[d])
      bad(what + ": shape " + shape_string(shape) + " does not match the model's " +
          shape_string(info->shape) + " at dim " + std::to_string(d));
  }
  return {dtype, numel, static_cast<size_t>(numel) * dtype_size(dtype)};
}

void check_request(const InferRequest& request, const std::vector<TensorInfo>& model_inputs,
                   const std::vector<TensorInfo>& model_outputs) {
  std::set<std::string> given;
  for (const NamedTensor& in : request.inputs)
    if (!given.insert(in.name).second) bad("input '" + in.name + "' is given twice");
  for (const TensorInfo& t : model_inputs)
    if (!given.count(t.name)) bad("missing input '" + t.name + "'");
  std::set<std::string> requested;
  for (const RequestedOutput& o : request.outputs) {
    bool known = false;
    for (const TensorInfo& t : model_outputs) known = known || t.name == o.name;
    if (!known)
      bad("unknown output '" + o.name + "'; the model's outputs are " + names(model_outputs));
    if (!requested.insert(o.name).second) bad("output '" + o.name + "' is requested twice");
  }
  if (request.timeout_us && *request.timeout_us < 0)
    bad("timeout " + std::to_string(*request.timeout_us) + " us is negative");
}

}  // namespace amp::serve
