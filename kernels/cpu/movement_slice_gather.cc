// Slice(data, starts, ends, axes?, steps?) and Gather(data, indices; axis).
//
// Slice is a strided view of the input (negative steps give negative strides). Its
// parameters are read in prepare() when constant, else resolved in run() into a
// stack-held view; either way the result must match the static output shape.
// Gather copies one inner block per (outer, index); indices are checked before any copy,
// and one out of range is an invalid_input error.
#include <algorithm>
#include <cstring>

#include "kernels/cpu/cpu_common.h"
#include "kernels/cpu/movement_common.h"

namespace amp::kernels::cpu {
namespace {

// Slice's parameters as raw pointers (prepare: constant data; run: the input buffers).
struct SliceParams {
  const void* starts = nullptr;
  const void* ends = nullptr;
  const void* axes = nullptr;   // nullptr: 0..n-1
  const void* steps = nullptr;  // nullptr: all 1
};

class SliceKernel : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    if (cfg.inputs.size() < 3) return invalid_model("Slice: needs data, starts and ends");
    const TensorDesc& in = cfg.inputs[0];
    const TensorDesc& out = cfg.outputs[0];
    AMP_RETURN_IF_ERROR(check_max_rank(in, "Slice input"));
    if (out.rank() != in.rank() || out.dtype != in.dtype)
      return invalid_model("Slice: output " + dims_to_string(out.dims) +
                           " does not match the input's rank or dtype");
    rank_ = static_cast<int>(in.rank());
    for (int a = 0; a < rank_; ++a) {
      in_dims_[a] = in.dims[static_cast<size_t>(a)];
      out_dims_[a] = out.dims[static_cast<size_t>(a)];
    }
    elem_ = dtype_size(in.dtype);
    n_ = cfg.inputs[1].numel();
    if (cfg.inputs[1].rank() != 1 || cfg.inputs[2].rank() != 1 || cfg.inputs[2].numel() != n_)
      return invalid_model("Slice: starts and ends must be 1-D of one length");
    if (n_ > rank_)
      return invalid_model("Slice: " + std::to_string(n_) + " starts for rank " +
                           std::to_string(rank_));
    bool all_const = true;
    for (size_t i = 1; i < 5; ++i) {
      const bool given = i < cfg.inputs.size() && cfg.inputs[i].present;
      if (i >= 3 && !given) continue;
      const TensorDesc& t = cfg.inputs[i];
      if (t.dtype != DType::kI64 && t.dtype != DType::kI32)
        return invalid_model("Slice: input " + std::to_string(i) + " must be i32 or i64");
      if (t.rank() != 1 || t.numel() != n_)
        return invalid_model("Slice: input " + std::to_string(i) + " has shape " +
                             dims_to_string(t.dims) + ", expected [" + std::to_string(n_) + "]");
      dtypes_[i] = t.dtype;
      present_[i] = true;
      all_const = all_const && t.constant_data != nullptr;
    }
    if (all_const) {
      SliceParams p{cfg.inputs[1].constant_data, cfg.inputs[2].constant_data,
                    present_[3] ? cfg.inputs[3].constant_data : nullptr,
                    present_[4] ? cfg.inputs[4].constant_data : nullptr};
      Status s = resolve(p, &view_);
      if (!s.is_ok()) return invalid_model(s.message());
      resolved_ = true;
    }
    return Status::ok();
  }

  Status run(const KernelArgs& a) const override {
    if (resolved_) {
      strided_copy(view_, a.inputs[0], a.outputs[0], elem_, a.num_threads);
      return Status::ok();
    }
    SliceParams p{a.inputs[1], a.inputs[2], present_[3] ? a.inputs[3] : nullptr,
                  present_[4] ? a.inputs[4] : nullptr};
    StridedView v;
    Status s = resolve(p, &v);
    if (!s.is_ok()) return invalid_input(s.message());
    strided_copy(v, a.inputs[0], a.outputs[0], elem_, a.num_threads);
    return Status::ok();
  }

 private:
  // ONNX Slice: negative starts/ends count from the end; then clamp to [0, d] for
  // positive steps and [-1, d-1] (start [0, d-1]) for negative ones.
  Status resolve(const SliceParams& p, StridedView* view) const {
    int64_t starts[kMaxRank], ends[kMaxRank], axes[kMaxRank], steps[kMaxRank];
    read_int_param(p.starts, dtypes_[1], n_, starts);
    read_int_param(p.ends, dtypes_[2], n_, ends);
    if (p.axes) {
      read_int_param(p.axes, dtypes_[3], n_, axes);
    } else {
      for (int64_t i = 0; i < n_; ++i) axes[i] = i;
    }
    if (p.steps) {
      read_int_param(p.steps, dtypes_[4], n_, steps);
    } else {
      for (int64_t i = 0; i < n_; ++i) steps[i] = 1;
    }
    int64_t in_strides[kMaxRank], strides[kMaxRank];
    contiguous_strides(rank_, in_dims_, in_strides);
    bool seen[kMaxRank] = {};
    int64_t base = 0;
    for (int a = 0; a < rank_; ++a) strides[a] = in_strides[a];
    for (int64_t i = 0; i < n_; ++i) {
      const int64_t a = normalize_axis(axes[i], rank_);
      if (a < 0 || seen[a])
        return invalid_model("Slice: axes entry " + std::to_string(axes[i]) +
                             " is out of range or repeated for rank " + std::to_string(rank_));
      seen[a] = true;
      const int64_t d = in_dims_[a], step = steps[i];
      if (step == 0) return invalid_model("Slice: steps entries must be non-zero");
      int64_t start = starts[i], end = ends[i], count = 0;
      if (start < 0) start = start < -d ? -1 : start + d;  // avoids overflow near INT64_MIN
      if (end < 0) end = end < -d ? -1 : end + d;
      if (step > 0) {
        start = std::clamp<int64_t>(start, 0, d);
        end = std::clamp<int64_t>(end, 0, d);
        if (end > start) count = (end - start - 1) / step + 1;
      } else {
        start = std::clamp<int64_t>(start, 0, std::max<int64_t>(d - 1, 0));
        end = std::clamp<int64_t>(end, -1, d - 1);
        if (start > end && d > 0) {
          const uint64_t span = static_cast<uint64_t>(start - end);
          const uint64_t stride = 0 - static_cast<uint64_t>(step);
          count = static_cast<int64_t>((span - 1) / stride + 1);
        }
      }
      if (count != out_dims_[a])
        return invalid_model("Slice: axis " + std::to_string(a) + " gives " +
                             std::to_string(count) + " elements, the output shape " +
                             dims_to_string(rank_, out_dims_) + " has " +
                             std::to_string(out_dims_[a]));
      if (count > 0) base += start * in_strides[a];
      strides[a] = in_strides[a] * step;
    }
    for (int a = 0; a < rank_; ++a)
      if (!seen[a] && out_dims_[a] != in_dims_[a])
        return invalid_model("Slice: unsliced axis " + std::to_string(a) + " changes size");
    *view = make_strided_view(rank_, out_dims_, strides, base);
    return Status::ok();
  }

  int rank_ = 0;
  int64_t n_ = 0;  // number of sliced axes
  int64_t in_dims_[kMaxRank] = {};
  int64_t out_dims_[kMaxRank] = {};
  DType dtypes_[5] = {};
  bool present_[5] = {};
  size_t elem_ = 0;
  bool resolved_ = false;
  StridedView view_;
};

template <typename E>
void gather_elements(const E* src, const int64_t* idx, int64_t n_idx, int64_t dim, int64_t outer,
                     E* dst) {
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < n_idx; ++j) dst[o * n_idx + j] = src[o * dim + idx[j]];
}

class GatherKernel : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    const TensorDesc& data = cfg.inputs[0];
    const TensorDesc& ind = cfg.inputs[1];
    const TensorDesc& out = cfg.outputs[0];
    if (ind.dtype != DType::kI64 && ind.dtype != DType::kI32)
      return invalid_model("Gather: indices must be i32 or i64, not " +
                           std::string(dtype_name(ind.dtype)));
    AMP_ASSIGN_OR_RETURN(int64_t axis, cfg.node->attrs.get_int("axis", 0));
    const int64_t r = static_cast<int64_t>(data.rank());
    const int64_t a = normalize_axis(axis, r);
    if (a < 0)
      return invalid_model("Gather: axis " + std::to_string(axis) + " is out of range for rank " +
                           std::to_string(r));
    std::vector<int64_t> expect(data.dims.begin(), data.dims.begin() + a);
    expect.insert(expect.end(), ind.dims.begin(), ind.dims.end());
    expect.insert(expect.end(), data.dims.begin() + a + 1, data.dims.end());
    if (out.dims != expect || out.dtype != data.dtype)
      return invalid_model("Gather: output " + dims_to_string(out.dims) + ", expected " +
                           dims_to_string(expect));
    outer_ = 1;
    inner_ = 1;
    for (int64_t i = 0; i < a; ++i) outer_ *= data.dims[static_cast<size_t>(i)];
    for (int64_t i = a + 1; i < r; ++i) inner_ *= data.dims[static_cast<size_t>(i)];
    dim_ = data.dims[static_cast<size_t>(a)];
    n_idx_ = ind.numel();
    elem_ = dtype_size(data.dtype);
    idx_dtype_ = ind.dtype;
    return Status::ok();
  }

  // Normalized indices live in the workspace so the copy loop needs no checks.
  size_t workspace_bytes() const override { return static_cast<size_t>(n_idx_) * sizeof(int64_t); }

  Status run(const KernelArgs& a) const override {
    if (outer_ * n_idx_ * inner_ == 0) return Status::ok();
    int64_t* idx = static_cast<int64_t*>(a.workspace);
    read_int_param(a.inputs[1], idx_dtype_, n_idx_, idx);
    for (int64_t j = 0; j < n_idx_; ++j) {
      int64_t v = idx[j];
      if (v < -dim_ || v >= dim_)
        return invalid_input("Gather: index " + std::to_string(v) +
                             " is out of range for axis of size " + std::to_string(dim_));
      idx[j] = v < 0 ? v + dim_ : v;
    }
    const uint8_t* src = a.input<uint8_t>(0);
    uint8_t* dst = a.output<uint8_t>(0);
    if (inner_ == 1) {
      // Gathering single elements (embedding of scalars, last-axis gathers).
      switch (elem_) {
        case 1:
          gather_elements(src, idx, n_idx_, dim_, outer_, dst);
          return Status::ok();
        case 2:
          gather_elements(reinterpret_cast<const uint16_t*>(src), idx, n_idx_, dim_, outer_,
                          reinterpret_cast<uint16_t*>(dst));
          return Status::ok();
        case 4:
          gather_elements(reinterpret_cast<const uint32_t*>(src), idx, n_idx_, dim_, outer_,
                          reinterpret_cast<uint32_t*>(dst));
          return Status::ok();
        case 8:
          gather_elements(reinterpret_cast<const uint64_t*>(src), idx, n_idx_, dim_, outer_,
                          reinterpret_cast<uint64_t*>(dst));
          return Status::ok();
      }
    }
    const size_t block = static_cast<size_t>(inner_) * elem_;
    parallel_for(
        outer_ * n_idx_, a.num_threads,
        [&](int64_t b, int64_t e) {
          for (int64_t k = b; k < e; ++k) {
            const int64_t o = k / n_idx_, j = k % n_idx_;
            std::memcpy(dst + static_cast<size_t>(k) * block,
                        src + static_cast<size_t>(o * dim_ + idx[j]) * block, block);
          }
        },
        std::max<int64_t>(1, static_cast<int64_t>((1 << 18) / std::max<size_t>(block, 1))));
    return Status::ok();
  }

 private:
  int64_t outer_ = 1, inner_ = 1, dim_ = 0, n_idx_ = 0;
  size_t elem_ = 0;
  DType idx_dtype_ = DType::kI64;
};

}  // namespace

void register_slice_kernels(KernelRegistry& r) {
  r.add_all(graph::OpType::kSlice, Backend::kCpu, all_dtypes(),
            [] { return std::make_unique<SliceKernel>(); });
}

void register_gather_kernels(KernelRegistry& r) {
  r.add_all(graph::OpType::kGather, Backend::kCpu, all_dtypes(),
            [] { return std::make_unique<GatherKernel>(); });
}

}  // namespace amp::kernels::cpu
