//! PTP against linuxptp (issue 33 item 4): the clock on a simulated card paced to wall time and
//! ptp4l (software stamps) in a network namespace behind a TAP device, both ways. Needs root,
//! /dev/net/tun, network namespaces and ptp4l (`make deps` installs linuxptp); if any is missing
//! the test FAILS, naming it: it never passes without having run.
//!
//! The offsets are limited by Linux's software stamps and by this process's scheduling (on a
//! loaded 2-core machine it loses the CPU for whole 4 ms ticks: frames then cross milliseconds
//! late), so the bound on them is loose: the median |offset| of the second half under 20 ms (a
//! wrong time scale, e.g. a missed UTC offset, is 37 s; a clock that does not follow drifts
//! away); the figures are in docs/PTP.md. What must hold exactly: the roles (ptp4l selects our
//! clock as its master, or ours selects ptp4l's), offsets reported, and every frame that
//! crossed is PTP that tshark dissects without an error.

use std::path::Path;
use std::process::Command;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use tsnic::capture::PcapNgOut;
use tsnic::ptp::linux::{run, LinuxConfig, LinuxResult};
use tsnic::ptp::{PortState, Role, Transport};

static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn go(role: Role, transport: Transport) -> LinuxResult {
    let _g = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let cfg = LinuxConfig {
        our_role: role,
        transport,
        seconds: 12,
        log_sync: -2,
        log_announce: -1,
    };
    let r = run(&cfg, Arc::new(AtomicBool::new(false)), |x| {
        if let Err(l) = x {
            eprintln!("{l}");
        }
    })
    .unwrap_or_else(|e| panic!("{e}"));
    eprintln!(
        "{role:?} {transport:?}: {:?} lag p50/p99/max {:?} ns, ours {:?}, ptp4l {:?}",
        r.our_state, r.lag_ns, r.our_offsets_ns, r.ptp4l_offsets_ns
    );
    assert!(
        !Command::new("ip")
            .args(["netns", "list"])
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).contains("tsnptp"))
            .unwrap_or(false),
        "a namespace was left behind"
    );
    r
}

fn median_abs_second_half(v: &[i64]) -> u64 {
    let mut t: Vec<u64> = v[v.len() / 2..].iter().map(|o| o.unsigned_abs()).collect();
    t.sort_unstable();
    t[t.len() / 2]
}

/// tshark on the frames that crossed: (packets with an error or malformed, PTP message types).
fn tshark(r: &LinuxResult, name: &str) -> (usize, Vec<u8>) {
    let p = std::env::temp_dir().join(format!(
        "tsnic-linux-ptp-{}-{name}.pcapng",
        std::process::id()
    ));
    // removed also when an assertion below fails
    struct Remove<'a>(&'a Path);
    impl Drop for Remove<'_> {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(self.0);
        }
    }
    let _remove = Remove(&p);
    let mut w = PcapNgOut::create(&p).unwrap();
    for (ts, f) in &r.wire {
        w.write(*ts, f).unwrap();
    }
    w.finish().unwrap();
    let q = |args: &[&str]| {
        let o = Command::new("tshark")
            .args(["-n", "-r"])
            .arg(&p)
            .args(args)
            .output()
            .expect("tshark (make deps)");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let bad = q(&[
        "-o",
        "ip.check_checksum:TRUE",
        "-o",
        "udp.check_checksum:TRUE",
        "-Y",
        "_ws.malformed || _ws.expert.severity >= \"error\"",
    ]);
    let types = q(&["-Y", "ptp", "-T", "fields", "-e", "ptp.v2.messagetype"]);
    let mut t: Vec<u8> = types
        .lines()
        .map(|l| u8::from_str_radix(l.trim_start_matches("0x"), 16).unwrap())
        .collect();
    t.sort_unstable();
    t.dedup();
    (bad.lines().filter(|l| !l.trim().is_empty()).count(), t)
}

#[test]
fn our_slave_follows_ptp4l() {
    let r = go(Role::Slave, Transport::L2);
    assert_eq!(r.our_state, Some(PortState::Slave));
    assert!(
        r.our_offsets_ns.len() >= 20,
        "{} samples",
        r.our_offsets_ns.len()
    );
    let m = median_abs_second_half(&r.our_offsets_ns);
    assert!(m < 20_000_000, "median |offset| {m} ns");
    assert!(r
        .ptp4l_lines
        .iter()
        .any(|l| l.contains("assuming the grand master role")));
    let (bad, types) = tshark(&r, "slave");
    assert_eq!(bad, 0, "tshark found errors");
    assert_eq!(
        types,
        vec![0, 1, 8, 9, 0xb],
        "Sync, Delay_Req, Follow_Up, Delay_Resp, Announce"
    );
}

#[test]
fn ptp4l_follows_our_master_over_udp() {
    let r = go(Role::Master, Transport::Udp4);
    assert_eq!(r.our_state, Some(PortState::Master));
    assert!(
        r.ptp4l_lines
            .iter()
            .any(|l| l.contains("selected best master clock 027473.fffe.6e6901")),
        "ptp4l did not select our clock: {:?}",
        r.ptp4l_lines
    );
    assert!(
        r.ptp4l_offsets_ns.len() >= 3,
        "{} ptp4l samples",
        r.ptp4l_offsets_ns.len()
    );
    let m = median_abs_second_half(&r.ptp4l_offsets_ns);
    assert!(m < 20_000_000, "median |offset| ptp4l saw {m} ns");
    let (bad, types) = tshark(&r, "master");
    assert_eq!(bad, 0, "tshark found errors");
    assert_eq!(
        types,
        vec![0, 1, 8, 9, 0xb],
        "Sync, Delay_Req, Follow_Up, Delay_Resp, Announce"
    );
}
