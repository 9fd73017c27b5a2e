//! int4 weights stay packed in flash where a kernel reads the nibbles
//! (FULLY_CONNECTED): an int4 model takes about half the weight flash of
//! its int8 twin. (Their outputs are compared with TFLM's in the
//! differential suite, `INT4_WEIGHTS`.)

use tinyaot_tests::writer::{ModelDef, OpDef, QuantDef, SubgraphDef, TensorDef};

/// FULLY_CONNECTED [1, depth] x [units, depth] with int8 or int4 weights.
fn fc(depth: usize, units: usize, int4: bool) -> Vec<u8> {
    const INT8: i8 = 9;
    const INT32: i8 = 2;
    const INT4: i8 = 17;
    let values: Vec<i8> = (0..units * depth).map(|k| ((k * 5 + 3) % 15) as i8 - 7).collect();
    let weights: Vec<u8> = if int4 {
        let mut packed = vec![0u8; values.len().div_ceil(2)];
        for (k, &v) in values.iter().enumerate() {
            packed[k / 2] |= (v as u8 & 0x0f) << (4 * (k % 2));
        }
        packed
    } else {
        values.iter().map(|&v| v as u8).collect()
    };
    let bias: Vec<u8> = (0..units as i32).flat_map(|u| (u * 100 - 1000).to_le_bytes()).collect();
    let (d, u) = (depth as i32, units as i32);
    let sub = SubgraphDef {
        tensors: vec![
            TensorDef::new("input", &[1, d], INT8, QuantDef::per_tensor(0.05, 3)),
            TensorDef::constant("weights", &[u, d], if int4 { INT4 } else { INT8 }, 1, QuantDef::per_tensor(0.02, 0)),
            TensorDef::constant("bias", &[u], INT32, 2, QuantDef::per_tensor(0.001, 0)),
            TensorDef::new("output", &[1, u], INT8, QuantDef::per_tensor(0.1, -5)),
        ],
        inputs: vec![0],
        outputs: vec![3],
        ops: vec![OpDef { opcode: 0, inputs: vec![0, 1, 2], outputs: vec![3], options: None, custom_options: None }],
    };
    ModelDef::new(&[9], sub, vec![weights, bias]).to_bytes()
}

fn weight_bytes(model: &[u8]) -> usize {
    let target = tinyaot_compiler::Target {
        vis: Default::default(),
        name: tinyaot_compiler::codegen::Ident::new("M", tinyaot_compiler::codegen::Span::call_site()),
        track_path: None,
    };
    tinyaot_compiler::compile(model, &target, &tinyaot_compiler::Options::default()).expect("compiles").weight_bytes
}

#[test]
fn int4_fully_connected_takes_half_the_weight_flash() {
    for (depth, units) in [(64, 32), (63, 17), (256, 64)] {
        let (w8, w4) = (weight_bytes(&fc(depth, units, false)), weight_bytes(&fc(depth, units, true)));
        println!("FULLY_CONNECTED {depth} -> {units}: int8 weights {w8} B of flash, int4 {w4} B");
        // The packed nibbles, plus the per-unit constants both keep.
        let nibbles = (depth * units).div_ceil(2);
        assert!(w4 < w8 - nibbles + nibbles / 8, "int4 {w4} B is not about half of int8 {w8} B");
    }
}
