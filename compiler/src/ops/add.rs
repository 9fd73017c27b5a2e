//! ADD: int8 (TFLite's general rescaling with a 20-bit headroom shift) and
//! float32, fused RELU family, NumPy-style broadcasting up to 6 dimensions.

use super::mean::six;
use super::{Activation, InPlace, OpCx, Operator, qrange};
use crate::codegen::{Emit, f32_lit};
use crate::diag::Error;
use crate::graph::DType;
use crate::quant::quantize_multiplier_smaller_than_one;
use proc_macro2::TokenStream;
use quote::quote;

/// Union tag of `AddOptions`.
const OPTIONS: u8 = 11;

enum Arith {
    Int8([i32; 12]),
    Float(f32, f32),
}

struct Add {
    a: usize,
    b: usize,
    /// Which operand may be overwritten (0 or 1): a full-shape one whose
    /// buffer is not also the other operand's.
    in_place_operand: Option<usize>,
    output: usize,
    len: usize,
    /// Output dims with the strides of `a` and `b` (None: same shapes).
    broadcast: Option<([usize; 6], [usize; 6], [usize; 6])>,
    arith: Arith,
}

/// The broadcast output shape of two shapes, or None if incompatible.
pub fn broadcast_shape(a: &[usize], b: &[usize]) -> Option<Vec<usize>> {
    let rank = a.len().max(b.len());
    let dim = |s: &[usize], i: usize| {
        if i + s.len() >= rank { s[i + s.len() - rank] } else { 1 }
    };
    (0..rank)
        .map(|i| match (dim(a, i), dim(b, i)) {
            (x, y) if x == y => Some(x),
            (1, y) => Some(y),
            (x, 1) => Some(x),
            _ => None,
        })
        .collect()
}

/// Strides of `shape` right-aligned to `out`, 0 where it is broadcast.
pub fn broadcast_strides(shape: &[usize], out: &[usize]) -> Vec<usize> {
    let mut strides = vec![0; out.len()];
    let mut acc = 1;
    for i in (0..shape.len()).rev() {
        let o = i + out.len() - shape.len();
        strides[o] = if shape[i] == 1 { 0 } else { acc };
        acc *= shape[i];
    }
    strides
}

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    cx.arity(2, 2, 1)?;
    let activation = match cx.options(OPTIONS, "AddOptions")? {
        Some(o) => Activation::parse(cx, o.scalar::<i8>(0, 0)?)?,
        None => Activation::None,
    };
    let a = cx.input(0)?;
    let b = cx.input(1)?;
    let output = cx.output(0)?;
    let out_shape = broadcast_shape(&a.shape, &b.shape)
        .ok_or_else(|| cx.err(format!("shapes {:?} and {:?} do not broadcast", a.shape, b.shape)))?;
    cx.check_shape(output, &out_shape)?;
    let broadcast = (a.shape != b.shape).then(|| {
        let sa = broadcast_strides(&a.shape, &out_shape);
        let sb = broadcast_strides(&b.shape, &out_shape);
        let (dims, a6) = six(&out_shape.iter().copied().zip(sa).collect::<Vec<_>>());
        let (_, b6) = six(&out_shape.iter().copied().zip(sb).collect::<Vec<_>>());
        (dims, a6, b6)
    });
    let arith = match (a.dtype, b.dtype, output.dtype) {
        (DType::I8, DType::I8, DType::I8) => {
            let (s1, z1) = cx.per_tensor(a)?;
            let (s2, z2) = cx.per_tensor(b)?;
            let (so, zo) = cx.per_tensor(output)?;
            let left_shift = 20;
            let twice_max = 2.0 * s1.max(s2) as f64;
            let q = |real: f64| {
                quantize_multiplier_smaller_than_one(real)
                    .ok_or_else(|| cx.err("the input/output scales need a multiplier above one, which TFLite rejects"))
            };
            let (m1, sh1) = q(s1 as f64 / twice_max)?;
            let (m2, sh2) = q(s2 as f64 / twice_max)?;
            let (mo, sho) = q(twice_max / ((1i64 << left_shift) as f64 * so as f64))?;
            let (qmin, qmax) = qrange(DType::I8);
            let (lo, hi) = activation.quant_range(so, zo, qmin, qmax);
            Arith::Int8([-z1, -z2, zo, left_shift, m1, sh1, m2, sh2, mo, sho, lo, hi])
        }
        (DType::F32, DType::F32, DType::F32) => {
            let (lo, hi) = activation.float_range();
            Arith::Float(lo, hi)
        }
        (x, y, o) => {
            return Err(cx.unsupported(
                &format!("inputs {} and {}, output {}", x.name(), y.name(), o.name()),
                "int8 + int8 -> int8, float32 + float32 -> float32",
            ));
        }
    };
    let full =
        |t: &crate::graph::Tensor<'_>| t.elements == output.elements && t.data.is_none() && t.dtype == output.dtype;
    let in_place_operand = if a.index == b.index {
        None
    } else if full(a) {
        Some(0)
    } else if full(b) {
        Some(1)
    } else {
        None
    };
    Ok(Box::new(Add {
        a: a.index,
        b: b.index,
        in_place_operand,
        output: output.index,
        len: output.elements,
        broadcast,
        arith,
    }))
}

impl Operator for Add {
    /// Elementwise: input element i is dead once output element i is written.
    fn in_place(&self) -> Option<InPlace> {
        let input = match self.in_place_operand? {
            0 => self.a,
            _ => self.b,
        };
        Some(InPlace { input, output: self.output, slack: 0 })
    }

    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        let len = self.len;
        // The operand carried by the Io: the in-place candidate, or `a`.
        let io_first = self.in_place_operand != Some(1);
        let (main, other) = if io_first { (self.a, self.b) } else { (self.b, self.a) };
        let io = cx.io(main, self.output)?;
        let other = cx.read(other)?;
        let shape = self.broadcast.map(|(d, sa, sb)| {
            let (sm, so) = if io_first { (sa, sb) } else { (sb, sa) };
            quote!(&::tinyaot::kernels::Strided6 { dims: [#(#d),*], a: [#(#sm),*], b: [#(#so),*] })
        });
        Ok(match (&self.arith, shape) {
            (Arith::Int8(p), shape) => {
                let [o1, o2, oo, ls, m1, s1, m2, s2, mo, so, lo, hi] = *p;
                let q = quote!(&::tinyaot::kernels::add::AddQuant {
                    input1_offset: #o1, input2_offset: #o2, output_offset: #oo, left_shift: #ls,
                    input1_multiplier: #m1, input1_shift: #s1, input2_multiplier: #m2, input2_shift: #s2,
                    output_multiplier: #mo, output_shift: #so, act_min: #lo, act_max: #hi,
                });
                match shape {
                    None => quote!(::tinyaot::kernels::add::add_s8::<#len, _>(#io, #other, #io_first, #q);),
                    Some(s) => {
                        quote!(::tinyaot::kernels::add::add_broadcast_s8::<#len, _>(#io, #other, #s, #io_first, #q);)
                    }
                }
            }
            (Arith::Float(lo, hi), shape) => {
                let (lo, hi) = (f32_lit(*lo), f32_lit(*hi));
                match shape {
                    None => quote!(::tinyaot::kernels::add::add_f32::<#len, _>(#io, #other, #lo, #hi);),
                    Some(s) => {
                        quote!(::tinyaot::kernels::add::add_broadcast_f32::<#len, _>(#io, #other, #s, #lo, #hi);)
                    }
                }
            }
        })
    }
}
