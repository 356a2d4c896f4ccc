//! Reading SPIR-V: binary and assembly input, the in-memory module, its control-flow graph and
//! structured form.

pub mod assemble;
pub mod cfg;
pub mod load;
pub mod module;
pub mod operands;
pub mod structured;

pub use module::*;
pub use operands::Operands;
