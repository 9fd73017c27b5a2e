//! TFLM's DECODE (`CUSTOM:TFLM_DECODE`), which TFLM's compression tool
//! inserts before each op reading a compressed constant: inputs in pairs
//! (the encoded tensor, its ancillary data), one output per pair, the
//! constant as it was before compression. TFLM decodes into the arena on
//! every invoke; every input is a constant, so here the graph reader
//! decodes once at compile time (`fold_constants`, a registered graph pass) and the
//! ops reading the output see an ordinary constant (packed into their
//! weight layouts, in flash): no RAM, no time, the same values. The flash
//! holds the decoded constant, not the compressed form.
//!
//! Look-up tables as TFLM's `DecodeStateLut`: the ancillary data starts with a
//! 16-byte header (byte 0 the decode type, 0 = look-up table; byte 1 its
//! version, 1; byte 4 the table format's version, 1; byte 5's low 3 bits
//! the index width; byte 6 the entries per channel's table), then the value
//! tables, one per channel, in the output's dtype. Element `k`'s index is
//! bits `k * width ..` of the encoded bytes, most significant bit first.
//! The channels are the output's quantization scales: along axis 0 (each
//! channel a run of elements) or along the last axis (channels
//! interleaved); no quantization is one table. Pruned tensors
//! (`DecodeStatePrune`, type 2): a bit per element, most significant
//! first, 1 for the next value of the list after the header, 0 for the
//! zero point (the channel's, for int8). Huffman-coded tensors (type 1,
//! `DecodeStateHuffman`: see [`huffman`]). TFLM's tool writes neither
//! pruned nor Huffman-coded tensors yet.

use crate::diag::Error;
use crate::graph::{DType, Graph, Tensor};
use crate::lowering::context::OpCx;
use crate::lowering::emit::Emit;
use crate::lowering::operator::Operator;
use proc_macro2::TokenStream;
use std::borrow::Cow;

/// The operator's name in the graph.
pub const NAME: &str = "CUSTOM:TFLM_DECODE";

/// Bytes of the ancillary data's header (TFLM's `kDcmSizeInBytes`).
const HEADER: usize = 16;

/// A DECODE whose outputs the graph reader decoded into constants.
#[derive(Debug)]
struct Decoded;

impl Operator for Decoded {
    fn emit(&self, _: &mut Emit<'_>) -> Result<TokenStream, Error> {
        Ok(TokenStream::new())
    }
}

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    let node = cx.node;
    if node.outputs.is_empty() || node.inputs.len() != 2 * node.outputs.len() {
        return Err(cx.err(format!(
            "has {} inputs and {} outputs; TFLM's DECODE takes an encoded tensor and its ancillary data per output",
            node.inputs.len(),
            node.outputs.len()
        )));
    }
    for k in 0..node.outputs.len() {
        let output = cx.output(k)?;
        if output.data.is_some() {
            continue;
        }
        // Not decoded when the graph was read: say why.
        decoded(cx.input(2 * k)?, cx.input(2 * k + 1)?, output).map_err(|why| cx.err(why))?;
        return Err(cx.err(format!(
            "output '{}' is a graph output or a variable: tinyaot decodes compressed constants at compile time, \
             into the constants the next op reads",
            output.name
        )));
    }
    Ok(Box::new(Decoded))
}

/// The bytes of `output` decoded from `encoded` and `ancillary`, or why
/// they cannot be (every read TFLM would make out of bounds is an error).
pub fn decoded(encoded: &Tensor<'_>, ancillary: &Tensor<'_>, output: &Tensor<'_>) -> Result<Vec<u8>, String> {
    let (Some(bits), Some(anc)) = (encoded.data.as_deref(), ancillary.data.as_deref()) else {
        return Err(format!(
            "the encoded tensor '{}' and its ancillary data '{}' must be constants (TFLM requires it)",
            encoded.name, ancillary.name
        ));
    };
    if anc.len() < HEADER {
        return Err(format!(
            "ancillary data '{}' holds {} bytes, less than its 16-byte header",
            ancillary.name,
            anc.len()
        ));
    }
    if anc[1] != 1 {
        return Err(format!("ancillary data '{}': header version {}; TFLM reads version 1", ancillary.name, anc[1]));
    }
    let kind = match anc[0] {
        0 => "look-up table",
        1 => "Huffman table",
        2 => "pruned tensor",
        t => return Err(format!("decode type {t} is not supported (0: look-up table, 1: Huffman, 2: pruned)")),
    };
    if anc[4] != 1 {
        return Err(format!("{kind} version {}; TFLM reads version 1", anc[4]));
    }
    match anc[0] {
        0 => look_up(encoded, ancillary, output),
        1 => huffman(bits, anc, output),
        _ => pruned(encoded, ancillary, output),
    }
}

/// `n` bits of `bytes` from bit `at`, most significant first (bits past
/// the end read as 0).
fn msb_bits(bytes: &[u8], at: usize, n: usize) -> usize {
    (at..at + n).fold(0, |v, bit| (v << 1) | bytes.get(bit / 8).map_or(0, |byte| (byte >> (7 - bit % 8)) & 1) as usize)
}

/// What the look-up-table and pruned forms share: the element size (the
/// dtypes TFLM decodes), TFLM's channels (the output's scales, along the
/// first axis or, with more than one, interleaved along the last) as a
/// function from element to channel, and the check that the encoded
/// tensor holds `width` bits per element. Returns (size, channels,
/// channel of an element).
fn layout<'t>(
    encoded: &Tensor<'_>,
    width: usize,
    output: &'t Tensor<'_>,
) -> Result<(usize, usize, impl Fn(usize) -> usize + 't), String> {
    let bits = encoded.data.as_deref().unwrap_or_default();
    let size = match output.dtype {
        DType::Bool | DType::F32 | DType::I8 | DType::I16 | DType::I32 | DType::I64 => output.dtype.size().unwrap_or(1),
        other => {
            return Err(format!(
                "decodes into {} ('{}'); TFLM decodes bool, float32, int8, int16, int32 or int64",
                other.name(),
                output.name
            ));
        }
    };
    let (channels, interleaved) = match &output.quant {
        Some(q) if !q.scales.is_empty() => {
            let last = q.axis == output.shape.len().wrapping_sub(1) && q.scales.len() > 1;
            if !last && q.axis != 0 {
                return Err(format!(
                    "output '{}' is quantized along axis {}; TFLM decodes along the first or the last axis",
                    output.name, q.axis
                ));
            }
            (q.scales.len(), last)
        }
        _ => (1, false),
    };
    let count = output.elements;
    if !count.is_multiple_of(channels) {
        return Err(format!("output '{}': {count} elements in {channels} channels do not divide", output.name));
    }
    if bits.len() * 8 < count * width {
        return Err(format!(
            "encoded tensor '{}' holds {} bytes; {count} indices of {width} bits need {}",
            encoded.name,
            bits.len(),
            (count * width).div_ceil(8)
        ));
    }
    let channel_of = move |k: usize| if interleaved { k % channels } else { k / (count / channels) };
    Ok((size, channels, channel_of))
}

/// Look-up table (`DecodeStateLut`): element `k`'s index is its `width`
/// bits; each channel's table starts `stride` entries after the last.
fn look_up(encoded: &Tensor<'_>, ancillary: &Tensor<'_>, output: &Tensor<'_>) -> Result<Vec<u8>, String> {
    let (bits, anc) = (encoded.data.as_deref().unwrap_or_default(), ancillary.data.as_deref().unwrap_or_default());
    let (width, stride, tables) = ((anc[5] & 0x07) as usize, anc[6] as usize, &anc[HEADER..]);
    let (size, _, channel_of) = layout(encoded, width, output)?;
    let mut out = Vec::with_capacity(output.elements * size);
    for k in 0..output.elements {
        let (i, channel) = (msb_bits(bits, k * width, width), channel_of(k));
        let at = (channel * stride + i) * size;
        let entry = tables.get(at..at + size).ok_or_else(|| {
            format!(
                "index {i} of channel {channel} reaches past the value tables of '{}' ({} bytes)",
                ancillary.name,
                tables.len()
            )
        })?;
        out.extend_from_slice(entry);
    }
    Ok(out)
}

/// Pruned (`DecodeStatePrune`): a bit per element, 1 for the next kept
/// value, 0 for the zero point (its channel's, for int8 with several;
/// TFLM requires zero ones for other dtypes).
fn pruned(encoded: &Tensor<'_>, ancillary: &Tensor<'_>, output: &Tensor<'_>) -> Result<Vec<u8>, String> {
    let (bits, tables) =
        (encoded.data.as_deref().unwrap_or_default(), &ancillary.data.as_deref().unwrap_or_default()[HEADER..]);
    let (size, channels, channel_of) = layout(encoded, 1, output)?;
    let zero_points: Vec<i64> = match &output.quant {
        Some(q) if !q.zero_points.is_empty() => q.zero_points.iter().copied().take(channels).collect(),
        _ => vec![0],
    };
    if output.dtype != DType::I8 && zero_points.iter().any(|&z| z != 0) {
        return Err(format!(
            "output '{}': TFLM decodes pruned {} with zero points of 0 only",
            output.name,
            output.dtype.name()
        ));
    }
    let mut kept = tables.chunks_exact(size);
    let mut out = Vec::with_capacity(output.elements * size);
    for k in 0..output.elements {
        if msb_bits(bits, k, 1) == 1 {
            out.extend_from_slice(kept.next().ok_or_else(|| {
                format!(
                    "kept value of element {k} reaches past the value tables of '{}' ({} bytes)",
                    ancillary.name,
                    tables.len()
                )
            })?);
        } else {
            let z = if zero_points.len() == channels { zero_points[channel_of(k)] } else { zero_points[0] };
            out.extend_from_slice(&z.to_le_bytes()[..size]);
        }
    }
    Ok(out)
}

/// A Huffman-coded tensor as TFLM's `DecodeStateHuffman` decodes it: the
/// codes a bit stream, most significant bit first (TFLM reads it as
/// big-endian 32-bit words: the same order); byte 5 of the header says
/// whether the tables hold 16- or 32-bit entries (bit 0; 16-bit ones only
/// for int8) and how many bits index the first table (bits 7-4, plus one).
/// Each step reads that many bits and looks the entry up: with its top bit
/// set it is a symbol (the output element: its low 8 or 16 bits) whose
/// count field says how many of the bits read belong to the code (the rest
/// are read again for the next element); otherwise it points to a further
/// table (its value the offset from the entry, plus the next bits read:
/// count field + 1 of them). Bits past the end of the stream read as 0.
fn huffman(bits: &[u8], anc: &[u8], output: &Tensor<'_>) -> Result<Vec<u8>, String> {
    let wide = anc[5] & 1 != 0;
    let size = match (output.dtype, wide) {
        (DType::I8, _) => 1,
        (DType::I16, true) => 2,
        (other, _) => {
            return Err(format!(
                "Huffman-decodes into {} ('{}'); TFLM decodes int8 (16- or 32-bit tables) or int16 (32-bit tables)",
                other.name(),
                output.name
            ));
        }
    };
    let (entry_bytes, symbol_bit, count_shift, value_mask) =
        if wide { (4, 1u32 << 31, 27, 0x07FF_FFFF) } else { (2, 1 << 15, 11, 0x07FF) };
    let entries: Vec<u32> =
        anc[HEADER..]
            .chunks_exact(entry_bytes)
            .map(|e| {
                if wide {
                    u32::from_le_bytes([e[0], e[1], e[2], e[3]])
                } else {
                    u16::from_le_bytes([e[0], e[1]]) as u32
                }
            })
            .collect();
    let first_bits = ((anc[5] >> 4) + 1) as usize;
    let mut at = 0usize;
    let read = |n: usize, at: &mut usize| {
        let v = msb_bits(bits, *at, n);
        *at += n;
        v
    };
    let mut out = Vec::with_capacity(output.elements * size);
    for k in 0..output.elements {
        let mut used = first_bits;
        let mut offset = read(used, &mut at);
        let mut steps = 0;
        let entry = loop {
            let entry = *entries.get(offset).ok_or_else(|| {
                format!("element {k}: Huffman table entry {offset} is past the {} entries", entries.len())
            })?;
            if entry & symbol_bit != 0 {
                break entry;
            }
            steps += 1;
            if steps > 32 {
                return Err(format!("element {k}: the Huffman tables do not reach a symbol in 32 steps"));
            }
            used = ((entry >> count_shift) & 0xF) as usize + 1;
            offset += (entry & value_mask) as usize + read(used, &mut at);
        };
        out.extend_from_slice(&entry.to_le_bytes()[..size]);
        let code = ((entry >> count_shift) & 0xF) as usize;
        at -= used.saturating_sub(code);
    }
    Ok(out)
}

/// Graph pass: each output of a DECODE becomes the constant it decodes to,
/// once, when the graph is read: the ops reading it see constant weights.
/// What cannot be decoded, or is a graph output or a variable, is left to
/// the op, which says why.
pub fn fold_constants(graph: &mut Graph<'_>) -> Result<(), Error> {
    for n in 0..graph.nodes.len() {
        let node = &graph.nodes[n];
        if node.name != NAME || node.inputs.len() != 2 * node.outputs.len() {
            continue;
        }
        for (k, &o) in node.outputs.iter().enumerate() {
            let (Some(e), Some(a)) = (node.inputs[2 * k], node.inputs[2 * k + 1]) else { continue };
            let output = &graph.tensors[o];
            if output.data.is_some() || output.is_variable || graph.outputs.contains(&o) {
                continue;
            }
            if let Ok(bytes) = decoded(&graph.tensors[e], &graph.tensors[a], output) {
                graph.tensors[o].data = Some(Cow::Owned(bytes));
            }
        }
    }
    Ok(())
}
