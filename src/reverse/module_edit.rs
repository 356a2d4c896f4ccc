//! Small queries and edits on rspirv's module that the fix-up passes share.

use rspirv::dr::{Instruction, Module, ModuleHeader, Operand};
use spirv::{Decoration, Op, StorageClass, Word};

use super::error::Error;

/// A fresh result id (the header's bound grows by one).
pub fn fresh_id(module: &mut Module) -> Result<Word, Error> {
    let header = module.header.as_mut().ok_or_else(|| Error::internal("the SPIR-V has no header"))?;
    Ok(next_id(header))
}

/// The next result id of the module with this header.
pub fn next_id(header: &mut ModuleHeader) -> Word {
    let id = header.bound;
    header.bound += 1;
    id
}

/// Every global `OpVariable`, in declaration order, with its storage class.
pub fn global_variables(module: &Module) -> impl Iterator<Item = (Word, StorageClass)> + '_ {
    module.types_global_values.iter().filter_map(|inst| {
        match (inst.class.opcode, inst.result_id, inst.operands.first()) {
            (Op::Variable, Some(id), Some(&Operand::StorageClass(class))) => Some((id, class)),
            _ => None,
        }
    })
}

/// The storage class of the global `OpVariable` with result `id`, if it is one.
pub fn global_class(module: &Module, id: Word) -> Option<StorageClass> {
    global_variables(module).find(|&(variable, _)| variable == id).map(|(_, class)| class)
}

/// The `OpDecorate` instructions on `target`.
pub fn decorations_of(module: &Module, target: Word) -> impl Iterator<Item = &Instruction> {
    module.annotations.iter().filter(move |inst| decorated(inst) == Some(target))
}

/// The target of an `OpDecorate`.
pub fn decorated(inst: &Instruction) -> Option<Word> {
    match (inst.class.opcode, inst.operands.first()) {
        (Op::Decorate, Some(&Operand::IdRef(target))) => Some(target),
        _ => None,
    }
}

/// The decoration an `OpDecorate` applies.
pub fn decoration(inst: &Instruction) -> Option<Decoration> {
    match inst.operands.get(1) {
        Some(&Operand::Decoration(decoration)) => Some(decoration),
        _ => None,
    }
}

/// `OpDecorate target decoration`, without literals.
pub fn decorate(target: Word, decoration: Decoration) -> Instruction {
    Instruction::new(Op::Decorate, None, None, vec![Operand::IdRef(target), Operand::Decoration(decoration)])
}

/// The function an `OpEntryPoint` names, and its name.
pub fn entry_point_target(inst: &Instruction) -> Option<(Word, &str)> {
    match (inst.operands.get(1), inst.operands.get(2)) {
        (Some(&Operand::IdRef(function)), Some(Operand::LiteralString(name))) => Some((function, name)),
        _ => None,
    }
}

/// The interface ids an `OpEntryPoint` lists.
pub fn entry_point_interface(inst: &Instruction) -> Vec<Word> {
    inst.operands.iter().skip(3).filter_map(|operand| operand.id_ref_any()).collect()
}

/// The module-scope instruction (type, constant or global variable) with result `id`.
pub fn global_def(module: &Module, id: Word) -> Option<&Instruction> {
    module.types_global_values.iter().find(|inst| inst.result_id == Some(id))
}

/// The result type of every instruction, module scope and function bodies, by result id.
pub fn result_types(module: &Module) -> std::collections::HashMap<Word, Word> {
    let functions = module.functions.iter().flat_map(|function| function.all_inst_iter());
    module
        .types_global_values
        .iter()
        .chain(functions)
        .filter_map(|inst| Some((inst.result_id?, inst.result_type?)))
        .collect()
}

/// Adds `OpCapability capability` unless the module declares it.
pub fn require_capability(module: &mut Module, capability: spirv::Capability) {
    let declared =
        module.capabilities.iter().any(|inst| inst.operands.first() == Some(&Operand::Capability(capability)));
    if !declared {
        module.capabilities.push(Instruction::new(Op::Capability, None, None, vec![Operand::Capability(capability)]));
    }
}

/// The pointee of the pointer type `pointer`.
pub fn pointee(module: &Module, pointer: Word) -> Option<Word> {
    match global_def(module, pointer)?.operands.as_slice() {
        [Operand::StorageClass(_), Operand::IdRef(pointee)] => Some(*pointee),
        _ => None,
    }
}

/// The value of a 32-bit integer `OpConstant`.
pub fn constant_u32(module: &Module, id: Word) -> Option<u32> {
    let inst = global_def(module, id)?;
    match (inst.class.opcode, inst.operands.as_slice()) {
        (Op::Constant, &[Operand::LiteralBit32(value)]) => Some(value),
        _ => None,
    }
}
