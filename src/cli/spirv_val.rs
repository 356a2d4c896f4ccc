//! Asking SPIRV-Tools' `spirv-val` about a module: the input, before translating it
//! (`--validate-input`) or after our WGSL from it failed validation, so that broken input is
//! blamed on the input and not on spv2wgsl; and the SPIR-V `--check` makes from WGSL. The
//! library runs no process: this is the CLI's.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use spv2wgsl::{Error, Location, Options, Translation};

/// `spirv-val`, found on the `PATH`.
pub struct SpirvVal {
    program: PathBuf,
}

/// What `spirv-val` says about a module.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    Accepts,
    /// Its message, on one line, and the instruction it names.
    Rejects(String, Location),
}

impl SpirvVal {
    /// `spirv-val` if it is on the `PATH`.
    pub fn find() -> Option<SpirvVal> {
        let path = std::env::var_os("PATH")?;
        let program = std::env::split_paths(&path).map(|dir| dir.join("spirv-val")).find(|p| p.is_file())?;
        Some(SpirvVal { program })
    }

    /// Whether it starts and answers `--version`: a file named `spirv-val` that cannot run (not
    /// executable, a broken interpreter) must not let `--validate-input` pass unchecked.
    pub fn runs(&self) -> std::io::Result<()> {
        let output = Command::new(&self.program).arg("--version").stdin(Stdio::null()).output()?;
        match output.status.success() {
            true => Ok(()),
            false => Err(std::io::Error::other(format!("`--version` ends with {}", output.status))),
        }
    }

    /// Validates `words` for the Vulkan version their SPIR-V version needs.
    pub fn check(&self, words: &[u32]) -> std::io::Result<Verdict> {
        let version = words.get(1).map_or((1, 0), |&word| ((word >> 16) as u8, (word >> 8) as u8));
        let mut child = Command::new(&self.program)
            .args(["--target-env", target_env(version), "-"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()?;
        let bytes: Vec<u8> = words.iter().flat_map(|word| word.to_le_bytes()).collect();
        // It reads all of its input before it answers; a write error shows as its exit status.
        let _ = child.stdin.take().expect("stdin is piped").write_all(&bytes);
        let output = child.wait_with_output()?;
        if output.status.success() {
            return Ok(Verdict::Accepts);
        }
        let text = String::from_utf8_lossy(&output.stderr) + String::from_utf8_lossy(&output.stdout);
        Ok(Verdict::Rejects(one_line(&text), location(&text, words)))
    }
}

/// The `--target-env` a module of this SPIR-V version is validated for: the first Vulkan version
/// that takes it.
pub fn target_env((major, minor): (u8, u8)) -> &'static str {
    match (major, minor) {
        (1, 0) => "vulkan1.0",
        (1, 1..=3) => "vulkan1.1",
        (1, 4) => "vulkan1.1spv1.4",
        (1, 5) => "vulkan1.2",
        _ => "vulkan1.3",
    }
}

/// `error: line 14: Expected ...` and the instruction on the next line, as
/// `line 14: Expected ... (`%10 = OpIAdd ...`)`.
fn one_line(text: &str) -> String {
    let mut lines = text.lines().map(str::trim).filter(|line| !line.is_empty());
    let first = lines.next().unwrap_or("it exits with an error and no message");
    let first = first.strip_prefix("error: ").unwrap_or(first);
    match lines.next() {
        Some(instruction) => format!("{first} (`{instruction}`)"),
        None => first.to_string(),
    }
}

/// The instruction `spirv-val` names as `line N` (the Nth instruction, counted from 1).
fn location(text: &str, words: &[u32]) -> Location {
    let number = text.split_once("line ").and_then(|(_, rest)| rest.split(':').next()?.trim().parse::<usize>().ok());
    let (offsets, _) = spv2wgsl::spirv::load::instruction_offsets(words);
    let Some(&offset) = number.and_then(|n| offsets.get(n.checked_sub(1)?)) else { return Location::default() };
    let opcode = spirv::Op::from_u32(words[offset as usize] & 0xffff);
    Location { word_offset: Some(offset), opcode, ..Location::default() }
}

/// The invalid-SPIR-V error for what `spirv-val` said.
fn invalid(message: String, location: Location) -> Error {
    Error::invalid(format!("spirv-val rejects the input: {message}"), location)
}

/// SPIR-V to WGSL. With `validate_input`, `spirv-val` checks the input first. An internal error
/// (our WGSL fails validation) may come from input `spirv-val` would reject: it is asked then, and
/// the error is the input's if it rejects it; otherwise the message says whether it was checked.
pub fn translate(
    input: &[u8],
    options: &Options,
    spirv_val: Option<&SpirvVal>,
    validate_input: bool,
) -> Result<Translation, Error> {
    checked(input, spirv_val, validate_input)?;
    spv2wgsl::translate(input, options).map_err(|error| blame(error, input, spirv_val))
}

/// [`translate`] of the binary module `input`, read from the file at `path` and handed over
/// whole: freed once loaded (`translate_owned`), which takes its size off the peak memory, it is
/// read again only if the translation fails, for the error and its report. Returns the result
/// and the input (empty if it was translated).
pub fn translate_file(
    input: Vec<u8>,
    path: &Path,
    options: &Options,
    spirv_val: Option<&SpirvVal>,
    validate_input: bool,
) -> (Result<Translation, Error>, Vec<u8>) {
    if let Err(error) = checked(&input, spirv_val, validate_input) {
        return (Err(error), input);
    }
    match spv2wgsl::translate_owned(input, options) {
        Ok(translation) => (Ok(translation), Vec::new()),
        Err(error) => {
            // A file that cannot be read again now is reported without its listing.
            let input = std::fs::read(path).unwrap_or_default();
            let error = spv2wgsl::diagnostics::locate_definition(error, &input);
            (Err(blame(error, &input, spirv_val)), input)
        }
    }
}

/// With `validate_input`, `spirv-val`'s verdict on the input: an error if it rejects it.
fn checked(input: &[u8], spirv_val: Option<&SpirvVal>, validate_input: bool) -> Result<(), Error> {
    if validate_input
        && let (Some(spirv_val), Ok(words)) = (spirv_val, spv2wgsl::read_words(input))
        && let Ok(Verdict::Rejects(message, location)) = spirv_val.check(&words)
    {
        return Err(invalid(message, location));
    }
    Ok(())
}

/// An internal error, either put on the input by `spirv-val` or saying whether it was checked.
fn blame(error: Error, input: &[u8], spirv_val: Option<&SpirvVal>) -> Error {
    let Error::Internal { message, wgsl } = error else { return error };
    let checked = match (spirv_val, spv2wgsl::read_words(input)) {
        (None, _) => {
            "spirv-val was not found, so the input could not be checked (it may be invalid SPIR-V)".to_string()
        }
        (Some(_), Err(error)) => format!("the input could not be checked: {error}"),
        (Some(spirv_val), Ok(words)) => match spirv_val.check(&words) {
            Ok(Verdict::Rejects(message, location)) => return invalid(message, location),
            Ok(Verdict::Accepts) => "spirv-val accepts the input".to_string(),
            Err(error) => format!("spirv-val could not be run, so the input could not be checked: {error}"),
        },
    };
    // First: the message goes on with the WGSL listing.
    Error::Internal { message: format!("{checked}; {message}"), wgsl }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_spirv_version_is_validated_for_the_first_vulkan_that_takes_it() {
        let envs: Vec<&str> = spv2wgsl::reverse::SPIRV_VERSIONS.iter().map(|&v| target_env(v)).collect();
        assert_eq!(
            envs,
            ["vulkan1.0", "vulkan1.1", "vulkan1.1", "vulkan1.1", "vulkan1.1spv1.4", "vulkan1.2", "vulkan1.3"]
        );
    }

    #[test]
    fn the_message_is_one_line_with_the_instruction_it_names() {
        let text = "error: line 14: Expected int scalar or vector type as Result Type: IAdd\n  %10 = OpIAdd %float %int_1 %int_1\n\n";
        assert_eq!(
            one_line(text),
            "line 14: Expected int scalar or vector type as Result Type: IAdd (`%10 = OpIAdd %float %int_1 %int_1`)"
        );
        assert_eq!(one_line(""), "it exits with an error and no message");
    }

    #[test]
    fn the_line_spirv_val_names_is_an_instruction_counted_from_one() {
        // Header, OpCapability Shader (2 words), OpMemoryModel (3 words), OpNop.
        let words = [0x0723_0203, 0x0001_0000, 0, 1, 0, (2 << 16) | 17, 1, (3 << 16) | 14, 0, 1, (1 << 16)];
        let at = location("error: line 3: bad\n", &words);
        assert_eq!((at.word_offset, at.opcode), (Some(10), Some(spirv::Op::Nop)));
        assert_eq!(location("error: line 9: past the end\n", &words), Location::default());
        assert_eq!(location("error: no line\n", &words), Location::default());
    }
}
