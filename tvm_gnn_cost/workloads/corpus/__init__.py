"""The dataset's networks and the set each belongs to: the single source of the protocol.

Three disjoint sets of networks (issue 21's protocol):

- ``train``: pretraining reads only these logs;
- ``validation``: every choice of setting, feature or architecture is made on these;
- ``test``: reported once for each adopted change, never used to choose, never trained on.

Each :class:`CorpusNetwork` says what ``tvm-gnn-cost collect --network`` takes to rebuild its
tasks, in which layout, and what it adds to the corpus (the data card's column). Networks
defined here are PyTorch modules with random weights (``cnn``, ``transformer``, ``other``);
the first dataset's are Relay's built-in networks. Logs live in ``data/SPLIT/NAME.json.gz``.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

SPLITS = ("train", "validation", "test")
_HERE = __name__  # tvm_gnn_cost.workloads.corpus


@dataclass(frozen=True)
class CorpusNetwork:
    """One network of the dataset.

    Attributes
    ----------
    name : str
        The log's name: ``data/SPLIT/NAME.json.gz``.
    split : str
        ``train``, ``validation`` or ``test``.
    network : str
        What ``--network`` takes: a built-in network or a ``package.module:function``.
    adds : str
        What it adds to the corpus that the others lack.
    layout : str
        ``--desired-layout``: ``NHWC`` (the CLI's default on CPUs) or ``none`` (the
        convolutions as the model brings them, NCHW for PyTorch).
    input_shape : tuple of int, optional
        ``--input-shape`` of a built-in network.
    seed : int, optional
        Sampling seed of its random programs (``collect --seed``); None: that of
        ``benchmarks/collect_corpus.py``, its ``--seed`` plus 100 times the network's place in
        :data:`NETWORKS`.
    """

    name: str
    split: str
    network: str
    adds: str
    layout: str = "NHWC"
    input_shape: Optional[Tuple[int, ...]] = None
    seed: Optional[int] = None

    def log(self, root: str = "data") -> str:
        """Where its log is kept (compressed, as shipped)."""
        return os.path.join(root, self.split, self.name + ".json.gz")

    def collect_args(self) -> List[str]:
        """The ``tvm-gnn-cost collect`` arguments that rebuild its tasks."""
        args = ["--network", self.network, "--desired-layout", self.layout]
        if self.input_shape:
            args += ["--input-shape", ",".join(str(x) for x in self.input_shape)]
        return args


def _m(module: str, function: str) -> str:
    return f"{_HERE}.{module}:{function}"


def _net(name, split, network, adds, layout="NHWC", input_shape=None,
         seed=None) -> CorpusNetwork:
    return CorpusNetwork(name, split, network, adds, layout, input_shape, seed)


NETWORKS: Tuple[CorpusNetwork, ...] = (
    # The first dataset (Relay's built-in networks, collected 2026-11-30 to 12-02).
    _net("dcgan", "train", "dcgan", "transposed convs of a generator (NHWC)"),
    _net("resnet-18", "train", "resnet-18", "3x3 and 1x1 convs, residual adds (NHWC)"),
    _net("resnet-50", "train", "resnet-50", "bottlenecks (NHWC)"),
    _net("resnet-18-160", "train", "resnet-18", "resnet-18's convs at 160x160",
         input_shape=(160, 160, 3)),
    _net("resnet-50-160", "train", "resnet-50", "resnet-50's convs at 160x160",
         input_shape=(160, 160, 3)),
    _net("inception-v3", "train", "inception-v3", "asymmetric convs, concatenations (NHWC)"),
    _net("mobilenet", "train", "mobilenet", "depthwise 3x3 convs (NHWC)"),
    _net("bert-tiny", "train", "bert-tiny", "encoder at width 128"),
    _net("bert-medium", "train", "bert-medium", "encoder at width 512"),
    _net("bert-tiny-128", "train", "bert-tiny", "encoder at width 128, sequence 128",
         input_shape=(128,)),
    _net("bert-medium-128", "train", "bert-medium", "encoder at width 512, sequence 128",
         input_shape=(128,)),
    _net("squeezenet", "validation", "squeezenet", "fire modules (NHWC)"),
    _net("bert", "validation", "bert", "encoder at width 256"),
    # The corpus of issue 21: what users run that the first dataset lacks.
    _net("resnet-nchw", "train", _m("cnn", "resnet_nchw"), "3x3 / 7x7 / 1x1 convs in NCHW",
         layout="none"),
    _net("vgg-nchw", "train", _m("cnn", "vgg_nchw"), "stacked 3x3 convs, max pooling, NCHW",
         layout="none"),
    _net("inception-nchw", "train", _m("cnn", "inception_nchw"),
         "1x7 / 7x1 and 1x3 / 3x1 convs in NCHW", layout="none"),
    _net("strided-kernels", "train", _m("cnn", "strided_kernels"),
         "kernels 1-7 at strides 1 and 2 on odd sizes", layout="none"),
    _net("strided-kernels-nhwc", "train", _m("cnn", "strided_kernels"),
         "the same convs after Relay's NHWC conversion"),
    _net("resnext", "train", _m("cnn", "resnext_grouped"), "grouped 3x3 convs (8, 32 groups)"),
    _net("mobilenetv2", "train", _m("cnn", "mobilenetv2_nchw"),
         "depthwise 3x3 at many sizes, ReLU6"),
    _net("efficientnet", "train", _m("cnn", "efficientnet_block"),
         "5x5 depthwise, SiLU, sigmoid squeeze-excite"),
    _net("shufflenet", "train", _m("cnn", "shufflenet_block"),
         "grouped 1x1 convs, channel shuffle (reshape / transpose)"),
    _net("densenet", "train", _m("cnn", "densenet_block"), "BN-ReLU-conv, growing concatenations"),
    _net("unet", "train", _m("cnn", "unet_small"), "transposed convs 2x2 / 4x4, skip concats",
         layout="none"),
    _net("pooling", "train", _m("cnn", "pooling_net"),
         "max / avg pooling at kernels 2, 3, 5, ceil mode, adaptive pooling"),
    _net("aspp", "train", _m("cnn", "dilated_aspp"), "dilated 3x3 convs (6, 12, 18)"),
    _net("xception", "train", _m("cnn", "xception_separable"),
         "depthwise-separable convs up to 728 channels"),
    _net("convnext", "train", _m("cnn", "convnext_block"),
         "7x7 depthwise, channels-last LayerNorm, GELU MLP"),
    _net("autoencoder", "train", _m("cnn", "autoencoder_deconv"),
         "transposed convs with output padding, sigmoid", layout="none"),
    _net("video-c3d", "train", _m("other", "video_conv3d"), "3x3x3 conv3d, 3-D pooling",
         layout="none"),
    _net("audio-conv1d", "train", _m("other", "audio_conv1d"),
         "strided conv1d, group norm, GELU", layout="none"),
    _net("lstm", "train", _m("other", "lstm_unrolled"), "recurrent gates: dense, sigmoid, tanh"),
    _net("dlrm", "train", _m("other", "dlrm"), "embedding lookups, interaction batch_matmul"),
    _net("reductions", "train", _m("other", "reductions"),
         "softmax, log-softmax, variance, max, sums, norms, logsumexp"),
    _net("elementwise", "train", _m("other", "elementwise"),
         "swish, GELU (erf, tanh), clip, exp / log, rsqrt, mish chains"),
    _net("gpt-384", "train", _m("transformer", "gpt_decoder_384"),
         "causal attention, tanh GELU, width 384, sequence 128"),
    _net("llama", "train", _m("transformer", "llama_block"),
         "RMSNorm, rotary embedding, grouped KV heads, SwiGLU"),
    _net("llm-decode", "train", _m("transformer", "llm_decode_step"),
         "one-token decoding: matrix-vector products at width 1024, KV-cache attention"),
    _net("encoder-mask", "train", _m("transformer", "encoder_padding_mask"),
         "attention with a padding-mask input, width 192"),
    _net("vit", "train", _m("transformer", "vit_tiny"),
         "16x16 patch-embedding conv, class token, attention"),
    _net("mixer", "train", _m("transformer", "mlp_mixer"), "token-mixing MLP over transposes"),
    _net("cross-attention", "train", _m("transformer", "cross_attention_decoder"),
         "cross-attention over another length and width"),
    _net("regnet", "validation", _m("cnn", "regnet_nchw"),
         "group-width-16 convs with squeeze-excite, NCHW", layout="none"),
    _net("gpt-512", "validation", _m("transformer", "gpt_decoder_512"),
         "causal decoder block at width 512, sequence 32"),
    # Test networks: never trained on, never used to choose (also the default-model
    # benchmark's, benchmarks/bench_default.sh).
    _net("cnn", "test", _m("cnn", "cnn"), "a torchvision-style CNN"),
    _net("mobilenetv3", "test", _m("cnn", "mobilenetv3_block"),
         "hard-swish, squeeze-excite with hard-sigmoid"),
    _net("gpt-block", "test", _m("transformer", "gpt_block"),
         "a GPT-style decoder block with a causal mask"),
    _net("r2plus1d", "test", _m("other", "r2plus1d_block"),
         "factorized 1x3x3 / 3x1x1 conv3d"),
    _net("speech-encoder", "test", _m("other", "speech_encoder"),
         "conv1d stem then attention over 100 frames"),
    # Added to the training set 2026-12-05 (issue 21: image resize, pixel shuffle, instance
    # norm, batch > 1, window attention, leaky ReLU, NCHW depthwise, long attention), with
    # the sampling seeds they were collected with.
    _net("fpn", "train", _m("cnn", "fpn_upsample"),
         "nearest and bilinear 2x upsampling (image resize), lateral 1x1 convs", seed=7200),
    _net("superres", "train", _m("cnn", "superres_pixelshuffle"),
         "5x5 convs with tanh, pixel shuffle (depth to space)", layout="none", seed=7300),
    _net("style-transfer", "train", _m("cnn", "style_transfer"),
         "reflection padding, instance norm, nearest upsampling, 9x9 convs", layout="none",
         seed=7400),
    _net("cifar-resnet-b8", "train", _m("cnn", "cifar_resnet_batch8"),
         "convs and dense layers at batch 8", seed=7500),
    _net("swin", "train", _m("transformer", "swin_window"),
         "window attention (partition by reshape / transpose), gathered position bias", seed=7600),
    _net("encoder-b4", "train", _m("transformer", "encoder_batch4"),
         "encoder block at batch 4, heads of 64, ReLU MLP", seed=7700),
    _net("yolo-tiny", "train", _m("cnn", "yolo_tiny"),
         "leaky ReLU, a stride-1 max pool, 75-channel detection heads", seed=7800),
    _net("depthwise-nchw", "train", _m("cnn", "depthwise_nchw"),
         "3x3 and 5x5 depthwise convs kept in NCHW (depthwise_conv2d_NCHWc)", layout="none",
         seed=7900),
    _net("t5", "train", _m("transformer", "t5_encoder"),
         "relative-position bias on the scores, gated-GELU feed-forward, width 448", seed=8000),
    _net("long-attention", "train", _m("transformer", "long_attention"),
         "attention over 320 positions, width 128", seed=8100),
    _net("mlp-b16", "train", _m("transformer", "mlp_batch16"),
         "wide dense layers (768-3072) at batch 16", seed=8200),
)


def by_name() -> Dict[str, CorpusNetwork]:
    """The networks by name."""
    return {n.name: n for n in NETWORKS}


def in_split(split: str) -> List[CorpusNetwork]:
    """The networks of one set."""
    if split not in SPLITS:
        raise ValueError(f"unknown set {split!r}: give one of {', '.join(SPLITS)}")
    return [n for n in NETWORKS if n.split == split]


__all__ = ["CorpusNetwork", "NETWORKS", "SPLITS", "by_name", "in_split"]
