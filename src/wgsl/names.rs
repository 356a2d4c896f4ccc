//! Identifiers: OpName first, sanitised to a WGSL identifier, never a keyword, reserved word or
//! predeclared name, and unique in its scope (`_1`, `_2`, ... on collisions).

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use super::ast::Name;

/// WGSL keywords, reserved words, and predeclared names we call (types, builtin functions):
/// a declaration with one of these names would be an error or would shadow what we call.
const RESERVED: &[&str] = &[
    // Keywords.
    "alias",
    "break",
    "case",
    "const",
    "const_assert",
    "continue",
    "continuing",
    "default",
    "diagnostic",
    "discard",
    "else",
    "enable",
    "false",
    "fn",
    "for",
    "if",
    "let",
    "loop",
    "override",
    "requires",
    "return",
    "struct",
    "switch",
    "true",
    "var",
    "while",
    // Reserved words.
    "NULL",
    "Self",
    "abstract",
    "active",
    "alignas",
    "alignof",
    "as",
    "asm",
    "asm_fragment",
    "async",
    "attribute",
    "auto",
    "await",
    "become",
    "cast",
    "catch",
    "class",
    "co_await",
    "co_return",
    "co_yield",
    "coherent",
    "column_major",
    "common",
    "compile",
    "compile_fragment",
    "concept",
    "const_cast",
    "consteval",
    "constexpr",
    "constinit",
    "crate",
    "debugger",
    "decltype",
    "delete",
    "demote",
    "demote_to_helper",
    "do",
    "dynamic_cast",
    "enum",
    "explicit",
    "export",
    "extends",
    "extern",
    "external",
    "fallthrough",
    "filter",
    "final",
    "finally",
    "friend",
    "from",
    "fxgroup",
    "get",
    "goto",
    "groupshared",
    "highp",
    "impl",
    "implements",
    "import",
    "inline",
    "instanceof",
    "interface",
    "layout",
    "lowp",
    "macro",
    "macro_rules",
    "match",
    "mediump",
    "meta",
    "mod",
    "module",
    "move",
    "mut",
    "mutable",
    "namespace",
    "new",
    "nil",
    "noexcept",
    "noinline",
    "nointerpolation",
    "non_coherent",
    "noncoherent",
    "noperspective",
    "null",
    "nullptr",
    "of",
    "operator",
    "package",
    "packoffset",
    "partition",
    "pass",
    "patch",
    "pixelfragment",
    "precise",
    "precision",
    "premerge",
    "priv",
    "protected",
    "pub",
    "public",
    "readonly",
    "ref",
    "regardless",
    "register",
    "reinterpret_cast",
    "require",
    "resource",
    "restrict",
    "self",
    "set",
    "shared",
    "sizeof",
    "smooth",
    "snorm",
    "static",
    "static_assert",
    "static_cast",
    "std",
    "subroutine",
    "super",
    "target",
    "template",
    "this",
    "thread_local",
    "throw",
    "trait",
    "try",
    "type",
    "typedef",
    "typeid",
    "typename",
    "typeof",
    "union",
    "unless",
    "unorm",
    "unsafe",
    "unsized",
    "use",
    "using",
    "varying",
    "virtual",
    "volatile",
    "wgsl",
    "where",
    "with",
    "writeonly",
    "yield",
    // Predeclared types and type generators.
    "bool",
    "f16",
    "f32",
    "i32",
    "u32",
    "vec2",
    "vec3",
    "vec4",
    "mat2x2",
    "mat2x3",
    "mat2x4",
    "mat3x2",
    "mat3x3",
    "mat3x4",
    "mat4x2",
    "mat4x3",
    "mat4x4",
    "array",
    "atomic",
    "ptr",
    "sampler",
    "sampler_comparison",
    "texture_1d",
    "texture_2d",
    "texture_2d_array",
    "texture_3d",
    "texture_cube",
    "texture_cube_array",
    "texture_multisampled_2d",
    "texture_depth_2d",
    "texture_depth_2d_array",
    "texture_depth_cube",
    "texture_depth_cube_array",
    "texture_depth_multisampled_2d",
    "texture_storage_1d",
    "texture_storage_2d",
    "texture_storage_2d_array",
    "texture_storage_3d",
    "texture_external",
    "vec2f",
    "vec3f",
    "vec4f",
    "vec2i",
    "vec3i",
    "vec4i",
    "vec2u",
    "vec3u",
    "vec4u",
    "vec2h",
    "vec3h",
    "vec4h",
    // Builtin functions.
    "abs",
    "acos",
    "acosh",
    "all",
    "any",
    "arrayLength",
    "asin",
    "asinh",
    "atan",
    "atan2",
    "atanh",
    "atomicAdd",
    "atomicAnd",
    "atomicCompareExchangeWeak",
    "atomicExchange",
    "atomicLoad",
    "atomicMax",
    "atomicMin",
    "atomicOr",
    "atomicStore",
    "atomicSub",
    "atomicXor",
    "bitcast",
    "ceil",
    "clamp",
    "cos",
    "cosh",
    "countLeadingZeros",
    "countOneBits",
    "countTrailingZeros",
    "cross",
    "degrees",
    "determinant",
    "distance",
    "dot",
    "dpdx",
    "dpdxCoarse",
    "dpdxFine",
    "dpdy",
    "dpdyCoarse",
    "dpdyFine",
    "exp",
    "exp2",
    "extractBits",
    "faceForward",
    "firstLeadingBit",
    "firstTrailingBit",
    "floor",
    "fma",
    "fract",
    "frexp",
    "fwidth",
    "fwidthCoarse",
    "fwidthFine",
    "insertBits",
    "inverseSqrt",
    "ldexp",
    "length",
    "log",
    "log2",
    "max",
    "min",
    "mix",
    "modf",
    "normalize",
    "pack2x16float",
    "pack2x16snorm",
    "pack2x16unorm",
    "pack4x8snorm",
    "pack4x8unorm",
    "pow",
    "quantizeToF16",
    "radians",
    "reflect",
    "refract",
    "reverseBits",
    "round",
    "saturate",
    "select",
    "sign",
    "sin",
    "sinh",
    "smoothstep",
    "sqrt",
    "step",
    "storageBarrier",
    "tan",
    "tanh",
    "textureBarrier",
    "textureDimensions",
    "textureGather",
    "textureGatherCompare",
    "textureLoad",
    "textureNumLayers",
    "textureNumLevels",
    "textureNumSamples",
    "textureSample",
    "textureSampleBias",
    "textureSampleCompare",
    "textureSampleCompareLevel",
    "textureSampleGrad",
    "textureSampleLevel",
    "textureSampleBaseClampToEdge",
    "textureStore",
    "transpose",
    "trunc",
    "unpack2x16float",
    "unpack2x16snorm",
    "unpack2x16unorm",
    "unpack4x8snorm",
    "unpack4x8unorm",
    "workgroupBarrier",
    "workgroupUniformLoad",
];

fn is_reserved(name: &str) -> bool {
    static SET: OnceLock<HashSet<&'static str>> = OnceLock::new();
    SET.get_or_init(|| RESERVED.iter().copied().collect()).contains(name)
}

/// Turns any OpName into a WGSL identifier: ASCII letters, digits and `_`, not starting with a
/// digit or `__`, never `_` alone, never reserved. A name that is all that already is borrowed.
pub fn sanitize(name: &str) -> Cow<'_, str> {
    let clean = !name.is_empty()
        && name != "_"
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        && !name.contains("__")
        && !is_reserved(name);
    if clean {
        return Cow::Borrowed(name);
    }
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        let c = if c.is_ascii_alphanumeric() { c } else { '_' };
        // Runs of underscores collapse: `a::b` reads better as `a_b`, and `__` is reserved.
        if c == '_' && out.ends_with('_') {
            continue;
        }
        out.push(c);
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) || out == "_" {
        out.insert(0, 'v');
    }
    if out.is_empty() {
        out.push('v');
    }
    if is_reserved(&out) {
        out.push('_');
    }
    Cow::Owned(out)
}

/// Hands out unique identifiers within a scope.
#[derive(Debug, Default, Clone)]
pub struct Namer {
    used: HashSet<Name>,
    /// For each base that collided, the counter its last fresh name took: names are never given
    /// back, so every smaller one is still taken, and the search resumes there. Without this,
    /// many values of one OpName would cost quadratic time.
    counters: HashMap<String, u32>,
}

impl Namer {
    /// A unique identifier based on `base` (any text), also unique against `outer` if given.
    pub fn fresh(&mut self, base: &str, outer: Option<&Namer>) -> String {
        self.fresh_name(base, outer).to_string()
    }

    /// [`Namer::fresh`], as a shared name: the one copy of its text is shared with the record
    /// of names taken.
    pub fn fresh_name(&mut self, base: &str, outer: Option<&Namer>) -> Name {
        let base = sanitize(base);
        // Nearly always the base is free: one insert both checks and takes it.
        if !outer.is_some_and(|o| o.used.contains(base.as_ref())) {
            let name = Name::from(base.as_ref());
            if self.used.insert(name.clone()) {
                return name;
            }
        }
        let taken =
            |name: &str, used: &HashSet<Name>| used.contains(name) || outer.is_some_and(|o| o.used.contains(name));
        let mut counter = self.counters.get(base.as_ref()).copied().unwrap_or(1);
        // `x_1` style, avoiding `__` when the base already ends in `_`.
        let numbered =
            |counter| if base.ends_with('_') { format!("{base}{counter}") } else { format!("{base}_{counter}") };
        let mut name = numbered(counter);
        while taken(&name, &self.used) {
            counter += 1;
            name = numbered(counter);
        }
        self.counters.insert(base.into_owned(), counter);
        let name = Name::from(name);
        self.used.insert(name.clone());
        name
    }

    pub fn clear(&mut self) {
        self.used.clear();
        self.counters.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitizes_glslang_names() {
        assert_eq!(sanitize("helper(t21;p1;"), "helper_t21_p1_");
        assert_eq!(sanitize("gl_Position"), "gl_Position");
        assert_eq!(sanitize("__hidden"), "_hidden");
        assert_eq!(sanitize("3d"), "v3d");
        assert_eq!(sanitize("_"), "v_");
        assert_eq!(sanitize(""), "v");
        assert_eq!(sanitize("struct"), "struct_");
        assert_eq!(sanitize("sin"), "sin_");
        assert_eq!(sanitize("naïve"), "na_ve");
    }

    #[test]
    fn numbering_resumes_where_it_stopped_and_skips_names_taken_since() {
        let mut namer = Namer::default();
        assert_eq!(namer.fresh("v", None), "v");
        assert_eq!(namer.fresh("v", None), "v_1");
        assert_eq!(namer.fresh("v_3", None), "v_3");
        assert_eq!(namer.fresh("v", None), "v_2");
        assert_eq!(namer.fresh("v", None), "v_4");
        namer.clear();
        assert_eq!(namer.fresh("v", None), "v");
        assert_eq!(namer.fresh("v", None), "v_1");
    }

    #[test]
    fn names_are_unique_in_scope_and_against_the_outer_scope() {
        let mut module = Namer::default();
        assert_eq!(module.fresh("color", None), "color");
        assert_eq!(module.fresh("color", None), "color_1");
        let mut local = Namer::default();
        assert_eq!(local.fresh("color", Some(&module)), "color_2");
        assert_eq!(local.fresh("x_", Some(&module)), "x_");
        assert_eq!(local.fresh("x_", Some(&module)), "x_1");
    }
}
