// Byte-selector DeMUX of Figure 11: slices Width bytes starting at any byte
// offset out of two consecutive 64-byte lines. The shift is taken largest
// step first, and each step keeps only the bytes the later steps can still
// reach, so the muxes shrink towards the output (notes/yosys-0.23: about
// half the LUTs of one wide shift).
module byte_selector
  import arcalis_pkg::*;
#(
  parameter int unsigned Width = 16
) (
  input  logic [2*LineBits-1:0] lines_i,   // {second line, first line}
  input  logic [5:0]            offset_i,
  output logic [Width*8-1:0]    bytes_o
);

  // Bytes still needed after the step of 2**k bytes: Width + 2**k - 1.
  localparam int unsigned N5 = Width + 31;
  localparam int unsigned N4 = Width + 15;
  localparam int unsigned N3 = Width + 7;
  localparam int unsigned N2 = Width + 3;
  localparam int unsigned N1 = Width + 1;

  logic [N5*8-1:0] s5;
  logic [N4*8-1:0] s4;
  logic [N3*8-1:0] s3;
  logic [N2*8-1:0] s2;
  logic [N1*8-1:0] s1;

  assign s5      = offset_i[5] ? lines_i[32*8 +: N5*8] : lines_i[0 +: N5*8];
  assign s4      = offset_i[4] ? s5[16*8 +: N4*8] : s5[0 +: N4*8];
  assign s3      = offset_i[3] ? s4[8*8 +: N3*8]  : s4[0 +: N3*8];
  assign s2      = offset_i[2] ? s3[4*8 +: N2*8]  : s3[0 +: N2*8];
  assign s1      = offset_i[1] ? s2[2*8 +: N1*8]  : s2[0 +: N1*8];
  assign bytes_o = offset_i[0] ? s1[1*8 +: Width*8] : s1[0 +: Width*8];

  // Bytes no offset can bring to the output.
  if (32 + N5 < 2 * LineBytes) begin : g_unused
    logic unused_top;
    assign unused_top = ^lines_i[2*LineBits-1:(32+N5)*8];
  end

endmodule
