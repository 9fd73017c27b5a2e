//! `invoke_with(&mut hook)`, `invoke_step()` and `invoke_async()` from a
//! user crate: the hook sees every op once, in order, with its `PLAN.ops`
//! site; a `Profile` counts each op; step by step (and as a future polled
//! by a minimal executor) the outputs are `invoke()`'s, which are TFLM's.
//! Every project model also runs step by step and hooked in the reference
//! test (`build.rs`: the disjoint, tiled and borrowed builds).

use std::task::{Context, Poll, Waker};
use tinyaot::{Hook, Invoked, OpSite, Profile, Step};
use tinyaot_tests::harness::{CheckedHook, vectors};

mod kws {
    tinyaot::include_model!(pub Model = "models/ds_cnn_kws_int8.tflite");
}
mod kws_tiled {
    tinyaot::include_model!(pub Model = "models/ds_cnn_kws_int8.tflite", borrowed_inputs = true, arena_limit = 2208);
}
mod looped {
    tinyaot::include_model!(pub Model = "models/control_while_int8.tflite");
}
mod streaming {
    tinyaot::include_model!(pub Model = "models/streaming_kws_int8.tflite");
}

/// The reference pairs of a project model (input, TFLM's output).
fn pairs(name: &str) -> Vec<(Vec<u8>, Vec<u8>)> {
    let vs = vectors(tinyaot_tests::own::DIR, name);
    assert!(!vs.is_empty(), "{name}: no reference vectors");
    vs.into_iter().map(|(_, i, o)| (i, o)).collect()
}

#[test]
fn the_hook_sees_every_op_once_in_order_and_the_output_is_tflms() {
    let (input, want) = pairs("ds_cnn_kws_int8").remove(0);
    let mut arena = Box::new(tinyaot::Arena::<{ kws::Model::ARENA_SIZE }>::new());
    let mut model = kws::Model::new(&mut arena);
    let mut hook = CheckedHook::new(&kws::Model::PLAN);
    assert!(model.write_input(0, &input));
    model.invoke_with(&mut hook);
    assert_eq!(hook.seen.len(), kws::Model::OPS);
    assert_eq!(kws::Model::OPS, kws::Model::PLAN.ops.len());
    hook.finish();
    assert_eq!(model.output_bytes(0).unwrap(), &want[..]);
}

#[test]
fn a_tiled_stage_calls_the_hook_per_band_with_borrowed_inputs() {
    let (input, want) = pairs("ds_cnn_kws_int8").remove(0);
    let frame: [i8; 490] = core::array::from_fn(|i| input[i] as i8);
    let tiled = kws_tiled::Model::PLAN.tiled;
    assert!(!tiled.is_empty(), "arena_limit = 2208 tiles the first layers");
    let mut arena = Box::new(tinyaot::Arena::<{ kws_tiled::Model::ARENA_SIZE }>::new());
    let mut model = kws_tiled::Model::new(&mut arena);
    let mut hook = CheckedHook::new(&kws_tiled::Model::PLAN);
    model.invoke_with(&frame, &mut hook);
    // Each op of a stage once per band of its stage.
    let stage_ops: usize = tiled.iter().map(|t| t.last_op - t.first_op + 1).sum();
    let band_ops: usize = tiled.iter().map(|t| (t.last_op - t.first_op + 1) * t.bands).sum();
    assert_eq!(hook.seen.len(), kws_tiled::Model::OPS - stage_ops + band_ops);
    hook.finish();
    assert_eq!(model.output_bytes(0).unwrap(), &want[..]);

    // Step by step, the same input passed to every step: one step per band
    // of each stage op.
    let mut steps = 0;
    while model.invoke_step(&frame) == Step::Ran {
        steps += 1;
    }
    assert_eq!(steps + 1, kws_tiled::Model::STEPS);
    assert!(kws_tiled::Model::STEPS >= band_ops);
    assert_eq!(model.output_bytes(0).unwrap(), &want[..]);
}

/// Counts every op's pairs; a WHILE body's ops run once per iteration.
#[derive(Default)]
struct Calls(Vec<u32>, Vec<OpSite>);

impl Hook for Calls {
    fn before(&mut self, site: &OpSite, _: Option<usize>) {
        self.1.push(*site);
    }
    fn after(&mut self, site: &OpSite, _: Option<usize>) {
        self.0[site.position] += 1;
    }
}

#[test]
fn a_while_body_calls_the_hook_every_iteration() {
    let (input, want) = pairs("control_while_int8").remove(0);
    let mut arena = Box::new(tinyaot::Arena::<{ looped::Model::ARENA_SIZE }>::new());
    let mut model = looped::Model::new(&mut arena);
    for (i, t) in looped::Model::INPUTS.iter().enumerate() {
        let off: usize = looped::Model::INPUTS[..i].iter().map(|t| t.bytes).sum();
        assert!(model.write_input(i, &input[off..off + t.bytes]));
    }
    let mut calls = Calls(vec![0; looped::Model::OPS], Vec::new());
    model.invoke_with(&mut calls);
    let got: Vec<u8> =
        (0..looped::Model::OUTPUTS.len()).flat_map(|i| model.output_bytes(i).unwrap().to_vec()).collect();
    assert_eq!(got, want[..got.len()], "the first input set's outputs");
    let ops = looped::Model::PLAN.ops;
    let while_op = ops.iter().position(|s| s.name == "WHILE").expect("the model has a WHILE");
    assert_eq!(calls.0[while_op], 1, "the WHILE op itself: once");
    let body: Vec<usize> = (0..ops.len()).filter(|&p| ops[p].subgraph != 0).collect();
    assert!(!body.is_empty());
    assert!(body.iter().any(|&p| calls.0[p] > 1), "the loop ran its body more than once: {:?}", calls.0);
    assert!(calls.1.iter().all(|s| ops[s.position] == *s));
}

#[test]
fn a_profile_counts_each_op_and_prints_a_table() {
    let (input, _) = pairs("ds_cnn_kws_int8").remove(0);
    let mut arena = Box::new(tinyaot::Arena::<{ kws::Model::ARENA_SIZE }>::new());
    let mut model = kws::Model::new(&mut arena);
    // A clock that ticks once per read: every op measures exactly 1.
    let mut now = 0u64;
    let mut profile = Profile::<_, { kws::Model::OPS }>::new(move || {
        now += 1;
        now
    });
    for _ in 0..3 {
        assert!(model.write_input(0, &input));
        model.invoke_with(&mut profile);
    }
    assert!(profile.times().iter().all(|t| t.ticks == 3 && t.calls == 3), "{:?}", profile.times());
    assert_eq!(profile.total(), 3 * kws::Model::OPS as u64);
    let table = profile.table(kws::Model::PLAN.ops).to_string();
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), kws::Model::OPS + 2, "{table}");
    assert!(lines[0].contains("op") && lines[0].contains("ticks") && lines[0].contains("share"));
    assert!(lines[1].contains("CONV_2D") && lines[1].contains("0:0"), "{table}");
    assert!(
        lines.last().unwrap().contains("total")
            && lines.last().unwrap().trim_end().ends_with(&profile.total().to_string())
    );
    profile.clear();
    assert_eq!(profile.total(), 0);

    // The host clock.
    let mut profile = Profile::<_, { kws::Model::OPS }>::new(tinyaot::InstantClock::new());
    assert!(model.write_input(0, &input));
    model.invoke_with(&mut profile);
    assert!(profile.times().iter().all(|t| t.calls == 1));
}

/// A 32-bit counter that wraps inside an op still measures right.
#[test]
fn a_wrapping_clock_measures_across_the_wrap() {
    struct Wrapping(u64);
    impl tinyaot::Clock for Wrapping {
        fn now(&mut self) -> u64 {
            self.0 = (self.0 + 5) & 0xFFFF_FFFF;
            self.0
        }
        fn bits(&self) -> u32 {
            32
        }
    }
    let mut profile = Profile::<_, 1>::new(Wrapping(0xFFFF_FFFE));
    let site = OpSite { position: 0, subgraph: 0, index: 0, name: "ADD", cycles_m4: 0 };
    profile.before(&site, None);
    profile.after(&site, None);
    assert_eq!(profile.times()[0].ticks, 5);
}

#[test]
fn step_by_step_gives_invokes_outputs_and_invoke_starts_over() {
    let (input, want) = pairs("ds_cnn_kws_int8").remove(0);
    let mut arena = Box::new(tinyaot::Arena::<{ kws::Model::ARENA_SIZE }>::new());
    let mut model = kws::Model::new(&mut arena);
    for _ in 0..2 {
        assert!(model.write_input(0, &input));
        let mut ran = 0;
        let finished = loop {
            match model.invoke_step() {
                Step::Ran => ran += 1,
                Step::Finished(invoked) => break invoked,
            }
        };
        assert_eq!((finished, ran + 1), (Invoked::Completed, kws::Model::STEPS));
        assert_eq!(model.output_bytes(0).unwrap(), &want[..]);
    }
    // Half way, then a whole invoke(): it starts from the first op.
    assert!(model.write_input(0, &input));
    for _ in 0..3 {
        assert_eq!(model.invoke_step(), Step::Ran);
    }
    assert!(model.write_input(0, &input));
    model.invoke();
    assert_eq!(model.output_bytes(0).unwrap(), &want[..]);
    assert_eq!(model.invoke_step(), Step::Ran, "and step-wise starts over after it");
}

/// The state carries over between step-wise invokes as between whole
/// ones (a streaming KWS with variable tensors, several frames). The
/// stop of a CIRCULAR_BUFFER is in the differential suite, which runs
/// every other case step by step.
#[test]
fn a_stateful_model_step_wise_carries_its_state_like_invoke() {
    let pairs = pairs("streaming_kws_int8");
    let (input, want) = &pairs[0];
    let per: usize = streaming::Model::INPUTS.iter().map(|t| t.bytes).sum();
    let mut arena = Box::new(tinyaot::Arena::<{ streaming::Model::ARENA_SIZE }>::new());
    let mut model = streaming::Model::new(&mut arena);
    let mut out = Vec::new();
    let frames: Vec<&[u8]> = input.chunks(per).collect();
    assert!(frames.len() > 1 && streaming::Model::STATE_SIZE > 0);
    for set in &frames {
        assert!(model.write_input(0, set));
        let finished = loop {
            if let Step::Finished(i) = model.invoke_step() {
                break i;
            }
        };
        assert_eq!(finished, Invoked::Completed);
        out.extend_from_slice(model.output_bytes(0).unwrap());
    }
    // The reference's last set is the first frame again after `reset()`.
    model.reset();
    assert!(model.write_input(0, frames[0]));
    while model.invoke_step() == Step::Ran {}
    out.extend_from_slice(model.output_bytes(0).unwrap());
    assert_eq!(&out, want, "TFLM's outputs after every frame");
}

#[test]
fn invoke_async_yields_between_parts_and_gives_invokes_outputs() {
    let (input, want) = pairs("ds_cnn_kws_int8").remove(0);
    let mut arena = Box::new(tinyaot::Arena::<{ kws::Model::ARENA_SIZE }>::new());
    let mut model = kws::Model::new(&mut arena);
    assert!(model.write_input(0, &input));
    // A minimal executor: poll until ready, counting the yields.
    let mut cx = Context::from_waker(Waker::noop());
    let mut future = std::pin::pin!(model.invoke_async());
    let mut polls = 0;
    let invoked = loop {
        polls += 1;
        if let Poll::Ready(invoked) = future.as_mut().poll(&mut cx) {
            break invoked;
        }
    };
    assert_eq!((invoked, polls), (Invoked::Completed, kws::Model::STEPS));
    assert_eq!(model.output_bytes(0).unwrap(), &want[..]);
}
