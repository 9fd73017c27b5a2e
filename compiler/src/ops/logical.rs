//! LOGICAL_AND and LOGICAL_OR (bool, NumPy-style broadcasting up to 6
//! dimensions) and LOGICAL_NOT (bool). A bool is one byte, 0 or 1.

use crate::diag::Error;
use crate::graph::{DType, Tensor};
use crate::lowering::broadcast::{Broadcast2, binary_call, broadcast_to_output};
use crate::lowering::context::OpCx;
use crate::lowering::emit::Emit;
use crate::lowering::operator::{InPlace, Operator};
use crate::lowering::unary::{Compute, io, unary};
use proc_macro2::TokenStream;
use quote::quote;

#[derive(Debug)]
struct Logical {
    /// LOGICAL_AND (else LOGICAL_OR).
    and: bool,
    a: usize,
    b: usize,
    output: usize,
    len: usize,
    broadcast: Option<Broadcast2>,
    /// `a` is a full-shape activation: the output may take its place.
    in_place: bool,
}

pub fn lower_and(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    lower(cx, true)
}
pub fn lower_or(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    lower(cx, false)
}

/// Requires every tensor to be bool.
fn all_bool(cx: &OpCx<'_, '_>, tensors: &[&Tensor<'_>]) -> Result<(), Error> {
    match tensors.iter().find(|t| t.dtype != DType::Bool) {
        Some(t) => Err(cx.unsupported(&format!("'{}' of dtype {}", t.name, t.dtype.name()), "bool")),
        None => Ok(()),
    }
}

fn lower(cx: &OpCx<'_, '_>, and: bool) -> Result<Box<dyn Operator>, Error> {
    cx.arity(2, 2, 1)?;
    let (a, b, output) = (cx.input(0)?, cx.input(1)?, cx.output(0)?);
    all_bool(cx, &[a, b, output])?;
    let broadcast = broadcast_to_output(cx, a, b, output)?;
    let in_place = a.elements == output.elements && a.data.is_none() && a.index != b.index;
    Ok(Box::new(Logical {
        and,
        a: a.index,
        b: b.index,
        output: output.index,
        len: output.elements,
        broadcast,
        in_place,
    }))
}

pub fn lower_not(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    let (input, output) = io(cx)?;
    all_bool(cx, &[input, output])?;
    let f = |_: &mut Emit<'_>| quote!(|x: u8| x ^ 1);
    Ok(unary(input, output, Compute::Map { from: DType::Bool, to: DType::Bool, f: Box::new(f) }))
}

impl Operator for Logical {
    /// Elementwise: element i of `a` is dead once output element i is written.
    fn in_place(&self) -> Option<InPlace> {
        self.in_place.then_some(InPlace { input: self.a, output: self.output, slack: 0 })
    }

    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        let len = self.len;
        // Bytes are 0 or 1: bitwise is logical.
        let f = if self.and { quote!(|x: u8, y: u8| x & y) } else { quote!(|x: u8, y: u8| x | y) };
        let io = cx.io(self.a, self.output)?;
        let other = cx.read(self.b)?;
        Ok(binary_call((&quote!(u8), &quote!(u8)), len, io, other, self.broadcast, true, f))
    }
}
