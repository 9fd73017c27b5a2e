//! RESIZE_BILINEAR (align_corners, half_pixel_centers): float32 and int8,
//! as TFLM. The source rows and columns of every output pixel and their
//! interpolation weights are computed here with TFLite's formulas (float
//! for float32, TFLite's 10-bit fixed point for int8) and stored as small
//! tables; the kernel only blends.

use super::resize_nearest_neighbor::resize_io;
use crate::diag::Error;
use crate::graph::DType;
use crate::lowering::context::OpCx;
use crate::lowering::emit::Emit;
use crate::lowering::operator::Operator;
use proc_macro2::TokenStream;
use quote::quote;

use crate::tflite::fields::resize_bilinear as field;

/// For each output row (or column): lower and upper source index and the
/// weight of the upper one.
#[derive(Debug)]
struct Taps<W> {
    lo: Vec<i32>,
    hi: Vec<i32>,
    w: Vec<W>,
}

#[derive(Debug)]
struct ResizeBilinear {
    input: usize,
    output: usize,
    dims: [usize; 4],
    out: [usize; 2],
    taps: Form,
}

/// The arithmetic: TFLite's integer one (int8), its float one (float32),
/// or its float one on a uint8 model's values, rounded (LiteRT's uint8
/// `reference_ops::ResizeBilinear`; on the int8 values `q - 128` the
/// uint8 pass gives).
#[derive(Debug)]
enum Form {
    Integer([Taps<i32>; 2]),
    Float([Taps<f32>; 2]),
    Uint8([Taps<f32>; 2]),
}

/// TFLite `ComputeInterpolationValues` (float) along one axis.
fn float_taps(in_size: usize, out_size: usize, align_corners: bool, half_pixel: bool) -> Taps<f32> {
    let scale = if align_corners && out_size > 1 {
        (in_size - 1) as f32 / (out_size - 1) as f32
    } else {
        in_size as f32 / out_size as f32
    };
    let mut t = Taps { lo: vec![], hi: vec![], w: vec![] };
    for o in 0..out_size {
        let v = if half_pixel { (o as f32 + 0.5) * scale - 0.5 } else { o as f32 * scale };
        let lo = (v.floor() as i32).max(0);
        let hi = (v.ceil() as i32).min(in_size as i32 - 1);
        t.lo.push(lo);
        t.hi.push(hi);
        t.w.push(v - lo as f32);
    }
    t
}

/// TFLite `ComputeInterpolationValuesInteger` (10 fractional bits).
fn integer_taps(in_size: usize, out_size: usize, align_corners: bool, half_pixel: bool) -> Taps<i32> {
    let (i, o) = (in_size as i32, out_size as i32);
    let scale = if align_corners && o > 1 {
        ((1 << 10) * (i - 1) + (o - 1) / 2) / (o - 1)
    } else {
        ((1 << 10) * i + o / 2) / o
    };
    let mut t = Taps { lo: vec![], hi: vec![], w: vec![] };
    for v in 0..o {
        let scaled = if half_pixel { v * scale + scale / 2 - (1 << 9) } else { v * scale };
        let lo = (scaled / (1 << 10)).max(0);
        let hi = ((scaled + (1 << 10) - 1) / (1 << 10)).min(i - 1);
        t.lo.push(lo);
        t.hi.push(hi);
        t.w.push(scaled - (1 << 10) * lo);
    }
    t
}

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    let o = cx.options(field::TAG, "ResizeBilinearOptions")?;
    let align_corners = o.map(|o| o.scalar::<bool>(field::ALIGN_CORNERS, false)).transpose()?.unwrap_or(false);
    let half_pixel = o.map(|o| o.scalar::<bool>(field::HALF_PIXEL_CENTERS, false)).transpose()?.unwrap_or(false);
    if align_corners && half_pixel {
        return Err(cx.err("align_corners and half_pixel_centers cannot both be set (TFLite rejects it)"));
    }
    let (input, output, [n, ih, iw, c], [oh, ow]) = resize_io(cx)?;
    let float = || [float_taps(ih, oh, align_corners, half_pixel), float_taps(iw, ow, align_corners, half_pixel)];
    let taps = match input.dtype {
        DType::I8 if cx.node.from_uint8 => Form::Uint8(float()),
        DType::I8 => {
            if input.quant != output.quant {
                return Err(cx.err("an int8 RESIZE_BILINEAR needs equal input and output quantization (as TFLM)"));
            }
            Form::Integer([
                integer_taps(ih, oh, align_corners, half_pixel),
                integer_taps(iw, ow, align_corners, half_pixel),
            ])
        }
        DType::F32 => Form::Float(float()),
        d => return Err(cx.unsupported(&d.name(), "int8, float32")),
    };
    Ok(Box::new(ResizeBilinear { input: input.index, output: output.index, dims: [n, ih, iw, c], out: [oh, ow], taps }))
}

fn emit_taps<W: Copy>(cx: &mut Emit<'_>, t: &Taps<W>, bytes: impl Fn(W) -> [u8; 4], ty: TokenStream) -> TokenStream {
    let lo = cx.i32s(&t.lo);
    let hi = cx.i32s(&t.hi);
    let w: Vec<u8> = t.w.iter().flat_map(|&w| bytes(w)).collect();
    let w = cx.bytes(&w);
    quote!(::tinyaot::__private::kernels::movement::Taps { lo: #lo, hi: #hi, w: #w.cast::<#ty>() })
}

impl Operator for ResizeBilinear {
    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        let [n, ih, iw, c] = self.dims;
        let [oh, ow] = self.out;
        let input = cx.read(self.input)?;
        let output = cx.write(self.output)?;
        let (f, ys, xs) = match &self.taps {
            Form::Integer([y, x]) => (
                quote!(resize_bilinear_s8),
                emit_taps(cx, y, i32::to_le_bytes, quote!(i32)),
                emit_taps(cx, x, i32::to_le_bytes, quote!(i32)),
            ),
            Form::Float([y, x]) | Form::Uint8([y, x]) => (
                if matches!(self.taps, Form::Float(_)) {
                    quote!(resize_bilinear_f32)
                } else {
                    quote!(resize_bilinear_u8_as_s8)
                },
                emit_taps(cx, y, f32::to_le_bytes, quote!(f32)),
                emit_taps(cx, x, f32::to_le_bytes, quote!(f32)),
            ),
        };
        Ok(
            quote!(::tinyaot::__private::kernels::movement::#f::<#n, #ih, #iw, #c, #oh, #ow>(#input, #output, &#ys, &#xs);),
        )
    }
}
