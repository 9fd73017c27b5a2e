// `latency_limit` is a time at the core's clock: 5 ms at 64 MHz is 320,000
// cycles, under the model's estimate.
tinyaot::include_model!(Kws = "../../models/ds_cnn_kws_int8.tflite", latency_limit = "5ms @ 64MHz");

fn main() {}
