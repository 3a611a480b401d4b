# tsnic board build, Vivado non-project flow:
#   IP from TCL -> synth_design -> opt_design -> place_design -> phys_opt_design -> route_design ->
#   timing check (stops on negative setup or hold slack) -> write_bitstream -> write_cfgmem (flash image)
#
#   vivado -mode batch -source board/common/vivado/build.tcl -tclargs BOARD_DIR OUT_DIR [GOLDEN [MAC]]
#
# BOARD_DIR holds config.tcl (part, IP scripts, XDC files, board RTL, flash part/size/interface), rtl/,
# ip/ and the XDC. OUT_DIR receives the checkpoints, reports, fpga.bit, fpga.mcs/.prm and fpga.bin.
# GOLDEN=1 builds the golden image: the core's boot selector is in, and the flash image is meant for
# config.tcl's flash_load_addr (Alveo: 0x01002000, where AMD's factory image MultiBoots to; the
# factory image below it is never written; SUME: 0). docs/FIRMWARE.md has the flash layout. MAC picks one of the board's MAC options
# (config.tcl: mac_options, the first the default; option X brings its own ip_tcl_X, generic_X for the
# top and rtl_modules_X); empty = the default.

if {[llength $argv] < 2} {
    puts stderr "usage: vivado -mode batch -source build.tcl -tclargs BOARD_DIR OUT_DIR \[GOLDEN \[MAC\]\]"
    exit 2
}
set board_dir [file normalize [lindex $argv 0]]
set out_dir   [file normalize [lindex $argv 1]]
set golden    [expr {[llength $argv] > 2 ? [lindex $argv 2] : 0}]
set mac       [expr {[llength $argv] > 3 ? [lindex $argv 3] : ""}]
set root      [file normalize [file join [file dirname [info script]] .. .. ..]]

# the core's RTL: hdl/rtl, or another tree (TSNIC_RTL_DIR, e.g. a checkout with other branches merged)
set rtl_dir [file join $root hdl rtl]
if {[info exists ::env(TSNIC_RTL_DIR)]} { set rtl_dir [file normalize $::env(TSNIC_RTL_DIR)] }

source [file join $board_dir config.tcl]

# stop with a message and a non-zero exit status
proc fail {msg} {
    puts stderr "build: $msg"
    exit 1
}

# the MAC option: the default one, or another of config.tcl's mac_options with its IP, generic, modules
# and (if config.tcl sets xdc_<option>) constraint files
if {![info exists mac_options]} { set mac_options {} }
set generics [list GOLDEN=$golden]
if {$mac ne "" && $mac ni $mac_options} {
    if {[llength $mac_options] == 0} {
        fail "MAC=$mac: [file tail $board_dir] has one MAC only (no MAC option); build it without MAC="
    }
    fail "MAC=$mac: [file tail $board_dir] has the MAC options [join $mac_options {, }] (default [lindex $mac_options 0])"
}
if {$mac ne "" && $mac ne [lindex $mac_options 0]} {
    foreach v [list ip_tcl_$mac generic_$mac] {
        if {![info exists $v]} { fail "[file join $board_dir config.tcl] lists MAC option $mac but sets no $v" }
    }
    set ip_tcl [set ip_tcl_$mac]
    lappend generics {*}[set generic_$mac]
    if {[info exists rtl_modules_$mac]} { lappend rtl_modules {*}[set rtl_modules_$mac] }
    if {[info exists xdc_$mac]} { set xdc [set xdc_$mac] }
    puts "build: MAC option $mac (IP: [join $ip_tcl {, }]; generics: [join $generics {, }])"
}

# the modules the board top instantiates from the RTL tree (config.tcl: rtl_modules) must be there
set missing {}
foreach m $rtl_modules {
    if {![file exists [file join $rtl_dir $m.v]]} { lappend missing $m }
}
if {[llength $missing] > 0} {
    fail "$rtl_dir lacks [join $missing {, }] (written on other branches: see board/common/stubs/pending/README.md)"
}

file mkdir $out_dir
set ip_dir [file join $out_dir ip]
file mkdir $ip_dir

# ---------------------------------------------------------------------------------------------------
# the part and the IP (generated from the TCL scripts, synthesized out of context)
create_project -in_memory -part $part
set_property target_language Verilog [current_project]
foreach f $ip_tcl {
    source [file join $board_dir $f]
}
foreach ip [get_ips] {
    generate_target {instantiation_template synthesis implementation} $ip
    synth_ip $ip
}

# ---------------------------------------------------------------------------------------------------
# sources: the board top and board-side RTL, then the core's RTL (hdl/rtl, its include directory)
foreach f $board_rtl {
    read_verilog [file join $board_dir $f]
}
foreach f [lsort [glob -nocomplain [file join $root board common rtl *.v]]] {
    read_verilog $f
}
foreach f [lsort [glob [file join $rtl_dir *.v]]] {
    read_verilog $f
}
foreach f $xdc {
    read_xdc [file join $board_dir $f]
}
# the CDC constraints find their cells in the netlist: applied after synthesis, before placement
read_xdc -unmanaged [file join $root board common vivado cdc.tcl]

# ---------------------------------------------------------------------------------------------------
set generic_args {}
foreach g $generics { lappend generic_args -generic $g }
synth_design -top fpga -part $part -include_dirs [list $rtl_dir] {*}$generic_args
write_checkpoint -force [file join $out_dir post_synth.dcp]
report_utilization -file [file join $out_dir post_synth_util.rpt]

opt_design
place_design
phys_opt_design
write_checkpoint -force [file join $out_dir post_place.dcp]
route_design
write_checkpoint -force [file join $out_dir post_route.dcp]

report_utilization -file [file join $out_dir post_route_util.rpt]
report_timing_summary -max_paths 20 -report_unconstrained -file [file join $out_dir timing_summary.rpt]
report_clock_interaction -file [file join $out_dir clock_interaction.rpt]
report_cdc -file [file join $out_dir cdc.rpt]

# ---------------------------------------------------------------------------------------------------
# timing: no bitstream from a design that does not meet setup and hold everywhere
set setup_paths [get_timing_paths -delay_type max -max_paths 1 -nworst 1]
set hold_paths  [get_timing_paths -delay_type min -max_paths 1 -nworst 1]
if {[llength $setup_paths] == 0 || [llength $hold_paths] == 0} {
    fail "no timed paths: the design has no clocks on its registers (see timing_summary.rpt)"
}
set wns [get_property SLACK $setup_paths]
set whs [get_property SLACK $hold_paths]
puts "build: WNS $wns ns, WHS $whs ns"
if {$wns < 0} {
    fail "setup timing not met: WNS $wns ns (see [file join $out_dir timing_summary.rpt]); no bitstream written"
}
if {$whs < 0} {
    fail "hold timing not met: WHS $whs ns (see [file join $out_dir timing_summary.rpt]); no bitstream written"
}

# ---------------------------------------------------------------------------------------------------
# bitstream and flash image
set bit [file join $out_dir fpga.bit]
write_bitstream -force $bit
if {![info exists flash_load_addr]} { set flash_load_addr 0x00000000 }
# the golden image must end before slot A (config.tcl flash_golden_max; the .bit's few header bytes
# count too, so this is a bound on the safe side)
if {$golden && [info exists flash_golden_max] && [file size $bit] > $flash_golden_max} {
    fail "the golden image ([file size $bit] bytes) does not fit its region ($flash_golden_max bytes from $flash_load_addr): keep BITSTREAM.GENERAL.COMPRESS TRUE and the golden design small"
}
write_cfgmem -force -format mcs -size $flash_size_mb -interface $flash_iface \
    -loadbit [list up $flash_load_addr $bit] -file [file join $out_dir fpga.mcs]
write_cfgmem -force -format bin -size $flash_size_mb -interface $flash_iface \
    -loadbit [list up $flash_load_addr $bit] -file [file join $out_dir fpga.bin]
puts "build: wrote $bit, fpga.mcs (+ .prm) and fpga.bin in $out_dir"
