//! Image instructions: sampling, gathering, fetching, reading, writing and queries, lowered to
//! WGSL's texture builtins. SPIR-V packs the array layer into the coordinate, divides projective
//! coordinates implicitly, and lets texel types differ in width and signedness from the texture;
//! WGSL has one overload per texture type, so coordinates and results are reshaped here.
//!
//! The texture and sampler operands are traced to their variable or parameter
//! (`Module::handle_roots`); OpSampledImage and OpImage themselves produce nothing.

use spirv::{Dim, ImageOperands as Mask, Op};

use super::emit::{Emitter, storage_format};
use super::function::{Lower, Value};
use crate::error::{Error, Warning};
use crate::passes::signedness::int_signedness;
use crate::spirv::{ConstValue, Def, Id, ImageType, Inst, Module, Operand, Type};
use crate::wgsl::ast::{BinaryOp, COMPONENTS, Expr, Literal, Stmt};

/// The index of `texture`'s last mip level, as an i32: `i32(textureNumLevels(t)) - 1i`.
fn last_level(texture: &Expr) -> Expr {
    let levels = Expr::call("i32", vec![Expr::call("textureNumLevels", vec![texture.clone()])]);
    Expr::binary(BinaryOp::Subtract, levels, Expr::Literal(Literal::I32(1)))
}

/// Whether `ty` is f16.
pub(super) fn is_f16(module: &Module, ty: Id) -> bool {
    matches!(module.type_def(ty), Some(Type::Float { width: 16 }))
}

/// The optional image operands of one instruction.
#[derive(Default)]
struct Extra {
    bias: Option<Id>,
    lod: Option<Id>,
    grad: Option<(Id, Id)>,
    /// ConstOffset, or Offset when its operand is a constant anyway.
    offset: Option<Id>,
    /// ConstOffsets: a constant array of four offsets, one per gathered texel.
    offsets: Option<Id>,
    sample: Option<Id>,
}

/// The texture (and sampler) an instruction works on, as WGSL expressions.
struct Texture {
    texture: Expr,
    sampler: Option<Expr>,
    image: ImageType,
}

fn is_sample(op: Op) -> bool {
    matches!(
        op,
        Op::ImageSampleImplicitLod
            | Op::ImageSampleExplicitLod
            | Op::ImageSampleDrefImplicitLod
            | Op::ImageSampleDrefExplicitLod
            | Op::ImageSampleProjImplicitLod
            | Op::ImageSampleProjExplicitLod
            | Op::ImageSampleProjDrefImplicitLod
            | Op::ImageSampleProjDrefExplicitLod
    )
}

fn is_projective(op: Op) -> bool {
    matches!(
        op,
        Op::ImageSampleProjImplicitLod
            | Op::ImageSampleProjExplicitLod
            | Op::ImageSampleProjDrefImplicitLod
            | Op::ImageSampleProjDrefExplicitLod
    )
}

fn has_depth_reference(op: Op) -> bool {
    matches!(
        op,
        Op::ImageSampleDrefImplicitLod
            | Op::ImageSampleDrefExplicitLod
            | Op::ImageSampleProjDrefImplicitLod
            | Op::ImageSampleProjDrefExplicitLod
            | Op::ImageDrefGather
    )
}

/// Whether `op` is an image instruction this file lowers.
pub(super) fn is_image_instruction(op: Op) -> bool {
    is_sample(op)
        || matches!(
            op,
            Op::SampledImage
                | Op::Image
                | Op::ImageFetch
                | Op::ImageGather
                | Op::ImageDrefGather
                | Op::ImageRead
                | Op::ImageWrite
                | Op::ImageQuerySize
                | Op::ImageQuerySizeLod
                | Op::ImageQueryLevels
                | Op::ImageQuerySamples
                | Op::ImageQueryLod
        )
}

fn f32_literal(value: f32) -> Expr {
    Expr::Literal(Literal::F32(value.to_bits()))
}

/// A zero or one of a WGSL scalar type.
fn scalar_literal(scalar: &str, value: u8) -> Expr {
    Expr::Literal(match scalar {
        "i32" => Literal::I32(i32::from(value)),
        "u32" => Literal::U32(u32::from(value)),
        "f16" => Literal::F16(if value == 0 { 0 } else { 0x3c00 }),
        _ => Literal::F32(f32::from(value).to_bits()),
    })
}

/// Components `start..start + len` of a value with `have` components.
fn components(value: Expr, have: u32, start: u32, len: u32) -> Expr {
    if have == 1 || (start == 0 && len == have) {
        return value;
    }
    Expr::member(value, COMPONENTS[start as usize..(start + len) as usize].concat())
}

impl Lower<'_> {
    pub(super) fn image_instruction(&mut self, e: &mut Emitter, inst: &Inst) -> Result<(), Error> {
        match inst.op {
            // Consumers trace through these to the variables.
            Op::SampledImage | Op::Image => Ok(()),
            op if is_sample(op) => self.sample(e, inst),
            Op::ImageGather | Op::ImageDrefGather => self.gather(e, inst),
            Op::ImageFetch | Op::ImageRead => self.load(e, inst),
            Op::ImageWrite => self.store(e, inst),
            Op::ImageQuerySize | Op::ImageQuerySizeLod => self.query_size(e, inst),
            Op::ImageQueryLevels | Op::ImageQuerySamples => {
                let texture = self.texture(e, inst, false)?;
                let name = if inst.op == Op::ImageQueryLevels { "textureNumLevels" } else { "textureNumSamples" };
                let expr = self.reshape(e, inst, Expr::call(name, vec![texture.texture]), "u32", 1)?;
                self.define(e, inst, expr, false)
            }
            _ => Err(Error::unsupported(
                "OpImageQueryLod: WGSL cannot query the level of detail a sample would use",
                self.location(inst),
            )),
        }
    }

    fn not_in_wgsl(&self, inst: &Inst, what: &str) -> Error {
        Error::unsupported(format!("{what}: WGSL has no counterpart"), self.location(inst))
    }

    /// The texture (and sampler) operand 0 comes from. `comparison` picks a sampler's
    /// comparison twin when it has one.
    fn texture(&mut self, e: &Emitter, inst: &Inst, comparison: bool) -> Result<Texture, Error> {
        let module = self.module;
        let roots = inst.id(0).and_then(|id| module.handle_roots(id)).ok_or_else(|| {
            Error::unsupported("cannot trace the image operand to its variable or parameter", self.location(inst))
        })?;
        let ty = match module.def(roots.image) {
            Def::Global(g) => module.globals[*g].pointee,
            Def::Param { ty, .. } => *ty,
            _ => 0,
        };
        let image = match module.type_def(ty) {
            Some(Type::Image(image)) => image.clone(),
            _ => {
                return Err(Error::internal(format!("%{} is not an image after the handles pass", roots.image)));
            }
        };
        let sampler = roots
            .sampler
            .map(|s| if comparison { module.comparison_samplers.get(&s).copied().unwrap_or(s) } else { s });
        let sampler = sampler.map(|s| self.handle_expr(e, s)).transpose()?;
        Ok(Texture { texture: self.handle_expr(e, roots.image)?, sampler, image })
    }

    /// A handle variable's or parameter's name.
    pub(super) fn handle_expr(&self, e: &Emitter, id: Id) -> Result<Expr, Error> {
        match (self.module.def(id), self.values.get(&id)) {
            (Def::Param { .. }, Some(Value::Ident(name))) => Ok(Expr::Ident(name.clone())),
            (Def::Global(_), _) => e
                .names
                .get(&id)
                .map(|name| Expr::Ident(name.clone()))
                .ok_or_else(|| Error::internal(format!("global %{id} has no name"))),
            _ => Err(Error::internal(format!("handle %{id} is neither a variable nor a parameter"))),
        }
    }

    /// Reads the image operands that start at operand `position`, if any.
    fn extra(&self, inst: &Inst, position: usize) -> Result<Extra, Error> {
        let mut extra = Extra::default();
        let Some(Operand::ImageOperands(mask)) = inst.operands.get(position) else {
            return Ok(extra);
        };
        let mut next = position + 1;
        let mut id = || {
            next += 1;
            inst.id(next - 1).ok_or_else(|| Error::invalid("missing image operand", self.location(inst)))
        };
        // Operands follow the mask in the order of its bits.
        if mask.contains(Mask::BIAS) {
            extra.bias = Some(id()?);
        }
        if mask.contains(Mask::LOD) {
            extra.lod = Some(id()?);
        }
        if mask.contains(Mask::GRAD) {
            extra.grad = Some((id()?, id()?));
        }
        if mask.contains(Mask::CONST_OFFSET) {
            extra.offset = Some(id()?);
        }
        if mask.contains(Mask::OFFSET) {
            // Sampling and gathering need a constant (`offset`); a fetch adds any value.
            extra.offset = Some(id()?);
        }
        if mask.contains(Mask::CONST_OFFSETS) {
            extra.offsets = Some(id()?);
        }
        if mask.contains(Mask::SAMPLE) {
            extra.sample = Some(id()?);
        }
        if mask.contains(Mask::MIN_LOD) {
            return Err(self.not_in_wgsl(inst, "a minimum level of detail (MinLod)"));
        }
        Ok(extra)
    }

    /// The coordinate operand split for WGSL: the texel coordinates (divided by q when
    /// projective) and the array layer; also the divisor, for the depth reference.
    fn coordinates(
        &mut self,
        e: &mut Emitter,
        inst: &Inst,
        image: &ImageType,
        sampled: bool,
    ) -> Result<(Expr, Option<Expr>, Option<Expr>), Error> {
        let id = self.operand(inst, 1)?;
        let have = self.module.scalar_of(self.module.type_of(id)?).map_or(1, |(_, n)| n);
        let count = image.coordinate_count();
        let projective = is_projective(inst.op);
        let needed = count + u32::from(image.arrayed) + u32::from(projective);
        if have < needed {
            return Err(Error::invalid(
                format!("the coordinate has {have} components, the image needs {needed}"),
                self.location(inst),
            ));
        }
        let value = if needed > count { self.take_shared(e, id)? } else { self.take(e, id)? };
        let value = self.as_f32(id, value)?;
        let mut coords = components(value.clone(), have, 0, count);
        let layer = image.arrayed.then(|| {
            let layer = components(value.clone(), have, count, 1);
            // Vulkan rounds a sampling layer to the nearest integer, ties to even, as WGSL's round.
            if sampled { Expr::call("i32", vec![Expr::call("round", vec![layer])]) } else { layer }
        });
        let q = projective.then(|| components(value, have, count, 1));
        if let Some(q) = &q {
            coords = Expr::binary(BinaryOp::Divide, coords, q.clone());
        }
        Ok((coords, layer, q))
    }

    /// A constant offset as the `vecN<i32>` WGSL's sampling and gathering want.
    fn offset(&mut self, e: &mut Emitter, inst: &Inst, image: &ImageType, offset: Id) -> Result<Expr, Error> {
        if self.module.constant(offset).is_none() {
            return Err(Error::unsupported(
                "a texel offset that is not a constant: WGSL samples and gathers with constant offsets only",
                self.location(inst),
            ));
        }
        if matches!(image.dim, Dim::Dim1D | Dim::DimCube) {
            return Err(self.not_in_wgsl(inst, "a texel offset on a 1D or cube texture"));
        }
        if e.is_override_expression(offset) {
            return Err(Error::unsupported(
                "a texel offset set by a specialization constant: WGSL offsets must be constant expressions",
                self.location(inst),
            ));
        }
        let ty = self.module.type_of(offset)?;
        let expr = e.constant(offset)?;
        Ok(match self.module.scalar_of(ty) {
            Some((scalar, count)) if matches!(self.module.type_def(scalar), Some(Type::Int { signed: false, .. })) => {
                Expr::call(format!("vec{count}<i32>"), vec![expr])
            }
            _ => expr,
        })
    }

    fn sample(&mut self, e: &mut Emitter, inst: &Inst) -> Result<(), Error> {
        let depth_reference = has_depth_reference(inst.op);
        let texture = self.texture(e, inst, depth_reference)?;
        let image = texture.image.clone();
        let (coords, layer, q) = self.coordinates(e, inst, &image, true)?;
        let extra = self.extra(inst, if depth_reference { 3 } else { 2 })?;
        if !matches!(self.module.type_def(image.sampled_type), Some(Type::Float { .. })) && !depth_reference {
            return self.sample_integer(e, inst, texture, coords, layer, extra);
        }
        let explicit = matches!(
            inst.op,
            Op::ImageSampleExplicitLod
                | Op::ImageSampleDrefExplicitLod
                | Op::ImageSampleProjExplicitLod
                | Op::ImageSampleProjDrefExplicitLod
        );
        let mut args = vec![texture.texture, texture.sampler.ok_or_else(|| self.missing_sampler(inst))?, coords];
        args.extend(layer);
        let name = if depth_reference {
            let mut reference = self.take(e, self.operand(inst, 2)?)?;
            if let Some(q) = q {
                reference = Expr::binary(BinaryOp::Divide, reference, q);
            }
            args.push(reference);
            let level_zero = match (extra.lod, extra.grad) {
                (Some(lod), _) => self.module.is_fixed_zero(lod),
                (None, Some((dx, dy))) => self.module.is_fixed_zero(dx) && self.module.is_fixed_zero(dy),
                (None, None) => false,
            };
            match explicit {
                false if extra.bias.is_none() => "textureSampleCompare",
                true if level_zero => "textureSampleCompareLevel",
                _ => {
                    return Err(self
                        .not_in_wgsl(inst, "a depth comparison at a level other than 0, or with a bias or gradient"));
                }
            }
        } else if let Some(bias) = extra.bias {
            if image.depth == 1 {
                return Err(self.not_in_wgsl(inst, "sampling a depth texture with a bias"));
            }
            let bias_value = self.take(e, bias)?;
            args.push(self.as_f32(bias, bias_value)?);
            "textureSampleBias"
        } else if let Some(lod_id) = extra.lod {
            let fixed_zero = self.module.is_fixed_zero(lod_id);
            let lod = self.take(e, lod_id).and_then(|value| self.as_f32(lod_id, value))?;
            // A depth texture's level is an integer in WGSL: the one nearest mipmapping picks.
            let fixed_level = if fixed_zero { Some(0) } else { self.fixed_nearest_level(e, lod_id) };
            args.push(match (image.depth, fixed_level) {
                (1, Some(0)) => Expr::Literal(Literal::I32(0)),
                (1, Some(level)) => Expr::call("min", vec![Expr::Literal(Literal::I32(level)), last_level(&args[0])]),
                (1, None) => self.nearest_level(e, self.result(inst)?, &args[0], lod),
                _ => lod,
            });
            "textureSampleLevel"
        } else if let Some((dx, dy)) = extra.grad {
            if image.depth == 1 {
                return Err(self.not_in_wgsl(inst, "sampling a depth texture with gradients"));
            }
            for d in [dx, dy] {
                let value = self.take(e, d)?;
                args.push(self.as_f32(d, value)?);
            }
            "textureSampleGrad"
        } else if explicit {
            return Err(Error::invalid("an explicit-lod sample without Lod or Grad", self.location(inst)));
        } else {
            "textureSample"
        };
        if image.dim == Dim::Dim1D && name != "textureSample" {
            return Err(Error::unsupported(
                format!(
                    "sampling a 1D texture with {}: WGSL samples 1D textures only with textureSample \
                     (implicit level of detail, in fragment shaders)",
                    match name {
                        "textureSampleLevel" => "an explicit level of detail",
                        "textureSampleBias" => "a level-of-detail bias",
                        _ => "explicit gradients",
                    }
                ),
                self.location(inst),
            ));
        }
        if let Some(offset) = extra.offset {
            args.push(self.offset(e, inst, &image, offset)?);
        }
        let (scalar, count) = self.texel(e, &image)?;
        let expr = self.reshape(e, inst, Expr::call(name, args), &scalar, count)?;
        self.define(e, inst, expr, false)
    }

    /// Sampling an integer texture, which WGSL forbids: Vulkan cannot filter integer formats, so
    /// the sampler is nearest; with clamp-to-edge addressing (assumed, and warned about) the
    /// sample is the texel `floor(coordinate * size)` clamped to the texture, which `textureLoad`
    /// reads. The level is the explicit Lod, or the one explicit gradients give, rounded as nearest
    /// mipmapping does (Vulkan allows no other for integer formats), or level 0 for an implicit
    /// one (assumed).
    fn sample_integer(
        &mut self,
        e: &mut Emitter,
        inst: &Inst,
        texture: Texture,
        coords: Expr,
        layer: Option<Expr>,
        extra: Extra,
    ) -> Result<(), Error> {
        let image = &texture.image;
        if !self.is_used(inst) {
            return Ok(());
        }
        if image.dim == Dim::DimCube || extra.bias.is_some() {
            return Err(self.not_in_wgsl(
                inst,
                "sampling an integer texture that is a cube map, or with a bias (WGSL samples only float \
                 textures; an integer one is read with textureLoad, which picks no cube face and has no \
                 implicit level of detail to bias)",
            ));
        }
        let id = self.result(inst)?;
        let count = image.coordinate_count();
        let float_ty = if count == 1 { "f32".to_string() } else { format!("vec{count}<f32>") };
        let int_ty = if count == 1 { "i32".to_string() } else { format!("vec{count}<i32>") };
        let level = match (extra.lod, extra.grad) {
            (Some(lod), _) if self.module.const_u32(lod) == Some(0) => Expr::Literal(Literal::I32(0)),
            (Some(lod), _) => {
                let lod = self.take(e, lod).and_then(|value| self.as_f32(lod, value))?;
                self.nearest_level(e, id, &texture.texture, lod)
            }
            (None, Some((dx, dy))) if self.module.is_fixed_zero(dx) && self.module.is_fixed_zero(dy) => {
                Expr::Literal(Literal::I32(0))
            }
            (None, Some((dx, dy))) => {
                // Vulkan's level of detail: log2 of the longer gradient in texels of level 0.
                let base =
                    Expr::call(float_ty.as_str(), vec![Expr::call("textureDimensions", vec![texture.texture.clone()])]);
                let base = self.temporary(e, id, "base_size", base);
                let mut lengths = Vec::with_capacity(2);
                for d in [dx, dy] {
                    let gradient = self.take(e, d).and_then(|value| self.as_f32(d, value))?;
                    lengths.push(Expr::call("length", vec![Expr::binary(BinaryOp::Multiply, gradient, base.clone())]));
                }
                let lod = Expr::call("log2", vec![Expr::call("max", lengths)]);
                self.nearest_level(e, id, &texture.texture, lod)
            }
            (None, None) => Expr::Literal(Literal::I32(0)),
        };
        let dimensions = Expr::call("textureDimensions", vec![texture.texture.clone(), level.clone()]);
        let size = self.temporary(e, id, "size", Expr::call(float_ty.as_str(), vec![dimensions]));
        let mut scaled = Expr::call("floor", vec![Expr::binary(BinaryOp::Multiply, coords, size.clone())]);
        if let Some(offset) = extra.offset {
            let offset = self.offset(e, inst, image, offset)?;
            scaled = Expr::binary(BinaryOp::Add, scaled, Expr::call(float_ty.as_str(), vec![offset]));
        }
        let last = Expr::binary(BinaryOp::Subtract, size, f32_literal(1.0));
        let zero = if count == 1 { f32_literal(0.0) } else { Expr::call(float_ty.as_str(), vec![f32_literal(0.0)]) };
        let texel = Expr::call(int_ty.as_str(), vec![Expr::call("clamp", vec![scaled, zero, last])]);
        let mut args = vec![texture.texture.clone(), texel];
        if let Some(layer) = layer {
            let layers = Expr::call("i32", vec![Expr::call("textureNumLayers", vec![texture.texture.clone()])]);
            let last = Expr::binary(BinaryOp::Subtract, layers, Expr::Literal(Literal::I32(1)));
            args.push(Expr::call("clamp", vec![layer, Expr::Literal(Literal::I32(0)), last]));
        }
        args.push(level);
        e.warnings.push(Warning::new(
            format!(
                "sampling integer texture `{}` reads the nearest texel with textureLoad (WGSL samples only float \
                 textures): exact for a sampler with clamp-to-edge addressing{}",
                crate::wgsl::print::expr_to_string(&texture.texture),
                if extra.lod.is_none() { ", reading level 0 (implicit level of detail)" } else { "" }
            ),
            self.location(inst),
        ));
        let (scalar, count) = self.texel(e, image)?;
        let expr = self.reshape(e, inst, Expr::call("textureLoad", args), &scalar, count)?;
        self.define(e, inst, expr, false)
    }

    /// The level nearest mipmapping reads at the level of detail `lod` where that is an f32
    /// constant the pipeline cannot change (before clamping to the texture's last level).
    fn fixed_nearest_level(&self, e: &Emitter, lod: Id) -> Option<i32> {
        let constant = self.module.constant(lod).filter(|_| !e.is_override_expression(lod))?;
        let (ConstValue::Scalar(bits), Some(Type::Float { width: 32 })) =
            (&constant.value, self.module.type_def(constant.ty))
        else {
            return None;
        };
        // As in `nearest_level`; a NaN gives 0.
        Some(((f32::from_bits(*bits as u32) + 0.5).ceil() - 1.0).max(0.0) as i32)
    }

    /// The level nearest mipmapping reads at level of detail `lod`: ceil(lod + 0.5) - 1, within
    /// the texture's levels (a level of detail of -inf, from zero gradients, gives level 0).
    fn nearest_level(&mut self, e: &Emitter, id: Id, texture: &Expr, lod: Expr) -> Expr {
        let rounded = Expr::binary(
            BinaryOp::Subtract,
            Expr::call("i32", vec![Expr::call("ceil", vec![Expr::binary(BinaryOp::Add, lod, f32_literal(0.5))])]),
            Expr::Literal(Literal::I32(1)),
        );
        let level = Expr::call("clamp", vec![rounded, Expr::Literal(Literal::I32(0)), last_level(texture)]);
        self.temporary(e, id, "level", level)
    }

    fn gather(&mut self, e: &mut Emitter, inst: &Inst) -> Result<(), Error> {
        let depth_reference = inst.op == Op::ImageDrefGather;
        let texture = self.texture(e, inst, depth_reference)?;
        let image = texture.image.clone();
        let (coords, layer, _) = self.coordinates(e, inst, &image, true)?;
        let extra = self.extra(inst, 3)?;
        let mut args = Vec::new();
        if !depth_reference && image.depth == 1 {
            // A depth texel reads as (D, 0, 0, 1); WGSL gathers D only, the rest are known.
            let component = self.operand(inst, 2)?;
            let fixed = (!e.is_override_expression(component)).then(|| self.module.const_u32(component)).flatten();
            let other = match fixed {
                Some(0) => None,
                Some(1 | 2) => Some(0.0),
                Some(3) => Some(1.0),
                _ => {
                    return Err(Error::unsupported(
                        "a gather from a depth texture of a component that a specialization constant \
                         chooses, or that is not 0 to 3",
                        self.location(inst),
                    ));
                }
            };
            if let Some(value) = other {
                return self.define(e, inst, Expr::call("vec4<f32>", vec![f32_literal(value)]), false);
            }
        }
        // The component to gather comes first, except for depth textures, which have one.
        if !depth_reference && image.depth == 0 {
            let component = self.operand(inst, 2)?;
            if self.module.constant(component).is_none() {
                return Err(Error::invalid("the gathered component is not a constant", self.location(inst)));
            }
            args.push(e.constant(component)?);
        }
        args.extend([texture.texture, texture.sampler.ok_or_else(|| self.missing_sampler(inst))?, coords]);
        args.extend(layer);
        if depth_reference {
            args.push(self.take(e, self.operand(inst, 2)?)?);
        }
        let name = if depth_reference { "textureGatherCompare" } else { "textureGather" };
        let (scalar, _) = self.texel(e, &image)?;
        let gathered = match (extra.offset, extra.offsets) {
            (Some(offset), _) => {
                args.push(self.offset(e, inst, &image, offset)?);
                Expr::call(name, args)
            }
            (None, Some(offsets)) => self.gather_offsets(e, inst, &image, name, args, offsets, &scalar)?,
            (None, None) => Expr::call(name, args),
        };
        let expr = self.reshape(e, inst, gathered, &scalar, 4)?;
        self.define(e, inst, expr, false)
    }

    /// A gather with one offset per texel (ConstOffsets), which WGSL lacks: four gathers, each
    /// at one of the offsets, of which texel i is the one at (i0, j0) of the footprint, the
    /// gather's fourth component (as GLSL's textureGatherOffsets defines it).
    #[allow(clippy::too_many_arguments)]
    fn gather_offsets(
        &mut self,
        e: &mut Emitter,
        inst: &Inst,
        image: &ImageType,
        name: &str,
        mut args: Vec<Expr>,
        offsets: Id,
        scalar: &str,
    ) -> Result<Expr, Error> {
        let parts = match self.module.constant(offsets).map(|c| &c.value) {
            Some(crate::spirv::ConstValue::Composite(parts)) if parts.len() == 4 => parts.clone(),
            _ => {
                return Err(Error::invalid(
                    "ConstOffsets is not a constant array of four offsets",
                    self.location(inst),
                ));
            }
        };
        // The coordinates and the like are read four times.
        let id = self.result(inst)?;
        for arg in &mut args {
            if !matches!(arg, Expr::Ident(_) | Expr::Literal(_)) {
                *arg = self.temporary(e, id, "gathered", std::mem::replace(arg, Expr::ident("")));
            }
        }
        let mut texels = Vec::with_capacity(4);
        for offset in parts {
            let mut gather_args = args.clone();
            gather_args.push(self.offset(e, inst, image, offset)?);
            texels.push(Expr::member(Expr::call(name, gather_args), "w"));
        }
        Ok(Expr::call(format!("vec4<{scalar}>"), texels))
    }

    /// OpImageFetch and OpImageRead: `textureLoad`.
    fn load(&mut self, e: &mut Emitter, inst: &Inst) -> Result<(), Error> {
        let texture = self.texture(e, inst, false)?;
        let image = texture.image.clone();
        let (coords, layer, _) = self.coordinates(e, inst, &image, false)?;
        let extra = self.extra(inst, 2)?;
        let coords = match extra.offset {
            Some(offset) => self.offset_coordinates(e, inst, &image, coords, offset)?,
            None => coords,
        };
        let mut args = vec![texture.texture, coords];
        args.extend(layer);
        if image.sampled != 2 {
            // Sampled textures take a level, multisampled ones a sample index.
            args.push(match (image.multisampled, extra.sample, extra.lod) {
                (true, Some(sample), _) => self.take(e, sample)?,
                (true, None, _) => {
                    return Err(Error::invalid("a multisampled fetch without a Sample operand", self.location(inst)));
                }
                (false, _, Some(lod)) => self.take(e, lod)?,
                (false, _, None) => Expr::Literal(Literal::I32(0)),
            });
        }
        let (scalar, count) = self.texel(e, &image)?;
        let expr = self.reshape(e, inst, Expr::call("textureLoad", args), &scalar, count)?;
        // A storage texture may be written between this read and its use.
        self.define(e, inst, expr, image.sampled == 2)
    }

    /// `coords + offset`, for textureLoad, which takes no offset.
    fn offset_coordinates(
        &mut self,
        e: &mut Emitter,
        inst: &Inst,
        image: &ImageType,
        coords: Expr,
        offset: Id,
    ) -> Result<Expr, Error> {
        let coordinate = self.module.type_of(self.operand(inst, 1)?)?;
        let value = match self.module.constant(offset) {
            Some(_) => e.constant(offset)?,
            None => self.take(e, offset)?,
        };
        // In the coordinates' signedness: a negative offset wraps into the same sum.
        let unsigned = |ty: Id| int_signedness(self.module, ty) == Some(false);
        let value = match unsigned(coordinate) == unsigned(self.module.type_of(offset)?) {
            true => value,
            false => {
                let scalar = if unsigned(coordinate) { "u32" } else { "i32" };
                let count = image.coordinate_count();
                Expr::call(if count == 1 { scalar.to_string() } else { format!("vec{count}<{scalar}>") }, vec![value])
            }
        };
        Ok(Expr::binary(BinaryOp::Add, coords, value))
    }

    fn store(&mut self, e: &mut Emitter, inst: &Inst) -> Result<(), Error> {
        let texture = self.texture(e, inst, false)?;
        let image = texture.image.clone();
        let (coords, layer, _) = self.coordinates(e, inst, &image, false)?;
        let texel_id = self.operand(inst, 2)?;
        let (scalar_id, count) = self
            .module
            .scalar_of(self.module.type_of(texel_id)?)
            .ok_or_else(|| Error::invalid("the texel is not a scalar or vector", self.location(inst)))?;
        let scalar = e.ty(scalar_id)?;
        let mut texel = self.take(e, texel_id)?;
        if count < 4 {
            let mut parts = vec![texel];
            parts.extend((count..4).map(|_| scalar_literal(&scalar, 0)));
            texel = Expr::call(format!("vec4<{scalar}>"), parts);
        }
        let (channel, _) = self.texel(e, &image)?;
        if &*scalar == "f16" {
            texel = Expr::call("vec4<f32>", vec![texel]);
        } else if *channel != *scalar {
            texel = Expr::call(format!("bitcast<vec4<{channel}>>"), vec![texel]);
        }
        let mut args = vec![texture.texture, coords];
        args.extend(layer);
        args.push(texel);
        self.side_effect(e, Stmt::Call(Expr::call("textureStore", args)));
        Ok(())
    }

    fn query_size(&mut self, e: &mut Emitter, inst: &Inst) -> Result<(), Error> {
        let texture = self.texture(e, inst, false)?;
        let image = &texture.image;
        let mut args = vec![texture.texture.clone()];
        if inst.op == Op::ImageQuerySizeLod && image.sampled != 2 && !image.multisampled {
            args.push(self.take(e, self.operand(inst, 1)?)?);
        }
        let mut size = Expr::call("textureDimensions", args);
        // WGSL reports cube faces as 2D; SPIR-V appends the layer count of an arrayed image.
        let count = if image.dim == Dim::DimCube { 2 } else { image.coordinate_count() };
        if image.arrayed {
            let layers = Expr::call("textureNumLayers", vec![texture.texture]);
            size = Expr::call(format!("vec{}<u32>", count + 1), vec![size, layers]);
        }
        let expr = self.reshape(e, inst, size, "u32", count + u32::from(image.arrayed))?;
        self.define(e, inst, expr, false)
    }

    /// The scalar type and component count of what a WGSL texture builtin returns.
    fn texel(&mut self, e: &mut Emitter, image: &ImageType) -> Result<(String, u32), Error> {
        if image.sampled == 2 {
            let (_, channel) = storage_format(image).unwrap_or(("", "f32"));
            return Ok((channel.to_string(), 4));
        }
        if image.depth == 1 {
            return Ok(("f32".to_string(), 1));
        }
        // An f16 texture is an f32 one in WGSL (`Emitter::image_type`).
        if is_f16(self.module, image.sampled_type) {
            return Ok(("f32".to_string(), 4));
        }
        Ok((e.ty(image.sampled_type)?.to_string(), 4))
    }

    /// A WGSL builtin's result (`scalar`, `count` components) as the instruction's result type:
    /// fewer components, a depth value widened to a texel, or the other signedness.
    fn reshape(&mut self, e: &mut Emitter, inst: &Inst, value: Expr, scalar: &str, count: u32) -> Result<Expr, Error> {
        let result = self.result_type(inst)?;
        let (result_scalar, result_count) = self
            .module
            .scalar_of(result)
            .ok_or_else(|| Error::invalid("an image result that is not a scalar or vector", self.location(inst)))?;
        let result_scalar = e.ty(result_scalar)?;
        let mut value = value;
        if count > result_count {
            value = components(value, count, 0, result_count);
        } else if count == 1 && result_count == 4 {
            // A depth value read as a texel is (D, 0, 0, 1), as Vulkan converts depth to RGBA.
            value = Expr::call("vec4<f32>", vec![value, f32_literal(0.0), f32_literal(0.0), f32_literal(1.0)]);
        } else if count != result_count {
            return Err(Error::invalid(
                format!("an image result of {result_count} components where {count} are read"),
                self.location(inst),
            ));
        }
        if &*result_scalar == "f16" && scalar == "f32" {
            // Texels of an f16 texture, read as f32, converted back exactly.
            value = Expr::call(e.ty(result)?, vec![value]);
        } else if &*result_scalar != scalar {
            if &*result_scalar == "f32" || scalar == "f32" {
                return Err(Error::invalid(
                    format!("an image result of {result_scalar} from a texture of {scalar}"),
                    self.location(inst),
                ));
            }
            value = e.bitcast(result, value)?;
        }
        Ok(value)
    }

    /// A float operand as f32: an f16 one (SPV_AMD_gpu_shader_half_float_fetch allows f16
    /// coordinates, levels and gradients) converted, since WGSL's texture builtins take f32.
    fn as_f32(&self, id: Id, value: Expr) -> Result<Expr, Error> {
        let Some((scalar, count)) = self.module.scalar_of(self.module.type_of(id)?) else { return Ok(value) };
        if !is_f16(self.module, scalar) {
            return Ok(value);
        }
        Ok(Expr::call(if count == 1 { "f32".to_string() } else { format!("vec{count}<f32>") }, vec![value]))
    }

    fn missing_sampler(&self, inst: &Inst) -> Error {
        Error::invalid("the image operand of a sampling instruction has no sampler", self.location(inst))
    }
}
