//! Reading the FlexBuffers that custom operators keep their options in
//! (TFLM's signal library): a root map whose values, in key order, are
//! read by position as TFLM's `FlexbufferWrapper` reads them, or by key
//! (`find`, as DETECTION_POSTPROCESS reads them). Every read is
//! bounds-checked; a malformed buffer is an error, never a panic.

use crate::diag::Error;

/// Type codes of the FlexBuffers format used here.
mod code {
    pub const INT: u8 = 1;
    pub const UINT: u8 = 2;
    pub const FLOAT: u8 = 3;
    pub const MAP: u8 = 9;
    pub const VECTOR_INT: u8 = 11;
    pub const VECTOR_UINT: u8 = 12;
    pub const BOOL: u8 = 26;
    pub const VECTOR_BOOL: u8 = 36;
}

/// The values of a root map, in key order.
#[derive(Clone, Copy, Debug)]
pub struct FlexMap<'a> {
    bytes: &'a [u8],
    /// Where the values start.
    at: usize,
    /// Byte width of each value slot.
    width: usize,
    len: usize,
}

fn bad(what: &str) -> Error {
    Error::model(format!("custom options: {what} (corrupt FlexBuffer)"))
}

fn read_uint(bytes: &[u8], at: usize, width: usize) -> Result<u64, Error> {
    let b = bytes
        .get(at..at.checked_add(width).ok_or_else(|| bad("offset overflow"))?)
        .ok_or_else(|| bad("out of bounds"))?;
    Ok(b.iter().rev().fold(0u64, |v, &x| (v << 8) | x as u64))
}

fn read_int(bytes: &[u8], at: usize, width: usize) -> Result<i64, Error> {
    let v = read_uint(bytes, at, width)?;
    let shift = 64 - 8 * width as u32;
    Ok(((v << shift) as i64) >> shift)
}

/// The position `offset` bytes before `at` (FlexBuffers points backwards).
fn back(at: usize, offset: u64) -> Result<usize, Error> {
    usize::try_from(offset).ok().and_then(|o| at.checked_sub(o)).ok_or_else(|| bad("offset out of bounds"))
}

fn width_of(packed: u8) -> usize {
    1 << (packed & 3)
}

impl<'a> FlexMap<'a> {
    /// The root map of `bytes`.
    pub fn root(bytes: &'a [u8]) -> Result<FlexMap<'a>, Error> {
        let n = bytes.len();
        if n < 3 {
            return Err(bad("too short"));
        }
        let root_width = bytes[n - 1] as usize;
        let packed = bytes[n - 2];
        if !matches!(root_width, 1 | 2 | 4 | 8) || packed >> 2 != code::MAP {
            return Err(bad("the root is not a map"));
        }
        let slot = n.checked_sub(2 + root_width).ok_or_else(|| bad("too short"))?;
        let at = back(slot, read_uint(bytes, slot, root_width)?)?;
        let width = width_of(packed);
        let len = usize::try_from(read_uint(bytes, at.checked_sub(width).ok_or_else(|| bad("no size"))?, width)?)
            .map_err(|_| bad("size"))?;
        // Values, then one type byte each, must lie in the buffer.
        let end = len.checked_mul(width + 1).and_then(|s| s.checked_add(at)).ok_or_else(|| bad("size"))?;
        if end > n {
            return Err(bad("the map runs past the buffer"));
        }
        Ok(FlexMap { bytes, at, width, len })
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the map is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn slot(&self, i: usize) -> Result<(usize, u8), Error> {
        if i >= self.len {
            return Err(bad(&format!("value {i} of {} missing", self.len)));
        }
        Ok((self.at + i * self.width, self.bytes[self.at + self.len * self.width + i]))
    }

    /// Value `i` as an integer (int, uint, bool or float, as TFLM's
    /// `AsInt64` converts them).
    pub fn int(&self, i: usize) -> Result<i64, Error> {
        let (at, packed) = self.slot(i)?;
        match packed >> 2 {
            code::INT => read_int(self.bytes, at, self.width),
            code::UINT | code::BOOL => Ok(read_uint(self.bytes, at, self.width)? as i64),
            code::FLOAT if self.width == 4 => Ok(f32::from_bits(read_uint(self.bytes, at, 4)? as u32) as i64),
            code::FLOAT if self.width == 8 => Ok(f64::from_bits(read_uint(self.bytes, at, 8)?) as i64),
            t => Err(bad(&format!("value {i} has type {t}, not a number"))),
        }
    }

    /// The position of `key` among the map's keys, if it has it.
    pub fn find(&self, key: &str) -> Result<Option<usize>, Error> {
        let w = self.width;
        let slot = self.at.checked_sub(3 * w).ok_or_else(|| bad("no keys"))?;
        let keys = back(slot, read_uint(self.bytes, slot, w)?)?;
        let key_width = usize::try_from(read_uint(self.bytes, self.at - 2 * w, w)?).map_err(|_| bad("key width"))?;
        if !matches!(key_width, 1 | 2 | 4 | 8) {
            return Err(bad("key width"));
        }
        for i in 0..self.len {
            let at = keys + i * key_width;
            let start = back(at, read_uint(self.bytes, at, key_width)?)?;
            let name = self.bytes.get(start..).ok_or_else(|| bad("key out of bounds"))?;
            let end = name.iter().position(|&b| b == 0).ok_or_else(|| bad("unterminated key"))?;
            if &name[..end] == key.as_bytes() {
                return Ok(Some(i));
            }
        }
        Ok(None)
    }

    /// Value `i` as a float (TFLM's `AsFloat`: integers converted).
    pub fn float(&self, i: usize) -> Result<f32, Error> {
        let (at, packed) = self.slot(i)?;
        match packed >> 2 {
            code::FLOAT if self.width == 4 => Ok(f32::from_bits(read_uint(self.bytes, at, 4)? as u32)),
            code::FLOAT if self.width == 8 => Ok(f64::from_bits(read_uint(self.bytes, at, 8)?) as f32),
            code::INT => Ok(read_int(self.bytes, at, self.width)? as f32),
            code::UINT | code::BOOL => Ok(read_uint(self.bytes, at, self.width)? as f32),
            t => Err(bad(&format!("value {i} has type {t}, not a number"))),
        }
    }

    /// Value `i` as a bool.
    pub fn bool(&self, i: usize) -> Result<bool, Error> {
        Ok(self.int(i)? != 0)
    }

    /// Value `i` as a vector of integers (a typed int, uint or bool vector).
    pub fn ints(&self, i: usize) -> Result<Vec<i64>, Error> {
        let (at, packed) = self.slot(i)?;
        let t = packed >> 2;
        if !matches!(t, code::VECTOR_INT | code::VECTOR_UINT | code::VECTOR_BOOL) {
            return Err(bad(&format!("value {i} has type {t}, not a vector of integers")));
        }
        let start = back(at, read_uint(self.bytes, at, self.width)?)?;
        let width = width_of(packed);
        let len = read_uint(self.bytes, start.checked_sub(width).ok_or_else(|| bad("no size"))?, width)? as usize;
        if len.checked_mul(width).and_then(|s| s.checked_add(start)).is_none_or(|e| e > self.bytes.len()) {
            return Err(bad("a vector runs past the buffer"));
        }
        (0..len)
            .map(|k| match t {
                code::VECTOR_INT => read_int(self.bytes, start + k * width, width),
                _ => Ok(read_uint(self.bytes, start + k * width, width)? as i64),
            })
            .collect()
    }
}
