#!/usr/bin/env python3
"""Builds the keyword spotter of `examples/kws.rs`: an audio front end made of
TFLM's signal-library ops, a small int8 DS-CNN trained on synthesized speech,
a few test WAVs and TFLM reference vectors.

    apt-get install espeak-ng sox
    python3 -m venv .venv && .venv/bin/pip install tensorflow-cpu==2.21.0 tflite-micro numpy
    .venv/bin/python examples/kws/make_kws.py          # about 20 minutes on 2 cores

Everything is the project's own: the speech comes from espeak-ng (eight
English accents times 101 voice variants, random speed, pitch, gain, time
shift and noise), the front end is written here with the schema's object
API, the model is trained here. Writes into examples/kws/:

- `frontend.tflite`: one 30 ms frame (480 int16 samples at 16 kHz) in, 40
  int8 log-mel features out: WINDOW (Hann) -> FFT_AUTO_SCALE -> RFFT (512)
  -> ENERGY -> FILTER_BANK (40 mel channels, 125-7500 Hz) -> FILTER_BANK_
  SQUARE_ROOT -> FILTER_BANK_SPECTRAL_SUBTRACTION (noise estimate kept
  between invokes) -> PCAN (gain control) -> FILTER_BANK_LOG -> QUANTIZE.
  One invoke per 20 ms hop; 49 frames make one second.
- `kws.tflite`: 49 x 40 int8 features in, 12 int8 scores out (silence,
  unknown, yes, no, up, down, left, right, on, off, stop, go). Its input
  quantization is the front end's output quantization, so features are
  copied as they are.
- `wav/words.wav`: a recording of yes, no, left, stop, go by voices held
  out of training, over a quiet background; `wav/up.wav`, `wav/right.wav`,
  `wav/off.wav`: one second of one word each, likewise.
- `reference/NAME.features.bin`, `reference/NAME.scores.bin`: what TFLM's
  interpreter computes on `wav/NAME.wav` (the front end from reset over
  every 20 ms hop; the model on every second of features, 100 ms apart),
  for the tests' byte-for-byte comparison.
  `make_kws.py --bundled-only` makes these again without training (some
  espeak-ng voices, the whisper ones among them, add noise of their own:
  a second run's recordings differ in detail from the first's).
- `accuracy.txt`: accuracy of the int8 model under TFLM on held-out voices.

Training data is streamed as a device streams it: recordings of several
words with pauses over one background, the front end run over each from
reset with its state carried from frame to frame, and every second of
features (100 ms apart) labelled by what it holds (`window_label`).
"""
import math
import os
import subprocess
import sys
from multiprocessing import Pool

import numpy as np

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

OUT = os.path.dirname(os.path.abspath(__file__))
RATE = 16000
WINDOW = 480          # 30 ms
HOP = 320             # 20 ms
FRAMES = 49           # one second
CHANNELS = 40
FFT = 512
LABELS = ['silence', 'unknown', 'yes', 'no', 'up', 'down', 'left', 'right', 'on', 'off', 'stop', 'go']
UNKNOWN_WORDS = ['bed', 'bird', 'cat', 'dog', 'happy', 'house', 'marvin', 'sheila', 'tree', 'wow', 'zero',
                 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'learn', 'follow',
                 'forward', 'backward', 'visual', 'yesterday', 'note', 'dune', 'left over', 'upper', 'gone',
                 'often', 'stock', 'rights', 'yet', 'know', 'owner', 'doubt', 'lift', 'stone']
# espeak-ng's own accents (no mbrola voices); the last one is held out.
ACCENTS = ['en-us', 'en-gb', 'en-gb-scotland', 'en-gb-x-gbclan', 'en-gb-x-rp', 'en-gb-x-gbcwmd', 'en-us-nyc',
           'en-029']
HELD_OUT_ACCENT = 'en-029'
# Features: int8 = round(log feature / FEATURE_SCALE) - 128 (the log output
# spans about 0..670 at output scale 64).
FEATURE_SCALE = 2.625
FEATURE_ZERO = -128
# The DS-CNN's channels: 3.3 M multiply-accumulates per second of audio.
WIDTH = 32


# ---------------------------------------------------------------- front end

def freq_to_mel(f):
    return 1127.0 * math.log(1.0 + f / 700.0)


def mel_filter_bank(lower, upper):
    """Tables of TFLM's FILTER_BANK for CHANNELS triangular mel channels
    between `lower` and `upper` Hz, weights in Q12: channel `c` (0..=C)
    covers the bins between the mel centres c-1 and c; its weights rise
    towards centre c and its unweights (1 - weight) go to channel c-1."""
    bins = FFT // 2 + 1
    hz_per_bin = (RATE / 2) / (bins - 1)
    mel_lo, mel_hi = freq_to_mel(lower), freq_to_mel(upper)
    centres = [mel_lo + (mel_hi - mel_lo) * (c + 1) / (CHANNELS + 1) for c in range(CHANNELS + 1)]
    first = round(1 + lower / hz_per_bin)
    freq_starts, weight_starts, widths, weights, unweights = [], [], [], [], []
    zero_slot = None
    b = first
    for c in range(CHANNELS + 1):
        start = b
        while freq_to_mel(b * hz_per_bin) <= centres[c]:
            b += 1
        width = b - start
        if width == 0:
            # An empty channel reads one zero weight (shared, at the end).
            if zero_slot is None:
                zero_slot = -1
            freq_starts.append(0)
            weight_starts.append(-1)
            widths.append(1)
            continue
        below = mel_lo if c == 0 else centres[c - 1]
        freq_starts.append(start)
        weight_starts.append(len(weights))
        widths.append(width)
        for k in range(width):
            w = (centres[c] - freq_to_mel((start + k) * hz_per_bin)) / (centres[c] - below)
            weights.append(int(w * 4096))
            unweights.append(int((1 - w) * 4096))
    if zero_slot is not None:
        zero_at = len(weights)
        weights.append(0)
        unweights.append(0)
        weight_starts = [zero_at if s < 0 else s for s in weight_starts]
    assert b < bins
    return [np.array(t, np.int16) for t in (weights, unweights, freq_starts, weight_starts, widths)]


def pcan_gains(strength, offset, input_bits, gain_bits):
    """PCAN's gain table: gain(x) = 2^gain_bits * (x / 2^input_bits +
    offset)^-strength, as a piecewise quadratic over each power-of-two
    interval of a 32-bit noise estimate (y0, a1, a2, 0 per interval)."""
    def gain(x):
        g = (1 << gain_bits) * (np.float32(x) / np.float32(1 << input_bits) + np.float32(offset)) ** -np.float32(strength)
        return min(int(np.float32(g) + np.float32(0.5)), 32767)

    table = [gain(0), gain(1)]
    for interval in range(2, 33):
        x0 = 1 << (interval - 1)
        x1 = x0 + (x0 >> 1)
        x2 = x0 + (x0 - 1) if interval == 32 else 2 * x0
        y0, y1, y2 = gain(x0), gain(x1), gain(x2)
        a1 = 4 * (y1 - y0) - (y2 - y0)
        a2 = (y2 - y0) - a1
        table += [y0, a1, a2, 0]
    # The first interval's slots overlap gain(0), gain(1): entry 4*i - 6.
    lut = np.zeros(4 * 32 - 3, np.int16)
    lut[0], lut[1] = table[0], table[1]
    for interval in range(2, 33):
        at = 4 * interval - 6
        for k, v in enumerate(table[2 + 4 * (interval - 2): 2 + 4 * (interval - 1)]):
            if at + k < len(lut):
                lut[at + k] = np.int16(np.clip(v, -32768, 32767))
    return lut


def front_end():
    """The front-end model's flatbuffer bytes."""
    from flatbuffers import flexbuffers
    from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as fb
    T = fb.TensorType

    m = fb.ModelT()
    m.version = 3
    m.description = 'tinyaot KWS audio front end (examples/kws/make_kws.py)'
    m.buffers = [fb.BufferT()]
    m.operatorCodes = []
    sg = fb.SubGraphT()
    sg.tensors, sg.operators = [], []

    # The project's model writer (tests/models/make_models.py).
    sys.path.insert(0, os.path.join(OUT, '..', '..', 'tests', 'models'))
    from make_models import pack, single_op_tensors
    tensor = single_op_tensors(m, sg)

    def op(code, inputs, outputs, options=None):
        key = code if isinstance(code, str) else ('builtin', code)
        codes = [c.customCode.decode() if c.customCode else ('builtin', c.builtinCode) for c in m.operatorCodes]
        if key not in codes:
            c = fb.OperatorCodeT()
            if isinstance(code, str):
                c.builtinCode = c.deprecatedBuiltinCode = fb.BuiltinOperator.CUSTOM
                c.customCode = code.encode()
            else:
                c.builtinCode = c.deprecatedBuiltinCode = code
            c.version = 1
            m.operatorCodes.append(c)
            codes.append(key)
        o = fb.OperatorT()
        o.opcodeIndex, o.inputs, o.outputs = codes.index(key), list(inputs), list(outputs)
        if options is not None:
            o.customOptions = list(flexbuffers.Dumps(options))
            o.customOptionsFormat = fb.CustomOptionsFormat.FLEXBUFFERS
        sg.operators.append(o)

    shift = 12
    hann = np.round((0.5 - 0.5 * np.cos(2 * np.pi / WINDOW * (np.arange(WINDOW) + 0.5))) * (1 << shift)).astype(np.int16)
    audio = tensor('audio', T.INT16, [WINDOW])
    windowed = tensor('windowed', T.INT16, [WINDOW])
    op('SignalWindow', [audio, tensor('hann', T.INT16, [WINDOW], data=hann)], [windowed], {'shift': shift})
    scaled = tensor('scaled', T.INT16, [WINDOW])
    scale_bits = tensor('scale_bits', T.INT32, [])
    op('SignalFftAutoScale', [windowed], [scaled, scale_bits])
    spectrum = tensor('spectrum', T.INT16, [FFT + 2])
    op('SignalRfft', [scaled], [spectrum], {'T': T.INT16, 'fft_length': FFT})
    energy = tensor('energy', T.UINT32, [FFT // 2 + 1])
    op('SignalEnergy', [spectrum], [energy], {'start_index': 0, 'end_index': FFT // 2 + 1})
    names = ['weights', 'unweights', 'frequency_starts', 'weight_starts', 'widths']
    tables = [tensor(n, T.INT16, [len(t)], data=t) for n, t in zip(names, mel_filter_bank(125.0, 7500.0))]
    channels = tensor('mel', T.UINT64, [CHANNELS])
    op('SignalFilterBank', [energy] + tables, [channels], {'num_channels': CHANNELS})
    magnitude = tensor('magnitude', T.UINT32, [CHANNELS])
    op('SignalFilterBankSquareRoot', [channels, scale_bits], [magnitude])
    bits = 14
    smoothing, odd_smoothing = int(0.025 * (1 << bits)), int(0.06 * (1 << bits))
    cleaned = tensor('cleaned', T.UINT32, [CHANNELS])
    noise = tensor('noise_estimate', T.UINT32, [CHANNELS])
    op('SignalFilterBankSpectralSubtraction', [magnitude], [cleaned, noise], {
        'num_channels': CHANNELS, 'smoothing': smoothing, 'one_minus_smoothing': (1 << bits) - smoothing,
        'alternate_smoothing': odd_smoothing, 'alternate_one_minus_smoothing': (1 << bits) - odd_smoothing,
        'smoothing_bits': 10, 'min_signal_remaining': int(0.05 * (1 << bits)), 'clamping': False,
        'spectral_subtraction_bits': bits})
    correction_bits = 9 - 12 // 2   # log2(FFT) - half the filter bank's weight bits
    gains = tensor('pcan_gains', T.INT16, [125], data=pcan_gains(0.95, 80.0, 10 - correction_bits, 21))
    controlled = tensor('controlled', T.UINT32, [CHANNELS])
    op('SignalPCAN', [cleaned, noise, gains], [controlled], {'snr_shift': 6})
    log = tensor('log_mel', T.INT16, [CHANNELS], q=(1.0, 0))
    op('SignalFilterBankLog', [controlled], [log], {'output_scale': 64, 'input_correction_bits': correction_bits})
    features = tensor('features', T.INT8, [CHANNELS], q=(FEATURE_SCALE, FEATURE_ZERO))
    op(fb.BuiltinOperator.QUANTIZE, [log], [features])
    sg.inputs, sg.outputs = [audio], [features]
    m.subgraphs = [sg]
    return pack(m)


# ------------------------------------------------------------------- speech

def variants():
    out = subprocess.run(['espeak-ng', '--voices=variant'], capture_output=True, text=True, check=True).stdout
    return sorted(line.split()[3] for line in out.splitlines()[1:] if len(line.split()) > 3)


def speak(args):
    """One utterance at 16 kHz, int16, trimmed of leading/trailing quiet."""
    text, voice, speed, pitch = args
    wav = subprocess.run(['espeak-ng', '-v', voice, '-s', str(speed), '-p', str(pitch), '--stdout', text],
                         capture_output=True, check=True).stdout
    raw = subprocess.run(['sox', '-t', 'wav', '-', '-t', 'raw', '-r', str(RATE), '-e', 'signed', '-b', '16',
                          '-c', '1', '-'], input=wav, capture_output=True, check=True).stdout
    x = np.frombuffer(raw, np.int16).astype(np.float32)
    loud = np.nonzero(np.abs(x) > 300)[0]
    if len(loud) == 0:
        return np.zeros(0, np.float32)
    return x[loud[0]:loud[-1] + 1]


def noise(rs, n):
    """Unit-RMS background: white, brown-ish, or hum and hiss."""
    kind = rs.randint(3)
    w = rs.normal(0, 1, n).astype(np.float32)
    if kind == 1:     # brown-ish: integrated white noise, leaky
        w = np.cumsum(w)
        w -= np.convolve(w, np.ones(400) / 400, mode='same')
    elif kind == 2:   # hum plus hiss
        t = np.arange(n) / RATE
        w = 0.3 * w + np.sin(2 * np.pi * rs.uniform(50, 300) * t + rs.uniform(0, 6))
    return w / (np.std(w) + 1e-6)


def utterances(rs, train, per_word):
    """(label, (text, voice, speed, pitch)) jobs: train on all but the
    held-out accent and every fifth variant; test on voices with either
    held out."""
    vs = variants()
    held = set(vs[::5])
    jobs = []
    for label, words in [(LABELS.index(w), [w]) for w in LABELS[2:]] + [(1, UNKNOWN_WORDS)]:
        for _ in range(per_word * (2 if label == 1 else 1)):
            while True:
                accent, variant = ACCENTS[rs.randint(len(ACCENTS))], vs[rs.randint(len(vs))]
                if (accent == HELD_OUT_ACCENT or variant in held) != train:
                    break
            text = words[rs.randint(len(words))]
            jobs.append((label, (text, '%s+%s' % (accent, variant), rs.randint(110, 220), rs.randint(20, 80))))
    return jobs


def session(rs, speech, labels, gaps=None, level=None):
    """A recording: the utterances one after another over one background
    (a random kind and level, now and then none), each at a random
    loudness, random pauses between them (`gaps`, seconds, if given).
    Returns the int16 samples and the (start, end, label) of each word."""
    pieces, events, at = [], [], 0
    lead = int(RATE * (gaps[0] if gaps else rs.uniform(0.1, 1.5)))
    pieces.append(np.zeros(lead, np.float32))
    at += lead
    for k, (s, label) in enumerate(zip(speech, labels)):
        if len(s) == 0:
            continue
        s = s[:RATE] * (10 ** rs.uniform(-1.3, 0.0)) * (32000 / max(1.0, np.abs(s).max()))
        pieces.append(s)
        events.append((at, at + len(s), label))
        at += len(s)
        # Pauses of a word's length, and now and then of seconds (silence).
        pause = int(RATE * (gaps[k + 1] if gaps else rs.uniform(1.0, 2.5) if rs.rand() < 0.25 else rs.uniform(0.15, 1.0)))
        pieces.append(np.zeros(pause, np.float32))
        at += pause
    x = np.concatenate(pieces)
    if level is None:
        level = 0.0 if rs.rand() < 0.15 else 10 ** rs.uniform(0.5, 3.2)
    x += noise(rs, len(x)) * level
    return np.clip(np.round(x), -32768, 32767).astype(np.int16), events


def window_label(start, events):
    """The label of the second of audio from sample `start`: the word it
    holds whole (at least 90% of it; at most fragments under half of any
    other), silence when it holds no speech, unknown when it holds only
    fragments; None (left out) when it holds most but not all of a word, or
    two whole words."""
    end = start + WINDOW + (FRAMES - 1) * HOP
    whole, fragments = [], False
    for a, b, label in events:
        part = max(0, min(b, end) - max(a, start)) / (b - a)
        if part >= 0.9:
            whole.append(label)
        elif part >= 0.5:
            return None
        elif part > 0:
            fragments = True
    if len(whole) == 1:
        return whole[0]
    if whole:
        return None
    return 1 if fragments else 0


def dataset(seed, train, per_word, cap):
    """Recordings of 3 to 10 utterances in random order, the front end run
    over each from reset as a device runs it (state carried from frame to
    frame), and one window every 100 ms labelled by `window_label`; at most
    `cap` windows per label. Returns features [n, 49, 40] int8 and labels."""
    rs = np.random.RandomState(seed)
    jobs = utterances(rs, train, per_word)
    order = rs.permutation(len(jobs))
    with Pool(2) as pool:
        speech = pool.map(speak, [jobs[k][1] for k in order], chunksize=32)
    labels = [jobs[k][0] for k in order]
    recordings, k = [], 0
    while k < len(labels):
        n = rs.randint(3, 11)
        recordings.append(session(rs, speech[k:k + n], labels[k:k + n]))
        k += n
    with Pool(2) as pool:
        streams = pool.map(stream_features, [r[0] for r in recordings], chunksize=8)
    windows, ys = [], []
    for (_, events), feats in zip(recordings, streams):
        for f in range(0, len(feats) - FRAMES + 1, 5):
            label = window_label(f * HOP, events)
            if label is not None:
                windows.append((feats, f))
                ys.append(label)
    ys = np.array(ys)
    keep = np.concatenate([rs.permutation(np.nonzero(ys == c)[0])[:cap] for c in range(len(LABELS))])
    keep.sort()
    x = np.stack([windows[k][0][windows[k][1]:windows[k][1] + FRAMES] for k in keep])
    return x, ys[keep]


# ------------------------------------------------------------------ features

_FRONT_END = None


def stream_features(samples):
    """TFLM's front end over a recording from reset, one invoke per 20 ms
    hop: [frames, 40] int8."""
    from tflite_micro.python.tflite_micro import runtime as tflm
    global _FRONT_END
    if _FRONT_END is None:
        with open(os.path.join(OUT, 'frontend.tflite'), 'rb') as f:
            _FRONT_END = tflm.Interpreter.from_bytes(f.read())
    it = _FRONT_END
    it.reset()
    rows = []
    for at in range(0, len(samples) - WINDOW + 1, HOP):
        it.set_input(samples[at:at + WINDOW], 0)
        it.invoke()
        rows.append(np.array(it.get_output(0), np.int8))
    return np.stack(rows)


# --------------------------------------------------------------------- model

def train(x, y, x_test, y_test):
    import tensorflow as tf
    L = tf.keras.layers
    tf.keras.utils.set_random_seed(1)
    to_float = lambda q: ((q.astype(np.float32) - FEATURE_ZERO) * FEATURE_SCALE)[..., None]
    inp = L.Input((FRAMES, CHANNELS, 1))
    h = L.Conv2D(WIDTH, (10, 4), strides=2, padding='same', use_bias=False)(inp)
    h = L.ReLU()(L.BatchNormalization()(h))
    for _ in range(4):
        h = L.DepthwiseConv2D(3, padding='same', use_bias=False)(h)
        h = L.ReLU()(L.BatchNormalization()(h))
        h = L.Conv2D(WIDTH, 1, use_bias=False)(h)
        h = L.ReLU()(L.BatchNormalization()(h))
    h = L.GlobalAveragePooling2D()(h)
    h = L.Dropout(0.2)(h)
    out = L.Dense(len(LABELS), activation='softmax')(h)
    model = tf.keras.Model(inp, out)
    model.compile(optimizer=tf.keras.optimizers.Adam(2e-3), loss='sparse_categorical_crossentropy',
                  metrics=['accuracy'])
    xf, xt = to_float(x), to_float(x_test)
    lr = tf.keras.callbacks.LearningRateScheduler(lambda e: 2e-3 * (0.85 ** e))
    model.fit(xf, y, batch_size=64, epochs=24, validation_data=(xt, yt := y_test), callbacks=[lr], verbose=2)

    def representative():
        # The full int8 range first: the converter then gives the input the
        # front end's scale and zero point exactly.
        yield [to_float(np.concatenate([np.full((1, FRAMES, CHANNELS // 2), -128, np.int8),
                                        np.full((1, FRAMES, CHANNELS // 2), 127, np.int8)], axis=2))]
        for k in np.random.RandomState(2).choice(len(xf), 300, replace=False):
            yield [xf[k:k + 1]]

    conv = tf.lite.TFLiteConverter.from_keras_model(model)
    conv.optimizations = [tf.lite.Optimize.DEFAULT]
    conv.representative_dataset = representative
    conv.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
    conv.inference_input_type = tf.int8
    conv.inference_output_type = tf.int8
    return conv.convert(), float(model.evaluate(xt, yt, verbose=0)[1])


def run_model(data, feats):
    from tflite_micro.python.tflite_micro import runtime as tflm
    it = tflm.Interpreter.from_bytes(data)
    scores = []
    for f in feats:
        it.set_input(f.reshape(1, FRAMES, CHANNELS, 1), 0)
        it.invoke()
        scores.append(np.array(it.get_output(0), np.int8).reshape(-1))
    return np.stack(scores)


def write(path, blob):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'wb') as f:
        f.write(blob)


def write_wav(path, samples):
    import wave
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with wave.open(path, 'wb') as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(samples.astype('<i2').tobytes())


BUNDLED_WORDS = ['yes', 'no', 'left', 'stop', 'go']
SINGLE_WORDS = ['up', 'right', 'off']
HOST_STEP, FIRMWARE_STEP = 5, 10   # examples/kws.rs, examples/firmware/src/bin/kws.rs
THRESHOLD = 0.6


def heard(scores, step, firmware):
    """The words `examples/kws.rs` (`firmware=False`) or the firmware
    reports from the int8 scores of windows `step` hops apart."""
    words, last = [], None
    for k, sc in enumerate(scores):
        best = sc.max()
        label = max(i for i in range(len(sc)) if sc[i] == best)   # Rust's max_by_key keeps the last maximum
        p = (int(best) + 128) / 256.0
        if label < 2 or p < THRESHOLD:
            continue
        if firmware:
            hop = (k + 1) * step
            if last is None or last[0] != label or hop - last[1] > FRAMES:
                words.append(LABELS[label])
            last = (label, hop)
        else:
            at = k * step * HOP / RATE
            if words and words[-1][0] == label and at - words[-1][1] <= 1.0:
                words[-1] = (label, at)
            else:
                words.append((label, at))
    return words if firmware else [LABELS[w[0]] for w in words]


def bundled_recordings(model):
    """The bundled WAVs: `words` (the five words above) and one-second
    clips of three more words, each word by a held-out voice drawn at
    random, over a quiet background; for each, the first seed whose
    recording the host example (and for `words` the firmware) hears right.
    Returns [(name, samples, features, scores, jobs)]."""
    vs = variants()
    held = vs[::5]
    out = []
    for name, words in [('words', BUNDLED_WORDS)] + [(w, [w]) for w in SINGLE_WORDS]:
        for seed in range(100, 300):
            rs = np.random.RandomState(seed)
            jobs = [(w, '%s+%s' % (ACCENTS[rs.randint(len(ACCENTS))] if k % 2 else HELD_OUT_ACCENT,
                                   held[rs.randint(len(held))]), rs.randint(130, 190), rs.randint(30, 70))
                    for k, w in enumerate(words)]
            speech = [speak(j) for j in jobs]
            if len(words) == 1:
                if len(speech[0]) > 0.8 * RATE:
                    continue
                spare = (RATE - len(speech[0])) / RATE
                gaps = [spare / 2, spare / 2]
            else:
                gaps = [0.4] + [0.45] * (len(jobs) - 1) + [0.6]
            samples, _ = session(rs, speech, [0] * len(jobs), gaps=gaps, level=60.0)
            if len(words) == 1:
                samples = np.concatenate([samples, np.zeros(RATE, np.int16)])[:RATE]
            feats = stream_features(samples)
            windows = np.stack([feats[f:f + FRAMES] for f in range(0, len(feats) - FRAMES + 1, HOST_STEP)])
            scores = run_model(model, windows)
            right = heard(scores, HOST_STEP, False) == words
            if len(words) > 1:
                right = right and heard(scores[::FIRMWARE_STEP // HOST_STEP], FIRMWARE_STEP, True) == words
            if right:
                print('%s.wav: seed %d (%d drawn before it were not heard right)' % (name, seed, seed - 100))
                out.append((name, samples, feats, scores, jobs))
                break
        else:
            raise SystemExit('no recording of %s was heard right' % name)
    return out


def write_bundled(model, report):
    """Writes the bundled WAVs and their TFLM references; `report` (the
    accuracy lines) with the voices of each into accuracy.txt."""
    for name, samples, feats, scores, jobs in bundled_recordings(model):
        report.append('bundled wav/%s.wav: %s' % (name, ', '.join('"%s" by %s' % (j[0], j[1]) for j in jobs)))
        write_wav(os.path.join(OUT, 'wav', name + '.wav'), samples)
        write(os.path.join(OUT, 'reference', name + '.features.bin'), feats.tobytes())
        write(os.path.join(OUT, 'reference', name + '.scores.bin'), scores.tobytes())
    write(os.path.join(OUT, 'accuracy.txt'), ('\n'.join(report) + '\n').encode())
    print('\n'.join(report))


def main():
    write(os.path.join(OUT, 'frontend.tflite'), front_end())
    if '--bundled-only' in sys.argv:
        # Keep the trained model; make the bundled WAVs and references again.
        with open(os.path.join(OUT, 'kws.tflite'), 'rb') as f:
            model = f.read()
        with open(os.path.join(OUT, 'accuracy.txt')) as f:
            report = [line.rstrip('\n') for line in f if not line.startswith('bundled ')]
        write_bundled(model, report)
        return
    # KWS_CACHE=file.npz keeps the features for another training run.
    cache = os.environ.get('KWS_CACHE')
    if cache and os.path.exists(cache):
        d = np.load(cache)
        x, y, x_test, y_test = (d[k] for k in ('x', 'y', 'x_test', 'y_test'))
    else:
        print('front end written; synthesizing speech, running the front end', flush=True)
        x, y = dataset(10, True, per_word=900, cap=3000)
        x_test, y_test = dataset(20, False, per_word=160, cap=400)
        if cache:
            np.savez(cache, x=x, y=y, x_test=x_test, y_test=y_test)
    print('%d training windows, %d held-out windows' % (len(y), len(y_test)), flush=True)
    model, float_accuracy = train(x, y, x_test, y_test)
    write(os.path.join(OUT, 'kws.tflite'), model)
    predicted = run_model(model, x_test).argmax(axis=1)
    accuracy = float((predicted == y_test).mean())
    words = y_test >= 2
    report = ['held-out voices (accent %s, and every fifth espeak-ng variant with any accent): %d one-second '
              'windows of recordings, streamed through the front end' % (HELD_OUT_ACCENT, len(y_test)),
              'int8 model under TFLM: %.1f%% (float Keras model %.1f%%)' % (100 * accuracy, 100 * float_accuracy),
              'windows holding a keyword (%d): %.1f%%' % (words.sum(), 100 * (predicted[words] == y_test[words]).mean())]
    for k, name in enumerate(LABELS):
        sel = y_test == k
        report.append('  %-8s %4d windows %5.1f%%' % (name, sel.sum(), 100 * (predicted[sel] == k).mean()))
    write_bundled(model, report)
    print('kws.tflite %d bytes, frontend.tflite %d bytes' % (len(model), len(front_end())))


if __name__ == '__main__':
    sys.exit(main())
