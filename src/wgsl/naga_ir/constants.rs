//! Module-scope `override` declarations and global variables' initializers, lowered into the
//! module's global expressions as naga's front end lowers them (its `type_and_init` in an
//! override context): each expression appended through naga's constant evaluator, the
//! declared type registered before the initializer, the initializer's type after it.
//!
//! Only the shapes our lowering prints for specialization constants and initializers are taken:
//! concrete scalar literals, other overrides, unary and binary operators, scalar conversions, zero
//! values, vectors of scalars; anything else (abstract literals, `&&` and `||`, other
//! constructions, builtins, `const`) is refused.
//!
//! Overrides are registered in text order, among the globals: the front end's depth-first order
//! (`front::wgsl::index`) is that order while each names only declarations before it, and a name
//! not declared yet is refused.

use naga::proc::{ConstantEvaluator, ExpressionKindTracker, ResolveContext, TypeResolution};
use naga::{Expression, Handle, ScalarKind, Span, TypeInner};

use super::{Builder, Declared, Result, Unsupported, binary_op, naga_literal};
use crate::wgsl::ast::{Attribute, Expr, Global, Literal, Name, UnaryOp};

/// The sizes of an entry point's workgroup given by overrides, as global expressions.
type WorkgroupSizeOverrides = Option<[Option<Handle<Expression>>; 3]>;

/// What the builder knows of the module's global expressions.
pub(super) struct GlobalExpressions {
    kinds: ExpressionKindTracker,
    /// The type of each, by index.
    types: Vec<TypeResolution>,
}

impl Default for GlobalExpressions {
    fn default() -> Self {
        GlobalExpressions { kinds: ExpressionKindTracker::new(), types: Vec::new() }
    }
}

impl Builder {
    /// `@id(n) override name: ty = init;`.
    pub(super) fn declare_override(&mut self, g: &Global) -> Result<()> {
        let ty = self.ty(g.ty.as_deref().ok_or(Unsupported("untyped override"))?)?;
        let init = g.init.as_ref().map(|init| self.initializer(init, ty)).transpose()?;
        // The front end evaluates the id into a global expression too, which compaction drops.
        let id = match g.attributes.as_slice() {
            [] => None,
            &[Attribute::Id(id)] => Some(u16::try_from(id).map_err(|_| Unsupported("override id"))?),
            _ => return Err(Unsupported("override attribute")),
        };
        let handle =
            self.module.overrides.append(naga::Override { name: Some(g.name.clone()), id, ty, init }, Span::UNDEFINED);
        self.declared.insert(Name::from(g.name.as_str()), Declared::Override(handle));
        Ok(())
    }

    /// The initializer of a declaration of type `ty`, refused unless it is of that type: the
    /// front end's automatic conversions change nothing between concrete scalars.
    pub(super) fn initializer(&mut self, init: &Expr, ty: Handle<naga::Type>) -> Result<Handle<Expression>> {
        let handle = self.global_expression(init)?;
        // The front end registers the initializer's type.
        let init_ty = match self.globals.types[handle.index()].clone() {
            TypeResolution::Handle(handle) => handle,
            TypeResolution::Value(inner) => self.ensure(inner),
        };
        match init_ty == ty {
            true => Ok(handle),
            false => Err(Unsupported("an initializer of another type than declared")),
        }
    }

    fn global_expression(&mut self, expr: &Expr) -> Result<Handle<Expression>> {
        let lowered = match expr {
            Expr::Literal(literal) => {
                let (magnitude, negative) = naga_literal(literal)?;
                let handle = self.append_global(Expression::Literal(magnitude))?;
                if !negative {
                    return Ok(handle);
                }
                Expression::Unary { op: naga::UnaryOperator::Negate, expr: handle }
            }
            Expr::Ident(name) => match self.declared.get(&**name) {
                Some(&Declared::Override(handle)) => Expression::Override(handle),
                _ => return Err(Unsupported("identifier in an initializer")),
            },
            Expr::Unary(op @ (UnaryOp::Negate | UnaryOp::Not | UnaryOp::BitNot), operand) => {
                let expr = self.global_expression(operand)?;
                let op = match op {
                    UnaryOp::Negate => naga::UnaryOperator::Negate,
                    UnaryOp::Not => naga::UnaryOperator::LogicalNot,
                    _ => naga::UnaryOperator::BitwiseNot,
                };
                Expression::Unary { op, expr }
            }
            Expr::Binary(op, operands) => {
                let op = binary_op(*op);
                if matches!(op, naga::BinaryOperator::LogicalAnd | naga::BinaryOperator::LogicalOr) {
                    return Err(Unsupported("logical operator in an initializer"));
                }
                let left = self.global_expression(&operands[0])?;
                let right = self.global_expression(&operands[1])?;
                let scalars =
                    [left, right].map(|h| match self.globals.types[h.index()].inner_with(&self.module.types) {
                        TypeInner::Scalar(scalar) => Some(*scalar),
                        _ => None,
                    });
                let shift = matches!(op, naga::BinaryOperator::ShiftLeft | naga::BinaryOperator::ShiftRight);
                match scalars {
                    [Some(_), Some(r)] if shift && r == naga::Scalar::U32 => {}
                    [Some(l), Some(r)] if !shift && l == r => {}
                    _ => return Err(Unsupported("operands in an initializer")),
                }
                Expression::Binary { op, left, right }
            }
            Expr::Call(call) => self.construction(&call.callee, &call.args)?,
            _ => return Err(Unsupported("initializer")),
        };
        self.append_global(lowered)
    }

    /// `T(args)` in an initializer, the constructor's type registered before its arguments: a
    /// zero value, a scalar conversion, a vector splat or a vector of scalars of its type.
    fn construction(&mut self, callee: &str, args: &[Expr]) -> Result<Expression> {
        let ty = self.ty(callee)?;
        let mut components = Vec::with_capacity(args.len());
        for arg in args {
            components.push(self.global_expression(arg)?);
        }
        let scalars: Vec<_> = components
            .iter()
            .map(|h| match self.globals.types[h.index()].inner_with(&self.module.types) {
                TypeInner::Scalar(scalar) => Some(*scalar),
                _ => None,
            })
            .collect();
        Ok(match (&self.module.types[ty].inner, components.as_slice()) {
            (_, []) => Expression::ZeroValue(ty),
            (&TypeInner::Scalar(scalar), &[expr]) if scalars[0].is_some() => {
                Expression::As { expr, kind: scalar.kind, convert: Some(scalar.width) }
            }
            (&TypeInner::Vector { size, scalar }, &[value]) if scalars[0] == Some(scalar) => {
                Expression::Splat { size, value }
            }
            (&TypeInner::Vector { size, scalar }, _)
                if components.len() == size as usize && scalars.iter().all(|&s| s == Some(scalar)) =>
            {
                Expression::Compose { ty, components }
            }
            _ => return Err(Unsupported("construction in an initializer")),
        })
    }

    /// `@workgroup_size(x, y, z)`: each size a literal, or an integer override, which the front
    /// end lowers (after the function's body, which appends no global expression) into a global
    /// expression.
    pub(super) fn workgroup_size(&mut self, sizes: &[Expr; 3]) -> Result<([u32; 3], WorkgroupSizeOverrides)> {
        let (mut literal, mut overrides) = ([1; 3], [None; 3]);
        for (i, size) in sizes.iter().enumerate() {
            match size {
                Expr::Literal(Literal::Abstract(n)) => {
                    literal[i] = u32::try_from(*n).map_err(|_| Unsupported("size"))?
                }
                Expr::Literal(Literal::U32(n)) => literal[i] = *n,
                Expr::Literal(Literal::I32(n @ 0..)) => literal[i] = *n as u32,
                Expr::Ident(name) => {
                    let Some(&Declared::Override(handle)) = self.declared.get(&**name) else {
                        return Err(Unsupported("workgroup size"));
                    };
                    let ty = self.module.overrides[handle].ty;
                    if !matches!(self.module.types[ty].inner.scalar_kind(), Some(ScalarKind::Sint | ScalarKind::Uint)) {
                        return Err(Unsupported("workgroup size"));
                    }
                    overrides[i] = Some(self.append_global(Expression::Override(handle))?);
                }
                _ => return Err(Unsupported("workgroup size")),
            }
        }
        Ok((literal, overrides.iter().any(Option::is_some).then_some(overrides)))
    }

    /// Appends `expr` to the global expressions through naga's constant evaluator in an
    /// override context, as the front end's `append_expression`, and resolves the types of
    /// what it appended.
    fn append_global(&mut self, expr: Expression) -> Result<Handle<Expression>> {
        let handle =
            ConstantEvaluator::for_wgsl_module(&mut self.module, &mut self.globals.kinds, &mut self.layouter, true)
                .try_eval_and_append(expr, Span::UNDEFINED)
                .map_err(|_| Unsupported("constant evaluation"))?;
        let locals = naga::Arena::new();
        let resolve = ResolveContext::with_locals(&self.module, &locals, &[]);
        for new in self.module.global_expressions.range_from(self.globals.types.len()) {
            let types = &self.globals.types;
            let resolution = resolve
                .resolve(&self.module.global_expressions[new], |h| Ok(&types[h.index()]))
                .map_err(|_| Unsupported("type resolution"))?;
            self.globals.types.push(resolution);
        }
        Ok(handle)
    }
}
