//! Identifiers: OpName first, sanitised to a WGSL identifier, never a keyword, reserved word or
//! predeclared name, and unique in its scope (`_1`, `_2`, ... on collisions).

use std::collections::{HashMap, HashSet};

/// WGSL keywords, reserved words, and predeclared names we call (types, builtin functions):
/// a declaration with one of these names would be an error or would shadow what we call.
const RESERVED: &[&str] = &[
    // Keywords.
    "alias", "break", "case", "const", "const_assert", "continue", "continuing", "default", "diagnostic",
    "discard", "else", "enable", "false", "fn", "for", "if", "let", "loop", "override", "requires",
    "return", "struct", "switch", "true", "var", "while",
    // Reserved words.
    "NULL", "Self", "abstract", "active", "alignas", "alignof", "as", "asm", "asm_fragment", "async",
    "attribute", "auto", "await", "become", "cast", "catch", "class", "co_await", "co_return",
    "co_yield", "coherent", "column_major", "common", "compile", "compile_fragment", "concept",
    "const_cast", "consteval", "constexpr", "constinit", "crate", "debugger", "decltype", "delete",
    "demote", "demote_to_helper", "do", "dynamic_cast", "enum", "explicit", "export", "extends",
    "extern", "external", "fallthrough", "filter", "final", "finally", "friend", "from", "fxgroup",
    "get", "goto", "groupshared", "highp", "impl", "implements", "import", "inline", "instanceof",
    "interface", "layout", "lowp", "macro", "macro_rules", "match", "mediump", "meta", "mod", "module",
    "move", "mut", "mutable", "namespace", "new", "nil", "noexcept", "noinline", "nointerpolation",
    "non_coherent", "noncoherent", "noperspective", "null", "nullptr", "of", "operator", "package",
    "packoffset", "partition", "pass", "patch", "pixelfragment", "precise", "precision", "premerge",
    "priv", "protected", "pub", "public", "readonly", "ref", "regardless", "register",
    "reinterpret_cast", "require", "resource", "restrict", "self", "set", "shared", "sizeof", "smooth",
    "snorm", "static", "static_assert", "static_cast", "std", "subroutine", "super", "target",
    "template", "this", "thread_local", "throw", "trait", "try", "type", "typedef", "typeid",
    "typename", "typeof", "union", "unless", "unorm", "unsafe", "unsized", "use", "using", "varying",
    "virtual", "volatile", "wgsl", "where", "with", "writeonly", "yield",
    // Predeclared types and type generators.
    "bool", "f16", "f32", "i32", "u32", "vec2", "vec3", "vec4", "mat2x2", "mat2x3", "mat2x4", "mat3x2",
    "mat3x3", "mat3x4", "mat4x2", "mat4x3", "mat4x4", "array", "atomic", "ptr", "sampler",
    "sampler_comparison", "texture_1d", "texture_2d", "texture_2d_array", "texture_3d", "texture_cube",
    "texture_cube_array", "texture_multisampled_2d", "texture_depth_2d", "texture_depth_2d_array",
    "texture_depth_cube", "texture_depth_cube_array", "texture_depth_multisampled_2d",
    "texture_storage_1d", "texture_storage_2d", "texture_storage_2d_array", "texture_storage_3d",
    "texture_external", "vec2f", "vec3f", "vec4f", "vec2i", "vec3i", "vec4i", "vec2u", "vec3u", "vec4u",
    "vec2h", "vec3h", "vec4h",
    // Builtin functions.
    "abs", "acos", "acosh", "all", "any", "arrayLength", "asin", "asinh", "atan", "atan2", "atanh",
    "atomicAdd", "atomicAnd", "atomicCompareExchangeWeak", "atomicExchange", "atomicLoad", "atomicMax",
    "atomicMin", "atomicOr", "atomicStore", "atomicSub", "atomicXor", "bitcast", "ceil", "clamp", "cos",
    "cosh", "countLeadingZeros", "countOneBits", "countTrailingZeros", "cross", "degrees",
    "determinant", "distance", "dot", "dpdx", "dpdxCoarse", "dpdxFine", "dpdy", "dpdyCoarse",
    "dpdyFine", "exp", "exp2", "extractBits", "faceForward", "firstLeadingBit", "firstTrailingBit",
    "floor", "fma", "fract", "frexp", "fwidth", "fwidthCoarse", "fwidthFine", "insertBits",
    "inverseSqrt", "ldexp", "length", "log", "log2", "max", "min", "mix", "modf", "normalize",
    "pack2x16float", "pack2x16snorm", "pack2x16unorm", "pack4x8snorm", "pack4x8unorm", "pow",
    "quantizeToF16", "radians", "reflect", "refract", "reverseBits", "round", "saturate", "select",
    "sign", "sin", "sinh", "smoothstep", "sqrt", "step", "storageBarrier", "tan", "tanh",
    "textureBarrier", "textureDimensions", "textureGather", "textureGatherCompare", "textureLoad",
    "textureNumLayers", "textureNumLevels", "textureNumSamples", "textureSample", "textureSampleBias",
    "textureSampleCompare", "textureSampleCompareLevel", "textureSampleGrad", "textureSampleLevel",
    "textureSampleBaseClampToEdge", "textureStore", "transpose", "trunc", "unpack2x16float",
    "unpack2x16snorm", "unpack2x16unorm", "unpack4x8snorm", "unpack4x8unorm", "workgroupBarrier",
    "workgroupUniformLoad",
];

/// Turns any OpName into a WGSL identifier: ASCII letters, digits and `_`, not starting with a
/// digit or `__`, never `_` alone, never reserved.
pub fn sanitize(name: &str) -> String {
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
    if RESERVED.contains(&out.as_str()) {
        out.push('_');
    }
    out
}

/// Hands out unique identifiers within a scope.
#[derive(Debug, Default, Clone)]
pub struct Namer {
    used: HashSet<String>,
    /// The next counter to try per base, so a base used n times costs O(n) in all, not O(n^2).
    next: HashMap<String, u32>,
}

impl Namer {
    /// A unique identifier based on `base` (any text), also unique against `outer` if given.
    pub fn fresh(&mut self, base: &str, outer: Option<&Namer>) -> String {
        let base = sanitize(base);
        let taken = |name: &str, used: &HashSet<String>| {
            used.contains(name) || outer.is_some_and(|o| o.used.contains(name))
        };
        let mut name = base.clone();
        let mut counter = self.next.get(&base).copied().unwrap_or(1);
        while taken(&name, &self.used) {
            // `x_1` style, avoiding `__` when the base already ends in `_`.
            name = if base.ends_with('_') { format!("{base}{counter}") } else { format!("{base}_{counter}") };
            counter += 1;
        }
        self.next.insert(base, counter);
        self.used.insert(name.clone());
        name
    }

    pub fn clear(&mut self) {
        self.used.clear();
        self.next.clear();
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
