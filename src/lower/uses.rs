//! How each value of a function is used: how many times and in which blocks, found in one walk
//! for both the lowering (which inlines a value used once in its own block) and the scope
//! analysis (which hoists a value used outside its scope).

use spirv::Op;

use crate::error::Error;
use crate::id_hash::{IdMap, IdSet};
use crate::spirv::{Def, Id, Inst, Module, Operand, Type};

#[derive(Clone, Copy)]
pub(super) struct Use {
    /// Uses, counting each re-derivation of a pointer as a use of what it is made of.
    pub(super) count: u32,
    /// The block of the last use the walk met (for a phi operand, the predecessor), or `NO_BLOCK`.
    /// Block indices are `u32`, as in `Def::Label`, to keep a use at 12 bytes.
    pub(super) block: u32,
    /// Whether `Uses::blocks` holds the value's list of blocks: asked for every value, where a
    /// hash look-up in that list cost more than the rest.
    several: bool,
}

const _: () = assert!(std::mem::size_of::<Use>() == 12);

const NO_BLOCK: u32 = u32::MAX;

impl Default for Use {
    fn default() -> Self {
        Use { count: 0, block: NO_BLOCK, several: false }
    }
}

/// How each value of a function is used. The function's own results are kept by instruction, 12
/// bytes each; other values it reads (parameters, globals, constants) by id. Nearly every value
/// is used in one block, and the few used in several keep their list of blocks apart.
pub(super) struct Uses<'m> {
    module: &'m Module,
    /// The function's index in the module.
    function: usize,
    /// By instruction index in the function.
    results: Vec<Use>,
    others: IdMap<Id, Use>,
    /// Every block using the value, its own uses and those of pointers derived from it, where
    /// that is not just `Use::block`.
    blocks: IdMap<Id, Vec<u32>>,
    /// Components extracted from a vector only for a vector construct of the same block to
    /// gather again (`vec4(v.x, v.y, v.z, 1.0)`): the construct reads the vector once, as `v`
    /// or a swizzle of it, and the extracts are not lowered.
    folded_extracts: IdSet<Id>,
}

impl<'m> Uses<'m> {
    /// The uses of `id`, if it is used.
    pub(super) fn get(&self, id: &Id) -> Option<&Use> {
        let used = match self.module.def(*id) {
            Def::Value { function, inst, .. } if *function as usize == self.function => {
                self.results.get(*inst as usize)
            }
            _ => self.others.get(id),
        };
        used.filter(|u| u.count > 0 || u.block != NO_BLOCK || u.several)
    }

    fn get_mut(&mut self, id: Id) -> &mut Use {
        match self.module.def(id) {
            Def::Value { function, inst, .. }
                if *function as usize == self.function && (*inst as usize) < self.results.len() =>
            {
                &mut self.results[*inst as usize]
            }
            _ => self.others.entry(id).or_default(),
        }
    }

    /// How many of the function's results are used more than once or in several blocks: about
    /// how many the lowering binds to a `let` (the others are inlined), which sizes its tables.
    pub(super) fn shared_results(&self) -> usize {
        self.results.iter().filter(|u| u.count > 1 || u.several).count()
    }

    /// Whether `id` is a component extract its construct reads from the vector itself.
    pub(super) fn is_folded(&self, id: Id) -> bool {
        self.folded_extracts.contains(&id)
    }

    /// The blocks using `id`, in the order the walk met them or sorted, perhaps repeated.
    pub(super) fn blocks(&self, id: Id) -> &[u32] {
        match self.get(&id) {
            Some(used) if used.several => self.blocks.get(&id).map_or(&[], Vec::as_slice),
            Some(used) if used.block != NO_BLOCK => std::slice::from_ref(&used.block),
            _ => &[],
        }
    }

    /// Counts a use of `id`, in `block` if it has one, met after every use recorded so far.
    fn record(&mut self, id: Id, block: Option<u32>) {
        let used = self.get_mut(id);
        used.count += 1;
        let Some(block) = block else { return };
        let last = std::mem::replace(&mut used.block, block);
        if last != NO_BLOCK && last != block {
            used.several = true;
            let blocks = self.blocks.entry(id).or_insert_with(|| vec![last]);
            if blocks.last() != Some(&block) {
                blocks.push(block);
            }
        }
    }

    /// Adds `more` to the blocks using `id`, keeping the list sorted and without repeats.
    fn add_blocks(&mut self, id: Id, more: &[u32]) {
        // Most often `more` names only the one block `id` is used in: nothing changes.
        if let Some(used) = self.get(&id)
            && !used.several
            && used.block != NO_BLOCK
            && more.iter().all(|&block| block == used.block)
        {
            return;
        }
        let mut all = self.blocks(id).to_vec();
        all.extend(more);
        all.sort_unstable();
        all.dedup();
        let used = self.get_mut(id);
        if all == [used.block] {
            used.several = false;
            self.blocks.remove(&id);
        } else {
            used.several = true;
            self.blocks.insert(id, all);
        }
    }
}

/// The uses of every value `function` reads. A phi operand counts as used at the end of its
/// predecessor. A pointer is re-derived at each use, and with it the indices and base it is made
/// of: they are used once more for each further use of the pointer, in each of its blocks.
pub(super) fn uses<'m>(module: &'m Module, f: usize) -> Result<Uses<'m>, Error> {
    let function = &module.functions[f];
    let mut uses = Uses {
        module,
        function: f,
        results: vec![Use::default(); function.insts.len()],
        others: IdMap::default(),
        blocks: IdMap::default(),
        folded_extracts: IdSet::default(),
    };
    let mut pointers = Vec::new();
    // Component extracts of the block being walked, and runs of them a construct gathers.
    let mut block_extracts = IdSet::default();
    let mut gathered = Vec::new();
    for (b, block) in (0u32..).zip(&function.blocks) {
        block_extracts.clear();
        for index in block.all_insts() {
            let inst = &function.insts[index];
            if let (Some(result), Some(_)) = (inst.result(), vector_component(module, inst)) {
                block_extracts.insert(result);
            }
            if inst.op == Op::CompositeConstruct && inst.splatted(module).is_none() {
                gathered_runs(module, inst, &block_extracts, &mut gathered);
            }
            if inst.op == Op::Phi {
                for (value, parent) in inst.phi_incoming() {
                    let parent = match module.def(parent) {
                        Def::Label { block, .. } => Some(*block),
                        _ => None,
                    };
                    uses.record(value, parent);
                }
                continue;
            }
            // `vec3(x, x, x)` and a shuffle of a vector with itself read their value once.
            let shuffled_with_itself =
                (inst.op == Op::VectorShuffle && inst.id(0) == inst.id(1)).then(|| inst.id(0)).flatten();
            if let Some(id) = inst.splatted(module).or(shuffled_with_itself) {
                uses.record(id, Some(b));
            } else {
                for id in inst.id_operands() {
                    uses.record(id, Some(b));
                }
            }
            if let (Some(result), Some(ty)) = (inst.result(), inst.ty())
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
    // `add_blocks` keeps a set: a block passed on twice in a row is passed on once (a base that
    // every access chain of a block shares gets that block once, not once per chain).
    let mut inherited: IdMap<Id, Vec<u32>> = IdMap::default();
    let mut blocks = Vec::new();
    for &(pointer, index) in pointers.iter().rev() {
        if let Some(more) = inherited.remove(&pointer) {
            uses.add_blocks(pointer, &more);
        }
        let Some(used) = uses.get(&pointer) else { continue };
        let extra = used.count.saturating_sub(1);
        blocks.clear();
        blocks.extend_from_slice(uses.blocks(pointer));
        for id in function.insts[index].id_operands() {
            if uses.get(&id).is_some() {
                uses.get_mut(id).count += extra;
            }
            let passed = inherited.entry(id).or_default();
            for &block in &blocks {
                if passed.last() != Some(&block) {
                    passed.push(block);
                }
            }
        }
    }
    for (id, more) in inherited {
        uses.add_blocks(id, &more);
    }
    // A run is folded if its construct is the only reader of each extract: the vector is then
    // read once where it was read once per extract.
    for (vector, run) in gathered {
        if run.iter().all(|id| uses.get(id).is_some_and(|u| u.count == 1)) {
            uses.get_mut(vector).count -= run.len() as u32 - 1;
            uses.folded_extracts.extend(run);
        }
    }
    Ok(uses)
}

/// For `%c = OpCompositeExtract %v N` with `%v` a vector of more than N components: `(%v, N)`.
pub(super) fn vector_component(module: &Module, inst: &Inst) -> Option<(Id, u32)> {
    match (inst.op, &*inst.operands) {
        (Op::CompositeExtract, [Operand::IdRef(vector), Operand::LiteralBit32(index)]) => {
            let ty = module.value_type(*vector)?;
            // An index out of range is left to the extract's own lowering, which refuses it.
            matches!(module.type_def(ty), Some(Type::Vector { count, .. }) if index < count)
                .then_some((*vector, *index))
        }
        _ => None,
    }
}

/// Runs of two or more consecutive operands of a vector construct that extract components of
/// one vector in its own block, as (vector, extracts).
fn gathered_runs(module: &Module, construct: &Inst, block_extracts: &IdSet<Id>, out: &mut Vec<(Id, Vec<Id>)>) {
    let is_vector = construct.ty().is_some_and(|ty| matches!(module.type_def(ty), Some(Type::Vector { .. })));
    if !is_vector {
        return;
    }
    let mut run: Option<(Id, Vec<Id>)> = None;
    for operand in construct.id_operands() {
        let vector = block_extracts
            .contains(&operand)
            .then(|| module.value_inst(operand).and_then(|inst| vector_component(module, inst)))
            .flatten()
            .map(|(vector, _)| vector);
        match (&mut run, vector) {
            (Some((current, extracts)), Some(vector)) if *current == vector => extracts.push(operand),
            _ => {
                out.extend(run.take().filter(|(_, extracts)| extracts.len() > 1));
                run = vector.map(|vector| (vector, vec![operand]));
            }
        }
    }
    out.extend(run.filter(|(_, extracts)| extracts.len() > 1));
}
