//! Pointer parameters into memory WGSL functions cannot take pointers to: storage and uniform
//! buffers, push constants and workgroup memory. WGSL allows only `function` and `private`
//! pointers as parameters unless the `unrestricted_pointer_parameters` language extension is
//! there, which naga does not implement. A parameter that every call passes the same
//! module-scope variable (whole: a pointer into an element needs variable pointers) is that
//! variable: the callee uses the variable, and the parameter and its arguments go. Any other
//! such parameter is refused.
//!
//! Before: function parameters may be pointers of any storage class.
//! After: no parameter points into storage, uniform, push-constant or workgroup memory.

use spirv::{Op, StorageClass};

use crate::Options;
use crate::error::{Error, Location};
use crate::id_hash::IdMap;
use crate::spirv::{Def, Id, Module, Operand, Type};

fn passed_by_variable_only(class: StorageClass) -> bool {
    matches!(
        class,
        StorageClass::StorageBuffer | StorageClass::Uniform | StorageClass::PushConstant | StorageClass::Workgroup
    )
}

pub fn run(module: &mut Module, _options: &Options) -> Result<(), Error> {
    // The parameters concerned, with their storage class.
    let mut candidates: IdMap<Id, StorageClass> = IdMap::default();
    for f in module.entry_functions() {
        for param in &module.functions[f].params {
            if let Some(Type::Pointer { class, .. }) = module.type_def(param.ty)
                && passed_by_variable_only(*class)
            {
                candidates.insert(param.id, *class);
            }
        }
    }
    if candidates.is_empty() {
        return Ok(());
    }
    let arguments = arguments(module, &candidates);
    // A parameter passed another such parameter is that one's variable, once that is known:
    // each round settles at least one link of a call chain.
    let mut variable_of: IdMap<Id, Id> = IdMap::default();
    loop {
        let before = variable_of.len();
        for (&param, args) in &arguments {
            if variable_of.contains_key(&param) {
                continue;
            }
            let resolved: Option<Vec<Id>> = args
                .iter()
                .map(|&arg| match module.def(arg) {
                    Def::Global(_) => Some(arg),
                    _ => variable_of.get(&arg).copied(),
                })
                .collect();
            if let Some(resolved) = resolved
                && let Some(&first) = resolved.first()
                && resolved.iter().all(|&v| v == first)
            {
                variable_of.insert(param, first);
            }
        }
        if variable_of.len() == before {
            break;
        }
    }
    if let Some((&param, &class)) =
        candidates.iter().filter(|(p, _)| !variable_of.contains_key(p)).min_by_key(|(p, _)| **p)
    {
        let called = arguments.get(&param).is_some_and(|args| !args.is_empty());
        let what = if called { "not the same whole variable by every call" } else { "never called" };
        return Err(Error::unsupported(
            format!(
                "a function parameter pointing into {class:?} memory, passed {what}: WGSL takes such pointers \
                 as parameters only with the unrestricted_pointer_parameters extension, which naga lacks"
            ),
            Location { result_id: Some(param), ..Location::default() },
        ));
    }
    replace_params(module, &variable_of);
    Ok(())
}

/// For each candidate parameter, the argument of every call.
fn arguments(module: &Module, candidates: &IdMap<Id, StorageClass>) -> IdMap<Id, Vec<Id>> {
    let mut arguments: IdMap<Id, Vec<Id>> = candidates.keys().map(|&p| (p, Vec::new())).collect();
    for function in &module.functions {
        for inst in function.insts.iter().filter(|i| i.op == Op::FunctionCall) {
            let Some(callee) = inst.id(0).and_then(|id| module.function_index(id)) else { continue };
            for (param, arg) in module.functions[callee].params.iter().zip(inst.id_operands().skip(1)) {
                if let Some(args) = arguments.get_mut(&param.id) {
                    args.push(arg);
                }
            }
        }
    }
    arguments
}

/// Each parameter in `variable_of` becomes its variable in its function, and leaves the calls.
fn replace_params(module: &mut Module, variable_of: &IdMap<Id, Id>) {
    // Which positions of each function's parameters go.
    let mut dropped: Vec<Vec<usize>> = vec![Vec::new(); module.functions.len()];
    for (f, function) in module.functions.iter_mut().enumerate() {
        let replaced: Vec<usize> =
            (0..function.params.len()).filter(|&i| variable_of.contains_key(&function.params[i].id)).collect();
        if replaced.is_empty() {
            continue;
        }
        for inst in &mut function.insts {
            for operand in inst.operands.iter_mut() {
                if let Operand::IdRef(id) = operand
                    && let Some(&variable) = variable_of.get(id)
                {
                    *id = variable;
                }
            }
        }
        function.params.retain(|param| !variable_of.contains_key(&param.id));
        dropped[f] = replaced;
    }
    for function in &mut module.functions {
        for inst in function.insts.iter_mut().filter(|i| i.op == Op::FunctionCall) {
            let Some(Operand::IdRef(callee)) = inst.operands.first() else { continue };
            let Some(callee) = module.defs.get(*callee as usize).and_then(|def| match def {
                Def::Function(f) => Some(*f),
                _ => None,
            }) else {
                continue;
            };
            if dropped[callee].is_empty() {
                continue;
            }
            // Operand 0 is the callee; argument i is operand i + 1.
            let operands: Vec<Operand> = inst
                .operands
                .iter()
                .enumerate()
                .filter(|(i, _)| *i == 0 || !dropped[callee].contains(&(i - 1)))
                .map(|(_, operand)| *operand)
                .collect();
            inst.operands = operands.into_boxed_slice();
        }
    }
}
