//! Writing WGSL: the syntax tree, the lowering from the structured module, identifiers, printing,
//! and validation of the result with naga.

pub mod ast;
pub mod emit;
mod extended_arith;
mod function;
mod instruction;
mod scopes;
pub mod names;
pub mod print;
pub mod validate;
