//! Writing WGSL: the syntax tree, the lowering from the structured module, identifiers, printing,
//! and validation of the result with naga.

pub mod ast;
mod atomic;
mod declarations;
mod deferred_returns;
pub mod emit;
mod entry_io;
mod extended_arith;
mod for_loops;
mod function;
mod helpers;
mod image;
mod inline_lets;
mod instruction;
mod loop_phis;
pub mod names;
pub mod print;
mod scopes;
mod spec;
mod subgroup;
pub mod uniformity;
mod uses;
pub mod validate;
