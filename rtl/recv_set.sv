// recvFunction for Memcached Set (paper Figure 11): walks the argument
// fields at the head of the line buffer's window. A field header, a fixed
// value and a binary length are each a read step (a read cycle, a wait
// cycle, a check cycle): the field extractor byte-swaps what was read, the
// schema table and the comparator check (id, type), scalars go to the
// operand registers. Key and value bytes stream out Width bytes a cycle to
// App.Recv offsets from the address adder, unknown fields are skipped at
// the same rate, and T_STOP ends the request (docs/abi.md section 5.6).
// Every decision is taken from registers in at most two LUT levels.
module recv_set
  import arcalis_pkg::*;
#(
  parameter int unsigned Width = 16
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,

  input  logic                 clear_i,       // a new request: operands back to 0
  input  logic                 start_i,       // dispatched by the Deserializer
  input  logic                 get_i,         // the method is Get (a register, steady while fields are read)
  // The TxEngine's data stream (tx_engine): copy_i starts a copy of
  // copy_cnt_i bytes at the head into Net.Resp from its start (its line is
  // app_base_lo_i's), as a binary field's body goes to App.Recv; the
  // request ends after its tail. Registers.
  input  logic                 copy_i,
  input  logic [LenW-1:0]      copy_cnt_i,
  input  logic                 copy_gtw_i,    // copy_cnt_i > Width
  input  logic                 copy_le2w_i,   // copy_cnt_i <= 2 Width

  // The window (line buffer), and what the message has left (rx_engine).
  input  logic [Width*8-1:0]   win_i,
  input  logic [7:0]           win_err_i,     // fault bits of window bytes 0..7 (a read's)
  input  logic [5:0]           off_i,         // the head's offset in the first line
  input  logic [2:0]           fit_i,         // {off_i + 2 Width <= 64, off_i + Width < 64, off_i + Width <= 64} (a register)
  input  logic                 crossed_i,
  input  logic                 v0_i,
  input  logic                 v1_i,
  input  logic                 v2_i,          // the line after v1_i's
  input  logic                 e0_i,          // v0_i's line was answered with an error
  input  logic                 e1_i,
  input  logic [4:1]           ready_i,       // a read of 1, 2, 4 or 8 bytes (bit 1, 2, 3, 4) can go now
  input  logic                 ready_hdr_i,   // a field header read can go now (3 bytes, or 1 at the end)
  input  logic [4:1]           short_i,       // fewer than 1, 2, 4, 8 message bytes left
  input  logic                 rem3_i,        // at least 3 bytes left (with ready_hdr_i)
  input  logic                 rem19_i,       // at least 19 (a field header and a UUID)
  input  logic [LenW-1:0]      remm4_i,       // rem - 4, valid when a read takes its bytes
  input  logic [LenW-1:0]      pos_i,         // message bytes consumed so far (read where it stands still)
  input  logic [LenW-1:0]      value_cap_i,   // bytes in the App.Recv value region
  output logic                 bulk_o,        // a Width chunk takes bytes now
  output logic                 tail_o,        // the field's tail chunk takes bytes now
  output logic [6:0]           amt_o,         // a read's bytes (from registers)
  output logic                 go_o,          // a read takes its bytes now (a register; bulk_o, tail_o: chunks)
  output logic                 tail_mode_o,   // chunks now are the field's tail (a register)
  output logic                 streaming_o,   // in a data or skip field: steps are chunks (a register)
  output logic [6:0]           tail_amt_o,    // its bytes (a register)

  // Key and value chunks to the output buffer: len_o bytes land at App.Recv
  // offset dst_o (a multiple of Width). All registers.
  input  logic [LinesW-1:0]    app_base_lo_i, // the App.Recv base line's low bits
  input  logic [CreditW-1:0]   credits_i,     // store-queue slots free, before this cycle's take_o
  output logic                 take_o,
  output logic                 give_o,        // a chunk that took a credit was dropped
  output logic                 out_valid_o,
  output logic                 out_discard_o, // forget the line gathered so far (after a fault)
  output logic [Width*8-1:0]   out_bytes_o,
  output logic [5:0]           out_off_o,     // where in its line (a multiple of Width)
  output logic [LinesW:0]      out_lo_o,      // app_base_lo_i + out_dst_o / 64, with its carry
  output logic [Width-1:0]     out_mask_o,    // the chunk's bytes
  output logic                 out_last_o,

  output logic                 done_o,
  output logic                 copy_end_o,    // a copy's last chunk is on its way (a register)
  output logic                 busy_o,        // last cycle a chunk was on its way out (its bytes or its discard): a register
  output result_e              result_o,
  output logic [LenW-1:0]      offset_o,
  output operands_t            operands_o
);

  typedef enum logic [3:0] {
    FIdle, FHdrA, FHdrW, FHdrB, FValA, FValW, FValB, FLenA, FLenW, FLenC, FLenB, FCnt, FBulk, FTailW
  } fstate_e;

  (* fsm_encoding = "one-hot" *)        // Yosys: recode it as an FSM whatever its heuristic says
  fstate_e         state_q;
  operands_t       ops_q;              // operand registers
  logic [LenW-1:0] item_q;             // offset of the field header (p)
  logic [LenW-1:0] lenpos_q;           // offset of the binary length word (p + 3)
  logic [LenW-1:0] remm4_q;            // at a length read: rem - 4, what the message has after it
  logic [63:0]     val_q;              // the value or length read, big-endian from the top
  logic            err0_q, err_q;      // faulty type byte; any other faulty byte read
  logic            rem3_q, rem19_q;
  logic            done_q, dead_q;
  logic            copying_q, cend_q;  // a copy is on; it ended (not done_q: its last chunks are on their way)
  result_e         result_q;
  logic [LenW-1:0] offset_q;

  // ---- Field extractor, schema table, comparator ----
  logic [7:0]  x_type;
  logic [15:0] x_id;
  logic [31:0] x_u32;
  logic [63:0] x_u64;

  field_extractor u_field_extractor (
    .bytes_i (win_i[8*8-1:0]),
    .type_o  (x_type),
    .id_o    (x_id),
    .u32_o   (x_u32),
    .u64_o   (x_u64)
  );

  // Looked up on the header as it is read, registered with it.
  logic       type_valid, type_nested, type_binary, type_uuid;
  logic [3:0] type_size;
  logic [5:1] slot;

  schema_table u_schema_table (
    .type_i        (x_type),
    .id_i          (x_id),
    .get_i,
    .type_valid_o  (type_valid),
    .type_nested_o (type_nested),
    .type_binary_o (type_binary),
    .type_uuid_o   (type_uuid),
    .type_size_o   (type_size),
    .slot_o        (slot)
  );

  logic       valid_q, nested_q, binary_q, uuid_q, stop_q;
  logic [3:0] size_q;                  // one-hot fixed size: 1, 2, 4, 8
  logic       is_req_id_q, is_key_q, is_value_q, is_flags_q, is_exptime_q;
  logic       tk_req_id_q, tk_flags_q, tk_exptime_q;  // FValB writes this operand
  logic       dst_clr_q;                              // FLenB starts a key or value
  // Registered as a binary length is read, and in its wait cycle.
  logic       neg_q, hi_q, past_q, key_long_q, value_long_q, empty_q, le2w_q;
  localparam int unsigned WidthW = $clog2(Width);
  localparam int unsigned KeyW   = $clog2(KeyMax);   // n > KeyMax as a bit test
  if ((1 << KeyW) != KeyMax) begin : g_check_key
    $error("recv_set: KeyMax must be a power of two, not %0d", KeyMax);
  end
  logic       gtw_q;                   // the field's count is above Width (more than its tail)
  logic       gtw_x_q, le2w_x_q;       // a length read's gtw and le2w, every cycle (FLenW takes them)

  // ---- Read steps ----
  // A read state's first cycle registers whether the read can go (go_q) or
  // the message is too short for it (short_q); the read fires the cycle
  // after, from that register alone. Nothing moves while a read waits, so
  // what was ready stays ready.
  logic       rd_go, short_now, in_read;
  logic       go_q, short_q;
  logic [3:0] amt_q;
  logic [4:0] kmask_q;                 // the bytes a read's fault bits count (bit 4: bytes 4..7)
  always_comb begin
    in_read = 1'b1;
    unique case (state_q)
      FHdrA:   begin rd_go = ready_hdr_i;              short_now = short_i[1];          end
      FValA:   begin rd_go = |(size_q & ready_i);      short_now = |(size_q & short_i); end
      FLenA:   begin rd_go = ready_i[3];               short_now = short_i[3];          end
      default: begin rd_go = 1'b0; short_now = 1'b0; in_read = 1'b0;                    end
    endcase
  end

  // ---- Data and skip: Width-byte chunks, then the field's tail ----
  // count: bytes left in the field, in halves of CntW bits: the high half
  // takes the low half's borrow a cycle later, so the count is
  // {cnt_hi_q - cnt_b_q, cnt_lo_q} (no carry chain runs all 24 bits).
  localparam int unsigned CntW = LenW / 2;
  logic [CntW-1:0] cnt_lo_q, cnt_hi_q;
  logic            cnt_b_q;
  logic            le1_q, le2_q;       // count <= Width, <= 2 Width
  logic            le3, hz_q;          // count <= 3 Width; last cycle's count < 8 Width
  logic            copy_q;             // key or value: the chunks go to App.Recv
  logic            armed_q;            // the tail's fit is known
  logic            summed_q;           // ... its end is
  logic [6:0]      tail_end_q;         // the head's offset plus the tail
  logic            tail64_q;           // the tail ends in the first line (else in the second: it is <= Width)
  // The next offset in the field's region to write, in halves: the high
  // half takes the low half's carry a cycle later (dst_c_q on its way).
  logic [CntW-1:0] dst_lo_q, dst_hi_q;
  logic            dst_c_q;
  logic            region_q;           // the region: 0 key (App.Recv line 1), 1 value (line 5)
  // The region's first line, App.Recv base + 1 or + 5 (the base's low
  // part and a carry out): its low six bits, and the rest a cycle later
  // (the region is set several cycles before its first chunk).
  logic [5:0]       rgn_lo_q;
  logic [2:0]       rgn_k_q;           // the region's first line in App.Recv (0 for a copy)
  logic             rgn_c_q;
  logic [LinesW:6]  rgn_hi_q;
  logic            bulk_fire, tail_fire, chunk;
  logic            take_q;

  // A chunk goes when a register says so: whether the next chunk can go is
  // worked out a cycle ahead, for both cases (a chunk goes now, or none),
  // from registers only.
  logic bulk_ok_q, tail_ok_q, bulk_mode_q;     // bulk_mode_q: in FBulk with le1_q clear
  assign bulk_fire = bulk_ok_q;       // (cleared with dead_q's next value)
  assign tail_fire = tail_ok_q;
  assign chunk     = bulk_fire || tail_fire;

  // fits1: a chunk from the head is in the first line; stays: ... and
  // leaves the head in it; fits2: so is the chunk after it (registers).
  // lane_last_q: the chunk at dst ends its line; next_lane_last_q: the
  // one after it does; registers that follow dst (0 at a field's start,
  // then Width steps), each from a constant table.
  logic fits1, stays, fits2, next_lane_last_q, lane_last_q;
  assign {fits2, stays, fits1} = fit_i;

  // lane_end(d): the chunk at region offset d ends its line; tl2: for the
  // chunk two after the one at d.
  function automatic logic lane_end(input int unsigned d);
    return ((d % 64) | (Width - 1)) == 63;
  endfunction
  logic [63:0] tl2;
  always_comb begin
    for (int unsigned o = 0; o < 64; o++) tl2[o] = lane_end(o + 2 * Width);
  end

  // Credits: what is free after the takes in flight and this chunk's.
  logic credit_now, cr1, cr2, cr3;
  assign cr1          = credits_i != '0;          // at least 1, 2, 3 free
  assign cr2          = credits_i >= CreditW'(2);
  assign cr3          = credits_i >= CreditW'(3);
  assign credit_now   = take_q ? cr2 : cr1;

  // The next chunk's decision is one LUT level over the terms below, each
  // a single LUT of registers (kept: abc would otherwise fold them into
  // wider functions on both levels), in three cases: a chunk goes now
  // (a_*), else the head line is dropped now (b_*), else neither (c_*).
  // a_cr: this chunk and the next take a credit each where they end a
  // line; consecutive chunks both end lines only at a Width of a whole
  // line (where every chunk does), so with next_lane_last_q set,
  // lane_last_q is the constant below (asserted).
  localparam bit WholeLine = Width == LineBytes;
  logic fcnt_gtw_q;                    // state_q == FCnt && gtw_q (a register, asserted)
  (* keep *) logic ok_live, a_head, a_cr, b_head, c_head, cr_now;
  assign ok_live = !start_i && !dead_q && !done_q;
  assign a_head  = bulk_mode_q && !le2_q && stays && v0_i && (v1_i || fits2);
  assign a_cr    = !copy_q || !next_lane_last_q ||
                   (WholeLine ? (take_q ? cr3 : cr2) : (take_q ? cr2 : cr1));
  assign b_head  = !bulk_fire && crossed_i && bulk_mode_q && v1_i && (v2_i || fits1);
  assign c_head  = !crossed_i && (bulk_mode_q || fcnt_gtw_q) && v0_i && (v1_i || fits1);
  assign cr_now  = !copy_q || !lane_last_q || credit_now;

  logic bulk_ok_d, tail_ok_d;
  always_comb begin
    // This chunk goes: the next one is Width further on, in the same lines
    // unless this one ends the first line (then the head crosses: a bubble).
    // Else, if the load queue drops the head line this cycle, the lines move up.
    bulk_ok_d = ok_live && (bulk_fire ? a_head && a_cr : cr_now && (b_head || c_head));
    tail_ok_d = (state_q == FBulk) && le1_q && armed_q && !tail_fire && !crossed_i &&
                v0_i && (tail64_q || v1_i) && (!copy_q || credit_now);
  end

  assign bulk_o = bulk_fire;
  assign tail_o = tail_fire;
  logic rd_hdr, rd_len;
  assign rd_hdr = state_q == FHdrA;
  assign rd_len = state_q == FLenA;
  always_ff @(posedge clk_i) begin
    unique case (state_q)
      FHdrA:   amt_q <= rem3_i ? 4'd3 : 4'd0;  // short of 3 bytes: read, consume nothing
      FValA:   amt_q <= size_q;                 // one-hot 1, 2, 4, 8 is the number
      default: amt_q <= 4'd4;
    endcase
    // A header's bytes 1 and 2, a length's 0..3, a value's size bytes (as
    // AND-ORs: constants here would make the state a reset's input).
    kmask_q <= {!rd_hdr && !rd_len && size_q[3],
                !rd_hdr && (rd_len || size_q[3] || size_q[2]),
                rd_hdr || rd_len || size_q[3] || size_q[2],
                rd_hdr || rd_len || !size_q[0],
                !rd_hdr};
  end
  assign amt_o       = {3'b0, amt_q};
  assign go_o        = go_q;
  assign tail_mode_o = le1_q;
  assign streaming_o = (state_q == FBulk);
  assign tail_amt_o  = cnt_lo_q[6:0];

  // ---- Chunks: consumed at the head, their bytes in the window two cycles
  // later; k_* hold a chunk for the first of those cycles, c_* for the second ----
  logic            k_data_q, k_last_q, c_data_q, c_last_q;
  // A chunk's offset as dst holds it (k_*), then with its carry in and the
  // first half of the address adder (c_*): the region's low six bits plus
  // the offset's line bits 11:6, and its carry.
  logic [CntW-1:0] k_lo_q, k_hi_q, c_hi_q;
  logic [5:0]      c_lo_q;
  logic            k_c_q, c_ac_q;
  logic [5:0]      c_line_q;
  logic [Width-1:0] c_mask, k_mask_q, c_mask_q;  // the chunk's bytes
  // A chunk's bytes come from the first line, and from the second if it
  // crosses into it: its fault is known from their fault flags the cycle
  // it goes (cf_q: the chunk before's).
  logic            k_fault_q, c_fault_q, cf_q;
  // A chunk's bytes: all of them, or the tail's (the count's low bits,
  // compared a cycle behind: the tail goes three cycles or more after the
  // count's last step, asserted below).
  logic [Width-1:0] tail_mask_q;
  always_ff @(posedge clk_i) begin
    for (int unsigned i = 0; i < Width; i++) tail_mask_q[i] <= 7'(i) < cnt_lo_q[6:0];
  end
  assign c_mask = tail_mask_q | {Width{!le1_q}};

  // ---- Checks ----
  // A read step's check cycle acts on verdicts registered in the cycle
  // before, from registers that hold still from the read on: for a header
  // (h*) and for a binary length (l*), whether it fails, with what result,
  // and whether the failure's offset is the head's position or a register.
  // hend_q, lend_q, vend_q: this cycle is a check that fails (a header's,
  // a length's, a value's).
  logic            hbad, lbad;         // the header's, the length's checks fail
  logic            hend_q, hpos_q, lfail_q, lend_q, lpos_q, vend_q;
  // result_q's and offset_q's enables, one LUT each (abc would share them
  // with done_q's OR of the flags: two LUT levels in front of the enables
  // of all their bits)
  logic            res_ce, off_ce;
  any_of #(.N(5)) u_res_ce (.flags_i({short_q, hend_q, lend_q, vend_q, cf_q && !dead_q}), .any_o(res_ce));
  any_of #(.N(3)) u_off_ce (.flags_i({short_q, hend_q, lend_q}), .any_o(off_ce));
  result_e         hres_q, lres_q;
  // A failing header's offset: item_q, plus one after a T_STOP, or plus
  // three where the message ends inside a UUID (the head, after the
  // header's three bytes: pos_i has not settled yet). The low halves' sums
  // and the high half plus one are worked out side by side, and a carry
  // picks the high half (item_q holds still from the read on).
  logic [CntW-1:0] hoff_lo_q, hoff3_lo_q, hoff_hi1_q;
  logic            hoff_c_q, hoff3_c_q;
  logic            cntld_q;            // the count loads at this check:
  logic            cnt16_q;            // a UUID's 16 bytes, else the length,
  logic [LenW-1:0] ncnt_q;             // each half of it negated on its own (for the count's halves)
  logic [LenW-1:0] cnt_src;            // the length read, or a copy's count
  assign cnt_src = copying_q ? copy_cnt_i : val_q[32 +: LenW];

  assign hbad = err0_q || stop_q || !rem3_q || err_q || !valid_q || nested_q || (uuid_q && !rem19_q);
  assign lbad = !copying_q && (err_q || neg_q || hi_q || past_q || (is_key_q && key_long_q) || (is_value_q && value_long_q));
  // The count loads at the check after this cycle (and is cleared now).
  logic cnt_next;
  assign cnt_next = (state_q == FHdrW && uuid_q) || state_q == FLenC;

  always_ff @(posedge clk_i) begin
    hend_q  <= !start_i && state_q == FHdrW && hbad;
    {hoff_c_q, hoff_lo_q}   <= {1'b0, item_q[CntW-1:0]} + (CntW+1)'(stop_q);   // T_STOP ends the request after its byte
    {hoff3_c_q, hoff3_lo_q} <= {1'b0, item_q[CntW-1:0]} + (CntW+1)'(3);
    hoff_hi1_q <= item_q[LenW-1:CntW] + 1'b1;
    hpos_q  <= 1'b0;
    if (err0_q)        hres_q <= ResLoadFault;
    else if (stop_q)   hres_q <= ResOk;
    else if (!rem3_q)  hres_q <= ResTruncated;
    else if (err_q)    hres_q <= ResLoadFault;
    else if (!valid_q) hres_q <= ResBadType;
    else if (nested_q) hres_q <= ResNestedUnsupported;
    else begin         hres_q <= ResTruncated; hpos_q <= 1'b1; end

    lfail_q <= lbad;
    lend_q  <= !start_i && state_q == FLenC && lbad;
    vend_q  <= !start_i && state_q == FValW && err_q;
    lpos_q  <= 1'b0;
    if (err_q)                 lres_q <= ResLoadFault;
    else if (neg_q)            lres_q <= ResBadLength;
    else if (hi_q || past_q) begin lres_q <= ResTruncated; lpos_q <= 1'b1; end
    else if (is_key_q)         lres_q <= ResKeyTooLong;
    else                       lres_q <= ResValueTooLong;

    cntld_q  <= !start_i && cnt_next;
    cnt16_q  <= state_q == FHdrW;
    ncnt_q   <= {CntW'(0) - cnt_src[CntW +: CntW], CntW'(0) - cnt_src[0 +: CntW]};
  end

  // ---- The sequence ----
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q  <= FIdle;
      ops_q    <= '0;
      tk_req_id_q  <= 1'b0;
      tk_flags_q   <= 1'b0;
      tk_exptime_q <= 1'b0;
      done_q   <= 1'b0;
      dead_q   <= 1'b1;
      go_q     <= 1'b0;
      short_q  <= 1'b0;
      result_q <= ResNone;
      offset_q <= '0;
      armed_q  <= 1'b0;
      summed_q <= 1'b0;
      bulk_ok_q   <= 1'b0;
      tail_ok_q   <= 1'b0;
      bulk_mode_q <= 1'b0;
      fcnt_gtw_q  <= 1'b0;
    end else begin
      done_q     <= 1'b0;
      go_q       <= !start_i && in_read && !go_q && !short_q && rd_go;
      short_q    <= !start_i && in_read && !go_q && !short_q && short_now;

      unique case (state_q)
        FHdrA:  if (go_q) state_q <= FHdrW;
        FValA:  if (go_q) state_q <= FValW;
        FLenA:  if (go_q) state_q <= FLenW;
        FHdrW:  state_q <= FHdrB;
        FValW:  state_q <= FValB;
        FLenW:  state_q <= FLenC;
        FLenC:  state_q <= FLenB;
        FTailW: state_q <= copying_q ? FIdle : FHdrA;

        // A check that passes; one that fails ends the request (below).
        FHdrB: state_q <= uuid_q ? FCnt : binary_q ? FLenA : FValA;
        FLenB: begin
          state_q <= empty_q ? FHdrA : FCnt;
          if (!lfail_q && is_key_q)   begin ops_q.key_len   <= val_q[63:32]; ops_q.present[1] <= 1'b1; end
          if (!lfail_q && is_value_q) begin ops_q.value_len <= val_q[63:32]; ops_q.present[2] <= 1'b1; end
        end
        FValB: begin
          // A scalar's value is its first size bytes, big-endian.
          state_q <= FHdrA;
          // (its operand register is written under tk_*_q, below)
        end

        FCnt: begin
          le1_q    <= !gtw_q;
          le2_q    <= le2w_q;
          armed_q  <= 1'b0;
          summed_q <= 1'b0;
          state_q  <= FBulk;
        end

        FBulk: begin
          if (bulk_fire) begin
            le1_q   <= le2_q;
            le2_q   <= le3;
          end
          // The tail: where it ends is worked out once the head stands still
          // (the sum one cycle, its compares the next).
          if (le1_q && !summed_q && !crossed_i) begin
            tail_end_q <= {1'b0, off_i} + cnt_lo_q[6:0];
            summed_q   <= 1'b1;
          end
          if (summed_q && !armed_q) begin
            tail64_q  <= tail_end_q <= 7'd64;
            armed_q   <= 1'b1;
          end
          if (tail_fire) begin
            armed_q  <= 1'b0;
            summed_q <= 1'b0;
            state_q <= FTailW;   // the next field header's readiness must see the tail gone
          end
        end

        default: ;
      endcase

      // A read the message is too short for, or a failing check, ends the
      // request (each flag is set only in its own state).
      if (short_q || hend_q || lend_q || vend_q) begin
        done_q  <= 1'b1;
        state_q <= FIdle;
      end
      if (res_ce) result_q <= (vend_q || cf_q && !dead_q) ? ResLoadFault : lend_q ? lres_q : hend_q ? hres_q : ResTruncated;
      if (off_ce) begin
        offset_q <= lend_q ? (lpos_q ? pos_i : lenpos_q) :
                    !hend_q ? pos_i :
                    hpos_q ? {hoff3_c_q ? hoff_hi1_q : item_q[LenW-1:CntW], hoff3_lo_q}
                           : {hoff_c_q ? hoff_hi1_q : item_q[LenW-1:CntW], hoff_lo_q};
      end
      // A chunk read from a faulty line ends the request, whatever the state.
      if (cf_q && !dead_q) done_q <= 1'b1;
      dead_q    <= (start_i || copy_i) ? 1'b0 : (dead_q || done_q);
      cend_q    <= state_q == FTailW && copying_q;
      if (start_i || cend_q) copying_q <= 1'b0;
      if (copy_i) begin
        copying_q <= 1'b1;
        state_q   <= FLenC;
      end
      bulk_ok_q <= bulk_ok_d;
      tail_ok_q <= ok_live && tail_ok_d;
      // FCnt follows FHdrB (a UUID) or FLenB (a length above 0) unless the
      // check fails or a request starts.
      fcnt_gtw_q <= !start_i && ((state_q == FHdrB && uuid_q && !hend_q && 16 > Width) ||
                                 (state_q == FLenB && !empty_q && !lend_q && gtw_q));
      if (state_q == FCnt) bulk_mode_q <= gtw_q;
      if (bulk_fire && le2_q) bulk_mode_q <= 1'b0;
      if (start_i) bulk_mode_q <= 1'b0;
      // FValB's operand writes, decided the cycle before: the enables
      // are registers (err_q is the read's, held since it fired).
      tk_req_id_q  <= !start_i && state_q == FValW && !err_q && is_req_id_q;
      tk_flags_q   <= !start_i && state_q == FValW && !err_q && is_flags_q;
      tk_exptime_q <= !start_i && state_q == FValW && !err_q && is_exptime_q;
      if (tk_req_id_q)  begin ops_q.req_id  <= val_q;        ops_q.present[0] <= 1'b1; end
      if (tk_flags_q)   begin ops_q.flags   <= val_q[63:32]; ops_q.present[3] <= 1'b1; end
      if (tk_exptime_q) begin ops_q.exptime <= val_q[63:32]; ops_q.present[4] <= 1'b1; end
      if (clear_i) ops_q <= '0;
      if (start_i) state_q <= FHdrA;
    end
  end

  // count: cleared the cycle before a load, then a load or a Width step
  // through one adder per half whose first operand is the half itself (the
  // choice is its second operand, so no mux is on either side of a carry
  // chain; the low half subtracts 0 when nothing happens, the high half
  // the low half's last borrow). A load's borrow is not one. Loaded
  // whatever the check says: after a failed one it is not read.
  logic [CntW:0] cnt_lo_d;
  assign cnt_lo_d = {1'b0, cnt_lo_q} - {1'b0, cntld_q ? (cnt16_q ? CntW'(-16) : ncnt_q[CntW-1:0])
                                                      : bulk_fire ? CntW'(Width) : CntW'(0)};
  always_ff @(posedge clk_i) begin
    if (cnt_next) begin
      cnt_lo_q <= '0;
      cnt_hi_q <= '0;
    end else begin
      cnt_lo_q <= cnt_lo_d[CntW-1:0];
      cnt_hi_q <= cnt_hi_q - (cntld_q ? (cnt16_q ? CntW'(0) : ncnt_q[LenW-1:CntW]) : CntW'(cnt_b_q));
    end
    if (cntld_q) cnt_b_q <= 1'b0;
    else         cnt_b_q <= cnt_lo_d[CntW];
    // dst counts from 0 in its region: a reset, not a load, at a field's
    // start (FLenB, decided in FLenC so that the reset is a register).
    dst_clr_q <= !start_i && state_q == FLenC && (is_key_q || is_value_q || copying_q);
    if (dst_clr_q) begin
      dst_lo_q       <= '0;
      dst_hi_q       <= '0;
      lane_last_q    <= lane_end(0);
      next_lane_last_q <= lane_end(Width);
    end else begin
      if (bulk_fire) begin
        {dst_c_q, dst_lo_q} <= {1'b0, dst_lo_q} + (CntW+1)'(Width);
        lane_last_q      <= next_lane_last_q;
        next_lane_last_q <= tl2[dst_lo_q[5:0]];
      end else begin
        dst_c_q <= 1'b0;
      end
      dst_hi_q <= dst_hi_q + CntW'(dst_c_q);
    end
    if (state_q == FLenB) region_q <= is_value_q;
    // Whether a field's chunks go to App.Recv: set with every binary length
    // and UUID (read only if the field goes on).
    if (state_q == FLenB) copy_q <= is_key_q || is_value_q || copying_q;
    if (state_q == FHdrB) copy_q <= 1'b0;
    rgn_k_q <= 3'(copying_q ? 0 : region_q ? ValueOffset / 64 : KeyOffset / 64);
    {rgn_c_q, rgn_lo_q} <= {1'b0, app_base_lo_i[5:0]} + 7'(rgn_k_q);
    rgn_hi_q            <= {1'b0, app_base_lo_i[LinesW-1:6]} + (LinesW-5)'(rgn_c_q);
    hz_q <= (cnt_hi_q == CntW'(cnt_b_q)) && (cnt_lo_q[CntW-1:WidthW+3] == '0);
  end
  // count <= 3 Width with its high bits from last cycle's count: that was
  // at most Width more, and under 8 Width it leaves the low bits exact
  // (read only in FBulk, a cycle or more after the load).
  assign le3 = hz_q && (cnt_lo_q[WidthW+2:0] <= (WidthW+3)'(3 * Width));

  // What a read step took (the cycle it fires), and the checks on it (ready
  // by its check cycle).
  always_ff @(posedge clk_i) begin
    if (go_q) begin
      err0_q <= win_err_i[0];
      err_q  <= |(win_err_i & {{3{kmask_q[4]}}, kmask_q});
      val_q  <= x_u64;                     // (a length is its top 32 bits)
    end
    if (state_q == FHdrA) begin
      // Every cycle of the header read: the last one is the cycle it fires.
      item_q       <= pos_i;
      rem3_q       <= rem3_i;
      rem19_q      <= rem19_i;
      stop_q       <= x_type == TStop;
      valid_q      <= type_valid;
      nested_q     <= type_nested;
      binary_q     <= type_binary;
      uuid_q       <= type_uuid;
      size_q       <= type_size;
      is_req_id_q  <= slot[1];
      is_key_q     <= slot[2];
      is_value_q   <= slot[3];
      is_flags_q   <= slot[4];
      is_exptime_q <= slot[5];
    end
    if (state_q == FHdrB) begin                      // a UUID's 16 bytes
      gtw_q  <= 16 > Width;
      le2w_q <= 16 <= 2 * Width;
    end
    // A copy is a field of its own: no slot, never empty, its count's
    // sizes from the TxEngine.
    if (copy_i) begin
      is_key_q    <= 1'b0;
      is_value_q  <= 1'b0;
      empty_q     <= 1'b0;
      gtw_q       <= copy_gtw_i;
      le2w_q      <= copy_le2w_i;
    end
    // A length's "above Width" and "at most 2 Width", from the read as it
    // fires, taken in its wait cycle (a register between the window's wide
    // tests and the loads above).
    gtw_x_q  <= (|x_u32[31:WidthW+1]) || (x_u32[WidthW] && |x_u32[WidthW-1:0]);
    le2w_x_q <= !((|x_u32[31:WidthW+2]) || (x_u32[WidthW+1] && |x_u32[WidthW:0]));
    if (state_q == FLenW) begin
      gtw_q  <= gtw_x_q;
      le2w_q <= le2w_x_q;
    end
    // A binary length n, every cycle of its read (the last one is the
    // cycle it fires): the limits of abi.md 5.6 that need no adder, as bit
    // tests (n > 256).
    if (state_q == FLenA) begin
      lenpos_q   <= pos_i;
      remm4_q    <= remm4_i;
      neg_q      <= x_u32[31];
      hi_q       <= x_u32[31:LenW] != '0;
      key_long_q <= (|x_u32[31:KeyW+1]) || (x_u32[KeyW] && |x_u32[KeyW-1:0]);
      empty_q    <= x_u32 == '0;
    end
    // Its wait cycle: the limits that compare.
    past_q       <= val_q[32 +: LenW] > remm4_q;
    value_long_q <= val_q[32 +: LenW] > value_cap_i;
  end

  logic o_valid_q, o_discard_q, o_give_q, o_last_q, busy_q;
  logic [Width*8-1:0] o_bytes_q;
  localparam int unsigned LaneW  = (Width < LineBytes) ? 6 - WidthW : 1;
  logic [LaneW-1:0]   o_lane_q;   // the line's Width-byte lane the chunk goes to
  logic [Width-1:0]   o_mask_q;
  logic [LinesW:0]    o_lo_q;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [LinesW-5:0]  o_hi_sum;                // bit 0 only takes the carry in
  /* verilator lint_on UNUSEDSIGNAL */
  assign o_hi_sum = {rgn_hi_q, 1'b1} + {(LinesW-5)'(c_hi_q), c_ac_q};
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      k_data_q    <= 1'b0;
      c_data_q    <= 1'b0;
      busy_q      <= 1'b0;
      k_fault_q   <= 1'b0;
      c_fault_q   <= 1'b0;
      take_q      <= 1'b0;
      o_valid_q   <= 1'b0;
      o_discard_q <= 1'b0;
      o_give_q    <= 1'b0;
      cf_q        <= 1'b0;
    end else begin
      k_data_q  <= chunk && copy_q;
      c_data_q  <= k_data_q;
      busy_q    <= chunk || k_data_q || c_data_q || o_valid_q || o_discard_q;
      // A credit for each chunk that ends a line or the field.
      take_q    <= chunk && copy_q && (le1_q || lane_last_q);
      // Squashed: a fault in this chunk, or the request already ended.
      k_fault_q   <= (bulk_fire && (e0_i || (e1_i && !fits1))) || (tail_fire && (e0_i || (e1_i && !tail64_q)));
      c_fault_q   <= k_fault_q;
      cf_q        <= c_fault_q;
      o_valid_q   <= c_data_q && !c_fault_q && !cf_q && !dead_q && !done_q;
      o_discard_q <= c_data_q && (c_fault_q || cf_q || dead_q || done_q);
      o_give_q    <= c_data_q && c_last_q && (c_fault_q || cf_q || dead_q || done_q);
    end
  end
  always_ff @(posedge clk_i) begin
    if (chunk) begin
      k_mask_q <= c_mask;
      k_lo_q   <= dst_lo_q;
      k_hi_q   <= dst_hi_q;
      k_c_q    <= dst_c_q;
      k_last_q <= le1_q || lane_last_q;
    end
    c_mask_q <= k_mask_q;
    c_lo_q   <= k_lo_q[5:0];
    c_hi_q   <= k_hi_q + CntW'(k_c_q);
    {c_ac_q, c_line_q} <= {1'b0, rgn_lo_q} + {1'b0, k_lo_q[CntW-1:6]};
    c_last_q <= k_last_q;
    o_bytes_q <= win_i;
    o_lane_q  <= LaneW'(c_lo_q[5:0] >> WidthW);
    // address adder, second half: a + b + carry in as one adder
    o_lo_q    <= {o_hi_sum[LinesW-5:1], c_line_q};
    o_mask_q  <= c_mask_q;
    o_last_q  <= c_last_q;
  end

  assign take_o        = take_q;
  assign give_o        = o_give_q;
  assign out_valid_o   = o_valid_q;
  assign out_discard_o = o_discard_q;
  assign out_bytes_o   = o_bytes_q;
  assign out_off_o     = 6'(o_lane_q) << WidthW;
  assign out_lo_o      = o_lo_q;
  assign out_mask_o    = o_mask_q;
  assign out_last_o    = o_last_q;
  assign done_o        = done_q;
  assign copy_end_o    = cend_q;
  assign busy_o        = busy_q;
  assign result_o      = result_q;
  assign offset_o      = offset_q;
  assign operands_o    = ops_q;

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (tail_fire)
      for (int unsigned i = 0; i < Width; i++)
        assert (tail_mask_q[i] == (7'(i) < cnt_lo_q[6:0])) else $error("recv_set: the tail's count moved the cycle before it went");
    if (rst_ni)
      assert (fcnt_gtw_q == (state_q == FCnt && gtw_q)) else $error("recv_set: fcnt_gtw_q disagrees with FCnt");
    if (next_lane_last_q)
      assert (lane_last_q == WholeLine) else $error("recv_set: two chunks in a row end a line below a whole line's Width");
  end
`endif

endmodule
