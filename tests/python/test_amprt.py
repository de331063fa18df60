"""The Python package amprt against the C++ API: the same outputs bit for bit (through
amprun), threads sharing one engine, every bad input raising the right amprt error, no
leaks over 1000 runs, and the GIL released while a model runs."""
import gc
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import amprt

RNG = np.random.default_rng(11)


def random_inputs(engine, batch=2):
    inputs = {}
    for spec in engine.inputs:
        shape = [batch if not isinstance(d, int) else d for d in spec.shape]
        if np.issubdtype(spec.dtype, np.integer):
            inputs[spec.name] = RNG.integers(0, 16, size=shape).astype(spec.dtype)
        elif spec.dtype == np.bool_:
            inputs[spec.name] = RNG.integers(0, 2, size=shape).astype(bool)
        else:
            inputs[spec.name] = RNG.standard_normal(shape).astype(spec.dtype)
    if "attention_mask" in inputs:
        inputs["attention_mask"][:] = 1
    return inputs


def amprun_outputs(amprun, model, inputs, tmp_path, *flags):
    """What the C++ API computes for `inputs`: amprun run on them, its outputs read back."""
    in_dir, out_dir = tmp_path / "in", tmp_path / "out"
    in_dir.mkdir()
    for i, (name, x) in enumerate(inputs.items()):
        amprt.save_tensor_pb(in_dir / f"input_{i}.pb", x, name)
    subprocess.run([amprun, "--model", str(model), "--inputs", str(in_dir), "--save-outputs",
                    str(out_dir), "--iterations", "1", "--warmup", "0", "--threads", "1",
                    *flags], check=True, stdout=subprocess.DEVNULL)
    return [amprt.load_tensor_pb(out_dir / f"output_{i}.pb")
            for i in range(len(list(out_dir.glob("output_*.pb"))))]


@pytest.mark.parametrize("model,precision,flags", [
    ("demo_resnet.amp", "fp32", []),
    ("demo_transformer.amp", "fp32", []),
    ("demo_bert_pytorch.onnx", "fp32", []),
    ("demo_resnet.amp", "fp16", ["--emulate-low-precision", "1"]),
    ("demo_bert_fused.amp", "bf16", ["--emulate-low-precision", "1"]),
])
def test_outputs_equal_the_cpp_api_bit_for_bit(demo, amprun, tmp_path, model, precision, flags):
    engine = amprt.Engine.load(demo / model, precision=precision, threads=1,
                               emulate_low_precision=bool(flags))
    inputs = random_inputs(engine)
    got = engine.run(inputs)
    want = amprun_outputs(amprun, demo / model, inputs, tmp_path, "--precision", precision, *flags)
    assert len(want) == len(engine.outputs)
    for spec, w in zip(engine.outputs, want):
        np.testing.assert_array_equal(got[spec.name], w, err_msg=spec.name)


@pytest.mark.parametrize("name", ["mnist-8", "ultraface-version-slim-320",
                                  "ch_ppocr_mobile_v2.0_cls_infer"])
def test_shared_models_equal_the_cpp_api(shared, amprun, tmp_path, name):
    model = shared / "models" / name / "model.onnx"
    data = shared / "models" / name / "test_data_set_0"
    engine = amprt.Engine.load(model, precision="fp32", threads=1)
    inputs = {spec.name: amprt.load_tensor_pb(data / f"input_{i}.pb")
              for i, spec in enumerate(engine.inputs)}
    got = engine.run(inputs)
    want = amprun_outputs(amprun, model, inputs, tmp_path, "--precision", "fp32")
    for spec, w in zip(engine.outputs, want):
        np.testing.assert_array_equal(got[spec.name], w)
    # and the reference outputs of the model's own test data, within fp32 tolerance
    ref = amprt.load_tensor_pb(data / "output_0.pb")
    np.testing.assert_allclose(got[engine.outputs[0].name], ref, rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize("case,dtype", [("test_cast_FLOAT16_to_FLOAT", np.float16),
                                        ("test_cast_FLOAT_to_FLOAT16", np.float32),
                                        ("test_cast_FLOAT_to_BFLOAT16", np.float32),
                                        ("test_cast_BFLOAT16_to_FLOAT", None)])
def test_fp16_and_bf16_arrays_in_and_out(shared, case, dtype):
    d = shared / "onnx-node-tests" / case
    engine = amprt.Engine.load(d / "model.onnx", precision="fp32")
    x = amprt.load_tensor_pb(d / "test_data_set_0" / "input_0.pb")
    if dtype is not None:
        assert x.dtype == dtype
    elif amprt.bfloat16 is not None:
        assert x.dtype == amprt.bfloat16  # bf16 read back as ml_dtypes.bfloat16
    y = engine.run({engine.inputs[0].name: x})[engine.outputs[0].name]
    want = amprt.load_tensor_pb(d / "test_data_set_0" / "output_0.pb")
    assert y.dtype == want.dtype
    np.testing.assert_array_equal(y.view(np.uint8), want.view(np.uint8))
    if engine.outputs[0].dtype_name == "bf16" and amprt.bfloat16 is not None:
        assert y.dtype == amprt.bfloat16


def test_bf16_as_uint16_bit_patterns(shared):
    d = shared / "onnx-node-tests" / "test_cast_BFLOAT16_to_FLOAT"
    engine = amprt.Engine.load(d / "model.onnx", precision="fp32")
    x = amprt.load_tensor_pb(d / "test_data_set_0" / "input_0.pb")
    bits = np.ascontiguousarray(x).view(np.uint16)  # what users without ml_dtypes pass
    y = engine.run({engine.inputs[0].name: bits})[engine.outputs[0].name]
    np.testing.assert_array_equal(y, amprt.load_tensor_pb(d / "test_data_set_0" / "output_0.pb"))


def test_metadata(demo):
    engine = amprt.Engine.load(demo / "demo_resnet.amp", precision="fp16")
    (inp,) = engine.inputs
    assert inp.name == "image" and inp.dtype == np.float32 and inp.shape == ("N", 3, 32, 32)
    assert engine.outputs[0].shape == ("N", 10)
    assert engine.backend in ("cpu", "cuda")
    assert engine.precision in ("fp32", "fp16")
    if engine.precision == "fp32":
        assert "fp32 used" in engine.precision_note
    engine.run({"image": np.zeros((1, 3, 32, 32), np.float32)})
    mem = engine.memory()  # the arena is the last bound shapes'
    assert mem["weights_bytes"] > 0 and mem["arena_bytes"] > 0
    assert mem["packed_weights_bytes"] > 0  # the convolutions' weights, in oneDNN's layout
    if engine.backend == "cpu":  # the image read in place, the logits written in place
        assert mem["io_outside_arena_bytes"] == (3 * 32 * 32 + 10) * 4
        # the .amp file's weights, read by kernels only in their packed form, went back
        assert mem["model_file_released_bytes"] > 0
    assert engine.load_timings["total_ms"] > 0
    report = amprt.Engine.load(demo / "demo_resnet.amp", precision="fp16",
                               emulate_low_precision=True).precision_report()
    assert report["target"] == "f16" and report["nodes_low"] > 0 and "plan" in report
    assert amprt.Engine.load(demo / "demo_resnet.amp", precision="fp32").precision_report() == {}
    assert amprt.__version__.count(".") == 2


def test_precision_timing_is_an_option(demo):
    # Symbolic dims are timed only when bound (runtime/precision_timing.h).
    timed = amprt.Engine.load(demo / "demo_resnet.amp", precision="bf16", backend="cpu",
                              emulate_low_precision=True, precision_timing="on",
                              input_shapes={"image": [2, 3, 32, 32]})
    # Timed: either some nodes stayed bf16 ("precision timing: N node(s) kept fp32"), or the
    # whole plan measured not faster and the engine runs fp32.
    assert ("precision timing:" in timed.precision_note
            or "measured on this device" in timed.precision_note), timed.precision_note
    untimed = amprt.Engine.load(demo / "demo_resnet.amp", precision="bf16", backend="cpu",
                                emulate_low_precision=True, precision_timing="off")
    assert untimed.precision == "bf16" and "timing" not in untimed.precision_note


def test_accuracy_target_pins_and_saves_the_policy(demo, tmp_path):
    rng = np.random.default_rng(3)
    for k in range(2):
        folder = tmp_path / "calib" / f"test_data_set_{k}"
        folder.mkdir(parents=True)
        amprt.save_tensor_pb(folder / "input_0.pb",
                             rng.uniform(-1, 1, (2, 3, 32, 32)).astype(np.float32))
    engine = amprt.Engine.load(demo / "demo_resnet.amp", precision="fp16", backend="cpu",
                               emulate_low_precision=True, calibration=tmp_path / "calib",
                               accuracy={"cosine": 0.99999999, "max_rel_err": 1e-4})
    assert "accuracy search:" in engine.precision_note, engine.precision_note
    assert "node_dtypes" in engine.policy()
    with pytest.raises(amprt.InvalidArgument, match="accuracy key 'cos'"):
        amprt.Engine.load(demo / "demo_resnet.amp", precision="fp16", backend="cpu",
                          calibration=tmp_path / "calib", accuracy={"cos": 0.9})


def test_threads_share_one_engine(demo):
    engine = amprt.Engine.load(demo / "demo_transformer.amp", precision="fp32", threads=1)
    inputs = [random_inputs(engine, batch=1 + i % 3) for i in range(8)]
    want = [engine.run(x) for x in inputs]
    failures = []

    def worker(i):
        ctx = engine.create_context() if i % 2 else None  # half own a context, half borrow
        for _ in range(25):
            got = (ctx or engine).run(inputs[i])
            for k in want[i]:
                if not np.array_equal(got[k], want[i][k]):
                    failures.append((i, k))

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures


def test_gil_is_released_while_running(demo):
    """While another thread runs a ~80 ms model call after call, this thread keeps running
    Python: the longest pause it sees is far below one model call (a held GIL would pause it
    for whole calls; a released one only for switch intervals of 5 ms)."""
    engine = amprt.Engine.load(demo / "demo_resnet.amp", precision="fp32", threads=1)
    x = {"image": RNG.standard_normal((1024, 3, 32, 32)).astype(np.float32)}
    start = time.perf_counter()
    engine.run(x)
    one_run = time.perf_counter() - start
    done = threading.Event()

    def runner():
        for _ in range(8):
            engine.run(x)
        done.set()

    t = threading.Thread(target=runner)
    t.start()
    longest, last = 0.0, time.perf_counter()
    while not done.is_set():
        sum(range(100))
        now = time.perf_counter()
        longest, last = max(longest, now - last), now
    t.join()
    assert longest < one_run * 0.5, f"paused {longest * 1e3:.1f} ms for {one_run * 1e3:.1f} ms runs"


@pytest.fixture(scope="module")
def cnn(demo):
    return amprt.Engine.load(demo / "demo_resnet.amp", precision="fp32")


def good_image(n=1):
    return RNG.standard_normal((n, 3, 32, 32)).astype(np.float32)


@pytest.mark.parametrize("inputs,error,pattern", [
    (lambda: {"img": good_image()}, amprt.InvalidInput, "unknown input 'img'"),
    (lambda: {"image": good_image().astype(np.float64)}, amprt.InvalidInput,
     "float64 array, but the model takes float32"),
    (lambda: {"image": good_image()[:, :, :31]}, amprt.InvalidInput, "image"),
    (lambda: {"image": np.ones((1, 3, 31, 32), np.float32)}, amprt.InvalidInput, "image"),
    (lambda: {"image": np.ones((1, 3, 32), np.float32)}, amprt.InvalidInput, "rank|image"),
    (lambda: {"image": np.asfortranarray(good_image(2))}, amprt.InvalidInput, "C-contiguous"),
    (lambda: {"image": good_image(2).transpose(0, 1, 3, 2)}, amprt.InvalidInput, "C-contiguous"),
    (lambda: {"image": np.array([[1, "a"]], dtype=object)}, amprt.InvalidInput,
     "object and string arrays"),
    (lambda: {"image": [[1.0, 2.0]]}, amprt.InvalidInput, "expected a numpy array"),
    (lambda: {}, amprt.InvalidInput, "image"),
    (lambda: [good_image()], amprt.InvalidInput, "must be a dict"),
    (lambda: {1: good_image()}, amprt.InvalidInput, "names must be strings"),
])
def test_bad_inputs_raise_the_right_error(cnn, inputs, error, pattern):
    with pytest.raises(error, match=pattern) as e:
        cnn.run(inputs())
    assert e.value.code == amprt.ErrorCode.INVALID_INPUT
    assert cnn.run({"image": good_image()})["logits"].shape == (1, 10)  # still serving


def test_an_empty_batch_runs(cnn):
    # numpy gives an array without elements strides of 0; nothing is read, so it is accepted
    # as contiguous.
    empty = np.zeros((0, 3, 32, 32), np.float32)
    assert cnn.run({"image": empty})["logits"].shape == (0, 10)
    assert cnn.run({"image": good_image(2)})["logits"].shape == (2, 10)


def test_bad_files_and_options(demo, tmp_path):
    with pytest.raises(amprt.NotFound, match="does not exist"):
        amprt.Engine.load(tmp_path / "missing.amp")
    corrupt = tmp_path / "corrupt.amp"
    corrupt.write_bytes((demo / "demo_resnet.amp").read_bytes()[:200])
    with pytest.raises(amprt.InvalidModel):
        amprt.Engine.load(corrupt)
    with pytest.raises(amprt.InvalidArgument, match="precision 'fp8'"):
        amprt.Engine.load(demo / "demo_resnet.amp", precision="fp8")
    with pytest.raises(amprt.InvalidArgument, match="backend 'tpu'"):
        amprt.Engine.load(demo / "demo_resnet.amp", backend="tpu")
    with pytest.raises(amprt.InvalidArgument, match="precision_timing 'sometimes'"):
        amprt.Engine.load(demo / "demo_resnet.amp", precision_timing="sometimes")
    assert issubclass(amprt.NotFound, FileNotFoundError)
    assert issubclass(amprt.OutOfMemory, MemoryError)


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


def test_no_leaks_over_1000_runs(cnn):
    x = good_image(64)
    refs_x = sys.getrefcount(x)
    for _ in range(50):  # warm up: plans, arenas, allocator pools
        cnn.run({"image": x})
    gc.collect()
    before = rss_bytes()
    for _ in range(1000):
        y = cnn.run({"image": x})["logits"]
    gc.collect()
    grown = rss_bytes() - before
    assert sys.getrefcount(x) == refs_x, "the input array gained references"
    assert sys.getrefcount(y) == 2, "the output array has hidden references"
    # 1000 leaked 64x10 outputs or input copies would be > 12 MB
    assert grown < 8 << 20, f"RSS grew {grown / 2**20:.1f} MB over 1000 runs"


def test_outputs_own_their_memory(cnn):
    x = good_image(4)
    first = cnn.run({"image": x})["logits"]
    keep = first.copy()
    for _ in range(5):
        cnn.run({"image": good_image(4)})
    np.testing.assert_array_equal(first, keep)  # not overwritten by later runs
