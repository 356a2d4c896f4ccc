//! Which pipeline inputs and outputs need no private proxy: part of the `io_wrapper` pass.
//!
//! Before: every entry point has its `IoPlan`. After: an entry point whose function no other entry
//! point runs and no call reaches is `unwrapped` (the function is the WGSL entry point), and its
//! values that need no proxy are `direct`; the variables still needing a proxy are returned.
//!
//! The rules, all for unwrapped entry points:
//! - An input is direct when it is one whole value (not a flattened block, not an array of one)
//!   and nothing in the module may write the variable: every use is a load, an access chain or
//!   copy leading to loads, or the source of an `OpCopyMemory`. Every load then yields the
//!   parameter's value, so the entry function reads the parameter. Its proxy stays only while
//!   another function reads the variable; the entry function fills it first thing.
//! - An output is direct when the variable has no initializer, no other function uses it, and the
//!   entry function only stores to it: each planned value whole, at most once, at the top level
//!   of the body (outside every `if`, loop and switch, so the store runs once, after all that
//!   precedes it and before all that follows), or a part no value is planned for (a point size of
//!   1.0), which goes nowhere. Nothing reads the variable, so a return gives the value stored
//!   before it, or zero where none was.
//! - A value sharing its location with others (`Component` decorations) keeps its proxy: the
//!   entry point packs the location's `vec4` from and into the proxies.
//! - An output no value is planned for (a point size of 1.0) that only the entry function uses,
//!   and only stores to, is `dropped`: its stores go nowhere.

use std::collections::BTreeSet;

use spirv::{Op, StorageClass};

use crate::id_hash::{IdMap, IdSet};
use crate::spirv::structured::Node;
use crate::spirv::{Function, Id, Inst, IoBinding, IoSource, IoValue, Module};

/// Marks the unwrapped entry points and the direct values; returns the Input and Output
/// variables that still need their proxy. `io_reached` holds, per function, the Input and
/// Output variables it or a function it calls uses.
pub(super) fn run(module: &mut Module, io_reached: &[Vec<Id>]) -> BTreeSet<Id> {
    let unwrapped = unwrapped_functions(module);
    let (written, mut entry_stores) = io_uses(module, io_reached, &unwrapped);
    // The variables a function other than an unwrapped entry function uses: through its proxy.
    let mut proxied: BTreeSet<Id> = BTreeSet::new();
    for f in module.entry_functions() {
        if !unwrapped.contains(&module.functions[f].id) {
            proxied.extend(io_reached[f].iter().copied());
        }
    }
    let used_by_others = proxied.clone();
    for e in 0..module.entry_points.len() {
        // Taken while it is worked on (nothing below reads the entry points' plans), not copied.
        let Some(mut plan) = module.entry_points[e].io.take() else { continue };
        let entry = &module.entry_points[e];
        let function = module.function_index(entry.function).filter(|_| unwrapped.contains(&entry.function));
        plan.unwrapped = function.is_some();
        let stores = function.and_then(|f| entry_stores.remove(&f)).unwrap_or_default();
        let globals: BTreeSet<Id> = plan.inputs.iter().chain(&plan.outputs).filter_map(proxy_global).collect();
        for global in globals {
            let Some(g) = module.global_index(global).map(|g| &module.globals[g]) else { continue };
            let values = |list: &[IoValue]| list.iter().filter(|v| proxy_global(v) == Some(global)).count();
            // Values sharing a location are packed from and into their proxies.
            let packed = plan.inputs.iter().chain(&plan.outputs).any(|v| {
                proxy_global(v) == Some(global) && matches!(v.binding, IoBinding::Location { component: Some(_), .. })
            });
            let direct = plan.unwrapped
                && !packed
                && match g.class {
                    StorageClass::Input => {
                        !written.contains(&global)
                            && values(&plan.inputs) == 1
                            && plan.inputs.iter().any(|v| proxy_path(v, global) == Some(&[]))
                    }
                    _ => {
                        g.initializer.is_none()
                            && !used_by_others.contains(&global)
                            && stores_direct(&plan.outputs, global, stores.get(&global), function, module)
                    }
                };
            for value in plan.inputs.iter_mut().chain(&mut plan.outputs) {
                if proxy_global(value) == Some(global) {
                    value.direct = direct;
                }
            }
            if !direct {
                proxied.insert(global);
            }
        }
        // Variables the entry function uses that no value is planned for: an output it only
        // stores to (a point size of 1.0) needs no proxy, the stores go nowhere.
        for (&global, uses) in &stores {
            let planned = plan.inputs.iter().chain(&plan.outputs).any(|v| proxy_global(v) == Some(global));
            if planned {
                continue;
            }
            let output = module.global_index(global).is_some_and(|g| module.globals[g].class == StorageClass::Output);
            if output && uses.is_some() && !used_by_others.contains(&global) {
                plan.dropped.push(global);
            } else {
                proxied.insert(global);
            }
        }
        plan.dropped.sort_unstable();
        module.entry_points[e].io = Some(plan);
    }
    proxied
}

fn proxy_global(value: &IoValue) -> Option<Id> {
    match &value.source {
        IoSource::Proxy { global, .. } => Some(*global),
        IoSource::Zero => None,
    }
}

fn proxy_path(value: &IoValue, global: Id) -> Option<&[u32]> {
    match &value.source {
        IoSource::Proxy { global: g, path } if *g == global => Some(path),
        _ => None,
    }
}

/// The functions that are the entry function of exactly one entry point and that no call
/// reaches (valid SPIR-V calls no entry function; the input is not validated).
fn unwrapped_functions(module: &Module) -> IdSet<Id> {
    let mut once = IdSet::default();
    let mut excluded = IdSet::default();
    for entry in &module.entry_points {
        if !once.insert(entry.function) {
            excluded.insert(entry.function);
        }
    }
    for function in &module.functions {
        for inst in function.insts.iter().filter(|i| i.op == Op::FunctionCall) {
            excluded.extend(inst.id(0));
        }
    }
    once.retain(|f| !excluded.contains(f));
    once
}

/// Calls `visit` with each instruction of a function in program order, and its block: blocks in
/// file order (each after the blocks dominating it), with their terminators. A walk that calls
/// rather than an iterator: a `flat_map` over the blocks cost twice as much.
fn in_program_order<'f>(function: &'f Function, mut visit: impl FnMut(usize, &'f Inst)) {
    for (b, block) in function.blocks.iter().enumerate() {
        for &i in block.insts.iter().chain([&block.terminator]) {
            if let Some(inst) = function.insts.get(i) {
                visit(b, inst);
            }
        }
    }
}

/// For each pointer into an Input or Output variable in `function`: the variable and the constant
/// member and element path from it (`None` where an index is not a constant).
fn io_pointers(module: &Module, function: &Function) -> IdMap<Id, (Id, Option<Vec<u32>>)> {
    let mut pointers: IdMap<Id, (Id, Option<Vec<u32>>)> = IdMap::default();
    in_program_order(function, |_, inst| {
        let (Some(result), Some(base)) = (inst.result(), inst.id(0)) else { return };
        let root = match module.global_index(base).map(|g| &module.globals[g]) {
            Some(g) if matches!(g.class, StorageClass::Input | StorageClass::Output) => Some((base, Some(Vec::new()))),
            Some(_) => None,
            None => pointers.get(&base).cloned(),
        };
        let Some((global, mut path)) = root else { return };
        match inst.op {
            Op::CopyObject => {}
            Op::AccessChain | Op::InBoundsAccessChain => {
                for index in (1..inst.operands.len()).map(|i| inst.id(i)) {
                    let constant = index
                        .and_then(|i| module.constant(i).filter(|c| c.spec_id.is_none()).and(Some(i)))
                        .and_then(|i| module.const_u32(i));
                    path = path.zip(constant).map(|(mut path, step)| {
                        path.push(step);
                        path
                    });
                }
            }
            _ => return,
        }
        pointers.insert(result, (global, path));
    });
    pointers
}

/// Each use of a pointer into an Input or Output variable: the instruction, its block, and the
/// operand position.
fn for_each_io_use<'f>(
    module: &Module,
    function: &'f Function,
    mut f: impl FnMut(&'f Inst, usize, usize, Id, &Option<Vec<u32>>),
) {
    let pointers = io_pointers(module, function);
    in_program_order(function, |b, inst| {
        for (position, operand) in inst.operands.iter().enumerate() {
            let crate::spirv::Operand::IdRef(id) = operand else { continue };
            let whole = (*id, Some(Vec::new()));
            let pointer = match module.global_index(*id).map(|g| &module.globals[g]) {
                Some(g) if matches!(g.class, StorageClass::Input | StorageClass::Output) => Some(&whole),
                _ => pointers.get(id),
            };
            if let Some((global, path)) = pointer {
                f(inst, b, position, *global, path);
            }
        }
    });
}

/// Whether function `f` may use an Input or Output variable (`io_reached` lists those it or its
/// callees use).
fn uses_io(io_reached: &[Vec<Id>], f: usize) -> bool {
    io_reached.get(f).is_none_or(|reached| !reached.is_empty())
}

/// The stores of each unwrapped entry function to its Output variables (`output_store`), by
/// function index.
type EntryStores = IdMap<usize, IdMap<Id, Option<Vec<Store>>>>;

/// The Input variables something in the module may write (`written_input`), and the output
/// stores of each unwrapped entry function, found in one walk of each function: an entry
/// function's pointers were mapped and its uses walked once for each. A function that uses no
/// Input or Output variable, nor calls one that does (`io_reached`), has no such use: it is not
/// walked.
fn io_uses(module: &Module, io_reached: &[Vec<Id>], unwrapped: &IdSet<Id>) -> (IdSet<Id>, EntryStores) {
    let mut written = IdSet::default();
    let mut entry_stores = EntryStores::default();
    for (f, function) in module.functions.iter().enumerate().filter(|&(f, _)| uses_io(io_reached, f)) {
        let mut stores = unwrapped.contains(&function.id).then(IdMap::default);
        for_each_io_use(module, function, |inst, block, position, global, path| {
            if written_input(inst.op, position) {
                written.insert(global);
            }
            if let Some(stores) = &mut stores {
                output_store(stores, inst.op, block, position, global, path);
            }
        });
        if let Some(stores) = stores {
            entry_stores.insert(f, stores);
        }
    }
    (written, entry_stores)
}

/// Whether a use of a pointer into an Input variable, at operand `position` of an `op`, may
/// write it: a use that is not a load, a step of an access chain or copy, or the source of an
/// `OpCopyMemory`.
fn written_input(op: Op, position: usize) -> bool {
    let read = match op {
        Op::Load | Op::AccessChain | Op::InBoundsAccessChain | Op::CopyObject => position == 0,
        Op::CopyMemory => position == 1,
        _ => false,
    };
    !read
}

/// A store to an Output variable: its constant path and its block. `None` for a variable used
/// otherwise.
struct Store {
    path: Vec<u32>,
    block: usize,
}

/// Records a use by an entry function of a pointer into `global` in its stores to each Output
/// variable: `None` for a variable it also uses otherwise (a load, a store through a dynamic
/// index, a call).
fn output_store(
    stores: &mut IdMap<Id, Option<Vec<Store>>>,
    op: Op,
    block: usize,
    position: usize,
    global: Id,
    path: &Option<Vec<u32>>,
) {
    let entry = stores.entry(global).or_insert_with(|| Some(Vec::new()));
    match (op, position, path) {
        (Op::AccessChain | Op::InBoundsAccessChain | Op::CopyObject, 0, _) => {}
        (Op::Store, 0, Some(path)) => {
            if let Some(list) = entry {
                list.push(Store { path: path.clone(), block });
            }
        }
        _ => *entry = None,
    }
}

/// Whether the stores to output `global` of the entry function `f` let its values be direct.
fn stores_direct(
    outputs: &[IoValue],
    global: Id,
    stores: Option<&Option<Vec<Store>>>,
    f: Option<usize>,
    module: &Module,
) -> bool {
    let (Some(f), Some(Some(stores))) = (f, stores) else {
        // Not used by the entry function at all: every return gives zero.
        return stores.is_none();
    };
    let placement = top_level_blocks(module.functions[f].body.as_deref().unwrap_or_default());
    let paths: Vec<&[u32]> = outputs.iter().filter_map(|v| proxy_path(v, global)).collect();
    let mut stored = vec![false; paths.len()];
    stores.iter().all(|store| match paths.iter().position(|p| *p == store.path) {
        Some(i) => placement.get(&store.block) == Some(&true) && !std::mem::replace(&mut stored[i], true),
        // A part no value is planned for goes nowhere, unless it overlaps one.
        None => !paths.iter().any(|p| p.starts_with(&store.path) || store.path.starts_with(p)),
    })
}

/// For each block of a structured body: `true` if it is placed once, at the top level.
fn top_level_blocks(body: &[Node]) -> IdMap<usize, bool> {
    let mut placement = IdMap::default();
    for node in body {
        if let Node::Block(b) = node {
            placement.entry(*b).and_modify(|once| *once = false).or_insert(true);
        }
    }
    // Every block placed inside a construct: not at the top level.
    let mut nested: Vec<&[Node]> = body.iter().flat_map(children).collect();
    while let Some(nodes) = nested.pop() {
        for node in nodes {
            if let Node::Block(b) = node {
                placement.insert(*b, false);
            }
            nested.extend(children(node));
        }
    }
    placement
}

/// The node lists directly inside a construct.
fn children(node: &Node) -> Vec<&[Node]> {
    match node {
        Node::If { accept, reject, .. } => vec![accept, reject],
        Node::Loop { body, continuing } => vec![body, continuing],
        Node::Switch { cases, .. } => cases.iter().map(|c| &c.body[..]).collect(),
        Node::IfGuard { body, .. } => vec![body],
        _ => Vec::new(),
    }
}
