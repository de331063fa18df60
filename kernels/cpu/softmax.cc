// Softmax and LogSoftmax, max-subtracted, in fp32 (f64 for f64), over the [outer, len,
// inner] view shape inference resolved (graph/ops/op_attrs.h, SoftmaxAttrs: the opset rules live
// there, once).
//
// Three passes per row: max, sum of exp(x - max) (pairwise), then the outputs. f32/f64
// outputs hold exp(x - max) between passes 2 and 3; f16/bf16 recompute it so nothing is
// rounded to the storage type before the final store. f32 Softmax over contiguous rows takes
// its exps vectorized (kernels/cpu/vector_exp.h) over batches of rows: each row's x - max
// is stored, one exp_f32 call covers the batch (short rows, e.g. a detector's two class
// scores, cost one call per batch, not per row), then each row is summed and scaled (the
// passes of rows of 16 or more vectorized per ISA: kernels/cpu/softmax_rows.h). Over
// a strided axis (inner > 1: a YOLOv8 DFL's Softmax over 16 bins of 8400 anchors) the f32
// exps run vectorized over each row of a tile of up to 256 columns (0.31 -> 0.12 ms, YOLOv8n
// at 320x320, one thread, as on AVX2).
#include <algorithm>
#include <type_traits>

#include "kernels/common/checked_kernel.h"
#include "kernels/common/reduction_family.h"
#include "kernels/common/reduction_functors.h"
#include "kernels/common/reduction_io.h"
#include "kernels/cpu/cpu_common.h"
#include "kernels/cpu/reduce_util.h"
#include "kernels/cpu/softmax_rows.h"
#include "kernels/cpu/vector_exp.h"

namespace amp::kernels::cpu {
namespace {

template <typename T, bool kLog>
class SoftmaxKernel : public CheckedKernel<T, graph::AxisGeometry, check_softmax_io> {
 public:
  Status run(const KernelArgs& a) const override {
    if (this->shape_.inner == 1)
      run_rows(a.input<T>(0), a.output<T>(0), a.num_threads);
    else
      run_tiles(a.input<T>(0), a.output<T>(0), a.num_threads);
    return Status::ok();
  }

 private:
  using C = compute_t<T>;
  // Storage and compute type coincide (f32, f64): y can hold exp(x - max) between passes.
  static constexpr bool kStoreExp = std::is_same_v<T, C> && !kLog;

  // The normalized dim is innermost: each row is contiguous.
  void run_rows(const T* x, T* y, int threads) const {
    const int64_t len = this->shape_.len;
    if constexpr (std::is_same_v<T, float> && !kLog) {
      run_rows_f32(x, y, threads);
      return;
    }
    auto max_op = [](C u, C v) { return reduce_max_step(u, v); };
    auto add = [](C u, C v) { return reduce_sum_step(u, v); };
    parallel_for(
        this->shape_.outer, threads,
        [&](int64_t begin, int64_t end) {
          for (int64_t o = begin; o < end; ++o) {
            const T* xr = x + o * len;
            T* yr = y + o * len;
            auto load = [xr](int64_t i) { return to_compute(xr[i]); };
            const C m = tree_reduce<C>(0, len, reduce_identity_max<C>(), max_op, load);
            C sum;
            if constexpr (kStoreExp) {
              sum = tree_reduce<C>(0, len, C(0), add, [xr, yr, m](int64_t i) {
                const C e = softmax_exp(xr[i], m);
                yr[i] = e;
                return e;
              });
            } else {
              sum = tree_reduce<C>(0, len, C(0), add, [xr, m](int64_t i) {
                return softmax_exp(to_compute(xr[i]), m);
              });
            }
            if constexpr (kLog) {
              const C log_sum = math_log(sum);
              for (int64_t i = 0; i < len; ++i)
                yr[i] = from_compute<T>(log_softmax_value(to_compute(xr[i]), m, log_sum));
            } else if constexpr (kStoreExp) {
              const C inv = C(1) / sum;
              for (int64_t i = 0; i < len; ++i) yr[i] = yr[i] * inv;
            } else {
              const C inv = C(1) / sum;
              for (int64_t i = 0; i < len; ++i)
                yr[i] = from_compute<T>(softmax_value(to_compute(xr[i]), m, inv));
            }
          }
        },
        grain_for(len));
  }

  // tree_reduce over [0, len). Below its 8 lanes tree_reduce is a left fold from `init` (its
  // lanes hold only `init`, which max and + absorb exactly); written out here, since its lane
  // set-up cost more than a detector's rows of 2.
  template <typename Op, typename Load>
  static float row_reduce(int64_t len, float init, Op op, Load load) {
    if (len >= 8) return tree_reduce<float>(0, len, init, op, load);
    float acc = init;
    for (int64_t i = 0; i < len; ++i) acc = op(acc, load(i));
    return acc;
  }

  // run_rows for f32 Softmax (header): the same values as the generic path but for exp,
  // which is exp_f32's (within 1-2 ulp of std::exp). Rows of kVectorRow or more take the
  // passes of softmax_rows.h, compiled per ISA; shorter ones (a detector's 2 class scores)
  // stay inline, where a call per row would cost more than the row.
  static constexpr int64_t kVectorRow = 16;
  void run_rows_f32(const float* x, float* y, int threads) const {
    const int64_t len = this->shape_.len;
    constexpr int64_t kBatchElements = 4096;
    auto max_op = [](float u, float v) { return reduce_max_step(u, v); };
    auto add = [](float u, float v) { return reduce_sum_step(u, v); };
    parallel_for(
        this->shape_.outer, threads,
        [&](int64_t begin, int64_t end) {
          for (int64_t o0 = begin; o0 < end;) {
            const int64_t rows =
                std::clamp<int64_t>(kBatchElements / std::max<int64_t>(len, 1), 1, end - o0);
            for (int64_t o = o0; o < o0 + rows; ++o) {
              const float* xr = x + o * len;
              float* yr = y + o * len;
              if (len >= kVectorRow) {
                subtract_row(xr, yr, len, row_max(xr, len));
              } else {
                const float m = row_reduce(len, reduce_identity_max<float>(), max_op,
                                           [xr](int64_t i) { return xr[i]; });
                for (int64_t i = 0; i < len; ++i) yr[i] = xr[i] - m;
              }
            }
            exp_f32(y + o0 * len, y + o0 * len, rows * len);
            for (int64_t o = o0; o < o0 + rows; ++o) {
              float* yr = y + o * len;
              if (len >= kVectorRow) {
                scale_row(yr, len, 1.0f / row_sum(yr, len));
              } else {
                const float sum = row_reduce(len, 0.0f, add, [yr](int64_t i) { return yr[i]; });
                const float inv = 1.0f / sum;
                for (int64_t i = 0; i < len; ++i) yr[i] = yr[i] * inv;
              }
            }
            o0 += rows;
          }
        },
        grain_for(len));
  }

  // The normalized dim has stride `inner`: kTile columns at a time, state on the stack.
  void run_tiles(const T* x, T* y, int threads) const {
    const int64_t len = this->shape_.len, inner = this->shape_.inner;
    const int64_t tiles = (inner + kTile - 1) / kTile;
    parallel_for(
        this->shape_.outer * tiles, threads,
        [&](int64_t begin, int64_t end) {
          C mx[kTile];
          C sm[kTile];
          C blk[kTile];
          for (int64_t item = begin; item < end; ++item) {
            const int64_t o = item / tiles;
            const int64_t c0 = (item % tiles) * kTile;
            const int64_t w = std::min(kTile, inner - c0);
            const T* xb = x + o * len * inner + c0;
            T* yb = y + o * len * inner + c0;
            for (int64_t j = 0; j < w; ++j) {
              mx[j] = reduce_identity_max<C>();
              sm[j] = C(0);
            }
            for (int64_t i = 0; i < len; ++i)
              for (int64_t j = 0; j < w; ++j)
                mx[j] = reduce_max_step(mx[j], to_compute(xb[i * inner + j]));
            // Blocked sum: kTile rows per partial sum, partials added to the total.
            for (int64_t i0 = 0; i0 < len; i0 += kTile) {
              for (int64_t j = 0; j < w; ++j) blk[j] = C(0);
              const int64_t i1 = std::min(len, i0 + kTile);
              for (int64_t i = i0; i < i1; ++i) {
                if constexpr (std::is_same_v<T, float> && !kLog) {
                  // x - max stored, then one vectorized exp over the row of the tile.
                  const float* xr = xb + i * inner;
                  float* yr = yb + i * inner;
                  for (int64_t j = 0; j < w; ++j) yr[j] = xr[j] - mx[j];
                  exp_f32(yr, yr, w);
                  for (int64_t j = 0; j < w; ++j) blk[j] += yr[j];
                } else {
                  for (int64_t j = 0; j < w; ++j) {
                    const C e = softmax_exp(to_compute(xb[i * inner + j]), mx[j]);
                    if constexpr (kStoreExp) yb[i * inner + j] = e;
                    blk[j] += e;
                  }
                }
              }
              for (int64_t j = 0; j < w; ++j) sm[j] += blk[j];
            }
            if constexpr (kLog) {
              for (int64_t j = 0; j < w; ++j) sm[j] = math_log(sm[j]);
              for (int64_t i = 0; i < len; ++i)
                for (int64_t j = 0; j < w; ++j)
                  yb[i * inner + j] = from_compute<T>(
                      log_softmax_value(to_compute(xb[i * inner + j]), mx[j], sm[j]));
            } else {
              for (int64_t j = 0; j < w; ++j) sm[j] = C(1) / sm[j];
              for (int64_t i = 0; i < len; ++i) {
                for (int64_t j = 0; j < w; ++j) {
                  if constexpr (kStoreExp)
                    yb[i * inner + j] = yb[i * inner + j] * sm[j];
                  else
                    yb[i * inner + j] =
                        from_compute<T>(softmax_value(to_compute(xb[i * inner + j]), mx[j], sm[j]));
                }
              }
            }
          }
        },
        grain_for(len * std::min(kTile, inner)));
  }
};

}  // namespace

void register_softmax_kernels(KernelRegistry& r) {
  add_softmax_family<SoftmaxKernel>(r, Backend::kCpu, /*in_place_input=*/0);
}

}  // namespace amp::kernels::cpu
