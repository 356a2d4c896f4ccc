//! The integer rules of `ops.rs`, read the way the pass reads them, must give WGSL that type-checks
//! and computes exactly what SPIR-V defines. Two small models check it on edge values, for every
//! declared signedness of operands and result: SPIR-V's definition of each opcode on bit patterns,
//! and WGSL's operators and builtins, whose behaviour follows the operand types.

use spirv::{GlslStd450Op as GLOp, Op};

use super::{computed, wanted};
use crate::ops::{CORE, GLSL_STD_450, Int, IntRule, Spelling, core_row};
use crate::wgsl::ast::{BinaryOp, UnaryOp};

/// A WGSL value: its type decides what an operator does to it.
#[derive(Debug, Clone, Copy, PartialEq)]
enum V {
    I(i32),
    U(u32),
    B(bool),
}

impl V {
    fn typed(bits: u32, signed: bool) -> V {
        if signed { V::I(bits as i32) } else { V::U(bits) }
    }
}

/// What SPIR-V defines, on bit patterns.
#[derive(Debug, PartialEq)]
enum Out {
    Bits(u32),
    Bool(bool),
}

const EDGES: &[u32] = &[0, 1, 2, 5, 31, 0x7fff_ffff, 0x8000_0000, 0x8000_0001, 0xffff_fffb, 0xffff_ffff];

/// An operation of `arity` operands, as SPIR-V defines it (`None` where it is undefined).
type Reference = fn(&[u32]) -> Option<Out>;

/// An operator or builtin as WGSL evaluates it (`None` where WGSL rejects the operand types).
type Wgsl<'a> = Box<dyn Fn(&[V]) -> Option<V> + 'a>;

fn bits(v: i32) -> Option<Out> {
    Some(Out::Bits(v as u32))
}

fn core_reference(op: Op) -> Option<(usize, Reference)> {
    Some(match op {
        Op::IAdd => (2, |a| Some(Out::Bits(a[0].wrapping_add(a[1])))),
        Op::ISub => (2, |a| Some(Out::Bits(a[0].wrapping_sub(a[1])))),
        Op::IMul => (2, |a| Some(Out::Bits(a[0].wrapping_mul(a[1])))),
        Op::SDiv => (2, |a| (a[1] != 0).then(|| a[0] as i32).and_then(|x| x.checked_div(a[1] as i32)).and_then(bits)),
        Op::UDiv => (2, |a| a[0].checked_div(a[1]).map(Out::Bits)),
        Op::SRem => (2, |a| (a[1] != 0).then(|| a[0] as i32).and_then(|x| x.checked_rem(a[1] as i32)).and_then(bits)),
        Op::UMod => (2, |a| a[0].checked_rem(a[1]).map(Out::Bits)),
        Op::BitwiseAnd => (2, |a| Some(Out::Bits(a[0] & a[1]))),
        Op::BitwiseOr => (2, |a| Some(Out::Bits(a[0] | a[1]))),
        Op::BitwiseXor => (2, |a| Some(Out::Bits(a[0] ^ a[1]))),
        Op::ShiftLeftLogical => (2, |a| a[0].checked_shl(a[1]).map(Out::Bits)),
        Op::ShiftRightLogical => (2, |a| a[0].checked_shr(a[1]).map(Out::Bits)),
        Op::ShiftRightArithmetic => (2, |a| (a[0] as i32).checked_shr(a[1]).and_then(bits)),
        Op::IEqual => (2, |a| Some(Out::Bool(a[0] == a[1]))),
        Op::INotEqual => (2, |a| Some(Out::Bool(a[0] != a[1]))),
        Op::SLessThan => (2, |a| Some(Out::Bool((a[0] as i32) < a[1] as i32))),
        Op::SLessThanEqual => (2, |a| Some(Out::Bool(a[0] as i32 <= a[1] as i32))),
        Op::SGreaterThan => (2, |a| Some(Out::Bool(a[0] as i32 > a[1] as i32))),
        Op::SGreaterThanEqual => (2, |a| Some(Out::Bool(a[0] as i32 >= a[1] as i32))),
        Op::ULessThan => (2, |a| Some(Out::Bool(a[0] < a[1]))),
        Op::ULessThanEqual => (2, |a| Some(Out::Bool(a[0] <= a[1]))),
        Op::UGreaterThan => (2, |a| Some(Out::Bool(a[0] > a[1]))),
        Op::UGreaterThanEqual => (2, |a| Some(Out::Bool(a[0] >= a[1]))),
        Op::SNegate => (1, |a| bits((a[0] as i32).wrapping_neg())),
        Op::Not => (1, |a| Some(Out::Bits(!a[0]))),
        Op::BitReverse => (1, |a| Some(Out::Bits(a[0].reverse_bits()))),
        Op::BitCount => (1, |a| Some(Out::Bits(a[0].count_ones()))),
        Op::BitFieldInsert => (4, |a| {
            let (offset, count) = (a[2], a[3]);
            (offset.checked_add(count)? <= 32).then(|| {
                let mask = field_mask(offset, count);
                Out::Bits((a[0] & !mask) | (a[1].checked_shl(offset).unwrap_or(0) & mask))
            })
        }),
        Op::BitFieldSExtract => (3, |a| {
            let (offset, count) = (a[1], a[2]);
            (offset.checked_add(count)? <= 32).then(|| {
                if count == 0 {
                    Out::Bits(0)
                } else {
                    Out::Bits((((a[0] << (32 - offset - count)) as i32) >> (32 - count)) as u32)
                }
            })
        }),
        Op::BitFieldUExtract => (3, |a| {
            let (offset, count) = (a[1], a[2]);
            (offset.checked_add(count)? <= 32).then(|| Out::Bits((a[0] >> offset.min(31)) & field_mask(0, count)))
        }),
        _ => return None,
    })
}

/// `count` one bits starting at bit `offset` (`offset + count <= 32`).
fn field_mask(offset: u32, count: u32) -> u32 {
    let ones = if count >= 32 { u32::MAX } else { (1u32 << count) - 1 };
    ones.checked_shl(offset).unwrap_or(0)
}

fn msb_unsigned(x: u32) -> u32 {
    if x == 0 { u32::MAX } else { 31 - x.leading_zeros() }
}

fn msb_signed(x: i32) -> u32 {
    msb_unsigned(if x < 0 { !(x as u32) } else { x as u32 })
}

fn glsl_reference(op: GLOp) -> Option<(usize, Reference)> {
    Some(match op {
        GLOp::SAbs => (1, |a| bits((a[0] as i32).wrapping_abs())),
        GLOp::SSign => (1, |a| bits((a[0] as i32).signum())),
        GLOp::UMin => (2, |a| Some(Out::Bits(a[0].min(a[1])))),
        GLOp::SMin => (2, |a| bits((a[0] as i32).min(a[1] as i32))),
        GLOp::UMax => (2, |a| Some(Out::Bits(a[0].max(a[1])))),
        GLOp::SMax => (2, |a| bits((a[0] as i32).max(a[1] as i32))),
        GLOp::UClamp => (3, |a| (a[1] <= a[2]).then(|| Out::Bits(a[0].clamp(a[1], a[2])))),
        GLOp::SClamp => (3, |a| {
            let (x, low, high) = (a[0] as i32, a[1] as i32, a[2] as i32);
            (low <= high).then(|| Out::Bits(x.clamp(low, high) as u32))
        }),
        GLOp::FindILsb => (1, |a| Some(Out::Bits(if a[0] == 0 { u32::MAX } else { a[0].trailing_zeros() }))),
        GLOp::FindSMsb => (1, |a| Some(Out::Bits(msb_signed(a[0] as i32)))),
        GLOp::FindUMsb => (1, |a| Some(Out::Bits(msb_unsigned(a[0])))),
        _ => return None,
    })
}

/// WGSL's binary operators: `None` where WGSL rejects the operand types.
fn wgsl_binary(op: BinaryOp, a: V, b: V) -> Option<V> {
    use BinaryOp::*;
    use V::{B, I, U};
    Some(match (op, a, b) {
        (Add, I(x), I(y)) => I(x.wrapping_add(y)),
        (Add, U(x), U(y)) => U(x.wrapping_add(y)),
        (Subtract, I(x), I(y)) => I(x.wrapping_sub(y)),
        (Subtract, U(x), U(y)) => U(x.wrapping_sub(y)),
        (Multiply, I(x), I(y)) => I(x.wrapping_mul(y)),
        (Multiply, U(x), U(y)) => U(x.wrapping_mul(y)),
        // x / 0 and INT_MIN / -1 are x; x % 0 and INT_MIN % -1 are 0.
        (Divide, I(x), I(y)) => I(x.checked_div(y).unwrap_or(x)),
        (Divide, U(x), U(y)) => U(x.checked_div(y).unwrap_or(x)),
        (Modulo, I(x), I(y)) => I(x.checked_rem(y).unwrap_or(0)),
        (Modulo, U(x), U(y)) => U(x.checked_rem(y).unwrap_or(0)),
        (And, I(x), I(y)) => I(x & y),
        (And, U(x), U(y)) => U(x & y),
        (Or, I(x), I(y)) => I(x | y),
        (Or, U(x), U(y)) => U(x | y),
        (Xor, I(x), I(y)) => I(x ^ y),
        (Xor, U(x), U(y)) => U(x ^ y),
        // The amount is u32, and only its low five bits count.
        (ShiftLeft, I(x), U(y)) => I(x.wrapping_shl(y)),
        (ShiftLeft, U(x), U(y)) => U(x.wrapping_shl(y)),
        (ShiftRight, I(x), U(y)) => I(x.wrapping_shr(y)),
        (ShiftRight, U(x), U(y)) => U(x.wrapping_shr(y)),
        (Equal, I(x), I(y)) => B(x == y),
        (Equal, U(x), U(y)) => B(x == y),
        (NotEqual, I(x), I(y)) => B(x != y),
        (NotEqual, U(x), U(y)) => B(x != y),
        (Less, I(x), I(y)) => B(x < y),
        (Less, U(x), U(y)) => B(x < y),
        (LessEqual, I(x), I(y)) => B(x <= y),
        (LessEqual, U(x), U(y)) => B(x <= y),
        (Greater, I(x), I(y)) => B(x > y),
        (Greater, U(x), U(y)) => B(x > y),
        (GreaterEqual, I(x), I(y)) => B(x >= y),
        (GreaterEqual, U(x), U(y)) => B(x >= y),
        _ => return None,
    })
}

fn wgsl_unary(op: UnaryOp, a: V) -> Option<V> {
    match (op, a) {
        (UnaryOp::Negate, V::I(x)) => Some(V::I(x.wrapping_neg())),
        (UnaryOp::BitNot, V::I(x)) => Some(V::I(!x)),
        (UnaryOp::BitNot, V::U(x)) => Some(V::U(!x)),
        _ => None,
    }
}

/// WGSL's integer builtins; every operand has one type `T`, except bit-field offsets and counts,
/// which are u32.
fn wgsl_builtin(name: &str, args: &[V]) -> Option<V> {
    use V::{I, U};
    let (values, fields) = match name {
        "extractBits" => args.split_at(1),
        "insertBits" => args.split_at(2),
        _ => (args, &[][..]),
    };
    let all_signed = values.iter().all(|v| matches!(v, I(_)));
    let all_unsigned = values.iter().all(|v| matches!(v, U(_)));
    if !(all_signed || all_unsigned) || fields.iter().any(|v| !matches!(v, U(_))) {
        return None;
    }
    let raw: Vec<u32> = args
        .iter()
        .map(|v| match v {
            I(x) => *x as u32,
            U(x) => *x,
            V::B(_) => 0,
        })
        .collect();
    let out = |x: u32| if all_signed { I(x as i32) } else { U(x) };
    let order = |x: u32| if all_signed { i64::from(x as i32) } else { i64::from(x) };
    // Bit fields: the offset and count are clamped so the field fits in 32 bits.
    let (o, c) = match fields {
        [U(offset), U(count)] => (*offset.min(&32), *count.min(&(32 - offset.min(&32)))),
        _ => (0, 0),
    };
    Some(match name {
        "abs" => out(if all_signed { (raw[0] as i32).wrapping_abs() as u32 } else { raw[0] }),
        "sign" if all_signed => out((raw[0] as i32).signum() as u32),
        "min" => out(if order(raw[0]) <= order(raw[1]) { raw[0] } else { raw[1] }),
        "max" => out(if order(raw[0]) >= order(raw[1]) { raw[0] } else { raw[1] }),
        // clamp(e, low, high) is min(max(e, low), high).
        "clamp" => {
            let low = if order(raw[0]) >= order(raw[1]) { raw[0] } else { raw[1] };
            out(if order(low) <= order(raw[2]) { low } else { raw[2] })
        }
        "countOneBits" => out(raw[0].count_ones()),
        "reverseBits" => out(raw[0].reverse_bits()),
        "firstTrailingBit" => out(if raw[0] == 0 { u32::MAX } else { raw[0].trailing_zeros() }),
        "firstLeadingBit" => out(if all_signed { msb_signed(raw[0] as i32) } else { msb_unsigned(raw[0]) }),
        "extractBits" if c == 0 => out(0),
        "extractBits" => {
            let field = (raw[0] >> o.min(31)) & field_mask(0, c);
            let negative = all_signed && field >> (c - 1) & 1 == 1;
            out(if negative { field | !field_mask(0, c) } else { field })
        }
        "insertBits" => {
            let mask = field_mask(o, c);
            out((raw[0] & !mask) | (raw[1].checked_shl(o).unwrap_or(0) & mask))
        }
        _ => return None,
    })
}

/// Checks one operation on every combination of declared signedness and edge value; returns the
/// first disagreement.
fn check(
    name: &str,
    rule: IntRule,
    arity: usize,
    reference: Reference,
    wgsl: &dyn Fn(&[V]) -> Option<V>,
) -> Result<(), String> {
    for combination in 0..EDGES.len().pow(arity as u32) {
        let values: Vec<u32> =
            (0..arity).map(|i| EDGES[combination / EDGES.len().pow(i as u32) % EDGES.len()]).collect();
        let Some(expected) = reference(&values) else { continue };
        let int_result = matches!(expected, Out::Bits(_));
        for signs in 0..1u32 << (arity + 1) {
            let declared: Vec<bool> = (0..arity).map(|i| signs >> i & 1 == 1).collect();
            let result = int_result.then_some(signs >> arity & 1 == 1);
            let typed: Vec<V> = (0..arity)
                .map(|i| V::typed(values[i], wanted(rule.operand(i), declared[i], result, Some(declared[0]))))
                .collect();
            let context = || {
                format!(
                    "{name} on {values:x?}, operands declared signed {declared:?}, result {result:?}, WGSL sees {typed:?}"
                )
            };
            let Some(got) = wgsl(&typed) else { return Err(format!("WGSL rejects {}", context())) };
            let ok = match (&expected, got, result) {
                (Out::Bool(b), V::B(g), _) => *b == g,
                (Out::Bits(b), V::I(g), Some(declared)) => computed(rule).unwrap_or(declared) && *b == g as u32,
                (Out::Bits(b), V::U(g), Some(declared)) => !computed(rule).unwrap_or(declared) && *b == g,
                _ => false,
            };
            if !ok {
                return Err(format!("expected {expected:?}, got {got:?}: {}", context()));
            }
        }
    }
    Ok(())
}

#[test]
fn every_integer_rule_computes_what_spirv_defines() {
    let mut checked = 0;
    for row in CORE.iter().filter(|row| !row.int.operands.is_empty()) {
        let name = format!("Op{:?}", row.op);
        let wgsl: Wgsl = match row.spelling {
            Spelling::Binary(op) => Box::new(move |a: &[V]| wgsl_binary(op, a[0], a[1])),
            Spelling::Unary(op) => Box::new(move |a: &[V]| wgsl_unary(op, a[0])),
            Spelling::Builtin(builtin) => Box::new(move |a: &[V]| wgsl_builtin(builtin, a)),
            // Conversions involve floats; custom lowerings are checked by their fixtures.
            Spelling::Convert | Spelling::Custom => continue,
        };
        let (arity, reference) = core_reference(row.op).unwrap_or_else(|| panic!("{name} has no model in this test"));
        check(&name, row.int, arity, reference, &*wgsl).unwrap_or_else(|problem| panic!("{problem}"));
        checked += 1;
    }
    for row in GLSL_STD_450.iter().filter(|row| !row.int.operands.is_empty()) {
        let name = format!("{:?}", row.op);
        // These mix floats and integers.
        let mixed = matches!(
            row.op,
            GLOp::Ldexp
                | GLOp::UnpackSnorm2x16
                | GLOp::UnpackUnorm2x16
                | GLOp::UnpackHalf2x16
                | GLOp::UnpackSnorm4x8
                | GLOp::UnpackUnorm4x8
        );
        if mixed {
            continue;
        }
        let (arity, reference) = glsl_reference(row.op).unwrap_or_else(|| panic!("{name} has no model in this test"));
        check(&name, row.int, arity, reference, &|a: &[V]| wgsl_builtin(row.name, a))
            .unwrap_or_else(|problem| panic!("{problem}"));
        checked += 1;
    }
    assert!(checked >= 40, "only {checked} operations were checked");
}

#[test]
fn the_models_disagree_with_a_wrong_rule() {
    // Reading SDiv's operands as the result would divide -5 by 2 as unsigned numbers.
    let wrong = IntRule { operands: &[Int::AsResult], result: Int::AsResult };
    let (arity, reference) = core_reference(Op::SDiv).unwrap();
    assert!(check("OpSDiv", wrong, arity, reference, &|a: &[V]| wgsl_binary(BinaryOp::Divide, a[0], a[1])).is_err());
}

#[test]
fn shift_amounts_and_bit_field_positions_are_unsigned() {
    for op in [Op::ShiftLeftLogical, Op::ShiftRightLogical, Op::ShiftRightArithmetic] {
        assert_eq!(core_row(op).unwrap().int.operand(1), Int::Unsigned, "{op:?}");
    }
    assert_eq!(core_row(Op::BitFieldInsert).unwrap().int.operand(3), Int::Unsigned);
    assert_eq!(core_row(Op::BitFieldSExtract).unwrap().int.operand(2), Int::Unsigned);
}

#[test]
fn no_opcode_has_both_a_core_row_and_an_unsigned_result() {
    // `rule` asks the core table first: an opcode in both would lose its unsigned result.
    for &op in crate::ops::UNSIGNED_RESULTS {
        assert!(core_row(op).is_none(), "{op:?}");
    }
}

/// The module after the passes up to `signedness`.
fn rectified(text: &str) -> Result<crate::spirv::Module, crate::Error> {
    let words = crate::spirv::assemble::assemble(text).expect("assembles").words;
    let mut module = crate::spirv::load::load(&words)?;
    let options = crate::Options::default();
    super::super::entry_points::run(&mut module, &options)?;
    super::super::structurize::run(&mut module, &options)?;
    super::super::io_wrapper::run(&mut module, &options)?;
    super::run(&mut module, &options)?;
    Ok(module)
}

/// A compute shader with `declarations` and `body`, and int and uint types.
fn compute(declarations: &str, body: &str) -> String {
    format!(
        "OpCapability Shader\n\
         OpCapability ImageQuery\n\
         OpMemoryModel Logical GLSL450\n\
         OpEntryPoint GLCompute %main \"main\"\n\
         OpExecutionMode %main LocalSize 1 1 1\n\
         %void = OpTypeVoid\n\
         %fn = OpTypeFunction %void\n\
         %int = OpTypeInt 32 1\n\
         %uint = OpTypeInt 32 0\n\
         %float = OpTypeFloat 32\n\
         %v2int = OpTypeVector %int 2\n\
         %int_0 = OpConstant %int 0\n\
         %uint_1 = OpConstant %uint 1\n\
         %uint_2 = OpConstant %uint 2\n\
         {declarations}\n\
         %main = OpFunction %void None %fn\n\
         %entry = OpLabel\n\
         {body}\n\
         OpReturn\n\
         OpFunctionEnd\n"
    )
}

#[test]
fn image_queries_compute_unsigned_and_are_bitcast_to_the_declared_type() {
    let text = compute(
        "%image = OpTypeImage %float 2D 0 0 0 1 Unknown\n\
         %ptr_image = OpTypePointer UniformConstant %image\n\
         %texture = OpVariable %ptr_image UniformConstant\n\
         %ptr_v2int = OpTypePointer Function %v2int",
        "%kept = OpVariable %ptr_v2int Function\n\
         %loaded = OpLoad %image %texture\n\
         %size = OpImageQuerySizeLod %v2int %loaded %int_0\n\
         OpStore %kept %size",
    );
    let module = rectified(&text).expect("rectifies");
    let insts = &module.functions[0].insts;
    let order: Vec<_> = module.functions[0].blocks[0].insts.iter().map(|&i| &insts[i]).collect();
    let query = order.iter().position(|i| i.op == Op::ImageQuerySizeLod).expect("the query stays");
    let query_ty = module.ty(order[query].ty().unwrap()).unwrap().clone();
    let crate::spirv::Type::Vector { component, .. } = query_ty else { panic!("a vector: {query_ty:?}") };
    assert!(matches!(module.ty(component), Ok(crate::spirv::Type::Int { signed: false, .. })), "computed as u32");
    // The level operand is taken as it is: no cast before the query.
    assert!(order[..query].iter().all(|i| i.op != Op::Bitcast));
    let back = order[query + 1];
    assert_eq!((back.op, back.id(0)), (Op::Bitcast, order[query].result()), "then bitcast back to vec2<i32>");
}
