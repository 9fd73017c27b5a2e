// Malformed regions: each is one error at the region that is wrong.
tinyaot::include_model!(A = "../../models/fc_chain_int8.tflite", regions = dtcm(32K));
tinyaot::include_model!(B = "../../models/fc_chain_int8.tflite", regions = [dtcm(".dtcm", 32K), DTCM(1K)]);
tinyaot::include_model!(C = "../../models/fc_chain_int8.tflite", regions = [arena(32K)]);
tinyaot::include_model!(D = "../../models/fc_chain_int8.tflite", regions = [dtcm(".dtcm", "lots")]);
tinyaot::include_model!(E = "../../models/fc_chain_int8.tflite", regions = [dtcm(32K)], arena_limit = 1024);
tinyaot::include_model!(F = "../../models/fc_chain_int8.tflite", regions = []);

fn main() {}
