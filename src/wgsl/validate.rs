//! Validation of the WGSL we produce, in-process with naga, before anything is written.
//! A failure here is our bug, so it is reported as an internal error with the WGSL around it.

use crate::error::Error;

/// Parses and validates `wgsl` as WebGPU would accept it.
pub fn validate(wgsl: &str) -> Result<(), Error> {
    // naga has the subgroup builtins but not yet the `subgroups` enable-extension that WGSL (and
    // Tint) require for them: it validates the text without that line.
    let without_subgroups = wgsl.replace("enable subgroups;\n", "");
    let wgsl = without_subgroups.as_str();
    let module = naga::front::wgsl::parse_str(wgsl)
        .map_err(|e| failure(wgsl, e.emit_to_string_with_path(wgsl, "output.wgsl")))?;
    let capabilities = naga::valid::Capabilities::SHADER_FLOAT16
        // pack2x16float and friends: core WGSL, a capability only in naga.
        | naga::valid::Capabilities::SHADER_FLOAT16_IN_FLOAT32
        | naga::valid::Capabilities::CLIP_DISTANCES
        | naga::valid::Capabilities::DUAL_SOURCE_BLENDING
        | naga::valid::Capabilities::SUBGROUP
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
