// The CUDA movement family (kernels/cuda/movement_*.cc/.cu) against the CPU backend, the
// oracle.
//   - Ops whose parameters are constants run as one-node graphs through test::run_graph
//     (CPU) and test::run_graph_cuda (GPU, outputs poisoned with 0xFF), and must match
//     byte for byte (they only move bytes), except linear/cubic Resize (a tolerance).
//   - Parameters computed at run time (Slice starts, Pad pads, Resize scales/sizes/roi)
//     give no static output shape to the graph runners, so those cases drive the kernels
//     directly (expect_kernels_match below: the same call through the kernel harness on
//     both backends, outputs with a poisoned guard zone to catch writes past the end).
// Inputs are random (fresh seed per test, printed on failure; AMP_TEST_SEED=<n> replays),
// never all zeros; float inputs of pure movement ops are random bytes (any bit pattern must
// survive). Every test skips when no GPU is visible.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "graph/ir/graph_builder.h"
#include "kernels/kernel_registry.h"
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

std::string dims_str(const std::vector<int64_t>& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(d[i]);
  }
  return s + "]";
}

// Random bytes (never all zero): movement must reproduce any bit pattern. Bool tensors get
// 0/1 (a bool element's other bit patterns are not values).
TensorData random_bytes(DType dt, std::vector<int64_t> dims, std::mt19937& rng) {
  std::vector<uint8_t> bytes(static_cast<size_t>(numel_of(dims)) * dtype_size(dt));
  for (uint8_t& b : bytes) b = static_cast<uint8_t>(dt == DType::kBool ? (rng() & 1u) : rng());
  if (!bytes.empty()) bytes[0] = 1;
  return TensorData::from_bytes(dt, std::move(dims), std::move(bytes)).value();
}

template <typename T>
TensorData tensor_of(DType dt, std::vector<int64_t> dims, const std::vector<T>& v) {
  return TensorData::from_vector<T>(dt, std::move(dims), v);
}

TensorData i64s(const std::vector<int64_t>& v) {
  return TensorData::vector_i64(v);
}

// Uniform floats in [lo, hi] stored in dt (f32, f16, bf16, f64).
TensorData random_floats(DType dt, std::vector<int64_t> dims, std::mt19937& rng, double lo,
                         double hi) {
  std::uniform_real_distribution<double> u(lo, hi);
  const size_t n = static_cast<size_t>(numel_of(dims));
  std::vector<uint8_t> bytes(n * dtype_size(dt));
  for (size_t i = 0; i < n; ++i) {
    const double v = u(rng);
    switch (dt) {
      case DType::kF32: {
        const float f = static_cast<float>(v);
        std::memcpy(bytes.data() + 4 * i, &f, 4);
        break;
      }
      case DType::kF16: {
        const uint16_t h = float_to_half_bits(static_cast<float>(v));
        std::memcpy(bytes.data() + 2 * i, &h, 2);
        break;
      }
      case DType::kBF16: {
        const uint16_t h = float_to_bf16_bits(static_cast<float>(v));
        std::memcpy(bytes.data() + 2 * i, &h, 2);
        break;
      }
      default:
        std::memcpy(bytes.data() + 8 * i, &v, 8);
        break;
    }
  }
  return TensorData::from_bytes(dt, std::move(dims), std::move(bytes)).value();
}

const std::vector<DType> kAllTypes = {DType::kF32, DType::kF16, DType::kBF16, DType::kF64,
                                      DType::kI64, DType::kI32, DType::kI16,  DType::kI8,
                                      DType::kU8,  DType::kBool};
// One dtype per element size (1, 2, 4, 8 bytes) plus bool.
const std::vector<DType> kSizeTypes = {DType::kU8, DType::kF16, DType::kF32, DType::kI64,
                                       DType::kBool};

// ---- Graph-runner comparisons ------------------------------------------------------------

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

struct Tol {
  double rtol = 0;
  double atol = 0;
  bool bytes = true;  // compare raw bytes (movement) instead of values
};
const Tol kBytes{};

Tol interp_tol(DType dt) {
  switch (dt) {
    case DType::kF16:
      return {2e-3, 1e-4, false};
    case DType::kBF16:
      return {1.6e-2, 1e-3, false};
    case DType::kF64:
      return {1e-12, 1e-12, false};
    default:
      return {1e-5, 1e-5, false};
  }
}

void compare_outputs(const std::vector<TensorData>& cpu, const std::vector<TensorData>& gpu,
                     const Tol& tol) {
  ASSERT_EQ(cpu.size(), gpu.size());
  for (size_t i = 0; i < cpu.size(); ++i) {
    ASSERT_EQ(cpu[i].dtype(), gpu[i].dtype()) << "output " << i;
    ASSERT_EQ(cpu[i].dims(), gpu[i].dims()) << "output " << i;
    if (tol.bytes) {
      ASSERT_EQ(cpu[i].byte_size(), gpu[i].byte_size());
      size_t first = cpu[i].byte_size();
      for (size_t b = 0; b < cpu[i].byte_size(); ++b)
        if (cpu[i].bytes()[b] != gpu[i].bytes()[b]) {
          first = b;
          break;
        }
      EXPECT_EQ(first, cpu[i].byte_size())
          << "output " << i << ": first differing byte " << first << " (element "
          << first / std::max<size_t>(dtype_size(cpu[i].dtype()), 1) << ")";
    } else {
      const std::string diff = test::compare_tensors(cpu[i], gpu[i], tol.rtol, tol.atol);
      EXPECT_TRUE(diff.empty()) << "output " << i << ": " << diff;
    }
  }
}

// One node over `operands` (graph inputs or constants), run on both backends.
void expect_same(OpType op, const std::vector<Operand>& operands, const Attributes& attrs,
                 const std::string& what, int num_outputs = 1, const Tol& tol = kBytes) {
  SCOPED_TRACE(std::string(graph::op_name(op)) + " " + what);
  GraphBuilder b;
  std::map<std::string, TensorData> inputs;
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
      inputs[name] = o.data;
    }
  }
  for (ValueId out : b.node_multi(op, ids, num_outputs, attrs)) b.output(out);
  const graph::Graph g = b.build();
  Result<std::vector<TensorData>> cpu = test::run_graph(g, inputs);
  ASSERT_TRUE(cpu.is_ok()) << "CPU: " << cpu.status().message();
  Result<std::vector<TensorData>> gpu = test::run_graph_cuda(g, inputs);
  ASSERT_TRUE(gpu.is_ok()) << "CUDA: " << gpu.status().message();
  compare_outputs(*cpu, *gpu, tol);
}

// ---- The direct kernel driver (run-time parameters) ---------------------------------------

// The harness's tensors (tests/test_util/kernel_harness.h), built from TensorData.
using KTensor = test::HostTensor;

KTensor kt(const TensorData& t, bool constant) {
  KTensor k = test::output_spec(t.dtype(), t.dims());
  k.bytes.assign(t.bytes(), t.bytes() + t.byte_size());
  k.constant = constant;
  return k;
}
KTensor kabsent() {
  return test::absent_tensor();
}
KTensor kspec(DType dt, std::vector<int64_t> dims) {
  return test::output_spec(dt, std::move(dims));
}

// Output 0 of one kernel run on the GPU, as bytes.
Result<std::vector<uint8_t>> run_gpu(OpType op, const std::vector<KTensor>& inputs,
                                     const std::vector<KTensor>& outputs) {
  test::KernelRun r = test::run_kernel_cuda({.op = op}, inputs, outputs);
  if (!r.ok()) return r.status();
  return std::move(r.outputs[0].bytes);
}

// Runs the kernel on both backends with the same config and compares the outputs.
void expect_kernels_match(OpType op, const Attributes& attrs, const std::vector<KTensor>& inputs,
                          const std::vector<KTensor>& outputs, const std::string& what,
                          const Tol& tol = kBytes) {
  SCOPED_TRACE(std::string(graph::op_name(op)) + " " + what);
  const test::KernelCall call{.op = op, .attrs = attrs};
  test::KernelRun cpu = test::run_kernel(call, inputs, outputs);
  ASSERT_TRUE(cpu.ok()) << "CPU: " << cpu.status().message();
  test::KernelRun gpu = test::run_kernel_cuda(call, inputs, outputs);
  ASSERT_TRUE(gpu.ok()) << "CUDA: " << gpu.status().message();
  std::vector<TensorData> c, g;
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (!outputs[i].present) continue;
    const KTensor& o = outputs[i];
    c.push_back(TensorData::from_bytes(o.dtype, o.dims, cpu.outputs[i].bytes).value());
    g.push_back(TensorData::from_bytes(o.dtype, o.dims, gpu.outputs[i].bytes).value());
  }
  compare_outputs(c, g, tol);
}

// ---- Views ------------------------------------------------------------------------------------

TEST(CudaMovementViews, ReshapeFlattenSqueezeUnsqueezeIdentity) {
  AMP_REQUIRE_GPU();
  uint32_t seed;
  std::mt19937 rng = make_rng(&seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (DType dt : kAllTypes) {
    const std::string what(dtype_name(dt));
    expect_same(OpType::kReshape, {in(random_bytes(dt, {2, 3, 4}, rng)), cst(i64s({4, -1}))}, {},
                what);
    Attributes flat;
    flat.set("axis", int64_t{2});
    expect_same(OpType::kFlatten, {in(random_bytes(dt, {2, 3, 4, 5}, rng))}, flat, what);
    expect_same(OpType::kSqueeze, {in(random_bytes(dt, {2, 1, 3, 1}, rng)), cst(i64s({1}))}, {},
                what);
    expect_same(OpType::kUnsqueeze, {in(random_bytes(dt, {3, 5}, rng)), cst(i64s({0, 3}))}, {},
                what);
    expect_same(OpType::kIdentity, {in(random_bytes(dt, {1001}, rng))}, {}, what);
  }
}

// ---- Transpose, DepthToSpace ------------------------------------------------------------------

TEST(CudaMovementTranspose, RandomPermsEveryElementSize) {
  AMP_REQUIRE_GPU();
  uint32_t seed;
  std::mt19937 rng = make_rng(&seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::uniform_int_distribution<int64_t> dim(1, 6);
  for (int trial = 0; trial < 40; ++trial) {
    const int rank = 1 + trial % 6;
    std::vector<int64_t> dims;
    for (int a = 0; a < rank; ++a) dims.push_back(dim(rng));
    std::vector<int64_t> perm(static_cast<size_t>(rank));
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    Attributes at;
    if (trial % 5 != 0) at.set("perm", perm);  // else the default: reversed axes
    for (DType dt : kSizeTypes)
      expect_same(OpType::kTranspose, {in(random_bytes(dt, dims, rng))}, at,
                  std::string(dtype_name(dt)) + dims_str(dims) + " perm " + dims_str(perm));
  }
  // Larger cases: 2-D and batched transposes (the tiled shared-memory kernel, partial
  // tiles included), NCHW <-> NHWC, one whose inner axis stays contiguous (widened copies)
  // and a 7-D shuffle.
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> big = {
      {{257, 129}, {1, 0}},
      {{16, 16}, {1, 0}},
      {{1000, 17}, {1, 0}},
      {{3, 45, 70}, {0, 2, 1}},
      {{2, 32, 17, 19}, {0, 2, 3, 1}},
      {{2, 17, 19, 32}, {0, 3, 1, 2}},
      {{5, 40, 3, 33}, {3, 1, 2, 0}},
      {{64, 33, 8}, {1, 0, 2}},
      {{3, 4, 5, 6, 7, 8, 2}, {6, 0, 5, 1, 4, 2, 3}}};
  for (const auto& [dims, perm] : big)
    for (DType dt : kSizeTypes) {
      Attributes at;
      at.set("perm", perm);
      expect_same(OpType::kTranspose, {in(random_bytes(dt, dims, rng))}, at,
                  std::string(dtype_name(dt)) + dims_str(dims) + " perm " + dims_str(perm));
    }
}

TEST(CudaMovementDepthToSpace, DcrAndCrd) {
  AMP_REQUIRE_GPU();
  uint32_t seed;
  std::mt19937 rng = make_rng(&seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (const std::string mode : {"DCR", "CRD"})
    for (const auto& [dims, bs] : std::vector<std::pair<std::vector<int64_t>, int64_t>>{
             {{2, 8, 3, 5}, 2}, {{1, 18, 4, 4}, 3}, {{1, 4, 1, 1}, 2}})
      for (DType dt : kSizeTypes) {
        Attributes at;
        at.set("blocksize", bs);
        at.set("mode", mode);
        expect_same(OpType::kDepthToSpace, {in(random_bytes(dt, dims, rng))}, at,
                    mode + " " + std::string(dtype_name(dt)) + dims_str(dims));
      }
}

// ---- Concat, Split ----------------------------------------------------------------------------

TEST(CudaMovementConcatSplit, AxesAndPartSizes) {
  AMP_REQUIRE_GPU();
  uint32_t seed;
  std::mt19937 rng = make_rng(&seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (DType dt : kSizeTypes) {
    const std::string what(dtype_name(dt));
    for (int64_t axis : {0, 1, 2, -1}) {
      const size_t a = static_cast<size_t>(axis < 0 ? axis + 3 : axis);
      std::vector<Operand> ops;
      for (int64_t len : {3, 1, 0, 8}) {  // an empty part included
        std::vector<int64_t> d = {4, 5, 6};
        d[a] = len;
        ops.push_back(in(random_bytes(dt, d, rng)));
      }
      Attributes at;
      at.set("axis", axis);
      expect_same(OpType::kConcat, ops, at, what + " axis " + std::to_string(axis));
    }
    // One input, and a constant input.
    Attributes at0;
    at0.set("axis", int64_t{0});
    expect_same(OpType::kConcat, {in(random_bytes(dt, {7, 3}, rng))}, at0, what + " single");
    expect_same(OpType::kConcat,
                {in(random_bytes(dt, {7, 3}, rng)), cst(random_bytes(dt, {2, 3}, rng))}, at0,
                what + " const part");

    // Split: explicit sizes (constant input) and num_outputs (equal parts, uneven last).
    Attributes s1;
    s1.set("axis", int64_t{1});
    expect_same(OpType::kSplit, {in(random_bytes(dt, {3, 10, 4}, rng)), cst(i64s({2, 0, 5, 3}))},
                s1, what + " sizes", 4);
    Attributes s2;
    s2.set("axis", int64_t{-1});
    s2.set("num_outputs", int64_t{3});
    expect_same(OpType::kSplit, {in(random_bytes(dt, {2, 3, 11}, rng))}, s2, what + " num_outputs",
                3);
    Attributes s3;
    s3.set("axis", int64_t{0});
    s3.set("num_outputs", int64_t{2});
    expect_same(OpType::kSplit, {in(random_bytes(dt, {6, 33}, rng))}, s3, what + " axis 0", 2);
  }
}

// ---- Slice ----------------------------------------------------------------------------------

TEST(CudaMovementSlice, ConstantParameters) {
  AMP_REQUIRE_GPU();
  uint32_t seed;
  std::mt19937 rng = make_rng(&seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  struct Case {
    std::vector<int64_t> dims, starts, ends, axes, steps;
  };
  const std::vector<Case> cases = {
      {{10}, {2}, {8}, {}, {}},
      {{10}, {-1}, {-11}, {0}, {-1}},  // full reverse
      {{6, 7}, {1, -5}, {100, 6}, {0, 1}, {2, 1}},
      {{6, 7, 8}, {0, 7, 1}, {6, 0, 8}, {0, 1, 2}, {1, -2, 3}},
      {{5, 9}, {3}, {1000}, {-1}, {}},
      {{4, 5, 6}, {1}, {3}, {1}, {}},
      {{2, 3, 64}, {0}, {32}, {2}, {1}},  // inner contiguous: widened copy
  };
  for (const Case& c : cases)
    for (DType dt : kSizeTypes) {
      std::vector<Operand> ops = {in(random_bytes(dt, c.dims, rng)), cst(i64s(c.starts)),
                                  cst(i64s(c.ends))};
      if (!c.axes.empty() || !c.steps.empty()) {
        std::vector<int64_t> axes = c.axes;
        if (axes.empty())
          for (size_t i = 0; i < c.starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
        ops.push_back(cst(i64s(axes)));
      }
      if (!c.steps.empty()) ops.push_back(cst(i64s(c.steps)));
      expect_same(OpType::kSlice, ops, {},
                  std::string(dtype_name(dt)) + dims_str(c.dims) + " starts " + dims_str(c.starts) +
                      " ends " + dims_str(c.ends));
    }
  // i32 parameters.
  expect_same(OpType::kSlice,
              {in(random_bytes(DType::kF32, {6, 7}, rng)),
               cst(tensor_of<int32_t>(DType::kI32, {2}, {1, -3})),
               cst(tensor_of<int32_t>(DType::kI32, {2}, {5, -1}))},
              {}, "i32 params");
}

// Starts/ends/axes/steps computed at run time: resolved by the kernel on the device.
TEST(CudaMovementSlice, RunTimeParameters) {
  AMP_REQUIRE_GPU();
  uint32_t seed;
  std::mt19937 rng = make_rng(&seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  struct Case {
    std::vector<int64_t> dims, starts, ends, axes, steps, out;
  };
  const std::vector<Case> cases = {
      {{10}, {2}, {8}, {0}, {1}, {6}},
      {{10}, {-1}, {-11}, {0}, {-1}, {10}},
      {{6, 7}, {1, -5}, {100, 6}, {0, 1}, {2, 1}, {3, 4}},
      {{6, 7, 8}, {0, 7, 1}, {6, 0, 8}, {0, 1, 2}, {1, -2, 3}, {6, 3, 3}},
      {{5, 9}, {3}, {1000}, {-1}, {1}, {5, 6}},
  };
  for (const Case& c : cases)
    for (DType dt : kSizeTypes)
      for (bool i32 : {false, true}) {
        auto param = [&](const std::vector<int64_t>& v) {
          if (!i32) return kt(i64s(v), false);
          std::vector<int32_t> w(v.begin(), v.end());
          return kt(tensor_of<int32_t>(DType::kI32, {static_cast<int64_t>(w.size())}, w), false);
        };
        expect_kernels_match(
            OpType::kSlice, {},
            {kt(random_bytes(dt, c.dims, rng), false), param(c.starts), param(c.ends),
             param(c.axes), param(c.steps)},
            {kspec(dt, c.out)},
            std::string(dtype_name(dt)) + dims_str(c.dims) + (i32 ? " i32" : " i64"));
      }
  // Without axes and steps.
  expect_kernels_match(OpType::kSlice, {},
                       {kt(random_bytes(DType::kF32, {4, 9}, rng), false), kt(i64s({1, 2}), false),
                        kt(i64s({3, 9}), false)},
                       {kspec(DType::kF32, {2, 7})}, "defaults");
}

// A run-time slice that contradicts the static output shape (the CPU's invalid_input) is
// written as zeros on the GPU: no read outside the input, no garbage.
TEST(CudaMovementSlice, RunTimeMismatchWritesZeros) {
  AMP_REQUIRE_GPU();
  std::mt19937 rng(7);
  Result<std::vector<uint8_t>> gpu = run_gpu(
      OpType::kSlice,
      {kt(random_bytes(DType::kF32, {10}, rng), false), kt(i64s({0}), false), kt(i64s({9}), false)},
      {kspec(DType::kF32, {4})});
  ASSERT_TRUE(gpu.is_ok()) << gpu.status().message();
  EXPECT_EQ(*gpu, std::vector<uint8_t>(16, 0));
}

// ---- Gather ---------------------------------------------------------------------------------

TEST(CudaMovementGather, AxesIndexTypesAndShapes) {
  AMP_REQUIRE_GPU();
  uint32_t seed;
  std::mt19937 rng = make_rng(&seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  const std::vector<int64_t> dims = {5, 6, 8};
  for (DType dt : kSizeTypes)
    for (int64_t axis : {0, 1, 2, -1})
      for (const std::vector<int64_t>& idims : std::vector<std::vector<int64_t>>{{}, {4}, {2, 3}}) {
        const int64_t d = dims[static_cast<size_t>(axis < 0 ? axis + 3 : axis)];
        std::uniform_int_distribution<int64_t> ix(-d, d - 1);  // negatives count from the end
        std::vector<int64_t> idx(static_cast<size_t>(numel_of(idims)));
        for (int64_t& v : idx) v = ix(rng);
        Attributes at;
        at.set("axis", axis);
        const std::string what = std::string(dtype_name(dt)) + " axis " + std::to_string(axis) +
                                 " indices " + dims_str(idims);
        expect_same(
            OpType::kGather,
            {in(random_bytes(dt, dims, rng)), in(tensor_of<int64_t>(DType::kI64, idims, idx))}, at,
            what + " i64");
        std::vector<int32_t> idx32(idx.begin(), idx.end());
        expect_same(
            OpType::kGather,
            {in(random_bytes(dt, dims, rng)), cst(tensor_of<int32_t>(DType::kI32, idims, idx32))},
            at, what + " i32 const");
      }
  // An embedding-sized gather (rows of 768 halves move as 16-byte elements).
  std::uniform_int_distribution<int64_t> row(0, 999);
  std::vector<int64_t> ids(64);
  for (int64_t& v : ids) v = row(rng);
  expect_same(OpType::kGather,
              {cst(random_bytes(DType::kF16, {1000, 768}, rng)),
               in(tensor_of<int64_t>(DType::kI64, {2, 32}, ids))},
              {}, "embedding");
}

// An index outside [-dim, dim) (the CPU's invalid_input) yields zeros on the GPU.
TEST(CudaMovementGather, OutOfRangeIndexWritesZeros) {
  AMP_REQUIRE_GPU();
  std::vector<float> data(12);
  std::iota(data.begin(), data.end(), 1.0f);
  Result<std::vector<uint8_t>> gpu = run_gpu(
      OpType::kGather,
      {kt(tensor_of<float>(DType::kF32, {4, 3}, data), false), kt(i64s({1, 4, -5, -1}), false)},
      {kspec(DType::kF32, {4, 3})});
  ASSERT_TRUE(gpu.is_ok()) << gpu.status().message();
  std::vector<float> got(12);
  std::memcpy(got.data(), gpu->data(), 48);
  EXPECT_EQ(got, (std::vector<float>{4, 5, 6, 0, 0, 0, 0, 0, 0, 10, 11, 12}));
}

// ---- Expand, Tile -----------------------------------------------------------------------------

TEST(CudaMovementExpandTile, BroadcastsAndRepeats) {
  AMP_REQUIRE_GPU();
  uint32_t seed;
  std::mt19937 rng = make_rng(&seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> expands = {
      {{3, 1}, {2, 3, 4}},
      {{1}, {5, 1, 7}},
      {{}, {4, 4}},
      {{2, 1, 6}, {2, 5, 6}},
      {{4, 1, 1}, {1, 4, 3, 32}}};
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> tiles = {
      {{2, 3}, {2, 3}}, {{3, 1, 2}, {1, 4, 2}}, {{5}, {7}}, {{2, 8}, {3, 1}}, {{1, 1}, {3, 2}}};
  for (DType dt : kSizeTypes) {
    for (const auto& [d, shape] : expands)
      expect_same(OpType::kExpand, {in(random_bytes(dt, d, rng)), cst(i64s(shape))}, {},
                  std::string(dtype_name(dt)) + dims_str(d) + "->" + dims_str(shape));
    for (const auto& [d, reps] : tiles)
      expect_same(OpType::kTile, {in(random_bytes(dt, d, rng)), cst(i64s(reps))}, {},
                  std::string(dtype_name(dt)) + dims_str(d) + " x " + dims_str(reps));
  }
}

// ---- Pad --------------------------------------------------------------------------------------

struct PadCase {
  std::vector<int64_t> dims;
  std::vector<int64_t> pads;  // begins then ends, per listed axis
  std::vector<int64_t> axes;  // empty: all
};

std::vector<int64_t> pad_out_dims(const PadCase& c) {
  std::vector<int64_t> out = c.dims;
  const size_t n = c.pads.size() / 2;
  for (size_t i = 0; i < n; ++i) {
    int64_t a = c.axes.empty() ? static_cast<int64_t>(i) : c.axes[i];
    if (a < 0) a += static_cast<int64_t>(c.dims.size());
    out[static_cast<size_t>(a)] += c.pads[i] + c.pads[i + n];
  }
  return out;
}

// Whether every reflect pad is smaller than its axis (ONNX's condition, checked by shape
// inference; the kernels themselves repeat the reflection like numpy.pad).
bool reflect_fits(const PadCase& c) {
  const size_t n = c.pads.size() / 2;
  for (size_t i = 0; i < n; ++i) {
    int64_t a = c.axes.empty() ? static_cast<int64_t>(i) : c.axes[i];
    if (a < 0) a += static_cast<int64_t>(c.dims.size());
    const int64_t d = c.dims[static_cast<size_t>(a)];
    if (c.pads[i] >= d || c.pads[i + n] >= d) return false;
  }
  return true;
}

const std::vector<PadCase> kPadCases = {
    {{5}, {2, 3}, {}},
    {{3, 4}, {1, 2, 2, 1}, {}},
    {{2, 3, 4}, {0, 1, 3, 0, 2, 5}, {}},  // pads larger than the axis (wrap/edge repeat)
    {{4, 6}, {-1, 2, 1, -2}, {}},         // negative pads crop
    {{2, 3, 5}, {2, 4}, {-1}},            // axes
    {{1, 3, 8, 8}, {0, 0, 1, 1, 0, 0, 1, 1}, {}},
};

TEST(CudaMovementPad, AllModesConstantPads) {
  AMP_REQUIRE_GPU();
  uint32_t seed;
  std::mt19937 rng = make_rng(&seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (const std::string mode : {"constant", "reflect", "edge", "wrap"})
    for (const PadCase& c : kPadCases)
      for (DType dt : kSizeTypes) {
        if (mode == "reflect" && !reflect_fits(c)) continue;  // shape inference rejects it
        Attributes at;
        at.set("mode", mode);
        const std::string what = mode + " " + std::string(dtype_name(dt)) + dims_str(c.dims) +
                                 " pads " + dims_str(c.pads);
        std::vector<Operand> ops = {in(random_bytes(dt, c.dims, rng)), cst(i64s(c.pads))};
        if (mode == "constant")
          ops.push_back(in(random_bytes(dt, {}, rng)));
        else
          ops.push_back(none());
        if (!c.axes.empty()) ops.push_back(cst(i64s(c.axes)));
        expect_same(OpType::kPad, ops, at, what);
      }
  // Constant mode without a value: zeros.
  Attributes at;
  at.set("mode", std::string("constant"));
  expect_same(OpType::kPad, {in(random_bytes(DType::kF32, {3, 4}, rng)), cst(i64s({1, 1, 1, 1}))},
              at, "no value");
}

TEST(CudaMovementPad, RunTimePads) {
  AMP_REQUIRE_GPU();
  uint32_t seed;
  std::mt19937 rng = make_rng(&seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (const std::string mode : {"constant", "reflect", "edge", "wrap"})
    for (const PadCase& c : kPadCases)
      for (DType dt : {DType::kF32, DType::kF16, DType::kU8, DType::kI64}) {
        Attributes at;
        at.set("mode", mode);
        std::vector<KTensor> ins = {
            kt(random_bytes(dt, c.dims, rng), false), kt(i64s(c.pads), false),
            mode == "constant" ? kt(random_bytes(dt, {}, rng), false) : kabsent()};
        if (!c.axes.empty()) ins.push_back(kt(i64s(c.axes), false));
        expect_kernels_match(OpType::kPad, at, ins, {kspec(dt, pad_out_dims(c))},
                             mode + " " + std::string(dtype_name(dt)) + dims_str(c.dims) +
                                 " pads " + dims_str(c.pads));
      }
}

// ---- Resize -----------------------------------------------------------------------------------

struct ResizeCase {
  std::string mode = "nearest", ctm = "half_pixel", nearest_mode = "round_prefer_floor";
  double A = -0.75;
  bool exclude_outside = false, antialias = false;
  double extrapolation = 0.0;
  std::vector<int64_t> in;
  std::vector<int64_t> axes;   // empty: all
  std::vector<double> scales;  // one of scales / sizes, per listed axis
  std::vector<int64_t> sizes;
  std::vector<double> roi;  // per listed axis: starts then ends; empty: none
  std::string policy = "stretch";
};

// The output dims of a case (ONNX: floor(in * scale) for scales; sizes, or the
// aspect-preserving rounding of keep_aspect_ratio_policy).
std::vector<int64_t> resize_out_dims(const ResizeCase& rc) {
  std::vector<int64_t> axes = rc.axes;
  if (axes.empty())
    for (size_t a = 0; a < rc.in.size(); ++a) axes.push_back(static_cast<int64_t>(a));
  std::vector<int64_t> out = rc.in;
  std::vector<double> s(axes.size());
  for (size_t i = 0; i < axes.size(); ++i) {
    const size_t a = static_cast<size_t>(axes[i]);
    if (!rc.scales.empty()) {
      out[a] = static_cast<int64_t>(
          std::floor(static_cast<float>(rc.in[a]) * static_cast<float>(rc.scales[i])));
    } else {
      out[a] = rc.sizes[i];
      s[i] = static_cast<double>(rc.sizes[i]) / static_cast<double>(rc.in[a]);
    }
  }
  if (rc.sizes.empty() || rc.policy == "stretch") return out;
  double common = 0;
  for (size_t i = 0; i < axes.size(); ++i)
    if (i == 0 || (rc.policy == "not_larger" ? s[i] < common : s[i] > common)) common = s[i];
  for (int64_t a : axes)
    out[static_cast<size_t>(a)] =
        static_cast<int64_t>(common * static_cast<double>(rc.in[static_cast<size_t>(a)]) + 0.5);
  return out;
}

// Runs a case through the direct driver with constant or run-time parameters.
void expect_resize_match(const ResizeCase& rc, DType dt, bool constant, std::mt19937& rng,
                         const std::string& what) {
  const std::vector<int64_t> out = resize_out_dims(rc);
  for (int64_t d : out)
    if (d == 0) return;  // nothing to compare
  std::vector<KTensor> ins;
  ins.push_back(kt(
      is_float(dt) ? random_floats(dt, rc.in, rng, -2, 2) : random_bytes(dt, rc.in, rng), false));
  if (rc.roi.empty()) {
    ins.push_back(kabsent());
  } else {
    std::vector<float> roi(rc.roi.begin(), rc.roi.end());
    ins.push_back(
        kt(tensor_of<float>(DType::kF32, {static_cast<int64_t>(roi.size())}, roi), constant));
  }
  if (!rc.scales.empty()) {
    std::vector<float> s(rc.scales.begin(), rc.scales.end());
    ins.push_back(kt(tensor_of<float>(DType::kF32, {static_cast<int64_t>(s.size())}, s), constant));
  } else {
    ins.push_back(kabsent());
    ins.push_back(kt(i64s(rc.sizes), constant));
  }
  Attributes at;
  at.set("mode", rc.mode);
  at.set("coordinate_transformation_mode", rc.ctm);
  at.set("nearest_mode", rc.nearest_mode);
  at.set("cubic_coeff_a", static_cast<float>(rc.A));
  at.set("exclude_outside", int64_t{rc.exclude_outside});
  at.set("antialias", int64_t{rc.antialias});
  at.set("extrapolation_value", static_cast<float>(rc.extrapolation));
  at.set("keep_aspect_ratio_policy", rc.policy);
  if (!rc.axes.empty()) at.set("axes", rc.axes);
  expect_kernels_match(OpType::kResize, at, ins, {kspec(dt, out)},
                       what + (constant ? " const" : " run-time"),
                       rc.mode == "nearest" ? kBytes : interp_tol(dt));
}

std::string describe(const ResizeCase& rc) {
  std::ostringstream os;
  os << rc.mode << "/" << rc.ctm << "/" << rc.nearest_mode << " A=" << rc.A
     << " excl=" << rc.exclude_outside << " aa=" << rc.antialias << " in=" << dims_str(rc.in)
     << " axes=" << dims_str(rc.axes) << " sizes=" << dims_str(rc.sizes) << " scales=";
  for (double s : rc.scales) os << s << ",";
  os << " roi=";
  for (double r : rc.roi) os << r << ",";
  os << " policy=" << rc.policy;
  return os.str();
}

// Random cases over every mode, coordinate transform, nearest mode, cubic A, exclude_outside,
// antialias, axes and keep_aspect_ratio_policy (the CPU test's generator), each in every
// float dtype with constant and run-time parameters.
TEST(CudaMovementResize, AllModesConstantAndRunTime) {
  AMP_REQUIRE_GPU();
  uint32_t seed;
  std::mt19937 rng = make_rng(&seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  const std::vector<std::string> ctms = {"half_pixel",         "half_pixel_symmetric",
                                         "pytorch_half_pixel", "align_corners",
                                         "asymmetric",         "tf_crop_and_resize"};
  const std::vector<std::string> nearest_modes = {"round_prefer_floor", "round_prefer_ceil",
                                                  "floor", "ceil"};
  std::uniform_real_distribution<double> scale_d(0.3, 2.6);
  std::uniform_int_distribution<int64_t> dim(1, 9);
  for (int trial = 0; trial < 144; ++trial) {
    ResizeCase rc;
    rc.mode = trial % 3 == 0 ? "nearest" : trial % 3 == 1 ? "linear" : "cubic";
    rc.ctm = ctms[static_cast<size_t>(trial / 3) % ctms.size()];
    rc.nearest_mode = nearest_modes[static_cast<size_t>(trial / 18) % nearest_modes.size()];
    rc.A = trial % 4 == 0 ? -0.5 : -0.75;
    rc.exclude_outside = rc.mode != "nearest" && trial % 5 == 0;
    rc.antialias = rc.mode != "nearest" && trial % 4 == 1;
    rc.extrapolation = trial % 2 ? 0.0 : 7.25;
    const int rank = 2 + trial % 3;
    for (int a = 0; a < rank; ++a) rc.in.push_back(dim(rng));
    std::vector<int64_t> axes = {rank - 1};
    if (trial % 2) axes.insert(axes.begin(), rank - 2);
    if (trial % 7 == 3) std::reverse(axes.begin(), axes.end());
    const bool use_axes = trial % 3 != 2;
    std::vector<int64_t> listed = axes;
    if (!use_axes) {
      listed.clear();
      for (int a = 0; a < rank; ++a) listed.push_back(a);
    }
    std::vector<bool> resized;
    for (int64_t a : listed) {
      const bool r = std::find(axes.begin(), axes.end(), a) != axes.end();
      resized.push_back(r);
      const double s = r ? scale_d(rng) : 1.0;
      if (trial % 2)
        rc.scales.push_back(s);
      else
        rc.sizes.push_back(std::max<int64_t>(
            1, std::lround(s * static_cast<double>(rc.in[static_cast<size_t>(a)]))));
    }
    if (rc.ctm == "tf_crop_and_resize") {
      for (bool r : resized)
        rc.roi.push_back(r ? std::uniform_real_distribution<double>(-0.3, 0.6)(rng) : 0.0);
      for (bool r : resized)
        rc.roi.push_back(r ? std::uniform_real_distribution<double>(0.4, 1.3)(rng) : 1.0);
    }
    if (use_axes) rc.axes = listed;
    if (!rc.sizes.empty() && trial % 8 == 4 && rc.ctm != "tf_crop_and_resize")
      rc.policy = trial % 16 == 4 ? "not_larger" : "not_smaller";
    for (DType dt : {DType::kF32, DType::kF16, DType::kBF16, DType::kF64})
      for (bool constant : {true, false})
        expect_resize_match(rc, dt, constant, rng,
                            describe(rc) + " " + std::string(dtype_name(dt)));
  }
}

TEST(CudaMovementResize, NearestIntegersLargeAndGraph) {
  AMP_REQUIRE_GPU();
  uint32_t seed;
  std::mt19937 rng = make_rng(&seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  ResizeCase rc;
  rc.in = {1, 2, 5, 7};
  rc.scales = {1.0, 1.0, 2.0, 1.5};
  for (DType dt : {DType::kU8, DType::kI8, DType::kI16, DType::kI32, DType::kI64})
    for (bool constant : {true, false})
      expect_resize_match(rc, dt, constant, rng, "nearest " + std::string(dtype_name(dt)));
  // A larger bilinear and bicubic 2x upsample and an antialiased 3x downsample.
  for (const std::string mode : {"linear", "cubic"})
    for (DType dt : {DType::kF32, DType::kF16, DType::kBF16}) {
      ResizeCase up;
      up.mode = mode;
      up.in = {2, 8, 40, 48};
      up.scales = {1.0, 1.0, 2.0, 2.0};
      expect_resize_match(up, dt, true, rng, mode + " up " + std::string(dtype_name(dt)));
      ResizeCase down = up;
      down.scales = {1.0, 1.0, 1.0 / 3.0, 1.0 / 3.0};
      down.antialias = true;
      down.in = {1, 3, 96, 90};
      expect_resize_match(down, dt, true, rng, mode + " aa down " + std::string(dtype_name(dt)));
    }
  // Through the graph runners (constant scales, the importer's usual form).
  Attributes at;
  at.set("mode", std::string("linear"));
  expect_same(OpType::kResize,
              {in(random_floats(DType::kF16, {1, 3, 17, 23}, rng, -3, 3)), none(),
               cst(tensor_of<float>(DType::kF32, {4}, {1.0f, 1.0f, 2.0f, 0.5f}))},
              at, "graph linear f16", 1, interp_tol(DType::kF16));
  Attributes nat;
  nat.set("mode", std::string("nearest"));
  expect_same(
      OpType::kResize,
      {in(random_bytes(DType::kU8, {1, 2, 9, 9}, rng)), none(), none(), cst(i64s({1, 2, 18, 27}))},
      nat, "graph nearest sizes u8");
}

// ---- Shape ops and sources --------------------------------------------------------------------

TEST(CudaMovementShapeOps, ShapeSizeConstantOfShapeRangeConstant) {
  AMP_REQUIRE_GPU();
  uint32_t seed;
  std::mt19937 rng = make_rng(&seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (DType dt : {DType::kF32, DType::kF16, DType::kU8}) {
    expect_same(OpType::kShape, {in(random_bytes(dt, {2, 3, 4, 5}, rng))}, {},
                "shape " + std::string(dtype_name(dt)));
    Attributes se;
    se.set("start", int64_t{1});
    se.set("end", int64_t{-1});
    expect_same(OpType::kShape, {in(random_bytes(dt, {2, 3, 4, 5}, rng))}, se, "shape start/end");
    expect_same(OpType::kSize, {in(random_bytes(dt, {2, 3, 4, 5}, rng))}, {}, "size");
  }
  for (DType dt : kAllTypes) {
    Attributes v;
    v.set("value", random_bytes(dt, {1}, rng));
    expect_same(OpType::kConstantOfShape, {cst(i64s({3, 1, 257}))}, v,
                "ConstantOfShape " + std::string(dtype_name(dt)));
    Attributes c;
    c.set("value", random_bytes(dt, {3, 7}, rng));
    expect_same(OpType::kConstant, {}, c, "Constant " + std::string(dtype_name(dt)));
  }
  expect_same(OpType::kConstantOfShape, {cst(i64s({4, 5}))}, {}, "ConstantOfShape default");
  // Constants over one inline payload (1 KiB): several launches, an uneven last chunk;
  // past 64 KiB, a plain copy.
  Attributes big;
  big.set("value", random_bytes(DType::kF32, {1000}, rng));
  expect_same(OpType::kConstant, {}, big, "Constant 4000 bytes");
  Attributes huge;
  huge.set("value", random_bytes(DType::kF32, {20000}, rng));
  expect_same(OpType::kConstant, {}, huge, "Constant 80000 bytes");
  Attributes vf;
  vf.set("value_floats", std::vector<float>{1.5f, -2.0f, 3.25f});
  expect_same(OpType::kConstant, {}, vf, "value_floats");

  // Range: start, limit, delta (constants: the output length depends on them).
  auto scalar = [](DType dt, double v) {
    std::vector<uint8_t> b(dtype_size(dt));
    switch (dt) {
      case DType::kF32: {
        const float f = static_cast<float>(v);
        std::memcpy(b.data(), &f, 4);
        break;
      }
      case DType::kF16: {
        const uint16_t h = float_to_half_bits(static_cast<float>(v));
        std::memcpy(b.data(), &h, 2);
        break;
      }
      case DType::kBF16: {
        const uint16_t h = float_to_bf16_bits(static_cast<float>(v));
        std::memcpy(b.data(), &h, 2);
        break;
      }
      case DType::kF64:
        std::memcpy(b.data(), &v, 8);
        break;
      case DType::kI64: {
        const int64_t i = static_cast<int64_t>(v);
        std::memcpy(b.data(), &i, 8);
        break;
      }
      case DType::kI32: {
        const int32_t i = static_cast<int32_t>(v);
        std::memcpy(b.data(), &i, 4);
        break;
      }
      default: {
        const int16_t i = static_cast<int16_t>(v);
        std::memcpy(b.data(), &i, 2);
        break;
      }
    }
    return TensorData::from_bytes(dt, {}, std::move(b)).value();
  };
  for (DType dt : {DType::kF32, DType::kF16, DType::kBF16, DType::kF64})
    expect_same(OpType::kRange,
                {cst(scalar(dt, -1.25)), cst(scalar(dt, 40.0)), cst(scalar(dt, 0.375))}, {},
                "Range " + std::string(dtype_name(dt)));
  for (DType dt : {DType::kI64, DType::kI32, DType::kI16})
    expect_same(OpType::kRange, {cst(scalar(dt, 17)), cst(scalar(dt, -300)), cst(scalar(dt, -7))},
                {}, "Range " + std::string(dtype_name(dt)));
}

}  // namespace
}  // namespace amp
