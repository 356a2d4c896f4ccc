//! Bindings for resources the SPIR-V did not bind: the sampler split from a combined image
//! sampler and the comparison twin of a sampler (both made by `handles`), and push constants;
//! and for samplers that share an image's binding, which WGSL does not allow.
//!
//! Before: `Module::new_bindings` lists the samplers `handles` made; push-constant blocks are
//! `PushConstant` variables. After: push-constant blocks are `Uniform` variables (uniform
//! buffers) and are listed too, so are samplers moved off an image's binding; every listed
//! variable has a DescriptorSet and Binding; no entry point uses two resources at one binding.
//!
//! Other resources one entry point uses at one binding (aliases of one descriptor) are listed
//! too, all but the first declared.
//!
//! The rule (docs/bindings.md): a new sampler goes in its source's group (DescriptorSet), a push
//! constant block in group 0; each takes one past the highest binding used in that group by any
//! resource variable of the module, in the order they are listed. `Options::sampler_bindings`
//! (keyed by the source's set and binding) and `Options::push_constant_binding` override it.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use spirv::StorageClass;

use crate::Options;
use crate::binding_map::ResourceBinding;
use crate::error::{Error, Location, Warning};
use crate::spirv::{BindingOrigin, Id, Module, NewBinding, Type};

pub fn run(module: &mut Module, options: &Options) -> Result<(), Error> {
    push_constants_to_uniforms(module);
    separate_shared_bindings(module);
    let mut taken: BTreeSet<ResourceBinding> = module
        .globals
        .iter()
        .filter_map(|g| {
            let d = module.decorations(g.id);
            Some(ResourceBinding { group: d.set?, binding: d.binding? })
        })
        .collect();
    let mut overridden = BTreeSet::new();
    for new in module.new_bindings.clone() {
        let chosen = match chosen_binding(module, options, &new) {
            Some((key, binding)) => {
                overridden.insert(key);
                binding
            }
            None => next_free(&taken, default_group(module, &new)),
        };
        if !taken.insert(chosen) {
            return Err(Error::unsupported(
                format!("{} was asked to go at {chosen}, which another resource already uses", describe(module, &new)),
                Location::default(),
            ));
        }
        let decorations = module.decorations.entry(new.variable).or_default();
        decorations.set = Some(chosen.group);
        decorations.binding = Some(chosen.binding);
        // The SPIR-V variable the warning is about: the one moved, or the one a new variable came from.
        let about = if new.origin == BindingOrigin::SharedWithImage { new.variable } else { new.source };
        let message = format!("{} is bound at {chosen} (see --binding-map)", describe(module, &new));
        module.warnings.push(Warning::new(message, module.variable_location(about)));
    }
    if let Some((source, _)) = options.sampler_bindings.iter().find(|(source, _)| !overridden.contains(source)) {
        return Err(Error::unsupported(
            format!(
                "--sampler-binding names set {} binding {}, but no combined image sampler or sampler used with and \
                 without a depth reference is bound there",
                source.group, source.binding
            ),
            Location::default(),
        ));
    }
    Ok(())
}

/// Push-constant blocks used by the entry points become uniform buffers to bind.
fn push_constants_to_uniforms(module: &mut Module) {
    if !module.globals.iter().any(|g| g.class == StorageClass::PushConstant) {
        return;
    }
    let used = module.globals_used_in(&module.entry_functions());
    for (g, used) in used.into_iter().enumerate() {
        if module.globals[g].class != StorageClass::PushConstant || !used {
            continue;
        }
        let pointee = module.globals[g].pointee;
        module.globals[g].class = StorageClass::Uniform;
        module.globals[g].ty = module.intern_type(Type::Pointer { class: StorageClass::Uniform, pointee });
        let id = module.globals[g].id;
        module.new_bindings.push(NewBinding { variable: id, source: id, origin: BindingOrigin::PushConstant });
    }
}

/// Resource variables one entry point uses at one binding. Vulkan lets a combined image sampler
/// descriptor be read through an image and a sampler variable at the same binding (DXC's
/// `[[vk::combinedImageSampler]]`, and HLSL `register(t0)` with `register(s0)` when no shift
/// separates them): such a sampler is moved to a binding of its own, like the sampler of a
/// combined image sampler. Any other resources sharing a binding alias one descriptor (two views
/// of one buffer, typically): WGSL needs a binding per resource, so all but the first declared
/// move to bindings of their own, where the application binds the same resource again.
fn separate_shared_bindings(module: &mut Module) {
    let mut at: BTreeMap<ResourceBinding, Vec<usize>> = BTreeMap::new();
    for (g, global) in module.globals.iter().enumerate() {
        let d = module.decorations(global.id);
        if let (Some(group), Some(binding)) = (d.set, d.binding) {
            at.entry(ResourceBinding { group, binding }).or_default().push(g);
        }
    }
    // Most modules give every variable a binding of its own: then the walk for the variables the
    // entry points use is not needed.
    at.retain(|_, globals| globals.len() > 1);
    if at.is_empty() {
        return;
    }
    let used = module.globals_used_in(&module.entry_functions());
    for globals in at.values_mut() {
        globals.retain(|&g| used[g]);
    }
    at.retain(|_, globals| globals.len() > 1);
    if at.is_empty() {
        return;
    }
    // Which of those globals each function names itself, found in one walk of the module, so
    // that an entry point's are found by walking its functions, not their instructions: a
    // module may have thousands of entry points, each with a buffer of its own at binding 0.
    let binding_of: HashMap<usize, ResourceBinding> =
        at.iter().flat_map(|(&binding, globals)| globals.iter().map(move |&g| (g, binding))).collect();
    let named: Vec<Vec<usize>> = module
        .functions
        .iter()
        .map(|function| {
            let mut named: Vec<usize> = function
                .insts
                .iter()
                .flat_map(|inst| inst.id_operands())
                .filter_map(|id| module.global_index(id))
                .filter(|g| binding_of.contains_key(g))
                .collect();
            named.sort_unstable();
            named.dedup();
            named
        })
        .collect();
    let kind = |g: usize| module.type_def(module.globals[g].pointee);
    // (moved, staying, origin)
    let mut moved = Vec::new();
    for entry in &module.entry_points {
        let Some(f) = module.function_index(entry.function) else { continue };
        let mut used: BTreeMap<ResourceBinding, Vec<usize>> = BTreeMap::new();
        for function in module.reachable_functions(f) {
            for &g in &named[function] {
                used.entry(binding_of[&g]).or_default().push(g);
            }
        }
        for (_, mut shared) in used {
            shared.sort_unstable();
            shared.dedup();
            if shared.len() < 2 {
                continue;
            }
            let (samplers, others): (Vec<usize>, Vec<usize>) =
                shared.iter().partition(|&&g| matches!(kind(g), Some(Type::Sampler { .. })));
            if matches!(&others[..], [image] if matches!(kind(*image), Some(Type::Image(_)))) {
                moved.extend(samplers.into_iter().map(|g| (g, others[0], BindingOrigin::SharedWithImage)));
            } else {
                moved.extend(shared[1..].iter().map(|&g| (g, shared[0], BindingOrigin::Aliased)));
            }
        }
    }
    moved.sort_unstable_by_key(|&(g, ..)| g);
    moved.dedup_by_key(|(g, ..)| *g);
    for (g, staying, origin) in moved {
        let (variable, source) = (module.globals[g].id, module.globals[staying].id);
        module.new_bindings.push(NewBinding { variable, source, origin });
    }
}

/// The SPIR-V binding of the variable a new resource was made from.
fn source_binding(module: &Module, new: &NewBinding) -> Option<ResourceBinding> {
    let d = module.decorations(new.source);
    Some(ResourceBinding { group: d.set?, binding: d.binding? })
}

/// The binding the options ask for, with the option's key.
fn chosen_binding(module: &Module, options: &Options, new: &NewBinding) -> Option<(ResourceBinding, ResourceBinding)> {
    match new.origin {
        BindingOrigin::PushConstant => return options.push_constant_binding.map(|b| (b, b)),
        BindingOrigin::DrawParameters => return options.draw_parameters_binding.map(|b| (b, b)),
        BindingOrigin::Aliased => return None,
        _ => {}
    }
    let source = source_binding(module, new)?;
    options.sampler_bindings.iter().find(|(key, _)| *key == source).copied()
}

fn default_group(module: &Module, new: &NewBinding) -> u32 {
    match new.origin {
        BindingOrigin::PushConstant | BindingOrigin::DrawParameters => 0,
        _ => module.decorations(new.source).set.unwrap_or(0),
    }
}

/// One past the highest binding used in `group` (found in the ordered set, not by a scan of it:
/// a module may add a binding for each of thousands of samplers).
fn next_free(taken: &BTreeSet<ResourceBinding>, group: u32) -> ResourceBinding {
    let in_group = ResourceBinding { group, binding: 0 }..=ResourceBinding { group, binding: u32::MAX };
    let binding = taken.range(in_group).next_back().map_or(0, |b| b.binding + 1);
    ResourceBinding { group, binding }
}

fn describe(module: &Module, new: &NewBinding) -> String {
    let name = |id: Id| module.name(id).map(|n| format!("`{n}`")).unwrap_or_else(|| format!("%{id}"));
    let at =
        source_binding(module, new).map(|b| format!(" (set {}, binding {})", b.group, b.binding)).unwrap_or_default();
    match new.origin {
        BindingOrigin::CombinedImageSampler => {
            format!("the sampler of combined image sampler {}{at}", name(new.source))
        }
        BindingOrigin::ComparisonSampler => {
            format!("the comparison twin of sampler {}{at}", name(new.source))
        }
        BindingOrigin::PushConstant => format!("push-constant block {} (now a uniform buffer)", name(new.source)),
        BindingOrigin::SharedWithImage => {
            format!("sampler {}, which shared image {}'s binding{at},", name(new.variable), name(new.source))
        }
        BindingOrigin::DrawParameters => {
            "the draw-parameters uniform buffer (base vertex, base instance, draw index)".to_string()
        }
        BindingOrigin::Aliased => format!(
            "{}, which shared {}'s binding{at} (bind the same resource at both),",
            name(new.variable),
            name(new.source)
        ),
    }
}
