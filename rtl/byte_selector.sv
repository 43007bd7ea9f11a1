// Byte-selector DeMUX of Figure 11: slices Width bytes starting at any byte
// offset out of two consecutive 64-byte lines.
module byte_selector
  import arcalis_pkg::*;
#(
  parameter int unsigned Width = 64
) (
  input  logic [2*LineBits-1:0] lines_i,   // {second line, first line}
  input  logic [5:0]            offset_i,
  output logic [Width*8-1:0]    bytes_o
);

  logic [2*LineBits-1:0] shifted;
  assign shifted = lines_i >> {offset_i, 3'b000};
  assign bytes_o = shifted[Width*8-1:0];

  logic unused_high;
  assign unused_high = ^shifted[2*LineBits-1:Width*8];

endmodule
