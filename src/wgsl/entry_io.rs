//! Entry-point inputs and outputs (`IoPlan`): parameters, the copies into proxies, and the result.
//!
//! An entry function that is the WGSL entry point itself (`IoPlan::unwrapped`) takes the
//! parameters: a direct input is read from its parameter wherever the SPIR-V loads the variable,
//! any other is copied into its proxy first thing. Each of its returns gives the outputs: a direct
//! output's value stored before the return (zero before its store), a proxy's current value, or a
//! synthesised zero. A store to a direct output writes nothing: it records the value.

use super::ast::{self, Attribute, Expr, Name, Stmt};
use super::emit::Emitter;
use super::function::{Lower, Memory, Pointer, Value};
use crate::error::Error;
use crate::id_hash::IdSet;
use crate::spirv::{EntryPoint, Id, Inst, IoSource, IoValue, Module};

/// A function's result: its type, with the attributes of an entry point's.
pub(super) type FunctionResult = Option<(Vec<Attribute>, ast::Type)>;

/// The length past which one of several results computed at the return gets a `let`.
const LONG_RESULT: usize = 32;

/// What the returns of an unwrapped entry function give.
pub(super) struct EntryResult {
    /// The struct of the results when there are several.
    struct_name: Option<Name>,
    outputs: Vec<Output>,
    /// The zero value of the result, returned where the outputs do not matter (after `discard`).
    zero: Option<Expr>,
    /// The Output variables whose values are direct.
    direct: IdSet<Id>,
}

enum Output {
    /// A proxy, read at the return and converted to the WGSL type.
    Proxy(Expr),
    /// A direct value: the part of the variable, and the value last stored to it.
    Direct { global: Id, path: Vec<u32>, stored: Option<Id>, name: String, ty: Id, wgsl_ty: Id },
    /// A synthesised zero.
    Zero(Expr),
}

impl Emitter<'_> {
    /// The parameter for input `value`, and the copy of it into the proxy if there is one.
    pub(super) fn input_copy(&mut self, value: &IoValue, name: String) -> Result<(ast::Param, Option<Stmt>), Error> {
        let ty = self.ty(value.wgsl_ty)?;
        let copy = match self.proxy(value)? {
            Some(target) => {
                let value = self.convert(Expr::ident(name.as_str()), value.wgsl_ty, value.ty)?;
                Some(Stmt::Assign { target, value })
            }
            None => None,
        };
        Ok((ast::Param { attributes: self.io_attributes(value), name, ty }, copy))
    }

    /// The result of entry point `name` returning `outputs`: one value with its attributes, or a
    /// struct of them (declared here, and named).
    pub(super) fn entry_result(
        &mut self,
        name: &str,
        outputs: &[IoValue],
    ) -> Result<(FunctionResult, Option<Name>), Error> {
        let mut members = Vec::new();
        let mut member_namer = super::names::Namer::for_members();
        for value in outputs {
            let ty = self.ty(value.wgsl_ty)?;
            let attributes = self.io_attributes(value);
            members.push(ast::Member { attributes, name: member_namer.fresh(&value.name, None), ty });
        }
        Ok(match members.len() {
            0 => (None, None),
            1 => {
                let member = members.pop().expect("one member");
                (Some((member.attributes, member.ty)), None)
            }
            _ => {
                let struct_name = self.namer.fresh(&format!("{name}_out"), None);
                self.out.structs.push(ast::Struct { name: struct_name.clone(), members });
                let struct_name: Name = struct_name.into();
                (Some((vec![], struct_name.clone())), Some(struct_name))
            }
        })
    }
}

/// What an entry point returns: its one result, or the struct of them.
pub(super) fn result_return(struct_name: Option<Name>, mut results: Vec<Expr>) -> Option<Expr> {
    match struct_name {
        Some(name) => Some(Expr::call(name, results)),
        None => results.pop(),
    }
}

impl Lower<'_> {
    /// For an unwrapped entry function: its parameters, the copies into proxies that start its
    /// body, and its result. Direct inputs become the values its loads read.
    pub(super) fn entry_interface(
        &mut self,
        e: &mut Emitter,
        entry: &EntryPoint,
    ) -> Result<(Vec<ast::Param>, Vec<Stmt>, FunctionResult), Error> {
        let plan = entry.io.clone().unwrap_or_default();
        let mut params = Vec::new();
        let mut copies = Vec::new();
        for value in &plan.inputs {
            let proxied = self.is_proxied(value);
            let base = if proxied { format!("{}_param", value.name) } else { value.name.clone() };
            let name = self.namer.fresh(&base, Some(&e.namer));
            if let (IoSource::Proxy { global, .. }, true) = (&value.source, value.direct) {
                let read = e.convert(Expr::ident(name.as_str()), value.wgsl_ty, value.ty)?;
                let pointer = Pointer { base: read, steps: Vec::new(), memory: Memory::ReadOnly };
                self.values.insert(*global, Value::Pointer(Box::new(pointer)));
            }
            let (param, copy) = e.input_copy(value, name.clone())?;
            match e.computed_input(&plan, value, &name) {
                Some(computed) => copies.extend(computed),
                None => params.push(param),
            }
            copies.extend(copy.filter(|_| proxied));
        }
        let (result, struct_name) = e.entry_result(&entry.name, &plan.outputs)?;
        let mut outputs = Vec::new();
        let mut direct = IdSet::default();
        for value in &plan.outputs {
            outputs.push(match (&value.source, value.direct) {
                (IoSource::Proxy { global, path }, true) => {
                    direct.insert(*global);
                    // A store through an access chain into it needs a pointer to start from.
                    let base = Expr::ident(value.name.as_str());
                    let pointer = Pointer { base, steps: Vec::new(), memory: Memory::Output };
                    self.values.insert(*global, Value::Pointer(Box::new(pointer)));
                    let (name, ty, wgsl_ty) = (value.name.clone(), value.ty, value.wgsl_ty);
                    Output::Direct { global: *global, path: path.clone(), stored: None, name, ty, wgsl_ty }
                }
                _ => match e.proxy(value)? {
                    Some(proxy) => Output::Proxy(e.convert(proxy, value.ty, value.wgsl_ty)?),
                    None => Output::Zero(e.zero(value.wgsl_ty)?),
                },
            });
        }
        for &global in &plan.dropped {
            direct.insert(global);
            let pointer = Pointer { base: Expr::ident("_"), steps: Vec::new(), memory: Memory::Output };
            self.values.insert(global, Value::Pointer(Box::new(pointer)));
        }
        let zero = match (&struct_name, &plan.outputs[..]) {
            (Some(name), _) => Some(Expr::call(name.clone(), vec![])),
            (None, [value]) => Some(e.zero(value.wgsl_ty)?),
            (None, _) => None,
        };
        self.entry = Some(EntryResult { struct_name, outputs, zero, direct });
        Ok((params, copies, result))
    }

    /// Whether input `value` lives in a proxy the entry function fills.
    fn is_proxied(&self, value: &IoValue) -> bool {
        let module = self.module;
        match &value.source {
            IoSource::Proxy { global, .. } => {
                module.global_index(*global).is_some_and(|g| module.globals[g].class == spirv::StorageClass::Private)
            }
            IoSource::Zero => false,
        }
    }

    /// A store to a direct output records the value for the returns after it (a part no value is
    /// planned for goes nowhere); returns whether `inst` was one.
    pub(super) fn store_output(&mut self, e: &mut Emitter, inst: &Inst) -> Result<bool, Error> {
        let Some(result) = &self.entry else { return Ok(false) };
        let Some((global, path)) = output_path(self.module, self.operand(inst, 0)?, &result.direct) else {
            return Ok(false);
        };
        let value = self.operand(inst, 1)?;
        let target = result
            .outputs
            .iter()
            .position(|o| matches!(o, Output::Direct { global: g, path: p, .. } if *g == global && *p == path));
        // A value with an effect (a call's result) runs where it did: it is bound now unless the
        // return follows at once.
        let returns_next =
            self.rest.iter().all(|&i| matches!(self.function.insts[i].op, spirv::Op::Line | spirv::Op::NoLine))
                && self.function.terminator(self.block).op == spirv::Op::Return;
        if self.pending_effect(e, value) && (target.is_none() || !returns_next) {
            self.take_shared(e, value)?;
        } else if target.is_none() {
            self.discard(value);
        }
        if let Some(i) = target
            && let Some(EntryResult { outputs, .. }) = &mut self.entry
            && let Output::Direct { stored, .. } = &mut outputs[i]
        {
            *stored = Some(value);
        }
        Ok(true)
    }

    /// The value an unwrapped entry function returns here; `None` for one without outputs.
    pub(super) fn entry_return(&mut self, e: &mut Emitter) -> Result<Option<Expr>, Error> {
        let Some(result) = self.entry.take() else { return Ok(None) };
        let mut values = Vec::new();
        for output in &result.outputs {
            values.push(match output {
                Output::Proxy(expr) | Output::Zero(expr) => expr.clone(),
                Output::Direct { stored: Some(value), ty, wgsl_ty, name, .. } => {
                    let pending = matches!(self.values.get(value), Some(Value::Pending { .. }));
                    let mut value = self.take(e, *value)?;
                    // One of several results, computed where it is returned and long: named as
                    // the output, so the return reads as a list of names.
                    let long = || super::print::expr_to_string(&value).len() > LONG_RESULT;
                    if pending && result.struct_name.is_some() && !value.is_path() && long() {
                        let name = self.namer.fresh_name(name, Some(&e.namer));
                        self.stmts.push(Stmt::Let { name: name.clone(), ty: None, value });
                        value = Expr::Ident(name);
                    }
                    e.convert(value, *ty, *wgsl_ty)?
                }
                Output::Direct { stored: None, wgsl_ty, .. } => e.zero(*wgsl_ty)?,
            });
        }
        let struct_name = result.struct_name.clone();
        self.entry = Some(result);
        Ok(result_return(struct_name, values))
    }

    /// The name a value stored to a direct output takes if it needs a `let`: the output's.
    pub(super) fn output_name(&self, id: Id) -> Option<&str> {
        self.entry.as_ref()?.outputs.iter().find_map(|output| match output {
            Output::Direct { stored: Some(value), name, .. } if *value == id => Some(name.as_str()),
            _ => None,
        })
    }

    /// The zero value an unwrapped entry function returns where its outputs do not matter (after
    /// `discard`); `None` for one without outputs, or another function.
    pub(super) fn entry_zero(&self) -> Option<Expr> {
        self.entry.as_ref()?.zero.clone()
    }
}

/// The Output variable among `direct` that `pointer` points into, and the constant path to the
/// part, through access chains and copies.
fn output_path(module: &Module, pointer: Id, direct: &IdSet<Id>) -> Option<(Id, Vec<u32>)> {
    if direct.is_empty() {
        return None;
    }
    let mut steps = Vec::new();
    let mut at = pointer;
    // Bounded: a malformed module could make the chain cyclic.
    for _ in 0..256 {
        if direct.contains(&at) {
            steps.reverse();
            return Some((at, steps));
        }
        let inst = module.value_inst(at)?;
        match inst.op {
            spirv::Op::CopyObject => {}
            spirv::Op::AccessChain | spirv::Op::InBoundsAccessChain => {
                for i in (1..inst.operands.len()).rev() {
                    steps.push(inst.id(i).and_then(|c| module.const_u32(c))?);
                }
            }
            _ => return None,
        }
        at = inst.id(0)?;
    }
    None
}
