// The CUDA elementwise family (kernels/cuda/elementwise_*.cu) against the CPU backend, the
// oracle: each case builds a one-node graph, runs it with test::run_graph (CPU) and
// test::run_graph_cuda (GPU; outputs poisoned with 0xFF so unwritten elements fail), and
// compares every output element.
//
// Inputs are random (fresh seed per test, printed on failure; AMP_TEST_SEED=<n> replays)
// and never all zeros. Shapes include odd sizes (vectorized loops' tails), scalars,
// broadcasts of every kind and one tensor large enough for the grid-stride loops to wrap.
// Tolerances per dtype (|gpu - cpu| <= atol + rtol |cpu|): the arithmetic is the shared
// functors, so only CUDA's libm (a few ulp from glibc's) and FMA contraction differ; f16
// and bf16 allow one rounding step of their type. Casts, comparisons and integer
// arithmetic must match exactly. Every test skips when no GPU is visible.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "graph/ir/graph_builder.h"
#include "runtime/backend/cuda/device_query.h"
#include "runtime/common/half.h"
#include "tests/test_util/cuda_graph_runner.h"
#include "tests/test_util/graph_runner.h"
#include "tests/test_util/kernel_harness.h"
#include "tests/test_util/node_tests.h"
#include "tests/test_util/require_gpu.h"

namespace amp {
namespace {

using graph::Attributes;
using graph::GraphBuilder;
using graph::OpType;
using graph::Shape;
using graph::TensorData;
using graph::ValueId;

// ---- Random tensors ---------------------------------------------------------------------

std::mt19937 make_rng(uint32_t* seed_out) {
  const char* env = std::getenv("AMP_TEST_SEED");
  const uint32_t seed =
      env ? static_cast<uint32_t>(std::strtoul(env, nullptr, 10)) : std::random_device{}();
  *seed_out = seed;
  return std::mt19937(seed);
}

int64_t numel_of(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

TensorData from_values(DType dt, std::vector<int64_t> dims, const std::vector<double>& values) {
  std::vector<uint8_t> bytes(values.size() * dtype_size(dt));
  for (size_t i = 0; i < values.size(); ++i) test::store_value(dt, bytes.data(), i, values[i]);
  return TensorData::from_bytes(dt, std::move(dims), std::move(bytes)).value();
}

// Uniform values in [lo, hi] (integers for integer dtypes, 0/1 for bool); never all zero.
TensorData random_tensor(DType dt, std::vector<int64_t> dims, std::mt19937& rng, double lo,
                         double hi) {
  const int64_t n = numel_of(dims);
  std::vector<double> v(static_cast<size_t>(n));
  std::uniform_real_distribution<double> real(lo, hi);
  std::uniform_int_distribution<int64_t> integer(static_cast<int64_t>(std::ceil(lo)),
                                                 static_cast<int64_t>(std::floor(hi)));
  bool any = false;
  for (double& x : v) {
    if (dt == DType::kBool)
      x = static_cast<double>(rng() & 1u);
    else if (is_integer(dt))
      x = static_cast<double>(integer(rng));
    else
      x = real(rng);
    any = any || x != 0;
  }
  if (!any && n > 0) v[0] = dt == DType::kBool ? 1 : (hi != 0 ? hi : lo);
  return from_values(dt, std::move(dims), v);
}

// ---- Tolerances and comparison --------------------------------------------------------------

struct Tol {
  double rtol;
  double atol;
};

Tol tol_for(DType dt) {
  switch (dt) {
    case DType::kF32:
      return {1e-5, 1e-6};
    case DType::kF16:
      return {2e-3, 1e-5};
    case DType::kBF16:
      return {1.6e-2, 1e-5};
    case DType::kF64:
      return {1e-12, 1e-14};
    default:
      return {0, 0};  // integers and bool: exact
  }
}

const Tol kExact{0, 0};

// An operand of a one-node graph: a graph input (value supplied at run) or a constant.
struct Operand {
  TensorData data;
  bool constant = false;
  bool absent = false;
};

Operand in(TensorData t) {
  return Operand{std::move(t), false, false};
}
Operand cst(TensorData t) {
  return Operand{std::move(t), true, false};
}
Operand none() {
  return Operand{TensorData(), false, true};
}

struct OneNode {
  graph::Graph g;
  std::map<std::string, TensorData> inputs;
};

OneNode one_node(OpType op, const std::vector<Operand>& operands, Attributes attrs = {},
                 int num_outputs = 1) {
  GraphBuilder b;
  OneNode r;
  std::vector<ValueId> ids;
  for (size_t i = 0; i < operands.size(); ++i) {
    const Operand& o = operands[i];
    const std::string name = "x" + std::to_string(i);
    if (o.absent) {
      ids.push_back(graph::kNoValue);
    } else if (o.constant) {
      ids.push_back(b.constant(name, o.data));
    } else {
      ids.push_back(b.input(name, o.data.dtype(), Shape::from_static(o.data.dims())));
      r.inputs[name] = o.data;
    }
  }
  for (ValueId out : b.node_multi(op, ids, num_outputs, std::move(attrs))) b.output(out);
  r.g = b.build();
  return r;
}

std::string dims_str(const std::vector<int64_t>& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(d[i]);
  }
  return s + "]";
}

// Runs the node on both backends and compares every output.
void expect_same(OpType op, const std::vector<Operand>& operands, const Attributes& attrs, Tol tol,
                 const std::string& what) {
  SCOPED_TRACE(std::string(graph::op_name(op)) + " " + what);
  const OneNode n = one_node(op, operands, attrs);
  Result<std::vector<TensorData>> cpu = test::run_graph(n.g, n.inputs);
  ASSERT_TRUE(cpu.is_ok()) << "CPU: " << cpu.status().message();
  Result<std::vector<TensorData>> gpu = test::run_graph_cuda(n.g, n.inputs);
  ASSERT_TRUE(gpu.is_ok()) << "CUDA: " << gpu.status().message();
  ASSERT_EQ(cpu->size(), gpu->size());
  for (size_t i = 0; i < cpu->size(); ++i) {
    ASSERT_EQ((*cpu)[i].dtype(), (*gpu)[i].dtype());
    ASSERT_EQ((*cpu)[i].dims(), (*gpu)[i].dims());
    const std::string diff = test::compare_tensors((*cpu)[i], (*gpu)[i], tol.rtol, tol.atol);
    EXPECT_TRUE(diff.empty()) << "output " << i << ": " << diff;
  }
}

const std::vector<DType> kFloatTypes = {DType::kF32, DType::kF16, DType::kBF16, DType::kF64};
const std::vector<DType> kAmpTypes = {DType::kF32, DType::kF16, DType::kBF16};

// Shapes for unary ops: a scalar, tails of every vector width, a multi-dim tensor.
const std::vector<std::vector<int64_t>> kUnaryShapes = {{},     {1},          {7},      {33},
                                                        {1003}, {2, 3, 5, 7}, {64, 129}};

// ---- Unary ----------------------------------------------------------------------------------

struct UnaryCase {
  OpType op;
  double lo, hi;  // input range (inside the op's domain)
};

TEST(CudaElementwiseUnary, FloatOpsMatchCpu) {
  AMP_REQUIRE_GPU();
  uint32_t seed;
  std::mt19937 rng = make_rng(&seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  const std::vector<UnaryCase> cases = {
      {OpType::kAbs, -6, 6},       {OpType::kNeg, -6, 6},       {OpType::kExp, -10, 10},
      {OpType::kLog, 0.01, 100},   {OpType::kSqrt, 0, 100},     {OpType::kReciprocal, 0.1, 10},
      {OpType::kErf, -4, 4},       {OpType::kSigmoid, -20, 20}, {OpType::kTanh, -6, 6},
      {OpType::kRelu, -6, 6},      {OpType::kLeakyRelu, -6, 6}, {OpType::kHardSigmoid, -6, 6},
      {OpType::kHardSwish, -6, 6}, {OpType::kGelu, -6, 6}};
  for (const UnaryCase& c : cases)
    for (DType dt : kFloatTypes)
      for (const auto& dims : kUnaryShapes)
        expect_same(c.op, {in(random_tensor(dt, dims, rng, c.lo, c.hi))}, {}, tol_for(dt),
                    std::string(dtype_name(dt)) + dims_str(dims));
}

TEST(CudaElementwiseUnary, AttributesAndGeluTanh) {
  AMP_REQUIRE_GPU();
  uint32_t seed;
  std::mt19937 rng = make_rng(&seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  Attributes leaky;
  leaky.set("alpha", 0.3f);
  Attributes hsig;
  hsig.set("alpha", 0.35f);
  hsig.set("beta", 0.4f);
  Attributes gelu_tanh;
  gelu_tanh.set("approximate", std::string("tanh"));
  Attributes gelu_none;
  gelu_none.set("approximate", std::string("none"));
  for (DType dt : kFloatTypes)
    for (const auto& dims : kUnaryShapes) {
      const std::string what = std::string(dtype_name(dt)) + dims_str(dims);
      expect_same(OpType::kLeakyRelu, {in(random_tensor(dt, dims, rng, -5, 5))}, leaky, tol_for(dt),
                  what);
      expect_same(OpType::kHardSigmoid, {in(random_tensor(dt, dims, rng, -5, 5))}, hsig,
                  tol_for(dt), what);
      expect_same(OpType::kGelu, {in(random_tensor(dt, dims, rng, -5, 5))}, gelu_tanh, tol_for(dt),
                  what);
      expect_same(OpType::kGelu, {in(random_tensor(dt, dims, rng, -5, 5))}, gelu_none, tol_for(dt),
                  what);
    }
}

TEST(CudaElementwiseUnary, IntegerOpsAndNot) {
  AMP_REQUIRE_GPU();
  uint32_t seed;
  std::mt19937 rng = make_rng(&seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (const auto& dims : kUnaryShapes) {
    for (DType dt : {DType::kI64, DType::kI32, DType::kI16, DType::kI8}) {
      for (OpType op : {OpType::kAbs, OpType::kNeg, OpType::kRelu})
        expect_same(op, {in(random_tensor(dt, dims, rng, -128, 127))}, {}, kExact,
                    std::string(dtype_name(dt)) + dims_str(dims));
    }
    expect_same(OpType::kAbs, {in(random_tensor(DType::kU8, dims, rng, 0, 255))}, {}, kExact,
                "u8" + dims_str(dims));
    expect_same(OpType::kNot, {in(random_tensor(DType::kBool, dims, rng, 0, 1))}, {}, kExact,
                "bool" + dims_str(dims));
  }
}

// NaN and infinities go through unary ops as on the CPU (NaN matches only NaN).
TEST(CudaElementwiseUnary, SpecialValues) {
  AMP_REQUIRE_GPU();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> v = {nan, inf, -inf, 0.0, -0.0, 1e-30, -1e-30, 88.0, -88.0, 1e30};
  for (DType dt : kFloatTypes)
    for (OpType op : {OpType::kAbs, OpType::kNeg, OpType::kRelu, OpType::kSigmoid, OpType::kTanh,
                      OpType::kExp, OpType::kHardSwish, OpType::kErf})
      expect_same(op, {in(from_values(dt, {static_cast<int64_t>(v.size())}, v))}, {}, tol_for(dt),
                  std::string(dtype_name(dt)));
}

// ---- Clip -----------------------------------------------------------------------------------

TEST(CudaElementwiseClip, ConstantAndRunTimeBounds) {
  AMP_REQUIRE_GPU();
  uint32_t seed;
  std::mt19937 rng = make_rng(&seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  const std::vector<DType> types = {DType::kF32, DType::kF16, DType::kBF16, DType::kF64,
                                    DType::kI64, DType::kI32, DType::kI8,   DType::kU8};
  for (DType dt : types)
    for (const auto& dims : std::vector<std::vector<int64_t>>{{7}, {3, 257}}) {
      const std::string what = std::string(dtype_name(dt)) + dims_str(dims);
      const double lo = dt == DType::kU8 ? 0 : -50, hi = dt == DType::kU8 ? 200 : 50;
      auto x = [&] { return random_tensor(dt, dims, rng, lo, hi); };
      auto s = [&](double v) { return from_values(dt, {}, {v}); };
      const Tol t = tol_for(dt);
      expect_same(OpType::kClip, {in(x()), cst(s(10)), cst(s(30))}, {}, t, what + " const");
      expect_same(OpType::kClip, {in(x()), in(s(10)), in(s(30))}, {}, t, what + " run-time");
      expect_same(OpType::kClip, {in(x()), cst(s(10)), in(s(30))}, {}, t, what + " mixed");
      expect_same(OpType::kClip, {in(x()), none(), cst(s(20))}, {}, t, what + " max only");
      expect_same(OpType::kClip, {in(x()), in(s(20))}, {}, t, what + " min only");
      expect_same(OpType::kClip, {in(x())}, {}, t, what + " no bounds");
      expect_same(OpType::kClip, {in(x()), cst(s(30)), cst(s(10))}, {}, t, what + " lo > hi");
    }
}

// ---- Cast -----------------------------------------------------------------------------------

const std::vector<DType> kAllTypes = {DType::kF32, DType::kF16, DType::kBF16, DType::kF64,
                                      DType::kI64, DType::kI32, DType::kI16,  DType::kI8,
                                      DType::kU8,  DType::kBool};

// Every (source, target) pair, bit-exact: the conversion is ew::cast_value on both sides.
// Float sources include NaN, infinities, -0, halfway cases and values out of every integer
// range (saturation).
TEST(CudaElementwiseCast, AllPairsExact) {
  AMP_REQUIRE_GPU();
  uint32_t seed;
  std::mt19937 rng = make_rng(&seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> specials = {nan,   inf,    -inf,  -0.0,  0.5,     -0.5,        2.5,
                                        -2.5,  65504,  70000, -1e10, 1e10,    1e20,        -1e20,
                                        255.9, -128.9, 1e-8,  3e38,  -32769., 1.0009765625};
  for (DType src : kAllTypes)
    for (DType dst : kAllTypes)
      for (int64_t n : {int64_t{37}, int64_t{4 * 257}}) {
        const std::string what = std::string(dtype_name(src)) + "->" +
                                 std::string(dtype_name(dst)) + " n=" + std::to_string(n);
        TensorData x;
        if (is_float(src)) {
          std::uniform_real_distribution<double> real(-300, 300);
          std::vector<double> v(static_cast<size_t>(n));
          for (size_t i = 0; i < v.size(); ++i)
            v[i] = i < specials.size() ? specials[i] : real(rng);
          x = from_values(src, {n}, v);
        } else if (src == DType::kBool) {
          x = random_tensor(src, {n}, rng, 0, 1);
        } else {
          // Raw random bytes: every bit pattern of the integer type.
          std::vector<uint8_t> bytes(static_cast<size_t>(n) * dtype_size(src));
          for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng());
          x = TensorData::from_bytes(src, {n}, std::move(bytes)).value();
        }
        Attributes to;
        to.set("to", static_cast<int64_t>(dst));
        expect_same(OpType::kCast, {in(x)}, to, kExact, what);
      }
}

// ---- Binary arithmetic ----------------------------------------------------------------------

// Shape pairs: same shape, scalar either side, one-sided and two-sided broadcasts, NCHW +
// C11, rank mismatch, and odd lengths for the vectorized tails.
const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> kPairs = {
    {{2, 3, 4}, {2, 3, 4}},
    {{1003}, {1003}},
    {{2, 3, 4}, {}},
    {{}, {5, 7}},
    {{1}, {5}},
    {{2, 1, 4}, {3, 1}},
    {{4, 1}, {1, 5}},
    {{2, 3, 4, 5}, {3, 1, 1}},
    {{64, 129}, {129}},
    {{7, 1, 9}, {7, 5, 9}},
    {{1, 1}, {1}},
    {{3, 1, 2, 1, 2}, {1, 4, 1, 3, 1}}};

// Values kept away from zero for divisors; small enough that integer products stay sane
// (wrapping would still match exactly: both sides use ew::mul).
double lo_for(DType dt) {
  return dt == DType::kU8 ? 0 : (dt == DType::kI8 ? -100 : -1000);
}
double hi_for(DType dt) {
  return dt == DType::kU8 ? 255 : (dt == DType::kI8 ? 100 : 1000);
}

TensorData nonzero_tensor(DType dt, const std::vector<int64_t>& dims, std::mt19937& rng) {
  TensorData t = random_tensor(dt, dims, rng, 1, is_integer(dt) ? 9 : 4);
  // Random signs (not for u8).
  std::vector<double> v = t.to_f64_vector();
  if (dt != DType::kU8)
    for (double& x : v)
      if (rng() & 1u) x = -x;
  return from_values(dt, dims, v);
}

TEST(CudaElementwiseBinary, ArithmeticBroadcastsMatchCpu) {
  AMP_REQUIRE_GPU();
  uint32_t seed;
  std::mt19937 rng = make_rng(&seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  const std::vector<DType> types = {DType::kF32, DType::kF16, DType::kBF16,
                                    DType::kF64, DType::kI64, DType::kI32,
                                    DType::kI16, DType::kI8,  DType::kU8};
  for (OpType op :
       {OpType::kAdd, OpType::kSub, OpType::kMul, OpType::kDiv, OpType::kMax, OpType::kMin})
    for (DType dt : types)
      for (const auto& [da, db] : kPairs) {
        const std::string what = std::string(dtype_name(dt)) + dims_str(da) + dims_str(db);
        TensorData a = is_float(dt) ? random_tensor(dt, da, rng, -10, 10)
                                    : random_tensor(dt, da, rng, lo_for(dt), hi_for(dt));
        TensorData b = op == OpType::kDiv ? nonzero_tensor(dt, db, rng)
                       : is_float(dt)     ? random_tensor(dt, db, rng, -10, 10)
                                          : random_tensor(dt, db, rng, lo_for(dt), hi_for(dt));
        expect_same(op, {in(a), in(b)}, {}, tol_for(dt), what);
        // The same with b a constant (weights and biases usually are).
        expect_same(op, {in(a), cst(b)}, {}, tol_for(dt), what + " const b");
      }
}

// A broadcast large enough that the capped grid wraps (2^25 outputs through the general
// kernel, whose 2^16 blocks of 256 threads cover 2^24 per sweep).
TEST(CudaElementwiseBinary, LargeBroadcastGridStride) {
  AMP_REQUIRE_GPU();
  uint32_t seed;
  std::mt19937 rng = make_rng(&seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  expect_same(OpType::kAdd,
              {in(random_tensor(DType::kF32, {4096, 1}, rng, -1, 1)),
               in(random_tensor(DType::kF32, {1, 8192}, rng, -1, 1))},
              {}, tol_for(DType::kF32), "4096x8192 f32");
  expect_same(OpType::kMul,
              {in(random_tensor(DType::kF16, {(1 << 25) + 5}, rng, -2, 2)),
               in(random_tensor(DType::kF16, {(1 << 25) + 5}, rng, -2, 2))},
              {}, tol_for(DType::kF16), "2^25+5 f16");
}

TEST(CudaElementwiseBinary, VariadicMaxMinAndNaN) {
  AMP_REQUIRE_GPU();
  uint32_t seed;
  std::mt19937 rng = make_rng(&seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  const std::vector<std::vector<std::vector<int64_t>>> shape_sets = {
      {{5}},
      {{2, 3}, {2, 3}},
      {{3, 1}, {1, 4}, {2, 1, 1}},
      {{4}, {3, 4}, {2, 1, 4}, {}},
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (OpType op : {OpType::kMax, OpType::kMin})
    for (DType dt : {DType::kF32, DType::kF16, DType::kBF16, DType::kF64, DType::kI32, DType::kU8})
      for (const auto& shapes : shape_sets) {
        std::vector<Operand> ops;
        for (const auto& s : shapes) {
          TensorData t = random_tensor(dt, s, rng, is_integer(dt) ? 0 : -10, 10);
          if (is_float(dt) && t.numel() > 1) {  // one NaN per input: it must propagate
            std::vector<double> v = t.to_f64_vector();
            v[1] = nan;
            t = from_values(dt, s, v);
          }
          ops.push_back(in(t));
        }
        expect_same(op, ops, {}, kExact,
                    std::string(dtype_name(dt)) + " " + std::to_string(shapes.size()) + " inputs");
      }
}

// ---- Pow ------------------------------------------------------------------------------------

TEST(CudaElementwisePow, ExponentKindsAndShapes) {
  AMP_REQUIRE_GPU();
  uint32_t seed;
  std::mt19937 rng = make_rng(&seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  const std::vector<int64_t> dims = {3, 129};
  for (DType dt : kFloatTypes) {
    const Tol t = tol_for(dt);
    auto base = [&] { return random_tensor(dt, dims, rng, 0.1, 4); };
    const std::string what(dtype_name(dt));
    // Constant scalars: 2 (the x * x path), 0.5, 3 as i64, -1.5.
    expect_same(OpType::kPow, {in(base()), cst(from_values(dt, {}, {2.0}))}, {}, t, what + " ^2");
    expect_same(OpType::kPow, {in(base()), cst(from_values(DType::kF32, {}, {0.5}))}, {}, t,
                what + " ^0.5 f32");
    expect_same(OpType::kPow, {in(base()), cst(from_values(DType::kI64, {1}, {3}))}, {}, t,
                what + " ^3 i64");
    expect_same(OpType::kPow, {in(base()), cst(from_values(dt, {1, 1}, {-1.5}))}, {}, t,
                what + " ^-1.5 [1,1]");
    // Tensor exponents: same dtype, broadcast, another dtype (converted in the workspace),
    // and a run-time scalar.
    expect_same(OpType::kPow, {in(base()), in(random_tensor(dt, dims, rng, -2, 2))}, {}, t,
                what + " tensor");
    expect_same(OpType::kPow, {in(base()), in(random_tensor(dt, {129}, rng, -2, 2))}, {}, t,
                what + " broadcast");
    expect_same(OpType::kPow, {in(base()), in(random_tensor(DType::kI32, dims, rng, -3, 3))}, {}, t,
                what + " i32 tensor");
    expect_same(OpType::kPow, {in(base()), in(random_tensor(DType::kF64, {3, 1}, rng, -2, 2))}, {},
                t, what + " f64 [3,1]");
    expect_same(OpType::kPow, {in(base()), in(from_values(dt, {}, {2.0}))}, {}, t,
                what + " run-time ^2");
  }
  // Integer bases (shape inference allows i32 and i64): integer exponents (exact, wrapping),
  // float exponents (pow in double).
  for (DType dt : {DType::kI64, DType::kI32}) {
    const std::string what(dtype_name(dt));
    auto base = [&] { return random_tensor(dt, dims, rng, -9, 9); };
    expect_same(OpType::kPow, {in(base()), in(random_tensor(DType::kI64, dims, rng, -2, 9))}, {},
                kExact, what + " ^i64");
    expect_same(OpType::kPow, {in(base()), cst(from_values(DType::kI32, {}, {3}))}, {}, kExact,
                what + " ^3 const");
    expect_same(OpType::kPow, {in(base()), in(random_tensor(DType::kF32, dims, rng, 0, 3))}, {},
                kExact, what + " ^f32");
  }
}

// ---- Comparisons, And, Where ----------------------------------------------------------------

TEST(CudaElementwiseCompare, EqualGreaterLessAndMatchCpu) {
  AMP_REQUIRE_GPU();
  uint32_t seed;
  std::mt19937 rng = make_rng(&seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  // Values from a small set so that equality happens often.
  const std::vector<DType> types = {DType::kF32, DType::kF16, DType::kBF16, DType::kF64,
                                    DType::kI64, DType::kI32, DType::kI8,   DType::kU8};
  for (OpType op : {OpType::kEqual, OpType::kGreater, OpType::kLess})
    for (DType dt : types)
      for (const auto& [da, db] : kPairs)
        expect_same(op,
                    {in(random_tensor(dt, da, rng, dt == DType::kU8 ? 0 : -2, 2)),
                     in(random_tensor(dt, db, rng, dt == DType::kU8 ? 0 : -2, 2))},
                    {}, kExact, std::string(dtype_name(dt)) + dims_str(da) + dims_str(db));
  for (OpType op : {OpType::kEqual, OpType::kAnd})
    for (const auto& [da, db] : kPairs)
      expect_same(op,
                  {in(random_tensor(DType::kBool, da, rng, 0, 1)),
                   in(random_tensor(DType::kBool, db, rng, 0, 1))},
                  {}, kExact, "bool" + dims_str(da) + dims_str(db));
}

TEST(CudaElementwiseWhere, EveryElementSizeAndBroadcast) {
  AMP_REQUIRE_GPU();
  uint32_t seed;
  std::mt19937 rng = make_rng(&seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  const std::vector<std::vector<std::vector<int64_t>>> shape_sets = {
      {{1003}, {1003}, {1003}}, {{2, 1, 4}, {3, 1}, {2, 3, 4}}, {{}, {5}, {5}},
      {{4, 5}, {}, {1, 5}},     {{2, 3, 1, 5}, {3, 4, 1}, {1}},
  };
  for (DType dt : kAllTypes)
    for (const auto& s : shape_sets)
      expect_same(OpType::kWhere,
                  {in(random_tensor(DType::kBool, s[0], rng, 0, 1)),
                   in(random_tensor(dt, s[1], rng, dt == DType::kU8 ? 0 : -50, 50)),
                   in(random_tensor(dt, s[2], rng, dt == DType::kU8 ? 0 : -50, 50))},
                  {}, kExact, std::string(dtype_name(dt)) + dims_str(s[0]) + dims_str(s[1]));
}

// ---- Registry -------------------------------------------------------------------------------

// The CUDA backend registers every op of the table for the dtypes the CPU backend does, so
// the AMP planner's choice never depends on the device, and a new op cannot be left out of
// one backend. Runs without a GPU.
TEST(CudaRegistry, EveryOpHasTheDtypesTheCpuHas) {
  const kernels::KernelRegistry& cuda = test::cuda_registry();
  const kernels::KernelRegistry& cpu = test::cpu_registry();
  for (int i = 0; i < graph::kOpCount; ++i) {
    const OpType op = static_cast<OpType>(i);
    // If/Loop/Scan have no kernel on either backend: the runtime runs their bodies.
    if (graph::has_trait(op, graph::kControlFlow)) continue;
    EXPECT_FALSE(cpu.dtypes_for(op, kernels::Backend::kCpu).empty()) << graph::op_name(op);
    EXPECT_EQ(cuda.dtypes_for(op, kernels::Backend::kCuda),
              cpu.dtypes_for(op, kernels::Backend::kCpu))
        << graph::op_name(op);
  }
}

}  // namespace
}  // namespace amp
