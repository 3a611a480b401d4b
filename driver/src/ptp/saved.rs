//! What a PTP slave leaves for the next command on the same card (docs/PTP.md, "Between
//! commands"): its [`Memory`] (foreign masters, parent, servo, path delay) with the card's PHC as
//! it was when the clock stopped, in a JSON file beside the card:
//!
//! - a simulated card kept between commands: `STATE.ptp.json` beside its state file (gone with it;
//!   a fresh card, `sim:state=none`, keeps nothing);
//! - any other card: `ptp-<backend spec>.json` in the simulated card's default folder
//!   (`$XDG_RUNTIME_DIR/tsnic`, cleared at logout or reboot, as the card's PHC is at power-off).
//!
//! The next clock takes it only if it is the same clock on the same PHC, untouched since: the
//! same MAC, domain and transport; the PHC's step counter (PHC_STEP_COUNT) and trim unchanged (no
//! `tsnic phc set|adj|sync`, no card reset); the PHC not behind the time saved; and the parent's
//! announce receipt timeout not passed. Otherwise it starts afresh and says why. A slave that
//! stops without a parent removes the file, so no later clock resumes an older master.

use std::path::{Path, PathBuf};

use thiserror::Error;

use super::clock::{Config, Memory};
use crate::device::{Backend, Card};
use crate::phc;

/// File format version.
pub const VERSION: u32 = 1;

/// The file's content.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Saved {
    /// [`VERSION`].
    pub version: u32,
    /// The clock's MAC (its clockIdentity).
    pub mac: [u8; 6],
    /// Its domain.
    pub domain: u8,
    /// Its transport (`L2`, `Udp4`).
    pub transport: String,
    /// The PHC when it was saved, ns.
    pub phc_ns: u64,
    /// PHC_STEP_COUNT then.
    pub phc_steps: u32,
    /// PHC_ADJFINE_PPB then.
    pub phc_ppb: i64,
    /// The clock's memory.
    pub clock: Memory,
}

/// Why a saved state was not used or not written.
#[derive(Debug, Error)]
pub enum SavedError {
    /// The file could not be read or written.
    #[error("{path}: {why}")]
    Io {
        /// The file.
        path: String,
        /// What failed.
        why: String,
    },
    /// The file is not a saved clock of this version.
    #[error("{path} is not a saved PTP clock of this tsnic ({why}); delete it (the clock then starts afresh)")]
    Bad {
        /// The file.
        path: String,
        /// What is wrong.
        why: String,
    },
    /// Saved by another clock, or the PHC changed since.
    #[error("not resumed: {0}")]
    Stale(String),
}

/// The file for the card opened as `spec` (None: a fresh simulated card, which keeps nothing).
pub fn path_for(card: &mut Card, spec: &str) -> Option<PathBuf> {
    let b = card.backend();
    if let Some(state) = b.saved_state_path() {
        let mut s = state.into_os_string();
        s.push(".ptp.json");
        return Some(PathBuf::from(s));
    }
    if b.sim_time_ns().is_some() {
        return None;
    }
    let name: String = spec
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    Some(default_dir().join(format!("ptp-{name}.json")))
}

/// `$XDG_RUNTIME_DIR/tsnic`, else `$XDG_CACHE_HOME/tsnic`, `~/.cache/tsnic`, or the temp
/// directory's `tsnic` (the simulated card's default folder too).
pub fn default_dir() -> PathBuf {
    let env_dir = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(d) = env_dir("XDG_RUNTIME_DIR") {
        return d.join("tsnic");
    }
    if let Some(d) = env_dir("XDG_CACHE_HOME") {
        return d.join("tsnic");
    }
    if let Some(d) = env_dir("HOME") {
        return d.join(".cache").join("tsnic");
    }
    std::env::temp_dir().join("tsnic")
}

impl Saved {
    /// What `clock` (with configuration `cfg`) leaves on the card `b` now (None: not following a
    /// parent).
    pub fn of(b: &mut dyn Backend, cfg: &Config, clock: Option<Memory>) -> Option<Saved> {
        let clock = clock?;
        Some(Saved {
            version: VERSION,
            mac: cfg.addr.mac,
            domain: cfg.domain,
            transport: format!("{:?}", cfg.transport),
            phc_ns: phc::get_ns(b),
            phc_steps: phc::step_count(b),
            phc_ppb: phc::freq(b),
            clock,
        })
    }

    /// Whether a clock of `cfg` may resume this on the card `b` now: the same clock, the PHC
    /// untouched since it was saved.
    pub fn check(&self, b: &mut dyn Backend, cfg: &Config) -> Result<(), SavedError> {
        let stale = |s: String| Err(SavedError::Stale(s));
        if self.mac != cfg.addr.mac
            || self.domain != cfg.domain
            || self.transport != format!("{:?}", cfg.transport)
        {
            return stale(format!(
                "saved by another clock (MAC {:02x?}, domain {}, {}); this one is MAC {:02x?}, domain {}, {:?}",
                self.mac, self.domain, self.transport, cfg.addr.mac, cfg.domain, cfg.transport
            ));
        }
        let steps = phc::step_count(b);
        if steps != self.phc_steps {
            return stale(format!(
                "the PHC was set or stepped since it was saved (step count {} then, {steps} now)",
                self.phc_steps
            ));
        }
        let ppb = phc::freq(b);
        if ppb != self.phc_ppb {
            return stale(format!(
                "the PHC's trim changed since it was saved ({} ppb then, {ppb} now)",
                self.phc_ppb
            ));
        }
        let now = phc::get_ns(b);
        if now < self.phc_ns {
            return stale(format!(
                "the PHC reads {now} ns, before the {} ns it was saved at (the card was reset)",
                self.phc_ns
            ));
        }
        Ok(())
    }
}

/// Read the saved clock at `path` (None: no file).
pub fn load(path: &Path) -> Result<Option<Saved>, SavedError> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(SavedError::Io {
                path: path.display().to_string(),
                why: format!("cannot read it: {e}"),
            })
        }
    };
    let s: Saved = serde_json::from_slice(&bytes).map_err(|e| SavedError::Bad {
        path: path.display().to_string(),
        why: e.to_string(),
    })?;
    if s.version != VERSION {
        return Err(SavedError::Bad {
            path: path.display().to_string(),
            why: format!("version {}, this tsnic writes {VERSION}", s.version),
        });
    }
    Ok(Some(s))
}

/// Write `saved` to `path` (atomically), or remove the file when there is nothing to keep.
pub fn store(path: &Path, saved: Option<&Saved>) -> Result<(), SavedError> {
    let io = |why: String| SavedError::Io {
        path: path.display().to_string(),
        why,
    };
    match saved {
        Some(s) => {
            let bytes = serde_json::to_vec_pretty(s).map_err(|e| io(e.to_string()))?;
            if let Some(d) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(d)
                    .map_err(|e| io(format!("cannot create its folder: {e}")))?;
            }
            // written beside it and renamed over it: a command killed meanwhile leaves the old one
            let mut tmp = path.as_os_str().to_owned();
            tmp.push(".tmp");
            std::fs::write(&tmp, &bytes).map_err(|e| io(format!("cannot write it: {e}")))?;
            std::fs::rename(&tmp, path).map_err(|e| io(format!("cannot write it: {e}")))
        }
        None => match std::fs::remove_file(path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(io(format!("cannot remove it: {e}"))),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_files_are_errors_that_name_the_fix() {
        let dir = std::env::temp_dir().join(format!("tsnic-saved-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("x.ptp.json");
        assert!(load(&p).unwrap().is_none(), "no file: nothing to resume");
        for bad in [&b"{"[..], b"[]", b"{\"version\": 1}", b"\xff\xfe"] {
            std::fs::write(&p, bad).unwrap();
            let e = load(&p).unwrap_err().to_string();
            assert!(e.contains("delete it"), "{e}");
        }
        store(&p, None).unwrap();
        assert!(!p.exists());
        store(&p, None).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
    }
}
