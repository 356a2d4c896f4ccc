//! The WGSL language: the syntax tree, identifiers, printing, validation of the result with naga,
//! and the analyses and rewrites that work on the syntax tree alone (they never read the SPIR-V
//! module; `crate::lower` builds the tree and calls them).

pub mod ast;
pub(crate) mod declarations;
pub(crate) mod deferred_returns;
pub(crate) mod for_loops;
pub(crate) mod inline_lets;
pub(crate) mod loop_phis;
pub mod naga_ir;
pub mod names;
pub(crate) mod nesting;
pub(crate) mod override_lets;
pub mod print;
pub mod subgroups_enable;
pub(crate) mod switch_clauses;
pub(crate) mod tint_sizes;
pub mod uniformity;
pub mod validate;
