//! Validation of the WGSL we produce, in-process with naga, before anything is written.
//! A failure here is our bug, so it is reported as an internal error with the WGSL around it.

use crate::error::Error;

/// Parses and validates `wgsl` as WebGPU would accept it.
pub fn validate(wgsl: &str) -> Result<(), Error> {
    // naga 30 implements subgroups but does not parse their `enable` (gfx-rs/wgpu issue 5555),
    // which WGSL and Tint require: naga reads the text with it blanked out (spans keep their
    // offsets).
    const SUBGROUPS: &str = "enable subgroups;";
    let without_subgroups_enable = wgsl.replacen(SUBGROUPS, &" ".repeat(SUBGROUPS.len()), 1);
    let module = naga::front::wgsl::parse_str(&without_subgroups_enable)
        .map_err(|e| failure(wgsl, e.emit_to_string_with_path(wgsl, "output.wgsl")))?;
    let capabilities = naga::valid::Capabilities::SHADER_FLOAT16
        // pack2x16float and friends: core WGSL, a capability only in naga.
        | naga::valid::Capabilities::SHADER_FLOAT16_IN_FLOAT32
        | naga::valid::Capabilities::CLIP_DISTANCES
        | naga::valid::Capabilities::DUAL_SOURCE_BLENDING
        | naga::valid::Capabilities::SUBGROUP
        | naga::valid::Capabilities::PRIMITIVE_INDEX
        | naga::valid::Capabilities::CUBE_ARRAY_TEXTURES
        | naga::valid::Capabilities::MULTISAMPLED_SHADING;
    naga::valid::Validator::new(naga::valid::ValidationFlags::all(), capabilities)
        .subgroup_stages(naga::valid::ShaderStages::all())
        .subgroup_operations(naga::valid::SubgroupOperationSet::all())
        .validate(&module)
        .map_err(|e| failure(wgsl, e.emit_to_string_with_path(wgsl, "output.wgsl")))?;
    Ok(())
}

fn failure(wgsl: &str, report: String) -> Error {
    Error::Internal { message: format!("the generated WGSL does not validate:\n{report}"), wgsl: Some(wgsl.to_string()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subgroup_builtins_validate_with_their_enable_directive() {
        let wgsl = "enable subgroups;
@group(0) @binding(0) var<storage, read_write> out: u32;
@compute @workgroup_size(64)
fn main() {
    out = subgroupAdd(1u);
}
";
        assert!(validate(wgsl).is_ok());
    }
}
