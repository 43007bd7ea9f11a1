// Package timing estimates the static timing of the xc7 netlist Yosys writes
// for make report: Artix-7 cell delays plus a calibrated route per net.
package timing
