"""A small SPIR-V compute module as a list of blocks per function, as fuzz/random_spirv.py builds
it: written out as SPIR-V assembly, and run on the CPU with SPIR-V's semantics (phis by
predecessor, switches by label), which is how the generator knows what each module computes."""

import math
import struct

from spirv_textures import (HANDLES, STORAGE_IMAGE_MODELS, TEXTURE_INSTRUCTIONS, TEXTURE_MODELS, float_bits,
                            handle_type)

MASK = 0xFFFF_FFFF
STEP_LIMIT = 1_000_000  # blocks entered per invocation: more is a generator bug

# op: (opcode, result type, value). Shifts and remainders only ever get constant right operands
# in range, so both sides compute them alike.
BINARY = {
    "add": ("OpIAdd", "uint", lambda a, b: (a + b) & MASK),
    "mul": ("OpIMul", "uint", lambda a, b: (a * b) & MASK),
    "xor": ("OpBitwiseXor", "uint", lambda a, b: a ^ b),
    "and": ("OpBitwiseAnd", "uint", lambda a, b: a & b),
    "or": ("OpBitwiseOr", "uint", lambda a, b: a | b),
    "shr": ("OpShiftRightLogical", "uint", lambda a, b: a >> b),
    "umod": ("OpUMod", "uint", lambda a, b: a % b),
    "ult": ("OpULessThan", "bool", lambda a, b: a < b),
    "uge": ("OpUGreaterThanEqual", "bool", lambda a, b: a >= b),
    "eq": ("OpIEqual", "bool", lambda a, b: a == b),
    "ne": ("OpINotEqual", "bool", lambda a, b: a != b),
    "land": ("OpLogicalAnd", "bool", lambda a, b: a and b),
    "lor": ("OpLogicalOr", "bool", lambda a, b: a or b),
    "isub": ("OpISub", "int", lambda a, b: (a - b + 2**31) % 2**32 - 2**31),
}


# The other ops whose result is a u32 value (for the pool of values to use).
U32_OPS = {"select", "gid", "load_input", "load_trace", "call", "to_uint"}


def signed(x):
    """The 32-bit pattern `x` read as a signed integer."""
    x &= MASK
    return x - (1 << 32) if x >> 31 else x


def quotient(a, b):
    """`a / b` of signed integers, truncated toward zero (OpSDiv)."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def remainder(a, b):
    """OpSRem: the remainder takes the dividend's sign."""
    a, b = signed(a), signed(b)
    return a - b * quotient(a, b)


def modulo(a, b):
    """OpSMod: the remainder takes the divisor's sign."""
    r = remainder(a, b)
    return r + signed(b) if r and (r < 0) != (signed(b) < 0) else r


def most_significant_signed(x):
    """FindSMsb: the highest bit that differs from the sign bit, -1 for 0 and -1."""
    s = signed(x)
    return (~s if s < 0 else s).bit_length() - 1


def extract(x, offset, count, sign_extend):
    """OpBitField[SU]Extract: `count` bits of `x` from `offset`, widened."""
    if count == 0:
        return 0
    field = (x >> offset) & ((1 << count) - 1)
    return field - (1 << count) if sign_extend and field >> (count - 1) else field


def insert(base, field, offset, count):
    """OpBitFieldInsert: `count` low bits of `field` into `base` at `offset`."""
    mask = ((1 << count) - 1) << offset
    return (base & ~mask) | ((field << offset) & mask)


def vector_type(scalar, width):
    """`%int` for one component, `%v3int` for three (the module declares each)."""
    return scalar if width == 1 else f"%v{width}{scalar[1:]}"


def componentwise(model, args):
    """`model` applied per component where an operand is a vector (a list); scalars stay."""
    width = max((len(a) for a in args if isinstance(a, list)), default=0)
    if not width:
        return model(*args)
    return [model(*[a[i] if isinstance(a, list) else a for a in args]) for i in range(width)]


def flat(value):
    return [x for v in value for x in flat(v)] if isinstance(value, list) else [value]


def exact_in_f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0] == x


def exact_in_f16(x):
    try:
        return struct.unpack("<e", struct.pack("<e", x))[0] == x
    except OverflowError:
        return False


def masked(value):
    return [v & MASK for v in value] if isinstance(value, list) else value & MASK


# Integer operations whose operands and result may each be signed or unsigned, as SPIR-V allows
# and WGSL does not (the signedness pass's work): name -> (spelling, operands, result, model).
# An operand is `any` value, a signed `divisor` (2 to 255, maybe negated: no division by 0 or
# overflow of the most negative value by -1), an unsigned `udivisor` (odd), a `shift` amount
# under 32, a bit `offset` and `count` within the word, `same` (a value of the result's type),
# `low` and `high` (bounds, the first not above the second). The result is `either` type, `bool`,
# or `int` or `uint` with every operand of that type too: GLSL.std.450's signed and unsigned
# operations keep to their own signedness, since spirv-opt (2023.1) folds them on constants by
# the types instead (SMin of -563 and 482 as uints gives 482: seed 9766's -O variant), and OpUDiv
# and OpUMod must. Models take and give 32-bit patterns (bools for comparisons); the runner masks.
INTEGER = {
    "iadd": ("OpIAdd", ("any", "any"), "either", lambda a, b: a + b),
    "isub": ("OpISub", ("any", "any"), "either", lambda a, b: a - b),
    "imul": ("OpIMul", ("any", "any"), "either", lambda a, b: a * b),
    "sdiv": ("OpSDiv", ("any", "divisor"), "either", lambda a, b: quotient(signed(a), signed(b))),
    "srem": ("OpSRem", ("any", "divisor"), "either", remainder),
    "smod": ("OpSMod", ("any", "divisor"), "either", modulo),
    "udiv": ("OpUDiv", ("any", "udivisor"), "uint", lambda a, b: a // b),
    "umod": ("OpUMod", ("any", "udivisor"), "uint", lambda a, b: a % b),
    "sra": ("OpShiftRightArithmetic", ("any", "shift"), "either", lambda a, b: signed(a) >> b),
    "srl": ("OpShiftRightLogical", ("any", "shift"), "either", lambda a, b: a >> b),
    "sll": ("OpShiftLeftLogical", ("any", "shift"), "either", lambda a, b: a << b),
    "snegate": ("OpSNegate", ("any",), "either", lambda a: -signed(a)),
    "bnot": ("OpNot", ("any",), "either", lambda a: ~a),
    "band": ("OpBitwiseAnd", ("any", "any"), "either", lambda a, b: a & b),
    "bor": ("OpBitwiseOr", ("any", "any"), "either", lambda a, b: a | b),
    "bxor": ("OpBitwiseXor", ("any", "any"), "either", lambda a, b: a ^ b),
    "ieq": ("OpIEqual", ("any", "any"), "bool", lambda a, b: a == b),
    "ine": ("OpINotEqual", ("any", "any"), "bool", lambda a, b: a != b),
    "slt": ("OpSLessThan", ("any", "any"), "bool", lambda a, b: signed(a) < signed(b)),
    "sle": ("OpSLessThanEqual", ("any", "any"), "bool", lambda a, b: signed(a) <= signed(b)),
    "sgt": ("OpSGreaterThan", ("any", "any"), "bool", lambda a, b: signed(a) > signed(b)),
    "sge": ("OpSGreaterThanEqual", ("any", "any"), "bool", lambda a, b: signed(a) >= signed(b)),
    "ult": ("OpULessThan", ("any", "any"), "bool", lambda a, b: a < b),
    "ule": ("OpULessThanEqual", ("any", "any"), "bool", lambda a, b: a <= b),
    "ugt": ("OpUGreaterThan", ("any", "any"), "bool", lambda a, b: a > b),
    "uge": ("OpUGreaterThanEqual", ("any", "any"), "bool", lambda a, b: a >= b),
    "sextract": ("OpBitFieldSExtract", ("same", "offset", "count"), "either",
                 lambda x, o, c: extract(x, o, c, True)),
    "uextract": ("OpBitFieldUExtract", ("same", "offset", "count"), "either",
                 lambda x, o, c: extract(x, o, c, False)),
    "insert": ("OpBitFieldInsert", ("same", "same", "offset", "count"), "either", insert),
    "bitcount": ("OpBitCount", ("any",), "either", lambda a: bin(a).count("1")),
    "bitreverse": ("OpBitReverse", ("same",), "either", lambda a: int(f"{a:032b}"[::-1], 2)),
    "sabs": ("GLSL.std.450 SAbs", ("any",), "int", lambda a: abs(signed(a))),
    "ssign": ("GLSL.std.450 SSign", ("any",), "int", lambda a: (signed(a) > 0) - (signed(a) < 0)),
    "smin": ("GLSL.std.450 SMin", ("any", "any"), "int", lambda a, b: min(signed(a), signed(b))),
    "smax": ("GLSL.std.450 SMax", ("any", "any"), "int", lambda a, b: max(signed(a), signed(b))),
    "umin": ("GLSL.std.450 UMin", ("any", "any"), "uint", min),
    "umax": ("GLSL.std.450 UMax", ("any", "any"), "uint", max),
    "sclamp": ("GLSL.std.450 SClamp", ("any", "low", "high"), "int",
               lambda x, lo, hi: min(max(signed(x), signed(lo)), signed(hi))),
    "uclamp": ("GLSL.std.450 UClamp", ("any", "low", "high"), "uint", lambda x, lo, hi: min(max(x, lo), hi)),
    "findsmsb": ("GLSL.std.450 FindSMsb", ("any",), "int", most_significant_signed),
    "findumsb": ("GLSL.std.450 FindUMsb", ("any",), "uint", lambda a: a.bit_length() - 1),
    "findilsb": ("GLSL.std.450 FindILsb", ("any",), "either", lambda a: (a & -a).bit_length() - 1),
}



# Operations on 32-bit floats (scalars and vectors): name -> (spelling, operands, result, model).
# Every value is a multiple of 1/64 well inside f32's exact range, so each operation is exact on
# every device and in the model (Python's doubles): operands are `any` value (a multiple of 1/4
# under 256 in magnitude), a `power` of two (division and remainders by it are exact), a
# `nonnegative` value (its absolute value: OpConvertFToU of a negative is undefined), clamp bounds
# `low` and `high` in order, an integer `exponent` for Ldexp, a mix `weight` of 0 to 1 in
# quarters, one `scalar` (OpVectorTimesScalar). Results are `float`, `bool` (comparisons; no NaN is
# ever made, so ordered and unordered ones agree), `int` or `uint` (conversions), or `dot` (a
# scalar of vectors). OpDot and OpVectorTimesScalar take vectors only.
FLOAT = {
    "fadd": ("OpFAdd", ("any", "any"), "float", lambda a, b: a + b),
    "fsub": ("OpFSub", ("any", "any"), "float", lambda a, b: a - b),
    "fmul": ("OpFMul", ("any", "any"), "float", lambda a, b: a * b),
    "fdiv": ("OpFDiv", ("any", "power"), "float", lambda a, b: a / b),
    "frem": ("OpFRem", ("any", "power"), "float", math.fmod),
    "fmod": ("OpFMod", ("any", "power"), "float", lambda a, b: a - b * math.floor(a / b)),
    "fnegate": ("OpFNegate", ("any",), "float", lambda a: -a),
    "quantize": ("OpQuantizeToF16", ("any",), "float", lambda a: a),
    **{name: (spelling, ("any", "any"), "bool", model) for name, spelling, model in [
        ("foeq", "OpFOrdEqual", lambda a, b: a == b),
        ("fone", "OpFOrdNotEqual", lambda a, b: a != b),
        ("folt", "OpFOrdLessThan", lambda a, b: a < b),
        ("fole", "OpFOrdLessThanEqual", lambda a, b: a <= b),
        ("fogt", "OpFOrdGreaterThan", lambda a, b: a > b),
        ("foge", "OpFOrdGreaterThanEqual", lambda a, b: a >= b),
        ("fueq", "OpFUnordEqual", lambda a, b: a == b),
        ("fune", "OpFUnordNotEqual", lambda a, b: a != b),
        ("fult", "OpFUnordLessThan", lambda a, b: a < b),
        ("fuge", "OpFUnordGreaterThanEqual", lambda a, b: a >= b),
    ]},
    "isnan": ("OpIsNan", ("any",), "bool", lambda a: False),
    "isinf": ("OpIsInf", ("any",), "bool", lambda a: False),
    "ftos": ("OpConvertFToS", ("any",), "int", math.trunc),
    "ftou": ("OpConvertFToU", ("nonnegative",), "uint", math.trunc),
    "fabs": ("GLSL.std.450 FAbs", ("any",), "float", abs),
    "fsign": ("GLSL.std.450 FSign", ("any",), "float", lambda a: float((a > 0) - (a < 0))),
    "floor": ("GLSL.std.450 Floor", ("any",), "float", lambda a: float(math.floor(a))),
    "ceil": ("GLSL.std.450 Ceil", ("any",), "float", lambda a: float(math.ceil(a))),
    "trunc": ("GLSL.std.450 Trunc", ("any",), "float", lambda a: float(math.trunc(a))),
    "fract": ("GLSL.std.450 Fract", ("any",), "float", lambda a: a - math.floor(a)),
    "roundeven": ("GLSL.std.450 RoundEven", ("any",), "float", lambda a: float(round(a))),
    "fmin": ("GLSL.std.450 FMin", ("any", "any"), "float", min),
    "fmax": ("GLSL.std.450 FMax", ("any", "any"), "float", max),
    "nmin": ("GLSL.std.450 NMin", ("any", "any"), "float", min),
    "nmax": ("GLSL.std.450 NMax", ("any", "any"), "float", max),
    "fclamp": ("GLSL.std.450 FClamp", ("any", "low", "high"), "float", lambda x, lo, hi: min(max(x, lo), hi)),
    "step": ("GLSL.std.450 Step", ("any", "any"), "float", lambda edge, x: 0.0 if x < edge else 1.0),
    "ldexp": ("GLSL.std.450 Ldexp", ("any", "exponent"), "float", lambda x, e: x * 2.0 ** signed(e)),
    "fmix": ("GLSL.std.450 FMix", ("any", "any", "weight"), "float", lambda x, y, a: x * (1 - a) + y * a),
    "dot": ("OpDot", ("any", "any"), "dot", lambda a, b: sum(x * y for x, y in zip(a, b))),
    # On matrices (lists of columns); the operands' shapes follow from the result's (`MATRIX`).
    "matrix_times_vector": ("OpMatrixTimesVector", ("matrix", "vector"), "matrix", lambda m, v: [
        sum(column[row] * v[c] for c, column in enumerate(m)) for row in range(len(m[0]))]),
    "vector_times_matrix": ("OpVectorTimesMatrix", ("vector", "matrix"), "matrix", lambda v, m: [
        sum(x * y for x, y in zip(v, column)) for column in m]),
    "matrix_times_matrix": ("OpMatrixTimesMatrix", ("matrix", "matrix"), "matrix", lambda a, b: [
        [sum(a[k][row] * column[k] for k in range(len(a))) for row in range(len(a[0]))] for column in b]),
    "matrix_times_scalar": ("OpMatrixTimesScalar", ("matrix", "scalar"), "matrix", lambda m, s: [
        [x * s for x in column] for column in m]),
    "transpose": ("OpTranspose", ("matrix",), "matrix", lambda m: [list(row) for row in zip(*m)]),
    "outer_product": ("OpOuterProduct", ("vector", "vector"), "matrix", lambda a, b: [[x * y for x in a] for y in b]),
    "times_scalar": ("OpVectorTimesScalar", ("any", "scalar"), "float", lambda a, b: a * b),
}


# The operations of `INTEGER` an OpSpecConstantOp may do in a shader (SPIR-V 2.4's list for the
# Shader capability), and its logical ones: name -> (opcode, operand count, model).
SPEC_INTEGER = [name for name, entry in sorted(INTEGER.items()) if not entry[0].startswith(("GLSL", "OpBitField",
                                                                                               "OpBitCount", "OpBitReverse"))]
SPEC_LOGICAL = {
    "land": ("OpLogicalAnd", 2, lambda a, b: a and b),
    "lor": ("OpLogicalOr", 2, lambda a, b: a or b),
    "lnot": ("OpLogicalNot", 1, lambda a: not a),
    "leq": ("OpLogicalEqual", 2, lambda a, b: a == b),
    "lne": ("OpLogicalNotEqual", 2, lambda a, b: a != b),
}


# The operations of `FLOAT` on 16-bit floats: all but those on matrices and OpQuantizeToF16.
HALF = [name for name, entry in sorted(FLOAT.items()) if entry[2] != "matrix" and name != "quantize"]

# Integer operations with two results (OpIAddCarry and the like): name -> (opcode, the members'
# type or None for either, model of one lane giving the low and the high word). The result is a
# struct of two members of the operands' type (`%X` and the type's name: `%Xv2uint`).
EXTENDED = {
    "iaddcarry": ("OpIAddCarry", "%uint", lambda a, b: (a + b, (a + b) >> 32)),
    "isubborrow": ("OpISubBorrow", "%uint", lambda a, b: (a - b, int(a < b))),
    "umulextended": ("OpUMulExtended", "%uint", lambda a, b: (a * b, (a * b) >> 32)),
    "smulextended": ("OpSMulExtended", None, lambda a, b: (signed(a) * signed(b), signed(a) * signed(b) >> 32)),
}
EXTENDED_TYPES = [vector_type(scalar, n) for scalar in ("%uint", "%int") for n in (1, 2, 3, 4)]


def pack_norm(values, scale, low, bits):
    """GLSL.std.450's Pack[SU]norm: each value clamped to [low, 1], scaled, rounded, as a field of
    `bits` bits, the first value lowest."""
    word = 0
    for index, value in enumerate(values):
        word |= (round(min(max(value, low), 1.0) * scale) & ((1 << bits) - 1)) << (index * bits)
    return word


# GLSL.std.450's packing of floats into a word and back: name -> (instruction, operand type,
# result type, model). The norm packs take values whose scaled products are never halfway between
# two integers (SPIR-V lets a device round those either way): odd multiples of 1/8 times an odd
# scale. Half floats take values exact in f16, and unpack words of normal halves.
PACKING = {
    "packhalf": ("PackHalf2x16", "%v2float", "%uint", lambda v: struct.unpack("<I", struct.pack("<ee", *v))[0]),
    "unpackhalf": ("UnpackHalf2x16", "%uint", "%v2float", lambda w: list(struct.unpack("<ee", struct.pack("<I", w)))),
    "packsnorm4x8": ("PackSnorm4x8", "%v4float", "%uint", lambda v: pack_norm(v, 127, -1.0, 8)),
    "packunorm4x8": ("PackUnorm4x8", "%v4float", "%uint", lambda v: pack_norm(v, 255, 0.0, 8)),
    "packsnorm2x16": ("PackSnorm2x16", "%v2float", "%uint", lambda v: pack_norm(v, 32767, -1.0, 16)),
    "packunorm2x16": ("PackUnorm2x16", "%v2float", "%uint", lambda v: pack_norm(v, 65535, 0.0, 16)),
}

# How OpBitcast reads a scalar type's bits (struct's formats): u32 and i32 values are 32-bit
# patterns in the model.
BIT_FORMATS = {"%uint": "I", "%int": "I", "%float": "f", "%half": "e"}


def scalar_and_width(ty):
    """`%v3int` -> (`%int`, 3); `%int` -> (`%int`, 1)."""
    return ("%" + ty[3:], int(ty[2])) if ty.startswith("%v") else (ty, 1)


def reinterpret(value, source, target):
    """OpBitcast of `value` (of type `source`) to `target`: the same bits, little-endian lanes."""
    (scalar, width), (to_scalar, to_width) = scalar_and_width(source), scalar_and_width(target)
    lanes = value if isinstance(value, list) else [value]
    lanes = [lane & MASK if scalar in ("%uint", "%int") else lane for lane in lanes]
    read = list(struct.unpack("<" + BIT_FORMATS[to_scalar] * to_width, struct.pack(
        "<" + BIT_FORMATS[scalar] * width, *lanes)))
    return read if to_width > 1 else read[0]


# The values float operations take, by type: (count, step, mask, center): constants k/step for
# |k| <= count, and values at hand masked to `mask`, less `center`, over `step`. One operation on
# such values is exact in the type (`FLOAT`): multiples of 1/4 under 256 in f32, of 1/2 under 8
# in f16 (whose 11 bits hold a product's multiple of 1/4 under 64 and a dot product's under 256).
FLOAT_VALUES = {"%float": (256, 4, 2047, 1024), "%half": (16, 2, 31, 16)}


# The composite types a module declares, by name: ("vector", component, width), ("array",
# element, length) or ("struct", members). Values of them are lists (nested), their leaves 32-bit
# patterns or bools, None where SPIR-V leaves a lane undefined (OpUndef, a shuffle's 0xFFFFFFFF).
COMPOSITES = {
    **{vector_type(f"%{s}", n): ("vector", f"%{s}", n) for s in ("uint", "int", "bool", "float") for n in (2, 3, 4)},
    **{f"%mat{c}v{r}float": ("matrix", f"%v{r}float", c) for c, r in ((2, 2), (2, 3), (3, 2), (3, 3), (4, 4))},
    "%arr3uint": ("array", "%uint", 3),
    "%arr2v2int": ("array", "%v2int", 2),
    "%S": ("struct", ("%uint", "%v3int", "%arr2v2int", "%int")),
    "%arr2S": ("array", "%S", 2),
    "%SF": ("struct", ("%mat2v3float", "%v4float", "%float", "%arr3uint")),
}

def laid_out_types(prefix):
    """The types of a buffer's elements, named `%{prefix}A`... to `%{prefix}E` (the element), inner
    types first."""
    return {
        f"%{prefix}A": ("array", "%float", 3),
        f"%{prefix}B": ("array", "%v3int", 2),
        f"%{prefix}M": ("array", "%mat2v3float", 2),
        f"%{prefix}S": ("struct", ("%uint", "%v2float", "%mat3v2float")),
        f"%{prefix}C": ("array", f"%{prefix}S", 2),
        f"%{prefix}E": ("struct", ("%uint", "%v3float", f"%{prefix}A", "%mat3v3float", f"%{prefix}C", "%int",
                                   f"%{prefix}B", "%v4uint", f"%{prefix}M", "%float")),
    }


# The types of the storage buffer's elements (binding 2, `L`) and of the uniform buffer's (binding
# 3, `U`): declared apart from the others because explicit layout decorations (Offset,
# ArrayStride, MatrixStride, RowMajor) go on them, which each seed chooses at random (`Layout`).
# Values of them are composites like any other; no variable has them (Vulkan keeps laid-out types
# to memory that is laid out). Each array of matrices is reached through one struct member only:
# its stride fits that member's matrix layout.
LAID_OUT = laid_out_types("L")
UNIFORM_LAID_OUT = laid_out_types("U")
# The push constants: one struct, small enough for the 128 bytes every device has.
PUSH_LAID_OUT = {"%PE": ("struct", ("%uint", "%v3float", "%float", "%v2int", "%mat2v2float"))}
COMPOSITES.update(LAID_OUT)
COMPOSITES.update(UNIFORM_LAID_OUT)
COMPOSITES.update(PUSH_LAID_OUT)

# Undecorated twins of laid-out types, for OpCopyLogical (SPIR-V 1.4), which copies a value
# between two types that differ only in their decorations; either way.
TWINS = {"%LA": "%TA", "%LB": "%TB", "%LS": "%TS", "%LC": "%TC"}
COMPOSITES.update({"%TA": ("array", "%float", 3), "%TB": ("array", "%v3int", 2),
                   "%TS": ("struct", ("%uint", "%v2float", "%mat3v2float")), "%TC": ("array", "%TS", 2)})
TWINS.update({twin: ty for ty, twin in TWINS.items()})


# Atomic read-modify-writes on an integer of the storage buffer: name -> (opcode, the new value
# from the old one and the operand, as 32-bit patterns). Each invocation has an element of its
# own, so the results are the same in any order.
ATOMICS = {
    "iadd": ("OpAtomicIAdd", lambda old, v: old + v),
    "isub": ("OpAtomicISub", lambda old, v: old - v),
    "and": ("OpAtomicAnd", lambda old, v: old & v),
    "or": ("OpAtomicOr", lambda old, v: old | v),
    "xor": ("OpAtomicXor", lambda old, v: old ^ v),
    "exchange": ("OpAtomicExchange", lambda old, v: v),
    "smin": ("OpAtomicSMin", lambda old, v: min(signed(old), signed(v))),
    "smax": ("OpAtomicSMax", lambda old, v: max(signed(old), signed(v))),
    "umin": ("OpAtomicUMin", lambda old, v: min(old, v)),
    "umax": ("OpAtomicUMax", lambda old, v: max(old, v)),
}


def atomic(memory, pointer, update):
    """Replaces the integer at `pointer` by `update(old)`; returns old."""
    var, path = pointer
    old = at_path(memory[var], path)
    memory[var] = with_path(memory[var], path, update(old) & MASK)
    return old


def members(ty):
    """The types of a composite's members, in order."""
    kind, inner, n = (COMPOSITES[ty] + (None,))[:3]
    return list(inner) if kind == "struct" else [inner] * n


def undefined(ty):
    return [undefined(m) for m in members(ty)] if ty in COMPOSITES else None


def null_value(ty):
    if ty in COMPOSITES:
        return [null_value(m) for m in members(ty)]
    return {"%bool": False, "%float": 0.0}.get(ty, 0)


def pattern(value):
    """`value` with its integer leaves as 32-bit patterns (bools and floats stay as they are)."""
    if isinstance(value, list):
        return [pattern(v) for v in value]
    return value if value is None or isinstance(value, (bool, float)) else value & MASK


def at_path(value, path):
    for index in path:
        value = value[index]
    return value


def with_path(value, path, leaf):
    """A copy of the composite `value` with the member at `path` replaced by `leaf`."""
    if not path:
        return pattern(leaf)
    copy = list(value)
    copy[path[0]] = with_path(value[path[0]], path[1:], leaf)
    return copy


def compose(ty, parts):
    """OpCompositeConstruct: a vector's constituents may be vectors, their lanes then taken."""
    if ty not in COMPOSITES or COMPOSITES[ty][0] == "vector":  # float vectors are not in COMPOSITES
        return pattern([lane for part in parts for lane in (part if isinstance(part, list) else [part])])
    return pattern(parts)


def select_composite(condition, accept, reject):
    """OpSelect: a vector condition selects lane by lane, a scalar one the whole object."""
    if isinstance(condition, list):
        return [a if c else b for c, a, b in zip(condition, accept, reject)]
    return accept if condition else reject


# The models of the operations on composites and function variables: (value of a name, the
# variables' contents, operands...) -> the result. Values are never changed in place, so they
# may be shared.
COMPOSITE_MODELS = {
    "compose": lambda value, memory, ty, *parts: compose(ty, [value(p) for p in parts]),
    "extract": lambda value, memory, ty, whole, *path: at_path(value(whole), path),
    "composite_insert": lambda value, memory, ty, part, whole, *path: with_path(value(whole), path, value(part)),
    "shuffle": lambda value, memory, ty, a, b, *lanes: [
        None if lane == MASK else (value(a) + value(b))[lane] for lane in lanes],
    "extract_dynamic": lambda value, memory, ty, vector, index: value(vector)[value(index) & MASK],
    "insert_dynamic": lambda value, memory, ty, vector, part, index: with_path(
        value(vector), [value(index) & MASK], value(part)),
    "select_composite": lambda value, memory, ty, c, a, b: select_composite(value(c), value(a), value(b)),
    # Pointers are (variable, indices): equal where both are.
    "pointer_equal": lambda value, memory, opcode, a, b: (value(a) == value(b)) == (opcode == "OpPtrEqual"),
    "copy": lambda value, memory, ty, a: value(a),
    "copy_logical": lambda value, memory, ty, a: value(a),
    "undef": lambda value, memory, ty: undefined(ty),
    "load_variable": lambda value, memory, ty, var: memory[var],
    "store_variable": lambda value, memory, var, v: memory.__setitem__(var, pattern(value(v))),
    "copy_memory": lambda value, memory, destination, source: memory.__setitem__(destination, memory[source]),
    "chain": lambda value, memory, ty, storage, var, *indices: (var, [value(i) & MASK for i in indices]),
    # OpPtrAccessChain from an array element: its index stepped by a signed count.
    "ptr_chain": lambda value, memory, ty, storage, base, element: (
        value(base)[0], value(base)[1][:-1] + [(value(base)[1][-1] + value(element)) & MASK]),
    "load_pointer": lambda value, memory, ty, pointer, access: at_path(memory[value(pointer)[0]], value(pointer)[1]),
    "store_pointer": lambda value, memory, pointer, v, access: store(memory, value(pointer), value(v)),
    "array_length": lambda value, memory, buffer: len(memory[buffer][0]),
    "atomic": lambda value, memory, name, ty, pointer, v, scope: atomic(
        memory, value(pointer), lambda old: ATOMICS[name][1](old, value(v) & MASK)),
    "atomic_step": lambda value, memory, opcode, ty, pointer, scope: atomic(
        memory, value(pointer), lambda old: old + (1 if opcode == "OpAtomicIIncrement" else -1)),
    "atomic_load": lambda value, memory, ty, pointer, scope: at_path(memory[value(pointer)[0]], value(pointer)[1]),
    "atomic_store": lambda value, memory, pointer, v, scope: store(memory, value(pointer), value(v) & MASK),
    "atomic_compare": lambda value, memory, ty, pointer, v, comparator, scope: atomic(
        memory, value(pointer), lambda old: value(v) if old == value(comparator) & MASK else old),
    # A read of another invocation's workgroup slot between the two barriers: what the first pass
    # left there.
    "load_neighbor": lambda value, memory, ty, pointer: at_path(memory["%wg_at_barrier"], value(pointer)[1]),
    "copy_pointer": lambda value, memory, destination, source: store(
        memory, value(destination), at_path(memory[value(source)[0]], value(source)[1])),
}


def store(memory, pointer, value):
    """Stores `value` where `pointer` (a variable and a path in it) points."""
    var, path = pointer
    memory[var] = with_path(memory[var], path, value)


class Memory:
    """The variables a function sees, by name: its own, the invocation's private ones, the
    storage buffer all invocations share (`%data`), and its pointer parameter, which names a
    variable the caller sees."""

    def __init__(self, own, private, shared, aliases):
        self.maps = (own, private, shared)
        self.aliases = aliases  # parameter -> (the caller's Memory, the variable it names there)

    def holding(self, var):
        if var in self.aliases:
            memory, var = self.aliases[var]
            return memory.holding(var)
        return next(m for m in self.maps if var in m), var

    def __getitem__(self, var):
        holder, var = self.holding(var)
        return holder[var]

    def __setitem__(self, var, value):
        holder, var = self.holding(var)
        holder[var] = value


# The types function variables and their elements may have.
POINTEES = ["%uint", "%int", "%float"] + [ty for ty in COMPOSITES if "bool" not in ty and ty not in LAID_OUT
                                          and ty not in UNIFORM_LAID_OUT and ty not in PUSH_LAID_OUT]


def round_up(value, align):
    return -(-value // align) * align


def reachable(ty):
    """`ty` and the types of its members, theirs, and so on."""
    found = [ty]
    for member in members(ty) if ty in COMPOSITES else []:
        found += [t for t in reachable(member) if t not in found]
    return found



class Layout:
    """A random explicit layout of the `types` (`laid_out_types`) that Vulkan's standard layout
    allows: every offset and stride a multiple of its alignment (a scalar's 4 bytes, a vector of
    two 8, of three or four 16, an array's and a matrix's those of its element and column, or row
    if row-major; a struct's its largest member's; in a `uniform` buffer, an array's, a struct's
    and a matrix's rounded up to 16), nothing placed inside what comes before it, and then, at
    random, padded by more alignments. Matrices are column- or row-major, their MatrixStride at
    least their column's (or row's) size. Under the relaxed block layout (core from Vulkan 1.1:
    `relaxed`, a third of the seeds), a vector member of a struct is placed at any multiple of 4
    from which it does not cross a 16-byte boundary (spirv-val: "improperly straddling"). Under
    the scalar block layout (`scalar`, a fifth of the seeds; a device feature, which lavapipe
    has), everything is aligned as its components are, to 4: a `vec3` array's stride may be 12, a
    matrix's columns 12 bytes apart."""

    def __init__(self, r, types, uniform=False):
        self.relaxed = r.random() < 0.33
        self.scalar = not self.relaxed and r.random() < 0.3
        self.uniform = uniform and not self.scalar
        self.types = types
        self.strides = {}  # array type -> ArrayStride
        self.members = {}  # struct type -> [(Offset, (MatrixStride, row-major) or None)]
        self.sizes = {}  # laid-out type -> (size, alignment)
        # Inner types first; an array of matrices with the member that holds it.
        for ty, entry in types.items():
            if entry[0] == "struct":
                self.lay_out_struct(r, ty)
            elif not self.has_matrix(ty):
                self.lay_out_array(r, ty, None)
        self.element = list(types)[-1]
        size, align = self.sizes[self.element]
        self.element_stride = round_up(size, align) + r.choice([0, 0, 1]) * align

    @staticmethod
    def has_matrix(ty):
        """Whether `ty` is a matrix or an array (of arrays) of matrices."""
        while ty in COMPOSITES and COMPOSITES[ty][0] == "array":
            ty = COMPOSITES[ty][1]
        return ty in COMPOSITES and COMPOSITES[ty][0] == "matrix"

    def size_and_align(self, ty, matrix):
        """Size and alignment of `ty`, a matrix laid out by `matrix` (stride, row-major)."""
        if ty in self.types:
            return self.sizes[ty]
        if ty not in COMPOSITES:
            return 4, 4
        kind, inner, count = COMPOSITES[ty][:3]
        if kind == "vector":
            return 4 * count, 4 if self.scalar else 8 if count == 2 else 16
        stride, row_major = matrix
        vectors = COMPOSITES[inner][2] if row_major else count
        return vectors * stride, self.vector_align(ty, row_major)

    def vector_align(self, matrix, row_major):
        """The alignment of a matrix's column, or row if row-major (the matrix's too)."""
        _, column, columns = COMPOSITES[matrix]
        lanes = columns if row_major else COMPOSITES[column][2]
        return 4 if self.scalar else 8 if lanes == 2 and not self.uniform else 16

    def random_matrix(self, r, ty):
        """A random (MatrixStride, row-major) for the matrix `ty` (or arrays of it)."""
        while COMPOSITES[ty][0] == "array":
            ty = COMPOSITES[ty][1]
        row_major = r.random() < 0.5
        _, column, columns = COMPOSITES[ty]
        lanes = columns if row_major else COMPOSITES[column][2]
        align = self.vector_align(ty, row_major)
        return round_up(4 * lanes, align) + r.choice([0, 0, 1]) * align, row_major

    def lay_out_array(self, r, ty, matrix):
        _, element, count = self.types[ty]
        size, align = self.size_and_align(element, matrix)
        align = max(align, 16) if self.uniform else align
        self.strides[ty] = round_up(size, align) + r.choice([0, 0, 0, 1, 2]) * align
        self.sizes[ty] = (count * self.strides[ty], align)

    def lay_out_struct(self, r, ty):
        # Relaxed, a struct goes at a multiple of 16, so that its vectors' offsets within it tell
        # where they cross a 16-byte boundary.
        members, end, largest = [], 0, 16 if (self.relaxed or self.uniform) and not self.scalar else 4
        for member in self.types[ty][1]:
            matrix = None
            if self.has_matrix(member):
                matrix = self.random_matrix(r, member)
                if member in self.types:
                    self.lay_out_array(r, member, matrix)
            size, align = self.size_and_align(member, matrix)
            vector = member in COMPOSITES and COMPOSITES[member][0] == "vector"
            if vector and self.relaxed:
                places = range(round_up(end, 4), round_up(end, 16) + 16, 4)
                offset = r.choice([at for at in places if at % 16 + size <= 16][:3])
            else:
                offset = round_up(end, align) + r.choice([0, 0, 0, 1, 2]) * align
            members.append((offset, matrix))
            # What follows an array, struct or matrix starts past its alignment's next multiple.
            end = offset + size if member not in COMPOSITES or vector else round_up(offset + size, align)
            largest = max(largest, align)
        self.members[ty] = members
        self.sizes[ty] = (round_up(end, largest), largest)

    def decorations(self, elements=None):
        """The decorations of the types, and of `elements`, the array of the element type, if any."""
        lines = [f"OpDecorate {ty} ArrayStride {stride}" for ty, stride in self.strides.items()]
        if elements:
            lines.append(f"OpDecorate {elements} ArrayStride {self.element_stride}")
        for ty, members in self.members.items():
            for index, (offset, matrix) in enumerate(members):
                lines.append(f"OpMemberDecorate {ty} {index} Offset {offset}")
                if matrix:
                    lines.append(f"OpMemberDecorate {ty} {index} MatrixStride {matrix[0]}")
                    lines.append(f"OpMemberDecorate {ty} {index} {'RowMajor' if matrix[1] else 'ColMajor'}")
        return lines

    def write(self, words, ty, value, offset, matrix=None):
        """Writes `value` of `ty` into `words` (a list of 32-bit words) at byte `offset`."""
        if ty == "%float":
            words[offset // 4] = float_bits(value)
        elif ty not in COMPOSITES:
            words[offset // 4] = value & MASK
        elif COMPOSITES[ty][0] == "vector":
            for lane, part in enumerate(value):
                self.write(words, COMPOSITES[ty][1], part, offset + 4 * lane)
        elif COMPOSITES[ty][0] == "matrix":
            stride, row_major = matrix
            for column, lanes in enumerate(value):
                for row, part in enumerate(lanes):
                    at = row * stride + 4 * column if row_major else column * stride + 4 * row
                    self.write(words, "%float", part, offset + at)
        elif COMPOSITES[ty][0] == "array":
            for index, part in enumerate(value):
                self.write(words, COMPOSITES[ty][1], part, offset + index * self.strides[ty], matrix)
        else:
            for member, part, (at, inner) in zip(COMPOSITES[ty][1], value, self.members[ty]):
                self.write(words, member, part, offset + at, inner)


def function_type(fn):
    """A helper's function type, named by its parameters' types past the three u32 ones (a
    pointer, a handle): SPIR-V allows one declaration of each."""
    return "%helper_fn" + "".join("_" + ty[1:] for ty in parameter_types(fn)[3:])


def parameter_types(fn):
    return ["%uint"] * 3 + ([pointer(*fn.pointer)] if fn.pointer else []) + (
        [handle_type(*fn.handle)] if fn.handle else [])


# The letter of each storage class in the names of its pointer types.
STORAGE_LETTERS = {"Function": "f", "Private": "p", "StorageBuffer": "s", "Uniform": "u", "Workgroup": "w",
                   "PushConstant": "k"}


def pointer(ty, storage="Function"):
    """The pointer type to `ty` in `storage` (the module declares each it uses)."""
    return f"%p{STORAGE_LETTERS[storage]}_{ty[1:]}"


class GeneratorBug(Exception):
    pass


class Barrier(Exception):
    """The model's first pass over the invocations stops each at its first barrier."""


class Block:
    def __init__(self, label):
        self.label = label
        self.phis = []  # [result, {predecessor label: value}]
        self.phi_types = {}  # the phis of a type other than %uint
        self.insts = []  # (result, op, args)
        self.pointer_phis = False  # whether a phi chooses a pointer (no loop header may: WGSL)
        self.merge = None  # ("selection", merge) | ("loop", merge, continue target)
        self.control = "None"  # the merge instruction's hint: Flatten, DontUnroll...
        # ("branch", t) | ("cond", c, t, f) | ("switch", sel, default, [(lit, t)]) | ("return",)
        # | ("return_value", v) | ("unreachable",)
        self.term = ("unreachable",)


class Function:
    def __init__(self, name, params):
        self.name = name
        self.params = params
        self.blocks = []
        self.variables = []  # (name, type, initializer): function variables of composite types
        self.pointer = None  # (type, storage) of a fourth parameter, a pointer to a variable
        self.handle = None  # (variable, "pointer" or "value") of a last parameter, a texture's handle


def random_value(r, ty):
    """A value of the bool-free type `ty` to start a buffer with: floats multiples of 1/4 under 64."""
    if ty in COMPOSITES:
        return [random_value(r, m) for m in members(ty)]
    return r.randint(-256, 256) / 4 if ty == "%float" else r.getrandbits(32)


class LaidOutBuffer:
    """A buffer holding an array of `count` elements of the laid-out types' element, laid out at
    random: its layout, its elements at the start, and its words (the elements, random padding)."""

    def __init__(self, r, types, count, uniform=False):
        self.layout = Layout(r, types, uniform)
        self.elements = [random_value(r, self.layout.element) for _ in range(count)]
        self.words = [r.getrandbits(32) for _ in range(count * self.layout.element_stride // 4)]
        self.words = self.holding(self.elements)

    def holding(self, elements):
        """The buffer's words holding `elements`, its padding as it was at the start."""
        words = list(self.words)
        for index, element in enumerate(elements):
            self.layout.write(words, self.layout.element, element, index * self.layout.element_stride)
        return words


class Module:
    """Constants by name, functions (the entry point `%main` first), the input words, the SPIR-V
    version; the entry point has `invocations` invocations, each writing two words to storage
    buffer 1, reading and writing an element of storage buffer 2 (`%data`, an array of `%LE`) and
    reading the uniform buffer 3 (`%udata`, two `%UE`)."""

    def __init__(self, version, invocations):
        self.version = version
        self.minor_version = int(version.split(".")[1])  # of SPIR-V 1.N
        self.invocations = invocations
        self.consts = {}  # name -> (type, value)
        self.composite_consts = {}  # name -> (type, constituents or None), in the order to declare
        self.privates = []  # (name, type, initializer): Private variables of composite types
        self.functions = []
        self.inputs = []
        self.data = None  # LaidOutBuffer: %data, an element per invocation
        self.udata = None  # LaidOutBuffer: %udata
        self.push = None  # LaidOutBuffer: %pdata, the push constants (one %PE)
        self.halves = False  # whether 16-bit floats are declared (OpCapability Float16)
        self.bits = False  # whether the structs of OpIAddCarry and the like are declared
        self.textures = None  # Textures, where the module samples and fetches texels
        # Whether pointers are chosen at run time (OpCapability VariablePointers).
        self.variable_pointers = False
        # The storage-buffer pointer types OpPtrAccessChain steps along, by the type pointed to:
        # the array whose elements they point to, whose ArrayStride they take.
        self.stepped_arrays = {}
        # Specialization constants and OpSpecConstantOp results, in the order to declare: lines
        # of assembly; their values (as the pipeline sets them) and types by name; the SpecIds
        # given other values than their defaults, with those values.
        self.specs = []
        self.spec_values = {}
        self.spec_types = {}
        self.specializations = []
        self.spec_ids = 0

    def const(self, value):
        value &= MASK
        name = f"%u_{value}"
        self.consts[name] = ("uint", value)
        return name

    def bool_const(self, value):
        name = "%true" if value else "%false"
        self.consts[name] = ("bool", value)
        return name

    def int_const(self, value):
        name = f"%i_{value}" if value >= 0 else f"%i_minus_{-value}"
        self.consts[name] = ("int", value)
        return name

    def float_const(self, value, ty="%float"):
        name = ("%f_" if ty == "%float" else "%h_") + str(value).replace("-", "minus_").replace(".", "_")
        self.consts[name] = (ty[1:], value)
        return name

    def composite_const(self, ty, parts):
        """An OpConstantComposite of the constants `parts`, or with None an OpConstantNull."""
        name = f"%cc{len(self.composite_consts)}"
        self.composite_consts[name] = (ty, parts)
        return name

    def spec_constant(self, ty, default, value):
        """A new specialization constant of the scalar `ty` (`%uint`, `%int`, `%bool`): its
        default, and the value the pipeline gives it (the same or another)."""
        name, spec_id = f"%sc{self.spec_ids}", self.spec_ids
        self.spec_ids += 1
        if ty == "%bool":
            self.specs.append(f"{name} = OpSpecConstant{'True' if default else 'False'} %bool")
        else:
            self.specs.append(f"{name} = OpSpecConstant {ty} {signed(default) if ty == '%int' else default}")
        self.specs.append(f"OpDecorate {name} SpecId {spec_id}")
        if value != default:
            number = int(value) if ty == "%bool" else signed(value) if ty == "%int" else value
            self.specializations.append(f"; exec: spec {spec_id} {number}")
        self.spec_values[name], self.spec_types[name] = value, ty
        return name

    def spec_op(self, ty, opcode, operands, value):
        """An OpSpecConstantOp of `opcode` (`OpIAdd`) on the constants `operands`, whose value
        `value` the model computes."""
        name = f"%so{len(self.spec_values)}"
        self.specs.append(f"{name} = OpSpecConstantOp {ty} {opcode[2:]} {' '.join(operands)}")
        self.spec_values[name], self.spec_types[name] = value, ty
        return name

    def spec_composite(self, ty, parts):
        """An OpSpecConstantComposite of the vector type `ty` of `parts`, constants some of which
        depend on specialization constants."""
        name = f"%sv{len(self.spec_values)}"
        self.specs.append(f"{name} = OpSpecConstantComposite {ty} {' '.join(parts)}")
        self.spec_values[name], self.spec_types[name] = [self.constant_value(part) for part in parts], ty
        return name

    def constant_value(self, name):
        if name in self.spec_values:
            return self.spec_values[name]
        if name in self.consts:
            return self.consts[name][1]
        ty, parts = self.composite_consts[name]
        return null_value(ty) if parts is None else pattern([self.constant_value(p) for p in parts])

    def expected(self):
        """What storage buffers 1 and 2 hold after the run, and the storage images written (their
        words by binding). The entry point's invocations meet at
        two barriers first thing (`%wg`, the workgroup's slots): a first pass runs each up to the
        first barrier, where each has written its slot; the second runs each whole, reading the
        others' slots as the first pass left them (between the barriers nothing writes), and its
        own slot after them as any variable (only its invocation touches it)."""
        outputs = [0] * (2 * self.invocations)
        shared = {"%data": [self.data.elements], "%udata": [self.udata.elements], "%pdata": self.push.elements[0],
                  "%wg": [undefined("%S")] * self.invocations,
                  "images": self.textures.initial_images() if self.textures else {}}
        for first_pass in (True, False):
            for invocation in range(self.invocations):
                private = {var: self.constant_value(init) for var, _, init in self.privates}
                memory = {"gid": invocation, "out": outputs, "steps": 0, "private": private, "shared": shared,
                          "first_pass": first_pass}
                try:
                    self.run(self.functions[0], [], memory)
                except Barrier:
                    continue
            shared["%wg_at_barrier"] = shared["%wg"]
        images = self.textures.image_words(shared["images"]) if self.textures else {}
        return outputs, self.data.holding(shared["%data"][0]), images

    def run(self, fn, args, memory):
        env = dict(zip(fn.params, args))
        blocks = {b.label: b for b in fn.blocks}
        trace = [0]

        def value(name):
            return env[name] if name in env else self.constant_value(name)

        aliases = {param: arg for param, arg in env.items() if isinstance(arg, tuple)}
        variables = Memory({var: value(init) for var, _, init in fn.variables}, memory["private"], memory["shared"],
                           aliases)

        block, previous = fn.blocks[0], None
        while True:
            memory["steps"] += 1
            if memory["steps"] > STEP_LIMIT:
                raise GeneratorBug("too many steps: a loop does not end")
            incoming = {phi: value(sources[previous]) for phi, sources in block.phis}
            env.update(incoming)
            for result, op, operands in block.insts:
                if op in BINARY:
                    env[result] = BINARY[op][2](value(operands[0]), value(operands[1]))
                elif op == "not":
                    env[result] = not value(operands[0])
                elif op == "integer":
                    name, _, *args = operands
                    result_value = componentwise(INTEGER[name][3], [masked(value(a)) for a in args])
                    env[result] = result_value if INTEGER[name][2] == "bool" else masked(result_value)
                elif op == "bitcast":
                    env[result] = masked(value(operands[1]))
                elif op == "to_uint":
                    env[result] = value(operands[0]) & MASK
                elif op == "to_int":
                    env[result] = value(operands[0]) - (1 << 32 if value(operands[0]) >= 1 << 31 else 0)
                elif op == "select":
                    env[result] = value(operands[1]) if value(operands[0]) else value(operands[2])
                elif op == "gid":
                    env[result] = memory["gid"]
                elif op == "barrier":
                    if memory["first_pass"]:
                        raise Barrier()
                elif op == "load_input":
                    env[result] = self.inputs[value(operands[0])]
                elif op == "store_output":
                    memory["out"][value(operands[0])] = value(operands[1])
                elif op == "load_trace":
                    env[result] = trace[0]
                elif op == "store_trace":
                    trace[0] = value(operands[0])
                elif op == "float":
                    name, _, *args = operands
                    model = FLOAT[name][3]
                    values = [value(a) for a in args]
                    whole = FLOAT[name][2] in ("dot", "matrix")
                    env[result] = model(*values) if whole else componentwise(model, values)
                    if FLOAT[name][2] in ("int", "uint"):
                        env[result] = masked(env[result])
                    elif FLOAT[name][2] != "bool":
                        exact, width = (exact_in_f16, 16) if "half" in operands[1] else (exact_in_f32, 32)
                        if not all(map(exact, flat(env[result]))):
                            raise GeneratorBug(f"{name} gives {env[result]}, not exact in f{width}")
                elif op == "to_float":
                    # OpConvertUToF or OpConvertSToF of a value under 2**31: the same number.
                    env[result] = float(value(operands[2]))
                elif op == "fconvert":
                    # Between f16 and f32, of a value exact in both.
                    env[result] = value(operands[1])
                elif op == "extended":
                    name, _, *args = operands
                    pairs = componentwise(EXTENDED[name][2], [masked(value(a)) for a in args])
                    env[result] = [masked([pair[k] for pair in pairs] if isinstance(pairs, list) else pairs[k])
                                   for k in (0, 1)]
                elif op == "packing":
                    name, _, operand = operands
                    env[result] = PACKING[name][3](value(operand))
                elif op == "reinterpret":
                    ty, operand, source = operands
                    env[result] = reinterpret(value(operand), source, ty)
                elif op == "any_all":
                    env[result] = (any if operands[0] == "OpAny" else all)(value(operands[1]))
                elif op in COMPOSITE_MODELS:
                    env[result] = COMPOSITE_MODELS[op](value, variables, *operands)
                elif op in TEXTURE_MODELS:
                    env[result] = TEXTURE_MODELS[op](value, self.textures, *operands)
                elif op in STORAGE_IMAGE_MODELS:
                    images = memory["shared"]["images"]
                    env[result] = STORAGE_IMAGE_MODELS[op](value, self.textures, images, *operands)
                elif op == "call":
                    callee = next(f for f in self.functions if f.name == operands[0])
                    # A pointer argument (a variable) goes as what it names in this function; a
                    # handle variable as itself (the model's value of a handle).
                    args = [(variables, a) if i == 3 and callee.pointer else a if a in HANDLES else value(a)
                            for i, a in enumerate(operands[1:])]
                    env[result] = self.run(callee, args, memory)
                else:
                    raise GeneratorBug(f"no model for {op}")
            kind = block.term[0]
            if kind == "branch":
                target = block.term[1]
            elif kind == "cond":
                target = block.term[2] if value(block.term[1]) else block.term[3]
            elif kind == "switch":
                selector = value(block.term[1])
                target = next((t for lit, t in block.term[3] if lit == selector), block.term[2])
            elif kind == "return":
                return None
            elif kind == "return_value":
                return value(block.term[1])
            else:
                raise GeneratorBug(f"{fn.name}: reached OpUnreachable in {block.label}")
            block, previous = blocks[target], block.label

    # --- SPIR-V assembly ---------------------------------------------------------------------

    def assembly(self, comments, expected):
        """The module as spirv-as reads it, after the `comments` lines, with the execution test's
        `exec:` lines stating `expected` (buffer 1's words, buffer 2's)."""
        textures = self.textures is not None
        interface = "%gid" if self.version == "1.3" else " ".join(
            ["%gid %inputs %outputs %data %udata %wg %pdata"] + [v for v, _, _ in self.privates]
            + (HANDLES if textures else []))
        lines = ["; SPIR-V", f"; Version: {self.version}"] + comments + [
            "; exec: dispatch 1 1 1",
            "; exec: storage 0: " + " ".join(map(str, self.inputs)),
            f"; exec: storage 1: 0*{2 * self.invocations}",
            "; exec: storage 2: " + " ".join(map(str, self.data.words)),
            "; exec: uniform 3: " + " ".join(map(str, self.udata.words)),
            "; exec: push: " + " ".join(map(str, self.push.words)),
            *self.specializations,
            *(self.textures.exec_lines() if textures else []),
            "; exec: cpu 1: " + " ".join(map(str, expected[0])),
            "; exec: cpu 2: " + " ".join(map(str, expected[1])),
            *[f"; exec: cpu {binding}: " + " ".join(map(str, words)) for binding, words in expected[2].items()],
            "               OpCapability Shader",
            *(["               OpCapability Float16"] if self.halves else []),
            *([f"OpCapability {name}" for name in self.textures.capabilities()] if textures else []),
            *(["OpCapability VariablePointers"] if self.variable_pointers else []),
            '      %glsl = OpExtInstImport "GLSL.std.450"',
            "               OpMemoryModel Logical GLSL450",
            f'               OpEntryPoint GLCompute %main "main" {interface}',
            f"               OpExecutionMode %main LocalSize {self.invocations} 1 1",
            '               OpName %main "main"',
        ]
        lines += [f'               OpName {f.name} "{f.name[1:]}"' for f in self.functions[1:]]
        # Twins under one name, as glslang names a struct a buffer holds and its values: where
        # WGSL spells them alike they are one WGSL struct.
        lines += [f'               OpName {ty} "Inner"' for ty in ("%LS", "%US", "%TS")]
        lines += [f'               OpName {ty} "Element"' for ty in ("%LE", "%UE")]
        lines += [
            "               OpDecorate %gid BuiltIn GlobalInvocationId",
            "               OpDecorate %rt_uint ArrayStride 4",
            "               OpDecorate %Buf Block",
            "               OpMemberDecorate %Buf 0 Offset 0",
            "               OpDecorate %inputs DescriptorSet 0",
            "               OpDecorate %inputs Binding 0",
            "               OpDecorate %outputs DescriptorSet 0",
            "               OpDecorate %outputs Binding 1",
            "OpDecorate %LBlk Block",
            "OpMemberDecorate %LBlk 0 Offset 0",
            "OpDecorate %data DescriptorSet 0",
            "OpDecorate %data Binding 2",
            "OpDecorate %UBlk Block",
            "OpMemberDecorate %UBlk 0 Offset 0",
            "OpDecorate %udata DescriptorSet 0",
            "OpDecorate %udata Binding 3",
            "OpDecorate %PE Block",
            *[line for line in self.specs if line.startswith("OpDecorate")],
            *(self.textures.decorations() if textures else []),
        ] + self.data.layout.decorations("%rt_LE") + self.udata.layout.decorations("%UArr") + self.push.layout.decorations()
        lines += [f"OpDecorate {pointer(ty, 'StorageBuffer')} ArrayStride {self.data.layout.strides[array]}"
                  for ty, array in self.stepped_arrays.items()]
        # A helper's pointer parameter may point to a private variable the helper also uses by name:
        # both are declared Aliased, which makes SPIR-V define what such accesses do.
        lines += [f"OpDecorate {var} Aliased" for var, _, _ in self.privates]
        lines += [f"OpDecorate {f.params[3]} Aliased" for f in self.functions if f.pointer]
        lines += [
            "       %void = OpTypeVoid",
            "    %void_fn = OpTypeFunction %void",
            "       %bool = OpTypeBool",
            "       %uint = OpTypeInt 32 0",
            "        %int = OpTypeInt 32 1",
            "  %helper_fn = OpTypeFunction %uint %uint %uint %uint",
            "     %v2uint = OpTypeVector %uint 2",
            "     %v3uint = OpTypeVector %uint 3",
            "     %v4uint = OpTypeVector %uint 4",
            "      %v2int = OpTypeVector %int 2",
            "      %v3int = OpTypeVector %int 3",
            "      %v4int = OpTypeVector %int 4",
            "     %v2bool = OpTypeVector %bool 2",
            "      %float = OpTypeFloat 32",
            "    %v2float = OpTypeVector %float 2",
            "    %v3float = OpTypeVector %float 3",
            "    %v4float = OpTypeVector %float 4",
            "     %v3bool = OpTypeVector %bool 3",
            "     %v4bool = OpTypeVector %bool 4",
            *([f"{ty} = OpTypeVector %half {n}" if n > 1 else f"{ty} = OpTypeFloat 16"
               for n, ty in ((1, "%half"), (2, "%v2half"), (3, "%v3half"), (4, "%v4half"))] if self.halves else []),
            "       %len2 = OpConstant %uint 2",
            "       %len3 = OpConstant %uint 3",
            "   %arr3uint = OpTypeArray %uint %len3",
            "  %arr2v2int = OpTypeArray %v2int %len2",
            "          %S = OpTypeStruct %uint %v3int %arr2v2int %int",
            "      %arr2S = OpTypeArray %S %len2",
        ]
        lines += [f"{ty} = OpTypeMatrix {entry[1]} {entry[2]}" for ty, entry in COMPOSITES.items()
                  if entry[0] == "matrix"]
        lines += [
            "         %SF = OpTypeStruct %mat2v3float %v4float %float %arr3uint",
        ]
        lines += [f"%X{ty[1:]} = OpTypeStruct {ty} {ty}" for ty in EXTENDED_TYPES if self.bits]
        for ty in [*LAID_OUT, *UNIFORM_LAID_OUT, *PUSH_LAID_OUT, "%TA", "%TB", "%TS", "%TC"]:
            entry = COMPOSITES[ty]
            if entry[0] == "array":
                lines.append(f"{ty} = OpTypeArray {entry[1]} %len{entry[2]}")
            else:
                lines.append(f"{ty} = OpTypeStruct {' '.join(entry[1])}")
        lines += [
            "%rt_LE = OpTypeRuntimeArray %LE",
            "%LBlk = OpTypeStruct %rt_LE",
            "%ps_LBlk = OpTypePointer StorageBuffer %LBlk",
            "%data = OpVariable %ps_LBlk StorageBuffer",
            f"%len_slots = OpConstant %uint {self.invocations}",
            "%Slots = OpTypeArray %S %len_slots",
            "%pw_Slots = OpTypePointer Workgroup %Slots",
            "%wg = OpVariable %pw_Slots Workgroup",
            "%UArr = OpTypeArray %UE %len2",
            "%UBlk = OpTypeStruct %UArr",
            "%pu_UBlk = OpTypePointer Uniform %UBlk",
            "%udata = OpVariable %pu_UBlk Uniform",
        ]
        lines += [f"{pointer(ty, storage)} = OpTypePointer {storage} {ty}"
                  for storage, element in (("StorageBuffer", "%LE"), ("Uniform", "%UE"), ("Workgroup", "%S"),
                                           ("PushConstant", "%PE"))
                  for ty in reachable(element)]
        lines.append("%pdata = OpVariable %pk_PE PushConstant")
        lines += [f"{pointer(ty, s)} = OpTypePointer {s} {ty}" for s in ("Function", "Private") for ty in POINTEES]
        lines += self.textures.declarations() if textures else []
        types = {function_type(f): parameter_types(f) for f in self.functions[1:]}
        lines += [f"{name} = OpTypeFunction %uint {' '.join(params)}" for name, params in types.items()
                  if name != "%helper_fn"]
        lines += [
            "    %rt_uint = OpTypeRuntimeArray %uint",
            "        %Buf = OpTypeStruct %rt_uint",
            "    %ptr_Buf = OpTypePointer StorageBuffer %Buf",
            "   %ptr_uint = OpTypePointer StorageBuffer %uint",
            " %ptr_v3uint = OpTypePointer Input %v3uint",
            "%ptr_in_uint = OpTypePointer Input %uint",
            "%ptr_fn_uint = OpTypePointer Function %uint",
            "     %inputs = OpVariable %ptr_Buf StorageBuffer",
            "    %outputs = OpVariable %ptr_Buf StorageBuffer",
            "        %gid = OpVariable %ptr_v3uint Input",
        ]
        self.const(0)
        constants = sorted(self.consts.items(), key=lambda c: c[1])
        for name, (ty, value) in constants:
            if ty == "bool":
                lines.append(f"{name} = OpConstant{'True' if value else 'False'} %bool")
            else:
                lines.append(f"{name} = OpConstant %{ty} {value}")
        for name, (ty, parts) in self.composite_consts.items():
            if parts is None:
                lines.append(f"{name} = OpConstantNull {ty}")
            else:
                lines.append(f"{name} = OpConstantComposite {ty} {' '.join(parts)}")
        lines += [line for line in self.specs if not line.startswith("OpDecorate")]
        lines += [f"{var} = OpVariable {pointer(ty, 'Private')} Private {init}" for var, ty, init in self.privates]
        for fn in self.functions:
            lines += self.function_assembly(fn)
        return "\n".join(lines) + "\n"

    def function_assembly(self, fn):
        main = fn.name == "%main"
        result, ty = ("%void", "%void_fn") if main else ("%uint", function_type(fn))
        lines = [f"{fn.name} = OpFunction {result} None {ty}"]
        if not main:
            lines += [f"{p} = OpFunctionParameter {ty}" for p, ty in zip(fn.params, parameter_types(fn))]
        for index, block in enumerate(fn.blocks):
            lines.append(f"{block.label} = OpLabel")
            if main and index == 0:
                lines.append("%trace = OpVariable %ptr_fn_uint Function")
            if index == 0:
                lines += [f"{var} = OpVariable {pointer(ty)} Function {init}" for var, ty, init in fn.variables]
            for result, sources in block.phis:
                pairs = " ".join(f"{v} {p}" for p, v in sources.items())
                lines.append(f"{result} = OpPhi {block.phi_types.get(result, '%uint')} {pairs}")
            for result, op, args in block.insts:
                lines += instruction(result, op, args)
            if block.merge and block.merge[0] == "loop":
                lines.append(f"OpLoopMerge {block.merge[1]} {block.merge[2]} {block.control}")
            elif block.merge:
                lines.append(f"OpSelectionMerge {block.merge[1]} {block.control}")
            lines.append(terminator(block.term))
        lines.append("OpFunctionEnd")
        return lines


# The instructions of each op but the binary and integer ones, given the result and the arguments.
INSTRUCTIONS = {
    "not": lambda r, a: [f"{r} = OpLogicalNot %bool {a[0]}"],
    "to_int": lambda r, a: [f"{r} = OpBitcast %int {a[0]}"],
    "to_uint": lambda r, a: [f"{r} = OpBitcast %uint {a[0]}"],
    "bitcast": lambda r, a: [f"{r} = OpBitcast {a[0]} {a[1]}"],
    "compose": lambda r, a: [f"{r} = OpCompositeConstruct {' '.join(a)}"],
    "extract": lambda r, a: [f"{r} = OpCompositeExtract {' '.join(map(str, a))}"],
    "composite_insert": lambda r, a: [f"{r} = OpCompositeInsert {' '.join(map(str, a))}"],
    "shuffle": lambda r, a: [f"{r} = OpVectorShuffle {' '.join(map(str, a))}"],
    "extract_dynamic": lambda r, a: [f"{r} = OpVectorExtractDynamic {' '.join(a)}"],
    "insert_dynamic": lambda r, a: [f"{r} = OpVectorInsertDynamic {' '.join(a)}"],
    "select_composite": lambda r, a: [f"{r} = OpSelect {' '.join(a)}"],
    "pointer_equal": lambda r, a: [f"{r} = {a[0]} %bool {a[1]} {a[2]}"],
    "copy": lambda r, a: [f"{r} = OpCopyObject {a[0]} {a[1]}"],
    "copy_logical": lambda r, a: [f"{r} = OpCopyLogical {a[0]} {a[1]}"],
    "undef": lambda r, a: [f"{r} = OpUndef {a[0]}"],
    "load_variable": lambda r, a: [f"{r} = OpLoad {a[0]} {a[1]}"],
    "store_variable": lambda r, a: [f"OpStore {a[0]} {a[1]}"],
    "copy_memory": lambda r, a: [f"OpCopyMemory {a[0]} {a[1]}"],
    "to_float": lambda r, a: [f"{r} = {a[1]} {a[0]} {a[2]}"],
    "fconvert": lambda r, a: [f"{r} = OpFConvert {a[0]} {a[1]}"],
    "extended": lambda r, a: [f"{r} = {EXTENDED[a[0]][0]} {a[1]} {a[2]} {a[3]}"],
    "packing": lambda r, a: [f"{r} = OpExtInst {a[1]} %glsl {PACKING[a[0]][0]} {a[2]}"],
    "reinterpret": lambda r, a: [f"{r} = OpBitcast {a[0]} {a[1]}"],
    "any_all": lambda r, a: [f"{r} = {a[0]} %bool {a[1]}"],
    "chain": lambda r, a: [f"{r} = OpAccessChain {pointer(a[0], a[1])} {' '.join(a[2:])}"],
    "ptr_chain": lambda r, a: [f"{r} = OpPtrAccessChain {pointer(a[0], a[1])} {' '.join(a[2:])}"],
    "load_pointer": lambda r, a: [f"{r} = OpLoad {a[0]} {a[1]} {a[2]}".rstrip()],
    "store_pointer": lambda r, a: [f"OpStore {a[0]} {a[1]} {a[2]}".rstrip()],
    "array_length": lambda r, a: [f"{r} = OpArrayLength %uint {a[0]} 0"],
    "copy_pointer": lambda r, a: [f"OpCopyMemory {a[0]} {a[1]}"],
    "load_neighbor": lambda r, a: [f"{r} = OpLoad {a[0]} {a[1]}"],
    # Workgroup execution and memory scope, AcquireRelease | WorkgroupMemory semantics.
    "barrier": lambda r, a: [f"OpControlBarrier {a[0]} {a[0]} {a[1]}"],
    # Scope Device (1) or Workgroup (2), semantics None (0).
    "atomic": lambda r, a: [f"{r} = {ATOMICS[a[0]][0]} {a[1]} {a[2]} {a[4]} %u_0 {a[3]}"],
    "atomic_step": lambda r, a: [f"{r} = {a[0]} {a[1]} {a[2]} {a[3]} %u_0"],
    "atomic_load": lambda r, a: [f"{r} = OpAtomicLoad {a[0]} {a[1]} {a[2]} %u_0"],
    "atomic_store": lambda r, a: [f"OpAtomicStore {a[0]} {a[2]} %u_0 {a[1]}"],
    "atomic_compare": lambda r, a: [f"{r} = OpAtomicCompareExchange {a[0]} {a[1]} {a[4]} %u_0 %u_0 {a[2]} {a[3]}"],
    "select": lambda r, a: [f"{r} = OpSelect %uint {a[0]} {a[1]} {a[2]}"],
    "gid": lambda r, a: [f"{r}_p = OpAccessChain %ptr_in_uint %gid %u_0", f"{r} = OpLoad %uint {r}_p"],
    "load_input": lambda r, a: [f"{r}_p = OpAccessChain %ptr_uint %inputs %u_0 {a[0]}", f"{r} = OpLoad %uint {r}_p"],
    "store_output": lambda r, a: [f"{r} = OpAccessChain %ptr_uint %outputs %u_0 {a[0]}", f"OpStore {r} {a[1]}"],
    "load_trace": lambda r, a: [f"{r} = OpLoad %uint %trace"],
    "store_trace": lambda r, a: [f"OpStore %trace {a[0]}"],
    "call": lambda r, a: [f"{r} = OpFunctionCall %uint {' '.join(a)}"],
}


def instruction(result, op, args):
    if op in BINARY:
        opcode, ty, _ = BINARY[op]
        return [f"{result} = {opcode} %{ty} {args[0]} {args[1]}"]
    if op in ("integer", "float"):
        name, ty, *operands = args
        spelling = (INTEGER if op == "integer" else FLOAT)[name][0]
        if spelling.startswith("GLSL.std.450 "):
            return [f"{result} = OpExtInst {ty} %glsl {spelling.split()[1]} {' '.join(operands)}"]
        return [f"{result} = {spelling} {ty} {' '.join(operands)}"]
    if op in INSTRUCTIONS:
        return INSTRUCTIONS[op](result, args)
    if op in TEXTURE_INSTRUCTIONS:
        return TEXTURE_INSTRUCTIONS[op](result, args)
    raise GeneratorBug(op)


def terminator(term):
    kind = term[0]
    if kind == "branch":
        return f"OpBranch {term[1]}"
    if kind == "cond":
        return f"OpBranchConditional {term[1]} {term[2]} {term[3]}"
    if kind == "switch":
        labels = " ".join(f"{lit} {t}" for lit, t in term[3])
        return f"OpSwitch {term[1]} {term[2]} {labels}".rstrip()
    if kind == "return":
        return "OpReturn"
    if kind == "return_value":
        return f"OpReturnValue {term[1]}"
    return "OpUnreachable"
