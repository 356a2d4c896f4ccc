//! Explicit buffer layouts: Offset, ArrayStride, MatrixStride, RowMajor (seed 002, "memory layout
//! rules"). WGSL lays memory out by fixed rules; where a buffer's SPIR-V layout differs from what
//! WGSL would give the same types, the buffer gets a *storage type* of its own, and accesses to it
//! are rewritten:
//! - an array whose ArrayStride is larger than WGSL's holds wrapper structs `{ value: E }` padded
//!   to the stride (`Module::padded_sizes`); access chains step into `.value`;
//! - a matrix whose MatrixStride differs from WGSL's column stride is an array of padded columns;
//!   a RowMajor matrix is stored transposed: as the transposed matrix, or an array of padded rows;
//! - a vector placed below WGSL's alignment for it (relaxed and scalar block layouts: a `vec3` at
//!   offset 4, an array of `vec3` with a stride of 12) is an array of its components, and so is
//!   every vector inside a struct, array or matrix placed so; access chains index the array as
//!   they index the vector. In a uniform buffer, whose arrays WGSL wants 16 bytes apart, such a
//!   vector member is one scalar member per component instead (`SplitVector`), read by building
//!   the vector of them;
//! - member offsets are left to the emitter, which pads the member before with `@size`.
//!
//! Values never have storage types. A load through a pointer to memory with adapted parts loads
//! the parts and builds the value (transposing row-major matrices); a store takes the value apart,
//! except a zero, which is stored whole as the zero value of the storage type.
//! What WGSL cannot lay out (a stride smaller than its element) is an error; a uniform buffer or
//! push-constant block that breaks only WGSL's uniform-buffer rules (16-byte array strides and
//! struct offsets) becomes a read-only storage buffer instead, with a warning.
//!
//! Before: buffer variables have their SPIR-V store types. After: they have storage types, and
//! every access chain into a changed one leads, from the variable, to storage types.

use std::collections::{HashMap, HashSet};

use spirv::{Op, StorageClass};

use super::array_counts::{TINT_MAX_COUNT, array_count};
use super::atomics;
use crate::Options;
use crate::error::{Error, Location, Warning};
use crate::spirv::{BindingOrigin, ConstValue, Constant, Def, Id, Inst, Module, Operand, Type};

pub fn round_up(value: u32, align: u32) -> u32 {
    value.div_ceil(align.max(1)).saturating_mul(align.max(1))
}

/// Size and alignment of a type under WGSL's layout rules (struct members at their Offset).
pub fn size_and_align(module: &Module, ty: Id) -> Result<(u32, u32), Error> {
    Ok(match module.ty(ty)? {
        Type::Bool | Type::Int { .. } => (4, 4),
        Type::Float { width } => (width / 8, width / 8),
        Type::Vector { component, count } => {
            let (size, _) = size_and_align(module, *component)?;
            let align = if *count == 2 { 2 * size } else { 4 * size };
            (count.saturating_mul(size), align)
        }
        Type::Matrix { column, columns } => {
            let (size, align) = size_and_align(module, *column)?;
            (columns.saturating_mul(round_up(size, align)), align)
        }
        Type::Array { element, length } => {
            let (size, align) = size_and_align(module, *element)?;
            (module.const_u32(*length).unwrap_or(0).saturating_mul(round_up(size, align)), align)
        }
        Type::RuntimeArray { element } => (0, size_and_align(module, *element)?.1),
        Type::Atomic { inner } => size_and_align(module, *inner)?,
        // WGSL structs need a member: an empty one is spelled with a `u32` (`lower/emit.rs`).
        Type::Struct { members } if members.is_empty() => (4, 4),
        Type::Struct { members } => {
            let mut end = 0;
            let mut max_align = 1;
            for (i, &member) in members.iter().enumerate() {
                let (size, align) = size_and_align(module, member)?;
                let offset = module.member_decorations(ty, i as u32).offset.unwrap_or(round_up(end, align));
                end = offset.saturating_add(size);
                max_align = max_align.max(align);
            }
            let size = round_up(end, max_align).max(module.padded_sizes.get(&ty).copied().unwrap_or(0));
            (size, max_align)
        }
        _ => (0, 1),
    })
}

/// The names of a split vector's components, after its member's name.
const LANES: [&str; 4] = ["x", "y", "z", "w"];

/// Whether the struct `ty` places its first member above offset 0.
fn has_leading_gap(module: &Module, ty: Id) -> bool {
    module.member_decorations(ty, 0).offset.is_some_and(|offset| offset > 0)
}

/// Whether a store of a whole `ty` in WGSL writes a padding member (a struct's leading gap).
fn has_padding_member(module: &Module, ty: Id) -> bool {
    match module.type_def(ty) {
        Some(Type::Struct { members }) => {
            has_leading_gap(module, ty) || members.iter().any(|&member| has_padding_member(module, member))
        }
        Some(Type::Array { element, .. } | Type::RuntimeArray { element }) => has_padding_member(module, *element),
        _ => false,
    }
}

/// WGSL's array stride for elements of type `ty`.
fn natural_stride(module: &Module, ty: Id) -> Result<u32, Error> {
    let (size, align) = size_and_align(module, ty)?;
    Ok(round_up(size, align))
}

/// How a storage type differs from the value type it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A struct with adapted members.
    Struct,
    /// An array of adapted elements, each in a padded wrapper struct if `wrapped`.
    Array { wrapped: bool },
    /// A row-major matrix, stored as the transposed matrix.
    Transposed,
    /// A matrix stored as an array of columns, or rows if `row_major`, each in a padded wrapper
    /// struct if `wrapped`.
    Lines { row_major: bool, wrapped: bool },
    /// A vector stored as an array of its components.
    Components,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct MatrixLayout {
    stride: Option<u32>,
    row_major: bool,
}

pub fn run(module: &mut Module, _options: &Options) -> Result<(), Error> {
    refuse_aliased_workgroup_blocks(module)?;
    let atomic_variables = atomic_variables(module);
    let mut layouts = Layouts {
        module,
        memo: HashMap::new(),
        split_vectors: false,
        misplaced: HashMap::new(),
        slots: HashMap::new(),
        kinds: HashMap::new(),
        zeros: HashMap::new(),
        atomic_variables,
        wrappers: HashMap::new(),
        expanded: 0,
        block: 0,
    };
    let mut adapted = HashMap::new();
    for g in 0..layouts.module.globals.len() {
        let global = &layouts.module.globals[g];
        if !matches!(global.class, StorageClass::Uniform | StorageClass::StorageBuffer) {
            continue;
        }
        let (id, class, value) = (global.id, global.class, global.pointee);
        let at = Location {
            word_offset: Some(global.offset),
            result_id: Some(id),
            opcode: Some(Op::Variable),
            ..Location::default()
        };
        // Uniform BufferBlock variables are storage buffers (SPIR-V 1.0 style).
        let uniform_buffer = class == StorageClass::Uniform && !layouts.module.decorations(value).buffer_block;
        layouts.split_vectors = uniform_buffer;
        let mut storage = layouts.storage_type(value, None, false, &at)?;
        layouts.split_vectors = false;
        if uniform_buffer && let Err(reason) = uniform_rules(layouts.module, storage) {
            storage = layouts.storage_type(value, None, false, &at)?;
            let push_constant =
                layouts.module.new_bindings.iter().any(|n| n.variable == id && n.origin == BindingOrigin::PushConstant);
            // A read-only storage buffer has none of the uniform buffer's 16-byte rules, and holds
            // the same bytes (std430 and scalar layouts in a uniform block, say).
            layouts.module.globals[g].class = StorageClass::StorageBuffer;
            layouts.module.globals[g].ty =
                layouts.module.intern_type(Type::Pointer { class: StorageClass::StorageBuffer, pointee: storage });
            layouts.module.decorations.entry(storage).or_default().non_writable = true;
            let name = layouts.module.name(id).or_else(|| layouts.module.name(value));
            let name = name.map_or(format!("%{id}"), |n| format!("`{n}`"));
            let message = match push_constant {
                true => format!(
                    "push-constant block {name} is a read-only storage buffer: its layout breaks WGSL's \
                     uniform-buffer rules ({reason})"
                ),
                false => format!(
                    "uniform buffer {name} is a read-only storage buffer, which the application binds as \
                     such: its layout breaks WGSL's uniform-buffer rules ({reason})"
                ),
            };
            layouts.module.warnings.push(Warning::new(message, at.clone()));
        }
        if storage != value {
            let class = layouts.module.globals[g].class;
            layouts.module.globals[g].pointee = storage;
            layouts.module.globals[g].ty = layouts.module.intern_type(Type::Pointer { class, pointee: storage });
            adapted.insert(id, value);
        }
    }
    forget_offsets_outside_buffers(layouts.module);
    if adapted.is_empty() {
        return Ok(());
    }
    for f in layouts.module.entry_functions() {
        layouts.rewrite_function(f, &adapted)?;
    }
    Ok(())
}

/// WGSL's extra rules for uniform buffers: array strides, and the offsets of struct and array
/// members, are multiples of 16.
fn uniform_rules(module: &Module, ty: Id) -> Result<(), String> {
    match module.ty(ty).map_err(|e| e.to_string())? {
        Type::Array { element, .. } | Type::RuntimeArray { element } => {
            if let Some(count) = array_count(module, ty).filter(|&count| count > TINT_MAX_COUNT) {
                return Err(format!("an array of {count} elements, where Tint takes at most {TINT_MAX_COUNT}"));
            }
            let stride = natural_stride(module, *element).map_err(|e| e.to_string())?;
            if !stride.is_multiple_of(16) {
                return Err(format!(
                    "an array stride of {stride} bytes, where WGSL uniform buffers need a multiple of 16"
                ));
            }
            uniform_rules(module, *element)
        }
        Type::Struct { members } => {
            for (i, &member) in members.iter().enumerate() {
                let composite = matches!(module.type_def(member), Some(Type::Struct { .. } | Type::Array { .. }));
                let offset = module.member_decorations(ty, i as u32).offset.unwrap_or(0);
                if composite && !offset.is_multiple_of(16) {
                    return Err(format!(
                        "a struct or array member at offset {offset}, where WGSL uniform buffers need a multiple of 16"
                    ));
                }
                uniform_rules(module, member)?;
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

struct Layouts<'m> {
    module: &'m mut Module,
    memo: HashMap<(Id, Option<MatrixLayout>, bool, bool), Id>,
    /// While laying out a uniform buffer: split misplaced vector members (`SplitVector`).
    split_vectors: bool,
    /// Whether a type holds a vector member placed below WGSL's alignment for it.
    misplaced: HashMap<Id, bool>,
    /// The members of storage structs with split vectors, by the value type's member index.
    slots: HashMap<Id, Vec<Slot>>,
    /// Storage types made here, and how each differs from its value type.
    kinds: HashMap<Id, Kind>,
    /// The zero value of each storage type that one is stored of.
    zeros: HashMap<Id, Id>,
    /// Variables atomic instructions touch: their integers become atomics, which cannot be
    /// stored as part of a whole value.
    atomic_variables: HashSet<Id>,
    wrappers: HashMap<(Id, u32), Id>,
    /// Parts written out so far by whole-value loads and stores, which go element by element.
    expanded: usize,
    /// The block being rewritten: those before it in its function are done.
    block: usize,
}

/// The variables atomic instructions touch, through access chains.
fn atomic_variables(module: &Module) -> HashSet<Id> {
    let mut variables = HashSet::new();
    // Plain loops: a `flat_map` over the functions' instructions cost several times as much.
    for f in module.entry_functions() {
        for inst in module.functions[f].insts.iter().filter(|i| atomics::is_atomic(i.op)) {
            variables.extend(inst.id(0).and_then(|pointer| atomics::variable_of(module, pointer)));
        }
    }
    variables
}

/// The most parts whole-value loads and stores of re-laid-out buffers may write out in a module.
const MAX_EXPANDED_PARTS: usize = 1 << 16;

/// A value-type position in a buffer and its storage counterpart, reached from the variable.
#[derive(Debug, Clone)]
struct Place {
    variable: Id,
    class: StorageClass,
    /// Access-chain indices into the storage type.
    path: Vec<Id>,
    value: Id,
    storage: Id,
    /// A column of a row-major matrix, which is not contiguous in memory: the matrix's storage
    /// type, the path to it, and the column index.
    column: Option<(Id, Id)>,
    /// A vector split into scalar members of the struct `path` leads to.
    split: Option<SplitVector>,
}

/// A vector member of a uniform buffer's struct that WGSL cannot place where it is (relaxed
/// layouts: a `vec3` at offset 4), held as one scalar member per component: WGSL's uniform
/// buffers take neither the vector there nor an array of its components (a stride of 4).
#[derive(Debug, Clone, Copy)]
struct SplitVector {
    /// The vector's type.
    vector: Id,
    /// The struct member holding the first component.
    first: u32,
    count: u32,
    /// A component chosen at run time (OpVectorExtractDynamic of the whole vector).
    lane: Option<Id>,
}

/// Where a member of a struct's value type is in its storage type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Slot {
    first: u32,
    /// The component count of a split vector.
    split: Option<u32>,
}

/// Under WorkgroupMemoryExplicitLayoutKHR, workgroup variables of Block types share their memory
/// (SPV_KHR_workgroup_memory_explicit_layout): with two or more, what one stores another reads.
/// WGSL variables never alias; one such variable alone is an ordinary workgroup variable.
fn refuse_aliased_workgroup_blocks(module: &Module) -> Result<(), Error> {
    let mut blocks =
        module.globals.iter().filter(|g| g.class == StorageClass::Workgroup && module.decorations(g.pointee).block);
    match (blocks.next(), blocks.next()) {
        (Some(_), Some(second)) => Err(Error::unsupported(
            "workgroup variables of Block types alias each other (WorkgroupMemoryExplicitLayoutKHR): WGSL \
             variables never share memory",
            Location {
                word_offset: Some(second.offset),
                result_id: Some(second.id),
                opcode: Some(Op::Variable),
                ..Location::default()
            },
        )),
        _ => Ok(()),
    }
}

/// Member offsets mean something only in buffers. A struct no buffer holds (one with a storage
/// type of its own, or never in a buffer) is only a value, whose offsets WGSL may be unable to
/// spell (a `vec3` at offset 4) or could spell only with a padding member, which a constructor of
/// the value would lack (a first member above offset 0): they are dropped.
fn forget_offsets_outside_buffers(module: &mut Module) {
    let mut in_buffers = HashSet::new();
    let mut types: Vec<Id> = module
        .globals
        .iter()
        .filter(|g| matches!(g.class, StorageClass::Uniform | StorageClass::StorageBuffer))
        .map(|g| g.pointee)
        .collect();
    while let Some(ty) = types.pop() {
        if !in_buffers.insert(ty) {
            continue;
        }
        match module.type_def(ty) {
            Some(Type::Struct { members }) => types.extend(members),
            Some(Type::Array { element, .. } | Type::RuntimeArray { element }) => types.push(*element),
            _ => {}
        }
    }
    for (&(ty, _), d) in module.member_decorations.iter_mut() {
        if !in_buffers.contains(&ty) {
            d.offset = None;
        }
    }
}

impl Layouts<'_> {
    fn new_type(&mut self, ty: Type, like: Id, kind: Kind) -> Id {
        let id = self.module.add_def(Def::of_type(ty));
        self.module.declarations.push(id);
        let origin = self.module.laid_out_from.get(&like).copied().unwrap_or(like);
        self.module.laid_out_from.insert(id, origin);
        if let Some(name) = self.module.names.get(&like).cloned() {
            self.module.names.insert(id, name);
        }
        self.kinds.insert(id, kind);
        id
    }

    /// A `u32` constant, for access-chain indices.
    fn constant(&mut self, value: u32) -> Id {
        self.module.index_constant(value)
    }

    /// The zero value (`OpConstantNull`) of type `ty`.
    fn zero(&mut self, ty: Id) -> Id {
        if let Some(&id) = self.zeros.get(&ty) {
            return id;
        }
        let id = self.module.add_def(Def::Constant(Box::new(Constant { ty, value: ConstValue::Null, spec_id: None })));
        self.module.declarations.push(id);
        self.zeros.insert(ty, id);
        id
    }

    /// A struct `{ value: ty }` whose size is `stride`, one per type and stride.
    fn wrapper(&mut self, ty: Id, stride: u32) -> Id {
        if let Some(&id) = self.wrappers.get(&(ty, stride)) {
            return id;
        }
        let id = self.module.add_def(Def::of_type(Type::Struct { members: vec![ty] }));
        self.module.declarations.push(id);
        self.module.member_decorations.entry((id, 0)).or_default().offset = Some(0);
        self.module.member_names.insert((id, 0), "value".into());
        self.module.names.insert(id, format!("Stride{stride}"));
        self.module.padded_sizes.insert(id, stride);
        self.wrappers.insert((ty, stride), id);
        id
    }

    /// An array of `element` with the given ArrayStride, as a new storage type.
    fn array(&mut self, element: Id, length: Option<Id>, stride: u32, like: Id, kind: Kind) -> Id {
        let ty = match length {
            Some(length) => Type::Array { element, length },
            None => Type::RuntimeArray { element },
        };
        let id = self.new_type(ty, like, kind);
        self.module.decorations.entry(id).or_default().array_stride = Some(stride);
        id
    }

    /// The storage type for a value of type `ty` laid out as its decorations say; `ty` itself
    /// when WGSL's layout of it is the same. With `scalar`, every vector in it is an array of its
    /// components, aligned as one component is.
    fn storage_type(&mut self, ty: Id, matrix: Option<MatrixLayout>, scalar: bool, at: &Location) -> Result<Id, Error> {
        // Split vectors make a type of their own only where a misplaced vector is in it.
        let split = self.split_vectors && self.has_misplaced_vector(ty)?;
        if let Some(&done) = self.memo.get(&(ty, matrix, scalar, split)) {
            return Ok(done);
        }
        let storage = match self.module.ty(ty)?.clone() {
            Type::Struct { members } => self.struct_storage(ty, &members, scalar, at)?,
            Type::Array { element, length } => self.array_storage(ty, element, Some(length), matrix, scalar, at)?,
            Type::RuntimeArray { element } => self.array_storage(ty, element, None, matrix, scalar, at)?,
            Type::Matrix { column, columns } => self.matrix_storage(ty, column, columns, matrix, scalar, at)?,
            // Before strides are checked, which such an integer's would fail first.
            Type::Int { width, .. } if width != 32 => {
                return Err(Error::unsupported(
                    format!("{width}-bit integers: WGSL has only 32-bit integers"),
                    at.clone(),
                ));
            }
            Type::Vector { component, count } if scalar => {
                let length = self.constant(count);
                let stride = size_and_align(self.module, component)?.0;
                self.array(component, Some(length), stride, ty, Kind::Components)
            }
            _ => ty,
        };
        self.memo.insert((ty, matrix, scalar, split), storage);
        Ok(storage)
    }

    /// Whether `ty` holds, at any depth, a struct's vector member placed below WGSL's alignment.
    fn has_misplaced_vector(&mut self, ty: Id) -> Result<bool, Error> {
        if let Some(&known) = self.misplaced.get(&ty) {
            return Ok(known);
        }
        let misplaced = match self.module.ty(ty)?.clone() {
            Type::Struct { members } => {
                let mut any = false;
                for (i, &member) in members.iter().enumerate() {
                    if matches!(self.module.ty(member)?, Type::Vector { .. }) {
                        let align = size_and_align(self.module, member)?.1;
                        let offset = self.module.member_decorations(ty, i as u32).offset;
                        any |= offset.is_some_and(|offset| !offset.is_multiple_of(align));
                    }
                    any |= self.has_misplaced_vector(member)?;
                }
                any
            }
            Type::Array { element, .. } | Type::RuntimeArray { element } => self.has_misplaced_vector(element)?,
            _ => false,
        };
        self.misplaced.insert(ty, misplaced);
        Ok(misplaced)
    }

    fn struct_storage(&mut self, ty: Id, members: &[Id], scalar: bool, at: &Location) -> Result<Id, Error> {
        let mut storage = Vec::with_capacity(members.len());
        let mut slots = Vec::with_capacity(members.len());
        for (i, &member) in members.iter().enumerate() {
            let d = self.module.member_decorations(ty, i as u32);
            let (offset, matrix) = (d.offset, MatrixLayout { stride: d.matrix_stride, row_major: d.row_major });
            let mut member_storage = self.storage_type(member, Some(matrix), scalar, at)?;
            // A member placed below WGSL's alignment for it keeps only its components' alignment.
            let align = size_and_align(self.module, member_storage)?.1;
            let first = storage.len() as u32;
            if offset.is_some_and(|offset| !offset.is_multiple_of(align)) {
                if let (true, Type::Vector { component, count }) = (self.split_vectors, self.module.ty(member)?) {
                    storage.extend(std::iter::repeat_n(*component, *count as usize));
                    slots.push(Slot { first, split: Some(*count) });
                    continue;
                }
                member_storage = self.storage_type(member, Some(matrix), true, at)?;
            }
            storage.push(member_storage);
            slots.push(Slot { first, split: None });
        }
        // WGSL places a first member above offset 0 only after a padding member (`lower/emit.rs`),
        // which values of the struct must not have: it is a storage type of its own.
        if storage == members && !has_leading_gap(self.module, ty) {
            return Ok(ty);
        }
        let id = self.new_type(Type::Struct { members: storage.clone() }, ty, Kind::Struct);
        if let Some(d) = self.module.decorations.get(&ty).cloned() {
            self.module.decorations.insert(id, d);
        }
        let split = slots.iter().any(|slot| slot.split.is_some());
        for (i, slot) in slots.iter().enumerate() {
            let i = i as u32;
            let mut d = self.module.member_decorations.get(&(ty, i)).cloned();
            // The member's storage type carries its matrix layout now.
            if let Some(d) = d.as_mut() {
                d.row_major = false;
                d.matrix_stride = None;
            }
            // Where members moved, the unnamed ones keep their index in the value type as name.
            let name = self.module.member_names.get(&(ty, i)).cloned();
            let name = name.or_else(|| split.then(|| format!("member_{i}")));
            let Some(count) = slot.split else {
                if let Some(d) = d {
                    self.module.member_decorations.insert((id, slot.first), d);
                }
                if let Some(name) = name {
                    self.module.member_names.insert((id, slot.first), name);
                }
                continue;
            };
            let size = size_and_align(self.module, storage[slot.first as usize])?.0;
            let base = name.unwrap_or_else(|| format!("member_{i}"));
            for lane in 0..count {
                let mut d = d.clone().unwrap_or_default();
                d.offset = d.offset.map(|offset| offset + lane * size);
                self.module.member_decorations.insert((id, slot.first + lane), d);
                self.module.member_names.insert((id, slot.first + lane), format!("{base}_{}", LANES[lane as usize]));
            }
        }
        if split {
            self.slots.insert(id, slots);
        }
        Ok(id)
    }

    fn array_storage(
        &mut self,
        ty: Id,
        element: Id,
        length: Option<Id>,
        matrix: Option<MatrixLayout>,
        scalar: bool,
        at: &Location,
    ) -> Result<Id, Error> {
        let mut element_storage = self.storage_type(element, matrix, scalar, at)?;
        let mut natural = natural_stride(self.module, element_storage)?;
        let stride = self.module.decorations(ty).array_stride.unwrap_or(natural);
        let mut align = size_and_align(self.module, element_storage)?.1;
        if !scalar && (stride < natural || !stride.is_multiple_of(align)) {
            // Elements closer together than WGSL places them may fit as arrays of components.
            element_storage = self.storage_type(element, matrix, true, at)?;
            natural = natural_stride(self.module, element_storage)?;
            align = size_and_align(self.module, element_storage)?.1;
        }
        if stride == natural && element_storage == element {
            return Ok(ty);
        }
        if stride == natural {
            return Ok(self.array(element_storage, length, stride, ty, Kind::Array { wrapped: false }));
        }
        if stride < natural || !stride.is_multiple_of(align) {
            return Err(Error::unsupported(
                format!(
                    "an array stride of {stride} bytes, where WGSL needs at least {natural} and a multiple of {align} for its elements"
                ),
                at.clone(),
            ));
        }
        let wrapper = self.wrapper(element_storage, stride);
        Ok(self.array(wrapper, length, stride, ty, Kind::Array { wrapped: true }))
    }

    fn matrix_storage(
        &mut self,
        ty: Id,
        column: Id,
        columns: u32,
        matrix: Option<MatrixLayout>,
        scalar: bool,
        at: &Location,
    ) -> Result<Id, Error> {
        let Some(MatrixLayout { stride, row_major }) = matrix else {
            return Ok(ty);
        };
        let (component, rows) = self
            .module
            .scalar_of(column)
            .ok_or_else(|| Error::invalid("a matrix column that is not a vector", at.clone()))?;
        // The vectors laid out one after another: columns, or rows when row-major.
        let (line, lines) = if row_major {
            (self.module.intern_type(Type::Vector { component, count: columns }), rows)
        } else {
            (column, columns)
        };
        let line_storage = self.storage_type(line, None, scalar, at)?;
        let natural = natural_stride(self.module, line_storage)?;
        let stride = stride.unwrap_or(natural);
        if stride == natural && line_storage == line {
            if !row_major {
                return Ok(ty);
            }
            return Ok(self.new_type(Type::Matrix { column: line, columns: lines }, ty, Kind::Transposed));
        }
        let (size, align) = size_and_align(self.module, line_storage)?;
        if stride < size || !stride.is_multiple_of(align) {
            if !scalar {
                // Lines closer together than WGSL places vectors may fit as arrays of components.
                return self.matrix_storage(ty, column, columns, matrix, true, at);
            }
            return Err(Error::unsupported(
                format!(
                    "a matrix stride of {stride} bytes, where WGSL needs at least {size} and a multiple of {align}"
                ),
                at.clone(),
            ));
        }
        let wrapped = stride != natural;
        let element = if wrapped { self.wrapper(line_storage, stride) } else { line_storage };
        let length = self.constant(lines);
        Ok(self.array(element, Some(length), stride, ty, Kind::Lines { row_major, wrapped }))
    }
}

/// Rewriting the accesses of one function.
impl Layouts<'_> {
    fn rewrite_function(&mut self, f: usize, adapted: &HashMap<Id, Id>) -> Result<(), Error> {
        let mut places: HashMap<Id, Place> = HashMap::new();
        for b in 0..self.module.functions[f].blocks.len() {
            self.block = b;
            let old = std::mem::take(&mut self.module.functions[f].blocks[b].insts);
            let mut out = Vec::with_capacity(old.len());
            for index in old {
                self.rewrite(f, index, adapted, &mut places, &mut out)?;
            }
            self.module.functions[f].blocks[b].insts = out;
        }
        // Terminators and merges must not use the pointers either (a returned pointer).
        let function = &self.module.functions[f];
        for block in &function.blocks {
            let inst = &function.insts[block.terminator];
            if inst.id_operands().any(|id| places.contains_key(&id) || adapted.contains_key(&id)) {
                return Err(self.unsupported_use(f, inst));
            }
        }
        Ok(())
    }

    fn unsupported_use(&self, f: usize, inst: &Inst) -> Error {
        Error::unsupported(
            "this use of a pointer into a buffer whose layout WGSL spells differently (not supported yet)",
            self.module.location_of(f, inst),
        )
    }

    /// The place a pointer operand designates, if it is in an adapted buffer.
    fn place_of(&self, id: Id, adapted: &HashMap<Id, Id>, places: &HashMap<Id, Place>) -> Option<Place> {
        if let Some(place) = places.get(&id) {
            return Some(place.clone());
        }
        let value = *adapted.get(&id)?;
        let g = self.module.global_index(id)?;
        let global = &self.module.globals[g];
        Some(Place {
            variable: id,
            class: global.class,
            path: Vec::new(),
            value,
            storage: global.pointee,
            column: None,
            split: None,
        })
    }

    fn rewrite(
        &mut self,
        f: usize,
        index: usize,
        adapted: &HashMap<Id, Id>,
        places: &mut HashMap<Id, Place>,
        out: &mut Vec<usize>,
    ) -> Result<(), Error> {
        let inst = self.module.functions[f].insts[index].clone();
        let base = inst.id(0).and_then(|id| self.place_of(id, adapted, places));
        if inst.op == Op::CopyMemory {
            return self.copy_memory(f, &inst, adapted, places, out, index);
        }
        match (inst.op, base) {
            (Op::AccessChain | Op::InBoundsAccessChain | Op::CopyObject, Some(base)) => {
                let mut place = base;
                for step in inst.id_operands().skip(1) {
                    place = self.step(place, step, &self.module.location_of(f, &inst))?;
                }
                // Dropped: every use builds its own access chain from the variable.
                places.insert(inst.result().unwrap_or_default(), place);
                Ok(())
            }
            (Op::Load, Some(place)) => {
                let result = inst.result().unwrap_or_default();
                self.load(f, out, &place, Some(result))?;
                Ok(())
            }
            (Op::Store, Some(place)) => {
                let value = inst.id(1).unwrap_or_default();
                self.store(f, out, &place, value)
            }
            _ => {
                if inst.id_operands().any(|id| places.contains_key(&id) || adapted.contains_key(&id)) {
                    if matches!(inst.op, Op::Select | Op::Phi) {
                        return self.choose_places(f, &inst, adapted, places, out);
                    }
                    // Anything else needs the pointer itself: only where the storage is the value.
                    let keeps_pointer = self.keeps_pointer(&inst);
                    let mut operands = inst.operands.clone();
                    for operand in operands.iter_mut() {
                        let Operand::IdRef(id) = operand else {
                            continue;
                        };
                        let Some(place) = self.place_of(*id, adapted, places) else {
                            continue;
                        };
                        let moved = place.column.is_some() || place.split.is_some();
                        if moved || (place.storage != place.value && !keeps_pointer) {
                            return Err(self.unsupported_use(f, &inst));
                        }
                        *id = self.access_chain(f, out, &place.variable, place.class, &place.path, place.storage);
                    }
                    // Pointers compared must still be of one type.
                    if matches!(inst.op, Op::PtrEqual | Op::PtrNotEqual | Op::PtrDiff) {
                        let types: Vec<Option<Id>> = (operands.iter())
                            .filter_map(|operand| if let Operand::IdRef(id) = operand { Some(*id) } else { None })
                            .map(|id| self.module.value_type(id))
                            .collect();
                        if types.windows(2).any(|pair| pair[0] != pair[1]) {
                            return Err(self.unsupported_use(f, &inst));
                        }
                    }
                    self.module.functions[f].insts[index].operands = operands;
                }
                out.push(index);
                Ok(())
            }
        }
    }

    /// A pointer-typed OpSelect or OpPhi choosing among places in adapted buffers: among pointers
    /// to their storage types instead (built where each option is at hand: for a phi, at the end
    /// of the predecessor it comes from, which must come first), the result a place at the
    /// chosen pointer. The options must have one storage type; an `OpUndef` among them (from
    /// spirv-opt's merge-return) is one of the storage pointer type, or, selected, no option.
    fn choose_places(
        &mut self,
        f: usize,
        inst: &Inst,
        adapted: &HashMap<Id, Id>,
        places: &mut HashMap<Id, Place>,
        out: &mut Vec<usize>,
    ) -> Result<(), Error> {
        let chosen: Vec<(Id, Option<Id>)> = match inst.op {
            Op::Select => inst.id_operands().skip(1).map(|id| (id, None)).collect(),
            _ => inst.phi_incoming().map(|(id, parent)| (id, Some(parent))).collect(),
        };
        // Each option's place (none for an OpUndef) and, for a phi, the predecessor it comes from.
        let mut options = Vec::with_capacity(chosen.len());
        for (id, parent) in chosen {
            let place = match self.module.is_undef(id) {
                true => None,
                false => Some(self.place_of(id, adapted, places).ok_or_else(|| self.unsupported_use(f, inst))?),
            };
            options.push((place, parent));
        }
        let mut defined = options.iter().filter_map(|(place, _)| place.as_ref());
        let place = defined.next().cloned().ok_or_else(|| self.unsupported_use(f, inst))?;
        let result = inst.result().unwrap_or_default();
        if inst.op == Op::Select && defined.next().is_none() {
            places.insert(result, place);
            return Ok(());
        }
        let ty = self.module.intern_type(Type::Pointer { class: place.class, pointee: place.storage });
        let mut operands = Vec::with_capacity(2 * options.len());
        for (option, parent) in options {
            if let Some(option) = &option {
                let same = (option.class, option.value, option.storage) == (place.class, place.value, place.storage);
                if !same || option.column.is_some() || option.split.is_some() {
                    return Err(self.unsupported_use(f, inst));
                }
            }
            let pointer = match parent {
                None => self.storage_pointer(f, out, option.as_ref(), ty),
                Some(parent) => {
                    // Only a predecessor already rewritten takes a new instruction as it is.
                    let b = (self.module.functions[f].blocks[..self.block].iter())
                        .position(|block| block.label == parent)
                        .ok_or_else(|| self.unsupported_use(f, inst))?;
                    let mut at_end = std::mem::take(&mut self.module.functions[f].blocks[b].insts);
                    let pointer = self.storage_pointer(f, &mut at_end, option.as_ref(), ty);
                    self.module.functions[f].blocks[b].insts = at_end;
                    pointer
                }
            };
            operands.push(pointer);
            operands.extend(parent);
        }
        let operands = match inst.op {
            Op::Select => [vec![inst.id(0).unwrap_or_default()], operands].concat(),
            _ => operands,
        };
        let pointer = self.push(f, out, inst.op, Some(ty), operands, None);
        places.insert(result, Place { variable: pointer, path: Vec::new(), ..place });
        Ok(())
    }

    /// A pointer of type `ty` to the storage type at `place`, or an `OpUndef` of it.
    fn storage_pointer(&mut self, f: usize, out: &mut Vec<usize>, place: Option<&Place>, ty: Id) -> Id {
        match place {
            Some(place) => self.access_chain(f, out, &place.variable, place.class, &place.path, place.storage),
            None => self.push(f, out, Op::Undef, Some(ty), Vec::new(), None),
        }
    }

    /// OpCopyMemory with a side in an adapted buffer: a load of the value from the source and a
    /// store of it to the target, each converting between the value and the storage type.
    fn copy_memory(
        &mut self,
        f: usize,
        inst: &Inst,
        adapted: &HashMap<Id, Id>,
        places: &HashMap<Id, Place>,
        out: &mut Vec<usize>,
        index: usize,
    ) -> Result<(), Error> {
        let (Some(target), Some(source)) = (inst.id(0), inst.id(1)) else {
            return Err(Error::invalid("OpCopyMemory without a target and a source", self.module.location_of(f, inst)));
        };
        let (target_place, source_place) =
            (self.place_of(target, adapted, places), self.place_of(source, adapted, places));
        if target_place.is_none() && source_place.is_none() {
            out.push(index);
            return Ok(());
        }
        let value = match source_place {
            Some(place) => self.load(f, out, &place, None)?,
            None => {
                let pointee = match self.module.type_of(source).map(|ty| self.module.type_def(ty)) {
                    Ok(Some(Type::Pointer { pointee, .. })) => *pointee,
                    _ => {
                        return Err(Error::invalid(
                            "OpCopyMemory from a non-pointer",
                            self.module.location_of(f, inst),
                        ));
                    }
                };
                self.push(f, out, Op::Load, Some(pointee), vec![source], None)
            }
        };
        match target_place {
            Some(place) => self.store(f, out, &place, value),
            None => {
                self.push(f, out, Op::Store, None, vec![target, value], None);
                Ok(())
            }
        }
    }

    /// Instructions that take a pointer to a storage type as is: the array length of a runtime
    /// array member, atomics (whose integers are never adapted), and pointer comparisons (of
    /// places, whichever type they have).
    fn keeps_pointer(&self, inst: &Inst) -> bool {
        matches!(inst.op, Op::ArrayLength | Op::PtrEqual | Op::PtrNotEqual | Op::PtrDiff)
            || crate::passes::atomics::is_atomic(inst.op)
    }

    /// The place one access-chain index further.
    fn step(&mut self, place: Place, index: Id, at: &Location) -> Result<Place, Error> {
        let mut next = place.clone();
        if let Some(split) = place.split {
            // A component of a split vector: its own member, or one chosen at run time.
            next.value = self
                .part(place.value, index)
                .ok_or_else(|| Error::invalid("access chain into a scalar", at.clone()))?;
            next.storage = next.value;
            match self.module.const_u32(index) {
                Some(lane) if lane < split.count => {
                    next.path.push(self.constant(split.first + lane));
                    next.split = None;
                }
                _ => next.split = Some(SplitVector { lane: Some(index), ..split }),
            }
            return Ok(next);
        }
        if let Some((matrix, column)) = place.column {
            // A row of a column of a row-major matrix: the element, at [row][column] in storage.
            let kind = self.kinds.get(&matrix).copied();
            next.path.push(index);
            if kind == Some(Kind::Lines { row_major: true, wrapped: true }) {
                next.path.push(self.constant(0));
            }
            next.path.push(column);
            next.column = None;
            next.value = self
                .part(place.value, index)
                .ok_or_else(|| Error::invalid("access chain into a scalar", at.clone()))?;
            next.storage = next.value;
            return Ok(next);
        }
        let value =
            self.part(place.value, index).ok_or_else(|| Error::invalid("access chain into a scalar", at.clone()))?;
        next.value = value;
        match self.kinds.get(&place.storage).copied() {
            None => {
                next.path.push(index);
                next.storage = value;
            }
            Some(Kind::Struct) => {
                let slot = self.module.const_u32(index).and_then(|i| self.slots.get(&place.storage)?.get(i as usize));
                match slot.copied() {
                    None => {
                        next.path.push(index);
                        next.storage = self.part(place.storage, index).unwrap_or(value);
                    }
                    Some(Slot { first, split: Some(count) }) => {
                        next.split = Some(SplitVector { vector: value, first, count, lane: None });
                        next.storage = value;
                    }
                    Some(Slot { first, split: None }) => {
                        let first = self.constant(first);
                        next.path.push(first);
                        next.storage = self.part(place.storage, first).unwrap_or(value);
                    }
                }
            }
            // An element or a column, inside its wrapper struct where it has one.
            Some(Kind::Array { wrapped } | Kind::Lines { row_major: false, wrapped }) => {
                next.path.push(index);
                let mut element = self.part(place.storage, index).unwrap_or(value);
                if wrapped {
                    let zero = self.constant(0);
                    next.path.push(zero);
                    element = self.part(element, zero).unwrap_or(value);
                }
                next.storage = element;
            }
            Some(Kind::Transposed | Kind::Lines { row_major: true, .. }) => {
                next.column = Some((place.storage, index));
                next.storage = value;
            }
            Some(Kind::Components) => {
                next.path.push(index);
                next.storage = value;
            }
        }
        Ok(next)
    }

    /// The type of the part of composite type `ty` that `index` selects.
    fn part(&self, ty: Id, index: Id) -> Option<Id> {
        Some(match self.module.ty(ty).ok()? {
            Type::Struct { members } => *members.get(self.module.const_u32(index)? as usize)?,
            Type::Array { element, .. } | Type::RuntimeArray { element } => *element,
            Type::Vector { component, .. } => *component,
            Type::Matrix { column, .. } => *column,
            _ => return None,
        })
    }

    /// Appends an instruction with a fresh result (or `result`), returning its id (0 without a
    /// result type).
    fn push(
        &mut self,
        f: usize,
        out: &mut Vec<usize>,
        op: Op,
        ty: Option<Id>,
        operands: Vec<Id>,
        result: Option<Id>,
    ) -> Id {
        self.module.push_inst(f, out, op, ty, operands, result)
    }

    fn access_chain(
        &mut self,
        f: usize,
        out: &mut Vec<usize>,
        variable: &Id,
        class: StorageClass,
        path: &[Id],
        storage: Id,
    ) -> Id {
        if path.is_empty() {
            return *variable;
        }
        let ty = self.module.intern_type(Type::Pointer { class, pointee: storage });
        let mut operands = vec![*variable];
        operands.extend_from_slice(path);
        self.push(f, out, Op::AccessChain, Some(ty), operands, None)
    }

    fn with_index(&mut self, place: &Place, index: u32) -> Result<Place, Error> {
        let constant = self.constant(index);
        self.step(place.clone(), constant, &Location::default())
    }

    /// The number of parts of a composite value type loaded or stored part by part.
    /// How many parts a whole value of `ty` has, counted against the module's budget.
    fn part_count(&mut self, ty: Id) -> Result<u32, Error> {
        let count = self.parts_of(ty)?;
        self.expanded = self.expanded.saturating_add(count as usize);
        if self.expanded > MAX_EXPANDED_PARTS {
            return Err(Error::unsupported(
                format!(
                    "copying whole values of re-laid-out buffers element by element would take more than \
                     {MAX_EXPANDED_PARTS} parts"
                ),
                Location::default(),
            ));
        }
        Ok(count)
    }

    fn parts_of(&self, ty: Id) -> Result<u32, Error> {
        match self.module.ty(ty)? {
            Type::Struct { members } => Ok(members.len() as u32),
            Type::Array { length, .. } => self
                .module
                .const_u32(*length)
                .ok_or_else(|| Error::unsupported("a specialization-sized array in a buffer", Location::default())),
            Type::Matrix { columns, .. } => Ok(*columns),
            Type::Vector { count, .. } => Ok(*count),
            _ => Err(Error::unsupported("copying a whole runtime array", Location::default())),
        }
    }

    /// Loads the value at `place`, defining `result` (or a fresh id) as it.
    fn load(&mut self, f: usize, out: &mut Vec<usize>, place: &Place, result: Option<Id>) -> Result<Id, Error> {
        if let Some(split @ SplitVector { lane: Some(lane), .. }) = place.split {
            let whole =
                Place { value: split.vector, split: Some(SplitVector { lane: None, ..split }), ..place.clone() };
            let vector = self.load(f, out, &whole, None)?;
            return Ok(self.push(f, out, Op::VectorExtractDynamic, Some(place.value), vec![vector, lane], result));
        }
        if place.split.is_none() && place.column.is_none() && place.storage == place.value {
            let pointer = self.access_chain(f, out, &place.variable, place.class, &place.path, place.storage);
            return Ok(self.push(f, out, Op::Load, Some(place.value), vec![pointer], result));
        }
        if place.column.is_none() && self.kinds.get(&place.storage) == Some(&Kind::Transposed) {
            let pointer = self.access_chain(f, out, &place.variable, place.class, &place.path, place.storage);
            let transposed = self.push(f, out, Op::Load, Some(place.storage), vec![pointer], None);
            return Ok(self.push(f, out, Op::Transpose, Some(place.value), vec![transposed], result));
        }
        let mut parts = Vec::new();
        for i in 0..self.part_count(place.value)? {
            let part = self.with_index(place, i)?;
            parts.push(self.load(f, out, &part, None)?);
        }
        Ok(self.push(f, out, Op::CompositeConstruct, Some(place.value), parts, result))
    }

    /// Stores `value` (of the place's value type) to `place`.
    fn store(&mut self, f: usize, out: &mut Vec<usize>, place: &Place, value: Id) -> Result<(), Error> {
        if place.split.is_some_and(|split| split.lane.is_some()) {
            // Only uniform buffers have split vectors, and nothing stores to them.
            return Err(Error::unsupported("a store to a uniform buffer", Location::default()));
        }
        if place.split.is_none() && place.column.is_none() && place.storage == place.value {
            let pointer = self.access_chain(f, out, &place.variable, place.class, &place.path, place.storage);
            self.push(f, out, Op::Store, None, vec![pointer, value], None);
            return Ok(());
        }
        if place.split.is_none()
            && place.column.is_none()
            && !self.atomic_variables.contains(&place.variable)
            && self.module.is_fixed_zero(value)
            && !has_padding_member(self.module, place.storage)
        {
            // Every part of zero is zero: one zero value of the storage type (`array<Stride16, 4>()`),
            // unless that would write a padding member where SPIR-V writes nothing.
            let pointer = self.access_chain(f, out, &place.variable, place.class, &place.path, place.storage);
            let zero = self.zero(place.storage);
            self.push(f, out, Op::Store, None, vec![pointer, zero], None);
            return Ok(());
        }
        if place.column.is_none() && self.kinds.get(&place.storage) == Some(&Kind::Transposed) {
            let pointer = self.access_chain(f, out, &place.variable, place.class, &place.path, place.storage);
            let transposed = self.push(f, out, Op::Transpose, Some(place.storage), vec![value], None);
            self.push(f, out, Op::Store, None, vec![pointer, transposed], None);
            return Ok(());
        }
        let zero = self.module.is_fixed_zero(value);
        for i in 0..self.part_count(place.value)? {
            let part = self.with_index(place, i)?;
            let extracted = match zero {
                true => self.zero(part.value),
                false => self.module.push_extract(f, out, part.value, value, i),
            };
            self.store(f, out, &part, extracted)?;
        }
        Ok(())
    }
}
