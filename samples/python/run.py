"""ONNX -> AMP -> run: python samples/python/run.py [MODEL.onnx]  (default: a demo model)"""
import pathlib
import sys

import numpy as np

import amprt

root = pathlib.Path(__file__).resolve().parents[2]
path = sys.argv[1] if len(sys.argv) > 1 else root / "build/demo/demo_bert_pytorch.onnx"
engine = amprt.Engine.load(path, precision="fp16")  # the AMP plan is decided here
print(f"{engine.device_name}: runs {engine.precision} {engine.precision_note}")
report = engine.precision_report()
if report:
    print(f"AMP: {report['nodes_low']} of {report['nodes']} nodes in {report['target']}, "
          f"{report['casts']} casts")
rng, inputs = np.random.default_rng(0), {}
for spec in engine.inputs:  # symbolic dims (batch, sequence) bound to 1
    shape = [d if isinstance(d, int) else 1 for d in spec.shape]
    floats = spec.dtype.kind == "f"
    inputs[spec.name] = rng.standard_normal(shape).astype(spec.dtype) if floats else np.ones(shape, spec.dtype)
for name, y in engine.run(inputs).items():
    print(f"{name}: {y.dtype}{list(y.shape)} first values {y.ravel()[:4]}")
