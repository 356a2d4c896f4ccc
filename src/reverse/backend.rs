//! The function bodies: naga's SPIR-V backend writes the module, entry-point I/O included, which
//! [`super::conform`] then checks and corrects against our plan.
//!
//! Options chosen for a faithful translation rather than naga's wgpu-oriented defaults: no
//! Y flip of `position` and no clamping of `frag_depth` (the SPIR-V computes what the WGSL says;
//! the pipeline is the place to adapt coordinates), no loop-bounding counters. WGSL semantics that
//! are the shader's own are kept: workgroup memory is zero-initialised, and integer division by
//! zero gives WGSL's result. Capabilities a Vulkan device may lack and WGSL does not need are
//! withheld, so naga writes its portable forms instead (see [`AVAILABLE_CAPABILITIES`]).
//!
//! naga's writer panics on some valid modules; the steps before it rewrite the shapes we know,
//! and any other panic is caught here and becomes an internal error naming naga's message.

use naga::back::spv::{self, WriterFlags};
use spirv::Capability;

use super::Options;
use super::error::Error;
use crate::panics::without_panicking;

/// What naga may use. Missing on purpose: `Int8` (naga then packs and unpacks 4x8 values with
/// bit-field instructions rather than 8-bit vectors, which need `shaderInt8` and which WGSL
/// cannot express on the way back) and `DotProduct`/`DotProductInput4x8BitPacked` (naga then
/// computes `dot4I8Packed` with bit-field extracts instead of `OpSDot`, which needs
/// `SPV_KHR_integer_dot_product`).
const AVAILABLE_CAPABILITIES: &[Capability] = &[
    Capability::Shader,
    Capability::Matrix,
    Capability::Float16,
    Capability::Float64,
    Capability::Int16,
    Capability::Int64,
    Capability::Int64Atomics,
    Capability::StorageBuffer16BitAccess,
    Capability::UniformAndStorageBuffer16BitAccess,
    Capability::StorageInputOutput16,
    Capability::ImageQuery,
    Capability::Image1D,
    Capability::Sampled1D,
    Capability::ImageCubeArray,
    Capability::SampledCubeArray,
    Capability::StorageImageExtendedFormats,
    Capability::StorageImageWriteWithoutFormat,
    Capability::StorageImageReadWithoutFormat,
    Capability::SampleRateShading,
    Capability::DerivativeControl,
    Capability::ClipDistance,
    Capability::CullDistance,
    Capability::MultiView,
    Capability::DrawParameters,
    Capability::ShaderNonUniform,
    Capability::GroupNonUniform,
    Capability::GroupNonUniformVote,
    Capability::GroupNonUniformArithmetic,
    Capability::GroupNonUniformBallot,
    Capability::GroupNonUniformShuffle,
    Capability::GroupNonUniformShuffleRelative,
    Capability::GroupNonUniformQuad,
    Capability::SubgroupBallotKHR,
    Capability::FragmentBarycentricKHR,
    Capability::AtomicFloat32AddEXT,
    Capability::Int64ImageEXT,
    Capability::VulkanMemoryModel,
    Capability::Geometry,
    Capability::Linkage,
];

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
        capabilities: Some(AVAILABLE_CAPABILITIES.iter().copied().collect()),
        force_loop_bounding: false,
        ..spv::Options::default()
    };
    let pipeline = only.map(|index| {
        let entry = &module.entry_points[index];
        spv::PipelineOptions { shader_stage: entry.stage, entry_point: entry.name.clone() }
    });
    let written = without_panicking(|| spv::write_vec(module, info, &spv_options, pipeline.as_ref()))
        .map_err(|panic| Error::internal(format!("naga's SPIR-V writer panicked: {panic}")))?;
    written.map_err(|error| Error::unsupported(format!("naga's SPIR-V backend refused the module: {error}")))
}
