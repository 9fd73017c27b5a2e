//! ADD_N: the elementwise sum of two or more same-shaped inputs. float32
//! adds in input order; int8 (every input of one scale and zero point, as
//! TFLM requires) is TFLite's `AddN`: each input rescaled as ADD does (a
//! 20-bit headroom shift), the sums rescaled once, and, as TFLite's
//! reference code does, one more term for a zero input.

use crate::diag::Error;
use crate::graph::DType;
use crate::lowering::context::OpCx;
use crate::lowering::emit::Emit;
use crate::lowering::operator::Operator;
use crate::lowering::requant::SumRescale;
use proc_macro2::TokenStream;
use quote::quote;

#[derive(Debug)]
struct AddN {
    inputs: Vec<usize>,
    output: usize,
    len: usize,
    /// int8: the sum's rescaling.
    int8: Option<SumRescale>,
}

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    let count = cx.node.inputs.len();
    if count < 2 {
        return Err(cx.err(format!("ADD_N needs two or more inputs, it has {count}")));
    }
    cx.arity(count, count, 1)?;
    let inputs = (0..count).map(|i| cx.input(i)).collect::<Result<Vec<_>, _>>()?;
    let (first, output) = (inputs[0], cx.output(0)?);
    for t in &inputs[1..] {
        if t.shape != first.shape || t.dtype != first.dtype {
            return Err(cx.err(format!(
                "input '{}' {} differs from the first, {}",
                t.name,
                t.describe(),
                first.describe()
            )));
        }
    }
    if output.dtype != first.dtype || output.elements != first.elements {
        return Err(cx.err(format!(
            "the output {} does not match the inputs' {}",
            output.describe(),
            first.describe()
        )));
    }
    let int8 = match first.dtype {
        DType::F32 => None,
        DType::I8 => {
            let quant = cx.per_tensor(first)?;
            for t in &inputs[1..] {
                if cx.per_tensor(t)? != quant {
                    return Err(cx.err("every int8 input must have the first's scale and zero point (as TFLM)"));
                }
            }
            Some(SumRescale::new(cx, first, output)?)
        }
        d => return Err(cx.unsupported(&format!("dtype {}", d.name()), "float32, int8 (as TFLM)")),
    };
    Ok(Box::new(AddN {
        inputs: inputs.iter().map(|t| t.index).collect(),
        output: output.index,
        len: output.elements,
        int8,
    }))
}

impl Operator for AddN {
    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        let len = self.len;
        let count = self.inputs.len();
        let reads = self.inputs.iter().map(|&t| cx.read(t)).collect::<Result<Vec<_>, _>>()?;
        let output = cx.write(self.output)?;
        let binary = quote!(::tinyaot::__private::kernels::binary);
        Ok(match self.int8 {
            None => quote!(#binary::add_n::<f32, f32, #len, #count>([#(#reads),*], #output, 0.0, |a, x| a + x, |a| a);),
            Some(q) => q.emit_with(quote!(
                #binary::add_n::<i8, i32, #len, #count>(
                    [#(#reads),*], #output, Q.rescaled1(0i8),
                    |a, x| a.wrapping_add(Q.rescaled1(x)), |a| Q.add_rescaled(a, 0),
                );
            )),
        })
    }
}
