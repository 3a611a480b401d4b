//! A grandmaster in software at the far end of `tsnic send`'s simulated path, for a slave clock
//! beside the sender (`--ptp slave`, docs/PTP.md "A slave beside send"). The path model carries
//! TCP only, so the master's frames do not cross it: they are put on the card's RX line a fixed
//! `delay_ns` after the master sends them, and the slave's frames reach the master `delay_ns`
//! after they start on the card's wire. The master is an [`OrdinaryClock`] in the master role
//! whose clock is exact: `M(t) = base + t + t * ppb / 10^9` of sender (simulated) time `t`, so its
//! stamps are the true times of its frames on that clock (a perfect two-step master). Its own
//! line is 10 Gb/s: frames it sends at once leave one after the other (an Announce due with a
//! Sync delays the Sync by its wire time, and the Sync's stamp says so).

use super::clock::{Action, Config, OrdinaryClock, Role};
use super::msg::{Addr, Transport};

/// The master's settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PathMasterConfig {
    /// Its clock minus the slave card's PHC at sender time 0, ns.
    pub offset_ns: i64,
    /// Its rate against simulated time, ppb (the slave has to trim this much).
    pub ppb: i64,
    /// One-way delay between it and the card's line, both ways, ns.
    pub delay_ns: u64,
    /// logSyncInterval.
    pub log_sync: i8,
    /// logAnnounceInterval.
    pub log_announce: i8,
    /// Its MAC (its clockIdentity follows from it).
    pub mac: [u8; 6],
}

impl Default for PathMasterConfig {
    fn default() -> Self {
        PathMasterConfig {
            offset_ns: 0,
            ppb: 0,
            delay_ns: 2_345,
            log_sync: -7,
            log_announce: -3,
            mac: [0x02, 0x00, 0x5e, 0x00, 0x33, 0x01],
        }
    }
}

impl PathMasterConfig {
    /// Parse `tsnic send --ptp-master`: comma-separated `offset=T` (its clock minus the card's
    /// PHC: ns, or with ns/us/ms/s), `ppb=N` (-10000000..=10000000), `log-sync=N` (-7..=4),
    /// `log-announce=N` (-3..=4), `delay=T` (1 us..1 s); unset ones keep [`Default`]'s.
    pub fn parse(s: &str) -> Result<PathMasterConfig, String> {
        let mut c = PathMasterConfig::default();
        for o in s.split(',').filter(|o| !o.is_empty()) {
            let (k, v) = o.split_once('=').unwrap_or((o, ""));
            let bad = |what: &str| format!("--ptp-master `{s}`: {k}={v} is not {what}");
            let num = |lo: i64, hi: i64| {
                v.parse::<i64>()
                    .ok()
                    .filter(|n| (lo..=hi).contains(n))
                    .ok_or_else(|| bad(&format!("a number in {lo}..={hi}")))
            };
            let time = || {
                let (n, unit) = match v.find(|c: char| c.is_ascii_alphabetic()) {
                    Some(i) => v.split_at(i),
                    None => (v, "ns"),
                };
                let mul: i64 = match unit {
                    "ns" => 1,
                    "us" => 1_000,
                    "ms" => 1_000_000,
                    "s" => 1_000_000_000,
                    _ => return Err(bad("a time (ns, us, ms or s)")),
                };
                n.parse::<i64>()
                    .ok()
                    .and_then(|n| n.checked_mul(mul))
                    .filter(|n| n.unsigned_abs() <= 1_000_000_000_000)
                    .ok_or_else(|| bad("a time within 1000 s (ns, us, ms or s)"))
            };
            match k {
                "offset" => c.offset_ns = time()?,
                "ppb" => c.ppb = num(-10_000_000, 10_000_000)?,
                "log-sync" => c.log_sync = num(-7, 4)? as i8,
                "log-announce" => c.log_announce = num(-3, 4)? as i8,
                "delay" => {
                    let d = time()?;
                    if !(1_000..=1_000_000_000).contains(&d) {
                        return Err(bad("a delay of 1 us to 1 s"));
                    }
                    c.delay_ns = d as u64;
                }
                _ => {
                    return Err(format!(
                        "--ptp-master `{s}`: unknown option `{o}` (offset=T, ppb=N, log-sync=N, \
                         log-announce=N, delay=T)"
                    ))
                }
            }
        }
        Ok(c)
    }
}

/// The master and its frames in flight to the card.
#[derive(Debug)]
pub struct PathMaster {
    cfg: PathMasterConfig,
    base: i128,
    clock: OrdinaryClock,
    sent: u64,
    received: u64,
    /// When its line is free again, sender time.
    line_free: u64,
}

/// Wire time of a frame at 10 Gb/s (preamble, FCS, inter-frame gap; padded to 60), ns.
fn wire_ns(len: usize) -> u64 {
    (len.max(60) as u64 + 4 + 8 + 12) * 8 / 10
}

impl PathMaster {
    /// A master whose clock reads `slave_phc0 + offset_ns` at sender time 0.
    pub fn new(cfg: PathMasterConfig, slave_phc0: u64) -> Self {
        let base = i128::from(slave_phc0) + i128::from(cfg.offset_ns);
        let mut c = Config::new(
            Role::Master,
            Transport::L2,
            Addr {
                mac: cfg.mac,
                ip: [192, 168, 33, 254],
            },
        );
        c.log_sync = cfg.log_sync;
        c.log_announce = cfg.log_announce;
        // a better clock than the default (248): a grandmaster locked to a reference
        c.clock_class = 6;
        let now = Self::time_of(base, cfg.ppb, 0);
        PathMaster {
            cfg,
            base,
            clock: OrdinaryClock::new(c, now, 0),
            sent: 0,
            received: 0,
            line_free: 0,
        }
    }

    fn time_of(base: i128, ppb: i64, t: u64) -> u64 {
        let t = i128::from(t);
        (base + t + t * i128::from(ppb) / 1_000_000_000).clamp(0, i128::from(u64::MAX)) as u64
    }

    /// Its clock at sender time `t`, ns.
    pub fn time(&self, t: u64) -> u64 {
        Self::time_of(self.base, self.cfg.ppb, t)
    }

    fn sender_time(&self, m: u64) -> u64 {
        let d = i128::from(m) - self.base;
        let t = d * 1_000_000_000 / (1_000_000_000 + i128::from(self.cfg.ppb));
        t.clamp(0, i128::from(u64::MAX)) as u64
    }

    /// When it next wants a turn (its next timer), sender time.
    pub fn next_event_ns(&self) -> Option<u64> {
        self.clock.next_deadline().map(|d| self.sender_time(d) + 1)
    }

    /// Frames sent so far, and frames from the slave taken.
    pub fn counts(&self) -> (u64, u64) {
        (self.sent, self.received)
    }

    /// The clock (its state and counters).
    pub fn clock(&self) -> &OrdinaryClock {
        &self.clock
    }

    /// Carry out `acts` at sender time `t`: frames leave at `t` or when the line is free (a Sync's
    /// departure stamp is its clock then) and reach the card's line `delay_ns` later.
    fn send(&mut self, t: u64, acts: Vec<Action>, out: &mut Vec<(u64, Vec<u8>)>) {
        let mut acts = acts;
        while !acts.is_empty() {
            let mut next = Vec::new();
            for a in acts {
                if let Action::Send { frame, kind, .. } = a {
                    self.sent += 1;
                    let depart = t.max(self.line_free);
                    self.line_free = depart + wire_ns(frame.len());
                    next.extend(self.clock.on_tx_stamp(kind, self.time(depart)));
                    out.push((depart + self.cfg.delay_ns, frame));
                }
            }
            acts = next;
        }
    }

    /// Run its timers due by sender time `now`; returns the frames for the card's RX line with
    /// the sender time each reaches it.
    pub fn poll(&mut self, now: u64) -> Vec<(u64, Vec<u8>)> {
        let mut out = Vec::new();
        let m = self.time(now);
        if self.clock.next_deadline().is_some_and(|d| d <= m) {
            let acts = self.clock.on_timer(m);
            self.send(now, acts, &mut out);
        }
        out
    }

    /// A frame of the slave's that started on the card's wire at sender time `start`: it reaches
    /// the master `delay_ns` later and is stamped then; returns the answers for the card's line.
    pub fn on_wire(&mut self, start: u64, frame: &[u8]) -> Vec<(u64, Vec<u8>)> {
        let mut out = Vec::new();
        let at = start + self.cfg.delay_ns;
        let m = self.time(at);
        self.received += 1;
        let acts = self.clock.on_rx(frame, m, m);
        self.send(at, acts, &mut out);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptp::msg::{self, Body, Message};

    #[test]
    fn it_announces_and_syncs_with_exact_stamps() {
        let cfg = PathMasterConfig {
            offset_ns: -3_000_000,
            ppb: 40_000,
            ..PathMasterConfig::default()
        };
        let mut m = PathMaster::new(cfg, 10_000_000_000);
        assert_eq!(m.time(0), 9_997_000_000);
        assert_eq!(m.time(1_000_000_000), 9_997_000_000 + 1_000_040_000);
        let first = m.poll(0);
        let msgs: Vec<Message> = first
            .iter()
            .filter_map(|(_, f)| msg::unframe(Transport::L2, f))
            .filter_map(|(p, _)| Message::decode(p).ok())
            .collect();
        assert!(msgs.iter().any(|x| matches!(x.body, Body::Announce(..))));
        let fup = msgs
            .iter()
            .find_map(|x| match x.body {
                Body::FollowUp(t) => Some(t.to_ns()),
                _ => None,
            })
            .expect("a Follow_Up for the Sync");
        // Announce, Sync, Follow_Up one after the other on its line: the Sync's stamp is its
        // departure behind the Announce
        assert_eq!(first.len(), 3);
        let sync_at = first[1].0;
        assert_eq!(sync_at, cfg.delay_ns + wire_ns(first[0].1.len()));
        assert_eq!(fup, m.time(sync_at - cfg.delay_ns));
        assert!(first[2].0 > sync_at);
        // the next Sync 2^-7 s later (master time), Announce 2^-3 s
        let next = m.next_event_ns().unwrap();
        assert!((7_812_000..7_813_000).contains(&next), "{next}");
        assert!(m.poll(next - 10).is_empty());
        assert_eq!(m.poll(next).len(), 2, "Sync and Follow_Up");
        assert!(m.on_wire(5, b"not a PTP frame").is_empty());
    }

    #[test]
    fn options_parse_and_refuse() {
        let c = PathMasterConfig::parse("offset=-3ms,ppb=10000,log-sync=-4,delay=5us").unwrap();
        assert_eq!(
            (c.offset_ns, c.ppb, c.log_sync, c.delay_ns, c.log_announce),
            (-3_000_000, 10_000, -4, 5_000, -3)
        );
        assert_eq!(
            PathMasterConfig::parse("").unwrap(),
            PathMasterConfig::default()
        );
        for bad in [
            "offset=3h",
            "offset=x",
            "offset=99999999s",
            "ppb=1e9",
            "log-sync=9",
            "log-announce=-4",
            "delay=10ns",
            "fast",
        ] {
            let e = PathMasterConfig::parse(bad).unwrap_err();
            assert!(e.contains("--ptp-master"), "{bad}: {e}");
        }
    }
}
