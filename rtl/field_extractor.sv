// Field extractor of Figure 11: network-to-host byte swaps of what a parser
// step reads at the head of the window: a field header (type byte, field
// id) or a big-endian 32- or 64-bit word. Wires only.
module field_extractor (
  input  logic [8*8-1:0] bytes_i,   // window bytes 0..7, byte 0 first
  output logic [7:0]     type_o,    // byte 0
  output logic [15:0]    id_o,      // bytes 1..2
  output logic [31:0]    u32_o,     // bytes 0..3
  output logic [63:0]    u64_o      // bytes 0..7
);

  function automatic logic [7:0] byte_at(input logic [8*8-1:0] b, input int unsigned i);
    return b[i*8 +: 8];
  endfunction

  assign type_o = byte_at(bytes_i, 0);
  assign id_o   = {byte_at(bytes_i, 1), byte_at(bytes_i, 2)};
  assign u32_o  = {byte_at(bytes_i, 0), byte_at(bytes_i, 1), byte_at(bytes_i, 2), byte_at(bytes_i, 3)};
  assign u64_o  = {u32_o, byte_at(bytes_i, 4), byte_at(bytes_i, 5), byte_at(bytes_i, 6), byte_at(bytes_i, 7)};

endmodule
