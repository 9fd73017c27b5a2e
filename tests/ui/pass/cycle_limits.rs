// Every accepted form of a time budget, and the estimate they are held to:
// CYCLES_M4 is the sum of the ops' estimates.
tinyaot::include_model!(A = "../../models/ds_cnn_kws_int8.tflite", cycle_limit = 2_000_000);
tinyaot::include_model!(B = "../../models/ds_cnn_kws_int8.tflite", cycle_limit = 2 * 1_000_000);
tinyaot::include_model!(C = "../../models/ds_cnn_kws_int8.tflite", cycle_limit = "2M");
tinyaot::include_model!(D = "../../models/ds_cnn_kws_int8.tflite", cycle_limit = "1500k");
tinyaot::include_model!(E = "../../models/ds_cnn_kws_int8.tflite", latency_limit = "20ms @ 64MHz");
tinyaot::include_model!(F = "../../models/ds_cnn_kws_int8.tflite", latency_limit = "1.5 ms@1GHz");

fn main() {
    let sum: u64 = A::PLAN.ops.iter().map(|op| op.cycles_m4).sum();
    assert_eq!(A::CYCLES_M4, sum);
    assert!(A::CYCLES_M4 > 0 && A::CYCLES_M4 <= 1_280_000);
    let _ = (B::CYCLES_M4, C::CYCLES_M4, D::CYCLES_M4, E::CYCLES_M4, F::CYCLES_M4);
}
