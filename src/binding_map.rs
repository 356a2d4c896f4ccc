//! The binding map: every resource of the WGSL with its group and binding, and the SPIR-V
//! variable it came from, so an application can build its bind groups. Resources the SPIR-V did
//! not bind (the sampler half of a combined image sampler, a comparison twin, push constants) are
//! marked as assigned by us; `docs/bindings.md` states the rule. For WGSL input, the map is the
//! SPIR-V's specialization constants instead: each WGSL override with its `SpecId`.

use serde::{Deserialize, Serialize};

/// A `@group(G) @binding(B)` pair, or a `DescriptorSet`/`Binding` pair in SPIR-V.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ResourceBinding {
    /// The group (SPIR-V: descriptor set).
    pub group: u32,
    /// The binding within the group.
    pub binding: u32,
}

impl std::fmt::Display for ResourceBinding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "@group({}) @binding({})", self.group, self.binding)
    }
}

impl std::str::FromStr for ResourceBinding {
    type Err = String;

    /// `GROUP:BINDING`, e.g. `0:3`.
    fn from_str(text: &str) -> Result<Self, String> {
        let (group, binding) = text.split_once(':').ok_or_else(|| format!("`{text}` is not GROUP:BINDING"))?;
        let number =
            |part: &str| part.trim().parse::<u32>().map_err(|_| format!("`{part}` in `{text}` is not a number"));
        Ok(ResourceBinding { group: number(group)?, binding: number(binding)? })
    }
}

/// Why a resource has a binding the SPIR-V did not give it; in JSON, its name in snake case
/// (`combined_image_sampler`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BindingOrigin {
    /// The sampler half of a combined image sampler.
    CombinedImageSampler,
    /// The `sampler_comparison` twin of a sampler used both with and without a depth reference.
    ComparisonSampler,
    /// A push-constant block, now a uniform buffer.
    PushConstant,
    /// A sampler at the same binding as an image (a combined image sampler descriptor read
    /// through two variables), moved to a binding of its own.
    SharedWithImage,
    /// A resource an entry point uses at the same binding as another (two views of one
    /// descriptor), moved to a binding of its own, where the same resource is bound again.
    Aliased,
    /// The uniform buffer of `--emulate-draw-parameters` (base vertex, base instance, draw index).
    DrawParameters,
}

/// One resource variable of the WGSL; in JSON, one object with these keys in this order (the
/// binding's as `group` and `binding`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Binding {
    /// Where the WGSL binds it.
    #[serde(flatten)]
    pub binding: ResourceBinding,
    /// The WGSL variable's name.
    pub name: String,
    /// The WGSL variable's type.
    #[serde(rename = "type")]
    pub ty: String,
    /// Its address space with access mode (`uniform`, `storage, read`); `None` for textures and
    /// samplers.
    pub address_space: Option<String>,
    /// The SPIR-V variable it comes from.
    pub original: Original,
    /// Whether spv2wgsl chose the group and binding (exactly when `origin` says why).
    pub assigned: bool,
    /// Why spv2wgsl chose the group and binding, when it did.
    pub origin: Option<BindingOrigin>,
}

/// The SPIR-V variable a resource comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Original {
    /// Its DescriptorSet (none for push constants; set exactly when `binding` is).
    pub set: Option<u32>,
    /// Its Binding.
    pub binding: Option<u32>,
    /// Its OpName.
    pub name: Option<String>,
}

/// The map as a JSON array, one object per binding, in (group, binding) order, each on a line of
/// its own:
///
/// ```text
/// [
///   {"group": 0, "binding": 1, "name": "tex", ...},
///   {"group": 0, "binding": 2, "name": "pc", ...}
/// ]
/// ```
pub fn to_json(bindings: &[Binding]) -> String {
    json_lines(bindings)
}

/// A WGSL override as the specialization constant of the SPIR-V written for it; in JSON, one
/// object with these keys in this order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpecConstant {
    /// The override's name (`None` for the length of a workgroup array, an override expression).
    #[serde(rename = "override")]
    pub name: Option<String>,
    /// Its `SpecId`; `None` when it is computed from other overrides (`OpSpecConstantOp`).
    pub spec_id: Option<u32>,
    /// The WGSL type: `bool`, `i32`, `u32`, `f32` or `f16`.
    #[serde(rename = "type")]
    pub ty: String,
    /// The default value (a JSON boolean or number); `None` when the WGSL has none (the pipeline
    /// must set it) or it is computed.
    pub default: Option<serde_json::Value>,
    /// Whether spv2wgsl chose the `SpecId` (exactly when `origin` is `no_id`).
    pub assigned: bool,
    /// Why the constant has no `SpecId` of the WGSL's own, when it has not.
    pub origin: Option<SpecConstantOrigin>,
}

/// Why a specialization constant has no `SpecId` from an `@id`; in JSON, its name in snake case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SpecConstantOrigin {
    /// The override has no `@id`: spv2wgsl chose the `SpecId`.
    NoId,
    /// Computed from other overrides: no `SpecId`, the pipeline cannot set it.
    Computed,
}

/// The specialization constants as a JSON array, one object per override, in declaration order,
/// each on a line of its own.
pub fn spec_constants_to_json(constants: &[SpecConstant]) -> String {
    json_lines(constants)
}

/// `items` as a JSON array with each item on a line of its own.
fn json_lines<T: Serialize>(items: &[T]) -> String {
    let mut out = Vec::new();
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, OneLinePerItem { depth: 0 });
    // Strings, numbers, booleans and nulls under string keys: nothing serde_json could refuse.
    items.serialize(&mut serializer).expect("the binding map serializes");
    out.push(b'\n');
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

/// serde_json's compact output, spaced after `:` and `,`, with each item of the outermost array
/// on a line of its own: one binding per line reads well and diffs well.
struct OneLinePerItem {
    /// How many arrays are open.
    depth: usize,
}

impl serde_json::ser::Formatter for OneLinePerItem {
    fn begin_array<W: ?Sized + std::io::Write>(&mut self, out: &mut W) -> std::io::Result<()> {
        self.depth += 1;
        out.write_all(b"[")
    }

    fn end_array<W: ?Sized + std::io::Write>(&mut self, out: &mut W) -> std::io::Result<()> {
        self.depth -= 1;
        out.write_all(if self.depth == 0 { b"\n]" } else { b"]" })
    }

    fn begin_array_value<W: ?Sized + std::io::Write>(&mut self, out: &mut W, first: bool) -> std::io::Result<()> {
        let separator: &[u8] = match (self.depth, first) {
            (1, true) => b"\n  ",
            (1, false) => b",\n  ",
            (_, true) => b"",
            (_, false) => b", ",
        };
        out.write_all(separator)
    }

    fn begin_object_key<W: ?Sized + std::io::Write>(&mut self, out: &mut W, first: bool) -> std::io::Result<()> {
        out.write_all(if first { b"" } else { b", " })
    }

    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, out: &mut W) -> std::io::Result<()> {
        out.write_all(b": ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_group_and_binding() {
        assert_eq!("1:7".parse::<ResourceBinding>(), Ok(ResourceBinding { group: 1, binding: 7 }));
        assert!("1".parse::<ResourceBinding>().is_err());
        assert!("a:2".parse::<ResourceBinding>().is_err());
    }

    #[test]
    fn spec_constants_say_which_ids_were_chosen() {
        let constant =
            |name: Option<&str>, spec_id, ty: &str, default: Option<serde_json::Value>, origin| SpecConstant {
                name: name.map(str::to_string),
                spec_id,
                ty: ty.into(),
                default,
                assigned: origin == Some(SpecConstantOrigin::NoId),
                origin,
            };
        let constants = [
            constant(Some("count"), Some(0), "u32", Some(4.into()), Some(SpecConstantOrigin::NoId)),
            constant(Some("scale"), Some(7), "f32", None, None),
            constant(None, None, "u32", None, Some(SpecConstantOrigin::Computed)),
        ];
        assert_eq!(
            spec_constants_to_json(&constants),
            "[\n  {\"override\": \"count\", \"spec_id\": 0, \"type\": \"u32\", \"default\": 4, \"assigned\": true, \"origin\": \"no_id\"},\n  \
             {\"override\": \"scale\", \"spec_id\": 7, \"type\": \"f32\", \"default\": null, \"assigned\": false, \"origin\": null},\n  \
             {\"override\": null, \"spec_id\": null, \"type\": \"u32\", \"default\": null, \"assigned\": false, \"origin\": \"computed\"}\n]\n"
        );
        assert_eq!(serde_json::from_str::<Vec<SpecConstant>>(&spec_constants_to_json(&constants)).unwrap(), constants);
    }

    #[test]
    fn json_escapes_names_and_marks_assigned_bindings() {
        let bindings = [
            Binding {
                binding: ResourceBinding { group: 0, binding: 1 },
                name: "tex".into(),
                ty: "texture_2d<f32>".into(),
                address_space: None,
                original: Original { set: Some(0), binding: Some(1), name: Some("t\"ex".into()) },
                assigned: false,
                origin: None,
            },
            Binding {
                binding: ResourceBinding { group: 0, binding: 2 },
                name: "pc".into(),
                ty: "PushConstants".into(),
                address_space: Some("uniform".into()),
                original: Original { set: None, binding: None, name: None },
                assigned: true,
                origin: Some(BindingOrigin::PushConstant),
            },
        ];
        assert_eq!(
            to_json(&bindings),
            "[\n  {\"group\": 0, \"binding\": 1, \"name\": \"tex\", \"type\": \"texture_2d<f32>\", \"address_space\": null, \
             \"original\": {\"set\": 0, \"binding\": 1, \"name\": \"t\\\"ex\"}, \"assigned\": false, \"origin\": null},\n  \
             {\"group\": 0, \"binding\": 2, \"name\": \"pc\", \"type\": \"PushConstants\", \"address_space\": \"uniform\", \
             \"original\": {\"set\": null, \"binding\": null, \"name\": null}, \"assigned\": true, \"origin\": \"push_constant\"}\n]\n"
        );
        assert_eq!(serde_json::from_str::<Vec<Binding>>(&to_json(&bindings)).unwrap(), bindings);
        assert_eq!(to_json(&[]), "[\n]\n");
    }
}
