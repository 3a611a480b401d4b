//! Stage 1, the source: frames read one at a time from the input, checked as they are read.
//!
//! A [`Source`] yields [`Raw`] items in input order: the job fields (index, queue, length) and the
//! input's own time (a trace row's `launch_ns`, a packet's timestamp), plus the frame's bytes when the
//! input carries them (a capture). A bad row or packet is an error that names it; nothing after it
//! is read. Sources: [`CsvSource`] (pacing traces, `tsnic push`), the capture readers in
//! [`super::capture`] (`tsnic replay`) and [`SliceSource`] (a job already in memory, [`crate::push::run`]).

use std::io::{BufRead, Read};

use thiserror::Error;

use crate::push::{FrameSource, JobFrame};
use crate::trace::{RowParser, TraceError};

/// One frame as the input gives it, before the schedule maps its time to the card's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Raw {
    /// Read order, from 0: the position of the frame in the input (the report's job order).
    pub seq: u64,
    /// Job index the frame carries (trace row index, packet index).
    pub index: u64,
    /// 1-based line of a trace row, for messages (0: not a trace row).
    pub line: usize,
    /// The input's time for it, ns: relative or absolute launch time of a row, a packet's timestamp.
    pub time_ns: u64,
    /// TX queue.
    pub queue: u16,
    /// Frame length without FCS.
    pub len: u32,
    /// The bytes were written to the caller's buffer (else they are generated from the row).
    pub has_bytes: bool,
    /// The bytes were left in the source's own buffer ([`Source::next_lent`]), not written to the
    /// caller's: [`Source::lent`] gives them until the source reads again.
    pub lent: bool,
    /// Pass over the input (`replay --loop`: 0, 1, ...; 0 otherwise).
    pub pass: u32,
    /// Position within its pass, from 0.
    pub pos: u64,
}

impl Raw {
    /// `line N` for a trace row, `packet N` otherwise: how a message names it.
    pub fn what(&self) -> String {
        if self.line > 0 {
            format!("line {}", self.line)
        } else {
            format!("packet {}", self.index)
        }
    }
}

/// Why the input was refused; the message names the row or packet and the fix.
#[derive(Debug, Error)]
pub enum InputError {
    /// A trace row or header is wrong.
    #[error("{name}: {source}")]
    Trace {
        /// The input as messages name it.
        name: String,
        /// What is wrong.
        #[source]
        source: TraceError,
    },
    /// The trace is not UTF-8 text, or a line is absurdly long.
    #[error("{name}: {why}")]
    Text {
        /// The input.
        name: String,
        /// What is wrong.
        why: String,
    },
    /// A capture is damaged, cut short or not one this tool replays.
    #[error(transparent)]
    Capture(#[from] crate::capture::CaptureError),
    /// The input could not be read.
    #[error("{name}: {source}")]
    Io {
        /// The input.
        name: String,
        /// OS error.
        #[source]
        source: std::io::Error,
    },
}

/// Stage 1: frames in input order.
pub trait Source {
    /// The next frame, or `None` at the end of the input. When the input carries the frame's bytes,
    /// they replace `data`'s contents and [`Raw::has_bytes`] is set.
    fn next(&mut self, data: &mut Vec<u8>) -> Result<Option<Raw>, InputError>;
    /// [`Source::next`], but the frame's bytes may be left where the source read them (its reader's
    /// buffer) instead of copied into `data`: then [`Raw::lent`] is set and [`Source::lent`] gives
    /// them until the next call of either method. So a frame read from a capture is copied once,
    /// from the input's buffer straight into the card's DMA memory. Default: [`Source::next`].
    fn next_lent(&mut self, data: &mut Vec<u8>) -> Result<Option<Raw>, InputError> {
        self.next(data)
    }
    /// The bytes of the frame [`Source::next_lent`] last gave out lent (empty when none is).
    fn lent(&mut self) -> &[u8] {
        &[]
    }
    /// Up to `max` frames at once, all lent ([`Raw::lent`]): appended to `out`, frame `i`'s bytes at
    /// `offs[i]` in [`Source::lent_block`] (`out[i].len` of them), until the next call of this
    /// method, [`Source::next`] or [`Source::next_lent`]. Exactly the frames [`Source::next_lent`]
    /// would give next, in order; it stops before a frame it cannot lend as it is (a record not whole
    /// in the reader's buffer, a frame to pad, one that is refused: `next_lent` then reads it, or
    /// says what is wrong). Returns false when it gave none (nothing, or not now): then use
    /// [`Source::next_lent`]. Default: none.
    fn next_lent_batch(&mut self, _out: &mut Vec<Raw>, _offs: &mut Vec<u32>, _max: usize) -> bool {
        false
    }
    /// The buffer the frames of the last [`Source::next_lent_batch`] are in.
    fn lent_block(&mut self) -> &[u8] {
        &[]
    }
    /// The input as messages name it (a path, `the trace on stdin`).
    fn name(&self) -> &str;
    /// What the source changed in frames it read (a warning each), e.g. frames padded.
    fn notes(&self) -> Vec<String> {
        Vec::new()
    }
}

/// Longest line a trace may have: a row is a few dozen bytes; this stops a binary file read as a
/// trace from growing one line without bound.
pub const MAX_LINE: usize = 65_536;

/// A pacing trace (format v1) read line by line (`tsnic push`).
pub struct CsvSource<R: BufRead> {
    r: R,
    name: String,
    parser: RowParser,
    line: usize,
    offset: u64,
    buf: Vec<u8>,
    done: bool,
}

impl<R: BufRead> CsvSource<R> {
    /// Read a trace from `r`, rows checked against `limits`.
    pub fn new(r: R, name: String, limits: crate::trace::Limits) -> Self {
        CsvSource {
            r,
            name,
            parser: RowParser::new(limits),
            line: 0,
            offset: 0,
            buf: Vec::with_capacity(128),
            done: false,
        }
    }
}

impl<R: BufRead> Source for CsvSource<R> {
    fn next(&mut self, _data: &mut Vec<u8>) -> Result<Option<Raw>, InputError> {
        if self.done {
            return Ok(None);
        }
        let trace_err = |name: &str, source| InputError::Trace {
            name: name.to_string(),
            source,
        };
        loop {
            self.buf.clear();
            let n = (&mut self.r)
                .take(MAX_LINE as u64 + 1)
                .read_until(b'\n', &mut self.buf)
                .map_err(|e| InputError::Io {
                    name: self.name.clone(),
                    source: e,
                })?;
            if n == 0 {
                self.done = true;
                self.parser.finish().map_err(|e| trace_err(&self.name, e))?;
                return Ok(None);
            }
            self.line += 1;
            if self.buf.len() > MAX_LINE {
                return Err(InputError::Text {
                    name: self.name.clone(),
                    why: format!(
                        "line {} is longer than {MAX_LINE} bytes: a trace is text with one short row per line",
                        self.line
                    ),
                });
            }
            let mut start = 0;
            if self.line == 1 {
                if self.buf.starts_with(&[0xff, 0xfe]) || self.buf.starts_with(&[0xfe, 0xff]) {
                    return Err(InputError::Text {
                        name: self.name.clone(),
                        why: "the file is UTF-16 (it starts with a UTF-16 byte order mark): save it as UTF-8".into(),
                    });
                }
                if self.buf.starts_with("\u{feff}".as_bytes()) {
                    start = 3;
                }
            }
            let body = self.buf[start..]
                .strip_suffix(b"\n")
                .unwrap_or(&self.buf[start..]);
            let text = std::str::from_utf8(body).map_err(|e| InputError::Text {
                name: self.name.clone(),
                why: format!(
                    "byte {} is not UTF-8: a trace is UTF-8 text",
                    self.offset + start as u64 + e.valid_up_to() as u64
                ),
            })?;
            self.offset += n as u64;
            if let Some(row) = self
                .parser
                .line(self.line, text)
                .map_err(|e| trace_err(&self.name, e))?
            {
                return Ok(Some(Raw {
                    seq: row.index,
                    index: row.index,
                    line: row.line,
                    time_ns: row.launch_ns,
                    queue: row.queue as u16,
                    len: row.len,
                    has_bytes: false,
                    lent: false,
                    pass: 0,
                    pos: row.index,
                }));
            }
        }
    }

    fn name(&self) -> &str {
        &self.name
    }
}

/// A job already in memory ([`crate::push::run`]): its frames in slice order, times absolute, bytes
/// from a [`FrameSource`].
pub struct SliceSource<'a> {
    frames: &'a [JobFrame],
    src: &'a dyn FrameSource,
    next: usize,
}

impl<'a> SliceSource<'a> {
    /// The frames of `frames`, bytes from `src`.
    pub fn new(frames: &'a [JobFrame], src: &'a dyn FrameSource) -> Self {
        SliceSource {
            frames,
            src,
            next: 0,
        }
    }
}

impl Source for SliceSource<'_> {
    fn next(&mut self, data: &mut Vec<u8>) -> Result<Option<Raw>, InputError> {
        let Some(f) = self.frames.get(self.next) else {
            return Ok(None);
        };
        let seq = self.next as u64;
        self.next += 1;
        self.src.frame(f, data);
        Ok(Some(Raw {
            seq,
            index: f.index,
            line: 0,
            time_ns: f.launch_ns,
            queue: f.queue,
            len: f.len,
            has_bytes: true,
            lent: false,
            pass: 0,
            pos: seq,
        }))
    }

    fn name(&self) -> &str {
        "the job"
    }
}

/// Opens the input again for the next pass.
pub type Reopen<'a> = Box<dyn FnMut() -> Result<Box<dyn Source + 'a>, InputError> + 'a>;

/// The input read `passes` times over (`replay --loop`), at most `limit` frames in all (`--limit`):
/// frame indices and input positions count on across passes; [`Raw::pass`] and [`Raw::pos`] say
/// which pass and where in it.
pub struct Looped<'a> {
    cur: Box<dyn Source + 'a>,
    reopen: Reopen<'a>,
    pass: u32,
    passes: u32,
    limit: u64,
    seq: u64,
}

impl<'a> Looped<'a> {
    /// `first` for pass 0, `reopen` for each further pass.
    pub fn new(first: Box<dyn Source + 'a>, reopen: Reopen<'a>, passes: u32, limit: u64) -> Self {
        Looped {
            cur: first,
            reopen,
            pass: 0,
            passes: passes.max(1),
            limit,
            seq: 0,
        }
    }
}

impl Looped<'_> {
    #[inline]
    fn read(&mut self, data: &mut Vec<u8>, lend: bool) -> Result<Option<Raw>, InputError> {
        if self.seq >= self.limit {
            return Ok(None);
        }
        loop {
            let r = if lend {
                self.cur.next_lent(data)?
            } else {
                self.cur.next(data)?
            };
            if let Some(mut r) = r {
                r.pos = r.seq;
                r.pass = self.pass;
                r.seq = self.seq;
                r.index = self.seq;
                self.seq += 1;
                return Ok(Some(r));
            }
            if self.pass + 1 >= self.passes || self.seq == 0 {
                return Ok(None);
            }
            self.pass += 1;
            self.cur = (self.reopen)()?;
        }
    }
}

impl Source for Looped<'_> {
    fn next_lent_batch(&mut self, out: &mut Vec<Raw>, offs: &mut Vec<u32>, max: usize) -> bool {
        let left = self.limit.saturating_sub(self.seq);
        if left == 0 {
            return false;
        }
        let start = out.len();
        // At the end of a pass this gives none: `next_lent` opens the next pass.
        if !self
            .cur
            .next_lent_batch(out, offs, max.min(left.min(usize::MAX as u64) as usize))
        {
            return false;
        }
        for r in &mut out[start..] {
            r.pos = r.seq;
            r.pass = self.pass;
            r.seq = self.seq;
            r.index = self.seq;
            self.seq += 1;
        }
        true
    }
    fn lent_block(&mut self) -> &[u8] {
        self.cur.lent_block()
    }
    fn next(&mut self, data: &mut Vec<u8>) -> Result<Option<Raw>, InputError> {
        self.read(data, false)
    }
    fn next_lent(&mut self, data: &mut Vec<u8>) -> Result<Option<Raw>, InputError> {
        self.read(data, true)
    }
    fn lent(&mut self) -> &[u8] {
        self.cur.lent()
    }
    fn name(&self) -> &str {
        self.cur.name()
    }
    fn notes(&self) -> Vec<String> {
        self.cur.notes()
    }
}

/// Open an input for reading: `-` is standard input, anything else a file. Returns the reader and
/// the input's name for messages (`stdin_name` for `-`).
pub fn open_input(
    path: &std::path::Path,
    stdin_name: &str,
) -> std::io::Result<(Box<dyn BufRead>, String)> {
    if path.as_os_str() == "-" {
        let r = std::io::BufReader::with_capacity(1 << 16, std::io::stdin());
        return Ok((Box::new(r), stdin_name.to_string()));
    }
    let f = std::fs::File::open(path)?;
    Ok((
        Box::new(std::io::BufReader::with_capacity(1 << 16, f)),
        path.display().to_string(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{parse, Limits};

    fn rows(text: &[u8]) -> Result<Vec<Raw>, InputError> {
        let mut s = CsvSource::new(text, "t".into(), Limits::default());
        let mut out = Vec::new();
        let mut d = Vec::new();
        while let Some(r) = s.next(&mut d)? {
            out.push(r);
        }
        Ok(out)
    }

    #[test]
    fn streamed_rows_equal_the_whole_text_parser() {
        let t = "\u{feff}# c\n\nlaunch_ns,queue,len\r\n0,0,60 # x\n  1000 , 0 , 1514\n5,0,61";
        let whole = parse(t, &Limits::default()).unwrap();
        let got = rows(t.as_bytes()).unwrap();
        assert_eq!(got.len(), whole.rows.len());
        for (g, w) in got.iter().zip(&whole.rows) {
            assert_eq!(
                (g.index, g.line, g.time_ns, g.len),
                (w.index, w.line, w.launch_ns, w.len)
            );
        }
    }

    #[test]
    fn errors_name_the_line_or_byte() {
        let e = rows(b"launch_ns,queue,len\n0,0,60\n0,0,6x\n").unwrap_err();
        assert!(e.to_string().contains("line 3"), "{e}");
        let e = rows(b"launch_ns,queue,len\n0,0,60\xff\n").unwrap_err();
        assert!(e.to_string().contains("byte 26 is not UTF-8"), "{e}");
        let e = rows(b"\xff\xfel\x00").unwrap_err();
        assert!(e.to_string().contains("UTF-16"), "{e}");
        assert!(rows(b"launch_ns,queue,len\n")
            .unwrap_err()
            .to_string()
            .contains("no rows"));
        let long = vec![b'1'; MAX_LINE + 10];
        assert!(rows(&long).unwrap_err().to_string().contains("longer than"));
    }
}
