// Quirks of real files that TFLM runs (see `tests/tests/fixtures.rs`): each
// compiles and computes what the plain model computes.
tinyaot::include_model!(PerTensorAxis = "../../ui/fixtures/accept_per_tensor_axis.tflite");
tinyaot::include_model!(BiasChannelAxis = "../../ui/fixtures/accept_bias_channel_axis.tflite");
tinyaot::include_model!(UnusedTensors = "../../ui/fixtures/accept_unused_tensors.tflite");
tinyaot::include_model!(ConverterExtras = "../../ui/fixtures/accept_converter_extras.tflite");
tinyaot::include_model!(OmittedBias = "../../ui/fixtures/accept_omitted_bias.tflite");
tinyaot::include_model!(UncalledSubgraph = "../../ui/fixtures/accept_uncalled_subgraph.tflite");
tinyaot::include_model!(Unaligned = "../../ui/fixtures/accept_unaligned.tflite");
tinyaot::include_model!(LooseFile = "../../ui/fixtures/accept_loose_file.tflite");

macro_rules! run {
    ($model:ident, $x:expr) => {{
        let mut arena = tinyaot::Arena::<{ $model::ARENA_SIZE }>::new();
        let mut m = $model::new(&mut arena);
        m.input_mut().copy_from_slice($x);
        m.invoke();
        *m.output()
    }};
}

fn main() {
    for x in [[0i8, 0, 0, 0], [1, 2, 3, 4], [-128, 127, -5, 9], [100, 100, 100, 100]] {
        let want: [i8; 3] = run!(PerTensorAxis, &x);
        assert_eq!(run!(BiasChannelAxis, &x), want);
        assert_eq!(run!(UnusedTensors, &x), want);
        assert_eq!(run!(ConverterExtras, &x), want);
        assert_eq!(run!(OmittedBias, &x), want);
        assert_eq!(run!(UncalledSubgraph, &x), want);
        assert_eq!(run!(Unaligned, &x), want);
        assert_eq!(run!(LooseFile, &x), want);
        // weights all 1, scales 0.5 * 0.25 / 1.0: the sum of x over 8, rounded.
        let sum: i32 = x.iter().map(|&v| i32::from(v)).sum();
        let expect = ((sum as f64) / 8.0).round().clamp(-128.0, 127.0) as i8;
        assert!(want.iter().all(|&y| (i32::from(y) - i32::from(expect)).abs() <= 1), "{want:?} vs {expect}");
    }
}
