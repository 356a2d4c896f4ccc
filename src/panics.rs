//! Panics of code we do not own (naga's front end, constant evaluator, validator and SPIR-V
//! writer) caught and turned into messages, without the panic hook printing a backtrace; and
//! those of ours in a translation, which become internal errors (`translate_words`).

use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

thread_local! {
    /// How many calls of [`without_panicking`] this thread is in: its panics there are reported as
    /// errors.
    static CATCHING: Cell<u32> = const { Cell::new(0) };
    /// Where the caught panic happened, recorded by the hook.
    static LOCATION: RefCell<String> = const { RefCell::new(String::new()) };
}

/// Runs `f`, turning a panic into its message and location. The process's panic hook stays in
/// charge of every other thread and of this one outside the call; inside it, the hook only
/// records the location, so no message or backtrace reaches stderr.
pub fn without_panicking<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if CATCHING.get() > 0 {
                let location = info.location().map(|l| format!("{}:{}", l.file(), l.line())).unwrap_or_default();
                LOCATION.set(location);
            } else {
                previous(info);
            }
        }));
    });
    CATCHING.set(CATCHING.get() + 1);
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    CATCHING.set(CATCHING.get() - 1);
    result.map_err(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "(no message)".into());
        let location = LOCATION.take();
        let file = location.rsplit_once("/src/").map_or(location.as_str(), |(_, file)| file);
        format!("{message} (at {file})")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_its_message_and_location() {
        let caught = without_panicking(|| -> u32 { panic!("index {} out of range", 7) }).unwrap_err();
        assert!(caught.starts_with("index 7 out of range (at "), "{caught}");
        assert!(caught.contains("panics.rs:"), "{caught}");
        assert_eq!(without_panicking(|| 5), Ok(5));
    }
}
