//! Entry-point I/O (seed 000): SPIR-V pipeline inputs and outputs are `Input`/`Output` variables,
//! WGSL's are entry-point parameters and the return value.
//!
//! Before: entry points read `Input` and write `Output` globals. After: those globals are
//! `Private` proxies (same store type, uses unchanged), and each entry point carries an
//! [`IoPlan`]: which parameters to copy into which proxy (with builtin or location, interpolation
//! and any signedness conversion) and which proxy parts make up the result. The emitter writes the
//! wrapper function from the plan; the original entry function becomes `<name>_inner`.

use std::collections::BTreeSet;

use spirv::{BuiltIn, ExecutionModel, Op, StorageClass};

use crate::error::{Error, Location};
use crate::spirv::{ConstValue, Def, Id, IoBinding, IoPlan, IoValue, Module, Type};
use crate::Options;

/// A SPIR-V builtin WGSL has, its WGSL name, and its WGSL type (empty: the SPIR-V type as is).
pub struct BuiltinRow {
    pub builtin: BuiltIn,
    pub name: &'static str,
    pub ty: &'static str,
    /// The `enable` directive it needs.
    pub enable: Option<&'static str>,
}

const fn b(builtin: BuiltIn, name: &'static str, ty: &'static str, enable: Option<&'static str>) -> BuiltinRow {
    BuiltinRow { builtin, name, ty, enable }
}

pub static BUILTINS: &[BuiltinRow] = &[
    b(BuiltIn::Position, "position", "vec4<f32>", None),
    b(BuiltIn::FragCoord, "position", "vec4<f32>", None),
    b(BuiltIn::VertexIndex, "vertex_index", "u32", None),
    b(BuiltIn::InstanceIndex, "instance_index", "u32", None),
    b(BuiltIn::FrontFacing, "front_facing", "bool", None),
    b(BuiltIn::FragDepth, "frag_depth", "f32", None),
    b(BuiltIn::SampleId, "sample_index", "u32", None),
    b(BuiltIn::SampleMask, "sample_mask", "u32", None),
    b(BuiltIn::LocalInvocationId, "local_invocation_id", "vec3<u32>", None),
    b(BuiltIn::LocalInvocationIndex, "local_invocation_index", "u32", None),
    b(BuiltIn::GlobalInvocationId, "global_invocation_id", "vec3<u32>", None),
    b(BuiltIn::WorkgroupId, "workgroup_id", "vec3<u32>", None),
    b(BuiltIn::NumWorkgroups, "num_workgroups", "vec3<u32>", None),
    b(BuiltIn::SubgroupSize, "subgroup_size", "u32", Some("subgroups")),
    b(BuiltIn::SubgroupLocalInvocationId, "subgroup_invocation_id", "u32", Some("subgroups")),
    b(BuiltIn::ClipDistance, "clip_distances", "", Some("clip_distances")),
];

pub fn builtin_row(builtin: BuiltIn) -> Option<&'static BuiltinRow> {
    BUILTINS.iter().find(|row| row.builtin == builtin)
}

pub fn run(module: &mut Module, options: &Options) -> Result<(), Error> {
    let mut proxies = BTreeSet::new();
    for e in 0..module.entry_points.len() {
        let entry = module.entry_points[e].clone();
        let root = module.function_index(entry.function).ok_or_else(|| {
            Error::invalid(format!("entry point `{}` names %{} which is not a function", entry.name, entry.function), Location::default())
        })?;
        let used = used_ids(module, root);
        let mut plan = IoPlan::default();
        for &var in &entry.interface {
            let Some(g) = module.global_index(var) else { continue };
            let global = &module.globals[g];
            let is_output = match global.class {
                StorageClass::Input => false,
                StorageClass::Output => true,
                _ => continue,
            };
            // WGSL requires a vertex shader to output a position, so a declared one is kept.
            let position = entry.model == ExecutionModel::Vertex && is_output && declares_position(module, var);
            if !used.contains(&var) && !position {
                continue;
            }
            proxies.insert(g);
            let planner = Planner { module, model: entry.model, is_output, options };
            let values = planner.variable(var, global.pointee)?;
            if is_output {
                plan.outputs.extend(values);
            } else {
                plan.inputs.extend(values);
            }
        }
        module.entry_points[e].io = Some(plan);
        if entry.modes.iter().any(|(mode, _)| *mode == spirv::ExecutionMode::EarlyFragmentTests) {
            module.warnings.push(format!(
                "entry point `{}`: WGSL cannot request early fragment tests; the EarlyFragmentTests mode is dropped",
                entry.name
            ));
        }
    }
    for g in proxies {
        module.globals[g].class = StorageClass::Private;
    }
    Ok(())
}

/// Every id read by the functions reachable from `root`.
fn used_ids(module: &Module, root: usize) -> BTreeSet<Id> {
    let mut used = BTreeSet::new();
    for f in module.reachable_functions(root) {
        for inst in &module.functions[f].insts {
            used.extend(inst.id_operands());
        }
    }
    used
}

struct Planner<'a> {
    module: &'a Module,
    model: ExecutionModel,
    is_output: bool,
    options: &'a Options,
}

impl Planner<'_> {
    fn location(&self, var: Id) -> Location {
        let offset = self.module.global_index(var).map(|g| self.module.globals[g].offset);
        Location { word_offset: offset, result_id: Some(var), opcode: Some(Op::Variable), ..Location::default() }
    }

    fn variable(&self, var: Id, pointee: Id) -> Result<Vec<IoValue>, Error> {
        let module = self.module;
        let name = module.name(var).unwrap_or("io").to_string();
        let decorations = module.decorations(var);
        if let Some(builtin) = decorations.builtin {
            return Ok(self.builtin(var, builtin, vec![], name, pointee)?.into_iter().collect());
        }
        match module.ty(pointee)? {
            Type::Struct { members } => self.block(var, members),
            _ => {
                let location = decorations.location.ok_or_else(|| {
                    Error::invalid(format!("interface variable `{name}` has neither Location nor BuiltIn"), self.location(var))
                })?;
                self.located(var, vec![], name, pointee, location, decorations)
            }
        }
    }

    /// An interface block: a struct whose members carry builtins or locations (gl_PerVertex).
    fn block(&self, var: Id, members: &[Id]) -> Result<Vec<IoValue>, Error> {
        let module = self.module;
        let struct_ty = module.globals[module.global_index(var).unwrap_or_default()].pointee;
        let used = used_members(module, var);
        let mut values = Vec::new();
        let mut next_location = module.decorations(var).location;
        for (i, &member_ty) in members.iter().enumerate() {
            let i = i as u32;
            let decorations = module.member_decorations(struct_ty, i);
            let name = module.member_names.get(&(struct_ty, i)).cloned().unwrap_or_else(|| format!("member_{i}"));
            if let Some(builtin) = decorations.builtin {
                let position = builtin == BuiltIn::Position && self.model == ExecutionModel::Vertex;
                if position || used.as_ref().is_none_or(|set| set.contains(&i)) {
                    values.extend(self.builtin(var, builtin, vec![i], name, member_ty)?);
                }
                continue;
            }
            let location = decorations.location.or(next_location).ok_or_else(|| {
                Error::invalid(format!("member `{name}` of an interface block has no Location"), self.location(var))
            })?;
            let mut merged = module.decorations(var).clone();
            merged.flat |= decorations.flat;
            merged.no_perspective |= decorations.no_perspective;
            merged.centroid |= decorations.centroid;
            merged.sample |= decorations.sample;
            let member_values = self.located(var, vec![i], name, member_ty, location, &merged)?;
            next_location = Some(location + member_values.len() as u32);
            values.extend(member_values);
        }
        Ok(values)
    }

    fn builtin(&self, var: Id, builtin: BuiltIn, path: Vec<u32>, name: String, ty: Id) -> Result<Option<IoValue>, Error> {
        if builtin == BuiltIn::PointSize {
            return if writes_only_one(self.module, var, &path) || self.options.ignore_point_size {
                Ok(None)
            } else {
                Err(Error::unsupported(
                    "gl_PointSize is written with a value other than 1.0; WGSL draws points of size 1 only \
                     (--ignore-point-size drops the writes)",
                    self.location(var),
                ))
            };
        }
        let row = builtin_row(builtin).ok_or_else(|| {
            Error::unsupported(format!("builtin {builtin:?} has no WGSL counterpart"), self.location(var))
        })?;
        // SampleMask is an array of one word in SPIR-V, a scalar in WGSL.
        let (path, ty) = match (builtin, self.module.ty(ty)?) {
            (BuiltIn::SampleMask, Type::Array { element, .. }) => {
                let mut path = path;
                path.push(0);
                (path, *element)
            }
            _ => (path, ty),
        };
        Ok(Some(IoValue { global: var, path, name, ty, binding: IoBinding::BuiltIn { name: row.name, wgsl_type: row.ty, enable: row.enable } }))
    }

    /// A value at consecutive locations; arrays take one location per element.
    fn located(
        &self,
        var: Id,
        path: Vec<u32>,
        name: String,
        ty: Id,
        location: u32,
        decorations: &crate::spirv::Decorations,
    ) -> Result<Vec<IoValue>, Error> {
        let module = self.module;
        if let Type::Array { element, length } = module.ty(ty)? {
            let count = module.const_u32(*length).unwrap_or(0);
            return Ok((0..count)
                .map(|i| {
                    let mut element_path = path.clone();
                    element_path.push(i);
                    let binding = self.location_binding(location + i, *element, decorations);
                    IoValue { global: var, path: element_path, name: format!("{name}_{i}"), ty: *element, binding }
                })
                .collect());
        }
        if matches!(module.ty(ty)?, Type::Matrix { .. } | Type::Struct { .. }) {
            return Err(Error::unsupported(
                format!("interface variable `{name}` is a matrix or struct; WGSL passes only scalars and vectors between stages"),
                self.location(var),
            ));
        }
        Ok(vec![IoValue { global: var, path, name, ty, binding: self.location_binding(location, ty, decorations) }])
    }

    fn location_binding(&self, location: u32, ty: Id, decorations: &crate::spirv::Decorations) -> IoBinding {
        // Interpolation only exists between the vertex and fragment stages.
        let interpolated = matches!(
            (self.model, self.is_output),
            (ExecutionModel::Vertex, true) | (ExecutionModel::Fragment, false)
        );
        let integer = self
            .module
            .scalar_of(ty)
            .is_some_and(|(scalar, _)| matches!(self.module.def(scalar), Def::Type(Type::Int { .. })));
        let interpolation = interpolated.then(|| interpolation(decorations, integer)).flatten();
        let blend_src = match (self.model, self.is_output) {
            (ExecutionModel::Fragment, true) => decorations.index,
            _ => None,
        };
        IoBinding::Location { location, interpolation, blend_src }
    }
}

/// The `@interpolate` arguments for a varying, `None` for WGSL's default (perspective, center).
fn interpolation(decorations: &crate::spirv::Decorations, integer: bool) -> Option<String> {
    if decorations.flat || integer {
        return Some("flat".into());
    }
    let kind = if decorations.no_perspective { "linear" } else { "perspective" };
    let sampling = if decorations.centroid {
        Some("centroid")
    } else if decorations.sample {
        Some("sample")
    } else {
        None
    };
    match (kind, sampling) {
        ("perspective", None) => None,
        (kind, None) => Some(kind.into()),
        (kind, Some(sampling)) => Some(format!("{kind}, {sampling}")),
    }
}

/// The member indices that access chains into `var` select; `None` if the whole variable is used.
fn used_members(module: &Module, var: Id) -> Option<BTreeSet<u32>> {
    let mut members = BTreeSet::new();
    for function in &module.functions {
        for inst in &function.insts {
            let whole = matches!(inst.op, Op::Load | Op::Store | Op::CopyMemory | Op::FunctionCall);
            if whole && inst.id_operands().any(|id| id == var) {
                return None;
            }
            if matches!(inst.op, Op::AccessChain | Op::InBoundsAccessChain) && inst.id(0) == Some(var) {
                members.insert(inst.id(1).and_then(|i| module.const_u32(i))?);
            }
        }
    }
    Some(members)
}

/// Whether every store to `var` at `path` (through an access chain) writes the constant 1.0.
fn writes_only_one(module: &Module, var: Id, path: &[u32]) -> bool {
    for function in &module.functions {
        for inst in function.insts.iter().filter(|i| i.op == Op::Store) {
            let Some(pointer) = inst.id(0) else { continue };
            let Def::Value { function: owner, inst: chain, .. } = module.def(pointer) else { continue };
            let chain = &module.functions[*owner].insts[*chain];
            let targets = matches!(chain.op, Op::AccessChain | Op::InBoundsAccessChain)
                && chain.id(0) == Some(var)
                && path.iter().enumerate().all(|(i, &step)| chain.id(i + 1).and_then(|c| module.const_u32(c)) == Some(step));
            let value_is_one = inst
                .id(1)
                .and_then(|v| module.constant(v))
                .is_some_and(|c| c.value == ConstValue::Scalar(u64::from(1.0f32.to_bits())));
            if targets && !value_is_one {
                return false;
            }
        }
    }
    true
}

/// Whether an output variable is, or is a block containing, the Position builtin.
fn declares_position(module: &Module, var: Id) -> bool {
    let Some(g) = module.global_index(var) else { return false };
    let pointee = module.globals[g].pointee;
    module.decorations(var).builtin == Some(BuiltIn::Position)
        || match module.def(pointee) {
            Def::Type(Type::Struct { members }) => (0..members.len() as u32)
                .any(|i| module.member_decorations(pointee, i).builtin == Some(BuiltIn::Position)),
            _ => false,
        }
}
