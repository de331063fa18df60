#include "kernels/common/kernel_checks.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <utility>

#include "kernels/common/reduce_plan.h"

namespace amp::kernels {

Status check_io(const KernelConfig& cfg, DType t, DType out) {
  if (out == DType::kUndefined) out = t;
  if (cfg.inputs.empty() || !cfg.inputs[0].present) return invalid_model("input 0 is missing");
  if (cfg.outputs.empty() || !cfg.outputs[0].present) return invalid_model("output 0 is missing");
  if (cfg.inputs[0].dtype != t)
    return invalid_model("input 0 has dtype " + std::string(dtype_name(cfg.inputs[0].dtype)) +
                         ", this kernel takes " + std::string(dtype_name(t)));
  if (cfg.outputs[0].dtype != out)
    return invalid_model("output 0 has dtype " + std::string(dtype_name(cfg.outputs[0].dtype)) +
                         ", expected " + std::string(dtype_name(out)));
  if (cfg.inputs[0].rank() > static_cast<size_t>(kReduceMaxRank))
    return unsupported("input rank " + std::to_string(cfg.inputs[0].rank()) + " exceeds " +
                       std::to_string(kReduceMaxRank));
  return Status::ok();
}

Status check_same_rank_io(const KernelConfig& cfg, int max_rank) {
  const std::string op = op_label(cfg);
  if (cfg.inputs.empty() || !cfg.inputs[0].present || cfg.outputs.empty() ||
      !cfg.outputs[0].present)
    return invalid_model(op + ": needs a data input and an output");
  const TensorDesc& in = cfg.inputs[0];
  const TensorDesc& out = cfg.outputs[0];
  if (in.rank() > static_cast<size_t>(max_rank))
    return unsupported(op + " input has rank " + std::to_string(in.rank()) + "; at most " +
                       std::to_string(max_rank) + " is supported");
  if (out.rank() != in.rank() || out.dtype != in.dtype)
    return invalid_model(op + ": output " + dims_to_string(out.dims) +
                         " does not match the input's rank or dtype");
  return Status::ok();
}

Status check_arity(const KernelConfig& cfg, size_t min_inputs, size_t max_inputs) {
  const size_t n = cfg.inputs.size();
  if (n < min_inputs || n > max_inputs) {
    const std::string want = min_inputs == max_inputs
                                 ? std::to_string(min_inputs)
                                 : std::to_string(min_inputs) + ".." + std::to_string(max_inputs);
    return invalid_model("takes " + want + " inputs, has " + std::to_string(n));
  }
  for (size_t i = 0; i < min_inputs; ++i)
    if (!cfg.inputs[i].present) return invalid_model("input " + std::to_string(i) + " is absent");
  if (cfg.outputs.empty() || !cfg.outputs[0].present) return invalid_model("output 0 is absent");
  return Status::ok();
}

Status check_input_dtype(const KernelConfig& cfg, size_t i, DType want) {
  const DType got = cfg.inputs[i].dtype;
  if (got == want) return Status::ok();
  return invalid_model("input " + std::to_string(i) + " has dtype " + std::string(dtype_name(got)) +
                       ", expected " + std::string(dtype_name(want)));
}

Status check_output_dtype(const KernelConfig& cfg, DType want) {
  const DType got = cfg.outputs[0].dtype;
  if (got == want) return Status::ok();
  return invalid_model("output has dtype " + std::string(dtype_name(got)) + ", expected " +
                       std::string(dtype_name(want)));
}

bool read_int_param(const void* data, DType dtype, int64_t count, int64_t* out) {
  if (dtype == DType::kI64) {
    if (count > 0) std::memcpy(out, data, static_cast<size_t>(count) * sizeof(int64_t));
    return true;
  }
  if (dtype == DType::kI32) {
    const int32_t* p = static_cast<const int32_t*>(data);
    for (int64_t i = 0; i < count; ++i) out[i] = p[i];
    return true;
  }
  return false;
}

void contiguous_strides(int rank, const int64_t* dims, int64_t* strides) {
  int64_t s = 1;
  for (int a = rank - 1; a >= 0; --a) {
    strides[a] = s;
    s *= dims[a];
  }
}

std::string dims_to_string(int rank, const int64_t* dims) {
  std::string s = "[";
  for (int i = 0; i < rank; ++i) {
    if (i) s += ",";
    s += std::to_string(dims[i]);
  }
  return s + "]";
}

std::string dims_to_string(const std::vector<int64_t>& dims) {
  return dims_to_string(static_cast<int>(dims.size()), dims.data());
}

std::string op_label(const KernelConfig& cfg) {
  return cfg.node ? std::string(graph::op_name(cfg.node->op)) : std::string("this op");
}

Status expand_source_strides(const TensorDesc& in, const TensorDesc& out, int64_t* strides) {
  if (in.rank() > out.rank() || in.dtype != out.dtype)
    return invalid_model("Expand: output " + dims_to_string(out.dims) +
                         " cannot be a broadcast of input " + dims_to_string(in.dims));
  const int r = static_cast<int>(out.rank());
  const int off = r - static_cast<int>(in.rank());
  std::vector<int64_t> in_strides(in.rank());
  contiguous_strides(static_cast<int>(in.rank()), in.dims.data(), in_strides.data());
  for (int a = 0; a < r; ++a) {
    strides[a] = 0;
    if (a < off) continue;
    const int64_t d = in.dims[static_cast<size_t>(a - off)];
    if (d == out.dims[static_cast<size_t>(a)]) {
      strides[a] = in_strides[static_cast<size_t>(a - off)];
    } else if (d != 1) {
      return invalid_model("Expand: input " + dims_to_string(in.dims) + " does not broadcast to " +
                           dims_to_string(out.dims));
    }
  }
  return Status::ok();
}

Result<std::vector<int64_t>> split_part_sizes(const KernelConfig& cfg, size_t axis) {
  const size_t n = cfg.outputs.size();
  if (n == 0) return invalid_model("Split: has no outputs");
  std::vector<int64_t> sizes(n, 0);
  const TensorDesc* split =
      cfg.inputs.size() > 1 && cfg.inputs[1].present ? &cfg.inputs[1] : nullptr;
  if (split != nullptr && split->constant_data != nullptr) {
    if (split->numel() != static_cast<int64_t>(n))
      return invalid_model("Split: 'split' has " + std::to_string(split->numel()) +
                           " entries for " + std::to_string(n) + " outputs");
    if (!read_int_param(split->constant_data, split->dtype, split->numel(), sizes.data()))
      return invalid_model("Split: 'split' must be i64");
    for (int64_t s : sizes)
      if (s < 0) return invalid_model("Split: 'split' " + dims_to_string(sizes) + " is negative");
    return sizes;
  }
  bool all_present = true;
  for (const TensorDesc& o : cfg.outputs) all_present = all_present && o.present;
  if (all_present) {
    for (size_t k = 0; k < n; ++k) {
      const TensorDesc& o = cfg.outputs[k];
      if (o.rank() != cfg.inputs[0].rank())
        return invalid_model("Split: output " + std::to_string(k) + " has rank " +
                             std::to_string(o.rank()) + ", the input " +
                             std::to_string(cfg.inputs[0].rank()));
      sizes[k] = o.dims[axis];
    }
    return sizes;
  }
  if (split != nullptr) return unsupported("Split: a run-time 'split' input with an unused output");
  const int64_t dim = cfg.inputs[0].dims[axis];
  const int64_t nn = static_cast<int64_t>(n);
  const int32_t version = cfg.node ? cfg.node->op_version : 18;
  if (dim % nn != 0 && version < 18)
    return invalid_model("Split: axis of size " + std::to_string(dim) + " does not split into " +
                         std::to_string(n) + " equal parts");
  const int64_t chunk = dim % nn == 0 ? dim / nn : dim / nn + 1;
  int64_t left = dim;
  for (size_t k = 0; k < n; ++k) {
    sizes[k] = std::min(chunk, left);
    left -= sizes[k];
  }
  return sizes;
}

}  // namespace amp::kernels
