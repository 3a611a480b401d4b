//! The simulated card's state as bytes: what makes it persist between commands.
//!
//! [`SimCard::snapshot`] writes, and [`SimCard::restore`] reads back, everything a real card keeps
//! while the host process that drives it comes and goes:
//! - the Verilated core, whole (Verilator `--savable`): registers, PHC, counters, calendar and ring
//!   state in block RAM;
//! - the cycle count (simulated time), the interrupt edge count and the last port images;
//! - the wire (the MAC): when it is free again, a frame it is taking, its counters;
//! - host-memory bursts in flight and the next device address. The DMA **regions are not kept**: they
//!   belong to the process that allocated them, as VFIO unmaps them when it exits; a burst still in
//!   flight then reads or writes an unmapped address and gets SLVERR. Addresses are never reused, not
//!   even across commands, so such a stray access cannot land in a later command's memory.
//!
//! Not kept: the host-memory model's counters and access log and the wire's recorded frames (they are
//! the observing process's), and the configuration of the models around the core (line rate, read
//! latency: the next command chooses them). The width and clock period are the card's and must match.
//!
//! File layout (all integers little-endian): magic `TSNICSIM`, format version (u32), then
//! length-prefixed fields, and a CRC-32 of everything before it as the last 4 bytes. Checked in this
//! order before any byte reaches the model: magic, version, length and CRC (truncated or corrupt),
//! build fingerprint, width and clock period. Each failure is a [`StateError`] that says what to do.

use thiserror::Error;

use crate::ffi::{self, PortsIn, PortsOut, RtlStateError, Width};
use crate::{Config, SimCard, SimError};

/// First bytes of a state file.
pub const MAGIC: &[u8; 8] = b"TSNICSIM";
/// Version of the layout below; bump it when the Rust-side fields change.
pub const FORMAT: u32 = 2;

/// Why a state could not be written or used. Every message ends in what to do about it.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum StateError {
    /// Not a state file at all.
    #[error("not a tsnic simulated-card state (no TSNICSIM header): delete it or point at the right file")]
    NotAState,
    /// Written by another version of the format.
    #[error("state format {found}, this tsnic reads format {want}: power-cycle the card (delete the state)")]
    Format {
        /// Version in the file.
        found: u32,
        /// Version this build reads.
        want: u32,
    },
    /// Truncated or damaged.
    #[error("the state is corrupt or truncated ({0}): power-cycle the card (delete the state)")]
    Corrupt(String),
    /// Saved by a different build of the core.
    #[error("the state was saved by a different build of the core (fingerprint {saved}, this build {this}): the RTL, its parameters or the Verilator version changed; power-cycle the card (delete the state)")]
    OtherBuild {
        /// Fingerprint in the file.
        saved: String,
        /// This build's.
        this: String,
    },
    /// A card of another width or clock.
    #[error("the state holds a {saved_bits}-bit card at {saved_ps} ps per cycle, this command wants {want_bits}-bit at {want_ps} ps: use the matching configuration or another state")]
    OtherCard {
        /// Bus width in the file, bits.
        saved_bits: usize,
        /// Clock period in the file.
        saved_ps: u64,
        /// Bus width asked for.
        want_bits: usize,
        /// Clock period asked for.
        want_ps: u64,
    },
    /// A board card where a core-build card is wanted, or the other way round, or another board.
    #[error("the state holds {saved}, this command wants {want}: use `--backend {spec}` for the saved card, or another state file (TSNIC_SIM_STATE or `state=PATH`) for this one")]
    OtherKind {
        /// What the file holds.
        saved: String,
        /// What the command asked for.
        want: String,
        /// The `--backend` that opens the saved card.
        spec: String,
    },
    /// The model cannot be saved (no core, or a model without save/restore).
    #[error("this simulated card cannot be saved or restored: {0}")]
    Unsupported(String),
    /// Saving is refused in this state of the machine around the core.
    #[error("the simulated card cannot be saved now: {0}")]
    Busy(String),
    /// The simulator itself failed.
    #[error(transparent)]
    Sim(#[from] SimError),
}

/// What a state file says about itself (for `tsnic sim status`), read without restoring it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateInfo {
    /// Build fingerprint of the core that saved it.
    pub fingerprint: String,
    /// Bus width.
    pub width: Width,
    /// Clock period, ps.
    pub clk_period_ps: u64,
    /// Wall-clock time of the save, ns since the Unix epoch (0 if unknown).
    pub saved_unix_ns: u64,
    /// Core cycles simulated so far.
    pub cycle: u64,
    /// Bytes of the Verilated model's state.
    pub model_bytes: usize,
    /// The board build that saved it (`sim:board[=NAME]`: `tsnic_board_core`), `None` for a card
    /// of the core build. Its `width` is the board's (256 bits on the SUME, 512 on the Alveos) and
    /// `cycle` counts PCIe user clock cycles.
    pub board: Option<crate::board::BoardModel>,
}

impl StateInfo {
    /// True when this build can restore it (same fingerprint).
    pub fn matches_this_build(&self) -> bool {
        if let Some(b) = self.board {
            return b.fingerprint() == Some(self.fingerprint.as_str());
        }
        [ffi::CoreSize::Shipped, ffi::CoreSize::Small]
            .into_iter()
            .any(|size| ffi::fingerprint(self.width, size) == Some(self.fingerprint.as_str()))
    }
}

/// Little-endian writer.
#[derive(Default)]
pub(crate) struct Enc(pub(crate) Vec<u8>);

impl Enc {
    pub(crate) fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    pub(crate) fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    pub(crate) fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    pub(crate) fn bool(&mut self, v: bool) {
        self.u8(v as u8);
    }
    pub(crate) fn bytes(&mut self, v: &[u8]) {
        self.u64(v.len() as u64);
        self.0.extend_from_slice(v);
    }
    pub(crate) fn words(&mut self, v: &[u64]) {
        self.u64(v.len() as u64);
        for &w in v {
            self.u64(w);
        }
    }
}

/// Little-endian reader: every short read is [`StateError::Corrupt`], never a panic.
pub(crate) struct Dec<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Dec<'a> {
    pub(crate) fn new(buf: &'a [u8]) -> Self {
        Dec { buf, pos: 0 }
    }
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], StateError> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.buf.len());
        match end {
            Some(end) => {
                let s = &self.buf[self.pos..end];
                self.pos = end;
                Ok(s)
            }
            None => Err(StateError::Corrupt(format!("{what} runs past the end"))),
        }
    }
    pub(crate) fn u8(&mut self, what: &str) -> Result<u8, StateError> {
        Ok(self.take(1, what)?[0])
    }
    pub(crate) fn u64(&mut self, what: &str) -> Result<u64, StateError> {
        let b = self.take(8, what)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }
    pub(crate) fn bool(&mut self, what: &str) -> Result<bool, StateError> {
        match self.u8(what)? {
            0 => Ok(false),
            1 => Ok(true),
            v => Err(StateError::Corrupt(format!("{what} is {v}, not a flag"))),
        }
    }
    /// A length-prefixed field; the length must fit in what is left.
    pub(crate) fn bytes(&mut self, what: &str) -> Result<&'a [u8], StateError> {
        let n = self.u64(what)?;
        let n = usize::try_from(n)
            .map_err(|_| StateError::Corrupt(format!("{what} has length {n}")))?;
        self.take(n, what)
    }
    /// A count of items each at least `min_bytes` long, checked against what is left.
    pub(crate) fn count(&mut self, what: &str, min_bytes: usize) -> Result<usize, StateError> {
        let n = self.u64(what)?;
        let left = (self.buf.len() - self.pos) as u64;
        if n.saturating_mul(min_bytes.max(1) as u64) > left {
            return Err(StateError::Corrupt(format!(
                "{what} claims {n} items, more than the state holds"
            )));
        }
        Ok(n as usize)
    }
    pub(crate) fn words(&mut self, what: &str) -> Result<Vec<u64>, StateError> {
        let n = self.count(what, 8)?;
        (0..n).map(|_| self.u64(what)).collect()
    }
    pub(crate) fn done(&self) -> bool {
        self.pos == self.buf.len()
    }
    /// The end of every state file (core and board): the driver's bytes, then the model's image of
    /// the size the header gave, and nothing after it.
    pub(crate) fn tail(&mut self, model_bytes: usize) -> Result<(Vec<u8>, &'a [u8]), StateError> {
        let extra = self.bytes("driver state")?.to_vec();
        let model = self.bytes("model")?;
        if model.len() != model_bytes {
            return Err(StateError::Corrupt(format!(
                "model state is {} bytes, the header says {model_bytes}",
                model.len()
            )));
        }
        if !self.done() {
            return Err(StateError::Corrupt("bytes after the model state".into()));
        }
        Ok((extra, model))
    }
}

/// A Verilated model's refusal of a saved image, as the user reads it: another build of the model
/// (its fingerprint `saved` against this build's `this`) unless saving is not built in at all.
pub(crate) fn model_refused(e: RtlStateError, saved: &str, this: &str) -> StateError {
    match e {
        RtlStateError::Unsupported => StateError::Unsupported(e.to_string()),
        _ => StateError::OtherBuild {
            saved: format!("{saved} ({e})"),
            this: this.to_string(),
        },
    }
}

fn width_code(w: Width) -> u8 {
    match w {
        Width::W64 => 0,
        Width::W512 => 1,
        Width::W256 => 2,
    }
}

fn width_from(code: u8) -> Result<Width, StateError> {
    match code {
        0 => Ok(Width::W64),
        1 => Ok(Width::W512),
        2 => Ok(Width::W256),
        c => Err(StateError::Corrupt(format!("unknown bus width code {c}"))),
    }
}

/// The card code of a board build's state (in the width's place: 0x10 + the board's index in
/// [`crate::board::BoardModel::ALL`]).
pub(crate) fn board_code(b: crate::board::BoardModel) -> u8 {
    0x10 + crate::board::BoardModel::ALL
        .iter()
        .position(|&m| m == b)
        .unwrap_or(0) as u8
}

/// The card in a state: (width, board) from its code.
fn card_from(code: u8) -> Result<(Width, Option<crate::board::BoardModel>), StateError> {
    match code {
        0x10..=0x13 => {
            let b = crate::board::BoardModel::ALL[usize::from(code - 0x10)];
            Ok((
                if b.is_alveo() {
                    Width::W512
                } else {
                    Width::W256
                },
                Some(b),
            ))
        }
        c => Ok((width_from(c)?, None)),
    }
}

/// Check magic, format and CRC; return the body (between the version and the CRC).
fn body(bytes: &[u8]) -> Result<&[u8], StateError> {
    if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
        return Err(StateError::NotAState);
    }
    if bytes.len() < MAGIC.len() + 4 + 4 {
        return Err(StateError::Corrupt(format!(
            "{} bytes, shorter than any state",
            bytes.len()
        )));
    }
    let v = &bytes[MAGIC.len()..MAGIC.len() + 4];
    let found = u32::from_le_bytes([v[0], v[1], v[2], v[3]]);
    if found != FORMAT {
        return Err(StateError::Format {
            found,
            want: FORMAT,
        });
    }
    let (data, crc) = bytes.split_at(bytes.len() - 4);
    let want = u32::from_le_bytes([crc[0], crc[1], crc[2], crc[3]]);
    let got = crc32fast::hash(data);
    if got != want {
        return Err(StateError::Corrupt(format!(
            "CRC {got:08x}, the file says {want:08x}"
        )));
    }
    Ok(&data[MAGIC.len() + 4..])
}

/// The header fields at the start of the body.
pub(crate) struct Head<'a> {
    pub(crate) info: StateInfo,
    pub(crate) dec: Dec<'a>,
}

pub(crate) fn head(bytes: &[u8]) -> Result<Head<'_>, StateError> {
    let mut d = Dec::new(body(bytes)?);
    let fp = d.bytes("fingerprint")?;
    let fingerprint = std::str::from_utf8(fp)
        .map_err(|_| StateError::Corrupt("fingerprint is not text".into()))?
        .to_string();
    let (width, board) = card_from(d.u8("width")?)?;
    let clk_period_ps = d.u64("clock period")?;
    let saved_unix_ns = d.u64("save time")?;
    let cycle = d.u64("cycle")?;
    let model_bytes = d.u64("model size")? as usize;
    Ok(Head {
        info: StateInfo {
            fingerprint,
            width,
            clk_period_ps,
            saved_unix_ns,
            cycle,
            model_bytes,
            board,
        },
        dec: d,
    })
}

/// Read what a state says about itself, checking its integrity (not whether this build can use it).
pub fn inspect(bytes: &[u8]) -> Result<StateInfo, StateError> {
    Ok(head(bytes)?.info)
}

impl SimCard {
    /// The card's whole state (see the module docs), with `extra` bytes of the caller's (the driver
    /// keeps its host-clock model there) and the wall-clock time of the save, ns since the Unix epoch.
    pub fn snapshot(&mut self, extra: &[u8], saved_unix_ns: u64) -> Result<Vec<u8>, StateError> {
        let fp = self.rtl.fingerprint().ok_or_else(|| {
            StateError::Unsupported("the model has no save/restore (no build fingerprint)".into())
        })?;
        if self.axil.busy() {
            return Err(StateError::Busy("a BAR0 access is in progress".into()));
        }
        let mut model = Vec::new();
        self.rtl
            .save(&mut model)
            .map_err(|e| StateError::Unsupported(e.to_string()))?;
        let mut e = Enc::default();
        e.0.extend_from_slice(MAGIC);
        e.u32(FORMAT);
        e.bytes(fp.as_bytes());
        e.u8(width_code(self.cfg.width));
        e.u64(self.cfg.clk_period_ps);
        e.u64(saved_unix_ns);
        e.u64(self.cycle);
        e.u64(model.len() as u64);
        e.u64(self.irq_edges);
        e.words(&self.inp.to_words());
        e.words(&self.out.to_words());
        self.wire.save_state(&mut e);
        self.mem.save_state(&mut e);
        e.bytes(extra);
        e.bytes(&model);
        let crc = crc32fast::hash(&e.0);
        e.u32(crc);
        Ok(e.0)
    }

    /// A card from a state written by [`SimCard::snapshot`], with the models around the core set up
    /// by `cfg` (whose width and clock period must be the saved card's). Returns the card, what the
    /// state says about itself, and the caller's extra bytes. The core is not reset.
    pub fn restore(cfg: Config, bytes: &[u8]) -> Result<(SimCard, StateInfo, Vec<u8>), StateError> {
        cfg.check()?;
        let Head { info, mut dec } = head(bytes)?;
        if let Some(b) = info.board {
            return Err(StateError::OtherKind {
                saved: b.card_words().into(),
                want: format!(
                    "a {}-bit card of the core build (tsnic_core)",
                    cfg.width.bytes() * 8
                ),
                spec: b.spec().into(),
            });
        }
        let this = ffi::fingerprint(info.width, cfg.size);
        if this != Some(info.fingerprint.as_str()) {
            return Err(match this {
                Some(this) => StateError::OtherBuild {
                    saved: info.fingerprint.clone(),
                    this: this.to_string(),
                },
                None if crate::core_unavailable().is_some() => {
                    SimError::CoreUnavailable(crate::core_unavailable().unwrap_or("").to_string())
                        .into()
                }
                None => SimError::WidthNotBuilt(info.width).into(),
            });
        }
        if info.width != cfg.width || info.clk_period_ps != cfg.clk_period_ps {
            return Err(StateError::OtherCard {
                saved_bits: info.width.bytes() * 8,
                saved_ps: info.clk_period_ps,
                want_bits: cfg.width.bytes() * 8,
                want_ps: cfg.clk_period_ps,
            });
        }
        if info.cycle.checked_mul(info.clk_period_ps).is_none() {
            return Err(StateError::Corrupt(format!(
                "cycle count {} is beyond the end of simulated time",
                info.cycle
            )));
        }
        let irq_edges = dec.u64("interrupt edges")?;
        let inp = PortsIn::from_words(&dec.words("input ports")?)
            .ok_or_else(|| StateError::Corrupt("input port image size".into()))?;
        let out = PortsOut::from_words(&dec.words("output ports")?)
            .ok_or_else(|| StateError::Corrupt("output port image size".into()))?;
        let mut card = SimCard::unreset(cfg)?;
        card.wire.restore_state(&mut dec)?;
        card.mem.restore_state(&mut dec)?;
        let (extra, model) = dec.tail(info.model_bytes)?;
        card.rtl
            .restore(model)
            .map_err(|e| model_refused(e, &info.fingerprint, this.unwrap_or("")))?;
        card.cycle = info.cycle;
        card.irq_edges = irq_edges;
        card.inp = inp;
        card.out = out;
        Ok((card, info, extra))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn card() -> Option<SimCard> {
        match SimCard::new(Config::default()) {
            Ok(c) => Some(c),
            Err(SimError::CoreUnavailable(_)) => None,
            Err(e) => panic!("{e}"),
        }
    }

    /// Some activity: enable the core (CTRL_CONTROL = 0x100 + 0 in the contract) and let it run.
    fn poke(c: &mut SimCard) {
        c.mmio_write(0x100, 1).unwrap();
        c.run(3000);
        c.mmio_read(0x200).unwrap();
    }

    /// Re-seal a state after editing it: a valid CRC, so the check after the CRC is what answers.
    fn reseal(mut s: Vec<u8>) -> Vec<u8> {
        let n = s.len() - 4;
        let crc = crc32fast::hash(&s[..n]);
        s[n..].copy_from_slice(&crc.to_le_bytes());
        s
    }

    #[test]
    fn a_restored_card_continues_bit_for_bit() {
        let Some(mut a) = card() else { return };
        poke(&mut a);
        let saved = a.snapshot(b"driver", 7).unwrap();
        let (mut b, info, extra) = SimCard::restore(Config::default(), &saved).unwrap();
        assert_eq!(extra, b"driver");
        assert_eq!(info.cycle, a.cycle());
        assert_eq!(info.saved_unix_ns, 7);
        assert!(info.matches_this_build());
        assert_eq!(b.cycle(), a.cycle());
        assert_eq!(inspect(&saved).unwrap(), info);
        // Saving the restored card gives the same bytes, and both go on identically.
        assert_eq!(b.snapshot(b"driver", 7).unwrap(), saved);
        for c in [&mut a, &mut b] {
            poke(c);
            c.run(10_000);
        }
        assert_eq!(a.mmio_read(0x204).unwrap(), b.mmio_read(0x204).unwrap());
        assert_eq!(a.snapshot(b"", 0).unwrap(), b.snapshot(b"", 0).unwrap());
    }

    #[test]
    fn bad_states_are_refused_with_the_reason() {
        let Some(mut a) = card() else { return };
        poke(&mut a);
        let saved = a.snapshot(b"", 0).unwrap();
        let cfg = Config::default();
        let err = |bytes: &[u8]| SimCard::restore(cfg, bytes).expect_err("refused");
        assert_eq!(err(b"hello"), StateError::NotAState);
        assert_eq!(err(b""), StateError::NotAState);
        for cut in [9, 20, saved.len() / 2, saved.len() - 1] {
            assert!(
                matches!(err(&saved[..cut]), StateError::Corrupt(_)),
                "cut at {cut}"
            );
        }
        let mut flipped = saved.clone();
        let mid = flipped.len() / 2;
        flipped[mid] ^= 0x10;
        assert!(matches!(err(&flipped), StateError::Corrupt(m) if m.contains("CRC")));
        let mut v2 = saved.clone();
        v2[8] = 99;
        assert_eq!(
            err(&v2),
            StateError::Format {
                found: 99,
                want: FORMAT
            }
        );
        // Another build: the fingerprint (after its 8-byte length at offset 12) differs.
        let mut other = saved.clone();
        other[20] ^= 1;
        let e = err(&reseal(other));
        assert!(matches!(e, StateError::OtherBuild { .. }), "{e}");
        assert!(e.to_string().contains("different build"), "{e}");
        // Another width or clock.
        let e = SimCard::restore(
            Config {
                clk_period_ps: 3200,
                ..cfg
            },
            &saved,
        )
        .err()
        .unwrap();
        assert!(matches!(e, StateError::OtherCard { .. }), "{e}");
        // The model section one byte short (header patched to agree, CRC valid): the shim refuses it
        // before Verilator sees it.
        let mut short = saved[..saved.len() - 5].to_vec();
        let model_len_at = short.len() - (a_model_len(&saved) - 1) - 8;
        let n = (a_model_len(&saved) - 1) as u64;
        short[model_len_at..model_len_at + 8].copy_from_slice(&n.to_le_bytes());
        let hdr_at = 12 + 8 + fp_len(&saved) + 1 + 8 + 8 + 8;
        short[hdr_at..hdr_at + 8].copy_from_slice(&n.to_le_bytes());
        short.extend_from_slice(&[0; 4]);
        let e = err(&reseal(short));
        assert!(
            matches!(e, StateError::OtherBuild { ref saved, .. } if saved.contains("not the size")),
            "{e}"
        );
    }

    fn fp_len(s: &[u8]) -> usize {
        u64::from_le_bytes(s[12..20].try_into().unwrap()) as usize
    }

    fn a_model_len(s: &[u8]) -> usize {
        inspect(s).unwrap().model_bytes
    }

    #[test]
    fn the_shim_refuses_a_model_state_of_another_shape() {
        #[cfg(not(tsnic_sim_no_core))]
        {
            let mut m = ffi::Verilated::new(Width::W64, ffi::CoreSize::Shipped).unwrap();
            let mut good = Vec::new();
            crate::Rtl::save(&mut m, &mut good).unwrap();
            assert!(good.len() > 1000);
            assert_eq!(
                crate::Rtl::restore(&mut m, &good[..good.len() - 1]),
                Err(RtlStateError::Size)
            );
            let mut bad = good.clone();
            bad[3] ^= 0xff;
            assert_eq!(
                crate::Rtl::restore(&mut m, &bad),
                Err(RtlStateError::CheckValue)
            );
            assert_eq!(crate::Rtl::restore(&mut m, &good), Ok(()));
        }
    }
}
