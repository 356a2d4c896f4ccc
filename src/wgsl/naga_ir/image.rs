//! Textures and samplers as naga's WGSL front end lowers them: their types, and the builtins that
//! sample, gather, load, store and query them, argument by argument in the front end's order.

use naga::{
    Block, Expression, Handle, ImageClass, ImageDimension as Dim, ImageQuery, SampleLevel, Scalar, Span, Statement,
    StorageAccess, StorageFormat, SwizzleComponent, TypeInner,
};

use super::function::{FunctionLowering, is_type_spelling};
use super::{Builder, Result, Unsupported};
use crate::wgsl::ast::{Expr, UnaryOp};

/// The handle types spelled without parameters.
const PLAIN: &[(&str, TypeInner)] = {
    const fn depth(dim: Dim, arrayed: bool, multi: bool) -> TypeInner {
        TypeInner::Image { dim, arrayed, class: ImageClass::Depth { multi } }
    }
    &[
        ("sampler", TypeInner::Sampler { comparison: false }),
        ("sampler_comparison", TypeInner::Sampler { comparison: true }),
        ("texture_depth_2d", depth(Dim::D2, false, false)),
        ("texture_depth_2d_array", depth(Dim::D2, true, false)),
        ("texture_depth_cube", depth(Dim::Cube, false, false)),
        ("texture_depth_cube_array", depth(Dim::Cube, true, false)),
        ("texture_depth_multisampled_2d", depth(Dim::D2, false, true)),
    ]
};

/// The sampled textures, `name<T>`: dimension, arrayed, multisampled.
const SAMPLED: &[(&str, Dim, bool, bool)] = &[
    ("texture_1d", Dim::D1, false, false),
    ("texture_2d", Dim::D2, false, false),
    ("texture_2d_array", Dim::D2, true, false),
    ("texture_3d", Dim::D3, false, false),
    ("texture_cube", Dim::Cube, false, false),
    ("texture_cube_array", Dim::Cube, true, false),
    ("texture_multisampled_2d", Dim::D2, false, true),
];

/// The storage textures, `name<format, access>`: dimension, arrayed.
const STORAGE: &[(&str, Dim, bool)] = &[
    ("texture_storage_1d", Dim::D1, false),
    ("texture_storage_2d", Dim::D2, false),
    ("texture_storage_2d_array", Dim::D2, true),
    ("texture_storage_3d", Dim::D3, false),
];

const FORMATS: &[(&str, StorageFormat)] = {
    use StorageFormat as F;
    &[
        ("r8unorm", F::R8Unorm),
        ("r8snorm", F::R8Snorm),
        ("r8uint", F::R8Uint),
        ("r8sint", F::R8Sint),
        ("r16unorm", F::R16Unorm),
        ("r16snorm", F::R16Snorm),
        ("r16uint", F::R16Uint),
        ("r16sint", F::R16Sint),
        ("r16float", F::R16Float),
        ("rg8unorm", F::Rg8Unorm),
        ("rg8snorm", F::Rg8Snorm),
        ("rg8uint", F::Rg8Uint),
        ("rg8sint", F::Rg8Sint),
        ("r32uint", F::R32Uint),
        ("r32sint", F::R32Sint),
        ("r32float", F::R32Float),
        ("rg16unorm", F::Rg16Unorm),
        ("rg16snorm", F::Rg16Snorm),
        ("rg16uint", F::Rg16Uint),
        ("rg16sint", F::Rg16Sint),
        ("rg16float", F::Rg16Float),
        ("rgba8unorm", F::Rgba8Unorm),
        ("rgba8snorm", F::Rgba8Snorm),
        ("rgba8uint", F::Rgba8Uint),
        ("rgba8sint", F::Rgba8Sint),
        ("rgb10a2uint", F::Rgb10a2Uint),
        ("rgb10a2unorm", F::Rgb10a2Unorm),
        ("rg11b10ufloat", F::Rg11b10Ufloat),
        ("r64uint", F::R64Uint),
        ("rg32uint", F::Rg32Uint),
        ("rg32sint", F::Rg32Sint),
        ("rg32float", F::Rg32Float),
        ("rgba16unorm", F::Rgba16Unorm),
        ("rgba16snorm", F::Rgba16Snorm),
        ("rgba16uint", F::Rgba16Uint),
        ("rgba16sint", F::Rgba16Sint),
        ("rgba16float", F::Rgba16Float),
        ("rgba32uint", F::Rgba32Uint),
        ("rgba32sint", F::Rgba32Sint),
        ("rgba32float", F::Rgba32Float),
        ("bgra8unorm", F::Bgra8Unorm),
    ]
};

const ACCESS: &[(&str, StorageAccess)] = &[
    ("read", StorageAccess::LOAD),
    ("write", StorageAccess::STORE),
    ("read_write", StorageAccess::LOAD.union(StorageAccess::STORE)),
    ("atomic", StorageAccess::ATOMIC.union(StorageAccess::LOAD).union(StorageAccess::STORE)),
];

/// The texture or sampler type `head<params>`, `None` if `head` is none; the sample type of a
/// sampled texture is registered first, as the front end reads it.
pub(super) fn texture_type(builder: &mut Builder, head: &str, params: &[&str]) -> Result<Option<TypeInner>> {
    if let Some((_, inner)) = PLAIN.iter().find(|(name, _)| *name == head) {
        return if params.is_empty() { Ok(Some(inner.clone())) } else { Err(Unsupported("texture type")) };
    }
    if let Some(&(_, dim, arrayed, multi)) = SAMPLED.iter().find(|(name, ..)| *name == head) {
        let [sample] = params else { return Err(Unsupported("texture type")) };
        let Scalar { kind, width } = builder.scalar_param(sample)?;
        // The front end takes only 32-bit sample types.
        if width != 4 {
            return Err(Unsupported("texture sample type"));
        }
        return Ok(Some(TypeInner::Image { dim, arrayed, class: ImageClass::Sampled { kind, multi } }));
    }
    if let Some(&(_, dim, arrayed)) = STORAGE.iter().find(|(name, ..)| *name == head) {
        let [format, access] = params else { return Err(Unsupported("storage texture type")) };
        let format = find(FORMATS, format).ok_or(Unsupported("storage format"))?;
        let access = find(ACCESS, access).ok_or(Unsupported("storage access"))?;
        return Ok(Some(TypeInner::Image { dim, arrayed, class: ImageClass::Storage { format, access } }));
    }
    Ok(None)
}

fn find<T: Copy>(table: &[(&str, T)], name: &str) -> Option<T> {
    table.iter().find(|(n, _)| *n == name).map(|&(_, value)| value)
}

/// Which texel component a sampling builtin gathers.
#[derive(Clone, Copy)]
enum Gather {
    /// None: it samples.
    No,
    /// The first argument's, unless the texture is a depth texture (then the first).
    Component,
    /// The first.
    X,
}

/// The level of detail a sampling builtin samples at, and the arguments that give it.
#[derive(Clone, Copy)]
enum Level {
    Auto,
    Zero,
    /// A bias argument.
    Bias,
    /// A level argument.
    Exact,
    /// Two gradient arguments.
    Gradient,
}

/// A sampling or gathering builtin.
struct Sampling {
    name: &'static str,
    gather: Gather,
    /// Whether it takes a depth reference (after the coordinates and array index).
    depth_ref: bool,
    level: Level,
    clamp_to_edge: bool,
}

const SAMPLING: &[Sampling] = {
    const fn sampling(name: &'static str, gather: Gather, depth_ref: bool, level: Level) -> Sampling {
        Sampling { name, gather, depth_ref, level, clamp_to_edge: false }
    }
    &[
        sampling("textureSample", Gather::No, false, Level::Auto),
        sampling("textureSampleBias", Gather::No, false, Level::Bias),
        sampling("textureSampleCompare", Gather::No, true, Level::Auto),
        sampling("textureSampleCompareLevel", Gather::No, true, Level::Zero),
        sampling("textureSampleGrad", Gather::No, false, Level::Gradient),
        sampling("textureSampleLevel", Gather::No, false, Level::Exact),
        Sampling {
            name: "textureSampleBaseClampToEdge",
            gather: Gather::No,
            depth_ref: false,
            level: Level::Zero,
            clamp_to_edge: true,
        },
        sampling("textureGather", Gather::Component, false, Level::Zero),
        sampling("textureGatherCompare", Gather::X, true, Level::Zero),
    ]
};

/// The queries of one argument, the texture.
const QUERIES: &[(&str, ImageQuery)] = &[
    ("textureNumLevels", ImageQuery::NumLevels),
    ("textureNumLayers", ImageQuery::NumLayers),
    ("textureNumSamples", ImageQuery::NumSamples),
];

/// Whether `callee` is a builtin of this file (not `textureBarrier`, a statement of its own).
pub(super) fn is_texture_builtin(callee: &str) -> bool {
    matches!(callee, "textureLoad" | "textureStore" | "textureDimensions")
        || SAMPLING.iter().any(|s| s.name == callee)
        || QUERIES.iter().any(|(name, _)| *name == callee)
}

/// A builtin's arguments, taken in order; a missing or an extra one is the front end's error.
struct Arguments<'a>(std::slice::Iter<'a, Expr>);

impl<'a> Arguments<'a> {
    fn next(&mut self) -> Result<&'a Expr> {
        self.0.next().ok_or(Unsupported("too few texture arguments"))
    }
    fn finish(self) -> Result<()> {
        match self.0.len() {
            0 => Ok(()),
            _ => Err(Unsupported("too many texture arguments")),
        }
    }
}

impl<'a> FunctionLowering<'_, 'a> {
    /// A call of a texture builtin (`is_texture_builtin`); `None` for `textureStore`, a statement.
    pub(super) fn texture(
        &mut self,
        callee: &str,
        args: &'a [Expr],
        block: &mut Block,
        is_statement: bool,
    ) -> Result<Option<Handle<Expression>>> {
        let mut args = Arguments(args.iter());
        if callee == "textureStore" {
            if !is_statement {
                return Err(Unsupported("the value of textureStore"));
            }
            self.store(args, block)?;
            return Ok(None);
        }
        if is_statement {
            return Err(Unsupported("builtin call as a statement"));
        }
        let expr = if let Some(sampling) = SAMPLING.iter().find(|s| s.name == callee) {
            self.sample(&mut args, sampling, block)?
        } else if callee == "textureLoad" {
            self.load(&mut args, block)?
        } else if callee == "textureDimensions" {
            let image = self.expression(args.next()?, block)?;
            let level = args.0.next().map(|level| self.expression(level, block)).transpose()?;
            Expression::ImageQuery { image, query: ImageQuery::Size { level } }
        } else {
            let query = find(QUERIES, callee).ok_or(Unsupported("texture builtin"))?;
            Expression::ImageQuery { image: self.expression(args.next()?, block)?, query }
        };
        args.finish()?;
        self.append(block, expr).map(Some)
    }

    /// A sampling or gathering builtin's arguments in the front end's order (its
    /// `texture_sample_helper`); the caller checks that none is left over.
    fn sample(&mut self, args: &mut Arguments<'a>, sampling: &Sampling, block: &mut Block) -> Result<Expression> {
        let (image, gather) = match sampling.gather {
            Gather::No => (self.expression_for_abstract(args.next()?, block)?, None),
            Gather::X => (self.expression_for_abstract(args.next()?, block)?, Some(SwizzleComponent::X)),
            Gather::Component => {
                let first = self.expression(args.next()?, block)?;
                if matches!(self.resolve(first)?, TypeInner::Image { class: ImageClass::Depth { .. }, .. }) {
                    (first, Some(SwizzleComponent::X))
                } else {
                    let image = self.expression_for_abstract(args.next()?, block)?;
                    let component = self.const_index(first).and_then(|i| SwizzleComponent::XYZW.get(i as usize));
                    (image, Some(*component.ok_or(Unsupported("gather component"))?))
                }
            }
        };
        let sampler = self.expression_for_abstract(args.next()?, block)?;
        let coordinate = self.with_leaf_scalar(args.next()?, Scalar::F32, block)?;
        let (class, arrayed) = self.image_data(image)?;
        let array_index = if arrayed { Some(self.expression(args.next()?, block)?) } else { None };
        let depth_ref =
            if sampling.depth_ref { Some(self.with_leaf_scalar(args.next()?, Scalar::F32, block)?) } else { None };
        let level = match sampling.level {
            Level::Auto => SampleLevel::Auto,
            Level::Zero => SampleLevel::Zero,
            Level::Bias => SampleLevel::Bias(self.with_leaf_scalar(args.next()?, Scalar::F32, block)?),
            Level::Gradient => {
                let x = self.with_leaf_scalar(args.next()?, Scalar::F32, block)?;
                let y = self.with_leaf_scalar(args.next()?, Scalar::F32, block)?;
                SampleLevel::Gradient { x, y }
            }
            // A sampled texture's level is an `f32`; a depth texture's an integer.
            Level::Exact => SampleLevel::Exact(match class {
                ImageClass::Sampled { .. } => self.with_leaf_scalar(args.next()?, Scalar::F32, block)?,
                _ => self.expression(args.next()?, block)?,
            }),
        };
        let offset = args.0.next().map(|offset| self.offset(offset, block)).transpose()?;
        Ok(Expression::ImageSample {
            image,
            sampler,
            gather,
            coordinate,
            array_index,
            offset,
            level,
            depth_ref,
            clamp_to_edge: sampling.clamp_to_edge,
        })
    }

    /// `textureLoad`: the array index, level and sample index the texture's kind takes.
    fn load(&mut self, args: &mut Arguments<'a>, block: &mut Block) -> Result<Expression> {
        let image = self.expression(args.next()?, block)?;
        let coordinate = self.expression(args.next()?, block)?;
        let (class, arrayed) = self.image_data(image)?;
        let array_index = if arrayed { Some(self.expression(args.next()?, block)?) } else { None };
        let level = if class.is_mipmapped() { Some(self.expression(args.next()?, block)?) } else { None };
        let sample = if class.is_multisampled() { Some(self.expression(args.next()?, block)?) } else { None };
        Ok(Expression::ImageLoad { image, coordinate, array_index, level, sample })
    }

    /// `textureStore`: a statement, after an `Emit` of what its arguments evaluated.
    fn store(&mut self, mut args: Arguments<'a>, block: &mut Block) -> Result<()> {
        let image = self.expression(args.next()?, block)?;
        let coordinate = self.expression(args.next()?, block)?;
        let (class, arrayed) = self.image_data(image)?;
        let array_index = if arrayed { Some(self.expression(args.next()?, block)?) } else { None };
        let ImageClass::Storage { format, .. } = class else { return Err(Unsupported("store to a sampled texture")) };
        let value = self.with_leaf_scalar(args.next()?, Scalar::from(format), block)?;
        args.finish()?;
        self.split_emit_range(block);
        block.push(Statement::ImageStore { image, coordinate, array_index, value }, Span::UNDEFINED);
        Ok(())
    }

    /// A texel offset: a constant expression, which the front end evaluates as one (in the
    /// function's arena, but refusing what does not fold); only literals, their negations and
    /// constructions of them are taken.
    fn offset(&mut self, offset: &'a Expr, block: &mut Block) -> Result<Handle<Expression>> {
        if !is_literal_construction(offset) {
            return Err(Unsupported("texel offset"));
        }
        self.constant = true;
        let lowered = self.with_leaf_scalar(offset, Scalar::I32, block);
        self.constant = false;
        lowered
    }

    /// The value of `expr`, which must have leaf scalar `scalar`: the front end would convert
    /// only an abstract one, which this builder does not take.
    fn with_leaf_scalar(&mut self, expr: &'a Expr, scalar: Scalar, block: &mut Block) -> Result<Handle<Expression>> {
        let handle = self.expression_for_abstract(expr, block)?;
        match *self.resolve(handle)? {
            TypeInner::Scalar(leaf) | TypeInner::Vector { scalar: leaf, .. } if leaf == scalar => Ok(handle),
            _ => Err(Unsupported("texture argument type")),
        }
    }

    /// The class and arrayedness of the texture `image`.
    fn image_data(&mut self, image: Handle<Expression>) -> Result<(ImageClass, bool)> {
        match *self.resolve(image)? {
            TypeInner::Image { class, arrayed, .. } => Ok((class, arrayed)),
            _ => Err(Unsupported("texture builtin on a non-texture")),
        }
    }
}

/// Whether `expr` is a literal, a negated one, or a type constructed of such.
fn is_literal_construction(expr: &Expr) -> bool {
    match expr {
        Expr::Literal(_) => true,
        Expr::Unary(UnaryOp::Negate, operand) => is_literal_construction(operand),
        Expr::Call(call) => is_type_spelling(&call.callee) && call.args.iter().all(is_literal_construction),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Check, Incremental, check};
    use crate::wgsl::ast::{
        Attribute, Expr, Function, Global, GlobalKind, Literal, Module, PrintedFunction, Signature, Stmt,
    };
    use crate::wgsl::print;

    /// A fragment shader over `t: texture_2d<f32>`, `s: sampler` and
    /// `st: texture_storage_2d<r32float, write>` with body `body`: its text, and its IR checked
    /// against naga's reading of that text.
    fn checked(body: Vec<Stmt>) -> (String, Check) {
        let handle = |binding, name: &str, ty: &str| Global {
            attributes: vec![Attribute::Group(0), Attribute::Binding(binding)],
            kind: GlobalKind::Var { space: String::new() },
            name: name.into(),
            ty: Some(ty.into()),
            init: None,
        };
        let globals = vec![
            handle(0, "t", "texture_2d<f32>"),
            handle(1, "s", "sampler"),
            handle(2, "st", "texture_storage_2d<r32float, write>"),
        ];
        let f = Function {
            attributes: vec![Attribute::Stage("fragment")],
            name: "main".into(),
            params: Vec::new(),
            result: Some((vec![Attribute::Location(0)], "vec4<f32>".into())),
            body,
            exits: Vec::new(),
        };
        let (text, len) = print::function(&f);
        let signature = Signature { len, result: Some("vec4<f32>".into()) };
        let printed = PrintedFunction { name: "main".into(), text, signature, calls: Vec::new() };
        let ast = Module { globals, functions: vec![printed], ..Module::default() };
        let mut incremental = Incremental::new(true);
        let callees = crate::wgsl::uniformity::callees(&f);
        incremental.function(&ast, f, &callees);
        (print::print(&ast), check(&ast, incremental.finish(&ast)))
    }

    fn f32s(ty: &str, v: f32) -> Expr {
        Expr::call(ty, vec![Expr::Literal(Literal::F32(v.to_bits()))])
    }

    fn i32s(ty: &str, values: &[i32]) -> Expr {
        Expr::call(ty, values.iter().map(|&v| Expr::Literal(Literal::I32(v))).collect())
    }

    fn returns(callee: &str, args: Vec<Expr>) -> Vec<Stmt> {
        vec![Stmt::Return(Some(Expr::call(callee, args)))]
    }

    fn store(image: &str) -> Vec<Stmt> {
        let store =
            Expr::call("textureStore", vec![Expr::ident(image), i32s("vec2<i32>", &[0]), f32s("vec4<f32>", 1.0)]);
        vec![Stmt::Call(store), Stmt::Return(Some(f32s("vec4<f32>", 0.0)))]
    }

    #[test]
    fn samples_and_stores_are_built_as_naga_reads_their_text() {
        let (t, s, uv) = (Expr::ident("t"), Expr::ident("s"), f32s("vec2<f32>", 0.5));
        for body in [returns("textureSample", vec![t, s, uv, i32s("vec2<i32>", &[1, -1])]), store("st")] {
            let (text, check) = checked(body);
            assert!(matches!(check, Check::Equal { parts: 1 }), "{text}\n{check:?}");
        }
    }

    #[test]
    fn what_the_front_end_rejects_is_refused_not_built() {
        let (t, s, uv) = (|| Expr::ident("t"), || Expr::ident("s"), || f32s("vec2<f32>", 0.5));
        let offset = || i32s("vec2<i32>", &[1, 0]);
        let rejected = [
            // Integer coordinates: sampling converts only abstract ones to `f32`.
            returns("textureSample", vec![t(), s(), i32s("vec2<i32>", &[0, 0])]),
            // An offset that is not a constant expression.
            vec![
                Stmt::Let { name: "o".into(), ty: None, value: offset() },
                Stmt::Return(Some(Expr::call("textureSample", vec![t(), s(), uv(), Expr::ident("o")]))),
            ],
            // A gather component beyond the fourth.
            returns("textureGather", vec![Expr::Literal(Literal::I32(4)), t(), s(), uv()]),
            // Too few and too many arguments.
            returns("textureSample", vec![t(), s()]),
            returns("textureSample", vec![t(), s(), uv(), offset(), offset()]),
            // A sampler where the texture goes.
            returns("textureSample", vec![s(), s(), uv()]),
            // A store to a sampled texture.
            store("t"),
        ];
        for body in rejected {
            let (text, check) = checked(body);
            assert!(naga::front::wgsl::parse_str(&text).is_err(), "naga reads\n{text}");
            assert!(matches!(check, Check::Refused(_)), "{text}\n{check:?}");
        }
    }
}
