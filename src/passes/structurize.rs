//! Structurizer: turns each function's control-flow graph into a tree of WGSL-shaped regions.
//!
//! Handled so far: straight-line functions, i.e. an entry block followed by a chain of
//! unconditional branches, each target reached only from the block before it, ending in a
//! return, kill or unreachable. Branching control flow is reported as not yet supported.
//!
//! After: every reachable function has `body = Some(nodes)`.

use spirv::Op;

use crate::error::{Error, Location};
use crate::spirv::structured::Node;
use crate::spirv::{Def, Function, Module};
use crate::Options;

pub fn run(module: &mut Module, _options: &Options) -> Result<(), Error> {
    for f in 0..module.functions.len() {
        let body = straight_line(module, f)?;
        module.functions[f].body = Some(body);
    }
    Ok(())
}

fn straight_line(module: &Module, f: usize) -> Result<Vec<Node>, Error> {
    let function: &Function = &module.functions[f];
    let mut predecessors = vec![0u32; function.blocks.len()];
    for b in 0..function.blocks.len() {
        let terminator = function.terminator(b);
        if terminator.op == Op::Branch
            && let Some(Def::Label { block, .. }) = terminator.id(0).map(|id| module.def(id))
        {
            predecessors[*block] += 1;
        }
    }
    let mut body = Vec::new();
    let mut visited = vec![false; function.blocks.len()];
    let mut block = 0;
    loop {
        visited[block] = true;
        body.push(Node::Block(block));
        let terminator = function.terminator(block);
        let mut location = module.location_of(f, terminator);
        location.block = Some(function.blocks[block].label);
        let node = match terminator.op {
            Op::Return => Node::Return(None),
            Op::ReturnValue => Node::Return(terminator.id(0)),
            Op::Kill | Op::TerminateInvocation => Node::Kill,
            Op::Unreachable => Node::Unreachable,
            Op::Branch => {
                let target = match terminator.id(0).map(|id| module.def(id)) {
                    Some(Def::Label { function: owner, block }) if *owner == f => *block,
                    _ => return Err(Error::invalid("branch target is not a block of this function", location)),
                };
                if visited[target] || predecessors[target] != 1 {
                    return Err(not_yet(location));
                }
                block = target;
                continue;
            }
            _ => return Err(not_yet(location)),
        };
        body.push(node);
        return Ok(body);
    }
}

fn not_yet(location: Location) -> Error {
    Error::unsupported(
        "branching control flow (conditionals, loops, switches) is not supported yet",
        location,
    )
}
