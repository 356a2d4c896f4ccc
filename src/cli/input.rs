//! What an input is and reading it. The name decides where it can (`.spv` and `.spvasm` are
//! SPIR-V, `.wgsl` is WGSL, whatever they hold: a corrupted download named `.spv` is reported as
//! not being SPIR-V, not translated as something else); the contents decide for standard input
//! and other names.

use std::io::Read;
use std::path::Path;

/// The language of an input, which decides the direction of the translation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    /// SPIR-V, binary or assembly text: translated to WGSL.
    Spirv,
    /// WGSL: translated to SPIR-V.
    Wgsl,
}

/// The file name endings `--check` looks for in directories: SPIR-V and WGSL.
pub const CHECKED_EXTENSIONS: [&str; 3] = [".spvasm", ".spv", ".wgsl"];

/// The language of the input at `path` (`None`: standard input) with contents `bytes`.
pub fn language(path: Option<&Path>, bytes: &[u8]) -> Language {
    match path.and_then(Path::extension).and_then(|extension| extension.to_str()) {
        Some("spv" | "spvasm") => Language::Spirv,
        Some("wgsl") => Language::Wgsl,
        _ if spv2wgsl::reverse::is_wgsl(bytes) => Language::Wgsl,
        _ => Language::Spirv,
    }
}

/// The text of a WGSL input, or what the bytes are instead.
pub fn wgsl_text(bytes: &[u8]) -> Result<&str, String> {
    let magic = bytes.get(..4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    if magic.is_some_and(|word| word == 0x0723_0203 || word.swap_bytes() == 0x0723_0203) {
        return Err("not WGSL: this is a binary SPIR-V module (named .spv, it translates to WGSL)".into());
    }
    std::str::from_utf8(bytes).map_err(|error| {
        let offset = error.valid_up_to();
        format!("not WGSL: the input is not UTF-8 text (byte {:#04x} at offset {offset})", bytes[offset])
    })
}

/// The contents of the file at `path`, or of standard input for `-`.
pub fn read(path: &Path) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    if path == Path::new("-") {
        std::io::stdin().read_to_end(&mut bytes)?;
    } else {
        bytes = std::fs::read(path)?;
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    const BINARY: &[u8] = &[0x03, 0x02, 0x23, 0x07, 0, 0, 1, 0];
    const HTML: &[u8] = b"<!DOCTYPE html>\n<html><body>Not Found</body></html>\n";
    const WGSL: &[u8] = b"@compute @workgroup_size(1) fn main() {}\n";

    #[test]
    fn the_name_decides_where_it_says_something() {
        for bytes in [BINARY, HTML, WGSL, b""] {
            assert_eq!(language(Some(Path::new("a.spv")), bytes), Language::Spirv);
            assert_eq!(language(Some(Path::new("dir.d/a.frag.spvasm")), bytes), Language::Spirv);
            assert_eq!(language(Some(Path::new("a.wgsl")), bytes), Language::Wgsl);
        }
    }

    #[test]
    fn the_contents_decide_for_stdin_and_other_names() {
        for path in [None, Some(Path::new("shader.bin")), Some(Path::new("shader"))] {
            assert_eq!(language(path, BINARY), Language::Spirv);
            assert_eq!(language(path, b"; SPIR-V\nOpCapability Shader\n"), Language::Spirv);
            assert_eq!(language(path, WGSL), Language::Wgsl);
            assert_eq!(language(path, b""), Language::Spirv);
        }
    }

    #[test]
    fn wgsl_that_is_not_text_says_what_it_is() {
        assert_eq!(wgsl_text(WGSL), Ok(std::str::from_utf8(WGSL).unwrap()));
        assert!(wgsl_text(BINARY).unwrap_err().contains("binary SPIR-V module"));
        let big_endian: Vec<u8> = BINARY[..4].iter().rev().copied().collect();
        assert!(wgsl_text(&big_endian).unwrap_err().contains("binary SPIR-V module"));
        assert_eq!(wgsl_text(b"fn \xff").unwrap_err(), "not WGSL: the input is not UTF-8 text (byte 0xff at offset 3)");
    }
}
