// The last region over its budget: the error names it, by how much, and
// the buffers at its peak.
tinyaot::include_model!(Kws = "../../models/ds_cnn_kws_int8.tflite", regions = [dtcm(".dtcm", 1K), sram(".sram2", 1000)]);

fn main() {}
