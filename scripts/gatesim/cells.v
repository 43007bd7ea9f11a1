// LUT1-LUT6 and CARRY4 for Verilating the xc7 netlist of `make report`
// (make gatesim). Listed before Yosys's /usr/share/yosys/xilinx/cells_sim.v,
// whose models of the same names Verilator then ignores (MODDUP); every
// other primitive is cells_sim.v's.
//
// LUTs: O = INIT[{I5..I0}] is the function of cells_sim.v's mux tree,
// whose five intermediate vectors per LUT survive Verilation: several times
// the C++ to compile for ~11,000 LUTs.
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

// CARRY4: cells_sim.v's equations, with the carries as separate wires.
// There CO[i] reads CO[i-1] of the same vector: to the simulator a
// combinational loop (UNOPTFLAT), and a stale carry after an input changed
// (a 6-bit count read 32 for 0 at gate level).
module CARRY4 (output [3:0] CO, output [3:0] O, input CI, input CYINIT, input [3:0] DI, input [3:0] S);
  wire c_in = CI | CYINIT;
  wire c0 = S[0] ? c_in : DI[0];
  wire c1 = S[1] ? c0 : DI[1];
  wire c2 = S[2] ? c1 : DI[2];
  wire c3 = S[3] ? c2 : DI[3];
  assign CO = {c3, c2, c1, c0};
  assign O  = S ^ {c2, c1, c0, c_in};
endmodule
