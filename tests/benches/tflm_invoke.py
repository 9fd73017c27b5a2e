#!/usr/bin/env python3
"""Times TFLM's Python interpreter (reference kernels) per model: the
microseconds of one invoke(), averaged over many, so Python overhead is
negligible next to the kernels. Beside each, tinyaot's time for the same
model and input from the last `cargo bench -p tinyaot-tests --bench invoke`
(criterion's mean, target/criterion) and the ratio TFLM / tinyaot.

    cargo bench -p tinyaot-tests --bench invoke
    .venv/bin/python tests/benches/tflm_invoke.py [MODEL.tflite ...]

Without arguments: the project's models and ../shared/models (those with an
NAME.input.bin beside them).
"""
import glob
import json
import os
import sys
import time

import numpy as np
from tflite_micro.python.tflite_micro import runtime as tflm

HERE = os.path.dirname(os.path.abspath(__file__))


def inputs_for(path, data, it):
    raw = open(path[:-len('.tflite')] + '.input.bin', 'rb').read()
    count = len(tflm.convert_bytearray_to_object(bytearray(data)).subgraphs[0].inputs)
    out, off = [], 0
    for k in range(count):
        d = it.get_input_details(k)
        n = int(np.prod(d['shape'])) * np.dtype(d['dtype']).itemsize
        out.append(np.frombuffer(raw[off:off + n], dtype=d['dtype']).reshape(d['shape']))
        off += n
    return out


def time_model(path):
    data = open(path, 'rb').read()
    it = tflm.Interpreter.from_bytes(data)
    for k, a in enumerate(inputs_for(path, data, it)):
        it.set_input(a, k)
    it.invoke()
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < 1.0:
        it.invoke()
        n += 1
    return (time.perf_counter() - t0) / n * 1e6


def tinyaot_us(path):
    """criterion's mean for this model (own_NAME or shared_NAME), or None."""
    name = os.path.basename(path)[:-len('.tflite')]
    root = os.path.join(HERE, '../../target/criterion')
    for bench_set in ('shared', 'own'):
        est = os.path.join(root, '%s_%s' % (bench_set, name), 'new', 'estimates.json')
        if os.path.exists(est):
            return json.load(open(est))['mean']['point_estimate'] / 1000.0
    return None


def main():
    paths = sys.argv[1:] or sorted(glob.glob(os.path.join(HERE, '../models/*.tflite')) +
                                   glob.glob(os.path.join(HERE, '../../../shared/models/*.tflite')))
    print('%-32s %12s %12s %14s' % ('model', 'tinyaot us', 'TFLM us', 'TFLM/tinyaot'))
    for p in paths:
        if not os.path.exists(p[:-len('.tflite')] + '.input.bin'):
            continue
        name = os.path.basename(p)[:-7]
        try:
            tflm_us = time_model(p)
        except Exception as e:  # noqa: BLE001 - custom ops etc.
            print('%-32s %s' % (name, e))
            continue
        ours = tinyaot_us(p)
        if ours is None:
            print('%-32s %12s %12.1f %14s' % (name, '-', tflm_us, '(no bench)'))
        else:
            print('%-32s %12.2f %12.1f %14.1f' % (name, ours, tflm_us, tflm_us / ours))


if __name__ == '__main__':
    main()
