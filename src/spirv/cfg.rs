//! A function's control-flow graph as block indices, and the analyses the structurizer needs:
//! dominators, post-dominators, back edges and natural loops. Everything is iterative, so a
//! hostile module cannot drive it into deep recursion.

use crate::id_hash::IdSet;

/// Edge lists of blocks `0..n` in one array: block `b`'s are `to[start[b]..start[b + 1]]`. One
/// allocation per function rather than one per block (a function of thousands of blocks paid
/// for each, and so did every small function).
struct Edges {
    start: Vec<usize>,
    to: Vec<usize>,
}

impl Edges {
    fn of(&self, block: usize) -> &[usize] {
        &self.to[self.start[block]..self.start[block + 1]]
    }

    fn len(&self) -> usize {
        self.start.len() - 1
    }

    /// The same edges reversed, each block's listed in the order of their sources.
    fn reversed(&self) -> Edges {
        let n = self.len();
        // Counting sort by target: `start[t + 1]` counts t's edges, then becomes their end.
        let mut start = vec![0; n + 1];
        for &target in &self.to {
            start[target + 1] += 1;
        }
        for b in 0..n {
            start[b + 1] += start[b];
        }
        let mut next = start.clone();
        let mut to = vec![0; self.to.len()];
        for block in 0..n {
            for &target in self.of(block) {
                to[next[target]] = block;
                next[target] += 1;
            }
        }
        Edges { start, to }
    }
}

/// Blocks `0..n`, entry block 0, and a virtual exit `n` that every returning block leads to.
pub struct Cfg {
    successors: Edges,
    predecessors: Edges,
}

impl Cfg {
    /// `targets[b]` lists where block `b` branches to; `None` stands for leaving the function.
    pub fn new(targets: &[Vec<Option<usize>>]) -> Cfg {
        Cfg::build(targets.len(), |block, out| {
            out.extend_from_slice(&targets[block]);
            true
        })
        .unwrap_or_else(|_| unreachable!("every block's targets are given"))
    }

    /// The graph of `n` blocks where `targets(b, out)` appends block `b`'s targets to `out`
    /// (`None` for leaving the function), or returns false; the error is then that block.
    pub fn build(n: usize, mut targets: impl FnMut(usize, &mut Vec<Option<usize>>) -> bool) -> Result<Cfg, usize> {
        let exit = n;
        let mut start = Vec::with_capacity(n + 2);
        let mut to = Vec::with_capacity(n + n / 2);
        let mut buffer = Vec::new();
        start.push(0);
        for block in 0..n {
            buffer.clear();
            if !targets(block, &mut buffer) {
                return Err(block);
            }
            to.extend(buffer.iter().map(|b| b.unwrap_or(exit)));
            start.push(to.len());
        }
        // The exit has no successors.
        start.push(to.len());
        let successors = Edges { start, to };
        let predecessors = successors.reversed();
        Ok(Cfg { successors, predecessors })
    }

    fn exit(&self) -> usize {
        self.successors.len() - 1
    }

    /// Immediate dominator of each block; `None` for the entry and unreachable blocks.
    pub fn dominators(&self) -> Vec<Option<usize>> {
        let mut idom = immediate_dominators(0, &self.successors, &self.predecessors);
        idom.truncate(self.exit());
        idom[0] = None;
        idom
    }

    /// Immediate post-dominator of each block; `None` where that is the function's exit, and for
    /// blocks that never reach it, as in an endless loop.
    pub fn post_dominators(&self) -> Vec<Option<usize>> {
        let exit = self.exit();
        // One block has no post-dominator but the exit, whether it reaches it or not: the many
        // one-block functions (entry-point wrappers) skip the walk and its allocations.
        if exit == 1 {
            return vec![None];
        }
        let idom = immediate_dominators(exit, &self.predecessors, &self.successors);
        idom.into_iter().take(exit).map(|d| d.filter(|&d| d != exit)).collect()
    }

    /// The back edges `(from, header)` found by a depth-first walk from the entry, or the first
    /// edge that enters a cycle other than through a block dominating it: the graph is then
    /// irreducible.
    pub fn back_edges(&self) -> Result<Vec<(usize, usize)>, (usize, usize)> {
        let exit = self.exit();
        // When every edge leads to a later block (or the exit), there is no cycle, so no back
        // edge: most functions, which then skip the walk.
        if (0..exit).all(|block| self.successors.of(block).iter().all(|&target| target > block)) {
            return Ok(Vec::new());
        }
        // Only an edge back to a block on the walk's stack asks for dominators: most functions
        // have no loop, and their dominators are then never computed.
        let mut idom: Option<Vec<Option<usize>>> = None;
        let mut state = vec![0u8; exit + 1]; // 0: unseen, 1: on the walk's stack, 2: done
        let mut back = Vec::new();
        let mut stack = vec![(0usize, 0usize)];
        state[0] = 1;
        while let Some((node, next)) = stack.last_mut() {
            let node = *node;
            let Some(&target) = self.successors.of(node).get(*next) else {
                state[node] = 2;
                stack.pop();
                continue;
            };
            *next += 1;
            match state[target] {
                0 => {
                    state[target] = 1;
                    stack.push((target, 0));
                }
                1 if dominates(idom.get_or_insert_with(|| self.dominators()), target, node) => {
                    back.push((node, target))
                }
                1 => return Err((node, target)),
                _ => {}
            }
        }
        Ok(back)
    }

    /// The blocks of the natural loop of `header` whose back edges come from `sources`: those
    /// that reach a source without passing through the header.
    pub fn natural_loop(&self, header: usize, sources: &[usize]) -> Vec<usize> {
        let mut body = vec![header];
        let mut seen: IdSet<usize> = IdSet::from_iter([header]);
        let mut work: Vec<usize> = sources.to_vec();
        while let Some(block) = work.pop() {
            if seen.insert(block) {
                body.push(block);
                work.extend(self.predecessors.of(block));
            }
        }
        body.sort_unstable();
        body
    }

    /// Where `block` branches to, the function's exit left out.
    pub fn successors(&self, block: usize) -> impl Iterator<Item = usize> + '_ {
        let exit = self.exit();
        self.successors.of(block).iter().copied().filter(move |&b| b != exit)
    }
}

/// The dominator tree numbered by a depth-first walk, so that whether one block dominates
/// another is two comparisons, not a walk up the tree (which is as deep as the nesting).
pub struct DominatorTree {
    /// Entry and exit numbers of each block in the walk; `None` for unreachable blocks.
    span: Vec<Option<(usize, usize)>>,
}

impl DominatorTree {
    /// From `Cfg::dominators`.
    pub fn new(idom: &[Option<usize>]) -> DominatorTree {
        let n = idom.len();
        let mut children = vec![Vec::new(); n];
        for (block, parent) in idom.iter().enumerate() {
            if let Some(parent) = *parent {
                children[parent].push(block);
            }
        }
        let mut span = vec![None; n];
        let mut clock = 0;
        // (block, entered): a block is pushed to enter it, then again to leave it.
        let mut stack = if n > 0 { vec![(0, false)] } else { Vec::new() };
        let mut entered = vec![0; n];
        while let Some((block, leaving)) = stack.pop() {
            if leaving {
                span[block] = Some((entered[block], clock));
            } else {
                entered[block] = clock;
                stack.push((block, true));
                stack.extend(children[block].iter().map(|&child| (child, false)));
            }
            clock += 1;
        }
        DominatorTree { span }
    }

    /// Whether `a` dominates `b` (every block dominates itself).
    pub fn dominates(&self, a: usize, b: usize) -> bool {
        match (self.span[a], self.span[b]) {
            (Some((a_in, a_out)), Some((b_in, b_out))) => a_in <= b_in && b_out <= a_out,
            _ => false,
        }
    }
}

/// Whether `a` dominates `b`.
fn dominates(idom: &[Option<usize>], a: usize, mut b: usize) -> bool {
    loop {
        if a == b {
            return true;
        }
        match idom[b] {
            Some(up) if up != b => b = up,
            _ => return false,
        }
    }
}

/// Cooper, Harvey and Kennedy's iterative algorithm, from `root` along `forward` edges;
/// `backward` are the same edges reversed. The root is its own dominator.
fn immediate_dominators(root: usize, forward: &Edges, backward: &Edges) -> Vec<Option<usize>> {
    let n = forward.len();
    // Postorder numbers from an iterative depth-first walk.
    let mut number = vec![usize::MAX; n];
    let mut order = Vec::with_capacity(n);
    let mut visited = vec![false; n];
    let mut stack = vec![(root, 0usize)];
    visited[root] = true;
    while let Some((node, next)) = stack.last_mut() {
        let node = *node;
        if let Some(&target) = forward.of(node).get(*next) {
            *next += 1;
            if !visited[target] {
                visited[target] = true;
                stack.push((target, 0));
            }
        } else {
            number[node] = order.len();
            order.push(node);
            stack.pop();
        }
    }
    let mut idom: Vec<Option<usize>> = vec![None; n];
    idom[root] = Some(root);
    let mut changed = true;
    while changed {
        changed = false;
        for &node in order.iter().rev().skip(1) {
            let mut new = None;
            for &from in backward.of(node) {
                if idom[from].is_none() {
                    continue;
                }
                new = Some(match new {
                    None => from,
                    Some(other) => intersect(&idom, &number, from, other),
                });
            }
            if new.is_some() && idom[node] != new {
                idom[node] = new;
                changed = true;
            }
        }
    }
    idom
}

fn intersect(idom: &[Option<usize>], number: &[usize], mut a: usize, mut b: usize) -> usize {
    while a != b {
        while number[a] < number[b] {
            a = idom[a].unwrap_or(a);
        }
        while number[b] < number[a] {
            b = idom[b].unwrap_or(b);
        }
    }
    a
}

#[cfg(test)]
mod tests {
    use super::Cfg;

    // 0 -> 1, 2; 1 -> 3; 2 -> 3; 3 -> 4 (loop header) -> 5 -> 4 | 6; 6 returns.
    fn diamond_then_loop() -> Cfg {
        Cfg::new(&[
            vec![Some(1), Some(2)],
            vec![Some(3)],
            vec![Some(3)],
            vec![Some(4)],
            vec![Some(5)],
            vec![Some(4), Some(6)],
            vec![None],
        ])
    }

    #[test]
    fn dominators_and_post_dominators() {
        let cfg = diamond_then_loop();
        assert_eq!(cfg.dominators(), vec![None, Some(0), Some(0), Some(0), Some(3), Some(4), Some(5)]);
        assert_eq!(cfg.post_dominators(), vec![Some(3), Some(3), Some(3), Some(4), Some(5), Some(6), None]);
    }

    #[test]
    fn back_edges_and_natural_loops() {
        let cfg = diamond_then_loop();
        let back = cfg.back_edges();
        assert_eq!(back, Ok(vec![(5, 4)]));
        assert_eq!(cfg.natural_loop(4, &[5]), vec![4, 5]);
    }

    #[test]
    fn blocks_in_an_endless_loop_have_no_post_dominator() {
        let cfg = Cfg::new(&[vec![Some(1), Some(2)], vec![Some(1)], vec![None]]);
        assert_eq!(cfg.post_dominators(), vec![Some(2), None, None]);
    }

    #[test]
    fn a_cycle_entered_at_two_blocks_is_irreducible() {
        // 0 -> 1 | 2; 1 -> 2; 2 -> 1 | 3.
        let cfg = Cfg::new(&[vec![Some(1), Some(2)], vec![Some(2)], vec![Some(1), Some(3)], vec![None]]);
        assert!(cfg.back_edges().is_err());
    }
}
