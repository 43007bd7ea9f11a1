// Line buffer of Figure 11: the stream head of one message, read from the
// two lines at the load queue's ROB head. It keeps the head's byte offset
// in the first line and registers the Width bytes from the head (through
// the byte selector, two register stages) with a fault bit per byte, so
// every parser decision starts from registers.
//
// A read step moves the offset the cycle after it (step_i, step_amt_i are
// registers); a streaming chunk moves it at once (chunk_i: Width bytes, or
// tail_amt_i bytes with tail_i). The window register shows the new head the
// cycle after the move. A move into the next line sets `crossed` for one
// cycle, in which the load queue drops its head line and the window is not
// valid.
module line_buffer
  import arcalis_pkg::*;
#(
  parameter int unsigned Width = 16
) (
  input  logic                clk_i,
  input  logic                rst_ni,

  input  logic                init_i,        // with step_i: the message's start offset, from 0 (a register)

  // The load queue's two head lines: data, answered with an error.
  input  logic [LineBits-1:0] line0_i,
  input  logic [LineBits-1:0] line1_i,
  input  logic                e0_i,
  input  logic                e1_i,
  output logic                drop_o,        // the head left the first line: a register

  input  logic                step_i,        // a read step (or the start offset) moves the head now: a register
  input  logic [6:0]          step_amt_i,    // by this many bytes: a register
  // step_amt_i's next value, a step's amount the cycle before it: the
  // start offset, a header read's or a field read's amount, picked here
  // by two registered selects so that the pick and the adder's first
  // bit are one LUT.
  input  logic                next_start_i,
  input  logic                next_hdr_i,
  input  logic [5:0]          next_start_amt_i,
  input  logic [6:0]          next_hdr_amt_i,
  input  logic [6:0]          next_fld_amt_i,
  input  logic                bulk_i,        // a Width-byte chunk moves it now
  input  logic                tail_i,        // the field's tail chunk moves it now
  input  logic                tail_mode_i,   // chunks now are the tail (a register)
  input  logic [6:0]          tail_amt_i,    // the tail's bytes: a register

  // The window: the head and the lines as they were two cycles ago.
  output logic [Width*8-1:0]  win_o,
  output logic [7:0]          win_err_o,     // byte i (of the first 8, a read's) came from a line answered with an error
  output logic [5:0]          off_o,         // the head's offset in the first line
  output logic                crossed_o,     // this cycle the window is not valid
  output logic [2:0]          fit_o          // a register of the offset: {off + 2 Width <= 64, off + Width < 64, off + Width <= 64}
);

  logic [5:0]         off_q;
  logic               crossed_q;
  logic [5:0]         sum, sum_width;        // the new offset (its carry out: crosses, below)
  logic [Width*8-1:0] win_q;
  // off_q[5:2] for the byte selector, in four copies that Yosys keeps
  // apart (equal registers would be merged): off_q's, inverted, and the
  // same two without a reset. Each drives a quarter of its LUTs.
  logic [5:2]         off_n_q, off_c_q, off_cn_q;
  byte_selector #(.Width(Width), .LaneBits(8)) u_byte_selector (
    .clk_i,
    .lanes_i    ({line1_i, line0_i}),
    .offset_lo_i (off_q[1:0]),
    .offset_c_i ({off_cn_q, off_c_q, off_n_q, off_q[5:2]}),
    .lanes_o  (win_q)
  );

  // The fault bits of the window's first 8 bytes (a read's), two cycles
  // behind like its bytes: byte i came from the second line iff the
  // offset then plus i is past 64 (a constant table, one LUT).
  logic [5:0] off1_q;
  logic       e0_1_q, e1_1_q;
  logic [7:0] err_q;
  always_ff @(posedge clk_i) begin
    off1_q <= off_q;
    e0_1_q <= e0_i;
    e1_1_q <= e1_i;
    for (int unsigned i = 0; i < 8; i++) begin
      logic [63:0] tab;
      for (int unsigned o = 0; o < 64; o++) tab[o] = (o + i >= 64);
      err_q[i] <= tab[off1_q] ? e1_1_q : e0_1_q;
    end
  end

  // Every candidate sum is a register or a table of one: the choice is one
  // LUT (the start offset is taken as it is). While crossed the offset is
  // already in the next line: it holds, and crossed clears. A read step's
  // and a tail's sums are added the cycle before (the head stands still
  // then: a step follows its read's cycle, a tail a wait).
  logic [6:0] sum_step_q, sum_tail_q;
  logic [5:0] other;
  logic       crosses;
  logic [2:0] fit_q;                          // below
  // off + Width bit by bit, each a constant table of the offset (one LUT).
  always_comb begin
    for (int unsigned k = 0; k < 6; k++) begin
      logic [63:0] tab;
      for (int unsigned o = 0; o < 64; o++) tab[o] = (((o + Width) >> k) & 1) != 0;
      sum_width[k] = tab[off_q];
    end
  end
  assign other     = (step_i && init_i) ? step_amt_i[5:0] : tail_mode_i ? sum_tail_q[5:0] : sum_width;
  assign sum       = (step_i && !init_i) ? sum_step_q[5:0] : other;
  // The move crosses into the next line: the sum's carry out, where a chunk's is the
  // fit register's "off + Width >= 64" (current whenever a chunk goes,
  // asserted) and the start offset's is 0 (it is below 64).
  assign crosses = step_i ? !init_i && sum_step_q[6] : tail_mode_i ? sum_tail_q[6] : !fit_q[1];

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      off_q     <= '0;
      off_n_q   <= '1;
      crossed_q <= 1'b0;
    end else begin
      if (step_i || bulk_i || tail_i) off_q <= sum;
      if (step_i || bulk_i || tail_i) off_n_q <= ~sum[5:2];
      if (step_i || bulk_i || tail_i || crossed_q) crossed_q <= !crossed_q && crosses;
    end
  end

  always_ff @(posedge clk_i) begin
    if (step_i || bulk_i || tail_i) begin
      off_c_q  <= sum[5:2];
      off_cn_q <= ~sum[5:2];
    end
  end

  // fit_o follows the offset as a register: a table of the new offset for
  // a chunk's move, of the offset itself otherwise (a read step's move is
  // a cycle late in it: no chunk decision follows a read that soon). The
  // tail's table is a register of its own: the tail goes three cycles or
  // more after the head and the tail's amount stood still (asserted).
  logic [2:0] fit_tail, fit_tail_q;
  (* keep *) logic [2:0] fit_now, fit_bulk;   // single LUTs of the offset: fit_q's pick is one more
  always_comb begin
    for (int unsigned b = 0; b < 3; b++) begin
      logic [63:0] t_now, t_bulk;
      for (int unsigned o = 0; o < 64; o++) begin
        t_now[o]  = fits(o, b);
        t_bulk[o] = fits((o + Width) % 64, b);
      end
      fit_now[b]  = t_now[off_q];
      fit_bulk[b] = t_bulk[off_q];
      fit_tail[b] = t_now[sum_tail_q[5:0]];
    end
  end
  function automatic logic fits(input int unsigned o, input int unsigned b);
    return (b == 2) ? (o + 2 * Width <= 64) : (b == 1) ? (o + Width < 64) : (o + Width <= 64);
  endfunction
  assign fit_o = fit_q;

  always_ff @(posedge clk_i) begin
    fit_tail_q <= fit_tail;
    fit_q      <= bulk_i ? fit_bulk : tail_i ? fit_tail_q : fit_now;
    sum_step_q <= {1'b0, off_q} + (next_start_i ? {1'b0, next_start_amt_i} : next_hdr_i ? next_hdr_amt_i : next_fld_amt_i);
    sum_tail_q <= {1'b0, off_q} + tail_amt_i;
  end

  // Read only where rx_engine's readiness said the bytes are there. Chunks
  // take their fault from the lines' flags (recv_set).
  assign win_o     = win_q;
  assign win_err_o = err_q;
  assign drop_o    = crossed_q;
  assign off_o     = off_q;
  assign crossed_o = crossed_q;

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (rst_ni && tail_i) assert (fit_tail_q == fit_tail) else $error("line_buffer: the tail's fit changed the cycle before it went");
  end
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      assert ($countones({step_i, bulk_i, tail_i}) <= 1) else $error("line_buffer: two moves at once");
      assert (!bulk_i || fit_q == fit_now) else $error("line_buffer: a chunk went on a stale fit");
      assert (!(step_i && init_i) || !step_amt_i[6]) else $error("line_buffer: a start offset of 64 or more");
      assert (!((step_i || bulk_i || tail_i) && crossed_q)) else $error("line_buffer: the head moved while crossing");
      assert (!(bulk_i && tail_mode_i) && !(tail_i && !tail_mode_i)) else $error("line_buffer: chunk and tail mode disagree");
    end
  end
`endif

endmodule
