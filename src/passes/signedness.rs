//! Signedness rectifier: SPIR-V decides integer signedness by opcode, WGSL by type.
//!
//! Before: operands of an integer instruction may be `i32` or `u32` in any mix (`OpSDiv %uint
//! %a_int %b_uint`). After: every integer operand has the type WGSL needs for the opcode's
//! reading (the rules in `ops.rs`), and an instruction's result type is the one WGSL computes;
//! where that differs from the declared type, an `OpBitcast` back to it now defines the original
//! result id, so users are untouched. The output is minimal: a constant operand is re-typed
//! rather than cast (`1u`, not `bitcast<u32>(1i)`), a cast of a bitcast starts from the original
//! value (never `bitcast<A>(bitcast<B>(x))`), and a bitcast to the type its value already has
//! becomes a copy.

use spirv::{ImageOperands, Op};

use crate::Options;
use crate::error::Error;
use crate::id_hash::IdMap;
use crate::ops::{self, Int, IntRule};
use crate::spirv::{ConstValue, Constant, Def, ExtSet, Function, Id, Inst, Module, Operand, Type};

pub fn run(module: &mut Module, _options: &Options) -> Result<(), Error> {
    let mut retyped_constants = IdMap::default();
    let mut types = IntTypes::new(module);
    // Each block's list is rebuilt here, and handed over only if it gained a cast: most blocks
    // keep theirs, and the buffer is allocated again only after one that did.
    let mut new = Vec::new();
    for f in module.entry_functions() {
        let mut casts_may_be_unused = false;
        for b in 0..module.functions[f].blocks.len() {
            let old = std::mem::take(&mut module.functions[f].blocks[b].insts);
            new.clear();
            new.reserve(old.len());
            let mut rectifier = Rectifier {
                module,
                function: f,
                out: &mut new,
                constants: &mut retyped_constants,
                types: &mut types,
                casts_may_be_unused: &mut casts_may_be_unused,
            };
            for &index in &old {
                rectifier.instruction(index)?;
            }
            // Every instruction is kept, in order, and casts are only added: a list as long as
            // before is the same list.
            module.functions[f].blocks[b].insts = match new.len() == old.len() {
                true => old,
                false => {
                    let mut list = std::mem::take(&mut new);
                    list.shrink_to_fit();
                    list
                }
            };
        }
        if casts_may_be_unused {
            remove_unused_casts(&mut module.functions[f], f, &module.defs);
        }
        // Give back the room the load left beyond the bitcasts (or what doubling reserved, where
        // they did not fit in it) before the emitter allocates its trees.
        module.functions[f].insts.shrink_to_fit();
    }
    module.defs.shrink_to_fit();
    Ok(())
}

/// Drops bitcasts and copies nothing reads any more: those that looking through bitcasts left
/// behind, and chains of them. Each cast's uses are counted once; dropping one takes a use from
/// the cast it reads, which goes in turn when that was its last, so a chain costs its length.
/// Function `f` is `function`; `defs` find which operands are its casts.
fn remove_unused_casts(function: &mut Function, f: usize, defs: &[Def]) {
    // Only casts can go, so only their uses are counted, by instruction: `None` for others.
    // The casts are listed too, so that the walks after the count visit them, not every
    // instruction.
    let mut uses: Vec<Option<u32>> = vec![None; function.insts.len()];
    let mut casts = Vec::new();
    for &index in function.blocks.iter().flat_map(|block| &block.insts) {
        if matches!(function.insts[index].op, Op::Bitcast | Op::CopyObject) {
            uses[index] = Some(0);
            casts.push(index);
        }
    }
    if casts.is_empty() {
        return;
    }
    // The cast instruction defining `id` in this function, if it is one.
    let cast = |id: Id| match defs.get(id as usize) {
        Some(&Def::Value { function, inst, .. }) if function as usize == f => Some(inst as usize),
        _ => None,
    };
    for block in &function.blocks {
        for index in block.all_insts() {
            for id in function.insts[index].id_operands() {
                if let Some(Some(count)) = cast(id).and_then(|inst| uses.get_mut(inst)) {
                    *count += 1;
                }
            }
        }
    }
    let mut unused: Vec<usize> = casts.into_iter().filter(|&i| uses[i] == Some(0)).collect();
    if unused.is_empty() {
        return;
    }
    let mut dropped = vec![false; function.insts.len()];
    while let Some(index) = unused.pop() {
        dropped[index] = true;
        for operand in function.insts[index].id_operands() {
            if let Some(inst) = cast(operand)
                && let Some(Some(count)) = uses.get_mut(inst)
            {
                *count -= 1;
                if *count == 0 {
                    unused.push(inst);
                }
            }
        }
    }
    for block in &mut function.blocks {
        block.insts.retain(|&index| !dropped[index]);
    }
}

struct Rectifier<'a> {
    module: &'a mut Module,
    function: usize,
    /// The block's instruction list being rebuilt.
    out: &'a mut Vec<usize>,
    /// Constants already re-typed: (original, signed) to the new constant.
    constants: &'a mut IdMap<(Id, bool), Id>,
    types: &'a mut IntTypes,
    /// Whether the function may now have a cast nothing reads, for `remove_unused_casts` to
    /// drop: it had casts of its own, a result was redefined as a cast of its new value, or a
    /// cast was looked through. Otherwise every cast is one this pass made for the operand that
    /// reads it, and the walk counting uses is skipped (a tenth of the pass on long functions).
    casts_may_be_unused: &'a mut bool,
}

/// What the pass asks of integer types for every operand, answered by a look-up: it was three
/// definitions followed, and a hash of the whole type, each time.
struct IntTypes {
    /// `int_signedness` by type id, of the types declared when the pass starts; those it
    /// declares are past the end and asked of the module.
    signedness: Vec<Option<bool>>,
    /// `with_signedness`: (type, signed) to the type, as found so far.
    retyped: IdMap<(Id, bool), Id>,
}

impl IntTypes {
    fn new(module: &Module) -> IntTypes {
        let signedness = (module.defs.iter().enumerate())
            .map(|(id, def)| match def {
                Def::Type(_) => int_signedness(module, id as Id),
                _ => None,
            })
            .collect();
        IntTypes { signedness, retyped: IdMap::default() }
    }

    fn signedness(&self, module: &Module, ty: Id) -> Option<bool> {
        match self.signedness.get(ty as usize) {
            Some(&signed) => signed,
            None => int_signedness(module, ty),
        }
    }

    /// `with_signedness`: a type's id never changes once declared.
    fn with_signedness(&mut self, module: &mut Module, ty: Id, signed: bool) -> Id {
        *self.retyped.entry((ty, signed)).or_insert_with(|| with_signedness(module, ty, signed))
    }
}

/// The integer rule of an instruction and where its value operands start, if it has one.
fn rule(module: &Module, inst: &Inst) -> Option<(IntRule, usize)> {
    const UNSIGNED_RESULT: IntRule = IntRule { operands: &[Int::Either], result: Int::Unsigned };
    if inst.op == Op::ExtInst {
        let set = inst.id(0)?;
        if !matches!(module.def(set), Def::ExtInstSet(ExtSet::GlslStd450)) {
            return None;
        }
        return ops::glsl_row(inst.literal(1)?).map(|row| (row.int, 2));
    }
    // Asked first: nearly every integer instruction is in it (no opcode is in both lists).
    if let Some(row) = ops::core_row(inst.op) {
        return Some((row.int, 0));
    }
    if ops::UNSIGNED_RESULTS.contains(&inst.op) {
        return Some((UNSIGNED_RESULT, 0));
    }
    // Any other image instruction: only its image operands have a rule.
    let image = inst.operands.iter().any(|o| matches!(o, Operand::ImageOperands(_)));
    image.then_some((IntRule { operands: &[Int::Either], result: Int::AsResult }, 0))
}

/// For the id operands after an image-operands mask, in order: WGSL's texel offsets are `i32`,
/// everything else (levels, sample indices, gradients) is taken as it is.
fn image_operand_rules(mask: ImageOperands) -> Vec<Int> {
    const OPERANDS: &[(ImageOperands, usize, Int)] = &[
        (ImageOperands::BIAS, 1, Int::Either),
        (ImageOperands::LOD, 1, Int::Either),
        (ImageOperands::GRAD, 2, Int::Either),
        (ImageOperands::CONST_OFFSET, 1, Int::Signed),
        (ImageOperands::OFFSET, 1, Int::Signed),
        (ImageOperands::CONST_OFFSETS, 1, Int::Signed),
        (ImageOperands::SAMPLE, 1, Int::Either),
        (ImageOperands::MIN_LOD, 1, Int::Either),
        (ImageOperands::MAKE_TEXEL_AVAILABLE, 1, Int::Either),
        (ImageOperands::MAKE_TEXEL_VISIBLE, 1, Int::Either),
        (ImageOperands::OFFSETS, 1, Int::Signed),
    ];
    OPERANDS
        .iter()
        .filter(|(bit, ..)| mask.contains(*bit))
        .flat_map(|&(_, ids, rule)| std::iter::repeat_n(rule, ids))
        .collect()
}

impl Rectifier<'_> {
    fn func(&mut self) -> &mut Function {
        &mut self.module.functions[self.function]
    }

    fn instruction(&mut self, index: usize) -> Result<(), Error> {
        let inst = &self.module.functions[self.function].insts[index];
        if matches!(inst.op, Op::Bitcast | Op::CopyObject) {
            *self.casts_may_be_unused = true;
        }
        if inst.op == Op::Bitcast {
            let inst = inst.clone();
            self.collapse_bitcast(index, &inst);
            return Ok(());
        }
        // Most instructions have no integer rule: they are kept without a copy.
        let Some((rule, first)) = rule(self.module, inst) else {
            self.out.push(index);
            return Ok(());
        };
        if self.unchanged(inst, rule, first) {
            self.out.push(index);
            return Ok(());
        }
        let (op, result, ty) = (inst.op, inst.result(), inst.ty());
        let image_operands = inst.operands.iter().position(|o| matches!(o, Operand::ImageOperands(_)));
        let image_rules = match image_operands.map(|at| &inst.operands[at]) {
            Some(Operand::ImageOperands(mask)) => image_operand_rules(*mask),
            _ => Vec::new(),
        };
        let result_signed = ty.and_then(|ty| self.types.signedness(self.module, ty));
        let first_signed = inst.id(first).and_then(|id| self.value_signedness(id));
        // Taken out while its operands are rectified; casts are new instructions, never this one.
        let mut operands = std::mem::take(&mut self.func().insts[index].operands);
        for (position, operand) in operands.iter_mut().enumerate().skip(first) {
            let Operand::IdRef(id) = operand else { continue };
            let Some(have) = self.value_signedness(*id) else { continue };
            let reading = match image_operands {
                Some(at) if position > at => image_rules.get(position - at - 1).copied().unwrap_or(Int::Either),
                _ => rule.operand(position - first),
            };
            let want = wanted(reading, have, result_signed, first_signed);
            if want != have {
                *id = self.cast(*id, want);
            }
        }
        tame_constants(self.module, op, &mut operands[first..]);
        self.func().insts[index].operands = operands;
        match (computed(rule), result_signed, result, ty) {
            (Some(computed), Some(declared), Some(result), Some(ty)) if computed != declared => {
                let wgsl_ty = self.types.with_signedness(self.module, ty, computed);
                let fresh = self.module.add_def(Def::value(self.function, index, wgsl_ty));
                let inst = &mut self.func().insts[index];
                inst.set_result(fresh);
                inst.set_ty(wgsl_ty);
                self.out.push(index);
                self.push_bitcast(result, ty, fresh);
            }
            _ => self.out.push(index),
        }
        Ok(())
    }

    /// An input `OpBitcast` starts from the value before any bitcast, and is a plain copy when
    /// that value already has the target type or is an integer constant that can be re-typed.
    fn collapse_bitcast(&mut self, index: usize, inst: &Inst) {
        if let (Some(value), Some(ty)) = (inst.id(0), inst.ty()) {
            let mut source = self.before_bitcasts(value);
            if let Some(signed) = self.types.signedness(self.module, ty)
                && let Some(source_ty) = self.module.value_type(source)
                && self.types.with_signedness(self.module, source_ty, signed) == ty
                && let Some(constant) = self.retyped_constant(source, signed)
            {
                source = constant;
            }
            let copy = self.module.value_type(source) == Some(ty);
            let inst = &mut self.func().insts[index];
            inst.operands[0] = Operand::IdRef(source);
            if copy {
                inst.op = Op::CopyObject;
            }
        }
        self.out.push(index);
    }

    /// The signedness of a value's type, asked of its definition: a value the pass redefines
    /// keeps its type, so a table of them made up front (a look-up for every definition of the
    /// module, most never asked) would tell nothing more.
    #[inline]
    fn value_signedness(&self, id: Id) -> Option<bool> {
        self.types.signedness(self.module, self.module.value_type(id)?)
    }

    /// Whether rectifying `inst`, of integer rule `rule` with value operands from `first`, would
    /// leave it as it is: no image operands, no constant operand to tame, every integer operand
    /// read with the signedness it has, and the result computed with the one it is declared.
    /// Nearly every instruction is such, and is then kept without taking its operands apart.
    fn unchanged(&self, inst: &Inst, rule: IntRule, first: usize) -> bool {
        if tamed(inst.op).is_some() {
            return false;
        }
        let result_signed = inst.ty().and_then(|ty| self.types.signedness(self.module, ty));
        if inst.result().is_some()
            && let (Some(computed), Some(declared)) = (computed(rule), result_signed)
            && computed != declared
        {
            return false;
        }
        let values = inst.operands.get(first..).unwrap_or_default();
        values.iter().enumerate().all(|(position, operand)| match operand {
            Operand::IdRef(id) => self.value_signedness(*id).is_none_or(|have| {
                let reading = rule.operand(position);
                // Asked only by an operand read as the first one (equality): rare.
                let first_signed = match reading {
                    Int::AsFirst => inst.id(first).and_then(|id| self.value_signedness(id)),
                    _ => None,
                };
                wanted(reading, have, result_signed, first_signed) == have
            }),
            Operand::ImageOperands(_) => false,
            _ => true,
        })
    }

    /// The value bitcast `id` was made from, following chains of bitcasts; `id` itself if it is
    /// not a bitcast.
    fn before_bitcasts(&self, id: Id) -> Id {
        let mut value = id;
        // Bounded: a malformed module could define bitcasts of each other in a cycle.
        for _ in 0..64 {
            match self.module.def(value) {
                Def::Value { function, inst, .. } if *function as usize == self.function => {
                    let inst = &self.module.functions[self.function].insts[*inst as usize];
                    match (inst.op, inst.id(0)) {
                        (Op::Bitcast, Some(source)) => value = source,
                        _ => break,
                    }
                }
                _ => break,
            }
        }
        value
    }

    /// `id` read with the given signedness: the value before any bitcast if it already has
    /// that type, a re-typed constant, or a new `OpBitcast`.
    fn cast(&mut self, id: Id, signed: bool) -> Id {
        let ty = self.module.type_of(id).expect("integer operands have types");
        let target = self.types.with_signedness(self.module, ty, signed);
        let source = self.before_bitcasts(id);
        if source != id {
            *self.casts_may_be_unused = true;
        }
        if self.module.value_type(source) == Some(target) {
            return source;
        }
        if let Some(constant) = self.retyped_constant(source, signed) {
            return constant;
        }
        let fresh = self.module.bound;
        self.push_bitcast(fresh, target, source);
        fresh
    }

    /// Appends `%result = OpBitcast %ty %value` to the block being rebuilt, defining `%result`
    /// (which may be fresh, equal to `module.bound`, or an existing id being redefined).
    fn push_bitcast(&mut self, result: Id, ty: Id, value: Id) {
        let index = self.func().insts.len();
        self.func().insts.push(Inst::new(Op::Bitcast, Some(ty), Some(result), [Operand::IdRef(value)].into(), 0));
        let def = Def::value(self.function, index, ty);
        if result == self.module.bound {
            self.module.add_def(def);
        } else {
            self.module.defs[result as usize] = def;
            *self.casts_may_be_unused = true;
        }
        self.out.push(index);
    }

    /// The same bits as an integer constant of the other signedness, declared once per constant.
    fn retyped_constant(&mut self, id: Id, signed: bool) -> Option<Id> {
        let constant = self.module.constant(id)?.clone();
        self.types.signedness(self.module, constant.ty)?;
        if constant.spec_id.is_some() {
            return None;
        }
        if let Some(&done) = self.constants.get(&(id, signed)) {
            return Some(done);
        }
        let value = match &constant.value {
            ConstValue::Composite(parts) => {
                let parts = parts.clone();
                let mut retyped = Vec::with_capacity(parts.len());
                for part in parts {
                    retyped.push(self.retyped_constant(part, signed)?);
                }
                ConstValue::Composite(retyped)
            }
            other => other.clone(),
        };
        let ty = self.types.with_signedness(self.module, constant.ty, signed);
        let new = self.module.add_def(Def::Constant(Box::new(Constant { ty, value, spec_id: None })));
        self.module.declarations.push(new);
        self.constants.insert((id, signed), new);
        Some(new)
    }
}

/// Whether an operand of signedness `have` must be read as signed, given how the operation reads
/// it and the signedness of the declared result and of the first operand (where integers).
pub(crate) fn wanted(reading: Int, have: bool, result: Option<bool>, first: Option<bool>) -> bool {
    match reading {
        Int::Signed => true,
        Int::Unsigned => false,
        Int::AsResult => result.unwrap_or(have),
        Int::AsFirst => first.unwrap_or(have),
        Int::Either => have,
    }
}

/// The signedness WGSL computes an integer result in, when the operation fixes it.
pub(crate) fn computed(rule: IntRule) -> Option<bool> {
    match rule.result {
        Int::Signed => Some(true),
        Int::Unsigned => Some(false),
        Int::AsResult | Int::AsFirst | Int::Either => None,
    }
}

/// Whether an integer scalar or vector type is signed; `None` for other types.
pub fn int_signedness(module: &Module, ty: Id) -> Option<bool> {
    let (scalar, _) = module.scalar_of(ty)?;
    match module.type_def(scalar) {
        Some(Type::Int { signed, .. }) => Some(*signed),
        _ => None,
    }
}

/// The integer scalar or vector type like `ty` but with the given signedness.
pub fn with_signedness(module: &mut Module, ty: Id, signed: bool) -> Id {
    match module.type_def(ty).cloned() {
        Some(Type::Int { width, .. }) => module.intern_type(Type::Int { width, signed }),
        Some(Type::Vector { component, count }) => {
            let component = with_signedness(module, component, signed);
            module.intern_type(Type::Vector { component, count })
        }
        _ => ty,
    }
}

/// The constant operand an instruction's opcode may need tamed (`tame_constants`), by what WGSL
/// rejects in it: the one list of such opcodes, which `unchanged` asks too.
#[derive(Clone, Copy)]
enum Tamed {
    /// The divisor (operand 1): a zero.
    Divisor,
    /// The shift amount (operand 1): 32 or more.
    ShiftAmount,
    /// The offset and count (operands `at` and `at + 1`): past bit 31.
    Field { at: usize },
}

fn tamed(op: Op) -> Option<Tamed> {
    match op {
        Op::SDiv | Op::UDiv | Op::SRem | Op::UMod | Op::SMod => Some(Tamed::Divisor),
        Op::ShiftLeftLogical | Op::ShiftRightLogical | Op::ShiftRightArithmetic => Some(Tamed::ShiftAmount),
        Op::BitFieldInsert => Some(Tamed::Field { at: 2 }),
        Op::BitFieldSExtract | Op::BitFieldUExtract => Some(Tamed::Field { at: 1 }),
        _ => None,
    }
}

/// Constant operands WGSL rejects where SPIR-V only leaves the result undefined (of an
/// instruction here, of a specialization-constant operation in `spec_constants`): a zero
/// divisor, a shift by 32 or more, a bit field past bit 31. Each becomes the constant for
/// which WGSL computes what it defines for the original at run time: x / 0 is x and x % 0 is
/// 0 (as with a divisor of 1), shifts use the amount's low five bits, and bit-field offsets
/// and counts are clamped to the word.
pub fn tame_constants(module: &mut Module, op: Op, values: &mut [Operand]) {
    match tamed(op) {
        Some(Tamed::Divisor) => tame(module, values, 1, &|d| d.max(1)),
        Some(Tamed::ShiftAmount) => tame(module, values, 1, &|amount| amount & 31),
        Some(Tamed::Field { at }) => tame_field(module, values, at),
        None => {}
    }
}

/// The offset and count at `at` and `at + 1`, clamped as WGSL does: the offset to 32, the
/// count to what is left of the word.
fn tame_field(module: &mut Module, values: &mut [Operand], at: usize) {
    let offset = match values.get(at) {
        Some(Operand::IdRef(id)) => module.const_u32(*id).map(|o| o.min(32)),
        _ => None,
    };
    tame(module, values, at, &|o| o.min(32));
    tame(module, values, at + 1, &|c| c.min(32 - offset.unwrap_or(0)));
}

/// Applies `fix` to the components of the constant operand at `at`, if it is one.
fn tame(module: &mut Module, values: &mut [Operand], at: usize, fix: &dyn Fn(u32) -> u32) {
    if let Some(Operand::IdRef(id)) = values.get(at)
        && let Some(tamed) = mapped_constant(module, *id, fix)
    {
        values[at] = Operand::IdRef(tamed);
    }
}

/// A non-specialization integer constant with `fix` applied to each component; `None` when
/// `id` is no such constant or nothing changes.
fn mapped_constant(module: &mut Module, id: Id, fix: &dyn Fn(u32) -> u32) -> Option<Id> {
    let constant = module.constant(id)?.clone();
    int_signedness(module, constant.ty)?;
    if constant.spec_id.is_some() {
        return None;
    }
    let value = match &constant.value {
        ConstValue::Scalar(bits) => {
            let fixed = u64::from(fix(*bits as u32));
            if fixed == *bits {
                return None;
            }
            ConstValue::Scalar(fixed)
        }
        ConstValue::Null if fix(0) == 0 => return None,
        ConstValue::Null => {
            let (component, count) = module.scalar_of(constant.ty)?;
            let zero = ConstValue::Scalar(u64::from(fix(0)));
            if count == 1 {
                zero
            } else {
                let part =
                    module.add_def(Def::Constant(Box::new(Constant { ty: component, value: zero, spec_id: None })));
                ConstValue::Composite(vec![part; count as usize])
            }
        }
        ConstValue::Composite(parts) => {
            let parts = parts.clone();
            let fixed: Vec<Id> = parts.iter().map(|&p| mapped_constant(module, p, fix).unwrap_or(p)).collect();
            if fixed == parts {
                return None;
            }
            ConstValue::Composite(fixed)
        }
        // A specialization operation keeps its operands; bitcast its value instead.
        ConstValue::Bool(_) | ConstValue::Undef | ConstValue::Op { .. } => return None,
    };
    let new = module.add_def(Def::Constant(Box::new(Constant { ty: constant.ty, value, spec_id: None })));
    module.declarations.push(new);
    Some(new)
}

#[cfg(test)]
#[path = "signedness_tests.rs"]
mod tests;
