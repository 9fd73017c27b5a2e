//! Diagnostics: every failure of the compiler is one `Error` with a message
//! meant for the firmware engineer reading `cargo build` output, and the
//! part of the macro invocation it belongs to.

use std::fmt;

/// Which part of the `include_model!` invocation an error points at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Site {
    /// The model file (path argument): bad file, unsupported op, ...
    Model,
    /// The `arena_limit` argument: the plan does not fit.
    ArenaLimit,
    /// The `cycle_limit` (or `latency_limit`) argument: the estimate is over it.
    CycleLimit,
    /// The `copy_weights` argument: it does not fit its region.
    CopyWeights,
}

/// A compile error with its message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// Where the error belongs.
    pub site: Site,
    /// The full, human-readable message.
    pub message: String,
}

impl Error {
    /// An error about the model file.
    pub fn model(message: impl Into<String>) -> Self {
        Error { site: Site::Model, message: message.into() }
    }

    /// An error about one operator of the model.
    /// `node` is the op's label (`graph::Node::label`: `op 3 (ADD)`).
    pub fn op(node: &str, message: impl fmt::Display) -> Self {
        Error::model(format!("{node}: {message}"))
    }

    /// An error about the arena limit.
    pub fn arena_limit(message: impl Into<String>) -> Self {
        Error { site: Site::ArenaLimit, message: message.into() }
    }

    /// An error about `copy_weights`.
    pub fn copy_weights(message: impl Into<String>) -> Self {
        Error { site: Site::CopyWeights, message: message.into() }
    }

    /// An error about the cycle limit.
    pub fn cycle_limit(message: impl Into<String>) -> Self {
        Error { site: Site::CycleLimit, message: message.into() }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}
