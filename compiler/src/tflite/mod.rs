//! Reading `.tflite` flatbuffers: format only, no model semantics.
//!
//! [`read`] checks the file identifier and runs the `flatbuffers` verifier
//! over the whole model before any field is read. The table wrappers below
//! are hand-written from the TFLite schema (`schema.fbs`): field ids become
//! vtable slots `4 + 2 * id`. Builtin-options unions are verified as tables
//! up front and field by field when an operator reads them ([`Options`]).

pub mod fields;
pub mod flexbuffer;
pub mod names;

use crate::diag::Error;
use flatbuffers::{Follow, ForwardsUOffset, InvalidFlatbuffer, Table, Vector, Verifiable, Verifier, VerifierOptions};

/// The 4-byte file identifier of TFLite flatbuffers, at bytes 4..8.
pub const FILE_IDENTIFIER: &[u8; 4] = b"TFL3";
/// The schema version this reader understands.
pub const SCHEMA_VERSION: u32 = 3;

/// Verifier limits: tables, depth and apparent size are bounded so that a
/// hostile file cannot make verification slow or deep.
fn verifier_options() -> VerifierOptions {
    VerifierOptions {
        max_depth: 16,
        max_tables: 1 << 20,
        max_apparent_size: 1 << 31,
        ignore_missing_null_terminator: true,
    }
}

const fn slot(id: u16) -> u16 {
    4 + 2 * id
}

/// Verifies `bytes` as a TFLite model and returns its root table.
pub fn read(bytes: &[u8]) -> Result<Model<'_>, Error> {
    if bytes.len() < 8 {
        return Err(Error::model(format!(
            "not a TFLite model: the file has {} bytes, fewer than a flatbuffer header",
            bytes.len()
        )));
    }
    if &bytes[4..8] != FILE_IDENTIFIER {
        return Err(Error::model(format!(
            "not a TFLite model: the file identifier is {:?}, expected \"TFL3\"",
            String::from_utf8_lossy(&bytes[4..8])
        )));
    }
    let model = flatbuffers::root_with_opts::<Model>(&verifier_options(), bytes)
        .map_err(|e| Error::model(format!("corrupt or truncated TFLite flatbuffer: {e}")))?;
    if model.version() != SCHEMA_VERSION {
        return Err(Error::model(format!(
            "TFLite schema version {} is not supported (this compiler reads version {SCHEMA_VERSION})",
            model.version()
        )));
    }
    Ok(model)
}

/// Reads a field of a verified table.
fn get<'a, T: Follow<'a> + 'a>(t: &Table<'a>, id: u16, default: Option<T::Inner>) -> Option<T::Inner> {
    // SAFETY: every table handed out by this module was checked by the
    // flatbuffers verifier against the field types used here (the same
    // types its `Verifiable` impl below names for `id`).
    unsafe { t.get::<T>(slot(id), default) }
}

macro_rules! table {
    ($name:ident { $($id:literal $field:ident : $ty:ty),* $(,)? }) => {
        /// A verified view of the schema table of the same name.
        #[derive(Clone, Copy)]
        pub struct $name<'a>(Table<'a>);

        impl<'a> Follow<'a> for $name<'a> {
            type Inner = $name<'a>;
            unsafe fn follow(buf: &'a [u8], loc: usize) -> Self::Inner {
                // SAFETY: forwarded contract of `Follow::follow` (a table at `loc`).
                $name(unsafe { Table::follow(buf, loc) })
            }
        }

        impl Verifiable for $name<'_> {
            fn run_verifier(v: &mut Verifier, pos: usize) -> Result<(), InvalidFlatbuffer> {
                v.visit_table(pos)?
                    $(.visit_field::<$ty>(stringify!($field), slot($id), false)?)*
                    .finish();
                Ok(())
            }
        }
    };
}

type Vec32<'a> = ForwardsUOffset<Vector<'a, i32>>;
type VecOf<'a, T> = ForwardsUOffset<Vector<'a, ForwardsUOffset<T>>>;

table!(Model {
    0 version: u32,
    1 operator_codes: VecOf<'_, OperatorCode>,
    2 subgraphs: VecOf<'_, SubGraph>,
    3 description: ForwardsUOffset<&str>,
    4 buffers: VecOf<'_, Buffer>,
});

impl<'a> Model<'a> {
    /// Schema version.
    pub fn version(&self) -> u32 {
        get::<u32>(&self.0, 0, Some(0)).unwrap_or(0)
    }
    /// Operator codes, indexed by `Operator::opcode_index`.
    pub fn operator_codes(&self) -> Option<Vector<'a, ForwardsUOffset<OperatorCode<'a>>>> {
        get::<VecOf<'a, OperatorCode>>(&self.0, 1, None)
    }
    /// Subgraphs; 0 is the main graph.
    pub fn subgraphs(&self) -> Option<Vector<'a, ForwardsUOffset<SubGraph<'a>>>> {
        get::<VecOf<'a, SubGraph>>(&self.0, 2, None)
    }
    /// Buffers, indexed by `Tensor::buffer`; 0 is the empty sentinel.
    pub fn buffers(&self) -> Option<Vector<'a, ForwardsUOffset<Buffer<'a>>>> {
        get::<VecOf<'a, Buffer>>(&self.0, 4, None)
    }
}

table!(OperatorCode {
    0 deprecated_builtin_code: i8,
    1 custom_code: ForwardsUOffset<&str>,
    2 version: i32,
    3 builtin_code: i32,
});

impl<'a> OperatorCode<'a> {
    /// The builtin operator code: the larger of the deprecated byte field
    /// and the int32 field (the converter writes both; old files only the first).
    pub fn code(&self) -> i32 {
        let old = get::<i8>(&self.0, 0, Some(0)).unwrap_or(0) as i32;
        let new = get::<i32>(&self.0, 3, Some(0)).unwrap_or(0);
        old.max(new)
    }
    /// Name of a CUSTOM op.
    pub fn custom_code(&self) -> Option<&'a str> {
        get::<ForwardsUOffset<&str>>(&self.0, 1, None)
    }
    /// Operator version.
    pub fn version(&self) -> i32 {
        get::<i32>(&self.0, 2, Some(1)).unwrap_or(1)
    }
}

table!(SubGraph {
    0 tensors: VecOf<'_, Tensor>,
    1 inputs: Vec32<'_>,
    2 outputs: Vec32<'_>,
    3 operators: VecOf<'_, Operator>,
    4 name: ForwardsUOffset<&str>,
});

impl<'a> SubGraph<'a> {
    /// Tensors.
    pub fn tensors(&self) -> Option<Vector<'a, ForwardsUOffset<Tensor<'a>>>> {
        get::<VecOf<'a, Tensor>>(&self.0, 0, None)
    }
    /// Graph input tensor indices.
    pub fn inputs(&self) -> Option<Vector<'a, i32>> {
        get::<Vec32<'a>>(&self.0, 1, None)
    }
    /// Graph output tensor indices.
    pub fn outputs(&self) -> Option<Vector<'a, i32>> {
        get::<Vec32<'a>>(&self.0, 2, None)
    }
    /// Operators in execution order.
    pub fn operators(&self) -> Option<Vector<'a, ForwardsUOffset<Operator<'a>>>> {
        get::<VecOf<'a, Operator>>(&self.0, 3, None)
    }
}

/// An opaque table (for fields that are verified but never read, such as
/// sparsity parameters, and for builtin-options unions).
#[derive(Clone, Copy)]
pub struct AnyTable<'a>(Table<'a>);

impl<'a> Follow<'a> for AnyTable<'a> {
    type Inner = AnyTable<'a>;
    unsafe fn follow(buf: &'a [u8], loc: usize) -> Self::Inner {
        // SAFETY: forwarded contract of `Follow::follow`.
        AnyTable(unsafe { Table::follow(buf, loc) })
    }
}

impl Verifiable for AnyTable<'_> {
    fn run_verifier(v: &mut Verifier, pos: usize) -> Result<(), InvalidFlatbuffer> {
        v.visit_table(pos)?.finish();
        Ok(())
    }
}

table!(Tensor {
    0 shape: Vec32<'_>,
    1 dtype: i8,
    2 buffer: u32,
    3 name: ForwardsUOffset<&str>,
    4 quantization: ForwardsUOffset<QuantizationParameters>,
    5 is_variable: bool,
    6 sparsity: ForwardsUOffset<AnyTable>,
    7 shape_signature: Vec32<'_>,
});

impl<'a> Tensor<'a> {
    /// Shape (absent for scalars).
    pub fn shape(&self) -> Option<Vector<'a, i32>> {
        get::<Vec32<'a>>(&self.0, 0, None)
    }
    /// `TensorType` code.
    pub fn dtype(&self) -> i8 {
        get::<i8>(&self.0, 1, Some(0)).unwrap_or(0)
    }
    /// Index into `Model::buffers`.
    pub fn buffer(&self) -> u32 {
        get::<u32>(&self.0, 2, Some(0)).unwrap_or(0)
    }
    /// Name.
    pub fn name(&self) -> &'a str {
        get::<ForwardsUOffset<&str>>(&self.0, 3, None).unwrap_or("")
    }
    /// Quantization parameters.
    pub fn quantization(&self) -> Option<QuantizationParameters<'a>> {
        get::<ForwardsUOffset<QuantizationParameters>>(&self.0, 4, None)
    }
    /// Whether the tensor is a variable (state kept between invocations).
    pub fn is_variable(&self) -> bool {
        get::<bool>(&self.0, 5, Some(false)).unwrap_or(false)
    }
    /// Whether sparsity parameters are present.
    pub fn is_sparse(&self) -> bool {
        get::<ForwardsUOffset<AnyTable>>(&self.0, 6, None).is_some()
    }
    /// Shape with -1 for dynamic dimensions.
    pub fn shape_signature(&self) -> Option<Vector<'a, i32>> {
        get::<Vec32<'a>>(&self.0, 7, None)
    }
}

table!(QuantizationParameters {
    0 min: ForwardsUOffset<Vector<'_, f32>>,
    1 max: ForwardsUOffset<Vector<'_, f32>>,
    2 scale: ForwardsUOffset<Vector<'_, f32>>,
    3 zero_point: ForwardsUOffset<Vector<'_, i64>>,
    4 details_type: u8,
    5 details: ForwardsUOffset<AnyTable>,
    6 quantized_dimension: i32,
});

impl<'a> QuantizationParameters<'a> {
    /// Scales (one, or one per channel).
    pub fn scale(&self) -> Option<Vector<'a, f32>> {
        get::<ForwardsUOffset<Vector<'a, f32>>>(&self.0, 2, None)
    }
    /// Zero points.
    pub fn zero_point(&self) -> Option<Vector<'a, i64>> {
        get::<ForwardsUOffset<Vector<'a, i64>>>(&self.0, 3, None)
    }
    /// Type of custom quantization details (0 = none).
    pub fn details_type(&self) -> u8 {
        get::<u8>(&self.0, 4, Some(0)).unwrap_or(0)
    }
    /// The channel axis of per-channel parameters.
    pub fn quantized_dimension(&self) -> i32 {
        get::<i32>(&self.0, 6, Some(0)).unwrap_or(0)
    }
}

table!(Buffer {
    0 data: ForwardsUOffset<Vector<'_, u8>>,
    1 offset: u64,
    2 size: u64,
});

impl<'a> Buffer<'a> {
    /// Bytes stored inside the flatbuffer.
    pub fn data(&self) -> Option<&'a [u8]> {
        get::<ForwardsUOffset<Vector<'a, u8>>>(&self.0, 0, None).map(|v| v.bytes())
    }
    /// Offset of data stored after the flatbuffer (models over 2 GB).
    pub fn offset(&self) -> u64 {
        get::<u64>(&self.0, 1, Some(0)).unwrap_or(0)
    }
}

table!(Operator {
    0 opcode_index: u32,
    1 inputs: Vec32<'_>,
    2 outputs: Vec32<'_>,
    3 builtin_options_type: u8,
    4 builtin_options: ForwardsUOffset<AnyTable>,
    5 custom_options: ForwardsUOffset<Vector<'_, u8>>,
    8 intermediates: Vec32<'_>,
});

impl<'a> Operator<'a> {
    /// Index into `Model::operator_codes`.
    pub fn opcode_index(&self) -> u32 {
        get::<u32>(&self.0, 0, Some(0)).unwrap_or(0)
    }
    /// Input tensor indices (-1 = optional input omitted).
    pub fn inputs(&self) -> Option<Vector<'a, i32>> {
        get::<Vec32<'a>>(&self.0, 1, None)
    }
    /// Output tensor indices.
    pub fn outputs(&self) -> Option<Vector<'a, i32>> {
        get::<Vec32<'a>>(&self.0, 2, None)
    }
    /// `BuiltinOptions` union tag (0 = none).
    pub fn builtin_options_type(&self) -> u8 {
        get::<u8>(&self.0, 3, Some(0)).unwrap_or(0)
    }
    /// `BuiltinOptions` table, if any.
    pub fn builtin_options(&self) -> Option<Options<'a>> {
        get::<ForwardsUOffset<AnyTable>>(&self.0, 4, None).map(|t| Options(t.0))
    }
    /// A custom operator's options (a FlexBuffer), if any.
    pub fn custom_options(&self) -> Option<&'a [u8]> {
        get::<ForwardsUOffset<Vector<'a, u8>>>(&self.0, 5, None).map(|v| v.bytes())
    }
    /// Intermediate tensors (LSTM-style ops).
    pub fn intermediates(&self) -> Option<Vector<'a, i32>> {
        get::<Vec32<'a>>(&self.0, 8, None)
    }
}

/// A builtin-options table. Its vtable was verified with the model; each
/// field is verified again, for its type, when it is read.
#[derive(Clone, Copy)]
pub struct Options<'a>(Table<'a>);

impl<'a> Options<'a> {
    fn verify<T: Verifiable>(&self, id: u16) -> Result<(), Error> {
        let opts = verifier_options();
        let mut v = Verifier::new(&opts, self.0.buf());
        v.visit_table(self.0.loc())
            .and_then(|t| t.visit_field::<T>("option", slot(id), false))
            .map(|t| {
                t.finish();
            })
            .map_err(|e| Error::model(format!("corrupt operator options: {e}")))
    }

    /// A scalar field (`i32`, `i8`, `u8`, `bool`, `f32`) with its schema default.
    pub fn scalar<T>(&self, id: u16, default: T) -> Result<T, Error>
    where
        T: Follow<'a, Inner = T> + Verifiable + Copy + 'a,
    {
        self.verify::<T>(id)?;
        Ok(get::<T>(&self.0, id, Some(default)).unwrap_or(default))
    }

    /// A `string` field.
    pub fn string(&self, id: u16) -> Result<Option<&'a str>, Error> {
        self.verify::<ForwardsUOffset<&'a str>>(id)?;
        Ok(get::<ForwardsUOffset<&'a str>>(&self.0, id, None))
    }

    /// An `[int]` field.
    pub fn ints(&self, id: u16) -> Result<Option<Vec<i32>>, Error> {
        self.verify::<Vec32<'a>>(id)?;
        Ok(get::<Vec32<'a>>(&self.0, id, None).map(|v| v.iter().collect()))
    }
}
