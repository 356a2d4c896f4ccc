//! Zeroing workgroup memory part by part where a whole store cannot do it.
//!
//! WGSL zero-initialises workgroup memory; naga's SPIR-V does it at the entry point's start with
//! one `OpStore` of `OpConstantNull` per variable. Two kinds of variable cannot be written whole
//! on the way back to WGSL: one holding atomics (WGSL cannot assign a value containing an atomic,
//! only `atomicStore` each) and one holding an array whose length is an override (WGSL has no
//! value of that type). Their store becomes one store per part: `OpAtomicStore` for each atomic
//! (an integer some atomic instruction reaches), a loop over each array holding such parts, and
//! one whole store of `OpConstantNull` for any part holding neither.
//!
//! Before: naga's zeroing stores. After: for those variables, stores of the parts, in loops.

use std::collections::{HashMap, HashSet};

use rspirv::dr::{Block, Instruction, Module, Operand};
use spirv::{LoopControl, MemorySemantics, Op, Scope, StorageClass, Word};

use super::declarations::{self, Scalar};
use super::error::Error;
use super::module_edit::{constant_u32, fresh_id, global_def, pointee};
use crate::passes::atomics::is_atomic;

/// One step into a composite: a struct member, or any element of an array.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Step {
    Member(u32),
    Element,
}

pub fn run(module: &mut Module) -> Result<(), Error> {
    let variables: HashMap<Word, Word> = module
        .types_global_values
        .iter()
        .filter(|inst| {
            inst.class.opcode == Op::Variable
                && inst.operands.first() == Some(&Operand::StorageClass(StorageClass::Workgroup))
        })
        .filter_map(|inst| Some((inst.result_id?, pointee(module, inst.result_type?)?)))
        .collect();
    if variables.is_empty() {
        return Ok(());
    }
    let atomics = atomic_paths(module, &variables);
    let mut zeroing = Zeroing { atomics, nulls_replaced: HashSet::new() };
    for index in 0..module.functions.len() {
        zeroing.function(module, index, &variables)?;
    }
    // The whole-variable zeros nothing stores any more.
    for null in &zeroing.nulls_replaced {
        if !module.all_inst_iter().any(|inst| inst.operands.iter().any(|o| o.id_ref_any() == Some(*null))) {
            module.types_global_values.retain(|inst| inst.result_id != Some(*null));
        }
    }
    if !zeroing.nulls_replaced.is_empty() {
        declarations::sort(module);
    }
    Ok(())
}

/// For each variable, the paths an atomic instruction reaches through access chains.
fn atomic_paths(module: &Module, variables: &HashMap<Word, Word>) -> HashMap<Word, HashSet<Vec<Step>>> {
    let mut paths: HashMap<Word, HashSet<Vec<Step>>> = HashMap::new();
    for function in &module.functions {
        // Each pointer into a variable: the variable and the path.
        let mut pointers: HashMap<Word, (Word, Vec<Step>)> = variables.keys().map(|&v| (v, (v, Vec::new()))).collect();
        for inst in function.all_inst_iter() {
            let first = inst.operands.first().and_then(Operand::id_ref_any);
            match inst.class.opcode {
                Op::AccessChain | Op::InBoundsAccessChain => {
                    let (Some(base), Some(result)) = (first, inst.result_id) else { continue };
                    let Some((variable, mut path)) = pointers.get(&base).cloned() else { continue };
                    let mut ty = walk(module, variables[&variable], &path);
                    for index in inst.operands[1..].iter().filter_map(Operand::id_ref_any) {
                        let step = match ty.and_then(|t| global_def(module, t)).map(|t| t.class.opcode) {
                            Some(Op::TypeStruct) => constant_u32(module, index).map_or(Step::Element, Step::Member),
                            _ => Step::Element,
                        };
                        path.push(step);
                        ty = ty.and_then(|t| part(module, t, step));
                    }
                    pointers.insert(result, (variable, path));
                }
                opcode if is_atomic(opcode) => {
                    if let Some((variable, path)) = first.and_then(|pointer| pointers.get(&pointer)) {
                        paths.entry(*variable).or_default().insert(path.clone());
                    }
                }
                _ => {}
            }
        }
    }
    paths
}

/// The type `path` reaches from `ty`.
fn walk(module: &Module, ty: Word, path: &[Step]) -> Option<Word> {
    path.iter().try_fold(ty, |ty, &step| part(module, ty, step))
}

fn part(module: &Module, ty: Word, step: Step) -> Option<Word> {
    let inst = global_def(module, ty)?;
    let parts: Vec<Word> = inst.operands.iter().filter_map(Operand::id_ref_any).collect();
    match (inst.class.opcode, step) {
        (Op::TypeStruct, Step::Member(m)) => parts.get(m as usize).copied(),
        (Op::TypeArray | Op::TypeRuntimeArray | Op::TypeVector | Op::TypeMatrix, Step::Element) => {
            parts.first().copied()
        }
        _ => None,
    }
}

struct Zeroing {
    atomics: HashMap<Word, HashSet<Vec<Step>>>,
    /// The `OpConstantNull`s of the stores replaced.
    nulls_replaced: HashSet<Word>,
}

/// The blocks being written in place of one.
struct Writer {
    /// Finished blocks.
    blocks: Vec<Block>,
    /// The block being written: its label and instructions.
    label: Word,
    current: Vec<Instruction>,
}

impl Writer {
    fn finish(&mut self, terminator: Instruction, next: Word) {
        self.current.push(terminator);
        let label = Instruction::new(Op::Label, None, Some(self.label), Vec::new());
        self.blocks.push(Block { label: Some(label), instructions: std::mem::take(&mut self.current) });
        self.label = next;
    }
}

impl Zeroing {
    fn function(&mut self, module: &mut Module, index: usize, variables: &HashMap<Word, Word>) -> Result<(), Error> {
        let blocks = std::mem::take(&mut module.functions[index].blocks);
        let originals: HashSet<Word> =
            blocks.iter().filter_map(|b| b.label.as_ref().and_then(|l| l.result_id)).collect();
        let mut rewritten = Vec::with_capacity(blocks.len());
        // Blocks renamed: successors' phis must name the block that now branches to them.
        let mut renamed: HashMap<Word, Word> = HashMap::new();
        for block in blocks {
            let label = block.label.as_ref().and_then(|l| l.result_id).unwrap_or_default();
            let mut writer = Writer { blocks: Vec::new(), label, current: Vec::new() };
            for inst in block.instructions {
                let store = match (inst.class.opcode, inst.operands.as_slice()) {
                    (Op::Store, [Operand::IdRef(pointer), Operand::IdRef(value), ..]) => Some((*pointer, *value)),
                    _ => None,
                };
                let zeroed = store.filter(|&(pointer, value)| {
                    variables.contains_key(&pointer)
                        && is_null(module, value)
                        && self.needs_parts(module, pointer, variables[&pointer])
                });
                match zeroed {
                    Some((variable, null)) => {
                        self.nulls_replaced.insert(null);
                        let atomics = self.atomics.get(&variable).cloned().unwrap_or_default();
                        zero(module, &mut writer, &atomics, variable, variables[&variable], &mut Vec::new())?;
                    }
                    None => writer.current.push(inst),
                }
            }
            if writer.label != label {
                renamed.insert(label, writer.label);
            }
            let last = Instruction::new(Op::Label, None, Some(writer.label), Vec::new());
            writer.blocks.push(Block { label: Some(last), instructions: writer.current });
            rewritten.extend(writer.blocks);
        }
        // The loops' own phis name their entry as it is.
        let original =
            |block: &Block| block.label.as_ref().and_then(|l| l.result_id).is_some_and(|l| originals.contains(&l));
        for inst in rewritten.iter_mut().filter(|block| original(block)).flat_map(|block| &mut block.instructions) {
            if inst.class.opcode == Op::Phi {
                for operand in inst.operands.iter_mut().skip(1).step_by(2) {
                    if let Operand::IdRef(parent) = operand
                        && let Some(&now) = renamed.get(parent)
                    {
                        *parent = now;
                    }
                }
            }
        }
        module.functions[index].blocks = rewritten;
        Ok(())
    }

    /// Whether the variable holds an atomic or an array sized by a specialization constant.
    fn needs_parts(&self, module: &Module, variable: Word, ty: Word) -> bool {
        self.atomics.get(&variable).is_some_and(|paths| !paths.is_empty()) || holds_spec_array(module, ty)
    }
}

fn holds_spec_array(module: &Module, ty: Word) -> bool {
    let Some(inst) = global_def(module, ty) else { return false };
    match inst.class.opcode {
        Op::TypeArray => {
            let length = inst.operands.get(1).and_then(Operand::id_ref_any);
            let spec = length.and_then(|l| global_def(module, l)).is_some_and(|l| l.class.opcode != Op::Constant);
            spec || inst.operands.first().and_then(Operand::id_ref_any).is_some_and(|e| holds_spec_array(module, e))
        }
        Op::TypeStruct => inst.operands.iter().filter_map(Operand::id_ref_any).any(|m| holds_spec_array(module, m)),
        _ => false,
    }
}

/// Whether a path of `atomics` starts with `prefix` (an `Element` step matches any element).
fn reaches_atomic(atomics: &HashSet<Vec<Step>>, prefix: &[Step]) -> bool {
    atomics.iter().any(|path| path.starts_with(prefix))
}

/// Writes zero into `pointer` (to a `ty` reached by `path`), part by part where it must.
fn zero(
    module: &mut Module,
    writer: &mut Writer,
    atomics: &HashSet<Vec<Step>>,
    pointer: Word,
    ty: Word,
    path: &mut Vec<Step>,
) -> Result<(), Error> {
    let inst = global_def(module, ty).cloned().ok_or_else(|| Error::internal(format!("%{ty} is not a type")))?;
    let uint = declarations::scalar_type(module, Scalar::Int { width: 32, signed: false })?;
    if atomics.contains(path.as_slice()) {
        let scope =
            declarations::constant(module, Op::Constant, uint, vec![Operand::LiteralBit32(Scope::Workgroup as u32)])?;
        let semantics = declarations::constant(
            module,
            Op::Constant,
            uint,
            vec![Operand::LiteralBit32(MemorySemantics::empty().bits())],
        )?;
        let zero = declarations::constant(module, Op::Constant, ty, vec![Operand::LiteralBit32(0)])?;
        let operands = [pointer, scope, semantics, zero].map(Operand::IdRef).to_vec();
        writer.current.push(Instruction::new(Op::AtomicStore, None, None, operands));
        return Ok(());
    }
    if !reaches_atomic(atomics, path) && !holds_spec_array(module, ty) {
        let null = declarations::constant(module, Op::ConstantNull, ty, Vec::new())?;
        writer.current.push(Instruction::new(
            Op::Store,
            None,
            None,
            vec![Operand::IdRef(pointer), Operand::IdRef(null)],
        ));
        return Ok(());
    }
    let parts: Vec<Word> = inst.operands.iter().filter_map(Operand::id_ref_any).collect();
    match inst.class.opcode {
        Op::TypeStruct => {
            for (member, &member_ty) in parts.iter().enumerate() {
                let index =
                    declarations::constant(module, Op::Constant, uint, vec![Operand::LiteralBit32(member as u32)])?;
                let part = access(module, writer, pointer, index, member_ty)?;
                path.push(Step::Member(member as u32));
                zero(module, writer, atomics, part, member_ty, path)?;
                path.pop();
            }
        }
        Op::TypeArray => {
            let (element, length) = (parts[0], parts[1]);
            let counter = open_loop(module, writer, length)?;
            let part = access(module, writer, pointer, counter.index, element)?;
            path.push(Step::Element);
            zero(module, writer, atomics, part, element, path)?;
            path.pop();
            close_loop(module, writer, counter)?;
        }
        other => return Err(Error::internal(format!("zeroing an atomic inside Op{other:?}"))),
    }
    Ok(())
}

fn access(module: &mut Module, writer: &mut Writer, base: Word, index: Word, ty: Word) -> Result<Word, Error> {
    let pointer_type = declarations::type_id(
        module,
        Op::TypePointer,
        vec![Operand::StorageClass(StorageClass::Workgroup), Operand::IdRef(ty)],
    )?;
    let id = fresh_id(module)?;
    writer.current.push(Instruction::new(
        Op::AccessChain,
        Some(pointer_type),
        Some(id),
        vec![Operand::IdRef(base), Operand::IdRef(index)],
    ));
    Ok(id)
}

/// A loop being written: its counter, its header, continue target and merge block.
struct Counter {
    index: Word,
    next: Word,
    header: Word,
    continuing: Word,
    merge: Word,
}

/// Ends the current block with a branch into a loop counting from 0 to `length`; the body is
/// written next.
fn open_loop(module: &mut Module, writer: &mut Writer, length: Word) -> Result<Counter, Error> {
    let uint = declarations::scalar_type(module, Scalar::Int { width: 32, signed: false })?;
    let bool_type = declarations::scalar_type(module, Scalar::Bool)?;
    let zero = declarations::constant(module, Op::Constant, uint, vec![Operand::LiteralBit32(0)])?;
    let ids = [
        fresh_id(module)?,
        fresh_id(module)?,
        fresh_id(module)?,
        fresh_id(module)?,
        fresh_id(module)?,
        fresh_id(module)?,
        fresh_id(module)?,
    ];
    let [index, next, header, body, continuing, merge, condition] = ids;
    let entry = writer.label;
    writer.finish(Instruction::new(Op::Branch, None, None, vec![Operand::IdRef(header)]), header);
    let phi = [zero, entry, next, continuing].map(Operand::IdRef).to_vec();
    writer.current.push(Instruction::new(Op::Phi, Some(uint), Some(index), phi));
    writer.current.push(Instruction::new(
        Op::ULessThan,
        Some(bool_type),
        Some(condition),
        vec![Operand::IdRef(index), Operand::IdRef(length)],
    ));
    let loop_merge = vec![Operand::IdRef(merge), Operand::IdRef(continuing), Operand::LoopControl(LoopControl::NONE)];
    writer.current.push(Instruction::new(Op::LoopMerge, None, None, loop_merge));
    let branch = [condition, body, merge].map(Operand::IdRef).to_vec();
    writer.finish(Instruction::new(Op::BranchConditional, None, None, branch), body);
    Ok(Counter { index, next, header, continuing, merge })
}

/// Ends the loop's body, writes its continue block, and goes on in its merge block.
fn close_loop(module: &mut Module, writer: &mut Writer, counter: Counter) -> Result<(), Error> {
    let uint = declarations::scalar_type(module, Scalar::Int { width: 32, signed: false })?;
    let one = declarations::constant(module, Op::Constant, uint, vec![Operand::LiteralBit32(1)])?;
    writer
        .finish(Instruction::new(Op::Branch, None, None, vec![Operand::IdRef(counter.continuing)]), counter.continuing);
    writer.current.push(Instruction::new(
        Op::IAdd,
        Some(uint),
        Some(counter.next),
        vec![Operand::IdRef(counter.index), Operand::IdRef(one)],
    ));
    writer.finish(Instruction::new(Op::Branch, None, None, vec![Operand::IdRef(counter.header)]), counter.merge);
    Ok(())
}

fn is_null(module: &Module, id: Word) -> bool {
    global_def(module, id).is_some_and(|inst| inst.class.opcode == Op::ConstantNull)
}
