// RxEngine: loads one request from Net.Recv through the load queue, runs the
// Deserializer and the Set recvFunction over the line buffer's window, and
// writes the App.Recv header line last (docs/abi.md sections 5 and 6).
// Everything it drives out is a register or a decode of registers.
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
  input  logic [AddrW-1:0]     addr_i,        // Net.Recv byte address
  input  logic [59:0]          len_i,         // message length
  input  logic [LineAddrW-1:0] app_base_line_i,
  input  logic [15:0]          app_cap_lines_i,

  // Load queue.
  output logic                 lq_start_o,
  output logic [LineAddrW-1:0] lq_first_o,
  output logic [LinesW-1:0]    lq_count_o,
  output logic                 lq_stop_o,
  input  logic [LineBits-1:0]  line0_i,
  input  logic [LineBits-1:0]  line1_i,
  input  logic                 v0_i,
  input  logic                 v1_i,
  input  logic                 e0_i,
  input  logic                 e1_i,
  output logic                 drop_o,

  // Chunks to the output buffer.
  input  logic                 credit_i,
  output logic                 take_o,
  output logic                 give_o,
  output logic                 out_valid_o,
  output logic                 out_discard_o,
  output logic [LineAddrW-1:0] out_line_o,
  output logic [LaneW-1:0]     out_lane_o,
  output logic [Width*8-1:0]   out_bytes_o,
  output logic [6:0]           out_len_o,
  output logic                 out_last_o,

  output logic                 done_o,
  output result_e              result_o,
  output logic [31:0]          detail_o,
  output logic                 needs_reply_o,
  output logic [31:0]          seqid_o,
  output logic [2:0]           phase_o        // for functional coverage
);

  typedef enum logic [2:0] {EIdle, EStart, EHeader, EFields, EWriteHeader} estate_e;

  estate_e          state_q, state_d;
  logic [LenW-1:0]  len_q;                  // message length N
  logic [LenW-1:0]  pos_q, pos_d;           // bytes consumed (p)
  logic [LenW-1:0]  rem_q, rem_d;           // N - p
  logic [8:1]       rem_has_q;              // rem_q >= k
  logic             rem_has19_q;
  logic             fresh_q;                // nothing consumed last cycle: the window is current
  logic [LenW-1:0]  vcap_q;                 // value region bytes
  logic [LineAddrW-1:0] base_q;
  logic [5:0]       start_off_q;
  logic [LineAddrW-1:0] first_q;
  logic [LinesW-1:0] lines_q;
  logic             too_large_q;
  result_e          result_q, result_d;
  logic [LenW-1:0]  offset_q, offset_d;

  // ---- Line buffer ----
  logic [6:0]        consume, want;
  logic              has_want;
  logic [Width*8-1:0] win;
  logic [Width-1:0]  win_err;
  logic [8:1]        win_has;

  line_buffer #(.Width(Width)) u_line_buffer (
    .clk_i,
    .rst_ni,
    .clear_i     (state_q == EStart),
    .start_i     (start_off_q),
    .line0_i,
    .line1_i,
    .v0_i,
    .v1_i,
    .e0_i,
    .e1_i,
    .drop_o,
    .consume_i   (consume),
    .want_i      (want),
    .has_want_o  (has_want),
    .win_o       (win),
    .win_err_o   (win_err),
    .win_has_o   (win_has)
  );

  // ---- Deserializer: header and dispatch ----
  logic        d_done, d_dispatch;
  result_e     d_result;
  logic [3:0]  d_offset;
  logic [6:0]  d_consume;
  logic [7:0]  d_msg_type, d_method;
  logic [31:0] d_seqid;

  rx_deserializer u_rx_deserializer (
    .clk_i,
    .rst_ni,
    .clear_i    (state_q == EStart),
    .start_i    (state_q == EStart && !too_large_q),
    .fresh_i    (fresh_q),
    .win_i      (win[4*8-1:0]),
    .win_err_i  (win_err[3:0]),
    .win_has_i  (win_has[4:1]),
    .rem_has_i  (rem_has_q[4:1]),
    .consume_o  (d_consume),
    .done_o     (d_done),
    .dispatch_o (d_dispatch),
    .result_o   (d_result),
    .offset_o   (d_offset),
    .msg_type_o (d_msg_type),
    .method_o   (d_method),
    .seqid_o    (d_seqid)
  );

  // ---- recvFunction for Set ----
  logic            s_done, s_valid, s_discard, s_last, s_take, s_give;
  logic [6:0]      s_consume, s_len;
  logic [LenW-1:0] s_dst, s_offset;
  result_e         s_result;
  operands_t       s_ops;

  recv_set #(.Width(Width)) u_recv_set (
    .clk_i,
    .rst_ni,
    .clear_i       (state_q == EStart),
    .start_i       (d_done && d_dispatch),
    .fresh_i       (fresh_q),
    .win_i         (win[8*8-1:0]),
    .win_err_i     (win_err),
    .win_has_i     (win_has),
    .rem_has_i     (rem_has_q),
    .rem_has19_i   (rem_has19_q),
    .rem_i         (rem_q),
    .pos_i         (pos_q),
    .value_cap_i   (vcap_q),
    .consume_o     (s_consume),
    .want_o        (want),
    .has_want_i    (has_want),
    .credit_i,
    .take_o        (s_take),
    .give_o        (s_give),
    .out_valid_o   (s_valid),
    .out_discard_o (s_discard),
    .out_dst_o     (s_dst),
    .out_len_o     (s_len),
    .out_last_o    (s_last),
    .done_o        (s_done),
    .result_o      (s_result),
    .offset_o      (s_offset),
    .operands_o    (s_ops)
  );

  // Only one of the two reads at a time; the other drives 0.
  assign consume = d_consume | s_consume;

  // ---- Sequencing ----
  logic [LaneW-1:0] hl_q;                   // next header-line chunk
  logic             hdr_last, hdr_fire;
  assign hdr_last = (hl_q == LaneW'(Lanes - 1));
  assign hdr_fire = (state_q == EWriteHeader) && (!hdr_last || credit_i);

  always_comb begin
    state_d  = state_q;
    result_d = result_q;
    offset_d = offset_q;
    pos_d    = pos_q + LenW'(consume);
    rem_d    = rem_q - LenW'(consume);
    unique case (state_q)
      EIdle:   if (start_i) state_d = EStart;
      EStart: begin
        pos_d = '0;
        rem_d = len_q;
        if (too_large_q) begin
          result_d = ResMsgTooLarge;
          offset_d = '0;
          state_d  = EWriteHeader;
        end else begin
          state_d = EHeader;
        end
      end
      EHeader: begin
        if (d_done && d_dispatch) begin
          state_d = EFields;
        end else if (d_done) begin
          result_d = d_result;
          offset_d = LenW'(d_offset);
          state_d  = EWriteHeader;
        end
      end
      EFields: begin
        if (s_done) begin
          result_d = s_result;
          offset_d = s_offset;
          state_d  = EWriteHeader;
        end
      end
      EWriteHeader: if (hdr_fire && hdr_last) state_d = EIdle;
      default: ;
    endcase
    if (start_i) begin
      result_d = ResNone;
      offset_d = '0;
    end
  end

  // The message's lines: from addr's line to (addr + len - 1)'s line.
  /* verilator lint_off UNUSEDSIGNAL */
  logic [LenW:0] span;   // only its line count is used
  /* verilator lint_on UNUSEDSIGNAL */
  assign span = {1'b0, len_i[LenW-1:0]} + (LenW+1)'(addr_i[5:0]) + (LenW+1)'(63);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q     <= EIdle;
      pos_q       <= '0;
      rem_q       <= '0;
      rem_has_q   <= '0;
      rem_has19_q <= 1'b0;
      fresh_q     <= 1'b0;
      result_q    <= ResNone;
      offset_q    <= '0;
      hl_q        <= '0;
    end else begin
      state_q     <= state_d;
      pos_q       <= pos_d;
      rem_q       <= rem_d;
      for (int unsigned k = 1; k <= 8; k++) rem_has_q[k] <= rem_q >= LenW'(k);
      rem_has19_q <= rem_q >= LenW'(19);
      fresh_q     <= (consume == '0) && (state_q != EStart);
      result_q    <= result_d;
      offset_q    <= offset_d;
      hl_q        <= (state_q != EWriteHeader) ? '0 : hl_q + LaneW'(hdr_fire);
    end
  end

  // Request registers, taken when the control FSM starts the request.
  always_ff @(posedge clk_i) begin
    if (start_i) begin
      len_q       <= len_i[LenW-1:0];
      too_large_q <= (len_i[59:LenW] != '0) || (len_i[LenW-1:0] > MaxMessage);
      lines_q     <= (len_i[LenW-1:0] == '0) ? '0 : LinesW'(span[LenW:6]);
      first_q     <= addr_i[AddrW-1:6];
      start_off_q <= addr_i[5:0];
      base_q      <= app_base_line_i;
      vcap_q      <= LenW'({app_cap_lines_i, 6'b0}) - LenW'(ValueOffset);
    end
  end

  assign lq_start_o = (state_q == EStart) && !too_large_q;
  assign lq_first_o = first_q;
  assign lq_count_o = lines_q;
  assign lq_stop_o  = (state_q != EHeader) && (state_q != EFields);

  // ---- The App.Recv header line: operand registers in host byte order ----
  // Byte i of a line is bits [8i+7:8i], so a little-endian field of the
  // header sits in the line as the plain value.
  logic [LineBits-1:0] header_line;
  assign header_line = {224'b0, {8'b0, offset_q}, d_method, 3'b0, s_ops.present,
                        d_msg_type, result_q, d_seqid, s_ops.value_len,
                        s_ops.key_len, s_ops.exptime, s_ops.flags, s_ops.req_id};

  // Header chunks go out from registers, like the recvFunction's.
  logic               h_valid_q, h_last_q;
  logic [LaneW-1:0]   h_lane_q;
  logic [Width*8-1:0] h_bytes_q;
  logic               done_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      h_valid_q <= 1'b0;
      h_last_q  <= 1'b0;
      done_q    <= 1'b0;
    end else begin
      h_valid_q <= hdr_fire;
      h_last_q  <= hdr_fire && hdr_last;
      done_q    <= hdr_fire && hdr_last;
    end
  end
  always_ff @(posedge clk_i) begin
    if (hdr_fire) begin
      h_lane_q  <= hl_q;
      h_bytes_q <= header_line[hl_q*Width*8 +: Width*8];
    end
  end

  assign take_o        = s_take || (hdr_fire && hdr_last);
  assign give_o        = s_give;
  assign out_valid_o   = h_valid_q || s_valid;
  assign out_discard_o = s_discard;
  assign out_line_o    = h_valid_q ? base_q : base_q + LineAddrW'(s_dst[LenW-1:6]);
  assign out_lane_o    = h_valid_q ? h_lane_q : LaneW'(s_dst[5:0] >> WidthW);
  assign out_bytes_o   = h_valid_q ? h_bytes_q : win;
  assign out_len_o     = h_valid_q ? 7'(Width) : s_len;
  assign out_last_o    = h_valid_q ? h_last_q : s_last;

  // Read by the control FSM with done_o, the cycle after the last header chunk.
  assign done_o        = done_q;
  assign result_o      = result_q;
  assign detail_o      = {8'b0, offset_q};
  assign seqid_o       = d_seqid;
  assign needs_reply_o = (result_q == ResOk) && (d_msg_type == MsgCall);

  always_comb begin
    unique case (state_q)
      EIdle:        phase_o = 3'd0;
      EStart:       phase_o = 3'd1;
      EHeader:      phase_o = 3'd2;
      EFields:      phase_o = 3'd3;
      default:      phase_o = 3'd4;
    endcase
  end

endmodule
