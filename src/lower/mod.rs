//! Lowering: the structured SPIR-V module, after the passes, becomes a WGSL syntax tree
//! (`crate::wgsl::ast`). Every file here reads the SPIR-V module; the rewrites that work on the
//! syntax tree alone live in `crate::wgsl`.

mod atomic;
pub mod emit;
mod entry_initializers;
mod entry_io;
mod entry_locals;
mod extended_arith;
mod function;
mod half_bitcast;
mod helpers;
mod image;
mod instruction;
mod integer_dot;
mod late_names;
mod non_finite;
mod pointers;
mod runtime_constants;
mod scopes;
mod shared_spec_ids;
mod spec;
pub(crate) mod subgroup;
mod subgroup_emulation;
mod subgroup_ids;
mod uses;
mod vertex_storage;
mod wrapper;
