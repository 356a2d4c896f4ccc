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
//! naga's writer panics on some valid modules; [`super::prepare`] rewrites the shapes we know,
//! and any other panic is caught here and becomes an internal error, without a backtrace.

use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

use naga::back::spv::{self, WriterFlags};
use spirv::Capability;

use super::Options;
use super::error::Error;

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

thread_local! {
    /// Set while this thread runs [`without_panicking`]: its panics are reported as errors.
    static CATCHING: Cell<bool> = const { Cell::new(false) };
    /// Where the caught panic happened, recorded by the hook.
    static LOCATION: RefCell<String> = const { RefCell::new(String::new()) };
}

/// Runs `f`, turning a panic into its message and location. The process's panic hook stays in
/// charge of every other thread and of this one outside the call; inside it, the hook only
/// records the location, so no message or backtrace reaches stderr.
fn without_panicking<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if CATCHING.get() {
                let location = info.location().map(|l| format!("{}:{}", l.file(), l.line())).unwrap_or_default();
                LOCATION.set(location);
            } else {
                previous(info);
            }
        }));
    });
    CATCHING.set(true);
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    CATCHING.set(false);
    result.map_err(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "(no message)".into());
        let location = LOCATION.take();
        let file = location.rsplit_once("/src/").map_or(location.as_str(), |(_, file)| file);
        format!("{message} (at {file})")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_its_message_and_location() {
        let caught = without_panicking(|| -> u32 { panic!("index {} out of range", 7) }).unwrap_err();
        assert!(caught.starts_with("index 7 out of range (at "), "{caught}");
        assert!(caught.contains("backend.rs:"), "{caught}");
        assert_eq!(without_panicking(|| 5), Ok(5));
    }
}
