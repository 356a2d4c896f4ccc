//! Atomics: in WGSL an atomic is a type, `atomic<T>`; in SPIR-V it is an instruction on a plain
//! integer.
//!
//! Before: atomic instructions take pointers to 32-bit integers in buffers or workgroup memory,
//! reached from a variable through access chains.
//! After: every integer an atomic instruction touches is a `Type::Atomic`: the variable's store
//! type is rebuilt with atomics at those places (structs and arrays on the way become new types,
//! so other uses of the old ones stay plain), and the access chains into it have the new pointer
//! types. The atomic is signed if only signed min/max touch it, unsigned if only unsigned ones
//! do, else as declared (a min or max of the other signedness is then a compare-exchange loop,
//! `lower/atomic.rs`). The emitter turns plain loads and stores of it into atomic ones; a load,
//! store or copy of a whole struct or array holding atomics, which WGSL cannot write, goes part
//! by part (`move_parts`).

use std::collections::{BTreeMap, HashMap};

use spirv::Op;

use crate::Options;
use crate::error::{Error, Location};
use crate::lower::pointers::MAX_OPTIONS;
use crate::spirv::{Def, Id, Inst, Module, Type};

/// One step from a composite into a part, as far as the atomic's place is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Step {
    Member(u32),
    /// Any element of an array: WGSL types all elements alike.
    Element,
}

/// Which integer type an atomic's min/max need.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Need {
    Any,
    Signed,
    Unsigned,
    /// Signed and unsigned min/max both: the declared type, which fits one of them.
    Declared,
}

impl Need {
    /// What a place needs that both `self` and `other` ask of it.
    fn and(self, other: Need) -> Need {
        match (self, other) {
            (a, Need::Any) => a,
            (Need::Any, b) => b,
            (a, b) if a == b => a,
            // Both kinds: as declared, the other kind a compare-exchange loop (`lower/atomic.rs`).
            _ => Need::Declared,
        }
    }
}

/// The core atomics, numbered from AtomicLoad to AtomicXor without a gap.
const CORE_ATOMICS: std::ops::RangeInclusive<u32> = Op::AtomicLoad as u32..=Op::AtomicXor as u32;

/// Asked of every instruction: one range check tells most apart, where a comparison with each
/// atomic opcode in turn cost as much as the rest of the atomics pass.
/// Every atomic opcode is at least AtomicLoad's, most others below it: one comparison first.
pub fn is_atomic(op: Op) -> bool {
    let number = op as u32;
    number >= *CORE_ATOMICS.start()
        && (CORE_ATOMICS.contains(&number)
            || matches!(
                op,
                Op::AtomicFlagTestAndSet
                    | Op::AtomicFlagClear
                    | Op::AtomicFAddEXT
                    | Op::AtomicFMinEXT
                    | Op::AtomicFMaxEXT
            ))
}

pub fn run(module: &mut Module, _options: &Options) -> Result<(), Error> {
    let functions = module.entry_functions();
    // Per variable, the places atomics touch and what each needs.
    let mut places: BTreeMap<Id, BTreeMap<Vec<Step>, Need>> = BTreeMap::new();
    for &f in &functions {
        for inst in module.functions[f].block_insts().filter(|i| is_atomic(i.op)) {
            let location = module.location_of(f, inst);
            if matches!(
                inst.op,
                Op::AtomicFlagTestAndSet
                    | Op::AtomicFlagClear
                    | Op::AtomicFAddEXT
                    | Op::AtomicFMinEXT
                    | Op::AtomicFMaxEXT
            ) {
                return Err(Error::unsupported(
                    format!("Op{:?}: WGSL has atomics on 32-bit integers only", inst.op),
                    location,
                ));
            }
            let pointer = inst.id(0).unwrap_or(0);
            let reached =
                places_of(module, pointer, true, 0).filter(|reached| !reached.is_empty()).ok_or_else(|| {
                    Error::unsupported(
                        "an atomic instruction on memory not reached from a variable through access chains (and \
                         pointer-typed OpSelects and OpPhis)",
                        location.clone(),
                    )
                })?;
            let need = match inst.op {
                Op::AtomicSMin | Op::AtomicSMax => Need::Signed,
                Op::AtomicUMin | Op::AtomicUMax => Need::Unsigned,
                _ => Need::Any,
            };
            for (variable, path) in reached {
                let slot = places.entry(variable).or_default().entry(path).or_insert(need);
                *slot = slot.and(need);
            }
        }
    }
    unify_chosen_places(module, &functions, &mut places);
    // Only `rebuild` makes atomic types: without one, no copy or call can move atomics.
    let mut atomics_made = false;
    // Each type rebuilt with atomics, and the type it was: what a copy of it carries as a value.
    let mut plain = HashMap::new();
    for (variable, leaves) in places {
        let Some(g) = module.global_index(variable) else {
            continue;
        };
        atomics_made = true;
        let leaves: Vec<(Vec<Step>, Need)> = leaves.into_iter().collect();
        let pointee = module.globals[g].pointee;
        let retyped = rebuild(module, pointee, &leaves, variable, &mut plain)?;
        let class = module.globals[g].class;
        module.globals[g].pointee = retyped;
        module.globals[g].ty = module.intern_type(Type::Pointer { class, pointee: retyped });
    }
    for &f in &functions {
        retype_access_chains(module, f, atomics_made)?;
        if atomics_made {
            move_parts(module, f, &plain)?;
        }
    }
    Ok(())
}

/// A pointer chosen at run time (a pointer-typed `OpSelect` or `OpPhi`) has one WGSL type
/// whichever option it is: where atomics are below one option, the same places below the others
/// become atomics too (their plain loads and stores then atomic ones), until no place is added.
fn unify_chosen_places(module: &Module, functions: &[usize], places: &mut BTreeMap<Id, BTreeMap<Vec<Step>, Need>>) {
    if places.is_empty() {
        return;
    }
    let mut choices: Vec<Vec<(Id, Vec<Step>)>> = Vec::new();
    for &f in functions {
        for inst in module.functions[f].block_insts() {
            if !matches!(inst.op, Op::Select | Op::Phi)
                || !matches!(inst.ty().and_then(|ty| module.type_def(ty)), Some(Type::Pointer { .. }))
            {
                continue;
            }
            if let Some(options) = inst.result().and_then(|choice| places_of(module, choice, true, 0)) {
                choices.push(options);
            }
        }
    }
    let mut changed = !choices.is_empty();
    while changed {
        changed = false;
        for options in &choices {
            for (variable, prefix) in options {
                let below: Vec<(Vec<Step>, Need)> = places.get(variable).map_or_else(Vec::new, |leaves| {
                    leaves
                        .iter()
                        .filter(|(path, _)| path.starts_with(prefix))
                        .map(|(path, need)| (path[prefix.len()..].to_vec(), *need))
                        .collect()
                });
                for (other, other_prefix) in options {
                    for (rest, need) in &below {
                        let path = [other_prefix.as_slice(), rest].concat();
                        // Only a place the variable has (options of one type always do).
                        if walk(module, *other, path.clone(), std::iter::empty()).is_none() {
                            continue;
                        }
                        let leaves = places.entry(*other).or_default();
                        let joined = leaves.get(&path).map_or(*need, |old| old.and(*need));
                        changed |= leaves.insert(path, joined) != Some(joined);
                    }
                }
            }
        }
    }
}

/// The variable a pointer comes from, through access chains and copies.
pub(super) fn variable_of(module: &Module, pointer: Id) -> Option<Id> {
    place(module, pointer).map(|(variable, _)| variable)
}

/// The variable a pointer comes from and the steps to where it points.
fn place(module: &Module, pointer: Id) -> Option<(Id, Vec<Step>)> {
    places_of(module, pointer, false, 0)?.pop()
}

/// The variables a pointer comes from, through access chains and copies, and the steps to where
/// it points; with `choices`, also through pointer-typed `OpSelect`s and `OpPhi`s, a place for
/// each option (an `OpUndef` has none). `None` where it cannot be told, or for more than
/// `MAX_OPTIONS` options (which the lowering refuses).
fn places_of(module: &Module, pointer: Id, choices: bool, depth: usize) -> Option<Vec<(Id, Vec<Step>)>> {
    if depth > 64 {
        return None;
    }
    match module.def(pointer) {
        Def::Global(_) => return Some(vec![(pointer, Vec::new())]),
        Def::Value { .. } => {}
        _ => return None,
    }
    let inst = module.value_inst(pointer)?;
    match inst.op {
        Op::CopyObject => places_of(module, inst.id(0)?, choices, depth + 1),
        Op::AccessChain | Op::InBoundsAccessChain => {
            let bases = places_of(module, inst.id(0)?, choices, depth + 1)?;
            bases.into_iter().map(|(variable, path)| walk(module, variable, path, inst.id_operands().skip(1))).collect()
        }
        Op::Select | Op::Phi if choices => {
            let mut all = Vec::new();
            for option in defined_options(module, inst) {
                all.extend(places_of(module, option, true, depth + 1)?);
                if all.len() > MAX_OPTIONS {
                    return None;
                }
            }
            Some(all)
        }
        _ => None,
    }
}

/// The options of an `OpSelect` or `OpPhi` that are no `OpUndef` (spirv-opt's merge-return
/// leaves some, which point nowhere): the select's two operands, the phi's incoming values.
fn defined_options<'a>(module: &'a Module, inst: &'a Inst) -> impl Iterator<Item = Id> + 'a {
    // A phi's operands are (value, parent) pairs.
    let (skip, step) = if inst.op == Op::Select { (1, 1) } else { (0, 2) };
    inst.id_operands().skip(skip).step_by(step).filter(|&id| !module.is_undef(id))
}

/// `path` from `variable` extended by access-chain `indices`.
fn walk(
    module: &Module,
    variable: Id,
    mut path: Vec<Step>,
    indices: impl Iterator<Item = Id>,
) -> Option<(Id, Vec<Step>)> {
    let Def::Global(g) = module.def(variable) else { return None };
    let part = |ty: Id, step: Step| match (module.ty(ty).ok()?, step) {
        (Type::Struct { members }, Step::Member(i)) => members.get(i as usize).copied(),
        (Type::Array { element, .. } | Type::RuntimeArray { element }, Step::Element) => Some(*element),
        _ => None,
    };
    let mut ty = path.iter().try_fold(module.globals[*g].pointee, |ty, &step| part(ty, step))?;
    for index in indices {
        let step = match module.ty(ty).ok()? {
            Type::Struct { .. } => Step::Member(module.const_u32(index)?),
            Type::Array { .. } | Type::RuntimeArray { .. } => Step::Element,
            _ => return None,
        };
        ty = part(ty, step)?;
        path.push(step);
    }
    Some((variable, path))
}

/// `ty` with an atomic at every leaf path; composites on the way become new types.
fn rebuild(
    module: &mut Module,
    ty: Id,
    leaves: &[(Vec<Step>, Need)],
    variable: Id,
    plain: &mut HashMap<Id, Id>,
) -> Result<Id, Error> {
    let at = || Location { result_id: Some(variable), opcode: Some(Op::Variable), ..Location::default() };
    if let Some((_, need)) = leaves.iter().find(|(path, _)| path.is_empty()) {
        let signed = match (module.ty(ty)?, need) {
            (Type::Int { width: 32, .. }, Need::Signed) => true,
            (Type::Int { width: 32, .. }, Need::Unsigned) => false,
            (Type::Int { width: 32, signed }, Need::Any | Need::Declared) => *signed,
            (Type::Atomic { .. }, _) => return Ok(ty),
            _ => {
                return Err(Error::unsupported(
                    "an atomic instruction on other than a 32-bit integer: WGSL has no such atomics",
                    at(),
                ));
            }
        };
        let inner = module.intern_type(Type::Int { width: 32, signed });
        return Ok(module.intern_type(Type::Atomic { inner }));
    }
    let below = |step: Step| -> Vec<(Vec<Step>, Need)> {
        leaves
            .iter()
            .filter(|(path, _)| path.first() == Some(&step))
            .map(|(path, need)| (path[1..].to_vec(), *need))
            .collect()
    };
    let new_ty = match module.ty(ty)?.clone() {
        Type::Struct { members } => {
            let mut new_members = members.clone();
            for (i, member) in members.iter().enumerate() {
                let sub = below(Step::Member(i as u32));
                if !sub.is_empty() {
                    new_members[i] = rebuild(module, *member, &sub, variable, plain)?;
                }
            }
            Type::Struct { members: new_members }
        }
        Type::Array { element, length } => {
            Type::Array { element: rebuild(module, element, &below(Step::Element), variable, plain)?, length }
        }
        Type::RuntimeArray { element } => {
            Type::RuntimeArray { element: rebuild(module, element, &below(Step::Element), variable, plain)? }
        }
        _ => {
            return Err(Error::internal("an atomic's path steps into a non-composite"));
        }
    };
    // A new id even for arrays: decorations (ArrayStride, Offset) belong to the id.
    let new = module.add_def(Def::of_type(new_ty.clone()));
    module.declarations.push(new);
    copy_decorations(module, ty, new, &new_ty);
    plain.insert(new, ty);
    Ok(new)
}

fn copy_decorations(module: &mut Module, from: Id, to: Id, ty: &Type) {
    if let Some(decorations) = module.decorations.get(&from).cloned() {
        module.decorations.insert(to, decorations);
    }
    if let Some(name) = module.names.get(&from).cloned() {
        module.names.insert(to, name);
    }
    // An array-stride wrapper keeps its padded size (`layout` pass).
    if let Some(&size) = module.padded_sizes.get(&from) {
        module.padded_sizes.insert(to, size);
    }
    if let Type::Struct { members } = ty {
        for i in 0..members.len() as u32 {
            if let Some(d) = module.member_decorations.get(&(from, i)).cloned() {
                module.member_decorations.insert((to, i), d);
            }
            if let Some(name) = module.member_names.get(&(from, i)).cloned() {
                module.member_names.insert((to, i), name);
            }
        }
    }
}

/// The type of the part of `ty` that `index` selects.
fn part_type(module: &Module, ty: Id, index: Id) -> Option<Id> {
    Some(match module.ty(ty).ok()? {
        Type::Struct { members } => *members.get(module.const_u32(index)? as usize)?,
        Type::Array { element, .. } | Type::RuntimeArray { element } => *element,
        Type::Vector { component, .. } => *component,
        Type::Matrix { column, .. } => *column,
        _ => return None,
    })
}

fn pointee(module: &Module, pointer: Id) -> Option<(spirv::StorageClass, Id)> {
    match module.ty(module.value_type(pointer)?).ok()? {
        Type::Pointer { class, pointee } => Some((*class, *pointee)),
        _ => None,
    }
}

fn contains_atomic(module: &Module, ty: Id) -> bool {
    match module.type_def(ty) {
        Some(Type::Atomic { .. }) => true,
        Some(Type::Struct { members }) => members.iter().any(|&m| contains_atomic(module, m)),
        Some(Type::Array { element, .. } | Type::RuntimeArray { element }) => contains_atomic(module, *element),
        _ => false,
    }
}

/// Access chains (in file order, so bases come first) get the pointer types of the new store
/// types, and so do pointers chosen at run time (`OpSelect`, `OpPhi`: the type of the first
/// pointer they choose from); copies of composites holding atomics are refused, as WGSL cannot
/// copy atomics (looked for only if `atomics_made`: there are none to find otherwise).
fn retype_access_chains(module: &mut Module, f: usize, atomics_made: bool) -> Result<(), Error> {
    if atomics_made {
        for inst in &module.functions[f].insts {
            refuse_moving_atomics(module, f, inst)?;
        }
    }
    // A phi may come before the pointers it chooses from (blocks need only follow their
    // dominators), so again until no type changes; a pass per instruction at most, which an
    // invalid module's pointers derived from each other could otherwise exceed.
    for _ in 0..=module.functions[f].insts.len() {
        if !retype_pointers_once(module, f) {
            break;
        }
    }
    Ok(())
}

/// One pass of `retype_access_chains` over function `f`: whether a type changed.
fn retype_pointers_once(module: &mut Module, f: usize) -> bool {
    let mut changed = false;
    for index in 0..module.functions[f].insts.len() {
        let inst: &Inst = &module.functions[f].insts[index];
        // The pointer the result's type follows (of a choice, the first option that is no
        // OpUndef, whose type stays), and whether indices follow it.
        let (base, indexed) = match inst.op {
            Op::AccessChain | Op::InBoundsAccessChain | Op::CopyObject => (inst.id(0), true),
            Op::Select | Op::Phi => (defined_options(module, inst).next(), false),
            _ => continue,
        };
        let Some((class, base_pointee)) = pointee(module, base.unwrap_or(0)) else {
            continue;
        };
        let declared = inst.ty().and_then(|ty| match module.type_def(ty) {
            Some(Type::Pointer { pointee, .. }) => Some(*pointee),
            _ => None,
        });
        let walked = match indexed {
            true => inst.id_operands().skip(1).try_fold(base_pointee, |ty, step| part_type(module, ty, step)),
            false => Some(base_pointee),
        };
        let (Some(walked), Some(result)) = (walked, inst.result()) else {
            continue;
        };
        if declared != Some(walked) {
            let new = module.intern_type(Type::Pointer { class, pointee: walked });
            module.functions[f].insts[index].set_ty(new);
            module.defs[result as usize] = Def::value(f, index, new);
            changed = true;
        }
    }
    changed
}

/// Calls cannot move atomics in WGSL: `inst` (of function `f`) must not pass a pointer to them.
fn refuse_moving_atomics(module: &Module, f: usize, inst: &Inst) -> Result<(), Error> {
    if inst.op == Op::FunctionCall
        && inst.id_operands().skip(1).any(|arg| pointee(module, arg).is_some_and(|(_, p)| contains_atomic(module, p)))
    {
        return Err(Error::unsupported(
            "passing a pointer to atomics to a function (not supported yet)",
            module.location_of(f, inst),
        ));
    }
    Ok(())
}

/// Whether a load or store through a pointer to `ty` moves atomics inside a struct or array.
fn moves_atomics(module: &Module, ty: Id) -> bool {
    !matches!(module.type_def(ty), Some(Type::Atomic { .. })) && contains_atomic(module, ty)
}

/// Loads, stores and copies (`OpCopyMemory`) of a whole struct or array holding atomics, which
/// WGSL cannot write, go part by part in function `f`, down to each atomic, which the emitter loads
/// and stores atomically (`atomicLoad`, `atomicStore`); parts without atomics go whole.
fn move_parts(module: &mut Module, f: usize, plain: &HashMap<Id, Id>) -> Result<(), Error> {
    for b in 0..module.functions[f].blocks.len() {
        let old = std::mem::take(&mut module.functions[f].blocks[b].insts);
        let mut out = Vec::with_capacity(old.len());
        for index in old {
            let inst = &module.functions[f].insts[index];
            let (op, first, second, result, ty) = (inst.op, inst.id(0), inst.id(1), inst.result(), inst.ty());
            let pointees = [first, second].map(|p| p.and_then(|p| pointee(module, p)).map(|(_, ty)| ty));
            let moved = match op {
                Op::Load | Op::Store => pointees[0].is_some_and(|ty| moves_atomics(module, ty)),
                Op::CopyMemory => pointees.iter().flatten().any(|&ty| moves_atomics(module, ty)),
                _ => false,
            };
            let (Some(pointer), true) = (first, moved) else {
                out.push(index);
                continue;
            };
            match (op, second, ty) {
                (Op::Load, _, Some(ty)) => {
                    load_parts(module, f, &mut out, pointer, ty, result)?;
                }
                (Op::Store, Some(value), _) => store_parts(module, f, &mut out, pointer, value)?,
                (Op::CopyMemory, Some(source), _) => {
                    let source_pointee = pointees[1].unwrap_or_default();
                    let ty = plain.get(&source_pointee).copied().unwrap_or(source_pointee);
                    let value = load_parts(module, f, &mut out, source, ty, None)?;
                    store_parts(module, f, &mut out, pointer, value)?;
                }
                _ => out.push(index),
            }
        }
        module.functions[f].blocks[b].insts = out;
    }
    Ok(())
}

/// The parts of a struct or fixed-size array of type `ty`: (index, part type) in order.
fn parts(module: &Module, ty: Id) -> Result<Vec<(u32, Id)>, Error> {
    Ok(match module.ty(ty)? {
        Type::Struct { members } => members.iter().enumerate().map(|(i, &m)| (i as u32, m)).collect(),
        Type::Array { element, length } => {
            let count = module.const_u32(*length).ok_or_else(|| {
                Error::unsupported("copying a specialization-sized array of atomics", Location::default())
            })?;
            (0..count).map(|i| (i, *element)).collect()
        }
        _ => return Err(Error::internal("a part of a non-composite holding atomics")),
    })
}

/// A pointer to part `index` (of type `part`) of what `pointer` points to.
fn part_pointer(module: &mut Module, f: usize, out: &mut Vec<usize>, pointer: Id, index: u32, part: Id) -> Id {
    let class = pointee(module, pointer).map_or(spirv::StorageClass::StorageBuffer, |(class, _)| class);
    let ty = module.intern_type(Type::Pointer { class, pointee: part });
    let index = module.index_constant(index);
    module.push_inst(f, out, Op::AccessChain, Some(ty), vec![pointer, index], None)
}

/// Loads the value of type `ty` at `pointer` part by part where it holds atomics, defining
/// `result` (or a fresh id) as it.
fn load_parts(
    module: &mut Module,
    f: usize,
    out: &mut Vec<usize>,
    pointer: Id,
    ty: Id,
    result: Option<Id>,
) -> Result<Id, Error> {
    let stored = pointee(module, pointer).map(|(_, ty)| ty).unwrap_or_default();
    if !moves_atomics(module, stored) {
        return Ok(module.push_inst(f, out, Op::Load, Some(ty), vec![pointer], result));
    }
    let value_parts = parts(module, ty)?;
    let mut loaded = Vec::with_capacity(value_parts.len());
    for ((index, part), (_, stored_part)) in value_parts.into_iter().zip(parts(module, stored)?) {
        let pointer = part_pointer(module, f, out, pointer, index, stored_part);
        loaded.push(load_parts(module, f, out, pointer, part, None)?);
    }
    Ok(module.push_inst(f, out, Op::CompositeConstruct, Some(ty), loaded, result))
}

/// Stores `value` at `pointer` part by part where what it points to holds atomics.
fn store_parts(module: &mut Module, f: usize, out: &mut Vec<usize>, pointer: Id, value: Id) -> Result<(), Error> {
    let stored = pointee(module, pointer).map(|(_, ty)| ty).unwrap_or_default();
    if !moves_atomics(module, stored) {
        module.push_inst(f, out, Op::Store, None, vec![pointer, value], None);
        return Ok(());
    }
    let ty = module.value_type(value).ok_or_else(|| Error::internal("a stored value without a type"))?;
    for ((index, part), (_, stored_part)) in parts(module, ty)?.into_iter().zip(parts(module, stored)?) {
        let pointer = part_pointer(module, f, out, pointer, index, stored_part);
        let extracted = module.push_extract(f, out, part, value, index);
        store_parts(module, f, out, pointer, extracted)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_core_atomics_are_the_opcodes_from_atomic_load_to_atomic_xor() {
        use Op::*;
        let core = [
            AtomicLoad,
            AtomicStore,
            AtomicExchange,
            AtomicCompareExchange,
            AtomicCompareExchangeWeak,
            AtomicIIncrement,
            AtomicIDecrement,
            AtomicIAdd,
            AtomicISub,
            AtomicSMin,
            AtomicUMin,
            AtomicSMax,
            AtomicUMax,
            AtomicAnd,
            AtomicOr,
            AtomicXor,
        ];
        assert_eq!(CORE_ATOMICS.map(|n| Op::from_u32(n).unwrap()).collect::<Vec<_>>(), core);
        let atomics: Vec<Op> = (0..=0xffff).filter_map(Op::from_u32).filter(|&op| is_atomic(op)).collect();
        assert_eq!(atomics.len(), core.len() + 5, "{atomics:?}");
        assert!(
            [AtomicFlagTestAndSet, AtomicFlagClear, AtomicFAddEXT, AtomicFMinEXT, AtomicFMaxEXT]
                .iter()
                .all(|op| atomics.contains(op))
        );
    }
}
