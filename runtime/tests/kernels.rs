//! Small kernel cases with hand-checked answers. Also the Miri suite:
//! `cargo +nightly miri test -p tinyaot` runs these through the arena views.

use tinyaot::__private::kernels::F32Range;
use tinyaot::__private::kernels::binary::{AddQuant, binary, binary_broadcast};
use tinyaot::__private::kernels::conv::{Window, conv2d};
use tinyaot::__private::kernels::depthwise::depthwise;
use tinyaot::__private::kernels::dot::fused_scales;
use tinyaot::__private::kernels::elementwise::{select, select_broadcast};
use tinyaot::__private::kernels::fully_connected::fully_connected;
use tinyaot::__private::kernels::pool::{Pool, avg_pool_q, max_pool_f32};
use tinyaot::__private::kernels::reduce::{Reduction, mean_f32};
use tinyaot::__private::kernels::softmax::{SoftmaxQuant, softmax_f32, softmax_s8};
use tinyaot::__private::kernels::{InPlace, Requant, Rescale, Scales, Separate, Strided6, down_scale_of, scale_of};

fn sep<'a, T>(input: &'a [T], output: &'a mut [T]) -> Separate<'a, T> {
    Separate { input, output }
}
use tinyaot::__private::{Aligned, TakeOnce, view, view_mut};
use tinyaot::Arena;

const UNIT: Window = Window { stride_h: 1, stride_w: 1, dilation_h: 1, dilation_w: 1, pad_top: 0, pad_left: 0 };
const ONE_M: [i32; 4] = [1 << 30; 4]; // 0.5 with shift 1 = 1.0
const ONE_S: [i32; 4] = [1; 4];

/// Both scale forms over the whole int8 range (where the short form's
/// requantization fuses into the kernels) and over a range clamped at
/// `clamped`.
fn range_cases<'a>(any: &'a [[i32; 4]], down: &'a [[i32; 4]], clamped: i32) -> [(i32, Scales<'a>); 4] {
    [(-128, Scales::Any(any)), (-128, Scales::Down(down)), (clamped, Scales::Any(any)), (clamped, Scales::Down(down))]
}

fn identity(act_min: i32, act_max: i32) -> Requant<'static> {
    Requant { input_offset: 0, output_offset: 0, multiplier: &ONE_M, shift: &ONE_S, act_min, act_max }
}

#[test]
fn conv_s8_same_padding_sums_the_clipped_window() {
    // 3x3 input of ones, 3x3 filter of ones, SAME: corners see 4, edges 6, centre 9.
    let input = [1i8; 9];
    let filter = [1i8; 9];
    let mut out = [0i8; 9];
    let win = Window { pad_top: 1, pad_left: 1, ..UNIT };
    conv2d::<i32, _, 1, 3, 3, 1, 3, 3, 1, 3, 3, 1, _>(
        sep(&input, &mut out),
        filter.as_slice(),
        None,
        &win,
        &identity(-128, 127),
    );
    assert_eq!(out, [4, 6, 4, 6, 9, 6, 4, 6, 4]);
}

#[test]
fn conv_s8_applies_offsets_bias_and_clamp() {
    let input = [10i8, 20];
    let filter = [1i8, 2, -1, -1]; // 2 output channels, 1x1, depth 2
    let bias = [5i32, 0];
    let q = Requant { input_offset: 1, output_offset: -3, ..identity(-20, 40) };
    let mut out = [0i8; 2];
    conv2d::<i32, _, 1, 1, 1, 2, 1, 1, 2, 1, 1, 2, _>(sep(&input, &mut out), filter.as_slice(), Some(&bias), &UNIT, &q);
    // ch0: 11*1 + 21*2 + 5 = 58 -> -3 -> 55 -> clamp 40; ch1: -11 - 21 = -32 -> -35 -> clamp -20.
    assert_eq!(out, [40, -20]);
}

#[test]
fn grouped_conv_reads_its_group_only() {
    let input = [1i8, 2, 3, 4]; // 1x1, 4 channels, 2 groups of 2
    let filter = [1i8, 1, 1, 1]; // 2 output channels, each over its 2 channels
    let mut out = [0i8; 2];
    conv2d::<i32, _, 1, 1, 1, 4, 1, 1, 2, 1, 1, 2, _>(
        sep(&input, &mut out),
        filter.as_slice(),
        None,
        &UNIT,
        &identity(-128, 127),
    );
    assert_eq!(out, [3, 7]);
}

#[test]
fn conv_f32_dilation_skips_taps() {
    // 1x5 input, 1x2 filter dilated by 3: out[x] = in[x] + 2*in[x+3].
    let input = [1.0f32, 2.0, 3.0, 4.0, 5.0];
    let filter = [1.0f32, 2.0];
    let mut out = [0.0f32; 2];
    let win = Window { dilation_w: 3, ..UNIT };
    let all = F32Range { min: f32::MIN, max: f32::MAX };
    conv2d::<f32, _, 1, 1, 5, 1, 1, 2, 1, 1, 2, 1, _>(sep(&input, &mut out), filter.as_slice(), None, &win, &all);
    assert_eq!(out, [9.0, 12.0]);
}

#[test]
fn depthwise_multiplier_interleaves_channels() {
    let input = [1i8, 2]; // 1x1x2
    let filter = [1i8, 10, 100, -1]; // 1x1x(2*2)
    let mut out = [0i8; 4];
    depthwise::<i32, _, 1, 1, 1, 2, 1, 1, 2, 1, 1, _>(
        sep(&input, &mut out),
        filter.as_slice(),
        None,
        &UNIT,
        &identity(-128, 127),
    );
    assert_eq!(out, [1, 10, 127, -2]);
}

/// Depth multipliers below, at and past the kernel's block of 32 output
/// channels (whole input channels per block, or one channel's outputs
/// split across blocks): every output the plain sum over its window's
/// taps inside the image, padded and strided windows included.
#[test]
fn depthwise_multipliers_match_a_plain_sum() {
    const IH: usize = 5;
    const IW: usize = 4;
    const IC: usize = 3;
    let win = Window { stride_h: 2, stride_w: 1, pad_top: 1, pad_left: 1, ..UNIT };
    let all = F32Range { min: f32::MIN, max: f32::MAX };
    let input: Vec<f32> = (0..IH * IW * IC).map(|i| ((i * 7) % 11) as f32 - 5.0).collect();
    macro_rules! check {
        ($m:literal) => {{
            const OC: usize = IC * $m;
            let filter: Vec<f32> = (0..9 * OC).map(|i| ((i * 5) % 13) as f32 - 6.0).collect();
            let mut out = vec![0.0f32; 3 * 4 * OC];
            depthwise::<f32, _, 1, IH, IW, IC, 3, 4, $m, 3, 3, _>(
                sep(&input, &mut out),
                filter.as_slice(),
                None,
                &win,
                &all,
            );
            for (oy, ox, oc) in (0..3).flat_map(|y| (0..4).flat_map(move |x| (0..OC).map(move |c| (y, x, c)))) {
                let mut want = 0.0f32;
                for (ky, kx) in (0..3).flat_map(|ky| (0..3).map(move |kx| (ky, kx))) {
                    let (iy, ix) = ((oy * 2 + ky) as isize - 1, (ox + kx) as isize - 1);
                    if (0..IH as isize).contains(&iy) && (0..IW as isize).contains(&ix) {
                        let x = input[(iy as usize * IW + ix as usize) * IC + oc / $m];
                        want += x * filter[(ky * 3 + kx) * OC + oc];
                    }
                }
                assert_eq!(out[(oy * 4 + ox) * OC + oc], want, "M {} at {oy} {ox} {oc}", $m);
            }
        }};
    }
    check!(2);
    check!(3);
    check!(8);
    check!(32);
    check!(33);
    check!(40);
}

/// The int8 multiplier kernel (`depthwise_multiplier`: each tap's input
/// read once for its M outputs, taps outside the image at the zero point)
/// gives the block loop's bytes: an input zero point, per-channel scales,
/// a bias, padded strided windows, multipliers from 2 past the block.
#[test]
fn depthwise_multiplier_s8_matches_the_block_loop() {
    use tinyaot::__private::kernels::depthwise::depthwise_multiplier;
    const IH: usize = 6;
    const IW: usize = 5;
    const IC: usize = 3;
    let win = Window { stride_h: 2, stride_w: 1, pad_top: 1, pad_left: 1, ..UNIT };
    let mut next = xorshift(0x3c6e_f372_fe94_f82bu64);
    let input: Vec<i8> = (0..IH * IW * IC).map(|_| next() as i8).collect();
    macro_rules! check {
        ($m:literal) => {{
            const OC: usize = IC * $m;
            let filter: Vec<i8> = (0..9 * OC).map(|_| next() as i8).collect();
            let bias: Vec<i32> = (0..OC).map(|_| (next() % 20_001) as i32 - 10_000).collect();
            let multiplier: Vec<i32> = (0..OC).map(|_| (1 << 30) + (next() as i32 & 0x3fff_ffff)).collect();
            let shift: Vec<i32> = (0..OC).map(|_| -((next() % 10) as i32)).collect();
            let q = Requant {
                input_offset: 7,
                output_offset: -3,
                multiplier: &multiplier,
                shift: &shift,
                act_min: -128,
                act_max: 127,
            };
            let mut want = vec![0i8; 3 * 5 * OC];
            depthwise::<i32, _, 1, IH, IW, IC, 3, 5, $m, 3, 3, _>(
                sep(&input, &mut want),
                filter.as_slice(),
                Some(&bias),
                &win,
                &q,
            );
            let mut out = vec![0i8; 3 * 5 * OC];
            depthwise_multiplier::<_, _, 1, IH, IW, IC, 3, 5, $m, 3, 3, _>(
                sep(&input, &mut out),
                &filter,
                Some(&bias),
                &win,
                &q,
                -7,
            );
            assert_eq!(out, want, "M {}", $m);
            assert!(want.iter().any(|&v| v != want[0]), "M {}: outputs of one value test nothing", $m);
        }};
    }
    check!(2);
    check!(3);
    check!(8);
    check!(33);
}

#[test]
fn fully_connected_rows() {
    let input = [1i8, 2, 3, 4];
    let weights = [1i8, 1, -1, 2];
    let mut out = [0i8; 4];
    fully_connected::<i32, _, 2, 2, 2>(&input, &weights, None, &identity(-128, 127), &mut out);
    assert_eq!(out, [3, 3, 7, 5]);
    let mut outf = [0.0f32; 2];
    fully_connected::<f32, _, 1, 2, 2>(
        &[1.0, 2.0],
        &[1.0, 1.0, -1.0, 2.0],
        Some(&[0.5, 0.0]),
        &F32Range { min: 0.0, max: f32::MAX },
        &mut outf,
    );
    assert_eq!(outf, [3.5, 3.0]);
}

/// The 8-rows-at-a-time float kernel over packed weights gives the plain
/// kernel's bits, whole blocks and leftover rows alike.
#[test]
fn fully_connected_f32_rows8_matches_plain() {
    use tinyaot::__private::kernels::fully_connected::fully_connected_f32_rows8;
    use tinyaot::__private::kernels::layout::pack_f32_rows8;
    fn check<const O: usize>() {
        const D: usize = 7;
        let x: Vec<f32> = (0..2 * D).map(|i| (i as f32 * 0.37).sin()).collect();
        let w: Vec<f32> = (0..O * D).map(|i| (i as f32 * 1.3).cos() / 3.0).collect();
        let bias: Vec<f32> = (0..O).map(|o| o as f32 * 0.1 - 0.4).collect();
        let packed: Vec<f32> = pack_f32_rows8(&w, O, D).collect();
        assert_eq!(packed.len(), w.len());
        let (mut want, mut got) = (vec![0.0f32; 2 * O], vec![0.0f32; 2 * O]);
        fully_connected::<f32, _, 2, D, O>(&x, &w, Some(&bias), &F32Range { min: -0.5, max: 0.75 }, &mut want);
        fully_connected_f32_rows8::<2, D, O>(&x, &packed, Some(&bias), -0.5, 0.75, &mut got);
        assert_eq!(
            got.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            want.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
        );
    }
    check::<1>();
    check::<8>();
    check::<10>();
    check::<17>();
}

#[test]
fn average_pool_rounds_half_away_from_zero() {
    // 2x2 window over [1, 2, 2, 2] = 7/4 = 1.75 -> 2; over negatives -7/4 -> -2.
    let p = Pool { filter_h: 2, filter_w: 2, win: Window { stride_h: 2, stride_w: 2, ..UNIT } };
    let mut out = [0i8; 1];
    avg_pool_q::<i8, false, 1, 2, 2, 1, 1, 1, _>(sep(&[1, 2, 2, 2], &mut out), &p, -128, 127);
    assert_eq!(out, [2]);
    avg_pool_q::<i8, false, 1, 2, 2, 1, 1, 1, _>(sep(&[-1, -2, -2, -2], &mut out), &p, -128, 127);
    assert_eq!(out, [-2]);
    avg_pool_q::<i8, false, 1, 2, 2, 1, 1, 1, _>(sep(&[1, 2, 1, 2], &mut out), &p, -128, 127); // 1.5 -> 2
    assert_eq!(out, [2]);
}

#[test]
fn uint8_average_pool_rounds_half_up() {
    // uint8 [127, 127, 128, 128] averages (510 + 2) / 4 = 128 in LiteRT; as
    // int8 [-1, -1, 0, 0] (the uint8 pass's shift) that is 0, where int8's
    // rounding (half away from zero) gives -1.
    let p = Pool { filter_h: 2, filter_w: 2, win: Window { stride_h: 2, stride_w: 2, ..UNIT } };
    let mut out = [0i8; 1];
    avg_pool_q::<i8, true, 1, 2, 2, 1, 1, 1, _>(sep(&[-1, -1, 0, 0], &mut out), &p, -128, 127);
    assert_eq!(out, [0]);
    avg_pool_q::<i8, false, 1, 2, 2, 1, 1, 1, _>(sep(&[-1, -1, 0, 0], &mut out), &p, -128, 127);
    assert_eq!(out, [-1]);
    avg_pool_q::<i8, true, 1, 2, 2, 1, 1, 1, _>(sep(&[-128, -128, -128, -127], &mut out), &p, -128, 127);
    assert_eq!(out, [-128]);
}

#[test]
fn max_pool_clips_windows_at_the_border() {
    let p =
        Pool { filter_h: 3, filter_w: 3, win: Window { pad_top: 1, pad_left: 1, stride_h: 2, stride_w: 2, ..UNIT } };
    let input = [1.0f32, -5.0, 3.0, 4.0];
    let mut out = [0.0f32; 1];
    max_pool_f32::<1, 2, 2, 1, 1, 1, _>(sep(&input, &mut out), &p, f32::MIN, f32::MAX);
    assert_eq!(out, [4.0]);
}

#[test]
fn mean_over_axes() {
    // [2, 3] mean over axis 1.
    let r = Reduction {
        outer: Strided6 { dims: [1, 1, 1, 1, 1, 2], a: [0, 0, 0, 0, 0, 3], b: [0; 6] },
        inner: Strided6 { dims: [1, 1, 1, 1, 1, 3], a: [0, 0, 0, 0, 0, 1], b: [0; 6] },
    };
    let mut out = [0.0f32; 2];
    mean_f32::<6, 2>(&[1.0, 2.0, 3.0, 4.0, 5.0, 9.0], &r, 3.0, &mut out);
    assert_eq!(out, [2.0, 6.0]);
}

fn unit_add() -> AddQuant {
    // Equal scales in and out: each input scaled by 1/2, output by 2.
    AddQuant {
        input1_offset: 0,
        input2_offset: 0,
        output_offset: 0,
        left_shift: 20,
        input1_multiplier: 1 << 30,
        input1_shift: 0,
        input2_multiplier: 1 << 30,
        input2_shift: 0,
        output_multiplier: 1 << 30,
        output_shift: -18,
        act_min: -128,
        act_max: 127,
    }
}

#[test]
fn comparison_gives_bytes_and_select_broadcasts_three_ways() {
    // A comparison: i8 operands, bool bytes out.
    let mut mask = [9u8; 4];
    let strided = Separate { input: &[1i8, 5, -3, 7][..], output: &mut mask[..] };
    binary::<i8, u8, 4, _, _>(strided, &[2, 5, -4, 8], true, |x, y| u8::from(x >= y));
    assert_eq!(mask, [0, 1, 1, 0]);
    let mut out = [0i16; 4];
    select::<i16, 4>(&mask, &[1, 2, 3, 4], &[-1, -2, -3, -4], &mut out);
    assert_eq!(out, [-1, 2, 3, -4]);
    // [2, 2] output: condition [2, 1], x [2] (rows), y a scalar.
    let shape = Strided6 { dims: [1, 1, 1, 1, 2, 2], a: [0, 0, 0, 0, 0, 1], b: [0; 6] };
    select_broadcast::<i16, 4>(&[1, 0], &[10, 20], &[-7], &mut out, &shape, &[0, 0, 0, 0, 1, 0]);
    assert_eq!(out, [10, 20, -7, -7]);
}

#[test]
fn fft_auto_scale_keeps_tflms_quirks() {
    use tinyaot::__private::kernels::signal::fft_auto_scale;
    let (mut out, mut bits) = ([0i16; 2], [9i32]);
    fft_auto_scale::<2>(&[1, -3], &mut out, &mut bits);
    assert_eq!((out, bits[0]), ([8192, -24576], 13));
    // -32768 is its own int16 "magnitude" (MSB 32 as unsigned: no shift)
    // when it comes last; before a positive sample it is the maximum no
    // more (TFLM's order-dependent `MaxAbs16`), and shifting wraps it.
    fft_auto_scale::<2>(&[5, -32768], &mut out, &mut bits);
    assert_eq!((out, bits[0]), ([5, -32768], 0));
    fft_auto_scale::<2>(&[-32768, 5], &mut out, &mut bits);
    assert_eq!((out, bits[0]), ([0, 20480], 12));
    // A zero frame: GCC's most significant bit of 0 is 32, no shift.
    fft_auto_scale::<2>(&[0, 0], &mut out, &mut bits);
    assert_eq!((out, bits[0]), ([0, 0], 0));
}

#[test]
fn add_elementwise_and_broadcast() {
    let q = unit_add();
    let mut out = [0i8; 4];
    binary::<i8, i8, 4, _, _>(sep(&[1, 2, 3, 100], &mut out), &[10, 20, 30, 100], true, |x, y| q.add(x, y));
    assert_eq!(out, [11, 22, 33, 127]);
    // [2, 2] + [2] (broadcast along rows).
    let shape = Strided6 { dims: [1, 1, 1, 1, 2, 2], a: [0, 0, 0, 0, 2, 1], b: [0, 0, 0, 0, 0, 1] };
    binary_broadcast::<i8, i8, 4, _, _>(sep(&[1, 2, 3, 4], &mut out), &[10, 20], &shape, true, |x, y| q.add(x, y));
    assert_eq!(out, [11, 22, 13, 24]);
}

#[test]
fn softmax_of_equal_logits_is_uniform() {
    let mut out = [0.0f32; 4];
    softmax_f32::<1, 4, _>(sep(&[0.5; 4], &mut out), 1.0);
    assert_eq!(out, [0.25; 4]);
    // int8: every difference from the row maximum is 0, so every exp is
    // exactly 1 whatever the multiplier: each output is 1/4 = 64/256 -> 64 - 128.
    let q = SoftmaxQuant { input_multiplier: 1 << 30, input_left_shift: 23, diff_min: -248 };
    let mut o8 = [0i8; 4];
    softmax_s8::<i8, 1, 4, _>(sep(&[7; 4], &mut o8), &q);
    assert_eq!(o8, [-64; 4]);
}

#[test]
fn arena_views_and_aligned_statics() {
    static W: Aligned<[u8; 8]> = Aligned([1, 0, 0, 0, 255, 255, 255, 255]);
    assert_eq!(W.cast::<i32>(), &[1, -1]);
    let mut a: Arena<32> = Arena::new();
    let base = a.as_mut_ptr();
    // SAFETY: two disjoint, aligned ranges of a live arena.
    let (x, y) = unsafe { (view_mut::<i32>(base, 0, 4), view_mut::<f32>(base, 16, 4)) };
    x.copy_from_slice(&[1, 2, 3, 4]);
    y.copy_from_slice(&[0.5; 4]);
    // SAFETY: the mutable views above are no longer used.
    let x = unsafe { view::<i32>(base, 0, 4) };
    assert_eq!(x, &[1, 2, 3, 4]);
}

#[test]
fn take_once_hands_out_once() {
    let t = TakeOnce::new();
    assert!(t.take());
    assert!(!t.take());
    assert!(!t.take());
}

/// In-place runs (input and output sharing one buffer at the offsets the
/// compiler allows) give the same bytes as separate buffers.
#[test]
fn in_place_matches_separate() {
    // Depthwise 3x3 SAME over 5x4x3: slack = -(W + 2) * C = -18 bytes (as
    // `window_slack` computes), so the output may start 18 bytes below.
    let input: Vec<i8> = (0..60).map(|i| (i * 37 % 255 - 127) as i8).collect();
    let filter: Vec<i8> = (0..27).map(|i| (i * 11 % 7) as i8 - 3).collect();
    let win = Window { pad_top: 1, pad_left: 1, ..UNIT };
    let q = identity(-128, 127);
    let mut want = [0i8; 60];
    depthwise::<i32, _, 1, 5, 4, 3, 5, 4, 1, 3, 3, _>(sep(&input, &mut want), filter.as_slice(), None, &win, &q);
    let mut buf = [0i8; 78];
    buf[18..].copy_from_slice(&input);
    depthwise::<i32, _, 1, 5, 4, 3, 5, 4, 1, 3, 3, _>(
        InPlace { buf: &mut buf, input: 18, output: 0 },
        filter.as_slice(),
        None,
        &win,
        &q,
    );
    assert_eq!(&buf[..60], &want[..]);

    // Elementwise ADD and softmax exactly in place.
    let a: Vec<i8> = (0..16).map(|i| i * 5 - 40).collect();
    let b: Vec<i8> = (0..16).map(|i| 30 - i * 3).collect();
    let mut want = [0i8; 16];
    let q = unit_add();
    binary::<i8, i8, 16, _, _>(sep(&a, &mut want), &b, false, |x, y| q.sub(x, y));
    let mut buf = a.clone();
    binary::<i8, i8, 16, _, _>(InPlace { buf: &mut buf, input: 0, output: 0 }, &b, false, |x, y| q.sub(x, y));
    assert_eq!(buf, want);

    let x = [0.1f32, -2.0, 3.5, 0.0];
    let mut want = [0.0f32; 4];
    softmax_f32::<1, 4, _>(sep(&x, &mut want), 0.5);
    let mut buf = x;
    softmax_f32::<1, 4, _>(InPlace { buf: &mut buf, input: 0, output: 0 }, 0.5);
    assert_eq!(buf, want);
}

/// The im2col kernel (int8 patch padded with the zero point, offset folded
/// into the bias) gives the direct kernel's bytes, padding and strides
/// included.
#[test]
fn im2col_matches_direct_conv() {
    use tinyaot::__private::kernels::conv::{conv2d_im2col_s8, conv2d_pairs_s8};
    let input: Vec<i8> = (0..5 * 4 * 3).map(|i| ((i * 73 + 11) % 256) as u8 as i8).collect();
    let filter: Vec<i8> = (0..2 * 3 * 3 * 3).map(|i| ((i * 29 + 5) % 255) as u8 as i8).collect();
    let bias = [1000i32, -777];
    let mult = [1_300_000_000i32, 1_100_000_000];
    let shift = [-8i32, -9];
    let win = Window { pad_top: 1, pad_left: 1, stride_h: 2, stride_w: 1, ..UNIT };
    let folded: Vec<i32> =
        (0..2).map(|c| bias[c] + 37 * filter[c * 27..(c + 1) * 27].iter().map(|&w| w as i32).sum::<i32>()).collect();
    let mut packed = [0i8; 2 * 28];
    tinyaot::__private::kernels::conv::pack_rows(&filter, 2, 27, &mut packed);
    let mut wide = [0u32; 2 * 14];
    tinyaot::__private::kernels::layout::pack_rows_widened(&filter, 2, 27, &mut wide);
    let scales = [scale_of(mult[0], shift[0]).unwrap(), scale_of(mult[1], shift[1]).unwrap()];
    // The short form of the same scales (both multipliers below 1/2).
    let down = [down_scale_of(mult[0], shift[0], -5).unwrap(), down_scale_of(mult[1], shift[1], -5).unwrap()];
    for (act_min, scales) in range_cases(&scales, &down, -90) {
        let q =
            Requant { input_offset: 37, output_offset: -5, multiplier: &mult, shift: &shift, act_min, act_max: 127 };
        let mut want = [0i8; 3 * 4 * 2];
        conv2d::<i32, _, 1, 5, 4, 3, 3, 4, 2, 3, 3, 3, _>(
            sep(&input, &mut want),
            filter.as_slice(),
            Some(&bias),
            &win,
            &q,
        );
        let r = Rescale { input_offset: 37, output_offset: -5, scales, act_min, act_max: 127 };
        // Each kernel the compiler may call for the layer: one pixel at a
        // time over byte rows and widened rows, two at a time over byte
        // rows (pair rows: `pair_kernels_match_direct_conv`); the
        // requantization fused where it can be, and not.
        let fusable = fused_scales(&r).is_some();
        type Run<'a> = &'a dyn Fn(Separate<'_, i8>, &mut [i8], bool);
        let runs: [(&str, Run<'_>); 3] = [
            ("pixels, byte rows", &|io, patch, fuse| match fuse {
                true => conv2d_im2col_s8::<1, 5, 4, 3, 3, 4, 2, 3, 3, 28, true, _>(
                    io,
                    &packed[..],
                    &folded,
                    &win,
                    &r,
                    patch,
                ),
                false => conv2d_im2col_s8::<1, 5, 4, 3, 3, 4, 2, 3, 3, 28, false, _>(
                    io,
                    &packed[..],
                    &folded,
                    &win,
                    &r,
                    patch,
                ),
            }),
            ("pixels, widened rows", &|io, patch, fuse| match fuse {
                true => {
                    conv2d_im2col_s8::<1, 5, 4, 3, 3, 4, 2, 3, 3, 28, true, _>(io, &wide[..], &folded, &win, &r, patch)
                }
                false => {
                    conv2d_im2col_s8::<1, 5, 4, 3, 3, 4, 2, 3, 3, 28, false, _>(io, &wide[..], &folded, &win, &r, patch)
                }
            }),
            ("pairs, byte rows", &|io, patch, fuse| match fuse {
                true => conv2d_pairs_s8::<1, 5, 4, 3, 3, 4, 2, 3, 3, 28, true, false, true, _>(
                    io, &packed, &folded, &win, &r, patch,
                ),
                false => conv2d_pairs_s8::<1, 5, 4, 3, 3, 4, 2, 3, 3, 28, false, false, true, _>(
                    io, &packed, &folded, &win, &r, patch,
                ),
            }),
        ];
        for (name, run) in runs {
            for fuse in [false, true] {
                if fuse && !fusable {
                    continue;
                }
                let (mut got, mut patch) = ([0i8; 3 * 4 * 2], [0i8; 28]);
                run(sep(&input, &mut got), &mut patch, fuse);
                assert_eq!(got, want, "{name}, fused: {fuse}");
            }
        }
    }
}

/// The filter-zero-point kernel (a uint8 model's conv: window sums times
/// the weight offset added to the plain rows' sums) gives the direct
/// kernel's `WeightOffset` bytes, padded 3x3 windows and a 1x1 in place of
/// a patch.
#[test]
fn weight_offset_im2col_matches_direct_conv() {
    use tinyaot::__private::kernels::conv::conv2d_im2col_offset_s8;
    use tinyaot::__private::kernels::fully_connected::WeightOffset;
    let input: Vec<i8> = (0..5 * 4 * 3).map(|i| ((i * 73 + 11) % 256) as u8 as i8).collect();
    let filter: Vec<i8> = (0..2 * 3 * 3 * 3).map(|i| ((i * 29 + 5) % 256) as u8 as i8).collect();
    let bias = [1000i32, -777];
    let (mult, shift) = ([1_300_000_000i32, 1_300_000_000], [-10i32, -10]);
    let scales = [scale_of(mult[0], shift[0]).unwrap(), scale_of(mult[1], shift[1]).unwrap()];
    let down = [down_scale_of(mult[0], shift[0], -5).unwrap(), down_scale_of(mult[1], shift[1], -5).unwrap()];
    let q =
        Requant { input_offset: 37, output_offset: -5, multiplier: &mult, shift: &shift, act_min: -128, act_max: 127 };
    // Requantized after the sums (any scales), and fused (short-form ones).
    for (weight_offset, fuse) in [(-127, false), (45, false), (255, false), (-127, true), (45, true), (255, true)] {
        let scales = if fuse { Scales::Down(&down) } else { Scales::Any(&scales) };
        let r = Rescale { input_offset: 37, output_offset: -5, scales, act_min: -128, act_max: 127 };
        let arith = WeightOffset { q: &q, weight_offset };
        // 3x3, padded, stride 2 x 1.
        let win = Window { pad_top: 1, pad_left: 1, stride_h: 2, stride_w: 1, ..UNIT };
        let mut want = [0i8; 3 * 4 * 2];
        conv2d::<i32, _, 1, 5, 4, 3, 3, 4, 2, 3, 3, 3, _>(
            sep(&input, &mut want),
            filter.as_slice(),
            Some(&bias),
            &win,
            &arith,
        );
        let folded: Vec<i32> = (0..2)
            .map(|c| bias[c] + 37 * filter[c * 27..(c + 1) * 27].iter().map(|&w| w as i32).sum::<i32>())
            .collect();
        let mut packed = [0i8; 2 * 28];
        tinyaot::__private::kernels::conv::pack_rows(&filter, 2, 27, &mut packed);
        let (mut got, mut patch) = ([0i8; 3 * 4 * 2], [0i8; 28]);
        let io = sep(&input, &mut got);
        if fuse {
            conv2d_im2col_offset_s8::<1, 5, 4, 3, 3, 4, 2, 3, 3, 28, true, _>(
                io,
                &packed[..],
                &folded,
                &win,
                &r,
                weight_offset,
                &mut patch,
            );
        } else {
            conv2d_im2col_offset_s8::<1, 5, 4, 3, 3, 4, 2, 3, 3, 28, false, _>(
                io,
                &packed[..],
                &folded,
                &win,
                &r,
                weight_offset,
                &mut patch,
            );
        }
        assert_eq!(got, want, "3x3, weight offset {weight_offset}, fused {fuse}");
        // 1x1 over 3 channels, no patch.
        let pointwise = &filter[..2 * 3];
        let mut want = [0i8; 5 * 4 * 2];
        conv2d::<i32, _, 1, 5, 4, 3, 5, 4, 2, 1, 1, 3, _>(
            sep(&input, &mut want),
            pointwise,
            Some(&bias),
            &UNIT,
            &arith,
        );
        let folded: Vec<i32> = (0..2)
            .map(|c| bias[c] + 37 * pointwise[c * 3..(c + 1) * 3].iter().map(|&w| w as i32).sum::<i32>())
            .collect();
        let mut packed = [0i8; 2 * 4];
        tinyaot::__private::kernels::conv::pack_rows(pointwise, 2, 3, &mut packed);
        let mut got = [0i8; 5 * 4 * 2];
        let io = sep(&input, &mut got);
        if fuse {
            conv2d_im2col_offset_s8::<1, 5, 4, 3, 5, 4, 2, 1, 1, 4, true, _>(
                io,
                &packed[..],
                &folded,
                &UNIT,
                &r,
                weight_offset,
                &mut [],
            );
        } else {
            conv2d_im2col_offset_s8::<1, 5, 4, 3, 5, 4, 2, 1, 1, 4, false, _>(
                io,
                &packed[..],
                &folded,
                &UNIT,
                &r,
                weight_offset,
                &mut [],
            );
        }
        assert_eq!(got, want, "1x1, weight offset {weight_offset}, fused {fuse}");
    }
}

/// TFLite's scatter formulation of TRANSPOSE_CONV (float), for checking
/// the gather kernel: the same sums in the same order.
#[allow(clippy::too_many_arguments)]
fn transpose_conv_scatter(
    input: &[f32],
    [ih, iw, ic]: [usize; 3],
    filter: &[f32],
    [oc, kh, kw]: [usize; 3],
    [oh, ow]: [usize; 2],
    [sh, sw, ph, pw]: [usize; 4],
) -> Vec<f32> {
    let mut out = vec![0.0f32; oh * ow * oc];
    for y in 0..ih {
        for x in 0..iw {
            for c in 0..ic {
                for fy in 0..kh {
                    for fx in 0..kw {
                        for o in 0..oc {
                            let (oy, ox) = ((y * sh + fy) as isize - ph as isize, (x * sw + fx) as isize - pw as isize);
                            if oy >= 0 && ox >= 0 && (oy as usize) < oh && (ox as usize) < ow {
                                out[(oy as usize * ow + ox as usize) * oc + o] +=
                                    input[(y * iw + x) * ic + c] * filter[((o * kh + fy) * kw + fx) * ic + c];
                            }
                        }
                    }
                }
            }
        }
    }
    out
}

#[test]
fn transpose_conv_gather_equals_tflite_scatter() {
    use tinyaot::__private::kernels::transpose_conv::{Float, Geometry, transpose_conv};
    let input: Vec<f32> = (0..3 * 4 * 2).map(|i| ((i * 37 % 23) as f32 - 11.0) * 0.173).collect();
    let filter: Vec<f32> = (0..3 * 3 * 2 * 2).map(|i| ((i * 53 % 29) as f32 - 14.0) * 0.071).collect();
    for (sh, sw, ph, pw) in [(2, 2, 1, 0), (1, 2, 0, 1), (3, 1, 2, 2)] {
        let want = transpose_conv_scatter(&input, [3, 4, 2], &filter, [3, 3, 2], [6, 7], [sh, sw, ph, pw]);
        let mut got = [0.0f32; 6 * 7 * 3];
        let geo = Geometry { stride_h: sh, stride_w: sw, pad_top: ph, pad_left: pw };
        let arith = Float { bias: None, act_min: f32::MIN, act_max: f32::MAX };
        transpose_conv::<1, 3, 4, 2, 6, 7, 3, 3, 2, _, _>(sep(&input, &mut got), &filter, &geo, &arith);
        assert_eq!(got.to_vec(), want, "stride {sh}x{sw}, pad {ph}x{pw}");
    }
}

#[test]
fn int16_logistic_and_tanh_are_odd_around_their_centres() {
    use tinyaot::__private::kernels::elementwise::{logistic_s16, tanh_s16};
    // A stand-in table: any increasing one keeps the
    // symmetry the kernels build in (sigmoid(-x) = 1 - sigmoid(x)).
    let table: Vec<u16> = (0..256u32).map(|i| (32768 + i * 128).min(65535) as u16).collect();
    for x in [1i16, 7, 100, 1000, 20000, i16::MAX] {
        let (p, n) = (logistic_s16(x, 3, 0, &table) as i32, logistic_s16(-x, 3, 0, &table) as i32);
        assert!((p + n - 32768).abs() <= 1, "logistic({x}) = {p}, logistic(-{x}) = {n}");
        let (p, n) = (tanh_s16(x, 3, 0, &table) as i32, tanh_s16(-x, 3, 0, &table) as i32);
        assert!((p + n).abs() <= 1, "tanh({x}) = {p}, tanh(-{x}) = {n}");
    }
    assert_eq!(logistic_s16(0, 3, 0, &table), 16384); // 0.5 in Q0.15
}

#[test]
fn resize_bilinear_s8_blends_neighbours() {
    use tinyaot::__private::kernels::movement::{Taps, resize_bilinear_s8};
    // 1x2 -> 1x3 along x: weights 0, 512 (half), 1024 on the upper source.
    let ys = Taps { lo: &[0], hi: &[0], w: &[0] };
    let xs = Taps { lo: &[0, 0, 0], hi: &[0, 1, 1], w: &[0, 512, 1024] };
    let mut out = [0i8; 3];
    resize_bilinear_s8::<1, 1, 2, 1, 1, 3>(&[10, -21], &mut out, &ys, &xs);
    // (10 - 21) / 2 = -5.5 rounds away from zero.
    assert_eq!(out, [10, -6, -21]);
}

#[test]
fn softmax_s16_of_equal_logits_is_uniform() {
    use tinyaot::__private::kernels::softmax::softmax_s16;
    // exp table constant at 1.0 (32767) and reciprocal table 1 / (1 + x):
    // four equal logits must give a quarter each, within a step.
    let exp = [32767i16; 513];
    let recip: Vec<i16> = (0..513).map(|i| (32767.0 / (1.0 + i as f32 / 512.0)).round() as i16).collect();
    let mut out = [0i16; 4];
    softmax_s16::<1, 4, _>(sep(&[5i16, 5, 5, 5], &mut out), 1 << 30, 0, &exp, &recip);
    for v in out {
        assert!((v as i32 - 8192).abs() <= 2, "{out:?}");
    }
}

#[test]
fn packed_dots_match_plain_dots_for_every_block_shape() {
    use tinyaot::__private::kernels::PackedRows;
    use tinyaot::__private::kernels::dot::{dots_pair, widen_pair_lane};
    use tinyaot::__private::kernels::layout::{pack_rows, pack_rows_widened, packed_len, packed_widened_len};
    // 1..=7 channels cover blocks of 4, 2 and 1; depths with and without a
    // partial last group of 4.
    for channels in 1..=7usize {
        for depth in [1usize, 3, 4, 9, 16, 27] {
            let x: Vec<i8> = (0..depth).map(|i| ((i * 37 + 5) % 256) as u8 as i8).collect();
            let w: Vec<i8> = (0..channels * depth).map(|i| ((i * 91 + 17) % 256) as u8 as i8).collect();
            let bias: Vec<i32> = (0..channels).map(|c| c as i32 * 1000 - 2500).collect();
            let mut packed = vec![0i8; packed_len(channels, depth)];
            pack_rows(&w, channels, depth, &mut packed);
            let mut wide = vec![0u32; packed_widened_len(channels, depth)];
            pack_rows_widened(&w, channels, depth, &mut wide);
            let want: Vec<i32> = (0..channels)
                .map(|c| bias[c] + (0..depth).map(|k| x[k] as i32 * w[c * depth + k] as i32).sum::<i32>())
                .collect();
            for layout in 0..2 {
                let mut got = vec![0; channels];
                fn run<P: PackedRows>(p: P, depth: usize, x: &[i8], bias: &[i32], got: &mut [i32]) {
                    match depth {
                        1 => p.dots::<1>(x, 0, bias, got),
                        3 => p.dots::<3>(x, 0, bias, got),
                        4 => p.dots::<4>(x, 0, bias, got),
                        9 => p.dots::<9>(x, 0, bias, got),
                        16 => p.dots::<16>(x, 0, bias, got),
                        _ => p.dots::<27>(x, 0, bias, got),
                    }
                }
                if layout == 0 {
                    run(&packed[..], depth, &x, &bias, &mut got);
                } else {
                    run(&wide[..], depth, &x, &bias, &mut got);
                }
                assert_eq!(got, want, "{channels} channels, depth {depth}, layout {layout}");
            }
            // Two pixels at once from a pair buffer: the second pixel is
            // the first reversed, so the lanes must not be mixed up.
            let xb: Vec<i8> = x.iter().rev().map(|&v| v.wrapping_neg()).collect();
            let want_b: Vec<i32> = (0..channels)
                .map(|c| bias[c] + (0..depth).map(|k| xb[k] as i32 * w[c * depth + k] as i32).sum::<i32>())
                .collect();
            let mut pair = [0u32; 256];
            widen_pair_lane::<false>(&x, 0, &mut pair);
            widen_pair_lane::<false>(&xb, 1, &mut pair);
            let (mut got_a, mut got_b) = (vec![0; channels], vec![0; channels]);
            let (a, b) = (&mut got_a[..], &mut got_b[..]);
            match depth {
                1 => dots_pair::<1>(&pair, &packed, &bias, a, b),
                3 => dots_pair::<3>(&pair, &packed, &bias, a, b),
                4 => dots_pair::<4>(&pair, &packed, &bias, a, b),
                9 => dots_pair::<9>(&pair, &packed, &bias, a, b),
                16 => dots_pair::<16>(&pair, &packed, &bias, a, b),
                _ => dots_pair::<27>(&pair, &packed, &bias, a, b),
            }
            assert_eq!((got_a, got_b), (want.clone(), want_b), "pair: {channels} channels, depth {depth}");
        }
    }
}

#[test]
fn vector_rows_match_plain_rows_for_every_block_shape() {
    use tinyaot::__private::kernels::PackedRows;
    use tinyaot::__private::kernels::dot_vector::VectorRows;
    use tinyaot::__private::kernels::layout::{pack_rows_vector, vector_packed_len};
    use tinyaot::__private::kernels::{down_scale_of, rescale_down};
    // 1..=9 channels (blocks of 4, 2, 1), depths below, at and past one
    // run of 16 values and with a partial last run; extreme values.
    fn check<const DEPTH: usize>(channels: usize) {
        let x: Vec<i8> = (0..DEPTH).map(|i| if i % 5 == 0 { -128 } else { ((i * 37 + 3) % 256) as u8 as i8 }).collect();
        let w: Vec<i8> = (0..channels * DEPTH)
            .map(|i| match i % 7 {
                0 => -128,
                3 => 127,
                _ => ((i * 91 + 17) % 256) as u8 as i8,
            })
            .collect();
        let bias: Vec<i32> = (0..channels).map(|c| c as i32 * 100_003 - 250_000).collect();
        let plain = |c: usize| bias[c] + (0..DEPTH).map(|k| x[k] as i32 * w[c * DEPTH + k] as i32).sum::<i32>();
        let mut packed = vec![0i8; vector_packed_len(channels, DEPTH)];
        pack_rows_vector(&w, channels, DEPTH, &mut packed);
        let rows = VectorRows(&packed);
        let mut got = vec![0; channels];
        rows.dots::<DEPTH>(&x, 0, &bias, &mut got);
        let want: Vec<i32> = (0..channels).map(plain).collect();
        assert_eq!(got, want, "dots: {channels} channels, depth {DEPTH}");
        // From a later block (`first`, a multiple of 4), requantized.
        let first = if channels > 4 { 4 } else { 0 };
        let scales: Vec<[i32; 4]> =
            (0..channels).map(|c| down_scale_of(1_100_000_000 + c as i32 * 7_000_000, -9, -3).unwrap()).collect();
        let mut out = vec![0i8; channels - first];
        rows.dots_down::<DEPTH>(&x, first, &bias[first..], &scales[first..], &mut out);
        let want: Vec<i8> =
            (first..channels).map(|c| rescale_down(plain(c), &scales[c]).clamp(-128, 127) as i8).collect();
        assert_eq!(out, want, "dots_down: {channels} channels from {first}, depth {DEPTH}");
        let mut dense = vec![0i8; channels];
        rows.dense_dots_down::<DEPTH>(&x, &bias, &scales, &mut dense);
        let want: Vec<i8> = (0..channels).map(|c| rescale_down(plain(c), &scales[c]).clamp(-128, 127) as i8).collect();
        assert_eq!(dense, want, "dense_dots_down: {channels} channels, depth {DEPTH}");
    }
    // A row of 3 windows, 16 apart, of 3 rows of 32 values, 50 apart in
    // the image, against the same values gathered into patches.
    fn window(channels: usize) {
        use tinyaot::__private::kernels::Separate;
        const DEPTH: usize = 96;
        let image: Vec<i8> = (0..240).map(|i| ((i * 53 + 7) % 256) as u8 as i8).collect();
        let w: Vec<i8> = (0..channels * DEPTH).map(|i| ((i * 29 + 3) % 256) as u8 as i8).collect();
        let bias: Vec<i32> = (0..channels).map(|c| c as i32 * 7_001 - 20_000).collect();
        let scales: Vec<[i32; 4]> = (0..channels).map(|_| down_scale_of(1_300_000_000, -10, 5).unwrap()).collect();
        let mut packed = vec![0i8; vector_packed_len(channels, DEPTH)];
        pack_rows_vector(&w, channels, DEPTH, &mut packed);
        let mut want = vec![0i8; 3 * channels];
        for (p, want) in want.chunks_exact_mut(channels).enumerate() {
            let patch: Vec<i8> = (0..3).flat_map(|r| image[p * 16 + r * 50..p * 16 + r * 50 + 32].to_vec()).collect();
            VectorRows(&packed).dots_down::<DEPTH>(&patch, 0, &bias, &scales, want);
        }
        // Outputs after one pixel's worth of other bytes: `out` is honoured.
        let mut got = vec![0i8; 4 * channels];
        let mut io = Separate { input: &image, output: &mut got };
        let out = channels..2 * channels;
        assert!(VectorRows(&packed).window_dots_down::<DEPTH>(&mut io, 0, 3, 16, 3, 50, out, &bias, &scales));
        assert_eq!(got[channels..], want[..], "window: {channels} channels");
        assert!(got[..channels].iter().all(|&v| v == 0));
    }
    // (Under Miri 3 channels, a block of 2 and 1, and 7, one of each.)
    let channel_counts: &[usize] = if cfg!(miri) { &[3, 7] } else { &[1, 2, 3, 4, 5, 6, 7, 8, 9] };
    for &channels in channel_counts {
        window(channels);
        check::<1>(channels);
        check::<8>(channels);
        check::<16>(channels);
        check::<27>(channels);
        check::<64>(channels);
        check::<100>(channels);
    }
}

#[test]
fn pair_rows_match_plain_rows_for_every_block_shape() {
    use tinyaot::__private::kernels::PackedRows;
    use tinyaot::__private::kernels::dot::{PairRows, dots_pair_lanes_down, widen_pair_lane};
    use tinyaot::__private::kernels::layout::{pack_pair_rows, packed_len};
    use tinyaot::__private::kernels::{down_scale_of, rescale_down};
    // 1..=9 channels: whole blocks of 4 in the lane layout, then 2 and 1
    // plain; extreme weights and inputs (-128 against -128 and 127) where
    // the lane words are at the ends of their 16-bit range.
    fn check<const DEPTH: usize>(channels: usize, seed: usize) {
        let x: Vec<i8> =
            (0..DEPTH).map(|i| if i % 5 == 0 { -128 } else { ((i * 37 + seed) % 256) as u8 as i8 }).collect();
        let xb: Vec<i8> = x.iter().rev().map(|&v| v.wrapping_add(101)).collect();
        let w: Vec<i8> = (0..channels * DEPTH)
            .map(|i| match i % 7 {
                0 => -128,
                3 => 127,
                _ => ((i * 91 + 17 + seed) % 256) as u8 as i8,
            })
            .collect();
        let bias: Vec<i32> = (0..channels).map(|c| c as i32 * 100_003 - 250_000).collect();
        let plain =
            |x: &[i8], c: usize| bias[c] + (0..DEPTH).map(|k| x[k] as i32 * w[c * DEPTH + k] as i32).sum::<i32>();
        let mut lanes = vec![0i8; packed_len(channels, DEPTH)];
        pack_pair_rows(&w, channels, DEPTH, &mut lanes);
        let rows = PairRows(&lanes);
        // Value by value (targets without pair kernels never get these
        // rows; this is their fallback).
        let mut got = vec![0; channels];
        rows.dots::<DEPTH>(&x, 0, &bias, &mut got);
        let want: Vec<i32> = (0..channels).map(|c| plain(&x, c)).collect();
        assert_eq!(got, want, "dots: {channels} channels, depth {DEPTH}");
        // Two pixels, requantized in the fused pair kernel: output zero
        // point -3, then -128 (no nudge of negative sums).
        for offset in [-3, -128] {
            check_scales::<DEPTH>(channels, &x, &xb, &w, &bias, &lanes, offset);
        }
    }
    fn check_scales<const DEPTH: usize>(
        channels: usize,
        x: &[i8],
        xb: &[i8],
        w: &[i8],
        bias: &[i32],
        lanes: &[i8],
        offset: i32,
    ) {
        let plain =
            |x: &[i8], c: usize| bias[c] + (0..DEPTH).map(|k| x[k] as i32 * w[c * DEPTH + k] as i32).sum::<i32>();
        let scales: Vec<[i32; 4]> = (0..channels)
            .map(|c| down_scale_of(1_100_000_000 + c as i32 * 7_000_000, -9 - c as i32 % 3, offset).unwrap())
            .collect();
        let down = |x: &[i8]| -> Vec<i8> {
            (0..channels).map(|c| rescale_down(plain(x, c), &scales[c]).clamp(-128, 127) as i8).collect()
        };
        // (The pair buffer holds rows of up to 160 values.)
        if DEPTH <= 160 {
            let mut pair = [0u32; 4 * 40 + 2];
            widen_pair_lane::<true>(x, 0, &mut pair);
            widen_pair_lane::<true>(xb, 1, &mut pair);
            // Pixel b's outputs right after pixel a's, then 3 bytes further
            // (untouched between).
            for gap in [0, 3] {
                let second = channels + gap;
                let mut out = vec![99i8; second + channels];
                if offset == -128 {
                    dots_pair_lanes_down::<DEPTH, false>(&pair, lanes, bias, &scales, &mut out, second, channels);
                } else {
                    dots_pair_lanes_down::<DEPTH, true>(&pair, lanes, bias, &scales, &mut out, second, channels);
                }
                let mut want = down(x);
                want.extend(vec![99i8; gap]);
                want.extend(down(xb));
                assert_eq!(out, want, "pairs: {channels} channels, depth {DEPTH}, offset {offset}, gap {gap}");
            }
            // The same pixel in both lanes, its outputs once.
            widen_pair_lane::<true>(x, 1, &mut pair);
            let mut out = vec![0i8; channels];
            if offset == -128 {
                dots_pair_lanes_down::<DEPTH, false>(&pair, lanes, bias, &scales, &mut out, 0, channels);
            } else {
                dots_pair_lanes_down::<DEPTH, true>(&pair, lanes, bias, &scales, &mut out, 0, channels);
            }
            assert_eq!(out, down(x), "one pixel: {channels} channels, depth {DEPTH}, offset {offset}");
        }
        // One pixel as FULLY_CONNECTED reads it (`dense_lanes_down`; rows
        // beyond `layout::DENSE_LANES_MAX_DEPTH` or fewer than 4 value by value).
        let mut out = vec![0i8; channels];
        PairRows(lanes).dense_dots_down::<DEPTH>(x, bias, &scales, &mut out);
        assert_eq!(out, down(x), "dense: {channels} channels, depth {DEPTH}, offset {offset}");
    }
    // (Under Miri as in `vector_rows_match_plain_rows_for_every_block_shape`.)
    let channel_counts: &[usize] = if cfg!(miri) { &[3, 7] } else { &[1, 2, 3, 4, 5, 6, 7, 8, 9] };
    for &channels in channel_counts {
        check::<1>(channels, 1);
        check::<7>(channels, 2);
        check::<24>(channels, 3);
        check::<27>(channels, 4);
        check::<160>(channels, 5);
    }
    // The dense lane kernel's longest rows, and past them: 6 rows (a block
    // of 4 in the lane layout, 2 plain) cover its paths.
    check::<640>(6, 6);
    if !cfg!(miri) {
        check::<643>(6, 7);
    }
}

#[test]
fn fast_rescale_equals_multiply_by_quantized_multiplier() {
    use tinyaot::__private::fixedpoint::multiply_by_quantized_multiplier;
    use tinyaot::__private::kernels::{DOWN_MAX_RIGHT, down_scale_of, rescale, rescale_down, scale_of};
    let mut next = xorshift(0x2545_f491_4f6c_dd1du64);
    let edges = [0, 1, -1, 2, -2, 1 << 30, -(1 << 30), i32::MAX, i32::MIN, i32::MAX - 1, i32::MIN + 1];
    let shifts: Vec<i32> = (-31..=30).collect();
    let n = if cfg!(miri) { 200 } else { 200_000 };
    for i in 0..n {
        let r = next();
        let acc = if i % 7 == 0 { edges[(r >> 40) as usize % edges.len()] } else { r as i32 };
        let multiplier = match i % 5 {
            0 => 0,
            1 => i32::MAX,
            2 => 1 << 30,
            _ => ((r >> 32) as u32 >> 1) as i32,
        };
        let shift = shifts[(r >> 20) as usize % shifts.len()];
        let want = multiply_by_quantized_multiplier(acc, multiplier, shift);
        let s = scale_of(multiplier, shift).unwrap();
        assert_eq!(rescale(acc, &s), want, "acc {acc}, multiplier {multiplier}, shift {shift}");
        // The short form, output offset folded in (int8 zero points).
        let offset = [-128, 127, 0, -1, 5][(r >> 8) as usize % 5];
        match down_scale_of(multiplier, shift, offset) {
            Some(d) => assert_eq!(
                rescale_down(acc, &d),
                want + offset,
                "down: acc {acc}, multiplier {multiplier}, shift {shift}, offset {offset}"
            ),
            None => assert!(!(-DOWN_MAX_RIGHT..0).contains(&shift)),
        }
        // Exact ties of the final rounding: with multiplier 2^30 the high
        // multiply halves, so an odd multiple of 2^shift lands on one.
        if (-DOWN_MAX_RIGHT..0).contains(&shift) {
            let k = (r >> 50) as i64 % 64;
            let tie = ((2 * k + 1) << -shift).clamp(i32::MIN as i64, i32::MAX as i64) as i32;
            let tie = if r & 1 == 0 { tie } else { tie.wrapping_neg() };
            let d = down_scale_of(1 << 30, shift, offset).unwrap();
            let want = multiply_by_quantized_multiplier(tie, 1 << 30, shift) + offset;
            assert_eq!(rescale_down(tie, &d), want, "tie {tie}, shift {shift}");
        }
    }
}

/// The fast depthwise kernel (packed 16-bit weights, input offset folded
/// into the bias over every tap, a zero-point row for taps outside)
/// gives the direct kernel's bytes: padding, stride, dilation, a channel
/// count that is not a multiple of 4, both rescale forms; and so do its
/// int4 layout and the direct kernel reading int4 nibbles.
#[test]
fn depthwise_m1_matches_direct() {
    use tinyaot::__private::kernels::depthwise::depthwise_m1_s8;
    use tinyaot::__private::kernels::dot_int4::Int4Filter;
    use tinyaot::__private::kernels::layout::{pack_depthwise, pack_depthwise_int4};
    const C: usize = 6;
    let input: Vec<i8> = (0..5 * 4 * C).map(|i| ((i * 73 + 11) % 256) as u8 as i8).collect();
    for int4 in [false, true] {
        let filter: Vec<i8> = (0..9 * C)
            .map(|i| if int4 { ((i * 29 + 5) % 16) as i8 - 8 } else { ((i * 29 + 5) % 255) as u8 as i8 })
            .collect();
        let nibbles: Vec<u8> = filter.chunks(2).map(|p| (p[0] as u8 & 15) | ((p[1] as u8 & 15) << 4)).collect();
        let bias: Vec<i32> = (0..C as i32).map(|c| c * 300 - 700).collect();
        let mult: Vec<i32> = (0..C as i32).map(|c| 1_100_000_000 + c * 37_000_000).collect();
        let shift: Vec<i32> = (0..C as i32).map(|c| -7 - c % 3 + 4 * i32::from(int4)).collect();
        let folded: Vec<i32> =
            (0..C).map(|c| bias[c] + 37 * (0..9).map(|t| filter[t * C + c] as i32).sum::<i32>()).collect();
        let packed: Vec<u32> =
            if int4 { pack_depthwise_int4(&filter, 9, C).collect() } else { pack_depthwise(&filter, 9, C).collect() };
        let any: Vec<[i32; 4]> = (0..C).map(|c| scale_of(mult[c], shift[c]).unwrap()).collect();
        let down: Vec<[i32; 4]> = (0..C).map(|c| down_scale_of(mult[c], shift[c], -5).unwrap()).collect();
        // The fast kernel (both requantization paths where the second
        // exists, in the int8 or the int4 layout) and, for int4, the
        // direct kernel over the nibbles.
        macro_rules! fast {
            ($oh:literal, $ow:literal, $fuse:literal, $win:expr, $r:expr, $got:expr) => {
                if int4 {
                    depthwise_m1_s8::<1, 5, 4, C, $oh, $ow, 3, 3, $fuse, true, _>(
                        sep(&input, $got),
                        &packed,
                        &folded,
                        $win,
                        $r,
                    )
                } else {
                    depthwise_m1_s8::<1, 5, 4, C, $oh, $ow, 3, 3, $fuse, false, _>(
                        sep(&input, $got),
                        &packed,
                        &folded,
                        $win,
                        $r,
                    )
                }
            };
        }
        macro_rules! check {
            ($oh:literal, $ow:literal, $win:expr, $q:expr, $r:expr, $fusable:expr) => {{
                let (mut want, mut got) = ([0i8; $oh * $ow * C], [0i8; $oh * $ow * C]);
                depthwise::<i32, _, 1, 5, 4, C, $oh, $ow, 1, 3, 3, _>(
                    sep(&input, &mut want),
                    filter.as_slice(),
                    Some(&bias),
                    $win,
                    $q,
                );
                fast!($oh, $ow, false, $win, $r, &mut got);
                assert_eq!(got, want);
                if $fusable {
                    got.fill(0);
                    fast!($oh, $ow, true, $win, $r, &mut got);
                    assert_eq!(got, want);
                }
                if int4 {
                    got.fill(0);
                    let nibbles = Int4Filter { nibbles: &nibbles };
                    depthwise::<i32, _, 1, 5, 4, C, $oh, $ow, 1, 3, 3, _>(
                        sep(&input, &mut got),
                        nibbles,
                        Some(&bias),
                        $win,
                        $q,
                    );
                    assert_eq!(got, want);
                }
            }};
        }
        for (act_min, scales) in range_cases(&any, &down, -100) {
            let q = Requant {
                input_offset: 37,
                output_offset: -5,
                multiplier: &mult,
                shift: &shift,
                act_min,
                act_max: 127,
            };
            let r = Rescale { input_offset: 37, output_offset: -5, scales, act_min, act_max: 127 };
            // Requantization fused where it can be, and not.
            let fusable = fused_scales(&r).is_some();
            // SAME padding, stride 1.
            check!(5, 4, &Window { pad_top: 1, pad_left: 1, ..UNIT }, &q, &r, fusable);
            // Stride 2 and dilation 2 with padding.
            let win = Window { pad_top: 2, pad_left: 1, stride_h: 2, dilation_h: 2, dilation_w: 2, ..UNIT };
            check!(3, 3, &win, &q, &r, fusable);
        }
    }
}

/// The float kernels' fast paths keep TFLite's summation order to the
/// bit: the transposed-filter convolution against the reference one, and
/// the multiplier-1 depthwise against a grouped convolution (one input
/// channel per group, the same order of taps).
#[test]
fn float_fast_paths_match_reference_order() {
    use tinyaot::__private::kernels::conv::conv2d_f32_oc;
    use tinyaot::__private::kernels::depthwise::depthwise_m1_f32;
    use tinyaot::__private::kernels::layout::pack_f32_oc;
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    const IC: usize = 5;
    const OC: usize = 11;
    let input: Vec<f32> = (0..5 * 4 * IC).map(|i| (i as f32 * 0.731).sin()).collect();
    let filter: Vec<f32> = (0..OC * 9 * IC).map(|i| (i as f32 * 1.37).cos() / 7.0).collect();
    let bias: Vec<f32> = (0..OC).map(|o| o as f32 * 0.01 - 0.05).collect();
    let win = Window { pad_top: 1, pad_left: 1, ..UNIT };
    let (mut want, mut got) = (vec![0.0f32; 5 * 4 * OC], vec![0.0f32; 5 * 4 * OC]);
    let q = F32Range { min: -1.0, max: 1.0 };
    conv2d::<f32, _, 1, 5, 4, IC, 5, 4, OC, 3, 3, IC, _>(
        sep(&input, &mut want),
        filter.as_slice(),
        Some(&bias),
        &win,
        &q,
    );
    let packed: Vec<f32> = pack_f32_oc(&filter, OC, 9, IC).collect();
    conv2d_f32_oc::<1, 5, 4, IC, 5, 4, OC, 3, 3, _>(sep(&input, &mut got), &packed, Some(&bias), &win, -1.0, 1.0);
    assert_eq!(bits(&got), bits(&want));

    // Depthwise, 10 channels (one block of 8 and a partial one).
    const C: usize = 10;
    let input: Vec<f32> = (0..5 * 4 * C).map(|i| (i as f32 * 0.417).sin()).collect();
    let dw: Vec<f32> = (0..9 * C).map(|i| (i as f32 * 0.93).cos()).collect(); // [1, 3, 3, C]
    let grouped: Vec<f32> = (0..C * 9).map(|i| dw[(i % 9) * C + i / 9]).collect(); // [C, 3, 3, 1]
    let bias: Vec<f32> = (0..C).map(|c| c as f32 * 0.1).collect();
    let win = Window { pad_top: 1, pad_left: 0, stride_w: 2, ..UNIT };
    let (mut want, mut got) = (vec![0.0f32; 5 * 2 * C], vec![0.0f32; 5 * 2 * C]);
    let all = F32Range { min: f32::MIN, max: f32::MAX };
    conv2d::<f32, _, 1, 5, 4, C, 5, 2, C, 3, 3, 1, _>(
        sep(&input, &mut want),
        grouped.as_slice(),
        Some(&bias),
        &win,
        &all,
    );
    depthwise_m1_f32::<1, 5, 4, C, 5, 2, 3, 3, _>(sep(&input, &mut got), &dw, Some(&bias), &win, f32::MIN, f32::MAX);
    // The general depthwise kernel gives the same bits.
    let mut general = vec![0.0f32; 5 * 2 * C];
    depthwise::<f32, _, 1, 5, 4, C, 5, 2, 1, 3, 3, _>(
        sep(&input, &mut general),
        dw.as_slice(),
        Some(&bias),
        &win,
        &all,
    );
    assert_eq!(bits(&general), bits(&want));
    assert_eq!(bits(&got), bits(&want));
}

/// The fused kernels in place (output before input by the planner's kind
/// of slack): the same bytes as with separate buffers. A pixel's output is
/// written while its input is still read (`Io::split`), which in place
/// must never overlap.
#[test]
fn fused_kernels_in_place_match_separate() {
    use tinyaot::__private::kernels::conv::conv2d_im2col_s8;
    use tinyaot::__private::kernels::depthwise::depthwise_m1_s8;
    use tinyaot::__private::kernels::layout::{pack_depthwise, pack_rows_widened};
    const C: usize = 8;
    const PIXELS: usize = 4 * 5;
    let input: Vec<i8> = (0..PIXELS * C).map(|i| ((i * 89 + 7) % 256) as u8 as i8).collect();
    let bias: Vec<i32> = (0..C as i32).map(|c| c * 211 - 900).collect();
    let down: Vec<[i32; 4]> =
        (0..C as i32).map(|c| down_scale_of(1_200_000_000 + c * 9_000_000, -8 - c % 2, 3).unwrap()).collect();
    let r = Rescale { input_offset: 11, output_offset: 3, scales: Scales::Down(&down), act_min: -128, act_max: 127 };
    assert!(fused_scales(&r).is_some());
    // Writes `input` at `at` in a buffer, runs `kernel` in place with the
    // output at 0, returns the output.
    let in_place = |at: usize, kernel: &dyn Fn(InPlace<'_, i8>)| {
        let mut buf = vec![0i8; at + PIXELS * C];
        buf[at..].copy_from_slice(&input);
        kernel(InPlace { buf: &mut buf, input: at, output: 0 });
        buf[..PIXELS * C].to_vec()
    };

    // Pointwise convolution, C -> C channels: the output starts one pixel
    // before the input (the planner's slack; starting at the input itself
    // would overlap the pixel it reads, which `split` refuses).
    let filter: Vec<i8> = (0..C * C).map(|i| ((i * 37 + 3) % 255) as u8 as i8).collect();
    let mut wide = vec![0u32; C * C / 2];
    pack_rows_widened(&filter, C, C, &mut wide);
    let mut want = vec![0i8; PIXELS * C];
    let io = Separate { input: &input[..], output: &mut want[..] };
    conv2d_im2col_s8::<1, 4, 5, C, 4, 5, C, 1, 1, C, true, _>(io, &wide[..], &bias, &UNIT, &r, &mut []);
    let got = in_place(C, &|io| {
        conv2d_im2col_s8::<1, 4, 5, C, 4, 5, C, 1, 1, C, true, _>(io, &wide[..], &bias, &UNIT, &r, &mut [])
    });
    assert_eq!(got, want);

    // Depthwise 3x3, SAME padding: the output starts (IW + 2) pixels before
    // the input (a pixel's output then lies before every input it reads).
    let dw: Vec<i8> = (0..9 * C).map(|i| ((i * 53 + 17) % 255) as u8 as i8).collect();
    let packed: Vec<u32> = pack_depthwise(&dw, 9, C).collect();
    let win = Window { pad_top: 1, pad_left: 1, ..UNIT };
    let mut want = vec![0i8; PIXELS * C];
    let io = Separate { input: &input[..], output: &mut want[..] };
    depthwise_m1_s8::<1, 4, 5, C, 4, 5, 3, 3, true, false, _>(io, &packed, &bias, &win, &r);
    let got = in_place((5 + 2) * C, &|io| {
        depthwise_m1_s8::<1, 4, 5, C, 4, 5, 3, 3, true, false, _>(io, &packed, &bias, &win, &r)
    });
    assert_eq!(got, want);
}

/// The widened-rows depthwise kernel against the direct one: stride 1 and
/// 2, odd and even output widths, SAME and VALID padding (and a padding
/// that leaves input columns unread), two batches, the fused
/// requantization (the only one the compiler gives it),
/// 3x3 and other filter shapes (the portable loop; on DSP cores the
/// assembly loop is checked by the firmware test on `depthwise_rows`).
#[test]
fn depthwise_rows_matches_direct() {
    use tinyaot::__private::kernels::depthwise::depthwise_rows_s8;
    use tinyaot::__private::kernels::layout::{depthwise_row_width, depthwise_rows_doubled, pack_depthwise_rows};
    const C: usize = 5;
    const IH: usize = 6;
    const IW: usize = 7;
    fn check<const KH: usize, const KW: usize, const OH: usize, const OW: usize, const SW: usize, const RW: usize>(
        win: Window,
    ) {
        assert_eq!(RW, depthwise_row_width(OW, SW, KW));
        // Output zero point 6, then -128 (where the rounding of negative
        // sums may skip its nudge: `NUDGE` false); the stream as is and
        // doubled (`DOUBLED`: the scales' right shifts are 8 and 9).
        // (Under Miri two of the four, each variant of both once.)
        let cases: &[(i32, bool)] = if cfg!(miri) {
            &[(6, false), (-128, true)]
        } else {
            &[(6, false), (6, true), (-128, false), (-128, true)]
        };
        for &(output_offset, doubled) in cases {
            check_with::<KH, KW, OH, OW, SW, RW>(&win, output_offset, doubled);
        }
    }
    fn check_with<
        const KH: usize,
        const KW: usize,
        const OH: usize,
        const OW: usize,
        const SW: usize,
        const RW: usize,
    >(
        win: &Window,
        output_offset: i32,
        doubled: bool,
    ) {
        let win = *win;
        let input: Vec<i8> = (0..2 * IH * IW * C).map(|i| ((i * 97 + 13) % 256) as u8 as i8).collect();
        let filter: Vec<i8> = (0..KH * KW * C).map(|i| ((i * 41 + 9) % 255) as u8 as i8).collect();
        let bias: Vec<i32> = (0..C as i32).map(|c| c * 517 - 1200).collect();
        let mult: Vec<i32> = (0..C as i32).map(|c| 1_150_000_000 + c * 41_000_000).collect();
        let shift: Vec<i32> = (0..C as i32).map(|c| -8 - c % 2).collect();
        let input_offset = -3;
        let q = Requant { input_offset, output_offset, multiplier: &mult, shift: &shift, act_min: -128, act_max: 127 };
        let down: Vec<[i32; 4]> = (0..C).map(|c| down_scale_of(mult[c], shift[c], output_offset).unwrap()).collect();
        let r = Rescale { input_offset, output_offset, scales: Scales::Down(&down), act_min: -128, act_max: 127 };
        let taps = KH * KW;
        let folded: Vec<i32> =
            (0..C).map(|c| bias[c] + input_offset * (0..taps).map(|t| filter[t * C + c] as i32).sum::<i32>()).collect();
        assert!(depthwise_rows_doubled(&filter, &folded, &down, C));
        let stream: Vec<u32> = pack_depthwise_rows(&filter, &folded, &down, (KH, KW), C, doubled).collect();
        let mut want = vec![0i8; 2 * OH * OW * C];
        let io = Separate { input: &input[..], output: &mut want[..] };
        depthwise::<i32, _, 2, IH, IW, C, OH, OW, 1, KH, KW, _>(io, filter.as_slice(), Some(&bias), &win, &q);
        let mut ring = vec![0i16; KH * C * RW];
        let mut got = vec![0i8; 2 * OH * OW * C];
        let io = Separate { input: &input[..], output: &mut got[..] };
        assert!(fused_scales(&r).is_some());
        let args = (&stream[..], &win, input_offset, &mut ring[..]);
        match (output_offset == -128, doubled) {
            (true, false) => rows::<2, IH, IW, C, OH, OW, KH, KW, SW, RW, false, false>(io, args),
            (true, true) => rows::<2, IH, IW, C, OH, OW, KH, KW, SW, RW, false, true>(io, args),
            (false, false) => rows::<2, IH, IW, C, OH, OW, KH, KW, SW, RW, true, false>(io, args),
            (false, true) => rows::<2, IH, IW, C, OH, OW, KH, KW, SW, RW, true, true>(io, args),
        }
        assert_eq!(got, want, "{KH}x{KW}, stride {SW}, {win:?}, output offset {output_offset}, doubled {doubled}");
    }
    /// `depthwise_rows_s8` with its slice arguments in one tuple.
    #[allow(clippy::type_complexity)]
    fn rows<
        const N: usize,
        const IH: usize,
        const IW: usize,
        const C: usize,
        const OH: usize,
        const OW: usize,
        const KH: usize,
        const KW: usize,
        const SW: usize,
        const RW: usize,
        const NUDGE: bool,
        const DOUBLED: bool,
    >(
        io: Separate<'_, i8>,
        (stream, win, input_offset, ring): (&[u32], &Window, i32, &mut [i16]),
    ) {
        depthwise_rows_s8::<N, IH, IW, C, OH, OW, KH, KW, SW, RW, NUDGE, DOUBLED, _>(
            io,
            stream,
            win,
            input_offset,
            ring,
        );
    }
    // SAME 3x3: stride 1 (odd width), stride 2 both ways.
    check::<3, 3, 6, 7, 1, 10>(Window { pad_top: 1, pad_left: 1, ..UNIT });
    check::<3, 3, 3, 4, 2, 10>(Window { pad_top: 0, pad_left: 0, stride_h: 2, stride_w: 2, ..UNIT });
    // VALID 3x3, even width; stride 2 leaving the last column unread.
    check::<3, 3, 4, 5, 1, 8>(Window { pad_top: 0, pad_left: 0, ..UNIT });
    check::<3, 3, 2, 3, 2, 8>(Window { pad_top: 0, pad_left: 0, stride_h: 2, stride_w: 2, ..UNIT });
    // Taller and other widths (the portable loop).
    check::<5, 3, 6, 7, 1, 10>(Window { pad_top: 2, pad_left: 1, ..UNIT });
    check::<2, 2, 6, 7, 1, 8>(Window { pad_top: 0, pad_left: 0, ..UNIT });
    check::<1, 5, 6, 7, 1, 12>(Window { pad_top: 0, pad_left: 2, ..UNIT });
}

/// The widened-rows depthwise kernel in place, with its output as far
/// after its input as the planner's rule for the pixel-order kernels
/// allows (every output byte `k` written before the first byte a later
/// pixel reads): the same bytes as with separate buffers.
#[test]
fn depthwise_rows_in_place_matches_separate() {
    use tinyaot::__private::kernels::depthwise::depthwise_rows_s8;
    use tinyaot::__private::kernels::layout::pack_depthwise_rows;
    const C: usize = 4;
    const H: usize = 4;
    const W: usize = 5;
    const RW: usize = 8;
    let input: Vec<i8> = (0..H * W * C).map(|i| ((i * 89 + 7) % 256) as u8 as i8).collect();
    let filter: Vec<i8> = (0..9 * C).map(|i| ((i * 53 + 17) % 255) as u8 as i8).collect();
    let bias: Vec<i32> = (0..C as i32).map(|c| c * 211 - 900).collect();
    let down: Vec<[i32; 4]> =
        (0..C as i32).map(|c| down_scale_of(1_200_000_000 + c * 9_000_000, -8 - c % 2, 3).unwrap()).collect();
    let stream: Vec<u32> = pack_depthwise_rows(&filter, &bias, &down, (3, 3), C, false).collect();
    let win = Window { pad_top: 1, pad_left: 1, ..UNIT };
    let mut ring = [0i16; 3 * C * RW];
    let mut want = [0i8; H * W * C];
    let io = Separate { input: &input[..], output: &mut want[..] };
    depthwise_rows_s8::<1, H, W, C, H, W, 3, 3, 1, RW, true, false, _>(io, &stream, &win, 11, &mut ring);
    // SAME 3x3, stride 1: pixel k's output (bytes up to (k + 1) * C) must
    // end before the first input byte pixels k and later read, W + 1
    // pixels before k: the output may start (W + 2) pixels before the
    // input, and no later.
    for at in [(W + 2) * C, (W + 3) * C, 2 * W * C] {
        let mut buf = vec![0i8; at + H * W * C];
        buf[at..].copy_from_slice(&input);
        let io = InPlace { buf: &mut buf, input: at, output: 0 };
        depthwise_rows_s8::<1, H, W, C, H, W, 3, 3, 1, RW, true, false, _>(io, &stream, &win, 11, &mut ring);
        assert_eq!(&buf[..H * W * C], &want[..], "output {at} bytes before the input");
    }
}

/// The signal library's streaming kernels against the streams they model:
/// DELAY shifts the concatenated rows, FRAMER cuts the prefilled stream,
/// STACKER repeats the first frame as left context, OVERLAP_ADD sums
/// frames placed `STEP` apart; each over several invokes with its state.
#[test]
fn streaming_signal_kernels_match_their_streams() {
    use tinyaot::__private::kernels::signal::{Framer, Stacker, delay, framer, overlap_add, stacker};
    let sample = |i: usize| ((i * 7919 + 13) % 2001) as i16 - 1000;

    // DELAY: 2 rows of 5 samples, 7 samples late.
    let mut state = [0i16; 2 * 7];
    let mut rows = [Vec::new(), Vec::new()];
    let mut outs = [Vec::new(), Vec::new()];
    for invoke in 0..4 {
        let input: Vec<i16> = (0..10).map(|i| sample(invoke * 10 + i)).collect();
        let mut output = [0i16; 10];
        delay::<2, 5, 7>(&input, &mut output, &mut state);
        for r in 0..2 {
            rows[r].extend_from_slice(&input[r * 5..][..5]);
            outs[r].extend_from_slice(&output[r * 5..][..5]);
        }
    }
    for r in 0..2 {
        let want: Vec<i16> = [0i16; 7].iter().copied().chain(rows[r].iter().copied()).take(20).collect();
        assert_eq!(outs[r], want, "delay row {r}");
    }

    // FRAMER: frames of 6 every 4 samples, prefilled, 2 frames per invoke.
    let f = Framer { size: 6, step: 4, capacity: 8, prefill: 2 };
    let mut state = [0i16; 1 + 8];
    let mut stream = vec![0i16; 2];
    for invoke in 0..3 {
        let input: Vec<i16> = (0..8).map(|i| sample(invoke * 8 + i)).collect();
        stream.extend_from_slice(&input);
        let (mut output, mut valid) = ([0i16; 12], [0u8]);
        framer::<1, 8>(&input, &mut output, &mut valid, &mut state, &f);
        assert_eq!(valid[0], 1);
        for frame in 0..2 {
            let k = invoke * 2 + frame;
            assert_eq!(&output[frame * 6..][..6], &stream[k * 4..k * 4 + 6], "frame {k}");
        }
    }

    // STACKER: 2 channels, one frame of left and right context, step 1.
    let s = Stacker { channels: 2, left: 1, size: 6, step: 2 };
    let mut state = [0i16; 2 + 6];
    let frames: Vec<[i16; 2]> = (0..5).map(|t| [sample(2 * t), sample(2 * t + 1)]).collect();
    let mut padded = vec![frames[0]];
    padded.extend_from_slice(&frames);
    for (t, frame) in frames.iter().enumerate() {
        let (mut output, mut valid) = ([0i16; 6], [0u8]);
        stacker(frame, &mut output, &mut valid, &mut state, &s);
        assert_eq!(valid[0], u8::from(t >= 1), "invoke {t}");
        if t >= 1 {
            let want: Vec<i16> = padded[t - 1..t + 2].iter().flatten().copied().collect();
            assert_eq!(output.to_vec(), want, "stack {t}");
        }
    }

    // OVERLAP_ADD: frames of 5 samples every 2, 2 frames per invoke.
    let mut state = [0f32; 5];
    let mut timeline = [0f32; 3 * 2 * 2 + 5];
    let mut out = Vec::new();
    for invoke in 0..3 {
        let input: Vec<f32> = (0..10).map(|i| f32::from(sample(invoke * 10 + i)) / 64.0).collect();
        for frame in 0..2 {
            let at = (invoke * 2 + frame) * 2;
            for (j, &x) in input[frame * 5..][..5].iter().enumerate() {
                timeline[at + j] += x;
            }
        }
        let mut output = [0f32; 4];
        overlap_add::<f32, 1, 2, 5, 2>(&input, &mut output, &mut state);
        out.extend_from_slice(&output);
    }
    assert_eq!(out, timeline[..12].to_vec());
}

/// DETECTION_POSTPROCESS on three anchors, the first two overlapping: the
/// regular NMS keeps the better of the pair and the third box, best first,
/// and zeroes the row past the count; scales of 1 and zero encodings give
/// the anchors back as corners.
#[test]
fn detection_reads_uint8_inputs_as_litert_dequantizes_them() {
    use tinyaot::__private::kernels::detection::{Dequantized, Values};
    // uint8 [0, 128, 255] with zero point 0, as the uint8 pass gives them:
    // int8 [-128, 0, 127] with zero point -128.
    let q =
        Dequantized { values: &[-128, 0, 127], zero_point: -128, scale: 0.5, vector_part: 0, zero_times_scale: 0.0 };
    assert_eq!([q.at(0), q.at(1), q.at(2)], [0.0, 64.0, 127.5]);
    // LiteRT's vector loop over class scores: uint8 q times the scale plus
    // -zero_point * scale, two roundings, where one rounding gives another
    // float (scale 0.010021506, zero point 129: q 246 is 1.1725162 in one
    // rounding, 1.1725163 in two); past `vector_part`, one rounding.
    let scale = 0.010021506_f32;
    let zero_times_scale = (-129.0 * f64::from(scale)) as f32;
    let values = [246u8 as i32 - 128; 9].map(|v| v as i8);
    let q = Dequantized { values: &values, zero_point: 1, scale, vector_part: 8, zero_times_scale };
    assert_eq!(q.at(0), 246.0 * scale + zero_times_scale);
    assert_eq!(q.at(8), 117.0 * scale);
    assert_ne!(q.at(0), q.at(8), "the two forms differ on this value");
}

#[test]
fn detection_postprocess_suppresses_overlaps() {
    use tinyaot::__private::kernels::detection::{Detection, detection_postprocess};
    let encodings = [0.0f32; 12];
    // Anchors (y, x, h, w): two nearly the same, one apart.
    let anchors = [0.5f32, 0.5, 0.2, 0.2, 0.51, 0.5, 0.2, 0.2, 0.1, 0.1, 0.1, 0.1];
    // One class with a background column first.
    let scores = [0.0f32, 0.6, 0.0, 0.9, 0.0, 0.7];
    let d = Detection {
        boxes: 3,
        box_stride: 4,
        classes: 1,
        columns: 2,
        max_detections: 4,
        classes_per_detection: 1,
        detections_per_class: 10,
        regular: true,
        score_threshold: 0.5,
        iou_threshold: 0.5,
        scales: [1.0; 4],
    };
    let mut scratch = [0u32; 11 * 3 + 4 * 14];
    let (mut boxes, mut classes, mut out_scores, mut count) = ([9f32; 16], [9f32; 4], [9f32; 4], [9f32; 1]);
    detection_postprocess(
        &encodings[..],
        &scores[..],
        &anchors[..],
        &mut boxes,
        &mut classes,
        &mut out_scores,
        &mut count,
        &d,
        &mut scratch,
    );
    assert_eq!(count[0], 2.0);
    assert_eq!(&out_scores[..], &[0.9, 0.7, 0.0, 0.0]);
    assert_eq!(&classes[..], &[0.0; 4]);
    let corners = |y: f32, x: f32, h: f32, w: f32| [y - h / 2.0, x - w / 2.0, y + h / 2.0, x + w / 2.0];
    assert_eq!(&boxes[..4], &corners(0.51, 0.5, 0.2, 0.2));
    assert_eq!(&boxes[4..8], &corners(0.1, 0.1, 0.1, 0.1));
    assert_eq!(&boxes[8..], &[0.0; 8]);
}

#[test]
fn hybrid_batch_matmul_takes_litert_row_scales() {
    use tinyaot::__private::kernels::fully_connected::MatrixStrides;
    use tinyaot::__private::kernels::hybrid::{HybridBatches, batch_matmul_hybrid};
    // Four input rows of depth 2 (one per batch of a [2, 2] batch), the
    // weights [N = 2][K = 2] with scale 0.5, shared by every batch.
    let input = [1.0f32, -0.5, 2.0, 2.0, 0.25, -1.0, 4.0, 0.0];
    let weights = [1i8, 2, 3, -1];
    let batches = HybridBatches {
        dims: [1, 2, 2],
        input: [0, 4, 2],
        weights: [0, 0, 0],
        // LiteRT's steps: one matrix (M = 1 row) on each dimension.
        scale: [0, 1, 1],
        row_sum: [0, 0, 0],
    };
    let mut scratch = [0f32; 2 * 4 + 2];
    let mut output = [0f32; 8];
    batch_matmul_hybrid::<1, 2, 2, 4, false, false>(
        &input,
        MatrixStrides { row: 2, column: 1 },
        &weights,
        &[0.5],
        &[],
        &batches,
        &mut scratch,
        &mut output,
    );
    // Each row quantized symmetrically: scale max|x| / 127, values
    // round(x * 127 / max|x|).
    let q = [[127i32, -64], [127, 127], [32, -127], [127, 0]];
    let scale = [1.0f32 / 127.0, 2.0 / 127.0, 1.0 / 127.0, 4.0 / 127.0];
    for (batch, row_scale) in [(0, 0), (1, 1), (2, 1), (3, 2)] {
        // Batch (b1, b2) takes the scale of row b1 + b2, not of its own row.
        let dots = [q[batch][0] + 2 * q[batch][1], 3 * q[batch][0] - q[batch][1]];
        for n in 0..2 {
            assert_eq!(output[batch * 2 + n], scale[row_scale] * 0.5 * dots[n] as f32, "batch {batch} column {n}");
        }
    }
}

#[test]
fn window_rows_widen_like_their_patch() {
    use tinyaot::__private::kernels::dot::{widen_pair_lane, widen_pair_lane_rows};
    // A 3x3 window of 16 channels inside a 5-pixel-wide image (rows 80
    // values apart), and 2 rows of 12 (a 3-wide window of 4 channels):
    // widened from the image's rows or from the gathered patch, the pair
    // buffer's words and the input sum after them agree, in both lanes.
    for (rows, len, step) in [(3, 48, 80), (2, 12, 20), (1, 16, 16)] {
        let image: Vec<i8> = (0..rows * step).map(|i| ((i * 53 + 7) % 256) as u8 as i8).collect();
        let patch: Vec<i8> = (0..rows).flat_map(|r| image[r * step..r * step + len].iter().copied()).collect();
        for lane in 0..2 {
            let mut by_rows = vec![0xdead_beefu32; 4 * (rows * len) / 4 + 2];
            let mut by_patch = by_rows.clone();
            widen_pair_lane_rows::<true>(&image, rows, len, step, lane, &mut by_rows);
            widen_pair_lane::<true>(&patch, lane, &mut by_patch);
            assert_eq!(by_rows, by_patch, "{rows} rows of {len}, lane {lane}");
            let sum: i32 = patch.iter().map(|&v| v as i32).sum();
            assert_eq!(by_rows[rows * len + lane] as i32, 128 * sum);
        }
    }
}

/// int32 FLOOR_DIV and FLOOR_MOD against their definitions in i64 (the
/// floor of the real quotient; `a - b * floor(a / b)`), over small values,
/// the extremes, and the zero divisor (0, where LiteRT's invoke fails).
#[test]
fn floor_div_and_mod_i32_match_their_definitions() {
    use tinyaot::__private::kernels::binary::{floor_div_i32, floor_mod_i32};
    let values = [i32::MIN, i32::MIN + 1, -1000, -41, -7, -3, -1, 0, 1, 2, 3, 7, 40, 999, i32::MAX - 1, i32::MAX];
    for &a in &values {
        for &b in &values {
            if b == 0 {
                assert_eq!((floor_div_i32(a, b), floor_mod_i32(a, b)), (0, 0));
                continue;
            }
            let q = (a as i64).div_euclid(b as i64) - if b < 0 && (a as i64).rem_euclid(b as i64) != 0 { 1 } else { 0 };
            let r = a as i64 - b as i64 * q;
            assert_eq!(floor_div_i32(a, b), q as i32, "{a} floordiv {b}");
            assert_eq!(floor_mod_i32(a, b) as i64, r, "{a} floormod {b}");
        }
    }
}

/// A xorshift64 stream of pseudo-random words from `state`.
fn xorshift(mut state: u64) -> impl FnMut() -> u64 {
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}

/// The vector-lanes form of int8 ADD and SUB (`AddLanes`, Helium's loop)
/// gives `AddQuant`'s outputs for every pair of inputs, over random
/// constants of the forms TFLite makes (one input halved, the other's
/// multiplier below 1/2 or both halved, output shifts to the form's
/// limit, zero points and clamps across the range), and `binary_lanes`
/// gives them through either path.
#[test]
fn add_lanes_equal_the_scalar_add() {
    use tinyaot::__private::kernels::binary::{AddLanes, binary_lanes};
    let mut next = xorshift(0x9e37_79b9_7f4a_7c15u64);
    let (cases, stride) = if cfg!(miri) { (4, 97) } else { (400, 1) };
    for i in 0..cases {
        let r = next();
        let multiplier = |bits: u64| (1 << 30) + (bits as i32 & 0x3fff_ffff);
        let (mut m1, mut s1) = (multiplier(r), -1 - ((r >> 32) % 12) as i32);
        let (mut m2, mut s2) = (1 << 30, 0);
        if i % 5 == 0 {
            (m1, s1) = (1 << 30, 0);
        }
        if i % 2 == 1 {
            (m1, s1, m2, s2) = (m2, s2, m1, s1);
        }
        let zo = (next() % 256) as i32 - 128;
        let lo = if i % 3 == 0 { zo } else { -128 };
        let hi = if i % 7 == 0 { (zo + 100).min(127) } else { 127 };
        let q = AddQuant {
            input1_offset: (next() % 256) as i32 - 127,
            input2_offset: (next() % 256) as i32 - 127,
            output_offset: zo,
            left_shift: 20,
            input1_multiplier: m1,
            input1_shift: s1,
            input2_multiplier: m2,
            input2_shift: s2,
            output_multiplier: multiplier(next()),
            output_shift: -1 - (next() % 23) as i32,
            act_min: lo,
            act_max: hi.max(lo),
        };
        for sub in [false, true] {
            let Some(lanes) = AddLanes::of(&q, sub) else { panic!("case {i}: no lanes form for {q:?}") };
            for x in (-128..=127i32).step_by(stride) {
                for y in -128..=127i32 {
                    let (x, y) = (x as i8, y as i8);
                    let want = if sub { q.sub::<i8>(x, y) } else { q.add::<i8>(x, y) };
                    assert_eq!(lanes.apply(x, y), want, "case {i} sub {sub}: {x} {y} {q:?}");
                }
            }
        }
    }
    // Through the kernel, in place (the output over the first operand) and apart.
    let q = AddQuant {
        input1_offset: 3,
        input2_offset: -20,
        output_offset: -5,
        left_shift: 20,
        input1_multiplier: 1 << 30,
        input1_shift: 0,
        input2_multiplier: 1_500_000_000,
        input2_shift: -2,
        output_multiplier: 1_800_000_000,
        output_shift: -19,
        act_min: -5,
        act_max: 127,
    };
    let a: [i8; 37] = core::array::from_fn(|k| (k as i32 * 37 - 128) as i8);
    let b: [i8; 37] = core::array::from_fn(|k| (100 - k as i32 * 7) as i8);
    let want: Vec<i8> = a.iter().zip(&b).map(|(&x, &y)| q.add::<i8>(x, y)).collect();
    let lanes = AddLanes::of(&q, false);
    assert!(lanes.is_some());
    let mut out = [0i8; 37];
    binary_lanes::<_, 37, _, _, _>(sep(&a, &mut out), &b, None, true, lanes, |x, y| q.add::<i8>(x, y));
    assert_eq!(out[..], want[..]);
    let mut buf = b;
    binary_lanes::<_, 37, _, _, _>(InPlace { buf: &mut buf, input: 0, output: 0 }, &a, None, false, lanes, |x, y| {
        q.add::<i8>(x, y)
    });
    assert_eq!(buf[..], want[..]);
}

/// The vector-lanes form of int8 MUL (`MulLanes`, Helium's loop) gives
/// `MulQuant`'s outputs for every pair of inputs, over random constants
/// (multipliers in TFLite's range, shifts from the form's right limit to
/// left shifts, zero points and clamps across the range), and `binary_lanes`
/// gives them through either path.
#[test]
fn mul_lanes_equal_the_scalar_mul() {
    use tinyaot::__private::kernels::Strided6;
    use tinyaot::__private::kernels::binary::{MulLanes, MulQuant, binary_lanes};
    let mut next = xorshift(0x2545_f491_4f6c_dd1du64);
    let (cases, stride) = if cfg!(miri) { (4, 97) } else { (400, 1) };
    for i in 0..cases {
        let zo = (next() % 256) as i32 - 128;
        let lo = if i % 3 == 0 { zo } else { -128 };
        let hi = if i % 7 == 0 { (zo + 100).min(127) } else { 127 };
        // Right shifts 0 to 23 and, one case in five, left shifts 1 to 8.
        let shift = if i % 5 == 0 { 1 + (next() % 8) as i32 } else { -((next() % 24) as i32) };
        let q = MulQuant {
            input1_offset: (next() % 256) as i32 - 127,
            input2_offset: (next() % 256) as i32 - 127,
            output_offset: zo,
            multiplier: (1 << 30) + (next() as i32 & 0x3fff_ffff),
            shift,
            act_min: lo,
            act_max: hi.max(lo),
        };
        let Some(lanes) = MulLanes::of(&q) else { panic!("case {i}: no lanes form for {q:?}") };
        for x in (-128..=127i32).step_by(stride) {
            for y in -128..=127i32 {
                let (x, y) = (x as i8, y as i8);
                assert_eq!(lanes.apply(x, y), q.mul::<i8>(x, y), "case {i}: {x} {y} {q:?}");
            }
        }
    }
    // Through the kernel, in place (the output over the second operand) and apart.
    let q = MulQuant {
        input1_offset: 3,
        input2_offset: -20,
        output_offset: -5,
        multiplier: 1_500_000_000,
        shift: -7,
        act_min: -5,
        act_max: 127,
    };
    let a: [i8; 37] = core::array::from_fn(|k| (k as i32 * 37 - 128) as i8);
    let b: [i8; 37] = core::array::from_fn(|k| (100 - k as i32 * 7) as i8);
    let want: Vec<i8> = a.iter().zip(&b).map(|(&x, &y)| q.mul::<i8>(x, y)).collect();
    let lanes = MulLanes::of(&q);
    assert!(lanes.is_some());
    let mut out = [0i8; 37];
    binary_lanes::<_, 37, _, _, _>(sep(&a, &mut out), &b, None, true, lanes, |x, y| q.mul::<i8>(x, y));
    assert_eq!(out[..], want[..]);
    let mut buf = b;
    binary_lanes::<_, 37, _, _, _>(InPlace { buf: &mut buf, input: 0, output: 0 }, &a, None, false, lanes, |x, y| {
        q.mul::<i8>(x, y)
    });
    assert_eq!(buf[..], want[..]);
    // Broadcast: 3 runs of 12 against one row of 12, the row first.
    let walk = Strided6 { dims: [1, 1, 1, 1, 3, 12], a: [0, 0, 0, 0, 12, 1], b: [0, 0, 0, 0, 0, 1] };
    let want: Vec<i8> = (0..36).map(|k| q.mul::<i8>(b[k % 12], a[k])).collect();
    let mut out = [0i8; 36];
    binary_lanes::<_, 36, _, _, _>(sep(&a[..36], &mut out), &b[..12], Some(&walk), false, lanes, |x, y| {
        q.mul::<i8>(x, y)
    });
    assert_eq!(out[..], want[..]);
}

/// The vector-lanes form of int16 ADD, SUB and MUL (`AddLanes::of_s16`,
/// `MulLanes::of_s16`: Helium's loops over 16-bit loads and stores) gives
/// `AddQuant`'s and `MulQuant`'s outputs, over random constants of the
/// forms TFLite makes for int16 (zero points 0, the 15-bit headroom, one
/// input halved) and inputs drawn over the whole range with its extremes;
/// `binary_lanes` gives them through either path.
#[test]
fn int16_lanes_equal_the_scalar_ops() {
    use tinyaot::__private::kernels::binary::{AddLanes, MulLanes, MulQuant, binary_lanes};
    let mut next = xorshift(0x6a09_e667_f3bc_c909u64);
    let (cases, draws) = if cfg!(miri) { (3, 40) } else { (300, 3000) };
    let edges = [i16::MIN, i16::MIN + 1, -1, 0, 1, i16::MAX - 1, i16::MAX];
    for i in 0..cases {
        let r = next();
        let multiplier = |bits: u64| (1 << 30) + (bits as i32 & 0x3fff_ffff);
        let (mut m1, mut s1) = (multiplier(r), -1 - ((r >> 32) % 12) as i32);
        let (mut m2, mut s2) = (1 << 30, 0);
        if i % 5 == 0 {
            (m1, s1) = (1 << 30, 0);
        }
        if i % 2 == 1 {
            (m1, s1, m2, s2) = (m2, s2, m1, s1);
        }
        let lo = if i % 3 == 0 { 0 } else { -32768 };
        let hi = if i % 7 == 0 { 20000 } else { 32767 };
        let add = AddQuant {
            input1_offset: 0,
            input2_offset: 0,
            output_offset: 0,
            left_shift: 15,
            input1_multiplier: m1,
            input1_shift: s1,
            input2_multiplier: m2,
            input2_shift: s2,
            output_multiplier: multiplier(next()),
            output_shift: -1 - (next() % 23) as i32,
            act_min: lo,
            act_max: hi,
        };
        let mul = MulQuant {
            input1_offset: 0,
            input2_offset: 0,
            output_offset: 0,
            multiplier: multiplier(next()),
            shift: if i % 5 == 0 { (next() % 2) as i32 } else { -((next() % 24) as i32) },
            act_min: lo,
            act_max: hi,
        };
        let Some(m) = MulLanes::of_s16(&mul) else { panic!("case {i}: no lanes form for {mul:?}") };
        let pairs = (0..draws).map(|_| (next() as i16, next() as i16));
        let corners = edges.iter().flat_map(|&x| edges.iter().map(move |&y| (x, y)));
        for (x, y) in pairs.chain(corners) {
            for sub in [false, true] {
                let Some(a) = AddLanes::of_s16(&add, sub) else { panic!("case {i}: no lanes form for {add:?}") };
                let want = if sub { add.sub::<i16>(x, y) } else { add.add::<i16>(x, y) };
                assert_eq!(a.apply(x, y), want, "case {i} sub {sub}: {x} {y} {add:?}");
            }
            assert_eq!(m.apply(x, y), mul.mul::<i16>(x, y), "case {i}: {x} {y} {mul:?}");
        }
    }
    // Where a lane could saturate (a nonzero output zero point beside the
    // largest high products) there is no lanes form: the scalar path.
    let q = MulQuant {
        input1_offset: 0,
        input2_offset: 0,
        output_offset: 5,
        multiplier: i32::MAX,
        shift: 1,
        act_min: -32768,
        act_max: 32767,
    };
    assert_eq!(MulLanes::of_s16(&q), None);
    // Through the kernel, in place and apart.
    let q = AddQuant {
        input1_offset: 0,
        input2_offset: 0,
        output_offset: 0,
        left_shift: 15,
        input1_multiplier: 1 << 30,
        input1_shift: 0,
        input2_multiplier: 1_500_000_000,
        input2_shift: -2,
        output_multiplier: 1_800_000_000,
        output_shift: -15,
        act_min: -32768,
        act_max: 32767,
    };
    let a: [i16; 37] = core::array::from_fn(|k| (k as i32 * 1771 - 32768) as i16);
    let b: [i16; 37] = core::array::from_fn(|k| (32767 - k as i32 * 1500) as i16);
    let want: Vec<i16> = a.iter().zip(&b).map(|(&x, &y)| q.add::<i16>(x, y)).collect();
    let lanes = AddLanes::of_s16(&q, false);
    assert!(lanes.is_some());
    let mut out = [0i16; 37];
    binary_lanes::<_, 37, _, _, _>(sep(&a, &mut out), &b, None, true, lanes, |x, y| q.add::<i16>(x, y));
    assert_eq!(out[..], want[..]);
    let mut buf = b;
    binary_lanes::<_, 37, _, _, _>(InPlace { buf: &mut buf, input: 0, output: 0 }, &a, None, false, lanes, |x, y| {
        q.add::<i16>(x, y)
    });
    assert_eq!(buf[..], want[..]);
}

/// The vector depthwise kernel (Helium's, here its portable twin: groups
/// of 8 channels, even and odd lanes, `layout::pack_depthwise_vector`)
/// gives the direct kernel's bytes: SAME padding, stride and dilation,
/// 8 and 24 channels, output zero points that nudge and that do not.
#[test]
fn depthwise_vector_matches_direct() {
    use tinyaot::__private::kernels::depthwise::depthwise_vector_s8;
    use tinyaot::__private::kernels::layout::pack_depthwise_vector;
    fn check<const C: usize>(seed: u32) {
        let input: Vec<i8> = (0..5 * 4 * C).map(|i| ((i as u32 * 73 + 11 + seed) % 256) as u8 as i8).collect();
        let filter: Vec<i8> = (0..9 * C).map(|i| ((i as u32 * 29 + 5 + seed) % 255) as u8 as i8).collect();
        let bias: Vec<i32> = (0..C as i32).map(|c| c * 300 - 700).collect();
        let mult: Vec<i32> = (0..C as i32).map(|c| 1_100_000_000 + c * 37_000_000).collect();
        let shift: Vec<i32> = (0..C as i32).map(|c| -7 - c % 3).collect();
        for (input_offset, output_offset) in [(37, -5), (-20, -128), (128, 127)] {
            let folded: Vec<i32> = (0..C)
                .map(|c| bias[c] + input_offset * (0..9).map(|t| filter[t * C + c] as i32).sum::<i32>())
                .collect();
            let down: Vec<[i32; 4]> =
                (0..C).map(|c| down_scale_of(mult[c], shift[c], output_offset).unwrap()).collect();
            let stream: Vec<u32> = pack_depthwise_vector(&filter, &folded, &down, 9, C).collect();
            let q =
                Requant { input_offset, output_offset, multiplier: &mult, shift: &shift, act_min: -128, act_max: 127 };
            macro_rules! case {
                ($oh:literal, $ow:literal, $win:expr) => {{
                    let (mut want, mut got) = (vec![0i8; $oh * $ow * C], vec![0i8; $oh * $ow * C]);
                    depthwise::<i32, _, 1, 5, 4, C, $oh, $ow, 1, 3, 3, _>(
                        sep(&input, &mut want),
                        filter.as_slice(),
                        Some(&bias),
                        $win,
                        &q,
                    );
                    depthwise_vector_s8::<1, 5, 4, C, $oh, $ow, 3, 3, _>(
                        sep(&input, &mut got),
                        &stream,
                        $win,
                        input_offset,
                        output_offset,
                    );
                    assert_eq!(got, want, "C {C}, offsets {input_offset} {output_offset}");
                }};
            }
            case!(5, 4, &Window { pad_top: 1, pad_left: 1, ..UNIT });
            case!(3, 3, &Window { pad_top: 2, pad_left: 1, stride_h: 2, dilation_h: 2, dilation_w: 2, ..UNIT });
        }
    }
    // Channel counts of whole groups of 8 and with a partial last group.
    check::<13>(7);
    if !cfg!(miri) {
        check::<8>(0);
        check::<24>(91);
        check::<5>(3);
    }
}

/// The pixel-pair convolutions (`conv2d_pairs_s8` over pair rows and byte
/// rows, `conv2d_pointwise_pairs_s8`) and the one-pixel kernel give the
/// direct kernel's bytes, with a whole block of 4 rows and a tail of 2:
/// a padded strided window, a window whose rows are widened straight from
/// the image, and a dense pointwise layer; in place too for the last.
#[test]
fn pair_kernels_match_direct_conv() {
    use tinyaot::__private::kernels::conv::{conv2d_im2col_s8, conv2d_pairs_s8, conv2d_pointwise_pairs_s8};
    use tinyaot::__private::kernels::layout::{depth4, pack_pair_rows, pack_rows};
    const OC: usize = 6;
    let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
    let (input_offset, output_offset) = (19, -7);
    let mult: Vec<i32> = (0..OC as i32).map(|c| 1_100_000_000 + c * 23_000_000).collect();
    let shift: Vec<i32> = (0..OC as i32).map(|c| -7 - c % 3).collect();
    let down: Vec<[i32; 4]> = (0..OC).map(|c| down_scale_of(mult[c], shift[c], output_offset).unwrap()).collect();
    let r = Rescale { input_offset, output_offset, scales: Scales::Down(&down), act_min: -128, act_max: 127 };
    let q = Requant { input_offset, output_offset, multiplier: &mult, shift: &shift, act_min: -128, act_max: 127 };
    // (input, filter rows) of a layer; its rows packed as bytes and as
    // pair rows, and the biases with the input offset folded in.
    let mut layer = |pixels: usize, depth: usize| {
        let input: Vec<i8> = (0..pixels).map(|_| next() as i8).collect();
        let filter: Vec<i8> = (0..OC * depth).map(|_| next() as i8).collect();
        let bias: Vec<i32> = (0..OC).map(|_| (next() % 4001) as i32 - 2000).collect();
        let (mut bytes, mut lanes) = (vec![0i8; OC * depth4(depth)], vec![0i8; OC * depth4(depth)]);
        pack_rows(&filter, OC, depth, &mut bytes);
        pack_pair_rows(&filter, OC, depth, &mut lanes);
        let folded: Vec<i32> = (0..OC)
            .map(|c| bias[c] + input_offset * filter[c * depth..(c + 1) * depth].iter().map(|&w| w as i32).sum::<i32>())
            .collect();
        (input, filter, bias, bytes, lanes, folded)
    };

    // 3x3 windows of 3 channels, stride 2 down, padded (patches only).
    let win = Window { pad_top: 1, pad_left: 1, stride_h: 2, ..UNIT };
    let (input, filter, bias, bytes, lanes, folded) = layer(5 * 4 * 3, 27);
    let mut want = vec![0i8; 3 * 4 * OC];
    conv2d::<i32, _, 1, 5, 4, 3, 3, 4, OC, 3, 3, 3, _>(
        sep(&input, &mut want),
        filter.as_slice(),
        Some(&bias),
        &win,
        &q,
    );
    let mut patch = [0i8; 28];
    for (name, lanes_layout) in [("pair rows", true), ("byte rows", false)] {
        let mut got = vec![0i8; want.len()];
        let io = sep(&input, &mut got);
        match lanes_layout {
            true => conv2d_pairs_s8::<1, 5, 4, 3, 3, 4, OC, 3, 3, 28, true, true, true, _>(
                io, &lanes, &folded, &win, &r, &mut patch,
            ),
            false => conv2d_pairs_s8::<1, 5, 4, 3, 3, 4, OC, 3, 3, 28, true, false, true, _>(
                io, &bytes, &folded, &win, &r, &mut patch,
            ),
        }
        assert_eq!(got, want, "3x3x3 windows, {name}");
    }

    // 3x3 windows of 8 channels, SAME: inner windows widened from the rows.
    let win = Window { pad_top: 1, pad_left: 1, ..UNIT };
    let (input, filter, bias, bytes, lanes, folded) = layer(5 * 4 * 8, 72);
    let mut want = vec![0i8; 5 * 4 * OC];
    conv2d::<i32, _, 1, 5, 4, 8, 5, 4, OC, 3, 3, 8, _>(
        sep(&input, &mut want),
        filter.as_slice(),
        Some(&bias),
        &win,
        &q,
    );
    let mut patch = [0i8; 72];
    let mut got = vec![0i8; want.len()];
    conv2d_pairs_s8::<1, 5, 4, 8, 5, 4, OC, 3, 3, 72, true, true, true, _>(
        sep(&input, &mut got),
        &lanes,
        &folded,
        &win,
        &r,
        &mut patch,
    );
    assert_eq!(got, want, "3x3x8 windows, pair rows");
    let mut got = vec![0i8; want.len()];
    conv2d_im2col_s8::<1, 5, 4, 8, 5, 4, OC, 3, 3, 72, true, _>(
        sep(&input, &mut got),
        &bytes[..],
        &folded,
        &win,
        &r,
        &mut patch,
    );
    assert_eq!(got, want, "3x3x8 windows, one pixel at a time");

    // Dense pointwise, 8 channels in, an odd count of pixels.
    let (input, filter, bias, bytes, lanes, folded) = layer(5 * 3 * 8, 8);
    let mut want = vec![0i8; 5 * 3 * OC];
    conv2d::<i32, _, 1, 5, 3, 8, 5, 3, OC, 1, 1, 8, _>(
        sep(&input, &mut want),
        filter.as_slice(),
        Some(&bias),
        &UNIT,
        &q,
    );
    let mut got = vec![0i8; want.len()];
    conv2d_pointwise_pairs_s8::<15, 8, OC, true, _>(sep(&input, &mut got), &lanes, &folded, &r);
    assert_eq!(got, want, "dense pointwise");
    for (name, rows) in [("pair rows", &lanes), ("byte rows", &bytes)] {
        let mut got = vec![0i8; want.len()];
        let io = sep(&input, &mut got);
        match name {
            "pair rows" => conv2d_pairs_s8::<1, 5, 3, 8, 5, 3, OC, 1, 1, 8, true, true, true, _>(
                io,
                rows,
                &folded,
                &UNIT,
                &r,
                &mut [],
            ),
            _ => conv2d_pairs_s8::<1, 5, 3, 8, 5, 3, OC, 1, 1, 8, true, false, true, _>(
                io,
                rows,
                &folded,
                &UNIT,
                &r,
                &mut [],
            ),
        }
        assert_eq!(got, want, "pointwise pairs, {name}");
    }
    // In place, the output one pixel before the input (the planner's slack).
    let mut buf = vec![0i8; OC + input.len()];
    buf[OC..].copy_from_slice(&input);
    conv2d_pointwise_pairs_s8::<15, 8, OC, true, _>(
        InPlace { buf: &mut buf, input: OC, output: 0 },
        &lanes,
        &folded,
        &r,
    );
    assert_eq!(&buf[..want.len()], &want[..], "dense pointwise in place");
}

/// int32 POW is C++'s `std::pow` in double converted back (LiteRT's): the
/// exact power inside the int32 range, `i32::MIN` outside it, 0 for a
/// negative exponent (which LiteRT refuses).
/// LiteRT's int32 POW by a one-value exponent of another shape: repeated
/// int32 products for exponents of 1 or more (wrapping: 9^11 is 1316288537
/// from LiteRT), the double power otherwise.
#[test]
fn pow_i32_scalar_exponent_wraps_its_products() {
    use tinyaot::__private::kernels::binary::{pow_i32, pow_i32_scalar_exponent};
    let cases = [
        (5, 3, 125),
        (9, 11, 1_316_288_537),
        (-9, 11, -1_316_288_537),
        (2, 31, i32::MIN),
        (2, 32, 0),
        (3, 40, 3i32.wrapping_pow(40)),
        (-1, i32::MAX, -1),
        (7, 1, 7),
    ];
    for (base, exponent, want) in cases {
        assert_eq!(pow_i32_scalar_exponent(base, exponent), want, "{base} ** {exponent}");
    }
    for (base, exponent) in [(9, 0), (0, 0), (4, -1), (-3, -2)] {
        assert_eq!(pow_i32_scalar_exponent(base, exponent), pow_i32(base, exponent), "{base} ** {exponent}");
    }
}

#[test]
fn pow_i32_is_the_double_power_converted() {
    use tinyaot::__private::kernels::binary::pow_i32;
    let bases = [-70_000, -65_536, -50, -9, -3, -2, -1, 0, 1, 2, 3, 9, 46_341, i32::MIN, i32::MAX];
    let exponents = [0, 1, 2, 3, 5, 16, 30, 31, 32, 63, 1_000_000, i32::MAX];
    // The exact power by repeated products (not `powf`, which Miri
    // perturbs); past 2^31 in magnitude it stays past, as |b| >= 2.
    let exact = |b: i32, e: i32| -> i32 {
        match b {
            0 => return i32::from(e == 0),
            1 => return 1,
            -1 => return if e % 2 == 0 { 1 } else { -1 },
            _ => {}
        }
        let mut power = 1i64;
        for _ in 0..e {
            power *= i64::from(b);
            if power.abs() > 1 << 31 {
                return i32::MIN;
            }
        }
        i32::try_from(power).unwrap_or(i32::MIN)
    };
    for &b in &bases {
        for &e in &exponents {
            assert_eq!(pow_i32(b, e), exact(b, e), "{b} ** {e}");
        }
        assert_eq!(pow_i32(b, -1), 0);
    }
}

/// The plain family's two-pixel kernel (`conv2d_two_s8`: both pixels'
/// rows copied, each weight byte read once for both) gives the one-pixel
/// kernel's bytes: padded windows with strides, an odd pixel count, output
/// channels past the blocks of 4, a pointwise layer whose input depth is
/// not a multiple of 4, and in place with the output one pixel before the
/// input (the planner's slack: the second pixel's output covers the
/// first's input).
#[test]
fn two_pixel_conv_matches_one_pixel_conv() {
    use tinyaot::__private::kernels::conv::{conv2d_im2col_s8, conv2d_two_s8, pack_rows};
    use tinyaot::__private::kernels::layout::depth4;
    let bytes = |n: usize, a: usize, b: usize| -> Vec<i8> { (0..n).map(|i| ((i * a + b) % 256) as u8 as i8).collect() };
    macro_rules! check {
        ($ih:literal, $iw:literal, $ic:literal, $oh:literal, $ow:literal, $oc:literal, $kh:literal, $kw:literal,
         $win:expr, $in_place:expr) => {{
            const D4: usize = depth4($kh * $kw * $ic);
            let win: Window = $win;
            let input = bytes($ih * $iw * $ic, 73, 11);
            let filter = bytes($oc * $kh * $kw * $ic, 29, 5);
            let mut packed = vec![0i8; $oc * D4];
            pack_rows(&filter, $oc, $kh * $kw * $ic, &mut packed);
            let bias: Vec<i32> = (0..$oc as i32).map(|c| c * 311 - 1500).collect();
            let down: Vec<[i32; 4]> = (0..$oc as i32)
                .map(|c| down_scale_of(1_100_000_000 + c * 13_000_000, -7 - c % 3, -3).unwrap())
                .collect();
            let r = Rescale {
                input_offset: 19,
                output_offset: -3,
                scales: Scales::Down(&down),
                act_min: -128,
                act_max: 127,
            };
            let mut want = vec![0i8; $oh * $ow * $oc];
            let mut patch = [0i8; D4];
            conv2d_im2col_s8::<1, $ih, $iw, $ic, $oh, $ow, $oc, $kh, $kw, D4, true, _>(
                sep(&input, &mut want),
                &packed[..],
                &bias,
                &win,
                &r,
                &mut patch,
            );
            let mut got = vec![0i8; $oh * $ow * $oc];
            conv2d_two_s8::<1, $ih, $iw, $ic, $oh, $ow, $oc, $kh, $kw, D4, _>(
                sep(&input, &mut got),
                &packed,
                &bias,
                &win,
                &r,
            );
            assert_eq!(got, want, "{}x{} window over {}x{}x{}, {} channels", $kh, $kw, $ih, $iw, $ic, $oc);
            if $in_place {
                let mut buf = vec![0i8; $ic + $ih * $iw * $ic];
                buf[$ic..].copy_from_slice(&input);
                conv2d_two_s8::<1, $ih, $iw, $ic, $oh, $ow, $oc, $kh, $kw, D4, _>(
                    InPlace { buf: &mut buf, input: $ic, output: 0 },
                    &packed,
                    &bias,
                    &win,
                    &r,
                );
                assert_eq!(&buf[..$oh * $ow * $oc], &want[..], "in place");
            }
        }};
    }
    let padded = Window { pad_top: 1, pad_left: 1, stride_h: 2, stride_w: 1, ..UNIT };
    check!(5, 4, 3, 3, 4, 6, 3, 3, padded, false);
    check!(5, 5, 2, 5, 5, 9, 3, 3, Window { pad_top: 1, pad_left: 1, ..UNIT }, false);
    check!(6, 5, 1, 3, 2, 8, 4, 3, Window { stride_h: 2, stride_w: 2, ..UNIT }, false);
    check!(3, 3, 5, 3, 3, 7, 1, 1, UNIT, false);
    check!(3, 3, 8, 3, 3, 8, 1, 1, UNIT, true);
    check!(4, 5, 12, 4, 5, 5, 1, 1, UNIT, true);
}

/// A 16x8 op's constants as the compiler emits them for int64 sums
/// (TFLite's 64-bit rescale's, folded).
fn folded64(multiplier: &[i32], shift: &[i32]) -> (Vec<i32>, Vec<i32>) {
    use tinyaot::__private::fixedpoint::reduce_multiplier_i64;
    multiplier.iter().zip(shift).map(|(&m, &s)| reduce_multiplier_i64(m, s)).unzip()
}

#[test]
fn conv_16x8_matches_the_reference_loop() {
    use tinyaot::__private::kernels::conv::conv2d_im2col_16x8;
    use tinyaot::__private::kernels::int16::Requant16;
    const OC: usize = 7;
    let mut next = xorshift(0x1234_5678);
    // Extremes half the time: 64-bit sums past the int32 range.
    let input: Vec<i16> = (0..5 * 6 * 3).map(|i| if i % 2 == 0 { i16::MIN } else { next() as i16 }).collect();
    let filter: Vec<i8> = (0..OC * 3 * 2 * 3).map(|i| if i % 3 == 0 { -128 } else { next() as i8 }).collect();
    let bias: Vec<i64> = (0..OC as i64).map(|c| (c - 3) << 33).collect();
    let (multiplier, shift) = folded64(&[1_518_500_250; OC], &[-20, -21, -22, -19, -20, -25, -18]);
    let q = Requant16 { multiplier: &multiplier, shift: &shift, act_min: -32768, act_max: 32767 };
    // Padded, strided and dilated windows: every tap case of the gather.
    for win in [
        Window { stride_h: 1, stride_w: 1, dilation_h: 1, dilation_w: 1, pad_top: 1, pad_left: 1 },
        Window { stride_h: 2, stride_w: 1, dilation_h: 1, dilation_w: 2, pad_top: 0, pad_left: 1 },
        Window { stride_h: 1, stride_w: 2, dilation_h: 2, dilation_w: 1, pad_top: 1, pad_left: 0 },
    ] {
        let (oh, ow) = (5, 6);
        let mut want = vec![0i16; oh * ow * OC];
        conv2d::<i64, _, 1, 5, 6, 3, 5, 6, OC, 3, 2, 3, _>(
            sep(&input, &mut want),
            &filter[..],
            Some(&bias[..]),
            &win,
            &q,
        );
        let mut got = vec![0i16; oh * ow * OC];
        let mut patch = vec![0i16; 18];
        conv2d_im2col_16x8::<i64, 1, 5, 6, 3, 5, 6, OC, 3, 2, _>(
            sep(&input, &mut got),
            &filter,
            Some(&bias),
            &win,
            &q,
            &mut patch,
        );
        assert_eq!(got, want, "{win:?}");
        // Saturated outputs and others, several values.
        let inside = want.iter().filter(|&&v| v != i16::MIN && v != i16::MAX).count();
        assert!(inside > 10 && inside < want.len(), "{want:?}");
    }
}

#[test]
fn fully_connected_16x8_sums_long_rows_exactly() {
    use tinyaot::__private::kernels::fully_connected::fully_connected_16x8;
    use tinyaot::__private::kernels::int16::Requant16;
    // Rows of 1100 values (past two 32-bit runs), the worst products
    // (2^22 each: the run sums are near 2^31) in some rows.
    const D: usize = 1100;
    const O: usize = 6;
    let mut next = xorshift(0x9e37_79b9);
    let input: Vec<i16> = (0..2 * D).map(|i| if i < D { i16::MIN } else { next() as i16 }).collect();
    let weights: Vec<i8> = (0..O * D).map(|i| if i < 2 * D { -128 } else { next() as i8 }).collect();
    let (multiplier, shift) = ([1_300_000_000; O], [-30, -31, -28, -27, -30, -29]);
    let (reduced, total_shift) = folded64(&multiplier, &shift);
    let q = Requant16 { multiplier: &reduced, shift: &total_shift, act_min: -32768, act_max: 32767 };
    let q32 = Requant16 { multiplier: &multiplier, shift: &shift, act_min: -32768, act_max: 32767 };
    let bias64: Vec<i64> = vec![-5, 7, 1 << 40, 0, 3, -(1 << 35)];
    let mut want = vec![0i16; 2 * O];
    fully_connected::<i64, _, 2, D, O>(&input, &weights, Some(&bias64), &q, &mut want);
    let mut got = vec![0i16; 2 * O];
    fully_connected_16x8::<i64, 2, D, O>(&input, &weights, Some(&bias64), &q, &mut got);
    assert_eq!(got, want);
    // int32 sums wrap as TFLite's do.
    let bias32: Vec<i32> = vec![-5, 7, 1 << 30, 0, 3, -(1 << 29)];
    fully_connected::<i32, _, 2, D, O>(&input, &weights, Some(&bias32), &q32, &mut want);
    fully_connected_16x8::<i32, 2, D, O>(&input, &weights, Some(&bias32), &q32, &mut got);
    assert_eq!(got, want);
    fully_connected::<i64, _, 2, D, 5>(&input, &weights, None, &q, &mut want);
    fully_connected_16x8::<i64, 2, D, 5>(&input, &weights, None, &q, &mut got);
    assert_eq!(got, want);
}

#[test]
fn depthwise_16x8_sums_match_the_reference_loop() {
    use tinyaot::__private::kernels::int16::Requant16;
    use tinyaot::__private::kernels::int16::Sums16;
    let mut next = xorshift(0x5151_7777);
    // 40 channels (a block of 32 and a partial one), multipliers 1 and 2.
    let input: Vec<i16> = (0..4 * 5 * 40).map(|i| if i % 5 == 0 { i16::MIN } else { next() as i16 }).collect();
    let filter: Vec<i8> = (0..3 * 3 * 80).map(|i| if i % 4 == 0 { -128 } else { next() as i8 }).collect();
    let bias: Vec<i64> = (0..80).map(|c| (c as i64 - 40) << 26).collect();
    let multiplier: Vec<i32> = (0..80).map(|c| 1_100_000_000 + c * 7_000_000).collect();
    let shift: Vec<i32> = (0..80).map(|c| -12 - (c % 5)).collect();
    let (reduced, total_shift) = folded64(&multiplier, &shift);
    let q = Requant16 { multiplier: &reduced, shift: &total_shift, act_min: -20000, act_max: 32767 };
    let q32 = Requant16 { multiplier: &multiplier, shift: &shift, act_min: -20000, act_max: 32767 };
    let win = Window { stride_h: 1, stride_w: 2, dilation_h: 2, dilation_w: 1, pad_top: 2, pad_left: 1 };
    let mut want = vec![0i16; 4 * 3 * 40];
    let mut got = vec![0i16; 4 * 3 * 40];
    depthwise::<i64, _, 1, 4, 5, 40, 4, 3, 1, 3, 3, _>(sep(&input, &mut want), &filter[..], Some(&bias[..]), &win, &q);
    depthwise::<i32, _, 1, 4, 5, 40, 4, 3, 1, 3, 3, _>(
        sep(&input, &mut got),
        &filter[..],
        None,
        &win,
        &Sums16::<i64> { q: &q, bias: Some(&bias[..]) },
    );
    assert_eq!(got, want);
    let inside = want.iter().filter(|&&v| v != -20000 && v != i16::MAX).count();
    assert!(inside > 20 && inside < want.len(), "{want:?}");
    let (mut want, mut got) = (vec![0i16; 4 * 3 * 80], vec![0i16; 4 * 3 * 80]);
    depthwise::<i64, _, 1, 4, 5, 40, 4, 3, 2, 3, 3, _>(sep(&input, &mut want), &filter[..], None, &win, &q);
    depthwise::<i32, _, 1, 4, 5, 40, 4, 3, 2, 3, 3, _>(
        sep(&input, &mut got),
        &filter[..],
        None,
        &win,
        &Sums16::<i64> { q: &q, bias: None },
    );
    assert_eq!(got, want);
    let bias32: Vec<i32> = (0..80).map(|c| (c - 40) << 20).collect();
    depthwise::<i32, _, 1, 4, 5, 40, 4, 3, 2, 3, 3, _>(
        sep(&input, &mut want),
        &filter[..],
        Some(&bias32[..]),
        &win,
        &q32,
    );
    let sums = Sums16::<i32> { q: &q32, bias: Some(&bias32[..]) };
    depthwise::<i32, _, 1, 4, 5, 40, 4, 3, 2, 3, 3, _>(sep(&input, &mut got), &filter[..], None, &win, &sums);
    assert_eq!(got, want);
}

#[test]
fn depthwise_m1_16x8_groups_match_the_reference_loop() {
    use tinyaot::__private::kernels::depthwise::depthwise_m1_16x8;
    use tinyaot::__private::kernels::int16::Requant16;
    // 20 channels: two groups of 8 and a partial one; padded, strided and
    // dilated windows, taps outside the image.
    let mut next = xorshift(0x0bad_cafe);
    let input: Vec<i16> = (0..5 * 6 * 20).map(|i| if i % 7 == 0 { i16::MAX } else { next() as i16 }).collect();
    let filter: Vec<i8> = (0..3 * 3 * 20).map(|_| next() as i8).collect();
    let bias: Vec<i64> = (0..20).map(|c| (c as i64 - 10) << 28).collect();
    let multiplier: Vec<i32> = (0..20).map(|c| 1_200_000_000 + c * 9_000_000).collect();
    let shift: Vec<i32> = (0..20).map(|c| -14 - (c % 3)).collect();
    let (reduced, total_shift) = folded64(&multiplier, &shift);
    let q = Requant16 { multiplier: &reduced, shift: &total_shift, act_min: -32768, act_max: 30000 };
    for win in [
        Window { stride_h: 1, stride_w: 1, dilation_h: 1, dilation_w: 1, pad_top: 1, pad_left: 1 },
        Window { stride_h: 2, stride_w: 1, dilation_h: 2, dilation_w: 2, pad_top: 2, pad_left: 0 },
    ] {
        let (mut want, mut got) = (vec![0i16; 5 * 6 * 20], vec![0i16; 5 * 6 * 20]);
        depthwise::<i64, _, 1, 5, 6, 20, 5, 6, 1, 3, 3, _>(
            sep(&input, &mut want),
            &filter[..],
            Some(&bias[..]),
            &win,
            &q,
        );
        depthwise_m1_16x8::<i64, 1, 5, 6, 20, 5, 6, 3, 3, _>(sep(&input, &mut got), &filter, Some(&bias), &win, &q);
        assert_eq!(got, want, "{win:?}");
        let inside = want.iter().filter(|&&v| v != i16::MIN && v != 30000).count();
        assert!(inside > 20 && inside < want.len(), "{want:?}");
    }
}
