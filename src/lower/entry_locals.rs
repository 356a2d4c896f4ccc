//! Private variables only an entry function uses, declared in it: `var outFragColor: vec4<f32>;`
//! in the function rather than `var<private>` at module scope, so a reader sees the whole life of
//! the variable in one place, and `wgsl/declarations.rs` can move it to its first assignment.
//!
//! A private variable belongs to one invocation, and an entry function that is the WGSL entry
//! point (`IoPlan::unwrapped`) runs once per invocation, called by nothing: a variable of that
//! function holds exactly what the private one would, starting from the same initializer (or
//! zero). Not for an input's proxy (the copy into it starts the body, before the declarations
//! `wgsl/declarations.rs` moves), a variable whose initializer is stored by the entry point
//! (`entry_initializers.rs`), nor one a pointer into is passed to a call (the callee takes a
//! `ptr<private, T>`).

use std::collections::HashMap;

use spirv::{Op, StorageClass};

use crate::id_hash::IdMap;
use crate::spirv::{Function, GlobalUsers, Id, IoSource, Module, Type};

/// The globals (indices) to declare in an entry function instead of at module scope, with that
/// function's id; `functions` are the functions emitted, `users` which of them read each global
/// (`Module::global_users`), `unwrapped` the entry points that are their own function.
pub(super) fn private_to_entry(
    module: &Module,
    functions: &[usize],
    users: &[GlobalUsers],
    unwrapped: &HashMap<Id, usize>,
) -> IdMap<usize, Id> {
    // The one function using each private global, or `None` if more do.
    let mut user: IdMap<usize, Option<Id>> = IdMap::default();
    for (g, users) in users.iter().enumerate() {
        if module.globals[g].class != StorageClass::Private {
            continue;
        }
        match *users {
            GlobalUsers::None => {}
            GlobalUsers::One(f) => _ = user.insert(g, Some(module.functions[f].id)),
            GlobalUsers::Many => _ = user.insert(g, None),
        }
    }
    // A pointer into one passed to a call is typed `ptr<private, T>` in the callee.
    for &f in functions {
        for g in passed_by_pointer(module, &module.functions[f]) {
            user.insert(g, None);
        }
    }
    // Proxies a wrapper or an entry point's first statements copy inputs into stay.
    for entry in &module.entry_points {
        let plan = entry.io.iter().flat_map(|plan| {
            let outputs = plan.outputs.iter().filter(|_| !unwrapped.contains_key(&entry.function));
            plan.inputs.iter().chain(outputs)
        });
        for value in plan {
            if let IoSource::Proxy { global, .. } = value.source
                && let Some(g) = module.global_index(global)
            {
                user.insert(g, None);
            }
        }
    }
    user.into_iter().filter_map(|(g, f)| f.filter(|f| unwrapped.contains_key(f)).map(|f| (g, f))).collect()
}

/// The globals (indices) `function` passes a pointer into to a call.
fn passed_by_pointer(module: &Module, function: &Function) -> Vec<usize> {
    // Each pointer derived from a global, with the global.
    let mut roots: IdMap<Id, usize> = IdMap::default();
    let mut passed = Vec::new();
    for inst in &function.insts {
        match inst.op {
            Op::AccessChain | Op::InBoundsAccessChain | Op::PtrAccessChain | Op::CopyObject => {
                let base = inst.id(0).and_then(|base| module.global_index(base).or_else(|| roots.get(&base).copied()));
                if let (Some(g), Some(result)) = (base, inst.result()) {
                    roots.insert(result, g);
                }
            }
            Op::FunctionCall => {
                let args = inst.id_operands().skip(1);
                passed.extend(args.filter_map(|arg| module.global_index(arg).or_else(|| roots.get(&arg).copied())));
            }
            // A pointer chosen at run time (`pointers.rs`) may reach a call: those stay too.
            Op::Select | Op::Phi if inst.ty().is_some_and(|ty| matches!(module.ty(ty), Ok(Type::Pointer { .. }))) => {
                let options = inst.id_operands();
                passed.extend(options.filter_map(|id| module.global_index(id).or_else(|| roots.get(&id).copied())));
            }
            _ => {}
        }
    }
    passed
}
