//! The structured form of a function body that the `structurize` pass builds and the emitter
//! lowers: a tree of WGSL-shaped regions whose leaves are the straight-line parts of SPIR-V blocks.

use super::Id;

#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    /// The instructions of a block (index into `Function::blocks`), without merge and terminator.
    Block(usize),
    If { condition: Id, accept: Vec<Node>, reject: Vec<Node> },
    Loop { body: Vec<Node>, continuing: Vec<Node>, break_if: Option<Id> },
    Switch { selector: Id, cases: Vec<Case> },
    Break,
    Continue,
    Return(Option<Id>),
    /// `OpKill` / `OpTerminateInvocation`.
    Kill,
    Unreachable,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    /// Selector values; empty together with `default` for a default-only case.
    pub values: Vec<u64>,
    pub default: bool,
    pub body: Vec<Node>,
}
