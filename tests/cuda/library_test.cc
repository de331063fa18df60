// CUDA library family (kernels/cuda/cublaslt_matmul.cc, cudnn_conv.cc, cudnn_pool.cc and
// their epilogue kernels) against the CPU backend's oneDNN kernels: every case builds a
// one-node graph, runs it on the CPU (test::run_graph, the oracle) and on the GPU
// (test::run_graph_cuda), and compares all outputs. Both runners poison outputs with 0xFF
// bytes first, so unwritten elements fail. Random inputs with a fresh seed per test
// (printed on failure), never all zero; weights and biases are constants in some cases and
// graph inputs in others, since kernels may treat the two differently.
//
// Cases cover each code path: folded / strided-batched / looped MatMul batches, operand
// broadcast (batch stride 0), 1-D operands, Gemm transposes and every C shape (bias
// epilogue, C matrix, expanded copies, alpha = 0), fused activations inside cuBLASLt
// (Relu) and after it (the others; fp32 staging for f16/bf16), Conv with groups,
// dilations, strides, asymmetric pads (explicit pad copy), 1-D and 3-D, ConvTranspose on
// cuDNN's direct path and on the staged crop path, and pools on cuDNN and on the own
// kernel (ceil_mode, dilations, Indices, bf16, i8).
//
// Tolerances: the GPU and the CPU both accumulate in fp32 and round once (Conv with a bias
// in f16/bf16 rounds twice on the GPU, see cudnn_conv.cc), so differences are summation
// order plus at most ~2 ulps of the output type: f32 rtol 1e-4 atol 1e-4 (TF32 is off),
// f16 rtol 4e-3 atol 4e-3, bf16 rtol 3e-2 atol 3e-2, integers exact.
#include <gtest/gtest.h>

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
      return {1e-4, 1e-4};
    case DType::kF16:
      return {4e-3, 4e-3};
    case DType::kBF16:
      return {3e-2, 3e-2};
    default:
      return {0, 0};
  }
}

const std::vector<DType> kFloatTypes = {DType::kF32, DType::kF16, DType::kBF16};

class Rng {
 public:
  Rng() : seed_(std::random_device{}()), gen_(seed_) {}
  unsigned seed() const { return seed_; }

  // Uniform in [lo, hi) rounded to `t` (integers: floor); element 0 never 0.
  TensorData tensor(DType t, const std::vector<int64_t>& dims, double lo = -1.0, double hi = 1.0) {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    std::uniform_real_distribution<double> u(lo, hi);
    std::vector<double> v(static_cast<size_t>(n));
    const bool integral = t == DType::kI8 || t == DType::kU8;
    for (double& x : v) x = integral ? std::floor(u(gen_)) : u(gen_);
    if (!v.empty() && v[0] == 0.0) v[0] = 0.5 * hi + (integral ? 1 : 0);
    switch (t) {
      case DType::kF32: {
        std::vector<float> b(v.begin(), v.end());
        return TensorData::from_vector(t, dims, b);
      }
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
      case DType::kI8: {
        std::vector<int8_t> b(v.begin(), v.end());
        return TensorData::from_vector(t, dims, b);
      }
      case DType::kU8: {
        std::vector<uint8_t> b(v.begin(), v.end());
        return TensorData::from_vector(t, dims, b);
      }
      default:
        ADD_FAILURE() << "test: unhandled dtype";
        return TensorData();
    }
  }

 private:
  unsigned seed_;
  std::mt19937 gen_;
};

std::string dims_str(const std::vector<int64_t>& d) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < d.size(); ++i) os << (i ? "," : "") << d[i];
  os << "]";
  return os.str();
}

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

// A graph input or a constant named `name`, recorded in `inputs` when it is an input.
ValueId operand(GraphBuilder& b, std::map<std::string, TensorData>& inputs, const std::string& name,
                TensorData data, bool constant) {
  if (constant) return b.constant(name, std::move(data));
  const ValueId v = b.input(name, data.dtype(), graph::Shape::from_static(data.dims()));
  inputs[name] = std::move(data);
  return v;
}

void set_activation(Attributes& at, const std::string& act, float alpha = 0.0f, float beta = 0.0f) {
  if (act.empty()) return;
  at.set("fused_activation", act);
  if (act == "LeakyRelu" || act == "HardSigmoid" || act == "Clip") at.set("fused_alpha", alpha);
  if (act == "HardSigmoid" || act == "Clip") at.set("fused_beta", beta);
}

// ---- MatMul ----

void check_matmul(Rng& rng, DType t, const std::vector<int64_t>& ad, const std::vector<int64_t>& bd,
                  bool b_constant, const std::string& act = "") {
  GraphBuilder b;
  std::map<std::string, TensorData> inputs;
  const ValueId a = operand(b, inputs, "a", rng.tensor(t, ad), false);
  const ValueId w = operand(b, inputs, "b", rng.tensor(t, bd), b_constant);
  Attributes at;
  set_activation(at, act, 0.1f);
  b.output(b.node(OpType::kMatMul, {a, w}, at));
  std::ostringstream label;
  label << "MatMul " << dtype_name(t) << " " << dims_str(ad) << " x " << dims_str(bd)
        << (b_constant ? " (B constant)" : "") << " act '" << act << "' seed " << rng.seed();
  expect_gpu_matches_cpu(label.str(), b.build(), inputs, tol_for(t));
}

TEST(CudaLibraryMatMul, NumpyBatchingAndBroadcast) {
  AMP_REQUIRE_GPU();
  Rng rng;
  struct Case {
    std::vector<int64_t> a, b;
  };
  const std::vector<Case> cases = {
      {{3, 4}, {4, 5}},                  // plain
      {{2, 3, 4, 5}, {5, 6}},            // batch folds into M
      {{2, 3, 4, 5}, {2, 3, 5, 6}},      // one strided batch of 6
      {{2, 3, 4, 5}, {3, 5, 6}},         // A batched on axis 0 only: outer loop of 2
      {{4, 5}, {2, 5, 6}},               // A broadcast: batch stride 0
      {{2, 1, 4, 5}, {1, 3, 5, 6}},      // both broadcast: outer loop
      {{5}, {5, 6}},                     // 1-D A
      {{3, 4, 5}, {5}},                  // 1-D B
      {{64, 256}, {256, 128}},           // tensor-core sized
      {{7, 13}, {13, 9}},                // odd sizes: element-aligned rows
      {{2, 8, 33, 64}, {2, 8, 64, 33}},  // attention-like
  };
  for (DType t : kFloatTypes)
    for (const Case& c : cases)
      for (bool constant : {false, true}) check_matmul(rng, t, c.a, c.b, constant);
}

TEST(CudaLibraryMatMul, FusedActivations) {
  AMP_REQUIRE_GPU();
  Rng rng;
  for (DType t : kFloatTypes)
    for (const std::string act : {"Relu", "LeakyRelu", "Sigmoid", "Tanh", "HardSwish", "Swish"}) {
      check_matmul(rng, t, {6, 32}, {32, 24}, true, act);
      check_matmul(rng, t, {2, 6, 32}, {2, 32, 24}, false, act);
    }
}

// ---- Gemm ----

void check_gemm(Rng& rng, DType t, int64_t m, int64_t k, int64_t n, bool ta, bool tb, float alpha,
                float beta, const std::vector<int64_t>* c_dims, bool constants,
                const std::string& act = "") {
  GraphBuilder b;
  std::map<std::string, TensorData> inputs;
  const std::vector<int64_t> ad = ta ? std::vector<int64_t>{k, m} : std::vector<int64_t>{m, k};
  const std::vector<int64_t> bd = tb ? std::vector<int64_t>{n, k} : std::vector<int64_t>{k, n};
  std::vector<ValueId> ins = {operand(b, inputs, "a", rng.tensor(t, ad), false),
                              operand(b, inputs, "b", rng.tensor(t, bd), constants)};
  if (c_dims) ins.push_back(operand(b, inputs, "c", rng.tensor(t, *c_dims), constants));
  Attributes at;
  at.set("transA", int64_t{ta ? 1 : 0});
  at.set("transB", int64_t{tb ? 1 : 0});
  at.set("alpha", alpha);
  at.set("beta", beta);
  set_activation(at, act, 0.2f, 0.6f);
  b.output(b.node(OpType::kGemm, ins, at));
  std::ostringstream label;
  label << "Gemm " << dtype_name(t) << " M" << m << " K" << k << " N" << n << " tA" << ta << " tB"
        << tb << " alpha " << alpha << " beta " << beta << " C "
        << (c_dims ? dims_str(*c_dims) : "none") << (constants ? " const" : "") << " act '" << act
        << "' seed " << rng.seed();
  expect_gpu_matches_cpu(label.str(), b.build(), inputs, tol_for(t));
}

TEST(CudaLibraryGemm, TransposesAndCShapes) {
  AMP_REQUIRE_GPU();
  Rng rng;
  const int64_t m = 12, k = 40, n = 24;
  const std::vector<std::vector<int64_t>> c_shapes = {{n}, {1, n}, {}, {1, 1}, {m, 1}, {m, n}};
  for (DType t : kFloatTypes) {
    for (bool ta : {false, true})
      for (bool tb : {false, true}) check_gemm(rng, t, m, k, n, ta, tb, 1.0f, 1.0f, nullptr, true);
    for (const auto& cd : c_shapes)
      for (float beta : {1.0f, 0.5f})
        for (bool constants : {false, true})
          check_gemm(rng, t, m, k, n, false, true, 1.5f, beta, &cd, constants);
    check_gemm(rng, t, m, k, n, false, false, 0.0f, 2.0f, &c_shapes[5], false);  // alpha 0
    check_gemm(rng, t, m, k, n, false, false, 1.0f, 0.0f, &c_shapes[5], false);  // beta 0
    check_gemm(rng, t, 1, k, n, false, false, 1.0f, 1.0f, &c_shapes[0], true);   // M = 1
  }
}

TEST(CudaLibraryGemm, FusedActivations) {
  AMP_REQUIRE_GPU();
  Rng rng;
  const std::vector<int64_t> bias = {24};
  for (DType t : kFloatTypes)
    for (const std::string act : {"Relu", "LeakyRelu", "Clip", "HardSigmoid", "Tanh"})
      check_gemm(rng, t, 16, 48, 24, false, true, 1.0f, 1.0f, &bias, true, act);
}

// ---- Conv / ConvTranspose ----

struct ConvCase {
  std::vector<int64_t> x;  // [N, C, spatial...]
  std::vector<int64_t> w;  // Conv [M, C/G, k...]; ConvTranspose [C, M/G, k...]
  int64_t group;
  std::vector<int64_t> strides, dilations, pads;  // empty: attribute absent
  std::string auto_pad;
  bool bias;
  std::string act;
  std::vector<int64_t> output_padding, output_shape;  // ConvTranspose only
};

void check_conv(Rng& rng, DType t, OpType op, const ConvCase& c, bool constants) {
  GraphBuilder b;
  std::map<std::string, TensorData> inputs;
  std::vector<ValueId> ins = {operand(b, inputs, "x", rng.tensor(t, c.x), false),
                              operand(b, inputs, "w", rng.tensor(t, c.w, -0.5, 0.5), constants)};
  const int64_t m = op == OpType::kConv ? c.w[0] : c.w[1] * c.group;
  if (c.bias) ins.push_back(operand(b, inputs, "bias", rng.tensor(t, {m}), constants));
  Attributes at;
  if (c.group != 1) at.set("group", c.group);
  if (!c.strides.empty()) at.set("strides", c.strides);
  if (!c.dilations.empty()) at.set("dilations", c.dilations);
  if (!c.pads.empty()) at.set("pads", c.pads);
  if (!c.auto_pad.empty()) at.set("auto_pad", c.auto_pad);
  if (!c.output_padding.empty()) at.set("output_padding", c.output_padding);
  if (!c.output_shape.empty()) at.set("output_shape", c.output_shape);
  set_activation(at, c.act, 0.1f, 0.6f);
  b.output(b.node(op, ins, at));
  std::ostringstream label;
  label << op_name(op) << " " << dtype_name(t) << " x " << dims_str(c.x) << " w " << dims_str(c.w)
        << " group " << c.group << " strides " << dims_str(c.strides) << " dilations "
        << dims_str(c.dilations) << " pads " << dims_str(c.pads) << " auto_pad '" << c.auto_pad
        << "' bias " << c.bias << " act '" << c.act << "' output_padding "
        << dims_str(c.output_padding) << " output_shape " << dims_str(c.output_shape)
        << (constants ? " const" : "") << " seed " << rng.seed();
  expect_gpu_matches_cpu(label.str(), b.build(), inputs, tol_for(t));
}

TEST(CudaLibraryConv, GeometriesAndEpilogues) {
  AMP_REQUIRE_GPU();
  Rng rng;
  const std::vector<ConvCase> cases = {
      {{2, 8, 12, 12}, {16, 8, 3, 3}, 1, {}, {}, {1, 1, 1, 1}, "", true, "Relu"},
      {{1, 8, 13, 13}, {8, 8, 3, 3}, 1, {2, 2}, {}, {1, 1, 1, 1}, "", false, ""},
      {{2, 16, 10, 10},
       {16, 1, 3, 3},
       16,
       {},
       {},
       {1, 1, 1, 1},
       "",
       true,
       "HardSwish"},                                                                  // depthwise
      {{1, 8, 10, 10}, {12, 4, 3, 3}, 2, {}, {}, {}, "", true, "LeakyRelu"},          // groups
      {{1, 4, 15, 15}, {6, 4, 3, 3}, 1, {}, {2, 2}, {2, 2, 2, 2}, "", true, ""},      // dilation
      {{1, 4, 9, 9}, {6, 4, 3, 3}, 1, {}, {}, {0, 1, 1, 0}, "", true, "Sigmoid"},     // asymmetric
      {{1, 4, 16, 16}, {6, 4, 3, 3}, 1, {2, 2}, {}, {}, "SAME_UPPER", true, "Clip"},  // asym SAME
      {{1, 4, 16, 16}, {6, 4, 4, 4}, 1, {1, 1}, {}, {}, "SAME_LOWER", false, "Tanh"},
      {{2, 4, 20}, {6, 4, 5}, 1, {2}, {}, {2, 1}, "", true, "Relu"},                    // 1-D
      {{1, 3, 6, 7, 8}, {4, 3, 3, 3, 3}, 1, {}, {}, {1, 1, 1, 1, 1, 1}, "", true, ""},  // 3-D
      {{4, 32, 14, 14}, {64, 32, 1, 1}, 1, {}, {}, {}, "", true, "Relu"},               // 1x1
  };
  for (DType t : kFloatTypes)
    for (const ConvCase& c : cases)
      for (bool constants : {true, false}) check_conv(rng, t, OpType::kConv, c, constants);
}

TEST(CudaLibraryConvTranspose, DirectAndStagedPaths) {
  AMP_REQUIRE_GPU();
  Rng rng;
  const std::vector<ConvCase> cases = {
      // Direct (cuDNN backward data): symmetric pads, output_padding < stride.
      {{1, 4, 5, 5}, {4, 6, 3, 3}, 1, {2, 2}, {}, {1, 1, 1, 1}, "", true, "Relu", {1, 1}, {}},
      {{2, 4, 6, 6}, {4, 3, 4, 4}, 2, {2, 2}, {}, {1, 1, 1, 1}, "", true, "", {}, {}},
      {{1, 3, 7}, {3, 5, 3}, 1, {1}, {2}, {}, "", false, "", {}, {}},  // 1-D, dilated
      // Staged (natural size, then crop): asymmetric pads, output_shape, SAME_UPPER.
      {{1, 4, 5, 5}, {4, 6, 3, 3}, 1, {2, 2}, {}, {0, 1, 1, 0}, "", true, "Sigmoid", {}, {}},
      {{1, 4, 5, 5}, {4, 6, 3, 3}, 1, {2, 2}, {}, {}, "", true, "", {}, {1, 6, 13, 13}},
      {{1, 4, 5, 5}, {4, 6, 4, 4}, 1, {2, 2}, {}, {}, "SAME_UPPER", false, "LeakyRelu", {}, {}},
      {{1, 2, 3, 4, 4}, {2, 3, 2, 2, 2}, 1, {2, 2, 2}, {}, {}, "", true, "", {}, {}},  // 3-D
  };
  for (DType t : kFloatTypes)
    for (const ConvCase& c : cases)
      for (bool constants : {true, false}) check_conv(rng, t, OpType::kConvTranspose, c, constants);
}

// ---- Pools ----

struct PoolCase {
  std::vector<int64_t> x;
  std::vector<int64_t> kernel, strides, pads, dilations;
  int64_t ceil_mode;
  int64_t count_include_pad;
  bool indices;
  std::string auto_pad;
};

void check_pool(Rng& rng, DType t, OpType op, const PoolCase& c) {
  GraphBuilder b;
  std::map<std::string, TensorData> inputs;
  // u8 inputs stay non-negative (a negative double -> uint8_t conversion is undefined).
  const double lo = t == DType::kU8 ? 0.0 : -10.0;
  const ValueId x = operand(b, inputs, "x", rng.tensor(t, c.x, lo, 10), false);
  Attributes at;
  at.set("kernel_shape", c.kernel);
  if (!c.strides.empty()) at.set("strides", c.strides);
  if (!c.pads.empty()) at.set("pads", c.pads);
  if (!c.dilations.empty()) at.set("dilations", c.dilations);
  if (!c.auto_pad.empty()) at.set("auto_pad", c.auto_pad);
  at.set("ceil_mode", c.ceil_mode);
  if (op == OpType::kAveragePool) at.set("count_include_pad", c.count_include_pad);
  const bool with_indices = op == OpType::kMaxPool && c.indices;
  for (ValueId o : b.node_multi(op, {x}, with_indices ? 2 : 1, at)) b.output(o);
  std::ostringstream label;
  label << op_name(op) << " " << dtype_name(t) << " x " << dims_str(c.x) << " k "
        << dims_str(c.kernel) << " s " << dims_str(c.strides) << " pads " << dims_str(c.pads)
        << " dil " << dims_str(c.dilations) << " ceil " << c.ceil_mode << " include_pad "
        << c.count_include_pad << " indices " << with_indices << " auto_pad '" << c.auto_pad
        << "' seed " << rng.seed();
  expect_gpu_matches_cpu(label.str(), b.build(), inputs, tol_for(t));
}

TEST(CudaLibraryPool, MaxAndAverage) {
  AMP_REQUIRE_GPU();
  Rng rng;
  const std::vector<PoolCase> cases = {
      {{2, 3, 12, 12}, {3, 3}, {2, 2}, {1, 1, 1, 1}, {}, 0, 0, false, ""},      // cuDNN path
      {{2, 3, 12, 12}, {2, 2}, {2, 2}, {}, {}, 0, 1, false, ""},                // cuDNN path
      {{1, 2, 11, 11}, {3, 3}, {2, 2}, {1, 1, 1, 1}, {}, 1, 1, false, ""},      // ceil_mode
      {{1, 2, 11, 11}, {3, 3}, {2, 2}, {0, 0, 1, 1}, {}, 0, 0, false, ""},      // asymmetric
      {{1, 2, 12, 12}, {3, 3}, {1, 1}, {2, 2, 2, 2}, {2, 2}, 0, 0, false, ""},  // dilated
      {{1, 3, 10, 10}, {3, 3}, {2, 2}, {1, 1, 1, 1}, {}, 0, 0, true, ""},       // Indices
      {{2, 3, 17}, {4}, {3}, {1, 2}, {}, 1, 0, false, ""},                      // 1-D
      {{1, 2, 5, 6, 7}, {2, 2, 2}, {2, 2, 2}, {}, {}, 0, 0, false, ""},         // 3-D
      {{1, 2, 9, 9}, {3, 3}, {2, 2}, {}, {}, 0, 1, false, "SAME_UPPER"},
  };
  for (DType t : kFloatTypes) {
    for (const PoolCase& c : cases) {
      check_pool(rng, t, OpType::kMaxPool, c);
      if (c.dilations.empty()) check_pool(rng, t, OpType::kAveragePool, c);
    }
  }
  for (DType t : {DType::kI8, DType::kU8}) {
    check_pool(rng, t, OpType::kMaxPool, cases[0]);
    check_pool(rng, t, OpType::kMaxPool, cases[5]);
  }
}

// Needs no GPU: registration is host code.
TEST(CudaLibrary, RegistersTheDtypesTheCpuRegisters) {
  for (OpType op : {OpType::kMatMul, OpType::kGemm, OpType::kConv, OpType::kConvTranspose,
                    OpType::kMaxPool, OpType::kAveragePool}) {
    const std::vector<DType> cpu = test::cpu_registry().dtypes_for(op, kernels::Backend::kCpu);
    const std::vector<DType> gpu = test::cuda_registry().dtypes_for(op, kernels::Backend::kCuda);
    EXPECT_EQ(cpu, gpu) << op_name(op);
  }
}

}  // namespace
}  // namespace amp
