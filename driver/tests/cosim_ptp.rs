//! PTP between two Verilated cards in one process (issue 33 item 3): the slave card's PHC follows
//! the master card's over the wire model, on the cards' own departure and arrival stamps; the truth
//! is read from both cores' PHC ports, not from the protocol. Every frame on the wire is written to
//! a pcapng and dissected by tshark (when installed).

use std::path::{Path, PathBuf};
use std::process::Command;

use tsnic::capture::PcapNgOut;
use tsnic::ptp::pair::{run, PairConfig, PairResult};
use tsnic::ptp::{PortState, Role, Transport};

/// A scratch file in a directory of this process's own; both are removed when it goes out of
/// scope, also when an assertion fails.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let d = std::env::temp_dir().join(format!("tsnic-cosim-ptp-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        Scratch(d.join(name))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
        if let Some(d) = self.0.parent() {
            let _ = std::fs::remove_dir(d); // fails while another test's file is in it
        }
    }
}

fn pair(cfg: PairConfig) -> PairResult {
    let r = run(&cfg, |_, _| true).unwrap();
    eprintln!(
        "{:?} {} ppb: lock {:?} s, p50 {:.2} p99 {:.2} max {:.2} mean {:+.2} ns, late {}, frames {:?}",
        cfg.transport,
        cfg.slave_ppb,
        r.lock_s,
        r.p50_ns,
        r.p99_ns,
        r.max_ns,
        r.mean_ns,
        r.late_injections,
        r.frames
    );
    assert_eq!(r.late_injections, 0, "the pair model injected a frame late");
    r
}

/// tshark's fields of every PTP message: (pcap time ns, messageType, sequenceId, timestamp ns of
/// the Follow_Up or Delay_Resp body, else 0).
fn tshark_fields(p: &Path) -> Option<Vec<(u64, u8, u16, u64)>> {
    let o = Command::new("tshark")
        .args(["-n", "-r", p.to_str().unwrap(), "-Y", "ptp", "-T", "fields"])
        .args(["-e", "frame.time_epoch", "-e", "ptp.v2.messagetype"])
        .args(["-e", "ptp.v2.sequenceid"])
        .args(["-e", "ptp.v2.fu.preciseorigintimestamp.seconds"])
        .args(["-e", "ptp.v2.fu.preciseorigintimestamp.nanoseconds"])
        .args(["-e", "ptp.v2.dr.receivetimestamp.seconds"])
        .args(["-e", "ptp.v2.dr.receivetimestamp.nanoseconds"])
        .output()
        .ok()?;
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let ns = |s: &str| -> u64 {
        let (a, b) = s.split_once('.').unwrap();
        a.parse::<u64>().unwrap() * 1_000_000_000 + format!("{b:0<9}")[..9].parse::<u64>().unwrap()
    };
    let num = |s: &str| s.parse::<u64>().unwrap_or(0);
    Some(
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .map(|l| {
                let f: Vec<&str> = l.split('\t').collect();
                let ty = u8::from_str_radix(f[1].trim_start_matches("0x"), 16).unwrap();
                let ts =
                    num(f[3]) * 1_000_000_000 + num(f[4]) + num(f[5]) * 1_000_000_000 + num(f[6]);
                (ns(f[0]), ty, f[2].parse().unwrap(), ts)
            })
            .collect(),
    )
}

/// Packets tshark flags as malformed, or with an error-level expert item (checksums verified).
fn tshark_errors(p: &Path) -> usize {
    let o = Command::new("tshark")
        .args(["-n", "-r", p.to_str().unwrap()])
        .args([
            "-o",
            "ip.check_checksum:TRUE",
            "-o",
            "udp.check_checksum:TRUE",
        ])
        .args(["-Y", "_ws.malformed || _ws.expert.severity >= \"error\""])
        .output()
        .unwrap();
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .count()
}

#[test]
fn slave_card_locks_to_master_card_and_tshark_reads_every_message() {
    for (transport, ppb) in [(Transport::L2, 100_000.0), (Transport::Udp4, -100_000.0)] {
        let r = pair(PairConfig {
            transport,
            seconds: 40,
            slave_ppb: ppb,
            record: true,
            ..PairConfig::default()
        });
        assert_eq!(r.slave_state, Some(PortState::Slave));
        assert_eq!(r.slave_steps, 1, "stepped once from 1 s, slewed after");
        let lock = r.lock_s.expect("locked");
        assert!(lock <= 30, "lock after {lock} s");
        // from 10 s after the lock (the servo's transient after its step) to the end
        assert!(
            r.max_ns > 0.0 && r.max_ns <= 8.0,
            "max |offset| {} ns",
            r.max_ns
        );
        // the start: 1 s off, plus 100 ppm for each second before the step
        assert!(
            (r.true_offset_ns[0].abs() - 1e9).abs() < 2e5,
            "{}",
            r.true_offset_ns[0]
        );

        let scratch = Scratch::new(&format!("pair-{transport:?}.pcapng"));
        let p = scratch.0.clone();
        let mut w = PcapNgOut::create(&p).unwrap();
        for (ts, f) in &r.wire {
            w.write(*ts, f).unwrap();
        }
        w.finish().unwrap();
        let Some(msgs) = tshark_fields(&p) else {
            eprintln!("SKIPPED tshark: not installed (apt-get install tshark)");
            continue;
        };
        assert_eq!(msgs.len(), r.wire.len(), "every frame is PTP to tshark");
        assert_eq!(
            tshark_errors(&p),
            0,
            "tshark found malformed packets or errors"
        );
        let count = |t: u8| msgs.iter().filter(|m| m.1 == t).count();
        let (syncs, fups, reqs, resps, anns) = (count(0), count(8), count(1), count(9), count(0xb));
        assert!(
            syncs >= 39 && fups == syncs,
            "{syncs} Sync, {fups} Follow_Up"
        );
        assert!(
            reqs >= 30 && resps == reqs,
            "{reqs} Delay_Req, {resps} Delay_Resp"
        );
        assert!(anns >= 19, "{anns} Announce");
        // Follow_Up carries the card's departure stamp of its Sync: the time the wire model saw
        // the Sync start (pcap time, on the master's PHC), within a cycle or two
        for m in msgs.iter().filter(|m| m.1 == 8) {
            let s = msgs
                .iter()
                .find(|s| s.1 == 0 && s.2 == m.2)
                .expect("its Sync");
            let d = m.3 as i64 - s.0 as i64;
            assert!(
                (0..=8).contains(&d),
                "Follow_Up {}: stamp - wire start = {d} ns",
                m.2
            );
        }
        // Delay_Resp carries the master card's arrival stamp of the Delay_Req: wire start plus the
        // wire delay plus the fixed RX stamp latency (preamble and first bus word, 12.8 ns at 10G)
        for m in msgs.iter().filter(|m| m.1 == 9) {
            let q = msgs
                .iter()
                .find(|s| s.1 == 1 && s.2 == m.2)
                .expect("its Delay_Req");
            let d = m.3 as i64 - q.0 as i64 - 1235;
            assert!(
                (8..=24).contains(&d),
                "Delay_Resp {}: stamp - arrival = {d} ns",
                m.2
            );
        }
    }
}

#[test]
fn asymmetry_moves_the_slave_by_half_of_it_and_ptp_does_not_see_it() {
    // 1434.567 ns to the slave, 1034.567 ns back: the slave takes 1234.567 ns each way and
    // settles 200 ns behind the master while its own offsets say 0
    let r = pair(PairConfig {
        seconds: 40,
        slave_ppb: 50_000.0,
        delay_ms_ps: 1_434_567,
        delay_sm_ps: 1_034_567,
        slave_role: Role::Auto,
        ..PairConfig::default()
    });
    let tail = &r.true_offset_ns[20..];
    let mean = tail.iter().sum::<f64>() / tail.len() as f64;
    assert!((mean + 200.0).abs() < 3.0, "mean true offset {mean} ns");
    let seen = r.servo_offsets_ns[15..]
        .iter()
        .map(|o| o.abs())
        .max()
        .unwrap();
    assert!(seen <= 8, "the servo's own offsets stay small: {seen}");
    assert_eq!(r.lock_s, None, "200 ns off true time is not locked");
}

#[test]
fn one_step_syncs_leave_at_their_origin_timestamp() {
    let r = pair(PairConfig {
        seconds: 30,
        one_step: true,
        slave_ppb: -100_000.0,
        record: true,
        ..PairConfig::default()
    });
    assert_eq!(r.slave_state, Some(PortState::Slave));
    assert!(
        r.one_step_syncs >= 29,
        "{} one-step Syncs",
        r.one_step_syncs
    );
    assert_eq!(r.one_step_misses, 0, "departure stamp != originTimestamp");
    assert!(
        r.max_ns > 0.0 && r.max_ns <= 8.0,
        "max |offset| {} ns",
        r.max_ns
    );
    // no Follow_Up on the wire, and no Sync with the twoStepFlag (octet 6, bit 1)
    assert!(r.wire.iter().all(|(_, f)| f[14] & 0xf != 8));
    let syncs: Vec<_> = r.wire.iter().filter(|(_, f)| f[14] & 0xf == 0).collect();
    assert!(syncs.len() >= 29 && syncs.iter().all(|(_, f)| f[14 + 6] & 0x02 == 0));
}
