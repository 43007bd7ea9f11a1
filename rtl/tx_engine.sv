// TxEngine for Set: a void Set's reply is a fixed 16-byte Thrift REPLY
// (header, name "Set", the request's seqid, empty result struct), written to
// the Net.Resp line as one store (docs/abi.md section 8).
module tx_engine
  import arcalis_pkg::*;
(
  input  logic                 clk_i,
  input  logic                 rst_ni,
  input  logic                 start_i,
  input  logic [LineAddrW-1:0] net_resp_line_i,
  input  logic [31:0]          seqid_i,

  output logic                 out_valid_o,
  input  logic                 out_ready_i,
  output logic [LineAddrW-1:0] out_line_o,
  output logic [LineBits-1:0]  out_bytes_o,
  output logic                 done_o
);

  logic busy_q, busy_d;

  assign busy_d = start_i || (busy_q && !out_ready_i);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) busy_q <= 1'b0;
    else         busy_q <= busy_d;
  end

  // Bytes in wire order, byte 0 in bits [7:0].
  logic [16*8-1:0] reply;
  assign reply = {8'h00, seqid_i[7:0], seqid_i[15:8], seqid_i[23:16], seqid_i[31:24],
                  "teS", 32'h0300_0000, 32'h0200_0180};

  assign out_valid_o = busy_q;
  assign out_line_o  = net_resp_line_i;
  assign out_bytes_o = {{(LineBits-128){1'b0}}, reply};
  assign done_o      = out_valid_o && out_ready_i;

endmodule
