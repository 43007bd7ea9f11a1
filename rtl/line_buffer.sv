// Line buffer of Figure 11: the stream head of one message, read from the
// two lines the load queue's reorder buffer holds at its head. It keeps the
// head's byte offset in the first line and registers the Width bytes from
// the head (through the byte selector) with a fault bit per byte, so every
// decision of the parser starts from a register: the window of a cycle
// shows the head as it was the cycle before, and a parser step that
// consumed bytes waits one cycle for the window to show the new head.
module line_buffer
  import arcalis_pkg::*;
#(
  parameter int unsigned Width = 16
) (
  input  logic                clk_i,
  input  logic                rst_ni,

  input  logic                clear_i,       // a new message, starting at byte offset start_i
  input  logic [5:0]          start_i,

  // The load queue's two head lines: data, arrived, answered with an error.
  input  logic [LineBits-1:0] line0_i,
  input  logic [LineBits-1:0] line1_i,
  input  logic                v0_i,
  input  logic                v1_i,
  input  logic                e0_i,
  input  logic                e1_i,
  output logic                drop_o,        // the head leaves the first line this cycle

  input  logic [6:0]          consume_i,     // bytes taken this cycle, <= Width and available
  input  logic [6:0]          want_i,        // asks: are want_i (<= Width) bytes there now?
  output logic                has_want_o,

  // The window: the head as it was last cycle.
  output logic [Width*8-1:0]  win_o,
  output logic [Width-1:0]    win_err_o,     // byte i came from a line answered with an error
  output logic [8:1]          win_has_o      // win_has_o[k]: bytes 0..k-1 of the window had arrived
);

  logic [5:0]         off_q, off_d;
  logic [6:0]         next_off;
  logic [Width*8-1:0] win_q, win_d;
  logic [Width-1:0]   win_err_q, win_err_d;
  logic [8:1]         win_has_q, win_has_d;
  logic [6:0]         room;                   // bytes of the first line from the head

  byte_selector #(.Width(Width)) u_byte_selector (
    .lines_i  ({line1_i, line0_i}),
    .offset_i (off_q),
    .bytes_o  (win_d)
  );

  assign room     = 7'd64 - {1'b0, off_q};
  assign next_off = {1'b0, off_q} + consume_i;
  assign drop_o   = next_off[6];

  // With both lines there, at least 65 bytes are: any want_i <= Width <= 64.
  assign has_want_o = v0_i && (v1_i || want_i <= room);

  always_comb begin
    for (int unsigned i = 0; i < Width; i++) begin
      win_err_d[i] = (7'(i) < room) ? e0_i : e1_i;
    end
    for (int unsigned k = 1; k <= 8; k++) begin
      win_has_d[k] = v0_i && (v1_i || 7'(k) <= room);
    end
    off_d = clear_i ? start_i : next_off[5:0];
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      off_q     <= '0;
      win_has_q <= '0;
    end else begin
      off_q     <= off_d;
      win_has_q <= clear_i ? '0 : win_has_d;
    end
  end

  // Data registers: read only where win_has_q says the bytes are there.
  always_ff @(posedge clk_i) begin
    win_q     <= win_d;
    win_err_q <= win_err_d;
  end

  assign win_o     = win_q;
  assign win_err_o = win_err_q;
  assign win_has_o = win_has_q;

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (rst_ni && !clear_i && consume_i != '0) begin
      assert (consume_i <= 7'(Width) && v0_i && (v1_i || consume_i <= room))
        else $error("line_buffer: consumed %0d bytes, not all there", consume_i);
    end
  end
`endif

endmodule
