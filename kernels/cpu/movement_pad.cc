// Pad(data, pads, constant_value?, axes?) with mode constant | reflect | edge | wrap.
//
// Each axis gets an index map out -> in (or -1 for "the constant"), built once from the
// pads: in prepare() when pads and axes are constants, else in run() into the workspace.
// Negative pads crop. reflect and wrap repeat as numpy.pad does when a pad exceeds the
// axis. A row (all axes but the last) whose leading index maps to -1 is all constant;
// otherwise its interior is one memcpy and only the padded edges go through the map.
#include <algorithm>
#include <cstring>

#include "kernels/cpu/cpu_common.h"
#include "kernels/cpu/movement_common.h"

namespace amp::kernels::cpu {
namespace {

enum class PadMode { kConstant, kReflect, kEdge, kWrap };

// Source index of output position o (begin pad b, input size n), or -1 for the constant.
int64_t pad_source(PadMode mode, int64_t o, int64_t b, int64_t n) {
  const int64_t i = o - b;
  if (i >= 0 && i < n) return i;
  switch (mode) {
    case PadMode::kConstant:
      return -1;
    case PadMode::kEdge:
      return i < 0 ? 0 : n - 1;
    case PadMode::kWrap:
      return ((i % n) + n) % n;
    case PadMode::kReflect: {
      if (n == 1) return 0;
      const int64_t period = 2 * (n - 1);
      int64_t m = ((i % period) + period) % period;
      return m < n ? m : period - m;
    }
  }
  return -1;
}

template <typename E>
void pad_row(const E* src, const int64_t* map, int64_t lo, int64_t hi, int64_t n, E cval, E* dst) {
  for (int64_t j = 0; j < lo; ++j) dst[j] = map[j] < 0 ? cval : src[map[j]];
  if (hi > lo) std::memcpy(dst + lo, src + map[lo], static_cast<size_t>(hi - lo) * sizeof(E));
  for (int64_t j = std::max(hi, lo); j < n; ++j) dst[j] = map[j] < 0 ? cval : src[map[j]];
}

class PadKernel : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    const TensorDesc& in = cfg.inputs[0];
    const TensorDesc& out = cfg.outputs[0];
    AMP_RETURN_IF_ERROR(check_max_rank(in, "Pad input"));
    if (in.rank() != out.rank() || in.dtype != out.dtype)
      return invalid_model("Pad: output " + dims_to_string(out.dims) +
                           " does not match the input's rank or dtype");
    AMP_ASSIGN_OR_RETURN(std::string mode, cfg.node->attrs.get_string("mode", "constant"));
    if (mode == "constant")
      mode_ = PadMode::kConstant;
    else if (mode == "reflect")
      mode_ = PadMode::kReflect;
    else if (mode == "edge")
      mode_ = PadMode::kEdge;
    else if (mode == "wrap")
      mode_ = PadMode::kWrap;
    else
      return unsupported("Pad: mode '" + mode + "'");
    rank_ = static_cast<int>(in.rank());
    for (int a = 0; a < rank_; ++a) {
      in_dims_[a] = in.dims[static_cast<size_t>(a)];
      out_dims_[a] = out.dims[static_cast<size_t>(a)];
      map_len_ += out_dims_[a];
    }
    elem_ = dtype_size(in.dtype);
    numel_ = out.numel();

    if (cfg.inputs.size() < 2 || !cfg.inputs[1].present) return invalid_model("Pad: needs pads");
    const TensorDesc& pads = cfg.inputs[1];
    if (pads.dtype != DType::kI64 && pads.dtype != DType::kI32)
      return invalid_model("Pad: pads must be i64");
    pads_dtype_ = pads.dtype;
    const bool has_axes = cfg.inputs.size() > 3 && cfg.inputs[3].present;
    if (has_axes) {
      const TensorDesc& axes = cfg.inputs[3];
      if (axes.dtype != DType::kI64 && axes.dtype != DType::kI32)
        return invalid_model("Pad: axes must be i32 or i64");
      n_axes_ = axes.numel();
      axes_dtype_ = axes.dtype;
    } else {
      n_axes_ = rank_;
    }
    if (n_axes_ > rank_ || pads.numel() != 2 * n_axes_)
      return invalid_model("Pad: pads has " + std::to_string(pads.numel()) + " entries for " +
                           std::to_string(n_axes_) + " axes of a rank-" + std::to_string(rank_) +
                           " input");
    has_axes_ = has_axes;
    if (cfg.inputs.size() > 2 && cfg.inputs[2].present) {
      const TensorDesc& cv = cfg.inputs[2];
      if (cv.dtype != in.dtype)
        return invalid_model("Pad: constant_value dtype " + std::string(dtype_name(cv.dtype)) +
                             " differs from the data's " + std::string(dtype_name(in.dtype)));
      if (cv.numel() > 1) return invalid_model("Pad: constant_value must be a scalar");
      has_value_ = cv.numel() == 1;
    }
    if (pads.constant_data && (!has_axes || cfg.inputs[3].constant_data)) {
      map_.resize(static_cast<size_t>(map_len_));
      Status s = resolve(pads.constant_data, has_axes ? cfg.inputs[3].constant_data : nullptr,
                         map_.data(), &lo_, &hi_);
      if (!s.is_ok()) return invalid_model(s.message());
      resolved_ = true;
    }
    return Status::ok();
  }

  size_t workspace_bytes() const override {
    return resolved_ ? 0 : static_cast<size_t>(map_len_) * sizeof(int64_t);
  }

  Status run(const KernelArgs& a) const override {
    const int64_t* map = map_.data();
    int64_t lo = lo_, hi = hi_;
    if (!resolved_) {
      int64_t* ws = static_cast<int64_t*>(a.workspace);
      Status s = resolve(a.inputs[1], has_axes_ ? a.inputs[3] : nullptr, ws, &lo, &hi);
      if (!s.is_ok()) return invalid_input(s.message());
      map = ws;
    }
    if (numel_ == 0) return Status::ok();
    uint64_t cval = 0;  // the fill element's bytes (zero when not given)
    if (has_value_) std::memcpy(&cval, a.inputs[2], elem_);
    const uint8_t* src = a.input<uint8_t>(0);
    uint8_t* dst = a.output<uint8_t>(0);
    if (rank_ == 0) {
      std::memcpy(dst, src, elem_);
      return Status::ok();
    }
    const int last = rank_ - 1;
    const int64_t width = out_dims_[last];
    const int64_t rows = numel_ / width;
    int64_t in_strides[kMaxRank];
    contiguous_strides(rank_, in_dims_, in_strides);
    const int64_t* last_map = map + (map_len_ - width);
    const size_t es = elem_;
    parallel_for(
        rows, a.num_threads,
        [&](int64_t b, int64_t e) {
          int64_t idx[kMaxRank];
          int64_t rem = b;
          for (int ax = last - 1; ax >= 0; --ax) {
            idx[ax] = rem % out_dims_[ax];
            rem /= out_dims_[ax];
          }
          for (int64_t row = b; row < e; ++row) {
            uint8_t* d = dst + static_cast<size_t>(row * width) * es;
            int64_t off = 0;
            bool constant_row = false;
            const int64_t* m = map;
            for (int ax = 0; ax < last; ++ax) {
              const int64_t s = m[idx[ax]];
              m += out_dims_[ax];
              if (s < 0) constant_row = true;
              off += s * in_strides[ax];
            }
            if (constant_row) {
              fill_elements(d, &cval, width, es);
            } else {
              const uint8_t* s = src + static_cast<size_t>(off) * es;
              switch (es) {
                case 1:
                  pad_row(s, last_map, lo, hi, width, static_cast<uint8_t>(cval), d);
                  break;
                case 2:
                  pad_row(reinterpret_cast<const uint16_t*>(s), last_map, lo, hi, width,
                          static_cast<uint16_t>(cval), reinterpret_cast<uint16_t*>(d));
                  break;
                case 4:
                  pad_row(reinterpret_cast<const uint32_t*>(s), last_map, lo, hi, width,
                          static_cast<uint32_t>(cval), reinterpret_cast<uint32_t*>(d));
                  break;
                default:
                  pad_row(reinterpret_cast<const uint64_t*>(s), last_map, lo, hi, width, cval,
                          reinterpret_cast<uint64_t*>(d));
                  break;
              }
            }
            for (int ax = last - 1; ax >= 0; --ax) {
              if (++idx[ax] < out_dims_[ax]) break;
              idx[ax] = 0;
            }
          }
        },
        std::max<int64_t>(1, 32768 / std::max<int64_t>(width, 1)));
    return Status::ok();
  }

 private:
  // Reads the pads (and axes) and writes the per-axis maps (axis after axis) plus the
  // last axis' interior [lo, hi), where out j reads in j - begin.
  Status resolve(const void* pads_data, const void* axes_data, int64_t* map, int64_t* lo,
                 int64_t* hi) const {
    int64_t pads[2 * kMaxRank], axes[kMaxRank];
    read_int_param(pads_data, pads_dtype_, 2 * n_axes_, pads);
    if (axes_data) {
      read_int_param(axes_data, axes_dtype_, n_axes_, axes);
    } else {
      for (int64_t i = 0; i < n_axes_; ++i) axes[i] = i;
    }
    int64_t begin[kMaxRank] = {}, end[kMaxRank] = {};
    bool seen[kMaxRank] = {};
    for (int64_t i = 0; i < n_axes_; ++i) {
      const int64_t a = normalize_axis(axes[i], rank_);
      if (a < 0 || seen[a])
        return invalid_model("Pad: axes entry " + std::to_string(axes[i]) +
                             " is out of range or repeated for rank " + std::to_string(rank_));
      seen[a] = true;
      begin[a] = pads[i];
      end[a] = pads[i + n_axes_];
    }
    for (int a = 0; a < rank_; ++a) {
      if (in_dims_[a] + begin[a] + end[a] != out_dims_[a])
        return invalid_model("Pad: axis " + std::to_string(a) + " of size " +
                             std::to_string(in_dims_[a]) + " padded by (" +
                             std::to_string(begin[a]) + ", " + std::to_string(end[a]) +
                             ") does not give the output's " + std::to_string(out_dims_[a]));
      if (in_dims_[a] == 0 && out_dims_[a] > 0 && mode_ != PadMode::kConstant)
        return invalid_model("Pad: cannot pad the empty axis " + std::to_string(a) +
                             " in a non-constant mode");
    }
    int64_t* m = map;
    for (int a = 0; a < rank_; ++a) {
      for (int64_t o = 0; o < out_dims_[a]; ++o) m[o] = pad_source(mode_, o, begin[a], in_dims_[a]);
      m += out_dims_[a];
    }
    if (rank_ > 0) {
      const int last = rank_ - 1;
      *lo = std::clamp<int64_t>(begin[last], 0, out_dims_[last]);
      *hi = std::clamp<int64_t>(begin[last] + in_dims_[last], *lo, out_dims_[last]);
    }
    return Status::ok();
  }

  PadMode mode_ = PadMode::kConstant;
  int rank_ = 0;
  int64_t in_dims_[kMaxRank] = {};
  int64_t out_dims_[kMaxRank] = {};
  int64_t map_len_ = 0;
  int64_t n_axes_ = 0;
  int64_t numel_ = 0;
  size_t elem_ = 0;
  DType pads_dtype_ = DType::kI64, axes_dtype_ = DType::kI64;
  bool has_axes_ = false;
  bool has_value_ = false;
  bool resolved_ = false;
  std::vector<int64_t> map_;
  int64_t lo_ = 0, hi_ = 0;
};

}  // namespace

void register_pad_kernels(KernelRegistry& r) {
  r.add_all(graph::OpType::kPad, Backend::kCpu, all_dtypes(),
            [] { return std::make_unique<PadKernel>(); });
}

}  // namespace amp::kernels::cpu
