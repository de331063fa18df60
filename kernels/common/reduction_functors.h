// The arithmetic of reductions, normalizations and softmax, written once for the CPU loops
// (kernels/cpu/reduce_*.cc, norm_*.cc, softmax.cc) and the CUDA kernels (kernels/cuda/).
// Everything here is a small AMP_HOST_DEVICE function on the compute type (float for
// f32/f16/bf16 storage, double for f64, int64_t for integer reductions): no exceptions, no
// allocation, only <cmath> functions nvcc also offers on the device (the identities use
// constexpr std::numeric_limits, which nvcc accepts under --expt-relaxed-constexpr, as
// amp_kernels_cuda is built). Loops, indexing and launch geometry stay with each backend.
//
//   float m = reduce_identity_max<float>();
//   for (...) m = reduce_max_step(m, x);       // NaN-propagating, like numpy.max
//   float y = softmax_value(x, m, 1.0f / sum);  // exp(x - max) / sum
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "kernels/common/reduction_types.h"
#include "runtime/common/host_device.h"

namespace amp::kernels {

// ---- Elementary math on the compute type (float or double), device-safe overloads. ----
AMP_HOST_DEVICE float math_exp(float x) {
  return expf(x);
}
AMP_HOST_DEVICE double math_exp(double x) {
  return exp(x);
}
AMP_HOST_DEVICE float math_log(float x) {
  return logf(x);
}
AMP_HOST_DEVICE double math_log(double x) {
  return log(x);
}
AMP_HOST_DEVICE float math_sqrt(float x) {
  return sqrtf(x);
}
AMP_HOST_DEVICE double math_sqrt(double x) {
  return sqrt(x);
}

template <typename C>
AMP_HOST_DEVICE bool is_nan_value(C x) {
  return x != x;  // false for every integer; true only for a float NaN
}

// ---- ReduceSum / ReduceMean ----
template <typename C>
AMP_HOST_DEVICE C reduce_sum_step(C acc, C x) {
  return acc + x;
}
// The mean of `count` elements whose sum is `sum`. Integer means truncate toward zero (as
// ONNX Runtime does); an empty integer set gives 0 instead of dividing by zero, an empty
// float set gives NaN (0/0).
AMP_HOST_DEVICE float reduce_mean_finish(float sum, int64_t count) {
  return sum / static_cast<float>(count);
}
AMP_HOST_DEVICE double reduce_mean_finish(double sum, int64_t count) {
  return sum / static_cast<double>(count);
}
AMP_HOST_DEVICE int64_t reduce_mean_finish(int64_t sum, int64_t count) {
  return count == 0 ? 0 : sum / count;
}

// ---- ReduceMax / ReduceMin ----
// The identity of Max in a float compute type (-inf), for Softmax's row maximum; the Reduce*
// kernels take the storage type's limits from lowest_of / highest_of (reduction_types.h).
template <typename C>
AMP_HOST_DEVICE C reduce_identity_max() {
  return std::numeric_limits<C>::has_infinity ? -std::numeric_limits<C>::infinity()
                                              : std::numeric_limits<C>::lowest();
}
// NaN wins once seen (numpy.max semantics): the accumulator keeps a NaN because no
// comparison with it is true.
template <typename C>
AMP_HOST_DEVICE C reduce_max_step(C acc, C x) {
  return (x > acc || is_nan_value(x)) ? x : acc;
}
template <typename C>
AMP_HOST_DEVICE C reduce_min_step(C acc, C x) {
  return (x < acc || is_nan_value(x)) ? x : acc;
}

// ---- Reducers: the Reduce* ops as (map, step, finish) ----
// ReduceX(data) = finish(step over map(x) from init<T>(), count). `step` is associative (the
// tree and warp reductions regroup it); init is step's identity for storage type T and,
// after finish, the ONNX result of an empty set. C is the accumulator type
// (reduction_types.h: float for f32/f16/bf16, double for f64, int64_t for integers and bool).
struct SumReducer {
  template <typename T>
  AMP_HOST_DEVICE static reduction::compute_t<T> init() {
    return reduction::compute_t<T>(0);
  }
  template <typename C>
  AMP_HOST_DEVICE static C map(C x) {
    return x;
  }
  template <typename C>
  AMP_HOST_DEVICE static C step(C acc, C x) {
    return reduce_sum_step(acc, x);
  }
  template <typename C>
  AMP_HOST_DEVICE static C finish(C acc, int64_t) {
    return acc;
  }
};
struct MeanReducer : SumReducer {
  template <typename C>
  AMP_HOST_DEVICE static C finish(C acc, int64_t count) {
    return reduce_mean_finish(acc, count);
  }
};
// ReduceL1: sum |x|.
struct L1Reducer : SumReducer {
  template <typename C>
  AMP_HOST_DEVICE static C map(C x) {
    if constexpr (std::is_integral_v<C>)  // wraps like the sum (INT64_MIN stays itself)
      return x < 0 ? static_cast<C>(0ull - static_cast<unsigned long long>(x)) : x;
    else
      return x < C(0) ? -x : x;
  }
};
// ReduceSumSquare: sum x^2.
struct SumSquareReducer : SumReducer {
  template <typename C>
  AMP_HOST_DEVICE static C map(C x) {
    if constexpr (std::is_integral_v<C>)  // wraps like the sum
      return static_cast<C>(static_cast<unsigned long long>(x) *
                            static_cast<unsigned long long>(x));
    else
      return x * x;
  }
};
// ReduceL2: sqrt(sum x^2), float types only. Squares accumulate in fp32 for f16/bf16
// storage, so values above 256 (whose squares overflow fp16) are fine.
struct L2Reducer : SumSquareReducer {
  template <typename C>
  AMP_HOST_DEVICE static C finish(C acc, int64_t) {
    return math_sqrt(acc);
  }
};
// ReduceLogSumExp: log(sum exp(x)), float types only, as ONNX defines it (no max
// subtraction: exp overflows the accumulator above ~88 in fp32, ~709 in f64, giving +inf as
// the reference does). Under AMP the op is NEVER, so it accumulates in fp32 at least.
struct LogSumExpReducer : SumReducer {
  template <typename C>
  AMP_HOST_DEVICE static C map(C x) {
    return math_exp(x);
  }
  template <typename C>
  AMP_HOST_DEVICE static C finish(C acc, int64_t) {
    return math_log(acc);
  }
};
// ReduceLogSum: log(sum x), float types only; an empty or non-positive sum gives -inf or
// NaN, as log does.
struct LogSumReducer : SumReducer {
  template <typename C>
  AMP_HOST_DEVICE static C finish(C acc, int64_t) {
    return math_log(acc);
  }
};
// ReduceProd: the product (1 for an empty set); integers wrap.
struct ProdReducer {
  template <typename T>
  AMP_HOST_DEVICE static reduction::compute_t<T> init() {
    return reduction::compute_t<T>(1);
  }
  template <typename C>
  AMP_HOST_DEVICE static C map(C x) {
    return x;
  }
  template <typename C>
  AMP_HOST_DEVICE static C step(C acc, C x) {
    if constexpr (std::is_integral_v<C>)
      return static_cast<C>(static_cast<unsigned long long>(acc) *
                            static_cast<unsigned long long>(x));
    else
      return acc * x;
  }
  template <typename C>
  AMP_HOST_DEVICE static C finish(C acc, int64_t) {
    return acc;
  }
};
// ReduceMax / ReduceMin: init is the storage type's lowest / highest.
struct MaxReducer {
  template <typename T>
  AMP_HOST_DEVICE static reduction::compute_t<T> init() {
    return reduction::lowest_of<T>();
  }
  template <typename C>
  AMP_HOST_DEVICE static C map(C x) {
    return x;
  }
  template <typename C>
  AMP_HOST_DEVICE static C step(C acc, C x) {
    return reduce_max_step(acc, x);
  }
  template <typename C>
  AMP_HOST_DEVICE static C finish(C acc, int64_t) {
    return acc;
  }
};
struct MinReducer : MaxReducer {
  template <typename T>
  AMP_HOST_DEVICE static reduction::compute_t<T> init() {
    return reduction::highest_of<T>();
  }
  template <typename C>
  AMP_HOST_DEVICE static C step(C acc, C x) {
    return reduce_min_step(acc, x);
  }
};

// ---- ArgMax, ArgMin ----
// Whether element x (later in scan order) replaces the current best: larger (ArgMax) or
// smaller (`smallest`: ArgMin). NaN counts as the extreme either way (numpy.argmax and
// numpy.argmin): the first NaN wins, or the last one with select_last.
template <typename C>
AMP_HOST_DEVICE bool arg_takes(C x, C best, bool select_last, bool smallest) {
  const bool beats = smallest ? x < best : x > best;
  if (select_last) return beats || x == best || is_nan_value(x);
  return beats || (is_nan_value(x) && !is_nan_value(best));
}

// ---- Softmax / LogSoftmax (max-subtracted so exp never overflows) ----
template <typename C>
AMP_HOST_DEVICE C softmax_exp(C x, C row_max) {
  return math_exp(x - row_max);
}
template <typename C>
AMP_HOST_DEVICE C softmax_value(C x, C row_max, C inv_sum) {
  return math_exp(x - row_max) * inv_sum;
}
// log_sum = log(sum_j exp(x_j - max)).
template <typename C>
AMP_HOST_DEVICE C log_softmax_value(C x, C row_max, C log_sum) {
  return x - row_max - log_sum;
}

// ---- Normalization statistics ----
// Two-pass statistics (mean first, then the mean of squared deviations) are what the CPU
// uses. The GPU may use Welford's single pass; the update and merge steps are below so
// both backends share them. Never E[x^2] - E[x]^2: it cancels catastrophically.
template <typename C>
AMP_HOST_DEVICE C squared_deviation(C x, C mean) {
  const C d = x - mean;
  return d * d;
}
template <typename C>
AMP_HOST_DEVICE C inv_std_dev(C variance, C epsilon) {
  return C(1) / math_sqrt(variance + epsilon);
}

// Welford running state: count, mean, M2 (sum of squared deviations from the mean).
template <typename C>
struct WelfordState {
  C count = C(0);
  C mean = C(0);
  C m2 = C(0);
};
template <typename C>
AMP_HOST_DEVICE void welford_update(WelfordState<C>& s, C x) {
  s.count += C(1);
  const C delta = x - s.mean;
  s.mean += delta / s.count;
  s.m2 += delta * (x - s.mean);
}
// Chan et al.'s parallel merge of two partial states.
template <typename C>
AMP_HOST_DEVICE void welford_merge(WelfordState<C>& a, const WelfordState<C>& b) {
  if (b.count == C(0)) return;
  if (a.count == C(0)) {
    a = b;
    return;
  }
  const C n = a.count + b.count;
  const C delta = b.mean - a.mean;
  a.mean += delta * (b.count / n);
  a.m2 += b.m2 + delta * delta * (a.count * b.count / n);
  a.count = n;
}
// Population variance (divide by n), as LayerNorm/InstanceNorm/BatchNorm use.
template <typename C>
AMP_HOST_DEVICE C welford_variance(const WelfordState<C>& s) {
  return s.count > C(0) ? s.m2 / s.count : C(0);
}

// y = (x - mean) * inv_std * scale + bias: LayerNormalization and InstanceNormalization.
template <typename C>
AMP_HOST_DEVICE C normalize_value(C x, C mean, C inv_std, C scale, C bias) {
  return (x - mean) * inv_std * scale + bias;
}

// BatchNormalization (inference) folds its four per-channel inputs into y = x * a + b.
template <typename C>
AMP_HOST_DEVICE C batchnorm_scale(C scale, C var, C epsilon) {
  return scale / math_sqrt(var + epsilon);
}
template <typename C>
AMP_HOST_DEVICE C batchnorm_shift(C bias, C mean, C folded_scale) {
  return bias - mean * folded_scale;
}
template <typename C>
AMP_HOST_DEVICE C batchnorm_value(C x, C folded_scale, C folded_shift) {
  return x * folded_scale + folded_shift;
}

}  // namespace amp::kernels
