//! `tsnic`: the command-line front end. Parses the subcommand and hands it to `cli::<cmd>::run`.

mod cli;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "tsnic",
    version,
    about = "tsnic time-scheduled transmit NIC: driver and tools"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the EDT TCP sender (CUBIC or BBR) closed-loop over a simulated network path.
    ///
    /// Runs on the Verilated card by default (`--card model`: the software card model). Needs the
    /// `sim` feature (a default build).
    Send(cli::send::SendArgs),
    /// Identity and capabilities of the card.
    Info(cli::info::InfoArgs),
    /// The card's counters (global and per queue).
    Stats(cli::stats::StatsArgs),
    /// The card's PTP hardware clock: get, set, adj, freq, sync (lock to the host CLOCK_TAI).
    Phc(cli::phc::PhcArgs),
    /// An IEEE 1588 ordinary clock on the card's port: slave or master, L2 or UDP/IPv4, status lines
    /// as ptp4l's (offset, frequency, path delay, state). `--sim-pair` runs two simulated cards on
    /// one wire and reports the slave's offset to true time. docs/PTP.md.
    Ptp(cli::ptp::PtpArgs),
    /// Push a pacing trace (CSV format v1: launch_ns,queue,len) through the card, each frame on time.
    ///
    /// Rows are held in host memory and posted when the card can take them, so a trace of any length
    /// goes out whole; anything not sent is reported (and fails the command with --strict).
    Push(cli::push::PushArgs),
    /// Replay a pcap/pcapng capture byte for byte with its own inter-packet timing.
    ///
    /// Frames under 60 bytes are padded to 60 and backward timestamps sent in capture order, each
    /// with a warning.
    Replay(cli::replay::ReplayArgs),
    /// The simulated card, which keeps its state between commands as a real card does: status, reset
    /// (power-cycle). Its state file: `--backend sim:state=PATH` or TSNIC_SIM_STATE (`none`: a fresh
    /// card each command).
    Sim(cli::sim::SimArgs),
    /// (internal) The Linux receiver of `send --peer linux`, run inside its network namespace.
    #[cfg(feature = "sim")]
    #[command(hide = true)]
    PeerRecv(cli::peer::PeerRecvArgs),
    /// (internal) The kernel-TCP baseline sender of `send --peer linux --sender kernel`.
    #[cfg(feature = "sim")]
    #[command(hide = true)]
    PeerKernelSend(cli::peer::PeerKernelSendArgs),
    /// The card's configuration flash: info, write an image into slot A or B (the one not running
    /// by default), verify, boot A|B|golden. Golden is the card's fallback: writing it needs a
    /// deliberately named flag. Runs on the flash model by default (`--backend model`, a file per
    /// board); docs/FIRMWARE.md.
    Flash(cli::flash::FlashArgs),
    /// Play Linux's packetdrill scripts against the EDT sender in simulated time.
    ///
    /// The script is the peer: its inbound packets go to the sender at their times, every packet
    /// the sender sends is compared with the next outbound line (flags, sequence range, ack,
    /// window, options, time within the script's --tolerance_usecs, else 4 ms), socket calls map to the sender
    /// (listen/accept, connect, write, close, SO_SNDBUF, TCP_NOTSENT_LOWAT) and `%{ assert }%`
    /// lines are evaluated on its tcp_info view (a field it does not model fails the script).
    /// Scripts needing what the sender lacks are skipped, naming it. Prints a line per script and
    /// `N passed, M failed, K skipped`; exits non-zero if any failed. See docs/EDT.md.
    Pdrill(cli::pdrill::PdrillArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.cmd {
        Command::Send(args) => cli::send::run(args),
        Command::Info(args) => cli::info::run(args),
        Command::Stats(args) => cli::stats::run(args),
        Command::Phc(args) => cli::phc::run(args),
        Command::Ptp(args) => cli::ptp::run(args),
        Command::Push(args) => cli::push::run(args),
        Command::Replay(args) => cli::replay::run(args),
        Command::Sim(args) => cli::sim::run(args),
        #[cfg(feature = "sim")]
        Command::PeerRecv(args) => cli::peer::recv(args),
        #[cfg(feature = "sim")]
        Command::PeerKernelSend(args) => cli::peer::kernel(args),
        Command::Flash(args) => cli::flash::run(args),
        Command::Pdrill(args) => cli::pdrill::run(args),
    };
    // the command's own error first; then a failed write of its output (a closed pipe is not one)
    let result = result.and_then(|()| cli::out::finish());
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // Not eprintln!: it panics when stderr is a closed pipe too (`tsnic ... 2>&1 | head`).
            use std::io::Write;
            let _ = writeln!(std::io::stderr(), "error: {}", cli::out::error_text(&e));
            ExitCode::FAILURE
        }
    }
}
