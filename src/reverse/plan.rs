//! The I/O lowering, stated as data (seed 000, "Translation scheme for WGSL AST to SPIR-V"): for
//! each entry point, the `Input` and `Output` variables Vulkan SPIR-V must declare for its
//! parameters and result.
//!
//! - Each parameter becomes one `Input` variable and the result one `Output` variable; a struct
//!   parameter or result becomes one variable per member (WGSL forbids nested I/O structs).
//! - The builtin or location moves to the variable; a builtin gets its Vulkan name (`position` is
//!   `FragCoord` as a fragment input) and, where Vulkan's type differs, its Vulkan shape
//!   (`sample_mask` is a `u32` in WGSL and an `array<u32, 1>` in Vulkan).
//! - Interpolation applies where Vulkan interpolates (vertex outputs, fragment inputs):
//!   `flat` is `Flat`, `linear` is `NoPerspective`, `centroid` and `sample` are `Centroid` and
//!   `Sample`; integer values there are always `Flat`. `@invariant` is `Invariant` on the output.
//! - WGSL zero-initialises workgroup memory. The SPIR-V does it in the compute entry point,
//!   guarded by the local invocation index, which it therefore reads even when the WGSL does not.
//!
//! The SPIR-V itself comes from naga; [`super::conform`] makes it match this plan and fails
//! loudly where it cannot.

use naga::{Binding, ShaderStage, TypeInner};
use spirv::{BuiltIn, Decoration, ExecutionModel, StorageClass};

use super::error::Error;

/// One entry point's interface.
#[derive(Debug, Clone, PartialEq)]
pub struct EntryPlan {
    pub name: String,
    pub model: ExecutionModel,
    pub varyings: Vec<Varying>,
}

/// One `Input` or `Output` variable.
#[derive(Debug, Clone, PartialEq)]
pub struct Varying {
    pub class: StorageClass,
    pub slot: Slot,
    /// Interpolation and invariance decorations, in a fixed order.
    pub qualifiers: Vec<Decoration>,
    /// WGSL's scalar is Vulkan's `array<scalar, 1>` (element 0 carries the value).
    pub array_of_one: bool,
    /// What the variable stands for, for messages: "parameter `mask`", "result member `color`".
    pub origin: String,
}

/// Where a variable connects to the pipeline: a builtin, or a location (with its blend source
/// index, `@blend_src`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Slot {
    BuiltIn(BuiltIn),
    Location { location: u32, index: Option<u32> },
}

/// A WGSL builtin the reverse path lowers: its Vulkan builtin as an input and as an output, and
/// whether Vulkan declares it as a one-element array.
struct BuiltinRow {
    wgsl: naga::BuiltIn,
    input: BuiltIn,
    output: BuiltIn,
    array_of_one: bool,
}

const fn row(wgsl: naga::BuiltIn, vulkan: BuiltIn) -> BuiltinRow {
    BuiltinRow { wgsl, input: vulkan, output: vulkan, array_of_one: false }
}

/// `position` is looked up with `invariant: false`; invariance is a qualifier.
const BUILTINS: &[BuiltinRow] = &[
    BuiltinRow {
        wgsl: naga::BuiltIn::Position { invariant: false },
        input: BuiltIn::FragCoord,
        output: BuiltIn::Position,
        array_of_one: false,
    },
    row(naga::BuiltIn::VertexIndex, BuiltIn::VertexIndex),
    row(naga::BuiltIn::InstanceIndex, BuiltIn::InstanceIndex),
    row(naga::BuiltIn::ClipDistances, BuiltIn::ClipDistance),
    row(naga::BuiltIn::FrontFacing, BuiltIn::FrontFacing),
    row(naga::BuiltIn::FragDepth, BuiltIn::FragDepth),
    row(naga::BuiltIn::PrimitiveIndex, BuiltIn::PrimitiveId),
    row(naga::BuiltIn::SampleIndex, BuiltIn::SampleId),
    BuiltinRow {
        wgsl: naga::BuiltIn::SampleMask,
        input: BuiltIn::SampleMask,
        output: BuiltIn::SampleMask,
        array_of_one: true,
    },
    row(naga::BuiltIn::LocalInvocationId, BuiltIn::LocalInvocationId),
    row(naga::BuiltIn::LocalInvocationIndex, BuiltIn::LocalInvocationIndex),
    row(naga::BuiltIn::GlobalInvocationId, BuiltIn::GlobalInvocationId),
    row(naga::BuiltIn::WorkGroupId, BuiltIn::WorkgroupId),
    row(naga::BuiltIn::NumWorkGroups, BuiltIn::NumWorkgroups),
    row(naga::BuiltIn::SubgroupSize, BuiltIn::SubgroupSize),
    row(naga::BuiltIn::SubgroupInvocationId, BuiltIn::SubgroupLocalInvocationId),
];

/// The plan of every entry point of `module` (only `only`'s, when given: an index into
/// `module.entry_points`).
pub fn plan(
    module: &naga::Module,
    info: &naga::valid::ModuleInfo,
    only: Option<usize>,
) -> Result<Vec<EntryPlan>, Error> {
    let mut plans = Vec::new();
    for (index, entry) in module.entry_points.iter().enumerate() {
        if only.is_some_and(|only| only != index) {
            continue;
        }
        let uses_workgroup_memory = module.global_variables.iter().any(|(handle, global)| {
            global.space == naga::AddressSpace::WorkGroup && !info.get_entry_point(index)[handle].is_empty()
        });
        plans.push(plan_entry(module, entry, uses_workgroup_memory)?);
    }
    Ok(plans)
}

fn plan_entry(
    module: &naga::Module,
    entry: &naga::EntryPoint,
    uses_workgroup_memory: bool,
) -> Result<EntryPlan, Error> {
    let model = match entry.stage {
        ShaderStage::Vertex => ExecutionModel::Vertex,
        ShaderStage::Fragment => ExecutionModel::Fragment,
        ShaderStage::Compute => ExecutionModel::GLCompute,
        other => {
            return Err(Error::unsupported(format!(
                "entry point `{}`: {other:?} shaders are not translated to SPIR-V yet",
                entry.name
            )));
        }
    };
    let planner = Planner { module, entry };
    let mut varyings = Vec::new();
    for (i, argument) in entry.function.arguments.iter().enumerate() {
        let name = argument.name.clone().unwrap_or_else(|| i.to_string());
        let origin = format!("parameter `{name}`");
        planner.flatten(StorageClass::Input, argument.binding.as_ref(), argument.ty, &origin, &mut varyings)?;
    }
    if let Some(result) = &entry.function.result {
        planner.flatten(StorageClass::Output, result.binding.as_ref(), result.ty, "result", &mut varyings)?;
    }
    let zero_init_index = Slot::BuiltIn(BuiltIn::LocalInvocationIndex);
    let reads_index = varyings.iter().any(|v| v.class == StorageClass::Input && v.slot == zero_init_index);
    if entry.stage == ShaderStage::Compute && uses_workgroup_memory && !reads_index {
        varyings.push(Varying {
            class: StorageClass::Input,
            slot: zero_init_index,
            qualifiers: Vec::new(),
            array_of_one: false,
            origin: "the zero-initialisation of workgroup memory".into(),
        });
    }
    Ok(EntryPlan { name: entry.name.clone(), model, varyings })
}

struct Planner<'a> {
    module: &'a naga::Module,
    entry: &'a naga::EntryPoint,
}

impl Planner<'_> {
    /// One varying for a bound value, one per member for a struct of bound members.
    fn flatten(
        &self,
        class: StorageClass,
        binding: Option<&Binding>,
        ty: naga::Handle<naga::Type>,
        origin: &str,
        varyings: &mut Vec<Varying>,
    ) -> Result<(), Error> {
        if let Some(binding) = binding {
            varyings.push(self.varying(class, binding, ty, origin.to_string())?);
            return Ok(());
        }
        let TypeInner::Struct { members, .. } = &self.module.types[ty].inner else {
            return Err(self.unsupported(format!("{origin} has neither a builtin nor a location")));
        };
        for member in members {
            let name = member.name.as_deref().unwrap_or("?");
            let origin = format!("{origin} member `{name}`");
            let Some(binding) = &member.binding else {
                return Err(self.unsupported(format!("{origin} has neither a builtin nor a location")));
            };
            varyings.push(self.varying(class, binding, member.ty, origin)?);
        }
        Ok(())
    }

    fn varying(
        &self,
        class: StorageClass,
        binding: &Binding,
        ty: naga::Handle<naga::Type>,
        origin: String,
    ) -> Result<Varying, Error> {
        let interpolated = match self.entry.stage {
            ShaderStage::Vertex => class == StorageClass::Output,
            ShaderStage::Fragment => class == StorageClass::Input,
            _ => false,
        };
        let integer = is_integer(self.module, ty);
        let mut qualifiers = Vec::new();
        let (slot, array_of_one) = match *binding {
            Binding::BuiltIn(builtin) => {
                let (vulkan, array_of_one) = self.builtin(class, builtin, &origin)?;
                if interpolated && integer {
                    qualifiers.push(Decoration::Flat);
                }
                let invariant = matches!(builtin, naga::BuiltIn::Position { invariant: true });
                if invariant && class == StorageClass::Output {
                    qualifiers.push(Decoration::Invariant);
                }
                (Slot::BuiltIn(vulkan), array_of_one)
            }
            Binding::Location { location, interpolation, sampling, blend_src, .. } => {
                if interpolated {
                    qualifiers = interpolation_decorations(integer, interpolation, sampling);
                }
                (Slot::Location { location, index: blend_src }, false)
            }
        };
        Ok(Varying { class, slot, qualifiers, array_of_one, origin })
    }

    fn builtin(&self, class: StorageClass, builtin: naga::BuiltIn, origin: &str) -> Result<(BuiltIn, bool), Error> {
        let key = match builtin {
            naga::BuiltIn::Position { .. } => naga::BuiltIn::Position { invariant: false },
            other => other,
        };
        let row = BUILTINS.iter().find(|row| row.wgsl == key).ok_or_else(|| {
            self.unsupported(format!("{origin}: the builtin {builtin:?} is not translated to SPIR-V yet"))
        })?;
        let vulkan = if class == StorageClass::Input { row.input } else { row.output };
        Ok((vulkan, row.array_of_one))
    }

    fn unsupported(&self, message: String) -> Error {
        Error::unsupported(format!("entry point `{}`: {message}", self.entry.name))
    }
}

/// The decorations of an interpolated location: integers are always flat.
fn interpolation_decorations(
    integer: bool,
    interpolation: Option<naga::Interpolation>,
    sampling: Option<naga::Sampling>,
) -> Vec<Decoration> {
    if integer || interpolation == Some(naga::Interpolation::Flat) {
        return vec![Decoration::Flat];
    }
    let mut decorations = Vec::new();
    if interpolation == Some(naga::Interpolation::Linear) {
        decorations.push(Decoration::NoPerspective);
    }
    match sampling {
        Some(naga::Sampling::Centroid) => decorations.push(Decoration::Centroid),
        Some(naga::Sampling::Sample) => decorations.push(Decoration::Sample),
        _ => {}
    }
    decorations
}

/// Whether the value's scalars (of a scalar, vector or array) are integers.
fn is_integer(module: &naga::Module, ty: naga::Handle<naga::Type>) -> bool {
    match module.types[ty].inner {
        TypeInner::Scalar(scalar) | TypeInner::Vector { scalar, .. } => {
            matches!(scalar.kind, naga::ScalarKind::Sint | naga::ScalarKind::Uint)
        }
        TypeInner::Array { base, .. } => is_integer(module, base),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan_of(source: &str) -> Vec<EntryPlan> {
        let (module, info) = super::super::parse::parse(source).expect("valid WGSL");
        plan(&module, &info, None).expect("a plan")
    }

    fn slots(plan: &EntryPlan) -> Vec<(StorageClass, Slot, Vec<Decoration>, bool)> {
        plan.varyings.iter().map(|v| (v.class, v.slot, v.qualifiers.clone(), v.array_of_one)).collect()
    }

    #[test]
    fn struct_parameters_and_results_become_one_variable_per_member() {
        let plans = plan_of(
            "struct In { @location(0) uv: vec2f, @location(1) @interpolate(flat) id: u32, @builtin(front_facing) ff: bool }\n\
             struct Out { @location(0) color: vec4f, @builtin(sample_mask) mask: u32 }\n\
             @fragment fn main(input: In, @builtin(sample_mask) mask: u32) -> Out {\n\
               return Out(vec4f(input.uv, 0.0, 1.0), mask);\n\
             }\n",
        );
        let location = |location| Slot::Location { location, index: None };
        assert_eq!(
            slots(&plans[0]),
            vec![
                (StorageClass::Input, location(0), vec![], false),
                (StorageClass::Input, location(1), vec![Decoration::Flat], false),
                (StorageClass::Input, Slot::BuiltIn(BuiltIn::FrontFacing), vec![], false),
                (StorageClass::Input, Slot::BuiltIn(BuiltIn::SampleMask), vec![Decoration::Flat], true),
                (StorageClass::Output, location(0), vec![], false),
                (StorageClass::Output, Slot::BuiltIn(BuiltIn::SampleMask), vec![], true),
            ]
        );
        assert_eq!(plans[0].varyings[5].origin, "result member `mask`");
    }

    #[test]
    fn interpolation_applies_only_where_vulkan_interpolates() {
        let plans = plan_of(
            "struct V { @builtin(position) @invariant p: vec4f, @location(0) @interpolate(linear, centroid) a: vec4f,\n\
                        @location(1) @interpolate(perspective, sample) b: f32, @location(2) @interpolate(flat) c: f32,\n\
                        @location(3) @interpolate(flat) i: vec2i }\n\
             @vertex fn vs(@location(0) @interpolate(flat) i: vec2i) -> V {\n\
               return V(vec4f(), vec4f(), 0.0, 0.0, i);\n\
             }\n\
             @fragment fn fs(v: V) -> @location(0) @interpolate(flat) vec2i { return v.i; }\n",
        );
        let vs = slots(&plans[0]);
        assert_eq!(vs[0].2, vec![], "vertex inputs are not interpolated");
        assert_eq!(vs[1], (StorageClass::Output, Slot::BuiltIn(BuiltIn::Position), vec![Decoration::Invariant], false));
        assert_eq!(vs[2].2, vec![Decoration::NoPerspective, Decoration::Centroid]);
        assert_eq!(vs[3].2, vec![Decoration::Sample]);
        assert_eq!(vs[4].2, vec![Decoration::Flat]);
        assert_eq!(vs[5].2, vec![Decoration::Flat]);
        let fs = slots(&plans[1]);
        assert_eq!(fs[0].1, Slot::BuiltIn(BuiltIn::FragCoord));
        assert_eq!(fs[0].2, vec![], "invariance belongs to the output");
        assert_eq!(fs[5], (StorageClass::Output, Slot::Location { location: 0, index: None }, vec![], false));
    }

    #[test]
    fn workgroup_memory_makes_a_compute_shader_read_its_local_invocation_index() {
        let plans = plan_of(
            "var<workgroup> cache: array<u32, 4>;\n\
             @compute @workgroup_size(4) fn uses(@builtin(local_invocation_id) id: vec3u) { cache[id.x] = id.x; }\n\
             @compute @workgroup_size(4) fn ignores(@builtin(local_invocation_id) id: vec3u) { _ = id; }\n",
        );
        let index = Slot::BuiltIn(BuiltIn::LocalInvocationIndex);
        assert!(plans[0].varyings.iter().any(|v| v.slot == index));
        assert!(!plans[1].varyings.iter().any(|v| v.slot == index));
    }
}
