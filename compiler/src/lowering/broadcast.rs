//! NumPy-style broadcasting of shapes, and shapes right-aligned to the six
//! dimensions the runtime's strided kernels take.

/// The broadcast output shape of two shapes, or None if incompatible.
pub fn broadcast_shape(a: &[usize], b: &[usize]) -> Option<Vec<usize>> {
    let rank = a.len().max(b.len());
    let dim = |s: &[usize], i: usize| if i + s.len() >= rank { s[i + s.len() - rank] } else { 1 };
    (0..rank)
        .map(|i| match (dim(a, i), dim(b, i)) {
            (x, y) if x == y => Some(x),
            (1, y) => Some(y),
            (x, 1) => Some(x),
            _ => None,
        })
        .collect()
}

/// Strides of `shape` right-aligned to `out`, 0 where it is broadcast.
pub fn broadcast_strides(shape: &[usize], out: &[usize]) -> Vec<usize> {
    let mut strides = vec![0; out.len()];
    let mut acc = 1;
    for i in (0..shape.len()).rev() {
        let o = i + out.len() - shape.len();
        strides[o] = if shape[i] == 1 { 0 } else { acc };
        acc *= shape[i];
    }
    strides
}

/// Right-aligns up to 6 (extent, stride) pairs.
pub fn six(pairs: &[(usize, usize)]) -> ([usize; 6], [usize; 6]) {
    let mut dims = [1; 6];
    let mut strides = [0; 6];
    let skip = 6 - pairs.len();
    for (i, &(d, s)) in pairs.iter().enumerate() {
        dims[skip + i] = d;
        strides[skip + i] = s;
    }
    (dims, strides)
}
