// Tests of the CPU movement family (kernels/cpu/movement_*.cc) against naive references
// written here, independently of the kernels: index-by-index loops for the byte-moving
// ops, and for Resize a direct port of the ONNX reference's nested per-point algorithm
// (neighbours found by sorting distances in an edge-padded axis, as op_resize.py does),
// which shares nothing with the kernel's per-axis tables.
//
// Kernels are driven one at a time by the shared harness (tests/test_util/kernel_harness.h);
// parameter inputs are tried both as constants (read in prepare) and as
// run-time buffers (read in run). The last test runs the ONNX node tests of these ops.
//
// Byte-moving ops are checked bit-exactly on random bytes for every element size. Resize
// uses random values (never all zero); f16/bf16 inputs are rounded to their type first and
// the fp64 reference uses the rounded values; tolerances: f32 1e-5, f16 1e-3, bf16 1e-2
// (relative, with the same absolute floor). NaN never passes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <numeric>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "graph/onnx/onnx_importer.h"
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

// ---- Tensors and the kernel driver --------------------------------------------------------

using Tensor = test::HostTensor;

Tensor absent() {
  return test::absent_tensor();
}
Tensor spec(DType dt, std::vector<int64_t> dims) {
  return test::output_spec(dt, std::move(dims));
}

template <typename T>
Tensor make_raw(DType dt, std::vector<int64_t> dims, const std::vector<T>& values,
                bool constant = false) {
  Tensor t = test::raw_tensor<T>(dt, std::move(dims), values, constant);
  EXPECT_EQ(static_cast<int64_t>(values.size()), t.numel());
  return t;
}

template <typename T>
std::vector<T> raw(const Tensor& t) {
  return test::raw_values<T>(t);
}

Tensor i64s(const std::vector<int64_t>& v, bool constant) {
  return make_raw<int64_t>(DType::kI64, {static_cast<int64_t>(v.size())}, v, constant);
}

// Random bytes: byte-moving ops must reproduce any bit pattern.
Tensor random_bytes(DType dt, std::vector<int64_t> dims, std::mt19937& rng) {
  Tensor t = spec(dt, std::move(dims));
  t.bytes.resize(static_cast<size_t>(t.numel()) * dtype_size(dt));
  std::uniform_int_distribution<int> byte(0, 255);
  for (uint8_t& b : t.bytes) b = static_cast<uint8_t>(byte(rng));
  return t;
}

// `alias` makes output 0 share input 0's buffer, as the memory planner may do for views.
test::KernelRun run_kernel(OpType op, const graph::Attributes& attrs,
                           const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs,
                           int op_version = 21, int threads = 1, bool alias = false) {
  return test::run_kernel(
      {.op = op, .attrs = attrs, .op_version = op_version, .threads = threads, .in_place = alias},
      inputs, outputs);
}

// Row-major multi-index iteration.
void for_each_index(const std::vector<int64_t>& dims,
                    const std::function<void(const std::vector<int64_t>&, int64_t)>& fn) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  std::vector<int64_t> idx(dims.size(), 0);
  for (int64_t flat = 0; flat < n; ++flat) {
    fn(idx, flat);
    for (size_t a = dims.size(); a-- > 0;) {
      if (++idx[a] < dims[a]) break;
      idx[a] = 0;
    }
  }
}

int64_t flat_index(const std::vector<int64_t>& dims, const std::vector<int64_t>& idx) {
  int64_t f = 0;
  for (size_t a = 0; a < dims.size(); ++a) f = f * dims[a] + idx[a];
  return f;
}

void copy_elem(const Tensor& src, int64_t si, Tensor& dst, int64_t di) {
  const size_t e = dtype_size(src.dtype);
  std::memcpy(dst.bytes.data() + static_cast<size_t>(di) * e,
              src.bytes.data() + static_cast<size_t>(si) * e, e);
}

Tensor zeros_like_spec(DType dt, const std::vector<int64_t>& dims) {
  Tensor t = spec(dt, dims);
  t.bytes.assign(static_cast<size_t>(t.numel()) * dtype_size(dt), 0);
  return t;
}

// The byte sizes covered by every dtype: f32(4) f16(2) f64(8) u8(1) (+ bool, i64...).
const std::vector<DType> kByteDtypes = {DType::kF32, DType::kF16, DType::kBF16, DType::kF64,
                                        DType::kI64, DType::kI32, DType::kI16,  DType::kI8,
                                        DType::kU8,  DType::kBool};

// A fresh seed per test; AMP_TEST_SEED=<n> replays a failure.
std::mt19937 make_rng(uint32_t* seed_out) {
  const char* env = std::getenv("AMP_TEST_SEED");
  const uint32_t seed =
      env ? static_cast<uint32_t>(std::strtoul(env, nullptr, 10)) : std::random_device{}();
  *seed_out = seed;
  return std::mt19937(seed);
}

std::vector<int64_t> random_dims(std::mt19937& rng, int rank, int64_t max_dim) {
  std::uniform_int_distribution<int64_t> d(1, max_dim);
  std::vector<int64_t> dims;
  for (int i = 0; i < rank; ++i) dims.push_back(d(rng));
  return dims;
}

#define EXPECT_BYTES_EQ(expected, actual) \
  EXPECT_TRUE((expected).bytes == (actual).bytes) << "bytes differ"

// ---- Views -------------------------------------------------------------------------------

TEST(MovementViews, CopyAndAlias) {
  uint32_t seed;
  std::mt19937 rng = make_rng(&seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (DType dt : kByteDtypes) {
    Tensor x = random_bytes(dt, {2, 3, 4}, rng);
    graph::Attributes none;
    test::KernelRun r =
        run_kernel(OpType::kReshape, none, {x, i64s({6, 4}, true)}, {spec(dt, {6, 4})});
    ASSERT_TRUE(r.status().is_ok()) << r.status().to_string();
    EXPECT_BYTES_EQ(x, r.outputs[0]);
    r = run_kernel(OpType::kIdentity, none, {x}, {spec(dt, {2, 3, 4})}, 21, 1, /*alias=*/true);
    ASSERT_TRUE(r.status().is_ok()) << r.status().to_string();
    EXPECT_BYTES_EQ(x, r.outputs[0]);
    graph::Attributes fa;
    fa.set("axis", int64_t{2});
    r = run_kernel(OpType::kFlatten, fa, {x}, {spec(dt, {6, 4})});
    ASSERT_TRUE(r.status().is_ok());
    EXPECT_BYTES_EQ(x, r.outputs[0]);
    r = run_kernel(OpType::kUnsqueeze, none, {x, i64s({0}, false)}, {spec(dt, {1, 2, 3, 4})});
    ASSERT_TRUE(r.status().is_ok());
    EXPECT_BYTES_EQ(x, r.outputs[0]);
    Tensor y = random_bytes(dt, {1, 5, 1}, rng);
    r = run_kernel(OpType::kSqueeze, none, {y}, {spec(dt, {5})});
    ASSERT_TRUE(r.status().is_ok());
    EXPECT_BYTES_EQ(y, r.outputs[0]);
  }
  // A shape that does not hold the elements is a model error at prepare.
  Tensor x = random_bytes(DType::kF32, {2, 3}, rng);
  test::KernelRun r =
      run_kernel(OpType::kReshape, {}, {x, i64s({4}, true)}, {spec(DType::kF32, {4})});
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidModel);
}

// ---- Transpose and DepthToSpace ------------------------------------------------------------

TEST(MovementTranspose, RandomPermsEveryElementSize) {
  uint32_t seed;
  std::mt19937 rng = make_rng(&seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (int trial = 0; trial < 60; ++trial) {
    const DType dt = kByteDtypes[static_cast<size_t>(trial) % kByteDtypes.size()];
    const int rank = 1 + trial % 6;
    std::vector<int64_t> dims = random_dims(rng, rank, rank > 4 ? 3 : 6);
    std::vector<int64_t> perm(static_cast<size_t>(rank));
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    const bool use_default = trial % 7 == 0;
    if (use_default) std::sort(perm.rbegin(), perm.rend());  // reversed axes
    Tensor x = random_bytes(dt, dims, rng);
    std::vector<int64_t> odims;
    for (int64_t p : perm) odims.push_back(dims[static_cast<size_t>(p)]);
    Tensor expect = zeros_like_spec(dt, odims);
    for_each_index(odims, [&](const std::vector<int64_t>& o, int64_t flat) {
      std::vector<int64_t> i(static_cast<size_t>(rank));
      for (int a = 0; a < rank; ++a)
        i[static_cast<size_t>(perm[static_cast<size_t>(a)])] = o[static_cast<size_t>(a)];
      copy_elem(x, flat_index(dims, i), expect, flat);
    });
    graph::Attributes at;
    if (!use_default) at.set("perm", perm);
    test::KernelRun r =
        run_kernel(OpType::kTranspose, at, {x}, {spec(dt, odims)}, 21, 1 + trial % 3);
    ASSERT_TRUE(r.status().is_ok()) << r.status().to_string();
    EXPECT_BYTES_EQ(expect, r.outputs[0])
        << "dims " << ::testing::PrintToString(dims) << " perm " << ::testing::PrintToString(perm);
  }
  // A large transpose exercises the threaded path.
  Tensor x = random_bytes(DType::kF32, {8, 64, 96}, rng);
  Tensor expect = zeros_like_spec(DType::kF32, {96, 8, 64});
  for_each_index({96, 8, 64}, [&](const std::vector<int64_t>& o, int64_t flat) {
    copy_elem(x, flat_index({8, 64, 96}, {o[1], o[2], o[0]}), expect, flat);
  });
  graph::Attributes at;
  at.set("perm", std::vector<int64_t>{2, 0, 1});
  test::KernelRun r =
      run_kernel(OpType::kTranspose, at, {x}, {spec(DType::kF32, {96, 8, 64})}, 21, 4);
  ASSERT_TRUE(r.status().is_ok());
  EXPECT_BYTES_EQ(expect, r.outputs[0]);
  at.set("perm", std::vector<int64_t>{0, 0, 1});
  r = run_kernel(OpType::kTranspose, at, {x}, {spec(DType::kF32, {8, 8, 64})});
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidModel);
}

TEST(MovementDepthToSpace, DcrAndCrd) {
  uint32_t seed;
  std::mt19937 rng = make_rng(&seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (const char* mode : {"DCR", "CRD"}) {
    for (int64_t b : {1, 2, 3}) {
      for (DType dt : {DType::kF32, DType::kF16, DType::kU8, DType::kI64}) {
        const int64_t n = 2, cc = 3, h = 2, w = 3, c = cc * b * b;
        Tensor x = random_bytes(dt, {n, c, h, w}, rng);
        Tensor expect = zeros_like_spec(dt, {n, cc, h * b, w * b});
        for_each_index(expect.dims, [&](const std::vector<int64_t>& o, int64_t flat) {
          const int64_t i = o[2] % b, j = o[3] % b;
          const int64_t ch =
              std::string(mode) == "DCR" ? (i * b + j) * cc + o[1] : o[1] * b * b + i * b + j;
          copy_elem(x, flat_index(x.dims, {o[0], ch, o[2] / b, o[3] / b}), expect, flat);
        });
        graph::Attributes at;
        at.set("blocksize", b);
        at.set("mode", std::string(mode));
        test::KernelRun r = run_kernel(OpType::kDepthToSpace, at, {x}, {spec(dt, expect.dims)});
        ASSERT_TRUE(r.status().is_ok()) << r.status().to_string();
        EXPECT_BYTES_EQ(expect, r.outputs[0]) << mode << " b=" << b;
      }
    }
  }
}

// ---- Concat and Split ------------------------------------------------------------------------

TEST(MovementConcatSplit, RoundTrip) {
  uint32_t seed;
  std::mt19937 rng = make_rng(&seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (int trial = 0; trial < 40; ++trial) {
    const DType dt = kByteDtypes[static_cast<size_t>(trial) % kByteDtypes.size()];
    const int rank = 1 + trial % 4;
    std::vector<int64_t> base = random_dims(rng, rank, 5);
    const int64_t axis = std::uniform_int_distribution<int64_t>(-rank, rank - 1)(rng);
    const size_t ax = static_cast<size_t>(axis < 0 ? axis + rank : axis);
    const int parts = 1 + trial % 4;
    // Split's sizes: a constant, a run-time input, or absent (opset 13: equal parts).
    const int variant = trial % 3;
    const int64_t equal_size = std::uniform_int_distribution<int64_t>(0, 4)(rng);
    std::vector<Tensor> ins;
    std::vector<int64_t> sizes;
    for (int p = 0; p < parts; ++p) {
      std::vector<int64_t> d = base;
      // Empty parts included.
      d[ax] = variant == 2 ? equal_size : std::uniform_int_distribution<int64_t>(0, 4)(rng);
      sizes.push_back(d[ax]);
      ins.push_back(random_bytes(dt, d, rng));
    }
    std::vector<int64_t> odims = base;
    odims[ax] = std::accumulate(sizes.begin(), sizes.end(), int64_t{0});
    Tensor expect = zeros_like_spec(dt, odims);
    for_each_index(odims, [&](const std::vector<int64_t>& o, int64_t flat) {
      int64_t k = o[ax];
      size_t p = 0;
      while (k >= sizes[p]) k -= sizes[p++];
      std::vector<int64_t> i = o;
      i[ax] = k;
      copy_elem(ins[p], flat_index(ins[p].dims, i), expect, flat);
    });
    graph::Attributes at;
    at.set("axis", axis);
    test::KernelRun r = run_kernel(OpType::kConcat, at, ins, {spec(dt, odims)}, 13, 1 + trial % 2);
    ASSERT_TRUE(r.status().is_ok()) << r.status().to_string();
    EXPECT_BYTES_EQ(expect, r.outputs[0]);

    // Split it back.
    std::vector<Tensor> outs;
    for (const Tensor& t : ins) outs.push_back(spec(dt, t.dims));
    std::vector<Tensor> split_in = {expect};
    if (variant < 2) split_in.push_back(i64s(sizes, variant == 0));
    test::KernelRun s = run_kernel(OpType::kSplit, at, split_in, outs, variant < 2 ? 18 : 13);
    ASSERT_TRUE(s.status().is_ok()) << s.status().to_string();
    for (int p = 0; p < parts; ++p)
      EXPECT_BYTES_EQ(ins[static_cast<size_t>(p)], s.outputs[static_cast<size_t>(p)]);
  }
}

TEST(MovementConcatSplit, SplitUnusedOutputAndMismatch) {
  uint32_t seed;
  std::mt19937 rng = make_rng(&seed);
  Tensor x = random_bytes(DType::kF32, {7, 2}, rng);
  graph::Attributes at;
  at.set("num_outputs", int64_t{3});
  // Opset 18 equal split of 7 into ceil-sized chunks 3, 3, 1; the middle output unused.
  test::KernelRun r =
      run_kernel(OpType::kSplit, at, {x},
                 {spec(DType::kF32, {3, 2}), absent(), spec(DType::kF32, {1, 2})}, 18);
  ASSERT_TRUE(r.status().is_ok()) << r.status().to_string();
  EXPECT_TRUE(std::equal(r.outputs[0].bytes.begin(), r.outputs[0].bytes.end(), x.bytes.begin()));
  EXPECT_TRUE(std::equal(r.outputs[2].bytes.begin(), r.outputs[2].bytes.end(),
                         x.bytes.begin() + 6 * 2 * 4));
  r = run_kernel(OpType::kSplit, {}, {x, i64s({3, 3}, true)},
                 {spec(DType::kF32, {3, 2}), spec(DType::kF32, {4, 2})});
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidModel);
}

// ---- Slice and Gather -------------------------------------------------------------------------

// ONNX Slice semantics, one axis: the selected indices. Unlike Python slicing, a negative
// step clamps start into [0, d-1] (so x[-4::-2] of a length-1 axis takes element 0).
std::vector<int64_t> slice_indices(int64_t d, int64_t start, int64_t end, int64_t step) {
  const bool neg = step < 0;
  auto fix = [d](int64_t v) { return v < 0 ? (v < -d ? -d - 1 : v + d) : v; };
  std::vector<int64_t> out;
  if (d == 0) return out;
  const int64_t s =
      neg ? std::clamp<int64_t>(fix(start), 0, d - 1) : std::clamp<int64_t>(fix(start), 0, d);
  const int64_t e =
      neg ? std::clamp<int64_t>(fix(end), -1, d - 1) : std::clamp<int64_t>(fix(end), 0, d);
  if (!neg)
    for (int64_t i = s; i < e; i += step) out.push_back(i);
  else
    for (int64_t i = s; i > e; i += step) out.push_back(i);
  return out;
}

TEST(MovementSlice, RandomSlices) {
  uint32_t seed;
  std::mt19937 rng = make_rng(&seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (int trial = 0; trial < 80; ++trial) {
    const DType dt = kByteDtypes[static_cast<size_t>(trial) % kByteDtypes.size()];
    const int rank = 1 + trial % 4;
    std::vector<int64_t> dims = random_dims(rng, rank, 7);
    Tensor x = random_bytes(dt, dims, rng);
    std::vector<int64_t> axes(static_cast<size_t>(rank));
    std::iota(axes.begin(), axes.end(), 0);
    std::shuffle(axes.begin(), axes.end(), rng);
    axes.resize(static_cast<size_t>(std::uniform_int_distribution<int>(1, rank)(rng)));
    std::vector<int64_t> starts, ends, steps, axes_arg;
    std::vector<std::vector<int64_t>> sel(static_cast<size_t>(rank));
    for (int a = 0; a < rank; ++a) {
      sel[static_cast<size_t>(a)].resize(static_cast<size_t>(dims[static_cast<size_t>(a)]));
      std::iota(sel[static_cast<size_t>(a)].begin(), sel[static_cast<size_t>(a)].end(), 0);
    }
    std::uniform_int_distribution<int64_t> pos(-10, 10);
    for (int64_t a : axes) {
      int64_t step = std::uniform_int_distribution<int64_t>(-3, 3)(rng);
      if (step == 0) step = 1;
      int64_t start = pos(rng), end = pos(rng);
      if (trial % 5 == 0) end = step > 0 ? INT64_MAX : INT64_MIN;  // exporters' sentinels
      starts.push_back(start);
      ends.push_back(end);
      steps.push_back(step);
      axes_arg.push_back(trial % 2 ? a - rank : a);
      sel[static_cast<size_t>(a)] = slice_indices(dims[static_cast<size_t>(a)], start, end, step);
    }
    std::vector<int64_t> odims;
    for (const auto& s : sel) odims.push_back(static_cast<int64_t>(s.size()));
    Tensor expect = zeros_like_spec(dt, odims);
    for_each_index(odims, [&](const std::vector<int64_t>& o, int64_t flat) {
      std::vector<int64_t> i(static_cast<size_t>(rank));
      for (size_t a = 0; a < i.size(); ++a) i[a] = sel[a][static_cast<size_t>(o[a])];
      copy_elem(x, flat_index(dims, i), expect, flat);
    });
    const bool constant = trial % 3 != 0;
    std::vector<Tensor> ins = {x, i64s(starts, constant), i64s(ends, constant),
                               i64s(axes_arg, constant), i64s(steps, constant)};
    test::KernelRun r = run_kernel(OpType::kSlice, {}, ins, {spec(dt, odims)}, 13, 1 + trial % 2);
    ASSERT_TRUE(r.status().is_ok())
        << r.status().to_string() << " dims " << ::testing::PrintToString(dims) << " starts "
        << ::testing::PrintToString(starts) << " ends " << ::testing::PrintToString(ends)
        << " steps " << ::testing::PrintToString(steps) << " axes "
        << ::testing::PrintToString(axes_arg);
    EXPECT_BYTES_EQ(expect, r.outputs[0])
        << "dims " << ::testing::PrintToString(dims) << " starts "
        << ::testing::PrintToString(starts) << " ends " << ::testing::PrintToString(ends)
        << " steps " << ::testing::PrintToString(steps) << " axes "
        << ::testing::PrintToString(axes_arg);
  }
}

// Short contiguous rows are copied in runs along the next axis out (copy_rows,
// kernels/cpu/movement_common.h); with two threads a chunk starts and ends inside a run.
TEST(MovementSlice, ShortRowsInRunsSplitAcrossThreads) {
  uint32_t seed;
  std::mt19937 rng = make_rng(&seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  const std::vector<int64_t> dims = {3, 20001, 4};
  for (DType dt : {DType::kF32, DType::kF16, DType::kI64, DType::kU8}) {
    Tensor x = random_bytes(dt, dims, rng);
    // Axes 0 and 1 reversed, the last axis [1, 3): 60003 rows of 2, so two threads' chunks
    // meet in the middle of a run along axis 1.
    const std::vector<int64_t> starts = {-1, -1, 1}, ends = {INT64_MIN, INT64_MIN, 3},
                               steps = {-1, -1, 1};
    std::vector<std::vector<int64_t>> sel(3);
    for (size_t a = 0; a < 3; ++a) sel[a] = slice_indices(dims[a], starts[a], ends[a], steps[a]);
    const std::vector<int64_t> odims = {3, 20001, 2};
    Tensor expect = zeros_like_spec(dt, odims);
    for_each_index(odims, [&](const std::vector<int64_t>& o, int64_t flat) {
      std::vector<int64_t> i(3);
      for (size_t a = 0; a < 3; ++a) i[a] = sel[a][static_cast<size_t>(o[a])];
      copy_elem(x, flat_index(dims, i), expect, flat);
    });
    for (int threads : {1, 2}) {
      test::KernelRun r = run_kernel(
          OpType::kSlice, {},
          {x, i64s(starts, true), i64s(ends, true), i64s({0, 1, 2}, true), i64s(steps, true)},
          {spec(dt, odims)}, 13, threads);
      ASSERT_TRUE(r.status().is_ok()) << r.status().to_string();
      EXPECT_BYTES_EQ(expect, r.outputs[0]) << dtype_name(dt) << ", " << threads << " thread(s)";
    }
  }
  // Concat and Split of many short blocks (8 + 4 bytes a row), over threads.
  Tensor a = random_bytes(DType::kF32, {70001, 2}, rng),
         b = random_bytes(DType::kF32, {70001, 1}, rng);
  Tensor expect = zeros_like_spec(DType::kF32, {70001, 3});
  for (int64_t r = 0; r < 70001; ++r) {
    copy_elem(a, 2 * r, expect, 3 * r);
    copy_elem(a, 2 * r + 1, expect, 3 * r + 1);
    copy_elem(b, r, expect, 3 * r + 2);
  }
  graph::Attributes at;
  at.set("axis", int64_t{1});
  for (int threads : {1, 2}) {
    test::KernelRun c =
        run_kernel(OpType::kConcat, at, {a, b}, {spec(DType::kF32, {70001, 3})}, 13, threads);
    ASSERT_TRUE(c.status().is_ok()) << c.status().to_string();
    EXPECT_BYTES_EQ(expect, c.outputs[0]);
    test::KernelRun s =
        run_kernel(OpType::kSplit, at, {expect, i64s({2, 1}, true)},
                   {spec(DType::kF32, {70001, 2}), spec(DType::kF32, {70001, 1})}, 18, threads);
    ASSERT_TRUE(s.status().is_ok()) << s.status().to_string();
    EXPECT_BYTES_EQ(a, s.outputs[0]);
    EXPECT_BYTES_EQ(b, s.outputs[1]);
  }
}

TEST(MovementSlice, DefaultsI32ParamsAndErrors) {
  uint32_t seed;
  std::mt19937 rng = make_rng(&seed);
  Tensor x = random_bytes(DType::kF16, {4, 5}, rng);
  Tensor starts = make_raw<int32_t>(DType::kI32, {2}, {1, -4}, true);
  Tensor ends = make_raw<int32_t>(DType::kI32, {2}, {3, 100}, true);
  test::KernelRun r =
      run_kernel(OpType::kSlice, {}, {x, starts, ends}, {spec(DType::kF16, {2, 4})});
  ASSERT_TRUE(r.status().is_ok()) << r.status().to_string();
  const auto xv = raw<uint16_t>(x), ov = raw<uint16_t>(r.outputs[0]);
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 4; ++j)
      EXPECT_EQ(ov[static_cast<size_t>(i * 4 + j)], xv[static_cast<size_t>((i + 1) * 5 + j + 1)]);
  // Run-time parameters that disagree with the static output shape: invalid_input.
  r = run_kernel(OpType::kSlice, {}, {x, i64s({0}, false), i64s({1}, false)},
                 {spec(DType::kF16, {2, 5})});
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidInput);
  // A zero step is a model error.
  r = run_kernel(OpType::kSlice, {},
                 {x, i64s({0}, true), i64s({1}, true), i64s({0}, true), i64s({0}, true)},
                 {spec(DType::kF16, {1, 5})});
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidModel);
}

TEST(MovementGather, RandomAxesAndIndices) {
  uint32_t seed;
  std::mt19937 rng = make_rng(&seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (int trial = 0; trial < 60; ++trial) {
    const DType dt = kByteDtypes[static_cast<size_t>(trial) % kByteDtypes.size()];
    const int rank = 1 + trial % 4;
    std::vector<int64_t> dims = random_dims(rng, rank, 6);
    const int64_t axis = std::uniform_int_distribution<int64_t>(-rank, rank - 1)(rng);
    const size_t ax = static_cast<size_t>(axis < 0 ? axis + rank : axis);
    const int irank = trial % 3;
    std::vector<int64_t> idims = random_dims(rng, irank, 4);
    int64_t nidx = 1;
    for (int64_t d : idims) nidx *= d;
    std::vector<int64_t> idx;
    std::uniform_int_distribution<int64_t> pick(-dims[ax], dims[ax] - 1);
    for (int64_t i = 0; i < nidx; ++i) idx.push_back(pick(rng));
    Tensor x = random_bytes(dt, dims, rng);
    Tensor ind = trial % 2 ? make_raw<int64_t>(DType::kI64, idims, idx)
                           : make_raw<int32_t>(DType::kI32, idims,
                                               std::vector<int32_t>(idx.begin(), idx.end()));
    std::vector<int64_t> odims(dims.begin(), dims.begin() + static_cast<ptrdiff_t>(ax));
    odims.insert(odims.end(), idims.begin(), idims.end());
    odims.insert(odims.end(), dims.begin() + static_cast<ptrdiff_t>(ax) + 1, dims.end());
    Tensor expect = zeros_like_spec(dt, odims);
    for_each_index(odims, [&](const std::vector<int64_t>& o, int64_t flat) {
      std::vector<int64_t> ii(o.begin() + static_cast<ptrdiff_t>(ax),
                              o.begin() + static_cast<ptrdiff_t>(ax) + irank);
      int64_t v = idx[static_cast<size_t>(flat_index(idims, ii))];
      if (v < 0) v += dims[ax];
      std::vector<int64_t> i(o.begin(), o.begin() + static_cast<ptrdiff_t>(ax));
      i.push_back(v);
      i.insert(i.end(), o.begin() + static_cast<ptrdiff_t>(ax) + irank, o.end());
      copy_elem(x, flat_index(dims, i), expect, flat);
    });
    graph::Attributes at;
    at.set("axis", axis);
    test::KernelRun r =
        run_kernel(OpType::kGather, at, {x, ind}, {spec(dt, odims)}, 13, 1 + trial % 2);
    ASSERT_TRUE(r.status().is_ok()) << r.status().to_string();
    EXPECT_BYTES_EQ(expect, r.outputs[0]);
  }
}

TEST(MovementGather, OutOfRangeIndexIsInvalidInput) {
  uint32_t seed;
  std::mt19937 rng = make_rng(&seed);
  Tensor x = random_bytes(DType::kF32, {3, 4}, rng);
  for (int64_t bad : {3, -4, 1000}) {
    Tensor ind = make_raw<int64_t>(DType::kI64, {2}, {0, bad});
    test::KernelRun r = run_kernel(OpType::kGather, {}, {x, ind}, {spec(DType::kF32, {2, 4})});
    EXPECT_EQ(r.status().code(), ErrorCode::kInvalidInput) << bad;
  }
}

// ---- Expand and Tile ---------------------------------------------------------------------------

TEST(MovementExpandTile, Random) {
  uint32_t seed;
  std::mt19937 rng = make_rng(&seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (int trial = 0; trial < 50; ++trial) {
    const DType dt = kByteDtypes[static_cast<size_t>(trial) % kByteDtypes.size()];
    const int rank = 1 + trial % 4;
    std::vector<int64_t> odims = random_dims(rng, rank, 5);
    // Expand: an input of lower or equal rank with some dims 1.
    const int in_rank = std::uniform_int_distribution<int>(0, rank)(rng);
    std::vector<int64_t> idims(odims.end() - in_rank, odims.end());
    for (int64_t& d : idims)
      if (rng() % 2) d = 1;
    Tensor x = random_bytes(dt, idims, rng);
    Tensor expect = zeros_like_spec(dt, odims);
    for_each_index(odims, [&](const std::vector<int64_t>& o, int64_t flat) {
      std::vector<int64_t> i(o.end() - in_rank, o.end());
      for (size_t a = 0; a < i.size(); ++a)
        if (idims[a] == 1) i[a] = 0;
      copy_elem(x, flat_index(idims, i), expect, flat);
    });
    test::KernelRun r =
        run_kernel(OpType::kExpand, {}, {x, i64s(odims, trial % 2 == 0)}, {spec(dt, odims)});
    ASSERT_TRUE(r.status().is_ok()) << r.status().to_string();
    EXPECT_BYTES_EQ(expect, r.outputs[0]);

    // Tile.
    std::vector<int64_t> tdims = random_dims(rng, rank, 4);
    std::vector<int64_t> reps = random_dims(rng, rank, 3);
    if (trial % 5 == 0) reps[0] = 0;
    std::vector<int64_t> tout;
    for (int a = 0; a < rank; ++a)
      tout.push_back(tdims[static_cast<size_t>(a)] * reps[static_cast<size_t>(a)]);
    Tensor t = random_bytes(dt, tdims, rng);
    Tensor texpect = zeros_like_spec(dt, tout);
    for_each_index(tout, [&](const std::vector<int64_t>& o, int64_t flat) {
      std::vector<int64_t> i = o;
      for (size_t a = 0; a < i.size(); ++a) i[a] %= tdims[a];
      copy_elem(t, flat_index(tdims, i), texpect, flat);
    });
    r = run_kernel(OpType::kTile, {}, {t, i64s(reps, trial % 2 == 1)}, {spec(dt, tout)}, 13,
                   1 + trial % 2);
    ASSERT_TRUE(r.status().is_ok()) << r.status().to_string();
    EXPECT_BYTES_EQ(texpect, r.outputs[0]);
  }
}

// ---- Pad ---------------------------------------------------------------------------------------

// Source index for numpy.pad modes, by repeated reflection / wrapping.
int64_t pad_ref_index(const std::string& mode, int64_t i, int64_t n) {
  if (i >= 0 && i < n) return i;
  if (mode == "constant") return -1;
  if (mode == "edge") return i < 0 ? 0 : n - 1;
  if (mode == "wrap") {
    while (i < 0) i += n;
    while (i >= n) i -= n;
    return i;
  }
  if (n == 1) return 0;
  while (i < 0 || i >= n) {  // reflect
    if (i < 0) i = -i;
    if (i >= n) i = 2 * (n - 1) - i;
  }
  return i;
}

TEST(MovementPad, AllModesRandom) {
  uint32_t seed;
  std::mt19937 rng = make_rng(&seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  const std::vector<std::string> modes = {"constant", "reflect", "edge", "wrap"};
  for (int trial = 0; trial < 80; ++trial) {
    const std::string mode = modes[static_cast<size_t>(trial) % modes.size()];
    const DType dt = kByteDtypes[static_cast<size_t>(trial / 4) % kByteDtypes.size()];
    const int rank = 1 + trial % 3;
    std::vector<int64_t> dims = random_dims(rng, rank, 5);
    // Axes subset (negative entries allowed) or all.
    std::vector<int64_t> axes;
    const bool use_axes = trial % 3 == 1;
    for (int a = 0; a < rank; ++a)
      if (!use_axes || rng() % 2 || a == 0) axes.push_back(a);
    std::vector<int64_t> begin(static_cast<size_t>(rank), 0), end(static_cast<size_t>(rank), 0);
    std::vector<int64_t> pads(axes.size() * 2);
    for (size_t k = 0; k < axes.size(); ++k) {
      const int64_t d = dims[static_cast<size_t>(axes[k])];
      // Negative pads crop (not below zero size); reflect/wrap pads may exceed the axis.
      std::uniform_int_distribution<int64_t> p(-(d - 1) / 2, 2 * d);
      pads[k] = p(rng);
      pads[k + axes.size()] = p(rng);
      begin[static_cast<size_t>(axes[k])] = pads[k];
      end[static_cast<size_t>(axes[k])] = pads[k + axes.size()];
    }
    std::vector<int64_t> odims;
    for (int a = 0; a < rank; ++a)
      odims.push_back(dims[static_cast<size_t>(a)] + begin[static_cast<size_t>(a)] +
                      end[static_cast<size_t>(a)]);
    Tensor x = random_bytes(dt, dims, rng);
    Tensor cval = random_bytes(dt, {}, rng);
    Tensor expect = zeros_like_spec(dt, odims);
    for_each_index(odims, [&](const std::vector<int64_t>& o, int64_t flat) {
      std::vector<int64_t> i(o.size());
      bool fill = false;
      for (size_t a = 0; a < o.size(); ++a) {
        i[a] = pad_ref_index(mode, o[a] - begin[a], dims[a]);
        fill = fill || i[a] < 0;
      }
      if (fill)
        copy_elem(cval, 0, expect, flat);
      else
        copy_elem(x, flat_index(dims, i), expect, flat);
    });
    std::vector<int64_t> axes_arg = axes;
    if (trial % 2)
      for (int64_t& a : axes_arg) a -= rank;
    const bool constant = trial % 4 != 3;
    std::vector<Tensor> ins = {x, i64s(pads, constant), mode == "constant" ? cval : absent()};
    if (use_axes) ins.push_back(i64s(axes_arg, constant));
    graph::Attributes at;
    at.set("mode", mode);
    test::KernelRun r = run_kernel(OpType::kPad, at, ins, {spec(dt, odims)}, 19, 1 + trial % 2);
    ASSERT_TRUE(r.status().is_ok()) << r.status().to_string();
    EXPECT_BYTES_EQ(expect, r.outputs[0])
        << mode << " dims " << ::testing::PrintToString(dims) << " pads "
        << ::testing::PrintToString(pads) << " axes " << ::testing::PrintToString(axes_arg);
  }
}

TEST(MovementPad, AbsentConstantValueIsZero) {
  Tensor x = make_raw<float>(DType::kF32, {2}, {1.5f, -2.0f});
  test::KernelRun r =
      run_kernel(OpType::kPad, {}, {x, i64s({1, 2}, true)}, {spec(DType::kF32, {5})});
  ASSERT_TRUE(r.status().is_ok()) << r.status().to_string();
  EXPECT_EQ(raw<float>(r.outputs[0]), (std::vector<float>{0.0f, 1.5f, -2.0f, 0.0f, 0.0f}));
}

// ---- Shape ops -------------------------------------------------------------------------------

TEST(MovementShapeOps, ShapeSizeConstants) {
  uint32_t seed;
  std::mt19937 rng = make_rng(&seed);
  Tensor x = random_bytes(DType::kBF16, {2, 3, 4, 5}, rng);
  test::KernelRun r = run_kernel(OpType::kShape, {}, {x}, {spec(DType::kI64, {4})});
  ASSERT_TRUE(r.status().is_ok()) << r.status().to_string();
  EXPECT_EQ(raw<int64_t>(r.outputs[0]), (std::vector<int64_t>{2, 3, 4, 5}));
  graph::Attributes at;
  at.set("start", int64_t{-3});
  at.set("end", int64_t{-1});
  r = run_kernel(OpType::kShape, at, {x}, {spec(DType::kI64, {2})}, 15);
  ASSERT_TRUE(r.status().is_ok()) << r.status().to_string();
  EXPECT_EQ(raw<int64_t>(r.outputs[0]), (std::vector<int64_t>{3, 4}));
  r = run_kernel(OpType::kSize, {}, {x}, {spec(DType::kI64, {})});
  ASSERT_TRUE(r.status().is_ok());
  EXPECT_EQ(raw<int64_t>(r.outputs[0]), (std::vector<int64_t>{120}));

  graph::Attributes cos;
  cos.set("value", graph::TensorData::from_vector<int32_t>(DType::kI32, {1}, {-7}));
  r = run_kernel(OpType::kConstantOfShape, cos, {i64s({2, 3}, false)}, {spec(DType::kI32, {2, 3})});
  ASSERT_TRUE(r.status().is_ok()) << r.status().to_string();
  EXPECT_EQ(raw<int32_t>(r.outputs[0]), std::vector<int32_t>(6, -7));
  r = run_kernel(OpType::kConstantOfShape, {}, {i64s({4}, true)}, {spec(DType::kF32, {4})});
  ASSERT_TRUE(r.status().is_ok());
  EXPECT_EQ(raw<float>(r.outputs[0]), std::vector<float>(4, 0.0f));

  graph::Attributes c;
  c.set("value", graph::TensorData::from_vector<uint16_t>(DType::kF16, {2}, {0x3C00, 0xC000}));
  r = run_kernel(OpType::kConstant, c, {}, {spec(DType::kF16, {2})});
  ASSERT_TRUE(r.status().is_ok()) << r.status().to_string();
  EXPECT_EQ(raw<uint16_t>(r.outputs[0]), (std::vector<uint16_t>{0x3C00, 0xC000}));
  graph::Attributes ci;
  ci.set("value_ints", std::vector<int64_t>{5, -6});
  r = run_kernel(OpType::kConstant, ci, {}, {spec(DType::kI64, {2})});
  ASSERT_TRUE(r.status().is_ok());
  EXPECT_EQ(raw<int64_t>(r.outputs[0]), (std::vector<int64_t>{5, -6}));
}

TEST(MovementShapeOps, Range) {
  // Integer ranges, positive and negative deltas.
  test::KernelRun r =
      run_kernel(OpType::kRange, {},
                 {make_raw<int32_t>(DType::kI32, {}, {10}), make_raw<int32_t>(DType::kI32, {}, {1}),
                  make_raw<int32_t>(DType::kI32, {}, {-3})},
                 {spec(DType::kI32, {3})});
  ASSERT_TRUE(r.status().is_ok()) << r.status().to_string();
  EXPECT_EQ(raw<int32_t>(r.outputs[0]), (std::vector<int32_t>{10, 7, 4}));
  // Floats in every storage type, computed in fp32 (f64 in f64) and rounded once.
  for (DType dt : {DType::kF32, DType::kF16, DType::kBF16, DType::kF64}) {
    const double start = 0.5, delta = 0.75;
    auto scalar = [&](double v) {
      Tensor t = zeros_like_spec(dt, {});
      switch (dt) {
        case DType::kF32:
          *reinterpret_cast<float*>(t.bytes.data()) = static_cast<float>(v);
          break;
        case DType::kF16:
          *reinterpret_cast<Half*>(t.bytes.data()) = Half(static_cast<float>(v));
          break;
        case DType::kBF16:
          *reinterpret_cast<BFloat16*>(t.bytes.data()) = BFloat16(static_cast<float>(v));
          break;
        default:
          *reinterpret_cast<double*>(t.bytes.data()) = v;
          break;
      }
      return t;
    };
    r = run_kernel(OpType::kRange, {}, {scalar(start), scalar(6.0), scalar(delta)},
                   {spec(dt, {8})});
    ASSERT_TRUE(r.status().is_ok()) << r.status().to_string();
    for (int64_t i = 0; i < 8; ++i) {
      const uint8_t* p = r.outputs[0].bytes.data();
      double v = 0;
      switch (dt) {
        case DType::kF32:
          v = reinterpret_cast<const float*>(p)[i];
          break;
        case DType::kF16:
          v = static_cast<float>(reinterpret_cast<const Half*>(p)[i]);
          break;
        case DType::kBF16:
          v = static_cast<float>(reinterpret_cast<const BFloat16*>(p)[i]);
          break;
        default:
          v = reinterpret_cast<const double*>(p)[i];
          break;
      }
      const double expect = start + static_cast<double>(i) * delta;
      EXPECT_NEAR(v, expect, (dt == DType::kBF16 ? 1e-2 : 1e-3) * std::fabs(expect)) << i;
    }
  }
}

// ---- Resize ----------------------------------------------------------------------------------

// A port of onnx/reference/ops/op_resize.py (the per-point nested algorithm).
struct RefResize {
  std::string mode = "nearest";
  std::string ctm = "half_pixel";
  std::string nearest_mode = "round_prefer_floor";
  double A = -0.75;
  bool exclude_outside = false;
  bool antialias = false;
  double extrapolation = 0.0;
};

std::vector<double> ref_coeffs(const RefResize& c, double ratio, double scale) {
  if (c.mode == "nearest") {
    if (ratio == std::floor(ratio)) return {0, 1};
    if (c.nearest_mode == "round_prefer_floor") return {double(ratio <= 0.5), double(ratio > 0.5)};
    if (c.nearest_mode == "round_prefer_ceil") return {double(ratio < 0.5), double(ratio >= 0.5)};
    if (c.nearest_mode == "floor") return {1, 0};
    return {0, 1};
  }
  if (c.mode == "linear") {
    if (!c.antialias) return {1 - ratio, ratio};
    const double s = std::min(scale, 1.0);
    const int64_t start = static_cast<int64_t>(std::floor(-1 / s) + 1);
    const int64_t footprint = 2 - 2 * start;
    std::vector<double> v;
    double sum = 0;
    for (int64_t i = start; i < start + footprint; ++i) {
      v.push_back(std::clamp(1 - std::fabs((static_cast<double>(i) - ratio) * s), 0.0, 1.0));
      sum += v.back();
    }
    for (double& x : v) x /= sum;
    return v;
  }
  const double A = c.A;
  if (!c.antialias) {
    const double r1 = ratio + 1, q = 1 - ratio, q1 = q + 1;
    return {((A * r1 - 5 * A) * r1 + 8 * A) * r1 - 4 * A,
            ((A + 2) * ratio - (A + 3)) * ratio * ratio + 1, ((A + 2) * q - (A + 3)) * q * q + 1,
            ((A * q1 - 5 * A) * q1 + 8 * A) * q1 - 4 * A};
  }
  const double s = std::min(scale, 1.0);
  auto coeff = [A](double x) {
    x = std::fabs(x);
    if (x <= 1) return (A + 2) * x * x * x - (A + 3) * x * x + 1;
    if (x < 2) return A * x * x * x - 5 * A * x * x + 8 * A * x - 4 * A;
    return 0.0;
  };
  const int64_t i_start = static_cast<int64_t>(std::floor(-2 / s) + 1);
  const int64_t i_end = 2 - i_start;
  std::vector<double> v;
  double sum = 0;
  for (int64_t i = i_start; i < i_end; ++i) {
    v.push_back(coeff(s * (static_cast<double>(i) - ratio)));
    sum += v.back();
  }
  for (double& x : v) x /= sum;
  return v;
}

// _interpolate_1d_with_x on a line of `in_len` values given by `value(i)`; only the
// neighbours' values are asked for (the reference computes them all and uses these).
double ref_interp_1d(const RefResize& c, int64_t in_len,
                     const std::function<double(int64_t)>& value, double scale, int64_t out_int,
                     double x, const double* roi) {
  const double in_w = static_cast<double>(in_len);
  const double out_w = scale * in_w;
  double x_ori = 0;
  if (c.ctm == "align_corners") {
    x_ori = out_w == 1 ? 0 : x * (in_w - 1) / (out_w - 1);
  } else if (c.ctm == "asymmetric") {
    x_ori = x / scale;
  } else if (c.ctm == "tf_crop_and_resize") {
    x_ori = out_w == 1 ? (roi[1] - roi[0]) * (in_w - 1) / 2
                       : x * (roi[1] - roi[0]) * (in_w - 1) / (out_w - 1);
    x_ori += roi[0] * (in_w - 1);
    if (x_ori < 0 || x_ori > in_w - 1) return c.extrapolation;
  } else if (c.ctm == "pytorch_half_pixel") {
    x_ori = out_w == 1 ? -0.5 : (x + 0.5) / scale - 0.5;
  } else if (c.ctm == "half_pixel") {
    x_ori = (x + 0.5) / scale - 0.5;
  } else {  // half_pixel_symmetric
    const double adjustment = static_cast<double>(out_int) / out_w;
    const double offset = in_w / 2 * (1 - adjustment);
    x_ori = offset + (x + 0.5) / scale - 0.5;
  }
  const double x_int = std::floor(x_ori);
  const double ratio = x_ori == x_int ? 1.0 : x_ori - x_int;
  std::vector<double> coeffs = ref_coeffs(c, ratio, scale);
  const int64_t n = static_cast<int64_t>(coeffs.size());
  // _get_neighbor: edge-pad by ceil(n/2), take the n nearest (ties to the smaller index).
  const int64_t pad = (n + 1) / 2;
  const int64_t len = in_len + 2 * pad;
  std::vector<int64_t> cand(static_cast<size_t>(len));
  std::iota(cand.begin(), cand.end(), 0);
  const double xp = x_ori + static_cast<double>(pad);
  std::stable_sort(cand.begin(), cand.end(), [&](int64_t a, int64_t b) {
    const double da = std::fabs(xp - static_cast<double>(a));
    const double db = std::fabs(xp - static_cast<double>(b));
    return da < db || (da == db && a < b);
  });
  cand.resize(static_cast<size_t>(n));
  std::sort(cand.begin(), cand.end());
  if (c.exclude_outside) {
    double sum = 0;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t idx = cand[static_cast<size_t>(i)] - pad;
      if (idx < 0 || idx >= in_len) coeffs[static_cast<size_t>(i)] = 0;
      sum += coeffs[static_cast<size_t>(i)];
    }
    for (double& v : coeffs) v /= sum;
  }
  double acc = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t idx = std::clamp<int64_t>(cand[static_cast<size_t>(i)] - pad, 0, in_len - 1);
    acc += coeffs[static_cast<size_t>(i)] * value(idx);
  }
  return acc;
}

// _interpolate_nd_with_x: axis 0 outermost; roi is [starts..., ends...] over all axes.
double ref_interp_nd(const RefResize& c, const double* data, const std::vector<int64_t>& dims,
                     size_t axis, const std::vector<double>& scales,
                     const std::vector<int64_t>& out, const std::vector<int64_t>& x,
                     const std::vector<double>& roi) {
  const size_t r = dims.size();
  int64_t stride = 1;
  for (size_t a = axis + 1; a < r; ++a) stride *= dims[a];
  const double roi_a[2] = {roi[axis], roi[r + axis]};
  auto value = [&](int64_t i) {
    return axis + 1 == r ? data[i]
                         : ref_interp_nd(c, data + i * stride, dims, axis + 1, scales, out, x, roi);
  };
  return ref_interp_1d(c, dims[axis], value, scales[axis], out[axis], static_cast<double>(x[axis]),
                       roi_a);
}

struct ResizeCase {
  RefResize cfg;
  std::vector<int64_t> in;
  std::vector<int64_t> axes;   // empty: all
  std::vector<double> scales;  // one of scales / sizes, per listed axis
  std::vector<int64_t> sizes;
  std::vector<double> roi;  // per listed axis: starts then ends; empty: none
  std::string policy = "stretch";
};

// The expected output dims, full-rank scales and roi of a case (reference's _interpolate_nd).
void ref_resize_params(const ResizeCase& rc, std::vector<int64_t>* out, std::vector<double>* scales,
                       std::vector<double>* roi) {
  const size_t r = rc.in.size();
  std::vector<int64_t> axes = rc.axes;
  if (axes.empty())
    for (size_t a = 0; a < r; ++a) axes.push_back(static_cast<int64_t>(a));
  *out = rc.in;
  scales->assign(r, 1.0);
  roi->assign(2 * r, 0.0);
  for (size_t a = 0; a < r; ++a) (*roi)[r + a] = 1.0;
  for (size_t i = 0; i < axes.size(); ++i) {
    const size_t a = static_cast<size_t>(axes[i]);
    if (!rc.roi.empty()) {  // the kernel gets roi as f32
      (*roi)[a] = static_cast<float>(rc.roi[i]);
      (*roi)[r + a] = static_cast<float>(rc.roi[axes.size() + i]);
    }
    if (!rc.scales.empty()) {
      (*scales)[a] = static_cast<float>(rc.scales[i]);
      (*out)[a] = static_cast<int64_t>(
          std::floor(static_cast<float>(rc.in[a]) * static_cast<float>(rc.scales[i])));
    } else {
      (*scales)[a] = static_cast<double>(rc.sizes[i]) / static_cast<double>(rc.in[a]);
      (*out)[a] = rc.sizes[i];
    }
  }
  if (rc.sizes.empty() || rc.policy == "stretch") return;
  double s = 0;
  for (size_t i = 0; i < axes.size(); ++i) {
    const double v = (*scales)[static_cast<size_t>(axes[i])];
    if (i == 0 || (rc.policy == "not_larger" ? v < s : v > s)) s = v;
  }
  for (int64_t a : axes) {
    (*scales)[static_cast<size_t>(a)] = s;
    (*out)[static_cast<size_t>(a)] =
        static_cast<int64_t>(s * static_cast<double>(rc.in[static_cast<size_t>(a)]) + 0.5);
  }
}

double load_f(DType dt, const uint8_t* p, size_t i) {
  switch (dt) {
    case DType::kF32:
      return reinterpret_cast<const float*>(p)[i];
    case DType::kF16:
      return static_cast<float>(reinterpret_cast<const Half*>(p)[i]);
    case DType::kBF16:
      return static_cast<float>(reinterpret_cast<const BFloat16*>(p)[i]);
    case DType::kF64:
      return reinterpret_cast<const double*>(p)[i];
    case DType::kU8:
      return p[i];
    default:
      return NAN;
  }
}

// Runs one case on the kernel and compares with the reference; returns a failure message.
std::string check_resize(const ResizeCase& rc, DType dt, bool constant_params, std::mt19937& rng,
                         int threads) {
  std::vector<int64_t> out;
  std::vector<double> scales, roi;
  ref_resize_params(rc, &out, &scales, &roi);
  Tensor x = zeros_like_spec(dt, rc.in);
  std::uniform_real_distribution<double> val(-2.0, 2.0);
  std::uniform_int_distribution<int> byte(1, 255);
  std::vector<double> xv(static_cast<size_t>(x.numel()));
  for (size_t i = 0; i < xv.size(); ++i) {
    test::store_value(dt, x.bytes.data(), i, dt == DType::kU8 ? byte(rng) : val(rng));
    xv[i] = load_f(dt, x.bytes.data(), i);  // the rounded value the kernel sees
  }
  std::vector<Tensor> ins = {x};
  ins.push_back(rc.roi.empty() ? absent()
                               : make_raw<float>(DType::kF32, {static_cast<int64_t>(rc.roi.size())},
                                                 std::vector<float>(rc.roi.begin(), rc.roi.end()),
                                                 constant_params));
  if (!rc.scales.empty()) {
    ins.push_back(make_raw<float>(DType::kF32, {static_cast<int64_t>(rc.scales.size())},
                                  std::vector<float>(rc.scales.begin(), rc.scales.end()),
                                  constant_params));
  } else {
    ins.push_back(absent());
    ins.push_back(i64s(rc.sizes, constant_params));
  }
  graph::Attributes at;
  at.set("mode", rc.cfg.mode);
  at.set("coordinate_transformation_mode", rc.cfg.ctm);
  at.set("nearest_mode", rc.cfg.nearest_mode);
  at.set("cubic_coeff_a", static_cast<float>(rc.cfg.A));
  at.set("exclude_outside", int64_t{rc.cfg.exclude_outside});
  at.set("antialias", int64_t{rc.cfg.antialias});
  at.set("extrapolation_value", static_cast<float>(rc.cfg.extrapolation));
  at.set("keep_aspect_ratio_policy", rc.policy);
  if (!rc.axes.empty()) at.set("axes", rc.axes);
  test::KernelRun r = run_kernel(OpType::kResize, at, ins, {spec(dt, out)}, 19, threads);
  if (!r.status().is_ok()) return r.status().to_string();
  const double tol = dt == DType::kF32    ? 1e-5
                     : dt == DType::kF16  ? 1e-3
                     : dt == DType::kBF16 ? 1e-2
                                          : 1e-9;
  std::string why;
  for_each_index(out, [&](const std::vector<int64_t>& o, int64_t flat) {
    if (!why.empty()) return;
    const double e = ref_interp_nd(rc.cfg, xv.data(), rc.in, 0, scales, out, o, roi);
    const double g = load_f(dt, r.outputs[0].bytes.data(), static_cast<size_t>(flat));
    const double expect = dt == DType::kU8 ? static_cast<double>(static_cast<uint8_t>(e)) : e;
    if (!(std::fabs(g - expect) <= tol + tol * std::fabs(expect))) {
      std::ostringstream os;
      os << "element " << flat << " " << ::testing::PrintToString(o) << ": got " << g
         << ", expected " << expect;
      why = os.str();
    }
  });
  return why;
}

std::string describe(const ResizeCase& rc) {
  std::ostringstream os;
  os << rc.cfg.mode << "/" << rc.cfg.ctm << "/" << rc.cfg.nearest_mode << " A=" << rc.cfg.A
     << " excl=" << rc.cfg.exclude_outside << " aa=" << rc.cfg.antialias
     << " in=" << ::testing::PrintToString(rc.in) << " axes=" << ::testing::PrintToString(rc.axes)
     << " scales=" << ::testing::PrintToString(rc.scales)
     << " sizes=" << ::testing::PrintToString(rc.sizes)
     << " roi=" << ::testing::PrintToString(rc.roi) << " policy=" << rc.policy;
  return os.str();
}

TEST(MovementResize, AgainstReferenceAllModes) {
  uint32_t seed;
  std::mt19937 rng = make_rng(&seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  const std::vector<std::string> ctms = {"half_pixel",         "half_pixel_symmetric",
                                         "pytorch_half_pixel", "align_corners",
                                         "asymmetric",         "tf_crop_and_resize"};
  const std::vector<std::string> nearest_modes = {"round_prefer_floor", "round_prefer_ceil",
                                                  "floor", "ceil"};
  std::uniform_real_distribution<double> scale_d(0.3, 2.6);
  int checked = 0;
  for (int trial = 0; trial < 240; ++trial) {
    ResizeCase rc;
    rc.cfg.mode = trial % 3 == 0 ? "nearest" : trial % 3 == 1 ? "linear" : "cubic";
    rc.cfg.ctm = ctms[static_cast<size_t>(trial / 3) % ctms.size()];
    rc.cfg.nearest_mode = nearest_modes[static_cast<size_t>(trial / 18) % nearest_modes.size()];
    rc.cfg.A = trial % 4 == 0 ? -0.5 : -0.75;
    rc.cfg.exclude_outside = rc.cfg.mode != "nearest" && trial % 5 == 0;
    rc.cfg.antialias = rc.cfg.mode != "nearest" && trial % 4 == 1;
    rc.cfg.extrapolation = trial % 2 ? 0.0 : 7.25;
    const int rank = 2 + trial % 3;
    rc.in = random_dims(rng, rank, 6);
    // Resize the last one or two axes, sometimes through the axes attribute.
    std::vector<int64_t> axes = {rank - 1};
    if (trial % 2) axes.insert(axes.begin(), rank - 2);
    if (trial % 7 == 3) std::reverse(axes.begin(), axes.end());
    const bool use_axes = trial % 3 != 2;
    std::vector<int64_t> listed = axes;
    if (!use_axes) {
      listed.clear();
      for (int a = 0; a < rank; ++a) listed.push_back(a);
    }
    for (int64_t a : listed) {
      const bool resized = std::find(axes.begin(), axes.end(), a) != axes.end();
      const double s = resized ? scale_d(rng) : 1.0;
      if (trial % 2) {
        rc.scales.push_back(s);
      } else {
        rc.sizes.push_back(std::max<int64_t>(
            1, static_cast<int64_t>(
                   std::lround(s * static_cast<double>(rc.in[static_cast<size_t>(a)])))));
      }
      if (rc.cfg.ctm == "tf_crop_and_resize") {
        std::uniform_real_distribution<double> rs(-0.3, 0.6), re(0.4, 1.3);
        rc.roi.push_back(resized ? rs(rng) : 0.0);
      }
    }
    if (rc.cfg.ctm == "tf_crop_and_resize") {
      const size_t n = rc.roi.size();
      for (size_t i = 0; i < n; ++i) {
        const bool resized = std::find(axes.begin(), axes.end(), listed[i]) != axes.end();
        rc.roi.push_back(resized ? std::uniform_real_distribution<double>(0.4, 1.3)(rng) : 1.0);
      }
    }
    if (use_axes) rc.axes = listed;
    if (!rc.sizes.empty() && trial % 8 == 4 && rc.cfg.ctm != "tf_crop_and_resize")
      rc.policy = trial % 16 == 4 ? "not_larger" : "not_smaller";
    std::vector<int64_t> out;
    std::vector<double> sc, roi;
    ref_resize_params(rc, &out, &sc, &roi);
    bool empty = false;
    for (int64_t d : out) empty = empty || d == 0;
    if (empty) continue;
    for (DType dt : {DType::kF32, DType::kF16, DType::kBF16, DType::kF64}) {
      const bool constant = (trial + static_cast<int>(dt)) % 2 == 0;
      const std::string why = check_resize(rc, dt, constant, rng, 1 + trial % 3);
      EXPECT_TRUE(why.empty()) << describe(rc) << " dtype " << dtype_name(dt)
                               << (constant ? " const" : " runtime") << ": " << why;
      ++checked;
    }
  }
  EXPECT_GT(checked, 400);
}

TEST(MovementResize, NearestOnIntegersAndLargeThreaded) {
  uint32_t seed;
  std::mt19937 rng = make_rng(&seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  ResizeCase rc;
  rc.in = {1, 2, 5, 7};
  rc.scales = {1.0, 1.0, 2.0, 1.5};
  EXPECT_EQ(check_resize(rc, DType::kU8, true, rng, 1), "");
  // Linear on integers is not implemented: a clear unsupported error.
  rc.cfg.mode = "linear";
  EXPECT_NE(check_resize(rc, DType::kU8, true, rng, 1).find("unsupported"), std::string::npos);
  // A larger bilinear 2x upsample on 4 threads.
  rc.in = {2, 8, 40, 48};
  for (DType dt : {DType::kF32, DType::kF16}) EXPECT_EQ(check_resize(rc, dt, true, rng, 4), "");
}

// Nearest upsampling by integer factors takes two shortcuts (movement_resize.cc): a row
// whose source row is the previous row's is copied, and a last axis that repeats each
// element f times skips its table. Every element size, factors 1 to 3 per axis, rows split
// across threads mid-way, and near misses that must take the table (a non-integer last
// axis, extrapolated positions).
TEST(MovementResize, NearestIntegerUpsamplingShortcuts) {
  uint32_t seed;
  std::mt19937 rng = make_rng(&seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  struct Case {
    std::vector<int64_t> in;
    std::vector<double> scales;
    const char* ctm;
    const char* nearest_mode;
  };
  const std::vector<Case> cases = {
      {{1, 3, 5, 7}, {1, 1, 2, 2}, "asymmetric", "floor"},                 // FPN / YOLO neck 2x
      {{2, 2, 4, 5}, {1, 1, 3, 3}, "asymmetric", "floor"},                 // 3x
      {{1, 4, 3, 9}, {1, 1, 2, 2}, "half_pixel", "round_prefer_floor"},    // ONNX's defaults
      {{1, 2, 6, 5}, {1, 1, 2, 1}, "asymmetric", "floor"},                 // rows only
      {{1, 2, 6, 5}, {1, 1, 1, 2}, "asymmetric", "floor"},                 // columns only
      {{2, 3, 4}, {1, 2, 2}, "asymmetric", "floor"},                       // 1-D spatial
      {{1, 2, 2, 3, 4}, {1, 1, 2, 2, 2}, "asymmetric", "floor"},           // 3-D spatial
      {{1, 2, 4, 6}, {1, 1, 2, 1.5}, "asymmetric", "floor"},               // last axis not integer
      {{1, 2, 4, 6}, {1, 1, 2, 2}, "align_corners", "round_prefer_ceil"},  // not j / f
      // A conv layout's physical dims: 8-channel blocks [N, C / 8, H, W, 8] (f32: 32-byte
      // elements once the lane axis folds in, f16: 16) and channels-last [N, H, W, C].
      {{1, 2, 3, 4, 8}, {1, 1, 2, 2, 1}, "asymmetric", "floor"},
      {{1, 3, 4, 5}, {1, 2, 2, 1}, "half_pixel", "round_prefer_floor"},
  };
  for (const Case& c : cases) {
    for (DType dt : {DType::kF32, DType::kF16, DType::kU8, DType::kF64}) {
      for (int threads : {1, 3}) {
        ResizeCase rc;
        rc.in = c.in;
        rc.scales = c.scales;
        rc.cfg.ctm = c.ctm;
        rc.cfg.nearest_mode = c.nearest_mode;
        EXPECT_EQ(check_resize(rc, dt, (threads + static_cast<int>(dt)) % 2 == 0, rng, threads), "")
            << describe(rc) << " dtype " << dtype_name(dt) << " threads " << threads;
      }
    }
  }
  // Extrapolated rows and columns (tf_crop_and_resize outside the roi) between copied rows.
  ResizeCase rc;
  rc.in = {1, 2, 4, 4};
  rc.scales = {1, 1, 2, 2};
  rc.cfg.ctm = "tf_crop_and_resize";
  rc.cfg.extrapolation = 7.25;
  rc.roi = {0, 0, -0.25, -0.25, 1, 1, 1.25, 1.25};
  EXPECT_EQ(check_resize(rc, DType::kF32, true, rng, 2), "") << describe(rc);
  // A large map on two threads: chunks begin mid-way through a pair of copied rows.
  rc = ResizeCase{};
  rc.in = {1, 24, 37, 41};
  rc.scales = {1, 1, 2, 2};
  rc.cfg.ctm = "asymmetric";
  rc.cfg.nearest_mode = "floor";
  EXPECT_EQ(check_resize(rc, DType::kF32, true, rng, 2), "") << describe(rc);
}

}  // namespace
}  // namespace amp
