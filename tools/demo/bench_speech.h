// The speech-style recurrent models of tools/bench/bench_vs_ort.py, written as ONNX by
// `amp-make-demo-models DIR --bench-models` next to the encoders and detectors. None of the
// shared models has a recurrent layer, but acoustic models, voice-activity detectors and
// streaming recognizers are mostly LSTM / GRU stacks: their time goes to one small product
// per time step, a shape nothing else in the bench has. Written the way PyTorch's exporter
// writes nn.LSTM / nn.GRU with batch_first=True (opset 14): Transpose to time-major, one
// ONNX node per layer with Squeeze of the direction axis between layers, PyTorch's GRU as
// linear_before_reset=1, and a Linear head. Seeded random weights at PyTorch's
// initialization scale: speed, not accuracy, is measured. The frame count "T" is symbolic.
//
//   demo_speech_lstm.onnx  "features" [1,T,80] -> two LSTM layers of 256 units ->
//     "logits" [1,T,32]: one stream, as a streaming recognizer runs it.
//   demo_speech_gru.onnx   the same with two GRU layers of 256 units.
//   demo_speech_bilstm.onnx  "features" [4,T,80] -> one bidirectional LSTM layer of 256
//     units (directions concatenated as PyTorch does: Transpose and Reshape) -> "logits"
//     [4,T,32]: a batch of utterances, as an offline recognizer runs them.
//   demo_speech_bilstm512.onnx  "features" [1,T,80] -> two bidirectional LSTM layers of 512
//     units -> "logits" [1,T,32]: an offline encoder whose R (4 MiB a direction) exceeds a
//     core's L2, the case kernels/cpu/recurrent_schedule.h schedules differently.
#pragma once

#include "graph/ir/graph.h"

namespace amp::demo {

graph::Graph speech_lstm();
graph::Graph speech_gru();
graph::Graph speech_bilstm();
graph::Graph speech_bilstm512();

}  // namespace amp::demo
