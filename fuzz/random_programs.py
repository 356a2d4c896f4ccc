#!/usr/bin/env python3
"""Writes random GLSL compute shaders for the differential test (fuzz/differential.sh).

    random_programs.py FIRST_SEED COUNT DIR [compute|fragment|vertex]

A compute program (NAME.comp) writes its results to a storage buffer. A fragment program
(NAME.frag, with NAME.vert drawing one triangle over a 16x8 integer target) writes them to its
colour target, and may also `discard`. A vertex program (NAME.vert, drawing three triangles,
with NAME.frag writing what it receives) passes them as flat outputs.

Each program works on unsigned vectors, so SPIR-V and WGSL must agree bit for bit: wrapping
arithmetic, shifts by constants under 32, remainders by odd numbers, signed arithmetic through
int() (a bitcast in GLSL) and bit builtins with fields in range. It mixes what the translator
rewrites: vectors built from scalars, splats and swizzles, components gathered from one vector,
helper calls whose result is stored at once, calls that change a global read in the same
expression, `inout` arguments (components among them), early returns from helpers and from
`main`, loops with `break` and `continue`, switches with fall-through, dynamic indices into a
local array and a struct, conditions joined by && and || (whose right-hand sides may call a
function that changes a global). Half the programs also read textures: combined image
samplers and a texture with a separate sampler, of one to three mip levels, by texelFetch,
textureSize, textureQueryLevels, textureLod and textureGather (nearest sampling, coordinates and
levels of detail away from where rounding decides), directly and through helpers taking the
combined samplers as parameters (which glslang passes as pointers); a shadow sampler (depth
comparisons at level 0, sampled, with offsets, implicitly in fragment shaders, and gathered) and
an array texture (texels of a layer, samples and gathers at float layers, rounded and clamped,
its size with the layer count); a cube or an array of cubes (samples at a level and gathers at
directions toward any face, away from where rounding decides, its size and level count). Half
the compute programs start with subgroup operations, where every invocation is active: the
Vulkan and WGSL runs on one device then agree whatever its subgroup size. The same seed always
writes the same program.
"""
import random
import sys

from spirv_textures import COMPARISONS, MipChain, cube_direction_text, level_of_detail, normalized_coordinates

MAX_DEPTH = 3


class Program:
    def __init__(self, seed, stage):
        self.r = random.Random(seed)
        self.seed = seed
        self.stage = stage
        # Half the programs read textures; drawn apart, so the others are what their seeds gave.
        textures = random.Random(f"textures {seed}")
        self.textures = textures.random() < 0.5
        # usampler2D words (binding 2), sampler2D colours (3), utexture2D plain (4) with sampler
        # nearest (5).
        self.words, self.colours, self.plain = (MipChain(textures) for _ in range(3))
        # sampler2DShadow shadow (6): depth16unorm, one level, comparing with any comparison;
        # sampler2DArray layered (7): rgba8unorm, 2 or 3 layers.
        self.shadow, self.layered = MipChain(textures), MipChain(textures)
        self.shadow.levels = 1
        self.comparison = textures.choice(sorted(COMPARISONS))
        self.layers = textures.randint(2, 3)
        # samplerCube cube (8): rgba8unorm; in half the programs a samplerCubeArray of two cubes.
        self.cube = MipChain(textures).square()
        self.cube_array = textures.random() < 0.5
        # Half the compute programs start with subgroup operations; drawn apart too.
        self.subgroups = stage == "compute" and random.Random(f"subgroups {seed}").random() < 0.5

    def texture(self, depth):
        """A uint read from a texture: a texel, a size, a level count, a sample or gather of unorm
        bytes (as the bytes), directly or through a helper."""
        r = self.r
        kind = r.randrange(9)
        if kind == 8:
            return self.cube_read(depth)
        if kind == 6:
            return self.depth_comparison(depth)
        if kind == 7:
            return self.array_read(depth)
        if kind in (0, 1):
            name, texture = r.choice([("words", self.words), ("usampler2D(plain, nearest)", self.plain)])
            level = r.randrange(texture.levels)
            width, height = texture.size(level)
            # glslang (11.11) puts a sampler constructor's OpSampledImage in the block it starts
            # in, which a ?: or && in the coordinates would leave (invalid SPIR-V): variables only.
            x, y = (r.choice("abc") for _ in range(2)) if name != "words" else (self.scalar(depth), self.scalar(depth))
            at = f"uvec2({x}, {y}) % uvec2({width}u, {height}u)"
            if kind == 1 and name == "words":
                return f"fetched(words, {at}, {level})"
            return f"texelFetch({name}, ivec2({at}), {level}).{r.choice('xw')}"
        if kind == 2:
            name, texture = r.choice([("words", self.words), ("colours", self.colours)])
            if r.random() < 0.3:
                return f"uint(textureQueryLevels({name}))"
            return f"uint(textureSize({name}, {r.randrange(texture.levels)}).{r.choice('xy')})"
        if kind in (3, 4):
            level = r.randrange(self.colours.levels)
            lod = level_of_detail(r, level)
            uv = self.coordinates(self.colours.size(level), r.choice([0.25, 0.5, 0.75]), 4, depth)
            if kind == 4:
                return f"sampled(colours, {uv}, {lod}, {r.randrange(4)})"
            return f"uint(round(textureLod(colours, {uv}, {lod}).{r.choice('xyzw')} * 255.0))"
        uv = self.coordinates(self.colours.size(0), 1.0, 3, depth)
        return f"uint(round(textureGather(colours, {uv}, {r.randrange(4)}).{r.choice('xyzw')} * 255.0))"

    def depth_comparison(self, depth):
        """A comparison with the shadow sampler at level 0 (WGSL compares at no other): sampled,
        maybe with an offset, implicitly in fragment shaders, or gathered."""
        r = self.r
        shift = r.choice([0.25, 0.5, 0.75])
        uv = self.coordinates(self.shadow.size(0), shift, 4, depth)
        reference = r.choice([-0.5, 0.0, 0.25, 0.5, 0.75, 1.0, 1.5])
        if r.random() < 0.3:
            return f"uint(textureGather(shadow, {uv}, {reference}).{r.choice('xyzw')})"
        coordinate = f"vec3({uv}, {reference})"
        if self.stage == "fragment" and r.random() < 0.5:
            return f"uint(texture(shadow, {coordinate}))"
        if r.random() < 0.3:
            offset = f"ivec2({r.randint(-2, 2)}, {r.randint(-2, 2)})"
            return f"uint(textureLodOffset(shadow, {coordinate}, 0.0, {offset}))"
        return f"uint(textureLod(shadow, {coordinate}, 0.0))"

    def array_read(self, depth):
        """A read of the array texture: a texel of a layer, a sample at a float layer (rounded
        half to even and clamped), a gather, or its size with the layer count."""
        r = self.r
        texture = self.layered
        kind = r.randrange(4)
        if kind == 0:
            level = r.randrange(texture.levels)
            width, height = texture.size(level)
            x, y = self.scalar(depth), self.scalar(depth)
            at = f"ivec3(uvec3({x}, {y}, {self.scalar(depth)}) % uvec3({width}u, {height}u, {self.layers}u))"
            return f"uint(round(texelFetch(layered, {at}, {level}).{r.choice('xyzw')} * 255.0))"
        if kind == 3:
            return f"uint(textureSize(layered, {r.randrange(texture.levels)}).{r.choice('xyz')})"
        layer = r.choice([-1.0, -0.4, 0.0, 0.5, 1.0, 1.5, 1.6, 2.5, self.layers + 1.0])
        if kind == 1:
            level = r.randrange(texture.levels)
            lod = level_of_detail(r, level)
            uv = self.coordinates(texture.size(level), r.choice([0.25, 0.5, 0.75]), 4, depth)
            return f"uint(round(textureLod(layered, vec3({uv}, {layer}), {lod}).{r.choice('xyzw')} * 255.0))"
        uv = self.coordinates(texture.size(0), 1.0, 3, depth)
        return (f"uint(round(textureGather(layered, vec3({uv}, {layer}), {r.randrange(4)}).{r.choice('xyzw')}"
                " * 255.0))")

    def cube_read(self, depth):
        """A read of the cube (or array of cubes): a sample at a level or a gather at a direction
        toward any face (the layer of an array a float, rounded half to even and clamped), its
        size or level count."""
        r = self.r
        kind = r.randrange(3)
        if kind == 2:
            if r.random() < 0.3:
                return "uint(textureQueryLevels(cube))"
            return f"uint(textureSize(cube, {r.randrange(self.cube.levels)}).{r.choice('xyz' if self.cube_array else 'xy')})"
        level = r.randrange(self.cube.levels) if kind == 0 else 0
        size = self.cube.size(level)[0]
        direction = cube_direction_text(r, lambda: self.scalar(depth), size, kind == 1, "float", "vec3")
        if self.cube_array:
            direction = f"vec4({direction}, {r.choice([-1.0, -0.4, 0.0, 0.5, 1.0, 1.5, 1.6, 2.5, 3.0])})"
        if kind == 0:
            texel = f"textureLod(cube, {direction}, {level_of_detail(r, level)})"
        else:
            texel = f"textureGather(cube, {direction}, {r.randrange(4)})"
        return f"uint(round({texel}.{r.choice('xyzw')} * 255.0))"

    def subgroup_operation(self):
        """A uint from a subgroup operation at the start of `main`, where every invocation is
        active (so the Vulkan and WGSL runs on one device agree whatever its subgroup size):
        reductions and scans of every operation on uint, int (signed min/max) and float (exact)
        values and vectors of them, ballots and their counts, votes,
        broadcasts, shuffles (to lanes that exist: an out-of-range one's undefined value is
        multiplied by 0), quad operations, elect and the subgroup builtins."""
        r = self.r
        operand = lambda: r.choice(["a", "b", "c", "id", "v0.y", "v1.z", "(a ^ b)", "(c * 3u + id)", "arr[id & 3u]"])
        condition = lambda: f"(({operand()} & {r.randrange(1, 16)}u) == {r.randrange(4)}u)"
        lane = "gl_SubgroupInvocationID"
        kind = r.randrange(9)
        if kind <= 2:
            op = r.choice(["Add", "Mul", "Min", "Max", "And", "Or", "Xor"])
            # Not clustered: lavapipe (Mesa 22.3) reduces over the whole subgroup whatever the
            # cluster size (fixtures/exec/compute/subgroup_clustered.comp tests those).
            form = r.choice(["", "Inclusive", "Exclusive"])
            ty = r.choice(["uint", "int", "float"] if op in ("Add", "Mul", "Min", "Max") else ["uint", "int"])
            if ty == "float" and op in ("Min", "Max") and form == "Exclusive":
                form = "Inclusive"  # the first lane's is infinite, which has no int
            width = r.choice([1, 1, 2, 4])

            def lane_value():
                # Products of lanes that are 1, -1 or odd, floats small integers: exact, in any order.
                if op == "Mul":
                    return {"uint": f"({operand()} | 1u)", "int": f"(int({operand()} % 3u) - 1)",
                            "float": f"float(int({operand()} % 3u) - 1)"}[ty]
                return {"uint": operand(), "int": f"(int({operand()}) - {r.randrange(1 << 30)})",
                        "float": f"float(int({operand()} % 9u) - 4)"}[ty]
            value = lane_value()
            if width > 1:
                vector = {"uint": "uvec", "int": "ivec", "float": "vec"}[ty] + str(width)
                value = f"{vector}({', '.join(lane_value() for _ in range(width))})"
            call = f"subgroup{form}{op}({value})"
            if width > 1:
                call = f"{call}.{'xyzw'[r.randrange(width)]}"
            # A negative float has no uint (undefined in SPIR-V, 0 in WGSL): through int.
            return f"uint(int({call}))" if ty == "float" else f"uint({call})"
        if kind == 3:
            ballot = f"subgroupBallot({condition()})"
            if r.random() < 0.3:
                return f"uint(subgroupInverseBallot({ballot}))"
            fn = r.choice(["BitCount", "InclusiveBitCount", "ExclusiveBitCount", "FindLSB", "FindMSB", "BitExtract"])
            if fn == "BitExtract":
                return f"uint(subgroupBallotBitExtract({ballot}, {operand()} & 3u))"
            if fn in ("FindLSB", "FindMSB"):
                # Lane 0's bit set, so some bit is.
                ballot = f"subgroupBallot(bool(uint({condition()}) | uint({lane} == 0u)))"
            return f"subgroupBallot{fn}({ballot})"
        if kind == 4:
            vote = r.choice([f"subgroupAll({condition()})", f"subgroupAny({condition()})",
                             f"subgroupAllEqual({operand()} & {r.randrange(1, 4)}u)", "subgroupElect()"])
            return f"uint({vote})"
        if kind == 5:
            return r.choice([f"subgroupBroadcast({operand()}, {r.randrange(4)}u)", f"subgroupBroadcastFirst({operand()})",
                             "gl_SubgroupSize", lane, "gl_NumSubgroups", "gl_SubgroupID"])
        if kind == 6:
            k, x = r.randrange(4), operand()
            return r.choice([f"subgroupShuffle({x}, {lane} ^ {k}u)", f"subgroupShuffleXor({x}, {k}u)",
                             f"(subgroupShuffleUp({x}, {k}u) * uint({lane} >= {k}u))",
                             f"(subgroupShuffleDown({x}, {k}u) * uint({lane} + {k}u < gl_SubgroupSize))"])
        if kind == 7:
            x = operand()
            return r.choice([f"subgroupQuadBroadcast({x}, {r.randrange(4)}u)", f"subgroupQuadSwapHorizontal({x})",
                             f"subgroupQuadSwapVertical({x})", f"subgroupQuadSwapDiagonal({x})"])
        # A boolean one: broadcast, shuffled or reduced.
        b = condition()
        return r.choice([f"uint(subgroupBroadcastFirst({b}))", f"uint(subgroupShuffleXor({b}, 1u))",
                         f"uint(subgroupQuadSwapHorizontal({b}))"])

    def coordinates(self, size, shift, beyond, depth):
        return normalized_coordinates(lambda: self.scalar(depth), size, shift, beyond, "uvec2", "vec2")

    def scalar(self, depth=0):
        r = self.r
        kinds = 11 if depth < MAX_DEPTH else 3
        kind = r.randrange(kinds + self.textures)
        deeper = depth + 1
        if kind == kinds:
            return self.texture(deeper)
        if kind == 0:
            return f"{r.randrange(0, 1000)}u"
        if kind == 9:
            return f"uint({self.signed(deeper)})"
        if kind == 10:
            return self.bits(deeper)
        if kind in (1, 2):
            return r.choice(["a", "b", "c"])
        if kind == 3:
            return f"({self.scalar(deeper)} {r.choice(['+', '-', '*', '^', '&', '|'])} {self.scalar(deeper)})"
        if kind == 4:
            return f"({self.scalar(deeper)} >> {r.randrange(0, 31)}u)"
        if kind == 5:
            return f"{self.vector(r.choice([2, 3, 4]), deeper)}.{r.choice('xy')}"
        if kind == 6:
            return f"({self.condition(deeper)} ? {self.scalar(deeper)} : {self.scalar(deeper)})"
        if kind == 7:
            # g() changes v0: reads of v0 before and after it in one expression must keep their order.
            choice = r.randrange(3)
            if choice == 0:
                return f"(v0.{r.choice('xyzw')} + g({self.scalar(deeper)}))"
            if choice == 1:
                return f"(g({self.scalar(deeper)}) - v0.{r.choice('xyzw')})"
            return f"h{r.randrange(3)}({self.scalar(deeper)})"
        return f"(({self.scalar(deeper)}) % ({self.scalar(deeper)} | 1u))"

    def condition(self, depth=0):
        """A comparison, or comparisons joined by && and ||: their right-hand sides may call g(),
        which changes v0, so evaluating one that short-circuiting skips shows."""
        r = self.r
        compare = f"{self.scalar(depth + 1)} {r.choice(['>', '<', '==', '!=', '>=', '<='])} {self.scalar(depth + 1)}"
        if depth >= 2 or r.random() < 0.5:
            return compare
        return f"({compare} {r.choice(['&&', '||'])} {self.condition(depth + 1)})"

    def signed(self, depth):
        """A signed expression: int(x) is a bitcast in GLSL, so any uint converts exactly."""
        r = self.r
        x = f"int({self.scalar(depth + 1)})"
        y = f"int({self.scalar(depth + 1)})"
        kind = r.randrange(7)
        if kind == 0:
            return f"({x} {r.choice(['+', '-', '*', '&', '|', '^'])} {y})"
        if kind == 1:
            return f"({x} >> {r.randrange(0, 31)})"
        if kind == 2:
            return f"{r.choice(['min', 'max'])}({x}, {y})"
        if kind == 3:
            return f"({x} < {y} ? {x} : -{y})"
        if kind == 4:
            return f"findMSB({x})"
        if kind == 5:
            return f"ivec2({x}, {y}).{r.choice(['x', 'y'])}"
        return f"(-{x} + {r.randrange(-50, 50)})"

    def bits(self, depth):
        """Bit operations WGSL spells as builtins, with offsets and counts in range."""
        r = self.r
        x = self.scalar(depth + 1)
        offset = r.randrange(0, 32)
        count = r.randrange(0, 33 - offset)
        kind = r.randrange(5)
        if kind == 0:
            return f"bitfieldExtract({x}, {offset}, {count})"
        if kind == 1:
            return f"bitfieldInsert({x}, {self.scalar(depth + 1)}, {offset}, {count})"
        if kind == 2:
            return f"uint(bitCount({x}))"
        if kind == 3:
            return f"uint(findLSB({x}))"
        return f"bitfieldReverse({x})"

    def vector(self, n, depth=0):
        r = self.r
        kind = r.randrange(6 if depth < MAX_DEPTH else 2)
        deeper = depth + 1
        v = f"v{r.randrange(3)}"
        if kind == 0:
            return f"uvec{n}({self.scalar(deeper)})"
        if kind == 1:
            return f"uvec{n}({', '.join(self.scalar(deeper) for _ in range(n))})"
        if kind == 2:
            return f"{v}.{''.join(r.choice('xyzw') for _ in range(n))}"
        if kind == 3:
            if n == 4:
                return f"uvec4({v}.xyz, {self.scalar(deeper)})"
            if n == 3:
                return f"uvec3({v}.x, {v}.y, {self.scalar(deeper)})"
            return f"uvec2({v}.y, {v}.x)"
        if kind == 4:
            return f"({self.vector(n, deeper)} {r.choice(['+', '*', '^'])} {self.vector(n, deeper)})"
        return f"({self.vector(n, deeper)} + uvec{n}({self.scalar(deeper)}))"

    def statements(self, indent, depth, in_loop):
        r = self.r
        pad = "    " * indent
        lines = []
        for _ in range(r.randrange(2, 6)):
            kind = r.randrange(10)
            if kind <= 2:
                lines.append(f"{pad}{r.choice(['a', 'b', 'c'])} = {self.scalar()};")
            elif kind == 3:
                lines.append(f"{pad}v{r.randrange(3)} = {self.vector(4)};")
            elif kind == 4:
                target, source = r.choice([("x", "x"), ("w", "y"), ("yz", "xy"), ("zw", "yx")])
                lines.append(f"{pad}v{r.randrange(3)}.{target} = {self.vector(2)}.{source};")
            elif kind == 5 and depth < 2:
                i = f"i{indent}"
                lines.append(f"{pad}for (uint {i} = 0u; {i} < {r.randrange(1, 5)}u; {i}++) {{")
                if r.random() < 0.5:
                    lines.append(f"{pad}    if (({self.scalar()}) % 3u == 0u) {{ {r.choice(['break', 'continue'])}; }}")
                lines += self.statements(indent + 1, depth + 1, True)
                lines.append(f"{pad}    a = a + {i};")
                lines.append(f"{pad}}}")
            elif kind == 6 and depth < 2:
                lines.append(f"{pad}if ({self.condition()}) {{")
                lines += self.statements(indent + 1, depth + 1, in_loop)
                lines.append(f"{pad}}} else {{")
                lines += self.statements(indent + 1, depth + 1, in_loop)
                lines.append(f"{pad}}}")
            elif kind == 7 and depth < 2:
                lines.append(f"{pad}switch ({self.scalar()} % 4u) {{")
                for case in range(3):
                    lines.append(f"{pad}case {case}u:")
                    lines += self.statements(indent + 1, depth + 1, in_loop)
                    if r.random() < 0.8:
                        lines.append(f"{pad}    break;")
                lines.append(f"{pad}default:")
                lines += self.statements(indent + 1, depth + 1, in_loop)
                lines.append(f"{pad}    break;")
                lines.append(f"{pad}}}")
            elif kind == 8:
                lines.append(f"{pad}bump({r.choice(['b', 'v0.y', 'v1.w', 'a'])}, {self.scalar()});")
                if r.random() < 0.3:
                    lines.append(f"{pad}{r.choice(['a', 'b', 'c'])} = g({self.scalar()});")
                if r.random() < 0.15 and not in_loop:
                    if self.stage == "fragment" and r.random() < 0.5:
                        # Never for odd ids: every program must draw something.
                        leave = "if ((id & 1u) == 0u) { discard; }"
                    elif self.stage == "fragment":
                        leave = "result = uvec4(a, b, c, 7u); return;"
                    elif self.stage == "vertex":
                        leave = "value0 = uvec4(a, b, c, 7u); value1 = uvec4(id); return;"
                    else:
                        leave = "dst[id * 4u + 3u] = uvec4(a, b, c, 7u); return;"
                    lines.append(f"{pad}if (({self.scalar()} & 7u) == 3u) {{ {leave} }}")
            elif kind == 9 and r.random() < 0.5:
                # Dynamic indices into a local array and a struct, and a whole-struct copy.
                choice = r.randrange(4)
                if choice == 0:
                    lines.append(f"{pad}arr[{self.scalar()} & 3u] = {self.scalar()};")
                elif choice == 1:
                    lines.append(f"{pad}{r.choice(['a', 'b', 'c'])} = arr[{self.scalar()} & 3u] + s.q[{self.scalar()} & 1u];")
                elif choice == 2:
                    lines.append(f"{pad}s.q.{r.choice(['x', 'y'])} = arr[a & 3u]; s.p = {self.scalar()};")
                else:
                    lines.append(f"{pad}t = s; s.p = t.q.y ^ arr[b & 3u]; arr[c & 3u] = t.p;")
            else:
                lines.append(f"{pad}c = {self.vector(4)}.{r.choice('xyzw')} + h{r.randrange(3)}(a);")
        return lines

    def partner_text(self):
        """The other shader of a render program: for a fragment program, a vertex shader drawing
        one triangle over the whole target; for a vertex program, a fragment shader writing what
        it receives."""
        if self.stage == "vertex":
            return "\n".join([
                "#version 450",
                f"// Generated by fuzz/random_programs.py, seed {self.seed}.",
                "layout(location = 0) flat in uvec4 value0;",
                "layout(location = 1) flat in uvec4 value1;",
                "layout(location = 0) out uvec4 result;",
                "void main() {",
                "    result = value0 + value1 * 3u;",
                "}",
            ]) + "\n"
        return "\n".join([
            "#version 450",
            f"// Generated by fuzz/random_programs.py, seed {self.seed}.",
            "// exec: target 16 8 rgba32uint",
            "// exec: draw 3",
            "layout(location = 0) flat out uint vertex_value;",
            "const vec2 corners[3] = vec2[3](vec2(-1.0, -1.0), vec2(3.0, -1.0), vec2(-1.0, 3.0));",
            "void main() {",
            "    gl_Position = vec4(corners[gl_VertexIndex], 0.0, 1.0);",
            f"    vertex_value = {self.r.randrange(1000)}u;",
            "}",
        ]) + "\n"

    def text(self):
        r = self.r
        if self.stage == "vertex":
            # Three triangles, each over a third of the target (and a little of the next): the
            # flat outputs of vertices 0, 3 and 6 are drawn.
            corners = ", ".join(
                f"vec2({x0:.4f}, -1.0), vec2({x0 + 4.0 / 3.0:.4f}, -1.0), vec2({x0:.4f}, 3.0)"
                for x0 in (-1.0, -1.0 / 3.0, 1.0 / 3.0)
            )
            stage = [
                "// exec: storage 0: random*256",
                "// exec: target 16 8 rgba32uint",
                "// exec: draw 9",
                "layout(std430, binding = 0) readonly buffer In { uvec4 src[]; };",
                "layout(location = 0) flat out uvec4 value0;",
                "layout(location = 1) flat out uvec4 value1;",
                f"const vec2 corners[9] = vec2[9]({corners});",
            ]
            first = ("    gl_Position = vec4(corners[gl_VertexIndex], 0.0, 1.0);\n"
                     "    uint id = uint(gl_VertexIndex) + 1000u * uint(gl_InstanceIndex);")
            last = [
                "    value0 = v0 ^ v1 ^ v2;",
                "    value1 = uvec4(a, b, c, arr[0] ^ arr[1] ^ arr[2] ^ arr[3] ^ s.p ^ s.q.x ^ s.q.y);",
            ]
        elif self.stage == "fragment":
            stage = [
                "// exec: storage 0: random*256",
                "layout(std430, binding = 0) readonly buffer In { uvec4 src[]; };",
                "layout(location = 0) flat in uint vertex_value;",
                "layout(location = 0) out uvec4 result;",
            ]
            first = "    uint id = uint(gl_FragCoord.x) + 16u * uint(gl_FragCoord.y) + vertex_value;"
            last = [
                "    result = (v0 ^ v1 ^ v2) + uvec4(a, b, c, arr[0] ^ arr[1] ^ arr[2] ^ arr[3] ^ s.p ^ s.q.x ^ s.q.y);",
            ]
        else:
            stage = [
                "// exec: storage 0: random*256",
                "// exec: storage 1: 0*1024",
                "layout(local_size_x = 64) in;",
                "layout(std430, binding = 0) readonly buffer In { uvec4 src[]; };",
                "layout(std430, binding = 1) buffer Out { uvec4 dst[]; };",
            ]
            first = "    uint id = gl_LocalInvocationID.x;"
            last = [
                "    dst[id * 4u] = v0; dst[id * 4u + 1u] = v1; dst[id * 4u + 2u] = v2;",
                "    dst[id * 4u + 3u] = uvec4(a, b, c, a ^ b ^ c ^ arr[0] ^ arr[1] ^ arr[2] ^ arr[3] ^ s.p ^ s.q.x ^ s.q.y);",
            ]
        textures = []
        if self.textures:
            words, colours, plain = self.words, self.colours, self.plain
            textures = [
                f"// exec: combined 2 {words.width}x{words.height} r32uint nearest levels {words.levels}: "
                f"random*{words.texel_count()}",
                f"// exec: combined 3 {colours.width}x{colours.height} rgba8unorm nearest levels {colours.levels}: "
                f"random*{colours.texel_count()}",
                f"// exec: texture 4 {plain.width}x{plain.height} r32uint levels {plain.levels}: random*{plain.texel_count()}",
                "// exec: sampler 5 nearest",
                f"// exec: combined 6 {self.shadow.width}x{self.shadow.height} depth16unorm nearest compare "
                f"{self.comparison}: random*{self.shadow.texel_count()}",
                f"// exec: combined 7 {self.layered.width}x{self.layered.height} rgba8unorm nearest levels "
                f"{self.layered.levels} layers {self.layers}: random*{self.layered.texel_count() * self.layers}",
                f"// exec: combined 8 {self.cube.width}x{self.cube.height} rgba8unorm nearest levels {self.cube.levels}"
                + (" layers 12" if self.cube_array else "")
                + f" cube: random*{self.cube.texel_count() * (12 if self.cube_array else 6)}",
                "layout(binding = 2) uniform usampler2D words;",
                "layout(binding = 3) uniform sampler2D colours;",
                "layout(binding = 4) uniform utexture2D plain;",
                "layout(binding = 5) uniform sampler nearest;",
                "layout(binding = 6) uniform sampler2DShadow shadow;",
                "layout(binding = 7) uniform sampler2DArray layered;",
                f"layout(binding = 8) uniform samplerCube{'Array' if self.cube_array else ''} cube;",
                "uint fetched(usampler2D t, uvec2 at, int level) {",
                "    return texelFetch(t, ivec2(at), level).x;",
                "}",
                "uint sampled(sampler2D t, vec2 uv, float lod, int lane) {",
                "    return uint(round(textureLod(t, uv, lod)[lane] * 255.0));",
                "}",
            ]
            # Every binding read (wgpu rejects a bind group entry the shader does not use).
            last = [
                "    a ^= texelFetch(words, ivec2(0), 0).x ^ texelFetch(usampler2D(plain, nearest), ivec2(0), 0).x"
                " ^ uint(round(textureLod(colours, vec2(0.5), 0.0).y * 255.0))"
                " ^ uint(textureLod(shadow, vec3(0.5, 0.5, 0.5), 0.0)) ^ uint(textureSize(layered, 0).z)"
                " ^ uint(textureQueryLevels(cube));",
            ] + last
        out = [
            "#version 450",
            *[f"#extension GL_KHR_shader_subgroup_{name} : require" for name in
              ("basic", "vote", "ballot", "arithmetic", "shuffle", "shuffle_relative", "quad")
              if self.subgroups],
            f"// Generated by fuzz/random_programs.py, seed {self.seed}.",
            *stage,
            *textures,
            "uvec4 v0; uvec4 v1; uvec4 v2;",
            "struct S { uint p; uvec2 q; };",
        ]
        for h in range(3):
            out.append(f"uint h{h}(uint x) {{")
            if r.randrange(3) == 0:
                out.append(f"    if ((x & {r.randrange(1, 8)}u) == 0u) {{ return x ^ {r.randrange(1000)}u; }}")
            out.append(f"    uvec3 t = uvec3(x, x * {r.randrange(1, 9)}u, x + {r.randrange(100)}u);")
            out.append(f"    return t.{r.choice('xyz')} + (t.{r.choice('xyz')} >> {r.randrange(1, 8)}u);")
            out.append("}")
        out += [
            "uint g(uint x) {",
            "    v0 = v0.yzwx + uvec4(x);",
            "    return v0.x * 3u;",
            "}",
            "void bump(inout uint p, uint by) {",
            "    if ((by & 1u) == 1u) { p = p + by; return; }",
            "    p = p ^ (by >> 1u);",
            "}",
            "void main() {",
            first,
            "    v0 = src[id % 64u]; v1 = src[(id * 7u) % 64u]; v2 = src[(id * 13u + 5u) % 64u];",
            "    uint a = v0.x; uint b = v1.y; uint c = v2.z;",
            "    uint arr[4] = uint[4](v0.w, v1.x, v2.y, id);",
            "    S s = S(a ^ b, uvec2(c, id)); S t;",
        ]
        if self.subgroups:
            out += [f"    {r.choice('abc')} ^= {self.subgroup_operation()};" for _ in range(r.randint(2, 6))]
        out += self.statements(1, 0, False)
        out += last + ["}"]
        return "\n".join(out) + "\n"


if __name__ == "__main__":
    first, count, directory = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    stage = sys.argv[4] if len(sys.argv) > 4 else "compute"
    # The random program, then its partner (render stages): the file extension of each.
    extensions = {"compute": ["comp"], "fragment": ["frag", "vert"], "vertex": ["vert", "frag"]}[stage]
    for seed in range(first, first + count):
        program = Program(seed, stage)
        texts = [program.text(), program.partner_text()]
        for extension, text in zip(extensions, texts):
            with open(f"{directory}/random_{seed:05d}.{extension}", "w") as f:
                f.write(text)
