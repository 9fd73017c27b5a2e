//! Subgraphs inlined into one graph: a subgraph's tensors and nodes are
//! appended, and the nodes of a CALL_ONCE, IF or WHILE are followed by the
//! subgraphs they run (under the node's scope), with the copies in and out
//! the calling convention needs.

use super::read::{BufferVec, CodeVec, read_node, read_tensor, tensor_index};
use super::{Graph, MAX_NESTING, MAX_OPS, MAX_TENSORS, Node, Tensor, codes};
use crate::diag::Error;
use crate::tflite;

/// Reads subgraphs into one [`Graph`], inlining CALL_ONCE's callees.
pub(super) struct Reader<'m, 'a> {
    subgraphs: &'m tflite::List<'a, tflite::SubGraph<'a>>,
    codes: Option<CodeVec<'a>>,
    buffers: Option<BufferVec<'a>>,
    /// Subgraphs being read (to refuse recursion).
    stack: Vec<usize>,
    /// Whether constants passed into a subgraph become its inputs' data.
    fold_constant_operands: bool,
    /// Labels of the control-flow ops whose subgraphs are being read.
    callers: Vec<String>,
}

/// An operator the reader adds around an inlined subgraph: its code and
/// the calling side's tensors (the sources of the inputs' copies, or the
/// destinations of the outputs').
type Copies = Option<(i32, Vec<usize>)>;

impl<'m, 'a> Reader<'m, 'a> {
    /// A reader of `model`'s subgraphs, starting in subgraph 0.
    pub(super) fn new(
        subgraphs: &'m tflite::List<'a, tflite::SubGraph<'a>>,
        model: &tflite::Model<'a>,
        fold_constant_operands: bool,
    ) -> Result<Self, Error> {
        Ok(Reader {
            subgraphs,
            codes: model.operator_codes()?,
            buffers: model.buffers()?,
            stack: vec![0],
            fold_constant_operands,
            callers: Vec::new(),
        })
    }

    /// Appends subgraph `s`'s tensors and operators to `graph`, under the
    /// control-flow `scopes`; `enter` copies into its inputs first, `leave`
    /// copies its outputs out after. Returns its inputs and outputs (as
    /// graph tensor indices).
    pub(super) fn inline(
        &mut self,
        graph: &mut Graph<'a>,
        s: usize,
        scopes: &[(usize, usize)],
        enter: Copies,
        leave: Copies,
    ) -> Result<(Vec<usize>, Vec<usize>), Error> {
        let (nodes, inputs, outputs) = self.read_subgraph(graph, s)?;
        if let Some((code, sources)) = enter {
            self.copy_in(graph, (s, scopes), code, &sources, &nodes, &inputs);
        }
        for mut node in nodes {
            node.scopes = scopes.to_vec();
            let position = graph.nodes.len();
            let calls = self.callees(&node)?;
            let original = (node.inputs.clone(), node.outputs.clone());
            // The copies in and out of IF's branches replace its operands.
            if node.code == codes::IF {
                node.inputs.truncate(1);
                node.outputs.clear();
            }
            graph.nodes.push(node);
            for &callee in &calls {
                self.stack.push(callee);
            }
            self.callers.push(graph.nodes[position].label());
            self.run_callees(graph, position, &calls, original, scopes)?;
            for _ in &calls {
                self.stack.pop();
            }
            self.callers.pop();
        }
        if let Some((code, destinations)) = leave {
            graph.nodes.push(copies(s, scopes, code, outputs.iter().map(|&t| Some(t)).collect(), destinations));
        }
        Ok((inputs, outputs))
    }

    /// Subgraph `s`'s nodes (tensor indices already the graph's) and its
    /// inputs and outputs; its tensors are appended to `graph`.
    #[allow(clippy::type_complexity)]
    fn read_subgraph(&self, graph: &mut Graph<'a>, s: usize) -> Result<(Vec<Node<'a>>, Vec<usize>, Vec<usize>), Error> {
        let sg = self.subgraphs.get(s)?;
        let what = if s == 0 { "the graph".to_string() } else { format!("subgraph {s}") };
        let raw_tensors = sg.tensors()?.ok_or_else(|| Error::model(format!("{what} has no tensors")))?;
        let count = raw_tensors.len();
        if graph.tensors.len() + count > MAX_TENSORS {
            return Err(Error::model(format!(
                "the model has more than {MAX_TENSORS} tensors (with its called subgraphs); tinyaot accepts up to {MAX_TENSORS}"
            )));
        }
        let op_count = sg.operators()?.map_or(0, |o| o.len());
        if graph.nodes.len() + op_count > MAX_OPS {
            return Err(Error::model(format!(
                "the model has more than {MAX_OPS} operators (with its called subgraphs); tinyaot accepts up to {MAX_OPS}"
            )));
        }
        let mut nodes = Vec::new();
        if let Some(ops) = sg.operators()? {
            for (index, op) in ops.iter().enumerate() {
                let mut node = read_node(index, &op?, self.codes.as_ref(), count)?;
                node.subgraph = s;
                nodes.push(node);
            }
        }
        let ends = |v: Option<tflite::flat::Vector<'a, i32>>, role: &str| -> Result<Vec<usize>, Error> {
            v.map(|v| v.iter().map(|i| tensor_index(i, count, role)).collect::<Result<Vec<_>, _>>())
                .transpose()
                .map(Option::unwrap_or_default)
        };
        let inputs = ends(sg.inputs()?, &format!("an input of {what}"))?;
        let outputs = ends(sg.outputs()?, &format!("an output of {what}"))?;

        // Like TFLM's allocator, look only at tensors the graph reads or
        // writes: LSTM intermediates (quantization notes with shape [0]) and
        // tensors no op touches are never allocated, whatever they hold.
        let mut used = vec![false; count];
        for &t in inputs.iter().chain(&outputs) {
            used[t] = true;
        }
        for node in &nodes {
            for &t in node.inputs.iter().flatten().chain(&node.outputs) {
                used[t] = true;
            }
        }
        let base = graph.tensors.len();
        for (index, t) in raw_tensors.iter().enumerate() {
            let t = t?;
            // A -1 dimension TFLM refuses on any tensor (it sizes them all).
            let dynamic = t.shape()?.is_some_and(|s| s.iter().any(|d| d < 0));
            let name = match (t.name()?, s) {
                ("", 0) => format!("tensor {index}"),
                ("", s) => format!("subgraph {s} tensor {index}"),
                (n, _) => n.to_string(),
            };
            let tensor = read_tensor(base + index, name.clone(), &t, self.buffers.as_ref());
            graph.tensors.push(match tensor {
                Ok(tensor) => tensor,
                Err(_) if !used[index] && !dynamic => Tensor::unused(base + index, name),
                Err(e) => match self.callers.last() {
                    Some(caller) => return Err(Error::model(format!("subgraph {s} (run by {caller}): {e}"))),
                    None => return Err(e),
                },
            });
        }
        let inputs: Vec<usize> = inputs.iter().map(|&t| base + t).collect();
        let outputs: Vec<usize> = outputs.iter().map(|&t| base + t).collect();
        for node in &mut nodes {
            for t in node.inputs.iter_mut().flatten().chain(&mut node.outputs) {
                *t += base;
            }
        }
        Ok((nodes, inputs, outputs))
    }

    /// The copies into subgraph `s`'s `inputs` from the caller's `sources`
    /// (after WHILE's test, for LOOP_TEST), as a node under `scopes`; a
    /// constant passed in becomes the input's own data instead.
    fn copy_in(
        &self,
        graph: &mut Graph<'a>,
        (s, scopes): (usize, &[(usize, usize)]),
        code: i32,
        sources: &[usize],
        nodes: &[Node<'a>],
        inputs: &[usize],
    ) {
        // A constant passed in (tf.cond hands the branches their weights
        // this way) becomes the subgraph input's own constant data: no
        // copy, no arena bytes. The other operands are copied.
        let offset = usize::from(code == codes::LOOP_TEST);
        let written = |t: usize| nodes.iter().any(|n| n.outputs.contains(&t));
        let mut kept_sources: Vec<Option<usize>> = sources.iter().map(|&t| Some(t)).collect();
        let mut kept_inputs = inputs.to_vec();
        // With a count mismatch (the caller reports it) nothing is folded.
        if self.fold_constant_operands && sources.len() == inputs.len() + offset {
            kept_sources.truncate(offset);
            kept_inputs.clear();
            for (&source, &input) in sources[offset..].iter().zip(inputs) {
                match graph.tensors[source].data.clone() {
                    Some(data) if graph.tensors[source].bytes == graph.tensors[input].bytes && !written(input) => {
                        graph.tensors[input].data = Some(data);
                        graph.folded_operands = true;
                    }
                    _ => {
                        kept_sources.push(Some(source));
                        kept_inputs.push(input);
                    }
                }
            }
        }
        graph.nodes.push(copies(s, scopes, code, kept_sources, kept_inputs));
    }

    /// Inlines the subgraphs node `position` (a CALL_ONCE, IF or WHILE)
    /// runs, `calls`, with the copies its calling convention needs;
    /// `original` is the node's operands as the file gives them.
    fn run_callees(
        &mut self,
        graph: &mut Graph<'a>,
        position: usize,
        calls: &[usize],
        original: (Vec<Option<usize>>, Vec<usize>),
        scopes: &[(usize, usize)],
    ) -> Result<(), Error> {
        let scope = |part: usize| {
            let mut chain = scopes.to_vec();
            chain.push((position, part));
            chain
        };
        match (graph.nodes[position].code, calls) {
            (codes::CALL_ONCE, &[init]) => {
                self.inline(graph, init, &scope(0), None, None)?;
            }
            (codes::IF, &[then, otherwise]) => {
                let label = graph.nodes[position].label();
                let xs: Vec<usize> = original
                    .0
                    .iter()
                    .skip(1)
                    .map(|t| {
                        t.ok_or_else(|| {
                            Error::model(format!("{label}: an omitted input cannot be passed to a subgraph"))
                        })
                    })
                    .collect::<Result<_, _>>()?;
                let ys = original.1;
                for (part, branch) in [then, otherwise].into_iter().enumerate() {
                    let (ins, outs) = self.inline(
                        graph,
                        branch,
                        &scope(part),
                        Some((codes::SUBGRAPH_INPUTS, xs.clone())),
                        Some((codes::SUBGRAPH_OUTPUTS, ys.clone())),
                    )?;
                    arity(&label, branch, (xs.len(), ins.len()), (ys.len(), outs.len()))?;
                }
            }
            (codes::WHILE, &[cond, body]) => {
                let label = graph.nodes[position].label();
                let (xs, ys) = (original.0.len(), original.1);
                if xs != ys.len() {
                    return Err(Error::model(format!(
                        "{label}: has {xs} inputs and {} outputs; WHILE's must be equal",
                        ys.len()
                    )));
                }
                let (ins, test) =
                    self.inline(graph, cond, &scope(0), Some((codes::SUBGRAPH_INPUTS, ys.clone())), None)?;
                arity(&label, cond, (ys.len(), ins.len()), (1, test.len().min(1)))?;
                let mut sources = vec![test[0]];
                sources.extend(&ys);
                let (ins, outs) = self.inline(
                    graph,
                    body,
                    &scope(1),
                    Some((codes::LOOP_TEST, sources)),
                    Some((codes::SUBGRAPH_OUTPUTS, ys.clone())),
                )?;
                arity(&label, body, (ys.len(), ins.len()), (ys.len(), outs.len()))?;
            }
            _ => {}
        }
        Ok(())
    }

    /// The subgraphs a control-flow op calls (none for other ops), checked.
    fn callees(&self, node: &Node<'a>) -> Result<Vec<usize>, Error> {
        use crate::tflite::fields::{call_once, if_, while_};
        let (tag, fields): (u8, &[u16]) = match node.code {
            codes::CALL_ONCE => (call_once::TAG, &[call_once::INIT_SUBGRAPH_INDEX]),
            codes::IF => (if_::TAG, &[if_::THEN_SUBGRAPH_INDEX, if_::ELSE_SUBGRAPH_INDEX]),
            codes::WHILE => (while_::TAG, &[while_::COND_SUBGRAPH_INDEX, while_::BODY_SUBGRAPH_INDEX]),
            _ => return Ok(Vec::new()),
        };
        let err = |msg: String| Error::model(format!("{}: {msg}", node.label()));
        let options = node.options.filter(|_| node.options_type == tag);
        let mut callees = Vec::new();
        for &field in fields {
            let raw = match options {
                Some(o) => o.scalar::<i32>(field, 0)?,
                None => 0,
            };
            let callee = usize::try_from(raw).ok().filter(|&c| c < self.subgraphs.len()).ok_or_else(|| {
                err(format!("subgraph {raw} does not exist (the model has {})", self.subgraphs.len()))
            })?;
            if self.stack.len() >= MAX_NESTING {
                return Err(err(format!(
                    "control flow nested more than {MAX_NESTING} subgraphs deep is not supported"
                )));
            }
            if callee == node.subgraph || self.stack.contains(&callee) {
                return Err(err(format!(
                    "calls subgraph {callee}, which is already running (recursion is not supported)"
                )));
            }
            callees.push(callee);
        }
        Ok(callees)
    }
}

/// Checks that a called subgraph takes as many inputs and gives as many
/// outputs as its caller passes and expects: `(caller's, subgraph's)`.
fn arity(caller: &str, subgraph: usize, inputs: (usize, usize), outputs: (usize, usize)) -> Result<(), Error> {
    if inputs.0 != inputs.1 || outputs.0 != outputs.1 {
        return Err(Error::model(format!(
            "{caller}: passes {} inputs and expects {} outputs, but subgraph {subgraph} has {} and {}",
            inputs.0, outputs.0, inputs.1, outputs.1
        )));
    }
    Ok(())
}

/// An operator the reader adds: copies `inputs[i]` to `outputs[i]` (after
/// LOOP_TEST's condition), named after the subgraph it enters or leaves.
pub(super) fn copies<'a>(
    subgraph: usize,
    scopes: &[(usize, usize)],
    code: i32,
    inputs: Vec<Option<usize>>,
    outputs: Vec<usize>,
) -> Node<'a> {
    let name = match code {
        codes::SUBGRAPH_INPUTS => "subgraph inputs",
        codes::SUBGRAPH_OUTPUTS => "subgraph outputs",
        codes::OUTPUT_COPY => "graph output copy",
        _ => "loop test",
    };
    Node {
        index: 0,
        subgraph,
        scopes: scopes.to_vec(),
        code,
        name: format!("{name} of subgraph {subgraph}"),
        version: 1,
        inputs,
        outputs,
        options_type: 0,
        options: None,
        custom_options: None,
        fixed_order: false,
        from_uint8: false,
    }
}
