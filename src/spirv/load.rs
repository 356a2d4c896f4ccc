//! Loading: SPIR-V words to our [`Module`], in one pass over rspirv's instruction stream.
//!
//! rspirv decodes each instruction by the grammar; we check what it trusts (word counts, id
//! bounds, every operand id defined) so that later stages can index without panicking.

use std::collections::{HashMap, HashSet};

use rspirv::binary::{Consumer, ParseAction as Action};
use rspirv::dr::{self, Operand};
use spirv::Op;

use super::module::Operand as Compact;
use super::module::*;
use super::{halves, spec_constant_op};
use crate::error::{Error, Location};

const MAGIC: u32 = 0x0723_0203;
const HEADER_WORDS: usize = 5;

/// Turns bytes into words in host order, checking the magic number in either byte order. Input
/// that is not a SPIR-V module at all (empty, text, another format) says what it is instead.
pub fn words_from_bytes(bytes: &[u8]) -> Result<Vec<u32>, Error> {
    let malformed = |message: String| Error::Malformed { message, location: Location::default() };
    if bytes.is_empty() {
        return Err(malformed("the input is empty".into()));
    }
    if let Some(start) = text_start(bytes) {
        return Err(malformed(format!(
            "not a SPIR-V module: the input is text starting with `{start}`, neither a binary module (which \
             starts with the magic number 0x07230203) nor SPIR-V assembly (which starts with `;`, `%` or an \
             `Op` instruction)"
        )));
    }
    // The magic number first: it tells a file of another kind better than its length does.
    let first_word = (bytes.len() >= 4).then(|| u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]));
    if let Some(word) = first_word.filter(|&word| word != MAGIC && word.swap_bytes() != MAGIC) {
        return Err(malformed(format!("not a SPIR-V module: wrong magic number {word:#010x} (expected 0x07230203)")));
    }
    if bytes.len() < HEADER_WORDS * 4 {
        return Err(malformed(format!("{} bytes is too short for a SPIR-V header (20 bytes)", bytes.len())));
    }
    if !bytes.len().is_multiple_of(4) {
        return Err(malformed(format!(
            "length {} is not a multiple of 4: the file is truncated or not SPIR-V",
            bytes.len()
        )));
    }
    // One loop per byte order, each a plain copy the compiler unrolls: a function chosen at run
    // time was a call per word.
    let words = bytes.chunks_exact(4).map(|c| [c[0], c[1], c[2], c[3]]);
    Ok(match first_word == Some(MAGIC) {
        true => words.map(u32::from_le_bytes).collect(),
        false => words.map(u32::from_be_bytes).collect(),
    })
}

/// The first line of `bytes` (up to 40 characters) if they are text: UTF-8 without control
/// characters other than whitespace, as an HTML error page or a WGSL file is and a binary is not.
fn text_start(bytes: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(bytes).ok()?;
    if text.chars().any(|c| c.is_control() && !c.is_whitespace()) {
        return None;
    }
    let line = text.trim_start().lines().next().unwrap_or_default().trim_end();
    let mut start: String = line.chars().take(40).collect();
    if start.len() < line.len() {
        start.push('…');
    }
    Some(start)
}

/// Builds a module from host-order words whose magic number has been checked.
pub fn load(words: &[u32]) -> Result<Module, Error> {
    load_on(words, false)
}

/// [`load`], reading the second half of a large module's functions on a second thread if
/// `two_threads` (`halves.rs`): the same module, or the same error.
pub fn load_on(words: &[u32], two_threads: bool) -> Result<Module, Error> {
    let (offsets, malformed) = instruction_offsets(words);
    if let Some(error) = malformed {
        return Err(error);
    }
    // Ids index a dense table: refuse bounds no real module has rather than allocate gigabytes.
    let bound = words[3];
    let limit = 16 * words.len() as u64 + 1024;
    if u64::from(bound) > limit {
        return Err(Error::Malformed {
            message: format!("id bound {bound} is implausibly large for a module of {} words", words.len()),
            location: Location::default(),
        });
    }
    let stream = spec_constant_op::parseable(words, &offsets);
    let read = match two_threads.then(|| halves::read_in_halves(words, &stream, &offsets)).flatten() {
        Some(read) => read,
        None => read(words, &stream, &offsets)?,
    };
    let mut module = read.module;
    for group in &read.decoration_groups {
        module.decorations.remove(group);
        module.names.remove(group);
    }
    check_operands(&module)?;
    Ok(module)
}

/// A module as read from an instruction stream, before the checks that need all of it.
pub(super) struct Read {
    pub(super) module: Module,
    /// Results of OpDecorationGroup: their decorations and names go once the module is read.
    decoration_groups: HashSet<Id>,
}

/// Reads the instructions of `words` at `offsets`, which rspirv parses as `stream` (`words` with
/// each OpSpecConstantOp standing in as something it can parse, or some of those instructions
/// only: `halves.rs`).
pub(super) fn read(words: &[u32], stream: &[u32], offsets: &[u32]) -> Result<Read, Error> {
    match read_part(words, stream, offsets)? {
        (read, None) => Ok(read),
        (_, Some(_)) => Err(Error::Malformed {
            message: "the module ends inside a function (no OpFunctionEnd)".into(),
            location: Location::default(),
        }),
    }
}

/// A list for `len` items with room for the bitcasts the signedness pass adds after loading, an
/// instruction and an id each: integer code that mixes signedness needs about one in ten. Without
/// it, the first cast moved a function's instructions, and the first new id the table of
/// definitions, to lists twice as long while the old ones were still held (mixed 25 MB: the pass
/// raised the command's resident set from 190 to 226 MiB, its peak; to 215 with the room). Where
/// the list is large, the room is only address space until used.
fn with_room_for_casts<T>(len: usize) -> Vec<T> {
    Vec::with_capacity(len + len / 8)
}

/// [`read`], where the instructions may end inside a function: then with the indices of that
/// function and of its open block, if one is (`halves.rs` reads the rest on another thread).
/// `offsets` may go on past `stream`'s instructions.
pub(super) fn read_part(words: &[u32], stream: &[u32], offsets: &[u32]) -> Result<(Read, Option<Open>), Error> {
    let bound = words[3];
    let mut builder = Builder {
        module: Module {
            version: (((words[1] >> 16) & 0xff) as u8, ((words[1] >> 8) & 0xff) as u8),
            bound,
            defs: {
                let mut defs = with_room_for_casts(bound as usize);
                defs.resize(bound as usize, Def::None);
                defs
            },
            ..Module::default()
        },
        words,
        offsets,
        index: 0,
        function: None,
        block: None,
        error: None,
        type_depth: HashMap::new(),
        debug_info_sets: HashSet::new(),
        debug_sources: HashMap::new(),
        texel_format_sets: HashSet::new(),
        block_lengths: Vec::new(),
        entry_points_of: HashMap::new(),
        decoration_groups: HashSet::new(),
    };
    let result = rspirv::binary::parse_words(stream, &mut builder);
    if let Some(error) = builder.error.take() {
        return Err(error);
    }
    if let Err(state) = result {
        let location = Location { word_offset: offsets.get(builder.index).copied(), ..Location::default() };
        return Err(Error::Malformed { message: state.to_string(), location });
    }
    let open = builder.function.map(|function| Open { function, block: builder.block });
    Ok((Read { module: builder.module, decoration_groups: builder.decoration_groups }, open))
}

/// Where a read stopped inside a function: its index, and its open block's, if one is.
#[derive(Debug, PartialEq)]
pub(super) struct Open {
    pub(super) function: usize,
    pub(super) block: Option<usize>,
}

/// Word offsets of every instruction, checking that each word count is sane and in bounds. On a
/// bad word count, the offsets of the whole instructions before it come with the error. Offsets
/// are `u32`, as in an instruction's location: half the memory of `usize` on a large module.
pub fn instruction_offsets(words: &[u32]) -> (Vec<u32>, Option<Error>) {
    if u32::try_from(words.len()).is_err() {
        let message = format!("a module of {} words is too large: offsets are 32-bit", words.len());
        return (Vec::new(), Some(Error::Malformed { message, location: Location::default() }));
    }
    let mut offsets = Vec::with_capacity(words.len() / 4);
    let mut at = HEADER_WORDS;
    while at < words.len() {
        let count = (words[at] >> 16) as usize;
        let location = Location { word_offset: Some(at as u32), ..Location::default() };
        if count == 0 {
            let error = Error::Malformed { message: "instruction with a word count of 0".into(), location };
            return (offsets, Some(error));
        }
        if at + count > words.len() {
            let error = Error::Malformed {
                message: format!(
                    "instruction claims {count} words but the module ends after {}: truncated",
                    words.len() - at
                ),
                location,
            };
            return (offsets, Some(error));
        }
        offsets.push(at as u32);
        at += count;
    }
    (offsets, None)
}

/// Deeper type nesting is refused (see `Builder::type_depth`).
const MAX_TYPE_DEPTH: u32 = 64;

/// The types a type is built from.
fn type_children(ty: &Type) -> Vec<Id> {
    match ty {
        Type::Vector { component, .. } => vec![*component],
        Type::Matrix { column, .. } => vec![*column],
        Type::Array { element, .. } | Type::RuntimeArray { element } => vec![*element],
        Type::Struct { members } => members.clone(),
        Type::Pointer { pointee, .. } => vec![*pointee],
        Type::Function { result, params } => std::iter::once(*result).chain(params.iter().copied()).collect(),
        Type::Image(image) => vec![image.sampled_type],
        Type::SampledImage { image } => vec![*image],
        _ => Vec::new(),
    }
}

struct Builder<'a> {
    module: Module,
    words: &'a [u32],
    offsets: &'a [u32],
    /// Index of the instruction being consumed.
    index: usize,
    function: Option<usize>,
    block: Option<usize>,
    error: Option<Error>,
    /// How deeply each type nests other types (a scalar is 1).
    type_depth: HashMap<Id, u32>,
    /// Imports of NonSemantic.Shader.DebugInfo.100, and its DebugSource results with the
    /// OpString naming their file: DebugLine becomes an OpLine for `--annotate`.
    debug_info_sets: HashSet<Id>,
    debug_sources: HashMap<Id, Id>,
    /// Imports of [`STORAGE_TEXEL_FORMAT_SET`].
    texel_format_sets: HashSet<Id>,
    /// How many instructions each block of the function being read has, its label and merges
    /// aside (`begin_function`).
    block_lengths: Vec<usize>,
    /// Entry points by function, so an OpExecutionMode finds its own without a scan.
    entry_points_of: HashMap<Id, Vec<usize>>,
    /// Results of OpDecorationGroup: their decorations and names go once the module is read.
    decoration_groups: HashSet<Id>,
}

/// NonSemantic.Shader.DebugInfo.100 instruction numbers.
const DEBUG_SOURCE: u32 = 35;
const DEBUG_LINE: u32 = 103;
const DEBUG_NO_LINE: u32 = 104;

impl Consumer for Builder<'_> {
    fn initialize(&mut self) -> Action {
        Action::Continue
    }
    fn finalize(&mut self) -> Action {
        Action::Continue
    }
    fn consume_header(&mut self, _: dr::ModuleHeader) -> Action {
        Action::Continue
    }
    fn consume_instruction(&mut self, inst: dr::Instruction) -> Action {
        // Read in place: moving each instruction through the calls below was a tenth of the
        // consumer.
        let result = match self.offsets.get(self.index) {
            Some(&at) if spec_constant_op::is_at(self.words, at) => self.restored(&inst, at as usize),
            _ => self.instruction(&inst),
        };
        self.index += 1;
        match result {
            Ok(()) => Action::Continue,
            Err(error) => {
                self.error = Some(error);
                Action::Stop
            }
        }
    }
}

/// Reads typed operands of an rspirv instruction with errors instead of panics.
struct Operands<'a> {
    inst: &'a dr::Instruction,
    location: Location,
}

impl Operands<'_> {
    fn missing(&self, index: usize, what: &str) -> Error {
        Error::invalid(format!("operand {index} should be {what}"), self.location.clone())
    }
    fn id(&self, index: usize) -> Result<Id, Error> {
        match self.inst.operands.get(index) {
            Some(Operand::IdRef(id)) => Ok(*id),
            _ => Err(self.missing(index, "an id")),
        }
    }
    fn literal(&self, index: usize) -> Result<u32, Error> {
        match self.inst.operands.get(index) {
            Some(Operand::LiteralBit32(v)) => Ok(*v),
            _ => Err(self.missing(index, "a literal number")),
        }
    }
    fn string(&self, index: usize) -> Result<String, Error> {
        match self.inst.operands.get(index) {
            Some(Operand::LiteralString(s)) => Ok(s.clone()),
            _ => Err(self.missing(index, "a string")),
        }
    }
    fn ids_from(&self, index: usize) -> Result<Vec<Id>, Error> {
        (index..self.inst.operands.len()).map(|i| self.id(i)).collect()
    }
}

impl Builder<'_> {
    /// An OpSpecConstantOp at word `at`, which rspirv saw as a stand-in (`stand_in`): decoded
    /// from the words, as the module has it.
    fn restored(&mut self, stand_in: &dr::Instruction, at: usize) -> Result<(), Error> {
        let location = Location { opcode: Some(Op::SpecConstantOp), ..self.location(stand_in) };
        let inst = spec_constant_op::decode(self.words, at, &location)?;
        self.instruction(&inst)
    }

    /// The parts of a composite constant or construct of type `ty`: its id operands, or for the
    /// replicated forms (SPV_EXT_replicated_composites) its one operand once per member, column,
    /// element or component.
    fn composite_parts(&self, inst: &dr::Instruction, ty: Id, location: &Location) -> Result<Vec<Id>, Error> {
        let ops = Operands { inst, location: location.clone() };
        let replicated = matches!(
            inst.class.opcode,
            Op::ConstantCompositeReplicateEXT
                | Op::SpecConstantCompositeReplicateEXT
                | Op::CompositeConstructReplicateEXT
        );
        if !replicated {
            return ops.ids_from(0);
        }
        let count = match self.module.type_def(ty) {
            Some(Type::Vector { count, .. }) => Some(*count),
            Some(Type::Matrix { columns, .. }) => Some(*columns),
            Some(Type::Array { length, .. }) => self.module.const_u32(*length),
            Some(Type::Struct { members }) => Some(members.len() as u32),
            _ => None,
        }
        .ok_or_else(|| {
            Error::invalid("a replicated composite of a type with no fixed number of parts", location.clone())
        })?;
        // Bounded like any array of constants the module could spell out: by its size.
        if count as usize > 16 * self.words.len() + 1024 {
            return Err(Error::unsupported(format!("a replicated composite of {count} parts"), location.clone()));
        }
        Ok(vec![ops.id(0)?; count as usize])
    }

    /// The decorations of a group declared by OpDecorationGroup.
    fn decoration_group(&self, group: Id, location: &Location) -> Result<Decorations, Error> {
        if !self.decoration_groups.contains(&group) {
            return Err(Error::invalid(format!("%{group} is not a decoration group"), location.clone()));
        }
        Ok(self.module.decorations(group).clone())
    }

    fn location(&self, inst: &dr::Instruction) -> Location {
        Location {
            word_offset: self.offsets.get(self.index).copied(),
            opcode: Some(inst.class.opcode),
            result_id: inst.result_id,
            function: self.function.map(|f| self.module.functions[f].id),
            block: self.block.map(|b| self.module.functions[self.function.unwrap_or(0)].blocks[b].label),
        }
    }

    /// `StorageTexelFormat %image_type %format`: the WGSL format of an `Unknown`-format storage
    /// image type.
    fn texel_format(&mut self, ops: &Operands) -> Result<(), Error> {
        let (ty, name) = (ops.id(2)?, ops.id(3)?);
        let Def::String(name) = self.module.def(name) else {
            return Err(Error::invalid(
                format!("{STORAGE_TEXEL_FORMAT_SET}: %{name} is not an OpString"),
                ops.location.clone(),
            ));
        };
        let format = RECORDED_TEXEL_FORMATS.iter().find(|&&known| known == name.as_str()).ok_or_else(|| {
            Error::unsupported(
                format!(
                    "{STORAGE_TEXEL_FORMAT_SET} records the format `{name}`; it records only {RECORDED_TEXEL_FORMATS:?}"
                ),
                ops.location.clone(),
            )
        })?;
        let old = match self.module.defs.get(ty as usize) {
            Some(Def::Type(old))
                if matches!(**old, Type::Image(ImageType { sampled: 2, format: spirv::ImageFormat::Unknown, .. })) =>
            {
                (**old).clone()
            }
            _ => {
                return Err(Error::invalid(
                    format!("{STORAGE_TEXEL_FORMAT_SET}: %{ty} is not a storage image type of format Unknown"),
                    ops.location.clone(),
                ));
            }
        };
        let Type::Image(mut image) = old.clone() else { return Ok(()) };
        image.texel_format = Some(format);
        self.module.type_ids.remove(&old);
        self.module.type_ids.insert(Type::Image(image.clone()), ty);
        self.module.defs[ty as usize] = Def::of_type(Type::Image(image));
        Ok(())
    }

    fn define(&mut self, id: Id, def: Def, location: &Location) -> Result<(), Error> {
        match self.module.defs.get_mut(id as usize) {
            None => Err(Error::invalid(
                format!("id %{id} is not below the id bound {}", self.module.bound),
                location.clone(),
            )),
            Some(Def::None) => {
                self.module.defs[id as usize] = def;
                Ok(())
            }
            Some(_) => Err(Error::invalid(format!("id %{id} is defined twice"), location.clone())),
        }
    }

    /// Checks that `id` is a type declared earlier.
    fn type_id(&self, id: Id, location: &Location) -> Result<Id, Error> {
        match self.module.type_def(id) {
            Some(_) => Ok(id),
            _ => Err(Error::invalid(format!("%{id} is not a type declared before its use"), location.clone())),
        }
    }

    fn instruction(&mut self, inst: &dr::Instruction) -> Result<(), Error> {
        if self.function.is_some() {
            return self.function_instruction(inst);
        }
        let location = self.location(inst);
        let ops = Operands { inst, location: location.clone() };
        let op = inst.class.opcode;
        match op {
            Op::Capability => {
                if let Some(Operand::Capability(c)) = inst.operands.first() {
                    self.module.capabilities.push(*c);
                }
            }
            Op::ExtInstImport => {
                let name = ops.string(0)?;
                let set = if name == "GLSL.std.450" {
                    ExtSet::GlslStd450
                } else if name.starts_with("NonSemantic.") || name.contains("DebugInfo") {
                    ExtSet::NonSemantic
                } else {
                    ExtSet::Other
                };
                let id = result(inst, &location)?;
                if name == "NonSemantic.Shader.DebugInfo.100" {
                    self.debug_info_sets.insert(id);
                }
                if name == STORAGE_TEXEL_FORMAT_SET {
                    self.texel_format_sets.insert(id);
                }
                self.define(id, Def::ExtInstSet(set), &location)?;
            }
            Op::ExtInst => {
                // Module-level extended instructions are debug information; only the files of
                // DebugSource are kept.
                let operands = (inst.operands.first(), inst.operands.get(1), inst.operands.get(2), inst.result_id);
                if let (
                    Some(Operand::IdRef(set)),
                    Some(&Operand::LiteralExtInstInteger(DEBUG_SOURCE)),
                    Some(Operand::IdRef(file)),
                    Some(id),
                ) = operands
                    && self.debug_info_sets.contains(set)
                {
                    self.debug_sources.insert(id, *file);
                }
                if let Some(Operand::IdRef(set)) = inst.operands.first()
                    && self.texel_format_sets.contains(set)
                {
                    self.texel_format(&ops)?;
                }
            }
            Op::MemoryModel => {
                if let Some(Operand::AddressingModel(model)) = inst.operands.first()
                    && *model != spirv::AddressingModel::Logical
                {
                    return Err(Error::unsupported(
                        format!("addressing model {model:?}: WGSL has only logical addressing"),
                        location,
                    ));
                }
            }
            Op::EntryPoint => {
                let model = match inst.operands.first() {
                    Some(Operand::ExecutionModel(m)) => *m,
                    _ => return Err(ops.missing(0, "an execution model")),
                };
                let function = ops.id(1)?;
                self.entry_points_of.entry(function).or_default().push(self.module.entry_points.len());
                self.module.entry_points.push(EntryPoint {
                    model,
                    function,
                    name: ops.string(2)?,
                    interface: ops.ids_from(3)?,
                    modes: Vec::new(),
                    offset: location.word_offset.unwrap_or(0),
                    io: None,
                });
            }
            Op::ExecutionMode | Op::ExecutionModeId => {
                let function = ops.id(0)?;
                let mode = match inst.operands.get(1) {
                    Some(Operand::ExecutionMode(m)) => *m,
                    _ => return Err(ops.missing(1, "an execution mode")),
                };
                let args: Vec<u32> = inst.operands[2..]
                    .iter()
                    .filter_map(|o| match o {
                        Operand::LiteralBit32(v) | Operand::IdRef(v) => Some(*v),
                        _ => None,
                    })
                    .collect();
                for &entry in self.entry_points_of.get(&function).into_iter().flatten() {
                    self.module.entry_points[entry].modes.push((mode, args.clone()));
                }
            }
            Op::String => {
                self.define(result(inst, &location)?, Def::String(Box::new(ops.string(0)?)), &location)?;
            }
            Op::Name => {
                let target = ops.id(0)?;
                self.module.names.insert(target, ops.string(1)?);
            }
            Op::MemberName => {
                let key = (ops.id(0)?, ops.literal(1)?);
                self.module.member_names.insert(key, ops.string(2)?);
            }
            Op::Decorate | Op::DecorateId | Op::DecorateString => {
                let (decoration, value, builtin) = decoration_operands(&inst.operands[1..]);
                if let Some(decoration) = decoration {
                    self.module.decorations.entry(ops.id(0)?).or_default().add(decoration, value, builtin);
                }
            }
            Op::MemberDecorate | Op::MemberDecorateString => {
                let key = (ops.id(0)?, ops.literal(1)?);
                let (decoration, value, builtin) = decoration_operands(&inst.operands[2..]);
                if let Some(decoration) = decoration {
                    self.module.member_decorations.entry(key).or_default().add(decoration, value, builtin);
                }
            }
            // A group collects the decorations before it and hands them to the targets after.
            Op::DecorationGroup => {
                self.decoration_groups.insert(result(inst, &location)?);
            }
            Op::GroupDecorate => {
                let group = self.decoration_group(ops.id(0)?, &location)?;
                for target in ops.ids_from(1)? {
                    self.module.decorations.entry(target).or_default().merge(&group);
                }
            }
            Op::GroupMemberDecorate => {
                let group = self.decoration_group(ops.id(0)?, &location)?;
                for pair in (1..inst.operands.len()).step_by(2) {
                    let key = (ops.id(pair)?, ops.literal(pair + 1)?);
                    self.module.member_decorations.entry(key).or_default().merge(&group);
                }
            }
            Op::Variable => self.global_variable(inst, &ops, location)?,
            Op::Function => self.begin_function(inst, &ops, location)?,
            _ if is_type(op) => self.declare_type(inst, &ops, location)?,
            _ if is_constant(op) => self.declare_constant(inst, &ops, location)?,
            // Debug information, extensions, source text: nothing to translate.
            _ => {}
        }
        Ok(())
    }

    fn declare_type(&mut self, inst: &dr::Instruction, ops: &Operands, location: Location) -> Result<(), Error> {
        let id = result(inst, &location)?;
        let ty = match inst.class.opcode {
            Op::TypeVoid => Type::Void,
            Op::TypeBool => Type::Bool,
            Op::TypeInt => Type::Int { width: ops.literal(0)?, signed: ops.literal(1)? != 0 },
            Op::TypeFloat => Type::Float { width: ops.literal(0)? },
            Op::TypeVector | Op::TypeMatrix => {
                let (part, count) = (self.type_id(ops.id(0)?, &location)?, ops.literal(1)?);
                // WGSL has 2 to 4 components and columns (SPIR-V's 8 and 16 need Vector16).
                if !(2..=4).contains(&count) {
                    return Err(Error::unsupported(
                        format!(
                            "{count} {}: WGSL has 2 to 4",
                            if inst.class.opcode == Op::TypeVector { "vector components" } else { "matrix columns" }
                        ),
                        location,
                    ));
                }
                match (inst.class.opcode, self.module.type_def(part)) {
                    (Op::TypeVector, Some(Type::Bool | Type::Int { .. } | Type::Float { .. })) => {
                        Type::Vector { component: part, count }
                    }
                    (Op::TypeMatrix, Some(Type::Vector { .. })) => Type::Matrix { column: part, columns: count },
                    _ => {
                        return Err(Error::invalid(
                            format!("%{part} cannot be a vector component or matrix column"),
                            location,
                        ));
                    }
                }
            }
            Op::TypeArray => {
                let length = ops.id(1)?;
                if !matches!(self.module.def(length), Def::Constant(_)) {
                    let message = format!("the length %{length} of an array type is not a constant declared before it");
                    return Err(Error::invalid(message, location));
                }
                Type::Array { element: self.type_id(ops.id(0)?, &location)?, length }
            }
            Op::TypeRuntimeArray => Type::RuntimeArray { element: self.type_id(ops.id(0)?, &location)? },
            Op::TypeStruct => {
                let members = ops.ids_from(0)?;
                for &member in &members {
                    self.type_id(member, &location)?;
                }
                Type::Struct { members }
            }
            Op::TypePointer => {
                let class = match inst.operands.first() {
                    Some(Operand::StorageClass(c)) => *c,
                    _ => return Err(ops.missing(0, "a storage class")),
                };
                // Declared before, which also rules out cycles: a pointee declared later through
                // OpTypeForwardPointer needs physical addressing, which WGSL does not have.
                Type::Pointer { class, pointee: self.type_id(ops.id(1)?, &location)? }
            }
            Op::TypeFunction => {
                let params = ops.ids_from(1)?;
                for &param in &params {
                    self.type_id(param, &location)?;
                }
                Type::Function { result: self.type_id(ops.id(0)?, &location)?, params }
            }
            Op::TypeImage => Type::Image(ImageType {
                sampled_type: self.type_id(ops.id(0)?, &location)?,
                dim: match inst.operands.get(1) {
                    Some(Operand::Dim(d)) => *d,
                    _ => return Err(ops.missing(1, "a dimension")),
                },
                depth: ops.literal(2)?,
                arrayed: ops.literal(3)? != 0,
                multisampled: ops.literal(4)? != 0,
                sampled: ops.literal(5)?,
                format: match inst.operands.get(6) {
                    Some(Operand::ImageFormat(f)) => *f,
                    _ => return Err(ops.missing(6, "an image format")),
                },
                access: match inst.operands.get(7) {
                    Some(Operand::AccessQualifier(a)) => Some(*a),
                    _ => None,
                },
                texel_format: None,
            }),
            Op::TypeSampler => Type::Sampler { comparison: false },
            Op::TypeSampledImage => Type::SampledImage { image: self.type_id(ops.id(0)?, &location)? },
            other => Type::Unsupported(other),
        };
        // Every pass walks types recursively: a hostile chain of nested types must not reach
        // them. WGSL itself allows composite types nested 15 deep.
        let depth =
            1 + type_children(&ty).iter().map(|c| self.type_depth.get(c).copied().unwrap_or(1)).max().unwrap_or(0);
        if depth > MAX_TYPE_DEPTH {
            return Err(Error::unsupported(format!("types nested more than {MAX_TYPE_DEPTH} deep"), location));
        }
        self.type_depth.insert(id, depth);
        if !matches!(ty, Type::Struct { .. }) {
            self.module.type_ids.entry(ty.clone()).or_insert(id);
        }
        self.define(id, Def::of_type(ty), &location)?;
        self.module.declarations.push(id);
        Ok(())
    }

    fn declare_constant(&mut self, inst: &dr::Instruction, ops: &Operands, location: Location) -> Result<(), Error> {
        let id = result(inst, &location)?;
        let ty = self.type_id(inst.result_type.ok_or_else(|| ops.missing(0, "a result type"))?, &location)?;
        let value = match inst.class.opcode {
            Op::ConstantTrue | Op::SpecConstantTrue => ConstValue::Bool(true),
            Op::ConstantFalse | Op::SpecConstantFalse => ConstValue::Bool(false),
            Op::Constant | Op::SpecConstant => match inst.operands.first() {
                Some(Operand::LiteralBit32(v)) => ConstValue::Scalar(u64::from(*v)),
                Some(Operand::LiteralBit64(v)) => ConstValue::Scalar(*v),
                _ => return Err(ops.missing(0, "a literal value")),
            },
            Op::ConstantComposite
            | Op::SpecConstantComposite
            | Op::ConstantCompositeReplicateEXT
            | Op::SpecConstantCompositeReplicateEXT => {
                let parts = self.composite_parts(inst, ty, &location)?;
                // Declared before, so a composite can never contain itself.
                for &part in &parts {
                    if !matches!(self.module.def(part), Def::Constant(_)) {
                        return Err(Error::invalid(
                            format!("%{part} is not a constant declared before its use"),
                            location,
                        ));
                    }
                }
                ConstValue::Composite(parts)
            }
            Op::ConstantNull => ConstValue::Null,
            Op::Undef => ConstValue::Undef,
            Op::SpecConstantOp => match inst.operands.split_first() {
                Some((Operand::LiteralSpecConstantOpInteger(op), operands)) => {
                    if operands.iter().any(|o| matches!(o, Operand::LiteralBit64(_))) {
                        return Err(Error::unsupported(SIXTY_FOUR_BIT_LITERAL, location));
                    }
                    ConstValue::Op { op: *op, operands: operands.iter().map(compact).collect() }
                }
                _ => return Err(ops.missing(0, "an opcode")),
            },
            other => {
                return Err(Error::unsupported(format!("Op{other:?} is not supported yet"), location));
            }
        };
        // Constants are built from constants declared before them, so they never form a cycle.
        let parts = value.parts();
        if let Some(part) = parts.iter().find(|&&part| !matches!(self.module.def(part), Def::Constant(_))) {
            return Err(Error::invalid(format!("%{part} is not a constant declared before this one"), location));
        }
        let spec_id = if is_spec_constant(inst.class.opcode) { self.module.decorations(id).spec_id } else { None };
        self.define(id, Def::Constant(Box::new(Constant { ty, value, spec_id })), &location)?;
        self.module.declarations.push(id);
        Ok(())
    }

    fn global_variable(&mut self, inst: &dr::Instruction, ops: &Operands, location: Location) -> Result<(), Error> {
        let id = result(inst, &location)?;
        let ty = inst.result_type.ok_or_else(|| ops.missing(0, "a result type"))?;
        let (class, pointee) = match self.module.type_def(ty) {
            Some(Type::Pointer { class, pointee }) => (*class, *pointee),
            _ => return Err(Error::invalid(format!("the type %{ty} of a variable is not a pointer"), location)),
        };
        if let Some(Operand::StorageClass(declared)) = inst.operands.first()
            && *declared != class
        {
            return Err(Error::invalid("variable storage class differs from its pointer type's", location));
        }
        let initializer = ops.id(1).ok();
        let index = self.module.globals.len();
        self.module.globals.push(Global {
            id,
            ty,
            class,
            pointee,
            initializer,
            offset: location.word_offset.unwrap_or(0),
        });
        self.define(id, Def::Global(index), &location)?;
        self.module.declarations.push(id);
        Ok(())
    }

    fn begin_function(&mut self, inst: &dr::Instruction, ops: &Operands, location: Location) -> Result<(), Error> {
        let id = result(inst, &location)?;
        let index = self.module.functions.len();
        // The arena, the block list and each block's list are allocated once at their sizes,
        // counted in one scan up to the function's OpFunctionEnd (only hints: one inside a block
        // does not end the function). Growing each block's list was a twentieth of loading.
        let (end, label) = (Op::FunctionEnd as u32, Op::Label as u32);
        let (selection, loop_merge) = (Op::SelectionMerge as u32, Op::LoopMerge as u32);
        let (words, offsets) = (self.words, self.offsets);
        let opcodes = offsets[self.index..].iter().map(|&at| words[at as usize] & 0xffff).take_while(|&op| op != end);
        let mut count = 0;
        self.block_lengths.clear();
        for op in opcodes {
            count += 1;
            if op == label {
                self.block_lengths.push(0);
            } else if op != selection
                && op != loop_merge
                && let Some(length) = self.block_lengths.last_mut()
            {
                *length += 1;
            }
        }
        self.module.functions.push(Function {
            id,
            result_type: inst.result_type.ok_or_else(|| ops.missing(0, "a result type"))?,
            params: Vec::new(),
            insts: with_room_for_casts(count),
            blocks: Vec::with_capacity(self.block_lengths.len()),
            body: None,
            offset: location.word_offset.unwrap_or(0),
        });
        self.define(id, Def::Function(index), &location)?;
        self.function = Some(index);
        Ok(())
    }

    /// An extended instruction of a non-semantic set: debug information, never a value the
    /// shader computes with, so it is dropped (its results only feed other such instructions).
    fn is_non_semantic(&self, inst: &dr::Instruction) -> bool {
        matches!(inst.operands.first(), Some(Operand::IdRef(set)) if matches!(self.module.def(*set), Def::ExtInstSet(ExtSet::NonSemantic)))
    }

    /// DebugLine and DebugNoLine of NonSemantic.Shader.DebugInfo.100 as OpLine and OpNoLine.
    fn as_line(&self, inst: &dr::Instruction) -> Option<dr::Instruction> {
        let Some(Operand::IdRef(set)) = inst.operands.first() else { return None };
        if !self.debug_info_sets.contains(set) {
            return None;
        }
        match inst.operands.get(1) {
            Some(Operand::LiteralExtInstInteger(DEBUG_LINE)) => {
                let source = inst.operands.get(2)?.id_ref_any()?;
                let file = *self.debug_sources.get(&source)?;
                let line = self.module.const_u32(inst.operands.get(3)?.id_ref_any()?)?;
                Some(dr::Instruction::new(
                    Op::Line,
                    None,
                    None,
                    vec![Operand::IdRef(file), Operand::LiteralBit32(line), Operand::LiteralBit32(0)],
                ))
            }
            Some(Operand::LiteralExtInstInteger(DEBUG_NO_LINE)) => {
                Some(dr::Instruction::new(Op::NoLine, None, None, Vec::new()))
            }
            _ => None,
        }
    }

    /// An instruction inside a function. Its location is worked out only for an error: most of a
    /// module is instructions in blocks, and loading each must cost little beyond rspirv's parse.
    fn function_instruction(&mut self, inst: &dr::Instruction) -> Result<(), Error> {
        let function = self.function.unwrap_or_default();
        let op = inst.class.opcode;
        if let Some(block) = self.block
            && op != Op::ExtInst
        {
            return self.block_instruction(inst, function, block);
        }
        let location = self.location(inst);
        match (op, self.block) {
            (Op::FunctionParameter, None) => {
                let id = result(inst, &location)?;
                let ty = inst.result_type.ok_or_else(|| Error::invalid("missing result type", location.clone()))?;
                self.module.functions[function].params.push(Param { id, ty });
                self.define(id, Def::param(function, ty), &location)
            }
            (Op::Label, None) => {
                let id = result(inst, &location)?;
                let block = self.module.functions[function].blocks.len();
                // Its terminator was counted, but is not listed.
                let length = self.block_lengths.get(block).map_or(0, |&length| length.saturating_sub(1));
                let insts = Vec::with_capacity(length);
                let blocks = &mut self.module.functions[function].blocks;
                blocks.push(Block { label: id, insts, merge: None, terminator: usize::MAX });
                self.block = Some(block);
                self.define(id, Def::label(function, block), &location)
            }
            (Op::FunctionEnd, None) => {
                if self.module.functions[function].blocks.is_empty() {
                    return Err(Error::unsupported("function declarations without a body (linkage)", location));
                }
                self.function = None;
                Ok(())
            }
            // Kept inside blocks, where `--annotate` reads them; dropped elsewhere.
            (Op::Line | Op::NoLine, None) => Ok(()),
            (Op::ExtInst, _) if self.is_non_semantic(inst) => match self.as_line(inst) {
                Some(line) => match self.block {
                    Some(block) => self.block_instruction(&line, function, block),
                    None => Ok(()),
                },
                _ => Ok(()),
            },
            (_, None) => Err(Error::invalid(format!("Op{op:?} outside a block"), location)),
            (_, Some(block)) => self.block_instruction(inst, function, block),
        }
    }

    /// An instruction in block `block` of function `function`.
    fn block_instruction(&mut self, inst: &dr::Instruction, function: usize, block: usize) -> Result<(), Error> {
        let op = inst.class.opcode;
        if inst.operands.iter().any(|o| matches!(o, Operand::LiteralBit64(_))) {
            let location = self.location(inst);
            return Err(Error::unsupported(SIXTY_FOUR_BIT_LITERAL, location));
        }
        let (result, ty) = (inst.result_id, inst.result_type);
        // `Inst` takes 0 for "none".
        if result == Some(0) || ty == Some(0) {
            return Err(Error::invalid("id %0: ids start at 1", self.location(inst)));
        }
        // A replicated construct is the construct of its one part repeated.
        let (op, operands) = match op {
            Op::CompositeConstructReplicateEXT => {
                let location = self.location(inst);
                let parts = self.composite_parts(inst, ty.unwrap_or_default(), &location)?;
                (Op::CompositeConstruct, parts.into_iter().map(Compact::IdRef).collect())
            }
            _ => (op, super::Operands::converted(&inst.operands, compact)),
        };
        let offset = self.offsets.get(self.index).copied().unwrap_or(0);
        let f = &mut self.module.functions[function];
        let index = f.insts.len();
        f.insts.push(Inst::new(op, ty, result, operands, offset));
        let b = &mut f.blocks[block];
        if matches!(op, Op::SelectionMerge | Op::LoopMerge) {
            b.merge = Some(index);
        } else if is_terminator(op) {
            b.terminator = index;
            self.block = None;
        } else {
            b.insts.push(index);
        }
        let Some(id) = result else { return Ok(()) };
        let Some(ty) = ty else {
            return Err(Error::invalid("result without a result type", self.location(inst)));
        };
        match self.module.defs.get_mut(id as usize) {
            Some(def @ Def::None) => {
                *def = Def::value(function, index, ty);
                Ok(())
            }
            // Past the bound or defined twice: `define` says which.
            _ => {
                let location = self.location(inst);
                self.define(id, Def::None, &location)
            }
        }
    }
}

const SIXTY_FOUR_BIT_LITERAL: &str = "a 64-bit literal: WGSL has only 32-bit integers";

/// An rspirv operand in our compact form, which has no 64-bit literals (refused before: inside a
/// function only a switch on a 64-bit integer has one, and WGSL has only 32-bit integers).
fn compact(operand: &Operand) -> Compact {
    match *operand {
        Operand::IdRef(id) => Compact::IdRef(id),
        Operand::IdScope(id) => Compact::IdScope(id),
        Operand::IdMemorySemantics(id) => Compact::IdMemorySemantics(id),
        Operand::LiteralBit32(v) | Operand::LiteralExtInstInteger(v) => Compact::LiteralBit32(v),
        Operand::ImageOperands(mask) => Compact::ImageOperands(mask),
        Operand::GroupOperation(operation) => Compact::GroupOperation(operation),
        _ => Compact::Other,
    }
}

fn result(inst: &dr::Instruction, location: &Location) -> Result<Id, Error> {
    inst.result_id.ok_or_else(|| Error::invalid("missing result id", location.clone()))
}

/// The decoration, its first literal value, and its builtin, from the operands after the target.
fn decoration_operands(operands: &[Operand]) -> (Option<spirv::Decoration>, Option<u32>, Option<spirv::BuiltIn>) {
    let decoration = match operands.first() {
        Some(Operand::Decoration(d)) => Some(*d),
        _ => None,
    };
    let value = operands.get(1).and_then(|o| match o {
        Operand::LiteralBit32(v) => Some(*v),
        _ => None,
    });
    let builtin = operands.get(1).and_then(|o| match o {
        Operand::BuiltIn(b) => Some(*b),
        _ => None,
    });
    (decoration, value, builtin)
}

fn is_type(op: Op) -> bool {
    matches!(
        op,
        Op::TypeVoid
            | Op::TypeBool
            | Op::TypeInt
            | Op::TypeFloat
            | Op::TypeVector
            | Op::TypeMatrix
            | Op::TypeImage
            | Op::TypeSampler
            | Op::TypeSampledImage
            | Op::TypeArray
            | Op::TypeRuntimeArray
            | Op::TypeStruct
            | Op::TypeOpaque
            | Op::TypePointer
            | Op::TypeFunction
            | Op::TypeEvent
            | Op::TypeDeviceEvent
            | Op::TypeReserveId
            | Op::TypeQueue
            | Op::TypePipe
            | Op::TypeAccelerationStructureKHR
            | Op::TypeRayQueryKHR
    )
}

fn is_constant(op: Op) -> bool {
    matches!(
        op,
        Op::ConstantTrue
            | Op::ConstantFalse
            | Op::Constant
            | Op::ConstantComposite
            | Op::ConstantCompositeReplicateEXT
            | Op::ConstantNull
            | Op::Undef
            | Op::SpecConstantOp
    ) || is_spec_constant(op)
}

fn is_spec_constant(op: Op) -> bool {
    matches!(
        op,
        Op::SpecConstantTrue
            | Op::SpecConstantFalse
            | Op::SpecConstant
            | Op::SpecConstantComposite
            | Op::SpecConstantCompositeReplicateEXT
    )
}

pub fn is_terminator(op: Op) -> bool {
    matches!(
        op,
        Op::Branch
            | Op::BranchConditional
            | Op::Switch
            | Op::Return
            | Op::ReturnValue
            | Op::Kill
            | Op::TerminateInvocation
            | Op::Unreachable
            // Of stages WGSL does not have: they end a block all the same, and the module loads
            // so that the error can name the stage.
            | Op::EmitMeshTasksEXT
            | Op::TerminateRayKHR
            | Op::IgnoreIntersectionKHR
    )
}

/// Every id an instruction reads must be defined somewhere in the module; later stages rely on it.
fn check_operands(module: &Module) -> Result<(), Error> {
    // Decorations and names may precede their target, so they are checked once all is read; the
    // smallest offending id is named, for a deterministic message.
    let targets =
        module.decorations.keys().chain(module.names.keys()).chain(module.member_decorations.keys().map(|(id, _)| id));
    if let Some(id) = targets.filter(|&&id| matches!(module.def(id), Def::None)).min() {
        return Err(Error::invalid(
            format!("a decoration or name targets %{id}, which is never defined"),
            Location::default(),
        ));
    }
    for (f, function) in module.functions.iter().enumerate() {
        for (b, block) in function.blocks.iter().enumerate() {
            if block.terminator == usize::MAX {
                return Err(Error::invalid(
                    format!("block %{} has no terminator", block.label),
                    Location { function: Some(function.id), block: Some(block.label), ..Location::default() },
                ));
            }
            for index in block.all_insts() {
                let inst = &function.insts[index];
                let undefined = inst.id_operands().chain(inst.ty()).find(|&id| matches!(module.def(id), Def::None));
                if let Some(id) = undefined {
                    let mut location = module.location_of(f, inst);
                    location.block = Some(function.blocks[b].label);
                    return Err(Error::invalid(format!("%{id} is used but never defined"), location));
                }
            }
        }
    }
    for global in &module.globals {
        if module.type_def(global.pointee).is_none() {
            return Err(Error::invalid(
                format!("the store type %{} of %{} is not a type", global.pointee, global.id),
                Location { word_offset: Some(global.offset), result_id: Some(global.id), ..Location::default() },
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "load_tests.rs"]
mod tests;
