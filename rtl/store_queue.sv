// FLR store queue: a StoreSlots-entry FIFO in front of the memory port that
// tags each line store and counts stores in flight until their
// acknowledgements return, so DRAIN can wait for MemReqInFlight == 0. The
// port is driven from registers only; the output buffer holds one credit
// per FIFO slot, so a push always finds room.
module store_queue
  import arcalis_pkg::*;
#(
  parameter int unsigned Depth = 32,
  localparam int unsigned TagW = $clog2(Depth)
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,

  input  logic                 in_valid_i,
  input  logic [LineAddrW-1:0] in_line_i,
  input  logic [LineBits-1:0]  in_data_i,
  input  logic [LineBytes-1:0] in_strb_i,
  output logic                 pop_o,          // a store left for memory last cycle: a credit comes back (a register)

  output logic                 st_req_valid_o,
  input  logic                 st_req_ready_i,
  output logic [AddrW-1:0]     st_req_addr_o,
  output logic [LineBits-1:0]  st_req_data_o,
  output logic [LineBytes-1:0] st_req_strb_o,
  output logic [TagW-1:0]      st_req_tag_o,
  input  logic                 st_ack_valid_i,
  input  logic [TagW-1:0]      st_ack_tag_i,

  output logic                 idle_o          // FIFO empty, no store in flight after this edge
);

  if (Depth < 2 || (Depth & (Depth - 1)) != 0) begin : g_check_depth
    $error("store_queue: Depth must be a power of two >= 2, not %0d", Depth);
  end
  if (StoreSlots < 2 || StoreSlots >= (1 << CreditW)) begin : g_check_slots
    $error("store_queue: StoreSlots must be 2..%0d (CreditW bits), not %0d", (1 << CreditW) - 1, StoreSlots);
  end

  // Plain arrays, not an array of a packed struct: Yosys 0.23 drops the
  // size of the latter without a word (notes/yosys-0.23.md).
  logic [LineAddrW-1:0] line_q [StoreSlots];
  logic [LineBits-1:0]  data_q [StoreSlots];
  logic [LineBytes-1:0] strb_q [StoreSlots];
  logic [CreditW-1:0]   count_q, count_d;         // 0..StoreSlots
  logic [CreditW-1:0]   rd_q, rd_d, wr_q, wr_d;   // FIFO pointers, 0..StoreSlots-1
  logic [TagW:0]        inflight_q, inflight_d;
  logic                 room_q, room_d;           // a store may be offered: fewer than Depth in flight
  logic [TagW-1:0]      tag_q;
  logic                 issue, idle_q, pop_q;

  assign st_req_valid_o = (count_q != '0) && room_q;
  assign st_req_addr_o  = {line_q[rd_q], 6'b0};
  assign st_req_data_o  = data_q[rd_q];
  assign st_req_strb_o  = strb_q[rd_q];
  assign st_req_tag_o   = tag_q;
  assign issue          = st_req_valid_o && st_req_ready_i;
  assign pop_o          = pop_q;   // registered: the engines' credit counts start from registers

  // inflight_q + 1 and - 1 bit by bit: each bit a function of the bits
  // below it, so the counter steps without a carry chain.
  logic [TagW:0] inflight_inc, inflight_dec;
  always_comb begin
    for (int unsigned i = 0; i <= TagW; i++) begin
      inflight_inc[i] = inflight_q[i] ^ (&(inflight_q | ~(TagW+1)'((1 << i) - 1)));
      inflight_dec[i] = inflight_q[i] ^ ~(|(inflight_q & (TagW+1)'((1 << i) - 1)));
    end
  end

  function automatic logic [CreditW-1:0] next_slot(input logic [CreditW-1:0] p);
    return (p == CreditW'(StoreSlots - 1)) ? '0 : count_up(p);
  endfunction

  always_comb begin
    unique case ({in_valid_i, issue})
      2'b10:   count_d = count_up(count_q);
      2'b01:   count_d = count_down(count_q);
      default: count_d = count_q;
    endcase
    wr_d       = in_valid_i ? next_slot(wr_q) : wr_q;
    rd_d       = issue ? next_slot(rd_q) : rd_q;
    // Both sums run from the register; the handshake only picks one.
    unique case ({issue, st_ack_valid_i})
      2'b10:   inflight_d = inflight_inc;
      2'b01:   inflight_d = inflight_dec;
      default: inflight_d = inflight_q;
    endcase
    // Fewer than Depth in flight after this edge, from compares of the register.
    room_d     = !((inflight_q == (TagW+1)'(Depth) && !(st_ack_valid_i && !issue)) ||
                   (inflight_q == (TagW+1)'(Depth - 1) && issue && !st_ack_valid_i));
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      count_q    <= '0;
      rd_q       <= '0;
      wr_q       <= '0;
      inflight_q <= '0;
      room_q     <= 1'b1;
      tag_q      <= '0;
      idle_q     <= 1'b1;
      pop_q      <= 1'b0;
    end else begin
      pop_q      <= issue;
      // count_d == 0 && inflight_d == 0, from small compares of the registers.
      idle_q     <= ((count_q == '0 && !in_valid_i) || (count_q == CreditW'(1) && issue && !in_valid_i)) &&
                    ((inflight_q == '0 && (!issue || st_ack_valid_i)) ||
                     (inflight_q == (TagW+1)'(1) && st_ack_valid_i && !issue));
      count_q    <= count_d;
      rd_q       <= rd_d;
      wr_q       <= wr_d;
      inflight_q <= inflight_d;
      room_q     <= room_d;
      // An enable, not tag_q + issue: the increment's carry chain starts
      // at the register, and issue only gates it.
      if (issue) tag_q <= tag_q + 1'b1;
    end
  end

  always_ff @(posedge clk_i) begin
    if (in_valid_i) begin
      line_q[wr_q] <= in_line_i;
      data_q[wr_q] <= in_data_i;
      strb_q[wr_q] <= in_strb_i;
    end
  end

  // Nothing queued or in flight after the last edge (a register).
  assign idle_o = idle_q;

  // Tags are handed out in order; the acknowledgement's tag is for the memory model.
  logic unused_ack_tag;
  assign unused_ack_tag = ^st_ack_tag_i;

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (rst_ni && st_ack_valid_i) assert (inflight_q != '0)
      else $error("store_queue: acknowledgement with no store in flight");
    if (rst_ni && in_valid_i) assert (count_q != CreditW'(StoreSlots) || issue)
      else $error("store_queue: push into a full FIFO (credits out of step)");
  end

  // A store offered and not taken stays offered, unchanged.
  logic                 held_q;
  logic [AddrW-1:0]     held_addr_q;
  logic [LineBits-1:0]  held_data_q;
  logic [LineBytes-1:0] held_strb_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      held_q <= 1'b0;
    end else begin
      if (held_q) assert (st_req_valid_o && st_req_addr_o == held_addr_q &&
                          st_req_data_o == held_data_q && st_req_strb_o == held_strb_q)
        else $error("store_queue: store request changed or withdrawn before it was taken");
      held_q      <= st_req_valid_o && !st_req_ready_i;
      held_addr_q <= st_req_addr_o;
      held_data_q <= st_req_data_o;
      held_strb_q <= st_req_strb_o;
    end
  end
`endif

endmodule
