// FLR load queue with its reorder buffer: issues the line loads of one
// message in order, up to Depth in flight, takes the answers in any order
// (tag = ROB slot) and shows the line buffer the two lines at the ROB head.
// Every output is a register or a RAM read at a registered address; an
// answer is visible to the line buffer two cycles after it arrives, and a
// slot the line buffer frees is offered again two cycles later.
module load_queue
  import arcalis_pkg::*;
#(
  parameter int unsigned Depth = 32,
  localparam int unsigned TagW = $clog2(Depth)
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,

  input  logic                 start_i,       // load lines first_i .. first_i + count_i - 1
  input  logic [LineAddrW-1:0] first_i,
  input  logic [LineAddrW-LinesW-1:0] hi1_i,  // first_i's high part plus one
  input  logic [LinesW-1:0]    count_i,
  input  logic                 some_i,        // count_i != 0 (a register of the RxEngine's)
  input  logic                 two_i,         // count_i > 1
  input  logic                 stop_i,        // the request ended: issue nothing more

  output logic                 ld_req_valid_o,
  input  logic                 ld_req_ready_i,
  output logic [AddrW-1:0]     ld_req_addr_o,
  output logic [TagW-1:0]      ld_req_tag_o,
  input  logic                 ld_rsp_valid_i,
  input  logic [TagW-1:0]      ld_rsp_tag_i,
  input  logic [LineBits-1:0]  ld_rsp_data_i,
  input  logic                 ld_rsp_err_i,

  // The two lines at the ROB head, for the line buffer.
  output logic [LineBits-1:0]  line0_o,
  output logic [LineBits-1:0]  line1_o,
  output logic                 v0_o,          // arrived
  output logic                 v1_o,
  output logic                 v2_o,          // the line after those two arrived
  output logic                 e0_o,          // answered with an error
  output logic                 e1_o,
  input  logic                 drop_i,        // the line buffer is done with the head line (a register)

  output logic                 idle_o         // no load in flight or offered (registered)
);

  if (Depth < 4 || (Depth & (Depth - 1)) != 0) begin : g_check_depth
    $error("load_queue: Depth must be a power of two >= 4, not %0d", Depth);
  end

  // Both line counters (the next line to load, counting up; the lines
  // left to issue, counting down) are a 2-bit low part that steps and a
  // high part that takes its own +1 or -1, worked out the cycle before
  // from the register alone: the high part moves at most every fourth
  // issue, and the first issue comes two cycles after a start, so that
  // register is always ready (no carry chain in the issue's cycle).
  localparam int unsigned HiW = LineAddrW - LinesW;
  localparam int unsigned NhW = LinesW - 1;   // the next line's high part, with the carry bit LinesW
  localparam int unsigned LhW = LinesW - 2;   // the lines left's high part
  logic [1:0]           nl_lo_q, lf_lo_q;
  logic [NhW-1:0]       nl_hi_q, nl_hi_p1_q;
  logic [LhW-1:0]       lf_hi_q, lf_hi_m1_q;
  logic                 lf_hi_nz_q;           // lf_hi_q != 0, a cycle late (see more2_q)
  logic [LinesW:0]      next_lo;
  assign next_lo = {nl_hi_q, nl_lo_q};
  logic [HiW-1:0]       hi_q, hi1_q;
  // Lines left to issue: more_q (at least one), more2_q (two or more).
  // After an issue two are left iff three were: the low part says 3, or
  // the high part is not 0. The high part's flag lags a cycle, which can
  // only matter where the count goes from 4 to 3, and there the low part
  // says 3.
  logic                 more_q, more2_q;
  logic                 active_q;
  logic [TagW-1:0]      tail_q;               // ROB slot of the next load
  logic [TagW-1:0]      head_q, head1_q, head2_q; // ROB slots of the head line and the two after it
  logic [LineBits-1:0]  line0_q, line1_q;
  // Slots issued and not yet dropped, as a thermometer: used_q[k] is
  // "at least k+1", so a step is a shift and each bit one LUT.
  logic [Depth-1:0]     used_q, used_d;
  logic [TagW:0]        inflight_q, inflight_d;
  logic                 req_q, req_d;         // ld_req_valid_o
  logic                 idle_q;
  logic [Depth-1:0]     filled_q, filled_d;
  logic [Depth-1:0]     err_q, err_d;
  logic                 v0_q, v1_q, v2_q, e0_q, e1_q;
  logic [TagW-1:0]      head3_q;
  logic [Depth-1:0]     hoh0_q, hoh1_q, hoh2_q, hoh3_q;  // the head slot and the three after it, one-hot
  // Slot head+k arrived (or_q) or faulted (eor_q), as of last cycle's head:
  // AND-ORs over all slots, registered; the head lines' flags then pick
  // from them by the drops since (no 32-way select in the same cycle).
  logic [3:0]           or_q;
  logic [Depth-1:0]     prod_q [4];
  logic [Depth-1:0]     eprod_q [3];
  logic [Depth-1:0]     hoh_d [4];            // the one-hot heads after this edge
  logic [2:0]           eor_q;
  logic                 start_q, start2_q;
  logic                 rsp_q, rsp_err_q;     // the answer of last cycle
  logic [Depth-1:0]     rsp_hit_q;            // its slot, one-hot (decoded as it arrives)
  logic [LineBits-1:0]  rob_q [Depth];

  logic issue, held, drop_q, issue_q, inc_q, dec_q;
  assign issue = req_q && ld_req_ready_i;
  assign held  = req_q && !ld_req_ready_i;    // offered, not taken: stays offered

  // The ROB slot counters step bit by bit (each bit one LUT of the bits
  // below it), not through a carry chain and a mux after it.
  logic [TagW-1:0] tail_inc, head3_inc;
  always_comb begin
    for (int unsigned i = 0; i < TagW; i++) begin
      tail_inc[i]  = tail_q[i] ^ (&(tail_q | ~TagW'((1 << i) - 1)));
      head3_inc[i] = head3_q[i] ^ (&(head3_q | ~TagW'((1 << i) - 1)));
    end
  end

  always_comb begin
    hoh_d[0] = drop_i ? hoh1_q : hoh0_q;
    hoh_d[1] = drop_i ? hoh2_q : hoh1_q;
    hoh_d[2] = drop_i ? hoh3_q : hoh2_q;
    hoh_d[3] = drop_i ? {hoh3_q[Depth-2:0], hoh3_q[Depth-1]} : hoh3_q;
    // Slot by slot: each compares with its own number, no shifter.
    for (int unsigned i = 0; i < Depth; i++) begin
      filled_d[i] = (filled_q[i] && !(drop_i && hoh0_q[i])) || rsp_hit_q[i];
      err_d[i]    = rsp_hit_q[i] ? rsp_err_q : err_q[i];
    end
    // Loads in flight counted a cycle late, from the registered issue and
    // answer: one adder whose addend (+1, -1, 0) comes from two registers.
    inflight_d = inflight_q + {{TagW{dec_q}}, inc_q || dec_q};
    // A slot dropped last cycle is free now: the port never waits on this
    // cycle's drop.
    unique case ({issue, drop_q})
      2'b10:   used_d = {used_q[Depth-2:0], 1'b1};
      2'b01:   used_d = {1'b0, used_q[Depth-1:1]};
      default: used_d = used_q;
    endcase
    // Offer the next line while lines are left and a slot is free (fewer
    // than Depth used, or than Depth - 1 when this cycle issues one).
    req_d = held || (active_q && !stop_i && (issue ? more2_q : more_q) &&
                     (issue ? !used_q[Depth-2] : !used_q[Depth-1]));
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      more_q     <= 1'b0;
      more2_q    <= 1'b0;
      active_q   <= 1'b0;
      tail_q     <= '0;
      head_q     <= '0;
      head1_q    <= TagW'(1);
      hoh0_q     <= Depth'(1);
      hoh1_q     <= Depth'(2);
      hoh2_q     <= Depth'(4);
      hoh3_q     <= Depth'(8);
      start_q    <= 1'b0;
      start2_q   <= 1'b0;
      head2_q    <= TagW'(2);
      head3_q    <= TagW'(3);
      used_q     <= '0;
      inflight_q <= '0;
      req_q      <= 1'b0;
      idle_q     <= 1'b1;
      filled_q   <= '0;
      err_q      <= '0;
      v0_q       <= 1'b0;
      v1_q       <= 1'b0;
      v2_q       <= 1'b0;
      e0_q       <= 1'b0;
      e1_q       <= 1'b0;
      rsp_q      <= 1'b0;
      rsp_hit_q  <= '0;
      issue_q    <= 1'b0;
      inc_q      <= 1'b0;
      dec_q      <= 1'b0;
      drop_q     <= 1'b0;
    end else begin
      rsp_q      <= ld_rsp_valid_i;
      for (int unsigned i = 0; i < Depth; i++) rsp_hit_q[i] <= ld_rsp_valid_i && ld_rsp_tag_i == TagW'(i);
      drop_q     <= drop_i;
      inflight_q <= inflight_d;
      // DRAIN's promise: nothing in flight, nothing offered, nothing to offer.
      issue_q    <= issue;
      inc_q      <= issue && !ld_rsp_valid_i;
      dec_q      <= ld_rsp_valid_i && !issue;
      // Nothing offered now and nothing in flight by the late count (an
      // answer arriving now is still counted: idle comes a cycle later).
      idle_q     <= !req_q && stop_i && !issue_q &&
                    (inflight_q == '0 || (inflight_q == (TagW+1)'(1) && rsp_q));
      filled_q   <= filled_d;
      err_q      <= err_d;
      // The head lines as the edge leaves them; an answer marked this edge
      // shows one cycle later.
      // One-hot heads: a slot's flag is an AND-OR, not a 32-way mux.
      // The products slot by slot as registers (of this edge's flags and
      // heads), their ORs the next cycle: or_q is as before, each step a
      // cycle of its own.
      for (int unsigned k = 0; k < 4; k++) prod_q[k] <= filled_d & hoh_d[k];
      for (int unsigned k = 0; k < 3; k++) eprod_q[k] <= err_d & hoh_d[k];
      or_q    <= {|prod_q[3], |prod_q[2], |prod_q[1], |prod_q[0]};
      eor_q   <= {|eprod_q[2], |eprod_q[1], |eprod_q[0]};
      start_q  <= start_i;
      start2_q <= start_q;   // or_q reflects the new request two cycles after its start
      // The head after this edge is or_q's head plus the drops of last
      // cycle and this one (never both: a drop is followed by a bubble).
      v0_q <= !start_q && !start2_q && (drop_q ? or_q[1] : drop_i ? or_q[1] : or_q[0]);
      v1_q <= !start_q && !start2_q && (drop_q ? or_q[2] : drop_i ? or_q[2] : or_q[1]);
      v2_q <= !start_q && !start2_q && (drop_q ? or_q[3] : drop_i ? or_q[3] : or_q[2]);
      e0_q <= drop_q ? eor_q[1] : drop_i ? eor_q[1] : eor_q[0];
      e1_q <= drop_q ? eor_q[2] : drop_i ? eor_q[2] : eor_q[1];
      if (drop_i) begin
        hoh0_q <= hoh1_q;
        hoh1_q <= hoh2_q;
        hoh2_q <= hoh3_q;
        hoh3_q <= {hoh3_q[Depth-2:0], hoh3_q[Depth-1]};
      end
      if (drop_i) begin
        head_q  <= head1_q;
        head1_q <= head2_q;
        head2_q <= head3_q;
        head3_q <= head3_inc;
      end
      if (issue) tail_q <= tail_inc;
      used_q  <= used_d;
      req_q   <= req_d;
      // After an issue: one left iff two were; two iff three were.
      more_q  <= stop_i ? 1'b0 : (issue ? more2_q : more_q);
      more2_q <= stop_i ? 1'b0 : (issue ? (lf_hi_nz_q || &lf_lo_q) : more2_q);
      if (start_i) begin
        more_q   <= some_i;
        more2_q  <= two_i;
        active_q <= 1'b1;
        tail_q   <= '0;
        head_q   <= '0;
        head1_q  <= TagW'(1);
        hoh0_q   <= Depth'(1);
        hoh1_q   <= Depth'(2);
        hoh2_q   <= Depth'(4);
        hoh3_q   <= Depth'(8);
        head2_q  <= TagW'(2);
        head3_q  <= TagW'(3);
        used_q   <= '0;
        req_q    <= 1'b0;
        filled_q <= '0;
        v0_q     <= 1'b0;
        v1_q     <= 1'b0;
        v2_q     <= 1'b0;
      end
    end
  end

  // Address and answer registers: read only with their valid bits.
  always_ff @(posedge clk_i) begin
    nl_hi_p1_q <= nl_hi_q + 1'b1;
    lf_hi_m1_q <= lf_hi_q - 1'b1;
    lf_hi_nz_q <= lf_hi_q != '0;
    if (start_i) begin
      nl_lo_q <= first_i[1:0];
      nl_hi_q <= {1'b0, first_i[LinesW-1:2]};
      lf_lo_q <= count_i[1:0];
      lf_hi_q <= count_i[LinesW-1:2];
      hi_q    <= first_i[LineAddrW-1:LinesW];
      hi1_q   <= hi1_i;
    end else if (issue) begin
      nl_lo_q <= nl_lo_q + 1'b1;
      if (nl_lo_q == 2'd3) nl_hi_q <= nl_hi_p1_q;
      lf_lo_q <= lf_lo_q - 1'b1;
      if (lf_lo_q == 2'd0) lf_hi_q <= lf_hi_m1_q;
    end
    rsp_err_q <= ld_rsp_err_i;
  end

  // ROB storage (distributed RAM): written where an answer lands. The two
  // head lines are read into registers each cycle, at the slots the head
  // will have after this edge (the drop is a register, so the address mux
  // is the only logic before the RAM).
  always_ff @(posedge clk_i) begin
    if (ld_rsp_valid_i) rob_q[ld_rsp_tag_i] <= ld_rsp_data_i;
    line0_q <= rob_q[drop_i ? head1_q : head_q];
    line1_q <= rob_q[drop_i ? head2_q : head1_q];
  end

  assign line0_o = line0_q;
  assign line1_o = line1_q;
  assign v0_o    = v0_q;
  assign v1_o    = v1_q;
  assign v2_o    = v2_q;

  assign e0_o    = e0_q;
  assign e1_o    = e1_q;

  assign ld_req_valid_o = req_q;
  assign ld_req_addr_o  = {next_lo[LinesW] ? hi1_q : hi_q, next_lo[LinesW-1:0], 6'b0};
  assign ld_req_tag_o   = tail_q;
  assign idle_o         = idle_q;

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (rst_ni) assert (!(drop_i && drop_q)) else $error("load_queue: head lines dropped two cycles running");
    if (rst_ni && ld_rsp_valid_i) assert (inflight_q != '0 || issue_q)
      else $error("load_queue: response with tag %0d and no load in flight", ld_rsp_tag_i);
  end

  // A load offered and not taken stays offered, unchanged.
  logic             held_q;
  logic [AddrW-1:0] held_addr_q;
  logic [TagW-1:0]  held_tag_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      held_q <= 1'b0;
    end else begin
      if (held_q) assert (ld_req_valid_o && ld_req_addr_o == held_addr_q && ld_req_tag_o == held_tag_q)
        else $error("load_queue: load request changed or withdrawn before it was taken");
      held_q      <= held;
      held_addr_q <= ld_req_addr_o;
      held_tag_q  <= ld_req_tag_o;
    end
  end
`endif

endmodule
