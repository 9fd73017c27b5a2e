#!/usr/bin/env python3
"""Builds the project's legacy uint8 model and its reference vectors.

    pip install tflite-micro ai-edge-litert numpy
    python3 tests/models/make_uint8_models.py           # writes into tests/models/

TF1-era quantization-aware training made uint8 models with asymmetric
per-tensor weights; today's converter no longer writes them, so this model
is written directly with the TFLite schema's object API (seeded random
weights, untrained). TFLM refuses uint8 arithmetic: the reference is LiteRT's
reference kernels (`ai-edge-litert`, the BUILTIN_REF resolver) on seeded
uint8 inputs. `legacy_uint8` exercises every kind of uint8 op the compiler
runs as int8: convolutions with filter zero points (one of them 128, which
the int8 fast kernels take), a depthwise convolution, ADD of two scales,
average pooling (LiteRT's uint8 rounding), max pooling, a CONCATENATION
whose inputs LiteRT rescales, RESIZE_BILINEAR (LiteRT's float arithmetic),
MEAN, FULLY_CONNECTED (LiteRT's double-precision requantization), SOFTMAX,
LOGISTIC and a standalone RELU6.
"""
import os

import numpy as np
from ai_edge_litert.interpreter import Interpreter, OpResolverType
from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as schema_fb

OUT = os.path.dirname(os.path.abspath(__file__))
T = schema_fb.TensorType
B = schema_fb.BuiltinOperator
O = schema_fb.BuiltinOptions


def legacy_uint8(seed):
    rs = np.random.RandomState(seed)
    m = schema_fb.ModelT()
    m.version = 3
    m.buffers = [schema_fb.BufferT()]
    m.operatorCodes = []
    sg = schema_fb.SubGraphT()
    sg.tensors, sg.operators = [], []

    def code(builtin):
        for k, c in enumerate(m.operatorCodes):
            if c.builtinCode == builtin:
                return k
        c = schema_fb.OperatorCodeT()
        c.builtinCode = c.deprecatedBuiltinCode = builtin
        c.version = 1
        m.operatorCodes.append(c)
        return len(m.operatorCodes) - 1

    def tensor(name, ty, shape, q=None, data=None):
        t = schema_fb.TensorT()
        t.name, t.type, t.shape, t.buffer = name, ty, list(shape), 0
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

    def act(name, shape, scale, zp):
        return tensor(name, T.UINT8, shape, (scale, zp))

    def op(builtin, inputs, outputs, options_type=0, options=None):
        o = schema_fb.OperatorT()
        o.opcodeIndex, o.inputs, o.outputs = code(builtin), inputs, outputs
        o.builtinOptionsType, o.builtinOptions = options_type, options
        sg.operators.append(o)

    def weights(name, shape, zp, real_range, in_scale):
        """uint8 weights with zero point `zp`, values in about
        `[-real_range, real_range]`, and an int32 bias of the matching
        scale."""
        scale = real_range / 127.5
        w = tensor(name, T.UINT8, shape, (scale, zp), rs.randint(0, 256, size=shape).astype(np.uint8))
        b = tensor(name + '_bias', T.INT32, [shape[0] if name != 'dw' else shape[-1]], (in_scale * scale, 0),
                   rs.randint(-300, 300, size=shape[0] if name != 'dw' else shape[-1]).astype(np.int32))
        return w, b

    def conv_options(stride, act, padding=schema_fb.Padding.SAME):
        o = schema_fb.Conv2DOptionsT()
        o.padding, o.strideW, o.strideH, o.fusedActivationFunction = padding, stride, stride, act
        o.dilationWFactor = o.dilationHFactor = 1
        return o

    def pool_options(size, stride, padding):
        o = schema_fb.Pool2DOptionsT()
        o.padding, o.strideW, o.strideH, o.filterWidth, o.filterHeight = padding, stride, stride, size, size
        return o

    in_scale = 2 / 255
    x = act('image', [1, 12, 12, 3], in_scale, 128)
    w, b = weights('conv', [8, 3, 3, 3], 117, 0.5, in_scale)
    t1 = act('conv_relu6', [1, 12, 12, 8], 6 / 255, 0)
    op(B.CONV_2D, [x, w, b], [t1], O.Conv2DOptions, conv_options(1, schema_fb.ActivationFunctionType.RELU6))
    w, b = weights('dw', [1, 3, 3, 8], 140, 0.5, 6 / 255)
    t2 = act('depthwise_relu', [1, 6, 6, 8], 8 / 255, 0)
    dw = schema_fb.DepthwiseConv2DOptionsT()
    dw.padding, dw.strideW, dw.strideH, dw.depthMultiplier = schema_fb.Padding.SAME, 2, 2, 1
    dw.fusedActivationFunction, dw.dilationWFactor, dw.dilationHFactor = schema_fb.ActivationFunctionType.RELU, 1, 1
    op(B.DEPTHWISE_CONV_2D, [t1, w, b], [t2], O.DepthwiseConv2DOptions, dw)
    w, b = weights('pointwise', [8, 1, 1, 8], 128, 0.5, 8 / 255)
    t3 = act('pointwise', [1, 6, 6, 8], 10 / 255, 128)
    op(B.CONV_2D, [t2, w, b], [t3], O.Conv2DOptions, conv_options(1, 0))
    t4 = act('sum', [1, 6, 6, 8], 24 / 255, 131)
    op(B.ADD, [t2, t3], [t4], O.AddOptions, schema_fb.AddOptionsT())
    t5 = act('average', [1, 3, 3, 8], 24 / 255, 131)
    op(B.AVERAGE_POOL_2D, [t4], [t5], O.Pool2DOptions, pool_options(2, 2, schema_fb.Padding.SAME))
    t6 = act('max', [1, 3, 3, 8], 20 / 255, 100)
    op(B.MAX_POOL_2D, [t4], [t6], O.Pool2DOptions, pool_options(3, 2, schema_fb.Padding.SAME))
    t7 = act('joined', [1, 3, 3, 16], 30 / 255, 120)
    cat = schema_fb.ConcatenationOptionsT()
    cat.axis = 3
    op(B.CONCATENATION, [t5, t6], [t7], O.ConcatenationOptions, cat)
    size = tensor('size', T.INT32, [2], None, np.array([5, 5], np.int32))
    t8 = act('resized', [1, 5, 5, 16], 30 / 255, 120)
    op(B.RESIZE_BILINEAR, [t7, size], [t8], O.ResizeBilinearOptions, schema_fb.ResizeBilinearOptionsT())
    axes = tensor('axes', T.INT32, [2], None, np.array([1, 2], np.int32))
    t9 = act('mean', [1, 16], 12 / 255, 110)
    op(B.MEAN, [t8, axes], [t9], O.ReducerOptions, schema_fb.ReducerOptionsT())
    w, b = weights('dense', [10, 16], 90, 0.4, 12 / 255)
    t10 = act('logits', [1, 10], 0.05, 128)
    fc = schema_fb.FullyConnectedOptionsT()
    op(B.FULLY_CONNECTED, [t9, w, b], [t10], O.FullyConnectedOptions, fc)
    probs = act('probabilities', [1, 10], 1 / 256, 0)
    sm = schema_fb.SoftmaxOptionsT()
    sm.beta = 1.0
    op(B.SOFTMAX, [t10], [probs], O.SoftmaxOptions, sm)
    gate = act('gate', [1, 10], 1 / 256, 0)
    op(B.LOGISTIC, [t10], [gate])
    clipped = act('clipped', [1, 10], 0.03, 5)
    op(B.RELU6, [t10], [clipped])
    sg.inputs, sg.outputs = [x], [probs, gate, clipped]
    m.subgraphs = [sg]
    b = __import__('flatbuffers').Builder(0)
    b.Finish(m.Pack(b), file_identifier=b'TFL3')
    return bytes(b.Output())


def litert_reference(data, seed):
    """One invoke of LiteRT's reference kernels on seeded uint8 inputs."""
    it = Interpreter(model_content=data, experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
    it.allocate_tensors()
    rs = np.random.RandomState(seed)
    inputs = [rs.randint(0, 256, size=tuple(d['shape'])).astype(np.uint8) for d in it.get_input_details()]
    for d, a in zip(it.get_input_details(), inputs):
        it.set_tensor(d['index'], a)
    it.invoke()
    outs = [it.get_tensor(d['index']) for d in it.get_output_details()]
    return b''.join(a.tobytes() for a in inputs), b''.join(a.tobytes() for a in outs)


def main():
    data = legacy_uint8(140)
    inp, out = litert_reference(data, 140)
    for ext, blob in (('tflite', data), ('input.bin', inp), ('output.bin', out)):
        with open(os.path.join(OUT, 'legacy_uint8.%s' % ext), 'wb') as f:
            f.write(blob)
    print('%-24s %6d bytes (uint8: LiteRT reference), outputs %s' % ('legacy_uint8', len(data), list(out)))


if __name__ == '__main__':
    main()
