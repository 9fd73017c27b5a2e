//! [`OpCx`]: what an operator's lowering sees of the graph (its tensors,
//! options and errors that name the op).

use crate::diag::Error;
use crate::graph::{Graph, Node, Tensor};
use crate::tflite::Options;

/// What an operator's lowering sees: the graph and its node.
pub struct OpCx<'g, 'a> {
    /// The whole graph.
    pub graph: &'g Graph<'a>,
    /// This operator.
    pub node: &'g Node<'a>,
}

impl<'g, 'a> OpCx<'g, 'a> {
    /// An error about this op.
    pub fn err(&self, msg: impl std::fmt::Display) -> Error {
        Error::op(&self.node.label(), msg)
    }

    /// Checks the number of inputs (`min..=max`) and outputs.
    pub fn arity(&self, min_in: usize, max_in: usize, outs: usize) -> Result<(), Error> {
        let n = self.node.inputs.len();
        if n < min_in || n > max_in {
            let want = if min_in == max_in { format!("{min_in}") } else { format!("{min_in} to {max_in}") };
            return Err(self.err(format!("expected {want} inputs, found {n}")));
        }
        if self.node.outputs.len() != outs {
            return Err(self.err(format!("expected {outs} outputs, found {}", self.node.outputs.len())));
        }
        Ok(())
    }

    /// Input `i`, which must be present.
    pub fn input(&self, i: usize) -> Result<&'g Tensor<'a>, Error> {
        self.opt_input(i).ok_or_else(|| self.err(format!("input {i} is missing")))
    }

    /// Input `i`, if present.
    pub fn opt_input(&self, i: usize) -> Option<&'g Tensor<'a>> {
        self.node.inputs.get(i).copied().flatten().map(|t| &self.graph.tensors[t])
    }

    /// Output `i`.
    pub fn output(&self, i: usize) -> Result<&'g Tensor<'a>, Error> {
        self.node
            .outputs
            .get(i)
            .map(|&t| &self.graph.tensors[t])
            .ok_or_else(|| self.err(format!("output {i} is missing")))
    }

    /// The builtin options table, checking its union tag.
    pub fn options(&self, tag: u8, table: &str) -> Result<Option<Options<'a>>, Error> {
        match (self.node.options_type, self.node.options) {
            (0, _) | (_, None) => Ok(None),
            (t, Some(o)) if t == tag => Ok(Some(o)),
            (t, _) => Err(self.err(format!("expected {table} (union tag {tag}), found options of tag {t}"))),
        }
    }

    /// Error for an unsupported dtype combination.
    pub fn unsupported(&self, what: &str, supported: &str) -> Error {
        let key = (self.node.subgraph, self.node.index);
        let uint8 = match self.graph.uint8_kept.iter().find(|(k, _)| *k == key) {
            Some((_, why)) => format!(
                " (a uint8 model's layer runs as LiteRT's uint8 one where every op on its uint8 tensors takes uint8: {why})"
            ),
            None => String::new(),
        };
        self.err(format!("{what} is not supported; supported: {supported}{uint8}"))
    }

    /// Requires an activation (non-constant) tensor.
    pub fn activation_tensor(&self, t: &Tensor<'_>, role: &str) -> Result<(), Error> {
        if t.data.is_some() {
            return Err(self.err(format!("{role} '{}' must not be a constant", t.name)));
        }
        Ok(())
    }

    /// Requires a constant tensor.
    pub fn constant<'t>(&self, t: &'t Tensor<'a>, role: &str) -> Result<&'t [u8], Error> {
        t.data.as_deref().ok_or_else(|| self.err(format!("{role} '{}' must be a constant in the model", t.name)))
    }

    /// Checks that the stored shape of `t` equals `expected`.
    pub fn check_shape(&self, t: &Tensor<'_>, expected: &[usize]) -> Result<(), Error> {
        if t.shape != expected {
            return Err(self
                .err(format!("tensor '{}' has shape {:?}, but the op's inputs give {:?}", t.name, t.shape, expected)));
        }
        Ok(())
    }

    /// Requires rank 4 and returns the dims.
    pub fn nhwc(&self, t: &Tensor<'_>, role: &str) -> Result<[usize; 4], Error> {
        <[usize; 4]>::try_from(t.shape.as_slice())
            .map_err(|_| self.err(format!("{role} '{}' must have rank 4 (NHWC), it has shape {:?}", t.name, t.shape)))
    }

    /// Requires a per-tensor quantized tensor.
    pub fn per_tensor(&self, t: &Tensor<'_>) -> Result<(f32, i32), Error> {
        t.per_tensor_quant().map_err(|m| self.err(m))
    }
}
