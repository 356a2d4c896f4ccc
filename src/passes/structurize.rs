//! Structurizer: turns each function's control-flow graph into a tree of WGSL-shaped regions.
//!
//! The merge annotations (`OpSelectionMerge`, `OpLoopMerge`) name the constructs. A walk from the
//! entry block builds one sequence of nodes per construct, keeping a stack of the constructs it is
//! inside, and classifies each branch against that stack:
//! - to the block where the current sequence ends (its `follow`): nothing, control falls out;
//! - to the merge of the innermost loop or switch: `break`; to the innermost loop's continue
//!   target: `continue` (WGSL allows that inside a switch);
//! - to another case of the innermost switch: fall-through, lowered by continuing the sequence
//!   into that case, whose blocks are then emitted once more;
//! - to an exit of a construct further out (a switch case branching to the enclosing loop's
//!   merge): a guard variable is set, `break` leaves the inner construct, and `if guard { .. }`
//!   after it continues the exit outwards;
//! - to any other block: the next block of the current sequence.
//!
//! A selection whose arms reconverge before its declared merge uses the reconvergence point (the
//! immediate post-dominator of the header) as its merge, so that code is not duplicated. A
//! conditional branch without a merge annotation is treated the same way.
//!
//! After: every function has `body = Some(nodes)`.

use std::collections::BTreeMap;

use spirv::Op;

use crate::Options;
use crate::error::{Error, Location};
use crate::spirv::cfg::Cfg;
use crate::spirv::structured::{Case, Guard, Node};
use crate::spirv::{Function, Inst, Module, Operand};

/// The merge of a loop that never exits.
const NO_BLOCK: usize = usize::MAX;

/// Deeper nesting is refused here, as the walk recurses once per level; Tint takes far less
/// (about 62 nested loops), which `wgsl/nesting.rs` checks on the WGSL.
const MAX_DEPTH: usize = 100;

pub fn run(module: &mut Module, _options: &Options) -> Result<(), Error> {
    for f in 0..module.functions.len() {
        let mut body = Structurizer::new(module, f)?.function_body()?;
        // Kept until the function is emitted: in a module of many small functions, the spare
        // room would weigh.
        body.shrink_to_fit();
        module.functions[f].body = Some(body);
    }
    Ok(())
}

#[derive(Clone, Copy)]
enum Header {
    None,
    Selection { merge: usize },
    Loop { merge: usize, continue_target: usize },
}

/// A construct the walk is inside.
enum Construct {
    /// An `if` arm; `merge` is `None` for a conditional whose arms end where the enclosing
    /// sequence ends.
    If {
        merge: Option<usize>,
    },
    /// `cases` (sorted) are the case targets that start a case body, not exits.
    Switch {
        merge: usize,
        cases: Vec<usize>,
        exits: Vec<(Guard, usize)>,
    },
    Loop {
        merge: usize,
        continue_target: usize,
        exits: Vec<(Guard, usize)>,
    },
    Continuing {
        header: usize,
        merge: usize,
    },
}

/// Where a branch goes, seen from the current sequence.
enum Jump {
    /// To the block the sequence ends at.
    Fall,
    /// To the next block of this sequence.
    Next(usize),
    /// Out of it, by these nodes.
    Exit(Vec<Node>),
}

struct Structurizer<'m> {
    module: &'m Module,
    f: usize,
    function: &'m Function,
    headers: Vec<Header>,
    /// Immediate post-dominator of each block; `None` when it is the function's exit.
    ipdom: Vec<Option<usize>>,
    stack: Vec<Construct>,
    guards: Guard,
    placed: usize,
}

impl<'m> Structurizer<'m> {
    fn new(module: &'m Module, f: usize) -> Result<Self, Error> {
        let function = &module.functions[f];
        let mut s = Structurizer {
            module,
            f,
            function,
            headers: vec![Header::None; function.blocks.len()],
            ipdom: Vec::new(),
            stack: Vec::new(),
            guards: 0,
            placed: 0,
        };
        // A block whose branch names no block is refused in block order, after its merge
        // annotation and those of the blocks before it.
        let cfg = Cfg::build(function.blocks.len(), |b, out| module.successors_into(f, b, out));
        for b in 0..function.blocks.len() {
            if let Some(merge) = function.blocks[b].merge {
                let merge = &function.insts[merge];
                s.headers[b] = match merge.op {
                    Op::LoopMerge => {
                        Header::Loop { merge: s.target(b, merge, 0)?, continue_target: s.target(b, merge, 1)? }
                    }
                    _ => Header::Selection { merge: s.target(b, merge, 0)? },
                };
            }
            if cfg.as_ref().err() == Some(&b) {
                return Err(s.bad_target(b, function.terminator(b)));
            }
        }
        let cfg = cfg.map_err(|b| s.bad_target(b, function.terminator(b)))?;
        s.ipdom = cfg.post_dominators();
        s.infer_loops(&cfg)?;
        Ok(s)
    }

    /// Gives every loop without `OpLoopMerge` a header: the target of its back edges, which is
    /// also its continue target; its merge is where the loop's exits lead.
    fn infer_loops(&mut self, cfg: &Cfg) -> Result<(), Error> {
        let back_edges = cfg.back_edges().map_err(|(from, to)| {
            let (from_label, to_label) = (self.function.blocks[from].label, self.function.blocks[to].label);
            self.unstructured(
                from,
                &format!(
                    "irreducible, the cycle through %{from_label} and %{to_label} is entered at more than one block"
                ),
            )
        })?;
        let mut loops: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for (from, header) in back_edges {
            match self.headers[header] {
                Header::Loop { .. } => {}
                Header::Selection { .. } => {
                    return Err(self.unstructured(header, "a selection header that is also the target of a back edge"));
                }
                Header::None => loops.entry(header).or_default().push(from),
            }
        }
        for (header, sources) in loops {
            let body = cfg.natural_loop(header, &sources);
            let inside = |block: usize| body.binary_search(&block).is_ok();
            let merge = match self.ipdom[header] {
                Some(after) if !inside(after) => after,
                _ => {
                    let exits: std::collections::BTreeSet<usize> =
                        body.iter().flat_map(|&b| cfg.successors(b)).filter(|&t| !inside(t)).collect();
                    match exits.len() {
                        0 => NO_BLOCK,
                        1 => exits.into_iter().next().unwrap_or(NO_BLOCK),
                        _ => {
                            return Err(
                                self.unstructured(header, "a loop without OpLoopMerge that exits to several blocks")
                            );
                        }
                    }
                }
            };
            self.headers[header] = Header::Loop { merge, continue_target: header };
        }
        Ok(())
    }

    fn function_body(mut self) -> Result<Vec<Node>, Error> {
        self.sequence(0, None)
    }

    fn location(&self, block: usize, inst: &Inst) -> Location {
        let mut location = self.module.location_of(self.f, inst);
        location.block = Some(self.function.blocks[block].label);
        location
    }

    /// The block that id operand `index` of `inst` (in block `block`) names.
    fn target(&self, block: usize, inst: &Inst, index: usize) -> Result<usize, Error> {
        inst.id(index).and_then(|id| self.module.label_block(self.f, id)).ok_or_else(|| self.bad_target(block, inst))
    }

    fn bad_target(&self, block: usize, inst: &Inst) -> Error {
        Error::invalid("branch target is not a block of this function", self.location(block, inst))
    }

    fn unstructured(&self, block: usize, what: &str) -> Error {
        let inst = self.function.terminator(block);
        Error::unsupported(format!("unstructured control flow: {what}"), self.location(block, inst))
    }

    /// The nodes from `start` up to where the sequence ends: at `follow`, or at an exit.
    fn sequence(&mut self, start: usize, follow: Option<usize>) -> Result<Vec<Node>, Error> {
        if self.stack.len() > MAX_DEPTH {
            return Err(Error::unsupported(
                format!(
                    "control flow nested more than {MAX_DEPTH} constructs deep: Tint (the WGSL compiler of \
                     Chrome's WebGPU) takes about 62 nested loops or 41 nested switches"
                ),
                self.location(start, self.function.terminator(start)),
            ));
        }
        let mut nodes = Vec::new();
        let mut block = start;
        loop {
            let next = match self.headers[block] {
                Header::Loop { merge, continue_target } => {
                    self.loop_construct(block, merge, continue_target, &mut nodes)?;
                    Some(merge)
                }
                _ => self.block(block, follow, &mut nodes)?,
            };
            let Some(next) = next.filter(|&next| next != NO_BLOCK) else { return Ok(nodes) };
            match self.classify(block, next, follow)? {
                Jump::Fall => return Ok(nodes),
                Jump::Exit(exit) => {
                    nodes.extend(exit);
                    return Ok(nodes);
                }
                Jump::Next(next) => block = next,
            }
        }
    }

    /// The nodes for a branch from `from` to `target`, in a sequence that ends at `follow`.
    fn jump(&mut self, from: usize, target: usize, follow: Option<usize>) -> Result<Vec<Node>, Error> {
        match self.classify(from, target, follow)? {
            Jump::Fall => Ok(Vec::new()),
            Jump::Exit(exit) => Ok(exit),
            Jump::Next(next) => self.sequence(next, follow),
        }
    }

    /// Places `block` and handles its terminator; returns the block control goes to next, if the
    /// sequence goes on.
    fn block(&mut self, block: usize, follow: Option<usize>, nodes: &mut Vec<Node>) -> Result<Option<usize>, Error> {
        // Fall-through duplicates blocks; bound it so a hostile module cannot blow up the output.
        self.placed += 1;
        if self.placed > 4 * self.function.blocks.len() + 1024 {
            return Err(self.unstructured(block, "too many blocks would be duplicated to express it"));
        }
        nodes.push(Node::Block(block));
        let terminator = self.function.terminator(block);
        match terminator.op {
            Op::Return => nodes.push(Node::Return(None)),
            Op::ReturnValue => nodes.push(Node::Return(terminator.id(0))),
            Op::Kill | Op::TerminateInvocation => nodes.push(Node::Kill),
            Op::Unreachable => nodes.push(Node::Unreachable),
            Op::Branch => return Ok(Some(self.target(block, terminator, 0)?)),
            Op::BranchConditional => return self.conditional(block, terminator, follow, nodes),
            Op::Switch => return self.switch(block, terminator, follow, nodes).map(Some),
            _ => {
                return Err(Error::invalid(
                    "block does not end in a branch or return",
                    self.location(block, terminator),
                ));
            }
        }
        Ok(None)
    }

    /// Classifies a branch from `from` to `target` against the construct stack.
    fn classify(&mut self, from: usize, target: usize, follow: Option<usize>) -> Result<Jump, Error> {
        if Some(target) == follow {
            return Ok(Jump::Fall);
        }
        // The innermost loop or switch between here and the construct the branch leaves.
        let mut crossed: Option<usize> = None;
        let mut loop_crossed = false;
        for at in (0..self.stack.len()).rev() {
            match &self.stack[at] {
                Construct::If { merge } => {
                    if *merge == Some(target) {
                        return Err(self.unstructured(from, "a branch to the merge of an enclosing selection"));
                    }
                }
                Construct::Switch { merge, cases, .. } => {
                    if *merge == target {
                        return Ok(self.exit(crossed, target, Node::Break));
                    }
                    if crossed.is_none() && cases.binary_search(&target).is_ok() {
                        return Ok(Jump::Next(target));
                    }
                    crossed.get_or_insert(at);
                }
                Construct::Loop { merge, continue_target, .. } => {
                    if *merge == target {
                        return Ok(self.exit(crossed, target, Node::Break));
                    }
                    if *continue_target == target {
                        let through = if loop_crossed { crossed } else { None };
                        return Ok(self.exit(through, target, Node::Continue));
                    }
                    crossed.get_or_insert(at);
                    loop_crossed = true;
                }
                Construct::Continuing { header, merge } => {
                    if *header == target || *merge == target {
                        return Err(self.unstructured(from, "a branch out of a loop's continue construct"));
                    }
                }
            }
        }
        Ok(Jump::Next(target))
    }

    /// `node` (a `break` or `continue`), or, when a loop or switch lies between (the innermost at
    /// stack index `crossed`), a guard set before breaking out of it.
    fn exit(&mut self, crossed: Option<usize>, target: usize, node: Node) -> Jump {
        let Some(at) = crossed else { return Jump::Exit(vec![node]) };
        let guard = self.guards;
        self.guards += 1;
        if let Construct::Switch { exits, .. } | Construct::Loop { exits, .. } = &mut self.stack[at] {
            exits.push((guard, target));
        }
        Jump::Exit(vec![Node::SetGuard(guard), Node::Break])
    }

    /// Whether a branch to `target` would leave some construct on the stack.
    fn is_exit(&self, target: usize) -> bool {
        self.stack.iter().any(|construct| match construct {
            Construct::If { merge } => *merge == Some(target),
            Construct::Switch { merge, cases, .. } => *merge == target || cases.binary_search(&target).is_ok(),
            Construct::Loop { merge, continue_target, .. } => *merge == target || *continue_target == target,
            Construct::Continuing { header, merge } => *header == target || *merge == target,
        })
    }

    /// Where the arms of a selection headed by `block` reconverge: its immediate post-dominator
    /// when that lies inside the construct, else `declared` (the merge annotation, if any).
    fn reconvergence(&self, block: usize, declared: Option<usize>) -> Option<usize> {
        match self.ipdom[block] {
            Some(join) if Some(join) != declared && !self.is_exit(join) => Some(join),
            _ => declared,
        }
    }

    fn conditional(
        &mut self,
        block: usize,
        terminator: &'m Inst,
        follow: Option<usize>,
        nodes: &mut Vec<Node>,
    ) -> Result<Option<usize>, Error> {
        let condition = terminator.id(0).ok_or_else(|| self.unstructured(block, "no branch condition"))?;
        let accept = self.target(block, terminator, 1)?;
        let reject = self.target(block, terminator, 2)?;
        if accept == reject {
            return Ok(Some(accept));
        }
        // The back-edge block of a continue construct: `break if`.
        if let Some(Construct::Continuing { header, merge }) = self.stack.last()
            && [accept, reject].contains(header)
            && [accept, reject].contains(merge)
        {
            nodes.push(Node::BreakIf { condition, negate: accept == *header });
            return Ok(None);
        }
        let declared = match self.headers[block] {
            Header::Selection { merge } => Some(merge),
            _ => None,
        };
        if declared.is_none() {
            // A conditional break, continue or early exit: `if c { break; }`, then carry on.
            let (accept_jump, reject_jump) =
                (self.classify(block, accept, follow)?, self.classify(block, reject, follow)?);
            match (accept_jump, reject_jump) {
                (Jump::Next(_), Jump::Next(_)) => {}
                (Jump::Next(next), Jump::Exit(exit)) => {
                    nodes.push(Node::If { condition, accept: Vec::new(), reject: exit });
                    return Ok(Some(next));
                }
                (Jump::Exit(exit), Jump::Next(next)) => {
                    nodes.push(Node::If { condition, accept: exit, reject: Vec::new() });
                    return Ok(Some(next));
                }
                (accept_jump, reject_jump) => {
                    let accept = self.arm(accept_jump, follow)?;
                    let reject = self.arm(reject_jump, follow)?;
                    nodes.push(Node::If { condition, accept, reject });
                    return Ok(None);
                }
            }
        }
        let merge = self.reconvergence(block, declared);
        // Without a merge inside the construct, both arms run to where this sequence ends.
        let arm_follow = merge.or(follow);
        self.stack.push(Construct::If { merge });
        let accept = self.jump(block, accept, arm_follow)?;
        let reject = self.jump(block, reject, arm_follow)?;
        self.stack.pop();
        nodes.push(Node::If { condition, accept, reject });
        Ok(merge)
    }

    /// An arm of a conditional without a merge whose target was classified as `jump`.
    fn arm(&mut self, jump: Jump, follow: Option<usize>) -> Result<Vec<Node>, Error> {
        match jump {
            Jump::Fall => Ok(Vec::new()),
            Jump::Exit(exit) => Ok(exit),
            Jump::Next(next) => {
                self.stack.push(Construct::If { merge: None });
                let arm = self.sequence(next, follow)?;
                self.stack.pop();
                Ok(arm)
            }
        }
    }

    fn switch(
        &mut self,
        block: usize,
        terminator: &'m Inst,
        follow: Option<usize>,
        nodes: &mut Vec<Node>,
    ) -> Result<usize, Error> {
        let selector = terminator.id(0).ok_or_else(|| self.unstructured(block, "no switch selector"))?;
        let merge = match self.headers[block] {
            Header::Selection { merge } => merge,
            _ => match self.reconvergence(block, None) {
                Some(merge) => merge,
                None => return Err(self.unstructured(block, "an OpSwitch without OpSelectionMerge")),
            },
        };
        // Case targets in block order, which is the order fall-through requires.
        let mut targets: BTreeMap<usize, (Vec<u64>, bool)> = BTreeMap::new();
        targets.entry(self.target(block, terminator, 1)?).or_default().1 = true;
        for index in (2..terminator.operands.len()).step_by(2) {
            let value = match terminator.operands[index] {
                Operand::LiteralBit32(v) => u64::from(v),
                _ => return Err(self.unstructured(block, "a switch case value that is not a literal")),
            };
            targets.entry(self.target(block, terminator, index + 1)?).or_default().0.push(value);
        }
        self.merge_empty_cases(&mut targets);
        let to_merge = targets.remove(&merge);
        if targets.is_empty() {
            // Every value goes to the merge: the switch does nothing.
            return Ok(merge);
        }
        let cases: Vec<usize> = targets.keys().copied().filter(|&t| Some(t) != follow && !self.is_exit(t)).collect();
        let at = nodes.len();
        self.stack.push(Construct::Switch { merge, cases, exits: Vec::new() });
        let mut out = Vec::with_capacity(targets.len() + 1);
        for (target, (values, default)) in targets {
            let body = self.jump(block, target, Some(merge))?;
            out.push(Case { values, default, body });
        }
        let exits = self.pop_exits();
        // Labels that go straight to the merge do nothing, but they must be cases: left out, their
        // values would run the default.
        if let Some((values, default)) = to_merge {
            out.push(Case { values, default, body: Vec::new() });
        }
        // `switch (x) { default: { .. } }`, as spirv-opt's inlining leaves behind: just its body,
        // when its breaks can be turned into `else` branches.
        let only_default = match out.as_mut_slice() {
            [only] if only.default && exits.is_empty() => without_breaks(std::mem::take(&mut only.body)),
            _ => Err(Vec::new()),
        };
        match only_default {
            Ok(body) => nodes.extend(body),
            Err(body) => {
                if let [only] = out.as_mut_slice()
                    && only.body.is_empty()
                {
                    only.body = body;
                }
                nodes.push(Node::Switch { selector, cases: out });
            }
        }
        self.guarded_exits(block, at, exits, nodes)?;
        Ok(merge)
    }

    /// A case whose block does nothing but branch on to another case (`case 4: case 5: ..` as
    /// glslang writes it) gives its values to that case: `case 4, 5:` rather than a copy.
    fn merge_empty_cases(&self, targets: &mut BTreeMap<usize, (Vec<u64>, bool)>) {
        let empty_to = |block: usize| {
            let terminator = self.function.terminator(block);
            let data = &self.function.blocks[block];
            let only_lines = data.insts.iter().all(|&i| matches!(self.function.insts[i].op, Op::Line | Op::NoLine));
            if !only_lines || data.merge.is_some() || terminator.op != Op::Branch {
                return None;
            }
            let next = self.target(block, terminator, 0).ok()?;
            // The next case must not take a phi value from this block.
            let label = Some(data.label);
            let takes_phi = self.function.blocks[next].insts.iter().any(|&i| {
                let inst = &self.function.insts[i];
                inst.op == Op::Phi && inst.phi_incoming().any(|(_, parent)| Some(parent) == label)
            });
            (next != block && !takes_phi).then_some(next)
        };
        let blocks: Vec<usize> = targets.keys().copied().collect();
        for block in blocks {
            // Follow a chain of empty cases, at most once around all of them.
            let mut to = block;
            for _ in 0..targets.len() {
                match empty_to(to) {
                    Some(next) if targets.contains_key(&next) => to = next,
                    _ => break,
                }
            }
            if to != block
                && let Some((values, default)) = targets.remove(&block)
                && let Some(entry) = targets.get_mut(&to)
            {
                entry.0.splice(0..0, values);
                entry.1 |= default;
            }
        }
    }

    fn loop_construct(
        &mut self,
        header: usize,
        merge: usize,
        continue_target: usize,
        nodes: &mut Vec<Node>,
    ) -> Result<(), Error> {
        let at = nodes.len();
        // When the header is its own continue target, the back edge ends the body.
        let body_follow = Some(continue_target);
        self.stack.push(Construct::Loop { merge, continue_target, exits: Vec::new() });
        let mut body = Vec::new();
        if let Some(next) = self.block(header, body_follow, &mut body)? {
            body.extend(self.jump(header, next, body_follow)?);
        }
        let exits = self.pop_exits();
        let continuing = if continue_target == header {
            Vec::new()
        } else {
            self.stack.push(Construct::Continuing { header, merge });
            let continuing = self.sequence(continue_target, Some(header))?;
            self.stack.pop();
            continuing
        };
        nodes.push(Node::Loop { body, continuing });
        self.guarded_exits(header, at, exits, nodes)
    }

    /// The guarded exits of the loop or switch on top of the stack, which is popped.
    fn pop_exits(&mut self) -> Vec<(Guard, usize)> {
        match self.stack.pop() {
            Some(Construct::Switch { exits, .. } | Construct::Loop { exits, .. }) => exits,
            _ => Vec::new(),
        }
    }

    /// For each exit that left the construct headed by `header` (pushed at `nodes[at]`) through a
    /// guard: the guard's declaration before it and `if guard { .. }` after it, which continues
    /// the exit outwards.
    fn guarded_exits(
        &mut self,
        header: usize,
        at: usize,
        exits: Vec<(Guard, usize)>,
        nodes: &mut Vec<Node>,
    ) -> Result<(), Error> {
        nodes.splice(at..at, exits.iter().map(|&(guard, _)| Node::DeclareGuard(guard)));
        for (guard, target) in exits {
            let body = match self.classify(header, target, None)? {
                Jump::Exit(body) => body,
                Jump::Fall | Jump::Next(_) => {
                    return Err(self.unstructured(header, "an exit into a case of an enclosing switch"));
                }
            };
            nodes.push(Node::IfGuard { guard, body });
        }
        Ok(())
    }
}

/// The body of a construct rewritten without the `break`s that leave it, where each one ends an
/// `if` arm: `if c { a; break; } rest` becomes `if c { a } else { rest }`. Gives the body back
/// unchanged when that cannot be done without duplicating code.
fn without_breaks(mut nodes: Vec<Node>) -> Result<Vec<Node>, Vec<Node>> {
    let Some(at) = nodes.iter().position(|node| match node {
        Node::Break => true,
        Node::If { accept, reject, .. } => breaks_out(accept) || breaks_out(reject),
        _ => false,
    }) else {
        return Ok(nodes);
    };
    let rest = nodes.split_off(at + 1);
    match nodes.pop() {
        // Whatever follows a plain break is never reached.
        Some(Node::Break) => Ok(nodes),
        Some(Node::If { condition, accept, reject }) => {
            let exits = |arm: &[Node]| {
                matches!(
                    arm.last(),
                    Some(Node::Break | Node::Continue | Node::Return(_) | Node::Kill | Node::Unreachable)
                )
            };
            let (accept, reject) = if exits(&accept) {
                (accept, [reject, rest].concat())
            } else if exits(&reject) {
                ([accept, rest].concat(), reject)
            } else {
                nodes.push(Node::If { condition, accept, reject });
                nodes.extend(rest);
                return Err(nodes);
            };
            match (without_breaks(accept), without_breaks(reject)) {
                (Ok(accept), Ok(reject)) => {
                    nodes.push(Node::If { condition, accept, reject });
                    Ok(nodes)
                }
                (accept, reject) => {
                    let (accept, reject) = (accept.unwrap_or_else(|a| a), reject.unwrap_or_else(|r| r));
                    nodes.push(Node::If { condition, accept, reject });
                    Err(nodes)
                }
            }
        }
        _ => Err(nodes),
    }
}

/// Whether `nodes` contain a `break` that leaves the construct they are the body of.
fn breaks_out(nodes: &[Node]) -> bool {
    nodes.iter().any(|node| match node {
        Node::Break => true,
        Node::If { accept, reject, .. } => breaks_out(accept) || breaks_out(reject),
        Node::IfGuard { body, .. } => breaks_out(body),
        _ => false,
    })
}
