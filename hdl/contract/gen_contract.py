#!/usr/bin/env python3
"""Generate tsnic's hardware/software contract files from hdl/contract/tsnic.toml.

    gen_contract.py            write every generated file
    gen_contract.py --check    exit 1 if any generated file differs from what the source gives

The source is the only place a register offset, a descriptor field or a status code is written by
hand. Outputs: a Verilog header for the RTL, a Rust module for the driver, a Python module for the
cocotb benches and docs/REGISTERS.md for people.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "hdl" / "contract" / "tsnic.toml"
OUT_VH = ROOT / "hdl" / "rtl" / "tsnic_contract.vh"
OUT_RS = ROOT / "driver" / "src" / "contract.rs"
OUT_PY = ROOT / "tests" / "cocotb" / "common" / "tsnic_contract.py"
OUT_MD = ROOT / "docs" / "REGISTERS.md"

BANNER = "Generated from hdl/contract/tsnic.toml by hdl/contract/gen_contract.py. Do not edit: run `make gen`."


class ContractError(Exception):
    pass


# ----------------------------------------------------------------------------------------------
# Loading and checking the source


# Record layouts: (toml key, prefix in Verilog/Python/Rust constants, Rust struct name)
RECORDS = (("descriptor", "DESC", "TxDescriptor"), ("completion", "CPL", "Completion"),
           ("rx_descriptor", "RXD", "RxDescriptor"), ("rx_completion", "RXC", "RxCompletion"),
           ("pk_record", "PKR", "PkRecord"), ("pk_base_record", "PKB", "PkBaseRecord"))
# Flag-bit lists: (toml key, prefix)
FLAGS = (("feature", "FEATURE"), ("descriptor_flag", "DESC_FLAG"), ("completion_flag", "CPL_FLAG"),
         ("rx_completion_flag", "RXC_FLAG"), ("pk_flag", "PK_FLAG"))


def load(path: Path = SOURCE) -> dict:
    with path.open("rb") as f:
        c = tomllib.load(f)
    validate(c)
    return c


def _check_layout(kind: str, layout: dict) -> None:
    size = layout["size"]
    used = [False] * (size * 8)
    for fld in layout["field"]:
        off, width = fld["offset"], fld["width"]
        if width % 8 or width not in (8, 16, 32, 64):
            raise ContractError(f"{kind}.{fld['name']}: width {width} must be 8, 16, 32 or 64")
        if off % (width // 8):
            raise ContractError(f"{kind}.{fld['name']}: offset {off} is not aligned to its width")
        for b in range(off * 8, off * 8 + width):
            if b >= size * 8:
                raise ContractError(f"{kind}.{fld['name']}: runs past the {size}-byte record")
            if used[b]:
                raise ContractError(f"{kind}.{fld['name']}: overlaps another field")
            used[b] = True


def _check_codes(kind: str, items: list[dict], key: str) -> None:
    seen: dict[int, str] = {}
    names: set[str] = set()
    for it in items:
        if it["name"] in names:
            raise ContractError(f"{kind}: name {it['name']} is defined twice")
        names.add(it["name"])
        if it[key] in seen:
            raise ContractError(f"{kind}: {it['name']} and {seen[it[key]]} share {key} {it[key]}")
        seen[it[key]] = it["name"]


def validate(c: dict) -> None:
    for kind, _prefix, _sname in RECORDS:
        _check_layout(kind, c[kind])
    for kind, key in (("status", "value"), ("reject_reason", "value"), ("late_policy", "value"),
                      ("horizon_policy", "value"), ("rx_status", "value"), ("pk_type", "value"),
                      ("feature", "bit"), ("descriptor_flag", "bit"), ("completion_flag", "bit"),
                      ("rx_completion_flag", "bit"), ("pk_flag", "bit")):
        _check_codes(kind, c[kind], key)
    bar = c["meta"]["bar0_size"]
    spans = []
    for blk in c["block"]:
        extent = max(r["offset"] for r in blk["reg"]) + 4
        if "stride" in blk:
            if extent > blk["stride"]:
                raise ContractError(f"block {blk['name']}: registers run past its stride")
            extent = blk["stride"] * blk["max_count"]
        spans.append((blk["base"], blk["base"] + extent, blk["name"]))
        offs = set()
        for r in blk["reg"]:
            if r["offset"] % 4:
                raise ContractError(f"{blk['name']}_{r['name']}: offset not 32-bit aligned")
            if r["offset"] in offs:
                raise ContractError(f"{blk['name']}_{r['name']}: offset used twice")
            offs.add(r["offset"])
            if r["access"] not in ("ro", "rw", "wo", "w1c", "rc"):
                raise ContractError(f"{blk['name']}_{r['name']}: unknown access {r['access']}")
            bits = 0
            for f in r.get("fields", []):
                mask = ((1 << f["width"]) - 1) << f["lsb"]
                if f["lsb"] + f["width"] > 32 or bits & mask:
                    raise ContractError(f"{blk['name']}_{r['name']}.{f['name']}: field overlaps or exceeds 32 bits")
                bits |= mask
    spans.sort()
    for (a0, a1, an), (b0, _b1, bn) in zip(spans, spans[1:]):
        if a1 > b0:
            raise ContractError(f"blocks {an} and {bn} overlap")
    if spans[-1][1] > bar:
        raise ContractError(f"block {spans[-1][2]} runs past BAR0 size {bar:#x}")


# ----------------------------------------------------------------------------------------------
# Verilog


def gen_verilog(c: dict) -> str:
    m = c["meta"]
    o = [f"// {BANNER}", "`ifndef TSNIC_CONTRACT_VH", "`define TSNIC_CONTRACT_VH", ""]
    o.append(f"`define TSNIC_MAGIC 32'h{m['magic']:08X}")
    o.append(f"`define TSNIC_VERSION 32'h{(m['version_major'] << 16) | m['version_minor']:08X}")
    o.append(f"`define TSNIC_BAR0_SIZE {m['bar0_size']}")
    o.append("")
    for kind, prefix, width in (("status", "STATUS", 8), ("reject_reason", "REJECT", 8),
                                ("late_policy", "LATE_POLICY", 1), ("horizon_policy", "HORIZON_POLICY", 1),
                                ("rx_status", "RX_STATUS", 8), ("pk_type", "PK_TYPE", 8)):
        o.append(f"// {kind}")
        for it in c[kind]:
            o.append(f"`define TSNIC_{prefix}_{it['name']} {width}'d{it['value']}")
        o.append("")
    for kind, prefix in FLAGS:
        o.append(f"// {kind} bit positions")
        for it in c[kind]:
            o.append(f"`define TSNIC_{prefix}_{it['name']}_BIT {it['bit']}")
        o.append("")
    for kind, prefix, _sname in RECORDS:
        lay = c[kind]
        o.append(f"// {kind}: {lay['size']} bytes; _LSB is the bit position in the little-endian record")
        o.append(f"`define TSNIC_{prefix}_SIZE {lay['size']}")
        o.append(f"`define TSNIC_{prefix}_BITS {lay['size'] * 8}")
        for f in lay["field"]:
            n = f["name"].upper()
            o.append(f"`define TSNIC_{prefix}_{n}_LSB {f['offset'] * 8}")
            o.append(f"`define TSNIC_{prefix}_{n}_W {f['width']}")
        o.append("")
    for blk in c["block"]:
        b = blk["name"]
        o.append(f"// block {b}: {blk['doc']}")
        o.append(f"`define TSNIC_{b}_BASE 32'h{blk['base']:05X}")
        if "stride" in blk:
            o.append(f"`define TSNIC_{b}_STRIDE {blk['stride']}")
            o.append(f"`define TSNIC_{b}_STRIDE_LOG2 {blk['stride'].bit_length() - 1}")
            o.append(f"`define TSNIC_{b}_MAX_COUNT {blk['max_count']}")
        for r in blk["reg"]:
            rn = f"TSNIC_{b}_{r['name']}"
            if "stride" in blk:
                o.append(f"`define {rn} {r['offset']}  // offset inside one queue's block")
            else:
                o.append(f"`define {rn} 32'h{blk['base'] + r['offset']:05X}")
                o.append(f"`define {rn}_OFF {r['offset']}")
            for f in r.get("fields", []):
                o.append(f"`define {rn}_{f['name']}_BIT {f['lsb']}")
                if f["width"] != 1:
                    o.append(f"`define {rn}_{f['name']}_W {f['width']}")
        o.append("")
    o.append("`endif")
    return "\n".join(o) + "\n"


# ----------------------------------------------------------------------------------------------
# Rust


def _rust_doc(text: str, indent: str = "") -> str:
    return f"{indent}/// {text}"


def _rust_ty(width: int) -> str:
    return {8: "u8", 16: "u16", 32: "u32", 64: "u64"}[width]


def _camel(name: str) -> str:
    return "".join(p.capitalize() for p in name.lower().split("_"))


def gen_rust(c: dict) -> str:
    m = c["meta"]
    o = [f"//! {BANNER}", "//!", "//! The tsnic hardware/software contract: BAR0 offsets, record layouts and codes.", ""]
    o.append("#![allow(clippy::unreadable_literal)]")
    o.append("")
    o.append("/// Value of `CAP_MAGIC` (\"TSNC\").")
    o.append(f"pub const MAGIC: u32 = {m['magic']:#010x};")
    o.append("/// Contract major version; the driver refuses a card with another one.")
    o.append(f"pub const VERSION_MAJOR: u16 = {m['version_major']};")
    o.append("/// Contract minor version; newer minors only add.")
    o.append(f"pub const VERSION_MINOR: u16 = {m['version_minor']};")
    o.append("/// Size of BAR0 in bytes.")
    o.append(f"pub const BAR0_SIZE: usize = {m['bar0_size']:#x};")
    o.append("")

    def enum(name: str, doc: str, items: list[dict], repr_: str) -> None:
        o.append(f"/// {doc}")
        o.append("#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]")
        o.append(f"#[repr({repr_})]")
        o.append(f"pub enum {name} {{")
        for it in items:
            o.append(_rust_doc(it["doc"], "    "))
            o.append(f"    {_camel(it['name'])} = {it['value']},")
        o.append("}")
        o.append("")
        o.append(f"impl {name} {{")
        o.append("    /// Every value, in code order.")
        variants = ", ".join(f"{name}::{_camel(i['name'])}" for i in items)
        o.append(f"    pub const ALL: [{name}; {len(items)}] = [{variants}];")
        o.append("")
        o.append("    /// The code as the card writes it, or `None` for a code the contract does not define.")
        o.append(f"    pub fn from_code(code: {repr_}) -> Option<Self> {{")
        o.append("        match code {")
        for it in items:
            o.append(f"            {it['value']} => Some({name}::{_camel(it['name'])}),")
        o.append("            _ => None,")
        o.append("        }")
        o.append("    }")
        o.append("")
        o.append("    /// The contract's name for this code.")
        o.append("    pub fn name(self) -> &'static str {")
        o.append("        match self {")
        for it in items:
            o.append(f"            {name}::{_camel(it['name'])} => \"{it['name']}\",")
        o.append("        }")
        o.append("    }")
        o.append("}")
        o.append("")

    enum("Status", "Completion status codes.", c["status"], "u8")
    enum("RejectReason", "Why a descriptor was completed REJECTED.", c["reject_reason"], "u8")
    enum("LatePolicy", "What a queue does with a frame whose launch time has passed.", c["late_policy"], "u8")
    enum("HorizonPolicy", "What a queue does with a launch time beyond the horizon.", c["horizon_policy"], "u8")
    enum("RxStatus", "RX completion status codes.", c["rx_status"], "u8")
    enum("PkType", "Packed stream record types.", c["pk_type"], "u8")

    for kind, prefix in FLAGS:
        for it in c[kind]:
            o.append(_rust_doc(it["doc"]))
            o.append(f"pub const {prefix}_{it['name']}: u32 = 1 << {it['bit']};")
        o.append("")

    for kind, prefix, sname in RECORDS:
        lay = c[kind]
        o.append(f"/// Size of one {kind} record in bytes.")
        o.append(f"pub const {prefix}_SIZE: usize = {lay['size']};")
        o.append("")
        o.append(f"/// {lay['doc']}")
        o.append("#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]")
        o.append(f"pub struct {sname} {{")
        for f in lay["field"]:
            o.append(_rust_doc(f["doc"], "    "))
            o.append(f"    pub {f['name']}: {_rust_ty(f['width'])},")
        o.append("}")
        o.append("")
        o.append(f"impl {sname} {{")
        o.append("    /// Encode as the little-endian record the card reads or writes.")
        o.append(f"    pub fn to_bytes(&self) -> [u8; {lay['size']}] {{")
        o.append(f"        let mut b = [0u8; {lay['size']}];")
        for f in lay["field"]:
            n = f["width"] // 8
            o.append(f"        b[{f['offset']}..{f['offset'] + n}].copy_from_slice(&self.{f['name']}.to_le_bytes());")
        o.append("        b")
        o.append("    }")
        o.append("")
        o.append("    /// Decode a little-endian record.")
        o.append(f"    pub fn from_bytes(b: &[u8; {lay['size']}]) -> Self {{")
        o.append("        Self {")
        for f in lay["field"]:
            n = f["width"] // 8
            ty = _rust_ty(f["width"])
            arr = ", ".join(f"b[{f['offset'] + i}]" for i in range(n))
            o.append(f"            {f['name']}: {ty}::from_le_bytes([{arr}]),")
        o.append("        }")
        o.append("    }")
        o.append("}")
        o.append("")

    o.append("/// BAR0 register offsets (bytes). Per-queue registers are offsets inside one queue's block:")
    o.append("/// queue `q`'s register `r` is at `Q_BASE + q * Q_STRIDE + r`.")
    o.append("pub mod reg {")
    for blk in c["block"]:
        b = blk["name"]
        o.append(_rust_doc(f"Block {b}: {blk['doc']}", "    "))
        o.append(f"    pub const {b}_BASE: usize = {blk['base']:#x};")
        if "stride" in blk:
            o.append(_rust_doc(f"Distance between consecutive {b} blocks.", "    "))
            o.append(f"    pub const {b}_STRIDE: usize = {blk['stride']:#x};")
            o.append(_rust_doc(f"Most {b} blocks the map has room for.", "    "))
            o.append(f"    pub const {b}_MAX_COUNT: usize = {blk['max_count']};")
        for r in blk["reg"]:
            o.append(_rust_doc(f"({r['access']}) {r['doc']}", "    "))
            off = r["offset"] if "stride" in blk else blk["base"] + r["offset"]
            o.append(f"    pub const {b}_{r['name']}: usize = {off:#x};")
            for f in r.get("fields", []):
                o.append(_rust_doc(f["doc"], "    "))
                mask = ((1 << f["width"]) - 1) << f["lsb"]
                o.append(f"    pub const {b}_{r['name']}_{f['name']}: u32 = {mask:#x};")
    o.append("}")
    o.append("")

    # A #[repr(C)] register block for volatile-register style access through a mapped BAR0.
    o.append("/// Access kinds of every register, for the driver's typed register block.")
    o.append("#[derive(Debug, Clone, Copy, PartialEq, Eq)]")
    o.append("pub enum Access {")
    o.append("    /// Read-only.")
    o.append("    Ro,")
    o.append("    /// Read/write.")
    o.append("    Rw,")
    o.append("    /// Write-only; reads return 0.")
    o.append("    Wo,")
    o.append("    /// Write 1 to clear.")
    o.append("    W1c,")
    o.append("    /// Reading has a documented side effect (latches a snapshot).")
    o.append("    Rc,")
    o.append("}")
    o.append("")
    o.append("/// One register as the contract describes it.")
    o.append("#[derive(Debug, Clone, Copy)]")
    o.append("pub struct RegInfo {")
    o.append("    /// Block and register name, e.g. `PHC_TIME_LO`.")
    o.append("    pub name: &'static str,")
    o.append("    /// Byte offset (inside a queue's block for `Q_*`).")
    o.append("    pub offset: usize,")
    o.append("    /// Access kind.")
    o.append("    pub access: Access,")
    o.append("    /// True for per-queue registers.")
    o.append("    pub per_queue: bool,")
    o.append("}")
    o.append("")
    o.append("/// Every register of the map.")
    o.append("pub const REGISTERS: &[RegInfo] = &[")
    for blk in c["block"]:
        for r in blk["reg"]:
            pq = "stride" in blk
            off = r["offset"] if pq else blk["base"] + r["offset"]
            acc = {"ro": "Ro", "rw": "Rw", "wo": "Wo", "w1c": "W1c", "rc": "Rc"}[r["access"]]
            o.append(f"    RegInfo {{ name: \"{blk['name']}_{r['name']}\", offset: {off:#x}, access: Access::{acc}, per_queue: {str(pq).lower()} }},")
    o.append("];")
    return "\n".join(o) + "\n"


# ----------------------------------------------------------------------------------------------
# Python (cocotb benches)


def gen_python(c: dict) -> str:
    m = c["meta"]
    o = [f'"""{BANNER}"""', "", "import struct", ""]
    o.append(f"MAGIC = {m['magic']:#010x}")
    o.append(f"VERSION = {(m['version_major'] << 16) | m['version_minor']:#010x}")
    o.append(f"BAR0_SIZE = {m['bar0_size']:#x}")
    o.append("")
    for kind, prefix in (("status", "STATUS"), ("reject_reason", "REJECT"), ("late_policy", "LATE_POLICY"),
                         ("horizon_policy", "HORIZON_POLICY"), ("rx_status", "RX_STATUS"),
                         ("pk_type", "PK_TYPE")):
        for it in c[kind]:
            o.append(f"{prefix}_{it['name']} = {it['value']}")
        o.append("")
    o.append("STATUS_NAMES = {" + ", ".join(f"{it['value']}: \"{it['name']}\"" for it in c["status"]) + "}")
    o.append("RX_STATUS_NAMES = {" + ", ".join(f"{it['value']}: \"{it['name']}\"" for it in c["rx_status"]) + "}")
    o.append("")
    for kind, prefix in FLAGS:
        for it in c[kind]:
            o.append(f"{prefix}_{it['name']} = 1 << {it['bit']}")
        o.append("")
    for blk in c["block"]:
        b = blk["name"]
        o.append(f"{b}_BASE = {blk['base']:#x}")
        if "stride" in blk:
            o.append(f"{b}_STRIDE = {blk['stride']:#x}")
        for r in blk["reg"]:
            off = r["offset"] if "stride" in blk else blk["base"] + r["offset"]
            o.append(f"{b}_{r['name']} = {off:#x}")
            for f in r.get("fields", []):
                mask = ((1 << f["width"]) - 1) << f["lsb"]
                o.append(f"{b}_{r['name']}_{f['name']} = {mask:#x}")
        o.append("")
    for kind, prefix, _sname in RECORDS:
        lay = c[kind]
        fields = sorted(lay["field"], key=lambda f: f["offset"])
        fmt = "<" + "".join({8: "B", 16: "H", 32: "I", 64: "Q"}[f["width"]] for f in fields)
        names = [f["name"] for f in fields]
        o.append(f"{prefix}_SIZE = {lay['size']}")
        o.append(f"{prefix}_FIELDS = {tuple(names)!r}")
        o.append(f"_{prefix}_FMT = struct.Struct({fmt!r})")
        o.append("")
        o.append("")
        o.append(f"def pack_{kind}(**fields) -> bytes:")
        o.append(f'    """Pack a {kind} record; fields not given are 0."""')
        o.append(f"    unknown = set(fields) - set({prefix}_FIELDS)")
        o.append("    if unknown:")
        o.append(f'        raise KeyError(f"unknown {kind} fields: {{sorted(unknown)}}")')
        o.append(f"    return _{prefix}_FMT.pack(*(fields.get(n, 0) for n in {prefix}_FIELDS))")
        o.append("")
        o.append("")
        o.append(f"def unpack_{kind}(data: bytes) -> dict:")
        o.append(f'    """Unpack a {kind} record into a dict of its fields."""')
        o.append(f"    return dict(zip({prefix}_FIELDS, _{prefix}_FMT.unpack(bytes(data[:{prefix}_SIZE]))))")
        o.append("")
        o.append("")
    return "\n".join(o).rstrip() + "\n"


# ----------------------------------------------------------------------------------------------
# Markdown


def gen_markdown(c: dict) -> str:
    m = c["meta"]
    o = [f"# tsnic register map and records", "", f"<!-- {BANNER} -->", ""]
    o.append(f"Contract version {m['version_major']}.{m['version_minor']}, magic `{m['magic']:#010x}` (\"TSNC\"), "
             f"BAR0 {m['bar0_size'] // 1024} KiB. All registers are 32 bits, little-endian; 64-bit values are "
             "split into `_LO`/`_HI`. Reads of offsets not listed return 0, writes to them are ignored.")
    o.append("")
    o.append("Access: `ro` read-only, `rw` read/write, `wo` write-only (reads 0), `w1c` write 1 to clear, "
             "`rc` reading latches a snapshot that the following registers return.")
    o.append("")
    o.append("## Register blocks")
    o.append("")
    for blk in c["block"]:
        b = blk["name"]
        o.append(f"### {b} at `{blk['base']:#07x}`")
        o.append("")
        o.append(blk["doc"])
        if "stride" in blk:
            o.append("")
            o.append(f"Queue `q` (0 to {blk['count_param']} - 1, at most {blk['max_count']}) has its block at "
                     f"`{blk['base']:#x} + q * {blk['stride']:#x}`; offsets below are inside that block.")
        o.append("")
        o.append("| offset | name | access | description |")
        o.append("|---|---|---|---|")
        for r in blk["reg"]:
            off = r["offset"] if "stride" in blk else blk["base"] + r["offset"]
            desc = r["doc"].replace("|", "\\|")
            for f in r.get("fields", []):
                bits = f"{f['lsb']}" if f["width"] == 1 else f"{f['lsb'] + f['width'] - 1}:{f['lsb']}"
                desc += f"<br>bit {bits} `{f['name']}`: {f['doc']}"
            o.append(f"| `{off:#07x}` | `{b}_{r['name']}` | {r['access']} | {desc} |")
        o.append("")
    for kind, _prefix, _sname in RECORDS:
        lay = c[kind]
        o.append(f"## {kind.replace('_', ' ').capitalize()} ({lay['size']} bytes)")
        o.append("")
        o.append(lay["doc"])
        o.append("")
        o.append("| byte offset | field | bits | description |")
        o.append("|---|---|---|---|")
        for f in lay["field"]:
            o.append(f"| {f['offset']} | `{f['name']}` | {f['width']} | {f['doc']} |")
        o.append("")
    for kind, title, key in (("descriptor_flag", "Descriptor flags", "bit"), ("completion_flag", "Completion flags", "bit"),
                             ("rx_completion_flag", "RX completion flags", "bit"),
                             ("pk_flag", "Packed record flags", "bit"), ("pk_type", "Packed record types", "value"),
                             ("status", "Status codes", "value"), ("rx_status", "RX status codes", "value"), ("reject_reason", "Reject reasons", "value"),
                             ("late_policy", "Late policies (Q_CTRL.LATE_POLICY)", "value"),
                             ("horizon_policy", "Horizon policies (Q_CTRL.HORIZON_POLICY)", "value"),
                             ("feature", "Feature bits (CAP_FEATURES)", "bit")):
        o.append(f"## {title}")
        o.append("")
        o.append(f"| {key} | name | meaning |")
        o.append("|---|---|---|")
        for it in c[kind]:
            o.append(f"| {it[key]} | `{it['name']}` | {it['doc']} |")
        o.append("")
    return "\n".join(o).rstrip() + "\n"


# ----------------------------------------------------------------------------------------------


def rustfmt(text: str) -> str:
    """Format generated Rust as `cargo fmt` would, so the drift check and `cargo fmt --check` agree."""
    exe = shutil.which("rustfmt")
    if exe is None:
        raise ContractError("rustfmt not found: install the Rust toolchain (rustup component add rustfmt)")
    r = subprocess.run([exe, "--edition", "2021", "--emit", "stdout"], input=text, capture_output=True, text=True)
    if r.returncode != 0:
        raise ContractError(f"rustfmt refused the generated Rust: {r.stderr.strip()}")
    return r.stdout


def outputs(c: dict) -> dict[Path, str]:
    return {OUT_VH: gen_verilog(c), OUT_RS: rustfmt(gen_rust(c)), OUT_PY: gen_python(c), OUT_MD: gen_markdown(c)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="fail if a generated file is stale; write nothing")
    ap.add_argument("--source", type=Path, default=SOURCE, help="contract source (default: %(default)s)")
    args = ap.parse_args(argv)
    try:
        c = load(args.source)
    except (ContractError, tomllib.TOMLDecodeError, KeyError, OSError) as e:
        what = f"missing key {e}" if isinstance(e, KeyError) else str(e)
        print(f"gen_contract: {args.source}: {what}", file=sys.stderr)
        return 2
    try:
        generated = outputs(c)
    except ContractError as e:
        print(f"gen_contract: {e}", file=sys.stderr)
        return 2
    stale = []
    for path, text in generated.items():
        rel = path.relative_to(ROOT)
        current = path.read_text() if path.exists() else None
        if current == text:
            continue
        if args.check:
            stale.append(str(rel))
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            print(f"gen_contract: wrote {rel}")
    if stale:
        print("gen_contract: these generated files do not match hdl/contract/tsnic.toml:", file=sys.stderr)
        for s in stale:
            print(f"  {s}", file=sys.stderr)
        print("Regenerate them with `make gen` (python3 hdl/contract/gen_contract.py) and commit the result.",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
