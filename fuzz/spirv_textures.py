"""The sampled textures of a random SPIR-V module (fuzz/random_spirv.py): their contents, what the
module declares for them, and the models and spellings of the image instructions on them.

Six bindings, each with its own size (2 to 5 texels a side), number of mip levels (1 to 3, each
half the one before, rounded down) and contents:

- `%tex_u` (binding 4): r32uint, random words; a texel reads as (w, 0, 0, 1);
- `%tex_c` (binding 5): rgba8unorm, random words; a texel reads as four bytes over 255, which the
  program turns back into the bytes (`unorm` below: times 255, rounded), so the result is exact
  however the device converts;
- `%tex_f` (binding 6): rgba32float, multiples of 1/4 under 64 (exact, and what the generator's
  float reads take); fetched only (WebGPU cannot filter it, and wgpu's automatic layout makes a
  sampled float texture filterable);
- `%comb` (binding 8): a combined image sampler, rgba8unorm, nearest; on WebGPU a texture and a
  sampler where the translation's binding map puts it;
- `%tex_d` (binding 13): depth16unorm, declared a depth image, texels multiples of 256 (from 256
  to 65280) so that the depth references, halfway between two such values or beyond both ends,
  compare the same however a device rounds them; a texel reads as (d, 0, 0, 1), d turned back into
  its 16 bits as the bytes are;
- `%tex_a` (binding 15): rgba8unorm, an array of 2 or 3 layers; float layer coordinates round to
  the nearest layer, halves to even, and clamp to the array;
- `%tex_q` (binding 16): rgba8unorm, a cube, or in half the modules an array of two cubes (its
  layer, the direction's fourth component, rounds and clamps as `%tex_a`'s does); sampled at
  directions a quarter, half or three quarters into a texel of a face, gathered at directions
  halfway between four texel centres of a face (so no footprint crosses an edge, where devices
  may differ);

and `%smp` (binding 7), a nearest sampler, clamp to edge, nearest between levels (`; exec:
sampler`), and `%smp_cmp` (binding 14), the same comparing with the module's comparison (any of
the eight), which only depth comparisons use (Vulkan leaves any other use of it undefined). And
four storage images, compared after the run (`; exec: storage-image`, `cpu`):

- `%simg_u` (binding 9, r32ui) and `%simg_f` (binding 10, r32f), read and written: a column per
  invocation (its global id), which only that invocation touches, so no two race;
- `%simg_o` (binding 11, rgba32f), written only (WGSL's storage textures are read-write only in
  32-bit single-channel formats), a column per invocation too;
- `%simg_c` (binding 12, rgba8), read only, anywhere.
 Coordinates keep a quarter of a texel away from the edges where rounding decides
(sampling) or are integers in range (fetching), levels of detail a quarter of a level away from
where nearest mipmapping changes level, so every device gives what the model says.

Lavapipe (Mesa 22.3) is no reference for some modules with a `ConstOffsets` gather: in them it
gives zeros (seed 20307: four offsets, even all zero, at the texture's centre), where the four
single-offset gathers of the translation and the model give the texels; elsewhere (the fixture
texture_gather_offsets_integer_sample.comp) it agrees with both. Those modules are checked
against the model alone (reported as ignored)."""

import math
import struct

# The handles by variable: (image type, SPIR-V pointer type, binding, format).
TEXTURES = {
    "%tex_u": ("%img_u", "%pc_img_u", 4, "r32uint"),
    "%tex_c": ("%img_f", "%pc_img_f", 5, "rgba8unorm"),
    "%tex_f": ("%img_f", "%pc_img_f", 6, "rgba32float"),
    "%comb": ("%si_f", "%pc_si_f", 8, "rgba8unorm"),
    "%tex_d": ("%img_d", "%pc_img_d", 13, "depth16unorm"),
    "%tex_a": ("%img_a", "%pc_img_a", 15, "rgba8unorm"),
    "%tex_q": ("%img_q", "%pc_img_q", 16, "rgba8unorm"),
}
ARRAYED = {"%tex_a"}
CUBE = "%tex_q"
# The sampled image type of each texture's images.
SAMPLED_TYPES = {"%tex_u": "%si_u", "%tex_d": "%si_d", "%tex_a": "%si_a", CUBE: "%si_q"}
SAMPLER = "%smp"
SAMPLER_BINDING = 7
COMPARE_SAMPLER = "%smp_cmp"
COMPARE_SAMPLER_BINDING = 14
# The comparisons of a comparison sampler: (reference, texel) -> passes, by `exec:` name.
COMPARISONS = {
    "never": lambda ref, d: False,
    "less": lambda ref, d: ref < d,
    "equal": lambda ref, d: ref == d,
    "less-equal": lambda ref, d: ref <= d,
    "greater": lambda ref, d: ref > d,
    "not-equal": lambda ref, d: ref != d,
    "greater-equal": lambda ref, d: ref >= d,
    "always": lambda ref, d: True,
}
# The storage images by variable: (image type, SPIR-V pointer type, binding, format, SPIR-V
# format, access: "rw", "w" or "r").
STORAGE_IMAGES = {
    "%simg_u": ("%simg_u_t", "%pc_simg_u", 9, "r32uint", "R32ui", "rw"),
    "%simg_f": ("%simg_f_t", "%pc_simg_f", 10, "r32float", "R32f", "rw"),
    "%simg_o": ("%simg_o_t", "%pc_simg_o", 11, "rgba32float", "Rgba32f", "w"),
    "%simg_c": ("%simg_c_t", "%pc_simg_c", 12, "rgba8unorm", "Rgba8", "r"),
}
# Every handle variable: the textures, the samplers, the storage images.
HANDLES = [*TEXTURES, SAMPLER, COMPARE_SAMPLER, *STORAGE_IMAGES]


def handle_type(var, passing):
    """The type of a helper's parameter taking the handle `var` by `passing` ("pointer": a
    pointer to the variable; "value": the handle loaded)."""
    if var in (SAMPLER, COMPARE_SAMPLER):
        return "%pc_smp" if passing == "pointer" else "%smp_t"
    entry = {**TEXTURES, **STORAGE_IMAGES}[var]
    return entry[1] if passing == "pointer" else entry[0]


# What a texel of each format reads as: a vector of unsigned integers, floats, or bytes (unorm).
TEXEL_KIND = {"r32uint": "uint", "rgba8unorm": "unorm", "rgba32float": "float", "r32float": "float",
              "depth16unorm": "depth"}


class MipChain:
    """A 2D texture's size (2 to 5 texels a side) and mip levels (1 to 3, each half the one
    before, rounded down, at least 1); the random GLSL and WGSL programs use it too."""

    def __init__(self, r):
        self.width, self.height = r.randint(2, 5), r.randint(2, 5)
        self.levels = r.randint(1, min(3, max(self.width, self.height).bit_length()))

    def size(self, level):
        return max(self.width >> level, 1), max(self.height >> level, 1)

    def square(self):
        """Makes this a cube's: its height the width, no more levels than that allows."""
        self.height = self.width
        self.levels = min(self.levels, self.width.bit_length())
        return self

    def texel_count(self):
        """Texels in all levels: the words an `exec:` line of an r32uint or rgba8unorm texture has."""
        return sum(w * h for w, h in map(self.size, range(self.levels)))


def level_of_detail(r, level):
    """A level of detail at which nearest mipmapping reads `level` (it does from over level - 0.5
    up to level + 0.5; below 0, level 0), a quarter away from where it changes level."""
    return level + r.choice([-0.25, 0.0, 0.25]) if level else r.choice([-1.0, 0.0, 0.25])


def normalized_coordinates(value, size, shift, beyond, unsigned_vec2, float_vec2):
    """Shading-language text of the coordinates ((x - 2) + shift) / size, each x an unsigned
    `value()` modulo its size + `beyond`: from two texels before the texture to past its end,
    `shift` into a texel. The vector constructors are GLSL's (uvec2, vec2) or WGSL's (vec2u, vec2f)."""
    width, height = size
    x = f"{unsigned_vec2}({value()} % {width + beyond}u, {value()} % {height + beyond}u)"
    return f"(({float_vec2}({x}) - {2.0 - shift}) / {float_vec2}({float(width)}, {float(height)}))"


def cube_direction_text(r, value, size, gather, to_float, vec3):
    """Shading-language text of a direction toward a random face of a cube `size` texels a side
    (its major axis 0.5 to 2 long), at (x + shift) / size on each axis of the face, each x an
    unsigned `value()` under size: a quarter, half or three quarters into a texel, or (`gather`) x
    under size - 1 and shift 1, between four texel centres with the footprint on the face. The
    float conversion and vector constructor are GLSL's (float, vec3) or WGSL's (f32, vec3f)."""
    face, major = r.randrange(6), r.choice([0.5, 1.0, 2.0])
    shift = 1.0 if gather else r.choice([0.25, 0.5, 0.75])
    components = [f"{-major if face % 2 else major}"] * 3
    for axis, sign in CUBE_FACES[face]:
        c = f"(({to_float}({value()} % {size - gather}u) + {shift}) * {2 * major / size} - {major})"
        components[axis] = c if sign > 0 else f"-{c}"
    return f"{vec3}({', '.join(components)})"


class Texture(MipChain):
    def __init__(self, r, fmt, arrays=None, cube=False):
        """A texture of `fmt`; an array of `arrays` layers or cubes, a cube."""
        super().__init__(r)
        if cube:
            self.square()
        self.format = fmt
        self.arrayed = arrays is not None
        self.cube = cube
        # Of a cube, six a cube: its faces, +X, -X, +Y, -Y, +Z, -Z.
        self.layers = (arrays or 1) * (6 if cube else 1)
        self.texels = []  # per level, each layer in turn, row by row
        for level in range(self.levels):
            width, height = self.size(level)
            count = width * height * self.layers
            if fmt == "rgba32float":
                self.texels.append([[r.randint(-256, 256) / 4 for _ in range(4)] for _ in range(count)])
            elif fmt == "depth16unorm":
                self.texels.append([r.randint(1, 255) * 256 for _ in range(count)])
            else:
                self.texels.append([r.getrandbits(32) for _ in range(count)])

    def arrays(self):
        """The array's layers (of a cube array, its cubes); 1 for a texture that is no array."""
        return self.layers // 6 if self.cube else self.layers

    def query_size(self, level):
        """What a query of the size of `level` gives: its width and height, and the array's layers."""
        return list(self.size(level)) + [self.arrays()] * self.arrayed

    def words(self):
        texels = [texel for level in self.texels for texel in level]
        if self.format == "rgba32float":
            return [f"{lane}" for texel in texels for lane in texel]
        return [str(word) for word in texels]

    def texel(self, x, y, level=0, layer=0):
        """What the texel at (x, y) of `level` and `layer`, clamped to the edge, reads as."""
        width, height = self.size(level)
        x, y = min(max(x, 0), width - 1), min(max(y, 0), height - 1)
        texel = self.texels[level][(layer * height + y) * width + x]
        if self.format == "r32uint":
            return [texel, 0, 0, 1]
        if self.format == "depth16unorm":
            return [texel, 0.0, 0.0, 1.0]
        if self.format == "rgba8unorm":
            return [(texel >> (8 * lane)) & 0xFF for lane in range(4)]
        return list(texel)


class StorageImage:
    """A storage image's size and texels (one level): a column per invocation of `columns`, or
    (with None) any size."""

    def __init__(self, r, fmt, columns):
        self.format = fmt
        self.width = columns or r.randint(2, 5)
        self.height = r.randint(1, 4) if columns else r.randint(2, 5)
        count = self.width * self.height
        if fmt == "r32float":
            self.texels = [r.randint(-256, 256) / 4 for _ in range(count)]
        elif fmt == "rgba32float":
            self.texels = [[0.0] * 4 for _ in range(count)]  # written only; the rest stays 0
        else:
            self.texels = [r.getrandbits(32) for _ in range(count)]

    def words(self, texels=None):
        texels = self.texels if texels is None else texels
        if self.format == "rgba32float":
            return [float_bits(lane) for texel in texels for lane in texel]
        return [float_bits(t) if self.format == "r32float" else t for t in texels]

    def read(self, texels, x, y):
        """What the texel at (x, y) of `texels` (the image's contents now) reads as."""
        if not (0 <= x < self.width and 0 <= y < self.height):
            raise ValueError(f"storage image read out of range: {(x, y)}")
        texel = texels[y * self.width + x]
        if self.format == "r32uint":
            return [texel, 0, 0, 1]
        if self.format == "r32float":
            return [texel, 0.0, 0.0, 1.0]
        if self.format == "rgba8unorm":
            return [(texel >> (8 * lane)) & 0xFF for lane in range(4)]
        return list(texel)

    def write(self, texels, x, y, texel):
        """Writes `texel` (a scalar or four lanes) at (x, y) of `texels`: the lanes the format has."""
        if not (0 <= x < self.width and 0 <= y < self.height):
            raise ValueError(f"storage image write out of range: {(x, y)}")
        lanes = texel if isinstance(texel, list) else [texel]
        texels[y * self.width + x] = list(lanes) if self.format == "rgba32float" else lanes[0]


def float_bits(value):
    """The f32 `value`'s bits (spirv_blocks uses it too; it imports this module)."""
    return struct.unpack("<I", struct.pack("<f", value))[0]


class Textures:
    """A module's textures and storage images, by variable."""

    def __init__(self, r, invocations):
        self.by_var = {var: Texture(r, entry[3], r.randint(2, 3) if var in ARRAYED else None)
                       for var, entry in TEXTURES.items() if var != CUBE}
        self.storage = {var: StorageImage(r, entry[3], None if entry[5] == "r" else invocations)
                        for var, entry in STORAGE_IMAGES.items()}
        # Storage images may carry their access as decorations, or leave it to their use.
        self.decorated = r.random() < 0.5
        self.comparison = r.choice(sorted(COMPARISONS))
        self.cube_array = r.random() < 0.5
        self.by_var[CUBE] = Texture(r, TEXTURES[CUBE][3], 2 if self.cube_array else None, cube=True)

    def compare(self, reference, texel):
        """A depth comparison's result: 1.0 where the reference, clamped to [0, 1] as it is for a
        unorm texture, passes against the texel's depth."""
        reference = min(max(reference, 0.0), 1.0)
        return 1.0 if COMPARISONS[self.comparison](reference, texel[0] / 65535) else 0.0

    def initial_images(self):
        """The storage images' contents at the start, by variable (the model's to change)."""
        return {var: [list(t) if isinstance(t, list) else t for t in image.texels]
                for var, image in self.storage.items()}

    def image_words(self, images):
        """`cpu` lines' words of the storage images the program writes, by binding."""
        return {STORAGE_IMAGES[var][2]: self.storage[var].words(texels) for var, texels in images.items()
                if STORAGE_IMAGES[var][5] != "r"}

    def exec_lines(self):
        lines = []
        for var, (_, _, binding, fmt) in TEXTURES.items():
            t = self.by_var[var]
            kind = "combined" if var == "%comb" else "texture"
            filtering = " nearest" if var == "%comb" else ""
            levels = f" levels {t.levels}" if t.levels > 1 else ""
            layers = f" layers {t.layers}" * t.arrayed + " cube" * t.cube
            lines.append(f"; exec: {kind} {binding} {t.width}x{t.height} {fmt}{filtering}{levels}{layers}: "
                         + " ".join(t.words()))
        lines.append(f"; exec: sampler {SAMPLER_BINDING} nearest")
        lines.append(f"; exec: sampler {COMPARE_SAMPLER_BINDING} nearest compare {self.comparison}")
        for var, (_, _, binding, fmt, _, _) in STORAGE_IMAGES.items():
            image = self.storage[var]
            lines.append(f"; exec: storage-image {binding} {image.width}x{image.height} {fmt}: "
                         + " ".join(map(str, image.words())))
        return lines

    def decorations(self):
        lines = []
        bindings = [(var, entry[2]) for var, entry in [*TEXTURES.items(), *STORAGE_IMAGES.items()]]
        for var, binding in bindings + [(SAMPLER, SAMPLER_BINDING), (COMPARE_SAMPLER, COMPARE_SAMPLER_BINDING)]:
            lines += [f"OpDecorate {var} DescriptorSet 0", f"OpDecorate {var} Binding {binding}"]
        if self.decorated:
            lines += [f"OpDecorate {var} {'NonReadable' if entry[5] == 'w' else 'NonWritable'}"
                      for var, entry in STORAGE_IMAGES.items() if entry[5] != "rw"]
        return lines

    def capabilities(self):
        return ["ImageQuery", "ImageGatherExtended"] + ["SampledCubeArray"] * self.cube_array

    def declarations(self):
        """Types, constants and variables, after the scalar and vector types."""
        return [
            "%img_u = OpTypeImage %uint 2D 0 0 0 1 Unknown",
            "%img_f = OpTypeImage %float 2D 0 0 0 1 Unknown",
            "%img_d = OpTypeImage %float 2D 1 0 0 1 Unknown",
            "%img_a = OpTypeImage %float 2D 0 1 0 1 Unknown",
            f"%img_q = OpTypeImage %float Cube 0 {int(self.cube_array)} 0 1 Unknown",
            "%smp_t = OpTypeSampler",
            "%si_u = OpTypeSampledImage %img_u",
            "%si_f = OpTypeSampledImage %img_f",
            "%si_d = OpTypeSampledImage %img_d",
            "%si_a = OpTypeSampledImage %img_a",
            "%si_q = OpTypeSampledImage %img_q",
            "%pc_img_u = OpTypePointer UniformConstant %img_u",
            "%pc_img_f = OpTypePointer UniformConstant %img_f",
            "%pc_img_d = OpTypePointer UniformConstant %img_d",
            "%pc_img_a = OpTypePointer UniformConstant %img_a",
            "%pc_img_q = OpTypePointer UniformConstant %img_q",
            "%pc_si_f = OpTypePointer UniformConstant %si_f",
            "%pc_smp = OpTypePointer UniformConstant %smp_t",
            "%len4 = OpConstant %uint 4",
            "%arr4v2int = OpTypeArray %v2int %len4",
            *[f"{var} = OpVariable {entry[1]} UniformConstant" for var, entry in TEXTURES.items()],
            f"{SAMPLER} = OpVariable %pc_smp UniformConstant",
            f"{COMPARE_SAMPLER} = OpVariable %pc_smp UniformConstant",
            *[line for var, (ty, pointer, _, _, spirv_format, _) in STORAGE_IMAGES.items() for line in (
                f"{ty} = OpTypeImage {'%uint' if spirv_format == 'R32ui' else '%float'} 2D 0 0 0 2 {spirv_format}",
                f"{pointer} = OpTypePointer UniformConstant {ty}",
                f"{var} = OpVariable {pointer} UniformConstant")],
        ]


def texel_coordinate(x, shift, size):
    """The normalized coordinate the program computes (`texcoord`): ((x - 2) + shift) / size."""
    return ((x - 2) + shift) * (1.0 / size)


def cube_direction(face, s, t, major):
    """The direction that points at (s, t) of `face` (each in [-1, 1] here, 0 the centre), the
    major axis `major` long."""
    direction = [0.0] * 3
    direction[face // 2] = -major if face % 2 else major
    for (k, sign), c in zip(CUBE_FACES[face], (s, t)):
        direction[k] = sign * c * major
    return direction


def layer_of(texture, coordinate):
    """The array layer a float coordinate's last component selects (the third; a cube's fourth):
    the nearest (halves to even, as Python's round), clamped to the array; 0 for a texture that
    is no array. Of a cube array, the cube."""
    if not texture.arrayed:
        return 0
    return min(max(round(coordinate[3 if texture.cube else 2]), 0), texture.arrays() - 1)


# Vulkan's cube map face selection: by face (+X, -X, +Y, -Y, +Z, -Z; the major axis is face // 2),
# the component of the direction and its sign that give s, and those that give t.
CUBE_FACES = [
    ((2, -1.0), (1, -1.0)),
    ((2, 1.0), (1, -1.0)),
    ((0, 1.0), (2, 1.0)),
    ((0, 1.0), (2, -1.0)),
    ((0, 1.0), (1, -1.0)),
    ((0, -1.0), (1, -1.0)),
]


def cube_face(direction):
    """The face a direction points at and its (s, t) on that face, each in (0, 1)."""
    major = max(range(3), key=lambda k: abs(direction[k]))
    if sorted(abs(c) for c in direction[:3])[1] == abs(direction[major]):
        raise ValueError(f"cube direction between faces: {direction}")
    face = 2 * major + (direction[major] < 0)
    size = abs(direction[major])
    s, t = (sign * direction[k] / size * 0.5 + 0.5 for k, sign in CUBE_FACES[face])
    return face, s, t


def face_texel(texture, coordinate):
    """The face layer a cube's coordinate reads from, and its (s, t) there; a 2D texture's layer
    and the coordinate's (s, t)."""
    if not texture.cube:
        return layer_of(texture, coordinate), coordinate[0], coordinate[1]
    face, s, t = cube_face(coordinate)
    return 6 * layer_of(texture, coordinate) + face, s, t


def fetch(texture, coordinate, offset, level):
    x, y = coordinate[0] + offset[0], coordinate[1] + offset[1]
    width, height = texture.size(level)
    if not (0 <= x < width and 0 <= y < height):
        raise ValueError(f"fetch out of range: {(x, y)} at level {level}")
    layer = coordinate[2] if texture.arrayed else 0
    return texture.texel(x, y, level, layer)


def sample(texture, coordinate, offset, level):
    """Nearest filtering, clamp to edge: the texel of `level` the coordinate falls in, moved by
    `offset`."""
    width, height = texture.size(level)
    layer, s, t = face_texel(texture, coordinate)
    x = math.floor(s * width) + offset[0]
    y = math.floor(t * height) + offset[1]
    return texture.texel(x, y, level, layer)


def footprint(texture, coordinate, offsets):
    """The four texels of the 2x2 footprint bilinear filtering would take at level 0, in the order
    SPIR-V's gathers give them ((0, 1), (1, 1), (1, 0), (0, 0) from the footprint's corner, each
    clamped to the edge); with four offsets (ConstOffsets), texel k is texel (0, 0) of the
    footprint moved by offset k."""
    layer, s, t = face_texel(texture, coordinate)
    x0 = math.floor(s * texture.width - 0.5)
    y0 = math.floor(t * texture.height - 0.5)
    if texture.cube and not (0 <= x0 < texture.width - 1 and 0 <= y0 < texture.height - 1):
        raise ValueError(f"cube gather footprint across an edge: {coordinate}")
    if len(offsets) == 4:
        return [texture.texel(x0 + ox, y0 + oy, 0, layer) for ox, oy in offsets]
    ox, oy = offsets[0]
    return [texture.texel(x0 + dx + ox, y0 + dy + oy, 0, layer) for dx, dy in [(0, 1), (1, 1), (1, 0), (0, 0)]]


def gather(texture, coordinate, component, offsets):
    """`component` of each texel of the footprint."""
    return [texel[component] for texel in footprint(texture, coordinate, offsets)]


# The models: (value of a name, the textures, operands...) -> the result. The model's value of a
# handle (a loaded image, sampler or combined image sampler, an OpImage of one, an OpSampledImage)
# is the variable of the texture it reads.
TEXTURE_MODELS = {
    "load_handle": lambda value, textures, ty, var: var if var in HANDLES else value(var),
    "image_of": lambda value, textures, ty, sampled: value(sampled),
    "sampled_image": lambda value, textures, ty, image, sampler: value(image),
    "texcoord": lambda value, textures, x, shift, size, shift_name, scale_name: texel_coordinate(
        value(x), shift, size),
    "unorm": lambda value, textures, byte: value(byte),
    "cube_direction": lambda value, textures, x, y, face, shift, size, major, *names: cube_direction(
        face, *[(value(c) + shift) * (2.0 / size) - 1.0 for c in (x, y)], major),
    "fetch": lambda value, textures, ty, image, coordinate, lod, offset, offset_name, level: fetch(
        textures.by_var[value(image)], value(coordinate), offset, level),
    "sample": lambda value, textures, ty, sampled, coordinate, lod, offset, offset_name, level: sample(
        textures.by_var[value(sampled)], value(coordinate), offset, level),
    # Projective: the coordinates divided by the last.
    "sample_proj": lambda value, textures, ty, sampled, coordinate, lod, offset, offset_name, level: sample(
        textures.by_var[value(sampled)], [c / value(coordinate)[2] for c in value(coordinate)[:2]], offset, level),
    "projective": lambda value, textures, coordinate, q_name, q: [c * q for c in value(coordinate)] + [q],
    "gather": lambda value, textures, ty, sampled, coordinate, component_name, component, offsets, offset_operand: (
        gather(textures.by_var[value(sampled)], value(coordinate), component, offsets)),
    # Depth comparisons, at level 0: the texel the sample reads, or each of the footprint's.
    "sample_dref": lambda value, textures, ty, sampled, coordinate, reference, offset, offset_name: textures.compare(
        value(reference), sample(textures.by_var[value(sampled)], value(coordinate), offset, 0)),
    # Projective: the coordinates and the reference divided by the coordinates' last.
    "sample_proj_dref": lambda value, textures, ty, sampled, coordinate, reference, offset, offset_name: (
        textures.compare(value(reference) / value(coordinate)[2], sample(
            textures.by_var[value(sampled)], [c / value(coordinate)[2] for c in value(coordinate)[:2]], offset, 0))),
    "gather_dref": lambda value, textures, ty, sampled, coordinate, reference, offsets, offset_operand: [
        textures.compare(value(reference), texel)
        for texel in footprint(textures.by_var[value(sampled)], value(coordinate), offsets)],
    "unorm16": lambda value, textures, depth: value(depth),
    "query_size": lambda value, textures, ty, image, lod, level: textures.by_var[value(image)].query_size(level),
    "query_levels": lambda value, textures, ty, image: textures.by_var[value(image)].levels,
    "storage_size": lambda value, textures, ty, image: [
        textures.storage[value(image)].width, textures.storage[value(image)].height],
}

# The models of reads and writes of storage images: (value of a name, the textures, the images'
# contents now, operands...) -> the result.
STORAGE_IMAGE_MODELS = {
    "image_read": lambda value, textures, images, ty, image, coordinate, operands: textures.storage[
        value(image)].read(images[value(image)], *value(coordinate)),
    "image_write": lambda value, textures, images, image, coordinate, texel: textures.storage[value(image)].write(
        images[value(image)], *value(coordinate), value(texel)),
}


def image_operands(*clauses):
    """The image operands of clauses such as `Lod X`, `Grad DX DY`, `ConstOffset C` and
    `ZeroExtend`, in the order of their bits, several in one string separated by `;`, empty
    ones left out."""
    clauses = [c for clause in clauses for c in clause.split(";") if c]
    kinds = [clause.split()[0] for clause in clauses]
    values = [v for clause in clauses for v in clause.split()[1:]]
    return " ".join(["|".join(kinds)] + values)


def cube_direction_instructions(r, x, y, face, shift, size, major, shift_name, scale_name, major_name,
                                major_axis_name):
    """s and t from -major to major ((x + shift) * 2 major / size - major, `scale_name` being 2 major
    / size), each negated or not and put in its place, the major axis `major_axis_name`."""
    lines, components = [], [major_axis_name] * 3
    for k, (c, (axis, sign)) in enumerate(zip((x, y), CUBE_FACES[face])):
        lines += [f"{r}_f{k} = OpConvertUToF %float {c}",
                  f"{r}_s{k} = OpFAdd %float {r}_f{k} {shift_name}",
                  f"{r}_m{k} = OpFMul %float {r}_s{k} {scale_name}",
                  f"{r}_c{k} = OpFSub %float {r}_m{k} {major_name}"]
        if sign < 0:
            lines.append(f"{r}_n{k} = OpFNegate %float {r}_c{k}")
        components[axis] = f"{r}_{'n' if sign < 0 else 'c'}{k}"
    return lines + [f"{r} = OpCompositeConstruct %v3float {' '.join(components)}"]


TEXTURE_INSTRUCTIONS = {
    "load_handle": lambda r, a: [f"{r} = OpLoad {a[0]} {a[1]}"],
    "image_of": lambda r, a: [f"{r} = OpImage {a[0]} {a[1]}"],
    "sampled_image": lambda r, a: [f"{r} = OpSampledImage {a[0]} {a[1]} {a[2]}"],
    # ((x - 2) + shift) / size, x an unsigned integer.
    "texcoord": lambda r, a: [
        f"{r}_i = OpBitcast %int {a[0]}",
        f"{r}_m = OpISub %int {r}_i %i_2",
        f"{r}_f = OpConvertSToF %float {r}_m",
        f"{r}_s = OpFAdd %float {r}_f {a[3]}",
        f"{r} = OpFMul %float {r}_s {a[4]}",
    ],
    # The direction at ((x + shift) / size, (y + shift) / size) of a face, x and y unsigned.
    "cube_direction": lambda r, a: cube_direction_instructions(r, *a),
    # A 16-bit depth over 65535 back to the 16 bits.
    "unorm16": lambda r, a: [
        f"{r}_m = OpFMul %float {a[0]} %f_65535_0",
        f"{r}_r = OpExtInst %float %glsl RoundEven {r}_m",
        f"{r} = OpConvertFToU %uint {r}_r",
    ],
    # A byte over 255 back to the byte.
    "unorm": lambda r, a: [
        f"{r}_m = OpFMul %float {a[0]} %f_255_0",
        f"{r}_r = OpExtInst %float %glsl RoundEven {r}_m",
        f"{r} = OpConvertFToU %uint {r}_r",
    ],
    "fetch": lambda r, a: [f"{r} = OpImageFetch {a[0]} {a[1]} {a[2]} {image_operands(a[3], a[5])}"],
    "sample": lambda r, a: [f"{r} = OpImageSampleExplicitLod {a[0]} {a[1]} {a[2]} {image_operands(a[3], a[5])}"],
    "sample_proj": lambda r, a: [
        f"{r} = OpImageSampleProjExplicitLod {a[0]} {a[1]} {a[2]} {image_operands(a[3], a[5])}"],
    # (u, v) times q, then q.
    "projective": lambda r, a: [
        f"{r}_s = OpVectorTimesScalar %v2float {a[0]} {a[1]}",
        f"{r} = OpCompositeConstruct %v3float {r}_s {a[1]}",
    ],
    "gather": lambda r, a: [f"{r} = OpImageGather {a[0]} {a[1]} {a[2]} {a[3]} {a[6]}".rstrip()],
    "sample_dref": lambda r, a: [
        f"{r} = OpImageSampleDrefExplicitLod {a[0]} {a[1]} {a[2]} {a[3]} {image_operands('Lod %f_0_0', a[5])}"],
    "sample_proj_dref": lambda r, a: [
        f"{r} = OpImageSampleProjDrefExplicitLod {a[0]} {a[1]} {a[2]} {a[3]} {image_operands('Lod %f_0_0', a[5])}"],
    "gather_dref": lambda r, a: [f"{r} = OpImageDrefGather {a[0]} {a[1]} {a[2]} {a[3]} {a[5]}".rstrip()],
    "query_size": lambda r, a: [f"{r} = OpImageQuerySizeLod {a[0]} {a[1]} {a[2]}"],
    "query_levels": lambda r, a: [f"{r} = OpImageQueryLevels {a[0]} {a[1]}"],
    "storage_size": lambda r, a: [f"{r} = OpImageQuerySize {a[0]} {a[1]}"],
    "image_read": lambda r, a: [f"{r} = OpImageRead {a[0]} {a[1]} {a[2]} {image_operands(a[3])}".rstrip()],
    "image_write": lambda r, a: [f"OpImageWrite {a[0]} {a[1]} {a[2]}"],
}
