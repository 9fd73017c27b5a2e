//! Weight layouts as the compiler emits them: int8 rows packed for the
//! blocked dot products, widened for small layers (`tinyaot-common`'s
//! `layout` holds the arrangements themselves), and int4 rows kept as the
//! model packs them.

use crate::lowering::emit::Emit;
use proc_macro2::TokenStream;

/// Largest layer (int8 weight bytes) whose rows the compiler widens at
/// compile time (`layout::pack_rows_widened`): twice the flash, about a third
/// fewer instructions in the dot products on DSP cores. Small layers are
/// the ones whose per-pixel work is least amortized.
pub const WIDENED_ROWS_MAX_BYTES: usize = 1024;

/// int8 weight rows packed for the kernels' blocked dot products
/// (`kernels::PackedRows`): bytes (`layout::pack_rows`), and for small
/// layers also widened words (`layout::pack_rows_widened`), which the
/// generated code uses where they are faster: cores with the DSP
/// extension and x86-64 (the other array is never referenced, so the
/// linker drops it).
#[derive(Clone, Debug)]
pub struct PackedRows {
    /// `layout::pack_rows`.
    pub bytes: Vec<u8>,
    /// `layout::pack_rows_widened` as little-endian words, for small layers.
    pub widened: Option<Vec<u8>>,
    /// Weights the model stores as int4: the rows as
    /// `layout::pack_rows_int4` words (little-endian bytes), the row length
    /// and the row count, read by `kernels::dot_int4::Int4Rows` (half the
    /// flash); `bytes` then unused.
    pub int4: Option<(Vec<u8>, usize, usize)>,
    /// `layout::pack_pair_rows`, for the fused pixel-pair kernels
    /// (`kernels::dot::PairRows`); the generated code uses it where the
    /// target has them (DSP cores, x86-64) and `bytes` elsewhere.
    pub pair_lanes: Option<Vec<u8>>,
    /// `layout::pack_rows_vector`, for targets with vector dot products
    /// (Helium: `kernels::dot_vector::VectorRows`), which the generated code
    /// takes there instead of all the layouts above; `None` for int4 rows.
    pub vector: Option<Vec<u8>>,
}

impl PackedRows {
    /// `channels` rows of `depth` values (`rows[c * depth + k]`).
    pub fn new(rows: &[i8], channels: usize, depth: usize) -> PackedRows {
        use crate::layout::{
            pack_rows, pack_rows_vector, pack_rows_widened, packed_len, packed_widened_len, vector_packed_len,
        };
        let mut packed = vec![0i8; packed_len(channels, depth)];
        pack_rows(rows, channels, depth, &mut packed);
        let mut vector = vec![0i8; vector_packed_len(channels, depth)];
        pack_rows_vector(rows, channels, depth, &mut vector);
        let widened = (packed.len() <= WIDENED_ROWS_MAX_BYTES).then(|| {
            let mut words = vec![0u32; packed_widened_len(channels, depth)];
            pack_rows_widened(rows, channels, depth, &mut words);
            words.iter().flat_map(|w| w.to_le_bytes()).collect()
        });
        let bytes = |v: &[i8]| v.iter().map(|&b| b as u8).collect();
        PackedRows { bytes: bytes(&packed), widened, int4: None, pair_lanes: None, vector: Some(bytes(&vector)) }
    }

    /// `channels` rows of `depth` int4 values (given unpacked, as int8), kept
    /// at half a byte each (`layout::pack_rows_int4`).
    pub fn int4(rows: &[i8], channels: usize, depth: usize) -> PackedRows {
        let words = crate::layout::pack_rows_int4(rows, channels, depth).flat_map(u32::to_le_bytes).collect();
        PackedRows {
            bytes: Vec::new(),
            widened: None,
            int4: Some((words, depth, channels)),
            pair_lanes: None,
            vector: None,
        }
    }

    /// Rows for the model's weights: int4 ones (`int4`) kept packed, else
    /// [`PackedRows::new`].
    pub fn of(rows: &[i8], channels: usize, depth: usize, int4: bool) -> PackedRows {
        if int4 { PackedRows::int4(rows, channels, depth) } else { PackedRows::new(rows, channels, depth) }
    }

    /// These rows without the widened layout: for kernels that read byte
    /// rows anyway (the pixel-pair dot products), where the widened copy
    /// would only displace the byte rows the pairs need.
    pub fn bytes_only(mut self) -> PackedRows {
        self.widened = None;
        self
    }

    /// These rows for the fused pixel-pair kernels (`rows`: the same
    /// `channels` rows of `depth` values [`PackedRows::new`] took): the
    /// pair-row layout where the target has the kernels, the byte rows
    /// elsewhere; no widened copy. int4 rows stay as they are.
    pub fn pair_lanes(mut self, rows: &[i8], channels: usize, depth: usize) -> PackedRows {
        if self.int4.is_some() {
            return self;
        }
        let mut lanes = vec![0i8; crate::layout::packed_len(channels, depth)];
        crate::layout::pack_pair_rows(rows, channels, depth, &mut lanes);
        self.pair_lanes = Some(lanes.iter().map(|&b| b as u8).collect());
        self.bytes_only()
    }

    /// The flash constant(s) as the slice the kernels take: the vector
    /// layout where the target reads it, else the scalar kernels' (pair
    /// rows, widened or plain bytes, int4 words).
    pub fn emit(&self, cx: &mut Emit<'_>) -> TokenStream {
        let scalar = self.emit_scalar(cx);
        match &self.vector {
            None => scalar,
            Some(vector) => {
                // Not counted (the scalar layouts are; this one is at
                // most 12 bytes a row longer) and never copied to RAM.
                let vector = cx.alternative_bytes(vector);
                quote::quote!(::tinyaot::__private::vector_rows!(#vector.cast::<i8>(), #scalar))
            }
        }
    }

    /// The flash constant(s) as each target family reads them (emitted
    /// once each; counted as [`PackedRows::emit`] counts them).
    pub fn emit_by_family(&self, cx: &mut Emit<'_>) -> RowsByFamily {
        let cast = |name: proc_macro2::Ident| quote::quote!(#name.cast::<i8>());
        let (pairs, plain) = if let Some((words, depth, rows)) = &self.int4 {
            let words = cx.bytes(words);
            let int4 = FamilyRows::Int4(quote::quote!(::tinyaot::__private::kernels::dot_int4::Int4Rows {
                words: #words.cast::<u32>(), depth: #depth, rows: #rows
            }));
            (int4.clone(), int4)
        } else if let Some(lanes) = &self.pair_lanes {
            // Both layouts have the same size; one is counted.
            let lanes = cast(cx.bytes(lanes));
            (FamilyRows::Lanes(lanes), FamilyRows::Bytes(cast(cx.alternative_bytes(&self.bytes))))
        } else if let Some(widened) = &self.widened {
            // The larger, widened layout is counted.
            let widened = cx.bytes(widened);
            let widened = FamilyRows::Widened(quote::quote!(#widened.cast::<u32>()));
            (widened, FamilyRows::Bytes(cast(cx.alternative_bytes(&self.bytes))))
        } else {
            let bytes = FamilyRows::Bytes(cast(cx.bytes(&self.bytes)));
            (bytes.clone(), bytes)
        };
        // Not counted (the scalar layouts are) and never copied to RAM.
        let vector = match &self.vector {
            Some(v) => FamilyRows::Vector(cast(cx.alternative_bytes(v))),
            None => plain.clone(),
        };
        RowsByFamily([vector, pairs, plain.clone(), plain])
    }

    /// The layouts of the scalar kernels: pair rows, widened or plain bytes,
    /// int4 words.
    fn emit_scalar(&self, cx: &mut Emit<'_>) -> TokenStream {
        if let Some(lanes) = &self.pair_lanes {
            // Both layouts have the same size; one is counted.
            let lanes = cx.bytes(lanes);
            let bytes = cx.alternative_bytes(&self.bytes);
            // The runtime keeps the layout the target's kernels read.
            return quote::quote!(::tinyaot::__private::pair_rows!(#lanes.cast::<i8>(), #bytes.cast::<i8>()));
        }
        if let Some((words, depth, rows)) = &self.int4 {
            let words = cx.bytes(words);
            return quote::quote!(::tinyaot::__private::kernels::dot_int4::Int4Rows {
                words: #words.cast::<u32>(), depth: #depth, rows: #rows
            });
        }
        match &self.widened {
            None => {
                let bytes = cx.bytes(&self.bytes);
                quote::quote!(#bytes.cast::<i8>())
            }
            Some(widened) => {
                // WEIGHT_BYTES counts the larger, widened layout.
                let widened = cx.bytes(widened);
                let bytes = cx.alternative_bytes(&self.bytes);
                quote::quote!(::tinyaot::__private::widened_rows!(#widened.cast::<u32>(), #bytes.cast::<i8>()))
            }
        }
    }
}

/// int4 values (as int8 bytes) packed two per byte, low nibble first: the
/// model's own packing.
fn nibbles(values: impl ExactSizeIterator<Item = u8>) -> Vec<u8> {
    let mut nibbles = vec![0u8; values.len().div_ceil(2)];
    for (k, v) in values.enumerate() {
        nibbles[k / 2] |= (v & 0x0f) << (4 * (k % 2));
    }
    nibbles
}

/// An int4 filter (`values`: the model's, unpacked to int8 bytes) for the
/// direct kernels, kept at half a byte per weight:
/// `kernels::dot_int4::Int4Filter`.
pub fn int4_filter(cx: &mut Emit<'_>, values: &[u8]) -> TokenStream {
    // Read as the array itself (`.0`), which only the flash static has.
    let nibbles = cx.bytes_in_flash(&nibbles(values.iter().copied()));
    quote::quote!(::tinyaot::__private::kernels::dot_int4::Int4Filter { nibbles: &#nibbles.0 })
}

/// One family's weight rows (`PackedRows::emit_by_family`): the expression
/// of its layout.
#[derive(Clone, Debug)]
pub enum FamilyRows {
    /// `layout::pack_rows` bytes.
    Bytes(TokenStream),
    /// `layout::pack_rows_widened` words.
    Widened(TokenStream),
    /// `layout::pack_pair_rows` bytes.
    Lanes(TokenStream),
    /// `layout::pack_rows_int4` words, as `Int4Rows`.
    Int4(TokenStream),
    /// `layout::pack_rows_vector` bytes.
    Vector(TokenStream),
}

impl FamilyRows {
    /// The rows as the `impl PackedRows` argument of the one-pixel kernels.
    pub fn packed(&self) -> TokenStream {
        match self {
            FamilyRows::Lanes(rows) => quote::quote!(::tinyaot::__private::kernels::dot::PairRows(#rows)),
            FamilyRows::Vector(rows) => quote::quote!(::tinyaot::__private::kernels::dot_vector::VectorRows(#rows)),
            FamilyRows::Bytes(rows) | FamilyRows::Widened(rows) | FamilyRows::Int4(rows) => rows.clone(),
        }
    }

    /// The bytes the pixel-pair kernels read: pair-row or plain byte rows.
    pub fn slice(&self) -> Option<&TokenStream> {
        match self {
            FamilyRows::Lanes(rows) | FamilyRows::Bytes(rows) => Some(rows),
            _ => None,
        }
    }
}

/// [`FamilyRows`] of each target family.
#[derive(Clone, Debug)]
pub struct RowsByFamily([FamilyRows; 4]);

impl std::ops::Index<crate::lowering::targets::Family> for RowsByFamily {
    type Output = FamilyRows;
    fn index(&self, family: crate::lowering::targets::Family) -> &FamilyRows {
        let at = crate::lowering::targets::Family::ALL.iter().position(|&f| f == family).unwrap_or(0);
        &self.0[at]
    }
}
