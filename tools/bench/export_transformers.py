#!/usr/bin/env python3
"""Hugging Face transformers exported the way users export them, for side-by-side checks.

Writes OUT/<model>_<exporter>/model.onnx and test_data_set_0/ (the inputs and ONNX Runtime's
outputs for them) for encoders (BERT, DistilBERT, RoBERTa, DeBERTa-v2, wav2vec2), decoders
(GPT-2, a 4-layer Llama with grouped-query attention) and encoder-decoders (T5-small,
BART-base, a Whisper-tiny-sized model), and a second set of 2-layer or small-config
architectures (ALBERT, ELECTRA, MPNet, CLIP's text and vision towers, Swin, ConvNeXt,
SegFormer, MobileViT, BEiT, DINOv2, DETR, HuBERT, GPT-NeoX, Phi, Mistral, Qwen2, Gemma,
Falcon, BLOOM, OPT, GPT-J, Marian), each built from its configuration with random
weights (no downloads), through both PyTorch exporters: "ts" (TorchScript, opset 17) and
"dynamo" (torch.export; transformers' SDPA attention is then the spelling FuseDecomposedOps
takes back to one Attention node). An export one exporter cannot take is skipped with the
exporter's reason (GPT-2, Llama, Whisper and the newer decoders do not export through
TorchScript).

Then, for each folder: amp-convert, and amprun against the reference outputs, or the timing
script next to ONNX Runtime:

  python3 tools/bench/export_transformers.py /tmp/hf [bert gpt2 ...]
  python3 tools/bench/bench_vs_ort.py --models /tmp/hf --amprun build/tools/amprun/amprun \\
      --threads 1 --runs 10 --rounds 3

Needs torch, transformers, onnx, onnxscript and onnxruntime from PyPI; like
export_torchvision.py, not a dependency of AMPRT's build or tests (pip install torch
transformers onnxscript). Random weights check conversion, kernels and speed, not AMP
accuracy.
"""
import os

import numpy as np
import onnx
import onnxruntime as ort
import torch
import transformers as T
import export_util
from export_util import write_test_data


def ids(n, vocab=1000):
    return torch.randint(5, vocab, (1, n), generator=torch.Generator().manual_seed(1))


def text(n=128):
    return (ids(n), torch.ones(1, n, dtype=torch.int64))


def pixels(size):
    return lambda: (torch.randn(1, 3, size, size, generator=torch.Generator().manual_seed(2)),)


def kaiming(model):
    """Convolutions and linear layers re-initialized (He): MobileViT's own initializer (normal,
    std 0.02) shrinks its activations layer by layer to ~1e-40 at the output, where fp32
    comparisons measure denormal rounding. Even so its output is ~1e-5, below fp16's normal
    range: fp16 AMP needs calibration data there (README)."""
    for m in model.modules():
        if isinstance(m, (torch.nn.Conv2d, torch.nn.Linear)):
            torch.nn.init.kaiming_normal_(m.weight)
    return model


def small_decoder(model, config, **kw):
    """A 2-layer causal LM of width 256 (8 heads) over a vocabulary of 1000, 48 tokens."""
    args = dict(hidden_size=256, intermediate_size=704, num_hidden_layers=2,
                num_attention_heads=8, vocab_size=1000)
    args.update(kw)
    return (lambda: model(config(**args)), ["input_ids"], lambda: (ids(48),), True)


# name: (model from its config, input names, inputs, whether forward takes use_cache)
MODELS = {
    "bert": (lambda: T.BertModel(T.BertConfig()), ["input_ids", "attention_mask"], text, False),
    "distilbert": (lambda: T.DistilBertModel(T.DistilBertConfig()),
                   ["input_ids", "attention_mask"], text, False),
    "roberta": (lambda: T.RobertaModel(T.RobertaConfig()), ["input_ids", "attention_mask"], text,
                False),
    "deberta": (lambda: T.DebertaV2Model(T.DebertaV2Config(num_hidden_layers=6)),
                ["input_ids", "attention_mask"], text, False),
    "wav2vec2": (lambda: T.Wav2Vec2Model(T.Wav2Vec2Config()), ["input_values"],
                 lambda: (torch.randn(1, 16000),), False),
    "gpt2": (lambda: T.GPT2LMHeadModel(T.GPT2Config()), ["input_ids"], lambda: (ids(64),), True),
    "llama": (lambda: T.LlamaForCausalLM(T.LlamaConfig(
        hidden_size=512, intermediate_size=1408, num_hidden_layers=4, num_attention_heads=8,
        num_key_value_heads=4, vocab_size=32000)), ["input_ids"], lambda: (ids(64),), True),
    "t5_small": (lambda: T.T5ForConditionalGeneration(T.T5Config()),
                 ["input_ids", "decoder_input_ids"], lambda: (ids(64), ids(8)), True),
    "bart_base": (lambda: T.BartForConditionalGeneration(T.BartConfig(
        d_model=768, encoder_layers=6, decoder_layers=6, encoder_attention_heads=12,
        decoder_attention_heads=12, encoder_ffn_dim=3072, decoder_ffn_dim=3072)),
        ["input_ids", "decoder_input_ids"], lambda: (ids(64), ids(8)), True),
    "whisper_tiny": (lambda: T.WhisperForConditionalGeneration(T.WhisperConfig(
        d_model=384, encoder_layers=4, decoder_layers=4, encoder_attention_heads=6,
        decoder_attention_heads=6, encoder_ffn_dim=1536, decoder_ffn_dim=1536)),
        ["input_features", "decoder_input_ids"], lambda: (torch.randn(1, 80, 3000), ids(4)),
        True),

    # The second set: small configurations (2 layers, or the config's own small default),
    # so each exports and runs in seconds.
    "albert": (lambda: T.AlbertModel(T.AlbertConfig(num_hidden_layers=2)),
               ["input_ids", "attention_mask"], text, False),
    "electra": (lambda: T.ElectraModel(T.ElectraConfig()), ["input_ids", "attention_mask"], text,
                False),
    "mpnet": (lambda: T.MPNetModel(T.MPNetConfig(num_hidden_layers=2)),
              ["input_ids", "attention_mask"], text, False),
    "clip_text": (lambda: T.CLIPTextModel(T.CLIPTextConfig(num_hidden_layers=2)), ["input_ids"],
                  lambda: (ids(77),), False),
    "clip_vision": (lambda: T.CLIPVisionModel(T.CLIPVisionConfig(num_hidden_layers=2)),
                    ["pixel_values"], pixels(224), False),
    "swin": (lambda: T.SwinModel(T.SwinConfig(depths=[1, 1, 2, 1])), ["pixel_values"],
             pixels(224), False),
    "convnext": (lambda: T.ConvNextModel(T.ConvNextConfig(depths=[1, 1, 2, 1])),
                 ["pixel_values"], pixels(224), False),
    "segformer": (lambda: T.SegformerModel(T.SegformerConfig()), ["pixel_values"], pixels(256),
                  False),
    "mobilevit": (lambda: kaiming(T.MobileViTModel(T.MobileViTConfig())), ["pixel_values"],
                  pixels(256), False),
    "beit": (lambda: T.BeitModel(T.BeitConfig(num_hidden_layers=2,
                                              use_relative_position_bias=True)),
             ["pixel_values"], pixels(224), False),
    "dinov2": (lambda: T.Dinov2Model(T.Dinov2Config(num_hidden_layers=2)), ["pixel_values"],
               pixels(224), False),
    "detr": (lambda: T.DetrModel(T.DetrConfig(use_timm_backbone=False,
                                              use_pretrained_backbone=False, encoder_layers=1,
                                              decoder_layers=1)),
             ["pixel_values"], pixels(320), False),
    "hubert": (lambda: T.HubertModel(T.HubertConfig(num_hidden_layers=2)), ["input_values"],
               lambda: (torch.randn(1, 16000, generator=torch.Generator().manual_seed(3)),),
               False),
    "gpt_neox": small_decoder(T.GPTNeoXForCausalLM, T.GPTNeoXConfig),
    "phi": small_decoder(T.PhiForCausalLM, T.PhiConfig),
    "mistral": small_decoder(T.MistralForCausalLM, T.MistralConfig, num_key_value_heads=2),
    "qwen2": small_decoder(T.Qwen2ForCausalLM, T.Qwen2Config, num_key_value_heads=2),
    "gemma": small_decoder(T.GemmaForCausalLM, T.GemmaConfig, num_key_value_heads=2, head_dim=32),
    "falcon": (lambda: T.FalconForCausalLM(T.FalconConfig(
        hidden_size=256, num_hidden_layers=2, num_attention_heads=8, vocab_size=1000)),
        ["input_ids"], lambda: (ids(48),), True),
    "bloom": (lambda: T.BloomForCausalLM(T.BloomConfig(hidden_size=256, n_layer=2, n_head=8,
                                                       vocab_size=1000)),
              ["input_ids"], lambda: (ids(48),), True),
    "opt": (lambda: T.OPTForCausalLM(T.OPTConfig(
        hidden_size=256, num_hidden_layers=2, num_attention_heads=8, ffn_dim=1024,
        vocab_size=1000, word_embed_proj_dim=256)), ["input_ids"], lambda: (ids(48),), True),
    "gptj": (lambda: T.GPTJForCausalLM(T.GPTJConfig(n_embd=256, n_layer=2, n_head=8,
                                                    rotary_dim=16, vocab_size=1000)),
             ["input_ids"], lambda: (ids(48),), True),
    "marian": (lambda: T.MarianMTModel(T.MarianConfig(
        d_model=256, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
        decoder_attention_heads=4, encoder_ffn_dim=512, decoder_ffn_dim=512, vocab_size=1000,
        decoder_vocab_size=1000, pad_token_id=0, decoder_start_token_id=0)),
        ["input_ids", "decoder_input_ids"], lambda: (ids(32), ids(8)), True),
}


class FirstOutput(torch.nn.Module):
    """The model called with named inputs, returning its first output as one tensor."""

    def __init__(self, model, names, takes_cache):
        super().__init__()
        self.model, self.names, self.takes_cache = model, names, takes_cache

    def forward(self, *args):
        kwargs = dict(zip(self.names, args), return_dict=False)
        if self.takes_cache:
            kwargs["use_cache"] = False
        return self.model(**kwargs)[0]



def export(name, exporter, folder):
    make, names, inputs, takes_cache = MODELS[name]
    torch.manual_seed(0)
    model = FirstOutput(make().eval(), names, takes_cache)
    args = inputs()
    path = os.path.join(folder, "model.onnx")
    with torch.no_grad():
        if exporter == "ts":
            torch.onnx.export(model, args, path, opset_version=17, dynamo=False, input_names=names)
        else:
            torch.onnx.export(model, args, path, dynamo=True, external_data=False,
                              input_names=names)
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    feeds = {i.name: a.numpy() for i, a in zip(session.get_inputs(), args)}
    outputs = session.run(None, feeds)
    write_test_data(folder, feeds, session, outputs)
    print(f"{name}_{exporter}: {len(onnx.load(path).graph.node)} nodes, outputs "
          f"{[np.asarray(v).shape for v in outputs]}", flush=True)


if __name__ == "__main__":
    export_util.main(__doc__, MODELS, export)
