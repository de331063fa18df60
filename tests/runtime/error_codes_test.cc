// Every failure of the public API is an amp::Error with a stable code (amp/error.h) and a
// message that names the model element involved: the file, the node, the input, the
// option. One test per code, each through Engine::load / run as a user calls them.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "amp/engine.h"
#include "graph/ir/graph_builder.h"
#include "graph/onnx/onnx_exporter.h"
#include "graph/ops/shape_inference.h"
#include "graph/serialize/amp_writer.h"
#include "tests/test_util/scratch_dir.h"
#include "tests/test_util/test_models.h"

namespace amp {
namespace {

namespace fs = std::filesystem;

// The codes are part of the API: tools and servers switch on their values.
static_assert(static_cast<int>(ErrorCode::kInvalidModel) == 1);
static_assert(static_cast<int>(ErrorCode::kUnsupported) == 2);
static_assert(static_cast<int>(ErrorCode::kInvalidInput) == 3);
static_assert(static_cast<int>(ErrorCode::kInvalidArgument) == 4);
static_assert(static_cast<int>(ErrorCode::kOutOfMemory) == 5);
static_assert(static_cast<int>(ErrorCode::kBackendFailure) == 6);
static_assert(static_cast<int>(ErrorCode::kNotFound) == 7);
static_assert(static_cast<int>(ErrorCode::kInternal) == 8);
static_assert(static_cast<int>(ErrorCode::kNumericOverflow) == 9);

class ErrorCodes : public ::testing::Test {
 protected:
  std::string write(const graph::Graph& g, const std::string& name) {
    const std::string path = (dir_ / name).string();
    const Status s = graph::write_amp_file(g, path);
    EXPECT_TRUE(s.is_ok()) << s.to_string();
    return path;
  }

  // Runs `f`, which must throw amp::Error with `code` and every fragment in its message.
  template <typename F>
  void expect_error(F f, ErrorCode code, const std::vector<std::string>& fragments) {
    try {
      f();
      ADD_FAILURE() << "expected " << error_code_name(code) << ", nothing was thrown";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), code) << e.what();
      for (const std::string& frag : fragments)
        EXPECT_NE(e.message().find(frag), std::string::npos)
            << "'" << frag << "' not in: " << e.message();
      EXPECT_EQ(std::string(e.what()).rfind(error_code_name(code), 0), 0u) << e.what();
    }
  }

  static Options cpu() {
    Options o;
    o.backend = BackendKind::kCpu;
    o.threads = 1;
    return o;
  }

  test::ScratchDir scratch_{"amp_error_codes"};
  const fs::path dir_ = scratch_.path();
};

TEST_F(ErrorCodes, EveryCodeHasAStableName) {
  EXPECT_STREQ(error_code_name(ErrorCode::kInvalidModel), "invalid model");
  EXPECT_STREQ(error_code_name(ErrorCode::kUnsupported), "unsupported");
  EXPECT_STREQ(error_code_name(ErrorCode::kInvalidInput), "invalid input");
  EXPECT_STREQ(error_code_name(ErrorCode::kOutOfMemory), "out of memory");
  EXPECT_STREQ(error_code_name(ErrorCode::kBackendFailure), "backend failure");
  EXPECT_STREQ(error_code_name(ErrorCode::kInternal), "internal error");
  EXPECT_STREQ(error_code_name(ErrorCode::kNumericOverflow), "numeric overflow");
}

TEST_F(ErrorCodes, NotFoundNamesThePath) {
  const std::string path = (dir_ / "missing.amp").string();
  expect_error([&] { Engine::load(path, cpu()); }, ErrorCode::kNotFound, {path});
}

TEST_F(ErrorCodes, InvalidModelNamesTheNode) {
  // Add of [2, 3] and [4]: not broadcastable; the file itself is well-formed.
  graph::GraphBuilder b;
  auto x = b.input("x", DType::kF32, graph::Shape({2, 3}));
  auto c = b.constant("c", graph::TensorData::from_vector<float>(DType::kF32, {4}, {1, 2, 3, 4}));
  auto y = b.node(graph::OpType::kAdd, {x, c}, {}, "bad_add");
  b.output(y);
  const std::string path = write(b.build(), "bad_add.amp");
  expect_error([&] { Engine::load(path, cpu()); }, ErrorCode::kInvalidModel, {"bad_add"});

  const std::string garbage = (dir_ / "garbage.amp").string();
  std::ofstream(garbage, std::ios::binary) << "not a model at all";
  expect_error([&] { Engine::load(garbage, cpu()); }, ErrorCode::kInvalidModel, {});
}

TEST_F(ErrorCodes, UnsupportedOnnxOpNamesTheNode) {
  onnx::ModelProto m;
  m.set_ir_version(7);
  m.add_opset_import()->set_version(13);
  auto* g = m.mutable_graph();
  auto* in = g->add_input();
  in->set_name("x");
  auto* tt = in->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto_DataType_FLOAT);
  tt->mutable_shape()->add_dim()->set_dim_value(4);
  auto* n = g->add_node();
  n->set_op_type("TfIdfVectorizer");
  n->set_name("my_tfidf");
  n->add_input("x");
  n->add_input("x");
  n->add_output("y");
  g->add_output()->set_name("y");
  const std::string path = (dir_ / "tfidf.onnx").string();
  {
    std::ofstream f(path, std::ios::binary);
    ASSERT_TRUE(m.SerializeToOstream(&f));
  }
  expect_error([&] { Engine::load(path, cpu()); }, ErrorCode::kUnsupported,
               {"TfIdfVectorizer", "my_tfidf"});
}

// A node the importer and shape inference accept but no CPU kernel implements (MatMul on
// int32): the planning error names the kernel and the node.
TEST_F(ErrorCodes, MissingKernelNamesTheNode) {
  graph::GraphBuilder b;
  auto x = b.input("x", DType::kI32, graph::Shape({2, 3}));
  auto w = b.constant(
      "w", graph::TensorData::from_vector<int32_t>(DType::kI32, {3, 2}, {1, 2, 3, 4, 5, 6}));
  auto y = b.node(graph::OpType::kMatMul, {x, w}, {}, "int_matmul");
  b.output(y);
  const std::string path = write(b.build(), "int_matmul.amp");
  expect_error([&] { Engine::load(path, cpu()); }, ErrorCode::kUnsupported,
               {"MatMul(i32)", "'int_matmul'"});
}

TEST_F(ErrorCodes, InvalidInputNamesTheInput) {
  const std::string path = amp::test::write_small_cnn(dir_);
  Engine engine = Engine::load(path, cpu());
  const std::vector<float> x(3 * 16 * 16, 0.5f);
  expect_error(
      [&] {
        engine.run({{"y", Tensor::from(x, {1, 3, 16, 16})}});
      },
      ErrorCode::kInvalidInput, {"'y'"});
  expect_error(
      [&] {
        engine.run({{"x", Tensor::from(x, {1, 3, 16, 8, 2})}});
      },
      ErrorCode::kInvalidInput, {"'x'", "rank 5"});
  expect_error(
      [&] {
        engine.run({{"x", Tensor::from(std::vector<int32_t>(x.size()), {1, 3, 16, 16})}});
      },
      ErrorCode::kInvalidInput, {"'x'", "i32"});
}

// Dims that are symbolic in the model and bound by the run's inputs can make a node
// invalid (here Add of x [n] and c [4], for n = 3): the inputs are wrong, not the model, and
// the error names them with their shapes and the node that refused them.
TEST_F(ErrorCodes, InputsThatMakeANodeInvalidAreTheInputsError) {
  graph::GraphBuilder b;
  auto x = b.input("x", DType::kF32, graph::Shape({graph::Dim::symbolic("n")}));
  auto c = b.constant("c", graph::TensorData::from_vector<float>(DType::kF32, {4}, {1, 2, 3, 4}));
  b.output(b.node(graph::OpType::kAdd, {x, c}, {}, "sym_add"));
  Engine engine = Engine::load(write(b.build(), "sym_add.amp"), cpu());
  EXPECT_EQ(engine.run({{"x", Tensor::from(std::vector<float>(4, 1.0f), {4})}})[0].numel(), 4);
  std::string message;
  expect_error(
      [&] {
        engine.run({{"x", Tensor::from(std::vector<float>(3, 1.0f), {3})}});
      },
      ErrorCode::kInvalidInput, {"x [3]", "'sym_add'"});
  try {
    engine.run({{"x", Tensor::from(std::vector<float>(3, 1.0f), {3})}});
  } catch (const Error& e) {
    message = e.message();
  }
  EXPECT_EQ(message.find("pass '"), std::string::npos) << message;
}

// Options::input_shapes that make a node invalid (the model loads with the dim symbolic)
// are the caller's argument, named with the shapes given, from both formats; a model
// invalid whatever the binding stays an invalid model.
TEST_F(ErrorCodes, InputShapesThatMakeANodeInvalidAreTheArgumentsError) {
  graph::GraphBuilder b;
  auto x = b.input("x", DType::kF32, graph::Shape({graph::Dim::symbolic("n")}));
  auto c = b.constant("c", graph::TensorData::from_vector<float>(DType::kF32, {4}, {1, 2, 3, 4}));
  b.output(b.node(graph::OpType::kAdd, {x, c}, {}, "sym_add"));
  graph::Graph g = b.build();
  ASSERT_TRUE(graph::infer_shapes(g).is_ok());  // the exporter writes each value's dtype
  const std::string onnx_path = (dir_ / "sym_add.onnx").string();
  const Status exported = graph::write_onnx_file(g, onnx_path);
  ASSERT_TRUE(exported.is_ok()) << exported.message();
  for (const std::string& path : {write(g, "sym_add.amp"), onnx_path}) {
    SCOPED_TRACE(path);
    Options o = cpu();
    o.input_shapes["x"] = {4};
    EXPECT_EQ(
        Engine::load(path, o).run({{"x", Tensor::from(std::vector<float>(4, 1.0f), {4})}}).size(),
        1u);
    o.input_shapes["x"] = {3};
    expect_error([&] { Engine::load(path, o); }, ErrorCode::kInvalidArgument,
                 {"input_shapes x [3]", "'sym_add'"});
  }

  graph::GraphBuilder bad;
  auto bx = bad.input("x", DType::kF32, graph::Shape({graph::Dim::symbolic("n")}));
  auto c4 =
      bad.constant("c4", graph::TensorData::from_vector<float>(DType::kF32, {4}, {1, 2, 3, 4}));
  auto c5 =
      bad.constant("c5", graph::TensorData::from_vector<float>(DType::kF32, {5}, {1, 2, 3, 4, 5}));
  auto sum = bad.node(graph::OpType::kAdd, {c4, c5}, {}, "bad_add");
  bad.output(bad.node(graph::OpType::kAdd, {bx, sum}, {}, "uses_x"));
  Options o = cpu();
  o.input_shapes["x"] = {4};
  expect_error([&] { Engine::load(write(bad.build(), "bad_add_sym.amp"), o); },
               ErrorCode::kInvalidModel, {"bad_add"});
}

TEST_F(ErrorCodes, InvalidArgumentNamesTheOption) {
  const std::string path = amp::test::write_small_cnn(dir_);
  Options o = cpu();
  o.threads = -1;
  expect_error([&] { Engine::load(path, o); }, ErrorCode::kInvalidArgument, {"threads"});

  o = cpu();
  o.input_shapes["nope"] = {1, 3, 16, 16};
  expect_error([&] { Engine::load(path, o); }, ErrorCode::kInvalidArgument, {"'nope'"});

  o = cpu();
  o.precision = Precision::kFp16;
  o.emulate_low_precision = true;  // the AMP plan, even on a CPU without AMX
  o.policy_file = (dir_ / "policy.json").string();
  std::ofstream(o.policy_file) << "{ this is not json";
  expect_error([&] { Engine::load(path, o); }, ErrorCode::kInvalidArgument, {"policy.json"});
}

TEST_F(ErrorCodes, OutOfMemoryNamesTheLimit) {
  const std::string path = amp::test::write_small_cnn(dir_);
  Options o = cpu();
  o.memory_limit_bytes = 64;
  expect_error([&] { Engine::load(path, o); }, ErrorCode::kOutOfMemory, {"memory limit", "64"});
}

TEST_F(ErrorCodes, BackendFailureWhenCudaIsDemandedWithoutAGpu) {
  const std::string path = amp::test::write_small_cnn(dir_);
  Options o;
  o.backend = BackendKind::kCuda;
  try {
    Engine e = Engine::load(path, o);
    if (e.backend() == BackendKind::kCuda) GTEST_SKIP() << "a GPU is visible: " << e.backend_note();
    ADD_FAILURE() << "kCuda gave backend " << backend_kind_name(e.backend());
  } catch (const Error& e) {
    // CUDA built but no usable GPU: backend failure naming the GPU problem; no CUDA in
    // this build (AMP_ENABLE_CUDA=OFF): unsupported, saying so.
    if (e.code() == ErrorCode::kBackendFailure) {
      EXPECT_NE(e.message().find("GPU"), std::string::npos) << e.what();
    } else {
      EXPECT_EQ(e.code(), ErrorCode::kUnsupported) << e.what();
      EXPECT_NE(e.message().find("no CUDA backend"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace amp
