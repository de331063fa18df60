"""The Python samples: run.py end to end, and the Ray Serve deployment against a local Ray
instance (skipped with the reason when ray[serve] is not installed)."""
import concurrent.futures
import os
import pathlib
import socket
import subprocess
import sys

import numpy as np
import pytest

import amprt

SAMPLES = pathlib.Path(__file__).resolve().parents[2] / "samples" / "python"


@pytest.mark.parametrize("model", ["demo_bert_pytorch.onnx", "demo_resnet.amp"])
def test_run_py(demo, model):
    r = subprocess.run([sys.executable, str(SAMPLES / "run.py"), str(demo / model)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "first values" in r.stdout and "runs fp" in r.stdout


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_ray_serve_deployment_batches_and_answers_each_caller(demo):
    serve = pytest.importorskip("ray.serve", reason="ray[serve] is not installed")
    import ray

    model = str(demo / "demo_resnet.amp")
    os.environ["PYTHONPATH"] = f"{SAMPLES}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"
    sys.path.insert(0, str(SAMPLES))
    import ray_serve_app

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             runtime_env={"env_vars": {"PYTHONPATH": os.environ["PYTHONPATH"]}})
    try:
        serve.start(http_options={"host": "127.0.0.1", "port": free_port()})
        handle = serve.run(ray_serve_app.app_builder({"model": model, "precision": "fp32"}),
                           name="amprt", route_prefix=None)
        rows = np.random.default_rng(3).standard_normal((24, 3, 32, 32)).astype(np.float32)
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            got = list(pool.map(lambda r: handle.infer.remote(r).result(timeout_s=120), rows))
        want = amprt.Engine.load(model, precision="fp32").run({"image": rows})["logits"]
        np.testing.assert_allclose(np.stack(got), want, rtol=1e-5, atol=1e-6)
    finally:
        serve.shutdown()
        ray.shutdown()
