// This wave's CPU kernels on what node tests do not cover: indices out of range fed at run
// time are invalid_input errors naming the index (never a read outside the tensor),
// duplicate scatter indices reduce in order, data-dependent kernels refuse to run without the
// size channel (never a silently padded output), and an Einsum too large for its loop is
// refused at prepare.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/test_util/kernel_harness.h"

namespace amp {
namespace {

using graph::OpType;
using test::host_tensor;
using test::output_spec;

bool has(const Status& s, const std::string& needle) {
  return s.message().find(needle) != std::string::npos;
}

TEST(IndexingKernels, RunTimeIndicesOutOfRangeAreInvalidInput) {
  const auto x = host_tensor(DType::kF32, {2, 3}, {1, 2, 3, 4, 5, 6});
  test::KernelRun r = test::run_kernel({.op = OpType::kGatherElements},
                                       {x, host_tensor(DType::kI64, {2, 1}, {0, 7})},
                                       {output_spec(DType::kF32, {2, 1})});
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidInput) << r.status().to_string();
  EXPECT_TRUE(has(r.status(), "index 7")) << r.status().to_string();

  r = test::run_kernel(
      {.op = OpType::kScatterND},
      {x, host_tensor(DType::kI64, {1, 2}, {1, -4}), host_tensor(DType::kF32, {1}, {9})},
      {output_spec(DType::kF32, {2, 3})});
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidInput) << r.status().to_string();
  EXPECT_TRUE(has(r.status(), "index -4")) << r.status().to_string();

  // The message names the tuple entry out of range and that axis's size.
  r = test::run_kernel({.op = OpType::kGatherND}, {x, host_tensor(DType::kI64, {1, 2}, {1, 5})},
                       {output_spec(DType::kF32, {1})});
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidInput) << r.status().to_string();
  EXPECT_TRUE(has(r.status(), "index 5 is out of range for an axis of size 3"))
      << r.status().to_string();

  r = test::run_kernel({.op = OpType::kReverseSequence},
                       {x, host_tensor(DType::kI64, {3}, {1, 2, 5})},
                       {output_spec(DType::kF32, {2, 3})});
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidInput) << r.status().to_string();
  EXPECT_TRUE(has(r.status(), "sequence_lens[2] is 5")) << r.status().to_string();

  r = test::run_kernel({.op = OpType::kCumSum}, {x, host_tensor(DType::kI64, {}, {2})},
                       {output_spec(DType::kF32, {2, 3})});
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidInput) << r.status().to_string();
}

TEST(IndexingKernels, DuplicateScatterIndicesReduceInOrder) {
  graph::Attributes add;
  add.set("reduction", std::string("add"));
  test::KernelRun r = test::run_kernel(
      {.op = OpType::kScatterElements, .attrs = add},
      {host_tensor(DType::kF32, {4}, {1, 1, 1, 1}), host_tensor(DType::kI64, {3}, {2, 2, -2}),
       host_tensor(DType::kF32, {3}, {10, 20, 30})},
      {output_spec(DType::kF32, {4})});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(test::tensor_values(r.outputs[0]), (std::vector<double>{1, 1, 61, 1}));
  graph::Attributes none;
  r = test::run_kernel(
      {.op = OpType::kScatterND, .attrs = none},
      {host_tensor(DType::kF32, {4}, {1, 1, 1, 1}), host_tensor(DType::kI64, {2, 1}, {3, 3}),
       host_tensor(DType::kF32, {2}, {5, 6})},
      {output_spec(DType::kF32, {4})});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(test::tensor_values(r.outputs[0]), (std::vector<double>{1, 1, 1, 6}));
}

TEST(IndexingKernels, DataDependentKernelsNeedTheSizeChannel) {
  // The harness runs kernels without KernelArgs::dynamic_size, as a runner that did not
  // plan the output's real size would.
  test::KernelRun r =
      test::run_kernel({.op = OpType::kNonZero}, {host_tensor(DType::kF32, {4}, {0, 1, 0, 2})},
                       {output_spec(DType::kI64, {1, 4})});
  EXPECT_EQ(r.status().code(), ErrorCode::kInternal) << r.status().to_string();
  EXPECT_TRUE(has(r.status(), "dynamic_size")) << r.status().to_string();
}

TEST(IndexingKernels, EinsumTooLargeForTheLoopIsRefused) {
  // Three vectors of 2^13 elements contracted to a scalar: 2^39 products, over the 2^36
  // limit, in 96 KiB of inputs.
  graph::Attributes eq;
  eq.set("equation", std::string("i,j,k->"));
  const std::vector<double> ones(8192, 1.0);
  const auto v = host_tensor(DType::kF32, {8192}, ones);
  test::KernelRun r = test::run_kernel({.op = OpType::kEinsum, .attrs = eq}, {v, v, v},
                                       {output_spec(DType::kF32, {})});
  EXPECT_EQ(r.status().code(), ErrorCode::kUnsupported) << r.status().to_string();
  EXPECT_TRUE(has(r.status(), "2^36")) << r.status().to_string();
  eq.set("equation", std::string("i,i->"));
  r = test::run_kernel({.op = OpType::kEinsum, .attrs = eq}, {v, v},
                       {output_spec(DType::kF32, {})});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(test::tensor_values(r.outputs[0]), (std::vector<double>{8192}));
}

}  // namespace
}  // namespace amp
