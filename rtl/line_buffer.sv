// 64-byte line buffer of Figure 11, two lines deep so that any item at the
// stream head can straddle a line boundary. Lines arrive in message order from
// the load queue; the parser consumes 0..64 bytes per cycle from the head.
module line_buffer
  import arcalis_pkg::*;
(
  input  logic                clk_i,
  input  logic                rst_ni,

  input  logic                clear_i,       // new message starting at byte offset start_i
  input  logic [5:0]          start_i,

  input  logic                in_valid_i,
  input  logic [LineBits-1:0] in_data_i,
  input  logic                in_err_i,
  output logic                in_ready_o,

  input  logic [6:0]          consume_i,     // bytes taken this cycle, <= avail_o
  output logic [LineBits-1:0] head_o,        // 64 bytes from the stream head
  output logic [7:0]          avail_o,       // valid bytes from the head
  output logic [6:0]          split_o,       // bytes of head_o that come from the first line
  output logic                err_lo_o,      // the first line came back with an error
  output logic                err_hi_o       // the second line came back with an error
);

  logic [LineBits-1:0] line_q [2];
  logic [LineBits-1:0] line_d [2];
  logic [1:0]          valid_q, valid_d;
  logic [1:0]          err_q, err_d;
  logic [5:0]          off_q, off_d;
  logic [6:0]          next_off;
  logic                drop;

  byte_selector #(.Width(LineBytes)) u_byte_selector (
    .lines_i  ({line_q[1], line_q[0]}),
    .offset_i (off_q),
    .bytes_o  (head_o)
  );

  assign split_o  = 7'd64 - {1'b0, off_q};
  assign avail_o  = valid_q[0] ? ({1'b0, split_o} + (valid_q[1] ? 8'd64 : 8'd0)) : 8'd0;
  assign err_lo_o = valid_q[0] && err_q[0];
  assign err_hi_o = valid_q[1] && err_q[1];

  assign next_off   = {1'b0, off_q} + consume_i;
  assign drop       = next_off[6];
  assign in_ready_o = !valid_q[1] || drop;

  always_comb begin
    line_d  = line_q;
    valid_d = valid_q;
    err_d   = err_q;
    off_d   = next_off[5:0];
    if (drop) begin
      line_d[0]  = line_q[1];
      valid_d    = {1'b0, valid_q[1]};
      err_d      = {1'b0, err_q[1]};
    end
    if (in_valid_i && in_ready_o) begin
      if (!valid_d[0]) begin
        line_d[0]  = in_data_i;
        valid_d[0] = 1'b1;
        err_d[0]   = in_err_i;
      end else begin
        line_d[1]  = in_data_i;
        valid_d[1] = 1'b1;
        err_d[1]   = in_err_i;
      end
    end
    if (clear_i) begin
      valid_d = '0;
      err_d   = '0;
      off_d   = start_i;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q <= '0;
      err_q   <= '0;
      off_q   <= '0;
    end else begin
      valid_q <= valid_d;
      err_q   <= err_d;
      off_q   <= off_d;
    end
  end

  always_ff @(posedge clk_i) begin
    line_q <= line_d;
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (rst_ni && !clear_i) assert ({1'b0, consume_i} <= avail_o)
      else $error("line_buffer: consumed %0d bytes, %0d available", consume_i, avail_o);
  end
`endif

endmodule
