//! Host time of one `invoke()` per model (criterion): the project's own
//! models and, when `../shared/models` exists, the shared ones.
//!
//! ```text
//! cargo bench -p tinyaot-tests --bench invoke            # all
//! cargo bench -p tinyaot-tests --bench invoke -- kws     # a filter
//! ```
//! `tests/benches/tflm_invoke.py` times TFLM's interpreter on the same
//! models and inputs for the side-by-side table.

use criterion::{Criterion, criterion_group, criterion_main};
use tinyaot_tests::harness::{Entry, vectors};

fn bench_set(c: &mut Criterion, set: &str, dir: &str, models: &[Entry]) {
    for m in models {
        let Some((_, input, _)) = vectors(dir, m.name).into_iter().next() else { continue };
        let mut invoke = (m.invoker)(&input);
        c.bench_function(&format!("{set}/{}", m.name), |b| b.iter(&mut invoke));
    }
}

fn benches(c: &mut Criterion) {
    bench_set(c, "own", tinyaot_tests::own::DIR, tinyaot_tests::own::MODELS);
    #[cfg(shared_models)]
    bench_set(c, "shared", tinyaot_tests::shared::DIR, tinyaot_tests::shared::MODELS);
}

criterion_group!(invoke, benches);
criterion_main!(invoke);
