//! Which values outlive the WGSL scope they are defined in.
//!
//! SPIR-V only asks that a definition dominate its uses; WGSL scopes are lexical. A value used in
//! a scope that its definition's scope does not enclose (a value from an `if` arm used after the
//! `if`, a loop header's phi used after the loop), or defined by a block that the structurizer
//! emitted more than once, is "hoisted": a `var` is declared at the start of the innermost scope
//! enclosing the definition and every use, and the definition assigns it.
//!
//! Each phi has a `var` that its predecessors assign, declared where it encloses them. A phi of a
//! block that is not a loop header is read straight from its `var`: no predecessor of its block
//! runs while its value is live, since the block dominates every use. A loop header's phi is
//! reassigned at the end of each iteration, so its block reads the `var` once into a `let`.
//!
//! Scopes are the node lists of the structured body, numbered in the order the lowering visits
//! them; a loop's `continuing` is a scope inside its body. WGSL forbids a `continue` that skips a
//! declaration the `continuing` uses, so such values are hoisted to the start of the body too.
//! Pointers and handles are never hoisted: they are re-derived at each use.

use spirv::Op;

use super::uses::Uses;
use crate::error::Error;
use crate::id_hash::{IdMap, IdSet};
use crate::spirv::structured::Node;
use crate::spirv::{Def, Function, Id, Module, Type};

#[derive(Default)]
pub(super) struct Scopes {
    /// Hoisted values, by the scope whose start declares them, in definition order.
    pub(super) declared: IdMap<usize, Vec<Id>>,
    pub(super) hoisted: IdSet<Id>,
    /// The `var`s of phis, by the scope whose start declares them, in block order.
    pub(super) phis: IdMap<usize, Vec<Id>>,
    /// Phis read straight from their `var`.
    pub(super) direct_phis: IdSet<Id>,
}

struct Scope {
    parent: Option<usize>,
    depth: usize,
    /// For a loop's continuing scope: its body scope.
    continuing_of: Option<usize>,
}

#[derive(Default)]
struct Walk {
    scopes: Vec<Scope>,
    /// Each block placed in a scope, with the scope, in the order they are met (a block the
    /// structurizer duplicated, more than once); `placed` gathers them by block after the walk.
    visits: Vec<(usize, usize)>,
    placed: Placements,
    /// Loop body scopes that contain a `continue`, and the block each such body starts with.
    continued: IdSet<usize>,
    first_block: IdMap<usize, usize>,
    loop_headers: IdSet<usize>,
}

/// The scopes each block is placed in, in the order they were met: one list for every block,
/// in block order, and where each block's part starts. A list per block in a map cost a hashed
/// insert and an allocation per block.
#[derive(Default)]
struct Placements {
    /// `starts[b]..starts[b + 1]` is block `b`'s part of `scopes`.
    starts: Vec<usize>,
    scopes: Vec<usize>,
}

impl Placements {
    /// Gathers `(block, scope)` visits by block, keeping their order within each block.
    fn new(visits: &[(usize, usize)]) -> Placements {
        let blocks = visits.iter().map(|&(b, _)| b + 1).max().unwrap_or(0);
        let mut starts = vec![0; blocks + 1];
        for &(b, _) in visits {
            starts[b + 1] += 1;
        }
        for b in 0..blocks {
            starts[b + 1] += starts[b];
        }
        let mut next = starts.clone();
        let mut scopes = vec![0; visits.len()];
        for &(b, scope) in visits {
            scopes[next[b]] = scope;
            next[b] += 1;
        }
        Placements { starts, scopes }
    }

    /// The scopes block `b` is placed in; none if it is not placed.
    fn get(&self, b: usize) -> &[usize] {
        match self.starts.get(b..b + 2) {
            Some(&[start, end]) => &self.scopes[start..end],
            _ => &[],
        }
    }
}

impl Walk {
    fn scope(&mut self, nodes: &[Node], parent: Option<usize>, loop_body: Option<usize>) -> usize {
        let depth = parent.map_or(0, |p| self.scopes[p].depth + 1);
        let id = self.scopes.len();
        self.scopes.push(Scope { parent, depth, continuing_of: None });
        self.walk(nodes, id, loop_body);
        id
    }

    fn walk(&mut self, nodes: &[Node], scope: usize, loop_body: Option<usize>) {
        for node in nodes {
            match node {
                Node::Block(b) => self.visits.push((*b, scope)),
                Node::If { accept, reject, .. } => {
                    self.scope(accept, Some(scope), loop_body);
                    self.scope(reject, Some(scope), loop_body);
                }
                Node::Loop { body, continuing } => {
                    let body_scope = self.scopes.len();
                    if let Some(Node::Block(first)) = body.first() {
                        self.first_block.insert(body_scope, *first);
                        self.loop_headers.insert(*first);
                    }
                    self.scope(body, Some(scope), Some(body_scope));
                    let continuing_scope = self.scope(continuing, Some(body_scope), None);
                    self.scopes[continuing_scope].continuing_of = Some(body_scope);
                }
                Node::Switch { cases, .. } => {
                    for case in cases {
                        self.scope(&case.body, Some(scope), loop_body);
                    }
                }
                Node::IfGuard { body, .. } => {
                    self.scope(body, Some(scope), loop_body);
                }
                Node::Continue => {
                    if let Some(body) = loop_body {
                        self.continued.insert(body);
                    }
                }
                _ => {}
            }
        }
    }

    /// The innermost scope enclosing `scopes` and every placement of `blocks`.
    fn enclosing(&self, scopes: &[usize], blocks: &[u32]) -> usize {
        let placed = blocks.iter().flat_map(|&b| self.placed.get(b as usize));
        scopes.iter().chain(placed).fold(scopes[0], |common, &scope| self.common(common, scope))
    }

    fn common(&self, mut a: usize, mut b: usize) -> usize {
        while self.scopes[a].depth > self.scopes[b].depth {
            a = self.scopes[a].parent.unwrap_or(a);
        }
        while self.scopes[b].depth > self.scopes[a].depth {
            b = self.scopes[b].parent.unwrap_or(b);
        }
        while a != b {
            a = self.scopes[a].parent.unwrap_or(a);
            b = self.scopes[b].parent.unwrap_or(b);
        }
        a
    }

    /// Whether a value defined by `block` directly in scope `def` and used in `used` could be
    /// skipped by a `continue` on its way to a `continuing` that uses it.
    fn skipped_by_continue(&self, block: usize, def: usize, mut used: usize) -> bool {
        while let Some(parent) = self.scopes[used].parent {
            if parent == def {
                return self.scopes[used].continuing_of == Some(def)
                    && self.continued.contains(&def)
                    && self.first_block.get(&def) != Some(&block);
            }
            used = parent;
        }
        false
    }
}

pub(super) fn analyse(module: &Module, function: &Function, body: &[Node], uses: &Uses<'_>) -> Result<Scopes, Error> {
    let mut walk = Walk::default();
    walk.scope(body, None, None);
    walk.placed = Placements::new(&walk.visits);
    let mut scopes = Scopes::default();
    for (b, block) in function.blocks.iter().enumerate() {
        let def_scopes = walk.placed.get(b);
        if def_scopes.is_empty() {
            continue;
        }
        for &index in &block.insts {
            let inst = &function.insts[index];
            let (Some(id), Some(ty)) = (inst.result(), inst.ty()) else { continue };
            let used_in = uses.blocks(id);
            if inst.op == Op::Phi {
                let direct = !walk.loop_headers.contains(&b);
                let parents = inst.phi_incoming().filter_map(|(_, parent)| match module.def(parent) {
                    Def::Label { block, .. } => Some(*block),
                    _ => None,
                });
                let blocks: Vec<u32> =
                    if direct { parents.chain(used_in.iter().copied()).collect() } else { parents.collect() };
                let scope = walk.enclosing(def_scopes, &blocks);
                scopes.phis.entry(scope).or_default().push(id);
                if direct {
                    scopes.direct_phis.insert(id);
                    continue;
                }
            }
            if matches!(
                module.ty(ty)?,
                Type::Pointer { .. } | Type::Image(_) | Type::Sampler { .. } | Type::SampledImage { .. }
            ) {
                continue;
            }
            // Used only where it is defined: in scope in every copy of the block.
            if used_in.is_empty() || used_in == [b as u32] {
                continue;
            }
            let mut hoist = def_scopes.len() > 1;
            for used in used_in.iter().flat_map(|&u| walk.placed.get(u as usize)) {
                hoist = hoist || walk.skipped_by_continue(b, def_scopes[0], *used);
            }
            let common = walk.enclosing(def_scopes, used_in);
            if hoist || common != def_scopes[0] {
                scopes.declared.entry(common).or_default().push(id);
                scopes.hoisted.insert(id);
            }
        }
    }
    Ok(scopes)
}

#[cfg(test)]
mod tests {
    use super::Placements;

    #[test]
    fn placements_keep_each_block_s_scopes_in_the_order_met() {
        let placed = Placements::new(&[(2, 0), (0, 1), (2, 3), (2, 1)]);
        assert_eq!(placed.get(2), [0, 3, 1]);
        assert_eq!(placed.get(0), [1]);
        assert!(placed.get(1).is_empty());
        assert!(placed.get(7).is_empty());
        assert!(Placements::new(&[]).get(0).is_empty());
    }
}
