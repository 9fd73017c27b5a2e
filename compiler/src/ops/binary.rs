//! Elementwise binary ops: ADD, SUB (int8/int16: TFLite's general
//! rescaling with a 20/15-bit headroom shift), MUL (one requantization of
//! the product), MAXIMUM, MINIMUM, SQUARED_DIFFERENCE (int8, int16), DIV
//! (int8 through a fixed-point reciprocal), PRELU (int8); float32 for all,
//! and FLOOR_DIV and FLOOR_MOD in float32 (as TFLM) and int32 (as LiteRT);
//! int32 ADD, SUB, MUL, DIV, MAXIMUM, MINIMUM and int64 MAXIMUM, MINIMUM
//! on plain values; NumPy-style broadcasting up to 6 dimensions; fused RELU
//! family where the op has it.

use crate::diag::Error;
use crate::graph::{DType, Tensor};
use crate::lowering::broadcast::{Broadcast2, binary_call, broadcast_to_output, contiguous_runs};
use crate::lowering::context::OpCx;
use crate::lowering::emit::{Emit, f32_lit};
use crate::lowering::operator::{InPlace, Operator, WindowOp};
use crate::lowering::options::Activation;
use crate::lowering::requant::qrange;
use crate::lowering::window::Geometry;
use crate::quant::{quantize_multiplier, quantize_multiplier_smaller_than_one};
use crate::tflite::fields::arithmetic;
use proc_macro2::TokenStream;
use quote::quote;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Add,
    Sub,
    Mul,
    Maximum,
    Minimum,
    /// PRELU: input and (broadcast) alpha.
    Prelu,
    /// float32 only.
    Div,
    /// float32 only.
    SquaredDifference,
    /// float32 (`floor(a / b)` in double) and int32 (LiteRT only).
    FloorDiv,
    /// float32 (`fmod` moved to the divisor's sign) and int32 (LiteRT only).
    FloorMod,
    /// POW: float32 (`powf`) and int32 (the power in double), LiteRT only.
    Pow,
}

impl Kind {
    /// Union tag of the op's options table, and whether it has a fused activation.
    fn options(self) -> Option<(u8, &'static str)> {
        match self {
            Kind::Add => Some((arithmetic::ADD_TAG, "AddOptions")),
            Kind::Sub => Some((arithmetic::SUB_TAG, "SubOptions")),
            Kind::Mul => Some((arithmetic::MUL_TAG, "MulOptions")),
            Kind::Div => Some((arithmetic::DIV_TAG, "DivOptions")),
            Kind::Maximum
            | Kind::Minimum
            | Kind::SquaredDifference
            | Kind::Prelu
            | Kind::FloorDiv
            | Kind::FloorMod
            | Kind::Pow => None,
        }
    }
}

#[derive(Debug)]
enum Arith {
    /// AddQuant fields (ADD/SUB).
    AddSub([i32; 12]),
    /// PreluQuant fields.
    Prelu([i32; 7]),
    /// MulQuant fields.
    Mul([i32; 7]),
    /// MulQuant fields, for its `div`.
    Div([i32; 7]),
    /// MAXIMUM/MINIMUM on raw int8 values.
    Compare,
    Float(f32, f32),
    /// int32 (or int64 for MAXIMUM/MINIMUM) unquantized values, wrapping
    /// as TFLite's C arithmetic does in practice, clamped to the
    /// activation range (ADD ignores its activation, as TFLM does).
    Integer {
        ty: &'static str,
        lo: i64,
        hi: i64,
    },
}

#[derive(Debug)]
struct Binary {
    /// int16 instead of int8 for the quantized arithmetic.
    int16: bool,
    kind: Kind,
    a: usize,
    b: usize,
    /// Which operand may be overwritten (0 or 1): a full-shape activation.
    in_place_operand: Option<usize>,
    output: usize,
    len: usize,
    /// Output dims with the strides of `a` and `b` (None: same shapes).
    broadcast: Option<Broadcast2>,
    /// Whether `b` is one value and `a`'s shape another (rank included):
    /// LiteRT's int32 POW then takes its integer-power loop.
    scalar_exponent: bool,
    arith: Arith,
    /// Both operands and the output one NHWC image of this shape in the
    /// arena: the op computes rows from the same rows (a tiled stage may
    /// hold it, as a residual ADD).
    image: Option<[usize; 4]>,
}

pub fn lower_add(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    lower(cx, Kind::Add)
}
pub fn lower_sub(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    lower(cx, Kind::Sub)
}
pub fn lower_mul(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    lower(cx, Kind::Mul)
}
pub fn lower_maximum(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    lower(cx, Kind::Maximum)
}
pub fn lower_minimum(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    lower(cx, Kind::Minimum)
}
pub fn lower_prelu(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    lower(cx, Kind::Prelu)
}
pub fn lower_div(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    lower(cx, Kind::Div)
}
pub fn lower_floor_div(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    lower(cx, Kind::FloorDiv)
}
pub fn lower_floor_mod(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    lower(cx, Kind::FloorMod)
}
pub fn lower_pow(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    lower(cx, Kind::Pow)
}
pub fn lower_squared_difference(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    lower(cx, Kind::SquaredDifference)
}

/// ADD/SUB rescaling constants (TFLM `CalculateOpDataAdd`/`Sub`).
fn add_sub_quant(
    cx: &OpCx<'_, '_>,
    a: &Tensor<'_>,
    b: &Tensor<'_>,
    output: &Tensor<'_>,
    activation: Activation,
) -> Result<[i32; 12], Error> {
    let (s1, z1) = cx.per_tensor(a)?;
    let (s2, z2) = cx.per_tensor(b)?;
    let (so, zo) = cx.per_tensor(output)?;
    // Headroom: 20 bits for int8, 15 for int16 (TFLM's general path).
    let left_shift = if output.dtype == DType::I16 { 15 } else { 20 };
    let twice_max = 2.0 * s1.max(s2) as f64;
    let q = |real: f64| {
        quantize_multiplier_smaller_than_one(real)
            .ok_or_else(|| cx.err("the input/output scales need a multiplier above one, which TFLite rejects"))
    };
    let (m1, sh1) = q(s1 as f64 / twice_max)?;
    let (m2, sh2) = q(s2 as f64 / twice_max)?;
    let (mo, sho) = q(twice_max / ((1i64 << left_shift) as f64 * so as f64))?;
    let (qmin, qmax) = qrange(output.dtype);
    let (lo, hi) = activation.quant_range(so, zo, qmin, qmax);
    Ok([-z1, -z2, zo, left_shift, m1, sh1, m2, sh2, mo, sho, lo, hi])
}

/// The `MulQuant` literal of a MUL or DIV's constants.
fn mul_quant(p: &[i32; 7]) -> TokenStream {
    let [o1, o2, oo, m, s, lo, hi] = *p;
    quote!(::tinyaot::__private::kernels::binary::MulQuant {
        input1_offset: #o1, input2_offset: #o2, output_offset: #oo, multiplier: #m, shift: #s,
        act_min: #lo, act_max: #hi,
    })
}

/// The runtime's `AddQuant` literal of [`add_sub_quant`]'s (or
/// [`squared_difference_quant`]'s) constants.
fn add_quant(p: &[i32; 12]) -> TokenStream {
    let [o1, o2, oo, ls, m1, s1, m2, s2, mo, so, lo, hi] = *p;
    quote!(::tinyaot::__private::kernels::binary::AddQuant {
        input1_offset: #o1, input2_offset: #o2, output_offset: #oo, left_shift: #ls,
        input1_multiplier: #m1, input1_shift: #s1, input2_multiplier: #m2, input2_shift: #s2,
        output_multiplier: #mo, output_shift: #so, act_min: #lo, act_max: #hi,
    })
}

/// Broadcasting int8 and int16 ADD, SUB and MUL take the vector loops (on targets
/// with lanes) where their contiguous runs are at least this long (a
/// loop's setup per run).
const LANE_RUN_MIN: usize = 8;

/// int8 ADD/SUB of at least this many elements look their inputs'
/// rescaled values up in a 256-entry table (1 KB of flash each) instead of
/// computing them: a 64-bit multiply-and-round per element saved.
const RESCALE_TABLE_MIN_LEN: usize = 512;

/// The two int8 inputs' rescaled values (TFLite's `(offset + x) <<
/// left_shift` times a multiplier below one) as the generated closure
/// computes them, `sign` telling ADD (1) from SUB (-1). The input with the
/// larger scale has the multiplier 1/2 exactly (2^30, shift 0), which on
/// the even shifted value is exact: `(offset + x) << (left_shift - 1)`.
/// The other input comes from a table of all 256 values made here with
/// the same arithmetic, into which the halved input's constant part
/// (`offset << (left_shift - 1)`, with the op's sign) is folded: the
/// halved input is then a bare shift. With both halved (equal scales),
/// `AddQuant`'s own rescaling.
fn rescaled_inputs(inputs: [(TokenStream, i32, i32, i32); 2], left_shift: i32, sign: i32) -> [TokenStream; 2] {
    let halved = |&(_, _, m, shift): &(TokenStream, i32, i32, i32)| m == 1 << 30 && shift == 0 && left_shift > 0;
    match (halved(&inputs[0]), halved(&inputs[1])) {
        (true, true) => {
            let [(x, ..), (y, ..)] = &inputs;
            [quote!(Q.rescaled1(#x)), quote!(Q.rescaled2(#y))]
        }
        (h1, h2) => {
            let half_shift = left_shift - 1;
            // The halved input's constant, moved into the other's table:
            // a + b = (a + c) + b' for ADD, a - b = (a - c) - b' when the
            // second is halved, a - b = a' - (b - c) when the first is.
            let folded = |k: usize| match (h1, h2) {
                (false, true) if k == 0 => sign.wrapping_mul(inputs[1].1 << half_shift),
                (true, false) if k == 1 => sign.wrapping_mul(inputs[0].1 << half_shift),
                _ => 0,
            };
            let side = |k: usize| {
                let (v, offset, m, shift) = &inputs[k];
                if [h1, h2][k] {
                    return quote!(((#v as i32) << #half_shift));
                }
                let table = (0..=255u8).map(|byte| {
                    let v = (offset + byte as i8 as i32).wrapping_mul(1 << left_shift);
                    crate::fixedpoint::multiply_by_quantized_multiplier_smaller_than_one_exp(v, *m, *shift)
                        .wrapping_add(folded(k))
                });
                quote!({
                    static TABLE: [i32; 256] = [#(#table),*];
                    TABLE[#v as u8 as usize]
                })
            };
            [side(0), side(1)]
        }
    }
}

/// SQUARED_DIFFERENCE rescaling constants (TFLM `PrepareQuantized`): both
/// inputs as for ADD with a 7-bit (int8) or no (int16) headroom shift, the
/// squared scale folded into one general output multiplier.
fn squared_difference_quant(
    cx: &OpCx<'_, '_>,
    a: &Tensor<'_>,
    b: &Tensor<'_>,
    output: &Tensor<'_>,
) -> Result<[i32; 12], Error> {
    let (s1, z1) = cx.per_tensor(a)?;
    let (s2, z2) = cx.per_tensor(b)?;
    let (so, zo) = cx.per_tensor(output)?;
    let int16 = output.dtype == DType::I16;
    if int16 && (z1 != 0 || z2 != 0 || zo != 0) {
        return Err(cx.err("int16 activations must be symmetric (zero point 0), as TFLite requires"));
    }
    let left_shift = if int16 { 0 } else { 7 };
    let twice_max = 2.0 * s1.max(s2) as f64;
    let q = |real: f64| {
        quantize_multiplier_smaller_than_one(real)
            .ok_or_else(|| cx.err("the input scales need a multiplier above one, which TFLite rejects"))
    };
    let (m1, sh1) = q(s1 as f64 / twice_max)?;
    let (m2, sh2) = q(s2 as f64 / twice_max)?;
    let (mo, sho) = quantize_multiplier(twice_max * twice_max / ((1i64 << (2 * left_shift)) as f64 * so as f64));
    if !(-31..=30).contains(&sho) {
        return Err(cx.err("the scales are out of the range TFLite can requantize"));
    }
    let (lo, hi) = qrange(output.dtype);
    Ok([-z1, -z2, zo, left_shift, m1, sh1, m2, sh2, mo, sho, lo, hi])
}

fn lower(cx: &OpCx<'_, '_>, kind: Kind) -> Result<Box<dyn Operator>, Error> {
    cx.arity(2, 2, 1)?;
    let activation = match kind.options() {
        Some((tag, table)) => match cx.options(tag, table)? {
            Some(o) => Activation::parse(cx, o.scalar::<i8>(arithmetic::FUSED_ACTIVATION, 0)?)?,
            None => Activation::None,
        },
        None => Activation::None,
    };
    let a = cx.input(0)?;
    let b = cx.input(1)?;
    let output = cx.output(0)?;
    let broadcast = broadcast_to_output(cx, a, b, output)?;
    let int16 = (a.dtype, b.dtype, output.dtype) == (DType::I16, DType::I16, DType::I16);
    if int16 && matches!(kind, Kind::Div | Kind::Prelu) {
        return Err(cx.unsupported("int16", "int8 and float32 (as TFLM)"));
    }
    let arith = match (a.dtype, b.dtype, output.dtype) {
        (DType::I8, DType::I8, DType::I8) | (DType::I16, DType::I16, DType::I16) => match kind {
            Kind::Add | Kind::Sub => Arith::AddSub(add_sub_quant(cx, a, b, output, activation)?),
            Kind::Mul => {
                let (s1, z1) = cx.per_tensor(a)?;
                let (s2, z2) = cx.per_tensor(b)?;
                let (so, zo) = cx.per_tensor(output)?;
                let (m, s) = quantize_multiplier(s1 as f64 * s2 as f64 / so as f64);
                if !(-31..=30).contains(&s) {
                    return Err(cx.err("the scales are out of the range TFLite can requantize"));
                }
                let (qmin, qmax) = qrange(output.dtype);
                let (lo, hi) = activation.quant_range(so, zo, qmin, qmax);
                Arith::Mul([-z1, -z2, zo, m, s, lo, hi])
            }
            Kind::Maximum | Kind::Minimum => Arith::Compare,
            Kind::Prelu => {
                let (si, zi) = cx.per_tensor(a)?;
                let (sa, za) = cx.per_tensor(b)?;
                let (so, zo) = cx.per_tensor(output)?;
                let (m1, s1) = quantize_multiplier(si as f64 / so as f64);
                let (m2, s2) = quantize_multiplier(si as f64 * sa as f64 / so as f64);
                if !(-31..=30).contains(&s1) || !(-31..=30).contains(&s2) {
                    return Err(cx.err("the scales are out of the range TFLite can requantize"));
                }
                Arith::Prelu([-zi, -za, zo, m1, s1, m2, s2])
            }
            Kind::SquaredDifference => Arith::AddSub(squared_difference_quant(cx, a, b, output)?),
            Kind::FloorDiv | Kind::FloorMod => {
                return Err(cx.unsupported(&format!("dtype {}", a.dtype.name()), "float32 (as TFLM)"));
            }
            Kind::Pow => {
                return Err(cx.unsupported(&format!("dtype {}", a.dtype.name()), "float32 and int32 (as LiteRT)"));
            }
            Kind::Div => {
                let (s1, z1) = cx.per_tensor(a)?;
                let (s2, z2) = cx.per_tensor(b)?;
                let (so, zo) = cx.per_tensor(output)?;
                // TFLM: the scale ratio in single precision, then widened.
                let (m, s) = quantize_multiplier((s1 / (s2 * so)) as f64);
                if !(-31..=30).contains(&s) {
                    return Err(cx.err("the scales are out of the range TFLite can requantize"));
                }
                let (lo, hi) = activation.quant_range(so, zo, -128, 127);
                Arith::Div([-z1, -z2, zo, m, s, lo, hi])
            }
        },
        (DType::F32, DType::F32, DType::F32) => {
            let (lo, hi) = activation.float_range();
            Arith::Float(lo, hi)
        }
        (t @ (DType::I32 | DType::I64), u, o)
            if u == t && o == t && (t == DType::I32 || matches!(kind, Kind::Maximum | Kind::Minimum)) =>
        {
            // The LiteRT-only integer ops: int32 alone.
            let floor = matches!(kind, Kind::FloorDiv | Kind::FloorMod | Kind::Pow);
            if !matches!(kind, Kind::Add | Kind::Sub | Kind::Mul | Kind::Div | Kind::Maximum | Kind::Minimum) && !floor
            {
                return Err(cx.unsupported(&format!("dtype {}", t.name()), "int8, int16, float32 (as TFLM)"));
            }
            if floor && t != DType::I32 {
                return Err(cx.unsupported(&format!("dtype {}", t.name()), "int32 (as LiteRT), float32 (as TFLM)"));
            }
            let (lo, hi) = match (kind, activation) {
                // TFLM's int32 ADD clamps to the whole range whatever its activation.
                (Kind::Add, _) | (_, Activation::None) => (i64::MIN, i64::MAX),
                (_, Activation::Relu) => (0, i64::MAX),
                (_, Activation::ReluN1To1) => (-1, 1),
                (_, Activation::Relu6) => (0, 6),
            };
            let (lo, hi) = if t == DType::I32 { (lo.max(i32::MIN as i64), hi.min(i32::MAX as i64)) } else { (lo, hi) };
            Arith::Integer { ty: if t == DType::I32 { "i32" } else { "i64" }, lo, hi }
        }
        (x, y, o) => {
            return Err(cx.unsupported(
                &format!("inputs {} and {}, output {}", x.name(), y.name(), o.name()),
                "int8 and int8 -> int8, int16 and int16 -> int16, float32 and float32 -> float32",
            ));
        }
    };
    let full = |t: &Tensor<'_>| t.elements == output.elements && t.data.is_none() && t.dtype == output.dtype;
    let in_place_operand = if a.index == b.index {
        None
    } else if full(a) {
        Some(0)
    } else if full(b) {
        Some(1)
    } else {
        None
    };
    let activation_map = |t: &Tensor<'_>| t.data.is_none() && !t.is_variable && t.shape == output.shape;
    let image = match output.shape[..] {
        [1, h, w, c] if broadcast.is_none() && activation_map(a) && activation_map(b) => Some([1, h, w, c]),
        _ => None,
    };
    Ok(Box::new(Binary {
        int16,
        kind,
        a: a.index,
        b: b.index,
        in_place_operand,
        output: output.index,
        len: output.elements,
        broadcast,
        scalar_exponent: b.elements == 1 && a.shape != b.shape,
        arith,
        image,
    }))
}

impl Operator for Binary {
    /// Elementwise: input element i is dead once output element i is written.
    fn in_place(&self) -> Option<InPlace> {
        let input = match self.in_place_operand? {
            0 => self.a,
            _ => self.b,
        };
        Some(InPlace { input, output: self.output, slack: 0 })
    }

    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        self.emit_len(cx, self.len)
    }

    fn window(&self) -> Option<WindowOp> {
        let inputs = if self.a == self.b { vec![self.a] } else { vec![self.a, self.b] };
        Some(WindowOp { inputs, output: self.output, geo: Geometry::elementwise(self.image?) })
    }

    /// Over a band: the same elementwise loop over its rows.
    fn emit_window(&self, cx: &mut Emit<'_>, geo: &Geometry) -> Result<TokenStream, Error> {
        self.emit_len(cx, geo.output.iter().product())
    }
}

impl Binary {
    /// The elementwise call over the first `len` values of the views `cx`
    /// gives the operands (tables sized by the whole op, as untiled).
    fn emit_len(&self, cx: &mut Emit<'_>, len: usize) -> Result<TokenStream, Error> {
        // The operand carried by the Io: the in-place candidate, or `a`.
        let io_first = self.in_place_operand != Some(1);
        let (main, other) = if io_first { (self.a, self.b) } else { (self.b, self.a) };
        let io = cx.io(main, self.output)?;
        let other = cx.read(other)?;
        let it = if self.int16 { quote!(i16) } else { quote!(i8) };
        let (ty, f) = match (&self.arith, self.kind) {
            (Arith::AddSub(p), kind) => {
                let [o1, o2, _, ls, m1, s1, m2, s2, ..] = *p;
                let method = match kind {
                    Kind::Sub => quote!(sub),
                    Kind::SquaredDifference => quote!(squared_difference),
                    _ => quote!(add),
                };
                let q = add_quant(p);
                let tabled = !self.int16 && self.len >= RESCALE_TABLE_MIN_LEN;
                let f = match kind {
                    Kind::Add | Kind::Sub if tabled => {
                        let method = if kind == Kind::Sub { quote!(sub_rescaled) } else { quote!(add_rescaled) };
                        let sign = if kind == Kind::Sub { -1 } else { 1 };
                        let [x, y] = rescaled_inputs([(quote!(x), o1, m1, s1), (quote!(y), o2, m2, s2)], ls, sign);
                        quote!(|x: i8, y: i8| {
                            const Q: ::tinyaot::__private::kernels::binary::AddQuant = #q;
                            Q.#method(#x, #y)
                        })
                    }
                    _ => {
                        quote!(|x: #it, y: #it| { const Q: ::tinyaot::__private::kernels::binary::AddQuant = #q; Q.#method(x, y) })
                    }
                };
                (it.clone(), f)
            }
            (Arith::Mul(p), _) => {
                let q = mul_quant(p);
                (
                    it.clone(),
                    quote!(|x: #it, y: #it| { const Q: ::tinyaot::__private::kernels::binary::MulQuant = #q; Q.mul(x, y) }),
                )
            }
            (Arith::Div(p), _) => {
                let q = mul_quant(p);
                (
                    quote!(i8),
                    quote!(|x: i8, y: i8| { const Q: ::tinyaot::__private::kernels::binary::MulQuant = #q; Q.div(x, y) }),
                )
            }
            (Arith::Prelu(p), _) => {
                let [oi, oa, oo, m1, s1, m2, s2] = *p;
                let q = quote!(::tinyaot::__private::kernels::binary::PreluQuant {
                    input_offset: #oi, alpha_offset: #oa, output_offset: #oo,
                    multiplier_1: #m1, shift_1: #s1, multiplier_2: #m2, shift_2: #s2,
                });
                (
                    it.clone(),
                    quote!(|x: i8, y: i8| { const Q: ::tinyaot::__private::kernels::binary::PreluQuant = #q; Q.prelu(x, y) }),
                )
            }
            (Arith::Compare, Kind::Maximum) => (it.clone(), quote!(|x: #it, y: #it| if x > y { x } else { y })),
            (Arith::Compare, _) => (it.clone(), quote!(|x: #it, y: #it| if x < y { x } else { y })),
            (Arith::Integer { ty, lo, hi }, kind) => {
                let full = if *ty == "i32" { (i32::MIN as i64, i32::MAX as i64) } else { (i64::MIN, i64::MAX) };
                let ty = proc_macro2::Ident::new(ty, proc_macro2::Span::call_site());
                let value = match kind {
                    Kind::Add => quote!(x.wrapping_add(y)),
                    Kind::Sub => quote!(x.wrapping_sub(y)),
                    Kind::Mul => quote!(x.wrapping_mul(y)),
                    // C truncates; a zero divisor (which crashes TFLM) gives 0.
                    Kind::Div => quote!(if y == 0 { 0 } else { x.wrapping_div(y) }),
                    // LiteRT's FloorDiv (`floor` of the double quotient, exact
                    // for int32) and FloorMod (C's remainder moved to the
                    // divisor's sign); a zero divisor, which LiteRT refuses
                    // at invoke, gives 0.
                    Kind::FloorDiv => quote!(::tinyaot::__private::kernels::binary::floor_div_i32(x, y)),
                    Kind::FloorMod => quote!(::tinyaot::__private::kernels::binary::floor_mod_i32(x, y)),
                    // LiteRT's: the power in double, back to int32.
                    // LiteRT's loop for a one-value exponent of another
                    // shape than the base: `pow_i32_scalar_exponent`.
                    Kind::Pow if self.scalar_exponent => {
                        quote!(::tinyaot::__private::kernels::binary::pow_i32_scalar_exponent(x, y))
                    }
                    Kind::Pow => quote!(::tinyaot::__private::kernels::binary::pow_i32(x, y)),
                    Kind::Maximum => quote!(if x > y { x } else { y }),
                    _ => quote!(if x < y { x } else { y }),
                };
                let clamp = if (*lo, *hi) == full {
                    quote!(v)
                } else {
                    let (lo, hi) =
                        (proc_macro2::Literal::i64_unsuffixed(*lo), proc_macro2::Literal::i64_unsuffixed(*hi));
                    quote!(v.clamp(#lo, #hi))
                };
                (quote!(#ty), quote!(|x: #ty, y: #ty| { let v = #value; #clamp }))
            }
            (Arith::Float(lo, hi), kind) => {
                let (lo, hi) = (f32_lit(*lo), f32_lit(*hi));
                let clamp = quote!(::tinyaot::__private::kernels::binary::clamp_f32);
                let f = match kind {
                    Kind::Add => quote!(|x: f32, y: f32| #clamp(x + y, #lo, #hi)),
                    Kind::Sub => quote!(|x: f32, y: f32| #clamp(x - y, #lo, #hi)),
                    Kind::Mul => quote!(|x: f32, y: f32| #clamp(x * y, #lo, #hi)),
                    Kind::Div => quote!(|x: f32, y: f32| #clamp(x / y, #lo, #hi)),
                    Kind::SquaredDifference => quote!(|x: f32, y: f32| {
                        let d = x - y;
                        d * d
                    }),
                    Kind::Maximum => quote!(::tinyaot::__private::kernels::binary::maximum_f32),
                    Kind::Minimum => quote!(::tinyaot::__private::kernels::binary::minimum_f32),
                    Kind::Prelu => quote!(::tinyaot::__private::kernels::binary::prelu_f32),
                    Kind::FloorDiv => quote!(::tinyaot::__private::kernels::binary::floor_div_f32),
                    Kind::FloorMod => quote!(::tinyaot::__private::kernels::binary::floor_mod_f32),
                    Kind::Pow => quote!(::tinyaot::__private::kernels::binary::pow_f32),
                };
                (quote!(f32), f)
            }
        };
        let walk = self.broadcast.map(|(d, sa, sb)| if io_first { (d, sa, sb) } else { (d, sb, sa) });
        // int8 and int16 ADD, SUB and MUL: a vector loop where the target
        // has lanes and the constants their form (`AddLanes::of`,
        // `MulLanes::of` or their `_s16` twins, evaluated as constants),
        // else the scalar closure; same-shaped operands, or broadcast in
        // runs of at least `LANE_RUN_MIN`.
        let of = if self.int16 { quote!(of_s16) } else { quote!(of) };
        let lanes = match (&self.arith, self.kind) {
            (Arith::AddSub(p), Kind::Add | Kind::Sub) => {
                let (q, sub) = (add_quant(p), self.kind == Kind::Sub);
                Some(quote!(AddLanes::#of(&#q, #sub)))
            }
            (Arith::Mul(p), _) => {
                let q = mul_quant(p);
                Some(quote!(MulLanes::#of(&#q)))
            }
            _ => None,
        };
        let runs = match walk {
            None => Some(quote!(None)),
            Some(walk) => contiguous_runs(&walk).filter(|&(run, _)| run >= LANE_RUN_MIN).map(|(_, (d, sa, sb))| {
                quote!(Some(&::tinyaot::__private::kernels::Strided6 { dims: [#(#d),*], a: [#(#sa),*], b: [#(#sb),*] }))
            }),
        };
        if let (Some(of), Some(runs)) = (lanes, runs) {
            let binary = quote!(::tinyaot::__private::kernels::binary);
            return Ok(quote!(
                #binary::binary_lanes::<#ty, #len, _, _, _>(#io, #other, #runs, #io_first, const { #binary::#of }, #f);
            ));
        }
        Ok(binary_call((&ty, &ty), len, io, other, walk, io_first, f))
    }
}
