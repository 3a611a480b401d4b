//! The best master clock algorithm for one domain and one port (IEEE 1588-2019 9.3): the data set
//! comparison of figures 34 and 35 and the state decision of figure 33 for an ordinary clock.

use std::cmp::Ordering;

use super::msg::{Announce, ClockQuality, PortIdentity};

/// What a data set comparison needs of a clock (own: D0; foreign: an Announce and its sender).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Dataset {
    /// grandmasterPriority1.
    pub priority1: u8,
    /// grandmasterIdentity.
    pub gm_identity: [u8; 8],
    /// grandmasterClockQuality.
    pub quality: ClockQuality,
    /// grandmasterPriority2.
    pub priority2: u8,
    /// stepsRemoved.
    pub steps_removed: u16,
    /// Identity of the port the data set came from (own: this port).
    pub sender: PortIdentity,
    /// Identity of the port that received it (own: this port).
    pub receiver: PortIdentity,
}

impl Dataset {
    /// The data set of a received Announce.
    pub fn from_announce(a: &Announce, sender: PortIdentity, receiver: PortIdentity) -> Self {
        Dataset {
            priority1: a.gm_priority1,
            gm_identity: a.gm_identity,
            quality: a.gm_quality,
            priority2: a.gm_priority2,
            steps_removed: a.steps_removed,
            sender,
            receiver,
        }
    }
}

/// Compare `a` with `b`: `Less` when `a` is the better master (figures 34 and 35). Two data sets of
/// the same grandmaster are ordered by stepsRemoved (more than one apart: the fewer wins; one apart:
/// the nearer wins unless its receiver is the other's sender, a loop), then by the sender's
/// identity, then the receiver's portNumber.
pub fn compare(a: &Dataset, b: &Dataset) -> Ordering {
    if a.gm_identity != b.gm_identity {
        return a
            .priority1
            .cmp(&b.priority1)
            .then(a.quality.class.cmp(&b.quality.class))
            .then(a.quality.accuracy.cmp(&b.quality.accuracy))
            .then(a.quality.variance.cmp(&b.quality.variance))
            .then(a.priority2.cmp(&b.priority2))
            .then(a.gm_identity.cmp(&b.gm_identity));
    }
    // figure 35: the same grandmaster
    let (sa, sb) = (u32::from(a.steps_removed), u32::from(b.steps_removed));
    if sa > sb + 1 {
        return Ordering::Greater;
    }
    if sb > sa + 1 {
        return Ordering::Less;
    }
    if sa > sb {
        // a is one step further: b wins unless b came through a's own port (error-1 case: b better)
        return Ordering::Greater;
    }
    if sb > sa {
        return Ordering::Less;
    }
    a.sender
        .cmp(&b.sender)
        .then(a.receiver.port.cmp(&b.receiver.port))
}

/// The recommended state of the port (figure 33, ordinary clock, one port).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Decision {
    /// No foreign master and slave-only: keep listening.
    Listening,
    /// Be the master (M1 or M2).
    Master,
    /// A better master exists and this clock is class 1..127: passive (P1).
    Passive,
    /// Follow the best foreign master (S1).
    Slave,
}

/// Figure 33 for an ordinary clock with one port: `d0` is this clock's default data set, `ebest` the
/// best qualified foreign master's (if any). `slave_only` clocks never become master.
pub fn decide(d0: &Dataset, ebest: Option<&Dataset>, slave_only: bool) -> Decision {
    let Some(e) = ebest else {
        return if slave_only {
            Decision::Listening
        } else {
            Decision::Master
        };
    };
    if slave_only {
        return Decision::Slave;
    }
    let d0_better = compare(d0, e) == Ordering::Less;
    if (1..=127).contains(&d0.quality.class) {
        return if d0_better {
            Decision::Master
        } else {
            Decision::Passive
        };
    }
    if d0_better {
        Decision::Master
    } else {
        Decision::Slave
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ds(p1: u8, class: u8, id: u8) -> Dataset {
        let pid = PortIdentity {
            clock: [id; 8],
            port: 1,
        };
        Dataset {
            priority1: p1,
            gm_identity: [id; 8],
            quality: ClockQuality {
                class,
                accuracy: 0xfe,
                variance: 0xffff,
            },
            priority2: 128,
            steps_removed: 0,
            sender: pid,
            receiver: pid,
        }
    }

    #[test]
    fn attributes_are_compared_in_the_standards_order() {
        assert_eq!(compare(&ds(127, 248, 9), &ds(128, 6, 1)), Ordering::Less);
        assert_eq!(compare(&ds(128, 6, 9), &ds(128, 248, 1)), Ordering::Less);
        let mut a = ds(128, 248, 9);
        a.quality.accuracy = 0x20;
        assert_eq!(compare(&a, &ds(128, 248, 1)), Ordering::Less);
        let mut a = ds(128, 248, 9);
        a.quality.variance = 0x4000;
        assert_eq!(compare(&a, &ds(128, 248, 1)), Ordering::Less);
        let mut a = ds(128, 248, 9);
        a.priority2 = 1;
        assert_eq!(compare(&a, &ds(128, 248, 1)), Ordering::Less);
        assert_eq!(compare(&ds(128, 248, 1), &ds(128, 248, 2)), Ordering::Less);
        // the same grandmaster: fewer steps removed wins
        let mut far = ds(128, 248, 1);
        far.steps_removed = 3;
        assert_eq!(compare(&ds(128, 248, 1), &far), Ordering::Less);
        assert_eq!(compare(&far, &ds(128, 248, 1)), Ordering::Greater);
    }

    #[test]
    fn state_decision_of_an_ordinary_clock() {
        let me = ds(128, 248, 5);
        assert_eq!(decide(&me, None, false), Decision::Master);
        assert_eq!(decide(&me, None, true), Decision::Listening);
        assert_eq!(decide(&me, Some(&ds(128, 248, 1)), false), Decision::Slave);
        assert_eq!(decide(&me, Some(&ds(128, 248, 9)), false), Decision::Master);
        assert_eq!(decide(&me, Some(&ds(128, 248, 9)), true), Decision::Slave);
        let gm = ds(128, 6, 5);
        assert_eq!(decide(&gm, Some(&ds(1, 6, 1)), false), Decision::Passive);
        assert_eq!(decide(&gm, Some(&ds(128, 7, 1)), false), Decision::Master);
    }
}
