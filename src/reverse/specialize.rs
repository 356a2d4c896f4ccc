//! WGSL `override`s, second half: the placeholders [`super::overrides`] left in naga's SPIR-V
//! become specialization constants.
//!
//! - A settable override is `OpSpecConstant` (`OpSpecConstantTrue`/`False` for `bool`) with its
//!   default and its `SpecId`.
//! - An override computed from others, and a `private` variable's initializer computed from
//!   overrides, is written from the original expression: `OpSpecConstantOp` for each operation,
//!   `OpSpecConstantComposite` for each composite. SPIR-V allows only some operations there for
//!   shaders (integer, logical and bit operations, `OpSelect`, `OpFConvert`, `OpQuantizeToF16`,
//!   composite ones): any other is an error naming the override.
//! - A workgroup size from overrides is `LocalSizeId` from SPIR-V 1.6 on (Vulkan 1.3, where
//!   `maintenance4` allows it), and before that the `WorkgroupSize` builtin, a module-wide
//!   constant: then every compute entry point must have the same size.
//! - An array whose length is an override takes the specialization constant as its length.
//! - A constant composite naga wrote with a placeholder inside (a vector of overrides in a
//!   function) becomes `OpSpecConstantComposite`.
//!
//! Before: naga's module with the placeholders. After: no placeholder; declarations in an order
//! SPIR-V accepts.

use std::collections::{HashMap, HashSet};

use naga::{BinaryOperator as BinaryOp, Expression, Handle, ScalarKind, TypeInner, UnaryOperator};
use rspirv::dr::{Instruction, Module, Operand};
use spirv::{BuiltIn, Decoration, ExecutionMode, Op, Word};

use super::declarations::{self, Scalar};
use super::error::Error;
use super::module_edit::{decorate, global_def};
use super::overrides::{Dimension, Placeholder, Specialization, Value, placeholder_bits};

/// SPIR-V 1.6, from which on a workgroup size is `LocalSizeId`.
const LOCAL_SIZE_ID_FROM: u32 = 0x0001_0600;

pub fn run(module: &mut Module, specialization: &Specialization) -> Result<(), Error> {
    let placeholders = find_placeholders(module, specialization.placeholders.len());
    let mut writer = Writer { module, specialization, ids: HashMap::new(), overrides: HashMap::new() };
    for (index, &id) in placeholders.iter().enumerate() {
        let (Some(id), Placeholder::Override(item)) = (id, &specialization.placeholders[index]) else {
            continue;
        };
        writer.overrides.insert(*item, id);
    }
    // Settable overrides first: computed ones read them.
    for (item, described) in specialization.overrides.iter().enumerate() {
        let (Some(&id), Value::Settable { spec_id, default, .. }) = (writer.overrides.get(&item), &described.value)
        else {
            continue;
        };
        writer.settable(id, described.scalar, *spec_id, *default)?;
    }
    let mut replaced = Vec::new();
    for (index, placeholder) in specialization.placeholders.iter().enumerate() {
        let Some(id) = placeholders[index] else { continue };
        let value = match *placeholder {
            Placeholder::Override(item) => match specialization.overrides[item].value {
                Value::Computed(expression) => writer.overridden(item, expression)?,
                Value::Settable { .. } => continue,
            },
            Placeholder::Initializer(expression) => {
                let ty = writer.initialized_type(id)?;
                writer.expression(expression, Some(ty))?
            }
        };
        replaced.push((id, value));
    }
    for (placeholder, value) in replaced {
        writer.module.types_global_values.retain(|inst| inst.result_id != Some(placeholder));
        declarations::replace_uses(writer.module, placeholder, value);
        writer.overrides.values_mut().filter(|id| **id == placeholder).for_each(|id| *id = value);
    }
    writer.workgroup_sizes()?;
    writer.array_lengths()?;
    declarations::sort(writer.module);
    promote_composites(writer.module);
    Ok(())
}

/// The id of each placeholder's constant, where naga wrote one.
fn find_placeholders(module: &Module, count: usize) -> Vec<Option<Word>> {
    let float = module.types_global_values.iter().find_map(|inst| {
        (inst.class.opcode == Op::TypeFloat && inst.operands == [Operand::LiteralBit32(32)]).then_some(inst.result_id?)
    });
    let mut found = vec![None; count];
    for inst in &module.types_global_values {
        let (Op::Constant, Some(ty), [Operand::LiteralBit32(bits)]) =
            (inst.class.opcode, inst.result_type, inst.operands.as_slice())
        else {
            continue;
        };
        let index = bits.wrapping_sub(placeholder_bits(0)) as usize;
        if Some(ty) == float && index < count {
            found[index] = inst.result_id;
        }
    }
    found
}

struct Writer<'a> {
    module: &'a mut Module,
    specialization: &'a Specialization,
    /// The id written for each expression of the original module.
    ids: HashMap<Handle<Expression>, Word>,
    /// The id of each override's value, by index.
    overrides: HashMap<usize, Word>,
}

impl Writer<'_> {
    fn name_of(&self, item: usize) -> String {
        let name = self.specialization.overrides[item].name.as_deref();
        name.map_or_else(|| "an array length".to_string(), |name| format!("override `{name}`"))
    }

    /// The placeholder `id` becomes `OpSpecConstant` with `default` and `SpecId spec_id`.
    fn settable(
        &mut self,
        id: Word,
        scalar: naga::Scalar,
        spec_id: u32,
        default: Option<naga::Literal>,
    ) -> Result<(), Error> {
        let ty = declarations::scalar_type(self.module, Scalar::of(scalar)?)?;
        let value = default.or_else(|| naga::Literal::zero(scalar)).ok_or_else(|| Error::internal("no zero"))?;
        let (opcode, operands) = match declarations::literal(value)? {
            (Op::ConstantTrue, operands) => (Op::SpecConstantTrue, operands),
            (Op::ConstantFalse, operands) => (Op::SpecConstantFalse, operands),
            (_, operands) => (Op::SpecConstant, operands),
        };
        let at = self.position(id)?;
        self.module.types_global_values[at] = Instruction::new(opcode, Some(ty), Some(id), operands);
        let mut spec = decorate(id, Decoration::SpecId);
        spec.operands.push(Operand::LiteralBit32(spec_id));
        self.module.annotations.push(spec);
        Ok(())
    }

    fn position(&self, id: Word) -> Result<usize, Error> {
        let found = self.module.types_global_values.iter().position(|inst| inst.result_id == Some(id));
        found.ok_or_else(|| Error::internal(format!("%{id} is not declared")))
    }

    /// The value of override `item`, computed by `expression`.
    fn overridden(&mut self, item: usize, expression: Handle<Expression>) -> Result<Word, Error> {
        self.expression(expression, None).map_err(|error| match error {
            Error::Unsupported { message } => Error::unsupported(format!("{}: {message}", self.name_of(item))),
            other => other,
        })
    }

    /// The pointee type of the variable whose initializer is `placeholder`.
    fn initialized_type(&self, placeholder: Word) -> Result<Word, Error> {
        let variable = self.module.types_global_values.iter().find(|inst| {
            inst.class.opcode == Op::Variable && inst.operands.get(1) == Some(&Operand::IdRef(placeholder))
        });
        let pointer = variable.and_then(|inst| global_def(self.module, inst.result_type?));
        match pointer.map(|inst| inst.operands.as_slice()) {
            Some([_, Operand::IdRef(pointee)]) => Ok(*pointee),
            _ => Err(Error::internal(format!("no variable is initialized with placeholder %{placeholder}"))),
        }
    }

    /// The SPIR-V type of `expression`'s value, or `hint` for a struct or an array.
    fn type_of(&mut self, expression: Handle<Expression>, hint: Option<Word>) -> Result<Word, Error> {
        match (&self.specialization.types[expression.index()], hint) {
            (TypeInner::Scalar(_) | TypeInner::Vector { .. } | TypeInner::Matrix { .. }, _) => {
                let inner = self.specialization.types[expression.index()].clone();
                declarations::value_type(self.module, &inner)
            }
            (_, Some(hint)) => Ok(hint),
            (other, None) => Err(Error::unsupported(format!("a {other:?} computed from overrides"))),
        }
    }

    /// The constituent types of a struct, array, matrix or vector type.
    fn constituent_types(&self, ty: Word, count: usize) -> Vec<Word> {
        let Some(inst) = global_def(self.module, ty) else {
            return Vec::new();
        };
        match inst.class.opcode {
            Op::TypeStruct => inst.operands.iter().filter_map(Operand::id_ref_any).collect(),
            Op::TypeArray | Op::TypeVector | Op::TypeMatrix => {
                inst.operands.first().and_then(Operand::id_ref_any).map_or_else(Vec::new, |e| vec![e; count])
            }
            _ => Vec::new(),
        }
    }

    /// Writes `expression` of the original module (with `hint` as its type where it is a struct
    /// or an array); returns its id.
    fn expression(&mut self, expression: Handle<Expression>, hint: Option<Word>) -> Result<Word, Error> {
        if let Some(&id) = self.ids.get(&expression) {
            return Ok(id);
        }
        let ty = self.type_of(expression, hint)?;
        let original = &self.specialization.original;
        let id = match original.global_expressions[expression].clone() {
            Expression::Literal(value) => {
                let (opcode, operands) = declarations::literal(value)?;
                declarations::constant(self.module, opcode, ty, operands)?
            }
            Expression::ZeroValue(_) => declarations::constant(self.module, Op::ConstantNull, ty, Vec::new())?,
            Expression::Constant(constant) => self.expression(original.constants[constant].init, hint)?,
            Expression::Override(item) => match self.overrides.get(&item.index()) {
                Some(&id) => id,
                None => {
                    let Some(Value::Computed(init)) = self.specialization.overrides.get(item.index()).map(|o| &o.value)
                    else {
                        return Err(Error::internal("an override naga wrote no placeholder for"));
                    };
                    let id = self.overridden(item.index(), *init)?;
                    self.overrides.insert(item.index(), id);
                    id
                }
            },
            Expression::Compose { components, .. } => {
                let types = self.constituent_types(ty, components.len());
                let mut ids = Vec::new();
                for (i, component) in components.iter().enumerate() {
                    ids.push(self.expression(*component, types.get(i).copied())?);
                }
                self.composite(ty, ids)?
            }
            Expression::Splat { size, value } => {
                let value = self.expression(value, None)?;
                self.composite(ty, vec![value; size as usize])?
            }
            Expression::Swizzle { size, vector, pattern } => {
                let vector = self.expression(vector, None)?;
                let mut operands = vec![Operand::IdRef(vector), Operand::IdRef(vector)];
                operands.extend(pattern[..size as usize].iter().map(|&c| Operand::LiteralBit32(c as u32)));
                self.operation(ty, Op::VectorShuffle, operands)?
            }
            Expression::AccessIndex { base, index } => {
                let base = self.expression(base, None)?;
                self.operation(ty, Op::CompositeExtract, vec![Operand::IdRef(base), Operand::LiteralBit32(index)])?
            }
            Expression::Access { base, index } if !self.specialization.dependent[index.index()] => {
                let index = match super::overrides::constant_value(original, index)? {
                    naga::Literal::U32(i) => i,
                    naga::Literal::I32(i) => i as u32,
                    other => return Err(Error::internal(format!("an index of {other:?}"))),
                };
                let base = self.expression(base, None)?;
                self.operation(ty, Op::CompositeExtract, vec![Operand::IdRef(base), Operand::LiteralBit32(index)])?
            }
            Expression::Unary { op, expr } => {
                let kind = self.scalar_kind(expr);
                let opcode = match (op, kind) {
                    (UnaryOperator::Negate, ScalarKind::Sint) => Op::SNegate,
                    (UnaryOperator::BitwiseNot, ScalarKind::Sint | ScalarKind::Uint) => Op::Not,
                    (UnaryOperator::LogicalNot, ScalarKind::Bool) => Op::LogicalNot,
                    _ => return Err(not_allowed(&format!("{op:?} on {kind:?}"))),
                };
                let operand = self.expression(expr, None)?;
                self.operation(ty, opcode, vec![Operand::IdRef(operand)])?
            }
            Expression::Binary { op, left, right } => self.binary(ty, op, left, right)?,
            Expression::Select { condition, accept, reject } => {
                let scalar_condition = matches!(self.specialization.types[condition.index()], TypeInner::Scalar(_));
                let mut condition = self.expression(condition, None)?;
                if let TypeInner::Vector { size, .. } = self.specialization.types[accept.index()]
                    && scalar_condition
                {
                    // Before SPIR-V 1.4 a vector selection takes a vector of conditions.
                    let bool_vector =
                        declarations::value_type(self.module, &TypeInner::Vector { size, scalar: naga::Scalar::BOOL })?;
                    condition = self.composite(bool_vector, vec![condition; size as usize])?;
                }
                let accept = self.expression(accept, hint)?;
                let reject = self.expression(reject, hint)?;
                let operands = vec![Operand::IdRef(condition), Operand::IdRef(accept), Operand::IdRef(reject)];
                self.operation(ty, Op::Select, operands)?
            }
            Expression::As { expr, kind, convert } => self.conversion(ty, expression, expr, kind, convert)?,
            Expression::Math { fun, .. } => return Err(not_allowed(&format!("{fun:?}"))),
            Expression::Relational { fun, .. } => return Err(not_allowed(&format!("{fun:?}"))),
            other => return Err(Error::internal(format!("{other:?} in an override expression"))),
        };
        self.ids.insert(expression, id);
        Ok(id)
    }

    fn scalar_kind(&self, expression: Handle<Expression>) -> ScalarKind {
        match self.specialization.types[expression.index()] {
            TypeInner::Scalar(scalar) | TypeInner::Vector { scalar, .. } => scalar.kind,
            _ => ScalarKind::Float,
        }
    }

    fn composite(&mut self, ty: Word, constituents: Vec<Word>) -> Result<Word, Error> {
        let spec = constituents.iter().any(|&id| is_specialization_constant(self.module, id));
        let opcode = if spec { Op::SpecConstantComposite } else { Op::ConstantComposite };
        declarations::constant(self.module, opcode, ty, constituents.into_iter().map(Operand::IdRef).collect())
    }

    /// `OpSpecConstantOp %ty opcode operands`.
    fn operation(&mut self, ty: Word, opcode: Op, operands: Vec<Operand>) -> Result<Word, Error> {
        let mut all = vec![Operand::LiteralSpecConstantOpInteger(opcode)];
        all.extend(operands);
        let id = super::module_edit::fresh_id(self.module)?;
        self.module.types_global_values.push(Instruction::new(Op::SpecConstantOp, Some(ty), Some(id), all));
        Ok(id)
    }

    fn binary(
        &mut self,
        ty: Word,
        op: BinaryOp,
        left: Handle<Expression>,
        right: Handle<Expression>,
    ) -> Result<Word, Error> {
        let kind = self.scalar_kind(left);
        let opcode = BINARY
            .iter()
            .find(|&&(o, k, _)| o == op && k == kind)
            .map(|&(.., opcode)| opcode)
            .ok_or_else(|| not_allowed(&format!("{op:?} on {kind:?}")))?;
        let mut ids = [self.expression(left, None)?, self.expression(right, None)?];
        // naga lets a scalar meet a vector; SPIR-V wants both the same shape.
        let shapes = [left, right].map(|side| match self.specialization.types[side.index()] {
            TypeInner::Vector { size, scalar } => Some((size, scalar)),
            _ => None,
        });
        if let Some((size, _)) = shapes[0].or(shapes[1]) {
            for (side, shape) in shapes.iter().enumerate() {
                if shape.is_none() {
                    let TypeInner::Scalar(scalar) = self.specialization.types[[left, right][side].index()] else {
                        continue;
                    };
                    let vector = declarations::value_type(self.module, &TypeInner::Vector { size, scalar })?;
                    ids[side] = self.composite(vector, vec![ids[side]; size as usize])?;
                }
            }
        }
        self.operation(ty, opcode, ids.map(Operand::IdRef).to_vec())
    }

    /// `As`: a conversion between scalar kinds (or a bitcast, `convert: None`).
    fn conversion(
        &mut self,
        ty: Word,
        expression: Handle<Expression>,
        from: Handle<Expression>,
        to: ScalarKind,
        convert: Option<u8>,
    ) -> Result<Word, Error> {
        let source = self.scalar_kind(from);
        let operand = self.expression(from, None)?;
        let result = self.specialization.types[expression.index()].clone();
        let scalar_of = |inner: &TypeInner| match *inner {
            TypeInner::Scalar(s) | TypeInner::Vector { scalar: s, .. } => Some(s),
            _ => None,
        };
        let target = scalar_of(&result).ok_or_else(|| Error::internal("a conversion to a composite"))?;
        let splat = |writer: &mut Self, literal: naga::Literal| -> Result<Word, Error> {
            let scalar_type = declarations::scalar_type(writer.module, Scalar::of(target)?)?;
            let (opcode, operands) = declarations::literal(literal)?;
            let scalar = declarations::constant(writer.module, opcode, scalar_type, operands)?;
            match result {
                TypeInner::Vector { size, .. } => writer.composite(ty, vec![scalar; size as usize]),
                _ => Ok(scalar),
            }
        };
        use ScalarKind as K;
        match (source, to) {
            _ if source == to
                && convert.is_none_or(|width| {
                    scalar_of(&self.specialization.types[from.index()]).map(|s| s.width) == Some(width)
                }) =>
            {
                Ok(operand)
            }
            // Same width, other signedness: integer addition takes either.
            (K::Sint | K::Uint, K::Sint | K::Uint) => {
                let zero = splat(self, naga::Literal::zero(target).ok_or_else(|| Error::internal("no zero"))?)?;
                self.operation(ty, Op::IAdd, vec![Operand::IdRef(operand), Operand::IdRef(zero)])
            }
            (K::Bool, K::Sint | K::Uint | K::Float) if convert.is_some() => {
                let one = splat(self, naga::Literal::new(1, target).ok_or_else(|| Error::internal("no one"))?)?;
                let zero = splat(self, naga::Literal::zero(target).ok_or_else(|| Error::internal("no zero"))?)?;
                let operands = vec![Operand::IdRef(operand), Operand::IdRef(one), Operand::IdRef(zero)];
                self.operation(ty, Op::Select, operands)
            }
            (K::Sint | K::Uint, K::Bool) => {
                let source_scalar = scalar_of(&self.specialization.types[from.index()])
                    .ok_or_else(|| Error::internal("a conversion from a composite"))?;
                let zero_literal = naga::Literal::zero(source_scalar).ok_or_else(|| Error::internal("no zero"))?;
                let source_type = declarations::scalar_type(self.module, Scalar::of(source_scalar)?)?;
                let (opcode, operands) = declarations::literal(zero_literal)?;
                let mut zero = declarations::constant(self.module, opcode, source_type, operands)?;
                if let TypeInner::Vector { size, .. } = result {
                    let vector =
                        declarations::value_type(self.module, &TypeInner::Vector { size, scalar: source_scalar })?;
                    zero = self.composite(vector, vec![zero; size as usize])?;
                }
                self.operation(ty, Op::INotEqual, vec![Operand::IdRef(operand), Operand::IdRef(zero)])
            }
            (K::Float, K::Float) => self.operation(ty, Op::FConvert, vec![Operand::IdRef(operand)]),
            _ => Err(not_allowed(&format!("a conversion from {source:?} to {to:?}"))),
        }
    }

    /// Sets each overridden workgroup size: `LocalSizeId`, or the `WorkgroupSize` builtin.
    fn workgroup_sizes(&mut self) -> Result<(), Error> {
        if self.specialization.workgroup_sizes.is_empty() {
            return Ok(());
        }
        let uint = declarations::scalar_type(self.module, Scalar::Int { width: 32, signed: false })?;
        let mut sizes = Vec::new();
        for (name, dimensions) in &self.specialization.workgroup_sizes {
            let mut ids = Vec::new();
            for dimension in dimensions {
                ids.push(match *dimension {
                    Dimension::Fixed(value) => {
                        declarations::constant(self.module, Op::Constant, uint, vec![Operand::LiteralBit32(value)])?
                    }
                    Dimension::Expression(e) => self.unsigned(e)?,
                });
            }
            let function = self.module.entry_points.iter().find_map(|entry| match entry.operands.as_slice() {
                [_, Operand::IdRef(function), Operand::LiteralString(entry_name), ..] if entry_name == name => {
                    Some(*function)
                }
                _ => None,
            });
            if let Some(function) = function {
                sizes.push((function, ids));
            }
        }
        let version = self.module.header.as_ref().map_or(0, |header| header.version);
        if version >= LOCAL_SIZE_ID_FROM {
            for (function, ids) in sizes {
                self.module.execution_modes.retain(|inst| {
                    inst.operands.first() != Some(&Operand::IdRef(function))
                        || inst.operands.get(1) != Some(&Operand::ExecutionMode(ExecutionMode::LocalSize))
                });
                let mut operands = vec![Operand::IdRef(function), Operand::ExecutionMode(ExecutionMode::LocalSizeId)];
                operands.extend(ids.into_iter().map(Operand::IdRef));
                self.module.execution_modes.push(Instruction::new(Op::ExecutionModeId, None, None, operands));
            }
            return Ok(());
        }
        self.workgroup_size_builtin(uint, sizes)
    }

    /// Before SPIR-V 1.6: one `WorkgroupSize` constant for the module, which every compute
    /// entry point takes.
    fn workgroup_size_builtin(&mut self, uint: Word, sizes: Vec<(Word, Vec<Word>)>) -> Result<(), Error> {
        if sizes.is_empty() {
            // The entry points written (`--entry-point`) have sizes of their own.
            return Ok(());
        }
        let computes = self
            .module
            .entry_points
            .iter()
            .filter(|entry| entry.operands.first() == Some(&Operand::ExecutionModel(spirv::ExecutionModel::GLCompute)))
            .count();
        let first = sizes.first().map(|(_, ids)| ids.clone()).unwrap_or_default();
        if sizes.len() != computes || sizes.iter().any(|(_, ids)| *ids != first) {
            return Err(Error::unsupported(
                "compute entry points with different workgroup sizes, one of them from overrides: before SPIR-V 1.6 \
                 such a size is the module's WorkgroupSize builtin, which every entry point takes (write SPIR-V \
                 1.6, which has LocalSizeId, or keep one entry point)",
            ));
        }
        let vector =
            declarations::type_id(self.module, Op::TypeVector, vec![Operand::IdRef(uint), Operand::LiteralBit32(3)])?;
        let size = self.composite(vector, first)?;
        let mut builtin = decorate(size, Decoration::BuiltIn);
        builtin.operands.push(Operand::BuiltIn(BuiltIn::WorkgroupSize));
        self.module.annotations.push(builtin);
        Ok(())
    }

    /// An `i32` or `u32` override expression as a `u32` value.
    fn unsigned(&mut self, expression: Handle<Expression>) -> Result<Word, Error> {
        let id = self.expression(expression, None)?;
        if self.scalar_kind(expression) == ScalarKind::Uint {
            return Ok(id);
        }
        let uint = declarations::scalar_type(self.module, Scalar::Int { width: 32, signed: false })?;
        let zero = declarations::constant(self.module, Op::Constant, uint, vec![Operand::LiteralBit32(0)])?;
        self.operation(uint, Op::IAdd, vec![Operand::IdRef(id), Operand::IdRef(zero)])
    }

    /// Arrays whose length is an override take its specialization constant as their length.
    fn array_lengths(&mut self) -> Result<(), Error> {
        for &(length, item) in &self.specialization.array_lengths {
            let value = match self.overrides.get(&item.index()) {
                Some(&id) => id,
                None => return Err(Error::internal("an array length's override has no value")),
            };
            let stand_ins: HashSet<Word> = self
                .module
                .types_global_values
                .iter()
                .filter(|inst| inst.class.opcode == Op::Constant && inst.operands == [Operand::LiteralBit32(length)])
                .filter_map(|inst| inst.result_id)
                .collect();
            for inst in &mut self.module.types_global_values {
                if inst.class.opcode == Op::TypeArray
                    && let Some(Operand::IdRef(id)) = inst.operands.get_mut(1)
                    && stand_ins.contains(id)
                {
                    *id = value;
                }
            }
        }
        Ok(())
    }
}

/// The operation table: naga's binary operator on operands of a scalar kind, and the SPIR-V
/// operation `OpSpecConstantOp` may perform for it in a shader (none on floats).
const BINARY: &[(BinaryOp, ScalarKind, Op)] = {
    use BinaryOp as B;
    use ScalarKind::{Bool, Sint, Uint};
    &[
        (B::Add, Sint, Op::IAdd),
        (B::Add, Uint, Op::IAdd),
        (B::Subtract, Sint, Op::ISub),
        (B::Subtract, Uint, Op::ISub),
        (B::Multiply, Sint, Op::IMul),
        (B::Multiply, Uint, Op::IMul),
        (B::Divide, Sint, Op::SDiv),
        (B::Divide, Uint, Op::UDiv),
        (B::Modulo, Sint, Op::SRem),
        (B::Modulo, Uint, Op::UMod),
        (B::Equal, Sint, Op::IEqual),
        (B::Equal, Uint, Op::IEqual),
        (B::Equal, Bool, Op::LogicalEqual),
        (B::NotEqual, Sint, Op::INotEqual),
        (B::NotEqual, Uint, Op::INotEqual),
        (B::NotEqual, Bool, Op::LogicalNotEqual),
        (B::Less, Sint, Op::SLessThan),
        (B::Less, Uint, Op::ULessThan),
        (B::LessEqual, Sint, Op::SLessThanEqual),
        (B::LessEqual, Uint, Op::ULessThanEqual),
        (B::Greater, Sint, Op::SGreaterThan),
        (B::Greater, Uint, Op::UGreaterThan),
        (B::GreaterEqual, Sint, Op::SGreaterThanEqual),
        (B::GreaterEqual, Uint, Op::UGreaterThanEqual),
        (B::And, Sint, Op::BitwiseAnd),
        (B::And, Uint, Op::BitwiseAnd),
        (B::And, Bool, Op::LogicalAnd),
        (B::ExclusiveOr, Sint, Op::BitwiseXor),
        (B::ExclusiveOr, Uint, Op::BitwiseXor),
        (B::ExclusiveOr, Bool, Op::LogicalNotEqual),
        (B::InclusiveOr, Sint, Op::BitwiseOr),
        (B::InclusiveOr, Uint, Op::BitwiseOr),
        (B::InclusiveOr, Bool, Op::LogicalOr),
        (B::LogicalAnd, Bool, Op::LogicalAnd),
        (B::LogicalOr, Bool, Op::LogicalOr),
        (B::ShiftLeft, Sint, Op::ShiftLeftLogical),
        (B::ShiftLeft, Uint, Op::ShiftLeftLogical),
        (B::ShiftRight, Sint, Op::ShiftRightArithmetic),
        (B::ShiftRight, Uint, Op::ShiftRightLogical),
    ]
};

fn not_allowed(what: &str) -> Error {
    Error::unsupported(format!(
        "{what} is computed from overrides, and SPIR-V lets a shader's specialization constants only do integer, \
         logical and bit operations, selections, conversions between integer types and float widths, and \
         composite operations (OpSpecConstantOp)"
    ))
}

/// The declarations of specialization constants.
const SPECIALIZATION_CONSTANTS: &[Op] =
    &[Op::SpecConstant, Op::SpecConstantTrue, Op::SpecConstantFalse, Op::SpecConstantOp, Op::SpecConstantComposite];

fn is_specialization_constant(module: &Module, id: Word) -> bool {
    global_def(module, id).is_some_and(|inst| SPECIALIZATION_CONSTANTS.contains(&inst.class.opcode))
}

/// Constant composites with a specialization constant among their constituents become
/// specialization constant composites (declarations are in order: constituents come first).
fn promote_composites(module: &mut Module) {
    let mut spec: HashSet<Word> = HashSet::new();
    for inst in &mut module.types_global_values {
        let holds_spec = inst.operands.iter().filter_map(Operand::id_ref_any).any(|id| spec.contains(&id));
        if inst.class.opcode == Op::ConstantComposite && holds_spec {
            *inst =
                Instruction::new(Op::SpecConstantComposite, inst.result_type, inst.result_id, inst.operands.clone());
        }
        if SPECIALIZATION_CONSTANTS.contains(&inst.class.opcode)
            && let Some(id) = inst.result_id
        {
            spec.insert(id);
        }
    }
}
