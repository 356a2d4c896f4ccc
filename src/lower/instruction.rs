//! Lowering single instructions to WGSL expressions and statements, one function per family.
//! Operators, builtins and conversions come from the tables in `ops.rs`.

use spirv::Op;

use super::emit::Emitter;
use super::function::{Choice, Lower, Memory, Pointer, Step, Value};
use super::uses::vector_component;
use super::{image, integer_dot, runtime_constants, subgroup};
use crate::error::Error;
use crate::ops::{self, Spelling};
use crate::passes::atomics;
use crate::spirv::{ConstValue, Def, ExtSet, Id, Inst, Operand, Type};
use crate::wgsl::ast::{BinaryOp, COMPONENTS, Call, Expr, Literal, Name, Stmt, UnaryOp};
use crate::wgsl::tint_sizes;
use crate::wgsl::uniformity::depends_on_active_invocations;

/// The most elements `OpCopyLogical` writes out one by one.
const MAX_COPIED_ELEMENTS: u64 = 4096;
impl Lower<'_> {
    pub(super) fn instruction(&mut self, e: &mut Emitter, inst: &Inst) -> Result<(), Error> {
        self.consumed_memory = false;
        match inst.op {
            Op::Nop | Op::Line | Op::NoLine | Op::SelectionMerge | Op::LoopMerge => Ok(()),
            Op::Variable => self.local_variable(e, inst),
            Op::AccessChain | Op::InBoundsAccessChain => self.access_chain(e, inst),
            // Textures and samplers are named where they are used (see `image.rs`).
            Op::Load | Op::CopyObject if self.is_handle_value(inst)? => Ok(()),
            Op::Load => self.load_memory(e, inst),
            Op::Store => {
                if let Some(inner) = self.atomic_inner(self.operand(inst, 0)?) {
                    if let Some(choice) = self.unmerged_choice(e, self.operand(inst, 0)?)? {
                        return self.store_choice(e, self.operand(inst, 1)?, choice, Some(inner));
                    }
                    return self.store_atomic(e, inst, inner);
                }
                let value = self.operand(inst, 1)?;
                if e.no_data.contains(&self.module.type_of(value)?) {
                    // Nothing to write: storing the placeholder member could clobber memory the
                    // SPIR-V never touches.
                    self.take(e, value)?;
                    return Ok(());
                }
                if self.store_output(e, inst)? {
                    return Ok(());
                }
                if let Some(choice) = self.unmerged_choice(e, self.operand(inst, 0)?)? {
                    return self.store_choice(e, self.operand(inst, 1)?, choice, None);
                }
                let target = self.pointer_expr(e, self.operand(inst, 0)?)?;
                let value = self.take(e, self.operand(inst, 1)?)?;
                self.side_effect(e, Stmt::Assign { target, value });
                Ok(())
            }
            Op::CopyMemory => {
                let target = self.pointer_expr(e, self.operand(inst, 0)?)?;
                let value = self.pointer_expr(e, self.operand(inst, 1)?)?;
                self.side_effect(e, Stmt::Assign { target, value });
                Ok(())
            }
            Op::CopyLogical => {
                let source = self.operand(inst, 0)?;
                let from = self.module.type_of(source)?;
                // Written out element by element: refuse what would not fit in a sane expression.
                let size = self.flattened_size(from)?;
                if size > MAX_COPIED_ELEMENTS {
                    return Err(Error::unsupported(
                        format!(
                            "OpCopyLogical of a value with {size} elements (at most {MAX_COPIED_ELEMENTS} are written out)"
                        ),
                        self.location(inst),
                    ));
                }
                let value = self.take_shared(e, source)?;
                let expr = self.copy_logical(e, value, from, self.result_type(inst)?)?;
                self.define(e, inst, expr, false)
            }
            Op::CopyObject => {
                let source = self.operand(inst, 0)?;
                if let Type::Pointer { .. } = self.module.ty(self.module.type_of(source)?)? {
                    let value = match self.values.get(&source) {
                        Some(Value::Choice(choice)) => Value::Choice(choice.clone()),
                        _ => Value::Pointer(Box::new(self.pointer(e, source)?)),
                    };
                    self.values.insert(self.result(inst)?, value);
                    return Ok(());
                }
                let expr = self.take(e, source)?;
                self.define(e, inst, expr, false)
            }
            Op::FunctionCall => self.call(e, inst),
            Op::ExtInst => self.ext_inst(e, inst),
            // The signedness pass has collapsed chains of bitcasts.
            Op::Bitcast => self.bitcast(e, inst),
            // An undefined pointer is no value: the pointer phis and selects that take one
            // (`pointers.rs`) leave it out.
            Op::Undef if matches!(self.module.ty(self.result_type(inst)?)?, Type::Pointer { .. }) => Ok(()),
            Op::Undef => {
                let zero = e.zero(self.result_type(inst)?)?;
                self.define(e, inst, zero, false)
            }
            Op::CompositeConstruct => self.composite_construct(e, inst),
            Op::CompositeExtract => self.composite_extract(e, inst),
            Op::CompositeInsert => self.composite_insert(e, inst),
            Op::VectorShuffle => self.vector_shuffle(e, inst),
            Op::VectorExtractDynamic => {
                let base = self.take(e, self.operand(inst, 0)?)?;
                let index = self.vector_index(e, self.operand(inst, 0)?, self.operand(inst, 1)?)?;
                self.define(e, inst, Expr::index(base, index), false)
            }
            Op::VectorInsertDynamic => {
                let (var, target) = self.copy_to_var(e, inst, 0)?;
                let value = self.take(e, self.operand(inst, 1)?)?;
                let index = self.vector_index(e, self.operand(inst, 0)?, self.operand(inst, 2)?)?;
                self.stmts.push(Stmt::Assign { target: Expr::index(target, index), value });
                self.values.insert(self.result(inst)?, Value::Ident(var));
                Ok(())
            }
            Op::Select if matches!(self.module.ty(self.result_type(inst)?)?, Type::Pointer { .. }) => {
                self.select_pointer(e, inst)
            }
            Op::PtrEqual | Op::PtrNotEqual => self.pointer_equality(e, inst),
            Op::PtrDiff => self.pointer_difference(e, inst),
            Op::Select => self.select(e, inst),
            Op::IsNan | Op::IsInf => self.float_class(e, inst),
            Op::SMod | Op::FMod => self.modulo(e, inst),
            Op::IAddCarry | Op::ISubBorrow | Op::UMulExtended | Op::SMulExtended => self.extended_arith(e, inst),
            Op::OuterProduct => {
                let column = self.take_shared(e, self.operand(inst, 0)?)?;
                let row = self.take_shared(e, self.operand(inst, 1)?)?;
                let ty = self.result_type(inst)?;
                let columns = match self.module.ty(ty)? {
                    Type::Matrix { columns, .. } => *columns,
                    _ => 0,
                };
                let parts = (0..columns as usize)
                    .map(|i| Expr::binary(BinaryOp::Multiply, column.clone(), Expr::member(row.clone(), COMPONENTS[i])))
                    .collect();
                let ty = e.ty(ty)?;
                self.define(e, inst, Expr::call(ty, parts), false)
            }
            Op::ArrayLength => {
                let base = self.pointer_expr(e, self.operand(inst, 0)?)?;
                let struct_ty = match self.module.ty(self.module.type_of(self.operand(inst, 0)?)?)? {
                    Type::Pointer { pointee, .. } => *pointee,
                    _ => 0,
                };
                let member = e.member_name(struct_ty, inst.literal(1).unwrap_or(0))?;
                let expr = Expr::call("arrayLength", vec![Expr::unary(UnaryOp::AddressOf, Expr::member(base, member))]);
                self.define(e, inst, expr, false)
            }
            Op::ControlBarrier | Op::MemoryBarrier => self.barrier(e, inst),
            // WGSL's `discard` has exactly the demote semantics.
            Op::DemoteToHelperInvocation => {
                self.side_effect(e, Stmt::Discard);
                Ok(())
            }
            op if image::is_image_instruction(op) => self.image_instruction(e, inst),
            op if atomics::is_atomic(op) => self.atomic(e, inst),
            op if subgroup::is_subgroup(op) => self.subgroup(e, inst),
            op if integer_dot::is_integer_dot(op) => self.integer_dot(e, inst),
            _ => match ops::core_row(inst.op) {
                Some(row) => {
                    // The operands go through a buffer kept between instructions: a Vec made
                    // for each one cost about as much as the rest of lowering it.
                    let mut operands = std::mem::take(&mut self.operands);
                    operands.clear();
                    let deepest = self.take_all(e, &inst.operands, &mut operands)?;
                    let spelled = self.spell(e, inst, row.spelling, &mut operands, deepest);
                    self.operands = operands;
                    let (expr, depth) = spelled?;
                    self.define_measured(e, inst, expr, depth, false)
                }
                None => Err(Error::unsupported(
                    match ops::lacking(inst.op) {
                        Some(why) => format!("Op{:?}: {why}", inst.op),
                        None => format!("Op{:?} is not supported yet", inst.op),
                    },
                    self.location(inst),
                )),
            },
        }
    }

    /// The expression for an operator, builtin or conversion applied to `operands`, the deepest
    /// of which is `deepest` deep, and its depth if that follows.
    fn spell(
        &mut self,
        e: &mut Emitter,
        inst: &Inst,
        spelling: Spelling,
        operands: &mut Vec<Expr>,
        deepest: usize,
    ) -> Result<(Expr, Option<usize>), Error> {
        let result_ty = self.result_type(inst)?;
        let vector_result = matches!(self.module.ty(result_ty)?, Type::Vector { .. });
        Ok(match spelling {
            Spelling::Binary(op) => {
                let mut right = operands.pop().ok_or_else(|| self.missing(inst))?;
                // `&&` and `||` are for scalars; vectors of bool use `&` and `|`, and so does a
                // right operand every invocation must evaluate (`&&` would skip it in some).
                let every = vector_result || depends_on_active_invocations(&right);
                let op = match op {
                    BinaryOp::LogicalAnd if every => BinaryOp::And,
                    BinaryOp::LogicalOr if every => BinaryOp::Or,
                    op => op,
                };
                let left = operands.pop().ok_or_else(|| self.missing(inst))?;
                let integer_division = matches!(inst.op, Op::SDiv | Op::UDiv | Op::SRem | Op::UMod);
                // A divisor made larger is measured again.
                let depth = match integer_division && self.hide_zero_lanes(e, self.operand(inst, 1)?, &mut right)? {
                    true => None,
                    false => Some(deepest + 1),
                };
                (Expr::binary(op, left, right), depth)
            }
            Spelling::Unary(op) => {
                let operand = operands.pop().ok_or_else(|| self.missing(inst))?;
                match inst.op {
                    // `!(a < b)` reads as `a >= b` where that is exact (see `negate`).
                    Op::LogicalNot => (self.negate(self.operand(inst, 0)?, operand), None),
                    _ => (Expr::unary(op, operand), Some(deepest + 1)),
                }
            }
            Spelling::Builtin(name) => (Expr::call(e.builtin(name), std::mem::take(operands)), Some(deepest + 1)),
            Spelling::Custom => return Err(Error::internal(format!("Op{:?} has its own lowering", inst.op))),
            Spelling::Convert => {
                let ty = e.ty(result_ty)?;
                let source_ty = e.ty(self.module.type_of(self.operand(inst, 0)?)?)?;
                let value = operands.pop().ok_or_else(|| self.missing(inst))?;
                if ty == source_ty { (value, Some(deepest)) } else { (Expr::call(ty, vec![value]), Some(deepest + 1)) }
            }
        })
    }

    fn missing(&self, inst: &Inst) -> Error {
        Error::invalid("missing operand", self.location(inst))
    }

    pub(super) fn operand(&self, inst: &Inst, index: usize) -> Result<Id, Error> {
        inst.id(index).ok_or_else(|| Error::invalid(format!("operand {index} should be an id"), self.location(inst)))
    }

    pub(super) fn result(&self, inst: &Inst) -> Result<Id, Error> {
        inst.result().ok_or_else(|| Error::invalid("missing result id", self.location(inst)))
    }

    /// Whether an instruction's result is a texture, sampler or sampled image, or a pointer to one.
    fn is_handle_value(&self, inst: &Inst) -> Result<bool, Error> {
        let ty = self.result_type(inst)?;
        Ok(match self.module.ty(ty)? {
            Type::Pointer { pointee, .. } => self.module.is_handle(*pointee),
            _ => self.module.is_handle(ty),
        })
    }

    pub(super) fn result_type(&self, inst: &Inst) -> Result<Id, Error> {
        inst.ty().ok_or_else(|| Error::invalid("missing result type", self.location(inst)))
    }

    /// Every id operand, consumed in order, added to `out`; returns the depth of the deepest (0
    /// if there are none).
    fn take_all(&mut self, e: &mut Emitter, operands: &[Operand], out: &mut Vec<Expr>) -> Result<usize, Error> {
        let mut deepest = 0;
        for operand in operands {
            if let Operand::IdRef(id) = operand {
                let (expr, depth) = self.take_measured(e, *id)?;
                out.push(expr);
                deepest = deepest.max(depth);
            }
        }
        Ok(deepest)
    }

    fn local_variable(&mut self, e: &mut Emitter, inst: &Inst) -> Result<(), Error> {
        let id = self.result(inst)?;
        let pointee = match self.module.ty(self.result_type(inst)?)? {
            Type::Pointer { pointee, .. } => *pointee,
            _ => return Err(Error::invalid("variable type is not a pointer", self.location(inst))),
        };
        let ty = e.ty(pointee)?;
        let value = inst.id(1).map(|init| self.take(e, init)).transpose()?;
        let name = self.local_name(e, id);
        self.stmts.push(Stmt::Var { name: name.clone(), ty: value.is_none().then_some(ty), value });
        let pointer = Pointer { base: Expr::ident(name), steps: Vec::new(), memory: Memory::Variable };
        self.values.insert(id, Value::Pointer(Box::new(pointer)));
        Ok(())
    }

    fn access_chain(&mut self, e: &mut Emitter, inst: &Inst) -> Result<(), Error> {
        let base = self.operand(inst, 0)?;
        if let Some(Value::Pointer(pointer)) = self.values.get(&base)
            && pointer.memory == Memory::Output
        {
            // Only stores use it, and they find their part from the SPIR-V.
            let pointer = pointer.clone();
            self.values.insert(self.result(inst)?, Value::Pointer(pointer));
            return Ok(());
        }
        let mut steps = Vec::with_capacity(inst.operands.len() - 1);
        let mut ty = match self.module.ty(self.module.type_of(base)?)? {
            Type::Pointer { pointee, .. } => *pointee,
            _ => return Err(Error::invalid("access chain base is not a pointer", self.location(inst))),
        };
        for position in 1..inst.operands.len() {
            let index = self.operand(inst, position)?;
            let constant = self.module.constant(index).and_then(|_| self.module.const_u32(index));
            let (step, next) = match (self.module.ty(ty)?, constant) {
                (Type::Struct { members }, Some(i)) => {
                    let member_ty = *members
                        .get(i as usize)
                        .ok_or_else(|| Error::invalid(format!("struct has no member {i}"), self.location(inst)))?;
                    (Step::Member(e.member_name(ty, i)?), member_ty)
                }
                // A constant index out of bounds leaves the access undefined in SPIR-V (and under
                // robust buffer access, reads any element or zero and writes any element or
                // nothing), while WGSL rejects it outright: the last element stands for it.
                (Type::Vector { count, component }, Some(i)) => {
                    (Step::Component(COMPONENTS[i.min(count - 1) as usize % 4]), *component)
                }
                (Type::Vector { component, .. }, _) => (Step::Dynamic(index), *component),
                (Type::Matrix { columns, column }, Some(i)) if i >= *columns => (Step::Constant(columns - 1), *column),
                (Type::Array { length, element }, Some(i))
                    if self.module.const_u32(*length).is_some_and(|n| i >= n) =>
                {
                    (Step::Constant(self.module.const_u32(*length).unwrap_or(1).saturating_sub(1)), *element)
                }
                // Past i32's range, a constant index into a runtime array is out of bounds anyway.
                (Type::Array { element, .. } | Type::RuntimeArray { element }, Some(i)) => {
                    (Step::Constant(i.min(i32::MAX as u32)), *element)
                }
                (Type::Array { element, .. } | Type::RuntimeArray { element }, None) => {
                    (Step::Dynamic(index), *element)
                }
                (Type::Matrix { column, .. }, Some(i)) => (Step::Constant(i), *column),
                (Type::Matrix { column, .. }, None) => (Step::Dynamic(index), *column),
                _ => return Err(Error::invalid("access chain index into a non-composite", self.location(inst))),
            };
            steps.push(step);
            ty = next;
        }
        if let Some(Value::Choice(choice)) = self.values.get(&base) {
            let choice = Choice::clone(choice);
            return self.chain_choice(inst, choice, steps);
        }
        let mut pointer = self.pointer(e, base)?;
        pointer.steps.extend(steps);
        self.values.insert(self.result(inst)?, Value::Pointer(Box::new(pointer)));
        Ok(())
    }

    /// The choice of pointers `id` is, if it is one whose options cannot be merged into one.
    pub(super) fn unmerged_choice(&mut self, e: &mut Emitter, id: Id) -> Result<Option<Choice>, Error> {
        let Some(Value::Choice(choice)) = self.values.get(&id) else { return Ok(None) };
        let choice = Choice::clone(choice);
        Ok(self.merged(e, &choice)?.is_none().then_some(choice))
    }

    fn call(&mut self, e: &mut Emitter, inst: &Inst) -> Result<(), Error> {
        let callee = self.operand(inst, 0)?;
        let name = e
            .names
            .get(&callee)
            .cloned()
            .ok_or_else(|| Error::invalid(format!("%{callee} is not a function"), self.location(inst)))?;
        let mut args = Vec::new();
        // The variables pointer arguments point into.
        let mut roots: Vec<Expr> = Vec::new();
        for position in 1..inst.operands.len() {
            let arg = self.operand(inst, position)?;
            let ty = self.module.type_of(arg)?;
            let pointee = match self.module.ty(ty)? {
                Type::Pointer { pointee, .. } => Some(*pointee),
                _ => None,
            };
            if self.module.is_handle(pointee.unwrap_or(ty)) {
                // A texture and the sampler split from it are passed by value, side by side.
                let roots = self.module.handle_roots(arg).ok_or_else(|| {
                    Error::unsupported(
                        "cannot trace a texture or sampler argument to its variable or parameter",
                        self.location(inst),
                    )
                })?;
                args.push(self.handle_expr(e, roots.image)?);
                if let Some(sampler) = roots.sampler {
                    args.push(self.handle_expr(e, sampler)?);
                }
                continue;
            }
            if pointee.is_some() {
                let root = self.pointer(e, arg)?.base;
                if roots.contains(&root) {
                    return Err(Error::unsupported(
                        format!(
                            "a call passes `{}` twice by pointer: WGSL forbids aliased pointer arguments (the callee \
                             could write through one and read through the other)",
                            crate::wgsl::print::expr_to_string(&root)
                        ),
                        self.location(inst),
                    ));
                }
                roots.push(root);
            }
            args.push(if pointee.is_some() { address_of(self.pointer_expr(e, arg)?) } else { self.take(e, arg)? });
        }
        let call = Expr::call(name, args);
        let used = self.is_used(inst);
        self.flush(e, true);
        match inst.result() {
            Some(_) if self.stored_at_once(inst) => return self.define(e, inst, call, true),
            Some(id) if used => self.bind(e, id, call),
            _ => self.stmts.push(Stmt::Call(call)),
        }
        Ok(())
    }

    /// Whether the result of `inst` (a call, an atomic operation) is read only by the store that
    /// comes next: it then goes into the store (`n = f();`), as nothing can happen in between.
    pub(super) fn stored_at_once(&self, inst: &Inst) -> bool {
        inst.result().is_some_and(|id| {
            self.uses.get(&id).is_some_and(|u| u.count == 1)
                && self
                    .next_inst()
                    .is_some_and(|next| next.op == Op::Store && next.operands.get(1) == Some(&Operand::IdRef(id)))
        })
    }

    fn ext_inst(&mut self, e: &mut Emitter, inst: &Inst) -> Result<(), Error> {
        let set = self.operand(inst, 0)?;
        let number = inst.literal(1).unwrap_or(u32::MAX);
        match self.module.def(set) {
            Def::ExtInstSet(ExtSet::NonSemantic) => return Ok(()),
            Def::ExtInstSet(ExtSet::GlslStd450) => {}
            _ => {
                return Err(Error::unsupported(
                    "extended instruction set other than GLSL.std.450",
                    self.location(inst),
                ));
            }
        }
        if number == spirv::GlslStd450Op::Modf as u32 || number == spirv::GlslStd450Op::Frexp as u32 {
            return self.split_with_pointer(e, inst, number == spirv::GlslStd450Op::Modf as u32);
        }
        if number == spirv::GlslStd450Op::MatrixInverse as u32 {
            let ty = self.result_type(inst)?;
            let (size, scalar) = match self.module.ty(ty)? {
                Type::Matrix { column, columns }
                    if self.module.scalar_of(*column).is_some_and(|(_, rows)| rows == *columns) =>
                {
                    (*columns, self.module.scalar_of(*column).map_or(0, |(s, _)| s))
                }
                _ => return Err(Error::invalid("MatrixInverse of a matrix that is not square", self.location(inst))),
            };
            let scalar = e.ty(scalar)?;
            let helper = e.matrix_inverse(size, &scalar, &self.namer);
            let value = self.take(e, self.operand(inst, 2)?)?;
            return self.define(e, inst, Expr::call(helper, vec![value]), false);
        }
        let row = ops::glsl_row(number).ok_or_else(|| {
            let name =
                spirv::GlslStd450Op::from_u32(number).map(|op| format!("{op:?}")).unwrap_or_else(|| number.to_string());
            let why = ops::glsl_lacking(number).unwrap_or("no WGSL counterpart (not supported yet)");
            Error::unsupported(format!("GLSL.std.450 {name}: {why}"), self.location(inst))
        })?;
        // rspirv reads extended-instruction operands as a plain list: check the count here.
        let expected = rspirv::grammar::GLSL_STD_450_INSTRUCTION_TABLE.lookup_opcode(number).map(|g| g.operands.len());
        if expected != Some(inst.operands.len() - 2) {
            return Err(Error::invalid(
                format!(
                    "GLSL.std.450 {} takes {} operands, not {}",
                    row.name,
                    expected.unwrap_or(0),
                    inst.operands.len() - 2
                ),
                self.location(inst),
            ));
        }
        let mut args = Vec::new();
        self.take_all(e, &inst.operands[2..], &mut args)?;
        // WGSL's geometric builtins take vectors only: a scalar x works as vec2(x, 0), whose extra
        // component adds exact zeros to every dot product.
        let scalar_geometry = matches!(row.name, "normalize" | "faceForward" | "reflect" | "refract")
            && matches!(self.module.ty(self.result_type(inst)?)?, Type::Float { .. });
        if scalar_geometry {
            let ty = e.ty(self.result_type(inst)?)?;
            let zero = Expr::Literal(if &*ty == "f16" { Literal::F16(0) } else { Literal::F32(0) });
            // refract's last operand, the ratio of indices, stays a scalar.
            let vectors = if row.name == "refract" { 2 } else { args.len() };
            for arg in args.iter_mut().take(vectors) {
                *arg = Expr::call(format!("vec2<{ty}>"), vec![std::mem::replace(arg, Expr::ident("")), zero.clone()]);
            }
        }
        let call = Expr::call(row.name, args);
        let call = if scalar_geometry { Expr::member(call, "x") } else { call };
        // modf and frexp return WGSL's own result structs: rebuild the SPIR-V struct from them.
        if matches!(row.name, "modf" | "frexp") {
            let (first, second) = if row.name == "modf" { ("fract", "whole") } else { ("fract", "exp") };
            let id = self.result(inst)?;
            let ty = e.ty(self.result_type(inst)?)?;
            let name = self.local_name(e, id);
            self.stmts.push(Stmt::Let { name: name.clone(), ty: None, value: call });
            let rebuilt = Expr::call(
                ty,
                vec![Expr::member(Expr::ident(name.clone()), first), Expr::member(Expr::ident(name), second)],
            );
            self.values.insert(id, Value::named(rebuilt));
            return Ok(());
        }
        self.define(e, inst, call, false)
    }

    /// Modf and Frexp with an out-pointer: WGSL returns both parts in a struct; one is stored.
    fn split_with_pointer(&mut self, e: &mut Emitter, inst: &Inst, modf: bool) -> Result<(), Error> {
        let value = self.take(e, self.operand(inst, 2)?)?;
        let target = self.pointer_expr(e, self.operand(inst, 3)?)?;
        let id = self.result(inst)?;
        let name = self.local_name(e, id);
        let (builtin, stored) = if modf { ("modf", "whole") } else { ("frexp", "exp") };
        self.stmts.push(Stmt::Let { name: name.clone(), ty: None, value: Expr::call(builtin, vec![value]) });
        self.side_effect(e, Stmt::Assign { target, value: Expr::member(Expr::ident(name.clone()), stored) });
        self.values.insert(id, Value::named(Expr::member(Expr::ident(name), "fract")));
        Ok(())
    }

    /// The number of scalars and vectors in a value of type `ty`, saturating.
    fn flattened_size(&self, ty: Id) -> Result<u64, Error> {
        // Types are declared before use, so this walk ends; its depth is the type's nesting.
        Ok(match self.module.ty(ty)? {
            Type::Array { element, length } => {
                u64::from(self.module.const_u32(*length).unwrap_or(0)).saturating_mul(self.flattened_size(*element)?)
            }
            Type::Struct { members } => {
                let mut total = 0u64;
                for &member in members {
                    total = total.saturating_add(self.flattened_size(member)?);
                }
                total
            }
            _ => 1,
        })
    }

    /// A value of one struct or array type rebuilt as another with the same shape: member by
    /// member, element by element (the types differ only in their layout decorations).
    fn copy_logical(&mut self, e: &mut Emitter, value: Expr, from: Id, to: Id) -> Result<Expr, Error> {
        // Types laid out alike are often one WGSL type (`Emitter::declare_struct`).
        if from == to || e.ty(from)? == e.ty(to)? {
            return Ok(value);
        }
        let parts = match (self.module.ty(from)?.clone(), self.module.ty(to)?.clone()) {
            (Type::Struct { members: a }, Type::Struct { members: b }) if a.len() == b.len() => {
                let mut parts = Vec::with_capacity(a.len());
                for (i, (&ma, &mb)) in a.iter().zip(&b).enumerate() {
                    let member = Expr::member(value.clone(), e.member_name(from, i as u32)?);
                    parts.push(self.copy_logical(e, member, ma, mb)?);
                }
                parts
            }
            (Type::Array { element: ea, length }, Type::Array { element: eb, .. }) => {
                let count = self.module.const_u32(length).unwrap_or(0);
                let mut parts = Vec::with_capacity(count as usize);
                for i in 0..count {
                    let element = Expr::index(value.clone(), Expr::Literal(Literal::Abstract(i64::from(i))));
                    parts.push(self.copy_logical(e, element, ea, eb)?);
                }
                parts
            }
            _ => return Ok(value),
        };
        Ok(Expr::call(e.ty(to)?, parts))
    }

    /// A composite from its parts: one repeated component as a splat, and components gathered
    /// from one vector (`uses::gathered_runs`) as that vector or a swizzle of it. A single part
    /// as wide as the result is the result.
    fn composite_construct(&mut self, e: &mut Emitter, inst: &Inst) -> Result<(), Error> {
        let ty = self.result_type(inst)?;
        let wgsl_ty = e.ty(ty)?;
        if let Some(part) = inst.splatted(self.module) {
            let part = self.take(e, part)?;
            return self.define(e, inst, Expr::call(wgsl_ty, vec![part]), false);
        }
        let ids: Vec<Id> = inst.id_operands().collect();
        if let Some(why) = tint_sizes::too_many_elements(ids.len(), || "the value it constructs".into())
            && matches!(self.module.ty(ty)?, Type::Array { .. })
        {
            return Err(Error::unsupported(why, self.location(inst)));
        }
        let is_vector = matches!(self.module.ty(ty)?, Type::Vector { .. });
        let mut parts = Vec::with_capacity(ids.len());
        let mut rest = &ids[..];
        while let Some((&first, after)) = rest.split_first() {
            let Some((vector, _)) = self.folded_component(first) else {
                let part = self.take(e, first)?;
                match (self.module.ty(self.module.type_of(first)?)?, part) {
                    (&Type::Vector { count, component }, part) if is_vector && is_zero_vector(&part) => {
                        parts.extend(zeros(e, component, count)?);
                    }
                    // `vec3<f32>(x, vec2<f32>(y, z))` is `vec3<f32>(x, y, z)`: naga 30 cannot
                    // evaluate a constant matrix product whose columns are written nested.
                    (Type::Vector { .. }, Expr::Call(call))
                        if is_vector && call.args.len() > 1 && is_vector_constructor(&call.callee) =>
                    {
                        parts.extend(call.args);
                    }
                    (_, part) => parts.push(part),
                }
                rest = after;
                continue;
            };
            let run =
                rest.iter().take_while(|&&id| self.folded_component(id).is_some_and(|(v, _)| v == vector)).count();
            let swizzle: String = rest[..run]
                .iter()
                .filter_map(|&id| self.folded_component(id))
                .map(|(_, index)| COMPONENTS[index as usize % 4])
                .collect();
            let whole = match self.module.ty(self.module.type_of(vector)?)? {
                Type::Vector { count, .. } => swizzle == COMPONENTS[..*count as usize].concat(),
                _ => false,
            };
            let vector = self.take(e, vector)?;
            let part = match is_zero_vector(&vector) {
                true => None,
                false => Some(if whole { vector } else { Expr::member(vector, swizzle) }),
            };
            if ids.len() == run {
                // `vec3<f32>(v.xyz)` is `v.xyz` (and lanes of a zero vector, a zero vector).
                let only = match part {
                    Some(part) => part,
                    None => e.zero(ty)?,
                };
                return self.define(e, inst, only, false);
            }
            match part {
                Some(part) => parts.push(part),
                None => parts.extend(zeros(e, self.module.type_of(first)?, run as u32)?),
            }
            rest = &rest[run..];
        }
        self.define(e, inst, Expr::call(wgsl_ty, parts), false)
    }

    /// `vector.swizzle`, or where `vector` is a zero vector, the zero of `ty`.
    fn zero_or_member(&mut self, e: &mut Emitter, vector: Id, swizzle: String, ty: Id) -> Result<Expr, Error> {
        let vector = self.take(e, vector)?;
        if is_zero_vector(&vector) { e.zero(ty) } else { Ok(Expr::member(vector, swizzle)) }
    }

    /// `(vector, index)` if `id` is a component extract folded into the construct reading it.
    fn folded_component(&self, id: Id) -> Option<(Id, u32)> {
        if !self.uses.is_folded(id) {
            return None;
        }
        vector_component(self.module, self.module.value_inst(id)?)
    }

    fn composite_extract(&mut self, e: &mut Emitter, inst: &Inst) -> Result<(), Error> {
        if inst.result().is_some_and(|id| self.uses.is_folded(id)) {
            // The construct reading it reads the vector instead.
            return Ok(());
        }
        let composite = self.operand(inst, 0)?;
        if let Some(part) = self.constant_part(e, inst, composite)? {
            return self.define(e, inst, part, false);
        }
        let mut ty = self.module.type_of(composite)?;
        let mut expr = self.take(e, composite)?;
        for position in 1..inst.operands.len() {
            let index = inst.literal(position).ok_or_else(|| self.missing(inst))?;
            let (next, step) = self.literal_step(e, ty, index, inst)?;
            // `T(a.fract, a.exp).member_1` is `a.exp`, `vec3<u32>(size_x, 2u, 1u).x` is `size_x`,
            // `vec4<f32>(textureLoad(t, c, 0i), 0.0f, 0.0f, 1.0f).x` is the load, and a member of
            // a struct loaded from a buffer WGSL lays out otherwise (built member by member) is
            // that member's path: a composite built from its parts and taken apart again. Only
            // when the other parts are built from paths alone, so dropping them drops no effect.
            expr = match expr {
                Expr::Call(call) if self.constructs(e, &call, ty, Some(index as usize))? => {
                    let Call { mut args, .. } = *call;
                    args.swap_remove(index as usize)
                }
                expr => step.apply(expr),
            };
            ty = next;
        }
        self.define(e, inst, expr, false)
    }

    /// Whether `call` builds a `ty` from its parts one by one, each but the one at `except` built
    /// from paths alone.
    fn constructs(&self, e: &mut Emitter, call: &Call, ty: Id, except: Option<usize>) -> Result<bool, Error> {
        let Some(parts) = self.parts(ty, call.args.len())? else { return Ok(false) };
        if call.callee != e.ty(ty)? {
            return Ok(false);
        }
        for (at, (arg, part)) in call.args.iter().zip(parts).enumerate() {
            if Some(at) != except && !self.built_from_paths(e, arg, part)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Whether `expr`, a value of type `ty`, is a path to a value or built from such by
    /// constructors alone.
    fn built_from_paths(&self, e: &mut Emitter, expr: &Expr, ty: Id) -> Result<bool, Error> {
        match expr {
            Expr::Call(call) => self.constructs(e, call, ty, None),
            expr => Ok(expr.is_path()),
        }
    }

    /// The types of the parts a constructor of `ty` with `args` arguments takes one by one: a
    /// struct's members, an array's elements, a matrix's columns, a vector's components. `None`
    /// where the arguments are not those parts (`vec4<f32>()`, `vec4<f32>(v.xy, 0.0f, 1.0f)`).
    fn parts(&self, ty: Id, args: usize) -> Result<Option<Vec<Id>>, Error> {
        Ok(match self.module.ty(ty)? {
            Type::Struct { members } if members.len() == args => Some(members.clone()),
            Type::Array { element, length } if self.module.const_u32(*length) == Some(args as u32) => {
                Some(vec![*element; args])
            }
            Type::Matrix { column, columns } if *columns as usize == args => Some(vec![*column; args]),
            Type::Vector { component, count } if *count as usize == args => Some(vec![*component; args]),
            _ => None,
        })
    }

    /// A load: a value read from memory, or, from memory nothing writes, a value like any other.
    fn load_memory(&mut self, e: &mut Emitter, inst: &Inst) -> Result<(), Error> {
        if let Some(inner) = self.atomic_inner(self.operand(inst, 0)?) {
            if let Some(choice) = self.unmerged_choice(e, self.operand(inst, 0)?)? {
                return self.load_choice(e, inst, choice, Some(inner));
            }
            return self.load_atomic(e, inst, inner);
        }
        let ty = self.result_type(inst)?;
        if e.no_data.contains(&ty) {
            // Nothing to read: the struct's placeholder member is not data.
            let zero = Expr::call(e.ty(ty)?, vec![]);
            return self.define(e, inst, zero, false);
        }
        if let Some(choice) = self.unmerged_choice(e, self.operand(inst, 0)?)? {
            return self.load_choice(e, inst, choice, None);
        }
        let id = self.operand(inst, 0)?;
        // What the pointer points into and whether its indices are all constant, read where an
        // access chain's pointer is kept rather than from a clone of it (`pointer_expr` clones it).
        let constant_path = |pointer: &Pointer| pointer.steps.iter().all(|step| !matches!(step, Step::Dynamic(_)));
        let (memory, constant_path) = match self.values.get(&id) {
            Some(Value::Pointer(pointer)) => (pointer.memory, constant_path(pointer)),
            _ => {
                let pointer = self.pointer(e, id)?;
                (pointer.memory, constant_path(&pointer))
            }
        };
        let expr = self.pointer_expr(e, id)?;
        if memory != Memory::ReadOnly {
            return self.define(e, inst, expr, true);
        }
        // Read again at each use where that costs nothing (`ubo.model`, `ubo.lights[2].xyz`).
        match constant_path && expr.is_path() {
            true => self.define_repeated(e, inst, expr),
            false => self.define(e, inst, expr, false),
        }
    }

    fn select(&mut self, e: &mut Emitter, inst: &Inst) -> Result<(), Error> {
        let (condition, condition_depth) = self.take_measured(e, self.operand(inst, 0)?)?;
        let (accept, accept_depth) = self.take_measured(e, self.operand(inst, 1)?)?;
        let (reject, reject_depth) = self.take_measured(e, self.operand(inst, 2)?)?;
        let ty = self.result_type(inst)?;
        let truth = |e: &Expr| match e {
            Expr::Literal(Literal::Bool(b)) => Some(*b),
            _ => None,
        };
        // `select(false, true, c)` is `c`, and `select(true, false, c)` is `!c`.
        let (value, depth) = match (truth(&accept), truth(&reject)) {
            (Some(true), Some(false)) => (condition, Some(condition_depth)),
            (Some(false), Some(true)) => (self.negate(self.operand(inst, 0)?, condition), None),
            _ if self.module.scalar_of(ty).is_some() => {
                let depth = 1 + condition_depth.max(accept_depth).max(reject_depth);
                (Expr::call(e.builtin("select"), vec![reject, accept, condition]), Some(depth))
            }
            _ => {
                // WGSL's select takes scalars and vectors only: structs and arrays need an `if`.
                let name = self.local_name(e, self.result(inst)?);
                self.stmts.push(Stmt::Var { name: name.clone(), ty: None, value: Some(reject) });
                let assign = Stmt::Assign { target: Expr::ident(name.clone()), value: accept };
                self.stmts.push(Stmt::If { condition, accept: vec![assign], reject: vec![] });
                self.values.insert(self.result(inst)?, Value::Ident(name));
                return Ok(());
            }
        };
        self.define_measured(e, inst, value, depth, false)
    }

    /// The part of a constant that `inst` extracts, as a constant: `3.0f`, not
    /// `array<f32, 4>(1.0f, 2.0f, 3.0f, 4.0f)[2]`. `None` if `composite` is not a constant.
    fn constant_part(&mut self, e: &mut Emitter, inst: &Inst, composite: Id) -> Result<Option<Expr>, Error> {
        let mut id = composite;
        for position in 1..inst.operands.len() {
            let index = inst.literal(position).ok_or_else(|| self.missing(inst))?;
            match self.module.constant(id).filter(|c| c.spec_id.is_none()).map(|c| &c.value) {
                // Out of bounds: the access, written out, says so.
                Some(ConstValue::Composite(parts)) => match parts.get(index as usize) {
                    Some(&part) => id = part,
                    None => return Ok(None),
                },
                Some(ConstValue::Null | ConstValue::Undef) => return Ok(Some(e.zero(self.result_type(inst)?)?)),
                _ => return Ok(None),
            }
        }
        Ok(Some(e.constant(id)?))
    }

    /// The index into vector `vector`: a constant out of bounds (undefined in SPIR-V, an error
    /// in WGSL) is the last component, as in `access_chain`.
    fn vector_index(&mut self, e: &mut Emitter, vector: Id, index: Id) -> Result<Expr, Error> {
        let count = self.module.scalar_of(self.module.type_of(vector)?).map_or(4, |(_, n)| n);
        match self.module.constant(index).and_then(|_| self.module.const_u32(index)) {
            Some(i) if i >= count => Ok(Expr::Literal(Literal::Abstract(i64::from(count - 1)))),
            _ => self.take(e, index),
        }
    }

    /// The type inside `ty` at a literal index, and how to write the access.
    fn literal_step(&mut self, e: &mut Emitter, ty: Id, index: u32, inst: &Inst) -> Result<(Id, Step), Error> {
        let out_of_bounds = || Error::invalid(format!("constant index {index} is out of bounds"), self.location(inst));
        Ok(match self.module.ty(ty)? {
            Type::Struct { members } => {
                let member = *members.get(index as usize).ok_or_else(|| self.missing(inst))?;
                let name = e.member_name(ty, index)?;
                (member, Step::Member(name))
            }
            Type::Vector { component, count } if index < *count => {
                (*component, Step::Component(COMPONENTS[index as usize % 4]))
            }
            Type::Vector { .. } => return Err(out_of_bounds()),
            Type::Array { length, .. } if self.module.const_u32(*length).is_some_and(|n| index >= n) => {
                return Err(out_of_bounds());
            }
            Type::Matrix { columns, .. } if index >= *columns => return Err(out_of_bounds()),
            Type::Array { element: inner, .. } | Type::Matrix { column: inner, .. } => (*inner, Step::Constant(index)),
            _ => return Err(Error::invalid("composite index into a non-composite", self.location(inst))),
        })
    }

    fn composite_insert(&mut self, e: &mut Emitter, inst: &Inst) -> Result<(), Error> {
        let (var, mut target) = self.copy_to_var(e, inst, 1)?;
        let value = self.take(e, self.operand(inst, 0)?)?;
        let mut ty = self.result_type(inst)?;
        for position in 2..inst.operands.len() {
            let index = inst.literal(position).ok_or_else(|| self.missing(inst))?;
            let (next, step) = self.literal_step(e, ty, index, inst)?;
            target = step.apply(target);
            ty = next;
        }
        self.stmts.push(Stmt::Assign { target, value });
        let id = self.result(inst)?;
        self.insert_vars.insert(id, self.block);
        self.values.insert(id, Value::Ident(var));
        Ok(())
    }

    /// A `var` holding a copy of the composite operand at `position`, to update in place. A
    /// single-use insert result already in a `var` made in this block is updated without a copy:
    /// made in another, it may be in a loop the other is not in, where each iteration must start
    /// from the value made before the loop.
    fn copy_to_var(&mut self, e: &mut Emitter, inst: &Inst, position: usize) -> Result<(Name, Expr), Error> {
        let base = self.operand(inst, position)?;
        let single_use = self.uses.get(&base).is_some_and(|u| u.count == 1 && u.block as usize == self.block);
        if single_use
            && self.insert_vars.get(&base) == Some(&self.block)
            && let Some(Value::Ident(name)) = self.values.get(&base)
        {
            let name = name.clone();
            return Ok((name.clone(), Expr::ident(name)));
        }
        let value = self.take(e, base)?;
        let name = self.local_name(e, self.result(inst)?);
        self.stmts.push(Stmt::Var { name: name.clone(), ty: None, value: Some(value) });
        Ok((name.clone(), Expr::ident(name)))
    }

    fn vector_shuffle(&mut self, e: &mut Emitter, inst: &Inst) -> Result<(), Error> {
        let (first, second) = (self.operand(inst, 0)?, self.operand(inst, 1)?);
        let first_len = match self.module.ty(self.module.type_of(first)?)? {
            Type::Vector { count, .. } => *count,
            _ => return Err(Error::invalid("shuffle of a non-vector", self.location(inst))),
        };
        // 0xFFFFFFFF selects an undefined component: any value will do, take the first.
        let selectors: Vec<u32> = (2..inst.operands.len())
            .map(|i| inst.literal(i).map(|c| if c == u32::MAX { 0 } else { c }))
            .collect::<Option<_>>()
            .ok_or_else(|| self.missing(inst))?;
        // A shuffle of a vector with itself reads both halves from the same value.
        let selectors: Vec<u32> =
            if first == second { selectors.iter().map(|&c| c % first_len).collect() } else { selectors };
        let swizzle =
            |offset: u32| -> String { selectors.iter().map(|&c| COMPONENTS[(c - offset) as usize % 4]).collect() };
        let result_type = self.result_type(inst)?;
        let expr = if selectors.iter().all(|&c| c < first_len) {
            if second != first {
                self.discard(second);
            }
            self.zero_or_member(e, first, swizzle(0), result_type)?
        } else if selectors.iter().all(|&c| c >= first_len) {
            self.discard(first);
            self.zero_or_member(e, second, swizzle(first_len), result_type)?
        } else {
            // Each run of components from one operand is one part: `vec4(a.xyz, b.w)`, or the
            // operand itself where the run is all of it in order. An operand read by one part
            // is inlined there.
            let second_len = match self.module.ty(self.module.type_of(second)?)? {
                Type::Vector { count, .. } => *count,
                _ => return Err(Error::invalid("shuffle of a non-vector", self.location(inst))),
            };
            let mut runs: Vec<(bool, Vec<u32>)> = Vec::new();
            for &c in &selectors {
                let (from_second, component) = if c < first_len { (false, c) } else { (true, c - first_len) };
                match runs.last_mut() {
                    Some((run_second, components)) if *run_second == from_second => components.push(component),
                    _ => runs.push((from_second, vec![component])),
                }
            }
            let parts_of = |from_second: bool| runs.iter().filter(|(s, _)| *s == from_second).count();
            let a = if parts_of(false) > 1 { self.take_shared(e, first)? } else { self.take(e, first)? };
            let b = if parts_of(true) > 1 { self.take_shared(e, second)? } else { self.take(e, second)? };
            let component = self.module.scalar_of(self.module.type_of(first)?).ok_or_else(|| self.missing(inst))?.0;
            let mut parts = Vec::with_capacity(runs.len());
            for (from_second, components) in runs {
                let (base, len) = if from_second { (&b, second_len) } else { (&a, first_len) };
                if is_zero_vector(base) {
                    parts.extend(zeros(e, component, components.len() as u32)?);
                } else if components.iter().copied().eq(0..len) {
                    parts.push(base.clone());
                } else {
                    let swizzle = components.iter().map(|&c| COMPONENTS[c as usize % 4]).collect::<String>();
                    parts.push(Expr::member(base.clone(), swizzle));
                }
            }
            Expr::call(e.ty(result_type)?, parts)
        };
        self.define(e, inst, expr, false)
    }

    /// OpIsNan / OpIsInf as exact tests on the bits, since WGSL may assume floats are finite.
    fn float_class(&mut self, e: &mut Emitter, inst: &Inst) -> Result<(), Error> {
        let operand = self.operand(inst, 0)?;
        let (scalar, count) = self.module.scalar_of(self.module.type_of(operand)?).unwrap_or((operand, 1));
        let u32_of = |v: u32| -> Expr {
            let literal = Expr::Literal(Literal::U32(v));
            if count == 1 { literal } else { Expr::call(format!("vec{count}<u32>"), vec![literal]) }
        };
        let bits_ty = if count == 1 { "u32".to_string() } else { format!("vec{count}<u32>") };
        let mut value = self.take(e, operand)?;
        if let Some(Type::Float { width: 16 }) = self.module.type_def(scalar) {
            // f16 has no 16-bit integer to bitcast to; widening to f32 keeps infinities and NaNs.
            value = Expr::call(if count == 1 { "f32".to_string() } else { format!("vec{count}<f32>") }, vec![value]);
        }
        let magnitude =
            Expr::binary(BinaryOp::And, Expr::call(format!("bitcast<{bits_ty}>"), vec![value]), u32_of(0x7fff_ffff));
        let op = if inst.op == Op::IsNan { BinaryOp::Greater } else { BinaryOp::Equal };
        let expr = Expr::binary(op, magnitude, u32_of(0x7f80_0000));
        self.define(e, inst, expr, false)
    }

    /// OpSMod and OpFMod: the result takes the sign of the divisor, unlike WGSL's `%`.
    fn modulo(&mut self, e: &mut Emitter, inst: &Inst) -> Result<(), Error> {
        let x = self.take_shared(e, self.operand(inst, 0)?)?;
        let y = self.take_shared(e, self.operand(inst, 1)?)?;
        if inst.op == Op::FMod {
            let quotient = Expr::call("floor", vec![Expr::binary(BinaryOp::Divide, x.clone(), y.clone())]);
            let expr = Expr::binary(BinaryOp::Subtract, x, Expr::binary(BinaryOp::Multiply, y, quotient));
            return self.define(e, inst, expr, false);
        }
        // r = x % y (sign of x); where r != 0 and the signs of r and y differ, r + y.
        let remainder = self.result(inst)?;
        // A named result keeps its name for the value, not for the step towards it.
        let r_name = match self.module.name(remainder) {
            Some(name) => self.namer.fresh_name(&format!("{name}_remainder"), Some(&e.namer)),
            None => self.local_name(e, remainder),
        };
        let mut divisor = y.clone();
        self.hide_zero_lanes(e, self.operand(inst, 1)?, &mut divisor)?;
        self.stmts.push(Stmt::Let {
            name: r_name.clone(),
            ty: None,
            value: Expr::binary(BinaryOp::Modulo, x, divisor),
        });
        let r = Expr::ident(r_name);
        let zero = e.zero(self.result_type(inst)?)?;
        let nonzero = Expr::binary(BinaryOp::NotEqual, r.clone(), zero.clone());
        let signs_differ = Expr::binary(
            BinaryOp::NotEqual,
            Expr::binary(BinaryOp::Less, r.clone(), zero.clone()),
            Expr::binary(BinaryOp::Less, y.clone(), zero),
        );
        let fix = Expr::binary(BinaryOp::And, nonzero, signs_differ);
        let expr = Expr::call("select", vec![r.clone(), Expr::binary(BinaryOp::Add, r, y), fix]);
        self.values.remove(&remainder);
        self.define(e, inst, expr, false)
    }

    /// OpControlBarrier and OpMemoryBarrier: one WGSL barrier per kind of memory the semantics
    /// name (WorkgroupMemory 0x100, UniformMemory 0x40, ImageMemory 0x800). WGSL's barriers also
    /// synchronise execution; it has no memory-only barrier, so a memory barrier becomes the
    /// stronger control barrier. A control barrier naming no memory still synchronises the
    /// workgroup.
    fn barrier(&mut self, e: &mut Emitter, inst: &Inst) -> Result<(), Error> {
        let semantics_position = if inst.op == Op::ControlBarrier { 2 } else { 1 };
        let semantics = inst.id(semantics_position).and_then(|id| self.module.const_u32(id)).unwrap_or(0);
        let mut calls: Vec<&str> = [(0x100, "workgroupBarrier"), (0x40, "storageBarrier"), (0x800, "textureBarrier")]
            .into_iter()
            .filter(|(bit, _)| semantics & bit != 0)
            .map(|(_, call)| call)
            .collect();
        if inst.op == Op::ControlBarrier && calls.is_empty() {
            calls.push("workgroupBarrier");
        }
        for call in calls {
            let stmt = Stmt::Call(Expr::call(call, vec![]));
            // Reads before the barrier stay before it; then the same barrier twice in a row
            // (memoryBarrierShared(); barrier();) is one.
            self.flush(e, true);
            if self.stmts.last() != Some(&stmt) {
                self.stmts.push(stmt);
            }
        }
        Ok(())
    }
}

/// `&reference`, folding `&*p` to `p`.
fn address_of(reference: Expr) -> Expr {
    match reference {
        Expr::Unary(UnaryOp::Deref, pointer) => *pointer,
        other => Expr::unary(UnaryOp::AddressOf, other),
    }
}

impl Lower<'_> {
    /// Keeps naga from seeing a zero in `divisor`, the expression for `id` divided by in an
    /// integer division or remainder; whether it changed it. naga rejects dividing by a zero
    /// literal, alone or as a lane of a vector built of parts (`vec2<u32>(x, 0u)`, or `vec2<u32>()`
    /// for an undefined value), even through a `let`, though WGSL defines x / 0 as x and x % 0 as
    /// 0 at run time; SPIR-V leaves those lanes' results undefined, and spirv-opt writes such a
    /// zero where a lane is not read. Written out, the zeros become ones (which computes what WGSL
    /// defines); named, the divisor goes through an identity bitcast, which naga does not look
    /// into.
    ///
    /// A divisor computed from constants alone is a constant expression, which WGSL rejects
    /// where a lane is zero: one not known to be nonzero is read from a `var` instead (naga
    /// evaluates a `let` of a constant expression, and would see the zero).
    fn hide_zero_lanes(&mut self, e: &mut Emitter, id: Id, divisor: &mut Expr) -> Result<bool, Error> {
        if !matches!(divisor, Expr::Ident(_)) {
            let changed = without_zero_lanes(divisor);
            if is_known_nonzero(divisor) || !runtime_constants::is_constant_expression(divisor) {
                return Ok(changed);
            }
            let computed = std::mem::replace(divisor, Expr::Literal(Literal::Bool(false)));
            let name = self.step_name(e, id, "divisor");
            self.stmts.push(Stmt::Var { name: name.clone(), ty: None, value: Some(computed) });
            *divisor = Expr::ident(name);
            return Ok(true);
        }
        if !self.may_have_zero_lane(id, 2) {
            return Ok(false);
        }
        let named = std::mem::replace(divisor, Expr::Literal(Literal::Bool(false)));
        *divisor = e.bitcast(self.module.type_of(id)?, named)?;
        Ok(true)
    }

    /// Whether `id` is an undefined value, a constant with a zero lane, or a vector built of
    /// parts (followed `depth` deep) one of which may be zero.
    fn may_have_zero_lane(&self, id: Id, depth: usize) -> bool {
        let module = self.module;
        if let Some(constant) = module.constant(id) {
            return matches!(constant.value, ConstValue::Undef | ConstValue::Null)
                || module.const_u32(id) == Some(0)
                || constant.value.parts().iter().any(|&part| depth > 0 && self.may_have_zero_lane(part, depth - 1));
        }
        match module.value_inst(id) {
            Some(inst) if inst.op == Op::CompositeConstruct && depth > 0 => {
                inst.id_operands().any(|part| self.may_have_zero_lane(part, depth - 1))
            }
            _ => false,
        }
    }
}

/// Makes ones of the zero literals of an integer divisor written out, alone or as lanes of
/// vectors built of parts, also under a negation or a bitcast (which keep a zero lane zero);
/// whether it changed any (see [`Lower::hide_zero_lanes`]).
fn without_zero_lanes(divisor: &mut Expr) -> bool {
    match divisor {
        Expr::Unary(UnaryOp::Negate, operand) => without_zero_lanes(operand),
        Expr::Call(call) if call.callee.starts_with("bitcast<") && call.args.len() == 1 => {
            without_zero_lanes(&mut call.args[0])
        }
        Expr::Literal(literal @ (Literal::I32(0) | Literal::U32(0) | Literal::Bits(0))) => {
            *literal = if matches!(literal, Literal::I32(_)) { Literal::I32(1) } else { Literal::U32(1) };
            true
        }
        Expr::Call(call) if is_vector_constructor(&call.callee) => {
            if call.args.is_empty() {
                let one = if call.callee.ends_with("<i32>") { Literal::I32(1) } else { Literal::U32(1) };
                call.args.push(Expr::Literal(one));
                return true;
            }
            call.args.iter_mut().fold(false, |changed, lane| without_zero_lanes(lane) | changed)
        }
        _ => false,
    }
}

/// Whether every lane of `divisor` is a nonzero literal, through vectors built of parts,
/// negations and bitcasts, or an `|` with one (`x | 1u`, the usual guard against a zero divisor):
/// a constant expression WGSL takes as a divisor.
fn is_known_nonzero(divisor: &Expr) -> bool {
    match divisor {
        Expr::Binary(BinaryOp::Or, operands) => operands.iter().any(is_known_nonzero),
        Expr::Literal(literal) => {
            !matches!(literal, Literal::I32(0) | Literal::U32(0) | Literal::Bits(0) | Literal::Abstract(0))
        }
        Expr::Unary(UnaryOp::Negate, operand) => is_known_nonzero(operand),
        Expr::Call(call) if call.callee.starts_with("bitcast<") || is_vector_constructor(&call.callee) => {
            !call.args.is_empty() && call.args.iter().all(is_known_nonzero)
        }
        _ => false,
    }
}

/// Whether `expr` is a zero vector (`vec3<u32>()`), which goes into a vector's parts lane by lane:
/// naga 30 writes a constant vector with one among its parts (`vec4<u32>(1u, vec3<u32>())`, or a
/// swizzle of one) as an OpConstantComposite with a vector constituent, invalid SPIR-V on which
/// lavapipe loses the device.
pub(super) fn is_zero_vector(expr: &Expr) -> bool {
    matches!(expr, Expr::Call(call) if call.args.is_empty() && is_vector_constructor(&call.callee))
}

/// `count` zeros of the scalar type `ty`.
fn zeros(e: &mut Emitter, ty: Id, count: u32) -> Result<Vec<Expr>, Error> {
    (0..count).map(|_| e.zero(ty)).collect()
}

/// Whether `callee` constructs a vector (`vec3<u32>`), not a function of the module.
fn is_vector_constructor(callee: &str) -> bool {
    matches!(callee.as_bytes(), [b'v', b'e', b'c', b'2'..=b'4', b'<', ..])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn changed(mut divisor: Expr) -> (bool, Expr) {
        (without_zero_lanes(&mut divisor), divisor)
    }

    #[test]
    fn zero_lanes_of_a_divisor_written_out_become_ones() {
        let x = || Expr::ident("x");
        let u32_of = |v| Expr::Literal(Literal::U32(v));
        let lanes = Expr::call("vec2<u32>", vec![x(), u32_of(0)]);
        assert_eq!(changed(lanes), (true, Expr::call("vec2<u32>", vec![x(), u32_of(1)])));
        // Nested constructors, signed zeros, and an undefined vector's zero value.
        let nested = Expr::call("vec4<i32>", vec![Expr::call("vec2<i32>", vec![Expr::Literal(Literal::I32(0))]), x()]);
        let ones = Expr::call("vec4<i32>", vec![Expr::call("vec2<i32>", vec![Expr::Literal(Literal::I32(1))]), x()]);
        assert_eq!(changed(nested), (true, ones));
        assert_eq!(
            changed(Expr::call("vec3<i32>", vec![])),
            (true, Expr::call("vec3<i32>", vec![Expr::Literal(Literal::I32(1))]))
        );
        assert_eq!(changed(Expr::Literal(Literal::Bits(0))), (true, u32_of(1)));
        // A function of the module, a non-zero lane and a name are left as they are.
        for same in [Expr::call("vector2", vec![u32_of(0)]), Expr::call("vec2<u32>", vec![x(), u32_of(7)]), x()] {
            assert_eq!(changed(same.clone()), (false, same));
        }
    }
}
