//! Local variables written once and read only after that are the value written: glslang's copies of call arguments (`param = v; f(param)`, once `value_params` has
//! made `param` a value parameter) and the many locals it stores once and reads at once.
//!
//! Before: a function variable may be stored once and only loaded after the store.
//! After: a function variable without an initializer, stored once (whole), whose every other
//! use is a load, whole or through access chains with constant indices, later in the block of
//! the store or in a block the store's block dominates, is gone, with its store; the loads read
//! the stored value or extract from it.
//!
//! Across blocks the value is still the one stored: every path to such a load passes the
//! store after the stored value's last definition (that definition dominates the store, and
//! a path from it to the load avoiding the store would give one from the entry too). The stored value takes the variable's name if it has none and
//! is listed in `Module::variable_values`, so it becomes a `let` of that name where the variable
//! was assigned. Compilers' argument copies (glslang's `param`, DXC's `param.var.NAME`) lend no
//! name; nor is a named variable holding a constant forwarded, as the name would be lost.

use spirv::{Op, StorageClass};

use crate::Options;
use crate::error::Error;
use crate::id_hash::{IdMap, IdSet};
use crate::spirv::cfg::{Cfg, DominatorTree};
use crate::spirv::{Def, ExtSet, Id, Module, Type};

pub fn run(module: &mut Module, _options: &Options) -> Result<(), Error> {
    for f in 0..module.functions.len() {
        forward(module, f);
    }
    Ok(())
}

/// What one variable's uses are.
#[derive(Default)]
struct Local {
    /// The variable's instruction.
    variable: usize,
    /// The block and position of its one store, its instruction, and the stored value.
    store: Option<(usize, usize, usize, Id)>,
    /// The block and position of each load, whole or through access chains.
    loads: Vec<(usize, usize)>,
    /// Used otherwise (a store through an access chain, an argument, ...), or stored twice.
    other: bool,
}

fn forward(module: &mut Module, f: usize) {
    let function = &module.functions[f];
    let mut locals: IdMap<Id, Local> = IdMap::default();
    // In declaration order, so names are given the same way every time.
    let mut order: Vec<Id> = Vec::new();
    for &index in function.blocks.iter().flat_map(|b| &b.insts) {
        let inst = &function.insts[index];
        let local = inst.op == Op::Variable
            && inst.operands.len() == 1
            && matches!(inst.ty.and_then(|ty| module.type_def(ty)), Some(Type::Pointer { class: StorageClass::Function, .. }));
        if let (true, Some(result)) = (local, inst.result) {
            locals.insert(result, Local { variable: index, ..Local::default() });
            order.push(result);
        }
    }
    if locals.is_empty() {
        return;
    }
    // Pointers into a local (itself, and access chains with constant indices): the local.
    let mut roots: IdMap<Id, Id> = locals.keys().map(|&id| (id, id)).collect();
    for (b, block) in function.blocks.iter().enumerate() {
        for (position, index) in block.all_insts().enumerate() {
            let inst = &function.insts[index];
            let root = inst.id(0).and_then(|id| roots.get(&id).copied());
            match (inst.op, root) {
                (Op::Variable, _) => continue,
                (Op::Store, Some(root)) if inst.id(0) == Some(root) && inst.id(1).is_some_and(|v| !roots.contains_key(&v)) => {
                    let local = locals.get_mut(&root).expect("a local");
                    local.other |= local.store.is_some();
                    local.store = inst.id(1).map(|value| (b, position, index, value));
                    continue;
                }
                (Op::Load, Some(root)) => {
                    locals.get_mut(&root).expect("a local").loads.push((b, position));
                    continue;
                }
                (Op::AccessChain | Op::InBoundsAccessChain, Some(root))
                    if inst.id_operands().skip(1).all(|index| module.const_u32(index).is_some()) =>
                {
                    roots.extend(inst.result.map(|result| (result, root)));
                    continue;
                }
                (Op::ExtInst, _) if matches!(inst.id(0).map(|set| module.def(set)), Some(Def::ExtInstSet(ExtSet::NonSemantic))) => {
                    continue;
                }
                _ => {}
            }
            for id in inst.id_operands() {
                if let Some(root) = roots.get(&id) {
                    locals.get_mut(root).expect("a local").other = true;
                }
            }
        }
    }
    let mut values: IdMap<Id, Id> = IdMap::default();
    let mut dropped: IdSet<usize> = IdSet::default();
    let mut named: Vec<(Id, Id)> = Vec::new();
    // Built on first need: most locals are read in the block that stores them, or not at all.
    let mut tree: Option<Option<DominatorTree>> = None;
    for &variable in &order {
        let local = &locals[&variable];
        let Some((block, stored_at, store, value)) = local.store else { continue };
        let mut after_store = local.loads.iter().all(|&(b, position)| b != block || position > stored_at);
        if after_store && local.loads.iter().any(|&(b, _)| b != block) {
            let tree = tree.get_or_insert_with(|| dominator_tree(module, f));
            after_store = tree.as_ref().is_some_and(|tree| local.loads.iter().all(|&(b, _)| tree.dominates(block, b)));
        }
        let named_constant = matches!(module.def(value), Def::Constant(_)) && source_name(module, variable).is_some();
        if local.other || !after_store || named_constant {
            continue;
        }
        values.insert(variable, value);
        dropped.extend([local.variable, store]);
        named.push((variable, value));
    }
    if values.is_empty() {
        return;
    }
    let replaced = module.read_pointers_as_values(f, &values);
    module.functions[f].drop_insts(&dropped);
    for (variable, value) in named {
        let value = replaced.get(&value).copied().unwrap_or(value);
        if matches!(module.def(value), Def::Value { .. })
            && module.name(value).is_none()
            && let Some(name) = source_name(module, variable)
        {
            module.names.insert(value, name.to_string());
            module.variable_values.insert(value);
        }
    }
}

/// The dominator tree of function `f`'s blocks, unless a branch names a label of no block of it.
fn dominator_tree(module: &Module, f: usize) -> Option<DominatorTree> {
    let function = &module.functions[f];
    let block_of = |label: Id| match *module.def(label) {
        Def::Label { function: of, block } if of as usize == f => Some(block as usize),
        _ => None,
    };
    let mut targets = Vec::with_capacity(function.blocks.len());
    for b in 0..function.blocks.len() {
        let terminator = function.terminator(b);
        let labels: Vec<usize> = match terminator.op {
            Op::Branch => vec![0],
            Op::BranchConditional => vec![1, 2],
            Op::Switch => std::iter::once(1).chain((3..terminator.operands.len()).step_by(2)).collect(),
            _ => {
                targets.push(vec![None]);
                continue;
            }
        };
        let blocks: Option<Vec<Option<usize>>> = labels.into_iter().map(|i| terminator.id(i).and_then(block_of).map(Some)).collect();
        targets.push(blocks?);
    }
    Some(DominatorTree::new(&Cfg::new(&targets).dominators()))
}

/// A variable's name, unless it is a compiler's copy of a call argument: glslang's `param`,
/// DXC's `param.var.NAME`.
fn source_name(module: &Module, variable: Id) -> Option<&str> {
    module.name(variable).filter(|&name| name != "param" && !name.starts_with("param.var."))
}
