//! The ordinary clock beside a job: `tsnic push|replay --ptp ROLE[,OPTS]` (docs/PTP.md, "Who owns
//! the card"). The command holds the card; [`BesideClock`] is turned once per turn of the job's loop
//! ([`crate::pipeline::Beside`]): on its first turn it attaches a [`CardPort`] on a TX queue the job
//! does not use (the card's last by default), RX queue 0 as the default queue and the job's
//! completion ring (its records set aside), then polls it at most every `poll` of host time and
//! tells the loop when it next needs a turn (its next timer, or `poll` ahead for received frames:
//! the RX path has no interrupt). Nothing else of the job changes; the same on every backend.

use serde::Serialize;

use super::card::{CardCounters, CardPort, PtpError};
use super::clock::{Config, Counters, PortState, Report, Role, Sample};
use super::msg::{Addr, Transport};
use crate::device::{Backend, Caps};
use crate::phc;
use crate::pipeline::post::Post;
use crate::pipeline::Beside;
use crate::push::PushError;
use crate::ring::CplRing;

/// What `--ptp` says.
#[derive(Debug, Clone)]
pub struct BesideSpec {
    /// The clock's configuration.
    pub cfg: Config,
    /// TX queue (None: the card's last).
    pub txq: Option<u16>,
    /// RX queue (None: 0 beside push and replay, 1 beside send).
    pub rxq: Option<u16>,
    /// Make the RX queue the card's default queue (push, replay: they receive nothing); false
    /// beside send, whose ACKs keep the default queue: the clock then gets L2 PTP by EtherType
    /// rule 0 alone ([`BesideSpec::for_send`]).
    pub default_rx: bool,
    /// Longest gap between two polls, host ns.
    pub poll_ns: u64,
    /// Do not resume what an earlier command's clock left (`fresh`; docs/PTP.md, "Between
    /// commands").
    pub fresh: bool,
}

/// Default MAC of the clock beside a job (`mac=` changes it).
pub const DEFAULT_MAC: [u8; 6] = [0x02, 0x74, 0x73, 0x6e, 0x69, 0x01];

impl BesideSpec {
    /// Parse `ROLE[,OPT...]`: ROLE slave|master|auto; OPT l2|udp4, one-step, log-sync=N (-7..=4),
    /// log-announce=N (-3..=4),
    /// domain=N, priority1=N, queue=N (TX), rx-queue=N, poll=US (1..=100000 us), mac=XX:..,
    /// ip=A.B.C.D, fresh (do not resume an earlier command's clock).
    pub fn parse(s: &str) -> Result<BesideSpec, String> {
        let mut it = s.split(',');
        let role = match it.next().unwrap_or("") {
            "slave" => Role::Slave,
            "master" => Role::Master,
            "auto" => Role::Auto,
            r => {
                return Err(format!(
                "--ptp `{s}`: the role `{r}` is not slave, master or auto (e.g. --ptp slave,udp4)"
            ))
            }
        };
        let mut cfg = Config::new(
            role,
            Transport::L2,
            Addr {
                mac: DEFAULT_MAC,
                ip: [192, 168, 33, 1],
            },
        );
        let mut spec = BesideSpec {
            cfg,
            txq: None,
            rxq: None,
            default_rx: true,
            poll_ns: 1_000_000,
            fresh: false,
        };
        for o in it {
            let (k, v) = o.split_once('=').unwrap_or((o, ""));
            let num = |lo: i64, hi: i64| -> Result<i64, String> {
                v.parse::<i64>()
                    .ok()
                    .filter(|n| (lo..=hi).contains(n))
                    .ok_or_else(|| format!("--ptp `{s}`: {k}={v} is not a number in {lo}..={hi}"))
            };
            match k {
                "l2" if v.is_empty() => cfg.transport = Transport::L2,
                "udp4" if v.is_empty() => cfg.transport = Transport::Udp4,
                "one-step" if v.is_empty() => cfg.one_step = true,
                "log-sync" => cfg.log_sync = num(-7, 4)? as i8,
                "log-announce" => cfg.log_announce = num(-3, 4)? as i8,
                "domain" => cfg.domain = num(0, 255)? as u8,
                "priority1" => cfg.priority1 = num(0, 255)? as u8,
                "queue" => spec.txq = Some(num(0, 65535)? as u16),
                "rx-queue" => spec.rxq = Some(num(0, 65535)? as u16),
                "poll" => spec.poll_ns = num(1, 100_000)? as u64 * 1000,
                "fresh" if v.is_empty() => spec.fresh = true,
                "mac" => {
                    let m: Vec<u8> = v
                        .split(':')
                        .map(|p| u8::from_str_radix(p, 16))
                        .collect::<Result<_, _>>()
                        .map_err(|_| format!("--ptp `{s}`: mac={v} is not six hex bytes"))?;
                    cfg.addr.mac = m
                        .try_into()
                        .map_err(|_| format!("--ptp `{s}`: mac={v} is not six hex bytes"))?;
                    if cfg.addr.mac[0] & 1 == 1 {
                        return Err(format!(
                            "--ptp `{s}`: mac={v} is multicast: use a unicast one"
                        ));
                    }
                }
                "ip" => {
                    let ip: std::net::Ipv4Addr = v
                        .parse()
                        .map_err(|_| format!("--ptp `{s}`: ip={v} is not an IPv4 address"))?;
                    cfg.addr.ip = ip.octets();
                }
                _ => {
                    return Err(format!(
                    "--ptp `{s}`: unknown option `{o}` (l2, udp4, one-step, log-sync=N, log-announce=N, domain=N, \
                         priority1=N, queue=N, rx-queue=N, poll=US, mac=..., ip=..., fresh)"
                ))
                }
            }
        }
        if cfg.one_step && role == Role::Slave {
            return Err(format!("--ptp `{s}`: one-step is for a master"));
        }
        spec.cfg = cfg;
        Ok(spec)
    }

    /// The spec beside `tsnic send`, which receives its ACKs on RX queue 0 (the default queue): the
    /// clock must not take the default queue, so it gets its frames by EtherType rule 0 alone on RX
    /// queue 1 (`rx-queue=N`, not 0); that steers L2 PTP only, so UDP/IPv4 is refused.
    pub fn for_send(mut self, spec_text: &str) -> Result<BesideSpec, String> {
        if self.cfg.transport == Transport::Udp4 {
            return Err(format!(
                "--ptp `{spec_text}`: udp4 cannot run beside send: UDP PTP reaches the clock only \
                 on the card's default RX queue, which the sender's ACKs use; use l2 (the default: \
                 drop `udp4`), which the card steers to the clock by EtherType"
            ));
        }
        if self.rxq == Some(0) {
            return Err(format!(
                "--ptp `{spec_text}`: rx-queue=0 is the sender's (its ACKs): give the clock another \
                 one (default 1)"
            ));
        }
        self.rxq = Some(self.rxq.unwrap_or(1));
        self.default_rx = false;
        Ok(self)
    }
}

/// True for a frame the clock beside a job sends from `mac`: a PTP message (EtherType 0x88F7, or
/// IPv4 UDP to port 319 or 320) or the one-step calibration frame (EtherType 0x88B5) with `mac` as
/// its source. The simulated wire carries them between the job's frames; its check against the
/// job's completions leaves them out.
pub fn is_clock_frame(mac: [u8; 6], f: &[u8]) -> bool {
    if f.len() < 14 || f[6..12] != mac {
        return false;
    }
    match [f[12], f[13]] {
        [0x88, 0xf7] | [0x88, 0xb5] => true,
        [0x08, 0x00] if f.len() >= 14 + 20 + 4 => {
            let ihl = usize::from(f[14] & 0x0f) * 4;
            let udp = 14 + ihl;
            f[23] == 17
                && f.len() >= udp + 4
                && matches!(u16::from_be_bytes([f[udp + 2], f[udp + 3]]), 319 | 320)
        }
        _ => false,
    }
}

/// The clock's status at the end of a job (the summary's `ptp` object).
#[derive(Debug, Clone, Default, Serialize)]
pub struct BesideSummary {
    /// Port state at the end (None: it never started).
    pub state: Option<PortState>,
    /// TX queue it used.
    pub tx_queue: Option<u16>,
    /// Clock counters.
    pub counters: Counters,
    /// Card-side counters.
    pub card: CardCounters,
    /// Servo samples during the job.
    pub samples: u64,
    /// Of those, taken in state SLAVE with the servo locked (s2).
    pub locked_samples: u64,
    /// Largest |offset| of the locked samples, ns.
    pub max_abs_offset_ns: Option<u64>,
    /// The last sample.
    pub last: Option<Sample>,
    /// Why it stopped, if it failed (the job is cut then).
    pub error: Option<String>,
    /// Whether it resumed what the clock of an earlier command left ([`super::saved`]), and whom it
    /// followed then, or why not (None: nothing was saved).
    pub resumed: Option<String>,
}

/// An ordinary clock turned by a job's loop.
pub struct BesideClock {
    spec: BesideSpec,
    port: Option<CardPort>,
    resume: Option<super::saved::Saved>,
    next_poll_host: u64,
    wake_phc: u64,
    summary: BesideSummary,
    each: Box<dyn FnMut(&Report)>,
}

impl std::fmt::Debug for BesideClock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BesideClock")
            .field("spec", &self.spec)
            .field("summary", &self.summary)
            .finish()
    }
}

impl BesideClock {
    /// A clock to attach at the job's first turn; `each` sees every report as it comes.
    pub fn new(spec: BesideSpec, each: Box<dyn FnMut(&Report)>) -> Self {
        BesideClock {
            spec,
            port: None,
            resume: None,
            next_poll_host: 0,
            wake_phc: 0,
            summary: BesideSummary::default(),
            each,
        }
    }

    /// The clock's status so far.
    pub fn summary(&self) -> BesideSummary {
        let mut s = self.summary.clone();
        if let Some(p) = &self.port {
            s.state = Some(p.clock().state());
            s.tx_queue = Some(p.tx_queue());
            s.counters = p.clock().counters();
            s.card = p.counters();
            s.last = p.clock().last_sample();
        }
        s
    }

    /// Resume `saved` (what an earlier command's clock left) when it attaches, if it still holds
    /// (the summary's `resumed` says).
    pub fn resume_from(&mut self, saved: super::saved::Saved) {
        self.resume = Some(saved);
    }

    /// What it leaves for the next command's clock (None: it follows no parent, or never started).
    pub fn saved(&self, b: &mut dyn Backend) -> Option<super::saved::Saved> {
        self.port.as_ref().and_then(|p| p.saved(b))
    }

    /// The MAC its frames come from.
    pub fn mac(&self) -> [u8; 6] {
        self.spec.cfg.addr.mac
    }

    /// True when the clock's next complete Sync exchange may step the PHC.
    pub fn may_step(&self) -> bool {
        self.port.as_ref().is_some_and(|p| p.clock().may_step())
    }

    /// What the clock wrote to the PHC so far (None before it attached).
    pub fn phc_writes(&self) -> Option<super::card::PhcWrites> {
        self.port.as_ref().map(|p| p.phc_writes())
    }

    /// The port, once attached.
    pub fn port(&self) -> Option<&CardPort> {
        self.port.as_ref()
    }

    /// After the job: disable the clock's queues (the job has left the card quiet already).
    pub fn close(&mut self, b: &mut dyn Backend) -> Result<BesideSummary, PtpError> {
        let s = self.summary();
        if let Some(p) = self.port.take() {
            p.close(b)?;
        }
        Ok(s)
    }

    /// The TX queue the clock uses on a card of `caps`.
    pub fn tx_queue_for(&self, caps: &Caps) -> u16 {
        self.spec
            .txq
            .unwrap_or(caps.num_queues.saturating_sub(1) as u16)
    }

    /// One turn beside a job whose TX queues are `job_queues` and whose completion ring is `cpl`
    /// (the first turn attaches the port: nothing of the job may be in flight on the clock's
    /// queue). Returns the PHC time by which it wants its next turn. The job's loop calls this, or
    /// [`Beside::turn`] (push, replay), once per turn.
    pub fn turn_ring(
        &mut self,
        b: &mut dyn Backend,
        caps: &Caps,
        cpl: &mut CplRing,
        job_queues: &[u16],
    ) -> Result<u64, PtpError> {
        if self.port.is_none() {
            let q = self.tx_queue_for(caps);
            if job_queues.contains(&q) {
                return Err(PtpError::Invalid(format!(
                    "the job uses TX queue {q}, which --ptp would use: give the clock another one (--ptp ...,queue=N)"
                )));
            }
            let rxq = self.spec.rxq.unwrap_or(0);
            let mut port =
                CardPort::attach(b, caps, cpl, self.spec.cfg, q, rxq, self.spec.default_rx)?;
            if let Some(s) = self.resume.take() {
                self.summary.resumed = Some(match port.resume(b, &s) {
                    Ok(m) => m,
                    Err(e) => e.to_string(),
                });
            }
            self.port = Some(port);
        }
        let host = b.now_ns();
        if host < self.next_poll_host {
            return Ok(self.wake_phc);
        }
        let Some(port) = self.port.as_mut() else {
            return Ok(u64::MAX);
        };
        port.poll_beside(b, cpl)?;
        for r in port.take_reports() {
            if let Report::Sample(x) = &r {
                self.summary.samples += 1;
                if x.state == PortState::Slave && x.servo == 2 {
                    self.summary.locked_samples += 1;
                    let a = x.offset_ns.unsigned_abs();
                    self.summary.max_abs_offset_ns =
                        Some(self.summary.max_abs_offset_ns.unwrap_or(0).max(a));
                }
            }
            (self.each)(&r);
        }
        // sooner while its frames are in flight (their stamps make the next message)
        let gap = if port.outstanding() > 0 {
            self.spec.poll_ns.min(10_000)
        } else {
            self.spec.poll_ns
        };
        let now = phc::get_ns(b);
        let mut wake = now.saturating_add(gap);
        if let Some(d) = port.next_deadline() {
            wake = wake.min(d);
        }
        // the next poll is due when the loop wakes for it (host and PHC ns pass at about the same
        // rate): a timer due before `gap` is not held back by it
        self.next_poll_host = host.saturating_add(wake.saturating_sub(now).min(gap));
        self.wake_phc = wake;
        Ok(wake)
    }

    /// Record a failure of the clock (the summary's `error`) and say it as the job's error.
    pub fn fail(&mut self, e: PtpError) -> String {
        let m = format!("PTP beside the job stopped: {e}");
        self.summary.error = Some(m.clone());
        m
    }

    fn turn_inner(
        &mut self,
        b: &mut dyn Backend,
        caps: &Caps,
        post: &mut Post,
    ) -> Result<u64, PtpError> {
        // the job's queues matter only to the first turn (a Vec: not made on every turn)
        let queues = if self.port.is_none() {
            post.reserved = Some(self.tx_queue_for(caps));
            post.queues()
        } else {
            Vec::new()
        };
        let cpl = post.cpl.as_mut().ok_or_else(|| {
            PtpError::Invalid("the job has no completion ring: a driver bug".into())
        })?;
        self.turn_ring(b, caps, cpl, &queues)
    }
}

impl Beside for BesideClock {
    fn turn(
        &mut self,
        b: &mut dyn Backend,
        caps: &Caps,
        post: &mut Post,
    ) -> Result<u64, PushError> {
        self.turn_inner(b, caps, post)
            .map_err(|e| PushError::Job(self.fail(e)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_parses_and_refuses() {
        let s =
            BesideSpec::parse("slave,udp4,log-sync=-3,log-announce=-3,queue=5,poll=200").unwrap();
        assert_eq!(s.cfg.log_announce, -3);
        assert_eq!(s.cfg.role, Role::Slave);
        assert_eq!(s.cfg.transport, Transport::Udp4);
        assert_eq!(s.cfg.log_sync, -3);
        assert_eq!(s.txq, Some(5));
        assert_eq!(s.poll_ns, 200_000);
        let m = BesideSpec::parse("master,one-step,mac=02:00:00:00:00:07").unwrap();
        assert!(m.cfg.one_step);
        assert_eq!(m.cfg.addr.mac[5], 7);
        let mut f = vec![0u8; 60];
        f[6..12].copy_from_slice(&DEFAULT_MAC);
        f[12..14].copy_from_slice(&[0x88, 0xf7]);
        assert!(is_clock_frame(DEFAULT_MAC, &f));
        assert!(!is_clock_frame([2, 0, 0, 0, 0, 9], &f), "another sender's");
        f[12..14].copy_from_slice(&[0x08, 0x00]);
        f[14] = 0x45;
        f[23] = 17;
        f[36..38].copy_from_slice(&320u16.to_be_bytes());
        assert!(is_clock_frame(DEFAULT_MAC, &f));
        f[36..38].copy_from_slice(&4791u16.to_be_bytes());
        assert!(!is_clock_frame(DEFAULT_MAC, &f));
        assert!(!is_clock_frame(DEFAULT_MAC, &f[..10]));
        for bad in [
            "",
            "boss",
            "slave,one-step",
            "slave,log-sync=9",
            "slave,log-announce=-4",
            "slave,queue=x",
            "slave,mac=01:00:00:00:00:00",
            "slave,mac=02:00",
            "slave,ip=1.2.3",
            "slave,fast",
        ] {
            let e = BesideSpec::parse(bad).unwrap_err();
            assert!(e.contains("--ptp"), "{bad}: {e}");
        }
    }

    #[test]
    fn beside_send_the_clock_leaves_the_default_queue() {
        let p = BesideSpec::parse("slave").unwrap();
        assert_eq!((p.rxq, p.default_rx), (None, true), "push: as before");
        let s = BesideSpec::parse("slave")
            .unwrap()
            .for_send("slave")
            .unwrap();
        assert_eq!((s.rxq, s.default_rx), (Some(1), false));
        let s = BesideSpec::parse("master,l2,rx-queue=3")
            .unwrap()
            .for_send("x")
            .unwrap();
        assert_eq!(s.rxq, Some(3));
        let e = BesideSpec::parse("slave,udp4")
            .unwrap()
            .for_send("slave,udp4")
            .unwrap_err();
        assert!(e.contains("udp4") && e.contains("use l2"), "{e}");
        let e = BesideSpec::parse("slave,rx-queue=0")
            .unwrap()
            .for_send("slave,rx-queue=0")
            .unwrap_err();
        assert!(e.contains("rx-queue=0"), "{e}");
    }
}
