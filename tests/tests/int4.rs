//! int4 weights stay packed in flash: every kernel that reads int4
//! filters reads the nibbles (FULLY_CONNECTED, CONV_2D im2col and direct,
//! DEPTHWISE_CONV_2D fast and direct), so an int4 layer takes at most half
//! the weight flash of its int8 twin. (Their outputs are compared with
//! TFLM's in the differential suite, `INT4_WEIGHTS`, and in the reference
//! model `int4_weights_int8`.)

use tinyaot_tests::writer::{ModelDef, OpDef, QuantDef, Scalar, SubgraphDef, TensorDef};

/// Weights -7..=7 as int8 bytes, or packed two per byte (low nibble first).
fn weight_bytes_of(n: usize, int4: bool) -> Vec<u8> {
    let values: Vec<i8> = (0..n).map(|k| ((k * 5 + 3) % 15) as i8 - 7).collect();
    if !int4 {
        return values.iter().map(|&v| v as u8).collect();
    }
    let mut packed = vec![0u8; n.div_ceil(2)];
    for (k, &v) in values.iter().enumerate() {
        packed[k / 2] |= (v as u8 & 0x0f) << (4 * (k % 2));
    }
    packed
}

/// CONV_2D 3x3 VALID over [1, 8, 8, ic] to `oc` channels, int8 or int4 filter.
fn conv(ic: usize, oc: usize, int4: bool) -> Vec<u8> {
    grouped_conv(ic, oc, 1, int4)
}

/// CONV_2D 3x3 VALID over [1, 8, 8, ic] to `oc` channels in `groups`
/// filter groups, int8 or int4 filter.
fn grouped_conv(ic: usize, oc: usize, groups: usize, int4: bool) -> Vec<u8> {
    let options = (1, vec![(0, Scalar::I8(1)), (1, Scalar::I32(1)), (2, Scalar::I32(1))]);
    let filter = [oc as i32, 3, 3, (ic / groups) as i32];
    one_layer(3, options, ([1, 8, 8, ic as i32].as_slice(), &filter, &[1, 6, 6, oc as i32]), oc, int4)
}

/// DEPTHWISE_CONV_2D 3x3 VALID over [1, 8, 8, c], depth multiplier
/// `multiplier`, int8 or int4 filter.
fn depthwise(c: usize, multiplier: usize, int4: bool) -> Vec<u8> {
    let oc = (c * multiplier) as i32;
    let options =
        (2, vec![(0, Scalar::I8(1)), (1, Scalar::I32(1)), (2, Scalar::I32(1)), (3, Scalar::I32(multiplier as i32))]);
    one_layer(4, options, ([1, 8, 8, c as i32].as_slice(), &[1, 3, 3, oc], &[1, 6, 6, oc]), oc as usize, int4)
}

/// FULLY_CONNECTED [1, depth] x [units, depth] with int8 or int4 weights.
fn fc(depth: usize, units: usize, int4: bool) -> Vec<u8> {
    let (d, u) = (depth as i32, units as i32);
    one_layer(9, (0, Vec::new()), ([1, d].as_slice(), &[u, d], &[1, u]), units, int4)
}

/// A model of one int8 layer (builtin `opcode`, its options table unless
/// empty) with a constant filter (weights -7..=7, int8 or int4) and an
/// int32 bias of `channels`: (input, filter, output) shapes.
fn one_layer(
    opcode: i32,
    options: (u8, Vec<(u16, Scalar)>),
    (input, filter, output): (&[i32], &[i32], &[i32]),
    channels: usize,
    int4: bool,
) -> Vec<u8> {
    const INT8: i8 = 9;
    const INT32: i8 = 2;
    const INT4: i8 = 17;
    let weights = weight_bytes_of(filter.iter().product::<i32>() as usize, int4);
    let bias: Vec<u8> = (0..channels as i32).flat_map(|u| (u * 100 - 1000).to_le_bytes()).collect();
    let sub = SubgraphDef {
        tensors: vec![
            TensorDef::new("input", input, INT8, QuantDef::per_tensor(0.05, 3)),
            TensorDef::constant("filter", filter, if int4 { INT4 } else { INT8 }, 1, QuantDef::per_tensor(0.02, 0)),
            TensorDef::constant("bias", &[channels as i32], INT32, 2, QuantDef::per_tensor(0.001, 0)),
            TensorDef::new("output", output, INT8, QuantDef::per_tensor(0.1, -5)),
        ],
        inputs: vec![0],
        outputs: vec![3],
        ops: vec![OpDef {
            opcode: 0,
            inputs: vec![0, 1, 2],
            outputs: vec![3],
            options: (!options.1.is_empty()).then_some(options),
            custom_options: None,
        }],
    };
    ModelDef::new(&[opcode], sub, vec![weights, bias]).to_bytes()
}

fn compiled(model: &[u8]) -> tinyaot_compiler::Compiled {
    let target = tinyaot_compiler::Target {
        vis: Default::default(),
        name: tinyaot_compiler::codegen::Ident::new("M", tinyaot_compiler::codegen::Span::call_site()),
        track_path: None,
    };
    tinyaot_compiler::compile(model, &target, &tinyaot_compiler::Options::default()).expect("compiles")
}

fn weight_bytes(model: &[u8]) -> usize {
    compiled(model).weight_bytes
}

#[test]
fn int4_depthwise_takes_at_most_half_the_weight_flash() {
    // Multiplier 1: the fast kernel's layouts (16-bit pairs for int8,
    // nibbles for int4); multiplier 2: the direct kernel.
    for (c, multiplier, kernel) in [(8, 1, "depthwise_m1_s8"), (6, 1, "depthwise_m1_s8"), (5, 2, "Int4Filter")] {
        let (w8, int4) = (weight_bytes(&depthwise(c, multiplier, false)), compiled(&depthwise(c, multiplier, true)));
        let w4 = int4.weight_bytes;
        let oc = c * multiplier;
        println!("DEPTHWISE_CONV_2D 3x3 {c} x{multiplier}: int8 weights {w8} B of flash, int4 {w4} B");
        assert!(w8 - w4 >= 9 * oc / 2, "int4 {w4} B saves less than half the int8 filter's {} B", 9 * oc);
        assert!(int4.tokens.to_string().contains(kernel), "the int4 layer does not run {kernel}");
    }
}

#[test]
fn int4_grouped_conv_reads_nibbles() {
    let (w8, int4) = (weight_bytes(&grouped_conv(6, 4, 2, false)), compiled(&grouped_conv(6, 4, 2, true)));
    let w4 = int4.weight_bytes;
    println!("CONV_2D 3x3 6 -> 4 in 2 groups: int8 weights {w8} B of flash, int4 {w4} B");
    assert!(w8 - w4 >= 4 * 9 * 3 / 2, "int4 {w4} B saves less than half the int8 filter");
    assert!(int4.tokens.to_string().contains("Int4Filter"), "the grouped int4 layer does not read nibbles");
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

#[test]
fn int4_conv_takes_half_the_weight_flash() {
    for (ic, oc) in [(16, 32), (3, 7)] {
        let (w8, w4) = (weight_bytes(&conv(ic, oc, false)), weight_bytes(&conv(ic, oc, true)));
        println!("CONV_2D 3x3 {ic} -> {oc}: int8 weights {w8} B of flash, int4 {w4} B");
        let nibbles = (oc * 9 * ic).div_ceil(2);
        // int4 rows go in pairs of whole 8-value words: on a small layer
        // (7 rows of 27) the padding is up to a quarter of the nibbles.
        assert!(w4 <= w8 - nibbles + nibbles / 4, "int4 {w4} B is not about half of int8 {w8} B");
    }
}
