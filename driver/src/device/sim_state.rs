//! Where the simulated card's state lives between commands, and who may use it.
//!
//! - **Which file**: `--backend sim:state=PATH` names it; `sim:state=none` (or `TSNIC_SIM_STATE=none`)
//!   keeps nothing (a fresh card each command); otherwise `TSNIC_SIM_STATE=PATH` if set, else
//!   `sim-w64.state` / `sim-w512.state` (one card per configuration) in `$XDG_RUNTIME_DIR/tsnic`
//!   (cleared at logout or reboot, as a real card loses its state at power-off), else
//!   `$XDG_CACHE_HOME/tsnic`, `~/.cache/tsnic`, or the temp directory.
//! - **One command at a time**: a command holds an exclusive `flock` on `PATH.lock` from opening the
//!   card until it exits (the kernel drops it even on a crash). A second command fails at once, naming
//!   the holder's pid, as a second process opening a VFIO device gets EBUSY.
//! - **Atomic writes**: the state is written to `PATH.tmp` and renamed over `PATH`, so a command
//!   killed at any point leaves the last complete state (or none).

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, Write};
use std::path::{Path, PathBuf};

use super::DeviceError;

/// Environment variable that chooses the state file (a path, or `none`) when the spec does not.
pub const ENV: &str = "TSNIC_SIM_STATE";

/// Which state a simulated card uses.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum StateChoice {
    /// `TSNIC_SIM_STATE` if set, else the default file for the configuration.
    #[default]
    Default,
    /// This file.
    Path(PathBuf),
    /// Keep nothing: a fresh card, forgotten at exit.
    None,
}

impl StateChoice {
    /// Parse the value of `state=` or of `TSNIC_SIM_STATE`: `none`, or a path.
    pub fn parse(s: &str) -> Result<StateChoice, String> {
        match s {
            "" => Err("`state=` needs a file, or `none`".into()),
            "none" => Ok(StateChoice::None),
            p => Ok(StateChoice::Path(PathBuf::from(p))),
        }
    }

    /// The file to use for a card of `width_bits`, or `None` for no persistence.
    pub fn resolve(&self, card: &str) -> Result<Option<PathBuf>, DeviceError> {
        match self {
            StateChoice::None => Ok(None),
            StateChoice::Path(p) => Ok(Some(p.clone())),
            StateChoice::Default => match std::env::var_os(ENV) {
                Some(v) => match StateChoice::parse(&v.to_string_lossy()).map_err(|why| {
                    DeviceError::BadSimOptions {
                        spec: format!("{ENV}={}", v.to_string_lossy()),
                        why,
                    }
                })? {
                    StateChoice::Path(p) => Ok(Some(p)),
                    _ => Ok(None),
                },
                None => {
                    // The default folder is tsnic's own: made here. A folder the user named must
                    // exist already (a typo would otherwise make folders, anywhere).
                    let dir = default_dir();
                    fs::create_dir_all(&dir)
                        .map_err(|e| state_err(&dir, format!("cannot create the folder: {e}")))?;
                    Ok(Some(dir.join(format!("sim-{card}.state"))))
                }
            },
        }
    }
}

/// The name of a simulated card's configuration in its default state file (`sim-NAME.state`): each
/// configuration keeps its own card (`w64`, `w64-small`, `w512`).
pub fn card_name(width_bits: usize, small: bool) -> String {
    format!("w{width_bits}{}", if small { "-small" } else { "" })
}

/// The default directory for state files.
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

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// The lock file beside a state file.
pub fn lock_path(state: &Path) -> PathBuf {
    with_suffix(state, ".lock")
}

fn state_err(path: &Path, why: impl std::fmt::Display) -> DeviceError {
    DeviceError::SimState {
        path: path.display().to_string(),
        why: why.to_string(),
    }
}

/// An exclusive hold on a state file, released when dropped or when the process ends.
#[derive(Debug)]
pub struct StateLock {
    _file: Option<File>,
    read_only: bool,
}

impl StateLock {
    /// Take the lock beside `state` (creating the lock file; the folder must exist), or fail at once
    /// with [`DeviceError::SimStateBusy`] if another process holds it.
    pub fn acquire(state: &Path) -> Result<StateLock, DeviceError> {
        // no lock file is made beside a device or FIFO (`/dev/null.lock`)
        if let Some(e) = not_a_file(state) {
            return Err(e);
        }
        if let Some(dir) = state.parent().filter(|d| !d.as_os_str().is_empty()) {
            if !dir.is_dir() {
                return Err(DeviceError::SimStateNoFolder {
                    path: state.display().to_string(),
                    dir: dir.display().to_string(),
                });
            }
        }
        let lp = lock_path(state);
        let mut file = match OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&lp)
        {
            Ok(f) => f,
            // A folder this user cannot write (or a read-only file system): the card there can be
            // read, not saved. Lock the lock file read-only if there is one (flock needs no write
            // access); without one there is nobody to exclude who could write here either.
            Err(e)
                if e.kind() == io::ErrorKind::PermissionDenied
                    || e.raw_os_error() == Some(libc::EROFS) =>
            {
                return match File::open(&lp) {
                    Ok(f) => match try_flock(&f) {
                        Ok(true) => Ok(StateLock {
                            _file: Some(f),
                            read_only: true,
                        }),
                        Ok(false) => Err(DeviceError::SimStateBusy {
                            path: state.display().to_string(),
                            holder: "another process".into(),
                        }),
                        Err(e) => Err(state_err(
                            state,
                            format!("cannot lock {}: {e}", lp.display()),
                        )),
                    },
                    Err(_) => Ok(StateLock {
                        _file: None,
                        read_only: true,
                    }),
                };
            }
            Err(e) => {
                return Err(state_err(
                    state,
                    format!("cannot open the lock {}: {e}", lp.display()),
                ))
            }
        };
        if !try_flock(&file)
            .map_err(|e| state_err(state, format!("cannot lock {}: {e}", lp.display())))?
        {
            let mut pid = String::new();
            let _ = file.read_to_string(&mut pid);
            return Err(DeviceError::SimStateBusy {
                path: state.display().to_string(),
                holder: match pid.trim() {
                    "" => "another process".to_string(),
                    p => format!("pid {p}"),
                },
            });
        }
        // Who holds it, for the message a second command prints.
        let _ = file.set_len(0);
        let _ = file.rewind();
        let _ = write!(file, "{}", std::process::id());
        let _ = file.flush();
        Ok(StateLock {
            _file: Some(file),
            read_only: false,
        })
    }

    /// True when the state's folder is not writable by this process: the card there can be read
    /// and used, not saved.
    pub fn read_only(&self) -> bool {
        self.read_only
    }
}

/// `flock(LOCK_EX | LOCK_NB)`: Ok(true) when taken, Ok(false) when another holder has it.
fn try_flock(file: &File) -> io::Result<bool> {
    use std::os::unix::io::AsRawFd;
    // SAFETY: `flock` only takes a file descriptor, which is open for as long as `file` lives (the
    // whole call); it touches no memory of ours.
    let r = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if r == 0 {
        return Ok(true);
    }
    let e = io::Error::last_os_error();
    if e.raw_os_error() == Some(libc::EWOULDBLOCK) {
        Ok(false)
    } else {
        Err(e)
    }
}

/// A device, FIFO or socket where a state file should be: reading a FIFO would wait forever,
/// and a device (`/dev/null`) must never be replaced or removed.
fn not_a_file(path: &Path) -> Option<DeviceError> {
    let md = fs::metadata(path).ok()?;
    (!md.is_file() && !md.is_dir()).then(|| {
        state_err(
            path,
            "it is not a regular file (a device, FIFO or socket), so it is neither read nor changed: point TSNIC_SIM_STATE or `--backend sim:state=PATH` at a file",
        )
    })
}

/// Read a state file: `Ok(None)` if there is none.
pub fn read(path: &Path) -> Result<Option<Vec<u8>>, DeviceError> {
    if let Some(e) = not_a_file(path) {
        return Err(e);
    }
    match fs::read(path) {
        Ok(b) => Ok(Some(b)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(state_err(path, format!("cannot read it: {e}"))),
    }
}

/// Write `bytes` to `path` atomically: `PATH.tmp`, then rename over `PATH`.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), DeviceError> {
    let tmp = with_suffix(path, ".tmp");
    let write = || -> io::Result<()> {
        let mut f = File::create(&tmp)?;
        f.write_all(bytes)?;
        // No fsync: it cost about 8 ms a command here. A rename is atomic for every process; only an
        // OS crash could leave a short file, which the next command refuses as truncated (and a
        // machine crash is a power cycle anyway).
        fs::rename(&tmp, path)
    };
    write().map_err(|e| {
        let _ = fs::remove_file(&tmp);
        state_err(path, format!("cannot save the card's state: {e}"))
    })
}

/// The first bytes of every saved card (`tsnic_sim::state::MAGIC`).
pub const MAGIC: &[u8; 8] = b"TSNICSIM";

/// Remove a state file (power-cycle the card it holds). `Ok(false)` if there was none. A file that
/// is not a saved card (no [`MAGIC`]: a trace, a capture, a wrong path) is refused and kept: it
/// is not ours to delete. An empty one holds nothing and is removed.
pub fn remove(path: &Path) -> Result<bool, DeviceError> {
    if let Some(e) = not_a_file(path) {
        return Err(e);
    }
    let mut head = Vec::with_capacity(MAGIC.len());
    match File::open(path) {
        Ok(f) => {
            let _ = f.take(MAGIC.len() as u64).read_to_end(&mut head);
            if !head.is_empty() && head != MAGIC {
                return Err(DeviceError::SimStateNotACard {
                    path: path.display().to_string(),
                });
            }
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(_) => {} // a folder, no permission: remove_file below says why
    }
    let _ = fs::remove_file(with_suffix(path, ".tmp"));
    match fs::remove_file(path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(state_err(path, format!("cannot remove it: {e}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmpdir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("tsnic-state-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        d
    }

    #[cfg(feature = "sim")]
    #[test]
    fn magic_is_the_simulators() {
        assert_eq!(MAGIC, tsnic_sim::state::MAGIC);
    }

    #[test]
    fn choices_parse_and_resolve() {
        assert_eq!(StateChoice::parse("none"), Ok(StateChoice::None));
        assert!(StateChoice::parse("").is_err());
        assert_eq!(
            StateChoice::parse("/x/y").unwrap().resolve("w64").unwrap(),
            Some(PathBuf::from("/x/y"))
        );
        assert_eq!(StateChoice::None.resolve("w512").unwrap(), None);
    }

    #[test]
    fn one_holder_at_a_time_and_atomic_writes() {
        let d = tmpdir("lock");
        let p = d.join("sub").join("card.state");
        // a folder that does not exist is not made: it is refused, naming it
        match StateLock::acquire(&p) {
            Err(DeviceError::SimStateNoFolder { dir, .. }) => {
                assert_eq!(dir, d.join("sub").display().to_string())
            }
            other => panic!("{other:?}"),
        }
        assert!(!d.exists());
        fs::create_dir_all(d.join("sub")).unwrap();
        let held = StateLock::acquire(&p).unwrap();
        // flock locks belong to the open file: a second open in this process conflicts too.
        match StateLock::acquire(&p) {
            Err(DeviceError::SimStateBusy { holder, .. }) => {
                assert_eq!(holder, format!("pid {}", std::process::id()))
            }
            other => panic!("{other:?}"),
        }
        drop(held);
        let _again = StateLock::acquire(&p).unwrap();
        assert_eq!(read(&p).unwrap(), None);
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(read(&p).unwrap().as_deref(), Some(&b"two"[..]));
        assert!(!with_suffix(&p, ".tmp").exists());
        // not a saved card: kept
        assert!(matches!(
            remove(&p),
            Err(DeviceError::SimStateNotACard { .. })
        ));
        assert_eq!(read(&p).unwrap().as_deref(), Some(&b"two"[..]));
        write_atomic(&p, b"TSNICSIM and the rest").unwrap();
        assert!(remove(&p).unwrap());
        assert!(!remove(&p).unwrap());
        let _ = fs::remove_dir_all(&d);
    }
}
