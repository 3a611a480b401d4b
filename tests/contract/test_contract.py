"""The contract generator: drift detection and validation of the source."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GEN = ROOT / "hdl" / "contract" / "gen_contract.py"
SOURCE = ROOT / "hdl" / "contract" / "tsnic.toml"

sys.path.insert(0, str(GEN.parent))
import gen_contract  # noqa: E402


def run_gen(*args):
    return subprocess.run([sys.executable, str(GEN), *args], capture_output=True, text=True)


def test_generated_files_are_current():
    r = run_gen("--check")
    assert r.returncode == 0, r.stderr


def test_changed_field_is_reported_stale_with_the_fix(tmp_path):
    src = SOURCE.read_text()
    # Move one register: every generated view of the register map changes.
    changed = src.replace('name = "NUM_QUEUES"\noffset = 0x08', 'name = "NUM_QUEUES"\noffset = 0x3C')
    assert changed != src
    mod = tmp_path / "tsnic.toml"
    mod.write_text(changed)
    r = run_gen("--check", "--source", str(mod))
    assert r.returncode == 1
    assert "make gen" in r.stderr
    for out in ("hdl/rtl/tsnic_contract.vh", "driver/src/contract.rs", "docs/REGISTERS.md",
                "tests/cocotb/common/tsnic_contract.py"):
        assert out in r.stderr


@pytest.mark.parametrize(
    "old,new,message",
    [
        ('name = "cookie"\noffset = 12', 'name = "cookie"\noffset = 8', "overlaps"),
        ('name = "VERSION"\noffset = 0x04', 'name = "VERSION"\noffset = 0x06', "not 32-bit aligned"),
        ('name = "VERSION"\noffset = 0x04', 'name = "VERSION"\noffset = 0x00', "offset used twice"),
        ('name = "SENT_LATE"\nvalue = 2', 'name = "SENT_LATE"\nvalue = 1', "share value"),
        ('base = 0x0200', 'base = 0x0110', "overlap"),
    ],
)
def test_bad_source_is_refused(tmp_path, old, new, message):
    src = SOURCE.read_text()
    assert old in src
    mod = tmp_path / "tsnic.toml"
    mod.write_text(src.replace(old, new, 1))
    r = run_gen("--check", "--source", str(mod))
    assert r.returncode == 2
    assert message in r.stderr


def test_python_view_round_trips_records():
    sys.path.insert(0, str(ROOT / "tests" / "cocotb" / "common"))
    import tsnic_contract as c

    d = dict(addr=0x1122334455667788, len=1514, cookie=0xDEADBEEF, launch_ns=(1 << 63) + 5, flags=1, reserved=0)
    raw = c.pack_descriptor(**d)
    assert len(raw) == c.DESC_SIZE == 32
    assert c.unpack_descriptor(raw) == d
    # launch_ns sits at byte 16, little-endian, as the contract says
    assert int.from_bytes(raw[16:24], "little") == d["launch_ns"]
    cpl = c.pack_completion(depart_ns=7, status=c.STATUS_SENT, flags=c.CPL_FLAG_PHASE)
    assert cpl[31] & 0x80  # phase bit lives in the last byte of the record


def test_verilog_view_matches_source():
    contract = gen_contract.load()
    vh = (ROOT / "hdl" / "rtl" / "tsnic_contract.vh").read_text()
    for blk in contract["block"]:
        if "stride" in blk:
            continue
        for reg in blk["reg"]:
            m = re.search(rf"`define TSNIC_{blk['name']}_{reg['name']} 32'h([0-9A-F]+)", vh)
            assert m, reg["name"]
            assert int(m.group(1), 16) == blk["base"] + reg["offset"]


def test_packed_records_share_their_header_and_fit_the_stream():
    """The packed format (docs/DATAPATH.md "Packed transmit format"): a BASE record starts with the
    same header as a FRAME record (len, kind, flags at the same places), both are whole 8-byte
    units, and the Python view packs them where the contract says."""
    sys.path.insert(0, str(ROOT / "tests" / "cocotb" / "common"))
    import tsnic_contract as c

    contract = gen_contract.load()
    rec = {f["name"]: f for f in contract["pk_record"]["field"]}
    base = {f["name"]: f for f in contract["pk_base_record"]["field"]}
    for name in ("len", "kind", "flags"):
        assert (rec[name]["offset"], rec[name]["width"]) == (base[name]["offset"], base[name]["width"])
    assert c.PKR_SIZE == 8 and c.PKB_SIZE == 16
    raw = c.pack_pk_record(len=60, kind=c.PK_TYPE_FRAME, flags=c.PK_FLAG_ASAP, launch_off=0x89ABCDEF)
    assert raw == bytes([60, 0, 1, 1, 0xEF, 0xCD, 0xAB, 0x89])
    b = c.pack_pk_base_record(kind=c.PK_TYPE_BASE, base_ns=(1 << 62) + 3)
    assert b[2] == c.PK_TYPE_BASE and int.from_bytes(b[8:16], "little") == (1 << 62) + 3
    assert c.unpack_pk_record(b[:8])["kind"] == c.PK_TYPE_BASE
    # 0 is not a record kind: zeroed memory is never taken for a record
    assert 0 not in {t["value"] for t in contract["pk_type"]}
