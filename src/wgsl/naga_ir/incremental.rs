//! naga's IR of a module built function by function as the lowering prints each, and validated
//! whole or, past a size, in parts; and the check that each module or part equals naga's reading
//! of its text (`tests/naga_ir.rs`).
//!
//! A part is a run of functions with every struct and global of the module declared by the part's
//! end, and a stub (the signature, a body returning a zero value: `print::stub`) for each function
//! of an earlier part it calls, placed before its first caller. Its text is those pieces printed
//! in that order. The last part has every declaration.
//! Parts keep the IR that is alive at once near the size of a part, as validating the text in
//! parts does (`validate.rs`), and have the same blind spot: what a callee in another part
//! requires of its callers (naga's checks of uniform control flow and stages across calls), which
//! our own uniformity analysis covers.
//!
//! The functions are built in the order naga's front end lowers them, which is not the order of
//! the text: callees first (`Building`). The lowering prints them in SPIR-V's order, often the
//! entry point first, so a caller printed before its callees keeps its tree until they are
//! printed and built, and a function printed while the search waits keeps its own until the
//! search reaches it. A part ends only where nothing waits: at worst (`main` first, calling first
//! the function printed last) every tree would be kept to the end, so past four parts of waiting
//! the module is refused (`WAITING`).

use naga::Span;
use naga::diagnostic_filter::{
    DiagnosticFilter, DiagnosticFilterNode, FilterableTriggeringRule, Severity, StandardFilterableTriggeringRule,
};

use super::{Builder, Declared, Result, Unsupported, spelled_head};
use crate::name_hash::{NameMap, NameSet};
use crate::panics::without_panicking;
use crate::wgsl::ast::{Expr, Function, Module, Name, Param, Stmt, Type};
use crate::wgsl::subgroups_enable::without_subgroups_enable;
use crate::wgsl::{names, print, validate};

/// The most records of a global per function (the module's functions times its globals) for which
/// the module is built: naga's validator keeps one for each pair, and every part carries every
/// global, so a module of many functions over as many resources is validated from its text, in
/// parts naming only the globals they use.
const RECORDS: usize = 1 << 22;

/// The WGSL of a part's functions past which the part is finished and a new one begun: up to it,
/// a module is validated whole.
pub(super) const PART: usize = 256 << 10;

/// The WGSL of a part's functions past which callers still waiting for their callees are refused:
/// each keeps its tree and every function printed after it, and the part cannot end, so the IR
/// alive at once would grow with the module. The text is then validated in parts.
const WAITING: usize = 4 * PART;

/// A piece of a part's text, by index in the module's functions.
#[derive(Debug, Clone, Copy)]
pub enum Piece {
    /// The function itself.
    Function(usize),
    /// The stub of a function of an earlier part.
    Stub(usize),
}

/// A function printed: where it is among the module's functions, and the size of its text.
#[derive(Clone, Copy)]
pub(super) struct Printed {
    pub(super) index: usize,
    pub(super) size: usize,
}

impl Printed {
    /// The function of `ast` printed last.
    pub(super) fn last(ast: &Module) -> Printed {
        let index = ast.functions.len() - 1;
        Printed { index, size: ast.functions[index].text.len() }
    }
}

/// A finished part: its IR, compacted as the front end's and as built, and what its text is made
/// of.
pub struct Part {
    module: naga::Module,
    built: naga::Module,
    pieces: Vec<Piece>,
    /// How many of the module's structs and globals it has: those declared by its end.
    declarations: (usize, usize),
}

/// naga's IR of a module, built as the lowering finishes each function.
pub struct Incremental {
    state: State,
    /// Whether finished parts are kept (for the check) rather than validated and dropped.
    keep: bool,
    kept: Vec<Part>,
    /// Each function printed so far: its index in the module's functions and what its stub needs.
    signatures: NameMap<Name, Signature>,
    /// The `enable` extensions the parts need (`Builder::extensions`).
    extensions: Vec<&'static str>,
}

enum State {
    /// No function finished yet: the structs and globals may still grow.
    NotStarted,
    Building(Box<Building>),
    Refused(&'static str),
}

/// A part being built: its pieces in the order they are printed, built in the front end's order.
///
/// naga's front end lowers a module's declarations in the order of a depth-first search
/// (`front::wgsl::index`): the roots in text order, each declaration after the declarations it
/// names, in the order it first names them. The structs and globals come first in our text, so
/// among the pieces that is the same search over the calls. This one runs as the pieces are
/// printed: a callee not printed yet stops it, with its stack, until it is.
struct Building {
    builder: Builder,
    pieces: Vec<Piece>,
    /// What the search needs of each piece, by position in `pieces`.
    nodes: Vec<Node>,
    /// The position of each function and stub of the part, by name.
    positions: NameMap<Name, usize>,
    /// The pieces being searched, each with the position of its next callee.
    stack: Vec<(usize, usize)>,
    /// The next piece the search starts from once the stack is empty.
    next_root: usize,
    /// The WGSL of the part's functions.
    size: usize,
}

/// A piece as the search sees it.
struct Node {
    /// The tree, until it is built.
    tree: Option<Function>,
    /// The functions of the module it calls, in the order its text first names them.
    callees: Vec<Name>,
    on_stack: bool,
}

/// What a stub of a function is made from.
struct Signature {
    index: usize,
    params: Vec<(String, Type)>,
    result: Option<Type>,
}

impl Incremental {
    /// Before any function; `keep` keeps the parts for [`check`] instead of validating them.
    pub fn new(keep: bool) -> Incremental {
        Incremental {
            state: State::NotStarted,
            keep,
            kept: Vec::new(),
            signatures: NameMap::default(),
            extensions: Vec::new(),
        }
    }

    /// Adds `f`, the function of `ast` just printed (the last of `ast.functions`), which calls
    /// `callees` (every name it calls, or more): built now, or kept until the functions it calls
    /// are printed and built.
    pub fn function(&mut self, ast: &Module, f: Function, callees: &NameSet<Name>) {
        self.printed(ast, Printed::last(ast), f, callees);
    }

    /// [`Incremental::function`] given where `f` is among the module's functions and the size of
    /// its text: `ast` needs only the structs and globals declared so far.
    pub(super) fn printed(&mut self, ast: &Module, printed: Printed, f: Function, callees: &NameSet<Name>) {
        if let State::NotStarted = self.state {
            self.state = part(ast, self.keep);
        }
        // naga's code runs on IR it has not checked yet: a panic there is a refusal.
        let added =
            without_panicking(|| self.add(ast, printed, f, callees)).unwrap_or(Err(Unsupported("naga panicked")));
        if let Err(Unsupported(what)) = added {
            self.state = State::Refused(what);
        }
    }

    /// Why the module is refused, once it is.
    pub(super) fn refused(&self) -> Option<&'static str> {
        match self.state {
            State::Refused(what) => Some(what),
            _ => None,
        }
    }

    /// The parts kept (none where they were validated), once every function of `ast` is added;
    /// an error where the module, or a part, was not built or fails validation.
    pub fn finish(mut self, ast: &Module) -> Result<Vec<Part>> {
        let filter = diagnostic_filter(ast)?;
        match std::mem::replace(&mut self.state, State::NotStarted) {
            State::Building(part) => {
                // A struct declared after the function naming it was printed was first taken for
                // a function to come.
                let mut part = part;
                part.builder.declare_new(ast)?;
                part.search(ast)?;
                if !part.is_built() {
                    return Err(Unsupported("a call of a function the module does not print"));
                }
                let earlier = self.kept.len();
                self.finish_part(ast, part.builder, part.pieces, filter.as_ref())?;
                // The directives come at the end of the lowering, and the front end reads what
                // an extension allows only under its directive.
                if self.extensions.iter().any(|extension| !ast.enables.contains(extension)) {
                    return Err(Unsupported("an extension without its enable directive"));
                }
                // The directives come at the end of the lowering: the parts finished before were
                // validated without them (which is only stricter), or kept, and get them now.
                if let Some(filter) = &filter {
                    for part in &mut self.kept[..earlier] {
                        apply_filter(&mut part.module, filter);
                        apply_filter(&mut part.built, filter);
                    }
                }
                Ok(self.kept)
            }
            State::NotStarted => Err(Unsupported("a module without functions")),
            State::Refused(what) => Err(Unsupported(what)),
        }
    }

    fn add(&mut self, ast: &Module, printed: Printed, f: Function, callees: &NameSet<Name>) -> Result<()> {
        // A full part is finished when the next function comes (or at the end), not as its last
        // function is printed: that function's tree and the SPIR-V module are still alive then.
        // A part where a function still waits for its callees goes on: they belong to it.
        if let State::Building(building) = &self.state
            && building.size >= PART
            && building.is_built()
        {
            let State::Building(full) = std::mem::replace(&mut self.state, part(ast, self.keep)) else {
                unreachable!("building")
            };
            self.finish_part(ast, full.builder, full.pieces, None)?;
        }
        let State::Building(part) = &mut self.state else { return Ok(()) };
        if (printed.index + 1) * ast.globals.len() > RECORDS {
            return Err(Unsupported("more functions times globals than the builder takes"));
        }
        part.builder.declare_new(ast)?;
        // The functions it calls, in the order it first names them; a stub before it of each of
        // an earlier part not stubbed in this one yet.
        let callees = in_order(&f.body, callees.iter().filter(|callee| part.may_be_function(callee)).collect());
        for callee in &callees {
            if !part.positions.contains_key(callee)
                && let Some(signature) = self.signatures.get(callee)
            {
                part.push(Name::clone(callee), Piece::Stub(signature.index), stub(callee, signature), Vec::new());
            }
        }
        let Printed { index, size } = printed;
        part.size += size;
        let params = f.params.iter().map(|p: &Param| (p.name.clone(), p.ty.clone())).collect();
        let result = f.result.as_ref().map(|(_, ty)| ty.clone());
        let name = Name::from(f.name.as_str());
        self.signatures.insert(Name::clone(&name), Signature { index, params, result });
        part.push(name, Piece::Function(index), f, callees);
        part.search(ast)?;
        match part.size >= WAITING && !part.is_built() {
            true => Err(Unsupported("callers waiting for their callees past four parts")),
            false => Ok(()),
        }
    }

    /// Puts the module's diagnostic `filter` on a part (in the front end's order: `reorder.rs`),
    /// then keeps it for the check, also compacted as the front end compacts its module, or
    /// validates it as built.
    ///
    /// The compaction removes only what nothing uses: expressions whose value was folded into
    /// another or never read, and types only spelled (a conversion's). The validator checks those
    /// as it checks the rest, so a part it takes as built it takes compacted; and the builder
    /// makes none it would reject (no abstract literal: a constant index makes none), which the
    /// check proves by validating both. So the verdict is the same without the compaction's walk
    /// over every handle (a twentieth of the time with validation).
    fn finish_part(
        &mut self,
        ast: &Module,
        builder: Builder,
        pieces: Vec<Piece>,
        filter: Option<&DiagnosticFilter>,
    ) -> Result<()> {
        let declarations = builder.declarations;
        self.extensions.extend(&builder.extensions);
        let mut built = builder.into_module(ast)?;
        if let Some(filter) = filter {
            apply_filter(&mut built, filter);
        }
        if self.keep {
            let mut module = built.clone();
            without_panicking(|| naga::compact::compact(&mut module, naga::compact::KeepUnused::Yes))
                .map_err(|_| Unsupported("naga panicked"))?;
            self.kept.push(Part { module, built, pieces, declarations });
            return Ok(());
        }
        // naga's code runs on IR it has not checked yet: a panic there is a rejection.
        match without_panicking(|| validate::validator().validate(&built).is_ok()) {
            Ok(true) => Ok(()),
            // The text says where and why.
            _ => Err(Unsupported("naga's validator rejects it")),
        }
    }
}

/// The module's `diagnostic` directives as naga's filter: only the one the lowering writes where
/// sampling with an implicit level of detail is in control flow WGSL cannot prove uniform.
fn diagnostic_filter(ast: &Module) -> Result<Option<DiagnosticFilter>> {
    match ast.diagnostics.as_slice() {
        [] => Ok(None),
        ["off, derivative_uniformity"] => Ok(Some(DiagnosticFilter {
            new_severity: Severity::Off,
            triggering_rule: FilterableTriggeringRule::Standard(StandardFilterableTriggeringRule::DerivativeUniformity),
        })),
        _ => Err(Unsupported("diagnostic directives")),
    }
}

/// A module-wide directive as the front end makes it: the root of the module's filters, and the
/// filter of each of its functions (none has its own).
fn apply_filter(module: &mut naga::Module, filter: &DiagnosticFilter) {
    let node = DiagnosticFilterNode { inner: filter.clone(), parent: None };
    let leaf = Some(module.diagnostic_filters.append(node, Span::UNDEFINED));
    module.diagnostic_filter_leaf = leaf;
    for (_, function) in module.functions.iter_mut() {
        function.diagnostic_filter_leaf = leaf;
    }
    for entry_point in &mut module.entry_points {
        entry_point.function.diagnostic_filter_leaf = leaf;
    }
}

impl Building {
    /// Whether `callee` may name a function of the module: not a struct, a global or a builtin
    /// (declarations never take a predeclared name: `names.rs`).
    fn may_be_function(&self, callee: &str) -> bool {
        !names::is_reserved(spelled_head(callee))
            && !matches!(self.builder.declared.get(callee), Some(Declared::Type(_) | Declared::Var(_)))
    }

    fn push(&mut self, name: Name, piece: Piece, tree: Function, callees: Vec<Name>) {
        self.positions.insert(name, self.pieces.len());
        self.pieces.push(piece);
        self.nodes.push(Node { tree: Some(tree), callees, on_stack: false });
    }

    /// Whether every piece printed is built: the search is not waiting.
    fn is_built(&self) -> bool {
        self.stack.is_empty() && self.next_root == self.nodes.len()
    }

    /// Goes on with the search until it has built every piece printed, or waits for a callee
    /// not printed yet.
    fn search(&mut self, ast: &Module) -> Result<()> {
        loop {
            let Some(&(at, next)) = self.stack.last() else {
                if self.next_root == self.nodes.len() {
                    return Ok(());
                }
                self.next_root += 1;
                self.enter(self.next_root - 1)?;
                continue;
            };
            match self.nodes[at].callees.get(next) {
                Some(callee) => {
                    let Some(&callee) = self.positions.get(callee) else {
                        // A struct declared since the caller was printed is no function to wait for.
                        if self.may_be_function(callee) {
                            return Ok(());
                        }
                        self.stack.last_mut().expect("searching").1 += 1;
                        continue;
                    };
                    self.stack.last_mut().expect("searching").1 += 1;
                    self.enter(callee)?;
                }
                None => {
                    self.stack.pop();
                    let node = &mut self.nodes[at];
                    let tree = node.tree.take().expect("built once");
                    (node.on_stack, node.callees) = (false, Vec::new());
                    self.builder.function(ast, &tree)?;
                }
            }
        }
    }

    /// Puts a piece not built yet on the stack.
    fn enter(&mut self, at: usize) -> Result<()> {
        let node = &mut self.nodes[at];
        if node.on_stack {
            return Err(Unsupported("a recursive call"));
        }
        if node.tree.is_some() {
            node.on_stack = true;
            self.stack.push((at, 0));
        }
        Ok(())
    }
}

/// Those of `callees` that `body` calls, in the order its text first names them (the order the
/// front end's search takes them in: `Building`). The walk stops once it has met them all: at
/// once where, as in most functions, none may be one of the module's functions.
fn in_order(body: &[Stmt], mut callees: Vec<&Name>) -> Vec<Name> {
    let mut found = Vec::with_capacity(callees.len());
    for stmt in body {
        if callees.is_empty() {
            break;
        }
        stmt.for_each_expr(&mut |expr| {
            if !callees.is_empty() {
                expr.for_each_call(&mut |callee| {
                    if let Some(at) = callees.iter().position(|name| ***name == *callee) {
                        found.push(Name::clone(callees.swap_remove(at)));
                    }
                });
            }
        });
    }
    found
}

/// A new part: every struct and global of the module, as the front end reads them first; the
/// names of its `let`s only if it is `kept` for the check.
fn part(ast: &Module, kept: bool) -> State {
    match Builder::new(ast) {
        Ok(builder) => State::Building(Box::new(Building {
            builder: Builder { names: kept, ..builder },
            pieces: Vec::new(),
            nodes: Vec::new(),
            positions: NameMap::default(),
            stack: Vec::new(),
            next_root: 0,
            size: 0,
        })),
        Err(Unsupported(what)) => State::Refused(what),
    }
}

/// The function `name` as its stub: its signature, and a body returning a zero value.
fn stub(name: &str, signature: &Signature) -> Function {
    let params =
        signature.params.iter().map(|(name, ty)| Param { attributes: Vec::new(), name: name.clone(), ty: ty.clone() });
    let body = match &signature.result {
        Some(ty) => vec![Stmt::Return(Some(Expr::call(ty.clone(), Vec::new())))],
        None => Vec::new(),
    };
    Function {
        attributes: Vec::new(),
        name: name.to_string(),
        params: params.collect(),
        result: signature.result.clone().map(|ty| (Vec::new(), ty)),
        body,
        exits: Vec::new(),
    }
}

/// The IR built from a module's tree against the IR naga's WGSL front end reads in its text.
#[derive(Debug)]
pub enum Check {
    /// The two are the same module, or the same in each of this many parts.
    Equal { parts: usize },
    /// The builder does not take the module (validation reads the text).
    Refused(&'static str),
    /// naga's front end rejects the text.
    TextRejected(String),
    /// The two differ: both modules, written with `{:#?}`.
    Differs { built: String, parsed: String },
    /// naga's validator takes the part as built (what validation validates) but not compacted, or
    /// the other way round: its error on the one it rejects.
    VerdictDiffers(String),
}

/// Compares each part of `ast` built (kept by an [`Incremental`] made to keep them) with naga's
/// WGSL front end on the part's text, and the validator's verdicts on it compacted and as built.
pub fn check(ast: &Module, parts: Result<Vec<Part>>) -> Check {
    let parts = match parts {
        Ok(parts) => parts,
        Err(Unsupported(what)) => return Check::Refused(what),
    };
    let declarations = print::declarations(ast);
    let count = parts.len();
    for part in parts {
        let mut text = print::directives(ast);
        let (structs, globals) = part.declarations;
        let part_globals = ast.structs.len()..ast.structs.len() + globals;
        for declaration in declarations[..structs].iter().chain(&declarations[part_globals]) {
            print::push_section(&mut text, &declaration.text);
        }
        for piece in &part.pieces {
            match *piece {
                Piece::Function(i) => print::push_section(&mut text, &ast.functions[i].text),
                Piece::Stub(i) => print::push_section(&mut text, &print::stub(&ast.functions[i])),
            }
        }
        let parsed = match naga::front::wgsl::parse_str(&without_subgroups_enable(&text)) {
            Ok(parsed) => parsed,
            Err(error) => return Check::TextRejected(error.emit_to_string(&text)),
        };
        let built = without_spans(&format!("{:#?}", part.module));
        let parsed = without_spans(&format!("{parsed:#?}"));
        if built != parsed {
            return Check::Differs { built, parsed };
        }
        let verdict =
            |module: &naga::Module| validate::validator().validate(module).map(|_| ()).map_err(|e| format!("{e:?}"));
        match (verdict(&part.module), verdict(&part.built)) {
            (Ok(()), Err(error)) | (Err(error), Ok(())) => return Check::VerdictDiffers(error),
            _ => {}
        }
    }
    Check::Equal { parts: count }
}

/// A module's `{:#?}` without its blocks' spans (where in the text each statement is), which the
/// built module does not have.
fn without_spans(debug: &str) -> String {
    let mut out = String::with_capacity(debug.len());
    let mut skipping: Option<usize> = None;
    for line in debug.lines() {
        let indent = line.len() - line.trim_start().len();
        match skipping {
            Some(depth) => {
                if indent == depth && line.trim_start().starts_with(']') {
                    skipping = None;
                }
            }
            None if line.trim_start() == "span_info: [" => skipping = Some(indent),
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::wgsl::ast::{Attribute, BinaryOp, Literal, PrintedFunction, Signature};

    /// `fn f(a: u32, b: <b_type>) -> u32 { return a <op> b; }` as a module, printed.
    fn module_of(op: BinaryOp, b_type: &str) -> (Module, Function) {
        let param = |name: &str, ty: &str| Param { attributes: Vec::new(), name: name.into(), ty: ty.into() };
        let f = Function {
            attributes: Vec::new(),
            name: "f".into(),
            params: vec![param("a", "u32"), param("b", b_type)],
            result: Some((Vec::new(), "u32".into())),
            body: vec![Stmt::Return(Some(Expr::binary(op, Expr::ident("a"), Expr::ident("b"))))],
            exits: Vec::new(),
        };
        (Module { functions: vec![printed(&f)], ..Module::default() }, f)
    }

    pub(in super::super) fn printed(f: &Function) -> PrintedFunction {
        let (text, len) = print::function(f);
        let result = f.result.as_ref().map(|(_, ty)| ty.clone());
        PrintedFunction { name: f.name.as_str().into(), text, signature: Signature { len, result }, calls: Vec::new() }
    }

    /// Adds `f` to `incremental` as the lowering does, with every name it calls.
    fn add(incremental: &mut Incremental, ast: &Module, f: Function) {
        let callees = crate::wgsl::uniformity::callees(&f);
        incremental.function(ast, f, &callees);
    }

    fn built(ast: &Module, f: Function) -> Check {
        let mut incremental = Incremental::new(true);
        add(&mut incremental, ast, f);
        check(ast, incremental.finish(ast))
    }

    #[test]
    fn a_function_is_built_as_naga_reads_its_text() {
        let (ast, f) = module_of(BinaryOp::ShiftLeft, "u32");
        let check = built(&ast, f);
        assert!(matches!(check, Check::Equal { parts: 1 }), "{check:?}");
    }

    #[test]
    fn the_diagnostic_directive_is_on_every_part_and_function() {
        let (mut ast, f) = module_of(BinaryOp::Add, "u32");
        // A comment the size of a part makes the next function start a part of its own.
        ast.functions[0].text.insert_str(0, &format!("// {}\n", "x".repeat(PART)));
        let mut incremental = Incremental::new(true);
        add(&mut incremental, &ast, f);
        let (_, mut g) = module_of(BinaryOp::Add, "u32");
        g.name = "g".into();
        ast.functions.push(printed(&g));
        add(&mut incremental, &ast, g);
        // As the lowering adds it: after every function.
        ast.diagnostics.push("off, derivative_uniformity");
        let check = check(&ast, incremental.finish(&ast));
        assert!(matches!(check, Check::Equal { parts: 2 }), "{check:?}");
    }

    #[test]
    fn a_part_built_to_be_validated_names_the_same_expressions_without_their_names() {
        // `fn f(a: u32, b: u32) -> u32 { let c = a + b; return c; }`
        let (mut ast, mut f) = module_of(BinaryOp::Add, "u32");
        let sum = Expr::binary(BinaryOp::Add, Expr::ident("a"), Expr::ident("b"));
        f.body = vec![Stmt::Let { name: "c".into(), ty: None, value: sum }, Stmt::Return(Some(Expr::ident("c")))];
        ast.functions = vec![printed(&f)];
        let named = |kept: bool| {
            let State::Building(mut part) = part(&ast, kept) else { panic!("refused") };
            part.builder.function(&ast, &f).expect("built");
            let module = part.builder.module;
            assert!(validate::validator().validate(&module).is_ok());
            let (_, function) = module.functions.iter().next().expect("one function");
            function.named_expressions.iter().map(|(&handle, name)| (handle, name.clone())).collect::<Vec<_>>()
        };
        let (checked, validated) = (named(true), named(false));
        let names = |named: &[(naga::Handle<naga::Expression>, String)]| {
            named.iter().map(|(_, name)| name.clone()).collect::<Vec<_>>()
        };
        assert_eq!(names(&checked), ["a", "b", "c"]);
        // The parameters keep theirs: they are few.
        assert_eq!(names(&validated), ["a", "b", ""]);
        let handles = |named: &[(naga::Handle<naga::Expression>, String)]| {
            named.iter().map(|&(handle, _)| handle).collect::<Vec<_>>()
        };
        assert_eq!(handles(&checked), handles(&validated));
    }

    /// `fn <name>() -> u32 { return <value>; }`
    pub(in super::super) fn returning(name: &str, value: Expr) -> Function {
        Function {
            attributes: Vec::new(),
            name: name.into(),
            params: Vec::new(),
            result: Some((Vec::new(), "u32".into())),
            body: vec![Stmt::Return(Some(value))],
            exits: Vec::new(),
        }
    }

    /// `<callee>() + 1u`
    fn call_plus_one(callee: &str) -> Expr {
        Expr::binary(BinaryOp::Add, Expr::call(callee, Vec::new()), Expr::Literal(Literal::U32(1)))
    }

    /// The names of a part's functions, in the order of its IR.
    fn function_names(part: &Part) -> Vec<&str> {
        part.module.functions.iter().map(|(_, f)| f.name.as_deref().unwrap_or("")).collect()
    }

    #[test]
    fn functions_are_built_in_the_front_ends_order() {
        // Printed main, g, f; main names f, then g. The front end lowers f, g, main: neither the
        // order of the text nor that in which each function's callees are all printed (g, f,
        // main).
        let main = returning("main", Expr::binary(BinaryOp::Add, call_plus_one("f"), call_plus_one("g")));
        let (g, f) = (returning("g", Expr::Literal(Literal::U32(2))), returning("f", Expr::Literal(Literal::U32(3))));
        let (mut ast, mut incremental) = (Module::default(), Incremental::new(true));
        for function in [main, g, f] {
            ast.functions.push(printed(&function));
            add(&mut incremental, &ast, function);
        }
        let parts = incremental.finish(&ast);
        let names = parts.as_ref().map(|parts| function_names(&parts[0])).unwrap_or_default();
        assert_eq!(names, ["f", "g", "main"]);
        let check = check(&ast, parts);
        assert!(matches!(check, Check::Equal { parts: 1 }), "{check:?}");
    }

    #[test]
    fn callees_come_in_the_order_the_text_first_names_them() {
        // `h(g(), f(g()));` then `return f();`: h, g, f, whatever the order of the names given;
        // k, given but never called, is left out.
        let f_of_g = Expr::call("f", vec![Expr::call("g", Vec::new())]);
        let body = vec![
            Stmt::Call(Expr::call("h", vec![Expr::call("g", Vec::new()), f_of_g])),
            Stmt::Return(Some(Expr::call("f", Vec::new()))),
        ];
        let given: Vec<Name> = ["f", "k", "g", "h"].into_iter().map(Name::from).collect();
        let found = in_order(&body, given.iter().collect());
        assert_eq!(found.iter().map(|name| &**name).collect::<Vec<_>>(), ["h", "g", "f"]);
    }

    #[test]
    fn a_part_does_not_end_while_a_caller_waits() {
        // main fills a part, but calls f, printed after it: f belongs to main's part. h, after
        // them, begins the next part, with a stub of f.
        let main = returning("main", call_plus_one("f"));
        let f = returning("f", Expr::Literal(Literal::U32(3)));
        let h = returning("h", call_plus_one("f"));
        let (mut ast, mut incremental) = (Module::default(), Incremental::new(true));
        for function in [main, f, h] {
            ast.functions.push(printed(&function));
            if function.name == "main" {
                ast.functions[0].text.insert_str(0, &format!("// {}\n", "x".repeat(PART)));
            }
            add(&mut incremental, &ast, function);
        }
        let parts = incremental.finish(&ast);
        let names: Vec<Vec<&str>> =
            parts.as_ref().map(|parts| parts.iter().map(function_names).collect()).unwrap_or_default();
        assert_eq!(names, [vec!["f", "main"], vec!["f", "h"]]);
        let check = check(&ast, parts);
        assert!(matches!(check, Check::Equal { parts: 2 }), "{check:?}");
    }

    #[test]
    fn callers_waiting_past_four_parts_are_refused() {
        // main, four parts long, waits for f: the builder gives up rather than keep growing.
        let main = returning("main", call_plus_one("f"));
        let f = returning("f", Expr::Literal(Literal::U32(3)));
        let (mut ast, mut incremental) = (Module::default(), Incremental::new(true));
        ast.functions.push(printed(&main));
        ast.functions[0].text.insert_str(0, &format!("// {}\n", "x".repeat(WAITING)));
        add(&mut incremental, &ast, main);
        assert!(matches!(incremental.state, State::Refused(_)));
        ast.functions.push(printed(&f));
        add(&mut incremental, &ast, f);
        assert!(matches!(incremental.finish(&ast), Err(Unsupported(_))));
    }

    #[test]
    fn a_call_of_a_function_never_printed_is_refused() {
        let main = returning("main", call_plus_one("f"));
        let (mut ast, mut incremental) = (Module::default(), Incremental::new(true));
        ast.functions.push(printed(&main));
        add(&mut incremental, &ast, main);
        assert!(matches!(incremental.finish(&ast), Err(Unsupported(_))));
    }

    /// `struct <name> { x: f32 }`
    fn struct_of_f32(name: &str) -> crate::wgsl::ast::Struct {
        let x = crate::wgsl::ast::Member { attributes: Vec::new(), name: "x".into(), ty: "f32".into() };
        crate::wgsl::ast::Struct { name: name.into(), members: vec![x] }
    }

    /// f, then S declared with g, which takes an S; f a part long if `fill_part`. Checked.
    fn a_struct_declared_between_functions(fill_part: bool) -> Check {
        let (mut ast, f) = module_of(BinaryOp::Add, "u32");
        if fill_part {
            ast.functions[0].text.insert_str(0, &format!("// {}\n", "x".repeat(PART)));
        }
        let mut incremental = Incremental::new(true);
        add(&mut incremental, &ast, f);
        ast.structs.push(struct_of_f32("S"));
        let mut g = returning("g", Expr::Literal(Literal::U32(1)));
        g.params.push(Param { attributes: Vec::new(), name: "s".into(), ty: "S".into() });
        ast.functions.push(printed(&g));
        add(&mut incremental, &ast, g);
        check(&ast, incremental.finish(&ast))
    }

    #[test]
    fn a_struct_declared_after_a_function_comes_before_its_types() {
        // f registers u32 before S (and its f32) is declared; the text has S first, and so has
        // naga's reading: f32, S, then u32.
        let check = a_struct_declared_between_functions(false);
        assert!(matches!(check, Check::Equal { parts: 1 }), "{check:?}");
    }

    #[test]
    fn a_struct_declared_after_the_globals_comes_before_their_types() {
        // main waits for f, whose lowering declares S: no function is built yet, but the global
        // registered vec2<f32> before S. The text has the structs first, so naga's reading has S
        // first.
        let global = crate::wgsl::ast::Global {
            attributes: Vec::new(),
            kind: crate::wgsl::ast::GlobalKind::Var { space: "private".into() },
            name: "v".into(),
            ty: Some("vec2<f32>".into()),
            init: None,
        };
        let (mut ast, mut incremental) = (Module::default(), Incremental::new(true));
        ast.globals.push(global);
        let main = returning("main", call_plus_one("f"));
        ast.functions.push(printed(&main));
        add(&mut incremental, &ast, main);
        ast.structs.push(struct_of_f32("S"));
        let f = returning("f", Expr::Literal(Literal::U32(3)));
        ast.functions.push(printed(&f));
        add(&mut incremental, &ast, f);
        let check = check(&ast, incremental.finish(&ast));
        assert!(matches!(check, Check::Equal { parts: 1 }), "{check:?}");
    }

    #[test]
    fn a_struct_declared_in_a_later_part_is_only_in_that_part() {
        // f fills a part; S is declared with g, which begins the next. The first part was built
        // (and validated) without S, so its text is read without S too; the second has it.
        let check = a_struct_declared_between_functions(true);
        assert!(matches!(check, Check::Equal { parts: 2 }), "{check:?}");
    }

    #[test]
    fn a_struct_named_before_it_is_declared_is_no_function_to_wait_for() {
        // main constructs S (its zero value), declared only after main is printed: the search
        // first takes S for a function to come, and must not wait for it once S is a struct.
        let s_x = Expr::member(Expr::call("S", Vec::new()), "x");
        let main = returning("main", Expr::call("u32", vec![s_x]));
        let (mut ast, mut incremental) = (Module::default(), Incremental::new(true));
        ast.functions.push(printed(&main));
        add(&mut incremental, &ast, main);
        ast.structs.push(struct_of_f32("S"));
        let check = check(&ast, incremental.finish(&ast));
        assert!(matches!(check, Check::Equal { parts: 1 }), "{check:?}");
    }

    #[test]
    fn clip_distances_are_built_only_under_their_enable_directive() {
        // The lowering adds its directives after the functions; without this one the front end
        // rejects the text, so the builder must refuse it.
        let ty = "array<f32, 1>";
        let main = || Function {
            attributes: vec![Attribute::Stage("vertex")],
            name: "main".into(),
            params: Vec::new(),
            result: Some((vec![Attribute::Builtin("clip_distances")], ty.into())),
            body: vec![Stmt::Return(Some(Expr::call(ty, Vec::new())))],
            exits: Vec::new(),
        };
        let mut ast = Module { functions: vec![printed(&main())], ..Module::default() };
        let built = |ast: &Module| {
            let mut incremental = Incremental::new(true);
            add(&mut incremental, ast, main());
            check(ast, incremental.finish(ast))
        };
        let refused = built(&ast);
        assert!(matches!(refused, Check::Refused(_)), "{refused:?}");
        ast.enables.push("clip_distances");
        let taken = built(&ast);
        assert!(matches!(taken, Check::Equal { parts: 1 }), "{taken:?}");
    }

    #[test]
    fn what_the_front_end_rejects_is_refused_not_built() {
        // The front end rejects a shift by an `i32`: the builder must refuse it rather than hand
        // naga's validator an IR the text never becomes.
        let (ast, f) = module_of(BinaryOp::ShiftLeft, "i32");
        assert!(naga::front::wgsl::parse_str(&print::print(&ast)).is_err());
        let check = built(&ast, f);
        assert!(matches!(check, Check::Refused(_)), "{check:?}");
    }
}
