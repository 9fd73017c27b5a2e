//! Flatbuffer primitives, read as TFLM reads them: no verifier pass, no
//! alignment or UTF-8 requirement, absent fields defaulted; but every read is
//! bounds-checked, so an offset or a length that points outside the file is
//! an error, never a panic or a wild read.
//!
//! TFLM casts the model bytes to its generated C++ accessors (`GetModel`)
//! and reads what its allocator and kernels need, without verifying the
//! file. Real converters and vendor tools write vectors of `int64` zero
//! points or tables at positions the flatbuffers verifier calls unaligned;
//! TFLM runs those files, so this reader does too. Only what the compiler
//! reads is looked at: a corrupt field nobody reads (a description string,
//! metadata, a signature) is no reason to refuse a model, as in TFLM.

use crate::diag::Error;

/// A little-endian scalar as flatbuffers stores it.
pub trait Scalar: Copy + 'static {
    /// Bytes it takes.
    const SIZE: usize;
    /// Reads it from exactly `SIZE` bytes.
    fn from_le(bytes: &[u8]) -> Self;
}

macro_rules! scalar {
    ($($t:ty),*) => {$(
        impl Scalar for $t {
            const SIZE: usize = core::mem::size_of::<$t>();
            fn from_le(bytes: &[u8]) -> Self {
                let mut b = [0u8; core::mem::size_of::<$t>()];
                b.copy_from_slice(bytes);
                <$t>::from_le_bytes(b)
            }
        }
    )*};
}
scalar!(i8, u8, i16, u16, i32, u32, i64, u64, f32, f64);

impl Scalar for bool {
    const SIZE: usize = 1;
    /// Any nonzero byte is `true` (C++ reads the byte as `!= 0`).
    fn from_le(bytes: &[u8]) -> Self {
        bytes[0] != 0
    }
}

fn outside(what: &str, pos: usize, len: usize, file: usize) -> Error {
    Error::model(format!(
        "corrupt or truncated TFLite flatbuffer: {what} ({len} bytes at byte {pos}) runs past the end of the file ({file} bytes)"
    ))
}

/// `len` bytes of `buf` at `pos`, or an error naming `what`.
fn bytes_at<'a>(buf: &'a [u8], pos: usize, len: usize, what: &str) -> Result<&'a [u8], Error> {
    pos.checked_add(len).and_then(|end| buf.get(pos..end)).ok_or_else(|| outside(what, pos, len, buf.len()))
}

fn read_at<T: Scalar>(buf: &[u8], pos: usize, what: &str) -> Result<T, Error> {
    bytes_at(buf, pos, T::SIZE, what).map(T::from_le)
}

/// The position a `uoffset` stored at `pos` points to.
fn follow(buf: &[u8], pos: usize, what: &str) -> Result<usize, Error> {
    let off = read_at::<u32>(buf, pos, what)? as usize;
    pos.checked_add(off).filter(|&p| p < buf.len()).ok_or_else(|| {
        Error::model(format!(
            "corrupt or truncated TFLite flatbuffer: {what}: the offset at byte {pos} points to byte {}, past the end of the file ({} bytes)",
            pos as u64 + off as u64,
            buf.len()
        ))
    })
}

/// A table: its position and its vtable, both inside the file.
#[derive(Clone, Copy)]
pub struct Table<'a> {
    buf: &'a [u8],
    loc: usize,
    vtable: &'a [u8],
}

impl core::fmt::Debug for Table<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Table@{}", self.loc)
    }
}

impl<'a> Table<'a> {
    /// The whole file the table sits in (buffers stored after the
    /// flatbuffer are addressed from its start).
    pub fn file(&self) -> &'a [u8] {
        self.buf
    }

    /// The table at `loc`; `what` names it in errors.
    pub fn at(buf: &'a [u8], loc: usize, what: &str) -> Result<Table<'a>, Error> {
        let soffset = read_at::<i32>(buf, loc, what)?;
        let vt = i64::try_from(loc)
            .ok()
            .map(|l| l - i64::from(soffset))
            .and_then(|v| usize::try_from(v).ok())
            .ok_or_else(|| outside(&format!("{what}'s vtable"), loc, 4, buf.len()))?;
        let size = read_at::<u16>(buf, vt, &format!("{what}'s vtable"))? as usize;
        let vtable = bytes_at(buf, vt, size, &format!("{what}'s vtable"))?;
        Ok(Table { buf, loc, vtable })
    }

    /// The root table of a flatbuffer.
    pub fn root(buf: &'a [u8]) -> Result<Table<'a>, Error> {
        let loc = follow(buf, 0, "the root table offset")?;
        Table::at(buf, loc, "the model table")
    }

    /// Where the table starts in the file.
    pub fn position(&self) -> usize {
        self.loc
    }

    /// Whether the vtable has field `id` (nothing read behind it).
    pub fn has(&self, id: u16) -> bool {
        self.field(id).is_some()
    }

    /// Where field `id` sits, if the vtable has it (slot `4 + 2 * id`).
    pub fn field(&self, id: u16) -> Option<usize> {
        let slot = 4 + 2 * usize::from(id);
        let off = self.vtable.get(slot..slot + 2).map(<u16 as Scalar>::from_le)?;
        (off != 0).then(|| self.loc + usize::from(off))
    }

    /// A scalar field, `default` where absent.
    pub fn scalar<T: Scalar>(&self, id: u16, default: T, what: &str) -> Result<T, Error> {
        match self.field(id) {
            Some(pos) => read_at(self.buf, pos, what),
            None => Ok(default),
        }
    }

    /// The position an offset field points to.
    fn target(&self, id: u16, what: &str) -> Result<Option<usize>, Error> {
        self.field(id).map(|pos| follow(self.buf, pos, what)).transpose()
    }

    /// A table field.
    pub fn table(&self, id: u16, what: &str) -> Result<Option<Table<'a>>, Error> {
        self.target(id, what)?.map(|pos| Table::at(self.buf, pos, what)).transpose()
    }

    /// A vector-of-scalars field.
    pub fn vector<T: Scalar>(&self, id: u16, what: &str) -> Result<Option<Vector<'a, T>>, Error> {
        self.target(id, what)?.map(|pos| Vector::at(self.buf, pos, what)).transpose()
    }

    /// A vector-of-tables field.
    pub fn tables(&self, id: u16, what: &str) -> Result<Option<Tables<'a>>, Error> {
        Ok(self.target(id, what)?.map(|pos| Vector::at(self.buf, pos, what)).transpose()?.map(Tables))
    }

    /// A string field. TFLM never checks strings: invalid UTF-8 reads as
    /// its longest valid prefix (names only serve messages and docs).
    pub fn string(&self, id: u16, what: &str) -> Result<Option<&'a str>, Error> {
        Ok(self.vector::<u8>(id, what)?.map(|v| {
            let b = v.bytes();
            match core::str::from_utf8(b) {
                Ok(s) => s,
                Err(e) => core::str::from_utf8(&b[..e.valid_up_to()]).unwrap_or_default(),
            }
        }))
    }
}

/// A vector of scalars, its bytes inside the file (any alignment).
#[derive(Clone, Copy)]
pub struct Vector<'a, T> {
    buf: &'a [u8],
    /// Where its first element starts.
    start: usize,
    len: usize,
    _t: core::marker::PhantomData<T>,
}

impl<'a, T: Scalar> Vector<'a, T> {
    fn at(buf: &'a [u8], pos: usize, what: &str) -> Result<Self, Error> {
        let len = read_at::<u32>(buf, pos, what)? as usize;
        let size = len.checked_mul(T::SIZE).ok_or_else(|| outside(what, pos, usize::MAX, buf.len()))?;
        bytes_at(buf, pos + 4, size, what)?;
        Ok(Vector { buf, start: pos + 4, len, _t: core::marker::PhantomData })
    }

    /// Where the vector (its length word) starts in the file.
    pub fn position(&self) -> usize {
        self.start - 4
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The raw little-endian bytes (checked inside the file when read).
    pub fn bytes(&self) -> &'a [u8] {
        &self.buf[self.start..self.start + self.len * T::SIZE]
    }

    /// Element `i` (`i < len()`).
    pub fn get(&self, i: usize) -> T {
        T::from_le(&self.bytes()[i * T::SIZE..(i + 1) * T::SIZE])
    }

    /// The elements in order.
    pub fn iter(&self) -> impl Iterator<Item = T> + 'a {
        self.bytes().chunks_exact(T::SIZE).map(T::from_le)
    }
}

/// A vector of tables: each element is an offset, followed when read.
#[derive(Clone, Copy)]
pub struct Tables<'a>(Vector<'a, u32>);

impl<'a> Tables<'a> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether it has no elements.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The table of element `i` (`i < len()`); `what` names it in errors.
    pub fn get(&self, i: usize, what: &str) -> Result<Table<'a>, Error> {
        // The element's offset is relative to where it is stored.
        let pos = follow(self.0.buf, self.0.start + 4 * i, what)?;
        Table::at(self.0.buf, pos, what)
    }
}
