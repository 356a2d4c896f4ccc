//! Writing WGSL: the syntax tree, the lowering from the structured module, identifiers, printing,
//! and validation of the result with naga.

pub mod ast;
mod atomic;
mod declarations;
mod deferred_returns;
pub mod emit;
mod entry_initializers;
mod entry_io;
mod entry_locals;
mod extended_arith;
mod for_loops;
mod function;
mod half_bitcast;
mod helpers;
mod image;
mod inline_lets;
mod instruction;
mod integer_dot;
mod late_names;
mod loop_phis;
pub mod names;
mod non_finite;
mod pointers;
pub mod print;
mod runtime_constants;
mod scopes;
mod shared_spec_ids;
mod spec;
pub(crate) mod subgroup;
mod subgroup_emulation;
mod subgroup_ids;
pub mod uniformity;
mod uses;
pub mod validate;
mod vertex_storage;
mod wrapper;
