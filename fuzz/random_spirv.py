#!/usr/bin/env python3
"""Writes random SPIR-V compute modules with structured control flow (fuzz/random_spirv.sh).

    random_spirv.py FIRST_SEED COUNT DIR [--stats]

Unlike random_programs.py, which goes through glslang and so only ever produces the shapes
glslang and spirv-opt emit, this writes SPIR-V assembly directly, block by block, choosing among
the shapes the structured control-flow rules of the SPIR-V specification (section 2.11) and
spirv-val allow; every module is valid by construction (the runner checks it with spirv-val). The
shapes, and the rules that decide where each may stand:

- selections with and without `else`, an empty `then`, arms that reconverge in a block of their
  own before the declared merge, arms that are straight branches to a break or continue target,
  an unmerged conditional branch to a break, a continue, the enclosing selection's merge or the
  next switch case; a selection whose condition is known to hold, its other arm `OpUnreachable`;
- loops of every kind: the header tests the bound (`while`), the back-edge block does
  (`OpBranchConditional` to the header and the merge: WGSL's `break if`), the body breaks at the
  bound and the back edge is unconditional, the body returns at the bound (the merge may then be
  unreachable), and single-block loops whose header is its own continue target and back-edge
  block (the only form spirv-val accepts for a header that is its own continue target: its merge
  edge must pass through the back-edge block); `break if` conditions on the count alone or with
  data; bounds that are constants or read in the header (so they may change every iteration); the
  body may end in a break, so the continue target is unreachable; a loop header may be a block
  other edges already enter (a merge, a case, an `if` arm, the loop body's first block, another
  loop's continue target), its phis then joining several entries; continue constructs hold
  straight code, selections, switches and loops, but no break, continue, return or
  `OpUnreachable`, not even an unreachable merge (the back-edge block must post-dominate them);
- switches on unsigned and signed selectors (negative labels), whose labels target a case of
  their own, a case shared with other labels, the default's case (`case 3, default`), the merge
  (issue 26), the default as its own case or as the merge or as an `OpUnreachable` block no
  selector value reaches, or no label but the default at all, cases falling through into the next
  (only from the case's own blocks, never from a selection in it, as spirv-val requires), case
  blocks in an order other than the labels'; cases that break, continue the enclosing loop,
  leave it, return; switches in the function body, a loop body, a continue construct, another
  switch's case, an `if` arm, and in helper functions called from loops. A label cannot target the
  enclosing loop's continue target or merge directly (spirv-val: the switch header must
  structurally dominate its cases, and the loop header's merge and continue edges bypass it), so
  those are reached from a case's first block;
- `OpPhi` at every join with differing incoming values: merges, loop headers (every state value),
  continue targets, case blocks fallen into, the block after an unmerged conditional; plus, at
  some joins, a phi choosing between values each incoming path had at hand (defined inside the
  construct that just ended). Values are used wherever their definition dominates the use, which
  the generator tracks exactly (the values available at a join are those available on every
  incoming edge): values of a loop header used after the loop, of a selection header after its
  merge, of a loop body in the continue construct and, when the loop only leaves through the
  back-edge block, after it; loads from a function variable used after a later store to it;
- early `OpReturn` from nested constructs of the entry point (which stores its results first),
  `OpReturnValue` from helper functions, called from anywhere, including loops and continue
  constructs;
- `OpUnreachable` only in blocks the program never reaches.

Between the control flow go integer operations whose operands and result are each signed or
unsigned at random, as SPIR-V allows and WGSL does not (the signedness pass's work;
`spirv_blocks.INTEGER`): arithmetic, `OpSDiv`/`OpSRem`/`OpSMod` and the unsigned ones, shifts,
negation, bitwise operations, signed and unsigned comparisons, bit-field extraction and insertion,
bit counts and reversal, and GLSL.std.450's `SAbs`, `SSign`, `SMin`/`SMax`/`UMin`/`UMax`,
`SClamp`/`UClamp` and `FindSMsb`/`FindUMsb`/`FindILsb`, on scalars and on vectors of two to four
(built of values, each lane of the result then read), some nested in others (GLSL.std.450's
signed and unsigned operations keep to their own signedness: spirv-opt folds them wrongly
otherwise); operands whose values SPIR-V leaves undefined are kept out (divisors 2 to 255 or their
negation, shifts under 32, fields within the word, clamp bounds in order).

And operations on composite values (`spirv_blocks.COMPOSITES`: vectors of u32, i32, bool and f32
of two to four, f32 matrices of 2x2 to 4x4, an array of u32, an array of i32 vectors, a struct of
them and an array of that struct, a struct of a matrix, a vector, a float and an array):
values built by `OpCompositeConstruct` (a vector maybe of a shorter vector and scalars), as
constants (`OpConstantComposite`, `OpConstantNull`), as an `OpUndef` with every member inserted,
or copied (`OpCopyObject`, and from SPIR-V 1.4 `OpCopyLogical` between a laid-out type below and
its undecorated twin, the structs of both named alike, as glslang names them); `OpCompositeInsert` and `OpCompositeExtract` at any depth;
`OpVectorShuffle` of vectors of any widths, a lane maybe 0xFFFFFFFF (undefined, never read);
`OpVectorExtractDynamic` and `OpVectorInsertDynamic` at indices computed at run time;
`OpSelect` of vectors by a bool vector, and from SPIR-V 1.4 of any composite by one bool; function
and private variables of composite types, initialized by constants, stored and loaded whole or at
an element an `OpAccessChain` reaches (indices into arrays and vectors computed at run time,
signed or not; the chain maybe kept, and loaded or stored through later wherever it dominates),
and copied by `OpCopyMemory` (between the two storages too). Private variables are shared by the
entry point and the helpers it calls; some helpers take a fourth parameter, a pointer to a
function variable of the caller's or to a private one (which the caller may pass on from its own
such parameter), and load and store through it as through a variable of their own, while maybe
using the same private variable by name (both are declared `Aliased`). Composite values are used wherever their definitions dominate, meet
in phis at joins, and half the functions thread one (`agg`) through their control flow as they do
acc, with phis at every loop header; its members are replaced on the way. What each gives is read
back lane by lane into acc.

And operations on 32-bit floats (`spirv_blocks.FLOAT`), on scalars and vectors of two to four:
arithmetic, `OpFRem` and `OpFMod`, negation, ordered and unordered comparisons, `OpIsNan` and
`OpIsInf`, conversions to and from integers (`OpConvertFToU` of nonnegative values only),
`OpQuantizeToF16`, `OpDot`, `OpVectorTimesScalar`, the matrix products, `OpMatrixTimesScalar`,
`OpTranspose` and `OpOuterProduct`, and GLSL.std.450's `FAbs`, `FSign`, `Floor`,
`Ceil`, `Trunc`, `Fract`, `RoundEven`, `FMin`/`FMax`/`NMin`/`NMax`, `FClamp`, `Step`, `Ldexp` and
`FMix`; every value a multiple of 1/64 far inside f32's exact range (divisors powers of two), so
each result is exact on any device and in the model, which checks that it is. In half the modules
(`OpCapability Float16`) the same operations but the matrix ones and `OpQuantizeToF16` on 16-bit
floats too, scalars and vectors, their operands multiples of 1/2 under 8 (each result exact in
f16's 11 bits), read through `OpFConvert` to 32 bits.

And in half the modules, operations on bits (`spirv_blocks.EXTENDED` and `PACKING`):
`OpIAddCarry`, `OpISubBorrow` and `OpUMulExtended` on u32, `OpSMulExtended` on u32 or i32,
scalars and vectors of two to four, both members of the result struct read; GLSL.std.450's
`PackHalf2x16`, `UnpackHalf2x16` (of a word packed from floats exact in f16, maybe with signs
flipped), `PackSnorm4x8`, `PackUnorm4x8`, `PackSnorm2x16` and `PackUnorm2x16` (of odd multiples
of 1/8, none halfway between two steps, so the rounding is the same everywhere) and their
unpacking; `OpBitcast` from f32 lanes to u32 or i32 ones and from pairs of f16 lanes to a word,
and back, maybe with the signs flipped on the way; `OpAny` and `OpAll` of integer comparisons of
vectors. An operand is now and then a constant, so some of these have constant operands alone,
which the translation must keep from constant and override evaluation where that differs. Not
the words unpacked as halves (by `UnpackHalf2x16` or, in the translation, an f16 bitcast): lavapipe
(Mesa 22.3) folds `UnpackHalf2x16` of a constant word wrongly where the result goes through
`FClamp` (naga's f32 to i32 conversion), its second lane 0, so those are made of an input word.

And in half the modules, specialization constants (u32, i32, bool and f32, each keeping its default or
given another value by the pipeline: `; exec: spec`, which the execution test passes to Vulkan
and as WebGPU's pipeline-overridable constants) and OpSpecConstantOp on them and on ordinary
constants, nested: the integer operations of `INTEGER` a shader's OpSpecConstantOp may do (their
operands' values, defaults and specialized ones alike, kept where SPIR-V defines the result),
`OpSelect`, the logical operations, and lanes of vectors of them (OpSpecConstantComposite, maybe
shuffled or with a lane inserted); each read into acc.

And a storage buffer with an explicit layout (binding 2, `spirv_blocks.LAID_OUT` and `Layout`): a
runtime array of a struct, one element per invocation, holding scalars, vectors, matrices, arrays of
floats, vectors and matrices, and an array of a struct; each seed lays them out anew: member offsets,
array strides and matrix strides at or past what the rules ask, matrices column- or row-major, and
in a third of the seeds vectors at any offset the relaxed block layout allows (a `vec3` at offset
4), in a fifth everything as the scalar block layout allows (strides and offsets multiples of 4: a
`vec3` array's stride 12; such modules say `; Scalar block layout`, which the runner passes on to
spirv-val and spirv-opt). Access chains (indices at run time into arrays, vectors and matrices) reach the element's parts
at any depth, down to a row-major matrix's column or a lane of it, to load from, store to (the
chain maybe kept for later blocks) or copy between (`OpCopyMemory`); values of the laid-out types
are composites like any other. The buffer starts with random values in its members and random
words in its padding, and after the run all of it is compared, padding included (SPIR-V stores
write members only). A uniform buffer (binding 3) holds two elements of the same types laid out
anew under the uniform rules (arrays, structs and matrices aligned to 16), loaded from at any part
of either (a vector the relaxed layout puts below WGSL's alignment is, in the translation, one
member per component: the buffer stays uniform). Push constants, a small struct of the same kinds
of members laid out under the same rules (at most 128 bytes), are read too (the translation makes
them a uniform buffer at a binding of its own, where the execution test binds them). Atomic instructions
(`spirv_blocks.ATOMICS`, increments, loads, stores, compare-exchanges, at Device or Workgroup
scope) work on the storage buffer's integers, which the program also loads, stores and copies
whole or in the structs that hold them; `OpArrayLength` reads its element count; `OpCopyMemory`
copies a vector or matrix between a buffer and a function or private variable (an access chain
without indices on the variable's side). Loads and stores
through pointers carry memory operands now and then (`Aligned`, `Nontemporal`, `Volatile`).

And in a third of the modules, sampled textures (`spirv_textures`: an r32uint, an rgba8unorm and
an rgba32float texture, a depth16unorm one declared a depth image, an rgba8unorm array, an
rgba8unorm cube or array of two cubes, a nearest sampler, a comparison sampler, and a combined
image sampler of rgba8unorm, each texture of its own size): `OpImageFetch` at integer coordinates (u32 or i32) with a level (a constant, u32
or i32, or computed) and maybe a `ConstOffset`; `OpImageSampleExplicitLod` with a `Lod` or `Grad`
(the one level is read whatever it says) and maybe a `ConstOffset`, at coordinates inside and
outside the texture (clamped to its edge), the unsigned texture too (which WGSL cannot sample);
`OpImageGather` of a component with no offset, a `ConstOffset` or four `ConstOffsets`; depth
comparisons at level 0 (`OpImageSampleDrefExplicitLod`, projective too, and `OpImageDrefGather`)
with the comparison sampler, and the depth texture read without one, fetched, sampled at levels
and gathered (its components 1 to 3 are 0, 0 and 1); the array's layers fetched and chosen by
float coordinates (rounded to the nearest, halves to even, and clamped); the cube sampled at a
level and gathered at directions toward any face (the major axis 0.5 to 2 long, the texel computed
at run time), its cube chosen as the array's layer;
`OpImageQuerySizeLod` and `OpImageQueryLevels`. Images, the sampler and the combined image
sampler are loaded, maybe copied, and used in any block the load dominates; sampled images are
the combined one or an `OpSampledImage` of an image (maybe `OpImage` of the combined one) and the
sampler in the block that uses them. Textures have one to three mip levels, fetched, queried and
sampled at each (levels of detail and gradients that select a level), projectively now and then
(`OpImageSampleProjExplicitLod`); fetches and storage image reads carry `ZeroExtend` (SPIR-V 1.4)
and `Nontemporal` (1.6) image operands now and then. And storage images
(r32ui and r32f read and written, rgba32f written, rgba8 read; their access decorated or left
to their use): `OpImageRead`, `OpImageWrite` (a scalar texel to the single-channel ones now and
then) and `OpImageQuerySize`, each invocation writing only its own column; the images written
are compared after the run with the model's (`cpu` lines). Half the helpers of such modules take
a texture, the sampler or a storage image as a last parameter, a pointer to its variable or the
handle loaded.

And in a third of the modules, pointers chosen at run time (`OpCapability VariablePointers`):
`OpSelect` between two access chains of one type into the invocation's element of the laid-out
storage buffer or its workgroup slot, at one place with other indices or at another member (never
at or into a matrix, which SPIR-V forbids), kept or made then, or between pointers themselves
chosen; phis of such pointers at joins other than loop headers (WGSL cannot keep a pointer across
iterations); loads and stores through the chosen pointer, now or in later blocks, atomic
instructions on a chosen integer, and `OpPtrEqual`/`OpPtrNotEqual` (SPIR-V 1.4) with either
option or another pointer of its type; and `OpPtrAccessChain` from an element of an array in the
storage-buffer element to another, by a step computed at run time.

First thing, the entry point's invocations swap values through workgroup memory: each stores a
struct to its slot of an array, an `OpControlBarrier`, each reads another's slot whole or in part,
another barrier; then its own slot is its own, loaded and stored through a kept access chain, its
first member maybe by atomics (the model runs every invocation up to the first barrier, then each
whole, reading the others' slots as they were there).

Each program reads 16 words of its own per invocation (32 invocations) from storage buffer 0,
advancing a cursor, and every taken path folds a tag into an accumulator (`acc = (acc ^ (v + K)) *
16777619`, wrapping), so one wrong branch changes the result. The accumulator and the cursor are
SSA values threaded through phis; a function variable (`trace`) is a second, memory-based
accumulator. The entry point writes acc and trace ^ cursor to storage buffer 1; buffer 2 holds
what the program stored there. Loops count
iterations with a header phi and stop after at most 4 (lavapipe stops every loop after 65,535).

The generator also runs each program on the CPU, block by block with SPIR-V's semantics (phis by
predecessor, switch by label), and states the results in `; exec: cpu 1: ...` and `cpu 2`: the execution
test then checks the Vulkan run against them, and the WGSL run, so a wrong model, a driver bug and
a translation bug each show as what they are. The same seed always writes the same program.
`--stats` prints how often each shape was generated.
"""
import collections
import random
import sys
from pathlib import Path

from spirv_blocks import (ATOMICS, BINARY, COMPOSITES, EXTENDED, FLOAT, FLOAT_VALUES, HALF, INTEGER, LAID_OUT, MASK,
                          PACKING, POINTEES, PUSH_LAID_OUT, SPEC_INTEGER, SPEC_LOGICAL, TWINS, U32_OPS,
                          UNIFORM_LAID_OUT, Block, Function, GeneratorBug, LaidOutBuffer, Module, members, pointer,
                          reachable, scalar_and_width, signed, vector_type)
from spirv_textures import (COMPARE_SAMPLER, CUBE, HANDLES, SAMPLED_TYPES, SAMPLER, STORAGE_IMAGES, TEXEL_KIND,
                            TEXTURES, Textures)

INVOCATIONS = 32
WORDS = 16  # input words per invocation; the cursor wraps around them
CALL_STRIDE = 3  # a call moves the caller's cursor on by this much
MAX_DEPTH = 4
FNV_PRIME = 16777619


class Ctx:
    """Where a block stands: the exits its branches may take (spirv-val's structured exits).

    loop: (merge, continue target) of the innermost loop whose body this is in (None inside a
    continue construct, whose only exit is the back-edge block's); switch: the merge of the
    innermost switch with no loop between; if_merge, fall: the merge of the `if` whose arm this
    is, the next case of the case this is, for unmerged conditional branches from the
    construct's own blocks (not from a construct nested in it); in_continue: inside some continue
    construct, where returns and OpUnreachable would break the back-edge block's post-dominance."""

    def __init__(self, loop=None, switch=None, if_merge=None, fall=None, in_continue=False, depth=0):
        self.loop = loop
        self.switch = switch
        self.if_merge = if_merge
        self.fall = fall
        self.in_continue = in_continue
        self.depth = depth

    def derive(self, **changes):
        fields = dict(loop=self.loop, switch=self.switch, in_continue=self.in_continue, depth=self.depth + 1)
        fields.update(changes)
        return Ctx(**fields)

    def own(self):
        return [t for t in (self.if_merge, self.fall) if t]

    def breaks(self):
        """Targets of a break or continue from here."""
        targets = []
        if self.loop:
            targets += list(self.loop)
        if self.switch:
            targets.append(self.switch)
        return targets


class Edge:
    """What holds on an edge into a block not yet started: the threaded values, the u32 and bool
    values available, and one of each for a choosing phi."""

    def __init__(self, state, avail, bools, comps, pointers, handles, pick, bool_pick):
        self.state = state
        self.avail = avail
        self.bools = bools
        self.comps = comps
        self.pointers = pointers
        self.handles = handles
        self.pick = pick
        self.bool_pick = bool_pick


class LoopHeader:
    def __init__(self, block, phis, counter):
        self.block = block
        self.phis = phis  # state variable -> header phi
        self.counter = counter


class Program(Module):
    """One seed's module, with how often each shape went into it."""

    def __init__(self, seed):
        self.r = random.Random(seed)
        super().__init__(self.r.choice(["1.3"] * 6 + ["1.4", "1.5", "1.6"]), INVOCATIONS)
        self.seed = seed
        self.next_id = 0
        self.stats = collections.Counter()
        # Lavapipe (Mesa 22.3) cannot build a pipeline from a selection whose arms meet before its
        # merge (see fixtures/spvasm/cf_if_arms_reconverge_before_merge.spvasm): only a fifth of
        # the modules have them, checked against the CPU model alone.
        self.reconverge = self.r.random() < 0.2
        # Half the modules compute on 16-bit floats too; drawn apart, so that the other half are
        # the programs their seeds gave before.
        self.halves = random.Random(f"halves {seed}").random() < 0.5
        # Half read specialization constants, also drawn apart.
        self.specs_used = random.Random(f"specs {seed}").random() < 0.5
        # Half do operations on bits (statement_bits), also drawn apart.
        self.bits = random.Random(f"bits {seed}").random() < 0.5
        # A third read textures (statement_texture), drawn apart with their contents.
        textures = random.Random(f"textures {seed}")
        self.textures = Textures(textures, INVOCATIONS) if textures.random() < 0.35 else None
        # A third choose pointers at run time (statement_pointer), also drawn apart.
        self.variable_pointers = random.Random(f"variable pointers {seed}").random() < 0.35
        # The pointers a variable pointer may choose between, by result: (type pointed to, storage);
        # those of them at an integer atomic instructions may take (no vector's lane); for those
        # themselves chosen, how many access chains they choose between.
        self.selectable = {}
        self.atomic_places = set()
        self.option_counts = {}

    def fresh(self, prefix):
        self.next_id += 1
        return f"%{prefix}{self.next_id}"

    def note(self, shape):
        self.stats[shape] += 1

    def generate(self):
        r = self.r
        helpers = []
        for index in range(r.choice([0, 1, 1, 2, 3])):
            fn = Function(f"%helper{index}", [f"%{name}{index}" for name in ("acc", "cursor", "base")])
            if r.random() < 0.4:
                # A fourth parameter: a pointer to a variable of the caller's or a private one.
                fn.pointer = (r.choice([t for t in POINTEES if t in COMPOSITES]), r.choice(["Function", "Private"]))
                fn.params.append(f"%pointer{index}")
                self.note("call.pointer_parameter." + fn.pointer[1])
            if self.textures and r.random() < 0.5:
                # A last parameter: a texture, the sampler or a storage image, as a pointer to its
                # variable or loaded.
                fn.handle = (r.choice(sorted(HANDLES)), r.choice(["pointer", "value"]))
                fn.params.append(f"%handle{index}")
                self.note("call.handle_parameter." + fn.handle[1])
            FunctionBuilder(self, fn, helpers=list(helpers), budget=r.randint(4, 14)).helper_body()
            helpers.append(fn)
        main = Function("%main", [])
        FunctionBuilder(self, main, helpers=helpers, budget=r.randint(12, 40)).main_body()
        self.functions = [main] + helpers
        self.inputs = [r.getrandbits(32) for _ in range(INVOCATIONS * WORDS)]
        self.data = LaidOutBuffer(r, LAID_OUT, INVOCATIONS)
        self.udata = LaidOutBuffer(r, UNIFORM_LAID_OUT, 2, uniform=True)
        self.push = LaidOutBuffer(r, PUSH_LAID_OUT, 1)
        while self.push.layout.element_stride > 128:  # what every device has
            self.push = LaidOutBuffer(r, PUSH_LAID_OUT, 1)

    def comments(self):
        # random_spirv.sh validates a module with a scalar block layout as such.
        scalar = ["; Scalar block layout"] if any(b.layout.scalar for b in (self.data, self.udata, self.push)) else []
        return [
            f"; Generator: fuzz/random_spirv.py {self.seed}",
            "; Shapes: " + ", ".join(f"{k} {v}" for k, v in sorted(self.stats.items())),
        ] + scalar


class FunctionBuilder:
    """Builds one function's blocks. `cur` is the open block (None once control has left it);
    `state` maps the threaded values (acc, cursor) to their SSA values; `avail` and `bools` are the
    u32 and bool values whose definitions dominate the open block; `pending` holds, per block not
    yet started, the edges into it: predecessor -> Edge."""

    def __init__(self, program, fn, helpers, budget):
        self.p = program
        self.r = program.r
        self.fn = fn
        self.helpers = helpers
        self.budget = budget
        self.cur = None
        self.state = {}
        self.avail = frozenset()
        self.bools = frozenset()
        self.comps = frozenset()  # (value, type) of the composite values available
        self.pointers = frozenset()  # (access chain, type it points to) available
        self.handles = frozenset()  # (loaded handle, its variable) available
        self.state_types = {"acc": "%uint", "cursor": "%uint"}  # and "agg", when the function has it
        self.pending = {}
        self.entries = {}  # the edges into the open block, when start() opened it
        self.case_exits = set()  # loop merges and continue targets a switch's case branches to
        self.main = fn.name == "%main"

    # --- blocks, edges and values ------------------------------------------------------------

    def label(self):
        return self.p.fresh("b")

    def inst(self, op, *args):
        """Appends an instruction of `op` to the open block; returns its result."""
        result = self.p.fresh("v")
        self.cur.insts.append((result, op, args))
        return result

    def emit(self, op, *args):
        result = self.inst(op, *args)
        if op in U32_OPS or op in BINARY and BINARY[op][1] == "uint":
            self.avail = self.avail | {result}
        elif op == "not" or op in BINARY and BINARY[op][1] == "bool":
            self.bools = self.bools | {result}
        return result

    def c(self, value):
        return self.p.const(value)

    def edge(self, target):
        edges = self.pending.setdefault(target, {})
        if self.cur.label not in edges:
            pick = self.r.choice(sorted(self.avail)) if self.avail else self.c(7)
            bools = sorted(self.bools) or [self.p.bool_const(self.r.random() < 0.5)]
            bool_pick = self.r.choice(bools)
            edges[self.cur.label] = Edge(dict(self.state), self.avail, self.bools, self.comps, self.pointers,
                                         self.handles, pick, bool_pick)

    def jump(self, target):
        self.edge(target)
        self.cur.term = ("branch", target)
        self.cur = None

    def branch(self, condition, accept, reject):
        self.edge(accept)
        self.edge(reject)
        self.cur.term = ("cond", condition, accept, reject)
        self.cur = None

    def new_block(self, label):
        block = Block(label)
        self.fn.blocks.append(block)
        return block

    def start(self, label):
        """Opens `label`, joining its incoming edges with phis; False (and an OpUnreachable
        block) when nothing branches to it."""
        block = self.new_block(label)
        edges = self.pending.pop(label, {})
        self.entries = edges
        if not edges:
            self.cur = None
            return False
        self.cur = block
        avail = frozenset.intersection(*[edge.avail for edge in edges.values()])
        bools = frozenset.intersection(*[edge.bools for edge in edges.values()])
        comps = frozenset.intersection(*[edge.comps for edge in edges.values()])
        self.pointers = frozenset.intersection(*[edge.pointers for edge in edges.values()])
        self.handles = frozenset.intersection(*[edge.handles for edge in edges.values()])
        state = {}
        for var in next(iter(edges.values())).state:
            sources = {pred: edge.state[var] for pred, edge in edges.items()}
            if len(set(sources.values())) == 1:
                state[var] = next(iter(sources.values()))
            elif self.state_types[var] == "%uint":
                state[var] = self.phi(block, sources)
                avail = avail | {state[var]}
            else:
                state[var] = self.phi(block, sources, self.state_types[var])
                comps = comps | {(state[var], self.state_types[var])}
        # Phis choosing among values each path had at hand (a bool one, as `a && b` gives).
        picks = {pred: edge.pick for pred, edge in edges.items()}
        if len(set(picks.values())) > 1 and self.r.random() < 0.5:
            avail = avail | {self.phi(block, picks)}
            self.p.note("phi.choosing")
        picks = {pred: edge.bool_pick for pred, edge in edges.items()}
        if len(set(picks.values())) > 1 and self.r.random() < 0.3:
            phi = self.phi(block, picks, "%bool")
            bools = bools | {phi}
            self.p.note("phi.choosing_bool")
        # And one between composites of one type, each path's own.
        types = set.intersection(*[{ty for _, ty in edge.comps} for edge in edges.values()])
        if types and self.r.random() < 0.4:
            ty = self.r.choice(sorted(types))
            picks = {pred: self.r.choice(sorted(c for c, t in edge.comps if t == ty)) for pred, edge in edges.items()}
            if len(set(picks.values())) > 1:
                comps = comps | {(self.phi(block, picks, ty), ty)}
                self.p.note("phi.choosing_composite")
        # And one between pointers of one type (variable pointers), each path's own.
        if self.p.variable_pointers:
            kinds = set.intersection(*[{self.p.selectable[p] for p, _ in edge.pointers if p in self.p.selectable}
                                        for edge in edges.values()])
            if kinds and self.r.random() < 0.4:
                kind = self.r.choice(sorted(kinds))
                picks = {pred: self.r.choice(sorted(p for p, _ in edge.pointers if self.p.selectable.get(p) == kind))
                         for pred, edge in edges.items()}
                if len(set(picks.values())) > 1:
                    chosen = self.phi(block, picks, pointer(*kind))
                    self.pointers = self.pointers | {(chosen, kind[0])}
                    self.selectable_choice(chosen, kind, list(picks.values()))
                    block.pointer_phis = True
                    self.p.note("pointer.phi")
        self.state, self.avail, self.bools, self.comps = state, avail, bools, comps
        return True

    def make_header(self, block, kind, *targets, constant_count=False):
        """Makes `block` a header; now and then with a hint, which changes nothing. A loop that
        runs a constant number of times gets no `Unroll`: spirv-opt's loop-unroll (2023.1) then
        unrolls it fully, and a value of its header used after the loop reads the first
        iteration's value (seeds 2, 42 and 10757, `-O`; docs/control-flow.md)."""
        block.merge = (kind, *targets)
        hints = ["Flatten", "DontFlatten"] if kind == "selection" else ["Unroll", "DontUnroll"]
        if constant_count:
            hints.remove("Unroll")
        block.control = self.r.choice(["None"] * 8 + hints)

    def phi(self, block, sources, ty="%uint"):
        result = self.p.fresh("v")
        block.phis.append([result, dict(sources)])
        if ty != "%uint":
            block.phi_types[result] = ty
        return result

    def loop_header(self, reuse):
        """Opens a loop header: a new block, or (with `reuse`) the open block itself while
        nothing is in it yet (so a merge, a case, an arm or a continue target is also a loop
        header), with a phi for each threaded value and the iteration counter."""
        block = self.cur
        if block.insts or block.pointer_phis or not self.entries or not reuse or self.r.random() < 0.5:
            label = self.label()
            self.jump(label)
            self.start(label)
            block = self.cur
        else:
            self.p.note("loop.header_is_entered_block")
        own_phis = {result for result, _ in block.phis}
        phis = {}
        for var, value in self.state.items():
            if value in own_phis:
                phis[var] = value
            else:
                sources = {pred: edge.state[var] for pred, edge in self.entries.items()}
                phis[var] = self.phi(block, sources, self.state_types[var])
        counter = self.phi(block, {pred: self.c(0) for pred in self.entries})
        self.state = dict(phis)
        self.avail = self.avail | {phis["acc"], phis["cursor"], counter}
        self.comps = self.comps | {(phis[var], ty) for var, ty in self.state_types.items() if ty != "%uint"}
        return LoopHeader(block, phis, counter)

    def back_edge(self, header, latch, state, counter_next):
        for var, phi in header.phis.items():
            self.phi_source(header.block, phi, latch, state[var])
        self.phi_source(header.block, header.counter, latch, counter_next)
        # The header's other phis (a choosing one) keep their value around the loop.
        for result, sources in header.block.phis:
            sources.setdefault(latch, result)

    @staticmethod
    def phi_source(block, phi, pred, value):
        for result, sources in block.phis:
            if result == phi:
                sources[pred] = value

    # --- values --------------------------------------------------------------------------------

    def any_value(self):
        if self.avail and self.r.random() < 0.8:
            return self.r.choice(sorted(self.avail))
        return self.c(self.r.randrange(1000))

    def read(self):
        """The next input word of this invocation."""
        at = self.emit("and", self.state["cursor"], self.c(WORDS - 1))
        word = self.emit("load_input", self.emit("add", self.base, at))
        self.state["cursor"] = self.emit("add", self.state["cursor"], self.c(1))
        return word

    def condition(self):
        r = self.r
        if self.bools and r.random() < 0.2:
            # A condition computed earlier, maybe in another construct or by a phi.
            self.p.note("condition.reused")
            return r.choice(sorted(self.bools))
        word = self.read()
        kind = r.randrange(5)
        if kind == 0:
            c = self.emit("ne", self.emit("and", word, self.c(1 << r.randrange(32))), self.c(0))
        elif kind == 1:
            c = self.emit("ult", self.emit("umod", word, self.c(5)), self.c(r.randint(1, 4)))
        elif kind == 2:
            c = self.emit(r.choice(["ult", "uge"]), word, self.any_value())
        elif kind == 3:
            c = self.emit("eq", self.emit("umod", word, self.c(3)), self.c(r.randrange(3)))
        else:
            other = self.emit("ne", self.emit("and", word, self.c(2)), self.c(0))
            c = self.emit(r.choice(["land", "lor"]), self.emit("ult", word, self.c(0x8000_0000)), other)
        if r.random() < 0.2:
            c = self.emit("not", c)
        return c

    def known_condition(self):
        """A condition that always holds, though only arithmetic shows it."""
        k = self.r.randint(2, 9)
        return self.emit("ult", self.emit("umod", self.read(), self.c(k)), self.c(k))

    def tag(self):
        mixed = self.emit("add", self.any_value(), self.c(self.r.randrange(1, 1 << 16)))
        self.state["acc"] = self.emit("mul", self.emit("xor", self.state["acc"], mixed), self.c(FNV_PRIME))

    # --- statements ----------------------------------------------------------------------------

    def sequence(self, ctx, least=0, finish=False):
        """Statements into the open block, maybe ending in an exit; with `finish`, control
        reaches the end (in a continue construct, where a merge nothing reaches would be an
        OpUnreachable block the back-edge block does not post-dominate)."""
        r = self.r
        for _ in range(r.randint(least, 4)):
            if self.cur is None or self.budget <= 0:
                return
            self.budget -= 1
            self.statement(ctx)
        if self.cur is not None and not finish and r.random() < 0.2:
            self.exit(ctx)

    def statement(self, ctx):
        r = self.r
        nested = ctx.depth < MAX_DEPTH
        choices = [("tag", 4), ("read", 1), ("compute", 1), ("select", 0.5), ("integer", 1.5), ("composite", 1.5),
                   ("float", 1.5), ("buffer", 1)]
        if self.main:
            choices.append(("trace", 1))
        if self.p.halves:
            choices.append(("half", 1.5))
        if self.p.specs_used:
            choices.append(("spec", 1))
        if self.p.bits:
            choices.append(("bits", 1))
        if self.p.textures:
            choices.append(("texture", 1.5))
        if self.p.variable_pointers:
            choices.append(("pointer", 1))
        if self.helpers:
            choices.append(("call", 1))
        if nested:
            choices += [("if", 3), ("switch", 2.5), ("loop", 2)]
        if ctx.breaks() or ctx.own():
            choices.append(("conditional_exit", 0.6))
        kind = r.choices([k for k, _ in choices], [w for _, w in choices])[0]
        getattr(self, "statement_" + kind)(ctx)

    def straight(self, count):
        """Statements without control flow (a single-block loop's body)."""
        for _ in range(count):
            choices = ["tag", "tag", "read", "compute", "integer", "composite", "float", "buffer"] + ["trace"] * self.main
            choices += ["call"] * bool(self.helpers) + ["half"] * self.p.halves + ["spec"] * self.p.specs_used
            choices += ["bits"] * self.p.bits + ["texture"] * bool(self.p.textures)
            getattr(self, "statement_" + self.r.choice(choices))(None)

    def statement_tag(self, ctx):
        self.tag()

    def statement_read(self, ctx):
        self.read()

    def statement_compute(self, ctx):
        r = self.r
        op = r.choice(["add", "mul", "xor", "and", "or", "shr", "umod"])
        right = self.c(r.randint(1, 31)) if op in ("shr", "umod") else self.any_value()
        self.emit(op, self.any_value(), right)

    def statement_integer(self, ctx):
        """An integer operation whose operands and result are each signed or unsigned at random
        (`INTEGER`), on scalars or vectors of two to four; each component of its result joins the
        values (an `int` one through a bitcast) and mostly goes into acc."""
        r = self.r
        width = r.choice([1, 1, 1, 2, 3, 4])
        result, ty = self.integer(r.choice(sorted(INTEGER)), width)
        if width > 1:
            self.p.note(f"integer.vec{width}")
        self.fold_lanes(result, *scalar_and_width(ty), into_acc=lambda: r.random() < 0.7)

    def integer(self, name, width, depth=0):
        """Emits the integer operation `name` on `width` components, its result type chosen where
        SPIR-V leaves it free; returns the result and its type."""
        r = self.r
        _, operands, result, _ = INTEGER[name]
        scalar = {"bool": "%bool", "uint": "%uint", "int": "%int"}.get(result) or r.choice(["%int", "%uint"])
        # An operation of one signedness takes operands of it only (`INTEGER`).
        fixed = scalar if result in ("int", "uint") else None
        offset = r.randrange(32)
        count = r.randrange(33 - offset)
        bounds = []
        for _ in range(width):
            low, high = r.getrandbits(32), r.getrandbits(32)
            if (signed(low), low)[name == "uclamp"] > (signed(high), high)[name == "uclamp"]:
                low, high = high, low
            bounds.append((low, high))
        args = []
        for kind in operands:
            if kind == "any" and not fixed and depth < 2 and r.random() < 0.25:
                nested = r.choice(sorted(n for n, entry in INTEGER.items() if entry[2] == "either"))
                args.append(self.integer(nested, width, depth + 1)[0])
                self.p.note("integer.nested")
                continue
            if kind in ("offset", "count"):
                # Bit-field offsets and counts are scalars of either type.
                value = offset if kind == "offset" else count
                args.append(self.c(value) if r.random() < 0.5 else self.p.int_const(value))
                continue
            operand_scalar = {"same": scalar, "udivisor": "%uint"}.get(kind) or r.choice(["%int", "%uint"])
            operand_scalar = fixed or operand_scalar
            components = []
            for index in range(width):
                components.append({
                    "any": self.any_value,
                    "same": self.any_value,
                    "divisor": lambda: self.emit("or", self.emit("and", self.any_value(), self.c(0xFD)), self.c(2)),
                    "udivisor": lambda: self.emit("or", self.any_value(), self.c(1)),
                    "shift": lambda: self.emit("and", self.any_value(), self.c(31)),
                    "low": lambda: self.c(bounds[index][0]),
                    "high": lambda: self.c(bounds[index][1]),
                }[kind]())
            value = components[0] if width == 1 else self.emit("compose", f"%v{width}uint", *components)
            if kind == "divisor" and not fixed and r.random() < 0.5:
                value, operand_scalar = self.integer_negated(value, width)
            elif operand_scalar == "%int":
                value = self.emit("bitcast", vector_type("%int", width), value)
            args.append(value)
        self.p.note("integer." + name)
        ty = vector_type(scalar, width)
        return self.inst("integer", name, ty, *args), ty

    def integer_negated(self, value, width):
        """OpSNegate of a u32 `value` (or vector of them), its result type chosen at random."""
        scalar = self.r.choice(["%int", "%uint"])
        return self.inst("integer", "snegate", vector_type(scalar, width), value), scalar

    # --- floats ----------------------------------------------------------------------------------

    # --- specialization constants ----------------------------------------------------------------

    def statement_spec(self, ctx):
        """A specialization constant, or an OpSpecConstantOp on such constants and ordinary ones
        (`SPEC_INTEGER`, `SPEC_LOGICAL`, OpSelect), read into acc; each constant keeps its
        default or gets another value from the pipeline (`; exec: spec`)."""
        ty = self.r.choice(["%uint", "%int", "%bool", "%float"])
        self.fold_scalar(self.spec_value(ty, 0), ty)

    def spec_value(self, ty, depth):
        """A constant of the scalar `ty` that depends on specialization constants."""
        r, p = self.r, self.p
        if depth >= 3 or r.random() < 0.3:
            existing = sorted(name for name, t in p.spec_types.items() if t == ty)
            if existing and r.random() < 0.4:
                return r.choice(existing)
            if ty == "%bool":
                return p.spec_constant(ty, r.random() < 0.5, r.random() < 0.5)
            if ty == "%float":
                default = r.randint(-256, 256) / 4
                return p.spec_constant(ty, default, default if r.random() < 0.4 else r.randint(-256, 256) / 4)
            default = r.getrandbits(32)
            return p.spec_constant(ty, default, default if r.random() < 0.4 else r.getrandbits(32))
        if ty == "%float":
            return self.spec_value(ty, 3)
        if ty == "%bool" and r.random() < 0.4:
            name = r.choice(sorted(SPEC_LOGICAL))
            opcode, count, model = SPEC_LOGICAL[name]
            args = [self.spec_value("%bool", depth + 1) for _ in range(count)]
            self.p.note("spec." + name)
            return p.spec_op(ty, opcode, args, model(*[p.constant_value(a) for a in args]))
        if ty != "%bool" and r.random() < 0.15:
            return self.spec_lane(ty, depth)
        if ty != "%bool" and r.random() < 0.15:
            args = [self.spec_value("%bool", depth + 1), self.spec_value(ty, depth + 1), self.spec_value(ty, depth + 1)]
            self.p.note("spec.select")
            condition, accept, reject = map(p.constant_value, args)
            return p.spec_op(ty, "OpSelect", args, accept if condition else reject)
        wanted = {"%bool": ("bool",), "%uint": ("either", "uint"), "%int": ("either", "int")}[ty]
        name = r.choice([n for n in SPEC_INTEGER if INTEGER[n][2] in wanted])
        opcode, operands, result, model = INTEGER[name]
        fixed = {"uint": "%uint", "int": "%int"}.get(result)
        args = []
        for kind in operands:
            operand_ty = fixed or r.choice(["%uint", "%int"])
            args.append(self.spec_operand(kind, operand_ty, depth))
        self.p.note("spec." + name)
        value = model(*[p.constant_value(a) & MASK for a in args])
        return p.spec_op(ty, opcode, args, value if result == "bool" else value & MASK)

    def spec_lane(self, ty, depth):
        """A lane of a vector of specialization-dependent constants (OpSpecConstantComposite),
        maybe shuffled with another or with a lane inserted first, taken by OpSpecConstantOp
        CompositeExtract."""
        r, p = self.r, self.p
        width = r.choice([2, 3, 4])
        vector = p.spec_composite(vector_type(ty, width), [self.spec_value(ty, depth + 1) for _ in range(width)])
        value = p.constant_value(vector)
        choice = r.random()
        if choice < 0.35:
            other = p.spec_composite(vector_type(ty, width), [self.spec_value(ty, depth + 1) for _ in range(width)])
            lanes = [r.randrange(2 * width) for _ in range(r.choice([2, 3, 4]))]
            value = [(value + p.constant_value(other))[lane] for lane in lanes]
            vector = p.spec_op(vector_type(ty, len(lanes)), "OpVectorShuffle", [vector, other, *map(str, lanes)], value)
            self.p.note("spec.shuffle")
        elif choice < 0.7:
            part, at = self.spec_value(ty, depth + 1), r.randrange(width)
            value = value[:at] + [p.constant_value(part)] + value[at + 1:]
            vector = p.spec_op(vector_type(ty, width), "OpCompositeInsert", [part, vector, str(at)], value)
            self.p.note("spec.insert")
        lane = r.randrange(len(value))
        self.p.note("spec.extract")
        return p.spec_op(ty, "OpCompositeExtract", [vector, str(lane)], value[lane])

    def spec_operand(self, kind, ty, depth):
        """An operand of `INTEGER`'s kind `kind` and type `ty` for an OpSpecConstantOp: an ordinary
        constant, or a specialization constant whose default and value both are of the kind."""
        r, p = self.r, self.p
        if kind == "any":
            if r.random() < 0.25:
                value = r.getrandbits(32)
                return self.c(value) if ty == "%uint" else p.int_const(signed(value))
            return self.spec_value(ty, depth + 1)
        draw = {
            "divisor": lambda: r.randint(2, 255) * r.choice([1, -1]) & MASK,
            "udivisor": lambda: r.getrandbits(32) | 1,
            "shift": lambda: r.randrange(32),
        }[kind]
        if r.random() < 0.3:
            value = draw()
            return self.c(value) if ty == "%uint" else p.int_const(signed(value))
        default = draw()
        return p.spec_constant(ty, default, default if r.random() < 0.4 else draw())

    def statement_half(self, ctx):
        self.statement_float(ctx, "%half")

    def statement_float(self, ctx, real="%float"):
        """An operation on 32-bit floats, or 16-bit ones (`real`; no matrices and no
        OpQuantizeToF16 then), of `FLOAT`, on scalars or vectors of two to four, whose result is
        read into acc lane by lane (a float as its multiple of 1/64, converted)."""
        r = self.r
        name = r.choice(sorted(FLOAT) if real == "%float" else HALF)
        spelling, operands, result, _ = FLOAT[name]
        if result == "matrix":
            self.matrix_operation(name)
            return
        width = r.choice([2, 3, 4]) if spelling in ("OpDot", "OpVectorTimesScalar") else r.choice([1, 1, 2, 3, 4])
        args = [self.float_operand(kind, width, real) for kind in operands]
        scalar = {"float": real, "dot": real, "bool": "%bool", "int": "%int", "uint": "%uint"}[result]
        ty = scalar if result == "dot" else vector_type(scalar, width)
        value = self.float_op(name, ty, *args)
        self.p.note(("float." if real == "%float" else "half.") + name)
        if width > 1:
            self.p.note(f"float.vec{width}")
        self.fold_lanes(value, *scalar_and_width(ty))

    def matrix_operation(self, name):
        """A product, transpose or outer product of float matrices and vectors, its operands of
        the shapes the result's type asks for; every lane of the result is read into acc."""
        r = self.r
        shapes = [(entry[2], COMPOSITES[entry[1]][2]) for entry in COMPOSITES.values() if entry[0] == "matrix"]
        matrix = lambda shape: f"%mat{shape[0]}v{shape[1]}float"
        vector = lambda width: self.composite(vector_type("%float", width))
        if name == "matrix_times_matrix":
            # A of k columns of r rows times B of c columns of k rows: c columns of r rows.
            pairs = [(a, b) for a in shapes for b in shapes if b[1] == a[0] and (b[0], a[1]) in shapes]
            a, b = r.choice(pairs)
            ty, args = matrix((b[0], a[1])), [self.composite(matrix(a)), self.composite(matrix(b))]
        elif name == "transpose":
            a = r.choice([s for s in shapes if s[::-1] in shapes])
            ty, args = matrix(a[::-1]), [self.composite(matrix(a))]
        elif name == "outer_product":
            c, rows = r.choice(shapes)
            ty, args = matrix((c, rows)), [vector(rows), vector(c)]
        else:
            c, rows = r.choice(shapes)
            m = self.composite(matrix((c, rows)))
            if name == "matrix_times_vector":
                ty, args = vector_type("%float", rows), [m, vector(c)]
            elif name == "vector_times_matrix":
                ty, args = vector_type("%float", c), [vector(rows), m]
            else:
                ty, args = matrix((c, rows)), [m, self.float_value(1)]
        result = self.float_op(name, ty, *args)
        self.p.note("float." + name)
        self.fold(result, ty, 3)

    def float_op(self, name, ty, *args):
        return self.inst("float", name, ty, *args)

    def float_operand(self, kind, width, real="%float"):
        """An operand of the kind `FLOAT` names, of `width` components of type `real`."""
        r = self.r
        ty = vector_type(real, width)
        if kind == "nonnegative":
            return self.float_op("fabs", ty, self.float_value(width, real))
        if kind == "scalar":
            return self.float_value(1, real)
        if kind == "exponent":
            parts = [self.p.int_const(r.randint(-2, 3)) for _ in range(width)]
            return parts[0] if width == 1 else self.inst("compose", vector_type("%int", width), *parts)
        if kind == "any":
            return self.float_value(width, real)
        count, step, _, _ = FLOAT_VALUES[real]
        constants = {
            "power": lambda: r.choice([-4.0, -2.0, -0.5, 0.5, 2.0, 4.0]),
            "low": lambda: r.randint(-count, 0) / step,
            "high": lambda: r.randint(0, count) / step,
            "weight": lambda: r.randint(0, 4) / 4,
        }[kind]
        parts = [self.p.float_const(constants(), real) for _ in range(width)]
        return parts[0] if width == 1 else self.inst("compose", ty, *parts)

    def float_value(self, width, real="%float", at_run_time=False, values_of=None):
        """A float of type `real` (or vector) whose components are constants or a value at hand
        made one of those `FLOAT_VALUES` allows (for type `values_of`, if given, else `real`),
        converted from an integer as unsigned or signed; `at_run_time`, the first made of an
        input word, so that no driver sees a constant."""
        r = self.r
        count, step, mask, center = FLOAT_VALUES[values_of or real]
        parts = []
        for lane in range(width):
            if not (at_run_time and lane == 0) and r.random() < 0.3:
                parts.append(self.p.float_const(r.randint(-count, count) / step, real))
                continue
            small = self.emit("and", self.read() if at_run_time and lane == 0 else self.any_value(), self.c(mask))
            if r.random() < 0.5:
                converted = self.inst("to_float", real, "OpConvertUToF", small)
            else:
                converted = self.inst("to_float", real, "OpConvertSToF", self.emit("bitcast", "%int", small))
            centered = self.float_op("fsub", real, converted, self.p.float_const(float(center), real))
            parts.append(self.float_op("fmul", real, centered, self.p.float_const(1 / step, real)))
        return parts[0] if width == 1 else self.inst("compose", vector_type(real, width), *parts)

    # --- operations on bits ------------------------------------------------------------------

    def statement_bits(self, ctx):
        """An operation on bits: integer arithmetic with two results (`EXTENDED`), floats packed
        into a word and back (`PACKING`), OpBitcast between floats and integers, or OpAny and
        OpAll of a comparison's lanes; every lane of what it gives is read into acc."""
        getattr(self, "bits_" + self.r.choice(["extended", "packing", "reinterpret", "any_all"]))()

    def bits_extended(self):
        """OpIAddCarry, OpISubBorrow, OpUMulExtended or OpSMulExtended: both members of the result
        read."""
        r = self.r
        name = r.choice(sorted(EXTENDED))
        scalar = EXTENDED[name][1] or r.choice(["%uint", "%int"])
        width = r.choice([1, 1, 2, 3, 4])
        ty = vector_type(scalar, width)
        args = [self.integer_value(scalar, [self.any_value() for _ in range(width)]) for _ in range(2)]
        result = self.inst("extended", name, f"%X{ty[1:]}", *args)
        self.p.note("bits." + name)
        for member in (0, 1):
            self.fold_lanes(self.inst("extract", ty, result, member), scalar, width)

    def integer_value(self, scalar, parts):
        """A `scalar` (`%uint` or `%int`) or a vector of that of the u32 values `parts`."""
        value = parts[0] if len(parts) == 1 else self.inst("compose", vector_type("%uint", len(parts)), *parts)
        return self.emit("bitcast", vector_type(scalar, len(parts)), value) if scalar == "%int" else value

    def bits_packing(self):
        """A GLSL.std.450 packing of floats into a word (`PACKING`) or a word of two halves into
        floats; the word unpacked is one packed from floats exact in f16, maybe with signs
        flipped."""
        r = self.r
        name = r.choice(sorted(PACKING))
        _, operand_ty, result_ty, _ = PACKING[name]
        # Floats exact in f16: how PackHalf2x16 rounds the others is the device's choice.
        if name == "unpackhalf":
            floats = self.float_value(2, at_run_time=True, values_of="%half")
            operand = self.inst("packing", "packhalf", "%uint", floats)
            if r.random() < 0.5:
                operand = self.emit("xor", operand, self.c(r.choice([0x8000, 0x8000_0000, 0x8000_8000])))
        elif name == "packhalf":
            operand = self.float_value(2, values_of="%half")
        else:
            operand = self.odd_eighths(scalar_and_width(operand_ty)[1])
        self.p.note("bits." + name)
        self.fold_lanes(self.inst("packing", name, result_ty, operand), *scalar_and_width(result_ty))

    def odd_eighths(self, width):
        """A vector of floats, odd multiples of 1/8 from -15/8 to 15/8, computed from values at
        hand (constants too): scaled by an odd number, none is halfway between two integers
        (`PACKING`)."""
        parts = []
        for _ in range(width):
            small = self.inst("to_float", "%float", "OpConvertUToF", self.emit("and", self.any_value(), self.c(15)))
            centered = self.float_op("fsub", "%float", small, self.p.float_const(7.5))
            parts.append(self.float_op("fmul", "%float", centered, self.p.float_const(0.25)))
        return self.inst("compose", vector_type("%float", width), *parts)

    def bits_reinterpret(self):
        """OpBitcast of floats to integers of their width (f32 lanes to u32 or i32 ones, two f16
        lanes to one) and back to floats, the integers maybe with the floats' signs flipped
        first; both read."""
        r = self.r
        real = "%half" if self.p.halves and r.random() < 0.5 else "%float"
        if real == "%half":
            width = r.choice([2, 4])
            int_width, sign = width // 2, 0x8000_8000
        else:
            width = int_width = r.choice([1, 1, 2, 3, 4])
            sign = 0x8000_0000
        floats, integer = vector_type(real, width), vector_type(r.choice(["%uint", "%int"]), int_width)
        # WGSL has the f16 pairs go through a word by pack2x16float and unpack2x16float.
        bits = self.inst("reinterpret", integer, self.float_value(width, real, at_run_time=real == "%half"), floats)
        self.fold_lanes(bits, *scalar_and_width(integer))
        if r.random() < 0.5:
            signs = self.integer_value(scalar_and_width(integer)[0], [self.c(sign)] * int_width)
            bits = self.inst("integer", "bxor", integer, bits, signs)
            self.p.note("bits.reinterpret.negated")
        self.p.note("bits.reinterpret" + real[1:])
        self.fold_lanes(self.inst("reinterpret", floats, bits, integer), real, width)

    def bits_any_all(self):
        """OpAny or OpAll of the lanes of an integer comparison."""
        r = self.r
        vector, _ = self.integer(r.choice(sorted(n for n, entry in INTEGER.items() if entry[2] == "bool")),
                                 r.choice([2, 3, 4]))
        opcode = r.choice(["OpAny", "OpAll"])
        self.p.note("bits." + opcode)
        self.fold_scalar(self.inst("any_all", opcode, vector), "%bool")

    # --- textures ------------------------------------------------------------------------------

    def statement_texture(self, ctx):
        """An image instruction on a texture (`spirv_textures`): a fetch, a sample, a gather or a
        query, or a read, write or query of a storage image; every lane of what it gives is read
        into acc."""
        getattr(self, "texture_" + self.r.choice(["fetch", "sample", "sample", "gather", "query", "storage",
                                                  "storage", "compare"]))()

    def handle(self, var):
        """A value of the handle `var` (a texture, the sampler, the combined image sampler): one
        at hand (loaded in a block that dominates this one), or loaded now, maybe copied."""
        r = self.r
        at_hand = sorted(h for h, v in self.handles if v == var)
        if at_hand and r.random() < 0.6:
            self.p.note("texture.handle_at_hand")
            return r.choice(at_hand)
        ty = {**TEXTURES, **STORAGE_IMAGES}[var][0] if var not in (SAMPLER, COMPARE_SAMPLER) else "%smp_t"
        source = var
        if self.fn.handle and self.fn.handle[0] == var and r.random() < 0.7:
            # The helper's own parameter: loaded through, or the handle itself.
            if self.fn.handle[1] == "value":
                self.p.note("texture.handle_parameter")
                return self.fn.params[-1]
            source = self.fn.params[-1]
        value = self.inst("load_handle", ty, source)
        if r.random() < 0.2:
            value = self.inst("copy", ty, value)
            self.p.note("texture.handle_copied")
        self.handles = self.handles | {(value, var)}
        return value

    def image(self, var):
        """An image of the texture `var`; of the combined image sampler, through OpImage."""
        if var != "%comb":
            return self.handle(var)
        self.p.note("texture.image_of_combined")
        return self.inst("image_of", "%img_f", self.handle(var))

    def sampled(self, var, separate=False, sampler=SAMPLER):
        """A sampled image of `var`: the combined image sampler as loaded, or (`separate`) an
        OpSampledImage of an image and `sampler`, in this block (as SPIR-V requires)."""
        if var == "%comb" and not separate and self.r.random() < 0.7:
            return self.handle(var)
        self.p.note("texture.sampled_image")
        ty = SAMPLED_TYPES.get(var, "%si_f")
        return self.inst("sampled_image", ty, self.image(var), self.handle(sampler))

    def level(self, level):
        """The mip level `level` as an integer: a constant, signed or not, or computed."""
        r = self.r
        computed = lambda: self.emit("add", self.emit("and", self.any_value(), self.c(0)), self.c(level))
        return r.choice([lambda: self.c(level), lambda: self.p.int_const(level), computed])()

    def offset(self, offset):
        """The constant `offset`, a vector of two i32."""
        return self.p.composite_const("%v2int", [self.p.int_const(o) for o in offset])

    def fold_texel(self, texel, fmt):
        """Reads the four lanes of a texel of the format `fmt` into acc (bytes of an rgba8unorm one
        as the bytes)."""
        kind = TEXEL_KIND[fmt]
        if kind == "depth":
            # (d, 0, 0, 1): d back into its 16 bits, the rest as floats.
            self.fold_unorm(texel, [0], 16)
            for lane in range(1, 4):
                self.fold_scalar(self.inst("extract", "%float", texel, lane), "%float")
        elif kind == "unorm":
            self.fold_unorm(texel, range(4), 8)
        else:
            self.fold_lanes(texel, f"%{kind}", 4)

    def fold_unorm(self, texel, lanes, bits):
        """Reads the `lanes` of `texel`, unorm values of `bits` bits, into acc as those bits."""
        op = "unorm" if bits == 8 else "unorm16"
        self.p.float_const(255.0 if bits == 8 else 65535.0)
        for lane in lanes:
            self.fold_scalar(self.inst(op, self.inst("extract", "%float", texel, lane)), "%uint")

    def texture_fetch(self, var=None):
        """OpImageFetch at integer coordinates (u32 or i32) in range, maybe with a constant
        offset (which the coordinates leave in range too)."""
        r = self.r
        var = var or r.choice(sorted(set(TEXTURES) - {CUBE}))  # SPIR-V fetches no texel of a cube
        t = self.p.textures.by_var[var]
        level = r.randrange(t.levels)
        sizes = t.size(level)
        offset = [0, 0]
        if r.random() < 0.3:
            offset = [r.randint(-min(2, size - 1), min(2, size - 1)) for size in sizes]
        parts = [self.emit("add", self.emit("umod", self.any_value(), self.c(size - abs(o))), self.c(max(0, -o)))
                 for size, o in zip(sizes, offset)]
        if t.arrayed:
            parts.append(self.emit("umod", self.any_value(), self.c(t.layers)))
            self.p.note("texture.fetch.layer")
        width = len(parts)
        coordinate = self.inst("compose", f"%v{width}uint", *parts)
        if r.random() < 0.5:
            coordinate = self.inst("bitcast", f"%v{width}int", coordinate)
            self.p.note("texture.signed_coordinates")
        operand = f"ConstOffset {self.offset(offset)}" if offset != [0, 0] or r.random() < 0.1 else ""
        self.p.note(f"texture.fetch.{t.format}" + (".offset" if operand else ""))
        operand += self.extension_operands(t.format == "r32uint")
        ty = "%v4uint" if t.format == "r32uint" else "%v4float"
        if level:
            self.p.note("texture.fetch.level")
        texel = self.inst("fetch", ty, self.image(var), coordinate, f"Lod {self.level(level)}", offset, operand, level)
        self.fold_texel(texel, t.format)

    def coordinates(self, sizes, shift, beyond):
        """Normalized coordinates ((x - 2) + shift) / size on each axis of `sizes` (a level's), x
        under size + `beyond` computed at run time (so from two texels before the texture to past
        its end)."""
        parts = []
        for size in sizes:
            x = self.emit("umod", self.any_value(), self.c(size + beyond))
            parts.append(self.inst("texcoord", x, shift, size, self.p.float_const(shift),
                                   self.p.float_const(1.0 / size)))
        self.p.int_const(2)
        return self.inst("compose", "%v2float", *parts)

    def cube_coordinates(self, size, gather=False):
        """A direction a quarter, half or three quarters into a texel of a cube's face of `size`
        texels a side (a level's), or (`gather`) halfway between four texel centres, where the
        footprint stays on the face; the texel computed at run time, the face and the major axis's
        length (0.5 to 2) constant."""
        r = self.r
        face = r.randrange(6)
        major = r.choice([0.5, 1.0, 2.0])
        shift = 1.0 if gather else r.choice([0.25, 0.5, 0.75])
        x, y = (self.emit("umod", self.any_value(), self.c(size - gather)) for _ in range(2))
        self.p.note("texture.cube.face")
        return self.inst("cube_direction", x, y, face, shift, size, major, self.p.float_const(shift),
                         self.p.float_const(2 * major / size), self.p.float_const(major),
                         self.p.float_const(-major if face % 2 else major))

    def layered(self, var, coordinate):
        """`coordinate` with a float layer after it for the array texture `var`: near a layer
        (a constant, maybe a half, rounded to even) or beyond the array (clamped)."""
        t = self.p.textures.by_var[var]
        if not t.arrayed:
            return coordinate
        layer = self.r.choice([-1.0, -0.4, 0.0, 0.4, 0.5, 1.0, 1.5, 1.6, 2.5, t.arrays() + 1.0])
        self.p.note("texture.layer")
        return self.inst("compose", "%v4float" if t.cube else "%v3float", coordinate, self.p.float_const(layer))

    def texture_coordinates(self, var, level, gather=False):
        """Coordinates into level `level` of `var` for a sample or (`gather`) a gather:
        `coordinates` of a 2D texture (a quarter, half or three quarters into a texel, or halfway
        between texel centres), `cube_coordinates` of a cube, then the layer of an array."""
        t = self.p.textures.by_var[var]
        size = t.size(level)
        if t.cube:
            coordinate = self.cube_coordinates(size[0], gather)
        elif gather:
            coordinate = self.coordinates(size, 1.0, 3)
        else:
            coordinate = self.coordinates(size, self.r.choice([0.25, 0.5, 0.75]), 4)
        return self.layered(var, coordinate)

    def texture_sample(self, var=None, separate=False):
        """OpImageSampleExplicitLod with the nearest sampler at a quarter, half or three quarters
        into a texel, inside the texture or clamped to its edge, maybe with a constant offset;
        the level of detail any (the texture has one level) or from gradients. An unsigned
        texture too, which WGSL cannot sample."""
        r = self.r
        var = var or r.choice(["%tex_u", "%tex_c", "%comb", "%tex_d", "%tex_a", CUBE])
        t = self.p.textures.by_var[var]
        level = r.randrange(t.levels)
        coordinate = self.texture_coordinates(var, level)
        last = level == t.levels - 1
        # WGSL samples a depth texture at a level only, never with gradients; a cube's gradients
        # are the direction's, which the model leaves out.
        if r.random() < 0.7 or var in ("%tex_d", CUBE):
            # Nearest mipmapping reads level l from a level of detail over l - 0.5 up to l + 0.5;
            # below 0, level 0; past the last level, the last.
            lods = [-1.0, 0.0, 0.25] if level == 0 else [level - 0.25, float(level), level + 0.25]
            lod = f"Lod {self.p.float_const(r.choice(lods + [level + 3.0] * last))}"
        else:
            # Gradients of none or under one texel (level of detail below 0: level 0), or of 2**l
            # texels of level 0 along one axis (level of detail l), or more past the last level.
            sizes = (t.width, t.height)
            span = 2 ** (level + 3 * (last and r.random() < 0.3))
            axis = r.randrange(2)
            long = [self.p.float_const(span / sizes[k] if k == axis else 0.0) for k in range(2)]
            short = [self.p.float_const(0.125), self.p.float_const(0.0)]
            if level == 0 and r.random() < 0.5:
                pair = [r.choice([None, short]), r.choice([None, short])]
            else:
                pair = r.choice([[long, None], [None, long], [long, long]])
            gradients = [self.p.composite_const("%v2float", choice) for choice in pair]
            lod = "Grad " + " ".join(gradients)
            self.p.note("texture.sample.grad")
        # SPIR-V offsets no cube's texels.
        offset = [r.randint(-2, 2), r.randint(-2, 2)] if r.random() < 0.3 and not t.cube else [0, 0]
        operand = f"ConstOffset {self.offset(offset)}" if offset != [0, 0] else ""
        ty = "%v4uint" if t.format == "r32uint" else "%v4float"
        self.p.note(f"texture.sample.{t.format}" + (".offset" if operand else ""))
        if level:
            self.p.note("texture.sample.level")
        op = "sample"
        if r.random() < 0.25 and not t.arrayed and not t.cube:
            # Projective: (u q, v q, q), a power of two.
            q = r.choice([0.5, 1.0, 2.0, 4.0])
            coordinate, op = self.inst("projective", coordinate, self.p.float_const(q), q), "sample_proj"
            self.p.note("texture.sample.projective")
        texel = self.inst(op, ty, self.sampled(var, separate), coordinate, lod, offset, operand, level)
        self.fold_texel(texel, t.format)

    def gather_offsets(self):
        """A gather's offsets and their image operand: none, a constant offset or four."""
        r = self.r
        kind = r.choice(["none", "none", "offset", "offsets"])
        offsets, operand = [[0, 0]], ""
        if kind == "offset":
            offsets = [[r.randint(-2, 2), r.randint(-2, 2)]]
            operand = f"ConstOffset {self.offset(offsets[0])}"
        elif kind == "offsets":
            offsets = [[r.randint(-2, 2), r.randint(-2, 2)] for _ in range(4)]
            operand = "ConstOffsets " + self.p.composite_const("%arr4v2int", [self.offset(o) for o in offsets])
        self.p.note(f"texture.gather.{kind}")
        return offsets, operand

    def texture_gather(self):
        """OpImageGather of one component of the 2x2 footprint at a corner between four texel
        centres, inside or at the edge (clamped), maybe with a constant offset or four; of a
        depth texture, whose other components are 0, 0 and 1, too."""
        r = self.r
        var = r.choice(["%tex_c", "%comb", "%tex_d", "%tex_a", CUBE])
        t = self.p.textures.by_var[var]
        coordinate = self.texture_coordinates(var, 0, gather=True)
        component = r.randrange(4)
        offsets, operand = ([[0, 0]], "") if t.cube else self.gather_offsets()
        name = r.choice([self.c(component), self.p.int_const(component)])
        texel = self.inst("gather", "%v4float", self.sampled(var), coordinate, name, component, offsets, operand)
        if var != "%tex_d":
            self.fold_texel(texel, t.format)
        elif component == 0:
            self.fold_unorm(texel, range(4), 16)
        else:
            self.fold_lanes(texel, "%float", 4)

    def texture_compare(self):
        """A depth comparison with the comparison sampler, at level 0 (WGSL compares at no other):
        OpImageSampleDrefExplicitLod, maybe projective or with a constant offset, or
        OpImageDrefGather, maybe with offsets. References lie halfway between two of the texels'
        possible values, or beyond both ends (clamped)."""
        r = self.r
        t = self.p.textures.by_var["%tex_d"]
        reference = r.choice([-0.5, 1.5] + [(r.randint(0, 255) * 256 + 128) / 65535 for _ in range(3)])
        sampled = lambda: self.sampled("%tex_d", sampler=COMPARE_SAMPLER)
        if r.random() < 0.3:
            coordinate = self.coordinates(t.size(0), 1.0, 3)
            offsets, operand = self.gather_offsets()
            self.p.note("texture.compare.gather")
            result = self.inst("gather_dref", "%v4float", sampled(), coordinate, self.p.float_const(reference),
                               offsets, operand)
            self.fold_lanes(result, "%float", 4)
            return
        coordinate = self.coordinates(t.size(0), r.choice([0.25, 0.5, 0.75]), 4)
        offset = [r.randint(-2, 2), r.randint(-2, 2)] if r.random() < 0.3 else [0, 0]
        operand = f"ConstOffset {self.offset(offset)}" if offset != [0, 0] else ""
        self.p.float_const(0.0)
        op = "sample_dref"
        if r.random() < 0.25:
            q = r.choice([0.5, 2.0, 4.0])
            coordinate, op = self.inst("projective", coordinate, self.p.float_const(q), q), "sample_proj_dref"
            reference *= q
            self.p.note("texture.compare.projective")
        self.p.note("texture.compare.sample" + (".offset" if operand else ""))
        result = self.inst(op, "%float", sampled(), coordinate, self.p.float_const(reference), offset, operand)
        self.fold_scalar(result, "%float")

    def texture_query(self, var=None):
        """OpImageQuerySizeLod (u32 or i32) or OpImageQueryLevels."""
        r = self.r
        var = var or r.choice(sorted(TEXTURES))
        image = self.image(var)
        if r.random() < 0.7:
            ty = r.choice(["%v2uint", "%v2int"])
            if self.p.textures.by_var[var].arrayed:
                ty = ty.replace("2", "3")
            level = r.randrange(self.p.textures.by_var[var].levels)
            self.p.note("texture.query_size")
            self.fold_lanes(self.inst("query_size", ty, image, self.level(level), level), *scalar_and_width(ty))
        else:
            ty = r.choice(["%uint", "%int"])
            self.p.note("texture.query_levels")
            self.fold_scalar(self.inst("query_levels", ty, image), ty)

    def texture_storage(self, var=None, write=None):
        """OpImageRead or OpImageWrite of a storage image, of a texel in this invocation's column
        (any texel of the read-only image), a scalar written to a single-channel one now and then
        (Vulkan reads four lanes always); or OpImageQuerySize."""
        r = self.r
        var = var or r.choice(sorted(STORAGE_IMAGES))
        image = self.p.textures.storage[var]
        access = STORAGE_IMAGES[var][5]
        handle = self.handle(var)
        if write is None and r.random() < 0.15:
            ty = r.choice(["%v2uint", "%v2int"])
            self.p.note("texture.storage_size")
            self.fold_lanes(self.inst("storage_size", ty, handle), *scalar_and_width(ty))
            return
        row = self.emit("umod", self.any_value(), self.c(image.height))
        if access == "r":
            column = self.emit("umod", self.any_value(), self.c(image.width))
        else:
            column = self.emit("shr", self.base, self.c(WORDS.bit_length() - 1))  # the global id
        coordinate = self.inst("compose", "%v2uint", column, row)
        if r.random() < 0.5:
            coordinate = self.inst("bitcast", "%v2int", coordinate)
        if write is None:
            write = access == "w" or access == "rw" and r.random() < 0.5
        scalar = "%uint" if image.format == "r32uint" else "%float"
        single = write and image.format != "rgba32float" and r.random() < 0.3
        self.p.note(f"texture.storage_{'write' if write else 'read'}.{image.format}" + ".scalar" * single)
        if write:
            if scalar == "%uint":
                texel = self.any_value() if single else self.inst(
                    "compose", "%v4uint", *[self.any_value() for _ in range(4)])
            else:
                texel = self.float_value(1 if single else 4)
            self.inst("image_write", handle, coordinate, texel)
            return
        operands = self.extension_operands(image.format == "r32uint")
        self.fold_texel(self.inst("image_read", vector_type(scalar, 4), handle, coordinate, operands), image.format)

    def extension_operands(self, unsigned):
        """Now and then, image operands that change nothing here: `ZeroExtend` of an unsigned
        texel (SPIR-V 1.4), `Nontemporal` (1.6); `;`-separated clauses, each after a `;`."""
        r = self.r
        clauses = ""
        if unsigned and self.p.minor_version >= 4 and r.random() < 0.3:
            clauses += ";ZeroExtend"
            self.p.note("texture.zero_extend")
        if self.p.minor_version >= 6 and r.random() < 0.3:
            clauses += ";Nontemporal"
            self.p.note("texture.nontemporal")
        return clauses

    def use_handle(self, var):
        """An image instruction on the handle `var`."""
        if var in STORAGE_IMAGES:
            self.texture_storage(var)
        elif var == COMPARE_SAMPLER:
            self.texture_compare()
        elif var == SAMPLER:
            self.texture_sample("%tex_c", separate=True)
        elif var == "%tex_f" or var != CUBE and self.r.random() < 0.5:
            self.texture_fetch(var)
        else:
            self.texture_sample(var)

    def use_every_texture(self):
        """Reads each texture and the sampler once, and each storage image, the written-only one
        written (wgpu rejects a binding the WGSL lacks)."""
        for var in sorted(set(TEXTURES) - {CUBE}):
            self.texture_fetch(var)
        self.texture_sample(CUBE)
        self.texture_sample("%tex_c", separate=True)
        self.texture_compare()
        for var, entry in sorted(STORAGE_IMAGES.items()):
            self.texture_storage(var, write=entry[5] == "w")

    # --- composites and function variables -------------------------------------------------

    def zero(self, ty):
        return self.c(0) if ty == "%uint" else self.p.composite_const(ty, None)

    def constant(self, ty):
        """A constant of `ty`; of a composite type, maybe an OpConstantNull."""
        r = self.r
        if ty == "%uint":
            return self.c(r.getrandbits(32))
        if ty == "%int":
            return self.p.int_const(r.randint(-1000, 1000))
        if ty == "%float":
            return self.p.float_const(r.randint(-256, 256) / 4)
        if ty == "%bool":
            return self.p.bool_const(r.random() < 0.5)
        if r.random() < 0.15:
            return self.p.composite_const(ty, None)
        return self.p.composite_const(ty, [self.constant(m) for m in members(ty)])

    def value(self, ty):
        """A value of `ty`: one at hand or new."""
        r = self.r
        if ty in COMPOSITES:
            return self.composite(ty)
        if ty == "%uint":
            return self.any_value()
        if ty == "%int":
            return self.p.int_const(r.randint(-500, 500)) if r.random() < 0.3 else self.emit("bitcast", "%int", self.any_value())
        if ty == "%float":
            return self.float_value(1)
        if self.bools and r.random() < 0.7:
            return r.choice(sorted(self.bools))
        return self.p.bool_const(r.random() < 0.5)

    def composite(self, ty, fresh=False):
        """A value of the composite type `ty`: one at hand (unless `fresh`), or a new one: a
        constant, composed of values (a vector maybe of a shorter vector and scalars), an
        OpUndef with each member inserted, a copy, or (from SPIR-V 1.4) an OpCopyLogical of a
        value of its twin (the same type with or without an explicit layout)."""
        r = self.r
        at_hand = sorted(c for c, t in self.comps if t == ty)
        if at_hand and not fresh and r.random() < 0.5:
            return r.choice(at_hand)
        ways = ["constant", "compose", "compose", "undef", "copy"]
        if ty in TWINS and self.p.version != "1.3":
            ways.append("logical")
        way = r.choice(ways)
        self.p.note("composite." + way)
        if way == "logical":
            result = self.inst("copy_logical", ty, self.composite(TWINS[ty]))
        elif way == "constant":
            result = self.constant(ty)
        elif way == "undef":
            result = self.inst("undef", ty)
            order = list(enumerate(members(ty)))
            r.shuffle(order)
            for index, member in order:
                result = self.inst("composite_insert", ty, self.value(member), result, index)
        elif way == "copy":
            result = self.inst("copy", ty, self.composite(ty))
        elif COMPOSITES[ty][0] == "vector" and COMPOSITES[ty][2] > 2 and r.random() < 0.4:
            _, scalar, width = COMPOSITES[ty]
            shorter = r.randint(2, width - 1)
            parts = [self.composite(vector_type(scalar, shorter))]
            parts += [self.value(scalar) for _ in range(width - shorter)]
            r.shuffle(parts)
            self.p.note("composite.compose_of_vector")
            result = self.inst("compose", ty, *parts)
        else:
            result = self.inst("compose", ty, *[self.value(m) for m in members(ty)])
        self.comps = self.comps | {(result, ty)}
        return result

    def path(self, ty, full=True):
        """Member indices from `ty` down to a leaf (or, without `full`, to some member) and the
        type there."""
        path = []
        while ty in COMPOSITES and (full or not path or self.r.random() < 0.5):
            inner = members(ty)
            path.append(self.r.randrange(len(inner)))
            ty = inner[path[-1]]
        return path, ty

    def fold(self, value, ty, count=1):
        """Folds `count` leaves of the composite `value` into acc."""
        for _ in range(count):
            path, leaf = self.path(ty)
            self.fold_scalar(self.emit("extract", leaf, value, *path), leaf)

    def fold_scalar(self, value, ty, into_acc=True):
        """Makes `value` of the scalar type `ty` one at hand (a u32 one) and folds it into acc (a
        float as its multiple of 1/64, converted; a 16-bit one converted to 32 bits first)."""
        if ty == "%half":
            value, ty = self.inst("fconvert", "%float", value), "%float"
        if ty == "%float":
            scaled = self.float_op("fmul", "%float", value, self.p.float_const(64.0))
            value, ty = self.float_op("ftos", "%int", scaled), "%int"
        if ty == "%bool":
            self.bools = self.bools | {value}
            value = self.emit("select", value, self.c(self.r.getrandbits(32)), self.c(self.r.getrandbits(32)))
        elif ty == "%int":
            value = self.emit("to_uint", value)
        else:
            self.avail = self.avail | {value}
        if into_acc:
            self.state["acc"] = self.emit("mul", self.emit("xor", self.state["acc"], value), self.c(FNV_PRIME))

    def fold_lanes(self, value, scalar, width, into_acc=lambda: True):
        """`fold_scalar` on each lane of `value`, a vector of `width` (1: a scalar) of `scalar`."""
        for index in range(width):
            lane = value if width == 1 else self.emit("extract", scalar, value, index)
            self.fold_scalar(lane, scalar, into_acc())

    def index(self, length):
        """A value under `length` computed at run time, u32 or i32."""
        index = self.any_value()
        if length & (length - 1):
            index = self.emit("umod", index, self.c(length))
        else:
            index = self.emit("and", index, self.c(length - 1))
        return self.emit("bitcast", "%int", index) if self.r.random() < 0.3 else index

    def statement_composite(self, ctx):
        """An operation on composite values (vectors of u32, i32 and bool, arrays, a struct, arrays
        of them) or on a function variable of such a type; what it gives is read into acc."""
        r = self.r
        kind = r.choice(["build", "insert", "extract", "shuffle", "dynamic", "select", "variable", "variable", "variable", "variable"]
                        + ["agg"] * ("agg" in self.state) + ["logical"] * (self.p.version != "1.3"))
        self.p.note("composite_statement." + kind)
        ty = r.choice(sorted(COMPOSITES))
        if kind == "build":
            self.fold(self.composite(ty, fresh=True), ty)
        elif kind == "insert":
            path, part = self.path(ty, full=False)
            result = self.inst("composite_insert", ty, self.value(part), self.composite(ty), *path)
            self.comps = self.comps | {(result, ty)}
            self.fold(result, ty, 2)
        elif kind == "extract":
            ty = r.choice(["%S", "%arr2S", "%arr2v2int", "%SF", "%mat3v3float"])
            path, part = self.path(ty, full=False)
            result = self.emit("extract", part, self.composite(ty), *path)
            if part in COMPOSITES:
                self.comps = self.comps | {(result, part)}
                self.fold(result, part)
            else:
                self.fold_scalar(result, part)
        elif kind == "shuffle":
            self.shuffle()
        elif kind == "dynamic":
            self.dynamic()
        elif kind == "select":
            self.select_composite()
        elif kind == "variable":
            self.variable()
        elif kind == "logical":
            ty = r.choice(sorted(TWINS))
            result = self.inst("copy_logical", ty, self.composite(TWINS[ty]))
            self.comps = self.comps | {(result, ty)}
            self.fold(result, ty, 2)
        else:
            path, part = self.path(self.state_types["agg"], full=False)
            if r.random() < 0.6:
                agg = self.inst("composite_insert", self.state_types["agg"], self.value(part), self.state["agg"], *path)
                self.state["agg"] = agg
                self.comps = self.comps | {(agg, self.state_types["agg"])}
            else:
                self.fold(self.state["agg"], self.state_types["agg"])

    def shuffle(self):
        """OpVectorShuffle of two vectors of one component type and any widths; a lane may be
        0xFFFFFFFF (undefined), the result then read only at its other lanes."""
        r = self.r
        scalar = r.choice(["%uint", "%int", "%bool", "%float"])
        widths = [r.randint(2, 4), r.randint(2, 4)]
        a = self.composite(vector_type(scalar, widths[0]))
        if r.random() < 0.2:
            b, widths[1] = a, widths[0]
        else:
            b = self.composite(vector_type(scalar, widths[1]))
        lanes = [r.randrange(sum(widths)) for _ in range(r.randint(2, 4))]
        undefined = r.random() < 0.2
        if undefined:
            lanes[r.randrange(len(lanes))] = 0xFFFF_FFFF
            self.p.note("shuffle.undefined_lane")
        ty = vector_type(scalar, len(lanes))
        result = self.inst("shuffle", ty, a, b, *lanes)
        if undefined:
            for index, lane in enumerate(lanes):
                if lane != 0xFFFF_FFFF:
                    self.fold_scalar(self.emit("extract", scalar, result, index), scalar)
        else:
            self.comps = self.comps | {(result, ty)}
            self.fold(result, ty, 2)

    def dynamic(self):
        """OpVectorExtractDynamic or OpVectorInsertDynamic at an index computed at run time."""
        r = self.r
        scalar, width = r.choice(["%uint", "%int", "%bool", "%float"]), r.randint(2, 4)
        ty = vector_type(scalar, width)
        vector = self.composite(ty)
        index = self.index(width)
        if r.random() < 0.5:
            self.fold_scalar(self.inst("extract_dynamic", scalar, vector, index), scalar)
        else:
            result = self.inst("insert_dynamic", ty, vector, self.value(scalar), index)
            self.comps = self.comps | {(result, ty)}
            self.fold(result, ty, 2)

    def select_composite(self):
        """OpSelect of composites: vectors by a bool vector (lane by lane) or, from SPIR-V 1.4,
        any composite by one bool."""
        r = self.r
        types = sorted(COMPOSITES) if self.p.version != "1.3" else [t for t in COMPOSITES if t.startswith("%v")]
        ty = r.choice(types)
        kind = COMPOSITES[ty]
        if kind[0] == "vector" and (self.p.version == "1.3" or r.random() < 0.5):
            parts = [self.condition()] + [self.value("%bool") for _ in range(kind[2] - 1)]
            r.shuffle(parts)
            condition = self.inst("compose", vector_type("%bool", kind[2]), *parts)
            self.p.note("select.lanes")
        else:
            condition = self.condition()
        result = self.inst("select_composite", ty, condition, self.composite(ty), self.composite(ty))
        self.comps = self.comps | {(result, ty)}
        self.fold(result, ty, 2)

    def variable(self):
        """A function or private variable of a composite type (initialized by a constant), stored
        or loaded whole, copied into another of its type (`OpCopyMemory`), or reached at an element
        by an access chain (indices into arrays and vectors computed at run time) loaded or stored
        through at once, or kept for later statements where its definition dominates them."""
        r = self.r
        if self.pointers and r.random() < 0.5:
            self.p.note("variable.kept_pointer")
            self.through(*r.choice(sorted(self.pointers)))
            return
        var, ty = self.some_variable()
        action = r.choice(["store", "load", "copy", "element", "element", "element"])
        self.p.note("variable." + action)
        if action == "store":
            self.cur.insts.append((None, "store_variable", (var, self.composite(ty))))
        elif action == "load":
            result = self.inst("load_variable", ty, var)
            self.comps = self.comps | {(result, ty)}
            self.fold(result, ty)
        elif action == "copy":
            pair = [var, self.some_variable(ty, other_than=var)[0]]
            r.shuffle(pair)
            self.cur.insts.append((None, "copy_memory", tuple(pair)))
        else:
            path, element = self.path(ty, full=r.random() < 0.5)
            indices = []
            inner = ty
            for index in path:
                if COMPOSITES[inner][0] == "struct" or r.random() < 0.4:
                    indices.append(self.c(index) if r.random() < 0.5 else self.p.int_const(index))
                else:
                    indices.append(self.index(COMPOSITES[inner][2]))
                inner = members(inner)[index]
            storage = next(st for v, _, st in self.variables_at_hand() if v == var)
            pointer = self.inst("chain", element, storage, var, *indices)
            if r.random() < 0.6:
                self.pointers = self.pointers | {(pointer, element)}
            self.through(pointer, element)

    def variables_at_hand(self):
        """(variable, type, storage) of the variables this function may use: its own, the private
        ones, and the variable its pointer parameter points to."""
        at_hand = [(v, t, "Function") for v, t, _ in self.fn.variables]
        at_hand += [(v, t, "Private") for v, t, _ in self.p.privates]
        if self.fn.pointer:
            at_hand.append((self.fn.params[3], *self.fn.pointer))
        return at_hand

    def some_variable(self, ty=None, storage=None, other_than=None):
        """A variable (of type `ty`, in `storage`) this function may use, or a new one."""
        r = self.r
        ours = [(v, t) for v, t, st in self.variables_at_hand()
                if ty in (t, None) and storage in (st, None) and v != other_than]
        if ours and r.random() < 0.7:
            return r.choice(ours)
        ty = ty or r.choice([t for t in POINTEES if t in COMPOSITES])
        if storage == "Private" or storage is None and r.random() < 0.3:
            var = self.p.fresh("private")
            self.p.privates.append((var, ty, self.constant(ty)))
            self.p.note("variable.private")
        else:
            var = self.p.fresh("var")
            self.fn.variables.append((var, ty, self.constant(ty)))
        return var, ty

    def through(self, pointer, element):
        """A load or store through `pointer`, to a value of type `element`."""
        if self.r.random() < 0.5:
            self.cur.insts.append((None, "store_pointer", (pointer, self.value(element), self.memory_access())))
        else:
            self.load_through(pointer, element)

    def load_through(self, pointer, element):
        """A load through `pointer` of a value of type `element`, read into acc."""
        result = self.inst("load_pointer", element, pointer, self.memory_access())
        if element in COMPOSITES:
            self.comps = self.comps | {(result, element)}
            self.fold(result, element)
        else:
            self.fold_scalar(result, element)

    def memory_access(self):
        """Now and then, memory operands on a load or store, which change nothing here."""
        access = self.r.choice([""] * 12 + ["Aligned 4", "Nontemporal", "Volatile", "Volatile|Aligned 4", "None"])
        if access:
            self.p.note("memory_access")
        return access

    def statement_buffer(self, ctx):
        """A load or a store through an access chain into the invocation's element of the laid-out
        storage buffer (binding 2), down to a member, an element, a column or a lane, or a copy
        (`OpCopyMemory`) between two places of one type there, the chain maybe kept; or a load
        from either element of the uniform buffer (binding 3)."""
        r = self.r
        if r.random() < 0.1:
            self.copy_with_variable()
            return
        if r.random() < 0.3:
            path, element = r.choice(buffer_paths("%UE"))
            self.p.note("buffer.uniform")
            self.load_through(self.buffer_chain("%udata", path), element)
            return
        if r.random() < 0.15:
            path, element = r.choice(buffer_paths("%PE"))
            self.p.note("buffer.push_constants")
            self.load_through(self.chain("%PE", "PushConstant", "%pdata", [], path), element)
            return
        paths = buffer_paths("%LE")
        if r.random() < 0.05:
            # OpArrayLength of the runtime array: one element per invocation.
            self.fold_scalar(self.inst("array_length", "%data"), "%uint")
            self.p.note("buffer.array_length")
            return
        if r.random() < 0.25:
            # Integers that are no vector's components: atomics take no lanes.
            vectors = {tuple(p) for p, t in paths if t in COMPOSITES and COMPOSITES[t][0] == "vector"}
            path, ty = r.choice([(p, t) for p, t in paths if t in ("%uint", "%int") and tuple(p[:-1]) not in vectors])
            self.atomic(self.buffer_chain("%data", path), ty)
            return
        path, element = r.choice(paths)
        if r.random() < 0.15:
            others = [p for p, t in paths if t == element and p != path and len(p) == len(path)]
            if others:
                # Constant indices only: two places computed at run time might be one.
                pair = [self.buffer_chain("%data", path, constant=True),
                        self.buffer_chain("%data", r.choice(others), constant=True)]
                self.cur.insts.append((None, "copy_pointer", tuple(pair)))
                self.p.note("buffer.copy")
                return
        pointer = self.buffer_chain("%data", path)
        self.p.note("buffer." + ("element" if path else "whole"))
        if r.random() < 0.4:
            self.pointers = self.pointers | {(pointer, element)}
        self.through(pointer, element)

    def copy_with_variable(self):
        """OpCopyMemory between a part of either buffer whose type variables have too (a vector, a
        matrix) and a function or private variable of it, through an access chain without
        indices: from the uniform buffer, or either way with the storage buffer."""
        r = self.r
        buffer = r.choice(["%data", "%data", "%udata"])
        paths = buffer_paths("%LE" if buffer == "%data" else "%UE")
        path, ty = r.choice([(p, t) for p, t in paths if t in POINTEES and t in COMPOSITES])
        var, _ = self.some_variable(ty)
        storage = next(st for v, _, st in self.variables_at_hand() if v == var)
        pair = [self.inst("chain", ty, storage, var), self.buffer_chain(buffer, path)]
        if buffer == "%data" and r.random() < 0.5:
            pair.reverse()
        self.cur.insts.append((None, "copy_pointer", tuple(pair)))
        self.p.note("buffer.copy_with_variable")

    def atomic(self, pointer, ty, scopes=(1, 2)):
        """An atomic instruction on the integer of type `ty` at `pointer`, the invocation's own (so
        the result is the same in any order), at one of `scopes` (Device 1, Workgroup 2)."""
        r = self.r
        scope = self.c(r.choice(scopes))
        kinds = sorted(ATOMICS) + ["increment", "decrement", "load", "store", "compare"]
        kind = r.choice(kinds)
        self.p.note("atomic." + kind)
        if kind == "store":
            self.cur.insts.append((None, "atomic_store", (pointer, self.value(ty), scope)))
            return
        if kind in ("increment", "decrement"):
            result = self.inst("atomic_step", "OpAtomicI" + kind.capitalize(), ty, pointer, scope)
        elif kind == "load":
            result = self.inst("atomic_load", ty, pointer, scope)
        elif kind == "compare":
            # Against the value there (loaded first) or another: the exchange happens or not.
            current = self.inst("atomic_load", ty, pointer, scope) if r.random() < 0.5 else self.value(ty)
            result = self.inst("atomic_compare", ty, pointer, self.value(ty), current, scope)
        else:
            result = self.inst("atomic", kind, ty, pointer, self.value(ty), scope)
        self.fold_scalar(result, ty)

    def buffer_chain(self, buffer, path, constant=False):
        """An access chain to `path` in the invocation's element of %data, or in an element of
        %udata."""
        r = self.r
        if buffer == "%udata":
            element = self.c(r.randrange(2)) if r.random() < 0.5 else self.index(2)
            return self.chain("%UE", "Uniform", buffer, [self.c(0), element], path, constant)
        element = self.gid if self.main else self.inst("gid")
        return self.chain("%LE", "StorageBuffer", buffer, [self.c(0), element], path, constant)

    def chain(self, ty, storage, var, prefix, path, constant=False):
        """An access chain from `var` through the indices `prefix` to a `ty`, then down `path` in
        it: struct members by constants, array, vector and matrix indices maybe computed at run
        time (unless `constant`)."""
        r = self.r
        indices = list(prefix)
        start, parent = ty, None
        for index in path:
            if constant or COMPOSITES[ty][0] == "struct" or r.random() < 0.4:
                indices.append(self.c(index) if r.random() < 0.5 else self.p.int_const(index))
            else:
                indices.append(self.index(COMPOSITES[ty][2]))
            parent, ty = ty, members(ty)[index]
        result = self.inst("chain", ty, storage, var, *indices)
        if self.p.variable_pointers and storage in ("StorageBuffer", "Workgroup") and not holds_matrix(start, path, ty):
            self.p.selectable[result] = (ty, storage)
            if ty in ("%uint", "%int") and (parent is None or COMPOSITES[parent][0] != "vector"):
                self.p.atomic_places.add(result)
        return result

    def workgroup_exchange(self):
        """The invocations swap values through workgroup memory first thing: each stores a value
        of %S to its slot of %wg; a barrier; each reads another's slot (some distance on, around)
        whole or in part; a barrier. After that its own slot is its own: loaded and stored through
        a kept access chain, its first member maybe by atomics (at Workgroup scope)."""
        r = self.r
        own = self.chain("%S", "Workgroup", "%wg", [self.gid], [])
        self.cur.insts.append((None, "store_pointer", (own, self.composite("%S"), "")))
        self.cur.insts.append((None, "barrier", (self.c(2), self.c(0x108))))
        other = self.emit("umod", self.emit("add", self.gid, self.c(r.randint(1, INVOCATIONS - 1))), self.c(INVOCATIONS))
        path, ty = r.choice(buffer_paths("%S"))
        result = self.inst("load_neighbor", ty, self.chain("%S", "Workgroup", "%wg", [other], path))
        if ty in COMPOSITES:
            self.comps = self.comps | {(result, ty)}
            self.fold(result, ty, 2)
        else:
            self.fold_scalar(result, ty)
        self.cur.insts.append((None, "barrier", (self.c(2), self.c(0x108))))
        self.pointers = self.pointers | {(own, "%S")}
        if r.random() < 0.5:
            self.atomic(self.chain("%S", "Workgroup", "%wg", [self.gid], [0]), "%uint", scopes=(2,))
        self.p.note("workgroup_exchange")

    def statement_pointer(self, ctx):
        """A pointer chosen at run time (variable pointers): `OpSelect` between two pointers of one
        type into the invocation's element of the storage buffer or its workgroup slot, kept or
        made now (at one place with different indices, or at different places), then loaded or
        stored through, kept for later, taken by an atomic instruction (an integer's), or compared
        (`OpPtrEqual`, `OpPtrNotEqual`, SPIR-V 1.4) with either option or another pointer of its
        type."""
        r = self.r
        if r.random() < 0.2:
            self.pointer_step()
            return
        kept = sorted((p, self.p.selectable[p]) for p, _ in self.pointers if p in self.p.selectable)
        first = r.choice(kept) if kept and r.random() < 0.5 else self.selectable_pointer(integer=r.random() < 0.3)
        kind = first[1]
        integer = first[0] in self.p.atomic_places
        same = [p for p, k in kept if k == kind and p != first[0] and (not integer or p in self.p.atomic_places)]
        second = r.choice(same) if same and r.random() < 0.5 else self.selectable_pointer(kind, integer)
        options = [first[0], second]
        r.shuffle(options)
        chosen = self.inst("select_composite", pointer(*kind), self.condition(), *options)
        self.p.note(f"pointer.select.{kind[1]}")
        self.selectable_choice(chosen, kind, options)
        if chosen in self.p.atomic_places and r.random() < 0.3:
            # An atomic instruction on the chosen integer (a compare-exchange, min or max is a loop
            # per option in WGSL).
            self.p.note("pointer.atomic")
            self.atomic(chosen, kind[0], scopes=(2,) if kind[1] == "Workgroup" else (1, 2))
            return
        if self.p.minor_version >= 4 and r.random() < 0.3:
            other = r.choice(options + same + [self.selectable_pointer(kind)])
            opcode = r.choice(["OpPtrEqual", "OpPtrNotEqual"])
            self.p.note("pointer.compare")
            self.fold_scalar(self.inst("pointer_equal", opcode, *r.sample([chosen, other], 2)), "%bool")
            return
        if r.random() < 0.4:
            self.pointers = self.pointers | {(chosen, kind[0])}
        self.through(chosen, kind[0])

    def pointer_step(self):
        """OpPtrAccessChain: from an access chain to an element of an array in the invocation's
        storage-buffer element to another element of that array, the step worked out at run time
        (the other's index minus this one's, a signed count), then loaded or stored through. The
        pointer type gets the array's stride (each element type is in one array of the element)."""
        r = self.r
        types = {tuple(path): ty for path, ty in buffer_paths("%LE")}
        paths = [(path, ty) for path, ty in types.items() if path and types[path[:-1]] in STEPPED_ARRAYS]
        path, ty = r.choice(sorted(paths))
        parent = types[path[:-1]]
        base = self.buffer_chain("%data", list(path))
        result, op, args = self.cur.insts[-1]
        if (result, op) != (base, "chain"):
            raise GeneratorBug("the access chain is not the last instruction")
        other = self.index(COMPOSITES[parent][2])
        step = self.emit("isub", other, args[-1])
        self.p.stepped_arrays[ty] = parent
        self.p.note("pointer.step")
        self.through(self.inst("ptr_chain", ty, "StorageBuffer", base, step), ty)

    def selectable_choice(self, chosen, kind, options):
        """Records a pointer chosen between `options` (a select's two, a phi's incoming) as one a
        later choice may choose in turn, while it stands for at most 8 access chains; as an
        integer atomic instructions may take where every option is one."""
        count = sum(self.p.option_counts.get(option, 1) for option in options)
        if count > 8:
            return
        self.p.selectable[chosen] = kind
        self.p.option_counts[chosen] = count
        if any(self.p.option_counts.get(option, 1) > 1 for option in options):
            self.p.note("pointer.nested")
        if set(options) <= self.p.atomic_places:
            self.p.atomic_places.add(chosen)

    def selectable_pointer(self, kind=None, integer=False):
        """A new access chain a variable pointer may choose (`chain` records which), maybe kept for
        later: into the invocation's element of the storage buffer or its workgroup slot, to a
        part of type `kind[0]` in `kind[1]` (any, without `kind`; with `integer`, an integer no
        vector holds); with its (type, storage), without `kind`."""
        r = self.r
        storage = kind[1] if kind else r.choice(["StorageBuffer", "Workgroup"])
        buffer = storage == "StorageBuffer"
        element = "%LE" if buffer else "%S"
        paths = buffer_paths(element)
        types = {tuple(p): t for p, t in paths}
        lane = lambda p: bool(p) and COMPOSITES[types[tuple(p[:-1])]][0] == "vector"
        path = r.choice([p for p, t in paths
                         if (not kind or t == kind[0]) and not holds_matrix(element, p, t)
                         and (not integer or t in ("%uint", "%int") and not lane(p))])
        result = self.buffer_chain("%data", path) if buffer else self.chain(
            "%S", "Workgroup", "%wg", [self.gid if self.main else self.inst("gid")], path)
        if r.random() < 0.5:
            self.pointers = self.pointers | {(result, self.p.selectable[result][0])}
        return result if kind else (result, self.p.selectable[result])

    def statement_select(self, ctx):
        self.emit("select", self.condition(), self.any_value(), self.any_value())

    def statement_trace(self, ctx):
        # The loaded value joins the pool: a use after the store below must still see it.
        old = self.emit("load_trace")
        self.emit("store_trace", self.emit("add", self.emit("mul", old, self.c(3)), self.state["acc"]))
        self.p.note("trace")

    def statement_call(self, ctx):
        callee = self.r.choice(self.helpers)
        pointer = [self.some_variable(*callee.pointer)[0]] if callee.pointer else []
        if callee.handle:
            var, passing = callee.handle
            pointer.append(var if passing == "pointer" else self.handle(var))
        self.state["acc"] = self.emit("call", callee.name, self.state["acc"], self.state["cursor"], self.base, *pointer)
        self.state["cursor"] = self.emit("add", self.state["cursor"], self.c(CALL_STRIDE))
        self.p.note("call" + (".in_loop" if ctx is None or ctx.loop or ctx.in_continue else ""))

    def statement_conditional_exit(self, ctx):
        """`OpBranchConditional c exit next` without a merge: an early break, continue, exit to
        the selection's merge, or fall-through into the next case."""
        targets = ctx.breaks() + ctx.own()
        target = self.r.choice(targets)
        self.p.note("conditional_exit." + self.exit_name(ctx, target))
        self.note_case_exit(ctx, target)
        condition = self.condition()
        after = self.label()
        if self.r.random() < 0.5:
            self.branch(condition, target, after)
        else:
            self.branch(condition, after, target)
        self.start(after)

    def exit_name(self, ctx, target):
        if ctx.loop and target == ctx.loop[0]:
            return "break_loop"
        if ctx.loop and target == ctx.loop[1]:
            return "continue"
        if target == ctx.switch:
            return "break_switch"
        if target == ctx.fall:
            return "fall_through"
        return "to_if_merge"

    def exit(self, ctx):
        """Leaves the open block by a break, continue or return."""
        targets = ctx.breaks()
        if not ctx.in_continue:
            targets.append("return")
        if not targets:
            return
        target = self.r.choice(targets)
        if target == "return":
            self.p.note(f"return.depth{min(ctx.depth, 3)}" + ("" if self.main else ".helper"))
            self.ret()
        else:
            self.p.note("exit." + self.exit_name(ctx, target))
            self.note_case_exit(ctx, target)
            self.jump(target)

    def note_case_exit(self, ctx, target):
        """Notes a branch from a switch's case to the enclosing loop's merge or continue target:
        spirv-val (2023.1) rejects it where that block is a single-block loop's header."""
        if ctx.switch and ctx.loop and target in ctx.loop:
            self.case_exits.add(target)

    def ret(self):
        if self.main:
            out = self.emit("mul", self.gid, self.c(2))
            self.emit("store_output", out, self.state["acc"])
            trace = self.emit("xor", self.emit("load_trace"), self.state["cursor"])
            self.emit("store_output", self.emit("add", out, self.c(1)), trace)
            self.cur.term = ("return",)
        else:
            self.cur.term = ("return_value", self.state["acc"])
        self.cur = None

    def statement_if(self, ctx):
        r = self.r
        known = not ctx.in_continue and r.random() < 0.12
        condition = self.known_condition() if known else self.condition()
        merge = self.label()
        self.make_header(self.cur, "selection", merge)
        arm_ctx = ctx.derive(if_merge=merge)
        kinds = ["region"] * 5 + ["empty"] * 2 + (["exit"] if ctx.breaks() else [])
        arms = [r.choice(kinds), "unreachable" if known else r.choice(kinds)]
        if arms == ["empty", "empty"]:
            arms[0] = "region"
        if r.random() < 0.3:
            arms.reverse()
            condition = self.emit("not", condition) if known else condition
        if ctx.in_continue and arms[1] == "exit":
            arms[1] = "region"
        labels = []
        for kind in arms:
            if kind == "empty":
                labels.append(merge)
            elif kind == "exit":
                target = r.choice(ctx.breaks())
                labels.append(target)
                self.p.note("if.arm_is_exit." + self.exit_name(ctx, target))
            else:
                labels.append(self.label())
        if labels[0] == labels[1]:
            if self.p.version == "1.6":
                # SPIR-V 1.6 wants two different labels.
                arms[1], labels[1] = "region", self.label()
            else:
                self.p.note("if.both_arms_one_target")
        if "empty" in arms:
            self.p.note("if.without_else")
        reconverge = arms == ["region", "region"] and self.p.reconverge and r.random() < 0.3
        join = self.label() if reconverge else None
        if known:
            self.p.note("unreachable.if_arm")
        self.branch(condition, labels[0], labels[1])
        for label, kind in zip(labels, arms):
            if kind == "region":
                self.start(label)
                last = label == labels[1]
                finish = ctx.in_continue and last and (join or merge) not in self.pending
                self.sequence(arm_ctx, finish=finish)
                if self.cur is not None:
                    self.jump(join or merge)
            elif kind == "unreachable":
                self.new_block(label)
        if join is not None:
            self.p.note("if.reconverge_before_merge")
            if self.start(join):
                self.sequence(arm_ctx, finish=ctx.in_continue)
                if self.cur is not None:
                    self.jump(merge)
        if not self.start(merge):
            self.p.note("if.unreachable_merge")

    def statement_switch(self, ctx):
        r = self.r
        word = self.read()
        k = r.randint(2, 8)
        if k & (k - 1) == 0 and r.random() < 0.5:
            selector = self.emit("and", word, self.c(k - 1))
        else:
            selector = self.emit("umod", word, self.c(k))
        # A signed selector: the values run from -offset, the labels are negative literals too.
        offset = r.randint(1, k) if r.random() < 0.25 else 0
        if offset:
            selector = self.emit("isub", self.emit("to_int", selector), self.p.int_const(offset))
            self.p.note("switch.signed_selector")
        merge = self.label()
        count = r.randint(1, min(k, 4))
        bodies = [self.label() for _ in range(count)]
        # OpUnreachable in a continue construct would break the back-edge block's post-dominance.
        default_kind = r.choice(["shared", "own", "merge"] + ([] if ctx.in_continue else ["unreachable"]))
        if r.random() < 0.08:
            # `OpSwitch %s %default` alone, as spirv-opt's inliner leaves around a function body.
            default_kind, bodies = "only", []
        default = {"shared": r.choice(bodies or [merge]), "merge": merge}.get(default_kind)
        if default_kind in ("own", "only"):
            default = self.label()
            bodies.insert(r.randrange(len(bodies) + 1), default)
        elif default_kind == "unreachable":
            default = self.label()
        labelled = [b for b in bodies if b != default or default_kind == "shared"]
        values = [v - offset for v in range(k)]
        r.shuffle(values)
        targets = {}
        for body, value in zip(labelled, values):
            targets[value] = body
        for value in values[len(labelled):] if labelled else []:
            choice = r.random()
            if choice < 0.25:
                targets[value] = merge
            elif choice < 0.4 and default_kind != "unreachable":
                continue  # to the default
            else:
                targets[value] = r.choice(labelled)
        if r.random() < 0.2 and labelled:
            targets[k + r.randrange(1000)] = r.choice(labelled + [merge])  # never selected
        if offset and labelled and r.random() < 0.3:
            targets[-offset - 1 - r.randrange(1000)] = r.choice(labelled + [merge])  # never selected
        self.p.note(f"switch.default_{default_kind}")
        if merge in targets.values():
            self.p.note("switch.label_to_merge")
        if default_kind == "shared" and any(t == default for t in targets.values()):
            self.p.note("switch.label_to_default_block")
        if len(targets) > len(set(targets.values())):
            self.p.note("switch.shared_block")
        header = self.cur
        self.make_header(header, "selection", merge)
        for target in sorted(set(targets.values()) | ({default} if default_kind != "unreachable" else set())):
            self.edge(target)
        self.cur = None
        if default_kind == "unreachable":
            self.p.note("unreachable.switch_default")
        # Bodies in fall-through order; each body's blocks are a contiguous run of the function's.
        runs = []
        falls = set()
        for index, body in enumerate(bodies):
            first = len(self.fn.blocks)
            following = bodies[index + 1] if index + 1 < len(bodies) else None
            fall = following if following and r.random() < 0.4 else None
            if self.start(body):
                finish = ctx.in_continue and following is None and merge not in self.pending
                self.sequence(ctx.derive(switch=merge, fall=fall), finish=finish)
                if self.cur is not None:
                    self.jump(fall if fall and r.random() < 0.7 else merge)
            runs.append(self.fn.blocks[first:])
            if following and any(following in b.term[1:] for b in self.fn.blocks[first:]):
                falls.add(body)
                self.p.note("switch.fall_through")
        if default_kind == "unreachable":
            runs.append([self.new_block(default)])
        # Literal labels grouped by body, in body order (a body falling into the next must come
        # right before it); the labels to the merge go where no fall-through spans.
        groups = []
        for body in bodies:
            group = [(v, t) for v, t in targets.items() if t == body]
            if group:
                r.shuffle(group)
                groups.append((body, group))
        to_merge = [(v, t) for v, t in targets.items() if t == merge]
        gaps = [0] + [i + 1 for i, (body, _) in enumerate(groups) if body not in falls]
        at = r.choice(gaps)
        labels = [label for _, group in groups[:at] for label in group] + to_merge
        labels += [label for _, group in groups[at:] for label in group]
        header.term = ("switch", selector, default, labels)
        if r.random() < 0.5 and len(runs) > 1:
            self.p.note("switch.blocks_out_of_label_order")
            start = self.fn.blocks.index(runs[0][0])
            r.shuffle(runs)
            self.fn.blocks[start:] = [b for run in runs for b in run]
        places = {"continue": ctx.in_continue, "loop": ctx.loop, "case": ctx.switch, "if": ctx.if_merge}
        where = next((name for name, inside in places.items() if inside), "body")
        self.p.note(f"switch.in_{where}" + ("" if self.main else ".helper"))
        if not self.start(merge):
            self.p.note("switch.unreachable_merge")

    def statement_loop(self, ctx):
        r = self.r
        kinds = ["while", "break_if", "body_break", "single"] + ([] if ctx.in_continue else ["body_return"])
        kind = r.choice(kinds)
        self.p.note(f"loop.{kind}" + (".in_continue" if ctx.in_continue else ""))
        header = self.loop_header(reuse=kind != "single" or self.cur.label not in self.case_exits)
        header_label = header.block.label
        merge, continue_target = self.label(), self.label()
        # A bound read in the header may change from one iteration to the next; at most 4 either way.
        if r.random() < 0.5:
            bound = self.c(r.randint(1, 4))
        else:
            least = 0 if kind == "while" else 1
            bound = self.emit("add", self.emit("umod", self.read(), self.c(4)), self.c(least))
        if kind == "single":
            self.straight(r.randint(0, 3))
            counter_next = self.emit("add", header.counter, self.c(1))
            more = self.emit("ult", counter_next, bound)
            self.make_header(self.cur, "loop", merge, header_label, constant_count=bound.startswith("%u_"))
            self.latch(header, counter_next, more, merge)
            self.start(merge)
            return
        self.straight(r.randint(0, 1))
        header_block = self.cur
        self.make_header(header_block, "loop", merge, continue_target, constant_count=bound.startswith("%u_"))
        body = self.label()
        body_ctx = ctx.derive(loop=(merge, continue_target), switch=None)
        # A `while` whose body is empty goes straight to the continue target.
        target = continue_target if kind == "while" and r.random() < 0.1 else body
        if kind == "while":
            more = self.emit("ult", header.counter, bound)
            if r.random() < 0.5:
                self.branch(more, target, merge)
            else:
                self.branch(self.emit("not", more), merge, target)
        else:
            self.jump(body)
        if target == body:
            self.start(body)
            if kind == "body_break":
                done = self.emit("uge", header.counter, bound)
                after = self.label()
                if r.random() < 0.5:
                    self.branch(done, merge, after)
                    self.start(after)
                else:
                    self.make_header(self.cur, "selection", after)
                    self.branch(done, merge, after)
                    self.start(after)
            elif kind == "body_return":
                done = self.emit("uge", header.counter, bound)
                leave, after = self.label(), self.label()
                self.make_header(self.cur, "selection", after)
                self.branch(done, leave, after)
                self.start(leave)
                self.tag()
                self.ret()
                self.start(after)
            self.sequence(body_ctx, least=1)
            if self.cur is not None:
                self.jump(continue_target)
        if self.start(continue_target):
            self.sequence(ctx.derive(loop=None, switch=None, in_continue=True))
            counter_next = self.emit("add", header.counter, self.c(1))
            more = self.emit("ult", counter_next, bound) if kind == "break_if" else None
            if more is not None and r.random() < 0.4:
                more = self.emit("land", more, self.condition())
            self.latch(header, counter_next, more, merge)
        else:
            # Nothing continues: the continue target is unreachable, but still the back-edge block.
            self.p.note("loop.unreachable_continue_target")
            latch = self.fn.blocks[-1]
            latch.term = ("branch", header_label)
            zeros = {var: self.zero(self.state_types[var]) for var in header.phis}
            self.back_edge(header, latch.label, zeros, self.c(0))
        if not self.start(merge):
            self.p.note("loop.unreachable_merge")

    def latch(self, header, counter_next, more, merge):
        """Ends the back-edge block: back to the header, or, with `more`, `break if !more`."""
        latch = self.cur
        self.back_edge(header, latch.label, self.state, counter_next)
        if more is None:
            latch.term = ("branch", header.block.label)
        else:
            self.edge(merge)
            if self.r.random() < 0.5:
                latch.term = ("cond", more, header.block.label, merge)
            else:
                latch.term = ("cond", self.emit("not", more), merge, header.block.label)
        self.cur = None

    # --- functions -----------------------------------------------------------------------------

    def main_body(self):
        self.cur = self.new_block(self.label())
        self.gid = self.emit("gid")
        self.base = self.emit("mul", self.gid, self.c(WORDS))
        self.emit("store_trace", self.c(0))
        # The first input word goes into acc, so every module reads its input buffer (wgpu
        # rejects a binding the WGSL does not use).
        self.state = {"acc": self.emit("xor", self.gid, self.c(self.p.seed)), "cursor": self.c(0)}
        self.state["acc"] = self.emit("xor", self.state["acc"], self.read())
        self.workgroup_exchange()
        # So that every module uses buffers 2 and 3 too (wgpu rejects a binding the WGSL lacks).
        self.statement_buffer(None)
        self.load_through(self.buffer_chain("%udata", []), "%UE")
        self.load_through(self.chain("%PE", "PushConstant", "%pdata", [], []), "%PE")
        if self.p.textures:
            self.use_every_texture()
        self.threaded_composite()
        self.sequence(Ctx(), least=3)
        while self.cur is not None and self.budget > 0:
            self.budget -= 1
            self.statement(Ctx())
        if self.cur is not None:
            self.ret()

    def threaded_composite(self):
        """Half the functions thread a composite value (`agg`) through their control flow as they
        do acc: phis at joins and loop headers, members replaced on the way."""
        if self.r.random() < 0.5:
            ty = self.r.choice(sorted(t for t in COMPOSITES if "bool" not in t))
            self.state_types["agg"] = ty
            self.state["agg"] = self.constant(ty)
            self.comps = self.comps | {(self.state["agg"], ty)}
            self.p.note("agg")

    def helper_body(self):
        self.cur = self.new_block(self.label())
        acc, cursor, self.base = self.fn.params[:3]
        self.state = {"acc": acc, "cursor": cursor}
        self.avail = frozenset(self.fn.params[:3])
        if self.fn.handle:
            self.use_handle(self.fn.handle[0])
        self.threaded_composite()
        while self.cur is not None and self.budget > 0:
            self.budget -= 1
            self.statement(Ctx())
        if self.cur is not None:
            self.ret()


def holds_matrix(ty, path, element):
    """Whether `path` from `ty` to a part of type `element` passes through a matrix or `element`
    holds one: a variable pointer may point at neither (SPIR-V 2.16.1)."""
    for index in path:
        if COMPOSITES[ty][0] == "matrix":
            return True
        ty = members(ty)[index]
    return any(t in COMPOSITES and COMPOSITES[t][0] == "matrix" for t in reachable(element))


# The arrays of the storage-buffer element whose elements OpPtrAccessChain steps between: the
# element types differ, so each pointer type gets the one stride (not the array of matrices, whose
# stride goes with the member holding it).
STEPPED_ARRAYS = ("%LA", "%LB", "%LC")


def buffer_paths(ty):
    """(path, type) of every part of `ty`, itself included."""
    found = [([], ty)]
    for index, member in enumerate(members(ty) if ty in COMPOSITES else []):
        found += [([index] + path, inner) for path, inner in buffer_paths(member)]
    return found


def main():
    args = [a for a in sys.argv[1:] if a != "--stats"]
    if len(args) != 3:
        sys.exit(__doc__.split("\n\n")[1])
    first, count, out = int(args[0]), int(args[1]), Path(args[2])
    out.mkdir(parents=True, exist_ok=True)
    totals = collections.Counter()
    for seed in range(first, first + count):
        program = Program(seed)
        program.generate()
        expected = program.expected()
        (out / f"s{seed:05}.spvasm").write_text(program.assembly(program.comments(), expected))
        totals.update(program.stats)
    if "--stats" in sys.argv:
        for shape, n in sorted(totals.items()):
            print(f"{n:7} {shape}")


if __name__ == "__main__":
    main()
