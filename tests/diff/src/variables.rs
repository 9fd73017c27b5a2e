//! Resource variables as the TF converter writes `tf.Variable`s: the main
//! subgraph reads each variable (VAR_HANDLE + READ_VARIABLE), adds the
//! input to it and assigns the sum back (ASSIGN_VARIABLE); a CALL_ONCE,
//! placed anywhere among those ops, runs an init subgraph that assigns
//! constants to some of the variables on the first invoke only. Several
//! invokes carry the state, and a `reset()` between two of them puts every
//! variable back to its default value (TFLM's: the zero point of the first
//! assigned tensor) without running the init subgraph again.

use crate::ops::activation_quant;
use crate::{Builder, Model, Rng, Ty, random_values};
use tinyaot_tests::writer::{QuantDef, Scalar};

const CALL_ONCE: i32 = 129;
const VAR_HANDLE: i32 = 142;
const READ_VARIABLE: i32 = 143;
const ASSIGN_VARIABLE: i32 = 144;
const ADD: i32 = 0;
const NAMES: [&str; 3] = ["state_a", "state_b", "state_c"];

/// VAR_HANDLE's options: `container` (absent or empty, the same in every
/// handle of a model: TFLM compares a present container with `strcmp`) and
/// `shared_name`.
fn handle(b: &mut Builder, container: Option<&'static str>, name: &'static str) -> i32 {
    let h = b.resource(&format!("{name}_handle"));
    let mut fields = vec![(1, Scalar::Str(name))];
    if let Some(c) = container {
        fields.push((0, Scalar::Str(c)));
    }
    b.op(VAR_HANDLE, &[], &[h], Some((111, fields)));
    h
}

pub fn resource_variables(r: &mut Rng) -> (Model, String) {
    let ty = r.pick(&[Ty::F32, Ty::I8, Ty::I16, Ty::I32]);
    let shape = [1, r.size(1, 3), r.size(1, 5)];
    let count = r.size(1, 3);
    let container = r.pick(&[None, Some("")]);
    let quant = |r: &mut Rng| activation_quant(r, ty, 0.02, 0.5);
    let mut b = Builder::default();
    let xq = quant(r);
    let x = b.input("x", &shape, ty, xq);
    // Where the CALL_ONCE goes among the variables' updates (0: first, as
    // the converter puts it).
    let call_at = if r.chance(0.6) { 0 } else { r.size(0, count) };
    let mut initialized = Vec::new();
    let mut init = Builder::default();
    let mut labels = Vec::new();
    let mut var_quant: Vec<Option<QuantDef>> = Vec::new();
    for (i, &name) in NAMES.iter().enumerate().take(count) {
        if i == call_at {
            b.op(CALL_ONCE, &[], &[], Some((103, vec![(0, Scalar::I32(1))])));
        }
        let vq = quant(r);
        var_quant.push(vq.clone());
        let h = handle(&mut b, container, name);
        let read = b.tensor(&format!("{name}_read"), &shape, ty, vq.clone());
        b.op(READ_VARIABLE, &[h], &[read], None);
        // Mostly the sum keeps the variable's quantization (as converted
        // models do); otherwise the bytes are reinterpreted, as TFLM's copy does.
        let sq = if r.chance(0.75) { vq.clone() } else { quant(r) };
        let sum = b.tensor(&format!("{name}_sum"), &shape, ty, sq);
        b.op(ADD, &[read, x], &[sum], Some((11, vec![(0, Scalar::I8(0))])));
        b.op(ASSIGN_VARIABLE, &[h, sum], &[], None);
        b.mark_output(read, ty);
        if r.chance(0.7) {
            initialized.push(i);
        }
        labels.push(format!("{name}{}", if initialized.contains(&i) { " (init)" } else { "" }));
    }
    if call_at == count {
        b.op(CALL_ONCE, &[], &[], Some((103, vec![(0, Scalar::I32(1))])));
    }
    let mut model = b.finish_graph();
    for &i in &initialized {
        let h = handle(&mut init, container, NAMES[i]);
        let n = shape.iter().product();
        let value =
            init.constant(&format!("{}_init", NAMES[i]), &shape, ty, random_values(r, ty, n), var_quant[i].clone());
        init.op(ASSIGN_VARIABLE, &[h, value], &[], None);
    }
    model.add_subgraph(init);
    model.invokes = r.size(2, 5);
    model.reset_at = r.chance(0.7).then(|| r.size(1, model.invokes - 1));
    let label = format!(
        "{} {shape:?} {}, CALL_ONCE at {call_at}, container {container:?}, {} invokes, reset before {:?}",
        ty.name(),
        labels.join(", "),
        model.invokes,
        model.reset_at
    );
    (model, label)
}
