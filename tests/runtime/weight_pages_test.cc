// Pages of a mapped .amp file that no kernel reads at run time go back to the OS
// (runtime/weight_pages.h); what kernels read stays resident, and a page dropped and read
// again (a new plan packing the weight for other shapes) comes back unchanged.
#include "runtime/weight_pages.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "amp/engine.h"
#include "graph/ir/graph_builder.h"
#include "graph/serialize/amp_writer.h"
#include "graph/serialize/mapped_file.h"
#include "tests/test_util/scratch_dir.h"
#include "tests/test_util/test_models.h"

namespace amp {
namespace {

namespace fs = std::filesystem;
using graph::Dim;
using graph::GraphBuilder;
using graph::OpType;
using graph::Shape;

constexpr int64_t kK = 256, kN = 256;        // W [K, N]: 256 KiB, packed by the MatMul
constexpr int64_t kRows = 1024, kCols = 64;  // E [rows, cols]: 256 KiB, read by a Gather

// Resident bytes of `path`'s mappings in this process (/proc/self/smaps).
size_t resident_bytes_of(const std::string& path) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool ours = false;
  size_t kib = 0;
  while (std::getline(smaps, line)) {
    // A mapping's header ("start-end perms offset dev inode path") starts with an address
    // range; its fields ("Rss:   12 kB") start with a name ending in ':'.
    const std::string first = line.substr(0, line.find(' '));
    if (!first.empty() && first.back() != ':') {
      ours = line.size() >= path.size() &&
             line.compare(line.size() - path.size(), path.size(), path) == 0;
      continue;
    }
    if (ours && line.rfind("Rss:", 0) == 0) kib += std::stoul(line.substr(4));
  }
  return kib * 1024;
}

class WeightPages : public ::testing::Test {
 protected:
  void SetUp() override {
    w_ = test::random_f32({kK, kN}, 1.0f, 11);
    e_ = test::random_f32({kRows, kCols}, 1.0f, 12);
    GraphBuilder b;
    auto x = b.input("x", DType::kF32, Shape({Dim::symbolic("M"), kK}));
    auto y = b.node(OpType::kMatMul, {x, b.constant("W", w_)}, {}, "matmul");
    b.rename(y, "y");
    b.output(y);
    auto idx = b.input("idx", DType::kI64, Shape({4}));
    auto e = b.node(OpType::kGather, {b.constant("E", e_), idx}, {}, "embed");
    b.rename(e, "e");
    b.output(e);
    path_ = fs::canonical(dir_).string() + "/model.amp";
    ASSERT_TRUE(graph::write_amp_file(b.build(), path_).is_ok());
  }

  // `b`'s graph written to <dir>/<name>.amp (its path in `path`) and loaded on the CPU.
  Engine write_and_load(GraphBuilder& b, const std::string& name, std::string& path) {
    path = fs::canonical(dir_).string() + "/" + name + ".amp";
    EXPECT_TRUE(graph::write_amp_file(b.build(), path).is_ok());
    Options o;
    o.backend = BackendKind::kCpu;
    return Engine::load(path, o);
  }

  // Runs M rows of x and checks y = x W and e = E[idx] against the host.
  void run_and_check(Engine& engine, int64_t m) {
    std::vector<float> x(static_cast<size_t>(m * kK));
    for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.1f * static_cast<float>(i));
    const std::vector<int64_t> idx = {0, 513, 1023, 7};
    std::vector<Tensor> out =
        engine.run({{"x", Tensor::from(x, {m, kK})}, {"idx", Tensor::from(idx, {4})}});
    ASSERT_EQ(out.size(), 2u);
    const float* w = w_.data<float>();
    const float* y = out[0].data<float>();
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < kN; ++j) {
        double want = 0;
        for (int64_t k = 0; k < kK; ++k) want += double(x[i * kK + k]) * w[k * kN + j];
        ASSERT_NEAR(y[i * kN + j], want, 1e-3 * (1 + std::abs(want))) << i << "," << j;
      }
    const float* e = out[1].data<float>();
    for (size_t r = 0; r < idx.size(); ++r)
      for (int64_t c = 0; c < kCols; ++c)
        ASSERT_EQ(e[r * kCols + c], e_.data<float>()[idx[r] * kCols + c]);
  }

  test::ScratchDir scratch_{"amp_weight_pages"};
  const fs::path dir_ = scratch_.path();
  std::string path_;
  graph::TensorData w_, e_;
};

TEST_F(WeightPages, PackedWeightsLeaveTheResidentSetAndWhatRunsReadStays) {
  Options o;
  o.backend = BackendKind::kCpu;
  Engine engine = Engine::load(path_, o);
  run_and_check(engine, 8);
  run_and_check(engine, 8);

  const size_t page = graph::MappedFile::page_size();
  const size_t w_bytes = w_.byte_size(), e_bytes = e_.byte_size();
  const size_t file_bytes = fs::file_size(path_);
  const MemoryReport mem = engine.memory();
  EXPECT_GT(mem.packed_weights_bytes, 0u) << "the MatMul should pack W";
  // W's pages (all but the two it may share with its neighbours) went back; E's stayed.
  EXPECT_GE(mem.model_file_released_bytes, w_bytes - 2 * page);
  EXPECT_LE(mem.model_file_released_bytes, file_bytes - e_bytes);
  // Resident now: at most E and the pages around it, never W.
  const size_t resident = resident_bytes_of(path_);
  EXPECT_LE(resident, e_bytes + 2 * page) << "resident " << resident;

  // New shapes: a new plan packs W again from the file (its pages fault back in, unchanged),
  // then they are handed back again.
  run_and_check(engine, 3);
  run_and_check(engine, 8);
  EXPECT_GE(engine.memory().model_file_released_bytes, w_bytes - 2 * page);
  EXPECT_LE(resident_bytes_of(path_), e_bytes + 2 * page);
}

TEST_F(WeightPages, AConstantThatRunsReadIsNotReleased) {
  GraphBuilder b;
  auto idx = b.input("idx", DType::kI64, Shape({4}));
  auto e = b.node(OpType::kGather, {b.constant("E", e_), idx}, {}, "embed");
  b.rename(e, "e");
  b.output(e);
  std::string path;
  Engine engine = write_and_load(b, "gather", path);
  const std::vector<int64_t> idx_v = {1, 2, 3, 4};
  (void)engine.run({{"idx", Tensor::from(idx_v, {4})}});
  // E is read by the Gather at run time: only the file's other pages (its FlatBuffer
  // tables, less than E) may go.
  EXPECT_LT(engine.memory().model_file_released_bytes, e_.byte_size());
}

// A tied embedding: the MatMul packs T, the Gather reads it at run time. T must stay
// resident whole (no page faults in the runs), not be dropped when the MatMul is prepared.
TEST_F(WeightPages, ATiedWeightThatARunReadsStaysResident) {
  GraphBuilder b;
  auto x = b.input("x", DType::kF32, Shape({8, kK}));
  auto t = b.constant("T", w_);  // [K, N]
  auto y = b.node(OpType::kMatMul, {x, t}, {}, "lm_head");
  b.rename(y, "y");
  b.output(y);
  auto idx = b.input("idx", DType::kI64, Shape({2}));
  auto e = b.node(OpType::kGather, {t, idx}, {}, "embed");
  b.rename(e, "e");
  b.output(e);
  std::string path;
  Engine engine = write_and_load(b, "tied", path);
  // Packing read all of T at load (the plan is built then: the shapes are static) and,
  // since the Gather reads T at run time, nothing dropped it. (Measured before any run: a
  // run's page faults map neighbouring pages too, 64 KiB around each, which would blur it.)
  const size_t page = graph::MappedFile::page_size();
  EXPECT_GE(resident_bytes_of(path), w_.byte_size() - 2 * page);
  EXPECT_LT(engine.memory().model_file_released_bytes, w_.byte_size() / 2);
  const std::vector<float> xv(8 * kK, 0.25f);
  const std::vector<int64_t> iv = {3, 200};
  std::vector<Tensor> out =
      engine.run({{"x", Tensor::from(xv, {8, kK})}, {"idx", Tensor::from(iv, {2})}});
  ASSERT_EQ(out.size(), 2u);
  for (int64_t c = 0; c < kN; ++c)
    ASSERT_EQ(out[1].data<float>()[kN + c], w_.data<float>()[200 * kN + c]);
  EXPECT_GT(engine.memory().packed_weights_bytes, 0u);
}

}  // namespace
}  // namespace amp
