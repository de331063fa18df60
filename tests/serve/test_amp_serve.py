"""amp-serve against the real tritonclient (HTTP and gRPC), plus raw HTTP for the malformed
requests a client library would never send. Every bad request must get the right status and
a message naming the problem, and the server must keep serving afterwards."""
import concurrent.futures
import http.client
import json
import re
import threading
import time
import urllib.request

import numpy as np
import pytest
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient
from tritonclient.utils import InferenceServerException

from conftest import Server

RNG = np.random.default_rng(7)


def image(n):
    return RNG.standard_normal((n, 3, 32, 32)).astype(np.float32)


def http_input(x, binary=True, name="image", datatype="FP32"):
    i = httpclient.InferInput(name, list(x.shape), datatype)
    i.set_data_from_numpy(x, binary_data=binary)
    return i


def grpc_input(x, name="image", datatype="FP32"):
    i = grpcclient.InferInput(name, list(x.shape), datatype)
    i.set_data_from_numpy(x)
    return i


def reference(server, x):
    """The demo CNN's logits for each row of x, run one request at a time (no batching)."""
    c = httpclient.InferenceServerClient(server.http)
    return np.concatenate([c.infer("cnn_single", [http_input(x[i:i + 1])]).as_numpy("logits")
                           for i in range(len(x))])


def raw_post(server, path, body, headers=None):
    conn = http.client.HTTPConnection(server.http, timeout=30)
    conn.request("POST", path, body=body, headers=headers or {})
    r = conn.getresponse()
    data = r.read()
    conn.close()
    return r.status, data


def error_of(body):
    return json.loads(body)["error"]


# ---- metadata -----------------------------------------------------------------------------

def test_http_health_and_metadata(server):
    c = httpclient.InferenceServerClient(server.http)
    assert c.is_server_live() and c.is_server_ready()
    assert c.is_model_ready("cnn") and not c.is_model_ready("no_such_model")
    assert c.get_server_metadata()["name"] == "amprt"
    meta = c.get_model_metadata("cnn")
    assert meta["inputs"] == [{"name": "image", "datatype": "FP32", "shape": [-1, 3, 32, 32]}]
    assert meta["outputs"] == [{"name": "logits", "datatype": "FP32", "shape": [-1, 10]}]
    config = c.get_model_config("cnn")
    assert config["max_batch_size"] == 16
    assert config["input"][0]["dims"] == [3, 32, 32]  # without the batch dim, as Triton
    assert config["dynamic_batching"]["max_queue_delay_microseconds"] == 2000
    assert c.get_model_config("cnn_single")["max_batch_size"] == 0
    index = c.get_model_repository_index()
    assert {m["name"] for m in index} == {"cnn", "cnn_single", "slow", "transformer"}


def test_grpc_health_and_metadata(server):
    c = grpcclient.InferenceServerClient(server.grpc)
    assert c.is_server_live() and c.is_server_ready() and c.is_model_ready("cnn")
    assert c.get_server_metadata(as_json=True)["name"] == "amprt"
    meta = c.get_model_metadata("cnn", as_json=True)
    assert meta["inputs"][0]["datatype"] == "FP32"
    assert [int(d) for d in meta["inputs"][0]["shape"]] == [-1, 3, 32, 32]
    config = c.get_model_config("cnn", as_json=True)["config"]
    assert config["max_batch_size"] == 16
    assert [int(d) for d in config["input"][0]["dims"]] == [3, 32, 32]
    with pytest.raises(InferenceServerException, match="unknown model 'nope'"):
        c.get_model_metadata("nope")


# ---- inference ----------------------------------------------------------------------------

def test_http_binary_and_json_agree_with_reference(server):
    c = httpclient.InferenceServerClient(server.http)
    x = image(3)
    want = reference(server, x)
    binary = c.infer("cnn", [http_input(x)]).as_numpy("logits")
    as_json = c.infer("cnn", [http_input(x, binary=False)],
                      outputs=[httpclient.InferRequestedOutput("logits", binary_data=False)])
    assert as_json.get_response()["outputs"][0]["data"]  # really JSON
    np.testing.assert_allclose(binary, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(as_json.as_numpy("logits"), binary)


def test_http_request_id_and_requested_outputs(server):
    c = httpclient.InferenceServerClient(server.http)
    r = c.infer("cnn", [http_input(image(1))], request_id="req-42",
                outputs=[httpclient.InferRequestedOutput("logits")])
    assert r.get_response()["id"] == "req-42"
    with pytest.raises(InferenceServerException, match="unknown output 'probs'"):
        c.infer("cnn", [http_input(image(1))], outputs=[httpclient.InferRequestedOutput("probs")])


def test_int64_json_input(server):
    c = httpclient.InferenceServerClient(server.http)
    tokens = RNG.integers(0, 64, size=(2, 16)).astype(np.int64)
    a = c.infer("transformer", [http_input(tokens, False, "tokens", "INT64")])
    b = grpcclient.InferenceServerClient(server.grpc).infer(
        "transformer", [grpc_input(tokens, "tokens", "INT64")])
    name = c.get_model_metadata("transformer")["outputs"][0]["name"]
    np.testing.assert_array_equal(a.as_numpy(name), b.as_numpy(name))


def test_grpc_infer_agrees_with_http(server):
    x = image(4)
    h = httpclient.InferenceServerClient(server.http).infer("cnn", [http_input(x)])
    g = grpcclient.InferenceServerClient(server.grpc).infer("cnn", [grpc_input(x)],
                                                             request_id="g1")
    assert g.get_response().id == "g1"
    np.testing.assert_allclose(g.as_numpy("logits"), h.as_numpy("logits"), rtol=1e-5, atol=1e-6)


def test_concurrent_requests_are_batched_and_split_correctly(server):
    """16 clients at once: the batcher merges them (fewer executions than requests) and each
    gets its own rows back."""
    xs = [image(1 + i % 3) for i in range(32)]
    want = [reference(server, x) for x in xs]
    before = metrics(server)

    def one(i):
        c = httpclient.InferenceServerClient(server.http)
        return c.infer("cnn", [http_input(xs[i])]).as_numpy("logits")

    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        got = list(pool.map(one, range(32)))
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
    after = metrics(server)
    requests = after["nv_inference_request_success", "cnn"] - before["nv_inference_request_success", "cnn"]
    rows = after["nv_inference_count", "cnn"] - before["nv_inference_count", "cnn"]
    execs = after["nv_inference_exec_count", "cnn"] - before["nv_inference_exec_count", "cnn"]
    assert requests == 32 and rows == sum(len(x) for x in xs)
    assert execs < requests, f"{execs} executions for {requests} requests: nothing was batched"


# ---- bad requests -------------------------------------------------------------------------

@pytest.mark.parametrize("make,pattern", [
    (lambda: [http_input(image(1), name="img")], "unknown input 'img'"),
    (lambda: [http_input(image(1).astype(np.float64), datatype="FP64")],
     "datatype FP64, but the model takes FP32"),
    (lambda: [http_input(image(1)[:, :, :31])], r"does not match the model's \[-1,3,32,32\]"),
    (lambda: [http_input(image(17))], r"batch dim 17 is outside 1..16"),
    (lambda: [http_input(image(1)), http_input(image(1))], "given twice"),
])
def test_http_bad_inputs(server, make, pattern):
    c = httpclient.InferenceServerClient(server.http)
    with pytest.raises(InferenceServerException, match=pattern) as e:
        c.infer("cnn", make())
    assert e.value.status() == "400"


def test_http_unknown_model(server):
    with pytest.raises(InferenceServerException, match="unknown model 'nope'") as e:
        httpclient.InferenceServerClient(server.http).infer("nope", [http_input(image(1))])
    assert e.value.status() == "404"


@pytest.mark.parametrize("make,pattern", [
    (lambda: [grpc_input(image(1), name="img")], "unknown input 'img'"),
    (lambda: [grpc_input(image(1).astype(np.float64), datatype="FP64")], "datatype FP64"),
    (lambda: [grpc_input(image(1)[:, :, :31])], "does not match"),
])
def test_grpc_bad_inputs(server, make, pattern):
    c = grpcclient.InferenceServerClient(server.grpc)
    with pytest.raises(InferenceServerException, match=pattern) as e:
        c.infer("cnn", make())
    assert e.value.status() == "StatusCode.INVALID_ARGUMENT"


def test_grpc_raw_byte_count_mismatch(server):
    c = grpcclient.InferenceServerClient(server.grpc)
    i = grpcclient.InferInput("image", [2, 3, 32, 32], "FP32")
    i.set_data_from_numpy(image(2))
    i._raw_content = i._raw_content[:-4]  # what a buggy client would send
    with pytest.raises(InferenceServerException, match="raw_input_contents has 24572 bytes"):
        c.infer("cnn", [i])


def header_and_tail(header, tail=b""):
    h = json.dumps(header).encode()
    return h + tail, {"Inference-Header-Content-Length": str(len(h)),
                      "Content-Type": "application/octet-stream"}


@pytest.mark.parametrize("body,headers,status,pattern", [
    (b"{not json", None, 400, "malformed"),
    (b"[1, 2]", None, 400, "must be a JSON object"),
    (json.dumps({"inputs": [{"name": "image", "datatype": "FP32", "shape": [1, 3, 32, 32],
                             "data": [1.0, 2.0]}]}).encode(), None, 400,
     "holds 2 elements, its shape needs 3072"),
    (json.dumps({"inputs": [{"name": "image", "datatype": "FP32", "shape": [1, 3, 32, 32],
                             "data": ["x"] * 3072}]}).encode(), None, 400, "is not a number"),
    (json.dumps({"inputs": [{"name": "image", "datatype": "FP32",
                             "shape": [1, 3, 4294967296, 4294967296],
                             "data": []}]}).encode(), None, 400, "too many elements|too large"),
    (json.dumps({"inputs": [{"name": "image", "datatype": "BYTES", "shape": [1],
                             "data": ["a"]}]}).encode(), None, 400, "'BYTES' is not supported"),
    (json.dumps({"inputs": [{"name": "image", "datatype": "FP32", "shape": [1, 3, 32, 32],
                             "data": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}]}).encode(),
     None, 400, "nested too deeply"),
    (b"{}", {"Inference-Header-Content-Length": "99"}, 400, "exceeds the body"),
    (b"{}", {"Inference-Header-Content-Length": "-1"}, 400, "is not a byte count"),
    (*header_and_tail({"inputs": [{"name": "image", "datatype": "FP32", "shape": [1, 3, 32, 32],
                                   "parameters": {"binary_data_size": 12288}}]}, b"\0" * 100),
     400, "only 100 bytes of binary data"),
    (*header_and_tail({"inputs": [{"name": "image", "datatype": "FP32", "shape": [1, 3, 32, 32],
                                   "parameters": {"binary_data_size": 100}}]}, b"\0" * 100),
     400, "need 12288 bytes"),
    (*header_and_tail({"inputs": [{"name": "image", "datatype": "FP32", "shape": [1, 3, 32, 32],
                                   "parameters": {"binary_data_size": 12288}}]}, b"\0" * 12300),
     400, "12 bytes of binary data .* not claimed"),
    (json.dumps({"inputs": []}).encode(), None, 400, "missing input 'image'"),
])
def test_http_malformed_requests(server, body, headers, status, pattern):
    got, data = raw_post(server, "/v2/models/cnn/infer", body, headers)
    assert got == status, data
    assert re.search(pattern, error_of(data)), error_of(data)


def test_http_body_over_the_cap_is_413(server):
    got, data = raw_post(server, "/v2/models/cnn/infer", b"x" * (2 << 20))
    assert got == 413
    assert "exceeds the server's cap" in error_of(data)


def test_json_sent_as_a_form_is_read_as_json(server):
    # `curl -d @request.json` without a Content-Type sends application/x-www-form-urlencoded;
    # a request over 8 KiB (one 3x32x32 image as JSON) must still be read, as Triton does.
    x = image(1)
    body = json.dumps({"inputs": [{"name": "image", "datatype": "FP32", "shape": list(x.shape),
                                   "data": x.ravel().tolist()}]}).encode()
    assert len(body) > 8192
    got, data = raw_post(server, "/v2/models/cnn/infer", body,
                         {"Content-Type": "application/x-www-form-urlencoded"})
    assert got == 200, data
    logits = np.array(json.loads(data)["outputs"][0]["data"], np.float32).reshape(1, 10)
    np.testing.assert_allclose(logits, reference(server, x), rtol=1e-5, atol=1e-6)


def test_http_unknown_route_is_404(server):
    got, data = raw_post(server, "/v2/nothing/here", b"{}")
    assert got == 404 and "no route" in error_of(data)


def test_int_out_of_range_in_json(server):
    body = json.dumps({"inputs": [{"name": "tokens", "datatype": "INT64", "shape": [1, 16],
                                   "data": [2 ** 63] + [0] * 15}]}).encode()
    got, data = raw_post(server, "/v2/models/transformer/infer", body)
    assert got == 400 and "out of range" in error_of(data)


def test_server_keeps_serving_after_bad_requests(server):
    test_http_binary_and_json_agree_with_reference(server)
    assert httpclient.InferenceServerClient(server.http).is_server_ready()


# ---- load behaviour -----------------------------------------------------------------------

def bert_tokens(n):
    return RNG.integers(0, 64, size=(n, 16)).astype(np.int64)


def test_full_queue_is_503_and_the_rest_are_served(server):
    """'slow' has a queue of one and one instance: of 12 simultaneous large requests, some are
    refused at once with 503 while the others are answered."""
    ids, mask = bert_tokens(512), np.ones((512, 16), np.int64)

    def one(_):
        c = httpclient.InferenceServerClient(server.http, network_timeout=120)
        try:
            c.infer("slow", [http_input(ids, True, "input_ids", "INT64"),
                             http_input(mask, True, "attention_mask", "INT64")])
            return "ok"
        except InferenceServerException as e:
            return (e.status(), str(e))

    with concurrent.futures.ThreadPoolExecutor(12) as pool:
        results = list(pool.map(one, range(12)))
    refused = [r for r in results if r != "ok"]
    assert results.count("ok") >= 2, results
    assert refused, "no request was refused with a queue of one"
    for status, message in refused:
        assert status == "503" and "queue" in message, message


def test_timeout_is_504(server):
    c = httpclient.InferenceServerClient(server.http)
    ids, mask = bert_tokens(512), np.ones((512, 16), np.int64)
    # A request that waits behind a long one, with a 1 us timeout, cannot start in time.
    blocker = threading.Thread(target=lambda: httpclient.InferenceServerClient(server.http).infer(
        "slow", [http_input(ids, True, "input_ids", "INT64"),
                 http_input(mask, True, "attention_mask", "INT64")]))
    blocker.start()
    time.sleep(0.005)
    with pytest.raises(InferenceServerException, match="timed out|deadline|timeout") as e:
        c.infer("cnn", [http_input(image(1))], timeout=1)
    blocker.join()
    assert e.value.status() == "504"


def test_huge_timeout_is_no_timeout(server):
    body = json.dumps({"parameters": {"timeout": 2 ** 63 - 1},
                       "inputs": [{"name": "image", "datatype": "FP32", "shape": [1, 3, 32, 32],
                                   "data": [0.0] * 3072}]}).encode()
    got, data = raw_post(server, "/v2/models/cnn/infer", body)
    assert got == 200, data


def test_grpc_deadline_exceeded(server):
    c = grpcclient.InferenceServerClient(server.grpc)
    with pytest.raises(InferenceServerException) as e:
        c.infer("cnn", [grpc_input(image(1))], timeout=1)
    assert e.value.status() == "StatusCode.DEADLINE_EXCEEDED"


# ---- metrics ------------------------------------------------------------------------------

def metrics(server):
    text = urllib.request.urlopen(f"http://{server.metrics}/metrics", timeout=10).read().decode()
    out = {}
    for line in text.splitlines():
        m = re.match(r'(\w+)\{model="([^"]+)",version="1"[^}]*\} (\S+)', line)
        if m and (m.group(1), m.group(2)) not in out:
            out[m.group(1), m.group(2)] = float(m.group(3))
    return out


def test_metrics_are_triton_named(server):
    httpclient.InferenceServerClient(server.http).infer("cnn", [http_input(image(2))])
    m = metrics(server)
    for name in ["nv_inference_request_success", "nv_inference_request_failure",
                 "nv_inference_count", "nv_inference_exec_count",
                 "nv_inference_request_duration_us", "nv_inference_queue_duration_us",
                 "nv_inference_compute_input_duration_us",
                 "nv_inference_compute_infer_duration_us",
                 "nv_inference_compute_output_duration_us", "amp_plan_nodes", "amp_plan_casts"]:
        assert (name, "cnn") in m, name
    assert m["nv_inference_request_success", "cnn"] >= 1
    assert m["nv_inference_count", "cnn"] >= m["nv_inference_exec_count", "cnn"] >= 1
    assert m["nv_inference_compute_infer_duration_us", "cnn"] > 0
    assert m["amp_plan_nodes", "cnn"] > 0


# ---- shutdown -----------------------------------------------------------------------------

def test_sigterm_under_load_loses_no_accepted_request(repository):
    """SIGTERM while 8 clients keep sending: every request the server accepted is answered
    (the clients' successes equal the server's count), the rest are refused, never dropped
    with a server error, and the server exits 0."""
    s = Server(repository)
    ok, failures = [0], []
    lock = threading.Lock()
    stop = threading.Event()

    def client():
        c = httpclient.InferenceServerClient(s.http, network_timeout=60)
        while not stop.is_set():
            try:
                c.infer("cnn", [http_input(image(2))])
                with lock:
                    ok[0] += 1
            except InferenceServerException as e:
                with lock:
                    failures.append((e.status(), str(e)))
                if e.status() is None:  # the connection is gone: the server has stopped
                    return
            except Exception as e:  # connection refused or reset: never accepted
                with lock:
                    failures.append((None, repr(e)))
                return

    threads = [threading.Thread(target=client) for _ in range(8)]
    for t in threads:
        t.start()
    time.sleep(1.0)
    code, out = s.terminate()
    stop.set()
    for t in threads:
        t.join()
    assert code == 0, out
    answered = int(re.search(r"stopped; (\d+) requests answered", out).group(1))
    assert ok[0] > 0
    assert answered == ok[0], f"server answered {answered}, clients got {ok[0]}: {failures[:5]}"
    for status, message in failures:
        assert status in (None, "503"), message
