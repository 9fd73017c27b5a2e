//! What an operator's codegen sees while the model is emitted ([`Emit`]):
//! views of its tensors in the arena, the state memory or a borrowed input,
//! its scratch, and the constants it puts in flash. The codegen stage
//! (`crate::codegen`) drives it op by op.

use crate::diag::Error;
use crate::graph::{DType, Graph, Tensor};
use crate::lowering::variant::Kernel;
use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::{format_ident, quote};
use std::collections::HashMap;

/// Codegen state shared by all ops of one model.
pub struct Emit<'g> {
    graph: &'g Graph<'g>,
    /// (memory region, byte offset in it) of each tensor that lives in the
    /// arena (region 0, `base`, is the whole arena without regions).
    offsets: Vec<Option<(usize, usize)>>,
    /// State-memory offset of each variable tensor.
    state_offsets: Vec<Option<usize>>,
    /// `static` items (weights, constant tables) emitted so far.
    statics: Vec<TokenStream>,
    /// Constant tensors already emitted, by tensor index.
    tensor_statics: HashMap<usize, Ident>,
    /// Constant blobs already emitted (identical tables are shared).
    blobs: HashMap<Vec<u8>, Ident>,
    /// Total bytes of constant data emitted.
    pub flash_bytes: usize,
    /// The kernel chosen for the op being emitted.
    kernel: Kernel,
    /// Region, offset and bytes of the op's scratch buffer, if it has one.
    scratch: Option<(usize, usize, usize)>,
    /// State-memory offset and bytes of the op's own state, if it has one.
    op_state: Option<(usize, usize)>,
    /// Views that replace a tensor's placement while a band of a tiled
    /// stage is emitted: tensor -> (byte offset from the tensor's start,
    /// elements).
    bands: HashMap<usize, (usize, usize)>,
    /// The output rows of the band being emitted ([`Emit::set_band_rows`]).
    band_rows: Option<std::ops::Range<usize>>,
    /// With borrowed inputs: tensor -> the graph input (or view of one)
    /// it is, read through the `input{k}` pointer instead of the arena.
    borrowed: Vec<Option<usize>>,
    /// Fused pixel-pair instances (depth, lanes) some op needs with the
    /// nudge of negative sums (`Operator::pair_kernel`).
    nudged_pairs: std::collections::HashSet<(usize, bool)>,
    /// Execution position of the op being emitted.
    position: usize,
    /// With `copy_weights`: which ops' constants go to RAM, and those that did.
    copying: Option<(CopyWeights, Vec<Copied>)>,
}

/// `copy_weights`: the constants of the chosen ops live in `region` as
/// well as in flash, copied there when the model is made (`take`, `new`,
/// `new_in`), past the region's activations; the ops read them from RAM
/// (chosen by `regions::choose_weight_copy`).
#[derive(Clone, Debug)]
pub struct CopyWeights {
    /// The region the copies go to.
    pub region: usize,
    /// Byte offset of the first copy in it (16-aligned).
    pub offset: usize,
    /// Bytes the copies may take.
    pub budget: usize,
    /// Execution positions of the ops whose constants are copied.
    pub ops: Vec<usize>,
}

/// A constant copied from flash into a region (`copy_weights`).
#[derive(Clone, Debug)]
pub struct Copied {
    /// The flash static it is copied from.
    pub flash: Ident,
    /// The local of the generated `run` that reads it in RAM.
    pub ram: Ident,
    /// Byte offset in the region.
    pub offset: usize,
    /// Bytes.
    pub len: usize,
    /// The op that asked for it first (execution position).
    pub op: usize,
}

impl<'g> Emit<'g> {
    /// A fresh emitter for a planned graph.
    pub fn new(
        graph: &'g Graph<'g>,
        offsets: Vec<Option<(usize, usize)>>,
        state_offsets: Vec<Option<usize>>,
        borrowed: Vec<Option<usize>>,
    ) -> Self {
        Emit {
            graph,
            offsets,
            state_offsets,
            statics: Vec::new(),
            tensor_statics: HashMap::new(),
            blobs: HashMap::new(),
            flash_bytes: 0,
            kernel: Kernel::Direct,
            scratch: None,
            op_state: None,
            bands: HashMap::new(),
            band_rows: None,
            borrowed,
            nudged_pairs: Default::default(),
            position: 0,
            copying: None,
        }
    }

    /// Copies the constants of `plan.ops` into its region as they are
    /// emitted, while they fit its budget.
    pub fn copy_weights(&mut self, plan: CopyWeights) {
        self.copying = Some((plan, Vec::new()));
    }

    /// The constants copied into a region, and the region.
    pub fn copies(&self) -> Option<(usize, &[Copied])> {
        self.copying.as_ref().map(|(plan, copies)| (plan.region, &copies[..]))
    }

    /// While a band of a tiled stage is emitted: tensor `t` is the
    /// `elements` values `offset` bytes into it (rows of the whole map, or
    /// of its band buffer). [`Emit::end_band`] drops every such view.
    pub fn band_view(&mut self, t: usize, offset: usize, elements: usize) {
        self.bands.insert(t, (offset, elements));
    }

    /// A statement moving `bytes` bytes at `from` bytes into the band
    /// buffer of map `t` (`buffer` bytes) to its start (the rows a tiled
    /// stage keeps from one band to the next).
    pub fn move_to_front(&self, t: usize, buffer: usize, from: usize, bytes: usize) -> Result<TokenStream, Error> {
        let (base, offset, _) = self.placement(&self.graph.tensors[t])?;
        let end = from + bytes;
        // SAFETY (of the emitted block): the plan puts the band buffer at
        // `offset..offset + buffer` inside the arena, live through the
        // whole stage and no other op's memory; no other view of it exists
        // between the ops.
        Ok(quote! {
            unsafe { ::tinyaot::__private::view_mut::<u8>(#base, #offset, #buffer) }.copy_within(#from..#end, 0);
        })
    }

    /// Back to every tensor's own placement.
    pub fn end_band(&mut self) {
        self.bands.clear();
        self.band_rows = None;
    }

    /// While a band of a tiled stage is emitted: the output rows of the op
    /// the band computes (of its whole output map).
    pub fn set_band_rows(&mut self, rows: std::ops::Range<usize>) {
        self.band_rows = Some(rows);
    }

    /// The output rows of the band being emitted, if any.
    pub fn band_rows(&self) -> Option<std::ops::Range<usize>> {
        self.band_rows.clone()
    }

    /// Notes, before any op is emitted, a fused pixel-pair instance an op
    /// calls.
    pub fn note_pair_kernel(&mut self, k: crate::lowering::variant::PairKernel) {
        if k.nudge {
            self.nudged_pairs.insert((k.depth, k.lanes));
        }
    }

    /// Whether an op calls its fused pixel-pair instance (`depth`,
    /// `lanes`) in the nudging form: where it needs the nudge (`nudge`), or
    /// another op on the same instance does (one copy of the kernel).
    pub fn pair_nudge(&self, depth: usize, lanes: bool, nudge: bool) -> bool {
        nudge || self.nudged_pairs.contains(&(depth, lanes))
    }

    /// Sets the op about to be emitted: its execution position, kernel and
    /// scratch placement.
    pub fn set_op(
        &mut self,
        position: usize,
        kernel: Kernel,
        scratch: Option<(usize, usize, usize)>,
        op_state: Option<(usize, usize)>,
    ) {
        self.position = position;
        self.kernel = kernel;
        self.scratch = scratch;
        self.op_state = op_state;
    }

    /// An expression `&mut [T]` for the current op's own state.
    pub fn op_state<T: ScratchElem>(&self) -> Result<TokenStream, Error> {
        let (offset, bytes) =
            self.op_state.ok_or_else(|| Error::model("internal error: an op asked for state it was not given"))?;
        let ty = Ident::new(T::NAME, Span::call_site());
        let len = bytes / T::SIZE;
        // SAFETY (of the emitted block): the op's state is its own range of
        // the state memory, which nothing else views during the op.
        Ok(quote!(unsafe { ::tinyaot::__private::view_mut::<#ty>(state, #offset, #len) }))
    }

    /// The kernel the planner chose for the current op.
    pub fn kernel(&self) -> Kernel {
        self.kernel
    }

    /// An expression `&mut [T]` for the current op's scratch buffer.
    pub fn scratch<T: ScratchElem>(&self) -> Result<TokenStream, Error> {
        let (region, offset, bytes) =
            self.scratch.ok_or_else(|| Error::model("internal error: an op asked for scratch it was not given"))?;
        let ty = Ident::new(T::NAME, Span::call_site());
        let len = bytes / T::SIZE;
        let base = region_base(region);
        // SAFETY (of the emitted block): the scratch buffer is planned like a
        // tensor, live only during this op, disjoint from all its operands.
        Ok(quote!(unsafe { ::tinyaot::__private::view_mut::<#ty>(#base, #offset, #len) }))
    }

    /// The emitted statics.
    pub fn into_statics(self) -> Vec<TokenStream> {
        self.statics
    }

    fn elem_type(t: &Tensor<'_>) -> Result<TokenStream, Error> {
        Self::rust_type(t.dtype)
            .map_err(|_| Error::model(format!("tensor '{}' has dtype {}, which has no kernel", t.name, t.dtype.name())))
    }

    /// The Rust element type of a dtype.
    pub fn rust_type(dtype: DType) -> Result<TokenStream, Error> {
        let ty = dtype.rust().ok_or_else(|| Error::model(format!("dtype {} has no kernel", dtype.name())))?;
        let ty = Ident::new(ty, Span::call_site());
        Ok(quote!(#ty))
    }

    /// Static bytes in flash, 16-aligned; returns the name the op reads
    /// them by (`.cast::<T>()`): the static's, or with `copy_weights` for
    /// this op, its copy's in RAM.
    pub fn bytes(&mut self, data: &[u8]) -> Ident {
        let flash = self.flash_bytes_static(data);
        let position = self.position;
        let Some((plan, copies)) = &mut self.copying else { return flash };
        if let Some(c) = copies.iter().find(|c| c.flash == flash) {
            return c.ram.clone();
        }
        let used: usize = copies.iter().map(|c| tinyaot_common::arena_align(c.len)).sum();
        if !plan.ops.contains(&position) || used + tinyaot_common::arena_align(data.len()) > plan.budget {
            return flash;
        }
        let ram = format_ident!("RAM_{}", copies.len());
        copies.push(Copied { flash, ram: ram.clone(), offset: plan.offset + used, len: data.len(), op: position });
        ram
    }

    /// [`Emit::bytes`] that stays in flash whatever `copy_weights` says:
    /// for code that reads the static's array itself (`.0`).
    pub fn bytes_in_flash(&mut self, data: &[u8]) -> Ident {
        self.flash_bytes_static(data)
    }

    /// The flash static of `data` (one per distinct blob).
    fn flash_bytes_static(&mut self, data: &[u8]) -> Ident {
        if let Some(name) = self.blobs.get(data) {
            return name.clone();
        }
        let name = format_ident!("CONST_{}", self.statics.len());
        let len = data.len();
        let lit = Literal::byte_string(data);
        self.statics.push(quote! {
            static #name: ::tinyaot::__private::Aligned<[u8; #len]> = ::tinyaot::__private::Aligned(*#lit);
        });
        self.flash_bytes += len;
        self.blobs.insert(data.to_vec(), name.clone());
        name
    }

    /// A `&'static [i16]` expression for a constant table.
    pub fn i16s(&mut self, values: &[i16]) -> TokenStream {
        let data: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let name = self.bytes(&data);
        quote!(#name.cast::<i16>())
    }

    /// A `&'static [u16]` expression for a constant table.
    pub fn u16s(&mut self, values: &[u16]) -> TokenStream {
        let data: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let name = self.bytes(&data);
        quote!(#name.cast::<u16>())
    }

    /// [`Emit::bytes`] for an alternative layout of data already counted
    /// (the build uses one or the other, the linker drops the unused):
    /// not added to the flash total.
    pub fn alternative_bytes(&mut self, data: &[u8]) -> Ident {
        let counted = self.flash_bytes;
        // Never copied to RAM: one of the two layouts is linked.
        let name = self.flash_bytes_static(data);
        self.flash_bytes = counted;
        name
    }

    /// A `&'static [f32]` expression for a constant table.
    pub fn f32s(&mut self, values: &[f32]) -> TokenStream {
        let data: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let name = self.bytes(&data);
        quote!(#name.cast::<f32>())
    }

    /// A `&'static [i32]` expression for a constant table.
    pub fn i32s(&mut self, values: &[i32]) -> TokenStream {
        let data: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let name = self.bytes(&data);
        quote!(#name.cast::<i32>())
    }

    /// The constant bytes of tensor `t`, if it has them.
    pub fn tensor_data(&self, t: usize) -> Option<&'g [u8]> {
        self.graph.tensors.get(t).and_then(|t| t.data.as_deref())
    }

    /// An expression `&[T]` reading tensor `t`: its flash static if it is a
    /// constant, else its arena view.
    pub fn read(&mut self, t: usize) -> Result<TokenStream, Error> {
        let graph = self.graph;
        let t = &graph.tensors[t];
        let ty = Self::elem_type(t)?;
        if let Some(name) = self.constant_static(t.index) {
            return Ok(quote!(#name.cast::<#ty>()));
        }
        let (base, offset, len) = self.placement(t)?;
        // SAFETY (of the emitted block): the plan, checked before emission,
        // puts this tensor at `offset..offset + bytes` inside the arena (or
        // the state memory, for a variable), 16-aligned, disjoint from every
        // buffer live at this op; the op only writes its outputs, which are
        // other buffers.
        Ok(quote!(unsafe { ::tinyaot::__private::view::<#ty>(#base, #offset, #len) }))
    }

    /// An expression `&mut [T]` for output tensor `t`.
    pub fn write(&mut self, t: usize) -> Result<TokenStream, Error> {
        let graph = self.graph;
        let t = &graph.tensors[t];
        if self.borrowed.get(t.index).copied().flatten().is_some() {
            return Err(Error::model(format!("internal error: an op writes the borrowed input '{}'", t.name)));
        }
        let ty = Self::elem_type(t)?;
        let (base, offset, len) = self.placement(t)?;
        // SAFETY (of the emitted block): as for `read`; no other view of
        // these bytes exists during the op (outputs are disjoint from inputs,
        // and an op that updates a variable reads it through this view only).
        Ok(quote!(unsafe { ::tinyaot::__private::view_mut::<#ty>(#base, #offset, #len) }))
    }

    /// The `Io` of a kernel that reads `input` and writes `output`:
    /// `Separate` slices, or `InPlace` over the span of both when the plan
    /// overlaps them (only ever for a pair the op declared safe, which the
    /// plan check enforces).
    pub fn io(&mut self, input: usize, output: usize) -> Result<TokenStream, Error> {
        self.io_of(input, output, false)
    }

    /// [`Emit::io`] over both tensors' bytes (`u8`), whatever their
    /// dtypes: for an op that works on bits (the uint8/int8 flip), in
    /// place even where the dtypes differ.
    pub fn io_bytes(&mut self, input: usize, output: usize) -> Result<TokenStream, Error> {
        self.io_of(input, output, true)
    }

    fn io_of(&mut self, input: usize, output: usize, bytes: bool) -> Result<TokenStream, Error> {
        let graph = self.graph;
        let (ti, to) = (&graph.tensors[input], &graph.tensors[output]);
        let in_arena = |t: &Tensor<'_>| self.borrowed.get(t.index).copied().flatten().is_none();
        if ti.data.is_none() && !ti.is_variable && !to.is_variable && in_arena(ti) && in_arena(to) {
            let (region_in, oi, ni) = self.placement(ti)?;
            let (region_out, oo, no) = self.placement(to)?;
            let size = if bytes { 1 } else { to.dtype.size().unwrap_or(1) };
            let (bi, bo) = (ni * ti.dtype.size().unwrap_or(1), no * to.dtype.size().unwrap_or(1));
            if region_in == region_out && oi < oo + bo && oo < oi + bi {
                let ty = if bytes { quote!(u8) } else { Self::elem_type(to)? };
                let base = oi.min(oo);
                let end = (oi + bi).max(oo + bo);
                let len = (end - base) / size;
                let (i, o) = ((oi - base) / size, (oo - base) / size);
                // SAFETY (of the emitted block): one exclusive view of the
                // span covering both tensors, disjoint from every other buffer
                // live at this op.
                return Ok(quote!(::tinyaot::__private::kernels::InPlace {
                    buf: unsafe { ::tinyaot::__private::view_mut::<#ty>(#region_in, #base, #len) },
                    input: #i,
                    output: #o,
                }));
            }
        }
        let (r, w) = if bytes {
            (self.read_bytes(input)?, self.write_bytes(output)?)
        } else {
            (self.read(input)?, self.write(output)?)
        };
        Ok(quote!(::tinyaot::__private::kernels::Separate { input: #r, output: #w }))
    }

    /// The flash static of constant tensor `t` (emitted once), or `None`
    /// if it is not a constant.
    fn constant_static(&mut self, t: usize) -> Option<Ident> {
        let data = self.graph.tensors[t].data.as_deref()?;
        if let Some(n) = self.tensor_statics.get(&t) {
            return Some(n.clone());
        }
        let n = self.bytes(data);
        self.tensor_statics.insert(t, n.clone());
        Some(n)
    }

    /// An expression `&[i8]` over constant tensor `t`'s bytes, int8 or
    /// uint8 (LiteRT's hybrid kernels read uint8 weights as int8).
    pub fn read_i8(&mut self, t: usize) -> Result<TokenStream, Error> {
        let name =
            self.constant_static(t).ok_or_else(|| Error::model("internal error: hybrid weights must be constant"))?;
        Ok(quote!(#name.cast::<i8>()))
    }

    /// An expression `&[u8]` over tensor `t`'s bytes, whatever its dtype
    /// (for ops that copy bytes, as READ_VARIABLE does).
    pub fn read_bytes(&mut self, t: usize) -> Result<TokenStream, Error> {
        if let Some(name) = self.constant_static(t) {
            return Ok(quote!(#name.cast::<u8>()));
        }
        let tensor = &self.graph.tensors[t];
        let (base, offset, _) = self.placement(tensor)?;
        let len = tensor.bytes;
        // SAFETY (of the emitted block): as for `read`.
        Ok(quote!(unsafe { ::tinyaot::__private::view::<u8>(#base, #offset, #len) }))
    }

    /// An expression `&mut [u8]` over output (or variable) tensor `t`'s bytes.
    pub fn write_bytes(&mut self, t: usize) -> Result<TokenStream, Error> {
        let tensor = &self.graph.tensors[t];
        if self.borrowed.get(t).copied().flatten().is_some() {
            return Err(Error::model(format!("internal error: an op writes the borrowed input '{}'", tensor.name)));
        }
        let (base, offset, _) = self.placement(tensor)?;
        let len = tensor.bytes;
        // SAFETY (of the emitted block): as for `write`.
        Ok(quote!(unsafe { ::tinyaot::__private::view_mut::<u8>(#base, #offset, #len) }))
    }

    /// `Some(&[T])` / `None` for an optional input.
    pub fn read_opt(&mut self, t: Option<usize>) -> Result<TokenStream, Error> {
        Ok(match t {
            Some(t) => {
                let r = self.read(t)?;
                quote!(Some(#r))
            }
            None => quote!(None),
        })
    }

    /// The base pointer (`base`: the arena or its first region, `base_1`..
    /// the other regions, `state`: the state memory, `input{k}`: a borrowed
    /// input), byte offset and element count of a tensor.
    fn placement(&self, t: &Tensor<'_>) -> Result<(Ident, usize, usize), Error> {
        if t.is_variable {
            let offset = self.state_offsets.get(t.index).copied().flatten().ok_or_else(|| {
                Error::model(format!("internal error: variable '{}' has no place in the state memory", t.name))
            })?;
            return Ok((format_ident!("state"), offset, t.elements));
        }
        let band = self.bands.get(&t.index).copied();
        if let Some(k) = self.borrowed.get(t.index).copied().flatten() {
            let (offset, elements) = band.unwrap_or((0, t.elements));
            return Ok((format_ident!("input{}", k), offset, elements));
        }
        let (region, offset) = self
            .offsets
            .get(t.index)
            .copied()
            .flatten()
            .ok_or_else(|| Error::model(format!("internal error: tensor '{}' has no arena placement", t.name)))?;
        let (within, elements) = band.unwrap_or((0, t.elements));
        Ok((region_base(region), offset + within, elements))
    }
}

/// The generated `run`'s pointer to memory region `region`: `base` for
/// the first (the whole arena without regions), `base_1`, `base_2`.. after.
pub fn region_base(region: usize) -> Ident {
    if region == 0 { format_ident!("base") } else { format_ident!("base_{}", region) }
}

/// Element types of scratch buffers.
pub trait ScratchElem {
    /// Rust name.
    const NAME: &'static str;
    /// Bytes per element.
    const SIZE: usize;
}

impl ScratchElem for u32 {
    const NAME: &'static str = "u32";
    const SIZE: usize = 4;
}

impl ScratchElem for i8 {
    const NAME: &'static str = "i8";
    const SIZE: usize = 1;
}

impl ScratchElem for i16 {
    const NAME: &'static str = "i16";
    const SIZE: usize = 2;
}

impl ScratchElem for i32 {
    const NAME: &'static str = "i32";
    const SIZE: usize = 4;
}

impl ScratchElem for f32 {
    const NAME: &'static str = "f32";
    const SIZE: usize = 4;
}

/// `f32::from_bits(..)`: the exact value, whatever it is.
pub fn f32_lit(x: f32) -> TokenStream {
    let bits = x.to_bits();
    quote!(::core::primitive::f32::from_bits(#bits))
}
