//! CALL_ONCE: its init subgraph is inlined right after it (`graph`), and
//! `codegen::ops` wraps those operators in a block that runs on the first
//! `invoke()` only. The op's one byte of state is that "has run" flag,
//! which, as in TFLM (the op has no reset), `reset()` leaves set: after a
//! reset the variables hold their default values and the init subgraph
//! does not run again.

use crate::diag::Error;
use crate::lowering::context::OpCx;
use crate::lowering::emit::Emit;
use crate::lowering::operator::Operator;
use proc_macro2::TokenStream;

#[derive(Debug)]
struct CallOnce;

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    cx.arity(0, 0, 0)?;
    Ok(Box::new(CallOnce))
}

impl Operator for CallOnce {
    /// The flag: an expression `&mut [i8]` of one element, 0 until the
    /// init subgraph has run.
    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        cx.op_state::<i8>()
    }

    fn state_bytes(&self) -> usize {
        1
    }

    fn state_kept_on_reset(&self) -> bool {
        true
    }
}
