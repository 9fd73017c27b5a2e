//! SELECT_V2: `condition ? x : y` elementwise, the three shapes broadcast
//! against each other (up to 6 dimensions); SELECT (TF1's `tf.where`, what
//! LiteRT runs and TFLM does not register): the same shapes, or a
//! condition that is a scalar or one value per row of `x` (its first
//! dimension). x, y and the output float32, int8 or int16 as TFLM has them
//! (raw values copied: TFLM checks no quantization), and int32, int64,
//! uint8 and bool as LiteRT's reference kernels have them; the condition
//! bool.

use crate::diag::Error;
use crate::graph::{DType, Tensor};
use crate::lowering::broadcast::{Broadcast2, broadcast_shape, six_strides};
use crate::lowering::context::OpCx;
use crate::lowering::emit::Emit;
use crate::lowering::operator::Operator;
use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

#[derive(Debug)]
struct Select {
    condition: usize,
    x: usize,
    y: usize,
    output: usize,
    len: usize,
    ty: &'static str,
    /// Output dims with the strides of x and y, and the condition's
    /// strides, when the shapes differ.
    broadcast: Option<(Broadcast2, [usize; 6])>,
}

/// The operands, checked: a bool condition; x, y and the output of one
/// type tinyaot stores (TFLM's float32, int8 and int16, LiteRT's others).
fn operands<'c, 'a>(cx: &'c OpCx<'_, 'a>) -> Result<[&'c Tensor<'a>; 4], Error> {
    cx.arity(3, 3, 1)?;
    let (condition, x, y, output) = (cx.input(0)?, cx.input(1)?, cx.input(2)?, cx.output(0)?);
    if condition.dtype != DType::Bool {
        return Err(cx.err(format!(
            "the condition '{}' must be bool, it is {}",
            condition.name,
            condition.dtype.name()
        )));
    }
    let stored =
        matches!(x.dtype, DType::F32 | DType::I8 | DType::I16 | DType::I32 | DType::I64 | DType::U8 | DType::Bool);
    if !stored || y.dtype != x.dtype || output.dtype != x.dtype {
        return Err(cx.unsupported(
            &format!("x {}, y {}, output {}", x.dtype.name(), y.dtype.name(), output.dtype.name()),
            "float32, int8, int16, int32, int64, uint8 or bool (x, y and the output of one type)",
        ));
    }
    Ok([condition, x, y, output])
}

/// SELECT (version one): the same shapes, or a condition that is a scalar
/// or holds one value per row of `x` (LiteRT's `RankOneSelect`: row `i`
/// of the output is row `i` of x or of y). The output has x's shape.
pub fn lower_v1(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    let [condition, x, y, output] = operands(cx)?;
    if x.shape != y.shape {
        return Err(cx.err(format!("x {:?} and y {:?} must have one shape", x.shape, y.shape)));
    }
    cx.check_shape(output, &x.shape)?;
    let rows = condition.shape.len() == 1 && x.shape.first() == Some(&condition.shape[0]);
    let broadcast = if condition.shape == x.shape {
        None
    } else if condition.shape.is_empty() || rows {
        let (dims, sx) = six_strides(&x.shape, &x.shape);
        // The condition steps once per row (or never, a scalar).
        let mut sc = [0; 6];
        if rows {
            sc[6 - x.shape.len()] = 1;
        }
        Some(((dims, sx, sx), sc))
    } else {
        return Err(cx.err(format!(
            "the condition {:?} must have x's shape {:?}, be a scalar, or hold one value per row of x",
            condition.shape, x.shape
        )));
    };
    Ok(select(condition, x, y, output, broadcast))
}

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    let [condition, x, y, output] = operands(cx)?;
    // TFLM: same shapes, or four tensors of one element each (scalars and
    // [1]-shaped ones mixed), need no broadcast.
    let single = [condition, x, y, output].iter().all(|t| t.elements == 1);
    let same = condition.shape == x.shape && x.shape == y.shape;
    let broadcast = if single || same {
        // TFLM matches flat sizes only here.
        if output.elements != x.elements {
            return Err(cx.err(format!("the output {} does not hold the inputs' {:?}", output.describe(), x.shape)));
        }
        None
    } else {
        let shape =
            broadcast_shape(&condition.shape, &x.shape).and_then(|s| broadcast_shape(&s, &y.shape)).ok_or_else(
                || cx.err(format!("shapes {:?}, {:?} and {:?} do not broadcast", condition.shape, x.shape, y.shape)),
            )?;
        cx.check_shape(output, &shape)?;
        let (dims, sx) = six_strides(&x.shape, &shape);
        let (_, sy) = six_strides(&y.shape, &shape);
        let (_, sc) = six_strides(&condition.shape, &shape);
        Some(((dims, sx, sy), sc))
    };
    Ok(select(condition, x, y, output, broadcast))
}

fn select(
    condition: &Tensor<'_>,
    x: &Tensor<'_>,
    y: &Tensor<'_>,
    output: &Tensor<'_>,
    broadcast: Option<(Broadcast2, [usize; 6])>,
) -> Box<dyn Operator> {
    Box::new(Select {
        condition: condition.index,
        x: x.index,
        y: y.index,
        output: output.index,
        len: output.elements,
        ty: x.dtype.rust().unwrap_or("f32"),
        broadcast,
    })
}

impl Operator for Select {
    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        let (len, ty) = (self.len, Ident::new(self.ty, Span::call_site()));
        let condition = cx.read(self.condition)?;
        let x = cx.read(self.x)?;
        let y = cx.read(self.y)?;
        let out = cx.write(self.output)?;
        let kernels = quote!(::tinyaot::__private::kernels);
        Ok(match self.broadcast {
            None => quote!(#kernels::elementwise::select::<#ty, #len>(#condition, #x, #y, #out);),
            Some(((d, sx, sy), sc)) => quote!(#kernels::elementwise::select_broadcast::<#ty, #len>(
                #condition, #x, #y, #out,
                &#kernels::Strided6 { dims: [#(#d),*], a: [#(#sx),*], b: [#(#sy),*] },
                &[#(#sc),*],
            );),
        })
    }
}
