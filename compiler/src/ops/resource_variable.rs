//! VAR_HANDLE, READ_VARIABLE, ASSIGN_VARIABLE: the resource-variable ops,
//! after `resources::resolve` pointed the reads and assignments at the
//! variable's tensor in the state memory. VAR_HANDLE then does nothing;
//! the others copy bytes (TFLM's `memcpy`: dtypes are not compared, sizes
//! were checked when the handles were resolved).

use crate::diag::Error;
use crate::lowering::context::OpCx;
use crate::lowering::emit::Emit;
use crate::lowering::operator::Operator;
use proc_macro2::TokenStream;
use quote::quote;

/// VAR_HANDLE: its handle was resolved at compile time.
#[derive(Debug)]
struct VarHandle;

impl Operator for VarHandle {
    fn emit(&self, _: &mut Emit<'_>) -> Result<TokenStream, Error> {
        Ok(TokenStream::new())
    }
}

/// A byte copy from `from` to `to` (one of them the variable).
#[derive(Debug)]
struct CopyBytes {
    from: usize,
    to: usize,
}

impl Operator for CopyBytes {
    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        let from = cx.read_bytes(self.from)?;
        let to = cx.write_bytes(self.to)?;
        Ok(quote!(#to.copy_from_slice(#from);))
    }
}

pub fn lower_var_handle(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    cx.arity(0, 0, 0)?;
    Ok(Box::new(VarHandle))
}

pub fn lower_read(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    cx.arity(1, 1, 1)?;
    let (variable, output) = (cx.input(0)?, cx.output(0)?);
    if !variable.is_variable {
        return Err(cx.err("internal error: the resource handle was not resolved"));
    }
    Ok(Box::new(CopyBytes { from: variable.index, to: output.index }))
}

pub fn lower_assign(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    cx.arity(2, 2, 0)?;
    let (variable, value) = (cx.input(0)?, cx.input(1)?);
    if !variable.is_variable {
        return Err(cx.err("internal error: the resource handle was not resolved"));
    }
    Ok(Box::new(CopyBytes { from: value.index, to: variable.index }))
}
