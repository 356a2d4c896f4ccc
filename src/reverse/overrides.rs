//! WGSL `override`s, first half: the naga module naga's SPIR-V writer accepts (it refuses
//! overrides), and the record of what [`super::specialize`] must turn back into specialization
//! constants in the SPIR-V it writes.
//!
//! Each override becomes a constant whose value is a placeholder, as does the initializer of a
//! `private` variable computed from overrides; naga writes each placeholder as one `OpConstant`,
//! which `specialize` finds and replaces. The placeholders are `f32` NaNs with distinct payloads:
//! naga caches scalar constants by value, and no WGSL literal is a NaN, so each placeholder's
//! constant is its own. They are put in after validation (naga's validator rejects NaN
//! literals, and they are `f32` whatever the override's type): until then well-typed values
//! stand in their place, which is what the validator checks. An override's stand-in is 1 (`true`):
//! the validator checks the constant divisors, shift amounts and indices it sees, and 1 is what
//! passes them all but an index into a one-element array.
//!
//! - Override expressions elsewhere in module scope (another override's initializer, a
//!   workgroup size, an array length) are not written by naga at all: their values come from the
//!   original module in `specialize`.
//! - An override whose initializer is a constant is settable: `OpSpecConstant` with a `SpecId`,
//!   its `@id` or, for those without one, the lowest id no other override takes, in declaration
//!   order. One computed from other overrides is `OpSpecConstantOp` and cannot be set.
//! - A workgroup size from overrides is written as 1 and set by `specialize`; an array whose
//!   length is an override gets a length no array of the module has, which `specialize` finds.
//!
//! Before: a validated module. After: no overrides; the module must be validated again, and
//! [`place`] called on it before it is written.

use naga::{ArraySize, Expression, Handle, Literal, TypeInner};

use super::error::Error;
use crate::binding_map::{SpecConstant, SpecConstantOrigin};

/// What the SPIR-V's specialization constants must be.
pub struct Specialization {
    /// The module before the rewrite: its override expressions, constants and types.
    pub original: naga::Module,
    /// The type of each of `original`'s global expressions.
    pub types: Vec<TypeInner>,
    /// Whether each of `original`'s global expressions depends on an override.
    pub dependent: Vec<bool>,
    /// One per override of `original`, in declaration order.
    pub overrides: Vec<Override>,
    /// What each placeholder stands for, by index (see [`placeholder_bits`]).
    pub placeholders: Vec<Placeholder>,
    /// Compute entry points whose workgroup size uses overrides, by name.
    pub workgroup_sizes: Vec<(String, [Dimension; 3])>,
    /// The stand-in length of each array whose length is an override, and that override.
    pub array_lengths: Vec<(u32, Handle<naga::Override>)>,
    /// Placeholders still in the module as well-typed zeros, to be replaced by [`place`].
    stand_ins: Vec<Handle<Expression>>,
}

/// One WGSL override.
pub struct Override {
    pub name: Option<String>,
    pub scalar: naga::Scalar,
    pub value: Value,
}

pub enum Value {
    /// Settable: its `SpecId`, whether we chose it, and its default (`None` when the WGSL has
    /// none: the pipeline must set it; SPIR-V's default is then zero).
    Settable { spec_id: u32, assigned: bool, default: Option<Literal> },
    /// Computed from other overrides by this expression of `original`.
    Computed(Handle<Expression>),
}

pub enum Placeholder {
    /// The override with this index.
    Override(usize),
    /// A `private` variable's initializer: this expression of `original`.
    Initializer(Handle<Expression>),
}

/// One dimension of a workgroup size.
#[derive(Debug, Clone, Copy)]
pub enum Dimension {
    Fixed(u32),
    /// An override expression of `original`.
    Expression(Handle<Expression>),
}

/// The `f32` bit pattern of placeholder `index`: a quiet NaN with a payload of our own.
pub fn placeholder_bits(index: usize) -> u32 {
    0x7FD5_0000 + index as u32
}

/// The most placeholders a module can have.
const MAX_PLACEHOLDERS: usize = 0x1_0000;

/// Rewrites `module` without overrides, or returns `None` when it has none.
pub fn take(module: &mut naga::Module, info: &naga::valid::ModuleInfo) -> Result<Option<Specialization>, Error> {
    if module.overrides.is_empty() {
        return Ok(None);
    }
    let original = module.clone();
    let types = original.global_expressions.iter().map(|(h, _)| info[h].inner_with(&original.types).clone()).collect();
    let dependent = dependencies(&original);
    let overrides = describe_overrides(&original, &dependent)?;

    let mut placeholders = Vec::new();
    let mut stand_ins = Vec::new();
    // Each override as a constant of its own.
    let mut constants = Vec::new();
    for (index, (_, item)) in original.overrides.iter().enumerate() {
        let one =
            Literal::new(1, overrides[index].scalar).ok_or_else(|| Error::internal("an override is not a scalar"))?;
        let stand_in = module.global_expressions.append(Expression::Literal(one), Default::default());
        let constant = naga::Constant { name: item.name.clone(), ty: item.ty, init: stand_in };
        constants.push(module.constants.append(constant, Default::default()));
        placeholders.push(Placeholder::Override(index));
        stand_ins.push(stand_in);
    }
    let functions =
        module.functions.iter_mut().map(|(_, f)| f).chain(module.entry_points.iter_mut().map(|e| &mut e.function));
    for function in functions {
        for (_, expression) in function.expressions.iter_mut() {
            if let Expression::Override(handle) = *expression {
                *expression = Expression::Constant(constants[handle.index()]);
            }
        }
    }
    for (_, variable) in module.global_variables.iter_mut() {
        if let Some(init) = variable.init.filter(|init| dependent[init.index()]) {
            let stand_in = module.global_expressions.append(Expression::ZeroValue(variable.ty), Default::default());
            variable.init = Some(stand_in);
            placeholders.push(Placeholder::Initializer(init));
            stand_ins.push(stand_in);
        }
    }
    if placeholders.len() > MAX_PLACEHOLDERS {
        return Err(Error::unsupported(format!(
            "more than {MAX_PLACEHOLDERS} overrides and initializers computed from them"
        )));
    }
    // naga writes every global expression: the ones it cannot write become a dead zero.
    for (handle, expression) in module.global_expressions.iter_mut() {
        if dependent.get(handle.index()).copied().unwrap_or(false) {
            *expression = Expression::Literal(Literal::U32(0));
        }
    }
    let workgroup_sizes = fixed_workgroup_sizes(module, &original, &dependent)?;
    let array_lengths = fixed_array_lengths(module);
    module.overrides = naga::Arena::new();
    Ok(Some(Specialization {
        original,
        types,
        dependent,
        overrides,
        placeholders,
        workgroup_sizes,
        array_lengths,
        stand_ins,
    }))
}

impl Specialization {
    /// The specialization constants, for the binding map.
    pub fn report(&self) -> Vec<SpecConstant> {
        let report = |o: &Override| {
            let (spec_id, default, origin) = match o.value {
                Value::Settable { spec_id, assigned, default } => {
                    (Some(spec_id), default.and_then(json_value), assigned.then_some(SpecConstantOrigin::NoId))
                }
                Value::Computed(_) => (None, None, Some(SpecConstantOrigin::Computed)),
            };
            let assigned = origin == Some(SpecConstantOrigin::NoId);
            SpecConstant { name: o.name.clone(), spec_id, ty: scalar_name(o.scalar), default, assigned, origin }
        };
        self.overrides.iter().map(report).collect()
    }
}

fn scalar_name(scalar: naga::Scalar) -> String {
    match (scalar.kind, scalar.width) {
        (naga::ScalarKind::Bool, _) => "bool".into(),
        (naga::ScalarKind::Sint, width) => format!("i{}", width * 8),
        (naga::ScalarKind::Uint, width) => format!("u{}", width * 8),
        (_, width) => format!("f{}", width * 8),
    }
}

/// A literal as a JSON value.
fn json_value(literal: Literal) -> Option<serde_json::Value> {
    Some(match literal {
        Literal::Bool(v) => v.into(),
        Literal::I32(v) => v.into(),
        Literal::U32(v) => v.into(),
        Literal::F32(v) => serde_json::Number::from_f64(f64::from(v))?.into(),
        Literal::F16(v) => serde_json::Number::from_f64(f64::from(v.to_f32()))?.into(),
        _ => return None,
    })
}

/// Puts the placeholders in, once the module is validated.
pub fn place(module: &mut naga::Module, specialization: &Specialization) {
    for (index, &stand_in) in specialization.stand_ins.iter().enumerate() {
        module.global_expressions[stand_in] =
            Expression::Literal(Literal::F32(f32::from_bits(placeholder_bits(index))));
    }
}

/// Whether each global expression is, or uses, an override.
fn dependencies(module: &naga::Module) -> Vec<bool> {
    let mut dependent = Vec::with_capacity(module.global_expressions.len());
    for (_, expression) in module.global_expressions.iter() {
        let is = matches!(expression, Expression::Override(_))
            || operands(expression).iter().any(|operand| dependent[operand.index()]);
        dependent.push(is);
    }
    dependent
}

/// The operands of a global (constant or override) expression.
pub fn operands(expression: &Expression) -> Vec<Handle<Expression>> {
    match *expression {
        Expression::Compose { ref components, .. } => components.clone(),
        Expression::Splat { value, .. } => vec![value],
        Expression::Access { base, index } => vec![base, index],
        Expression::AccessIndex { base, .. } => vec![base],
        Expression::Swizzle { vector, .. } => vec![vector],
        Expression::Unary { expr, .. } | Expression::As { expr, .. } => vec![expr],
        Expression::Binary { left, right, .. } => vec![left, right],
        Expression::Select { condition, accept, reject } => vec![condition, accept, reject],
        Expression::Relational { argument, .. } => vec![argument],
        Expression::Math { arg, arg1, arg2, arg3, .. } => [Some(arg), arg1, arg2, arg3].into_iter().flatten().collect(),
        _ => Vec::new(),
    }
}

fn describe_overrides(module: &naga::Module, dependent: &[bool]) -> Result<Vec<Override>, Error> {
    let taken: Vec<u32> = module.overrides.iter().filter_map(|(_, o)| o.id).map(u32::from).collect();
    let mut next_free = 0u32;
    let mut described = Vec::new();
    for (_, item) in module.overrides.iter() {
        let TypeInner::Scalar(scalar) = module.types[item.ty].inner else {
            return Err(Error::internal("an override is not a scalar"));
        };
        let name = item.name.clone();
        let value = match item.init {
            Some(init) if dependent[init.index()] => {
                if let Some(id) = item.id {
                    return Err(Error::unsupported(format!(
                        "override `{}` has @id({id}) and an initializer computed from other overrides: a SPIR-V \
                         specialization constant is either set by its id (OpSpecConstant) or computed \
                         (OpSpecConstantOp), not both",
                        name.as_deref().unwrap_or("?")
                    )));
                }
                Value::Computed(init)
            }
            init => {
                let default = init.map(|init| constant_value(module, init)).transpose()?;
                let (spec_id, assigned) = match item.id {
                    Some(id) => (u32::from(id), false),
                    None => {
                        while taken.contains(&next_free) {
                            next_free += 1;
                        }
                        next_free += 1;
                        (next_free - 1, true)
                    }
                };
                Value::Settable { spec_id, assigned, default }
            }
        };
        described.push(Override { name, scalar, value });
    }
    Ok(described)
}

/// The value of a scalar constant expression (naga's front end has folded it).
pub fn constant_value(module: &naga::Module, expression: Handle<Expression>) -> Result<Literal, Error> {
    match module.global_expressions[expression] {
        Expression::Literal(literal) => Ok(literal),
        Expression::Constant(constant) => constant_value(module, module.constants[constant].init),
        Expression::ZeroValue(ty) => match module.types[ty].inner {
            TypeInner::Scalar(scalar) => Literal::zero(scalar).ok_or_else(|| Error::internal("a zero of no value")),
            _ => Err(Error::internal("an override's default is not a scalar")),
        },
        ref other => Err(Error::internal(format!("an override's default is not folded: {other:?}"))),
    }
}

/// Workgroup sizes from overrides become 1; returns what they were.
fn fixed_workgroup_sizes(
    module: &mut naga::Module,
    original: &naga::Module,
    dependent: &[bool],
) -> Result<Vec<(String, [Dimension; 3])>, Error> {
    let mut sizes = Vec::new();
    for entry in &mut module.entry_points {
        let Some(expressions) = entry.workgroup_size_overrides.take() else {
            continue;
        };
        let mut dimensions = [Dimension::Fixed(1); 3];
        for (axis, expression) in expressions.into_iter().enumerate() {
            dimensions[axis] = match expression {
                Some(e) if dependent[e.index()] => Dimension::Expression(e),
                Some(e) => match constant_value(original, e)? {
                    Literal::U32(v) => Dimension::Fixed(v),
                    Literal::I32(v) => Dimension::Fixed(v as u32),
                    other => return Err(Error::internal(format!("a workgroup size of {other:?}"))),
                },
                None => Dimension::Fixed(entry.workgroup_size[axis]),
            };
            entry.workgroup_size[axis] = match dimensions[axis] {
                Dimension::Fixed(v) => v,
                Dimension::Expression(_) => 1,
            };
        }
        sizes.push((entry.name.clone(), dimensions));
    }
    Ok(sizes)
}

/// Arrays whose length is an override get a length no array of the module has; returns each
/// length and its override.
fn fixed_array_lengths(module: &mut naga::Module) -> Vec<(u32, Handle<naga::Override>)> {
    let used: Vec<u32> = module
        .types
        .iter()
        .filter_map(|(_, ty)| match ty.inner {
            TypeInner::Array { size: ArraySize::Constant(length), .. } => Some(length.get()),
            _ => None,
        })
        .collect();
    let pending: Vec<Handle<naga::Type>> = module
        .types
        .iter()
        .filter(|(_, ty)| matches!(ty.inner, TypeInner::Array { size: ArraySize::Pending(_), .. }))
        .map(|(handle, _)| handle)
        .collect();
    let mut lengths = Vec::new();
    // Lengths counted down from a size no shader declares by accident, far from overflowing a
    // workgroup array's byte size.
    let mut candidate = 0xF0F1u32;
    for handle in pending {
        let ty = module.types[handle].clone();
        let TypeInner::Array { base, size: ArraySize::Pending(item), stride } = ty.inner else {
            continue;
        };
        while used.contains(&candidate) {
            candidate -= 1;
        }
        let length = std::num::NonZeroU32::new(candidate).unwrap_or(std::num::NonZeroU32::MIN);
        let inner = TypeInner::Array { base, size: ArraySize::Constant(length), stride };
        module.types.replace(handle, naga::Type { name: ty.name, inner });
        lengths.push((candidate, item));
        candidate -= 1;
    }
    lengths
}
