//! The interface list of each `OpEntryPoint`: every global variable the entry point's call tree
//! statically uses, as the module's SPIR-V version requires. Before 1.4 that is the `Input` and
//! `Output` variables; from 1.4 on it is every global (buffers, workgroup and private variables
//! too).
//!
//! Before: the lists are naga's. After: each list is naga's plus anything missing, in declaration
//! order, each variable once.

use std::collections::BTreeSet;

use rspirv::dr::{Module, Operand};
use spirv::{Op, StorageClass, Word};

use super::module_edit;

/// SPIR-V 1.4, from which on every used global is an interface variable.
const ALL_GLOBALS_FROM: u32 = 0x0001_0400;

pub fn run(module: &mut Module) {
    let version = module.header.as_ref().map_or(0, |header| header.version);
    let globals: Vec<(Word, StorageClass)> = module_edit::global_variables(module).collect();
    let lists: Vec<Vec<Word>> = module
        .entry_points
        .iter()
        .map(|entry| {
            let function = module_edit::entry_point_target(entry).map_or(0, |(function, _)| function);
            let listed = module_edit::entry_point_interface(entry);
            let used = used_ids(module, function);
            let belongs = |&(id, class): &(Word, StorageClass)| {
                listed.contains(&id)
                    || (used.contains(&id)
                        && (version >= ALL_GLOBALS_FROM || matches!(class, StorageClass::Input | StorageClass::Output)))
            };
            globals.iter().filter(|global| belongs(global)).map(|&(id, _)| id).collect()
        })
        .collect();
    for (entry, list) in module.entry_points.iter_mut().zip(lists) {
        entry.operands.truncate(3);
        entry.operands.extend(list.into_iter().map(Operand::IdRef));
    }
}

/// Every id an instruction of `root` or of a function it calls (transitively) refers to.
fn used_ids(module: &Module, root: Word) -> BTreeSet<Word> {
    let mut used = BTreeSet::new();
    let mut visited = BTreeSet::new();
    let mut pending = vec![root];
    while let Some(function_id) = pending.pop() {
        if !visited.insert(function_id) {
            continue;
        }
        let Some(function) = module.functions.iter().find(|f| f.def_id() == Some(function_id)) else {
            continue;
        };
        for inst in function.all_inst_iter() {
            if inst.class.opcode == Op::FunctionCall
                && let Some(&Operand::IdRef(callee)) = inst.operands.first()
            {
                pending.push(callee);
            }
            used.extend(inst.operands.iter().filter_map(Operand::id_ref_any));
        }
    }
    used
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A buffer only a helper function touches, a workgroup variable the entry point touches, and
    /// a private variable nothing touches.
    const SOURCE: &str = "@group(0) @binding(0) var<storage, read_write> data: array<u32>;\n\
                          var<workgroup> cache: u32;\n\
                          var<private> unused: u32;\n\
                          fn store(i: u32) { data[i] = i; }\n\
                          @compute @workgroup_size(1) fn main(@builtin(global_invocation_id) id: vec3u) {\n\
                            cache = id.x;\n\
                            store(id.x);\n\
                          }\n";

    /// The storage classes of the interface after emptying naga's list and rebuilding it.
    fn rebuilt_classes(version: (u8, u8)) -> Vec<StorageClass> {
        let (mut module, _) = super::super::tests::naga_output(SOURCE, version);
        module.entry_points[0].operands.truncate(3);
        run(&mut module);
        let listed = module_edit::entry_point_interface(&module.entry_points[0]);
        listed.iter().filter_map(|&id| module_edit::global_class(&module, id)).collect()
    }

    #[test]
    fn before_1_4_the_list_is_the_inputs_and_outputs_used() {
        let classes = rebuilt_classes((1, 3));
        assert_eq!(
            classes.iter().filter(|&&c| c == StorageClass::Input).count(),
            2,
            "the id and naga's zero-init index"
        );
        assert!(classes.iter().all(|&c| c == StorageClass::Input), "{classes:?}");
    }

    #[test]
    fn from_1_4_the_list_is_every_global_used_by_the_call_tree() {
        let mut classes = rebuilt_classes((1, 4));
        classes.sort_by_key(|&c| c as u32);
        classes.dedup();
        assert_eq!(classes, [StorageClass::Input, StorageClass::Workgroup, StorageClass::StorageBuffer]);
    }
}
