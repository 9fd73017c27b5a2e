#!/usr/bin/env python3
"""TFLM's answers for a directory of differential-test cases.

    python3 tflm_reference.py DIR

For every `DIR/NAME.tflite` with `DIR/NAME.input.bin` (the raw little-endian
bytes of every input, concatenated in input order, once per invoke; with
`DIR/NAME.reset_at` holding k, `reset()` runs before invoke k), runs TFLM's
Python interpreter (`pip install tflite-micro`: its reference kernels; a case
with `DIR/NAME.litert`, a model TFLM does not run, LiteRT's reference kernels:
`pip install ai-edge-litert`) and
writes `DIR/NAME.output.bin` (every output's bytes, concatenated; an invoke
a CIRCULAR_BUFFER stopped gives none, its index goes into `DIR/NAME.stops`), or
`DIR/NAME.refused` with TFLM's message when it does not run the model.
Cases already answered are skipped; a case that crashed the interpreter
(left `NAME.running` behind) is marked refused on the next run, so the
caller reruns the script until it exits 0.
Prints one summary line. Exit code 3 when tflite-micro is not installed, or
ai-edge-litert when a case needs it.
"""
import os
import sys
import tempfile

try:
    import numpy as np
    from tflite_micro.python.tflite_micro import runtime as tflm
except ImportError as e:  # the Rust test reports this and skips (or fails in CI)
    print(f'tflite-micro is not installed: {e}', file=sys.stderr)
    sys.exit(3)


class captured_stderr:
    """Redirects file descriptor 2 (where TFLM's MicroPrintf writes) to a
    temporary file for the block; `.read()` gives what was written."""

    def __enter__(self):
        sys.stderr.flush()
        self.file = tempfile.TemporaryFile(mode='w+')
        self.saved = os.dup(2)
        os.dup2(self.file.fileno(), 2)
        return self

    def __exit__(self, *exc):
        sys.stderr.flush()
        os.dup2(self.saved, 2)
        os.close(self.saved)
        return False

    def read(self):
        self.file.seek(0)
        return self.file.read()


def run_litert(path, raw, reset_at=None):
    """Runs a model TFLM does not run (hybrid ops) on LiteRT's reference
    kernels (`pip install ai-edge-litert`, the BUILTIN_REF resolver): one
    invoke per set of inputs (state carries over; its variables reset
    before set `reset_at`), outputs concatenated."""
    from ai_edge_litert.interpreter import Interpreter, OpResolverType
    it = Interpreter(model_content=open(path, 'rb').read(),
                     experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
    it.allocate_tensors()
    ins, outs = it.get_input_details(), it.get_output_details()

    def count(d):
        return int(np.prod(d['shape'])) if len(d['shape']) else 1
    per = sum(count(d) * np.dtype(d['dtype']).itemsize for d in ins)
    if per == 0 or len(raw) % per:
        raise ValueError(f'input file has {len(raw)} bytes, not a multiple of the {per} the inputs take')
    out = b''
    for k, start in enumerate(range(0, len(raw), per)):
        if k == reset_at:
            it.reset_all_variables()
        off = start
        for d in ins:
            dtype = np.dtype(d['dtype']).newbyteorder('<')
            x = np.frombuffer(raw, dtype=dtype, count=count(d), offset=off).astype(d['dtype']).reshape(d['shape'])
            off += count(d) * dtype.itemsize
            it.set_tensor(d['index'], x)
        it.invoke()
        for d in outs:
            y = it.get_tensor(d['index'])
            out += np.ascontiguousarray(y).astype(y.dtype.newbyteorder('<')).tobytes()
    return out, []


def run_case(path, raw, reset_at=None):
    """Runs one model on `raw`: one or several sets of inputs, invoked one
    after another on one interpreter (state carries over; `reset()` before
    set `reset_at`), outputs concatenated."""
    it = tflm.Interpreter.from_bytes(open(path, 'rb').read(), arena_size=4 << 20)
    details, i = [], 0
    while True:
        try:
            details.append(it.get_input_details(i))
        except Exception:
            break
        i += 1

    def count(d):
        return int(np.prod(d['shape'])) if len(d['shape']) else 1
    per = sum(count(d) * np.dtype(d['dtype']).itemsize for d in details)
    if per == 0 or len(raw) % per:
        raise ValueError(f'input file has {len(raw)} bytes, not a multiple of the {per} the inputs take')
    out, stops = b'', []
    for k, start in enumerate(range(0, len(raw), per)):
        if k == reset_at:
            it.reset()
        off = start
        for i, d in enumerate(details):
            dtype = np.dtype(d['dtype']).newbyteorder('<')
            x = np.frombuffer(raw, dtype=dtype, count=count(d), offset=off).astype(d['dtype']).reshape(d['shape'])
            off += count(d) * dtype.itemsize
            it.set_input(x, i)
        if it.invoke() != 0:  # kTfLiteAbort: a CIRCULAR_BUFFER stopped the invoke
            stops.append(k)
            continue
        k = 0
        while True:
            try:
                it.get_output_details(k)
            except Exception:
                break
            y = it.get_output(k)
            out += np.ascontiguousarray(y).astype(y.dtype.newbyteorder('<')).tobytes()
            k += 1
    return out, stops


def main():
    d = sys.argv[1]
    if any(f.endswith('.litert') for f in os.listdir(d)):
        try:
            import ai_edge_litert.interpreter  # noqa: F401
        except ImportError as e:  # reported as a missing reference, like tflite-micro
            print(f'ai-edge-litert is not installed (the hybrid cases need it): {e}', file=sys.stderr)
            sys.exit(3)
    ran = refused = 0
    for f in sorted(os.listdir(d)):
        if not f.endswith('.tflite'):
            continue
        stem = os.path.join(d, f[:-len('.tflite')])
        if os.path.exists(stem + '.output.bin') or os.path.exists(stem + '.refused'):
            continue
        if os.path.exists(stem + '.running'):  # this case crashed an earlier run
            open(stem + '.refused', 'w').write('TFLM crashed on this model')
            os.remove(stem + '.running')
            refused += 1
            continue
        open(stem + '.running', 'w').close()
        try:
            with captured_stderr() as log:
                reset_at = int(open(stem + '.reset_at').read()) if os.path.exists(stem + '.reset_at') else None
                raw = open(stem + '.input.bin', 'rb').read()
                if os.path.exists(stem + '.litert'):
                    out, stops = run_litert(stem + '.tflite', raw, reset_at)
                else:
                    out, stops = run_case(stem + '.tflite', raw, reset_at)
        except Exception as e:  # TFLM refused the model (Prepare/allocation) or failed to run it
            why = ' '.join(log.read().split())[:500]
            open(stem + '.refused', 'w').write(f'{e}: {why}' if why else (str(e) or type(e).__name__))
            os.remove(stem + '.running')
            refused += 1
            continue
        open(stem + '.output.bin', 'wb').write(out)
        if stops:
            open(stem + '.stops', 'w').write(' '.join(map(str, stops)))
        os.remove(stem + '.running')
        ran += 1
    print(f'TFLM ran {ran} cases, refused {refused}')


if __name__ == '__main__':
    main()
