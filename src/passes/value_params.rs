//! Read-only pointer parameters become value parameters. glslang passes every GLSL parameter,
//! `in` ones included, as a pointer to a copy the caller makes (`param = v; f(&param)`); WGSL
//! would spell each as `ptr<function, T>` and the copies would stay. A parameter the function
//! only loads from is a value: the caller loads it at the call instead, and the
//! `single_store_locals` pass then drops the copy (`f(v)`).
//!
//! Before: function parameters may be `Function`-class pointers.
//! After: such a parameter that the function only loads from, whole or through access chains
//! with constant indices, and that every call passes a local variable of the caller not passed
//! twice to that call, has the pointee's type. Its loads are the parameter (or a
//! `OpCompositeExtract` of it); each call loads the argument just before it.
//!
//! Loading at the call rather than at each read is the same value: the argument is a local of
//! the caller, which the callee can reach only through its parameters, and no other parameter
//! of that call points to it.

use spirv::{Op, StorageClass};

use crate::Options;
use crate::error::Error;
use crate::id_hash::{IdMap, IdSet};
use crate::spirv::{Def, Id, Inst, Module, Operand, Param, PointerUseKind, Type};

pub fn run(module: &mut Module, _options: &Options) -> Result<(), Error> {
    let mut candidates: IdMap<Id, (usize, usize)> = IdMap::default();
    for (f, function) in module.functions.iter().enumerate() {
        for (position, param) in function.params.iter().enumerate() {
            if let Some(Type::Pointer { class: StorageClass::Function, pointee }) = module.type_def(param.ty)
                && !module.is_handle(*pointee)
            {
                candidates.insert(param.id, (f, position));
            }
        }
    }
    if candidates.is_empty() {
        return Ok(());
    }
    let mut rejected = IdSet::default();
    for f in 0..module.functions.len() {
        reject_other_uses(module, f, &candidates, &mut rejected);
        reject_arguments(module, f, &candidates, &mut rejected);
    }
    candidates.retain(|id, _| !rejected.contains(id));
    if candidates.is_empty() {
        return Ok(());
    }
    for f in 0..module.functions.len() {
        load_arguments(module, f, &candidates);
    }
    for (&param, &(f, position)) in &candidates {
        let Some(Type::Pointer { pointee, .. }) = module.type_def(module.functions[f].params[position].ty) else {
            continue;
        };
        let pointee = *pointee;
        module.functions[f].params[position] = Param { id: param, ty: pointee };
        module.defs[param as usize] = Def::param(f, pointee);
    }
    // Each parameter's loads read the parameter itself.
    let mut by_function: Vec<IdMap<Id, Id>> = vec![IdMap::default(); module.functions.len()];
    for (&param, &(f, _)) in &candidates {
        by_function[f].insert(param, param);
    }
    for (f, params) in by_function.iter().enumerate().filter(|(_, p)| !p.is_empty()) {
        module.read_pointers_as_values(f, params);
    }
    Ok(())
}

/// Rejects candidates of function `f` used other than by loads, whole or through access
/// chains with constant indices.
fn reject_other_uses(module: &Module, f: usize, candidates: &IdMap<Id, (usize, usize)>, rejected: &mut IdSet<Id>) {
    let params = module.functions[f].params.iter().map(|p| p.id).filter(|id| candidates.contains_key(id));
    module.pointer_uses(f, params, |used| {
        if used.kind != PointerUseKind::Load {
            rejected.insert(used.root);
        }
    });
}

/// Rejects candidates that a call in function `f` passes anything but one of its local
/// variables, or a variable it passes twice.
fn reject_arguments(module: &Module, f: usize, candidates: &IdMap<Id, (usize, usize)>, rejected: &mut IdSet<Id>) {
    let function = &module.functions[f];
    for index in function.blocks.iter().flat_map(|b| b.insts.iter().copied()) {
        let inst = &function.insts[index];
        if inst.op != Op::FunctionCall {
            continue;
        }
        let Some(callee) = inst.id(0).and_then(|id| module.function_index(id)) else { continue };
        let args: Vec<Id> = inst.id_operands().skip(1).collect();
        for (position, param) in module.functions[callee].params.iter().enumerate() {
            if !candidates.contains_key(&param.id) {
                continue;
            }
            let Some(&arg) = args.get(position) else {
                rejected.insert(param.id);
                continue;
            };
            let local = module.value_inst(arg).is_some_and(|v| module.is_local_variable(v));
            if !local || args.iter().filter(|&&a| a == arg).count() > 1 {
                rejected.insert(param.id);
            }
        }
    }
}

/// Each call in function `f` loads the arguments of value parameters just before it.
fn load_arguments(module: &mut Module, f: usize, params: &IdMap<Id, (usize, usize)>) {
    for block in 0..module.functions[f].blocks.len() {
        // The block is rebuilt once, loads inserted, rather than shifted per load.
        let old = std::mem::take(&mut module.functions[f].blocks[block].insts);
        let mut insts = Vec::with_capacity(old.len());
        for index in old {
            let call = &module.functions[f].insts[index];
            let callee = match call.op {
                Op::FunctionCall => call.id(0).and_then(|id| module.function_index(id)),
                _ => None,
            };
            let loaded: Vec<(usize, Id)> = callee.map_or_else(Vec::new, |callee| {
                let params_of = &module.functions[callee].params;
                (0..params_of.len())
                    .filter(|&i| params.contains_key(&params_of[i].id))
                    .filter_map(|i| Some((i + 1, call.id(i + 1)?)))
                    .collect()
            });
            for (operand, pointer) in loaded {
                let Ok(Some(Type::Pointer { pointee, .. })) = module.type_of(pointer).map(|ty| module.type_def(ty))
                else {
                    continue;
                };
                let pointee = *pointee;
                let arena = module.functions[f].insts.len();
                let value = module.add_def(Def::value(f, arena, pointee));
                let load = Inst::new(Op::Load, Some(pointee), Some(value), [Operand::IdRef(pointer)].into(), 0);
                let function = &mut module.functions[f];
                function.insts.push(load);
                function.insts[index].operands[operand] = Operand::IdRef(value);
                insts.push(arena);
            }
            insts.push(index);
        }
        module.functions[f].blocks[block].insts = insts;
    }
}
