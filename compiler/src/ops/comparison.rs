//! Comparisons giving bool: EQUAL, NOT_EQUAL, GREATER, GREATER_EQUAL, LESS,
//! LESS_EQUAL, with NumPy-style broadcasting (up to 6 dimensions). float32,
//! int32 and int64 compare values; int8 compares both inputs rescaled as
//! TFLite's `...WithScaling` does (zero point removed, shifted left by 8,
//! times a multiplier below one: two inputs of different scales compare
//! in real terms); bool (EQUAL and NOT_EQUAL only, as TFLM) compares bytes.

use crate::diag::Error;
use crate::graph::DType;
use crate::lowering::broadcast::{Broadcast2, binary_call, broadcast_to_output};
use crate::lowering::context::OpCx;
use crate::lowering::emit::Emit;
use crate::lowering::operator::Operator;
use crate::quant::quantize_multiplier_smaller_than_one;
use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Equal,
    NotEqual,
    Greater,
    GreaterEqual,
    Less,
    LessEqual,
}

impl Kind {
    /// The Rust operator, applied to the operands in the op's order.
    fn operator(self) -> TokenStream {
        match self {
            Kind::Equal => quote!(==),
            Kind::NotEqual => quote!(!=),
            Kind::Greater => quote!(>),
            Kind::GreaterEqual => quote!(>=),
            Kind::Less => quote!(<),
            Kind::LessEqual => quote!(<=),
        }
    }
}

/// TFLite's headroom shift for int8 comparisons.
const LEFT_SHIFT: i32 = 8;

#[derive(Debug)]
struct Comparison {
    kind: Kind,
    a: usize,
    b: usize,
    output: usize,
    len: usize,
    broadcast: Option<Broadcast2>,
    /// The operands' element type.
    ty: &'static str,
    /// int8: (negated zero point, multiplier, shift) of each input.
    rescale: Option<[(i32, i32, i32); 2]>,
}

pub fn lower_equal(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    lower(cx, Kind::Equal)
}
pub fn lower_not_equal(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    lower(cx, Kind::NotEqual)
}
pub fn lower_greater(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    lower(cx, Kind::Greater)
}
pub fn lower_greater_equal(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    lower(cx, Kind::GreaterEqual)
}
pub fn lower_less(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    lower(cx, Kind::Less)
}
pub fn lower_less_equal(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    lower(cx, Kind::LessEqual)
}

fn lower(cx: &OpCx<'_, '_>, kind: Kind) -> Result<Box<dyn Operator>, Error> {
    cx.arity(2, 2, 1)?;
    let (a, b, output) = (cx.input(0)?, cx.input(1)?, cx.output(0)?);
    let equality = matches!(kind, Kind::Equal | Kind::NotEqual);
    let supported = if equality { "float32, int32, int64, int8, bool" } else { "float32, int32, int64, int8" };
    // TFLM reads the second input as the first's type without a check: a
    // model with two types is broken, and refused here.
    let dtype_ok = match a.dtype {
        DType::F32 | DType::I32 | DType::I64 | DType::I8 => true,
        DType::Bool => equality,
        _ => false,
    };
    if !dtype_ok || b.dtype != a.dtype {
        return Err(cx.unsupported(&format!("inputs {} and {}", a.dtype.name(), b.dtype.name()), supported));
    }
    if output.dtype != DType::Bool {
        return Err(cx.err(format!("the output '{}' must be bool, it is {}", output.name, output.dtype.name())));
    }
    let broadcast = broadcast_to_output(cx, a, b, output)?;
    let rescale = if a.dtype == DType::I8 {
        let side = |t| -> Result<(i32, i32, i32), Error> {
            let (scale, zero_point) = cx.per_tensor(t)?;
            let (m, shift) = quantize_multiplier_smaller_than_one(scale as f64).ok_or_else(|| {
                cx.err(format!("int8 comparison of '{}' with scale {scale}: TFLM needs input scales below 1", t.name))
            })?;
            Ok((-zero_point, m, shift))
        };
        Some([side(a)?, side(b)?])
    } else {
        None
    };
    let ty = a.dtype.rust().ok_or_else(|| cx.unsupported(&format!("dtype {}", a.dtype.name()), supported))?;
    Ok(Box::new(Comparison {
        kind,
        a: a.index,
        b: b.index,
        output: output.index,
        len: output.elements,
        broadcast,
        ty,
        rescale,
    }))
}

impl Operator for Comparison {
    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        let len = self.len;
        let ty = Ident::new(self.ty, Span::call_site());
        let op = self.kind.operator();
        let f = match self.rescale {
            None => quote!(|x: #ty, y: #ty| u8::from(x #op y)),
            Some([(o1, m1, s1), (o2, m2, s2)]) => {
                // TFLite's ArithmeticParams: only the input rescaling is used.
                quote!(|x: i8, y: i8| {
                    const Q: ::tinyaot::__private::kernels::binary::AddQuant =
                        ::tinyaot::__private::kernels::binary::AddQuant {
                            input1_offset: #o1, input2_offset: #o2, output_offset: 0, left_shift: #LEFT_SHIFT,
                            input1_multiplier: #m1, input1_shift: #s1, input2_multiplier: #m2, input2_shift: #s2,
                            output_multiplier: 0, output_shift: 0, act_min: 0, act_max: 0,
                        };
                    u8::from(Q.rescaled1(x) #op Q.rescaled2(y))
                })
            }
        };
        let io = cx.io(self.a, self.output)?;
        let other = cx.read(self.b)?;
        Ok(binary_call((&quote!(#ty), &quote!(u8)), len, io, other, self.broadcast, true, f))
    }
}
