//! SPACE_TO_DEPTH and DEPTH_TO_SPACE (NHWC, block size b), any dtype: each
//! is one 6-dimensional strided copy over (n, h, w, by, bx, c).

use crate::diag::Error;
use crate::lowering::context::OpCx;
use crate::lowering::movement::{BoxCopy, Movement, same_dtype};
use crate::lowering::operator::Operator;
use crate::lowering::options::positive;
use crate::tflite::fields::space_depth;

pub fn lower_space_to_depth(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    lower(cx, true)
}

pub fn lower_depth_to_space(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    lower(cx, false)
}

fn lower(cx: &OpCx<'_, '_>, to_depth: bool) -> Result<Box<dyn Operator>, Error> {
    cx.arity(1, 1, 1)?;
    let (tag, table) = if to_depth {
        (space_depth::SPACE_TO_DEPTH_TAG, "SpaceToDepthOptions")
    } else {
        (space_depth::DEPTH_TO_SPACE_TAG, "DepthToSpaceOptions")
    };
    let opts = cx.options(tag, table)?;
    let b = positive(cx, opts.as_ref(), space_depth::BLOCK_SIZE, 0, "block_size")?;
    let input = cx.input(0)?;
    let output = cx.output(0)?;
    same_dtype(cx, &[input], output)?;
    let [n, ih, iw, ic] = cx.nhwc(input, "input")?;
    // (n, h, w, by, bx, c) over the space side; `space` strides index the
    // tensor with the large H, W, `depth` strides the one with C * b * b.
    let (sh, sw, c) = if to_depth { (ih, iw, ic) } else { (ih * b, iw * b, ic / (b * b)) };
    if to_depth && (ih % b != 0 || iw % b != 0) || !to_depth && ic % (b * b) != 0 {
        return Err(cx.err(format!("shape {:?} does not divide by block size {b}", input.shape)));
    }
    let (dh, dw, dc) = (sh / b, sw / b, c * b * b);
    let space = [sh * sw * c, b * sw * c, b * c, sw * c, c, 1];
    let depth = [dh * dw * dc, dw * dc, dc, b * c, c, 1];
    let dims = [n, dh, dw, b, b, c];
    let expected = if to_depth { [n, dh, dw, dc] } else { [n, sh, sw, c] };
    cx.check_shape(output, &expected)?;
    let (src, dst) = if to_depth { (space, depth) } else { (depth, space) };
    let copy = BoxCopy {
        src: input.index,
        src_base: 0,
        dst: output.index,
        dst_base: 0,
        dims: (0..6).map(|k| (dims[k], src[k] as isize, dst[k] as isize)).collect(),
        map: None,
    };
    Ok(Box::new(Movement { fills: vec![], copies: vec![copy] }))
}
