//! EMBEDDING_LOOKUP: rows of a (usually constant) table picked by int32
//! ids; float32 -> float32 and int8 -> int8 copy rows, int8 -> float32
//! dequantizes them with the table's scale (zero point 0, as TFLM). An id
//! outside the table gives a row of zeros (TFLM fails the invoke).

use crate::diag::Error;
use crate::graph::DType;
use crate::lowering::context::OpCx;
use crate::lowering::emit::{Emit, f32_lit};
use crate::lowering::operator::Operator;
use proc_macro2::TokenStream;
use quote::quote;

#[derive(Debug)]
struct EmbeddingLookup {
    ids: usize,
    table: usize,
    output: usize,
    rows: usize,
    columns: usize,
    /// int8 -> float32: the table's scale.
    dequantize: Option<f32>,
}

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    cx.arity(2, 2, 1)?;
    let (ids, table, output) = (cx.input(0)?, cx.input(1)?, cx.output(0)?);
    if ids.dtype != DType::I32 || ids.shape.len() != 1 {
        return Err(cx.err(format!("the ids must be a 1-D int32 tensor (as TFLM), they are {}", ids.describe())));
    }
    if table.shape.len() < 2 {
        return Err(cx.err(format!("the table must have rank 2 or more, it is {:?}", table.shape)));
    }
    let dequantize = match (table.dtype, output.dtype) {
        (DType::F32, DType::F32) | (DType::I8, DType::I8) => None,
        (DType::I8, DType::F32) => {
            let (scale, zero_point) = cx.per_tensor(table)?;
            if zero_point != 0 {
                return Err(cx.err("an int8 table read as float32 must have zero point 0 (as TFLM)"));
            }
            Some(scale)
        }
        (t, o) => {
            return Err(cx.unsupported(
                &format!("table {}, output {}", t.name(), o.name()),
                "float32 -> float32, int8 -> int8, int8 -> float32",
            ));
        }
    };
    let mut expected = vec![ids.elements];
    expected.extend(&table.shape[1..]);
    cx.check_shape(output, &expected)?;
    Ok(Box::new(EmbeddingLookup {
        ids: ids.index,
        table: table.index,
        output: output.index,
        rows: table.shape[0],
        columns: table.elements / table.shape[0].max(1),
        dequantize,
    }))
}

impl Operator for EmbeddingLookup {
    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        let (rows, columns) = (self.rows, self.columns);
        let ids = cx.read(self.ids)?;
        let table = cx.read(self.table)?;
        let output = cx.write(self.output)?;
        let movement = quote!(::tinyaot::__private::kernels::movement);
        Ok(match self.dequantize {
            // GATHER along axis 0.
            None => quote!(#movement::gather::<_, _, 1, 1, #rows, #columns>(#table, #ids, #output);),
            Some(scale) => {
                let scale = f32_lit(scale);
                quote!(#movement::gather_dequantize::<#rows, #columns>(#table, #ids, #scale, #output);)
            }
        })
    }
}
