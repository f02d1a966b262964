"""Tables of the torch API: layers with and without parameters, activations, losses, optimizer
defaults, schedulers, augmentations; and :func:`canonical` names for the paths people import from.
"""

from __future__ import annotations

import re


PARAM_LAYERS = {
    "Linear", "Bilinear", "LazyLinear", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d",
    "ConvTranspose2d", "ConvTranspose3d", "LazyConv1d", "LazyConv2d", "LazyConv3d",
    "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm", "LayerNorm", "GroupNorm",
    "RMSNorm", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LocalResponseNorm",
    "Embedding", "EmbeddingBag", "LSTM", "GRU", "RNN", "LSTMCell", "GRUCell", "RNNCell",
    "MultiheadAttention", "Transformer", "TransformerEncoder", "TransformerDecoder",
    "TransformerEncoderLayer", "TransformerDecoderLayer", "PReLU"}


NOPARAM_LAYERS = {
    "ReLU", "ReLU6", "GELU", "Tanh", "Sigmoid", "Softmax", "LogSoftmax", "Softmax2d", "Softmin",
    "LeakyReLU", "ELU", "SELU", "CELU", "SiLU", "Mish", "Softplus", "Softsign", "Hardtanh",
    "Hardswish", "Hardsigmoid", "Tanhshrink", "Threshold", "GLU", "LogSigmoid", "Identity",
    "Flatten", "Unflatten", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout",
    "FeatureAlphaDropout", "MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d",
    "AvgPool3d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d",
    "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d", "Upsample", "PixelShuffle",
    "ZeroPad2d", "ConstantPad1d", "ConstantPad2d", "ReflectionPad2d", "ReplicationPad2d",
    "ChannelShuffle", "CosineSimilarity", "PairwiseDistance"}


ACT_LAYERS = {"Softmax": "softmax", "Softmax2d": "softmax", "LogSoftmax": "log_softmax",
              "Sigmoid": "sigmoid", "ReLU": "relu"}


DROPOUT_LAYERS = {"Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout",
                  "FeatureAlphaDropout"}


BN_LAYERS = {"BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm", "LazyBatchNorm1d",
             "LazyBatchNorm2d", "LazyBatchNorm3d"}
#: normalisation layers: their weight is a per-channel gain (1 by default) and their bias a shift (0),
#: not a matrix of units fed the same input
NORM_LAYERS = BN_LAYERS | {"LayerNorm", "GroupNorm", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d",
                           "RMSNorm", "LocalResponseNorm"}


#: layers with a dropout argument that defaults to code.transformer_default_dropout
TRANSFORMER_LAYERS = {"TransformerEncoderLayer", "TransformerDecoderLayer", "Transformer"}


#: stock layers' submodules a script calls on their own (``self.tf.encoder(src)``, ``enc.layers[0]``): each
#: is a part of the layer's parameters, so what is done to its output (a ``.detach()``) is followed
STOCK_CHILDREN = {"Transformer": {"encoder", "decoder"}, "TransformerEncoder": {"layers", "norm"},
                  "TransformerDecoder": {"layers", "norm"},
                  "TransformerEncoderLayer": {"self_attn", "linear1", "linear2", "norm1", "norm2"},
                  "TransformerDecoderLayer": {"self_attn", "multihead_attn", "linear1", "linear2", "norm1", "norm2",
                                              "norm3"},
                  "MultiheadAttention": {"out_proj"}}


LOSS_CLASSES = {"CrossEntropyLoss": "cross_entropy", "NLLLoss": "nll", "BCELoss": "bce",
                "BCEWithLogitsLoss": "bce_with_logits", "MSELoss": "mse", "L1Loss": "l1",
                "SmoothL1Loss": "smooth_l1", "HuberLoss": "smooth_l1", "KLDivLoss": "kl_div",
                # negative log-likelihoods with no zero: their floor sits on the data's own offset
                "GaussianNLLLoss": "likelihood", "PoissonNLLLoss": "likelihood"}


LOSS_FUNCS = {"cross_entropy": "cross_entropy", "nll_loss": "nll",
              "binary_cross_entropy": "bce",
              "binary_cross_entropy_with_logits": "bce_with_logits", "mse_loss": "mse",
              "l1_loss": "l1", "smooth_l1_loss": "smooth_l1", "huber_loss": "smooth_l1",
              "kl_div": "kl_div",
              "gaussian_nll_loss": "likelihood", "poisson_nll_loss": "likelihood"}



OPT_NO_WD = {"rprop", "lbfgs", "sparseadam"}


#: the Adam family: an ``eps`` written in their call is the adam_eps fact (added to sqrt(v) in the
#: update's denominator)
OPT_ADAM_EPS = {"adam", "adamw", "adamax", "nadam", "radam", "sparseadam"}


SCHED_PER_BATCH = {"onecyclelr", "cycliclr"}


SCHED_EPOCHISH = {"steplr", "multisteplr", "exponentiallr", "cosineannealinglr",
                  "cosineannealingwarmrestarts", "polynomiallr", "linearlr", "constantlr",
                  "multiplicativelr", "reducelronplateau"}


STEPS_WORDS = re.compile(r"(len\s*\(|step|iter|batch)", re.I)


EPOCH_WORDS = re.compile(r"epoch", re.I)


AUG_NAMES = {"RandomCrop", "RandomResizedCrop", "RandomHorizontalFlip", "RandomVerticalFlip",
             "RandomRotation", "RandomAffine", "ColorJitter", "RandomErasing", "RandAugment",
             "AutoAugment", "TrivialAugmentWide", "AugMix", "RandomPerspective",
             "RandomGrayscale", "RandomApply", "RandomChoice", "RandomOrder", "MixUp", "CutMix",
             "ElasticTransform", "RandomInvert", "RandomPosterize", "RandomSolarize",
             "RandomAdjustSharpness", "RandomAutocontrast", "RandomEqualize",
             "RandomPhotometricDistort", "RandomZoomOut", "RandomIoUCrop", "GaussianNoise",
             "RandomResize", "ScaleJitter", "RandomShortestSize"}


ALBU_NON_AUG = {"Normalize", "Resize", "ToTensorV2", "Compose", "CenterCrop", "PadIfNeeded",
                "LongestMaxSize", "SmallestMaxSize", "ToFloat", "FromFloat"}


def canonical(qual: str) -> str:
    """Collapse module paths people import from to one canonical name per object."""
    parts = qual.split(".")
    last = parts[-1]
    if qual.startswith("torch.nn.modules."):
        return "torch.nn." + last
    if qual.startswith("torch.nn.functional.") or qual.startswith("torch.nn.init.") \
            or qual.startswith("torch.nn.utils."):
        return ".".join(parts[:3]) + "." + last
    if qual.startswith("torch.optim.lr_scheduler."):
        return "torch.optim.lr_scheduler." + last
    if qual.startswith("torch.optim.") and len(parts) >= 4:
        return "torch.optim." + last
    if qual.startswith("torch.utils.data."):
        return "torch.utils.data." + last
    if qual.startswith(("torch.cuda.amp.", "torch.amp.", "torch.cpu.amp.")) \
            or qual in ("torch.autocast", "torch.GradScaler"):
        return "amp." + last
    if qual.startswith("torchvision.transforms."):
        return "torchvision.transforms." + last
    if qual.startswith("lightning.pytorch.") or qual.startswith("pytorch_lightning."):
        return "pl." + last
    return qual


#: 2-D layers whose output is a feature map (batch, channels, height, width): nn.Linear applied to it
#: multiplies the last (width) axis only
MAP_LAYERS = {"Conv2d", "ConvTranspose2d", "LazyConv2d", "MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d",
              "AdaptiveMaxPool2d", "LPPool2d", "FractionalMaxPool2d", "PixelShuffle", "Upsample"}
#: layers that keep their input's shape (activations, dropout, per-channel normalisation)
SHAPE_KEEPING_LAYERS = (NOPARAM_LAYERS - {"Flatten", "Unflatten", "CosineSimilarity", "PairwiseDistance", "GLU"}
                        - MAP_LAYERS - {n for n in NOPARAM_LAYERS if "Pool" in n or "Pad" in n}) | NORM_LAYERS \
    | {"PReLU"}
#: functional calls (``F.relu(x)``, ``torch.tanh(x)``) that keep their first argument's shape
SHAPE_KEEPING_FUNCS = {"relu", "relu_", "gelu", "tanh", "sigmoid", "dropout", "dropout2d", "leaky_relu", "elu",
                       "selu", "silu", "mish", "softplus", "hardtanh", "relu6", "batch_norm", "instance_norm",
                       "group_norm", "layer_norm", "local_response_norm"}
#: functional calls whose output is a feature map of a feature map (the functional MAP_LAYERS)
MAP_FUNCS = {"max_pool2d", "avg_pool2d", "adaptive_avg_pool2d", "adaptive_max_pool2d", "conv2d", "interpolate",
             "pixel_shuffle"}
#: attributes that read a tensor's shape or placement, not its values (``y.shape``, ``y.device``)
SHAPE_ONLY_ATTRS = {"shape", "dtype", "device", "ndim", "size", "numel", "dim"}
#: calls that read only their argument's shape (``len(y)``; ``torch.zeros_like(y)`` is read by its ``_like``)
SHAPE_ONLY_CALLS = {"len", "size", "numel", "dim"}
#: methods that reduce a whole tensor to one number when called bare (``y.mean()``, ``y.sum().item()``)
SCALAR_REDUCTIONS = {"mean", "sum", "std", "var", "max", "min", "item", "median", "nanmean"}
