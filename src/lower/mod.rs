//! Lowering: the structured SPIR-V module, after the passes, becomes a WGSL syntax tree
//! (`crate::wgsl::ast`). Every file here reads the SPIR-V module; the rewrites that work on the
//! syntax tree alone live in `crate::wgsl`. This file is the order of the work; `emit.rs` holds
//! the state the others share (the `Emitter`) and spells types and globals.

mod atomic;
pub mod emit;
mod entry_initializers;
mod entry_io;
mod entry_locals;
mod extended_arith;
mod function;
mod half_bitcast;
mod helpers;
mod image;
mod instruction;
mod integer_dot;
mod late_names;
mod non_finite;
pub(crate) mod pointers;
mod runtime_constants;
mod scopes;
mod shared_spec_ids;
mod spec;
pub(crate) mod subgroup;
mod subgroup_emulation;
mod subgroup_ids;
mod uses;
mod values;
mod vertex_storage;
mod wrapper;

use std::collections::HashMap;

use spirv::{Op, StorageClass};

pub use emit::Emitted;
use emit::Emitter;

use crate::Options;
use crate::error::{Error, Location};
use crate::spirv::{Computed, GlobalUsers, Id, IoBinding, IoSource, Module};
use crate::wgsl::ast::Stmt;
use crate::wgsl::naga_ir;

/// Lowers the module, after the passes, to a WGSL syntax tree: names claimed (entry points first,
/// then functions and globals), globals declared, each function lowered and printed, then the
/// entry points' wrappers. Each function's SPIR-V body is freed once it is lowered: the module
/// keeps only the signatures and definitions.
pub fn lower(module: &mut Module, options: &Options, ir: Option<naga_ir::Ir>) -> Result<Emitted, Error> {
    // Read by no one: the emitter holds it between functions, while the body of the function
    // just lowered is freed (see the loop below).
    let no_module = Module::default();
    let mut e = Emitter::new(module, options.annotate, ir, spec::named_ops(module)?);
    // Entry-point names are the API users call: they are claimed first and never renamed.
    let mut wrapper_names = Vec::new();
    for entry in &module.entry_points {
        wrapper_names.push(e.namer.fresh(&entry.name, None));
    }
    let functions = module.entry_functions();
    // By function, the index of the entry point it is itself, if unwrapped.
    let unwrapped: HashMap<Id, usize> = (module.entry_points.iter().enumerate())
        .filter(|(_, entry)| entry.io.as_ref().is_some_and(|plan| plan.unwrapped))
        .map(|(index, entry)| (entry.function, index))
        .collect();
    let mut inner_names: HashMap<Id, String> = HashMap::new();
    for (entry, wrapper_name) in module.entry_points.iter().zip(&wrapper_names) {
        if let std::collections::hash_map::Entry::Vacant(slot) = inner_names.entry(entry.function) {
            slot.insert(match unwrapped.contains_key(&entry.function) {
                true => wrapper_name.clone(),
                false => e.namer.fresh(&format!("{}_inner", entry.name), None),
            });
        }
    }
    let unmangled = unmangled_names(module, &functions);
    for &f in &functions {
        let id = module.functions[f].id;
        let name = match inner_names.get(&id) {
            Some(name) => name.clone(),
            None => {
                let base = match unmangled.get(&f) {
                    Some(&name) => name.to_string(),
                    None => module.name(id).map(str::to_string).unwrap_or_else(|| format!("function_{id}")),
                };
                e.namer.fresh(&base, None)
            }
        };
        e.uniformity.declare_function(&name);
        e.names.insert(id, name.into());
    }
    // One walk of the functions finds the globals to declare and those only one entry reads.
    let users = module.global_users(&functions);
    let private_to_entry = entry_locals::private_to_entry(module, &functions, &users, &unwrapped);
    for global in used_globals(module, &users) {
        e.global(global)?;
        let id = module.globals[global].id;
        let moved = e.moved_initializers.last().is_some_and(|&(g, _)| g == id);
        if let (Some(&function), false) = (private_to_entry.get(&global), moved) {
            let declared = e.out.globals.pop().ok_or_else(|| Error::internal("a global not declared"))?;
            let var = Stmt::Var { name: declared.name.into(), ty: declared.ty, value: declared.init };
            e.entry_locals.entry(function).or_default().push(var);
        }
    }
    e.claim_late_names(&functions);
    let mut between = e.reading(&no_module);
    for &f in &functions {
        let mut e = between.reading(module);
        let function = &module.functions[f];
        let entry = unwrapped.get(&function.id).map(|&index| &module.entry_points[index]);
        let (mut lowered, calls) = function::emit(&mut e, f, entry)?;
        if let Some(entry) = entry {
            lowered.attributes = e.stage_attributes(entry)?;
        }
        let origin = Location {
            result_id: Some(function.id),
            word_offset: Some(function.offset),
            opcode: Some(Op::Function),
            ..Location::default()
        };
        // Nothing reads a function's body once it is lowered (calls read signatures): freed,
        // it is off the peak of what follows, naga's IR of the function above all.
        between = e.reading(&no_module);
        module.functions[f].free_body();
        between.finish_lowered(lowered, calls, origin)?;
    }
    let mut e = between.reading(module);
    for (entry, name) in module.entry_points.iter().zip(wrapper_names) {
        if !unwrapped.contains_key(&entry.function) {
            let wrapper = e.entry_wrapper(entry, name)?;
            e.finish_function(wrapper);
        }
    }
    Ok(e.finish())
}

/// glslang names a function by its signature, `BRDF(vf3;vf3;f1;`: such a function is called by
/// the name before the parenthesis, unless another function of the module (an overload) has
/// that name too, when the signature tells them apart.
fn unmangled_names<'m>(module: &'m Module, functions: &[usize]) -> HashMap<usize, &'m str> {
    // Each named function's name up to the parenthesis (all of it without one), and whether
    // it had one.
    let bases: Vec<(usize, &str, bool)> = functions
        .iter()
        .filter_map(|&f| {
            let name = module.name(module.functions[f].id)?;
            Some(name.split_once('(').map_or((f, name, false), |(base, _)| (f, base, true)))
        })
        .collect();
    let mut count: HashMap<&str, usize> = HashMap::new();
    for &(_, base, _) in &bases {
        *count.entry(base).or_default() += 1;
    }
    bases
        .into_iter()
        .filter(|&(_, base, mangled)| mangled && !base.is_empty() && count[base] == 1)
        .map(|(f, base, _)| (f, base))
        .collect()
}

/// Globals the emitted functions refer to, in declaration order; `users` are the functions that
/// read each (`Module::global_users`).
fn used_globals(module: &Module, users: &[GlobalUsers]) -> Vec<usize> {
    let mut used: Vec<bool> = users.iter().map(|users| *users != GlobalUsers::None).collect();
    // Proxies the entry points copy, even if no function reads them, and the buffers they read
    // computed inputs from.
    for entry in &module.entry_points {
        for value in entry.io.iter().flat_map(|plan| plan.inputs.iter().chain(&plan.outputs)) {
            if let IoSource::Proxy { global, .. } = value.source
                && let Some(g) = module.global_index(global)
            {
                used[g] = true;
            }
            if let IoBinding::Computed(Computed::BufferMember { buffer, .. }) = value.binding
                && let Some(g) = module.global_index(buffer)
            {
                used[g] = true;
            }
        }
    }
    // An Input or Output variable left after `io_wrapper` needs no proxy: the entry function
    // takes or returns its values directly.
    for (g, global) in module.globals.iter().enumerate() {
        if matches!(global.class, StorageClass::Input | StorageClass::Output) {
            used[g] = false;
        }
    }
    // Samplers split from a used combined image sampler or sampler follow it.
    let mut order = Vec::new();
    for g in (0..module.globals.len()).filter(|&g| used[g]) {
        order.push(g);
        let id = module.globals[g].id;
        let made = [module.companion_samplers.get(&id), module.comparison_samplers.get(&id)];
        for made in made.into_iter().flatten() {
            // A combined sampler's sampler may have a comparison twin of its own.
            let twin = module.comparison_samplers.get(made);
            order.extend([Some(made), twin].into_iter().flatten().filter_map(|&m| module.global_index(m)));
        }
    }
    order
}

#[cfg(test)]
mod tests {
    use crate::Options;

    /// An entry point calling a helper: once lowered, neither function keeps its body, and the
    /// helper keeps its signature.
    #[test]
    fn each_function_s_body_is_freed_once_it_is_lowered() {
        let text = "
                   OpCapability Shader
                   OpMemoryModel Logical GLSL450
                   OpEntryPoint GLCompute %main \"main\"
                   OpExecutionMode %main LocalSize 1 1 1
           %void = OpTypeVoid
            %int = OpTypeInt 32 1
           %main_type = OpTypeFunction %void
         %helper_type = OpTypeFunction %int %int
            %one = OpConstant %int 1
         %helper = OpFunction %int None %helper_type
              %x = OpFunctionParameter %int
          %start = OpLabel
            %sum = OpIAdd %int %x %one
                   OpReturnValue %sum
                   OpFunctionEnd
           %main = OpFunction %void None %main_type
          %entry = OpLabel
           %call = OpFunctionCall %int %helper %one
                   OpReturn
                   OpFunctionEnd
        ";
        let options = Options { validate: false, ..Options::default() };
        let mut module = crate::spirv::load::load(&crate::read_words(text.as_bytes()).unwrap()).unwrap();
        crate::run_passes(&mut module, &options).unwrap();
        assert_eq!(module.functions.len(), 2);
        assert!(module.functions.iter().all(|f| !f.insts.is_empty() && f.body.as_ref().is_some_and(|b| !b.is_empty())));
        let emitted = super::lower(&mut module, &options, None).unwrap();
        assert_eq!(emitted.ast.functions.len(), 2);
        for function in &module.functions {
            assert!(function.insts.is_empty() && function.blocks.is_empty());
            assert!(function.body.as_ref().is_none_or(Vec::is_empty));
        }
        let helper = module.functions.iter().find(|f| f.params.len() == 1).unwrap();
        assert!(matches!(module.ty(helper.result_type), Ok(crate::spirv::Type::Int { width: 32, signed: true })));
    }
}
