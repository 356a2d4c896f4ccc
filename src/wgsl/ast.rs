//! The WGSL syntax tree the emitter builds and the printer writes out. Names and types are
//! already final strings here: every decision is made before printing.

/// An identifier or a type's spelling: shared, so naming a value or a type at each use copies no
/// text; shared across threads, so a function's tree can go to the thread that builds naga's IR
/// of it (`naga_ir/worker.rs`).
pub type Name = std::sync::Arc<str>;

/// A WGSL type, spelled out (`vec4<f32>`, `array<u32, 4>`, a struct name).
pub type Type = Name;

/// A vector's components by index, as member names (`v.x`) and swizzles (`v.zw`).
pub const COMPONENTS: [&str; 4] = ["x", "y", "z", "w"];

#[derive(Debug, Default)]
pub struct Module {
    /// `enable` directives, e.g. `f16`.
    pub enables: Vec<&'static str>,
    /// `diagnostic` directives, e.g. `off, derivative_uniformity`.
    pub diagnostics: Vec<&'static str>,
    pub structs: Vec<Struct>,
    pub globals: Vec<Global>,
    /// Each function already printed, as soon as it was lowered (and analysed for uniformity):
    /// only one function's tree is alive at a time, where the whole module's would take about
    /// ten times the input's size.
    pub functions: Vec<PrintedFunction>,
}

/// A function of the module, printed.
#[derive(Debug)]
pub struct PrintedFunction {
    pub name: Name,
    pub text: String,
    /// Its signature, the start of `text`.
    pub signature: Signature,
    /// The module's functions it calls.
    pub calls: Vec<Name>,
}

/// Enough of a printed function to write its stub (its signature with a body that only returns a
/// zero value), which stands in for it where the module is validated in parts (`validate.rs`).
/// Most modules never need one, so it is written only then.
#[derive(Debug)]
pub struct Signature {
    /// The length of the signature (attributes and the `fn` line) at the start of the text.
    pub len: usize,
    pub result: Option<Type>,
}

#[derive(Debug, Clone)]
pub struct Struct {
    pub name: String,
    pub members: Vec<Member>,
}

#[derive(Debug, Clone)]
pub struct Member {
    pub attributes: Vec<Attribute>,
    pub name: String,
    pub ty: Type,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Attribute {
    Group(u32),
    Binding(u32),
    Location(u32),
    Builtin(&'static str),
    Interpolate(String),
    BlendSrc(u32),
    Invariant,
    Size(u32),
    Align(u32),
    Id(u32),
    Stage(&'static str),
    /// Numbers or override expressions; boxed, as the one large variant (every global's and
    /// parameter's attributes would be four times the size otherwise).
    WorkgroupSize(Box<[Expr; 3]>),
}

#[derive(Debug, Clone)]
pub enum GlobalKind {
    /// `var<space>`; `space` is e.g. `private`, `uniform`, `storage, read`, or empty for handles.
    Var {
        space: String,
    },
    Const,
    Override,
}

#[derive(Debug, Clone)]
pub struct Global {
    pub attributes: Vec<Attribute>,
    pub kind: GlobalKind,
    pub name: String,
    pub ty: Option<Type>,
    pub init: Option<Expr>,
}

#[derive(Debug)]
pub struct Function {
    pub attributes: Vec<Attribute>,
    pub name: String,
    pub params: Vec<Param>,
    pub result: Option<(Vec<Attribute>, Type)>,
    pub body: Vec<Stmt>,
    /// For each `if c { break; }` the lowering wrote: `c`, and the exact condition for going on
    /// (`i < n` for `i >= n` between integers, `!(x >= 1.0f)` between floats), which a `for` or
    /// `while` header tests (`for_loops.rs`).
    pub exits: Vec<(Expr, Expr)>,
}

#[derive(Debug)]
pub struct Param {
    pub attributes: Vec<Attribute>,
    pub name: String,
    pub ty: Type,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Literal {
    Bool(bool),
    I32(i32),
    U32(u32),
    /// A `u32` that is a bit pattern, written in hexadecimal (`0x7f800000u`).
    Bits(u32),
    /// Bit pattern of a finite f32.
    F32(u32),
    /// Bit pattern of a finite f16.
    F16(u16),
    /// An untyped integer, as in `vec3<f32>(x).xy` index positions or array sizes.
    Abstract(i64),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnaryOp {
    Negate,
    Not,
    BitNot,
    Deref,
    AddressOf,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinaryOp {
    Add,
    Subtract,
    Multiply,
    Divide,
    Modulo,
    Equal,
    NotEqual,
    Less,
    LessEqual,
    Greater,
    GreaterEqual,
    And,
    Or,
    Xor,
    LogicalAnd,
    LogicalOr,
    ShiftLeft,
    ShiftRight,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Ident(Name),
    Literal(Literal),
    Unary(UnaryOp, Box<Expr>),
    /// `left op right`: the two operands share one box, one allocation per node rather than two.
    Binary(BinaryOp, Box<[Expr; 2]>),
    /// A call of a function, builtin, or type constructor (`vec4<f32>`, `bitcast<u32>`).
    Call(Box<Call>),
    /// `base[index]`, likewise in one box.
    Index(Box<[Expr; 2]>),
    /// Member access or swizzle: `.name`, `.xyz`.
    Member(Box<MemberAccess>),
}

// Calls and members are boxed whole so that an expression node takes 24 bytes, not 40: a
// function's tree is alive until it is printed, and most of its nodes are binary operations.
const _: () = assert!(std::mem::size_of::<Expr>() == 24);

#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub callee: Name,
    pub args: Vec<Expr>,
}

impl Call {
    /// Whether this calls a builtin that only runs in a shader, never in a constant or override
    /// expression (`subgroupAdd(1u)` is not one, however constant its argument).
    pub fn is_shader_only_builtin(&self) -> bool {
        const PREFIXES: &[&str] =
            &["subgroup", "quad", "dpdx", "dpdy", "fwidth", "texture", "atomic", "arrayLength", "workgroupUniformLoad"];
        PREFIXES.iter().any(|prefix| self.callee.starts_with(prefix))
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct MemberAccess {
    pub base: Expr,
    pub name: String,
}

impl Expr {
    /// The variable a reference expression starts from: `v` of `v.a[i].b`.
    pub fn root(&self) -> Option<&str> {
        match self {
            Expr::Ident(name) => Some(name),
            Expr::Member(access) => access.base.root(),
            Expr::Index(operands) => operands[0].root(),
            _ => None,
        }
    }

    /// Calls `f` with the root of every `&reference` in this expression.
    pub fn for_each_address_taken<'a>(&'a self, f: &mut impl FnMut(&'a str)) {
        self.walk(&mut |expr| {
            if let Expr::Unary(UnaryOp::AddressOf, reference) = expr {
                reference.root().into_iter().for_each(&mut *f);
            }
        });
    }

    /// Calls `f` with this expression and every expression nested in it, outermost first.
    pub fn walk<'a>(&'a self, f: &mut impl FnMut(&'a Expr)) {
        f(self);
        // A leaf, about half of all nodes, is handed over here rather than walked by a call.
        for operand in self.operands() {
            if operand.is_leaf() { f(operand) } else { operand.walk(f) }
        }
    }

    /// A name or a literal: an expression with no operands.
    fn is_leaf(&self) -> bool {
        matches!(self, Expr::Ident(_) | Expr::Literal(_))
    }

    /// The expressions nested directly in this one, in the order they are written.
    pub fn operands(&self) -> &[Expr] {
        match self {
            Expr::Ident(_) | Expr::Literal(_) => &[],
            Expr::Unary(_, operand) => std::slice::from_ref(operand),
            Expr::Member(member) => std::slice::from_ref(&member.base),
            Expr::Binary(_, operands) | Expr::Index(operands) => &operands[..],
            Expr::Call(call) => &call.args,
        }
    }

    /// [`Expr::operands`], to change them.
    pub fn operands_mut(&mut self) -> &mut [Expr] {
        match self {
            Expr::Ident(_) | Expr::Literal(_) => &mut [],
            Expr::Unary(_, operand) => std::slice::from_mut(operand),
            Expr::Member(member) => std::slice::from_mut(&mut member.base),
            Expr::Binary(_, operands) | Expr::Index(operands) => &mut operands[..],
            Expr::Call(call) => &mut call.args,
        }
    }

    /// Whether this expression, or one nested in it, satisfies `f`.
    pub fn any(&self, f: &impl Fn(&Expr) -> bool) -> bool {
        f(self) || self.operands().iter().any(|operand| if operand.is_leaf() { f(operand) } else { operand.any(f) })
    }

    /// A name, a literal, or members and elements of one at such indices: reading it again does
    /// no work and has no effect.
    pub fn is_path(&self) -> bool {
        match self {
            Expr::Ident(_) | Expr::Literal(_) => true,
            Expr::Member(access) => access.base.is_path(),
            Expr::Index(operands) => operands.iter().all(Expr::is_path),
            _ => false,
        }
    }

    pub fn ident(name: impl Into<Name>) -> Expr {
        Expr::Ident(name.into())
    }
    pub fn call(name: impl Into<Name>, args: Vec<Expr>) -> Expr {
        Expr::Call(Box::new(Call { callee: name.into(), args }))
    }
    pub fn unary(op: UnaryOp, operand: Expr) -> Expr {
        Expr::Unary(op, Box::new(operand))
    }
    pub fn binary(op: BinaryOp, left: Expr, right: Expr) -> Expr {
        Expr::Binary(op, Box::new([left, right]))
    }
    pub fn index(base: Expr, index: Expr) -> Expr {
        Expr::Index(Box::new([base, index]))
    }
    pub fn member(base: Expr, name: impl Into<String>) -> Expr {
        Expr::Member(Box::new(MemberAccess { base, name: name.into() }))
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Stmt {
    Let {
        name: Name,
        ty: Option<Type>,
        value: Expr,
    },
    /// `var name: ty = value;`; the type is left out (`var i = 0i;`) where the value gives it.
    Var {
        name: Name,
        ty: Option<Type>,
        value: Option<Expr>,
    },
    Assign {
        target: Expr,
        value: Expr,
    },
    /// A call whose result, if any, is not used.
    Call(Expr),
    If {
        condition: Expr,
        accept: Vec<Stmt>,
        reject: Vec<Stmt>,
    },
    Loop {
        body: Vec<Stmt>,
        continuing: Vec<Stmt>,
        break_if: Option<Expr>,
    },
    Switch {
        selector: Expr,
        cases: Vec<SwitchCase>,
    },
    Break,
    Continue,
    Return(Option<Expr>),
    Discard,
    /// A statement with a trailing comment naming where it came from (`--annotate`).
    Noted {
        stmt: Box<Stmt>,
        note: String,
    },
    /// `for (init; condition; update) { body }`, made from a counted `loop` once the function
    /// has been analysed (`for_loops.rs`): the analyses see the `loop`.
    For(Box<For>),
    /// `while condition { body }`, likewise.
    While {
        condition: Expr,
        body: Vec<Stmt>,
    },
}

/// A `for` statement.
#[derive(Debug, Clone, PartialEq)]
pub struct For {
    pub init: Option<Init>,
    pub condition: Expr,
    pub update: Update,
    pub body: Vec<Stmt>,
}

/// A `for` statement's initializer of its variable.
#[derive(Debug, Clone, PartialEq)]
pub enum Init {
    /// `var i = value`, the variable's declaration.
    Var(Name, Expr),
    /// `i = value`
    Assign(Expr, Expr),
}

/// A `for` statement's update of its variable.
#[derive(Debug, Clone, PartialEq)]
pub enum Update {
    /// `i++`
    Increment(Expr),
    /// `i--`
    Decrement(Expr),
    /// `i op= value`: `i += 2i`, `i *= 2u`
    Compound(Expr, BinaryOp, Expr),
    /// `i = value`
    Assign(Expr, Expr),
}

impl Update {
    /// The variable it assigns, and the value it assigns from, if any.
    pub fn parts(&self) -> (&Expr, Option<&Expr>) {
        match self {
            Update::Increment(target) | Update::Decrement(target) => (target, None),
            Update::Compound(target, _, value) | Update::Assign(target, value) => (target, Some(value)),
        }
    }
}

impl Expr {
    /// Whether the expression nests more than `limit` levels deep; looks no deeper than that.
    pub fn deeper_than(&self, limit: usize) -> bool {
        self.depth_within(limit).is_none()
    }

    /// How many levels the expression nests (a name or literal is 1), if no more than `limit`;
    /// looks no deeper than that.
    pub fn depth_within(&self, limit: usize) -> Option<usize> {
        if limit == 0 {
            return None;
        }
        let mut below = 0;
        for operand in self.operands() {
            // A leaf is 1 deep: answered here rather than by a call.
            below = below.max(if operand.is_leaf() { 1 } else { operand.depth_within(limit - 1)? });
        }
        (below < limit).then_some(below + 1)
    }

    /// Calls `f` with every identifier in this expression, in the order they are written.
    pub fn for_each_ident<'a>(&'a self, f: &mut impl FnMut(&'a str)) {
        // Recursing itself rather than through [`Expr::walk`], whose closure is called for every
        // node: the walk behind most of the tree passes, each looking for a few names.
        match self {
            Expr::Ident(ident) => f(ident),
            Expr::Literal(_) => {}
            // A leaf operand, about half of all nodes, is handled here rather than by a call.
            _ => self.operands().iter().for_each(|operand| match operand {
                Expr::Ident(ident) => f(ident),
                Expr::Literal(_) => {}
                _ => operand.for_each_ident(f),
            }),
        }
    }

    /// Calls `f` with the name of every call in this expression: functions, builtins and
    /// constructors.
    pub fn for_each_call<'a>(&'a self, f: &mut impl FnMut(&'a str)) {
        self.walk(&mut |expr| {
            if let Expr::Call(call) = expr {
                f(&call.callee);
            }
        });
    }

    /// Whether the identifier `name` occurs in this expression.
    pub fn mentions(&self, name: &str) -> bool {
        self.any(&|expr| matches!(expr, Expr::Ident(ident) if **ident == *name))
    }
}

impl Stmt {
    /// Whether this statement, or one nested in it, satisfies `f`.
    pub fn any(&self, f: &impl Fn(&Stmt) -> bool) -> bool {
        f(self)
            || match self {
                Stmt::If { accept, reject, .. } => accept.iter().chain(reject).any(|s| s.any(f)),
                Stmt::Loop { body, continuing, .. } => body.iter().chain(continuing).any(|s| s.any(f)),
                Stmt::Switch { cases, .. } => cases.iter().flat_map(|c| &c.body).any(|s| s.any(f)),
                Stmt::Noted { stmt, .. } => stmt.any(f),
                Stmt::For(l) => l.body.iter().any(|s| s.any(f)),
                Stmt::While { body, .. } => body.iter().any(|s| s.any(f)),
                _ => false,
            }
    }

    /// The statement itself, through any notes (`--annotate`) around it.
    pub fn unnoted(&self) -> &Stmt {
        match self {
            Stmt::Noted { stmt, .. } => stmt.unnoted(),
            other => other,
        }
    }

    /// [`Stmt::unnoted`], to change it.
    pub fn unnoted_mut(&mut self) -> &mut Stmt {
        match self {
            Stmt::Noted { stmt, .. } => stmt.unnoted_mut(),
            other => other,
        }
    }

    /// The statement lists nested directly in this statement (not through a note): an `if`'s
    /// arms, a switch's cases, a loop's body and `continuing`, a `for` or `while` body.
    pub fn lists_mut(&mut self) -> Vec<&mut Vec<Stmt>> {
        let mut lists = Vec::new();
        self.for_each_list_mut(&mut |list| lists.push(list));
        lists
    }

    /// Calls `f` with each of [`Stmt::lists_mut`], without gathering them in a `Vec`.
    pub fn for_each_list_mut<'a>(&'a mut self, f: &mut impl FnMut(&'a mut Vec<Stmt>)) {
        match self {
            Stmt::If { accept, reject, .. } => {
                f(accept);
                f(reject);
            }
            Stmt::Switch { cases, .. } => cases.iter_mut().for_each(|case| f(&mut case.body)),
            Stmt::Loop { body, continuing, .. } => {
                f(body);
                f(continuing);
            }
            Stmt::For(l) => f(&mut l.body),
            Stmt::While { body, .. } => f(body),
            _ => {}
        }
    }

    /// Whether control may leave this statement early for what surrounds it, by the kinds of
    /// exit asked about: a `break` (of a loop or switch around it), a `continue`, a `return`.
    pub fn may_leave(&self, by_break: bool, by_continue: bool, by_return: bool) -> bool {
        // Asked about no kind of exit (a loop's body, for a `continue` around the loop), the
        // answer needs no walk of what is nested.
        if !(by_break || by_continue || by_return) {
            return false;
        }
        match self {
            Stmt::Break => by_break,
            Stmt::Continue => by_continue,
            Stmt::Return(_) => by_return,
            Stmt::If { accept, reject, .. } => {
                accept.iter().chain(reject).any(|s| s.may_leave(by_break, by_continue, by_return))
            }
            // A switch's own breaks end it; a loop's breaks and continues stay inside it.
            Stmt::Switch { cases, .. } => {
                cases.iter().flat_map(|c| &c.body).any(|s| s.may_leave(false, by_continue, by_return))
            }
            Stmt::Loop { body, continuing, .. } => {
                body.iter().chain(continuing).any(|s| s.may_leave(false, false, by_return))
            }
            Stmt::Noted { stmt, .. } => stmt.may_leave(by_break, by_continue, by_return),
            Stmt::For(l) => l.body.iter().any(|s| s.may_leave(false, false, by_return)),
            Stmt::While { body, .. } => body.iter().any(|s| s.may_leave(false, false, by_return)),
            _ => false,
        }
    }

    /// Calls `f` with this statement and every statement nested in it.
    pub fn for_each_stmt<'a>(&'a self, f: &mut impl FnMut(&'a Stmt)) {
        f(self);
        match self {
            Stmt::If { accept, reject, .. } => accept.iter().chain(reject).for_each(|s| s.for_each_stmt(f)),
            Stmt::Loop { body, continuing, .. } => body.iter().chain(continuing).for_each(|s| s.for_each_stmt(f)),
            Stmt::Switch { cases, .. } => cases.iter().flat_map(|c| &c.body).for_each(|s| s.for_each_stmt(f)),
            Stmt::Noted { stmt, .. } => stmt.for_each_stmt(f),
            Stmt::For(l) => l.body.iter().for_each(|s| s.for_each_stmt(f)),
            Stmt::While { body, .. } => body.iter().for_each(|s| s.for_each_stmt(f)),
            _ => {}
        }
    }

    /// Calls `f` with each expression of this statement and of those nested in it (the
    /// outermost ones: their parts are theirs to walk).
    pub fn for_each_expr<'a>(&'a self, f: &mut impl FnMut(&'a Expr)) {
        // The nested statements are walked here, not through a closure given to a walk of them:
        // that cost more than the rest of the walk (sinking declarations took 7% longer).
        if let Stmt::Loop { body, continuing, break_if } = self {
            // A loop's `break if` is evaluated after its body and `continuing`.
            body.iter().chain(continuing).for_each(|s| s.for_each_expr(f));
            break_if.iter().for_each(f);
            return;
        }
        self.for_each_own_expr(f);
        match self {
            Stmt::If { accept, reject, .. } => accept.iter().chain(reject).for_each(|s| s.for_each_expr(f)),
            Stmt::Switch { cases, .. } => cases.iter().flat_map(|c| &c.body).for_each(|s| s.for_each_expr(f)),
            Stmt::Noted { stmt, .. } => stmt.for_each_expr(f),
            Stmt::For(l) => l.body.iter().for_each(|s| s.for_each_expr(f)),
            Stmt::While { body, .. } => body.iter().for_each(|s| s.for_each_expr(f)),
            _ => {}
        }
    }

    /// Calls `f` with each expression of this statement itself, not of those nested in it, in
    /// the order they are written.
    pub fn for_each_own_expr<'a>(&'a self, f: &mut impl FnMut(&'a Expr)) {
        match self {
            Stmt::Let { value, .. } | Stmt::Call(value) | Stmt::Return(Some(value)) => f(value),
            Stmt::Var { value, .. } => value.iter().for_each(f),
            Stmt::Assign { target, value } => {
                f(target);
                f(value);
            }
            Stmt::If { condition, .. } | Stmt::While { condition, .. } => f(condition),
            Stmt::Loop { break_if, .. } => break_if.iter().for_each(f),
            Stmt::Switch { selector, .. } => f(selector),
            Stmt::For(l) => {
                match &l.init {
                    Some(Init::Var(_, value)) => f(value),
                    Some(Init::Assign(target, value)) => {
                        f(target);
                        f(value);
                    }
                    None => {}
                }
                f(&l.condition);
                let (target, value) = l.update.parts();
                f(target);
                value.into_iter().for_each(&mut *f);
            }
            Stmt::Noted { .. } | Stmt::Break | Stmt::Continue | Stmt::Return(None) | Stmt::Discard => {}
        }
    }

    /// Calls `f` with the variable each assignment in this statement and those nested in it
    /// writes (the root of its target), and each variable whose address an expression takes.
    pub fn for_each_written<'a>(&'a self, f: &mut impl FnMut(&'a str)) {
        self.for_each_assigned(f);
        self.for_each_expr(&mut |expr| expr.for_each_address_taken(f));
    }

    /// Calls `f` with the variable each assignment in this statement and those nested in it
    /// writes (the root of its target): [`Stmt::for_each_written`] without the addresses taken.
    pub fn for_each_assigned<'a>(&'a self, f: &mut impl FnMut(&'a str)) {
        self.for_each_stmt(&mut |stmt| {
            let targets = match stmt {
                Stmt::Assign { target, .. } => [Some(target), None],
                Stmt::For(l) => match &l.init {
                    Some(Init::Assign(target, _)) => [Some(target), Some(l.update.parts().0)],
                    _ => [Some(l.update.parts().0), None],
                },
                _ => return,
            };
            targets.into_iter().flatten().filter_map(Expr::root).for_each(&mut *f);
        });
    }

    /// Calls `f` with every identifier this statement and those nested in it read or write.
    pub fn for_each_ident<'a>(&'a self, f: &mut impl FnMut(&'a str)) {
        self.for_each_expr(&mut |expr| expr.for_each_ident(f));
    }

    /// Calls `f` with the name of every call in this statement and those nested in it.
    pub fn for_each_call<'a>(&'a self, f: &mut impl FnMut(&'a str)) {
        self.for_each_expr(&mut |expr| expr.for_each_call(f));
    }
}

/// A quick test of whether a name may be one of a set: one bit of 4,096 per name, chosen by a
/// multiply of its length and last four bytes (which tell `x_1494` from `x_2978`). A name whose
/// bit is clear is none of them, known without hashing its text, as a walk asking for a few
/// variables finds for most identifiers. So many bits keep that true for the hundred variables
/// the top of a long function declares: with 256 bits chosen by the last two bytes, two in five
/// of its identifiers passed.
pub struct NameFilter([u64; 64]);

impl Default for NameFilter {
    fn default() -> Self {
        NameFilter([0; 64])
    }
}

impl NameFilter {
    fn bit(name: &str) -> usize {
        let bytes = name.as_bytes();
        let len = bytes.len();
        let tail = match len.checked_sub(4) {
            Some(at) => u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]),
            None => bytes.iter().fold(0, |word, &byte| (word << 8) | u32::from(byte)),
        };
        let mixed = (u64::from(tail) | ((len as u64) << 32)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        // The top bits, which every bit of the length and the tail reaches.
        (mixed >> 52) as usize
    }

    pub fn insert(&mut self, name: &str) {
        let bit = Self::bit(name);
        self.0[bit / 64] |= 1 << (bit % 64);
    }

    /// False if `name` is none of those inserted.
    pub fn may_hold(&self, name: &str) -> bool {
        let bit = Self::bit(name);
        self.0[bit / 64] & (1 << (bit % 64)) != 0
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct SwitchCase {
    /// Selector values; `default` may be combined with them.
    pub selectors: Vec<Expr>,
    pub default: bool,
    pub body: Vec<Stmt>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_counts_the_longest_path_and_stops_past_the_limit() {
        let leaf = Expr::ident("a");
        assert_eq!(leaf.depth_within(1), Some(1));
        assert_eq!(leaf.depth_within(0), None);
        // a + f(-(b)): the call's argument is the deeper side, 4 levels in all.
        let expr = Expr::binary(
            BinaryOp::Add,
            leaf.clone(),
            Expr::call("f", vec![Expr::unary(UnaryOp::Negate, Expr::ident("b"))]),
        );
        assert_eq!(expr.depth_within(4), Some(4));
        assert_eq!(expr.depth_within(3), None);
        assert!(expr.deeper_than(3) && !expr.deeper_than(4));
        // A call without arguments is a leaf too.
        assert_eq!(Expr::call("f", vec![]).depth_within(1), Some(1));
        assert_eq!(Expr::binary(BinaryOp::Add, leaf.clone(), leaf).depth_within(1), None);
    }

    #[test]
    fn a_name_filter_holds_what_was_inserted_and_tells_most_others_apart() {
        let mut filter = NameFilter::default();
        ["x_41", "i", "", "counter"].into_iter().for_each(|name| filter.insert(name));
        assert!(["x_41", "i", "", "counter"].into_iter().all(|name| filter.may_hold(name)));
        // Names told apart by their last four bytes or their length.
        assert!(!["x_42", "x_51", "x_141", "x_1041", "j", "count"].into_iter().any(|name| filter.may_hold(name)));
        // Of a hundred names like the variables at the top of a long function, and as many others
        // alike, few of the others pass.
        let mut filter = NameFilter::default();
        (0..100).for_each(|n| filter.insert(&format!("x_{}", 1494 + 1409 * n)));
        let passing = (0..100).filter(|n| filter.may_hold(&format!("x_{}", 1500 + 1409 * n))).count();
        assert!(passing < 10, "{passing}");
    }
}
