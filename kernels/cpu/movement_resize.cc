// Resize(X, roi?, scales?, sizes?): the CPU kernel. The sampling tables and the ONNX
// reference semantics they encode are in movement_resize.h.
//
// Nearest runs as a single gather of raw element bytes (every dtype). Linear/cubic run
// one separable pass per non-identity axis, in the order of least estimated cost
// (pass_order_cost: outputs x taps a pass, the innermost axis weighed twice), accumulating
// in fp32 (f64 for f64) with intermediates in the workspace, and round once to the
// storage type on the last pass. Tables are built in prepare() when roi/scales/sizes are
// constants, else in run() into the workspace (sized in prepare() from a bound on the
// number of taps).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "kernels/cpu/cpu_common.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/movement_common.h"
#include "kernels/cpu/movement_resize.h"

namespace amp::kernels::cpu {
namespace {

using resize::AxisSpec;
using resize::ResizeAttrs;

// Storage <-> compute type.
inline float to_compute(float v) {
  return v;
}
inline float to_compute(Half v) {
  return load_f32(v);
}
inline float to_compute(BFloat16 v) {
  return load_f32(v);
}
inline double to_compute(double v) {
  return v;
}
template <typename D, typename C>
inline D from_compute(C v) {
  if constexpr (std::is_same_v<D, C>) {
    return v;
  } else {
    return store_as<D>(v);
  }
}

// The innermost-axis pass over one row: d[o] = sum_t w(o, t) * s[idx(o, t)]. N > 0 fixes
// the tap count at compile time; N == 0 reads it from `taps`.
template <int N, typename C, typename Src, typename Dst>
void row_dots(const Src* s, Dst* d, int64_t out_len, const int64_t* idx, const double* w,
              const uint8_t* extrap, int taps, int cap, Dst fill) {
  const int n = N > 0 ? N : taps;
  for (int64_t o = 0; o < out_len; ++o) {
    const int64_t* oi = idx + o * cap;
    const double* ow = w + o * cap;
    C acc = 0;
    for (int t = 0; t < n; ++t) acc += static_cast<C>(ow[t]) * to_compute(s[oi[t]]);
    d[o] = extrap[o] ? fill : from_compute<Dst>(acc);
  }
}

// One separable pass over axis `a`: src [outer, in_len, inner] -> dst [outer, out_len,
// inner]. Rows accumulate in a stack block of C so low-precision outputs round once.
// The innermost axis (inner == 1) has its own loop: one dot product per output element.
template <typename Src, typename Dst, typename C>
void resize_pass(const Src* src, Dst* dst, int64_t outer, int64_t in_len, int64_t out_len,
                 int64_t inner, const int64_t* idx, const double* w, const uint8_t* extrap,
                 int taps, int cap, C extrap_value, int threads) {
  const Dst fill = from_compute<Dst>(extrap_value);
  if (inner == 1) {
    parallel_for(
        outer, threads,
        [&](int64_t b, int64_t e) {
          for (int64_t ou = b; ou < e; ++ou) {
            const Src* s = src + ou * in_len;
            Dst* d = dst + ou * out_len;
            // Fixed tap counts unroll, so consecutive outputs overlap in the pipeline.
            switch (taps) {
              case 2:
                row_dots<2, C>(s, d, out_len, idx, w, extrap, 2, cap, fill);
                break;
              case 4:
                row_dots<4, C>(s, d, out_len, idx, w, extrap, 4, cap, fill);
                break;
              default:
                row_dots<0, C>(s, d, out_len, idx, w, extrap, taps, cap, fill);
                break;
            }
          }
        },
        std::max<int64_t>(1, 16384 / std::max<int64_t>(out_len * taps, 1)));
    return;
  }
  constexpr int64_t kBlock = 256;
  parallel_for(
      outer * out_len, threads,
      [&](int64_t b, int64_t e) {
        C acc[kBlock];
        int64_t ou = b / out_len, o = b % out_len;
        for (int64_t row = b; row < e; ++row, ++o) {
          if (o == out_len) {
            o = 0;
            ++ou;
          }
          Dst* d = dst + row * inner;
          if (extrap[o]) {
            for (int64_t i = 0; i < inner; ++i) d[i] = fill;
            continue;
          }
          const Src* s0 = src + ou * in_len * inner;
          for (int64_t i0 = 0; i0 < inner; i0 += kBlock) {
            const int64_t n = std::min(kBlock, inner - i0);
            for (int64_t i = 0; i < n; ++i) acc[i] = 0;
            for (int t = 0; t < taps; ++t) {
              const C wt = static_cast<C>(w[o * cap + t]);
              const Src* s = s0 + idx[o * cap + t] * inner + i0;
              for (int64_t i = 0; i < n; ++i) acc[i] += wt * to_compute(s[i]);
            }
            for (int64_t i = 0; i < n; ++i) d[i0 + i] = from_compute<Dst>(acc[i]);
          }
        }
      },
      std::max<int64_t>(1, 16384 / std::max<int64_t>(inner * taps, 1)));
}

// An element of N bytes moved as a whole (a conv layout's block of channels, run_nearest).
template <size_t N>
struct Bytes {
  unsigned char b[N];
};

// The integer factor f when the last axis' table repeats each input element f times in
// order (idx[j] = j / f, nothing extrapolated: nearest upsampling by an integer scale,
// FPNs' and YOLO necks' 2x), else 0.
int64_t repeat_factor(const int64_t* idx, const uint8_t* extrap, int64_t out_len, int64_t in_len) {
  if (in_len < 1 || out_len % in_len != 0) return 0;
  const int64_t f = out_len / in_len;
  for (int64_t j = 0; j < out_len; ++j)
    if (extrap[j] || idx[j] != j / f) return 0;
  return f;
}

// d[j] = s[j / f] for j < width.
template <typename E>
AMP_ISA_CLONES void repeat_row(const E* s, E* d, int64_t width, int64_t f) {
  if (f == 1) {
    std::memcpy(d, s, static_cast<size_t>(width) * sizeof(E));
    return;
  }
  if (f == 2) {  // vectorizes: loads and stores of whole vectors with a shuffle between
    for (int64_t x = 0; x < width / 2; ++x) {
      d[2 * x] = s[x];
      d[2 * x + 1] = s[x];
    }
    return;
  }
  for (int64_t x = 0; x < width / f; ++x)
    for (int64_t k = 0; k < f; ++k) d[x * f + k] = s[x];
}

// Nearest: a gather of raw elements, with the extrapolation element where any axis is
// outside the roi. Two shortcuts for upsampling: an output row whose source row is the
// previous row's (an upsampled outer axis) copies that row, and a last axis that repeats
// each element `repeat` times (repeat_factor) is written without reading its table.
template <typename E>
void nearest_gather(const E* src, E* dst, int rank, const int64_t* out_dims,
                    const int64_t* in_strides, const int64_t* const* idx,
                    const uint8_t* const* extrap, E fill, int64_t numel, int64_t repeat,
                    int threads) {
  const int last = rank - 1;
  const int64_t width = out_dims[last];
  const int64_t rows = numel / width;
  parallel_for(
      rows, threads,
      [&](int64_t b, int64_t e) {
        int64_t pos[kMaxRank];
        int64_t rem = b;
        for (int a = last - 1; a >= 0; --a) {
          pos[a] = rem % out_dims[a];
          rem /= out_dims[a];
        }
        int64_t prev_off = -1;  // the previous row's source offset, -1: none (or outside)
        for (int64_t row = b; row < e; ++row) {
          E* d = dst + row * width;
          int64_t off = 0;
          bool outside = false;
          for (int a = 0; a < last; ++a) {
            off += idx[a][pos[a]] * in_strides[a];
            outside = outside || extrap[a][pos[a]];
          }
          if (outside) {
            for (int64_t j = 0; j < width; ++j) d[j] = fill;
            off = -1;
          } else if (off == prev_off) {
            std::memcpy(d, d - width, static_cast<size_t>(width) * sizeof(E));
          } else if (repeat > 0) {
            repeat_row(src + off, d, width, repeat);
          } else {
            const E* s = src + off;
            const int64_t* li = idx[last];
            const uint8_t* lx = extrap[last];
            const int64_t st = in_strides[last];
            for (int64_t j = 0; j < width; ++j) d[j] = lx[j] ? fill : s[li[j] * st];
          }
          prev_off = off;
          for (int a = last - 1; a >= 0; --a) {
            if (++pos[a] < out_dims[a]) break;
            pos[a] = 0;
          }
        }
      },
      std::max<int64_t>(1, 32768 / std::max<int64_t>(width, 1)));
}

// Where one axis' table lives: `idx`/`w` hold out * cap entries, `extrap` out entries.
struct AxisTable {
  int64_t* idx = nullptr;
  double* w = nullptr;
  uint8_t* extrap = nullptr;
  int taps = 1;
  bool identity = false;
};

constexpr size_t kAlign = 64;
inline size_t align_up(size_t n) {
  return (n + kAlign - 1) / kAlign * kAlign;
}

class ResizeKernel : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    AMP_ASSIGN_OR_RETURN(st_, check_resize_io(cfg));
    const TensorDesc& x = cfg.inputs[0];
    dtype_ = x.dtype;
    numel_ = cfg.outputs[0].numel();
    elem_ = dtype_size(dtype_);
    const bool all_const = st_.all_const;

    // The fill element for tf_crop_and_resize, in the storage type.
    std::memset(&fill_, 0, sizeof(fill_));
    store_element(st_.at.extrapolation, &fill_);

    // Table capacities: exact when the parameters are known now, else a bound.
    AxisSpec specs[kResizeMaxRank];
    if (all_const) AMP_RETURN_IF_ERROR(resolve_constant_specs(cfg, st_, specs));
    if (cfg.inputs[0].conv_layout || cfg.outputs[0].conv_layout) {
      if (!cfg.inputs[0].conv_layout || !cfg.outputs[0].conv_layout || !all_const || st_.rank < 3 ||
          st_.rank + 1 > kResizeMaxRank || st_.at.coord == ResizeAttrs::kTfCropAndResize ||
          !keeps(specs[0]) || !keeps(specs[1]))
        return internal_error("Resize: a conv-layout tensor where the layout plan admits none");
      to_conv_layout(cpu_conv_layout_blocked8(cfg.inputs[0].dims), specs);
    }
    size_t n_idx = 0, n_flags = 0;
    for (int a = 0; a < st_.rank; ++a) {
      int cap = 1;
      if (all_const) {
        cap = resize_tap_count(st_.at, specs[a].scale);
      } else if (st_.out_dims[a] > 0 && st_.in_dims[a] > 0) {
        // scale >= (out - 0.5) / in under every way of giving the output size.
        cap = resize_tap_count(st_.at, (static_cast<double>(st_.out_dims[a]) - 0.5) /
                                           static_cast<double>(st_.in_dims[a]));
      }
      if (cap > resize::kMaxTaps)
        return unsupported("Resize: antialias filter of " + std::to_string(cap) + " taps on axis " +
                           std::to_string(a));
      cap_[a] = cap;
      idx_off_[a] = n_idx;
      flag_off_[a] = n_flags;
      n_idx += static_cast<size_t>(st_.out_dims[a] * cap);
      n_flags += static_cast<size_t>(st_.out_dims[a]);
    }
    table_bytes_ =
        align_up(n_idx * sizeof(int64_t)) + align_up(n_idx * sizeof(double)) + align_up(n_flags);

    // Separable passes (not nearest): the order of least estimated cost (pass_order_cost).
    n_passes_ = 0;
    for (int a = 0; a < st_.rank; ++a)
      if (st_.axis_pos[a] >= 0) order_[n_passes_++] = a;
    choose_pass_order();
    scratch_bytes_ = 0;
    if (st_.at.mode != ResizeAttrs::kNearest && n_passes_ >= 2) {
      // Any subset of axes may be resized between passes: bound by the larger of in/out.
      int64_t bound = 1;
      for (int a = 0; a < st_.rank; ++a) bound *= std::max(st_.in_dims[a], st_.out_dims[a]);
      const size_t c = dtype_ == DType::kF64 ? sizeof(double) : sizeof(float);
      scratch_bytes_ = align_up(static_cast<size_t>(bound) * c);
    }

    if (all_const) {
      table_storage_.assign(table_bytes_ / sizeof(uint64_t) + 1, 0);
      build_tables(specs, reinterpret_cast<uint8_t*>(table_storage_.data()), tables_);
      resolved_ = true;
    }
    return Status::ok();
  }

  // Whether an axis is left as it is: scale 1 (roi counts only for tf_crop_and_resize).
  static bool keeps(const AxisSpec& s) { return s.in == s.out && s.scale == 1.0; }

  // Rewrites the node's dims and specs into those of its tensors' physical layout
  // (runtime/layout_plan.h): [N, C / 8, spatial..., 8] or [N, spatial..., C]. N and C are
  // kept (checked by the caller), so the channel axes are identities and the spatial axes
  // keep their specs: the same gather or separable passes then run on the physical dims.
  void to_conv_layout(bool blocked8, AxisSpec* specs) {
    const int rank = st_.rank;
    const int64_t c = st_.in_dims[1];
    AxisSpec spatial[kResizeMaxRank];
    int spatial_pos[kResizeMaxRank];
    for (int a = 2; a < rank; ++a) {
      spatial[a - 2] = specs[a];
      spatial_pos[a - 2] = st_.axis_pos[a];
    }
    auto set = [&](int a, int64_t dim, const AxisSpec& spec, int pos) {
      st_.in_dims[a] = st_.out_dims[a] = dim;
      specs[a] = spec;
      st_.axis_pos[a] = pos;
    };
    int a = 1;
    if (blocked8) set(a++, c / 8, make_spec(c / 8, c / 8), -1);
    for (int k = 0; k < rank - 2; ++k, ++a) {
      st_.in_dims[a] = spatial[k].in;
      st_.out_dims[a] = spatial[k].out;
      specs[a] = spatial[k];
      st_.axis_pos[a] = spatial_pos[k];
    }
    set(a++, blocked8 ? 8 : c, make_spec(blocked8 ? 8 : c, blocked8 ? 8 : c), -1);
    st_.rank = a;
  }

  size_t workspace_bytes() const override {
    return (resolved_ ? 0 : table_bytes_) + 2 * scratch_bytes_;
  }

  Status run(const KernelArgs& args) const override {
    if (numel_ == 0) return Status::ok();
    uint8_t* ws = static_cast<uint8_t*>(args.workspace);
    AxisTable local[kMaxRank];
    const AxisTable* tables = tables_;
    if (!resolved_) {
      AxisSpec specs[kResizeMaxRank];
      const void* roi = st_.has_roi ? args.inputs[1] : nullptr;
      const void* param = args.inputs[st_.param_index()];
      for (int a = 0; a < st_.rank; ++a)
        if (!resolve_spec(st_, roi, param, a, &specs[a]))
          return invalid_input(describe_resize_error(st_, a));
      for (int a = 0; a < st_.rank; ++a)
        if (resize_tap_count(st_.at, specs[a].scale) > cap_[a])
          return invalid_input("Resize: scales/sizes at run time do not give the output shape " +
                               dims_to_string(st_.rank, st_.out_dims));
      build_tables(specs, ws, local);
      tables = local;
      ws += table_bytes_;
    }
    if (st_.at.mode == ResizeAttrs::kNearest) {
      run_nearest(args, tables);
      return Status::ok();
    }
    switch (dtype_) {
      case DType::kF32:
        run_interp<float, float>(args, tables, ws);
        break;
      case DType::kF16:
        run_interp<Half, float>(args, tables, ws);
        break;
      case DType::kBF16:
        run_interp<BFloat16, float>(args, tables, ws);
        break;
      case DType::kF64:
        run_interp<double, double>(args, tables, ws);
        break;
      case DType::kUndefined:
      case DType::kU8:
      case DType::kI8:
      case DType::kI16:
      case DType::kI32:
      case DType::kI64:
      case DType::kBool:
        return internal_error("Resize: interpolation on a non-float dtype");
    }
    return Status::ok();
  }

 private:
  // Lays the tables out in `mem` (table_bytes_ long) and fills them.
  void build_tables(const AxisSpec* specs, uint8_t* mem, AxisTable* tables) const {
    size_t n_idx = 0;
    for (int a = 0; a < st_.rank; ++a) n_idx += static_cast<size_t>(st_.out_dims[a] * cap_[a]);
    int64_t* idx = reinterpret_cast<int64_t*>(mem);
    double* w = reinterpret_cast<double*>(mem + align_up(n_idx * sizeof(int64_t)));
    uint8_t* flags = mem + align_up(n_idx * sizeof(int64_t)) + align_up(n_idx * sizeof(double));
    for (int a = 0; a < st_.rank; ++a) {
      AxisTable& t = tables[a];
      t.idx = idx + idx_off_[a];
      t.w = w + idx_off_[a];
      t.extrap = flags + flag_off_[a];
      if (st_.axis_pos[a] < 0) {
        t.taps = 1;
        for (int64_t o = 0; o < st_.out_dims[a]; ++o) {
          t.idx[o * cap_[a]] = o;
          t.w[o * cap_[a]] = 1.0;
          t.extrap[o] = 0;
        }
        t.identity = true;
        continue;
      }
      t.taps = resize_tap_count(st_.at, specs[a].scale);
      resize::build_axis(st_.at, specs[a], t.taps, cap_[a], t.idx, t.w, t.extrap);
      t.identity = resize::is_identity(specs[a], t.taps, cap_[a], t.idx, t.w, t.extrap);
    }
  }

  void store_element(float v, uint64_t* dst) const {
    switch (dtype_) {
      case DType::kF32:
        std::memcpy(dst, &v, 4);
        return;
      case DType::kF64: {
        const double d = v;
        std::memcpy(dst, &d, 8);
        return;
      }
      case DType::kF16: {
        const Half h(v);
        std::memcpy(dst, &h, 2);
        return;
      }
      case DType::kBF16: {
        const BFloat16 h(v);
        std::memcpy(dst, &h, 2);
        return;
      }
      case DType::kU8: {
        const uint8_t i = static_cast<uint8_t>(v);
        std::memcpy(dst, &i, 1);
        return;
      }
      case DType::kI8: {
        const int8_t i = static_cast<int8_t>(v);
        std::memcpy(dst, &i, 1);
        return;
      }
      case DType::kI16: {
        const int16_t i = static_cast<int16_t>(v);
        std::memcpy(dst, &i, 2);
        return;
      }
      case DType::kI32: {
        const int32_t i = static_cast<int32_t>(v);
        std::memcpy(dst, &i, 4);
        return;
      }
      case DType::kI64: {
        const int64_t i = static_cast<int64_t>(v);
        std::memcpy(dst, &i, 8);
        return;
      }
      case DType::kBool: {
        const uint8_t i = v != 0.0f;
        std::memcpy(dst, &i, 1);
        return;
      }
      case DType::kUndefined:
        return;
    }
  }

  void run_nearest(const KernelArgs& args, const AxisTable* tables) const {
    const void* src = args.inputs[0];
    void* dst = args.outputs[0];
    if (st_.rank == 0) {
      std::memcpy(dst, src, elem_);
      return;
    }
    // A last axis left as it is (8-channel blocks' [.., 8] in the conv layout) joins the
    // element: rows then run along the last sampled axis, not along 8 floats, which took 3 ms
    // instead of 0.5 for an FPN's 96x80x80 2x upsample. Only without extrapolation (the fill
    // value is one element's).
    int rank = st_.rank;
    size_t elem = elem_;
    int64_t numel = numel_;
    const int64_t last_dim = st_.out_dims[rank - 1];
    if (rank > 1 && tables[rank - 1].identity && st_.at.coord != ResizeAttrs::kTfCropAndResize &&
        (elem * static_cast<size_t>(last_dim) == 16 ||
         elem * static_cast<size_t>(last_dim) == 32)) {
      elem *= static_cast<size_t>(last_dim);
      numel /= last_dim;
      --rank;
    }
    int64_t in_strides[kMaxRank];
    contiguous_strides(rank, st_.in_dims, in_strides);
    const int64_t* idx[kMaxRank];
    const uint8_t* extrap[kMaxRank];
    for (int a = 0; a < rank; ++a) {
      idx[a] = tables[a].idx;  // cap is 1 for nearest: one entry per coordinate
      extrap[a] = tables[a].extrap;
    }
    const int last = rank - 1;
    const int64_t repeat =
        repeat_factor(idx[last], extrap[last], st_.out_dims[last], st_.in_dims[last]);
    auto gather = [&](auto element) {
      using E = decltype(element);
      E fill{};
      if constexpr (std::is_integral_v<E>) fill = static_cast<E>(fill_);
      nearest_gather(static_cast<const E*>(src), static_cast<E*>(dst), rank, st_.out_dims,
                     in_strides, idx, extrap, fill, numel, repeat, args.num_threads);
    };
    switch (elem) {
      case 1:
        return gather(uint8_t{});
      case 2:
        return gather(uint16_t{});
      case 4:
        return gather(uint32_t{});
      case 16:
        return gather(Bytes<16>{});
      case 32:
        return gather(Bytes<32>{});
      default:
        return gather(uint64_t{});
    }
  }

  // The estimated cost of running the passes in order_: per pass, its outputs times its taps,
  // weighed kInnermostCost times where the axis is the innermost one (a gather of its taps
  // per output, row_dots) against a blend of whole rows otherwise (vectorized across the
  // inner elements). An upsampling by the same factor on both axes of a segmentation head
  // (DeepLabV3: 21 x 16 x 16 -> 21 x 256 x 256) ran H then W, so the innermost pass made all
  // 1.4 M outputs: 2.1 ms. W first makes 86 K of them and the H pass blends rows for the
  // rest: 1.06 ms (AMD EPYC, one thread). Per output, ~1.45 ns innermost against ~0.72.
  static constexpr double kInnermostCost = 2;
  double pass_order_cost() const {
    int64_t cur[kMaxRank];
    for (int a = 0; a < st_.rank; ++a) cur[a] = st_.in_dims[a];
    double cost = 0;
    for (int p = 0; p < n_passes_; ++p) {
      const int a = order_[p];
      cur[a] = st_.out_dims[a];
      double outputs = 1;
      int64_t inner = 1;
      for (int b = 0; b < st_.rank; ++b) outputs *= static_cast<double>(cur[b]);
      for (int b = a + 1; b < st_.rank; ++b) inner *= cur[b];
      cost += outputs * cap_[a] * (inner == 1 ? kInnermostCost : 1.0);
    }
    return cost;
  }
  // order_ as the cheapest permutation of the resized axes, ties in the axes' order. Beyond
  // kMaxSearchedPasses of them (never seen: images and volumes resize 2 or 3), the most
  // shrinking axis first, so later passes work on less data.
  static constexpr int kMaxSearchedPasses = 5;  // 120 orders
  void choose_pass_order() {
    if (n_passes_ > kMaxSearchedPasses) {
      std::stable_sort(order_, order_ + n_passes_, [&](int p, int q) {
        return static_cast<double>(st_.out_dims[p]) * static_cast<double>(st_.in_dims[q]) <
               static_cast<double>(st_.out_dims[q]) * static_cast<double>(st_.in_dims[p]);
      });
      return;
    }
    std::sort(order_, order_ + n_passes_);
    int best[kMaxRank];
    std::copy(order_, order_ + n_passes_, best);
    double best_cost = pass_order_cost();
    while (std::next_permutation(order_, order_ + n_passes_)) {
      const double cost = pass_order_cost();
      if (cost < best_cost) {
        best_cost = cost;
        std::copy(order_, order_ + n_passes_, best);
      }
    }
    std::copy(best, best + n_passes_, order_);
  }

  template <typename T, typename C>
  void run_interp(const KernelArgs& args, const AxisTable* tables, uint8_t* scratch) const {
    int active[kMaxRank];
    int n = 0;
    for (int p = 0; p < n_passes_; ++p)
      if (!tables[order_[p]].identity) active[n++] = order_[p];
    const T* in = args.input<T>(0);
    T* out = args.output<T>(0);
    if (n == 0) {
      parallel_copy(out, in, static_cast<size_t>(numel_) * sizeof(T), args.num_threads);
      return;
    }
    C* buf[2] = {reinterpret_cast<C*>(scratch), reinterpret_cast<C*>(scratch + scratch_bytes_)};
    const C fill = static_cast<C>(st_.at.extrapolation);
    int64_t cur[kMaxRank];
    for (int a = 0; a < st_.rank; ++a) cur[a] = st_.in_dims[a];
    const C* prev = nullptr;  // the last intermediate (compute type)
    for (int p = 0; p < n; ++p) {
      const int a = active[p];
      int64_t outer = 1, inner = 1;
      for (int b = 0; b < a; ++b) outer *= cur[b];
      for (int b = a + 1; b < st_.rank; ++b) inner *= cur[b];
      const AxisTable& t = tables[a];
      const bool first = p == 0, last = p == n - 1;
      C* next = last ? nullptr : buf[p % 2];
      if (first && last) {
        resize_pass<T, T, C>(in, out, outer, cur[a], st_.out_dims[a], inner, t.idx, t.w, t.extrap,
                             t.taps, cap_[a], fill, args.num_threads);
      } else if (first) {
        resize_pass<T, C, C>(in, next, outer, cur[a], st_.out_dims[a], inner, t.idx, t.w, t.extrap,
                             t.taps, cap_[a], fill, args.num_threads);
      } else if (last) {
        resize_pass<C, T, C>(prev, out, outer, cur[a], st_.out_dims[a], inner, t.idx, t.w, t.extrap,
                             t.taps, cap_[a], fill, args.num_threads);
      } else {
        resize_pass<C, C, C>(prev, next, outer, cur[a], st_.out_dims[a], inner, t.idx, t.w,
                             t.extrap, t.taps, cap_[a], fill, args.num_threads);
      }
      cur[a] = st_.out_dims[a];
      prev = next;
    }
  }

  ResizeStatic st_;  // the checked node (common/resize_plan.h)
  DType dtype_ = DType::kF32;
  int64_t numel_ = 0;
  size_t elem_ = 0;
  uint64_t fill_ = 0;  // extrapolation_value as one storage element
  int cap_[kMaxRank] = {};
  size_t idx_off_[kMaxRank] = {};
  size_t flag_off_[kMaxRank] = {};
  size_t table_bytes_ = 0;
  size_t scratch_bytes_ = 0;  // one intermediate buffer; the workspace holds two
  int order_[kMaxRank] = {};
  int n_passes_ = 0;
  bool resolved_ = false;
  std::vector<uint64_t> table_storage_;  // 8-byte aligned backing for tables_
  AxisTable tables_[kMaxRank];
};

}  // namespace

void register_resize_kernels(KernelRegistry& registry) {
  add_kernel_family<ResizeKernel>(registry, Backend::kCpu, resize_family());
}

}  // namespace amp::kernels::cpu
