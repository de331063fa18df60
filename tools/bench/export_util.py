"""What export_torchvision.py and export_transformers.py share: writing a folder's
test_data_set_0 and exporting each requested model through both PyTorch exporters."""
import os
import sys
import traceback
import warnings

import numpy as np
from onnx import numpy_helper


def write_tensor(path, array, name):
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(np.asarray(array), name).SerializeToString())


def write_test_data(folder, feeds, session, outputs):
    """feeds: {input name: array}; outputs: session.run's results for them."""
    data = os.path.join(folder, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    for i, (n, v) in enumerate(feeds.items()):
        write_tensor(os.path.join(data, f"input_{i}.pb"), v, n)
    for i, (o, v) in enumerate(zip(session.get_outputs(), outputs)):
        write_tensor(os.path.join(data, f"output_{i}.pb"), v, o.name)


def export_all(names, out, wanted, export):
    """export(name, exporter, folder) for each name in `wanted` (all when empty) and both
    exporters, skipping folders already written; an export that fails leaves EXPORT_FAILED
    with the exporter's reason and no model.onnx (the timing script takes every one)."""
    for name in names:
        if wanted and name not in wanted:
            continue
        for exporter in ("ts", "dynamo"):
            folder = os.path.join(out, f"{name}_{exporter}")
            if os.path.exists(os.path.join(folder, "test_data_set_0")):
                continue
            os.makedirs(folder, exist_ok=True)
            try:
                export(name, exporter, folder)
            except Exception as e:  # an architecture one exporter cannot take
                first = str(e).splitlines()[0][:200] if str(e) else ""
                print(f"{name}_{exporter}: not exported ({type(e).__name__}: {first})",
                      flush=True)
                with open(os.path.join(folder, "EXPORT_FAILED"), "w") as f:
                    f.write(traceback.format_exc())
                partial = os.path.join(folder, "model.onnx")
                if os.path.exists(partial):
                    os.remove(partial)


def main(doc, names, export):
    """The scripts' command line: OUT [model ...] (every model when none is named)."""
    if len(sys.argv) < 2:
        sys.exit(doc)
    warnings.filterwarnings("ignore")
    export_all(names, sys.argv[1], set(sys.argv[2:]), export)
