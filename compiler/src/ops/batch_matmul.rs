//! BATCH_MATMUL: `lhs[..., M, K] x rhs[..., K, N]`, either operand stored
//! transposed (adj_x, adj_y), batch dimensions broadcast (ranks 2 to 5, as
//! TFLM); float32, int8 (zero points on both operands) and int16
//! (symmetric, 64-bit sums), requantized per tensor as TFLite does
//! (`lhs_scale * rhs_scale / output_scale` in double). Operands may be
//! constants or computed. Hybrid (float32 lhs and output, constant int8
//! rhs: dynamic-range quantization, which TFLM does not run) as LiteRT's
//! reference kernel runs it, quirks included (`HybridBatchMatMul`).

use crate::diag::Error;
use crate::graph::DType;
use crate::lowering::broadcast::{Broadcast2, six_strides};
use crate::lowering::context::OpCx;
use crate::lowering::emit::Emit;
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
    if (lhs.dtype, rhs.dtype, output.dtype) == (DType::F32, DType::I8, DType::F32) {
        let asymmetric =
            o.map(|o| o.scalar::<bool>(field::ASYMMETRIC_QUANTIZE_INPUTS, false)).transpose()?.unwrap_or(false);
        return HybridBatchMatMul::lower(cx, (lhs, rhs, output), (adj_x, adj_y, asymmetric), [m, k, n]);
    }
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
                    weight_offset: 0,
                    constant: Vec::new(),
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

/// Hybrid BATCH_MATMUL (`kernels::hybrid::batch_matmul_hybrid`): LiteRT's
/// `EvalHybrid` on the shapes LiteRT computes with. Where the rhs has a
/// batch dimension of 1 just above its matrix (and the lhs is not
/// transposed), LiteRT folds the lhs's last batch dimension into its rows;
/// it then steps its per-row scales and per-weight-row sums by a matrix's
/// rows on every batch dimension (see `HybridBatches`).
#[derive(Debug)]
struct HybridBatchMatMul {
    lhs: usize,
    output: usize,
    /// Rows (after folding), depth, columns of each product.
    mkn: [usize; 3],
    /// The lhs's rows, all batches.
    rows: usize,
    /// (row, column) strides within an lhs matrix.
    strides: [usize; 2],
    /// The rhs's bytes, each matrix stored `[N, K]`.
    weights: Vec<u8>,
    /// The rhs's scale, or one per column.
    scales: Vec<f32>,
    /// Each weight row's sum (asymmetric input quantization only).
    row_sums: Option<Vec<i32>>,
    dims: [usize; 3],
    /// Per-step offsets: lhs matrix, weight matrix, row scale, row sum.
    steps: [[usize; 3]; 4],
}

impl HybridBatchMatMul {
    fn lower(
        cx: &OpCx<'_, '_>,
        (lhs, rhs, output): (&crate::graph::Tensor<'_>, &crate::graph::Tensor<'_>, &crate::graph::Tensor<'_>),
        (adj_x, adj_y, asymmetric): (bool, bool, bool),
        [m, k, n]: [usize; 3],
    ) -> Result<Box<dyn Operator>, Error> {
        let scales = crate::lowering::hybrid::weight_scales(cx, rhs, None, n)?;
        if scales.len() != 1 && scales.len() != n {
            return Err(
                cx.err(format!("the int8 rhs has {} scales for {n} columns (LiteRT takes one or {n})", scales.len()))
            );
        }
        let data = rhs.data.as_deref().unwrap_or_default();
        // LiteRT's folding: rhs [..., 1, K, N] with lhs [..., Q, R, K] is
        // rhs [..., K, N] with lhs [..., Q * R, K].
        let (mut ls, mut rs) = (lhs.shape.clone(), rhs.shape.clone());
        let mut m = m;
        if !adj_x && ls.len() > 2 && rs.len() > 2 && rs[rs.len() - 3] == 1 {
            let r = ls.len();
            ls = [&ls[..r - 3], &[ls[r - 3] * ls[r - 2], ls[r - 1]]].concat();
            m = ls[ls.len() - 2];
            let r = rs.len();
            rs = [&rs[..r - 3], &rs[r - 2..]].concat();
        }
        let five = |s: &[usize]| {
            let mut e = [1usize; 5];
            e[5 - s.len()..].copy_from_slice(s);
            e
        };
        let (le, re) = (five(&ls), five(&rs));
        // LiteRT's `extent`: 0 on a dimension of 1, else the elements below it.
        let extent = |e: &[usize; 5], d: usize| if e[d] == 1 { 0 } else { e[d + 1..].iter().product() };
        let mut steps = [[0usize; 3]; 4];
        let mut dims = [1usize; 3];
        for d in 0..3 {
            dims[d] = le[d].max(re[d]);
            let (input, weights) = (extent(&le, d), extent(&re, d));
            steps[0][d] = input;
            steps[1][d] = weights;
            steps[2][d] = if input == 0 { 0 } else { m };
            steps[3][d] = if weights == 0 { 0 } else { n };
        }
        // LiteRT sums the rows of the weight matrices of dimensions 1 and 2
        // only; a step past them reads memory it never wrote.
        let summed = re[1] * re[2];
        let last_sum = (dims[0] - 1) * steps[3][0] + (dims[1] - 1) * steps[3][1] + (dims[2] - 1) * steps[3][2];
        if asymmetric && last_sum / n.max(1) >= summed {
            return Err(cx.err(format!(
                "a hybrid rhs {:?} with a leading batch dimension: LiteRT reads weight row sums it never computed",
                rhs.shape
            )));
        }
        // Each weight matrix as [N, K].
        let matrices = data.len() / (k * n).max(1);
        let mut weights = Vec::with_capacity(data.len());
        for t in 0..matrices {
            let w = &data[t * k * n..(t + 1) * k * n];
            for col in 0..n {
                for d in 0..k {
                    weights.push(if adj_y { w[col * k + d] } else { w[d * n + col] });
                }
            }
        }
        let row_sums = asymmetric.then(|| crate::lowering::hybrid::row_sums(&weights, k));
        Ok(Box::new(HybridBatchMatMul {
            lhs: lhs.index,
            output: output.index,
            mkn: [m, k, n],
            rows: lhs.elements / k.max(1),
            strides: if adj_x { [1, m] } else { [k, 1] },
            weights,
            scales,
            row_sums,
            dims,
            steps,
        }))
    }
}

impl Operator for HybridBatchMatMul {
    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        let [m, k, n] = self.mkn;
        let rows = self.rows;
        let input = cx.read(self.lhs)?;
        let output = cx.write(self.output)?;
        let weights = cx.bytes(&self.weights);
        let scales = cx.f32s(&self.scales);
        let asymmetric = self.row_sums.is_some();
        let per_channel = self.scales.len() > 1;
        let row_sums = cx.i32s(self.row_sums.as_deref().unwrap_or(&[]));
        let scratch = cx.scratch::<f32>()?;
        let [row, column] = self.strides;
        let d = self.dims;
        let [input_steps, weight_steps, scale_steps, sum_steps] = self.steps;
        let h = quote!(::tinyaot::__private::kernels::hybrid);
        Ok(quote!(#h::batch_matmul_hybrid::<#m, #k, #n, #rows, #asymmetric, #per_channel>(
            #input,
            ::tinyaot::__private::kernels::fully_connected::MatrixStrides { row: #row, column: #column },
            #weights.cast::<i8>(), #scales, #row_sums,
            &#h::HybridBatches {
                dims: [#(#d),*],
                input: [#(#input_steps),*],
                weights: [#(#weight_steps),*],
                scale: [#(#scale_steps),*],
                row_sum: [#(#sum_steps),*],
            },
            #scratch, #output,
        );))
    }

    fn macs(&self) -> u64 {
        let [m, k, n] = self.mkn;
        self.dims.iter().chain(&[m, k, n]).fold(1u64, |acc, &d| acc.saturating_mul(d as u64))
    }

    fn variants(&self) -> Vec<crate::lowering::variant::Variant> {
        use crate::lowering::variant::{Kernel, Variant};
        // The rows' scales and zero points, and one gathered row.
        let scratch = 4 * (2 * self.rows + self.mkn[1]);
        vec![Variant { kernel: Kernel::Direct, scratch, cost: self.macs() * 2 }]
    }
}
