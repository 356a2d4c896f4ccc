//! naga's IR of a module built and validated on a thread of its own while the lowering goes on
//! (`Options::second_thread`). The functions' trees are handed over in batches as they are
//! printed, with the structs and globals declared since the last batch; at the end the thread
//! hands back what it built, and the last batch is built where the lowering ran. On a module of
//! many functions the IR and its validation then cost the lowering a batch's worth (a quarter of
//! the work on a mixed module was theirs). A module whose functions all fit in one batch, one
//! long function among them, starts no thread: there is no next function to lower meanwhile, and
//! memory a thread allocates is fresh, where the lowering's thread reuses what it freed.

use std::sync::mpsc;
use std::thread;

use super::incremental::{Incremental, Part, Printed};
use super::{Result, Unsupported};
use crate::name_hash::NameSet;
use crate::panics::without_panicking;
use crate::wgsl::ast::{Function, Global, Module, Name, Struct};

/// The WGSL of the functions handed over at once. One at a time, the threads would wake each
/// other for every small function (entry points 3.2 MB took 220 ms rather than 155).
const BATCH: usize = 64 << 10;

/// naga's IR of a module, built as the lowering prints each function.
pub struct Ir {
    /// The builder where no thread builds the IR (unused once one does: the thread has its own
    /// and hands it back at the end).
    here: Option<Incremental>,
    /// Whether batches go to a thread.
    on_a_thread: bool,
    /// The thread, once a batch was handed over.
    worker: Option<Worker>,
    /// The functions printed and not handed over yet, and the WGSL of them.
    batch: Vec<HandedOver>,
    batch_size: usize,
    /// How many of the module's structs and globals the thread has.
    sent: (usize, usize),
}

/// A function's tree and what the builder needs with it.
struct HandedOver {
    printed: Printed,
    tree: Function,
    callees: NameSet<Name>,
}

impl Ir {
    /// Built on the lowering's thread; `keep` keeps the parts for [`super::check`] instead of
    /// validating them.
    pub fn here(keep: bool) -> Ir {
        Ir {
            here: Some(Incremental::new(keep)),
            on_a_thread: false,
            worker: None,
            batch: Vec::new(),
            batch_size: 0,
            sent: (0, 0),
        }
    }

    /// For validation, the batches on a thread if `on_a_thread`.
    pub fn validating(on_a_thread: bool) -> Ir {
        Ir { on_a_thread, ..Ir::here(false) }
    }

    /// Adds `f`, the function of `ast` just printed, which calls `callees`
    /// ([`Incremental::function`]).
    pub fn function(&mut self, ast: &Module, f: Function, callees: &NameSet<Name>) {
        if !self.on_a_thread {
            if let Some(here) = &mut self.here {
                here.function(ast, f, callees);
            }
            return;
        }
        // A full batch goes once the next function comes, so that one batch starts no thread.
        if self.batch_size >= BATCH {
            self.hand_over(ast);
        }
        let printed = Printed::last(ast);
        self.batch.push(HandedOver { printed, tree: f, callees: callees.clone() });
        self.batch_size += printed.size;
    }

    /// The parts kept, once every function of `ast` is added ([`Incremental::finish`]).
    pub fn finish(self, ast: &Module) -> Result<Vec<Part>> {
        let Ir { here, worker, batch, .. } = self;
        let mut here = match worker {
            Some(worker) => worker.finish()?,
            None => here.ok_or(Unsupported("no builder"))?,
        };
        for HandedOver { printed, tree, callees } in batch {
            here.printed(ast, printed, tree, &callees);
        }
        here.finish(ast)
    }

    /// Hands the batch over to the thread, with the structs and globals it does not have yet;
    /// starts the thread first, or builds the batch here if none can be started.
    fn hand_over(&mut self, ast: &Module) {
        let batch = Batch {
            structs: ast.structs[self.sent.0..].to_vec(),
            globals: ast.globals[self.sent.1..].to_vec(),
            functions: std::mem::take(&mut self.batch),
        };
        (self.sent, self.batch_size) = ((ast.structs.len(), ast.globals.len()), 0);
        if self.worker.is_none() {
            self.worker = Worker::start();
        }
        if let Some(worker) = &mut self.worker {
            worker.send(batch);
            return;
        }
        // No thread: built here, as without one.
        self.on_a_thread = false;
        if let Some(here) = &mut self.here {
            for HandedOver { printed, tree, callees } in batch.functions {
                here.printed(ast, printed, tree, &callees);
            }
        }
    }
}

/// Functions printed and what the lowering declared before them since the last batch.
struct Batch {
    structs: Vec<Struct>,
    globals: Vec<Global>,
    functions: Vec<HandedOver>,
}

/// The thread building the IR.
struct Worker {
    /// To the thread; `None` once it has stopped (it refused the module) or was told to finish.
    batches: Option<mpsc::SyncSender<Batch>>,
    built: Option<thread::JoinHandle<Result<Incremental>>>,
}

impl Worker {
    /// The thread, with a builder of its own; `None` if it cannot be started.
    fn start() -> Option<Worker> {
        // One batch waits at most: the trees alive at once stay about two batches'.
        let (batches, received) = mpsc::sync_channel(1);
        let built = thread::Builder::new()
            .name("naga IR".into())
            // A main thread's (Linux's default), not a spawned one's 2 MiB: what is built on the
            // main thread is built here.
            .stack_size(8 << 20)
            .spawn(move || without_panicking(|| build(received)).unwrap_or(Err(Unsupported("naga panicked"))))
            .ok()?;
        Some(Worker { batches: Some(batches), built: Some(built) })
    }

    fn send(&mut self, batch: Batch) {
        // Refused: the thread has stopped, and its result says why.
        if let Some(batches) = &self.batches
            && batches.send(batch).is_err()
        {
            self.batches = None;
        }
    }

    /// The builder, once the thread has built every batch.
    fn finish(mut self) -> Result<Incremental> {
        self.batches = None;
        let built = self.built.take().map(thread::JoinHandle::join);
        built.map_or(Err(Unsupported("no thread")), |built| built.unwrap_or(Err(Unsupported("naga panicked"))))
    }
}

impl Drop for Worker {
    /// A translation refused on the way waits for the thread to stop: none outlives the call that
    /// started it.
    fn drop(&mut self) {
        self.batches = None;
        if let Some(built) = self.built.take() {
            _ = built.join();
        }
    }
}

/// The thread's work: the batches, built as [`Incremental`] builds them, on a copy of the module's
/// declarations (the lowering only adds to them), until the lowering is done; the builder is then
/// handed back. It stops at the first refusal.
fn build(batches: mpsc::Receiver<Batch>) -> Result<Incremental> {
    let (mut ast, mut incremental) = (Module::default(), Incremental::new(false));
    for batch in batches {
        ast.structs.extend(batch.structs);
        ast.globals.extend(batch.globals);
        for HandedOver { printed, tree, callees } in batch.functions {
            incremental.printed(&ast, printed, tree, &callees);
            if let Some(why) = incremental.refused() {
                return Err(Unsupported(why));
            }
        }
    }
    Ok(incremental)
}

#[cfg(test)]
mod tests {
    use super::super::incremental::tests::{printed, returning};
    use super::*;
    use crate::wgsl::ast::{BinaryOp, Expr, Literal, Param};

    /// The verdict on the `functions` made (as many parts as it kept, none where validated, or
    /// why not), each padded to a part's length (so a batch's too) if `long`, as the lowering
    /// hands them over with a thread and without; and whether a thread built any.
    fn verdict(functions: impl Fn() -> Vec<Function>, long: bool) -> (std::result::Result<usize, &'static str>, bool) {
        let run = |mut ir: Ir| {
            let mut ast = Module::default();
            for function in functions() {
                ast.functions.push(printed(&function));
                if long {
                    let padding = format!("// {}\n", "x".repeat(super::super::incremental::PART));
                    ast.functions.last_mut().expect("pushed").text.insert_str(0, &padding);
                }
                let callees = crate::wgsl::uniformity::callees(&function);
                ir.function(&ast, function, &callees);
            }
            let on_a_thread = ir.worker.is_some();
            (ir.finish(&ast).map(|kept| kept.len()).map_err(|Unsupported(why)| why), on_a_thread)
        };
        let (here, _) = run(Ir::here(false));
        let (threaded, on_a_thread) = run(Ir::validating(true));
        assert_eq!(threaded, here, "the same verdict with the thread as without");
        (threaded, on_a_thread)
    }

    #[test]
    fn batches_built_on_a_thread_give_the_verdict_at_the_end() {
        let functions = |f_returns: Literal| {
            move || {
                let g_and_h = ["g", "h"].map(|name| returning(name, Expr::Literal(Literal::U32(2))));
                std::iter::once(returning("f", Expr::Literal(f_returns.clone()))).chain(g_and_h).collect()
            }
        };
        assert_eq!(verdict(functions(Literal::U32(1)), true), (Ok(0), true));
        // `f` returns an `f32` as its `u32`: its part, the first, is rejected on the thread.
        let rejected = verdict(functions(Literal::F32(1.0f32.to_bits())), true);
        assert!(matches!(rejected, (Err(why), true) if why.contains("validator")), "{rejected:?}");
    }

    #[test]
    fn a_function_the_builder_refuses_on_the_thread_is_refused_as_without_it() {
        // `f` shifts by an `i32`, which the front end rejects: the builder refuses the module.
        let functions = || {
            let mut f = returning("f", Expr::binary(BinaryOp::ShiftLeft, Expr::ident("a"), Expr::ident("b")));
            f.params = vec![
                Param { attributes: Vec::new(), name: "a".into(), ty: "u32".into() },
                Param { attributes: Vec::new(), name: "b".into(), ty: "i32".into() },
            ];
            let g_and_h = ["g", "h"].map(|name| returning(name, Expr::Literal(Literal::U32(2))));
            std::iter::once(f).chain(g_and_h).collect()
        };
        let refused = verdict(functions, true);
        assert!(matches!(refused, (Err(why), true) if !why.contains("validator")), "{refused:?}");
    }

    #[test]
    fn functions_within_one_batch_start_no_thread() {
        let functions = || ["f", "g", "h"].map(|name| returning(name, Expr::Literal(Literal::U32(1)))).into();
        assert_eq!(verdict(functions, false), (Ok(0), false));
    }
}
