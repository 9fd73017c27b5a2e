// A real model over its time budget: the error names the slowest ops and
// what would help (here the arena budget that leaves out the faster kernels).
tinyaot::include_model!(Kws = "../../models/ds_cnn_kws_int8.tflite", arena_limit = 2320, cycle_limit = 400_000);

fn main() {}
