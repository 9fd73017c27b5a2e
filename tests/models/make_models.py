#!/usr/bin/env python3
"""Builds the project's own test models and their TFLM reference vectors.

    python3 -m venv .venv && .venv/bin/pip install tensorflow-cpu==2.21.0 tflite-micro numpy
    .venv/bin/python tests/models/make_models.py            # writes into tests/models/

Each model is small, untrained (seeded random weights) and exercises one
group of operators and options. Every model is converted twice: float32,
and full-integer int8 (int8 inputs and outputs, representative dataset of
seeded uniform(-1, 1) samples). For each, `NAME.input.bin` holds seeded
random inputs (concatenated, little-endian, input order) and
`NAME.output.bin` the outputs of TFLM's Python interpreter (reference
kernels) on them. Stateful models (SVDF, written with the schema's object
API) hold four sets of inputs, run one after another, and five sets of
outputs: the fifth after `reset()` and the first inputs again. The tests
need only these files, not Python.
"""
import os
import sys

import numpy as np

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')
import tensorflow as tf  # noqa: E402
from tflite_micro.python.tflite_micro import runtime as tflm  # noqa: E402
from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as schema_fb  # noqa: E402

OUT = os.path.dirname(os.path.abspath(__file__))
L = tf.keras.layers
K = tf.keras.ops


def seeded(seed):
    tf.keras.utils.set_random_seed(seed)
    return {
        'kernel_initializer': tf.keras.initializers.RandomNormal(stddev=0.4, seed=seed),
        'bias_initializer': tf.keras.initializers.RandomNormal(stddev=0.2, seed=seed + 1),
    }


def fc_chain(s):
    x = i = L.Input((8,), batch_size=1)
    x = L.Dense(16, activation='relu', **s)(x)
    x = L.Dense(12, activation='relu6', **s)(x)
    x = L.Dense(6, use_bias=False, **s)(x)
    x = L.Dense(4, **s)(x)
    return tf.keras.Model(i, L.Softmax()(x))


def fc_keep_dims(s):
    i = L.Input((3, 8), batch_size=1)
    return tf.keras.Model(i, L.Dense(5, activation='relu', **s)(i))


def conv_options(s):
    x = i = L.Input((12, 11, 3), batch_size=1)
    x = L.Conv2D(4, 3, strides=2, padding='same', activation='relu6', **s)(x)
    x = L.Conv2D(6, 3, dilation_rate=2, padding='valid', activation='relu', **s)(x)
    x = L.Conv2D(5, (1, 2), strides=(1, 2), padding='same', **s)(x)
    x = L.Conv2D(4, 2, padding='same', use_bias=False, **s)(x)
    x = K.clip(x, -1.0, 1.0)  # fuses to RELU_N1_TO_1
    return tf.keras.Model(i, x)


def conv_grouped(s):
    x = i = L.Input((7, 7, 4), batch_size=1)
    x = L.Conv2D(6, 3, groups=2, padding='same', activation='relu', **s)(x)
    x = L.Conv2D(4, 2, strides=2, padding='valid', **s)(x)
    return tf.keras.Model(i, x)


def depthwise(s):
    d = {'depthwise_initializer': s['kernel_initializer'], 'bias_initializer': s['bias_initializer']}
    x = i = L.Input((11, 10, 3), batch_size=1)
    x = L.DepthwiseConv2D(3, strides=2, depth_multiplier=2, padding='same', activation='relu', **d)(x)
    x = L.DepthwiseConv2D(3, dilation_rate=2, padding='same', activation='relu6', **d)(x)
    x = L.DepthwiseConv2D((2, 3), padding='valid', use_bias=False, depthwise_initializer=d['depthwise_initializer'])(x)
    return tf.keras.Model(i, x)


def pooling(s):
    x = i = L.Input((9, 10, 4), batch_size=1)
    a = L.MaxPooling2D(3, strides=2, padding='same')(x)
    a = L.AveragePooling2D(3, strides=2, padding='same')(a)
    b = L.AveragePooling2D(2, padding='valid')(x)
    b = L.MaxPooling2D((2, 3), strides=(1, 2), padding='valid')(b)
    return tf.keras.Model(i, [a, b])


def mean(s):
    x = i = L.Input((6, 5, 8), batch_size=1)
    x = L.Conv2D(8, 1, activation='relu', **s)(x)
    a = L.GlobalAveragePooling2D()(x)
    b = L.GlobalAveragePooling2D(keepdims=True)(x)
    c = K.mean(x, axis=-1, keepdims=True)
    d = K.mean(x, axis=[1, 3])
    return tf.keras.Model(i, [a, b, c, d])


def add_broadcast(s):
    a = L.Input((5, 5, 4), batch_size=1)
    b = L.Input((1, 1, 4), batch_size=1)
    c = L.Input((5, 5, 1), batch_size=1)
    x = L.Conv2D(4, 3, padding='same', **s)(a)
    y = L.ReLU()(L.Add()([x, a]))
    z = a + b
    w = K.relu6(z + c)
    return tf.keras.Model([a, b, c], [y, w])


def resnet_block(s):
    x = i = L.Input((8, 8, 8), batch_size=1)
    y = L.Conv2D(8, 3, padding='same', activation='relu', **s)(x)
    y = L.Conv2D(8, 3, padding='same', **s)(y)
    x = L.ReLU()(L.Add()([x, y]))
    x = L.DepthwiseConv2D(3, padding='same', activation='relu', depthwise_initializer=s['kernel_initializer'])(x)
    x = L.AveragePooling2D(2)(x)
    x = L.Flatten()(x)
    x = L.Dense(6, **s)(x)
    return tf.keras.Model(i, L.Softmax()(x))


def branches(s):
    """Two wide branches joined by an ADD: the converter's op order keeps
    both wide tensors live at once; running one branch to its end first
    needs about half the arena."""
    t = seeded(900)  # the branches need different weights, or the converter merges them
    x = i = L.Input((16,), batch_size=1)
    a = L.Dense(256, activation='relu', **s)(x)
    b = L.Dense(256, activation='relu', **t)(x)
    a = L.Dense(8, **s)(a)
    b = L.Dense(8, **t)(b)
    return tf.keras.Model(i, L.Add()([a, b]))


def activations(s):
    """Standalone activation ops (on the input, where nothing can fuse them)."""
    x = i = L.Input((6, 5, 4), batch_size=1)
    outs = [
        L.ReLU()(x),
        L.ReLU(max_value=6.0)(x * 8.0),
        L.Activation('sigmoid')(x * 4.0),
        L.Activation('tanh')(x * 3.0),
        L.LeakyReLU(negative_slope=0.2)(x),
        K.hard_silu(x * 5.0),
    ]
    return tf.keras.Model(i, outs)


def binary_ops(s):
    """SUB, MUL (also by a constant), MAXIMUM, MINIMUM, with broadcasting."""
    a = L.Input((4, 5, 3), batch_size=1)
    b = L.Input((1, 5, 3), batch_size=1)
    return tf.keras.Model([a, b], [a - b, a * b, K.maximum(a, b), K.minimum(a, b), a * 0.5 + b])


def movement(s):
    """Data movement: CONCATENATION, PAD, TRANSPOSE, STRIDED_SLICE, SPLIT,
    PACK, UNPACK, SQUEEZE / EXPAND_DIMS."""
    x = i = L.Input((6, 5, 4), batch_size=1)
    y = L.Conv2D(3, 1, **s)(x)
    c = L.Concatenate(axis=-1)([x, y])
    p = L.ZeroPadding2D(((1, 2), (0, 1)))(c)
    t = L.Permute((2, 1, 3))(p)
    sl = t[:, 1:5, ::2, 2:]
    a, b = K.split(x, 2, axis=-1)
    st = K.stack([a, b], axis=1)
    u0, u1 = K.unstack(st, axis=1)
    e = K.squeeze(K.expand_dims(u1, 0), 0)
    return tf.keras.Model(i, [sl, st, u0 - e])


class TfFn(L.Layer):
    """Applies a plain TensorFlow function (for ops Keras wraps differently)."""

    def __init__(self, f, **kw):
        super().__init__(**kw)
        self.f = f

    def call(self, x):
        return self.f(x)


def reductions(s):
    """SUM, REDUCE_MAX, REDUCE_MIN, ARG_MAX, ARG_MIN, RESIZE_NEAREST_NEIGHBOR (and, in
    the float model, EXP, LOG, SQRT, RSQRT, ABS, NEG)."""
    x = i = L.Input((6, 5, 4), batch_size=1)
    outs = [
        K.sum(x, axis=[1, 2]),
        K.max(x, axis=-1, keepdims=True),
        K.min(x, axis=1),
        TfFn(lambda t: tf.math.argmax(t, axis=-1, output_type=tf.int32))(x),
        TfFn(lambda t: tf.math.argmin(t, axis=1, output_type=tf.int32))(x),
        TfFn(lambda t: tf.image.resize(t, (9, 13), method='nearest'))(x),
    ]
    return tf.keras.Model(i, outs)


def float_math(s):
    """float32-only elementwise math: EXP, LOG, SQRT, RSQRT, NEG, ABS, SIN,
    COS, SQUARE."""
    x = i = L.Input((3, 4), batch_size=1)
    a = K.abs(x)
    return tf.keras.Model(i, [K.exp(x), K.log(a + 0.1), K.sqrt(a), 1.0 / K.sqrt(a + 0.5), -x, a, K.sin(x * 3.0),
                              K.cos(x * 3.0), K.square(x)])


def space_gather(s):
    """SPACE_TO_DEPTH, DEPTH_TO_SPACE, GATHER (constant indices, and with
    batch_dims)."""
    x = i = L.Input((4, 6, 8), batch_size=1)
    sd = TfFn(lambda t: tf.nn.space_to_depth(t, 2))(x)
    ds = TfFn(lambda t: tf.nn.depth_to_space(t, 2))(x)
    g = TfFn(lambda t: tf.gather(t, tf.constant([5, 0, 3, 3]), axis=2))(x)
    bg = TfFn(lambda t: tf.gather(t, tf.constant([[1, 0, 3], [2, 2, 0], [3, 1, 1], [0, 0, 2]])[None], axis=2, batch_dims=2))(x)
    return tf.keras.Model(i, [sd, ds, g, bg])


def float_binary(s):
    """float32 DIV and SQUARED_DIFFERENCE."""
    a = L.Input((3, 4), batch_size=1)
    b = L.Input((1, 4), batch_size=1)
    return tf.keras.Model([a, b], [a / (K.abs(b) + 0.5), TfFn(lambda t: tf.math.squared_difference(t[0], t[1]))([a, b])])


def prelu_elu(s):
    """PRELU (per-channel alpha) and ELU."""
    x = i = L.Input((4, 5, 3), batch_size=1)
    p = L.PReLU(alpha_initializer=tf.keras.initializers.RandomUniform(-0.5, 0.5, seed=7), shared_axes=[1, 2])(x)
    return tf.keras.Model(i, [p, L.ELU()(x * 3.0)])


def quant_ops(s):
    """Quantized in int8 and int16 (16x8): SUB, SQUARED_DIFFERENCE, ABS,
    RSQRT, SOFTMAX, LOGISTIC, TANH, RELU, LEAKY_RELU, and data movement
    (CONCATENATION, TRANSPOSE, PAD, STRIDED_SLICE)."""
    a = L.Input((4, 5, 6), batch_size=1)
    b = L.Input((1, 5, 6), batch_size=1)
    return tf.keras.Model([a, b], [
        a - b,
        TfFn(lambda t: tf.math.squared_difference(t[0], t[1]))([a, b]),
        K.abs(a - b),
        TfFn(lambda t: tf.math.rsqrt(t))(K.abs(a) + 0.1),
        L.Softmax()(a * 3.0),
        L.Activation('sigmoid')(a * 4.0),
        L.Activation('tanh')(a * 3.0),
        L.ReLU()(a),
        L.ReLU(max_value=6.0)(a),
        L.LeakyReLU(negative_slope=0.2)(a),
        L.Permute((2, 1, 3))(L.ZeroPadding2D(((1, 0), (0, 2)))(L.Concatenate(axis=1)([a, b * 2.0])))[:, 1:, ::2, :],
    ])


def int8_math(s):
    """DIV, RSQRT, ELU: int8 in TFLM (the int8 model's ELU, which the
    converter leaves in float between DEQUANTIZE and QUANTIZE, is rewritten
    to an int8 ELU by `quantize_float_islands`)."""
    a = L.Input((4, 5, 6), batch_size=1)
    b = L.Input((1, 5, 6), batch_size=1)
    return tf.keras.Model([a, b], [a / (K.abs(b) + 0.5), TfFn(lambda t: tf.math.rsqrt(t))(K.abs(a) + 0.1), L.ELU()(a * 3.0)])


def transpose_conv(s):
    """TRANSPOSE_CONV: strides, SAME and VALID, with and without bias."""
    x = i = L.Input((5, 4, 3), batch_size=1)
    a = L.Conv2DTranspose(4, 3, strides=2, padding='same', **s)(x)
    b = L.Conv2DTranspose(2, (2, 3), strides=(1, 2), padding='valid', use_bias=False, kernel_initializer=s['kernel_initializer'])(x)
    c = L.Conv2DTranspose(3, 4, strides=2, padding='valid', activation='relu', **s)(a)
    return tf.keras.Model(i, [b, c])


def resize_bilinear(s):
    """RESIZE_BILINEAR: up and down, align_corners, half_pixel_centers."""
    x = i = L.Input((6, 5, 4), batch_size=1)
    return tf.keras.Model(i, [
        TfFn(lambda t: tf.compat.v1.image.resize_bilinear(t, (9, 13)))(x),
        TfFn(lambda t: tf.compat.v1.image.resize_bilinear(t, (12, 10), align_corners=True))(x),
        TfFn(lambda t: tf.compat.v1.image.resize_bilinear(t, (9, 7), half_pixel_centers=True))(x),
        TfFn(lambda t: tf.compat.v1.image.resize_bilinear(t, (4, 3), half_pixel_centers=True))(x),
    ])


def ds_cnn_kws(s):
    """A small depthwise-separable keyword-spotting CNN (the example's model)."""
    d = {'depthwise_initializer': s['kernel_initializer']}
    x = i = L.Input((49, 10, 1), batch_size=1)
    x = L.Conv2D(16, (10, 4), strides=2, padding='same', activation='relu', **s)(x)
    for _ in range(2):
        x = L.DepthwiseConv2D(3, padding='same', activation='relu', **d)(x)
        x = L.Conv2D(16, 1, activation='relu', **s)(x)
    x = L.AveragePooling2D((25, 5))(x)
    x = L.Flatten()(x)
    x = L.Dense(12, **s)(x)
    return tf.keras.Model(i, L.Softmax()(x))


def ds_cnn_16x8(s):
    """MLPerf Tiny's keyword-spotting DS-CNN layer by layer (49x10 MFCCs, a
    10x4 stride-2 convolution to 64 channels, four depthwise-separable
    blocks of 64, average pool, 12 classes; its batch norms folded away),
    untrained, converted 16x8 only: the benchmark of the int16 kernels.
    Weights scaled by their fan-in, so the activations and the 12 classes'
    probabilities stay spread out (not one saturated class)."""
    seed = s['kernel_initializer'].seed

    def init(fan_in, k):
        return tf.keras.initializers.RandomNormal(stddev=(1.0 / fan_in) ** 0.5, seed=seed + k)
    b = s['bias_initializer']
    x = i = L.Input((49, 10, 1), batch_size=1)
    x = L.Conv2D(64, (10, 4), strides=2, padding='same', activation='relu', kernel_initializer=init(40, 0),
                 bias_initializer=b)(x)
    for k in range(4):
        x = L.DepthwiseConv2D(3, padding='same', activation='relu', depthwise_initializer=init(9, 2 * k + 1),
                              bias_initializer=b)(x)
        x = L.Conv2D(64, 1, activation='relu', kernel_initializer=init(64, 2 * k + 2), bias_initializer=b)(x)
    x = L.AveragePooling2D((25, 5))(x)
    x = L.Flatten()(x)
    x = L.Dense(12, kernel_initializer=init(64, 9), bias_initializer=b)(x)
    return tf.keras.Model(i, L.Softmax()(x))


def hybrid(s):
    """The converter's dynamic-range quantization (no representative
    dataset): CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED with int8
    weights on float32 activations (layers of 1024 weights or more; the
    smaller last Dense stays float32). TFLM refuses it; LiteRT's reference
    kernels give the reference."""
    d = {'depthwise_initializer': s['kernel_initializer'], 'bias_initializer': s['bias_initializer']}
    x = i = L.Input((12, 12, 8), batch_size=1)
    x = L.Conv2D(24, 3, padding='same', activation='relu', **s)(x)
    x = L.Conv2D(128, 1, strides=2, activation='relu', **s)(x)
    x = L.DepthwiseConv2D(3, padding='same', activation='relu6', **d)(x)
    x = L.GlobalAveragePooling2D()(x)
    x = L.Dense(32, activation='relu', **s)(x)
    return tf.keras.Model(i, L.Dense(10, **s)(x))


def add_sub_large(s):
    """Same-shape ADD and SUB of 512 elements (where int8 inputs are
    rescaled through tables), the larger-scale operand first or second,
    with and without a fused ReLU."""
    a = L.Input((16, 8, 4), batch_size=1)
    b = L.Input((16, 8, 4), batch_size=1)
    wide = a * 3.0
    return tf.keras.Model([a, b], [a - b, L.ReLU()(b + wide), b - wide, wide + a])


def pool_wide(s):
    """AVERAGE_POOL_2D over 256 taps (the most the 16-bit lane sums of the
    DSP kernel take) and over 289 (the int32 kernel)."""
    x = i = L.Input((17, 17, 4), batch_size=1)
    a = L.AveragePooling2D(16, strides=1, padding='valid')(x)
    b = L.AveragePooling2D(17, strides=1, padding='valid')(x)
    return tf.keras.Model(i, [a, b])


def depthwise_rows(s):
    """The widened-rows depthwise kernel's shapes (its assembly loop on DSP
    cores): 3x3 with stride 2 (SAME, odd output width), 5x5 (SAME, odd),
    3x2 (VALID, an even filter and output width) and 5x3 (SAME, even), 12
    channels on a tall map (so the widened rows' scratch fits within
    TFLM's arena), linear so the requantization is fused."""
    d = {'depthwise_initializer': s['kernel_initializer'], 'bias_initializer': s['bias_initializer']}
    x = i = L.Input((40, 9, 12), batch_size=1)
    x = L.DepthwiseConv2D(3, strides=2, padding='same', **d)(x)
    x = L.DepthwiseConv2D(5, padding='same', **d)(x)
    x = L.DepthwiseConv2D((3, 2), padding='valid', **d)(x)
    x = L.DepthwiseConv2D((5, 3), padding='same', **d)(x)
    return tf.keras.Model(i, x)


def depthwise_shapes(s):
    """More of the widened-rows kernel's shapes: 4x7 with stride 3 across
    (SAME), 1x4 (VALID, a single filter row), 2x1 with stride 2 down (a
    single filter column), 3x8 (SAME, the widest), 6 channels."""
    d = {'depthwise_initializer': s['kernel_initializer'], 'bias_initializer': s['bias_initializer']}
    x = i = L.Input((36, 15, 6), batch_size=1)
    x = L.DepthwiseConv2D((4, 7), strides=(1, 3), padding='same', **d)(x)
    x = L.DepthwiseConv2D((1, 4), padding='valid', **d)(x)
    x = L.DepthwiseConv2D((2, 1), strides=(2, 1), padding='same', **d)(x)
    x = L.DepthwiseConv2D((3, 8), padding='same', **d)(x)
    return tf.keras.Model(i, x)


def depthwise_tails(s):
    """The last pass of a row of the widened-rows kernel's 3-tap assembly:
    output widths 9 and 5 (the last 4 with the odd one: stride 1 and 2),
    3 and 7 (a pass of 3, after none or one of 4), 2 and 1; ReLU layers
    (output zero point -128: no rounding nudge of negative sums) between
    linear ones, 6 channels."""
    d = {'depthwise_initializer': s['kernel_initializer'], 'bias_initializer': s['bias_initializer']}
    x = i = L.Input((10, 9, 6), batch_size=1)
    a = L.DepthwiseConv2D(3, padding='same', activation='relu', **d)(x)
    a = L.DepthwiseConv2D(3, strides=2, padding='same', **d)(a)
    a = L.DepthwiseConv2D(3, padding='valid', activation='relu', **d)(a)
    a = L.DepthwiseConv2D(3, padding='valid', **d)(a)
    b = L.DepthwiseConv2D(3, padding='valid', activation='relu', **d)(x)
    b = L.DepthwiseConv2D(3, strides=2, padding='same', **d)(b)
    b = L.DepthwiseConv2D(3, strides=2, padding='same', activation='relu', **d)(b)
    b = L.DepthwiseConv2D(3, strides=2, padding='same', **d)(b)
    return tf.keras.Model(i, [a, b])


def masks(s):
    """Comparisons and bools: GREATER, GREATER_EQUAL, LESS, LESS_EQUAL,
    NOT_EQUAL, EQUAL (of bools), LOGICAL_AND/OR/NOT, SELECT_V2, REDUCE_ALL,
    CAST from bool; bool graph outputs."""
    a = L.Input((5, 8), batch_size=1)
    b = L.Input((1, 8), batch_size=1)
    m = L.Input((5, 1), batch_size=1, dtype='bool')
    x = L.Dense(8, **s)(a)
    above = K.greater(x, b)
    keep = K.logical_and(K.greater_equal(a, 0.2), K.logical_not(K.logical_or(K.less(b, -0.3), m)))
    either = K.logical_or(keep, K.not_equal(a, x))
    agree = K.equal(above, keep)
    picked = K.where(above, x, b * 0.5)
    gated = a * K.cast(K.less_equal(a, 0.0), 'float32')
    return tf.keras.Model([a, b, m], [picked, keep, K.all(either, axis=-1), agree, gated])


def attention(s):
    """One self-attention head, as in small keyword transformers:
    BATCH_MATMUL of computed operands (q x k^T with adj_y, then x v),
    SOFTMAX between, and a BATCH_MATMUL by a constant 3-D weight."""
    i = L.Input((10, 16), batch_size=1)
    q = L.Dense(8, **s)(i)
    k = L.Dense(8, **s)(i)
    v = L.Dense(8, **s)(i)
    scores = L.Softmax()(K.matmul(q, K.transpose(k, (0, 2, 1))) * 0.35)
    mixed = K.matmul(scores, v)
    w = tf.constant(np.random.RandomState(5).normal(0, 0.4, (1, 8, 6)).astype(np.float32))
    return tf.keras.Model(i, TfFn(lambda t: tf.linalg.matmul(t, w))(mixed))


def recurrent(s):
    """Keras 3's LSTM and GRU layers: the converter writes each as a WHILE
    loop over the time steps (not the fused LSTM op). Only their last
    output: with `return_sequences` the converter's TensorList updates
    SLICE with sizes its static shapes do not hold, which TFLM runs past
    the tensors' ends. Float only: the converter's int8 calibration dies on
    the loops (TF 2.21)."""
    x = L.Input((6, 4), batch_size=1)
    y = L.Concatenate()([L.LSTM(5, **s)(x), L.GRU(4, **s)(x)])
    return tf.keras.Model(x, L.Dense(3, **s)(y))


def recurrent_sequences(s):
    """Keras RNN layers with `return_sequences` (a bidirectional LSTM, a
    backwards GRU, a SimpleRNN): each a WHILE loop whose body writes its
    step's output into a list as the converter lowers TensorListSetItem (a
    SLICE before the row, one after it, a CONCATENATION; the SLICEs' shapes
    change every step). TFLM runs past the SLICEs' tensors; LiteRT's
    reference kernels give the reference."""
    x = i = L.Input((6, 4), batch_size=1)
    r = {'recurrent_initializer': tf.keras.initializers.Orthogonal(seed=7), **s}
    x = L.Bidirectional(L.LSTM(5, return_sequences=True, **r))(x)
    x = L.GRU(4, return_sequences=True, go_backwards=True, **r)(x)
    x = L.SimpleRNN(3, return_sequences=True, **r)(x)
    return tf.keras.Model(i, L.Dense(2, **s)(x))


MODELS = [fc_chain, fc_keep_dims, conv_options, conv_grouped, depthwise, pooling, mean, add_broadcast, resnet_block, ds_cnn_kws, branches, activations, binary_ops, movement, reductions, float_math, space_gather, float_binary, prelu_elu, quant_ops, int8_math, transpose_conv, resize_bilinear, add_sub_large, pool_wide, depthwise_rows, depthwise_shapes, masks, attention, recurrent,
          depthwise_tails, ds_cnn_16x8]


def set_softmax_beta(data, beta):
    """Rewrites every SOFTMAX's beta (Keras cannot set it) with the schema's object API."""
    m = schema_fb.ModelT.InitFromObj(schema_fb.Model.GetRootAsModel(data, 0))
    for op in m.subgraphs[0].operators:
        code = m.operatorCodes[op.opcodeIndex]
        if max(code.builtinCode, code.deprecatedBuiltinCode) == 25:
            op.builtinOptions.beta = beta
    import flatbuffers
    b = flatbuffers.Builder(1024)
    b.Finish(m.Pack(b), file_identifier=b'TFL3')
    return bytes(b.Output())


def wide_first(data):
    """Reorders the ops of `branches` so both wide FULLY_CONNECTEDs run
    before either narrow one: still a valid topological order (one another
    converter could emit), but it keeps both wide tensors live together.
    tinyaot must find the better order itself."""
    m = schema_fb.ModelT.InitFromObj(schema_fb.Model.GetRootAsModel(data, 0))
    ops = m.subgraphs[0].operators
    produced = {}
    for k, op in enumerate(ops):
        for t in op.outputs:
            produced[t] = k
    wide = [k for k, op in enumerate(ops) if m.subgraphs[0].tensors[op.outputs[0]].shape[-1] == 256]
    rest = [k for k in range(len(ops)) if k not in wide]
    order = wide + rest
    # Keep it topological: every input produced earlier in the new order.
    pos = {k: p for p, k in enumerate(order)}
    assert all(pos[produced[t]] < pos[k] for k, op in enumerate(ops) for t in op.inputs if t in produced)
    m.subgraphs[0].operators = [ops[k] for k in order]
    import flatbuffers
    b = flatbuffers.Builder(1024)
    b.Finish(m.Pack(b), file_identifier=b'TFL3')
    return bytes(b.Output())


def pack(m):
    import flatbuffers
    b = flatbuffers.Builder(1024)
    b.Finish(m.Pack(b), file_identifier=b'TFL3')
    return bytes(b.Output())


def quantize_float_islands(data, op_names):
    """Rewrites DEQUANTIZE -> op -> QUANTIZE (a float op the converter left
    between int8 tensors) into the op on the int8 tensors directly, with the
    DEQUANTIZE input's and the QUANTIZE output's quantization."""
    m = schema_fb.ModelT.InitFromObj(schema_fb.Model.GetRootAsModel(data, 0))
    sg = m.subgraphs[0]
    codes = [max(c.builtinCode, c.deprecatedBuiltinCode) for c in m.operatorCodes]
    want = [getattr(schema_fb.BuiltinOperator, n) for n in op_names]
    producer = {t: op for op in sg.operators for t in op.outputs}
    consumers = {}
    for op in sg.operators:
        for t in op.inputs:
            consumers.setdefault(t, []).append(op)
    drop = []
    for op in sg.operators:
        if codes[op.opcodeIndex] not in want:
            continue
        deq = producer.get(op.inputs[0])
        users = consumers.get(op.outputs[0], [])
        if deq is None or codes[deq.opcodeIndex] != schema_fb.BuiltinOperator.DEQUANTIZE or len(users) != 1:
            continue
        q = users[0]
        if codes[q.opcodeIndex] != schema_fb.BuiltinOperator.QUANTIZE:
            continue
        op.inputs = [deq.inputs[0]]
        op.outputs = [q.outputs[0]]
        drop += [q] + ([deq] if len(consumers[deq.outputs[0]]) == 1 else [])
    sg.operators = [op for op in sg.operators if all(op is not d for d in drop)]
    return pack(m)


def requantize_model(seed):
    """QUANTIZE between integer types (int8 -> int16 -> int16 -> int8,
    int8 -> int32 -> int8, int8 -> uint8 -> int8, int16 -> int32 -> int16) and a
    DEQUANTIZE of uint8, written directly with the schema's object API: the
    converter never emits these on its own."""
    T = schema_fb.TensorType
    m = schema_fb.ModelT()
    m.version = 3
    m.buffers = [schema_fb.BufferT()]
    code = schema_fb.OperatorCodeT()
    code.builtinCode = code.deprecatedBuiltinCode = schema_fb.BuiltinOperator.QUANTIZE
    code.version = 1
    deq = schema_fb.OperatorCodeT()
    deq.builtinCode = deq.deprecatedBuiltinCode = schema_fb.BuiltinOperator.DEQUANTIZE
    deq.version = 1
    m.operatorCodes = [code, deq]
    sg = schema_fb.SubGraphT()
    specs = [('in', T.INT8, 0.05, 3), ('wide', T.INT16, 0.0013, 0), ('rescaled', T.INT16, 0.0021, 0),
             ('narrow', T.INT8, 0.03, -7), ('int32', T.INT32, 0.0007, 5), ('uint8', T.UINT8, 0.04, 131),
             ('back', T.INT8, 0.045, -2), ('wide32', T.INT32, 0.0001, 0), ('from32', T.INT16, 0.0009, 0),
             ('narrow32', T.INT8, 0.02, 4)]
    sg.tensors = []
    for name, ty, scale, zp in specs:
        t = schema_fb.TensorT()
        t.name, t.type, t.shape, t.buffer = name, ty, [1, 3, 7], 0
        t.quantization = schema_fb.QuantizationParametersT()
        t.quantization.scale, t.quantization.zeroPoint = [scale], [zp]
        sg.tensors.append(t)
    t = schema_fb.TensorT()
    t.name, t.type, t.shape, t.buffer = 'uint8_dequantized', T.FLOAT32, [1, 3, 7], 0
    sg.tensors.append(t)
    sg.operators = []
    for i, o in [(0, 1), (1, 2), (2, 3), (0, 4), (0, 5), (5, 6), (2, 7), (7, 8), (4, 9)]:
        op = schema_fb.OperatorT()
        op.opcodeIndex, op.inputs, op.outputs = 0, [i], [o]
        sg.operators.append(op)
    op = schema_fb.OperatorT()
    op.opcodeIndex, op.inputs, op.outputs = 1, [5], [10]
    sg.operators.append(op)
    sg.inputs, sg.outputs = [0], [3, 4, 1, 6, 8, 10, 9]
    m.subgraphs = [sg]
    return pack(m)


def single_op_model(op_code):
    """An empty model with one operator code and one subgraph, written with
    the schema's object API, and its tensor maker (`single_op_tensors`)."""
    m = schema_fb.ModelT()
    m.version = 3
    m.buffers = [schema_fb.BufferT()]
    code = schema_fb.OperatorCodeT()
    code.builtinCode = code.deprecatedBuiltinCode = op_code
    code.version = 1
    m.operatorCodes = [code]
    sg = schema_fb.SubGraphT()
    sg.tensors = []
    return m, sg, single_op_tensors(m, sg)


def single_op_tensors(m, sg):
    """A tensor maker for a model written with the schema's object API:
    `tensor(name, type, shape, (scale, zero_point), data, variable)` adds
    the tensor (and a buffer for `data`) and returns its index."""
    def tensor(name, ty, shape, q=None, data=None, variable=False):
        t = schema_fb.TensorT()
        t.name, t.type, t.shape, t.isVariable, t.buffer = name, ty, list(shape), variable, 0
        if data is not None:
            b = schema_fb.BufferT()
            b.data = np.frombuffer(np.ascontiguousarray(data).astype(data.dtype.newbyteorder('<')).tobytes(), np.uint8)
            m.buffers.append(b)
            t.buffer = len(m.buffers) - 1
        if q is not None:
            t.quantization = schema_fb.QuantizationParametersT()
            t.quantization.scale, t.quantization.zeroPoint = [q[0]], [q[1]]
        sg.tensors.append(t)
        return len(sg.tensors) - 1
    return tensor


def svdf_model(seed, batch, inputs, filters, rank, memory, quantized, state_type=None, activation=0):
    """One SVDF op, written with the schema's object API (Keras has no SVDF
    layer): random weights, a variable state tensor. `quantized`: int8
    input, feature weights and output; state and time weights of
    `state_type` (INT16 or INT8); int32 bias at state x time scale."""
    T = schema_fb.TensorType
    rs = np.random.RandomState(seed)
    m, sg, tensor = single_op_model(schema_fb.BuiltinOperator.SVDF)

    units = filters // rank
    if quantized:
        st = state_type
        s_in, s_wf, s_st, s_wt, s_out = 0.05, 0.02, (0.004 if st == T.INT16 else 0.06), 0.003, 0.08
        z_st = 0 if st == T.INT16 else 3
        wt_dtype = np.int16 if st == T.INT16 else np.int8
        lim = 3000 if st == T.INT16 else 100
        ids = [
            tensor('input', T.INT8, (batch, inputs), (s_in, -3)),
            tensor('weights_feature', T.INT8, (filters, inputs), (s_wf, 0), rs.randint(-127, 128, (filters, inputs)).astype(np.int8)),
            tensor('weights_time', st, (filters, memory), (s_wt, 0), rs.randint(-lim, lim, (filters, memory)).astype(wt_dtype)),
            tensor('bias', T.INT32, (units,), (s_st * s_wt, 0), rs.randint(-20000, 20000, units).astype(np.int32)),
            tensor('state', st, (batch, memory * filters), (s_st, z_st), variable=True),
        ]
        out = tensor('output', T.INT8, (batch, units), (s_out, 5))
    else:
        ids = [
            tensor('input', T.FLOAT32, (batch, inputs)),
            tensor('weights_feature', T.FLOAT32, (filters, inputs), data=rs.normal(0, 0.4, (filters, inputs)).astype(np.float32)),
            tensor('weights_time', T.FLOAT32, (filters, memory), data=rs.normal(0, 0.4, (filters, memory)).astype(np.float32)),
            tensor('bias', T.FLOAT32, (units,), data=rs.normal(0, 0.2, units).astype(np.float32)),
            tensor('state', T.FLOAT32, (batch, memory * filters), variable=True),
        ]
        out = tensor('output', T.FLOAT32, (batch, units))
    op = schema_fb.OperatorT()
    op.opcodeIndex, op.inputs, op.outputs = 0, ids, [out]
    op.builtinOptionsType = schema_fb.BuiltinOptions.SVDFOptions
    op.builtinOptions = schema_fb.SVDFOptionsT()
    op.builtinOptions.rank = rank
    op.builtinOptions.fusedActivationFunction = activation
    sg.operators = [op]
    sg.inputs, sg.outputs = [ids[0]], [out]
    m.subgraphs = [sg]
    return pack(m)


def lstm_model(seed, batch, time, inputs, units, kind, time_major=False, cell_clip=0.0):
    """One UNIDIRECTIONAL_SEQUENCE_LSTM op (the converter lowers Keras 3
    LSTMs to WHILE loops, not to this op), written with the schema's object
    API: `kind` 'float', 'int8' (int8 weights, int32 biases, int16 cell) or
    'int16' (16x8, int64 biases); hidden and cell states are variables."""
    T = schema_fb.TensorType
    rs = np.random.RandomState(seed)
    m, sg, tensor = single_op_model(schema_fb.BuiltinOperator.UNIDIRECTIONAL_SEQUENCE_LSTM)

    seq = (time, batch, inputs) if time_major else (batch, time, inputs)
    out_shape = seq[:2] + (units,)
    gates = ['input', 'forget', 'cell', 'output']
    if kind == 'float':
        f = lambda shape, sd: rs.normal(0, sd, shape).astype(np.float32)
        x = tensor('input', T.FLOAT32, seq)
        wi = [tensor('input_to_%s' % g, T.FLOAT32, (units, inputs), data=f((units, inputs), 0.5)) for g in gates]
        wr = [tensor('recurrent_to_%s' % g, T.FLOAT32, (units, units), data=f((units, units), 0.5)) for g in gates]
        bs = [tensor('%s_bias' % g, T.FLOAT32, (units,), data=f((units,), 0.3)) for g in gates]
        h = tensor('hidden_state', T.FLOAT32, (batch, units), variable=True)
        c = tensor('cell_state', T.FLOAT32, (batch, units), variable=True)
        out = tensor('output', T.FLOAT32, out_shape)
    else:
        act, bias_t, bias_np = (T.INT8, T.INT32, np.int32) if kind == 'int8' else (T.INT16, T.INT64, np.int64)
        s_in, z_in = (0.05, 2) if kind == 'int8' else (0.0002, 0)
        s_h, z_h = (0.008, 3) if kind == 'int8' else (0.00004, 0)
        w_scales = rs.uniform(0.01, 0.03, 8)
        x = tensor('input', act, seq, (s_in, z_in))
        wi = [tensor('input_to_%s' % g, T.INT8, (units, inputs), (w_scales[k], 0),
                     rs.randint(-127, 128, (units, inputs)).astype(np.int8)) for k, g in enumerate(gates)]
        wr = [tensor('recurrent_to_%s' % g, T.INT8, (units, units), (w_scales[4 + k], 0),
                     rs.randint(-127, 128, (units, units)).astype(np.int8)) for k, g in enumerate(gates)]
        bs = [tensor('%s_bias' % g, bias_t, (units,), (s_in * w_scales[k], 0),
                     rs.randint(-3000, 3000, units).astype(bias_np)) for k, g in enumerate(gates)]
        h = tensor('hidden_state', act, (batch, units), (s_h, z_h), variable=True)
        c = tensor('cell_state', T.INT16, (batch, units), (2.0 ** -11, 0), variable=True)
        out = tensor('output', act, out_shape, (s_h, z_h))
    op = schema_fb.OperatorT()
    op.opcodeIndex = 0
    op.inputs = [x] + wi + wr + [-1, -1, -1] + bs + [-1, -1] + [h, c] + [-1, -1, -1, -1]
    op.outputs = [out]
    op.builtinOptionsType = schema_fb.BuiltinOptions.UnidirectionalSequenceLSTMOptions
    op.builtinOptions = schema_fb.UnidirectionalSequenceLSTMOptionsT()
    op.builtinOptions.fusedActivationFunction = schema_fb.ActivationFunctionType.TANH
    op.builtinOptions.cellClip = cell_clip
    op.builtinOptions.timeMajor = time_major
    sg.operators = [op]
    sg.inputs, sg.outputs = [x], [out]
    m.subgraphs = [sg]
    return pack(m)


class StreamingKws(tf.Module):
    """A streaming keyword model as deployed: one feature frame per
    `invoke()`, the last frames of each layer kept in `tf.Variable`s (the
    converter's VAR_HANDLE / READ_VARIABLE / ASSIGN_VARIABLE, initialized by
    a CALL_ONCE subgraph), updated with the STRIDED_SLICE + CONCATENATION
    ring pattern; a smoothed score is a third variable."""

    def __init__(self, seed):
        rs = np.random.RandomState(seed)
        u = lambda *shape: tf.constant(rs.uniform(-0.6, 0.6, shape).astype(np.float32))
        self.frames = tf.Variable(tf.fill([1, 3, 1, 8], 0.25), name='frames')
        self.hidden = tf.Variable(tf.zeros([1, 3, 1, 6]), name='hidden')
        self.score = tf.Variable(tf.constant([[0.5, -0.5, 0.25, 0.0]]), name='score')
        self.w1, self.b1 = u(3, 1, 8, 6), u(6)
        self.w2, self.b2 = u(3, 1, 6, 1), u(6)
        self.w3, self.b3 = u(6, 4), u(4)

    @tf.function(input_signature=[tf.TensorSpec([1, 1, 1, 8], tf.float32)])
    def __call__(self, frame):
        frames = tf.concat([self.frames[:, 1:], frame], axis=1)
        self.frames.assign(frames)
        h = tf.nn.relu(tf.nn.conv2d(frames, self.w1, 1, 'VALID') + self.b1)
        hidden = tf.concat([self.hidden[:, 1:], h], axis=1)
        self.hidden.assign(hidden)
        g = tf.nn.relu(tf.nn.depthwise_conv2d(hidden, self.w2, [1, 1, 1, 1], 'VALID') + self.b2)
        logits = tf.matmul(tf.reshape(g, [1, 6]), self.w3) + self.b3
        score = self.score * 0.5 + logits
        self.score.assign(score)
        return tf.nn.softmax(score)


def convert_module(module, seed, quantize):
    """Converts a `tf.Module`'s `__call__` with its variables (a model with
    resource variables and a CALL_ONCE init subgraph)."""
    fn = module.__call__.get_concrete_function()
    conv = tf.lite.TFLiteConverter.from_concrete_functions([fn], module)
    if quantize:
        rs = np.random.RandomState(seed + 1000)
        shapes = [tuple(s.shape) for s in fn.structured_input_signature[0]]
        conv.representative_dataset = lambda: ([rs.uniform(-1, 1, s).astype(np.float32) for s in shapes] for _ in range(100))
        conv.optimizations = [tf.lite.Optimize.DEFAULT]
        conv.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
        conv.inference_input_type = tf.int8
        conv.inference_output_type = tf.int8
    return conv.convert()


class Branches(tf.Module):
    """`tf.cond` (an IF with two branch subgraphs; the weights are passed
    into the branches as IF operands)."""

    def __init__(self, seed):
        rs = np.random.RandomState(seed)
        self.w1 = tf.constant(rs.uniform(-1, 1, (8, 6)).astype(np.float32))
        self.w2 = tf.constant(rs.uniform(-1, 1, (8, 6)).astype(np.float32))

    @tf.function(input_signature=[tf.TensorSpec([1, 8], tf.float32)])
    def __call__(self, x):
        y = tf.cond(tf.reduce_sum(x) > 0.0, lambda: tf.nn.relu(tf.matmul(x, self.w1)),
                    lambda: tf.tanh(tf.matmul(x, self.w2)) * 2.0)
        return y + 1.0


class Loop(tf.Module):
    """`tf.while_loop` (a WHILE with condition and body subgraphs) whose
    trip count depends on the data: at most 10 steps, fewer once the state
    grows past 4."""

    def __init__(self, seed):
        rs = np.random.RandomState(seed)
        self.w = tf.constant(rs.uniform(-0.5, 0.5, (6, 6)).astype(np.float32))

    @tf.function(input_signature=[tf.TensorSpec([1, 6], tf.float32)])
    def __call__(self, x):
        def cond(i, h):
            return tf.logical_and(i < 10, tf.reduce_max(tf.abs(h)) < 4.0)

        def body(i, h):
            return i + 1, tf.tanh(tf.matmul(h, self.w)) + h
        i, h = tf.while_loop(cond, body, [tf.constant(0), x * 2.0])
        return h * tf.cast(i, tf.float32)


# Control-flow models: (name, builder); their reference runs CONTROL_INVOKES
# independent inputs (both branches, several trip counts).
CONTROL = [
    ('control_if_float', lambda: convert_module(Branches(61), 61, False)),
    ('control_if_int8', lambda: convert_module(Branches(62), 62, True)),
    ('control_while_float', lambda: convert_module(Loop(63), 63, False)),
    ('control_while_int8', lambda: convert_module(Loop(64), 64, True)),
]
CONTROL_INVOKES = 8


# Models with resource variables: (name, builder); their reference runs
# STREAM_INVOKES invokes, then `reset()` and the first input again.
STREAMING = [
    ('streaming_kws_float', lambda: convert_module(StreamingKws(51), 51, False)),
    ('streaming_kws_int8', lambda: convert_module(StreamingKws(52), 52, True)),
]
STREAM_INVOKES = 20


# Stateful models: (name, builder). Their reference runs several invokes,
# then `reset()` and the first input again (see `reference`).
STATEFUL = [
    ('svdf_float', lambda: svdf_model(31, 1, 10, 8, 2, 5, False, activation=1)),
    ('svdf_int8', lambda: svdf_model(32, 2, 12, 6, 3, 4, True, schema_fb.TensorType.INT16)),
    ('svdf_int8_state8', lambda: svdf_model(33, 1, 8, 4, 1, 6, True, schema_fb.TensorType.INT8)),
    ('lstm_float', lambda: lstm_model(41, 2, 5, 4, 3, 'float')),
    ('lstm_float_time_major', lambda: lstm_model(42, 2, 3, 4, 3, 'float', time_major=True, cell_clip=0.7)),
    ('lstm_int8', lambda: lstm_model(43, 2, 4, 6, 5, 'int8', cell_clip=1.5)),
    ('lstm_int8_time_major', lambda: lstm_model(44, 3, 3, 5, 4, 'int8', time_major=True)),
    ('lstm_int16', lambda: lstm_model(45, 1, 6, 5, 4, 'int16')),
]
INVOKES = 4


def convert(model, seed, quantize):
    conv = tf.lite.TFLiteConverter.from_keras_model(model)
    if quantize:
        # The converted model may order its inputs differently from
        # `model.inputs`: feed the calibrator in the flatbuffer's order.
        shapes = input_shapes(tf.lite.TFLiteConverter.from_keras_model(model).convert())
        rs = np.random.RandomState(seed + 1000)

        def sample(shape, is_bool):
            return rs.randint(0, 2, size=shape).astype(bool) if is_bool else rs.uniform(-1, 1, size=shape).astype(np.float32)

        def rep():
            for _ in range(100):
                yield [sample(s, b) for s, b in shapes]
        conv.optimizations = [tf.lite.Optimize.DEFAULT]
        conv.representative_dataset = rep
        if quantize in ('16x8', '16x8_float_io'):
            conv.target_spec.supported_ops = [tf.lite.OpsSet.EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8]
            if quantize == '16x8':
                conv.inference_input_type = tf.int16
                conv.inference_output_type = tf.int16
        else:
            conv.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
        if quantize not in ('float_io', '16x8', '16x8_float_io'):
            conv.inference_input_type = tf.int8
            conv.inference_output_type = tf.int8
    return conv.convert()


def convert_dynamic_range(model):
    """The converter's default optimization without a representative
    dataset: int8 weights, float32 activations (hybrid layers)."""
    conv = tf.lite.TFLiteConverter.from_keras_model(model)
    conv.optimizations = [tf.lite.Optimize.DEFAULT]
    return conv.convert()


def lut_compressed(seed, levels=16):
    """The int8 DS-CNN with every int8 weight tensor cut to `levels` values
    per channel (evenly spaced over the channel's range, each weight to the
    nearest), then compressed by TFLM's own tool (LUT, 4-bit indices, one
    table per channel or one for the tensor): the TFLM_DECODE ops and
    ancillary tensors as TFLM's compressor writes them."""
    import flatbuffers
    from tflite_micro.tensorflow.lite.micro.compression import compress, spec
    data = bytearray(convert(ds_cnn_kws(seeded(seed)), seed, True))
    m = schema_fb.Model.GetRootAsModel(data, 0)
    sg = m.Subgraphs(0)
    specs = []
    for i in range(sg.TensorsLength()):
        t = sg.Tensors(i)
        buf = m.Buffers(t.Buffer())
        if t.Type() != schema_fb.TensorType.INT8 or buf.DataLength() == 0:
            continue
        q = t.Quantization()
        axis, channels = q.QuantizedDimension(), q.ScaleLength()
        w = np.array(buf.DataAsNumpy()).view(np.int8).reshape(tuple(t.ShapeAsNumpy())).astype(np.int32)
        moved = np.moveaxis(w, axis, 0) if channels > 1 else w.reshape(1, -1)
        for c in range(moved.shape[0]):
            lo, hi = moved[c].min(), moved[c].max()
            grid = np.unique(np.round(np.linspace(lo, hi, levels)).astype(np.int32))
            moved[c] = grid[np.abs(moved[c][..., None] - grid).argmin(-1)]
        w = np.moveaxis(moved, 0, axis) if channels > 1 else moved.reshape(w.shape)
        o = flatbuffers.number_types.UOffsetTFlags.py_type(buf._tab.Offset(4))
        start = buf._tab.Vector(o)
        data[start:start + w.size] = w.astype(np.int8).tobytes()
        mode = spec.PerChannel(axis=axis) if channels > 1 else spec.PerTensor()
        specs.append(spec.Tensor(subgraph=0, tensor=i,
                                 compression=[spec.LookUpTableCompression(index_bitwidth=4, mode=mode)]))
    return bytes(compress(bytes(data), specs))


def int4_net(s):
    """The layers whose int4 filters TFLM takes, in each kernel tinyaot has
    for them: a 3x3 and a 1x1 convolution (blocked dot products), a grouped
    one (the direct kernel), depthwise 3x3 and 5x3 with multiplier 1 (the
    fast depthwise kernel; 6 channels: a partial group of 4) and 2 (the
    direct one), a dense layer; the last convolution's map is an output
    too."""
    d = {'depthwise_initializer': s['kernel_initializer'], 'bias_initializer': s['bias_initializer']}
    x = i = L.Input((12, 10, 3), batch_size=1)
    x = L.Conv2D(6, 3, padding='same', activation='relu', **s)(x)
    x = L.DepthwiseConv2D(3, padding='same', activation='relu', **d)(x)
    x = L.DepthwiseConv2D((5, 3), strides=(2, 1), padding='same', **d)(x)
    x = L.DepthwiseConv2D(3, depth_multiplier=2, padding='valid', activation='relu', **d)(x)
    x = L.Conv2D(8, 1, groups=4, **s)(x)
    features = L.Conv2D(10, 1, **s)(x)
    x = L.AveragePooling2D((4, 8))(features)
    x = L.Flatten()(x)
    return tf.keras.Model(i, [L.Dense(5, **s)(x), features])


def int4_weights(data):
    """Every int8 filter of CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED
    requantized to int4 (-7..=7 per channel, the scales widened to match)
    and stored as TFLite's packed INT4 (two per byte, low nibble first)."""
    m = schema_fb.ModelT.InitFromObj(schema_fb.Model.GetRootAsModel(data, 0))
    sg = m.subgraphs[0]
    for op in sg.operators:
        code = m.operatorCodes[op.opcodeIndex]
        if max(code.builtinCode, code.deprecatedBuiltinCode) not in (3, 4, 9):
            continue
        t = sg.tensors[op.inputs[1]]
        buf = m.buffers[t.buffer]
        if t.type != schema_fb.TensorType.INT8 or buf.data is None or len(buf.data) == 0:
            continue
        q = t.quantization
        axis = q.quantizedDimension if len(q.scale) > 1 else None
        w = np.array(buf.data, dtype=np.uint8).view(np.int8).reshape(t.shape).astype(np.int32)
        moved = np.moveaxis(w, axis, 0) if axis is not None else w.reshape(1, -1)
        scales = list(q.scale)
        if max(code.builtinCode, code.deprecatedBuiltinCode) == 9 and axis is not None:
            # TFLM takes int4 FULLY_CONNECTED weights with one scale only.
            real = moved * np.array(scales)[:, None]
            moved, scales, axis = np.round(real / max(scales)).astype(np.int32).reshape(1, -1), [max(scales)], None
            q.zeroPoint = [0]
            w = moved.reshape(w.shape)
        for c in range(moved.shape[0]):
            peak = max(1, int(np.abs(moved[c]).max()))
            moved[c] = np.clip(np.round(moved[c] * 7.0 / peak), -8, 7)
            scales[c] = scales[c] * peak / 7.0
        w = np.moveaxis(moved, 0, axis) if axis is not None else moved.reshape(w.shape)
        old_scales = np.array(q.scale, dtype=np.float64)
        q.scale = scales
        flat = (w.reshape(-1).astype(np.int8).view(np.uint8) & 0x0F).astype(np.uint8)
        if len(flat) % 2:
            flat = np.append(flat, np.uint8(0))
        buf.data = list((flat[0::2] | (flat[1::2] << 4)).astype(np.uint8))
        t.type = schema_fb.TensorType.INT4
        if len(op.inputs) > 2 and op.inputs[2] >= 0:
            bias_q = sg.tensors[op.inputs[2]].quantization
            in_scale = sg.tensors[op.inputs[0]].quantization.scale[0]
            if bias_q is not None:
                # The same real bias on the new scales.
                bias_buf = m.buffers[sg.tensors[op.inputs[2]].buffer]
                b = np.array(bias_buf.data, dtype=np.uint8).view(np.int32).astype(np.float64)
                real = b * in_scale * (old_scales if len(old_scales) == len(b) else old_scales[0])
                new_scale = in_scale * np.array(scales)
                bias_buf.data = list(np.round(real / new_scale).astype(np.int32).view(np.uint8))
                bias_q.scale = [in_scale * s for s in scales]
                bias_q.zeroPoint = [0] * len(scales)
    return pack(m)


def convert_buffer_offset(model):
    """The converter's layout for models over 2 GB, asked for on a small
    one: every constant buffer stored after the flatbuffer, addressed by
    `offset` and `size`. LiteRT reads them there; TFLM does not (it runs the
    file on empty weights), so LiteRT's reference kernels give the
    reference."""
    conv = tf.lite.TFLiteConverter.from_keras_model(model)
    conv._experimental_use_buffer_offset = True
    return conv.convert()


def write_model(name, data, inp, out):
    """`NAME.tflite`, `NAME.input.bin` and `NAME.output.bin` in `OUT`."""
    for ext, blob in (('tflite', data), ('input.bin', inp), ('output.bin', out)):
        with open(os.path.join(OUT, '%s.%s' % (name, ext)), 'wb') as f:
            f.write(blob)


def litert_reference(data, seed):
    """`reference` for models TFLM does not run (hybrid layers): LiteRT's
    reference kernels (`ai-edge-litert`, the BUILTIN_REF resolver), one
    invoke on seeded float32 inputs."""
    from ai_edge_litert.interpreter import Interpreter, OpResolverType
    it = Interpreter(model_content=data, experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
    it.allocate_tensors()
    rs = np.random.RandomState(seed)
    inputs = [rs.uniform(-1, 1, size=tuple(d['shape'])).astype(np.float32) for d in it.get_input_details()]
    for d, a in zip(it.get_input_details(), inputs):
        it.set_tensor(d['index'], a)
    it.invoke()
    le = lambda arrs: b''.join(np.ascontiguousarray(a).astype(a.dtype.newbyteorder('<')).tobytes() for a in arrs)
    return le(inputs), le([it.get_tensor(d['index']) for d in it.get_output_details()])


def input_shapes(data):
    """(shape, is it bool) of every graph input, in the flatbuffer's order."""
    sg = schema_fb.Model.GetRootAsModel(data, 0).Subgraphs(0)
    return [(tuple(sg.Tensors(sg.Inputs(k)).ShapeAsNumpy()), sg.Tensors(sg.Inputs(k)).Type() == schema_fb.TensorType.BOOL)
            for k in range(sg.InputsLength())]


def reference(data, seed, invokes=1, reset=True):
    """Runs TFLM on `invokes` seeded random inputs in a row (state carries
    over between them); for a stateful model (`invokes` > 1, `reset`) then
    also `reset()` and the first input again. Returns (inputs, outputs), each
    the concatenation of every invoke's tensors."""
    it = tflm.Interpreter.from_bytes(data)
    m = schema_fb.Model.GetRootAsModel(data, 0)
    sg = m.Subgraphs(0)
    rs = np.random.RandomState(seed)
    runs = []
    for _ in range(invokes):
        inputs = []
        for k in range(sg.InputsLength()):
            t = sg.Tensors(sg.Inputs(k))
            shape = tuple(t.ShapeAsNumpy())
            if t.Type() == schema_fb.TensorType.INT8:
                a = rs.randint(-128, 128, size=shape).astype(np.int8)
            elif t.Type() == schema_fb.TensorType.INT16:
                a = rs.randint(-32768, 32768, size=shape).astype(np.int16)
            elif t.Type() == schema_fb.TensorType.BOOL:
                a = rs.randint(0, 2, size=shape).astype(bool)
            else:
                a = rs.uniform(-1, 1, size=shape).astype(np.float32)
            inputs.append(a)
        runs.append(inputs)
    le = lambda arrs: b''.join(np.ascontiguousarray(a).astype(a.dtype.newbyteorder('<')).tobytes() for a in arrs)

    def invoke(inputs):
        for k, a in enumerate(inputs):
            it.set_input(a, k)
        it.invoke()
        return le([np.array(it.get_output(k)) for k in range(sg.OutputsLength())])

    outs = [invoke(inputs) for inputs in runs]
    if invokes > 1 and reset:
        it.reset()
        outs.append(invoke(runs[0]))
    return b''.join(le(inputs) for inputs in runs), b''.join(outs)


def main():
    only = set(sys.argv[1:])
    for name, build in STATEFUL:
        if only and name not in only and 'stateful' not in only:
            continue
        data = build()
        inp, out = reference(data, 7, INVOKES)
        write_model(name, data, inp, out)
        print('%-24s %6d bytes, %d invokes and a reset' % (name, len(data), INVOKES))
    # Multi-subgraph models: (group, models, reference seed, invokes, reset).
    for group, models, seed, invokes, reset in (('streaming', STREAMING, 8, STREAM_INVOKES, True),
                                                ('control', CONTROL, 9, CONTROL_INVOKES, False)):
        for name, build in models:
            if only and name not in only and group not in only:
                continue
            data = build()
            inp, out = reference(data, seed, invokes, reset=reset)
            write_model(name, data, inp, out)
            print('%-24s %6d bytes, %d invokes%s' % (name, len(data), invokes, ' and a reset' if reset else ''))
    if not only or 'hybrid' in only:
        data = convert_dynamic_range(hybrid(seeded(77)))
        inp, out = litert_reference(data, 77)
        write_model('hybrid_float', data, inp, out)
        print('%-24s %6d bytes (hybrid: LiteRT reference)' % ('hybrid_float', len(data)))
    if not only or 'recurrent_sequences' in only:
        data = convert(recurrent_sequences(seeded(78)), 78, False)
        inp, out = litert_reference(data, 78)
        write_model('recurrent_sequences_float', data, inp, out)
        print('%-24s %6d bytes (list writes: LiteRT reference)' % ('recurrent_sequences_float', len(data)))
    if not only or 'buffer_offset' in only:
        data = convert_buffer_offset(fc_chain(seeded(79)))
        inp, out = litert_reference(data, 79)
        write_model('buffer_offset_float', data, inp, out)
        print('%-24s %6d bytes (weights after the flatbuffer: LiteRT reference)' % ('buffer_offset_float', len(data)))
    if not only or 'compressed' in only:
        data = lut_compressed(120)
        inp, out = reference(data, 120)
        write_model('lut_compressed_int8', data, inp, out)
        print('%-24s %6d bytes (TFLM compression: LUT, 4-bit)' % ('lut_compressed_int8', len(data)))
    if not only or 'int4' in only:
        data = int4_weights(convert(int4_net(seeded(130)), 130, True))
        inp, out = reference(data, 130)
        write_model('int4_weights_int8', data, inp, out)
        print('%-24s %6d bytes (int4 filters)' % ('int4_weights_int8', len(data)))
    if not only or 'requantize' in only:
        data = requantize_model(0)
        inp, out = reference(data, 99)
        write_model('requantize_int8', data, inp, out)
        print('%-24s %6d bytes' % ('requantize_int8', len(data)))
    for n, build in enumerate(MODELS):
        if only and build.__name__ not in only:
            continue
        seed = 100 + n
        model = build(seeded(seed))
        variants = [('float', False)] if build in (float_math, float_binary, recurrent) else [('float', False), ('int8', True)]
        if build in (conv_options, conv_grouped, depthwise, fc_keep_dims, add_broadcast, pooling, mean, quant_ops,
                     transpose_conv, attention):
            variants.append(('int16', '16x8'))  # int16 activations, int8 weights
        if build is ds_cnn_16x8:
            variants = [('int16', '16x8')]
        if build is resnet_block:
            variants.append(('int8_float_io', 'float_io'))  # QUANTIZE in, DEQUANTIZE out
        if build is quant_ops:
            variants.append(('int16_float_io', '16x8_float_io'))  # QUANTIZE and DEQUANTIZE with int16
        for suffix, quantize in variants:
            name = '%s_%s' % (build.__name__, suffix)
            data = convert(model, seed, quantize)
            if build is fc_chain:
                data = set_softmax_beta(data, 0.75)
            if build is branches:
                data = wide_first(data)
            if build is int8_math and quantize:
                data = quantize_float_islands(data, ['ELU'])
            inp, out = reference(data, seed)
            write_model(name, data, inp, out)
            print('%-24s %6d bytes, %d input bytes, %d output bytes' % (name, len(data), len(inp), len(out)))


if __name__ == '__main__':
    main()
