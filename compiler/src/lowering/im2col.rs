//! The int8 im2col convolution's call (CONV_2D, and DEPTHWISE_CONV_2D of
//! input depth 1, whose rows are the filter's columns): for each target
//! family the one runtime function that runs the layer ([`Run`]), decided
//! here once, over the weight layout that family reads.

use crate::lowering::targets::{ByFamily, Family};
use crate::lowering::weights::{FamilyRows, RowsByFamily};
use crate::lowering::window::Geometry;
use proc_macro2::TokenStream;
use quote::quote;
use tinyaot_common::layout::{PAIR_MAX_DEPTH, depth4, fused_pairs};
use tinyaot_common::scratch::pending_pixels;

/// The runtime function a family runs the layer with; each takes one path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Run {
    /// `conv2d_pointwise_pairs_s8`: a dense pointwise layer (1x1, stride
    /// 1, no padding) over rows in the pair-row layout, the
    /// requantization fused.
    PointwisePairs,
    /// `conv2d_pairs_s8`: two pixels at a time, over rows in the pair-row
    /// layout (`lanes`, the requantization fused) or plain byte rows.
    Pairs {
        /// Rows in the pair-row layout.
        lanes: bool,
    },
    /// `conv2d_two_s8`: two pixels at a time over plain byte rows, the
    /// requantization fused (the byte-pairs family).
    Two,
    /// `conv2d_im2col_s8`: one pixel at a time, over any layout.
    Pixels,
}

/// An int8 im2col layer as its call needs it.
pub struct Im2colS8<'g> {
    /// The window geometry (its input depth `ic`: 1 for a depthwise).
    pub geo: &'g Geometry,
    /// Input channels the rows see.
    pub ic: usize,
    /// The weight rows as each family reads them
    /// (`PackedRows::emit_by_family`).
    pub rows: RowsByFamily,
    /// The requantization fuses (`Requant::fused`).
    pub fuse: bool,
    /// The fused pair kernels keep the nudge of negative sums.
    pub nudge: bool,
}

impl Im2colS8<'_> {
    /// Values per row, padded to whole groups of 4.
    fn d4(&self) -> usize {
        depth4(self.geo.kernel[0] * self.geo.kernel[1] * self.ic)
    }

    /// How `family` runs the layer over `rows`, the layout it reads.
    pub fn run(&self, family: Family, rows: &FamilyRows) -> Run {
        let pointwise = self.geo.im2col_in_place();
        let (d4, ic, oc) = (self.d4(), self.ic, self.geo.output[3]);
        match (family, rows) {
            (Family::Pairs, FamilyRows::Lanes(_)) => {
                let [_, ih, iw, _] = self.geo.input;
                let [_, oh, ow, _] = self.geo.output;
                let dense = self.geo.stride == [1, 1] && (ih, iw) == (oh, ow);
                if pointwise && dense { Run::PointwisePairs } else { Run::Pairs { lanes: true } }
            }
            (Family::Pairs, FamilyRows::Bytes(_)) => {
                // Where the requantization does not fuse, pairs gain only
                // on long rows: with few channels per pixel the pair's
                // sums go through memory and the fixed costs are spread
                // over fewer of them.
                let alone = pending_pixels(oc) == 1;
                let long_rows = if pointwise {
                    alone && (4..=PAIR_MAX_DEPTH).contains(&ic)
                } else {
                    d4 <= PAIR_MAX_DEPTH && (d4 >= 128 || alone && d4 >= 64)
                };
                let pairs = self.fuse && fused_pairs(d4, pointwise, ic) || long_rows;
                if pairs { Run::Pairs { lanes: false } } else { Run::Pixels }
            }
            // Each weight byte loaded once for two pixels, where the
            // sums requantize from registers and the two rows fit the
            // stack buffers (the pair kernels' bound).
            (Family::BytePairs, FamilyRows::Bytes(_)) if self.fuse && d4 <= PAIR_MAX_DEPTH && oc >= 4 => Run::Two,
            _ => Run::Pixels,
        }
    }

    /// The call for every family (`io`, `bias`, `q`, `patch`: the
    /// arguments' expressions).
    pub fn emit(&self, io: &TokenStream, bias: &TokenStream, q: &TokenStream, patch: &TokenStream) -> TokenStream {
        let [n, ih, iw, _] = self.geo.input;
        let [_, oh, ow, oc] = self.geo.output;
        let [kh, kw] = self.geo.kernel;
        let (ic, d4, fuse, nudge) = (self.ic, self.d4(), self.fuse, self.nudge);
        let win = self.geo.window();
        ByFamily::of(|family| {
            let rows = &self.rows[family];
            let kernel = quote!(::tinyaot::__private::kernels::conv);
            match (self.run(family, rows), rows.slice()) {
                (Run::PointwisePairs, Some(slice)) => {
                    let pixels = n * oh * ow;
                    quote!(#kernel::conv2d_pointwise_pairs_s8::<#pixels, #ic, #oc, #nudge, _>(#io, #slice, #bias, #q);)
                }
                (Run::Two, Some(slice)) => quote!(#kernel::conv2d_two_s8::<#n, #ih, #iw, #ic, #oh, #ow, #oc, #kh, #kw, #d4, _>(
                    #io, #slice, #bias, #win, #q);),
                (Run::Pairs { lanes }, Some(slice)) => quote!(#kernel::conv2d_pairs_s8::<#n, #ih, #iw, #ic, #oh, #ow, #oc, #kh, #kw, #d4, #fuse, #lanes, #nudge, _>(
                    #io, #slice, #bias, #win, #q, #patch);),
                _ => {
                    let packed = rows.packed();
                    quote!(#kernel::conv2d_im2col_s8::<#n, #ih, #iw, #ic, #oh, #ow, #oc, #kh, #kw, #d4, #fuse, _>(
                        #io, #packed, #bias, #win, #q, #patch);)
                }
            }
        })
        .emit()
    }
}
