//! WGSL text to a validated naga module. Parse and validation errors keep their source spans.

use naga::valid::{Capabilities, ModuleInfo, ShaderStages, SubgroupOperationSet, ValidationFlags, Validator};

use super::error::{Error, SpanLabel};
use crate::panics::without_panicking;
use crate::wgsl::subgroups_enable::without_subgroups_enable;

/// Parses and validates `source`; everything naga can lower to SPIR-V is allowed, `enable`
/// directives still gate the extensions.
pub fn parse(source: &str) -> Result<(naga::Module, ModuleInfo), Error> {
    let parsed = without_panicking(|| naga::front::wgsl::parse_str(&without_subgroups_enable(source)))
        .map_err(|panic| Error::internal(format!("naga's WGSL front end panicked: {panic}")))?;
    let module = parsed.map_err(|error| {
        let labels = error.labels().filter_map(|(span, message)| label(span, message));
        wgsl_error(source, error.message().to_string(), labels.collect(), error.notes().map(str::to_string).collect())
    })?;
    let info = validate(&module)?.map_err(|error| {
        let labels = error.spans().filter_map(|(span, message)| label(*span, message));
        // The inner error's causes say what is actually wrong ("missing a binding").
        let mut notes = Vec::new();
        let mut cause = std::error::Error::source(error.as_inner());
        while let Some(next) = cause {
            notes.push(next.to_string());
            cause = next.source();
        }
        wgsl_error(source, error.as_inner().to_string(), labels.collect(), notes)
    })?;
    refuse_what_vulkan_lacks(&module)?;
    Ok((module, info))
}

/// Valid WGSL naga accepts but Vulkan SPIR-V cannot express.
fn refuse_what_vulkan_lacks(module: &naga::Module) -> Result<(), Error> {
    let external = module
        .types
        .iter()
        .any(|(_, ty)| matches!(ty.inner, naga::TypeInner::Image { class: naga::ImageClass::External, .. }));
    if external {
        return Err(Error::unsupported(
            "texture_external: Vulkan SPIR-V has no external texture (a video frame sampled through one \
             binding); bind its planes as texture_2d<f32> and convert in the shader",
        ));
    }
    Ok(())
}

/// Validates a module our rewrites changed: a failure is our bug.
pub fn revalidate(module: &naga::Module) -> Result<ModuleInfo, Error> {
    validate(module)?.map_err(|error| {
        let mut message = error.as_inner().to_string();
        let mut cause = std::error::Error::source(error.as_inner());
        while let Some(next) = cause {
            message = format!("{message}: {next}");
            cause = next.source();
        }
        Error::internal(format!("the WGSL module no longer validates after our rewrites: {message}"))
    })
}

/// naga's validation of `module`; a panic in it is an internal error.
fn validate(module: &naga::Module) -> Result<Result<ModuleInfo, Box<ValidationFailure>>, Error> {
    without_panicking(|| validator().validate(module).map_err(Box::new))
        .map_err(|panic| Error::internal(format!("naga's validator panicked: {panic}")))
}

type ValidationFailure = naga::WithSpan<naga::valid::ValidationError>;

fn validator() -> Validator {
    let mut validator = Validator::new(ValidationFlags::all(), Capabilities::all());
    validator.subgroup_stages(ShaderStages::all()).subgroup_operations(SubgroupOperationSet::all());
    validator
}

fn label(span: naga::Span, message: &str) -> Option<SpanLabel> {
    let span = span.to_range()?;
    Some(SpanLabel { span, message: message.to_string() })
}

fn wgsl_error(source: &str, message: String, labels: Vec<SpanLabel>, notes: Vec<String>) -> Error {
    let line_column = labels.first().and_then(|label| {
        let start = label.span.start;
        let prefix = source.get(..start)?;
        let line = prefix.matches('\n').count() + 1;
        let column = start - prefix.rfind('\n').map_or(0, |newline| newline + 1) + 1;
        Some((line as u32, column as u32))
    });
    Error::Wgsl { message, line_column, labels, notes }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_syntax_error_points_at_its_line_and_column() {
        let source = "@fragment\nfn main() -> @location(0) vec4f {\n  return vec4f(1.0) +;\n}\n";
        let Err(Error::Wgsl { line_column, labels, .. }) = parse(source) else {
            panic!("expected a WGSL error");
        };
        assert_eq!(line_column, Some((3, 22)));
        assert_eq!(&source[labels[0].span.clone()], ";");
    }

    #[test]
    fn external_textures_are_refused() {
        let source = "@group(0) @binding(0) var t: texture_external;\n\
                      @group(0) @binding(1) var<storage, read_write> out: vec4f;\n\
                      @compute @workgroup_size(1) fn main() { out = textureLoad(t, vec2u(0)); }\n";
        let error = parse(source).unwrap_err();
        assert_eq!(error.exit_code(), 1);
        assert!(error.to_string().contains("texture_external: Vulkan SPIR-V has no external texture"), "{error}");
    }

    #[test]
    fn a_validation_error_says_why_in_its_notes() {
        let source = "struct Inner { @location(0) a: vec4f }\n\
                      struct Outer { inner: Inner, @builtin(position) p: vec4f }\n\
                      @vertex fn main() -> Outer { var o: Outer; return o; }\n";
        let Err(Error::Wgsl { line_column, notes, .. }) = parse(source) else {
            panic!("expected a WGSL error");
        };
        assert_eq!(line_column.map(|(line, _)| line), Some(2));
        assert!(notes.iter().any(|note| note.contains("missing a binding")), "{notes:?}");
    }
}
