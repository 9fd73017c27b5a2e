//! The shared form of data-movement ops: an op is a list of fills and
//! strided box copies between whole tensors, emitted as calls to the one
//! runtime copy kernel. Each op's file computes its boxes.

use super::context::OpCx;
use super::operator::Operator;
use crate::diag::Error;
use crate::graph::{DType, Tensor};
use crate::lowering::emit::{Emit, f32_lit};
use proc_macro2::TokenStream;
use quote::quote;

/// One strided box copy from tensor `src` to tensor `dst`.
#[derive(Clone, Debug)]
pub struct BoxCopy {
    /// Source tensor.
    pub src: usize,
    /// Element offset of the box's first element in the source.
    pub src_base: usize,
    /// Destination tensor.
    pub dst: usize,
    /// Element offset in the destination.
    pub dst_base: usize,
    /// `(extent, source stride, destination stride)` per dimension, outermost first.
    pub dims: Vec<(usize, isize, isize)>,
    /// int8 values copied through this table (indexed by `value + 128`).
    pub map: Option<Vec<i8>>,
}

/// A data-movement op: fills first, then copies, in order.
#[derive(Debug)]
pub struct Movement {
    /// `(tensor, value)`: fill the whole tensor.
    pub fills: Vec<(usize, TokenStream)>,
    /// Box copies.
    pub copies: Vec<BoxCopy>,
}

/// Row-major element strides of a shape.
pub fn strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1];
    }
    s
}

/// Normalizes a possibly negative axis for `rank` dimensions.
pub fn axis(cx: &OpCx<'_, '_>, axis: i64, rank: usize) -> Result<usize, Error> {
    let a = if axis < 0 { axis + rank as i64 } else { axis };
    usize::try_from(a)
        .ok()
        .filter(|&a| a < rank)
        .ok_or_else(|| cx.err(format!("axis {axis} is out of range for rank {rank}")))
}

/// The integer values of a constant int32 or int64 tensor.
pub fn const_ints(cx: &OpCx<'_, '_>, t: &Tensor<'_>, role: &str) -> Result<Vec<i64>, Error> {
    let data = cx.constant(t, role)?;
    match t.dtype {
        DType::I32 => Ok(data.chunks_exact(4).map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]) as i64).collect()),
        DType::I64 => Ok(data
            .chunks_exact(8)
            .map(|c| i64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
            .collect()),
        d => Err(cx.err(format!("{role} must be int32 or int64, it is {}", d.name()))),
    }
}

/// PAD's and MIRROR_PAD's `[rank, 2]` paddings (a constant, each in
/// `0..=2^24`) and the padded shape they give `input`.
pub fn paddings_and_shape(
    cx: &OpCx<'_, '_>,
    input: &Tensor<'_>,
    paddings: &Tensor<'_>,
) -> Result<(Vec<i64>, Vec<usize>), Error> {
    let rank = input.shape.len();
    let paddings = const_ints(cx, paddings, "paddings")?;
    if paddings.len() != 2 * rank || paddings.iter().any(|&p| !(0..=1 << 24).contains(&p)) {
        return Err(cx.err(format!("paddings must be {rank}x2 non-negative values, found {paddings:?}")));
    }
    let shape = (0..rank).map(|d| input.shape[d] + paddings[2 * d] as usize + paddings[2 * d + 1] as usize).collect();
    Ok((paddings, shape))
}

/// The scalar value (as a typed literal) of a one-element constant of `dtype`.
pub fn scalar_literal(cx: &OpCx<'_, '_>, t: &Tensor<'_>, dtype: DType) -> Result<TokenStream, Error> {
    let d = cx.constant(t, "constant value")?;
    if t.dtype != dtype || t.elements != 1 {
        return Err(cx.err(format!("the constant value must be one {} element", dtype.name())));
    }
    Ok(match dtype {
        DType::F32 => f32_lit(f32::from_le_bytes([d[0], d[1], d[2], d[3]])),
        DType::I8 => {
            let v = d[0] as i8;
            quote!(#v)
        }
        DType::U8 => {
            let v = d[0];
            quote!(#v)
        }
        DType::I16 => {
            let v = i16::from_le_bytes([d[0], d[1]]);
            quote!(#v)
        }
        DType::I32 => {
            let v = i32::from_le_bytes([d[0], d[1], d[2], d[3]]);
            quote!(#v)
        }
        d => return Err(cx.err(format!("{} values are not supported", d.name()))),
    })
}

/// The zero value of a dtype as a typed literal (`zero_point` for int8).
pub fn zero_literal(dtype: DType, zero_point: i32) -> TokenStream {
    match dtype {
        DType::F32 => quote!(0.0f32),
        DType::I8 => {
            let v = zero_point as i8;
            quote!(#v)
        }
        DType::U8 => {
            let v = zero_point as u8;
            quote!(#v)
        }
        DType::I16 => {
            let v = zero_point as i16;
            quote!(#v)
        }
        _ => quote!(0i32),
    }
}

/// Requires every tensor to have the output's dtype (and a Rust type).
pub fn same_dtype(cx: &OpCx<'_, '_>, tensors: &[&Tensor<'_>], output: &Tensor<'_>) -> Result<(), Error> {
    if output.dtype.rust().is_none() {
        return Err(cx.unsupported(&format!("dtype {}", output.dtype.name()), "int8, uint8, int16, int32, float32"));
    }
    for t in tensors {
        if t.dtype != output.dtype {
            return Err(cx.err(format!(
                "'{}' is {} but the output is {}",
                t.name,
                t.dtype.name(),
                output.dtype.name()
            )));
        }
    }
    Ok(())
}

impl Operator for Movement {
    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        let mut out = TokenStream::new();
        for (t, v) in &self.fills {
            let dst = cx.write(*t)?;
            out.extend(quote!(::tinyaot::__private::kernels::movement::fill(#dst, #v);));
        }
        for c in &self.copies {
            if c.dims.len() > 6 {
                return Err(Error::model("internal error: a copy of more than 6 dimensions"));
            }
            let pad = 6 - c.dims.len();
            let dims: Vec<usize> = std::iter::repeat_n(1, pad).chain(c.dims.iter().map(|d| d.0)).collect();
            let ss: Vec<isize> = std::iter::repeat_n(0, pad).chain(c.dims.iter().map(|d| d.1)).collect();
            let ds: Vec<isize> = std::iter::repeat_n(0, pad).chain(c.dims.iter().map(|d| d.2)).collect();
            let src = cx.read(c.src)?;
            let dst = cx.write(c.dst)?;
            let (sb, db) = (c.src_base, c.dst_base);
            let shape = quote!(&::tinyaot::__private::kernels::movement::Copy6 { dims: [#(#dims),*], src: [#(#ss),*], dst: [#(#ds),*] });
            out.extend(match &c.map {
                Some(table) => {
                    let bytes: Vec<u8> = table.iter().map(|&v| v as u8).collect();
                    let table = cx.bytes(&bytes);
                    quote!(::tinyaot::__private::kernels::movement::copy_mapped(#src, #sb, #dst, #db, #shape, #table.cast::<i8>());)
                }
                None => quote!(::tinyaot::__private::kernels::movement::copy(#src, #sb, #dst, #db, #shape);),
            });
        }
        Ok(out)
    }
}

/// A copy of a whole source tensor into a box of the destination.
pub fn whole(src: &Tensor<'_>, dst: usize, dst_base: usize, dst_strides: &[usize]) -> BoxCopy {
    let ss = strides(&src.shape);
    BoxCopy {
        src: src.index,
        src_base: 0,
        dst,
        dst_base,
        dims: src.shape.iter().zip(&ss).zip(dst_strides).map(|((&d, &s), &t)| (d, s as isize, t as isize)).collect(),
        map: None,
    }
}

/// The box copies of a gather that is separable by dimension: `maps[d][i]`
/// is the source index along dimension `d` of destination index `i`
/// (`None`: not copied, left to a fill). Each dimension's map splits into
/// runs of one step (1 forward, -1 mirrored, 0 repeated); the boxes are
/// the products of the runs, so a reversal is one box and a mirror pad
/// three per padded dimension.
pub fn gather_boxes(
    (src, src_base, src_strides): (usize, usize, &[usize]),
    (dst, dst_base, dst_strides): (usize, usize, &[usize]),
    maps: &[Vec<Option<usize>>],
) -> Vec<BoxCopy> {
    // Per dimension: (destination start, length, source start, source step).
    let runs: Vec<Vec<(usize, usize, usize, isize)>> = maps
        .iter()
        .map(|map| {
            let mut runs: Vec<(usize, usize, usize, isize)> = Vec::new();
            for (i, s) in map.iter().enumerate() {
                let Some(s) = *s else { continue };
                match runs.last_mut() {
                    Some((start, len, first, step)) if *start + *len == i => {
                        let delta = s as isize - (*first as isize + *step * (*len as isize - 1));
                        if *len == 1 && delta.abs() <= 1 {
                            *step = delta;
                            *len += 1;
                            continue;
                        }
                        if *len > 1 && delta == *step {
                            *len += 1;
                            continue;
                        }
                        runs.push((i, 1, s, 0));
                    }
                    _ => runs.push((i, 1, s, 0)),
                }
            }
            runs
        })
        .collect();
    let mut boxes = vec![BoxCopy { src, src_base, dst, dst_base, dims: Vec::new(), map: None }];
    for (d, runs) in runs.iter().enumerate() {
        boxes = boxes
            .iter()
            .flat_map(|b| {
                runs.iter().map(move |&(start, len, first, step)| {
                    let mut b = b.clone();
                    b.src_base += first * src_strides[d];
                    b.dst_base += start * dst_strides[d];
                    b.dims.push((len, step * src_strides[d] as isize, dst_strides[d] as isize));
                    b
                })
            })
            .collect();
    }
    boxes
}
