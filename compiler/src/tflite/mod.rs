//! Reading `.tflite` flatbuffers: format only, no model semantics.
//!
//! Read as TFLM reads a model (no verifier pass, any alignment, absent
//! fields defaulted), every read bounds-checked ([`flat`]): each accessor
//! returns an error, never a panic, where the file is cut short or an
//! offset points outside it. The table wrappers below are hand-written
//! from the TFLite schema (`schema.fbs`): field ids become vtable slots
//! `4 + 2 * id`.

pub mod fields;
pub mod flexbuffer;
pub mod names;

use crate::diag::Error;
use flat::{Scalar, Table, Tables, Vector};

pub mod flat;

/// The 4-byte file identifier of TFLite flatbuffers, at bytes 4..8.
pub const FILE_IDENTIFIER: &[u8; 4] = b"TFL3";
/// The schema version this reader understands.
pub const SCHEMA_VERSION: u32 = 3;

/// Reads `bytes` as a TFLite model and returns its root table.
///
/// As lenient as TFLM, which casts the bytes to its accessors without a
/// verifier or an identifier check: a file is refused only where what the
/// compiler reads lies outside it. A file without the `TFL3` identifier
/// that does not read as a model is named as not a TFLite model. The
/// schema version is checked, as every TFLM example and LiteRT check it
/// (versions before 3 lay out constants differently).
pub fn read(bytes: &[u8]) -> Result<Model<'_>, Error> {
    let model = read_any_version(bytes)?;
    let version = model.version()?;
    if version != SCHEMA_VERSION {
        return Err(Error::model(format!(
            "TFLite schema version {version} is not supported (this compiler reads version {SCHEMA_VERSION})"
        )));
    }
    Ok(model)
}

fn read_any_version(bytes: &[u8]) -> Result<Model<'_>, Error> {
    if bytes.len() < 8 {
        return Err(Error::model(format!(
            "not a TFLite model: the file has {} bytes, fewer than a flatbuffer header",
            bytes.len()
        )));
    }
    let model = Table::root(bytes).map(|t| Model(t, None));
    if &bytes[4..8] != FILE_IDENTIFIER {
        let not_tflite = || {
            Error::model(format!(
                "not a TFLite model: the file identifier is {:?}, expected \"TFL3\"",
                String::from_utf8_lossy(&bytes[4..8])
            ))
        };
        // Written without an identifier: a model still has its subgraphs.
        return match model {
            Ok(m) if m.subgraphs().ok().flatten().is_some_and(|s| !s.is_empty()) => Ok(m),
            _ => Err(not_tflite()),
        };
    }
    model
}

/// A schema table type, read from a [`Table`].
pub trait Schema<'a>: Sized {
    /// How errors name it.
    const NAME: &'static str;
    /// Wraps a table, element `index` of its list if it is in one.
    fn wrap(t: Table<'a>, index: Option<usize>) -> Self;
}

/// A vector of schema tables.
#[derive(Clone, Copy)]
pub struct List<'a, T> {
    tables: Tables<'a>,
    _t: core::marker::PhantomData<T>,
}

impl<'a, T: Schema<'a>> List<'a, T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.tables.len()
    }

    /// Whether it has no elements.
    pub fn is_empty(&self) -> bool {
        self.tables.is_empty()
    }

    /// Element `i` (`i < len()`).
    pub fn get(&self, i: usize) -> Result<T, Error> {
        self.tables.get(i, &format!("{} {i}", T::NAME)).map(|t| T::wrap(t, Some(i)))
    }

    /// The elements in order, each read when reached.
    pub fn iter(&self) -> impl Iterator<Item = Result<T, Error>> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }
}

macro_rules! table {
    ($name:ident, $what:literal) => {
        /// A view of the schema table of the same name.
        #[derive(Clone, Copy, Debug)]
        pub struct $name<'a>(Table<'a>, Option<usize>);

        impl<'a> $name<'a> {
            /// The underlying table.
            pub fn table_view(&self) -> Table<'a> {
                self.0
            }

            /// How errors name it: `tensor 3`, or the type where it is not in a list.
            fn label(&self) -> String {
                match self.1 {
                    Some(i) => format!("{} {i}", $what),
                    None => $what.to_string(),
                }
            }
        }

        impl<'a> Schema<'a> for $name<'a> {
            const NAME: &'static str = $what;
            fn wrap(t: Table<'a>, index: Option<usize>) -> Self {
                $name(t, index)
            }
        }

        // The field readers every table gets; not every table uses each.
        #[allow(dead_code)]
        impl<'a> $name<'a> {
            fn scalar<T: Scalar>(&self, id: u16, default: T, field: &str) -> Result<T, Error> {
                self.0.scalar(id, default, &format!("{}'s {field}", self.label()))
            }
            fn vector<T: Scalar>(&self, id: u16, field: &str) -> Result<Option<Vector<'a, T>>, Error> {
                self.0.vector(id, &format!("{}'s {field}", self.label()))
            }
            fn list<T: Schema<'a>>(&self, id: u16, field: &str) -> Result<Option<List<'a, T>>, Error> {
                let tables = self.0.tables(id, &format!("{}'s {field}", self.label()))?;
                Ok(tables.map(|tables| List { tables, _t: core::marker::PhantomData }))
            }
            fn string(&self, id: u16, field: &str) -> Result<Option<&'a str>, Error> {
                self.0.string(id, &format!("{}'s {field}", self.label()))
            }
            fn table(&self, id: u16, field: &str) -> Result<Option<Table<'a>>, Error> {
                self.0.table(id, &format!("{}'s {field}", self.label()))
            }
        }
    };
}

table!(Model, "the model table");

impl<'a> Model<'a> {
    /// Schema version (read for reports; TFLM does not check it).
    pub fn version(&self) -> Result<u32, Error> {
        self.scalar::<u32>(0, 0, "version")
    }
    /// Operator codes, indexed by `Operator::opcode_index`.
    pub fn operator_codes(&self) -> Result<Option<List<'a, OperatorCode<'a>>>, Error> {
        self.list(1, "operator codes")
    }
    /// Subgraphs; 0 is the main graph.
    pub fn subgraphs(&self) -> Result<Option<List<'a, SubGraph<'a>>>, Error> {
        self.list(2, "subgraphs")
    }
    /// Buffers, indexed by `Tensor::buffer`; 0 is the empty sentinel.
    pub fn buffers(&self) -> Result<Option<List<'a, Buffer<'a>>>, Error> {
        self.list(4, "buffers")
    }
}

table!(OperatorCode, "operator code");

impl<'a> OperatorCode<'a> {
    /// The builtin operator code: the larger of the deprecated byte field
    /// and the int32 field (the converter writes both; old files only the first).
    pub fn code(&self) -> Result<i32, Error> {
        let old = self.scalar::<i8>(0, 0, "deprecated builtin code")? as i32;
        let new = self.scalar::<i32>(3, 0, "builtin code")?;
        Ok(old.max(new))
    }
    /// Name of a CUSTOM op.
    pub fn custom_code(&self) -> Result<Option<&'a str>, Error> {
        self.string(1, "custom code")
    }
    /// Operator version.
    pub fn version(&self) -> Result<i32, Error> {
        self.scalar::<i32>(2, 1, "version")
    }
}

table!(SubGraph, "subgraph");

impl<'a> SubGraph<'a> {
    /// Tensors.
    pub fn tensors(&self) -> Result<Option<List<'a, Tensor<'a>>>, Error> {
        self.list(0, "tensors")
    }
    /// Graph input tensor indices.
    pub fn inputs(&self) -> Result<Option<Vector<'a, i32>>, Error> {
        self.vector(1, "inputs")
    }
    /// Graph output tensor indices.
    pub fn outputs(&self) -> Result<Option<Vector<'a, i32>>, Error> {
        self.vector(2, "outputs")
    }
    /// Operators in execution order.
    pub fn operators(&self) -> Result<Option<List<'a, Operator<'a>>>, Error> {
        self.list(3, "operators")
    }
}

table!(Tensor, "tensor");

impl<'a> Tensor<'a> {
    /// Shape (absent for scalars).
    pub fn shape(&self) -> Result<Option<Vector<'a, i32>>, Error> {
        self.vector(0, "shape")
    }
    /// `TensorType` code.
    pub fn dtype(&self) -> Result<i8, Error> {
        self.scalar::<i8>(1, 0, "type")
    }
    /// Index into `Model::buffers`.
    pub fn buffer(&self) -> Result<u32, Error> {
        self.scalar::<u32>(2, 0, "buffer")
    }
    /// Name ("" where absent).
    pub fn name(&self) -> Result<&'a str, Error> {
        Ok(self.string(3, "name")?.unwrap_or(""))
    }
    /// Quantization parameters.
    pub fn quantization(&self) -> Result<Option<QuantizationParameters<'a>>, Error> {
        Ok(self.table(4, "quantization")?.map(|t| QuantizationParameters(t, None)))
    }
    /// Whether the tensor is a variable (state kept between invocations).
    pub fn is_variable(&self) -> Result<bool, Error> {
        self.scalar::<bool>(5, false, "is_variable")
    }
    /// Whether sparsity parameters are present (the offset is not followed).
    pub fn is_sparse(&self) -> bool {
        self.0.has(6)
    }
}

table!(QuantizationParameters, "quantization parameters");

impl<'a> QuantizationParameters<'a> {
    /// Scales (one, or one per channel).
    pub fn scale(&self) -> Result<Option<Vector<'a, f32>>, Error> {
        self.vector(2, "scale")
    }
    /// Zero points.
    pub fn zero_point(&self) -> Result<Option<Vector<'a, i64>>, Error> {
        self.vector(3, "zero_point")
    }
    /// Type of custom quantization details (0 = none).
    pub fn details_type(&self) -> Result<u8, Error> {
        self.scalar::<u8>(4, 0, "details_type")
    }
    /// The channel axis of per-channel parameters.
    pub fn quantized_dimension(&self) -> Result<i32, Error> {
        self.scalar::<i32>(6, 0, "quantized_dimension")
    }
}

table!(Buffer, "buffer");

impl<'a> Buffer<'a> {
    /// Bytes stored inside the flatbuffer.
    pub fn data(&self) -> Result<Option<&'a [u8]>, Error> {
        Ok(self.vector::<u8>(0, "data")?.map(|v| v.bytes()))
    }
    /// Offset of data stored after the flatbuffer (models over 2 GB).
    pub fn offset(&self) -> Result<u64, Error> {
        self.scalar::<u64>(1, 0, "offset")
    }
    /// Size of data stored after the flatbuffer.
    pub fn size(&self) -> Result<u64, Error> {
        self.scalar::<u64>(2, 0, "size")
    }
    /// The bytes of a buffer stored after the flatbuffer (`offset` > 1,
    /// from the file's start, as LiteRT reads them; the converter writes
    /// such files for models over 2 GB or when asked to), `None` for one
    /// stored inside it. Bytes outside the file are an error.
    pub fn external(&self) -> Result<Option<&'a [u8]>, Error> {
        let (offset, size) = (self.offset()?, self.size()?);
        if offset <= 1 {
            return Ok(None);
        }
        let file = self.0.file();
        let range = usize::try_from(offset).ok().and_then(|o| Some(o..o.checked_add(usize::try_from(size).ok()?)?));
        match range.filter(|r| r.end <= file.len()) {
            Some(r) => Ok(Some(&file[r])),
            None => Err(Error::model(format!(
                "{}: {size} bytes at offset {offset} lie outside the {}-byte file",
                self.label(),
                file.len()
            ))),
        }
    }
}

table!(Operator, "operator");

impl<'a> Operator<'a> {
    /// Index into `Model::operator_codes`.
    pub fn opcode_index(&self) -> Result<u32, Error> {
        self.scalar::<u32>(0, 0, "opcode_index")
    }
    /// Input tensor indices (-1 = optional input omitted).
    pub fn inputs(&self) -> Result<Option<Vector<'a, i32>>, Error> {
        self.vector(1, "inputs")
    }
    /// Output tensor indices.
    pub fn outputs(&self) -> Result<Option<Vector<'a, i32>>, Error> {
        self.vector(2, "outputs")
    }
    /// `BuiltinOptions` union tag (0 = none).
    pub fn builtin_options_type(&self) -> Result<u8, Error> {
        self.scalar::<u8>(3, 0, "builtin_options_type")
    }
    /// `BuiltinOptions` table, if any.
    pub fn builtin_options(&self) -> Result<Option<Options<'a>>, Error> {
        Ok(self.table(4, "builtin options")?.map(Options))
    }
    /// A custom operator's options (a FlexBuffer), if any.
    pub fn custom_options(&self) -> Result<Option<&'a [u8]>, Error> {
        Ok(self.vector::<u8>(5, "custom options")?.map(|v| v.bytes()))
    }
}

/// A builtin-options table; each field is checked when an operator reads it.
#[derive(Clone, Copy, Debug)]
pub struct Options<'a>(Table<'a>);

impl<'a> Options<'a> {
    /// The underlying table.
    pub fn table_view(&self) -> Table<'a> {
        self.0
    }

    /// A scalar field (`i32`, `i8`, `u8`, `bool`, `f32`) with its schema default.
    pub fn scalar<T: Scalar>(&self, id: u16, default: T) -> Result<T, Error> {
        self.0.scalar(id, default, "an operator option")
    }

    /// A `string` field.
    pub fn string(&self, id: u16) -> Result<Option<&'a str>, Error> {
        self.0.string(id, "an operator option")
    }

    /// An `[int]` field.
    pub fn ints(&self, id: u16) -> Result<Option<Vec<i32>>, Error> {
        Ok(self.0.vector::<i32>(id, "an operator option")?.map(|v| v.iter().collect()))
    }
}
