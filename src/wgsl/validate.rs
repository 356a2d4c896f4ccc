//! Validation of the WGSL we produce, in-process with naga, before anything is written.
//! A failure here is our bug, so it is reported as an internal error with the WGSL around it.
//!
//! naga holds about 25 bytes for each byte of WGSL it validates, so a large module is validated
//! in parts: each part is the module's declarations, a run of its functions, and for each
//! function they call from another part, a stub (its signature and a body returning a zero
//! value). Every function is checked against every declaration and every signature it uses;
//! what a part cannot see is what a callee in another part does: naga's checks that a function
//! needing uniform control flow or a given shader stage is called accordingly. Our own
//! uniformity analysis (`uniformity.rs`) covers the first. In a very large module the parts are
//! validated in parallel, and a function too long for naga's front end to read in proportionate
//! time is checked by its signature, with a warning. The sizes are in `LIMITS`.

use std::collections::{HashMap, HashSet};
use std::num::NonZeroUsize;
use std::ops::Range;

use super::ast::Module;
use super::print;
use crate::batch;
use crate::error::Error;

/// Where validation changes how it goes, by size of WGSL text.
struct Limits {
    /// A module up to this size is validated whole.
    whole: usize,
    /// The functions' share of a part, at least: a part also repeats the declarations, so parts
    /// grow with them to keep the repeats within the size of the functions.
    part: usize,
    /// A module beyond this size has its parts validated in parallel; below it, the memory each
    /// thread takes (its own allocator arena) would weigh more than the time saved.
    parallel: usize,
    /// A function beyond this size is validated by its signature only: naga's WGSL front end
    /// takes time quadratic in a function's length (`Typifier::grow` walks all the function's
    /// expressions for each new one), about 1 s for 1 MiB and 17 s for 4 MiB.
    function: usize,
}

const LIMITS: Limits = Limits { whole: 1 << 18, part: 128 << 10, parallel: 4 << 20, function: 1 << 20 };

/// Validates `module`, printed as `text`: whole if it is small, else in parts. Returns a warning
/// for each function too long to validate in proportionate time.
pub fn validate_module(module: &Module, text: &str) -> Result<Vec<String>, Error> {
    validate_sized(module, text, &LIMITS)
}

fn validate_sized(module: &Module, text: &str, limits: &Limits) -> Result<Vec<String>, Error> {
    if text.len() <= limits.whole {
        return validate(text).map(|()| Vec::new());
    }
    let header = print::header(module);
    let budget = limits.part.max(header.len());
    // A plain view of the functions, which the threads validating parts can share.
    let pieces: Vec<Piece> = module
        .functions
        .iter()
        .map(|f| Piece {
            name: &f.name,
            text: match f.stub.as_deref() {
                Some(stub) if f.text.len() > limits.function => stub,
                _ => &f.text,
            },
            stub: f.stub.as_deref(),
            calls: f.calls.iter().map(|c| &**c).collect(),
        })
        .collect();
    let warnings = module
        .functions
        .iter()
        .filter(|f| f.stub.is_some() && f.text.len() > limits.function)
        .map(|f| {
            format!(
                "function `{}` ({} KiB of WGSL) was validated by its signature only: naga's WGSL front end \
                 takes time quadratic in a function's length",
                f.name,
                f.text.len() >> 10
            )
        })
        .collect();
    let by_name: HashMap<&str, &Piece> = pieces.iter().map(|p| (p.name, p)).collect();
    let mut parts = Vec::new();
    let mut start = 0;
    while start < pieces.len() {
        let mut size = 0;
        let count = pieces[start..]
            .iter()
            .take_while(|p| {
                let fits = size == 0 || size + p.text.len() <= budget;
                size += p.text.len();
                fits
            })
            .count();
        parts.push(start..start + count);
        start += count;
    }
    // The parts are independent: in a large module they are validated on every core. Each is
    // written out only when its turn comes, and the first failing part (in order) is reported.
    let mut first_error = None;
    let check = |range: &Range<usize>| validate(&part_text(&header, &pieces[range.clone()], &by_name));
    let jobs = if text.len() > limits.parallel { batch::default_jobs() } else { NonZeroUsize::MIN };
    batch::run_in_order(&parts, jobs, check, |_, result| {
        if let Err(error) = result {
            first_error.get_or_insert(error);
        }
    });
    first_error.map_or(Ok(warnings), Err)
}

/// What validation in parts needs of a printed function.
struct Piece<'a> {
    name: &'a str,
    text: &'a str,
    stub: Option<&'a str>,
    calls: Vec<&'a str>,
}

/// The declarations, stubs for the functions `part` calls from elsewhere, and `part`.
fn part_text(header: &str, part: &[Piece], by_name: &HashMap<&str, &Piece>) -> String {
    let inside: HashSet<&str> = part.iter().map(|p| p.name).collect();
    let mut stubbed = HashSet::new();
    let mut text = header.to_string();
    for &callee in part.iter().flat_map(|p| &p.calls) {
        if !inside.contains(callee)
            && stubbed.insert(callee)
            && let Some(stub) = by_name.get(callee).and_then(|p| p.stub)
        {
            print::push_section(&mut text, stub);
        }
    }
    for p in part {
        print::push_section(&mut text, p.text);
    }
    text
}

/// Parses and validates `wgsl` as WebGPU would accept it.
pub fn validate(wgsl: &str) -> Result<(), Error> {
    // naga 30 implements subgroups but does not parse their `enable` (gfx-rs/wgpu issue 5555),
    // which WGSL and Tint require: naga reads the text with it blanked out (spans keep their
    // offsets).
    const SUBGROUPS: &str = "enable subgroups;";
    let without_subgroups_enable = wgsl.replacen(SUBGROUPS, &" ".repeat(SUBGROUPS.len()), 1);
    let module = naga::front::wgsl::parse_str(&without_subgroups_enable)
        .map_err(|e| failure(wgsl, e.emit_to_string_with_path(wgsl, "output.wgsl")))?;
    let capabilities = naga::valid::Capabilities::SHADER_FLOAT16
        // pack2x16float and friends: core WGSL, a capability only in naga.
        | naga::valid::Capabilities::SHADER_FLOAT16_IN_FLOAT32
        | naga::valid::Capabilities::CLIP_DISTANCES
        | naga::valid::Capabilities::DUAL_SOURCE_BLENDING
        | naga::valid::Capabilities::SUBGROUP
        | naga::valid::Capabilities::PRIMITIVE_INDEX
        | naga::valid::Capabilities::CUBE_ARRAY_TEXTURES
        | naga::valid::Capabilities::MULTISAMPLED_SHADING;
    naga::valid::Validator::new(naga::valid::ValidationFlags::all(), capabilities)
        .subgroup_stages(naga::valid::ShaderStages::all())
        .subgroup_operations(naga::valid::SubgroupOperationSet::all())
        .validate(&module)
        .map_err(|e| failure(wgsl, e.emit_to_string_with_path(wgsl, "output.wgsl")))?;
    Ok(())
}

fn failure(wgsl: &str, report: String) -> Error {
    Error::Internal { message: format!("the generated WGSL does not validate:\n{report}"), wgsl: Some(wgsl.to_string()) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wgsl::ast::PrintedFunction;

    fn function(name: &str, text: &str, stub: Option<&str>, calls: &[&str]) -> PrintedFunction {
        PrintedFunction {
            name: name.into(),
            text: text.into(),
            stub: stub.map(str::to_string),
            calls: calls.iter().map(|&c| c.into()).collect(),
        }
    }

    /// A storage buffer, a helper returning a struct, one calling it, and an entry point calling
    /// the second; `entry_body` is the entry point's body.
    fn three_functions(entry_body: &str) -> Module {
        let mut module = Module::default();
        module.structs.push(crate::wgsl::ast::Struct {
            name: "Pair".into(),
            members: ["a", "b"]
                .map(|m| crate::wgsl::ast::Member { attributes: vec![], name: m.into(), ty: "u32".into() })
                .into(),
        });
        module.globals.push(crate::wgsl::ast::Global {
            attributes: vec![crate::wgsl::ast::Attribute::Group(0), crate::wgsl::ast::Attribute::Binding(0)],
            kind: crate::wgsl::ast::GlobalKind::Var { space: "storage, read_write".into() },
            name: "out".into(),
            ty: Some("array<u32>".into()),
            init: None,
        });
        module.functions = vec![
            function(
                "pair",
                "fn pair(x: u32) -> Pair {\n    return Pair(x, x + 1u);\n}\n",
                Some("fn pair(x: u32) -> Pair {\n    return Pair();\n}\n"),
                &[],
            ),
            function(
                "sum",
                "fn sum(x: u32) -> u32 {\n    let p = pair(x);\n    return p.a + p.b;\n}\n",
                Some("fn sum(x: u32) -> u32 {\n    return u32();\n}\n"),
                &["pair"],
            ),
            function("main", &format!("@compute @workgroup_size(1)\nfn main() {{\n{entry_body}}}\n"), None, &["sum"]),
        ];
        module
    }

    /// Every function in a part of its own, in parallel above `parallel` bytes.
    fn in_parts(parallel: usize) -> Limits {
        Limits { whole: 0, part: 1, parallel, function: usize::MAX }
    }

    #[test]
    fn a_function_too_long_to_validate_is_checked_by_its_signature_with_a_warning() {
        // `pair`'s body is wrong (a u32 for a Pair) but longer than the limit: its stub stands in.
        let mut module = three_functions("    out[0] = sum(2u);\n");
        let wrong = "fn pair(x: u32) -> Pair {\n    let a = x + 1u;\n    let b = a * 2u;\n    let c = b - x;\n    return c;\n}\n";
        module.functions[0].text = wrong.into();
        let text = print::print(&module);
        assert!(validate(&text).is_err());
        let limits = Limits { function: 100, ..in_parts(usize::MAX) };
        let warnings = validate_sized(&module, &text, &limits).expect("validated by its signature");
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].starts_with("function `pair`"), "{warnings:?}");
        // A call that breaks the signature is still caught.
        let module = three_functions("    out[0] = pair(1.0f).a;\n");
        let text = print::print(&module);
        assert!(validate_sized(&module, &text, &limits).is_err());
    }

    #[test]
    fn a_module_in_parts_sees_the_signatures_of_functions_in_other_parts() {
        let module = three_functions("    out[0] = sum(2u);\n");
        let text = print::print(&module);
        assert!(validate(&text).is_ok());
        // Every function in a part of its own: each call crosses parts. In turn and in parallel.
        assert_eq!(validate_sized(&module, &text, &in_parts(usize::MAX)).ok(), Some(vec![]));
        assert_eq!(validate_sized(&module, &text, &in_parts(0)).ok(), Some(vec![]));
    }

    #[test]
    fn a_module_in_parts_still_finds_an_error_in_any_part() {
        // `sum` takes a u32, and is called across parts with an f32.
        let module = three_functions("    out[0] = sum(2.0f);\n");
        let text = print::print(&module);
        assert!(validate(&text).is_err());
        for parallel in [usize::MAX, 0] {
            let error = validate_sized(&module, &text, &in_parts(parallel)).expect_err("the call's argument is wrong");
            assert!(error.to_string().contains("does not validate"), "{error}");
        }
    }

    #[test]
    fn subgroup_builtins_validate_with_their_enable_directive() {
        let wgsl = "enable subgroups;
@group(0) @binding(0) var<storage, read_write> out: u32;
@compute @workgroup_size(64)
fn main() {
    out = subgroupAdd(1u);
}
";
        assert!(validate(wgsl).is_ok());
    }
}
