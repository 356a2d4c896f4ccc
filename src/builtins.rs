//! The builtin table: the SPIR-V `BuiltIn`s WGSL has, their WGSL names and types, the stages and
//! directions WGSL allows them in, and the `enable` directive each needs. The `io_wrapper` pass
//! reads it; `docs/builtins.md` presents it to users (a test keeps the two in step).

use spirv::BuiltIn;

/// A stage and direction of an entry-point interface.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Use {
    VertexInput,
    VertexOutput,
    FragmentInput,
    FragmentOutput,
    ComputeInput,
}

/// The scalar of a builtin's WGSL type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scalar {
    U32,
    F32,
    Bool,
}

pub struct BuiltinRow {
    pub builtin: BuiltIn,
    pub name: &'static str,
    /// The WGSL type as a scalar and a component count; `None` for the SPIR-V type as declared
    /// (clip_distances: an array of up to 8 f32).
    pub ty: Option<(Scalar, u32)>,
    pub enable: Option<&'static str>,
    pub uses: &'static [Use],
}

const fn row(
    builtin: BuiltIn,
    name: &'static str,
    ty: Option<(Scalar, u32)>,
    enable: Option<&'static str>,
    uses: &'static [Use],
) -> BuiltinRow {
    BuiltinRow { builtin, name, ty, enable, uses }
}

use Scalar::{Bool, F32, U32};
use Use::{ComputeInput, FragmentInput, FragmentOutput, VertexInput, VertexOutput};

const U: Option<(Scalar, u32)> = Some((U32, 1));
const UVEC3: Option<(Scalar, u32)> = Some((U32, 3));
const VEC4: Option<(Scalar, u32)> = Some((F32, 4));

pub static BUILTINS: &[BuiltinRow] = &[
    row(BuiltIn::Position, "position", VEC4, None, &[VertexOutput]),
    // Both have their origin at the top left and pixel centres at half-integers.
    row(BuiltIn::FragCoord, "position", VEC4, None, &[FragmentInput]),
    // Both count from the draw's first vertex and instance (base vertex and instance included).
    row(BuiltIn::VertexIndex, "vertex_index", U, None, &[VertexInput]),
    row(BuiltIn::InstanceIndex, "instance_index", U, None, &[VertexInput]),
    row(BuiltIn::FrontFacing, "front_facing", Some((Bool, 1)), None, &[FragmentInput]),
    row(BuiltIn::FragDepth, "frag_depth", Some((F32, 1)), None, &[FragmentOutput]),
    row(BuiltIn::SampleId, "sample_index", U, None, &[FragmentInput]),
    // An array of one word in SPIR-V, a scalar in WGSL.
    row(BuiltIn::SampleMask, "sample_mask", U, None, &[FragmentInput, FragmentOutput]),
    row(BuiltIn::LocalInvocationId, "local_invocation_id", UVEC3, None, &[ComputeInput]),
    row(BuiltIn::LocalInvocationIndex, "local_invocation_index", U, None, &[ComputeInput]),
    row(BuiltIn::GlobalInvocationId, "global_invocation_id", UVEC3, None, &[ComputeInput]),
    row(BuiltIn::WorkgroupId, "workgroup_id", UVEC3, None, &[ComputeInput]),
    row(BuiltIn::NumWorkgroups, "num_workgroups", UVEC3, None, &[ComputeInput]),
    row(BuiltIn::SubgroupSize, "subgroup_size", U, Some("subgroups"), &[ComputeInput, FragmentInput]),
    row(
        BuiltIn::SubgroupLocalInvocationId,
        "subgroup_invocation_id",
        U,
        Some("subgroups"),
        &[ComputeInput, FragmentInput],
    ),
    row(BuiltIn::NumSubgroups, "num_subgroups", U, Some("subgroups"), &[ComputeInput]),
    row(BuiltIn::SubgroupId, "subgroup_id", U, Some("subgroups"), &[ComputeInput]),
    row(BuiltIn::ClipDistance, "clip_distances", None, Some("clip_distances"), &[VertexOutput]),
    row(BuiltIn::PrimitiveId, "primitive_index", U, Some("primitive_index"), &[FragmentInput]),
];

pub fn builtin_row(builtin: BuiltIn) -> Option<&'static BuiltinRow> {
    BUILTINS.iter().find(|row| row.builtin == builtin)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every row is in the user documentation's table, as `SPIR-V name | WGSL name`.
    #[test]
    fn docs_list_every_builtin() {
        let docs = include_str!("../docs/builtins.md");
        for row in BUILTINS {
            let line = format!("| `{:?}` | `{}` |", row.builtin, row.name);
            assert!(docs.contains(&line), "docs/builtins.md lacks the row starting {line}");
        }
    }

    #[test]
    fn each_builtin_has_one_row() {
        for (i, a) in BUILTINS.iter().enumerate() {
            assert!(BUILTINS[i + 1..].iter().all(|b| b.builtin != a.builtin), "{:?} twice", a.builtin);
        }
    }
}
