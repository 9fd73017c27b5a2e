#!/usr/bin/env python3
"""Builds the project's wide dense model and its reference vectors.

    pip install tflite-micro numpy flatbuffers
    python3 tests/models/make_dense_models.py           # writes into tests/models/

`dense_lanes_int8`: three int8 FULLY_CONNECTED layers (seeded random
weights, untrained) whose rows are too large for the widened layout, so the
compiler lays the first two out for the dense lane kernel
(`kernels::dot::dense_lanes_down`) on cores with the DSP extension: rows of
640 values (the most it takes) into 38 units (9 blocks of 4 rows and 2 more
in the plain layout), per-channel scales; then 38 values (a partial last
group) into 150 units, per-tensor; then 150 into 5, small enough to stay
widened. Two batches per invoke. Written directly with the TFLite schema's
object API; the reference outputs are TFLM's (its Python interpreter) on
seeded int8 inputs.
"""
import os
import subprocess
import sys

import flatbuffers
import numpy as np
from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as schema_fb

OUT = os.path.dirname(os.path.abspath(__file__))
T = schema_fb.TensorType
B = schema_fb.BuiltinOperator
O = schema_fb.BuiltinOptions


def dense_lanes(seed):
    rs = np.random.RandomState(seed)
    m = schema_fb.ModelT()
    m.version = 3
    m.buffers = [schema_fb.BufferT()]
    c = schema_fb.OperatorCodeT()
    c.builtinCode = c.deprecatedBuiltinCode = B.FULLY_CONNECTED
    c.version = 1
    m.operatorCodes = [c]
    sg = schema_fb.SubGraphT()
    sg.tensors, sg.operators = [], []

    def tensor(name, ty, shape, scales=None, zero_points=None, data=None, axis=0):
        t = schema_fb.TensorT()
        t.name, t.type, t.shape, t.buffer = name, ty, list(shape), 0
        if data is not None:
            b = schema_fb.BufferT()
            b.data = np.frombuffer(np.ascontiguousarray(data).astype(data.dtype.newbyteorder('<')).tobytes(), np.uint8)
            m.buffers.append(b)
            t.buffer = len(m.buffers) - 1
        if scales is not None:
            t.quantization = schema_fb.QuantizationParametersT()
            t.quantization.scale, t.quantization.zeroPoint = list(scales), list(zero_points)
            t.quantization.quantizedDimension = axis
        sg.tensors.append(t)
        return len(sg.tensors) - 1

    def dense(x, x_scale, depth, units, out_scale, out_zp, per_channel, name):
        w_scales = rs.uniform(0.002, 0.006, units) if per_channel else np.array([0.004])
        w = tensor(name + '_weights', T.INT8, [units, depth], w_scales, [0] * len(w_scales),
                   rs.randint(-128, 128, size=(units, depth)).astype(np.int8))
        bias_scales = x_scale * np.resize(w_scales, units)
        b = tensor(name + '_bias', T.INT32, [units], bias_scales if per_channel else bias_scales[:1],
                   [0] * (units if per_channel else 1), rs.randint(-4000, 4000, size=units).astype(np.int32))
        y = tensor(name, T.INT8, [2, units], [out_scale], [out_zp])
        o = schema_fb.OperatorT()
        o.opcodeIndex, o.inputs, o.outputs = 0, [x, w, b], [y]
        o.builtinOptionsType, o.builtinOptions = O.FullyConnectedOptions, schema_fb.FullyConnectedOptionsT()
        sg.operators.append(o)
        return y

    x = tensor('input', T.INT8, [2, 640], [0.02], [-3])
    # Output scales near the sums' spread (sqrt(depth) * 74 * 74 * scales).
    h1 = dense(x, 0.02, 640, 38, 0.02 * 0.004 * 1900, 5, True, 'dense_640x38')
    h2 = dense(h1, 0.02 * 0.004 * 1900, 38, 150, 0.02 * 0.004 * 1900 * 0.004 * 450, -128, False, 'dense_38x150')
    y = dense(h2, 0.02 * 0.004 * 1900 * 0.004 * 450, 150, 5, 0.02 * 0.004 * 1900 * 0.004 * 450 * 0.004 * 900, 0,
              False, 'dense_150x5')
    sg.inputs, sg.outputs = [x], [y]
    m.subgraphs = [sg]
    b = flatbuffers.Builder(0)
    b.Finish(m.Pack(b), file_identifier=b'TFL3')
    return bytes(b.Output()), rs.randint(-128, 128, size=2 * 640).astype(np.int8).tobytes()


def main():
    name = 'dense_lanes_int8'
    model, x = dense_lanes(7)
    with open(os.path.join(OUT, name + '.tflite'), 'wb') as f:
        f.write(model)
    with open(os.path.join(OUT, name + '.input.bin'), 'wb') as f:
        f.write(x)
    out = os.path.join(OUT, name + '.output.bin')
    if os.path.exists(out):
        os.remove(out)
    script = os.path.join(OUT, '..', 'diff', 'tflm_reference.py')
    subprocess.run([sys.executable, script, OUT], check=True)
    print(name, 'output bytes:', os.path.getsize(out))


if __name__ == '__main__':
    main()
