//! What one execution test runs, read from the `exec:` lines of its shader
//! sources (`// exec: ...` in GLSL and HLSL, `; exec: ...` in assembly), so a
//! new test is a single file. The directives (set 0 is the only descriptor
//! set; VALUES are the tokens of `values.rs`):
//!
//! | directive | meaning |
//! |---|---|
//! | `dispatch X Y Z` | workgroups to dispatch (compute; default `1 1 1`) |
//! | `storage B: VALUES` | a storage buffer at binding B with these contents; compared after the run |
//! | `uniform B: VALUES` | a uniform buffer at binding B |
//! | `push: VALUES` | push constants (Vulkan); on WebGPU the buffer at the binding the translation's binding map gives the push-constant block |
//! | `texture B WxH FORMAT [levels N] [layers L] [cube]: VALUES` | a sampled 2D texture (FORMATS below; `rgba8unorm`: one word a texel, `depth16unorm`: one word a texel, its low 16 bits), maybe of N mip levels (each half the size of the one before, rounded down, at least 1), maybe an array of L layers, maybe a cube (6 layers; a cube array with `layers`, a multiple of 6). VALUES: each level in turn, level 0 first, and in each level each layer's texels in turn |
//! | `storage-image B WxH FORMAT: VALUES` | a storage image (2D, one level) with these texels; compared after the run as a storage buffer of its texels, row by row |
//! | `sampler B nearest\|linear [compare OP]` | a sampler (clamp to edge; nearest between mip levels, none beyond the texture's), maybe a comparison sampler (OP: `never`, `less`, `equal`, `less-equal`, `greater`, `not-equal`, `greater-equal`, `always`; the reference on the left) |
//! | `combined B WxH FORMAT nearest\|linear [compare OP] [levels N] [layers L] [cube]: VALUES` | a combined image sampler: on WebGPU the texture at B and the sampler where the translation's binding map puts it |
//! | `spec ID VALUE` | specialize constant ID (`1.5` as f32, else a 32-bit integer) on both sides |
//! | `ulp B N` | compare binding B as f32s, allowing N units in the last place |
//! | `expect B: VALUES` | the WGSL result at binding B must be VALUES; the Vulkan result is not the reference (say why in a comment) |
//! | `cpu B: VALUES` | binding B's result worked out on the CPU (a generator's model): the Vulkan run must give it too; where the device cannot run the module or gives something else (a driver bug), the WGSL run is checked against VALUES alone and the test reported as ignored, as it is when the two runs agree with each other but not with VALUES |
//! | `pending AREA` | the translator does not support this yet: "cannot translate" is reported as ignored, anything else must pass |
//! | `vulkan-fails TEXT` | the device cannot run the SPIR-V (a driver bug, say which): the SPIR-V side is skipped and every storage buffer needs an `expect` line |
//! | `webgpu-fails TEXT` | wgpu on this device cannot run our (validated) WGSL (an upstream bug, say which): the WGSL is translated and validated but not run; reported as ignored. In a WGSL case, wgpu cannot run the original WGSL: every storage buffer needs an `expect` line, which stands in for its results |
//! | `known-bug TEXT` | the translation is known to be wrong: a failure is reported as ignored, a pass fails (remove the line) |
//! | `target W H FORMAT` | a colour attachment (render; one line per location) |
//! | `draw VERTICES [INSTANCES [FIRST_VERTEX FIRST_INSTANCE]]` | the draw call (render) |
//! | `emulate-draw-parameters` | translate with `--emulate-draw-parameters`; WebGPU's draw-parameters buffer holds the draw's first vertex and first instance, draw index 0 |
//! | `vertex LOCATION FORMAT: VALUES` | a per-vertex attribute in its own buffer (render) |
//! | `tolerance N` | largest allowed difference per channel: unorm steps or f32 ULPs (render) |
//! | `samples N` | render with N samples per pixel and compare the resolved (averaged) targets (render; not integer formats) |

use std::collections::BTreeMap;

use crate::values;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    Compute,
    Vertex,
    Fragment,
}

/// A resource at `(set 0, binding)`.
#[derive(Debug, Clone)]
pub struct Resource {
    pub binding: u32,
    pub kind: ResourceKind,
}

#[derive(Debug, Clone)]
pub enum ResourceKind {
    Storage(Vec<u32>),
    Uniform(Vec<u32>),
    Texture(Texture),
    StorageImage(Texture),
    Sampler(Sampler),
    Combined { texture: Texture, sampler: Sampler },
}

impl ResourceKind {
    /// A storage buffer or image: what a run writes and the test compares.
    pub fn is_written(&self) -> bool {
        matches!(self, ResourceKind::Storage(_) | ResourceKind::StorageImage(_))
    }
}

#[derive(Debug, Clone, Copy)]
pub struct Sampler {
    pub linear: bool,
    pub compare: Option<&'static CompareOp>,
}

/// A comparison sampler's function, with what the two APIs call it.
#[derive(Debug)]
pub struct CompareOp {
    pub name: &'static str,
    pub vulkan: ash::vk::CompareOp,
    pub webgpu: wgpu::CompareFunction,
}

const COMPARE_OPS: &[CompareOp] = {
    use ash::vk::CompareOp as V;
    use wgpu::CompareFunction as W;
    &[
        CompareOp { name: "never", vulkan: V::NEVER, webgpu: W::Never },
        CompareOp { name: "less", vulkan: V::LESS, webgpu: W::Less },
        CompareOp { name: "equal", vulkan: V::EQUAL, webgpu: W::Equal },
        CompareOp { name: "less-equal", vulkan: V::LESS_OR_EQUAL, webgpu: W::LessEqual },
        CompareOp { name: "greater", vulkan: V::GREATER, webgpu: W::Greater },
        CompareOp { name: "not-equal", vulkan: V::NOT_EQUAL, webgpu: W::NotEqual },
        CompareOp { name: "greater-equal", vulkan: V::GREATER_OR_EQUAL, webgpu: W::GreaterEqual },
        CompareOp { name: "always", vulkan: V::ALWAYS, webgpu: W::Always },
    ]
};

#[derive(Debug, Clone)]
pub struct Texture {
    pub width: u32,
    pub height: u32,
    pub levels: u32,
    /// Array layers (6 a cube).
    pub layers: u32,
    pub view: ViewKind,
    pub format: TexelFormat,
    pub words: Vec<u32>,
}

/// How a texture is viewed: what the shader declares it as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ViewKind {
    D2,
    D2Array,
    Cube,
    CubeArray,
}

/// One mip level of a texture: its index, size, and where its texels (all layers) are in the
/// bytes uploaded (`Texture::upload_bytes`).
pub struct MipLevel {
    pub index: u32,
    pub width: u32,
    pub height: u32,
    pub bytes: std::ops::Range<usize>,
}

impl Texture {
    /// Each mip level, level 0 first, each half the one before (at least 1): its texels follow
    /// the previous level's, from a multiple of 4 bytes (Vulkan's rule for depth copies).
    pub fn mip_levels(&self) -> Vec<MipLevel> {
        let bytes_per_texel = self.format.info().bytes_per_texel as usize;
        let mut start = 0;
        (0..self.levels)
            .map(|index| {
                let (width, height) = ((self.width >> index).max(1), (self.height >> index).max(1));
                let end = start + (width * height * self.layers) as usize * bytes_per_texel;
                let level = MipLevel { index, width, height, bytes: start..end };
                start = end.next_multiple_of(4);
                level
            })
            .collect()
    }

    /// The words VALUES must give.
    fn word_count(&self) -> usize {
        let texels: usize = self.mip_levels().iter().map(|l| (l.width * l.height * self.layers) as usize).sum();
        texels * self.format.info().words_per_texel()
    }

    /// The texels as uploaded, laid out as `mip_levels` says: a 2-byte texel is its word's low
    /// half.
    pub fn upload_bytes(&self) -> Vec<u8> {
        let info = self.format.info();
        let bytes_per_texel = info.bytes_per_texel as usize;
        let mut bytes = Vec::new();
        let mut words = self.words.iter();
        for level in self.mip_levels() {
            bytes.resize(level.bytes.start, 0);
            let texels = level.bytes.len() / bytes_per_texel;
            for _ in 0..texels * info.words_per_texel() {
                let word = words.next().expect("checked by word_count").to_le_bytes();
                bytes.extend_from_slice(&word[..bytes_per_texel.min(4)]);
            }
        }
        bytes
    }
}

/// Formats of textures and colour attachments, with what the two APIs call them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TexelFormat {
    Rgba8Unorm,
    Rgba32Float,
    R32Float,
    Depth16Unorm,
    R32Uint,
    R32Sint,
    Rgba32Uint,
    Rgba32Sint,
}

/// How two texels of a format are compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChannelKind {
    Unorm8,
    Unorm16,
    Float32,
    Integer32,
}

pub struct FormatInfo {
    pub name: &'static str,
    pub format: TexelFormat,
    pub bytes_per_texel: u32,
    pub channel: ChannelKind,
    pub vulkan: ash::vk::Format,
    pub webgpu: wgpu::TextureFormat,
    pub aspect: ash::vk::ImageAspectFlags,
}

impl FormatInfo {
    /// The words of VALUES a texel takes: one, four for the 16-byte formats.
    fn words_per_texel(&self) -> usize {
        self.bytes_per_texel.div_ceil(4) as usize
    }

    fn is_depth(&self) -> bool {
        self.aspect != ash::vk::ImageAspectFlags::COLOR
    }
}

pub const FORMATS: &[FormatInfo] = &[
    FormatInfo {
        name: "rgba8unorm",
        format: TexelFormat::Rgba8Unorm,
        bytes_per_texel: 4,
        channel: ChannelKind::Unorm8,
        vulkan: ash::vk::Format::R8G8B8A8_UNORM,
        webgpu: wgpu::TextureFormat::Rgba8Unorm,
        aspect: ash::vk::ImageAspectFlags::COLOR,
    },
    FormatInfo {
        name: "rgba32float",
        format: TexelFormat::Rgba32Float,
        bytes_per_texel: 16,
        channel: ChannelKind::Float32,
        vulkan: ash::vk::Format::R32G32B32A32_SFLOAT,
        webgpu: wgpu::TextureFormat::Rgba32Float,
        aspect: ash::vk::ImageAspectFlags::COLOR,
    },
    FormatInfo {
        name: "r32float",
        format: TexelFormat::R32Float,
        bytes_per_texel: 4,
        channel: ChannelKind::Float32,
        vulkan: ash::vk::Format::R32_SFLOAT,
        webgpu: wgpu::TextureFormat::R32Float,
        aspect: ash::vk::ImageAspectFlags::COLOR,
    },
    FormatInfo {
        name: "depth16unorm",
        format: TexelFormat::Depth16Unorm,
        bytes_per_texel: 2,
        channel: ChannelKind::Unorm16,
        vulkan: ash::vk::Format::D16_UNORM,
        webgpu: wgpu::TextureFormat::Depth16Unorm,
        aspect: ash::vk::ImageAspectFlags::DEPTH,
    },
    FormatInfo {
        name: "r32uint",
        format: TexelFormat::R32Uint,
        bytes_per_texel: 4,
        channel: ChannelKind::Integer32,
        vulkan: ash::vk::Format::R32_UINT,
        webgpu: wgpu::TextureFormat::R32Uint,
        aspect: ash::vk::ImageAspectFlags::COLOR,
    },
    FormatInfo {
        name: "r32sint",
        format: TexelFormat::R32Sint,
        bytes_per_texel: 4,
        channel: ChannelKind::Integer32,
        vulkan: ash::vk::Format::R32_SINT,
        webgpu: wgpu::TextureFormat::R32Sint,
        aspect: ash::vk::ImageAspectFlags::COLOR,
    },
    FormatInfo {
        name: "rgba32uint",
        format: TexelFormat::Rgba32Uint,
        bytes_per_texel: 16,
        channel: ChannelKind::Integer32,
        vulkan: ash::vk::Format::R32G32B32A32_UINT,
        webgpu: wgpu::TextureFormat::Rgba32Uint,
        aspect: ash::vk::ImageAspectFlags::COLOR,
    },
    FormatInfo {
        name: "rgba32sint",
        format: TexelFormat::Rgba32Sint,
        bytes_per_texel: 16,
        channel: ChannelKind::Integer32,
        vulkan: ash::vk::Format::R32G32B32A32_SINT,
        webgpu: wgpu::TextureFormat::Rgba32Sint,
        aspect: ash::vk::ImageAspectFlags::COLOR,
    },
];

impl TexelFormat {
    pub fn info(self) -> &'static FormatInfo {
        FORMATS.iter().find(|info| info.format == self).expect("every format has a row in FORMATS")
    }

    fn parse(name: &str) -> Result<TexelFormat, String> {
        FORMATS
            .iter()
            .find(|info| info.name == name)
            .map(|info| info.format)
            .ok_or_else(|| format!("unknown format `{name}`"))
    }
}

/// Vertex attribute formats: 32-bit components, 1 to 4 of them.
#[derive(Debug, Clone, Copy)]
pub struct AttributeFormat {
    pub components: u32,
    pub vulkan: ash::vk::Format,
    pub webgpu: wgpu::VertexFormat,
}

const ATTRIBUTE_FORMATS: &[(&str, AttributeFormat)] = {
    use ash::vk::Format as V;
    use wgpu::VertexFormat as W;
    const fn f(components: u32, vulkan: V, webgpu: W) -> AttributeFormat {
        AttributeFormat { components, vulkan, webgpu }
    }
    &[
        ("f32", f(1, V::R32_SFLOAT, W::Float32)),
        ("f32x2", f(2, V::R32G32_SFLOAT, W::Float32x2)),
        ("f32x3", f(3, V::R32G32B32_SFLOAT, W::Float32x3)),
        ("f32x4", f(4, V::R32G32B32A32_SFLOAT, W::Float32x4)),
        ("u32", f(1, V::R32_UINT, W::Uint32)),
        ("u32x2", f(2, V::R32G32_UINT, W::Uint32x2)),
        ("u32x4", f(4, V::R32G32B32A32_UINT, W::Uint32x4)),
        ("i32", f(1, V::R32_SINT, W::Sint32)),
        ("i32x2", f(2, V::R32G32_SINT, W::Sint32x2)),
        ("i32x4", f(4, V::R32G32B32A32_SINT, W::Sint32x4)),
    ]
};

#[derive(Debug, Clone)]
pub struct Attribute {
    pub location: u32,
    pub format: AttributeFormat,
    pub words: Vec<u32>,
}

#[derive(Debug, Clone)]
pub struct Render {
    pub width: u32,
    pub height: u32,
    pub targets: Vec<TexelFormat>,
    pub vertices: u32,
    pub instances: u32,
    pub first_vertex: u32,
    pub first_instance: u32,
    pub attributes: Vec<Attribute>,
    /// Samples per pixel: 1, or 4 with the targets resolved by averaging.
    pub samples: u32,
}

/// A specialization constant's value: its 32 bits for Vulkan, and the
/// number WebGPU's pipeline-overridable constants take.
#[derive(Debug, Clone, Copy)]
pub struct SpecValue {
    pub bits: u32,
    pub number: f64,
}

/// One shader module of a case: its stage and SPIR-V binary.
#[derive(Debug, Clone)]
pub struct Module {
    pub stage: Stage,
    /// Relative to `fixtures/exec`, for messages.
    pub path: String,
    pub spirv: Vec<u8>,
}

#[derive(Debug, Clone)]
pub struct Case {
    /// The test's name: the binary's path under `fixtures/exec` without `.spv`
    /// (for render pairs, the vertex one's).
    pub name: String,
    pub modules: Vec<Module>,
    pub resources: Vec<Resource>,
    pub dispatch: [u32; 3],
    pub render: Option<Render>,
    pub spec: Vec<(u32, SpecValue)>,
    pub ulp: BTreeMap<u32, u32>,
    pub expect: BTreeMap<u32, Vec<u32>>,
    pub cpu: BTreeMap<u32, Vec<u32>>,
    pub tolerance: u32,
    pub pending: Option<String>,
    pub known_bug: Option<String>,
    pub vulkan_fails: Option<String>,
    pub webgpu_fails: Option<String>,
    /// Translated with `Options::emulate_draw_parameters`.
    pub emulate_draw_parameters: bool,
    /// The push constants' words (none if empty).
    pub push_constants: Vec<u32>,
    /// The WGSL source of a reverse-path case (its module is our SPIR-V for it).
    pub wgsl: Option<String>,
}

impl Case {
    pub fn module(&self, stage: Stage) -> Option<&Module> {
        self.modules.iter().find(|m| m.stage == stage)
    }

    /// The storage buffers and images, in binding order: what a compute run produces.
    pub fn storage_bindings(&self) -> Vec<u32> {
        let mut bindings: Vec<u32> = self.resources.iter().filter(|r| r.kind.is_written()).map(|r| r.binding).collect();
        bindings.sort();
        bindings
    }

    pub fn initial_contents(&self, binding: u32) -> Option<&[u32]> {
        self.resources.iter().find_map(|r| match &r.kind {
            ResourceKind::Storage(words) if r.binding == binding => Some(words.as_slice()),
            ResourceKind::StorageImage(image) if r.binding == binding => Some(image.words.as_slice()),
            _ => None,
        })
    }
}

/// The source file a binary was compiled from: `NAME.comp.spv`,
/// `NAME.comp.opt.spv` -> `NAME.comp`; `NAME.spvasm.spv` -> `NAME.spvasm`.
pub fn source_of(binary: &str) -> Option<String> {
    let stem = binary.strip_suffix(".spv")?;
    Some(stem.strip_suffix(".opt").unwrap_or(stem).to_string())
}

/// A shader source's `exec:` directives.
#[derive(Debug, Clone)]
pub struct Source {
    /// Relative to `fixtures/`, for messages.
    pub path: String,
    /// `(line number, text after "exec:")`.
    pub directives: Vec<(usize, String)>,
}

impl Source {
    pub fn read(path: String, text: &str) -> Source {
        let directives = text
            .lines()
            .enumerate()
            .filter_map(|(index, line)| {
                let line = line.trim_start();
                let rest =
                    line.strip_prefix("//").or_else(|| line.strip_prefix(';'))?.trim_start().strip_prefix("exec:")?;
                Some((index + 1, rest.trim().to_string()))
            })
            .collect();
        Source { path, directives }
    }
}

/// Builds a case from its modules and the directives of their sources.
pub fn build(name: String, modules: Vec<Module>, sources: &[Source]) -> Result<Case, String> {
    build_with(name, modules, sources, None)
}

/// Builds a reverse-path case: `wgsl`, and its module of our SPIR-V.
pub fn build_wgsl(name: String, module: Module, source: &Source, wgsl: String) -> Result<Case, String> {
    build_with(name, vec![module], std::slice::from_ref(source), Some(wgsl))
}

fn build_with(name: String, modules: Vec<Module>, sources: &[Source], wgsl: Option<String>) -> Result<Case, String> {
    let render = modules.iter().any(|m| m.stage != Stage::Compute);
    let mut case = Case {
        name,
        modules,
        resources: Vec::new(),
        dispatch: [1, 1, 1],
        render: render.then(|| Render {
            width: 0,
            height: 0,
            targets: Vec::new(),
            vertices: 0,
            instances: 1,
            first_vertex: 0,
            first_instance: 0,
            attributes: Vec::new(),
            samples: 1,
        }),
        spec: Vec::new(),
        ulp: BTreeMap::new(),
        expect: BTreeMap::new(),
        cpu: BTreeMap::new(),
        tolerance: 0,
        pending: None,
        known_bug: None,
        vulkan_fails: None,
        webgpu_fails: None,
        emulate_draw_parameters: false,
        push_constants: Vec::new(),
        wgsl,
    };
    for source in sources {
        for (line, text) in &source.directives {
            apply(&mut case, text).map_err(|e| format!("{}:{line}: `exec: {text}`: {e}", source.path))?;
        }
    }
    check(&case)?;
    Ok(case)
}

fn apply(case: &mut Case, text: &str) -> Result<(), String> {
    // Free text, which may contain `:`.
    if let Some(area) = text.strip_prefix("pending ") {
        case.pending = Some(area.trim().to_string());
        return Ok(());
    }
    if let Some(bug) = text.strip_prefix("known-bug ") {
        case.known_bug = Some(bug.trim().to_string());
        return Ok(());
    }
    if let Some(bug) = text.strip_prefix("vulkan-fails ") {
        case.vulkan_fails = Some(bug.trim().to_string());
        return Ok(());
    }
    if let Some(bug) = text.strip_prefix("webgpu-fails ") {
        case.webgpu_fails = Some(bug.trim().to_string());
        return Ok(());
    }
    let (head, values) = match text.split_once(':') {
        Some((head, values)) => (head, Some(values.split_whitespace().collect::<Vec<_>>())),
        None => (text, None),
    };
    let words: Vec<&str> = head.split_whitespace().collect();
    let Some((&keyword, args)) = words.split_first() else {
        return Err("empty directive".into());
    };
    let number = |i: usize| -> Result<u32, String> {
        args.get(i)
            .ok_or_else(|| format!("`{keyword}` needs more arguments"))?
            .parse()
            .map_err(|_| format!("argument {} of `{keyword}` is not a number", i + 1))
    };
    let contents = |seed: u64| -> Result<Vec<u32>, String> {
        let tokens = values.as_ref().ok_or("expected `: VALUES` after the binding")?;
        let words = values::parse_words(tokens, seed)?;
        if words.is_empty() {
            return Err("no values".into());
        }
        Ok(words)
    };
    let render = case.render.as_mut();
    match keyword {
        "emulate-draw-parameters" => case.emulate_draw_parameters = true,
        "dispatch" => case.dispatch = [number(0)?, number(1)?, number(2)?],
        "push" => case.push_constants = values::parse_words(values.as_ref().ok_or("expected `: VALUES`")?, 0)?,
        "storage" | "uniform" => {
            let binding = number(0)?;
            let words = contents(u64::from(binding))?;
            let kind = if keyword == "storage" { ResourceKind::Storage(words) } else { ResourceKind::Uniform(words) };
            case.resources.push(Resource { binding, kind });
        }
        "texture" | "combined" | "storage-image" => {
            let binding = number(0)?;
            let size = args.get(1).ok_or("expected WxH")?;
            let (width, height) = size
                .split_once('x')
                .and_then(|(w, h)| Some((w.parse().ok()?, h.parse().ok()?)))
                .ok_or_else(|| format!("`{size}` is not WxH"))?;
            let format = TexelFormat::parse(args.get(2).ok_or("expected a format")?)?;
            let option = |name: &str, limit: u32| -> Result<Option<u32>, String> {
                let Some(at) = args.iter().position(|a| *a == name) else { return Ok(None) };
                let n = args.get(at + 1).and_then(|n| n.parse().ok()).filter(|n| (1..=limit).contains(n));
                n.map(Some).ok_or_else(|| format!("expected a number (1 to {limit}) after `{name}`"))
            };
            let levels = option("levels", 16)?.unwrap_or(1);
            let cube = args.contains(&"cube");
            let (layers, view) = match (option("layers", 256)?, cube) {
                (None, false) => (1, ViewKind::D2),
                (Some(layers), false) => (layers, ViewKind::D2Array),
                (None, true) => (6, ViewKind::Cube),
                (Some(layers), true) if layers % 6 == 0 => (layers, ViewKind::CubeArray),
                (Some(_), true) => return Err("a cube array's layers are a multiple of 6".into()),
            };
            if cube && width != height {
                return Err("a cube's faces are square".into());
            }
            let words = contents(u64::from(binding))?;
            let texture = Texture { width, height, levels, layers, view, format, words };
            let depth = format.info().is_depth();
            let kind = match keyword {
                "texture" => ResourceKind::Texture(texture),
                "storage-image" if (levels, view, depth) == (1, ViewKind::D2, false) => {
                    ResourceKind::StorageImage(texture)
                }
                "storage-image" => return Err("a storage image is a 2D colour image of one level".into()),
                _ => ResourceKind::Combined { texture, sampler: sampler(&args[3..])? },
            };
            case.resources.push(Resource { binding, kind });
        }
        "sampler" => {
            case.resources.push(Resource { binding: number(0)?, kind: ResourceKind::Sampler(sampler(&args[1..])?) });
        }
        "spec" => {
            let token = args.get(1).ok_or("expected a value")?;
            let bits = values::parse_word(token)?;
            let number_value = if token.contains('.') {
                f64::from(f32::from_bits(bits))
            } else if token.starts_with('-') {
                f64::from(bits as i32)
            } else {
                f64::from(bits)
            };
            case.spec.push((number(0)?, SpecValue { bits, number: number_value }));
        }
        "ulp" => {
            case.ulp.insert(number(0)?, number(1)?);
        }
        "expect" => {
            let binding = number(0)?;
            case.expect.insert(binding, contents(u64::from(binding))?);
        }
        "cpu" => {
            let binding = number(0)?;
            case.cpu.insert(binding, contents(u64::from(binding))?);
        }
        "tolerance" => case.tolerance = number(0)?,
        "target" => {
            let render = render.ok_or("`target` is for render pairs")?;
            let (width, height) = (number(0)?, number(1)?);
            if !render.targets.is_empty() && (width, height) != (render.width, render.height) {
                return Err("every target must have the same size".into());
            }
            render.width = width;
            render.height = height;
            let format = TexelFormat::parse(args.get(2).ok_or("expected a format")?)?;
            if format.info().is_depth() {
                return Err("a target has a colour format".into());
            }
            render.targets.push(format);
        }
        "draw" => {
            let render = render.ok_or("`draw` is for render pairs")?;
            render.vertices = number(0)?;
            if args.len() > 1 {
                render.instances = number(1)?;
            }
            if args.len() > 2 {
                render.first_vertex = number(2)?;
                render.first_instance = number(3)?;
            }
        }
        "samples" => {
            let render = render.ok_or("`samples` is for render pairs")?;
            render.samples = number(0)?;
        }
        "vertex" => {
            let location = number(0)?;
            let name = args.get(1).ok_or("expected a format")?;
            let format = ATTRIBUTE_FORMATS
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, f)| *f)
                .ok_or_else(|| format!("unknown attribute format `{name}`"))?;
            let words = contents(100 + u64::from(location))?;
            let render = case.render.as_mut().ok_or("`vertex` is for render pairs")?;
            render.attributes.push(Attribute { location, format, words });
        }
        _ => return Err(format!("unknown directive `{keyword}`")),
    }
    Ok(())
}

/// A sampler from its words: `nearest` or `linear`, then maybe `compare OP`.
fn sampler(words: &[&str]) -> Result<Sampler, String> {
    let linear = match words.first() {
        Some(&"nearest") => false,
        Some(&"linear") => true,
        _ => return Err("expected `nearest` or `linear`".into()),
    };
    let compare = match words.get(1) {
        Some(&"compare") => {
            let name = words.get(2).ok_or("expected a comparison after `compare`")?;
            let op = COMPARE_OPS.iter().find(|op| op.name == *name);
            Some(op.ok_or_else(|| format!("unknown comparison `{name}`"))?)
        }
        _ => None,
    };
    Ok(Sampler { linear, compare })
}

/// Catches manifests that cannot mean what their author wanted.
fn check(case: &Case) -> Result<(), String> {
    let mut bindings: Vec<u32> = case.resources.iter().map(|r| r.binding).collect();
    bindings.sort();
    if bindings.windows(2).any(|w| w[0] == w[1]) {
        return Err(format!("{}: two resources share a binding", case.name));
    }
    // The stated results stand in for the reference run.
    let unrun = match (&case.vulkan_fails, &case.webgpu_fails, &case.wgsl) {
        (Some(_), ..) => Some("vulkan-fails"),
        (None, Some(_), Some(_)) => Some("webgpu-fails"),
        _ => None,
    };
    if let Some(directive) = unrun {
        for resource in &case.resources {
            if resource.kind.is_written() && !case.expect.contains_key(&resource.binding) {
                return Err(format!(
                    "{}: `{directive}` needs an `expect` line for storage buffer {}",
                    case.name, resource.binding
                ));
            }
        }
    }
    if let Some(binding) = case.cpu.keys().find(|b| case.expect.contains_key(b)) {
        return Err(format!("{}: binding {binding} has both `expect` and `cpu` lines", case.name));
    }
    for binding in case.ulp.keys().chain(case.expect.keys()).chain(case.cpu.keys()) {
        if case.initial_contents(*binding).is_none() {
            return Err(format!("{}: binding {binding} is not a storage buffer or image", case.name));
        }
    }
    for resource in &case.resources {
        if let ResourceKind::Texture(t) | ResourceKind::Combined { texture: t, .. } | ResourceKind::StorageImage(t) =
            &resource.kind
        {
            let words = t.word_count();
            if t.words.len() != words {
                return Err(format!("{}: texture {} needs {} words", case.name, resource.binding, words));
            }
        }
    }
    match &case.render {
        None if !case.storage_bindings().is_empty() => Ok(()),
        None => Err(format!("{}: a compute case needs a storage buffer or image to compare", case.name)),
        Some(render) => {
            let integer = render.targets.iter().any(|t| t.info().channel == ChannelKind::Integer32);
            if !matches!(render.samples, 1 | 4) || (render.samples > 1 && integer) {
                return Err(format!(
                    "{}: `samples` must be 1, or 4 with no integer target (those do not resolve)",
                    case.name
                ));
            }
            if render.targets.is_empty() || render.vertices == 0 {
                return Err(format!("{}: a render pair needs `target` and `draw` lines", case.name));
            }
            for attribute in &render.attributes {
                if attribute.words.len() as u32 != attribute.format.components * render.vertices {
                    return Err(format!(
                        "{}: vertex attribute {} needs {} words",
                        case.name,
                        attribute.location,
                        attribute.format.components * render.vertices
                    ));
                }
            }
            Ok(())
        }
    }
}
