//! State kept between invokes: SVDF, UNIDIRECTIONAL_SEQUENCE_LSTM (hybrid forms too), CIRCULAR_BUFFER.

use super::*;

/// SVDF over 2 to 5 invokes in a row (the state carries over): float32, or
/// int8 with an int16 or int8 state; rank, batch, memory and bias drawn.
pub(super) fn svdf(r: &mut Rng) -> (Model, String) {
    let ty = r.pick(&[Ty::F32, Ty::I8, Ty::I8]);
    let state_ty = if ty == Ty::F32 { Ty::F32 } else { r.pick(&[Ty::I16, Ty::I16, Ty::I8]) };
    let (batch, input_size, units, rank, memory) =
        (r.size(1, 2), r.size(1, 12), r.size(1, 5), r.size(1, 3), r.size(1, 6));
    let filters = units * rank;
    let act = activation(r);
    let mut b = Builder::default();
    let in_q = activation_quant(r, ty, 1e-2, 0.2);
    let input = b.input("input", &[batch, input_size], ty, in_q.clone());
    let (wf, wt, state_q, out_q, bias_scale) = if ty == Ty::F32 {
        let wf =
            b.constant("weights_feature", &[filters, input_size], Ty::F32, floats(r, filters * input_size, 0.5), None);
        let wt = b.constant("weights_time", &[filters, memory], Ty::F32, floats(r, filters * memory, 0.5), None);
        (wf, wt, None, None, 0.0)
    } else {
        let fq = per_tensor(r.log_uniform(1e-3, 0.02), 0);
        let wf_bytes = (0..filters * input_size).map(|_| r.range(-127, 127) as i8 as u8).collect();
        let wf = b.constant("weights_feature", &[filters, input_size], Ty::I8, wf_bytes, fq.clone());
        // The state holds feature activations: a scale that keeps them in range.
        let feature = scale_of(&in_q) * scale_of(&fq) * 74.0 * 73.0 * (input_size as f64).sqrt();
        let state_range = if state_ty == Ty::I16 { 8000.0 } else { 40.0 };
        let sq = per_tensor((feature / state_range * r.log_uniform(0.5, 2.0) as f64) as f32, 0);
        let (wt_bytes, tq) = if state_ty == Ty::I16 {
            let v: Vec<u8> =
                (0..filters * memory).flat_map(|_| (r.range(-20000, 20000) as i16).to_le_bytes()).collect();
            (v, per_tensor(r.log_uniform(1e-5, 1e-4), 0))
        } else {
            let v: Vec<u8> = (0..filters * memory).map(|_| r.range(-127, 127) as i8 as u8).collect();
            (v, per_tensor(r.log_uniform(1e-3, 0.02), 0))
        };
        let wt = b.constant("weights_time", &[filters, memory], state_ty, wt_bytes, tq.clone());
        let time_range = if state_ty == Ty::I16 { 12000.0 } else { 73.0 };
        let out = scale_of(&sq) * state_range * scale_of(&tq) * time_range * ((memory * rank) as f64).sqrt();
        let bias_scale = (scale_of(&sq) * scale_of(&tq)) as f32;
        (wf, wt, sq, output_quant(r, Ty::I8, out), bias_scale)
    };
    // TFLM's SVDF reads the bias unconditionally (an omitted one crashes
    // the interpreter) and checks its scale is state x time weights.
    let bias_t = if ty == Ty::F32 {
        b.constant("bias", &[units], Ty::F32, floats(r, units, 0.5), None)
    } else {
        let values: Vec<u8> = (0..units).flat_map(|_| (r.range(-2000, 2000) as i32).to_le_bytes()).collect();
        b.constant("bias", &[units], Ty::I32, values, per_tensor(bias_scale, 0))
    };
    let state = b.variable("state", &[batch, memory * filters], state_ty, state_q);
    let output = b.output("output", &[batch, units], ty, out_q);
    let options = vec![(0, Scalar::I32(rank as i32)), (1, Scalar::I8(act))];
    let invokes = r.size(2, 5);
    let label = format!(
        "{} state {} batch {batch} input {input_size} units {units} rank {rank} memory {memory} {} x{invokes}",
        ty.name(),
        state_ty.name(),
        act_name(act),
    );
    let mut m = b.finish(27, &[input, wf, wt, bias_t, state], &[output], Some((6, options)));
    m.invokes = invokes;
    (m, label)
}

/// Hybrid SVDF (float32 input, state and output with int8 feature and
/// time weights, which TFLM does not run) over 2 to 5 invokes, answered by
/// LiteRT's reference kernel: symmetric or asymmetric input frames, a bias
/// or none, a `reset()` between two invokes now and then.
/// Hybrid UNIDIRECTIONAL_SEQUENCE_LSTM (LiteRT's `EvalHybrid`): float32
/// input, states and output, int8 weights with one scale each (uint8 now
/// and then: LiteRT reads the bytes as int8), float32 biases, inputs and
/// hidden state quantized per row symmetrically or not; batch- or
/// time-major, cell clip; several invokes, a reset now and then.
/// Answered by LiteRT's reference kernels.
pub(super) fn lstm_hybrid(r: &mut Rng) -> (Model, String) {
    let (batch, time, n_input, units) = (r.size(1, 3), r.size(1, 4), r.size(1, 8), r.size(1, 6));
    let time_major = r.chance(0.3);
    let clip = if r.chance(0.3) { r.pick(&[0.5f32, 1.0, 3.0]) } else { 0.0 };
    let asymmetric = r.chance(0.5);
    let weight_ty = if r.chance(0.2) { Ty::U8 } else { Ty::I8 };
    let shape = if time_major { [time, batch, n_input] } else { [batch, time, n_input] };
    let out_shape = if time_major { [time, batch, units] } else { [batch, time, units] };
    let mut b = Builder::default();
    let mut inputs = vec![b.input("input", &shape, Ty::F32, None)];
    for (k, gate) in ["input", "forget", "cell", "output"].iter().cycle().take(8).enumerate() {
        let (name, cols) =
            if k < 4 { (format!("{gate}_weights"), n_input) } else { (format!("{gate}_recurrent"), units) };
        let bytes = (0..units * cols).map(|_| r.range(-127, 127) as i8 as u8).collect();
        inputs.push(b.constant(&name, &[units, cols], weight_ty, bytes, per_tensor(r.log_uniform(0.002, 0.03), 0)));
    }
    inputs.extend([-1, -1, -1]); // peepholes
    for gate in ["input", "forget", "cell", "output"] {
        inputs.push(b.constant(&format!("{gate}_bias"), &[units], Ty::F32, floats(r, units, 0.5), None));
    }
    inputs.extend([-1, -1]); // projection
    inputs.push(b.variable("output_state", &[batch, units], Ty::F32, None));
    inputs.push(b.variable("cell_state", &[batch, units], Ty::F32, None));
    inputs.extend([-1, -1, -1, -1]); // layer norm
    let output = b.output("output", &out_shape, Ty::F32, None);
    let options =
        vec![(0, Scalar::I8(4)), (1, Scalar::F32(clip)), (3, Scalar::Bool(time_major)), (4, Scalar::Bool(asymmetric))];
    let mut m = b.finish(44, &inputs, &[output], Some((71, options)));
    m.invokes = r.size(2, 4);
    m.reset_at = r.chance(0.3).then(|| r.size(1, m.invokes - 1));
    m.litert = true;
    let label = format!(
        "{} weights, batch {batch} time {time} input {n_input} units {units}{}{}{} x{}{}",
        weight_ty.name(),
        if time_major { " time-major" } else { "" },
        if clip > 0.0 { format!(" cell clip {clip}") } else { String::new() },
        if asymmetric { " asymmetric inputs" } else { "" },
        m.invokes,
        m.reset_at.map_or(String::new(), |k| format!(", reset before {k}")),
    );
    (m, label)
}

pub(super) fn svdf_hybrid(r: &mut Rng) -> (Model, String) {
    let (batch, input_size, units, rank, memory) =
        (r.size(1, 2), r.size(1, 12), r.size(1, 5), r.size(1, 3), r.size(1, 6));
    let filters = units * rank;
    let act = activation(r);
    let asymmetric = r.chance(0.5);
    let mut b = Builder::default();
    let input = b.input("input", &[batch, input_size], Ty::F32, None);
    let mut int8 = |b: &mut Builder, name: &str, shape: [usize; 2]| {
        let bytes = (0..shape[0] * shape[1]).map(|_| r.range(-127, 127) as i8 as u8).collect();
        b.constant(name, &shape, Ty::I8, bytes, per_tensor(r.log_uniform(1e-3, 0.02), 0))
    };
    let wf = int8(&mut b, "weights_feature", [filters, input_size]);
    let wt = int8(&mut b, "weights_time", [filters, memory]);
    let with_bias = r.chance(0.7);
    let bias = if with_bias { b.constant("bias", &[units], Ty::F32, floats(r, units, 0.5), None) } else { -1 };
    let state = b.variable("state", &[batch, memory * filters], Ty::F32, None);
    let output = b.output("output", &[batch, units], Ty::F32, None);
    let options = vec![(0, Scalar::I32(rank as i32)), (1, Scalar::I8(act)), (2, Scalar::Bool(asymmetric))];
    let mut m = b.finish(27, &[input, wf, wt, bias, state], &[output], Some((6, options)));
    m.invokes = r.size(2, 5);
    m.reset_at = r.chance(0.3).then(|| r.size(1, m.invokes - 1));
    m.litert = true;
    let label = format!(
        "batch {batch} input {input_size} units {units} rank {rank} memory {memory} {}{}{} x{}{}",
        act_name(act),
        if asymmetric { " asymmetric inputs" } else { "" },
        if with_bias { "" } else { " no bias" },
        m.invokes,
        m.reset_at.map_or(String::new(), |k| format!(", reset before {k}")),
    );
    (m, label)
}

/// UNIDIRECTIONAL_SEQUENCE_LSTM over 2 to 4 invokes in a row (the states
/// carry over): float32, int8 (int8 weights, int32 biases, an int16 cell
/// state of power-of-two scale, an int8 hidden state with any zero point)
/// or 16x8 (int16 activations, int64 biases); batch- or time-major, cell
/// clip or none; no peephole, projection or layer norm (TFLM has none).
pub(super) fn lstm(r: &mut Rng) -> (Model, String) {
    let ty = r.pick(&[Ty::F32, Ty::F32, Ty::I8, Ty::I8, Ty::I16]);
    let (batch, time, n_input, units) = (r.size(1, 2), r.size(1, 4), r.size(1, 6), r.size(1, 5));
    let time_major = r.chance(0.3);
    let clip = if r.chance(0.4) { r.pick(&[0.5f32, 1.0, 3.0]) } else { 0.0 };
    let shape = if time_major { [time, batch, n_input] } else { [batch, time, n_input] };
    let out_shape = if time_major { [time, batch, units] } else { [batch, time, units] };
    let mut b = Builder::default();
    let in_q = activation_quant(r, ty, 0.005, 0.05);
    // The hidden state (and the output, which TFLM writes in its
    // quantization) holds tanh-sized values.
    let hidden_q = match ty {
        Ty::I8 => per_tensor(r.log_uniform(1.0 / 160.0, 1.0 / 60.0), r.zero_point(-40, 40)),
        Ty::I16 => per_tensor(r.log_uniform(1.0 / 40000.0, 1.0 / 16000.0), 0),
        _ => None,
    };
    let input = b.input("input", &shape, ty, in_q.clone());
    let mut inputs = vec![input];
    let mut weight_scales = Vec::new();
    for (k, gate) in ["input", "forget", "cell", "output"].iter().cycle().take(8).enumerate() {
        let (name, cols) =
            if k < 4 { (format!("{gate}_weights"), n_input) } else { (format!("{gate}_recurrent"), units) };
        let t = if ty == Ty::F32 {
            b.constant(&name, &[units, cols], Ty::F32, floats(r, units * cols, 0.6), None)
        } else {
            let bytes = (0..units * cols).map(|_| r.range(-127, 127) as i8 as u8).collect();
            let scale = r.log_uniform(0.002, 0.02);
            let x = if k < 4 { scale_of(&in_q) } else { scale_of(&hidden_q) };
            weight_scales.push(x * f64::from(scale));
            b.constant(&name, &[units, cols], Ty::I8, bytes, per_tensor(scale, 0))
        };
        inputs.push(t);
    }
    inputs.extend([-1, -1, -1]); // peepholes
    // TFLM's LSTM reads every gate bias (an omitted one crashes it).
    for (g, gate) in ["input", "forget", "cell", "output"].iter().enumerate() {
        let name = format!("{gate}_bias");
        let t = match ty {
            Ty::F32 => b.constant(&name, &[units], Ty::F32, floats(r, units, 0.5), None),
            _ => {
                // About +-0.5 in the gate's input x weight scale.
                let limit = (0.5 / weight_scales[g]).min(1e6) as i64;
                let values: Vec<i64> = (0..units).map(|_| r.range(-limit, limit)).collect();
                let (bias_ty, bytes): (Ty, Vec<u8>) = if ty == Ty::I8 {
                    (Ty::I32, values.iter().flat_map(|&v| (v as i32).to_le_bytes()).collect())
                } else {
                    (Ty::I64, values.iter().flat_map(|&v| v.to_le_bytes()).collect())
                };
                b.constant(&name, &[units], bias_ty, bytes, per_tensor(weight_scales[g] as f32, 0))
            }
        };
        inputs.push(t);
    }
    inputs.extend([-1, -1]); // projection
    let (cell_ty, cell_q, cell_power) = match ty {
        Ty::F32 => (Ty::F32, None, 0),
        _ => {
            let power = r.pick(&[-15, -13, -11, -11, -10, -9]);
            (Ty::I16, per_tensor(2f32.powi(power), 0), power)
        }
    };
    inputs.push(b.variable("output_state", &[batch, units], ty, hidden_q.clone()));
    inputs.push(b.variable("cell_state", &[batch, units], cell_ty, cell_q));
    inputs.extend([-1, -1, -1, -1]); // layer norm: TFLM wants all 24 inputs listed
    let output = b.output("output", &out_shape, ty, hidden_q);
    let options = vec![(0, Scalar::I8(4)), (1, Scalar::F32(clip)), (3, Scalar::Bool(time_major))];
    let invokes = r.size(2, 4);
    let label = format!(
        "{}{} batch {batch} time {time} input {n_input} units {units}{}{} x{invokes}",
        ty.name(),
        if ty == Ty::F32 { String::new() } else { format!(" cell 2^{cell_power}") },
        if time_major { " time-major" } else { "" },
        if clip > 0.0 { format!(" cell clip {clip}") } else { String::new() },
    );
    let mut m = b.finish(44, &inputs, &[output], Some((71, options)));
    m.invokes = invokes;
    (m, label)
}

/// TFLM's CIRCULAR_BUFFER (custom op) with its rows as a graph output or
/// read by a requantizing QUANTIZE: rows of 1 to 24 values, 1 to 13 slots,
/// `cycles_max` 1 to 3, or 0 or absent (TFLM's fallback: 1 for 5 or 13
/// slots, else 2). The rows are a variable tensor: TFLM keeps a plain
/// tensor's rows only as long as nothing else reuses its arena bytes.
/// Several invokes (the stopped ones give no outputs on either side), a
/// reset now and then.
pub(super) fn circular_buffer(r: &mut Rng) -> (Model, String) {
    const QUANTIZE: i32 = 114;
    let (h, w) = (r.size(1, 3), r.size(1, 8));
    let slots = r.pick(&[1, 2, 3, 4, 5, 6, 13]);
    let cycles = r.pick(&[-1i64, 0, 1, 1, 2, 3]);
    let mut b = Builder::default();
    let q = activation_quant(r, Ty::I8, 1e-3, 0.5);
    let input = b.input("frame", &[1, 1, h, w], Ty::I8, q.clone());
    let rows = b.variable("rows", &[1, slots, h, w], Ty::I8, q);
    let options = if cycles < 0 { Vec::new() } else { flexbuffer_map(&[("cycles_max", Flex::Int(cycles))]) };
    b.custom_op("CIRCULAR_BUFFER", &[input], &[rows], options);
    let direct = r.chance(0.4);
    if direct {
        b.mark_output(rows, Ty::I8);
    } else {
        let out_q = activation_quant(r, Ty::I8, 1e-3, 0.5);
        let out = b.output("requantized", &[1, slots, h, w], Ty::I8, out_q);
        b.op(QUANTIZE, &[rows], &[out], None);
    }
    let mut m = b.finish_graph();
    m.invokes = r.size(2, 9);
    m.reset_at = r.chance(0.4).then(|| r.size(1, m.invokes - 1));
    let label = format!(
        "[1, {slots}, {h}, {w}] cycles_max {}{}, {} invokes, reset before {:?}",
        if cycles < 0 { "absent".to_string() } else { cycles.to_string() },
        if direct { ", rows as the output" } else { ", requantized" },
        m.invokes,
        m.reset_at
    );
    (m, label)
}
