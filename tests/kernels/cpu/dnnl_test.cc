// Tests of the oneDNN kernel family (kernels/cpu/dnnl_*.cc: Conv, ConvTranspose, MatMul,
// Gemm, MaxPool, AveragePool) against naive references written here in double precision
// (direct convolution loops, scatter for the transposed convolution, triple loops for
// matrix products, window loops for pools), independently of the kernels' code. Kernels
// are driven one at a time by the shared harness (tests/test_util/kernel_harness.h), which
// overwrites constant inputs after prepare() (weights are packed there); the last test runs the
// ONNX node tests of these ops end to end.
//
// Inputs are random (fresh seed per test case, printed on failure) and never all zero.
// f16 / bf16 inputs are rounded to their type first and the reference uses the rounded
// values. Tolerance: |got - ref| <= rtol |ref| + 2e-5 * sum|terms| + 1e-6, where sum|terms|
// bounds what summation order can change, and rtol is the output rounding: f32 1e-5,
// f16 1e-3, bf16 1e-2. NaN never passes.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <functional>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "kernels/common/element_access.h"
#include "kernels/common/elementwise_functors.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/dnnl_common.h"
#include "kernels/cpu/gemm_strip_avx2.h"
#include "kernels/cpu/half_gemv.h"
#include "kernels/cpu/packed_gemm.h"
#include "kernels/cpu/packed_gemv.h"
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

// ---- Tensors and kernel driving -----------------------------------------------------------

struct Tensor {
  DType dtype = DType::kF32;
  std::vector<int64_t> dims;
  std::vector<double> values;  // exactly representable in dtype
  bool constant = false;
  bool present = true;

  int64_t numel() const {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return n;
  }
};

double round_to(DType dt, double v) {
  uint8_t bytes[sizeof(double)];
  test::store_value(dt, bytes, 0, v);
  return kernels::load_as_double(bytes, dt, 0);
}

class Rng {
 public:
  explicit Rng(uint32_t seed) : gen_(seed), seed_(seed) {}
  // Uniform in [lo, hi), rounded to dtype; never all zero (the first element is forced).
  Tensor tensor(DType dt, std::vector<int64_t> dims, double lo = -1.0, double hi = 1.0) {
    Tensor t;
    t.dtype = dt;
    t.dims = std::move(dims);
    std::uniform_real_distribution<double> u(lo, hi);
    t.values.resize(static_cast<size_t>(t.numel()));
    for (double& v : t.values)
      v = round_to(dt, dt == DType::kI8 || dt == DType::kU8 ? std::floor(u(gen_)) : u(gen_));
    if (!t.values.empty() && t.values[0] == 0.0) t.values[0] = round_to(dt, hi * 0.5);
    return t;
  }
  uint32_t seed() const { return seed_; }

 private:
  std::mt19937 gen_;
  uint32_t seed_;
};

// The harness (tests/test_util/kernel_harness.h) takes host bytes; these tests keep values.
using OutSpec = test::HostTensor;

std::vector<test::HostTensor> to_host(const std::vector<Tensor>& ts) {
  std::vector<test::HostTensor> out;
  for (const Tensor& t : ts)
    out.push_back(t.present ? test::host_tensor(t.dtype, t.dims, t.values, t.constant)
                            : test::absent_tensor());
  return out;
}

// The constants a kernel replaced by packed forms of its own are scribbled over after
// prepare(): run() must not read them (their pages go back to the OS).
Result<test::PreparedKernel> prepare(const graph::Node& node, const std::vector<Tensor>& inputs,
                                     const std::vector<OutSpec>& outs, int threads = 1) {
  return test::PreparedKernel::prepare(test::cpu_registry(), Backend::kCpu,
                                       {.op = node.op,
                                        .attrs = node.attrs,
                                        .op_version = node.op_version,
                                        .threads = threads,
                                        .scribble_constants = true},
                                       to_host(inputs), outs);
}

// Runs a prepared kernel once; the outputs' values.
Result<std::vector<std::vector<double>>> run_prepared(const test::PreparedKernel& p,
                                                      const std::vector<Tensor>& inputs,
                                                      int threads) {
  AMP_ASSIGN_OR_RETURN(std::vector<test::HostTensor> outs, p.run(to_host(inputs), threads));
  std::vector<std::vector<double>> res;
  for (const test::HostTensor& o : outs) res.push_back(test::tensor_values(o));
  return res;
}

Result<std::vector<std::vector<double>>> run_kernel(const graph::Node& node,
                                                    const std::vector<Tensor>& inputs,
                                                    const std::vector<OutSpec>& outs,
                                                    int threads = 1) {
  AMP_ASSIGN_OR_RETURN(test::PreparedKernel p, prepare(node, inputs, outs, threads));
  return run_prepared(p, inputs, threads);
}

double rtol_of(DType dt) {
  switch (dt) {
    case DType::kF16:
      return 1e-3;
    case DType::kBF16:
      return 1e-2;
    default:
      return 1e-5;
  }
}

// Compares against ref (and its magnitude bound `mag`, sum of |terms| per element).
void expect_close(const std::vector<double>& got, const std::vector<double>& ref,
                  const std::vector<double>& mag, DType dt, const std::string& what) {
  ASSERT_EQ(got.size(), ref.size()) << what;
  const double rtol = rtol_of(dt);
  int reported = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    const double tol = rtol * std::fabs(ref[i]) + 2e-5 * (mag.empty() ? 0.0 : mag[i]) + 1e-6;
    const bool ok = !std::isnan(got[i]) && std::fabs(got[i] - ref[i]) <= tol;
    if (!ok && reported++ < 5)
      ADD_FAILURE() << what << ": element " << i << " got " << got[i] << ", expected " << ref[i]
                    << " (tol " << tol << ")";
  }
}

float act_ref(const ew::Activation& a, double v) {
  return ew::apply_activation(a, static_cast<float>(v));
}

struct ActCase {
  const char* name;  // empty: none
  float alpha;
  float beta;
  ew::ActivationKind kind;
};

const std::vector<ActCase>& act_cases() {
  static const std::vector<ActCase> cases = {
      {"", 0, 0, ew::ActivationKind::kNone},
      {"Relu", 0, 0, ew::ActivationKind::kRelu},
      {"LeakyRelu", 0.1f, 0, ew::ActivationKind::kLeakyRelu},
      {"Clip", -0.5f, 0.75f, ew::ActivationKind::kClip},
      {"Clip", 0.5f, -0.25f, ew::ActivationKind::kClip},  // min > max: everything is max
      {"Sigmoid", 0, 0, ew::ActivationKind::kSigmoid},
      {"Tanh", 0, 0, ew::ActivationKind::kTanh},
      {"HardSigmoid", 0.3f, 0.4f, ew::ActivationKind::kHardSigmoid},
      {"HardSwish", 0, 0, ew::ActivationKind::kHardSwish},
      {"Swish", 0, 0, ew::ActivationKind::kSwish},
  };
  return cases;
}

void set_act(graph::Node& n, const ActCase& a) {
  if (!*a.name) return;
  n.attrs.set("fused_activation", std::string(a.name));
  if (a.kind == ew::ActivationKind::kLeakyRelu || a.kind == ew::ActivationKind::kClip ||
      a.kind == ew::ActivationKind::kHardSigmoid)
    n.attrs.set("fused_alpha", a.alpha);
  if (a.kind == ew::ActivationKind::kClip || a.kind == ew::ActivationKind::kHardSigmoid)
    n.attrs.set("fused_beta", a.beta);
}

ew::Activation to_act(const ActCase& a) {
  return {a.kind, a.alpha, a.beta};
}

const std::vector<DType> kFloatTypes = {DType::kF32, DType::kF16, DType::kBF16};

std::vector<int64_t> pad3(const std::vector<int64_t>& v, int64_t fill) {
  std::vector<int64_t> r(3, fill);
  for (size_t i = 0; i < v.size(); ++i) r[3 - v.size() + i] = v[i];
  return r;
}

// ---- Conv -----------------------------------------------------------------------------------

struct ConvCase {
  std::vector<int64_t> x;  // [N, C, spatial...]
  int64_t m;               // output channels
  std::vector<int64_t> k;
  int64_t group = 1;
  std::vector<int64_t> strides, dilations, pads;  // empty: default
  std::string auto_pad;                           // empty: NOTSET
  bool bias = true;
};

// Explicit begin/end pads the way ONNX defines them (independent of common/window_geometry.cc).
void conv_pads(const ConvCase& c, std::vector<int64_t>& pb, std::vector<int64_t>& pe,
               std::vector<int64_t>& out) {
  const size_t sp = c.k.size();
  pb.assign(sp, 0);
  pe.assign(sp, 0);
  out.assign(sp, 0);
  for (size_t i = 0; i < sp; ++i) {
    const int64_t s = c.strides.empty() ? 1 : c.strides[i];
    const int64_t d = c.dilations.empty() ? 1 : c.dilations[i];
    const int64_t e = (c.k[i] - 1) * d + 1, in = c.x[2 + i];
    if (c.auto_pad == "SAME_UPPER" || c.auto_pad == "SAME_LOWER") {
      out[i] = (in + s - 1) / s;
      const int64_t total = std::max<int64_t>(0, (out[i] - 1) * s + e - in);
      pb[i] = c.auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      pe[i] = total - pb[i];
    } else {
      if (!c.pads.empty() && c.auto_pad != "VALID") {
        pb[i] = c.pads[i];
        pe[i] = c.pads[sp + i];
      }
      out[i] = (in + pb[i] + pe[i] - e) / s + 1;
    }
  }
}

void conv_reference(const ConvCase& c, const Tensor& x, const Tensor& w, const Tensor* b,
                    const ew::Activation& act, std::vector<double>& ref, std::vector<double>& mag,
                    std::vector<int64_t>& y_dims) {
  std::vector<int64_t> pb, pe, out;
  conv_pads(c, pb, pe, out);
  const size_t sp = c.k.size();
  const auto in3 = pad3(std::vector<int64_t>(c.x.begin() + 2, c.x.end()), 1);
  const auto out3 = pad3(out, 1), k3 = pad3(c.k, 1), pb3 = pad3(pb, 0);
  const auto s3 = pad3(c.strides.empty() ? std::vector<int64_t>(sp, 1) : c.strides, 1);
  const auto d3 = pad3(c.dilations.empty() ? std::vector<int64_t>(sp, 1) : c.dilations, 1);
  const int64_t n = c.x[0], cin = c.x[1], cg = cin / c.group, mg = c.m / c.group;
  y_dims = {n, c.m};
  y_dims.insert(y_dims.end(), out.begin(), out.end());
  ref.clear();
  mag.clear();
  for (int64_t in_ = 0; in_ < n; ++in_)
    for (int64_t m = 0; m < c.m; ++m)
      for (int64_t oz = 0; oz < out3[0]; ++oz)
        for (int64_t oy = 0; oy < out3[1]; ++oy)
          for (int64_t ox = 0; ox < out3[2]; ++ox) {
            double acc = b ? b->values[m] : 0.0, a = b ? std::fabs(b->values[m]) : 0.0;
            const int64_t g = m / mg;
            for (int64_t ic = 0; ic < cg; ++ic) {
              const int64_t ch = g * cg + ic;
              for (int64_t kz = 0; kz < k3[0]; ++kz)
                for (int64_t ky = 0; ky < k3[1]; ++ky)
                  for (int64_t kx = 0; kx < k3[2]; ++kx) {
                    const int64_t iz = oz * s3[0] - pb3[0] + kz * d3[0];
                    const int64_t iy = oy * s3[1] - pb3[1] + ky * d3[1];
                    const int64_t ix = ox * s3[2] - pb3[2] + kx * d3[2];
                    if (iz < 0 || iz >= in3[0] || iy < 0 || iy >= in3[1] || ix < 0 || ix >= in3[2])
                      continue;
                    const double xv =
                        x.values[(((in_ * cin + ch) * in3[0] + iz) * in3[1] + iy) * in3[2] + ix];
                    const double wv =
                        w.values[(((m * cg + ic) * k3[0] + kz) * k3[1] + ky) * k3[2] + kx];
                    acc += xv * wv;
                    a += std::fabs(xv * wv);
                  }
            }
            ref.push_back(act_ref(act, acc));
            mag.push_back(a);
          }
}

graph::Node conv_node(const ConvCase& c, OpType op = OpType::kConv) {
  graph::Node n;
  n.name = "node";
  n.op = op;
  if (c.group != 1) n.attrs.set("group", c.group);
  if (!c.strides.empty()) n.attrs.set("strides", c.strides);
  if (!c.dilations.empty()) n.attrs.set("dilations", c.dilations);
  if (!c.pads.empty()) n.attrs.set("pads", c.pads);
  if (!c.auto_pad.empty()) n.attrs.set("auto_pad", c.auto_pad);
  return n;
}

void check_conv(const ConvCase& c, DType dt, const ActCase& a, bool const_w, int threads,
                uint32_t seed) {
  Rng rng(seed);
  std::vector<int64_t> wd = {c.m, c.x[1] / c.group};
  wd.insert(wd.end(), c.k.begin(), c.k.end());
  Tensor x = rng.tensor(dt, c.x), w = rng.tensor(dt, wd, -0.5, 0.5);
  Tensor b = rng.tensor(dt, {c.m});
  w.constant = const_w;
  b.constant = const_w;
  std::vector<double> ref, mag;
  std::vector<int64_t> y_dims;
  conv_reference(c, x, w, c.bias ? &b : nullptr, to_act(a), ref, mag, y_dims);
  graph::Node node = conv_node(c);
  set_act(node, a);
  std::vector<Tensor> ins = {x, w};
  if (c.bias) ins.push_back(b);
  auto got = run_kernel(node, ins, {{dt, y_dims}}, threads);
  std::ostringstream what;
  what << "Conv x=" << ::testing::PrintToString(c.x) << " m=" << c.m
       << " k=" << ::testing::PrintToString(c.k) << " group=" << c.group
       << " auto_pad=" << c.auto_pad << " dtype=" << dtype_name(dt) << " act=" << a.name
       << " const_w=" << const_w << " seed=" << seed;
  ASSERT_TRUE(got.is_ok()) << what.str() << ": " << got.status().to_string();
  expect_close((*got)[0], ref, mag, dt, what.str());
}

std::vector<ConvCase> conv_cases() {
  return {
      {{1, 3, 7}, 4, {3}},                                   // 1-D
      {{2, 4, 9}, 6, {3}, 2, {2}, {2}, {1, 2}},              // 1-D grouped
      {{1, 8, 40}, 8, {31}, 8, {1}, {}, {15, 15}},           // 1-D depthwise, k 31
      {{1, 6, 23}, 6, {5}, 6, {2}, {2}, {}, "SAME_UPPER"},   // 1-D strided dilated
      {{1, 8, 60}, 8, {11}, 8, {2}, {2}, {}, "SAME_UPPER"},  // ... 11 taps (AVX2: 11 x 1)
      {{1, 3, 6, 7}, 5, {3, 3}},                             // 2-D
      // k x 1 over a width of 1: run as 1 x k (dnnl_conv.cc), width stride and dilation idle.
      {{2, 4, 23, 1}, 6, {5, 1}},
      {{1, 6, 20, 1}, 6, {3, 1}, 6, {2, 3}, {2, 2}, {1, 0, 2, 0}},    // depthwise, padded
      {{1, 8, 30, 1}, 8, {11, 1}, 8, {1, 1}, {}, {5, 0, 5, 0}},       // depthwise, 11 taps
      {{1, 3, 9, 1}, 4, {3, 1}, 1, {1, 1}, {}, {1, 1, 1, 1}},         // width padded: not turned
      {{2, 4, 8, 9}, 8, {3, 2}, 1, {2, 1}, {1, 2}, {1, 0, 2, 1}},     // strided dilated
      {{1, 6, 7, 7}, 6, {3, 3}, 6, {1, 1}, {}, {1, 1, 1, 1}},         // depthwise
      {{1, 8, 10, 10}, 12, {3, 3}, 4, {2, 2}, {}, {}, "SAME_UPPER"},  // grouped SAME_UPPER
      {{1, 3, 9, 8}, 4, {4, 3}, 1, {3, 2}, {}, {}, "SAME_LOWER", false},  // SAME_LOWER
      {{1, 2, 9, 9}, 3, {3, 3}, 1, {2, 2}, {}, {}, "VALID"},              // VALID
      {{1, 2, 5, 6, 7}, 4, {3, 2, 3}},                                    // 3-D
      {{2, 4, 6, 6, 5}, 4, {2, 3, 2}, 2, {2, 1, 2}, {1, 2, 1}, {1, 0, 1, 0, 1, 1}},
      {{1, 16, 14, 14}, 32, {3, 3}, 1, {1, 1}, {}, {1, 1, 1, 1}},  // blocked-friendly
      {{1, 3, 6, 8}, 4, {1, 1}, 1, {2, 3}},                        // 1x1 strided (floor)
      // Windows covering the whole input (f32 with constant weights: our own loop).
      {{2, 50, 1, 1}, 200, {1, 1}},                               // squeeze-and-excitation
      {{1, 3, 4, 5}, 7, {4, 5}},                                  // a classifier head
      {{2, 4, 1, 1, 1}, 6, {1, 1, 1}, 1, {}, {}, {}, "", false},  // 3-D, no bias
      {{1, 5, 1, 1}, 3, {1, 1}, 1, {2, 2}, {3, 3}},               // strides, dilations
      {{1, 2, 1, 1}, 3, {1, 1}, 1, {}, {}, {1, 0, 0, 0}},         // padded: not whole
  };
}

TEST(DnnlConv, MatchesDirectLoops) {
  uint32_t seed = 1000;
  for (const ConvCase& c : conv_cases())
    for (DType dt : kFloatTypes)
      for (bool const_w : {true, false}) check_conv(c, dt, act_cases()[0], const_w, 1, ++seed);
}

TEST(DnnlConv, FusedActivations) {
  uint32_t seed = 2000;
  const ConvCase c = {{1, 4, 7, 6}, 6, {3, 3}, 2, {1, 2}, {}, {1, 1, 1, 1}};
  for (const ActCase& a : act_cases())
    for (DType dt : kFloatTypes) check_conv(c, dt, a, true, 1, ++seed);
}

TEST(DnnlConv, Threads) {
  check_conv({{2, 16, 20, 20}, 24, {3, 3}, 1, {1, 1}, {}, {1, 1, 1, 1}}, DType::kF32,
             act_cases()[1], true, 2, 3001);
  check_conv({{2, 16, 20, 20}, 24, {3, 3}, 1, {1, 1}, {}, {1, 1, 1, 1}}, DType::kBF16,
             act_cases()[1], false, 2, 3002);
}

// Which convolutions the small-product loop takes (kernels/cpu/small_gemm.h: a window that
// covers the whole input), with activations and threads; the results against the direct loops.
TEST(DnnlConv, WholeWindowRunsOwnLoop) {
  auto implementation = [](const ConvCase& c, bool const_w, DType dt) {
    Rng rng(7);
    std::vector<int64_t> wd = {c.m, c.x[1] / c.group};
    wd.insert(wd.end(), c.k.begin(), c.k.end());
    Tensor x = rng.tensor(dt, c.x), w = rng.tensor(dt, wd);
    w.constant = const_w;
    std::vector<double> ref, mag;
    std::vector<int64_t> y_dims;
    conv_reference(c, x, w, nullptr, to_act(act_cases()[0]), ref, mag, y_dims);
    auto p = prepare(conv_node(c), {x, w}, {{dt, y_dims}});
    EXPECT_TRUE(p.is_ok()) << p.status().to_string();
    return p.is_ok() ? p->kernel().implementation() : std::string();
  };
  const ConvCase se = {{2, 50, 1, 1}, 200, {1, 1}};
  EXPECT_EQ(implementation(se, true, DType::kF32).rfind("own loop", 0), 0u);
  EXPECT_EQ(implementation({{1, 3, 4, 5}, 7, {4, 5}}, true, DType::kF32).rfind("own loop", 0), 0u);
  // Variable weights, low precision, a window short of the input, groups, padding: oneDNN.
  EXPECT_EQ(implementation(se, false, DType::kF32).rfind("oneDNN", 0), 0u);
  EXPECT_EQ(implementation(se, true, DType::kBF16).rfind("oneDNN", 0), 0u);
  EXPECT_EQ(implementation({{1, 3, 4, 5}, 7, {3, 5}}, true, DType::kF32).rfind("oneDNN", 0), 0u);
  EXPECT_EQ(implementation({{1, 4, 1, 1}, 4, {1, 1}, 2}, true, DType::kF32).rfind("oneDNN", 0), 0u);
  // Padding: half of this window's multiply-adds read it, which the tap sum skips
  // (tap_sum_conv.h) where oneDNN would run its im2col GEMM.
  const std::string padded =
      implementation({{1, 2, 1, 1}, 3, {1, 1}, 1, {}, {}, {1, 0, 0, 0}}, true, DType::kF32);
  EXPECT_TRUE(padded.rfind("oneDNN", 0) == 0 || padded.rfind("own tap sum", 0) == 0) << padded;
  uint32_t seed = 5000;
  for (const ActCase& a : act_cases()) check_conv(se, DType::kF32, a, true, 1, ++seed);
  // Enough output channels for two threads to split them.
  check_conv({{2, 64, 1, 1}, 1024, {1, 1}}, DType::kF32, act_cases()[1], true, 2, ++seed);
}

// 1-D convolutions go to oneDNN as 2-D ones (dnnl_conv.cc): its depthwise jit kernels take
// them, where a 1-D depthwise convolution ran on the im2col GEMM (6-14x slower at k = 31).
TEST(DnnlConv, OneDimensionalDepthwiseRunsJitKernels) {
  auto implementation = [](const ConvCase& c) {
    Rng rng(9);
    Tensor x = rng.tensor(DType::kF32, c.x), w = rng.tensor(DType::kF32, {c.m, 1, c.k[0]});
    w.constant = true;
    std::vector<double> ref, mag;
    std::vector<int64_t> y_dims;
    conv_reference(c, x, w, nullptr, to_act(act_cases()[0]), ref, mag, y_dims);
    auto p = prepare(conv_node(c), {x, w}, {{DType::kF32, y_dims}});
    EXPECT_TRUE(p.is_ok()) << p.status().to_string();
    return p.is_ok() ? p->kernel().implementation() : std::string();
  };
  if (!kernels::cpu::cpu_has_avx2_fma()) GTEST_SKIP() << "oneDNN's depthwise jit kernels need AVX2";
  const std::string k3 = implementation({{1, 64, 200}, 64, {3}, 64, {1}, {}, {1, 1}});
  EXPECT_EQ(k3.find("gemm"), std::string::npos) << k3;
  // A kernel of 31: 1 x 31 on AVX-512 (brdgmm_dw), 31 x 1 on AVX2 (jit_dw:avx2 takes no
  // wide window past 9).
  const std::string k31 = implementation({{1, 64, 200}, 64, {31}, 64, {1}, {}, {15, 15}});
  EXPECT_EQ(k31.find("gemm"), std::string::npos) << k31;
  uint32_t seed = 5100;
  for (DType dt : kFloatTypes)
    check_conv({{2, 32, 50}, 32, {31}, 32, {1}, {}, {15, 15}}, dt, act_cases()[1], true, 2, ++seed);
}

// One prepared kernel, run from several threads at once (ExecutionContexts share kernels).
TEST(DnnlConv, ConcurrentRunsOnOneKernel) {
  const ConvCase c = {{1, 8, 12, 12}, 8, {3, 3}, 1, {1, 1}, {}, {1, 1, 1, 1}};
  for (DType dt : {DType::kF32, DType::kF16}) {
    Rng rng(4000);
    Tensor w = rng.tensor(dt, {8, 8, 3, 3}, -0.5, 0.5), b = rng.tensor(dt, {8});
    w.constant = true;
    b.constant = true;
    graph::Node node = conv_node(c);
    std::vector<Tensor> xs;
    std::vector<std::vector<double>> refs, mags;
    std::vector<int64_t> y_dims;
    for (int t = 0; t < 4; ++t) {
      xs.push_back(rng.tensor(dt, c.x));
      refs.emplace_back();
      mags.emplace_back();
      conv_reference(c, xs.back(), w, &b, {}, refs.back(), mags.back(), y_dims);
    }
    Result<test::PreparedKernel> p = prepare(node, {xs[0], w, b}, {{dt, y_dims}});
    ASSERT_TRUE(p.is_ok()) << p.status().to_string();
    std::vector<std::vector<double>> got(4);
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&, t] {
        for (int rep = 0; rep < 20; ++rep) {
          auto r = run_prepared(*p, {xs[t], w, b}, 1);
          if (!r.is_ok()) {
            ++failures;
            return;
          }
          got[t] = (*r)[0];
        }
      });
    for (auto& th : threads) th.join();
    ASSERT_EQ(failures.load(), 0);
    for (int t = 0; t < 4; ++t) expect_close(got[t], refs[t], mags[t], dt, "concurrent conv");
  }
}

TEST(DnnlConv, RejectsBadAttributes) {
  Rng rng(5000);
  Tensor x = rng.tensor(DType::kF32, {1, 4, 5, 5}), w = rng.tensor(DType::kF32, {4, 2, 3, 3});
  graph::Node node;
  node.op = OpType::kConv;
  node.attrs.set("group", int64_t{3});  // does not divide 4 channels
  EXPECT_FALSE(prepare(node, {x, w}, {{DType::kF32, {1, 4, 3, 3}}}).status().is_ok());
  node.attrs.set("group", int64_t{2});
  EXPECT_TRUE(prepare(node, {x, w}, {{DType::kF32, {1, 4, 3, 3}}}).status().is_ok());
  EXPECT_FALSE(prepare(node, {x, w}, {{DType::kF32, {1, 4, 4, 4}}}).status().is_ok());  // dims
  node.attrs.set("fused_activation", std::string("Softplus"));
  const Status s = prepare(node, {x, w}, {{DType::kF32, {1, 4, 3, 3}}}).status();
  EXPECT_EQ(s.code(), ErrorCode::kUnsupported) << s.to_string();
  graph::Node bad;
  bad.op = OpType::kConv;
  bad.attrs.set("strides", std::vector<int64_t>{0, 1});
  EXPECT_FALSE(prepare(bad, {x, w}, {{DType::kF32, {1, 4, 3, 3}}}).status().is_ok());
  bad.attrs.set("strides", std::string("oops"));
  EXPECT_FALSE(prepare(bad, {x, w}, {{DType::kF32, {1, 4, 3, 3}}}).status().is_ok());
}

// ---- ConvTranspose --------------------------------------------------------------------------

struct DeconvCase {
  std::vector<int64_t> x;  // [N, C, spatial...]
  int64_t m;               // output channels
  std::vector<int64_t> k;
  int64_t group = 1;
  std::vector<int64_t> strides, dilations, pads, output_padding, output_shape;
  std::string auto_pad;
  bool bias = true;
};

// ONNX ConvTranspose: begin pads and output size (independent of dnnl_conv.cc).
void deconv_geometry(const DeconvCase& c, std::vector<int64_t>& pb, std::vector<int64_t>& out) {
  const size_t sp = c.k.size();
  pb.assign(sp, 0);
  out.assign(sp, 0);
  for (size_t i = 0; i < sp; ++i) {
    const int64_t s = c.strides.empty() ? 1 : c.strides[i];
    const int64_t d = c.dilations.empty() ? 1 : c.dilations[i];
    const int64_t op = c.output_padding.empty() ? 0 : c.output_padding[i];
    const int64_t in = c.x[2 + i];
    const int64_t natural = s * (in - 1) + op + (c.k[i] - 1) * d + 1;
    if (!c.output_shape.empty() || c.auto_pad == "SAME_UPPER" || c.auto_pad == "SAME_LOWER") {
      out[i] = c.output_shape.empty() ? in * s : c.output_shape[i];
      const int64_t total = natural - out[i];
      // Python's floor division, as the ONNX reference writes it.
      const int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);
      pb[i] = c.auto_pad == "SAME_UPPER" ? half : total - half;
    } else {
      if (!c.pads.empty() && c.auto_pad != "VALID") pb[i] = c.pads[i];
      const int64_t pe = (!c.pads.empty() && c.auto_pad != "VALID") ? c.pads[sp + i] : 0;
      out[i] = natural - pb[i] - pe;
    }
  }
}

graph::Node deconv_node(const DeconvCase& c, const ActCase& a) {
  graph::Node node;
  node.name = "node";
  node.op = OpType::kConvTranspose;
  if (c.group != 1) node.attrs.set("group", c.group);
  if (!c.strides.empty()) node.attrs.set("strides", c.strides);
  if (!c.dilations.empty()) node.attrs.set("dilations", c.dilations);
  if (!c.pads.empty()) node.attrs.set("pads", c.pads);
  if (!c.output_padding.empty()) node.attrs.set("output_padding", c.output_padding);
  if (!c.output_shape.empty()) node.attrs.set("output_shape", c.output_shape);
  if (!c.auto_pad.empty()) node.attrs.set("auto_pad", c.auto_pad);
  set_act(node, a);
  return node;
}

void check_deconv(const DeconvCase& c, DType dt, const ActCase& a, bool const_w, uint32_t seed,
                  int threads = 1) {
  Rng rng(seed);
  const size_t sp = c.k.size();
  const int64_t n = c.x[0], cin = c.x[1], cg = cin / c.group, mg = c.m / c.group;
  std::vector<int64_t> wd = {cin, mg};
  wd.insert(wd.end(), c.k.begin(), c.k.end());
  Tensor x = rng.tensor(dt, c.x), w = rng.tensor(dt, wd, -0.5, 0.5), b = rng.tensor(dt, {c.m});
  w.constant = const_w;
  b.constant = const_w;
  std::vector<int64_t> pb, out;
  deconv_geometry(c, pb, out);
  const auto in3 = pad3(std::vector<int64_t>(c.x.begin() + 2, c.x.end()), 1);
  const auto out3 = pad3(out, 1), k3 = pad3(c.k, 1), pb3 = pad3(pb, 0);
  const auto s3 = pad3(c.strides.empty() ? std::vector<int64_t>(sp, 1) : c.strides, 1);
  const auto d3 = pad3(c.dilations.empty() ? std::vector<int64_t>(sp, 1) : c.dilations, 1);
  const int64_t out_plane = out3[0] * out3[1] * out3[2];
  std::vector<double> acc(static_cast<size_t>(n * c.m * out_plane), 0.0), mag(acc.size(), 0.0);
  // Scatter every input element through the kernel.
  for (int64_t in_ = 0; in_ < n; ++in_)
    for (int64_t ch = 0; ch < cin; ++ch)
      for (int64_t iz = 0; iz < in3[0]; ++iz)
        for (int64_t iy = 0; iy < in3[1]; ++iy)
          for (int64_t ix = 0; ix < in3[2]; ++ix) {
            const double xv =
                x.values[(((in_ * cin + ch) * in3[0] + iz) * in3[1] + iy) * in3[2] + ix];
            const int64_t g = ch / cg;
            for (int64_t om = 0; om < mg; ++om)
              for (int64_t kz = 0; kz < k3[0]; ++kz)
                for (int64_t ky = 0; ky < k3[1]; ++ky)
                  for (int64_t kx = 0; kx < k3[2]; ++kx) {
                    const int64_t oz = iz * s3[0] + kz * d3[0] - pb3[0];
                    const int64_t oy = iy * s3[1] + ky * d3[1] - pb3[1];
                    const int64_t ox = ix * s3[2] + kx * d3[2] - pb3[2];
                    if (oz < 0 || oz >= out3[0] || oy < 0 || oy >= out3[1] || ox < 0 ||
                        ox >= out3[2])
                      continue;
                    const double wv =
                        w.values[(((ch * mg + om) * k3[0] + kz) * k3[1] + ky) * k3[2] + kx];
                    const size_t o = static_cast<size_t>(
                        ((in_ * c.m + g * mg + om) * out3[0] + oz) * out3[1] * out3[2] +
                        oy * out3[2] + ox);
                    acc[o] += xv * wv;
                    mag[o] += std::fabs(xv * wv);
                  }
          }
  std::vector<double> ref(acc.size());
  for (size_t o = 0; o < acc.size(); ++o) {
    const int64_t m = static_cast<int64_t>(o) / out_plane % c.m;
    const double bias = c.bias ? b.values[m] : 0.0;
    ref[o] = act_ref(to_act(a), acc[o] + bias);
    mag[o] += std::fabs(bias);
  }
  std::vector<int64_t> y_dims = {n, c.m};
  y_dims.insert(y_dims.end(), out.begin(), out.end());
  std::vector<Tensor> ins = {x, w};
  if (c.bias) ins.push_back(b);
  auto got = run_kernel(deconv_node(c, a), ins, {{dt, y_dims}}, threads);
  std::ostringstream what;
  what << "ConvTranspose x=" << ::testing::PrintToString(c.x) << " m=" << c.m
       << " k=" << ::testing::PrintToString(c.k) << " group=" << c.group
       << " out=" << ::testing::PrintToString(out) << " dtype=" << dtype_name(dt)
       << " act=" << a.name << " const_w=" << const_w << " seed=" << seed << " threads=" << threads;
  ASSERT_TRUE(got.is_ok()) << what.str() << ": " << got.status().to_string();
  expect_close((*got)[0], ref, mag, dt, what.str());
}

std::vector<DeconvCase> deconv_cases() {
  return {
      {{1, 3, 5}, 2, {3}},                                                      // 1-D
      {{1, 2, 4}, 3, {3}, 1, {2}, {}, {}, {1}},                                 // 1-D out pad
      {{1, 2, 3}, 2, {3}, 1, {3}, {}, {}, {}, {10}, "SAME_UPPER"},              // 1-D neg pad
      {{1, 4, 9}, 4, {11}, 4, {2}, {}, {1, 2}, {1}},                            // 1-D depthwise 11
      {{1, 2, 4, 5}, 3, {3, 3}},                                                // 2-D
      {{2, 4, 3, 4}, 6, {3, 2}, 2, {2, 3}, {}, {1, 0, 0, 1}},                   // grouped, pads
      {{1, 2, 3, 3}, 2, {3, 3}, 1, {3, 2}, {}, {}, {1, 1}},                     // output_padding
      {{1, 2, 3, 3}, 2, {3, 3}, 1, {3, 2}, {}, {}, {}, {10, 8}},                // output_shape
      {{1, 2, 3, 3}, 2, {3, 3}, 1, {3, 2}, {}, {}, {}, {10, 8}, "SAME_UPPER"},  // neg begin pad
      {{1, 2, 4, 4}, 3, {3, 3}, 1, {2, 2}, {}, {}, {}, {}, "SAME_UPPER"},       // SAME_UPPER
      {{1, 2, 4, 5}, 3, {3, 3}, 1, {2, 2}, {}, {}, {}, {}, "SAME_LOWER"},       // SAME_LOWER
      {{1, 2, 4, 4}, 2, {2, 2}, 1, {1, 1}, {2, 2}},                             // dilations
      {{1, 3, 3, 4, 3}, 2, {2, 3, 2}, 1, {2, 1, 2}, {}, {0, 1, 0, 1, 0, 1}},    // 3-D
      {{1, 4, 5, 5}, 4, {3, 3}, 4, {2, 2}, {}, {1, 1, 1, 1}, {1, 1}},           // depthwise
  };
}

TEST(DnnlConvTranspose, MatchesScatterLoops) {
  uint32_t seed = 6000;
  for (const DeconvCase& c : deconv_cases())
    for (DType dt : kFloatTypes)
      for (bool const_w : {true, false}) check_deconv(c, dt, act_cases()[0], const_w, ++seed);
}

TEST(DnnlConvTranspose, FusedActivations) {
  uint32_t seed = 7000;
  for (const ActCase& a : act_cases()) {
    check_deconv({{1, 4, 4, 3}, 4, {3, 3}, 2, {2, 2}, {}, {1, 0, 1, 1}, {1, 0}}, DType::kF32, a,
                 true, ++seed);
    check_deconv({{1, 2, 3, 3}, 2, {3, 3}, 1, {3, 2}, {}, {}, {}, {10, 8}, "SAME_UPPER"},
                 DType::kBF16, a, false, ++seed);
  }
}

// Windows that tile the output (kernel = stride, no pads, dilation 1, one group) run as a
// 1x1 conv and a depth-to-space (dnnl_conv.cc); every other ConvTranspose stays a oneDNN
// deconvolution.
TEST(DnnlConvTranspose, NonOverlappingWindowsRunAsPointwiseConv) {
  auto implementation = [](const DeconvCase& c, bool const_w, DType dt) {
    Rng rng(7);
    std::vector<int64_t> wd = {c.x[1], c.m / c.group};
    wd.insert(wd.end(), c.k.begin(), c.k.end());
    Tensor x = rng.tensor(dt, c.x), w = rng.tensor(dt, wd), b = rng.tensor(dt, {c.m});
    w.constant = const_w;
    b.constant = const_w;
    std::vector<int64_t> pb, out;
    deconv_geometry(c, pb, out);
    std::vector<int64_t> y_dims = {c.x[0], c.m};
    y_dims.insert(y_dims.end(), out.begin(), out.end());
    auto p = prepare(deconv_node(c, act_cases()[0]), {x, w, b}, {{dt, y_dims}});
    EXPECT_TRUE(p.is_ok()) << p.status().to_string();
    return p.is_ok() ? p->kernel().implementation() : std::string();
  };
  auto pointwise = [&](const DeconvCase& c, bool const_w = true, DType dt = DType::kF32) {
    return implementation(c, const_w, dt).find("depth-to-space") != std::string::npos;
  };
  const DeconvCase db_head = {{1, 24, 5, 6}, 1, {2, 2}, 1, {2, 2}};  // a DB head's last one
  const std::vector<DeconvCase> tiled = {
      db_head,
      {{2, 6, 4, 3}, 5, {2, 2}, 1, {2, 2}},
      {{1, 3, 4, 5}, 2, {2, 3}, 1, {2, 3}},           // unequal window sides
      {{1, 3, 7}, 4, {3}, 1, {3}},                    // 1-D
      {{1, 2, 2, 3, 2}, 3, {2, 2, 2}, 1, {2, 2, 2}},  // 3-D
      {{1, 4, 3, 3}, 2, {1, 1}, 1, {1, 1}},           // 1x1, stride 1: a plain 1x1 conv
      {{1, 5, 3, 4}, 3, {2, 2}, 1, {2, 2}, {}, {}, {}, {}, "", false},  // no bias
  };
  for (const DeconvCase& c : tiled) EXPECT_TRUE(pointwise(c)) << ::testing::PrintToString(c.x);
  // Variable weights, low precision, overlapping or padded windows, output_padding, groups,
  // dilation: oneDNN's deconvolution.
  EXPECT_FALSE(pointwise(db_head, false));
  EXPECT_FALSE(pointwise(db_head, true, DType::kBF16));
  EXPECT_FALSE(pointwise({{1, 4, 3, 3}, 2, {3, 3}, 1, {2, 2}}));
  EXPECT_FALSE(pointwise({{1, 4, 3, 3}, 2, {2, 2}, 1, {2, 2}, {}, {0, 1, 0, 0}}));
  EXPECT_FALSE(pointwise({{1, 4, 3, 3}, 2, {2, 2}, 1, {2, 2}, {}, {}, {1, 1}}));
  EXPECT_FALSE(pointwise({{1, 4, 3, 3}, 4, {2, 2}, 2, {2, 2}}));
  EXPECT_FALSE(pointwise({{1, 4, 3, 3}, 2, {2, 2}, 1, {2, 2}, {2, 2}}));
  EXPECT_FALSE(pointwise({{1, 4, 3, 3}, 2, {2, 2}, 1, {2, 2}, {}, {}, {}, {8, 8}, "SAME_UPPER"}));
  uint32_t seed = 8000;
  for (const DeconvCase& c : tiled) check_deconv(c, DType::kF32, act_cases()[0], true, ++seed);
  for (const ActCase& a : act_cases()) {
    check_deconv({{2, 6, 4, 3}, 5, {2, 2}, 1, {2, 2}}, DType::kF32, a, true, ++seed);
    check_deconv(db_head, DType::kF32, a, true, ++seed, 2);
  }
  // Enough rows for two threads to split mid-plane.
  check_deconv({{1, 8, 37, 29}, 3, {2, 2}, 1, {2, 2}}, DType::kF32, act_cases()[1], true, ++seed,
               2);
}

// ---- MatMul -----------------------------------------------------------------------------------

void matmul_reference(const Tensor& a, const Tensor& b, const std::vector<int64_t>& y_dims,
                      std::vector<double>& ref, std::vector<double>& mag) {
  std::vector<int64_t> ad = a.dims, bd = b.dims;
  if (ad.size() == 1) ad.insert(ad.begin(), 1);
  if (bd.size() == 1) bd.push_back(1);
  const size_t r = std::max(ad.size(), bd.size());
  ad.insert(ad.begin(), r - ad.size(), 1);
  bd.insert(bd.begin(), r - bd.size(), 1);
  const int64_t m = ad[r - 2], k = ad[r - 1], n = bd[r - 1];
  std::vector<int64_t> batch(r - 2);
  int64_t nb = 1;
  for (size_t i = 0; i + 2 < r; ++i) nb *= batch[i] = std::max(ad[i], bd[i]);
  int64_t y_numel = 1;
  for (int64_t d : y_dims) y_numel *= d;
  EXPECT_EQ(y_numel, nb * m * n);
  ref.assign(static_cast<size_t>(nb * m * n), 0.0);
  mag.assign(ref.size(), 0.0);
  for (int64_t bi = 0; bi < nb; ++bi) {
    // Unravel the batch index and map it into A and B (broadcast axes read index 0).
    int64_t rem = bi, aoff = 0, boff = 0, astride = m * k, bstride = k * n;
    for (size_t i = r - 2; i-- > 0;) {
      const int64_t idx = rem % batch[i];
      rem /= batch[i];
      aoff += (ad[i] == 1 ? 0 : idx) * astride;
      boff += (bd[i] == 1 ? 0 : idx) * bstride;
      astride *= ad[i];
      bstride *= bd[i];
    }
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0, s = 0;
        for (int64_t p = 0; p < k; ++p) {
          const double t = a.values[aoff + i * k + p] * b.values[boff + p * n + j];
          acc += t;
          s += std::fabs(t);
        }
        ref[(bi * m + i) * n + j] = acc;
        mag[(bi * m + i) * n + j] = s;
      }
  }
}

void check_matmul(const std::vector<int64_t>& ad, const std::vector<int64_t>& bd,
                  const std::vector<int64_t>& yd, DType dt, const ActCase& act, bool const_b,
                  uint32_t seed, int threads = 1) {
  Rng rng(seed);
  Tensor a = rng.tensor(dt, ad), b = rng.tensor(dt, bd);
  b.constant = const_b;
  std::vector<double> ref, mag;
  matmul_reference(a, b, yd, ref, mag);
  for (double& v : ref) v = act_ref(to_act(act), v);
  graph::Node node;
  node.name = "node";
  node.op = OpType::kMatMul;
  set_act(node, act);
  auto got = run_kernel(node, {a, b}, {{dt, yd}}, threads);
  std::ostringstream what;
  what << "MatMul " << ::testing::PrintToString(ad) << " x " << ::testing::PrintToString(bd)
       << " dtype=" << dtype_name(dt) << " act=" << act.name << " const_b=" << const_b
       << " seed=" << seed;
  ASSERT_TRUE(got.is_ok()) << what.str() << ": " << got.status().to_string();
  expect_close((*got)[0], ref, mag, dt, what.str());
}

TEST(DnnlMatMul, NumpySemantics) {
  struct Case {
    std::vector<int64_t> a, b, y;
  };
  const std::vector<Case> cases = {
      {{5}, {5}, {}},
      {{4}, {4, 3}, {3}},
      {{3, 4}, {4}, {3}},
      {{4}, {2, 4, 3}, {2, 3}},
      {{2, 3, 4}, {4}, {2, 3}},
      {{3, 4}, {4, 5}, {3, 5}},
      {{2, 3, 4}, {2, 4, 5}, {2, 3, 5}},
      {{2, 3, 4}, {4, 5}, {2, 3, 5}},
      {{3, 4}, {2, 4, 5}, {2, 3, 5}},
      {{2, 1, 3, 4}, {1, 3, 4, 5}, {2, 3, 3, 5}},
      {{1, 2, 1, 2, 3, 4}, {3, 1, 2, 1, 4, 2}, {3, 2, 2, 2, 3, 2}},
      {{1, 1, 3, 4}, {4, 5}, {1, 1, 3, 5}},
      {{33, 70}, {70, 40}, {33, 40}},
      {{3, 0}, {0, 4}, {3, 4}},  // K = 0: zeros
  };
  uint32_t seed = 8000;
  for (const Case& c : cases)
    for (DType dt : kFloatTypes)
      for (bool const_b : {false, true})
        check_matmul(c.a, c.b, c.y, dt, act_cases()[0], const_b, ++seed);
}

TEST(DnnlMatMul, FusedActivations) {
  uint32_t seed = 9000;
  for (const ActCase& a : act_cases())
    for (DType dt : kFloatTypes) check_matmul({2, 5, 7}, {7, 6}, {2, 5, 6}, dt, a, true, ++seed);
}

TEST(DnnlMatMul, RejectsMismatchedShapes) {
  Rng rng(9500);
  graph::Node node;
  node.op = OpType::kMatMul;
  EXPECT_FALSE(prepare(node, {rng.tensor(DType::kF32, {3, 4}), rng.tensor(DType::kF32, {5, 2})},
                       {{DType::kF32, {3, 2}}})
                   .status()
                   .is_ok());
  EXPECT_FALSE(prepare(node,
                       {rng.tensor(DType::kF32, {2, 3, 4}), rng.tensor(DType::kF32, {3, 4, 2})},
                       {{DType::kF32, {3, 3, 2}}})
                   .status()
                   .is_ok());
}

// ---- Gemm ---------------------------------------------------------------------------------------

struct GemmCase {
  int64_t m, k, n;
  bool ta, tb;
  float alpha, beta;
  std::vector<int64_t> c;  // C dims; {-1}: no C
};

// `variable_c`: C a run-time input even when B is constant.
void check_gemm(const GemmCase& g, DType dt, const ActCase& act, bool const_bc, uint32_t seed,
                bool variable_c = false) {
  Rng rng(seed);
  Tensor a = rng.tensor(dt, g.ta ? std::vector<int64_t>{g.k, g.m} : std::vector<int64_t>{g.m, g.k});
  Tensor b = rng.tensor(dt, g.tb ? std::vector<int64_t>{g.n, g.k} : std::vector<int64_t>{g.k, g.n});
  const bool has_c = !(g.c.size() == 1 && g.c[0] == -1);
  Tensor c = has_c ? rng.tensor(dt, g.c) : Tensor{};
  b.constant = const_bc;
  c.constant = const_bc && !variable_c;
  const int64_t cm = g.c.size() == 2 ? g.c[0] : 1, cn = g.c.empty() ? 1 : g.c.back();
  std::vector<double> ref, mag;
  for (int64_t i = 0; i < g.m; ++i)
    for (int64_t j = 0; j < g.n; ++j) {
      double acc = 0, s = 0;
      for (int64_t p = 0; p < g.k; ++p) {
        const double av = g.ta ? a.values[p * g.m + i] : a.values[i * g.k + p];
        const double bv = g.tb ? b.values[j * g.k + p] : b.values[p * g.n + j];
        acc += av * bv;
        s += std::fabs(av * bv);
      }
      double v = g.alpha * acc;
      s *= std::fabs(g.alpha);
      if (has_c) {
        const double cv = c.values[(cm == 1 ? 0 : i) * cn + (cn == 1 ? 0 : j)];
        v += g.beta * cv;
        s += std::fabs(g.beta * cv);
      }
      ref.push_back(act_ref(to_act(act), v));
      mag.push_back(s);
    }
  graph::Node node;
  node.name = "node";
  node.op = OpType::kGemm;
  if (g.ta) node.attrs.set("transA", int64_t{1});
  if (g.tb) node.attrs.set("transB", int64_t{1});
  node.attrs.set("alpha", g.alpha);
  node.attrs.set("beta", g.beta);
  set_act(node, act);
  std::vector<Tensor> ins = {a, b};
  if (has_c) ins.push_back(c);
  auto got = run_kernel(node, ins, {{dt, {g.m, g.n}}});
  std::ostringstream what;
  what << "Gemm m=" << g.m << " k=" << g.k << " n=" << g.n << " ta=" << g.ta << " tb=" << g.tb
       << " alpha=" << g.alpha << " beta=" << g.beta << " c=" << ::testing::PrintToString(g.c)
       << " dtype=" << dtype_name(dt) << " act=" << act.name << " const=" << const_bc
       << " seed=" << seed;
  ASSERT_TRUE(got.is_ok()) << what.str() << ": " << got.status().to_string();
  expect_close((*got)[0], ref, mag, dt, what.str());
}

TEST(DnnlGemm, AttributesAndBiasShapes) {
  const std::vector<GemmCase> cases = {
      {3, 5, 4, false, false, 1.0f, 1.0f, {-1}},
      {3, 5, 4, true, false, 1.0f, 1.0f, {4}},
      {3, 5, 4, false, true, 0.5f, 2.0f, {1, 4}},
      {3, 5, 4, true, true, 0.25f, 0.35f, {3, 4}},
      {3, 5, 4, false, false, 1.0f, 0.5f, {3, 1}},
      {3, 5, 4, false, false, 2.0f, 1.0f, {}},      // scalar C
      {3, 5, 4, false, false, 1.0f, 1.0f, {1}},     // single-element C
      {3, 5, 4, false, false, 0.0f, 1.5f, {3, 4}},  // alpha 0
      {3, 5, 4, false, false, 1.5f, 0.0f, {3, 4}},  // beta 0
      {3, 0, 4, false, false, 1.0f, 1.0f, {4}},     // K = 0
      {64, 48, 80, false, true, 1.0f, 1.0f, {80}},
  };
  uint32_t seed = 10000;
  for (const GemmCase& g : cases)
    for (DType dt : kFloatTypes)
      for (bool const_bc : {false, true}) check_gemm(g, dt, act_cases()[0], const_bc, ++seed);
}

TEST(DnnlGemm, FusedActivations) {
  uint32_t seed = 11000;
  for (const ActCase& a : act_cases())
    for (DType dt : kFloatTypes) {
      check_gemm({4, 6, 5, false, true, 1.0f, 1.0f, {5}}, dt, a, true, ++seed);
      check_gemm({4, 6, 5, true, false, 0.5f, 0.7f, {4, 5}}, dt, a, false, ++seed);
    }
}

// The implementation a product of these inputs prepares (empty, with a failure, if none).
std::string implementation(OpType op, const std::vector<Tensor>& ins,
                           const std::vector<int64_t>& yd, const graph::Attributes& attrs = {}) {
  graph::Node node;
  node.op = op;
  node.attrs = attrs;
  auto p = prepare(node, ins, {{ins[0].dtype, yd}});
  EXPECT_TRUE(p.is_ok()) << p.status().to_string();
  return p.is_ok() ? p->kernel().implementation() : std::string();
}

// Which products our own loop takes (kernels/cpu/small_gemm.h); the results of those it
// takes against the reference, with a run-time bias and two threads.
TEST(DnnlMatMul, SmallProductsRunOwnLoop) {
  Rng rng(12000);
  Tensor a = rng.tensor(DType::kF32, {2, 3, 16}), b = rng.tensor(DType::kF32, {16, 10});
  Tensor b3 = rng.tensor(DType::kF32, {2, 16, 10});
  b.constant = b3.constant = true;
  EXPECT_EQ(implementation(OpType::kMatMul, {a, b}, {2, 3, 10}), "own loop, small product");
  // A batched B, a variable B, bf16, a product over the bound: oneDNN.
  EXPECT_EQ(implementation(OpType::kMatMul, {a, b3}, {2, 3, 10}).rfind("oneDNN", 0), 0u);
  Tensor bv = b;
  bv.constant = false;
  EXPECT_EQ(implementation(OpType::kMatMul, {a, bv}, {2, 3, 10}).rfind("oneDNN", 0), 0u);
  // bf16: not this loop (the few-row 16-bit products have their own, the test below).
  Tensor a16 = rng.tensor(DType::kBF16, {3, 16}), b16 = rng.tensor(DType::kBF16, {16, 10});
  b16.constant = true;
  EXPECT_NE(implementation(OpType::kMatMul, {a16, b16}, {3, 10}), "own loop, small product");
  // Past the bound: oneDNN, or the packed GEMM on an AVX2-only CPU (the test below).
  Tensor big_a = rng.tensor(DType::kF32, {64, 64}), big_b = rng.tensor(DType::kF32, {64, 128});
  big_b.constant = true;
  EXPECT_EQ(
      implementation(OpType::kMatMul, {big_a, big_b}, {64, 128})
          .rfind(kernels::cpu::PackedGemm::suits_this_cpu() ? "own packed GEMM" : "oneDNN", 0),
      0u);
  // Gemm: transposed A, alpha != 1 and C with rows stay on oneDNN.
  Tensor ga = rng.tensor(DType::kF32, {3, 16}), gat = rng.tensor(DType::kF32, {16, 3});
  graph::Attributes ta, alpha;
  ta.set("transA", int64_t{1});
  alpha.set("alpha", 0.5f);
  EXPECT_EQ(implementation(OpType::kGemm, {ga, b}, {3, 10}), "own loop, small product");
  EXPECT_EQ(implementation(OpType::kGemm, {gat, b}, {3, 10}, ta).rfind("oneDNN", 0), 0u);
  EXPECT_EQ(implementation(OpType::kGemm, {ga, b}, {3, 10}, alpha).rfind("oneDNN", 0), 0u);
  Tensor c_rows = rng.tensor(DType::kF32, {3, 10});
  c_rows.constant = true;
  EXPECT_EQ(implementation(OpType::kGemm, {ga, b, c_rows}, {3, 10}).rfind("oneDNN", 0), 0u);

  uint32_t seed = 12100;
  // Transposed B with a run-time bias row, and a run-time scalar C, beta != 1.
  check_gemm({3, 16, 10, false, true, 1.0f, 0.5f, {10}}, DType::kF32, act_cases()[1], true, ++seed,
             true);
  check_gemm({1, 256, 10, false, false, 1.0f, 2.0f, {}}, DType::kF32, act_cases()[0], true, ++seed,
             true);
  // Enough columns for two threads to split them.
  check_matmul({1, 64}, {64, 2048}, {1, 2048}, DType::kF32, act_cases()[1], true, ++seed, 2);
}

// Products with a constant 2-D B and at least 4 rows run our packed GEMM on a CPU with AVX2
// but no AVX-512 (kernels/cpu/packed_gemm.h), oneDNN elsewhere: which one each takes, and
// the results of either with every fused activation, GELU's two forms included.
// amp_kernel_tests.AsOnAnAvx2Cpu runs this on an AVX-512 machine as on an AVX2-only one.
TEST(DnnlMatMul, LargerProductsOnAvx2CpusRunThePackedGemm) {
  const std::string own =
      kernels::cpu::PackedGemm::suits_this_cpu() ? "own packed GEMM, avx2" : "oneDNN";
  auto takes = [](const std::string& impl, const std::string& prefix) {
    return impl.rfind(prefix, 0) == 0;
  };
  Rng rng(13000);
  // A transformer's projection: [2, 16, 384] x [384, 96].
  Tensor a = rng.tensor(DType::kF32, {2, 16, 384}), b = rng.tensor(DType::kF32, {384, 96});
  b.constant = true;
  EXPECT_TRUE(takes(implementation(OpType::kMatMul, {a, b}, {2, 16, 96}), own));
  // Fewer than 4 rows (the GEMV's up to its limit, DnnlMatMul.FewRowProductsRunThePackedGemv),
  // a variable B, a batched B, bf16: never the packed GEMM.
  Tensor a3 = rng.tensor(DType::kF32, {3, 384}), b_wide = rng.tensor(DType::kF32, {384, 400});
  b_wide.constant = true;
  const bool gemv3 =
      kernels::cpu::PackedGemv::suits_this_cpu() && kernels::cpu::PackedGemv::max_rows() >= 3;
  EXPECT_TRUE(takes(implementation(OpType::kMatMul, {a3, b_wide}, {3, 400}),
                    gemv3 ? "own GEMV" : "oneDNN"));
  Tensor bv = b;
  bv.constant = false;
  EXPECT_TRUE(takes(implementation(OpType::kMatMul, {a, bv}, {2, 16, 96}), "oneDNN"));
  Tensor b3 = rng.tensor(DType::kF32, {2, 384, 96});
  b3.constant = true;
  EXPECT_TRUE(takes(implementation(OpType::kMatMul, {a, b3}, {2, 16, 96}), "oneDNN"));
  Tensor a16 = rng.tensor(DType::kBF16, {32, 384}), b16 = rng.tensor(DType::kBF16, {384, 96});
  b16.constant = true;
  EXPECT_TRUE(takes(implementation(OpType::kMatMul, {a16, b16}, {32, 96}), "oneDNN"));
  // Gemm: a row bias is ours; transposed A, alpha != 1, C with rows stay on oneDNN.
  Tensor ga = rng.tensor(DType::kF32, {32, 384}), gat = rng.tensor(DType::kF32, {384, 32});
  Tensor bias = rng.tensor(DType::kF32, {96}), c_rows = rng.tensor(DType::kF32, {32, 96});
  bias.constant = c_rows.constant = true;
  graph::Attributes ta, alpha;
  ta.set("transA", int64_t{1});
  alpha.set("alpha", 0.5f);
  EXPECT_TRUE(takes(implementation(OpType::kGemm, {ga, b, bias}, {32, 96}), own));
  EXPECT_TRUE(takes(implementation(OpType::kGemm, {gat, b, bias}, {32, 96}, ta), "oneDNN"));
  EXPECT_TRUE(takes(implementation(OpType::kGemm, {ga, b, bias}, {32, 96}, alpha), "oneDNN"));
  EXPECT_TRUE(takes(implementation(OpType::kGemm, {ga, b, c_rows}, {32, 96}), "oneDNN"));

  std::vector<ActCase> acts = act_cases();
  acts.push_back({"Gelu", 0, 0, ew::ActivationKind::kGeluErf});
  acts.push_back({"GeluTanh", 0, 0, ew::ActivationKind::kGeluTanh});
  uint32_t seed = 13100;
  for (const ActCase& act : acts) {
    check_matmul({2, 13, 300}, {300, 40}, {2, 13, 40}, DType::kF32, act, true, ++seed);
    // Transposed B (a PyTorch Linear exported as Gemm) with a bias row, beta != 1.
    check_gemm({33, 70, 50, false, true, 1.0f, 0.5f, {50}}, DType::kF32, act, true, ++seed);
  }
  // A run-time bias row; two threads splitting the columns.
  check_gemm({20, 64, 100, false, false, 1.0f, 1.0f, {100}}, DType::kF32, acts.back(), true, ++seed,
             true);
  check_matmul({40, 128}, {128, 512}, {40, 512}, DType::kF32, acts[acts.size() - 2], true, ++seed,
               2);
}

// f32 products with a constant 2-D B and a few rows (a decoder's token: up to 4 with AVX-512,
// 2 with AVX2) run our packed GEMV (kernels/cpu/packed_gemv.h) where it suits the CPU:
// which products take it, that it replaces B by its panels, and its results for 1 to 4
// rows with every fused activation, Gemm's transposed B and bias row (constant and run-time),
// columns at the edges of the 64-column panels, and two threads.
// amp_kernel_tests.AsOnAnAvx2Cpu runs this on an AVX-512 machine as on an AVX2-only one.
TEST(DnnlMatMul, FewRowProductsRunThePackedGemv) {
  using kernels::cpu::PackedGemv;
  auto takes = [](const std::string& impl, const std::string& prefix) {
    return impl.rfind(prefix, 0) == 0;
  };
  Rng rng(13500);
  Tensor b = rng.tensor(DType::kF32, {512, 1408});
  b.constant = true;
  for (int64_t rows = 1; rows <= 4; ++rows) {
    Tensor a = rng.tensor(DType::kF32, {1, rows, 512});
    const std::string impl = implementation(OpType::kMatMul, {a, b}, {1, rows, 1408});
    SCOPED_TRACE(impl);
    if (PackedGemv::suits_this_cpu() && rows <= PackedGemv::max_rows())
      EXPECT_TRUE(takes(impl, "own GEMV"));
    else if (rows >= kernels::cpu::PackedGemm::kMinRows &&
             kernels::cpu::PackedGemm::suits_this_cpu())
      EXPECT_TRUE(takes(impl, "own packed GEMM"));
    else
      EXPECT_TRUE(takes(impl, "oneDNN"));
  }
  // A variable B stays on oneDNN.
  Tensor a1 = rng.tensor(DType::kF32, {1, 512}), bv = b;
  bv.constant = false;
  EXPECT_TRUE(takes(implementation(OpType::kMatMul, {a1, bv}, {1, 1408}), "oneDNN"));

  std::vector<ActCase> acts = act_cases();
  acts.push_back({"Gelu", 0, 0, ew::ActivationKind::kGeluErf});
  acts.push_back({"GeluTanh", 0, 0, ew::ActivationKind::kGeluTanh});
  uint32_t seed = 13600;
  for (const ActCase& act : acts)
    for (int64_t rows = 1; rows <= 4; ++rows) {
      check_matmul({rows, 300}, {300, 200}, {rows, 200}, DType::kF32, act, true, ++seed);
      // Transposed B (a PyTorch Linear exported as Gemm) with a bias row, beta != 1.
      check_gemm({rows, 70, 129, false, true, 1.0f, 0.5f, {129}}, DType::kF32, act, true, ++seed);
    }
  // A run-time bias row; two threads splitting the panels.
  check_gemm({1, 64, 100, false, false, 1.0f, 1.0f, {100}}, DType::kF32, acts.back(), true, ++seed,
             true);
  for (int64_t rows : {1, 2, 4})
    check_matmul({rows, 256}, {256, 1000}, {rows, 1000}, DType::kF32, acts[1], true, ++seed, 2);
}

// f16 and bf16 products with a constant 2-D B and at most 4 rows (a decoder's token) read B
// in its 16 bits on a CPU with AVX2, FMA and F16C (kernels/cpu/half_gemv.h), oneDNN
// elsewhere: which products take it; that a row-major B is read in place (no second copy)
// when wide and packed otherwise; and the results at the edges of the in-place tiles
// (columns past a multiple of 8, K past a multiple of 4) and of the 64-column panels, with
// every fused activation, Gemm's transposed B and bias row, and two threads.
// amp_kernel_tests.AsOnAnAvx2Cpu runs this on an AVX-512 machine as on an AVX2-only one.
TEST(DnnlMatMul, FewRowHalfProductsReadTheirSixteenBitWeights) {
  const bool ours = kernels::cpu::HalfGemv::suits_this_cpu();
  auto takes = [](const std::string& impl, const std::string& prefix) {
    return impl.rfind(prefix, 0) == 0;
  };
  Rng rng(14000);
  for (DType dt : {DType::kF16, DType::kBF16}) {
    SCOPED_TRACE(dtype_name(dt));
    const std::string own =
        ours ? "own GEMV over " + std::string(dtype_name(dt)) + " weights" : "oneDNN";
    Tensor b = rng.tensor(dt, {96, 130});
    b.constant = true;
    // One token, and up to 4 rows however they are batched: ours.
    EXPECT_TRUE(
        takes(implementation(OpType::kMatMul, {rng.tensor(dt, {1, 1, 96}), b}, {1, 1, 130}), own));
    EXPECT_TRUE(
        takes(implementation(OpType::kMatMul, {rng.tensor(dt, {2, 2, 96}), b}, {2, 2, 130}), own));
    // Five rows, a variable B, a batched B: oneDNN.
    EXPECT_TRUE(
        takes(implementation(OpType::kMatMul, {rng.tensor(dt, {5, 96}), b}, {5, 130}), "oneDNN"));
    Tensor bv = b;
    bv.constant = false;
    EXPECT_TRUE(
        takes(implementation(OpType::kMatMul, {rng.tensor(dt, {1, 96}), bv}, {1, 130}), "oneDNN"));
    Tensor b3 = rng.tensor(dt, {2, 96, 130});
    b3.constant = true;
    EXPECT_TRUE(takes(
        implementation(OpType::kMatMul, {rng.tensor(dt, {2, 1, 96}), b3}, {2, 1, 130}), "oneDNN"));
    // Gemm: a Linear's transposed B with a bias row is ours; alpha != 1 stays on oneDNN.
    Tensor bt = rng.tensor(dt, {130, 96}), bias = rng.tensor(dt, {130});
    bt.constant = bias.constant = true;
    graph::Attributes tb, tb_alpha;
    tb.set("transB", int64_t{1});
    tb_alpha.set("transB", int64_t{1});
    tb_alpha.set("alpha", 0.5f);
    EXPECT_TRUE(takes(
        implementation(OpType::kGemm, {rng.tensor(dt, {1, 96}), bt, bias}, {1, 130}, tb), own));
    EXPECT_TRUE(takes(
        implementation(OpType::kGemm, {rng.tensor(dt, {1, 96}), bt, bias}, {1, 130}, tb_alpha),
        "oneDNN"));
    if (ours) {
      // The planner's 16-bit B is the only copy of a wide row-major B; a narrow one and a
      // transposed one are packed into panels that replace them.
      Tensor wide = rng.tensor(dt, {96, 2048});
      wide.constant = true;
      graph::Node matmul, gemm;
      matmul.op = OpType::kMatMul;
      gemm.op = OpType::kGemm;
      gemm.attrs = tb;
      auto in_place = prepare(matmul, {rng.tensor(dt, {1, 96}), wide}, {{dt, {1, 2048}}});
      auto narrow = prepare(matmul, {rng.tensor(dt, {1, 96}), b}, {{dt, {1, 130}}});
      auto transposed = prepare(gemm, {rng.tensor(dt, {1, 96}), bt, bias}, {{dt, {1, 130}}});
      ASSERT_TRUE(in_place.is_ok() && narrow.is_ok() && transposed.is_ok());
      std::vector<kernels::HeldConstant> held;
      in_place->kernel().held_constants(held);
      EXPECT_TRUE(held.empty());
      EXPECT_TRUE(in_place->kernel().replaced_constant_inputs().empty());
      for (const auto* packed : {&*narrow, &*transposed}) {
        held.clear();
        packed->kernel().held_constants(held);
        ASSERT_EQ(held.size(), 1u);
        EXPECT_EQ(held[0].bytes, size_t{3} * 96 * 64 * 2);  // 3 panels of 64 columns
        EXPECT_EQ(packed->kernel().replaced_constant_inputs(), std::vector<size_t>{1});
      }
    }

    uint32_t seed = 14100 + 100 * static_cast<uint32_t>(dt);
    for (const ActCase& act : act_cases())
      for (int64_t n : {1, 63, 64, 130, 2050})
        check_matmul({3, 70}, {70, n}, {3, n}, dt, act, true, ++seed);
    check_matmul({1, 1, 300}, {300, 65}, {1, 1, 65}, dt, act_cases()[0], true, ++seed);
    check_matmul({4, 3}, {3, 2053}, {4, 2053}, dt, act_cases()[1], true, ++seed);
    // A Linear with a bias row given at run time; two threads splitting 32 panels.
    check_gemm({2, 64, 100, false, true, 1.0f, 1.0f, {100}}, dt, act_cases()[1], true, ++seed,
               true);
    // Two threads: two in-place tiles (the second with 3 columns past a multiple of 8), and
    // more columns than one tile holds.
    check_matmul({1, 128}, {128, 2051}, {1, 2051}, dt, act_cases()[0], true, ++seed, 2);
    check_matmul({2, 8}, {8, 9000}, {2, 9000}, dt, act_cases()[0], true, ++seed);
  }
}

// ---- Pools
// ----------------------------------------------------------------------------------------

struct PoolCase {
  std::vector<int64_t> x;
  std::vector<int64_t> k;
  std::vector<int64_t> strides, dilations, pads;
  std::string auto_pad;
  bool ceil = false;
  bool include_pad = false;
};

// Output size and begin pads as ONNX defines them (independent of common/window_geometry.cc).
void pool_geometry(const PoolCase& c, std::vector<int64_t>& pb, std::vector<int64_t>& pe,
                   std::vector<int64_t>& out) {
  const size_t sp = c.k.size();
  pb.assign(sp, 0);
  pe.assign(sp, 0);
  out.assign(sp, 0);
  for (size_t i = 0; i < sp; ++i) {
    const int64_t s = c.strides.empty() ? 1 : c.strides[i];
    const int64_t d = c.dilations.empty() ? 1 : c.dilations[i];
    const int64_t e = (c.k[i] - 1) * d + 1, in = c.x[2 + i];
    if (c.auto_pad == "SAME_UPPER" || c.auto_pad == "SAME_LOWER") {
      out[i] = (in - 1) / s + 1;
      const int64_t total = std::max<int64_t>(0, (out[i] - 1) * s + e - in);
      pb[i] = c.auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      pe[i] = total - pb[i];
    } else {
      if (!c.pads.empty()) {
        pb[i] = c.pads[i];
        pe[i] = c.pads[sp + i];
      }
      const double size = static_cast<double>(in + pb[i] + pe[i] - e) / s + 1;
      out[i] = static_cast<int64_t>(c.ceil ? std::ceil(size) : std::floor(size));
      if (c.ceil && (out[i] - 1) * s >= in + pb[i]) --out[i];
    }
  }
}

// Reference pooling; `indices` gets ONNX flattened argmax indices (row-major, or
// column-major over spatial axes when col_major).
void pool_reference(const PoolCase& c, bool max, const Tensor& x, bool col_major,
                    std::vector<double>& ref, std::vector<double>& indices,
                    std::vector<int64_t>& y_dims) {
  std::vector<int64_t> pb, pe, out;
  pool_geometry(c, pb, pe, out);
  const size_t sp = c.k.size();
  const std::vector<int64_t> in(c.x.begin() + 2, c.x.end());
  y_dims = {c.x[0], c.x[1]};
  y_dims.insert(y_dims.end(), out.begin(), out.end());
  int64_t in_plane = 1, out_plane = 1, win = 1;
  for (size_t i = 0; i < sp; ++i) {
    in_plane *= in[i];
    out_plane *= out[i];
    win *= c.k[i];
  }
  ref.clear();
  indices.clear();
  for (int64_t p = 0; p < c.x[0] * c.x[1]; ++p)
    for (int64_t o = 0; o < out_plane; ++o) {
      std::vector<int64_t> oi(sp);
      for (size_t i = sp, r = static_cast<size_t>(o); i-- > 0;) {
        oi[i] = static_cast<int64_t>(r) % out[i];
        r /= static_cast<size_t>(out[i]);
      }
      double best = -INFINITY, sum = 0;
      int64_t arg = -1, inside = 0, padded = 0;
      for (int64_t w = 0; w < win; ++w) {
        std::vector<int64_t> pos(sp);
        bool valid = true, in_extent = true;
        for (size_t i = sp, r = static_cast<size_t>(w); i-- > 0;) {
          const int64_t ki = static_cast<int64_t>(r) % c.k[i];
          r /= static_cast<size_t>(c.k[i]);
          const int64_t s = c.strides.empty() ? 1 : c.strides[i];
          const int64_t d = c.dilations.empty() ? 1 : c.dilations[i];
          pos[i] = oi[i] * s - pb[i] + ki * d;
          valid = valid && pos[i] >= 0 && pos[i] < in[i];
          in_extent = in_extent && pos[i] < in[i] + pe[i];
        }
        if (in_extent) ++padded;
        if (!valid) continue;
        int64_t flat = 0, flat_col = 0, st = 1;
        for (size_t i = 0; i < sp; ++i) {
          flat = flat * in[i] + pos[i];
          flat_col += pos[i] * st;
          st *= in[i];
        }
        const double v = x.values[p * in_plane + flat];
        ++inside;
        sum += v;
        if (arg < 0 || v > best) {
          best = v;
          arg = p * in_plane + (col_major ? flat_col : flat);
        }
      }
      if (max) {
        ref.push_back(best);
        indices.push_back(static_cast<double>(arg));
      } else {
        ref.push_back(sum / static_cast<double>(c.include_pad ? padded : inside));
      }
    }
}

graph::Node pool_node(const PoolCase& c, OpType op) {
  graph::Node n;
  n.name = "node";
  n.op = op;
  n.attrs.set("kernel_shape", c.k);
  if (!c.strides.empty()) n.attrs.set("strides", c.strides);
  if (!c.dilations.empty()) n.attrs.set("dilations", c.dilations);
  if (!c.pads.empty()) n.attrs.set("pads", c.pads);
  if (!c.auto_pad.empty()) n.attrs.set("auto_pad", c.auto_pad);
  if (c.ceil) n.attrs.set("ceil_mode", int64_t{1});
  if (c.include_pad) n.attrs.set("count_include_pad", int64_t{1});
  return n;
}

std::vector<PoolCase> pool_cases() {
  return {
      {{1, 2, 9}, {3}},
      {{2, 3, 7, 8}, {2, 2}, {2, 2}},
      {{1, 2, 7, 7}, {3, 3}, {2, 2}, {}, {1, 1, 1, 1}},
      {{1, 2, 8, 7}, {3, 2}, {2, 3}, {}, {0, 1, 2, 0}, "", true},
      {{1, 2, 7, 7}, {3, 3}, {2, 2}, {}, {1, 1, 1, 1}, "", true, true},
      {{1, 1, 6, 6}, {3, 3}, {3, 3}, {}, {1, 1, 1, 1}, "", true, true},  // window starts on pad
      {{1, 2, 9, 9}, {2, 3}, {1, 2}, {2, 2}, {}, "", false},
      {{1, 2, 9, 10}, {2, 2}, {2, 3}, {2, 2}, {1, 0, 0, 1}, "", true, true},
      {{1, 2, 6, 7}, {3, 2}, {2, 2}, {}, {}, "SAME_UPPER"},
      {{1, 2, 6, 7}, {3, 2}, {2, 2}, {}, {}, "SAME_LOWER"},
      {{1, 2, 7, 7}, {3, 3}, {2, 2}, {}, {}, "VALID"},
      {{1, 2, 5, 6, 7}, {2, 3, 2}, {2, 1, 2}, {}, {1, 0, 1, 0, 1, 1}},
      {{1, 1, 11, 11, 11}, {3, 3, 3}, {3, 3, 3}, {2, 2, 2}, {}, "", true},
      {{1, 1, 11, 11, 11}, {3, 3, 3}, {3, 3, 3}, {2, 2, 2}, {}, "", true, true},
      {{1, 1, 10, 12}, {1, 1}, {2, 3}, {}, {}, "", true},
  };
}

void check_pool(const PoolCase& c, bool max, DType dt, bool with_indices, bool col_major,
                int threads, uint32_t seed) {
  Rng rng(seed);
  Tensor x = dt == DType::kU8   ? rng.tensor(dt, c.x, 0, 255)
             : dt == DType::kI8 ? rng.tensor(dt, c.x, -128, 127)
                                : rng.tensor(dt, c.x, -4, 4);
  std::vector<double> ref, idx;
  std::vector<int64_t> y_dims;
  pool_reference(c, max, x, col_major, ref, idx, y_dims);
  graph::Node node = pool_node(c, max ? OpType::kMaxPool : OpType::kAveragePool);
  if (col_major) node.attrs.set("storage_order", int64_t{1});
  std::vector<OutSpec> outs = {{dt, y_dims}};
  if (with_indices) outs.push_back({DType::kI64, y_dims});
  auto got = run_kernel(node, {x}, outs, threads);
  std::ostringstream what;
  what << (max ? "MaxPool" : "AveragePool") << " x=" << ::testing::PrintToString(c.x)
       << " k=" << ::testing::PrintToString(c.k) << " ceil=" << c.ceil
       << " include_pad=" << c.include_pad << " auto_pad=" << c.auto_pad
       << " dtype=" << dtype_name(dt) << " indices=" << with_indices << " col_major=" << col_major
       << " seed=" << seed;
  ASSERT_TRUE(got.is_ok()) << what.str() << ": " << got.status().to_string();
  // Max is exact (a selection); the mean rounds once.
  if (max) {
    ASSERT_EQ((*got)[0], ref) << what.str();
  } else {
    expect_close((*got)[0], ref, {}, dt, what.str());
  }
  if (with_indices) {
    EXPECT_EQ((*got)[1], idx) << what.str();
  }
}

TEST(DnnlPool, MaxPool) {
  uint32_t seed = 12000;
  for (const PoolCase& c : pool_cases()) {
    for (DType dt : {DType::kF32, DType::kF16, DType::kBF16, DType::kI8, DType::kU8})
      check_pool(c, true, dt, false, false, 1, ++seed);
    check_pool(c, true, DType::kF32, true, false, 1, ++seed);
    check_pool(c, true, DType::kF32, true, true, 1, ++seed);
  }
}

TEST(DnnlPool, AveragePool) {
  uint32_t seed = 13000;
  for (PoolCase c : pool_cases())
    for (bool include_pad : {false, true}) {
      if (c.include_pad != include_pad) c.include_pad = include_pad;
      for (DType dt : kFloatTypes) check_pool(c, false, dt, false, false, 1, ++seed);
    }
}

TEST(DnnlPool, Threads) {
  const PoolCase c = {{2, 8, 32, 32}, {3, 3}, {2, 2}, {}, {1, 1, 1, 1}};
  check_pool(c, true, DType::kF32, false, false, 2, 14001);
  check_pool(c, true, DType::kF16, true, false, 2, 14002);
  check_pool(c, false, DType::kBF16, false, false, 2, 14003);
}

// Packed constant weights are shared by kernels that pack the same bytes of the same owner
// the same way (an engine's plans for several shapes, the accuracy search's plans), and
// never across owners: an address reused by another constant must not match.
TEST(DnnlWeights, PackedConstantsAreSharedPerOwner) {
  using dnnl::memory;
  const memory::dims dims = {64, 48};
  const memory::dims strides = {48, 1};
  const memory::desc target(dims, memory::data_type::f32, memory::format_tag::BA16a64b4a);
  auto make_owner = [](float seed) {
    auto v = std::make_shared<std::vector<float>>(64 * 48);
    for (size_t i = 0; i < v->size(); ++i) (*v)[i] = seed + 0.001f * static_cast<float>(i);
    return v;
  };
  auto packed = [&](const std::shared_ptr<std::vector<float>>& owner,
                    kernels::cpu::DnnlWeights& w) {
    kernels::cpu::WorkspaceLayout ws;
    EXPECT_TRUE(w.prepare(DType::kF32, dims, strides, owner->data(), owner, target, ws, 1).is_ok());
    return w.get(nullptr, nullptr, 1);
  };
  auto a = make_owner(1.0f);
  kernels::cpu::DnnlWeights w1, w2, w3, w4;
  const void* p1 = packed(a, w1);
  EXPECT_EQ(packed(a, w2), p1);  // same bytes, same owner: one packed copy

  // The same address under another owner (aliasing a's bytes): not shared.
  std::shared_ptr<std::vector<float>> alias(std::make_shared<int>(0), a.get());
  EXPECT_NE(packed(alias, w3), p1);

  // Without an owner nothing is shared.
  kernels::cpu::WorkspaceLayout ws;
  ASSERT_TRUE(w4.prepare(DType::kF32, dims, strides, a->data(), nullptr, target, ws, 1).is_ok());
  EXPECT_NE(w4.get(nullptr, nullptr, 1), p1);
  // And what is shared holds the packed values of its own bytes.
  EXPECT_EQ(std::memcmp(w4.get(nullptr, nullptr, 1), p1, target.get_size()), 0);
}

}  // namespace
}  // namespace amp
