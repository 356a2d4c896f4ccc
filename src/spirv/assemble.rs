//! SPIR-V assembler: turns the text `spirv-dis` prints (and `spirv-as` reads) into SPIR-V words.
//!
//! Instruction layouts come from rspirv's grammar tables, the operands that follow an enumerant
//! (`Location 0`, `Aligned 4`) from `rspirv::dr::Operand::additional_operands`, and enumerant
//! names from the `spirv` crate.
//!
//! The words match `spirv-as` exactly, except for the generator word, with these choices:
//! - The version comes from a `; Version: X.Y` comment before the first instruction (which
//!   `spirv-dis` writes), else it is 1.0: the output equals `spirv-as --target-env spvX.Y`.
//! - The generator word is 0 (an unregistered tool); `spirv-as` writes its own, 0x0007_0000.
//! - Ids are numbered from 1 in order of first appearance, numeric names such as `%12` included,
//!   as `spirv-as` does without `--preserve-numeric-ids`; the bound is one past the last.
//!
//! Unlike `spirv-as`, this refuses ids that are used but never defined or defined twice, accepts
//! every instruction and enumerant whatever the version, accepts `OpSpecConstantOp` opcode names
//! with or without the `Op` prefix, and accepts numbers as extended instruction names. After a raw
//! `!<word>` operand, or a raw `!<word>` opcode, the rest of the instruction (up to the next
//! `OpName` or `%id =`) is read word by word: `!<word>`s, integers and ids.

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

use rspirv::dr::Operand;
use rspirv::grammar::{
    ExtInstOp, Instruction, InstructionTable, LogicalOperand, OperandKind, OperandQuantifier,
};

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
pub fn assemble(text: &str) -> Result<Assembly, AssembleError> {
    let (tokens, version) = lex(text)?;
    let mut asm = Assembler {
        toks: &tokens,
        pos: 0,
        names: HashMap::new(),
        // Index 0 stands for the invalid id 0, so that ids index this directly.
        ids: vec![IdInfo::new(Token::default())],
        words: vec![spirv::MAGIC_NUMBER, 0, 0, 0, 0],
        lines: Vec::new(),
    };
    while let Some(first) = asm.next_token() {
        asm.instruction(first)?;
    }
    if let Some(info) = asm.ids.iter().skip(1).find(|info| !info.defined) {
        let message = format!("`{}` is used but never defined", info.first.text);
        return Err(at(&info.first, message));
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
    line: u32,
    col: u32,
    /// The position just past the token, where a missing operand is reported.
    end: (u32, u32),
}

impl Token<'_> {
    fn is_string(&self) -> bool {
        self.text.starts_with('"')
    }
}

fn at(tok: &Token, message: String) -> AssembleError {
    AssembleError { line: tok.line, column: tok.col, message }
}

/// Walks the source bytes, keeping the line and (character) column.
struct Cursor<'a> {
    bytes: &'a [u8],
    i: usize,
    line: u32,
    col: u32,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.i).copied()
    }

    fn bump(&mut self) -> Option<u8> {
        let b = self.peek()?;
        self.i += 1;
        if b == b'\n' {
            self.line += 1;
            self.col = 1;
        } else if b & 0xC0 != 0x80 {
            // Only the first byte of a UTF-8 character starts a column.
            self.col += 1;
        }
        Some(b)
    }

    fn error(&self, message: String) -> AssembleError {
        AssembleError { line: self.line, column: self.col, message }
    }
}

/// Words end at white space or at a `;` comment.
fn ends_word(b: u8) -> bool {
    b.is_ascii_whitespace() || b == b';'
}

/// Splits the source into tokens, and reads the version from the header comments.
fn lex(text: &str) -> Result<(Vec<Token<'_>>, Option<u32>), AssembleError> {
    let mut cur = Cursor { bytes: text.as_bytes(), i: 0, line: 1, col: 1 };
    let mut tokens = Vec::new();
    let mut version = None;
    while let Some(b) = cur.peek() {
        let (start, line, col) = (cur.i, cur.line, cur.col);
        if b.is_ascii_whitespace() {
            cur.bump();
            continue;
        }
        if b == b';' {
            while cur.peek().is_some_and(|b| b != b'\n') {
                cur.bump();
            }
            if tokens.is_empty() {
                if let Some(v) = version_comment(&text[start + 1..cur.i]) {
                    version = Some(v.map_err(|m| AssembleError { line, column: col, message: m })?);
                }
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
                    _ => {
                        let message = "unterminated string".to_string();
                        return Err(AssembleError { line, column: col, message });
                    }
                }
            }
            if cur.peek().is_some_and(|b| !ends_word(b)) {
                return Err(cur.error("expected a space after the closing quote".to_string()));
            }
        } else {
            while cur.peek().is_some_and(|b| !ends_word(b)) {
                cur.bump();
            }
        }
        let end = (cur.line, cur.col);
        tokens.push(Token { text: &text[start..cur.i], line, col, end });
    }
    Ok((tokens, version))
}

/// Reads the version word from a `; Version: 1.3` comment, if the comment is one.
fn version_comment(comment: &str) -> Option<Result<u32, String>> {
    let rest = comment.trim().strip_prefix("Version:")?.trim();
    let parsed = rest.split_once('.').and_then(|(major, minor)| {
        Some((major.parse::<u8>().ok()?, minor.parse::<u8>().ok()?))
    });
    Some(match parsed {
        Some((1, minor)) if minor <= spirv::MINOR_VERSION => Ok(1 << 16 | u32::from(minor) << 8),
        _ => Err(format!(
            "unsupported SPIR-V version `{rest}` (expected 1.0 to 1.{})",
            spirv::MINOR_VERSION
        )),
    })
}

/// What the assembler knows about one id.
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

impl<'a> IdInfo<'a> {
    fn new(first: Token<'a>) -> Self {
        IdInfo { first, defined: false, ty: None, num: None, ext: None }
    }
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
fn pending<'a>(operands: &[LogicalOperand], owner: &'a str) -> impl Iterator<Item = Pending<'a>> {
    operands.iter().rev().map(move |o| Pending { kind: o.kind, quant: o.quantifier, owner })
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
        self.lines.push((start as u32, first.line));
        let first_pos = self.pos.saturating_sub(1);
        let starts = self.starts_instruction(first_pos) || first.text.starts_with('!');
        let previous = first_pos.checked_sub(1).and_then(|i| self.toks.get(i));
        if !starts && previous.is_some_and(|p| p.end.0 == first.line) {
            let message = format!("too many operands: `{}` follows a complete instruction", first.text);
            return Err(at(&first, message));
        }
        let (result, op) = if first.text.starts_with('%') {
            let id = self.id(&first)?;
            if !starts {
                let (line, column) = self.toks.get(self.pos).map_or(first.end, |t| (t.line, t.col));
                let message = format!("expected `=` after `{}`", first.text);
                return Err(AssembleError { line, column, message });
            }
            let eq_end = self.toks.get(self.pos).map_or(first.end, |eq| eq.end);
            self.pos += 1;
            if std::mem::replace(&mut self.ids[id as usize].defined, true) {
                return Err(at(&first, format!("`{}` is defined more than once", first.text)));
            }
            let Some(op) = self.next_token() else {
                let (line, column) = eq_end;
                let message = "expected an opcode after `=`".to_string();
                return Err(AssembleError { line, column, message });
            };
            (Some(id), op)
        } else {
            (None, first)
        };
        if let Some(raw) = op.text.strip_prefix('!') {
            if result.is_some() {
                let message = "a raw `!` opcode cannot have a result id".to_string();
                return Err(at(&op, message));
            }
            // The first word is written as given, word count included.
            self.words.push(raw_word(&op, raw)?);
            return self.raw_operands();
        }
        let inst = opcode(&op)?;
        let has_result = inst.operands.iter().any(|o| o.kind == OperandKind::IdResult);
        if result.is_some() && !has_result {
            return Err(at(&first, format!("{} does not produce a result id", op.text)));
        }
        if result.is_none() && has_result {
            let message = format!("{0} needs a result id: `%name = {0} ...`", op.text);
            return Err(at(&op, message));
        }
        self.words.push(inst.opcode as u32);
        let mut stack: Vec<Pending> = pending(inst.operands, op.text).collect();
        self.operands(&mut stack, start, result)?;
        let count = self.words.len() - start;
        if count > 0xFFFF {
            let message = format!("{} is too long: {count} words, the limit is 65535", op.text);
            return Err(at(&op, message));
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
        let Some(tok) = self.toks.get(pos) else { return false };
        let opcode = tok.text.strip_prefix("Op").is_some_and(|r| r.starts_with(|c: char| c.is_ascii_uppercase()));
        let result = tok.text.starts_with('%') && self.toks.get(pos + 1).is_some_and(|t| t.text == "=");
        opcode || result
    }

    /// Reads the operands on `stack`, pushing more as enumerants and extended instructions ask.
    fn operands(&mut self, stack: &mut Vec<Pending<'a>>, start: usize, result: Option<u32>) -> Result<(), AssembleError> {
        while let Some(p) = stack.pop() {
            if p.kind == OperandKind::IdResult {
                // Written before the opcode, and checked to be there.
                self.words.extend(result);
                continue;
            }
            // An opcode name is never a new instruction here, so `OpSpecConstantOp` can take `OpIAdd`.
            let opcode_operand = p.kind == OperandKind::LiteralSpecConstantOpInteger;
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
        let (line, column) = last.map_or((1, 1), |t| t.end);
        let message = format!("missing operand: {} expects {}", p.owner, describe(p.kind));
        AssembleError { line, column, message }
    }

    /// Reads one operand of kind `p.kind` starting at `tok`, already taken.
    fn operand(&mut self, p: &Pending<'a>, tok: &Token<'a>, stack: &mut Vec<Pending<'a>>, start: usize) -> Result<(), AssembleError> {
        use OperandKind as K;
        match p.kind {
            K::IdResultType | K::IdRef | K::IdScope | K::IdMemorySemantics => {
                let id = self.id(tok)?;
                self.words.push(id);
            }
            K::LiteralInteger => self.words.push(literal_u32(tok)?),
            K::LiteralFloat => {
                let bits = float_bits(tok.text, 32).map_err(|m| at(tok, m))?;
                self.words.push(bits as u32);
            }
            K::LiteralString => self.string(tok)?,
            K::LiteralContextDependentNumber => {
                let ty = self.words.get(start + 1).copied().unwrap_or(0);
                let num = self.ids.get(ty as usize).and_then(|info| info.num);
                let Some(num) = num else {
                    let name = self.ids.get(ty as usize).map_or("", |info| info.first.text);
                    let message = format!("cannot read `{}`: its type `{name}` is not an integer or float type declared earlier", tok.text);
                    return Err(at(tok, message));
                };
                self.number(tok, num)?;
            }
            K::PairLiteralIntegerIdRef => {
                // OpSwitch: the case literals take the width of the selector's type.
                let selector = self.words.get(start + 1).copied().unwrap_or(0) as usize;
                let ty = self.ids.get(selector).and_then(|info| info.ty);
                match ty.and_then(|ty| self.ids.get(ty as usize)).and_then(|info| info.num) {
                    Some(num @ Num::Int { .. }) => self.number(tok, num)?,
                    _ => {
                        let name = self.ids.get(selector).map_or("", |info| info.first.text);
                        let message = format!("cannot read `{}`: the selector `{name}` does not have an integer type declared earlier", tok.text);
                        return Err(at(tok, message));
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
                let inst = opcode_named(name).ok_or_else(|| at(tok, format!("unknown opcode `{}`", tok.text)))?;
                self.words.push(inst.opcode as u32);
                stack.clear();
                let operands = inst.operands.iter().filter(|o| !matches!(o.kind, K::IdResultType | K::IdResult));
                stack.extend(operands.rev().map(|o| Pending { kind: o.kind, quant: o.quantifier, owner: tok.text }));
            }
            kind => match enumerant(kind, tok.text) {
                Some(Ok((value, params))) => {
                    self.words.push(value);
                    stack.extend(pending(&params, tok.text));
                }
                Some(Err(message)) => return Err(at(tok, message)),
                // Operand kinds of extended instruction sets are written as numbers.
                None => self.words.push(literal_u32(tok)?),
            },
        }
        Ok(())
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
            return Err(at(tok, format!("expected an id, found `{}`", tok.text)));
        };
        if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            let message = format!("invalid id `{}`: ids are `%` followed by letters, digits and `_`", tok.text);
            return Err(at(tok, message));
        }
        if let Some(&id) = self.names.get(tok.text) {
            return Ok(id);
        }
        let id = self.ids.len() as u32;
        self.names.insert(tok.text, id);
        self.ids.push(IdInfo::new(*tok));
        Ok(id)
    }

    /// A string literal: UTF-8, nul-terminated, packed little-endian into words.
    fn string(&mut self, tok: &Token) -> Result<(), AssembleError> {
        let body = tok.text.strip_prefix('"').and_then(|s| s.strip_suffix('"'));
        let Some(body) = body.filter(|_| tok.is_string()) else {
            return Err(at(tok, format!("expected a string in double quotes, found `{}`", tok.text)));
        };
        let mut bytes = Vec::with_capacity(body.len() + 4);
        let mut chars = body.chars();
        while let Some(c) = chars.next() {
            // A backslash takes the next character as it is: `\"` and `\\`.
            let c = if c == '\\' { chars.next().unwrap_or('\\') } else { c };
            let mut buf = [0; 4];
            bytes.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
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
        let bits = bits.map_err(|m| at(tok, m))?;
        self.words.push(bits as u32);
        if width > 32 {
            self.words.push((bits >> 32) as u32);
        }
        Ok(())
    }

    /// The instruction name of OpExtInst, looked up in the set named by the previous operand.
    fn ext_inst(&mut self, tok: &Token<'a>, stack: &mut Vec<Pending<'a>>) -> Result<(), AssembleError> {
        let set = self.words.last().copied().unwrap_or(0) as usize;
        let Some(ext) = self.ids.get(set).and_then(|info| info.ext) else {
            let name = self.ids.get(set).map_or("", |info| info.first.text);
            let message = format!("`{name}` is not an instruction set imported earlier with OpExtInstImport");
            return Err(at(tok, message));
        };
        let table = match ext {
            ExtSet::Known(table) => Some(table),
            ExtSet::Unknown => None,
        };
        let (number, operands) = match table.and_then(|t| t.iter().find(|i| i.opname == tok.text)) {
            Some(inst) => (inst.opcode.into(), Some(inst.operands)),
            None => {
                let number = literal_u32(tok)
                    .map_err(|_| at(tok, format!("unknown extended instruction `{}`", tok.text)))?;
                (number, table.and_then(|t| t.lookup_opcode(number)).map(|i| i.operands))
            }
        };
        self.words.push(number);
        stack.clear();
        match operands {
            Some(operands) => stack.extend(pending(operands, tok.text)),
            None => stack.push(Pending { kind: OperandKind::IdRef, quant: OperandQuantifier::ZeroOrMore, owner: tok.text }),
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
                    let message = format!("expected a `!<word>`, an integer or an id after a raw `!` word, found `{}`", tok.text);
                    at(&tok, message)
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
                let bytes: Vec<u8> = words[2..].iter().flat_map(|w| w.to_le_bytes()).take_while(|&b| b != 0).collect();
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
        Some(name) => opcode_named(name).ok_or_else(|| at(tok, format!("unknown opcode `{}`", tok.text))),
        None => Err(at(tok, format!("expected an instruction, found `{}`", tok.text))),
    }
}

/// The grammar of an opcode by its name without `Op` (`IAdd`).
fn opcode_named(name: &str) -> Option<&'static Instruction<'static>> {
    static OPCODES: OnceLock<HashMap<&'static str, &'static Instruction<'static>>> = OnceLock::new();
    let table = OPCODES.get_or_init(|| rspirv::grammar::INSTRUCTION_TABLE.iter().map(|i| (i.opname, i)).collect());
    table.get(name).copied()
}

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
    int_bits(tok.text, 32, false).map(|bits| bits as u32).map_err(|m| at(tok, m))
}

/// The word of a raw `!<word>` token, `raw` being the text after the `!`.
fn raw_word(tok: &Token, raw: &str) -> Result<u32, AssembleError> {
    int_bits(raw, 32, false)
        .map(|bits| bits as u32)
        .map_err(|_| at(tok, format!("expected a 32-bit word after `!`, found `{}`", tok.text)))
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
