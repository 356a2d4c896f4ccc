//! Phis that choose nothing: a phi whose incoming values are all one value (or the phi itself),
//! as spirv-opt leaves at loop exits and single-predecessor merges, is that value. Its uses are
//! rewritten to the value and the phi is removed, so the output needs no variable for it. The
//! value dominates every predecessor, hence the phi's block and every use.
//!
//! After: no phi has a single distinct incoming value.

use std::collections::HashMap;

use spirv::Op;

use crate::Options;
use crate::error::Error;
use crate::spirv::{Id, Module, Operand};

pub fn run(module: &mut Module, _options: &Options) -> Result<(), Error> {
    for function in &mut module.functions {
        let mut replaced: HashMap<Id, Id> = HashMap::new();
        for block in &function.blocks {
            for &index in &block.insts {
                let phi = &function.insts[index];
                match phi.op {
                    Op::Phi => {}
                    Op::Line | Op::NoLine => continue,
                    _ => break,
                }
                let Some(result) = phi.result() else { continue };
                if let Some(value) = single_value(phi.operands.iter().step_by(2), result, &replaced) {
                    replaced.insert(result, value);
                }
            }
        }
        if replaced.is_empty() {
            continue;
        }
        for inst in &mut function.insts {
            for operand in &mut inst.operands {
                if let Operand::IdRef(id) = operand {
                    *id = resolve(&replaced, *id);
                }
            }
        }
        let insts = &function.insts;
        for block in &mut function.blocks {
            block.insts.retain(|&index| !insts[index].result().is_some_and(|id| replaced.contains_key(&id)));
        }
    }
    Ok(())
}

/// The one value among `incoming` other than the phi itself, if there is exactly one.
fn single_value<'a>(incoming: impl Iterator<Item = &'a Operand>, phi: Id, replaced: &HashMap<Id, Id>) -> Option<Id> {
    let mut single = None;
    for operand in incoming {
        let Operand::IdRef(value) = operand else { return None };
        let value = resolve(replaced, *value);
        if value == phi || single == Some(value) {
            continue;
        }
        if single.is_some() {
            return None;
        }
        single = Some(value);
    }
    single
}

/// `id` after the replacements, following chains of them.
fn resolve(replaced: &HashMap<Id, Id>, mut id: Id) -> Id {
    for _ in 0..=replaced.len() {
        match replaced.get(&id) {
            Some(&next) => id = next,
            None => break,
        }
    }
    id
}
