//! Lowering the structured module to the WGSL syntax tree: module scope (types, structs with their
//! explicit layout, globals, entry-point wrappers). Function bodies are in `function.rs`.

use std::collections::{BTreeSet, HashMap};

use spirv::{ExecutionModel, StorageClass};

use super::ast::{self, Attribute, Expr, Literal, Stmt};
use super::function;
use super::names::Namer;
use crate::error::{Error, Location};
use crate::spirv::{ConstValue, Def, EntryPoint, Id, IoBinding, IoSource, IoValue, Module, Type};
use crate::Options;

/// Module-scope state shared by the function lowering: names and type spellings.
pub struct Emitter<'m> {
    pub module: &'m Module,
    pub out: ast::Module,
    pub namer: Namer,
    /// Names of globals and functions.
    pub names: HashMap<Id, String>,
    types: HashMap<Id, String>,
    member_names: HashMap<Id, Vec<String>>,
    enables: BTreeSet<&'static str>,
    /// `--annotate`: statements name their SPIR-V origin.
    pub annotate: bool,
}

pub fn emit(module: &Module, options: &Options) -> Result<ast::Module, Error> {
    let mut e = Emitter {
        module,
        out: ast::Module::default(),
        namer: Namer::default(),
        names: HashMap::new(),
        types: HashMap::new(),
        member_names: HashMap::new(),
        enables: BTreeSet::new(),
        annotate: options.annotate,
    };
    // Entry-point names are the API users call: they are claimed first and never renamed.
    let mut wrapper_names = Vec::new();
    for entry in &module.entry_points {
        wrapper_names.push(e.namer.fresh(&entry.name, None));
    }
    let functions = module.entry_functions();
    let mut inner_names: HashMap<Id, String> = HashMap::new();
    for entry in &module.entry_points {
        if let std::collections::hash_map::Entry::Vacant(slot) = inner_names.entry(entry.function) {
            slot.insert(e.namer.fresh(&format!("{}_inner", entry.name), None));
        }
    }
    for &f in &functions {
        let id = module.functions[f].id;
        let name = match inner_names.get(&id) {
            Some(name) => name.clone(),
            None => {
                let base = module.name(id).map(str::to_string).unwrap_or_else(|| format!("function_{id}"));
                e.namer.fresh(&base, None)
            }
        };
        e.names.insert(id, name);
    }
    for global in used_globals(module, &functions) {
        e.global(global)?;
    }
    for &f in &functions {
        let lowered = function::emit(&mut e, f)?;
        e.out.functions.push(lowered);
    }
    for (entry, name) in module.entry_points.iter().zip(wrapper_names) {
        let wrapper = e.entry_wrapper(entry, name)?;
        e.out.functions.push(wrapper);
    }
    e.out.enables = e.enables.iter().copied().collect();
    Ok(e.out)
}

/// Globals the emitted functions refer to, in declaration order.
fn used_globals(module: &Module, functions: &[usize]) -> Vec<usize> {
    let mut used = vec![false; module.globals.len()];
    for &f in functions {
        for inst in &module.functions[f].insts {
            for id in inst.id_operands() {
                if let Some(g) = module.global_index(id) {
                    used[g] = true;
                }
            }
        }
    }
    // Proxies the entry-point wrappers copy, even if no function reads them.
    for entry in &module.entry_points {
        for value in entry.io.iter().flat_map(|plan| plan.inputs.iter().chain(&plan.outputs)) {
            if let IoSource::Proxy { global, .. } = value.source
                && let Some(g) = module.global_index(global)
            {
                used[g] = true;
            }
        }
    }
    (0..module.globals.len()).filter(|&g| used[g]).collect()
}

pub fn location_of_id(module: &Module, id: Id) -> Location {
    let word_offset = module.global_index(id).map(|g| module.globals[g].offset);
    Location { word_offset, result_id: Some(id), ..Location::default() }
}

impl<'m> Emitter<'m> {
    fn unsupported(&self, id: Id, message: String) -> Error {
        Error::unsupported(message, location_of_id(self.module, id))
    }

    /// The WGSL spelling of a SPIR-V type, declaring structs on first use.
    pub fn ty(&mut self, id: Id) -> Result<String, Error> {
        if let Some(spelled) = self.types.get(&id) {
            return Ok(spelled.clone());
        }
        let module = self.module;
        let spelled = match module.ty(id)? {
            Type::Void => return Err(self.unsupported(id, "void used as a value type".into())),
            Type::Bool => "bool".to_string(),
            Type::Int { width: 32, signed: true } => "i32".to_string(),
            Type::Int { width: 32, signed: false } => "u32".to_string(),
            Type::Float { width: 32 } => "f32".to_string(),
            Type::Float { width: 16 } => {
                self.enables.insert("f16");
                "f16".to_string()
            }
            Type::Int { width, .. } => {
                return Err(self.unsupported(id, format!("{width}-bit integers: WGSL has only 32-bit integers")));
            }
            Type::Float { width } => {
                return Err(self.unsupported(id, format!("{width}-bit floats: WGSL has only f32 and f16")));
            }
            Type::Vector { count, .. } if !(2..=4).contains(count) => {
                return Err(self.unsupported(id, format!("{count}-component vectors: WGSL has 2 to 4")));
            }
            Type::Vector { component, count } => format!("vec{count}<{}>", self.ty(*component)?),
            Type::Matrix { column, columns } => {
                let (scalar, rows) = module.scalar_of(*column).unwrap_or((*column, 0));
                format!("mat{columns}x{rows}<{}>", self.ty(scalar)?)
            }
            Type::Array { element, length } => {
                let count = match module.constant(*length) {
                    Some(c) if c.spec_id.is_none() => module.const_u32(*length),
                    _ => None,
                }
                .ok_or_else(|| self.unsupported(id, "array length is not a constant (specialization-sized arrays)".into()))?;
                self.check_stride(id, *element)?;
                format!("array<{}, {count}>", self.ty(*element)?)
            }
            Type::RuntimeArray { element } => {
                self.check_stride(id, *element)?;
                format!("array<{}>", self.ty(*element)?)
            }
            Type::Struct { members } => self.declare_struct(id, members)?,
            Type::Pointer { class, pointee } => {
                format!("ptr<{}, {}>", address_space(module, *class, *pointee)?, self.ty(*pointee)?)
            }
            Type::Sampler => "sampler".to_string(),
            Type::Image(image) => {
                let image = image.clone();
                self.image_type(id, &image)?
            }
            Type::SampledImage { .. } | Type::Function { .. } | Type::Unsupported(_) => {
                return Err(self.unsupported(id, format!("type {:?} has no WGSL counterpart", module.ty(id)?)));
            }
        };
        self.types.insert(id, spelled.clone());
        Ok(spelled)
    }

    fn image_type(&mut self, id: Id, image: &crate::spirv::ImageType) -> Result<String, Error> {
        use spirv::Dim;
        let dim = match (image.dim, image.arrayed, image.multisampled) {
            (Dim::Dim1D, false, false) => "1d",
            (Dim::Dim2D, false, false) => "2d",
            (Dim::Dim2D, true, false) => "2d_array",
            (Dim::Dim3D, false, false) => "3d",
            (Dim::DimCube, false, false) => "cube",
            (Dim::DimCube, true, false) => "cube_array",
            (Dim::Dim2D, false, true) => "multisampled_2d",
            _ => return Err(self.unsupported(id, format!("image type {image:?} has no WGSL texture type"))),
        };
        if image.sampled == 2 {
            return Err(self.unsupported(id, "storage images are not supported yet".into()));
        }
        if image.depth == 1 {
            return Ok(format!("texture_depth_{dim}"));
        }
        Ok(format!("texture_{dim}<{}>", self.ty(image.sampled_type)?))
    }

    /// Strides WGSL cannot express are refused rather than silently changed.
    fn check_stride(&mut self, array: Id, element: Id) -> Result<(), Error> {
        let Some(stride) = self.module.decorations(array).array_stride else { return Ok(()) };
        let (size, align) = layout(self.module, element)?;
        if stride != round_up(size, align) {
            return Err(self.unsupported(
                array,
                format!("array stride {stride} differs from WGSL's natural stride {} (not supported yet)", round_up(size, align)),
            ));
        }
        Ok(())
    }

    fn declare_struct(&mut self, id: Id, members: &[Id]) -> Result<String, Error> {
        let module = self.module;
        let base = module.name(id).map(str::to_string).unwrap_or_else(|| format!("Struct_{id}"));
        let name = self.namer.fresh(&base, None);
        // Claimed before the members are spelled so a recursive reference finds it.
        self.types.insert(id, name.clone());
        let mut member_namer = Namer::default();
        let mut names = Vec::with_capacity(members.len());
        let mut out = Vec::with_capacity(members.len());
        let mut natural_end = 0u32;
        for (i, &member) in members.iter().enumerate() {
            let i = i as u32;
            let decorations = module.member_decorations(id, i);
            let member_name = module
                .member_names
                .get(&(id, i))
                .filter(|n| !n.is_empty())
                .cloned()
                .unwrap_or_else(|| format!("member_{i}"));
            let member_name = member_namer.fresh(&member_name, None);
            names.push(member_name.clone());
            if decorations.row_major && has_matrix(module, member) {
                return Err(self.unsupported(id, format!("row-major matrix member `{member_name}` (not supported yet)")));
            }
            let ty = self.ty(member)?;
            if let Some(offset) = decorations.offset {
                let (size, align) = layout(module, member)?;
                let natural = round_up(natural_end, align);
                if offset < natural || (i == 0 && offset != 0) {
                    return Err(self.unsupported(
                        id,
                        format!("member `{member_name}` at offset {offset} cannot be placed by WGSL layout rules (natural offset {natural})"),
                    ));
                }
                if offset > natural {
                    // Pad by growing the previous member; WGSL has no explicit offsets.
                    let previous: &mut ast::Member = out.last_mut().expect("offset 0 checked above");
                    let previous_offset = module.member_decorations(id, i - 1).offset.unwrap_or(0);
                    previous.attributes.push(Attribute::Size(offset - previous_offset));
                }
                natural_end = offset.saturating_add(size);
            }
            out.push(ast::Member { attributes: Vec::new(), name: member_name, ty });
        }
        self.member_names.insert(id, names);
        self.out.structs.push(ast::Struct { name: name.clone(), members: out });
        Ok(name)
    }

    /// The WGSL name of member `index` of struct type `id`.
    pub fn member_name(&mut self, id: Id, index: u32) -> Result<String, Error> {
        self.ty(id)?;
        self.member_names
            .get(&id)
            .and_then(|names| names.get(index as usize))
            .cloned()
            .ok_or_else(|| Error::invalid(format!("struct %{id} has no member {index}"), Location::default()))
    }

    fn global(&mut self, g: usize) -> Result<(), Error> {
        let module = self.module;
        let global = &module.globals[g];
        let decorations = module.decorations(global.id);
        // An unnamed block instance (`uniform Params { ... };`) is named after its type.
        let base = module
            .name(global.id)
            .map(str::to_string)
            .or_else(|| module.name(global.pointee).map(lower_first))
            .unwrap_or_else(|| format!("global_{}", global.id));
        let name = self.namer.fresh(&base, None);
        self.names.insert(global.id, name.clone());
        let ty = self.ty(global.pointee)?;
        let mut attributes = Vec::new();
        if matches!(global.class, StorageClass::Uniform | StorageClass::StorageBuffer | StorageClass::UniformConstant) {
            attributes.push(Attribute::Group(decorations.set.unwrap_or(0)));
            attributes.push(Attribute::Binding(decorations.binding.unwrap_or(0)));
        }
        let space = address_space(module, global.class, global.pointee)
            .map_err(|_| self.unsupported(global.id, format!("{:?} variables have no WGSL counterpart", global.class)))?;
        let init = match global.initializer {
            Some(init) if module.constant(init).is_some() => Some(self.constant(init)?),
            Some(_) => return Err(self.unsupported(global.id, "a variable initialised with another variable".into())),
            None => None,
        };
        self.out.globals.push(ast::Global {
            attributes,
            kind: ast::GlobalKind::Var { space },
            name,
            ty: Some(ty),
            init,
        });
        Ok(())
    }

    /// A constant as a WGSL expression: a literal, a constructor, or a zero value `T()`.
    pub fn constant(&mut self, id: Id) -> Result<Expr, Error> {
        let module = self.module;
        let constant = module
            .constant(id)
            .ok_or_else(|| Error::invalid(format!("%{id} is not a constant"), Location::default()))?;
        match &constant.value {
            ConstValue::Bool(b) => Ok(Expr::Literal(Literal::Bool(*b))),
            ConstValue::Scalar(bits) => self.constant_bits(constant.ty, *bits),
            ConstValue::Composite(parts) => {
                let ty = self.ty(constant.ty)?;
                let parts = parts.iter().map(|&p| self.constant(p)).collect::<Result<_, _>>()?;
                Ok(Expr::Call(ty, parts))
            }
            ConstValue::Null | ConstValue::Undef => Ok(Expr::Call(self.ty(constant.ty)?, vec![])),
        }
    }

    /// A scalar of type `ty` with the given bit pattern, as a literal.
    pub fn constant_bits(&mut self, ty: Id, bits: u64) -> Result<Expr, Error> {
        let literal = match self.module.ty(ty)? {
            Type::Int { width: 32, signed: true } => Literal::I32(bits as u32 as i32),
            Type::Int { width: 32, signed: false } => Literal::U32(bits as u32),
            Type::Float { width: 32 } => {
                let value = f32::from_bits(bits as u32);
                if !value.is_finite() {
                    // WGSL has no literal for infinities and NaNs.
                    return Ok(Expr::call("bitcast<f32>", vec![Expr::Literal(Literal::U32(bits as u32))]));
                }
                Literal::F32(bits as u32)
            }
            Type::Float { width: 16 } => {
                self.enables.insert("f16");
                Literal::F16(bits as u16)
            }
            _ => return Err(self.unsupported(ty, "a constant of a type WGSL lacks".into())),
        };
        Ok(Expr::Literal(literal))
    }

    pub fn enable(&mut self, extension: &'static str) {
        self.enables.insert(extension);
    }

    /// The entry point itself, written from its I/O plan: parameters into proxies, the inner
    /// call, the outputs returned.
    fn entry_wrapper(&mut self, entry: &EntryPoint, name: String) -> Result<ast::Function, Error> {
        let plan = entry.io.clone().unwrap_or_default();
        let inner = self.names.get(&entry.function).cloned().unwrap_or_default();
        let mut local = Namer::default();
        let mut params = Vec::new();
        let mut body = Vec::new();
        for value in &plan.inputs {
            let param_name = local.fresh(&format!("{}_param", value.name), Some(&self.namer));
            let wgsl_ty = self.ty(value.wgsl_ty)?;
            let arg = self.convert(Expr::ident(param_name.clone()), value.wgsl_ty, value.ty)?;
            let target = self.proxy(value)?.ok_or_else(|| Error::internal("an input without a proxy"))?;
            body.push(Stmt::Assign { target, value: arg });
            params.push(ast::Param { attributes: self.io_attributes(value), name: param_name, ty: wgsl_ty });
        }
        body.push(Stmt::Call(Expr::call(inner, vec![])));
        let mut members = Vec::new();
        let mut results = Vec::new();
        let mut member_namer = Namer::default();
        for value in &plan.outputs {
            let wgsl_ty = self.ty(value.wgsl_ty)?;
            let result = match self.proxy(value)? {
                Some(proxy) => self.convert(proxy, value.ty, value.wgsl_ty)?,
                None => Expr::Call(wgsl_ty.clone(), vec![]),
            };
            results.push(result);
            members.push(ast::Member { attributes: self.io_attributes(value), name: member_namer.fresh(&value.name, None), ty: wgsl_ty });
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
                body.push(Stmt::Return(Some(Expr::Call(struct_name.clone(), results))));
                Some((vec![], struct_name))
            }
        };
        let mut attributes = vec![Attribute::Stage(match entry.model {
            ExecutionModel::Vertex => "vertex",
            ExecutionModel::Fragment => "fragment",
            _ => "compute",
        })];
        if let Some(size) = plan.workgroup_size {
            attributes.push(Attribute::WorkgroupSize(size));
        }
        Ok(ast::Function { attributes, name, params, result, body })
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

    /// `value` of type `from` as type `to`, where the two differ at most in signedness.
    fn convert(&mut self, value: Expr, from: Id, to: Id) -> Result<Expr, Error> {
        Ok(if from == to { value } else { Expr::Call(format!("bitcast<{}>", self.ty(to)?), vec![value]) })
    }
}

/// The WGSL address space (with access mode) for a SPIR-V storage class.
pub fn address_space(module: &Module, class: StorageClass, pointee: Id) -> Result<String, Error> {
    Ok(match class {
        StorageClass::Function => "function".into(),
        // Input and Output are private proxies after `io_wrapper`.
        StorageClass::Private | StorageClass::Input | StorageClass::Output => "private".into(),
        StorageClass::Workgroup => "workgroup".into(),
        StorageClass::UniformConstant => String::new(),
        StorageClass::Uniform if !module.decorations(pointee).buffer_block => "uniform".into(),
        StorageClass::Uniform | StorageClass::StorageBuffer => {
            if read_only(module, pointee) { "storage, read".into() } else { "storage, read_write".into() }
        }
        other => {
            return Err(Error::unsupported(format!("storage class {other:?} is not supported"), Location::default()));
        }
    })
}

/// A buffer is read-only when every member of its block is `NonWritable`.
fn read_only(module: &Module, block: Id) -> bool {
    match module.def(block) {
        Def::Type(Type::Struct { members }) => {
            (0..members.len() as u32).all(|i| module.member_decorations(block, i).non_writable)
                || module.decorations(block).non_writable
        }
        _ => false,
    }
}

fn has_matrix(module: &Module, ty: Id) -> bool {
    match module.def(ty) {
        Def::Type(Type::Matrix { .. }) => true,
        Def::Type(Type::Array { element, .. } | Type::RuntimeArray { element }) => has_matrix(module, *element),
        _ => false,
    }
}

fn round_up(value: u32, align: u32) -> u32 {
    value.div_ceil(align.max(1)).saturating_mul(align.max(1))
}

/// Size and alignment of a type under WGSL's layout rules.
pub fn layout(module: &Module, ty: Id) -> Result<(u32, u32), Error> {
    Ok(match module.ty(ty)? {
        Type::Bool | Type::Int { .. } => (4, 4),
        Type::Float { width } => (width / 8, width / 8),
        Type::Vector { component, count } => {
            let (size, _) = layout(module, *component)?;
            let align = if *count == 2 { 2 * size } else { 4 * size };
            (count.saturating_mul(size), align)
        }
        Type::Matrix { column, columns } => {
            let (size, align) = layout(module, *column)?;
            (columns.saturating_mul(round_up(size, align)), align)
        }
        Type::Array { element, length } => {
            let (size, align) = layout(module, *element)?;
            (module.const_u32(*length).unwrap_or(0).saturating_mul(round_up(size, align)), align)
        }
        Type::RuntimeArray { element } => (0, layout(module, *element)?.1),
        Type::Struct { members } => {
            let mut end = 0;
            let mut max_align = 1;
            for (i, &member) in members.iter().enumerate() {
                let (size, align) = layout(module, member)?;
                let offset = module.member_decorations(ty, i as u32).offset.unwrap_or(round_up(end, align));
                end = offset.saturating_add(size);
                max_align = max_align.max(align);
            }
            (round_up(end, max_align), max_align)
        }
        _ => (0, 1),
    })
}

fn lower_first(name: &str) -> String {
    let mut chars = name.chars();
    chars.next().map(|c| c.to_ascii_lowercase().to_string() + chars.as_str()).unwrap_or_default()
}
