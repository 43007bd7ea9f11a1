// Byte-selector DeMUX of Figure 11: the Width lanes (bytes) starting at
// any lane offset out of two consecutive 64-lane lines. Three 4:1 steps,
// largest first, each keeping only the lanes the later steps can still
// reach; a register after the second step and one at the output, so each
// cycle is at most two LUT levels (the window is two cycles behind the
// offset). Bits 5:2 of the offset come in four copies, registers of their
// own (a copy's polarity or reset makes it a cell Yosys does not merge
// with the others; a LUT takes either polarity): lane i reads copy i % 4,
// so each register drives a quarter of the first two steps' LUTs.
module byte_selector
  import arcalis_pkg::*;
#(
  parameter int unsigned Width    = 16,
  parameter int unsigned LaneBits = 8
) (
  input  logic                                 clk_i,
  input  logic [2*LineBytes*LaneBits-1:0]      lanes_i,    // {second line, first line}
  input  logic [1:0]                           offset_lo_i, // the offset's bits 1:0
  input  logic [4*4-1:0]                       offset_c_i,  // its bits 5:2, four copies; odd ones inverted
  output logic [Width*LaneBits-1:0]            lanes_o      // from the offset two cycles ago
);

  // Lanes still needed after the step by offset bits [5:4], [3:2].
  localparam int unsigned N4 = Width + 15;
  localparam int unsigned N2 = Width + 3;
  localparam int unsigned L  = LaneBits;

  logic [N4*L-1:0]    s4;
  logic [N2*L-1:0]    s2, s2_q;
  logic [1:0]         lo_q;
  logic [Width*L-1:0] s0, out_q;

  // Offset bits 5:4 and 3:2 of each copy, as the steps take them.
  logic [4*2-1:0] sel54, sel32;
  always_comb begin
    for (int unsigned c = 0; c < 4; c++) begin
      sel54[2*c +: 2] = offset_c_i[4*c+2 +: 2];
      sel32[2*c +: 2] = offset_c_i[4*c +: 2];
    end
  end
  lane_mux4 #(.N(N4), .Step(16), .L(L)) u_lane_mux4_16 (.lanes_i(lanes_i[(N4+48)*L-1:0]), .sel_i(sel54), .lanes_o(s4));
  lane_mux4 #(.N(N2), .Step(4),  .L(L)) u_lane_mux4_4  (.lanes_i(s4), .sel_i(sel32), .lanes_o(s2));

  always_comb begin
    for (int unsigned i = 0; i < Width; i++) begin
      unique case (lo_q)
        2'd0:    s0[i*L +: L] = s2_q[(i + 0)*L +: L];
        2'd1:    s0[i*L +: L] = s2_q[(i + 1)*L +: L];
        2'd2:    s0[i*L +: L] = s2_q[(i + 2)*L +: L];
        default: s0[i*L +: L] = s2_q[(i + 3)*L +: L];
      endcase
    end
  end

  always_ff @(posedge clk_i) begin
    s2_q  <= s2;
    lo_q  <= offset_lo_i;
    out_q <= s0;
  end
  assign lanes_o = out_q;

  // Lanes no offset can bring to the output.
  if (48 + N4 < 2 * LineBytes) begin : g_unused
    logic unused_top;
    assign unused_top = ^lanes_i[2*LineBytes*L-1:(48+N4)*L];
  end

endmodule
