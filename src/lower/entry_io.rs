//! Entry-point inputs and outputs (`IoPlan`): parameters, the copies into proxies, and the result.
//!
//! An entry function that is the WGSL entry point itself (`IoPlan::unwrapped`) takes the
//! parameters: a direct input is read from its parameter wherever the SPIR-V loads the variable,
//! any other is copied into its proxy first thing. Each of its returns gives the outputs: a direct
//! output's value stored before the return (zero before its store), a proxy's current value, or a
//! synthesised zero. A store to a direct output writes nothing: it records the value.

use super::emit::Emitter;
use super::function::{Lower, Memory, Pointer, Value};
use super::wrapper::{EntryInputs, EntryOutputs, FunctionResult, ResultPart, result_return};
use crate::error::Error;
use crate::id_hash::IdSet;
use crate::spirv::{EntryPoint, Id, Inst, IoSource, Module};
use crate::wgsl::ast::{self, Expr, Name, Stmt};

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
    /// Read at the return (from proxies) or synthesised.
    Read(Expr),
    /// A direct value: the part of the variable, and the value last stored to it.
    Direct { global: Id, path: Vec<u32>, stored: Option<Id>, name: String, ty: Id, wgsl_ty: Id },
}

impl Lower<'_> {
    /// For an unwrapped entry function: its parameters, the statements that start its body
    /// (initializers stored, builtins computed, inputs copied into proxies), and its result.
    /// Direct inputs become the values its loads read.
    pub(super) fn entry_interface(
        &mut self,
        e: &mut Emitter,
        entry: &EntryPoint,
    ) -> Result<(Vec<ast::Param>, Vec<Stmt>, FunctionResult), Error> {
        let namer = std::mem::take(&mut self.namer);
        let EntryInputs { params, body, direct: inputs, local } = e.entry_inputs(entry, namer, true)?;
        self.namer = local;
        for (global, read) in inputs {
            let pointer = Pointer { base: read, steps: Vec::new(), memory: Memory::ReadOnly };
            self.values.insert(global, Value::Pointer(Box::new(pointer)));
        }
        let plan = entry.io.clone().unwrap_or_default();
        let EntryOutputs { result, struct_name, parts, zero } = e.entry_outputs(&entry.name, &plan, true)?;
        let mut outputs = Vec::new();
        let mut direct = IdSet::default();
        for part in parts {
            outputs.push(match part {
                ResultPart::Read(expr) => Output::Read(expr),
                ResultPart::Direct(i) => {
                    let value = &plan.outputs[i];
                    let IoSource::Proxy { global, path } = &value.source else {
                        return Err(Error::internal("a direct output without a variable"));
                    };
                    direct.insert(*global);
                    // A store through an access chain into it needs a pointer to start from.
                    let pointer = Pointer { base: Expr::ident("_"), steps: Vec::new(), memory: Memory::Output };
                    self.values.insert(*global, Value::Pointer(Box::new(pointer)));
                    let (name, ty, wgsl_ty) = (value.name.clone(), value.ty, value.wgsl_ty);
                    Output::Direct { global: *global, path: path.clone(), stored: None, name, ty, wgsl_ty }
                }
            });
        }
        for &global in &plan.dropped {
            direct.insert(global);
            let pointer = Pointer { base: Expr::ident("_"), steps: Vec::new(), memory: Memory::Output };
            self.values.insert(global, Value::Pointer(Box::new(pointer)));
        }
        self.entry = Some(EntryResult { struct_name, outputs, zero, direct });
        Ok((params, body, result))
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
    ///
    /// Of several results, one computed where it is returned (an expression, not a name, a
    /// literal or a path into memory) gets a `let` named as its output, so the return reads as a
    /// list of output names. So does a value with an effect (a call just before the return):
    /// the proxies the return reads are then read after the call, as in SPIR-V. (A pending read
    /// of memory cannot precede such a call here: defining the call bound it.)
    pub(super) fn entry_return(&mut self, e: &mut Emitter) -> Result<Option<Expr>, Error> {
        let Some(result) = self.entry.take() else { return Ok(None) };
        let mut values = Vec::new();
        for output in &result.outputs {
            values.push(match output {
                Output::Read(expr) => expr.clone(),
                Output::Direct { stored: Some(value), ty, wgsl_ty, name, .. } => {
                    let pending = matches!(self.values.get(value), Some(Value::Pending { .. }));
                    let effect = self.pending_effect(e, *value);
                    let mut value = self.take(e, *value)?;
                    let named = match &value {
                        _ if effect => true,
                        Expr::Call(call) => !call.args.is_empty(),
                        other => !other.is_path(),
                    };
                    if pending && result.struct_name.is_some() && named {
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
