// LUT1-LUT6 for Verilating the xc7 netlist of `make report` (make gatesim).
// Listed before Yosys's /usr/share/yosys/xilinx/cells_sim.v, whose models of
// the same names Verilator then ignores (MODDUP): O = INIT[{I5..I0}] is the
// same function as cells_sim.v's mux tree, but Verilator keeps that tree's
// five intermediate vectors per LUT, several times the C++ to compile for
// ~11,000 LUTs. Every other primitive is cells_sim.v's.
module LUT1 #(parameter [1:0] INIT = 0) (output O, input I0);
  assign O = INIT[I0];
endmodule
module LUT2 #(parameter [3:0] INIT = 0) (output O, input I0, I1);
  assign O = INIT[{I1, I0}];
endmodule
module LUT3 #(parameter [7:0] INIT = 0) (output O, input I0, I1, I2);
  assign O = INIT[{I2, I1, I0}];
endmodule
module LUT4 #(parameter [15:0] INIT = 0) (output O, input I0, I1, I2, I3);
  assign O = INIT[{I3, I2, I1, I0}];
endmodule
module LUT5 #(parameter [31:0] INIT = 0) (output O, input I0, I1, I2, I3, I4);
  assign O = INIT[{I4, I3, I2, I1, I0}];
endmodule
module LUT6 #(parameter [63:0] INIT = 0) (output O, input I0, I1, I2, I3, I4, I5);
  assign O = INIT[{I5, I4, I3, I2, I1, I0}];
endmodule
