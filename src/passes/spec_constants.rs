//! Specialization constants.
//!
//! Before: constants made by OpSpecConstant, OpSpecConstantTrue and OpSpecConstantFalse carry
//! their SpecId (those without one are ordinary constants holding their default), and
//! OpSpecConstantOp constants are `ConstValue::Op`.
//! After: a spec constant given a value by `Options::overrides` holds that value and no SpecId,
//! so it is an ordinary constant; the others keep their SpecId and become WGSL `override`s.
//! Every OpSpecConstantOp whose operands are all ordinary constants is folded into an ordinary
//! constant; the rest stay `ConstValue::Op` and become override expressions.

use std::collections::{BTreeSet, HashMap};

use spirv::Op;

use crate::Options;
use crate::error::{Error, Location};
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
        if let ConstValue::Op { op, operands } = &constant.value
            && let Some(value) = fold(module, constant.ty, *op, operands)
        {
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
/// or the operation is one this does not fold (it then stays an override expression).
fn fold(module: &mut Module, ty: Id, op: Op, operands: &[Operand]) -> Option<ConstValue> {
    if op == Op::CompositeExtract {
        return fold_extract(module, operands);
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

/// A component of an ordinary composite constant: the value of the part it names.
fn fold_extract(module: &Module, operands: &[Operand]) -> Option<ConstValue> {
    let mut id = id_at(operands, 0)?;
    for operand in &operands[1..] {
        let Operand::LiteralBit32(index) = operand else {
            return None;
        };
        let constant = module.constant(id)?;
        match &constant.value {
            ConstValue::Composite(parts) if constant.spec_id.is_none() => id = *parts.get(*index as usize)?,
            _ => return None,
        }
    }
    let constant = module.constant(id)?;
    match constant.value {
        ConstValue::Scalar(_) | ConstValue::Bool(_) if constant.spec_id.is_none() => Some(constant.value.clone()),
        _ => None,
    }
}
