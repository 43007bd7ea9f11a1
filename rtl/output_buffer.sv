// Output buffer of Figure 11: gathers Width-byte chunks into one 64-byte
// line with byte enables, and hands the line to the store queue the cycle
// after its last chunk. A chunk comes aligned to its lane (Width bytes at
// a multiple of Width), so each lane's register just loads it: no shifter.
// The sources hold one credit per store-queue slot and spend one on each
// chunk that ends a line, so the store queue never overflows.
module output_buffer
  import arcalis_pkg::*;
#(
  parameter int unsigned Width = 16,
  localparam int unsigned Lanes = LineBytes / Width
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,

  input  logic                 in_valid_i,
  input  logic                 in_discard_i,  // forget the line gathered so far
  input  logic [LineAddrW-1:0] in_line_i,
  input  logic [Lanes-1:0]     in_lanes_i,    // in_valid_i per lane, one-hot
  input  logic [Width*8-1:0]   in_bytes_i,
  input  logic [Width-1:0]     in_mask_i,     // the chunk's bytes (byte enables)
  input  logic                 in_last_i,     // the line goes to the store queue after this chunk

  output logic                 out_valid_o,
  output logic [LineAddrW-1:0] out_line_o,
  output logic [LineBits-1:0]  out_data_o,
  output logic [LineBytes-1:0] out_strb_o,

  output logic                 idle_o
);

  logic                 flush_q;
  logic [LineAddrW-1:0] line_q;
  logic [LineBits-1:0]  data_q;
  logic [LineBytes-1:0] strb_q, strb_d;
  always_comb begin
    // A line handed on this cycle, or dropped after a fault, starts the next
    // one empty (a header chunk may come in the cycle of a discard).
    strb_d = (flush_q || in_discard_i) ? '0 : strb_q;
    for (int unsigned l = 0; l < Lanes; l++) begin
      if (in_lanes_i[l]) strb_d[l*Width +: Width] = in_mask_i;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      flush_q <= 1'b0;
      strb_q  <= '0;
    end else begin
      flush_q <= in_valid_i && in_last_i;
      strb_q  <= strb_d;
    end
  end

  // Lane registers load their chunk; no reset: read only under their enables.
  always_ff @(posedge clk_i) begin
    if (in_valid_i) line_q <= in_line_i;
    for (int unsigned l = 0; l < Lanes; l++) begin
      if (in_lanes_i[l]) data_q[l*Width*8 +: Width*8] <= in_bytes_i;
    end
  end

  assign out_valid_o = flush_q;
  assign out_line_o  = line_q;
  assign out_data_o  = data_q;
  assign out_strb_o  = strb_q;
  // A chunk comes only while its engine is BUSY (the control FSM skips
  // DRAIN's first cycle for the one on its way).
  assign idle_o      = !flush_q;   // the sources' chunk registers count for themselves

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      if (in_valid_i) assert (in_mask_i != '0) else $error("output_buffer: an empty chunk");
    end
  end
`endif

endmodule
