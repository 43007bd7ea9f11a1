// Line buffer of Figure 11: the stream head of one message, read from the
// two lines at the load queue's ROB head. It keeps the head's byte offset
// in the first line and registers the Width bytes from the head (through
// the byte selector) with a fault bit per byte, so every parser decision
// starts from registers.
//
// A step that consumes bytes moves the offset at once (fire_i, amt_i); the
// window register shows the new head the cycle after. A step that crosses
// into the next line sets `crossed` for one cycle, in which the load queue
// drops its head line; the window is not valid in that cycle.
module line_buffer
  import arcalis_pkg::*;
#(
  parameter int unsigned Width = 16
) (
  input  logic                clk_i,
  input  logic                rst_ni,

  input  logic                clear_i,       // a new message: offset 0 (then a step of its start offset)

  // The load queue's two head lines: data, arrived, answered with an error.
  input  logic [LineBits-1:0] line0_i,
  input  logic [LineBits-1:0] line1_i,
  input  logic                v0_i,
  input  logic                v1_i,
  input  logic                e0_i,
  input  logic                e1_i,
  output logic                drop_o,        // the head left the first line: a register

  input  logic [4:0]          fire_i,        // steps that consume bytes this cycle (one at most)
  input  logic [6:0]          amt_i,         // how many, from registers

  // The window: the head as it was last cycle.
  output logic [Width*8-1:0]  win_o,
  output logic [Width-1:0]    win_err_o,     // byte i came from a line answered with an error
  output logic [5:0]          off_o,         // the head's offset in the first line
  output logic                crossed_o,     // this cycle the window is not valid
  output logic [8:1]          has_o          // has_o[k]: next cycle's window will hold k bytes (combinational)
);

  logic [5:0]         off_q;
  logic               crossed_q;
  logic [6:0]         sum;
  logic [Width*8-1:0] win_q, win_d;
  logic [Width-1:0]   win_err_q, win_err_d;

  byte_selector #(.Width(Width)) u_byte_selector (
    .lines_i  ({line1_i, line0_i}),
    .offset_i (off_q),
    .bytes_o  (win_d)
  );

  // While crossed the offset is already in the next line: no step fires.
  assign sum = {1'b0, off_q} + (crossed_q ? 7'd0 : amt_i);

  always_comb begin
    for (int unsigned i = 0; i < Width; i++) begin
      win_err_d[i] = (7'(i) + {1'b0, off_q} < 7'd64) ? e0_i : e1_i;
    end
    for (int unsigned k = 1; k <= 8; k++) begin
      has_o[k] = !crossed_q && v0_i && (v1_i || {1'b0, off_q} + 7'(k) <= 7'd64);
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      off_q     <= '0;
      crossed_q <= 1'b0;
    end else if (clear_i) begin
      off_q     <= '0;
      crossed_q <= 1'b0;
    end else if (|fire_i || crossed_q) begin
      off_q     <= sum[5:0];
      crossed_q <= sum[6];
    end
  end

  // Data registers: read only where has_o said the bytes are there.
  always_ff @(posedge clk_i) begin
    win_q     <= win_d;
    win_err_q <= win_err_d;
  end

  assign drop_o    = crossed_q;
  assign win_o     = win_q;
  assign win_err_o = win_err_q;
  assign off_o     = off_q;
  assign crossed_o = crossed_q;

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (rst_ni && !clear_i) begin
      assert ($countones(fire_i) <= 1) else $error("line_buffer: two steps fired at once");
      assert (!(|fire_i && crossed_q)) else $error("line_buffer: a step fired while crossing");
    end
  end
`endif

endmodule
