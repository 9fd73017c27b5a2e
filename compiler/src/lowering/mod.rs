//! What the operators' lowerings share, one job a file: the registry of
//! supported operators, the context a lowering sees, the options several
//! operators parse, requantization constants, weight layouts as emitted,
//! window geometry, broadcasting, FFT tables, and the common shapes of unary and
//! data-movement operators. Operators themselves live in `ops/`, one file
//! each; a helper used by one operator stays in that operator's file.

pub mod broadcast;
pub mod context;
pub mod cost;
pub mod emit;
pub mod fft;
pub mod hybrid;
pub mod im2col;
pub mod list_writes;
pub mod movement;
pub mod operator;
pub mod options;
pub mod registry;
pub mod requant;
pub mod targets;
pub mod uint8;
pub mod unary;
pub mod variant;
pub mod weights;
pub mod window;
