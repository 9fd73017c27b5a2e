//! Test support: every model with reference vectors, compiled at build time
//! by `include_model!` (see `build.rs`), and the comparison rules.

include!(concat!(env!("OUT_DIR"), "/models.rs"));

pub mod firmware;
pub mod peer;
pub mod writer;

pub mod harness {
    use std::path::Path;

    /// Runs a model on concatenated input bytes, returns concatenated output bytes.
    pub type Run = fn(&[u8]) -> Vec<u8>;

    /// One compiled model.
    pub struct Entry {
        /// File stem.
        pub name: &'static str,
        /// Runs the model on concatenated input bytes, returns concatenated output bytes.
        pub run: fn(&[u8]) -> Vec<u8>,
        /// The same with `in_place = false` (no buffer overlaps another).
        pub run_disjoint: fn(&[u8]) -> Vec<u8>,
        /// Loads an input once and returns a closure running one invoke.
        pub invoker: fn(&[u8]) -> Box<dyn FnMut()>,
        /// Multiply-accumulates per invoke.
        pub macs: u64,
        /// The graph outputs.
        pub outputs: &'static [tinyaot::TensorInfo],
        /// The memory plan.
        pub plan: tinyaot::MemoryPlan,
        /// The plan with `in_place = false`.
        pub plan_disjoint: tinyaot::MemoryPlan,
        /// For a model with a chain of window ops: the model compiled at
        /// the smallest arena a tiled plan reaches, and that plan.
        pub tiled: Option<(Run, tinyaot::MemoryPlan)>,
        /// The same with `borrowed_inputs = true` (inputs passed to
        /// `invoke`), at the smallest tiled arena then.
        pub borrowed: Option<(Run, tinyaot::MemoryPlan)>,
    }

    /// Reference pairs beside a model: `NAME[.tag].input.bin` with `NAME[.tag].output.bin`.
    pub fn vectors(dir: &str, name: &str) -> Vec<(String, Vec<u8>, Vec<u8>)> {
        let mut v = Vec::new();
        let Ok(rd) = std::fs::read_dir(dir) else {
            return v;
        };
        let mut files: Vec<String> =
            rd.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect();
        files.sort();
        for f in files {
            let Some(stem) = f.strip_suffix(".input.bin") else {
                continue;
            };
            let tag = if stem == name {
                ""
            } else if let Some(t) = stem.strip_prefix(name).and_then(|t| t.strip_prefix('.')) {
                t
            } else {
                continue;
            };
            if tag.contains('.') {
                continue;
            }
            let out = Path::new(dir).join(format!("{stem}.output.bin"));
            if let (Ok(i), Ok(o)) = (std::fs::read(Path::new(dir).join(&f)), std::fs::read(out)) {
                v.push((if tag.is_empty() { "default".to_string() } else { tag.to_string() }, i, o));
            }
        }
        v
    }

    /// A hook that checks what `invoke_with` promises: each op's `before`
    /// is followed by its own `after`, each site is the model's
    /// `PLAN.ops` entry at its position, and in a model without control
    /// flow every op runs once in execution order (once per band, bands in
    /// order, in a tiled stage). Panics with the first violation.
    pub struct CheckedHook {
        ops: &'static [tinyaot::OpSite],
        tiled: &'static [tinyaot::TiledStage],
        open: Option<(usize, Option<usize>)>,
        /// (position, band) of every completed pair, in order.
        pub seen: Vec<(usize, Option<usize>)>,
    }

    impl CheckedHook {
        /// A checker for a model's `PLAN`.
        pub fn new(plan: &tinyaot::MemoryPlan) -> Self {
            CheckedHook { ops: plan.ops, tiled: plan.tiled, open: None, seen: Vec::new() }
        }

        /// Checks the whole sequence after one invoke (that was not
        /// stopped by a CIRCULAR_BUFFER), then clears it.
        pub fn finish(&mut self) {
            assert!(self.open.is_none(), "invoke ended inside op {:?}", self.open);
            if self.ops.iter().all(|s| s.subgraph == 0) {
                let mut want = Vec::new();
                let mut position = 0;
                while position < self.ops.len() {
                    match self.tiled.iter().find(|t| t.first_op == position) {
                        Some(t) => {
                            for band in 0..t.bands {
                                want.extend((t.first_op..=t.last_op).map(|p| (p, Some(band))));
                            }
                            position = t.last_op + 1;
                        }
                        _ => {
                            want.push((position, None));
                            position += 1;
                        }
                    }
                }
                assert_eq!(self.seen, want, "every op once, in order (each band of a tiled stage)");
            }
            self.seen.clear();
        }
    }

    impl tinyaot::Hook for CheckedHook {
        fn before(&mut self, site: &tinyaot::OpSite, band: Option<usize>) {
            assert!(self.open.is_none(), "op {} began inside op {:?}", site.position, self.open);
            assert_eq!(self.ops.get(site.position), Some(site), "the site is PLAN.ops[position]");
            self.open = Some((site.position, band));
        }

        fn after(&mut self, site: &tinyaot::OpSite, band: Option<usize>) {
            assert_eq!(self.open.take(), Some((site.position, band)), "after() closes its own before()");
            self.seen.push((site.position, band));
        }
    }

    /// Compares outputs: integer tensors byte for byte, float32 within 1e-5
    /// relative (absolute 1e-6 near zero). Returns a description of the
    /// first difference.
    /// `Ok(true)` when every byte is equal.
    pub fn compare(outputs: &[tinyaot::TensorInfo], got: &[u8], want: &[u8]) -> Result<bool, String> {
        if got.len() != want.len() {
            return Err(format!("{} output bytes, reference has {}", got.len(), want.len()));
        }
        // Several invokes (a stateful model) give one set of outputs each.
        let per: usize = outputs.iter().map(|o| o.bytes).sum::<usize>().max(1);
        for (run, (got, want)) in got.chunks(per).zip(want.chunks(per)).enumerate() {
            let mut off = 0;
            for (k, o) in outputs.iter().enumerate() {
                let (g, w) = (&got[off..off + o.bytes], &want[off..off + o.bytes]);
                off += o.bytes;
                if o.dtype == tinyaot::DType::F32 {
                    for (i, (a, b)) in g.chunks_exact(4).zip(w.chunks_exact(4)).enumerate() {
                        let a = f32::from_le_bytes(a.try_into().unwrap());
                        let b = f32::from_le_bytes(b.try_into().unwrap());
                        if (a - b).abs() > 1e-5 * b.abs().max(a.abs()) + 1e-6 {
                            return Err(format!("invoke {run}, output {k} element {i}: {a} vs reference {b}"));
                        }
                    }
                } else if g != w {
                    let i = g.iter().zip(w).position(|(a, b)| a != b).unwrap_or(0);
                    return Err(format!(
                        "invoke {run}, output {k} byte {i}: {} vs reference {} (got {g:?}, want {w:?})",
                        g[i], w[i]
                    ));
                }
            }
        }
        Ok(got == want)
    }
}
