//! Helpers shared by the driver-core subcommands (`info`, `stats`, `phc`).

use anyhow::{Context, Result};
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signed_ns_parses_units() {
        assert_eq!(parse_signed_ns("-1500"), Ok(-1500));
        assert_eq!(parse_signed_ns("+2us"), Ok(2000));
        assert_eq!(parse_signed_ns("1.5ms"), Ok(1_500_000));
        assert_eq!(parse_signed_ns("3s"), Ok(3_000_000_000));
        assert!(parse_signed_ns("soon").is_err());
        assert_eq!(fmt_ns(1_000_000_007), "1.000000007 s");
    }
}
