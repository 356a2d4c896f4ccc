//! The function bodies: naga's SPIR-V backend writes the module, entry-point I/O included, which
//! [`super::conform`] then checks and corrects against our plan.
//!
//! Options chosen for a faithful translation rather than naga's wgpu-oriented defaults: no
//! Y flip of `position` and no clamping of `frag_depth` (the SPIR-V computes what the WGSL says;
//! the pipeline is the place to adapt coordinates), no loop-bounding counters. WGSL semantics that
//! are the shader's own are kept: workgroup memory is zero-initialised, and integer division by
//! zero gives WGSL's result.

use naga::back::spv::{self, WriterFlags};

use super::Options;
use super::error::Error;

/// The SPIR-V words for `module`: every entry point, or the one at index `only`.
pub fn write(
    module: &naga::Module,
    info: &naga::valid::ModuleInfo,
    options: &Options,
    only: Option<usize>,
) -> Result<Vec<u32>, Error> {
    let flags =
        if options.debug_names { WriterFlags::DEBUG | WriterFlags::LABEL_VARYINGS } else { WriterFlags::empty() };
    let spv_options = spv::Options {
        lang_version: options.spirv_version,
        flags,
        force_loop_bounding: false,
        ..spv::Options::default()
    };
    let pipeline = only.map(|index| {
        let entry = &module.entry_points[index];
        spv::PipelineOptions { shader_stage: entry.stage, entry_point: entry.name.clone() }
    });
    spv::write_vec(module, info, &spv_options, pipeline.as_ref())
        .map_err(|error| Error::unsupported(format!("naga's SPIR-V backend refused the module: {error}")))
}
