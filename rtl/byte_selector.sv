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

  // Copy c of offset bits 5:2, in true polarity: {5:4, 3:2} at 4 c.
  logic [4*4-1:0] hcs;
  always_comb begin
    for (int unsigned c = 0; c < 4; c++) hcs[4*c +: 4] = (c % 2 == 1) ? ~offset_c_i[4*c +: 4] : offset_c_i[4*c +: 4];
  end

  // One 4:1 step: lane i of the result is lane i + k * step of the input.
  always_comb begin
    for (int unsigned i = 0; i < N4; i++) begin
      unique case (hcs[4*(i%4)+2 +: 2])
        2'd0:    s4[i*L +: L] = lanes_i[(i +  0)*L +: L];
        2'd1:    s4[i*L +: L] = lanes_i[(i + 16)*L +: L];
        2'd2:    s4[i*L +: L] = lanes_i[(i + 32)*L +: L];
        default: s4[i*L +: L] = lanes_i[(i + 48)*L +: L];
      endcase
    end
    for (int unsigned i = 0; i < N2; i++) begin
      unique case (hcs[4*(i%4) +: 2])
        2'd0:    s2[i*L +: L] = s4[(i +  0)*L +: L];
        2'd1:    s2[i*L +: L] = s4[(i +  4)*L +: L];
        2'd2:    s2[i*L +: L] = s4[(i +  8)*L +: L];
        default: s2[i*L +: L] = s4[(i + 12)*L +: L];
      endcase
    end
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
