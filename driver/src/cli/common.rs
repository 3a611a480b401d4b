//! Helpers shared by the driver-core subcommands (`info`, `stats`, `phc`).

use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use tsnic::device::Card;

/// Open the card named by `--backend`, with the error as a sentence saying what to do.
pub fn open_card(spec: &str) -> Result<Card> {
    Card::open(spec).with_context(|| format!("cannot open the card `{spec}`"))
}

/// Done with the card: a persistent simulated card saves its state for the next command.
pub fn close_card(card: Card) -> Result<()> {
    card.close()
        .context("the simulated card's state was not saved (the next command sees the card as it was before this one)")
}

/// Catch Ctrl-C (SIGINT) and SIGTERM for a long command: the returned flag is set, and the command
/// stops at its next check, keeps what it did and exits non-zero. A second signal exits at once
/// (status 130).
/// Installed once per process: later calls return the same flag.
pub fn stop_on_signals() -> Result<std::sync::Arc<std::sync::atomic::AtomicBool>> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    use std::sync::{atomic::AtomicBool, Arc, OnceLock};
    static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    if let Some(f) = FLAG.get() {
        return Ok(Arc::clone(f));
    }
    let f = Arc::new(AtomicBool::new(false));
    for sig in [SIGINT, SIGTERM] {
        signal_hook::flag::register_conditional_shutdown(sig, 130, Arc::clone(&f))
            .and_then(|_| signal_hook::flag::register(sig, Arc::clone(&f)))
            .context("cannot install a signal handler")?;
    }
    Ok(Arc::clone(FLAG.get_or_init(|| f)))
}

/// Done with a card the command only read (`info`, `stats`, `phc get`): a simulated card kept in a
/// read-only location is left as it was, without an error.
pub fn close_card_read_only(card: Card) -> Result<()> {
    card.close_read_only()
        .context("the simulated card's state was not saved (the next command sees the card as it was before this one)")
}

/// An output file a command will write: the flag that names it and the path.
pub struct OutPath<'a> {
    /// `--pcap`, `--report`, ...
    pub flag: &'static str,
    /// The path as given.
    pub path: &'a Path,
    /// Extensions it must end in (lower case, without the dot); empty: any.
    pub exts: &'static [&'static str],
}

/// Device and inode of a file.
type FileId = (u64, u64);

/// Where a path points: its canonical form (the parent's, plus the name, for a file that does not
/// exist yet) and, for an existing file, its device and inode (to catch hard links).
fn identity(path: &Path) -> Result<(PathBuf, Option<FileId>)> {
    use std::os::unix::fs::MetadataExt;
    if let Ok(c) = std::fs::canonicalize(path) {
        let md = std::fs::metadata(&c).ok();
        return Ok((c, md.map(|m| (m.dev(), m.ino()))));
    }
    let name = path
        .file_name()
        .ok_or_else(|| anyhow!("`{}` names no file", path.display()))?;
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let dir = std::fs::canonicalize(parent).map_err(|_| {
        anyhow!(
            "the folder {} does not exist: create it or give another path; nothing was run",
            parent.display()
        )
    })?;
    Ok((dir.join(name), None))
}

/// Check every output before any work is done: right extension, writable (created and removed again
/// when it does not exist yet; an existing file is opened for appending, not truncated), not a
/// folder, and none equal to an input or to another output (canonical paths, and hard links).
pub fn check_outputs(inputs: &[(&str, &Path)], outputs: &[OutPath<'_>]) -> Result<()> {
    let mut seen: Vec<(String, PathBuf, Option<FileId>)> = Vec::new();
    for (what, p) in inputs {
        let (c, id) = identity(p)?;
        seen.push((what.to_string(), c, id));
    }
    for o in outputs {
        let shown = o.path.display();
        if !o.exts.is_empty() {
            let ext = o
                .path
                .extension()
                .and_then(|e| e.to_str())
                .unwrap_or("")
                .to_ascii_lowercase();
            if !o.exts.contains(&ext.as_str()) {
                bail!(
                    "{} {shown}: the file name must end in .{}; nothing was run",
                    o.flag,
                    o.exts.join(" or .")
                );
            }
        }
        let (c, id) = identity(o.path).with_context(|| format!("{} {shown}", o.flag))?;
        for (what, other, oid) in &seen {
            if *other == c || (id.is_some() && id == *oid) {
                bail!(
                    "{} {shown} is the same file as {what}: it would be overwritten; choose another name; nothing was run",
                    o.flag
                );
            }
        }
        if c.is_dir() {
            bail!(
                "{} {shown} is a folder; give a file name; nothing was run",
                o.flag
            );
        }
        if c.exists() {
            std::fs::OpenOptions::new()
                .append(true)
                .open(&c)
                .with_context(|| format!("{} {shown} is not writable; nothing was run", o.flag))?;
        } else {
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&c)
                .with_context(|| {
                    format!("{} {shown} cannot be created; nothing was run", o.flag)
                })?;
            std::fs::remove_file(&c).ok();
        }
        seen.push((o.flag.to_string(), c, id));
    }
    Ok(())
}

/// ns as `S.NNNNNNNNN s`.
pub fn fmt_ns(ns: u64) -> String {
    format!("{}.{:09} s", ns / 1_000_000_000, ns % 1_000_000_000)
}

/// Parse a signed ns count with an optional unit (ns, us, ms, s), e.g. `-1500`, `+2us`, `1.5ms`.
pub fn parse_signed_ns(s: &str) -> std::result::Result<i64, String> {
    let t = s.trim();
    let (num, mult) = [("ns", 1.0), ("us", 1e3), ("ms", 1e6), ("s", 1e9)]
        .iter()
        .find_map(|(u, m)| t.strip_suffix(u).map(|n| (n, *m)))
        .unwrap_or((t, 1.0));
    let num = num.trim().trim_start_matches('+');
    if let Ok(v) = num.parse::<i64>() {
        if mult == 1.0 {
            return Ok(v);
        }
    }
    let v: f64 = num
        .parse()
        .map_err(|_| format!("`{s}` is not a time; use ns or a unit: -1500, 2us, 1.5ms, 3s"))?;
    let ns = v * mult;
    if !ns.is_finite() || ns.abs() > 9.2e18 {
        return Err(format!("`{s}` is out of range"));
    }
    Ok(ns.round() as i64)
}

/// A whole number for a flag, with an error that says what is wanted (not Rust's "invalid digit
/// found in string"): digits only, no sign, unit, exponent or 0x, at most `max`.
fn whole(s: &str, max: u64) -> std::result::Result<u64, String> {
    let t = s.trim();
    if t.starts_with('-') && t.len() > 1 {
        return Err(format!(
            "`{s}` is negative: give a whole number from 0 to {max}"
        ));
    }
    if t.is_empty()
        || !t
            .trim_start_matches('+')
            .bytes()
            .all(|b| b.is_ascii_digit())
    {
        return Err(format!(
            "`{s}` is not a whole number: digits only (no unit, exponent or 0x), 0 to {max}"
        ));
    }
    match t.trim_start_matches('+').parse::<u64>() {
        Ok(v) if v <= max => Ok(v),
        _ => Err(format!("`{s}` is too large: at most {max}")),
    }
}

/// `value_parser` for a u64 flag (see [`whole`]).
pub fn u64_arg(s: &str) -> std::result::Result<u64, String> {
    whole(s, u64::MAX)
}

/// `value_parser` for a u32 flag (see [`whole`]).
pub fn u32_arg(s: &str) -> std::result::Result<u32, String> {
    whole(s, u32::MAX.into()).map(|v| v as u32)
}

/// `value_parser` for a u16 flag, e.g. a queue number (see [`whole`]).
pub fn u16_arg(s: &str) -> std::result::Result<u16, String> {
    whole(s, u16::MAX.into()).map(|v| v as u16)
}

/// `value_parser` for a usize flag (see [`whole`]).
pub fn usize_arg(s: &str) -> std::result::Result<usize, String> {
    whole(s, usize::MAX as u64).map(|v| v as usize)
}

/// `value_parser` for a signed whole number of ppb (`phc freq`).
pub fn ppb_arg(s: &str) -> std::result::Result<i64, String> {
    let t = s.trim();
    let (neg, digits) = match t.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, t.trim_start_matches('+')),
    };
    let v = whole(digits, i64::MAX as u64).map_err(|_| {
        format!("`{s}` is not a whole number of ppb: digits with an optional sign (no unit, fraction or exponent), e.g. -2500 or 100000")
    })? as i64;
    Ok(if neg { -v } else { v })
}

/// A duration in ns for a flag named `--...-ns`: a whole number of ns, or with a unit (`5us`,
/// `1.5ms`, `2s`); not negative, at most `u64::MAX` ns.
pub fn ns_arg(s: &str) -> std::result::Result<u64, String> {
    if let Ok(v) = s.trim().parse::<u64>() {
        return Ok(v);
    }
    let v = parse_signed_ns(s)?;
    u64::try_from(v).map_err(|_| format!("`{s}` is negative: give a time of 0 or more"))
}

/// [`ns_arg`] that fits in 32 bits (`--lookahead-ns`).
pub fn ns32_arg(s: &str) -> std::result::Result<u32, String> {
    let v = ns_arg(s)?;
    u32::try_from(v).map_err(|_| format!("`{s}` is too large: at most {} ns", u32::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_numbers_say_what_is_wanted() {
        assert_eq!(u16_arg("7"), Ok(7));
        assert_eq!(u64_arg("+5"), Ok(5));
        assert!(u16_arg("-1").unwrap_err().contains("negative"));
        assert!(u16_arg("abc").unwrap_err().contains("not a whole number"));
        assert!(u32_arg("1e3").unwrap_err().contains("no unit, exponent"));
        assert!(u16_arg("70000").unwrap_err().contains("at most 65535"));
        assert!(u64_arg("99999999999999999999")
            .unwrap_err()
            .contains("too large"));
        assert_eq!(ppb_arg("-2500"), Ok(-2500));
        assert!(ppb_arg("0.5").unwrap_err().contains("whole number of ppb"));
        assert_eq!(ns_arg("5us"), Ok(5000));
        assert_eq!(ns_arg("18446744073709551615"), Ok(u64::MAX));
        assert!(ns_arg("-1").unwrap_err().contains("negative"));
        assert_eq!(ns32_arg("4s"), Ok(4_000_000_000));
        assert!(ns32_arg("5s").unwrap_err().contains("too large"));
    }

    #[test]
    fn signed_ns_parses_units() {
        assert_eq!(parse_signed_ns("-1500"), Ok(-1500));
        assert_eq!(parse_signed_ns("+2us"), Ok(2000));
        assert_eq!(parse_signed_ns("1.5ms"), Ok(1_500_000));
        assert_eq!(parse_signed_ns("3s"), Ok(3_000_000_000));
        assert!(parse_signed_ns("soon").is_err());
        assert_eq!(fmt_ns(1_000_000_007), "1.000000007 s");
    }

    fn tmpdir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("tsnic-common-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn outputs_are_checked_before_work() {
        let d = tmpdir("out");
        let input = d.join("in.csv");
        std::fs::write(&input, "x").unwrap();
        let pcap = |p: &'static str| OutPath {
            flag: "--pcap",
            path: Path::new(p),
            exts: &["pcapng"],
        };
        let ins = [("the trace", input.as_path())];
        // fine, and nothing is left behind
        let out = d.join("a.pcapng");
        let o = OutPath {
            flag: "--pcap",
            path: &out,
            exts: &["pcapng"],
        };
        check_outputs(&ins, &[o]).unwrap();
        assert!(!out.exists());
        // wrong extension
        let e = check_outputs(&ins, &[pcap("/tmp/x.pcap")]).unwrap_err();
        assert!(format!("{e:#}").contains("must end in .pcapng"), "{e:#}");
        // missing folder
        let e = check_outputs(&ins, &[pcap("/nonexistent-dir/x.pcapng")]).unwrap_err();
        assert!(format!("{e:#}").contains("does not exist"), "{e:#}");
        // the input, reached another way
        let same = d.join(".").join("in.csv");
        let o = OutPath {
            flag: "--report",
            path: &same,
            exts: &[],
        };
        let e = check_outputs(&ins, &[o]).unwrap_err();
        assert!(format!("{e:#}").contains("same file as the trace"), "{e:#}");
        // a hard link to the input
        let link = d.join("link.json");
        std::fs::remove_file(&link).ok();
        std::fs::hard_link(&input, &link).unwrap();
        let o = OutPath {
            flag: "--report",
            path: &link,
            exts: &[],
        };
        assert!(check_outputs(&ins, &[o]).is_err());
        // two outputs on one file
        let r = d.join("r.svg");
        let a = OutPath {
            flag: "--report",
            path: &r,
            exts: &[],
        };
        let b = OutPath {
            flag: "--plot",
            path: &r,
            exts: &["png", "svg"],
        };
        let e = check_outputs(&ins, &[a, b]).unwrap_err();
        assert!(format!("{e:#}").contains("same file as --report"), "{e:#}");
        // a folder
        let o = OutPath {
            flag: "--report",
            path: &d,
            exts: &[],
        };
        assert!(format!("{:#}", check_outputs(&ins, &[o]).unwrap_err()).contains("folder"));
        std::fs::remove_dir_all(&d).ok();
    }
}
