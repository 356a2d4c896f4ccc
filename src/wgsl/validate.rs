//! Validation of the WGSL we produce, in-process with naga, before anything is written.
//! A failure here is our bug, so it is reported as an internal error with the WGSL around it.
//!
//! Most modules are validated from naga's IR built from the syntax tree as they are lowered
//! (`naga_ir`), proven equal to naga's reading of the text. What follows is the text's way, for
//! the modules that builder does not take and to report any failure.
//!
//! naga holds about 25 bytes for each byte of WGSL it validates, and its validator keeps a record
//! per global for each function, so a large module is validated in parts. A part is a run of the
//! module's functions or a run of its declarations (structs and globals), with the declarations
//! its text names, and for each function it calls from another part, a stub (its signature and a
//! body returning a zero value). Every declaration is checked, and every function against every
//! declaration and signature it uses; what a part cannot see is what a callee in another part
//! does: naga's checks that a function needing uniform control flow or a given shader stage is
//! called accordingly. Our own uniformity analysis (`uniformity.rs`) covers the first. In a very
//! large module the parts are validated in parallel, and a function too long for naga's front end
//! to read in proportionate time is checked by its signature, with a warning. The sizes are in
//! `LIMITS`.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::num::NonZeroUsize;
use std::ops::Range;

use super::ast::{Module, PrintedFunction};
use super::print;
use super::subgroups_enable::without_subgroups_enable;
use crate::batch;
use crate::error::{Error, Location, Warning};
use crate::panics::without_panicking;

/// Where validation changes how it goes, by size of WGSL text.
struct Limits {
    /// A module up to this size is validated whole.
    whole: usize,
    /// The size of a part's own functions or declarations, unless a single one is larger.
    part: usize,
    /// A module beyond this size has its parts validated in parallel; below it, the memory each
    /// thread takes (its own allocator arena) would weigh more than the time saved.
    parallel: usize,
    /// A function beyond this size is validated by its signature only: naga's WGSL front end
    /// takes time quadratic in a function's length (`Typifier::grow` walks all the function's
    /// expressions for each new one): 0.1 s for 128 KiB, 0.4 s for 256 KiB, 1 to 5 s for 1 MiB.
    /// The longest function in the shared corpus is 8 KiB.
    function: usize,
}

const LIMITS: Limits = Limits { whole: 1 << 18, part: 128 << 10, parallel: 4 << 20, function: 128 << 10 };

/// Validates `module`, printed as `text`: whole if it is small, else in parts. Returns a warning
/// for each function too long to validate in proportionate time.
pub fn validate_module(module: &Module, text: &str, validated_from_ir: bool) -> Result<Vec<Warning>, Error> {
    // naga's IR built from the tree (`naga_ir`), where it was and passed, costs a fraction of
    // naga's front end reading the text. Anything else is validated from the text, which says
    // where a problem is (and is the last word, should the builder be the one at fault).
    if validated_from_ir {
        return Ok(Vec::new());
    }
    validate_sized(module, text, &LIMITS)
}

fn validate_sized(module: &Module, text: &str, limits: &Limits) -> Result<Vec<Warning>, Error> {
    if text.len() <= limits.whole && module.functions.iter().all(|f| f.text.len() <= limits.function) {
        return validate(text).map(|()| Vec::new());
    }
    let declarations = Declarations::new(module);
    let pieces = pieces(module, limits);
    let warnings = module
        .functions
        .iter()
        .filter(|f| f.text.len() > limits.function)
        .map(|f| {
            let message = format!(
                "function `{}` ({} KiB of WGSL) was validated by its signature only: naga's WGSL front end \
                 takes time quadratic in a function's length",
                f.name,
                f.text.len() >> 10
            );
            // The function is the WGSL's: the SPIR-V it came from may be several.
            Warning::new(message, Location::default())
        })
        .collect();
    let by_name: HashMap<&str, &Piece> = pieces.iter().map(|p| (p.name, p)).collect();
    // Every declaration is checked once, in runs of declarations; each run of functions with the
    // declarations it names.
    let declaration_runs = runs(declarations.printed.iter().map(|d| d.text.len()), limits.part);
    let function_runs = runs(pieces.iter().map(|p| p.text.len()), limits.part);
    let parts: Vec<Part> = (declaration_runs.into_iter().map(|run| Part { declarations: run, functions: 0..0 }))
        .chain(function_runs.into_iter().map(|run| Part { declarations: 0..0, functions: run }))
        .collect();
    // The parts are independent: in a large module they are validated on every core. Each is
    // written out only when its turn comes, and the first failing part (in order) is reported.
    let mut first_error = None;
    let check = |part: &Part| validate(&declarations.part_text(part, &pieces, &by_name));
    let jobs = if text.len() > limits.parallel { batch::default_jobs() } else { NonZeroUsize::MIN };
    batch::run_in_order(&parts, jobs, check, |_, result| {
        if let Err(error) = result {
            first_error.get_or_insert(error);
        }
    });
    first_error.map_or(Ok(warnings), Err)
}

/// Consecutive runs of items of these sizes, each of `budget` in all or a single item.
fn runs(sizes: impl Iterator<Item = usize>, budget: usize) -> Vec<Range<usize>> {
    let mut runs: Vec<Range<usize>> = Vec::new();
    let mut size = 0;
    for (i, item) in sizes.enumerate() {
        match runs.last_mut() {
            Some(run) if size + item <= budget => run.end = i + 1,
            _ => {
                runs.push(i..i + 1);
                size = 0;
            }
        }
        size += item;
    }
    runs
}

/// A part of a module validated in parts: a run of its declarations or a run of its functions.
/// Either comes with the declarations it names, and functions with stubs for those they call.
struct Part {
    declarations: Range<usize>,
    functions: Range<usize>,
}

/// What validation in parts needs of a printed function.
struct Piece<'a> {
    name: &'a str,
    /// What is validated: the function, or its stub if it is over the size limit.
    text: Cow<'a, str>,
    stub: String,
    /// The functions `text` calls.
    calls: Vec<&'a str>,
}

/// A plain view of the functions, which the threads validating parts can share.
fn pieces<'a>(module: &'a Module, limits: &Limits) -> Vec<Piece<'a>> {
    let piece = |f: &'a PrintedFunction| {
        let stub = print::stub(f);
        if f.text.len() > limits.function {
            // A stub calls nothing: its part needs no stubs of the function's callees.
            Piece { name: &f.name, text: Cow::Owned(stub.clone()), stub, calls: Vec::new() }
        } else {
            Piece { name: &f.name, text: Cow::Borrowed(&f.text), stub, calls: f.calls.iter().map(|c| &**c).collect() }
        }
    };
    module.functions.iter().map(piece).collect()
}

/// The module's structs and globals, each printed on its own with the others it names. A part
/// carries only the ones its functions name: naga's validator keeps, for each function, a record
/// per global of the module, which with all of them in every part is quadratic in a module of
/// many functions over many resources.
struct Declarations<'a> {
    directives: String,
    printed: Vec<print::Declaration<'a>>,
    /// For each declaration, the others its text names.
    names: Vec<Vec<usize>>,
    by_name: HashMap<&'a str, usize>,
}

impl<'a> Declarations<'a> {
    fn new(module: &'a Module) -> Self {
        let printed = print::declarations(module);
        let by_name: HashMap<&str, usize> = printed.iter().enumerate().map(|(i, d)| (d.name, i)).collect();
        let names = printed.iter().map(|d| words(&d.text).filter_map(|w| by_name.get(w).copied()).collect()).collect();
        Declarations { directives: print::directives(module), printed, names, by_name }
    }

    /// The WGSL of `part`: directives, declarations, stubs for the functions it calls from
    /// elsewhere, and its functions.
    fn part_text(&self, part: &Part, pieces: &[Piece], by_name: &HashMap<&str, &Piece>) -> String {
        let functions = &pieces[part.functions.clone()];
        let inside: HashSet<&str> = functions.iter().map(|p| p.name).collect();
        let mut stubbed = HashSet::new();
        let stubs: Vec<&str> = functions
            .iter()
            .flat_map(|p| &p.calls)
            .filter(|&&callee| !inside.contains(callee) && stubbed.insert(callee))
            .filter_map(|callee| by_name.get(callee).map(|p| p.stub.as_str()))
            .collect();
        let sections = stubs.into_iter().chain(functions.iter().map(|p| &*p.text));
        let own = self.printed[part.declarations.clone()].iter().map(|d| d.text.as_str());
        let mut text = self.directives.clone();
        for i in self.named_in(own.chain(sections.clone())) {
            print::push_section(&mut text, &self.printed[i].text);
        }
        for section in sections {
            print::push_section(&mut text, section);
        }
        text
    }

    /// The declarations `texts` name, directly or through other declarations, in module order.
    /// A word that only looks like a declaration's name (a member, a shadowing local) brings in
    /// a declaration that is not needed, which is harmless.
    fn named_in<'t>(&self, texts: impl Iterator<Item = &'t str>) -> Vec<usize> {
        let mut found = HashSet::new();
        let mut to_visit: Vec<usize> = texts.flat_map(words).filter_map(|w| self.by_name.get(w).copied()).collect();
        while let Some(i) = to_visit.pop() {
            if found.insert(i) {
                to_visit.extend(&self.names[i]);
            }
        }
        let mut found: Vec<usize> = found.into_iter().collect();
        found.sort_unstable();
        found
    }
}

/// The words of WGSL text: every run of letters, digits and underscores, so every identifier.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| !w.is_empty())
}

/// Parses and validates `wgsl` as WebGPU would accept it.
pub fn validate(wgsl: &str) -> Result<(), Error> {
    let checked = without_panicking(|| {
        let module = naga::front::wgsl::parse_str(&without_subgroups_enable(wgsl))
            .map_err(|e| e.emit_to_string_with_path(wgsl, "output.wgsl"))?;
        validator().validate(&module).map_err(|e| e.emit_to_string_with_path(wgsl, "output.wgsl"))?;
        Ok(())
    });
    match checked {
        Ok(result) => result.map_err(|report| failure(wgsl, report)),
        Err(panic) => Err(failure(wgsl, format!("naga panicked: {panic}"))),
    }
}

/// naga's validator with what WGSL and WebGPU allow.
pub(super) fn validator() -> naga::valid::Validator {
    let capabilities = naga::valid::Capabilities::SHADER_FLOAT16
        // pack2x16float and friends: core WGSL, a capability only in naga.
        | naga::valid::Capabilities::SHADER_FLOAT16_IN_FLOAT32
        | naga::valid::Capabilities::CLIP_DISTANCES
        | naga::valid::Capabilities::DUAL_SOURCE_BLENDING
        | naga::valid::Capabilities::SUBGROUP
        | naga::valid::Capabilities::PRIMITIVE_INDEX
        | naga::valid::Capabilities::CUBE_ARRAY_TEXTURES
        | naga::valid::Capabilities::MULTISAMPLED_SHADING
        // r16unorm and the other 16-bit normalized storage formats: WebGPU's texture-formats-tier1.
        | naga::valid::Capabilities::STORAGE_TEXTURE_16BIT_NORM_FORMATS
        // naga types frexp's exponent of f16 values as i16 (WGSL: i32), and then needs this to
        // validate its own type; WGSL text has no i16 to allow.
        | naga::valid::Capabilities::SHADER_INT16;
    let mut validator = naga::valid::Validator::new(naga::valid::ValidationFlags::all(), capabilities);
    validator
        .subgroup_stages(naga::valid::ShaderStages::all())
        .subgroup_operations(naga::valid::SubgroupOperationSet::all());
    validator
}

fn failure(wgsl: &str, report: String) -> Error {
    Error::Internal {
        message: format!("the generated WGSL does not validate:\n{report}"),
        wgsl: Some(wgsl.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wgsl::ast::{Attribute, Expr, Global, GlobalKind, Literal, Member, Signature, Struct};

    /// A printed function of the given text; `result` is `None` for a function returning nothing.
    fn function(name: &str, text: &str, result: Option<&str>, calls: &[&str]) -> PrintedFunction {
        let len = text.find("{\n").map_or(0, |at| at + 2);
        PrintedFunction {
            name: name.into(),
            text: text.into(),
            signature: Signature { len, result: result.map(Into::into) },
            calls: calls.iter().map(|&c| c.into()).collect(),
        }
    }

    /// A storage buffer, a helper returning a struct, one calling it, and an entry point calling
    /// the second; `entry_body` is the entry point's body.
    fn three_functions(entry_body: &str) -> Module {
        let mut module = Module::default();
        module.structs.push(Struct {
            name: "Pair".into(),
            members: ["a", "b"].map(|m| Member { attributes: vec![], name: m.into(), ty: "u32".into() }).into(),
        });
        module.globals.push(Global {
            attributes: vec![Attribute::Group(0), Attribute::Binding(0)],
            kind: GlobalKind::Var { space: "storage, read_write".into() },
            name: "out".into(),
            ty: Some("array<u32>".into()),
            init: None,
        });
        module.functions = vec![
            function("pair", "fn pair(x: u32) -> Pair {\n    return Pair(x, x + 1u);\n}\n", Some("Pair"), &[]),
            function(
                "sum",
                "fn sum(x: u32) -> u32 {\n    let p = pair(x);\n    return p.a + p.b;\n}\n",
                Some("u32"),
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
        assert!(warnings[0].message.starts_with("function `pair`"), "{warnings:?}");
        // A call that breaks the signature is still caught.
        let module = three_functions("    out[0] = pair(1.0f).a;\n");
        let text = print::print(&module);
        assert!(validate_sized(&module, &text, &limits).is_err());
    }

    #[test]
    fn an_entry_point_too_long_to_validate_is_checked_by_its_signature_too() {
        // An entry point without I/O is the function itself and may be as long as any: a body
        // naga would reject (a u32 bound as an f32) stands behind its signature.
        let body = "    let a = sum(2u);\n    let b: f32 = a;\n    out[0] = sum(a);\n";
        let module = three_functions(body);
        let text = print::print(&module);
        assert!(validate(&text).is_err());
        let limits = Limits { function: 60, ..in_parts(usize::MAX) };
        let warnings = validate_sized(&module, &text, &limits).expect("validated by its signature");
        assert!(warnings.iter().any(|w| w.message.starts_with("function `main`")), "{warnings:?}");
        let pieces = pieces(&module, &limits);
        assert_eq!(pieces[2].text, "@compute @workgroup_size(1)\nfn main() {\n}\n");
    }

    #[test]
    fn a_function_checked_by_its_signature_brings_no_stubs_of_its_callees() {
        let module = three_functions("    out[0] = sum(2u);\n");
        // `sum` (71 bytes) is over the limit, `pair` (56 bytes) is not.
        let limits = Limits { function: 60, ..in_parts(usize::MAX) };
        let pieces = pieces(&module, &limits);
        assert_eq!(pieces[1].text, "fn sum(x: u32) -> u32 {\n    return u32();\n}\n");
        assert!(pieces[1].calls.is_empty());
        let by_name: HashMap<&str, &Piece> = pieces.iter().map(|p| (p.name, p)).collect();
        let part =
            Declarations::new(&module).part_text(&Part { declarations: 0..0, functions: 1..2 }, &pieces, &by_name);
        assert!(!part.contains("fn pair"), "{part}");
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

    fn push_global(module: &mut Module, name: &str, kind: GlobalKind, init: Option<Expr>) {
        module.globals.push(Global { attributes: vec![], kind, name: name.into(), ty: Some("u32".into()), init });
    }

    #[test]
    fn a_part_carries_only_the_declarations_its_text_names() {
        let mut module = three_functions("    out[0] = sum(2u) + limit;\n");
        push_global(&mut module, "unused", GlobalKind::Var { space: "private".into() }, None);
        // `limit` is named by the entry point; `base` only by `limit`.
        push_global(&mut module, "base", GlobalKind::Const, Some(Expr::Literal(Literal::U32(3))));
        push_global(&mut module, "limit", GlobalKind::Const, Some(Expr::Ident("base".into())));
        let text = print::print(&module);
        assert!(validate(&text).is_ok(), "{text}");
        let declarations = Declarations::new(&module);
        let pieces = pieces(&module, &in_parts(usize::MAX));
        let by_name: HashMap<&str, &Piece> = pieces.iter().map(|p| (p.name, p)).collect();
        let part = |functions| declarations.part_text(&Part { declarations: 0..0, functions }, &pieces, &by_name);
        // `sum` names `Pair` only through `pair`'s stub.
        let sum = part(1..2);
        assert!(sum.contains("struct Pair") && sum.contains("fn pair(x: u32) -> Pair {\n    return Pair();"), "{sum}");
        assert!(!sum.contains("var<storage") && !sum.contains("unused") && !sum.contains("limit"), "{sum}");
        let main = part(2..3);
        for declaration in ["var<storage, read_write> out", "const limit: u32 = base;", "const base: u32 = 3u;"] {
            assert!(main.contains(declaration), "{declaration} missing from:\n{main}");
        }
        assert!(!main.contains("unused") && !main.contains("struct Pair"), "{main}");
        assert_eq!(validate_sized(&module, &text, &in_parts(usize::MAX)).ok(), Some(vec![]));
    }

    #[test]
    fn a_declaration_no_function_names_is_still_validated_in_parts() {
        let mut module = three_functions("    out[0] = sum(2u);\n");
        // A const whose initializer does not fit its type.
        push_global(&mut module, "wrong", GlobalKind::Const, Some(Expr::Literal(Literal::F32(1.5f32.to_bits()))));
        let text = print::print(&module);
        assert!(validate(&text).is_err());
        let error = validate_sized(&module, &text, &in_parts(usize::MAX)).expect_err("`wrong` is checked");
        assert!(error.to_string().contains("does not validate"), "{error}");
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
