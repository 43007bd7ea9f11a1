// Field extractor of Figure 11: network-to-host byte swaps of the field id and
// of the value or length word that follows a field header at the stream head.
module field_extractor (
  input  logic [10*8-1:0] bytes_i,   // stream bytes 1..10 after the type byte, byte 0 first
  output logic [15:0]     id_o,
  output logic [63:0]     u64_o,     // bytes 2..9 as big-endian
  output logic [31:0]     u32_o      // bytes 2..5 as big-endian
);

  function automatic logic [7:0] byte_at(input int unsigned i);
    return bytes_i[i*8 +: 8];
  endfunction

  assign id_o  = {byte_at(0), byte_at(1)};
  assign u64_o = {byte_at(2), byte_at(3), byte_at(4), byte_at(5),
                  byte_at(6), byte_at(7), byte_at(8), byte_at(9)};
  assign u32_o = {byte_at(2), byte_at(3), byte_at(4), byte_at(5)};

endmodule
