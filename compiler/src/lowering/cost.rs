//! Estimated Cortex-M4 cycles of the kernels that compete for an op
//! (`Variant::cost`): the planner takes the cheapest variant that fits the
//! RAM budget and compares tiled plans by the sum over their ops, so the
//! estimates are in one unit across ops, M4 cycles at zero wait states.
//!
//! Each formula is calibrated on `firmware-profile` (the
//! `qemu-m4cycles` timings) over the project's models and the benchmark
//! set; the figures each was checked against are beside it. The
//! estimates rank kernels; they do not predict a run to the percent (a
//! layer of few channels pays its calls and its tails more than these
//! say).

/// CONV_2D, the direct kernel (any groups, any requantization): per
/// output a fixed part (the requantization, the window's clipping) and
/// per filter tap its bounds and pointers, then about 5 cycles per MAC
/// (two sign-extending byte loads, a multiply-accumulate, the loop).
/// Calibration: 3x3 with 2 values per tap (`conv_grouped_int8`), 389
/// cycles per output (here 391); 1x1 with 3 (the int4 model's int8 twin),
/// 116 (here 116).
pub fn conv_direct(outputs: u64, taps: u64, tap_depth: u64) -> u64 {
    outputs * (76 + taps * (25 + 5 * tap_depth))
}

/// CONV_2D over gathered rows (`conv2d_im2col_s8`): per MAC the dot
/// products' inner loop (pixel pairs: 19 cycles per 16 MACs), per output
/// its requantization and a share of the block's bookkeeping, per pixel
/// the gather (a window's values copied and widened; a 1x1 layer's pixel
/// only widened). Where the requantization does not fuse, sums go through
/// memory and the shared requantization loop. Calibration: `resnet_block_int8`
/// (3x3 8 -> 8) 111 cycles per output and 5.1 per gathered value (here 106
/// and 5); kws_ref_model's 1x1 64 -> 64 layers 93 per output, 3.4 per
/// value (here 96 and 3).
pub fn conv_im2col(outputs: u64, depth: u64, pixels: u64, pointwise: bool, fused: bool) -> u64 {
    let per_output = if fused { depth * 6 / 5 + 20 } else { depth * 7 / 5 + 26 };
    let per_value = if pointwise { 3 } else { 5 };
    outputs * per_output + pixels * depth * per_value
}

/// DEPTHWISE_CONV_2D, the direct kernels: the 4-channel groups of
/// multiplier 1 (`depthwise_m1_s8`, `SMLAD` over 16-bit lanes) or the
/// generic loop (other multipliers, dilation, partial groups). Calibration:
/// VWW's 3x3 over 256 channels 51 cycles per output (here 51); the
/// generic 3x3 of `depthwise_int8`, multiplier 2, 159 (here 156).
pub fn depthwise_direct(outputs: u64, taps: u64, grouped_lanes: bool) -> u64 {
    if grouped_lanes { outputs * (15 + 4 * taps) } else { outputs * (30 + 14 * taps) }
}

/// DEPTHWISE_CONV_2D over widened input rows (`depthwise_rows_s8`): per
/// output the requantization and the pair loop, per tap about 2 cycles
/// (one `SMLAD` per tap pair per output, its loads shared by two outputs),
/// per input value the widening into the ring. Calibration: kws_ref_model's
/// 3x3 over 64 channels 41.6 cycles per output (here 40); the 4x7 stride-3
/// layer of `depthwise_shapes_int8`, 88 (here 87).
pub fn depthwise_rows(outputs: u64, taps: u64, widened: u64) -> u64 {
    outputs * (19 + taps * 21 / 10) + widened * 34 / 10
}

/// DEPTHWISE_CONV_2D of a 1-channel input with a multiplier (`Im2col`): the
/// window gathered once per pixel, then the output channels as dot products
/// of the single-pixel kernel (sums through the requantization loop).
pub fn depthwise_im2col(outputs: u64, taps: u64, pixels: u64) -> u64 {
    outputs * (taps * 7 / 5 + 26) + pixels * taps * 5
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rankings the planner relies on, at the shapes of the
    /// benchmark models: gathered rows beat the direct convolution, widened
    /// rows beat both direct depthwise kernels.
    #[test]
    fn faster_kernels_cost_less() {
        // ResNet-8's 3x3 16 -> 16 over 32x32.
        let (outputs, pixels) = (32 * 32 * 16, 32 * 32);
        assert!(conv_im2col(outputs, 144, pixels, false, true) < conv_direct(outputs, 9, 16));
        assert!(conv_im2col(outputs, 144, pixels, false, true) < conv_im2col(outputs, 144, pixels, false, false));
        // kws_ref_model's depthwise 3x3 over 25x5x64.
        let outputs = 25 * 5 * 64;
        assert!(depthwise_rows(outputs, 9, outputs) < depthwise_direct(outputs, 9, true));
        assert!(depthwise_direct(outputs, 9, true) < depthwise_direct(outputs, 9, false));
        // A multiplier-8 depthwise of a 1-channel input.
        assert!(depthwise_im2col(outputs, 9, outputs / 8) < depthwise_direct(outputs, 9, false));
    }
}
