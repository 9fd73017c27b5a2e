// A latency needs a time and a clock.
tinyaot::include_model!(Kws = "../../models/ds_cnn_kws_int8.tflite", latency_limit = "20ms");

fn main() {}
