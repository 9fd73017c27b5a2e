//! TFLM signal library's FILTER_BANK (`CUSTOM:SignalFilterBank`): mel
//! channels from a uint32 energy spectrum. Each channel's bins, from its
//! frequency start over its width, are summed with the weights into the
//! channel and with the "unweights" into the next (TFLM
//! `FilterbankAccumulateChannels`, in wrapping 64-bit arithmetic: an
//! int16 weight widened to uint64); `num_channels + 1` entries of each
//! int16 config tensor, the first channel scratch. A constant config is
//! checked here against the spectrum and weights; a computed one reads 0
//! past their ends.

use crate::diag::Error;
use crate::graph::{DType, Tensor};
use crate::lowering::context::OpCx;
use crate::lowering::emit::Emit;
use crate::lowering::operator::Operator;
use crate::tflite::flexbuffer::FlexMap;
use proc_macro2::TokenStream;
use quote::quote;

/// Position of `num_channels` among the options.
const NUM_CHANNELS: usize = 0;

#[derive(Debug)]
struct FilterBank {
    /// Spectrum, weights, unweights, frequency starts, weight starts, widths.
    inputs: [usize; 6],
    output: usize,
    channels: usize,
}

fn int16s(t: &Tensor<'_>) -> Option<Vec<i64>> {
    t.data.as_deref().map(|d| d.chunks_exact(2).map(|c| i16::from_le_bytes([c[0], c[1]]) as i64).collect())
}

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    cx.arity(6, 6, 1)?;
    let tensors = (0..6).map(|i| cx.input(i)).collect::<Result<Vec<_>, _>>()?;
    let output = cx.output(0)?;
    let options = cx.node.custom_options.ok_or_else(|| cx.err("the options (num_channels) are missing"))?;
    let channels = FlexMap::root(options).and_then(|m| m.int(NUM_CHANNELS)).map_err(|e| cx.err(e.message))?;
    let channels = usize::try_from(channels)
        .ok()
        .filter(|&c| c < 1 << 16)
        .ok_or_else(|| cx.err(format!("num_channels {channels} is out of range")))?;
    let (spectrum, config) = (tensors[0], &tensors[1..]);
    if spectrum.dtype != DType::U32
        || output.dtype != DType::U64
        || spectrum.shape.len() != 1
        || output.shape.len() != 1
    {
        return Err(cx.unsupported(
            &format!("spectrum {}, output {}", spectrum.describe(), output.describe()),
            "1-D uint32 -> 1-D uint64 (as TFLM)",
        ));
    }
    for t in config {
        if t.dtype != DType::I16 || t.shape.len() != 1 {
            return Err(cx.err(format!("config tensor '{}' must be 1-D int16, it is {}", t.name, t.describe())));
        }
    }
    for t in &config[2..] {
        if t.elements < channels + 1 {
            return Err(cx.err(format!(
                "'{}' has {} entries; num_channels {channels} needs {}",
                t.name,
                t.elements,
                channels + 1
            )));
        }
    }
    if output.elements > channels {
        return Err(cx.err(format!("the output {} has more than num_channels ({channels})", output.describe())));
    }
    // A constant config must address bins and weights that exist.
    if let (Some(freq), Some(starts), Some(widths)) = (int16s(config[2]), int16s(config[3]), int16s(config[4])) {
        let weights = config[0].elements.min(config[1].elements) as i64;
        for i in 0..=channels {
            let (f, s, w) = (freq[i], starts[i], widths[i].max(0));
            if f < 0 || s < 0 || f + w > spectrum.elements as i64 || s + w > weights {
                return Err(cx.err(format!(
                    "channel {i} reads bins {f}..{} and weights {s}..{} of {} and {weights}",
                    f + w,
                    s + w,
                    spectrum.elements
                )));
            }
        }
    }
    let mut inputs = [0; 6];
    for (slot, t) in inputs.iter_mut().zip(&tensors) {
        *slot = t.index;
    }
    Ok(Box::new(FilterBank { inputs, output: output.index, channels: output.elements }))
}

impl Operator for FilterBank {
    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        let channels = self.channels;
        let reads = self.inputs.iter().map(|&t| cx.read(t)).collect::<Result<Vec<_>, _>>()?;
        let [spectrum, weights, unweights, frequency_starts, weight_starts, widths] =
            [0, 1, 2, 3, 4, 5].map(|i| &reads[i]);
        let output = cx.write(self.output)?;
        let signal = quote!(::tinyaot::__private::kernels::signal);
        Ok(quote!(#signal::filter_bank::<#channels>(#spectrum, &#signal::FilterBankConfig {
            weights: #weights, unweights: #unweights, frequency_starts: #frequency_starts,
            weight_starts: #weight_starts, widths: #widths,
        }, #output);))
    }
}
