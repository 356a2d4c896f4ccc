//! Reading SPIR-V: binary and assembly input, the in-memory module, its control-flow graph and
//! structured form.

pub mod assemble;
pub mod cfg;
mod decorations;
mod halves;
pub mod load;
pub mod module;
pub mod operands;
pub mod spec_constant_op;
pub mod structured;

pub use module::*;
pub use operands::Operands;
