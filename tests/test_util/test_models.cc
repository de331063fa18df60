#include "tests/test_util/test_models.h"

#include <random>
#include <stdexcept>
#include <vector>

#include "graph/ir/graph_builder.h"
#include "graph/serialize/amp_writer.h"
#include "tests/test_util/scratch_dir.h"

namespace amp::test {
namespace {

using graph::Attributes;
using graph::Dim;
using graph::GraphBuilder;
using graph::OpType;
using graph::Shape;
using graph::TensorData;

std::string write(graph::Graph g, const std::filesystem::path& dir, const std::string& name) {
  const std::string path = (dir / (name + ".amp")).string();
  Status st = graph::write_amp_file(g, path);
  if (!st.is_ok()) throw std::runtime_error(st.to_string());
  return path;
}

Attributes ints(const std::string& name, std::vector<int64_t> v) {
  Attributes a;
  a.set(name, std::move(v));
  return a;
}

}  // namespace

Engine load_on_cpu(const graph::Graph& g, Options o) {
  const ScratchDir dir("amp_test_load");
  const std::string path = write(g, dir.path(), "model");
  o.backend = BackendKind::kCpu;
  return Engine::load(path, o);
}

TensorData random_f32(std::vector<int64_t> dims, float scale, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-scale, scale);
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = u(rng);
  return TensorData::from_vector(DType::kF32, std::move(dims), v);
}

std::string write_overflow_model(const std::filesystem::path& dir) {
  GraphBuilder b;
  auto x = b.input("x", DType::kF32, Shape({1, 4}));
  auto w =
      b.constant("W", TensorData::from_vector(DType::kF32, {4, 4}, std::vector<float>(16, 300.f)));
  auto y = b.node(OpType::kMatMul, {x, w}, {}, "big_matmul");
  b.rename(y, "y");
  b.output(y);
  return write(b.build(), dir, "overflow");
}

std::string write_inplace_overflow_model(const std::filesystem::path& dir) {
  GraphBuilder b;
  auto x = b.input("x", DType::kF32, Shape({1, 4}));
  auto w =
      b.constant("W", TensorData::from_vector(DType::kF32, {4, 4}, std::vector<float>(16, 10.f)));
  auto h = b.node(OpType::kMatMul, {x, w}, {}, "small_matmul");
  auto k = b.constant("k", TensorData::from_vector(DType::kF32, {1}, std::vector<float>{4000.f}));
  auto y = b.node(OpType::kMul, {h, k}, {}, "scale_mul");
  b.rename(y, "y");
  b.output(y);
  return write(b.build(), dir, "inplace_overflow");
}

std::string write_hot_matmul_model(const std::filesystem::path& dir) {
  GraphBuilder b;
  auto x = b.input("x", DType::kF32, Shape({8, 64}));
  std::vector<float> w1(64 * 64);
  for (size_t i = 0; i < 64; ++i)
    for (size_t j = 0; j < 64; ++j)
      w1[i * 64 + j] = 1000.0f + 30.0f * static_cast<float>((i * 7 + j * 3) % 51);
  auto h = b.node(OpType::kMatMul,
                  {x, b.constant("W1", TensorData::from_vector(DType::kF32, {64, 64}, w1))}, {},
                  "hot_matmul");
  h = b.node(OpType::kMul, {h, b.constant("k", TensorData::scalar_f32(1e-3f))}, {}, "scale");
  h = b.node(OpType::kRelu, {h}, {}, "relu");
  auto y = b.node(OpType::kMatMul, {h, b.constant("W2", random_f32({64, 16}, 0.1f, 5))}, {},
                  "out_matmul");
  b.rename(y, "y");
  b.output(y);
  return write(b.build(), dir, "hot_matmul");
}

std::string write_cancelling_model(const std::filesystem::path& dir) {
  GraphBuilder b;
  auto x = b.input("x", DType::kF32, Shape({4, 32}));
  const auto big = b.constant("big", TensorData::scalar_f32(2048.0f));
  for (int k = 1; k <= 2; ++k) {
    const std::string s = std::to_string(k);
    auto h = b.node(OpType::kMatMul, {x, b.constant("W" + s, random_f32({32, 32}, 0.1f, 20 + k))},
                    {}, "mm" + s);
    h = b.node(OpType::kAdd, {h, big}, {}, "shift" + s);
    h = b.node(OpType::kSub, {h, big}, {}, "unshift" + s);
    auto y = b.node(OpType::kMatMul, {h, b.constant("V" + s, random_f32({32, 8}, 0.1f, 30 + k))},
                    {}, "out" + s);
    b.rename(y, "y" + s);
    b.output(y);
  }
  return write(b.build(), dir, "cancelling");
}

std::string write_layered_cancelling_model(const std::filesystem::path& dir, int layers,
                                           const std::map<int, float>& shifts) {
  GraphBuilder b;
  auto h = b.input("x", DType::kF32, Shape({4, 32}));
  for (int k = 1; k <= layers; ++k) {
    const std::string s = std::to_string(k);
    h = b.node(OpType::kMatMul, {h, b.constant("W" + s, random_f32({32, 32}, 0.3f, 40 + k))}, {},
               "mm" + s);
    h = b.node(OpType::kTanh, {h}, {}, "act" + s);
    if (auto it = shifts.find(k); it != shifts.end()) {
      const auto c = b.constant("c" + s, TensorData::scalar_f32(it->second));
      h = b.node(OpType::kAdd, {h, c}, {}, "shift" + s);
      h = b.node(OpType::kSub, {h, c}, {}, "unshift" + s);
    }
  }
  auto y = b.node(OpType::kMatMul, {h, b.constant("V", random_f32({32, 8}, 0.3f, 39))}, {}, "out");
  b.rename(y, "y");
  b.output(y);
  return write(b.build(), dir, "layered_cancelling");
}

std::string write_expand_model(const std::filesystem::path& dir) {
  GraphBuilder b;
  auto x = b.input("x", DType::kF32, Shape({1}));
  auto shape = b.input("shape", DType::kI64, Shape({2}));
  auto y = b.node(OpType::kExpand, {x, shape}, {}, "expand");
  b.rename(y, "y");
  b.output(y);
  return write(b.build(), dir, "expand");
}

std::string write_small_cnn(const std::filesystem::path& dir) {
  GraphBuilder b;
  auto x = b.input("x", DType::kF32, Shape({Dim::symbolic("N"), Dim(3), Dim(16), Dim(16)}));
  Attributes conv = ints("pads", {1, 1, 1, 1});
  auto w1 = b.constant("w1", random_f32({8, 3, 3, 3}, 0.3f, 1));
  auto b1 = b.constant("b1", random_f32({8}, 0.1f, 2));
  auto h = b.node(OpType::kConv, {x, w1, b1}, conv, "conv1");
  h = b.node(OpType::kRelu, {h}, {}, "relu1");
  Attributes pool = ints("kernel_shape", {2, 2});
  pool.set("strides", std::vector<int64_t>{2, 2});
  h = b.node(OpType::kMaxPool, {h}, pool, "pool1");
  auto w2 = b.constant("w2", random_f32({16, 8, 3, 3}, 0.2f, 3));
  auto b2 = b.constant("b2", random_f32({16}, 0.1f, 4));
  auto c2 = b.node(OpType::kConv, {h, w2, b2}, conv, "conv2");
  auto s2 = b.node(OpType::kSigmoid, {c2}, {}, "sigmoid2");
  h = b.node(OpType::kMul, {c2, s2}, {}, "silu2");
  h = b.node(OpType::kGlobalAveragePool, {h}, {}, "gap");
  Attributes flat;
  flat.set("axis", int64_t{1});
  h = b.node(OpType::kFlatten, {h}, flat, "flatten");
  auto wf = b.constant("wf", random_f32({16, 10}, 0.5f, 5));
  auto bf = b.constant("bf", random_f32({10}, 0.1f, 6));
  h = b.node(OpType::kGemm, {h, wf, bf}, {}, "fc");
  Attributes axis;
  axis.set("axis", int64_t{-1});
  auto y = b.node(OpType::kSoftmax, {h}, axis, "softmax");
  b.rename(y, "probs");
  b.output(y);
  return write(b.build(), dir, "small_cnn");
}

}  // namespace amp::test
