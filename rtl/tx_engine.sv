// TxEngine for Set: a void Set's reply is a fixed 16-byte Thrift REPLY
// (header, name "Set", the request's seqid, empty result struct), written
// to the Net.Resp line in Width-byte chunks through the output buffer
// (docs/abi.md section 8). Its outputs are registers.
module tx_engine
  import arcalis_pkg::*;
#(
  parameter int unsigned Width = 16,
  localparam int unsigned Lanes = LineBytes / Width,
  localparam int unsigned LaneW = (Lanes > 1) ? $clog2(Lanes) : 1
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  input  logic                 start_i,
  input  logic [LineAddrW-1:0] net_resp_line_i,
  input  logic [31:0]          seqid_i,

  input  logic                 pop_i,         // the store queue sent one of our lines: a credit back
  output logic                 out_valid_o,
  output logic [LineAddrW-1:0] out_line_o,
  output logic [Lanes-1:0]     out_lanes_o,   // out_valid_o per lane
  output logic [Width*8-1:0]   out_bytes_o,
  output logic [Width-1:0]     out_mask_o,
  output logic                 out_last_o,
  output logic                 done_o
);

  localparam int unsigned ReplyBytes = 16;
  localparam int unsigned Chunks     = (ReplyBytes + Width - 1) / Width;
  localparam int unsigned ChunkBytes = (Width < ReplyBytes) ? Width : ReplyBytes;

  // Bytes in wire order, byte 0 in bits [7:0], padded to whole chunks.
  logic [Chunks*Width*8-1:0] reply;
  assign reply = (Chunks*Width*8)'({8'h00, seqid_i[7:0], seqid_i[15:8], seqid_i[23:16], seqid_i[31:24],
                                    "teS", 32'h0300_0000, 32'h0200_0180});

  logic                 busy_q;
  logic [LaneW-1:0]     chunk_q;              // next chunk to send
  logic                 valid_q, last_q, take_q;
  logic [Lanes-1:0]     lanes_q;
  logic [Width*8-1:0]   bytes_q;
  logic                 fire, last;

  assign last = (chunk_q == LaneW'(Chunks - 1));
  // One credit per store-queue slot, spent on the chunk that ends the line.
  logic [CreditW-1:0] credits_q, credits_d;
  always_comb begin
    unique case ({take_q, pop_i})
      2'b01:   credits_d = count_up(credits_q);
      2'b10:   credits_d = count_down(credits_q);
      default: credits_d = credits_q;
    endcase
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) credits_q <= CreditW'(StoreSlots);
    else         credits_q <= credits_d;
  end
  assign fire = busy_q && (!last || credits_q > CreditW'(take_q));

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      busy_q  <= 1'b0;
      chunk_q <= '0;
      valid_q <= 1'b0;
      lanes_q <= '0;
      last_q  <= 1'b0;
      take_q  <= 1'b0;
    end else begin
      valid_q <= fire;
      for (int unsigned l = 0; l < Lanes; l++) lanes_q[l] <= fire && (Lanes == 1 || chunk_q == LaneW'(l));
      last_q  <= fire && last;
      take_q  <= fire && last;
      if (start_i) begin
        busy_q  <= 1'b1;
        chunk_q <= '0;
      end else if (fire) begin
        busy_q  <= !last;
        chunk_q <= chunk_q + 1'b1;
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (fire) begin
      bytes_q <= reply[chunk_q*Width*8 +: Width*8];
    end
  end

  assign out_valid_o = valid_q;
  assign out_line_o  = net_resp_line_i;
  assign out_lanes_o = lanes_q;
  assign out_bytes_o = bytes_q;
  assign out_mask_o  = Width'((Width+1)'(1) << ChunkBytes) - 1'b1;
  assign out_last_o  = last_q;
  assign done_o      = last_q;

endmodule
