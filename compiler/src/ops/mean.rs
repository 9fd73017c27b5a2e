//! MEAN, SUM, REDUCE_MAX and REDUCE_MIN over any constant set of axes
//! (negative axes allowed), keep_dims or not: int8 (and int16 for MEAN and
//! SUM: TFLite's integer mean with the 1/count folded into the multiplier;
//! the sum rescaled once; max and min on raw values) and float32;
//! REDUCE_ALL of bool (the minimum of bytes that are 0 or 1); REDUCE_PROD
//! of float32, int32 and int64 as LiteRT's reference kernel (TFLM has none:
//! each block's product in the input's order, integers wrapping).

use crate::diag::Error;
use crate::graph::DType;
use crate::lowering::broadcast::six;
use crate::lowering::context::OpCx;
use crate::lowering::emit::{Emit, f32_lit};
use crate::lowering::operator::Operator;
use crate::quant::quantize_multiplier;
use proc_macro2::TokenStream;
use quote::quote;

use crate::tflite::fields::reducer as field;

#[derive(Debug)]
enum Arith {
    Int8 {
        zero_point_sum: i32,
        multiplier: i32,
        shift: i32,
        output_zero_point: i32,
    },
    /// Float mean or sum (a sum is a mean with count 1).
    Float,
    /// REDUCE_MAX or REDUCE_MIN (`Kind` says which): the element type.
    Extreme(&'static str),
    /// REDUCE_PROD: the element type.
    Product(&'static str),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Mean,
    Sum,
    Max,
    Min,
    /// REDUCE_ALL.
    All,
    /// REDUCE_PROD.
    Prod,
}

#[derive(Debug)]
struct Mean {
    kind: Kind,
    /// `i8` or `i16` for quantized means and sums.
    int_type: &'static str,
    input: usize,
    output: usize,
    in_len: usize,
    out_len: usize,
    count: usize,
    /// (dims, strides) of kept axes and of reduced axes, right-aligned to 6.
    outer: ([usize; 6], [usize; 6]),
    inner: ([usize; 6], [usize; 6]),
    arith: Arith,
}

/// TFLite's integer mean rescaling: fold 1/count into the multiplier.
fn mean_multiplier(real: f64, count: usize) -> (i32, i32) {
    let (mult, shift) = quantize_multiplier(real);
    let log2 = 63 - (count as u64).leading_zeros() as i32;
    let s = log2.min(32).min(31 + shift).max(0);
    let mult = ((mult as i64) << s) / count as i64;
    (mult as i32, shift - s)
}

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    lower_kind(cx, Kind::Mean)
}

pub fn lower_sum(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    lower_kind(cx, Kind::Sum)
}

pub fn lower_max(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    lower_kind(cx, Kind::Max)
}

pub fn lower_min(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    lower_kind(cx, Kind::Min)
}

pub fn lower_all(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    lower_kind(cx, Kind::All)
}

pub fn lower_prod(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    lower_kind(cx, Kind::Prod)
}

fn lower_kind(cx: &OpCx<'_, '_>, kind: Kind) -> Result<Box<dyn Operator>, Error> {
    cx.arity(2, 2, 1)?;
    let keep_dims = match cx.options(field::TAG, "ReducerOptions")? {
        Some(o) => o.scalar::<bool>(field::KEEP_DIMS, false)?,
        None => false,
    };
    let input = cx.input(0)?;
    let axis = cx.input(1)?;
    let output = cx.output(0)?;
    cx.activation_tensor(input, "input")?;
    if axis.dtype != DType::I32 {
        return Err(cx.err(format!("the axis tensor must be int32, it is {}", axis.dtype.name())));
    }
    let data = cx.constant(axis, "axis")?;
    let rank = input.shape.len();
    let mut reduced = vec![false; rank];
    for chunk in data.chunks_exact(4) {
        let a = i32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]) as i64;
        let a = if a < 0 { a + rank as i64 } else { a };
        if a < 0 || a >= rank as i64 {
            return Err(cx.err(format!("axis {a} is out of range for rank {rank}")));
        }
        reduced[a as usize] = true;
    }
    let mut strides = vec![0usize; rank];
    let mut acc = 1;
    for d in (0..rank).rev() {
        strides[d] = acc;
        acc *= input.shape[d];
    }
    let mut outer = Vec::new();
    let mut inner = Vec::new();
    let mut expected = Vec::new();
    for d in 0..rank {
        if reduced[d] {
            inner.push((input.shape[d], strides[d]));
            if keep_dims {
                expected.push(1);
            }
        } else {
            outer.push((input.shape[d], strides[d]));
            expected.push(input.shape[d]);
        }
    }
    cx.check_shape(output, &expected)?;
    let count: usize = inner.iter().map(|p| p.0).product();
    if count == 0 {
        return Err(cx.err("the reduced axes are empty"));
    }
    let arith = match (input.dtype, output.dtype, kind) {
        (DType::Bool, DType::Bool, Kind::All) => Arith::Extreme("u8"),
        (i @ (DType::F32 | DType::I32 | DType::I64), o, Kind::Prod) if i == o => {
            Arith::Product(i.rust().unwrap_or("f32"))
        }
        (i, o, Kind::Prod) => {
            return Err(cx.unsupported(
                &format!("input {}, output {}", i.name(), o.name()),
                "float32, int32 or int64, the output of the input's type (as LiteRT)",
            ));
        }
        (i, o, Kind::All) => {
            return Err(cx.unsupported(&format!("input {}, output {}", i.name(), o.name()), "bool -> bool"));
        }
        // int16 max/min: not in the TFLM release the project checks against.
        (i @ (DType::I8 | DType::F32), o, Kind::Max | Kind::Min) if i == o => {
            if input.quant != output.quant {
                return Err(cx.err("a quantized REDUCE_MAX/MIN needs equal input and output quantization (as TFLM)"));
            }
            Arith::Extreme(i.rust().unwrap_or("f32"))
        }
        (DType::I8, DType::I8, _) | (DType::I16, DType::I16, Kind::Mean | Kind::Sum) => {
            let (in_scale, in_zp) = cx.per_tensor(input)?;
            let (out_scale, out_zp) = cx.per_tensor(output)?;
            let real = in_scale as f64 / out_scale as f64;
            let (multiplier, shift) =
                if kind == Kind::Sum { quantize_multiplier(real) } else { mean_multiplier(real, count) };
            if !(-31..=30).contains(&shift) {
                return Err(cx.err("the input/output scale ratio is out of the range TFLite can requantize"));
            }
            let zero_point_sum = (in_zp as i64 * count as i64) as i32;
            Arith::Int8 { zero_point_sum, multiplier, shift, output_zero_point: out_zp }
        }
        (DType::F32, DType::F32, _) => Arith::Float,
        (i, o, _) => {
            return Err(cx.unsupported(
                &format!("input {}, output {}", i.name(), o.name()),
                "int8 -> int8, int16 -> int16, float32 -> float32",
            ));
        }
    };
    Ok(Box::new(Mean {
        kind,
        int_type: if output.dtype == DType::I16 { "i16" } else { "i8" },
        input: input.index,
        output: output.index,
        in_len: input.elements,
        out_len: output.elements,
        count,
        outer: six(&outer),
        inner: six(&inner),
        arith,
    }))
}

fn strided(dims: &[usize; 6], strides: &[usize; 6]) -> TokenStream {
    quote!(::tinyaot::__private::kernels::Strided6 { dims: [#(#dims),*], a: [#(#strides),*], b: [0; 6] })
}

impl Operator for Mean {
    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        let (inl, outl) = (self.in_len, self.out_len);
        let input = cx.read(self.input)?;
        let output = cx.write(self.output)?;
        let outer = strided(&self.outer.0, &self.outer.1);
        let inner = strided(&self.inner.0, &self.inner.1);
        let r = quote!(&::tinyaot::__private::kernels::reduce::Reduction { outer: #outer, inner: #inner });
        Ok(match self.arith {
            Arith::Int8 { zero_point_sum, multiplier, shift, output_zero_point } => {
                let t = proc_macro2::Ident::new(self.int_type, proc_macro2::Span::call_site());
                quote!(::tinyaot::__private::kernels::reduce::mean_q::<#t, #inl, #outl>(
                    #input, #r, #zero_point_sum, #multiplier, #shift, #output_zero_point, #output);)
            }
            Arith::Float => {
                // A float sum is the mean kernel dividing by exactly 1.
                let count = f32_lit(if self.kind == Kind::Sum { 1.0 } else { self.count as f32 });
                quote!(::tinyaot::__private::kernels::reduce::mean_f32::<#inl, #outl>(#input, #r, #count, #output);)
            }
            Arith::Product(ty) => {
                let t = proc_macro2::Ident::new(ty, proc_macro2::Span::call_site());
                let times =
                    if ty == "f32" { quote!(|p: f32, x: f32| p * x) } else { quote!(|p: #t, x: #t| p.wrapping_mul(x)) };
                let one = if ty == "f32" { quote!(1.0) } else { quote!(1) };
                quote!(::tinyaot::__private::kernels::reduce::reduce_prod::<#t, #inl, #outl>(#input, #r, #one, #output, #times);)
            }
            Arith::Extreme(ty) => {
                let t = proc_macro2::Ident::new(ty, proc_macro2::Span::call_site());
                // ALL of bytes 0 or 1 is their minimum (count >= 1).
                let (f, init) = if self.kind == Kind::Max {
                    (quote!(reduce_max), quote!(#t::MIN))
                } else {
                    (quote!(reduce_min), quote!(#t::MAX))
                };
                quote!(::tinyaot::__private::kernels::reduce::#f::<_, #inl, #outl>(#input, #r, #init, #output);)
            }
        })
    }
}
