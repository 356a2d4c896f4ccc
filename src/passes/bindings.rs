//! Bindings for resources the SPIR-V did not bind: the sampler split from a combined image
//! sampler and the comparison twin of a sampler (both made by `handles`), and push constants.
//!
//! Before: `Module::new_bindings` lists the samplers `handles` made; push-constant blocks are
//! `PushConstant` variables. After: push-constant blocks are `Uniform` variables (uniform
//! buffers) and are listed too; every listed variable has a DescriptorSet and Binding.
//!
//! The rule (docs/bindings.md): a new sampler goes in its source's group (DescriptorSet), a push
//! constant block in group 0; each takes one past the highest binding used in that group by any
//! resource variable of the module, in the order they are listed. `Options::sampler_bindings`
//! (keyed by the source's set and binding) and `Options::push_constant_binding` override it.

use std::collections::BTreeSet;

use spirv::StorageClass;

use crate::Options;
use crate::binding_map::ResourceBinding;
use crate::error::{Error, Location};
use crate::spirv::{BindingOrigin, Id, Module, NewBinding, Type};

pub fn run(module: &mut Module, options: &Options) -> Result<(), Error> {
    push_constants_to_uniforms(module);
    let mut taken: BTreeSet<ResourceBinding> = module
        .globals
        .iter()
        .filter_map(|g| {
            let d = module.decorations(g.id);
            Some(ResourceBinding {
                group: d.set?,
                binding: d.binding?,
            })
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
                format!(
                    "{} was asked to go at {chosen}, which another resource already uses",
                    describe(module, &new)
                ),
                Location::default(),
            ));
        }
        let decorations = module.decorations.entry(new.variable).or_default();
        decorations.set = Some(chosen.group);
        decorations.binding = Some(chosen.binding);
        module.warnings.push(format!(
            "{} is bound at {chosen} (see --binding-map)",
            describe(module, &new)
        ));
    }
    if let Some((source, _)) = options
        .sampler_bindings
        .iter()
        .find(|(source, _)| !overridden.contains(source))
    {
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
        module.globals[g].ty = module.intern_type(Type::Pointer {
            class: StorageClass::Uniform,
            pointee,
        });
        let id = module.globals[g].id;
        module.new_bindings.push(NewBinding {
            variable: id,
            source: id,
            origin: BindingOrigin::PushConstant,
        });
    }
}

/// The SPIR-V binding of the variable a new resource was made from.
fn source_binding(module: &Module, new: &NewBinding) -> Option<ResourceBinding> {
    let d = module.decorations(new.source);
    Some(ResourceBinding {
        group: d.set?,
        binding: d.binding?,
    })
}

/// The binding the options ask for, with the option's key.
fn chosen_binding(
    module: &Module,
    options: &Options,
    new: &NewBinding,
) -> Option<(ResourceBinding, ResourceBinding)> {
    if new.origin == BindingOrigin::PushConstant {
        return options.push_constant_binding.map(|b| (b, b));
    }
    let source = source_binding(module, new)?;
    options
        .sampler_bindings
        .iter()
        .find(|(key, _)| *key == source)
        .copied()
}

fn default_group(module: &Module, new: &NewBinding) -> u32 {
    match new.origin {
        BindingOrigin::PushConstant => 0,
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
    let name = |id: Id| {
        module
            .name(id)
            .map(|n| format!("`{n}`"))
            .unwrap_or_else(|| format!("%{id}"))
    };
    let at = source_binding(module, new)
        .map(|b| format!(" (set {}, binding {})", b.group, b.binding))
        .unwrap_or_default();
    match new.origin {
        BindingOrigin::CombinedImageSampler => format!(
            "the sampler of combined image sampler {}{at}",
            name(new.source)
        ),
        BindingOrigin::ComparisonSampler => {
            format!("the comparison twin of sampler {}{at}", name(new.source))
        }
        BindingOrigin::PushConstant => format!(
            "push-constant block {} (now a uniform buffer)",
            name(new.source)
        ),
    }
}
