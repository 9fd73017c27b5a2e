//! BATCH_MATMUL: `lhs[..., M, K] x rhs[..., K, N]`, either operand stored
//! transposed (adj_x, adj_y), batch dimensions broadcast (ranks 2 to 5, as
//! TFLM); float32, int8 (zero points on both operands) and int16
//! (symmetric, 64-bit sums), requantized per tensor as TFLite does
//! (`lhs_scale * rhs_scale / output_scale` in double). Operands may be
//! constants or computed.

use crate::codegen::Emit;
use crate::diag::Error;
use crate::graph::DType;
use crate::lowering::broadcast::{Broadcast2, six_strides};
use crate::lowering::context::OpCx;
use crate::lowering::operator::Operator;
use crate::lowering::requant::{Arith, Requant, Requant16, qrange};
use crate::quant::quantize_multiplier;
use crate::tflite::fields::batch_matmul as field;
use proc_macro2::TokenStream;
use quote::quote;

#[derive(Debug)]
struct BatchMatMul {
    lhs: usize,
    rhs: usize,
    output: usize,
    /// Rows, depth, columns of each product.
    mkn: [usize; 3],
    /// Output batch dims with the operands' batch strides.
    batches: Broadcast2,
    /// (row, column) strides of the lhs and rhs matrices.
    strides: [[usize; 2]; 2],
    /// int8: the constants and the negated rhs zero point.
    arith: Arith<(Requant, i32)>,
}

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    cx.arity(2, 2, 1)?;
    let o = cx.options(field::TAG, "BatchMatMulOptions")?;
    let adj_x = o.map(|o| o.scalar::<bool>(field::ADJ_X, false)).transpose()?.unwrap_or(false);
    let adj_y = o.map(|o| o.scalar::<bool>(field::ADJ_Y, false)).transpose()?.unwrap_or(false);
    let (lhs, rhs, output) = (cx.input(0)?, cx.input(1)?, cx.output(0)?);
    if !(2..=5).contains(&lhs.shape.len()) || !(2..=5).contains(&rhs.shape.len()) {
        return Err(cx.err(format!("operands {:?} and {:?}: ranks 2 to 5 (as TFLM)", lhs.shape, rhs.shape)));
    }
    // Matrices: lhs [M, K] (stored [K, M] with adj_x), rhs [K, N] ([N, K] with adj_y).
    let (lr, lc) = (lhs.shape[lhs.shape.len() - 2], lhs.shape[lhs.shape.len() - 1]);
    let (rr, rc) = (rhs.shape[rhs.shape.len() - 2], rhs.shape[rhs.shape.len() - 1]);
    let (m, k) = if adj_x { (lc, lr) } else { (lr, lc) };
    let (k2, n) = if adj_y { (rc, rr) } else { (rr, rc) };
    if k != k2 {
        return Err(cx.err(format!(
            "operands {:?} and {:?} (adj_x {adj_x}, adj_y {adj_y}) have depths {k} and {k2}",
            lhs.shape, rhs.shape
        )));
    }
    // Batch dimensions, right-aligned and broadcast.
    let (lb, rb) = (&lhs.shape[..lhs.shape.len() - 2], &rhs.shape[..rhs.shape.len() - 2]);
    let batch = crate::lowering::broadcast::broadcast_shape(lb, rb)
        .ok_or_else(|| cx.err(format!("batch dimensions {lb:?} and {rb:?} do not broadcast")))?;
    let mut expected = batch.clone();
    expected.extend([m, n]);
    cx.check_shape(output, &expected)?;
    let batch_strides = |b: &[usize], matrix: usize| {
        let (dims, strides) = six_strides(b, &batch);
        (dims, strides.map(|s| s * matrix))
    };
    let (dims, ls) = batch_strides(lb, m * k);
    let (_, rs) = batch_strides(rb, k * n);
    let lhs_strides = if adj_x { [1, m] } else { [k, 1] };
    let rhs_strides = if adj_y { [1, k] } else { [n, 1] };
    let arith = match (lhs.dtype, rhs.dtype, output.dtype) {
        (DType::F32, DType::F32, DType::F32) => Arith::Float(f32::NEG_INFINITY, f32::INFINITY),
        (t @ (DType::I8 | DType::I16), r, o) if r == t && o == t => {
            let (ls, lz) = cx.per_tensor(lhs)?;
            let (rs, rz) = cx.per_tensor(rhs)?;
            let (os, oz) = cx.per_tensor(output)?;
            let (multiplier, shift) = quantize_multiplier(ls as f64 * rs as f64 / os as f64);
            if !(-31..=30).contains(&shift) {
                return Err(cx.err("the scales are out of the range TFLite can requantize"));
            }
            let (act_min, act_max) = qrange(t);
            if t == DType::I16 {
                if lz != 0 || rz != 0 || oz != 0 {
                    return Err(cx.err("int16 operands and output must be symmetric (zero point 0), as TFLM requires"));
                }
                Arith::Int16(Requant16 {
                    multiplier: vec![multiplier],
                    shift: vec![shift],
                    act_min,
                    act_max,
                    acc64: true,
                })
            } else {
                let q = Requant {
                    input_offset: -lz,
                    output_offset: oz,
                    multiplier: vec![multiplier],
                    shift: vec![shift],
                    act_min,
                    act_max,
                };
                Arith::Int8((q, -rz))
            }
        }
        (l, r, o) => {
            return Err(cx.unsupported(
                &format!("lhs {}, rhs {}, output {}", l.name(), r.name(), o.name()),
                "float32, int8 or int16 for all three",
            ));
        }
    };
    Ok(Box::new(BatchMatMul {
        lhs: lhs.index,
        rhs: rhs.index,
        output: output.index,
        mkn: [m, k, n],
        batches: (dims, ls, rs),
        strides: [lhs_strides, rhs_strides],
        arith,
    }))
}

impl Operator for BatchMatMul {
    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        let [m, k, n] = self.mkn;
        let len = self.batches.0.iter().product::<usize>() * m * n;
        let lhs = cx.read(self.lhs)?;
        let rhs = cx.read(self.rhs)?;
        let output = cx.write(self.output)?;
        let (acc, q) = match &self.arith {
            Arith::Int16(q) => {
                let (_, q) = q.emit(cx);
                (quote!(i64), quote!(&::tinyaot::__private::kernels::int16::Product16(#q)))
            }
            arith => arith.emit_arithmetic(cx, |(q, rhs_offset), cx| {
                let q = q.emit(cx);
                quote!(&::tinyaot::__private::kernels::fully_connected::WeightOffset { q: #q, weight_offset: #rhs_offset })
            }),
        };
        let (d, ls, rs) = self.batches;
        let [[lr, lc], [rr, rc]] = self.strides;
        let fc = quote!(::tinyaot::__private::kernels::fully_connected);
        Ok(quote!(#fc::batch_matmul::<#acc, _, #m, #k, #n, #len>(
            #lhs, #rhs, #q, #output,
            &::tinyaot::__private::kernels::Strided6 { dims: [#(#d),*], a: [#(#ls),*], b: [#(#rs),*] },
            [#fc::MatrixStrides { row: #lr, column: #lc }, #fc::MatrixStrides { row: #rr, column: #rc }],
        );))
    }
}
