//! RESIZE_NEAREST_NEIGHBOR (align_corners, half_pixel_centers), any dtype:
//! the source row and column of every output pixel are computed here with
//! TFLite's float formula and stored as two small tables.

use crate::diag::Error;
use crate::graph::Tensor;
use crate::lowering::context::OpCx;
use crate::lowering::emit::Emit;
use crate::lowering::movement::{const_ints, same_dtype};
use crate::lowering::operator::Operator;
use proc_macro2::TokenStream;
use quote::quote;

use crate::tflite::fields::resize_nearest_neighbor as field;

#[derive(Debug)]
struct Resize {
    input: usize,
    output: usize,
    dims: [usize; 4],
    ys: Vec<u32>,
    xs: Vec<u32>,
}

/// TFLite `GetNearestNeighbor`.
fn nearest(out: usize, in_size: usize, out_size: usize, align_corners: bool, half_pixel: bool) -> u32 {
    let scale = if align_corners && out_size > 1 {
        (in_size - 1) as f32 / (out_size - 1) as f32
    } else {
        in_size as f32 / out_size as f32
    };
    let offset = if half_pixel { 0.5f32 } else { 0.0 };
    let v = (out as f32 + offset) * scale;
    let v = if align_corners { v.round() as i64 } else { v.floor() as i64 };
    let v = v.min(in_size as i64 - 1);
    (if half_pixel { v.max(0) } else { v }).max(0) as u32
}

/// The checked input, output, input NHWC dims and output size of a resize
/// op (shared with RESIZE_BILINEAR).
#[allow(clippy::type_complexity)]
pub fn resize_io<'g, 'a>(cx: &OpCx<'g, 'a>) -> Result<(&'g Tensor<'a>, &'g Tensor<'a>, [usize; 4], [usize; 2]), Error> {
    cx.arity(2, 2, 1)?;
    let input = cx.input(0)?;
    let size = const_ints(cx, cx.input(1)?, "size")?;
    let output = cx.output(0)?;
    same_dtype(cx, &[input], output)?;
    let [n, ih, iw, c] = cx.nhwc(input, "input")?;
    let (oh, ow) = match size[..] {
        [h, w] if h > 0 && w > 0 && h <= 1 << 16 && w <= 1 << 16 => (h as usize, w as usize),
        _ => return Err(cx.err(format!("size must be two values in 1..=65536, found {size:?}"))),
    };
    if ih > 1 << 16 || iw > 1 << 16 {
        return Err(cx.err("the input is too large to resize"));
    }
    cx.check_shape(output, &[n, oh, ow, c])?;
    Ok((input, output, [n, ih, iw, c], [oh, ow]))
}

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    let o = cx.options(field::TAG, "ResizeNearestNeighborOptions")?;
    let align_corners = o.map(|o| o.scalar::<bool>(field::ALIGN_CORNERS, false)).transpose()?.unwrap_or(false);
    let half_pixel = o.map(|o| o.scalar::<bool>(field::HALF_PIXEL_CENTERS, false)).transpose()?.unwrap_or(false);
    let (input, output, [n, ih, iw, c], [oh, ow]) = resize_io(cx)?;
    let ys = (0..oh).map(|y| nearest(y, ih, oh, align_corners, half_pixel)).collect();
    let xs = (0..ow).map(|x| nearest(x, iw, ow, align_corners, half_pixel)).collect();
    Ok(Box::new(Resize { input: input.index, output: output.index, dims: [n, ih, iw, c], ys, xs }))
}

impl Operator for Resize {
    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        let [n, ih, iw, c] = self.dims;
        let input = cx.read(self.input)?;
        let output = cx.write(self.output)?;
        let to_bytes = |v: &[u32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        let ys = cx.bytes(&to_bytes(&self.ys));
        let xs = cx.bytes(&to_bytes(&self.xs));
        Ok(quote!(::tinyaot::__private::kernels::movement::resize_nearest::<_, #n, #ih, #iw, #c>(
            #input, #output, #ys.cast::<u32>(), #xs.cast::<u32>());))
    }
}
