//! The system-call backend of `--peer linux`: the TAP device (open /dev/net/tun, TUNSETIFF),
//! waiting on it with a nanosecond timeout (ppoll), and the two socket options std does not
//! offer (SO_RCVBUF on a listener, TCP_INFO, TCP_CONGESTION). All `unsafe` of the peer code
//! lives here, each block with its `// SAFETY:` argument.

use std::ffi::CString;
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::fs::OpenOptionsExt;

/// TUNSETIFF = _IOW('T', 202, int) (linux/if_tun.h).
const TUNSETIFF: libc::c_ulong = 0x4004_54ca;
const IFF_TAP: libc::c_short = 0x0002;
const IFF_NO_PI: libc::c_short = 0x1000;

/// `struct ifreq` as TUNSETIFF reads it: the name, then the flags (the union is 24 bytes).
#[repr(C)]
struct IfReqFlags {
    name: [libc::c_char; libc::IFNAMSIZ],
    flags: libc::c_short,
    _pad: [u8; 22],
}

/// A TAP device opened by this process. Not persistent: the kernel removes the device when
/// this handle (the last open file) is dropped, wherever the device has been moved to.
#[derive(Debug)]
pub struct Tap {
    file: File,
    name: String,
}

impl Tap {
    /// Create TAP device `name` (at most 15 bytes), without packet-information header.
    pub fn create(name: &str) -> io::Result<Tap> {
        if name.is_empty() || name.len() >= libc::IFNAMSIZ || name.contains('\0') {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("TAP name `{name}` must be 1..=15 bytes"),
            ));
        }
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
            .open("/dev/net/tun")?;
        let mut req = IfReqFlags {
            name: [0; libc::IFNAMSIZ],
            flags: IFF_TAP | IFF_NO_PI,
            _pad: [0; 22],
        };
        for (d, s) in req.name.iter_mut().zip(name.bytes()) {
            *d = s as libc::c_char;
        }
        // SAFETY: the fd is an open /dev/net/tun file; TUNSETIFF reads (and may write back the
        // name into) a struct ifreq, and `req` is a properly sized, initialised, exclusively
        // borrowed ifreq-layout struct that outlives the call.
        let rc = unsafe { libc::ioctl(file.as_raw_fd(), TUNSETIFF as _, &mut req) };
        if rc < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(Tap {
            file,
            name: name.to_string(),
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Hand one Ethernet frame (without FCS) to the kernel, as if it arrived on the device.
    pub fn send(&self, frame: &[u8]) -> io::Result<()> {
        let n = (&self.file).write(frame)?;
        if n != frame.len() {
            return Err(io::Error::new(
                io::ErrorKind::WriteZero,
                format!("TAP took {n} of {} bytes", frame.len()),
            ));
        }
        Ok(())
    }

    /// One frame the kernel sent out of the device, if any is waiting (non-blocking).
    pub fn recv(&self, buf: &mut [u8]) -> io::Result<Option<usize>> {
        match (&self.file).read(buf) {
            Ok(n) => Ok(Some(n)),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(None),
            Err(e) => Err(e),
        }
    }

    pub fn raw_fd(&self) -> RawFd {
        self.file.as_raw_fd()
    }
}

/// Wait until one of `fds` is readable or `timeout_ns` passed (ppoll: ns resolution).
/// Returns whether something is readable. EINTR counts as "nothing readable".
pub fn wait_readable(fds: &[RawFd], timeout_ns: u64) -> io::Result<bool> {
    let mut p: Vec<libc::pollfd> = fds
        .iter()
        .map(|&fd| libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    let ts = libc::timespec {
        tv_sec: (timeout_ns / 1_000_000_000) as libc::time_t,
        tv_nsec: (timeout_ns % 1_000_000_000) as libc::c_long,
    };
    // SAFETY: `p` is a valid array of p.len() pollfd structs that lives across the call, `ts`
    // is a valid timespec, and a null signal mask means "leave the mask alone".
    let rc = unsafe { libc::ppoll(p.as_mut_ptr(), p.len() as _, &ts, std::ptr::null()) };
    if rc < 0 {
        let e = io::Error::last_os_error();
        if e.kind() == io::ErrorKind::Interrupted {
            return Ok(false);
        }
        return Err(e);
    }
    Ok(rc > 0)
}

fn setsockopt_bytes(fd: RawFd, level: i32, opt: i32, val: &[u8]) -> io::Result<()> {
    // SAFETY: `val` is a live byte slice of the given length; the kernel copies it in.
    let rc = unsafe {
        libc::setsockopt(
            fd,
            level,
            opt,
            val.as_ptr().cast(),
            val.len() as libc::socklen_t,
        )
    };
    if rc < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// SO_RCVBUF (the kernel doubles the value for its bookkeeping, as setsockopt(7) says).
pub fn set_rcvbuf(fd: RawFd, bytes: u32) -> io::Result<()> {
    setsockopt_bytes(
        fd,
        libc::SOL_SOCKET,
        libc::SO_RCVBUF,
        &(bytes as libc::c_int).to_ne_bytes(),
    )
}

/// TCP_CONGESTION: choose the socket's congestion control by name ("cubic", "bbr").
pub fn set_congestion(fd: RawFd, name: &str) -> io::Result<()> {
    let c = CString::new(name)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "NUL in cc name"))?;
    setsockopt_bytes(fd, libc::IPPROTO_TCP, libc::TCP_CONGESTION, c.as_bytes())
}

/// The raw `struct tcp_info` bytes (zero-filled past what this kernel returns).
pub fn tcp_info_raw(fd: RawFd) -> io::Result<[u8; 256]> {
    let mut buf = [0u8; 256];
    let mut len = buf.len() as libc::socklen_t;
    // SAFETY: `buf` is a writable 256-byte buffer and `len` tells the kernel its size; the
    // kernel writes at most `len` bytes and updates `len`.
    let rc = unsafe {
        libc::getsockopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_INFO,
            buf.as_mut_ptr().cast(),
            &mut len,
        )
    };
    if rc < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(buf)
}

/// The effective user id (the peer mode needs root for namespaces and TAP devices).
pub fn euid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}
