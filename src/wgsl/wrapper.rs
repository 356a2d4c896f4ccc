//! The entry-point wrapper: the WGSL entry point written from an `IoPlan`, taking the inputs as
//! parameters (one per builtin, shared by the inputs reading it), copying them into their
//! proxies, computing the inputs WGSL lacks, calling the inner function and returning the
//! outputs.

use std::collections::HashMap;

use spirv::ExecutionModel;

use super::ast::{self, Attribute, Expr, Literal, Stmt};
use super::emit::Emitter;
use super::function::COMPONENTS;
use super::names::Namer;
use crate::error::Error;
use crate::spirv::{
    Computed, EntryPoint, Id, IoBinding, IoPlan, IoSource, IoValue, SubgroupMask, Type, WorkgroupDimension,
};

impl Emitter<'_> {
    /// The entry point itself, written from its I/O plan: parameters into proxies, the inner
    /// call, the outputs returned.
    pub(super) fn entry_wrapper(&mut self, entry: &EntryPoint, name: String) -> Result<ast::Function, Error> {
        let plan = entry.io.clone().unwrap_or_default();
        let inner = self.names.get(&entry.function).cloned().unwrap_or_default();
        let body = self.entry_initializer_stores(entry)?;
        let mut params = WrapperParams { plan: plan.clone(), body, ..WrapperParams::default() };
        // Proxies whose whole value a parameter holds, by name.
        let mut whole = HashMap::new();
        for value in &plan.inputs {
            let target = self.proxy(value)?.ok_or_else(|| Error::internal("an input without a proxy"))?;
            let arg = match value.binding {
                IoBinding::Computed(computed) => self.computed_value(computed, value, &mut params)?,
                IoBinding::Location { location, component: Some(first), .. } => {
                    self.packed_input(value, location, first, &mut params)?
                }
                _ => {
                    let param_name = self.input_param(value, &mut params)?;
                    if let IoSource::Proxy { global, path } = &value.source
                        && path.is_empty()
                        && let Some(proxy) = self.names.get(global)
                    {
                        whole.insert(proxy.clone(), param_name.clone());
                    }
                    self.convert(Expr::ident(param_name), value.wgsl_ty, value.ty)?
                }
            };
            params.body.push(Stmt::Assign { target, value: arg });
        }
        let WrapperParams { params, mut body, .. } = params;
        let args = self
            .inner_args
            .get(&inner)
            .into_iter()
            .flatten()
            .filter_map(|proxy| whole.get(proxy))
            .map(|p| Expr::ident(p.as_str()));
        body.push(Stmt::Call(Expr::call(inner.as_str(), args.collect())));
        let mut members = Vec::new();
        let mut results = Vec::new();
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
                results.push(result);
                let name = member_namer.fresh(&format!("location_{location}"), None);
                members.push(ast::Member { attributes: self.io_attributes(value), name, ty });
                continue;
            }
            let wgsl_ty = self.ty(value.wgsl_ty)?;
            let result = match self.proxy(value)? {
                Some(proxy) => self.convert(proxy, value.ty, value.wgsl_ty)?,
                None => Expr::call(wgsl_ty.clone(), vec![]),
            };
            results.push(result);
            members.push(ast::Member {
                attributes: self.io_attributes(value),
                name: member_namer.fresh(&value.name, None),
                ty: wgsl_ty,
            });
        }
        let result = match members.len() {
            0 => None,
            1 => {
                let member = members.pop().expect("one member");
                body.push(Stmt::Return(results.pop()));
                Some((member.attributes, member.ty))
            }
            _ => {
                let struct_name = self.namer.fresh(&format!("{name}_out"), None);
                self.out.structs.push(ast::Struct { name: struct_name.clone(), members });
                body.push(Stmt::Return(Some(Expr::call(struct_name.as_str(), results))));
                Some((vec![], struct_name.into()))
            }
        };
        let attributes = self.stage_attributes(entry)?;
        Ok(ast::Function { attributes, name, params, result, body })
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
    fn input_param(&mut self, value: &IoValue, params: &mut WrapperParams) -> Result<String, Error> {
        let ty = self.ty(value.wgsl_ty)?;
        let attributes = self.io_attributes(value);
        Ok(match value.binding {
            IoBinding::BuiltIn { name, .. } => self.builtin_input(value, name, attributes, ty, params),
            _ => {
                let name = params.local.fresh(&format!("{}_param", value.name), Some(&self.namer));
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
        builtin: &'static str,
        attributes: Vec<Attribute>,
        ty: ast::Type,
        params: &mut WrapperParams,
    ) -> String {
        if let Some(param) = params.by_builtin.get(builtin) {
            return param.clone();
        }
        let name = params.local.fresh(&format!("{}_param", value.name), Some(&self.namer));
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
        let value = IoValue { source: IoSource::Zero, name: name.into(), ty: 0, wgsl_ty: 0, binding };
        Expr::ident(self.builtin_input(&value, name, vec![Attribute::Builtin(name)], "u32".into(), params))
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

    fn io_attributes(&mut self, value: &IoValue) -> Vec<Attribute> {
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
    fn proxy(&mut self, value: &IoValue) -> Result<Option<Expr>, Error> {
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
    fn convert(&mut self, value: Expr, from: Id, to: Id) -> Result<Expr, Error> {
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
