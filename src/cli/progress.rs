//! The progress line of a `--check` or `--out-dir` run, on stderr when it is a terminal: files
//! done of all, failures so far, redrawn in place by indicatif. Each input's report is printed
//! with the line out of the way, so it never mixes with them.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// The line as indicatif draws it: a bar, then `120/4000 files, 3 failed`.
const TEMPLATE: &str = "{bar:30} {pos}/{len} files, {msg}";

pub struct Progress {
    bar: ProgressBar,
    failed: usize,
}

impl Progress {
    /// A progress line over `total` inputs on stderr, or none if not `shown`.
    pub fn on_stderr(total: usize, shown: bool) -> Progress {
        let target = if shown { ProgressDrawTarget::stderr() } else { ProgressDrawTarget::hidden() };
        Progress::new(total, target)
    }

    fn new(total: usize, target: ProgressDrawTarget) -> Progress {
        let style = ProgressStyle::with_template(TEMPLATE).expect("the template is valid").progress_chars("=> ");
        let bar = ProgressBar::with_draw_target(Some(total as u64), target).with_style(style);
        bar.set_message("0 failed");
        Progress { bar, failed: 0 }
    }

    /// One more input done: `print` writes its report (with the line cleared meanwhile).
    pub fn done(&mut self, failed: bool, print: impl FnOnce()) {
        self.bar.suspend(print);
        if failed {
            self.failed += 1;
            self.bar.set_message(format!("{} failed", self.failed));
        }
        self.bar.inc(1);
    }

    /// Clears the line: the summary takes its place.
    pub fn finish(self) {
        self.bar.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use indicatif::TermLike;
    use std::sync::{Arc, Mutex};

    /// A terminal that keeps what is drawn on it.
    #[derive(Debug, Clone, Default)]
    struct Screen(Arc<Mutex<String>>);

    impl TermLike for Screen {
        fn width(&self) -> u16 {
            80
        }
        fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn write_line(&self, line: &str) -> std::io::Result<()> {
            self.write_str(&format!("{line}\n"))
        }
        fn write_str(&self, text: &str) -> std::io::Result<()> {
            self.0.lock().unwrap().push_str(text);
            Ok(())
        }
        fn clear_line(&self) -> std::io::Result<()> {
            self.write_str("<clear>")
        }
        fn flush(&self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn the_line_counts_files_done_and_failed_and_goes_away_at_the_end() {
        let screen = Screen::default();
        let mut progress = Progress::new(5, ProgressDrawTarget::term_like(Box::new(screen.clone())));
        let mut printed = Vec::new();
        for (i, failed) in [false, true, false].into_iter().enumerate() {
            progress.done(failed, || printed.push(i));
        }
        assert_eq!(printed, [0, 1, 2], "every report is printed, in order");
        let drawn = screen.0.lock().unwrap().clone();
        assert!(drawn.contains("3/5 files, 1 failed"), "{drawn:?}");
        progress.finish();
        let drawn = screen.0.lock().unwrap().clone();
        assert!(drawn.ends_with("<clear>"), "the line is cleared at the end: {drawn:?}");
    }

    #[test]
    fn a_hidden_line_draws_nothing_but_still_prints_the_reports() {
        let mut progress = Progress::on_stderr(2, false);
        let mut printed = 0;
        progress.done(true, || printed += 1);
        assert_eq!(printed, 1);
        assert!(progress.bar.is_hidden());
    }
}
