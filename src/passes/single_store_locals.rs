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

use crate::Options;
use crate::error::Error;
use crate::id_hash::{IdMap, IdSet};
use crate::spirv::cfg::{Cfg, DominatorTree};
use crate::spirv::{Def, Id, Module, PointerUseKind};

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
        // Without an initializer: that would be a second store.
        if let (true, Some(result)) = (module.is_local_variable(inst) && inst.operands.len() == 1, inst.result()) {
            locals.insert(result, Local { variable: index, ..Local::default() });
            order.push(result);
        }
    }
    if locals.is_empty() {
        return;
    }
    module.pointer_uses(f, order.iter().copied(), |used| {
        let local = locals.get_mut(&used.root).expect("a local");
        match used.kind {
            PointerUseKind::Load => local.loads.push((used.block, used.position)),
            PointerUseKind::Store(value) => {
                local.other |= local.store.is_some();
                local.store = Some((used.block, used.position, used.inst, value));
            }
            PointerUseKind::Other => local.other = true,
        }
    });
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
    let targets: Option<Vec<_>> = (0..module.functions[f].blocks.len()).map(|b| module.successors(f, b)).collect();
    Some(DominatorTree::new(&Cfg::new(&targets?).dominators()))
}

/// A variable's name, unless it is a compiler's copy of a call argument: glslang's `param`,
/// DXC's `param.var.NAME`.
fn source_name(module: &Module, variable: Id) -> Option<&str> {
    module.name(variable).filter(|&name| name != "param" && !name.starts_with("param.var."))
}
