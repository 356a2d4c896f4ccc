//! Specialization constants in WGSL: an `override` declaration for each one that stays
//! overridable, and OpSpecConstantOp as an override expression over them. WGSL overrides are
//! scalars, so composites and operations are spelled out where they are used.

use spirv::Op;

use super::ast::{self, Attribute, BinaryOp, Expr, Literal};
use super::emit::Emitter;
use super::function::COMPONENTS;
use crate::error::{Error, Location};
use crate::ops::{self, Spelling};
use crate::passes::signedness::{computed, int_signedness, wanted};
use crate::spirv::{ConstValue, Def, Id, Operand, Type};

fn at(id: Id) -> Location {
    Location {
        result_id: Some(id),
        ..Location::default()
    }
}

fn id_at(operands: &[Operand], index: usize, id: Id) -> Result<Id, Error> {
    match operands.get(index) {
        Some(Operand::IdRef(operand)) => Ok(*operand),
        _ => Err(Error::invalid(
            format!("operand {index} of OpSpecConstantOp should be an id"),
            at(id),
        )),
    }
}

/// `T` with the other signedness, for a WGSL integer scalar or vector spelling.
pub(super) fn flip_signedness(spelled: &str, signed: bool) -> String {
    if signed {
        spelled.replace("u32", "i32")
    } else {
        spelled.replace("i32", "u32")
    }
}

impl Emitter<'_> {
    /// The `override` of a specialization constant, declared where it is first used.
    pub(super) fn override_ident(&mut self, id: Id) -> Result<Expr, Error> {
        if let Some(name) = self.overrides.get(&id) {
            return Ok(Expr::ident(name.clone()));
        }
        let module = self.module;
        let constant = module
            .constant(id)
            .ok_or_else(|| Error::invalid(format!("%{id} is not a constant"), at(id)))?;
        let spec_id = constant.spec_id.unwrap_or_default();
        if spec_id > 0xffff {
            return Err(Error::unsupported(
                format!("SpecId {spec_id} is above 65535, the largest WGSL @id"),
                at(id),
            ));
        }
        let ty = self.ty(constant.ty)?;
        if module
            .scalar_of(constant.ty)
            .is_none_or(|(_, count)| count != 1)
        {
            return Err(Error::unsupported(
                "a specialization constant that is not a scalar",
                at(id),
            ));
        }
        let default = match &constant.value {
            ConstValue::Bool(b) => Expr::Literal(Literal::Bool(*b)),
            ConstValue::Scalar(bits) => self.constant_bits(constant.ty, *bits)?,
            _ => Expr::call(ty.clone(), vec![]),
        };
        let base = module
            .name(id)
            .map(str::to_string)
            .unwrap_or_else(|| format!("spec_constant_{spec_id}"));
        let name = self.namer.fresh(&base, None);
        self.overrides.insert(id, name.clone());
        self.out.globals.push(ast::Global {
            attributes: vec![Attribute::Id(spec_id)],
            kind: ast::GlobalKind::Override,
            name: name.clone(),
            ty: Some(ty),
            init: Some(default),
        });
        Ok(Expr::ident(name))
    }

    /// An OpSpecConstantOp that depends on an `override`, as an override expression.
    pub(super) fn spec_op(
        &mut self,
        id: Id,
        ty: Id,
        op: Op,
        operands: &[Operand],
    ) -> Result<Expr, Error> {
        let module = self.module;
        match op {
            Op::CompositeExtract => {
                let mut base_ty = module.type_of(id_at(operands, 0, id)?)?;
                let mut expr = self.constant(id_at(operands, 0, id)?)?;
                for operand in &operands[1..] {
                    let Operand::LiteralBit32(index) = operand else {
                        continue;
                    };
                    (expr, base_ty) = match module.ty(base_ty)? {
                        Type::Struct { members } => {
                            let member = *members
                                .get(*index as usize)
                                .ok_or_else(|| Error::invalid("no such member", at(id)))?;
                            (
                                Expr::member(expr, self.member_name(base_ty, *index)?),
                                member,
                            )
                        }
                        Type::Vector { component, .. } => (
                            Expr::member(expr, COMPONENTS[*index as usize % 4]),
                            *component,
                        ),
                        Type::Array { element: inner, .. } | Type::Matrix { column: inner, .. } => {
                            (
                                Expr::index(
                                    expr,
                                    Expr::Literal(Literal::Abstract(i64::from(*index))),
                                ),
                                *inner,
                            )
                        }
                        _ => {
                            return Err(Error::invalid(
                                "composite index into a non-composite",
                                at(id),
                            ));
                        }
                    };
                }
                Ok(expr)
            }
            Op::VectorShuffle => {
                let (a, b) = (id_at(operands, 0, id)?, id_at(operands, 1, id)?);
                let first_len = module.scalar_of(module.type_of(a)?).map_or(1, |(_, n)| n);
                let (a, b) = (self.constant(a)?, self.constant(b)?);
                let mut parts = Vec::new();
                for operand in &operands[2..] {
                    let Operand::LiteralBit32(c) = operand else {
                        continue;
                    };
                    // 0xFFFFFFFF selects an undefined component: any will do.
                    let c = if *c == u32::MAX { 0 } else { *c };
                    let (source, index) = if c < first_len {
                        (&a, c)
                    } else {
                        (&b, c - first_len)
                    };
                    parts.push(Expr::member(source.clone(), COMPONENTS[index as usize % 4]));
                }
                Ok(Expr::call(self.ty(ty)?, parts))
            }
            Op::Select => {
                let condition = self.constant(id_at(operands, 0, id)?)?;
                let accept = self.constant(id_at(operands, 1, id)?)?;
                let reject = self.constant(id_at(operands, 2, id)?)?;
                Ok(Expr::call("select", vec![reject, accept, condition]))
            }
            Op::QuantizeToF16 => Ok(Expr::call(
                "quantizeToF16",
                vec![self.constant(id_at(operands, 0, id)?)?],
            )),
            Op::UConvert | Op::SConvert | Op::FConvert => {
                let value = self.constant(id_at(operands, 0, id)?)?;
                Ok(Expr::call(self.ty(ty)?, vec![value]))
            }
            _ => self.spec_operation(id, ty, op, operands),
        }
    }

    /// An arithmetic, bitwise, logical or comparison operation, with its integer operands read
    /// with the signedness the opcode says.
    fn spec_operation(
        &mut self,
        id: Id,
        ty: Id,
        op: Op,
        operands: &[Operand],
    ) -> Result<Expr, Error> {
        let module = self.module;
        let row = ops::core_row(op).ok_or_else(|| {
            Error::unsupported(
                format!("OpSpecConstantOp with Op{op:?} has no WGSL override expression"),
                at(id),
            )
        })?;
        let result_signed = int_signedness(module, ty);
        let ids = (0..operands.len())
            .map(|i| id_at(operands, i, id))
            .collect::<Result<Vec<_>, _>>()?;
        let first_signed = ids
            .first()
            .and_then(|&a| module.type_of(a).ok())
            .and_then(|t| int_signedness(module, t));
        let mut args = Vec::with_capacity(ids.len());
        for (position, &arg) in ids.iter().enumerate() {
            let arg_ty = module.type_of(arg)?;
            let mut expr = self.constant(arg)?;
            if let Some(have) = int_signedness(module, arg_ty) {
                let want = wanted(row.int.operand(position), have, result_signed, first_signed);
                if want != have {
                    expr = Expr::call(
                        format!("bitcast<{}>", flip_signedness(&self.ty(arg_ty)?, want)),
                        vec![expr],
                    );
                }
            }
            args.push(expr);
        }
        let vector = matches!(module.ty(ty)?, Type::Vector { .. });
        let mut expr = match row.spelling {
            Spelling::Binary(op) if args.len() == 2 => {
                // `&&` and `||` are for scalars; vectors of bool use `&` and `|`.
                let op = match op {
                    BinaryOp::LogicalAnd if vector => BinaryOp::And,
                    BinaryOp::LogicalOr if vector => BinaryOp::Or,
                    op => op,
                };
                let right = args.pop().unwrap_or(Expr::Literal(Literal::Abstract(0)));
                let left = args.pop().unwrap_or(Expr::Literal(Literal::Abstract(0)));
                Expr::binary(op, left, right)
            }
            Spelling::Unary(op) if args.len() == 1 => Expr::unary(op, args.remove(0)),
            Spelling::Builtin(name) => Expr::call(name, args),
            _ => {
                return Err(Error::unsupported(
                    format!("OpSpecConstantOp with Op{op:?} has no WGSL override expression"),
                    at(id),
                ));
            }
        };
        // The signedness WGSL computes the result in, when the opcode fixes it.
        if let (Some(computed), Some(declared)) = (computed(row.int), result_signed)
            && computed != declared
        {
            expr = self.bitcast(ty, expr)?;
        }
        Ok(expr)
    }

    /// Whether a constant depends on a WGSL `override` (so it cannot be a `const` expression).
    pub(super) fn is_override_expression(&self, id: Id) -> bool {
        match self.module.def(id) {
            Def::Constant(c) => {
                c.spec_id.is_some()
                    || match &c.value {
                        ConstValue::Op { .. } => true,
                        ConstValue::Composite(parts) => {
                            parts.iter().any(|&p| self.is_override_expression(p))
                        }
                        _ => false,
                    }
            }
            _ => false,
        }
    }
}
