//! Reading SPIR-V: binary and assembly input, the in-memory module, its structured form.

pub mod assemble;
pub mod load;
pub mod module;
pub mod structured;

pub use module::*;
