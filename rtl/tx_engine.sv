// TxEngine respFunction (docs/abi.md section 11): answers a Set or Get CALL
// from the App.Resp image the application wrote. The RxEngine reads the
// image for it: first the header line's six bytes (data_len, status,
// method), which this engine checks; then, for a reply that carries data
// (a Get's value, an application error's text), the data as a stream of
// Width-byte chunks realigned by the RxEngine's line buffer and byte
// selector straight into Net.Resp (section 8): from Net.Resp's start, the
// last p bytes of the header line first (written over later), so that the
// data lands after the prefix's p bytes. This engine writes the rest: the prefix before the data (frame length,
// message header, seqid, result field header and length, an error's text
// prefix) and the suffix after it (STOP, or the exception's type field),
// byte by byte from the generated reply parts (golden.ReplyParts) into a
// Width-byte shift register, each chunk with the byte enables of its own
// bytes. Stores to a Net.Resp line go in order, so the last writer of each
// byte is the reply's; no byte outside [0, R) is written.
module tx_engine
  import arcalis_pkg::*;
#(
  parameter int unsigned Width = 16,
  localparam int unsigned Lanes = LineBytes / Width,
  localparam int unsigned LaneW = (Lanes > 1) ? $clog2(Lanes) : 1,
  localparam int unsigned WidthW = $clog2(Width)
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,

  // CMD_SEND_APP_RESP's fields and the CALL answered (control FSM registers).
  input  logic                 start_i,
  input  logic [AppRespLenBits-1:0] lm64_i,    // the App.Resp length L less the header line: the data bytes it holds
  input  logic [AppRespCapBits-1:0] cap_i,     // the Net.Resp capacity
  input  logic                 framed_i,
  input  logic                 get_i,         // the CALL was a Get (else a Set)
  input  logic [31:0]          seqid_i,

  // The RxEngine reads App.Resp: its header line's bytes 0..5, then the data.
  input  logic                 hdr_valid_i,
  input  logic [47:0]          hdr_i,
  input  logic                 hdr_err_i,
  output logic                 copy_go_o,     // stream the data (registers, held until the next request)
  output logic                 copy_stop_o,   // no stream: the RxEngine is done
  output logic [5:0]           copy_skip_o,   // from this offset of the header line
  output logic [LenW-1:0]      copy_cnt_o,    // this many bytes, to Net.Resp's start
  output logic                 copy_gtw_o,    // copy_cnt_o > Width
  output logic                 copy_le2w_o,   // copy_cnt_o <= 2 Width
  input  logic                 stream_end_i,
  input  logic                 stream_fault_i,
  input  logic [LinesW:0]      tail_lo_i,     // the stream's last chunk: its line (low part, carry) and lane
  input  logic [LaneW-1:0]     tail_lane_i,
  input  logic [LinesW-1:0]    base_lo_i,     // Net.Resp's line, low part

  // Chunks, through the RxEngine's output stage, on its credits.
  input  logic                 credit_ok_i,
  output logic                 take_o,        // a chunk that ends a line went last cycle: a credit spent
  output logic                 gen_o,         // the output stage is ours (a register)
  output logic                 out_valid_o,
  output logic [LinesW:0]      out_lo_o,
  output logic [Lanes-1:0]     out_lanes_o,
  output logic [Width*8-1:0]   out_bytes_o,
  output logic [Width-1:0]     out_mask_o,
  output logic                 out_last_o,

  output logic                 done_o,
  output result_e              result_o,
  output logic [31:0]          detail_o
);

  localparam int unsigned NW = AppRespLenBits;   // data_len's bits that the lengths need (above: RESP_BAD_IMAGE)
  // Prefix lengths (unframed) and suffix lengths of the three reply shapes:
  // A no data (Set's VALUE, Get's NULL), B a Get's value, C an application error.
  localparam int unsigned PreA = ReplyPreSetValueLen, PreB = ReplyPreGetValueLen, PreC = ReplyPreSetErrorLen;
  localparam int unsigned SufB = ReplySufGetValueLen, SufC = ReplySufErrorLen;
  if (ReplyPreGetNullLen != PreA || ReplyPreGetErrorLen != PreC || PreC + FrameHeaderSize > LineBytes - 1 ||
      SufC > 8 || SufB > SufC || RespDataMax != 1 << (NW - 1)) begin : g_check_parts
    $error("tx_engine: the reply parts do not have the shapes this engine builds");
  end

  typedef enum logic [3:0] {TIdle, THdr, TKind, TSum, TCap, TBig, TDec, TGo, TPre, TSuf, TEnd} tstate_e;
  (* fsm_encoding = "one-hot" *)
  tstate_e state_q;

  // ---- The request, and the header line's fields ----
  logic [NW-1:0]  lm64_q;                     // L - 64: the data bytes the image holds
  logic [NW-1:0]  cap_q;
  logic           framed_q, get_q;
  logic [31:0]    seqid_q;
  logic [31:0]    n_q;                        // data_len
  logic [7:0]     status_q, method_q;
  logic           herr_q;
  always_ff @(posedge clk_i) begin
    if (start_i) begin
      lm64_q   <= lm64_i;
      cap_q    <= cap_i;
      framed_q <= framed_i;
      get_q    <= get_i;
      seqid_q  <= seqid_i;
    end
    if (hdr_valid_i) begin
      n_q      <= hdr_i[8*RespDataLenOffset +: 32];
      status_q <= hdr_i[8*RespStatusOffset +: 8];
      method_q <= hdr_i[8*RespMethodOffset +: 8];
      herr_q   <= hdr_err_i;
    end
  end

  // ---- Checks and lengths: TKind, then TSum (four sums of data_len and a
  // constant of the reply's shape, through one adder in halves: no carry
  // chain runs more than 11 bits in a cycle), TCap, TDec ----
  localparam int unsigned LoW = NW / 2 + 1, HiW = NW - LoW;     // 11 + 10
  logic [NW-1:0] n21;
  assign n21 = n_q[NW-1:0];
  logic          m_bad_q, s_bad_q, ka_q, kb_q, kc_q, len_bad_q, fail_q;
  logic          nhi_nz_q, n20_q, nlo_nz_q;   // data_len's bits 31:21, bit 20, bits 19:0 (not 0)
  // Compares of 21-bit values as seven 3-bit groups (a LUT each, no carry
  // chain), joined the cycle after: a > b is the first group from the top
  // where they differ being greater.
  localparam int unsigned Groups = (NW + 2) / 3;
  logic [Groups-1:0] ov_gt_q, cp_gt_q;         // data_len against L - 64, R against the Net.Resp capacity
  logic [Groups-1:1] ov_eq_q, cp_eq_q;         // (the lowest group's equality decides nothing)
  logic [Groups-1:0] ov_gt, cp_gt;
  logic [Groups-1:1] ov_eq, cp_eq;
  logic              ov_join, cp_join;
  always_comb begin
    for (int unsigned g = 0; g < Groups; g++) begin
      ov_gt[g] = n21[3*g +: 3] > lm64_q[3*g +: 3];
      cp_gt[g] = r_q[3*g +: 3] > cap_q[3*g +: 3];
      if (g > 0) begin
        ov_eq[g] = n21[3*g +: 3] == lm64_q[3*g +: 3];
        cp_eq[g] = r_q[3*g +: 3] == cap_q[3*g +: 3];
      end
    end
    ov_join = ov_gt_q[0];
    cp_join = cp_gt_q[0];
    for (int unsigned g = 1; g < Groups; g++) begin
      ov_join = ov_gt_q[g] || (ov_eq_q[g] && ov_join);
      cp_join = cp_gt_q[g] || (cp_eq_q[g] && cp_join);
    end
  end
  logic [3:0]    step_q;                      // TSum: sum step/2; its low half on odd steps, its high half on the even step after
  logic [6:0]    k_q;                         // the constant of the sum now
  logic [LoW-1:0] slo_q;
  logic          sc_q;
  logic [6:0]    pf_q;                        // where the data starts in Net.Resp (the prefix, framed)
  logic [NW-1:0] r_q, ulen_q, d_q, cnt_q;     // R; the reply unframed (the frame length); the length field; the stream's bytes
  logic [6:0]    plim_q;                      // the prefix chunks' bytes: [0, plim)
  logic [2:0]    sel_q;                       // the prefix: {error, value, Get}
  logic [5:0]    skip_q;                      // the stream starts at this offset of App.Resp's header line
  logic          gtw_q, le2w_q;               // the stream's bytes are > Width, <= 2 Width
  logic [WidthW-1:0] e0m1_q;                  // the stream's last chunk's bytes (1 .. Width), less one
  logic          emit_a_q, emit_b_q;          // the suffix has bytes in the tail's chunk, in the one after
  logic [Width-1:0] spill_b, spill_c;         // ... in the one after, by the stream's bytes mod Width
  always_comb begin
    for (int unsigned c = 0; c < Width; c++) begin
      spill_b[c] = ((c + Width - 1) % Width) + 1 + SufB > Width;
      spill_c[c] = ((c + Width - 1) % Width) + 1 + SufC > Width;
    end
  end
  logic [WidthW-1:0] cmod;
  assign cmod = cnt_q[WidthW-1:0];
  logic [HiW-1:0] shi;
  assign shi = n21[NW-1:LoW] + HiW'(sc_q);
  // The constant of sum step_q / 2 (the same on its two steps): a table of
  // the shape, no adder.
  localparam int unsigned UA = PreA, UB = PreB + SufB, UC = PreC + SufC, FH4 = FrameHeaderSize;
  logic [6:0] k_next;
  always_comb begin
    unique case ({step_q[2:1], kc_q, kb_q, framed_q})
      5'b00_1_0_0: k_next = 7'(UC);
      5'b00_1_0_1: k_next = 7'(UC + FH4);
      5'b00_0_1_0: k_next = 7'(UB);
      5'b00_0_1_1: k_next = 7'(UB + FH4);
      5'b00_0_0_1: k_next = 7'(UA + FH4);
      5'b01_1_0_0, 5'b01_1_0_1: k_next = 7'(UC);
      5'b01_0_1_0, 5'b01_0_1_1: k_next = 7'(UB);
      5'b10_1_0_0, 5'b10_1_0_1: k_next = 7'(PreC - ReplyDataLenOffset - 4);   // the error text's prefix
      5'b11_1_0_0: k_next = 7'(PreC);                                  // the data's place in Net.Resp
      5'b11_1_0_1: k_next = 7'(PreC + FH4);
      5'b11_0_1_0, 5'b11_0_0_0: k_next = 7'(PreB);
      5'b11_0_1_1, 5'b11_0_0_1: k_next = 7'(PreB + FH4);
      5'b01_0_0_0, 5'b01_0_0_1, 5'b00_0_0_0: k_next = 7'(UA);
      default: k_next = '0;
    endcase
  end
  // (an asynchronous reset: the table's zeros stay in its LUT, not on a
  // synchronous reset pin with a LUT of its own)
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) k_q <= '0;
    else         k_q <= k_next;
  end
  always_ff @(posedge clk_i) begin
    if (state_q == TKind) begin
      // The method and status against the request; the shape; data_len.
      m_bad_q  <= method_q != (get_q ? MethodGet : MethodSet);
      s_bad_q  <= !(status_q == RespStatusValue || status_q == RespStatusAppError || (get_q && status_q == RespStatusNull));
      ka_q     <= (status_q == RespStatusValue && !get_q) || status_q == RespStatusNull;
      kb_q     <= status_q == RespStatusValue && get_q;
      kc_q     <= status_q == RespStatusAppError;
      nhi_nz_q <= n_q[31:NW] != '0;
      n20_q    <= n_q[NW-1];
      nlo_nz_q <= n_q[NW-2:0] != '0;
      ov_gt_q  <= ov_gt;
      ov_eq_q  <= ov_eq;
      step_q   <= '0;
    end
    if (state_q == TSum) begin
      step_q <= step_q + 1'b1;
      // Even steps: the last sum's high half (the constant for the next
      // sum is k_q, below).
      if (!step_q[0]) begin
        unique case (step_q[3:1])
          3'd1:    r_q    <= {shi, slo_q};
          3'd2:    ulen_q <= {shi, slo_q};
          3'd3:    d_q    <= {shi, slo_q};
          3'd4:    cnt_q  <= {shi, slo_q};
          default: ;
        endcase
      end else begin
        {sc_q, slo_q} <= {1'b0, n21[LoW-1:0]} + (LoW+1)'(k_q);
      end
      pf_q      <= 7'(kc_q ? PreC : PreB) + (framed_q ? 7'(FrameHeaderSize) : 7'd0);
      len_bad_q <= nhi_nz_q || (n20_q && nlo_nz_q) || (ka_q && (n20_q || nlo_nz_q)) ||
                   ov_join;
    end
    if (state_q == TCap) begin
      cp_gt_q  <= cp_gt;
      cp_eq_q  <= cp_eq;
      plim_q   <= ka_q ? 7'(framed_q ? PreA + FrameHeaderSize : PreA) : pf_q;
      sel_q    <= {kc_q, kb_q, get_q};
      // (a table of the shape: pf takes four values)
      unique case ({kc_q, framed_q})
        2'b00:   skip_q <= 6'(LineBytes - PreB);
        2'b01:   skip_q <= 6'(LineBytes - PreB - FH4);
        2'b10:   skip_q <= 6'(LineBytes - PreC);
        default: skip_q <= 6'(LineBytes - PreC - FH4);
      endcase
      e0m1_q   <= cmod - 1'b1;                   // (cnt - 1) mod Width
      emit_a_q <= cmod != '0;                    // e0 < Width
      emit_b_q <= kc_q ? spill_c[cmod] : spill_b[cmod];
      gtw_q    <= (cnt_q[NW-1:WidthW+1] != '0) || (cnt_q[WidthW] && cmod != '0);
      le2w_q   <= (cnt_q[NW-1:WidthW+2] == '0) && !(cnt_q[WidthW+1] && cnt_q[WidthW:0] != '0);
    end
  end

  // The verdict (TDec), in the order of docs/abi.md section 11; TGo acts on it.
  result_e       res_q;
  logic [NW-1:0] det_q;                       // (below 2**21: an offset, or a reply's length)
  logic          big_q, sfault_q;             // R > the capacity (TBig); the stream ended on a load fault
  always_ff @(posedge clk_i) begin
    if (state_q == TBig) big_q <= cp_join;
    if (state_q == TDec) begin
      fail_q <= herr_q || m_bad_q || s_bad_q || len_bad_q || big_q;
      det_q  <= '0;
      if (herr_q)         res_q <= ResRespLoadFault;
      else if (m_bad_q) begin res_q <= ResRespBadImage; det_q <= NW'(RespMethodOffset); end
      else if (s_bad_q) begin res_q <= ResRespBadImage; det_q <= NW'(RespStatusOffset); end
      else if (len_bad_q) begin res_q <= ResRespBadImage; det_q <= NW'(RespDataLenOffset); end
      else begin          res_q <= big_q ? ResRespTooLarge : ResRespOk; det_q <= r_q; end
    end
    if (state_q == TEnd && sfault_q) begin
      res_q <= ResRespLoadFault;
      det_q <= '0;
    end
  end

  // ---- The generator: a burst of Width bytes a chunk, one a cycle ----
  // Every load and burst starts from a registered strobe: ld_pre_q (the
  // prefix), ld_suf_q (the suffix), nbp_q and nbs_q (the next chunk of
  // the prefix, of the suffix), newb_q (any of them: a burst starts).
  // Counters of the byte made now: k (in its chunk), q (in the prefix:
  // its Net.Resp offset), u (in the unframed message: held at 0 over a
  // frame length; in the suffix: from its first byte, which comes after
  // e0 bytes of the stream's last chunk), and one-hot rings for the
  // variable bytes' places: fring over q's frame length, uring over u.
  localparam int unsigned SQ = ReplySeqIDOffset, DL = ReplyDataLenOffset;
  localparam int unsigned RingW = DL + 4;
  logic             prod_q, pa_q, lasta_q, full_q, allow_q, suf_q, gen_q, fire_q;
  logic             ld_pre_q, ld_suf_q, newb_q;
  logic             nbp_q, nbs_q, lane_ce_q, lo_ce_q;  // lane_ce_q, lo_ce_q: lane_q and lo_q load
  logic [WidthW-1:0] k_b;                      // bytes of this burst made
  logic [6:0]       q_q;
  logic [6:0]       u_q;                       // (7 bits: in the suffix it runs to 2 Width - 1)
  logic [3:0]       fring_q;
  logic [RingW-1:0] uring_q;
  logic             st_q;                      // the suffix's bytes are being made (the stream's are past)
  logic [Width*8-1:0] sr_q;
  logic [Width-1:0] mk_q;
  logic [LaneW-1:0] ci_q, klast_q, km1_q;      // the prefix chunk now, the last one, the last but one
  logic [Lanes-1:0] lane_q;
  logic [LinesW:0]  lo_q, nlo_q;               // this chunk's line; the one after the stream's last chunk
  logic             inc_q, nlo_c_q;            // the stream's last chunk ends its line; nlo_q's low half's carry
  localparam int unsigned NloW = (LinesW + 1) / 2;
  logic [Lanes-1:0] tl_lanes_q;                // its lane, one-hot
  logic             clast_q, cemit_q, cr_q, take_q, done_q;
  logic             sb_q;                      // the suffix's second chunk
  logic [Lanes-1:0] lane_rot;                  // lane_q's next lane
  always_comb for (int unsigned l = 0; l < Lanes; l++) lane_rot[l] = lane_q[(l + Lanes - 1) % Lanes];
  logic             burst_end, uen, emit;

  assign burst_end = prod_q && k_b == WidthW'(Width - 1);
  // k_b == e0m1_q in two halves, each one LUT (kept: as one function abc
  // maps it with MUXFs into st_q's enable, above two LUT levels).
  localparam int unsigned KLoW = WidthW / 2;
  (* keep *) logic [1:0] k_hit;
  assign k_hit = {k_b[WidthW-1:KLoW] == e0m1_q[WidthW-1:KLoW], k_b[KLoW-1:0] == e0m1_q[KLoW-1:0]};
  assign uen       = prod_q && (suf_q ? st_q : fring_q == '0);
  assign emit      = fire_q && cemit_q;

  // Stage A (registers): the byte's parts, from the counters.
  // The template's byte in four registers of 16 entries each (u's bits
  // 3:0 and the template: one LUT level and a MUXF7), picked by u's bits
  // 5:4 in stage B.
  logic [4*8-1:0] rom, rom_q;
  logic [1:0]     u54_q;
  logic [7:0]     suf_b_q, var_q;
  logic           zero_q, m_pre_q, m_suf_q;
  always_comb begin
    for (int unsigned h = 0; h < 4; h++) begin
      logic [5:0] a;
      a = {2'(h), u_q[3:0]};
      rom[8*h +: 8] = sel_q == 3'b000 ? ReplyPreSetValue[8*a +: 8] : sel_q == 3'b001 ? ReplyPreGetNull[8*a +: 8] :
                      sel_q == 3'b011 ? ReplyPreGetValue[8*a +: 8] : sel_q == 3'b100 ? ReplyPreSetError[8*a +: 8] :
                                        ReplyPreGetError[8*a +: 8];
    end
  end
  always_ff @(posedge clk_i) begin
    rom_q    <= rom;
    u54_q    <= u_q[5:4];
    suf_b_q  <= kc_q ? ReplySufError[8*u_q[2:0] +: 8] : ReplySufGetValue[8*u_q[2:0] +: 8];
    zero_q   <= suf_q ? !st_q : fring_q != '0;
    m_pre_q  <= q_q < plim_q;
    m_suf_q  <= st_q && u_q < (kc_q ? 7'(SufC) : 7'(SufB));
    // Variable bytes: the frame length (the reply less its 4 frame bytes,
    // below 2**24: its byte 0 is 0), the seqid, the data's length field
    // (below 2**24; 0 for a reply without data).
    var_q    <= ({8{fring_q[1]}} & 8'(ulen_q >> 16)) | ({8{fring_q[2]}} & 8'(ulen_q >> 8)) |
                ({8{fring_q[3]}} & 8'(ulen_q)) |
                ({8{uring_q[SQ]}}   & seqid_q[31:24]) | ({8{uring_q[SQ+1]}} & seqid_q[23:16]) |
                ({8{uring_q[SQ+2]}} & seqid_q[15:8])  | ({8{uring_q[SQ+3]}} & seqid_q[7:0]) |
                ({8{uring_q[DL+1]}} & 8'(d_q >> 16)) | ({8{uring_q[DL+2]}} & 8'(d_q >> 8)) |
                ({8{uring_q[DL+3]}} & 8'(d_q));
  end
  // Stage B: into the shift register.
  logic [7:0] byte_b;
  assign byte_b = ((suf_q ? suf_b_q : rom_q[8*u54_q +: 8]) & {8{!zero_q}}) | var_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q  <= TIdle;
      prod_q   <= 1'b0;
      pa_q     <= 1'b0;
      lasta_q  <= 1'b0;
      full_q   <= 1'b0;
      fire_q   <= 1'b0;
      allow_q  <= 1'b0;
      gen_q    <= 1'b0;
      take_q   <= 1'b0;
      done_q   <= 1'b0;
      sfault_q <= 1'b0;
      ld_pre_q <= 1'b0;
      ld_suf_q <= 1'b0;
      newb_q   <= 1'b0;
      nbp_q    <= 1'b0;
      nbs_q    <= 1'b0;
      lane_ce_q <= 1'b0;
      lo_ce_q  <= 1'b0;
      copy_go_o   <= 1'b0;
      copy_stop_o <= 1'b0;
    end else begin
      done_q      <= 1'b0;
      copy_stop_o <= 1'b0;
      pa_q        <= prod_q;
      lasta_q     <= burst_end;
      take_q      <= emit && clast_q;
      // A chunk goes the cycle after it could (fire_q: a register).
      fire_q      <= full_q && allow_q && (!clast_q || cr_q) && !fire_q;
      ld_pre_q    <= state_q == TGo && !fail_q;
      ld_suf_q    <= state_q == TPre && fire_q && clast_q && !ka_q;
      newb_q      <= (state_q == TGo && !fail_q) || (state_q == TPre && fire_q && clast_q && !ka_q) ||
                     (fire_q && !(state_q == TPre ? clast_q : sb_q));
      nbp_q       <= fire_q && state_q == TPre && !clast_q;
      nbs_q       <= fire_q && state_q == TSuf && !sb_q;
      lane_ce_q   <= (state_q == TGo && !fail_q) || (fire_q && state_q == TPre && !(clast_q && ka_q)) ||
                     (fire_q && state_q == TSuf && !sb_q);
      lo_ce_q     <= (state_q == TGo && !fail_q) || (fire_q && state_q == TPre && clast_q && !ka_q) ||
                     (fire_q && state_q == TSuf && !sb_q);
      if (lasta_q) full_q <= 1'b1;
      if (fire_q) full_q <= 1'b0;
      if (burst_end) prod_q <= 1'b0;
      if (newb_q) prod_q <= 1'b1;
      unique case (state_q)
        THdr:  if (hdr_valid_i) state_q <= TKind;
        TKind: state_q <= TSum;
        TSum:  if (step_q == 4'd8) state_q <= TCap;
        TCap:  state_q <= TBig;
        TBig:  state_q <= TDec;
        TDec:  state_q <= TGo;
        TGo: begin
          // No stream for a reply without data: its prefix is all of it.
          copy_stop_o <= fail_q || ka_q;
          copy_go_o   <= !fail_q && !ka_q;
          allow_q     <= !fail_q && ka_q;
          gen_q       <= !fail_q && ka_q;
          state_q     <= fail_q ? TEnd : TPre;
        end
        TPre: begin
          if (stream_end_i) begin
            allow_q <= !stream_fault_i;
            gen_q   <= !stream_fault_i;
            // (the prefix's burst stops too: were it to end in TEnd, its
            // chunk would wait for the next reply)
            if (stream_fault_i) begin
              state_q <= TEnd;
              prod_q  <= 1'b0;
            end
          end
          sfault_q <= stream_end_i && stream_fault_i;
          if (fire_q && clast_q) state_q <= ka_q ? TEnd : TSuf;
        end
        TSuf: if (fire_q && sb_q) state_q <= TEnd;
        TEnd: begin
          done_q   <= 1'b1;
          sfault_q <= 1'b0;
          state_q <= TIdle;
          gen_q   <= 1'b0;
          allow_q <= 1'b0;
          prod_q  <= 1'b0;
          full_q  <= 1'b0;
        end
        default: ;
      endcase
      if (start_i) begin
        state_q   <= THdr;
        copy_go_o <= 1'b0;
      end
    end
  end

  // The counters (each a reset strobe and an enable), the shift register,
  // and each chunk's place and byte enables.
  always_ff @(posedge clk_i) begin
    if (newb_q)      k_b <= '0;
    else if (prod_q) k_b <= k_b + 1'b1;
    if (ld_pre_q)    q_q <= '0;
    else if (prod_q) q_q <= q_q + 1'b1;
    if (ld_pre_q || ld_suf_q) begin
      u_q     <= '0;
      uring_q <= RingW'(1);
    end else if (uen) begin
      u_q     <= u_q + 1'b1;
      uring_q <= uring_q << 1;
    end
    if (ld_pre_q)    fring_q <= {3'b0, framed_q};
    else if (prod_q) fring_q <= fring_q << 1;
    if (ld_pre_q) suf_q <= 1'b0;
    if (ld_suf_q) suf_q <= 1'b1;
    // The suffix's first byte follows e0 bytes of the stream's last chunk:
    // byte k is past them when k > e0 - 1 (set as byte e0 - 1 is made).
    if (ld_suf_q) st_q <= 1'b0;
    else if (prod_q && &k_hit) st_q <= 1'b1;
    if (pa_q) begin
      sr_q <= {byte_b, sr_q[Width*8-1:8]};
      mk_q <= {suf_q ? m_suf_q : m_pre_q, mk_q[Width-1:1]};
    end
    // Chunks: the prefix's in Net.Resp's first line from lane 0; the
    // suffix's in the stream's last chunk (A) and the one after it (B).
    klast_q <= LaneW'((plim_q - 1'b1) >> WidthW);
    km1_q   <= klast_q - 1'b1;
    for (int unsigned l = 0; l < Lanes; l++) tl_lanes_q[l] <= LaneW'(l) == tail_lane_i;
    // The line after the stream's last chunk's, in halves (a carry chain
    // of at most 10 bits a cycle; ready long before the suffix).
    inc_q   <= tail_lane_i == LaneW'(Lanes - 1);
    {nlo_c_q, nlo_q[NloW-1:0]} <= {1'b0, tail_lo_i[NloW-1:0]} + (NloW+1)'(inc_q);
    nlo_q[LinesW:NloW] <= tail_lo_i[LinesW:NloW] + (LinesW+1-NloW)'(nlo_c_q);
    if (ld_pre_q) ci_q <= '0;
    else if (nbp_q) ci_q <= ci_q + 1'b1;
    if (lane_ce_q) lane_q <= ld_pre_q ? Lanes'(1) : ld_suf_q ? tl_lanes_q : lane_rot;
    if (lo_ce_q)   lo_q   <= ld_pre_q ? {1'b0, base_lo_i} : ld_suf_q ? tail_lo_i : nlo_q;
    if (ld_pre_q) begin
      clast_q <= klast_q == '0;
      cemit_q <= 1'b1;
    end
    if (nbp_q) clast_q <= ci_q == km1_q;       // ci + 1 == klast
    if (ld_suf_q) begin
      sb_q    <= 1'b0;
      clast_q <= 1'b1;
      cemit_q <= emit_a_q;
    end
    if (nbs_q) begin
      sb_q    <= 1'b1;
      cemit_q <= emit_b_q;
    end
    cr_q <= credit_ok_i;
  end

  // The chunk leaves from registers the cycle after it fires (the shift
  // register holds still until the next burst's bytes, two cycles on).
  logic             ov_q, olast_q;
  logic [Lanes-1:0] olanes_q;
  logic [LinesW:0]  olo_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ov_q     <= 1'b0;
      olanes_q <= '0;
    end else begin
      ov_q     <= emit;
      olanes_q <= lane_q & {Lanes{emit}};
    end
  end
  always_ff @(posedge clk_i) begin
    olo_q   <= lo_q;
    olast_q <= clast_q;
  end

  assign copy_skip_o  = skip_q;
  assign copy_cnt_o   = LenW'(cnt_q);
  assign copy_gtw_o   = gtw_q;
  assign copy_le2w_o  = le2w_q;
  assign take_o       = take_q;
  assign gen_o        = gen_q;
  assign out_valid_o  = ov_q;
  assign out_lo_o     = olo_q;
  assign out_lanes_o  = olanes_q;
  assign out_bytes_o  = sr_q;
  assign out_mask_o   = mk_q;
  assign out_last_o   = olast_q;
  assign done_o       = done_q;
  assign result_o     = res_q;
  assign detail_o     = 32'(det_q);

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (rst_ni && state_q == TCap)
      assert (kc_q || kb_q || ka_q || s_bad_q) else $error("tx_engine: a reply of no shape");
    if (rst_ni && copy_go_o && state_q == TPre)
      assert (pf_q < 7'(LineBytes)) else $error("tx_engine: the prefix does not end in Net.Resp's first line: the stream cannot start in App.Resp's header line");
    if (rst_ni && pa_q) assert (!fire_q) else $error("tx_engine: a chunk went while its bytes were shifting in");
    if (rst_ni && state_q == TGo)
      assert (!full_q && !prod_q && !lasta_q && !fire_q) else $error("tx_engine: a new reply begins with a chunk of the last one left");
  end
`endif

endmodule
