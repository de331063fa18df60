// Backend selection, the numerics check and run-time size limits through the public API,
// on whatever machine runs the suite (CI has no GPU: auto must pick the CPU and say why).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "amp/engine.h"
#include "tests/test_util/scratch_dir.h"
#include "tests/test_util/test_models.h"

namespace amp {
namespace {

namespace fs = std::filesystem;

class RuntimeSafety : public ::testing::Test {
 protected:
  test::ScratchDir scratch_{"amp_runtime_safety"};
  const fs::path dir_ = scratch_.path();
};

ErrorCode code_of(const std::function<void()>& f, std::string* message = nullptr) {
  try {
    f();
  } catch (const Error& e) {
    if (message) *message = e.message();
    return e.code();
  }
  return ErrorCode::kOk;
}

TEST_F(RuntimeSafety, AutoPicksAUsableBackendAndSaysWhy) {
  const std::string path = test::write_small_cnn(dir_);
  Engine engine = Engine::load(path, {});
  EXPECT_NE(engine.backend(), BackendKind::kAuto);
  EXPECT_FALSE(engine.backend_note().empty());
  std::vector<float> x(2 * 3 * 16 * 16, 0.5f);
  auto out = engine.run({{"x", Tensor::from(x, {2, 3, 16, 16})}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{2, 10}));

  Options cuda;
  cuda.backend = BackendKind::kCuda;
  std::string msg;
  const ErrorCode code = code_of([&] { Engine::load(path, cuda); }, &msg);
  if (engine.backend() == BackendKind::kCpu) {
    // No usable GPU (or no CUDA in this build): asking for CUDA is a clear error, not a crash.
    EXPECT_TRUE(code == ErrorCode::kBackendFailure || code == ErrorCode::kUnsupported) << msg;
    EXPECT_TRUE(msg.find("no GPU") != std::string::npos ||
                msg.find("no CUDA backend") != std::string::npos)
        << msg;
  } else {
    EXPECT_EQ(code, ErrorCode::kOk) << msg;
  }
}

TEST_F(RuntimeSafety, CheckNumericsNamesTheFp16NodeThatOverflowed) {
  const std::string path = test::write_overflow_model(dir_);
  const Tensor x = Tensor::from(std::vector<float>(4, 100.f), {1, 4});
  Options opt;
  opt.backend = BackendKind::kCpu;
  opt.precision = Precision::kFp16;
  opt.emulate_low_precision = true;  // the AMP plan, even on a CPU without AMX

  // Without the check the overflow is silent: fp16 Inf comes out (cast back to fp32).
  std::vector<Tensor> out = Engine::load(path, opt).run({{"x", x}});
  EXPECT_TRUE(std::isinf(out[0].to_float_vector()[0]));

  opt.check_numerics = true;
  std::string msg;
  EXPECT_EQ(code_of(
                [&] {
                  Engine::load(path, opt).run({{"x", x}});
                },
                &msg),
            ErrorCode::kNumericOverflow);
  EXPECT_NE(msg.find("big_matmul"), std::string::npos) << msg;
  EXPECT_NE(msg.find("f16"), std::string::npos) << msg;
  EXPECT_NE(msg.find("\"NEVER\""), std::string::npos) << msg;

  // Pinning the node to fp32, as the message says, fixes it.
  opt.precision_callback = [](const NodeInfo& n) {
    return n.name == "big_matmul" ? NodePrecision::kFp32 : NodePrecision::kDefault;
  };
  out = Engine::load(path, opt).run({{"x", x}});
  EXPECT_FLOAT_EQ(out[0].to_float_vector()[0], 120000.f);

  // bf16 has fp32's range: no overflow.
  opt.precision_callback = nullptr;
  opt.precision = Precision::kBf16;
  opt.emulate_low_precision = true;  // the AMP plan, even on a CPU without AMX
  out = Engine::load(path, opt).run({{"x", x}});
  EXPECT_TRUE(std::isfinite(out[0].to_float_vector()[0]));
}

// The overflowing node writes over its own input (an in-place Mul): its inputs must be
// judged before it runs, or the Inf it made looks like an Inf it was given.
TEST_F(RuntimeSafety, CheckNumericsFindsAnOverflowInAnInPlaceNode) {
  const std::string path = test::write_inplace_overflow_model(dir_);
  Options opt;
  opt.backend = BackendKind::kCpu;
  opt.precision = Precision::kFp16;
  opt.emulate_low_precision = true;  // the AMP plan, even on a CPU without AMX
  opt.check_numerics = true;
  std::string msg;
  EXPECT_EQ(
      code_of(
          [&] {
            Engine::load(path, opt).run({{"x", Tensor::from(std::vector<float>(4, 1.f), {1, 4})}});
          },
          &msg),
      ErrorCode::kNumericOverflow);
  EXPECT_NE(msg.find("scale_mul"), std::string::npos) << msg;
}

TEST_F(RuntimeSafety, NanInputsPropagateWithoutBeingReportedAsOverflow) {
  const std::string path = test::write_overflow_model(dir_);
  Options opt;
  opt.backend = BackendKind::kCpu;
  opt.precision = Precision::kFp16;
  opt.emulate_low_precision = true;  // the AMP plan, even on a CPU without AMX
  opt.check_numerics = true;
  const Tensor x = Tensor::from(std::vector<float>{NAN, 0.f, 0.f, 0.f}, {1, 4});
  std::vector<Tensor> out = Engine::load(path, opt).run({{"x", x}});
  for (float v : out[0].to_float_vector()) EXPECT_TRUE(std::isnan(v));
}

TEST_F(RuntimeSafety, HugeShapesFromInputValuesAreRefusedBeforeAllocating) {
  const std::string path = test::write_expand_model(dir_);
  Options opt;
  opt.backend = BackendKind::kCpu;
  Engine engine = Engine::load(path, opt);
  const Tensor x = Tensor::from(std::vector<float>{1.f}, {1});

  auto out = engine.run({{"x", x}, {"shape", Tensor::from(std::vector<int64_t>{2, 3}, {2})}});
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{2, 3}));

  // 2^50 elements: refused by the per-tensor limit, naming the value.
  std::string msg;
  EXPECT_EQ(
      code_of(
          [&] {
            engine.run(
                {{"x", x}, {"shape", Tensor::from(std::vector<int64_t>{1 << 25, 1 << 25}, {2})}});
          },
          &msg),
      ErrorCode::kOutOfMemory);
  EXPECT_NE(msg.find("'y'"), std::string::npos) << msg;

  // 2^60: the element count overflows int64 arithmetic paths; still a clean error.
  EXPECT_NE(
      code_of([&] {
        engine.run({{"x", x},
                    {"shape",
                     Tensor::from(std::vector<int64_t>{int64_t{1} << 30, int64_t{1} << 30}, {2})}});
      }),
      ErrorCode::kOk);

  // 16 GiB: under the per-tensor limit, over this engine's memory cap.
  opt.memory_limit_bytes = size_t{1} << 30;
  Engine capped = Engine::load(path, opt);
  EXPECT_EQ(code_of([&] {
              capped.run(
                  {{"x", x}, {"shape", Tensor::from(std::vector<int64_t>{1 << 16, 1 << 16}, {2})}});
            }),
            ErrorCode::kOutOfMemory);
  // The engine stays usable afterwards.
  out = capped.run({{"x", x}, {"shape", Tensor::from(std::vector<int64_t>{4, 4}, {2})}});
  EXPECT_EQ(out[0].numel(), 16);
}

TEST_F(RuntimeSafety, MemoryLimitBelowTheWeightsFailsAtLoad) {
  const std::string path = test::write_small_cnn(dir_);
  Options opt;
  opt.backend = BackendKind::kCpu;
  opt.memory_limit_bytes = 1024;
  std::string msg;
  EXPECT_EQ(code_of([&] { Engine::load(path, opt); }, &msg), ErrorCode::kOutOfMemory);
  EXPECT_NE(msg.find("memory limit"), std::string::npos) << msg;
}

TEST_F(RuntimeSafety, RunTimingsAreReported) {
  const std::string path = test::write_small_cnn(dir_);
  Engine engine = Engine::load(path, {});
  ExecutionContext ctx = engine.create_context();
  std::vector<float> x(3 * 16 * 16, 0.25f);
  ctx.run({{"x", Tensor::from(x, {1, 3, 16, 16})}});
  const RunTimings t = ctx.last_run_timings();
  EXPECT_GT(t.total, 0.0);
  EXPECT_GE(t.total + 1e-9, t.compute);
}

}  // namespace
}  // namespace amp
