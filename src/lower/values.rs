//! The value each id has in the lowering of one function (`function.rs`): the function's own
//! results are kept by instruction, where a hash map cost a look-up or insert per instruction
//! and grew by rehashing; other ids (parameters) by id.

use super::function::Value;
use crate::id_hash::IdMap;
use crate::spirv::{Def, Id, Module};

pub(super) struct Values<'m> {
    module: &'m Module,
    /// The function's index in the module.
    function: usize,
    /// By instruction index in the function.
    results: Vec<Option<Value>>,
    others: IdMap<Id, Value>,
}

impl<'m> Values<'m> {
    pub(super) fn new(module: &'m Module, function: usize) -> Values<'m> {
        let results = std::iter::repeat_with(|| None).take(module.functions[function].insts.len()).collect();
        Values { module, function, results, others: IdMap::default() }
    }

    /// Where the value of `id` is kept, if it is one of the function's results.
    fn result_index(&self, id: Id) -> Option<usize> {
        match self.module.def(id) {
            Def::Value { function, inst, .. }
                if *function as usize == self.function && (*inst as usize) < self.results.len() =>
            {
                Some(*inst as usize)
            }
            _ => None,
        }
    }

    pub(super) fn get(&self, id: &Id) -> Option<&Value> {
        match self.result_index(*id) {
            Some(index) => self.results[index].as_ref(),
            None => self.others.get(id),
        }
    }

    pub(super) fn insert(&mut self, id: Id, value: Value) {
        match self.result_index(id) {
            Some(index) => self.results[index] = Some(value),
            None => _ = self.others.insert(id, value),
        }
    }

    /// The value of `id`, removed if `wanted` holds for it: one look-up, where a `get` then a
    /// `remove` took two.
    pub(super) fn remove_if(&mut self, id: Id, wanted: impl FnOnce(&Value) -> bool) -> Option<Value> {
        match self.result_index(id) {
            Some(index) => self.results[index].take_if(|value| wanted(value)),
            None if self.others.get(&id).is_some_and(wanted) => self.others.remove(&id),
            None => None,
        }
    }

    pub(super) fn remove(&mut self, id: &Id) -> Option<Value> {
        match self.result_index(*id) {
            Some(index) => self.results[index].take(),
            None => self.others.remove(id),
        }
    }
}
