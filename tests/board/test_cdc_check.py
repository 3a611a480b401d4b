"""board/cdc_check.py (issue 30, defect 9) catches a crossing outside the CDC modules: a small top with
two clocks, one crossing through tsnic_cdc_sync (accepted) and, planted, one register of the second
clock fed straight from the first (rejected, named with both clocks). The check of the real board tops
runs in board/lint.sh (make lint)."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHECK = ROOT / "board" / "cdc_check.py"

pytestmark = pytest.mark.skipif(shutil.which("yosys") is None, reason="yosys not installed (make deps)")

TOP = """`default_nettype none
module fpga (
    input  wire clk_a,
    input  wire clk_b,
    input  wire in,
    output wire out_sync,
    output wire out_bad
);
reg a_reg = 1'b0;
always @(posedge clk_a) a_reg <= in;
tsnic_cdc_sync #(.WIDTH(1), .INIT(1'b0)) sync_inst (.clk(clk_b), .rst(1'b0), .in(a_reg), .out(out_sync));
PLANT
endmodule
"""
PLANTED = """reg planted_reg = 1'b0;
always @(posedge clk_b) planted_reg <= !a_reg;
assign out_bad = planted_reg;"""
CLEAN = """reg clean_reg = 1'b0;
always @(posedge clk_b) clean_reg <= !out_sync;
assign out_bad = clean_reg;"""


def run(tmp_path, body):
    top = tmp_path / "fpga.v"
    top.write_text(TOP.replace("PLANT", body))
    p = subprocess.run([sys.executable, str(CHECK), "--top-file", str(top), "--list"],
                       capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout + p.stderr


def test_planted_crossing_is_caught(tmp_path):
    rc, out = run(tmp_path, PLANTED)
    assert rc == 1, out
    assert "planted_reg (clock clk_b) is fed from clk_a outside the CDC modules" in out, out
    assert "tsnic_cdc_sync: sync_inst.sync1_reg (clk_b) <- clk_a" in out, out


def test_synchronized_crossing_passes(tmp_path):
    rc, out = run(tmp_path, CLEAN)
    assert rc == 0, out
    assert "2 clock domains (clk_a, clk_b); 1 registers fed from another domain, 1 inside" in out, out
