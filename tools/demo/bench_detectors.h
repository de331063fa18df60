// The CNN detectors of tools/bench/bench_vs_ort.py, written as ONNX by
// `amp-make-demo-models DIR --bench-models` next to the BERT-style encoders. Issue 14
// measured amprun slowest on exactly these kinds of model; the shared models have none
// of their layers (channel shuffle, Split halves, nearest upsampling with Concat or Add,
// depthwise 5x5, ConvTranspose). Seeded random weights: speed, not accuracy, is measured.
//
//   demo_shuffle_yolo.onnx  a YOLO-FastestV2-style detector, "image" [1,3,352,352]: a
//     ShuffleNetV2 backbone (channel split as Split, channel shuffle as Reshape ->
//     Transpose -> Reshape, as torchvision's export writes it) with stages of 48/96/192
//     channels, a light FPN (1x1 convs, Resize nearest 2x, Concat) and per scale a
//     depthwise 5x5 head with 1x1 box / objectness / class convs; outputs "p4" [1,95,22,22]
//     and "p5" [1,95,11,11].
//   demo_db_text_det.onnx  a DB text detector as PaddleOCR's ch_ppocr_mobile det exports
//     it, "image" [1,3,640,640]: MobileNetV3-large x0.5 (depthwise 3x3 / 5x5, HardSwish,
//     squeeze-and-excitation with HardSigmoid), a DB-FPN (1x1 convs to 96 channels, nearest
//     upsampling added top-down, 3x3 convs to 24 channels upsampled 8/4/2x and
//     concatenated), and the DB head (3x3 conv, two 2x2 stride-2 ConvTransposes, Sigmoid);
//     output "maps" [1,1,640,640].
//   demo_yolov8n.onnx  YOLOv8n as Ultralytics exports it (bench_yolov8.cc), "images"
//     [1,3,320,320]: convs with SiLU as Sigmoid and Mul, C2f blocks (Split halves,
//     bottlenecks, Concat), SPPF (three 5x5 stride-1 MaxPools), a PAN with nearest
//     upsampling, and the decoded head (DFL softmax, anchors, strides); output "output0"
//     [1,84,2100].
#pragma once

#include <cstdint>

#include "graph/ir/graph.h"

namespace amp::demo {

graph::Graph shuffle_yolo();
graph::Graph db_text_detector();
graph::Graph yolov8n(int64_t image);

}  // namespace amp::demo
