# Program a board over JTAG with the Vivado hardware manager.
#
#   vivado -mode batch -source board/common/vivado/program.tcl -tclargs MODE BOARD_DIR OUT_DIR
#
# MODE fpga:  load OUT_DIR/fpga.bit into the FPGA (volatile: gone at the next power cycle).
# MODE flash: write OUT_DIR/fpga.mcs into the configuration flash (the first time, or to restore the
#             golden image; later updates go through `tsnic flash`, docs/FIRMWARE.md), then boot it.
# The hardware server must be reachable (local hw_server, or TSNIC_HW_SERVER=host:port); the first
# FPGA found on the JTAG chain whose part matches config.tcl is used.

if {[llength $argv] < 3} {
    puts stderr "usage: vivado -mode batch -source program.tcl -tclargs fpga|flash BOARD_DIR OUT_DIR"
    exit 2
}
set mode      [lindex $argv 0]
set board_dir [file normalize [lindex $argv 1]]
set out_dir   [file normalize [lindex $argv 2]]
source [file join $board_dir config.tcl]

proc fail {msg} {
    puts stderr "program: $msg"
    exit 1
}

set bit [file join $out_dir fpga.bit]
set mcs [file join $out_dir fpga.mcs]
set prm [file join $out_dir fpga.prm]
if {$mode eq "flash" && $flash_part eq ""} {
    fail "this board's configuration flash is not written through Vivado's cfgmem flow (docs/BOARDS.md)"
}
# the make command that builds what is missing: board.mk puts a MAC option's build in build-<MAC>/
# and the golden image in build-golden[-<MAC>]/
set mk_target bitstream
if {$mode eq "flash"} { set mk_target golden }
set mk_mac ""
set out_tail [file tail $out_dir]
if {[regexp {^build-golden-(.+)$} $out_tail -> m] ||
    ($out_tail ne "build-golden" && [regexp {^build-(.+)$} $out_tail -> m])} { set mk_mac " MAC=$m" }
set mk_hint "run `make -C $board_dir $mk_target$mk_mac` first"
switch -- $mode {
    fpga  { if {![file exists $bit]} { fail "$bit not found: $mk_hint" } }
    flash { if {![file exists $mcs]} { fail "$mcs not found: $mk_hint" } }
    default { fail "mode must be fpga or flash, not '$mode'" }
}

set server localhost:3121
if {[info exists ::env(TSNIC_HW_SERVER)]} { set server $::env(TSNIC_HW_SERVER) }
open_hw_manager
connect_hw_server -url $server
open_hw_target

# the FPGA of this board on the chain (the part name without package/speed, e.g. xcu50)
set family [lindex [split $part -] 0]
set dev ""
foreach d [get_hw_devices] {
    if {[string match "${family}*" [get_property PART $d]]} { set dev $d; break }
}
if {$dev eq ""} { fail "no $family device on the JTAG chain of $server" }
current_hw_device $dev
refresh_hw_device $dev

if {$mode eq "fpga"} {
    set_property PROGRAM.FILE $bit $dev
    program_hw_devices $dev
    puts "program: $bit loaded into $dev"
} else {
    create_hw_cfgmem -hw_device $dev [lindex [get_cfgmem_parts $flash_part] 0]
    set mem [get_property PROGRAM.HW_CFGMEM $dev]
    set_property PROGRAM.ADDRESS_RANGE {use_file} $mem
    set_property PROGRAM.FILES [list $mcs] $mem
    set_property PROGRAM.PRM_FILE $prm $mem
    set_property PROGRAM.BLANK_CHECK 0 $mem
    set_property PROGRAM.ERASE 1 $mem
    set_property PROGRAM.CFG_PROGRAM 1 $mem
    set_property PROGRAM.VERIFY 1 $mem
    # the flash is reached through a small loader design in the FPGA
    create_hw_bitstream -hw_device $dev [get_property PROGRAM.HW_CFGMEM_BITFILE $dev]
    program_hw_devices $dev
    refresh_hw_device $dev
    program_hw_cfgmem -hw_cfgmem $mem
    # boot the new flash contents
    boot_hw_device $dev
    puts "program: $mcs written to the $flash_part flash of $dev and booted"
}
close_hw_target
disconnect_hw_server
close_hw_manager
