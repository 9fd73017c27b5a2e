//! Resource variables (VAR_HANDLE, READ_VARIABLE, ASSIGN_VARIABLE) resolved
//! at compile time: each `container`/`shared_name` becomes one variable
//! tensor in the state memory, READ_VARIABLE and ASSIGN_VARIABLE read and
//! write that tensor, and VAR_HANDLE's handle (a `resource` tensor TFLM
//! points at an id) takes no memory at all.
//!
//! TFLM's rules, followed here: ids are found in prepare order (subgraph by
//! subgraph, op by op); a variable's bytes are allocated by the first
//! ASSIGN_VARIABLE prepared and filled with its value tensor's zero point
//! (as int8; 0 when it is not quantized), before the first invoke and on
//! `Reset()`; READ_VARIABLE and ASSIGN_VARIABLE copy bytes without looking
//! at dtypes. Where TFLM only debug-asserts (a read or assignment of
//! another size, a read of a variable nothing assigns), this is an error.

use crate::diag::Error;
use crate::graph::{Graph, Resource, Tensor};
use crate::tflite::fields::var_handle as f;

/// `VAR_HANDLE`.
pub const VAR_HANDLE: i32 = 142;
/// `READ_VARIABLE`.
pub const READ_VARIABLE: i32 = 143;
/// `ASSIGN_VARIABLE`.
pub const ASSIGN_VARIABLE: i32 = 144;

/// One VAR_HANDLE name as TFLM compares them (a missing container matches
/// any).
struct Handle {
    container: Option<String>,
    shared_name: String,
}

/// Graph pass: resolves every handle, makes one variable tensor per
/// assigned resource and rewrites the reads and assignments onto it; the
/// reads and assignments keep their place in the model's order (the state
/// passes between them outside the tensors' data flow).
pub fn resolve(graph: &mut Graph<'_>) -> Result<(), Error> {
    for node in graph.nodes.iter_mut().filter(|n| matches!(n.code, READ_VARIABLE | ASSIGN_VARIABLE)) {
        node.fixed_order = true;
    }
    if !graph.nodes.iter().any(|n| matches!(n.code, VAR_HANDLE | READ_VARIABLE | ASSIGN_VARIABLE)) {
        return Ok(());
    }
    // TFLM prepares subgraph 0's ops, then subgraph 1's, ...
    let mut prepare: Vec<usize> = (0..graph.nodes.len()).collect();
    prepare.sort_by_key(|&n| (graph.nodes[n].subgraph, graph.nodes[n].index));

    let mut handles: Vec<Handle> = Vec::new();
    let mut handle_of = vec![None; graph.tensors.len()];
    for &n in &prepare {
        let node = &graph.nodes[n];
        if node.code != VAR_HANDLE {
            continue;
        }
        let err = |msg: &str| Error::model(format!("{}: {msg}", node.label()));
        let &[output] = node.outputs.as_slice() else { return Err(err("expected 1 output")) };
        let options = node.options.filter(|_| node.options_type == f::TAG);
        let (container, shared_name) = match options {
            Some(o) => (o.string(f::CONTAINER)?, o.string(f::SHARED_NAME)?),
            None => (None, None),
        };
        let shared_name = shared_name.unwrap_or_default();
        let found = handles
            .iter()
            .position(|h| container.is_none_or(|c| h.container.as_deref() == Some(c)) && h.shared_name == shared_name);
        let id = found.unwrap_or_else(|| {
            handles.push(Handle { container: container.map(str::to_string), shared_name: shared_name.to_string() });
            handles.len() - 1
        });
        handle_of[output] = Some(id);
    }

    // Each READ_VARIABLE's and ASSIGN_VARIABLE's resource, and the value
    // tensor of the first assignment (TFLM allocates the variable from it).
    let mut allocated_by: Vec<Option<usize>> = vec![None; handles.len()];
    let mut resource_of = vec![None; graph.nodes.len()];
    for &n in &prepare {
        let node = &graph.nodes[n];
        let (inputs, outputs) = match node.code {
            READ_VARIABLE => (1, 1),
            ASSIGN_VARIABLE => (2, 0),
            _ => continue,
        };
        let err = |msg: String| Error::model(format!("{}: {msg}", node.label()));
        if node.inputs.len() != inputs || node.outputs.len() != outputs {
            return Err(err(format!(
                "expected {inputs} inputs and {outputs} outputs, found {} and {}",
                node.inputs.len(),
                node.outputs.len()
            )));
        }
        let Some(handle) = node.inputs[0] else { return Err(err("the resource handle input is missing".into())) };
        let id = handle_of[handle].ok_or_else(|| {
            err(format!(
                "the resource handle '{}' does not come from a VAR_HANDLE of the same subgraph; \
                 tinyaot resolves every handle at compile time",
                graph.tensors[handle].name
            ))
        })?;
        resource_of[n] = Some(id);
        if node.code == ASSIGN_VARIABLE {
            let value = node.inputs[1].ok_or_else(|| err("the value input is missing".into()))?;
            allocated_by[id].get_or_insert(value);
        }
    }

    let mut variable_of = vec![None; handles.len()];
    for (id, handle) in handles.iter().enumerate() {
        let Some(value) = allocated_by[id] else { continue };
        let v = &graph.tensors[value];
        if v.bytes == 0 {
            return Err(Error::model(format!(
                "resource variable '{}' is assigned '{}' ({}), which has no storage",
                handle.shared_name,
                v.name,
                v.describe()
            )));
        }
        let index = graph.tensors.len();
        let fill = v.quant.as_ref().map_or(0, |q| q.zero_points[0] as i8 as u8);
        let tensor = Tensor {
            index,
            name: handle.shared_name.clone(),
            shape: v.shape.clone(),
            dtype: v.dtype,
            quant: v.quant.clone(),
            data: None,
            is_variable: true,
            int4: false,
            elements: v.elements,
            bytes: v.bytes,
        };
        graph.tensors.push(tensor);
        graph.resources.push(Resource { name: handle.shared_name.clone(), tensor: index, fill });
        variable_of[id] = Some(index);
    }

    for (n, id) in resource_of.iter().enumerate() {
        let Some(id) = *id else { continue };
        let node = &graph.nodes[n];
        let name = &handles[id].shared_name;
        let err = |msg: String| Error::model(format!("{}: {msg}", node.label()));
        let variable = variable_of[id].ok_or_else(|| {
            err(format!(
                "reads resource variable '{name}', which no ASSIGN_VARIABLE of the model assigns \
                 (TFLM has no bytes for it)"
            ))
        })?;
        let bytes = graph.tensors[variable].bytes;
        let other = match node.code {
            READ_VARIABLE => node.outputs[0],
            _ => node.inputs[1].unwrap_or(variable),
        };
        let t = &graph.tensors[other];
        if t.bytes != bytes {
            return Err(err(format!(
                "'{}' ({}, {} bytes) does not match resource variable '{name}' ({}, {bytes} bytes)",
                t.name,
                t.describe(),
                t.bytes,
                graph.tensors[variable].describe()
            )));
        }
        graph.nodes[n].inputs[0] = Some(variable);
    }
    for node in graph.nodes.iter_mut().filter(|n| n.code == VAR_HANDLE) {
        node.outputs.clear();
    }
    Ok(())
}
