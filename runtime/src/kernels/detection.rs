//! DETECTION_POSTPROCESS (TFLM's `TFLite_Detection_PostProcess`, float32):
//! SSD box decoding against the anchors (in double, as TFLM), then
//! non-maximum suppression, regular (per class) or fast (per anchor's best
//! classes), with TFLM's sorts: a stable descending sort of the kept
//! scores, and a partial sort by (score descending, index ascending).

/// The op's figures.
pub struct Detection {
    /// Anchors (boxes).
    pub boxes: usize,
    /// Values per box encoding (at least 4).
    pub box_stride: usize,
    /// Classes without the background.
    pub classes: usize,
    /// Score columns per box (`classes`, or one more for the background).
    pub columns: usize,
    /// Output detections.
    pub max_detections: usize,
    /// Fast NMS: classes reported per detection.
    pub classes_per_detection: usize,
    /// Regular NMS: detections kept per class.
    pub detections_per_class: usize,
    /// Regular (per class) NMS instead of the fast one.
    pub regular: bool,
    /// Scores below this are dropped.
    pub score_threshold: f32,
    /// A box overlapping a kept one by more than this is dropped.
    pub iou_threshold: f32,
    /// `y`, `x`, `h`, `w` scales of the encodings.
    pub scales: [f32; 4],
}

/// The op's float inputs: float32 tensors as they are, or quantized ones
/// (LiteRT's uint8 SSD heads: `(q - zero_point) * scale` in float32, as its
/// `Dequantize`).
pub trait Values {
    /// Value `i`.
    fn at(&self, i: usize) -> f32;
}

impl Values for &[f32] {
    #[inline(always)]
    fn at(&self, i: usize) -> f32 {
        self[i]
    }
}

/// A quantized input read as floats.
#[derive(Clone, Copy, Debug)]
pub struct Dequantized<'a> {
    /// The values (a uint8 model's shifted to int8 by the compiler, the
    /// zero point with them).
    pub values: &'a [i8],
    /// The zero point.
    pub zero_point: i32,
    /// The scale.
    pub scale: f32,
    /// The first `vector_part` values are read as LiteRT's vector loop
    /// dequantizes its class scores, 8 at a time: the stored uint8 value
    /// times the scale in float32, plus `zero_times_scale`, two roundings;
    /// the rest (and every box encoding and anchor) as its scalar code,
    /// `(q - zero_point) * scale` with one rounding.
    pub vector_part: usize,
    /// `-zero_point * scale` of the stored uint8 values, in double then
    /// float32 (LiteRT's vector constant).
    pub zero_times_scale: f32,
}

impl Values for Dequantized<'_> {
    #[inline(always)]
    fn at(&self, i: usize) -> f32 {
        if i < self.vector_part {
            // The stored uint8 value: the int8 one plus 128.
            (self.values[i] as i32 + 128) as f32 * self.scale + self.zero_times_scale
        } else {
            (self.values[i] as i32 - self.zero_point) as f32 * self.scale
        }
    }
}

/// Splits `n` words off the front of `rest`.
fn take<'a>(rest: &mut &'a mut [u32], n: usize) -> &'a mut [u32] {
    let (head, tail) = core::mem::take(rest).split_at_mut(n);
    *rest = tail;
    head
}

fn decode(encodings: &impl Values, anchors: &impl Values, d: &Detection, decoded: &mut [u32]) {
    let [sy, sx, sh, sw] = d.scales.map(|s| s as f64);
    for i in 0..d.boxes {
        let e: [f32; 4] = core::array::from_fn(|k| encodings.at(i * d.box_stride + k));
        let a: [f32; 4] = core::array::from_fn(|k| anchors.at(i * 4 + k));
        let (ay, ax, ah, aw) = (a[0] as f64, a[1] as f64, a[2] as f64, a[3] as f64);
        let yc = (e[0] as f64 / sy * ah + ay) as f32;
        let xc = (e[1] as f64 / sx * aw + ax) as f32;
        let half_h = (0.5 * libm::exp(e[2] as f64 / sh) * ah) as f32;
        let half_w = (0.5 * libm::exp(e[3] as f64 / sw) * aw) as f32;
        let corners = [yc - half_h, xc - half_w, yc + half_h, xc + half_w];
        for (k, v) in corners.iter().enumerate() {
            decoded[i * 4 + k] = v.to_bits();
        }
    }
}

fn corner(decoded: &[u32], i: usize) -> [f32; 4] {
    core::array::from_fn(|k| f32::from_bits(decoded[i * 4 + k]))
}

fn iou(decoded: &[u32], i: usize, j: usize) -> f32 {
    let (a, b) = (corner(decoded, i), corner(decoded, j));
    let area_a = (a[2] - a[0]) * (a[3] - a[1]);
    let area_b = (b[2] - b[0]) * (b[3] - b[1]);
    if area_a <= 0.0 || area_b <= 0.0 {
        return 0.0;
    }
    let ymin = if a[0] > b[0] { a[0] } else { b[0] };
    let xmin = if a[1] > b[1] { a[1] } else { b[1] };
    let ymax = if a[2] < b[2] { a[2] } else { b[2] };
    let xmax = if a[3] < b[3] { a[3] } else { b[3] };
    let h = ymax - ymin;
    let w = xmax - xmin;
    let intersection = (if h > 0.0 { h } else { 0.0 }) * (if w > 0.0 { w } else { 0.0 });
    intersection / (area_a + area_b - intersection)
}

/// TFLM's `DecreasingArgSort`: a stable merge sort (insertion sort below
/// 20) of `0..n` by `values` descending.
fn stable_sort_desc(values: &[u32], indices: &mut [u32], scratch: &mut [u32]) {
    let greater = |i: u32, j: u32| f32::from_bits(values[i as usize]) > f32::from_bits(values[j as usize]);
    for (k, x) in indices.iter_mut().enumerate() {
        *x = k as u32;
    }
    merge_sort(indices, scratch, &greater);
}

fn merge_sort(v: &mut [u32], scratch: &mut [u32], greater: &impl Fn(u32, u32) -> bool) {
    let n = v.len();
    if n < 20 {
        // Insertion before the first greater element (`upper_bound`): stable.
        for i in 1..n {
            let x = v[i];
            let at = v[..i].iter().position(|&y| greater(x, y)).unwrap_or(i);
            v.copy_within(at..i, at + 1);
            v[at] = x;
        }
        return;
    }
    let half = n / 2;
    merge_sort(&mut v[..half], scratch, greater);
    merge_sort(&mut v[half..], scratch, greater);
    let (mut left, mut right) = (0, half);
    for out in scratch[..n].iter_mut() {
        if left >= half || (right < n && greater(v[right], v[left])) {
            *out = v[right];
            right += 1;
        } else {
            *out = v[left];
            left += 1;
        }
    }
    v.copy_from_slice(&scratch[..n]);
}

/// TFLM's `DecreasingPartialArgSort`: the first `count` of `0..n` by
/// (value descending, index ascending), a total order.
fn partial_sort_desc(value: impl Fn(usize) -> f32, indices: &mut [u32], count: usize) {
    for (k, x) in indices.iter_mut().enumerate() {
        *x = k as u32;
    }
    let before = |i: u32, j: u32| {
        let (a, b) = (value(i as usize), value(j as usize));
        a > b || (a == b && i < j)
    };
    for k in 0..count.min(indices.len()) {
        let mut best = k;
        for m in k + 1..indices.len() {
            if before(indices[m], indices[best]) {
                best = m;
            }
        }
        indices.swap(k, best);
    }
}

/// Scratch regions of the single-class NMS.
struct Nms<'a> {
    decoded: &'a [u32],
    keep_scores: &'a mut [u32],
    keep_indices: &'a mut [u32],
    sorted: &'a mut [u32],
    sort_scratch: &'a mut [u32],
    active: &'a mut [u32],
}

/// TFLM's `NonMaxSuppressionSingleClassHelper`: the indices of the boxes
/// kept for `scores`, at most `max`, into `selected`; returns how many.
fn nms_single(
    nms: &mut Nms<'_>,
    d: &Detection,
    score: impl Fn(usize) -> f32,
    selected: &mut [u32],
    max: usize,
) -> usize {
    let mut kept = 0;
    for i in 0..d.boxes {
        let s = score(i);
        if s >= d.score_threshold {
            nms.keep_scores[kept] = s.to_bits();
            nms.keep_indices[kept] = i as u32;
            kept += 1;
        }
    }
    stable_sort_desc(&nms.keep_scores[..kept], &mut nms.sorted[..kept], nms.sort_scratch);
    let out = kept.min(max);
    let mut count = 0;
    let mut candidates = kept;
    nms.active[..kept].fill(1);
    for i in 0..kept {
        if candidates == 0 || count >= out {
            break;
        }
        if nms.active[i] == 0 {
            continue;
        }
        let box_i = nms.keep_indices[nms.sorted[i] as usize] as usize;
        selected[count] = box_i as u32;
        count += 1;
        nms.active[i] = 0;
        candidates -= 1;
        for j in i + 1..kept {
            if nms.active[j] == 1 {
                let box_j = nms.keep_indices[nms.sorted[j] as usize] as usize;
                if iou(nms.decoded, box_i, box_j) > d.iou_threshold {
                    nms.active[j] = 0;
                    candidates -= 1;
                }
            }
        }
    }
    count
}

/// DETECTION_POSTPROCESS: boxes `[max_detections, 4]` (ymin, xmin, ymax,
/// xmax), classes and scores `[max_detections]`, and their count. The
/// regular NMS zeroes the rows past the count; the fast one leaves them
/// as they were (as TFLM does).
#[allow(clippy::too_many_arguments)]
#[inline(never)]
pub fn detection_postprocess(
    encodings: impl Values,
    scores: impl Values,
    anchors: impl Values,
    out_boxes: &mut [f32],
    out_classes: &mut [f32],
    out_scores: &mut [f32],
    out_count: &mut [f32],
    d: &Detection,
    scratch: &mut [u32],
) {
    let n = d.boxes;
    let mut rest = scratch;
    let decoded = take(&mut rest, 4 * n);
    decode(&encodings, &anchors, d, decoded);
    let column = take(&mut rest, n);
    let keep_scores = take(&mut rest, n);
    let keep_indices = take(&mut rest, n);
    let sorted = take(&mut rest, n);
    let sort_scratch = take(&mut rest, n);
    let active = take(&mut rest, n);
    let selected = take(&mut rest, n);
    let mut nms = Nms { decoded, keep_scores, keep_indices, sorted, sort_scratch, active };
    let offset = d.columns - d.classes;
    if d.regular {
        let merged = d.max_detections + d.detections_per_class;
        let indices = take(&mut rest, merged);
        let values = take(&mut rest, merged);
        let sorted_indices = take(&mut rest, merged);
        let sorted_values = take(&mut rest, merged);
        let mut size = 0;
        for class in 0..d.classes {
            let class_scores: &mut [u32] = column;
            for (row, score) in class_scores[..n].iter_mut().enumerate() {
                *score = scores.at(row * d.columns + class + offset).to_bits();
            }
            let count = nms_single(&mut nms, d, |i| f32::from_bits(class_scores[i]), selected, d.detections_per_class);
            let mut at = size;
            for &s in &selected[..count] {
                indices[at] = (s as usize * d.columns + class + offset) as u32;
                values[at] = class_scores[s as usize];
                at += 1;
            }
            let to_sort = at.min(d.max_detections);
            partial_sort_desc(|i| f32::from_bits(values[i]), &mut sorted_indices[..at], to_sort);
            for row in 0..to_sort {
                let t = sorted_indices[row] as usize;
                sorted_values[row] = values[t];
                sorted_indices[row] = indices[t];
            }
            indices[..to_sort].copy_from_slice(&sorted_indices[..to_sort]);
            values[..to_sort].copy_from_slice(&sorted_values[..to_sort]);
            size = to_sort;
        }
        for k in 0..d.max_detections {
            if k < size {
                let anchor = indices[k] as usize / d.columns;
                let class = indices[k] as usize - anchor * d.columns - offset;
                out_boxes[4 * k..4 * k + 4].copy_from_slice(&corner(nms.decoded, anchor));
                out_classes[k] = class as f32;
                out_scores[k] = f32::from_bits(values[k]);
            } else {
                out_boxes[4 * k..4 * k + 4].fill(0.0);
                out_classes[k] = 0.0;
                out_scores[k] = 0.0;
            }
        }
        out_count[0] = size as f32;
    } else {
        let per_anchor = d.classes_per_detection.min(d.classes);
        let order = take(&mut rest, n * d.classes);
        let max_scores: &mut [u32] = column;
        for row in 0..n {
            let first = row * d.columns + offset;
            let classes = &mut order[row * d.classes..(row + 1) * d.classes];
            partial_sort_desc(|i| scores.at(first + i), classes, per_anchor);
            max_scores[row] = scores.at(first + classes[0] as usize).to_bits();
        }
        let count = nms_single(&mut nms, d, |i| f32::from_bits(max_scores[i]), selected, d.max_detections);
        // TFLM's row is `per_anchor * k + col` with `k` counting every
        // class written, not every anchor: with one class per detection
        // (SSD heads) the rows follow each other; with more it leaves gaps
        // and runs past its outputs, where nothing is written here.
        let mut k = 0;
        for &s in &selected[..count] {
            let s = s as usize;
            let first = s * d.columns + offset;
            for col in 0..per_anchor {
                let class = order[s * d.classes + col] as usize;
                let row = per_anchor * k + col;
                if row < out_classes.len() && row < out_scores.len() && 4 * row + 4 <= out_boxes.len() {
                    out_boxes[4 * row..4 * row + 4].copy_from_slice(&corner(nms.decoded, s));
                    out_classes[row] = class as f32;
                    out_scores[row] = scores.at(first + class);
                }
                k += 1;
            }
        }
        out_count[0] = k as f32;
    }
}
