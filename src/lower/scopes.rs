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
    /// The scopes each block is placed in (more than one when duplicated).
    placed: IdMap<usize, Vec<usize>>,
    /// Loop body scopes that contain a `continue`, and the block each such body starts with.
    continued: IdSet<usize>,
    first_block: IdMap<usize, usize>,
    loop_headers: IdSet<usize>,
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
                Node::Block(b) => self.placed.entry(*b).or_default().push(scope),
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
    fn enclosing(&self, scopes: &[usize], blocks: &[usize]) -> usize {
        let placed = blocks.iter().filter_map(|b| self.placed.get(b)).flatten();
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
    let mut scopes = Scopes::default();
    for (b, block) in function.blocks.iter().enumerate() {
        let Some(def_scopes) = walk.placed.get(&b) else { continue };
        for &index in &block.insts {
            let inst = &function.insts[index];
            let (Some(id), Some(ty)) = (inst.result, inst.ty) else { continue };
            let used_in = uses.blocks(id);
            if inst.op == Op::Phi {
                let direct = !walk.loop_headers.contains(&b);
                let parents = inst.phi_incoming().filter_map(|(_, parent)| match module.def(parent) {
                    Def::Label { block, .. } => Some(*block as usize),
                    _ => None,
                });
                let blocks: Vec<usize> =
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
            if used_in.is_empty() || used_in == [b] {
                continue;
            }
            let mut hoist = def_scopes.len() > 1;
            for used in used_in.iter().filter_map(|u| walk.placed.get(u)).flatten() {
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
