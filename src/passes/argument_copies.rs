//! `inout` and `out` arguments that are whole local variables are passed as they are. glslang
//! copies such an argument into a variable of its own around the call (`param = acc;
//! f(&param); acc = param;`); passing `&acc` computes the same, since nothing else touches
//! `acc` from the copy in to the copy out.
//!
//! Before: a call may take a local variable that is stored (from a load of another local
//! variable, the argument) before it and loaded (into that variable) after it.
//! After: where the copy's only uses are that store, the call and the load, all in one block,
//! the argument variable is not otherwise an operand of the call, and nothing else uses it
//! between the copy in and the copy out, the call takes the argument variable, and the copy
//! and its loads and stores are gone. An `out` argument (no copy in) likewise: the callee then
//! starts from the variable's value instead of an undefined one.

use spirv::Op;

use crate::Options;
use crate::error::Error;
use crate::id_hash::{IdMap, IdSet};
use crate::spirv::{Def, Id, Module, Operand};

pub fn run(module: &mut Module, _options: &Options) -> Result<(), Error> {
    for f in 0..module.functions.len() {
        pass_variables(module, f);
    }
    Ok(())
}

/// Where an instruction is: its block and its position there.
type At = (usize, usize);

fn pass_variables(module: &mut Module, f: usize) {
    let function = &module.functions[f];
    // Local variables, by id: their instruction.
    let locals: IdMap<Id, usize> = function
        .insts
        .iter()
        .enumerate()
        .filter(|(_, i)| module.is_local_variable(i))
        .filter_map(|(index, i)| Some((i.result()?, index)))
        .collect();
    if locals.is_empty() || !function.insts.iter().any(|i| i.op == Op::FunctionCall) {
        return;
    }
    // Where each instruction is (block, position), and every use of every id as an operand,
    // in block order.
    let mut place: Vec<At> = vec![(usize::MAX, 0); function.insts.len()];
    let mut uses: IdMap<Id, Vec<usize>> = IdMap::default();
    for (b, block) in function.blocks.iter().enumerate() {
        for (position, index) in block.all_insts().enumerate() {
            place[index] = (b, position);
            for id in function.insts[index].id_operands() {
                uses.entry(id).or_default().push(index);
            }
        }
    }
    let only_use = |id: Id| match uses.get(&id).map(Vec::as_slice) {
        Some([single]) => Some(*single),
        _ => None,
    };
    let mut passed: Vec<(usize, usize, Id)> = Vec::new();
    let mut dropped: IdSet<usize> = IdSet::default();
    for (&copy, &variable) in &locals {
        let Some(copy_uses) = uses.get(&copy) else { continue };
        let (mut store_in, mut call, mut load_out) = (None, None, None);
        let mut other = false;
        for &index in copy_uses {
            let inst = &function.insts[index];
            match inst.op {
                Op::Store if inst.id(0) == Some(copy) && store_in.is_none() => store_in = Some(index),
                Op::Load if load_out.is_none() => load_out = Some(index),
                Op::FunctionCall if call.is_none() && inst.id(0) != Some(copy) => call = Some(index),
                _ => other = true,
            }
        }
        let (Some(call), Some(load_out), false) = (call, load_out, other) else { continue };
        // The copy out: the load's only use stores it whole into the argument variable.
        let Some(store_out) = function.insts[load_out].result().and_then(only_use) else { continue };
        let store_out_inst = &function.insts[store_out];
        let Some(argument) = store_out_inst.id(0).filter(|id| locals.contains_key(id) && *id != copy) else { continue };
        if store_out_inst.op != Op::Store || store_out_inst.id(1) != function.insts[load_out].result() {
            continue;
        }
        // The copy in, if any: a store of a load of the argument variable used only there.
        let mut first = call;
        let mut copy_in = Vec::new();
        if let Some(store_in) = store_in {
            let Some(value) = function.insts[store_in].id(1).filter(|&v| only_use(v).is_some()) else { continue };
            let load_in = match module.def(value) {
                &Def::Value { function: of, inst, .. } if of as usize == f => inst as usize,
                _ => continue,
            };
            let load = &function.insts[load_in];
            if load.op != Op::Load || load.id(0) != Some(argument) || place[store_in] > place[call] {
                continue;
            }
            first = load_in;
            copy_in = vec![store_in, load_in];
        }
        let block = place[call].0;
        let same_block = [first, load_out, store_out].iter().all(|&i| place[i].0 == block);
        let ordered =
            place[first] <= place[call] && place[call] < place[load_out] && place[load_out] < place[store_out];
        // Nothing else touches the argument variable in between: its uses from the copy in to
        // the copy out are those two. Each copy is judged on the uses before any is rewritten,
        // so the order they are looked at does not matter.
        let argument_uses = &uses[&argument];
        let from = argument_uses.partition_point(|&i| place[i] < place[first]);
        let to = argument_uses.partition_point(|&i| place[i] <= place[store_out]);
        let quiet = to - from == copy_in.len() / 2 + 1;
        if !same_block || !ordered || !quiet {
            continue;
        }
        let Some(operand) = function.insts[call].operands.iter().position(|o| *o == Operand::IdRef(copy)) else {
            continue;
        };
        passed.push((call, operand, argument));
        dropped.extend(copy_in.into_iter().chain([load_out, store_out, variable]));
    }
    let function = &mut module.functions[f];
    for (call, operand, argument) in passed {
        function.insts[call].operands[operand] = Operand::IdRef(argument);
    }
    function.drop_insts(&dropped);
}
