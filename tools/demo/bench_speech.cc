#include "tools/demo/bench_speech.h"

#include <cmath>
#include <string>
#include <vector>

#include "tools/demo/model_builder.h"

namespace amp::demo {
namespace {

using graph::Attributes;
using graph::Dim;
using graph::OpType;
using graph::Shape;
using graph::ValueId;

constexpr int64_t kFeatures = 80, kHidden = 256, kClasses = 32;
constexpr int64_t kLargeHidden = 512;  // demo_speech_bilstm512's layers

// "features" [batch, T, 80], time-major for the recurrent layers.
ValueId features(ModelBuilder& m, int64_t batch) {
  m.b().set_opset(14);
  ValueId x =
      m.b().input("features", DType::kF32, Shape({Dim(batch), Dim::symbolic("T"), Dim(kFeatures)}));
  return m.transpose(x, "to_time_major", {1, 0, 2});
}

// One recurrent layer (`gates` of them: LSTM 4, GRU 3) of `hidden` units over x [T, batch,
// input]: its Y [T, directions, batch, hidden].
ValueId recurrent_layer(ModelBuilder& m, OpType op, ValueId x, const std::string& name,
                        int64_t input, int64_t directions, int64_t hidden = kHidden) {
  const int64_t gates = op == OpType::kLSTM ? 4 : 3;
  const float s = 1.0f / std::sqrt(static_cast<float>(hidden));  // PyTorch's initialization
  Attributes a;
  a.set("hidden_size", hidden);
  if (directions == 2) a.set("direction", std::string("bidirectional"));
  if (op == OpType::kGRU) a.set("linear_before_reset", int64_t{1});
  const int outputs = op == OpType::kLSTM ? 3 : 2;
  return m.b().node_multi(op,
                          {x, m.weight(name + ".W", {directions, gates * hidden, input}, s),
                           m.weight(name + ".R", {directions, gates * hidden, hidden}, s),
                           m.weight(name + ".B", {directions, 2 * gates * hidden}, s)},
                          outputs, a, name)[0];
}

// Y [T, 1, batch, H] -> [T, batch, H].
ValueId squeeze_direction(ModelBuilder& m, ValueId y, const std::string& name) {
  return m.b().node(OpType::kSqueeze, {y, m.ints(name + ".axes", {1})}, {}, name);
}

// y [T, batch, width] -> "logits" [batch, T, 32].
graph::Graph head(ModelBuilder& m, ValueId y, int64_t width) {
  y = m.transpose(y, "to_batch_major", {1, 0, 2});
  ValueId logits = m.linear(y, "head", width, kClasses);
  m.b().rename(logits, "logits");
  m.b().output(logits);
  return m.b().build();
}

graph::Graph two_layers(OpType op, uint64_t seed) {
  ModelBuilder m(seed);
  ValueId x = features(m, 1);
  x = squeeze_direction(m, recurrent_layer(m, op, x, "rnn.0", kFeatures, 1), "rnn.0.squeeze");
  x = squeeze_direction(m, recurrent_layer(m, op, x, "rnn.1", kHidden, 1), "rnn.1.squeeze");
  return head(m, x, kHidden);
}

}  // namespace

graph::Graph speech_lstm() {
  return two_layers(OpType::kLSTM, 1601);
}

graph::Graph speech_gru() {
  return two_layers(OpType::kGRU, 1602);
}

// A bidirectional LSTM layer of `hidden` units over x [T, batch, input]: [T, batch, 2 hidden].
ValueId bilstm_layer(ModelBuilder& m, ValueId x, const std::string& name, int64_t input,
                     int64_t hidden) {
  ValueId y = recurrent_layer(m, OpType::kLSTM, x, name, input, 2, hidden);
  // [T, 2, batch, H] -> [T, batch, 2, H] -> [T, batch, 2H]: forward and backward side by side.
  y = m.transpose(y, name + ".directions_last", {0, 2, 1, 3});
  return m.reshape(y, name + ".concat_directions", {0, 0, -1});
}

graph::Graph speech_bilstm() {
  constexpr int64_t kBatch = 4;
  ModelBuilder m(1603);
  return head(m, bilstm_layer(m, features(m, kBatch), "rnn", kFeatures, kHidden), 2 * kHidden);
}

graph::Graph speech_bilstm512() {
  ModelBuilder m(1604);
  ValueId x = bilstm_layer(m, features(m, 1), "rnn.0", kFeatures, kLargeHidden);
  x = bilstm_layer(m, x, "rnn.1", 2 * kLargeHidden, kLargeHidden);
  return head(m, x, 2 * kLargeHidden);
}

}  // namespace amp::demo
