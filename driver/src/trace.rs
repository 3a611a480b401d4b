//! Pacing traces, format v1 (see `docs/TRACE_FORMAT.md`), and the frames `tsnic push` makes from them.
//!
//! A trace is CSV text: a header line `launch_ns,queue,len`, then one row per frame. `#` starts a
//! comment (a whole line or the end of a line); blank lines are ignored. The parser checks every row
//! against [`Limits`] (queue count and frame length bounds, usually taken from the card's capabilities)
//! and stops at the first bad line with an error that names the line and the field, so that nothing is
//! sent from a bad trace.

use thiserror::Error;

/// EtherType of the frames `tsnic push` generates (IEEE 802 local experimental EtherType 1).
pub const ETHERTYPE_TSNIC: u16 = 0x88B5;
/// Bytes of the Ethernet header (destination, source, EtherType).
pub const ETH_HEADER_LEN: usize = 14;
/// Bytes a generated frame needs at least: header, row index and launch time.
pub const FRAME_MIN_LEN: usize = ETH_HEADER_LEN + 16;
/// Destination MAC of generated frames: locally administered unicast.
pub const FRAME_DST_MAC: [u8; 6] = [0x02, 0x54, 0x53, 0x4e, 0x43, 0x01];
/// Source MAC of generated frames: locally administered unicast.
pub const FRAME_SRC_MAC: [u8; 6] = [0x02, 0x54, 0x53, 0x4e, 0x43, 0x00];
/// The exact header line of format v1.
pub const HEADER: &str = "launch_ns,queue,len";
/// The fields of a data row, in order.
pub const FIELDS: [&str; 3] = ["launch_ns", "queue", "len"];

/// What a trace row may ask for: the card's queue count and frame length bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Number of TX queues; a row's queue must be below it.
    pub num_queues: u32,
    /// Smallest frame length without FCS (60 by default: the Ethernet minimum).
    pub min_len: u32,
    /// Largest frame length without FCS (9000 by default, or the card's `CAP_MAX_FRAME_LEN`).
    pub max_len: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            num_queues: 1,
            min_len: 60,
            max_len: 9000,
        }
    }
}

impl Limits {
    /// Limits for a card with `num_queues` queues whose largest frame is `card_max_len` bytes.
    ///
    /// The length range is 60..=9000 unless the card says otherwise: a card that allows less than
    /// 9000 bytes lowers the bound, one that allows more raises it.
    pub fn for_card(num_queues: u32, card_max_len: u32) -> Self {
        let max_len = if card_max_len == 0 {
            9000
        } else {
            card_max_len
        };
        Limits {
            num_queues,
            min_len: 60,
            max_len,
        }
    }
}

/// One data row of a trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TraceRow {
    /// Row index: the first data row is 0. Carried in the frame.
    pub index: u64,
    /// 1-based line number in the file, for messages.
    pub line: usize,
    /// Launch time in ns: relative to the start of the push, or absolute TAI with `--absolute`.
    pub launch_ns: u64,
    /// TX queue.
    pub queue: u32,
    /// Ethernet frame length without FCS.
    pub len: u32,
}

/// A parsed, checked trace.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Trace {
    /// The rows in file order.
    pub rows: Vec<TraceRow>,
}

/// What a wrong header line most likely means, as the fix (or nothing).
fn header_hint(found: &str) -> &'static str {
    if found.contains('\r') {
        " (its lines end in a bare CR, as classic Mac OS wrote them: save the file with LF or CRLF line ends)"
    } else if found.contains('\t') || found.contains(';') {
        " (the fields must be separated by commas)"
    } else if found.trim().eq_ignore_ascii_case(HEADER) {
        " (the names are lower case)"
    } else {
        ""
    }
}

/// Why a trace was refused. Every variant names the line (1-based) and, for a row, the field.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TraceError {
    /// The file has no header line at all.
    #[error("the trace has no header line: its first non-comment line must be `{HEADER}`")]
    MissingHeader,
    /// The first non-comment line is not the v1 header.
    #[error(
        "line {line}: the header is `{}`, but trace format v1 needs exactly `{HEADER}`{}",
        shown(found),
        header_hint(found)
    )]
    BadHeader {
        /// Line number.
        line: usize,
        /// What the line says.
        found: String,
    },
    /// A row has the wrong number of fields.
    #[error("line {line}: {found} field(s), but a row needs 3 (launch_ns,queue,len)")]
    FieldCount {
        /// Line number.
        line: usize,
        /// Fields found.
        found: usize,
    },
    /// A field is not a number or is out of range.
    #[error("line {line}, field `{field}`: `{}` {reason}", shown(value))]
    BadField {
        /// Line number.
        line: usize,
        /// Field name (`launch_ns`, `queue` or `len`).
        field: &'static str,
        /// The text of the field.
        value: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The trace has a header but no rows.
    #[error("the trace has a header but no rows: nothing to send")]
    Empty,
}

impl TraceError {
    /// The line the error is about, if any.
    pub fn line(&self) -> Option<usize> {
        match self {
            TraceError::BadHeader { line, .. }
            | TraceError::FieldCount { line, .. }
            | TraceError::BadField { line, .. } => Some(*line),
            TraceError::MissingHeader | TraceError::Empty => None,
        }
    }

    /// The field the error is about, if any.
    pub fn field(&self) -> Option<&'static str> {
        match self {
            TraceError::BadField { field, .. } => Some(field),
            _ => None,
        }
    }
}

/// Text from the file as an error shows it: control characters (a terminal would act on them) and
/// other invisible ones escaped (`\u{1b}`, `\t`), and at most 80 characters.
pub fn shown(text: &str) -> String {
    let mut out = String::new();
    for (i, c) in text.chars().enumerate() {
        if i == 80 {
            out.push_str("...");
            break;
        }
        if c.is_control()
            || matches!(c, '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{feff}')
        {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// Strip a comment and surrounding whitespace (including a `\r` from CRLF files).
fn content(line: &str) -> &str {
    let line = match line.find('#') {
        Some(i) => &line[..i],
        None => line,
    };
    line.trim()
}

/// Parse an unsigned decimal number: digits only, no sign, no spaces inside, no underscores.
fn parse_u64(line: usize, field: &'static str, text: &str) -> Result<u64, TraceError> {
    let bad = |reason: &str| TraceError::BadField {
        line,
        field,
        value: text.to_string(),
        reason: reason.to_string(),
    };
    if text.is_empty() {
        return Err(bad("is empty; it must be an unsigned decimal integer"));
    }
    if !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad("is not an unsigned decimal integer"));
    }
    text.parse::<u64>()
        .map_err(|_| bad("does not fit in 64 bits"))
}

/// The row parser of format v1, one line at a time (the streaming source of `tsnic push` feeds it
/// as it reads; [`parse`] feeds it a whole text). Rows are numbered from 0 in file order.
#[derive(Debug, Clone)]
pub struct RowParser {
    limits: Limits,
    header_seen: bool,
    rows: u64,
}

impl RowParser {
    /// A parser checking rows against `limits`.
    pub fn new(limits: Limits) -> RowParser {
        RowParser {
            limits,
            header_seen: false,
            rows: 0,
        }
    }

    /// Rows parsed so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Parse line `line` (1-based; its text without the line end, a trailing `\r` is trimmed): the
    /// row it holds, or `None` for the header, a comment or a blank line.
    pub fn line(&mut self, line: usize, raw: &str) -> Result<Option<TraceRow>, TraceError> {
        let body = content(raw);
        if body.is_empty() {
            return Ok(None);
        }
        if !self.header_seen {
            let normalized: Vec<&str> = body.split(',').map(str::trim).collect();
            if normalized != FIELDS {
                return Err(TraceError::BadHeader {
                    line,
                    found: body.to_string(),
                });
            }
            self.header_seen = true;
            return Ok(None);
        }
        let limits = &self.limits;
        let mut it = body.split(',').map(str::trim);
        let (Some(f0), Some(f1), Some(f2), None) = (it.next(), it.next(), it.next(), it.next())
        else {
            return Err(TraceError::FieldCount {
                line,
                found: body.split(',').count(),
            });
        };
        let launch_ns = parse_u64(line, "launch_ns", f0)?;
        let queue = parse_u64(line, "queue", f1)?;
        if queue >= u64::from(limits.num_queues) {
            return Err(TraceError::BadField {
                line,
                field: "queue",
                value: f1.to_string(),
                reason: format!(
                    "is not a queue of this card: it has {} queue(s), 0..={}",
                    limits.num_queues,
                    limits.num_queues.saturating_sub(1)
                ),
            });
        }
        let len = parse_u64(line, "len", f2)?;
        if len < u64::from(limits.min_len) || len > u64::from(limits.max_len) {
            return Err(TraceError::BadField {
                line,
                field: "len",
                value: f2.to_string(),
                reason: format!(
                    "is outside {}..={} (Ethernet frame length in bytes without FCS)",
                    limits.min_len, limits.max_len
                ),
            });
        }
        let row = TraceRow {
            index: self.rows,
            line,
            launch_ns,
            queue: queue as u32,
            len: len as u32,
        };
        self.rows += 1;
        Ok(Some(row))
    }

    /// At the end of the text: a trace without a header or without rows is refused.
    pub fn finish(&self) -> Result<(), TraceError> {
        if !self.header_seen {
            return Err(TraceError::MissingHeader);
        }
        if self.rows == 0 {
            return Err(TraceError::Empty);
        }
        Ok(())
    }
}

/// Parse a whole trace. Stops at the first bad line; on error nothing of the trace may be used.
///
/// A UTF-8 byte order mark at the start (spreadsheet exports write one) is skipped.
pub fn parse(text: &str, limits: &Limits) -> Result<Trace, TraceError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut p = RowParser::new(*limits);
    let mut rows = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        if let Some(r) = p.line(i + 1, raw)? {
            rows.push(r);
        }
    }
    p.finish()?;
    Ok(Trace { rows })
}

/// Write a trace in format v1 (header and rows, no comments). `parse(&to_text(t))` gives `t` back.
pub fn to_text(trace: &Trace) -> String {
    let mut s = String::with_capacity(32 + trace.rows.len() * 24);
    s.push_str(HEADER);
    s.push('\n');
    for r in &trace.rows {
        s.push_str(&format!("{},{},{}\n", r.launch_ns, r.queue, r.len));
    }
    s
}

/// Byte `i` of a generated frame's payload pattern (after header, row index and launch time).
///
/// Depends on the row index and the position only, so a capture can be checked byte for byte.
pub fn pattern_byte(index: u64, pos: usize) -> u8 {
    let x = (index.wrapping_mul(0x9E37_79B9_7F4A_7C15)).wrapping_add(pos as u64);
    (x ^ (x >> 8) ^ (x >> 16)) as u8
}

/// Build the frame of trace row `index` with absolute launch time `launch_abs_ns`, `len` bytes long
/// (without FCS): Ethernet header with EtherType 0x88B5, row index (u64 big-endian), launch time
/// (u64 big-endian), then the deterministic pattern. `len` must be at least [`FRAME_MIN_LEN`].
pub fn build_frame(index: u64, launch_abs_ns: u64, len: usize, out: &mut Vec<u8>) {
    out.clear();
    out.extend_from_slice(&FRAME_DST_MAC);
    out.extend_from_slice(&FRAME_SRC_MAC);
    out.extend_from_slice(&ETHERTYPE_TSNIC.to_be_bytes());
    out.extend_from_slice(&index.to_be_bytes());
    out.extend_from_slice(&launch_abs_ns.to_be_bytes());
    let start = out.len();
    for pos in start..len {
        out.push(pattern_byte(index, pos));
    }
    out.truncate(len.max(FRAME_MIN_LEN));
}

/// What a generated frame says about itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameTag {
    /// Trace row index.
    pub index: u64,
    /// Absolute requested launch time, TAI ns.
    pub launch_ns: u64,
}

/// Read the row index and launch time back from a generated frame; `None` if it is not one.
pub fn parse_frame(frame: &[u8]) -> Option<FrameTag> {
    if frame.len() < FRAME_MIN_LEN || frame[12..14] != ETHERTYPE_TSNIC.to_be_bytes() {
        return None;
    }
    let index = u64::from_be_bytes(frame[14..22].try_into().ok()?);
    let launch_ns = u64::from_be_bytes(frame[22..30].try_into().ok()?);
    Some(FrameTag { index, launch_ns })
}

/// True when `frame` is exactly what [`build_frame`] makes for its own tag and length.
pub fn frame_is_intact(frame: &[u8]) -> bool {
    let Some(tag) = parse_frame(frame) else {
        return false;
    };
    let mut expect = Vec::with_capacity(frame.len());
    build_frame(tag.index, tag.launch_ns, frame.len(), &mut expect);
    expect == frame
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn lim(q: u32) -> Limits {
        Limits {
            num_queues: q,
            min_len: 60,
            max_len: 9000,
        }
    }

    #[test]
    fn parses_comments_blank_lines_crlf() {
        let t = "# a trace\n\nlaunch_ns,queue,len\r\n0,0,60 # first\n  1000 , 1 , 1514\n#x\n1000,0,9000\n";
        let tr = parse(t, &lim(2)).unwrap();
        assert_eq!(tr.rows.len(), 3);
        assert_eq!(
            tr.rows[0],
            TraceRow {
                index: 0,
                line: 4,
                launch_ns: 0,
                queue: 0,
                len: 60
            }
        );
        assert_eq!(
            tr.rows[1],
            TraceRow {
                index: 1,
                line: 5,
                launch_ns: 1000,
                queue: 1,
                len: 1514
            }
        );
        assert_eq!(tr.rows[2].line, 7);
        assert_eq!(tr.rows[2].index, 2);
    }

    #[test]
    fn a_utf8_bom_is_skipped() {
        let tr = parse("\u{feff}launch_ns,queue,len\n0,0,60\n", &lim(1)).unwrap();
        assert_eq!(tr.rows.len(), 1);
        // Only at the start: a BOM inside is still an error that names its line.
        let e = parse("launch_ns,queue,len\n\u{feff}0,0,60\n", &lim(1)).unwrap_err();
        assert_eq!(e.line(), Some(2));
    }

    #[test]
    fn header_errors() {
        assert_eq!(parse("", &lim(1)), Err(TraceError::MissingHeader));
        assert_eq!(parse("# only\n\n", &lim(1)), Err(TraceError::MissingHeader));
        let e = parse("queue,launch_ns,len\n1,2,60\n", &lim(1)).unwrap_err();
        assert_eq!(e.line(), Some(1));
        assert!(e.to_string().contains("line 1"), "{e}");
        assert_eq!(
            parse("launch_ns,queue,len\n", &lim(1)),
            Err(TraceError::Empty)
        );
        // A data row first is a bad header, not a silent row.
        assert!(matches!(
            parse("0,0,60\n", &lim(1)),
            Err(TraceError::BadHeader { line: 1, .. })
        ));
    }

    #[test]
    fn field_errors_name_line_and_field() {
        let cases: &[(&str, usize, Option<&str>)] = &[
            (
                "launch_ns,queue,len\n0,0,60\n-5,0,60\n",
                3,
                Some("launch_ns"),
            ),
            ("launch_ns,queue,len\n1.5,0,60\n", 2, Some("launch_ns")),
            (
                "launch_ns,queue,len\n99999999999999999999,0,60\n",
                2,
                Some("launch_ns"),
            ),
            ("launch_ns,queue,len\n0,4,60\n", 2, Some("queue")),
            ("launch_ns,queue,len\n0,x,60\n", 2, Some("queue")),
            ("launch_ns,queue,len\n0,0,59\n", 2, Some("len")),
            ("launch_ns,queue,len\n0,0,9001\n", 2, Some("len")),
            ("launch_ns,queue,len\n0,0,\n", 2, Some("len")),
            ("launch_ns,queue,len\n0,0\n", 2, None),
            ("launch_ns,queue,len\n0,0,60,1\n", 2, None),
        ];
        for (text, line, field) in cases {
            let e = parse(text, &lim(4)).unwrap_err();
            assert_eq!(e.line(), Some(*line), "{text:?}: {e}");
            assert_eq!(e.field(), *field, "{text:?}: {e}");
            assert!(e.to_string().contains(&format!("line {line}")), "{e}");
            if let Some(f) = field {
                assert!(e.to_string().contains(f), "{e}");
            }
        }
    }

    #[test]
    fn card_limits() {
        assert_eq!(Limits::for_card(8, 1514).max_len, 1514);
        assert_eq!(Limits::for_card(8, 0).max_len, 9000);
        let e = parse(
            "launch_ns,queue,len\n0,0,1515\n",
            &Limits::for_card(8, 1514),
        )
        .unwrap_err();
        assert_eq!(e.field(), Some("len"));
    }

    #[test]
    fn frame_layout() {
        let mut f = Vec::new();
        build_frame(7, 0x0102_0304_0506_0708, 60, &mut f);
        assert_eq!(f.len(), 60);
        assert_eq!(&f[12..14], &[0x88, 0xB5]);
        assert_eq!(&f[14..22], &7u64.to_be_bytes());
        assert_eq!(&f[22..30], &[1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(
            parse_frame(&f),
            Some(FrameTag {
                index: 7,
                launch_ns: 0x0102_0304_0506_0708
            })
        );
        assert!(frame_is_intact(&f));
        f[40] ^= 1;
        assert!(!frame_is_intact(&f));
        assert_eq!(parse_frame(&f[..29]), None);
    }

    fn row_strategy(q: u32) -> impl Strategy<Value = (u64, u32, u32)> {
        (any::<u64>(), 0..q, 60u32..=9000)
    }

    proptest! {
        #[test]
        fn roundtrip(rows in proptest::collection::vec(row_strategy(8), 1..200)) {
            let trace = Trace {
                rows: rows.iter().enumerate().map(|(i, &(launch_ns, queue, len))| TraceRow {
                    index: i as u64, line: i + 2, launch_ns, queue, len,
                }).collect(),
            };
            let parsed = parse(&to_text(&trace), &lim(8)).unwrap();
            prop_assert_eq!(parsed, trace);
        }

        #[test]
        fn one_corrupted_field_is_reported_at_its_line(
            rows in proptest::collection::vec(row_strategy(8), 1..50),
            bad_row in any::<prop::sample::Index>(),
            bad_field in 0usize..3,
            junk in prop_oneof![Just("".to_string()), Just("-1".to_string()), Just("abc".to_string()),
                                Just("1e3".to_string()), Just("18446744073709551616".to_string())],
        ) {
            let r = bad_row.index(rows.len());
            let mut text = String::from("# generated\nlaunch_ns,queue,len\n");
            for (i, &(l, q, n)) in rows.iter().enumerate() {
                let mut f = [l.to_string(), q.to_string(), n.to_string()];
                if i == r { f[bad_field] = junk.clone(); }
                text.push_str(&f.join(","));
                text.push('\n');
            }
            let e = parse(&text, &lim(8)).unwrap_err();
            prop_assert_eq!(e.line(), Some(r + 3));
            prop_assert_eq!(e.field(), Some(FIELDS[bad_field]));
        }

        #[test]
        fn arbitrary_text_never_panics(text in "\\PC*") {
            let _ = parse(&text, &lim(4));
        }

        #[test]
        fn frames_roundtrip(index in any::<u64>(), launch in any::<u64>(), len in 30usize..9000) {
            let mut f = Vec::new();
            build_frame(index, launch, len, &mut f);
            prop_assert_eq!(f.len(), len);
            prop_assert_eq!(parse_frame(&f), Some(FrameTag { index, launch_ns: launch }));
            prop_assert!(frame_is_intact(&f));
        }
    }
}
