# Vivado commands stubbed for tclsh: each call is appended to the log file $::env(TSNIC_STUB_LOG) as one
# line "NAME ARGS..." (a Tcl list), so tests/board/test_vivado_tcl.py can check which steps a board
# script takes, in which order, and with which files. Commands that name an input file fail when the
# file does not exist; commands that write a file create it (empty), so later steps can find it.
# A command this stub does not know is logged as UNKNOWN and is an error: a script may only use the
# Vivado commands listed here (add one here when a script needs it, with its Vivado behaviour).
#
# Knobs (environment): TSNIC_STUB_CDC (below); TSNIC_STUB_WNS / TSNIC_STUB_WHS: the SLACK of the worst setup / hold path
# (default 0.100); TSNIC_STUB_HW_PART: the part of the device on the JTAG chain (default xcu50).

set ::stub_log [open $::env(TSNIC_STUB_LOG) a]
fconfigure $::stub_log -buffering line
proc stub_log {name args} { puts $::stub_log [concat [list $name] $args] }
proc stub_env {name default} {
    if {[info exists ::env($name)]} { return $::env($name) }
    return $default
}
# the value after an option in an argument list ("" if absent)
proc stub_opt {arglist opt} {
    set i [lsearch -exact $arglist $opt]
    if {$i < 0} { return "" }
    return [lindex $arglist [expr {$i + 1}]]
}
proc stub_need_file {cmd f} {
    if {![file exists $f]} { error "$cmd: file not found: $f" }
}
proc stub_touch {f} {
    file mkdir [file dirname $f]
    close [open $f w]
}

set ::stub_ips {}

# --- project, IP ------------------------------------------------------------------------------------
proc create_project {args} { stub_log create_project {*}$args }
proc current_project {args} { stub_log current_project {*}$args; return project_1 }
proc current_design {args} { return design_1 }
proc set_property {args} { stub_log set_property {*}$args }
proc create_ip {args} {
    stub_log create_ip {*}$args
    set name [stub_opt $args -module_name]
    if {$name eq ""} { error "create_ip: no -module_name" }
    if {[stub_opt $args -dir] eq ""} { error "create_ip: no -dir (non-project flow)" }
    lappend ::stub_ips $name
}
proc get_ips {args} {
    if {[llength $args] == 0} { return $::stub_ips }
    set out {}
    foreach pat $args { foreach ip $::stub_ips { if {[string match $pat $ip]} { lappend out $ip } } }
    if {[llength $out] == 0} { error "get_ips: no IP matches $args" }
    return $out
}
proc generate_target {args} { stub_log generate_target {*}$args }
proc synth_ip {args} { stub_log synth_ip {*}$args }

# --- sources and constraints ------------------------------------------------------------------------
proc read_verilog {args} { stub_log read_verilog {*}$args; stub_need_file read_verilog [lindex $args end] }
proc read_xdc {args} { stub_log read_xdc {*}$args; stub_need_file read_xdc [lindex $args end] }
proc get_ports {args} { stub_log get_ports {*}$args; return [lindex $args end] }
# TSNIC_STUB_CDC=1: the netlist queries of board/common/vivado/cdc.tcl find one instance of each module
# (cell "u_<module>") on a 4 ns clock, so its loops run; otherwise they find nothing
proc get_clocks {args} {
    if {[stub_env TSNIC_STUB_CDC 0]} { return stub_clk }
    return {}
}
# TSNIC_STUB_CDC_MISSING=<text>: a cell pattern containing <text> matches nothing (a renamed register)
proc get_cells {args} {
    if {![stub_env TSNIC_STUB_CDC 0]} { return {} }
    set filter [stub_opt $args -filter]
    if {[regexp {REF_NAME == (\w+)} $filter -> ref]} { return "u_$ref" }
    set missing [stub_env TSNIC_STUB_CDC_MISSING ""]
    if {$missing ne "" && [string first $missing [lindex $args end]] >= 0} { return {} }
    return [list "cells_of([lindex $args end])"]
}
proc get_pins {args} {
    if {![stub_env TSNIC_STUB_CDC 0]} { return {} }
    return [list "pins_of([lindex $args end])"]
}
proc get_nets {args} { return {} }
proc create_clock {args} { stub_log create_clock {*}$args }
proc create_pblock {args} { stub_log create_pblock {*}$args; return [lindex $args end] }
proc get_pblocks {args} { return [lindex $args end] }
proc add_cells_to_pblock {args} { stub_log add_cells_to_pblock {*}$args }
proc resize_pblock {args} { stub_log resize_pblock {*}$args }
proc create_generated_clock {args} { stub_log create_generated_clock {*}$args }
proc set_false_path {args} { stub_log set_false_path {*}$args }
proc set_max_delay {args} { stub_log set_max_delay {*}$args }
proc set_input_delay {args} { stub_log set_input_delay {*}$args }
proc set_output_delay {args} { stub_log set_output_delay {*}$args }
proc set_clock_groups {args} { stub_log set_clock_groups {*}$args }
proc set_operating_conditions {args} { stub_log set_operating_conditions {*}$args }

# --- implementation ---------------------------------------------------------------------------------
proc synth_design {args} { stub_log synth_design {*}$args }
proc opt_design {args} { stub_log opt_design {*}$args }
proc place_design {args} { stub_log place_design {*}$args }
proc phys_opt_design {args} { stub_log phys_opt_design {*}$args }
proc route_design {args} { stub_log route_design {*}$args }
proc write_checkpoint {args} { stub_log write_checkpoint {*}$args; stub_touch [lindex $args end] }
proc report_utilization {args} { stub_log report_utilization {*}$args }
proc report_timing_summary {args} { stub_log report_timing_summary {*}$args }
proc report_clock_interaction {args} { stub_log report_clock_interaction {*}$args }
proc report_cdc {args} { stub_log report_cdc {*}$args }
proc get_timing_paths {args} {
    stub_log get_timing_paths {*}$args
    if {[stub_opt $args -delay_type] eq "min"} { return stub_path_min }
    return stub_path_max
}
proc write_bitstream {args} { stub_log write_bitstream {*}$args; stub_touch [lindex $args end] }
proc write_cfgmem {args} {
    stub_log write_cfgmem {*}$args
    set lb [stub_opt $args -loadbit]
    stub_need_file write_cfgmem [lindex $lb end]
    set f [stub_opt $args -file]
    stub_touch $f
    if {[stub_opt $args -format] eq "mcs"} { stub_touch "[file rootname $f].prm" }
}

# --- hardware manager -------------------------------------------------------------------------------
proc open_hw_manager {args} { stub_log open_hw_manager {*}$args }
proc connect_hw_server {args} { stub_log connect_hw_server {*}$args }
proc open_hw_target {args} { stub_log open_hw_target {*}$args }
proc get_hw_devices {args} { return [list [stub_env TSNIC_STUB_HW_PART xcu50]_0] }
proc current_hw_device {args} { stub_log current_hw_device {*}$args }
proc refresh_hw_device {args} { stub_log refresh_hw_device {*}$args }
proc program_hw_devices {args} { stub_log program_hw_devices {*}$args }
proc get_cfgmem_parts {args} { return $args }
proc create_hw_cfgmem {args} { stub_log create_hw_cfgmem {*}$args }
proc create_hw_bitstream {args} { stub_log create_hw_bitstream {*}$args }
proc program_hw_cfgmem {args} { stub_log program_hw_cfgmem {*}$args }
proc boot_hw_device {args} { stub_log boot_hw_device {*}$args }
proc close_hw_target {args} { stub_log close_hw_target {*}$args }
proc disconnect_hw_server {args} { stub_log disconnect_hw_server {*}$args }
proc close_hw_manager {args} { stub_log close_hw_manager {*}$args }

proc get_property {name obj} {
    switch -- $name {
        SLACK {
            if {$obj eq "stub_path_min"} { return [stub_env TSNIC_STUB_WHS 0.100] }
            return [stub_env TSNIC_STUB_WNS 0.100]
        }
        PERIOD { return 4.000 }
        PART { return "[stub_env TSNIC_STUB_HW_PART xcu50]-fsvh2104-2-e" }
        PROGRAM.HW_CFGMEM { return stub_cfgmem }
        PROGRAM.HW_CFGMEM_BITFILE { return stub_cfgmem_loader.bit }
        default { error "get_property: the stub does not know property $name" }
    }
}

# anything else is a command the stub (and so the test) does not know
rename unknown stub_tcl_unknown
proc unknown {args} {
    stub_log UNKNOWN {*}$args
    error "vivado_stub: unknown command [lindex $args 0]"
}

# run a script as `vivado -mode batch -source SCRIPT -tclargs ARGS...` would
proc stub_run {script arglist} {
    set ::argv $arglist
    set ::argc [llength $arglist]
    set ::argv0 $script
    uplevel #0 [list source $script]
}
