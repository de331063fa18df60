"""AMPRT from Python: load an ONNX or .amp model with automatic mixed precision and run it on
numpy arrays.

    import numpy as np, amprt
    engine = amprt.Engine.load("model.onnx", precision="fp16")
    out = engine.run({"input": np.zeros((1, 3, 224, 224), np.float32)})

Inputs are passed without a copy when they are C-contiguous arrays of the input's dtype (any
other array raises amprt.InvalidInput saying how to convert it); outputs are numpy arrays that
own the runtime's buffers, also without a copy. The GIL is released while a model runs, so
threads sharing one Engine run in parallel (Engine.run borrows a pooled context per call;
create_context() gives a thread one of its own).

float16 is numpy.float16. bfloat16 has no numpy dtype: with ml_dtypes installed, bf16 inputs
may be ml_dtypes.bfloat16 arrays and bf16 outputs are returned as such; without it, both are
uint16 arrays holding the bit patterns (x.view(np.uint16) / y.view(ml_dtypes.bfloat16))."""
from __future__ import annotations

import dataclasses
import json
import os
from typing import Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from . import _amprt
from ._errors import (BackendFailure, Error, ErrorCode, Internal, InvalidArgument,  # noqa: F401
                      InvalidInput, InvalidModel, NotFound, NumericOverflow, OutOfMemory,
                      Unsupported)

try:
    import ml_dtypes as _ml_dtypes

    bfloat16 = np.dtype(_ml_dtypes.bfloat16)
except ImportError:  # bf16 then crosses as uint16 bit patterns
    _ml_dtypes = None
    bfloat16 = None

__version__ = _amprt.version()

_NUMPY_DTYPES = {"f32": np.float32, "f16": np.float16, "f64": np.float64, "i8": np.int8,
                 "i16": np.int16, "i32": np.int32, "i64": np.int64, "u8": np.uint8,
                 "bool": np.bool_}


def _numpy_dtype(name: str):
    if name == "bf16":
        return bfloat16 if bfloat16 is not None else np.dtype(np.uint16)
    return np.dtype(_NUMPY_DTYPES[name])


@dataclasses.dataclass(frozen=True)
class TensorSpec:
    """A model input or output. `shape` holds an int per static dim and the symbol's name
    (a str, or None when the model gave it none) per symbolic dim."""
    name: str
    dtype: np.dtype
    shape: Tuple[Union[int, str, None], ...]
    dtype_name: str  # AMPRT's name: "f32", "f16", "bf16", "i64", ...


def _specs(raw) -> List[TensorSpec]:
    specs = []
    for name, dtype, shape, symbols in raw:
        dims = tuple(d if d >= 0 else (symbols[i] or None) if i < len(symbols) else None
                     for i, d in enumerate(shape))
        specs.append(TensorSpec(name, _numpy_dtype(dtype), dims, dtype))
    return specs


def _prepare(inputs: Mapping[str, np.ndarray]) -> dict:
    if not isinstance(inputs, Mapping):
        raise InvalidInput("inputs must be a dict of input name -> numpy array, got "
                           f"{type(inputs).__name__}")
    if bfloat16 is None:
        return dict(inputs)
    # ml_dtypes.bfloat16 arrays cross as their uint16 bit patterns (a view, no copy).
    return {k: v.view(np.uint16) if isinstance(v, np.ndarray) and v.dtype == bfloat16 else v
            for k, v in inputs.items()}


def _finish(outputs: dict, specs: Sequence[TensorSpec]) -> Dict[str, np.ndarray]:
    if bfloat16 is not None:
        for s in specs:
            if s.dtype_name == "bf16" and s.name in outputs:
                outputs[s.name] = outputs[s.name].view(bfloat16)
    return outputs


class Context:
    """An execution context: the state of runs, for one thread at a time."""

    def __init__(self, raw, outputs: Sequence[TensorSpec]):
        self._raw = raw
        self._outputs = outputs

    def run(self, inputs: Mapping[str, np.ndarray]) -> Dict[str, np.ndarray]:
        return _finish(self._raw.run(_prepare(inputs)), self._outputs)


class Engine:
    """A loaded model: verified, AMP-planned, kernels chosen, weights converted once."""

    def __init__(self, raw):
        self._raw = raw
        self.inputs: List[TensorSpec] = _specs(raw.inputs())
        self.outputs: List[TensorSpec] = _specs(raw.outputs())

    @staticmethod
    def load(path: Union[str, os.PathLike], precision: str = "fp16", policy=None,
             backend: str = "auto", calibration=None, threads: int = 0,
             emulate_low_precision: bool = False, precision_timing: str = "auto",
             accuracy: Optional[Mapping[str, float]] = None,
             input_shapes: Optional[Mapping[str, Sequence[int]]] = None) -> "Engine":
        """Loads a .amp or .onnx model.

        precision: "fp32", "fp16", "bf16" or "auto" (a permission: a device that runs the low
        type no faster than fp32 keeps fp32; precision_note says why). policy: an AMP policy
        file. backend: "auto", "cpu" or "cuda". calibration: a folder of samples or a list of
        them (input_<i>.pb files or test_data_set_* folders). threads: CPU threads per run
        (0: all cores). precision_timing: "auto", "on" or "off", whether the load times the
        AMP plan's nodes against fp32 and keeps fp32 where low precision is slower on this
        device (symbolic dims are timed only when input_shapes binds them). accuracy: {"cosine": C, "max_rel_err": E} (either or both), a target against
        fp32 on the calibration samples: the nodes that make the plan miss it are pinned to fp32
        (policy_json() saves the result). input_shapes: bind symbolic dims at load."""
        if isinstance(calibration, (str, os.PathLike)):
            calibration = [calibration]
        raw = _amprt.Engine.load(
            os.fspath(path), precision, backend, None if policy is None else os.fspath(policy),
            [os.fspath(c) for c in (calibration or [])], int(threads),
            bool(emulate_low_precision), str(precision_timing),
            {str(k): float(v) for k, v in (accuracy or {}).items()},
            {k: [int(d) for d in v] for k, v in (input_shapes or {}).items()})
        return Engine(raw)

    def run(self, inputs: Mapping[str, np.ndarray]) -> Dict[str, np.ndarray]:
        """Runs the model; thread-safe (each call borrows a pooled context)."""
        return _finish(self._raw.run(_prepare(inputs)), self.outputs)

    def create_context(self) -> Context:
        return Context(self._raw.create_context(), self.outputs)

    @property
    def backend(self) -> str:
        return self._raw.backend()

    @property
    def backend_note(self) -> str:
        return self._raw.backend_note()

    @property
    def precision(self) -> str:
        return self._raw.precision()

    @property
    def precision_note(self) -> str:
        return self._raw.precision_note()

    @property
    def device_name(self) -> str:
        return self._raw.device_name()

    @property
    def load_timings(self) -> Dict[str, float]:
        """Milliseconds: total, verify, passes, amp, memory, upload."""
        return self._raw.load_timings()

    def precision_report(self) -> dict:
        """What the AMP planner decided per node, and why (README "Precision report")."""
        return json.loads(self._raw.precision_report_json())

    def policy(self) -> dict:
        """The effective AMP policy, as a policy file's contents."""
        return json.loads(self._raw.policy_json())

    def memory(self) -> Dict[str, int]:
        """Bytes: weights, weights_fp32, arena, lower bound, inputs and outputs kept outside
        the arena (CPU: read in place, written straight into the returned arrays), workspace,
        packed weights, and for an .amp model the file's pages handed back to the OS
        (model_file_released_bytes)."""
        return self._raw.memory()

    def plan_summary(self) -> str:
        return self._raw.plan_summary()


def load_tensor_pb(path: Union[str, os.PathLike]) -> np.ndarray:
    """Reads an ONNX TensorProto file (the input_N.pb / output_N.pb of ONNX test data)."""
    array, dtype = _amprt.load_tensor_pb(os.fspath(path))
    if dtype == "bf16" and bfloat16 is not None:
        array = array.view(bfloat16)
    return array


def save_tensor_pb(path: Union[str, os.PathLike], array: np.ndarray, name: str = "") -> None:
    """Writes `array` as an ONNX TensorProto file (bfloat16 arrays as BFLOAT16)."""
    array = np.ascontiguousarray(array)
    if bfloat16 is not None and array.dtype == bfloat16:
        dtype, array = "bf16", array.view(np.uint16)
    else:
        dtype = {v: k for k, v in _NUMPY_DTYPES.items()}.get(array.dtype.type)
        if dtype is None:
            raise InvalidInput(f"save_tensor_pb: dtype {array.dtype} is not a tensor dtype")
    _amprt.save_tensor_pb(os.fspath(path), array, dtype, name)
