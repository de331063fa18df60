"""AMPRT behind Ray Serve: one Engine per replica, requests batched with serve.batch.

    serve run samples.python.ray_serve_app:app model=build/demo/demo_resnet.amp
    curl -X POST localhost:8000/ -d '{"inputs": [[...3x32x32 floats...]]}'

Each replica loads the model once (AMP plan, weights cast once) and keeps it; serve.batch
gathers up to 16 concurrent requests (or what arrives within 2 ms) into one engine.run on
the stacked rows, and hands each caller its own row back. The run happens in a worker
thread (asyncio.to_thread): amprt releases the GIL while the model runs, so the replica's
event loop keeps accepting requests meanwhile."""
import asyncio
from typing import List

import numpy as np
from ray import serve

import amprt


@serve.deployment(ray_actor_options={"num_cpus": 1})
class AmprtModel:
    def __init__(self, model: str, precision: str = "fp16"):
        self.engine = amprt.Engine.load(model, precision=precision)
        if len(self.engine.inputs) != 1 or isinstance(self.engine.inputs[0].shape[0], int):
            raise ValueError("this sample batches models with one input and a symbolic batch dim")
        self.input = self.engine.inputs[0]
        self.output = self.engine.outputs[0].name

    @serve.batch(max_batch_size=16, batch_wait_timeout_s=0.002)
    async def infer(self, rows: List[np.ndarray]) -> List[np.ndarray]:
        batch = np.stack(rows).astype(self.input.dtype, copy=False)
        out = await asyncio.to_thread(self.engine.run, {self.input.name: batch})
        return list(out[self.output])

    async def __call__(self, request) -> dict:
        """HTTP: {"inputs": one row (nested lists)} -> {"outputs": that row's output}."""
        body = await request.json()
        row = np.asarray(body["inputs"], dtype=self.input.dtype)
        return {"outputs": (await self.infer(row)).tolist()}


def app_builder(args: dict):
    """`serve run ...:app model=PATH [precision=fp16]`"""
    return AmprtModel.bind(args["model"], args.get("precision", "fp16"))


app = app_builder
