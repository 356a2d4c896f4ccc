//! Specialization constants in WGSL: an `override` declaration for each one that stays
//! overridable, and OpSpecConstantOp as an override expression over them. WGSL overrides are
//! scalars, so composites and operations are spelled out where they are used, except a scalar
//! operation that other constants read more than once or that ends a long chain of them: it gets
//! an `override` of its own, so that no spelling grows faster than the module.

use spirv::Op;

use super::emit::Emitter;
use crate::error::{Error, Location};
use crate::id_hash::{IdMap, IdSet};
use crate::ops::{self, Spelling};
use crate::passes::signedness::{computed, int_signedness, wanted};
use crate::spirv::{ConstValue, Def, Id, Module, Operand, Type};
use crate::wgsl::ast::{self, Attribute, BinaryOp, COMPONENTS, Expr, Literal};

/// How deep a constant's spelling may nest before a scalar operation in it gets a name: spelled
/// inline, a chain of operations recurses once per link.
const MAX_SPELLED_DEPTH: u32 = 32;

/// How many expression nodes a constant's spelling may have when no operation in it can be named
/// (vectors, composites), unless the module's constants are that large themselves: past this,
/// parts shared by reference would be copied out exponentially often.
const MAX_SPELLED_SIZE: u64 = 1 << 22;

/// The OpSpecConstantOp results that get an `override` of their own: scalars read more than
/// once by other constants (spelled inline, a chain that reads each link twice doubles at every
/// link) or ending a chain deeper than `MAX_SPELLED_DEPTH`. Refuses a constant whose spelling
/// would still be deeper or larger than the limits. One walk in declaration order, where every
/// constant comes after its parts.
pub(super) fn named_ops(module: &Module) -> Result<IdSet<Id>, Error> {
    let mut readers: IdMap<Id, u32> = IdMap::default();
    let mut all_parts: u64 = 0;
    for constant in module.declarations.iter().filter_map(|&id| module.constant(id)) {
        for part in constant.value.parts() {
            *readers.entry(part).or_default() += 1;
            all_parts += 1;
        }
    }
    // A large constant the module spells out part by part is no blow-up.
    let max_size = MAX_SPELLED_SIZE.max(4 * all_parts);
    // The depth and size of each constant's spelling, a named one counting as one name.
    let mut spelled: IdMap<Id, (u32, u64)> = IdMap::default();
    let mut named = IdSet::default();
    for &id in &module.declarations {
        let Some(constant) = module.constant(id) else { continue };
        if constant.spec_id.is_some() {
            continue;
        }
        let copies = spelled_copies(module, &constant.value);
        let (depth, size) = constant.value.parts().iter().zip(copies).fold((0u32, 1u64), |(depth, size), (part, n)| {
            let (d, s) = spelled.get(part).copied().unwrap_or((1, 1));
            (depth.max(d), size.saturating_add(s.saturating_mul(n)))
        });
        let depth = depth + 1;
        let is_op = matches!(constant.value, ConstValue::Op { .. });
        let scalar = module.scalar_of(constant.ty).is_some_and(|(_, count)| count == 1);
        let shared = readers.get(&id).is_some_and(|&n| n > 1);
        if is_op && scalar && (shared || depth > MAX_SPELLED_DEPTH || size > max_size) {
            named.insert(id);
            spelled.insert(id, (1, 1));
            continue;
        }
        // Composites nest no deeper than their types, which `load` bounds.
        if (is_op && depth > MAX_SPELLED_DEPTH) || size > max_size {
            return Err(Error::unsupported(
                format!(
                    "a constant whose parts reuse other constants so often or so deeply that it \
                     would be written out with more than {MAX_SPELLED_DEPTH} levels or {max_size} \
                     terms: only scalar specialization-constant operations get names of their own"
                ),
                at(id),
            ));
        }
        spelled.insert(id, (depth, size));
    }
    Ok(named)
}

/// How often the spelling of a constant writes out each of its parts: once, except in an
/// OpSMod (the remainder is written four times, the divisor in it and three more) and the
/// composite an OpCompositeInsert rebuilds, whose every part along the path is written.
fn spelled_copies(module: &Module, value: &ConstValue) -> impl Iterator<Item = u64> {
    let mut first_two = [1u64, 1];
    match value {
        ConstValue::Op { op: Op::SMod, .. } => first_two = [4, 7],
        ConstValue::Op { op: Op::CompositeInsert, operands } => {
            if let Some(Operand::IdRef(composite)) = operands.get(1)
                && let Ok(mut ty) = module.type_of(*composite)
            {
                for index in literals(operands, 2) {
                    first_two[1] = first_two[1].saturating_mul(u64::from(part_count(module, ty)));
                    ty = match module.type_def(ty) {
                        Some(Type::Struct { members }) => members.get(index as usize).copied().unwrap_or(ty),
                        Some(Type::Vector { component: inner, .. } | Type::Matrix { column: inner, .. }) => *inner,
                        Some(Type::Array { element, .. }) => *element,
                        _ => ty,
                    };
                }
            }
        }
        _ => {}
    }
    first_two.into_iter().chain(std::iter::repeat(1))
}

fn at(id: Id) -> Location {
    Location { result_id: Some(id), ..Location::default() }
}

fn id_at(operands: &[Operand], index: usize, id: Id) -> Result<Id, Error> {
    match operands.get(index) {
        Some(Operand::IdRef(operand)) => Ok(*operand),
        _ => Err(Error::invalid(format!("operand {index} of OpSpecConstantOp should be an id"), at(id))),
    }
}

/// The literal operands from `first` on (composite indices, shuffle components).
fn literals(operands: &[Operand], first: usize) -> impl Iterator<Item = u32> + '_ {
    operands.iter().skip(first).filter_map(|o| if let Operand::LiteralBit32(v) = o { Some(*v) } else { None })
}

/// How many members, elements, columns or components a composite type has.
fn part_count(module: &Module, ty: Id) -> u32 {
    match module.type_def(ty) {
        Some(Type::Struct { members }) => members.len() as u32,
        Some(Type::Vector { count, .. }) => *count,
        Some(Type::Matrix { columns, .. }) => *columns,
        Some(Type::Array { length, .. }) => module.const_u32(*length).unwrap_or(0),
        _ => 0,
    }
}

/// `T` with the other signedness, for a WGSL integer scalar or vector spelling.
pub(super) fn flip_signedness(spelled: &str, signed: bool) -> String {
    if signed { spelled.replace("u32", "i32") } else { spelled.replace("i32", "u32") }
}

impl Emitter<'_> {
    /// The `override` of a specialization constant, declared where it is first used.
    pub(super) fn override_ident(&mut self, id: Id) -> Result<Expr, Error> {
        if let Some(name) = self.overrides.get(&id) {
            return Ok(Expr::ident(name.clone()));
        }
        let module = self.module;
        let constant = module.constant(id).ok_or_else(|| Error::invalid(format!("%{id} is not a constant"), at(id)))?;
        let spec_id = constant.spec_id.unwrap_or_default();
        if let Some(&primary) = self.shared_spec_ids.get(&spec_id)
            && primary != id
        {
            return self.shared_spec_id_override(id, primary);
        }
        if spec_id > 0xffff {
            return Err(Error::unsupported(format!("SpecId {spec_id} is above 65535, the largest WGSL @id"), at(id)));
        }
        let ty = self.ty(constant.ty)?;
        if module.scalar_of(constant.ty).is_none_or(|(_, count)| count != 1) {
            return Err(Error::unsupported("a specialization constant that is not a scalar", at(id)));
        }
        let default = match &constant.value {
            ConstValue::Bool(b) => Expr::Literal(Literal::Bool(*b)),
            ConstValue::Scalar(bits) => {
                self.in_constant_expression = true;
                let default = self.constant_bits(constant.ty, *bits);
                self.in_constant_expression = false;
                default.map_err(|_| {
                    Error::unsupported(
                        "a specialization constant whose default is infinite or NaN: an override's default \
                         must be a finite value in WGSL",
                        at(id),
                    )
                })?
            }
            _ => self.zero(constant.ty)?,
        };
        let base = self.override_base_name(id).unwrap_or_default();
        Ok(self.declare_override(id, &base, vec![Attribute::Id(spec_id)], ty, default))
    }

    /// The name an `override` for constant `id` takes, if it gets one: its OpName, or else
    /// `spec_constant_ID` or `spec_op_ID`.
    pub(super) fn override_base_name(&self, id: Id) -> Option<String> {
        let module = self.module;
        let base = match module.constant(id)? {
            constant if constant.spec_id.is_some() => format!("spec_constant_{}", constant.spec_id.unwrap_or_default()),
            _ if self.named_spec_ops.contains(&id) => format!("spec_op_{id}"),
            _ => return None,
        };
        Some(module.name(id).map_or(base, str::to_string))
    }

    /// Declares `id`'s `override`, named `base`; returns its name.
    pub(super) fn declare_override(
        &mut self,
        id: Id,
        base: &str,
        attributes: Vec<Attribute>,
        ty: ast::Type,
        init: Expr,
    ) -> Expr {
        let name = self.module_name(id, base);
        self.overrides.insert(id, name.clone());
        self.override_names.insert(name.clone());
        let kind = ast::GlobalKind::Override;
        self.out.globals.push(ast::Global { attributes, kind, name: name.clone(), ty: Some(ty), init: Some(init) });
        Expr::ident(name)
    }

    /// A scalar OpSpecConstantOp with an `override` of its own (`named_ops`), declared on first
    /// use with the operation as its initializer.
    pub(super) fn named_spec_op(&mut self, id: Id) -> Result<Expr, Error> {
        if let Some(name) = self.overrides.get(&id) {
            return Ok(Expr::ident(name.clone()));
        }
        // The named operations it reads are declared first, those they read before them: one
        // declared inside the spelling of another would recurse once per link of a long chain.
        let module = self.module;
        let mut first = Vec::new();
        let mut seen = IdSet::default();
        let mut stack = vec![(id, false)];
        while let Some((constant, expanded)) = stack.pop() {
            if expanded {
                if constant != id && self.named_spec_ops.contains(&constant) {
                    first.push(constant);
                }
                continue;
            }
            if self.overrides.contains_key(&constant) || !seen.insert(constant) {
                continue;
            }
            stack.push((constant, true));
            let value = module.constant(constant).map(|c| &c.value);
            stack.extend(value.map(ConstValue::parts).unwrap_or_default().into_iter().map(|part| (part, false)));
        }
        for constant in first {
            self.declare_named_spec_op(constant)?;
        }
        self.declare_named_spec_op(id)
    }

    /// Declares the `override` of a named OpSpecConstantOp whose named parts are declared.
    fn declare_named_spec_op(&mut self, id: Id) -> Result<Expr, Error> {
        let module = self.module;
        let Some(ConstValue::Op { op, operands }) = module.constant(id).map(|c| &c.value) else {
            return Err(Error::internal(format!("%{id} is not an OpSpecConstantOp")));
        };
        let ty = module.type_of(id)?;
        let outer = std::mem::replace(&mut self.in_constant_expression, true);
        let init = self.spec_op(id, ty, *op, operands);
        self.in_constant_expression = outer;
        let init = init?;
        let spelled_ty = self.ty(ty)?;
        let base = self.override_base_name(id).unwrap_or_default();
        Ok(self.declare_override(id, &base, vec![], spelled_ty, init))
    }

    /// An OpSpecConstantOp that depends on an `override`, as an override expression.
    pub(super) fn spec_op(&mut self, id: Id, ty: Id, op: Op, operands: &[Operand]) -> Result<Expr, Error> {
        let module = self.module;
        // The operations below give a value of their operand's type, whose signedness the
        // `signedness` pass may have changed in the declared type (an OpSpecConstantOp read
        // through an OpBitcast takes the bitcast's type): converted to it then.
        let (expr, signed) = match op {
            Op::CompositeExtract => {
                let composite = id_at(operands, 0, id)?;
                let (mut expr, mut part_ty) = (self.constant(composite)?, module.type_of(composite)?);
                for index in literals(operands, 1) {
                    (expr, part_ty) = self.part(expr, part_ty, index, id)?;
                }
                (expr, int_signedness(module, part_ty))
            }
            Op::CompositeInsert => {
                let object = self.constant(id_at(operands, 0, id)?)?;
                let composite = id_at(operands, 1, id)?;
                let base = self.constant(composite)?;
                let path: Vec<u32> = literals(operands, 2).collect();
                let composite_ty = module.type_of(composite)?;
                (self.inserted(base, composite_ty, &path, object, id)?, int_signedness(module, composite_ty))
            }
            Op::VectorShuffle => {
                let (a, b) = (id_at(operands, 0, id)?, id_at(operands, 1, id)?);
                let first_len = module.scalar_of(module.type_of(a)?).map_or(1, |(_, n)| n);
                let second_len = module.scalar_of(module.type_of(b)?).map_or(1, |(_, n)| n);
                if literals(operands, 2).any(|c| c != u32::MAX && c >= first_len + second_len) {
                    return Err(Error::invalid("a shuffle component beyond both vectors", at(id)));
                }
                let signed = int_signedness(module, module.type_of(a)?);
                let (a, b) = (self.constant(a)?, self.constant(b)?);
                // Each run of components from one operand is one swizzle of it.
                let mut runs: Vec<(bool, String)> = Vec::new();
                for c in literals(operands, 2) {
                    // 0xFFFFFFFF selects an undefined component: any will do.
                    let c = if c == u32::MAX { 0 } else { c };
                    let (second, index) = if c < first_len { (false, c) } else { (true, c - first_len) };
                    let component = COMPONENTS[index as usize % 4];
                    match runs.last_mut() {
                        Some((run_second, swizzle)) if *run_second == second => swizzle.push_str(component),
                        _ => runs.push((second, component.to_string())),
                    }
                }
                let mut parts: Vec<Expr> = runs
                    .into_iter()
                    .map(|(second, swizzle)| Expr::member(if second { b.clone() } else { a.clone() }, swizzle))
                    .collect();
                let expr = match parts.len() {
                    1 => parts.remove(0),
                    _ => {
                        let spelled = self.ty(ty)?;
                        let natural = signed.map_or(spelled.to_string(), |signed| flip_signedness(&spelled, signed));
                        Expr::call(natural, parts)
                    }
                };
                (expr, signed)
            }
            Op::Select => {
                let condition = self.constant(id_at(operands, 0, id)?)?;
                let accept_id = id_at(operands, 1, id)?;
                let accept = self.constant(accept_id)?;
                let reject = self.constant(id_at(operands, 2, id)?)?;
                let signed = int_signedness(module, module.type_of(accept_id)?);
                (Expr::call("select", vec![reject, accept, condition]), signed)
            }
            // Made by `spec_constants` for a part of a composite that is an `override`.
            Op::CopyObject => {
                let operand = id_at(operands, 0, id)?;
                (self.constant(operand)?, int_signedness(module, module.type_of(operand)?))
            }
            Op::SMod => return self.spec_smod(id, ty, operands),
            Op::QuantizeToF16 => {
                return Ok(Expr::call("quantizeToF16", vec![self.constant(id_at(operands, 0, id)?)?]));
            }
            Op::UConvert | Op::SConvert | Op::FConvert => {
                let value = self.constant(id_at(operands, 0, id)?)?;
                return Ok(Expr::call(self.ty(ty)?, vec![value]));
            }
            _ => return self.spec_operation(id, ty, op, operands),
        };
        match signed {
            Some(signed) if int_signedness(module, ty) != Some(signed) => Ok(Expr::call(self.ty(ty)?, vec![expr])),
            _ => Ok(expr),
        }
    }

    /// Member, element, column or component `index` of `base`, a constant expression of type
    /// `ty`, with its type.
    fn part(&mut self, base: Expr, ty: Id, index: u32, id: Id) -> Result<(Expr, Id), Error> {
        if index >= part_count(self.module, ty) {
            return Err(Error::invalid(format!("composite index {index} is out of bounds"), at(id)));
        }
        Ok(match self.module.ty(ty)? {
            Type::Struct { members } => {
                let member = *members.get(index as usize).ok_or_else(|| Error::invalid("no such member", at(id)))?;
                (Expr::member(base, self.member_name(ty, index)?), member)
            }
            Type::Vector { component, .. } => (Expr::member(base, COMPONENTS[index as usize % 4]), *component),
            Type::Array { element: inner, .. } | Type::Matrix { column: inner, .. } => {
                (Expr::index(base, Expr::Literal(Literal::Abstract(i64::from(index)))), *inner)
            }
            _ => return Err(Error::invalid("composite index into a non-composite", at(id))),
        })
    }

    /// `base` (of type `ty`) with the part at `path` replaced by `object`, rebuilt from its parts.
    fn inserted(&mut self, base: Expr, ty: Id, path: &[u32], object: Expr, id: Id) -> Result<Expr, Error> {
        let Some((&first, rest)) = path.split_first() else { return Ok(object) };
        let mut parts = Vec::new();
        for index in 0..part_count(self.module, ty) {
            let (part, part_ty) = self.part(base.clone(), ty, index, id)?;
            parts.push(if index == first { self.inserted(part, part_ty, rest, object.clone(), id)? } else { part });
        }
        Ok(Expr::call(self.ty(ty)?, parts))
    }

    /// OpSMod: the remainder takes the divisor's sign, `select(r, r + y, r != 0 && (r < 0) != (y < 0))`
    /// with `r` the truncating remainder, all in signed integers.
    fn spec_smod(&mut self, id: Id, ty: Id, operands: &[Operand]) -> Result<Expr, Error> {
        let module = self.module;
        // Conversions, not `bitcast`s, as in `spec_operation`: naga's override evaluation cannot
        // compute a `bitcast`.
        let signed_ty = flip_signedness(&self.ty(ty)?, true);
        let as_signed = |expr: Expr, of: Id| match int_signedness(module, of) {
            Some(false) => Expr::call(signed_ty.as_str(), vec![expr]),
            _ => expr,
        };
        let divisor = id_at(operands, 1, id)?;
        let r = as_signed(self.spec_operation(id, ty, Op::SRem, operands)?, ty);
        let y = as_signed(self.constant(divisor)?, module.type_of(divisor)?);
        let zero = Expr::call(signed_ty.as_str(), vec![]);
        let and = if module.scalar_of(ty).is_some_and(|(_, n)| n > 1) { BinaryOp::And } else { BinaryOp::LogicalAnd };
        let signs_differ = Expr::binary(
            BinaryOp::NotEqual,
            Expr::binary(BinaryOp::Less, r.clone(), zero.clone()),
            Expr::binary(BinaryOp::Less, y.clone(), zero.clone()),
        );
        let fix = Expr::binary(and, Expr::binary(BinaryOp::NotEqual, r.clone(), zero), signs_differ);
        let expr = Expr::call("select", vec![r.clone(), Expr::binary(BinaryOp::Add, r, y), fix]);
        match int_signedness(module, ty) {
            Some(false) => Ok(Expr::call(self.ty(ty)?, vec![expr])),
            _ => Ok(expr),
        }
    }

    /// An arithmetic, bitwise, logical or comparison operation, with its integer operands read
    /// with the signedness the opcode says.
    fn spec_operation(&mut self, id: Id, ty: Id, op: Op, operands: &[Operand]) -> Result<Expr, Error> {
        let module = self.module;
        let row = ops::core_row(op).ok_or_else(|| {
            Error::unsupported(format!("OpSpecConstantOp with Op{op:?} has no WGSL override expression"), at(id))
        })?;
        let result_signed = int_signedness(module, ty);
        let ids = (0..operands.len()).map(|i| id_at(operands, i, id)).collect::<Result<Vec<_>, _>>()?;
        let first_signed = ids.first().and_then(|&a| module.value_type(a)).and_then(|t| int_signedness(module, t));
        let mut args = Vec::with_capacity(ids.len());
        for (position, &arg) in ids.iter().enumerate() {
            let arg_ty = module.type_of(arg)?;
            let mut expr = self.constant(arg)?;
            if let Some(have) = int_signedness(module, arg_ty) {
                let want = wanted(row.int.operand(position), have, result_signed, first_signed);
                // A conversion, not `bitcast`: the same bits between 32-bit integers, and one naga's
                // override evaluation (wgpu's pipeline creation) can compute.
                if want != have {
                    expr = Expr::call(flip_signedness(&self.ty(arg_ty)?, want), vec![expr]);
                }
            }
            args.push(expr);
        }
        let vector = matches!(module.ty(ty)?, Type::Vector { .. });
        let mut expr = match row.spelling {
            // `a << s` loses bits for some values the overrides may take, which WGSL rejects at
            // pipeline creation where SPIR-V drops them; `a * (1u << s)` wraps as SPIR-V does.
            Spelling::Binary(BinaryOp::ShiftLeft) if args.len() == 2 => {
                let shift = args.pop().unwrap_or(Expr::Literal(Literal::Abstract(0)));
                let base = args.pop().unwrap_or(Expr::Literal(Literal::Abstract(0)));
                let spelled = self.ty(ty)?;
                let signed = result_signed == Some(true);
                let power = match shift {
                    // A constant amount: the power itself.
                    Expr::Literal(Literal::U32(n)) if !vector && n < 31 => {
                        Expr::Literal(if signed { Literal::I32(1 << n) } else { Literal::U32(1 << n) })
                    }
                    shift => {
                        let one = Expr::Literal(Literal::U32(1));
                        let one = if vector { Expr::call(flip_signedness(&spelled, false), vec![one]) } else { one };
                        let power = Expr::binary(BinaryOp::ShiftLeft, one, shift);
                        if signed { Expr::call(spelled, vec![power]) } else { power }
                    }
                };
                Expr::binary(BinaryOp::Multiply, base, power)
            }
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
            expr = Expr::call(self.ty(ty)?, vec![expr]);
        }
        Ok(expr)
    }

    /// Whether `name` is a declared `override`'s.
    pub(super) fn is_override(&self, name: &str) -> bool {
        self.override_names.contains(name)
    }

    /// Whether a constant depends on a WGSL `override` (so it cannot be a `const` expression).
    pub(super) fn is_override_expression(&self, id: Id) -> bool {
        is_override_expression(self.module, id)
    }
}

/// Whether constant `id` depends on a specialization constant: its WGSL is an override
/// expression, evaluated when the pipeline is created.
pub(super) fn is_override_expression(module: &Module, id: Id) -> bool {
    match module.def(id) {
        Def::Constant(c) => {
            c.spec_id.is_some()
                || match &c.value {
                    ConstValue::Op { .. } => true,
                    ConstValue::Composite(parts) => parts.iter().any(|&p| is_override_expression(module, p)),
                    _ => false,
                }
        }
        _ => false,
    }
}
