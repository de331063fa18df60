// Tests of the CPU elementwise family (kernels/cpu/elementwise_*.cc) against naive
// references written here in double precision, independently of the kernels' functors.
// Kernels are driven one at a time by the shared harness (tests/test_util/kernel_harness.h);
// the last test runs the ONNX node tests of these ops end to end.
//
// Inputs are random (fresh seed per test, printed on failure) and never all zero. f16 and
// bf16 inputs are rounded to their type first and the reference uses the rounded values;
// tolerances: f32 1e-5, f16 1e-3, bf16 1e-2 (relative), f64 1e-12. NaN never passes
// unless a test expects NaN explicitly.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "kernels/cpu/cpu_kernels.h"
#include "kernels/kernel_registry.h"
#include "runtime/common/half.h"
#include "tests/test_util/graph_runner.h"
#include "tests/test_util/kernel_harness.h"
#include "tests/test_util/node_tests.h"
#include "tests/test_util/shared_data.h"

namespace amp {
namespace {

using graph::OpType;
using kernels::Backend;

// ---- Test tensors: the shared kernel harness's (tests/test_util/kernel_harness.h) ----

using Tensor = test::HostTensor;

Tensor absent() {
  return test::absent_tensor();
}
Tensor make(DType dt, std::vector<int64_t> dims, const std::vector<double>& values) {
  EXPECT_EQ(static_cast<int64_t>(values.size()), test::output_spec(dt, dims).numel());
  return test::host_tensor(dt, std::move(dims), values);
}
template <typename T>
Tensor make_raw(DType dt, std::vector<int64_t> dims, const std::vector<T>& values) {
  return test::raw_tensor<T>(dt, std::move(dims), values);
}
template <typename T>
std::vector<T> raw(const Tensor& t) {
  return test::raw_values<T>(t);
}
// The values as the kernel sees them (rounded to the storage type).
std::vector<double> values(const Tensor& t) {
  return test::tensor_values(t);
}

int64_t numel_of(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// ---- Random inputs ------------------------------------------------------------------------

struct Rng {
  uint32_t seed;
  std::mt19937 gen;
  Rng() : seed(std::random_device{}()), gen(seed) {}
  double uniform(double lo, double hi) {
    return std::uniform_real_distribution<double>(lo, hi)(gen);
  }
  int64_t integer(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(gen);
  }
};

// Uniform values in [lo, hi] (not all zero); `nonzero_margin` keeps |v| >= margin.
std::vector<double> random_values(Rng& rng, int64_t n, double lo, double hi,
                                  double nonzero_margin = 0.0) {
  std::vector<double> v(static_cast<size_t>(n));
  for (double& x : v) {
    do {
      x = rng.uniform(lo, hi);
    } while (std::fabs(x) < nonzero_margin);
  }
  if (n > 0 && nonzero_margin == 0.0) v[0] = lo + (hi - lo) * 0.37;  // never all zero
  return v;
}

std::vector<double> random_ints(Rng& rng, int64_t n, int64_t lo, int64_t hi, bool nonzero = false) {
  std::vector<double> v(static_cast<size_t>(n));
  for (double& x : v) {
    int64_t k;
    do {
      k = rng.integer(lo, hi);
    } while (nonzero && k == 0);
    x = static_cast<double>(k);
  }
  if (n > 0 && !nonzero) v[0] = static_cast<double>(hi);
  return v;
}

Tensor random_tensor(Rng& rng, DType dt, std::vector<int64_t> dims, double lo, double hi,
                     double nonzero_margin = 0.0) {
  const int64_t n = numel_of(dims);
  if (is_float(dt)) return make(dt, std::move(dims), random_values(rng, n, lo, hi, nonzero_margin));
  return make(
      dt, std::move(dims),
      random_ints(rng, n, static_cast<int64_t>(lo), static_cast<int64_t>(hi), nonzero_margin > 0));
}

// ---- Running one kernel -------------------------------------------------------------------

struct RunOptions {
  graph::Attributes attrs;
  int threads = 1;
  bool in_place = false;  // output 0 overwrites input 0's buffer
};

Result<Tensor> run_op(OpType op, const std::vector<Tensor>& ins, DType out_dtype,
                      std::vector<int64_t> out_dims, const RunOptions& opt = {}) {
  test::KernelRun r = test::run_kernel(
      {.op = op, .attrs = opt.attrs, .threads = opt.threads, .in_place = opt.in_place}, ins,
      {test::output_spec(out_dtype, std::move(out_dims))});
  if (!r.ok()) return r.status();
  return std::move(r.outputs[0]);
}

// ---- Comparing ------------------------------------------------------------------------------

struct Tol {
  double rtol;
  double atol;
};

Tol tol_for(DType dt) {
  switch (dt) {
    case DType::kF32:
      return {1e-5, 1e-6};
    case DType::kF16:
      return {1e-3, 1e-5};
    case DType::kBF16:
      return {1e-2, 1e-5};
    case DType::kF64:
      return {1e-12, 1e-14};
    case DType::kI64:
    case DType::kI32:
    case DType::kI16:
    case DType::kI8:
    case DType::kU8:
    case DType::kBool:
    case DType::kUndefined:
      return {0, 0};
  }
  return {0, 0};
}

// |a - e| <= atol + rtol |e|; NaN never passes; infinities must match exactly.
void expect_close(const std::vector<double>& actual, const std::vector<double>& expected, Tol tol,
                  const std::string& what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  int bad = 0;
  for (size_t i = 0; i < actual.size(); ++i) {
    const double a = actual[i], e = expected[i];
    bool ok;
    if (std::isnan(a) || std::isnan(e))
      ok = false;
    else if (std::isinf(a) || std::isinf(e))
      ok = a == e;
    else
      ok = std::fabs(a - e) <= tol.atol + tol.rtol * std::fabs(e);
    if (!ok && bad++ < 5)
      ADD_FAILURE() << what << ": element " << i << " got " << a << ", expected " << e;
  }
  EXPECT_EQ(bad, 0) << what << ": " << bad << " of " << actual.size() << " elements differ";
}

std::string label(OpType op, DType dt, const std::vector<int64_t>& dims, const Rng& rng) {
  std::ostringstream os;
  os << graph::op_name(op) << " " << dtype_name(dt) << " [";
  for (size_t i = 0; i < dims.size(); ++i) os << (i ? "," : "") << dims[i];
  os << "] seed " << rng.seed;
  return os.str();
}

const std::vector<DType> kFloatTypes = {DType::kF32, DType::kF16, DType::kBF16, DType::kF64};
const std::vector<DType> kIntTypes = {DType::kI64, DType::kI32, DType::kI16, DType::kI8,
                                      DType::kU8};
const std::vector<std::vector<int64_t>> kUnaryShapes = {{}, {1}, {7}, {3, 5, 17}, {4, 33, 257}};

// ---- Unary float ops ----------------------------------------------------------------------

struct UnaryCase {
  OpType op;
  double lo, hi, margin;  // input range; |x| >= margin
  std::function<double(double)> ref;
  graph::Attributes attrs;
};

double ref_gelu_erf(double x) {
  return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
}
double ref_gelu_tanh(double x) {
  return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
}

std::vector<UnaryCase> unary_cases() {
  graph::Attributes leaky, hsig, gelu_none, gelu_tanh;
  leaky.set("alpha", 0.1f);
  hsig.set("alpha", 0.3f);
  hsig.set("beta", 0.4f);
  gelu_none.set("approximate", std::string("none"));
  gelu_tanh.set("approximate", std::string("tanh"));
  const double a_leaky = 0.1f, a_hs = 0.3f, b_hs = 0.4f;  // the float values, widened
  return {
      {OpType::kAbs, -5, 5, 0, [](double x) { return std::fabs(x); }, {}},
      {OpType::kNeg, -5, 5, 0, [](double x) { return -x; }, {}},
      {OpType::kExp, -6, 6, 0, [](double x) { return std::exp(x); }, {}},
      {OpType::kLog, 0.05, 20, 0, [](double x) { return std::log(x); }, {}},
      {OpType::kSqrt, 0, 20, 0, [](double x) { return std::sqrt(x); }, {}},
      {OpType::kReciprocal, -4, 4, 0.25, [](double x) { return 1.0 / x; }, {}},
      {OpType::kErf, -3, 3, 0, [](double x) { return std::erf(x); }, {}},
      {OpType::kSigmoid, -8, 8, 0, [](double x) { return 1.0 / (1.0 + std::exp(-x)); }, {}},
      {OpType::kTanh, -4, 4, 0, [](double x) { return std::tanh(x); }, {}},
      {OpType::kRelu, -5, 5, 0, [](double x) { return x < 0 ? 0.0 : x; }, {}},
      {OpType::kLeakyRelu, -5, 5, 0, [=](double x) { return x < 0 ? a_leaky * x : x; }, leaky},
      {OpType::kLeakyRelu, -5, 5, 0, [](double x) { return x < 0 ? double(0.01f) * x : x; }, {}},
      {OpType::kHardSigmoid, -5, 5, 0,
       [=](double x) { return std::min(1.0, std::max(0.0, a_hs * x + b_hs)); }, hsig},
      {OpType::kHardSigmoid,
       -5,
       5,
       0,
       [](double x) { return std::min(1.0, std::max(0.0, double(0.2f) * x + 0.5)); },
       {}},
      {OpType::kHardSwish,
       -5,
       5,
       0,
       [](double x) { return x * std::min(1.0, std::max(0.0, x / 6.0 + 0.5)); },
       {}},
      {OpType::kGelu, -5, 5, 0, ref_gelu_erf, gelu_none},
      {OpType::kGelu, -5, 5, 0, ref_gelu_erf, {}},
      {OpType::kGelu, -5, 5, 0, ref_gelu_tanh, gelu_tanh},
  };
}

TEST(ElementwiseUnary, FloatOpsMatchReference) {
  Rng rng;
  for (const UnaryCase& c : unary_cases()) {
    for (DType dt : kFloatTypes) {
      for (const auto& dims : kUnaryShapes) {
        const std::string what = label(c.op, dt, dims, rng);
        Tensor x = random_tensor(rng, dt, dims, c.lo, c.hi, c.margin);
        std::vector<double> expected;
        for (double v : values(x)) expected.push_back(c.ref(v));
        RunOptions opt;
        opt.attrs = c.attrs;
        opt.threads = dims.size() == 3 && dims[0] == 4 ? 4 : 1;
        auto out = run_op(c.op, {x}, dt, dims, opt);
        ASSERT_TRUE(out.is_ok()) << what << ": " << out.status().to_string();
        Tol tol = tol_for(dt);
        // Results that cancel to ~0 (Gelu/HardSwish/Sigmoid tails) are judged on the
        // scale of the inputs.
        tol.atol = std::max(tol.atol, tol.rtol * 1e-3);
        expect_close(values(*out), expected, tol, what);
      }
    }
  }
}

TEST(ElementwiseUnary, InPlaceGivesSameResult) {
  Rng rng;
  for (OpType op : {OpType::kRelu, OpType::kSigmoid, OpType::kExp}) {
    Tensor x = random_tensor(rng, DType::kF32, {4, 33, 257}, -3, 3);
    RunOptions opt;
    opt.threads = 4;
    auto copy = run_op(op, {x}, DType::kF32, x.dims, opt);
    opt.in_place = true;
    auto in_place = run_op(op, {x}, DType::kF32, x.dims, opt);
    ASSERT_TRUE(copy.is_ok() && in_place.is_ok());
    EXPECT_EQ(copy->bytes, in_place->bytes) << graph::op_name(op);
  }
}

TEST(ElementwiseUnary, NanPropagatesThroughActivations) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (OpType op : {OpType::kRelu, OpType::kLeakyRelu, OpType::kHardSigmoid, OpType::kHardSwish,
                    OpType::kSigmoid, OpType::kGelu, OpType::kAbs}) {
    Tensor x = make_raw<float>(DType::kF32, {2}, {nan, 1.0f});
    auto out = run_op(op, {x}, DType::kF32, {2});
    ASSERT_TRUE(out.is_ok()) << out.status().to_string();
    EXPECT_TRUE(std::isnan(raw<float>(*out)[0])) << graph::op_name(op);
  }
}

TEST(ElementwiseUnary, ExtremeInputsStayFinite) {
  const float inf = std::numeric_limits<float>::infinity();
  Tensor x = make_raw<float>(DType::kF32, {4}, {-1000.0f, 1000.0f, -inf, inf});
  auto sig = run_op(OpType::kSigmoid, {x}, DType::kF32, {4});
  ASSERT_TRUE(sig.is_ok());
  EXPECT_EQ(raw<float>(*sig), (std::vector<float>{0.0f, 1.0f, 0.0f, 1.0f}));
  graph::Attributes tanh_attr;
  tanh_attr.set("approximate", std::string("tanh"));
  for (const graph::Attributes& attrs : {graph::Attributes{}, tanh_attr}) {
    RunOptions opt;
    opt.attrs = attrs;
    auto gelu = run_op(OpType::kGelu, {x}, DType::kF32, {4}, opt);
    ASSERT_TRUE(gelu.is_ok());
    const std::vector<float> g = raw<float>(*gelu);
    EXPECT_EQ(g[0], 0.0f);
    EXPECT_EQ(g[1], 1000.0f);
    EXPECT_EQ(g[3], inf);
  }
}

TEST(ElementwiseUnary, IntegerAbsNegRelu) {
  Rng rng;
  for (DType dt : kIntTypes) {
    const bool is_unsigned = dt == DType::kU8;
    Tensor x = random_tensor(rng, dt, {5, 9}, is_unsigned ? 0 : -100, 100);
    const std::vector<double> xv = values(x);
    auto abs = run_op(OpType::kAbs, {x}, dt, x.dims);
    ASSERT_TRUE(abs.is_ok()) << dtype_name(dt) << abs.status().to_string();
    std::vector<double> e;
    for (double v : xv) e.push_back(std::fabs(v));
    EXPECT_EQ(values(*abs), e) << "Abs " << dtype_name(dt);
    if (is_unsigned) {
      EXPECT_FALSE(run_op(OpType::kNeg, {x}, dt, x.dims).is_ok()) << "Neg on u8 is not ONNX";
      continue;
    }
    auto neg = run_op(OpType::kNeg, {x}, dt, x.dims);
    auto relu = run_op(OpType::kRelu, {x}, dt, x.dims);
    ASSERT_TRUE(neg.is_ok() && relu.is_ok());
    std::vector<double> en, er;
    for (double v : xv) {
      en.push_back(-v);
      er.push_back(v < 0 ? 0 : v);
    }
    EXPECT_EQ(values(*neg), en) << "Neg " << dtype_name(dt);
    EXPECT_EQ(values(*relu), er) << "Relu " << dtype_name(dt);
  }
  // The most negative value wraps (numpy: abs(int8(-128)) == -128), with no UB.
  Tensor m = make_raw<int32_t>(DType::kI32, {1}, {std::numeric_limits<int32_t>::min()});
  auto neg = run_op(OpType::kNeg, {m}, DType::kI32, {1});
  ASSERT_TRUE(neg.is_ok());
  EXPECT_EQ(raw<int32_t>(*neg)[0], std::numeric_limits<int32_t>::min());
}

TEST(ElementwiseUnary, NotAndLogicalBool) {
  Tensor x = make(DType::kBool, {2, 3}, {1, 0, 1, 1, 0, 0});
  auto out = run_op(OpType::kNot, {x}, DType::kBool, {2, 3});
  ASSERT_TRUE(out.is_ok());
  EXPECT_EQ(values(*out), (std::vector<double>{0, 1, 0, 0, 1, 1}));
}

TEST(ElementwiseUnary, RejectsBadConfigs) {
  Tensor x = make(DType::kF32, {3}, {1, 2, 3});
  EXPECT_EQ(run_op(OpType::kExp, {x}, DType::kF16, {3}).status().code(), ErrorCode::kInvalidModel);
  EXPECT_EQ(run_op(OpType::kExp, {x}, DType::kF32, {4}).status().code(), ErrorCode::kInvalidModel);
  RunOptions opt;
  opt.attrs.set("approximate", std::string("fast"));
  EXPECT_EQ(run_op(OpType::kGelu, {x}, DType::kF32, {3}, opt).status().code(),
            ErrorCode::kInvalidModel);
  opt.attrs = {};
  opt.attrs.set("alpha", std::string("x"));
  EXPECT_FALSE(run_op(OpType::kLeakyRelu, {x}, DType::kF32, {3}, opt).is_ok());
}

// ---- Clip -----------------------------------------------------------------------------------

TEST(ElementwiseClip, FloatBoundsConstantRuntimeAndMissing) {
  Rng rng;
  for (DType dt : kFloatTypes) {
    for (bool constant : {true, false}) {
      for (int which = 0; which < 4; ++which) {  // both, min only, max only, min > max
        const std::vector<int64_t> dims = {6, 35};
        Tensor x = random_tensor(rng, dt, dims, -4, 4);
        double lo = -1.25, hi = 2.5;
        if (which == 3) std::swap(lo, hi);
        Tensor tmin = make(dt, {}, {lo}), tmax = make(dt, {}, {hi});
        tmin.constant = tmax.constant = constant;
        std::vector<Tensor> ins = {x, tmin, tmax};
        if (which == 1) ins = {x, tmin};
        if (which == 2) ins = {x, absent(), tmax};
        const bool use_lo = which != 2, use_hi = which != 1;
        std::vector<double> e;
        for (double v : values(x)) {
          double y = v;
          if (use_lo && y < lo) y = lo;
          if (use_hi && y > hi) y = hi;
          e.push_back(y);
        }
        const std::string what = label(OpType::kClip, dt, dims, rng) + " case " +
                                 std::to_string(which) + (constant ? " const" : " runtime");
        auto out = run_op(OpType::kClip, ins, dt, dims);
        ASSERT_TRUE(out.is_ok()) << what << ": " << out.status().to_string();
        expect_close(values(*out), e, tol_for(dt), what);
      }
    }
  }
}

TEST(ElementwiseClip, IntegersNanAndErrors) {
  Tensor x = make(DType::kI8, {6}, {-128, -5, 0, 5, 100, 127});
  Tensor lo = make(DType::kI8, {}, {-6});
  lo.constant = true;
  Tensor hi = make(DType::kI8, {1}, {99});
  auto out = run_op(OpType::kClip, {x, lo, hi}, DType::kI8, {6});
  ASSERT_TRUE(out.is_ok()) << out.status().to_string();
  EXPECT_EQ(values(*out), (std::vector<double>{-6, -5, 0, 5, 99, 99}));
  auto none = run_op(OpType::kClip, {x}, DType::kI8, {6});
  ASSERT_TRUE(none.is_ok());
  EXPECT_EQ(values(*none), values(x));

  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor f = make_raw<float>(DType::kF32, {2}, {nan, 3.0f});
  Tensor fmin = make(DType::kF32, {}, {0.0});
  Tensor fmax = make(DType::kF32, {}, {1.0});
  auto nan_out = run_op(OpType::kClip, {f, fmin, fmax}, DType::kF32, {2});
  ASSERT_TRUE(nan_out.is_ok());
  EXPECT_TRUE(std::isnan(raw<float>(*nan_out)[0]));
  EXPECT_EQ(raw<float>(*nan_out)[1], 1.0f);

  Tensor vec_min = make(DType::kF32, {2}, {0, 1});
  EXPECT_EQ(run_op(OpType::kClip, {f, vec_min}, DType::kF32, {2}).status().code(),
            ErrorCode::kInvalidModel);
}

// ---- Binary arithmetic --------------------------------------------------------------------

const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> kBroadcastPairs = {
    {{3, 4, 5}, {3, 4, 5}},
    {{3, 4, 5}, {}},
    {{}, {3, 4, 5}},
    {{2, 3, 1, 5}, {3, 4, 1}},
    {{1, 4, 1}, {3, 1, 5}},
    {{2, 6, 7, 9}, {1, 6, 1, 1}},
    {{4, 33, 257}, {33, 1}},
    {{5}, {2, 3, 5}},
    {{0, 3}, {1, 3}},
    // A row vector against short rows, either operand (binary_row_vector; the first two
    // split across threads): a per-channel scale of a channels-last tensor.
    {{3000, 12}, {12}},
    {{12}, {3000, 12}},
    {{2, 5, 7, 16}, {1, 1, 1, 16}},
    // The same per group (8-channel blocks: [N, C/8, H, W, 8] by [N, C/8, 1, 1, 8]).
    {{1, 25, 2, 96, 8}, {1, 25, 1, 1, 8}},
    {{3, 1, 1, 8}, {3, 4, 5, 8}},
};

// Reference broadcasting: maps an output index to an input's flat index.
int64_t bcast_index(int64_t flat, const std::vector<int64_t>& out, const std::vector<int64_t>& in) {
  int64_t idx = 0, stride = 1;
  for (size_t k = 0; k < in.size(); ++k) {
    const size_t d_in = in.size() - 1 - k;
    const size_t d_out = out.size() - 1 - k;
    int64_t coord = flat;
    for (size_t j = out.size() - 1; j > d_out; --j) coord /= out[j];
    coord %= out[d_out];
    if (in[d_in] != 1) idx += coord * stride;
    stride *= in[d_in];
  }
  return idx;
}

std::vector<int64_t> ref_broadcast(std::vector<int64_t> a, std::vector<int64_t> b) {
  if (a.size() < b.size()) std::swap(a, b);
  std::vector<int64_t> out = a;
  for (size_t k = 0; k < b.size(); ++k) {
    int64_t& o = out[a.size() - 1 - k];
    const int64_t v = b[b.size() - 1 - k];
    if (o == 1) o = v;
  }
  return out;
}

std::vector<double> ref_binary(const Tensor& a, const Tensor& b, const std::vector<int64_t>& out,
                               const std::function<double(double, double)>& f) {
  const std::vector<double> av = values(a), bv = values(b);
  std::vector<double> r;
  for (int64_t i = 0; i < numel_of(out); ++i)
    r.push_back(f(av[bcast_index(i, out, a.dims)], bv[bcast_index(i, out, b.dims)]));
  return r;
}

// Wraps an exact integer result to the dtype's width, as the kernels must.
double wrap(double v, DType dt) {
  const int64_t i = static_cast<int64_t>(v);
  switch (dt) {
    case DType::kI8:
      return static_cast<int8_t>(i);
    case DType::kI16:
      return static_cast<int16_t>(i);
    case DType::kI32:
      return static_cast<int32_t>(i);
    case DType::kU8:
      return static_cast<uint8_t>(i);
    default:
      return v;
  }
}

TEST(ElementwiseBinary, ArithmeticBroadcastFloat) {
  Rng rng;
  struct Op {
    OpType op;
    std::function<double(double, double)> f;
  };
  const std::vector<Op> ops = {{OpType::kAdd, [](double a, double b) { return a + b; }},
                               {OpType::kSub, [](double a, double b) { return a - b; }},
                               {OpType::kMul, [](double a, double b) { return a * b; }},
                               {OpType::kDiv, [](double a, double b) { return a / b; }}};
  for (const Op& o : ops) {
    for (DType dt : kFloatTypes) {
      for (const auto& [da, db] : kBroadcastPairs) {
        const std::vector<int64_t> out = ref_broadcast(da, db);
        Tensor a = random_tensor(rng, dt, da, -3, 3);
        Tensor b = random_tensor(rng, dt, db, -3, 3, 0.25);
        const std::string what = label(o.op, dt, out, rng);
        RunOptions opt;
        opt.threads = numel_of(out) > 30000 ? 4 : 1;
        auto r = run_op(o.op, {a, b}, dt, out, opt);
        ASSERT_TRUE(r.is_ok()) << what << ": " << r.status().to_string();
        Tol tol = tol_for(dt);
        tol.atol = std::max(tol.atol, tol.rtol * 1e-2);  // Add/Sub may cancel to ~0
        expect_close(values(*r), ref_binary(a, b, out, o.f), tol, what);
      }
    }
  }
}

TEST(ElementwiseBinary, ArithmeticIntegersWrapAndTruncate) {
  Rng rng;
  for (DType dt : kIntTypes) {
    const bool u = dt == DType::kU8;
    for (const auto& [da, db] : kBroadcastPairs) {
      const std::vector<int64_t> out = ref_broadcast(da, db);
      Tensor a = random_tensor(rng, dt, da, u ? 0 : -120, 120);
      Tensor b = random_tensor(rng, dt, db, u ? 1 : -12, 12, /*nonzero*/ 1);
      const std::string what = label(OpType::kAdd, dt, out, rng);
      auto check = [&](OpType op, std::function<double(double, double)> f) {
        auto r = run_op(op, {a, b}, dt, out);
        ASSERT_TRUE(r.is_ok()) << what << " " << graph::op_name(op) << r.status().to_string();
        std::vector<double> e = ref_binary(a, b, out, f);
        for (double& v : e) v = wrap(v, dt);
        EXPECT_EQ(values(*r), e) << what << " " << graph::op_name(op);
      };
      check(OpType::kAdd, [](double x, double y) { return x + y; });
      check(OpType::kSub, [](double x, double y) { return x - y; });
      check(OpType::kMul, [](double x, double y) { return x * y; });
      check(OpType::kDiv, [](double x, double y) { return std::trunc(x / y); });
    }
  }
  // Wrapping at the type's edges, without UB (numpy semantics).
  const int32_t mn = std::numeric_limits<int32_t>::min(), mx = std::numeric_limits<int32_t>::max();
  Tensor a = make_raw<int32_t>(DType::kI32, {3}, {mx, mn, mn});
  Tensor b = make_raw<int32_t>(DType::kI32, {3}, {1, -1, 2});
  auto add = run_op(OpType::kAdd, {a, b}, DType::kI32, {3});
  auto div = run_op(OpType::kDiv, {a, b}, DType::kI32, {3});
  auto mul = run_op(OpType::kMul, {a, b}, DType::kI32, {3});
  ASSERT_TRUE(add.is_ok() && div.is_ok() && mul.is_ok());
  EXPECT_EQ(raw<int32_t>(*add), (std::vector<int32_t>{mn, mx, mn + 2}));
  EXPECT_EQ(raw<int32_t>(*div), (std::vector<int32_t>{mx, mn, mn / 2}));
  EXPECT_EQ(raw<int32_t>(*mul), (std::vector<int32_t>{mx, mn, 0}));
  Tensor i16a = make_raw<int16_t>(DType::kI16, {1}, {-32768});
  Tensor i16b = make_raw<int16_t>(DType::kI16, {1}, {-32768});
  auto mul16 = run_op(OpType::kMul, {i16a, i16b}, DType::kI16, {1});
  ASSERT_TRUE(mul16.is_ok());
  EXPECT_EQ(raw<int16_t>(*mul16)[0], 0);  // 2^30 wraps to 0 in 16 bits
}

TEST(ElementwiseBinary, IntegerDivisionByZeroIsInvalidInput) {
  Tensor a = make(DType::kI64, {3}, {1, 2, 3});
  Tensor b = make(DType::kI64, {3}, {1, 0, 3});
  auto r = run_op(OpType::kDiv, {a, b}, DType::kI64, {3});
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidInput) << r.status().to_string();
  // Float division by zero is IEEE: Inf.
  Tensor fa = make(DType::kF32, {1}, {1});
  Tensor fb = make(DType::kF32, {1}, {0});
  auto f = run_op(OpType::kDiv, {fa, fb}, DType::kF32, {1});
  ASSERT_TRUE(f.is_ok());
  EXPECT_TRUE(std::isinf(raw<float>(*f)[0]));
}

// Mod: fmod=0 takes the divisor's sign (Python's %), fmod=1 the dividend's (C's fmod); x % -1
// is 0 at INT_MIN without overflow; a zero divisor is invalid_input like Div's; an fmod
// other than 0 or 1 is rejected in prepare too.
TEST(ElementwiseBinary, ModSignsEdgesAndErrors) {
  const int32_t mn = std::numeric_limits<int32_t>::min();
  Tensor a = make_raw<int32_t>(DType::kI32, {5}, {7, -7, 7, -7, mn});
  Tensor b = make_raw<int32_t>(DType::kI32, {5}, {3, 3, -3, -3, -1});
  RunOptions python_sign;
  auto r0 = run_op(OpType::kMod, {a, b}, DType::kI32, {5}, python_sign);
  ASSERT_TRUE(r0.is_ok()) << r0.status().to_string();
  EXPECT_EQ(raw<int32_t>(*r0), (std::vector<int32_t>{1, 2, -2, -1, 0}));
  RunOptions c_sign;
  c_sign.attrs.set("fmod", int64_t{1});
  auto r1 = run_op(OpType::kMod, {a, b}, DType::kI32, {5}, c_sign);
  ASSERT_TRUE(r1.is_ok()) << r1.status().to_string();
  EXPECT_EQ(raw<int32_t>(*r1), (std::vector<int32_t>{1, -1, 1, -1, 0}));

  Tensor fa = make(DType::kF32, {2}, {5.5f, -5.5f});
  Tensor fb = make(DType::kF32, {2}, {2.0f, 2.0f});
  auto f = run_op(OpType::kMod, {fa, fb}, DType::kF32, {2}, c_sign);
  ASSERT_TRUE(f.is_ok()) << f.status().to_string();
  EXPECT_EQ(raw<float>(*f), (std::vector<float>{1.5f, -1.5f}));

  Tensor zero = make_raw<int32_t>(DType::kI32, {5}, {3, 0, 3, 3, 3});
  auto z = run_op(OpType::kMod, {a, zero}, DType::kI32, {5}, python_sign);
  EXPECT_EQ(z.status().code(), ErrorCode::kInvalidInput) << z.status().to_string();
  RunOptions bad;
  bad.attrs.set("fmod", int64_t{2});
  auto e = run_op(OpType::kMod, {a, b}, DType::kI32, {5}, bad);
  EXPECT_EQ(e.status().code(), ErrorCode::kInvalidModel) << e.status().to_string();
}

TEST(ElementwiseBinary, InPlaceAndThreadsAgree) {
  Rng rng;
  Tensor a = random_tensor(rng, DType::kF16, {8, 64, 130}, -3, 3);
  Tensor b = random_tensor(rng, DType::kF16, {64, 1}, -3, 3);
  RunOptions one;
  auto ref = run_op(OpType::kMul, {a, b}, DType::kF16, a.dims, one);
  RunOptions many;
  many.threads = 4;
  many.in_place = true;
  auto got = run_op(OpType::kMul, {a, b}, DType::kF16, a.dims, many);
  ASSERT_TRUE(ref.is_ok() && got.is_ok());
  EXPECT_EQ(ref->bytes, got->bytes);
}

TEST(ElementwiseBinary, RejectsMismatches) {
  Tensor a = make(DType::kF32, {2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor b = make(DType::kF32, {4}, {1, 2, 3, 4});
  EXPECT_EQ(run_op(OpType::kAdd, {a, b}, DType::kF32, {2, 4}).status().code(),
            ErrorCode::kInvalidModel);
  Tensor c = make(DType::kF32, {3}, {1, 2, 3});
  EXPECT_EQ(run_op(OpType::kAdd, {a, c}, DType::kF32, {3, 3}).status().code(),
            ErrorCode::kInvalidModel);  // output shape is not the broadcast
  Tensor d = make(DType::kF16, {3}, {1, 2, 3});
  EXPECT_EQ(run_op(OpType::kAdd, {a, d}, DType::kF32, {2, 3}).status().code(),
            ErrorCode::kInvalidModel);
}

// ---- Pow ---------------------------------------------------------------------------------------

TEST(ElementwisePow, FloatBaseWithFloatAndIntegerExponents) {
  Rng rng;
  for (DType dt : kFloatTypes) {
    for (DType et : {dt, DType::kF32, DType::kI64, DType::kI32, DType::kI8}) {
      for (const auto& [da, db] : kBroadcastPairs) {
        const std::vector<int64_t> out = ref_broadcast(da, db);
        Tensor a = random_tensor(rng, dt, da, 0.1, 3);
        Tensor b = is_float(et) ? random_tensor(rng, et, db, -2.5, 2.5)
                                : random_tensor(rng, et, db, -3, 4);
        for (bool constant : {false, true}) {
          b.constant = constant;
          const std::string what = label(OpType::kPow, dt, out, rng) + " exponent " +
                                   std::string(dtype_name(et)) + (constant ? " const" : "");
          auto r = run_op(OpType::kPow, {a, b}, dt, out);
          ASSERT_TRUE(r.is_ok()) << what << ": " << r.status().to_string();
          expect_close(values(*r),
                       ref_binary(a, b, out, [](double x, double y) { return std::pow(x, y); }),
                       tol_for(dt), what);
        }
      }
    }
  }
}

TEST(ElementwisePow, ConstantSquareAndNegativeBase) {
  Rng rng;
  for (DType dt : kFloatTypes) {
    Tensor a = random_tensor(rng, dt, {3, 50}, -4, 4);
    Tensor two = make(dt, {}, {2});
    two.constant = true;
    auto r = run_op(OpType::kPow, {a, two}, dt, a.dims);
    ASSERT_TRUE(r.is_ok());
    std::vector<double> e;
    for (double v : values(a)) e.push_back(v * v);
    expect_close(values(*r), e, tol_for(dt), "square " + std::string(dtype_name(dt)));
  }
  // Negative base with an integral exponent is real; with a fractional one, NaN.
  Tensor a = make(DType::kF32, {2}, {-2, -8});
  Tensor b = make(DType::kF32, {2}, {3, 1.0 / 3});
  auto r = run_op(OpType::kPow, {a, b}, DType::kF32, {2});
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(raw<float>(*r)[0], -8.0f);
  EXPECT_TRUE(std::isnan(raw<float>(*r)[1]));
}

TEST(ElementwisePow, IntegerBase) {
  Tensor a = make(DType::kI32, {6}, {2, 3, -2, 1, -1, 5});
  Tensor b = make(DType::kI64, {6}, {10, 3, 3, -4, -3, -1});
  auto r = run_op(OpType::kPow, {a, b}, DType::kI32, {6});
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  EXPECT_EQ(values(*r), (std::vector<double>{1024, 27, -8, 1, -1, 0}));
  // Integer base, float exponent (looked up by the float exponent): pow in double, then
  // truncated and saturated to the base type.
  Tensor c = make(DType::kI64, {4}, {2, 3, 4, 10});
  Tensor e = make(DType::kF32, {4}, {4, 0.5, 0.5, 30});
  auto r2 = run_op(OpType::kPow, {c, e}, DType::kI64, {4});
  ASSERT_TRUE(r2.is_ok()) << r2.status().to_string();
  EXPECT_EQ(raw<int64_t>(*r2),
            (std::vector<int64_t>{16, 1, 2, std::numeric_limits<int64_t>::max()}));
  // Wrapping integer power.
  Tensor d = make_raw<int32_t>(DType::kI32, {1}, {3});
  Tensor f = make_raw<int32_t>(DType::kI32, {1}, {21});
  auto r3 = run_op(OpType::kPow, {d, f}, DType::kI32, {1});
  ASSERT_TRUE(r3.is_ok());
  EXPECT_EQ(raw<int32_t>(*r3)[0], static_cast<int32_t>(static_cast<uint32_t>(10460353203ull)));
}

// ---- Max / Min
// ------------------------------------------------------------------------------------

TEST(ElementwiseMinMax, VariadicBroadcast) {
  Rng rng;
  const std::vector<std::vector<std::vector<int64_t>>> cases = {
      {{2, 3, 4}},
      {{2, 3, 4}, {2, 3, 4}},
      {{3, 1}, {2, 1, 4}},
      {{4}, {3, 1}, {2, 1, 1}},
      {{2, 1, 5}, {}, {3, 1}, {2, 3, 5}},
      {{4, 33, 257}, {33, 257}, {257}},
  };
  std::vector<DType> types = kFloatTypes;
  types.insert(types.end(), kIntTypes.begin(), kIntTypes.end());
  for (DType dt : types) {
    for (const auto& shapes : cases) {
      std::vector<Tensor> ins;
      std::vector<int64_t> out;
      for (const auto& s : shapes) {
        ins.push_back(random_tensor(rng, dt, s, dt == DType::kU8 ? 0 : -50, 50));
        out = ref_broadcast(out, s);
      }
      std::vector<std::vector<double>> in_values;
      for (const Tensor& t : ins) in_values.push_back(values(t));
      std::vector<double> emax(static_cast<size_t>(numel_of(out))), emin = emax;
      for (size_t i = 0; i < emax.size(); ++i) {
        for (size_t k = 0; k < ins.size(); ++k) {
          const double v = in_values[k][bcast_index(static_cast<int64_t>(i), out, ins[k].dims)];
          emax[i] = k == 0 ? v : std::max(emax[i], v);
          emin[i] = k == 0 ? v : std::min(emin[i], v);
        }
      }
      const std::string what =
          label(OpType::kMax, dt, out, rng) + " inputs " + std::to_string(ins.size());
      RunOptions opt;
      opt.threads = numel_of(out) > 30000 ? 4 : 1;
      auto mx = run_op(OpType::kMax, ins, dt, out, opt);
      auto mn = run_op(OpType::kMin, ins, dt, out, opt);
      ASSERT_TRUE(mx.is_ok() && mn.is_ok()) << what << mx.status().to_string();
      EXPECT_EQ(values(*mx), emax) << what;  // exact: the result is one of the inputs
      EXPECT_EQ(values(*mn), emin) << what;
    }
  }
}

TEST(ElementwiseMinMax, NanPropagates) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor a = make_raw<float>(DType::kF32, {3}, {nan, 1.0f, 2.0f});
  Tensor b = make_raw<float>(DType::kF32, {3}, {0.0f, nan, 3.0f});
  for (OpType op : {OpType::kMax, OpType::kMin}) {
    auto r = run_op(op, {a, b}, DType::kF32, {3});
    ASSERT_TRUE(r.is_ok());
    const std::vector<float> v = raw<float>(*r);
    EXPECT_TRUE(std::isnan(v[0]) && std::isnan(v[1])) << graph::op_name(op);
    EXPECT_EQ(v[2], op == OpType::kMax ? 3.0f : 2.0f);
  }
}

// ---- Comparisons and And
// ---------------------------------------------------------------------------

TEST(ElementwiseCompare, EqualGreaterLessBroadcast) {
  Rng rng;
  std::vector<DType> types = kFloatTypes;
  types.insert(types.end(), kIntTypes.begin(), kIntTypes.end());
  for (DType dt : types) {
    for (const auto& [da, db] : kBroadcastPairs) {
      const std::vector<int64_t> out = ref_broadcast(da, db);
      // Small integer values so Equal hits often.
      Tensor a = random_tensor(rng, DType::kI32, da, 0, 3);
      Tensor b = random_tensor(rng, DType::kI32, db, 0, 3);
      a = make(dt, a.dims, values(a));
      b = make(dt, b.dims, values(b));
      const std::string what = label(OpType::kEqual, dt, out, rng);
      for (auto [op, f] : std::vector<std::pair<OpType, std::function<double(double, double)>>>{
               {OpType::kEqual, [](double x, double y) { return double(x == y); }},
               {OpType::kGreater, [](double x, double y) { return double(x > y); }},
               {OpType::kLess, [](double x, double y) { return double(x < y); }}}) {
        auto r = run_op(op, {a, b}, DType::kBool, out);
        ASSERT_TRUE(r.is_ok()) << what << r.status().to_string();
        EXPECT_EQ(values(*r), ref_binary(a, b, out, f)) << what << " " << graph::op_name(op);
      }
    }
  }
  Tensor x = make(DType::kBool, {4}, {0, 1, 0, 1});
  Tensor y = make(DType::kBool, {4}, {0, 0, 1, 1});
  auto eq = run_op(OpType::kEqual, {x, y}, DType::kBool, {4});
  auto conj = run_op(OpType::kAnd, {x, y}, DType::kBool, {4});
  ASSERT_TRUE(eq.is_ok() && conj.is_ok());
  EXPECT_EQ(values(*eq), (std::vector<double>{1, 0, 0, 1}));
  EXPECT_EQ(values(*conj), (std::vector<double>{0, 0, 0, 1}));
  // NaN compares unequal and unordered.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor n = make_raw<float>(DType::kF32, {1}, {nan});
  for (OpType op : {OpType::kEqual, OpType::kGreater, OpType::kLess}) {
    auto r = run_op(op, {n, n}, DType::kBool, {1});
    ASSERT_TRUE(r.is_ok());
    EXPECT_EQ(r->bytes[0], 0) << graph::op_name(op);
  }
}

TEST(ElementwiseCompare, AndBroadcast) {
  Rng rng;
  for (const auto& [da, db] : kBroadcastPairs) {
    const std::vector<int64_t> out = ref_broadcast(da, db);
    Tensor a = random_tensor(rng, DType::kI32, da, 0, 1);
    Tensor b = random_tensor(rng, DType::kI32, db, 0, 1);
    a = make(DType::kBool, a.dims, values(a));
    b = make(DType::kBool, b.dims, values(b));
    auto r = run_op(OpType::kAnd, {a, b}, DType::kBool, out);
    ASSERT_TRUE(r.is_ok()) << r.status().to_string();
    EXPECT_EQ(values(*r),
              ref_binary(a, b, out, [](double x, double y) { return double(x != 0 && y != 0); }));
  }
}

// ---- Where
// ---------------------------------------------------------------------------------------

TEST(ElementwiseWhere, AllDtypesThreeWayBroadcast) {
  Rng rng;
  const std::vector<std::vector<std::vector<int64_t>>> cases = {
      {{3, 4}, {3, 4}, {3, 4}},
      {{3, 1}, {1, 4}, {}},
      {{2, 1, 5}, {3, 1}, {5}},
      {{4, 33, 257}, {33, 257}, {4, 1, 1}},
  };
  std::vector<DType> types = kFloatTypes;
  types.insert(types.end(), kIntTypes.begin(), kIntTypes.end());
  types.push_back(DType::kBool);
  for (DType dt : types) {
    for (const auto& s : cases) {
      Tensor c = make(DType::kBool, s[0], random_ints(rng, numel_of(s[0]), 0, 1));
      Tensor x =
          random_tensor(rng, dt, s[1], dt == DType::kBool ? 0 : -9, dt == DType::kBool ? 1 : 9);
      Tensor y =
          random_tensor(rng, dt, s[2], dt == DType::kBool ? 0 : -9, dt == DType::kBool ? 1 : 9);
      const std::vector<int64_t> out = ref_broadcast(ref_broadcast(s[0], s[1]), s[2]);
      std::vector<double> e;
      const std::vector<double> cv = values(c), xv = values(x), yv = values(y);
      for (int64_t i = 0; i < numel_of(out); ++i)
        e.push_back(cv[bcast_index(i, out, c.dims)] != 0 ? xv[bcast_index(i, out, x.dims)]
                                                         : yv[bcast_index(i, out, y.dims)]);
      const std::string what = label(OpType::kWhere, dt, out, rng);
      RunOptions opt;
      opt.threads = numel_of(out) > 30000 ? 4 : 1;
      auto r = run_op(OpType::kWhere, {c, x, y}, dt, out, opt);
      ASSERT_TRUE(r.is_ok()) << what << ": " << r.status().to_string();
      EXPECT_EQ(values(*r), e) << what;  // a selection is exact
    }
  }
}

// ---- Cast
// ------------------------------------------------------------------------------------------

// Reference Cast of one value (given as double) to `to`, following the documented rules.
double ref_cast(double v, DType to) {
  auto to_int = [&](double lo, double hi) {
    if (std::isnan(v)) return 0.0;
    const double t = std::trunc(v);
    return std::min(hi, std::max(lo, t));
  };
  switch (to) {
    case DType::kF32:
      return static_cast<float>(v);
    case DType::kF16:
      return static_cast<float>(Half(static_cast<float>(v)));
    case DType::kBF16:
      return static_cast<float>(BFloat16(static_cast<float>(v)));
    case DType::kF64:
      return v;
    case DType::kI64:
      return to_int(-9223372036854775808.0, 9223372036854775807.0);
    case DType::kI32:
      return to_int(-2147483648.0, 2147483647.0);
    case DType::kI16:
      return to_int(-32768, 32767);
    case DType::kI8:
      return to_int(-128, 127);
    case DType::kU8:
      return to_int(0, 255);
    case DType::kBool:
      return v != 0 ? 1 : 0;
    case DType::kUndefined:
      return 0;
  }
  return 0;
}

TEST(ElementwiseCast, FloatSourcesToEveryType) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> specials = {0.0,  -0.0,  0.5,  -0.5, 1.9,   -1.9,   127.5,  128,
                                        -129, 255.9, 256,  -300, 40000, -40000, 65504,  70000,
                                        1e10, -1e10, 3e38, inf,  -inf,  nan,    1.0 / 3};
  const std::vector<DType> all = {DType::kF32, DType::kF16, DType::kBF16, DType::kF64,
                                  DType::kI64, DType::kI32, DType::kI16,  DType::kI8,
                                  DType::kU8,  DType::kBool};
  for (DType from : kFloatTypes) {
    Tensor x = make(from, {static_cast<int64_t>(specials.size())}, specials);
    const std::vector<double> xv = values(x);  // as stored in `from`
    for (DType to : all) {
      graph::Attributes attrs;
      attrs.set("to", static_cast<int64_t>(to));  // DType values are the ONNX numbers
      RunOptions opt;
      opt.attrs = attrs;
      auto r = run_op(OpType::kCast, {x}, to, x.dims, opt);
      const std::string what = std::string(dtype_name(from)) + " -> " + std::string(dtype_name(to));
      ASSERT_TRUE(r.is_ok()) << what << ": " << r.status().to_string();
      const std::vector<double> got = values(*r);
      for (size_t i = 0; i < xv.size(); ++i) {
        const double e = ref_cast(xv[i], to);
        if (std::isnan(e))
          EXPECT_TRUE(std::isnan(got[i])) << what << " of " << xv[i];
        else
          EXPECT_EQ(got[i], e) << what << " of " << xv[i];
      }
    }
  }
}

TEST(ElementwiseCast, IntegerAndBoolSources) {
  const std::vector<DType> all = {DType::kF32, DType::kF16, DType::kBF16, DType::kF64,
                                  DType::kI64, DType::kI32, DType::kI16,  DType::kI8,
                                  DType::kU8,  DType::kBool};
  const std::vector<int64_t> v64 = {0,          1,
                                    -1,         127,
                                    128,        -129,
                                    255,        256,
                                    300,        -300,
                                    70000,      -70000,
                                    2147483647, -2147483648LL,
                                    16777217,   std::numeric_limits<int64_t>::min()};
  for (DType from : kIntTypes) {
    std::vector<double> src;
    Tensor x;
    {
      // The source values as `from` holds them (wrapped), built from int64 exactly.
      std::vector<uint8_t> bytes(v64.size() * dtype_size(from));
      for (size_t i = 0; i < v64.size(); ++i) {
        switch (from) {
          case DType::kI64:
            reinterpret_cast<int64_t*>(bytes.data())[i] = v64[i];
            break;
          case DType::kI32:
            reinterpret_cast<int32_t*>(bytes.data())[i] = static_cast<int32_t>(v64[i]);
            break;
          case DType::kI16:
            reinterpret_cast<int16_t*>(bytes.data())[i] = static_cast<int16_t>(v64[i]);
            break;
          case DType::kI8:
            reinterpret_cast<int8_t*>(bytes.data())[i] = static_cast<int8_t>(v64[i]);
            break;
          case DType::kU8:
            bytes[i] = static_cast<uint8_t>(v64[i]);
            break;
          default:
            break;
        }
      }
      x = make_raw<uint8_t>(from, {static_cast<int64_t>(v64.size())}, bytes);
    }
    for (DType to : all) {
      RunOptions opt;
      opt.attrs.set("to", static_cast<int64_t>(to));
      auto r = run_op(OpType::kCast, {x}, to, x.dims, opt);
      const std::string what = std::string(dtype_name(from)) + " -> " + std::string(dtype_name(to));
      ASSERT_TRUE(r.is_ok()) << what << ": " << r.status().to_string();
      for (size_t i = 0; i < v64.size(); ++i) {
        // The exact source value, from its bytes.
        int64_t s = 0;
        switch (from) {
          case DType::kI64:
            s = raw<int64_t>(x)[i];
            break;
          case DType::kI32:
            s = raw<int32_t>(x)[i];
            break;
          case DType::kI16:
            s = raw<int16_t>(x)[i];
            break;
          case DType::kI8:
            s = raw<int8_t>(x)[i];
            break;
          case DType::kU8:
            s = raw<uint8_t>(x)[i];
            break;
          default:
            break;
        }
        switch (to) {
          case DType::kI64:
            EXPECT_EQ(raw<int64_t>(*r)[i], s) << what;
            break;
          case DType::kI32:
            EXPECT_EQ(raw<int32_t>(*r)[i], static_cast<int32_t>(s)) << what;
            break;
          case DType::kI16:
            EXPECT_EQ(raw<int16_t>(*r)[i], static_cast<int16_t>(s)) << what;
            break;
          case DType::kI8:
            EXPECT_EQ(raw<int8_t>(*r)[i], static_cast<int8_t>(s)) << what;
            break;
          case DType::kU8:
            EXPECT_EQ(raw<uint8_t>(*r)[i], static_cast<uint8_t>(s)) << what;
            break;
          case DType::kBool:
            EXPECT_EQ(r->bytes[i], s != 0 ? 1 : 0) << what;
            break;
          case DType::kF32:
            EXPECT_EQ(raw<float>(*r)[i], static_cast<float>(s)) << what << " " << s;
            break;
          case DType::kF64:
            EXPECT_EQ(raw<double>(*r)[i], static_cast<double>(s)) << what;
            break;
          case DType::kF16:
            // Exact in float for these magnitudes (or Inf either way), then one rounding.
            EXPECT_EQ(values(*r)[i], static_cast<float>(Half(static_cast<float>(s))))
                << what << " " << s;
            break;
          case DType::kBF16:
            if (std::fabs(static_cast<double>(s)) < 16777216.0) {
              EXPECT_EQ(values(*r)[i], static_cast<float>(BFloat16(static_cast<float>(s))))
                  << what << " " << s;
            }
            break;
          case DType::kUndefined:
            break;
        }
      }
    }
  }
  // bool -> everything is 0 / 1, any non-zero byte reading as true.
  Tensor b = make_raw<uint8_t>(DType::kBool, {3}, {0, 1, 7});
  for (DType to : all) {
    RunOptions opt;
    opt.attrs.set("to", static_cast<int64_t>(to));
    auto r = run_op(OpType::kCast, {b}, to, {3}, opt);
    ASSERT_TRUE(r.is_ok()) << dtype_name(to);
    EXPECT_EQ(values(*r), (std::vector<double>{0, 1, 1})) << "bool -> " << dtype_name(to);
  }
}

TEST(ElementwiseCast, DoubleToHalfRoundsOnce) {
  // 1 + 2^-11 + 2^-40 lies just above the midpoint of the f16 neighbours 1 and 1 + 2^-10:
  // correct rounding goes up; rounding to float first lands exactly on the midpoint and
  // ties-to-even would go down.
  const double d = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  Tensor x = make_raw<double>(DType::kF64, {2}, {d, -d});
  RunOptions opt;
  opt.attrs.set("to", int64_t{10});
  auto r = run_op(OpType::kCast, {x}, DType::kF16, {2}, opt);
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(values(*r)[0], 1.0 + std::ldexp(1.0, -10));
  EXPECT_EQ(values(*r)[1], -(1.0 + std::ldexp(1.0, -10)));
  // Same for bf16 (8 significant bits).
  const double e = 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40);
  Tensor y = make_raw<double>(DType::kF64, {1}, {e});
  opt.attrs.set("to", int64_t{16});
  auto rb = run_op(OpType::kCast, {y}, DType::kBF16, {1}, opt);
  ASSERT_TRUE(rb.is_ok());
  EXPECT_EQ(values(*rb)[0], 1.0 + std::ldexp(1.0, -7));
}

TEST(ElementwiseCast, RejectsToThatDisagreesWithOutput) {
  Tensor x = make(DType::kF32, {2}, {1, 2});
  RunOptions opt;
  opt.attrs.set("to", int64_t{7});
  EXPECT_EQ(run_op(OpType::kCast, {x}, DType::kI32, {2}, opt).status().code(),
            ErrorCode::kInvalidModel);
  opt.attrs.set("to", int64_t{17});  // FLOAT8E4M3FN
  EXPECT_EQ(run_op(OpType::kCast, {x}, DType::kI32, {2}, opt).status().code(),
            ErrorCode::kUnsupported);
}

// ---- Registry
// ----------------------------------------------------------------------------------------

TEST(ElementwiseRegistry, DtypesAndInPlaceDeclarations) {
  const kernels::KernelRegistry& reg = test::cpu_registry();
  auto in_place = [&](OpType op, DType dt) {
    const kernels::KernelDef* d = reg.find(op, Backend::kCpu, dt);
    return d ? d->in_place_input : -2;
  };
  for (DType dt : kFloatTypes) {
    for (OpType op :
         {OpType::kAbs,       OpType::kNeg,        OpType::kExp,       OpType::kLog,
          OpType::kSqrt,      OpType::kReciprocal, OpType::kErf,       OpType::kSigmoid,
          OpType::kTanh,      OpType::kRelu,       OpType::kLeakyRelu, OpType::kHardSigmoid,
          OpType::kHardSwish, OpType::kGelu,       OpType::kClip,      OpType::kAdd,
          OpType::kSub,       OpType::kMul,        OpType::kDiv,       OpType::kPow,
          OpType::kMax,       OpType::kMin})
      EXPECT_EQ(in_place(op, dt), 0) << graph::op_name(op) << " " << dtype_name(dt);
    for (OpType op :
         {OpType::kEqual, OpType::kGreater, OpType::kLess, OpType::kWhere, OpType::kCast})
      EXPECT_EQ(in_place(op, dt), -1) << graph::op_name(op) << " " << dtype_name(dt);
  }
  for (DType dt : kIntTypes) {
    for (OpType op : {OpType::kAdd, OpType::kSub, OpType::kMul, OpType::kDiv, OpType::kMax,
                      OpType::kMin, OpType::kAbs, OpType::kClip, OpType::kEqual, OpType::kGreater,
                      OpType::kLess, OpType::kCast})
      EXPECT_TRUE(reg.has(op, Backend::kCpu, dt)) << graph::op_name(op) << " " << dtype_name(dt);
    // ONNX Pow's base is a float, i32 or i64; shape inference rejects the others.
    const bool pow_base = dt == DType::kI32 || dt == DType::kI64;
    EXPECT_EQ(reg.has(OpType::kPow, Backend::kCpu, dt), pow_base) << dtype_name(dt);
  }
  for (OpType op : {OpType::kNot, OpType::kAnd, OpType::kEqual, OpType::kWhere, OpType::kCast})
    EXPECT_TRUE(reg.has(op, Backend::kCpu, DType::kBool)) << graph::op_name(op);
}

}  // namespace
}  // namespace amp
