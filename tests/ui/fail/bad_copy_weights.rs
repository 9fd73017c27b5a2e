// `copy_weights` names one of the `regions` and a byte budget that fits it.
tinyaot::include_model!(A = "../../models/fc_chain_int8.tflite", copy_weights = dtcm(1K));
tinyaot::include_model!(B = "../../models/fc_chain_int8.tflite", regions = [dtcm(2K)], copy_weights = itcm(1K));
tinyaot::include_model!(C = "../../models/fc_chain_int8.tflite", regions = [dtcm(2K)], copy_weights = dtcm);
tinyaot::include_model!(D = "../../models/fc_chain_int8.tflite", regions = [dtcm(2K)], copy_weights = dtcm(4K));

fn main() {}
