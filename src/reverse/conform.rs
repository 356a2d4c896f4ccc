//! Makes the `Input`/`Output` variables naga wrote match the plan ([`super::plan`]).
//!
//! Before: each entry point lists the variables naga made for its parameters and result, each
//! with a `BuiltIn` or `Location` decoration, and naga's own interpolation decorations. After:
//! each planned variable is matched to exactly one of them by storage class and slot (anything
//! naga declared that the plan lacks, or the reverse, is an internal error), its interpolation
//! and invariance decorations are exactly the plan's, and an entry point writing `FragDepth` has
//! the `DepthReplacing` execution mode Vulkan requires. Returns the variables Vulkan declares as
//! one-element arrays, for [`super::sample_mask`].

use rspirv::dr::{Instruction, Module, Operand};
use spirv::{BuiltIn, Decoration, ExecutionMode, Op, StorageClass, Word};

use super::error::Error;
use super::module_edit::{self, decorate, decorated, decoration};
use super::plan::{EntryPlan, Slot};

/// The decorations the plan owns; any other decoration naga wrote is left alone.
const QUALIFIERS: &[Decoration] =
    &[Decoration::Flat, Decoration::NoPerspective, Decoration::Centroid, Decoration::Sample, Decoration::Invariant];

pub fn run(module: &mut Module, plans: &[EntryPlan]) -> Result<Vec<Word>, Error> {
    let mut arrays_of_one = Vec::new();
    for plan in plans {
        let (function, variables) = match_variables(module, plan)?;
        for (varying, &variable) in plan.varyings.iter().zip(&variables) {
            set_qualifiers(module, variable, &varying.qualifiers);
            if varying.array_of_one {
                arrays_of_one.push(variable);
            }
        }
        let writes_depth = plan
            .varyings
            .iter()
            .any(|v| v.class == StorageClass::Output && v.slot == Slot::BuiltIn(BuiltIn::FragDepth));
        if writes_depth {
            require_execution_mode(module, function, ExecutionMode::DepthReplacing);
        }
    }
    Ok(arrays_of_one)
}

/// The entry point's function and, for each planned varying in order, its variable.
fn match_variables(module: &Module, plan: &EntryPlan) -> Result<(Word, Vec<Word>), Error> {
    let entry = module
        .entry_points
        .iter()
        .find(|inst| {
            module_edit::entry_point_target(inst).is_some_and(|(_, name)| name == plan.name)
                && inst.operands.first() == Some(&Operand::ExecutionModel(plan.model))
        })
        .ok_or_else(|| Error::internal(format!("naga wrote no entry point `{}`", plan.name)))?;
    let function = module_edit::entry_point_target(entry).map_or(0, |(function, _)| function);
    let mut matched: Vec<Option<Word>> = vec![None; plan.varyings.len()];
    for id in module_edit::entry_point_interface(entry) {
        let Some(class @ (StorageClass::Input | StorageClass::Output)) = module_edit::global_class(module, id) else {
            continue;
        };
        let slot = slot_of(module, id).ok_or_else(|| {
            Error::internal(format!("entry point `{}`: %{id} has neither a builtin nor a location", plan.name))
        })?;
        let position = plan.varyings.iter().position(|v| v.class == class && v.slot == slot);
        match position.map(|i| (i, matched[i])) {
            Some((i, None)) => matched[i] = Some(id),
            Some((_, Some(_))) => {
                return Err(Error::internal(format!(
                    "entry point `{}` has two {class:?} variables for {slot:?}",
                    plan.name
                )));
            }
            None => {
                return Err(Error::internal(format!(
                    "entry point `{}`: naga declared a {class:?} variable for {slot:?} that the WGSL does not have",
                    plan.name
                )));
            }
        }
    }
    let variables = matched.iter().zip(&plan.varyings).map(|(variable, varying)| {
        variable.ok_or_else(|| {
            Error::internal(format!(
                "entry point `{}`: no {:?} variable for {}",
                plan.name, varying.class, varying.origin
            ))
        })
    });
    Ok((function, variables.collect::<Result<_, _>>()?))
}

/// The builtin or location (with blend source index) decorating `variable`.
fn slot_of(module: &Module, variable: Word) -> Option<Slot> {
    let mut builtin = None;
    let mut location = None;
    let mut index = None;
    for inst in module_edit::decorations_of(module, variable) {
        match (decoration(inst), inst.operands.get(2)) {
            (Some(Decoration::BuiltIn), Some(&Operand::BuiltIn(b))) => builtin = Some(b),
            (Some(Decoration::Location), Some(&Operand::LiteralBit32(l))) => location = Some(l),
            (Some(Decoration::Index), Some(&Operand::LiteralBit32(i))) => index = Some(i),
            _ => {}
        }
    }
    match (builtin, location) {
        (Some(builtin), None) => Some(Slot::BuiltIn(builtin)),
        (None, Some(location)) => Some(Slot::Location { location, index }),
        _ => None,
    }
}

/// Replaces `variable`'s qualifier decorations with `qualifiers`, placed after its other
/// decorations.
fn set_qualifiers(module: &mut Module, variable: Word, qualifiers: &[Decoration]) {
    module
        .annotations
        .retain(|inst| decorated(inst) != Some(variable) || !decoration(inst).is_some_and(|d| QUALIFIERS.contains(&d)));
    let after = module.annotations.iter().rposition(|inst| decorated(inst) == Some(variable));
    let at = after.map_or(module.annotations.len(), |i| i + 1);
    let new = qualifiers.iter().map(|&qualifier| decorate(variable, qualifier));
    module.annotations.splice(at..at, new);
}

fn require_execution_mode(module: &mut Module, function: Word, mode: ExecutionMode) {
    let present = module.execution_modes.iter().any(|inst| {
        inst.operands.first() == Some(&Operand::IdRef(function))
            && inst.operands.get(1) == Some(&Operand::ExecutionMode(mode))
    });
    if !present {
        let operands = vec![Operand::IdRef(function), Operand::ExecutionMode(mode)];
        module.execution_modes.push(Instruction::new(Op::ExecutionMode, None, None, operands));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reverse::module_edit::decorations_of;

    const DEPTH: &str = "@fragment fn main(@builtin(front_facing) front: bool) -> @builtin(frag_depth) f32 {\n\
                           return select(0.0, 1.0, front);\n\
                         }\n";

    fn depth_replacing(module: &Module) -> bool {
        module
            .execution_modes
            .iter()
            .any(|inst| inst.operands.get(1) == Some(&Operand::ExecutionMode(ExecutionMode::DepthReplacing)))
    }

    #[test]
    fn qualifiers_become_exactly_the_plans() {
        let (mut module, plans) = super::super::tests::naga_output(DEPTH, (1, 3));
        let (_, variables) = match_variables(&module, &plans[0]).expect("matched");
        // naga decorates the boolean front_facing Flat; the plan does not.
        let flat = |module: &Module| {
            decorations_of(module, variables[0]).any(|inst| decoration(inst) == Some(Decoration::Flat))
        };
        assert!(flat(&module));
        run(&mut module, &plans).expect("conforms");
        assert!(!flat(&module));
    }

    #[test]
    fn a_missing_depth_replacing_mode_is_added() {
        let (mut module, plans) = super::super::tests::naga_output(DEPTH, (1, 3));
        module
            .execution_modes
            .retain(|inst| inst.operands.get(1) != Some(&Operand::ExecutionMode(ExecutionMode::DepthReplacing)));
        run(&mut module, &plans).expect("conforms");
        assert!(depth_replacing(&module));
    }

    #[test]
    fn a_variable_the_plan_lacks_is_an_internal_error() {
        let (mut module, mut plans) = super::super::tests::naga_output(DEPTH, (1, 3));
        plans[0].varyings.remove(0);
        let error = run(&mut module, &plans).expect_err("naga's front_facing is not planned");
        assert_eq!(error.exit_code(), 3, "{error}");
    }

    #[test]
    fn a_planned_variable_naga_lacks_is_an_internal_error() {
        let (mut module, mut plans) = super::super::tests::naga_output(DEPTH, (1, 3));
        let mut extra = plans[0].varyings[0].clone();
        extra.slot = Slot::Location { location: 7, index: None };
        plans[0].varyings.push(extra);
        let error = run(&mut module, &plans).expect_err("location 7 is not there");
        assert!(error.to_string().contains("parameter `front`"), "{error}");
    }
}
