// The CPU recurrent layers (kernels/cpu/recurrent.cc) in f32 against themselves in f64 on
// the same values. On a CPU with AVX2 and FMA, f32 with constant W and R runs the packed
// path (recurrent_packed.h: chunked input projection, packed GEMV per step, vectorized gate
// activations) while f64 keeps the direct loops the ONNX node tests hold to their
// references, so any difference in bias placement, gate order, direction, sequence lengths,
// layouts, initial states, peepholes, clip, coupled gates, linear_before_reset or
// non-default activations shows here. Sizes cross the packed pieces' edges: hidden sizes
// that fill no 64-column panel (20, 70), an odd input size, and more steps than one chunk
// of the input projection (37 > 32); batches with sequence_lens (a group per entry) and
// without (the batch in lockstep, whole or cut into groups of rows); one sequence (or one
// lockstep group) at 2-4 threads, which split its units between them (hidden sizes of 2 and 3
// blocks of 64 units), and directions whose R exceeds L2, run one after another. W and R are
// constants (initializers), as exported. W and R given as run-time inputs take the direct loops in
// both types, and are checked too. Under tests/tools/run_as_avx2_cpu.sh the same runs as on an
// AVX2-only CPU.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "graph/ir/graph_builder.h"
#include "kernels/cpu/recurrent_packed.h"
#include "tests/test_util/graph_runner.h"
#include "tests/test_util/node_tests.h"

namespace amp {
namespace {

using graph::Attributes;
using graph::GraphBuilder;
using graph::OpType;
using graph::TensorData;
using graph::ValueId;

struct Case {
  std::string label;
  OpType op;
  int64_t seq, batch, input, hidden;
  std::string direction = "forward";
  int64_t layout = 0;
  bool lens = false;     // sequence_lens 1 .. seq (and a 0)
  bool initial = false;  // initial_h (and initial_c)
  bool peepholes = false;
  float clip = 0.0f;
  bool input_forget = false;
  int64_t linear_before_reset = 0;
  std::vector<std::string> activations;  // empty: the defaults
  bool weights_as_inputs = false;
};

int gates(OpType op) {
  return op == OpType::kLSTM ? 4 : op == OpType::kGRU ? 3 : 1;
}

TensorData as(DType t, const std::vector<int64_t>& dims, const std::vector<double>& v) {
  if (t == DType::kF64) return TensorData::from_vector<double>(t, dims, v);
  return TensorData::from_vector<float>(t, dims, {v.begin(), v.end()});
}

std::vector<double> random_values(int64_t n, float scale, std::mt19937& gen) {
  std::uniform_real_distribution<float> u(-scale, scale);
  std::vector<double> v(static_cast<size_t>(n));
  for (double& x : v) x = u(gen);
  return v;
}

std::vector<TensorData> run(const Case& c, DType t, unsigned seed, int threads) {
  std::mt19937 gen(seed);
  const int64_t dirs = c.direction == "bidirectional" ? 2 : 1, g = gates(c.op);
  GraphBuilder b;
  std::map<std::string, TensorData> in;
  auto input = [&](const std::string& name, TensorData data) {
    const ValueId id = b.input(name, data.dtype(), graph::Shape::from_static(data.dims()));
    in[name] = std::move(data);
    return id;
  };
  auto weight = [&](const std::string& name, std::vector<int64_t> dims, float scale) {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    TensorData data = as(t, dims, random_values(n, scale, gen));
    return c.weights_as_inputs ? input(name, std::move(data)) : b.constant(name, std::move(data));
  };
  // PyTorch's initialization, U(-1/sqrt(H), 1/sqrt(H)): a trained layer's scale, under which
  // the recurrence does not amplify rounding (at 0.4 a 70-unit RNN did, 1e-5 to 1e-3 in 40
  // steps, in either path).
  const float init = 1.0f / std::sqrt(static_cast<float>(c.hidden));
  const std::vector<int64_t> x_dims = c.layout == 0 ? std::vector<int64_t>{c.seq, c.batch, c.input}
                                                    : std::vector<int64_t>{c.batch, c.seq, c.input};
  std::vector<ValueId> ins = {
      input("x", as(t, x_dims, random_values(c.seq * c.batch * c.input, 1.0f, gen))),
      weight("w", {dirs, g * c.hidden, c.input}, init),
      weight("r", {dirs, g * c.hidden, c.hidden}, init),
      weight("b", {dirs, 2 * g * c.hidden}, init)};
  if (c.lens) {
    std::vector<int32_t> lens(static_cast<size_t>(c.batch));
    for (int64_t i = 0; i < c.batch; ++i) lens[i] = static_cast<int32_t>((c.seq * i) / c.batch);
    lens.back() = static_cast<int32_t>(c.seq);  // one full, one empty (entry 0)
    ins.push_back(input("lens", TensorData::from_vector<int32_t>(DType::kI32, {c.batch}, lens)));
  } else {
    ins.push_back(graph::kNoValue);
  }
  const std::vector<int64_t> state = c.layout == 0 ? std::vector<int64_t>{dirs, c.batch, c.hidden}
                                                   : std::vector<int64_t>{c.batch, dirs, c.hidden};
  const int64_t state_n = dirs * c.batch * c.hidden;
  ins.push_back(c.initial ? input("h0", as(t, state, random_values(state_n, 1.0f, gen)))
                          : graph::kNoValue);
  if (c.op == OpType::kLSTM) {
    ins.push_back(c.initial ? input("c0", as(t, state, random_values(state_n, 1.0f, gen)))
                            : graph::kNoValue);
    if (c.peepholes) ins.push_back(weight("p", {dirs, 3 * c.hidden}, 0.5f));
  }
  while (!ins.empty() && ins.back() == graph::kNoValue) ins.pop_back();
  Attributes at;
  at.set("hidden_size", c.hidden);
  at.set("direction", c.direction);
  if (c.layout) at.set("layout", c.layout);
  if (c.clip > 0) at.set("clip", c.clip);
  if (c.input_forget) at.set("input_forget", int64_t{1});
  if (c.op == OpType::kGRU) at.set("linear_before_reset", c.linear_before_reset);
  if (!c.activations.empty()) at.set("activations", c.activations);
  const size_t outputs = c.op == OpType::kLSTM ? 3 : 2;
  for (ValueId out : b.node_multi(c.op, ins, outputs, at)) b.output(out);
  auto out = test::run_graph(b.build(), in, kernels::Backend::kCpu, threads);
  EXPECT_TRUE(out.is_ok()) << c.label << ": " << out.status().to_string();
  return out.is_ok() ? std::move(*out) : std::vector<TensorData>{};
}

const std::vector<Case>& cases() {
  using O = OpType;
  static const std::vector<Case> all = {
      {.label = "LSTM default", .op = O::kLSTM, .seq = 37, .batch = 2, .input = 13, .hidden = 70},
      {.label = "LSTM bidirectional, lengths, initial state",
       .op = O::kLSTM,
       .seq = 37,
       .batch = 3,
       .input = 13,
       .hidden = 20,
       .direction = "bidirectional",
       .lens = true,
       .initial = true},
      {.label = "LSTM reverse, batch-first",
       .op = O::kLSTM,
       .seq = 9,
       .batch = 2,
       .input = 5,
       .hidden = 64,
       .direction = "reverse",
       .layout = 1},
      {.label = "LSTM peepholes, clip, coupled gates",
       .op = O::kLSTM,
       .seq = 12,
       .batch = 2,
       .input = 7,
       .hidden = 20,
       .initial = true,
       .peepholes = true,
       .clip = 0.8f,
       .input_forget = true},
      {.label = "LSTM other activations",
       .op = O::kLSTM,
       .seq = 10,
       .batch = 1,
       .input = 6,
       .hidden = 20,
       .activations = {"HardSigmoid", "Relu", "Softsign"}},
      {.label = "GRU (PyTorch: linear_before_reset)",
       .op = O::kGRU,
       .seq = 37,
       .batch = 2,
       .input = 13,
       .hidden = 70,
       .direction = "bidirectional",
       .lens = true,
       .initial = true,
       .linear_before_reset = 1},
      {.label = "GRU (PyTorch), a batch in lockstep",
       .op = O::kGRU,
       .seq = 37,
       .batch = 3,
       .input = 13,
       .hidden = 70,
       .direction = "bidirectional",
       .initial = true,
       .linear_before_reset = 1},
      {.label = "GRU reset before the product",
       .op = O::kGRU,
       .seq = 33,
       .batch = 2,
       .input = 9,
       .hidden = 20,
       .layout = 1,
       .initial = true},
      {.label = "GRU clip",
       .op = O::kGRU,
       .seq = 8,
       .batch = 1,
       .input = 4,
       .hidden = 20,
       .direction = "reverse",
       .clip = 0.5f},
      {.label = "RNN default",
       .op = O::kRNN,
       .seq = 40,
       .batch = 2,
       .input = 11,
       .hidden = 70,
       .direction = "bidirectional",
       .lens = true,
       .initial = true},
      // One sequence, its units split between threads (3 blocks of 64: uneven at 2 threads).
      {.label = "LSTM one sequence",
       .op = O::kLSTM,
       .seq = 35,
       .batch = 1,
       .input = 9,
       .hidden = 150},
      {.label = "LSTM bidirectional, one sequence",
       .op = O::kLSTM,
       .seq = 35,
       .batch = 1,
       .input = 9,
       .hidden = 130,
       .direction = "bidirectional"},
      {.label = "GRU reset before the product, one sequence",
       .op = O::kGRU,
       .seq = 21,
       .batch = 1,
       .input = 9,
       .hidden = 150,
       .initial = true},
      {.label = "LSTM peepholes, clip, coupled gates, one sequence",
       .op = O::kLSTM,
       .seq = 12,
       .batch = 1,
       .input = 7,
       .hidden = 140,
       .initial = true,
       .peepholes = true,
       .clip = 0.8f,
       .input_forget = true},
      {.label = "RNN reverse, one sequence",
       .op = O::kRNN,
       .seq = 35,
       .batch = 1,
       .input = 7,
       .hidden = 130,
       .direction = "reverse"},
      // A batch in lockstep cut into groups of rows, one a thread (recurrent_schedule.h):
      // 9 entries as 4 + 5 at 2-4 threads, with teams of 2 on each group at 4.
      {.label = "GRU (PyTorch), a batch of 9 in groups of rows",
       .op = O::kGRU,
       .seq = 35,
       .batch = 9,
       .input = 13,
       .hidden = 70,
       .layout = 1,
       .initial = true,
       .linear_before_reset = 1},
      {.label = "LSTM bidirectional, a batch of 8 in groups of rows",
       .op = O::kLSTM,
       .seq = 34,
       .batch = 8,
       .input = 9,
       .hidden = 130,
       .direction = "bidirectional",
       .initial = true},
      // R of 7.8 MB a direction, past any core's L2: the directions run one after another,
      // each split between all threads (recurrent_schedule.h).
      {.label = "LSTM bidirectional, R past L2",
       .op = O::kLSTM,
       .seq = 5,
       .batch = 2,
       .input = 9,
       .hidden = 700,
       .direction = "bidirectional",
       .initial = true},
      {.label = "RNN relu",
       .op = O::kRNN,
       .seq = 8,
       .batch = 1,
       .input = 3,
       .hidden = 20,
       .activations = {"Relu"}},
      {.label = "LSTM, W and R as inputs",
       .op = O::kLSTM,
       .seq = 6,
       .batch = 2,
       .input = 5,
       .hidden = 20,
       .initial = true,
       .weights_as_inputs = true},
  };
  return all;
}

TEST(CpuRecurrent, F32MatchesF64InEveryConfiguration) {
  const unsigned seed = std::random_device{}();
  for (const Case& c : cases())
    for (int threads : {1, 2, 3, 4}) {
      std::ostringstream label;
      label << c.label << ", " << threads << " thread(s), seed " << seed;
      // f32 rounding carried through up to 40 steps of the recurrence.
      const std::string diff = test::compare_f32_with_f64(
          run(c, DType::kF64, seed, threads), run(c, DType::kF32, seed, threads), 1e-4, 1e-5);
      EXPECT_TRUE(diff.empty()) << label.str() << ": " << diff;
    }
}

// A run whose parallel region gets fewer threads than it asks for (here: inside another
// parallel region, where OpenMP does not nest) must not wait at a barrier for threads that
// never come: each sequence then runs on one thread, with the same results.
TEST(CpuRecurrent, OneSequenceInsideAnotherParallelRegion) {
  const Case c{.label = "LSTM one sequence",
               .op = OpType::kLSTM,
               .seq = 20,
               .batch = 1,
               .input = 9,
               .hidden = 150};
  const unsigned seed = 11;
  const std::vector<TensorData> want = run(c, DType::kF64, seed, 1);
  std::vector<std::vector<TensorData>> got(2);
#pragma omp parallel num_threads(2)
  { got[omp_get_thread_num()] = run(c, DType::kF32, seed, 2); }
  for (const std::vector<TensorData>& g : got)
    EXPECT_EQ(test::compare_f32_with_f64(want, g, 1e-4, 1e-5), "");
}

// What the packed path keeps is reported for the memory report: per direction and gate the
// input projection's panels and R's GEMV panels, plus R's GEMM panels when a batch can run
// in lockstep.
TEST(CpuRecurrent, PackedWeightsAreAllReported) {
  if (!kernels::cpu::PackedRecurrence::suits_this_cpu())
    GTEST_SKIP() << "this CPU has no AVX2 + FMA (the packed path's ISA)";
  kernels::RecurrentPlan p;
  p.kind = graph::RecurrentAttrs::kGru;
  p.gates = 3;
  p.directions = 2;
  p.input = 5;
  p.hidden = 8;
  const std::vector<float> w(2 * 3 * 8 * 5, 0.5f), r(2 * 3 * 8 * 8, 0.25f);
  for (int64_t batch : {1, 2}) {
    p.batch = batch;
    kernels::cpu::PackedRecurrence packed;
    packed.prepare(p, w.data(), nullptr, r.data(), nullptr);
    std::vector<kernels::HeldConstant> held;
    packed.held_constants(held);
    // Per direction and gate: W's panels, R's as a GEMV and, for a batch, R's as a GEMM.
    EXPECT_EQ(held.size(), static_cast<size_t>(2 * 3 * (batch >= 2 ? 3 : 2))) << "batch " << batch;
    for (const kernels::HeldConstant& c : held) EXPECT_GT(c.bytes, 0u);
  }
}

}  // namespace
}  // namespace amp
