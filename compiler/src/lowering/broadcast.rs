//! NumPy-style broadcasting of shapes, and shapes right-aligned to the six
//! dimensions the runtime's strided kernels take.

use super::context::OpCx;
use crate::diag::Error;
use crate::graph::Tensor;
use proc_macro2::TokenStream;
use quote::quote;

/// Output dims with the strides of two operands, right-aligned to 6.
pub type Broadcast2 = ([usize; 6], [usize; 6], [usize; 6]);

/// Checks that `output` has the broadcast shape of `a` and `b` (TFLM
/// broadcasts to the output's own shape, which may carry leading 1s the
/// inputs lack: the same bytes) and returns the walk of a broadcast, or
/// `None` when the operands have the same shape.
pub fn broadcast_to_output(
    cx: &OpCx<'_, '_>,
    a: &Tensor<'_>,
    b: &Tensor<'_>,
    output: &Tensor<'_>,
) -> Result<Option<Broadcast2>, Error> {
    let mut out_shape = broadcast_shape(&a.shape, &b.shape)
        .ok_or_else(|| cx.err(format!("shapes {:?} and {:?} do not broadcast", a.shape, b.shape)))?;
    if output.shape.len() > out_shape.len() && output.shape.ends_with(&out_shape) {
        let extra = output.shape.len() - out_shape.len();
        if output.shape[..extra].iter().all(|&d| d == 1) {
            out_shape.clone_from(&output.shape);
        }
    }
    cx.check_shape(output, &out_shape)?;
    Ok((a.shape != b.shape).then(|| {
        let (dims, a6) = six_strides(&a.shape, &out_shape);
        let (_, b6) = six_strides(&b.shape, &out_shape);
        (dims, a6, b6)
    }))
}

/// A broadcast walk (`io`'s operand's strides first) as runs: where the
/// first operand is laid out as the output (its offset is the output's)
/// and the trailing dimensions along which both operands are contiguous
/// merge into the last one (its extent, the run, returned with the walk
/// whose last dimension it is); `None` where the first operand broadcasts
/// or the second's last dimension does (no run).
pub fn contiguous_runs((dims, a, b): &Broadcast2) -> Option<(usize, Broadcast2)> {
    // The row-major strides of the output: `after[j]` elements per step of dim j.
    let mut after = [1usize; 6];
    for j in (0..5).rev() {
        after[j] = after[j + 1] * dims[j + 1];
    }
    let dense = |s: &[usize; 6], j: usize| dims[j] == 1 || s[j] == after[j];
    if !(0..6).all(|j| dense(a, j)) {
        return None;
    }
    // The first dimension of the merged run: every one after it dense in both.
    let first = (0..6).rev().take_while(|&j| dense(b, j)).last()?;
    let run = after[first] * dims[first];
    let mut pairs: Vec<(usize, usize, usize)> = (0..first).map(|j| (dims[j], a[j], b[j])).collect();
    pairs.push((run, 1, 1));
    let (d6, a6) = six(&pairs.iter().map(|&(d, sa, _)| (d, sa)).collect::<Vec<_>>());
    let (_, b6) = six(&pairs.iter().map(|&(d, _, sb)| (d, sb)).collect::<Vec<_>>());
    Some((run, (d6, a6, b6)))
}

/// `out` right-aligned to 6 dims with the strides of `shape` broadcast to it.
pub fn six_strides(shape: &[usize], out: &[usize]) -> ([usize; 6], [usize; 6]) {
    let strides = broadcast_strides(shape, out);
    six(&out.iter().copied().zip(strides).collect::<Vec<_>>())
}

/// The broadcast output shape of two shapes, or None if incompatible.
pub fn broadcast_shape(a: &[usize], b: &[usize]) -> Option<Vec<usize>> {
    let rank = a.len().max(b.len());
    let dim = |s: &[usize], i: usize| if i + s.len() >= rank { s[i + s.len() - rank] } else { 1 };
    (0..rank)
        .map(|i| match (dim(a, i), dim(b, i)) {
            (x, y) if x == y => Some(x),
            (1, y) => Some(y),
            (x, 1) => Some(x),
            _ => None,
        })
        .collect()
}

/// Strides of `shape` right-aligned to `out`, 0 where it is broadcast.
pub fn broadcast_strides(shape: &[usize], out: &[usize]) -> Vec<usize> {
    let mut strides = vec![0; out.len()];
    let mut acc = 1;
    for i in (0..shape.len()).rev() {
        let o = i + out.len() - shape.len();
        strides[o] = if shape[i] == 1 { 0 } else { acc };
        acc *= shape[i];
    }
    strides
}

/// Right-aligns up to 6 (extent, stride) pairs.
pub fn six(pairs: &[(usize, usize)]) -> ([usize; 6], [usize; 6]) {
    let mut dims = [1; 6];
    let mut strides = [0; 6];
    let skip = 6 - pairs.len();
    for (i, &(d, s)) in pairs.iter().enumerate() {
        dims[skip + i] = d;
        strides[skip + i] = s;
    }
    (dims, strides)
}

/// The call of the runtime's elementwise binary kernel, `types` (operand,
/// result) the element types: `io` carries one operand and the output,
/// `other` the second operand, `io_first` says whether `io`'s operand is
/// the op's first, `walk` (with `io`'s strides first) when it broadcasts.
pub fn binary_call(
    types: (&TokenStream, &TokenStream),
    len: usize,
    io: TokenStream,
    other: TokenStream,
    walk: Option<Broadcast2>,
    io_first: bool,
    f: TokenStream,
) -> TokenStream {
    let (ty, out) = types;
    match walk {
        None => {
            quote!(::tinyaot::__private::kernels::binary::binary::<#ty, #out, #len, _, _>(#io, #other, #io_first, #f);)
        }
        Some((d, sm, so)) => {
            let shape =
                quote!(&::tinyaot::__private::kernels::Strided6 { dims: [#(#d),*], a: [#(#sm),*], b: [#(#so),*] });
            quote!(::tinyaot::__private::kernels::binary::binary_broadcast::<#ty, #out, #len, _, _>(#io, #other, #shape, #io_first, #f);)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{contiguous_runs, six_strides};

    fn walk(a: &[usize], b: &[usize], out: &[usize]) -> super::Broadcast2 {
        let (dims, a6) = six_strides(a, out);
        (dims, a6, six_strides(b, out).1)
    }

    #[test]
    fn runs_merge_the_dense_trailing_dimensions() {
        // A channel vector against pixels: runs of the 16 channels.
        let (run, (d, a, b)) = contiguous_runs(&walk(&[1, 5, 6, 16], &[16], &[1, 5, 6, 16])).unwrap();
        assert_eq!((run, d, a, b), (16, [1, 1, 1, 5, 6, 16], [0, 0, 0, 96, 16, 1], [0, 0, 0, 0, 0, 1]));
        // Rows of [6, 16] repeated over 5: one run of 96 each.
        let (run, (d, a, b)) = contiguous_runs(&walk(&[5, 6, 16], &[6, 16], &[5, 6, 16])).unwrap();
        assert_eq!((run, d, a, b), (96, [1, 1, 1, 1, 5, 96], [0, 0, 0, 0, 96, 1], [0, 0, 0, 0, 0, 1]));
        // A value per pixel (the second's last dimension broadcasts), or
        // the first operand broadcast: no runs.
        assert!(contiguous_runs(&walk(&[5, 6, 16], &[5, 6, 1], &[5, 6, 16])).is_none());
        assert!(contiguous_runs(&walk(&[6, 16], &[5, 6, 16], &[5, 6, 16])).is_none());
    }
}
