tinyaot::include_model!(Model = models::FC);

fn main() {}
