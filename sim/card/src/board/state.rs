//! The board card's state as bytes: `sim:board[=NAME]` kept between commands, as the core build's
//! card is ([`crate::state`], same file format and checks; the card code in the width's place names
//! the board, so a core-build card and each board's card refuse each other's files by name).
//!
//! Kept: the Verilated `tsnic_board_core` whole (`--savable`: both clock domains, the PCIe endpoint,
//! MSI-X table, PHC and its MAC-domain copies), the two clocks (time, next edges, cycle counts), the
//! last port images, and of the models around it what outlives a quiet moment: the configuration
//! space the host set, the link's free times and owed DLLP bytes, the host's read sequence and next
//! CQ tag ([`PcieModel`](super::PcieModel)); the wire (when the line is free, its counters); the
//! CMAC's tready and packet state; the RX line's free time; the host memory's next device address.
//!
//! A board card is saved only when the models around the core are quiet ([`BoardCard::quiet`]):
//! nothing on the link or at the host (no TLP in flight, no read being served, no MSI-X answer
//! owed), no frame on the TX line, no RX frame queued, not in reset. [`BoardCard::settle`] runs
//! the card until then, as a real card goes on while its driver process exits. So no TLP, beat or
//! frame in flight is ever written into a state: what the RTL holds (queued frames, a calendar far
//! ahead) is in the model's own state.

use super::{BoardCard, BoardConfig};
use crate::board::ffi::{BoardIn, BoardOut};
use crate::state::{head, model_refused, Enc, Head, StateError, StateInfo, FORMAT, MAGIC};
use crate::SimError;

impl BoardCard {
    /// What keeps the models around the board core from being saved now, `None` when quiet.
    pub fn quiet(&self) -> Option<&'static str> {
        if self.pcie.busy() || self.pcie.msix_owed() {
            return Some("TLPs are on the PCIe link or at the host");
        }
        if self.wire.busy(self.now_ps) || self.cmac.as_ref().is_some_and(|c| c.in_packet()) {
            return Some("a frame is on the TX line");
        }
        if self.rx_queued() > 0 {
            return Some("RX frames are on their way to the card");
        }
        if self.reset_left > 0 || self.inp.rst != 0 {
            return Some("the card is in reset");
        }
        None
    }

    /// Run until [`BoardCard::quiet`], at most `limit_ps` of simulated time; true if it is.
    pub fn settle(&mut self, limit_ps: u64) -> bool {
        let end = self.now_ps.saturating_add(limit_ps);
        while self.quiet().is_some() {
            if self.next_clk_ps.min(self.next_mac_ps) >= end {
                return false;
            }
            self.step();
        }
        true
    }

    /// The card's state (module docs), with `extra` bytes of the caller's (the driver's host-clock
    /// model) and the wall-clock time of the save, ns since the Unix epoch. Refused
    /// ([`StateError::Busy`]) unless [`BoardCard::quiet`].
    pub fn snapshot(&mut self, extra: &[u8], saved_unix_ns: u64) -> Result<Vec<u8>, StateError> {
        let fp = self.rtl.fingerprint().ok_or_else(|| {
            StateError::Unsupported(
                "the board model has no save/restore (no build fingerprint)".into(),
            )
        })?;
        if let Some(why) = self.quiet() {
            return Err(StateError::Busy(why.into()));
        }
        let mut model = Vec::new();
        self.rtl
            .save(&mut model)
            .map_err(|e| StateError::Unsupported(e.to_string()))?;
        let mut e = Enc::default();
        e.0.extend_from_slice(MAGIC);
        e.u32(FORMAT);
        e.bytes(fp.as_bytes());
        e.u8(crate::state::board_code(self.cfg.model));
        e.u64(self.cfg.clk_period_ps);
        e.u64(saved_unix_ns);
        e.u64(self.clk_cycles);
        e.u64(model.len() as u64);
        // the board's own: its MAC clock and times
        e.u64(self.cfg.mac_period_ps);
        e.u64(self.cfg.mac_period_den);
        e.u64(self.cfg.mac_phase_ps);
        e.u64(self.now_ps);
        e.u64(self.next_clk_ps);
        e.u64(self.next_mac_ps);
        e.u64(self.mac_cycles);
        e.words(&self.inp.to_words());
        e.words(&self.out.to_words());
        e.words(&self.wire_in.to_words());
        e.words(&self.wire_out.to_words());
        self.pcie.save_state(&mut e);
        self.mem.save_state(&mut e);
        self.wire.save_state(&mut e);
        e.bool(self.cmac.is_some());
        if let Some(c) = &self.cmac {
            c.save_state(&mut e);
        }
        match &self.rx {
            super::BoardRx::Xgmii(x) => x.save_state(&mut e),
            super::BoardRx::Line(r) => r.save_state(&mut e),
        }
        e.bytes(extra);
        e.bytes(&model);
        let crc = crc32fast::hash(&e.0);
        e.u32(crc);
        Ok(e.0)
    }

    /// A board card from a state written by [`BoardCard::snapshot`] of the same board build, the
    /// models around the core set up by `cfg` (its board and clocks must be the saved card's).
    /// Returns the card, what the state says about itself, and the caller's extra bytes.
    pub fn restore(
        cfg: BoardConfig,
        bytes: &[u8],
    ) -> Result<(BoardCard, StateInfo, Vec<u8>), StateError> {
        let Head { info, mut dec } = head(bytes)?;
        let want = cfg.model;
        match info.board {
            None => {
                return Err(StateError::OtherKind {
                    saved: format!(
                        "a {}-bit card of the core build (tsnic_core)",
                        info.width.bytes() * 8
                    ),
                    want: want.card_words().into(),
                    spec: "sim (or sim:small / sim:wide, as the card was made)".into(),
                })
            }
            Some(b) if b != want => {
                return Err(StateError::OtherKind {
                    saved: b.card_words().into(),
                    want: want.card_words().into(),
                    spec: b.spec().into(),
                })
            }
            Some(_) => {}
        }
        if !want.built() {
            return Err(SimError::CoreUnavailable(format!(
                "the board configuration `{}` is not built in: build with the `{}` feature",
                want.name(),
                want.feature()
            ))
            .into());
        }
        let this = want.fingerprint().unwrap_or("");
        if this != info.fingerprint {
            return Err(StateError::OtherBuild {
                saved: info.fingerprint.clone(),
                this: this.to_string(),
            });
        }
        let mac = (
            dec.u64("MAC clock period")?,
            dec.u64("MAC clock period divisor")?,
            dec.u64("MAC clock phase")?,
        );
        if info.clk_period_ps != cfg.clk_period_ps
            || mac != (cfg.mac_period_ps, cfg.mac_period_den, cfg.mac_phase_ps)
        {
            return Err(StateError::Corrupt(format!(
                "the saved {} has clocks of {} ps and {}/{} ps (phase {} ps), this build's are {} ps and {}/{} ps (phase {} ps)",
                want.name(),
                info.clk_period_ps,
                mac.0,
                mac.1,
                mac.2,
                cfg.clk_period_ps,
                cfg.mac_period_ps,
                cfg.mac_period_den,
                cfg.mac_phase_ps
            )));
        }
        let now_ps = dec.u64("time")?;
        let next_clk_ps = dec.u64("next PCIe clock edge")?;
        let next_mac_ps = dec.u64("next MAC clock edge")?;
        let mac_cycles = dec.u64("MAC cycles")?;
        let port = |what: &str| StateError::Corrupt(format!("{what} port image size"));
        let inp = BoardIn::from_words(&dec.words("input ports")?).ok_or_else(|| port("input"))?;
        let out =
            BoardOut::from_words(&dec.words("output ports")?).ok_or_else(|| port("output"))?;
        let wire_in = crate::PortsIn::from_words(&dec.words("MAC input ports")?)
            .ok_or_else(|| port("MAC input"))?;
        let wire_out = crate::PortsOut::from_words(&dec.words("MAC output ports")?)
            .ok_or_else(|| port("MAC output"))?;
        let mac_edge = u128::from(cfg.mac_phase_ps)
            + u128::from(mac_cycles) * u128::from(cfg.mac_period_ps)
                / u128::from(cfg.mac_period_den);
        if u128::from(info.cycle) * u128::from(cfg.clk_period_ps) != u128::from(next_clk_ps)
            || mac_edge != u128::from(next_mac_ps)
            || now_ps > next_clk_ps.min(next_mac_ps)
        {
            return Err(StateError::Corrupt(format!(
                "{} PCIe and {mac_cycles} MAC cycles do not end at {next_clk_ps} and {next_mac_ps} ps",
                info.cycle
            )));
        }
        let rtl = super::ffi::VerilatedBoard::new(want)
            .ok_or_else(|| SimError::BadConfig("cannot allocate the board model".into()))?;
        let mut card = BoardCard::unreset(cfg, Box::new(rtl))?;
        card.pcie.restore_state(&mut dec)?;
        card.mem.restore_state(&mut dec)?;
        card.wire.restore_state(&mut dec)?;
        let has_cmac = dec.bool("CMAC")?;
        match (&mut card.cmac, has_cmac) {
            (Some(c), true) => c.restore_state(&mut dec)?,
            (None, false) => {}
            _ => {
                return Err(StateError::Corrupt(
                    "CMAC present in one of state and build only".into(),
                ))
            }
        }
        match &mut card.rx {
            super::BoardRx::Xgmii(x) => x.restore_state(&mut dec)?,
            super::BoardRx::Line(r) => r.restore_state(&mut dec)?,
        }
        let (extra, model) = dec.tail(info.model_bytes)?;
        card.rtl
            .restore(model)
            .map_err(|e| model_refused(e, &info.fingerprint, this))?;
        card.now_ps = now_ps;
        card.next_clk_ps = next_clk_ps;
        card.next_mac_ps = next_mac_ps;
        card.clk_cycles = info.cycle;
        card.mac_cycles = mac_cycles;
        card.inp = inp;
        card.out = out;
        card.wire_in = wire_in;
        card.wire_out = wire_out;
        Ok((card, info, extra))
    }
}
