//! Identifiers: OpName first, sanitised to a WGSL identifier, never a keyword, reserved word or
//! predeclared name, and unique in its scope (`_1`, `_2`, ... on collisions).

use crate::id_hash::IdSet;
use crate::name_hash::{NameMap, NameSet};
use std::borrow::Cow;
use std::sync::OnceLock;

use super::ast::Name;
use super::print::push_decimal;

/// Predeclared names naga's list (`BUILTIN_IDENTIFIERS`) leaves out: the type aliases
/// (WGSL spec, "Predeclared type aliases"). A declaration with one of them would shadow the alias.
const PREDECLARED_ALIASES: &[&str] = &[
    "vec2i", "vec3i", "vec4i", "vec2u", "vec3u", "vec4u", "vec2f", "vec3f", "vec4f", "vec2h", "vec3h", "vec4h",
    "mat2x2f", "mat2x3f", "mat2x4f", "mat3x2f", "mat3x3f", "mat3x4f", "mat4x2f", "mat4x3f", "mat4x4f", "mat2x2h",
    "mat2x3h", "mat2x4h", "mat3x2h", "mat3x3h", "mat3x4h", "mat4x2h", "mat4x3h", "mat4x4h",
];

/// Keywords and reserved words: no identifier may be one (WGSL spec, "Keyword Summary" and
/// "Reserved Words"). naga keeps the list in step with the spec.
fn is_keyword(name: &str) -> bool {
    static SET: OnceLock<NameSet<&'static str>> = OnceLock::new();
    SET.get_or_init(|| naga::keywords::wgsl::RESERVED.iter().copied().collect()).contains(name)
}

/// Keywords, reserved words, and every predeclared name: types and type generators, type
/// aliases, enumerants (address spaces, access modes, texel formats: `var<uniform>` resolves
/// `uniform` by scope, so a declaration named `uniform` breaks it) and builtin functions. A
/// declaration with one of these names would be an error or shadow what the output uses. One
/// set holds them all: every local name asks. A name whose first letter starts none of them
/// (`x_12`) is not looked up.
pub(crate) fn is_reserved(name: &str) -> bool {
    static RESERVED: OnceLock<(NameSet<&'static str>, [bool; 256])> = OnceLock::new();
    let (words, first_letters) = RESERVED.get_or_init(|| {
        let words: NameSet<&'static str> = naga::keywords::wgsl::RESERVED
            .iter()
            .chain(naga::keywords::wgsl::BUILTIN_IDENTIFIERS)
            .chain(PREDECLARED_ALIASES)
            .copied()
            .collect();
        let mut first_letters = [false; 256];
        words.iter().filter_map(|word| word.bytes().next()).for_each(|b| first_letters[usize::from(b)] = true);
        (words, first_letters)
    });
    name.bytes().next().is_some_and(|b| first_letters[usize::from(b)]) && words.contains(name)
}

/// Turns any OpName into a WGSL identifier: ASCII letters, digits and `_`, not starting with a
/// digit or `__`, never `_` alone, never reserved. A name that is all that already is borrowed.
pub fn sanitize(name: &str) -> Cow<'_, str> {
    sanitize_against(name, is_reserved)
}

/// [`sanitize`] for a struct member: member names are looked up in their struct, never by
/// scope, so only keywords and reserved words are out (`min`, `read`, `vec4` stay).
pub fn sanitize_member(name: &str) -> Cow<'_, str> {
    sanitize_against(name, is_keyword)
}

fn sanitize_against(name: &str, is_reserved: fn(&str) -> bool) -> Cow<'_, str> {
    // Byte by byte: `str::contains` would set up a substring search for each name.
    let bytes = name.as_bytes();
    let clean = bytes.first().is_some_and(|first| !first.is_ascii_digit())
        && name != "_"
        && bytes.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'_')
        && !bytes.windows(2).any(|pair| pair == b"__")
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

/// `x_<id>`, the name of a value without an `OpName`: written digit by digit, as `format!` costs
/// more than the rest of naming a value, once per value of the module.
pub fn unnamed_base(id: u32) -> String {
    let mut base = String::with_capacity(12);
    push_unnamed(&mut base, id);
    base
}

fn push_unnamed(out: &mut String, id: u32) {
    out.push_str("x_");
    push_decimal(out, u64::from(id));
}

/// The id `name` is [`unnamed_base`] of, if it is one: `x_` and an id in decimal without
/// leading zeros, so that each such name has exactly one id and each id one name. Read digit by
/// digit in one pass: it is asked about every identifier of a function (`inline_lets`).
pub(crate) fn unnamed_id(name: &str) -> Option<u32> {
    let digits = name.strip_prefix("x_")?.as_bytes();
    // Ten digits at most: their value fits a `u64` unchecked, and `u32::MAX` has ten.
    if digits.is_empty() || digits.len() > 10 || (digits.len() > 1 && digits[0] == b'0') {
        return None;
    }
    let mut id: u64 = 0;
    for &digit in digits {
        let value = digit.wrapping_sub(b'0');
        if value > 9 {
            return None;
        }
        id = id * 10 + u64::from(value);
    }
    u32::try_from(id).ok()
}

/// Hands out unique identifiers within a scope.
#[derive(Debug, Default, Clone)]
pub struct Namer {
    /// The names taken, but for those of the form `x_<id>` ([`unnamed_base`]), kept by id in
    /// `unnamed`: nearly every value of a function takes one, and a set of ids costs far less
    /// than a set of text.
    used: NameSet<Name>,
    unnamed: IdSet<u32>,
    /// Where [`Namer::fresh_unnamed`] writes a name before it is shared.
    text: String,
    /// For each base that collided, the counter its last fresh name took: names are never given
    /// back, so every smaller one is still taken, and the search resumes there. Without this,
    /// many values of one OpName would cost quadratic time.
    counters: NameMap<String, u32>,
    /// Names struct members ([`sanitize_member`]) rather than scoped declarations.
    members: bool,
}

impl Namer {
    /// A namer for the members of one struct.
    pub fn for_members() -> Namer {
        Namer { members: true, ..Namer::default() }
    }

    /// A namer for a function's locals, with room for `values` names of unnamed values: most
    /// values take one, and growing the set by rehashing cost more than the inserts.
    pub fn for_locals(values: usize) -> Namer {
        Namer { unnamed: IdSet::with_capacity_and_hasher(values, Default::default()), ..Namer::default() }
    }

    /// A unique identifier based on `base` (any text), also unique against `outer` if given.
    pub fn fresh(&mut self, base: &str, outer: Option<&Namer>) -> String {
        self.fresh_name(base, outer).to_string()
    }

    /// [`Namer::fresh`], as a shared name: the one copy of its text is shared with the record
    /// of names taken.
    pub fn fresh_name(&mut self, base: &str, outer: Option<&Namer>) -> Name {
        let base = if self.members { sanitize_member(base) } else { sanitize(base) };
        // Nearly always the base is free: one insert both checks and takes it.
        if !outer.is_some_and(|o| o.is_taken(&base)) {
            let name = Name::from(base.as_ref());
            if self.take(&name) {
                return name;
            }
        }
        let mut counter = self.counters.get(base.as_ref()).copied().unwrap_or(1);
        // `x_1` style, avoiding `__` when the base already ends in `_`.
        let numbered =
            |counter| if base.ends_with('_') { format!("{base}{counter}") } else { format!("{base}_{counter}") };
        let mut name = numbered(counter);
        while self.is_taken(&name) || outer.is_some_and(|o| o.is_taken(&name)) {
            counter += 1;
            name = numbered(counter);
        }
        self.counters.insert(base.into_owned(), counter);
        let name = Name::from(name);
        self.take(&name);
        name
    }

    /// [`Namer::fresh_name`] of [`unnamed_base`]`(id)`, the same name found without text
    /// hashed where it is free. (Such a base needs no sanitizing: it is made of letters, digits
    /// and one `_`, and no reserved word has its form.) Also whether the name is that base
    /// itself: a numbered one (`x_5_1`) never has its form, so the caller can key it by `id`.
    pub fn fresh_unnamed(&mut self, id: u32, outer: Option<&Namer>) -> (Name, bool) {
        self.text.clear();
        push_unnamed(&mut self.text, id);
        if !outer.is_some_and(|o| o.unnamed.contains(&id)) && self.unnamed.insert(id) {
            return (Name::from(self.text.as_str()), true);
        }
        let base = std::mem::take(&mut self.text);
        let name = self.fresh_name(&base, outer);
        self.text = base;
        (name, false)
    }

    fn is_taken(&self, name: &str) -> bool {
        match unnamed_id(name) {
            Some(id) => self.unnamed.contains(&id),
            None => self.used.contains(name),
        }
    }

    /// Records `name` as taken; false if it was already.
    fn take(&mut self, name: &Name) -> bool {
        match unnamed_id(name) {
            Some(id) => self.unnamed.insert(id),
            None => self.used.insert(name.clone()),
        }
    }

    pub fn clear(&mut self) {
        self.used.clear();
        self.unnamed.clear();
        self.counters.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unnamed_value_is_x_and_its_id_in_decimal() {
        for id in [0, 7, 10, 12_345, u32::MAX] {
            assert_eq!(unnamed_base(id), format!("x_{id}"));
            assert_eq!(unnamed_id(&unnamed_base(id)), Some(id));
            // `fresh_unnamed` takes the base as it is.
            assert!(matches!(sanitize(&unnamed_base(id)), Cow::Borrowed(_)));
        }
        for other in ["x_", "x_01", "x_00", "x_1a", "x_+1", "x__1", "y_1", "x_4294967296", "x_-1"] {
            assert_eq!(unnamed_id(other), None, "{other}");
        }
    }

    #[test]
    fn sanitizes_glslang_names() {
        assert_eq!(sanitize("x_12"), "x_12");
        assert_eq!(sanitize("var"), "var_");
        assert_eq!(sanitize("vec4f"), "vec4f_");
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
    fn predeclared_names_are_avoided_by_declarations_but_not_by_members() {
        // Enumerants resolve by scope (`var<uniform>`), as do types, aliases and builtins.
        for name in ["uniform", "read_write", "storage", "private", "rgba8unorm", "vec4f", "mat3x3h", "min", "f32"] {
            assert_eq!(sanitize(name), format!("{name}_"));
            assert_eq!(sanitize_member(name), name);
        }
        for keyword in ["override", "enable", "requires", "diagnostic", "fn", "struct"] {
            assert_eq!(sanitize_member(keyword), format!("{keyword}_"));
        }
        assert_eq!(sanitize_member("__x"), "_x");
        assert_eq!(sanitize_member("_"), "v_");
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
    fn an_unnamed_value_says_whether_it_took_its_base() {
        let mut module = Namer::default();
        assert_eq!(module.fresh("x_7", None), "x_7");
        let mut local = Namer::default();
        assert_eq!(local.fresh_unnamed(5, Some(&module)), (Name::from("x_5"), true));
        assert_eq!(local.fresh_unnamed(5, Some(&module)), (Name::from("x_5_1"), false));
        assert_eq!(local.fresh_unnamed(7, Some(&module)), (Name::from("x_7_1"), false));
        assert_eq!(unnamed_id("x_5_1"), None);
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
