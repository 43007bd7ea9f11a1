// Output buffer of Figure 11: gathers Width-byte chunks into one 64-byte
// line with byte enables, and hands the line to the store queue the cycle
// after its last chunk. A chunk comes aligned to its lane (Width bytes at
// a multiple of Width), so each lane's register just loads it: no shifter.
// It keeps one credit per store-queue slot; a source takes one when it
// commits to a chunk that ends a line, so the store queue never overflows.
module output_buffer
  import arcalis_pkg::*;
#(
  parameter int unsigned Width = 16,
  localparam int unsigned Lanes = LineBytes / Width,
  localparam int unsigned LaneW = (Lanes > 1) ? $clog2(Lanes) : 1
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,

  input  logic                 in_valid_i,
  input  logic                 in_discard_i,  // forget the line gathered so far
  input  logic [LineAddrW-1:0] in_line_i,
  input  logic [LaneW-1:0]     in_lane_i,
  input  logic [Width*8-1:0]   in_bytes_i,
  input  logic [6:0]           in_len_i,      // 1..Width bytes from the lane's start
  input  logic                 in_last_i,     // the line goes to the store queue after this chunk

  input  logic                 take_i,        // a source committed to a line-ending chunk last cycle (a register)
  input  logic                 give_i,        // ... and dropped it: the credit comes back
  input  logic                 pop_i,         // the store queue sent a line to memory
  output logic                 credit_o,      // a line-ending chunk may be committed this cycle

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
  logic [Width-1:0]     ones;
  logic [1:0]           credits_q, credits_d;

  always_comb begin
    for (int unsigned i = 0; i < Width; i++) ones[i] = 7'(i) < in_len_i;
    // A line handed on this cycle starts the next one empty.
    strb_d = (flush_q || in_discard_i) ? '0 : strb_q;
    for (int unsigned l = 0; l < Lanes; l++) begin
      if (in_valid_i && (Lanes == 1 || in_lane_i == LaneW'(l))) strb_d[l*Width +: Width] = ones;
    end
    credits_d = credits_q - 2'(take_i) + 2'(pop_i) + 2'(give_i);
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      flush_q   <= 1'b0;
      strb_q    <= '0;
      credits_q <= 2'(StoreSlots);
    end else begin
      flush_q   <= in_valid_i && in_last_i;
      strb_q    <= strb_d;
      credits_q <= credits_d;
    end
  end

  // Lane registers load their chunk; no reset: read only under their enables.
  always_ff @(posedge clk_i) begin
    if (in_valid_i) line_q <= in_line_i;
    for (int unsigned l = 0; l < Lanes; l++) begin
      if (in_valid_i && (Lanes == 1 || in_lane_i == LaneW'(l))) data_q[l*Width*8 +: Width*8] <= in_bytes_i;
    end
  end

  assign credit_o    = credits_q > {1'b0, take_i};
  assign out_valid_o = flush_q;
  assign out_line_o  = line_q;
  assign out_data_o  = data_q;
  assign out_strb_o  = strb_q;
  assign idle_o      = !in_valid_i && !flush_q;

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      assert (!(take_i && credits_q == 2'd0)) else $error("output_buffer: credit taken with none left");
      assert (!(in_valid_i && in_discard_i)) else $error("output_buffer: a chunk and a discard at once");
      assert (credits_d <= 2'(StoreSlots)) else $error("output_buffer: more credits back than given");
      if (in_valid_i) assert (in_len_i != '0 && in_len_i <= 7'(Width)) else $error("output_buffer: chunk of %0d bytes", in_len_i);
    end
  end
`endif

endmodule
