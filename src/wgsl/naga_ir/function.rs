//! A function's body as naga's WGSL front end lowers its text: statements, expressions through
//! naga's constant evaluator, calls (see `mod.rs`).

use naga::proc::{ConstantEvaluator, Emitter, ExpressionKind, ExpressionKindTracker, ResolveContext, TypeResolution};
use naga::{
    AddressSpace, Block, Expression, Handle, Literal as NagaLiteral, Scalar, ScalarKind, Span, Statement, Type,
    TypeInner, VectorSize,
};

use super::resolutions::Resolutions;
use super::{
    Builder, DERIVATIVES, Declared, MATH, Result, Unsupported, binary_op, image, naga_literal, scalar_named,
    spelled_head,
};
use crate::name_hash::NameMap;
use crate::wgsl::ast::{BinaryOp, COMPONENTS, Expr, Function, Init, Literal, Stmt, UnaryOp, Update};

/// The body and signature of `f`, its types registered in `builder`.
pub(super) fn lower(builder: &mut Builder, f: &Function) -> Result<naga::Function> {
    let mut lowering = FunctionLowering::new(builder);
    // Most of a body's statements declare a name: room for them at once, not by rehashing or
    // copying the undo list and the named expressions as they grow.
    lowering.scopes.names.reserve(f.params.len() + f.body.len());
    lowering.scopes.undo.reserve(f.params.len() + f.body.len());
    lowering.function.named_expressions.reserve(f.params.len() + f.body.len());
    let mut arguments = Vec::with_capacity(f.params.len());
    for (i, param) in f.params.iter().enumerate() {
        let ty = lowering.builder.ty(&param.ty)?;
        let binding = lowering.builder.binding(&param.attributes, ty)?;
        let expr = lowering.function.expressions.append(Expression::FunctionArgument(i as u32), Span::UNDEFINED);
        lowering.kinds.insert(expr, ExpressionKind::Runtime);
        lowering.function.named_expressions.insert(expr, param.name.clone());
        lowering.scopes.declare(&param.name, Typed::Plain(expr));
        arguments.push(naga::FunctionArgument { name: Some(param.name.clone()), ty, binding });
    }
    lowering.function.arguments = arguments;
    if let Some((attributes, ty)) = &f.result {
        let ty = lowering.builder.ty(ty)?;
        let binding = lowering.builder.binding(attributes, ty)?;
        lowering.function.result = Some(naga::FunctionResult { ty, binding });
    }
    lowering.function.name = Some(f.name.clone());
    // The body's own scope is not left: its names go with the lowering, not undone one by one.
    let mut body = lowering.statements(&f.body, false)?;
    naga::proc::ensure_block_returns(&mut body);
    let mut function = lowering.function;
    function.body = body;
    Ok(function)
}

/// An expression as the front end types it: a value, or a reference (a pointer the load rule
/// reads through).
#[derive(Clone, Copy)]
enum Typed {
    Plain(Handle<Expression>),
    Reference(Handle<Expression>),
}

/// Local names in scope: a map with an undo list per scope, so a lookup does not grow with the
/// function.
#[derive(Default)]
struct Scopes<'a> {
    names: NameMap<&'a str, Typed>,
    undo: Vec<(&'a str, Option<Typed>)>,
}

impl<'a> Scopes<'a> {
    fn declare(&mut self, name: &'a str, typed: Typed) {
        let old = self.names.insert(name, typed);
        self.undo.push((name, old));
    }
    fn enter(&self) -> usize {
        self.undo.len()
    }
    fn leave(&mut self, mark: usize) {
        while self.undo.len() > mark {
            let (name, old) = self.undo.pop().expect("above the mark");
            match old {
                Some(old) => self.names.insert(name, old),
                None => self.names.remove(name),
            };
        }
    }
}

pub(super) struct FunctionLowering<'b, 'a> {
    pub(super) builder: &'b mut Builder,
    pub(super) function: naga::Function,
    kinds: ExpressionKindTracker,
    resolutions: Resolutions,
    scopes: Scopes<'a>,
    pub(super) emitter: Emitter,
    /// Whether expressions are evaluated as a constant expression (a texel offset), where the
    /// constant evaluator refuses what it cannot fold.
    pub(super) constant: bool,
}

impl<'b, 'a> FunctionLowering<'b, 'a> {
    fn new(builder: &'b mut Builder) -> Self {
        FunctionLowering {
            builder,
            function: naga::Function::default(),
            kinds: ExpressionKindTracker::new(),
            resolutions: Resolutions::new(),
            scopes: Scopes::default(),
            emitter: Emitter::default(),
            constant: false,
        }
    }

    /// naga's constant evaluator over this function, appending to `block`, as the front end's.
    fn evaluator<'e>(&'e mut self, block: &'e mut Block) -> ConstantEvaluator<'e> {
        ConstantEvaluator::for_wgsl_function(
            &mut self.builder.module,
            &mut self.function.expressions,
            &mut self.kinds,
            &mut self.builder.layouter,
            &mut self.emitter,
            block,
            self.constant,
        )
    }

    /// Appends `expr` through naga's constant evaluator, as the front end's `append_expression`.
    pub(super) fn append(&mut self, block: &mut Block, expr: Expression) -> Result<Handle<Expression>> {
        // The evaluator appends a run-time expression as it is, and one that needs no `Emit` of
        // its own without touching the emitter: the same here, without making an evaluator.
        if !self.constant && !expr.needs_pre_emit() && self.is_runtime(&expr) {
            let handle = self.function.expressions.append(expr, Span::UNDEFINED);
            self.kinds.insert(handle, ExpressionKind::Runtime);
            return Ok(handle);
        }
        self.evaluator(block).try_eval_and_append(expr, Span::UNDEFINED).map_err(|_| Unsupported("constant evaluation"))
    }

    /// Whether the evaluator takes `expr` as a run-time expression, for the kinds this builder
    /// appends most: a load, or an operation with a run-time operand. `false` for the rest, which
    /// go through the evaluator.
    fn is_runtime(&self, expr: &Expression) -> bool {
        let runtime = |handle| !self.kinds.is_const_or_override(handle);
        match *expr {
            Expression::Load { .. } => true,
            Expression::Unary { expr, .. }
            | Expression::As { expr, .. }
            | Expression::Splat { value: expr, .. }
            | Expression::Swizzle { vector: expr, .. }
            | Expression::AccessIndex { base: expr, .. } => runtime(expr),
            Expression::Binary { left, right, .. } | Expression::Access { base: left, index: right } => {
                runtime(left) || runtime(right)
            }
            Expression::Select { condition, accept, reject } => {
                runtime(condition) || runtime(accept) || runtime(reject)
            }
            _ => false,
        }
    }

    /// Ends the open `Emit` range (into `block`) and starts another: before a statement that uses
    /// the expressions, or where the front end appends an expression the compaction removes.
    pub(super) fn split_emit_range(&mut self, block: &mut Block) {
        block.extend(self.emitter.finish(&self.function.expressions));
        self.emitter.start(&self.function.expressions);
    }

    /// Appends `expr` outside any `Emit` range, as the front end's `interrupt_emitter`.
    pub(super) fn interrupt(&mut self, block: &mut Block, expr: Expression) -> Result<Handle<Expression>> {
        block.extend(self.emitter.finish(&self.function.expressions));
        let handle = match expr {
            // What the evaluator does with a literal, the emitter stopped: checks its value (no
            // infinity or NaN) and appends it as a constant.
            Expression::Literal(literal) => match naga::valid::check_literal_value(literal) {
                Ok(()) => {
                    let handle = self.function.expressions.append(expr, Span::UNDEFINED);
                    self.kinds.insert(handle, ExpressionKind::Const);
                    Ok(handle)
                }
                Err(_) => Err(Unsupported("constant evaluation")),
            },
            expr => self.append(block, expr),
        };
        self.emitter.start(&self.function.expressions);
        handle
    }

    /// The type of `handle`, resolving every expression up to it first.
    // Inlined: most handles asked for are resolved already, and only the others need naga's
    // resolution set up.
    #[inline]
    pub(super) fn resolve(&mut self, handle: Handle<Expression>) -> Result<&TypeInner> {
        if self.resolutions.get(handle).is_none() {
            self.resolve_up_to(handle)?;
        }
        let resolution = self.resolutions.get(handle).ok_or(Unsupported("type resolution"))?;
        Ok(resolution.inner_with(&self.builder.module.types))
    }

    /// Resolves the type of every expression up to `handle`.
    fn resolve_up_to(&mut self, handle: Handle<Expression>) -> Result<()> {
        let context =
            ResolveContext::with_locals(&self.builder.module, &self.function.local_variables, &self.function.arguments);
        self.resolutions.resolve(&context, &self.function.expressions, handle).map(|_| ())
    }

    /// The type of `handle`, if it is resolved.
    fn resolution(&self, handle: Handle<Expression>) -> Option<&TypeResolution> {
        self.resolutions.get(handle)
    }

    fn block(&mut self, stmts: &'a [Stmt], in_loop: bool) -> Result<Block> {
        let mark = self.scopes.enter();
        let block = self.statements(stmts, in_loop);
        self.scopes.leave(mark);
        block
    }

    /// The statements of a list, whose declarations stay in scope after it.
    fn statements(&mut self, stmts: &'a [Stmt], in_loop: bool) -> Result<Block> {
        // Most statements lower to an `Emit` and one of naga's: room for both at once, not by
        // copying the block as it grows.
        let mut block = Block::with_capacity(2 * stmts.len());
        for stmt in stmts {
            self.statement(stmt, &mut block, in_loop)?;
        }
        Ok(block)
    }

    /// Lowers `stmt` into `block`, with the statement's own `Emit` ranges.
    fn statement(&mut self, stmt: &'a Stmt, block: &mut Block, in_loop: bool) -> Result<()> {
        // Each statement that evaluates expressions has its own `Emit` ranges, as in the front end.
        if matches!(
            stmt,
            Stmt::Let { .. }
                | Stmt::Assign { .. }
                | Stmt::Call(_)
                | Stmt::If { .. }
                | Stmt::Switch { .. }
                | Stmt::Return(_)
        ) {
            self.emitter.start(&self.function.expressions);
        }
        let out = match stmt {
            Stmt::Noted { stmt, .. } => return self.statement(stmt, block, in_loop),
            Stmt::Let { name, ty, value } => {
                let explicit = ty.as_deref().map(|ty| self.builder.ty(ty)).transpose()?;
                let value = self.expression_for_abstract(value, block)?;
                let ty = self.declared_type(value, explicit)?;
                if self.builder.module.types[ty].inner.is_dynamically_sized(&self.builder.module.types) {
                    return Err(Unsupported("let of a runtime-sized value"));
                }
                self.kinds.force_non_const(value);
                block.extend(self.emitter.finish(&self.function.expressions));
                self.scopes.declare(name, Typed::Plain(value));
                let name = if self.builder.names { String::from(&**name) } else { String::new() };
                self.function.named_expressions.insert(value, name);
                return Ok(());
            }
            Stmt::Var { name, ty, value } => return self.var(name, ty.as_deref(), value.as_ref(), block, in_loop),
            Stmt::Assign { target, value } => self.assign(target, None, value, block)?,
            Stmt::Call(call) => {
                let Expr::Call(call) = call else { return Err(Unsupported("call statement")) };
                self.call(&call.callee, &call.args, block, true)?;
                block.extend(self.emitter.finish(&self.function.expressions));
                return Ok(());
            }
            Stmt::If { condition, accept, reject } => {
                let condition = self.expression(condition, block)?;
                block.extend(self.emitter.finish(&self.function.expressions));
                let accept = self.block(accept, in_loop)?;
                let reject = self.block(reject, in_loop)?;
                Statement::If { condition, accept, reject }
            }
            Stmt::Switch { selector, cases } => self.switch(selector, cases, block, in_loop)?,
            Stmt::Loop { body, continuing, break_if } => {
                // The `continuing` and its `break if` see the body's declarations.
                let mark = self.scopes.enter();
                let body = self.statements(body, true)?;
                let mut continuing = self.statements(continuing, true)?;
                self.emitter.start(&self.function.expressions);
                let break_if = break_if.as_ref().map(|c| self.expression(c, &mut continuing)).transpose()?;
                continuing.extend(self.emitter.finish(&self.function.expressions));
                self.scopes.leave(mark);
                Statement::Loop { body, continuing, break_if }
            }
            Stmt::Break => Statement::Break,
            Stmt::Continue => Statement::Continue,
            Stmt::Discard => Statement::Kill,
            Stmt::Return(value) => {
                let value = value.as_ref().map(|v| self.expression(v, block)).transpose()?;
                block.extend(self.emitter.finish(&self.function.expressions));
                Statement::Return { value }
            }
            Stmt::For(l) => return self.for_loop(l, block, in_loop),
            Stmt::While { condition, body } => {
                // `while c { body }` reads as `loop { if c {} else { break; } { body } }`.
                let mut loop_body = self.exit_unless(condition)?;
                let inner = self.block(body, true)?;
                loop_body.push(Statement::Block(inner), Span::UNDEFINED);
                Statement::Loop { body: loop_body, continuing: Block::default(), break_if: None }
            }
        };
        block.push(out, Span::UNDEFINED);
        Ok(())
    }

    /// `var name: ty = value;`: a constant initializer outside loops is the variable's own, any
    /// other a store.
    fn var(
        &mut self,
        name: &'a str,
        ty: Option<&'a str>,
        value: Option<&'a Expr>,
        block: &mut Block,
        in_loop: bool,
    ) -> Result<()> {
        self.emitter.start(&self.function.expressions);
        let explicit = ty.map(|ty| self.builder.ty(ty)).transpose()?;
        let value = value.map(|v| self.expression_for_abstract(v, block)).transpose()?;
        let ty = match (explicit, value) {
            (_, Some(value)) => self.declared_type(value, explicit)?,
            (Some(ty), None) => ty,
            (None, None) => return Err(Unsupported("var without type or value")),
        };
        let (init, store) = match value {
            Some(value) if !in_loop && self.kinds.is_const_or_override(value) => (Some(value), None),
            value => (None, value),
        };
        let var = self
            .function
            .local_variables
            .append(naga::LocalVariable { name: Some(name.to_string()), ty, init }, Span::UNDEFINED);
        let pointer = self.interrupt(block, Expression::LocalVariable(var))?;
        let store = match (store, in_loop) {
            (None, true) => Some(self.append(block, Expression::ZeroValue(ty))?),
            (store, _) => store,
        };
        block.extend(self.emitter.finish(&self.function.expressions));
        self.scopes.declare(name, Typed::Reference(pointer));
        if let Some(value) = store {
            block.push(Statement::Store { pointer, value }, Span::UNDEFINED);
        }
        Ok(())
    }

    /// The type of a declaration initialized with `value`: the value's type registered in the
    /// module (as the front end's `type_and_init` does), which an `explicit` type must equal.
    pub(super) fn declared_type(
        &mut self,
        value: Handle<Expression>,
        explicit: Option<Handle<Type>>,
    ) -> Result<Handle<Type>> {
        self.resolve(value)?;
        let builder = &mut *self.builder;
        let value_type = self.resolutions.declared(value, |inner| builder.ensure(inner))?;
        match explicit {
            None => Ok(value_type),
            Some(explicit) if explicit == value_type => Ok(explicit),
            Some(explicit)
                if self
                    .builder
                    .module
                    .compare_types(&TypeResolution::Handle(explicit), &TypeResolution::Handle(value_type)) =>
            {
                Ok(explicit)
            }
            Some(_) => Err(Unsupported("a value of another type than declared")),
        }
    }

    /// `target = value;`, or `target op= value;` for `op`.
    fn assign(
        &mut self,
        target: &'a Expr,
        op: Option<naga::BinaryOperator>,
        value: &'a Expr,
        block: &mut Block,
    ) -> Result<Statement> {
        let Typed::Reference(pointer) = self.expression_for_reference(target, block)? else {
            return Err(Unsupported("assignment to a value"));
        };
        let left = match op {
            Some(_) => Some(self.apply_load_rule(Typed::Reference(pointer), block)?),
            None => None,
        };
        let mut value = self.expression_for_abstract(value, block)?;
        if let (Some(op), Some(mut left)) = (op, left) {
            self.binary_op_splat(op, &mut left, &mut value, block)?;
            value = self.append(block, Expression::Binary { op, left, right: value })?;
        }
        block.extend(self.emitter.finish(&self.function.expressions));
        Ok(Statement::Store { pointer, value })
    }

    fn switch(
        &mut self,
        selector: &'a Expr,
        cases: &'a [crate::wgsl::ast::SwitchCase],
        block: &mut Block,
        in_loop: bool,
    ) -> Result<Statement> {
        let selector = self.expression_for_abstract(selector, block)?;
        // The front end converts the selector and the cases to one type, or rejects them: only
        // cases of the selector's own type are taken here.
        let selector_scalar = match *self.resolve(selector)? {
            TypeInner::Scalar(scalar @ (Scalar::I32 | Scalar::U32)) => scalar,
            _ => return Err(Unsupported("switch selector")),
        };
        let mut values = Vec::new();
        for case in cases {
            for value in &case.selectors {
                let handle = self.expression_for_abstract(value, block)?;
                values.push(match (&self.function.expressions[handle], selector_scalar) {
                    (&Expression::Literal(NagaLiteral::I32(v)), Scalar::I32) => naga::SwitchValue::I32(v),
                    (&Expression::Literal(NagaLiteral::U32(v)), Scalar::U32) => naga::SwitchValue::U32(v),
                    _ => return Err(Unsupported("case selector")),
                });
            }
        }
        block.extend(self.emitter.finish(&self.function.expressions));
        let mut values = values.into_iter();
        let mut lowered = Vec::new();
        for case in cases {
            // `case a, b, default: {}` is a case per value falling through to the last.
            let count = case.selectors.len() + usize::from(case.default);
            for i in 0..count {
                let value = if i < case.selectors.len() {
                    values.next().ok_or(Unsupported("case selector"))?
                } else {
                    naga::SwitchValue::Default
                };
                let last = i + 1 == count;
                let body = if last { self.block(&case.body, in_loop)? } else { Block::default() };
                lowered.push(naga::SwitchCase { value, body, fall_through: !last });
            }
        }
        Ok(Statement::Switch { selector, cases: lowered })
    }

    /// `for (init; condition; update) { body }`: the initializer is a statement of the enclosing
    /// list, then `loop { if condition {} else { break; } { body } continuing { update } }`.
    fn for_loop(&mut self, l: &'a crate::wgsl::ast::For, block: &mut Block, in_loop: bool) -> Result<()> {
        let mark = self.scopes.enter();
        match &l.init {
            Some(Init::Var(name, value)) => self.var(name, None, Some(value), block, in_loop)?,
            Some(Init::Assign(target, value)) => {
                self.emitter.start(&self.function.expressions);
                let store = self.assign(target, None, value, block)?;
                block.push(store, Span::UNDEFINED);
            }
            None => {}
        }
        let mut body = self.exit_unless(&l.condition)?;
        // The body is lowered before the `continuing`, as a `loop`'s.
        let inner = self.block(&l.body, true)?;
        body.push(Statement::Block(inner), Span::UNDEFINED);
        let mut continuing = Block::default();
        self.emitter.start(&self.function.expressions);
        let update = match &l.update {
            Update::Increment(target) | Update::Decrement(target) => {
                let op = match l.update {
                    Update::Increment(_) => naga::BinaryOperator::Add,
                    _ => naga::BinaryOperator::Subtract,
                };
                self.increment(target, op, &mut continuing)?
            }
            Update::Compound(target, op, value) => self.assign(target, Some(binary_op(*op)), value, &mut continuing)?,
            Update::Assign(target, value) => self.assign(target, None, value, &mut continuing)?,
        };
        continuing.push(update, Span::UNDEFINED);
        self.scopes.leave(mark);
        block.push(Statement::Loop { body, continuing, break_if: None }, Span::UNDEFINED);
        Ok(())
    }

    /// The start of a `for` or `while` loop's body: `if condition {} else { break; }`, with the
    /// condition's own `Emit` ranges.
    fn exit_unless(&mut self, condition: &'a Expr) -> Result<Block> {
        let mut body = Block::default();
        self.emitter.start(&self.function.expressions);
        let condition = self.expression(condition, &mut body)?;
        body.extend(self.emitter.finish(&self.function.expressions));
        let reject = Block::from_vec(vec![Statement::Break]);
        body.push(Statement::If { condition, accept: Block::default(), reject }, Span::UNDEFINED);
        Ok(body)
    }

    /// `target++` or `target--`.
    fn increment(&mut self, target: &'a Expr, op: naga::BinaryOperator, block: &mut Block) -> Result<Statement> {
        let Typed::Reference(pointer) = self.expression_for_reference(target, block)? else {
            return Err(Unsupported("increment of a value"));
        };
        let scalar = match *self.resolve(pointer)? {
            TypeInner::ValuePointer { size: None, scalar, .. } => scalar,
            TypeInner::Pointer { base, .. } => match self.builder.module.types[base].inner {
                TypeInner::Scalar(scalar) => scalar,
                _ => return Err(Unsupported("increment")),
            },
            _ => return Err(Unsupported("increment")),
        };
        let one = match scalar.kind {
            ScalarKind::Sint | ScalarKind::Uint => NagaLiteral::one(scalar).ok_or(Unsupported("increment"))?,
            _ => return Err(Unsupported("increment")),
        };
        let right = self.interrupt(block, Expression::Literal(one))?;
        let left = self.function.expressions.append(Expression::Load { pointer }, Span::UNDEFINED);
        let value = self.function.expressions.append(Expression::Binary { op, left, right }, Span::UNDEFINED);
        self.kinds.insert(left, ExpressionKind::Runtime);
        self.kinds.insert(value, ExpressionKind::Runtime);
        block.extend(self.emitter.finish(&self.function.expressions));
        Ok(Statement::Store { pointer, value })
    }

    pub(super) fn expression(&mut self, expr: &'a Expr, block: &mut Block) -> Result<Handle<Expression>> {
        // Concretizing does nothing here: every literal this builder takes has a concrete type.
        self.expression_for_abstract(expr, block)
    }

    pub(super) fn expression_for_abstract(&mut self, expr: &'a Expr, block: &mut Block) -> Result<Handle<Expression>> {
        let typed = self.expression_for_reference(expr, block)?;
        self.apply_load_rule(typed, block)
    }

    // Inlined: most expressions are values, which it hands back as they are.
    #[inline]
    fn apply_load_rule(&mut self, typed: Typed, block: &mut Block) -> Result<Handle<Expression>> {
        match typed {
            Typed::Plain(handle) => Ok(handle),
            Typed::Reference(pointer) => self.load_through(pointer, block),
        }
    }

    /// The value a reference points to.
    fn load_through(&mut self, pointer: Handle<Expression>, block: &mut Block) -> Result<Handle<Expression>> {
        self.resolve(pointer)?;
        let types = &self.builder.module.types;
        if self.resolution(pointer).is_some_and(|r| r.inner_with(types).is_atomic_pointer(types)) {
            return Err(Unsupported("atomic"));
        }
        self.append(block, Expression::Load { pointer })
    }

    fn expression_for_reference(&mut self, expr: &'a Expr, block: &mut Block) -> Result<Typed> {
        let (typed, lowered) = match expr {
            Expr::Literal(literal) => {
                // A negative number is printed as the negation of its magnitude: the front end
                // appends the magnitude outside the `Emit` ranges, and the constant evaluator
                // folds the negation into a literal appended the same way, leaving the magnitude
                // to the compaction. Only the folded literal is made here.
                let value = match naga_literal(literal)? {
                    (magnitude, false) => magnitude,
                    (NagaLiteral::I32(v), true) => NagaLiteral::I32(-v),
                    (NagaLiteral::F32(v), true) => NagaLiteral::F32(-v),
                    _ => return Err(Unsupported("literal")),
                };
                return Ok(Typed::Plain(self.interrupt(block, Expression::Literal(value))?));
            }
            Expr::Ident(name) => {
                if let Some(&typed) = self.scopes.names.get(&**name) {
                    return Ok(typed);
                }
                return match self.builder.declared.get(&**name) {
                    Some(&Declared::Var(handle)) => {
                        let space = self.builder.module.global_variables[handle].space;
                        let expr = self.interrupt(block, Expression::GlobalVariable(handle))?;
                        Ok(if space == AddressSpace::Handle { Typed::Plain(expr) } else { Typed::Reference(expr) })
                    }
                    Some(&Declared::Override(handle)) => {
                        Ok(Typed::Plain(self.interrupt(block, Expression::Override(handle))?))
                    }
                    _ => Err(Unsupported("identifier")),
                };
            }
            Expr::Unary(UnaryOp::AddressOf, operand) => {
                let Typed::Reference(handle) = self.expression_for_reference(operand, block)? else {
                    return Err(Unsupported("address of a value"));
                };
                if let Expression::Access { base, .. } | Expression::AccessIndex { base, .. } =
                    self.function.expressions[handle]
                {
                    let base_type = self.resolve(base)?.pointer_base_type();
                    if base_type
                        .is_some_and(|t| matches!(t.inner_with(&self.builder.module.types), TypeInner::Vector { .. }))
                    {
                        return Err(Unsupported("address of a vector component"));
                    }
                }
                return Ok(Typed::Plain(handle));
            }
            Expr::Unary(UnaryOp::Deref, operand) => {
                let pointer = self.expression(operand, block)?;
                if self.resolve(pointer)?.pointer_space().is_none() {
                    return Err(Unsupported("deref of a value"));
                }
                return Ok(Typed::Reference(pointer));
            }
            Expr::Unary(op, operand) => {
                let operand = self.expression_for_abstract(operand, block)?;
                let op = match op {
                    UnaryOp::Negate => naga::UnaryOperator::Negate,
                    UnaryOp::Not => naga::UnaryOperator::LogicalNot,
                    _ => naga::UnaryOperator::BitwiseNot,
                };
                (false, Expression::Unary { op, expr: operand })
            }
            Expr::Binary(op, operands) => {
                let [left, right] = &**operands;
                return self.binary(*op, left, right, block);
            }
            Expr::Call(call) => {
                let handle = self.call(&call.callee, &call.args, block, false)?.ok_or(Unsupported("void call"))?;
                return Ok(Typed::Plain(handle));
            }
            Expr::Index(operands) => {
                let [base, index] = &**operands;
                let base = self.expression_for_reference(base, block)?;
                let index = match *index {
                    // `v[2]`: the front end appends an abstract integer and its conversion to
                    // `i32`, each outside the `Emit` ranges, and indexes by the value; the
                    // compaction removes both literals. Neither is made here, but the range is
                    // split where they were.
                    Expr::Literal(Literal::Abstract(i)) => {
                        let i = u32::try_from(i).ok().filter(|&i| i32::try_from(i).is_ok());
                        self.split_emit_range(block);
                        Index::Constant(i.ok_or(Unsupported("index"))?)
                    }
                    ref index => {
                        let index = self.expression(index, block)?;
                        self.const_index(index).map_or(Index::Lowered(index), Index::Constant)
                    }
                };
                let base = self.pointer_as_reference(base)?;
                let (reference, base) = split(base);
                let expr = match index {
                    Index::Constant(index) => Expression::AccessIndex { base, index },
                    Index::Lowered(index) => Expression::Access { base, index },
                };
                (reference, expr)
            }
            Expr::Member(member) => {
                let base = self.expression_for_reference(&member.base, block)?;
                let base = self.pointer_as_reference(base)?;
                let (reference, base_handle) = split(base);
                self.resolve(base_handle)?;
                let types = &self.builder.module.types;
                let resolved = self.resolution(base_handle).ok_or(Unsupported("member"))?;
                let composite = match reference {
                    true => resolved.inner_with(types).pointer_base_type().ok_or(Unsupported("member"))?,
                    false => resolved.clone(),
                };
                // What the access needs of the composite: a struct's member index or a vector's size.
                let accessed = match composite.inner_with(types) {
                    TypeInner::Struct { members, .. } => {
                        Ok(members.iter().position(|m| m.name.as_deref() == Some(member.name.as_str())))
                    }
                    &TypeInner::Vector { size, .. } => Err(Some(size)),
                    _ => Err(None),
                };
                match accessed {
                    Ok(index) => {
                        let index = index.ok_or(Unsupported("member"))?;
                        (reference, Expression::AccessIndex { base: base_handle, index: index as u32 })
                    }
                    Err(None) => return Err(Unsupported("member of a non-composite")),
                    Err(Some(size)) => {
                        let pattern = swizzle(&member.name)?;
                        // Every component must be one of the vector's, or the front end says no.
                        if pattern.iter().any(|&c| c as u8 >= size as u8) {
                            return Err(Unsupported("component"));
                        }
                        if pattern.len() == 1 {
                            (reference, Expression::AccessIndex { base: base_handle, index: pattern[0] as u32 })
                        } else {
                            let vector = self.apply_load_rule(base, block)?;
                            let mut full = [naga::SwizzleComponent::X; 4];
                            full[..pattern.len()].copy_from_slice(&pattern);
                            let size = match pattern.len() {
                                2 => VectorSize::Bi,
                                3 => VectorSize::Tri,
                                _ => VectorSize::Quad,
                            };
                            (false, Expression::Swizzle { size, vector, pattern: full })
                        }
                    }
                }
            }
        };
        let handle = self.append(block, lowered)?;
        Ok(if typed { Typed::Reference(handle) } else { Typed::Plain(handle) })
    }

    /// A pointer value indexed or accessed is taken as the reference it points to.
    fn pointer_as_reference(&mut self, typed: Typed) -> Result<Typed> {
        match typed {
            Typed::Plain(handle) if self.resolve(handle)?.pointer_space().is_some() => Ok(Typed::Reference(handle)),
            other => Ok(other),
        }
    }

    /// The value of a constant index, as the front end's `get_const_val`.
    pub(super) fn const_index(&self, index: Handle<Expression>) -> Option<u32> {
        if !self.kinds.is_const(index) {
            return None;
        }
        match self.function.expressions[index] {
            Expression::Literal(NagaLiteral::U32(v)) => Some(v),
            Expression::Literal(NagaLiteral::I32(v)) => u32::try_from(v).ok(),
            _ => None,
        }
    }

    fn binary(&mut self, op: BinaryOp, left: &'a Expr, right: &'a Expr, block: &mut Block) -> Result<Typed> {
        let op = binary_op(op);
        if matches!(op, naga::BinaryOperator::LogicalAnd | naga::BinaryOperator::LogicalOr) {
            let left = self.expression_for_abstract(left, block)?;
            if *self.resolve(left)? != TypeInner::Scalar(Scalar::BOOL) {
                return Err(Unsupported("logical operator on vectors"));
            }
            return self.logical(op, left, right, block);
        }
        let mut left = self.expression_for_abstract(left, block)?;
        let mut right = self.expression_for_abstract(right, block)?;
        // A shift's right operand is `u32` or converts to it, or the front end rejects it.
        if matches!(op, naga::BinaryOperator::ShiftLeft | naga::BinaryOperator::ShiftRight)
            && self.resolve(right)?.scalar_kind() != Some(ScalarKind::Uint)
        {
            return Err(Unsupported("shift by a signed amount"));
        }
        self.binary_op_splat(op, &mut left, &mut right, block)?;
        // The front end's automatic conversions change nothing between concrete operands of one
        // scalar type; between others it would leave them be, and validation says no.
        Ok(Typed::Plain(self.append(block, Expression::Binary { op, left, right })?))
    }

    /// `a && b` and `a || b`: the right operand is evaluated in an `if`, into a variable.
    fn logical(
        &mut self,
        op: naga::BinaryOperator,
        left: Handle<Expression>,
        right: &'a Expr,
        block: &mut Block,
    ) -> Result<Typed> {
        let (condition, otherwise) = if op == naga::BinaryOperator::LogicalAnd {
            (left, self.append(block, Expression::Literal(NagaLiteral::Bool(false)))?)
        } else {
            let condition =
                self.append(block, Expression::Unary { op: naga::UnaryOperator::LogicalNot, expr: left })?;
            (condition, self.append(block, Expression::Literal(NagaLiteral::Bool(true)))?)
        };
        let bool_type = self.builder.ensure(TypeInner::Scalar(Scalar::BOOL));
        let var = self
            .function
            .local_variables
            .append(naga::LocalVariable { name: None, ty: bool_type, init: None }, Span::UNDEFINED);
        let pointer = self.append(block, Expression::LocalVariable(var))?;
        // The right operand in a block of its own, with its own emitter.
        block.extend(self.emitter.finish(&self.function.expressions));
        let mut accept = Block::default();
        self.emitter.start(&self.function.expressions);
        let right = self.expression_for_abstract(right, &mut accept)?;
        accept.extend(self.emitter.finish(&self.function.expressions));
        self.emitter.start(&self.function.expressions);
        accept.push(Statement::Store { pointer, value: right }, Span::UNDEFINED);
        let reject = Block::from_vec(vec![Statement::Store { pointer, value: otherwise }]);
        block.push(Statement::If { condition, accept, reject }, Span::UNDEFINED);
        let handle = self.append(block, Expression::LocalVariable(var))?;
        Ok(Typed::Reference(handle))
    }

    /// `scalar op vector` as `vector op vector` for the operators naga's IR needs it for.
    fn binary_op_splat(
        &mut self,
        op: naga::BinaryOperator,
        left: &mut Handle<Expression>,
        right: &mut Handle<Expression>,
        block: &mut Block,
    ) -> Result<()> {
        use naga::BinaryOperator as B;
        if !matches!(op, B::Add | B::Subtract | B::Divide | B::Modulo) {
            return Ok(());
        }
        // A vector's size, `None` for a scalar; neither for anything else.
        let shape = |inner: &TypeInner| match *inner {
            TypeInner::Vector { size, .. } => Some(Some(size)),
            TypeInner::Scalar(_) => Some(None),
            _ => None,
        };
        let left_shape = shape(self.resolve(*left)?);
        let right_shape = shape(self.resolve(*right)?);
        match (left_shape, right_shape) {
            (Some(Some(size)), Some(None)) => *right = self.append(block, Expression::Splat { size, value: *right })?,
            (Some(None), Some(Some(size))) => *left = self.append(block, Expression::Splat { size, value: *left })?,
            _ => {}
        }
        Ok(())
    }

    /// A call of a function, a type constructor or a builtin; `None` for a function without a
    /// result.
    fn call(
        &mut self,
        callee: &'a str,
        args: &'a [Expr],
        block: &mut Block,
        is_statement: bool,
    ) -> Result<Option<Handle<Expression>>> {
        match self.builder.declared.get(callee).copied() {
            Some(Declared::Function(function)) => return self.call_function(function, args, block, is_statement),
            Some(Declared::Type(ty)) => return self.construct(ty, args, block).map(Some),
            Some(_) => return Err(Unsupported("call of a non-function")),
            None => {}
        }
        if image::is_texture_builtin(callee) {
            return self.texture(callee, args, block, is_statement);
        }
        if callee.starts_with("atomic") {
            return self.atomic(callee, args, block);
        }
        if is_statement {
            let barrier = match callee {
                "workgroupBarrier" => naga::Barrier::WORK_GROUP,
                "storageBarrier" => naga::Barrier::STORAGE,
                "textureBarrier" => naga::Barrier::TEXTURE,
                _ => return Err(Unsupported("builtin call as a statement")),
            };
            if !args.is_empty() {
                return Err(Unsupported("barrier arguments"));
            }
            block.push(Statement::ControlBarrier(barrier), Span::UNDEFINED);
            return Ok(None);
        }
        if let Some((axis, ctrl)) = DERIVATIVES.iter().find(|(name, ..)| *name == callee).map(|&(_, a, c)| (a, c)) {
            let [arg] = args else { return Err(Unsupported("derivative arguments")) };
            let expr = self.expression(arg, block)?;
            return self.append(block, Expression::Derivative { axis, ctrl, expr }).map(Some);
        }
        if let Some(ty) = callee.strip_prefix("bitcast<").and_then(|t| t.strip_suffix('>')) {
            let ty = self.builder.ty(ty)?;
            let [arg] = args else { return Err(Unsupported("bitcast arguments")) };
            let expr = self.expression(arg, block)?;
            let kind = match self.builder.module.types[ty].inner {
                TypeInner::Scalar(scalar) | TypeInner::Vector { scalar, .. } => scalar.kind,
                _ => return Err(Unsupported("bitcast type")),
            };
            return self.append(block, Expression::As { expr, kind, convert: None }).map(Some);
        }
        if is_type_spelling(callee) {
            if callee.contains("array<") {
                // The front end evaluates an array's size in the function, outside the `Emit`
                // ranges, before the components (the compaction removes it).
                self.split_emit_range(block);
            }
            let ty = self.builder.ty(callee)?;
            return self.construct(ty, args, block).map(Some);
        }
        let expr = match callee {
            "select" => {
                let [reject, accept, condition] = args else { return Err(Unsupported("select arguments")) };
                let reject = self.expression_for_abstract(reject, block)?;
                let accept = self.expression_for_abstract(accept, block)?;
                let condition = self.expression(condition, block)?;
                for value in [reject, accept] {
                    if self.resolve(value)?.vector_size_and_scalar().is_none() {
                        return Err(Unsupported("select of a composite"));
                    }
                }
                Expression::Select { condition, accept, reject }
            }
            "arrayLength" => {
                let [pointer] = args else { return Err(Unsupported("arrayLength arguments")) };
                Expression::ArrayLength(self.expression(pointer, block)?)
            }
            "all" | "any" => {
                let [argument] = args else { return Err(Unsupported("relational arguments")) };
                let argument = self.expression(argument, block)?;
                if *self.resolve(argument)? == TypeInner::Scalar(Scalar::BOOL) {
                    return Ok(Some(argument));
                }
                let fun = if callee == "all" { naga::RelationalFunction::All } else { naga::RelationalFunction::Any };
                Expression::Relational { fun, argument }
            }
            _ => {
                let fun = MATH.iter().find(|(name, _)| *name == callee).ok_or(Unsupported("builtin"))?.1;
                let mut lowered = Vec::with_capacity(args.len());
                for arg in args {
                    let arg = self.expression_for_abstract(arg, block)?;
                    self.resolve(arg)?;
                    lowered.push(arg);
                }
                if lowered.is_empty() || lowered.len() > 4 {
                    return Err(Unsupported("math arguments"));
                }
                Expression::Math {
                    fun,
                    arg: lowered[0],
                    arg1: lowered.get(1).copied(),
                    arg2: lowered.get(2).copied(),
                    arg3: lowered.get(3).copied(),
                }
            }
        };
        self.append(block, expr).map(Some)
    }

    fn call_function(
        &mut self,
        function: Handle<naga::Function>,
        args: &'a [Expr],
        block: &mut Block,
        is_statement: bool,
    ) -> Result<Option<Handle<Expression>>> {
        let mut arguments = Vec::with_capacity(args.len());
        for arg in args {
            arguments.push(self.expression_for_abstract(arg, block)?);
        }
        let has_result = self.builder.module.functions[function].result.is_some();
        if !has_result && !is_statement {
            return Err(Unsupported("the value of a function without a result"));
        }
        block.extend(self.emitter.finish(&self.function.expressions));
        let result = has_result.then(|| {
            let result = self.function.expressions.append(Expression::CallResult(function), Span::UNDEFINED);
            self.kinds.insert(result, ExpressionKind::Runtime);
            result
        });
        self.emitter.start(&self.function.expressions);
        block.push(Statement::Call { function, arguments, result }, Span::UNDEFINED);
        Ok(result)
    }

    /// `T(args)`: a zero value, a conversion, a splat or a composition.
    fn construct(&mut self, ty: Handle<Type>, args: &'a [Expr], block: &mut Block) -> Result<Handle<Expression>> {
        let expr = match args {
            [] => Expression::ZeroValue(ty),
            // One argument is most often converted or splat, which needs no list of components.
            [arg] => {
                let component = self.expression_for_abstract(arg, block)?;
                match self.conversion(ty, component)? {
                    Some(expr) => expr,
                    None => self.composition(ty, vec![component], block)?,
                }
            }
            _ => {
                let mut components = Vec::with_capacity(args.len());
                for arg in args {
                    components.push(self.expression_for_abstract(arg, block)?);
                }
                self.composition(ty, components, block)?
            }
        };
        self.append(block, expr)
    }

    /// `T(component)` for a scalar, vector or matrix `T`: a conversion or a splat. `None` for
    /// another `T`, which is composed.
    fn conversion(&mut self, ty: Handle<Type>, component: Handle<Expression>) -> Result<Option<Expression>> {
        let expr = match self.builder.module.types[ty].inner {
            TypeInner::Scalar(scalar) => {
                if !matches!(self.resolve(component)?, TypeInner::Scalar(_)) {
                    return Err(Unsupported("conversion"));
                }
                Expression::As { expr: component, kind: scalar.kind, convert: Some(scalar.width) }
            }
            TypeInner::Vector { size, scalar } => match *self.resolve(component)? {
                TypeInner::Vector { size: from, .. } if from == size => {
                    Expression::As { expr: component, kind: scalar.kind, convert: Some(scalar.width) }
                }
                TypeInner::Scalar(from) if from == scalar => Expression::Splat { size, value: component },
                _ => return Err(Unsupported("vector construction")),
            },
            TypeInner::Matrix { columns, rows, scalar } => match *self.resolve(component)? {
                TypeInner::Matrix { columns: c, rows: r, .. } if c == columns && r == rows => {
                    Expression::As { expr: component, kind: scalar.kind, convert: Some(scalar.width) }
                }
                _ => return Err(Unsupported("matrix construction")),
            },
            _ => return Ok(None),
        };
        Ok(Some(expr))
    }

    /// `T(components)`, of one component only for a struct or an array.
    fn composition(
        &mut self,
        ty: Handle<Type>,
        components: Vec<Handle<Expression>>,
        block: &mut Block,
    ) -> Result<Expression> {
        let target = match &self.builder.module.types[ty].inner {
            // What a struct is made of is not needed here: its members are not copied.
            TypeInner::Struct { .. } => TypeInner::Struct { members: Vec::new(), span: 0 },
            inner => inner.clone(),
        };
        Ok(match target {
            TypeInner::Vector { scalar, .. } => {
                for &component in &components {
                    let leaf = self.resolve(component)?.scalar();
                    if leaf != Some(scalar) {
                        return Err(Unsupported("vector construction"));
                    }
                }
                Expression::Compose { ty, components }
            }
            TypeInner::Matrix { columns, rows, scalar } if components.len() == columns as usize * rows as usize => {
                // By elements: a column vector composed of each `rows` of them.
                let column_type = self.builder.ensure(TypeInner::Vector { size: rows, scalar });
                let mut columns = Vec::with_capacity(columns as usize);
                for column in components.chunks(rows as usize) {
                    let column = Expression::Compose { ty: column_type, components: column.to_vec() };
                    columns.push(self.append(block, column)?);
                }
                Expression::Compose { ty, components: columns }
            }
            // A matrix by columns; a struct or an array from its members or elements, one or more.
            TypeInner::Matrix { .. } | TypeInner::Array { .. } | TypeInner::Struct { .. } => {
                for &component in &components {
                    self.resolve(component)?;
                }
                Expression::Compose { ty, components }
            }
            _ => return Err(Unsupported("construction")),
        })
    }
}

/// The index of `base[index]`: a constant, which the access takes as its own, or the index
/// expression lowered.
enum Index {
    Constant(u32),
    Lowered(Handle<Expression>),
}

/// Splits a typed handle into (is a reference, the handle).
fn split(typed: Typed) -> (bool, Handle<Expression>) {
    match typed {
        Typed::Plain(handle) => (false, handle),
        Typed::Reference(handle) => (true, handle),
    }
}

pub(super) fn is_type_spelling(callee: &str) -> bool {
    let head = spelled_head(callee);
    scalar_named(head).is_some()
        || matches!(head, "vec2" | "vec3" | "vec4" | "array")
        || (head.starts_with("mat") && head.len() == 6)
}

/// A swizzle or component name (`x`, `zw`, `rgba`) as components.
fn swizzle(name: &str) -> Result<Vec<naga::SwizzleComponent>> {
    if name.is_empty() || name.len() > 4 {
        return Err(Unsupported("swizzle"));
    }
    name.bytes()
        .map(|c| {
            let index = COMPONENTS
                .iter()
                .position(|x| x.as_bytes()[0] == c)
                .or_else(|| "rgba".bytes().position(|x| x == c))
                .ok_or(Unsupported("swizzle"))?;
            Ok(naga::SwizzleComponent::XYZW[index])
        })
        .collect()
}
