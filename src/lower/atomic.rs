//! Atomic instructions, and plain loads and stores of atomics (which WGSL requires to be atomic
//! too). Values are read as the atomic's integer type and results converted back, since SPIR-V
//! lets an instruction's signedness differ from the memory's.

use spirv::Op;

use super::emit::Emitter;
use super::function::{Lower, Selector, Value};
use crate::error::Error;
use crate::passes::signedness::int_signedness;
use crate::spirv::{Id, Inst, Type};
use crate::wgsl::ast::{BinaryOp, Expr, Literal, Name, Stmt, UnaryOp};

/// Where an atomic instruction that loops acts: one atomic, or a choice of atomics made at run
/// time (variable pointers), each `&reference`.
enum Targets {
    One(Expr),
    Chosen(Selector, Vec<Expr>),
}

/// An atomic instruction: the WGSL builtin and where its value operand is (`None`: the constant
/// one, for increment and decrement; compare-exchange is separate).
fn builtin(op: Op) -> Option<(&'static str, Option<usize>)> {
    Some(match op {
        Op::AtomicLoad => ("atomicLoad", None),
        Op::AtomicStore => ("atomicStore", Some(3)),
        Op::AtomicExchange => ("atomicExchange", Some(3)),
        Op::AtomicIIncrement => ("atomicAdd", None),
        Op::AtomicIDecrement => ("atomicSub", None),
        Op::AtomicIAdd => ("atomicAdd", Some(3)),
        Op::AtomicISub => ("atomicSub", Some(3)),
        Op::AtomicSMin | Op::AtomicUMin => ("atomicMin", Some(3)),
        Op::AtomicSMax | Op::AtomicUMax => ("atomicMax", Some(3)),
        Op::AtomicAnd => ("atomicAnd", Some(3)),
        Op::AtomicOr => ("atomicOr", Some(3)),
        Op::AtomicXor => ("atomicXor", Some(3)),
        _ => return None,
    })
}

impl Lower<'_> {
    /// The atomic's integer type, if `pointer` points to an atomic.
    pub(super) fn atomic_inner(&self, pointer: Id) -> Option<Id> {
        let ty = self.module.value_type(pointer)?;
        let Type::Pointer { pointee, .. } = self.module.ty(ty).ok()? else {
            return None;
        };
        match self.module.ty(*pointee).ok()? {
            Type::Atomic { inner } => Some(*inner),
            _ => None,
        }
    }

    /// `value` (an operand id) as the atomic's integer type.
    fn as_inner(&mut self, e: &mut Emitter, value: Id, inner: Id) -> Result<Expr, Error> {
        let expr = self.take(e, value)?;
        self.converted_to_inner(e, value, expr, inner)
    }

    /// `expr`, the value of operand `value`, as the atomic's integer type.
    pub(super) fn converted_to_inner(&self, e: &mut Emitter, value: Id, expr: Expr, inner: Id) -> Result<Expr, Error> {
        let ty = self.module.type_of(value)?;
        Ok(if int_signedness(self.module, ty) == int_signedness(self.module, inner) {
            expr
        } else {
            e.bitcast(inner, expr)?
        })
    }

    /// Records the result of an atomic call, converted to the instruction's type; or, unused,
    /// emits the call as a statement. Either way it happens here, in order (or in the store that
    /// comes next).
    fn atomic_result(&mut self, e: &mut Emitter, inst: &Inst, call: Expr, inner: Id) -> Result<(), Error> {
        self.flush(e, true);
        match inst.result() {
            Some(_) if self.stored_at_once(inst) => {
                let value = self.as_result_type(e, inst, call, inner)?;
                self.define(e, inst, value, true)?;
            }
            Some(id) if self.is_used(inst) => {
                let value = self.as_result_type(e, inst, call, inner)?;
                self.bind(e, id, value);
            }
            _ => self.stmts.push(Stmt::Call(call)),
        }
        Ok(())
    }

    /// An atomic's value, read as its integer type `inner`, as the instruction's result type
    /// (SPIR-V lets their signedness differ).
    pub(super) fn as_result_type(&self, e: &mut Emitter, inst: &Inst, value: Expr, inner: Id) -> Result<Expr, Error> {
        let ty = self.result_type(inst)?;
        match int_signedness(self.module, ty) == int_signedness(self.module, inner) {
            true => Ok(value),
            false => e.bitcast(ty, value),
        }
    }

    /// SPIR-V's compare-exchange is strong; WGSL has only a weak one, which may fail though the
    /// atomic held the comparator. It is tried again until it stores or sees another value, so a
    /// program that takes the comparator back as proof of its store (a lock) still works:
    /// `loop { let r = atomicCompareExchangeWeak(p, c, v); if r.exchanged || r.old_value != c { x = r.old_value; break; } }`.
    fn compare_exchange(
        &mut self,
        e: &mut Emitter,
        inst: &Inst,
        targets: Targets,
        operands: [Expr; 2],
        inner: Id,
    ) -> Result<(), Error> {
        self.flush(e, true);
        let id = self.result(inst)?;
        let name = self.local_name(e, id);
        // Read on every try, the comparator twice: what is not a name is bound once, before.
        let targets = self.bind_one_target(e, targets, &name);
        let [value, comparator] = operands;
        let value = self.read_once(e, value, &format!("{name}_value"));
        let comparator = self.read_once(e, comparator, &format!("{name}_comparator"));
        let exchange = self.namer.fresh_name(&format!("{name}_exchange"), Some(&e.namer));
        let old = Expr::member(Expr::ident(exchange.clone()), "old_value");
        let done = self.loop_result(e, inst, name.clone(), old.clone(), inner)?;
        let condition = Expr::binary(
            BinaryOp::LogicalOr,
            Expr::member(Expr::ident(exchange.clone()), "exchanged"),
            Expr::binary(BinaryOp::NotEqual, old, comparator.clone()),
        );
        self.loop_per_target(e, targets, &name, |target| {
            let call = Expr::call("atomicCompareExchangeWeak", vec![target, comparator.clone(), value.clone()]);
            vec![
                Stmt::Let { name: exchange.clone(), ty: None, value: call },
                Stmt::If { condition: condition.clone(), accept: done.clone(), reject: Vec::new() },
            ]
        })
    }

    /// The one target of a loop bound to a name now, if it is not one, to be read on every try.
    /// A choice's options are bound in their own branches (`loop_per_target`).
    fn bind_one_target(&mut self, e: &Emitter, targets: Targets, name: &Name) -> Targets {
        match targets {
            Targets::One(target) => Targets::One(self.read_once(e, target, &format!("{name}_pointer"))),
            chosen => chosen,
        }
    }

    /// A loop whose body `body` makes of the target: for a choice of targets, one loop per option
    /// in the branch that option takes (`if c { loop { ... p0 ... } } else { loop { ... p1 ... } }`).
    fn loop_per_target(
        &mut self,
        e: &mut Emitter,
        targets: Targets,
        name: &Name,
        body: impl Fn(Expr) -> Vec<Stmt>,
    ) -> Result<(), Error> {
        let loop_of = |target| Stmt::Loop { body: body(target), continuing: Vec::new(), break_if: None };
        match targets {
            Targets::One(target) => self.stmts.push(loop_of(target)),
            Targets::Chosen(selector, options) => {
                let mut branches = Vec::with_capacity(options.len());
                for target in options {
                    let outer = std::mem::take(&mut self.stmts);
                    let target = self.read_once(e, target, &format!("{name}_pointer"));
                    self.stmts.push(loop_of(target));
                    branches.push(std::mem::replace(&mut self.stmts, outer));
                }
                let chosen = self.each_option(e, &selector, branches)?;
                self.stmts.extend(chosen);
            }
        }
        Ok(())
    }

    /// What a compare-exchange loop does once it stores: the instruction's result, where used, is
    /// `old` (read as the atomic's integer type `inner`) in a variable named `name` declared before
    /// the loop; then the loop ends.
    fn loop_result(
        &mut self,
        e: &mut Emitter,
        inst: &Inst,
        name: Name,
        old: Expr,
        inner: Id,
    ) -> Result<Vec<Stmt>, Error> {
        let mut done = Vec::new();
        if self.is_used(inst) {
            let id = self.result(inst)?;
            let result = self.as_result_type(e, inst, old, inner)?;
            let var = match self.hoisted_names.get(&id) {
                Some(hoisted) => hoisted.clone(),
                None => {
                    self.stmts.push(Stmt::Var {
                        name: name.clone(),
                        ty: Some(e.ty(self.result_type(inst)?)?),
                        value: None,
                    });
                    name
                }
            };
            done.push(Stmt::Assign { target: Expr::ident(var.clone()), value: result });
            self.values.insert(id, Value::Ident(var));
        }
        done.push(Stmt::Break);
        Ok(done)
    }

    /// A min or max of the signedness the atomic's type lacks (the atomics pass gives an integer
    /// both kinds touch its declared type), which WGSL's `atomicMin`/`atomicMax` cannot do: a
    /// compare-exchange loop that stores the min or max of the value there and the operand, read
    /// with the operation's signedness, until no other invocation came between:
    /// `loop { let old = atomicLoad(p); let r = atomicCompareExchangeWeak(p, old,
    /// bitcast<u32>(min(bitcast<i32>(old), v))); if r.exchanged { x = old; break; } }`.
    fn min_max_of_other_signedness(
        &mut self,
        e: &mut Emitter,
        inst: &Inst,
        targets: Targets,
        inner: Id,
    ) -> Result<(), Error> {
        let signed = matches!(inst.op, Op::AtomicSMin | Op::AtomicSMax);
        let operation = if matches!(inst.op, Op::AtomicSMin | Op::AtomicUMin) { "min" } else { "max" };
        let (as_operation, as_inner) =
            if signed { ("bitcast<i32>", "bitcast<u32>") } else { ("bitcast<u32>", "bitcast<i32>") };
        let operand = self.operand(inst, 3)?;
        let value = self.take(e, operand)?;
        let value = match int_signedness(self.module, self.module.type_of(operand)?) == Some(signed) {
            true => value,
            false => Expr::call(as_operation, vec![value]),
        };
        self.flush(e, true);
        let name = self.local_name(e, self.result(inst)?);
        let targets = self.bind_one_target(e, targets, &name);
        let value = self.read_once(e, value, &format!("{name}_value"));
        let old_name = self.namer.fresh_name(&format!("{name}_old"), Some(&e.namer));
        let exchange = self.namer.fresh_name(&format!("{name}_exchange"), Some(&e.namer));
        let old = Expr::ident(old_name.clone());
        let done = self.loop_result(e, inst, name.clone(), old.clone(), inner)?;
        let chosen = Expr::call(operation, vec![Expr::call(as_operation, vec![old.clone()]), value]);
        let desired = Expr::call(as_inner, vec![chosen]);
        self.loop_per_target(e, targets, &name, |target| {
            let store = Expr::call("atomicCompareExchangeWeak", vec![target.clone(), old.clone(), desired.clone()]);
            vec![
                Stmt::Let { name: old_name.clone(), ty: None, value: Expr::call("atomicLoad", vec![target]) },
                Stmt::Let { name: exchange.clone(), ty: None, value: store },
                Stmt::If {
                    condition: Expr::member(Expr::ident(exchange.clone()), "exchanged"),
                    accept: done.clone(),
                    reject: Vec::new(),
                },
            ]
        })
    }

    /// `expr` if reading it again does no work (a name, a member of one, `&` of such), else a
    /// `let` bound to it.
    fn read_once(&mut self, e: &Emitter, expr: Expr, name: &str) -> Expr {
        let path = match &expr {
            Expr::Unary(UnaryOp::AddressOf, reference) => reference.is_path(),
            other => other.is_path(),
        };
        if path {
            return expr;
        }
        let name = self.namer.fresh_name(name, Some(&e.namer));
        self.stmts.push(Stmt::Let { name: name.clone(), ty: None, value: expr });
        Expr::ident(name)
    }

    /// `&reference` to the atomic a pointer operand designates.
    fn atomic_pointer(&mut self, e: &mut Emitter, pointer: Id) -> Result<Expr, Error> {
        let reference = self.pointer_expr(e, pointer)?;
        Ok(match reference {
            Expr::Unary(UnaryOp::Deref, pointer) => *pointer,
            other => Expr::unary(UnaryOp::AddressOf, other),
        })
    }

    pub(super) fn atomic(&mut self, e: &mut Emitter, inst: &Inst) -> Result<(), Error> {
        let pointer = self.operand(inst, 0)?;
        let inner = self
            .atomic_inner(pointer)
            .ok_or_else(|| Error::internal("an atomic instruction's pointer was not retyped by the atomics pass"))?;
        let compare_exchange = matches!(inst.op, Op::AtomicCompareExchange | Op::AtomicCompareExchangeWeak);
        let inner_signed = int_signedness(self.module, inner) == Some(true);
        let other_signedness = match inst.op {
            Op::AtomicSMin | Op::AtomicSMax => !inner_signed,
            Op::AtomicUMin | Op::AtomicUMax => inner_signed,
            _ => false,
        };
        let choice = self.unmerged_choice(e, pointer)?;
        if !compare_exchange && !other_signedness {
            if let Some(choice) = choice {
                return self.atomic_choice(e, inst, choice, inner);
            }
            return self.plain_atomic(e, inst, pointer, inner);
        }
        let targets = match choice {
            Some(choice) => {
                let mut options = Vec::with_capacity(choice.options.len());
                for option in &choice.options {
                    options.push(Expr::unary(UnaryOp::AddressOf, self.reference(e, option, true)?));
                }
                Targets::Chosen(choice.selector, options)
            }
            None => Targets::One(self.atomic_pointer(e, pointer)?),
        };
        if compare_exchange {
            let value = self.as_inner(e, self.operand(inst, 4)?, inner)?;
            let comparator = self.as_inner(e, self.operand(inst, 5)?, inner)?;
            return self.compare_exchange(e, inst, targets, [value, comparator], inner);
        }
        self.min_max_of_other_signedness(e, inst, targets, inner)
    }

    /// An atomic instruction WGSL has a builtin for, through one pointer.
    fn plain_atomic(&mut self, e: &mut Emitter, inst: &Inst, pointer: Id, inner: Id) -> Result<(), Error> {
        let target = self.atomic_pointer(e, pointer)?;
        let (name, operand) = self.atomic_operand(e, inst, inner, false)?;
        let call = Expr::call(name, [target].into_iter().chain(operand).collect());
        if inst.op == Op::AtomicStore {
            self.side_effect(e, Stmt::Call(call));
            return Ok(());
        }
        self.atomic_result(e, inst, call, inner)
    }

    /// The builtin of a plain atomic instruction and the operand after its pointer: the value
    /// (bound to a name if `shared`, for several calls), 1 for an increment or decrement, none
    /// for a load.
    pub(super) fn atomic_operand(
        &mut self,
        e: &mut Emitter,
        inst: &Inst,
        inner: Id,
        shared: bool,
    ) -> Result<(&'static str, Option<Expr>), Error> {
        let (name, value) = builtin(inst.op)
            .ok_or_else(|| Error::unsupported(format!("Op{:?} is not supported", inst.op), self.location(inst)))?;
        let operand = match value {
            Some(position) if shared => {
                let id = self.operand(inst, position)?;
                let value = self.take_shared(e, id)?;
                Some(self.converted_to_inner(e, id, value, inner)?)
            }
            Some(position) => Some(self.as_inner(e, self.operand(inst, position)?, inner)?),
            None if inst.op != Op::AtomicLoad => {
                let signed = int_signedness(self.module, inner) == Some(true);
                Some(Expr::Literal(if signed { Literal::I32(1) } else { Literal::U32(1) }))
            }
            None => None,
        };
        Ok((name, operand))
    }

    /// A plain OpLoad of an atomic: `atomicLoad`.
    pub(super) fn load_atomic(&mut self, e: &mut Emitter, inst: &Inst, inner: Id) -> Result<(), Error> {
        let target = self.atomic_pointer(e, self.operand(inst, 0)?)?;
        self.atomic_result(e, inst, Expr::call("atomicLoad", vec![target]), inner)
    }

    /// A plain OpStore to an atomic: `atomicStore`.
    pub(super) fn store_atomic(&mut self, e: &mut Emitter, inst: &Inst, inner: Id) -> Result<(), Error> {
        let target = self.atomic_pointer(e, self.operand(inst, 0)?)?;
        let value = self.as_inner(e, self.operand(inst, 1)?, inner)?;
        self.side_effect(e, Stmt::Call(Expr::call("atomicStore", vec![target, value])));
        Ok(())
    }
}
