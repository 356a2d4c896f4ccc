//! The entry-point wrapper: the WGSL entry point written from an `IoPlan`, taking the inputs as
//! parameters (one per builtin, shared by the inputs reading it), copying them into their
//! proxies, computing the inputs WGSL lacks, calling the inner function and returning the
//! outputs.

use std::collections::HashMap;

use spirv::ExecutionModel;

use super::emit::Emitter;
use crate::error::Error;
use crate::spirv::{
    Computed, EntryPoint, Id, IoBinding, IoPlan, IoSource, IoValue, SubgroupMask, Type, WorkgroupDimension,
};
use crate::wgsl::ast::{self, Attribute, COMPONENTS, Expr, Literal, Name, Stmt};
use crate::wgsl::names::Namer;

impl Emitter<'_> {
    /// The entry point of a function other entry points share, written from its I/O plan:
    /// parameters into proxies, the inner call, the outputs returned.
    pub(super) fn entry_wrapper(&mut self, entry: &EntryPoint, name: String) -> Result<ast::Function, Error> {
        let inner = self.names.get(&entry.function).cloned().unwrap_or_default();
        let EntryInputs { params, mut body, .. } = self.entry_inputs(entry, Namer::default(), false)?;
        body.push(Stmt::Call(Expr::call(inner, vec![])));
        let plan = entry.io.clone().unwrap_or_default();
        let EntryOutputs { result, struct_name, parts, .. } = self.entry_outputs(&name, &plan, false)?;
        let results = parts.into_iter().map(|part| match part {
            ResultPart::Read(expr) => expr,
            ResultPart::Direct(_) => unreachable!("a wrapper returns no direct values"),
        });
        body.extend(result_return(struct_name, results.collect()).map(|value| Stmt::Return(Some(value))));
        let attributes = self.stage_attributes(entry)?;
        Ok(ast::Function { attributes, name, params, result, body, exits: Vec::new() })
    }

    /// The parameters of `entry` and the start of its body: the initializers it stores, the
    /// builtins it computes, its inputs copied into their proxies. Where its function is the
    /// entry point itself (`unwrapped`), a direct input is read from its parameter (named as its
    /// variable where no proxy needs it) and copied only into a proxy another function reads:
    /// `direct` holds, per such variable, what its loads read. `local` names the parameters.
    pub(super) fn entry_inputs(
        &mut self,
        entry: &EntryPoint,
        local: Namer,
        unwrapped: bool,
    ) -> Result<EntryInputs, Error> {
        let plan = entry.io.clone().unwrap_or_default();
        let body = self.entry_initializer_stores(entry)?;
        let mut params = WrapperParams { plan: plan.clone(), body, local, ..WrapperParams::default() };
        let mut direct = Vec::new();
        for value in &plan.inputs {
            let is_direct = unwrapped && value.direct;
            let proxied = self.has_proxy(value);
            let arg = match value.binding {
                IoBinding::Computed(computed) => self.computed_value(computed, value, &mut params)?,
                IoBinding::Location { location, component: Some(first), .. } => {
                    self.packed_input(value, location, first, &mut params)?
                }
                _ => {
                    let base = if is_direct && !proxied { value.name.clone() } else { format!("{}_param", value.name) };
                    let param_name = self.input_param(value, &base, &mut params)?;
                    self.convert(Expr::ident(param_name), value.wgsl_ty, value.ty)?
                }
            };
            if let (IoSource::Proxy { global, .. }, true) = (&value.source, is_direct) {
                direct.push((*global, arg.clone()));
            }
            if proxied {
                let target = self.proxy(value)?.ok_or_else(|| Error::internal("an input without a proxy"))?;
                params.body.push(Stmt::Assign { target, value: arg });
            }
        }
        let WrapperParams { params, body, local, .. } = params;
        Ok(EntryInputs { params, body, direct, local })
    }

    /// The result of entry point `name` returning `plan.outputs`: its type (one value, or a
    /// struct of them declared here) and what each part of it holds: read from the proxies (the
    /// values sharing a location packed into one), or, where the function is the entry point
    /// itself (`unwrapped`), a direct output's stored value.
    pub(super) fn entry_outputs(&mut self, name: &str, plan: &IoPlan, unwrapped: bool) -> Result<EntryOutputs, Error> {
        let mut members = Vec::new();
        let mut parts = Vec::new();
        let mut member_namer = Namer::for_members();
        for (i, value) in plan.outputs.iter().enumerate() {
            if let IoBinding::Location { location, blend_src, component: Some(_), .. } = value.binding {
                // The values sharing a location: one member, where the first of them is.
                let shares = |v: &IoValue| matches!(v.binding, IoBinding::Location { location: l, blend_src: b, .. } if (l, b) == (location, blend_src));
                if plan.outputs[..i].iter().any(shares) {
                    continue;
                }
                let sharing: Vec<&IoValue> = plan.outputs[i..].iter().filter(|v| shares(v)).collect();
                let (result, ty) = self.packed_output(&sharing)?;
                parts.push(ResultPart::Read(result));
                let name = member_namer.fresh(&format!("location_{location}"), None);
                members.push(ast::Member { attributes: self.io_attributes(value), name, ty });
                continue;
            }
            let wgsl_ty = self.ty(value.wgsl_ty)?;
            // A direct output has no proxy to name (naming one would declare its struct).
            parts.push(match unwrapped && value.direct {
                true => ResultPart::Direct(i),
                false => match self.proxy(value)? {
                    Some(proxy) => ResultPart::Read(self.convert(proxy, value.ty, value.wgsl_ty)?),
                    None => ResultPart::Read(self.zero(value.wgsl_ty)?),
                },
            });
            members.push(ast::Member {
                attributes: self.io_attributes(value),
                name: member_namer.fresh(&value.name, None),
                ty: wgsl_ty,
            });
        }
        Ok(match members.len() {
            0 => EntryOutputs { result: None, struct_name: None, parts, zero: None },
            1 => {
                let member = members.pop().expect("one member");
                let zero = Some(match plan.outputs.first() {
                    Some(value) if member.ty == self.ty(value.wgsl_ty)? => self.zero(value.wgsl_ty)?,
                    _ => Expr::call(member.ty.clone(), vec![]),
                });
                EntryOutputs { result: Some((member.attributes, member.ty)), struct_name: None, parts, zero }
            }
            _ => {
                let struct_name: Name = self.namer.fresh(&format!("{name}_out"), None).into();
                self.out.structs.push(ast::Struct { name: struct_name.to_string(), members });
                let zero = Some(Expr::call(struct_name.clone(), vec![]));
                EntryOutputs {
                    result: Some((vec![], struct_name.clone())),
                    struct_name: Some(struct_name),
                    parts,
                    zero,
                }
            }
        })
    }

    /// Whether input or output `value` lives in a private proxy (`direct_io.rs` left it one).
    fn has_proxy(&self, value: &IoValue) -> bool {
        let module = self.module;
        match &value.source {
            IoSource::Proxy { global, .. } => {
                module.global_index(*global).is_some_and(|g| module.globals[g].class == spirv::StorageClass::Private)
            }
            IoSource::Zero => false,
        }
    }

    /// An input sharing its location with others: its components of the location's `vec4`
    /// parameter (of the scalar type of the first value planned there).
    fn packed_input(
        &mut self,
        value: &IoValue,
        location: u32,
        first: u32,
        params: &mut WrapperParams,
    ) -> Result<Expr, Error> {
        let (scalar, count) = self.module.scalar_of(value.ty).unwrap_or((value.ty, 1));
        let (name, param_ty) = match params.by_location.get(&location) {
            Some(param) => param.clone(),
            None => {
                let name = params.local.fresh(&format!("location_{location}_param"), Some(&self.namer));
                let ty = format!("vec4<{}>", self.ty(scalar)?);
                let attributes = self.io_attributes(value);
                params.params.push(ast::Param { attributes, name: name.clone(), ty: ty.as_str().into() });
                params.by_location.insert(location, (name.clone(), ty.clone()));
                (name, ty)
            }
        };
        let part = Expr::member(Expr::ident(name), COMPONENTS[first as usize..(first + count) as usize].concat());
        // Integers of the other signedness share the location's type: the bits are the same.
        let scalar_ty = self.ty(scalar)?;
        Ok(if param_ty.ends_with(&format!("<{scalar_ty}>")) { part } else { self.bitcast(value.ty, part)? })
    }

    /// The `vec4` of the outputs sharing a location, each at its components, zero elsewhere, in
    /// the scalar type of the first of them; and that type.
    fn packed_output(&mut self, sharing: &[&IoValue]) -> Result<(Expr, ast::Type), Error> {
        let first_of = |v: &IoValue| match v.binding {
            IoBinding::Location { component, .. } => component.unwrap_or(0),
            _ => 0,
        };
        let (scalar, _) = self.module.scalar_of(sharing[0].ty).unwrap_or((sharing[0].ty, 1));
        let scalar_ty = self.ty(scalar)?;
        let mut parts = Vec::new();
        let mut component = 0;
        while component < 4 {
            let Some(value) = sharing.iter().find(|v| first_of(v) == component) else {
                parts.push(zero(&scalar_ty));
                component += 1;
                continue;
            };
            let (own_scalar, count) = self.module.scalar_of(value.ty).unwrap_or((value.ty, 1));
            let mut part = self.proxy(value)?.unwrap_or_else(|| zero(&scalar_ty));
            if self.ty(own_scalar)? != scalar_ty {
                let ty = if count == 1 { scalar_ty.to_string() } else { format!("vec{count}<{scalar_ty}>") };
                part = Expr::call(format!("bitcast<{ty}>"), vec![part]);
            }
            parts.push(part);
            component += count;
        }
        let ty = format!("vec4<{scalar_ty}>");
        Ok((Expr::call(ty.as_str(), parts), ty.as_str().into()))
    }

    /// The wrapper's parameter for an input: a new one, or for a builtin another input reads
    /// too, the one it already has (WGSL allows one parameter per builtin).
    /// `base` is the name to start from.
    fn input_param(&mut self, value: &IoValue, base: &str, params: &mut WrapperParams) -> Result<String, Error> {
        let ty = self.ty(value.wgsl_ty)?;
        let attributes = self.io_attributes(value);
        Ok(match value.binding {
            IoBinding::BuiltIn { name, .. } => self.builtin_input(value, base, name, attributes, ty, params),
            _ => {
                let name = params.local.fresh(base, Some(&self.namer));
                params.params.push(ast::Param { attributes, name: name.clone(), ty });
                name
            }
        })
    }

    /// The name holding builtin `builtin` for input `value`: a parameter, shared by the inputs
    /// reading the builtin, or a value the wrapper computes at its start where naga cannot take
    /// the parameter (`subgroup_ids.rs`).
    fn builtin_input(
        &mut self,
        value: &IoValue,
        base: &str,
        builtin: &'static str,
        attributes: Vec<Attribute>,
        ty: ast::Type,
        params: &mut WrapperParams,
    ) -> String {
        if let Some(param) = params.by_builtin.get(builtin) {
            return param.clone();
        }
        let name = params.local.fresh(base, Some(&self.namer));
        params.by_builtin.insert(builtin, name.clone());
        match self.computed_input(&params.plan, value, &name) {
            Some(stmts) => params.body.extend(stmts),
            None => params.params.push(ast::Param { attributes, name: name.clone(), ty }),
        }
        name
    }

    /// The `u32` builtin `name` (which needs `enable`), for a value the wrapper computes.
    fn builtin_param(&mut self, name: &'static str, enable: Option<&'static str>, params: &mut WrapperParams) -> Expr {
        if let Some(enable) = enable {
            self.enables.insert(enable);
        }
        let binding = IoBinding::BuiltIn { name, enable, invariant: false };
        let value = IoValue { source: IoSource::Zero, name: name.into(), ty: 0, wgsl_ty: 0, binding, direct: false };
        let base = format!("{name}_param");
        Expr::ident(self.builtin_input(&value, &base, name, vec![Attribute::Builtin(name)], "u32".into(), params))
    }

    /// The value of an input the wrapper computes, as the type of its proxy.
    fn computed_value(
        &mut self,
        computed: Computed,
        value: &IoValue,
        params: &mut WrapperParams,
    ) -> Result<Expr, Error> {
        let module = self.module;
        let (expr, computed_ty) = match computed {
            Computed::SubgroupMask(mask) => {
                let id = self.builtin_param("subgroup_invocation_id", Some("subgroups"), params);
                let next = Expr::binary(ast::BinaryOp::Add, id.clone(), Expr::Literal(Literal::U32(1)));
                let zero = Expr::Literal(Literal::U32(0));
                let (low, high) = match mask {
                    SubgroupMask::Eq => (id, next),
                    SubgroupMask::Ge => (id, self.builtin_param("subgroup_size", Some("subgroups"), params)),
                    SubgroupMask::Gt => (next, self.builtin_param("subgroup_size", Some("subgroups"), params)),
                    SubgroupMask::Le => (zero, next),
                    SubgroupMask::Lt => (zero, id),
                };
                let helper = self.subgroup_mask_helper(&params.local);
                (Expr::call(helper, vec![low, high]), ast::Type::from("vec4<u32>"))
            }
            Computed::BufferMember { buffer, member } => {
                let name = self.names.get(&buffer).cloned().unwrap_or_default();
                let block = module.globals[module.global_index(buffer).unwrap_or_default()].pointee;
                let member_ty = match module.ty(block)? {
                    Type::Struct { members } => members.get(member as usize).copied().unwrap_or(block),
                    _ => block,
                };
                let expr = Expr::member(Expr::ident(name), self.member_name(block, member)?);
                (expr, self.ty(member_ty)?)
            }
        };
        // The proxy may hold integers of the other signedness: the bits are the same.
        let proxy_ty = self.ty(value.ty)?;
        Ok(if proxy_ty == computed_ty { expr } else { self.bitcast(value.ty, expr)? })
    }

    /// `@vertex`, `@fragment`, or `@compute` with its `@workgroup_size`.
    pub(super) fn stage_attributes(&mut self, entry: &EntryPoint) -> Result<Vec<Attribute>, Error> {
        let mut attributes = vec![Attribute::Stage(match entry.model {
            ExecutionModel::Vertex => "vertex",
            ExecutionModel::Fragment => "fragment",
            _ => "compute",
        })];
        if let Some([x, y, z]) = entry.io.as_ref().and_then(|plan| plan.workgroup_size) {
            let size = [self.workgroup_dimension(x)?, self.workgroup_dimension(y)?, self.workgroup_dimension(z)?];
            attributes.push(Attribute::WorkgroupSize(Box::new(size)));
        }
        Ok(attributes)
    }

    pub(super) fn io_attributes(&mut self, value: &IoValue) -> Vec<Attribute> {
        match &value.binding {
            IoBinding::BuiltIn { name, enable, invariant } => {
                if let Some(enable) = enable {
                    self.enables.insert(enable);
                }
                let mut attributes = vec![Attribute::Builtin(name)];
                if *invariant {
                    attributes.push(Attribute::Invariant);
                }
                attributes
            }
            IoBinding::Computed(_) => Vec::new(),
            IoBinding::Location { location, interpolation, blend_src, .. } => {
                let mut attributes = vec![Attribute::Location(*location)];
                if let Some(src) = blend_src {
                    self.enables.insert("dual_source_blending");
                    attributes.push(Attribute::BlendSrc(*src));
                }
                if let Some(how) = interpolation {
                    attributes.push(Attribute::Interpolate(how.clone()));
                }
                attributes
            }
        }
    }

    /// The proxy variable, or the member, element or column of it, that an I/O value lives in;
    /// `None` for a synthesised value.
    pub(super) fn proxy(&mut self, value: &IoValue) -> Result<Option<Expr>, Error> {
        let IoSource::Proxy { global, path } = &value.source else { return Ok(None) };
        let module = self.module;
        let mut expr = Expr::ident(self.names.get(global).cloned().unwrap_or_default());
        let mut ty = module.globals[module.global_index(*global).unwrap_or_default()].pointee;
        for &step in path {
            match module.ty(ty)? {
                Type::Struct { members } => {
                    let member_ty = members[step as usize];
                    expr = Expr::member(expr, self.member_name(ty, step)?);
                    ty = member_ty;
                }
                Type::Array { element: inner, .. } | Type::Matrix { column: inner, .. } => {
                    expr = Expr::index(expr, Expr::Literal(Literal::Abstract(i64::from(step))));
                    ty = *inner;
                }
                _ => return Err(Error::internal("an I/O path steps into a non-composite")),
            }
        }
        Ok(Some(expr))
    }

    /// A number, or the `override` (expression) of a specialization constant.
    fn workgroup_dimension(&mut self, dimension: WorkgroupDimension) -> Result<Expr, Error> {
        match dimension {
            WorkgroupDimension::Literal(d) => Ok(Expr::Literal(Literal::Abstract(i64::from(d)))),
            WorkgroupDimension::Constant(id) => self.constant(id),
        }
    }

    /// `value` of type `from` as type `to`, where the two differ at most in signedness.
    pub(super) fn convert(&mut self, value: Expr, from: Id, to: Id) -> Result<Expr, Error> {
        Ok(if from == to { value } else { self.bitcast(to, value)? })
    }
}

/// A zero of WGSL scalar type `scalar`.
fn zero(scalar: &str) -> Expr {
    Expr::Literal(match scalar {
        "i32" => Literal::I32(0),
        "u32" => Literal::U32(0),
        "f16" => Literal::F16(0),
        _ => Literal::F32(0),
    })
}

/// The parameters and the start of the body of an entry-point wrapper being written.
#[derive(Default)]
struct WrapperParams {
    plan: IoPlan,
    /// The statements so far: initializers, builtins computed, inputs copied into their proxies.
    body: Vec<Stmt>,
    params: Vec<ast::Param>,
    /// The parameter of each builtin, by its WGSL name.
    by_builtin: HashMap<&'static str, String>,
    /// The `vec4` parameter of each location values share, and its type.
    by_location: HashMap<u32, (String, String)>,
    /// The wrapper's local names.
    local: Namer,
}

/// An entry point's parameters and the start of its body (`Emitter::entry_inputs`).
pub(super) struct EntryInputs {
    pub(super) params: Vec<ast::Param>,
    pub(super) body: Vec<Stmt>,
    /// Per direct input's variable, what its loads read.
    pub(super) direct: Vec<(Id, Expr)>,
    /// The names taken, the parameters' among them.
    pub(super) local: Namer,
}

/// An entry point's result (`Emitter::entry_outputs`).
pub(super) struct EntryOutputs {
    pub(super) result: FunctionResult,
    /// The struct of the results when there are several.
    pub(super) struct_name: Option<Name>,
    pub(super) parts: Vec<ResultPart>,
    /// The zero value of the result, returned where the outputs do not matter (after `discard`).
    pub(super) zero: Option<Expr>,
}

/// What one part of an entry point's result holds.
pub(super) enum ResultPart {
    /// A value read at the return (from proxies) or synthesised.
    Read(Expr),
    /// Direct output `plan.outputs[i]`: the value the entry function stored.
    Direct(usize),
}

/// A function's result: its type, with the attributes of an entry point's.
pub(super) type FunctionResult = Option<(Vec<Attribute>, ast::Type)>;

/// What an entry point returns: its one result, or the struct of them.
pub(super) fn result_return(struct_name: Option<Name>, mut results: Vec<Expr>) -> Option<Expr> {
    match struct_name {
        Some(name) => Some(Expr::call(name, results)),
        None => results.pop(),
    }
}
