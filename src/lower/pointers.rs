//! Pointers SPIR-V's variable-pointers capabilities allow and WGSL cannot keep: pointers chosen
//! at run time (pointer-typed OpSelect and OpPhi) and compared (OpPtrEqual, OpPtrNotEqual,
//! OpPtrDiff).
//!
//! A chosen pointer is a `Choice`: its options, each re-derived where it is used, and what picks
//! one. Where the options lead to the same variable through the same members, differing only in
//! array or vector indices, a use reads one reference whose indices are chosen (`a[select(j, i,
//! c)]`); otherwise a load reads each option and selects the value, and a store writes the
//! option the selector names. Pointers are compared by their access paths: different variables
//! never alias, and indices are compared at run time where they are not constants.
//!
//! A pointer phi (not at a loop header) becomes a `u32` variable set to the index of the
//! incoming pointer at the end of each predecessor, with the dynamic indices of that pointer in
//! variables of their own (they may be out of scope where the phi is used).
//!
//! A choice between pointers themselves chosen has all their options: a select's are the
//! first pointer's then the second's, picked by its condition and theirs; a phi's index variable
//! is set to the incoming choice's own index after the options of the incoming pointers before
//! it.

use spirv::Op;

use super::emit::Emitter;
use super::function::{Choice, Lower, Pointer, PointerPhi, Selector, Step, Value};
use crate::error::{Error, Location};
use crate::passes::signedness::int_signedness;
use crate::spirv::{Def, Id, Inst, Module};
use crate::wgsl::ast::{BinaryOp, Expr, Literal, Stmt, UnaryOp};
use crate::wgsl::names::unnamed_base;

/// The most options a pointer chosen at run time may have: each use is written once per option,
/// and choices of choices multiply them.
pub(crate) const MAX_OPTIONS: usize = 64;

/// The pointers `id` may be at run time, in the order the lowering lists a choice's options, each
/// with the non-constant indices of the access chains it is derived through, in the order its
/// re-derivation reads them; `None` for a pointer not traced to its variable (or, in an invalid
/// module, one derived from itself: `depth` bounds the search) or one of more than `MAX_OPTIONS`.
fn pointer_options(module: &Module, id: Id, depth: usize) -> Option<Vec<Vec<Id>>> {
    if depth > 64 {
        return None;
    }
    let inst = match module.def(id) {
        Def::Global(_) | Def::Param { .. } => return Some(vec![Vec::new()]),
        _ => module.value_inst(id)?,
    };
    match inst.op {
        Op::Variable => Some(vec![Vec::new()]),
        Op::CopyObject => pointer_options(module, inst.id(0)?, depth + 1),
        Op::AccessChain | Op::InBoundsAccessChain => {
            // As the access chain's lowering decides: constants are literal steps.
            let dynamic = inst
                .id_operands()
                .skip(1)
                .filter(|&index| module.constant(index).and_then(|_| module.const_u32(index)).is_none());
            let here: Vec<Id> = dynamic.collect();
            let mut options = pointer_options(module, inst.id(0)?, depth + 1)?;
            for option in &mut options {
                option.extend_from_slice(&here);
            }
            Some(options)
        }
        // As `select_pointer` and `choose_pointer_phi` list them: the defined options in order.
        Op::Select | Op::Phi => {
            let chosen: Vec<Id> = match inst.op {
                Op::Select => inst.id_operands().skip(1).collect(),
                _ => inst.phi_incoming().map(|(value, _)| value).collect(),
            };
            let mut options = Vec::new();
            for value in chosen.into_iter().filter(|&value| !module.is_undef(value)) {
                options.extend(pointer_options(module, value, depth + 1)?);
                if options.len() > MAX_OPTIONS {
                    return None;
                }
            }
            Some(options)
        }
        _ => None,
    }
}

/// What a pointer operand is: one pointer, or one of several.
enum Pointers {
    One(Pointer),
    Many(Choice),
}

impl Pointers {
    fn options(&self) -> &[Pointer] {
        match self {
            Pointers::One(pointer) => std::slice::from_ref(pointer),
            Pointers::Many(choice) => &choice.options,
        }
    }

    /// What picks among the options (none for one pointer), and the options.
    fn into_parts(self) -> (Option<Selector>, Vec<Pointer>) {
        match self {
            Pointers::One(pointer) => (None, vec![pointer]),
            Pointers::Many(choice) => (Some(choice.selector), choice.options),
        }
    }
}

/// Two paths compared: equal always, never, or when an expression holds.
enum Same {
    Always,
    Never,
    When(Expr),
}

impl Lower<'_> {
    /// Declares the variables of a pointer phi: which incoming pointer was taken, and the
    /// dynamic indices of each.
    pub(super) fn declare_pointer_phi(&mut self, e: &mut Emitter, phi: Id) -> Result<(), Error> {
        let location = Location { result_id: Some(phi), function: Some(self.function.id), ..Location::default() };
        if !self.scopes.direct_phis.contains(&phi) {
            return Err(Error::unsupported(
                "a pointer phi at a loop header (a pointer that changes from one iteration to the next): WGSL \
                 cannot keep a pointer in a variable",
                location,
            ));
        }
        let inst = self.module.value_inst(phi).ok_or_else(|| Error::internal("a phi without its instruction"))?;
        let base = self.module.name(phi).map(str::to_string).unwrap_or_else(|| unnamed_base(phi));
        let which = self.namer.fresh_name(&format!("{base}_which"), Some(&e.namer));
        self.stmts.push(Stmt::Var { name: which.clone(), ty: Some("u32".into()), value: None });
        let mut options = Vec::new();
        for (k, (value, _)) in inst.phi_incoming().enumerate() {
            // A pointer no path uses: spirv-opt's merge-return gives a phi one from paths that
            // return.
            if self.module.is_undef(value) {
                options.push(None);
                continue;
            }
            let leaves = pointer_options(self.module, value, 0).ok_or_else(|| {
                let message = format!(
                    "a pointer phi taking a pointer not traced to its variable, or chosen among more than {MAX_OPTIONS}"
                );
                Error::unsupported(message, location.clone())
            })?;
            let mut leaf_vars = Vec::with_capacity(leaves.len());
            for (j, indices) in leaves.iter().enumerate() {
                // Named as the incoming pointer's, and where it is itself a choice, as its option's.
                let option = if leaves.len() == 1 { format!("{base}_{k}") } else { format!("{base}_{k}_{j}") };
                let mut vars = Vec::with_capacity(indices.len());
                for (d, &index) in indices.iter().enumerate() {
                    let name = self.namer.fresh_name(&format!("{option}_index_{d}"), Some(&e.namer));
                    let ty = e.ty(self.module.type_of(index)?)?;
                    self.stmts.push(Stmt::Var { name: name.clone(), ty: Some(ty), value: None });
                    vars.push(name);
                }
                leaf_vars.push(vars);
            }
            options.push(Some(leaf_vars));
        }
        if options.iter().all(Option::is_none) {
            return Err(Error::unsupported("a pointer phi of undefined pointers only", location));
        }
        self.pointer_phis.insert(phi, PointerPhi { which, options });
        Ok(())
    }

    /// At the end of predecessor `label`: a pointer phi's variables take the index of the
    /// pointer coming from it (among the defined ones), and its dynamic indices. From an
    /// `OpUndef` nothing: any pointer will do, as none is used.
    pub(super) fn pointer_phi_copies(&mut self, e: &mut Emitter, phi: &Inst, label: Id) -> Result<(), Error> {
        let Some(PointerPhi { which, options }) = phi.result().and_then(|id| self.pointer_phis.get(&id)).cloned()
        else {
            return Ok(());
        };
        let Some((k, (value, _))) = phi.phi_incoming().enumerate().find(|(_, (_, parent))| *parent == label) else {
            return Ok(());
        };
        let Some(leaves) = &options[k] else { return Ok(()) };
        let offset: usize = options[..k].iter().flatten().map(Vec::len).sum();
        let offset = Expr::Literal(Literal::U32(offset as u32));
        // A pointer itself chosen at run time: its options follow the phi's before it.
        let (pointers, which_value) = match self.pointers(e, value)? {
            Pointers::One(pointer) => (vec![pointer], offset),
            Pointers::Many(choice) => {
                let index = self.option_index(e, &choice.selector)?;
                let index = match offset {
                    Expr::Literal(Literal::U32(0)) => index,
                    offset => Expr::binary(BinaryOp::Add, index, offset),
                };
                (choice.options, index)
            }
        };
        self.stmts.push(Stmt::Assign { target: Expr::ident(which), value: which_value });
        if pointers.len() != leaves.len() {
            return Err(Error::internal("a pointer phi's options counted otherwise where it is lowered"));
        }
        for (pointer, vars) in pointers.iter().zip(leaves) {
            for (var, step) in vars.iter().zip(pointer.steps.iter().filter(|step| step.is_index())) {
                let value = match step {
                    Step::Dynamic(index) => self.take_shared(e, *index)?,
                    Step::Index(index) => index.clone(),
                    _ => return Err(Error::internal("an index step that is not one")),
                };
                self.stmts.push(Stmt::Assign { target: Expr::ident(var.clone()), value });
            }
        }
        Ok(())
    }

    /// The index of the option `selector` picks, as a `u32`.
    fn option_index(&mut self, e: &mut Emitter, selector: &Selector) -> Result<Expr, Error> {
        let literal = |k| Expr::Literal(Literal::U32(k));
        Ok(match selector {
            Selector::Condition(condition) => {
                let condition = self.take_shared(e, *condition)?;
                Expr::call("select", vec![literal(1), literal(0), condition])
            }
            Selector::Var(name) => Expr::ident(name.clone()),
            Selector::Nested { condition, accept, accept_options, reject } => {
                let accept = match accept {
                    Some(accept) => self.option_index(e, accept)?,
                    None => literal(0),
                };
                let offset = literal(*accept_options as u32);
                let reject = match reject {
                    Some(reject) => Expr::binary(BinaryOp::Add, self.option_index(e, reject)?, offset),
                    None => offset,
                };
                let condition = self.take_shared(e, *condition)?;
                Expr::call("select", vec![reject, accept, condition])
            }
        })
    }

    /// A pointer phi where it is defined: the choice of its incoming pointers, their dynamic
    /// indices read from the phi's variables.
    pub(super) fn choose_pointer_phi(&mut self, e: &mut Emitter, phi: &Inst) -> Result<(), Error> {
        let id = self.result(phi)?;
        let Some(PointerPhi { which, options: vars }) = self.pointer_phis.get(&id).cloned() else { return Ok(()) };
        let mut options = Vec::new();
        for ((value, _), leaves) in phi.phi_incoming().zip(vars) {
            let Some(leaves) = leaves else { continue };
            let pointers = self.pointers(e, value)?;
            if pointers.options().len() != leaves.len() {
                return Err(Error::internal("a pointer phi's options counted otherwise where it is lowered"));
            }
            for (pointer, vars) in pointers.options().iter().zip(leaves) {
                let mut pointer = pointer.clone();
                let mut vars = vars.into_iter();
                for step in pointer.steps.iter_mut().filter(|step| step.is_index()) {
                    let var = vars.next().ok_or_else(|| Error::internal("a pointer phi's index variables"))?;
                    *step = Step::Index(Expr::ident(var));
                }
                options.push(pointer);
            }
        }
        self.values.insert(id, Value::Choice(Box::new(Choice { selector: Selector::Var(which), options })));
        Ok(())
    }

    /// The pointer or choice of pointers `id` is.
    fn pointers(&mut self, e: &mut Emitter, id: Id) -> Result<Pointers, Error> {
        match self.values.get(&id) {
            Some(Value::Choice(choice)) => Ok(Pointers::Many(Choice::clone(choice))),
            _ => Ok(Pointers::One(self.pointer(e, id)?)),
        }
    }

    /// A pointer-typed OpSelect; of a pointer and an `OpUndef`, the pointer.
    pub(super) fn select_pointer(&mut self, e: &mut Emitter, inst: &Inst) -> Result<(), Error> {
        let condition = self.operand(inst, 0)?;
        let [accept, reject] = [self.operand(inst, 1)?, self.operand(inst, 2)?];
        if let Some(defined) = match (self.module.is_undef(accept), self.module.is_undef(reject)) {
            (true, false) => Some(reject),
            (false, true) => Some(accept),
            _ => None,
        } {
            let value = match self.pointers(e, defined)? {
                Pointers::One(pointer) => Value::Pointer(Box::new(pointer)),
                Pointers::Many(choice) => Value::Choice(Box::new(choice)),
            };
            self.values.insert(self.result(inst)?, value);
            return Ok(());
        }
        let (accept, accept_options) = self.pointers(e, accept)?.into_parts();
        let (reject, reject_options) = self.pointers(e, reject)?.into_parts();
        let selector = match (accept, reject) {
            (None, None) => Selector::Condition(condition),
            (accept, reject) => Selector::Nested {
                condition,
                accept: accept.map(Box::new),
                accept_options: accept_options.len(),
                reject: reject.map(Box::new),
            },
        };
        let options: Vec<Pointer> = accept_options.into_iter().chain(reject_options).collect();
        if options.len() > MAX_OPTIONS {
            let message = format!("Op{:?} choosing among more than {MAX_OPTIONS} pointers", inst.op);
            return Err(Error::unsupported(message, self.location(inst)));
        }
        self.values.insert(self.result(inst)?, Value::Choice(Box::new(Choice { selector, options })));
        Ok(())
    }

    /// Whether option `k` of `choice` is the chosen one.
    fn picks(&mut self, e: &mut Emitter, selector: &Selector, k: usize) -> Result<Expr, Error> {
        Ok(match selector {
            Selector::Condition(condition) => {
                let condition = self.take_shared(e, *condition)?;
                if k == 0 { condition } else { Expr::unary(UnaryOp::Not, condition) }
            }
            Selector::Var(name) => {
                Expr::binary(BinaryOp::Equal, Expr::ident(name.clone()), Expr::Literal(Literal::U32(k as u32)))
            }
            Selector::Nested { condition, accept, accept_options, reject } => {
                let condition = self.take_shared(e, *condition)?;
                let (side, inner, k) = match k < *accept_options {
                    true => (condition, accept, k),
                    false => (Expr::unary(UnaryOp::Not, condition), reject, k - accept_options),
                };
                match inner {
                    Some(inner) => Expr::binary(BinaryOp::LogicalAnd, side, self.picks(e, inner, k)?),
                    None => side,
                }
            }
        })
    }

    /// `values[k]` for the chosen option `k`, as nested selects (of booleans, as what they
    /// come to: `select(false, true, c)` is `c`).
    fn chosen(&mut self, e: &mut Emitter, selector: &Selector, mut values: Vec<Expr>) -> Result<Expr, Error> {
        let mut chosen = values.pop().ok_or_else(|| Error::internal("a choice of no pointers"))?;
        while let Some(value) = values.pop() {
            let picked = self.picks(e, selector, values.len())?;
            let boolean = |b: bool| Expr::Literal(Literal::Bool(b));
            chosen = match (chosen, value) {
                (otherwise, value) if otherwise == value => value,
                (otherwise, value) if otherwise == boolean(false) && value == boolean(true) => picked,
                (otherwise, value) if otherwise == boolean(true) && value == boolean(false) => {
                    Expr::unary(UnaryOp::Not, picked)
                }
                (otherwise, value) => Expr::call("select", vec![otherwise, value, picked]),
            };
        }
        Ok(chosen)
    }

    /// The one pointer a choice comes to when its options differ only in indices: those
    /// indices chosen where it is used. `None` if they lead to different variables or members.
    pub(super) fn merged(&mut self, e: &mut Emitter, choice: &Choice) -> Result<Option<Pointer>, Error> {
        let first = &choice.options[0];
        let same_shape = choice.options.iter().all(|option| {
            option.base == first.base
                && option.steps.len() == first.steps.len()
                && option.steps.iter().zip(&first.steps).all(|pair| match pair {
                    (Step::Member(a), Step::Member(b)) => a == b,
                    (Step::Component(a), Step::Component(b)) => a == b,
                    (Step::Member(_) | Step::Component(_), _) | (_, Step::Member(_) | Step::Component(_)) => false,
                    _ => true,
                })
        });
        if !same_shape {
            return Ok(None);
        }
        let mut steps = Vec::with_capacity(first.steps.len());
        for (position, step) in first.steps.iter().enumerate() {
            if matches!(step, Step::Member(_) | Step::Component(_)) {
                steps.push(step.clone());
                continue;
            }
            let mut indices = Vec::with_capacity(choice.options.len());
            for option in &choice.options {
                indices.push(self.index(e, &option.steps[position])?);
            }
            let all_same = indices.iter().all(|index| *index == indices[0]);
            let index = if all_same { indices.swap_remove(0) } else { self.chosen(e, &choice.selector, indices)? };
            steps.push(Step::Index(index));
        }
        Ok(Some(Pointer { base: first.base.clone(), steps, memory: first.memory }))
    }

    /// An index step as an expression of a `u32`: the options' indices may differ in type.
    fn index(&mut self, e: &mut Emitter, step: &Step) -> Result<Expr, Error> {
        Ok(match step {
            Step::Constant(i) => Expr::Literal(Literal::U32(*i)),
            Step::Dynamic(id) => {
                let index = self.take_shared(e, *id)?;
                let unsigned = int_signedness(self.module, self.module.type_of(*id)?) == Some(false);
                if unsigned { index } else { Expr::call("u32", vec![index]) }
            }
            Step::Index(index) => index.clone(),
            Step::Member(_) | Step::Component(_) => return Err(Error::internal("a member step taken as an index")),
        })
    }

    /// OpLoad through a choice of pointers to different variables or members: each option read,
    /// the chosen value kept (`select` for scalars and vectors, an `if` for the rest). Atomics
    /// (the atomic's integer type `atomic`: the atomics pass makes every option one where one
    /// is) are read by `atomicLoad`.
    pub(super) fn load_choice(
        &mut self,
        e: &mut Emitter,
        inst: &Inst,
        choice: Choice,
        atomic: Option<Id>,
    ) -> Result<(), Error> {
        let mut loads = Vec::with_capacity(choice.options.len());
        for option in &choice.options {
            let reference = self.reference(e, option, true)?;
            loads.push(match atomic {
                Some(_) => Expr::call("atomicLoad", vec![Expr::unary(UnaryOp::AddressOf, reference)]),
                None => reference,
            });
        }
        let ty = self.result_type(inst)?;
        if self.module.scalar_of(ty).is_some() {
            let mut value = self.chosen(e, &choice.selector, loads)?;
            if let Some(inner) = atomic {
                value = self.as_result_type(e, inst, value, inner)?;
            }
            return self.define(e, inst, value, true);
        }
        let name = self.local_name(e, self.result(inst)?);
        let target = Expr::ident(name.clone());
        let assignments = loads.into_iter().map(|value| vec![Stmt::Assign { target: target.clone(), value }]).collect();
        let chosen = self.each_option(e, &choice.selector, assignments)?;
        self.flush(e, true);
        self.stmts.push(Stmt::Var { name: name.clone(), ty: Some(e.ty(ty)?), value: None });
        self.stmts.extend(chosen);
        self.values.insert(self.result(inst)?, Value::Ident(name));
        Ok(())
    }

    /// OpStore through a choice of pointers to different variables or members: to the chosen
    /// option only; by `atomicStore` to atomics (of the integer type `atomic`).
    pub(super) fn store_choice(
        &mut self,
        e: &mut Emitter,
        value: Id,
        choice: Choice,
        atomic: Option<Id>,
    ) -> Result<(), Error> {
        let mut expr = self.take_shared(e, value)?;
        if let Some(inner) = atomic {
            expr = self.converted_to_inner(e, value, expr, inner)?;
        }
        let mut stores = Vec::with_capacity(choice.options.len());
        for option in &choice.options {
            let target = self.reference(e, option, true)?;
            stores.push(vec![match atomic {
                Some(_) => {
                    Stmt::Call(Expr::call("atomicStore", vec![Expr::unary(UnaryOp::AddressOf, target), expr.clone()]))
                }
                None => Stmt::Assign { target, value: expr.clone() },
            }]);
        }
        let chosen = self.each_option(e, &choice.selector, stores)?;
        self.flush(e, true);
        self.stmts.extend(chosen);
        Ok(())
    }

    /// An atomic instruction (of the atomic's integer type `inner`) through a choice of pointers
    /// to different variables or members: on the chosen option only, its result, if used, in a
    /// variable. A compare-exchange, or a min or max of the other signedness, loops (`atomic.rs`).
    pub(super) fn atomic_choice(
        &mut self,
        e: &mut Emitter,
        inst: &Inst,
        choice: Choice,
        inner: Id,
    ) -> Result<(), Error> {
        let (name, operand) = self.atomic_operand(e, inst, inner, true)?;
        let mut calls = Vec::with_capacity(choice.options.len());
        for option in &choice.options {
            let target = Expr::unary(UnaryOp::AddressOf, self.reference(e, option, true)?);
            calls.push(Expr::call(name, [target].into_iter().chain(operand.clone()).collect()));
        }
        self.flush(e, true);
        let result = inst.result().filter(|_| self.is_used(inst));
        let Some(id) = result else {
            let chosen =
                self.each_option(e, &choice.selector, calls.into_iter().map(|call| vec![Stmt::Call(call)]).collect())?;
            self.stmts.extend(chosen);
            return Ok(());
        };
        let var = self.local_name(e, id);
        let target = Expr::ident(var.clone());
        let assignments = calls.into_iter().map(|value| vec![Stmt::Assign { target: target.clone(), value }]).collect();
        let chosen = self.each_option(e, &choice.selector, assignments)?;
        self.stmts.push(Stmt::Var { name: var, ty: Some(e.ty(inner)?), value: None });
        self.stmts.extend(chosen);
        let value = self.as_result_type(e, inst, target, inner)?;
        self.bind(e, id, value);
        Ok(())
    }

    /// `if picks(0) { branches[0] } else if picks(1) { branches[1] } ... else { last }`.
    pub(super) fn each_option(
        &mut self,
        e: &mut Emitter,
        selector: &Selector,
        mut branches: Vec<Vec<Stmt>>,
    ) -> Result<Vec<Stmt>, Error> {
        let mut chosen = branches.pop().ok_or_else(|| Error::internal("a choice of no pointers"))?;
        while let Some(branch) = branches.pop() {
            let condition = self.picks(e, selector, branches.len())?;
            chosen = vec![Stmt::If { condition, accept: branch, reject: chosen }];
        }
        Ok(chosen)
    }

    /// An access chain whose base is a choice: the same steps after each option.
    pub(super) fn chain_choice(&mut self, inst: &Inst, mut choice: Choice, steps: Vec<Step>) -> Result<(), Error> {
        for option in &mut choice.options {
            option.steps.extend(steps.iter().cloned());
        }
        self.values.insert(self.result(inst)?, Value::Choice(Box::new(choice)));
        Ok(())
    }

    /// OpPtrEqual and OpPtrNotEqual: the access paths compared.
    pub(super) fn pointer_equality(&mut self, e: &mut Emitter, inst: &Inst) -> Result<(), Error> {
        let a = self.pointers(e, self.operand(inst, 0)?)?;
        let b = self.pointers(e, self.operand(inst, 1)?)?;
        let mut rows = Vec::new();
        for option in a.options().to_vec() {
            let mut row = Vec::new();
            for other in b.options().to_vec() {
                row.push(match self.same(e, inst, &option, &other)? {
                    Same::Always => Expr::Literal(Literal::Bool(true)),
                    Same::Never => Expr::Literal(Literal::Bool(false)),
                    Same::When(condition) => condition,
                });
            }
            rows.push(match &b {
                Pointers::One(_) => row.swap_remove(0),
                Pointers::Many(choice) => self.chosen(e, &choice.selector.clone(), row)?,
            });
        }
        let mut equal = match &a {
            Pointers::One(_) => rows.swap_remove(0),
            Pointers::Many(choice) => self.chosen(e, &choice.selector.clone(), rows)?,
        };
        if inst.op == Op::PtrNotEqual {
            equal = match equal {
                Expr::Literal(Literal::Bool(b)) => Expr::Literal(Literal::Bool(!b)),
                equal => Expr::unary(UnaryOp::Not, equal),
            };
        }
        self.define(e, inst, equal, false)
    }

    /// Whether two pointers of one type designate the same memory.
    fn same(&mut self, e: &mut Emitter, inst: &Inst, a: &Pointer, b: &Pointer) -> Result<Same, Error> {
        if a.base != b.base {
            // Distinct variables never alias; a pointer parameter may point anywhere.
            let parameter = |p: &Pointer| matches!(p.base, Expr::Unary(UnaryOp::Deref, _));
            if parameter(a) || parameter(b) {
                return Err(Error::unsupported(
                    format!(
                        "Op{:?} compares a pointer parameter with another pointer: WGSL cannot tell whether \
                         they point to the same memory",
                        inst.op
                    ),
                    self.location(inst),
                ));
            }
            return Ok(Same::Never);
        }
        let mut conditions = Vec::new();
        for (x, y) in a.steps.iter().zip(&b.steps) {
            match (x, y) {
                (Step::Member(m), Step::Member(n)) if m != n => return Ok(Same::Never),
                (Step::Component(m), Step::Component(n)) if m != n => return Ok(Same::Never),
                (Step::Member(_), _) | (Step::Component(_), _) | (_, Step::Member(_)) | (_, Step::Component(_)) => {}
                (Step::Constant(i), Step::Constant(j)) if i != j => return Ok(Same::Never),
                (Step::Constant(_), Step::Constant(_)) => {}
                (x, y) => {
                    let (x, y) = (self.index(e, x)?, self.index(e, y)?);
                    if x != y {
                        conditions.push(Expr::binary(BinaryOp::Equal, x, y));
                    }
                }
            }
        }
        Ok(match conditions.into_iter().reduce(|a, b| Expr::binary(BinaryOp::LogicalAnd, a, b)) {
            Some(condition) => Same::When(condition),
            None => Same::Always,
        })
    }

    /// OpPtrDiff: how many elements apart two pointers into one array are, from their last
    /// indices (the result is undefined for pointers into different arrays).
    pub(super) fn pointer_difference(&mut self, e: &mut Emitter, inst: &Inst) -> Result<(), Error> {
        let a = self.pointer(e, self.operand(inst, 0)?)?;
        let b = self.pointer(e, self.operand(inst, 1)?)?;
        let mut last = |pointer: &Pointer| -> Result<Expr, Error> {
            Ok(match pointer.steps.last() {
                Some(step @ (Step::Constant(_) | Step::Dynamic(_) | Step::Index(_))) => {
                    Expr::call("i32", vec![self.index(e, step)?])
                }
                _ => Expr::Literal(Literal::I32(0)),
            })
        };
        let difference = Expr::binary(BinaryOp::Subtract, last(&a)?, last(&b)?);
        let ty = self.result_type(inst)?;
        let difference = if &*e.ty(ty)? == "i32" { difference } else { e.bitcast(ty, difference)? };
        self.define(e, inst, difference, false)
    }
}

#[cfg(test)]
mod tests {
    /// A module whose `helper` compares its pointer parameter with another pointer, `other`; `class`
    /// is the storage of both, `locals` the variables `helper` and `main` declare, `calls` main's.
    fn comparing(class: &str, other: &str, locals: [&str; 2], calls: &str) -> String {
        let [helper_locals, main_locals] = locals;
        let globals =
            if class == "Private" { "%g = OpVariable %ptr Private\n%h = OpVariable %ptr Private\n" } else { "" };
        format!(
            "OpCapability Shader\nOpCapability VariablePointers\nOpMemoryModel Logical GLSL450\n\
            OpEntryPoint GLCompute %main \"main\"\nOpExecutionMode %main LocalSize 1 1 1\n\
            %void = OpTypeVoid\n%bool = OpTypeBool\n%float = OpTypeFloat 32\n\
            %ptr = OpTypePointer {class} %float\n%fn = OpTypeFunction %void\n\
            %helper_fn = OpTypeFunction %bool %ptr\n{globals}\
            %helper = OpFunction %bool None %helper_fn\n%p = OpFunctionParameter %ptr\n%he = OpLabel\n\
            {helper_locals}%same = OpPtrEqual %bool %p {other}\nOpReturnValue %same\nOpFunctionEnd\n\
            %main = OpFunction %void None %fn\n%entry = OpLabel\n{main_locals}{calls}OpReturn\nOpFunctionEnd\n"
        )
    }

    #[test]
    fn a_pointer_parameter_compared_with_another_pointer_is_refused() {
        let locals = ["%local = OpVariable %ptr Function\n", "%v = OpVariable %ptr Function\n"];
        let text = comparing("Function", "%local", locals, "%r = OpFunctionCall %bool %helper %v\n");
        let error = crate::translate(text.as_bytes(), &crate::Options::default()).unwrap_err().to_string();
        assert!(error.contains("OpPtrEqual compares a pointer parameter with another pointer"), "{error}");
    }

    #[test]
    fn a_private_pointer_parameter_compared_with_a_variable_named_compares_the_arguments() {
        // The helper names %g, so its parameter is specialized per argument (global_params):
        // `&h == &g` is false and `&g == &g` true.
        let calls = "%r = OpFunctionCall %bool %helper %h\n%s = OpFunctionCall %bool %helper %g\n";
        let text = comparing("Private", "%g", ["", ""], calls);
        let wgsl = crate::translate(text.as_bytes(), &crate::Options::default()).unwrap().wgsl;
        assert!(wgsl.contains("return false;") && wgsl.contains("return true;"), "{wgsl}");
    }
}
