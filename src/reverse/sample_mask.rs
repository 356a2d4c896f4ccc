//! Builtins whose Vulkan type is a one-element array of WGSL's scalar: `SampleMask` (WGSL `u32`,
//! Vulkan `array<u32, 1>`, VUID-SampleMask-SampleMask-04359).
//!
//! Before: each given variable is a scalar 32-bit integer `Input` or `Output` variable that the
//! functions only load and store whole. After: its type is `array<T, 1>`, and each load or store
//! goes through an `OpAccessChain` to element 0, so every read and write sees WGSL's value.

use rspirv::dr::{Instruction, Module, Operand};
use spirv::{Op, Word};

use super::error::Error;
use super::module_edit::{fresh_id, next_id};

pub fn run(module: &mut Module, variables: &[Word]) -> Result<(), Error> {
    for &variable in variables {
        let element_pointer = wrap_in_array(module, variable)?;
        reach_through_element_zero(module, variable, element_pointer)?;
    }
    Ok(())
}

/// Gives `variable` the type `array<T, 1>` in its storage class; returns its old pointer type
/// (to `T`, in the same class) and the constant index 0.
fn wrap_in_array(module: &mut Module, variable: Word) -> Result<(Word, Word), Error> {
    let globals = &module.types_global_values;
    let at = globals
        .iter()
        .position(|inst| inst.result_id == Some(variable) && inst.class.opcode == Op::Variable)
        .ok_or_else(|| Error::internal(format!("%{variable} is not a global variable")))?;
    let pointer = globals[at].result_type.unwrap_or_default();
    let (class, element) = globals[..at]
        .iter()
        .find(|inst| inst.result_id == Some(pointer))
        .and_then(|inst| match (inst.class.opcode, inst.operands.as_slice()) {
            (Op::TypePointer, &[Operand::StorageClass(class), Operand::IdRef(element)]) => Some((class, element)),
            _ => None,
        })
        .ok_or_else(|| Error::internal(format!("%{variable} has no pointer type")))?;
    let is_int32 = globals[..at].iter().any(|inst| {
        inst.result_id == Some(element)
            && inst.class.opcode == Op::TypeInt
            && inst.operands.first() == Some(&Operand::LiteralBit32(32))
    });
    if !is_int32 {
        return Err(Error::internal(format!("%{variable} should hold a 32-bit integer")));
    }

    let mut declarations = Vec::new();
    let zero = constant(module, at, element, 0, &mut declarations)?;
    let one = constant(module, at, element, 1, &mut declarations)?;
    let array = fresh_id(module)?;
    let array_pointer = fresh_id(module)?;
    declarations.push(Instruction::new(
        Op::TypeArray,
        None,
        Some(array),
        vec![Operand::IdRef(element), Operand::IdRef(one)],
    ));
    declarations.push(Instruction::new(
        Op::TypePointer,
        None,
        Some(array_pointer),
        vec![Operand::StorageClass(class), Operand::IdRef(array)],
    ));
    module.types_global_values[at].result_type = Some(array_pointer);
    module.types_global_values.splice(at..at, declarations);
    Ok((pointer, zero))
}

/// An `OpConstant` of `ty` with `value` declared before index `before`, reused if one exists,
/// otherwise added to `declarations`.
fn constant(
    module: &mut Module,
    before: usize,
    ty: Word,
    value: u32,
    declarations: &mut Vec<Instruction>,
) -> Result<Word, Error> {
    let is_it = |inst: &Instruction| {
        inst.class.opcode == Op::Constant
            && inst.result_type == Some(ty)
            && inst.operands == [Operand::LiteralBit32(value)]
    };
    let existing = module.types_global_values[..before].iter().chain(declarations.iter()).find(|inst| is_it(inst));
    if let Some(id) = existing.and_then(|inst| inst.result_id) {
        return Ok(id);
    }
    let id = fresh_id(module)?;
    declarations.push(Instruction::new(Op::Constant, Some(ty), Some(id), vec![Operand::LiteralBit32(value)]));
    Ok(id)
}

/// Every `OpLoad` and `OpStore` of `variable` goes through `OpAccessChain %variable %zero`.
fn reach_through_element_zero(
    module: &mut Module,
    variable: Word,
    (element_pointer, zero): (Word, Word),
) -> Result<(), Error> {
    let header = module.header.as_mut().ok_or_else(|| Error::internal("the SPIR-V has no header"))?;
    for block in module.functions.iter_mut().flat_map(|function| &mut function.blocks) {
        let mut rewritten = Vec::with_capacity(block.instructions.len());
        for mut inst in block.instructions.drain(..) {
            let uses = inst.operands.iter().any(|operand| operand.id_ref_any() == Some(variable));
            let whole_access = matches!(inst.class.opcode, Op::Load | Op::Store)
                && inst.operands.first() == Some(&Operand::IdRef(variable));
            if uses && !whole_access {
                return Err(Error::internal(format!(
                    "%{variable} is used by Op{:?}, which the sample-mask rewrite does not handle",
                    inst.class.opcode
                )));
            }
            if whole_access {
                let element = next_id(header);
                let operands = vec![Operand::IdRef(variable), Operand::IdRef(zero)];
                rewritten.push(Instruction::new(Op::AccessChain, Some(element_pointer), Some(element), operands));
                inst.operands[0] = Operand::IdRef(element);
            }
            rewritten.push(inst);
        }
        block.instructions = rewritten;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = "@fragment fn main(@builtin(sample_mask) mask: u32) -> @builtin(sample_mask) u32 {\n\
                            return mask & 1u;\n\
                          }\n";

    /// naga's module, conformed, and its sample-mask variables.
    fn conformed() -> (Module, Vec<Word>) {
        let (mut module, plans) = super::super::tests::naga_output(SOURCE, (1, 3));
        let variables = super::super::conform::run(&mut module, &plans).expect("conforms");
        (module, variables)
    }

    #[test]
    fn both_masks_become_arrays_of_one() {
        let (mut module, variables) = conformed();
        assert_eq!(variables.len(), 2);
        run(&mut module, &variables).expect("rewritten");
        for variable in variables {
            let globals = &module.types_global_values;
            let pointer = globals.iter().find(|i| i.result_id == Some(variable)).and_then(|i| i.result_type);
            let pointee = globals.iter().find(|i| i.result_id == pointer).and_then(|i| i.operands[1].id_ref_any());
            let array = globals.iter().find(|i| i.result_id == pointee).expect("the pointee");
            assert_eq!(array.class.opcode, Op::TypeArray);
        }
    }

    #[test]
    fn a_use_other_than_load_or_store_is_an_internal_error() {
        let (mut module, variables) = conformed();
        let pointer =
            module.types_global_values.iter().find(|i| i.result_id == Some(variables[0])).and_then(|i| i.result_type);
        let copy = Instruction::new(
            Op::CopyObject,
            pointer,
            Some(fresh_id(&mut module).unwrap()),
            vec![Operand::IdRef(variables[0])],
        );
        module.functions[0].blocks[0].instructions.insert(0, copy);
        let error = run(&mut module, &variables).expect_err("OpCopyObject is not rewritten");
        assert_eq!(error.exit_code(), 3, "{error}");
    }
}
