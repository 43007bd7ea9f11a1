# Non-project Vivado flow for the receive path (issue 4, docs/reports.md):
# out-of-context synthesis with the hierarchy kept, a clock on clk_i at the
# chosen frequency, opt/place/route, then the reports arcalis reads.
#
#   vivado -mode batch -source scripts/vivado/flow.tcl \
#     -tclargs OUTDIR PART FREQ_MHZ [ACTIVITY.saif] -- RTL...
#
# `make report-vivado` runs it with OUTDIR build/vivado, the part
# xa7a12t-cpg238-2I, 280 MHz, reports/activity.saif when `make report` has
# written it, and rtl/*.sv (the package first); then
# `arcalis report vivado --dir build/vivado` turns the reports into
# reports/vivado.{md,json,csv,svg}.

set sep [lsearch -exact $argv --]
if {$sep < 3} {
  puts stderr "usage: -tclargs OUTDIR PART FREQ_MHZ \[ACTIVITY.saif\] -- RTL..."
  exit 2
}
set out   [lindex $argv 0]
set part  [lindex $argv 1]
set freq  [lindex $argv 2]
set saif  [expr {$sep > 3 ? [lindex $argv 3] : ""}]
set rtl   [lrange $argv [expr {$sep + 1}] end]
set top   arcalis_top
if {[llength $rtl] == 0} {
  puts stderr "flow.tcl: no RTL files after --"
  exit 2
}
if {![string is double -strict $freq] || $freq <= 0} {
  puts stderr "flow.tcl: frequency '$freq' is not a positive number of MHz"
  exit 2
}
file mkdir $out

# The clock: period in ns for FREQ_MHZ, on the top's clk_i.
set period [format %.3f [expr {1000.0 / $freq}]]
set xdc [file join $out clock.xdc]
set f [open $xdc w]
puts $f "create_clock -name clk -period $period \[get_ports clk_i\]"
close $f

read_verilog -sv $rtl
read_xdc -mode out_of_context $xdc

# Out of context (no I/O buffers, as the block sits inside a larger design),
# hierarchy kept so that every u_<module> instance gets its own row.
synth_design -top $top -part $part -mode out_of_context -flatten_hierarchy none
opt_design
place_design
route_design
write_checkpoint -force [file join $out routed.dcp]

report_utilization -file [file join $out utilization.rpt]
report_utilization -hierarchical -file [file join $out utilization_hier.rpt]
report_timing_summary -file [file join $out timing_summary.rpt]

# Switching activity from the simulation, when given: the SAIF's top
# instance is arcalis_top, which is this design's top.
if {$saif ne ""} {
  read_saif -strip_path $top $saif
}
report_power -hierarchical_depth 4 -file [file join $out power.rpt]
puts "flow.tcl: reports in $out"
