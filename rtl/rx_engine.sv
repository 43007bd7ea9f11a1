// RxEngine: loads one request from Net.Recv through the load queue, runs the
// Deserializer and the Set recvFunction over the line buffer's window, and
// writes the App.Recv header line last (docs/abi.md sections 5 and 6).
// For the TxEngine (tx_i) it reads the App.Resp image instead: the header
// line's first bytes for the TxEngine's checks, then, if the reply has
// data, a copy of it through the same window into Net.Resp (section 11).
// What it drives out is registers; a parser step decides from registers
// (the readiness of a read is worked out the cycle before).
module rx_engine
  import arcalis_pkg::*;
#(
  parameter int unsigned Width = 16,
  localparam int unsigned Lanes = LineBytes / Width,
  localparam int unsigned LaneW = (Lanes > 1) ? $clog2(Lanes) : 1,
  localparam int unsigned WidthW = $clog2(Width)
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,

  input  logic                 start_i,
  input  logic                 tx_i,          // with start_i: the App.Resp image for the TxEngine
  input  logic [AddrW-1:0]     addr_i,        // Net.Recv byte address (App.Resp's)
  input  logic [59:0]          len_i,         // message length (App.Resp length)
  input  logic [LineAddrW-1:0] app_base_line_i, // App.Recv's first line (Net.Resp's)
  input  logic [15:0]          app_cap_lines_i,

  // Load queue.
  output logic                 lq_start_o,
  output logic [LineAddrW-1:0] lq_first_o,
  output logic [LineAddrW-LinesW-1:0] lq_hi1_o, // lq_first_o's high part plus one: where a carry goes
  output logic [LinesW-1:0]    lq_count_o,
  output logic                 lq_some_o,     // lq_count_o != 0
  output logic                 lq_two_o,      // lq_count_o > 1
  output logic                 lq_stop_o,
  input  logic [LineBits-1:0]  line0_i,
  input  logic [LineBits-1:0]  line1_i,
  input  logic                 v0_i,
  input  logic                 v1_i,
  input  logic                 v2_i,
  input  logic                 e0_i,
  input  logic                 e1_i,
  output logic                 drop_o,

  // For the TxEngine: the App.Resp header line's bytes 0..5 (registers,
  // with the pulse), and its answer: a copy of the data, or none.
  output logic                 resp_hdr_valid_o,
  output logic [47:0]          resp_hdr_o,
  output logic                 resp_hdr_err_o,
  input  logic                 copy_go_i,
  input  logic                 copy_stop_i,
  input  logic [5:0]           copy_skip_i,
  input  logic [LenW-1:0]      copy_cnt_i,
  input  logic                 copy_gtw_i,
  input  logic                 copy_le2w_i,
  output logic                 stream_end_o,  // the copy is over: its chunks are in the output stage
  output logic                 stream_fault_o,
  output logic [LinesW:0]      tail_lo_o,     // the copy's last chunk's line (low part, carry) and lane
  output logic [LaneW-1:0]     tail_lane_o,
  output logic [LinesW-1:0]    base_lo_o,
  input  logic                 tx_take_i,     // the TxEngine spent a credit last cycle
  output logic                 credit_ok_o,   // a credit is left after the ones spent

  // The TxEngine's chunk, sent this cycle: the output stage below is both
  // engines', selected by tx_gen_i (a register: the TxEngine writes now).
  input  logic                 tx_gen_i,
  input  logic                 tx_valid_i,
  input  logic [LinesW:0]      tx_lo_i,       // its line: low part, and whether the high part takes the carry
  input  logic [Lanes-1:0]     tx_lanes_i,
  input  logic [Width*8-1:0]   tx_bytes_i,
  input  logic [Width-1:0]     tx_mask_i,
  input  logic                 tx_last_i,

  // Chunks to the output buffer, one credit spent on each that ends a line.
  input  logic                 pop_i,         // the store queue sent one of our lines: a credit back
  output logic                 out_valid_o,
  output logic                 out_discard_o,
  output logic [LineAddrW-1:0] out_line_o,
  output logic [Lanes-1:0]     out_lanes_o,   // out_valid_o per lane: the lane's registers load
  output logic [Width*8-1:0]   out_bytes_o,
  output logic [Width-1:0]     out_mask_o,
  output logic                 out_last_o,

  output logic                 done_o,
  output result_e              result_o,
  output logic [31:0]          detail_o,
  output logic                 needs_reply_o,
  output logic [31:0]          seqid_o,
  output logic                 get_o,
  output logic [2:0]           phase_o        // for functional coverage
);

  typedef enum logic [3:0] {EIdle, EInit, ECarry, EStart, EOff, EOffW, EHeader, EFields, EWriteHeader,
                            ETxHead, ETxWait, ETxSkip} estate_e;

  // Line addresses are split: a low part that counts and a high part taken
  // as is or plus one, so no adder runs the whole width in one cycle.
  localparam int unsigned HiW = LineAddrW - LinesW;

  (* fsm_encoding = "one-hot" *)          // Yosys: recode it as an FSM whatever its heuristic says
  estate_e          state_q;
  logic [LenW-1:0]  len_q;                  // message length N
  // pos (p, bytes consumed) and rem (N - p) in 12-bit halves: the high
  // half takes the low half's carry or borrow a cycle later, so no carry
  // chain runs all 24 bits. Both are read as they are only where they
  // stand still (a read takes its bytes two cycles or more after the last
  // step, the carry has arrived: asserted below); rem's compares read the
  // borrow on its way.
  localparam int unsigned HalfW = LenW / 2;
  logic [HalfW-1:0] pos_lo_q, pos_hi_q, rem_lo_q, rem_hi_q, rem_him1_q;
  logic             pos_c_q, rem_b_q;
  logic [LenW-1:0]  nlen_q;                 // -N's halves, each its own half's negation
  // rem's adders' second operands, registers: a step's amount, or in
  // EStart minus the length (each half its own half's negation).
  logic [HalfW-1:0] rem_amt_q, rem_hamt_q;
  logic             no_ld_q;                // not ECarry of a message rem will hold (the load's reset, as is)
  // rem - 4 for the recvFunction's length check, read in its read cycle:
  // the low half a cycle behind, whether it borrowed, the high half minus one.
  logic [HalfW-1:0] rem4_lo_q;
  logic             rem4_b_q;
  logic [LenW-1:0]  remm4;
  logic             appl_q;                 // a parser step took amt_q bytes last cycle
  logic [6:0]       amt_q;
  logic             step_q;                 // a read step (or the start offset) moves the head now
  logic [6:0]       step_amt_q;
  logic             init_q;                 // the step now is the start offset
  logic             ending_q;               // EFields: the recvFunction has ended the request
  logic [LenW-1:0]  vcap_q;                 // value region bytes
  logic [5:0]       start_off_q;
  logic             tx_q;                   // this request is the TxEngine's (App.Resp)
  logic             ns_q;                   // the state is EOff or ETxSkip (a registered decode)
  logic [6:0]       off63_q;                // start_off_q + 63: the span's two constant-ish terms, added ahead
  logic [LinesW-1:0] lines_q;
  logic             some_q, two_q;
  logic             len_nz_q;               // len_q != 0, a cycle ahead of its readers
  logic             len_far_q, ld_far_q;    // len_q >= 128; and rem loads it now (for far_q)
  // len_q's bits 23:18, 17:12 (its high half), 11:7, 6:2 not all 0: one LUT each, and each
  // flag above one more (kept: abc maps the wide ORs as two levels with MUXF7s).
  (* keep *) logic [3:0] len_or;
  assign len_or = {|len_q[LenW-1:LenW-6], |len_q[LenW-7:LenW/2], |len_q[LenW/2-1:7], |len_q[6:2]};
  // The message's lines, from addr's line to (addr + len - 1)'s: the
  // span len + offset + 63 in 64-byte lines, its low half first.
  logic [LenW/2:0] span_lo;                 // its bits 5:0 are the last line's offset: unused
  logic [LenW/2-1:6] span_lo_q;
  logic             span_c_q, len_hnz_q;    // the low half's carry; len's high half is not 0
  logic             too_large_q;            // MSG_TOO_LARGE, from the halves below (valid in ECarry)
  // len > MaxMessage: its halves compared as the request is taken, joined
  // in EInit; tl_take_q is that in ECarry, the cycle it is recorded.
  logic             big_z_q, big_hi_q, big_eq_q, big_lo_q, tl_take_q, big;
  assign big = !big_z_q || big_hi_q || (big_eq_q && big_lo_q);
  // len_i[59:24] == 0 on a carry chain (its carry out is the AND of a bit per six).
  logic [5:0]       hz_s;
  logic [7:0]       hz_c;
  always_comb for (int unsigned g = 0; g < 6; g++) hz_s[g] = len_i[LenW + 6*g +: 6] == '0;
  assign hz_c = {1'b0, hz_s, 1'b1} + 1'b1;
  logic [AddrW-1:6] addr_q;                 // (its low bits are start_off_q)
  // High parts plus one, in three parts over the request's first three
  // cycles (each carry chain at most 15 bits).
  localparam int unsigned HiA = 14, HiB = 13, HiC = HiW - HiA - HiB;
  logic [HiW-1:0]   net_hi1_q, app_hi1_q;
  logic [1:0]       net_c_q, app_c_q;       // the carries into their second and third parts
  logic [LineAddrW-1:0] base_q;
  result_e          result_q;
  logic [LenW-1:0]  offset_q;
  logic             done_q;
  logic             reply_q;                // a Set CALL that succeeded: the TxEngine answers it (a Get's reply is software's until its respFunction)
  logic             lq_start_q, lq_stop_q;  // registered decodes for the load queue
  logic             rem_ld_q;               // lq_start_q again: rem loads the length
  logic             in_init_q, in_offw_q, in_fields_q; // the state is EInit, EOffW, EFields (registered decodes)

  // ---- Line buffer ----
  logic [Width*8-1:0] win;
  logic [7:0]         win_err;
  logic [5:0]         off;
  logic               crossed;
  logic [2:0]         fit;
  logic [8:1]         has;
  logic [6:0]         rd_amt;               // a read step's amount (steps the cycle after)

  line_buffer #(.Width(Width)) u_line_buffer (
    .clk_i,
    .rst_ni,
    .init_i      (init_q),
    .line0_i,
    .line1_i,
    .e0_i,
    .e1_i,
    .drop_o,
    .step_i      (step_q),
    .step_amt_i  (step_amt_q),
    .next_start_i     (ns_q),
    .next_hdr_i       (state_q == EHeader),
    .next_start_amt_i (start_off_q),
    .next_hdr_amt_i   (d_amt),
    .next_fld_amt_i   (s_amt),
    .bulk_i      (s_bulk),
    .tail_i      (s_tail),
    .tail_mode_i (s_tail_mode),
    .tail_amt_i  (s_tail_amt),
    .win_o     (win),
    .win_err_o (win_err),
    .off_o     (off),
    .crossed_o (crossed),
    .fit_o     (fit)
  );

  // has[k]: the lines hold k bytes at the head now (the window shows them
  // two cycles later): the first line has arrived and holds byte k-1 (a
  // constant table of the offset, one LUT), or the second has arrived too;
  // and the head is not crossing into the next line.
  always_comb begin
    for (int unsigned k = 1; k <= 8; k++) begin
      logic [63:0] tab;
      for (int unsigned o = 0; o < 64; o++) tab[o] = (o + k <= 64);
      has[k] = !crossed && v0_i && (v1_i || tab[off]);
    end
  end

  // Readiness of a read of k bytes next cycle: the window will hold them
  // and the message has them; or it has fewer than k left. Both only while
  // the head and rem stand still (no step last cycle).
  logic [4:1] ready_q, short_q;             // k = 1, 2, 4, 8
  logic       ready3_q, short3_q, ready_hdr_q, rem3_q, rem19_q;
  logic       settled;
  // rem's small compares are registers (remge_q, a cycle behind rem),
  // so a read waits two cycles after the last step.
  logic       appl2_q;
  logic [5:0] remge_q;                      // rem >= 1, 2, 3, 4, 8, 19
  logic       quiet_q;                      // nothing moved last cycle (read with remge_q)
  logic [4:0] rs;                           // remge_q[4:0] && quiet_q
  logic       appl_d, step_d;               // appl_q's and step_q's next values
  assign settled = !appl_q && !appl2_q && !step_q;
  assign appl_d  = d_go || s_go || s_bulk || s_tail;
  assign step_d  = d_go || s_go || (state_q == EOff) || (state_q == ETxSkip);
  // rem >= k for k = 1, 2, 3, 4, 8, 19: far_q, bit 6, or the low six bits
  // by a constant table (one LUT level, no carry chain). far_q is "rem >=
  // 128" a cycle behind (a length's load taken as it happens): a step
  // takes at most 64 bytes (asserted), so after far_q rem is still at
  // least 64, and without it rem is its low seven bits.
  logic       far_q;
  (* keep *) logic [1:0] far_hi;            // rem's high half is not 0, by halves (two LUT levels in all)
  assign far_hi = {|rem_hi_q[HalfW-1:HalfW/2], |rem_hi_q[HalfW/2-1:0]};
  (* keep *) logic far_lo, far_any;        // rem's low half is 128 or more; far_q's terms
  assign far_lo  = |rem_lo_q[HalfW-1:7];
  assign far_any = far_hi[0] || far_hi[1] || far_lo || ld_far_q;
  logic [5:0] remge;
  always_comb begin
    for (int unsigned j = 0; j < 6; j++) begin
      logic [63:0] tab;    // 64 entries: Verilator unrolls loops of up to 64 (a longer one runs every evaluation)
      for (int unsigned v = 0; v < 64; v++) tab[v] = (v >= ((j == 5) ? 19 : (j == 4) ? 8 : j + 1));
      remge[j] = far_q || rem_lo_q[6] || tab[rem_lo_q[5:0]];
    end
  end

  assign rs = remge_q[4:0] & {5{quiet_q}};

  // Reads are 1, 2, 3, 4 or 8 bytes.
  logic unused_has;
  assign unused_has = ^{has[7:5], hz_c[6:0], span_lo[5:0]};

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ready_q     <= '0;
      short_q     <= '0;
      ready3_q    <= 1'b0;
      short3_q    <= 1'b0;
      ready_hdr_q <= 1'b0;
    end else begin
      ready_q     <= {has[8] && rs[4], has[4] && rs[3], has[2] && rs[1], has[1] && rs[0]};
      short_q     <= {4{settled}} & ~{remge_q[4], remge_q[3], remge_q[1], remge_q[0]};
      ready3_q    <= has[3] && rs[2];
      short3_q    <= settled && !remge_q[2];
      ready_hdr_q <= rs[2] ? has[3] : (rs[0] && has[1]);
    end
  end
  always_ff @(posedge clk_i) begin
    rem3_q  <= remge_q[2];
    rem19_q <= remge_q[5];
    remge_q <= remge;
    quiet_q <= !appl_d && !appl_q && !step_d;
    appl2_q <= appl_q;
  end

  // A read decided from last cycle's readiness finds nothing moved: a read
  // state is entered two cycles or more after the last step (each read step
  // is followed by a wait and a check cycle, a field's tail by a wait).

  // ---- Deserializer: header and dispatch ----
  logic        d_done, d_dispatch, d_end;
  result_e     d_result;
  logic [3:0]  d_offset;
  logic [6:0]  d_amt;
  logic [7:0]  d_msg_type, d_method;
  logic        d_get;
  logic [31:0] d_seqid;

  rx_deserializer u_rx_deserializer (
    .clk_i,
    .rst_ni,
    .clear_i    (in_init_q),
    .start_i    (in_offw_q),
    .win_i      (win[4*8-1:0]),
    .win_err_i  (win_err[3:0]),
    .ready3_i   (ready3_q),
    .ready4_i   (ready_q[3]),
    .short3_i   (short3_q),
    .short4_i   (short_q[3]),
    .amt_o      (d_amt),
    .go_o       (d_go),
    .done_o     (d_done),
    .dispatch_o (d_dispatch),
    .end_o      (d_end),
    .result_o   (d_result),
    .offset_o   (d_offset),
    .msg_type_o (d_msg_type),
    .method_o   (d_method),
    .get_o      (d_get),
    .seqid_o    (d_seqid)
  );

  // ---- recvFunction for Set ----
  logic            s_done, s_cend, s_busy, s_valid, s_discard, s_last, s_take, s_give;
  logic            s_bulk, s_tail;
  logic [6:0]      s_amt, s_tail_amt;
  logic            s_tail_mode, s_streaming;
  logic [Width-1:0] s_mask;
  logic [5:0]      s_off;
  logic [LenW-1:0] s_offset;
  logic [LinesW:0] s_lo;
  logic [Width*8-1:0] s_bytes;
  result_e         s_result;
  operands_t       s_ops;

  recv_set #(.Width(Width)) u_recv_set (
    .clk_i,
    .rst_ni,
    .clear_i       (in_init_q),
    .start_i       (d_dispatch),        // (only ever with d_done)
    .get_i         (d_get),
    .copy_i        (copy_q),
    .copy_cnt_i,
    .copy_gtw_i,
    .copy_le2w_i,
    .win_i         (win),
    .win_err_i     (win_err),
    .off_i         (off),
    .fit_i         (fit),
    .crossed_i     (crossed),
    .v0_i,
    .v1_i,
    .v2_i,
    .e0_i,
    .e1_i,
    .ready_i       (ready_q),
    .ready_hdr_i   (ready_hdr_q),
    .short_i       (short_q),
    .rem3_i        (rem3_q),
    .rem19_i       (rem19_q),
    .remm4_i       (remm4),
    .pos_i         ({pos_hi_q, pos_lo_q}),
    .value_cap_i   (vcap_q),
    .bulk_o        (s_bulk),
    .tail_o        (s_tail),
    .amt_o         (s_amt),
    .go_o          (s_go),
    .tail_mode_o   (s_tail_mode),
    .streaming_o   (s_streaming),
    .tail_amt_o    (s_tail_amt),
    .app_base_lo_i (base_q[LinesW-1:0]),
    .credits_i     (credits_q),
    .take_o        (s_take),
    .give_o        (s_give),
    .out_valid_o   (s_valid),
    .out_discard_o (s_discard),
    .out_bytes_o   (s_bytes),
    .out_off_o     (s_off),
    .out_lo_o      (s_lo),
    .out_mask_o    (s_mask),
    .out_last_o    (s_last),
    .done_o        (s_done),
    .copy_end_o    (s_cend),
    .busy_o        (s_busy),
    .result_o      (s_result),
    .offset_o      (s_offset),
    .operands_o    (s_ops)
  );

  // Each block says, from a register, that a read (go) or a chunk takes
  // bytes now; appl_q (pos and rem move) and step_q (the head moves) are those
  // registered once more, so each is a register.
  logic d_go, s_go;

  // One step at most fires. A read's amount is picked by the phase (a
  // register), and the head moves by it the cycle after; pos and rem
  // follow every step the cycle after. The line buffer makes the same pick
  // from the same registers for its own adder (one LUT with its first bit:
  // an output of this mux would be a level more).
  always_comb begin
    unique case (state_q)
      EOff, ETxSkip: rd_amt = {1'b0, start_off_q};
      EHeader: rd_amt = d_amt;
      default: rd_amt = s_amt;
    endcase
  end

  // What pos and rem move by next: a read's amount, or a chunk's.
  logic [6:0] amt;
  assign amt = (state_q == ECarry) ? '0 :
               (state_q == EFields && s_streaming) ? (s_tail_mode ? s_tail_amt : 7'(Width)) : rd_amt;

  // ---- Credits: one per store-queue slot (the TxEngine has its own set:
  // the two never run at once, and DRAIN gives every credit back between) ----
  logic [CreditW-1:0] credits_q, credits_d;
  logic       taken, credit_ok;
  assign taken     = s_take || h_take_q || tx_take_i; // spent last cycle, not yet counted
  // The engines' own takes apart (the TxEngine's chunks come after the
  // RxEngine's are all gone): each a LUT of its own.
  assign credit_ok = credits_q > CreditW'(s_take || h_take_q);
  logic credit_tx;
  assign credit_tx = credits_q > CreditW'(tx_take_i);
  // One cycle's spend and returns: -1, +1 or +2.
  always_comb begin
    unique case ({taken, pop_i, s_give})
      3'b001, 3'b010, 3'b111: credits_d = count_up(credits_q);
      3'b011:                 credits_d = count_up(count_up(credits_q));
      3'b100:                 credits_d = count_down(credits_q);
      default:                credits_d = credits_q;   // none, or one spent and one back
    endcase
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) credits_q <= CreditW'(StoreSlots);
    else         credits_q <= credits_d;
  end

  // ---- Header line chunks ----
  logic [Lanes-1:0] hl_q;                   // next header-line chunk, one-hot
  logic             hdr_last, hdr_fire, h_take_q;
  assign hdr_last = hl_q[Lanes-1];
  assign hdr_fire = (state_q == EWriteHeader) && (!hdr_last || credit_ok);

  // ---- Sequencing ----
  assign span_lo = {1'b0, len_q[LenW/2-1:0]} + (LenW/2+1)'(off63_q);
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q  <= EIdle;
      init_q   <= 1'b0;
      ns_q     <= 1'b0;
      ending_q <= 1'b0;
      appl_q   <= 1'b0;
      step_q   <= 1'b0;
      hl_q     <= Lanes'(1);
      done_q   <= 1'b0;
      h_take_q <= 1'b0;
      reply_q  <= 1'b0;
      lq_start_q <= 1'b0;
      tl_take_q  <= 1'b0;
      in_fields_q <= 1'b0;
      lq_stop_q  <= 1'b1;
      in_init_q  <= 1'b0;
      no_ld_q    <= 1'b1;
      in_offw_q  <= 1'b0;
    end else begin
      init_q   <= state_q == EOff || state_q == ETxSkip;
      ns_q     <= state_q == EStart || (state_q == ETxWait && copy_go_i);
      appl_q   <= appl_d;
      step_q   <= step_d;
      done_q   <= hdr_fire && hdr_last;
      h_take_q <= hdr_fire && hdr_last;
      reply_q  <= (result_q == ResOk) && (d_msg_type == MsgCall);   // a Set or a Get: the TxEngine answers
      // The load queue starts with EStart and stops one cycle after the
      // parse ends (a line more may be loaded: docs/abi.md section 9).
      lq_start_q <= (state_q == ECarry) && !too_large_q;
      in_fields_q <= ((state_q == EHeader) && d_dispatch) || (state_q == ETxSkip) ||
                     ((state_q == EFields) && !(ending_q && !s_busy));
      tl_take_q  <= in_init_q && big;
      in_init_q  <= (state_q == EIdle) && start_i;
      no_ld_q    <= !(in_init_q && !big);
      in_offw_q  <= state_q == EOff && !tx_q;
      lq_stop_q  <= (state_q == EIdle) || (state_q == EInit) || (state_q == ECarry) || (state_q == EWriteHeader);
      if (hdr_fire) for (int unsigned l = 0; l < Lanes; l++) hl_q[l] <= hl_q[(l + Lanes - 1) % Lanes];
      ending_q <= (state_q == EFields) && (ending_q || s_done || s_cend);
      unique case (state_q)
        EIdle: if (start_i) state_q <= EInit;
        EInit:  state_q <= ECarry;
        ECarry: state_q <= too_large_q ? EWriteHeader : EStart;
        EStart: state_q <= EOff;
        EOff:   state_q <= EOffW;
        EOffW:  state_q <= tx_q ? ETxHead : EHeader;
        // For the TxEngine: the header line's first bytes, its answer, and
        // the copy's start offset (a second start offset, from 0).
        ETxHead: if (ready_q[4]) state_q <= ETxWait;
        ETxWait: begin
          if (copy_go_i)        state_q <= ETxSkip;
          else if (copy_stop_i) state_q <= EIdle;
        end
        ETxSkip: state_q <= EFields;
        EHeader: begin
          if (d_dispatch)  state_q <= EFields;        // (d_dispatch only ever with d_done)
          else if (d_done) state_q <= EWriteHeader;
        end
        // Chunks squashed by the end (a fault) still pass to the output
        // buffer as discards: the header line waits for them (ending_q), or
        // a discard would drop its first chunks. No chunk starts once the
        // end is known, so a cycle with none on its way (s_busy: last
        // cycle's) ends the wait.
        EFields: begin
          if (ending_q && !s_busy) state_q <= tx_q ? EIdle : EWriteHeader;
        end
        EWriteHeader: if (hdr_fire && hdr_last) state_q <= EIdle;
        default: ;
      endcase
      if (start_i) hl_q <= Lanes'(1);
    end
  end

  // The result and the failing offset: each source is a register that is
  // set only in its state (asserted below), so the enable is one LUT, and
  // the request's start is a synchronous reset (they are read only after
  // it). A message too large fails at offset 0, which the start set. A
  // recvFunction may end more than once (a faulty chunk after its end):
  // only an end in EFields counts.
  always_ff @(posedge clk_i) begin
    if (start_i) begin
      result_q <= ResNone;
      offset_q <= '0;
    end else if (tl_take_q) begin
      result_q <= ResMsgTooLarge;
    end else if (d_end) begin
      result_q <= d_result;
      offset_q <= LenW'(d_offset);
    end else if (s_done && in_fields_q) begin
      result_q <= s_result;
      offset_q <= s_offset;
    end
  end

  // pos and rem: ECarry clears both; EStart loads the length into rem
  // through its adders' second operands (each half minus its negation), so
  // each sum goes straight to its register and an adder's first operand is
  // the register itself. Only a step carries or borrows.
  logic [HalfW:0] pos_lo_d, rem_lo_d;
  assign pos_lo_d = {1'b0, pos_lo_q} + (HalfW+1)'(amt_q);
  assign rem_lo_d = {1'b0, rem_lo_q} - {1'b0, rem_amt_q};
  always_ff @(posedge clk_i) begin
    if (state_q == ECarry) begin
      pos_lo_q <= '0;
      pos_hi_q <= '0;
      rem_lo_q <= '0;
      rem_hi_q <= '0;
    end else begin
      if (appl_q || rem_ld_q) begin
        pos_lo_q <= pos_lo_d[HalfW-1:0];
        rem_lo_q <= rem_lo_d[HalfW-1:0];
      end
      pos_hi_q <= pos_hi_q + HalfW'(pos_c_q);
      rem_hi_q <= rem_hi_q - (rem_hamt_q | HalfW'(rem_b_q));
    end
    if (appl_q) pos_c_q <= pos_lo_d[HalfW];
    else        pos_c_q <= 1'b0;
    if (appl_q) rem_b_q <= rem_lo_d[HalfW];
    else        rem_b_q <= 1'b0;
    far_q      <= far_any;
    if (state_q == ECarry) far_q <= 1'b0;   // (a synchronous reset: far_any's one LUT is the path)
    rem_him1_q <= rem_hi_q - 1'b1;
    {rem4_b_q, rem4_lo_q} <= {1'b0, rem_lo_q} - (HalfW+1)'(4);
  end
  assign remm4 = {rem4_b_q ? rem_him1_q : rem_hi_q, rem4_lo_q};

  // Request registers, taken when the control FSM starts the request, and
  // what follows from them over the next two cycles.
  always_ff @(posedge clk_i) begin
    step_amt_q <= rd_amt;
    amt_q      <= amt;
    rem_amt_q  <= no_ld_q ? HalfW'(amt) : nlen_q[HalfW-1:0];
    rem_hamt_q <= no_ld_q ? '0 : nlen_q[LenW-1:HalfW];
    if (start_i) begin
      len_q       <= len_i[LenW-1:0];
      big_z_q     <= hz_c[7];
      big_hi_q    <= len_i[LenW-1:LenW/2] > MaxMessage[LenW-1:LenW/2];
      big_eq_q    <= len_i[LenW-1:LenW/2] == MaxMessage[LenW-1:LenW/2];
      big_lo_q    <= len_i[LenW/2-1:0] > MaxMessage[LenW/2-1:0];
      addr_q      <= addr_i[AddrW-1:6];
      start_off_q <= addr_i[5:0];
      tx_q        <= tx_i;
      off63_q     <= {1'b0, addr_i[5:0]} + 7'd63;
      base_q      <= app_base_line_i;
      {net_c_q[0], net_hi1_q[0 +: HiA]} <= {1'b0, addr_i[6+LinesW +: HiA]} + 1'b1;
      {app_c_q[0], app_hi1_q[0 +: HiA]} <= {1'b0, app_base_line_i[LinesW +: HiA]} + 1'b1;
      vcap_q      <= LenW'({app_cap_lines_i, 6'b0}) - LenW'(ValueOffset);
    end
    // The TxEngine's copy starts where it says in App.Resp's first line.
    if (state_q == ETxWait && copy_go_i) start_off_q <= copy_skip_i;
    nlen_q <= {HalfW'(0) - len_q[LenW-1:HalfW], HalfW'(0) - len_q[HalfW-1:0]};
    ld_far_q <= state_q == ECarry && !too_large_q && len_far_q;   // with lq_start_q
    rem_ld_q <= state_q == ECarry && !too_large_q;                // lq_start_q, for pos and rem (no reset: a register of its own)
    if (state_q == EInit) begin
      too_large_q <= big;
      {span_c_q, span_lo_q} <= span_lo[LenW/2:6];
      len_nz_q    <= (|len_or) || len_q[1] || len_q[0];
      len_hnz_q   <= len_or[3] || len_or[2];
      len_far_q   <= len_or[3] || len_or[2] || len_or[1];
      {net_c_q[1], net_hi1_q[HiA +: HiB]} <= {1'b0, addr_q[AddrW-HiW+HiA +: HiB]} + (HiB+1)'(net_c_q[0]);
      {app_c_q[1], app_hi1_q[HiA +: HiB]} <= {1'b0, base_q[LinesW+HiA +: HiB]} + (HiB+1)'(app_c_q[0]);
    end
    // The line count: span's low six bits of line count, and its high part
    // (the length's plus the low half's carry); 0 for an empty message.
    // A message of bytes always touches a line; two when the span is 128
    // or more.
    if (state_q == ECarry) begin
      lines_q[5:0]      <= len_nz_q ? span_lo_q[11:6] : '0;
      lines_q[LinesW-1:6] <= len_nz_q ? len_q[LenW-1:LenW/2] + (LinesW-6)'(span_c_q) : '0;
      some_q  <= len_nz_q;
      two_q   <= len_nz_q && (len_hnz_q || span_c_q || (|span_lo_q[11:7]));
      net_hi1_q[HiW-1 -: HiC] <= addr_q[AddrW-1 -: HiC] + HiC'(net_c_q[1]);
      app_hi1_q[HiW-1 -: HiC] <= base_q[LineAddrW-1 -: HiC] + HiC'(app_c_q[1]);
    end
  end

  assign lq_start_o  = lq_start_q;
  assign lq_first_o  = addr_q[AddrW-1:6];
  assign lq_hi1_o    = net_hi1_q;
  assign lq_count_o  = lines_q;
  assign lq_some_o   = some_q;
  assign lq_two_o    = two_q;
  assign lq_stop_o   = lq_stop_q;

  // ---- The App.Recv header line: operand registers in host byte order ----
  // Byte i of a line is bits [8i+7:8i], so a little-endian field of the
  // header sits in the line as the plain value.
  localparam int unsigned HdrPad = 224;      // the line's bytes past the header's fields: zeros
  logic [LineBits-1:0] header_line;
  assign header_line = {HdrPad'(0), {8'b0, offset_q}, d_method, 3'b0, s_ops.present,
                        d_msg_type, result_q, d_seqid, s_ops.value_len,
                        s_ops.key_len, s_ops.exptime, s_ops.flags, s_ops.req_id};

  logic               h_valid_q, h_last_q;
  logic [Lanes-1:0]   h_lanes_q;              // hl_q, a cycle later
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      h_valid_q <= 1'b0;
      h_last_q  <= 1'b0;
    end else begin
      h_valid_q <= hdr_fire;
      h_last_q  <= hdr_fire && hdr_last;
    end
  end
  always_ff @(posedge clk_i) h_lanes_q <= hl_q;

  // A data chunk's App.Recv line: recv_set added base + dst / 64 in the low
  // LinesW bits; the high part is taken as is or plus one.

  // The chunk to the output buffer leaves from registers: a header chunk, a
  // recvFunction chunk or, while the TxEngine owns BUSY, its chunk (never
  // two at once).
  logic                 o_valid_q, o_discard_q, o_last_q;
  logic [LineAddrW-1:0] o_line_q;
  // The chunk's bytes: a mux of its sources by a binary code registered
  // the cycle before (0 the recvFunction's, 1 the TxEngine's, 2 + l the
  // header's source l), so each bit is one LUT of the code and its
  // sources, not a pick of the header's lanes and then a choice of engine.
  // The code is what goes whenever a chunk goes (bytes without a chunk are
  // not read): the TxEngine's while it generates (tx_gen_i is set before
  // its first chunk and cleared after its last), the recvFunction's
  // in EFields (its chunks go the cycle after an EFields cycle: it is left
  // only with none on its way), else the header's lane hl_q.
  // The header's sources are its lanes when it spans at most three chunks;
  // beyond that (8 B/cycle) one register, hp_q, that picks the lane as it
  // fires (a mux of more inputs would take two LUT levels and two MUXFs;
  // at other widths only an assertion reads hp_q).
  // Past the header's fields the line is zeros: a lane past them takes a
  // reset of every bit (oz_lo_q), and in the last lane with fields the
  // bits past them decode only the code's low bits and take a reset
  // (oz_hi_q): registers straight on the flip-flops' reset pins.
  localparam int unsigned HdrBits  = LineBits - HdrPad;
  localparam int unsigned HdrLanes = (HdrBits + Width*8 - 1) / (Width*8);
  localparam bit          Direct   = HdrLanes <= 3;
  localparam int unsigned HdrSrcs  = Direct ? HdrLanes : 1;
  localparam int unsigned PartBits = Direct ? HdrBits - (HdrLanes - 1) * Width*8 : Width*8;   // the last source's bits of fields
  localparam int unsigned CodeW    = $clog2(HdrSrcs + 2);
  localparam int unsigned CodeLoW  = $clog2(HdrSrcs + 1);
  (* fsm_encoding = "none" *)               // a mux code, not a state: Yosys must not recode it
  logic [CodeW-1:0]   osrc_q;
  logic [CodeW-1:0]   osrc_d;
  logic               oz_lo_q, oz_hi_q;
  logic [Width*8-1:0] hp_q, hp_d, o_bytes_d;
  logic [Width*8-1:0] o_fld, o_past;        // the bits below PartBits, and those past it
  localparam logic [Width*8-1:0] FldMask = (PartBits == Width*8) ? '1 : {Width*8{1'b1}} >> (Width*8 - PartBits);
  always_comb begin
    // (an OR of the sources' codes, hl_q one-hot: a mux of constants would
    // become a synchronous set with a LUT level of its own)
    osrc_d = {CodeW{tx_gen_i}} & CodeW'(1);
    for (int unsigned l = 0; l < HdrSrcs; l++)
      osrc_d = osrc_d | ({CodeW{!tx_gen_i && !in_fields_q && (Direct ? hl_q[l] : 1'b1)}} & CodeW'(2 + l));
    // (whole words, not bit by bit: the same logic, and Verilator
    // simulates a word in one operation)
    o_fld = s_bytes;
    if (osrc_q == CodeW'(1)) o_fld = tx_bytes_i;
    for (int unsigned l = 0; l < HdrSrcs; l++)
      if (osrc_q == CodeW'(2 + l)) o_fld = Direct ? header_line[l*Width*8 +: Width*8] : hp_q;
    if (oz_lo_q) o_fld = '0;
    o_past = s_bytes;
    if (osrc_q[CodeLoW-1:0] == CodeLoW'(1)) o_past = tx_bytes_i;
    for (int unsigned l = 0; l + 1 < HdrSrcs; l++)
      if (osrc_q[CodeLoW-1:0] == CodeLoW'(2 + l)) o_past = header_line[l*Width*8 +: Width*8];
    if (oz_hi_q) o_past = '0;
    o_bytes_d = (o_fld & FldMask) | (o_past & ~FldMask);
  end
  always_ff @(posedge clk_i) begin
    osrc_q  <= osrc_d;
    oz_lo_q <= Direct && !in_fields_q && !tx_gen_i && (hl_q >> HdrLanes) != '0;
    oz_hi_q <= Direct && !in_fields_q && !tx_gen_i && ((hl_q >> HdrLanes) != '0 || (hl_q[HdrLanes-1] && PartBits < Width*8));
    hp_q    <= hp_d;
  end
  always_comb begin
    // (an AND-OR of the lanes: an if would make a reset of the pick's zeros)
    hp_d = '0;
    for (int unsigned l = 0; l < Lanes; l++) hp_d = hp_d | ({Width*8{hl_q[l]}} & header_line[l*Width*8 +: Width*8]);
  end

  logic [LinesW:0]      o_lo;                 // the chunk's line: low part, and whether the high part takes the carry
  assign o_lo = tx_gen_i ? tx_lo_i : h_valid_q ? {1'b0, base_q[LinesW-1:0]} : s_lo;
  logic [Lanes-1:0]     o_lanes_q;
  logic [Width*8-1:0]   o_bytes_q;
  logic [Width-1:0]     o_mask_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      o_valid_q   <= 1'b0;
      o_lanes_q   <= '0;
      o_discard_q <= 1'b0;
    end else begin
      o_valid_q   <= tx_gen_i ? tx_valid_i : (h_valid_q || s_valid);
      // Decoded here, so the output buffer's lane enables are one LUT deep.
      for (int unsigned l = 0; l < Lanes; l++) begin
        o_lanes_q[l] <= tx_gen_i    ? tx_lanes_i[l] :
                        h_valid_q   ? h_lanes_q[l]  :
                                      (s_valid && (Lanes == 1 || LaneW'(s_off >> WidthW) == LaneW'(l)));
      end
      o_discard_q <= s_discard;
    end
  end
  always_ff @(posedge clk_i) begin
    o_line_q  <= {o_lo[LinesW] ? app_hi1_q : base_q[LineAddrW-1:LinesW], o_lo[LinesW-1:0]};
    o_bytes_q <= o_bytes_d;
    o_mask_q  <= tx_gen_i ? tx_mask_i  : h_valid_q ? '1 : s_mask;
    o_last_q  <= tx_gen_i ? tx_last_i  : h_valid_q ? h_last_q : s_last;
  end
  assign out_valid_o   = o_valid_q;
  assign out_discard_o = o_discard_q;
  assign out_line_o    = o_line_q;
  assign out_lanes_o   = o_lanes_q;
  assign out_bytes_o   = o_bytes_q;
  assign out_mask_o    = o_mask_q;
  assign out_last_o    = o_last_q;

  // ---- For the TxEngine ----
  // The App.Resp header line's bytes 0..5 as a read of 8 takes them (the
  // window is little-endian in a word, like the image); the copy's start
  // offset; where its last chunk went; its end, once no chunk of it is on
  // its way.
  logic        rh_take_q, rh_valid_q, rh_err_q, copy_q, se_q, sf_q;
  logic [47:0] rh_q;
  logic [LinesW:0]  tail_lo_q;
  logic [LaneW-1:0] tail_lane_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rh_take_q  <= 1'b0;
      rh_valid_q <= 1'b0;
      copy_q     <= 1'b0;
      se_q       <= 1'b0;
    end else begin
      // The read goes the cycle after its readiness (the window holds its
      // bytes then), and the TxEngine has them the cycle after.
      rh_take_q  <= state_q == ETxHead && ready_q[4];
      rh_valid_q <= rh_take_q;
      copy_q     <= state_q == ETxSkip;
      se_q       <= state_q == EFields && tx_q && ending_q && !s_busy;
    end
  end
  always_ff @(posedge clk_i) begin
    if (rh_take_q) begin
      rh_q     <= win[47:0];
      rh_err_q <= |win_err[5:0];
    end
    if (s_valid) begin
      tail_lo_q   <= s_lo;
      tail_lane_q <= LaneW'(s_off >> WidthW);
    end
    sf_q <= result_q == ResLoadFault;
  end
  assign resp_hdr_valid_o = rh_valid_q;
  assign resp_hdr_o       = rh_q;
  assign resp_hdr_err_o   = rh_err_q;
  assign stream_end_o     = se_q;
  assign stream_fault_o   = sf_q;
  assign tail_lo_o        = tail_lo_q;
  assign tail_lane_o      = tail_lane_q;
  assign base_lo_o        = base_q[LinesW-1:0];
  assign credit_ok_o      = credit_tx;

  // Read by the control FSM with done_o, the cycle after the last header chunk.
  assign done_o        = done_q;
  assign result_o      = result_q;
  assign detail_o      = {8'b0, offset_q};
  assign seqid_o       = d_seqid;
  assign get_o         = d_get;
  assign needs_reply_o = reply_q;

  always_comb begin
    unique case (state_q)
      EIdle:                      phase_o = 3'd0;
      EInit, ECarry, EStart, EOff, EOffW: phase_o = 3'd1;
      EHeader:                    phase_o = 3'd2;
      ETxHead, ETxWait, ETxSkip:  phase_o = 3'd5;
      EFields:                    phase_o = 3'd3;
      default:                    phase_o = 3'd4;
    endcase
  end

`ifndef SYNTHESIS
  // pos and rem against 24-bit counts kept the plain way: pos whenever its
  // carry has arrived; rem's compares always; rem - 4 whenever a read
  // takes its bytes.
  logic [LenW-1:0] pos_ref, rem_ref;
  always_ff @(posedge clk_i) begin
    if (state_q == ECarry) begin
      pos_ref <= '0;
      rem_ref <= '0;
    end else if (appl_q || lq_start_q) begin
      pos_ref <= pos_ref + LenW'(amt_q);
      rem_ref <= lq_start_q ? len_q : rem_ref - LenW'(amt_q);
    end
    if (rst_ni && state_q != EIdle && state_q != EInit && state_q != ECarry) begin
      assert (pos_c_q || {pos_hi_q, pos_lo_q} == pos_ref) else $error("rx_engine: pos %0d, counted %0d", {pos_hi_q, pos_lo_q}, pos_ref);
      // Where pos is read: a read taking its bytes, a read the message is
      // too short for, a length's check failing at the head.
      assert (!(d_go || s_go || u_recv_set.short_q || (u_recv_set.lend_q && u_recv_set.lpos_q)) || !pos_c_q)
        else $error("rx_engine: pos read with its carry on its way");
      assert (remge[0] == (rem_ref >= 1) && remge[4] == (rem_ref >= 8) && remge[5] == (rem_ref >= 19))
        else $error("rx_engine: rem's compares disagree with rem %0d", rem_ref);
      assert (!appl_q || amt_q <= 7'(LineBytes)) else $error("rx_engine: a step of %0d bytes", amt_q);
      assert (!(d_go || s_go) || remm4 == rem_ref - LenW'(4)) else $error("rx_engine: rem - 4 is %0d at a read, rem %0d", remm4, rem_ref);
    end
    // Whatever chunk goes, its bytes are its source's (the header's lane
    // as it stood when it fired: hp_q).
    if (rst_ni && tx_gen_i && tx_valid_i)
      assert (o_bytes_d == tx_bytes_i) else $error("rx_engine: a TxEngine chunk took other bytes");
    if (rst_ni && !tx_gen_i && h_valid_q)
      assert (o_bytes_d == hp_q) else $error("rx_engine: a header chunk took other bytes");
    if (rst_ni && !tx_gen_i && !h_valid_q && s_valid)
      assert (o_bytes_d == s_bytes) else $error("rx_engine: a recvFunction chunk took other bytes");
    if (rst_ni) assert (int'(tx_gen_i && tx_valid_i) + int'(h_valid_q) + int'(s_valid) <= 1)
      else $error("rx_engine: two chunks at once");
    // The result's sources are set only in their states, or qualified by
    // registered decodes of them (its enable relies on it).
    if (rst_ni) begin
      assert (!d_done || state_q == EHeader) else $error("rx_engine: the header ended outside EHeader");
      assert (!d_dispatch || d_done) else $error("rx_engine: a dispatch without the header's end");
      assert (no_ld_q == !(state_q == ECarry && !too_large_q)) else $error("rx_engine: no_ld_q disagrees with ECarry");
      assert (in_fields_q == (state_q == EFields)) else $error("rx_engine: in_fields_q disagrees with the state %0d", state_q);
      assert (tl_take_q == (state_q == ECarry && too_large_q)) else $error("rx_engine: tl_take_q disagrees with ECarry");
      assert (ns_q == (state_q == EOff || state_q == ETxSkip)) else $error("rx_engine: ns_q disagrees with EOff and ETxSkip");
    end
  end
`endif

endmodule
