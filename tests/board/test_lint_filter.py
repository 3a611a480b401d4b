"""board/lint_filter.py (board/lint.sh's filter of Verilator's -Wall output): an empty connection of a
vendor IP's output passes; an empty or missing input, any other warning, and an error fail."""

import subprocess
import sys
from pathlib import Path

FILTER = Path(__file__).resolve().parents[2] / "board" / "lint_filter.py"


def run(text):
    p = subprocess.run([sys.executable, str(FILTER)], input=text, capture_output=True, text=True, timeout=30)
    return p.returncode, p.stdout


def msg(kind, pin):
    what = "Cell pin connected by name with empty reference" if kind == "PINCONNECTEMPTY" else "Cell has missing pin"
    return f"%Warning-{kind}: board/x.v:10:6: {what}: '{pin}'\n   10 | x\n      | ^\n"


def test_empty_output_of_an_ip_passes():
    assert run(msg("PINCONNECTEMPTY", "stat_rx_bad_fcs") + "%Error: Exiting due to 1 warning(s)\n") == (0, "")
    assert run("") == (0, "")


def test_empty_input_of_an_ip_fails():
    rc, out = run(msg("PINCONNECTEMPTY", "cfg_link_training_enable") + "%Error: Exiting due to 1 warning(s)\n")
    assert rc == 1 and "cfg_link_training_enable" in out


def test_missing_pin_fails_even_an_output():
    for pin in ("cfg_config_space_enable", "stat_rx_bad_fcs"):
        rc, out = run(msg("PINMISSING", pin))
        assert rc == 1 and pin in out


def test_other_messages_fail():
    assert run("%Warning-UNUSEDSIGNAL: board/x.v:3:6: Signal is not driven, nor used: 'u'\n")[0] == 1
    assert run("%Error: board/x.v:3:6: syntax error\n")[0] == 1
    # an empty connection of a name that is no vendor output (here a tsnic module's port) fails
    assert run(msg("PINCONNECTEMPTY", "stat_dma_rd_err"))[0] == 1
