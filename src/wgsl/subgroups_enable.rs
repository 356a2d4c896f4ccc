//! naga 30 implements WGSL's subgroup builtins but does not parse their `enable subgroups`
//! (gfx-rs/wgpu issue 5555), which WGSL and Tint require. naga reads the text with that name
//! blanked out of the `enable` directives: spans keep their offsets, so naga's errors still point
//! into the text as written.

use std::borrow::Cow;
use std::ops::Range;

/// `wgsl` with `subgroups` blanked out of its `enable` directives, with the comma after it (or,
/// last in a list, the one before it); a directive naming nothing else goes whole. Borrowed when
/// no directive names it.
pub fn without_subgroups_enable(wgsl: &str) -> Cow<'_, str> {
    let blanks = subgroups_in_enables(wgsl.as_bytes());
    if blanks.is_empty() {
        return Cow::Borrowed(wgsl);
    }
    let mut text = wgsl.as_bytes().to_vec();
    for range in blanks {
        text[range].fill(b' ');
    }
    // Only ASCII names, commas, semicolons and the blanks between them were replaced.
    Cow::Owned(String::from_utf8(text).unwrap_or_else(|_| wgsl.to_string()))
}

/// The byte ranges to blank: directives come first in a module, so the scan stops at the first
/// token that starts none.
fn subgroups_in_enables(text: &[u8]) -> Vec<Range<usize>> {
    let mut blanks = Vec::new();
    let mut at = 0;
    loop {
        let start = skip_blanks(text, at);
        let end = word_end(text, start);
        match &text[start..end] {
            b"enable" => {}
            b"requires" | b"diagnostic" => match find(text, end, b';') {
                Some(semicolon) => {
                    at = semicolon + 1;
                    continue;
                }
                None => break,
            },
            _ => break,
        }
        // The names, each with the comma after it, up to the semicolon.
        let mut names: Vec<(Range<usize>, Option<usize>)> = Vec::new();
        let mut next = end;
        let semicolon = loop {
            let name_start = skip_blanks(text, next);
            let name_end = word_end(text, name_start);
            let after = skip_blanks(text, name_end);
            match text.get(after) {
                Some(b',') => {
                    names.push((name_start..name_end, Some(after)));
                    next = after + 1;
                }
                Some(b';') => {
                    if name_end > name_start {
                        names.push((name_start..name_end, None));
                    }
                    break Some(after);
                }
                _ => break None,
            }
        };
        let Some(semicolon) = semicolon else { break };
        let is_subgroups = |name: &Range<usize>| &text[name.clone()] == b"subgroups";
        if names.iter().all(|(name, _)| is_subgroups(name)) {
            blanks.push(start..semicolon + 1);
        } else {
            for (k, (name, comma)) in names.iter().enumerate() {
                if !is_subgroups(name) {
                    continue;
                }
                match comma {
                    Some(comma) => blanks.push(name.start..comma + 1),
                    // Last: the comma before it goes, unless that comma's name went with it.
                    None => match names[..k].last() {
                        Some((before, Some(comma))) if !is_subgroups(before) => blanks.push(*comma..name.end),
                        _ => blanks.push(name.clone()),
                    },
                }
            }
        }
        at = semicolon + 1;
    }
    blanks
}

/// The first byte at or after `at` that is not white space or in a comment (WGSL's block
/// comments nest).
fn skip_blanks(text: &[u8], mut at: usize) -> usize {
    loop {
        match (text.get(at), text.get(at + 1)) {
            (Some(byte), _) if byte.is_ascii_whitespace() => at += 1,
            (Some(b'/'), Some(b'/')) => at = find(text, at, b'\n').map_or(text.len(), |newline| newline + 1),
            (Some(b'/'), Some(b'*')) => {
                let mut depth = 0usize;
                while at < text.len() {
                    match (text[at], text.get(at + 1)) {
                        (b'/', Some(b'*')) => (depth, at) = (depth + 1, at + 2),
                        (b'*', Some(b'/')) => {
                            (depth, at) = (depth - 1, at + 2);
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => at += 1,
                    }
                }
            }
            _ => return at,
        }
    }
}

/// The end of the identifier starting at `at` (at `at` if none does).
fn word_end(text: &[u8], at: usize) -> usize {
    at + text[at.min(text.len())..].iter().take_while(|&&byte| byte.is_ascii_alphanumeric() || byte == b'_').count()
}

fn find(text: &[u8], from: usize, byte: u8) -> Option<usize> {
    text.get(from..)?.iter().position(|&b| b == byte).map(|offset| from + offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn blanked(text: &str, expected: &str) {
        let result = without_subgroups_enable(text);
        assert_eq!(result.len(), text.len(), "offsets move");
        assert_eq!(result, expected);
    }

    #[test]
    fn a_directive_of_subgroups_alone_goes_whole() {
        blanked("enable subgroups;\nfn f() {}", "                 \nfn f() {}");
        blanked("enable subgroups , ;", "                    ");
    }

    #[test]
    fn subgroups_goes_with_its_comma_from_a_list() {
        blanked("enable subgroups, f16;", "enable            f16;");
        blanked("enable f16, subgroups;", "enable f16           ;");
        blanked("enable f16,subgroups,;", "enable f16,          ;");
        blanked("enable f16, subgroups, clip_distances;", "enable f16,            clip_distances;");
    }

    #[test]
    fn directives_and_comments_before_it_are_passed() {
        blanked(
            "// enable subgroups;\n/* a /* nested */ comment */ requires readonly_and_readwrite_storage_textures;\n\
             diagnostic(off, derivative_uniformity); enable subgroups;",
            "// enable subgroups;\n/* a /* nested */ comment */ requires readonly_and_readwrite_storage_textures;\n\
             diagnostic(off, derivative_uniformity);                  ",
        );
    }

    #[test]
    fn nothing_after_the_directives_changes() {
        let text = "enable f16;\nconst subgroups = 1; // enable subgroups;\n";
        assert!(matches!(without_subgroups_enable(text), Cow::Borrowed(_)));
        assert!(matches!(without_subgroups_enable("enable subgroups"), Cow::Borrowed(_)));
    }

    #[test]
    fn naga_reads_what_is_left() {
        for text in ["enable f16, subgroups;", "enable subgroups, f16;", "enable f16,subgroups,;", "enable subgroups;"]
        {
            let source = format!("{text}\n@compute @workgroup_size(1) fn main() {{ _ = subgroupAdd(1u); }}");
            assert!(naga::front::wgsl::parse_str(&source).is_err(), "naga now reads {text}: drop this workaround");
            naga::front::wgsl::parse_str(&without_subgroups_enable(&source)).unwrap_or_else(|e| panic!("{text}: {e}"));
        }
    }
}
