//! The atomic builtins as naga's WGSL front end lowers them: a pointer to `atomic<T>`, then the
//! operands as `T`, then a statement (`Atomic`, or `Store` for `atomicStore`) whose result
//! expression stands outside any `Emit` range (see `mod.rs`).

use naga::{
    AtomicFunction, Block, Expression, Handle, PredeclaredType, Scalar, ScalarKind, Span, Statement, TypeInner,
};

use super::function::FunctionLowering;
use super::{Result, Unsupported};
use crate::wgsl::ast::Expr;

/// The read-modify-write builtins, each a value (its `AtomicResult`) as well as a statement.
const READ_MODIFY_WRITE: [(&str, AtomicFunction); 8] = [
    ("atomicAdd", AtomicFunction::Add),
    ("atomicSub", AtomicFunction::Subtract),
    ("atomicAnd", AtomicFunction::And),
    ("atomicOr", AtomicFunction::InclusiveOr),
    ("atomicXor", AtomicFunction::ExclusiveOr),
    ("atomicMin", AtomicFunction::Min),
    ("atomicMax", AtomicFunction::Max),
    ("atomicExchange", AtomicFunction::Exchange { compare: None }),
];

impl<'a> FunctionLowering<'_, 'a> {
    /// A call of a builtin whose name starts with `atomic`; `None` for `atomicStore`.
    pub(super) fn atomic(
        &mut self,
        callee: &str,
        args: &'a [Expr],
        block: &mut Block,
    ) -> Result<Option<Handle<Expression>>> {
        let (pointer, operands) = args.split_first().ok_or(Unsupported("atomic arguments"))?;
        let pointer = self.expression(pointer, block)?;
        let scalar = self.atomic_scalar(pointer)?;
        let (fun, value) = match (callee, operands) {
            ("atomicLoad", []) => return self.append(block, Expression::Load { pointer }).map(Some),
            ("atomicStore", [value]) => {
                let value = self.atomic_operand(value, scalar, block)?;
                self.split_emit_range(block);
                block.push(Statement::Store { pointer, value }, Span::UNDEFINED);
                return Ok(None);
            }
            ("atomicCompareExchangeWeak", [compare, value]) => {
                let compare = self.atomic_operand(compare, scalar, block)?;
                (AtomicFunction::Exchange { compare: Some(compare) }, self.atomic_operand(value, scalar, block)?)
            }
            (_, [value]) => {
                let (_, fun) =
                    READ_MODIFY_WRITE.iter().find(|(name, _)| *name == callee).ok_or(Unsupported("atomic builtin"))?;
                (*fun, self.atomic_operand(value, scalar, block)?)
            }
            _ => return Err(Unsupported("atomic arguments")),
        };
        // The result's type: the compare-exchange's predeclared struct (`old_value`, `exchanged`),
        // registered on its first use; else the value's type, registered as a `let`'s.
        let (ty, comparison) = match fun {
            AtomicFunction::Exchange { compare: Some(_) } => {
                let result = PredeclaredType::AtomicCompareExchangeWeakResult(scalar);
                (self.builder.module.generate_predeclared_type(result), true)
            }
            _ => (self.declared_type(value, None)?, false),
        };
        let result = self.interrupt(block, Expression::AtomicResult { ty, comparison })?;
        block.push(Statement::Atomic { pointer, fun, value, result: Some(result) }, Span::UNDEFINED);
        Ok(Some(result))
    }

    /// The scalar of the `atomic<T>` that `pointer` points to. 64-bit atomics, which the front
    /// end lowers otherwise as statements, are refused.
    fn atomic_scalar(&mut self, pointer: Handle<Expression>) -> Result<Scalar> {
        let TypeInner::Pointer { base, .. } = *self.resolve(pointer)? else {
            return Err(Unsupported("atomic of a non-pointer"));
        };
        match self.builder.module.types[base].inner {
            TypeInner::Atomic(scalar @ Scalar { kind: ScalarKind::Sint | ScalarKind::Uint, width: 4 }) => Ok(scalar),
            _ => Err(Unsupported("atomic type")),
        }
    }

    /// An operand of an atomic builtin, which must have the atomic's scalar type: the front end
    /// would convert only an abstract one, and this builder takes none.
    fn atomic_operand(&mut self, operand: &'a Expr, scalar: Scalar, block: &mut Block) -> Result<Handle<Expression>> {
        let operand = self.expression_for_abstract(operand, block)?;
        match *self.resolve(operand)? == TypeInner::Scalar(scalar) {
            true => Ok(operand),
            false => Err(Unsupported("atomic operand")),
        }
    }
}
