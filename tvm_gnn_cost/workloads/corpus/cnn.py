"""Convolutional networks of the corpus, in NCHW as PyTorch brings them. Random weights; each
function returns ``(module, example input)``, the ``--network package.module:function`` form."""
from __future__ import annotations

import torch
from torch import nn


def _cbr(cin, cout, k=3, stride=1, groups=1, act=nn.ReLU, dilation=1):
    pad = dilation * (k // 2)
    return nn.Sequential(nn.Conv2d(cin, cout, k, stride, pad, dilation=dilation, groups=groups,
                                   bias=False), nn.BatchNorm2d(cout), act())


class _Residual(nn.Module):
    def __init__(self, body, shortcut=None):
        super().__init__()
        self.body, self.shortcut = body, shortcut or nn.Identity()

    def forward(self, x):
        return torch.relu(self.body(x) + self.shortcut(x))


def _basic_block(cin, cout, stride):
    """ResNet's basic block: two 3x3 convs, a 1x1 projection where the shape changes."""
    proj = None if stride == 1 and cin == cout else nn.Sequential(
        nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))
    return _Residual(nn.Sequential(_cbr(cin, cout, 3, stride),
                                   nn.Conv2d(cout, cout, 3, 1, 1, bias=False),
                                   nn.BatchNorm2d(cout)), proj)


def resnet_nchw():
    """A ResNet-18-like network at 128x128, NCHW: 3x3 convs in four stages, 1x1 projections."""
    torch.manual_seed(10)
    model = nn.Sequential(_cbr(3, 48, 7, 2), nn.MaxPool2d(3, 2, 1), _basic_block(48, 48, 1),
                          _basic_block(48, 96, 2), _basic_block(96, 192, 2),
                          _basic_block(192, 384, 2),
                          nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(384, 200))
    return model.eval(), torch.randn(1, 3, 128, 128)


def vgg_nchw():
    """A VGG-style stack of 3x3 convs and 2x2 max pooling at 96x96, NCHW."""
    torch.manual_seed(11)
    layers, cin = [], 3
    for cout, n in ((32, 1), (64, 1), (128, 2), (256, 2)):
        for _ in range(n):
            layers.append(_cbr(cin, cout))
            cin = cout
        layers.append(nn.MaxPool2d(2))
    model = nn.Sequential(*layers, nn.Flatten(), nn.Linear(256 * 6 * 6, 256), nn.ReLU(),
                          nn.Linear(256, 10))
    return model.eval(), torch.randn(1, 3, 96, 96)


def resnext_grouped():
    """ResNeXt bottlenecks: grouped 3x3 convs (32 and 8 groups) between 1x1 convs, 56x56."""
    torch.manual_seed(12)

    def block(c, mid, groups, stride=1):
        proj = None if stride == 1 else nn.Sequential(nn.Conv2d(c, c, 1, stride, bias=False),
                                                     nn.BatchNorm2d(c))
        return _Residual(nn.Sequential(_cbr(c, mid, 1), _cbr(mid, mid, 3, stride, groups),
                                       nn.Conv2d(mid, c, 1, bias=False), nn.BatchNorm2d(c)), proj)

    model = nn.Sequential(block(128, 128, 32), block(128, 64, 8, 2), block(128, 256, 32))
    return model.eval(), torch.randn(1, 128, 56, 56)


def mobilenetv2_nchw():
    """MobileNetV2 inverted residuals with ReLU6 and 3x3 depthwise convs at many sizes, 96x96."""
    torch.manual_seed(13)

    class Inverted(nn.Module):
        def __init__(self, cin, cout, expand, stride):
            super().__init__()
            h = cin * expand
            self.res = stride == 1 and cin == cout
            self.body = nn.Sequential(_cbr(cin, h, 1, act=nn.ReLU6),
                                      _cbr(h, h, 3, stride, groups=h, act=nn.ReLU6),
                                      nn.Conv2d(h, cout, 1, bias=False), nn.BatchNorm2d(cout))

        def forward(self, x):
            return x + self.body(x) if self.res else self.body(x)

    model = nn.Sequential(_cbr(3, 16, 3, 2, act=nn.ReLU6), Inverted(16, 24, 6, 2),
                          Inverted(24, 24, 6, 1), Inverted(24, 32, 6, 2), Inverted(32, 64, 6, 2),
                          Inverted(64, 96, 6, 1), _cbr(96, 320, 1, act=nn.ReLU6),
                          nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(320, 100))
    return model.eval(), torch.randn(1, 3, 96, 96)


def efficientnet_block():
    """EfficientNet MBConv blocks: SiLU, 5x5 depthwise, squeeze-excite with sigmoid, 28x28."""
    torch.manual_seed(14)

    class MBConv(nn.Module):
        def __init__(self, c, expand, k):
            super().__init__()
            h = c * expand
            self.expand = _cbr(c, h, 1, act=nn.SiLU)
            self.dw = _cbr(h, h, k, groups=h, act=nn.SiLU)
            self.se = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Conv2d(h, c // 4, 1), nn.SiLU(),
                                    nn.Conv2d(c // 4, h, 1), nn.Sigmoid())
            self.project = nn.Sequential(nn.Conv2d(h, c, 1, bias=False), nn.BatchNorm2d(c))

        def forward(self, x):
            y = self.dw(self.expand(x))
            return x + self.project(y * self.se(y))

    model = nn.Sequential(MBConv(80, 6, 5), MBConv(80, 4, 3))
    return model.eval(), torch.randn(1, 80, 28, 28)


def shufflenet_block():
    """ShuffleNet units: grouped 1x1 convs, channel shuffle, 3x3 depthwise, concat, 48x48."""
    torch.manual_seed(15)

    class Unit(nn.Module):
        def __init__(self, c, groups):
            super().__init__()
            self.groups = groups
            self.g1 = _cbr(c, c, 1, groups=groups)
            self.dw = nn.Sequential(nn.Conv2d(c, c, 3, 1, 1, groups=c, bias=False),
                                    nn.BatchNorm2d(c))
            self.g2 = nn.Sequential(nn.Conv2d(c, c, 1, groups=groups, bias=False),
                                    nn.BatchNorm2d(c))

        def forward(self, x):
            b, c, h, w = x.shape
            y = self.g1(x).reshape(b, self.groups, c // self.groups, h, w)
            y = y.transpose(1, 2).reshape(b, c, h, w)
            return torch.relu(x + self.g2(self.dw(y)))

    model = nn.Sequential(Unit(120, 3), Unit(120, 4), Unit(120, 2))
    return model.eval(), torch.randn(1, 120, 48, 48)


def densenet_block():
    """A DenseNet block: BN-ReLU-conv 1x1 then 3x3, each layer's output concatenated, 32x32."""
    torch.manual_seed(16)

    class Dense(nn.Module):
        def __init__(self, c, growth, n):
            super().__init__()
            self.layers = nn.ModuleList(
                nn.Sequential(nn.BatchNorm2d(c + i * growth), nn.ReLU(),
                              nn.Conv2d(c + i * growth, 4 * growth, 1, bias=False),
                              nn.BatchNorm2d(4 * growth), nn.ReLU(),
                              nn.Conv2d(4 * growth, growth, 3, 1, 1, bias=False))
                for i in range(n))

        def forward(self, x):
            for layer in self.layers:
                x = torch.cat([x, layer(x)], 1)
            return x

    model = nn.Sequential(Dense(64, 32, 4), nn.Conv2d(192, 96, 1), nn.AvgPool2d(2))
    return model.eval(), torch.randn(1, 64, 32, 32)


def unet_small():
    """A small U-Net: strided convs down, transposed convs up, skip concatenations, 64x64."""
    torch.manual_seed(17)

    class UNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.d1, self.d2 = _cbr(3, 32), _cbr(32, 64, 3, 2)
            self.d3 = _cbr(64, 128, 3, 2)
            self.u2 = nn.ConvTranspose2d(128, 64, 2, 2)
            self.c2 = _cbr(128, 64)
            self.u1 = nn.ConvTranspose2d(64, 32, 4, 2, 1)
            self.c1 = _cbr(64, 32)
            self.head = nn.Conv2d(32, 5, 1)

        def forward(self, x):
            a = self.d1(x)
            b = self.d2(a)
            c = self.d3(b)
            b = self.c2(torch.cat([self.u2(c), b], 1))
            return self.head(self.c1(torch.cat([self.u1(b), a], 1)))

    return UNet().eval(), torch.randn(1, 3, 64, 64)


def pooling_net():
    """Pooling variants: max and average pooling at kernels 2, 3 and 5, strides 1 and 2, ceil
    mode, adaptive pooling to 7x7 and 1x1, between small convs, 80x80."""
    torch.manual_seed(18)
    model = nn.Sequential(_cbr(16, 32), nn.MaxPool2d(3, 2, ceil_mode=True), _cbr(32, 32),
                          nn.AvgPool2d(3, 1, 1, count_include_pad=False), nn.MaxPool2d(5, 1, 2),
                          nn.AvgPool2d(2), _cbr(32, 64), nn.AdaptiveAvgPool2d(7),
                          nn.AdaptiveMaxPool2d(3), nn.Flatten(), nn.Linear(64 * 9, 32))
    return model.eval(), torch.randn(1, 16, 80, 80)


def dilated_aspp():
    """DeepLab's atrous spatial pyramid: 3x3 convs at dilations 1, 6, 12, 18 and an image
    pooling branch, concatenated and projected, 33x33."""
    torch.manual_seed(19)

    class ASPP(nn.Module):
        def __init__(self, c, mid):
            super().__init__()
            self.branches = nn.ModuleList([_cbr(c, mid, 1)] + [_cbr(c, mid, 3, dilation=d)
                                                               for d in (6, 12, 18)])
            self.pool = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Conv2d(c, mid, 1), nn.ReLU())
            self.project = _cbr(5 * mid, mid, 1)

        def forward(self, x):
            pooled = self.pool(x).expand(-1, -1, x.shape[2], x.shape[3])
            return self.project(torch.cat([b(x) for b in self.branches] + [pooled], 1))

    return ASPP(256, 64).eval(), torch.randn(1, 256, 33, 33)


def inception_nchw():
    """Inception-v3 style branches with asymmetric 1x7 / 7x1 and 1x3 / 3x1 convs, 17x17 and
    8x8, NCHW (the training log has inception-v3 in NHWC)."""
    torch.manual_seed(20)

    class Branches(nn.Module):
        def __init__(self, c, mid, k):
            super().__init__()
            self.a = _cbr(c, mid, 1)
            self.b = nn.Sequential(_cbr(c, mid, 1),
                                   nn.Conv2d(mid, mid, (1, k), padding=(0, k // 2)),
                                   nn.ReLU(), nn.Conv2d(mid, mid, (k, 1), padding=(k // 2, 0)),
                                   nn.ReLU())
            self.c = nn.Sequential(nn.AvgPool2d(3, 1, 1), _cbr(c, mid, 1))

        def forward(self, x):
            return torch.cat([self.a(x), self.b(x), self.c(x)], 1)

    model = nn.Sequential(Branches(192, 64, 7), nn.MaxPool2d(3, 2), Branches(192, 96, 3))
    return model.eval(), torch.randn(1, 192, 17, 17)


def xception_separable():
    """Depthwise-separable convs at several widths and resolutions (Xception's entry flow):
    3x3 depthwise then 1x1 pointwise, strided max pooling, 1x1 strided shortcuts, 74x74."""
    torch.manual_seed(21)

    def sep(cin, cout):
        return nn.Sequential(nn.Conv2d(cin, cin, 3, 1, 1, groups=cin, bias=False),
                             nn.Conv2d(cin, cout, 1, bias=False), nn.BatchNorm2d(cout))

    def block(cin, cout):
        return _Residual(nn.Sequential(sep(cin, cout), nn.ReLU(), sep(cout, cout),
                                       nn.MaxPool2d(3, 2, 1)),
                         nn.Sequential(nn.Conv2d(cin, cout, 1, 2, bias=False),
                                       nn.BatchNorm2d(cout)))

    model = nn.Sequential(block(64, 128), block(128, 256), block(256, 728))
    return model.eval(), torch.randn(1, 64, 74, 74)


def convnext_block():
    """ConvNeXt blocks: 7x7 depthwise conv, LayerNorm over channels (channels-last permute),
    GELU MLP of 4x width, layer scale, 28x28 and 14x14."""
    torch.manual_seed(22)

    class Block(nn.Module):
        def __init__(self, c):
            super().__init__()
            self.dw = nn.Conv2d(c, c, 7, 1, 3, groups=c)
            self.norm = nn.LayerNorm(c)
            self.mlp = nn.Sequential(nn.Linear(c, 4 * c), nn.GELU(), nn.Linear(4 * c, c))
            self.gamma = nn.Parameter(torch.full((c,), 1e-2))

        def forward(self, x):
            y = self.dw(x).permute(0, 2, 3, 1)
            y = self.gamma * self.mlp(self.norm(y))
            return x + y.permute(0, 3, 1, 2)

    model = nn.Sequential(Block(96), nn.Conv2d(96, 192, 2, 2), Block(192))
    return model.eval(), torch.randn(1, 96, 28, 28)


def strided_kernels():
    """A downsampling chain with kernels 1, 3, 5 and 7 at strides 1 and 2 and odd sizes
    (99x99 down to 13x13): conv shapes the ImageNet networks do not have."""
    torch.manual_seed(23)
    model = nn.Sequential(_cbr(8, 24, 5, 2), _cbr(24, 40, 7, 1), _cbr(40, 40, 3, 2),
                          _cbr(40, 72, 1), _cbr(72, 72, 5, 2), _cbr(72, 136, 3, 1),
                          _cbr(136, 136, 7, 2))
    return model.eval(), torch.randn(1, 8, 99, 99)


def autoencoder_deconv():
    """A convolutional autoencoder: strided convs down to 8x8, then transposed convs with
    kernels 3 and 4 (output padding) back to 64x64, sigmoid output."""
    torch.manual_seed(24)
    model = nn.Sequential(_cbr(1, 32, 3, 2), _cbr(32, 64, 3, 2), _cbr(64, 128, 3, 2),
                          nn.ConvTranspose2d(128, 64, 3, 2, 1, output_padding=1), nn.ReLU(),
                          nn.ConvTranspose2d(64, 32, 4, 2, 1), nn.ReLU(),
                          nn.ConvTranspose2d(32, 1, 4, 2, 1), nn.Sigmoid())
    return model.eval(), torch.randn(1, 1, 64, 64)


def regnet_nchw():
    """RegNetY-style stages: group width 16, squeeze-excite, strided bottlenecks, 64x64.
    (A validation network: settings are chosen on it, it is never trained on.)"""
    torch.manual_seed(25)

    class Y(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.a = _cbr(cin, cout, 1)
            self.b = _cbr(cout, cout, 3, stride, groups=cout // 16)
            self.se = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Conv2d(cout, cin // 4, 1),
                                    nn.ReLU(), nn.Conv2d(cin // 4, cout, 1), nn.Sigmoid())
            self.c = nn.Sequential(nn.Conv2d(cout, cout, 1, bias=False), nn.BatchNorm2d(cout))
            self.short = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                       nn.BatchNorm2d(cout))

        def forward(self, x):
            y = self.b(self.a(x))
            return torch.relu(self.short(x) + self.c(y * self.se(y)))

    model = nn.Sequential(_cbr(3, 32, 3, 2), Y(32, 48, 2), Y(48, 112, 2), Y(112, 256, 2))
    return model.eval(), torch.randn(1, 3, 64, 64)


def cnn():
    """A torchvision-style CNN in NCHW: stem, two residual stages with downsampling, pooling,
    classifier; 112x112 input. (A test network.)"""
    torch.manual_seed(1)

    def block(cin, cout, stride):
        return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout),
                             nn.ReLU(), nn.Conv2d(cout, cout, 3, 1, 1, bias=False),
                             nn.BatchNorm2d(cout), nn.ReLU())

    model = nn.Sequential(nn.Conv2d(3, 32, 7, 2, 3, bias=False), nn.BatchNorm2d(32), nn.ReLU(),
                          nn.MaxPool2d(3, 2, 1), block(32, 64, 2), block(64, 128, 2),
                          nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(128, 100))
    return model.eval(), torch.randn(1, 3, 112, 112)


class _MBConv(nn.Module):
    """MobileNetV3's inverted residual: expand, depthwise, squeeze-excite, project, hard-swish."""

    def __init__(self, c, expand, kernel):
        super().__init__()
        h = c * expand
        self.expand = nn.Sequential(nn.Conv2d(c, h, 1, bias=False), nn.BatchNorm2d(h),
                                    nn.Hardswish())
        self.dw = nn.Sequential(nn.Conv2d(h, h, kernel, 1, kernel // 2, groups=h, bias=False),
                                nn.BatchNorm2d(h), nn.Hardswish())
        self.se = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Conv2d(h, h // 4, 1), nn.ReLU(),
                                nn.Conv2d(h // 4, h, 1), nn.Hardsigmoid())
        self.project = nn.Sequential(nn.Conv2d(h, c, 1, bias=False), nn.BatchNorm2d(c))

    def forward(self, x):
        y = self.dw(self.expand(x))
        return x + self.project(y * self.se(y))


def mobilenetv3_block():
    """Two MobileNetV3 blocks (3x3 and 5x5 depthwise) on a 56x56x40 feature map. (A test
    network.)"""
    torch.manual_seed(2)
    model = nn.Sequential(_MBConv(40, 3, 3), _MBConv(40, 6, 5))
    return model.eval(), torch.randn(1, 40, 56, 56)


class _FPN(nn.Module):
    """A feature pyramid: a strided backbone, 1x1 lateral convs, top-down nearest and bilinear
    upsampling added to the laterals, a 3x3 output conv on each level."""

    def __init__(self, widths=(24, 56, 120), d=72):
        super().__init__()
        self.stages = nn.ModuleList()
        cin = 3
        for w in widths:
            self.stages.append(_cbr(cin, w, 3, 2))
            cin = w
        self.lateral = nn.ModuleList(nn.Conv2d(w, d, 1) for w in widths)
        self.out = nn.ModuleList(nn.Conv2d(d, d, 3, 1, 1) for _ in widths)

    def forward(self, x):
        feats = []
        for stage in self.stages:
            x = stage(x)
            feats.append(x)
        top = self.lateral[-1](feats[-1])
        outs = [self.out[-1](top)]
        for i, mode in ((1, "nearest"), (0, "bilinear")):
            up = nn.functional.interpolate(top, scale_factor=2, mode=mode,
                                           **({} if mode == "nearest" else
                                              {"align_corners": False}))
            top = self.lateral[i](feats[i]) + up
            outs.append(self.out[i](top))
        return tuple(outs)


def fpn_upsample():
    """A feature-pyramid neck on a 3-stage backbone at 120x120: nearest and bilinear 2x
    upsampling (image resize), lateral 1x1 convs, adds."""
    torch.manual_seed(26)
    return _FPN().eval(), torch.randn(1, 3, 120, 120)


def superres_pixelshuffle():
    """An ESPCN-style super-resolution network: 5x5 and 3x3 convs with tanh on a 72x72 image,
    then a 3x pixel shuffle (depth to space)."""
    torch.manual_seed(27)
    model = nn.Sequential(nn.Conv2d(3, 64, 5, 1, 2), nn.Tanh(), nn.Conv2d(64, 32, 3, 1, 1),
                          nn.Tanh(), nn.Conv2d(32, 3 * 9, 3, 1, 1), nn.PixelShuffle(3),
                          nn.Sigmoid())
    return model.eval(), torch.randn(1, 3, 72, 72)


class _StyleResidual(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.body = nn.Sequential(nn.ReflectionPad2d(1), nn.Conv2d(c, c, 3),
                                  nn.InstanceNorm2d(c, affine=True), nn.ReLU(),
                                  nn.ReflectionPad2d(1), nn.Conv2d(c, c, 3),
                                  nn.InstanceNorm2d(c, affine=True))

    def forward(self, x):
        return x + self.body(x)


def style_transfer():
    """A fast-style-transfer network at 96x96: reflection padding, instance norm, strided
    convs, residual blocks, nearest upsampling then convs."""
    torch.manual_seed(28)

    def conv(cin, cout, k, stride=1):
        return [nn.ReflectionPad2d(k // 2), nn.Conv2d(cin, cout, k, stride),
                nn.InstanceNorm2d(cout, affine=True), nn.ReLU()]

    model = nn.Sequential(*conv(3, 24, 9), *conv(24, 48, 3, 2), *conv(48, 96, 3, 2),
                          _StyleResidual(96), _StyleResidual(96), nn.Upsample(scale_factor=2),
                          *conv(96, 48, 3), nn.Upsample(scale_factor=2), *conv(48, 24, 3),
                          nn.ReflectionPad2d(4), nn.Conv2d(24, 3, 9))
    return model.eval(), torch.randn(1, 3, 96, 96)


def cifar_resnet_batch8():
    """A CIFAR ResNet at batch 8 (32x32, widths 20-80): convs and dense layers whose batch is
    not 1, as served in batches."""
    torch.manual_seed(29)
    model = nn.Sequential(_cbr(3, 20, 3), _basic_block(20, 20, 1), _basic_block(20, 40, 2),
                          _basic_block(40, 80, 2),
                          nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(80, 10))
    return model.eval(), torch.randn(8, 3, 32, 32)


class _YoloTiny(nn.Module):
    """A YOLOv3-tiny-style detector: convs with leaky ReLU, max pooling, a stride-1 max pool,
    two heads of 3 x (5 + 20) channels, the second after a 2x upsampling and a concat."""

    def __init__(self):
        super().__init__()

        def cbl(cin, cout, k=3):
            return nn.Sequential(nn.Conv2d(cin, cout, k, 1, k // 2, bias=False),
                                 nn.BatchNorm2d(cout), nn.LeakyReLU(0.1))

        self.body = nn.Sequential(cbl(3, 16), nn.MaxPool2d(2), cbl(16, 32), nn.MaxPool2d(2),
                                  cbl(32, 64), nn.MaxPool2d(2), cbl(64, 128))
        self.deep = nn.Sequential(nn.MaxPool2d(2), cbl(128, 256), nn.ZeroPad2d((0, 1, 0, 1)),
                                  nn.MaxPool2d(2, 1), cbl(256, 512), cbl(512, 128, 1))
        self.head1 = nn.Sequential(cbl(128, 256), nn.Conv2d(256, 75, 1))
        self.reduce = cbl(128, 64, 1)
        self.head2 = nn.Sequential(cbl(192, 128), nn.Conv2d(128, 75, 1))

    def forward(self, x):
        route = self.body(x)
        y = self.deep(route)
        up = nn.functional.interpolate(self.reduce(y), scale_factor=2, mode="nearest")
        return self.head1(y), self.head2(torch.cat([up, route], 1))


def yolo_tiny():
    """A YOLOv3-tiny-style detector at 160x160: leaky ReLU, a stride-1 max pool, two
    detection heads."""
    torch.manual_seed(30)
    return _YoloTiny().eval(), torch.randn(1, 3, 160, 160)


def depthwise_nchw():
    """Depthwise-separable blocks kept in NCHW (Relay's x86 alter-layout makes them
    ``depthwise_conv2d_NCHWc``): 3x3 and 5x5 depthwise at strides 1 and 2, 80x80."""
    torch.manual_seed(31)

    def sep(cin, cout, k, stride):
        return nn.Sequential(_cbr(cin, cin, k, stride, groups=cin, act=nn.ReLU6),
                             _cbr(cin, cout, 1, act=nn.ReLU6))

    model = nn.Sequential(_cbr(3, 24, 3, 2, act=nn.ReLU6), sep(24, 48, 3, 1), sep(48, 72, 5, 2),
                          sep(72, 72, 3, 1), sep(72, 144, 5, 2), sep(144, 144, 3, 1))
    return model.eval(), torch.randn(1, 3, 80, 80)
