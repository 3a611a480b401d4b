//! The device backend: the one seam between the driver and a card.
//!
//! Everything above this module (rings, PHC, EDT sender, CLI) is the same code on every backend.
//! A backend gives three things:
//!
//! - **MMIO**: 32-bit reads and writes of BAR0 at a byte offset ([`Backend::read32`],
//!   [`Backend::write32`]). Offsets come from [`crate::contract::reg`]; never hard-code one.
//! - **DMA memory**: regions of host memory the card can read and write, each with its device address
//!   (IOVA). The driver touches them only through the backend ([`Backend::dma_write`],
//!   [`Backend::dma_read`]) with a [`DmaRegion`] handle, so no code above the backends needs `unsafe`.
//! - **Time**: the host clock as the backend sees it ([`Backend::now_ns`]: `CLOCK_TAI` on a real machine,
//!   a host-clock model on the simulator) and waiting ([`Backend::wait_ns`]: sleeps or spins on a real
//!   card, advances simulated time on the simulator).
//!
//! Backends: `vfio` ([`vfio`]: a real card behind vfio-pci), `sim` (`sim`: the Verilated RTL in-process,
//! crate `tsnic-sim`; built with the crate's `sim` feature only) and `mem` ([`mem`]: an in-memory register
//! file with no card behind it, for unit tests and benchmarks) and `null` ([`null`]: a host thread that
//! takes descriptors and writes completions as a card would, no simulation: host-path benchmarks of
//! `tsnic push`/`replay`). [`Card`] opens one from a spec string
//! (`sim`, `vfio:0000:01:00.0`, `mem`, `null`) and checks the card's identity. In a build without the `sim`
//! feature the spec `sim` still parses and opening it fails with [`DeviceError::SimUnavailable`], which
//! says how to get a build with the simulator.
//!
//! Ordering rules every backend keeps:
//! - [`Backend::write32`] is a release point: every earlier `dma_write` is visible to the card before the
//!   register write reaches it (doorbells rely on this).
//! - `dma_read` returns what the card wrote; a caller that checks a phase/valid word and then reads the
//!   rest of a record must put an acquire fence between the two reads (the ring does).

use std::fmt;

use thiserror::Error;

use crate::contract::{self, reg};

pub mod mem;
pub mod null;
pub mod phc_model;
#[cfg(feature = "sim")]
pub mod sim;
#[cfg(feature = "sim")]
pub mod sim_board;
pub mod sim_state;
pub mod vfio;
pub mod vfio_pci;

/// Errors of opening and driving a card. Each message says what to do about it.
#[derive(Debug, Error)]
pub enum DeviceError {
    /// The backend spec string did not parse.
    #[error(
        "unknown backend `{0}`: use `sim` (or `sim:small`, `sim:wide`, `sim:board`, `sim:board=u50|u280|u250`, `sim:state=PATH|none`), `null`, `mem` or `vfio:DDDD:BB:DD.F` (e.g. `vfio:0000:01:00.0`; `vfio:0000:01:00.0,poll` polls instead of waiting on the interrupt)"
    )]
    BadBackendSpec(String),
    /// A PCI address did not parse.
    #[error("bad PCI address `{addr}`: {why}; write it as DDDD:BB:DD.F, e.g. 0000:01:00.0 (see `lspci -D`)")]
    BadPciAddress {
        /// The address as given.
        addr: String,
        /// What is wrong with it.
        why: String,
    },
    /// The simulator backend is not built in.
    #[error("the sim backend is not available in this build: {0}")]
    SimUnavailable(String),
    /// /dev/vfio/vfio is missing.
    #[error("no {path}: load the VFIO driver (`modprobe vfio-pci`) and enable the IOMMU (intel_iommu=on or amd_iommu=on on the kernel command line)")]
    NoVfio {
        /// The path that is missing.
        path: String,
    },
    /// The device has no IOMMU group: the IOMMU is off (or absent).
    #[error("PCI device {addr} has no IOMMU group: the IOMMU is off; enable VT-d/AMD-Vi in the firmware and boot with intel_iommu=on (or amd_iommu=on), then check `ls /sys/kernel/iommu_groups`")]
    NoIommuGroup {
        /// PCI address.
        addr: String,
    },
    /// The device answers but is not a tsnic card.
    #[error("PCI device {addr} is not a tsnic card (identity: PCI {vendor:04x}:{device:04x}, BAR0 word 0 reads {word0} where a tsnic card reads 0x54534e43 \"TSNC\"): check the address with `lspci -D -nn`, or load the tsnic bitstream")]
    NotTsnic {
        /// PCI address.
        addr: String,
        /// PCI vendor ID.
        vendor: u16,
        /// PCI device ID.
        device: u16,
        /// What BAR0 word 0 reads (or why it could not be read).
        word0: String,
    },
    /// The device does not exist in sysfs.
    #[error("no PCI device {addr}: check the address with `lspci -D`")]
    NoSuchDevice {
        /// PCI address.
        addr: String,
    },
    /// The device is bound to another driver (or none).
    #[error("PCI device {addr} is not bound to vfio-pci (driver: {driver}): run `echo {addr} > /sys/bus/pci/devices/{addr}/driver/unbind; echo vfio-pci > /sys/bus/pci/devices/{addr}/driver_override; echo {addr} > /sys/bus/pci/drivers_probe`")]
    NotBoundToVfio {
        /// PCI address.
        addr: String,
        /// The driver it is bound to, or `none`.
        driver: String,
    },
    /// The IOMMU group has devices not bound to vfio-pci.
    #[error("IOMMU group {group} is not viable: every device in /sys/kernel/iommu_groups/{group}/devices must be bound to vfio-pci (or have no driver); bind them too or move the card to another slot")]
    GroupNotViable {
        /// IOMMU group number.
        group: u32,
    },
    /// Opening a VFIO file was refused.
    #[error("permission denied opening {path}: run as root or give your user access (`chown $USER {path}`) and raise the locked-memory limit (`ulimit -l unlimited`)")]
    PermissionDenied {
        /// The path.
        path: String,
    },
    /// BAR0 is smaller than the contract's map.
    #[error("BAR0 is {size:#x} bytes, the register map needs {need:#x}: wrong device or wrong bitstream")]
    BarTooSmall {
        /// Size found.
        size: u64,
        /// Size needed.
        need: u64,
    },
    /// CAP_MAGIC is wrong: not a tsnic card.
    #[error("CAP_MAGIC reads {found:#010x}, expected {expected:#010x} (\"TSNC\"): this is not a tsnic card, or its bitstream is not loaded")]
    BadMagic {
        /// Value read.
        found: u32,
        /// Value expected.
        expected: u32,
    },
    /// Contract major version differs.
    #[error("card speaks contract version {major}.{minor}, this driver speaks {want_major}.{want_minor}: update the driver or the bitstream so the major versions match")]
    VersionMismatch {
        /// Card's major.
        major: u16,
        /// Card's minor.
        minor: u16,
        /// Driver's major.
        want_major: u16,
        /// Driver's minor.
        want_minor: u16,
    },
    /// A DMA allocation or mapping failed.
    #[error("cannot allocate {len} bytes of DMA memory: {why}")]
    DmaAlloc {
        /// Bytes asked for.
        len: usize,
        /// Why.
        why: String,
    },
    /// The card did not do something in time.
    #[error("timed out after {ns} ns waiting for {what}: is the card running (`tsnic info`)?")]
    Timeout {
        /// What we waited for.
        what: String,
        /// How long.
        ns: u64,
    },
    /// An argument is out of the card's range.
    #[error("{0}")]
    OutOfRange(String),
    /// The simulator failed.
    #[error("simulator: {0}")]
    Sim(String),
    /// The sim backend's options did not parse.
    #[error("bad sim backend `{spec}`: {why}; write it as `sim`, `sim:small`, `sim:wide`, `sim:state=PATH` or `sim:small,state=PATH` (`state=` last; `state=none`: a fresh card, not kept)")]
    BadSimOptions {
        /// The spec (or variable) as given.
        spec: String,
        /// What is wrong.
        why: String,
    },
    /// The simulated card's state file cannot be used (or written).
    #[error("the simulated card's state {path}: {why}; `tsnic sim reset` power-cycles the card (with the same --backend, or TSNIC_SIM_STATE)")]
    SimState {
        /// The state file.
        path: String,
        /// What is wrong.
        why: String,
    },
    /// `tsnic sim reset` on a file that is not a saved card: it is kept.
    #[error("{path} is not a tsnic simulated-card state (it does not start with TSNICSIM), so it was not removed: point TSNIC_SIM_STATE or `--backend sim:state=PATH` at the card's file; if it is a card's state that was damaged, delete it yourself")]
    SimStateNotACard {
        /// The file.
        path: String,
    },
    /// The state file holds another configuration of the simulated card than the one asked for.
    #[error("the simulated card's state {path} holds {saved}, and this command opens {want}: pass `--backend {spec}` (with the same state) to use the card saved there, or give this command a card of its own with `--backend sim:state=OTHER_FILE` (or another TSNIC_SIM_STATE); nothing was changed")]
    SimStateOtherCard {
        /// The state file.
        path: String,
        /// What it holds.
        saved: String,
        /// What the command asked for.
        want: String,
        /// The `--backend` that opens the saved card.
        spec: String,
    },
    /// The folder a state file was named in does not exist.
    #[error("the simulated card's state {path}: its folder {dir} does not exist (tsnic does not create folders it was not asked for): create it (`mkdir -p {dir}`) or name a file in an existing folder (TSNIC_SIM_STATE or `--backend sim:state=PATH`)")]
    SimStateNoFolder {
        /// The state file.
        path: String,
        /// Its folder.
        dir: String,
    },
    /// Another command is using the simulated card.
    #[error("the simulated card (state {path}) is in use by another tsnic command ({holder}): wait for it to finish, or give this command a card of its own with `--backend sim:state=OTHER_FILE` (or `sim:state=none` for a fresh one)")]
    SimStateBusy {
        /// The state file.
        path: String,
        /// Who holds it.
        holder: String,
    },
    /// The null backend was asked for something only a card (or the simulator) has.
    #[error("the null backend has no {what}: it is a host-benchmark stand-in that only takes TX descriptors and returns completions (`tsnic push`/`replay --backend null`); use `--backend sim` (the simulated card) or `--backend vfio:DDDD:BB:DD.F` (a real card) for this")]
    NullUnsupported {
        /// What was asked for (e.g. `flash`, `RX path`).
        what: String,
    },
    /// An OS call failed.
    #[error("{context}: {source}")]
    Io {
        /// What we were doing.
        context: String,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
}

/// A region of DMA memory: a handle the backend hands out. Access it through the backend that made it.
///
/// Dropping the handle does not free the memory; the backend frees every region when it is dropped, or
/// earlier with [`Backend::dma_free`].
#[derive(Debug, PartialEq, Eq)]
pub struct DmaRegion {
    id: usize,
    iova: u64,
    len: usize,
}

impl DmaRegion {
    /// Made by a backend: `id` is the backend's own index, `iova` the device address of byte 0.
    pub fn new(id: usize, iova: u64, len: usize) -> Self {
        Self { id, iova, len }
    }
    /// The backend's index of this region.
    pub fn id(&self) -> usize {
        self.id
    }
    /// Device address (IOVA) of the region's first byte.
    pub fn iova(&self) -> u64 {
        self.iova
    }
    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }
    /// True for a zero-length region.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// Alignment every backend gives DMA regions (both their host memory and their IOVA).
pub const DMA_ALIGN: usize = 4096;

/// A model of the host clock (`CLOCK_TAI`) for simulated backends: it runs at `1 + ppb/1e9` times the
/// true (simulated) time and can be stepped. Lets tests inject an oscillator error between host and card.
#[derive(Debug, Clone, PartialEq)]
pub struct HostClockModel {
    /// True time at the last re-base.
    base_true_ns: u64,
    /// Host clock reading at `base_true_ns`.
    base_host_ns: i128,
    /// Frequency error of the host clock in parts per billion (positive: host runs fast).
    ppb: f64,
}

impl HostClockModel {
    /// A host clock that reads `host_ns` at true time `true_ns` and runs at the true rate.
    pub fn new(true_ns: u64, host_ns: u64) -> Self {
        Self {
            base_true_ns: true_ns,
            base_host_ns: host_ns as i128,
            ppb: 0.0,
        }
    }
    /// Host clock reading at true time `true_ns` (saturating at 0).
    pub fn host_ns(&self, true_ns: u64) -> u64 {
        let dt = true_ns as i128 - self.base_true_ns as i128;
        let host = self.base_host_ns + dt + ((dt as f64) * self.ppb / 1e9).round() as i128;
        host.clamp(0, u64::MAX as i128) as u64
    }
    /// Set the frequency error from true time `true_ns` on, keeping the clock continuous.
    pub fn set_freq_error_ppb(&mut self, true_ns: u64, ppb: f64) {
        self.base_host_ns = self.host_ns(true_ns) as i128;
        self.base_true_ns = true_ns;
        self.ppb = ppb;
    }
    /// The frequency error in ppb.
    pub fn freq_error_ppb(&self) -> f64 {
        self.ppb
    }
    /// (base true ns, host reading there, ppb): the whole state, to save it.
    pub fn parts(&self) -> (u64, i128, f64) {
        (self.base_true_ns, self.base_host_ns, self.ppb)
    }
    /// A model from [`HostClockModel::parts`].
    pub fn from_parts(base_true_ns: u64, base_host_ns: i128, ppb: f64) -> Self {
        Self {
            base_true_ns,
            base_host_ns,
            ppb,
        }
    }
    /// Step the host clock by `delta_ns` at true time `true_ns`.
    pub fn step(&mut self, true_ns: u64, delta_ns: i64) {
        self.base_host_ns = self.host_ns(true_ns) as i128 + delta_ns as i128;
        self.base_true_ns = true_ns;
    }
}

/// The backend trait. Offsets are BAR0 byte offsets; a backend panics on an offset outside BAR0 or a
/// DMA access outside its region (both are driver bugs, never user input).
pub trait Backend {
    /// A short description for `tsnic info`, e.g. `vfio 0000:01:00.0` or `sim (Verilated tsnic_core)`.
    fn describe(&self) -> String;

    /// Read a 32-bit register at BAR0 byte `offset` (4-byte aligned).
    fn read32(&mut self, offset: usize) -> u32;

    /// Write a 32-bit register. A release point: earlier DMA writes reach the card first.
    fn write32(&mut self, offset: usize, value: u32);

    /// Allocate `len` bytes of zeroed DMA memory (rounded up to [`DMA_ALIGN`]), mapped for the card.
    fn dma_alloc(&mut self, len: usize) -> Result<DmaRegion, DeviceError>;

    /// Unmap and free a region. Its IOVA may be reused afterwards.
    fn dma_free(&mut self, region: DmaRegion) -> Result<(), DeviceError>;

    /// Copy `data` into `region` at byte `offset`.
    fn dma_write(&mut self, region: &DmaRegion, offset: usize, data: &[u8]);

    /// Copy from `region` at byte `offset` into `buf`.
    fn dma_read(&mut self, region: &DmaRegion, offset: usize, buf: &mut [u8]);

    /// Read a little-endian u32 from DMA memory (one access on backends that can).
    fn dma_read_u32(&mut self, region: &DmaRegion, offset: usize) -> u32 {
        let mut b = [0u8; 4];
        self.dma_read(region, offset, &mut b);
        u32::from_le_bytes(b)
    }

    /// Completion reaping in one call: from byte `offset` of `region`, the records of `rec` bytes (a
    /// multiple of 4) that the card has written, up to the first it has not, at most
    /// `out.len() / rec` of them, copied into `out`; returns how many. A record is written when bit
    /// `phase_bit` of its last dword equals `phase`; that dword is read (acquire) before any other
    /// byte of the record, as [`Backend::dma_read_u32`] and then [`Backend::dma_read`] would. The
    /// default does exactly that per record; backends whose DMA memory is the host's override it
    /// with one bounds check and one copy per call.
    fn dma_read_valid(
        &mut self,
        region: &DmaRegion,
        offset: usize,
        rec: usize,
        phase_bit: u32,
        phase: bool,
        out: &mut [u8],
    ) -> usize {
        let max = out.len() / rec;
        let mut n = 0;
        while n < max {
            let w = self.dma_read_u32(region, offset + n * rec + rec - 4);
            if (w & phase_bit != 0) != phase {
                break;
            }
            n += 1;
        }
        if n > 0 {
            std::sync::atomic::fence(std::sync::atomic::Ordering::Acquire);
            self.dma_read(region, offset, &mut out[..n * rec]);
        }
        n
    }

    /// A handle for another thread that posts to this card's TX queues (`--threads`): DMA reads and
    /// writes into regions this backend allocated, queue doorbells and register reads, in parallel
    /// with this backend and the other ports. None (the default): the backend is one thread's only
    /// (the simulated card, a real card so far); the posting is then done in turns on one thread.
    fn tx_port(&mut self) -> Option<Box<dyn Backend + Send>> {
        None
    }

    /// Host clock in TAI ns as this backend sees it (`CLOCK_TAI`, or the host-clock model on sim).
    fn now_ns(&mut self) -> u64;

    /// Let `ns` nanoseconds pass: sleep/spin on hardware, advance simulated time on the simulator.
    fn wait_ns(&mut self, ns: u64) -> Result<(), DeviceError>;

    /// Wait until the card raises its interrupt or `timeout_ns` passes; true if it was raised.
    /// Backends without an interrupt path just wait and return false (callers then poll).
    fn wait_irq(&mut self, timeout_ns: u64) -> Result<bool, DeviceError> {
        self.wait_ns(timeout_ns)?;
        Ok(false)
    }

    /// True when [`Backend::wait_irq`] really waits for the card's interrupt (the simulator; vfio with
    /// its interrupt routed), so a caller may sleep in it instead of polling.
    fn has_irq(&self) -> bool {
        false
    }

    /// The host-clock model, on backends that simulate the host clock (tests inject errors through it).
    fn host_clock_model(&mut self) -> Option<&mut HostClockModel> {
        None
    }

    /// Simulated backends: the true (simulated) time in ns that the host-clock model is a function of.
    fn sim_time_ns(&mut self) -> Option<u64> {
        None
    }

    /// A simulated card kept between commands: its state file (state that belongs to the card, as
    /// a PTP clock's saved master, lives beside it). None otherwise.
    fn saved_state_path(&self) -> Option<std::path::PathBuf> {
        None
    }

    /// Simulated backends whose register reads take long (a PCIe round trip): the simulated time
    /// window, ns, in which the card served the latest [`Backend::read32`] (it latched the register
    /// then), narrower than the [`Backend::sim_time_ns`] readings around the call. `None`: use those.
    fn last_read_served_ns(&mut self) -> Option<(u64, u64)> {
        None
    }

    /// Simulated backends: make the host clock run `ppb` off true time from now on. False if the backend
    /// has no host-clock model (a real machine).
    fn set_host_freq_error_ppb(&mut self, ppb: f64) -> bool {
        match self.sim_time_ns() {
            Some(t) => self
                .host_clock_model()
                .map(|m| m.set_freq_error_ppb(t, ppb))
                .is_some(),
            None => false,
        }
    }

    /// Simulated backends: step the host clock by `delta_ns` now. False without a host-clock model.
    fn step_host_clock(&mut self, delta_ns: i64) -> bool {
        match self.sim_time_ns() {
            Some(t) => self
                .host_clock_model()
                .map(|m| m.step(t, delta_ns))
                .is_some(),
            None => false,
        }
    }

    /// The driver is done with the card: a persistent simulated card saves its state here (an error
    /// means it was not saved). Nothing to do on other backends.
    fn close(&mut self) -> Result<(), DeviceError> {
        Ok(())
    }

    /// [`Backend::close`] after a command that only read the card (`info`, `stats`, `phc get`): a
    /// simulated card read from a location this user cannot write is left as it was saved, without
    /// an error (a command that changed it fails in `close`, saying it was not saved).
    fn close_read_only(&mut self) -> Result<(), DeviceError> {
        self.close()
    }
}

impl<B: Backend + ?Sized> Backend for Box<B> {
    fn describe(&self) -> String {
        (**self).describe()
    }
    #[inline]
    fn read32(&mut self, offset: usize) -> u32 {
        (**self).read32(offset)
    }
    #[inline]
    fn write32(&mut self, offset: usize, value: u32) {
        (**self).write32(offset, value)
    }
    fn dma_alloc(&mut self, len: usize) -> Result<DmaRegion, DeviceError> {
        (**self).dma_alloc(len)
    }
    fn dma_free(&mut self, region: DmaRegion) -> Result<(), DeviceError> {
        (**self).dma_free(region)
    }
    #[inline]
    fn dma_write(&mut self, region: &DmaRegion, offset: usize, data: &[u8]) {
        (**self).dma_write(region, offset, data)
    }
    #[inline]
    fn dma_read(&mut self, region: &DmaRegion, offset: usize, buf: &mut [u8]) {
        (**self).dma_read(region, offset, buf)
    }
    #[inline]
    fn dma_read_u32(&mut self, region: &DmaRegion, offset: usize) -> u32 {
        (**self).dma_read_u32(region, offset)
    }
    #[inline]
    fn dma_read_valid(
        &mut self,
        region: &DmaRegion,
        offset: usize,
        rec: usize,
        phase_bit: u32,
        phase: bool,
        out: &mut [u8],
    ) -> usize {
        (**self).dma_read_valid(region, offset, rec, phase_bit, phase, out)
    }
    fn tx_port(&mut self) -> Option<Box<dyn Backend + Send>> {
        (**self).tx_port()
    }
    fn now_ns(&mut self) -> u64 {
        (**self).now_ns()
    }
    fn wait_ns(&mut self, ns: u64) -> Result<(), DeviceError> {
        (**self).wait_ns(ns)
    }
    fn wait_irq(&mut self, timeout_ns: u64) -> Result<bool, DeviceError> {
        (**self).wait_irq(timeout_ns)
    }
    fn has_irq(&self) -> bool {
        (**self).has_irq()
    }
    fn host_clock_model(&mut self) -> Option<&mut HostClockModel> {
        (**self).host_clock_model()
    }
    fn sim_time_ns(&mut self) -> Option<u64> {
        (**self).sim_time_ns()
    }
    fn saved_state_path(&self) -> Option<std::path::PathBuf> {
        (**self).saved_state_path()
    }
    fn last_read_served_ns(&mut self) -> Option<(u64, u64)> {
        (**self).last_read_served_ns()
    }
    fn set_host_freq_error_ppb(&mut self, ppb: f64) -> bool {
        (**self).set_host_freq_error_ppb(ppb)
    }
    fn step_host_clock(&mut self, delta_ns: i64) -> bool {
        (**self).step_host_clock(delta_ns)
    }
    fn close(&mut self) -> Result<(), DeviceError> {
        (**self).close()
    }
    fn close_read_only(&mut self) -> Result<(), DeviceError> {
        (**self).close_read_only()
    }
}

/// A PCI address `DDDD:BB:DD.F`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PciAddress {
    /// Domain (segment).
    pub domain: u16,
    /// Bus.
    pub bus: u8,
    /// Device (0..=31).
    pub device: u8,
    /// Function (0..=7).
    pub function: u8,
}

impl std::str::FromStr for PciAddress {
    type Err = DeviceError;

    /// Parses `DDDD:BB:DD.F` or the short `BB:DD.F` (domain 0), hex, as `lspci -D` prints them.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = |why: &str| DeviceError::BadPciAddress {
            addr: s.to_string(),
            why: why.to_string(),
        };
        let (rest, function) = s
            .rsplit_once('.')
            .ok_or_else(|| bad("no `.` before the function"))?;
        let parts: Vec<&str> = rest.split(':').collect();
        let (domain, bus, device) = match parts.as_slice() {
            [d, b, dev] => (*d, *b, *dev),
            [b, dev] => ("0000", *b, *dev),
            _ => return Err(bad("expected DDDD:BB:DD.F")),
        };
        let hex = |f: &str, max_digits: usize, name: &str| -> Result<u32, DeviceError> {
            if f.is_empty() || f.len() > max_digits || !f.bytes().all(|c| c.is_ascii_hexdigit()) {
                return Err(bad(&format!(
                    "{name} `{f}` is not 1 to {max_digits} hex digits"
                )));
            }
            u32::from_str_radix(f, 16).map_err(|_| bad(&format!("{name} `{f}` is not hex")))
        };
        let domain = hex(domain, 4, "domain")? as u16;
        let bus = hex(bus, 2, "bus")? as u8;
        let device = hex(device, 2, "device")?;
        if device > 0x1f {
            return Err(bad("device must be 00..1f"));
        }
        let function = hex(function, 1, "function")?;
        if function > 7 {
            return Err(bad("function must be 0..7"));
        }
        Ok(Self {
            domain,
            bus,
            device: device as u8,
            function: function as u8,
        })
    }
}

impl fmt::Display for PciAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:04x}:{:02x}:{:02x}.{:x}",
            self.domain, self.bus, self.device, self.function
        )
    }
}

/// Options of the sim backend: `sim[:wide][,state=PATH|none]`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SimOptions {
    /// The 512-bit (100G) configuration instead of the 64-bit (10G) one.
    pub wide: bool,
    /// The small core (8 queues, 1024 entries, 100 ms horizon: tests) instead of the board's size.
    pub small: bool,
    /// Which saved card to use (see [`sim_state`]).
    pub state: sim_state::StateChoice,
    /// The board build (`tsnic_board_core` behind the PCIe hard-block model; `sim:board`).
    pub board: bool,
    /// Which board (`sim:board=u50|u280|u250|sume`; `sim:board` alone is the SUME).
    pub board_kind: SimBoard,
}

/// The board a `sim:board` build is (`sim:board=NAME`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SimBoard {
    /// NetFPGA SUME: 256 bits, 10G (`sim:board`, `sim:board=sume`).
    #[default]
    Sume,
    /// Alveo U50: 512 bits, Gen3 x16, the CMAC at 100G.
    U50,
    /// Alveo U280 (the U50's build with its own BOARD_ID).
    U280,
    /// Alveo U250 (the U50's build with its own BOARD_ID).
    U250,
}

impl SimBoard {
    /// `sume`, `u50`, `u280`, `u250`.
    pub fn name(self) -> &'static str {
        match self {
            SimBoard::Sume => "sume",
            SimBoard::U50 => "u50",
            SimBoard::U280 => "u280",
            SimBoard::U250 => "u250",
        }
    }

    fn parse(s: &str) -> Option<SimBoard> {
        [
            SimBoard::Sume,
            SimBoard::U50,
            SimBoard::U280,
            SimBoard::U250,
        ]
        .into_iter()
        .find(|b| b.name() == s)
    }

    /// The simulated board's configuration (the model's defaults for this board).
    #[cfg(feature = "sim")]
    pub fn config(self) -> tsnic_sim::board::BoardConfig {
        use tsnic_sim::board::{BoardConfig, BoardModel};
        match self {
            SimBoard::Sume => BoardConfig::default(),
            SimBoard::U50 => BoardConfig::alveo(BoardModel::AlveoU50),
            SimBoard::U280 => BoardConfig::alveo(BoardModel::AlveoU280),
            SimBoard::U250 => BoardConfig::alveo(BoardModel::AlveoU250),
        }
    }
}

impl SimOptions {
    fn parse(opts: &str) -> Result<SimOptions, DeviceError> {
        let bad = |why: String| DeviceError::BadSimOptions {
            spec: format!("sim:{opts}"),
            why,
        };
        if opts.is_empty() {
            return Err(bad("nothing after `sim:`".into()));
        }
        let mut o = SimOptions::default();
        let mut rest = opts;
        while !rest.is_empty() {
            // `state=` takes the rest of the spec, commas included (it is a path).
            if let Some(p) = rest.strip_prefix("state=") {
                // A path may hold commas, so `state=` must come last: an option after it would
                // silently become part of the file name.
                if let Some((_, last)) = p.rsplit_once(',') {
                    if matches!(last, "small" | "shipped" | "wide" | "board") {
                        return Err(bad(format!(
                            "`,{last}` after `state=` would be part of the file name (`state=` takes the rest of the spec, commas included): put the options first, `sim:{last},state=PATH`"
                        )));
                    }
                }
                o.state = sim_state::StateChoice::parse(p).map_err(bad)?;
                break;
            }
            let (opt, tail) = rest.split_once(',').unwrap_or((rest, ""));
            match opt {
                "wide" => o.wide = true,
                "small" => o.small = true,
                "shipped" => o.small = false,
                "board" => o.board = true,
                b if b.starts_with("board=") => {
                    o.board = true;
                    o.board_kind = SimBoard::parse(&b["board=".len()..]).ok_or_else(|| {
                        bad(format!(
                            "unknown board in `{b}`: use `board=u50`, `board=u280`, `board=u250` or `board=sume` (`board` alone is the SUME)"
                        ))
                    })?;
                }
                other => {
                    return Err(bad(format!(
                        "unknown sim option `{other}` (the options are `small`, `shipped`, `wide`, `board`, `board=u50|u280|u250|sume`, `state=PATH|none`)"
                    )))
                }
            }
            rest = tail;
        }
        if o.board && (o.wide || o.small) {
            return Err(bad(
                "`board` is a board build of the board core (its own width and size: 256 bits on the SUME, 512 on the Alveos): it takes no `small` or `wide`".into(),
            ));
        }
        Ok(o)
    }
}

/// Which backend to open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BackendSpec {
    /// The Verilated RTL in-process (default), with its options.
    Sim(SimOptions),
    /// An in-memory register file with no card (tests, benchmarks).
    Mem,
    /// A host thread standing in for the card: completes every descriptor (host benchmarks).
    Null,
    /// A real card behind vfio-pci, with its interrupt routed or in polling mode (`vfio:ADDR,poll`).
    Vfio(PciAddress, vfio::IrqMode),
}

impl std::str::FromStr for BackendSpec {
    type Err = DeviceError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "sim" => Ok(BackendSpec::Sim(SimOptions::default())),
            "mem" => Ok(BackendSpec::Mem),
            "null" => Ok(BackendSpec::Null),
            _ => {
                if let Some(opts) = s.strip_prefix("sim:") {
                    return Ok(BackendSpec::Sim(SimOptions::parse(opts)?));
                }
                match s.strip_prefix("vfio:") {
                    Some(rest) => match rest.split_once(',') {
                        None => Ok(BackendSpec::Vfio(rest.parse()?, vfio::IrqMode::Interrupt)),
                        Some((addr, "poll")) => {
                            Ok(BackendSpec::Vfio(addr.parse()?, vfio::IrqMode::Poll))
                        }
                        Some(_) => Err(DeviceError::BadBackendSpec(s.to_string())),
                    },
                    None => Err(DeviceError::BadBackendSpec(s.to_string())),
                }
            }
        }
    }
}

impl fmt::Display for BackendSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BackendSpec::Sim(o) => {
                write!(f, "sim")?;
                let mut sep = ':';
                if o.small {
                    write!(f, "{sep}small")?;
                    sep = ',';
                }
                if o.wide {
                    write!(f, "{sep}wide")?;
                    sep = ',';
                }
                if o.board {
                    match o.board_kind {
                        SimBoard::Sume => write!(f, "{sep}board")?,
                        k => write!(f, "{sep}board={}", k.name())?,
                    }
                    sep = ',';
                }
                match &o.state {
                    sim_state::StateChoice::Default => Ok(()),
                    sim_state::StateChoice::None => write!(f, "{sep}state=none"),
                    sim_state::StateChoice::Path(p) => write!(f, "{sep}state={}", p.display()),
                }
            }
            BackendSpec::Mem => write!(f, "mem"),
            BackendSpec::Null => write!(f, "null"),
            BackendSpec::Vfio(a, vfio::IrqMode::Interrupt) => write!(f, "vfio:{a}"),
            BackendSpec::Vfio(a, vfio::IrqMode::Poll) => write!(f, "vfio:{a},poll"),
        }
    }
}

/// Open the backend a spec names. `sim` needs the `sim` feature; without it (or without the Verilated
/// core) it reports [`DeviceError::SimUnavailable`] with the way to get it.
pub fn open_backend(spec: &BackendSpec) -> Result<Box<dyn Backend>, DeviceError> {
    match spec {
        BackendSpec::Sim(opts) => open_sim(opts),
        // The mem backend's PHC block is the Rust model of tsnic_phc.v at the card's 250 MHz, so
        // `tsnic phc ...` works on it, and register reads take a PCIe-like 1 us +/- 100 ns; everything
        // else is a plain register file.
        BackendSpec::Mem => Ok(Box::new(
            mem::MemBackend::new_identity()
                .with_hook(Box::new(phc_model::PhcModel::new(4, 1)))
                .with_read_latency(1000, 100),
        )),
        BackendSpec::Null => Ok(Box::new(null::NullBackend::open()?)),
        BackendSpec::Vfio(addr, mode) => Ok(Box::new(vfio::VfioBackend::open_with(*addr, *mode)?)),
    }
}

/// The sim backend in its default configuration (the board's size: 4096 queues, 65536 entries, 10 s
/// horizon; 64-bit core, 10 Gb/s wire, 800 ns host reads), or small (8 queues, 1024 entries, 100 ms:
/// tests), or 512-bit at 100 Gb/s with `wide`, on the saved card the options name.
#[cfg(feature = "sim")]
fn open_sim(opts: &SimOptions) -> Result<Box<dyn Backend>, DeviceError> {
    if opts.board {
        // the board card kept in its state file, as the core build's
        return Ok(Box::new(sim_board::BoardBackend::open(
            opts.board_kind.config(),
            &opts.state,
        )?));
    }
    Ok(Box::new(open_sim_backend(opts)?))
}

/// `tsnic flash` on the board build runs on a fresh board (its flash model is attached at open, as
/// on a power-up): asked to keep one (`sim:board,state=PATH`, or `TSNIC_SIM_STATE` naming a file),
/// say so and how to run, rather than forget it silently.
#[cfg(feature = "sim")]
pub fn board_state_check(opts: &SimOptions) -> Result<(), DeviceError> {
    let asked = match &opts.state {
        sim_state::StateChoice::Path(p) => Some(format!("state={}", p.display())),
        sim_state::StateChoice::None => None,
        sim_state::StateChoice::Default => std::env::var_os(sim_state::ENV)
            .filter(|v| v != "none")
            .map(|v| format!("{}={}", sim_state::ENV, v.to_string_lossy())),
    };
    match asked {
        None => Ok(()),
        Some(what) => Err(DeviceError::BadSimOptions {
            spec: format!("sim:board ({what})"),
            why: format!(
                "`tsnic flash` on the board build runs on a fresh board, not a kept one (the flash configures it at power-up), so {what} would be ignored; set {env}=none (or `state=none`) for flash commands on the board",
                env = sim_state::ENV
            ),
        }),
    }
}

/// [`open_sim`]'s card as its own type (for what only a simulated card has, e.g. its flash pins).
#[cfg(feature = "sim")]
pub fn open_sim_backend(opts: &SimOptions) -> Result<sim::SimBackend, DeviceError> {
    if opts.board {
        return Err(DeviceError::BadSimOptions {
            spec: "sim:board".into(),
            why: "this needs what only the core build has (the idle fast-forward and its SimCard): use `sim` (the board build runs `info`, `stats`, `push`, `replay`, `send --card sim:board`, `flash` and register commands)".into(),
        });
    }
    let cfg = match (opts.wide, opts.small) {
        (true, _) => sim::SimConfig::wide_100g(),
        (false, true) => sim::SimConfig::small(),
        (false, false) => sim::SimConfig::default(),
    };
    let cfg = sim::SimConfig {
        size: if opts.small {
            sim::CoreSize::Small
        } else {
            cfg.size
        },
        ..cfg
    };
    sim::SimBackend::open(cfg, &opts.state)
}

/// What a build without the `sim` feature says when asked for the simulated card.
pub const SIM_NOT_BUILT: &str = "tsnic was built without its `sim` feature \
(`--no-default-features`: a driver for a real card only); to use the simulated card, build it \
with the default features (`cargo build --release -p tsnic`; needs Verilator, see `make deps`), \
or open another backend (`vfio:DDDD:BB:DD.F` for a real card, `mem` for a register file with no card)";

/// Without the `sim` feature there is no simulated card: say how to get one.
#[cfg(not(feature = "sim"))]
fn open_sim(_opts: &SimOptions) -> Result<Box<dyn Backend>, DeviceError> {
    Err(DeviceError::SimUnavailable(SIM_NOT_BUILT.into()))
}

/// Identity and capabilities read from the CAP block.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Caps {
    /// Contract major version of the card.
    pub version_major: u16,
    /// Contract minor version of the card.
    pub version_minor: u16,
    /// Number of TX queues.
    pub num_queues: u32,
    /// Nominal core clock in Hz.
    pub clk_freq_hz: u32,
    /// Calendar slot width in ns.
    pub slot_ns: u32,
    /// Slots in the calendar's fine level.
    pub slots: u32,
    /// Calendar horizon in ns.
    pub horizon_ns: u64,
    /// Feature bits.
    pub features: u32,
    /// Largest ring size log2.
    pub ring_log2_max: u32,
    /// Largest frame length (without FCS).
    pub max_frame_len: u32,
    /// TX data width in bits.
    pub tx_data_width: u32,
    /// Calendar capacity (entries outstanding across all queues).
    pub nodes: u32,
    /// Byte offset of queue 0's register block.
    pub queue_base: u32,
    /// Byte distance between queue blocks.
    pub queue_stride: u32,
}

impl Caps {
    /// Read and check the CAP block: magic first, then the major version.
    pub fn read(b: &mut dyn Backend) -> Result<Caps, DeviceError> {
        let magic = b.read32(reg::CAP_MAGIC);
        if magic != contract::MAGIC {
            return Err(DeviceError::BadMagic {
                found: magic,
                expected: contract::MAGIC,
            });
        }
        let version = b.read32(reg::CAP_VERSION);
        let (major, minor) = ((version >> 16) as u16, version as u16);
        if major != contract::VERSION_MAJOR {
            return Err(DeviceError::VersionMismatch {
                major,
                minor,
                want_major: contract::VERSION_MAJOR,
                want_minor: contract::VERSION_MINOR,
            });
        }
        let caps = Caps {
            version_major: major,
            version_minor: minor,
            num_queues: b.read32(reg::CAP_NUM_QUEUES),
            clk_freq_hz: b.read32(reg::CAP_CLK_FREQ_HZ),
            slot_ns: b.read32(reg::CAP_SLOT_NS),
            slots: b.read32(reg::CAP_SLOTS),
            horizon_ns: (b.read32(reg::CAP_HORIZON_NS_LO) as u64)
                | ((b.read32(reg::CAP_HORIZON_NS_HI) as u64) << 32),
            features: b.read32(reg::CAP_FEATURES),
            ring_log2_max: b.read32(reg::CAP_RING_LOG2_MAX),
            max_frame_len: b.read32(reg::CAP_MAX_FRAME_LEN),
            tx_data_width: b.read32(reg::CAP_TX_DATA_WIDTH),
            nodes: b.read32(reg::CAP_NODES),
            queue_base: b.read32(reg::CAP_QUEUE_BASE),
            queue_stride: b.read32(reg::CAP_QUEUE_STRIDE),
        };
        let last_q = caps.queue_base as u64 + caps.num_queues as u64 * caps.queue_stride as u64;
        if caps.num_queues == 0 || last_q > contract::BAR0_SIZE as u64 || caps.queue_stride < 0x60 {
            return Err(DeviceError::OutOfRange(format!(
                "card reports {} queues at {:#x} stride {:#x}, which does not fit BAR0: wrong bitstream?",
                caps.num_queues, caps.queue_base, caps.queue_stride
            )));
        }
        Ok(caps)
    }

    /// BAR0 offset of queue `q`'s register `r` (an offset from `contract::reg::Q_*`).
    #[inline]
    pub fn q_reg(&self, q: u16, r: usize) -> usize {
        self.queue_base as usize + q as usize * self.queue_stride as usize + r
    }

    /// Core clock period in ns (0 if the card reports no frequency).
    pub fn clk_period_ns(&self) -> f64 {
        if self.clk_freq_hz == 0 {
            0.0
        } else {
            1e9 / self.clk_freq_hz as f64
        }
    }
}

/// An open card: its backend plus the identity read at open.
pub struct Card {
    backend: Box<dyn Backend>,
    caps: Caps,
    spec: String,
}

impl fmt::Debug for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Card")
            .field("spec", &self.spec)
            .field("caps", &self.caps)
            .finish()
    }
}

impl Card {
    /// Open by spec string: `sim`, `mem`, `vfio:0000:01:00.0`. Checks magic and version.
    pub fn open(spec: &str) -> Result<Card, DeviceError> {
        let parsed: BackendSpec = spec.parse()?;
        let backend = open_backend(&parsed)?;
        Card::from_backend(backend, parsed.to_string())
    }

    /// Wrap an already open backend (tests, sim with a custom configuration).
    pub fn from_backend(mut backend: Box<dyn Backend>, spec: String) -> Result<Card, DeviceError> {
        let caps = Caps::read(backend.as_mut())?;
        Ok(Card {
            backend,
            caps,
            spec,
        })
    }

    /// The capabilities read at open.
    pub fn caps(&self) -> &Caps {
        &self.caps
    }

    /// The spec the card was opened with.
    pub fn spec(&self) -> &str {
        &self.spec
    }

    /// The backend (MMIO, DMA, time).
    pub fn backend(&mut self) -> &mut dyn Backend {
        self.backend.as_mut()
    }

    /// Split into capabilities and backend, to drive rings and the PHC at once.
    pub fn parts(&mut self) -> (&Caps, &mut dyn Backend) {
        (&self.caps, self.backend.as_mut())
    }

    /// Done with the card: a persistent simulated card saves its state (see [`Backend::close`]).
    pub fn close(mut self) -> Result<(), DeviceError> {
        self.backend.close()
    }

    /// Done with a card this command only read (see [`Backend::close_read_only`]).
    pub fn close_read_only(mut self) -> Result<(), DeviceError> {
        self.backend.close_read_only()
    }

    /// Read a 64-bit LO/HI counter pair (reading LO latches HI).
    pub fn read_u64(&mut self, lo: usize, hi: usize) -> u64 {
        let l = self.backend.read32(lo) as u64;
        let h = self.backend.read32(hi) as u64;
        l | (h << 32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pci_address_parses_and_prints() {
        let a: PciAddress = "0000:01:00.0".parse().unwrap();
        assert_eq!(
            a,
            PciAddress {
                domain: 0,
                bus: 1,
                device: 0,
                function: 0
            }
        );
        assert_eq!(a.to_string(), "0000:01:00.0");
        let b: PciAddress = "3b:1f.7".parse().unwrap();
        assert_eq!(b.to_string(), "0000:3b:1f.7");
        let c: PciAddress = "ABCD:ff:1F.7".parse().unwrap();
        assert_eq!(c.to_string(), "abcd:ff:1f.7");
    }

    #[test]
    fn bad_pci_addresses_name_the_field() {
        for (s, field) in [
            ("0000:01:00", "no `.`"),
            ("0000:01:20.0", "device must be"),
            ("0000:01:00.8", "function must be"),
            ("00000:01:00.0", "domain"),
            ("0000:g1:00.0", "bus"),
            ("0000:01::00.0", "DDDD:BB:DD.F"),
            ("", "no `.`"),
            ("0000:01:00.", "function"),
        ] {
            let e = s.parse::<PciAddress>().unwrap_err().to_string();
            assert!(e.contains(field), "{s}: {e}");
            assert!(e.contains("lspci -D"), "{e}");
        }
    }

    #[test]
    fn backend_specs() {
        assert_eq!(
            "sim".parse::<BackendSpec>().unwrap(),
            BackendSpec::Sim(SimOptions::default())
        );
        for (s, wide, small, state) in [
            ("sim:wide", true, false, sim_state::StateChoice::Default),
            ("sim:small", false, true, sim_state::StateChoice::Default),
            ("sim:state=none", false, false, sim_state::StateChoice::None),
            (
                "sim:small,state=none",
                false,
                true,
                sim_state::StateChoice::None,
            ),
            (
                "sim:wide,state=/tmp/a,b.state",
                true,
                false,
                sim_state::StateChoice::Path("/tmp/a,b.state".into()),
            ),
        ] {
            let spec: BackendSpec = s.parse().unwrap();
            assert_eq!(
                spec,
                BackendSpec::Sim(SimOptions {
                    wide,
                    small,
                    state,
                    board: false,
                    board_kind: SimBoard::Sume,
                }),
                "{s}"
            );
            assert_eq!(spec.to_string(), s);
        }
        assert_eq!(
            "sim:shipped".parse::<BackendSpec>().unwrap(),
            BackendSpec::Sim(SimOptions::default())
        );
        let b: BackendSpec = "sim:board".parse().unwrap();
        assert!(matches!(&b, BackendSpec::Sim(o) if o.board && !o.small && !o.wide));
        assert_eq!(b.to_string(), "sim:board");
        for name in ["u50", "u280", "u250"] {
            let s = format!("sim:board={name}");
            let b: BackendSpec = s.parse().unwrap();
            assert!(
                matches!(&b, BackendSpec::Sim(o) if o.board && o.board_kind.name() == name),
                "{s}"
            );
            assert_eq!(b.to_string(), s);
        }
        assert_eq!(
            "sim:board=sume".parse::<BackendSpec>().unwrap(),
            "sim:board".parse::<BackendSpec>().unwrap()
        );
        assert!(matches!(
            "sim:board,state=none".parse::<BackendSpec>(),
            Ok(BackendSpec::Sim(SimOptions { board: true, .. }))
        ));
        // a board card is kept between commands too (issue 31): its state file is taken
        assert!(matches!(
            "sim:board,state=/tmp/b.state".parse::<BackendSpec>(),
            Ok(BackendSpec::Sim(SimOptions { board: true, state: sim_state::StateChoice::Path(p), .. }))
                if p == std::path::Path::new("/tmp/b.state")
        ));
        for s in [
            "sim:fast",
            "sim:state=",
            "sim:",
            "sim:tiny",
            "sim:board,small",
            "sim:board=u55",
            "sim:board=",
            "sim:board=u50,wide",
            "sim:wide,board",
        ] {
            assert!(
                matches!(
                    s.parse::<BackendSpec>(),
                    Err(DeviceError::BadSimOptions { .. })
                ),
                "{s}"
            );
        }
        assert_eq!("mem".parse::<BackendSpec>().unwrap(), BackendSpec::Mem);
        assert_eq!("null".parse::<BackendSpec>().unwrap(), BackendSpec::Null);
        assert_eq!(BackendSpec::Null.to_string(), "null");
        let v: BackendSpec = "vfio:0000:01:00.0".parse().unwrap();
        assert_eq!(v.to_string(), "vfio:0000:01:00.0");
        let p: BackendSpec = "vfio:0000:01:00.0,poll".parse().unwrap();
        assert!(matches!(p, BackendSpec::Vfio(_, vfio::IrqMode::Poll)));
        assert_eq!(p.to_string(), "vfio:0000:01:00.0,poll");
        assert!(matches!(
            "vfio:0000:01:00.0,fast".parse::<BackendSpec>(),
            Err(DeviceError::BadBackendSpec(_))
        ));
        assert!(matches!(
            "pcie".parse::<BackendSpec>(),
            Err(DeviceError::BadBackendSpec(_))
        ));
        assert!(matches!(
            "vfio:zz".parse::<BackendSpec>(),
            Err(DeviceError::BadPciAddress { .. })
        ));
    }

    #[test]
    fn card_opens_mem_and_reads_caps() {
        let mut card = Card::open("mem").unwrap();
        let caps = card.caps().clone();
        assert_eq!(caps.version_major, contract::VERSION_MAJOR);
        assert_eq!(caps.num_queues, 8);
        assert_eq!(
            caps.q_reg(2, reg::Q_PROD),
            reg::Q_BASE + 2 * reg::Q_STRIDE + reg::Q_PROD
        );
        assert!((caps.clk_period_ns() - 4.0).abs() < 1e-9);
        assert_eq!(
            card.read_u64(reg::CAP_HORIZON_NS_LO, reg::CAP_HORIZON_NS_HI),
            caps.horizon_ns
        );
    }

    #[test]
    fn card_refuses_bad_magic_and_other_major() {
        let e =
            Card::from_backend(Box::new(mem::MemBackend::new_blank()), "mem".into()).unwrap_err();
        assert!(matches!(e, DeviceError::BadMagic { found: 0, .. }), "{e}");
        assert!(e.to_string().contains("not a tsnic card"));
        let mut m = mem::MemBackend::new_identity();
        m.set_reg(
            reg::CAP_VERSION,
            ((contract::VERSION_MAJOR as u32 + 1) << 16) | 3,
        );
        let e = Card::from_backend(Box::new(m), "mem".into()).unwrap_err();
        assert!(
            matches!(e, DeviceError::VersionMismatch { minor: 3, .. }),
            "{e}"
        );
        assert!(e.to_string().contains("update the driver or the bitstream"));
        // A newer minor is fine.
        let mut m = mem::MemBackend::new_identity();
        m.set_reg(
            reg::CAP_VERSION,
            ((contract::VERSION_MAJOR as u32) << 16) | 9,
        );
        assert_eq!(
            Card::from_backend(Box::new(m), "mem".into())
                .unwrap()
                .caps()
                .version_minor,
            9
        );
    }

    #[test]
    fn card_refuses_a_queue_map_outside_bar0() {
        let mut m = mem::MemBackend::new_identity();
        m.set_reg(reg::CAP_NUM_QUEUES, 100_000);
        assert!(matches!(
            Card::from_backend(Box::new(m), "mem".into()),
            Err(DeviceError::OutOfRange(_))
        ));
    }

    #[cfg(feature = "sim")]
    #[test]
    fn sim_reports_unavailable_or_opens() {
        match Card::open("sim:state=none") {
            Ok(_) | Err(DeviceError::SimUnavailable(_)) => {}
            Err(e) => panic!("{e}"),
        }
    }

    /// A build for a real card still knows the `sim` spec, and says how to get the simulator.
    #[cfg(not(feature = "sim"))]
    #[test]
    fn sim_is_not_built_in() {
        assert_eq!(
            "sim".parse::<BackendSpec>().unwrap(),
            BackendSpec::Sim(SimOptions::default())
        );
        let e = Card::open("sim").unwrap_err();
        assert!(matches!(e, DeviceError::SimUnavailable(_)), "{e}");
        let msg = e.to_string();
        assert!(
            msg.contains("without its `sim` feature")
                && msg.contains("cargo build --release -p tsnic"),
            "{msg}"
        );
    }

    /// `sim` is the board's configuration, `sim:small` the small one; both are handed out with
    /// their post-reset RAM clear over.
    #[cfg(feature = "sim")]
    #[test]
    fn sim_sizes() {
        let want = [
            ("sim:state=none", 4096, 65536, 8192, 10_000_000_000),
            ("sim:small,state=none", 8, 1024, 1024, 100_000_000),
        ];
        for (spec, queues, nodes, slots, horizon_ns) in want {
            let mut card = match Card::open(spec) {
                Err(DeviceError::SimUnavailable(_)) => return,
                r => r.unwrap(),
            };
            let c = card.caps().clone();
            assert_eq!(
                (c.num_queues, c.nodes, c.slots, c.horizon_ns),
                (queues, nodes, slots, horizon_ns),
                "{spec}"
            );
            let st = card.backend().read32(crate::contract::reg::CTRL_STATUS);
            assert_eq!(
                st & crate::contract::reg::CTRL_STATUS_RESET_BUSY,
                0,
                "{spec}"
            );
        }
    }

    #[test]
    fn host_clock_model_drifts_and_steps() {
        let mut c = HostClockModel::new(0, 1_000);
        assert_eq!(c.host_ns(500), 1_500);
        c.set_freq_error_ppb(1_000, 100_000.0); // +100 ppm
        assert_eq!(c.host_ns(1_000), 2_000);
        assert_eq!(c.host_ns(1_000 + 1_000_000_000), 2_000 + 1_000_100_000);
        c.step(2_000, -500);
        assert_eq!(c.host_ns(2_000), 2_000 + 1_000 - 500);
    }

    #[test]
    fn mem_backend_dma_round_trip() {
        let mut m = mem::MemBackend::new_identity();
        let r = m.dma_alloc(100).unwrap();
        assert_eq!(r.len(), DMA_ALIGN);
        assert_eq!(r.iova() % DMA_ALIGN as u64, 0);
        m.dma_write(&r, 8, &[1, 2, 3, 4]);
        assert_eq!(m.dma_read_u32(&r, 8), 0x0403_0201);
        assert_eq!(m.iova_to(r.iova() + 10), Some((r.id(), 10)));
        let t0 = m.now_ns();
        m.wait_ns(1000).unwrap();
        assert_eq!(m.now_ns(), t0 + 1000);
    }
}
