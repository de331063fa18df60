// CUDA reduction family (kernels/cuda/reduce_*.cu, norm_*.cu, softmax.cu) against the CPU
// backend: every case builds a one-node graph, runs it on the CPU (test::run_graph, the
// oracle) and on the GPU (test::run_graph_cuda), and compares the outputs with a per-dtype
// tolerance. Both runners poison outputs with 0xFF bytes first, so an element the GPU
// kernel leaves unwritten reads as NaN and fails. Inputs are random (fresh seed per test,
// printed on failure), never all zero. Shapes are chosen to reach every launch geometry:
// warp-per-row and block-per-row, strided columns, split reductions with a combine pass,
// flattened short runs, broadcast LayerNorm parameters.
//
// Tolerances: both backends compute in fp32 and round once, so they differ only by
// summation order: f32 rtol 1e-4, f16 2e-3 (two f16 ulps), bf16 1.6e-2 (two bf16 ulps),
// integers exact; sums and means that cancel get an absolute slack (check_reduce).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <sstream>
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
using graph::TensorData;
using graph::ValueId;

struct Tol {
  double rtol;
  double atol;
};

Tol tol_for(DType t) {
  switch (t) {
    case DType::kF32:
      return {1e-4, 1e-5};
    case DType::kF16:
      return {2e-3, 1e-3};
    case DType::kBF16:
      return {1.6e-2, 1e-2};
    case DType::kF64:
      return {1e-10, 1e-12};
    default:
      return {0, 0};
  }
}

// Random tensors of any dtype, rounded to it; element 0 is never 0.
class Rng {
 public:
  Rng() : seed_(std::random_device{}()), gen_(seed_) {}
  unsigned seed() const { return seed_; }

  TensorData tensor(DType t, const std::vector<int64_t>& dims, double lo = -2.0, double hi = 2.0,
                    bool integral = false) {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    std::uniform_real_distribution<double> u(lo, hi);
    std::vector<double> v(static_cast<size_t>(n));
    for (double& x : v) x = integral ? std::floor(u(gen_)) : u(gen_);
    if (!v.empty() && v[0] == 0.0) v[0] = hi > 1.0 ? 1.0 : 0.5 * hi;
    return make(t, dims, v);
  }

  static TensorData make(DType t, const std::vector<int64_t>& dims, const std::vector<double>& v) {
    switch (t) {
      case DType::kF32:
        return from<float>(t, dims, v);
      case DType::kF64:
        return from<double>(t, dims, v);
      case DType::kF16: {
        std::vector<uint16_t> b(v.size());
        for (size_t i = 0; i < v.size(); ++i) b[i] = float_to_half_bits(static_cast<float>(v[i]));
        return TensorData::from_vector(t, dims, b);
      }
      case DType::kBF16: {
        std::vector<uint16_t> b(v.size());
        for (size_t i = 0; i < v.size(); ++i) b[i] = float_to_bf16_bits(static_cast<float>(v[i]));
        return TensorData::from_vector(t, dims, b);
      }
      case DType::kI8:
        return from<int8_t>(t, dims, v);
      case DType::kU8:
        return from<uint8_t>(t, dims, v);
      case DType::kI32:
        return from<int32_t>(t, dims, v);
      case DType::kI64:
        return from<int64_t>(t, dims, v);
      case DType::kBool: {
        std::vector<uint8_t> b(v.size());
        for (size_t i = 0; i < v.size(); ++i) b[i] = v[i] > 0 ? 1 : 0;
        return TensorData::from_vector(t, dims, b);
      }
      default:
        ADD_FAILURE() << "test: unhandled dtype";
        return TensorData();
    }
  }

 private:
  template <typename T>
  static TensorData from(DType t, const std::vector<int64_t>& dims, const std::vector<double>& v) {
    std::vector<T> b(v.size());
    for (size_t i = 0; i < v.size(); ++i) b[i] = static_cast<T>(v[i]);
    return TensorData::from_vector(t, dims, b);
  }

  unsigned seed_;
  std::mt19937 gen_;
};

// Runs `g` on CPU and GPU and compares every graph output.
void expect_gpu_matches_cpu(const std::string& label, const graph::Graph& g,
                            const std::map<std::string, TensorData>& inputs, Tol tol) {
  auto cpu = test::run_graph(g, inputs);
  ASSERT_TRUE(cpu.is_ok()) << label << ": CPU: " << cpu.status().to_string();
  auto gpu = test::run_graph_cuda(g, inputs);
  ASSERT_TRUE(gpu.is_ok()) << label << ": CUDA: " << gpu.status().to_string();
  ASSERT_EQ(cpu->size(), gpu->size()) << label;
  for (size_t i = 0; i < cpu->size(); ++i) {
    const std::string diff = test::compare_tensors((*cpu)[i], (*gpu)[i], tol.rtol, tol.atol);
    EXPECT_TRUE(diff.empty()) << label << ", output " << i << ": " << diff;
  }
}

std::string dims_str(const std::vector<int64_t>& d) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < d.size(); ++i) os << (i ? "," : "") << d[i];
  os << "]";
  return os.str();
}

const std::vector<DType> kFloatTypes = {DType::kF32, DType::kF16, DType::kBF16};

// One node with input "x" (+ constant axes), one output.
void check_reduce(Rng& rng, OpType op, DType t, const std::vector<int64_t>& dims,
                  const std::vector<int64_t>* axes, bool keepdims, bool noop = false,
                  bool integral = false) {
  GraphBuilder b;
  const ValueId x = b.input("x", t, graph::Shape::from_static(dims));
  std::vector<ValueId> ins = {x};
  if (axes) ins.push_back(b.constant("axes", TensorData::vector_i64(*axes)));
  Attributes at;
  at.set("keepdims", int64_t{keepdims ? 1 : 0});
  if (noop) at.set("noop_with_empty_axes", int64_t{1});
  b.output(b.node(op, ins, at));
  std::ostringstream label;
  label << op_name(op) << " " << dtype_name(t) << " " << dims_str(dims) << " axes "
        << (axes ? dims_str(*axes) : "absent") << " keepdims " << keepdims << " noop " << noop
        << " seed " << rng.seed();
  const double lo = integral ? -50 : -2, hi = integral ? 50 : 2;
  // A sum of n terms of either sign can cancel to far below its terms: the two summation
  // orders then differ by ~ulp(term) * sqrt(n), not by rtol of the (small) result. So
  // sums and means get an absolute slack of rtol * |term| * sqrt(n) (/ n for a mean).
  Tol tol = tol_for(t);
  if (!integral && (op == OpType::kReduceSum || op == OpType::kReduceMean)) {
    int64_t n = 1;
    const int64_t rank = static_cast<int64_t>(dims.size());
    if (!axes || axes->empty()) {
      if (!noop)
        for (int64_t d : dims) n *= d;
    } else {
      for (int64_t a : *axes) n *= dims[static_cast<size_t>(a < 0 ? a + rank : a)];
    }
    const double slack = tol.rtol * hi * std::sqrt(static_cast<double>(n));
    tol.atol = std::max(tol.atol, op == OpType::kReduceMean ? slack / n : slack);
  }
  expect_gpu_matches_cpu(label.str(), b.build(), {{"x", rng.tensor(t, dims, lo, hi, integral)}},
                         tol);
}

TEST(CudaReduction, ReduceFloatShapesAndAxes) {
  AMP_REQUIRE_GPU();
  Rng rng;
  struct Case {
    std::vector<int64_t> dims;
    std::vector<int64_t> axes;
    bool keepdims;
  };
  const std::vector<Case> cases = {
      {{4, 5, 6}, {1}, true},           // inner kept, one thread per column
      {{8, 1000}, {1}, true},           // warp per row, vector loads
      {{4, 5000}, {-1}, false},         // block per row
      {{2, 300000}, {1}, true},         // few outputs: split + combine
      {{100000, 3}, {0}, false},        // column reduction, split over rows
      {{5, 6, 7}, {}, true},            // empty axes: reduce all
      {{5, 6, 7}, {0, 1}, false},       // leading axes: inner kept
      {{3, 4, 5, 6}, {1, 3}, true},     // short runs: flattened walk
      {{3, 40, 5, 64}, {0, 2}, false},  // runs of 64 over two reduced dims
      {{1, 1, 1}, {0, 2}, true},        // all size 1
  };
  for (OpType op :
       {OpType::kReduceMax, OpType::kReduceMin, OpType::kReduceSum, OpType::kReduceMean})
    for (DType t : kFloatTypes)
      for (const Case& c : cases) check_reduce(rng, op, t, c.dims, &c.axes, c.keepdims);
}

TEST(CudaReduction, ReduceNoAxesInputAndNoop) {
  AMP_REQUIRE_GPU();
  Rng rng;
  const std::vector<int64_t> empty;
  for (DType t : kFloatTypes) {
    check_reduce(rng, OpType::kReduceSum, t, {3, 4, 5}, nullptr, true);
    check_reduce(rng, OpType::kReduceMean, t, {3, 4, 5}, nullptr, false);
    check_reduce(rng, OpType::kReduceMax, t, {3, 4, 5}, &empty, true, /*noop=*/true);
  }
  check_reduce(rng, OpType::kReduceSum, DType::kF64, {7, 300}, nullptr, false);
}

TEST(CudaReduction, ReduceIntegerAndBoolExact) {
  AMP_REQUIRE_GPU();
  Rng rng;
  const std::vector<int64_t> ax1 = {1}, ax0 = {0};
  for (DType t : {DType::kI32, DType::kI64}) {
    for (OpType op :
         {OpType::kReduceSum, OpType::kReduceMean, OpType::kReduceMax, OpType::kReduceMin}) {
      check_reduce(rng, op, t, {6, 777}, &ax1, true, false, true);
      check_reduce(rng, op, t, {500, 7}, &ax0, false, false, true);
    }
  }
  for (DType t : {DType::kI8, DType::kU8, DType::kBool}) {
    for (OpType op : {OpType::kReduceMax, OpType::kReduceMin}) {
      check_reduce(rng, op, t, {6, 777}, &ax1, true, false, true);
      check_reduce(rng, op, t, {50, 7}, &ax0, false, false, true);
    }
  }
}

TEST(CudaReduction, ArgMaxAxesTiesAndSelectLast) {
  AMP_REQUIRE_GPU();
  Rng rng;
  struct Case {
    std::vector<int64_t> dims;
    int64_t axis;
  };
  const std::vector<Case> cases = {{{6, 100}, 1}, {{6, 3000}, -1}, {{5, 7, 9}, 1}, {{40, 3}, 0}};
  for (DType t : {DType::kF32, DType::kF16, DType::kBF16, DType::kI32, DType::kU8}) {
    for (const Case& c : cases) {
      for (int64_t last : {0, 1}) {
        GraphBuilder b;
        const ValueId x = b.input("x", t, graph::Shape::from_static(c.dims));
        Attributes at;
        at.set("axis", c.axis);
        at.set("keepdims", int64_t{last});  // both keepdims forms, tied to the loop
        at.set("select_last_index", last);
        b.output(b.node(OpType::kArgMax, {x}, at));
        std::ostringstream label;
        label << "ArgMax " << dtype_name(t) << " " << dims_str(c.dims) << " axis " << c.axis
              << " last " << last << " seed " << rng.seed();
        // Small integers make ties common, so select_last_index matters.
        expect_gpu_matches_cpu(label.str(), b.build(),
                               {{"x", rng.tensor(t, c.dims, 0, 8, /*integral=*/true)}}, {0, 0});
      }
    }
  }
}

TEST(CudaReduction, SoftmaxAndLogSoftmax) {
  AMP_REQUIRE_GPU();
  Rng rng;
  struct Case {
    std::vector<int64_t> dims;
    int64_t axis;
    int opset;
  };
  const std::vector<Case> cases = {
      {{4, 16, 128}, -1, 13},  // attention rows: warp per row
      {{2, 5000}, 1, 13},      // long rows: block per row
      {{3, 7, 5}, 1, 13},      // middle axis: columns
      {{2, 3, 4, 5}, 1, 11},   // opset < 13: coerced to [2, 60]
      {{6, 33}, 0, 13},        // leading axis
  };
  for (OpType op : {OpType::kSoftmax, OpType::kLogSoftmax}) {
    for (DType t : {DType::kF32, DType::kF16, DType::kBF16, DType::kF64}) {
      for (const Case& c : cases) {
        GraphBuilder b;
        b.set_opset(c.opset);
        const ValueId x = b.input("x", t, graph::Shape::from_static(c.dims));
        Attributes at;
        at.set("axis", c.axis);
        b.output(b.node(op, {x}, at));
        std::ostringstream label;
        label << op_name(op) << " " << dtype_name(t) << " " << dims_str(c.dims) << " axis "
              << c.axis << " opset " << c.opset << " seed " << rng.seed();
        expect_gpu_matches_cpu(label.str(), b.build(), {{"x", rng.tensor(t, c.dims, -8, 8)}},
                               tol_for(t));
      }
    }
  }
}

TEST(CudaReduction, LayerNormalizationParamsAndStatistics) {
  AMP_REQUIRE_GPU();
  Rng rng;
  struct Case {
    std::vector<int64_t> dims;
    int64_t axis;
    std::vector<int64_t> scale_dims;  // B has the same dims
    bool with_bias;
    bool stats;
    bool constant_params;
  };
  const std::vector<Case> cases = {
      {{4, 16, 64}, -1, {64}, true, false, true},     // warp per row, params in place
      {{2, 3, 1500}, -1, {1500}, true, true, false},  // block per row, statistics
      {{4, 8, 64}, -2, {1, 64}, true, true, true},    // broadcast params: expanded
      {{3, 5, 7}, 1, {5, 7}, false, false, false},    // no B
      {{6, 40}, 0, {6, 40}, true, true, true},        // axis 0: one row
  };
  for (DType t : {DType::kF32, DType::kF16, DType::kBF16}) {
    for (const Case& c : cases) {
      GraphBuilder b;
      const ValueId x = b.input("x", t, graph::Shape::from_static(c.dims));
      std::map<std::string, TensorData> inputs = {{"x", rng.tensor(t, c.dims, -3, 5)}};
      std::vector<ValueId> ins = {x};
      const char* names[2] = {"scale", "bias"};
      for (int p = 0; p < (c.with_bias ? 2 : 1); ++p) {
        TensorData d = rng.tensor(t, c.scale_dims, 0.5, 1.5);
        if (c.constant_params) {
          ins.push_back(b.constant(names[p], d));
        } else {
          ins.push_back(b.input(names[p], t, graph::Shape::from_static(c.scale_dims)));
          inputs[names[p]] = d;
        }
      }
      Attributes at;
      at.set("axis", c.axis);
      at.set("epsilon", 1e-3f);
      const std::vector<ValueId> outs =
          b.node_multi(OpType::kLayerNormalization, ins, c.stats ? 3 : 1, at);
      for (ValueId o : outs) b.output(o);
      std::ostringstream label;
      label << "LayerNormalization " << dtype_name(t) << " " << dims_str(c.dims) << " axis "
            << c.axis << " scale " << dims_str(c.scale_dims) << " seed " << rng.seed();
      expect_gpu_matches_cpu(label.str(), b.build(), inputs, tol_for(t));
    }
  }
}

TEST(CudaReduction, InstanceAndBatchNormalization) {
  AMP_REQUIRE_GPU();
  Rng rng;
  for (DType t : {DType::kF32, DType::kF16, DType::kBF16}) {
    for (const std::vector<int64_t>& dims :
         std::vector<std::vector<int64_t>>{{2, 3, 10, 10}, {1, 4, 40, 40}, {2, 5, 9}}) {
      const int64_t c = dims[1];
      {
        GraphBuilder b;
        const ValueId x = b.input("x", t, graph::Shape::from_static(dims));
        const ValueId s = b.constant("scale", rng.tensor(t, {c}, 0.5, 1.5));
        const ValueId bias = b.input("bias", t, graph::Shape::from_static({c}));
        Attributes at;
        at.set("epsilon", 1e-4f);
        b.output(b.node(OpType::kInstanceNormalization, {x, s, bias}, at));
        std::ostringstream label;
        label << "InstanceNormalization " << dtype_name(t) << " " << dims_str(dims) << " seed "
              << rng.seed();
        expect_gpu_matches_cpu(label.str(), b.build(),
                               {{"x", rng.tensor(t, dims)}, {"bias", rng.tensor(t, {c})}},
                               tol_for(t));
      }
      {
        GraphBuilder b;
        const ValueId x = b.input("x", t, graph::Shape::from_static(dims));
        // Parameters in f32 while X is low precision: mixed dtypes are allowed.
        const ValueId s = b.constant("scale", rng.tensor(DType::kF32, {c}, 0.5, 1.5));
        const ValueId bias = b.constant("bias", rng.tensor(t, {c}));
        const ValueId mean = b.input("mean", t, graph::Shape::from_static({c}));
        const ValueId var = b.constant("var", rng.tensor(t, {c}, 0.1, 2.0));
        b.output(b.node(OpType::kBatchNormalization, {x, s, bias, mean, var}));
        std::ostringstream label;
        label << "BatchNormalization " << dtype_name(t) << " " << dims_str(dims) << " seed "
              << rng.seed();
        expect_gpu_matches_cpu(
            label.str(), b.build(),
            {{"x", rng.tensor(t, dims)}, {"mean", rng.tensor(t, {c}, -0.5, 0.5)}}, tol_for(t));
      }
    }
  }
  // BatchNormalization on [N, C] (no spatial dims) and on large planes.
  for (const std::vector<int64_t>& dims :
       std::vector<std::vector<int64_t>>{{4, 6}, {2, 4, 20, 20}}) {
    GraphBuilder b;
    const int64_t c = dims[1];
    const ValueId x = b.input("x", DType::kF32, graph::Shape::from_static(dims));
    std::vector<ValueId> ins = {x};
    for (const char* n : {"scale", "bias", "mean", "var"})
      ins.push_back(b.constant(n, rng.tensor(DType::kF32, {c}, 0.2, 1.2)));
    b.output(b.node(OpType::kBatchNormalization, ins));
    expect_gpu_matches_cpu("BatchNormalization f32 " + dims_str(dims), b.build(),
                           {{"x", rng.tensor(DType::kF32, dims)}}, tol_for(DType::kF32));
  }
}

TEST(CudaReduction, GlobalAveragePool) {
  AMP_REQUIRE_GPU();
  Rng rng;
  for (DType t : {DType::kF32, DType::kF16, DType::kBF16, DType::kF64}) {
    for (const std::vector<int64_t>& dims : std::vector<std::vector<int64_t>>{
             {2, 3, 7, 7}, {1, 4, 64, 64}, {3, 5, 11}, {2, 2, 3, 4, 5}}) {
      GraphBuilder b;
      const ValueId x = b.input("x", t, graph::Shape::from_static(dims));
      b.output(b.node(OpType::kGlobalAveragePool, {x}));
      std::ostringstream label;
      label << "GlobalAveragePool " << dtype_name(t) << " " << dims_str(dims) << " seed "
            << rng.seed();
      expect_gpu_matches_cpu(label.str(), b.build(), {{"x", rng.tensor(t, dims)}}, tol_for(t));
    }
  }
}

// Needs no GPU: prepare() is host code.
TEST(CudaReduction, RuntimeAxesAreUnsupportedNotWrong) {
  // Reading run-time axes would need a device-to-host copy inside run(): prepare() says no.
  const test::KernelCall call{.op = OpType::kReduceSum};
  const test::HostTensor x = test::output_spec(DType::kF32, {3, 4});
  const test::HostTensor y = test::output_spec(DType::kF32, {3, 1});
  test::HostTensor axes = test::raw_tensor<int64_t>(DType::kI64, {1}, {1});
  Result<test::PreparedKernel> p = test::PreparedKernel::prepare(
      test::cuda_registry(), kernels::Backend::kCuda, call, {x, axes}, {y});
  EXPECT_EQ(p.status().code(), ErrorCode::kUnsupported) << p.status().to_string();
  // The same axes as a constant are fine.
  axes.constant = true;
  p = test::PreparedKernel::prepare(test::cuda_registry(), kernels::Backend::kCuda, call, {x, axes},
                                    {y});
  EXPECT_TRUE(p.is_ok()) << p.status().to_string();
}

}  // namespace
}  // namespace amp
