//! SPIR-V assembler: turns the text `spirv-dis` prints (and `spirv-as` reads) into SPIR-V words.

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

use rspirv::dr::Operand;
use rspirv::grammar::{ExtInstOp, Instruction, InstructionTable, LogicalOperand, OperandKind, OperandQuantifier};

/// An assembled module.
pub struct Assembly {
    /// The module's words, header included.
    pub words: Vec<u32>,
    /// (index in `words` of each instruction's first word, 1-based source line) in order
    pub lines: Vec<(u32, u32)>,
}

/// Why assembly failed, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssembleError {
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub column: u32,
    pub message: String,
}

impl fmt::Display for AssembleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.column, self.message)
    }
}

impl std::error::Error for AssembleError {}

/// Assembles SPIR-V assembly text into a module.
///
/// Instruction layouts come from rspirv's grammar tables, the operands that follow an enumerant
/// (`Location 0`, `Aligned 4`) from `rspirv::dr::Operand::additional_operands`, and enumerant
/// names from the `spirv` crate.
///
/// The words match `spirv-as` exactly, except for the generator word, with these choices:
/// - The version comes from a `; Version: X.Y` comment before the first instruction (which
///   `spirv-dis` writes), else it is 1.0: the output equals `spirv-as --target-env spvX.Y`.
/// - The generator word is 0 (an unregistered tool); `spirv-as` writes its own, 0x0007_0000.
/// - Ids are numbered from 1 in order of first appearance, numeric names such as `%12` included,
///   as `spirv-as` does without `--preserve-numeric-ids`; the bound is one past the last.
///
/// Unlike `spirv-as`, this refuses ids that are used but never defined or defined twice, accepts
/// every instruction and enumerant whatever the version, accepts `OpSpecConstantOp` opcode names
/// with or without the `Op` prefix, and accepts numbers as extended instruction names. Operands
/// of kinds that only extended instruction sets define (such as `DebugInfoFlags`) are numbers.
/// After a raw `!<word>` operand, or a raw `!<word>` opcode, the rest of the instruction (up to
/// the next `OpName` or `%id =`) is read word by word: `!<word>`s, integers and ids.
pub fn assemble(text: &str) -> Result<Assembly, AssembleError> {
    let (tokens, version) = lex(text)?;
    let mut asm = Assembler {
        toks: &tokens,
        pos: 0,
        names: HashMap::new(),
        // Index 0 stands for the invalid id 0, so that ids index this directly.
        ids: vec![IdInfo::default()],
        words: vec![spirv::MAGIC_NUMBER, 0, 0, 0, 0],
        lines: Vec::new(),
    };
    while let Some(first) = asm.next_token() {
        asm.instruction(first)?;
    }
    if let Some(info) = asm.ids.iter().skip(1).find(|info| !info.defined) {
        let message = format!("`{}` is used but never defined", info.first.text);
        return Err(at(info.first.pos, message));
    }
    asm.words[1] = version.unwrap_or(1 << 16);
    asm.words[3] = asm.ids.len() as u32;
    Ok(Assembly { words: asm.words, lines: asm.lines })
}

/// A word or a quoted string of the source, with its position.
#[derive(Clone, Copy, Default)]
struct Token<'a> {
    /// The text; strings keep their quotes and escapes.
    text: &'a str,
    /// (line, column) of the first character.
    pos: (u32, u32),
    /// The position just past the token, where a missing operand is reported.
    end: (u32, u32),
}

impl Token<'_> {
    fn is_string(&self) -> bool {
        self.text.starts_with('"')
    }
}

fn at((line, column): (u32, u32), message: impl Into<String>) -> AssembleError {
    AssembleError { line, column, message: message.into() }
}

/// Walks the source bytes, keeping the (line, character column).
struct Cursor<'a> {
    bytes: &'a [u8],
    i: usize,
    pos: (u32, u32),
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.i).copied()
    }

    fn bump(&mut self) -> Option<u8> {
        let b = self.peek()?;
        self.i += 1;
        if b == b'\n' {
            self.pos = (self.pos.0 + 1, 1);
        } else if b & 0xC0 != 0x80 {
            // Only the first byte of a UTF-8 character starts a column.
            self.pos.1 += 1;
        }
        Some(b)
    }
}

/// Words end at white space or at a `;` comment.
fn ends_word(b: u8) -> bool {
    b.is_ascii_whitespace() || b == b';'
}

/// Splits the source into tokens, and reads the version from the header comments.
fn lex(text: &str) -> Result<(Vec<Token<'_>>, Option<u32>), AssembleError> {
    let mut cur = Cursor { bytes: text.as_bytes(), i: 0, pos: (1, 1) };
    let mut tokens = Vec::new();
    let mut version = None;
    while let Some(b) = cur.peek() {
        let (start, pos) = (cur.i, cur.pos);
        if b.is_ascii_whitespace() {
            cur.bump();
            continue;
        }
        if b == b';' {
            while cur.peek().is_some_and(|b| b != b'\n') {
                cur.bump();
            }
            if let Some(v) = version_comment(&text[start + 1..cur.i]).filter(|_| tokens.is_empty()) {
                version = Some(v.map_err(|m| at(pos, m))?);
            }
            continue;
        }
        if b == b'"' {
            cur.bump();
            loop {
                match cur.bump() {
                    Some(b'"') => break,
                    Some(b'\\') if cur.bump().is_some() => {}
                    Some(b) if b != b'\\' => {}
                    _ => return Err(at(pos, "unterminated string")),
                }
            }
            if cur.peek().is_some_and(|b| !ends_word(b)) {
                return Err(at(cur.pos, "expected a space after the closing quote"));
            }
        } else {
            while cur.peek().is_some_and(|b| !ends_word(b)) {
                cur.bump();
            }
        }
        tokens.push(Token { text: &text[start..cur.i], pos, end: cur.pos });
    }
    Ok((tokens, version))
}

/// Reads the version word from a `; Version: 1.3` comment, if the comment is one.
fn version_comment(comment: &str) -> Option<Result<u32, String>> {
    let rest = comment.trim().strip_prefix("Version:")?.trim();
    let parsed =
        rest.split_once('.').and_then(|(major, minor)| Some((major.parse::<u8>().ok()?, minor.parse::<u8>().ok()?)));
    Some(match parsed {
        Some((1, minor)) if minor <= spirv::MINOR_VERSION => Ok(1 << 16 | u32::from(minor) << 8),
        _ => Err(format!("unsupported SPIR-V version `{rest}` (expected 1.0 to 1.{})", spirv::MINOR_VERSION)),
    })
}

/// What the assembler knows about one id.
#[derive(Default)]
struct IdInfo<'a> {
    /// Where the id first appears, for the "never defined" error.
    first: Token<'a>,
    defined: bool,
    /// The result type of the instruction that defines the id, if any.
    ty: Option<u32>,
    /// Set when the id is a scalar numeric type, which gives its literals their width.
    num: Option<Num>,
    /// Set when the id is an OpExtInstImport.
    ext: Option<ExtSet>,
}

#[derive(Clone, Copy)]
enum Num {
    Int { width: u32, signed: bool },
    Float { width: u32 },
}

#[derive(Clone, Copy)]
enum ExtSet {
    Known(&'static InstructionTable<ExtInstOp>),
    /// A set rspirv has no grammar for: instructions are numbers and operands ids.
    Unknown,
}

/// An operand still expected by the instruction being assembled.
#[derive(Clone, Copy)]
struct Pending<'a> {
    kind: OperandKind,
    quant: OperandQuantifier,
    /// The opcode or enumerant that asks for it, for error messages.
    owner: &'a str,
}

/// Operands in the order to pop them from a stack: the first one last.
fn pending<'g, 'a>(
    operands: impl DoubleEndedIterator<Item = &'g LogicalOperand>,
    owner: &'a str,
) -> impl Iterator<Item = Pending<'a>> {
    operands.rev().map(move |o| Pending { kind: o.kind, quant: o.quantifier, owner })
}

struct Assembler<'t, 'a> {
    toks: &'t [Token<'a>],
    /// The next token to read.
    pos: usize,
    names: HashMap<&'a str, u32>,
    ids: Vec<IdInfo<'a>>,
    words: Vec<u32>,
    lines: Vec<(u32, u32)>,
}

impl<'a> Assembler<'_, 'a> {
    /// Assembles the instruction that starts with `first`, just taken.
    fn instruction(&mut self, first: Token<'a>) -> Result<(), AssembleError> {
        let start = self.words.len();
        self.lines.push((start as u32, first.pos.0));
        let first_pos = self.pos.saturating_sub(1);
        let starts = self.starts_instruction(first_pos) || first.text.starts_with('!');
        let previous = first_pos.checked_sub(1).and_then(|i| self.toks.get(i));
        if !starts && previous.is_some_and(|p| p.end.0 == first.pos.0) {
            let message = format!("too many operands: `{}` follows a complete instruction", first.text);
            return Err(at(first.pos, message));
        }
        let (result, op) = if first.text.starts_with('%') {
            let id = self.id(&first)?;
            if !starts {
                let here = self.toks.get(self.pos).map_or(first.end, |t| t.pos);
                return Err(at(here, format!("expected `=` after `{}`", first.text)));
            }
            let eq_end = self.toks.get(self.pos).map_or(first.end, |eq| eq.end);
            self.pos += 1;
            if std::mem::replace(&mut self.ids[id as usize].defined, true) {
                return Err(at(first.pos, format!("`{}` is defined more than once", first.text)));
            }
            let Some(op) = self.next_token() else {
                return Err(at(eq_end, "expected an opcode after `=`"));
            };
            (Some(id), op)
        } else {
            (None, first)
        };
        if let Some(raw) = op.text.strip_prefix('!') {
            if result.is_some() {
                let message = "a raw `!` opcode cannot have a result id".to_string();
                return Err(at(op.pos, message));
            }
            // The first word is written as given, word count included.
            self.words.push(raw_word(&op, raw)?);
            return self.raw_operands();
        }
        let inst = opcode(&op)?;
        let has_result = inst.operands.iter().any(|o| o.kind == OperandKind::IdResult);
        if result.is_some() && !has_result {
            return Err(at(first.pos, format!("{} does not produce a result id", op.text)));
        }
        if result.is_none() && has_result {
            let message = format!("{0} needs a result id: `%name = {0} ...`", op.text);
            return Err(at(op.pos, message));
        }
        self.words.push(inst.opcode as u32);
        let mut stack: Vec<Pending> = pending(inst.operands.iter(), op.text).collect();
        self.operands(&mut stack, start, result)?;
        let count = self.words.len() - start;
        if count > 0xFFFF {
            let message = format!("{} is too long: {count} words, the limit is 65535", op.text);
            return Err(at(op.pos, message));
        }
        self.words[start] |= (count as u32) << 16;
        if let Some(id) = result {
            self.describe_result(inst, start, id);
        }
        Ok(())
    }

    fn next_token(&mut self) -> Option<Token<'a>> {
        let tok = self.toks.get(self.pos).copied();
        self.pos += usize::from(tok.is_some());
        tok
    }

    fn at_instruction_start(&self) -> bool {
        self.starts_instruction(self.pos)
    }

    /// Whether the token at `pos` starts an instruction: `OpName` or `%id =`.
    fn starts_instruction(&self, pos: usize) -> bool {
        let Some(tok) = self.toks.get(pos) else {
            return false;
        };
        let opcode = tok.text.strip_prefix("Op").is_some_and(|r| r.starts_with(|c: char| c.is_ascii_uppercase()));
        let result = tok.text.starts_with('%') && self.toks.get(pos + 1).is_some_and(|t| t.text == "=");
        opcode || result
    }

    /// Reads the operands on `stack`, pushing more as enumerants and extended instructions ask.
    fn operands(
        &mut self,
        stack: &mut Vec<Pending<'a>>,
        start: usize,
        result: Option<u32>,
    ) -> Result<(), AssembleError> {
        while let Some(p) = stack.pop() {
            if p.kind == OperandKind::IdResult {
                // Written before the opcode, and checked to be there.
                self.words.extend(result);
                continue;
            }
            // `OpSpecConstantOp` takes `IAdd`, as spirv-dis writes it, and also `OpIAdd`.
            let opcode_operand = p.kind == OperandKind::LiteralSpecConstantOpInteger
                && self.toks.get(self.pos).is_some_and(|t| t.text.starts_with("Op"));
            let tok = match self.toks.get(self.pos) {
                Some(tok) if opcode_operand || !self.at_instruction_start() => *tok,
                _ if p.quant == OperandQuantifier::One => return Err(self.missing(&p)),
                _ => continue,
            };
            if tok.text.starts_with('!') {
                return self.raw_operands();
            }
            if p.quant == OperandQuantifier::ZeroOrMore {
                stack.push(p);
            }
            self.pos += 1;
            self.operand(&p, &tok, stack, start)?;
        }
        Ok(())
    }

    fn missing(&self, p: &Pending) -> AssembleError {
        let last = self.pos.checked_sub(1).and_then(|i| self.toks.get(i));
        let message = format!("missing operand: {} expects {}", p.owner, describe(p.kind));
        at(last.map_or((1, 1), |t| t.end), message)
    }

    /// Reads one operand of kind `p.kind` starting at `tok`, already taken.
    fn operand(
        &mut self,
        p: &Pending<'a>,
        tok: &Token<'a>,
        stack: &mut Vec<Pending<'a>>,
        start: usize,
    ) -> Result<(), AssembleError> {
        use OperandKind as K;
        match p.kind {
            K::IdResultType | K::IdRef | K::IdScope | K::IdMemorySemantics => {
                let id = self.id(tok)?;
                self.words.push(id);
            }
            K::LiteralInteger => self.words.push(literal_u32(tok)?),
            K::LiteralFloat => {
                let bits = float_bits(tok.text, 32).map_err(|m| at(tok.pos, m))?;
                self.words.push(bits as u32);
            }
            K::LiteralString => self.string(tok)?,
            K::LiteralContextDependentNumber => {
                // OpConstant, OpSpecConstant: the width comes from the result type, word 1.
                let ty = self.info(self.words.get(start + 1).copied());
                let Some(num) = ty.and_then(|ty| ty.num) else {
                    let ty = ty.map_or("", |ty| ty.first.text);
                    let message = format!(
                        "cannot read `{}`: its type `{ty}` is not an integer or float type declared earlier",
                        tok.text
                    );
                    return Err(at(tok.pos, message));
                };
                self.number(tok, num)?;
            }
            K::PairLiteralIntegerIdRef => {
                // OpSwitch: the width comes from the type of the selector, word 1.
                let selector = self.info(self.words.get(start + 1).copied());
                match self.info(selector.and_then(|s| s.ty)).and_then(|ty| ty.num) {
                    Some(num @ Num::Int { .. }) => self.number(tok, num)?,
                    _ => {
                        let selector = selector.map_or("", |s| s.first.text);
                        let message = format!(
                            "cannot read `{}`: the selector `{selector}` does not have an integer type declared earlier",
                            tok.text
                        );
                        return Err(at(tok.pos, message));
                    }
                }
                let label = self.pair_second(p)?;
                let id = self.id(&label)?;
                self.words.push(id);
            }
            K::PairIdRefLiteralInteger => {
                let id = self.id(tok)?;
                self.words.push(id);
                let literal = self.pair_second(p)?;
                self.words.push(literal_u32(&literal)?);
            }
            K::PairIdRefIdRef => {
                let first = self.id(tok)?;
                let second = self.pair_second(p)?;
                let second = self.id(&second)?;
                self.words.extend([first, second]);
            }
            K::LiteralExtInstInteger => self.ext_inst(tok, stack)?,
            K::LiteralSpecConstantOpInteger => {
                let name = tok.text.strip_prefix("Op").unwrap_or(tok.text);
                let inst = opcode_named(name).ok_or_else(|| at(tok.pos, format!("unknown opcode `{}`", tok.text)))?;
                self.words.push(inst.opcode as u32);
                stack.clear();
                let operands = inst.operands.iter();
                let operands = operands.filter(|o| !matches!(o.kind, K::IdResultType | K::IdResult));
                stack.extend(pending(operands, tok.text));
            }
            kind => match enumerant(kind, tok.text) {
                Some(Ok((value, params))) => {
                    self.words.push(value);
                    stack.extend(pending(params.iter(), tok.text));
                }
                Some(Err(message)) => return Err(at(tok.pos, message)),
                // Operand kinds of extended instruction sets are written as numbers.
                None => self.words.push(literal_u32(tok)?),
            },
        }
        Ok(())
    }

    fn info(&self, id: Option<u32>) -> Option<&IdInfo<'a>> {
        self.ids.get(id? as usize)
    }

    /// The second token of a two-token operand.
    fn pair_second(&mut self, p: &Pending) -> Result<Token<'a>, AssembleError> {
        if self.at_instruction_start() {
            return Err(self.missing(p));
        }
        self.next_token().ok_or_else(|| self.missing(p))
    }

    /// The id named by `tok`, numbering it if it is new.
    fn id(&mut self, tok: &Token<'a>) -> Result<u32, AssembleError> {
        let Some(name) = tok.text.strip_prefix('%') else {
            return Err(at(tok.pos, format!("expected an id, found `{}`", tok.text)));
        };
        if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            let message = format!("invalid id `{}`: ids are `%` followed by letters, digits and `_`", tok.text);
            return Err(at(tok.pos, message));
        }
        if let Some(&id) = self.names.get(tok.text) {
            return Ok(id);
        }
        let id = self.ids.len() as u32;
        self.names.insert(tok.text, id);
        self.ids.push(IdInfo { first: *tok, ..IdInfo::default() });
        Ok(id)
    }

    /// A string literal: UTF-8, nul-terminated, packed little-endian into words.
    fn string(&mut self, tok: &Token) -> Result<(), AssembleError> {
        let Some(body) = tok.text.strip_prefix('"').and_then(|s| s.strip_suffix('"')) else {
            return Err(at(tok.pos, format!("expected a string in double quotes, found `{}`", tok.text)));
        };
        let mut bytes = Vec::with_capacity(body.len() + 4);
        let mut iter = body.bytes();
        while let Some(b) = iter.next() {
            // A backslash takes the next byte as it is: `\"` and `\\`.
            bytes.push(if b == b'\\' { iter.next().unwrap_or(b) } else { b });
        }
        bytes.push(0);
        for chunk in bytes.chunks(4) {
            let mut word = [0; 4];
            word[..chunk.len()].copy_from_slice(chunk);
            self.words.push(u32::from_le_bytes(word));
        }
        Ok(())
    }

    /// A number of type `num`: one word, or two (low word first) for 64-bit types.
    fn number(&mut self, tok: &Token, num: Num) -> Result<(), AssembleError> {
        let (bits, width) = match num {
            Num::Int { width, signed } => (int_bits(tok.text, width, signed), width),
            Num::Float { width } => (float_bits(tok.text, width), width),
        };
        let bits = bits.map_err(|m| at(tok.pos, m))?;
        self.words.push(bits as u32);
        if width > 32 {
            self.words.push((bits >> 32) as u32);
        }
        Ok(())
    }

    /// The instruction name of OpExtInst, looked up in the set named by the previous operand.
    fn ext_inst(&mut self, tok: &Token<'a>, stack: &mut Vec<Pending<'a>>) -> Result<(), AssembleError> {
        let set = self.info(self.words.last().copied());
        let Some(ext) = set.and_then(|set| set.ext) else {
            let name = set.map_or("", |set| set.first.text);
            let message = format!("`{name}` is not an instruction set imported earlier with OpExtInstImport");
            return Err(at(tok.pos, message));
        };
        let table = match ext {
            ExtSet::Known(table) => Some(table),
            ExtSet::Unknown => None,
        };
        let (number, operands) = match table.and_then(|t| t.iter().find(|i| i.opname == tok.text)) {
            Some(inst) => (inst.opcode.into(), Some(inst.operands)),
            None => {
                let number = literal_u32(tok)
                    .map_err(|_| at(tok.pos, format!("unknown extended instruction `{}`", tok.text)))?;
                (number, table.and_then(|t| t.lookup_opcode(number)).map(|i| i.operands))
            }
        };
        self.words.push(number);
        stack.clear();
        match operands {
            Some(operands) => stack.extend(pending(operands.iter(), tok.text)),
            None => {
                stack.push(Pending { kind: OperandKind::IdRef, quant: OperandQuantifier::ZeroOrMore, owner: tok.text })
            }
        }
        Ok(())
    }

    /// After a raw `!<word>`: the rest of the instruction, word by word.
    fn raw_operands(&mut self) -> Result<(), AssembleError> {
        while let Some(tok) = self.toks.get(self.pos).copied() {
            if self.at_instruction_start() {
                break;
            }
            self.pos += 1;
            let word = match tok.text.strip_prefix('!') {
                Some(raw) => raw_word(&tok, raw)?,
                None if tok.text.starts_with('%') => self.id(&tok)?,
                None => literal_u32(&tok).map_err(|_| {
                    let message =
                        format!("expected a `!<word>`, an integer or an id after a raw `!` word, found `{}`", tok.text);
                    at(tok.pos, message)
                })?,
            };
            self.words.push(word);
        }
        Ok(())
    }

    /// Records what later instructions need to know about the id an instruction defines.
    fn describe_result(&mut self, inst: &Instruction, start: usize, id: u32) {
        let words = &self.words[start..];
        let info = &mut self.ids[id as usize];
        if inst.operands.first().is_some_and(|o| o.kind == OperandKind::IdResultType) {
            info.ty = words.get(1).copied();
        }
        match (inst.opcode, words.get(2).copied()) {
            (spirv::Op::TypeInt, Some(width)) => {
                let signed = words.get(3).is_some_and(|&s| s != 0);
                info.num = Some(Num::Int { width, signed });
            }
            // A float with an explicit encoding (such as bfloat16) is not an IEEE float.
            (spirv::Op::TypeFloat, Some(width)) if words.len() == 3 => info.num = Some(Num::Float { width }),
            (spirv::Op::ExtInstImport, _) => {
                let bytes: Vec<u8> =
                    (words.iter().skip(2)).flat_map(|w| w.to_le_bytes()).take_while(|&b| b != 0).collect();
                let name = String::from_utf8_lossy(&bytes);
                info.ext = Some(rspirv::grammar::ext_inst_table(&name).map_or(ExtSet::Unknown, ExtSet::Known));
            }
            _ => {}
        }
    }
}

/// The grammar of the opcode named by `tok` (`OpIAdd`).
fn opcode(tok: &Token) -> Result<&'static Instruction<'static>, AssembleError> {
    match tok.text.strip_prefix("Op").filter(|_| !tok.is_string()) {
        Some(name) => opcode_named(name).ok_or_else(|| at(tok.pos, format!("unknown opcode `{}`", tok.text))),
        None => Err(at(tok.pos, format!("expected an instruction, found `{}`", tok.text))),
    }
}

/// The grammar of an opcode by its name without `Op` (`IAdd`).
pub(crate) fn opcode_named(name: &str) -> Option<&'static Instruction<'static>> {
    static OPCODES: OnceLock<HashMap<&'static str, &'static Instruction<'static>>> = OnceLock::new();
    let table = OPCODES.get_or_init(|| rspirv::grammar::INSTRUCTION_TABLE.iter().map(|i| (i.opname, i)).collect());
    table
        .get(name)
        .or_else(|| OPCODE_ALIASES.iter().find(|(alias, _)| *alias == name).and_then(|(_, core)| table.get(core)))
        .copied()
}

/// Older names spirv-as still accepts for opcodes the grammar tables list under their core name.
const OPCODE_ALIASES: &[(&str, &str)] = &[
    ("DemoteToHelperInvocationEXT", "DemoteToHelperInvocation"),
    ("DecorateStringGOOGLE", "DecorateString"),
    ("MemberDecorateStringGOOGLE", "MemberDecorateString"),
    ("ReportIntersectionNV", "ReportIntersectionKHR"),
    ("TypeAccelerationStructureNV", "TypeAccelerationStructureKHR"),
];

/// How an operand kind reads in "missing operand" messages.
fn describe(kind: OperandKind) -> String {
    use OperandKind as K;
    match kind {
        K::IdResultType | K::IdRef | K::IdScope | K::IdMemorySemantics | K::IdResult => "an id".into(),
        K::LiteralString => "a string".into(),
        K::LiteralFloat => "a float".into(),
        K::LiteralContextDependentNumber => "a number".into(),
        K::LiteralExtInstInteger => "an extended instruction name".into(),
        K::LiteralSpecConstantOpInteger => "an opcode name".into(),
        K::PairLiteralIntegerIdRef => "a literal and a label".into(),
        K::PairIdRefLiteralInteger => "an id and a literal integer".into(),
        K::PairIdRefIdRef => "two ids".into(),
        kind if enumerant(kind, "").is_some() => format!("a {kind:?} operand"),
        _ => "a literal integer".into(),
    }
}

fn literal_u32(tok: &Token) -> Result<u32, AssembleError> {
    int_bits(tok.text, 32, false).map(|bits| bits as u32).map_err(|m| at(tok.pos, m))
}

/// The word of a raw `!<word>` token, `raw` being the text after the `!`.
fn raw_word(tok: &Token, raw: &str) -> Result<u32, AssembleError> {
    int_bits(raw, 32, false)
        .map(|bits| bits as u32)
        .map_err(|_| at(tok.pos, format!("expected a 32-bit word after `!`, found `{}`", tok.text)))
}

/// Declares the enumerant lookup for the operand kinds named by the `spirv` crate's types.
macro_rules! enumerants {
    (values: $($value:ident)*; masks: $($mask:ident)*;) => {
        /// Looks up `name` as an operand of `kind`: one enumerant, or mask bits joined by `|`.
        /// Gives the value and the operands that follow it; `None` if `kind` has no names.
        fn enumerant(kind: OperandKind, name: &str) -> Option<Result<(u32, Vec<LogicalOperand>), String>> {
            Some(match kind {
                // The spirv crate spells names that start with a digit after the kind: `Dim2D`.
                $(OperandKind::$value => match spirv::$value::from_str(name)
                    .or_else(|()| spirv::$value::from_str(&format!("{}{name}", stringify!($value))))
                {
                    Ok(v) => Ok((v as u32, Operand::$value(v).additional_operands())),
                    Err(()) => Err(format!("unknown {} `{name}`", stringify!($value))),
                },)*
                $(OperandKind::$mask => mask(name, stringify!($mask), |part| {
                    let flag = spirv::$mask::all().iter_names().find(|(n, _)| same_name(n, part)).map(|(_, f)| f);
                    // Zero-valued names (`None`) are not listed by `iter_names`.
                    let flag = flag.or_else(|| spirv::$mask::from_name(&shouty(part)))?;
                    Some((flag.bits(), Operand::$mask(flag).additional_operands()))
                }),)*
                _ => return None,
            })
        }
    };
}

enumerants! {
    values: SourceLanguage ExecutionModel AddressingModel MemoryModel ExecutionMode StorageClass Dim
        SamplerAddressingMode SamplerFilterMode ImageFormat ImageChannelOrder ImageChannelDataType
        FPRoundingMode FPDenormMode QuantizationModes FPOperationMode OverflowModes LinkageType
        AccessQualifier HostAccessQualifier FunctionParameterAttribute Decoration BuiltIn Scope
        GroupOperation KernelEnqueueFlags Capability RayQueryIntersection
        RayQueryCommittedIntersectionType RayQueryCandidateIntersectionType PackedVectorFormat
        CooperativeMatrixLayout CooperativeMatrixUse TensorClampMode InitializationModeQualifier
        LoadCacheControl StoreCacheControl NamedMaximumNumberOfRegisters FPEncoding
        CooperativeVectorMatrixLayout ComponentType;
    masks: ImageOperands FPFastMathMode SelectionControl LoopControl FunctionControl MemorySemantics
        MemoryAccess KernelProfilingInfo RayFlags FragmentShadingRate RawAccessChainOperands
        CooperativeMatrixOperands CooperativeMatrixReduce TensorAddressingOperands
        MatrixMultiplyAccumulateOperands TensorOperands;
}

/// A mask written as names joined by `|`. The operands its bits ask for follow in bit order.
fn mask(
    text: &str,
    kind: &str,
    bit: impl Fn(&str) -> Option<(u32, Vec<LogicalOperand>)>,
) -> Result<(u32, Vec<LogicalOperand>), String> {
    let mut bits = Vec::new();
    for part in text.split('|') {
        bits.push(bit(part).ok_or_else(|| format!("unknown {kind} `{part}`"))?);
    }
    bits.sort_by_key(|(value, _)| *value);
    bits.dedup_by_key(|(value, _)| *value);
    let value = bits.iter().fold(0, |acc, (value, _)| acc | value);
    Ok((value, bits.into_iter().flat_map(|(_, params)| params).collect()))
}

/// Whether a bitflags constant (`NOT_NAN`) is the grammar name (`NotNaN`).
fn same_name(constant: &str, name: &str) -> bool {
    let a = constant.bytes().filter(|&b| b != b'_');
    let b = name.bytes().filter(|&b| b != b'_').map(|b| b.to_ascii_uppercase());
    a.eq(b)
}

/// `NoneKHR` as a bitflags constant name: `NONE_KHR`.
fn shouty(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    let mut prev_lower = false;
    for c in name.chars() {
        if prev_lower && c.is_ascii_uppercase() {
            out.push('_');
        }
        prev_lower = c.is_ascii_lowercase();
        out.push(c.to_ascii_uppercase());
    }
    out
}

/// Splits a leading `-` or `+` off a number.
fn split_sign(text: &str) -> (bool, &str) {
    match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    }
}

/// The bits of an integer literal for a `width`-bit integer type, sign-extended to 64 bits if
/// `signed`. Like spirv-as: decimal, hex (`0x`) or octal (leading `0`); hex gives the bit pattern
/// (`0xffff` is -1 as a 16-bit signed integer) while decimal must be in the type's range.
fn int_bits(text: &str, width: u32, signed: bool) -> Result<u64, String> {
    let sign = if signed { "signed" } else { "unsigned" };
    if !(1..=64).contains(&width) {
        return Err(format!("{width}-bit integer literals are not supported"));
    }
    let (negative, body) = split_sign(text);
    let (radix, digits) = match body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        Some(hex) => (16, hex),
        None if body.len() > 1 && body.starts_with('0') => (8, &body[1..]),
        None => (10, body),
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return Err(format!("expected a {width}-bit {sign} integer, found `{text}`"));
    }
    let too_big = || format!("`{text}` does not fit in a {width}-bit {sign} integer");
    let magnitude = u64::from_str_radix(digits, radix).map_err(|_| too_big())?;
    let max = u64::MAX >> (64 - width);
    if !signed {
        if negative {
            return Err(format!("`{text}` is negative but the literal is unsigned"));
        }
        return if magnitude <= max { Ok(magnitude) } else { Err(too_big()) };
    }
    let half = 1u64 << (width - 1);
    let value = if negative {
        if magnitude > half {
            return Err(too_big());
        }
        (magnitude as i64).wrapping_neg()
    } else if radix == 16 {
        if magnitude > max {
            return Err(too_big());
        }
        let unused = 64 - width;
        ((magnitude << unused) as i64) >> unused
    } else {
        if magnitude >= half {
            return Err(too_big());
        }
        magnitude as i64
    };
    Ok(value as u64)
}

/// The bits of a float literal for a `width`-bit float type, like spirv-as: decimal literals
/// round to nearest, except 16-bit ones, which round to 32 bits and then truncate; hex literals
/// (`-0x1.8p+1`, as spirv-dis prints them) truncate the bits that do not fit, and an exponent
/// one past the largest gives infinity or NaN (`0x1p+128`, `0x1.8p+128`).
fn float_bits(text: &str, width: u32) -> Result<u64, String> {
    let (frac_bits, exp_bits) = match width {
        16 => (10, 5),
        32 => (23, 8),
        64 => (52, 11),
        _ => return Err(format!("{width}-bit float literals are not supported")),
    };
    let invalid = || format!("expected a {width}-bit float, found `{text}`");
    let out_of_range = || format!("`{text}` is out of range for a {width}-bit float");
    let (negative, body) = split_sign(text);
    if let Some(hex) = body.strip_prefix("0x") {
        let (mantissa, exp) = hex_float(hex).ok_or_else(invalid)?;
        return Ok(pack_float(negative, mantissa, exp, frac_bits, exp_bits));
    }
    let decimal = body.bytes().all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'));
    if !decimal || !body.bytes().any(|b| b.is_ascii_digit()) {
        return Err(invalid());
    }
    if width == 64 {
        let value: f64 = text.parse().map_err(|_| invalid())?;
        return if value.is_finite() { Ok(value.to_bits()) } else { Err(out_of_range()) };
    }
    let value: f32 = text.parse().map_err(|_| invalid())?;
    if !value.is_finite() {
        return Err(out_of_range());
    }
    if width == 32 {
        return Ok(u64::from(value.to_bits()));
    }
    let bits = value.to_bits();
    let (exp_field, frac) = ((bits >> 23) & 0xFF, bits & 0x7F_FFFF);
    let (mantissa, exp) = match exp_field {
        0 => (frac, -149),
        _ => (frac | 1 << 23, i64::from(exp_field) - 150),
    };
    let half = pack_float(value.is_sign_negative(), u64::from(mantissa), exp, frac_bits, exp_bits);
    if (half >> frac_bits) & 0x1F == 0x1F {
        return Err(out_of_range());
    }
    Ok(half)
}

/// Reads the part of a hex float after `0x` (`1.8p+1`) as mantissa * 2^exp.
fn hex_float(hex: &str) -> Option<(u64, i64)> {
    let (digits, exp) = hex.split_once('p')?;
    let (exp_negative, exp_digits) = split_sign(exp);
    if exp_digits.is_empty() || !exp_digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // Exponents past any format's range all mean the same; clamping keeps the arithmetic small.
    let exp = exp_digits.parse::<i64>().unwrap_or(i64::MAX).min(1 << 20);
    let mut exp = if exp_negative { -exp } else { exp };
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    let mut mantissa = 0u64;
    for (i, c) in int.chars().chain(frac.chars()).enumerate() {
        let digit = u64::from(c.to_digit(16)?);
        let in_fraction = i >= int.len();
        if mantissa >> 56 == 0 {
            mantissa = mantissa << 4 | digit;
            exp -= if in_fraction { 4 } else { 0 };
        } else if !in_fraction {
            // Digits past 56 bits are dropped (truncation), but integer digits still scale.
            exp += 4;
        }
    }
    Some((mantissa, exp))
}

/// Packs (-1)^negative * mantissa * 2^exp into a float with the given field widths, truncating
/// the bits that do not fit. Values past the largest exponent are infinite; at exactly one past
/// it, the fraction bits are kept, which is how spirv-dis writes NaNs.
fn pack_float(negative: bool, mantissa: u64, exp: i64, frac_bits: u32, exp_bits: u32) -> u64 {
    let sign = u64::from(negative) << (frac_bits + exp_bits);
    if mantissa == 0 {
        return sign;
    }
    let bias = (1i64 << (exp_bits - 1)) - 1;
    let top = 63 - i64::from(mantissa.leading_zeros());
    // The value is in [2^e, 2^(e+1)).
    let e = exp + top;
    if e > bias + 1 {
        return sign | ((1 << exp_bits) - 1) << frac_bits;
    }
    if e >= 1 - bias {
        let frac = shift(mantissa, i64::from(frac_bits) - top) & ((1 << frac_bits) - 1);
        return sign | ((e + bias) as u64) << frac_bits | frac;
    }
    // Subnormal: a count of the smallest subnormal, 2^(1 - bias - frac_bits).
    sign | shift(mantissa, exp + bias - 1 + i64::from(frac_bits))
}

/// `value` shifted left by `by` bits, or right if `by` is negative.
fn shift(value: u64, by: i64) -> u64 {
    match by {
        0..=63 => value << by,
        -63..=-1 => value >> -by,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The words of the instruction that starts on `line`.
    fn inst(asm: &Assembly, line: u32) -> &[u32] {
        let k = asm.lines.iter().position(|&(_, l)| l == line).expect("no instruction on that line");
        let start = asm.lines[k].0 as usize;
        let end = asm.lines.get(k + 1).map_or(asm.words.len(), |&(w, _)| w as usize);
        &asm.words[start..end]
    }

    fn error(text: &str) -> (u32, u32, String) {
        let e = assemble(text).err().expect("assembly should fail");
        (e.line, e.column, e.message)
    }

    const TYPES: &str = "\
%f32 = OpTypeFloat 32
%f64 = OpTypeFloat 64
%f16 = OpTypeFloat 16
%i16 = OpTypeInt 16 1
%u64 = OpTypeInt 64 0
%i32 = OpTypeInt 32 1
";

    #[test]
    fn whole_module() {
        let text = "; SPIR-V\n; Version: 1.3\nOpCapability Shader\nOpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main \"main\"\nOpExecutionMode %main LocalSize 1 1 1
%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%main = OpFunction %void None %fn
%entry = OpLabel\nOpReturn\nOpFunctionEnd\n";
        let asm = assemble(text).unwrap();
        // Ids by first appearance: %main 1, %void 2, %fn 3, %entry 4; so the bound is 5.
        #[rustfmt::skip]
        let expected = [
            0x0723_0203, 0x0001_0300, 0, 5, 0,
            0x0002_0011, 1,
            0x0003_000e, 0, 1,
            0x0005_000f, 5, 1, 0x6e69_616d, 0,
            0x0006_0010, 1, 17, 1, 1, 1,
            0x0002_0013, 2,
            0x0003_0021, 3, 2,
            0x0005_0036, 2, 1, 0, 3,
            0x0002_00f8, 4,
            0x0001_00fd,
            0x0001_0038,
        ];
        assert_eq!(asm.words, expected);
        let lines: Vec<u32> = asm.lines.iter().map(|&(_, line)| line).collect();
        assert_eq!(lines, (3..=12).collect::<Vec<_>>());
        assert_eq!(asm.lines[..3], [(5, 3), (7, 4), (10, 5)]);
    }

    #[test]
    fn version_comment_or_default() {
        assert_eq!(assemble("OpNop").unwrap().words[1], 0x0001_0000);
        assert_eq!(assemble("; Version: 1.5\nOpNop").unwrap().words[1], 0x0001_0500);
        // Only header comments count.
        assert_eq!(assemble("OpNop\n; Version: 1.5").unwrap().words[1], 0x0001_0000);
        let (line, col, message) = error("  ; Version: 2.0\nOpNop");
        assert_eq!((line, col), (1, 3));
        assert!(message.contains("unsupported SPIR-V version `2.0`"), "{message}");
    }

    #[test]
    fn forward_references_number_in_order_of_appearance() {
        let asm = assemble("OpName %b \"b\"\n%a = OpTypeVoid\n%b = OpTypePointer Function %a").unwrap();
        assert_eq!(inst(&asm, 1)[1], 1);
        assert_eq!(inst(&asm, 2), [0x0002_0013, 2]);
        assert_eq!(inst(&asm, 3), [0x0004_0020, 1, 7, 2]);
        assert_eq!(asm.words[3], 3);
    }

    #[test]
    fn numeric_ids_are_renumbered() {
        let asm = assemble("%7 = OpTypeVoid\n%3 = OpTypeBool").unwrap();
        assert_eq!(inst(&asm, 1), [0x0002_0013, 1]);
        assert_eq!(inst(&asm, 2), [0x0002_0014, 2]);
    }

    #[test]
    fn constants_take_their_width_from_the_type() {
        let text = format!(
            "{TYPES}%a = OpConstant %f32 -0x1.8p+1
%b = OpConstant %f32 0x1p+128
%c = OpConstant %f32 -0x1.8p+128
%d = OpConstant %f32 0x1p-149
%e = OpConstant %f32 0x1.0000018p+0
%f = OpConstant %f64 1.5
%g = OpConstant %i16 -2
%h = OpConstant %i16 0xffff
%i = OpSpecConstant %u64 0x100000002
%j = OpConstant %f16 2051
%k = OpConstant %f16 -0x1.8p+1
%l = OpConstant %f32 0.1
"
        );
        let asm = assemble(&text).unwrap();
        let last = |line| *inst(&asm, line).last().unwrap();
        assert_eq!(last(7), 0xc040_0000);
        assert_eq!(last(8), 0x7f80_0000, "infinity");
        assert_eq!(last(9), 0xffc0_0000, "NaN keeps its fraction bits");
        assert_eq!(last(10), 1, "smallest subnormal");
        assert_eq!(last(11), 0x3f80_0000, "hex floats truncate, as spirv-as does");
        assert_eq!(inst(&asm, 12)[3..], [0, 0x3ff8_0000], "low word first");
        assert_eq!(last(13), 0xffff_fffe, "signed narrow ints are sign-extended");
        assert_eq!(last(14), 0xffff_ffff, "hex gives the bit pattern");
        assert_eq!(inst(&asm, 15), [0x0005_0032, 5, 15, 2, 1]);
        // 2051 is halfway between the halves 2050 and 2052: spirv-as truncates to 2050.
        assert_eq!(last(16), 0x6801);
        assert_eq!(last(17), 0xc200);
        assert_eq!(last(18), 0x3dcc_cccd, "decimal rounds to nearest");
    }

    #[test]
    fn literal_range_errors() {
        let cases = [
            ("%x = OpConstant %i16 32768", "`32768` does not fit in a 16-bit signed integer"),
            ("%x = OpConstant %u64 -1", "`-1` is negative but the literal is unsigned"),
            ("%x = OpConstant %f32 1e39", "`1e39` is out of range for a 32-bit float"),
            ("%x = OpConstant %f32 inf", "expected a 32-bit float, found `inf`"),
            ("%x = OpConstant %f16 65536", "`65536` is out of range for a 16-bit float"),
        ];
        for (line, expected) in cases {
            let (l, c, message) = error(&format!("{TYPES}{line}"));
            assert_eq!((l, c, message.as_str()), (7, 22, expected), "{line}");
        }
    }

    #[test]
    fn switch_literals_follow_the_selector_type() {
        let text =
            format!("{TYPES}%s = OpConstant %u64 1\nOpSwitch %s %d 0x100000000 %l 7 %l\n%d = OpLabel\n%l = OpLabel");
        let asm = assemble(&text).unwrap();
        // %s is 7, %d 8, %l 9; each 64-bit case literal takes two words, low first.
        assert_eq!(inst(&asm, 8), [0x0009_00fb, 7, 8, 0, 1, 9, 7, 0, 9]);
        let (line, col, message) = error(&format!("{TYPES}OpSwitch %f32 %d 1 %d\n%d = OpLabel"));
        assert_eq!((line, col), (7, 18));
        assert!(message.contains("the selector `%f32` does not have an integer type"), "{message}");
    }

    #[test]
    fn enumerants_masks_and_their_operands() {
        let text = "OpDecorate %x LinkageAttributes \"ab\" Export
OpDecorate %x BuiltIn Position
%l = OpLoad %t %p Volatile|Aligned 4
%m = OpLoad %t %p MakePointerAvailable|Aligned 16 %scope
%i = OpImageSampleExplicitLod %t %s %c Lod|ConstOffset %lod %off
OpSelectionMerge %x None
%t = OpTypeImage %x 2D 0 0 0 1 Rgba8
%x = OpUndef %p\n%p = OpTypeVoid\n%s = OpUndef %p\n%c = OpUndef %p\n%scope = OpUndef %p
%lod = OpUndef %p\n%off = OpUndef %p";
        let asm = assemble(text).unwrap();
        assert_eq!(inst(&asm, 1), [0x0005_0047, 1, 41, 0x6261, 0]);
        assert_eq!(inst(&asm, 2), [0x0004_0047, 1, 11, 0]);
        assert_eq!(inst(&asm, 3), [0x0006_003d, 3, 2, 4, 3, 4]);
        // Operands follow in bit order (Aligned 0x2 before MakePointerAvailable 0x8).
        assert_eq!(inst(&asm, 4), [0x0007_003d, 3, 5, 4, 10, 16, 6]);
        assert_eq!(inst(&asm, 5), [0x0008_0058, 3, 7, 8, 9, 0xa, 10, 11]);
        assert_eq!(inst(&asm, 6), [0x0003_00f7, 1, 0]);
        assert_eq!(inst(&asm, 7), [0x0009_0019, 3, 1, 1, 0, 0, 0, 1, 4]);
    }

    #[test]
    fn ext_inst_and_spec_constant_op() {
        let text = format!(
            "%glsl = OpExtInstImport \"GLSL.std.450\"\n{TYPES}%x = OpConstant %f32 2
%r = OpExtInst %f32 %glsl Sqrt %x
%m = OpExtInst %f32 %glsl FMix %x %x %x
%a = OpSpecConstantOp %i32 IAdd %x %x
%other = OpExtInstImport \"NonSemantic.Unknown\"
%o = OpExtInst %f32 %other 7 %x %x
%b = OpSpecConstantOp %i32 OpIAdd %x %x"
        );
        let asm = assemble(&text).unwrap();
        assert_eq!(inst(&asm, 1)[..2], [0x0006_000b, 1]);
        assert_eq!(inst(&asm, 9), [0x0006_000c, 2, 9, 1, 31, 8]);
        assert_eq!(inst(&asm, 10), [0x0008_000c, 2, 10, 1, 46, 8, 8, 8]);
        assert_eq!(inst(&asm, 11), [0x0006_0034, 7, 11, 128, 8, 8]);
        assert_eq!(inst(&asm, 13), [0x0007_000c, 2, 13, 12, 7, 8, 8]);
        assert_eq!(inst(&asm, 14), [0x0006_0034, 7, 14, 128, 8, 8]);
        let (line, col, message) = error(&format!("{text}\n%y = OpExtInst %f32 %glsl Foo %x"));
        assert_eq!((line, col, message.as_str()), (15, 27, "unknown extended instruction `Foo`"));
    }

    #[test]
    fn strings_escapes_and_layout() {
        let asm = assemble("OpName %x \"a\\\"b\\\\\"\nOpName %x \"abc\"\nOpName %x \"é\"\n%x = OpTypeVoid").unwrap();
        assert_eq!(inst(&asm, 1), [0x0004_0005, 1, 0x5c62_2261, 0]);
        assert_eq!(inst(&asm, 2), [0x0003_0005, 1, 0x0063_6261]);
        assert_eq!(inst(&asm, 3), [0x0003_0005, 1, 0x0000_a9c3]);
    }

    #[test]
    fn raw_words() {
        let text = "%x = OpTypeVoid\nOpDecorate %x Location !7 %x 9\n!0x00020011 !1\nOpNop\n!0x00020011 2";
        let asm = assemble(text).unwrap();
        // After a raw word, words run on to the next opcode; the word count is still computed.
        assert_eq!(inst(&asm, 2), [0x0008_0047, 1, 30, 7, 1, 9, 0x0002_0011, 1]);
        // A raw opcode word is written as it is.
        assert_eq!(inst(&asm, 5), [0x0002_0011, 2]);
    }

    #[test]
    fn instructions_are_split_by_grammar_not_lines() {
        let asm = assemble("OpCapability Shader OpMemoryModel\n  Logical GLSL450\nOpEntryPoint Fragment %f \"f\" %a\n%b\n%f = OpTypeVoid\n%a = OpTypeBool\n%b = OpTypeInt 32 0").unwrap();
        assert_eq!(asm.lines[..3], [(5, 1), (7, 1), (10, 3)]);
        assert_eq!(inst(&asm, 3), [0x0006_000f, 4, 1, 0x66, 2, 3]);
    }

    #[test]
    fn phi_pairs() {
        let asm = assemble("%l = OpLabel\n%t = OpTypeBool\n%v = OpUndef %t\n%p = OpPhi %t %v %l %v %m\n%m = OpLabel")
            .unwrap();
        assert_eq!(inst(&asm, 4), [0x0007_00f5, 2, 4, 3, 1, 3, 5]);
    }

    #[test]
    fn errors_point_at_the_offending_token() {
        let cases: [(&str, (u32, u32), &str); 12] = [
            ("OpCapability Shader\n  OpFoo %x", (2, 3), "unknown opcode `OpFoo`"),
            ("%t = OpTypeInt 32 0\n%x = OpIAdd %t 3 %t", (2, 16), "expected an id, found `3`"),
            ("%t = OpTypeInt 32 0\n%x = OpIAdd %t %x %y", (2, 19), "`%y` is used but never defined"),
            ("%t = OpTypeInt 32 0\n%x = OpIAdd %t %x\n", (2, 18), "missing operand: OpIAdd expects an id"),
            ("%t = OpTypeInt 32 0 %t", (1, 21), "too many operands: `%t` follows a complete instruction"),
            ("%t = OpTypeVoid\n%t = OpTypeBool", (2, 1), "`%t` is defined more than once"),
            ("OpName %t \"abc\n%t = OpTypeVoid", (1, 11), "unterminated string"),
            ("OpCapability Shadr", (1, 14), "unknown Capability `Shadr`"),
            ("%l = OpLoad %l %l Aligned", (1, 26), "missing operand: Aligned expects a literal integer"),
            ("OpTypeVoid", (1, 1), "OpTypeVoid needs a result id: `%name = OpTypeVoid ...`"),
            ("%x = OpReturn", (1, 1), "OpReturn does not produce a result id"),
            ("%x OpTypeVoid", (1, 4), "expected `=` after `%x`"),
        ];
        for (text, at, message) in cases {
            assert_eq!(error(text), (at.0, at.1, message.to_string()), "{text}");
        }
    }

    #[test]
    fn display_is_line_colon_column() {
        let e = assemble("OpCapability Shader\n  OpFoo").err().unwrap();
        assert_eq!(e.to_string(), "2:3: unknown opcode `OpFoo`");
        assert_eq!(
            opcode_named("DemoteToHelperInvocationEXT").map(|i| i.opcode),
            Some(spirv::Op::DemoteToHelperInvocation)
        );
    }

    #[test]
    fn never_panics_on_damaged_input() {
        let text = format!(
            "; Version: 1.0\n%glsl = OpExtInstImport \"GLSL.std.450\"\n{TYPES}%x = OpConstant %f32 -0x1.8p+1
%s = OpConstant %u64 5\nOpSwitch %s %l 1 %l\n%r = OpExtInst %f32 %glsl Sqrt %x
%v = OpLoad %f32 %x Aligned|Volatile 4 ; c\nOpName %x \"a\\\"é\"\n%l = OpLabel !3\n"
        );
        let chars: Vec<char> = text.chars().collect();
        for cut in 0..chars.len() {
            let truncated: String = chars[..cut].iter().collect();
            let _ = assemble(&truncated);
            for replacement in ['"', '%', '\\', ' ', '\n', '|', '!', '-', 'x', 'é', ';', '='] {
                let mut damaged = chars.clone();
                damaged[cut] = replacement;
                let _ = assemble(&damaged.iter().collect::<String>());
            }
        }
    }
}
