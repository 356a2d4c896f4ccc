//! The WGSL tree as naga's IR, so that validation need not run naga's WGSL front end over the
//! printed text: that front end costs about twice naga's whole SPIR-V path, most of it reading
//! text we have just written from a tree we still hold (docs/performance.md).
//!
//! The IR is built as naga's WGSL front end (naga 30.0.1) would build it from the printed text,
//! step for step: the same expressions appended in the same order through naga's own constant
//! evaluator, the same `Emit` ranges, the same types in the same order; compacted as the front
//! end compacts its module, it is the same module. So validating it is validating the text;
//! `tests/naga_ir.rs` proves the two equal (`Debug` of the modules, which leaves spans out) on
//! every fixture, the shared corpus and random programs, and the validator's verdict the same on
//! the IR as built, which is what validation validates (the compaction only removes what nothing
//! uses: `incremental.rs`). What this builder does not know (subgroups, module `const`s, `f16`,
//! most abstract literals, and more) it refuses with [`Unsupported`], and the text is validated
//! as before: a refusal costs time, never correctness.
//!
//! The IR is built function by function as the lowering prints each, callees first as the front
//! end does (a caller printed before its callees waits for them), and a large module in parts
//! (`incremental.rs`). The front end reads every struct and global before any function; one the
//! lowering declares later (where a function first needs it) is built when it comes, and the
//! module put in the front end's order when finished (`reorder.rs`). This file holds the module:
//! types, structs, globals, signatures, the builtin tables; `function.rs` a function's body;
//! `resolutions.rs` the types of its expressions; `image.rs` the texture and sampler types and
//! the texture builtins; `atomic.rs` the atomic builtins; `constants.rs` the overrides and the
//! global expressions of initializers and workgroup sizes.

mod atomic;
mod constants;
mod function;
mod image;
mod incremental;
mod reorder;
mod resolutions;
mod worker;

pub use incremental::{Check, Incremental, Part, check};
pub use worker::Ir;

use naga::proc::Layouter;
use naga::{AddressSpace, Handle, Literal as NagaLiteral, Scalar, ScalarKind, Span, Type, TypeInner, VectorSize};

use super::ast::{Attribute, BinaryOp, Function, GlobalKind, Literal, Module, Name};
use crate::name_hash::NameMap;

/// A construct this builder does not lower as naga's front end would; the text is validated
/// instead.
#[derive(Debug)]
pub struct Unsupported(pub &'static str);

pub type Result<T> = std::result::Result<T, Unsupported>;

/// What a module-scope name stands for.
#[derive(Clone, Copy)]
enum Declared {
    Type(Handle<Type>),
    Var(Handle<naga::GlobalVariable>),
    Override(Handle<naga::Override>),
    Function(Handle<naga::Function>),
    EntryPoint,
}

/// The module so far, with what its names and type spellings stand for.
struct Builder {
    module: naga::Module,
    layouter: Layouter,
    /// Each type spelling met so far.
    types: NameMap<Name, Handle<Type>>,
    declared: NameMap<Name, Declared>,
    globals: constants::GlobalExpressions,
    /// How many of the module's structs and globals are declared.
    declarations: (usize, usize),
    /// Whether a struct or global was declared after the building started (after the globals, or
    /// a function): the types and global expressions are then put in the front end's order at
    /// the end (`reorder.rs`).
    late: bool,
    /// The global expressions a function appended (its workgroup size), in order.
    function_expressions: Vec<Handle<naga::Expression>>,
    /// The `enable` extensions the IR needs: the front end reads it only with their directives.
    extensions: Vec<&'static str>,
    /// Whether each `let` keeps its name among the function's named expressions. The check
    /// compares the names with the front end's; naga's validator reads only which expressions
    /// are named (a global one points into counts as used), so a module built to be validated
    /// goes without a `String` per `let`: on one long block the names, scattered through the
    /// heap, kept the validator's records from the memory the freed syntax tree left.
    names: bool,
}

impl Builder {
    /// The structs and globals of `ast`, as the front end reads them before any function.
    fn new(ast: &Module) -> Result<Builder> {
        Builder::declaring(ast, (ast.structs.len(), ast.globals.len()))
    }

    /// The first `count` structs and globals of `ast`.
    fn declaring(ast: &Module, count: (usize, usize)) -> Result<Builder> {
        let mut builder = Builder {
            module: naga::Module::default(),
            layouter: Layouter::default(),
            types: NameMap::default(),
            declared: NameMap::default(),
            globals: Default::default(),
            declarations: (0, 0),
            late: false,
            function_expressions: Vec::new(),
            extensions: Vec::new(),
            names: true,
        };
        builder.declare(ast, count)?;
        Ok(builder)
    }

    /// Declares the structs and globals of `ast` made since the last call (the lowering declares
    /// a struct or an override as a function first needs it). The text has them where the front
    /// end reads them first: a struct before every global, both before every function. The
    /// module is put in that order when finished.
    fn declare_new(&mut self, ast: &Module) -> Result<()> {
        let count = (ast.structs.len(), ast.globals.len());
        if count != self.declarations {
            self.late = true;
            self.declare(ast, count)?;
        }
        Ok(())
    }

    /// Declares the structs of `ast` up to `count.0` and its globals up to `count.1`, in text
    /// order: each names only declarations before it (a struct its members' structs, a global
    /// its struct and the overrides of its initializer), so that is the front end's order too.
    fn declare(&mut self, ast: &Module, count: (usize, usize)) -> Result<()> {
        for s in &ast.structs[self.declarations.0..count.0] {
            self.declare_struct(s)?;
        }
        for g in &ast.globals[self.declarations.1..count.1] {
            self.declare_global(g)?;
        }
        self.declarations = count;
        Ok(())
    }

    fn ensure(&mut self, inner: TypeInner) -> Handle<Type> {
        self.module.types.insert(Type { name: None, inner }, Span::UNDEFINED)
    }

    /// The type `spelled`, registering it (and the types it is made of, first) as the front end
    /// does on reading it.
    fn ty(&mut self, spelled: &str) -> Result<Handle<Type>> {
        if let Some(&handle) = self.types.get(spelled) {
            return Ok(handle);
        }
        let handle = self.spelled_type(spelled)?;
        self.types.insert(Name::from(spelled), handle);
        Ok(handle)
    }

    fn spelled_type(&mut self, spelled: &str) -> Result<Handle<Type>> {
        let (head, params) = split_template(spelled)?;
        if let Some(Declared::Type(handle)) = self.declared.get(head) {
            return if params.is_empty() { Ok(*handle) } else { Err(Unsupported("template on a struct")) };
        }
        if let Some(scalar) = scalar_named(head) {
            return if params.is_empty() {
                Ok(self.ensure(TypeInner::Scalar(scalar)))
            } else {
                Err(Unsupported("type"))
            };
        }
        let inner = match (head, params.as_slice()) {
            ("vec2" | "vec3" | "vec4", [component]) => {
                TypeInner::Vector { size: vector_size(head)?, scalar: self.scalar_param(component)? }
            }
            (_, [component]) if head.starts_with("mat") && head.len() == 6 => {
                let columns = size_digit(head.as_bytes()[3])?;
                let rows = size_digit(head.as_bytes()[5])?;
                TypeInner::Matrix { columns, rows, scalar: self.scalar_param(component)? }
            }
            ("array", [element, rest @ ..]) => {
                let base = self.ty(element)?;
                let size = match rest {
                    [] => naga::ArraySize::Dynamic,
                    [count] => self.array_size(count)?,
                    _ => return Err(Unsupported("array type")),
                };
                self.layouter.update(self.module.to_ctx()).map_err(|_| Unsupported("layout"))?;
                TypeInner::Array { base, size, stride: self.layouter[base].to_stride() }
            }
            ("atomic", [scalar]) => TypeInner::Atomic(self.scalar_param(scalar)?),
            ("ptr", [space, base, access @ ..]) => {
                let space = address_space(space, access.first().copied())?;
                TypeInner::Pointer { base: self.ty(base)?, space }
            }
            _ => image::texture_type(self, head, &params)?.ok_or(Unsupported("type"))?,
        };
        Ok(self.ensure(inner))
    }

    /// The size of `array<T, count>`: a literal, or an integer override, whose handle the front
    /// end keeps as the size (the expression it appends on the way is unused, and compacted
    /// away).
    fn array_size(&self, count: &str) -> Result<naga::ArraySize> {
        if let Some(&Declared::Override(handle)) = self.declared.get(count) {
            let ty = self.module.overrides[handle].ty;
            return match self.module.types[ty].inner.scalar_kind() {
                Some(ScalarKind::Sint | ScalarKind::Uint) => Ok(naga::ArraySize::Pending(handle)),
                _ => Err(Unsupported("array size")),
            };
        }
        let count = count.trim_end_matches('u').parse::<u32>().map_err(|_| Unsupported("array size"))?;
        Ok(naga::ArraySize::Constant(std::num::NonZeroU32::new(count).ok_or(Unsupported("array size"))?))
    }

    fn scalar_param(&mut self, spelled: &str) -> Result<Scalar> {
        let handle = self.ty(spelled)?;
        match self.module.types[handle].inner {
            TypeInner::Scalar(scalar) => Ok(scalar),
            _ => Err(Unsupported("vector of a non-scalar")),
        }
    }

    fn declare_struct(&mut self, s: &super::ast::Struct) -> Result<()> {
        let mut offset = 0;
        let mut alignment = naga::proc::Alignment::ONE;
        let mut members = Vec::with_capacity(s.members.len());
        for member in &s.members {
            let ty = self.ty(&member.ty)?;
            self.layouter.update(self.module.to_ctx()).map_err(|_| Unsupported("layout"))?;
            let mut size = self.layouter[ty].size;
            let mut member_alignment = self.layouter[ty].alignment;
            for attribute in &member.attributes {
                match *attribute {
                    Attribute::Size(n) => size = n,
                    Attribute::Align(n) => {
                        member_alignment = naga::proc::Alignment::new(n).ok_or(Unsupported("align"))?
                    }
                    // The member's binding, below.
                    _ => {}
                }
            }
            let binding = self.binding(&member.attributes, ty)?;
            offset = member_alignment.round_up(offset);
            alignment = alignment.max(member_alignment);
            members.push(naga::StructMember { name: Some(member.name.clone()), ty, binding, offset });
            offset += size;
        }
        let inner = TypeInner::Struct { members, span: alignment.round_up(offset) };
        let handle = self.module.types.insert(Type { name: Some(s.name.clone()), inner }, Span::UNDEFINED);
        self.declared.insert(Name::from(s.name.as_str()), Declared::Type(handle));
        Ok(())
    }

    fn declare_global(&mut self, g: &super::ast::Global) -> Result<()> {
        let space = match &g.kind {
            GlobalKind::Var { space } => space,
            GlobalKind::Override => return self.declare_override(g),
            GlobalKind::Const => return Err(Unsupported("const")),
        };
        let ty = self.ty(g.ty.as_deref().ok_or(Unsupported("untyped global"))?)?;
        let init = g.init.as_ref().map(|init| self.initializer(init, ty)).transpose()?;
        let (mut group, mut binding) = (None, None);
        for attribute in &g.attributes {
            match *attribute {
                Attribute::Group(n) => group = Some(n),
                Attribute::Binding(n) => binding = Some(n),
                _ => return Err(Unsupported("global attribute")),
            }
        }
        let binding = match (group, binding) {
            (Some(group), Some(binding)) => Some(naga::ResourceBinding { group, binding }),
            (None, None) => None,
            _ => return Err(Unsupported("half a binding")),
        };
        // A global without an address space is a texture's or a sampler's handle.
        let space = if space.is_empty() {
            AddressSpace::Handle
        } else {
            let mut parts = space.split(',').map(str::trim);
            address_space(parts.next().unwrap_or_default(), parts.next())?
        };
        let handle = self.module.global_variables.append(
            naga::GlobalVariable {
                name: Some(g.name.clone()),
                space,
                binding,
                ty,
                init,
                memory_decorations: Default::default(),
            },
            Span::UNDEFINED,
        );
        self.declared.insert(Name::from(g.name.as_str()), Declared::Var(handle));
        Ok(())
    }

    fn function(&mut self, ast: &Module, f: &Function) -> Result<()> {
        self.declare_new(ast)?;
        let mut stage = None;
        let first_expression = self.module.global_expressions.len();
        let (mut workgroup_size, mut workgroup_size_overrides) = ([0; 3], None);
        for attribute in &f.attributes {
            match attribute {
                Attribute::Stage("compute") => stage = Some(naga::ShaderStage::Compute),
                Attribute::Stage("vertex") => stage = Some(naga::ShaderStage::Vertex),
                Attribute::Stage("fragment") => stage = Some(naga::ShaderStage::Fragment),
                Attribute::WorkgroupSize(sizes) => {
                    (workgroup_size, workgroup_size_overrides) = self.workgroup_size(sizes)?
                }
                _ => return Err(Unsupported("function attribute")),
            }
        }
        let function = function::lower(self, f)?;
        let appended = self.module.global_expressions.range_from(first_expression);
        self.function_expressions.extend(appended);
        match stage {
            Some(stage) => {
                self.module.entry_points.push(naga::EntryPoint {
                    name: f.name.clone(),
                    stage,
                    early_depth_test: None,
                    workgroup_size,
                    workgroup_size_overrides,
                    function,
                    mesh_info: None,
                    task_payload: None,
                    incoming_ray_payload: None,
                });
                self.declared.insert(Name::from(f.name.as_str()), Declared::EntryPoint);
            }
            None => {
                let handle = self.module.functions.append(function, Span::UNDEFINED);
                self.declared.insert(Name::from(f.name.as_str()), Declared::Function(handle));
            }
        }
        Ok(())
    }

    /// The binding `attributes` give a parameter, result or struct member of type `ty`.
    fn binding(&mut self, attributes: &[Attribute], ty: Handle<Type>) -> Result<Option<naga::Binding>> {
        let mut binding = None;
        let (mut interpolation, mut sampling, mut invariant, mut blend_src) = (None, None, false, None);
        for attribute in attributes {
            match attribute {
                Attribute::Builtin(name) => binding = Some(naga::Binding::BuiltIn(builtin(name)?)),
                &Attribute::Location(location) => {
                    binding = Some(naga::Binding::Location {
                        location,
                        interpolation: None,
                        sampling: None,
                        blend_src: None,
                        per_primitive: false,
                    })
                }
                Attribute::Interpolate(how) => (interpolation, sampling) = interpolate(how)?,
                Attribute::Invariant => invariant = true,
                &Attribute::BlendSrc(n) => blend_src = Some(n),
                Attribute::Size(_) | Attribute::Align(_) => {}
                _ => return Err(Unsupported("binding attribute")),
            }
        }
        match &mut binding {
            Some(naga::Binding::Location { interpolation: i, sampling: s, blend_src: b, .. }) => {
                (*i, *s, *b) = (interpolation, sampling, blend_src)
            }
            Some(naga::Binding::BuiltIn(naga::BuiltIn::Position { invariant: i })) => *i = invariant,
            _ if interpolation.is_some() || invariant || blend_src.is_some() => {
                return Err(Unsupported("binding attribute"));
            }
            _ => {}
        }
        let extension = match binding {
            Some(naga::Binding::BuiltIn(naga::BuiltIn::ClipDistances)) => Some("clip_distances"),
            Some(naga::Binding::Location { blend_src: Some(_), .. }) => Some("dual_source_blending"),
            _ => None,
        };
        if let Some(extension) = extension
            && !self.extensions.contains(&extension)
        {
            self.extensions.push(extension);
        }
        // A float location without `@interpolate` is perspective-interpolated at the center.
        if let Some(naga::Binding::Location { interpolation: interpolation @ None, sampling, .. }) = &mut binding
            && self.module.types[ty].inner.scalar_kind() == Some(ScalarKind::Float)
        {
            *interpolation = Some(naga::Interpolation::Perspective);
            *sampling = Some(naga::Sampling::Center);
        }
        Ok(binding)
    }
}

/// `@interpolate(type, sampling)`.
fn interpolate(how: &str) -> Result<(Option<naga::Interpolation>, Option<naga::Sampling>)> {
    let mut parts = how.split(',').map(str::trim);
    let interpolation = match parts.next() {
        Some("perspective") => naga::Interpolation::Perspective,
        Some("linear") => naga::Interpolation::Linear,
        Some("flat") => naga::Interpolation::Flat,
        _ => return Err(Unsupported("interpolation")),
    };
    let sampling = match parts.next() {
        None => None,
        Some("center") => Some(naga::Sampling::Center),
        Some("centroid") => Some(naga::Sampling::Centroid),
        Some("sample") => Some(naga::Sampling::Sample),
        Some("first") => Some(naga::Sampling::First),
        Some("either") => Some(naga::Sampling::Either),
        Some(_) => return Err(Unsupported("interpolation")),
    };
    Ok((Some(interpolation), sampling))
}

/// The name a spelling starts with: `vec4` of `vec4<f32>`, `S` of `S`.
pub(super) fn spelled_head(spelled: &str) -> &str {
    // By bytes: names are short, and `str::find` sets up a searcher at each call.
    spelled.bytes().position(|b| b == b'<').map_or(spelled, |open| &spelled[..open])
}

/// `name<a, b>` as (`name`, [`a`, `b`]), splitting only at the top level.
fn split_template(spelled: &str) -> Result<(&str, Vec<&str>)> {
    let Some(open) = spelled.find('<') else { return Ok((spelled, Vec::new())) };
    let inner = spelled[open + 1..].strip_suffix('>').ok_or(Unsupported("type"))?;
    let mut params = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            ',' if depth == 0 => {
                params.push(inner[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    params.push(inner[start..].trim());
    Ok((&spelled[..open], params))
}

/// A literal as its magnitude and whether it is negated.
pub(super) fn naga_literal(literal: &Literal) -> Result<(NagaLiteral, bool)> {
    Ok(match *literal {
        Literal::Bool(b) => (NagaLiteral::Bool(b), false),
        // The most negative i32 is printed as a conversion of an abstract integer.
        Literal::I32(i32::MIN) => return Err(Unsupported("literal")),
        Literal::I32(v) => (NagaLiteral::I32(v.abs()), v < 0),
        Literal::U32(v) | Literal::Bits(v) => (NagaLiteral::U32(v), false),
        Literal::F32(bits) => (NagaLiteral::F32(f32::from_bits(bits & 0x7fff_ffff)), bits >> 31 == 1),
        // f16 needs the `half` crate's type; abstract values are converted by rules not taken
        // here.
        Literal::F16(_) | Literal::Abstract(_) => return Err(Unsupported("literal")),
    })
}

pub(super) fn scalar_named(name: &str) -> Option<Scalar> {
    Some(match name {
        "bool" => Scalar::BOOL,
        "i32" => Scalar::I32,
        "u32" => Scalar::U32,
        "f32" => Scalar::F32,
        _ => return None,
    })
}

fn vector_size(head: &str) -> Result<VectorSize> {
    size_digit(head.as_bytes()[3])
}

fn size_digit(digit: u8) -> Result<VectorSize> {
    Ok(match digit {
        b'2' => VectorSize::Bi,
        b'3' => VectorSize::Tri,
        b'4' => VectorSize::Quad,
        _ => return Err(Unsupported("size")),
    })
}

fn address_space(space: &str, access: Option<&str>) -> Result<AddressSpace> {
    Ok(match (space, access) {
        ("function", None) => AddressSpace::Function,
        ("private", None) => AddressSpace::Private,
        ("workgroup", None) => AddressSpace::WorkGroup,
        ("uniform", None) => AddressSpace::Uniform,
        ("storage", None | Some("read")) => AddressSpace::Storage { access: naga::StorageAccess::LOAD },
        ("storage", Some("read_write")) => {
            AddressSpace::Storage { access: naga::StorageAccess::LOAD | naga::StorageAccess::STORE }
        }
        _ => return Err(Unsupported("address space")),
    })
}

fn builtin(name: &str) -> Result<naga::BuiltIn> {
    use naga::BuiltIn as B;
    Ok(match name {
        "global_invocation_id" => B::GlobalInvocationId,
        "local_invocation_id" => B::LocalInvocationId,
        "local_invocation_index" => B::LocalInvocationIndex,
        "workgroup_id" => B::WorkGroupId,
        "num_workgroups" => B::NumWorkGroups,
        "vertex_index" => B::VertexIndex,
        "instance_index" => B::InstanceIndex,
        "position" => B::Position { invariant: false },
        "front_facing" => B::FrontFacing,
        "frag_depth" => B::FragDepth,
        "sample_index" => B::SampleIndex,
        "sample_mask" => B::SampleMask,
        "clip_distances" => B::ClipDistances,
        _ => return Err(Unsupported("builtin")),
    })
}

/// The WGSL builtin functions that are naga math functions, and which naga lowers with no more
/// than overload resolution (no special result types: not `modf` or `frexp`).
pub(super) const MATH: &[(&str, naga::MathFunction)] = {
    use naga::MathFunction as M;
    &[
        ("abs", M::Abs),
        ("min", M::Min),
        ("max", M::Max),
        ("clamp", M::Clamp),
        ("saturate", M::Saturate),
        ("cos", M::Cos),
        ("cosh", M::Cosh),
        ("sin", M::Sin),
        ("sinh", M::Sinh),
        ("tan", M::Tan),
        ("tanh", M::Tanh),
        ("acos", M::Acos),
        ("acosh", M::Acosh),
        ("asin", M::Asin),
        ("asinh", M::Asinh),
        ("atan", M::Atan),
        ("atanh", M::Atanh),
        ("atan2", M::Atan2),
        ("radians", M::Radians),
        ("degrees", M::Degrees),
        ("ceil", M::Ceil),
        ("floor", M::Floor),
        ("round", M::Round),
        ("fract", M::Fract),
        ("trunc", M::Trunc),
        ("ldexp", M::Ldexp),
        ("exp", M::Exp),
        ("exp2", M::Exp2),
        ("log", M::Log),
        ("log2", M::Log2),
        ("pow", M::Pow),
        ("dot", M::Dot),
        ("cross", M::Cross),
        ("distance", M::Distance),
        ("length", M::Length),
        ("normalize", M::Normalize),
        ("faceForward", M::FaceForward),
        ("reflect", M::Reflect),
        ("refract", M::Refract),
        ("sign", M::Sign),
        ("fma", M::Fma),
        ("mix", M::Mix),
        ("step", M::Step),
        ("smoothstep", M::SmoothStep),
        ("sqrt", M::Sqrt),
        ("inverseSqrt", M::InverseSqrt),
        ("transpose", M::Transpose),
        ("determinant", M::Determinant),
        ("countTrailingZeros", M::CountTrailingZeros),
        ("countLeadingZeros", M::CountLeadingZeros),
        ("countOneBits", M::CountOneBits),
        ("reverseBits", M::ReverseBits),
        ("extractBits", M::ExtractBits),
        ("insertBits", M::InsertBits),
        ("firstTrailingBit", M::FirstTrailingBit),
        ("firstLeadingBit", M::FirstLeadingBit),
        ("pack4x8snorm", M::Pack4x8snorm),
        ("pack4x8unorm", M::Pack4x8unorm),
        ("pack2x16snorm", M::Pack2x16snorm),
        ("pack2x16unorm", M::Pack2x16unorm),
        ("pack2x16float", M::Pack2x16float),
        ("pack4xI8", M::Pack4xI8),
        ("pack4xU8", M::Pack4xU8),
        ("pack4xI8Clamp", M::Pack4xI8Clamp),
        ("pack4xU8Clamp", M::Pack4xU8Clamp),
        ("unpack4x8snorm", M::Unpack4x8snorm),
        ("unpack4x8unorm", M::Unpack4x8unorm),
        ("unpack2x16snorm", M::Unpack2x16snorm),
        ("unpack2x16unorm", M::Unpack2x16unorm),
        ("unpack2x16float", M::Unpack2x16float),
        ("unpack4xI8", M::Unpack4xI8),
        ("unpack4xU8", M::Unpack4xU8),
        ("dot4I8Packed", M::Dot4I8Packed),
        ("dot4U8Packed", M::Dot4U8Packed),
        ("quantizeToF16", M::QuantizeToF16),
    ]
};

/// The derivative builtins, by axis and precision.
pub(super) const DERIVATIVES: &[(&str, naga::DerivativeAxis, naga::DerivativeControl)] = {
    use naga::{DerivativeAxis as A, DerivativeControl as C};
    &[
        ("dpdx", A::X, C::None),
        ("dpdy", A::Y, C::None),
        ("fwidth", A::Width, C::None),
        ("dpdxCoarse", A::X, C::Coarse),
        ("dpdyCoarse", A::Y, C::Coarse),
        ("fwidthCoarse", A::Width, C::Coarse),
        ("dpdxFine", A::X, C::Fine),
        ("dpdyFine", A::Y, C::Fine),
        ("fwidthFine", A::Width, C::Fine),
    ]
};

/// An operator of the syntax tree as naga's.
fn binary_op(op: BinaryOp) -> naga::BinaryOperator {
    use naga::BinaryOperator as B;
    match op {
        BinaryOp::Add => B::Add,
        BinaryOp::Subtract => B::Subtract,
        BinaryOp::Multiply => B::Multiply,
        BinaryOp::Divide => B::Divide,
        BinaryOp::Modulo => B::Modulo,
        BinaryOp::Equal => B::Equal,
        BinaryOp::NotEqual => B::NotEqual,
        BinaryOp::Less => B::Less,
        BinaryOp::LessEqual => B::LessEqual,
        BinaryOp::Greater => B::Greater,
        BinaryOp::GreaterEqual => B::GreaterEqual,
        BinaryOp::And => B::And,
        BinaryOp::Or => B::InclusiveOr,
        BinaryOp::Xor => B::ExclusiveOr,
        BinaryOp::LogicalAnd => B::LogicalAnd,
        BinaryOp::LogicalOr => B::LogicalOr,
        BinaryOp::ShiftLeft => B::ShiftLeft,
        BinaryOp::ShiftRight => B::ShiftRight,
    }
}
