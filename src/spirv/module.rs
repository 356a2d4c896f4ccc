//! The in-memory SPIR-V module every pass and the emitter read: definitions indexed by result id,
//! decorations and names, globals, and functions whose instructions live in a per-function arena.
//!
//! Invariants: every id in `defs` below `bound`; a block's `insts` never holds its merge or
//! terminator; instructions keep the word offset they came from (0 for ones a pass created).

use std::collections::HashMap;

use spirv::{ExecutionMode, ExecutionModel, Op, StorageClass};

pub use super::decorations::Decorations;
use super::decorations::NO_DECORATIONS;
pub use crate::binding_map::BindingOrigin;
use crate::error::{Error, Location, Warning};
use crate::id_hash::{IdMap, IdSet};

/// A SPIR-V result id.
pub type Id = u32;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Type {
    Void,
    Bool,
    Int {
        width: u32,
        signed: bool,
    },
    Float {
        width: u32,
    },
    Vector {
        component: Id,
        count: u32,
    },
    Matrix {
        column: Id,
        columns: u32,
    },
    /// `length` is the id of a constant.
    Array {
        element: Id,
        length: Id,
    },
    RuntimeArray {
        element: Id,
    },
    Struct {
        members: Vec<Id>,
    },
    Pointer {
        class: StorageClass,
        pointee: Id,
    },
    Function {
        result: Id,
        params: Vec<Id>,
    },
    Image(ImageType),
    /// `comparison` is set by the `handles` pass for samplers used with a depth reference.
    Sampler {
        comparison: bool,
    },
    SampledImage {
        image: Id,
    },
    /// WGSL's `atomic<T>`: an integer that atomic instructions touch (made by the `atomics` pass).
    Atomic {
        inner: Id,
    },
    /// A type WGSL has no counterpart for (events, ray queries, ...): an error only if used.
    Unsupported(Op),
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ImageType {
    pub sampled_type: Id,
    pub dim: spirv::Dim,
    pub depth: u32,
    pub arrayed: bool,
    pub multisampled: bool,
    /// 1: used with a sampler, 2: storage image, 0: known at run time only.
    pub sampled: u32,
    pub format: spirv::ImageFormat,
    /// The optional access qualifier; the `handles` pass sets it on every storage image.
    pub access: Option<spirv::AccessQualifier>,
    /// The WGSL storage texel format of an `Unknown`-format storage image, where our reverse
    /// path recorded it (`bgra8unorm`, which SPIR-V has no format for; see
    /// [`STORAGE_TEXEL_FORMAT_SET`]).
    pub texel_format: Option<&'static str>,
}

/// The non-semantic instruction set in which the reverse path records what SPIR-V cannot say:
/// instruction 1, at module scope, `%void StorageTexelFormat %image_type %format_string`, gives
/// an `Unknown`-format storage image type its WGSL storage texel format.
pub const STORAGE_TEXEL_FORMAT_SET: &str = "NonSemantic.spv2wgsl.StorageTexelFormat";

/// The formats [`STORAGE_TEXEL_FORMAT_SET`] records: WGSL's storage texel formats SPIR-V lacks.
pub const RECORDED_TEXEL_FORMATS: &[&str] = &["bgra8unorm"];

impl ImageType {
    /// Coordinate components that address a texel, without the array layer.
    pub fn coordinate_count(&self) -> u32 {
        match self.dim {
            spirv::Dim::Dim1D | spirv::Dim::DimBuffer => 1,
            spirv::Dim::Dim3D | spirv::Dim::DimCube => 3,
            _ => 2,
        }
    }
}

/// The variable or parameter a texture, sampler or sampled-image value comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HandleRoots {
    /// The image (or, for a sampler value, the sampler) variable or parameter.
    pub image: Id,
    /// The sampler paired with it by OpSampledImage or by a split combined image sampler.
    pub sampler: Option<Id>,
}

/// How many loads, copies and combinations `Module::handle_roots` follows from a handle value
/// back to its variable or parameter.
pub const MAX_HANDLE_STEPS: u32 = 64;

/// A resource made or moved by a pass, and the SPIR-V variable it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NewBinding {
    pub variable: Id,
    pub source: Id,
    pub origin: BindingOrigin,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ConstValue {
    /// Bit pattern of an integer or float scalar, zero-extended.
    Scalar(u64),
    Bool(bool),
    Composite(Vec<Id>),
    /// OpSpecConstantOp: the operation and its operands (ids and literals), evaluated when the
    /// pipeline is created.
    Op {
        op: Op,
        operands: Box<[Operand]>,
    },
    Null,
    Undef,
}

impl ConstValue {
    /// The constants this one is made of.
    pub fn parts(&self) -> Vec<Id> {
        match self {
            ConstValue::Composite(parts) => parts.clone(),
            ConstValue::Op { operands, .. } => {
                operands.iter().filter_map(|o| if let Operand::IdRef(id) = o { Some(*id) } else { None }).collect()
            }
            _ => Vec::new(),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Constant {
    pub ty: Id,
    pub value: ConstValue,
    /// `SpecId` of a specialization constant that stays overridable (a WGSL `override`).
    pub spec_id: Option<u32>,
}

#[derive(Debug, Clone)]
pub struct Global {
    pub id: Id,
    pub ty: Id,
    pub class: StorageClass,
    /// Store type (the pointee of `ty`).
    pub pointee: Id,
    pub initializer: Option<Id>,
    pub offset: u32,
}

/// What a result id stands for.
#[derive(Debug, Clone, Default)]
pub enum Def {
    #[default]
    None,
    /// Types, constants and strings are boxed: they are few, and inline they would double the
    /// size of every definition, most of which are instruction results.
    Type(Box<Type>),
    Constant(Box<Constant>),
    /// Index into `Module::globals`.
    Global(usize),
    /// Index into `Module::functions`.
    Function(usize),
    /// Indices are `u32`, like ids, to keep a definition at 16 bytes.
    Param {
        function: u32,
        ty: Id,
    },
    /// An instruction result: the function, the instruction's arena index, its type.
    Value {
        function: u32,
        inst: u32,
        ty: Id,
    },
    Label {
        function: u32,
        block: u32,
    },
    ExtInstSet(ExtSet),
    String(Box<String>),
}

const _: () = assert!(std::mem::size_of::<Def>() == 16);

impl Def {
    pub fn of_type(ty: Type) -> Def {
        Def::Type(Box::new(ty))
    }

    /// The result of instruction `inst` of function `function`.
    pub fn value(function: usize, inst: usize, ty: Id) -> Def {
        Def::Value { function: function as u32, inst: inst as u32, ty }
    }

    pub fn param(function: usize, ty: Id) -> Def {
        Def::Param { function: function as u32, ty }
    }

    pub fn label(function: usize, block: usize) -> Def {
        Def::Label { function: function as u32, block: block as u32 }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExtSet {
    GlslStd450,
    /// `NonSemantic.*` and debug-info sets: their instructions have no effect and are skipped.
    NonSemantic,
    Other,
}

/// One operand of an instruction in a function or of an OpSpecConstantOp, in 8 bytes where
/// rspirv's is 24: operands are most of a loaded module's memory. The names are rspirv's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operand {
    IdRef(Id),
    IdScope(Id),
    IdMemorySemantics(Id),
    /// A 32-bit literal number, an extended instruction's number among them.
    LiteralBit32(u32),
    ImageOperands(spirv::ImageOperands),
    GroupOperation(spirv::GroupOperation),
    /// Any other enumerant, mask or literal: no pass reads one, but it keeps its position.
    Other,
}

#[derive(Debug, Clone)]
pub struct Inst {
    pub op: Op,
    /// The result type and the result, [`NO_ID`] where the instruction has none: ids start at 1
    /// (the loader refuses 0), and without `Option`'s tags an instruction takes 48 bytes, not
    /// 56 (the instructions are most of a loaded module).
    ty: Id,
    result: Id,
    pub operands: super::Operands,
    /// Word offset in the input; 0 for instructions a pass created.
    pub offset: u32,
}

const _: () = assert!(std::mem::size_of::<Inst>() == 48);

/// The id no instruction defines or names: [`Inst`]'s absent result type or result.
const NO_ID: Id = 0;

impl Inst {
    pub fn new(op: Op, ty: Option<Id>, result: Option<Id>, operands: super::Operands, offset: u32) -> Inst {
        Inst { op, ty: ty.unwrap_or(NO_ID), result: result.unwrap_or(NO_ID), operands, offset }
    }

    /// The result type's id, if the instruction has a result.
    pub fn ty(&self) -> Option<Id> {
        (self.ty != NO_ID).then_some(self.ty)
    }

    /// The result id, if the instruction has one.
    pub fn result(&self) -> Option<Id> {
        (self.result != NO_ID).then_some(self.result)
    }

    /// Gives the result another type (an id, so the instruction keeps a result).
    pub fn set_ty(&mut self, ty: Id) {
        self.ty = ty;
    }

    /// Gives the result another id, as a pass redefining a value does.
    pub fn set_result(&mut self, result: Id) {
        self.result = result;
    }

    /// The id operand at `index`, if that operand is an id.
    pub fn id(&self, index: usize) -> Option<Id> {
        match self.operands.get(index)? {
            Operand::IdRef(id) | Operand::IdScope(id) | Operand::IdMemorySemantics(id) => Some(*id),
            _ => None,
        }
    }

    /// The 32-bit literal operand at `index`, if that operand is one.
    pub fn literal(&self, index: usize) -> Option<u32> {
        match self.operands.get(index)? {
            Operand::LiteralBit32(v) => Some(*v),
            _ => None,
        }
    }

    /// An OpPhi's (value, parent label) pairs.
    pub fn phi_incoming(&self) -> impl Iterator<Item = (Id, Id)> + '_ {
        self.operands.chunks(2).filter_map(|pair| match pair {
            [Operand::IdRef(value), Operand::IdRef(parent)] => Some((*value, *parent)),
            _ => None,
        })
    }

    /// The one value an OpCompositeConstruct repeats in every component (`Module::splat`).
    pub fn splatted(&self, module: &Module) -> Option<Id> {
        match (self.op, self.ty()) {
            (Op::CompositeConstruct, Some(ty)) => module.splat(ty, self.id_operands()),
            _ => None,
        }
    }

    /// Every id this instruction reads.
    pub fn id_operands(&self) -> impl Iterator<Item = Id> + '_ {
        self.operands.iter().filter_map(|operand| match operand {
            Operand::IdRef(id) | Operand::IdScope(id) | Operand::IdMemorySemantics(id) => Some(*id),
            _ => None,
        })
    }
}

#[derive(Debug, Clone)]
pub struct Block {
    pub label: Id,
    /// Arena indices of the block's instructions, phis first, without merge and terminator.
    pub insts: Vec<usize>,
    /// `OpSelectionMerge` or `OpLoopMerge`.
    pub merge: Option<usize>,
    pub terminator: usize,
}

impl Block {
    /// Arena indices of every instruction of the block, merge and terminator included.
    pub fn all_insts(&self) -> impl Iterator<Item = usize> + '_ {
        self.insts.iter().chain(&self.merge).chain([&self.terminator]).copied()
    }
}

#[derive(Debug, Clone)]
pub struct Param {
    pub id: Id,
    pub ty: Id,
}

#[derive(Debug, Clone)]
pub struct Function {
    pub id: Id,
    pub result_type: Id,
    pub params: Vec<Param>,
    /// Every instruction of the function; blocks refer into it by index.
    pub insts: Vec<Inst>,
    /// In file order; the first is the entry block.
    pub blocks: Vec<Block>,
    /// The structured form, set by the `structurize` pass.
    pub body: Option<Vec<crate::spirv::structured::Node>>,
    pub offset: u32,
}

impl Function {
    pub fn terminator(&self, block: usize) -> &Inst {
        &self.insts[self.blocks[block].terminator]
    }

    /// The instructions in the blocks, in order, without merges and terminators: a pass that
    /// replaces an instruction may leave the old one in the arena.
    pub fn block_insts(&self) -> impl Iterator<Item = &Inst> + '_ {
        self.blocks.iter().flat_map(|block| &block.insts).map(|&index| &self.insts[index])
    }

    /// Frees the instructions, blocks and structured form, keeping the signature: the lowering
    /// frees each function's body once it is lowered. Its results' definitions stay, with their
    /// types; [`Module::value_inst`] no longer finds their instructions.
    pub fn free_body(&mut self) {
        shrink_away(&mut self.insts);
        shrink_away(&mut self.blocks);
        if let Some(body) = &mut self.body {
            shrink_away(body);
        }
    }
}

/// Empties `list` and gives back its memory. A large list keeps room for one item: glibc gives
/// a large block back by unmapping it, and from then on serves every allocation up to that size
/// from its heap, where the vectors naga's IR grows are copied as they grow and leave holes
/// behind (freeing a function's instructions so raised the peak); a mapped block shrunk is
/// mapped smaller instead. A small one is freed: kept, its one item would split the hole it
/// leaves in the heap.
fn shrink_away<T>(list: &mut Vec<T>) {
    /// glibc maps no block smaller than this (its least mapping threshold).
    const LEAST_MAPPED: usize = 128 * 1024;
    if list.capacity() * std::mem::size_of::<T>() >= LEAST_MAPPED {
        list.clear();
        list.shrink_to(1);
    } else {
        *list = Vec::new();
    }
}

/// One WGSL entry-point parameter or result member, and the part of a private proxy variable it
/// is copied into or out of.
#[derive(Debug, Clone, PartialEq)]
pub struct IoValue {
    pub source: IoSource,
    /// Name for the parameter or member.
    pub name: String,
    /// SPIR-V type of the value at `source`.
    pub ty: Id,
    /// The type at the WGSL interface: `ty`, or for a builtin a type that differs from it in
    /// signedness (`u32` for GLSL's `int gl_VertexIndex`); the wrapper bitcasts between them.
    pub wgsl_ty: Id,
    pub binding: IoBinding,
    /// Set only where the entry function is the WGSL entry point (`IoPlan::unwrapped`): an input
    /// the entry function reads from its parameter where it loads the variable, an output whose
    /// stored value it returns, rather than a proxy (`passes/direct_io.rs`).
    pub direct: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub enum IoSource {
    /// The proxy global (formerly the Input/Output variable) and the member or element index
    /// path inside it (empty for the whole variable).
    Proxy { global: Id, path: Vec<u32> },
    /// An output WGSL requires that the SPIR-V does not have (a vertex position): the zero value.
    Zero,
}

#[derive(Debug, Clone, PartialEq)]
pub enum IoBinding {
    /// A WGSL builtin, the `enable` directive it needs, and whether it is `@invariant`.
    BuiltIn { name: &'static str, enable: Option<&'static str>, invariant: bool },
    Location {
        location: u32,
        interpolation: Option<String>,
        blend_src: Option<u32>,
        /// For values sharing their location through `Component` decorations: the first
        /// component of the location's `vec4` this value occupies (`io_wrapper` packs them).
        component: Option<u32>,
    },
    /// An input WGSL has no builtin for, which the wrapper computes (it is no parameter).
    Computed(Computed),
}

/// How the entry-point wrapper computes an input WGSL lacks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Computed {
    /// A subgroup mask builtin, from the invocation's id in its subgroup (and the subgroup size).
    SubgroupMask(SubgroupMask),
    /// Member `member` of the uniform buffer `buffer` the translation adds (draw parameters).
    BufferMember { buffer: Id, member: u32 },
}

/// The subgroup mask builtins: the bits of the invocations whose id in the subgroup is equal to,
/// greater than or equal to, ... the invocation's own (those at or above the subgroup size clear).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubgroupMask {
    Eq,
    Ge,
    Gt,
    Le,
    Lt,
}

/// One dimension of a compute shader's workgroup size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum WorkgroupDimension {
    Literal(u32),
    /// A specialization constant (or an expression of them): an `override` in WGSL.
    Constant(Id),
}

/// The WGSL interface of an entry point, worked out by the `io_wrapper` pass.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct IoPlan {
    pub inputs: Vec<IoValue>,
    pub outputs: Vec<IoValue>,
    /// `@workgroup_size` of a compute shader.
    pub workgroup_size: Option<[WorkgroupDimension; 3]>,
    /// The entry point's function is the WGSL entry point itself, taking the parameters and
    /// returning the results: no other entry point runs it and no call reaches it. Otherwise a
    /// wrapper entry point does, around the function.
    pub unwrapped: bool,
    /// Output variables the unwrapped entry function only stores to, none of them planned (a
    /// point size of 1.0): the stores go nowhere.
    pub dropped: Vec<Id>,
}

#[derive(Debug, Clone)]
pub struct EntryPoint {
    pub model: ExecutionModel,
    pub function: Id,
    pub name: String,
    pub interface: Vec<Id>,
    pub modes: Vec<(ExecutionMode, Vec<u32>)>,
    pub offset: u32,
    /// Set by `io_wrapper`.
    pub io: Option<IoPlan>,
}

#[derive(Debug, Default)]
pub struct Module {
    pub version: (u8, u8),
    /// One past the largest id; passes allocate new ids from here.
    pub bound: u32,
    pub capabilities: Vec<spirv::Capability>,
    pub entry_points: Vec<EntryPoint>,
    pub defs: Vec<Def>,
    pub names: IdMap<Id, String>,
    pub member_names: IdMap<(Id, u32), String>,
    pub decorations: IdMap<Id, Decorations>,
    pub member_decorations: IdMap<(Id, u32), Decorations>,
    /// Type, constant and global ids in declaration order.
    pub declarations: Vec<Id>,
    pub globals: Vec<Global>,
    pub functions: Vec<Function>,
    /// Non-struct types by structure, so passes can find or add e.g. `vec3<i32>`.
    pub type_ids: HashMap<Type, Id>,
    /// Things the user should know that do not stop the translation.
    pub warnings: Vec<Warning>,
    /// Image variable or parameter to the sampler split from it (`handles` pass).
    pub companion_samplers: IdMap<Id, Id>,
    /// Values that were all a named local variable held (`single_store_locals` pass): each is a
    /// `let` of the variable's name, even where it is used once.
    pub variable_values: IdSet<Id>,
    /// Sampler variable to its `sampler_comparison` twin (`handles` pass).
    pub comparison_samplers: IdMap<Id, Id>,
    /// Resources that need a binding the SPIR-V did not give, in the order they were made; the
    /// `bindings` pass binds them.
    pub new_bindings: Vec<NewBinding>,
    /// Sizes of structs padded beyond their members (array-stride wrappers, `layout` pass).
    pub padded_sizes: IdMap<Id, u32>,
    /// The type of the input each storage type the `layout` pass made lays out, for messages.
    pub laid_out_from: IdMap<Id, Id>,
    /// The `u32` constants passes made for access-chain indices, by value (`index_constant`).
    pub index_constants: IdMap<u32, Id>,
    /// The private variable the entry-point wrappers set to the invocation's id in its subgroup,
    /// for the subgroup operations WGSL lacks and the translation computes from it
    /// (`io_wrapper` pass).
    pub subgroup_invocation_id: Option<Id>,
    /// The uniform buffer the draw parameters are read from (`draw_parameters` pass).
    pub draw_parameters: Option<Id>,
}

impl Module {
    pub fn def(&self, id: Id) -> &Def {
        self.defs.get(id as usize).unwrap_or(&Def::None)
    }

    pub fn decorations(&self, id: Id) -> &Decorations {
        self.decorations.get(&id).unwrap_or(&NO_DECORATIONS)
    }

    pub fn member_decorations(&self, id: Id, member: u32) -> &Decorations {
        self.member_decorations.get(&(id, member)).unwrap_or(&NO_DECORATIONS)
    }

    /// The non-empty OpName of `id`.
    pub fn name(&self, id: Id) -> Option<&str> {
        self.names.get(&id).map(String::as_str).filter(|name| !name.is_empty())
    }

    pub fn ty(&self, id: Id) -> Result<&Type, Error> {
        self.type_def(id).ok_or_else(|| Error::invalid(format!("%{id} is not a type"), Location::default()))
    }

    /// The type `id` declares, if it is a type.
    pub fn type_def(&self, id: Id) -> Option<&Type> {
        match self.def(id) {
            Def::Type(ty) => Some(ty),
            _ => None,
        }
    }

    pub fn constant(&self, id: Id) -> Option<&Constant> {
        match self.def(id) {
            Def::Constant(constant) => Some(constant),
            _ => None,
        }
    }

    /// Whether `id` is an `OpUndef`, in a function or at module scope.
    pub fn is_undef(&self, id: Id) -> bool {
        self.value_inst(id).is_some_and(|inst| inst.op == Op::Undef)
            || self.constant(id).is_some_and(|constant| matches!(constant.value, ConstValue::Undef))
    }

    /// The one value a vector of type `ty` made of `parts` repeats in every component
    /// (`vec3(x, x, x)`), which WGSL writes once: `vec3<f32>(x)`. Only vectors, and one part per
    /// component: `vec4(v2, v2)` repeats a vector, which is no splat.
    pub fn splat(&self, ty: Id, parts: impl IntoIterator<Item = Id>) -> Option<Id> {
        let Some(Type::Vector { count, .. }) = self.type_def(ty) else { return None };
        let mut parts = parts.into_iter();
        let first = parts.next()?;
        let mut seen = 1;
        for part in parts {
            if part != first {
                return None;
            }
            seen += 1;
        }
        (seen == *count).then_some(first)
    }

    /// The instruction whose result `id` is, if it is one.
    pub fn value_inst(&self, id: Id) -> Option<&Inst> {
        match self.def(id) {
            Def::Value { function, inst, .. } => self.functions.get(*function as usize)?.insts.get(*inst as usize),
            _ => None,
        }
    }

    /// The type of a value id (constant, global pointer, parameter or instruction result).
    pub fn type_of(&self, id: Id) -> Result<Id, Error> {
        self.value_type(id).ok_or_else(|| Error::invalid(format!("%{id} is not a value"), Location::default()))
    }

    /// [`Module::type_of`] where an id that is no value is no error: `None`, with no message
    /// formatted for it.
    pub fn value_type(&self, id: Id) -> Option<Id> {
        match self.def(id) {
            Def::Constant(c) => Some(c.ty),
            Def::Global(g) => Some(self.globals[*g].ty),
            Def::Param { ty, .. } | Def::Value { ty, .. } => Some(*ty),
            _ => None,
        }
    }

    /// A constant's value as a 32-bit integer, for array lengths, indices and the like.
    pub fn const_u32(&self, id: Id) -> Option<u32> {
        match self.constant(id)?.value {
            ConstValue::Scalar(bits) => u32::try_from(bits).ok(),
            ConstValue::Null => Some(0),
            _ => None,
        }
    }

    /// Whether `id` is a constant whose every bit is zero and that is not overridable (a level or
    /// gradients of 0, a zero value to store), looking at most 16 levels into composites.
    pub fn is_fixed_zero(&self, id: Id) -> bool {
        self.is_fixed_zero_within(id, 16)
    }

    fn is_fixed_zero_within(&self, id: Id, depth: u32) -> bool {
        match self.constant(id).filter(|c| c.spec_id.is_none()).map(|c| &c.value) {
            Some(ConstValue::Null | ConstValue::Bool(false) | ConstValue::Scalar(0)) => true,
            Some(ConstValue::Composite(parts)) => {
                depth > 0 && parts.iter().all(|&part| self.is_fixed_zero_within(part, depth - 1))
            }
            _ => false,
        }
    }

    /// The types whose values hold nothing: empty structs, and structs and arrays of such (WGSL
    /// spells them with a member that is never read). One walk in declaration order, where a
    /// type comes after its parts.
    pub fn types_holding_no_data(&self) -> IdSet<Id> {
        let mut empty = IdSet::default();
        for &id in &self.declarations {
            let holds_nothing = match self.type_def(id) {
                Some(Type::Array { element, .. }) => empty.contains(element),
                Some(Type::Struct { members }) => members.iter().all(|m| empty.contains(m)),
                _ => false,
            };
            if holds_nothing {
                empty.insert(id);
            }
        }
        empty
    }

    /// The scalar type at the bottom of a scalar or vector type, and the vector size (1 for scalars).
    pub fn scalar_of(&self, ty: Id) -> Option<(Id, u32)> {
        match self.type_def(ty) {
            Some(Type::Vector { component, count }) => Some((*component, *count)),
            Some(Type::Bool | Type::Int { .. } | Type::Float { .. }) => Some((ty, 1)),
            _ => None,
        }
    }

    /// Where a variable is declared, for an error about it.
    pub fn variable_location(&self, id: Id) -> Location {
        let word_offset = self.global_index(id).map(|g| self.globals[g].offset);
        Location { word_offset, opcode: Some(Op::Variable), result_id: Some(id), ..Location::default() }
    }

    pub fn global_index(&self, id: Id) -> Option<usize> {
        match self.def(id) {
            Def::Global(index) => Some(*index),
            _ => None,
        }
    }

    pub fn function_index(&self, id: Id) -> Option<usize> {
        match self.def(id) {
            Def::Function(index) => Some(*index),
            _ => None,
        }
    }

    /// A fresh id with `def`.
    pub fn add_def(&mut self, def: Def) -> Id {
        let id = self.bound;
        self.bound += 1;
        self.defs.push(def);
        id
    }

    /// A `u32` constant of `value`, for the access-chain indices passes write.
    pub fn index_constant(&mut self, value: u32) -> Id {
        if let Some(&id) = self.index_constants.get(&value) {
            return id;
        }
        let ty = self.intern_type(Type::Int { width: 32, signed: false });
        let id = self.add_def(Def::Constant(Box::new(Constant {
            ty,
            value: ConstValue::Scalar(u64::from(value)),
            spec_id: None,
        })));
        self.declarations.push(id);
        self.index_constants.insert(value, id);
        id
    }

    /// Appends an instruction of `op` on the ids `operands` to function `f`, and its index to
    /// `out` (the block's new list); its result is `result` or, with a type, a fresh id. Returns
    /// the result (0 without a type).
    pub fn push_inst(
        &mut self,
        f: usize,
        out: &mut Vec<usize>,
        op: spirv::Op,
        ty: Option<Id>,
        operands: Vec<Id>,
        result: Option<Id>,
    ) -> Id {
        let index = self.functions[f].insts.len();
        let id = match (ty, result) {
            (None, _) => 0,
            (Some(ty), Some(id)) => {
                self.defs[id as usize] = Def::value(f, index, ty);
                id
            }
            (Some(ty), None) => self.add_def(Def::value(f, index, ty)),
        };
        let operands = operands.into_iter().map(Operand::IdRef).collect();
        self.functions[f].insts.push(Inst::new(op, ty, ty.map(|_| id), operands, 0));
        out.push(index);
        id
    }

    /// Appends `OpCompositeExtract` of part `index` (of type `ty`) of `composite`, as
    /// [`Module::push_inst`] does; returns its result.
    pub fn push_extract(&mut self, f: usize, out: &mut Vec<usize>, ty: Id, composite: Id, index: u32) -> Id {
        let id = self.push_inst(f, out, spirv::Op::CompositeExtract, Some(ty), vec![composite], None);
        // The index is a literal, not an id.
        let at = *out.last().unwrap_or(&0);
        self.functions[f].insts[at].operands = [Operand::IdRef(composite), Operand::LiteralBit32(index)].into();
        id
    }

    /// A new global variable of `pointee` in `class`, declared last; `offset` is the word an
    /// error about it points at.
    pub fn add_global(&mut self, class: spirv::StorageClass, pointee: Id, offset: u32) -> Id {
        let ty = self.intern_type(Type::Pointer { class, pointee });
        let index = self.globals.len();
        let id = self.add_def(Def::Global(index));
        self.globals.push(Global { id, ty, class, pointee, initializer: None, offset });
        self.declarations.push(id);
        id
    }

    /// The id of a non-struct type, declaring it if the module lacks it.
    pub fn intern_type(&mut self, ty: Type) -> Id {
        if let Some(id) = self.type_ids.get(&ty) {
            return *id;
        }
        let id = self.add_def(Def::of_type(ty.clone()));
        self.type_ids.insert(ty, id);
        self.declarations.push(id);
        id
    }

    /// Whether a type is a texture, sampler or sampled image (WGSL passes these by value).
    pub fn is_handle(&self, ty: Id) -> bool {
        matches!(self.type_def(ty), Some(Type::Image(_) | Type::Sampler { .. } | Type::SampledImage { .. }))
    }

    /// The variable or parameter a handle value or pointer comes from, following OpLoad,
    /// OpCopyObject, OpImage and OpSampledImage (whose sampler half is followed separately).
    /// `None` when the chain passes through anything else (a phi, a select, a function result).
    pub fn handle_roots(&self, id: Id) -> Option<HandleRoots> {
        // Bounded: an invalid module may define a value through itself.
        let mut steps = MAX_HANDLE_STEPS;
        self.handle_roots_within(id, &mut steps)
    }

    fn handle_roots_within(&self, id: Id, steps: &mut u32) -> Option<HandleRoots> {
        let mut id = id;
        let mut sampler = None;
        while *steps > 0 {
            *steps -= 1;
            match self.def(id) {
                Def::Global(_) | Def::Param { .. } => {
                    let sampler = sampler.or_else(|| self.companion_samplers.get(&id).copied());
                    return Some(HandleRoots { image: id, sampler });
                }
                Def::Value { .. } => {
                    let inst = self.value_inst(id)?;
                    match inst.op {
                        Op::Load | Op::CopyObject | Op::Image => id = inst.id(0)?,
                        Op::SampledImage if sampler.is_none() => {
                            sampler = Some(self.handle_roots_within(inst.id(1)?, steps)?.image);
                            id = inst.id(0)?;
                        }
                        _ => return None,
                    }
                }
                _ => return None,
            }
        }
        None
    }

    /// Where an instruction of a function is, for errors.
    pub fn location_of(&self, function: usize, inst: &Inst) -> Location {
        Location {
            word_offset: (inst.offset != 0).then_some(inst.offset),
            opcode: Some(inst.op),
            result_id: inst.result(),
            function: self.functions.get(function).map(|f| f.id),
            block: None,
        }
    }
}

/// The functions (indices into `Module::functions`) of those asked about that read a global.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GlobalUsers {
    None,
    One(usize),
    Many,
}

impl Module {
    /// Which globals (by index into `globals`) an instruction of one of `functions` reads.
    pub fn globals_used_in(&self, functions: &[usize]) -> Vec<bool> {
        self.global_users(functions).into_iter().map(|users| users != GlobalUsers::None).collect()
    }

    /// For each global (by index into `globals`), which of `functions` have an instruction
    /// that reads it.
    pub fn global_users(&self, functions: &[usize]) -> Vec<GlobalUsers> {
        let mut users = vec![GlobalUsers::None; self.globals.len()];
        // Plain loops: a `flat_map` over the instructions cost twice as much.
        for &f in functions {
            for inst in &self.functions[f].insts {
                for id in inst.id_operands() {
                    if let Some(g) = self.global_index(id) {
                        users[g] = match users[g] {
                            GlobalUsers::None => GlobalUsers::One(f),
                            GlobalUsers::One(user) if user == f => GlobalUsers::One(f),
                            _ => GlobalUsers::Many,
                        };
                    }
                }
            }
        }
        users
    }

    /// Functions reachable from `root` through `OpFunctionCall`, `root` first, each once.
    pub fn reachable_functions(&self, root: usize) -> Vec<usize> {
        self.reachable_from(&[root])
    }

    /// Functions reachable from the entry points, in file order.
    pub fn entry_functions(&self) -> Vec<usize> {
        if self.entry_points.is_empty() {
            // A library module (Linkage): every function is translated.
            return (0..self.functions.len()).collect();
        }
        let roots: Vec<usize> = self.entry_points.iter().filter_map(|e| self.function_index(e.function)).collect();
        let mut functions = self.reachable_from(&roots);
        functions.sort_unstable();
        functions
    }

    /// Functions reachable from `roots`, roots first, each once. The set of those seen holds only
    /// them, so a walk from one entry point of many costs what that entry point reaches.
    pub fn reachable_from(&self, roots: &[usize]) -> Vec<usize> {
        let mut seen: IdSet<usize> = IdSet::default();
        let mut order: Vec<usize> = roots.iter().copied().filter(|&root| seen.insert(root)).collect();
        let mut next = 0;
        // Once every function is found there is nothing left to find: a module of one function,
        // the common case, is not walked at all.
        while next < order.len() && order.len() < self.functions.len() {
            let function = &self.functions[order[next]];
            next += 1;
            for inst in function.insts.iter().filter(|i| i.op == Op::FunctionCall) {
                if let Some(callee) = inst.id(0).and_then(|id| self.function_index(id))
                    && seen.insert(callee)
                {
                    order.push(callee);
                }
            }
        }
        order
    }
}

impl Module {
    /// Makes the pointers `values` maps (parameters, local variables) values: in function `f`,
    /// a whole load of one is its value, a load through access chains with constant indices an
    /// `OpCompositeExtract` of it, and the chains go. A value may itself be such a load, of
    /// another pointer. The callers have checked that the pointers are used only so. Returns
    /// what each dropped load's uses now read.
    pub fn read_pointers_as_values(&mut self, f: usize, values: &IdMap<Id, Id>) -> IdMap<Id, Id> {
        let function = &self.functions[f];
        // Access chains from a pointer, by result: the pointer and the constant indices.
        let mut paths: IdMap<Id, (Id, Vec<u32>)> = values.keys().map(|&p| (p, (p, Vec::new()))).collect();
        let mut replaced: IdMap<Id, Id> = IdMap::default();
        let mut extracts: Vec<(usize, Id, Vec<u32>)> = Vec::new();
        let mut dropped: IdSet<usize> = IdSet::default();
        for index in function.blocks.iter().flat_map(|b| b.insts.iter().copied()) {
            let inst = &function.insts[index];
            let (Some(base), Some(result)) = (inst.id(0), inst.result()) else { continue };
            let Some((root, path)) = paths.get(&base).cloned() else { continue };
            match inst.op {
                Op::AccessChain | Op::InBoundsAccessChain => {
                    let mut path = path;
                    path.extend(inst.id_operands().skip(1).filter_map(|index| self.const_u32(index)));
                    paths.insert(result, (root, path));
                    dropped.insert(index);
                }
                Op::Load if path.is_empty() => {
                    replaced.insert(result, values[&root]);
                    dropped.insert(index);
                }
                Op::Load => extracts.push((index, values[&root], path)),
                _ => {}
            }
        }
        // A value that is a dropped load reads what that load's uses now read, each chain walked
        // once. Invalid input can make a cycle of them: a walk stops after as many steps as
        // there are loads.
        let mut resolved: IdMap<Id, Id> = IdMap::default();
        for &load in replaced.keys() {
            let mut path = Vec::new();
            let mut id = load;
            while path.len() <= replaced.len() {
                if let Some(&end) = resolved.get(&id) {
                    id = end;
                    break;
                }
                match replaced.get(&id) {
                    Some(&next) => {
                        path.push(id);
                        id = next;
                    }
                    None => break,
                }
            }
            resolved.extend(path.into_iter().map(|step| (step, id)));
        }
        let replaced = resolved;
        let function = &mut self.functions[f];
        for (index, value, path) in extracts {
            let inst = &mut function.insts[index];
            inst.op = Op::CompositeExtract;
            let value = Operand::IdRef(replaced.get(&value).copied().unwrap_or(value));
            inst.operands = std::iter::once(value).chain(path.into_iter().map(Operand::LiteralBit32)).collect();
        }
        for inst in &mut function.insts {
            for operand in inst.operands.iter_mut() {
                if let Operand::IdRef(id) = operand
                    && let Some(&value) = replaced.get(id)
                {
                    *id = value;
                }
            }
        }
        function.drop_insts(&dropped);
        replaced
    }
}

/// How an instruction uses a pointer into a variable or parameter (`Module::pointer_uses`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PointerUseKind {
    /// A load, of the whole or through access chains with constant indices.
    Load,
    /// A store of this value to the whole.
    Store(Id),
    /// Anything else: an argument, a store through an access chain, a dynamic index, ...
    Other,
}

/// One use found by `Module::pointer_uses`.
#[derive(Debug, Clone, Copy)]
pub struct PointerUse {
    /// The variable or parameter pointed into.
    pub root: Id,
    pub kind: PointerUseKind,
    /// The block and the position in it (merge and terminator included) of the instruction.
    pub block: usize,
    pub position: usize,
    /// The instruction's arena index.
    pub inst: usize,
}

impl Module {
    /// Calls `visit` with every use, in function `f`, of a pointer into one of `roots`, in block
    /// order. Access chains with constant indices are followed rather than reported; debug
    /// information does not count.
    pub fn pointer_uses(&self, f: usize, roots: impl IntoIterator<Item = Id>, mut visit: impl FnMut(PointerUse)) {
        let function = &self.functions[f];
        let mut root_of: IdMap<Id, Id> = roots.into_iter().map(|id| (id, id)).collect();
        for (block, b) in function.blocks.iter().enumerate() {
            for (position, inst) in b.all_insts().enumerate() {
                let i = &function.insts[inst];
                let at = |root: Id, kind: PointerUseKind| PointerUse { root, kind, block, position, inst };
                let root = i.id(0).and_then(|id| root_of.get(&id).copied());
                match (i.op, root) {
                    (Op::Load, Some(root)) => {
                        visit(at(root, PointerUseKind::Load));
                        continue;
                    }
                    (Op::Store, Some(root)) if i.id(0) == Some(root) => {
                        if let Some(value) = i.id(1).filter(|v| !root_of.contains_key(v)) {
                            visit(at(root, PointerUseKind::Store(value)));
                            continue;
                        }
                    }
                    (Op::AccessChain | Op::InBoundsAccessChain, Some(root))
                        if i.id_operands().skip(1).all(|index| self.const_u32(index).is_some()) =>
                    {
                        root_of.extend(i.result().map(|result| (result, root)));
                        continue;
                    }
                    (Op::ExtInst, _)
                        if matches!(i.id(0).map(|set| self.def(set)), Some(Def::ExtInstSet(ExtSet::NonSemantic))) =>
                    {
                        continue;
                    }
                    _ => {}
                }
                for id in i.id_operands() {
                    if let Some(&root) = root_of.get(&id) {
                        visit(at(root, PointerUseKind::Other));
                    }
                }
            }
        }
    }

    /// Whether `inst` declares a function's local variable (`OpVariable` of class `Function`).
    pub fn is_local_variable(&self, inst: &Inst) -> bool {
        inst.op == Op::Variable
            && matches!(
                inst.ty().and_then(|ty| self.type_def(ty)),
                Some(Type::Pointer { class: StorageClass::Function, .. })
            )
    }

    /// The block of function `f` that label `id` names, if it names one.
    pub fn label_block(&self, f: usize, id: Id) -> Option<usize> {
        match *self.def(id) {
            Def::Label { function, block } if function as usize == f => Some(block as usize),
            _ => None,
        }
    }

    /// The blocks that block `block` of function `f` can branch to; `None` stands for leaving
    /// the function. `None` when a branch names no block of the function.
    pub fn successors(&self, f: usize, block: usize) -> Option<Vec<Option<usize>>> {
        let mut targets = Vec::new();
        self.successors_into(f, block, &mut targets).then_some(targets)
    }

    /// `successors`, appended to `out` (without an allocation per block); false when a branch
    /// names no block of the function.
    pub fn successors_into(&self, f: usize, block: usize, out: &mut Vec<Option<usize>>) -> bool {
        let terminator = self.functions[f].terminator(block);
        // The positions of the label operands, without a list of them: this runs for every block.
        let (first, rest, step) = match terminator.op {
            Op::Branch => (0, 0..0, 1),
            Op::BranchConditional => (1, 2..3, 1),
            Op::Switch => (1, 3..terminator.operands.len(), 2),
            _ => {
                out.push(None);
                return true;
            }
        };
        for i in std::iter::once(first).chain(rest.step_by(step)) {
            match terminator.id(i).and_then(|id| self.label_block(f, id)) {
                Some(target) => out.push(Some(target)),
                None => return false,
            }
        }
        true
    }
}

impl Function {
    /// Removes instructions from their blocks, leaving `OpNop` in the arena.
    pub fn drop_insts(&mut self, dropped: &IdSet<usize>) {
        for block in &mut self.blocks {
            block.insts.retain(|index| !dropped.contains(index));
        }
        for &index in dropped {
            self.insts[index] = Inst::new(Op::Nop, None, None, super::Operands::default(), 0);
        }
    }
}
