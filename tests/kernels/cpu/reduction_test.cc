// Tests of the CPU reduction family (kernels/cpu/reduce_*.cc, norm_*.cc, softmax.cc) against
// naive double-precision references written here, over several shapes, axes and storage
// dtypes. Low-precision inputs are rounded to their dtype first and the reference runs on
// the rounded values, so only the kernel's arithmetic and final rounding are measured.
// Kernels are driven one at a time by the shared harness (tests/test_util/kernel_harness.h);
// the ONNX node tests at the end go through the importer and the graph runner.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <set>

#include "graph/ir/graph.h"
#include "graph/onnx/onnx_importer.h"
#include "graph/passes/pipelines.h"
#include "kernels/common/reduction_functors.h"
#include "kernels/cpu/cpu_kernels.h"
#include "runtime/common/half.h"
#include "tests/test_util/graph_runner.h"
#include "tests/test_util/kernel_harness.h"
#include "tests/test_util/node_tests.h"
#include "tests/test_util/shared_data.h"

namespace amp {
namespace {

using graph::Attributes;
using graph::OpType;
using kernels::Backend;

// ---- Host tensors and the kernel harness (tests/test_util/kernel_harness.h) ----
using Tensor = test::HostTensor;
using test::KernelRun;

Tensor absent() {
  return test::absent_tensor();
}
// A tensor holding `v` rounded to `dtype`.
Tensor make(DType dtype, std::vector<int64_t> dims, const std::vector<double>& v) {
  return test::host_tensor(dtype, std::move(dims), v);
}
std::vector<double> values(const Tensor& t) {
  return test::tensor_values(t);
}
double get(const Tensor& t, int64_t i) {
  return test::tensor_value(t, i);
}
Tensor axes_tensor(const std::vector<int64_t>& axes, bool constant = true) {
  std::vector<double> v(axes.begin(), axes.end());
  Tensor t = make(DType::kI64, {static_cast<int64_t>(axes.size())}, v);
  t.constant = constant;
  return t;
}

// Fresh random values per test run; the seed is printed on failure.
class Rng {
 public:
  Rng() : seed_(std::random_device{}()), gen_(seed_) {}
  unsigned seed() const { return seed_; }
  std::vector<double> uniform(int64_t n, double lo, double hi) {
    std::uniform_real_distribution<double> d(lo, hi);
    std::vector<double> v(static_cast<size_t>(n));
    for (double& x : v) x = d(gen_);
    return v;
  }
  std::vector<double> ints(int64_t n, int lo, int hi) {
    std::uniform_int_distribution<int> d(lo, hi);
    std::vector<double> v(static_cast<size_t>(n));
    for (double& x : v) x = d(gen_);
    return v;
  }
  // A random tensor rounded to `dtype`.
  Tensor tensor(DType dtype, std::vector<int64_t> dims, double lo = -2, double hi = 2) {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return make(dtype, std::move(dims), uniform(n, lo, hi));
  }

 private:
  unsigned seed_;
  std::mt19937 gen_;
};

KernelRun run_op(OpType op, const Attributes& attrs, const std::vector<Tensor>& ins,
                 const std::vector<Tensor>& outs, int opset = 22, int threads = 1,
                 bool in_place = false) {
  return test::run_kernel(
      {.op = op, .attrs = attrs, .op_version = opset, .threads = threads, .in_place = in_place},
      ins, outs);
}

struct Tol {
  double rtol, atol;
};
Tol tol_for(DType t) {
  switch (t) {
    case DType::kF32:
      return {1e-5, 1e-5};
    case DType::kF16:
      return {1e-3, 1e-3};
    case DType::kBF16:
      return {1e-2, 1e-2};
    case DType::kF64:
      return {1e-12, 1e-12};
    default:
      return {0, 0};  // integers and bool: exact
  }
}

// Element-wise |got - want| <= atol + rtol*|want|; NaN passes only against NaN.
void expect_close(const Tensor& got, const std::vector<double>& want, Tol tol,
                  const std::string& what) {
  ASSERT_EQ(static_cast<size_t>(got.numel()), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    const double g = get(got, static_cast<int64_t>(i)), w = want[i];
    bool ok;
    if (std::isnan(w) || std::isnan(g))
      ok = std::isnan(w) && std::isnan(g);
    else if (std::isinf(w) || std::isinf(g))
      ok = g == w;
    else
      ok = std::fabs(g - w) <= tol.atol + tol.rtol * std::fabs(w);
    if (!ok) {
      ADD_FAILURE() << what << ": element " << i << " got " << g << ", want " << w;
      return;
    }
  }
}

const std::vector<DType> kFloatTypes = {DType::kF32, DType::kF16, DType::kBF16, DType::kF64};

std::string str(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(v[i]);
  }
  return s + "]";
}

// ---- Naive references ----

enum class RKind { kMax, kMin, kSum, kMean };

// Reduces `x` (dims) over `reduced` axes; returns values and the output dims.
std::vector<double> ref_reduce(const std::vector<double>& x, const std::vector<int64_t>& dims,
                               const std::vector<bool>& reduced, bool keepdims, RKind kind,
                               std::vector<int64_t>* out_dims) {
  const size_t r = dims.size();
  std::vector<int64_t> od;  // with keepdims layout
  for (size_t i = 0; i < r; ++i) od.push_back(reduced[i] ? 1 : dims[i]);
  int64_t on = 1;
  for (int64_t d : od) on *= d;
  out_dims->clear();
  for (size_t i = 0; i < r; ++i)
    if (!reduced[i] || keepdims) out_dims->push_back(od[i]);
  double init = 0;
  if (kind == RKind::kMax) init = -std::numeric_limits<double>::infinity();
  if (kind == RKind::kMin) init = std::numeric_limits<double>::infinity();
  std::vector<double> acc(static_cast<size_t>(on), init);
  std::vector<int64_t> cnt(static_cast<size_t>(on), 0);
  std::vector<int64_t> idx(r, 0);
  for (size_t e = 0; e < x.size(); ++e) {
    int64_t o = 0;
    for (size_t i = 0; i < r; ++i) o = o * od[i] + (reduced[i] ? 0 : idx[i]);
    double& a = acc[static_cast<size_t>(o)];
    const double v = x[e];
    if (kind == RKind::kMax)
      a = (std::isnan(v) || v > a) ? v : a;
    else if (kind == RKind::kMin)
      a = (std::isnan(v) || v < a) ? v : a;
    else
      a += v;
    ++cnt[static_cast<size_t>(o)];
    for (size_t i = r; i-- > 0;) {
      if (++idx[i] < dims[i]) break;
      idx[i] = 0;
    }
  }
  if (kind == RKind::kMean)
    for (size_t i = 0; i < acc.size(); ++i) acc[i] /= static_cast<double>(cnt[i]);
  return acc;
}

OpType op_of(RKind k) {
  switch (k) {
    case RKind::kMax:
      return OpType::kReduceMax;
    case RKind::kMin:
      return OpType::kReduceMin;
    case RKind::kSum:
      return OpType::kReduceSum;
    case RKind::kMean:
      return OpType::kReduceMean;
  }
  return OpType::kReduceSum;
}

Attributes reduce_attrs(bool keepdims, bool noop = false) {
  Attributes a;
  a.set("keepdims", int64_t{keepdims ? 1 : 0});
  if (noop) a.set("noop_with_empty_axes", int64_t{1});
  return a;
}

std::vector<bool> flags_for(const std::vector<int64_t>& axes, size_t rank) {
  std::vector<bool> f(rank, axes.empty());
  for (int64_t a : axes) f[static_cast<size_t>(a < 0 ? a + static_cast<int64_t>(rank) : a)] = true;
  return f;
}

// ---- Reduce* ----

struct ReduceCase {
  std::vector<int64_t> dims;
  std::vector<int64_t> axes;
};

const std::vector<ReduceCase> kReduceCases = {
    {{2, 3, 4, 5}, {}},
    {{2, 3, 4, 5}, {0}},
    {{2, 3, 4, 5}, {1}},
    {{2, 3, 4, 5}, {3}},
    {{2, 3, 4, 5}, {-1}},
    {{2, 3, 4, 5}, {0, 2}},
    {{2, 3, 4, 5}, {1, 3}},
    {{2, 3, 4, 5}, {1, 2}},
    {{2, 3, 4, 5}, {0, 1, 2, 3}},
    {{2, 1, 4, 1}, {1, 3}},
    {{7}, {0}},
    {{3, 1000}, {1}},
    {{1000, 3}, {0}},
    {{2, 70, 300}, {1}},
    {{600, 2, 5}, {0, 2}},
    {{4, 513}, {-1}},
    {{3, 2, 2, 300}, {0, 2}},
};

TEST(ReductionReduce, FloatTypesAllKindsShapesAxes) {
  Rng rng;
  SCOPED_TRACE("seed " + std::to_string(rng.seed()));
  for (DType dt : kFloatTypes) {
    for (RKind kind : {RKind::kSum, RKind::kMean, RKind::kMax, RKind::kMin}) {
      for (const ReduceCase& c : kReduceCases) {
        for (bool keep : {true, false}) {
          for (int threads : {1, 4}) {
            Tensor x = rng.tensor(dt, c.dims);
            std::vector<int64_t> od;
            const std::vector<double> want =
                ref_reduce(values(x), c.dims, flags_for(c.axes, c.dims.size()), keep, kind, &od);
            std::vector<Tensor> ins = {x};
            if (!c.axes.empty()) ins.push_back(axes_tensor(c.axes));
            KernelRun r = run_op(op_of(kind), reduce_attrs(keep), ins, {{dt, od}}, 18, threads);
            const std::string what = std::string(op_name(op_of(kind))) + " " +
                                     std::string(dtype_name(dt)) + " " + str(c.dims) + " axes " +
                                     str(c.axes) + " keep " + std::to_string(keep);
            ASSERT_TRUE(r.ok()) << what << ": " << r.prepare_status.to_string() << " / "
                                << r.run_status.to_string();
            // Long sums round a little more than one op; scale atol with sqrt(count).
            Tol t = tol_for(dt);
            t.atol *= 1 + std::sqrt(static_cast<double>(x.numel()) /
                                    std::max<int64_t>(1, r.outputs[0].numel()));
            expect_close(r.outputs[0], want, t, what);
          }
        }
      }
    }
  }
}

TEST(ReductionReduce, IntegerAndBoolTypesExact) {
  Rng rng;
  SCOPED_TRACE("seed " + std::to_string(rng.seed()));
  struct TypeKinds {
    DType dt;
    int lo, hi;
    std::vector<RKind> kinds;
  };
  const std::vector<TypeKinds> types = {
      {DType::kI32, -1000, 1000, {RKind::kSum, RKind::kMean, RKind::kMax, RKind::kMin}},
      {DType::kI64, -100000, 100000, {RKind::kSum, RKind::kMean, RKind::kMax, RKind::kMin}},
      {DType::kI8, -128, 127, {RKind::kMax, RKind::kMin}},
      {DType::kU8, 0, 255, {RKind::kMax, RKind::kMin}},
      {DType::kBool, 0, 1, {RKind::kMax, RKind::kMin}},
  };
  for (const TypeKinds& tk : types) {
    for (RKind kind : tk.kinds) {
      for (const ReduceCase& c : kReduceCases) {
        int64_t n = 1;
        for (int64_t d : c.dims) n *= d;
        Tensor x = make(tk.dt, c.dims, rng.ints(n, tk.lo, tk.hi));
        std::vector<int64_t> od;
        std::vector<double> want =
            ref_reduce(values(x), c.dims, flags_for(c.axes, c.dims.size()), true, kind, &od);
        if (kind == RKind::kMean)  // integer mean truncates toward zero
          for (double& w : want) w = std::trunc(w);
        std::vector<Tensor> ins = {x};
        if (!c.axes.empty()) ins.push_back(axes_tensor(c.axes));
        KernelRun r = run_op(op_of(kind), reduce_attrs(true), ins, {{tk.dt, od}});
        const std::string what = std::string(op_name(op_of(kind))) + " " +
                                 std::string(dtype_name(tk.dt)) + " " + str(c.dims) + " axes " +
                                 str(c.axes);
        ASSERT_TRUE(r.ok()) << what << ": " << r.prepare_status.to_string();
        if (kind == RKind::kMean) {
          // The reference mean is exact; the kernel divides an exact int64 sum.
          std::vector<double> sums = ref_reduce(values(x), c.dims, flags_for(c.axes, c.dims.size()),
                                                true, RKind::kSum, &od);
          const int64_t count = n / static_cast<int64_t>(sums.size());
          for (size_t i = 0; i < sums.size(); ++i)
            want[i] = static_cast<double>(static_cast<int64_t>(sums[i]) / count);
        }
        expect_close(r.outputs[0], want, {0, 0}, what);
      }
    }
  }
}

TEST(ReductionReduce, RuntimeAxesMatchConstantAxes) {
  Rng rng;
  SCOPED_TRACE("seed " + std::to_string(rng.seed()));
  const std::vector<int64_t> dims = {3, 4, 5};
  for (const std::vector<int64_t>& axes :
       std::vector<std::vector<int64_t>>{{1}, {0, 2}, {-1, 0}, {2, 1, 0}}) {
    Tensor x = rng.tensor(DType::kF32, dims);
    std::vector<int64_t> od;
    const std::vector<double> want =
        ref_reduce(values(x), dims, flags_for(axes, 3), false, RKind::kSum, &od);
    KernelRun r = run_op(OpType::kReduceSum, reduce_attrs(false), {x, axes_tensor(axes, false)},
                         {{DType::kF32, od}});
    ASSERT_TRUE(r.ok()) << r.prepare_status.to_string() << r.run_status.to_string();
    expect_close(r.outputs[0], want, tol_for(DType::kF32), "runtime axes " + str(axes));
  }
  // Run-time axes that contradict the planned output shape, or are out of range.
  Tensor x = rng.tensor(DType::kF32, dims);
  KernelRun bad = run_op(OpType::kReduceSum, reduce_attrs(false), {x, axes_tensor({0}, false)},
                         {{DType::kF32, {3, 5}}});
  EXPECT_TRUE(bad.prepare_status.is_ok());
  EXPECT_EQ(bad.run_status.code(), ErrorCode::kInvalidInput);
  bad = run_op(OpType::kReduceSum, reduce_attrs(false), {x, axes_tensor({5}, false)},
               {{DType::kF32, {3, 4}}});
  EXPECT_EQ(bad.run_status.code(), ErrorCode::kInvalidInput);
  bad = run_op(OpType::kReduceSum, reduce_attrs(false), {x, axes_tensor({1, 1}, false)},
               {{DType::kF32, {3, 5}}});
  EXPECT_EQ(bad.run_status.code(), ErrorCode::kInvalidInput);
  // Constant axes out of range are a model error found in prepare.
  bad = run_op(OpType::kReduceSum, reduce_attrs(false), {x, axes_tensor({3})},
               {{DType::kF32, {3, 4}}});
  EXPECT_EQ(bad.prepare_status.code(), ErrorCode::kInvalidModel);
}

TEST(ReductionReduce, EmptyAxesNoopAndReduceAll) {
  Rng rng;
  Tensor x = rng.tensor(DType::kF16, {2, 3, 4});
  const std::vector<double> xv = values(x);
  // noop_with_empty_axes: a copy, bit for bit.
  for (bool with_axes_input : {false, true}) {
    std::vector<Tensor> ins = {x};
    if (with_axes_input) ins.push_back(axes_tensor({}));
    KernelRun r =
        run_op(OpType::kReduceMean, reduce_attrs(true, true), ins, {{DType::kF16, {2, 3, 4}}});
    ASSERT_TRUE(r.ok()) << r.prepare_status.to_string();
    EXPECT_EQ(r.outputs[0].bytes, x.bytes);
  }
  // Empty axes without noop: reduce everything.
  KernelRun r =
      run_op(OpType::kReduceMax, reduce_attrs(false), {x, axes_tensor({})}, {{DType::kF16, {}}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(get(r.outputs[0], 0), *std::max_element(xv.begin(), xv.end()));
}

TEST(ReductionReduce, EmptySetsGiveOnnxIdentities) {
  const double inf = std::numeric_limits<double>::infinity();
  Tensor x = make(DType::kF32, {2, 0, 4}, {});
  struct Case {
    OpType op;
    double want;
  };
  for (const Case& c : std::vector<Case>{
           {OpType::kReduceMax, -inf}, {OpType::kReduceMin, inf}, {OpType::kReduceSum, 0.0}}) {
    KernelRun r =
        run_op(c.op, reduce_attrs(true), {x, axes_tensor({1})}, {{DType::kF32, {2, 1, 4}}});
    ASSERT_TRUE(r.ok()) << op_name(c.op);
    expect_close(r.outputs[0], std::vector<double>(8, c.want), {0, 0}, std::string(op_name(c.op)));
  }
  KernelRun r = run_op(OpType::kReduceMean, reduce_attrs(true), {x, axes_tensor({1})},
                       {{DType::kF32, {2, 1, 4}}});
  ASSERT_TRUE(r.ok());
  expect_close(r.outputs[0], std::vector<double>(8, std::nan("")), {0, 0}, "mean of nothing");
  Tensor xi = make(DType::kI32, {0, 3}, {});
  r = run_op(OpType::kReduceMax, reduce_attrs(false), {xi, axes_tensor({0})}, {{DType::kI32, {3}}});
  ASSERT_TRUE(r.ok());
  expect_close(r.outputs[0], std::vector<double>(3, std::numeric_limits<int32_t>::lowest()), {0, 0},
               "i32 max of nothing");
  Tensor xb = make(DType::kBool, {0, 2}, {});
  r = run_op(OpType::kReduceMin, reduce_attrs(false), {xb, axes_tensor({0})},
             {{DType::kBool, {2}}});
  ASSERT_TRUE(r.ok());
  expect_close(r.outputs[0], {1, 1}, {0, 0}, "bool min of nothing (all true)");
  // Nothing to write: a kept dim of size 0.
  Tensor xz = make(DType::kF32, {0, 3}, {});
  r = run_op(OpType::kReduceSum, reduce_attrs(true), {xz, axes_tensor({1})},
             {{DType::kF32, {0, 1}}});
  EXPECT_TRUE(r.ok());
}

TEST(ReductionReduce, MaxMinPropagateNaN) {
  const double nan = std::nan("");
  Tensor x = make(DType::kF32, {2, 4}, {1, nan, 3, 2, 5, 6, 7, 8});
  for (OpType op : {OpType::kReduceMax, OpType::kReduceMin}) {
    KernelRun r = run_op(op, reduce_attrs(false), {x, axes_tensor({1})}, {{DType::kF32, {2}}});
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(std::isnan(get(r.outputs[0], 0))) << op_name(op);
    EXPECT_FALSE(std::isnan(get(r.outputs[0], 1))) << op_name(op);
    r = run_op(op, reduce_attrs(false), {x, axes_tensor({0})}, {{DType::kF32, {4}}});
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(std::isnan(get(r.outputs[0], 1))) << op_name(op);
  }
}

TEST(ReductionReduce, LongFp32SumIsAccurate) {
  // 2^20 copies of 0.1f: a plain running fp32 sum drifts by ~1e-3 relative; pairwise and
  // blocked sums stay near fp32 rounding of the result.
  const int64_t n = int64_t{1} << 20;
  for (bool inner : {true, false}) {
    std::vector<int64_t> dims = inner ? std::vector<int64_t>{1, n} : std::vector<int64_t>{n, 1};
    Tensor x = make(DType::kF32, dims, std::vector<double>(static_cast<size_t>(n), 0.1));
    const double want = static_cast<double>(n) * static_cast<double>(0.1f);
    KernelRun r = run_op(OpType::kReduceSum, reduce_attrs(false), {x, axes_tensor({inner ? 1 : 0})},
                         {{DType::kF32, {1}}}, 18, 2);
    ASSERT_TRUE(r.ok());
    EXPECT_NEAR(get(r.outputs[0], 0), want, want * 2e-6) << "inner " << inner;
  }
}

TEST(ReductionReduce, PrepareRejectsBadModels) {
  Rng rng;
  Tensor x = rng.tensor(DType::kF32, {2, 3});
  // Output dtype differs.
  KernelRun r = run_op(OpType::kReduceSum, reduce_attrs(true), {x, axes_tensor({1})},
                       {{DType::kF16, {2, 1}}});
  EXPECT_EQ(r.prepare_status.code(), ErrorCode::kInvalidModel);
  // Output shape inconsistent with the constant axes.
  r = run_op(OpType::kReduceSum, reduce_attrs(true), {x, axes_tensor({1})},
             {{DType::kF32, {2, 3}}});
  EXPECT_EQ(r.prepare_status.code(), ErrorCode::kInvalidModel);
  // Axes of the wrong dtype.
  Tensor axes32 = make(DType::kI32, {1}, {1});
  axes32.constant = true;
  r = run_op(OpType::kReduceSum, reduce_attrs(true), {x, axes32}, {{DType::kF32, {2, 1}}});
  EXPECT_EQ(r.prepare_status.code(), ErrorCode::kInvalidModel);
}

// ---- ArgMax ----

std::vector<double> ref_argmax(const std::vector<double>& x, const std::vector<int64_t>& dims,
                               size_t axis, bool last) {
  int64_t outer = 1, inner = 1;
  for (size_t i = 0; i < axis; ++i) outer *= dims[i];
  for (size_t i = axis + 1; i < dims.size(); ++i) inner *= dims[i];
  const int64_t len = dims[axis];
  std::vector<double> out;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t j = 0; j < inner; ++j) {
      int64_t best = 0;
      for (int64_t i = 1; i < len; ++i) {
        const double v = x[static_cast<size_t>((o * len + i) * inner + j)];
        const double b = x[static_cast<size_t>((o * len + best) * inner + j)];
        const bool take =
            last ? (v >= b || std::isnan(v)) : (v > b || (std::isnan(v) && !std::isnan(b)));
        if (take) best = i;
      }
      out.push_back(static_cast<double>(best));
    }
  }
  return out;
}

TEST(ReductionArgMax, TypesAxesKeepdimsSelectLast) {
  Rng rng;
  SCOPED_TRACE("seed " + std::to_string(rng.seed()));
  const std::vector<DType> types = {DType::kF32, DType::kF16, DType::kBF16, DType::kF64,
                                    DType::kI32, DType::kI64, DType::kI8,   DType::kU8};
  const std::vector<std::vector<int64_t>> shapes = {
      {5}, {3, 4}, {2, 3, 4}, {2, 300, 3}, {3, 2, 600}};
  for (DType dt : types) {
    for (const auto& dims : shapes) {
      const int64_t rank = static_cast<int64_t>(dims.size());
      for (int64_t axis = -rank; axis < rank; ++axis) {
        for (bool keep : {true, false}) {
          for (bool last : {false, true}) {
            int64_t n = 1;
            for (int64_t d : dims) n *= d;
            // Few distinct values, so ties are common and select_last_index matters.
            Tensor x = make(dt, dims, rng.ints(n, 0, 6));
            const size_t a = static_cast<size_t>(axis < 0 ? axis + rank : axis);
            std::vector<int64_t> od;
            for (size_t i = 0; i < dims.size(); ++i)
              if (i != a)
                od.push_back(dims[i]);
              else if (keep)
                od.push_back(1);
            Attributes at;
            at.set("axis", axis);
            at.set("keepdims", int64_t{keep});
            at.set("select_last_index", int64_t{last});
            KernelRun r = run_op(OpType::kArgMax, at, {x}, {{DType::kI64, od}}, 13, 3);
            const std::string what = std::string(dtype_name(dt)) + " " + str(dims) + " axis " +
                                     std::to_string(axis) + " last " + std::to_string(last);
            ASSERT_TRUE(r.ok()) << what << ": " << r.prepare_status.to_string();
            expect_close(r.outputs[0], ref_argmax(values(x), dims, a, last), {0, 0}, what);
          }
        }
      }
    }
  }
}

TEST(ReductionArgMax, NaNIsTheLargest) {
  const double nan = std::nan("");
  Tensor x = make(DType::kF32, {6}, {1, nan, 9, nan, 3, 2});
  for (bool last : {false, true}) {
    Attributes at;
    at.set("select_last_index", int64_t{last});
    KernelRun r = run_op(OpType::kArgMax, at, {x}, {{DType::kI64, {1}}});
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(get(r.outputs[0], 0), last ? 3 : 1);
  }
  Attributes bad;
  bad.set("axis", int64_t{1});
  EXPECT_EQ(run_op(OpType::kArgMax, bad, {x}, {{DType::kI64, {6}}}).prepare_status.code(),
            ErrorCode::kInvalidModel);
}

// ---- Softmax / LogSoftmax ----

std::vector<double> ref_softmax(const std::vector<double>& x, int64_t outer, int64_t len,
                                int64_t inner, bool log) {
  std::vector<double> y(x.size());
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t j = 0; j < inner; ++j) {
      auto at = [&](int64_t i) { return static_cast<size_t>((o * len + i) * inner + j); };
      double m = -std::numeric_limits<double>::infinity();
      for (int64_t i = 0; i < len; ++i) m = std::max(m, x[at(i)]);
      double s = 0;
      for (int64_t i = 0; i < len; ++i) s += std::exp(x[at(i)] - m);
      for (int64_t i = 0; i < len; ++i)
        y[at(i)] = log ? x[at(i)] - m - std::log(s) : std::exp(x[at(i)] - m) / s;
    }
  }
  return y;
}

TEST(ReductionSoftmax, TypesShapesAxesOpset13) {
  Rng rng;
  SCOPED_TRACE("seed " + std::to_string(rng.seed()));
  const std::vector<std::vector<int64_t>> shapes = {
      {7}, {3, 5}, {2, 3, 4}, {2, 700, 3}, {2, 3, 300}};
  for (DType dt : kFloatTypes) {
    for (bool log : {false, true}) {
      for (const auto& dims : shapes) {
        const int64_t rank = static_cast<int64_t>(dims.size());
        for (int64_t axis = -rank; axis < rank; ++axis) {
          // Large offsets: only a max-subtracted implementation survives exp(100).
          Tensor x = rng.tensor(dt, dims, 90, 100);
          const size_t a = static_cast<size_t>(axis < 0 ? axis + rank : axis);
          int64_t outer = 1, inner = 1;
          for (size_t i = 0; i < a; ++i) outer *= dims[i];
          for (size_t i = a + 1; i < dims.size(); ++i) inner *= dims[i];
          Attributes at;
          at.set("axis", axis);
          KernelRun r =
              run_op(log ? OpType::kLogSoftmax : OpType::kSoftmax, at, {x}, {{dt, dims}}, 13, 2);
          const std::string what = std::string(log ? "LogSoftmax " : "Softmax ") +
                                   std::string(dtype_name(dt)) + " " + str(dims) + " axis " +
                                   std::to_string(axis);
          ASSERT_TRUE(r.ok()) << what << ": " << r.prepare_status.to_string();
          expect_close(r.outputs[0], ref_softmax(values(x), outer, dims[a], inner, log),
                       tol_for(dt), what);
        }
      }
    }
  }
}

TEST(ReductionSoftmax, OldOpsetCoercesTo2D) {
  Rng rng;
  const std::vector<int64_t> dims = {2, 3, 4};
  for (bool log : {false, true}) {
    for (int64_t axis : {0, 1, 2, -1}) {
      for (bool default_axis : {false, true}) {
        if (default_axis && axis != 1) continue;
        Tensor x = rng.tensor(DType::kF32, dims);
        const int64_t a = axis < 0 ? axis + 3 : axis;
        int64_t outer = 1, len = 1;
        for (int64_t i = 0; i < 3; ++i) (i < a ? outer : len) *= dims[static_cast<size_t>(i)];
        Attributes at;
        if (!default_axis) at.set("axis", axis);
        KernelRun r = run_op(log ? OpType::kLogSoftmax : OpType::kSoftmax, at, {x},
                             {{DType::kF32, dims}}, 11);
        ASSERT_TRUE(r.ok());
        expect_close(r.outputs[0], ref_softmax(values(x), outer, len, 1, log), tol_for(DType::kF32),
                     "opset 11 axis " + std::to_string(axis));
      }
    }
  }
}

// ---- LayerNormalization ----

// X viewed as [outer, n]; scale and bias already expanded to n.
void ref_layer_norm(const std::vector<double>& x, int64_t outer, int64_t n,
                    const std::vector<double>& scale, const std::vector<double>& bias, double eps,
                    std::vector<double>* y, std::vector<double>* mean, std::vector<double>* inv) {
  y->assign(x.size(), 0);
  mean->clear();
  inv->clear();
  for (int64_t o = 0; o < outer; ++o) {
    const double* xr = x.data() + o * n;
    double m = 0, v = 0;
    for (int64_t i = 0; i < n; ++i) m += xr[i];
    m /= static_cast<double>(n);
    for (int64_t i = 0; i < n; ++i) v += (xr[i] - m) * (xr[i] - m);
    v /= static_cast<double>(n);
    const double is = 1 / std::sqrt(v + eps);
    for (int64_t i = 0; i < n; ++i)
      (*y)[static_cast<size_t>(o * n + i)] =
          (xr[i] - m) * is * scale[static_cast<size_t>(i)] + bias[static_cast<size_t>(i)];
    mean->push_back(m);
    inv->push_back(is);
  }
}

TEST(ReductionLayerNorm, TypesAxesParamsAndStatistics) {
  Rng rng;
  SCOPED_TRACE("seed " + std::to_string(rng.seed()));
  const std::vector<int64_t> dims = {2, 3, 40};
  for (DType dt : kFloatTypes) {
    for (int64_t axis : {-1, 1, 0, -2}) {
      for (int variant = 0; variant < 4; ++variant) {
        // 0: full scale + bias, constant; 1: runtime scale, no bias; 2: broadcast scale
        // [1, last] and scalar bias, constant; 3: runtime full scale and bias.
        const size_t a = static_cast<size_t>(axis < 0 ? axis + 3 : axis);
        std::vector<int64_t> nd(dims.begin() + static_cast<std::ptrdiff_t>(a), dims.end());
        int64_t outer = 1, n = 1;
        for (size_t i = 0; i < 3; ++i) (i < a ? outer : n) *= dims[i];
        std::vector<int64_t> sdims = nd, bdims = nd;
        if (variant == 2) {
          sdims.assign(nd.size(), 1);
          sdims.back() = nd.back();
          bdims = {1};
        }
        Tensor x = rng.tensor(dt, dims);
        Tensor scale = rng.tensor(dt, sdims, 0.5, 1.5);
        Tensor bias = variant == 1 ? absent() : rng.tensor(dt, bdims, -1, 1);
        scale.constant = variant == 0 || variant == 2;
        bias.constant = scale.constant;
        // Expand for the reference: scale/bias index = position in nd broadcast.
        std::vector<double> se(static_cast<size_t>(n)), be(static_cast<size_t>(n), 0.0);
        const std::vector<double> sv = values(scale);
        const std::vector<double> bv = bias.present ? values(bias) : std::vector<double>{};
        for (int64_t i = 0; i < n; ++i) {
          const int64_t last = nd.back();
          se[static_cast<size_t>(i)] =
              variant == 2 ? sv[static_cast<size_t>(i % last)] : sv[static_cast<size_t>(i)];
          if (bias.present)
            be[static_cast<size_t>(i)] = variant == 2 ? bv[0] : bv[static_cast<size_t>(i)];
        }
        std::vector<double> want, mean, inv;
        // The kernel sees epsilon as the float attribute 1e-3f.
        ref_layer_norm(values(x), outer, n, se, be, static_cast<double>(1e-3f), &want, &mean, &inv);
        Attributes at;
        at.set("axis", axis);
        at.set("epsilon", 1e-3f);
        std::vector<int64_t> sd(dims.begin(), dims.end());
        for (size_t i = a; i < 3; ++i) sd[i] = 1;
        KernelRun r = run_op(OpType::kLayerNormalization, at, {x, scale, bias},
                             {{dt, dims}, {DType::kF32, sd}, {DType::kF32, sd}}, 17, 2);
        const std::string what = std::string(dtype_name(dt)) + " axis " + std::to_string(axis) +
                                 " variant " + std::to_string(variant);
        ASSERT_TRUE(r.ok()) << what << ": " << r.prepare_status.to_string();
        expect_close(r.outputs[0], want, tol_for(dt), what);
        const Tol st = dt == DType::kF64 ? Tol{1e-6, 1e-6} : Tol{1e-5, 1e-5};
        expect_close(r.outputs[1], mean, st, what + " mean");
        expect_close(r.outputs[2], inv, st, what + " inv_std");
      }
    }
  }
}

TEST(ReductionLayerNorm, LargeOffsetStaysAccurateInFp32) {
  // Rows with mean 1000 and unit spread: E[x^2] - E[x]^2 in fp32 loses every digit
  // (1e6 * 6e-8 ~ 0.06 of a variance of ~0.33); two-pass keeps ~1e-4.
  Rng rng;
  Tensor x = rng.tensor(DType::kF32, {4, 4096}, 999, 1001);
  Tensor scale = make(DType::kF32, {4096}, std::vector<double>(4096, 1.0));
  scale.constant = true;
  std::vector<double> want, mean, inv;
  ref_layer_norm(values(x), 4, 4096, std::vector<double>(4096, 1.0), std::vector<double>(4096, 0.0),
                 1e-5, &want, &mean, &inv);
  KernelRun r =
      run_op(OpType::kLayerNormalization, {}, {x, scale}, {{DType::kF32, {4, 4096}}, absent()}, 17);
  ASSERT_TRUE(r.ok()) << r.prepare_status.to_string();
  expect_close(r.outputs[0], want, {1e-3, 1e-3}, "offset rows");
}

TEST(ReductionLayerNorm, PrepareRejects) {
  Rng rng;
  Tensor x = rng.tensor(DType::kF32, {2, 4});
  Tensor s = rng.tensor(DType::kF32, {3});
  EXPECT_EQ(run_op(OpType::kLayerNormalization, {}, {x, s}, {{DType::kF32, {2, 4}}}, 17)
                .prepare_status.code(),
            ErrorCode::kInvalidModel);
  Attributes at;
  at.set("stash_type", int64_t{11});
  Tensor s4 = rng.tensor(DType::kF32, {4});
  EXPECT_EQ(run_op(OpType::kLayerNormalization, at, {x, s4}, {{DType::kF32, {2, 4}}}, 17)
                .prepare_status.code(),
            ErrorCode::kUnsupported);
}

// ---- InstanceNormalization, BatchNormalization, GlobalAveragePool ----

TEST(ReductionInstanceNorm, TypesAndShapes) {
  Rng rng;
  SCOPED_TRACE("seed " + std::to_string(rng.seed()));
  for (DType dt : kFloatTypes) {
    for (const auto& dims :
         std::vector<std::vector<int64_t>>{{2, 3, 5}, {1, 4, 6, 7}, {2, 2, 3000}}) {
      const int64_t c = dims[1];
      int64_t s = 1;
      for (size_t i = 2; i < dims.size(); ++i) s *= dims[i];
      Tensor x = rng.tensor(dt, dims);
      Tensor scale = rng.tensor(dt, {c}, 0.5, 1.5);
      Tensor bias = rng.tensor(dt, {c});
      std::vector<double> xv = values(x), want(xv.size());
      const std::vector<double> sv = values(scale), bv = values(bias);
      for (int64_t p = 0; p < dims[0] * c; ++p) {
        std::vector<double> plane(xv.begin() + p * s, xv.begin() + (p + 1) * s), y, m, iv;
        ref_layer_norm(plane, 1, s,
                       std::vector<double>(static_cast<size_t>(s), sv[static_cast<size_t>(p % c)]),
                       std::vector<double>(static_cast<size_t>(s), bv[static_cast<size_t>(p % c)]),
                       static_cast<double>(1e-5f), &y, &m, &iv);
        std::copy(y.begin(), y.end(), want.begin() + p * s);
      }
      KernelRun r =
          run_op(OpType::kInstanceNormalization, {}, {x, scale, bias}, {{dt, dims}}, 22, 2);
      ASSERT_TRUE(r.ok()) << r.prepare_status.to_string();
      expect_close(r.outputs[0], want, tol_for(dt), std::string(dtype_name(dt)) + " " + str(dims));
    }
  }
}

TEST(ReductionBatchNorm, ConstantAndRuntimeParamsMixedDtypes) {
  Rng rng;
  SCOPED_TRACE("seed " + std::to_string(rng.seed()));
  for (DType dt : kFloatTypes) {
    for (bool constant : {true, false}) {
      const std::vector<int64_t> dims = {2, 3, 4, 5};
      const int64_t c = 3, s = 20;
      Tensor x = rng.tensor(dt, dims);
      // Parameters stay f32 even for low-precision X (what the AMP planner may produce).
      std::vector<Tensor> p = {rng.tensor(DType::kF32, {c}, 0.5, 1.5), rng.tensor(DType::kF32, {c}),
                               rng.tensor(DType::kF32, {c}), rng.tensor(DType::kF32, {c}, 0.1, 2)};
      for (Tensor& t : p) t.constant = constant;
      const std::vector<double> xv = values(x), sc = values(p[0]), b = values(p[1]),
                                mn = values(p[2]), var = values(p[3]);
      std::vector<double> want(xv.size());
      for (size_t i = 0; i < xv.size(); ++i) {
        const size_t ch = (i / static_cast<size_t>(s)) % static_cast<size_t>(c);
        want[i] =
            (xv[i] - mn[ch]) / std::sqrt(var[ch] + static_cast<double>(1e-5f)) * sc[ch] + b[ch];
      }
      KernelRun r =
          run_op(OpType::kBatchNormalization, {}, {x, p[0], p[1], p[2], p[3]}, {{dt, dims}}, 15);
      ASSERT_TRUE(r.ok()) << r.prepare_status.to_string();
      // The kernel's fold x*a + b rounds differently from the reference's form; the
      // difference stays within each dtype's tolerance.
      expect_close(r.outputs[0], want, tol_for(dt),
                   std::string(dtype_name(dt)) + " constant " + std::to_string(constant));
    }
  }
  // Training is unsupported.
  Tensor x = rng.tensor(DType::kF32, {1, 2, 3});
  Tensor pc = rng.tensor(DType::kF32, {2}, 0.5, 1);
  Attributes at;
  at.set("training_mode", int64_t{1});
  EXPECT_EQ(run_op(OpType::kBatchNormalization, at, {x, pc, pc, pc, pc}, {{DType::kF32, {1, 2, 3}}})
                .prepare_status.code(),
            ErrorCode::kUnsupported);
  EXPECT_EQ(run_op(OpType::kBatchNormalization, {}, {x, pc, pc, pc, pc},
                   {{DType::kF32, {1, 2, 3}}, {DType::kF32, {2}}, {DType::kF32, {2}}})
                .prepare_status.code(),
            ErrorCode::kUnsupported);
}

TEST(ReductionGlobalAveragePool, TypesAndShapes) {
  Rng rng;
  SCOPED_TRACE("seed " + std::to_string(rng.seed()));
  for (DType dt : kFloatTypes) {
    for (const auto& dims : std::vector<std::vector<int64_t>>{
             {1, 3, 5, 5}, {2, 4, 7}, {2, 2, 3, 4, 5}, {1, 2, 300, 300}}) {
      Tensor x = rng.tensor(dt, dims);
      const int64_t planes = dims[0] * dims[1];
      const int64_t s = x.numel() / planes;
      const std::vector<double> xv = values(x);
      std::vector<double> want;
      for (int64_t p = 0; p < planes; ++p) {
        double sum = 0;
        for (int64_t i = 0; i < s; ++i) sum += xv[static_cast<size_t>(p * s + i)];
        want.push_back(sum / static_cast<double>(s));
      }
      std::vector<int64_t> od(dims.size(), 1);
      od[0] = dims[0];
      od[1] = dims[1];
      KernelRun r = run_op(OpType::kGlobalAveragePool, {}, {x}, {{dt, od}}, 22, 2);
      ASSERT_TRUE(r.ok()) << r.prepare_status.to_string();
      expect_close(r.outputs[0], want, tol_for(dt), std::string(dtype_name(dt)) + " " + str(dims));
    }
  }
}

// An input in the convolutions' layout (runtime/layout_plan.h: channels-last here, 8-channel
// blocks under ONEDNN_MAX_CPU_ISA=AVX2, the ctest variant) gives the plain layout's result
// bit for bit: tree_reduce_columns sums in tree_reduce's order, and two threads split the
// positions where tree_reduce does. 291 positions take the pairwise split above 256; 200
// channels span four column groups of at most 64.
TEST(ReductionGlobalAveragePool, ConvLayoutInputGivesThePlainResultBitForBit) {
  const std::vector<int64_t> dims = {2, 200, 3, 97};
  const int64_t n_count = dims[0], c = dims[1], s = dims[2] * dims[3];
  std::mt19937 rng(11);
  std::normal_distribution<float> dist(0.0f, 3.0f);
  std::vector<float> plain(static_cast<size_t>(n_count * c * s));
  for (float& v : plain) v = dist(rng);
  const bool blocked = kernels::cpu_conv_layout_blocked8(dims);
  std::vector<float> conv(plain.size());
  for (int64_t n = 0; n < n_count; ++n)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t i = 0; i < s; ++i)
        conv[static_cast<size_t>(blocked ? ((n * (c / 8) + ch / 8) * s + i) * 8 + ch % 8
                                         : (n * s + i) * c + ch)] =
            plain[static_cast<size_t>((n * c + ch) * s + i)];
  for (OpType op : {OpType::kGlobalAveragePool, OpType::kGlobalMaxPool})
    for (int threads : {1, 2}) {
      auto run = [&](const std::vector<float>& x, bool conv_layout) {
        graph::Node node;
        node.op = op;
        node.op_version = 22;
        kernels::KernelConfig cfg;
        cfg.node = &node;
        cfg.num_threads = threads;
        kernels::TensorDesc in;
        in.dtype = DType::kF32;
        in.dims = dims;
        in.conv_layout = conv_layout;
        kernels::TensorDesc out;
        out.dtype = DType::kF32;
        out.dims = {n_count, c, 1, 1};
        cfg.inputs = {in};
        cfg.outputs = {out};
        auto kernel = test::cpu_registry().find(op, Backend::kCpu, DType::kF32)->create();
        EXPECT_TRUE(kernel->prepare(cfg).is_ok());
        // Two threads split the conv layout's positions in halves, through a workspace.
        EXPECT_EQ(kernel->workspace_bytes() > 0, conv_layout && threads == 2);
        std::vector<double> workspace(kernel->workspace_bytes() / sizeof(double) + 1);
        std::vector<float> y(static_cast<size_t>(n_count * c));
        const void* ins[] = {x.data()};
        void* outs[] = {y.data()};
        kernels::KernelArgs args;
        args.inputs = ins;
        args.outputs = outs;
        args.workspace = workspace.data();
        args.num_threads = threads;
        EXPECT_TRUE(kernel->run(args).is_ok());
        return y;
      };
      const std::vector<float> want = run(plain, false), got = run(conv, true);
      ASSERT_EQ(std::memcmp(want.data(), got.data(), want.size() * sizeof(float)), 0)
          << graph::op_name(op) << " threads " << threads << (blocked ? " blocked" : " nhwc");
    }
}

// ---- In-place declarations ----

TEST(ReductionInPlace, DeclaredKernelsGiveTheSameBytesInPlace) {
  Rng rng;
  SCOPED_TRACE("seed " + std::to_string(rng.seed()));
  for (DType dt : {DType::kF32, DType::kF16}) {
    const std::vector<int64_t> dims = {2, 3, 300};
    Tensor x = rng.tensor(dt, dims);
    Tensor c3 = rng.tensor(DType::kF32, {3}, 0.5, 1.5);  // BatchNorm's params may differ
    Tensor c3x = rng.tensor(dt, {3}, 0.5, 1.5);          // InstanceNorm's share X's dtype
    Tensor n300 = rng.tensor(dt, {300}, 0.5, 1.5);
    Attributes axis1;
    axis1.set("axis", int64_t{1});
    struct Case {
      OpType op;
      Attributes attrs;
      std::vector<Tensor> ins;
    };
    const std::vector<Case> cases = {
        {OpType::kSoftmax, {}, {x}},
        {OpType::kSoftmax, axis1, {x}},
        {OpType::kLogSoftmax, axis1, {x}},
        {OpType::kLayerNormalization, {}, {x, n300}},
        {OpType::kInstanceNormalization, {}, {x, c3x, c3x}},
        {OpType::kBatchNormalization, {}, {x, c3, c3, c3, c3}},
    };
    for (const Case& c : cases) {
      const kernels::KernelDef* def = test::cpu_registry().find(c.op, Backend::kCpu, dt);
      ASSERT_NE(def, nullptr);
      EXPECT_EQ(def->in_place_input, 0) << op_name(c.op);
      KernelRun a = run_op(c.op, c.attrs, c.ins, {{dt, dims}}, 22, 2);
      KernelRun b = run_op(c.op, c.attrs, c.ins, {{dt, dims}}, 22, 2, /*in_place=*/true);
      ASSERT_TRUE(a.ok() && b.ok()) << op_name(c.op) << ": " << a.prepare_status.to_string();
      EXPECT_EQ(a.outputs[0].bytes, b.outputs[0].bytes) << op_name(c.op) << " " << dtype_name(dt);
    }
  }
}

// ---- Shared functors (the arithmetic the CUDA kernels reuse) ----

TEST(ReductionFunctors, WelfordMatchesTwoPass) {
  Rng rng;
  const std::vector<double> v = rng.uniform(1001, 99, 101);
  kernels::WelfordState<double> a, b;
  for (size_t i = 0; i < v.size(); ++i) kernels::welford_update(i < 400 ? a : b, v[i]);
  kernels::welford_merge(a, b);
  double m = 0, var = 0;
  for (double x : v) m += x;
  m /= static_cast<double>(v.size());
  for (double x : v) var += (x - m) * (x - m);
  var /= static_cast<double>(v.size());
  EXPECT_NEAR(a.mean, m, 1e-12);
  EXPECT_NEAR(kernels::welford_variance(a), var, 1e-10);
  EXPECT_EQ(a.count, 1001.0);
}

}  // namespace
}  // namespace amp
