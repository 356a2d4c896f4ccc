//! How each value of a function is used: how many times and in which blocks, found in one walk
//! for both the lowering (which inlines a value used once in its own block) and the scope
//! analysis (which hoists a value used outside its scope).

use spirv::Op;

use crate::error::Error;
use crate::id_hash::{self, IdMap};
use crate::spirv::{Def, Function, Id, Module, Type};

#[derive(Clone, Default)]
pub(super) struct Use {
    /// Uses, counting each re-derivation of a pointer as a use of what it is made of.
    pub(super) count: u32,
    /// The block of the last use the walk met (for a phi operand, the predecessor).
    pub(super) block: usize,
    /// Every block using the value, its own uses and those of pointers derived from it.
    pub(super) blocks: Blocks,
}

/// The blocks a value is used in: nearly always one, which takes no allocation.
#[derive(Clone)]
pub(super) enum Blocks {
    One(usize),
    Many(Vec<usize>),
}

impl Default for Blocks {
    fn default() -> Self {
        Blocks::Many(Vec::new())
    }
}

impl Blocks {
    pub(super) fn as_slice(&self) -> &[usize] {
        match self {
            Blocks::One(block) => std::slice::from_ref(block),
            Blocks::Many(blocks) => blocks,
        }
    }

    /// Adds a use in `block`, met after every use recorded so far.
    fn push(&mut self, block: usize) {
        match self {
            Blocks::One(last) if *last == block => {}
            Blocks::One(last) => *self = Blocks::Many(vec![*last, block]),
            Blocks::Many(blocks) if blocks.is_empty() => *self = Blocks::One(block),
            Blocks::Many(blocks) => {
                if blocks.last() != Some(&block) {
                    blocks.push(block);
                }
            }
        }
    }

    /// Adds `blocks`, keeping the list sorted and without repeats.
    fn merge(&mut self, blocks: &[usize]) {
        let mut all = self.as_slice().to_vec();
        all.extend(blocks);
        all.sort_unstable();
        all.dedup();
        *self = Blocks::Many(all);
    }
}

/// The uses of every value `function` reads. A phi operand counts as used at the end of its
/// predecessor. A pointer is re-derived at each use, and with it the indices and base it is made
/// of: they are used once more for each further use of the pointer, in each of its blocks.
pub(super) fn uses(module: &Module, function: &Function) -> Result<IdMap<Id, Use>, Error> {
    fn record(uses: &mut IdMap<Id, Use>, id: Id, block: Option<usize>) {
        let entry = uses.entry(id).or_default();
        entry.count += 1;
        if let Some(block) = block {
            entry.block = block;
            entry.blocks.push(block);
        }
    }
    let mut uses: IdMap<Id, Use> = id_hash::id_map(function.insts.len());
    let mut pointers = Vec::new();
    for (b, block) in function.blocks.iter().enumerate() {
        for index in block.all_insts() {
            let inst = &function.insts[index];
            if inst.op == Op::Phi {
                for (value, parent) in inst.phi_incoming() {
                    let parent = match module.def(parent) {
                        Def::Label { block, .. } => Some(*block),
                        _ => None,
                    };
                    record(&mut uses, value, parent);
                }
                continue;
            }
            for id in inst.id_operands() {
                record(&mut uses, id, Some(b));
            }
            if let (Some(result), Some(ty)) = (inst.result, inst.ty)
                && matches!(module.ty(ty)?, Type::Pointer { .. })
            {
                pointers.push((result, index));
            }
        }
    }
    // Definitions precede their uses in block order, so a backward sweep meets every pointer
    // after all those derived from it: its uses are complete when it passes them on. Blocks
    // passed on are merged once per pointer, so a base shared by many access chains costs no
    // more than the chains.
    let mut inherited: IdMap<Id, Vec<usize>> = IdMap::default();
    for &(pointer, index) in pointers.iter().rev() {
        if let Some(more) = inherited.remove(&pointer) {
            uses.entry(pointer).or_default().blocks.merge(&more);
        }
        let Some(used) = uses.get(&pointer) else { continue };
        let extra = used.count.saturating_sub(1);
        let blocks = used.blocks.clone();
        for id in function.insts[index].id_operands() {
            if let Some(operand) = uses.get_mut(&id) {
                operand.count += extra;
            }
            inherited.entry(id).or_default().extend(blocks.as_slice());
        }
    }
    for (id, more) in inherited {
        uses.entry(id).or_default().blocks.merge(&more);
    }
    Ok(uses)
}
