//! Every model with reference vectors, compiled by `include_model!`, must
//! reproduce TFLM's output bytes (float32: within 1e-5 relative).

use tinyaot_tests::harness::{Entry, compare, vectors};

fn run_set(set: &str, dir: &str, models: &[Entry], rejected: &[(&str, &str)]) -> usize {
    let mut failures = Vec::new();
    let mut ran = 0;
    let mut tiled_runs = 0;
    let mut borrowed_runs = 0;
    for m in models {
        let vs = vectors(dir, m.name);
        assert!(!vs.is_empty(), "{set}/{}: no reference vectors beside the model", m.name);
        for (tag, input, want) in vs {
            let mut got = (m.run)(&input);
            // A stateful model's run ends with the first inputs again after
            // `reset()`; references made elsewhere (the shared models') stop
            // before it.
            let per_output: usize = m.outputs.iter().map(|o| o.bytes).sum();
            if got.len() == want.len() + per_output {
                got.truncate(want.len());
            }
            // The in-place plan must give exactly the bytes of the plan
            // where no two live buffers share a byte.
            let mut disjoint = (m.run_disjoint)(&input);
            disjoint.truncate(got.len());
            if got != disjoint {
                failures.push(format!("{set}/{} [{tag}]: in-place and disjoint two-region plans differ", m.name));
            }
            // Tiled, the same bytes again: every output value is computed by
            // the same arithmetic, band by band.
            let mut tiled_note = String::new();
            if let Some((run_tiled, plan)) = m.tiled {
                assert!(!plan.tiled.is_empty(), "{set}/{}: the tiled build has no tiled stage", m.name);
                let mut tiled = run_tiled(&input);
                tiled.truncate(got.len());
                if got != tiled {
                    failures.push(format!("{set}/{} [{tag}]: tiled and untiled plans differ", m.name));
                }
                tiled_note = format!(", {} B tiled", plan.arena_size);
                tiled_runs += 1;
            }
            if let Some((run_borrowed, plan)) = m.borrowed {
                let mut borrowed = run_borrowed(&input);
                borrowed.truncate(got.len());
                if got != borrowed {
                    failures.push(format!("{set}/{} [{tag}]: borrowed-input and in-arena runs differ", m.name));
                }
                tiled_note.push_str(&format!(", {} B borrowed inputs + tiled", plan.arena_size));
                borrowed_runs += 1;
            }
            match compare(m.outputs, &got, &want) {
                Ok(exact) => println!(
                    "{set}/{} [{tag}]: {} (arena {} B in place, {} B disjoint{tiled_note})",
                    m.name,
                    if exact { "bit-exact" } else { "within 1e-5 relative" },
                    m.plan.arena_size,
                    m.plan_disjoint.arena_size
                ),
                Err(e) => failures.push(format!("{set}/{} [{tag}]: {e}", m.name)),
            }
            ran += 1;
        }
    }
    for (name, why) in rejected {
        println!("{set}/{name}: not compiled: {why}");
    }
    assert!(failures.is_empty(), "mismatches:\n{}", failures.join("\n"));
    println!(
        "{set}: {tiled_runs} of the {ran} vectors also ran tiled, {borrowed_runs} with borrowed inputs and tiled, with the same bytes"
    );
    ran
}

#[test]
fn own_models_match_tflm() {
    let ran = run_set("own", tinyaot_tests::own::DIR, tinyaot_tests::own::MODELS, tinyaot_tests::own::REJECTED);
    assert!(tinyaot_tests::own::REJECTED.is_empty(), "own models must all compile: {:?}", tinyaot_tests::own::REJECTED);
    println!("ran {ran} reference vectors of the project's own models");
}

#[cfg(shared_models)]
#[test]
fn shared_models_match_tflm() {
    use tinyaot_tests::shared;
    let ran = run_set("shared", shared::DIR, shared::MODELS, shared::REJECTED);
    println!("ran {ran} reference vectors from {}", shared::DIR);
    assert!(ran > 0);
}

#[cfg(not(shared_models))]
#[test]
fn shared_models_match_tflm() {
    println!("SKIPPED: ../shared/models not found (set TINYAOT_SHARED_MODELS to its path to run the oracle models)");
}
