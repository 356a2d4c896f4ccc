//! Entry-point I/O (seed 000): SPIR-V pipeline inputs and outputs are `Input`/`Output` variables,
//! WGSL's are entry-point parameters and the return value.
//!
//! Before: entry points read `Input` and write `Output` globals. After: those globals that some
//! function still reads or writes as such are `Private` proxies (same store type and initializer,
//! uses unchanged); the others stay `Input`/`Output` and are not declared. Each entry point
//! carries an [`IoPlan`]: the parameters copied into proxy parts, the proxy parts (or synthesised
//! values) returned, each with its builtin or location, interpolation and WGSL type, and the
//! workgroup size. Where the entry function is the WGSL entry point itself (`unwrapped`), it reads
//! and returns some values directly, without a proxy (`direct_io.rs`); the emitter writes its
//! parameters, its results and the copies from the plan. Where two entry points share a function,
//! a wrapper function written from the plan alone calls it as `<name>_inner`.
//!
//! The rules:
//! - An input is a parameter when the entry point's functions use it. An output at a location is
//!   a result member whether written or not (WebGPU matches vertex outputs to fragment inputs, and
//!   fragment outputs to colour targets, by location); a builtin output only when used.
//! - Interface blocks, structs, arrays and matrices at locations are flattened into one value per
//!   location. Of a builtin block (gl_PerVertex) only the members the shader uses count, and
//!   point size only if every write stores 1.0.
//! - A builtin whose SPIR-V type differs from WGSL's in signedness (GLSL's `int gl_VertexIndex`)
//!   or is an array of one (`gl_SampleMask[1]`) is converted by the wrapper, both directions.
//! - A vertex shader that writes no position outputs a zero one: WGSL requires it.
//! - Integer varyings are flat; the other interpolation decorations map to `@interpolate`.
//! - Values sharing a location through `Component` decorations are packed into one `vec4` there
//!   (`io_wrapper_locations.rs`).
//! - Execution modes WGSL cannot express are warned about or rejected (`MODES`).

use std::cell::OnceCell;
use std::collections::BTreeSet;

use spirv::{BuiltIn, ExecutionMode, ExecutionModel, Op, StorageClass};

use crate::Options;
use crate::builtins::{Scalar, Use, builtin_row};
use crate::error::{Error, Location, Warning};
use crate::lower::subgroup;
use crate::passes::draw_parameters;
use crate::spirv::{
    Computed, ConstValue, Decorations, Def, EntryPoint, Id, Inst, IoBinding, IoPlan, IoSource, IoValue, Module,
    SubgroupMask, Type, WorkgroupDimension,
};

/// More locations than any WebGPU device has between stages (the limit is at most 32): an
/// interface array beyond this is refused before it is flattened.
const MAX_LOCATED_VALUES: usize = 64;

pub fn run(module: &mut Module, options: &Options) -> Result<(), Error> {
    let workgroup_size_constant = workgroup_size_constant(module);
    let io_reached = io_globals_reached(module);
    for e in 0..module.entry_points.len() {
        let entry = module.entry_points[e].clone();
        let mut warnings = Vec::new();
        check_modes(&entry, &mut warnings)?;
        let planner = Planner::new(module, &entry, options, &io_reached)?;
        let planned = planner.plan(&mut warnings)?;
        let needs_subgroup_id = planner.runs(|inst| subgroup::needs_invocation_id(module, inst));
        let workgroup_size = workgroup_size(module, &entry, workgroup_size_constant)?;
        let mut plan = IoPlan { workgroup_size, ..IoPlan::default() };
        for Planned { mut value, wgsl, output } in planned {
            if let Some((scalar, count)) = wgsl {
                value.wgsl_ty = wgsl_type(module, scalar, count);
            }
            if let IoSource::Proxy { global, .. } = value.source
                && let Some(g) = module.global_index(global)
                && module.name(global).is_none()
            {
                let name = interface_name(module, global, module.globals[g].pointee);
                module.names.insert(global, name);
            }
            if output { plan.outputs.push(value) } else { plan.inputs.push(value) }
        }
        locations::pack(module, &mut plan.inputs, &entry)?;
        locations::pack(module, &mut plan.outputs, &entry)?;
        if needs_subgroup_id {
            plan.inputs.push(subgroup_invocation_id(module, &entry)?);
        }
        let has_position =
            plan.outputs.iter().any(|v| matches!(v.binding, IoBinding::BuiltIn { name: "position", .. }));
        if entry.model == ExecutionModel::Vertex && !has_position {
            // SPIR-V leaves the position undefined then; zero is as good as any value.
            let ty = wgsl_type(module, Scalar::F32, 4);
            let binding = IoBinding::BuiltIn { name: "position", enable: None, invariant: false };
            let source = IoSource::Zero;
            plan.outputs.push(IoValue { source, name: "position".into(), ty, wgsl_ty: ty, binding, direct: false });
        }
        module.entry_points[e].io = Some(plan);
        module.warnings.extend(warnings);
    }
    for global in super::direct_io::run(module, &io_reached) {
        if let Some(g) = module.global_index(global) {
            module.globals[g].class = StorageClass::Private;
        }
    }
    Ok(())
}

/// For each function, the Input and Output variables it or a function it calls uses, sorted.
/// Found once for every entry point, callees before callers, by a walk with its own stack (call
/// chains can be long); a call cycle, which valid SPIR-V forbids, is cut where it closes.
fn io_globals_reached(module: &Module) -> Vec<Vec<Id>> {
    let is_io = |id: Id| {
        module
            .global_index(id)
            .is_some_and(|g| matches!(module.globals[g].class, StorageClass::Input | StorageClass::Output))
    };
    let any_io = module.globals.iter().any(|global| matches!(global.class, StorageClass::Input | StorageClass::Output));
    let calls: Vec<Vec<usize>> = module
        .functions
        .iter()
        .map(|function| {
            let calls = function.insts.iter().filter(|inst| inst.op == Op::FunctionCall);
            calls.filter_map(|inst| inst.id(0).and_then(|id| module.function_index(id))).collect()
        })
        .collect();
    let mut reached: Vec<Option<Vec<Id>>> = vec![None; module.functions.len()];
    let mut on_stack = vec![false; module.functions.len()];
    for start in 0..module.functions.len() {
        if reached[start].is_some() {
            continue;
        }
        // Each frame: a function and how many of its calls have been followed.
        let mut stack = vec![(start, 0)];
        on_stack[start] = true;
        while let Some((f, next)) = stack.last_mut() {
            let f = *f;
            if let Some(&callee) = calls[f].get(*next) {
                *next += 1;
                if reached[callee].is_none() && !on_stack[callee] {
                    on_stack[callee] = true;
                    stack.push((callee, 0));
                }
                continue;
            }
            stack.pop();
            on_stack[f] = false;
            // A plain loop over every operand: a `flat_map` over the instructions cost twice as much.
            // None to find in a module without such variables (compute shaders on buffers).
            let mut ids: Vec<Id> = Vec::new();
            if any_io {
                for inst in &module.functions[f].insts {
                    ids.extend(inst.id_operands().filter(|&id| is_io(id)));
                }
            }
            ids.extend(calls[f].iter().flat_map(|&c| reached[c].iter().flatten().copied()));
            ids.sort_unstable();
            ids.dedup();
            reached[f] = Some(ids);
        }
    }
    reached.into_iter().map(Option::unwrap_or_default).collect()
}

/// What becomes of an execution mode; modes not listed are dropped with a warning.
enum ModeRule {
    /// Expressed by the plan, or what WGSL does anyway.
    Kept,
    Warn(&'static str),
    Reject(&'static str),
}

const CONSERVATIVE_DEPTH: ModeRule =
    ModeRule::Warn("WGSL cannot state how the shader changes depth; the hint is dropped");

static MODES: &[(ExecutionMode, ModeRule)] = &[
    (ExecutionMode::OriginUpperLeft, ModeRule::Kept),
    (ExecutionMode::OriginLowerLeft, ModeRule::Reject("WGSL's fragment position has its origin at the top left")),
    (
        ExecutionMode::PixelCenterInteger,
        ModeRule::Reject("WGSL's fragment position has pixel centres at half-integers"),
    ),
    // WGSL writes frag_depth without declaring it first.
    (ExecutionMode::DepthReplacing, ModeRule::Kept),
    (ExecutionMode::DepthGreater, CONSERVATIVE_DEPTH),
    (ExecutionMode::DepthLess, CONSERVATIVE_DEPTH),
    (ExecutionMode::DepthUnchanged, CONSERVATIVE_DEPTH),
    (
        ExecutionMode::EarlyFragmentTests,
        ModeRule::Warn("WGSL cannot request early fragment tests; they are left to the implementation"),
    ),
    (ExecutionMode::LocalSize, ModeRule::Kept),
    (ExecutionMode::LocalSizeId, ModeRule::Kept),
    (ExecutionMode::LocalSizeHint, ModeRule::Kept),
];

fn check_modes(entry: &EntryPoint, warnings: &mut Vec<Warning>) -> Result<(), Error> {
    let at = || Location { word_offset: Some(entry.offset), opcode: Some(Op::EntryPoint), ..Location::default() };
    for (mode, _) in &entry.modes {
        let message = match MODES.iter().find(|(m, _)| m == mode).map(|(_, rule)| rule) {
            Some(ModeRule::Kept) => continue,
            Some(ModeRule::Warn(why)) => why,
            None => "WGSL has no counterpart; it is dropped",
            Some(ModeRule::Reject(why)) => {
                return Err(Error::unsupported(
                    format!("entry point `{}` has execution mode {mode:?}: {why}", entry.name),
                    at(),
                ));
            }
        };
        warnings.push(Warning::new(format!("entry point `{}`: execution mode {mode:?}: {message}", entry.name), at()));
    }
    Ok(())
}

/// The scalar or vector type WGSL gives a builtin, declaring it if the module lacks it.
fn wgsl_type(module: &mut Module, scalar: Scalar, count: u32) -> Id {
    let component = module.intern_type(match scalar {
        Scalar::U32 => Type::Int { width: 32, signed: false },
        Scalar::F32 => Type::Float { width: 32 },
        Scalar::Bool => Type::Bool,
    });
    if count == 1 { component } else { module.intern_type(Type::Vector { component, count }) }
}

/// A value of the plan before the WGSL types of builtins are declared in the module.
struct Planned {
    value: IoValue,
    /// The builtin's WGSL type, if it has a fixed one.
    wgsl: Option<(Scalar, u32)>,
    output: bool,
}

struct Planner<'a> {
    module: &'a Module,
    entry: &'a EntryPoint,
    options: &'a Options,
    /// The entry point's function.
    root: usize,
    /// The functions the entry point runs, found on first need (only for input and output
    /// blocks and for the point size): many entry points sharing much code do not each walk it.
    functions: OnceCell<Vec<usize>>,
    /// The Input and Output variables those functions use, sorted (`io_globals_reached`).
    used: &'a [Id],
}

/// The interface variable being planned.
#[derive(Clone, Copy)]
struct Var {
    id: Id,
    output: bool,
}

/// A part of an interface variable: the member and element path to it, its name, its type.
struct Part {
    path: Vec<u32>,
    name: String,
    ty: Id,
}

impl Part {
    /// Member or element `index` of this part.
    fn inner(&self, index: u32, name: String, ty: Id) -> Part {
        let mut path = self.path.clone();
        path.push(index);
        Part { path, name, ty }
    }
}

impl<'a> Planner<'a> {
    fn new(
        module: &'a Module,
        entry: &'a EntryPoint,
        options: &'a Options,
        io_reached: &'a [Vec<Id>],
    ) -> Result<Self, Error> {
        let root = module.function_index(entry.function).ok_or_else(|| {
            Error::invalid(
                format!("entry point `{}` names %{} which is not a function", entry.name, entry.function),
                Location::default(),
            )
        })?;
        Ok(Planner { module, entry, options, root, functions: OnceCell::new(), used: &io_reached[root] })
    }

    fn functions(&self) -> &[usize] {
        self.functions.get_or_init(|| self.module.reachable_functions(self.root))
    }

    /// Whether the entry point runs an instruction `wanted` accepts.
    fn runs(&self, wanted: impl Fn(&Inst) -> bool) -> bool {
        self.functions().iter().any(|&f| self.module.functions[f].insts.iter().any(&wanted))
    }

    fn plan(&self, warnings: &mut Vec<Warning>) -> Result<Vec<Planned>, Error> {
        let mut planned = Vec::new();
        for &id in &self.entry.interface {
            let Some(g) = self.module.global_index(id) else { continue };
            let global = &self.module.globals[g];
            let output = match global.class {
                StorageClass::Input => false,
                StorageClass::Output => true,
                _ => continue,
            };
            if !output && !self.is_used(id) {
                continue;
            }
            planned.extend(self.variable(Var { id, output }, global.pointee, warnings)?);
        }
        // With dual-source blending WGSL wants both outputs at location 0 to name their source;
        // SPIR-V's Index defaults to 0.
        let dual_source =
            planned.iter().any(|p| matches!(p.value.binding, IoBinding::Location { blend_src: Some(_), .. }));
        for p in planned.iter_mut().filter(|p| p.output && dual_source) {
            if let IoBinding::Location { location: 0, blend_src: blend_src @ None, .. } = &mut p.value.binding {
                *blend_src = Some(0);
            }
        }
        Ok(planned)
    }

    fn is_used(&self, global: Id) -> bool {
        self.used.binary_search(&global).is_ok()
    }

    fn location(&self, var: Var) -> Location {
        let offset = self.module.global_index(var.id).map(|g| self.module.globals[g].offset);
        Location { word_offset: offset, result_id: Some(var.id), opcode: Some(Op::Variable), ..Location::default() }
    }

    fn variable(&self, var: Var, pointee: Id, warnings: &mut Vec<Warning>) -> Result<Vec<Planned>, Error> {
        let module = self.module;
        let decorations = module.decorations(var.id);
        if let Some(builtin) = decorations.builtin {
            if !self.is_used(var.id) {
                return Ok(vec![]);
            }
            let whole = Part { path: vec![], name: interface_name(module, var.id, pointee), ty: pointee };
            return Ok(self.builtin(var, builtin, whole, decorations, warnings)?.into_iter().collect());
        }
        if is_builtin_block(module, pointee) {
            return self.builtin_block(var, pointee, warnings);
        }
        // A block may leave the locations to its members.
        let mut next = decorations.location;
        let mut values = Vec::new();
        let whole = Part { path: vec![], name: interface_name(module, var.id, pointee), ty: pointee };
        self.located(var, whole, decorations, &mut next, &mut values)?;
        Ok(values)
    }

    /// A struct of builtins (gl_PerVertex): only the members the shader uses.
    fn builtin_block(&self, var: Var, block: Id, warnings: &mut Vec<Warning>) -> Result<Vec<Planned>, Error> {
        let module = self.module;
        let used = self.used_members(var.id);
        let mut values = Vec::new();
        let count = match module.ty(block)? {
            Type::Struct { members } => members.len() as u32,
            _ => 0,
        };
        for i in 0..count {
            if used.as_ref().is_some_and(|set| !set.contains(&i)) {
                continue;
            }
            let decorations = module.member_decorations(block, i);
            let ty = match module.ty(block)? {
                Type::Struct { members } => members[i as usize],
                _ => block,
            };
            let Some(builtin) = decorations.builtin else {
                return Err(Error::unsupported(
                    "an interface block mixing builtins and locations (WGSL keeps them apart)",
                    self.location(var),
                ));
            };
            let name = module.member_names.get(&(block, i)).filter(|n| !n.is_empty()).cloned();
            let name =
                name.or(builtin_row(builtin).map(|row| row.name.to_string())).unwrap_or_else(|| format!("{builtin:?}"));
            let member = Part { path: vec![i], name, ty };
            values.extend(self.builtin(var, builtin, member, decorations, warnings)?);
        }
        Ok(values)
    }

    fn builtin(
        &self,
        var: Var,
        builtin: BuiltIn,
        part: Part,
        decorations: &Decorations,
        warnings: &mut Vec<Warning>,
    ) -> Result<Option<Planned>, Error> {
        let module = self.module;
        let Part { mut path, name, mut ty } = part;
        let usage = self.usage(var.output);
        if builtin == BuiltIn::PointSize {
            if self.point_size_is_one(var.id, &path) {
                return Ok(None);
            }
            if self.options.ignore_point_size {
                let message = format!(
                    "entry point `{}`: gl_PointSize is written with values other than 1.0; WGSL draws points of size 1",
                    self.entry.name
                );
                warnings.push(Warning::new(message, self.location(var)));
                return Ok(None);
            }
            return Err(Error::unsupported(
                "gl_PointSize is written with a value other than 1.0; WGSL draws points of size 1 only \
                 (--ignore-point-size drops the writes)",
                self.location(var),
            ));
        }
        if let Some(mask) = subgroup_mask(builtin) {
            return self.subgroup_mask(var, mask, Part { path, name, ty }).map(Some);
        }
        if let Some(member) = draw_parameters::member(builtin) {
            return self.draw_parameter(var, builtin, member, Part { path, name, ty }).map(Some);
        }
        let row = builtin_row(builtin).ok_or_else(|| {
            Error::unsupported(
                format!("builtin {builtin:?} ({}) has no WGSL counterpart", describe(usage)),
                self.location(var),
            )
        })?;
        if !row.uses.contains(&usage) {
            return Err(Error::unsupported(
                format!("builtin {builtin:?} is used as a {}; WGSL's `{}` is not one", describe(usage), row.name),
                self.location(var),
            ));
        }
        match row.ty {
            Some((scalar, count)) => {
                // GLSL's `int gl_SampleMask[1]`: WGSL has the one word.
                if let Type::Array { element, length } = module.ty(ty)?
                    && module.const_u32(*length) == Some(1)
                {
                    path.push(0);
                    ty = *element;
                }
                let shape = module.scalar_of(ty).map(|(s, n)| (module.type_def(s), n));
                let matches = match (scalar, shape) {
                    (Scalar::U32, Some((Some(Type::Int { width: 32, .. }), n))) => n == count,
                    (Scalar::F32, Some((Some(Type::Float { width: 32 }), n))) => n == count,
                    (Scalar::Bool, Some((Some(Type::Bool), n))) => n == count,
                    _ => false,
                };
                if !matches {
                    return Err(Error::unsupported(
                        format!(
                            "builtin {builtin:?} is declared as {}, which WGSL's `{}` cannot hold",
                            describe_type(module, ty),
                            row.name
                        ),
                        self.location(var),
                    ));
                }
            }
            None => {
                let fits = matches!(module.ty(ty)?, Type::Array { element, length }
                    if matches!(module.type_def(*element), Some(Type::Float { width: 32 }))
                        && module.const_u32(*length).is_some_and(|n| (1..=8).contains(&n)));
                if !fits {
                    return Err(Error::unsupported(
                        format!(
                            "builtin {builtin:?} is declared as {}; WGSL's `{}` is an array of 1 to 8 f32",
                            describe_type(module, ty),
                            row.name
                        ),
                        self.location(var),
                    ));
                }
            }
        }
        let invariant = builtin == BuiltIn::Position && (decorations.invariant || module.decorations(var.id).invariant);
        let binding = IoBinding::BuiltIn { name: row.name, enable: row.enable, invariant };
        let source = IoSource::Proxy { global: var.id, path };
        let value = IoValue { source, name, ty, wgsl_ty: ty, binding, direct: false };
        Ok(Some(Planned { value, wgsl: row.ty, output: var.output }))
    }

    /// A subgroup mask input (`gl_SubgroupEqMask`, ...), which the wrapper computes from the
    /// invocation's id in its subgroup.
    fn subgroup_mask(&self, var: Var, mask: SubgroupMask, part: Part) -> Result<Planned, Error> {
        let module = self.module;
        let usage = self.usage(var.output);
        if !matches!(usage, Use::ComputeInput | Use::FragmentInput) {
            return Err(Error::unsupported(
                format!(
                    "subgroup mask builtins as a {}: WGSL has subgroup invocation ids in compute and fragment \
                     shaders only",
                    describe(usage)
                ),
                self.location(var),
            ));
        }
        let four_words = module.scalar_of(part.ty).is_some_and(|(scalar, count)| {
            count == 4 && matches!(module.type_def(scalar), Some(Type::Int { width: 32, .. }))
        });
        if !four_words {
            return Err(Error::unsupported(
                format!(
                    "a subgroup mask declared as {} (a 64-bit mask needs 64-bit integers, which WGSL lacks)",
                    describe_type(module, part.ty)
                ),
                self.location(var),
            ));
        }
        let Part { path, name, ty } = part;
        let binding = IoBinding::Computed(Computed::SubgroupMask(mask));
        let value =
            IoValue { source: IoSource::Proxy { global: var.id, path }, name, ty, wgsl_ty: ty, binding, direct: false };
        Ok(Planned { value, wgsl: None, output: false })
    }

    /// A draw parameter (`BaseVertex`, `BaseInstance`, `DrawIndex`), which WebGPU lacks: read from
    /// the uniform buffer of `--emulate-draw-parameters` (the `draw_parameters` pass).
    fn draw_parameter(&self, var: Var, builtin: BuiltIn, member: u32, part: Part) -> Result<Planned, Error> {
        let module = self.module;
        let Some(buffer) = module.draw_parameters else {
            return Err(Error::unsupported(
                format!(
                    "builtin {builtin:?}: WebGPU has no base vertex, base instance or draw index \
                     (--emulate-draw-parameters reads them from a uniform buffer the application fills)"
                ),
                self.location(var),
            ));
        };
        let integer = module.type_def(part.ty).is_some_and(|t| matches!(t, Type::Int { width: 32, .. }));
        if self.usage(var.output) != Use::VertexInput || !integer {
            return Err(Error::unsupported(
                format!(
                    "builtin {builtin:?} is used as a {}, or is not a 32-bit integer",
                    describe(self.usage(var.output))
                ),
                self.location(var),
            ));
        }
        let Part { path, name, ty } = part;
        let binding = IoBinding::Computed(Computed::BufferMember { buffer, member });
        let value =
            IoValue { source: IoSource::Proxy { global: var.id, path }, name, ty, wgsl_ty: ty, binding, direct: false };
        Ok(Planned { value, wgsl: None, output: false })
    }

    /// A value at consecutive locations from `next`: structs, arrays and matrices take one
    /// location per scalar or vector inside them.
    fn located(
        &self,
        var: Var,
        part: Part,
        decorations: &Decorations,
        next: &mut Option<u32>,
        values: &mut Vec<Planned>,
    ) -> Result<(), Error> {
        let module = self.module;
        let (name, ty) = (&part.name, part.ty);
        match module.ty(ty)? {
            Type::Array { element, length } => {
                let count = module.const_u32(*length).unwrap_or(0);
                if count as usize + values.len() > MAX_LOCATED_VALUES {
                    return Err(Error::unsupported(
                        format!(
                            "`{name}` is an array of {count} interface values, more than the \
                             {MAX_LOCATED_VALUES} locations any WebGPU device passes between stages"
                        ),
                        self.location(var),
                    ));
                }
                for i in 0..count {
                    self.located(var, part.inner(i, format!("{name}_{i}"), *element), decorations, next, values)?;
                }
            }
            Type::Matrix { column, columns } => {
                for i in 0..*columns {
                    self.located(var, part.inner(i, format!("{name}_{i}"), *column), decorations, next, values)?;
                }
            }
            Type::Struct { members } => {
                for (i, &member) in members.iter().enumerate() {
                    let i = i as u32;
                    let inner = module.member_decorations(ty, i);
                    if inner.builtin.is_some() {
                        return Err(Error::unsupported(
                            "an interface block mixing builtins and locations (WGSL keeps them apart)",
                            self.location(var),
                        ));
                    }
                    if inner.location.is_some() {
                        *next = inner.location;
                    }
                    let member_name = module.member_names.get(&(ty, i)).filter(|n| !n.is_empty()).cloned();
                    let member_name = format!("{name}_{}", member_name.unwrap_or_else(|| i.to_string()));
                    let member = part.inner(i, member_name, member);
                    self.located(var, member, &merged(decorations, inner), next, values)?;
                }
            }
            Type::Bool | Type::Int { .. } | Type::Float { .. } | Type::Vector { .. } => {
                let location = next.ok_or_else(|| {
                    Error::invalid(
                        format!("interface value `{name}` has neither Location nor BuiltIn"),
                        self.location(var),
                    )
                })?;
                let binding = self.location_binding(location, ty, decorations, var.output);
                *next = Some(location + 1);
                let Part { path, name, ty } = part;
                let source = IoSource::Proxy { global: var.id, path };
                let value = IoValue { source, name, ty, wgsl_ty: ty, binding, direct: false };
                values.push(Planned { value, wgsl: None, output: var.output });
            }
            _ => {
                return Err(Error::unsupported(
                    format!("interface variable `{name}` has a type WGSL cannot pass between stages"),
                    self.location(var),
                ));
            }
        }
        Ok(())
    }

    fn location_binding(&self, location: u32, ty: Id, decorations: &Decorations, output: bool) -> IoBinding {
        let usage = self.usage(output);
        // Interpolation only exists between the vertex and fragment stages.
        let varying = matches!(usage, Use::VertexOutput | Use::FragmentInput);
        let integer = self
            .module
            .scalar_of(ty)
            .is_some_and(|(scalar, _)| matches!(self.module.type_def(scalar), Some(Type::Int { .. })));
        let interpolation = if varying { interpolation(decorations, integer) } else { None };
        let blend_src = if usage == Use::FragmentOutput { decorations.index } else { None };
        // Kept only where values share the location (`locations::pack`).
        IoBinding::Location { location, interpolation, blend_src, component: decorations.component }
    }

    fn usage(&self, output: bool) -> Use {
        match (self.entry.model, output) {
            (ExecutionModel::Vertex, false) => Use::VertexInput,
            (ExecutionModel::Vertex, true) => Use::VertexOutput,
            (ExecutionModel::Fragment, false) => Use::FragmentInput,
            (ExecutionModel::Fragment, true) => Use::FragmentOutput,
            _ => Use::ComputeInput,
        }
    }

    /// The member indices that access chains into `var` select; `None` if the whole variable is
    /// used.
    fn used_members(&self, var: Id) -> Option<BTreeSet<u32>> {
        let mut members = BTreeSet::new();
        for inst in self.functions().iter().flat_map(|&f| &self.module.functions[f].insts) {
            let chain = matches!(inst.op, Op::AccessChain | Op::InBoundsAccessChain) && inst.id(0) == Some(var);
            if chain {
                members.insert(inst.id(1).and_then(|i| self.module.const_u32(i))?);
            } else if inst.id_operands().any(|id| id == var) {
                return None;
            }
        }
        Some(members)
    }

    /// Whether every store that reaches member `path` of `var` writes the constant 1.0.
    fn point_size_is_one(&self, var: Id, path: &[u32]) -> bool {
        let module = self.module;
        for f in self.functions() {
            let function = &module.functions[*f];
            for inst in function.insts.iter().filter(|i| matches!(i.op, Op::Store | Op::CopyMemory)) {
                let Some(pointer) = inst.id(0) else { continue };
                let Some(prefix) = self.pointer_path(pointer, var) else { continue };
                if !path.starts_with(&prefix) && !prefix.starts_with(path) {
                    continue;
                }
                let stored = match inst.op {
                    Op::Store => {
                        inst.id(1).and_then(|value| part_of(module, value, &path[prefix.len().min(path.len())..]))
                    }
                    _ => None,
                };
                let one = stored
                    .and_then(|v| module.constant(v))
                    .is_some_and(|c| c.value == ConstValue::Scalar(u64::from(1.0f32.to_bits())));
                if !one {
                    return false;
                }
            }
        }
        true
    }

    /// The member path of a pointer into `var`, through access chains and copies; `None` for a
    /// pointer elsewhere. Struct members are always selected by constants; a dynamic index (into
    /// an array) is `u32::MAX`, which matches no member.
    fn pointer_path(&self, pointer: Id, var: Id) -> Option<Vec<u32>> {
        let mut steps = Vec::new();
        let mut at = pointer;
        // Bounded: a malformed module could make the chain cyclic.
        for _ in 0..256 {
            if at == var {
                steps.reverse();
                return Some(steps);
            }
            let inst = self.module.value_inst(at)?;
            match inst.op {
                Op::CopyObject => {}
                Op::AccessChain | Op::InBoundsAccessChain => {
                    let indices = (1..inst.operands.len()).rev();
                    steps
                        .extend(indices.map(|i| inst.id(i).and_then(|c| self.module.const_u32(c)).unwrap_or(u32::MAX)));
                }
                _ => return None,
            }
            at = inst.id(0)?;
        }
        None
    }
}

/// The part of a composite value at `path`, following constants and OpCompositeConstruct.
fn part_of(module: &Module, value: Id, path: &[u32]) -> Option<Id> {
    let Some((&first, rest)) = path.split_first() else { return Some(value) };
    let part = match module.def(value) {
        Def::Constant(c) => match &c.value {
            ConstValue::Composite(parts) => *parts.get(first as usize)?,
            _ => return None,
        },
        Def::Value { .. } => {
            let inst = module.value_inst(value)?;
            if inst.op != Op::CompositeConstruct {
                return None;
            }
            inst.id(first as usize)?
        }
        _ => return None,
    };
    part_of(module, part, rest)
}

/// The input that sets the private variable holding the invocation's id in its subgroup, for the
/// subgroup operations the translation computes from it; the variable is made on first need.
fn subgroup_invocation_id(module: &mut Module, entry: &EntryPoint) -> Result<IoValue, Error> {
    if !matches!(entry.model, ExecutionModel::GLCompute | ExecutionModel::Fragment) {
        return Err(Error::unsupported(
            format!(
                "entry point `{}` runs subgroup operations WGSL computes from the invocation's id in its subgroup, \
                 which WGSL has in compute and fragment shaders only",
                entry.name
            ),
            Location { word_offset: Some(entry.offset), opcode: Some(Op::EntryPoint), ..Location::default() },
        ));
    }
    let ty = module.intern_type(Type::Int { width: 32, signed: false });
    let global = match module.subgroup_invocation_id {
        Some(global) => global,
        None => {
            let global = module.add_global(StorageClass::Private, ty, entry.offset);
            module.names.insert(global, "subgroup_invocation_id".into());
            module.subgroup_invocation_id = Some(global);
            global
        }
    };
    let binding = IoBinding::BuiltIn { name: "subgroup_invocation_id", enable: Some("subgroups"), invariant: false };
    let source = IoSource::Proxy { global, path: Vec::new() };
    Ok(IoValue { source, name: "subgroup_invocation_id".into(), ty, wgsl_ty: ty, binding, direct: false })
}

/// The subgroup mask a builtin is, if it is one.
fn subgroup_mask(builtin: BuiltIn) -> Option<SubgroupMask> {
    Some(match builtin {
        BuiltIn::SubgroupEqMask => SubgroupMask::Eq,
        BuiltIn::SubgroupGeMask => SubgroupMask::Ge,
        BuiltIn::SubgroupGtMask => SubgroupMask::Gt,
        BuiltIn::SubgroupLeMask => SubgroupMask::Le,
        BuiltIn::SubgroupLtMask => SubgroupMask::Lt,
        _ => return None,
    })
}

/// The name of an interface variable: its OpName, else what it holds (`vertex_index`, a block's
/// type name, `per_vertex`, `in_location_0`).
fn interface_name(module: &Module, id: Id, pointee: Id) -> String {
    if let Some(name) = module.name(id) {
        return name.to_string();
    }
    let decorations = module.decorations(id);
    if let Some(row) = decorations.builtin.and_then(builtin_row) {
        return row.name.to_string();
    }
    let type_name = module.name(pointee).and_then(|name| {
        let mut chars = name.chars();
        chars.next().map(|first| first.to_ascii_lowercase().to_string() + chars.as_str())
    });
    let builtin_block = is_builtin_block(module, pointee);
    let input = module.global_index(id).is_some_and(|g| module.globals[g].class == StorageClass::Input);
    let direction = if input { "in" } else { "out" };
    type_name.unwrap_or_else(|| match decorations.location {
        _ if builtin_block => "per_vertex".to_string(),
        Some(location) => format!("{direction}_location_{location}"),
        None => format!("{direction}_{id}"),
    })
}

/// Whether `ty` is a struct of builtins (gl_PerVertex).
fn is_builtin_block(module: &Module, ty: Id) -> bool {
    matches!(module.type_def(ty), Some(Type::Struct { members })
        if (0..members.len() as u32).any(|i| module.member_decorations(ty, i).builtin.is_some()))
}

/// Interpolation decorations of a block member on top of the block's.
fn merged(outer: &Decorations, inner: &Decorations) -> Decorations {
    let mut merged = outer.clone();
    merged.location = inner.location.or(outer.location);
    merged.component = inner.component.or(outer.component);
    merged.index = inner.index.or(outer.index);
    merged.flat |= inner.flat;
    merged.no_perspective |= inner.no_perspective;
    merged.centroid |= inner.centroid;
    merged.sample |= inner.sample;
    merged
}

/// A SPIR-V type in WGSL-like words, for messages.
fn describe_type(module: &Module, ty: Id) -> String {
    match module.type_def(ty) {
        Some(Type::Bool) => "bool".into(),
        Some(Type::Int { width, signed }) => format!("{}{width}", if *signed { 'i' } else { 'u' }),
        Some(Type::Float { width }) => format!("f{width}"),
        Some(Type::Vector { component, count }) => format!("vec{count}<{}>", describe_type(module, *component)),
        Some(Type::Array { element, length }) => {
            let length = module.const_u32(*length).map(|n| n.to_string()).unwrap_or_else(|| "?".into());
            format!("array<{}, {length}>", describe_type(module, *element))
        }
        Some(other) => format!("{other:?}"),
        _ => format!("%{ty}"),
    }
}

fn describe(usage: Use) -> &'static str {
    match usage {
        Use::VertexInput => "vertex shader input",
        Use::VertexOutput => "vertex shader output",
        Use::FragmentInput => "fragment shader input",
        Use::FragmentOutput => "fragment shader output",
        Use::ComputeInput => "compute shader input",
    }
}

/// The `@interpolate` arguments for a varying, `None` for WGSL's default (perspective, center).
fn interpolation(decorations: &Decorations, integer: bool) -> Option<String> {
    // WGSL requires integers to be flat; SPIR-V requires Flat on integer fragment inputs anyway.
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

/// The constant decorated as the `WorkgroupSize` builtin, which overrides every compute entry
/// point's size. Only one may carry the decoration; the smallest id keeps this deterministic.
fn workgroup_size_constant(module: &Module) -> Option<Id> {
    module.decorations.iter().filter(|(_, d)| d.builtin == Some(BuiltIn::WorkgroupSize)).map(|(id, _)| *id).min()
}

/// `@workgroup_size` of a compute shader: the constant `decorated` with `BuiltIn WorkgroupSize`
/// wins over the execution modes.
fn workgroup_size(
    module: &Module,
    entry: &EntryPoint,
    decorated: Option<Id>,
) -> Result<Option<[WorkgroupDimension; 3]>, Error> {
    if entry.model != ExecutionModel::GLCompute {
        return Ok(None);
    }
    let location = Location { word_offset: Some(entry.offset), opcode: Some(Op::EntryPoint), ..Location::default() };
    let decorated = decorated.and_then(|id| match module.constant(id).map(|c| &c.value) {
        Some(ConstValue::Composite(parts)) => Some(parts.clone()),
        _ => None,
    });
    let from_modes = || {
        entry.modes.iter().find_map(|(mode, args)| match (mode, args.as_slice()) {
            (ExecutionMode::LocalSize, [x, y, z]) => Some(Err([*x, *y, *z])),
            (ExecutionMode::LocalSizeId, [x, y, z]) => Some(Ok(vec![*x, *y, *z])),
            _ => None,
        })
    };
    let not_three = || Error::invalid("the workgroup size is not three integer constants", location.clone());
    let size = match decorated.map(Ok).or_else(from_modes) {
        Some(Err(literal)) => literal.map(WorkgroupDimension::Literal),
        Some(Ok(ids)) => {
            let mut size = Vec::with_capacity(3);
            for id in ids {
                // A specialization constant stays one: WGSL's `override` keeps it settable.
                let specialized = module
                    .constant(id)
                    .is_some_and(|c| c.spec_id.is_some() || matches!(c.value, ConstValue::Op { .. }));
                size.push(match module.const_u32(id) {
                    _ if specialized => WorkgroupDimension::Constant(id),
                    Some(d) => WorkgroupDimension::Literal(d),
                    None => return Err(not_three()),
                });
            }
            <[WorkgroupDimension; 3]>::try_from(size).map_err(|_| not_three())?
        }
        None => {
            return Err(Error::invalid(
                format!("compute entry point `{}` has no workgroup size (LocalSize)", entry.name),
                location,
            ));
        }
    };
    // WebGPU's largest per-dimension limit; zero is invalid SPIR-V.
    for dimension in size {
        if let WorkgroupDimension::Literal(d) = dimension
            && (d == 0 || d > 16384)
        {
            return Err(Error::unsupported(
                format!("workgroup size {d} is outside what WebGPU allows (1 to 16384 per dimension)"),
                location,
            ));
        }
    }
    Ok(Some(size))
}

#[path = "io_wrapper_locations.rs"]
mod locations;

#[cfg(test)]
#[path = "io_wrapper_tests.rs"]
mod tests;
