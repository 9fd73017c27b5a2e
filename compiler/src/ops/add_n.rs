//! ADD_N: the elementwise sum of two or more same-shaped inputs. float32
//! adds in input order; int8 (every input of one scale and zero point, as
//! TFLM requires) is TFLite's `AddN`: each input rescaled as ADD does (a
//! 20-bit headroom shift), the sums rescaled once, and, as TFLite's
//! reference code does, one more term for a zero input.

use crate::codegen::Emit;
use crate::diag::Error;
use crate::graph::DType;
use crate::lowering::context::OpCx;
use crate::lowering::operator::Operator;
use crate::quant::quantize_multiplier_smaller_than_one;
use proc_macro2::TokenStream;
use quote::quote;

/// TFLM's `kAddNIntegerShift`.
const LEFT_SHIFT: i32 = 20;

#[derive(Debug)]
struct AddN {
    inputs: Vec<usize>,
    output: usize,
    len: usize,
    /// int8: input offset, output offset, output multiplier and shift.
    int8: Option<[i32; 4]>,
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
            let (scale, zero_point) = cx.per_tensor(first)?;
            for t in &inputs[1..] {
                if cx.per_tensor(t)? != (scale, zero_point) {
                    return Err(cx.err("every int8 input must have the first's scale and zero point (as TFLM)"));
                }
            }
            let (out_scale, out_zero_point) = cx.per_tensor(output)?;
            let twice = 2.0 * scale as f64;
            let (m, s) = quantize_multiplier_smaller_than_one(twice / ((1i64 << LEFT_SHIFT) as f64 * out_scale as f64))
                .ok_or_else(|| {
                    cx.err("the input/output scales need an output multiplier of one or more, which TFLM rejects")
                })?;
            Some([-zero_point, out_zero_point, m, s])
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
            Some([input_offset, output_offset, m, s]) => quote!({
                // The input multiplier is 1/2 exactly (one scale for all).
                const Q: #binary::AddQuant = #binary::AddQuant {
                    input1_offset: #input_offset, input2_offset: 0, output_offset: #output_offset,
                    left_shift: #LEFT_SHIFT, input1_multiplier: 1 << 30, input1_shift: 0,
                    input2_multiplier: 0, input2_shift: 0, output_multiplier: #m, output_shift: #s,
                    act_min: -128, act_max: 127,
                };
                #binary::add_n::<i8, i32, #len, #count>(
                    [#(#reads),*], #output, Q.rescaled1(0i8),
                    |a, x| a.wrapping_add(Q.rescaled1(x)), |a| Q.add_rescaled(a, 0),
                );
            }),
        })
    }
}
