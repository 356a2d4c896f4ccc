//! Printing the WGSL syntax tree as text: top-down (enables, structs, globals, functions), four-space
//! indentation, and parentheses exactly where WGSL's grammar needs them.

use std::fmt::Write;

use super::ast::*;

/// Renders a whole module.
pub fn print(module: &Module) -> String {
    let header = header(module);
    // The functions, printed already, are nearly all of it: room for them is reserved at once.
    let functions: usize = module.functions.iter().map(|f| f.text.len() + 1).sum();
    let mut out = String::with_capacity(header.len() + functions);
    out.push_str(&header);
    for f in &module.functions {
        push_section(&mut out, &f.text);
    }
    out
}

/// Appends a section (a struct, the globals, a function) to printed WGSL.
pub fn push_section(out: &mut String, section: &str) {
    start_section(out);
    out.push_str(section);
}

/// Sections of printed WGSL (directives, each struct, the globals, each function) are separated
/// by a blank line.
fn start_section(out: &mut String) {
    if !out.is_empty() {
        out.push('\n');
    }
}

/// Renders what comes before the functions: directives, structs, globals.
pub fn header(module: &Module) -> String {
    let mut printer = Printer { out: directives(module), indent: 0 };
    for s in &module.structs {
        start_section(&mut printer.out);
        printer.struct_declaration(s);
    }
    if !module.globals.is_empty() {
        start_section(&mut printer.out);
        for g in &module.globals {
            printer.global(g);
        }
    }
    printer.out
}

/// Renders the `enable` and `diagnostic` directives.
pub fn directives(module: &Module) -> String {
    let mut printer = Printer { out: String::new(), indent: 0 };
    for enable in &module.enables {
        printer.line(&format!("enable {enable};"));
    }
    for diagnostic in &module.diagnostics {
        printer.line(&format!("diagnostic({diagnostic});"));
    }
    printer.out
}

/// A struct or a global, printed on its own.
pub struct Declaration<'a> {
    pub name: &'a str,
    pub text: String,
}

/// Renders each struct and global on its own, structs first.
pub fn declarations(module: &Module) -> Vec<Declaration<'_>> {
    let print = |declare: &dyn Fn(&mut Printer)| {
        let mut printer = Printer { out: String::new(), indent: 0 };
        declare(&mut printer);
        printer.out
    };
    let structs =
        module.structs.iter().map(|s| Declaration { name: &s.name, text: print(&|p| p.struct_declaration(s)) });
    let globals = module.globals.iter().map(|g| Declaration { name: &g.name, text: print(&|p| p.global(g)) });
    structs.chain(globals).collect()
}

/// Renders one function; also returns the length of its signature, the start of the text.
pub fn function(f: &Function) -> (String, usize) {
    let mut printer = Printer { out: String::new(), indent: 0 };
    printer.signature(f);
    let signature = printer.out.len();
    printer.block(&f.body);
    printer.line("}");
    (printer.out, signature)
}

/// A printed function's stub: its signature with a body that returns the zero value of its
/// result type; `None` for an entry point.
pub fn stub(f: &PrintedFunction) -> String {
    let mut printer = Printer { out: f.text[..f.signature.len].to_string(), indent: 0 };
    if let Some(ty) = &f.signature.result {
        printer.line(&format!("    return {ty}();"));
    }
    printer.line("}");
    printer.out
}

/// Renders one expression, as it would appear in a statement.
pub fn expr_to_string(expr: &Expr) -> String {
    let mut printer = Printer { out: String::new(), indent: 0 };
    printer.expr(expr);
    printer.out
}

struct Printer {
    out: String,
    indent: usize,
}

/// How an operand sits in WGSL's expression grammar, loosest last.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Level {
    Primary,
    Unary,
    Multiplicative,
    Additive,
    Shift,
    Relational,
    Bitwise,
    Logical,
}

fn level(expr: &Expr) -> Level {
    match expr {
        Expr::Literal(lit) if literal_is_negative(lit) => Level::Unary,
        Expr::Ident(_) | Expr::Literal(_) | Expr::Call(..) | Expr::Index(..) | Expr::Member(..) => Level::Primary,
        Expr::Unary(..) => Level::Unary,
        Expr::Binary(op, ..) => binary_level(*op),
    }
}

fn binary_level(op: BinaryOp) -> Level {
    use BinaryOp::*;
    match op {
        Multiply | Divide | Modulo => Level::Multiplicative,
        Add | Subtract => Level::Additive,
        ShiftLeft | ShiftRight => Level::Shift,
        Equal | NotEqual | Less | LessEqual | Greater | GreaterEqual => Level::Relational,
        And | Or | Xor => Level::Bitwise,
        LogicalAnd | LogicalOr => Level::Logical,
    }
}

fn literal_is_negative(lit: &Literal) -> bool {
    match lit {
        Literal::I32(v) => *v < 0,
        Literal::Abstract(v) => *v < 0,
        Literal::F32(bits) => bits >> 31 == 1,
        Literal::F16(bits) => bits >> 15 == 1,
        Literal::Bool(_) | Literal::U32(_) | Literal::Bits(_) => false,
    }
}

/// Whether the expression, printed, holds a `>` of a comparison or a shift. WGSL reads `name < ... >` as a template list when nothing like
/// `;`, `||` or an unmatched `)` comes between (the grammar's template-list discovery), so such
/// an expression after a `<` needs parentheses.
fn closes_angle(expr: &Expr) -> bool {
    // A type's own `<...>` (`vec4<i32>()`) pairs up within itself: only operators count.
    expr.any(&|e| matches!(e, Expr::Binary(BinaryOp::Greater | BinaryOp::GreaterEqual | BinaryOp::ShiftRight, ..)))
}

/// Whether `child` needs parentheses as the `left` or right operand of `op`.
fn needs_parens(op: BinaryOp, child: &Expr, left: bool) -> bool {
    let child_level = level(child);
    if child_level <= Level::Unary {
        return false;
    }
    match binary_level(op) {
        // Left-associative chains: `a * b / c`, `a + b * c - d`.
        Level::Multiplicative => !(left && child_level == Level::Multiplicative),
        Level::Additive => !(child_level == Level::Multiplicative || (left && child_level == Level::Additive)),
        // Relational operands are shift expressions (which include sums and products).
        Level::Relational => child_level > Level::Shift,
        // `a & b & c` chains only with the same operator; logical operands are relational.
        Level::Bitwise => !(left && matches!(child, Expr::Binary(o, ..) if *o == op)),
        Level::Logical => {
            child_level > Level::Relational && !(left && matches!(child, Expr::Binary(o, ..) if *o == op))
        }
        _ => true,
    }
}

fn binary_symbol(op: BinaryOp) -> &'static str {
    use BinaryOp::*;
    match op {
        Add => "+",
        Subtract => "-",
        Multiply => "*",
        Divide => "/",
        Modulo => "%",
        Equal => "==",
        NotEqual => "!=",
        Less => "<",
        LessEqual => "<=",
        Greater => ">",
        GreaterEqual => ">=",
        And => "&",
        Or => "|",
        Xor => "^",
        LogicalAnd => "&&",
        LogicalOr => "||",
        ShiftLeft => "<<",
        ShiftRight => ">>",
    }
}

fn f16_to_f32(bits: u16) -> f32 {
    let sign = if bits >> 15 == 1 { -1.0 } else { 1.0 };
    let exponent = i32::from((bits >> 10) & 0x1f);
    let mantissa = f32::from(bits & 0x3ff);
    let magnitude = if exponent == 0 {
        mantissa * (2.0f32).powi(-24)
    } else {
        (1.0 + mantissa / 1024.0) * (2.0f32).powi(exponent - 15)
    };
    sign * magnitude
}

fn attribute(attr: &Attribute) -> String {
    match attr {
        Attribute::Group(n) => format!("@group({n})"),
        Attribute::Binding(n) => format!("@binding({n})"),
        Attribute::Location(n) => format!("@location({n})"),
        Attribute::Builtin(name) => format!("@builtin({name})"),
        Attribute::Interpolate(how) => format!("@interpolate({how})"),
        Attribute::BlendSrc(n) => format!("@blend_src({n})"),
        Attribute::Invariant => "@invariant".to_string(),
        Attribute::Size(n) => format!("@size({n})"),
        Attribute::Align(n) => format!("@align({n})"),
        Attribute::Id(n) => format!("@id({n})"),
        Attribute::Stage(stage) => format!("@{stage}"),
        Attribute::WorkgroupSize(size) => {
            let [x, y, z] = &**size;
            format!("@workgroup_size({}, {}, {})", expr_to_string(x), expr_to_string(y), expr_to_string(z))
        }
    }
}

fn attributes(attrs: &[Attribute]) -> String {
    attrs.iter().map(|a| attribute(a) + " ").collect()
}

impl Printer {
    fn line(&mut self, text: &str) {
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    fn struct_declaration(&mut self, s: &Struct) {
        self.line(&format!("struct {} {{", s.name));
        for m in &s.members {
            self.line(&format!("    {}{}: {},", attributes(&m.attributes), m.name, m.ty));
        }
        self.line("}");
    }

    fn global(&mut self, g: &Global) {
        let keyword = match &g.kind {
            GlobalKind::Var { space } if space.is_empty() => "var".to_string(),
            GlobalKind::Var { space } => format!("var<{space}>"),
            GlobalKind::Const => "const".to_string(),
            GlobalKind::Override => "override".to_string(),
        };
        let mut text = format!("{}{keyword} {}", attributes(&g.attributes), g.name);
        if let Some(ty) = &g.ty {
            let _ = write!(text, ": {ty}");
        }
        if let Some(init) = &g.init {
            let _ = write!(text, " = {}", expr_to_string(init));
        }
        text.push(';');
        self.line(&text);
    }

    /// Attributes and `fn name(params) -> result {`.
    fn signature(&mut self, f: &Function) {
        // An entry point's stage and workgroup size: `@compute @workgroup_size(64, 1, 1)`.
        if !f.attributes.is_empty() {
            let attributes: Vec<String> = f.attributes.iter().map(attribute).collect();
            self.line(&attributes.join(" "));
        }
        let params: Vec<String> =
            f.params.iter().map(|p| format!("{}{}: {}", attributes(&p.attributes), p.name, p.ty)).collect();
        let result = match &f.result {
            Some((attrs, ty)) => format!(" -> {}{ty}", attributes(attrs)),
            None => String::new(),
        };
        let one_line = format!("fn {}({}){result} {{", f.name, params.join(", "));
        if one_line.len() <= 100 {
            self.line(&one_line);
        } else {
            self.line(&format!("fn {}(", f.name));
            for p in &params {
                self.line(&format!("    {p},"));
            }
            self.line(&format!("){result} {{"));
        }
    }

    fn block(&mut self, stmts: &[Stmt]) {
        self.indent += 1;
        for s in stmts {
            self.stmt(s);
        }
        self.indent -= 1;
    }

    /// Writes one line: the indentation, what `write` writes, a newline. Statements are written
    /// straight into the output, without a string per expression or per line.
    fn line_with(&mut self, write: impl FnOnce(&mut Self)) {
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        write(self);
        self.out.push('\n');
    }

    fn stmt(&mut self, stmt: &Stmt) {
        match stmt {
            Stmt::Let { name, ty, value } => self.line_with(|p| {
                p.out.push_str("let ");
                p.out.push_str(name);
                p.type_annotation(ty.as_deref());
                p.out.push_str(" = ");
                p.expr(value);
                p.out.push(';');
            }),
            Stmt::Var { name, ty, value } => self.line_with(|p| {
                p.out.push_str("var ");
                p.out.push_str(name);
                p.type_annotation(ty.as_deref());
                if let Some(value) = value {
                    p.out.push_str(" = ");
                    p.expr(value);
                }
                p.out.push(';');
            }),
            Stmt::Assign { target, value } => self.line_with(|p| {
                p.expr(target);
                p.out.push_str(" = ");
                p.expr(value);
                p.out.push(';');
            }),
            Stmt::Call(call) => self.line_with(|p| {
                p.expr(call);
                p.out.push(';');
            }),
            Stmt::If { condition, accept, reject } => self.if_chain(condition, accept, reject, ""),
            Stmt::Loop { body, continuing, break_if } => {
                self.line("loop {");
                self.block(body);
                if !continuing.is_empty() || break_if.is_some() {
                    self.indent += 1;
                    self.line("continuing {");
                    self.block(continuing);
                    if let Some(condition) = break_if {
                        self.indent += 1;
                        self.line_with(|p| {
                            p.out.push_str("break if ");
                            p.expr(condition);
                            p.out.push(';');
                        });
                        self.indent -= 1;
                    }
                    self.line("}");
                    self.indent -= 1;
                }
                self.line("}");
            }
            Stmt::Switch { selector, cases } => {
                self.line_with(|p| {
                    p.out.push_str("switch ");
                    p.expr(selector);
                    p.out.push_str(" {");
                });
                self.indent += 1;
                for case in cases {
                    self.line_with(|p| {
                        if case.selectors.is_empty() && case.default {
                            p.out.push_str("default");
                        } else {
                            p.out.push_str("case ");
                            for (i, selector) in case.selectors.iter().enumerate() {
                                if i > 0 {
                                    p.out.push_str(", ");
                                }
                                p.expr(selector);
                            }
                            if case.default {
                                p.out.push_str(", default");
                            }
                        }
                        // A case that does nothing reads as such: `case 4u: {}`.
                        p.out.push_str(if case.body.is_empty() { ": {}" } else { ": {" });
                    });
                    if !case.body.is_empty() {
                        self.block(&case.body);
                        self.line("}");
                    }
                }
                self.indent -= 1;
                self.line("}");
            }
            Stmt::Break => self.line("break;"),
            Stmt::Continue => self.line("continue;"),
            Stmt::Return(None) => self.line("return;"),
            Stmt::Return(Some(value)) => self.line_with(|p| {
                p.out.push_str("return ");
                p.expr(value);
                p.out.push(';');
            }),
            Stmt::Discard => self.line("discard;"),
            Stmt::For(l) => {
                self.line_with(|p| {
                    p.out.push_str("for (");
                    if let Some(init) = &l.init {
                        p.init(init);
                    }
                    p.out.push_str("; ");
                    p.expr(&l.condition);
                    p.out.push_str("; ");
                    p.update(&l.update);
                    p.out.push_str(") {");
                });
                self.block(&l.body);
                self.line("}");
            }
            Stmt::While { condition, body } => {
                self.line_with(|p| {
                    p.out.push_str("while ");
                    p.expr(condition);
                    p.out.push_str(" {");
                });
                self.block(body);
                self.line("}");
            }
            Stmt::Noted { stmt, note } => {
                let start = self.out.len();
                self.stmt(stmt);
                let end_of_first_line = self.out[start..].find('\n').map_or(self.out.len(), |at| start + at);
                self.out.insert_str(end_of_first_line, &format!(" // {note}"));
            }
        }
    }

    /// A `for` statement's initializer, without its `;`.
    fn init(&mut self, init: &Init) {
        match init {
            Init::Var(name, value) => {
                self.out.push_str("var ");
                self.out.push_str(name);
                self.out.push_str(" = ");
                self.expr(value);
            }
            Init::Assign(target, value) => {
                self.expr(target);
                self.out.push_str(" = ");
                self.expr(value);
            }
        }
    }

    /// A `for` statement's update: `i++`, `i += 2i`, `i = f(i)`.
    fn update(&mut self, update: &Update) {
        match update {
            Update::Increment(target) => {
                self.expr(target);
                self.out.push_str("++");
            }
            Update::Decrement(target) => {
                self.expr(target);
                self.out.push_str("--");
            }
            Update::Compound(target, op, value) => {
                self.expr(target);
                self.out.push(' ');
                self.out.push_str(binary_symbol(*op));
                self.out.push_str("= ");
                self.expr(value);
            }
            Update::Assign(target, value) => {
                self.expr(target);
                self.out.push_str(" = ");
                self.expr(value);
            }
        }
    }

    /// `if a {} else if b {} else {}` without nesting when the else branch is a lone `if`.
    fn if_chain(&mut self, condition: &Expr, accept: &[Stmt], reject: &[Stmt], prefix: &str) {
        self.line_with(|p| {
            p.out.push_str(prefix);
            p.out.push_str("if ");
            p.expr(condition);
            p.out.push_str(" {");
        });
        self.block(accept);
        match reject {
            [] => self.line("}"),
            [Stmt::If { condition, accept, reject }] => self.if_chain(condition, accept, reject, "} else "),
            _ => {
                self.line("} else {");
                self.block(reject);
                self.line("}");
            }
        }
    }

    fn expr(&mut self, expr: &Expr) {
        match expr {
            Expr::Ident(name) => self.out.push_str(name),
            Expr::Literal(lit) => self.literal(lit),
            Expr::Unary(op, operand) => {
                self.out.push_str(match op {
                    UnaryOp::Negate => "-",
                    UnaryOp::Not => "!",
                    UnaryOp::BitNot => "~",
                    UnaryOp::Deref => "*",
                    UnaryOp::AddressOf => "&",
                });
                // `--x` would lex as a decrement, so a negated negation is parenthesised too.
                let nested_minus = *op == UnaryOp::Negate && level(operand) == Level::Unary;
                self.operand(operand, level(operand) > Level::Unary || nested_minus);
            }
            Expr::Binary(op, operands) => {
                let [left, right] = &**operands;
                self.operand(left, needs_parens(*op, left, true));
                self.out.push(' ');
                self.out.push_str(binary_symbol(*op));
                self.out.push(' ');
                // `a < b >> 2u` would read as the template `a<b>`: see `closes_angle`.
                let template_like = *op == BinaryOp::Less && closes_angle(right);
                self.operand(right, needs_parens(*op, right, false) || template_like);
            }
            Expr::Call(call) => {
                self.out.push_str(&call.callee);
                self.out.push('(');
                for (i, arg) in call.args.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    // `f(a < b, c > d)` would read as `f(a<b, c>d)`.
                    let template_like =
                        matches!(arg, Expr::Binary(BinaryOp::Less, ..)) && call.args[i + 1..].iter().any(closes_angle);
                    self.operand(arg, template_like);
                }
                self.out.push(')');
            }
            Expr::Index(operands) => {
                let [base, index] = &**operands;
                self.operand(base, level(base) != Level::Primary);
                self.out.push('[');
                self.expr(index);
                self.out.push(']');
            }
            Expr::Member(member) => {
                self.operand(&member.base, level(&member.base) != Level::Primary);
                self.out.push('.');
                self.out.push_str(&member.name);
            }
        }
    }

    fn operand(&mut self, expr: &Expr, parens: bool) {
        if parens {
            self.out.push('(');
        }
        self.expr(expr);
        if parens {
            self.out.push(')');
        }
    }

    /// A literal with its WGSL suffix; floats as the shortest decimal that reads back the same.
    /// Integers are written digit by digit: `write!` would cost more than the rest of a line.
    fn literal(&mut self, lit: &Literal) {
        match lit {
            Literal::Bool(b) => self.out.push_str(if *b { "true" } else { "false" }),
            // The most negative i32 has no literal: its magnitude overflows before the minus applies.
            Literal::I32(i32::MIN) => self.out.push_str("i32(-2147483648)"),
            Literal::I32(v) => {
                self.signed(i64::from(*v));
                self.out.push('i');
            }
            Literal::U32(v) => {
                push_decimal(&mut self.out, u64::from(*v));
                self.out.push('u');
            }
            Literal::Bits(v) => {
                self.out.push_str("0x");
                push_hex(&mut self.out, u64::from(*v));
                self.out.push('u');
            }
            Literal::F32(bits) => {
                self.float(f32::from_bits(*bits));
                self.out.push('f');
            }
            Literal::F16(bits) => {
                self.float(f16_to_f32(*bits));
                self.out.push('h');
            }
            Literal::Abstract(v) => self.signed(*v),
        }
    }

    /// A float as `{:?}` writes it: the shortest decimal that reads back the same. A whole or
    /// half number of small magnitude (most literals of a shader: `1.0`, `0.5`, `-2.0`) is
    /// written digit by digit, as the formatter would cost more than the rest of its line: no
    /// shorter decimal reads back as a half, as the whole numbers beside it are floats of their
    /// own.
    fn float(&mut self, v: f32) {
        let twice = v * 2.0;
        // Below 2^22 a half is exact and `twice` too; `-0.0` keeps its sign through the formatter.
        if twice.abs() < 8_388_608.0 && twice == twice.trunc() && v.to_bits() != (-0.0f32).to_bits() {
            let twice = twice as i64;
            if twice < 0 {
                self.out.push('-');
            }
            push_decimal(&mut self.out, twice.unsigned_abs() / 2);
            self.out.push_str(if twice % 2 == 0 { ".0" } else { ".5" });
        } else {
            _ = write!(self.out, "{v:?}");
        }
    }

    fn signed(&mut self, v: i64) {
        if v < 0 {
            self.out.push('-');
        }
        push_decimal(&mut self.out, v.unsigned_abs());
    }

    /// `: ty`, if there is a type.
    fn type_annotation(&mut self, ty: Option<&str>) {
        if let Some(ty) = ty {
            self.out.push_str(": ");
            self.out.push_str(ty);
        }
    }
}

/// Appends `n` in hexadecimal (lower-case letters), as `{:x}` writes it.
fn push_hex(out: &mut String, mut n: u64) {
    let mut digits = [0u8; 16];
    let mut start = digits.len();
    loop {
        start -= 1;
        digits[start] = b"0123456789abcdef"[(n % 16) as usize];
        n /= 16;
        if n == 0 {
            break;
        }
    }
    digits[start..].iter().for_each(|&d| out.push(char::from(d)));
}

/// The hundred two-digit numbers, `00` to `99`, one after another.
const DIGIT_PAIRS: &str = {
    const BYTES: [u8; 200] = {
        let mut bytes = [0u8; 200];
        let mut i = 0;
        while i < 100 {
            bytes[2 * i] = b'0' + (i / 10) as u8;
            bytes[2 * i + 1] = b'0' + (i % 10) as u8;
            i += 1;
        }
        bytes
    };
    match std::str::from_utf8(&BYTES) {
        Ok(pairs) => pairs,
        Err(_) => panic!("digits are ASCII"),
    }
};

/// Appends `n` in decimal, as `{}` writes it, two digits at a time: a push per pair costs about
/// half what a push per digit does, and every value without an `OpName` is named `x_<id>`.
pub(crate) fn push_decimal(out: &mut String, mut n: u64) {
    // The pairs below the leading one or two digits, lowest first.
    let mut pairs = [0u8; 10];
    let mut count = 0;
    while n >= 100 {
        pairs[count] = (n % 100) as u8;
        n /= 100;
        count += 1;
    }
    if n < 10 {
        out.push(char::from(b'0' + n as u8));
    } else {
        let at = 2 * n as usize;
        out.push_str(&DIGIT_PAIRS[at..at + 2]);
    }
    for &pair in pairs[..count].iter().rev() {
        let at = 2 * usize::from(pair);
        out.push_str(&DIGIT_PAIRS[at..at + 2]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(name: &str) -> Expr {
        Expr::ident(name)
    }

    #[test]
    fn numbers_are_written_as_the_formatter_writes_them() {
        let edges = [0, 1, 9, 10, 11, 99, 100, 101, 999, 1_000, 10_007, 99_999, 100_000, 4_294_967_295, u64::MAX];
        let powers = (0..20).flat_map(|e| [10u64.pow(e) - 1, 10u64.pow(e), 10u64.pow(e) + 1]);
        for n in edges.into_iter().chain(powers).chain((0..2_000).map(|n| n * 7_919)) {
            let (mut decimal, mut hex) = (String::from("x_"), String::new());
            push_decimal(&mut decimal, n);
            push_hex(&mut hex, n);
            assert_eq!(decimal, format!("x_{n}"));
            assert_eq!(hex, format!("{n:x}"));
        }
    }

    #[test]
    fn precedence_follows_the_wgsl_grammar() {
        use BinaryOp::*;
        let sum = Expr::binary(Add, id("a"), id("b"));
        assert_eq!(expr_to_string(&Expr::binary(Multiply, sum.clone(), id("c"))), "(a + b) * c");
        assert_eq!(expr_to_string(&Expr::binary(Add, id("c"), Expr::binary(Multiply, id("a"), id("b")))), "c + a * b");
        assert_eq!(expr_to_string(&Expr::binary(Subtract, id("c"), sum.clone())), "c - (a + b)");
        assert_eq!(expr_to_string(&Expr::binary(Subtract, sum.clone(), id("c"))), "a + b - c");
        // Bitwise operators never mix with others without parentheses.
        assert_eq!(expr_to_string(&Expr::binary(And, sum.clone(), id("c"))), "(a + b) & c");
        assert_eq!(expr_to_string(&Expr::binary(Or, Expr::binary(And, id("a"), id("b")), id("c"))), "(a & b) | c");
        assert_eq!(expr_to_string(&Expr::binary(Less, sum.clone(), id("c"))), "a + b < c");
        assert_eq!(expr_to_string(&Expr::binary(ShiftLeft, sum, id("c"))), "(a + b) << c");
        let less = Expr::binary(Less, id("a"), id("b"));
        assert_eq!(expr_to_string(&Expr::binary(LogicalAnd, less.clone(), less.clone())), "a < b && a < b");
        assert_eq!(expr_to_string(&Expr::binary(Equal, less, id("c"))), "(a < b) == c");
    }

    #[test]
    fn a_less_than_never_reads_as_a_template() {
        use BinaryOp::*;
        let shifted = Expr::binary(ShiftRight, id("b"), Expr::Literal(Literal::U32(22)));
        // `c < b >> 22u || a` is the template `c<b>` to WGSL.
        let condition = Expr::binary(LogicalOr, Expr::binary(Less, id("c"), shifted), id("a"));
        assert_eq!(expr_to_string(&condition), "c < (b >> 22u) || a");
        let converted = Expr::call("f32", vec![id("b")]);
        assert_eq!(expr_to_string(&Expr::binary(Less, id("c"), converted)), "c < f32(b)");
        let typed = Expr::call("vec2<f32>", vec![id("b")]);
        assert_eq!(expr_to_string(&Expr::binary(Less, id("c"), Expr::member(typed, "x"))), "c < vec2<f32>(b).x");
        // Arguments: `f(a < b, c > d)` is `f` of the template `a<b, c>` and then `d`.
        let args = vec![Expr::binary(Less, id("a"), id("b")), Expr::binary(Greater, id("c"), id("d"))];
        assert_eq!(expr_to_string(&Expr::call("f", args)), "f((a < b), c > d)");
        let args = vec![Expr::binary(Greater, id("c"), id("d")), Expr::binary(Less, id("a"), id("b"))];
        assert_eq!(expr_to_string(&Expr::call("f", args)), "f(c > d, a < b)");
    }

    #[test]
    fn unary_and_postfix_operands() {
        let neg = Expr::unary(UnaryOp::Negate, Expr::Literal(Literal::I32(-1)));
        assert_eq!(expr_to_string(&neg), "-(-1i)");
        let deref = Expr::unary(UnaryOp::Deref, id("p"));
        assert_eq!(expr_to_string(&Expr::member(deref, "x")), "(*p).x");
        assert_eq!(
            expr_to_string(&Expr::binary(BinaryOp::Subtract, id("a"), Expr::Literal(Literal::I32(-2)))),
            "a - -2i"
        );
    }

    #[test]
    fn literals_are_exact_and_typed() {
        assert_eq!(expr_to_string(&Expr::Literal(Literal::F32(1.0f32.to_bits()))), "1.0f");
        assert_eq!(expr_to_string(&Expr::Literal(Literal::F32(0.1f32.to_bits()))), "0.1f");
        assert_eq!(expr_to_string(&Expr::Literal(Literal::F32(1e-7f32.to_bits()))), "1e-7f");
        assert_eq!(expr_to_string(&Expr::Literal(Literal::I32(i32::MIN))), "i32(-2147483648)");
        assert_eq!(expr_to_string(&Expr::Literal(Literal::U32(u32::MAX))), "4294967295u");
        assert_eq!(expr_to_string(&Expr::Literal(Literal::U32(0))), "0u");
        assert_eq!(expr_to_string(&Expr::Literal(Literal::I32(-120))), "-120i");
        assert_eq!(expr_to_string(&Expr::Literal(Literal::I32(i32::MAX))), "2147483647i");
        assert_eq!(expr_to_string(&Expr::Literal(Literal::Bits(0x7f80_0000))), "0x7f800000u");
        assert_eq!(expr_to_string(&Expr::Literal(Literal::Bits(0))), "0x0u");
        assert_eq!(expr_to_string(&Expr::Literal(Literal::Abstract(i64::MIN))), "-9223372036854775808");
        assert_eq!(expr_to_string(&Expr::Literal(Literal::Bool(false))), "false");
        // 0x3c00 is 1.0 in half precision, 0x3555 is 0.333251953125.
        assert_eq!(expr_to_string(&Expr::Literal(Literal::F16(0x3c00))), "1.0h");
        assert_eq!(expr_to_string(&Expr::Literal(Literal::F16(0x3555))), "0.33325195h");
        assert_eq!(expr_to_string(&Expr::Literal(Literal::F32((-0.0f32).to_bits()))), "-0.0f");
        assert_eq!(expr_to_string(&Expr::Literal(Literal::F32((-0.5f32).to_bits()))), "-0.5f");
    }

    #[test]
    fn whole_and_half_floats_print_as_the_formatter_would() {
        let check = |v: f32| {
            let mut printer = Printer { out: String::new(), indent: 0 };
            printer.float(v);
            assert_eq!(printer.out, format!("{v:?}"), "{v}");
        };
        // Every 997th half up to past the fast path's bound, both signs, and the edges.
        for halves in (0..20_000_000i32).step_by(997).chain(8_388_600..8_388_620) {
            let v = halves as f32 / 2.0;
            check(v);
            check(-v);
        }
        [0.0, -0.0, 0.25, 1e-7, 1e16, 3.0e38, f32::MAX, f32::MIN_POSITIVE].into_iter().for_each(check);
    }
}
