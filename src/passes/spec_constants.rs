//! Specialization constants.
//!
//! Before: constants made by OpSpecConstant, OpSpecConstantTrue and OpSpecConstantFalse carry
//! their SpecId (those without one are ordinary constants holding their default), and
//! OpSpecConstantOp constants are `ConstValue::Op`.
//! After: a spec constant given a value by `Options::overrides` holds that value and no SpecId,
//! so it is an ordinary constant; the others keep their SpecId and become WGSL `override`s.
//! Every OpSpecConstantOp whose operands are all ordinary constants is folded into an ordinary
//! constant, and one on composites into the composite it makes; the rest stay `ConstValue::Op` and
//! become override expressions. A part of a composite that is an overridable scalar becomes an
//! `OpCopyObject` of it, an operation only this pass makes. An operation that stays has a constant
//! zero divisor or over-wide shift amount replaced as the `signedness` pass does for instructions
//! (WGSL rejects them where SPIR-V's result is only undefined).

use std::collections::{BTreeSet, HashMap};

use spirv::Op;

use crate::Options;
use crate::error::{Error, Location};
use crate::passes::signedness::tame_constants;
use crate::spirv::{ConstValue, Constant, Def, Id, Module, Operand, Type};

pub fn run(module: &mut Module, options: &Options) -> Result<(), Error> {
    let mut unused: BTreeSet<u32> = options.overrides.iter().map(|(id, _)| *id).collect();
    let primaries = shared_spec_id_primaries(module);
    for index in 0..module.declarations.len() {
        let id = module.declarations[index];
        let Some(constant) = module.constant(id).cloned() else {
            continue;
        };
        if let Some(spec_id) = constant.spec_id
            && let Some((_, text)) = options.overrides.iter().rev().find(|(wanted, _)| *wanted == spec_id)
        {
            unused.remove(&spec_id);
            // A SpecId several constants share is read as its primary's type, then as each one's.
            let primary = primaries.get(&spec_id).and_then(|&p| module.constant(p)).map_or(constant.ty, |p| p.ty);
            let value = parse_value(module, primary, text).map(|value| match (&constant.value, value) {
                (ConstValue::Bool(_), ConstValue::Scalar(bits)) => ConstValue::Bool(bits != 0),
                (_, value) => value,
            });
            let value = value.map_err(|reason| {
                Error::unsupported(
                    format!("--override {spec_id}={text}: {reason}"),
                    Location { result_id: Some(id), ..Location::default() },
                )
            })?;
            module.defs[id as usize] = Def::Constant(Box::new(Constant { ty: constant.ty, value, spec_id: None }));
        }
        if let ConstValue::Op { op, operands } = &constant.value {
            let value = match fold(module, constant.ty, *op, operands) {
                Some(value) => value,
                None => {
                    // A zero divisor or an over-wide shift WGSL rejects in the override expression.
                    let mut operands = operands.clone();
                    tame_constants(module, *op, &mut operands);
                    ConstValue::Op { op: *op, operands }
                }
            };
            module.defs[id as usize] = Def::Constant(Box::new(Constant { ty: constant.ty, value, spec_id: None }));
        }
    }
    if let Some(spec_id) = unused.first() {
        return Err(Error::unsupported(
            format!("--override {spec_id}=...: no specialization constant has SpecId {spec_id}"),
            Location::default(),
        ));
    }
    Ok(())
}

/// For each SpecId that more than one constant has, the constant whose type reads the value:
/// the first of 32 bits, or else the first. The others read the same 32 bits as their own type,
/// a bool as true when they are not zero.
pub fn shared_spec_id_primaries(module: &Module) -> HashMap<u32, Id> {
    let mut by_id: HashMap<u32, Vec<Id>> = HashMap::new();
    for &id in &module.declarations {
        if let Some(spec_id) = module.constant(id).and_then(|c| c.spec_id) {
            by_id.entry(spec_id).or_default().push(id);
        }
    }
    by_id
        .into_iter()
        .filter(|(_, ids)| ids.len() > 1)
        .map(|(spec_id, ids)| {
            let numeric = ids.iter().copied().find(|&id| bit_width(module, id) == Some(32));
            (spec_id, numeric.unwrap_or(ids[0]))
        })
        .collect()
}

/// The bit width of a numeric constant's type; `None` for a bool.
pub fn bit_width(module: &Module, id: Id) -> Option<u32> {
    match module.type_def(module.constant(id)?.ty)? {
        Type::Int { width, .. } | Type::Float { width } => Some(*width),
        _ => None,
    }
}

/// A value given on the command line, as the bits of a constant of type `ty`.
fn parse_value(module: &Module, ty: Id, text: &str) -> Result<ConstValue, String> {
    let text = text.trim();
    match module.ty(ty).map_err(|e| e.to_string())? {
        Type::Bool => match text {
            "true" | "1" => Ok(ConstValue::Bool(true)),
            "false" | "0" => Ok(ConstValue::Bool(false)),
            _ => Err("a boolean specialization constant takes true or false".into()),
        },
        Type::Int { width: 32, signed: true } => text
            .parse::<i32>()
            .map(|v| ConstValue::Scalar(u64::from(v as u32)))
            .map_err(|_| "not a 32-bit signed integer".into()),
        Type::Int { width: 32, signed: false } => text
            .parse::<u32>()
            .map(|v| ConstValue::Scalar(u64::from(v)))
            .map_err(|_| "not a 32-bit unsigned integer".into()),
        Type::Float { width: 32 } => {
            text.parse::<f32>().map(|v| ConstValue::Scalar(u64::from(v.to_bits()))).map_err(|_| "not a number".into())
        }
        other => Err(format!("specialization constants of type {other:?} cannot be overridden")),
    }
}

/// The scalar lanes of an ordinary constant: integers as bits, or booleans.
#[derive(Clone)]
enum Lanes {
    Ints(Vec<u32>),
    Bools(Vec<bool>),
}

/// The lanes of `id` if it is an ordinary (not overridable) integer or boolean constant.
fn lanes(module: &Module, id: Id) -> Option<Lanes> {
    let constant = module.constant(id)?;
    if constant.spec_id.is_some() {
        return None;
    }
    let (scalar, count) = module.scalar_of(constant.ty)?;
    let is_bool = matches!(module.type_def(scalar), Some(Type::Bool));
    if !is_bool && !matches!(module.type_def(scalar), Some(Type::Int { width: 32, .. })) {
        return None;
    }
    match &constant.value {
        ConstValue::Scalar(bits) => Some(Lanes::Ints(vec![*bits as u32])),
        ConstValue::Bool(b) => Some(Lanes::Bools(vec![*b])),
        ConstValue::Null if is_bool => Some(Lanes::Bools(vec![false; count as usize])),
        ConstValue::Null => Some(Lanes::Ints(vec![0; count as usize])),
        ConstValue::Composite(parts) => {
            let mut all = Vec::new();
            for &part in parts {
                all.push(lanes(module, part)?);
            }
            match all.first()? {
                Lanes::Ints(_) => Some(Lanes::Ints(
                    all.iter().flat_map(|l| if let Lanes::Ints(v) = l { v.clone() } else { vec![] }).collect(),
                )),
                Lanes::Bools(_) => Some(Lanes::Bools(
                    all.iter().flat_map(|l| if let Lanes::Bools(v) = l { v.clone() } else { vec![] }).collect(),
                )),
            }
        }
        _ => None,
    }
}

/// A constant of type `ty` (scalar or vector) holding `lanes`; vector lanes become new constants.
fn value_of(module: &mut Module, ty: Id, lanes: Lanes) -> Option<ConstValue> {
    let (scalar, count) = module.scalar_of(ty)?;
    let one = |lanes: &Lanes, i: usize| match lanes {
        Lanes::Ints(v) => ConstValue::Scalar(u64::from(v[i])),
        Lanes::Bools(v) => ConstValue::Bool(v[i]),
    };
    let len = match &lanes {
        Lanes::Ints(v) => v.len(),
        Lanes::Bools(v) => v.len(),
    };
    if len != count as usize {
        return None;
    }
    if count == 1 {
        return Some(one(&lanes, 0));
    }
    let parts = (0..len)
        .map(|i| {
            let part =
                module.add_def(Def::Constant(Box::new(Constant { ty: scalar, value: one(&lanes, i), spec_id: None })));
            module.declarations.push(part);
            part
        })
        .collect();
    Some(ConstValue::Composite(parts))
}

fn id_at(operands: &[Operand], index: usize) -> Option<Id> {
    match operands.get(index)? {
        Operand::IdRef(id) => Some(*id),
        _ => None,
    }
}

/// Evaluates an OpSpecConstantOp whose operands are ordinary constants; `None` if any is not,
/// or the operation is one this does not fold (it then stays an override expression). Composite
/// operations fold whenever their composite operands are made of parts, overridable or not.
fn fold(module: &mut Module, ty: Id, op: Op, operands: &[Operand]) -> Option<ConstValue> {
    match op {
        Op::CompositeExtract => return fold_extract(module, operands),
        Op::CompositeInsert => return fold_insert(module, operands),
        Op::VectorShuffle => return fold_shuffle(module, operands),
        _ => {}
    }
    let args: Vec<Lanes> = (0..operands.len()).map(|i| lanes(module, id_at(operands, i)?)).collect::<Option<_>>()?;
    let result = match (op, args.as_slice()) {
        (Op::Select, [Lanes::Bools(c), a, b]) => select(c, a, b)?,
        (Op::LogicalNot, [Lanes::Bools(a)]) => Lanes::Bools(a.iter().map(|x| !x).collect()),
        (_, [Lanes::Bools(a), Lanes::Bools(b)]) => {
            Lanes::Bools(zip(a, b).map(|(x, y)| logical(op, x, y)).collect::<Option<_>>()?)
        }
        (Op::SNegate, [Lanes::Ints(a)]) => Lanes::Ints(a.iter().map(|x| x.wrapping_neg()).collect()),
        (Op::Not, [Lanes::Ints(a)]) => Lanes::Ints(a.iter().map(|x| !x).collect()),
        (Op::UConvert | Op::SConvert | Op::Bitcast, [Lanes::Ints(a)]) => Lanes::Ints(a.clone()),
        (_, [Lanes::Ints(a), Lanes::Ints(b)]) => {
            if let Some(lanes) = zip(a, b).map(|(x, y)| integer(op, x, y)).collect::<Option<Vec<_>>>() {
                Lanes::Ints(lanes)
            } else {
                Lanes::Bools(zip(a, b).map(|(x, y)| compare(op, x, y)).collect::<Option<_>>()?)
            }
        }
        _ => return None,
    };
    value_of(module, ty, result)
}

fn zip<'a, T: Copy>(a: &'a [T], b: &'a [T]) -> impl Iterator<Item = (T, T)> + 'a {
    a.iter().copied().zip(b.iter().copied())
}

fn select(condition: &[bool], a: &Lanes, b: &Lanes) -> Option<Lanes> {
    let pick = |i: usize| {
        if condition.get(i).or(condition.first()).copied().unwrap_or(false) { a } else { b }
    };
    Some(match (a, b) {
        (Lanes::Ints(x), Lanes::Ints(_)) => {
            Lanes::Ints((0..x.len()).map(|i| if let Lanes::Ints(v) = pick(i) { v[i] } else { 0 }).collect())
        }
        (Lanes::Bools(x), Lanes::Bools(_)) => {
            Lanes::Bools((0..x.len()).map(|i| if let Lanes::Bools(v) = pick(i) { v[i] } else { false }).collect())
        }
        _ => return None,
    })
}

fn logical(op: Op, a: bool, b: bool) -> Option<bool> {
    Some(match op {
        Op::LogicalAnd => a && b,
        Op::LogicalOr => a || b,
        Op::LogicalEqual => a == b,
        Op::LogicalNotEqual => a != b,
        _ => return None,
    })
}

/// Integer arithmetic on 32-bit lanes. Division by zero is undefined in SPIR-V: it gives 0.
fn integer(op: Op, a: u32, b: u32) -> Option<u32> {
    let (sa, sb) = (a as i32, b as i32);
    Some(match op {
        Op::IAdd => a.wrapping_add(b),
        Op::ISub => a.wrapping_sub(b),
        Op::IMul => a.wrapping_mul(b),
        Op::UDiv => a.checked_div(b).unwrap_or(0),
        Op::UMod => a.checked_rem(b).unwrap_or(0),
        Op::SDiv => sa.checked_div(sb).unwrap_or(0) as u32,
        Op::SRem => sa.checked_rem(sb).unwrap_or(0) as u32,
        Op::SMod => match sa.checked_rem(sb) {
            Some(r) if r != 0 && (r < 0) != (sb < 0) => r.wrapping_add(sb) as u32,
            Some(r) => r as u32,
            None => 0,
        },
        Op::ShiftLeftLogical => a.wrapping_shl(b),
        Op::ShiftRightLogical => a.wrapping_shr(b),
        Op::ShiftRightArithmetic => sa.wrapping_shr(b) as u32,
        Op::BitwiseAnd => a & b,
        Op::BitwiseOr => a | b,
        Op::BitwiseXor => a ^ b,
        _ => return None,
    })
}

fn compare(op: Op, a: u32, b: u32) -> Option<bool> {
    let (sa, sb) = (a as i32, b as i32);
    Some(match op {
        Op::IEqual => a == b,
        Op::INotEqual => a != b,
        Op::ULessThan => a < b,
        Op::ULessThanEqual => a <= b,
        Op::UGreaterThan => a > b,
        Op::UGreaterThanEqual => a >= b,
        Op::SLessThan => sa < sb,
        Op::SLessThanEqual => sa <= sb,
        Op::SGreaterThan => sa > sb,
        Op::SGreaterThanEqual => sa >= sb,
        _ => return None,
    })
}

/// The most parts a null composite is split into to fold an operation on it.
const MAX_NULL_PARTS: u32 = 1024;

/// The constants a composite constant is made of, one per member, element, column or
/// component; `None` if it is computed by an operation. A null or undefined composite's parts
/// are new null (or undefined) constants.
fn composite_parts(module: &mut Module, id: Id) -> Option<Vec<Id>> {
    let constant = module.constant(id)?.clone();
    match constant.value {
        ConstValue::Composite(parts) => Some(parts),
        ConstValue::Null | ConstValue::Undef => {
            let types = match module.type_def(constant.ty)? {
                Type::Vector { component, count } => vec![*component; *count as usize],
                Type::Matrix { column, columns } => vec![*column; *columns as usize],
                Type::Array { element, length } => {
                    let length = module.const_u32(*length).filter(|&n| n <= MAX_NULL_PARTS)?;
                    vec![*element; length as usize]
                }
                Type::Struct { members } => members.clone(),
                _ => return None,
            };
            let value = constant.value;
            Some(types.into_iter().map(|ty| new_constant(module, ty, value.clone())).collect())
        }
        _ => None,
    }
}

fn new_constant(module: &mut Module, ty: Id, value: ConstValue) -> Id {
    let id = module.add_def(Def::Constant(Box::new(Constant { ty, value, spec_id: None })));
    module.declarations.push(id);
    id
}

/// The literal indices of a composite operation, from operand `first` on.
fn indices(operands: &[Operand], first: usize) -> Option<Vec<u32>> {
    operands.get(first..)?.iter().map(|o| if let Operand::LiteralBit32(i) = o { Some(*i) } else { None }).collect()
}

/// A part of a composite constant: the value of the part the indices name. An overridable
/// scalar is not copied (that would be a second `override` with its SpecId): the result is an
/// OpCopyObject of it, which only this pass makes.
fn fold_extract(module: &mut Module, operands: &[Operand]) -> Option<ConstValue> {
    let mut id = id_at(operands, 0)?;
    for index in indices(operands, 1)? {
        id = *composite_parts(module, id)?.get(index as usize)?;
    }
    let constant = module.constant(id)?;
    Some(match constant.spec_id {
        Some(_) => ConstValue::Op { op: Op::CopyObject, operands: Box::new([Operand::IdRef(id)]) },
        None => constant.value.clone(),
    })
}

/// A composite constant with the part the indices name replaced by the object.
fn fold_insert(module: &mut Module, operands: &[Operand]) -> Option<ConstValue> {
    let (object, composite) = (id_at(operands, 0)?, id_at(operands, 1)?);
    let path = indices(operands, 2)?;
    // The composites along the path, outermost first, each with its parts.
    let mut levels = Vec::with_capacity(path.len());
    let mut id = composite;
    for &index in &path {
        let parts = composite_parts(module, id)?;
        let next = *parts.get(index as usize)?;
        levels.push((id, parts));
        id = next;
    }
    // Rebuilt innermost first: each level takes the new part made from the one inside it.
    let mut replacement = object;
    while let Some((id, mut parts)) = levels.pop() {
        parts[path[levels.len()] as usize] = replacement;
        if levels.is_empty() {
            return Some(ConstValue::Composite(parts));
        }
        let ty = module.constant(id)?.ty;
        replacement = new_constant(module, ty, ConstValue::Composite(parts));
    }
    None
}

/// A vector constant made of components of two others; an undefined component (0xFFFFFFFF) is
/// the first one.
fn fold_shuffle(module: &mut Module, operands: &[Operand]) -> Option<ConstValue> {
    let mut components = composite_parts(module, id_at(operands, 0)?)?;
    components.extend(composite_parts(module, id_at(operands, 1)?)?);
    let selected = indices(operands, 2)?.into_iter().map(|c| if c == u32::MAX { 0 } else { c });
    Some(ConstValue::Composite(selected.map(|c| components.get(c as usize).copied()).collect::<Option<_>>()?))
}

/// How deep `default_value` follows operations before it gives up (a hostile module can chain
/// constants without end).
const MAX_DEFAULT_DEPTH: u32 = 64;

/// The value of a scalar integer or boolean constant (a boolean as 0 or 1) when every
/// specialization constant keeps its default: for an array length WGSL cannot leave
/// overridable. `None` for what this does not evaluate.
pub fn default_value(module: &Module, id: Id) -> Option<u32> {
    default_at(module, id, 0)
}

fn default_at(module: &Module, id: Id, depth: u32) -> Option<u32> {
    if depth > MAX_DEFAULT_DEPTH {
        return None;
    }
    let value = |id: Id| default_at(module, id, depth + 1);
    let constant = module.constant(id)?;
    let (op, operands) = match &constant.value {
        ConstValue::Scalar(bits) => return u32::try_from(*bits).ok(),
        ConstValue::Bool(b) => return Some(u32::from(*b)),
        ConstValue::Null => return Some(0),
        ConstValue::Op { op, operands } => (*op, operands),
        _ => return None,
    };
    let arg = |index: usize| id_at(operands, index);
    Some(match op {
        Op::CompositeExtract => {
            let mut part = arg(0)?;
            for index in indices(operands, 1)? {
                part = match &module.constant(part)?.value {
                    ConstValue::Composite(parts) => *parts.get(index as usize)?,
                    _ => return None,
                };
            }
            value(part)?
        }
        Op::CopyObject | Op::SConvert | Op::UConvert | Op::Bitcast => value(arg(0)?)?,
        Op::Select => value(if value(arg(0)?)? != 0 { arg(1)? } else { arg(2)? })?,
        Op::SNegate => value(arg(0)?)?.wrapping_neg(),
        Op::Not => !value(arg(0)?)?,
        Op::LogicalNot => u32::from(value(arg(0)?)? == 0),
        _ => {
            let (a, b) = (value(arg(0)?)?, value(arg(1)?)?);
            integer(op, a, b)
                .or_else(|| compare(op, a, b).map(u32::from))
                .or_else(|| logical(op, a != 0, b != 0).map(u32::from))?
        }
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_override_divided_by_a_constant_zero_translates() {
        // SPIR-V leaves the result undefined; WGSL rejects `x % 0i` and `x << 33u` outright.
        let text = "OpCapability Shader\nOpMemoryModel Logical GLSL450\nOpEntryPoint GLCompute %main \"main\"\n\
            OpExecutionMode %main LocalSize 1 1 1\nOpDecorate %x SpecId 0\nOpDecorate %buf DescriptorSet 0\n\
            OpDecorate %buf Binding 0\nOpDecorate %B Block\nOpMemberDecorate %B 0 Offset 0\n\
            %void = OpTypeVoid\n%fn = OpTypeFunction %void\n%int = OpTypeInt 32 1\n%zero = OpConstant %int 0\n\
            %wide = OpConstant %int 33\n%x = OpSpecConstant %int 5\n%mod = OpSpecConstantOp %int SMod %x %zero\n\
            %div = OpSpecConstantOp %int SDiv %mod %zero\n%shl = OpSpecConstantOp %int ShiftLeftLogical %div %wide\n\
            %B = OpTypeStruct %int\n%pb = OpTypePointer StorageBuffer %B\n%pi = OpTypePointer StorageBuffer %int\n\
            %buf = OpVariable %pb StorageBuffer\n%main = OpFunction %void None %fn\n%entry = OpLabel\n\
            %p = OpAccessChain %pi %buf %zero\nOpStore %p %shl\nOpReturn\nOpFunctionEnd\n";
        let wgsl = crate::translate(text.as_bytes(), &crate::Options::default()).expect("translates").wgsl;
        assert!(!wgsl.contains("0i)") && !wgsl.contains("% 0i") && !wgsl.contains("/ 0i"), "{wgsl}");
        assert!(!wgsl.contains("33"), "the shift by 33 is by 1: {wgsl}");
    }
}
