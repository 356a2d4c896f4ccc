//! The `Emitter`, the state the lowering shares (the tree being built, names, type spellings),
//! and module scope: types, structs with their explicit layout, globals. The order of the work is
//! in `mod.rs`, function bodies in `function.rs`, entry-point wrappers in `wrapper.rs`.

use std::cell::OnceCell;
use std::collections::{BTreeSet, HashMap};

use spirv::{ImageFormat, StorageClass};

use super::non_finite;
use super::vertex_storage::VertexStorage;
use crate::binding_map::{Binding, Original, ResourceBinding};
use crate::error::{Error, Location, Warning};
use crate::id_hash::{IdMap, IdSet};
use crate::name_hash::{NameMap, NameSet};
use crate::passes::layout::{round_up, size_and_align};
use crate::spirv::{BindingOrigin, ConstValue, Id, ImageType, Module, NewBinding, Type};
use crate::wgsl::ast::{self, Attribute, Expr, Literal, Stmt};
use crate::wgsl::deferred_returns;
use crate::wgsl::for_loops;
use crate::wgsl::naga_ir;
use crate::wgsl::names::Namer;
use crate::wgsl::nesting;
use crate::wgsl::print;
use crate::wgsl::tint_sizes;
use crate::wgsl::uniformity;

/// Module-scope state shared by the function lowering: names and type spellings.
pub struct Emitter<'m> {
    pub module: &'m Module,
    pub out: ast::Module,
    pub namer: Namer,
    /// Names of globals and functions.
    pub names: IdMap<Id, ast::Name>,
    types: IdMap<Id, ast::Type>,
    member_names: IdMap<Id, Vec<String>>,
    /// The name of each struct declared, by its OpName (or `Struct_<id>`) and its members as
    /// spelled: a struct spelled as one declared already is that one (`declare_struct`).
    structs_by_spelling: HashMap<(String, String), String>,
    pub(super) enables: BTreeSet<&'static str>,
    /// `--annotate`: statements name their SPIR-V origin.
    pub annotate: bool,
    /// naga's IR of the functions printed so far, where the output is validated
    /// (`wgsl/naga_ir`).
    ir: Option<naga_ir::Ir>,
    bindings: Vec<Binding>,
    /// Names of the `override`s declared for specialization constants.
    pub(super) overrides: IdMap<Id, String>,
    /// Their names (`runtime_constants.rs` asks of expressions' identifiers).
    pub(super) override_names: NameSet<String>,
    /// Whether the module has specialization constants, so that its WGSL may have overrides.
    pub(super) has_spec_constants: bool,
    /// The OpSpecConstantOp results declared as `override`s of their own (`spec::named_ops`).
    pub(super) named_spec_ops: IdSet<Id>,
    /// The `@id` override's constant of each SpecId several constants share (`shared_spec_ids.rs`).
    pub(super) shared_spec_ids: HashMap<u32, Id>,
    /// Names of the helper functions declared (`helpers.rs`), by the type they work on.
    pub(super) helpers: HashMap<String, String>,
    pub(super) uniformity: uniformity::Analysis,
    /// `bitcast<T>` by type, and builtin names: spelled once, shared by every call.
    bitcasts: IdMap<Id, ast::Name>,
    /// Looked up for every builtin call: std's hash cost more than the rest of the call.
    builtins: NameMap<&'static str, ast::Name>,
    /// How many of `out.globals` the uniformity analysis has been told of.
    globals_analysed: usize,
    /// What vertex entry points reach and write, found once on first need (`vertex_storage.rs`).
    vertex_storage: OnceCell<VertexStorage>,
    /// `Module::new_bindings` by variable, for the binding map's entry of each resource.
    new_bindings: IdMap<Id, NewBinding>,
    /// The globals nothing writes while a shader runs: uniform and read-only storage buffers.
    pub(super) read_only: IdSet<Id>,
    /// Module-scope initializers stored at the start of the entry points instead
    /// (`entry_initializers.rs`): (variable, constant).
    pub(super) moved_initializers: Vec<(Id, Id)>,
    /// Set while spelling a constant or override expression: a constant WGSL can only spell at
    /// run time is refused there (`non_finite.rs`).
    pub(super) in_constant_expression: bool,
    /// Types whose values hold nothing (`Module::types_holding_no_data`): never loaded or stored.
    pub(super) no_data: IdSet<Id>,
    /// Names claimed for declarations made on first use, before function bodies (`late_names.rs`).
    claimed: IdMap<Id, String>,
    /// Things the user should know, as `Translation::warnings`.
    pub warnings: Vec<Warning>,
    /// Per entry function, the private variables declared in it (`entry_locals.rs`).
    pub(super) entry_locals: IdMap<Id, Vec<Stmt>>,
}

/// What `emit` makes: the WGSL syntax tree (its functions already printed), the binding map of
/// its resources, what the uniformity analysis found, and warnings.
pub struct Emitted {
    pub ast: ast::Module,
    pub bindings: Vec<Binding>,
    pub uniformity: uniformity::Verdict,
    pub warnings: Vec<Warning>,
    /// naga's IR of the functions, where the output is validated.
    pub ir: Option<naga_ir::Ir>,
}

pub fn location_of_id(module: &Module, id: Id) -> Location {
    let word_offset = module.global_index(id).map(|g| module.globals[g].offset);
    Location { word_offset, result_id: Some(id), ..Location::default() }
}

impl<'m> Emitter<'m> {
    /// The state before anything is declared; `named_spec_ops` is `spec::named_ops` of the module.
    pub(super) fn new(module: &'m Module, annotate: bool, ir: Option<naga_ir::Ir>, named_spec_ops: IdSet<Id>) -> Self {
        let mut e = Emitter {
            module,
            out: ast::Module::default(),
            namer: Namer::default(),
            names: IdMap::default(),
            types: IdMap::default(),
            member_names: IdMap::default(),
            structs_by_spelling: HashMap::new(),
            enables: BTreeSet::new(),
            annotate,
            ir,
            bindings: Vec::new(),
            overrides: IdMap::default(),
            override_names: NameSet::default(),
            has_spec_constants: module
                .declarations
                .iter()
                .any(|&id| module.constant(id).is_some_and(|c| c.spec_id.is_some())),
            named_spec_ops,
            shared_spec_ids: crate::passes::spec_constants::shared_spec_id_primaries(module),
            helpers: HashMap::new(),
            uniformity: uniformity::Analysis::default(),
            bitcasts: IdMap::default(),
            builtins: NameMap::default(),
            globals_analysed: 0,
            vertex_storage: OnceCell::new(),
            new_bindings: IdMap::default(),
            read_only: IdSet::default(),
            warnings: Vec::new(),
            entry_locals: IdMap::default(),
            claimed: IdMap::default(),
            no_data: module.types_holding_no_data(),
            moved_initializers: Vec::new(),
            in_constant_expression: false,
        };
        for new in &module.new_bindings {
            e.new_bindings.entry(new.variable).or_insert(*new);
        }
        e
    }

    /// The same state, reading `module`. Between functions the lowering reads an empty module
    /// instead (`lower`), which lets go of the one lowered, so that the body of each function
    /// can be freed once it is lowered.
    pub(super) fn reading<'n>(self, module: &'n Module) -> Emitter<'n> {
        Emitter {
            module,
            out: self.out,
            namer: self.namer,
            names: self.names,
            types: self.types,
            member_names: self.member_names,
            structs_by_spelling: self.structs_by_spelling,
            enables: self.enables,
            annotate: self.annotate,
            ir: self.ir,
            bindings: self.bindings,
            overrides: self.overrides,
            override_names: self.override_names,
            has_spec_constants: self.has_spec_constants,
            named_spec_ops: self.named_spec_ops,
            shared_spec_ids: self.shared_spec_ids,
            helpers: self.helpers,
            uniformity: self.uniformity,
            bitcasts: self.bitcasts,
            builtins: self.builtins,
            globals_analysed: self.globals_analysed,
            vertex_storage: self.vertex_storage,
            new_bindings: self.new_bindings,
            read_only: self.read_only,
            moved_initializers: self.moved_initializers,
            in_constant_expression: self.in_constant_expression,
            no_data: self.no_data,
            claimed: self.claimed,
            warnings: self.warnings,
            entry_locals: self.entry_locals,
        }
    }

    /// The syntax tree and what was found on the way, once every function is lowered.
    pub(super) fn finish(mut self) -> Emitted {
        self.out.enables = self.enables.iter().copied().collect();
        self.bindings.sort_by_key(|b| b.binding);
        Emitted {
            ast: self.out,
            bindings: self.bindings,
            uniformity: self.uniformity.verdict(),
            warnings: self.warnings,
            ir: self.ir,
        }
    }

    /// Analyses a function the lowering wrote itself (a helper, an entry point's wrapper) for
    /// uniformity and prints it; its tree is then dropped. Such a function nests a few levels at
    /// most.
    pub(super) fn finish_function(&mut self, function: ast::Function) {
        let callees = uniformity::callees(&function);
        let (function, name, calls, callees) = self.analyse(function, callees);
        self.print(function, name, calls, &callees);
    }

    /// [`Emitter::finish_function`] for a function of the module, given every name it calls
    /// (`function::emit`), which saves the uniformity analysis and naga's IR a walk of it. A
    /// function nested deeper than Tint takes is refused (`wgsl/nesting.rs`); `origin` is its
    /// OpFunction.
    pub(super) fn finish_lowered(
        &mut self,
        function: ast::Function,
        calls: NameSet<ast::Name>,
        origin: Location,
    ) -> Result<(), Error> {
        let (function, name, calls, callees) = self.analyse(function, calls);
        if let Some(why) = nesting::too_deep(&function.body) {
            return Err(Error::unsupported(
                format!("function `{}` cannot be written as WGSL: {why}", function.name),
                origin,
            ));
        }
        self.print(function, name, calls, &callees);
        Ok(())
    }

    /// The uniformity analysis of `function`, which calls `callees` (every name it calls, or
    /// more), with the rewrites that follow it: the function, its name as declared, the functions
    /// it calls, and its callees.
    fn analyse(
        &mut self,
        mut function: ast::Function,
        mut callees: NameSet<ast::Name>,
    ) -> (ast::Function, ast::Name, Vec<ast::Name>, NameSet<ast::Name>) {
        for global in &self.out.globals[self.globals_analysed..] {
            self.uniformity.global(global);
        }
        self.globals_analysed = self.out.globals.len();
        let name = self.uniformity.declare_function(&function.name);
        let mut calls = self.uniformity.function(&function, &callees);
        if self.uniformity.last_breaks_barriers()
            && let Some(rewritten) = self.make_barriers_uniform(&mut function, &callees)
        {
            (calls, callees) = rewritten;
        }
        for_loops::rewrite(&mut function.body, &function.exits);
        (function, name, calls, callees)
    }

    fn print(&mut self, function: ast::Function, name: ast::Name, calls: Vec<ast::Name>, callees: &NameSet<ast::Name>) {
        let (text, signature_len) = print::function(&function);
        let result = function.result.as_ref().map(|(_, ty)| ty.clone());
        self.out.functions.push(ast::PrintedFunction {
            name,
            text,
            signature: ast::Signature { len: signature_len, result },
            calls,
        });
        if let Some(ir) = &mut self.ir {
            ir.function(&self.out, function, callees);
        }
    }

    /// Tries putting the barriers of a function that breaks WGSL's rule in uniform control flow
    /// by deferring its early returns (`wgsl/deferred_returns.rs`). The rewrite is kept only if every
    /// barrier of the function is then in uniform control flow; returns the calls of the
    /// rewritten function and its callees; `callees` are the original's.
    fn make_barriers_uniform(
        &mut self,
        function: &mut ast::Function,
        callees: &NameSet<ast::Name>,
    ) -> Option<(Vec<ast::Name>, NameSet<ast::Name>)> {
        let body = deferred_returns::defer(function, &self.out.globals, self.uniformity.functions())?;
        let original = std::mem::replace(&mut function.body, body);
        self.uniformity.forget_last();
        let rewritten = uniformity::callees(function);
        let calls = self.uniformity.function(function, &rewritten);
        if !self.uniformity.last_breaks_barriers() {
            return Some((calls, rewritten));
        }
        // The original then stands, for the verdict to report.
        function.body = original;
        self.uniformity.forget_last();
        self.uniformity.function(function, callees);
        None
    }

    /// Whether `name` is one of the module's functions.
    pub(super) fn is_function(&self, name: &str) -> bool {
        self.uniformity.functions().contains(name)
    }

    fn unsupported(&self, id: Id, message: String) -> Error {
        // A storage type the `layout` pass made is reported as the input's type it lays out.
        let id = self.module.laid_out_from.get(&id).copied().unwrap_or(id);
        Error::unsupported(message, location_of_id(self.module, id))
    }

    /// The WGSL spelling of a SPIR-V type, declaring structs on first use.
    pub fn ty(&mut self, id: Id) -> Result<ast::Type, Error> {
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
                };
                let count = match count {
                    Some(count) => count,
                    None => self.default_length(id, *length)?,
                };
                format!("array<{}, {count}>", self.ty(*element)?)
            }
            Type::RuntimeArray { element } => format!("array<{}>", self.ty(*element)?),
            Type::Struct { members } => self.declare_struct(id, members)?,
            Type::Pointer { class, pointee } => {
                // The access mode, if any, comes after the type: `ptr<storage, T, read>`.
                let space = address_space(module, *class, *pointee)?;
                let pointee = self.ty(*pointee)?;
                match space.split_once(", ") {
                    Some((space, access)) => format!("ptr<{space}, {pointee}, {access}>"),
                    None => format!("ptr<{space}, {pointee}>"),
                }
            }
            Type::Atomic { inner } => format!("atomic<{}>", self.ty(*inner)?),
            Type::Sampler { comparison: false } => "sampler".to_string(),
            Type::Sampler { comparison: true } => "sampler_comparison".to_string(),
            Type::Image(image) => {
                let image = image.clone();
                self.image_type(id, &image)?
            }
            Type::Unsupported(op) => {
                return Err(self.unsupported(id, format!("Op{op:?} declares a type WGSL has no counterpart for")));
            }
            Type::SampledImage { .. } | Type::Function { .. } => {
                return Err(self.unsupported(id, format!("type {:?} has no WGSL counterpart", module.ty(id)?)));
            }
        };
        let spelled: ast::Type = spelled.into();
        self.types.insert(id, spelled.clone());
        Ok(spelled)
    }

    /// The length of array type `id` sized by a specialization constant, outside workgroup
    /// memory where WGSL cannot size it by an `override`: the length the defaults give, with a
    /// warning naming the constants.
    fn default_length(&mut self, id: Id, length: Id) -> Result<u32, Error> {
        let module = self.module;
        let count = crate::passes::spec_constants::default_value(module, length).ok_or_else(|| {
            self.unsupported(
                id,
                "an array sized by a specialization-constant expression this cannot evaluate, outside \
                 workgroup memory: WGSL sizes arrays by overrides only there"
                    .into(),
            )
        })?;
        self.warnings.push(Warning::new(
            format!(
                "an array is sized by a specialization constant outside workgroup memory, where WGSL sizes arrays \
                 by constants only: its length is fixed at {count}, what the defaults give{}",
                override_hint(module, length)
            ),
            Location { result_id: Some(id), ..Location::default() },
        ));
        Ok(count)
    }

    fn image_type(&mut self, id: Id, image: &ImageType) -> Result<String, Error> {
        use spirv::Dim;
        let dim = match (image.dim, image.arrayed, image.multisampled) {
            (Dim::Dim1D, false, false) => "1d",
            (Dim::Dim2D, false, false) => "2d",
            (Dim::Dim2D, true, false) => "2d_array",
            (Dim::Dim3D, false, false) => "3d",
            (Dim::DimCube, false, false) => "cube",
            (Dim::DimCube, true, false) => "cube_array",
            (Dim::Dim2D, false, true) => "multisampled_2d",
            (Dim::DimBuffer, ..) => {
                return Err(self.unsupported(
                    id,
                    "texel buffers (samplerBuffer, imageBuffer, HLSL Buffer<T>) have no WGSL counterpart".into(),
                ));
            }
            (Dim::DimSubpassData, ..) => {
                return Err(self.unsupported(id, "input attachments (subpassInput) have no WGSL counterpart".into()));
            }
            (dim, arrayed, multisampled) => {
                let what = format!(
                    "{dim:?}{}{}",
                    if arrayed { " arrayed" } else { "" },
                    if multisampled { " multisampled" } else { "" }
                );
                return Err(self.unsupported(id, format!("{what} images have no WGSL texture type")));
            }
        };
        if image.sampled == 2 {
            let (format, _) = storage_format(image).ok_or_else(|| {
                self.unsupported(
                    id,
                    format!("storage image format {:?} has no WGSL storage texel format", image.format),
                )
            })?;
            if image.multisampled || image.dim == Dim::DimCube {
                return Err(self.unsupported(id, "WGSL storage textures cannot be multisampled or cube maps".into()));
            }
            let access = match image.access {
                Some(spirv::AccessQualifier::ReadOnly) => "read",
                Some(spirv::AccessQualifier::WriteOnly) => "write",
                _ => "read_write",
            };
            return Ok(format!("texture_storage_{dim}<{format}, {access}>"));
        }
        if image.depth == 1 {
            if image.dim == Dim::Dim1D {
                return Err(self.unsupported(
                    id,
                    "a 1D depth texture sampled with a depth reference (sampler1DShadow): WGSL has no \
                     texture_depth_1d and no comparison sampling of 1D textures"
                        .into(),
                ));
            }
            return Ok(format!("texture_depth_{dim}"));
        }
        let sampled = match self.module.ty(image.sampled_type)? {
            Type::Float { width: 32 } | Type::Int { width: 32, .. } => self.ty(image.sampled_type)?,
            // WGSL textures hold no f16: sampled as f32, the texels are converted (`image.rs`).
            Type::Float { width: 16 } => "f32".into(),
            _ => {
                return Err(self.unsupported(
                    id,
                    "textures of other than 32-bit integers or 16- or 32-bit floats have no WGSL type".into(),
                ));
            }
        };
        Ok(format!("texture_{dim}<{sampled}>"))
    }

    pub(super) fn struct_base_name(&self, id: Id) -> String {
        self.module.name(id).map(str::to_string).unwrap_or_else(|| format!("Struct_{id}"))
    }

    /// Takes a module-scope name for `id`, to be declared later (`late_names.rs`).
    pub(super) fn claim_name(&mut self, id: Id, base: &str) {
        if !self.claimed.contains_key(&id) {
            let name = self.namer.fresh(base, None);
            self.claimed.insert(id, name);
        }
    }

    /// The module-scope name of `id`: the one claimed for it, or a fresh one.
    pub(super) fn module_name(&mut self, id: Id, base: &str) -> String {
        self.claimed.remove(&id).unwrap_or_else(|| self.namer.fresh(base, None))
    }

    fn declare_struct(&mut self, id: Id, members: &[Id]) -> Result<String, Error> {
        let module = self.module;
        let base = self.struct_base_name(id);
        // Types are declared before use (`spirv/load.rs`), so no member refers back to `id`.
        let mut member_namer = Namer::for_members();
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
            let ty = self.ty(member)?;
            if let Some(offset) = decorations.offset {
                let (size, align) = size_and_align(module, member)?;
                if i == 0 && offset > 0 && offset % 4 == 0 {
                    // Nothing comes before the first member to grow: padding members fill the gap.
                    natural_end = padding(&mut out, &mut member_namer, offset);
                }
                let natural = round_up(natural_end, align);
                if offset < natural || (i == 0 && offset != natural) {
                    return Err(self.unsupported(
                        id,
                        format!("member `{member_name}` at offset {offset} cannot be placed by WGSL layout rules (natural offset {natural})"),
                    ));
                }
                if offset > natural {
                    // Pad by growing the previous member; WGSL has no explicit offsets.
                    let previous: &mut ast::Member = out.last_mut().expect("the first member is placed above");
                    let previous_offset = module.member_decorations(id, i - 1).offset.unwrap_or(0);
                    previous.attributes.push(Attribute::Size(offset - previous_offset));
                }
                natural_end = offset.saturating_add(size);
            }
            out.push(ast::Member { attributes: Vec::new(), name: member_name, ty });
        }
        if members.is_empty() {
            // WGSL structs need a member; this one is never read.
            out.push(ast::Member { attributes: Vec::new(), name: "unused".into(), ty: "u32".into() });
        }
        // A struct padded to an array stride ends in a member as long as the padding reaches.
        if let (Some(&padded), Some(last)) = (module.padded_sizes.get(&id), out.last_mut()) {
            let last_offset =
                module.member_decorations(id, (members.len() as u32).saturating_sub(1)).offset.unwrap_or(0);
            last.attributes.push(Attribute::Size(padded - last_offset));
        }
        if let Some(why) = tint_sizes::too_many_members(out.len()) {
            let at = Location { opcode: Some(spirv::Op::TypeStruct), ..location_of_id(module, id) };
            return Err(Error::unsupported(format!("struct %{id} would have {why}"), at));
        }
        self.member_names.insert(id, names);
        // glslang declares a struct once for a buffer and once for values (a local, a
        // parameter) when the two are laid out alike; WGSL needs one, which reads as the source
        // did and lets a value be copied whole between them. Keyed by text, the twin is found in
        // one lookup however many structs share a name.
        let spelling = (base, format!("{out:?}"));
        let name = match self.structs_by_spelling.get(&spelling) {
            Some(name) => name.clone(),
            None => {
                let name = self.module_name(id, &spelling.0);
                self.structs_by_spelling.insert(spelling, name.clone());
                self.out.structs.push(ast::Struct { name: name.clone(), members: out });
                name
            }
        };
        self.types.insert(id, name.as_str().into());
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

    pub(super) fn global(&mut self, g: usize) -> Result<(), Error> {
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
        self.names.insert(global.id, name.as_str().into());
        let ty = match module.ty(global.pointee)? {
            // WGSL sizes arrays by overrides only in workgroup memory, and only at the top.
            Type::Array { element, length }
                if global.class == StorageClass::Workgroup && self.is_override_expression(*length) =>
            {
                let length = crate::wgsl::print::expr_to_string(&self.constant(*length)?);
                format!("array<{}, {length}>", self.ty(*element)?).into()
            }
            _ => self.ty(global.pointee)?,
        };
        let mut space = address_space(module, global.class, global.pointee).map_err(|_| {
            self.unsupported(global.id, format!("{:?} variables have no WGSL counterpart", global.class))
        })?;
        if space == "storage, read_write" {
            let vertex = self.vertex_storage.get_or_init(|| VertexStorage::new(module));
            if vertex.reaches(g) {
                vertex.check(module, global)?;
                space = "storage, read".into();
            }
        }
        if space == "uniform" || space == "storage, read" {
            self.read_only.insert(global.id);
        }
        if global.class == StorageClass::UniformConstant {
            self.vertex_storage.get_or_init(|| VertexStorage::new(module)).check_texture(module, g)?;
        }
        let mut attributes = Vec::new();
        if matches!(global.class, StorageClass::Uniform | StorageClass::StorageBuffer | StorageClass::UniformConstant) {
            let (Some(group), Some(binding)) = (decorations.set, decorations.binding) else {
                return Err(Error::invalid(
                    "a resource variable without a DescriptorSet and Binding, which Vulkan requires \
                     (VUID-StandaloneSpirv-UniformConstant-06677)",
                    location_of_id(module, global.id),
                ));
            };
            let binding = ResourceBinding { group, binding };
            attributes.push(Attribute::Group(binding.group));
            attributes.push(Attribute::Binding(binding.binding));
            let entry = self.binding_entry(global.id, binding, &name, &ty, &space);
            self.bindings.push(entry);
        }
        let init = match global.initializer {
            None => None,
            Some(init) if module.constant(init).is_none() => {
                return Err(self.unsupported(global.id, "a variable initialised with another variable".into()));
            }
            Some(init) if global.class == StorageClass::Workgroup => {
                if !matches!(module.constant(init).map(|c| &c.value), Some(ConstValue::Null)) {
                    return Err(Error::invalid(
                        "a Workgroup variable's initializer must be OpConstantNull in Vulkan \
                         (VUID-StandaloneSpirv-OpVariable-04734)",
                        location_of_id(module, global.id),
                    ));
                }
                // WebGPU zero-initialises workgroup memory, which is what the null initializer asks.
                None
            }
            Some(init) if non_finite::contains_non_finite(module, init) => {
                self.moved_initializers.push((global.id, init));
                None
            }
            Some(init) => {
                self.in_constant_expression = true;
                let value = self.constant(init);
                self.in_constant_expression = false;
                Some(value?)
            }
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

    /// The binding map's entry for a resource variable: where it came from, and whether we bound it.
    fn binding_entry(&self, id: Id, binding: ResourceBinding, name: &str, ty: &str, space: &str) -> Binding {
        let module = self.module;
        let made = |id: Id| self.new_bindings.get(&id).copied();
        let new = made(id);
        // A comparison twin of a split sampler comes, in the end, from the combined variable; a
        // sampler moved off an image's binding (or an alias off another resource's) is its own
        // source, and was bound where the other is.
        let mut source = id;
        let mut bound_like = id;
        loop {
            match made(source) {
                Some(n) if matches!(n.origin, BindingOrigin::SharedWithImage | BindingOrigin::Aliased) => {
                    break bound_like = n.source;
                }
                Some(n) if n.source != source => (source, bound_like) = (n.source, n.source),
                _ => break,
            }
        }
        let d = module.decorations(bound_like);
        let (set, original_binding) = match (new.map(|n| n.origin), d.set, d.binding) {
            (Some(BindingOrigin::PushConstant | BindingOrigin::DrawParameters), ..) | (_, None, _) | (_, _, None) => {
                (None, None)
            }
            (_, set, binding) => (set, binding),
        };
        // The draw-parameters buffer comes from no SPIR-V variable.
        let source_name = match new.map(|n| n.origin) {
            Some(BindingOrigin::DrawParameters) => None,
            _ => module.name(source).map(str::to_string),
        };
        Binding {
            binding,
            name: name.to_string(),
            ty: ty.to_string(),
            address_space: (!space.is_empty()).then(|| space.to_string()),
            original: Original { set, binding: original_binding, name: source_name },
            assigned: new.is_some(),
            origin: new.map(|n| n.origin),
        }
    }

    /// A constant as a WGSL expression: a literal, a constructor, or a zero value `T()`.
    pub fn constant(&mut self, id: Id) -> Result<Expr, Error> {
        let module = self.module;
        let constant = module
            .constant(id)
            .ok_or_else(|| Error::invalid(format!("%{id} is not a constant"), Location::default()))?;
        match &constant.value {
            _ if constant.spec_id.is_some() => self.override_ident(id),
            ConstValue::Op { .. } if self.named_spec_ops.contains(&id) => self.named_spec_op(id),
            ConstValue::Op { op, operands } => self.spec_op(id, constant.ty, *op, operands),
            ConstValue::Bool(b) => Ok(Expr::Literal(Literal::Bool(*b))),
            ConstValue::Scalar(bits) => self.constant_bits(constant.ty, *bits).map_err(|mut error| {
                if let Some(location) = error.location_mut() {
                    location.result_id = Some(id);
                }
                error
            }),
            ConstValue::Composite(parts) => {
                if let Some(why) = tint_sizes::too_many_elements(parts.len(), || format!("constant %{id}"))
                    && matches!(module.ty(constant.ty)?, Type::Array { .. })
                {
                    return Err(self.unsupported(id, why));
                }
                let ty = self.ty(constant.ty)?;
                // A vector of one repeated component is written once, as a splat.
                let parts = match module.splat(constant.ty, parts.iter().copied()) {
                    Some(_) => &parts[..1],
                    None => &parts[..],
                };
                let parts = parts.iter().map(|&p| self.constant(p)).collect::<Result<_, _>>()?;
                Ok(Expr::call(ty, parts))
            }
            ConstValue::Null | ConstValue::Undef => self.zero(constant.ty),
        }
    }

    /// The zero value of type `ty`: a literal for a scalar (`0u`, `0.0f`, `false`), else the
    /// zero-value constructor `T()`.
    pub fn zero(&mut self, ty: Id) -> Result<Expr, Error> {
        match self.module.ty(ty)? {
            Type::Bool => Ok(Expr::Literal(Literal::Bool(false))),
            Type::Int { width: 32, .. } | Type::Float { width: 32 | 16 } => self.constant_bits(ty, 0),
            _ => Ok(Expr::call(self.ty(ty)?, vec![])),
        }
    }

    /// A scalar of type `ty` with the given bit pattern, as a literal.
    pub fn constant_bits(&mut self, ty: Id, bits: u64) -> Result<Expr, Error> {
        let literal = match self.module.ty(ty)? {
            Type::Int { width: 32, signed: true } => Literal::I32(bits as u32 as i32),
            Type::Int { width: 32, signed: false } => Literal::U32(bits as u32),
            &Type::Float { width } if non_finite::is_non_finite(width, bits) => {
                return self.non_finite_float(width, bits);
            }
            Type::Float { width: 32 } => Literal::F32(bits as u32),
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

    /// `bitcast<to>(value)`; each type's spelling of the call is made once.
    pub fn bitcast(&mut self, to: Id, value: Expr) -> Result<Expr, Error> {
        let name = match self.bitcasts.get(&to) {
            Some(name) => name.clone(),
            None => {
                let name: ast::Name = format!("bitcast<{}>", self.ty(to)?).into();
                self.bitcasts.insert(to, name.clone());
                name
            }
        };
        Ok(Expr::call(name, vec![value]))
    }

    /// A builtin's name as a shared name, made once per builtin.
    pub fn builtin(&mut self, name: &'static str) -> ast::Name {
        self.builtins.entry(name).or_insert_with(|| name.into()).clone()
    }
}

/// For an array length that stays a specialization constant: which `--override` flags would set
/// it, naming the SpecIds (and OpNames) the length is computed from.
fn override_hint(module: &Module, length: Id) -> String {
    let mut pending = vec![length];
    let mut spec_constants = std::collections::BTreeMap::new();
    while let Some(id) = pending.pop() {
        let Some(constant) = module.constant(id) else { continue };
        match constant.spec_id {
            Some(spec_id) => {
                spec_constants.insert(spec_id, module.name(id));
            }
            None => pending.extend(constant.value.parts()),
        }
    }
    let flags: Vec<String> = spec_constants
        .iter()
        .map(|(spec_id, name)| match name {
            Some(name) => format!("--override {spec_id}=VALUE (`{name}`)"),
            None => format!("--override {spec_id}=VALUE"),
        })
        .collect();
    if flags.is_empty() { String::new() } else { format!("; {} sets another", flags.join(" ")) }
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
            if read_only(module, pointee) {
                "storage, read".into()
            } else {
                "storage, read_write".into()
            }
        }
        other => {
            return Err(Error::unsupported(format!("storage class {other:?} is not supported"), Location::default()));
        }
    })
}

/// A buffer is read-only when every member of its block is `NonWritable`.
fn read_only(module: &Module, block: Id) -> bool {
    match module.type_def(block) {
        Some(Type::Struct { members }) => {
            (0..members.len() as u32).all(|i| module.member_decorations(block, i).non_writable)
                || module.decorations(block).non_writable
        }
        _ => false,
    }
}

/// A member of `bytes` bytes (a multiple of 4) that puts what follows at that offset: one `u32`
/// grown with `@size` (not an array, whose stride uniform buffers restrict). Returns the end.
fn padding(out: &mut Vec<ast::Member>, namer: &mut Namer, bytes: u32) -> u32 {
    if bytes == 0 {
        return 0;
    }
    let attributes = if bytes > 4 { vec![Attribute::Size(bytes)] } else { Vec::new() };
    out.push(ast::Member { attributes, name: namer.fresh("padding", None), ty: "u32".into() });
    bytes
}

fn lower_first(name: &str) -> String {
    let mut chars = name.chars();
    chars.next().map(|c| c.to_ascii_lowercase().to_string() + chars.as_str()).unwrap_or_default()
}

/// Each SPIR-V storage image format WGSL has a storage texel format for, with that format and its
/// channel type: the core formats and WebGPU's `texture-formats-tier1` ones (naga and Tint accept
/// all of them). `bgra8unorm` has no SPIR-V format: a module declares it `Unknown`.
const STORAGE_FORMATS: &[(ImageFormat, &str, &str)] = &[
    (ImageFormat::Rgba8, "rgba8unorm", "f32"),
    (ImageFormat::Rgba8Snorm, "rgba8snorm", "f32"),
    (ImageFormat::Rgba8ui, "rgba8uint", "u32"),
    (ImageFormat::Rgba8i, "rgba8sint", "i32"),
    (ImageFormat::Rgba16ui, "rgba16uint", "u32"),
    (ImageFormat::Rgba16i, "rgba16sint", "i32"),
    (ImageFormat::Rgba16f, "rgba16float", "f32"),
    (ImageFormat::R32ui, "r32uint", "u32"),
    (ImageFormat::R32i, "r32sint", "i32"),
    (ImageFormat::R32f, "r32float", "f32"),
    (ImageFormat::Rg32ui, "rg32uint", "u32"),
    (ImageFormat::Rg32i, "rg32sint", "i32"),
    (ImageFormat::Rg32f, "rg32float", "f32"),
    (ImageFormat::Rgba32ui, "rgba32uint", "u32"),
    (ImageFormat::Rgba32i, "rgba32sint", "i32"),
    (ImageFormat::Rgba32f, "rgba32float", "f32"),
    (ImageFormat::R8, "r8unorm", "f32"),
    (ImageFormat::R8Snorm, "r8snorm", "f32"),
    (ImageFormat::R8ui, "r8uint", "u32"),
    (ImageFormat::R8i, "r8sint", "i32"),
    (ImageFormat::Rg8, "rg8unorm", "f32"),
    (ImageFormat::Rg8Snorm, "rg8snorm", "f32"),
    (ImageFormat::Rg8ui, "rg8uint", "u32"),
    (ImageFormat::Rg8i, "rg8sint", "i32"),
    (ImageFormat::R16ui, "r16uint", "u32"),
    (ImageFormat::R16i, "r16sint", "i32"),
    (ImageFormat::R16f, "r16float", "f32"),
    (ImageFormat::R16, "r16unorm", "f32"),
    (ImageFormat::R16Snorm, "r16snorm", "f32"),
    (ImageFormat::Rg16ui, "rg16uint", "u32"),
    (ImageFormat::Rg16i, "rg16sint", "i32"),
    (ImageFormat::Rg16f, "rg16float", "f32"),
    (ImageFormat::Rg16, "rg16unorm", "f32"),
    (ImageFormat::Rg16Snorm, "rg16snorm", "f32"),
    (ImageFormat::Rgba16, "rgba16unorm", "f32"),
    (ImageFormat::Rgba16Snorm, "rgba16snorm", "f32"),
    (ImageFormat::Rgb10a2ui, "rgb10a2uint", "u32"),
    (ImageFormat::Rgb10A2, "rgb10a2unorm", "f32"),
    (ImageFormat::R11fG11fB10f, "rg11b10ufloat", "f32"),
];

/// The WGSL storage texel format of a storage image, and its channel type: by its SPIR-V format,
/// or the one our reverse path recorded for an `Unknown` one (`bgra8unorm`, of `f32` channels).
pub(super) fn storage_format(image: &ImageType) -> Option<(&'static str, &'static str)> {
    if let Some(recorded) = image.texel_format {
        return Some((recorded, "f32"));
    }
    STORAGE_FORMATS.iter().find(|&&(spirv, ..)| spirv == image.format).map(|&(_, wgsl, channel)| (wgsl, channel))
}
