//! The structured form of a function body that the `structurize` pass builds and the emitter
//! lowers: a tree of WGSL-shaped regions whose leaves are the straight-line parts of SPIR-V blocks.
//!
//! Every `Vec<Node>` is one lexical scope in the output. A loop's `continuing` is lowered inside
//! the scope of its `body`, as WGSL requires.

use super::Id;

#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    /// The instructions of a block (index into `Function::blocks`), without merge and terminator,
    /// followed by the phi copies for the block's successors.
    Block(usize),
    If {
        condition: Id,
        accept: Vec<Node>,
        reject: Vec<Node>,
    },
    Loop {
        body: Vec<Node>,
        continuing: Vec<Node>,
    },
    /// Only as the last node of a loop's `continuing`: leave the loop when `condition` holds
    /// (when it does not, if `negate`).
    BreakIf {
        condition: Id,
        negate: bool,
    },
    Switch {
        selector: Id,
        cases: Vec<Case>,
    },
    Break,
    Continue,
    Return(Option<Id>),
    /// `OpKill` / `OpTerminateInvocation`.
    Kill,
    Unreachable,
    /// `var guard = false;`, placed before a construct that a multi-level exit leaves through.
    DeclareGuard(Guard),
    /// `guard = true;`, followed by a `Break` out of the innermost loop or switch.
    SetGuard(Guard),
    /// After the construct: `if guard { body }`, where `body` continues the exit outwards.
    IfGuard {
        guard: Guard,
        body: Vec<Node>,
    },
}

/// A guard variable, numbered per function.
pub type Guard = u32;

#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    /// Selector values; empty together with `default` for a default-only case.
    pub values: Vec<u64>,
    pub default: bool,
    pub body: Vec<Node>,
}
