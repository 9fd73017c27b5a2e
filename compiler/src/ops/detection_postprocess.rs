//! DETECTION_POSTPROCESS (`CUSTOM:TFLite_Detection_PostProcess`, the SSD
//! head): box encodings `[1, boxes, >= 4]`, class scores `[1, boxes,
//! classes (+ background)]` and anchors `[boxes, 4]`, float32 (or, as
//! LiteRT takes them, uint8, shifted to int8 by `lowering::uint8` and read
//! as `(q - zero_point) * scale`), into detection boxes, classes,
//! scores and their count (float32), as TFLM's kernel
//! (`runtime::kernels::detection`). Options are read by key, a
//! missing one as TFLM reads it (0, or its default).

use crate::diag::Error;
use crate::graph::{DType, Tensor};
use crate::lowering::context::OpCx;
use crate::lowering::emit::{Emit, f32_lit};
use crate::lowering::operator::Operator;
use crate::lowering::variant::{Kernel, Variant};
use crate::tflite::flexbuffer::FlexMap;
use proc_macro2::TokenStream;
use quote::quote;

#[derive(Debug)]
struct DetectionPostprocess {
    inputs: [usize; 3],
    outputs: [usize; 4],
    boxes: usize,
    box_stride: usize,
    classes: usize,
    columns: usize,
    max_detections: usize,
    classes_per_detection: usize,
    detections_per_class: usize,
    regular: bool,
    score_threshold: f32,
    iou_threshold: f32,
    scales: [f32; 4],
    /// Per input, the (zero point, scale) of a quantized one.
    dequantized: [Option<(i32, f32)>; 3],
}

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    cx.arity(3, 3, 4)?;
    let (encodings, scores, anchors) = (cx.input(0)?, cx.input(1)?, cx.input(2)?);
    let outs = [cx.output(0)?, cx.output(1)?, cx.output(2)?, cx.output(3)?];
    // Quantized inputs as LiteRT takes them (uint8; TFLM: float32 only),
    // which reach here as int8 (`lowering::uint8`). Neither runs int8 ones.
    let quantized = |t: &Tensor<'_>| -> Result<Option<(i32, f32)>, Error> {
        match t.dtype {
            DType::F32 => Ok(None),
            DType::I8 if cx.node.from_uint8 => cx.per_tensor(t).map(|(scale, zero_point)| Some((zero_point, scale))),
            _ => Err(cx.unsupported(
                &format!("{} '{}'", t.describe(), t.name),
                "float32 box encodings, scores and anchors (as TFLM), or quantized uint8 ones (as LiteRT)",
            )),
        }
    };
    let dequantized = [quantized(encodings)?, quantized(scores)?, quantized(anchors)?];
    if outs.iter().any(|t| t.dtype != DType::F32) {
        return Err(cx.unsupported("an output that is not float32", "float32 outputs"));
    }
    if encodings.shape.len() != 3 || scores.shape.len() != 3 || anchors.shape.len() != 2 {
        return Err(cx.err(format!(
            "box encodings {} and scores {} must be rank 3, anchors {} rank 2",
            encodings.describe(),
            scores.describe(),
            anchors.describe()
        )));
    }
    let (boxes, box_stride) = (encodings.shape[1], encodings.shape[2]);
    let columns = scores.shape[2];
    if encodings.shape[0] != 1 || scores.shape[0] != 1 || scores.shape[1] != boxes || box_stride < 4 {
        return Err(cx.err(format!(
            "box encodings {} and scores {} must be one batch of the same boxes, 4 or more values each",
            encodings.describe(),
            scores.describe()
        )));
    }
    if anchors.elements < 4 * boxes {
        return Err(cx.err(format!("anchors {} do not hold {boxes} boxes", anchors.describe())));
    }
    let options = cx.node.custom_options.ok_or_else(|| cx.err("the options are missing"))?;
    let map = FlexMap::root(options).map_err(|e| cx.err(e.message))?;
    let find = |key: &str| map.find(key).map_err(|e| cx.err(e.message));
    let int = |key: &str, default: i64| -> Result<i64, Error> {
        match find(key)? {
            Some(i) => map.int(i).map_err(|e| cx.err(e.message)),
            None => Ok(default),
        }
    };
    let float = |key: &str| -> Result<f32, Error> {
        match find(key)? {
            Some(i) => map.float(i).map_err(|e| cx.err(e.message)),
            None => Ok(0.0),
        }
    };
    let count = |key: &str, default: i64| -> Result<usize, Error> {
        let v = int(key, default)?;
        usize::try_from(v)
            .ok()
            .filter(|&v| v <= 1 << 16)
            .ok_or_else(|| cx.err(format!("{key} {v} is outside 0..=65536")))
    };
    let classes = count("num_classes", 0)?;
    let max_detections = count("max_detections", 0)?;
    let classes_per_detection = count("max_classes_per_detection", 0)?;
    let detections_per_class = count("detections_per_class", 100)?;
    let regular = int("use_regular_nms", 0)? != 0;
    let score_threshold = float("nms_score_threshold")?;
    let iou_threshold = float("nms_iou_threshold")?;
    let scales = [float("y_scale")?, float("x_scale")?, float("h_scale")?, float("w_scale")?];
    if !(iou_threshold > 0.0 && iou_threshold <= 1.0) {
        return Err(cx.err(format!("nms_iou_threshold {iou_threshold} must be in (0, 1] (TFLM refuses it)")));
    }
    if columns < classes || columns - classes > 1 || classes == 0 {
        return Err(cx.err(format!(
            "{columns} score columns for {classes} classes: TFLM wants the classes and at most one background"
        )));
    }
    if regular && detections_per_class == 0 || !regular && classes_per_detection == 0 {
        return Err(
            cx.err("detections_per_class (regular NMS) or max_classes_per_detection (fast NMS) must be positive")
        );
    }
    let rows = if regular { max_detections } else { max_detections * classes_per_detection.min(classes) };
    if outs[0].elements < 4 * rows || outs[1].elements < rows || outs[2].elements < rows || outs[3].elements < 1 {
        return Err(cx.err(format!("the outputs must hold {rows} detections and their count")));
    }
    Ok(Box::new(DetectionPostprocess {
        inputs: [encodings.index, scores.index, anchors.index],
        dequantized,
        outputs: outs.map(|t| t.index),
        boxes,
        box_stride,
        classes,
        columns,
        max_detections,
        classes_per_detection,
        detections_per_class,
        regular,
        score_threshold,
        iou_threshold,
        scales,
    }))
}

impl DetectionPostprocess {
    fn scratch_words(&self) -> usize {
        let n = self.boxes;
        let merged = self.max_detections + self.detections_per_class;
        let per_anchor = if self.regular { 0 } else { n * self.classes };
        11 * n + 4 * merged + per_anchor
    }
}

impl Operator for DetectionPostprocess {
    fn variants(&self) -> Vec<Variant> {
        let n = self.boxes as u64;
        vec![Variant { kernel: Kernel::Direct, scratch: 4 * self.scratch_words(), cost: n * n * self.classes as u64 }]
    }

    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        let mut values = Vec::new();
        for (k, (&t, q)) in self.inputs.iter().zip(self.dequantized).enumerate() {
            let read = cx.read(t)?;
            values.push(match q {
                None => read,
                Some((zero_point, scale)) => {
                    // LiteRT dequantizes the class scores with its vector
                    // Dequantize (8 at a time, on x86 too through its NEON
                    // emulation: a product and a sum, two roundings; the last
                    // `len % 8` by its scalar code), the box encodings and
                    // anchors one by one (one rounding).
                    let len = self.boxes * self.columns;
                    let vector_part = if k == 1 { len - len % 8 } else { 0 };
                    let stored_zero_point = f64::from(zero_point + 128);
                    let zero_times_scale = f32_lit((-stored_zero_point * f64::from(scale)) as f32);
                    let scale = f32_lit(scale);
                    quote!(::tinyaot::__private::kernels::detection::Dequantized {
                        values: #read, zero_point: #zero_point, scale: #scale,
                        vector_part: #vector_part, zero_times_scale: #zero_times_scale,
                    })
                }
            });
        }
        let [e, s, a] = [&values[0], &values[1], &values[2]];
        let [b, c, sc, n] = self.outputs;
        let (b, c, sc, n) = (cx.write(b)?, cx.write(c)?, cx.write(sc)?, cx.write(n)?);
        let scratch = cx.scratch::<u32>()?;
        let (boxes, stride, classes, columns) = (self.boxes, self.box_stride, self.classes, self.columns);
        let (max, per_detection, per_class, regular) =
            (self.max_detections, self.classes_per_detection, self.detections_per_class, self.regular);
        let (score, iou) = (f32_lit(self.score_threshold), f32_lit(self.iou_threshold));
        let scales = self.scales.map(f32_lit);
        let detection = quote!(::tinyaot::__private::kernels::detection);
        Ok(quote!(#detection::detection_postprocess(#e, #s, #a, #b, #c, #sc, #n, &#detection::Detection {
            boxes: #boxes, box_stride: #stride, classes: #classes, columns: #columns, max_detections: #max,
            classes_per_detection: #per_detection, detections_per_class: #per_class, regular: #regular,
            score_threshold: #score, iou_threshold: #iou, scales: [#(#scales),*],
        }, #scratch);))
    }
}
