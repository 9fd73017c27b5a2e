//! Keyword spotting on the host: a depthwise-separable CNN compiled at
//! build time by `include_model!`, run on a bundled input, printing the
//! scores and the arena plan.
//!
//! ```text
//! cargo run -p tinyaot-examples --example kws
//! ```

// The model and its input are the project's own (tests/models/make_models.py).
tinyaot::include_model!(Kws = "../tests/models/ds_cnn_kws_int8.tflite", arena_limit = "16K");

const INPUT: &[u8; 490] = include_bytes!("../tests/models/ds_cnn_kws_int8.input.bin");
const LABELS: [&str; 12] =
    ["silence", "unknown", "yes", "no", "up", "down", "left", "right", "on", "off", "stop", "go"];

fn main() {
    let mut kws = Kws::take().expect("the arena is taken once");
    // The features are int8, quantized with the model's input scale and zero point.
    for (dst, &src) in kws.input_mut().iter_mut().zip(INPUT) {
        *dst = src as i8;
    }
    kws.invoke();
    let scores: &[i8; 12] = kws.output();

    let q = Kws::OUTPUT_QUANT.expect("an int8 model has quantized outputs");
    println!("input  {:?} int8, scale {:?}", Kws::INPUT_SHAPE, Kws::INPUT_QUANT.map(|q| q.scale));
    println!("scores (int8 -> probability):");
    for (label, &s) in LABELS.iter().zip(scores) {
        let p = q.scale * (s as i32 - q.zero_point) as f32;
        println!("  {label:<8} {s:>5}  {p:.3}");
    }
    let best = (0..12).max_by_key(|&i| scores[i]).unwrap_or(0);
    println!("top class: {}", LABELS[best]);

    println!(
        "\narena plan ({} bytes; lower bound {}, TFLM greedy {}):",
        Kws::ARENA_SIZE,
        Kws::PLAN.lower_bound,
        Kws::PLAN.tflm_greedy
    );
    println!("  {:<48} {:>7} {:>7}  ops", "buffer", "offset", "bytes");
    for b in Kws::PLAN.buffers {
        let name: String = b.name.chars().take(48).collect();
        println!("  {name:<48} {:>7} {:>7}  {}..={}", b.offset, b.size, b.first_op, b.last_op);
    }
    assert!(Kws::take().is_none(), "a second take() must fail");
}
