// TxEngine for Set: a void Set's reply is a fixed 16-byte Thrift REPLY
// (header, name "Set", the request's seqid, empty result struct), written
// to the Net.Resp line in Width-byte chunks through the output buffer
// (docs/abi.md section 8). A chunk goes out in the cycle it is sent, from
// this engine's registers, into the output stage the RxEngine keeps for
// both engines (one register stage and one select in front of the output
// buffer, not one per engine and a mux after them).
module tx_engine
  import arcalis_pkg::*;
#(
  parameter int unsigned Width = 16,
  localparam int unsigned Lanes = LineBytes / Width
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  input  logic                 start_i,
  input  logic [LineAddrW-1:0] net_resp_line_i,
  input  logic [31:0]          seqid_i,

  input  logic                 pop_i,         // the store queue sent one of our lines: a credit back
  output logic                 out_valid_o,   // a chunk goes out this cycle
  output logic [LineAddrW-1:0] out_line_o,
  output logic [Lanes-1:0]     out_lanes_o,   // out_valid_o per lane
  output logic [Width*8-1:0]   out_bytes_o,
  output logic [Width-1:0]     out_mask_o,
  output logic                 out_last_o,
  output logic                 done_o
);

  localparam int unsigned ReplyBytes = 4 + 4 + NameLen + 4 + 1;  // version, name length, name, seqid, STOP
  localparam int unsigned Chunks     = (ReplyBytes + Width - 1) / Width;
  localparam int unsigned ChunkBytes = (Width < ReplyBytes) ? Width : ReplyBytes;
  // The one-hot chunk index has a bit past the last chunk: set, the
  // engine is idle (after reset, and once the last chunk is sent).
  localparam int unsigned ChunkW     = Chunks + 1;

  // Bytes in wire order, byte 0 in bits [7:0], padded to whole chunks:
  // the package's version word, name length and name, the seqid, STOP.
  logic [Chunks*Width*8-1:0] reply;
  assign reply = (Chunks*Width*8)'({8'(TStop), seqid_i[7:0], seqid_i[15:8], seqid_i[23:16], seqid_i[31:24],
                                    NameSetWin, NameLenWin, MsgReply, 8'h00, VersionWin});

  // The next chunk, one-hot, and the credits as "more than 0 / 1" flags
  // beside their count: the send decision is one LUT of registers, and a
  // chunk's lane enable one more (it feeds the output stage's select).
  logic [ChunkW-1:0]    chunk_q;              // next chunk to send, one-hot
  logic                 busy;
  logic                 last_q;               // the last chunk went out last cycle: done, a credit spent
  logic                 fire, last;

  assign last = chunk_q[Chunks-1];
  assign busy = !chunk_q[Chunks];
  // One credit per store-queue slot, spent on the chunk that ends the line.
  logic [CreditW-1:0] credits_q, credits_d;
  logic               some_q, two_q;        // credits_q > 0, credits_q > 1
  always_comb begin
    unique case ({last_q, pop_i})
      2'b01:   credits_d = count_up(credits_q);
      2'b10:   credits_d = count_down(credits_q);
      default: credits_d = credits_q;
    endcase
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      credits_q <= CreditW'(StoreSlots);
      some_q    <= 1'b1;
      two_q     <= StoreSlots > 1;
    end else begin
      credits_q <= credits_d;
      some_q    <= credits_d != '0;
      two_q     <= credits_d > CreditW'(1);
    end
  end
  // credits_q > last_q: a credit is left after last cycle's spend.
  assign fire = busy && (!last || (last_q ? two_q : some_q));

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      chunk_q <= ChunkW'(1) << Chunks;
      last_q  <= 1'b0;
    end else begin
      last_q  <= fire && last;
      if (start_i) chunk_q <= ChunkW'(1);
      else if (fire) chunk_q <= chunk_q << 1;
    end
  end

  // The chunk: an AND-OR over the one-hot index.
  logic [Width*8-1:0] bytes;
  always_comb begin
    bytes = '0;
    for (int unsigned c = 0; c < Chunks; c++) bytes = bytes | ({(Width*8){chunk_q[c]}} & reply[c*Width*8 +: Width*8]);
  end

  assign out_valid_o = fire;
  always_comb begin
    for (int unsigned l = 0; l < Lanes; l++) out_lanes_o[l] = fire && l < Chunks && chunk_q[l % Chunks];
  end
  assign out_line_o  = net_resp_line_i;
  assign out_bytes_o = bytes;
  assign out_mask_o  = Width'((Width+1)'(1) << ChunkBytes) - 1'b1;
  assign out_last_o  = fire && last;
  assign done_o      = last_q;   // the last chunk is in the output stage

endmodule
