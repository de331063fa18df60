"""Fixtures for the amp-serve integration tests: a generated model repository and a running
amp-serve on loopback ports it picks itself (port 0), driven by the real tritonclient.

The binaries come from the environment (tests/serve/run_pytest.sh sets them from CMake):
AMP_SERVE (amp-serve) and AMP_MAKE_DEMO (amp-make-demo-models)."""
import json
import os
import re
import signal
import subprocess
import time

import pytest

AMP_SERVE = os.environ.get("AMP_SERVE", "")
AMP_MAKE_DEMO = os.environ.get("AMP_MAKE_DEMO", "")


class Server:
    """One amp-serve process; `http`, `grpc`, `metrics` are its "host:port" addresses."""

    def __init__(self, repository, *extra):
        self.proc = subprocess.Popen(
            [AMP_SERVE, "--model-repository", str(repository), "--host", "127.0.0.1",
             "--http-port", "0", "--grpc-port", "0", "--metrics-port", "0", *extra],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.log = []
        deadline = time.time() + 60
        while time.time() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                break
            self.log.append(line)
            m = re.search(r"listening http=(-?\d+) grpc=(-?\d+) metrics=(-?\d+)", line)
            if m:
                self.http, self.grpc, self.metrics = (f"127.0.0.1:{p}" for p in m.groups())
                return
        self.proc.kill()
        raise RuntimeError("amp-serve did not start:\n" + "".join(self.log))

    def terminate(self, timeout=60):
        """SIGTERM; returns (exit code, the rest of its output)."""
        self.proc.send_signal(signal.SIGTERM)
        out, _ = self.proc.communicate(timeout=timeout)
        self.log.append(out)
        return self.proc.returncode, out

    def stop(self):
        if self.proc.poll() is None:
            self.terminate()


def write_model(repository, name, model_file, config):
    d = repository / name
    d.mkdir()
    (d / "model.amp").write_bytes(model_file.read_bytes())
    if config is not None:
        (d / "config.json").write_text(json.dumps(config))


@pytest.fixture(scope="session")
def demo_models(tmp_path_factory):
    if not AMP_SERVE or not AMP_MAKE_DEMO:
        pytest.skip("AMP_SERVE / AMP_MAKE_DEMO not set (run through tests/serve/run_pytest.sh)")
    out = tmp_path_factory.mktemp("demo")
    subprocess.run([AMP_MAKE_DEMO, str(out)], check=True, stdout=subprocess.DEVNULL)
    return out


@pytest.fixture(scope="session")
def repository(demo_models, tmp_path_factory):
    """cnn: the demo CNN with dynamic batching; cnn_single: the same model, one request per
    run (the reference); transformer: int64 tokens; slow: BERT-sized, a queue of one."""
    repo = tmp_path_factory.mktemp("repo")
    cnn = demo_models / "demo_resnet.amp"
    write_model(repo, "cnn", cnn, {"max_batch_size": 16, "max_queue_delay_us": 2000,
                                   "instances": 1})
    write_model(repo, "cnn_single", cnn, {"max_batch_size": 0})
    write_model(repo, "transformer", demo_models / "demo_transformer.amp", None)
    write_model(repo, "slow", demo_models / "demo_bert_pytorch.amp",
                {"max_batch_size": 0, "max_queue": 1, "instances": 1})
    return repo


@pytest.fixture(scope="session")
def server(repository):
    s = Server(repository, "--max-body-mb", "1")
    yield s
    s.stop()
