//! Rendering errors for people: the offending instruction in assembly form with its neighbours
//! (or the line of the user's `.spvasm`), a label on the culprit, and the location in words.

use codespan_reporting::diagnostic::{Diagnostic, Label};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::{self, termcolor::WriteColor};
use rspirv::binary::{Consumer, Disassemble, ParseAction as Action};
use rspirv::dr;

use crate::error::Error;
use crate::spirv::spec_constant_op;

/// How many instructions to show before and after the culprit in a binary's listing.
const CONTEXT: usize = 3;

/// Writes `error` about the input named `path` with contents `input`.
pub fn render(error: &Error, path: &str, input: &[u8], out: &mut dyn WriteColor) -> std::io::Result<()> {
    let config = term::Config::default();
    let message = error.to_string();
    let (file, diagnostic) = match source_and_span(error, input) {
        Some((text, span, label)) => {
            let file = SimpleFile::new(path.to_string(), text);
            let diagnostic = Diagnostic::error()
                .with_message(message)
                .with_labels(vec![Label::primary((), span).with_message(label)]);
            (file, diagnostic)
        }
        None => (SimpleFile::new(path.to_string(), String::new()), Diagnostic::error().with_message(message)),
    };
    let diagnostic = match error {
        Error::Internal { .. } => {
            diagnostic.with_notes(vec!["this is a bug in spv2wgsl: please report it with the input file".into()])
        }
        _ => diagnostic,
    };
    term::emit_to_write_style(out, &config, &file, &diagnostic).map_err(std::io::Error::other)
}

/// The text to show, the byte span of the culprit in it, and the label for that span.
fn source_and_span(error: &Error, input: &[u8]) -> Option<(String, std::ops::Range<usize>, String)> {
    if let Error::Assembly(assembly) = error {
        let text = String::from_utf8_lossy(input).into_owned();
        let start = byte_of(&text, assembly.line, assembly.column)?;
        let end = text[start..].find(char::is_whitespace).map_or(text.len(), |n| start + n.max(1));
        return Some((text, start..end, assembly.message.clone()));
    }
    let offset = error.location()?.word_offset?;
    if crate::is_assembly(input) {
        let line = assembly_line(input, offset)?;
        let text = String::from_utf8_lossy(input).into_owned();
        let start = byte_of(&text, line, 1)?;
        let end = text[start..].find('\n').map_or(text.len(), |n| start + n);
        return Some((text, start..end, "this instruction".into()));
    }
    binary_listing(input, offset as usize)
}

/// The 1-based line of the instruction at `word_offset` in assembly text `input` (`None` for a
/// binary module).
pub fn assembly_line(input: &[u8], word_offset: u32) -> Option<u32> {
    line_of(&assembly_lines(input), Some(word_offset))
}

/// `(word offset, 1-based line)` of each instruction of assembly text `input`, in word order;
/// empty for a binary module or text that does not assemble.
pub fn assembly_lines(input: &[u8]) -> Vec<(u32, u32)> {
    if !crate::is_assembly(input) {
        return Vec::new();
    }
    let assembly = crate::spirv::assemble::assemble(&String::from_utf8_lossy(input));
    assembly.map(|assembly| assembly.lines).unwrap_or_default()
}

/// The line of the instruction at `word_offset` among [`assembly_lines`].
pub fn line_of(lines: &[(u32, u32)], word_offset: Option<u32>) -> Option<u32> {
    let offset = word_offset?;
    lines.binary_search_by_key(&offset, |(word, _)| *word).ok().map(|i| lines[i].1)
}

/// `error` pointing at the instruction that defines its result id, where it named only the id
/// (an error about a declaration: a type, a constant), so that it can be shown in context. The
/// input is parsed again to find it, which only a failed translation pays for.
pub fn locate_definition(mut error: Error, input: &[u8]) -> Error {
    let Some(location) = error.location_mut() else { return error };
    let (None, Some(id)) = (location.word_offset, location.result_id) else { return error };
    let words = match crate::is_assembly(input) {
        true => crate::spirv::assemble::assemble(&String::from_utf8_lossy(input)).ok().map(|assembly| assembly.words),
        false => crate::spirv::load::words_from_bytes(input).ok(),
    };
    let Some(words) = words else { return error };
    let (offsets, _) = crate::spirv::load::instruction_offsets(&words);
    let mut collector = Collector { insts: Vec::new() };
    let _ = rspirv::binary::parse_words(spec_constant_op::parseable(&words, &offsets), &mut collector);
    spec_constant_op::restore_all(&words, &offsets, &mut collector.insts);
    if let Some((offset, inst)) = offsets.iter().zip(&collector.insts).find(|(_, inst)| inst.result_id == Some(id)) {
        location.word_offset = Some(*offset);
        location.opcode = Some(inst.class.opcode);
    }
    error
}

/// Byte index of a 1-based line and column.
fn byte_of(text: &str, line: u32, column: u32) -> Option<usize> {
    let line_start = if line <= 1 { 0 } else { text.match_indices('\n').nth(line as usize - 2).map(|(i, _)| i + 1)? };
    let column_byte = text[line_start..].char_indices().nth(column.saturating_sub(1) as usize).map_or(0, |(i, _)| i);
    Some(line_start + column_byte)
}

/// A disassembly of the instructions around the one at `offset`, with the culprit's span.
fn binary_listing(input: &[u8], offset: usize) -> Option<(String, std::ops::Range<usize>, String)> {
    let words = crate::spirv::load::words_from_bytes(input).ok()?;
    // Only whole instructions up to a little past the culprit are parsed: the module may be
    // malformed after it, and rspirv trusts word counts.
    let (mut offsets, _) = crate::spirv::load::instruction_offsets(&words);
    let culprit = offsets.iter().position(|&o| o as usize == offset)?;
    offsets.truncate(culprit + CONTEXT + 1);
    let end = offsets.last().map_or(5, |&last| last as usize + (words[last as usize] >> 16) as usize);
    let mut collector = Collector { insts: Vec::new() };
    let _ = rspirv::binary::parse_words(spec_constant_op::parseable(&words[..end], &offsets), &mut collector);
    spec_constant_op::restore_all(&words, &offsets, &mut collector.insts);
    // rspirv stops early on an opcode it does not know; the culprit must have been read.
    if culprit >= collector.insts.len() {
        return None;
    }
    let first = culprit.saturating_sub(CONTEXT);
    let mut text = String::new();
    let mut span = 0..0;
    for (i, (at, inst)) in offsets.iter().zip(&collector.insts).enumerate().skip(first) {
        let line = format!("{:>8}: {}\n", format!("{at:#x}"), inst.disassemble().trim());
        if i == culprit {
            span = text.len() + 10..text.len() + line.len() - 1;
        }
        text.push_str(&line);
    }
    Some((text, span, format!("word {offset:#x}")))
}

struct Collector {
    insts: Vec<dr::Instruction>,
}

impl Consumer for Collector {
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
        self.insts.push(inst);
        Action::Continue
    }
}
