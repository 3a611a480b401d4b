//! Standard output for the CLI's results. `println!` panics when the reader of stdout has gone
//! (`tsnic stats | head -1`); these write through a checked path instead: once the pipe is closed,
//! further output is dropped and the command still runs to its end (a persistent simulated card
//! still saves its state, files it writes are written), then `finish` fails it: the output was cut
//! short, so the command exits non-zero, saying so. Any other write error (a full disk behind a
//! redirect) is kept and reported by `finish` too.

use std::fmt::Arguments;
use std::io::{ErrorKind, Write};
use std::sync::Mutex;

/// What became of stdout so far.
enum State {
    Open,
    /// The reader went away: drop everything after this.
    Closed,
    /// A write failed for another reason: the first error, reported at the end.
    Failed(std::io::Error),
}

static STATE: Mutex<State> = Mutex::new(State::Open);

/// Write formatted text to stdout (what `out!` / `outln!` expand to).
pub fn write(args: Arguments<'_>) {
    let mut st = STATE.lock().unwrap_or_else(|p| p.into_inner());
    if !matches!(*st, State::Open) {
        return;
    }
    let mut so = std::io::stdout().lock();
    if let Err(e) = so.write_fmt(args).and_then(|_| so.flush()) {
        *st = if e.kind() == ErrorKind::BrokenPipe {
            State::Closed
        } else {
            State::Failed(e)
        };
    }
}

/// At the end of a command: an error if writing the output failed other than by the reader
/// closing the pipe.
pub fn finish() -> anyhow::Result<()> {
    let mut st = STATE.lock().unwrap_or_else(|p| p.into_inner());
    match std::mem::replace(&mut *st, State::Open) {
        State::Failed(e) => Err(anyhow::anyhow!(
            "writing the output to stdout failed: {e} (check where stdout goes: a full disk or a closed file)"
        )),
        State::Closed => Err(anyhow::anyhow!(
            "stdout was closed by its reader (e.g. `| head`) before all the output was written: the output is cut short (the command itself ran to its end)"
        )),
        State::Open => Ok(()),
    }
}

/// An error and its causes as one line, `a: b: c`, as `{:#}` prints it, but with a cause left out
/// when the message before it already says it (an error whose text embeds its source, e.g. a
/// thiserror `"{path}: {source}"` or `"{0}; nothing was written"`): each refusal is said once.
pub fn error_text(e: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in e.chain() {
        let s = cause.to_string();
        if text.contains(&s) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&s);
    }
    text
}

/// `print!` to stdout that does not panic when the reader has gone.
macro_rules! out {
    ($($t:tt)*) => { $crate::cli::out::write(format_args!($($t)*)) };
}

/// `println!` to stdout that does not panic when the reader has gone.
macro_rules! outln {
    () => { $crate::cli::out::write(format_args!("\n")) };
    ($($t:tt)*) => { $crate::cli::out::write(format_args!("{}\n", format_args!($($t)*))) };
}

pub(crate) use {out, outln};

#[cfg(test)]
mod tests {
    #[derive(Debug, thiserror::Error)]
    #[error("{path}: {source}")]
    struct Embeds {
        path: String,
        source: std::io::Error,
    }

    #[test]
    fn each_cause_is_said_once() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
        let e = anyhow::Error::new(Embeds {
            path: "x.pcap".into(),
            source: io,
        })
        .context("cannot replay it");
        assert_eq!(
            super::error_text(&e),
            "cannot replay it: x.pcap: no such file"
        );
        let e = anyhow::anyhow!("root").context("middle").context("top");
        assert_eq!(super::error_text(&e), "top: middle: root");
    }
}
