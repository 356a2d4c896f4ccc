//! Matrices in uniform buffers laid out as Vulkan requires: each column where WGSL puts it.
//!
//! Vulkan's uniform buffers (extended alignment, relaxed for vectors) want a matrix's column
//! stride, and a matrix member's offset, to be multiples of 16. WGSL packs a matrix's columns at
//! the column vector's alignment, and naga only adapts two-row matrices: `mat4x3<f16>` has a
//! column stride of 8. Such a matrix is stored as its columns instead, each a vector member at
//! WGSL's offset, which the relaxed rules accept:
//!
//! - in a struct, the matrix member becomes one member per column;
//! - as an array element, the matrix becomes a struct of its columns;
//! - every struct and array holding such a matrix gets a new type for the buffer, and the
//!   variable's struct (with `Block`) is the new one; the old types stay for values.
//!
//! The function bodies follow: an access chain through a moved member picks the column's member
//! instead; a load of a whole matrix loads its columns and builds it; a load of a struct or
//! array of a new type converts the value with a function written for that type; a column picked
//! by a computed index is read from a copy of the matrix in a function variable.
//!
//! Before: naga's module; uniform variables may hold matrices of column strides that are not a
//! multiple of 16. After: they do not, and every value loaded from them is what it was.

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use rspirv::dr::{Block, Function, Instruction, Module, Operand};
use spirv::{Decoration, FunctionControl, Op, StorageClass, Word};

use super::declarations::{self, Scalar};
use super::error::Error;
use super::module_edit::{constant_u32, fresh_id, global_def, pointee};

/// How a type of the buffer is laid out instead.
#[derive(Debug)]
enum Layout {
    /// A struct: its replacement, and where each of the original's members went.
    Struct { original: Word, ty: Word, members: Vec<Member> },
    /// An array whose elements are laid out differently.
    Array { original: Word, ty: Word, length: u32, element: Rc<Layout> },
    /// A matrix as a struct of its columns (as an array element).
    Columns { matrix: Matrix, ty: Word },
}

impl Layout {
    fn ty(&self) -> Word {
        match self {
            Layout::Struct { ty, .. } | Layout::Array { ty, .. } | Layout::Columns { ty, .. } => *ty,
        }
    }

    fn original(&self) -> Word {
        match self {
            Layout::Struct { original, .. } | Layout::Array { original, .. } => *original,
            Layout::Columns { matrix, .. } => matrix.ty,
        }
    }
}

/// A matrix stored as its columns.
#[derive(Debug, Clone, Copy)]
struct Matrix {
    ty: Word,
    columns: u32,
    column_type: Word,
}

#[derive(Debug)]
enum Member {
    /// At `index` of the new struct, laid out differently if `layout` says so.
    Kept { index: u32, layout: Option<Rc<Layout>> },
    /// A matrix whose columns are the members from `first` on.
    Columns { first: u32, matrix: Matrix },
}

pub fn run(module: &mut Module) -> Result<(), Error> {
    let mut rewriter = Rewriter { layouts: HashMap::new(), conversions: HashMap::new(), new_functions: Vec::new() };
    let mut variables = HashMap::new();
    for at in 0..module.types_global_values.len() {
        let inst = &module.types_global_values[at];
        if inst.class.opcode != Op::Variable
            || inst.operands.first() != Some(&Operand::StorageClass(StorageClass::Uniform))
        {
            continue;
        }
        let (Some(variable), Some(pointer)) = (inst.result_id, inst.result_type) else { continue };
        let Some(pointee) = pointee(module, pointer) else { continue };
        let Some(layout) = rewriter.layout(module, pointee, None)? else { continue };
        move_block_decoration(module, pointee, layout.ty());
        let new_pointer = pointer_type(module, StorageClass::Uniform, layout.ty())?;
        if let Some(inst) = module.types_global_values.iter_mut().find(|inst| inst.result_id == Some(variable)) {
            inst.result_type = Some(new_pointer);
        }
        variables.insert(variable, Walk { base: variable, prefix: Vec::new(), at: Position::Laid(layout) });
    }
    if variables.is_empty() {
        return Ok(());
    }
    for index in 0..module.functions.len() {
        rewriter.function(module, index, &variables)?;
    }
    module.functions.append(&mut rewriter.new_functions);
    declarations::sort(module);
    Ok(())
}

/// Where a pointer into a rewritten variable points: `base` followed by `prefix` (of the new
/// layout) reaches `at`.
#[derive(Debug, Clone)]
struct Walk {
    base: Word,
    prefix: Vec<Word>,
    at: Position,
}

/// An access chain into a rewritten variable: its indices (of the original layout), result and
/// result's pointee type.
struct Chain {
    indices: Vec<Word>,
    result: Word,
    pointee: Word,
}

#[derive(Debug, Clone)]
enum Position {
    /// A value of a type laid out differently.
    Laid(Rc<Layout>),
    /// A value of an unchanged type.
    Same,
    /// A matrix whose columns are the members from `first` on of what `base` + `prefix` reaches.
    Columns { first: u32, matrix: Matrix },
}

struct Rewriter {
    /// Each type's layout in the buffer (by type and the matrix stride its member declares).
    layouts: HashMap<(Word, Option<u32>), Option<Rc<Layout>>>,
    /// The function converting each new type to its original, by new type.
    conversions: HashMap<Word, Word>,
    new_functions: Vec<Function>,
}

impl Rewriter {
    /// The layout of `ty` in the buffer, if it differs (`stride`: the `MatrixStride` of the
    /// member holding it).
    fn layout(&mut self, module: &mut Module, ty: Word, stride: Option<u32>) -> Result<Option<Rc<Layout>>, Error> {
        if let Some(known) = self.layouts.get(&(ty, stride)) {
            return Ok(known.clone());
        }
        let inst = global_def(module, ty).cloned().ok_or_else(|| Error::internal(format!("%{ty} is not a type")))?;
        let layout = match inst.class.opcode {
            Op::TypeStruct => self.struct_layout(module, ty, &inst)?,
            Op::TypeArray => {
                let element = id_operand(&inst, 0)?;
                let element_layout = match (matrix(module, element), stride) {
                    (Some(matrix), Some(stride)) if stride % 16 != 0 => Some(columns_struct(module, matrix, stride)?),
                    _ => self.layout(module, element, stride)?,
                };
                match element_layout {
                    None => None,
                    Some(element) => {
                        let length_id = id_operand(&inst, 1)?;
                        let length = constant_u32(module, length_id)
                            .ok_or_else(|| Error::internal("a uniform array's length is not a constant"))?;
                        let new = fresh_id(module)?;
                        let array = Instruction::new(
                            Op::TypeArray,
                            None,
                            Some(new),
                            vec![Operand::IdRef(element.ty()), Operand::IdRef(length_id)],
                        );
                        module.types_global_values.push(array);
                        copy_decorations(module, ty, new);
                        Some(Rc::new(Layout::Array { original: ty, ty: new, length, element }))
                    }
                }
            }
            _ => None,
        };
        self.layouts.insert((ty, stride), layout.clone());
        Ok(layout)
    }

    fn struct_layout(
        &mut self,
        module: &mut Module,
        ty: Word,
        inst: &Instruction,
    ) -> Result<Option<Rc<Layout>>, Error> {
        let member_types: Vec<Word> = inst.operands.iter().filter_map(Operand::id_ref_any).collect();
        let mut members = Vec::new();
        let mut new_types = Vec::new();
        let mut changed = false;
        for (i, &member) in member_types.iter().enumerate() {
            let stride = member_decoration(module, ty, i as u32, Decoration::MatrixStride);
            let index = new_types.len() as u32;
            match (matrix(module, member), stride) {
                (Some(matrix), Some(stride)) if stride % 16 != 0 => {
                    changed = true;
                    new_types.extend(std::iter::repeat_n(matrix.column_type, matrix.columns as usize));
                    members.push(Member::Columns { first: index, matrix });
                }
                _ => {
                    let layout = self.layout(module, member, stride)?;
                    changed |= layout.is_some();
                    new_types.push(layout.as_ref().map_or(member, |l| l.ty()));
                    members.push(Member::Kept { index, layout });
                }
            }
        }
        if !changed {
            return Ok(None);
        }
        let new = fresh_id(module)?;
        module.types_global_values.push(Instruction::new(
            Op::TypeStruct,
            None,
            Some(new),
            new_types.into_iter().map(Operand::IdRef).collect(),
        ));
        // Member decorations and names follow the members; a matrix's columns take its offset.
        let mut added = Vec::new();
        for inst in module.annotations.iter().filter(|inst| {
            inst.class.opcode == Op::MemberDecorate && inst.operands.first() == Some(&Operand::IdRef(ty))
        }) {
            let Some(&Operand::LiteralBit32(member)) = inst.operands.get(1) else { continue };
            match &members[member as usize] {
                // An array of matrices stored as columns holds no matrix any more.
                Member::Kept { layout: Some(layout), .. }
                    if holds_columns(layout)
                        && matches!(
                            inst.operands.get(2),
                            Some(Operand::Decoration(
                                Decoration::MatrixStride | Decoration::ColMajor | Decoration::RowMajor
                            ))
                        ) => {}
                Member::Kept { index, .. } => {
                    let mut copy = inst.clone();
                    copy.operands[0] = Operand::IdRef(new);
                    copy.operands[1] = Operand::LiteralBit32(*index);
                    added.push(copy);
                }
                Member::Columns { first, matrix } => {
                    if let (Some(Operand::Decoration(Decoration::Offset)), Some(&Operand::LiteralBit32(offset))) =
                        (inst.operands.get(2), inst.operands.get(3))
                    {
                        let stride =
                            member_decoration(module, ty, member, Decoration::MatrixStride).unwrap_or_default();
                        for c in 0..matrix.columns {
                            added.push(member_offset(new, first + c, offset + c * stride));
                        }
                    }
                }
            }
        }
        module.annotations.extend(added);
        Ok(Some(Rc::new(Layout::Struct { original: ty, ty: new, members })))
    }

    /// Rewrites the accesses of function `index` to the rewritten variables.
    fn function(&mut self, module: &mut Module, index: usize, variables: &HashMap<Word, Walk>) -> Result<(), Error> {
        let mut walks = variables.clone();
        let mut copies: HashSet<Word> = HashSet::new();
        let mut spills = Vec::new();
        let blocks = std::mem::take(&mut module.functions[index].blocks);
        let mut rewritten_blocks = Vec::with_capacity(blocks.len());
        for mut block in blocks {
            let mut out = Vec::with_capacity(block.instructions.len());
            for inst in block.instructions.drain(..) {
                let opcode = inst.class.opcode;
                let base = inst.operands.first().and_then(Operand::id_ref_any);
                match (opcode, base) {
                    (Op::AccessChain | Op::InBoundsAccessChain, Some(base)) if walks.contains_key(&base) => {
                        let walk = walks[&base].clone();
                        let chain = Chain {
                            indices: inst.operands[1..].iter().filter_map(Operand::id_ref_any).collect(),
                            result: inst.result_id.unwrap_or_default(),
                            pointee: inst.result_type.and_then(|p| pointee(module, p)).unwrap_or_default(),
                        };
                        let result = chain.result;
                        match self.chain(module, walk, &chain, &mut out, &mut spills)? {
                            Some(walk) => {
                                walks.insert(result, walk);
                            }
                            None => {
                                copies.insert(result);
                            }
                        }
                    }
                    (Op::AccessChain | Op::InBoundsAccessChain, Some(base)) if copies.contains(&base) => {
                        // A chain into a copy: a function variable's pointer.
                        let mut inst = inst;
                        let pointee = inst.result_type.and_then(|p| pointee(module, p)).unwrap_or_default();
                        inst.result_type = Some(pointer_type(module, StorageClass::Function, pointee)?);
                        copies.insert(inst.result_id.unwrap_or_default());
                        out.push(inst);
                    }
                    (Op::Load, Some(pointer)) if walks.contains_key(&pointer) => {
                        let walk = walks[&pointer].clone();
                        let result = inst.result_id.unwrap_or_default();
                        let ty = inst.result_type.unwrap_or_default();
                        self.load(module, &walk, ty, result, &mut out)?;
                    }
                    _ => {
                        let uses =
                            inst.operands.iter().filter_map(Operand::id_ref_any).any(|id| {
                                walks.get(&id).is_some_and(|w| !matches!(w.at, Position::Same) || w.base != id)
                            });
                        if uses {
                            return Err(Error::internal(format!(
                                "Op{opcode:?} uses a pointer into a uniform buffer whose layout changed"
                            )));
                        }
                        out.push(inst);
                    }
                }
            }
            block.instructions = out;
            rewritten_blocks.push(block);
        }
        if let Some(first) = rewritten_blocks.first_mut() {
            let at = first.instructions.iter().take_while(|inst| inst.class.opcode == Op::Variable).count();
            first.instructions.splice(at..at, spills);
        }
        module.functions[index].blocks = rewritten_blocks;
        Ok(())
    }

    /// An access chain from `walk` by `indices`, the instruction with result `result` (to a
    /// `pointee` in the original layout). Returns where the result points, or `None` when it
    /// points into a copy in a function variable.
    fn chain(
        &mut self,
        module: &mut Module,
        walk: Walk,
        chain: &Chain,
        out: &mut Vec<Instruction>,
        spills: &mut Vec<Instruction>,
    ) -> Result<Option<Walk>, Error> {
        let Chain { indices, result, pointee } = chain;
        let (indices, result, pointee) = (indices.as_slice(), *result, *pointee);
        let Walk { base, mut prefix, mut at } = walk;
        let mut position = 0;
        while position < indices.len() {
            let index = indices[position];
            at = match at {
                Position::Same => {
                    prefix.extend_from_slice(&indices[position..]);
                    position = indices.len();
                    Position::Same
                }
                Position::Laid(layout) => match &*layout {
                    Layout::Struct { members, .. } => {
                        let member = constant_u32(module, index)
                            .ok_or_else(|| Error::internal("a struct member picked by a computed index"))?;
                        match &members[member as usize] {
                            Member::Kept { index, layout } => {
                                prefix.push(uint_constant(module, *index)?);
                                layout.clone().map_or(Position::Same, Position::Laid)
                            }
                            Member::Columns { first, matrix } => Position::Columns { first: *first, matrix: *matrix },
                        }
                    }
                    Layout::Array { element, .. } => {
                        prefix.push(index);
                        match &**element {
                            Layout::Columns { matrix, .. } => Position::Columns { first: 0, matrix: *matrix },
                            _ => Position::Laid(element.clone()),
                        }
                    }
                    Layout::Columns { .. } => return Err(Error::internal("a column struct reached without its array")),
                },
                Position::Columns { first, matrix } => match constant_u32(module, index) {
                    Some(column) => {
                        prefix.push(uint_constant(module, first + column)?);
                        Position::Same
                    }
                    None => {
                        // A computed column: the matrix copied into a function variable.
                        let walk = Walk { base, prefix: prefix.clone(), at: Position::Columns { first, matrix } };
                        let value = fresh_id(module)?;
                        self.load(module, &walk, matrix.ty, value, out)?;
                        let copy_pointer = pointer_type(module, StorageClass::Function, matrix.ty)?;
                        let copy = fresh_id(module)?;
                        spills.push(Instruction::new(
                            Op::Variable,
                            Some(copy_pointer),
                            Some(copy),
                            vec![Operand::StorageClass(StorageClass::Function)],
                        ));
                        out.push(Instruction::new(
                            Op::Store,
                            None,
                            None,
                            vec![Operand::IdRef(copy), Operand::IdRef(value)],
                        ));
                        let result_pointer = pointer_type(module, StorageClass::Function, pointee)?;
                        let mut operands = vec![Operand::IdRef(copy)];
                        operands.extend(indices[position..].iter().map(|&i| Operand::IdRef(i)));
                        out.push(Instruction::new(Op::AccessChain, Some(result_pointer), Some(result), operands));
                        return Ok(None);
                    }
                },
            };
            position += 1;
        }
        if let Position::Columns { .. } = at {
            // A pointer to a matrix stored as columns: nothing to point at; its loads load them.
            return Ok(Some(Walk { base, prefix, at }));
        }
        let target = match &at {
            Position::Laid(layout) => layout.ty(),
            _ => pointee,
        };
        let pointer = pointer_type(module, StorageClass::Uniform, target)?;
        let mut operands = vec![Operand::IdRef(base)];
        operands.extend(prefix.iter().map(|&i| Operand::IdRef(i)));
        out.push(Instruction::new(Op::AccessChain, Some(pointer), Some(result), operands));
        Ok(Some(Walk { base: result, prefix: Vec::new(), at }))
    }

    /// A load through `walk` of a value of the original type `ty` into `result`.
    fn load(
        &mut self,
        module: &mut Module,
        walk: &Walk,
        ty: Word,
        result: Word,
        out: &mut Vec<Instruction>,
    ) -> Result<(), Error> {
        match &walk.at {
            Position::Same => {
                let pointer = self.materialize(module, walk, ty, out)?;
                out.push(Instruction::new(Op::Load, Some(ty), Some(result), vec![Operand::IdRef(pointer)]));
            }
            Position::Laid(layout) => {
                let pointer = self.materialize(module, walk, layout.ty(), out)?;
                let value = fresh_id(module)?;
                out.push(Instruction::new(Op::Load, Some(layout.ty()), Some(value), vec![Operand::IdRef(pointer)]));
                let function = self.conversion(module, layout)?;
                out.push(Instruction::new(
                    Op::FunctionCall,
                    Some(ty),
                    Some(result),
                    vec![Operand::IdRef(function), Operand::IdRef(value)],
                ));
            }
            Position::Columns { first, matrix } => {
                let column_pointer = pointer_type(module, StorageClass::Uniform, matrix.column_type)?;
                let mut columns = Vec::new();
                for c in 0..matrix.columns {
                    let pointer = fresh_id(module)?;
                    let mut operands = vec![Operand::IdRef(walk.base)];
                    operands.extend(walk.prefix.iter().map(|&i| Operand::IdRef(i)));
                    operands.push(Operand::IdRef(uint_constant(module, first + c)?));
                    out.push(Instruction::new(Op::AccessChain, Some(column_pointer), Some(pointer), operands));
                    let column = fresh_id(module)?;
                    out.push(Instruction::new(
                        Op::Load,
                        Some(matrix.column_type),
                        Some(column),
                        vec![Operand::IdRef(pointer)],
                    ));
                    columns.push(Operand::IdRef(column));
                }
                out.push(Instruction::new(Op::CompositeConstruct, Some(matrix.ty), Some(result), columns));
            }
        }
        Ok(())
    }

    /// A pointer (to a `pointee`) for `walk`: its base, or an access chain when it has a prefix.
    fn materialize(
        &mut self,
        module: &mut Module,
        walk: &Walk,
        pointee: Word,
        out: &mut Vec<Instruction>,
    ) -> Result<Word, Error> {
        if walk.prefix.is_empty() {
            return Ok(walk.base);
        }
        let pointer = pointer_type(module, StorageClass::Uniform, pointee)?;
        let id = fresh_id(module)?;
        let mut operands = vec![Operand::IdRef(walk.base)];
        operands.extend(walk.prefix.iter().map(|&i| Operand::IdRef(i)));
        out.push(Instruction::new(Op::AccessChain, Some(pointer), Some(id), operands));
        Ok(id)
    }

    /// The function converting a value of `layout`'s new type to its original type.
    fn conversion(&mut self, module: &mut Module, layout: &Rc<Layout>) -> Result<Word, Error> {
        if let Some(&function) = self.conversions.get(&layout.ty()) {
            return Ok(function);
        }
        let function_type = declarations::type_id(
            module,
            Op::TypeFunction,
            vec![Operand::IdRef(layout.original()), Operand::IdRef(layout.ty())],
        )?;
        let (function, parameter, label) = (fresh_id(module)?, fresh_id(module)?, fresh_id(module)?);
        let mut body = Vec::new();
        let value = self.convert(module, layout, parameter, &mut body)?;
        body.push(Instruction::new(Op::ReturnValue, None, None, vec![Operand::IdRef(value)]));
        let mut converter = Function::new();
        converter.def = Some(Instruction::new(
            Op::Function,
            Some(layout.original()),
            Some(function),
            vec![Operand::FunctionControl(FunctionControl::NONE), Operand::IdRef(function_type)],
        ));
        converter.parameters.push(Instruction::new(
            Op::FunctionParameter,
            Some(layout.ty()),
            Some(parameter),
            Vec::new(),
        ));
        converter.blocks.push(Block {
            label: Some(Instruction::new(Op::Label, None, Some(label), Vec::new())),
            instructions: body,
        });
        converter.end = Some(Instruction::new(Op::FunctionEnd, None, None, Vec::new()));
        self.new_functions.push(converter);
        self.conversions.insert(layout.ty(), function);
        Ok(function)
    }

    /// Instructions converting `value` (of `layout`'s new type) to the original type; returns
    /// the converted value.
    fn convert(
        &mut self,
        module: &mut Module,
        layout: &Layout,
        value: Word,
        body: &mut Vec<Instruction>,
    ) -> Result<Word, Error> {
        let mut parts = Vec::new();
        match layout {
            Layout::Struct { original, members, .. } => {
                let member_types: Vec<Word> = global_def(module, *original)
                    .map(|inst| inst.operands.iter().filter_map(Operand::id_ref_any).collect())
                    .unwrap_or_default();
                for (member, ty) in members.iter().zip(member_types) {
                    let part = match member {
                        Member::Kept { index, layout } => {
                            let new_ty = layout.as_ref().map_or(ty, |l| l.ty());
                            let extracted = extract(module, new_ty, value, &[*index], body)?;
                            match layout {
                                Some(layout) => self.convert(module, layout, extracted, body)?,
                                None => extracted,
                            }
                        }
                        Member::Columns { first, matrix } => columns_to_matrix(module, *matrix, value, *first, body)?,
                    };
                    parts.push(part);
                }
            }
            Layout::Array { length, element, .. } => {
                for i in 0..*length {
                    let extracted = extract(module, element.ty(), value, &[i], body)?;
                    parts.push(self.convert(module, element, extracted, body)?);
                }
            }
            Layout::Columns { matrix, .. } => return columns_to_matrix(module, *matrix, value, 0, body),
        }
        let result = fresh_id(module)?;
        body.push(Instruction::new(
            Op::CompositeConstruct,
            Some(layout.original()),
            Some(result),
            parts.into_iter().map(Operand::IdRef).collect(),
        ));
        Ok(result)
    }
}

/// Whether `layout` is an array (of arrays) of matrices stored as columns.
fn holds_columns(layout: &Layout) -> bool {
    match layout {
        Layout::Array { element, .. } => holds_columns(element),
        Layout::Columns { .. } => true,
        Layout::Struct { .. } => false,
    }
}

/// The matrix from the columns at members `first..` of the struct `value`.
fn columns_to_matrix(
    module: &mut Module,
    matrix: Matrix,
    value: Word,
    first: u32,
    body: &mut Vec<Instruction>,
) -> Result<Word, Error> {
    let mut columns = Vec::new();
    for c in 0..matrix.columns {
        columns.push(Operand::IdRef(extract(module, matrix.column_type, value, &[first + c], body)?));
    }
    let result = fresh_id(module)?;
    body.push(Instruction::new(Op::CompositeConstruct, Some(matrix.ty), Some(result), columns));
    Ok(result)
}

fn extract(
    module: &mut Module,
    ty: Word,
    value: Word,
    path: &[u32],
    body: &mut Vec<Instruction>,
) -> Result<Word, Error> {
    let id = fresh_id(module)?;
    let mut operands = vec![Operand::IdRef(value)];
    operands.extend(path.iter().map(|&i| Operand::LiteralBit32(i)));
    body.push(Instruction::new(Op::CompositeExtract, Some(ty), Some(id), operands));
    Ok(id)
}

/// A matrix as a struct of its columns, `stride` bytes apart (an array element).
fn columns_struct(module: &mut Module, matrix: Matrix, stride: u32) -> Result<Rc<Layout>, Error> {
    let ty = fresh_id(module)?;
    let members = vec![Operand::IdRef(matrix.column_type); matrix.columns as usize];
    module.types_global_values.push(Instruction::new(Op::TypeStruct, None, Some(ty), members));
    for c in 0..matrix.columns {
        module.annotations.push(member_offset(ty, c, c * stride));
    }
    Ok(Rc::new(Layout::Columns { matrix, ty }))
}

fn member_offset(ty: Word, member: u32, offset: u32) -> Instruction {
    Instruction::new(
        Op::MemberDecorate,
        None,
        None,
        vec![
            Operand::IdRef(ty),
            Operand::LiteralBit32(member),
            Operand::Decoration(Decoration::Offset),
            Operand::LiteralBit32(offset),
        ],
    )
}

/// `ty` as a matrix: its column count and column type.
fn matrix(module: &Module, ty: Word) -> Option<Matrix> {
    let inst = global_def(module, ty)?;
    match (inst.class.opcode, inst.operands.as_slice()) {
        (Op::TypeMatrix, &[Operand::IdRef(column_type), Operand::LiteralBit32(columns)]) => {
            Some(Matrix { ty, columns, column_type })
        }
        _ => None,
    }
}

fn member_decoration(module: &Module, ty: Word, member: u32, decoration: Decoration) -> Option<u32> {
    module.annotations.iter().find_map(|inst| match inst.operands.as_slice() {
        [Operand::IdRef(target), Operand::LiteralBit32(m), Operand::Decoration(d), Operand::LiteralBit32(value)]
            if inst.class.opcode == Op::MemberDecorate && *target == ty && *m == member && *d == decoration =>
        {
            Some(*value)
        }
        _ => None,
    })
}

/// Copies `OpDecorate from ...` (an array's stride) to `to`.
fn copy_decorations(module: &mut Module, from: Word, to: Word) {
    let copies: Vec<Instruction> = module
        .annotations
        .iter()
        .filter(|inst| inst.class.opcode == Op::Decorate && inst.operands.first() == Some(&Operand::IdRef(from)))
        .map(|inst| {
            let mut copy = inst.clone();
            copy.operands[0] = Operand::IdRef(to);
            copy
        })
        .collect();
    module.annotations.extend(copies);
}

/// The variable's struct keeps its member layout for values; its replacement is the `Block`.
fn move_block_decoration(module: &mut Module, from: Word, to: Word) {
    for inst in &mut module.annotations {
        if inst.class.opcode == Op::Decorate
            && inst.operands.first() == Some(&Operand::IdRef(from))
            && inst.operands.get(1) == Some(&Operand::Decoration(Decoration::Block))
        {
            inst.operands[0] = Operand::IdRef(to);
        }
    }
}

fn id_operand(inst: &Instruction, index: usize) -> Result<Word, Error> {
    inst.operands
        .get(index)
        .and_then(Operand::id_ref_any)
        .ok_or_else(|| Error::internal(format!("Op{:?} lacks operand {index}", inst.class.opcode)))
}

fn pointer_type(module: &mut Module, class: StorageClass, pointee: Word) -> Result<Word, Error> {
    declarations::type_id(module, Op::TypePointer, vec![Operand::StorageClass(class), Operand::IdRef(pointee)])
}

fn uint_constant(module: &mut Module, value: u32) -> Result<Word, Error> {
    let uint = declarations::scalar_type(module, Scalar::Int { width: 32, signed: false })?;
    declarations::constant(module, Op::Constant, uint, vec![Operand::LiteralBit32(value)])
}
