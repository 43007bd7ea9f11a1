// Output buffer of Figure 11: lines up a run of key or value bytes with its
// place in the App.Recv line (byte enables for just those bytes) and holds the
// line store until the store queue takes it.
module output_buffer
  import arcalis_pkg::*;
(
  input  logic                 clk_i,
  input  logic                 rst_ni,

  input  logic                 in_valid_i,
  output logic                 in_ready_o,
  input  logic [LineAddrW-1:0] in_line_i,
  input  logic [5:0]           in_off_i,      // first byte's place in the line
  input  logic [6:0]           in_len_i,      // bytes, in_off_i + in_len_i <= 64
  input  logic [LineBits-1:0]  in_bytes_i,

  output logic                 out_valid_o,
  input  logic                 out_ready_i,
  output logic [LineAddrW-1:0] out_line_o,
  output logic [LineBits-1:0]  out_data_o,
  output logic [LineBytes-1:0] out_strb_o
);

  logic                 valid_q;
  logic [LineAddrW-1:0] line_q;
  logic [LineBits-1:0]  data_q;
  logic [LineBytes-1:0] strb_q;
  logic [LineBytes-1:0] ones;

  assign in_ready_o = !valid_q || out_ready_i;
  assign ones       = in_len_i[6] ? '1 : ((64'd1 << in_len_i[5:0]) - 64'd1);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q <= 1'b0;
    end else if (in_ready_o) begin
      valid_q <= in_valid_i;
    end
  end

  always_ff @(posedge clk_i) begin
    if (in_valid_i && in_ready_o) begin
      line_q <= in_line_i;
      data_q <= in_bytes_i << {in_off_i, 3'b000};
      strb_q <= ones << in_off_i;
    end
  end

  assign out_valid_o = valid_q;
  assign out_line_o  = line_q;
  assign out_data_o  = data_q;
  assign out_strb_o  = strb_q;

endmodule
