//! The binding map: every resource of the WGSL with its group and binding, and the SPIR-V
//! variable it came from, so an application can build its bind groups. Resources the SPIR-V did
//! not bind (the sampler half of a combined image sampler, a comparison twin, push constants) are
//! marked as assigned by us; `docs/bindings.md` states the rule. For WGSL input, the map is the
//! SPIR-V's specialization constants instead: each WGSL override with its `SpecId`.

use std::fmt::Write;

/// A `@group(G) @binding(B)` pair, or a `DescriptorSet`/`Binding` pair in SPIR-V.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
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

/// Why a resource has a binding the SPIR-V did not give it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
}

impl BindingOrigin {
    /// The name the JSON binding map uses.
    pub fn as_str(self) -> &'static str {
        match self {
            BindingOrigin::CombinedImageSampler => "combined_image_sampler",
            BindingOrigin::ComparisonSampler => "comparison_sampler",
            BindingOrigin::PushConstant => "push_constant",
            BindingOrigin::SharedWithImage => "shared_with_image",
        }
    }
}

/// One resource variable of the WGSL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    /// Where the WGSL binds it.
    pub binding: ResourceBinding,
    /// The WGSL variable's name.
    pub name: String,
    /// The WGSL variable's type.
    pub ty: String,
    /// Its address space with access mode (`uniform`, `storage, read`; empty for textures and
    /// samplers).
    pub space: String,
    /// The SPIR-V variable's DescriptorSet and Binding (none for push constants).
    pub original: Option<ResourceBinding>,
    /// The SPIR-V variable's OpName.
    pub original_name: Option<String>,
    /// Set when we chose the binding, saying why.
    pub assigned: Option<BindingOrigin>,
}

/// The map as a JSON array, one object per binding, in (group, binding) order.
pub fn to_json(bindings: &[Binding]) -> String {
    let mut out = String::from("[\n");
    for (i, b) in bindings.iter().enumerate() {
        let original = match b.original {
            Some(o) => format!(
                "{{\"set\": {}, \"binding\": {}, \"name\": {}}}",
                o.group,
                o.binding,
                json_name(&b.original_name)
            ),
            None => format!("{{\"set\": null, \"binding\": null, \"name\": {}}}", json_name(&b.original_name)),
        };
        let _ = write!(
            out,
            "  {{\"group\": {}, \"binding\": {}, \"name\": {}, \"type\": {}, \"address_space\": {}, \"original\": {original}, \"assigned\": {}, \"origin\": {}}}",
            b.binding.group,
            b.binding.binding,
            json_string(&b.name),
            json_string(&b.ty),
            if b.space.is_empty() { "null".to_string() } else { json_string(&b.space) },
            b.assigned.is_some(),
            b.assigned.map_or("null".to_string(), |o| json_string(o.as_str())),
        );
        out.push_str(if i + 1 < bindings.len() { ",\n" } else { "\n" });
    }
    out.push_str("]\n");
    out
}

/// A WGSL override as the specialization constant of the SPIR-V written for it.
#[derive(Debug, Clone, PartialEq)]
pub struct SpecConstant {
    /// The override's name (`None` for the length of a workgroup array, an override expression).
    pub name: Option<String>,
    /// Its `SpecId`; `None` when it is computed from other overrides (`OpSpecConstantOp`).
    pub spec_id: Option<u32>,
    /// The WGSL type: `bool`, `i32`, `u32`, `f32` or `f16`.
    pub ty: String,
    /// The default value as a JSON value (`true`, `4`, `-1.5`); `None` when the WGSL has none
    /// (the pipeline must set it) or it is computed.
    pub default: Option<String>,
    /// Whether we chose the `SpecId` (the override has no `@id`).
    pub assigned: bool,
}

/// The specialization constants as a JSON array, one object per override, in declaration order:
/// `origin` is `"no_id"` for an id we chose and `"computed"` for one computed from others.
pub fn spec_constants_to_json(constants: &[SpecConstant]) -> String {
    let mut out = String::from("[\n");
    for (i, c) in constants.iter().enumerate() {
        let origin = match (c.spec_id, c.assigned) {
            (None, _) => "\"computed\"",
            (Some(_), true) => "\"no_id\"",
            (Some(_), false) => "null",
        };
        let _ = write!(
            out,
            "  {{\"override\": {}, \"spec_id\": {}, \"type\": {}, \"default\": {}, \"assigned\": {}, \"origin\": {origin}}}",
            json_name(&c.name),
            c.spec_id.map_or("null".to_string(), |id| id.to_string()),
            json_string(&c.ty),
            c.default.as_deref().unwrap_or("null"),
            c.assigned,
        );
        out.push_str(if i + 1 < constants.len() { ",\n" } else { "\n" });
    }
    out.push_str("]\n");
    out
}

fn json_name(name: &Option<String>) -> String {
    name.as_deref().map_or("null".to_string(), json_string)
}

fn json_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
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
        let constants = [
            SpecConstant {
                name: Some("count".into()),
                spec_id: Some(0),
                ty: "u32".into(),
                default: Some("4".into()),
                assigned: true,
            },
            SpecConstant {
                name: Some("scale".into()),
                spec_id: Some(7),
                ty: "f32".into(),
                default: None,
                assigned: false,
            },
            SpecConstant { name: None, spec_id: None, ty: "u32".into(), default: None, assigned: false },
        ];
        assert_eq!(
            spec_constants_to_json(&constants),
            "[\n  {\"override\": \"count\", \"spec_id\": 0, \"type\": \"u32\", \"default\": 4, \"assigned\": true, \"origin\": \"no_id\"},\n  \
             {\"override\": \"scale\", \"spec_id\": 7, \"type\": \"f32\", \"default\": null, \"assigned\": false, \"origin\": null},\n  \
             {\"override\": null, \"spec_id\": null, \"type\": \"u32\", \"default\": null, \"assigned\": false, \"origin\": \"computed\"}\n]\n"
        );
    }

    #[test]
    fn json_escapes_names_and_marks_assigned_bindings() {
        let bindings = [
            Binding {
                binding: ResourceBinding { group: 0, binding: 1 },
                name: "tex".into(),
                ty: "texture_2d<f32>".into(),
                space: String::new(),
                original: Some(ResourceBinding { group: 0, binding: 1 }),
                original_name: Some("t\"ex".into()),
                assigned: None,
            },
            Binding {
                binding: ResourceBinding { group: 0, binding: 2 },
                name: "pc".into(),
                ty: "PushConstants".into(),
                space: "uniform".into(),
                original: None,
                original_name: None,
                assigned: Some(BindingOrigin::PushConstant),
            },
        ];
        assert_eq!(
            to_json(&bindings),
            "[\n  {\"group\": 0, \"binding\": 1, \"name\": \"tex\", \"type\": \"texture_2d<f32>\", \"address_space\": null, \
             \"original\": {\"set\": 0, \"binding\": 1, \"name\": \"t\\\"ex\"}, \"assigned\": false, \"origin\": null},\n  \
             {\"group\": 0, \"binding\": 2, \"name\": \"pc\", \"type\": \"PushConstants\", \"address_space\": \"uniform\", \
             \"original\": {\"set\": null, \"binding\": null, \"name\": null}, \"assigned\": true, \"origin\": \"push_constant\"}\n]\n"
        );
    }
}
