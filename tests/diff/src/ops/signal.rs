//! TFLM's signal library (audio front ends) and DETECTION_POSTPROCESS.

use super::*;

/// The signal library's WINDOW: int16 frames times an int16 window
/// (a constant, as the audio front end has it, or an input), shifted.
pub(super) fn signal_window(r: &mut Rng) -> (Model, String) {
    let frame = r.size(1, 40);
    let frames = r.size(1, 3);
    let shape = if r.chance(0.5) { vec![frames * frame] } else { vec![frames, frame] };
    let shift = r.size(0, 20) as i64;
    let mut b = Builder::default();
    let input = b.input("input", &shape, Ty::I16, None);
    let constant = r.chance(0.7);
    let window = if constant {
        let bytes = crate::random_values(r, Ty::I16, frame);
        b.constant("window", &[frame], Ty::I16, bytes, None)
    } else {
        b.input("window", &[frame], Ty::I16, None)
    };
    let output = b.output("output", &shape, Ty::I16, None);
    b.custom_op("SignalWindow", &[input, window], &[output], flexbuffer_map(&[("shift", Flex::Int(shift))]));
    (b.finish_graph(), format!("{shape:?} window [{frame}]{} shift {shift}", if constant { " (constant)" } else { "" }))
}

/// The signal library's FFT_AUTO_SCALE: an int16 frame (its samples kept
/// below a random magnitude, so every shift occurs) scaled up, and the
/// shift. The frame is a WINDOW's output, its samples capped by the shift.
pub(super) fn signal_fft_auto_scale(r: &mut Rng) -> (Model, String) {
    let len = r.size(1, 64);
    // Now and then -32768 among small samples, or all zeros (TFLM's
    // order-dependent maximum and its MSB of 0).
    let extremes = r.chance(0.3);
    let quiet = if extremes { 0 } else { r.size(0, 15) as i64 };
    let mut b = Builder::default();
    let input = b.input("input", &[len], Ty::I16, None);
    // WINDOW by ones shifted right by `quiet`: samples of any magnitude.
    let ones = b.constant("ones", &[len], Ty::I16, (0..len).flat_map(|_| 1i16.to_le_bytes()).collect(), None);
    let frame = b.tensor("frame", &[len], Ty::I16, None);
    b.custom_op("SignalWindow", &[input, ones], &[frame], flexbuffer_map(&[("shift", Flex::Int(quiet))]));
    let output = b.output("output", &[len], Ty::I16, None);
    let bits = b.output("scale_bits", &[], Ty::I32, None);
    b.custom_op("SignalFftAutoScale", &[frame], &[output, bits], Vec::new());
    let mut m = b.finish_graph();
    if extremes {
        let zeros = r.chance(0.3);
        m.fixed = Some(
            (0..len)
                .map(|_| {
                    if zeros {
                        0
                    } else if r.chance(0.2) {
                        -32768
                    } else {
                        r.range(-300, 300)
                    }
                })
                .collect(),
        );
    }
    (m, format!("[{len}] samples >> {quiet}{}", if extremes { " with extremes" } else { "" }))
}

/// The signal library's ENERGY over the whole spectrum (TFLM leaves bins
/// outside `start..end` unwritten: only the full range has one answer).
pub(super) fn signal_energy(r: &mut Rng) -> (Model, String) {
    let bins = r.size(1, 40);
    let mut b = Builder::default();
    let input = b.input("spectrum", &[2 * bins], Ty::I16, None);
    let output = b.output("energy", &[bins], Ty::U32, None);
    let options = flexbuffer_map(&[("end_index", Flex::Int(bins as i64)), ("start_index", Flex::Int(0))]);
    b.custom_op("SignalEnergy", &[input], &[output], options);
    (b.finish_graph(), format!("{bins} bins"))
}

/// The signal library's FILTER_BANK_SQUARE_ROOT: uint64 channels of every
/// magnitude, a run-time shift of 0 to 16.
pub(super) fn signal_filter_bank_square_root(r: &mut Rng) -> (Model, String) {
    let channels = r.size(1, 40);
    let shift = r.range(0, 16);
    let mut b = Builder::default();
    let input = b.input("channels", &[channels], Ty::U64, None);
    let bits = b.input("scale_bits", &[], Ty::I32, None);
    let output = b.output("output", &[channels], Ty::U32, None);
    b.custom_op("SignalFilterBankSquareRoot", &[input, bits], &[output], Vec::new());
    let mut m = b.finish_graph();
    m.fixed = Some(vec![shift]);
    (m, format!("{channels} channels >> {shift}"))
}

/// The signal library's FILTER_BANK_LOG: uint32 channels of every
/// magnitude, a correction shift and an output scale.
pub(super) fn signal_filter_bank_log(r: &mut Rng) -> (Model, String) {
    let channels = r.size(1, 40);
    let bits = r.range(0, 8);
    let any = r.range(1, 1 << 20);
    let scale = r.pick(&[1, 64, 1600, 65536, any]);
    let mut b = Builder::default();
    let input = b.input("channels", &[channels], Ty::U32, None);
    let output = b.output("log", &[channels], Ty::I16, None);
    let options = flexbuffer_map(&[("input_correction_bits", Flex::Int(bits)), ("output_scale", Flex::Int(scale))]);
    b.custom_op("SignalFilterBankLog", &[input], &[output], options);
    (b.finish_graph(), format!("{channels} channels << {bits}, scale {scale}"))
}

/// The signal library's FILTER_BANK with a mel-like constant config:
/// overlapping channels of increasing width over the spectrum, Q12
/// weights and their complements (now and then negative ones).
pub(super) fn signal_filter_bank(r: &mut Rng) -> (Model, String) {
    let channels = r.size(1, 12);
    let (mut freq, mut starts, mut widths) = (Vec::new(), Vec::new(), Vec::new());
    let (mut bin, mut weight) = (r.size(0, 3), 0);
    for _ in 0..=channels {
        let width = r.size(1, 5);
        freq.push(bin as i32);
        starts.push(weight as i32);
        widths.push(width as i32);
        bin += r.size(1, width);
        weight += width;
    }
    let bins = freq.iter().zip(&widths).map(|(f, w)| f + w).max().unwrap_or(1) as usize + r.size(0, 3);
    let signed = r.chance(0.2);
    let weights: Vec<i32> =
        (0..weight).map(|_| if signed { r.range(-4096, 4096) } else { r.range(0, 4096) } as i32).collect();
    let unweights: Vec<i32> = weights.iter().map(|w| 4096 - w).collect();
    let mut b = Builder::default();
    let spectrum = b.input("spectrum", &[bins], Ty::U32, None);
    let mut table = |name: &str, values: &[i32]| {
        let bytes = values.iter().flat_map(|&v| (v as i16).to_le_bytes()).collect();
        b.constant(name, &[values.len()], Ty::I16, bytes, None)
    };
    let config = [
        table("weights", &weights),
        table("unweights", &unweights),
        table("frequency_starts", &freq),
        table("weight_starts", &starts),
        table("widths", &widths),
    ];
    let output = b.output("channels", &[channels], Ty::U64, None);
    let inputs = [&[spectrum][..], &config[..]].concat();
    b.custom_op(
        "SignalFilterBank",
        &inputs,
        &[output],
        flexbuffer_map(&[("num_channels", Flex::Int(channels as i64))]),
    );
    (b.finish_graph(), format!("{bins} bins -> {channels} channels{}", if signed { " (signed weights)" } else { "" }))
}

/// The signal library's PCAN: channels and noise estimates of every
/// magnitude, a constant gain table of the 125 entries a 32-bit estimate
/// can reach (TFLM reads past a shorter one), an SNR shift.
pub(super) fn signal_pcan(r: &mut Rng) -> (Model, String) {
    let channels = r.size(1, 40);
    let table_len = 125;
    let shift = r.range(0, 12);
    let mut b = Builder::default();
    let input = b.input("channels", &[channels], Ty::U32, None);
    let noise = b.input("noise", &[channels], Ty::U32, None);
    let bytes = crate::random_values(r, Ty::I16, table_len);
    let gains = b.constant("gains", &[table_len], Ty::I16, bytes, None);
    let output = b.output("output", &[channels], Ty::U32, None);
    b.custom_op("SignalPCAN", &[input, noise, gains], &[output], flexbuffer_map(&[("snr_shift", Flex::Int(shift))]));
    (b.finish_graph(), format!("{channels} channels, gains [{table_len}], snr_shift {shift}"))
}

/// The signal library's FILTER_BANK_SPECTRAL_SUBTRACTION over 2 to 5
/// invokes in a row (its noise estimate carried), smoothing fractions of
/// 14 bits as the front end's (alternates on odd channels), clamping on or
/// off, channels of every magnitude below the smoothing headroom.
pub(super) fn signal_spectral_subtraction(r: &mut Rng) -> (Model, String) {
    let channels = r.size(1, 40);
    let bits = 14i64;
    let smoothing_bits = r.range(0, 10);
    let s = r.range(0, 1 << bits);
    let alt = r.range(0, 1 << bits);
    let clamping = r.chance(0.5);
    let floor = r.range(0, 1 << bits);
    let mut b = Builder::default();
    let input = b.input("channels", &[channels], Ty::U32, None);
    let output = b.output("output", &[channels], Ty::U32, None);
    let noise = b.output("noise_estimate", &[channels], Ty::U32, None);
    let options = flexbuffer_map(&[
        ("alternate_one_minus_smoothing", Flex::Int((1 << bits) - alt)),
        ("alternate_smoothing", Flex::Int(alt)),
        ("clamping", Flex::Bool(clamping)),
        ("min_signal_remaining", Flex::Int(floor)),
        ("num_channels", Flex::Int(channels as i64)),
        ("one_minus_smoothing", Flex::Int((1 << bits) - s)),
        ("smoothing", Flex::Int(s)),
        ("smoothing_bits", Flex::Int(smoothing_bits)),
        ("spectral_subtraction_bits", Flex::Int(bits)),
    ]);
    b.custom_op("SignalFilterBankSpectralSubtraction", &[input], &[output, noise], options);
    let mut m = b.finish_graph();
    m.invokes = r.size(2, 5);
    // Channels that the headroom shift keeps within 32 bits, as the front
    // end's are.
    m.fixed = Some((0..m.invokes * channels).map(|_| r.range(0, (1i64 << (32 - smoothing_bits)) - 1)).collect());
    let label = format!(
        "{channels} channels x{} invokes, smoothing {s}/{alt} >> {bits}, headroom {smoothing_bits}{}",
        m.invokes,
        if clamping { ", clamping" } else { "" }
    );
    (m, label)
}

/// The signal library's int16 RFFT: lengths whose half factors into
/// radices 2 to 5 (4, 3, 2 and 5 stages all drawn), frames shorter than
/// the length (zero-padded), one or two frames.
pub(super) fn signal_rfft(r: &mut Rng) -> (Model, String) {
    let ty = r.pick(&[Ty::I16, Ty::I16, Ty::I32, Ty::F32]);
    let fft = r.pick(&FFT_LENGTHS);
    let frame = if r.chance(0.5) { fft } else { r.size(1, fft) };
    let frames = r.size(1, 2);
    let shape = if frames == 1 && r.chance(0.5) { vec![frame] } else { vec![frames, frame] };
    let out_shape = if shape.len() == 1 { vec![fft + 2] } else { vec![frames, fft + 2] };
    let mut b = Builder::default();
    let input = b.input("frames", &shape, ty, None);
    let output = b.output("spectrum", &out_shape, ty, None);
    let options = flexbuffer_map(&[("T", Flex::Int(i64::from(ty.code()))), ("fft_length", Flex::Int(fft as i64))]);
    b.custom_op("SignalRfft", &[input], &[output], options);
    (b.finish_graph(), format!("{} {shape:?} fft_length {fft}", ty.name()))
}

/// The signal library's IRFFT, int16, int32 and float32: frames of
/// `fft_length / 2 + 1` complex bins (now and then a few more, unread)
/// back into `fft_length` samples, one or two frames.
pub(super) fn signal_irfft(r: &mut Rng) -> (Model, String) {
    let ty = r.pick(&[Ty::I16, Ty::I32, Ty::F32]);
    let fft = r.pick(&FFT_LENGTHS);
    let bins = fft / 2 + 1 + if r.chance(0.2) { r.size(1, 3) } else { 0 };
    let frames = r.size(1, 2);
    let (shape, out_shape) = if frames == 1 && r.chance(0.5) {
        (vec![2 * bins], vec![fft])
    } else {
        (vec![frames, 2 * bins], vec![frames, fft])
    };
    let mut b = Builder::default();
    let input = b.input("spectrum", &shape, ty, None);
    let output = b.output("frames", &out_shape, ty, None);
    let options = flexbuffer_map(&[("T", Flex::Int(i64::from(ty.code()))), ("fft_length", Flex::Int(fft as i64))]);
    b.custom_op("SignalIrfft", &[input], &[output], options);
    (b.finish_graph(), format!("{} {shape:?} fft_length {fft}", ty.name()))
}

/// The signal library's DELAY over 2 to 5 invokes (a `reset()` between two
/// now and then): rows of 1 to 40 samples, delays shorter and longer than a
/// row (0 included).
pub(super) fn signal_delay(r: &mut Rng) -> (Model, String) {
    let frame = r.size(1, 40);
    let shape = if r.chance(0.5) { vec![frame] } else { vec![r.size(1, 3), frame] };
    let (within, beyond) = (r.size(1, frame), frame + r.size(1, 30));
    let delay = r.pick(&[0, 1, 2, within, frame, beyond]);
    let mut b = Builder::default();
    let input = b.input("samples", &shape, Ty::I16, None);
    let output = b.output("delayed", &shape, Ty::I16, None);
    b.custom_op("SignalDelay", &[input], &[output], flexbuffer_map(&[("delay_length", Flex::Int(delay as i64))]));
    let mut m = b.finish_graph();
    stream(r, &mut m);
    let label = format!("{shape:?} delay {delay}, {} invokes, reset before {:?}", m.invokes, m.reset_at);
    (m, label)
}

/// The signal library's FRAMER: rows of 1 to 4 steps, frames shorter and
/// longer than a step, with and without prefill (without, the first frame
/// slots hold no whole frame: `valid` false, the slot untouched).
pub(super) fn signal_framer(r: &mut Rng) -> (Model, String) {
    let step = r.size(1, 12);
    let inner = step * r.size(1, 4);
    let prefill = r.chance(0.6);
    let size = if prefill { step + r.size(0, 24) } else { r.size(1, 30) };
    let rows = r.size(1, 3);
    let frames = inner / step;
    let (shape, out_shape) = if rows == 1 && r.chance(0.5) {
        (vec![inner], vec![frames, size])
    } else {
        (vec![rows, inner], vec![rows, frames, size])
    };
    let mut b = Builder::default();
    let input = b.input("samples", &shape, Ty::I16, None);
    let output = b.output("frames", &out_shape, Ty::I16, None);
    let valid = b.output("valid", &[], Ty::Bool, None);
    let options = flexbuffer_map(&[
        ("frame_size", Flex::Int(size as i64)),
        ("frame_step", Flex::Int(step as i64)),
        ("prefill", Flex::Bool(prefill)),
    ]);
    b.custom_op("SignalFramer", &[input], &[output, valid], options);
    let mut m = b.finish_graph();
    stream(r, &mut m);
    // Frame slots are written once the buffer first holds a frame.
    let prefilled = if prefill { size - step } else { 0 };
    let (mut held, mut written) = (prefilled, vec![false; frames]);
    let mut unwritten = m.invokes;
    for invoke in 0..m.invokes {
        if m.reset_at == Some(invoke) {
            held = prefilled;
        }
        for slot in written.iter_mut() {
            held += step;
            if held >= size {
                *slot = true;
                held -= step;
            }
        }
        if written.iter().all(|&w| w) {
            unwritten = invoke;
            break;
        }
    }
    m.unwritten = Some((0, unwritten));
    let label = format!(
        "{shape:?} frames of {size} every {step}{}, {} invokes, reset before {:?}",
        if prefill { ", prefill" } else { "" },
        m.invokes,
        m.reset_at
    );
    (m, label)
}

/// The signal library's STACKER: 1 to 16 channels, left and right context
/// 0 to 3 frames, a step of 1 to all of them.
pub(super) fn signal_stacker(r: &mut Rng) -> (Model, String) {
    let channels = r.size(1, 16);
    let (left, right) = (r.size(0, 3), r.size(0, 3));
    let step = r.size(1, left + right + 1);
    let size = channels * (left + right + 1);
    let mut b = Builder::default();
    let input = b.input("frame", &[channels], Ty::I16, None);
    let output = b.output("stack", &[size], Ty::I16, None);
    let valid = b.output("valid", &[], Ty::Bool, None);
    let options = flexbuffer_map(&[
        ("num_channels", Flex::Int(channels as i64)),
        ("stacker_left_context", Flex::Int(left as i64)),
        ("stacker_right_context", Flex::Int(right as i64)),
        ("stacker_step", Flex::Int(step as i64)),
    ]);
    b.custom_op("SignalStacker", &[input], &[output, valid], options);
    let mut m = b.finish_graph();
    stream(r, &mut m);
    m.invokes = r.size(2, 7);
    m.reset_at = m.reset_at.map(|k| k.min(m.invokes - 1));
    // The stack is written once the buffer first holds one.
    let mut held = 0;
    let mut unwritten = m.invokes;
    for invoke in 0..m.invokes {
        if m.reset_at == Some(invoke) || invoke == 0 {
            held = channels * left;
        }
        held += channels;
        if held >= size {
            unwritten = invoke;
            break;
        }
    }
    m.unwritten = Some((0, unwritten));
    let label = format!(
        "{channels} channels, context {left}+{right}, step {step}, {} invokes, reset before {:?}",
        m.invokes, m.reset_at
    );
    (m, label)
}

/// The signal library's OVERLAP_ADD, int16 (saturating) and float32: 1 to
/// 3 frames of 1 to 24 samples, steps up to the frame size.
pub(super) fn signal_overlap_add(r: &mut Rng) -> (Model, String) {
    let ty = r.pick(&[Ty::I16, Ty::F32]);
    let size = r.size(1, 24);
    let step = r.size(1, size);
    let frames = r.size(1, 3);
    let rows = r.size(1, 2);
    let (shape, out_shape) = if rows == 1 && r.chance(0.5) {
        (vec![frames, size], vec![frames * step])
    } else {
        (vec![rows, frames, size], vec![rows, frames * step])
    };
    let mut b = Builder::default();
    let input = b.input("frames", &shape, ty, None);
    let output = b.output("samples", &out_shape, ty, None);
    let options = flexbuffer_map(&[("T", Flex::Int(i64::from(ty.code()))), ("frame_step", Flex::Int(step as i64))]);
    b.custom_op("SignalOverlapAdd", &[input], &[output], options);
    let mut m = b.finish_graph();
    stream(r, &mut m);
    let label = format!("{} {shape:?} step {step}, {} invokes, reset before {:?}", ty.name(), m.invokes, m.reset_at);
    (m, label)
}

/// DETECTION_POSTPROCESS (the SSD head), float32: 1 to 40 anchors of
/// positive size, 1 to 6 classes with or without a background column,
/// regular NMS (thresholds drawn; rows past the count are zeroed) and fast
/// NMS (which leaves rows past the count as they were, so it is drawn with
/// every box kept and no overlap large enough: the count is the row count;
/// one class per detection).
pub(super) fn detection_postprocess(r: &mut Rng) -> (Model, String) {
    let classes = r.size(1, 6);
    let columns = classes + usize::from(r.chance(0.5));
    // Now and then uint8 inputs (LiteRT's legacy SSD heads; TFLM takes
    // float32 only, neither takes int8), with regular NMS: quantized
    // encodings give identical boxes, whose IoU can round past 1.0, so
    // fast NMS would keep fewer than its rows and LiteRT leaves the rest
    // unwritten (its outputs are not zeroed).
    let quantized = r.chance(0.4).then_some(Ty::U8);
    let regular = quantized.is_some() || r.chance(0.5);
    let max_detections = r.size(1, 10);
    let boxes = if regular { r.size(1, 40) } else { r.size(max_detections, 40) };
    let stride = r.pick(&[4, 4, 5]);
    // TFLM's fast NMS writes past its outputs with more than one class per
    // detection (its row index counts classes): one, as SSD heads have.
    // LiteRT sizes the regular NMS's outputs for `max_classes_per_detection`
    // rows per detection (TFLM for one), so the uint8 cases take one.
    let per_anchor = if regular && quantized.is_none() { r.size(1, 3) } else { 1 };
    let per_class = r.size(1, 10);
    let rows = if regular { max_detections } else { max_detections * per_anchor.min(classes) };
    let mut b = Builder::default();
    let (ty, lo) = match quantized {
        Some(Ty::U8) => (Ty::U8, 0),
        Some(_) => (Ty::I8, -128),
        None => (Ty::F32, 0),
    };
    let quant = |r: &mut Rng, scale: f64| {
        quantized.and_then(|_| per_tensor(r.log_uniform(scale / 4.0, scale * 4.0), r.zero_point(lo, lo + 255)))
    };
    let encodings = b.input("box_encodings", &[1, boxes, stride], ty, quant(r, 0.05));
    let scores = b.input("class_predictions", &[1, boxes, columns], ty, quant(r, 0.02));
    let anchor_values: Vec<f64> =
        (0..boxes).flat_map(|_| [r.unit(), r.unit(), 0.05 + 0.4 * r.unit(), 0.05 + 0.4 * r.unit()]).collect();
    let anchors = match quantized {
        // Anchors in [0, 1) on 1/255 steps from the type's lowest value.
        Some(_) => {
            let bytes = anchor_values.iter().map(|&v| ((v * 255.0).round() as i64 + lo) as u8).collect();
            b.constant("anchors", &[boxes, 4], ty, bytes, per_tensor(1.0 / 255.0, lo))
        }
        None => {
            let bytes = anchor_values.iter().flat_map(|&v| (v as f32).to_le_bytes()).collect();
            b.constant("anchors", &[boxes, 4], Ty::F32, bytes, None)
        }
    };
    let out_boxes = b.output("detection_boxes", &[1, rows, 4], Ty::F32, None);
    let out_classes = b.output("detection_classes", &[1, rows], Ty::F32, None);
    let out_scores = b.output("detection_scores", &[1, rows], Ty::F32, None);
    let count = b.output("num_detections", &[1], Ty::F32, None);
    let (score_threshold, iou) = if regular { (r.unit() * 2.0 - 1.0, 0.1 + 0.9 * r.unit()) } else { (-3.0, 1.0) };
    let mut options = vec![
        ("max_detections", Flex::Int(max_detections as i64)),
        ("max_classes_per_detection", Flex::Int(per_anchor as i64)),
        ("nms_score_threshold", Flex::Float(score_threshold)),
        ("nms_iou_threshold", Flex::Float(iou)),
        ("num_classes", Flex::Int(classes as i64)),
        ("y_scale", Flex::Float(r.pick(&[10.0, 1.0, 5.0]))),
        ("x_scale", Flex::Float(r.pick(&[10.0, 1.0, 5.0]))),
        ("h_scale", Flex::Float(r.pick(&[5.0, 1.0, 2.0]))),
        ("w_scale", Flex::Float(r.pick(&[5.0, 1.0, 2.0]))),
    ];
    if regular || r.chance(0.5) {
        options.push(("use_regular_nms", Flex::Bool(regular)));
    }
    if r.chance(0.7) {
        options.push(("detections_per_class", Flex::Int(per_class as i64)));
    }
    b.custom_op(
        "TFLite_Detection_PostProcess",
        &[encodings, scores, anchors],
        &[out_boxes, out_classes, out_scores, count],
        flexbuffer_map(&options),
    );
    let label = format!(
        "{} NMS, {boxes} anchors, {classes} classes ({columns} columns), {max_detections} detections, threshold {score_threshold:.2}, IoU {iou:.2}{}",
        if regular { "regular" } else { "fast" },
        quantized.map_or(String::new(), |t| format!(", {} inputs", t.name()))
    );
    let mut m = b.finish_graph();
    m.litert = quantized.is_some();
    (m, label)
}
