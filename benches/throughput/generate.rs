//! Deterministic SPIR-V modules of a requested size, for the throughput benchmark.
//!
//! [`mixed`] writes a compute shader whose entry point calls a chain of functions of four shapes
//! in turn: a long straight-line block, `if`s and loops nested ten deep with breaks, a large
//! switch, and a plain loop. [`one_block`] writes an entry point of a single block, the shape that
//! stresses expression handling; [`entry_points`] many small entry points; [`resources`] many
//! small functions, each over a buffer of its own. Words are written
//! directly (no assembler in the loop) from a fixed-seed generator, so a size always gives the
//! same module; every module passes `spirv-val --target-env vulkan1.1`.

use std::collections::HashMap;

use spirv::Op;

/// The shapes in the order they are generated.
const SHAPES: [Shape; 5] =
    [Shape::Straight(1000), Shape::Nested(10), Shape::Switch(48), Shape::Nested(4), Shape::Loop(20)];

/// A module of at least `bytes` bytes (a few kilobytes more at most): an entry point calling a
/// chain of functions, each of one shape.
pub fn mixed(bytes: usize) -> Vec<u32> {
    let mut g = Generator::new();
    let mut functions = Vec::new();
    // The entry point calls each function in 5 words.
    while g.size() + 4 * 5 * functions.len() < bytes {
        let shape = SHAPES[functions.len() % SHAPES.len()];
        functions.push(g.function(|g, x| g.shape(shape, x)));
    }
    g.finish_calling(&functions)
}

/// A module of at least `bytes` bytes: an entry point calling a library of small functions, each
/// over a storage buffer of its own. The shape on which naga's cost grows with the number of
/// functions times the number of globals.
pub fn resources(bytes: usize) -> Vec<u32> {
    let mut g = Generator::new();
    let mut functions = Vec::new();
    while g.size() + 4 * 5 * functions.len() < bytes {
        let buffer = g.buffer(functions.len() as u32);
        functions.push(g.function(|g, x| {
            let (uint, ptr_uint) = (g.c.uint, g.c.ptr_uint);
            let zero = g.uint(0);
            let element = g.value(Op::AccessChain, ptr_uint, &[buffer, zero, zero]);
            let loaded = g.value(Op::Load, uint, &[element]);
            let sum = g.value(Op::IAdd, uint, &[loaded, x]);
            let result = g.straight(sum, 10);
            push(&mut g.code, Op::Store, &[element, result]);
            result
        }));
    }
    g.finish_calling(&functions)
}

/// A module of at least `bytes` bytes whose entry point is one function of every shape in turn.
pub fn one_function(bytes: usize) -> Vec<u32> {
    Generator::new().finish(|g, mut value| {
        for shape in SHAPES.iter().cycle() {
            if g.size() >= bytes {
                break;
            }
            value = g.shape(*shape, value);
        }
        value
    })
}

/// A module of at least `bytes` bytes made of small compute entry points, each indexing the
/// buffer by its invocation id and computing a block of 20 instructions: a library of kernels,
/// the shape on which naga's cost grows fastest.
pub fn entry_points(bytes: usize) -> Vec<u32> {
    let mut g = Generator::new();
    let (uint, input) = (g.c.uint, spirv::StorageClass::Input as u32);
    let (uvec3, ptr_uvec3, invocation) = (g.id(), g.id(), g.id());
    push(&mut g.globals, Op::TypeVector, &[uvec3, uint, 3]);
    push(&mut g.globals, Op::TypePointer, &[ptr_uvec3, input, uvec3]);
    push(&mut g.globals, Op::Variable, &[ptr_uvec3, invocation, input]);
    let builtin = [invocation, spirv::Decoration::BuiltIn as u32, spirv::BuiltIn::GlobalInvocationId as u32];
    push(&mut g.decorations, Op::Decorate, &builtin);
    let mut entry_points = Vec::new();
    // Each entry point also takes about 11 words of OpEntryPoint and OpExecutionMode.
    while g.size() + 4 * 11 * entry_points.len() < bytes {
        let id = if entry_points.is_empty() { g.c.main } else { g.id() };
        g.entry_point(id, |g, value| {
            let id = g.value(Op::Load, uvec3, &[invocation]);
            let x = g.value(Op::CompositeExtract, uint, &[id, 0]);
            let start = g.value(Op::IAdd, uint, &[value, x]);
            g.straight(start, 20)
        });
        entry_points.push((id, format!("main{}", entry_points.len())));
    }
    g.module(&entry_points, &[invocation])
}

/// A module whose entry point is one block of about `instructions` instructions.
pub fn one_block(instructions: usize) -> Vec<u32> {
    Generator::new().finish(|g, value| g.straight(value, instructions))
}

#[derive(Clone, Copy)]
enum Shape {
    /// One block of this many arithmetic, memory and conversion instructions.
    Straight(usize),
    /// `if`s and loops nested this deep, each loop with a conditional `break`.
    Nested(u32),
    /// A switch with this many cases and a default, joined by a phi.
    Switch(u32),
    /// A counted loop whose body is this many instructions.
    Loop(usize),
}

/// Ids of the declarations every function uses.
struct Common {
    void: u32,
    uint: u32,
    float: u32,
    bool: u32,
    array: u32,
    block: u32,
    ptr_block: u32,
    ptr_uint: u32,
    fn_void: u32,
    fn_uint: u32,
    buffer: u32,
    main: u32,
}

struct Generator {
    next_id: u32,
    c: Common,
    /// Types, constants and the buffer variable, in declaration order.
    globals: Vec<u32>,
    /// Decorations beyond the buffer's (builtins).
    decorations: Vec<u32>,
    /// Function definitions.
    code: Vec<u32>,
    /// Constant ids by (type, bits).
    constants: HashMap<(u32, u32), u32>,
    /// The label of the block being written.
    block: u32,
    rng: u64,
}

fn push(out: &mut Vec<u32>, op: Op, operands: &[u32]) {
    out.push(((operands.len() as u32 + 1) << 16) | op as u32);
    out.extend_from_slice(operands);
}

/// A literal string: UTF-8, nul-terminated, padded to whole words.
fn string(text: &str) -> Vec<u32> {
    let mut bytes = text.as_bytes().to_vec();
    bytes.push(0);
    bytes.resize(bytes.len().div_ceil(4) * 4, 0);
    bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

const BINARY_OPS: [Op; 6] = [Op::IAdd, Op::ISub, Op::IMul, Op::BitwiseXor, Op::BitwiseOr, Op::BitwiseAnd];

impl Generator {
    fn new() -> Generator {
        let ids: Vec<u32> = (1..=12).collect();
        let c = Common {
            void: ids[0],
            uint: ids[1],
            float: ids[2],
            bool: ids[3],
            array: ids[4],
            block: ids[5],
            ptr_block: ids[6],
            ptr_uint: ids[7],
            fn_void: ids[8],
            fn_uint: ids[9],
            buffer: ids[10],
            main: ids[11],
        };
        let storage = spirv::StorageClass::StorageBuffer as u32;
        let mut globals = Vec::new();
        push(&mut globals, Op::TypeVoid, &[c.void]);
        push(&mut globals, Op::TypeInt, &[c.uint, 32, 0]);
        push(&mut globals, Op::TypeFloat, &[c.float, 32]);
        push(&mut globals, Op::TypeBool, &[c.bool]);
        push(&mut globals, Op::TypeRuntimeArray, &[c.array, c.uint]);
        push(&mut globals, Op::TypeStruct, &[c.block, c.array]);
        push(&mut globals, Op::TypePointer, &[c.ptr_block, storage, c.block]);
        push(&mut globals, Op::TypePointer, &[c.ptr_uint, storage, c.uint]);
        push(&mut globals, Op::TypeFunction, &[c.fn_void, c.void]);
        push(&mut globals, Op::TypeFunction, &[c.fn_uint, c.uint, c.uint]);
        push(&mut globals, Op::Variable, &[c.ptr_block, c.buffer, storage]);
        Generator {
            next_id: ids.len() as u32 + 1,
            c,
            globals,
            decorations: Vec::new(),
            code: Vec::new(),
            constants: HashMap::new(),
            block: 0,
            rng: 0x9e37_79b9_7f4a_7c15,
        }
    }

    fn id(&mut self) -> u32 {
        self.next_id += 1;
        self.next_id - 1
    }

    /// xorshift64: deterministic and good enough to vary the code.
    fn random(&mut self, below: u32) -> u32 {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        (self.rng % u64::from(below)) as u32
    }

    fn constant(&mut self, ty: u32, bits: u32) -> u32 {
        if let Some(&id) = self.constants.get(&(ty, bits)) {
            return id;
        }
        let id = self.id();
        push(&mut self.globals, Op::Constant, &[ty, id, bits]);
        self.constants.insert((ty, bits), id);
        id
    }

    fn uint(&mut self, value: u32) -> u32 {
        self.constant(self.c.uint, value)
    }

    /// `%result = op operands...` of type `ty` in the current block.
    fn value(&mut self, op: Op, ty: u32, operands: &[u32]) -> u32 {
        let id = self.id();
        let mut all = vec![ty, id];
        all.extend_from_slice(operands);
        push(&mut self.code, op, &all);
        id
    }

    fn label(&mut self, label: u32) {
        push(&mut self.code, Op::Label, &[label]);
        self.block = label;
    }

    fn branch(&mut self, target: u32) {
        push(&mut self.code, Op::Branch, &[target]);
    }

    /// A function `fn(x: u32) -> u32` whose code `body` writes from `x`, returning the result.
    fn function(&mut self, body: impl FnOnce(&mut Self, u32) -> u32) -> u32 {
        let (function, x, entry) = (self.id(), self.id(), self.id());
        let (uint, fn_uint) = (self.c.uint, self.c.fn_uint);
        push(&mut self.code, Op::Function, &[uint, function, 0, fn_uint]);
        push(&mut self.code, Op::FunctionParameter, &[uint, x]);
        self.label(entry);
        let result = body(self, x);
        push(&mut self.code, Op::ReturnValue, &[result]);
        push(&mut self.code, Op::FunctionEnd, &[]);
        function
    }

    /// Code of `shape` computing from `start`; returns the result.
    fn shape(&mut self, shape: Shape, start: u32) -> u32 {
        match shape {
            Shape::Straight(count) => self.straight(start, count),
            Shape::Nested(depth) => self.nested(start, depth),
            Shape::Switch(cases) => self.switch(start, cases),
            Shape::Loop(count) => self.counted_loop(start, |g, acc| g.straight(acc, count)),
        }
    }

    /// The module's size so far, in bytes.
    fn size(&self) -> usize {
        4 * (self.decorations.len() + self.globals.len() + self.code.len())
    }

    /// A storage buffer of the common block type, in set `index % 4` at binding `index / 4 + 1`
    /// (the common buffer is set 0, binding 0).
    fn buffer(&mut self, index: u32) -> u32 {
        use spirv::Decoration as D;
        let id = self.id();
        let storage = spirv::StorageClass::StorageBuffer as u32;
        push(&mut self.globals, Op::Variable, &[self.c.ptr_block, id, storage]);
        push(&mut self.decorations, Op::Decorate, &[id, D::DescriptorSet as u32, index % 4]);
        push(&mut self.decorations, Op::Decorate, &[id, D::Binding as u32, index / 4 + 1]);
        id
    }

    /// `count` instructions computing from `start`, mostly arithmetic on recent values, with
    /// float round trips, signed comparisons (which need bitcasts in WGSL), and buffer reads and
    /// writes. Returns the last value.
    fn straight(&mut self, start: u32, count: usize) -> u32 {
        let c = &self.c;
        let (uint, float, bool) = (c.uint, c.float, c.bool);
        let (ptr_uint, buffer) = (c.ptr_uint, c.buffer);
        let mut recent = vec![start];
        let mut written = 0;
        while written < count {
            let a = *recent.last().unwrap_or(&start);
            let b = recent[recent.len() - 1 - self.random(recent.len().min(8) as u32) as usize];
            let value = match self.random(10) {
                0..=5 => {
                    let op = BINARY_OPS[self.random(BINARY_OPS.len() as u32) as usize];
                    let literal = self.random(1000) + 1;
                    let b = if self.random(3) == 0 { self.uint(literal) } else { b };
                    written += 1;
                    self.value(op, uint, &[a, b])
                }
                6 => {
                    let op = [Op::ShiftLeftLogical, Op::ShiftRightLogical][self.random(2) as usize];
                    let amount = self.random(31) + 1;
                    let amount = self.uint(amount);
                    written += 1;
                    self.value(op, uint, &[a, amount])
                }
                7 => {
                    let scale = self.constant(float, 1.5f32.to_bits());
                    let f = self.value(Op::ConvertUToF, float, &[a]);
                    let g = self.value(Op::FMul, float, &[f, scale]);
                    written += 3;
                    self.value(Op::ConvertFToU, uint, &[g])
                }
                8 => {
                    let less = self.value(Op::SLessThan, bool, &[a, b]);
                    written += 2;
                    self.value(Op::Select, uint, &[less, a, b])
                }
                _ => {
                    let (zero, mask) = (self.uint(0), self.uint(1023));
                    let index = self.value(Op::BitwiseAnd, uint, &[a, mask]);
                    let pointer = self.value(Op::AccessChain, ptr_uint, &[buffer, zero, index]);
                    let loaded = self.value(Op::Load, uint, &[pointer]);
                    let sum = self.value(Op::IAdd, uint, &[loaded, b]);
                    written += 4;
                    if self.random(2) == 0 {
                        push(&mut self.code, Op::Store, &[pointer, sum]);
                        written += 1;
                    }
                    sum
                }
            };
            recent.push(value);
            if recent.len() > 8 {
                recent.remove(0);
            }
        }
        *recent.last().unwrap_or(&start)
    }

    /// `if`s (odd depths) and loops (even depths) nested `depth` deep around a short block.
    fn nested(&mut self, start: u32, depth: u32) -> u32 {
        match depth {
            0 => self.straight(start, 6),
            _ if depth.is_multiple_of(2) => self.counted_loop(start, |g, acc| g.nested(acc, depth - 1)),
            _ => {
                let (uint, bool) = (self.c.uint, self.c.bool);
                let (zero, bit) = (self.uint(0), self.uint(1 << (depth % 32)));
                let masked = self.value(Op::BitwiseAnd, uint, &[start, bit]);
                let condition = self.value(Op::INotEqual, bool, &[masked, zero]);
                let (accept, reject, merge) = (self.id(), self.id(), self.id());
                push(&mut self.code, Op::SelectionMerge, &[merge, 0]);
                push(&mut self.code, Op::BranchConditional, &[condition, accept, reject]);
                self.label(accept);
                let accepted = self.nested(start, depth - 1);
                let accept_end = self.block;
                self.branch(merge);
                self.label(reject);
                let rejected = self.straight(start, 3);
                self.branch(merge);
                self.label(merge);
                self.value(Op::Phi, uint, &[accepted, accept_end, rejected, reject])
            }
        }
    }

    /// A loop running three times, or until the value exceeds a bound (a `break` from the body);
    /// `body` computes the next value from the current one.
    fn counted_loop(&mut self, start: u32, body: impl FnOnce(&mut Self, u32) -> u32) -> u32 {
        let (uint, bool) = (self.c.uint, self.c.bool);
        let (zero, one, three, bound) = (self.uint(0), self.uint(1), self.uint(3), self.uint(1 << 30));
        let (header, body_label, rest, continue_label, merge) = (self.id(), self.id(), self.id(), self.id(), self.id());
        let (counter, acc, next_counter, next_acc) = (self.id(), self.id(), self.id(), self.id());
        let before = self.block;
        self.branch(header);
        self.label(header);
        push(&mut self.code, Op::Phi, &[uint, counter, zero, before, next_counter, continue_label]);
        push(&mut self.code, Op::Phi, &[uint, acc, start, before, next_acc, continue_label]);
        let more = self.value(Op::ULessThan, bool, &[counter, three]);
        push(&mut self.code, Op::LoopMerge, &[merge, continue_label, 0]);
        push(&mut self.code, Op::BranchConditional, &[more, body_label, merge]);
        self.label(body_label);
        let big = self.value(Op::UGreaterThan, bool, &[acc, bound]);
        push(&mut self.code, Op::BranchConditional, &[big, merge, rest]);
        self.label(rest);
        let value = body(self, acc);
        push(&mut self.code, Op::IAdd, &[uint, next_acc, value, counter]);
        self.branch(continue_label);
        self.label(continue_label);
        push(&mut self.code, Op::IAdd, &[uint, next_counter, counter, one]);
        self.branch(header);
        self.label(merge);
        acc
    }

    /// `switch start % 64` with `cases` cases (each a few instructions) and a default, joined by
    /// a phi at the merge.
    fn switch(&mut self, start: u32, cases: u32) -> u32 {
        let uint = self.c.uint;
        let mask = self.uint(63);
        let selector = self.value(Op::BitwiseAnd, uint, &[start, mask]);
        let labels: Vec<u32> = (0..cases).map(|_| self.id()).collect();
        let (default, merge) = (self.id(), self.id());
        push(&mut self.code, Op::SelectionMerge, &[merge, 0]);
        let mut operands = vec![selector, default];
        for (value, &label) in labels.iter().enumerate() {
            operands.extend([value as u32, label]);
        }
        push(&mut self.code, Op::Switch, &operands);
        let mut incoming = Vec::new();
        for (k, &label) in labels.iter().enumerate() {
            self.label(label);
            let value = self.straight(start, 2 + k % 3);
            incoming.extend([value, self.block]);
            self.branch(merge);
        }
        self.label(default);
        let seven = self.uint(7);
        let value = self.value(Op::IAdd, uint, &[start, seven]);
        incoming.extend([value, default]);
        self.branch(merge);
        self.label(merge);
        self.value(Op::Phi, uint, &incoming)
    }

    /// The whole module: the entry point reads `buffer[0]`, computes from it with `body`, and
    /// writes the result to `buffer[1]`.
    fn finish(mut self, body: impl FnOnce(&mut Self, u32) -> u32) -> Vec<u32> {
        let main = self.c.main;
        self.entry_point(main, body);
        self.module(&[(main, "main".to_string())], &[])
    }

    /// The whole module, its entry point passing `buffer[0]` through each of `functions` in turn.
    fn finish_calling(self, functions: &[u32]) -> Vec<u32> {
        self.finish(|g, mut value| {
            for &function in functions {
                value = g.value(Op::FunctionCall, g.c.uint, &[function, value]);
            }
            value
        })
    }

    /// Writes entry point `id`: it reads the buffer's first element, passes it to `body`, and
    /// writes what `body` returns to the second.
    fn entry_point(&mut self, id: u32, body: impl FnOnce(&mut Self, u32) -> u32) {
        let c = &self.c;
        let (void, fn_void, uint, ptr_uint, buffer) = (c.void, c.fn_void, c.uint, c.ptr_uint, c.buffer);
        push(&mut self.code, Op::Function, &[void, id, 0, fn_void]);
        let entry = self.id();
        self.label(entry);
        let (zero, one) = (self.uint(0), self.uint(1));
        let input = self.value(Op::AccessChain, ptr_uint, &[buffer, zero, zero]);
        let loaded = self.value(Op::Load, uint, &[input]);
        let value = body(self, loaded);
        let output = self.value(Op::AccessChain, ptr_uint, &[buffer, zero, one]);
        push(&mut self.code, Op::Store, &[output, value]);
        push(&mut self.code, Op::Return, &[]);
        push(&mut self.code, Op::FunctionEnd, &[]);
    }

    /// The module: header, entry points (function id, name) each with `interface`, decorations,
    /// declarations, code.
    fn module(self, entry_points: &[(u32, String)], interface: &[u32]) -> Vec<u32> {
        let c = &self.c;
        let mut words = vec![0x0723_0203, 0x0001_0300, 0, self.next_id, 0];
        push(&mut words, Op::Capability, &[spirv::Capability::Shader as u32]);
        push(&mut words, Op::MemoryModel, &[0, spirv::MemoryModel::GLSL450 as u32]);
        for (id, name) in entry_points {
            let mut entry_point = vec![spirv::ExecutionModel::GLCompute as u32, *id];
            entry_point.extend(string(name));
            entry_point.extend(interface);
            push(&mut words, Op::EntryPoint, &entry_point);
        }
        let local_size = spirv::ExecutionMode::LocalSize as u32;
        for (id, _) in entry_points {
            push(&mut words, Op::ExecutionMode, &[*id, local_size, 64, 1, 1]);
        }
        use spirv::Decoration as D;
        push(&mut words, Op::Decorate, &[c.array, D::ArrayStride as u32, 4]);
        push(&mut words, Op::Decorate, &[c.block, D::Block as u32]);
        push(&mut words, Op::MemberDecorate, &[c.block, 0, D::Offset as u32, 0]);
        push(&mut words, Op::Decorate, &[c.buffer, D::DescriptorSet as u32, 0]);
        push(&mut words, Op::Decorate, &[c.buffer, D::Binding as u32, 0]);
        words.extend(&self.decorations);
        words.extend(&self.globals);
        words.extend(&self.code);
        words
    }
}

/// The module's bytes, little-endian, as a `.spv` file holds them.
pub fn to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}
