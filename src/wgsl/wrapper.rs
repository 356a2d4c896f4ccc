//! The entry-point wrapper: the WGSL entry point written from an `IoPlan`, taking the inputs as
//! parameters (one per builtin, shared by the inputs reading it), copying them into their
//! proxies, computing the inputs WGSL lacks, calling the inner function and returning the
//! outputs.

use std::collections::HashMap;

use spirv::ExecutionModel;

use super::ast::{self, Attribute, Expr, Literal, Stmt};
use super::emit::Emitter;
use super::names::Namer;
use crate::error::Error;
use crate::spirv::{Computed, EntryPoint, Id, IoBinding, IoSource, IoValue, SubgroupMask, Type, WorkgroupDimension};

impl Emitter<'_> {
    /// The entry point itself, written from its I/O plan: parameters into proxies, the inner
    /// call, the outputs returned.
    pub(super) fn entry_wrapper(&mut self, entry: &EntryPoint, name: String) -> Result<ast::Function, Error> {
        let plan = entry.io.clone().unwrap_or_default();
        let inner = self.names.get(&entry.function).cloned().unwrap_or_default();
        let mut params = WrapperParams::default();
        let mut body = Vec::new();
        // Proxies whose whole value a parameter holds, by name.
        let mut whole = HashMap::new();
        for value in &plan.inputs {
            let target = self.proxy(value)?.ok_or_else(|| Error::internal("an input without a proxy"))?;
            let arg = match &value.binding {
                IoBinding::Computed(computed) => self.computed_input(*computed, value, &mut params)?,
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
            body.push(Stmt::Assign { target, value: arg });
        }
        let params = params.params;
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
        let mut member_namer = Namer::default();
        for value in &plan.outputs {
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

    /// The wrapper's parameter for an input: a new one, or for a builtin another input reads
    /// too, the one it already has (WGSL allows one parameter per builtin).
    fn input_param(&mut self, value: &IoValue, params: &mut WrapperParams) -> Result<String, Error> {
        if let IoBinding::BuiltIn { name, .. } = value.binding
            && let Some(param) = params.by_builtin.get(name)
        {
            return Ok(param.clone());
        }
        let name = params.local.fresh(&format!("{}_param", value.name), Some(&self.namer));
        if let IoBinding::BuiltIn { name: builtin, .. } = value.binding {
            params.by_builtin.insert(builtin, name.clone());
        }
        let ty = self.ty(value.wgsl_ty)?;
        params.params.push(ast::Param { attributes: self.io_attributes(value), name: name.clone(), ty });
        Ok(name)
    }

    /// The `u32` builtin `name` (which needs `enable`) as the wrapper's parameter.
    fn builtin_param(&mut self, name: &'static str, enable: Option<&'static str>, params: &mut WrapperParams) -> Expr {
        if let Some(param) = params.by_builtin.get(name) {
            return Expr::ident(param.clone());
        }
        let param = params.local.fresh(&format!("{name}_param"), Some(&self.namer));
        params.by_builtin.insert(name, param.clone());
        if let Some(enable) = enable {
            self.enables.insert(enable);
        }
        let attributes = vec![Attribute::Builtin(name)];
        params.params.push(ast::Param { attributes, name: param.clone(), ty: "u32".into() });
        Expr::ident(param)
    }

    /// The value of an input the wrapper computes, as the type of its proxy.
    fn computed_input(
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
            IoBinding::Location { location, interpolation, blend_src } => {
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

/// The parameters of an entry-point wrapper being written.
#[derive(Default)]
struct WrapperParams {
    params: Vec<ast::Param>,
    /// The parameter of each builtin, by its WGSL name.
    by_builtin: HashMap<&'static str, String>,
    /// The wrapper's local names.
    local: Namer,
}
