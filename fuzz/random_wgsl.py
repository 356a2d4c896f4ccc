#!/usr/bin/env python3
"""Writes random WGSL compute shaders for the reverse-path differential test
(fuzz/differential_wgsl.sh).

    random_wgsl.py FIRST_SEED COUNT DIR

Each program (DIR/wgsl_SEED.wgsl, with its `// exec:` lines) reads a storage buffer and a
uniform buffer and writes integers to one storage buffer and floats to another. The execution
tests run it three ways on one device: as WGSL through wgpu, as our SPIR-V for it through Vulkan,
and as our forward path's WGSL for that SPIR-V through wgpu; all three must agree.

The programs compute on u32 and i32 values (wrapping arithmetic, shifts by masked amounts,
division and remainder with WGSL's defined results) and a few f32 values built exactly from
integers; literals and overrides pass through a zero the compiler cannot see, so that no
expression is a constant one (whose overflow WGSL rejects). They mix what the reverse path rewrites: overrides set by the pipeline, left at their
defaults and computed from others (in expressions and a workgroup size); pointer arguments to
function and private variables; workgroup memory with
atomics inside structs and arrays; frexp and modf results; structs and arrays in uniform and
storage buffers. Half the programs also read textures of one to three mip levels (`textureLoad`,
`textureDimensions`, `textureNumLevels`, `textureSampleLevel` and `textureGather` with a nearest
sampler, at levels of detail and coordinates away from where rounding decides) and read and write a
storage texture, a column per invocation; and a depth texture (compared at level 0 with a
comparison sampler of any comparison, sampled, gathered, loaded), an array texture (texels of
a layer, samples and gathers at a layer, sizes and the layer count) and a cube or an array of
cubes (samples at a level and gathers at directions toward any face, away from where rounding
decides, sizes, level and layer counts). Half the programs enable subgroups and start with
subgroup builtins, where the workgroup's four invocations are all active. The same seed always
writes the same program.

Pointer arguments into part of a variable (`f(&s.member)`), which our SPIR-V passes through a
copy, are left out: naga's SPIR-V writer in wgpu panics on them, so the WGSL could not run.
fixtures/exec/compute/reverse_pointer_arguments.wgsl tests them against results worked out by hand.
"""
import random
import sys

from spirv_textures import COMPARISONS, MipChain, cube_direction_text, level_of_detail, normalized_coordinates

MAX_DEPTH = 3
OUTPUTS = 8  # integer results per invocation
INVOCATIONS = 8  # two workgroups of four


class Program:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.seed = seed
        self.loop_depth = 0
        # Half the programs read textures; drawn apart, so the others are what their seeds gave.
        textures = random.Random(f"textures {seed}")
        self.textures = textures.random() < 0.5
        self.words, self.colours = MipChain(textures), MipChain(textures)
        self.marks_height = textures.randint(1, 4)  # the storage texture's rows
        # A depth texture with a comparison sampler of any comparison, and an array texture.
        self.depths, self.layered = MipChain(textures), MipChain(textures)
        self.comparison = textures.choice(sorted(COMPARISONS))
        self.layers = textures.randint(2, 3)
        # A cube, or in half the programs an array of two cubes.
        self.cube = MipChain(textures).square()
        self.cube_array = textures.random() < 0.5
        # Half the programs start with subgroup operations; drawn apart too.
        self.subgroups = random.Random(f"subgroups {seed}").random() < 0.5

    # Expressions -------------------------------------------------------------------------

    def u(self, depth=0):
        """A u32 expression."""
        r = self.r
        if depth >= MAX_DEPTH:
            return r.choice(["a", "b", "i", f"({r.randrange(1000)}u + z)", "(width + z)", "input[i]", "params.v0.y"])
        d = depth + 1
        kind = r.randrange(17 + self.textures)
        if kind == 17:
            return self.texture(d)
        if kind == 0:
            return f"({r.randrange(0, 1 << 32)}u + z)"
        if kind == 1:
            return r.choice(["a", "b", "(width + z)", "cells_total"])
        if kind == 2:
            return f"({self.u(d)} {r.choice(['+', '-', '*', '^', '&', '|'])} {self.u(d)})"
        if kind == 3:
            return f"({self.u(d)} {r.choice(['<<', '>>'])} ({self.u(d)} & 31u))"
        if kind == 4:
            return f"({self.u(d)} {r.choice(['/', '%'])} {self.u(d)})"
        if kind == 5:
            return f"select({self.u(d)}, {self.u(d)}, {self.cond(d)})"
        if kind == 6:
            return f"u32({self.i(d)})"
        if kind == 7:
            return f"bitcast<u32>({self.i(d)})"
        if kind == 8:
            return f"local.v.{r.choice('xyzw')}"
        if kind == 9:
            return f"local.items[{self.u(d)} & 3u]"
        if kind == 10:
            return f"input[{self.u(d)} & 63u]"
        if kind == 11:
            return f"params.v{r.randrange(2)}.{r.choice('xyzw')}" if r.random() < 0.7 else f"params.rows[{self.u(d)} & 1u].{r.choice('xy')}"
        if kind == 12:
            fn = r.choice(["countOneBits", "reverseBits", "firstLeadingBit", "firstTrailingBit"])
            return f"{fn}({self.u(d)})"
        if kind == 13:
            offset = r.randrange(32)
            return f"extractBits({self.u(d)}, {offset}u, {r.randrange(0, 33 - offset)}u)"
        if kind == 14:
            return f"{r.choice(['min', 'max'])}({self.u(d)}, {self.u(d)})"
        if kind == 15:
            return f"helper(vec2u({self.u(d)}, {self.u(d)}), {self.i(d)})"
        return f"cells[i & 1u].items[{self.u(d)} & 3u]"

    def texture(self, d):
        """A u32 from a texture: a texel, a size, a level count, a sample or gather (of unorm
        bytes, as the bytes), or this invocation's texel of the storage texture."""
        r = self.r
        kind = r.randrange(8)
        if kind == 7:
            return self.cube_read(d)
        if kind == 5:
            return self.depth_read(d)
        if kind == 6:
            return self.array_read(d)
        if kind == 0:
            level = r.randrange(self.words.levels)
            width, height = self.words.size(level)
            coordinate = f"vec2u({self.u(d)} % {width}u, {self.u(d)} % {height}u)"
            return f"textureLoad(words, {coordinate}, {level}u + z).{r.choice('xw')}"
        if kind == 1:
            texture = r.choice(["words", "colours"])
            levels = (self.words if texture == "words" else self.colours).levels
            if r.random() < 0.3:
                return f"textureNumLevels({texture})"
            return f"textureDimensions({texture}, {r.randrange(levels)}u + z).{r.choice('xy')}"
        if kind == 2:
            level = r.randrange(self.colours.levels)
            lod = level_of_detail(r, level)
            uv = self.coordinates(self.colours.size(level), r.choice([0.25, 0.5, 0.75]), 4, d)
            sample = f"textureSampleLevel(colours, nearest, {uv}, {lod})"
            return f"u32(round({sample}.{r.choice('xyzw')} * 255.0))"
        if kind == 3:
            uv = self.coordinates(self.colours.size(0), 1.0, 3, d)
            gather = f"textureGather({r.randrange(4)}, colours, nearest, {uv})"
            return f"u32(round({gather}.{r.choice('xyzw')} * 255.0))"
        return f"textureLoad(marks, vec2u(i, {self.u(d)} % {self.marks_height}u)).x"

    def depth_read(self, d):
        """A u32 from the depth texture: a comparison at level 0 (sampled, maybe with an offset,
        or gathered), or a depth (loaded, sampled at a level, gathered) as its 16 bits."""
        r = self.r
        kind = r.randrange(5)
        reference = r.choice(["-0.5", "0.0", "0.25", "0.5", "0.75", "1.0", "1.5"])
        if kind in (0, 1):
            uv = self.coordinates(self.depths.size(0), r.choice([0.25, 0.5, 0.75]), 4, d)
            offset = f", vec2i({r.randint(-2, 2)}, {r.randint(-2, 2)})" if kind == 1 else ""
            return f"u32(textureSampleCompareLevel(depths, compare, {uv}, {reference}{offset}))"
        if kind == 2:
            uv = self.coordinates(self.depths.size(0), 1.0, 3, d)
            return f"u32(textureGatherCompare(depths, compare, {uv}, {reference}).{r.choice('xyzw')})"
        level = r.randrange(self.depths.levels)
        if kind == 3:
            width, height = self.depths.size(level)
            depth = f"textureLoad(depths, vec2u({self.u(d)} % {width}u, {self.u(d)} % {height}u), {level}u + z)"
        elif r.random() < 0.5:
            uv = self.coordinates(self.depths.size(level), r.choice([0.25, 0.5, 0.75]), 4, d)
            depth = f"textureSampleLevel(depths, nearest, {uv}, {level}u + z)"
        else:
            uv = self.coordinates(self.depths.size(0), 1.0, 3, d)
            depth = f"textureGather(depths, nearest, {uv}).{r.choice('xyzw')}"
        return f"u32(round({depth} * 65535.0))"

    def array_read(self, d):
        """A u32 from the array texture: a texel of a layer, a sample or gather at a layer, the
        size or the layer count."""
        r = self.r
        kind = r.randrange(4)
        layer = f"({self.u(d)} % {self.layers + 1}u)"  # one past the last: clamped when sampling
        if kind == 0:
            level = r.randrange(self.layered.levels)
            width, height = self.layered.size(level)
            at = f"vec2u({self.u(d)} % {width}u, {self.u(d)} % {height}u)"
            texel = f"textureLoad(layered, {at}, {self.u(d)} % {self.layers}u, {level}u + z)"
        elif kind == 1:
            level = r.randrange(self.layered.levels)
            lod = level_of_detail(r, level)
            uv = self.coordinates(self.layered.size(level), r.choice([0.25, 0.5, 0.75]), 4, d)
            texel = f"textureSampleLevel(layered, nearest, {uv}, {layer}, {lod})"
        elif kind == 2:
            uv = self.coordinates(self.layered.size(0), 1.0, 3, d)
            texel = f"textureGather({r.randrange(4)}, layered, nearest, {uv}, {layer})"
        else:
            if r.random() < 0.3:
                return "textureNumLayers(layered)"
            return f"textureDimensions(layered, {r.randrange(self.layered.levels)}u + z).{r.choice('xy')}"
        return f"u32(round({texel}.{r.choice('xyzw')} * 255.0))"

    def cube_read(self, d):
        """A u32 from the cube (or array of cubes): a sample at a level or a gather, at a
        direction toward any face a quarter, half or three quarters into a texel (gathers:
        between four texel centres, the footprint on the face), the size, level or layer count."""
        r = self.r
        kind = r.randrange(3)
        layer = f", {self.u(d)} % 3u" if self.cube_array else ""  # one past the last: clamped
        if kind == 0:
            level = r.randrange(self.cube.levels)
            direction = self.cube_direction(self.cube.size(level)[0], False, d)
            texel = f"textureSampleLevel(cube, nearest, {direction}{layer}, {level_of_detail(r, level)})"
        elif kind == 1:
            direction = self.cube_direction(self.cube.width, True, d)
            texel = f"textureGather({r.randrange(4)}, cube, nearest, {direction}{layer})"
        else:
            if self.cube_array and r.random() < 0.3:
                return "textureNumLayers(cube)"
            if r.random() < 0.3:
                return "textureNumLevels(cube)"
            return f"textureDimensions(cube, {r.randrange(self.cube.levels)}u + z).{r.choice('xy')}"
        return f"u32(round({texel}.{r.choice('xyzw')} * 255.0))"

    def cube_direction(self, size, gather, d):
        return cube_direction_text(self.r, lambda: self.u(d), size, gather, "f32", "vec3f")

    def subgroup_operation(self):
        """A u32 from a subgroup builtin at the start of `main`, where every invocation of the
        workgroup (four, one quad) is active: reductions and scans on u32, i32 and exactly
        representable f32 values and vectors, ballots, votes, broadcasts, shuffles among the
        four lanes, quad operations. The three runs on one device agree whatever its subgroup
        size."""
        r = self.r
        operand = lambda: r.choice(["a", "b", "i", "lid", "local.v.y", "(a ^ b)", "input[lid * 5u]"])
        kind = r.randrange(6)
        if kind <= 1:
            op = r.choice(["Add", "Mul", "Min", "Max", "And", "Or", "Xor", "InclusiveAdd", "ExclusiveAdd",
                           "InclusiveMul", "ExclusiveMul"])
            ty = r.choice(["u32", "i32"] if op in ("And", "Or", "Xor") else ["u32", "i32", "f32"])
            width = r.choice([1, 1, 2, 4])

            def lane_value():
                # Products of lanes that are odd, 1 or -1, floats small integers: exact, in any order.
                if "Mul" in op:
                    return {"u32": f"({operand()} | 1u)", "i32": f"(i32({operand()} % 3u) - 1)",
                            "f32": f"f32(i32({operand()} % 3u) - 1)"}[ty]
                return {"u32": operand(), "i32": f"(bitcast<i32>({operand()}) - {r.randrange(1 << 30)})",
                        "f32": f"f32(i32({operand()} % 9u) - 4)"}[ty]
            value = lane_value() if width == 1 else f"vec{width}<{ty}>({', '.join(lane_value() for _ in range(width))})"
            call = f"subgroup{op}({value})" + (f".{'xyzw'[r.randrange(width)]}" if width > 1 else "")
            return {"u32": call, "i32": f"bitcast<u32>({call})", "f32": f"bitcast<u32>(i32({call}))"}[ty]
        if kind == 2:
            ballot = f"subgroupBallot(({operand()} & {r.randrange(1, 16)}u) == {r.randrange(4)}u)"
            return f"{ballot}.x"
        if kind == 3:
            condition = f"({operand()} & {r.randrange(1, 16)}u) == {r.randrange(4)}u"
            return f"select(0u, 1u, {r.choice(['subgroupAll', 'subgroupAny'])}({condition}))"
        if kind == 4:
            x = operand()
            return r.choice([f"subgroupBroadcast({x}, {r.randrange(4)}u)", f"subgroupBroadcastFirst({x})",
                             f"subgroupShuffle({x}, lid ^ {r.randrange(4)}u)", f"subgroupShuffleXor({x}, {r.randrange(4)}u)"])
        x = operand()
        return r.choice([f"quadBroadcast({x}, {r.randrange(4)}u)", f"quadSwapX({x})", f"quadSwapY({x})",
                         f"quadSwapDiagonal({x})"])

    def coordinates(self, size, shift, beyond, d):
        return normalized_coordinates(lambda: self.u(d), size, shift, beyond, "vec2u", "vec2f")

    def i(self, depth=0):
        """An i32 expression."""
        r = self.r
        if depth >= MAX_DEPTH:
            return r.choice(["c", "(offset + zi)", f"({r.randrange(-500, 500)}i + zi)", "params.v2.x"])
        d = depth + 1
        kind = r.randrange(9)
        if kind == 0:
            return f"({r.randrange(-(1 << 31) + 1, 1 << 31)}i + zi)"
        if kind == 1:
            return r.choice(["c", "(offset + zi)", "(signed_width + zi)"])
        if kind == 2:
            return f"({self.i(d)} {r.choice(['+', '-', '*', '^', '&', '|'])} {self.i(d)})"
        if kind == 3:
            return f"({self.i(d)} {r.choice(['/', '%'])} {self.i(d)})"
        if kind == 4:
            return f"i32({self.u(d)})"
        if kind == 5:
            return f"{r.choice(['abs', 'sign'])}({self.i(d)})"
        if kind == 6:
            return f"({self.i(d)} >> ({self.u(d)} & 31u))"
        if kind == 7:
            return f"frexp(f32({self.u(d)} & 0xFFFFu) + 0.75).exp"
        return f"-({self.i(d)})"

    def f(self, depth=0):
        """An f32 expression built exactly from integers (no rounding that could differ)."""
        r = self.r
        if depth >= 2:
            return f"f32({self.u(MAX_DEPTH)} & 0xFFFu)"
        d = depth + 1
        kind = r.randrange(6)
        if kind == 0:
            return f"({self.f(d)} {r.choice(['+', '-'])} {self.f(d)})"
        if kind == 1:
            return f"({self.f(d)} * 0.5)"
        if kind == 2:
            return f"{r.choice(['min', 'max'])}({self.f(d)}, {self.f(d)})"
        if kind == 3:
            return f"modf({self.f(d)} * 0.25).fract"
        if kind == 4:
            return f"frexp({self.f(d)} + 1.0).fract"
        return f"select({self.f(d)}, {self.f(d)}, {self.cond(d)})"

    def cond(self, depth=0):
        r = self.r
        if depth >= MAX_DEPTH or r.random() < 0.6:
            if r.random() < 0.3:
                return f"{self.i(depth + 1)} {r.choice(['<', '>=', '=='])} {self.i(depth + 1)}"
            return f"{self.u(depth + 1)} {r.choice(['<', '>', '==', '!=', '<=', '>='])} {self.u(depth + 1)}"
        if r.random() < 0.2:
            return "enabled"
        return f"({self.cond(depth + 1)} {r.choice(['&&', '||'])} {self.cond(depth + 1)})"

    # Statements --------------------------------------------------------------------------

    def statements(self, count, indent, depth):
        return "".join(self.statement(indent, depth) for _ in range(count))

    def statement(self, indent, depth):
        r = self.r
        pad = "    " * indent
        kinds = 13 if depth < 2 else 8
        kind = r.randrange(kinds + self.textures)
        if kind == kinds:
            return f"{pad}textureStore(marks, vec2u(i, {self.u(1)} % {self.marks_height}u), vec4u({self.u(1)}));\n"
        if kind == 0:
            return f"{pad}a = {self.u()};\n"
        if kind == 1:
            return f"{pad}b = {self.u()};\n"
        if kind == 2:
            return f"{pad}c = {self.i()};\n"
        if kind == 3:
            return f"{pad}local.items[{self.u(1)} & 3u] = {self.u(1)};\n"
        if kind == 4:
            return f"{pad}a = a ^ bump(&lv, {self.u(1)});\n"
        if kind == 5:
            return f"{pad}scatter(&pitems, {self.u(1)});\n"
        if kind == 6:
            return f"{pad}atomicAdd(&tally.bins[{self.u(1)} & 3u].hits, {self.u(1)} & 15u);\n"
        if kind == 7:
            return f"{pad}local.w = vec4u({self.u(1)}, b, a, {self.u(1)});\n"
        if kind == 8:
            return (f"{pad}if {self.cond()} {{\n{self.statements(r.randrange(1, 3), indent + 1, depth + 1)}"
                    f"{pad}}} else {{\n{self.statements(r.randrange(0, 3), indent + 1, depth + 1)}{pad}}}\n")
        if kind == 9 and self.loop_depth < 2:
            self.loop_depth += 1
            var = f"j{self.loop_depth}"
            body = self.statements(r.randrange(1, 3), indent + 1, depth + 1)
            exit_ = ""
            if r.random() < 0.5:
                exit_ = f"{pad}    if {self.cond(1)} {{ {r.choice(['break', 'continue'])}; }}\n"
            self.loop_depth -= 1
            return (f"{pad}for (var {var} = 0u; {var} < {r.randrange(1, 5)}u; {var}++) {{\n{exit_}{body}"
                    f"{pad}    b += {var};\n{pad}}}\n")
        if kind == 10:
            cases = ""
            values = r.sample(range(6), 3)
            for value in values[:2]:
                cases += f"{pad}    case {value}u: {{\n{self.statements(1, indent + 2, depth + 1)}{pad}    }}\n"
            cases += f"{pad}    case {values[2]}u, default: {{\n{self.statements(1, indent + 2, depth + 1)}{pad}    }}\n"
            return f"{pad}switch {self.u(1)} % 6u {{\n{cases}{pad}}}\n"
        return f"{pad}c += i32({self.u(1)} % 7u) - {self.i(2)};\n"

    # The program -------------------------------------------------------------------------

    def write(self):
        r = self.r
        enabled = r.randrange(2)
        header = [
            f"// Random WGSL program, seed {self.seed} (fuzz/random_wgsl.py).",
            f"// exec: dispatch {INVOCATIONS // 4} 1 1",
            "// exec: storage 0: random*64",
            f"// exec: storage 1: 0*{INVOCATIONS * OUTPUTS}",
            f"// exec: storage 3: 0*{INVOCATIONS}",
            "// exec: uniform 2: random*20",
            "// exec: spec 1 2",
            f"// exec: spec 2 {enabled}",
        ]
        textures, uses = "", ""
        if self.textures:
            words, colours, rows = self.words, self.colours, self.marks_height
            header += [
                f"// exec: texture 4 {words.width}x{words.height} r32uint levels {words.levels}: "
                f"random*{words.texel_count()}",
                f"// exec: texture 5 {colours.width}x{colours.height} rgba8unorm levels {colours.levels}: "
                f"random*{colours.texel_count()}",
                "// exec: sampler 6 nearest",
                f"// exec: storage-image 7 {INVOCATIONS}x{rows} r32uint: random*{INVOCATIONS * rows}",
                f"// exec: texture 8 {self.depths.width}x{self.depths.height} depth16unorm levels "
                f"{self.depths.levels}: random*{self.depths.texel_count()}",
                f"// exec: sampler 9 nearest compare {self.comparison}",
                f"// exec: texture 10 {self.layered.width}x{self.layered.height} rgba8unorm levels "
                f"{self.layered.levels} layers {self.layers}: random*{self.layered.texel_count() * self.layers}",
                f"// exec: texture 11 {self.cube.width}x{self.cube.height} rgba8unorm levels {self.cube.levels}"
                + (" layers 12" if self.cube_array else "")
                + f" cube: random*{self.cube.texel_count() * (12 if self.cube_array else 6)}",
            ]
            textures = f"""
@group(0) @binding(4) var words: texture_2d<u32>;
@group(0) @binding(5) var colours: texture_2d<f32>;
@group(0) @binding(6) var nearest: sampler;
@group(0) @binding(7) var marks: texture_storage_2d<r32uint, read_write>;
@group(0) @binding(8) var depths: texture_depth_2d;
@group(0) @binding(9) var compare: sampler_comparison;
@group(0) @binding(10) var layered: texture_2d_array<f32>;
@group(0) @binding(11) var cube: texture_cube{"_array" if self.cube_array else ""}<f32>;
"""
            # Every binding used (wgpu rejects a bind group entry the shader does not use).
            uses = ("    out[base + 3u] ^= textureLoad(words, vec2u(0u), 0).x ^ textureLoad(marks, vec2u(i, 0u)).x ^ "
                    "u32(round(textureSampleLevel(colours, nearest, vec2f(0.5), 0.0).y * 255.0)) ^ "
                    "u32(textureSampleCompareLevel(depths, compare, vec2f(0.5), 0.5)) ^ textureNumLayers(layered) ^ "
                    "textureNumLevels(cube);\n"
                    "    textureStore(marks, vec2u(i, 0u), vec4u(a ^ b));\n")
        body = self.statements(r.randrange(4, 9), 1, 0)
        subgroups = "".join(f"    {r.choice('ab')} ^= {self.subgroup_operation()};\n"
                            for _ in range(r.randint(2, 5) if self.subgroups else 0))
        result = [f"out[base + {k}u] = {self.u(1)};" for k in range(4)]
        enable = "enable subgroups;\n" if self.subgroups else ""
        return "\n".join(header) + f"""
{enable}
// The spec line sets width to 2: a workgroup of four.
@id(1) override width: u32 = 4u;
@id(2) override enabled: bool = true;
override offset: i32 = {r.randrange(-100, 100)};
override signed_width = i32(width) * 3 - offset;
override group_size = width * 2u;

struct Local {{ v: vec4u, items: array<u32, 4>, w: vec4u }}
struct Cell {{ items: array<u32, 4>, total: u32 }}
struct Bin {{ weight: u32, hits: atomic<u32> }}
struct Tally {{ count: atomic<u32>, bins: array<Bin, 4> }}
struct Params {{ v0: vec4u, v1: vec4u, v2: vec4i, rows: array<vec4u, 2> }}

@group(0) @binding(0) var<storage, read> input: array<u32, 64>;
@group(0) @binding(1) var<storage, read_write> out: array<u32, {INVOCATIONS * OUTPUTS}>;
@group(0) @binding(2) var<uniform> params: Params;
@group(0) @binding(3) var<storage, read_write> floats: array<f32, {INVOCATIONS}>;
{textures}
var<private> cells: array<Cell, 2>;
var<private> cells_total: u32;
var<private> pitems: array<u32, 4>;
var<workgroup> tally: Tally;

fn bump(p: ptr<function, vec4u>, by: u32) -> u32 {{
    (*p).x += by;
    (*p).z ^= (*p).y;
    return (*p).w + by;
}}

fn scatter(p: ptr<private, array<u32, 4>>, value: u32) {{
    (*p)[value & 3u] = (*p)[(value >> 2u) & 3u] + value;
    cells_total += value;
    cells[value & 1u].items[(value >> 1u) & 3u] ^= value;
}}

fn helper(v: vec2u, s: i32) -> u32 {{
    if s < 0 {{
        return v.x - u32(-s);
    }}
    return (v.y << (u32(s) & 7u)) ^ v.x;
}}

@compute @workgroup_size(group_size)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(local_invocation_index) lid: u32) {{
    let i = gid.x;
    var a = input[i];
    var b = input[(i * 7u + 3u) & 63u];
    var c = i32(params.v0.x ^ i);
    // Zeros the compiler cannot see: literals and overrides go through them, so that no
    // expression is a constant one (whose overflow or division by zero WGSL rejects).
    let z = input[0] & 0u;
    let zi = i32(z);
    var local = Local(vec4u(a, b, i, 5u), array<u32, 4>(1u, 2u, 3u, 4u), vec4u(params.v1));
    var lv = vec4u(b, a, 3u, i);
    atomicAdd(&tally.count, 1u);
{subgroups}{body}    workgroupBarrier();
    let base = i * {OUTPUTS}u;
    out[base + 4u] = atomicLoad(&tally.count) + atomicLoad(&tally.bins[a & 3u].hits) + tally.bins[b & 3u].weight;
    out[base + 5u] = local.v.x ^ local.v.z ^ local.items[a & 3u] ^ local.w.y ^ lv.x ^ lv.z ^ pitems[b & 3u];
    out[base + 6u] = cells[0].items[b & 3u] + cells[1].items[2] + cells_total + cells[i & 1u].total;
    out[base + 7u] = bitcast<u32>(c) + u32(signed_width) + select(0u, 1u, enabled);
    {" ".join(result)}
{uses}    floats[i] = {self.f()} + f32(i) + 0.5;
}}
"""


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    first, count, directory = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    for seed in range(first, first + count):
        with open(f"{directory}/wgsl_{seed}.wgsl", "w") as f:
            f.write(Program(seed).write())


if __name__ == "__main__":
    main()
