//! Textures and samplers (seed 001, "Translating textures and samplers"). In WGSL the type of a
//! texture or sampler follows from how it is used, there are no combined image samplers, and
//! handles are passed to functions by value.
//!
//! Before: handles are UniformConstant variables of image, sampler or sampled-image type; helper
//! functions take pointers to them (glslang) or their values.
//! After:
//! - a combined image sampler, variable or parameter, holds only its image, and a new sampler
//!   variable or parameter goes with it (`Module::companion_samplers`); new variables are listed
//!   in `Module::new_bindings` for the `bindings` pass to bind;
//! - handle parameters are values, not pointers;
//! - handles that flow into each other (a variable and every parameter it is passed to) form a
//!   group, and each group has its own type stating its WGSL type: an image used with a depth
//!   reference has `depth: 1` (Vulkan ignores the declared Depth operand), a storage image has
//!   `sampled: 2` and an access qualifier (from NonReadable/NonWritable, else from its uses), a
//!   sampler used with a depth reference is `Sampler { comparison: true }`. A sampler variable
//!   used both ways keeps the plain sampler and gains a comparison twin
//!   (`Module::comparison_samplers`).
//!
//! Image instructions are unchanged: the emitter traces their operands with
//! `Module::handle_roots`, as this pass does.

use std::collections::HashMap;

use spirv::{AccessQualifier, Op, StorageClass};

use crate::Options;
use crate::error::{Error, Location};
use crate::id_hash::IdSet;
use crate::spirv::{
    BindingOrigin, Def, Global, Id, ImageType, Inst, MAX_HANDLE_STEPS, Module, NewBinding, Param, Type,
};

pub fn run(module: &mut Module, _options: &Options) -> Result<(), Error> {
    let functions = module.entry_functions();
    // Whether each global is read matters only for those refused or split below: most modules
    // have none, and are spared the walk over every operand that finds out.
    let asked = module.globals.iter().any(|global| refusal(module, global).is_some() || is_combined(module, global));
    let used = match asked {
        true => module.globals_used_in(&functions),
        false => vec![false; module.globals.len()],
    };
    let found = Found::walk(module, &functions);
    check_variables(module, &found.variables, &used)?;
    split_combined_globals(module, &used);
    for &f in &functions {
        params_by_value(module, f);
    }
    let groups = Groups::build(module, &functions, &found.calls)?;
    let uses = record_uses(module, &found.images, &groups)?;
    retype(module, &groups, &uses)
}

/// The instructions this pass reads, as (function, arena index) in the order met: found in one
/// walk over every instruction, not one walk for each kind.
#[derive(Default)]
struct Found {
    variables: Vec<(usize, usize)>,
    calls: Vec<(usize, usize)>,
    /// Image instructions that use a handle (`use_of`) or that WGSL lacks.
    images: Vec<(usize, usize)>,
}

impl Found {
    fn walk(module: &Module, functions: &[usize]) -> Found {
        let mut found = Found::default();
        for &f in functions {
            for (index, inst) in module.functions[f].insts.iter().enumerate() {
                let list = match inst.op {
                    Op::Variable => &mut found.variables,
                    Op::FunctionCall => &mut found.calls,
                    op if use_of(op).is_some() || unsupported_image_op(op).is_some() => &mut found.images,
                    _ => continue,
                };
                list.push((f, index));
            }
        }
        found
    }
}

fn is_handle_array(module: &Module, ty: Id) -> bool {
    match module.type_def(ty) {
        Some(Type::Array { element, .. } | Type::RuntimeArray { element }) => {
            module.is_handle(*element) || is_handle_array(module, *element)
        }
        _ => false,
    }
}

/// Handles WGSL cannot hold: arrays of them, and handles in function or private variables; and
/// arrays of buffers, which are binding arrays too. `variables` are the function variables.
fn check_variables(module: &Module, variables: &[(usize, usize)], used: &[bool]) -> Result<(), Error> {
    for (global, _) in module.globals.iter().zip(used).filter(|(_, used)| **used) {
        if let Some(message) = refusal(module, global) {
            return Err(Error::unsupported(message, module.variable_location(global.id)));
        }
    }
    for &(f, index) in variables {
        let inst = &module.functions[f].insts[index];
        let pointee = match inst.ty().and_then(|ty| module.type_def(ty)) {
            Some(Type::Pointer { pointee, .. }) => *pointee,
            _ => continue,
        };
        if module.is_handle(pointee) || is_handle_array(module, pointee) {
            return Err(Error::unsupported(
                "a function variable holding a texture or sampler: WGSL handles cannot be stored \
                 (spirv-opt --legalize-hlsl removes such variables)",
                module.location_of(f, inst),
            ));
        }
    }
    Ok(())
}

/// Why WGSL cannot have global `global` if a translated function uses it.
fn refusal(module: &Module, global: &Global) -> Option<String> {
    if is_handle_array(module, global.pointee) {
        return Some("an array of textures or samplers needs binding arrays, which WebGPU does not have".into());
    }
    let buffer = matches!(global.class, StorageClass::Uniform | StorageClass::StorageBuffer);
    if buffer && matches!(module.type_def(global.pointee), Some(Type::Array { .. } | Type::RuntimeArray { .. })) {
        return Some("an array of uniform or storage buffers needs binding arrays, which WebGPU does not have".into());
    }
    if module.is_handle(global.pointee) && global.class != StorageClass::UniformConstant {
        return Some(format!(
            "a {:?} variable holding a texture or sampler: WGSL handles live only in module-scope resource variables",
            global.class
        ));
    }
    None
}

/// Whether global `global` is a combined image sampler, which `split_combined_globals` splits if
/// a translated function uses it.
fn is_combined(module: &Module, global: &Global) -> bool {
    global.class == StorageClass::UniformConstant && sampled_image_of(module, global.pointee).is_some()
}

fn sampler_type(module: &mut Module, comparison: bool) -> Id {
    module.intern_type(Type::Sampler { comparison })
}

fn sampled_image_of(module: &Module, ty: Id) -> Option<Id> {
    match module.type_def(ty) {
        Some(Type::SampledImage { image }) => Some(*image),
        _ => None,
    }
}

/// A sampler global beside global `g` (variable `id`): the sampler half of a combined image
/// sampler, or the comparison twin of a sampler. It gets a binding of its own, recorded here.
fn add_sampler(module: &mut Module, g: usize, id: Id, comparison: bool) -> Id {
    let ty = sampler_type(module, comparison);
    let sampler = add_global(module, g, ty);
    name_companion(module, id, sampler, if comparison { "comparison" } else { "sampler" });
    let origin = if comparison { BindingOrigin::ComparisonSampler } else { BindingOrigin::CombinedImageSampler };
    module.new_bindings.push(NewBinding { variable: sampler, source: id, origin });
    sampler
}

/// The companion's name: the combined handle's name with a suffix, when it has a name.
fn name_companion(module: &mut Module, of: Id, companion: Id, suffix: &str) {
    if let Some(name) = module.name(of) {
        let name = format!("{name}_{suffix}");
        module.names.insert(companion, name);
    }
}

/// A new UniformConstant variable of type `pointee`, declared like `like`.
fn add_global(module: &mut Module, like: usize, pointee: Id) -> Id {
    let offset = module.globals[like].offset;
    module.add_global(StorageClass::UniformConstant, pointee, offset)
}

fn split_combined_globals(module: &mut Module, used: &[bool]) {
    for (g, &used) in used.iter().enumerate() {
        let global = &module.globals[g];
        let (id, pointee) = (global.id, global.pointee);
        let Some(image) = sampled_image_of(module, pointee) else {
            continue;
        };
        if !is_combined(module, global) || !used {
            continue;
        }
        module.globals[g].pointee = image;
        module.globals[g].ty =
            module.intern_type(Type::Pointer { class: StorageClass::UniformConstant, pointee: image });
        let companion = add_sampler(module, g, id, false);
        module.companion_samplers.insert(id, companion);
    }
}

/// Handle parameters become values; a combined one becomes its image followed by a sampler.
fn params_by_value(module: &mut Module, f: usize) {
    let old = std::mem::take(&mut module.functions[f].params);
    let mut params = Vec::with_capacity(old.len());
    for param in old {
        let handle = match module.type_def(param.ty) {
            Some(Type::Pointer { class: StorageClass::UniformConstant, pointee }) if module.is_handle(*pointee) => {
                *pointee
            }
            _ if module.is_handle(param.ty) => param.ty,
            _ => {
                params.push(param);
                continue;
            }
        };
        let ty = sampled_image_of(module, handle).unwrap_or(handle);
        module.defs[param.id as usize] = Def::param(f, ty);
        params.push(Param { id: param.id, ty });
        if ty != handle {
            let sampler = sampler_type(module, false);
            let companion = module.add_def(Def::param(f, sampler));
            name_companion(module, param.id, companion, "sampler");
            module.companion_samplers.insert(param.id, companion);
            params.push(Param { id: companion, ty: sampler });
        }
    }
    module.functions[f].params = params;
}

/// Handle variables and parameters joined into groups by calls (union-find).
struct Groups {
    index: HashMap<Id, usize>,
    ids: Vec<Id>,
    parent: Vec<usize>,
}

impl Groups {
    /// The groups of the handles of `functions`, joined by their `calls`.
    fn build(module: &Module, functions: &[usize], calls: &[(usize, usize)]) -> Result<Groups, Error> {
        let mut groups = Groups { index: HashMap::new(), ids: Vec::new(), parent: Vec::new() };
        for global in &module.globals {
            if global.class == StorageClass::UniformConstant && module.is_handle(global.pointee) {
                groups.add(global.id);
            }
        }
        for &f in functions {
            for param in module.functions[f].params.iter().filter(|p| module.is_handle(p.ty)) {
                groups.add(param.id);
            }
        }
        for &(f, index) in calls {
            groups.join_call(module, f, &module.functions[f].insts[index])?;
        }
        Ok(groups)
    }

    fn add(&mut self, id: Id) {
        self.index.insert(id, self.ids.len());
        self.parent.push(self.ids.len());
        self.ids.push(id);
    }

    fn find(&self, id: Id) -> Option<usize> {
        let mut node = *self.index.get(&id)?;
        while self.parent[node] != node {
            node = self.parent[node];
        }
        Some(node)
    }

    fn union(&mut self, a: Id, b: Id) {
        if let (Some(a), Some(b)) = (self.find(a), self.find(b)) {
            // The smaller index stays the representative, so groups are ordered by declaration.
            let (keep, other) = (a.min(b), a.max(b));
            self.parent[other] = keep;
        }
    }

    /// Joins each handle argument with the parameter it is passed to.
    fn join_call(&mut self, module: &Module, f: usize, inst: &Inst) -> Result<(), Error> {
        let Some(callee) = inst.id(0).and_then(|id| module.function_index(id)) else {
            return Ok(());
        };
        let params = &module.functions[callee].params;
        let mut next = 0;
        for position in 1..inst.operands.len() {
            let Some(param) = params.get(next) else { break };
            next += 1;
            let companion = module.companion_samplers.get(&param.id).copied();
            if companion.is_some() {
                next += 1;
            }
            if !module.is_handle(param.ty) {
                continue;
            }
            let arg = inst.id(position).unwrap_or(0);
            let roots = module.handle_roots(arg).ok_or_else(|| untraceable(module, f, inst))?;
            self.union(param.id, roots.image);
            if let Some(companion) = companion {
                let sampler = roots.sampler.ok_or_else(|| untraceable(module, f, inst))?;
                self.union(companion, sampler);
            }
        }
        Ok(())
    }

    /// Group members by group, each group's members in declaration order, groups by their first.
    fn members(&self) -> Vec<Vec<Id>> {
        let mut by_root: Vec<Vec<Id>> = vec![Vec::new(); self.ids.len()];
        for (node, &id) in self.ids.iter().enumerate() {
            let mut root = node;
            while self.parent[root] != root {
                root = self.parent[root];
            }
            by_root[root].push(id);
        }
        by_root.into_iter().filter(|members| !members.is_empty()).collect()
    }
}

fn untraceable(module: &Module, f: usize, inst: &Inst) -> Error {
    Error::unsupported(
        format!(
            "cannot trace a texture or sampler operand back to its variable or parameter (it passes \
             through a phi, a select or a function result, which WGSL handles cannot, or through \
             more than {MAX_HANDLE_STEPS} loads and copies)"
        ),
        module.location_of(f, inst),
    )
}

/// How a group of handles is used; each use keeps the first instruction that made it, for errors.
#[derive(Default)]
struct Uses {
    /// Sampled with a depth reference (image) or used for one (sampler).
    depth_reference: Option<Location>,
    /// Sampled or gathered without a depth reference.
    plain: Option<Location>,
    fetch: Option<Location>,
    read: Option<Location>,
    write: Option<Location>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Use {
    DepthReference,
    Plain,
    Fetch,
    Read,
    Write,
}

impl Uses {
    fn note(&mut self, kind: Use, location: &Location) {
        let slot = match kind {
            Use::DepthReference => &mut self.depth_reference,
            Use::Plain => &mut self.plain,
            Use::Fetch => &mut self.fetch,
            Use::Read => &mut self.read,
            Use::Write => &mut self.write,
        };
        if slot.is_none() {
            *slot = Some(location.clone());
        }
    }
}

/// What an image instruction does with its image (and sampler); `None` for other instructions
/// and for queries, which any texture allows.
fn use_of(op: Op) -> Option<Use> {
    Some(match op {
        Op::ImageSampleDrefImplicitLod
        | Op::ImageSampleDrefExplicitLod
        | Op::ImageSampleProjDrefImplicitLod
        | Op::ImageSampleProjDrefExplicitLod
        | Op::ImageDrefGather => Use::DepthReference,
        Op::ImageSampleImplicitLod
        | Op::ImageSampleExplicitLod
        | Op::ImageSampleProjImplicitLod
        | Op::ImageSampleProjExplicitLod
        | Op::ImageGather
        | Op::ImageQueryLod => Use::Plain,
        Op::ImageFetch => Use::Fetch,
        Op::ImageRead => Use::Read,
        Op::ImageWrite => Use::Write,
        _ => return None,
    })
}

/// Image instructions WGSL has nothing for.
fn unsupported_image_op(op: Op) -> Option<&'static str> {
    Some(match op {
        Op::ImageTexelPointer => "atomic operations on storage images: WGSL has no texture atomics",
        Op::ImageSparseSampleImplicitLod
        | Op::ImageSparseSampleExplicitLod
        | Op::ImageSparseSampleDrefImplicitLod
        | Op::ImageSparseSampleDrefExplicitLod
        | Op::ImageSparseSampleProjImplicitLod
        | Op::ImageSparseSampleProjExplicitLod
        | Op::ImageSparseSampleProjDrefImplicitLod
        | Op::ImageSparseSampleProjDrefExplicitLod
        | Op::ImageSparseFetch
        | Op::ImageSparseGather
        | Op::ImageSparseDrefGather
        | Op::ImageSparseRead
        | Op::ImageSparseTexelsResident => "sparse image access (residency codes): WGSL has no sparse textures",
        _ => return None,
    })
}

fn record_uses(module: &Module, images: &[(usize, usize)], groups: &Groups) -> Result<HashMap<usize, Uses>, Error> {
    let mut uses: HashMap<usize, Uses> = HashMap::new();
    for &(f, index) in images {
        let inst = &module.functions[f].insts[index];
        if let Some(reason) = unsupported_image_op(inst.op) {
            return Err(Error::unsupported(reason, module.location_of(f, inst)));
        }
        let Some(kind) = use_of(inst.op) else {
            continue;
        };
        let location = module.location_of(f, inst);
        let roots = inst.id(0).and_then(|id| module.handle_roots(id)).ok_or_else(|| untraceable(module, f, inst))?;
        let image = groups.find(roots.image).ok_or_else(|| untraceable(module, f, inst))?;
        uses.entry(image).or_default().note(kind, &location);
        if matches!(kind, Use::DepthReference | Use::Plain) {
            let sampler = roots.sampler.and_then(|s| groups.find(s)).ok_or_else(|| untraceable(module, f, inst))?;
            uses.entry(sampler).or_default().note(kind, &location);
        }
    }
    Ok(uses)
}

fn describe(module: &Module, id: Id) -> String {
    module.name(id).map(|name| format!("`{name}`")).unwrap_or_else(|| format!("%{id}"))
}

/// "sampled with a depth reference (at word 0x.., %5 = OpImageSampleDrefImplicitLod)".
fn both_uses(what: &str, first: (&str, &Location), second: (&str, &Location)) -> String {
    format!(
        "{what} is {} ({}) and {} ({}), which WGSL cannot express with one binding",
        first.0, first.1, second.0, second.1
    )
}

fn retype(module: &mut Module, groups: &Groups, uses: &HashMap<usize, Uses>) -> Result<(), Error> {
    let none = Uses::default();
    let companions: IdSet<Id> = module.companion_samplers.values().copied().collect();
    let mut unused_companions = IdSet::default();
    for members in groups.members() {
        let first = members[0];
        let group_uses = groups.find(first).and_then(|g| uses.get(&g)).unwrap_or(&none);
        let declared = handle_type(module, first);
        let ty = match module.type_def(declared).cloned() {
            Some(Type::Image(image)) => {
                let image = texture_type(module, &members, image, group_uses)?;
                module.intern_type(Type::Image(image))
            }
            Some(Type::Sampler { .. }) if group_uses.depth_reference.is_none() && group_uses.plain.is_none() => {
                // Dropped together at the end: one pass over the companions, not one per group.
                if members.iter().all(|id| companions.contains(id)) {
                    unused_companions.extend(members.iter().copied());
                }
                sampler_type(module, false)
            }
            Some(Type::Sampler { .. }) => match (&group_uses.depth_reference, &group_uses.plain) {
                (Some(_), None) => sampler_type(module, true),
                (Some(compare), Some(plain)) => {
                    add_comparison_twins(module, &members, (plain, compare))?;
                    sampler_type(module, false)
                }
                _ => sampler_type(module, false),
            },
            _ => continue,
        };
        for &id in &members {
            set_handle_type(module, id, ty);
        }
    }
    drop_unused_companions(module, &unused_companions);
    Ok(())
}

/// The sampler split from a combined image sampler that is only fetched from or queried is not
/// needed: it gets no variable and no binding, and where helper functions take the combined image
/// sampler, no parameter (their calls pass what `companion_samplers` lists).
fn drop_unused_companions(module: &mut Module, unused: &IdSet<Id>) {
    if unused.is_empty() {
        return;
    }
    module.companion_samplers.retain(|_, companion| !unused.contains(companion));
    module.new_bindings.retain(|new| !unused.contains(&new.variable));
    for function in &mut module.functions {
        function.params.retain(|param| !unused.contains(&param.id));
    }
}

/// The handle type of a variable (its store type) or parameter.
fn handle_type(module: &Module, id: Id) -> Id {
    match module.def(id) {
        Def::Global(g) => module.globals[*g].pointee,
        Def::Param { ty, .. } => *ty,
        _ => 0,
    }
}

fn set_handle_type(module: &mut Module, id: Id, ty: Id) {
    match module.def(id).clone() {
        Def::Global(g) => {
            module.globals[g].pointee = ty;
            module.globals[g].ty =
                module.intern_type(Type::Pointer { class: StorageClass::UniformConstant, pointee: ty });
        }
        Def::Param { function, .. } => {
            module.defs[id as usize] = Def::Param { function, ty };
            for param in module.functions[function as usize].params.iter_mut().filter(|p| p.id == id) {
                param.ty = ty;
            }
        }
        _ => {}
    }
}

/// The image type that states the group's WGSL texture type.
fn texture_type(module: &Module, members: &[Id], declared: ImageType, uses: &Uses) -> Result<ImageType, Error> {
    let name = describe(module, members[0]);
    let storage_use = uses.read.as_ref().or(uses.write.as_ref());
    let sampled_use = uses.plain.as_ref().or(uses.depth_reference.as_ref()).or(uses.fetch.as_ref());
    let storage = declared.sampled == 2 || storage_use.is_some();
    if let (Some(storage_at), Some(sampled_at)) = (storage_use, sampled_use) {
        let message = both_uses(
            &format!("image {name}"),
            ("read or written as a storage image", storage_at),
            ("sampled or fetched", sampled_at),
        );
        return Err(Error::unsupported(message, module.variable_location(members[0])));
    }
    let mut image = declared;
    image.sampled = if storage { 2 } else { 1 };
    image.depth = u32::from(uses.depth_reference.is_some() && !storage);
    if image.depth == 1 && !matches!(module.type_def(image.sampled_type), Some(Type::Float { .. })) {
        return Err(Error::unsupported(
            format!("image {name} has an integer sampled type but is sampled with a depth reference"),
            module.variable_location(members[0]),
        ));
    }
    if storage && image.access.is_none() {
        let decorated = |check: fn(&crate::spirv::Decorations) -> bool| {
            members.iter().any(|&id| module.global_index(id).is_some() && check(module.decorations(id)))
        };
        image.access = Some(if decorated(|d| d.non_readable) {
            AccessQualifier::WriteOnly
        } else if decorated(|d| d.non_writable) {
            AccessQualifier::ReadOnly
        } else {
            // One only queried is read-only, which every stage can use.
            match (uses.read.is_some(), uses.write.is_some()) {
                (_, false) => AccessQualifier::ReadOnly,
                (false, true) => AccessQualifier::WriteOnly,
                (true, true) => AccessQualifier::ReadWrite,
            }
        });
    }
    Ok(image)
}

/// A sampler variable used both with and without a depth reference keeps its plain sampler and
/// gains a comparison twin; a parameter cannot be split that way.
fn add_comparison_twins(
    module: &mut Module,
    members: &[Id],
    (plain, compare): (&Location, &Location),
) -> Result<(), Error> {
    if members.len() > 1 || module.global_index(members[0]).is_none() {
        let what = format!(
            "sampler {} (which is passed to a function parameter, so it cannot be split in two)",
            describe(module, members[0])
        );
        let message = both_uses(&what, ("used without a depth reference", plain), ("used with one", compare));
        return Err(Error::unsupported(message, module.variable_location(members[0])));
    }
    let id = members[0];
    let g = module.global_index(id).unwrap_or_default();
    let twin = add_sampler(module, g, id, true);
    module.comparison_samplers.insert(id, twin);
    Ok(())
}
