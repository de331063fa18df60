#!/usr/bin/env python3
"""torchvision's models exported the way users export them, for side-by-side checks.

Writes OUT/<model>_<exporter>/model.onnx and test_data_set_0/ (the inputs and ONNX Runtime's
outputs for them) for classification, segmentation, video and detection architectures, each
with random weights (no downloads), through both PyTorch exporters: "ts" (TorchScript,
opset 17) and "dynamo" (torch.export; the detectors' data-dependent control flow does not
export that way, and those are skipped with the exporter's reason). Detectors keep every
box (score threshold 0), so their NMS and per-class selections see full sizes.

Then, for each folder: amp-convert, and amprun against the reference outputs, or the timing
script next to ONNX Runtime:

  python3 tools/bench/export_torchvision.py /tmp/tv [resnet50 ssdlite ...]
  python3 tools/bench/bench_vs_ort.py --models /tmp/tv --amprun build/tools/amprun/amprun \
      --threads 1 --runs 10 --rounds 3

Needs torch, torchvision, onnx, onnxscript and onnxruntime from PyPI. They are not
dependencies of AMPRT's build or tests (torch with its CUDA wheels is several GB), so the
test command does not install them: pip install torch torchvision onnxscript.
Random weights make the outputs of some models degenerate (vanishing or exploding
activations, tied detector scores), so this checks conversion, kernels and speed; AMP
accuracy needs trained weights.
"""
import os

import numpy as np
import onnx
import onnxruntime as ort
import torch
import torchvision
import export_util
from export_util import write_test_data

M = torchvision.models


def image(h=224, w=224):
    return (torch.rand(1, 3, h, w),)


def detector_image():
    return ([torch.rand(3, 320, 320)],)


MODELS = {
    "resnet50": (lambda: M.resnet50(), image),
    "mobilenet_v3_large": (lambda: M.mobilenet_v3_large(), image),
    "efficientnet_b0": (lambda: M.efficientnet_b0(), image),
    "convnext_tiny": (lambda: M.convnext_tiny(), image),
    "swin_t": (lambda: M.swin_t(), image),
    "regnet_y_400mf": (lambda: M.regnet_y_400mf(), image),
    "densenet121": (lambda: M.densenet121(), image),
    "shufflenet_v2": (lambda: M.shufflenet_v2_x1_0(), image),
    "googlenet": (lambda: M.googlenet(aux_logits=False, init_weights=True), image),
    "inception_v3": (lambda: M.inception_v3(aux_logits=False, init_weights=True),
                     lambda: image(299, 299)),
    "vit_b_32": (lambda: M.vit_b_32(), image),
    "maxvit_t": (lambda: M.maxvit_t(), image),
    "deeplabv3_mbv3": (lambda: M.segmentation.deeplabv3_mobilenet_v3_large(weights_backbone=None),
                       lambda: image(256, 256)),
    "lraspp_mbv3": (lambda: M.segmentation.lraspp_mobilenet_v3_large(weights_backbone=None),
                    lambda: image(256, 256)),
    "fcn_resnet50": (lambda: M.segmentation.fcn_resnet50(weights_backbone=None),
                     lambda: image(256, 256)),
    "r3d_18": (lambda: M.video.r3d_18(), lambda: (torch.rand(1, 3, 8, 112, 112),)),
    "ssdlite": (lambda: M.detection.ssdlite320_mobilenet_v3_large(weights_backbone=None),
                detector_image),
    "fasterrcnn_mbv3": (lambda: M.detection.fasterrcnn_mobilenet_v3_large_320_fpn(
        weights_backbone=None, box_score_thresh=0.0), detector_image),
    "retinanet": (lambda: M.detection.retinanet_resnet50_fpn(
        weights_backbone=None, score_thresh=0.0), detector_image),
    "fcos": (lambda: M.detection.fcos_resnet50_fpn(weights_backbone=None, score_thresh=0.0),
             detector_image),
    "maskrcnn": (lambda: M.detection.maskrcnn_resnet50_fpn(
        weights_backbone=None, box_score_thresh=0.0), detector_image),
    "keypointrcnn": (lambda: M.detection.keypointrcnn_resnet50_fpn(
        weights_backbone=None, box_score_thresh=0.0), detector_image),
}



def export(name, make, inputs, exporter, folder):
    torch.manual_seed(0)
    model = make().eval()
    args = inputs()
    path = os.path.join(folder, "model.onnx")
    if exporter == "ts":
        torch.onnx.export(model, args, path, opset_version=17, dynamo=False)
    else:
        torch.onnx.export(model, args, path, dynamo=True, external_data=False)
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    flat = []
    for a in args:
        flat += a if isinstance(a, list) else [a]
    feeds = {i.name: t.numpy() for i, t in zip(session.get_inputs(), flat)}
    outputs = session.run(None, feeds)
    write_test_data(folder, feeds, session, outputs)
    graph = onnx.load(path).graph
    print(f"{name}_{exporter}: {len(graph.node)} nodes, outputs "
          f"{[np.asarray(v).shape for v in outputs]}", flush=True)


if __name__ == "__main__":
    export_util.main(
        __doc__, MODELS,
        lambda name, exporter, folder: export(name, *MODELS[name], exporter, folder))
