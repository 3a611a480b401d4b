//! The packetdrill script syntax the shared set uses (upstream's grammar in
//! /work/shared/conformance/packetdrill/syntax.md): option lines (`--tolerance_usecs=N`), a
//! back-quoted init command, then events `TIME ACTION` where TIME is absolute (`0`, `1.2`),
//! relative (`+.1`), any (`*`), a range (`+.3~+.310`) or a blocking call's start and end
//! (`+.01...0.011`), and ACTION is an inbound (`<`) or outbound (`>`) TCP packet, a socket call
//! with its expected return, a `%{ ... }%` Python-like block or a back-quoted shell command.
//!
//! Times are kept in microseconds. Every error names the file, line and what was expected.

use super::PdrillError;

/// An event time, microseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Time {
    /// Since the script's start.
    Abs(i64),
    /// Since the previous event.
    Rel(i64),
    /// `*`: whenever it happens.
    Any,
}

/// The second half of an event time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeRange {
    None,
    /// `A~B`: the event may happen anywhere in [A, B].
    Tilde(Time),
    /// `A...B`: a blocking socket call that starts at A and returns at B.
    Ellipsis(Time),
}

/// TCP flag bits as packetdrill spells them (`F S R P . U E W`).
pub mod flag {
    pub const FIN: u8 = 0x01;
    pub const SYN: u8 = 0x02;
    pub const RST: u8 = 0x04;
    pub const PSH: u8 = 0x08;
    pub const ACK: u8 = 0x10;
    pub const URG: u8 = 0x20;
    pub const ECE: u8 = 0x40;
    pub const CWR: u8 = 0x80;
}

/// Format flag bits the way a script writes them (`S.`, `P.`, `F.`, `.`).
pub fn flags_text(f: u8) -> String {
    let mut s = String::new();
    for (bit, c) in [
        (flag::FIN, 'F'),
        (flag::SYN, 'S'),
        (flag::RST, 'R'),
        (flag::PSH, 'P'),
        (flag::URG, 'U'),
        (flag::ECE, 'E'),
        (flag::CWR, 'W'),
    ] {
        if f & bit != 0 {
            s.push(c);
        }
    }
    if f & flag::ACK != 0 {
        s.push('.');
    }
    s
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    /// `<`: the script's peer sends it to the socket under test.
    In,
    /// `>`: the socket under test must send it.
    Out,
}

/// One TCP option in a packet's `<...>` list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TcpOpt {
    Nop,
    Eol,
    Mss(u16),
    SackOk,
    Wscale(u8),
    Ts { val: u32, ecr: u32 },
    Sack(Vec<(u32, u32)>),
}

/// The option list of a packet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PktOptions {
    /// No `<...>` given: the packet carries no options (for an outbound packet, timestamps
    /// are not compared unless listed, as upstream does when the script omits them).
    Absent,
    /// `<...>`: any options.
    Any,
    List(Vec<TcpOpt>),
}

/// A scripted TCP packet. Sequence numbers are relative to the sender's initial sequence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Packet {
    pub dir: Dir,
    pub flags: u8,
    pub seq: u32,
    pub end: u32,
    pub len: u32,
    pub ack: Option<u32>,
    pub win: Option<u32>,
    pub options: PktOptions,
}

/// A socket call: `write(4, ..., 1000) = 1000`, `connect(3, ..., ...) = -1 EINPROGRESS (...)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Syscall {
    pub name: String,
    /// The arguments, split at top-level commas, trimmed.
    pub args: Vec<String>,
    pub ret: i64,
    pub errno: Option<String>,
}

/// A binary or unary operator of a `%{ }%` expression.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    Not,
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Neg,
}

/// An expression of a `%{ }%` block (integers, names, arithmetic, comparisons, and/or/not).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expr {
    Int(i64),
    Name(String),
    Unary(Op, Box<Expr>),
    Binary(Op, Box<Expr>, Box<Expr>),
}

/// A statement of a `%{ }%` block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stmt {
    /// `assert EXPR[, message]`; `text` is the expression as written.
    Assert { expr: Expr, text: String },
    /// `NAME = EXPR`.
    Assign { name: String, expr: Expr },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeLine {
    pub line: usize,
    pub stmt: Stmt,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    Packet(Packet),
    Syscall(Syscall),
    Code(Vec<CodeLine>),
    /// A back-quoted shell command (sysctls, `tc`); its text.
    Shell(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// 1-based line of the event's start.
    pub line: usize,
    pub time: Time,
    pub range: TimeRange,
    pub action: Action,
}

/// A parsed script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Script {
    pub file: String,
    /// `--name=value` option lines.
    pub options: Vec<(String, Option<String>)>,
    /// The back-quoted command before the first event (the sysctls the script assumes).
    pub init: Option<String>,
    pub events: Vec<Event>,
    /// The back-quoted command after the last event (restores sysctls).
    pub cleanup: Option<String>,
}

impl Script {
    /// `--tolerance_usecs=N`, if the script sets it.
    pub fn tolerance_usecs(&self) -> Option<u64> {
        self.options
            .iter()
            .find(|(k, _)| k == "tolerance_usecs")
            .and_then(|(_, v)| v.as_deref())
            .and_then(|v| v.parse().ok())
    }
}

struct Lexer<'a> {
    file: &'a str,
    s: Vec<char>,
    pos: usize,
    line: usize,
}

impl Lexer<'_> {
    fn err(&self, line: usize, msg: impl Into<String>) -> PdrillError {
        PdrillError::Parse {
            file: self.file.to_string(),
            line,
            msg: msg.into(),
        }
    }
    fn peek(&self) -> Option<char> {
        self.s.get(self.pos).copied()
    }
    fn peek_at(&self, k: usize) -> Option<char> {
        self.s.get(self.pos + k).copied()
    }
    fn starts(&self, t: &str) -> bool {
        t.chars()
            .enumerate()
            .all(|(i, c)| self.peek_at(i) == Some(c))
    }
    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += 1;
        if c == '\n' {
            self.line += 1;
        }
        Some(c)
    }
    /// Skip whitespace (newlines included) and `//` and `/* */` comments.
    fn skip_blank(&mut self) {
        loop {
            match self.peek() {
                Some(c) if c.is_whitespace() => {
                    self.bump();
                }
                Some('/') if self.peek_at(1) == Some('/') => {
                    while let Some(c) = self.peek() {
                        if c == '\n' {
                            break;
                        }
                        self.bump();
                    }
                }
                Some('/') if self.peek_at(1) == Some('*') => {
                    self.bump();
                    self.bump();
                    while self.peek().is_some() && !self.starts("*/") {
                        self.bump();
                    }
                    self.bump();
                    self.bump();
                }
                _ => return,
            }
        }
    }
    /// Skip spaces and tabs on the current line.
    fn skip_spaces(&mut self) {
        while matches!(self.peek(), Some(' ' | '\t' | '\r')) {
            self.bump();
        }
    }
    /// The rest of the line (the newline not consumed), without a trailing `//` comment.
    fn rest_of_line(&mut self) -> String {
        let mut out = String::new();
        while let Some(c) = self.peek() {
            if c == '\n' {
                break;
            }
            out.push(c);
            self.bump();
        }
        if let Some(i) = out.find("//") {
            out.truncate(i);
        }
        out.trim().to_string()
    }
    /// Text up to (not including) `end`, which is consumed. Error if the file ends first.
    fn until(&mut self, end: &str, start_line: usize, what: &str) -> Result<String, PdrillError> {
        let mut out = String::new();
        loop {
            if self.starts(end) {
                for _ in 0..end.chars().count() {
                    self.bump();
                }
                return Ok(out);
            }
            match self.bump() {
                Some(c) => out.push(c),
                None => {
                    return Err(self.err(
                        start_line,
                        format!(
                            "{what} is not closed: expected `{end}` before the end of the file"
                        ),
                    ))
                }
            }
        }
    }
    /// A time in seconds (`0`, `.1`, `1.2`, `0.011`) as microseconds; a `.` is taken only
    /// when a digit follows, so `0...1` reads as `0` then `...`.
    fn seconds(&mut self, line: usize) -> Result<i64, PdrillError> {
        let mut int = String::new();
        while let Some(c) = self.peek().filter(char::is_ascii_digit) {
            int.push(c);
            self.bump();
        }
        let mut frac = String::new();
        if self.peek() == Some('.') && self.peek_at(1).is_some_and(|c| c.is_ascii_digit()) {
            self.bump();
            while let Some(c) = self.peek().filter(char::is_ascii_digit) {
                frac.push(c);
                self.bump();
            }
        }
        if int.is_empty() && frac.is_empty() {
            return Err(self.err(
                line,
                "expected a time (`0`, `+.1`, `*`, `1.2`) at the start of an event",
            ));
        }
        if frac.len() > 6 {
            return Err(self.err(line, "a time has at most 6 decimals (microseconds)"));
        }
        let secs: i64 = if int.is_empty() {
            0
        } else {
            int.parse()
                .map_err(|_| self.err(line, format!("time `{int}` is too large")))?
        };
        let mut us_txt = frac.clone();
        while us_txt.len() < 6 {
            us_txt.push('0');
        }
        let us: i64 = us_txt.parse().unwrap_or(0);
        secs.checked_mul(1_000_000)
            .and_then(|v| v.checked_add(us))
            .ok_or_else(|| self.err(line, "time is too large"))
    }
    fn time(&mut self, line: usize) -> Result<Time, PdrillError> {
        match self.peek() {
            Some('*') => {
                self.bump();
                Ok(Time::Any)
            }
            Some('+') => {
                self.bump();
                Ok(Time::Rel(self.seconds(line)?))
            }
            Some('-') => {
                self.bump();
                Ok(Time::Rel(-self.seconds(line)?))
            }
            _ => Ok(Time::Abs(self.seconds(line)?)),
        }
    }
}

/// Parse a script's text; `file` names it in errors.
pub fn parse_script(file: &str, text: &str) -> Result<Script, PdrillError> {
    let mut lx = Lexer {
        file,
        s: text.chars().collect(),
        pos: 0,
        line: 1,
    };
    let mut script = Script {
        file: file.to_string(),
        options: vec![],
        init: None,
        events: vec![],
        cleanup: None,
    };
    loop {
        lx.skip_blank();
        let Some(c) = lx.peek() else { break };
        let line = lx.line;
        if lx.starts("--") {
            lx.bump();
            lx.bump();
            let opt = lx.rest_of_line();
            let (k, v) = match opt.split_once('=') {
                Some((k, v)) => (k.trim().to_string(), Some(v.trim().to_string())),
                None => (opt.clone(), None),
            };
            if k.is_empty() {
                return Err(lx.err(line, "expected an option name after `--`"));
            }
            script.options.push((k, v));
            continue;
        }
        if c == '`' {
            lx.bump();
            let cmd = lx.until("`", line, "a back-quoted command")?;
            if script.events.is_empty() && script.init.is_none() {
                script.init = Some(cmd);
            } else if script.cleanup.is_none() {
                script.cleanup = Some(cmd);
            } else {
                return Err(lx.err(
                    line,
                    "a second untimed back-quoted command: a command between events needs a time (`+0 `...``)",
                ));
            }
            continue;
        }
        if script.cleanup.is_some() {
            return Err(lx.err(
                line,
                "an event after the untimed clean-up command: a command between events needs a time (`+0 `...``)",
            ));
        }
        let time = lx.time(line)?;
        lx.skip_spaces();
        let range = if lx.peek() == Some('~') {
            lx.bump();
            lx.skip_spaces();
            TimeRange::Tilde(lx.time(line)?)
        } else if lx.starts("...") {
            for _ in 0..3 {
                lx.bump();
            }
            TimeRange::Ellipsis(lx.time(line)?)
        } else {
            TimeRange::None
        };
        lx.skip_spaces();
        let action = parse_action(&mut lx, line)?;
        script.events.push(Event {
            line,
            time,
            range,
            action,
        });
    }
    Ok(script)
}

fn parse_action(lx: &mut Lexer, line: usize) -> Result<Action, PdrillError> {
    match lx.peek() {
        Some(c @ ('<' | '>')) => {
            lx.bump();
            let dir = if c == '<' { Dir::In } else { Dir::Out };
            let body = lx.rest_of_line();
            parse_packet(dir, &body).map(Action::Packet).map_err(|m| lx.err(line, m))
        }
        Some('%') if lx.peek_at(1) == Some('{') => {
            lx.bump();
            lx.bump();
            let body_line = lx.line;
            let body = lx.until("}%", line, "a `%{` block")?;
            parse_code(&body, body_line).map(Action::Code).map_err(|(l, m)| lx.err(l, m))
        }
        Some('`') => {
            lx.bump();
            let cmd = lx.until("`", line, "a back-quoted command")?;
            Ok(Action::Shell(cmd))
        }
        Some(c) if c.is_ascii_alphabetic() || c == '_' => {
            let mut name = String::new();
            while let Some(c) = lx.peek().filter(|c| c.is_ascii_alphanumeric() || *c == '_') {
                name.push(c);
                lx.bump();
            }
            lx.skip_spaces();
            if lx.peek() != Some('(') {
                return Err(lx.err(line, format!("expected `(` after socket call `{name}`")));
            }
            lx.bump();
            // the arguments, to the matching `)` (they may span lines: poll's struct list)
            let mut depth = 1usize;
            let mut args = String::new();
            let mut quote = false;
            loop {
                let Some(c) = lx.bump() else {
                    return Err(lx.err(line, format!("`{name}(` is not closed: expected `)`")));
                };
                match c {
                    '"' => quote = !quote,
                    '(' | '[' | '{' if !quote => depth += 1,
                    ')' | ']' | '}' if !quote => {
                        depth -= 1;
                        if depth == 0 && c == ')' {
                            break;
                        }
                    }
                    _ => {}
                }
                args.push(c);
            }
            let rest = lx.rest_of_line();
            let sc = parse_syscall_tail(name, &args, &rest).map_err(|m| lx.err(line, m))?;
            Ok(Action::Syscall(sc))
        }
        Some(c) => Err(lx.err(
            line,
            format!(
                "expected `<` or `>` (a packet), a socket call, `%{{` or a back-quoted command after the time, found `{c}`"
            ),
        )),
        None => Err(lx.err(line, "expected an action after the time, found the end of the file")),
    }
}

/// Split at commas outside brackets and quotes.
fn split_top(s: &str) -> Vec<String> {
    let mut out = vec![];
    let mut cur = String::new();
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    for c in s.chars() {
        match c {
            '"' | '\'' if quote.is_none() => quote = Some(c),
            q if quote == Some(q) => quote = None,
            '(' | '[' | '{' if quote.is_none() => depth += 1,
            ')' | ']' | '}' if quote.is_none() => depth -= 1,
            ',' if depth == 0 && quote.is_none() => {
                out.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.trim().is_empty() || !out.is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

fn parse_syscall_tail(name: String, args: &str, rest: &str) -> Result<Syscall, String> {
    let Some(r) = rest.strip_prefix('=') else {
        return Err(format!(
            "expected `= RESULT` after `{name}(...)`, found `{rest}`"
        ));
    };
    let r = r.trim();
    let (num, tail) = match r.find(|c: char| c.is_whitespace()) {
        Some(i) => (&r[..i], r[i..].trim()),
        None => (r, ""),
    };
    let ret = parse_int(num).ok_or_else(|| {
        format!("expected an integer result after `{name}(...) =`, found `{num}`")
    })?;
    let errno = if tail.is_empty() {
        None
    } else {
        let e: String = tail
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if e.is_empty() {
            return Err(format!(
                "expected an errno name (EPIPE, EINPROGRESS, ...) after the result, found `{tail}`"
            ));
        }
        Some(e)
    };
    Ok(Syscall {
        name,
        args: split_top(args),
        ret,
        errno,
    })
}

fn parse_int(s: &str) -> Option<i64> {
    let (neg, t) = match s.strip_prefix('-') {
        Some(t) => (true, t),
        None => (false, s),
    };
    let v = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        i64::from_str_radix(h, 16).ok()?
    } else {
        t.parse::<i64>().ok()?
    };
    Some(if neg { -v } else { v })
}

fn parse_u32(s: &str, what: &str) -> Result<u32, String> {
    parse_int(s)
        .and_then(|v| u32::try_from(v).ok())
        .ok_or_else(|| format!("expected {what} (an integer 0..=4294967295), found `{s}`"))
}

/// `FLAGS START:END(LEN) [ack N] [win N] [<OPTIONS>]`.
fn parse_packet(dir: Dir, body: &str) -> Result<Packet, String> {
    let (main, options) = match body.find('<') {
        Some(i) => {
            let Some(j) = body.rfind('>') else {
                return Err("the option list `<...` is not closed: expected `>`".into());
            };
            if j < i || !body[j + 1..].trim().is_empty() {
                return Err("expected the option list `<...>` at the end of the packet".into());
            }
            (&body[..i], Some(&body[i + 1..j]))
        }
        None => (body, None),
    };
    let mut toks = main.split_whitespace();
    let ftxt = toks
        .next()
        .ok_or("expected TCP flags (`S`, `S.`, `.`, `P.`, `F.`, `R`) after `<`/`>`")?;
    let mut flags = 0u8;
    for c in ftxt.chars() {
        flags |= match c {
            'F' => flag::FIN,
            'S' => flag::SYN,
            'R' => flag::RST,
            'P' => flag::PSH,
            '.' => flag::ACK,
            'U' => flag::URG,
            'E' => flag::ECE,
            'W' => flag::CWR,
            _ => {
                return Err(format!(
                    "expected TCP flags from `FSRP.UEW`, found `{ftxt}` (only TCP packets are supported)"
                ))
            }
        };
    }
    let range = toks
        .next()
        .ok_or("expected a sequence range `START:END(LEN)` after the flags")?;
    let bad_range = || format!("expected a sequence range `START:END(LEN)`, found `{range}`");
    let (se, len) = range.split_once('(').ok_or_else(bad_range)?;
    let len = len.strip_suffix(')').ok_or_else(bad_range)?;
    let (s, e) = se.split_once(':').ok_or_else(bad_range)?;
    let seq = parse_u32(s, "a start sequence")?;
    let end = parse_u32(e, "an end sequence")?;
    let len = parse_u32(len, "a payload length")?;
    if end.wrapping_sub(seq) != len {
        return Err(format!(
            "sequence range {seq}:{end} does not match its length ({len})"
        ));
    }
    let mut ack = None;
    let mut win = None;
    while let Some(t) = toks.next() {
        match t {
            "ack" => ack = Some(parse_u32(toks.next().unwrap_or(""), "an ACK number")?),
            "win" => win = Some(parse_u32(toks.next().unwrap_or(""), "a window")?),
            _ => {
                return Err(format!(
                    "expected `ack N`, `win N` or `<options>`, found `{t}`"
                ))
            }
        }
    }
    let options = match options {
        None => PktOptions::Absent,
        Some(o) if o.trim() == "..." => PktOptions::Any,
        Some(o) => PktOptions::List(parse_options(o)?),
    };
    Ok(Packet {
        dir,
        flags,
        seq,
        end,
        len,
        ack,
        win,
        options,
    })
}

fn parse_options(o: &str) -> Result<Vec<TcpOpt>, String> {
    let mut out = vec![];
    for item in o.split(',') {
        let w: Vec<&str> = item.split_whitespace().collect();
        let opt = match w.as_slice() {
            ["nop"] => TcpOpt::Nop,
            ["eol"] => TcpOpt::Eol,
            ["sackOK"] => TcpOpt::SackOk,
            ["mss", n] => TcpOpt::Mss(
                u16::try_from(parse_u32(n, "an MSS")?).map_err(|_| format!("MSS {n} > 65535"))?,
            ),
            ["wscale", n] => TcpOpt::Wscale(
                u8::try_from(parse_u32(n, "a window scale")?)
                    .map_err(|_| format!("window scale {n} > 255"))?,
            ),
            ["TS", "val", v, "ecr", e] => TcpOpt::Ts {
                val: parse_u32(v, "a TS value")?,
                ecr: parse_u32(e, "a TS echo reply")?,
            },
            ["sack", blocks @ ..] if !blocks.is_empty() => {
                let mut b = vec![];
                for blk in blocks {
                    let (l, r) = blk
                        .split_once(':')
                        .ok_or_else(|| format!("expected a SACK block `L:R`, found `{blk}`"))?;
                    b.push((parse_u32(l, "a SACK left edge")?, parse_u32(r, "a SACK right edge")?));
                }
                TcpOpt::Sack(b)
            }
            _ => {
                return Err(format!(
                    "unknown TCP option `{}` (expected nop, eol, sackOK, mss N, wscale N, TS val N ecr N, sack L:R ...)",
                    item.trim()
                ))
            }
        };
        out.push(opt);
    }
    Ok(out)
}

/// The statements of a `%{ }%` block; `first_line` is the line its text starts on.
fn parse_code(body: &str, first_line: usize) -> Result<Vec<CodeLine>, (usize, String)> {
    let mut out = vec![];
    for (i, raw) in body.split('\n').enumerate() {
        let line = first_line + i;
        let mut t = raw;
        if let Some(k) = t.find('#') {
            t = &t[..k];
        }
        let t = t.trim().trim_end_matches(';').trim();
        if t.is_empty() {
            continue;
        }
        let stmt = if let Some(rest) = t.strip_prefix("assert ") {
            let parts = split_top(rest);
            let text = parts.first().cloned().unwrap_or_default();
            let expr = parse_expr(&text).map_err(|m| (line, m))?;
            Stmt::Assert { expr, text }
        } else if let Some((name, rhs)) = split_assign(t) {
            let expr = parse_expr(rhs).map_err(|m| (line, m))?;
            Stmt::Assign {
                name: name.to_string(),
                expr,
            }
        } else {
            return Err((
                line,
                format!("unsupported statement `{t}` in a `%{{ }}%` block (expected `assert EXPR[, msg]` or `NAME = EXPR`)"),
            ));
        };
        out.push(CodeLine { line, stmt });
    }
    Ok(out)
}

fn split_assign(t: &str) -> Option<(&str, &str)> {
    let i = t.find('=')?;
    if t[i + 1..].starts_with('=') || i == 0 {
        return None;
    }
    let name = t[..i].trim();
    (!name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        .then(|| (name, t[i + 1..].trim()))
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Int(i64),
    Name(String),
    Op(&'static str),
    LParen,
    RParen,
}

fn tokenize(s: &str) -> Result<Vec<Tok>, String> {
    let c: Vec<char> = s.chars().collect();
    let mut i = 0;
    let mut out = vec![];
    while i < c.len() {
        let ch = c[i];
        if ch.is_whitespace() {
            i += 1;
        } else if ch.is_ascii_digit() {
            let st = i;
            while i < c.len() && c[i].is_ascii_alphanumeric() {
                i += 1;
            }
            let w: String = c[st..i].iter().collect();
            out.push(Tok::Int(
                parse_int(&w).ok_or_else(|| format!("bad integer `{w}`"))?,
            ));
        } else if ch.is_ascii_alphabetic() || ch == '_' {
            let st = i;
            while i < c.len() && (c[i].is_ascii_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            let w: String = c[st..i].iter().collect();
            out.push(match w.as_str() {
                "and" => Tok::Op("and"),
                "or" => Tok::Op("or"),
                "not" => Tok::Op("not"),
                _ => Tok::Name(w),
            });
        } else {
            let two: String = c[i..(i + 2).min(c.len())].iter().collect();
            let op2 = ["==", "!=", "<=", ">="].into_iter().find(|o| *o == two);
            if let Some(o) = op2 {
                out.push(Tok::Op(o));
                i += 2;
                continue;
            }
            out.push(match ch {
                '(' => Tok::LParen,
                ')' => Tok::RParen,
                '<' => Tok::Op("<"),
                '>' => Tok::Op(">"),
                '+' => Tok::Op("+"),
                '-' => Tok::Op("-"),
                '*' => Tok::Op("*"),
                '/' => Tok::Op("/"),
                '%' => Tok::Op("%"),
                _ => return Err(format!("unexpected `{ch}` in an expression")),
            });
            i += 1;
        }
    }
    Ok(out)
}

/// Parse a Python-like expression: `or` < `and` < `not` < comparisons < `+ -` < `* / %` <
/// unary `-` < atoms (integers, names, parentheses).
pub fn parse_expr(s: &str) -> Result<Expr, String> {
    let toks = tokenize(s)?;
    // bounds the parser's (and the evaluator's) recursion on hostile input
    if toks.len() > MAX_EXPR_TOKENS {
        return Err(format!(
            "expression has {} tokens; at most {MAX_EXPR_TOKENS} are accepted",
            toks.len()
        ));
    }
    let mut p = ExprParser { t: toks, i: 0 };
    let e = p.or()?;
    if p.i != p.t.len() {
        return Err(format!("unexpected `{:?}` in expression `{s}`", p.t[p.i]));
    }
    Ok(e)
}

/// The longest `%{ }%` expression accepted, in tokens.
pub const MAX_EXPR_TOKENS: usize = 512;

struct ExprParser {
    t: Vec<Tok>,
    i: usize,
}

impl ExprParser {
    fn eat(&mut self, op: &str) -> bool {
        if matches!(self.t.get(self.i), Some(Tok::Op(o)) if *o == op) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn or(&mut self) -> Result<Expr, String> {
        let mut l = self.and()?;
        while self.eat("or") {
            l = Expr::Binary(Op::Or, Box::new(l), Box::new(self.and()?));
        }
        Ok(l)
    }
    fn and(&mut self) -> Result<Expr, String> {
        let mut l = self.not()?;
        while self.eat("and") {
            l = Expr::Binary(Op::And, Box::new(l), Box::new(self.not()?));
        }
        Ok(l)
    }
    fn not(&mut self) -> Result<Expr, String> {
        if self.eat("not") {
            return Ok(Expr::Unary(Op::Not, Box::new(self.not()?)));
        }
        self.cmp()
    }
    fn cmp(&mut self) -> Result<Expr, String> {
        let l = self.sum()?;
        for (s, op) in [
            ("==", Op::Eq),
            ("!=", Op::Ne),
            ("<=", Op::Le),
            (">=", Op::Ge),
            ("<", Op::Lt),
            (">", Op::Gt),
        ] {
            if self.eat(s) {
                let r = self.sum()?;
                if matches!(
                    self.t.get(self.i),
                    Some(Tok::Op("==" | "!=" | "<" | "<=" | ">" | ">="))
                ) {
                    return Err("chained comparisons are not supported".into());
                }
                return Ok(Expr::Binary(op, Box::new(l), Box::new(r)));
            }
        }
        Ok(l)
    }
    fn sum(&mut self) -> Result<Expr, String> {
        let mut l = self.prod()?;
        loop {
            let op = if self.eat("+") {
                Op::Add
            } else if self.eat("-") {
                Op::Sub
            } else {
                return Ok(l);
            };
            l = Expr::Binary(op, Box::new(l), Box::new(self.prod()?));
        }
    }
    fn prod(&mut self) -> Result<Expr, String> {
        let mut l = self.unary()?;
        loop {
            let op = if self.eat("*") {
                Op::Mul
            } else if self.eat("/") {
                Op::Div
            } else if self.eat("%") {
                Op::Mod
            } else {
                return Ok(l);
            };
            l = Expr::Binary(op, Box::new(l), Box::new(self.unary()?));
        }
    }
    fn unary(&mut self) -> Result<Expr, String> {
        if self.eat("-") {
            return Ok(Expr::Unary(Op::Neg, Box::new(self.unary()?)));
        }
        match self.t.get(self.i).cloned() {
            Some(Tok::Int(v)) => {
                self.i += 1;
                Ok(Expr::Int(v))
            }
            Some(Tok::Name(n)) => {
                self.i += 1;
                Ok(Expr::Name(n))
            }
            Some(Tok::LParen) => {
                self.i += 1;
                let e = self.or()?;
                if self.t.get(self.i) != Some(&Tok::RParen) {
                    return Err("expected `)`".into());
                }
                self.i += 1;
                Ok(e)
            }
            Some(t) => Err(format!("expected a number, a name or `(`, found `{t:?}`")),
            None => Err("expected a number, a name or `(`, found the end of the expression".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str) -> Event {
        let s = parse_script("t.pkt", text).expect("parses");
        assert_eq!(s.events.len(), 1, "{s:?}");
        s.events[0].clone()
    }

    #[test]
    fn inbound_syn_with_options() {
        // tcp/fast_recovery/prr-ss-10pkt-lost-1.pkt
        let e = one("  +.1 < S 0:0(0) win 32792 <mss 1000,sackOK,nop,nop,nop,wscale 7>\n");
        assert_eq!(e.time, Time::Rel(100_000));
        let Action::Packet(p) = e.action else {
            panic!()
        };
        assert_eq!(p.dir, Dir::In);
        assert_eq!(p.flags, flag::SYN);
        assert_eq!(
            (p.seq, p.end, p.len, p.ack, p.win),
            (0, 0, 0, None, Some(32792))
        );
        assert_eq!(
            p.options,
            PktOptions::List(vec![
                TcpOpt::Mss(1000),
                TcpOpt::SackOk,
                TcpOpt::Nop,
                TcpOpt::Nop,
                TcpOpt::Nop,
                TcpOpt::Wscale(7)
            ])
        );
    }

    #[test]
    fn outbound_data_and_sack_blocks() {
        let e = one("   +0 > P. 1:10001(10000) ack 1\n");
        let Action::Packet(p) = e.action else {
            panic!()
        };
        assert_eq!((p.dir, p.flags), (Dir::Out, flag::PSH | flag::ACK));
        assert_eq!((p.seq, p.end, p.len, p.ack), (1, 10001, 10000, Some(1)));
        assert_eq!(p.options, PktOptions::Absent);
        // tcp/cubic/cubic-rack-reo-timeout-retrans-failed-incoming-data.pkt
        let e = one("   +0 < . 1:1(0) ack 1 win 320 <sack 3001:4001 9001:10001,nop,nop>");
        let Action::Packet(p) = e.action else {
            panic!()
        };
        assert_eq!(
            p.options,
            PktOptions::List(vec![
                TcpOpt::Sack(vec![(3001, 4001), (9001, 10001)]),
                TcpOpt::Nop,
                TcpOpt::Nop
            ])
        );
        let e = one("   +0 > S. 0:0(0) ack 1 <...>");
        let Action::Packet(p) = e.action else {
            panic!()
        };
        assert_eq!(p.options, PktOptions::Any);
        let e = one("+0 < . 1:1(0) ack 1 win 257 <nop,nop,TS val 100 ecr 0>");
        let Action::Packet(p) = e.action else {
            panic!()
        };
        assert_eq!(
            p.options,
            PktOptions::List(vec![
                TcpOpt::Nop,
                TcpOpt::Nop,
                TcpOpt::Ts { val: 100, ecr: 0 }
            ])
        );
    }

    #[test]
    fn time_forms() {
        // tcp/slow_start/slow-start-after-win-update.pkt
        let e = one("+1.2~+1.240 > . 26000:26000(0) ack 1");
        assert_eq!(e.time, Time::Rel(1_200_000));
        assert_eq!(e.range, TimeRange::Tilde(Time::Rel(1_240_000)));
        // tcp/close/close-local-close-then-remote-fin.pkt
        let e = one(" +.01...0.011 connect(3, ..., ...) = 0");
        assert_eq!(e.time, Time::Rel(10_000));
        assert_eq!(e.range, TimeRange::Ellipsis(Time::Abs(11_000)));
        assert_eq!(
            one("    0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3").time,
            Time::Abs(0)
        );
        assert_eq!(one("* > . 1:1(0) ack 1").time, Time::Any);
    }

    #[test]
    fn syscalls() {
        let e = one("   +0 write(4, ..., 59000) = 26000");
        let Action::Syscall(s) = e.action else {
            panic!()
        };
        assert_eq!(s.name, "write");
        assert_eq!(s.args, vec!["4", "...", "59000"]);
        assert_eq!((s.ret, s.errno), (26000, None));
        let e = one("   +0 write(4, ..., 1000) = -1 EPIPE (Broken pipe)");
        let Action::Syscall(s) = e.action else {
            panic!()
        };
        assert_eq!((s.ret, s.errno.as_deref()), (-1, Some("EPIPE")));
        let e = one("   +0 setsockopt(4, SOL_SOCKET, SO_SNDBUF, [200000], 4) = 0");
        let Action::Syscall(s) = e.action else {
            panic!()
        };
        assert_eq!(s.args[2], "SO_SNDBUF");
        assert_eq!(s.args[3], "[200000]");
        // tcp/notsent_lowat: a call over three lines
        let text = "   +0...0.040 poll([{fd=4,\n             events=POLLOUT,\n             revents=POLLOUT}], 1, 1000) = 1\n +.01 < . 1:1(0) ack 2001 win 257\n";
        let s = parse_script("t.pkt", text).unwrap();
        assert_eq!(s.events.len(), 2);
        assert_eq!(s.events[1].line, 4);
        let Action::Syscall(p) = &s.events[0].action else {
            panic!()
        };
        assert_eq!((p.name.as_str(), p.args.len(), p.ret), ("poll", 3, 1));
    }

    #[test]
    fn code_blocks() {
        let e = one("   +0 %{ assert tcpi_snd_cwnd == 10, 'cwnd=%d' % tcpi_snd_cwnd }%  // c\n");
        let Action::Code(c) = e.action else { panic!() };
        assert_eq!(c.len(), 1);
        assert_eq!(
            c[0].stmt,
            Stmt::Assert {
                expr: Expr::Binary(
                    Op::Eq,
                    Box::new(Expr::Name("tcpi_snd_cwnd".into())),
                    Box::new(Expr::Int(10))
                ),
                text: "tcpi_snd_cwnd == 10".into()
            }
        );
        let e = one("   +0 %{ TCP_INFINITE_SSTHRESH = 0x7fffffff }%");
        let Action::Code(c) = e.action else { panic!() };
        assert_eq!(
            c[0].stmt,
            Stmt::Assign {
                name: "TCP_INFINITE_SSTHRESH".into(),
                expr: Expr::Int(0x7fff_ffff)
            }
        );
        // a multi-line block (prr-ss-10pkt-lost-1.pkt); statements keep their own lines
        let text = "\n +.01 %{\nassert tcpi_ca_state == TCP_CA_Recovery, tcpi_ca_state\nassert tcpi_snd_cwnd == 7, tcpi_snd_cwnd\n}%\n";
        let e = one(text);
        assert_eq!(e.line, 2);
        let Action::Code(c) = e.action else { panic!() };
        assert_eq!(c.iter().map(|l| l.line).collect::<Vec<_>>(), vec![3, 4]);
        // a message with its own formatting (cubic-rack-reo-timeout-...pkt)
        let e = one("+.020 %{ assert tcpi_ca_state == TCP_CA_Recovery, 'ca_state: %d min_rtt: %d rtt: %d' % (tcpi_ca_state, tcpi_min_rtt, tcpi_rtt) }%");
        let Action::Code(c) = e.action else { panic!() };
        assert!(
            matches!(&c[0].stmt, Stmt::Assert { text, .. } if text == "tcpi_ca_state == TCP_CA_Recovery")
        );
    }

    #[test]
    fn init_command_options_and_shell_events() {
        let text = "--tolerance_usecs=10000\n`../common/defaults.sh\nsysctl -q net.ipv4.tcp_tso_win_divisor=100`\n\n    0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n+0 `tc qdisc replace dev tun0 root pfifo limit 0`\n";
        let s = parse_script("t.pkt", text).unwrap();
        assert_eq!(s.tolerance_usecs(), Some(10_000));
        assert!(s
            .init
            .as_deref()
            .unwrap()
            .contains("tcp_tso_win_divisor=100"));
        assert_eq!(s.events.len(), 2);
        assert_eq!(s.events[0].line, 5);
        assert!(matches!(&s.events[1].action, Action::Shell(c) if c.contains("limit 0")));
    }

    #[test]
    fn errors_name_the_line_and_what_was_expected() {
        let cases = [
            (
                "0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n+0 > P. 1:1001(999) ack 1\n",
                2,
                "does not match its length",
            ),
            ("\n\n+0 < X 0:0(0)\n", 3, "expected TCP flags"),
            ("+0 write(4, ..., 10) 10\n", 1, "expected `= RESULT`"),
            (
                "+0 %{ assert tcpi_snd_cwnd ==\n }%\n",
                1,
                "expected a number",
            ),
            ("+0 %{ assert x == 1\n", 1, "not closed"),
            (
                "+0 < S 0:0(0) win 1 <mss 1000,bogus 3>\n",
                1,
                "unknown TCP option",
            ),
            ("+0 < S 0:0(0) win 1 <mss 1000\n", 1, "not closed"),
            ("hello\n", 1, "expected a time"),
            ("+0 write(4, ..., 10\n", 1, "not closed"),
            ("+0 %{ import os }%", 1, "unsupported statement"),
            ("+0 < . 1:1(0) ack 99999999999 win 1\n", 1, "an ACK number"),
            ("+99999999999999 write(4, ..., 1) = 1\n", 1, "too large"),
            ("+0 %{ assert tcpi_snd_cwnd == 1 1 }%\n", 1, "unexpected"),
        ];
        let deep = format!(
            "+0 %{{ assert {}1{} == 1 }}%\n",
            "(".repeat(100_000),
            ")".repeat(100_000)
        );
        let neg = format!("\n+0 %{{ assert {}1 == 1 }}%\n", "-".repeat(100_000));
        let cases: Vec<(&str, usize, &str)> = cases
            .into_iter()
            .chain([
                (deep.as_str(), 1, "at most 512"),
                (neg.as_str(), 2, "at most 512"),
            ])
            .collect();
        for (text, line, want) in cases {
            match parse_script("bad.pkt", text) {
                Err(PdrillError::Parse { file, line: l, msg }) => {
                    assert_eq!(file, "bad.pkt");
                    assert_eq!(l, line, "{text:?}: {msg}");
                    assert!(msg.contains(want), "{text:?}: `{msg}` lacks `{want}`");
                }
                other => panic!("{text:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn every_shared_script_parses() {
        let root = super::super::shared_set_dir()
            .expect("the shared packetdrill set (set TSNIC_PDRILL_DIR)")
            .join("tcp");
        let groups = std::fs::read_dir(&root).expect("tcp/ of the shared set");
        let mut n = 0;
        for g in groups.flatten() {
            for f in std::fs::read_dir(g.path()).into_iter().flatten().flatten() {
                let p = f.path();
                if p.extension().is_some_and(|e| e == "pkt") {
                    let text = std::fs::read_to_string(&p).unwrap();
                    let s = parse_script(&p.display().to_string(), &text);
                    assert!(s.is_ok(), "{}: {:?}", p.display(), s.err());
                    n += 1;
                }
            }
        }
        assert_eq!(n, 29);
    }
}
