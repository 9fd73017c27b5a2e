//! SPACE_TO_BATCH_ND and BATCH_TO_SPACE_ND (NHWC, or NHC with one spatial
//! dimension), float32 and int8 as TFLM: block shape, paddings and crops
//! from int32 constants. One box copy per block offset and batch. The
//! padding of SPACE_TO_BATCH_ND is 0.0, or the output zero point for int8
//! as TFLite defines it: TFLM's kernel leaves its pad value uninitialized
//! (its padding is whatever that memory held, float32 too; the
//! differential suite saw 1, 2, 4, 7, -93 in int8), so no choice could
//! match it, and the suite compares unpadded cases only.

use crate::diag::Error;
use crate::graph::{DType, Tensor};
use crate::lowering::context::OpCx;
use crate::lowering::movement::{Movement, const_ints, gather_boxes, same_dtype, strides, zero_literal};
use crate::lowering::operator::Operator;

pub fn lower_space_to_batch(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    lower(cx, true)
}

pub fn lower_batch_to_space(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    lower(cx, false)
}

/// `[batch, height, width, depth]` of a rank-3 (NHC, width 1) or rank-4 tensor.
fn nhwc(cx: &OpCx<'_, '_>, t: &Tensor<'_>) -> Result<[usize; 4], Error> {
    match t.shape.as_slice() {
        &[n, h, c] => Ok([n, h, 1, c]),
        &[n, h, w, c] => Ok([n, h, w, c]),
        s => Err(cx.err(format!("'{}' must have rank 3 or 4 (TFLM's range), it has shape {s:?}", t.name))),
    }
}

fn lower(cx: &OpCx<'_, '_>, to_batch: bool) -> Result<Box<dyn Operator>, Error> {
    cx.arity(3, 3, 1)?;
    let input = cx.input(0)?;
    let output = cx.output(0)?;
    same_dtype(cx, &[input], output)?;
    if !matches!(input.dtype, DType::F32 | DType::I8) {
        return Err(cx.unsupported(&format!("dtype {}", input.dtype.name()), "float32, int8"));
    }
    let spatial = input.shape.len().saturating_sub(2);
    let block = const_ints(cx, cx.input(1)?, "block shape")?;
    let pads = const_ints(cx, cx.input(2)?, if to_batch { "paddings" } else { "crops" })?;
    if block.len() != spatial || block.iter().any(|&b| !(1..=1 << 16).contains(&b)) {
        return Err(cx.err(format!("the block shape must be {spatial} positive values, found {block:?}")));
    }
    if pads.len() != 2 * spatial || pads.iter().any(|&p| !(0..=1 << 24).contains(&p)) {
        return Err(cx.err(format!("the paddings must be {spatial}x2 non-negative values, found {pads:?}")));
    }
    let [n, h, w, c] = nhwc(cx, input)?;
    let (bh, bw) = (block[0] as usize, block.get(1).map_or(1, |&b| b as usize));
    let (top, left) = (pads[0] as usize, pads.get(2).map_or(0, |&p| p as usize));
    let (bottom, right) = (pads[1] as usize, pads.get(3).map_or(0, |&p| p as usize));
    // The space side (big) and the batch side (blocked) of the op.
    let (space, batch) = if to_batch { (input, output) } else { (output, input) };
    let [sn, sh, sw, _] = nhwc(cx, space)?;
    let expected = if to_batch {
        if (h + top + bottom) % bh != 0 || (w + left + right) % bw != 0 {
            return Err(cx.err("the padded spatial size is not a multiple of the block shape"));
        }
        [n * bh * bw, (h + top + bottom) / bh, (w + left + right) / bw, c]
    } else {
        if n % (bh * bw) != 0 || h * bh < top + bottom || w * bw < left + right {
            return Err(cx.err("the batch is not a multiple of the block size, or the crops exceed the size"));
        }
        [n / (bh * bw), h * bh - top - bottom, w * bw - left - right, c]
    };
    let expected_shape: Vec<usize> =
        if input.shape.len() == 3 { vec![expected[0], expected[1], expected[3]] } else { expected.to_vec() };
    cx.check_shape(output, &expected_shape)?;
    let [bn, bh_out, bw_out, _] = nhwc(cx, batch)?;
    let (space_st, batch_st) = (strides(&[sn, sh, sw, c]), strides(&[bn, bh_out, bw_out, c]));
    let mut copies = Vec::new();
    for by in 0..bh {
        for bx in 0..bw {
            for b in 0..sn {
                // Batch row `(by * bw + bx) * sn + b`, pixel (y, x) holds
                // space pixel (y * bh + by - top, x * bw + bx - left).
                let at = |i: usize, step: usize, shift: usize, pad: usize, size: usize| {
                    (i * step + shift).checked_sub(pad).filter(|&s| s < size)
                };
                let ys: Vec<Option<usize>> = (0..bh_out).map(|y| at(y, bh, by, top, sh)).collect();
                let xs: Vec<Option<usize>> = (0..bw_out).map(|x| at(x, bw, bx, left, sw)).collect();
                let row = (by * bw + bx) * sn + b;
                let (batch_base, space_base) = (row * batch_st[0], b * space_st[0]);
                let channels: Vec<Option<usize>> = (0..c).map(Some).collect();
                if to_batch {
                    let maps = [ys, xs, channels];
                    copies.extend(gather_boxes(
                        (space.index, space_base, &space_st[1..]),
                        (batch.index, batch_base, &batch_st[1..]),
                        &maps,
                    ));
                } else {
                    // The inverse: space pixel from batch pixel, the same runs.
                    let inverse = |map: &[Option<usize>], size: usize| {
                        let mut inv = vec![None; size];
                        for (i, s) in map.iter().enumerate() {
                            if let Some(s) = s {
                                inv[*s] = Some(i);
                            }
                        }
                        inv
                    };
                    let maps = [inverse(&ys, sh), inverse(&xs, sw), channels];
                    copies.extend(gather_boxes(
                        (batch.index, batch_base, &batch_st[1..]),
                        (space.index, space_base, &space_st[1..]),
                        &maps,
                    ));
                }
            }
        }
    }
    let zero_point = output.quant.as_ref().map_or(0, |q| q.zero_point());
    let fills = if to_batch { vec![(output.index, zero_literal(output.dtype, zero_point))] } else { Vec::new() };
    Ok(Box::new(Movement { fills, copies }))
}
