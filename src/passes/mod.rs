//! The passes over the module, each `fn run(&mut Module, &Options) -> Result<(), Error>` in its own
//! file. Their order is in `lib.rs`.

pub mod argument_copies;
pub mod array_counts;
pub mod atomics;
pub mod bindings;
mod direct_io;
pub mod draw_parameters;
pub mod entry_points;
pub mod global_params;
pub mod handles;
pub mod io_wrapper;
pub mod layout;
pub mod parameter_counts;
pub mod ptr_access_chains;
pub mod signedness;
pub mod single_store_locals;
pub mod single_value_phis;
pub mod spec_constants;
pub mod stage_rules;
pub mod structurize;
pub mod value_params;
