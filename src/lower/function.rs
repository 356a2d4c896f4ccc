//! Lowering one function's structured body to WGSL statements.
//!
//! Values: a pure value with one use in the same block is inlined at that use; anything else gets
//! a `let`. Loads are inlined too, but every side effect (store, call, barrier) first turns the
//! pending inlined values that read memory into `let`s, so no read moves past a write.
//! Pointers are never stored: an access chain is kept as its base and steps and re-derived as a
//! reference expression at each use; its dynamic indices are bound to `let`s if it is used twice.
//! Values that outlive their scope, and phis, live in `var`s (see `scopes.rs`); a phi's `var` is
//! assigned at the end of each predecessor and read once, into a `let`, at the start of its
//! block, so copies into several phis never see each other's new values.

use crate::name_hash::NameSet;

use spirv::Op;

use super::emit::Emitter;
use super::entry_io::EntryResult;
use super::scopes::{self, Scopes};
use super::uses::{self, Uses};
use super::values::Values;
use crate::error::{Error, Location};
use crate::id_hash::IdMap;
use crate::ops;
use crate::spirv::structured::{Guard, Node};
use crate::spirv::{Def, EntryPoint, Function, Id, Inst, Module, Operand, Type};
use crate::wgsl::ast::{self, BinaryOp, Expr, Literal, Name, Stmt, UnaryOp};
use crate::wgsl::declarations::{self, MentionWalk};
use crate::wgsl::inline_lets;
use crate::wgsl::names::{Namer, unnamed_base};
use crate::wgsl::switch_clauses;
use crate::wgsl::{loop_phis, override_lets};

/// Lowers function `f`; `entry` is the entry point it is itself, if it is unwrapped. Returns it
/// with every name it calls (`inline_lets::Found::calls`).
pub fn emit(e: &mut Emitter, f: usize, entry: Option<&EntryPoint>) -> Result<(ast::Function, NameSet<Name>), Error> {
    let module = e.module;
    let function = &module.functions[f];
    let uses = uses::uses(module, f)?;
    // Nearly every value bound to a `let` is unnamed: it takes an `x_<id>` name and has an
    // entry in `unnamed`. Room for them up front, where growing one insert at a time rehashed
    // again and again; room for every instruction was a fortieth of the peak on one long function.
    let shared = uses.shared_results();
    let unnamed = inline_lets::Counts::with_capacity(shared);
    let mut lower = Lower {
        module,
        f,
        function,
        namer: Namer::for_locals(shared),
        values: Values::new(module, f),
        pending: Pending::new(function.insts.len()),
        uses,
        stmts: Vec::new(),
        block: 0,
        consumed_memory: false,
        insert_vars: IdMap::default(),
        scopes: Scopes::default(),
        next_scope: 0,
        hoisted_names: IdMap::default(),
        phi_vars: IdMap::default(),
        pointer_phis: IdMap::default(),
        guard_names: IdMap::default(),
        break_if: None,
        annotate: e.annotate,
        source_line: None,
        rest: &[],
        entry: None,
        exits: Vec::new(),
        unnamed,
        constant_lets: IdMap::default(),
        operands: Vec::new(),
        top_walk: None,
    };
    let name = e.names.get(&function.id).map(|name| name.to_string()).unwrap_or_default();
    let mut params = Vec::new();
    for param in &function.params {
        let base = module.name(param.id).map(str::to_string).unwrap_or_else(|| format!("p_{}", param.id));
        let param_name = lower.namer.fresh(&base, Some(&e.namer));
        let value = match module.ty(param.ty)? {
            Type::Pointer { .. } => Value::Pointer(Box::new(Pointer {
                base: Expr::unary(UnaryOp::Deref, Expr::ident(param_name.clone())),
                steps: Vec::new(),
                memory: Memory::Variable,
            })),
            _ => Value::Ident(param_name.as_str().into()),
        };
        lower.values.insert(param.id, value);
        params.push(ast::Param { attributes: vec![], name: param_name, ty: e.ty(param.ty)? });
    }
    let mut result = match module.ty(function.result_type)? {
        Type::Void => None,
        _ => Some((vec![], e.ty(function.result_type)?)),
    };
    let mut copies = Vec::new();
    if let Some(entry) = entry {
        (params, copies, result) = lower.entry_interface(e, entry)?;
    }
    let body = function.body.as_deref().ok_or_else(|| Error::internal("function was not structurized"))?;
    lower.scopes = scopes::analyse(module, function, body, &lower.uses)?;
    let (mut body, declared) = lower.scope_nodes(e, body)?;
    // The statements the lowering did not walk yet: the last ones.
    let mut walk = lower.top_walk.take().unwrap_or_else(|| MentionWalk::top(&body, declared));
    walk.walk(&body);
    let mut top = Some(declarations::initialize_function_body(&mut body, declared, walk));
    if entry.is_some() {
        let locals = e.entry_locals.remove(&function.id).unwrap_or_default();
        // Declarations ahead of the body's own: what its walk found is not for them.
        if !locals.is_empty() {
            top = None;
        }
        body.splice(0..0, locals);
    }
    declarations::sink(&mut body, top);
    body.splice(0..0, copies);
    // A void function's final `return;` is implied.
    if result.is_none() && body.last() == Some(&Stmt::Return(None)) {
        body.pop();
    }
    let exits = std::mem::take(&mut lower.exits);
    let unnamed = std::mem::take(&mut lower.unnamed);
    // Done with the lowering's tables (a value per instruction, the uses, the names): the tree
    // passes below take memory of their own, and on one long function the tables were a fifth of
    // the peak.
    drop(lower);
    let mut function = ast::Function { attributes: vec![], name, params, result, body, exits };
    let found = inline_lets::inline(&mut function, unnamed, &|expr| has_effect(e, expr));
    loop_phis::elide(&mut function, &found.vars, found.uses);
    if e.has_spec_constants {
        override_lets::make_vars(&mut function, &|name| e.is_override(name), &|name| e.is_function(name));
    }
    Ok((function, found.calls))
}

#[derive(Clone)]
pub(super) enum Value {
    /// Reusable as is: the name of a `let`, `var` or parameter.
    Ident(Name),
    /// Reusable as is: a constant expression or the like.
    Named(Expr),
    /// Inlined at its single use; `reads_memory` if it contains a load. `number` counts pending
    /// values in definition order. `depth` is how deep `expr` nests, kept so that an expression
    /// made from it is measured without walking it again.
    Pending { expr: Expr, reads_memory: bool, number: u32, depth: u8 },
    /// Boxed: a value is kept per id, and pointers are the largest and fewest.
    Pointer(Box<Pointer>),
    /// A pointer chosen at run time (pointer-typed OpSelect and OpPhi; `pointers.rs`).
    Choice(Box<Choice>),
}

impl Value {
    /// A value reusable as is. Expressions are kept unboxed: nearly every value of a function
    /// is an expression for a while, and a box for each cost a malloc and a free.
    pub(super) fn named(expr: Expr) -> Value {
        match expr {
            Expr::Ident(name) => Value::Ident(name),
            expr => Value::Named(expr),
        }
    }
}

/// The values pending inlining, as (number, id) in definition order, apart by whether they read
/// memory: a side effect binds those that do without walking the others. An entry whose value
/// has been taken since is stale and skipped, so taking a value need not find its entry: each
/// costs the same however many are pending.
#[derive(Default)]
pub(super) struct Pending {
    reading_memory: Vec<(u32, Id)>,
    pure: Vec<(u32, Id)>,
    /// Per number, false once its value was taken: a stale entry is skipped without a lookup.
    live: Vec<bool>,
    /// The list the last flush bound from, handed back for its room (`Lower::flush`).
    spare: Vec<(u32, Id)>,
}

impl Pending {
    /// For a function of `insts` instructions, whose results the pending values are: the flags
    /// are reserved at that size (a hint) rather than grown one doubling at a time.
    fn new(insts: usize) -> Pending {
        Pending { live: Vec::with_capacity(insts), ..Pending::default() }
    }

    /// Records `id` as pending; returns its number.
    fn add(&mut self, id: Id, reads_memory: bool) -> u32 {
        let number = self.live.len() as u32;
        self.live.push(true);
        let entries = if reads_memory { &mut self.reading_memory } else { &mut self.pure };
        entries.push((number, id));
        number
    }

    /// The entries to bind, in definition order: those reading memory, or all (both lists are
    /// in order already, so they are merged). Every list keeps its room: a flush comes with each
    /// side effect, and allocating the lists anew each time cost more than the flush.
    fn drain(&mut self, only_memory: bool) -> Vec<(u32, Id)> {
        let mut entries = std::mem::take(&mut self.spare);
        entries.clear();
        if only_memory || self.pure.is_empty() {
            // The spare list's room goes to the values pending next.
            std::mem::swap(&mut entries, &mut self.reading_memory);
            return entries;
        }
        let (memory, pure) = (&self.reading_memory, &self.pure);
        entries.reserve(memory.len() + pure.len());
        let (mut a, mut b) = (0, 0);
        while a < memory.len() && b < pure.len() {
            if memory[a] < pure[b] {
                entries.push(memory[a]);
                a += 1;
            } else {
                entries.push(pure[b]);
                b += 1;
            }
        }
        entries.extend_from_slice(&memory[a..]);
        entries.extend_from_slice(&pure[b..]);
        self.reading_memory.clear();
        self.pure.clear();
        entries
    }
}

#[derive(Clone)]
pub(super) struct Pointer {
    pub(super) base: Expr,
    pub(super) steps: Vec<Step>,
    pub(super) memory: Memory,
}

/// What a pointer points into.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Memory {
    /// A variable the translated code reads and writes.
    Variable,
    /// Memory nothing writes while the shader runs (an entry point's input read from its
    /// parameter, a uniform or read-only storage buffer): a load is a value like any other.
    ReadOnly,
    /// An entry point's direct output: a store records the value to return (`entry_io.rs`).
    Output,
}

#[derive(Clone)]
pub(super) enum Step {
    Member(String),
    Component(&'static str),
    Constant(u32),
    Dynamic(Id),
    /// An index computed where the pointer is used (`pointers.rs`).
    Index(Expr),
}

/// The variables of a pointer phi (`pointers.rs`): the index of the option taken, and for each
/// incoming pointer (`None` for an `OpUndef`) and each of its options (one, unless it is itself
/// chosen at run time) the variables holding its dynamic indices.
#[derive(Clone)]
pub(super) struct PointerPhi {
    pub(super) which: Name,
    pub(super) options: Vec<Option<Vec<Vec<Name>>>>,
}

/// One of several pointers, chosen at run time: WGSL cannot keep a pointer in a variable, so each
/// use is written for the options (`pointers.rs`).
#[derive(Clone)]
pub(super) struct Choice {
    pub(super) selector: Selector,
    pub(super) options: Vec<Pointer>,
}

/// What picks the option of a `Choice`.
#[derive(Clone)]
pub(super) enum Selector {
    /// An OpSelect's condition: the first option if it holds, else the second.
    Condition(Id),
    /// A pointer phi's `u32` variable: the index of the option.
    Var(Name),
    /// An OpSelect between pointers of which some are themselves chosen: the first
    /// `accept_options` options are the first pointer's (picked by `accept` if it is a choice),
    /// the rest the second's.
    Nested { condition: Id, accept: Option<Box<Selector>>, accept_options: usize, reject: Option<Box<Selector>> },
}

impl Step {
    /// Whether the step is an index not known until run time.
    pub(super) fn is_index(&self) -> bool {
        matches!(self, Step::Dynamic(_) | Step::Index(_))
    }

    /// The access written after `base`; dynamic indices are resolved by the caller.
    pub(super) fn apply(self, base: Expr) -> Expr {
        match self {
            Step::Member(name) => Expr::member(base, name),
            Step::Component(c) => Expr::member(base, c),
            Step::Constant(i) => Expr::index(base, Expr::Literal(Literal::Abstract(i64::from(i)))),
            Step::Index(index) => Expr::index(base, index),
            Step::Dynamic(_) => base,
        }
    }
}

/// Deeper expressions are bound to a `let` rather than inlined further: a long chain of
/// single-use values must not become one expression too deep to print or to drop.
const MAX_INLINE_DEPTH: usize = 32;

/// How many levels `expr` nests (a name or literal is 1), counted up to one past
/// `MAX_INLINE_DEPTH`: any depth past that only says the expression is too deep to inline.
fn depth(expr: &Expr) -> usize {
    match expr {
        Expr::Ident(_) | Expr::Literal(_) => 1,
        _ => expr.depth_within(MAX_INLINE_DEPTH).unwrap_or(MAX_INLINE_DEPTH + 1),
    }
}

pub(super) struct Lower<'m> {
    pub(super) module: &'m Module,
    pub(super) f: usize,
    pub(super) function: &'m Function,
    pub(super) namer: Namer,
    pub(super) values: Values<'m>,
    pub(super) pending: Pending,
    pub(super) uses: Uses<'m>,
    pub(super) stmts: Vec<Stmt>,
    pub(super) block: usize,
    /// Set when `take` consumes a pending value that reads memory.
    pub(super) consumed_memory: bool,
    /// `var`s made for OpCompositeInsert results, which a single-use insert in the same block may
    /// update in place, and the block each was made in.
    pub(super) insert_vars: IdMap<Id, usize>,
    pub(super) scopes: Scopes,
    /// The number of the next scope `nodes` enters, as `scopes::analyse` numbered them.
    next_scope: usize,
    pub(super) hoisted_names: IdMap<Id, Name>,
    phi_vars: IdMap<Id, Name>,
    pub(super) pointer_phis: IdMap<Id, PointerPhi>,
    guard_names: IdMap<Guard, Name>,
    /// Set by the `BreakIf` ending a `continuing`.
    break_if: Option<Expr>,
    annotate: bool,
    /// `file:line` of the last `OpLine`, for `--annotate`.
    source_line: Option<String>,
    /// The instructions after the one being lowered, in the same block.
    pub(super) rest: &'m [usize],
    /// What the returns give, in an entry function that is the WGSL entry point itself.
    pub(super) entry: Option<EntryResult>,
    /// Each `if c { break; }` written: `c`, and the exact condition for going on.
    exits: Vec<(Expr, Expr)>,
    /// The names given to values without a name of their own (`x_12`), each with the zero count
    /// of its mentions that `inline_lets` fills in.
    pub(super) unnamed: inline_lets::Counts,
    /// Constant operands of the instruction being lowered read through a `let`
    /// (`runtime_constants.rs`).
    pub(super) constant_lets: IdMap<Id, Name>,
    /// The operands of the instruction being spelled (`instruction.rs`), kept for the next.
    pub(super) operands: Vec<Expr>,
    /// The walk of the function's top list, as it is made (`walk_top`).
    top_walk: Option<MentionWalk>,
}

impl<'m> Lower<'m> {
    /// The next instruction of the block past access chains (which do nothing until a load or
    /// store uses them). Looked for only where needed: a walk per instruction would cost the
    /// square of a long run of chains.
    pub(super) fn next_inst(&self) -> Option<&'m Inst> {
        let function = self.function;
        self.rest
            .iter()
            .map(|&next| &function.insts[next])
            .find(|next| !matches!(next.op, Op::AccessChain | Op::InBoundsAccessChain))
    }

    pub(super) fn location(&self, inst: &Inst) -> Location {
        let mut location = self.module.location_of(self.f, inst);
        location.block = self.function.blocks.get(self.block).map(|b| b.label);
        location
    }

    fn nodes(&mut self, e: &mut Emitter, nodes: &[Node]) -> Result<Vec<Stmt>, Error> {
        let (mut stmts, declared) = self.scope_nodes(e, nodes)?;
        declarations::initialize_at_first_assignment(&mut stmts, declared, &|_| true, &|_| false);
        Ok(stmts)
    }

    /// The statements of one scope, starting with its `declared` `var`s (see
    /// `declarations::initialize_at_first_assignment`).
    fn scope_nodes(&mut self, e: &mut Emitter, nodes: &[Node]) -> Result<(Vec<Stmt>, usize), Error> {
        let outer = std::mem::take(&mut self.stmts);
        let scope = self.next_scope;
        self.next_scope += 1;
        for phi in self.scopes.phis.get(&scope).cloned().unwrap_or_default() {
            let phi_ty = self.module.type_of(phi)?;
            if let Type::Pointer { .. } = self.module.ty(phi_ty)? {
                self.declare_pointer_phi(e, phi)?;
                continue;
            }
            let ty = e.ty(phi_ty)?;
            let name = if self.scopes.direct_phis.contains(&phi) {
                let name = self.local_name(e, phi);
                self.values.insert(phi, Value::Ident(name.clone()));
                name
            } else {
                let base = self.module.name(phi).map(str::to_string).unwrap_or_else(|| unnamed_base(phi));
                self.namer.fresh_name(&format!("{base}_phi"), Some(&e.namer))
            };
            self.stmts.push(Stmt::Var { name: name.clone(), ty: Some(ty), value: None });
            self.phi_vars.insert(phi, name);
        }
        for id in self.scopes.declared.get(&scope).cloned().unwrap_or_default() {
            let name = self.local_name(e, id);
            let ty = e.ty(self.module.type_of(id)?)?;
            self.stmts.push(Stmt::Var { name: name.clone(), ty: Some(ty), value: None });
            self.hoisted_names.insert(id, name);
        }
        let mut declared = self.stmts.len();
        for node in nodes {
            self.node(e, node)?;
            // Scope 0 is the function's top list.
            if scope == 0 {
                self.walk_top(e, declared);
            }
        }
        self.flush(e, false);
        let stmts = std::mem::replace(&mut self.stmts, outer);
        declared += own_vars(e, &stmts[declared..]);
        Ok((stmts, declared))
    }

    /// Walks the statements of the function's top list that are final, for
    /// `declarations::initialize_function_body`, while they are still in the cache: all but the
    /// last (which an `if` after it may yet fold into it: `short_circuit`), once the list's
    /// declarations are known (the function's own variables follow the `declared` ones).
    fn walk_top(&mut self, e: &Emitter, declared: usize) {
        let Some(last) = self.stmts.len().checked_sub(1) else { return };
        let done = &self.stmts[..last];
        if self.top_walk.is_none() {
            let Some(after) = done.get(declared..) else { return };
            let declared = declared + own_vars(e, after);
            // The variables may go on: the declarations are not known yet.
            if declared == done.len() {
                return;
            }
            self.top_walk = Some(MentionWalk::top(done, declared));
        }
        if let Some(walk) = &mut self.top_walk {
            walk.walk(done);
        }
    }

    fn node(&mut self, e: &mut Emitter, node: &Node) -> Result<(), Error> {
        match node {
            Node::Block(b) => {
                self.block = *b;
                let insts = &self.function.blocks[*b].insts;
                for (position, &index) in insts.iter().enumerate() {
                    let inst = &self.function.insts[index];
                    self.rest = &insts[position + 1..];
                    if inst.op == Op::Phi {
                        let id = self.result(inst)?;
                        if self.pointer_phis.contains_key(&id) {
                            self.choose_pointer_phi(e, inst)?;
                            continue;
                        }
                        // A loop header's phi: the snapshot every use reads, never the `var`.
                        if !self.scopes.direct_phis.contains(&id) {
                            let var = self.phi_vars.get(&id).cloned().unwrap_or_default();
                            self.bind(e, id, Expr::ident(var));
                        }
                        continue;
                    }
                    let before = self.stmts.len();
                    self.bind_constant_operand(e, inst)?;
                    self.instruction(e, inst)?;
                    // Cleared only if used: clearing a table that has room writes all of its
                    // control bytes, even when it holds nothing.
                    if !self.constant_lets.is_empty() {
                        self.constant_lets.clear();
                    }
                    if let Some(id) = inst.result() {
                        self.store_hoisted(e, id)?;
                    }
                    if self.annotate {
                        self.annotate_since(before, inst);
                    }
                }
                self.phi_copies(e, *b)?;
            }
            Node::If { condition: condition_id, accept, reject } => {
                let condition = self.take(e, *condition_id)?;
                let note = self.label_note(self.function.blocks[self.block].label);
                self.flush(e, false);
                let accept = self.nodes(e, accept)?;
                let reject = self.nodes(e, reject)?;
                let negated = || self.negate(*condition_id, condition.clone());
                let arm = match (&accept[..], &reject[..]) {
                    ([arm], []) => Some((arm, condition.clone(), negated())),
                    ([], [arm]) => Some((arm, negated(), condition.clone())),
                    _ => None,
                };
                if let Some((Stmt::Break, guard, otherwise)) = &arm {
                    self.exits.push((guard.clone(), otherwise.clone()));
                }
                if let Some((arm, guard, otherwise)) = arm
                    && self.short_circuit(arm, guard, otherwise)
                {
                    return Ok(());
                }
                match (accept.is_empty(), reject.is_empty()) {
                    (true, true) => {}
                    (true, false) => {
                        let condition = self.negate(*condition_id, condition);
                        self.push_noted(Stmt::If { condition, accept: reject, reject: accept }, note);
                    }
                    _ => self.push_noted(Stmt::If { condition, accept, reject }, note),
                }
            }
            Node::Loop { body, continuing } => {
                self.flush(e, false);
                let header = match body.first() {
                    Some(Node::Block(b)) => self.function.blocks[*b].label,
                    _ => 0,
                };
                let note = self.label_note(header);
                let (mut body, declared) = self.scope_nodes(e, body)?;
                let continuing = self.nodes(e, continuing)?;
                // `continuing` sees the body's declarations: a `var` it assigns is no `let` (a
                // loop whose continue target heads another loop assigns that loop's phis there).
                let mut written = NameSet::default();
                continuing.iter().for_each(|s| s.for_each_written(&mut |name| _ = written.insert(name.to_string())));
                declarations::initialize_at_first_assignment(&mut body, declared, &|_| true, &|name| {
                    written.contains(name)
                });
                let break_if = self.break_if.take();
                if break_if.is_none() && !body.iter().chain(&continuing).any(|s| s.may_leave(true, false, true)) {
                    // SPIR-V may loop forever (its merge block unreachable); WGSL rejects a loop
                    // with no way out, so it gets one that is never taken.
                    let never = Expr::Literal(Literal::Bool(false));
                    body.insert(0, Stmt::If { condition: never, accept: vec![Stmt::Break], reject: vec![] });
                }
                self.push_noted(Stmt::Loop { body, continuing, break_if }, note);
            }
            Node::BreakIf { condition, negate: negated } => {
                let expr = self.take(e, *condition)?;
                self.break_if = Some(if *negated { self.negate(*condition, expr) } else { expr });
            }
            Node::Switch { selector, cases } => {
                let selector_ty = self.module.type_of(*selector)?;
                // A switch split for Tint reads its selector again (`wgsl/switch_clauses.rs`).
                let selector_expr = match cases.len() > switch_clauses::TINT_MAX_CLAUSES {
                    true => self.take_shared(e, *selector)?,
                    false => self.take(e, *selector)?,
                };
                let note = self.label_note(self.function.blocks[self.block].label);
                self.flush(e, false);
                let mut out = Vec::with_capacity(cases.len());
                for case in cases {
                    let selectors =
                        case.values.iter().map(|&v| e.constant_bits(selector_ty, v)).collect::<Result<_, _>>()?;
                    let body = self.nodes(e, &case.body)?;
                    out.push(ast::SwitchCase { selectors, default: case.default, body });
                }
                self.push_noted(switch_clauses::switch(selector_expr, out), note);
            }
            Node::Break => self.stmts.push(Stmt::Break),
            Node::Continue => self.stmts.push(Stmt::Continue),
            Node::Return(value) => {
                let value = match value {
                    Some(v) => Some(self.take(e, *v)?),
                    None => self.entry_return(e)?,
                };
                self.flush(e, false);
                self.stmts.push(Stmt::Return(value));
            }
            Node::Kill => {
                // WGSL's `discard` only demotes the invocation; OpKill also ends it.
                self.flush(e, false);
                self.stmts.push(Stmt::Discard);
                let value = self.zero_result(e)?;
                self.stmts.push(Stmt::Return(value));
            }
            Node::Unreachable => {
                // WGSL has no unreachable statement; a non-void function still needs a return.
                self.flush(e, false);
                if let Some(zero) = self.zero_result(e)? {
                    self.stmts.push(Stmt::Return(Some(zero)));
                }
            }
            Node::DeclareGuard(guard) => {
                let name = self.namer.fresh_name("break_outer", Some(&e.namer));
                let value = Some(Expr::Literal(Literal::Bool(false)));
                self.stmts.push(Stmt::Var { name: name.clone(), ty: None, value });
                self.guard_names.insert(*guard, name);
            }
            Node::SetGuard(guard) => {
                let target = Expr::ident(self.guard_names.get(guard).cloned().unwrap_or_default());
                self.stmts.push(Stmt::Assign { target, value: Expr::Literal(Literal::Bool(true)) });
            }
            Node::IfGuard { guard, body } => {
                let condition = Expr::ident(self.guard_names.get(guard).cloned().unwrap_or_default());
                let accept = self.nodes(e, body)?;
                self.stmts.push(Stmt::If { condition, accept, reject: Vec::new() });
            }
        }
        Ok(())
    }

    /// The phi after `a || b` or `a && b`, as glslang writes them: `v = a;` then `if !a { v = b; }`
    /// (or `if a { v = b; }`), with nothing else in the `if`, which runs its arm when `guard`
    /// holds (`otherwise` is its negation). It becomes `v = a || b;` (or `a && b`), which
    /// evaluates `b` only when the `if` would have. Returns whether it did.
    fn short_circuit(&mut self, arm: &Stmt, guard: Expr, otherwise: Expr) -> bool {
        let (
            Stmt::Assign { target: Expr::Ident(var), value: rhs },
            Some(Stmt::Assign { target: Expr::Ident(before), value: init }),
        ) = (arm, self.stmts.last())
        else {
            return false;
        };
        if var != before || rhs.mentions(var) || guard.mentions(var) {
            return false;
        }
        // v = guard ? rhs : init.
        let (op, left) = if *init == otherwise || *init == Expr::Literal(Literal::Bool(true)) {
            (BinaryOp::LogicalOr, otherwise)
        } else if *init == guard || *init == Expr::Literal(Literal::Bool(false)) {
            (BinaryOp::LogicalAnd, guard)
        } else {
            return false;
        };
        let value = Expr::binary(op, left, rhs.clone());
        let var = Expr::Ident(var.clone());
        self.stmts.pop();
        self.stmts.push(Stmt::Assign { target: var, value });
        true
    }

    /// `!expr` for the boolean value `condition`, written as the opposite comparison where that
    /// means the same: always for `==` and `!=`, for ordering only between integers.
    pub(super) fn negate(&self, condition: Id, expr: Expr) -> Expr {
        let integers = self
            .module
            .value_inst(condition)
            .and_then(|inst| ops::core_row(inst.op))
            .is_some_and(|row| !row.int.operands.is_empty());
        match expr {
            Expr::Unary(UnaryOp::Not, inner) => *inner,
            Expr::Literal(Literal::Bool(b)) => Expr::Literal(Literal::Bool(!b)),
            Expr::Binary(op, operands) => match NEGATED_COMPARISONS.iter().find(|(from, _)| *from == op) {
                Some(&(_, negated)) if integers || matches!(op, BinaryOp::Equal | BinaryOp::NotEqual) => {
                    Expr::Binary(negated, operands)
                }
                _ => Expr::unary(UnaryOp::Not, Expr::Binary(op, operands)),
            },
            other => Expr::unary(UnaryOp::Not, other),
        }
    }

    /// `--annotate`: notes the statements from `before` on, which `inst` produced, with its result
    /// id (or opcode) and the source line in effect.
    fn annotate_since(&mut self, before: usize, inst: &Inst) {
        match inst.op {
            Op::Line => {
                let file = inst.id(0).and_then(|id| match self.module.def(id) {
                    Def::String(text) => Some(text.clone()),
                    _ => None,
                });
                self.source_line = file.map(|file| format!("{file}:{}", inst.literal(1).unwrap_or(0)));
                return;
            }
            Op::NoLine => self.source_line = None,
            _ => {}
        }
        let origin = match inst.result() {
            Some(id) => format!("%{id}"),
            None => format!("Op{:?}", inst.op),
        };
        for at in before..self.stmts.len() {
            if !matches!(self.stmts[at], Stmt::Noted { .. }) {
                let stmt = std::mem::replace(&mut self.stmts[at], Stmt::Break);
                self.stmts[at] = Stmt::Noted { stmt: Box::new(stmt), note: self.note(&origin) };
            }
        }
    }

    /// A control statement with `note` (the label of the block heading it) under `--annotate`.
    fn push_noted(&mut self, stmt: Stmt, note: Option<String>) {
        let stmt = match note {
            Some(note) => Stmt::Noted { stmt: Box::new(stmt), note },
            None => stmt,
        };
        self.stmts.push(stmt);
    }

    /// Under `--annotate`, the note naming the block `label` heads.
    fn label_note(&self, label: Id) -> Option<String> {
        self.annotate.then(|| self.note(&format!("%{label}")))
    }

    fn note(&self, origin: &str) -> String {
        match &self.source_line {
            Some(line) => format!("{origin}, {line}"),
            None => origin.to_string(),
        }
    }

    /// The zero value a non-void function returns where SPIR-V has no value to return.
    fn zero_result(&self, e: &mut Emitter) -> Result<Option<Expr>, Error> {
        if self.entry.is_some() {
            return Ok(self.entry_zero());
        }
        Ok(match self.module.ty(self.function.result_type)? {
            Type::Void => None,
            _ => Some(e.zero(self.function.result_type)?),
        })
    }

    /// At the end of block `b`: assigns the phi `var`s of every successor the value they take
    /// from `b`. Assigning those of a successor not taken is harmless: a phi's `var` is read only
    /// on entry to its block, and every way in assigns it first.
    fn phi_copies(&mut self, e: &mut Emitter, b: usize) -> Result<(), Error> {
        let terminator = self.function.terminator(b);
        let label = self.function.blocks[b].label;
        let targets: &[Operand] = match terminator.op {
            Op::Branch => &terminator.operands,
            Op::BranchConditional => terminator.operands.get(1..3).unwrap_or_default(),
            Op::Switch => terminator.operands.get(1..).unwrap_or_default(),
            _ => &[],
        };
        let mut done: Vec<Id> = Vec::new();
        for target in targets {
            let Operand::IdRef(target) = target else { continue };
            let Def::Label { block, .. } = self.module.def(*target) else { continue };
            if done.contains(target) {
                continue;
            }
            done.push(*target);
            for &index in &self.function.blocks[*block as usize].insts {
                let phi = &self.function.insts[index];
                match phi.op {
                    Op::Phi => {}
                    Op::Line | Op::NoLine => continue,
                    _ => break,
                }
                let incoming = phi.phi_incoming().find_map(|(value, parent)| (parent == label).then_some(value));
                if phi.result().is_some_and(|id| self.pointer_phis.contains_key(&id)) {
                    self.pointer_phi_copies(e, phi, label)?;
                    continue;
                }
                let (Some(value), Some(var)) = (incoming, phi.result().and_then(|id| self.phi_vars.get(&id).cloned()))
                else {
                    continue;
                };
                let value = self.take(e, value)?;
                self.stmts.push(Stmt::Assign { target: Expr::ident(var), value });
            }
        }
        Ok(())
    }

    /// After the instruction defining a hoisted value: its `var` takes the value, unless the
    /// lowering assigned it already.
    fn store_hoisted(&mut self, e: &mut Emitter, id: Id) -> Result<(), Error> {
        let Some(name) = self.hoisted_names.get(&id).cloned() else { return Ok(()) };
        match self.values.get(&id) {
            Some(Value::Ident(current)) if *current == name => {}
            Some(Value::Ident(_) | Value::Named(_) | Value::Pending { .. }) => {
                let value = self.take(e, id)?;
                self.stmts.push(Stmt::Assign { target: Expr::ident(name.clone()), value });
                self.values.insert(id, Value::Ident(name));
            }
            _ => {}
        }
        Ok(())
    }

    /// Binds pending values to `let`s, in definition order: only those that read memory (before a
    /// side effect), or all.
    pub(super) fn flush(&mut self, e: &Emitter, only_memory: bool) {
        let entries = self.pending.drain(only_memory);
        for &(number, id) in &entries {
            if self.pending.live[number as usize]
                && let Some(Value::Pending { number: current, .. }) = self.values.get(&id)
                && *current == number
            {
                self.bind_pending(e, id);
            }
        }
        self.pending.spare = entries;
    }

    /// Binds `id` to a `let` (or its hoisted `var`) if its value is pending.
    fn bind_pending(&mut self, e: &Emitter, id: Id) {
        if let Some((expr, _, _)) = self.remove_pending(id) {
            self.bind(e, id, expr);
        }
    }

    /// The value of `id`, whether it reads memory and its depth, removed, if it is pending.
    fn remove_pending(&mut self, id: Id) -> Option<(Expr, bool, usize)> {
        let Value::Pending { expr, reads_memory, number, depth } =
            self.values.remove_if(id, |value| matches!(value, Value::Pending { .. }))?
        else {
            unreachable!()
        };
        self.pending.live[number as usize] = false;
        Some((expr, reads_memory, depth as usize))
    }

    /// Whether anything reads the instruction's result.
    pub(super) fn is_used(&self, inst: &Inst) -> bool {
        inst.result().is_some_and(|id| self.uses.get(&id).is_some_and(|u| u.count > 0))
    }

    /// A fresh local name for `id`: its OpName, or `x_<id>`.
    pub(super) fn local_name(&mut self, e: &Emitter, id: Id) -> Name {
        // The module outlives `self`: its name is read in place, with no copy.
        let module = self.module;
        if let Some(name) = module.name(id) {
            return self.namer.fresh_name(name, Some(&e.namer));
        }
        match self.output_name(id) {
            Some(name) => {
                let name = name.to_string();
                self.namer.fresh_name(&name, Some(&e.namer))
            }
            None => {
                let (name, is_base) = self.namer.fresh_unnamed(id, Some(&e.namer));
                if is_base {
                    self.unnamed.add_unnamed(id);
                } else {
                    self.unnamed.add(&name);
                }
                name
            }
        }
    }

    /// `value` bound to `let <name of id>_<what>`, a step towards the value of `id`; a name or
    /// literal is returned as it is.
    pub(super) fn temporary(&mut self, e: &Emitter, id: Id, what: &str, value: Expr) -> Expr {
        if matches!(value, Expr::Ident(_) | Expr::Literal(_)) {
            return value;
        }
        let name = self.step_name(e, id, what);
        self.stmts.push(Stmt::Let { name: name.clone(), ty: None, value });
        Expr::ident(name)
    }

    /// A fresh `<name of id>_<what>`, for a step towards the value of `id`.
    pub(super) fn step_name(&mut self, e: &Emitter, id: Id, what: &str) -> Name {
        let base = self.module.name(id).map(str::to_string).unwrap_or_else(|| unnamed_base(id));
        self.namer.fresh_name(&format!("{base}_{what}"), Some(&e.namer))
    }

    /// `let name = expr;` for `id`, or an assignment to its `var` if it is hoisted.
    pub(super) fn bind(&mut self, e: &Emitter, id: Id, expr: Expr) {
        if let Some(name) = self.hoisted_names.get(&id).cloned() {
            self.stmts.push(Stmt::Assign { target: Expr::ident(name.clone()), value: expr });
            self.values.insert(id, Value::Ident(name));
            return;
        }
        let name = self.local_name(e, id);
        let stmt = Stmt::Let { name: name.clone(), ty: None, value: expr };
        // A value bound late (a flushed inline candidate) still names its own origin.
        let stmt =
            if self.annotate { Stmt::Noted { stmt: Box::new(stmt), note: self.note(&format!("%{id}")) } } else { stmt };
        self.stmts.push(stmt);
        self.values.insert(id, Value::Ident(name));
    }

    /// Records the value of `inst`: inlined at its single use in this block, else a `let`.
    pub(super) fn define(&mut self, e: &Emitter, inst: &Inst, expr: Expr, reads_memory: bool) -> Result<(), Error> {
        self.define_measured(e, inst, expr, None, reads_memory)
    }

    /// [`Lower::define`], given the expression's [`depth`] if the caller knows it from its
    /// operands' (`take_measured`); else it is measured here when inlining hangs on it.
    pub(super) fn define_measured(
        &mut self,
        e: &Emitter,
        inst: &Inst,
        expr: Expr,
        known_depth: Option<usize>,
        reads_memory: bool,
    ) -> Result<(), Error> {
        // A depth counted from the operands' must be what a walk finds: inlining hangs on it.
        debug_assert!(known_depth.is_none_or(|known| known.min(MAX_INLINE_DEPTH + 1) == depth(&expr)));
        let id = self.result(inst)?;
        let reads_memory = reads_memory || self.consumed_memory;
        let (count, block) = self.uses.get(&id).map_or((0, 0), |u| (u.count, u.block as usize));
        if count == 0 {
            return Ok(());
        }
        // A zero vector is written at each use too: bound to a `let`, naga 30 still evaluates a
        // vector built of it as a constant, and writes that invalid (`instruction::is_zero_vector`).
        let trivial = matches!(expr, Expr::Ident(_) | Expr::Literal(_)) || super::instruction::is_zero_vector(&expr);
        if self.hoisted_names.contains_key(&id) || self.module.variable_values.contains(&id) {
            self.bind(e, id, expr);
        } else if trivial && !reads_memory {
            self.values.insert(id, Value::named(expr));
        } else if count == 1 && block == self.block {
            let depth = known_depth.unwrap_or_else(|| depth(&expr));
            if depth <= MAX_INLINE_DEPTH {
                let number = self.pending.add(id, reads_memory);
                self.values.insert(id, Value::Pending { expr, reads_memory, number, depth: depth as u8 });
            } else {
                self.bind(e, id, expr);
            }
        } else {
            self.bind(e, id, expr);
        }
        Ok(())
    }

    /// Records the value of `inst`, a path into memory nothing writes: written again at each use,
    /// unless it is a named local's value or outlives its scope.
    pub(super) fn define_repeated(&mut self, e: &Emitter, inst: &Inst, expr: Expr) -> Result<(), Error> {
        let id = self.result(inst)?;
        if self.hoisted_names.contains_key(&id) || self.module.variable_values.contains(&id) {
            self.bind(e, id, expr);
        } else {
            self.values.insert(id, Value::named(expr));
        }
        Ok(())
    }

    /// A statement with side effects: pending reads of memory are bound first, so none moves
    /// past it.
    pub(super) fn side_effect(&mut self, e: &Emitter, stmt: Stmt) {
        self.flush(e, true);
        self.stmts.push(stmt);
    }

    /// The expression for value `id`, consuming it if it was pending.
    pub(super) fn take(&mut self, e: &mut Emitter, id: Id) -> Result<Expr, Error> {
        Ok(self.take_measured(e, id)?.0)
    }

    /// [`Lower::take`], with the expression's [`depth`]: a pending value's was counted when it
    /// was defined.
    pub(super) fn take_measured(&mut self, e: &mut Emitter, id: Id) -> Result<(Expr, usize), Error> {
        if let Some(name) = self.constant_lets.get(&id) {
            return Ok((Expr::Ident(name.clone()), 1));
        }
        match self.values.get(&id) {
            Some(Value::Ident(name)) => return Ok((Expr::Ident(name.clone()), 1)),
            Some(Value::Named(expr)) => return Ok((Expr::clone(expr), depth(expr))),
            Some(Value::Pending { .. }) => {
                let (expr, reads_memory, depth) = self.remove_pending(id).expect("pending");
                self.consumed_memory |= reads_memory;
                return Ok((expr, depth));
            }
            Some(Value::Pointer(_) | Value::Choice(_)) => {
                return Err(Error::unsupported(
                    format!("pointer %{id} used as a value (pointer-typed phis or selects)"),
                    Location { result_id: Some(id), ..Location::default() },
                ));
            }
            None => {}
        }
        match self.module.def(id) {
            Def::Constant(_) => {
                let expr = e.constant(id)?;
                let depth = depth(&expr);
                Ok((expr, depth))
            }
            // Valid SPIR-V cannot get here: every value is defined in a block that dominates its
            // uses, and the emitter keeps it in scope for all of them.
            _ => Err(Error::invalid(
                format!("%{id} is used where no definition of it dominates the use"),
                Location { result_id: Some(id), function: Some(self.function.id), ..Location::default() },
            )),
        }
    }

    /// Like `take`, for an expression that will be written more than once: binds it first.
    pub(super) fn take_shared(&mut self, e: &mut Emitter, id: Id) -> Result<Expr, Error> {
        self.bind_pending(e, id);
        self.take(e, id)
    }

    /// The pointer value for `id`: a global, a local variable, a parameter, or an access chain.
    pub(super) fn pointer(&mut self, e: &mut Emitter, id: Id) -> Result<Pointer, Error> {
        match self.values.get(&id) {
            Some(Value::Pointer(pointer)) => return Ok(Pointer::clone(pointer)),
            Some(Value::Choice(choice)) => {
                let choice = Choice::clone(choice);
                return self.merged(e, &choice)?.ok_or_else(|| {
                    Error::unsupported(
                        format!(
                            "pointer %{id} is chosen at run time between different variables or members \
                             (pointer-typed OpSelect or OpPhi), and this use of it cannot be written once \
                             per option"
                        ),
                        Location { result_id: Some(id), function: Some(self.function.id), ..Location::default() },
                    )
                });
            }
            _ => {}
        }
        match e.names.get(&id) {
            Some(name) if matches!(self.module.def(id), Def::Global(_)) => {
                let memory = if e.read_only.contains(&id) { Memory::ReadOnly } else { Memory::Variable };
                Ok(Pointer { base: Expr::Ident(name.clone()), steps: Vec::new(), memory })
            }
            _ => Err(Error::unsupported(
                format!("%{id} is not a pointer we can follow"),
                Location { result_id: Some(id), function: Some(self.function.id), ..Location::default() },
            )),
        }
    }

    /// The reference expression a pointer designates, re-derived at this use.
    pub(super) fn pointer_expr(&mut self, e: &mut Emitter, id: Id) -> Result<Expr, Error> {
        let shared = self.uses.get(&id).is_none_or(|u| u.count > 1 || u.block as usize != self.block);
        // An access chain's pointer is lent out of the table while its dynamic indices (other
        // values) are taken, where a clone of it cost an allocation at every load and store.
        if let Some(value) = self.values.remove_if(id, |value| matches!(value, Value::Pointer(_))) {
            let Value::Pointer(pointer) = &value else { unreachable!("removed as a pointer") };
            let expr = self.reference(e, pointer, shared);
            self.values.insert(id, value);
            return expr;
        }
        let pointer = self.pointer(e, id)?;
        self.reference(e, &pointer, shared)
    }

    /// The reference expression of `pointer`; `shared` when its dynamic indices are read again.
    pub(super) fn reference(&mut self, e: &mut Emitter, pointer: &Pointer, shared: bool) -> Result<Expr, Error> {
        let mut expr = pointer.base.clone();
        for step in &pointer.steps {
            expr = match step {
                Step::Dynamic(index) => {
                    let index = if shared { self.take_shared(e, *index)? } else { self.take(e, *index)? };
                    Expr::index(expr, index)
                }
                step => step.clone().apply(expr),
            };
        }
        Ok(expr)
    }

    /// Whether `id` is a pending value with an effect (`has_effect`).
    pub(super) fn pending_effect(&self, e: &Emitter, id: Id) -> bool {
        matches!(self.values.get(&id), Some(Value::Pending { expr, .. }) if has_effect(e, expr))
    }

    /// Drops a pending value whose only use turned out not to need it (a shuffle operand none of
    /// whose components is selected); pending values are pure, so nothing is lost.
    pub(super) fn discard(&mut self, id: Id) {
        self.remove_pending(id);
    }
}

/// How many of `stmts`, from the first, are variables of the function's own (OpVariable), which
/// open its body after those the lowering declares: initialized at their first assignment too,
/// any initial value they have unused (but never one with an effect).
fn own_vars(e: &Emitter, stmts: &[Stmt]) -> usize {
    let own = stmts.iter().take_while(|s| match s.unnoted() {
        Stmt::Var { value, .. } => value.as_ref().is_none_or(|v| !has_effect(e, v)),
        _ => false,
    });
    own.count()
}

/// Whether evaluating `expr` has an effect: a call of one of the module's functions, or an atomic
/// operation other than a load.
pub(super) fn has_effect(e: &Emitter, expr: &Expr) -> bool {
    expr.any(&|expr| match expr {
        Expr::Call(call) => {
            e.is_function(&call.callee) || (call.callee.starts_with("atomic") && &*call.callee != "atomicLoad")
        }
        _ => false,
    })
}

/// `a < b` and its negation `a >= b`, and so on: exact for integers, not for floats (NaN).
const NEGATED_COMPARISONS: [(BinaryOp, BinaryOp); 6] = [
    (BinaryOp::Equal, BinaryOp::NotEqual),
    (BinaryOp::NotEqual, BinaryOp::Equal),
    (BinaryOp::Less, BinaryOp::GreaterEqual),
    (BinaryOp::LessEqual, BinaryOp::Greater),
    (BinaryOp::Greater, BinaryOp::LessEqual),
    (BinaryOp::GreaterEqual, BinaryOp::Less),
];
