//! `tsnic flash`: the card's configuration flash (golden image, slots A and B, boot record):
//! `info`, `write`, `verify`, `boot`, and for the model `power-cycle` and `test-image`.

use crate::cli::out::outln;
use std::cell::RefCell;
use std::path::PathBuf;
use std::rc::Rc;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use tsnic::flash::image::{self, hex};
use tsnic::flash::model::{self, ModelCard};
use tsnic::flash::regs::RegFlash;
use tsnic::flash::update::{self, Progress, WriteOptions};
use tsnic::flash::{Board, FlashDevice, Slot};

use super::common::{close_card, fmt_ns, open_card};

/// Arguments of `tsnic flash`.
#[derive(Args, Debug)]
pub struct FlashArgs {
    /// Where the flash is: `model` (default: the Rust model of the card's NOR flash and FPGA
    /// configuration logic, kept in --flash-file), `mem` (the same model behind a Rust model of the
    /// FLASH register block, driven through registers as a card is), or a card: `sim` or
    /// `vfio:DDDD:BB:DD.F` (needs a bitstream with the FLASH register block; the Verilated card
    /// gets it when the flash controller RTL is merged).
    #[arg(long, global = true, default_value = "model")]
    pub backend: String,
    /// Board the model plays (generic, u50, u280, u250, sume): its FPGA part and flash.
    #[arg(long, global = true, default_value = "u50")]
    pub board: Board,
    /// The model's flash file [default: ~/.cache/tsnic/flash-<board>.img]; created as shipped
    /// (factory golden image, golden write-protected) when missing.
    #[arg(long, global = true)]
    pub flash_file: Option<PathBuf>,
    #[command(subcommand)]
    pub cmd: FlashCmd,
}

/// `tsnic flash` subcommands.
#[derive(Subcommand, Debug)]
pub enum FlashCmd {
    /// Flash ID and size, layout, each image's design name, date and hash, the boot record, which
    /// image is running and whether a fallback happened.
    Info {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Write an image (.bit, or .bin with --part) into a slot: erase, program, verify by read-back
    /// and sha256, then switch the boot record (last). Default slot: the one not running.
    Write {
        /// The image: a Vivado .bit, or the raw .bin of write_bitstream -bin_file.
        image: PathBuf,
        /// Slot to write: A or B (golden needs --i-know-this-can-brick-the-card-golden).
        #[arg(long)]
        slot: Option<Slot>,
        /// For a .bin: the FPGA part it was built for (a .bit names its own).
        #[arg(long)]
        part: Option<String>,
        /// Allow writing the golden image (the card's fallback; a bad one needs JTAG to recover).
        #[arg(long = "i-know-this-can-brick-the-card-golden")]
        golden_ok: bool,
    },
    /// Read every image back and check its sha256 against its header and the boot record.
    Verify,
    /// Reboot the FPGA into an image (IPROG); on a real card, remove and rescan the PCI device
    /// afterwards (printed). --default also makes it the boot record's choice for power-up.
    Boot {
        /// A, B or golden.
        slot: Slot,
        /// Also write the boot record so the card boots this image at every power-up.
        #[arg(long)]
        default: bool,
    },
    /// Power-cycle the simulated card (model backends): the FPGA configures from address 0 and the
    /// golden image's boot selector follows the boot record.
    PowerCycle,
    /// Write a synthetic .bit (header and sync word; not loadable into an FPGA) to try `flash write`
    /// on the model. Never overwrites a file, and never the flash model's file.
    TestImage {
        /// Output .bit file (a new file).
        out: PathBuf,
        /// Configuration data size: bytes, or with K/M (KiB/MiB), e.g. 4M, 40MB.
        #[arg(long, default_value = "4M", allow_hyphen_values = true)]
        size: String,
        /// Part [default: the --board's part].
        #[arg(long)]
        part: Option<String>,
        /// Design name.
        #[arg(long, default_value = "tsnic_top;UserID=0XFFFFFFFF;Version=2023.2")]
        design: String,
        /// Seed of the data (different seeds, different images).
        #[arg(long, default_value_t = 1, allow_hyphen_values = true, value_parser = super::common::u64_arg)]
        seed: u64,
    },
}

/// Parse a size: bytes, or K/KB/KiB, M/MB/MiB (powers of two).
pub fn parse_size(s: &str) -> Result<usize> {
    let t = s.trim().to_ascii_lowercase();
    let (num, mult) = [
        ("kib", 1usize << 10),
        ("kb", 1 << 10),
        ("k", 1 << 10),
        ("mib", 1 << 20),
        ("mb", 1 << 20),
        ("m", 1 << 20),
        ("b", 1),
    ]
    .iter()
    .find_map(|(u, m)| t.strip_suffix(u).map(|n| (n.trim(), *m)))
    .unwrap_or((t.as_str(), 1));
    let v: f64 = num
        .parse()
        .ok()
        .filter(|v: &f64| v.is_finite() && *v > 0.0)
        .with_context(|| format!("`{s}` is not a size: use bytes or K/M, e.g. 4096, 256K, 40M"))?;
    let n = (v * mult as f64).round();
    if n > (1u64 << 31) as f64 {
        bail!("`{s}` is larger than any flash slot");
    }
    Ok(n as usize)
}

/// Progress bars on stderr (hidden when stderr is not a terminal).
struct Bars {
    bar: Option<ProgressBar>,
}

impl Progress for Bars {
    fn phase(&mut self, name: &'static str, total: u64) {
        if let Some(b) = self.bar.take() {
            b.finish_and_clear();
        }
        let b = ProgressBar::new(total);
        b.set_style(
            ProgressStyle::with_template("{prefix:>11} [{bar:40}] {bytes}/{total_bytes} {eta}")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        b.set_prefix(name);
        self.bar = Some(b);
    }
    fn advance(&mut self, n: u64) {
        if let Some(b) = &self.bar {
            b.inc(n);
        }
    }
}

impl Drop for Bars {
    fn drop(&mut self) {
        if let Some(b) = self.bar.take() {
            b.finish_and_clear();
        }
    }
}

/// A path as the file system will resolve it: canonical when it exists, else its folder's canonical
/// form plus its name (else as given, made absolute).
fn resolved(p: &std::path::Path) -> PathBuf {
    if let Ok(c) = std::fs::canonicalize(p) {
        return c;
    }
    let abs = std::env::current_dir()
        .map(|d| d.join(p))
        .unwrap_or_else(|_| p.to_path_buf());
    match (abs.parent(), abs.file_name()) {
        (Some(dir), Some(name)) => std::fs::canonicalize(dir)
            .map(|d| d.join(name))
            .unwrap_or(abs.clone()),
        _ => abs,
    }
}

/// `test-image OUT` must not name the flash model's file (or its state and lock files).
fn refuse_flash_model_file(out: &std::path::Path, flash: &std::path::Path) -> Result<()> {
    let target = resolved(out);
    let flash = resolved(flash);
    let mut related = vec![flash.clone()];
    for ext in [".state.json", ".state.json.tmp", ".lock"] {
        let mut s = flash.as_os_str().to_owned();
        s.push(ext);
        related.push(PathBuf::from(s));
    }
    if related.contains(&target) {
        bail!(
            "refusing to write the test image to {}: it is the flash model's file (or its state or lock) {}, the simulated card's whole flash; choose another name for the image, e.g. `tsnic flash test-image test.bit`; nothing was written",
            out.display(),
            flash.display()
        );
    }
    Ok(())
}

/// Write `bytes` to a new file; never replaces an existing one (nor follows a link to one).
fn write_new_file(out: &std::path::Path, bytes: &[u8]) -> Result<()> {
    use std::io::Write;
    let mut f = match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(out)
    {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => bail!(
            "refusing to overwrite {}: it exists; remove it first or choose another name; nothing was written",
            out.display()
        ),
        Err(e) => return Err(e).with_context(|| format!("cannot create {}", out.display())),
    };
    if let Err(e) = f.write_all(bytes).and_then(|_| f.sync_all()) {
        drop(f);
        std::fs::remove_file(out).ok();
        return Err(e).with_context(|| {
            format!(
                "cannot write {} (the partial file was removed)",
                out.display()
            )
        });
    }
    Ok(())
}

/// What the flash model has to say about how it was opened (a missing state file, ...), on stderr.
fn print_notes(card: &ModelCard) {
    for n in &card.notes {
        eprintln!("flash: {n}");
    }
}

/// Run `tsnic flash`.
pub fn run(args: FlashArgs) -> Result<()> {
    if let FlashCmd::TestImage {
        out,
        size,
        part,
        design,
        seed,
    } = &args.cmd
    {
        let len = parse_size(size)?;
        // An image no slot can hold is of no use: say so rather than write it.
        if let Some(layout) = tsnic::flash::layout::Layout::for_board(args.board) {
            // a slot's last 4 KB subsector is its image header
            let slot = layout.region(Slot::A).len as usize - 4096;
            if len > slot {
                bail!(
                    "--size {size} ({len} bytes) is more than a slot of the {} card's flash holds ({slot} bytes): it could never be written; use e.g. --size 40M; nothing was written",
                    args.board
                );
            }
        }
        let part = part
            .clone()
            .unwrap_or_else(|| args.board.part().to_string());
        let flash = match &args.flash_file {
            Some(p) => Some(p.clone()),
            None => model::default_path(args.board).ok(),
        };
        if let Some(f) = flash {
            refuse_flash_model_file(out, &f)?;
        }
        let bytes = image::synth_bit(design, &part, "2026/12/01", "12:00:00", len, *seed);
        write_new_file(out, &bytes)?;
        outln!(
            "wrote {} ({} bytes of configuration data for {part}; synthetic, for the flash model)",
            out.display(),
            len
        );
        return Ok(());
    }
    // An image that will be refused is refused before any card or flash model is opened (a new
    // model file is 128 MB; none is made for a command that writes nothing).
    if let FlashCmd::Write { image, part, .. } = &args.cmd {
        let img = image::load(image, part.as_deref()).map_err(tsnic::flash::FlashError::from)?;
        // a .bit names its own part: a --part that says otherwise is a mistake, not to be ignored
        if let (Some(given), Some(own)) = (part, &img.part) {
            if image::device_of(given) != image::device_of(own) {
                bail!(
                    "--part {given} contradicts {}: it is a .bit built for {own} (--part is for a raw .bin; a .bit names its own part): drop --part or give the right image; nothing was written",
                    image.display()
                );
            }
        }
    }
    // tsnic makes only its default folder (~/.cache/tsnic); a named one that is missing is a typo.
    if let Some(dir) = args
        .flash_file
        .as_deref()
        .and_then(|p| p.parent())
        .filter(|d| !d.as_os_str().is_empty() && !d.is_dir())
    {
        bail!(
            "--flash-file {}: the folder {} does not exist: create it (`mkdir -p {}`) or name a file in an existing folder; nothing was made",
            args.flash_file.as_deref().unwrap_or(dir).display(),
            dir.display(),
            dir.display()
        );
    }
    // a device or FIFO is not a flash model file: never read (a FIFO waits forever), locked beside
    // or written
    if let Some(f) = args.flash_file.as_deref() {
        if std::fs::metadata(f).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
            bail!(
                "--flash-file {}: not a regular file (a device, FIFO or socket), so it is neither read nor changed: name a file (it is created as shipped when missing)",
                f.display()
            );
        }
    }
    let spec = args.backend.as_str();
    let prefix = command_prefix(&args);
    match spec {
        "model" | "mem" => {
            let path = match &args.flash_file {
                Some(p) => p.clone(),
                None => model::default_path(args.board)?,
            };
            let mut card = ModelCard::open(args.board, &path)?;
            print_notes(&card);
            if let FlashCmd::PowerCycle = args.cmd {
                let msg = power_cycle_model(&mut card);
                card.close()?;
                outln!("{msg}");
                return Ok(());
            }
            if spec == "model" {
                let mut card = card;
                let r = command(&mut card, &args.cmd, spec, &prefix);
                let saved = card.close();
                r?;
                saved?;
            } else {
                // AMD's factory image has no tsnic register block at all: say that, not "no FLASH block"
                if card.running.factory {
                    let why = card.factory_reason();
                    card.close()?;
                    return Err(tsnic::flash::FlashError::FactoryImage { why }.into());
                }
                let card = Rc::new(RefCell::new(card));
                let mut backend = tsnic::flash::ctrl_model::mem_backend(card.clone());
                let r = {
                    let mut dev = RegFlash::new(&mut backend);
                    command(&mut dev, &args.cmd, spec, &prefix)
                };
                let saved = card.borrow_mut().close();
                r?;
                saved?;
            }
            Ok(())
        }
        _ if spec == "sim" || spec.starts_with("sim:") => run_on_sim(&args, spec),
        "null" => Err(tsnic::device::DeviceError::NullUnsupported {
            what: "flash (`tsnic flash` takes `model`, `mem`, `sim` or `vfio:DDDD:BB:DD.F`)".into(),
        }
        .into()),
        _ => {
            // a misspelt backend is named as such, not taken for a real card
            spec.parse::<tsnic::device::BackendSpec>()
                .with_context(|| format!("--backend {spec}: `tsnic flash` takes `model` (the default), `mem`, `sim` or `vfio:DDDD:BB:DD.F`"))?;
            if args.flash_file.is_some() {
                bail!("--flash-file is for the model backends and the simulated card (`--backend model`, `mem` or `sim`); a real card keeps its own flash");
            }
            let mut card = open_card(spec).map_err(factory_hint)?;
            let r = {
                let mut dev = RegFlash::new(card.backend());
                command(&mut dev, &args.cmd, spec, &prefix)
            };
            close_card(card)?;
            r
        }
    }
}

/// On the Verilated card: the flash model (kept in --flash-file like `--backend model`) on the flash
/// controller RTL's pins. The first time a simulated card meets its flash, it configures from it (a
/// core reset, as at power-up) so that what the core read at startup matches the flash.
#[cfg(feature = "sim")]
fn run_on_sim(args: &FlashArgs, spec: &str) -> Result<()> {
    use tsnic::device::{open_sim_backend, Backend, BackendSpec, Card};
    use tsnic::flash::regs::{FLASH_BOOT_STATUS, FLASH_BOOT_WBSTAR, FLASH_CAP};
    use tsnic::flash::sim_pins::SimFlash;
    if let FlashCmd::PowerCycle = args.cmd {
        bail!("power-cycle works on the model backends (`--backend model` or `mem`); for the simulated card: `tsnic sim reset`, then the next `tsnic flash` configures it from its flash");
    }
    let path = match &args.flash_file {
        Some(p) => p.clone(),
        None => model::default_path(args.board)?,
    };
    let opts = match spec.parse::<BackendSpec>()? {
        BackendSpec::Sim(o) => o,
        _ => bail!("`{spec}` is not the simulated card"),
    };
    let model = ModelCard::open(args.board, &path)?;
    print_notes(&model);
    let flash = SimFlash::new(model);
    let check_boot = |b: &mut dyn Backend| -> Result<bool> {
        if b.read32(FLASH_CAP) == 0 {
            bail!(
                "the simulated card has no FLASH register block (FLASH_CAP reads 0): rebuild tsnic"
            );
        }
        // What the core read from the ICAP at its last reset, against what the flash configures.
        let (wbstar, bootsts) = flash.boot_words();
        let seen = (b.read32(FLASH_BOOT_WBSTAR), b.read32(FLASH_BOOT_STATUS));
        Ok(seen.0 != wbstar || seen.1 >> 16 != bootsts & 0xffff)
    };
    let say_configuring = || {
        eprintln!(
            "sim: configuring the simulated card from its flash {} (a core reset, as at power-up)",
            path.display()
        )
    };
    let backend: Box<dyn Backend> = if opts.board {
        // the board build (`sim:board[=NAME]`): the flash model on the board core's pins
        tsnic::device::board_state_check(&opts)?;
        let mut b = tsnic::device::sim_board::BoardBackend::new(opts.board_kind.config())
            .with_context(|| format!("cannot open the card `{spec}`"))?;
        if b.read32(FLASH_CAP) != 0 {
            b.card()
                .attach_flash(flash.pins())
                .context("cannot attach the flash model to the simulated board")?;
        }
        if check_boot(&mut b)? {
            say_configuring();
            let reset = b.card().config().reset_cycles;
            b.reset_card(reset)?;
        }
        Box::new(b)
    } else {
        let mut sim =
            open_sim_backend(&opts).with_context(|| format!("cannot open the card `{spec}`"))?;
        if sim.read32(FLASH_CAP) != 0 {
            sim.card()
                .attach_flash(flash.pins())
                .context("cannot attach the flash model to the simulated card")?;
        }
        if check_boot(&mut sim)? {
            say_configuring();
            let reset = sim.card().config().reset_cycles;
            sim.card().reset(reset);
            sim.wait_ns(10_000)?;
        }
        Box::new(sim)
    };
    let prefix = command_prefix(args);
    let mut card = Card::from_backend(backend, spec.to_string())?;
    let r = {
        let mut dev = RegFlash::new(card.backend());
        command(&mut dev, &args.cmd, spec, &prefix)
    };
    let closed = close_card(card);
    let mut model = match flash.into_card() {
        Ok(m) => m,
        Err(_) => bail!("internal: the simulated card still holds its flash model"),
    };
    let saved = model.close();
    r?;
    closed?;
    saved?;
    Ok(())
}

#[cfg(not(feature = "sim"))]
fn run_on_sim(_args: &FlashArgs, _spec: &str) -> Result<()> {
    bail!("{}", tsnic::device::SIM_NOT_BUILT)
}

/// The start of a `tsnic flash` command line that reaches the same card as this one (for advice).
fn command_prefix(args: &FlashArgs) -> String {
    let quote = |s: String| {
        if s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-:,=+@".contains(c))
        {
            s
        } else {
            format!("'{}'", s.replace('\'', "'\\''"))
        }
    };
    let mut p = "tsnic flash".to_string();
    if args.backend != "model" {
        p += &format!(" --backend {}", quote(args.backend.clone()));
    }
    if !args.backend.starts_with("vfio:") {
        p += &format!(" --board {}", args.board);
        if let Some(f) = &args.flash_file {
            p += &format!(" --flash-file {}", quote(f.display().to_string()));
        }
    }
    p
}

fn command(dev: &mut dyn FlashDevice, cmd: &FlashCmd, spec: &str, prefix: &str) -> Result<()> {
    match cmd {
        FlashCmd::Info { json } => info(dev, *json),
        FlashCmd::Write {
            image,
            slot,
            part,
            golden_ok,
        } => write(dev, image, *slot, part.as_deref(), *golden_ok),
        FlashCmd::Verify => verify(dev, prefix),
        FlashCmd::Boot { slot, default } => boot(dev, *slot, *default, spec),
        FlashCmd::PowerCycle => bail!("power-cycle works on the model backends only (`--backend model` or `mem`); on a card, power-cycle the host"),
        FlashCmd::TestImage { .. } => Ok(()),
    }
}

fn slot_line(s: &update::SlotInfo) -> String {
    let mut line = match &s.header {
        None => "empty (no complete image)".to_string(),
        Some(h) => format!(
            "{} | {} | {} {} | {} bytes | sha256 {}",
            h.design,
            if h.part.is_empty() { "-" } else { &h.part },
            h.date,
            h.time,
            h.data_len,
            &hex(&h.sha256)[..16]
        ),
    };
    if s.bad {
        line.push_str(" | FLAGGED BAD in the boot record");
    }
    if s.failed_last_boot {
        line.push_str(" | FAILED to configure at the last boot (flagged bad at the next write)");
    }
    if let (Some(h), Some(r)) = (&s.header, &s.record_sha256) {
        if hex(&h.sha256) != *r {
            line.push_str(" | the boot record's sha256 differs: run `tsnic flash verify`");
        }
    }
    line
}

fn info(dev: &mut dyn FlashDevice, json: bool) -> Result<()> {
    let describe = dev.describe();
    let i = update::info(dev)?;
    if json {
        let mut v = serde_json::to_value(&i)?;
        v["backend"] = describe.into();
        outln!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(());
    }
    let running = match i.running {
        Some(Slot::Golden) => format!(
            "golden (tsnic's boot selector at {:#010x}: the boot record chose no slot, or `flash boot golden`)",
            i.layout.golden.base
        ),
        Some(s) => s.to_string(),
        None if i.boot.wbstar == i.layout.factory.base && i.boot.fallback => {
            "AMD's factory image (address 0) after a FALLBACK: a tsnic image failed to configure; on a real card tsnic's registers would be gone (docs/FIRMWARE.md, \"Power-up chain and fallback\")".to_string()
        }
        None => format!("unknown (warm-boot address {:#010x})", i.boot.wbstar),
    };
    outln!("backend        {describe}");
    outln!(
        "board          {} ({}; flash {})",
        i.cap.board,
        i.cap.board.part(),
        i.cap.board.flash_part()
    );
    outln!(
        "flash          JEDEC ID {}, {} MB",
        i.jedec_id,
        i.cap.size >> 20
    );
    let prot = |p: bool| {
        if p {
            "write-protected"
        } else {
            "NOT write-protected"
        }
    };
    outln!(
        "status         SR {:#04x}, flag SR {:#04x}; factory image {}, golden {} ({})",
        i.sr.0,
        i.sr.1,
        prot(i.factory_protected),
        prot(i.golden_protected),
        match i.protected {
            Some((a, b)) => format!("BP/TB protect {a:#010x}..{b:#010x}"),
            None => "BP/TB protect nothing".into(),
        }
    );
    outln!(
        "running        {running}{}",
        if i.boot.fallback {
            " after a FALLBACK (an image failed to configure)"
        } else {
            ""
        }
    );
    match &i.record {
        Some((copy, r)) => outln!(
            "boot record    boots {} at power-up; generation {} (copy {copy}; copies valid: {}, {}); flags {:#x}",
            r.active, r.generation, i.copies_valid[0], i.copies_valid[1], r.flags
        ),
        None => outln!("boot record    none valid: the card stays in golden at power-up"),
    }
    outln!(
        "{:<14} {:#010x}..{:#010x}  AMD's factory image: loaded at power-up (it starts golden) and after any failed configuration; tsnic never writes it",
        "factory",
        i.layout.factory.base,
        i.layout.factory.end()
    );
    for s in &i.slots {
        outln!(
            "{:<14} {:#010x}..{:#010x}  {}",
            format!("{}", s.slot),
            s.region.base,
            s.region.end(),
            slot_line(s)
        );
    }
    outln!(
        "records        {:#010x}, {:#010x}",
        i.layout.record0,
        i.layout.record1
    );
    Ok(())
}

fn write(
    dev: &mut dyn FlashDevice,
    path: &std::path::Path,
    slot: Option<Slot>,
    part: Option<&str>,
    golden_ok: bool,
) -> Result<()> {
    let img = image::load(path, part).map_err(tsnic::flash::FlashError::from)?;
    let opts = WriteOptions {
        slot,
        allow_golden: golden_ok,
    };
    let mut bars = Bars { bar: None };
    let r = update::write(dev, &img, &opts, &mut bars)?;
    drop(bars);
    outln!(
        "wrote slot {}: {} ({}{}), {} bytes, {} pages programmed, verified (sha256 {})",
        r.slot,
        img.design,
        img.part.as_deref().unwrap_or("part not given"),
        if img.date.is_empty() {
            String::new()
        } else {
            format!(", {} {}", img.date, img.time)
        },
        r.bytes,
        r.pages,
        hex(&img.sha256)
    );
    if let (Some(g), Some(c)) = (r.generation, r.record_copy) {
        outln!(
            "boot record: slot {} from the next power-up (generation {g}, copy {c}); boot it now with `tsnic flash boot {}`",
            r.slot, r.slot
        );
    }
    if let Some(ns) = r.sim_ns {
        outln!("simulated time {}", fmt_ns(ns));
    }
    if let Some(n) = r.reg_accesses {
        outln!(
            "register accesses {n} ({:.1} per KB of image)",
            n as f64 / (r.bytes as f64 / 1024.0)
        );
    }
    Ok(())
}

fn verify(dev: &mut dyn FlashDevice, prefix: &str) -> Result<()> {
    let mut bars = Bars { bar: None };
    let checks = update::verify(dev, &mut bars)?;
    drop(bars);
    let mut bad = Vec::new();
    for c in &checks {
        let what = if c.empty {
            "empty".to_string()
        } else if c.ok {
            "ok (data matches its header's sha256)".to_string()
        } else {
            "CORRUPT (data does not match its header's sha256)".to_string()
        };
        let extra = if c.record_mismatch {
            "; the boot record names another image"
        } else {
            ""
        };
        let sel = if c.selected {
            " [boot record's choice]"
        } else {
            ""
        };
        outln!("{:<7} {what}{extra}{sel}", c.slot.to_string());
        if (!c.empty && !c.ok)
            || c.record_mismatch
            || (c.selected && c.empty)
            || (c.slot == Slot::Golden && c.empty)
        {
            bad.push(c.slot.to_string());
        }
    }
    if !bad.is_empty() {
        let good = |s: Slot| {
            checks
                .iter()
                .any(|c| c.slot == s && c.ok && !c.record_mismatch)
        };
        let mut fixes = Vec::new();
        for c in checks.iter().filter(|c| bad.contains(&c.slot.to_string())) {
            let s = c.slot;
            fixes.push(match s {
                Slot::Golden => format!(
                    "golden: `{prefix} write GOLDEN.bit --slot golden --i-know-this-can-brick-the-card-golden` (GOLDEN.bit: tsnic's golden image, `make -C board/<board> golden`)"
                ),
                _ if c.selected && good(s.other()) => format!(
                    "slot {s}: `{prefix} write IMAGE --slot {s}`, or first boot the good slot by default: `{prefix} boot {o} --default`",
                    o = s.other()
                ),
                _ => format!("slot {s}: `{prefix} write IMAGE --slot {s}`"),
            });
        }
        bail!(
            "verify failed for {}; rewrite it (IMAGE: the .bit to put there):\n  {}",
            bad.join(", "),
            fixes.join("\n  ")
        );
    }
    Ok(())
}

/// A vfio card that is not tsnic may be AMD's factory image after a failed configuration: say so.
fn factory_hint(e: anyhow::Error) -> anyhow::Error {
    let amd = e.chain().any(|c| {
        matches!(
            c.downcast_ref::<tsnic::device::DeviceError>(),
            Some(tsnic::device::DeviceError::NotTsnic { vendor: 0x10ee, .. })
        )
    });
    if amd {
        e.context("this AMD/Xilinx device may be the card's factory image: after a tsnic image fails to configure the FPGA falls back to address 0 and stays there (docs/FIRMWARE.md, \"Power-up chain and fallback\"); power-cycle the host, and if the card comes up in the factory image again, recover over JTAG")
    } else {
        e
    }
}

fn boot(dev: &mut dyn FlashDevice, slot: Slot, default: bool, spec: &str) -> Result<()> {
    update::boot(dev, slot, default)?;
    if default {
        outln!("boot record: {slot} at every power-up");
    }
    if spec.starts_with("vfio:") {
        let addr = spec
            .trim_start_matches("vfio:")
            .split(',')
            .next()
            .unwrap_or("");
        outln!(
            "IPROG sent: the FPGA reconfigures from slot {slot} and the card drops off PCIe. Now, as root:\n  echo 1 > /sys/bus/pci/devices/{addr}/remove\n  sleep 2   # configuration of a 40 MB image at SPIx4 takes about a second\n  echo 1 > /sys/bus/pci/rescan\nthen bind it to vfio-pci again (docs/FIRMWARE.md) and check with `tsnic flash info --backend {spec}`"
        );
        return Ok(());
    }
    match dev.boot_state() {
        Err(e @ tsnic::flash::FlashError::FactoryImage { .. }) => {
            bail!("IPROG to slot {slot}: it did not configure, and the card fell back: {e}")
        }
        Ok(b) => {
            let running = tsnic::flash::layout::LAYOUT_128M.slot_at(b.wbstar);
            let r = running.map(|s| s.to_string()).unwrap_or_else(|| "?".into());
            outln!(
                "IPROG to slot {slot}: running {r}{}",
                if b.fallback {
                    " after a FALLBACK (the image did not configure)"
                } else {
                    ""
                }
            );
            if running != Some(slot) {
                bail!("slot {slot} did not configure: the card fell back (see `tsnic flash info`)");
            }
            Ok(())
        }
        Err(e) => Err(e.into()),
    }
}

/// `tsnic flash power-cycle` on a model card.
fn power_cycle_model(card: &mut ModelCard) -> String {
    card.power_cycle();
    if card.running.factory {
        return format!(
            "power-cycled: the card runs AMD's factory image: {} (docs/FIRMWARE.md, \"Power-up chain and fallback\")",
            card.factory_reason()
        );
    }
    match card.running.slot {
        Some(s) => format!(
            "power-cycled: running {s}{}",
            if card.running.state.fallback {
                " after a FALLBACK"
            } else {
                ""
            }
        ),
        None => {
            "power-cycled: the FPGA did not configure (no valid factory image at address 0)".into()
        }
    }
}
