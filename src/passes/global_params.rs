//! Pointer parameters into memory WGSL functions cannot take pointers to: storage and uniform
//! buffers, push constants and workgroup memory. WGSL allows only `function` and `private`
//! pointers as parameters unless the `unrestricted_pointer_parameters` language extension is
//! there, which naga does not implement. Such a parameter names a part of a module-scope
//! variable at each call: the variable, then constant and dynamic indices. The callee is
//! specialized per variable and shape of the indices: its parameter becomes an access chain from
//! the variable (or the variable itself), each dynamic index a `u32`/`i32` value parameter the
//! call passes. The first specialization of a function is made in place, later ones are copies of
//! its original body. A parameter some call passes anything else (a pointer a phi or select
//! chose), or that no call reaches, is refused.
//!
//! A `private` pointer parameter is specialized so too where its function (or one it calls) uses
//! a private variable by name: the argument may point into that variable, and WGSL rejects a call
//! whose pointer argument aliases a module-scope variable the callee uses; SPIR-V allows it
//! (with `Aliased`), and the specialized callee accesses the variable itself, as aliasing asks.
//!
//! A storage image parameter, a pointer to one or its value, is specialized so too: naga's WGSL
//! validator stores only to a storage texture that is a module-scope variable (WGSL itself allows
//! a parameter). The specialized callee loads the variable at its start where the parameter was
//! a value.
//!
//! Before: function parameters may be pointers of any storage class.
//! After: no parameter of a function an entry point reaches points into storage, uniform,
//! push-constant or workgroup memory, nor into private memory where the function uses a private
//! variable by name; none is a storage image or a pointer to one.

use std::collections::{HashMap, HashSet};

use spirv::{Op, StorageClass};

use crate::Options;
use crate::error::{Error, Location};
use crate::id_hash::IdMap;
use crate::spirv::{Def, Function, Id, Inst, Module, Operand, Param, Type};

/// The most specialized copies of functions one module may need.
const MAX_COPIES: usize = 1024;

fn passed_by_variable_only(class: StorageClass) -> bool {
    matches!(
        class,
        StorageClass::StorageBuffer | StorageClass::Uniform | StorageClass::PushConstant | StorageClass::Workgroup
    )
}

/// The part of a variable a pointer argument names: the variable, then each access-chain index,
/// a constant (`Some`) or a value of the caller (`None` in a key).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Root {
    variable: Id,
    indices: Vec<(Id, bool)>,
}

impl Root {
    /// The shape calls share a specialization by: dynamic indices are holes.
    fn shape(&self) -> (Id, Vec<Option<Id>>) {
        (self.variable, self.indices.iter().map(|&(id, constant)| constant.then_some(id)).collect())
    }
}

/// One specialization: the original function and, per replaced parameter position, the shape.
type Key = (usize, Vec<(usize, (Id, Vec<Option<Id>>))>);

/// A call still to rewrite: where it is, its callee, and the root of each replaced argument.
struct PendingCall {
    caller: usize,
    inst: usize,
    callee: usize,
    roots: Vec<(usize, Root)>,
}

/// A storage image, or a pointer to one.
fn is_storage_image(module: &Module, ty: Id) -> bool {
    match module.type_def(ty) {
        Some(Type::Image(image)) => image.sampled == 2,
        Some(Type::Pointer { class: StorageClass::UniformConstant, pointee }) => is_storage_image(module, *pointee),
        _ => false,
    }
}

pub fn run(module: &mut Module, _options: &Options) -> Result<(), Error> {
    let private_users = private_users(module);
    let is_candidate = |module: &Module, f: usize, param: &Param| match module.type_def(param.ty) {
        Some(Type::Pointer { class: StorageClass::Private, .. }) => private_users.contains(&f),
        Some(Type::Pointer { class: StorageClass::UniformConstant, .. } | Type::Image(_)) => {
            is_storage_image(module, param.ty)
        }
        Some(Type::Pointer { class, .. }) => passed_by_variable_only(*class),
        _ => false,
    };
    // Each function with such parameters as it was before any call was rewritten: copies are made
    // of it, and its calls pass arguments to its parameters.
    let originals: HashMap<usize, Function> = (0..module.functions.len())
        .filter(|&f| module.functions[f].params.iter().any(|param| is_candidate(module, f, param)))
        .map(|f| (f, module.functions[f].clone()))
        .collect();
    if originals.is_empty() {
        return Ok(());
    }
    let mut in_place: HashSet<usize> = HashSet::new();
    let mut specialized: HashMap<Key, usize> = HashMap::new();
    // Calls already rewritten, by (function, instruction index).
    let mut rewritten: HashSet<(usize, usize)> = HashSet::new();
    while let Some(call) = next_call(module, &originals, &rewritten, &is_candidate) {
        let key: Key = (call.callee, call.roots.iter().map(|(i, root)| (*i, root.shape())).collect());
        let target = match specialized.get(&key) {
            Some(&target) => target,
            None => {
                let target = if !in_place.insert(call.callee) {
                    if specialized.len() >= MAX_COPIES {
                        return Err(Error::unsupported(
                            format!(
                                "pointer parameters into buffers or workgroup memory would need more than \
                                 {MAX_COPIES} specialized copies of functions"
                            ),
                            Location::default(),
                        ));
                    }
                    copy_function(module, &originals[&call.callee])
                } else {
                    call.callee
                };
                specialize(module, target, &call.roots);
                specialized.insert(key, target);
                target
            }
        };
        rewrite_call(module, &call, target, &originals);
        rewritten.insert((call.caller, call.inst));
    }
    refuse_remaining(module, &rewritten, &is_candidate)
}

/// The functions that use a private variable by name, or call one that does; empty where no
/// function has a private pointer parameter. One walk of the module, then up the calls.
fn private_users(module: &Module) -> HashSet<usize> {
    let is_private_pointer =
        |param: &Param| matches!(module.type_def(param.ty), Some(Type::Pointer { class: StorageClass::Private, .. }));
    if !module.functions.iter().any(|function| function.params.iter().any(is_private_pointer)) {
        return HashSet::new();
    }
    let privates: HashSet<Id> =
        module.globals.iter().filter(|global| global.class == StorageClass::Private).map(|global| global.id).collect();
    let mut callers: Vec<Vec<usize>> = vec![Vec::new(); module.functions.len()];
    let mut users = HashSet::new();
    let mut work = Vec::new();
    for (f, function) in module.functions.iter().enumerate() {
        for block in &function.blocks {
            for index in block.all_insts() {
                let inst = &function.insts[index];
                if inst.op == Op::FunctionCall
                    && let Some(callee) = inst.id(0).and_then(|id| module.function_index(id))
                {
                    callers[callee].push(f);
                }
                if inst.id_operands().any(|id| privates.contains(&id)) && users.insert(f) {
                    work.push(f);
                }
            }
        }
    }
    while let Some(f) = work.pop() {
        for &caller in &callers[f] {
            if users.insert(caller) {
                work.push(caller);
            }
        }
    }
    users
}

/// The parameters of function `f` as its calls pass arguments: its original ones.
fn params_of<'m>(module: &'m Module, originals: &'m HashMap<usize, Function>, f: usize) -> &'m [Param] {
    originals.get(&f).map_or(&module.functions[f].params, |original| &original.params)
}

/// The first call, in a function an entry point reaches, whose replaced arguments all name parts
/// of variables.
fn next_call(
    module: &Module,
    originals: &HashMap<usize, Function>,
    rewritten: &HashSet<(usize, usize)>,
    is_candidate: &impl Fn(&Module, usize, &Param) -> bool,
) -> Option<PendingCall> {
    for caller in module.entry_functions() {
        let function = &module.functions[caller];
        for block in &function.blocks {
            for &index in &block.insts {
                let inst = &function.insts[index];
                if inst.op != Op::FunctionCall || rewritten.contains(&(caller, index)) {
                    continue;
                }
                let Some(callee) = inst.id(0).and_then(|id| module.function_index(id)) else { continue };
                let params = params_of(module, originals, callee);
                let mut roots = Vec::new();
                let mut resolved = true;
                for (i, (param, arg)) in params.iter().zip(inst.id_operands().skip(1)).enumerate() {
                    if !is_candidate(module, callee, param) {
                        continue;
                    }
                    match root(module, arg) {
                        Some(root) => roots.push((i, root)),
                        None => resolved = false,
                    }
                }
                if resolved && !roots.is_empty() {
                    return Some(PendingCall { caller, inst: index, callee, roots });
                }
            }
        }
    }
    None
}

/// The variable and indices a pointer value names, through access chains and copies; or that a
/// storage image value was loaded from.
fn root(module: &Module, pointer: Id) -> Option<Root> {
    match module.def(pointer) {
        Def::Global(_) => Some(Root { variable: pointer, indices: Vec::new() }),
        Def::Value { .. } => {
            let inst = module.value_inst(pointer)?;
            match inst.op {
                Op::CopyObject => root(module, inst.id(0)?),
                // A storage image value: of a variable, not of an element of an array of them.
                Op::Load if is_storage_image(module, inst.ty()?) => {
                    root(module, inst.id(0)?).filter(|root| root.indices.is_empty())
                }
                Op::AccessChain | Op::InBoundsAccessChain => {
                    let mut root = root(module, inst.id(0)?)?;
                    for index in inst.id_operands().skip(1) {
                        let constant = matches!(module.def(index), Def::Constant(_));
                        root.indices.push((index, constant));
                    }
                    Some(root)
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// Function `f`'s parameters at the roots' positions become what the roots name: the variable,
/// or an access chain from it at the start of the body, whose dynamic indices are new parameters
/// at the end of the list; a storage image value, a load of the variable at the start of the body.
fn specialize(module: &mut Module, f: usize, roots: &[(usize, Root)]) {
    let params = module.functions[f].params.clone();
    let mut replaced_by_variable: IdMap<Id, Id> = IdMap::default();
    let mut chains = Vec::new();
    let mut added = Vec::new();
    for (position, root) in roots {
        let param = &params[*position];
        if matches!(module.type_def(param.ty), Some(Type::Image(_))) {
            let variable = Operand::IdRef(root.variable);
            chains.push(Inst::new(Op::Load, Some(param.ty), Some(param.id), [variable].into(), 0));
            continue;
        }
        if root.indices.is_empty() {
            replaced_by_variable.insert(param.id, root.variable);
            continue;
        }
        let mut operands = vec![Operand::IdRef(root.variable)];
        for &(index, constant) in &root.indices {
            if constant {
                operands.push(Operand::IdRef(index));
            } else {
                let ty = module.type_of(index).unwrap_or_default();
                let id = module.add_def(Def::param(f, ty));
                module.names.insert(id, "index".into());
                added.push(Param { id, ty });
                operands.push(Operand::IdRef(id));
            }
        }
        chains.push(Inst::new(Op::AccessChain, Some(param.ty), Some(param.id), operands.into(), 0));
    }
    let positions: Vec<usize> = roots.iter().map(|(position, _)| *position).collect();
    let mut defined = Vec::new();
    let function = &mut module.functions[f];
    for inst in &mut function.insts {
        for operand in inst.operands.iter_mut() {
            if let Operand::IdRef(id) = operand
                && let Some(&variable) = replaced_by_variable.get(id)
            {
                *id = variable;
            }
        }
    }
    // The chains go after the entry block's local variables, which SPIR-V puts first.
    let first = function.blocks[0].insts.iter().take_while(|&&i| function.insts[i].op == Op::Variable).count();
    for (at, chain) in (first..).zip(chains) {
        let index = function.insts.len();
        defined.push((chain.result().unwrap_or_default(), Def::value(f, index, chain.ty().unwrap_or_default())));
        function.insts.push(chain);
        function.blocks[0].insts.insert(at, index);
    }
    function.params = params
        .into_iter()
        .enumerate()
        .filter(|(i, _)| !positions.contains(i))
        .map(|(_, param)| param)
        .chain(added)
        .collect();
    for (id, def) in defined {
        module.defs[id as usize] = def;
    }
}

/// A copy of `original` (a function's body before any specialization) under fresh ids, as a new
/// function of the module; its calls are rewritten as they are found.
fn copy_function(module: &mut Module, original: &Function) -> usize {
    let f = module.functions.len();
    let mut fresh: IdMap<Id, Id> = IdMap::default();
    let id = module.add_def(Def::Function(f));
    fresh.insert(original.id, id);
    let params: Vec<Param> = original
        .params
        .iter()
        .map(|param| {
            let id = module.add_def(Def::param(f, param.ty));
            fresh.insert(param.id, id);
            Param { id, ty: param.ty }
        })
        .collect();
    for (b, block) in original.blocks.iter().enumerate() {
        fresh.insert(block.label, module.add_def(Def::label(f, b)));
    }
    for (index, inst) in original.insts.iter().enumerate() {
        if let (Some(result), Some(ty)) = (inst.result(), inst.ty()) {
            fresh.insert(result, module.add_def(Def::value(f, index, ty)));
        }
    }
    let insts = original
        .insts
        .iter()
        .map(|inst| {
            let mut inst = inst.clone();
            if let Some(&id) = inst.result().and_then(|id| fresh.get(&id)) {
                inst.set_result(id);
            }
            for operand in inst.operands.iter_mut() {
                if let Operand::IdRef(id) = operand
                    && let Some(&new) = fresh.get(id)
                {
                    *id = new;
                }
            }
            inst
        })
        .collect();
    let blocks = original
        .blocks
        .iter()
        .map(|block| {
            let mut block = block.clone();
            block.label = fresh[&block.label];
            block
        })
        .collect();
    for (&old, &new) in fresh.iter() {
        if let Some(name) = module.names.get(&old).cloned() {
            module.names.insert(new, name);
        }
        if let Some(decorations) = module.decorations.get(&old).cloned() {
            module.decorations.insert(new, decorations);
        }
    }
    module.functions.push(Function {
        id,
        result_type: original.result_type,
        params,
        insts,
        blocks,
        body: None,
        offset: original.offset,
    });
    f
}

/// The call calls `target`: the replaced arguments go, the dynamic indices come last.
fn rewrite_call(module: &mut Module, call: &PendingCall, target: usize, originals: &HashMap<usize, Function>) {
    let target_id = module.functions[target].id;
    let param_count = params_of(module, originals, call.callee).len();
    let inst = &module.functions[call.caller].insts[call.inst];
    let mut operands = vec![Operand::IdRef(target_id)];
    for i in 0..param_count {
        if !call.roots.iter().any(|(position, _)| *position == i)
            && let Some(&operand) = inst.operands.get(i + 1)
        {
            operands.push(operand);
        }
    }
    for (_, root) in &call.roots {
        operands.extend(root.indices.iter().filter(|(_, constant)| !constant).map(|&(id, _)| Operand::IdRef(id)));
    }
    module.functions[call.caller].insts[call.inst].operands = operands.into();
}

/// Refuses a parameter still pointing into such memory in a function an entry point reaches.
fn refuse_remaining(
    module: &Module,
    rewritten: &HashSet<(usize, usize)>,
    is_candidate: &impl Fn(&Module, usize, &Param) -> bool,
) -> Result<(), Error> {
    let reached = module.entry_functions();
    let called = |f: usize| {
        reached.iter().any(|&caller| {
            let function = &module.functions[caller];
            function.insts.iter().enumerate().any(|(index, inst)| {
                inst.op == Op::FunctionCall
                    && !rewritten.contains(&(caller, index))
                    && inst.id(0) == Some(module.functions[f].id)
            })
        })
    };
    for &f in &reached {
        let Some(param) = module.functions[f].params.iter().find(|param| is_candidate(module, f, param)) else {
            continue;
        };
        let location = Location { result_id: Some(param.id), ..Location::default() };
        if is_storage_image(module, param.ty) {
            let what = if called(f) { "not one variable (an element of an array of them, say)" } else { "by no call" };
            return Err(Error::unsupported(
                format!(
                    "a storage image function parameter passed {what}: naga's WGSL validator stores only to a \
                     storage texture that is a module-scope variable, so each call's must be one"
                ),
                location,
            ));
        }
        let Some(Type::Pointer { class, .. }) = module.type_def(param.ty) else { continue };
        let what = if called(f) {
            "a pointer that is not a part of one variable (a phi or select chose it)"
        } else {
            "by no call"
        };
        let why = match class {
            StorageClass::Private => {
                "WGSL rejects a pointer argument that may alias a private variable the function uses by name"
            }
            _ => {
                "WGSL takes such pointers as parameters only with the unrestricted_pointer_parameters extension, \
                 which naga lacks"
            }
        };
        return Err(Error::unsupported(
            format!("a function parameter pointing into {class:?} memory, passed {what}: {why}"),
            location,
        ));
    }
    Ok(())
}
