// The Conv kernel's Winograd path from a plain NCHW input (kernels/cpu/dnnl_conv.cc): the
// input is reordered to the conv layout in the workspace, then F(4x4, 3x3) runs as from a
// conv-layout input. Checked against a direct convolution in double precision, with the
// tolerance of winograd_conv_test.cc, and that the kernel says which path it took.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "kernels/cpu/gemm_strip_avx2.h"
#include "tests/test_util/graph_runner.h"
#include "tests/test_util/kernel_harness.h"

namespace amp::test {
namespace {

TEST(ConvPlainWinograd, PlainInputReordersThenRunsWinograd) {
  if (!kernels::cpu::cpu_has_avx2_fma()) GTEST_SKIP() << "this CPU has no AVX2 + FMA";
  const int64_t c = 16, m = 12, h = 14, w = 13;
  std::mt19937 rng(9);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> x(static_cast<size_t>(c * h * w)), k(static_cast<size_t>(m * c * 9)),
      b(static_cast<size_t>(m));
  for (double& v : x) v = u(rng);
  for (double& v : k) v = u(rng);
  for (double& v : b) v = u(rng);
  KernelCall call{.op = graph::OpType::kConv};
  call.attrs.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  const std::vector<HostTensor> inputs = {host_tensor(DType::kF32, {1, c, h, w}, x),
                                          host_tensor(DType::kF32, {m, c, 3, 3}, k, true),
                                          host_tensor(DType::kF32, {m}, b, true)};
  auto prepared = PreparedKernel::prepare(cpu_registry(), kernels::Backend::kCpu, call, inputs,
                                          {output_spec(DType::kF32, {1, m, h, w})});
  ASSERT_TRUE(prepared.is_ok()) << prepared.status().to_string();
  const std::string impl = prepared->kernel().implementation();
  EXPECT_NE(impl.find("Winograd"), std::string::npos) << impl;
  EXPECT_NE(impl.find("input reordered from plain"), std::string::npos) << impl;
  auto out = prepared->run(inputs, 2);
  ASSERT_TRUE(out.is_ok()) << out.status().to_string();
  const std::vector<double> y = tensor_values((*out)[0]);
  for (int64_t o = 0; o < m; ++o)
    for (int64_t i = 0; i < h; ++i)
      for (int64_t j = 0; j < w; ++j) {
        double want = b[static_cast<size_t>(o)], terms = std::abs(want);
        for (int64_t ci = 0; ci < c; ++ci)
          for (int64_t di = 0; di < 3; ++di)
            for (int64_t dj = 0; dj < 3; ++dj) {
              const int64_t yi = i - 1 + di, xj = j - 1 + dj;
              if (yi < 0 || yi >= h || xj < 0 || xj >= w) continue;
              const double p = x[static_cast<size_t>((ci * h + yi) * w + xj)] *
                               k[static_cast<size_t>(((o * c + ci) * 3 + di) * 3 + dj)];
              want += p;
              terms += std::abs(p);
            }
        const double got = y[static_cast<size_t>((o * h + i) * w + j)];
        ASSERT_LE(std::abs(got - want), 4e-5 * terms + 1e-5 * std::abs(want) + 1e-6)
            << "output " << o << "," << i << "," << j;
      }
}

}  // namespace
}  // namespace amp::test
