// A float model over budget also suggests int8.
tinyaot::include_model!(Img = "../../models/resnet_block_float.tflite", arena_limit = "2K");

fn main() {}
