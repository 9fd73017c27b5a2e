//! Small kernel cases with hand-checked answers. Also the Miri suite:
//! `cargo +nightly miri test -p tinyaot` runs these through the arena views.

use tinyaot::kernels::binary::{AddQuant, binary, binary_broadcast};
use tinyaot::kernels::conv::{Window, conv2d_f32, conv2d_s8};
use tinyaot::kernels::depthwise::depthwise_s8;
use tinyaot::kernels::fully_connected::{fully_connected_f32, fully_connected_s8};
use tinyaot::kernels::pool::{Pool, avg_pool_q, max_pool_f32};
use tinyaot::kernels::reduce::{Reduction, mean_f32};
use tinyaot::kernels::softmax::{SoftmaxQuant, softmax_f32, softmax_s8};
use tinyaot::kernels::{InPlace, Requant, Separate, Strided6};

fn sep<'a, T>(input: &'a [T], output: &'a mut [T]) -> Separate<'a, T> {
    Separate { input, output }
}
use tinyaot::{Aligned, Arena, TakeOnce, arena};

const UNIT: Window = Window { stride_h: 1, stride_w: 1, dilation_h: 1, dilation_w: 1, pad_top: 0, pad_left: 0 };
const ONE_M: [i32; 4] = [1 << 30; 4]; // 0.5 with shift 1 = 1.0
const ONE_S: [i32; 4] = [1; 4];

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
    conv2d_s8::<1, 3, 3, 1, 3, 3, 1, 3, 3, 1, _>(sep(&input, &mut out), &filter, None, &win, &identity(-128, 127));
    assert_eq!(out, [4, 6, 4, 6, 9, 6, 4, 6, 4]);
}

#[test]
fn conv_s8_applies_offsets_bias_and_clamp() {
    let input = [10i8, 20];
    let filter = [1i8, 2, -1, -1]; // 2 output channels, 1x1, depth 2
    let bias = [5i32, 0];
    let q = Requant { input_offset: 1, output_offset: -3, ..identity(-20, 40) };
    let mut out = [0i8; 2];
    conv2d_s8::<1, 1, 1, 2, 1, 1, 2, 1, 1, 2, _>(sep(&input, &mut out), &filter, Some(&bias), &UNIT, &q);
    // ch0: 11*1 + 21*2 + 5 = 58 -> -3 -> 55 -> clamp 40; ch1: -11 - 21 = -32 -> -35 -> clamp -20.
    assert_eq!(out, [40, -20]);
}

#[test]
fn grouped_conv_reads_its_group_only() {
    let input = [1i8, 2, 3, 4]; // 1x1, 4 channels, 2 groups of 2
    let filter = [1i8, 1, 1, 1]; // 2 output channels, each over its 2 channels
    let mut out = [0i8; 2];
    conv2d_s8::<1, 1, 1, 4, 1, 1, 2, 1, 1, 2, _>(sep(&input, &mut out), &filter, None, &UNIT, &identity(-128, 127));
    assert_eq!(out, [3, 7]);
}

#[test]
fn conv_f32_dilation_skips_taps() {
    // 1x5 input, 1x2 filter dilated by 3: out[x] = in[x] + 2*in[x+3].
    let input = [1.0f32, 2.0, 3.0, 4.0, 5.0];
    let filter = [1.0f32, 2.0];
    let mut out = [0.0f32; 2];
    let win = Window { dilation_w: 3, ..UNIT };
    conv2d_f32::<1, 1, 5, 1, 1, 2, 1, 1, 2, 1, _>(sep(&input, &mut out), &filter, None, &win, f32::MIN, f32::MAX);
    assert_eq!(out, [9.0, 12.0]);
}

#[test]
fn depthwise_multiplier_interleaves_channels() {
    let input = [1i8, 2]; // 1x1x2
    let filter = [1i8, 10, 100, -1]; // 1x1x(2*2)
    let mut out = [0i8; 4];
    depthwise_s8::<1, 1, 1, 2, 1, 1, 2, 1, 1, _>(sep(&input, &mut out), &filter, None, &UNIT, &identity(-128, 127));
    assert_eq!(out, [1, 10, 127, -2]);
}

#[test]
fn fully_connected_rows() {
    let input = [1i8, 2, 3, 4];
    let weights = [1i8, 1, -1, 2];
    let mut out = [0i8; 4];
    fully_connected_s8::<2, 2, 2>(&input, &weights, None, 0, &identity(-128, 127), &mut out);
    assert_eq!(out, [3, 3, 7, 5]);
    let mut outf = [0.0f32; 2];
    fully_connected_f32::<1, 2, 2>(&[1.0, 2.0], &[1.0, 1.0, -1.0, 2.0], Some(&[0.5, 0.0]), 0.0, f32::MAX, &mut outf);
    assert_eq!(outf, [3.5, 3.0]);
}

#[test]
fn average_pool_rounds_half_away_from_zero() {
    // 2x2 window over [1, 2, 2, 2] = 7/4 = 1.75 -> 2; over negatives -7/4 -> -2.
    let p = Pool { filter_h: 2, filter_w: 2, win: Window { stride_h: 2, stride_w: 2, ..UNIT } };
    let mut out = [0i8; 1];
    avg_pool_q::<i8, 1, 2, 2, 1, 1, 1, _>(sep(&[1, 2, 2, 2], &mut out), &p, -128, 127);
    assert_eq!(out, [2]);
    avg_pool_q::<i8, 1, 2, 2, 1, 1, 1, _>(sep(&[-1, -2, -2, -2], &mut out), &p, -128, 127);
    assert_eq!(out, [-2]);
    avg_pool_q::<i8, 1, 2, 2, 1, 1, 1, _>(sep(&[1, 2, 1, 2], &mut out), &p, -128, 127); // 1.5 -> 2
    assert_eq!(out, [2]);
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
fn add_elementwise_and_broadcast() {
    let q = unit_add();
    let mut out = [0i8; 4];
    binary::<i8, 4, _, _>(sep(&[1, 2, 3, 100], &mut out), &[10, 20, 30, 100], true, |x, y| q.add(x, y));
    assert_eq!(out, [11, 22, 33, 127]);
    // [2, 2] + [2] (broadcast along rows).
    let shape = Strided6 { dims: [1, 1, 1, 1, 2, 2], a: [0, 0, 0, 0, 2, 1], b: [0, 0, 0, 0, 0, 1] };
    binary_broadcast::<i8, 4, _, _>(sep(&[1, 2, 3, 4], &mut out), &[10, 20], &shape, true, |x, y| q.add(x, y));
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
    let (x, y) = unsafe { (arena::view_mut::<i32>(base, 0, 4), arena::view_mut::<f32>(base, 16, 4)) };
    x.copy_from_slice(&[1, 2, 3, 4]);
    y.copy_from_slice(&[0.5; 4]);
    // SAFETY: the mutable views above are no longer used.
    let x = unsafe { arena::view::<i32>(base, 0, 4) };
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
    depthwise_s8::<1, 5, 4, 3, 5, 4, 1, 3, 3, _>(sep(&input, &mut want), &filter, None, &win, &q);
    let mut buf = [0i8; 78];
    buf[18..].copy_from_slice(&input);
    depthwise_s8::<1, 5, 4, 3, 5, 4, 1, 3, 3, _>(
        InPlace { buf: &mut buf, input: 18, output: 0 },
        &filter,
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
    binary::<i8, 16, _, _>(sep(&a, &mut want), &b, false, |x, y| q.sub(x, y));
    let mut buf = a.clone();
    binary::<i8, 16, _, _>(InPlace { buf: &mut buf, input: 0, output: 0 }, &b, false, |x, y| q.sub(x, y));
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
    use tinyaot::kernels::conv::conv2d_im2col_s8;
    let input: Vec<i8> = (0..5 * 4 * 3).map(|i| ((i * 73 + 11) % 256) as u8 as i8).collect();
    let filter: Vec<i8> = (0..2 * 3 * 3 * 3).map(|i| ((i * 29 + 5) % 255) as u8 as i8).collect();
    let bias = [1000i32, -777];
    let mult = [1_300_000_000i32, 1_100_000_000];
    let shift = [-8i32, -9];
    let q =
        Requant { input_offset: 37, output_offset: -5, multiplier: &mult, shift: &shift, act_min: -128, act_max: 127 };
    let win = Window { pad_top: 1, pad_left: 1, stride_h: 2, stride_w: 1, ..UNIT };
    let mut want = [0i8; 3 * 4 * 2];
    conv2d_s8::<1, 5, 4, 3, 3, 4, 2, 3, 3, 3, _>(sep(&input, &mut want), &filter, Some(&bias), &win, &q);
    let folded: Vec<i32> = (0..2)
        .map(|c| bias[c] + q.input_offset * filter[c * 27..(c + 1) * 27].iter().map(|&w| w as i32).sum::<i32>())
        .collect();
    let mut got = [0i8; 3 * 4 * 2];
    let mut patch = [0i8; 27];
    conv2d_im2col_s8::<1, 5, 4, 3, 3, 4, 2, 3, 3, _>(sep(&input, &mut got), &filter, &folded, &win, &q, &mut patch);
    assert_eq!(got, want);
}

#[test]
fn dot_i8_matches_naive() {
    use tinyaot::kernels::conv::dot_i8;
    for n in [0usize, 1, 3, 4, 7, 64, 67] {
        let a: Vec<i8> = (0..n).map(|i| ((i * 91 + 3) % 256) as u8 as i8).collect();
        let b: Vec<i8> = (0..n).map(|i| ((i * 57 + 200) % 256) as u8 as i8).collect();
        let naive: i32 = a.iter().zip(&b).map(|(&x, &y)| x as i32 * y as i32).sum();
        assert_eq!(dot_i8(&a, &b), naive, "n = {n}");
    }
}
