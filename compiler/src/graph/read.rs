//! One tensor or node read from the file's tables, every index and size
//! checked: what TFLM's allocator reads, as leniently.

use super::{DType, MAX_RANK, MAX_TENSOR_BYTES, Node, Quant, Tensor};
use crate::diag::Error;
use crate::tflite::{self, names};
use std::borrow::Cow;

pub(super) fn tensor_index(raw: i32, count: usize, what: &str) -> Result<usize, Error> {
    usize::try_from(raw)
        .ok()
        .filter(|&i| i < count)
        .ok_or_else(|| Error::model(format!("{what} refers to tensor {raw}, but the graph has {count} tensors")))
}

/// TFLite's `INT4` tensor type.
const INT4: i8 = 17;

/// `n` int4 values packed two per byte, low nibble first (TFLM's
/// `UnpackDenseInt4IntoInt8`), as int8 bytes.
fn unpack_int4(packed: &[u8], n: usize) -> Vec<u8> {
    (0..n)
        .map(|i| {
            let byte = packed[i / 2] as i8;
            let value = if i % 2 == 0 { (byte << 4) >> 4 } else { byte >> 4 };
            value as u8
        })
        .collect()
}

pub(super) type CodeVec<'a> = tflite::List<'a, tflite::OperatorCode<'a>>;
pub(super) type BufferVec<'a> = tflite::List<'a, tflite::Buffer<'a>>;

pub(super) fn read_node<'a>(
    index: usize,
    op: &tflite::Operator<'a>,
    codes: Option<&CodeVec<'a>>,
    count: usize,
) -> Result<Node<'a>, Error> {
    let opcode_index = op.opcode_index()? as usize;
    let code = codes
        .filter(|c| opcode_index < c.len())
        .map(|c| c.get(opcode_index))
        .ok_or_else(|| Error::model(format!("op {index}: operator code index {opcode_index} is out of range")))??;
    let builtin = code.code()?;
    let name = if builtin == 32 {
        format!("CUSTOM:{}", code.custom_code()?.unwrap_or("?"))
    } else {
        names::builtin_name(builtin).map_or_else(|| format!("builtin operator {builtin}"), str::to_string)
    };
    let what = format!("op {index} ({name})");
    let inputs = op
        .inputs()?
        .map(|v| {
            v.iter()
                .map(|i| if i < 0 { Ok(None) } else { tensor_index(i, count, &what).map(Some) })
                .collect::<Result<Vec<_>, _>>()
        })
        .transpose()?
        .unwrap_or_default();
    let outputs = op
        .outputs()?
        .map(|v| v.iter().map(|i| tensor_index(i, count, &what)).collect::<Result<Vec<_>, _>>())
        .transpose()?
        .unwrap_or_default();
    Ok(Node {
        index,
        code: builtin,
        name,
        version: code.version()?,
        inputs,
        outputs,
        options_type: op.builtin_options_type()?,
        options: op.builtin_options()?,
        custom_options: op.custom_options()?,
        fixed_order: false,
        from_uint8: false,
        subgraph: 0,
        scopes: Vec::new(),
    })
}

pub(super) fn read_tensor<'a>(
    index: usize,
    name: String,
    t: &tflite::Tensor<'a>,
    buffers: Option<&BufferVec<'a>>,
) -> Result<Tensor<'a>, Error> {
    // int4 (TensorType 17) is taken as TFLM takes it, for constant weights
    // only: unpacked here into int8 (two per byte, low nibble first).
    let int4 = t.dtype()? == INT4;
    let dtype = if int4 { DType::I8 } else { DType::from_code(t.dtype()?) };
    let raw_shape: Vec<i32> = t.shape()?.map(|s| s.iter().collect()).unwrap_or_default();
    if raw_shape.len() > MAX_RANK {
        return Err(Error::model(format!(
            "tensor '{name}' has rank {}; tinyaot supports up to {MAX_RANK} dimensions",
            raw_shape.len()
        )));
    }
    // `shape_signature` may mark a dimension dynamic (-1) while `shape` holds
    // the size the model was converted with; like TFLM, use `shape`.
    if raw_shape.iter().any(|&d| d < 0) {
        return Err(Error::model(format!(
            "tensor '{name}' has a dynamic (-1) dimension {raw_shape:?}; tinyaot needs every shape \
             fixed at compile time (convert with a fixed batch size, e.g. `batch_size=1`)"
        )));
    }
    let shape: Vec<usize> = raw_shape.iter().map(|&d| d as usize).collect();
    if shape.contains(&0) {
        return Err(Error::model(format!("tensor '{name}' has an empty dimension in its shape {shape:?}")));
    }
    let elements =
        shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d)).filter(|&n| n <= MAX_TENSOR_BYTES).ok_or_else(
            || Error::model(format!("tensor '{name}' with shape {shape:?} is too large for any microcontroller")),
        )?;
    let bytes = match dtype.size() {
        Some(s) => elements.checked_mul(s).filter(|&b| b <= MAX_TENSOR_BYTES).ok_or_else(|| {
            Error::model(format!("tensor '{name}' with shape {shape:?} is too large for any microcontroller"))
        })?,
        None => 0,
    };
    if t.is_sparse() {
        return Err(Error::model(format!("tensor '{name}' is sparse; sparse tensors are not supported")));
    }

    let quant = match t.quantization()? {
        Some(q) if q.details_type()? != 0 => {
            return Err(Error::model(format!(
                "tensor '{name}' uses custom quantization details, which are not supported"
            )));
        }
        Some(q) => match q.scale()? {
            Some(scales) if !scales.is_empty() => {
                let scales: Vec<f32> = scales.iter().collect();
                // As TFLM's allocator: one zero point per scale where the
                // counts agree, else the first for every channel (weights'
                // zero points written once); none reads as 0.
                let written: Vec<i64> = q.zero_point()?.map(|z| z.iter().collect()).unwrap_or_default();
                let zero_points: Vec<i64> = match written.len() {
                    n if n == scales.len() => written,
                    0 => vec![0; scales.len()],
                    _ => vec![written[0]; scales.len()],
                };
                // TFLM's allocator copies the dimension without checking it:
                // only a kernel that reads per-channel parameters looks at it
                // (and checks the count against its own channel axis), so a
                // bias that carries its filter's axis 3 at rank 1 is fine.
                let axis = usize::try_from(q.quantized_dimension()?).unwrap_or(usize::MAX);
                let (zmin, zmax) = match dtype {
                    DType::I8 => (-128, 127),
                    DType::U8 => (0, 255),
                    DType::I16 => (-32768, 32767),
                    _ => (i32::MIN as i64, i32::MAX as i64),
                };
                if let Some(z) = zero_points.iter().find(|&&z| z < zmin || z > zmax) {
                    return Err(Error::model(format!(
                        "tensor '{name}' ({}) has zero point {z}, outside its type's range",
                        dtype.name()
                    )));
                }
                if scales.iter().any(|s| !s.is_finite() || *s <= 0.0) {
                    return Err(Error::model(format!("tensor '{name}' has a non-positive or non-finite scale")));
                }
                Some(Quant { scales, zero_points, axis })
            }
            _ => None,
        },
        None => None,
    };

    let buffer_index = t.buffer()? as usize;
    let data = if buffer_index == 0 {
        None
    } else {
        let buffers = buffers.filter(|b| buffer_index < b.len()).ok_or_else(|| {
            Error::model(format!("tensor '{name}' refers to buffer {buffer_index}, which does not exist"))
        })?;
        let buffer = buffers.get(buffer_index)?;
        // Data stored after the flatbuffer: LiteRT reads it there; TFLM
        // does not look (it runs such a file on empty weights).
        let stored = match buffer.external()? {
            Some(d) => Some(d),
            None => buffer.data()?,
        };
        match stored {
            Some(d) if !d.is_empty() && int4 => {
                if d.len() != elements.div_ceil(2) {
                    return Err(Error::model(format!(
                        "int4 tensor '{name}' {shape:?} needs {} bytes of packed data, its buffer has {}",
                        elements.div_ceil(2),
                        d.len()
                    )));
                }
                Some(Cow::Owned(unpack_int4(d, elements)))
            }
            Some(d) if !d.is_empty() => {
                if d.len() != bytes {
                    return Err(Error::model(format!(
                        "tensor '{name}' ({}{:?}) needs {bytes} bytes of data, its buffer has {}",
                        dtype.name(),
                        shape,
                        d.len()
                    )));
                }
                // The generated code hands bool tensors out as `&[bool]`:
                // a byte other than 0 or 1 would not be a `bool`.
                if let (DType::Bool, Some(i)) = (dtype, d.iter().position(|&b| b > 1)) {
                    return Err(Error::model(format!(
                        "bool constant '{name}' holds the byte {} at element {i}; a bool is 0 or 1",
                        d[i]
                    )));
                }
                Some(Cow::Borrowed(d))
            }
            _ => None,
        }
    };
    if int4 && data.is_none() {
        return Err(Error::model(format!(
            "int4 tensor '{name}' is not a constant; int4 is supported (as in TFLM) for constant weights only"
        )));
    }
    // TFLM never reads a variable's buffer: it resets the state to zero
    // (int8: the zero point) when the interpreter is set up and on reset.
    let is_variable = t.is_variable()?;
    let data = if is_variable { None } else { data };
    if is_variable && (bytes == 0 || dtype.size().is_none()) {
        return Err(Error::model(format!("variable tensor '{name}' ({}{shape:?}) has no storage", dtype.name())));
    }
    let int4 = int4 && data.is_some();
    Ok(Tensor { index, name, shape, dtype, quant, data, is_variable, int4, elements, bytes })
}
