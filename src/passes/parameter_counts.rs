//! Functions of more than 255 parameters, refused with the OpFunction named: Tint (the WGSL
//! compiler of Chrome and Dawn) rejects them, though naga takes them. The count is the WGSL
//! function's, after the passes that add parameters (`handles` gives each combined image sampler
//! a sampler, `global_params` passes dynamic indices): SPIR-V itself takes at most 255, so only a
//! function given more can pass the limit.
//!
//! Before and after: the module is unchanged; such a function is an error. An entry point's
//! parameters are its inputs (`io_wrapper`), which WebGPU bounds far lower.

use spirv::Op;

use crate::Options;
use crate::error::{Error, Location};
use crate::spirv::Module;

/// The most parameters of a function Tint takes.
pub const TINT_MAX_PARAMS: usize = 255;

pub fn run(module: &mut Module, _options: &Options) -> Result<(), Error> {
    // Nearly always so: the functions translated need not be found.
    if module.functions.iter().all(|f| f.params.len() <= TINT_MAX_PARAMS) {
        return Ok(());
    }
    let Some(function) =
        module.entry_functions().into_iter().map(|f| &module.functions[f]).find(|f| f.params.len() > TINT_MAX_PARAMS)
    else {
        return Ok(());
    };
    let name = module.name(function.id).map_or(format!("%{}", function.id), |name| format!("`{name}`"));
    Err(Error::unsupported(
        format!(
            "function {name} has {} parameters in WGSL (counting those added for the samplers of combined image \
             samplers and for dynamic indices): Tint (the WGSL compiler of Chrome's WebGPU) takes \
             at most {TINT_MAX_PARAMS}",
            function.params.len()
        ),
        Location {
            word_offset: Some(function.offset),
            result_id: Some(function.id),
            opcode: Some(Op::Function),
            ..Location::default()
        },
    ))
}
