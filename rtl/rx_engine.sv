// RxEngine: loads one request from Net.Recv through the load queue, runs the
// Deserializer and the Set recvFunction over the line buffer, and writes the
// App.Recv header line last (docs/abi.md sections 5 and 6).
module rx_engine
  import arcalis_pkg::*;
(
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
  output logic [LineAddrW-1:0] lq_count_o,
  output logic                 lq_stop_o,
  input  logic                 lq_valid_i,
  input  logic [LineBits-1:0]  lq_data_i,
  input  logic                 lq_err_i,
  output logic                 lq_ready_o,

  // Line stores, to the output buffer.
  output logic                 out_valid_o,
  input  logic                 out_ready_i,
  output logic [LineAddrW-1:0] out_line_o,
  output logic [5:0]           out_off_o,
  output logic [6:0]           out_len_o,
  output logic [LineBits-1:0]  out_bytes_o,

  output logic                 done_o,
  output result_e              result_o,
  output logic [31:0]          detail_o,
  output logic                 needs_reply_o,
  output logic [31:0]          seqid_o,
  output logic [2:0]           phase_o        // for functional coverage
);

  typedef enum logic [2:0] {EIdle, EHeader, EFields, EWriteHeader} estate_e;

  estate_e     state_q, state_d;
  logic [31:0] len_q, len_d;             // message length N
  logic [31:0] pos_q, pos_d;             // bytes consumed (p)
  logic [31:0] vcap_q, vcap_d;           // value region bytes
  logic [LineAddrW-1:0] base_q, base_d;
  msg_info_t   hdr_q, hdr_d;

  // ---- Line buffer ----
  logic [LineBits-1:0] head;
  logic [7:0]          avail;
  logic [6:0]          split, consume;
  logic                err_lo, err_hi;

  line_buffer u_line_buffer (
    .clk_i,
    .rst_ni,
    .clear_i    (start_i),
    .start_i    (addr_i[5:0]),
    .in_valid_i (lq_valid_i),
    .in_data_i  (lq_data_i),
    .in_err_i   (lq_err_i),
    .in_ready_o (lq_ready_o),
    .consume_i  (consume),
    .head_o     (head),
    .avail_o    (avail),
    .split_o    (split),
    .err_lo_o   (err_lo),
    .err_hi_o   (err_hi)
  );

  // ---- Deserializer: header and dispatch ----
  logic        d_stall, d_dispatch;
  result_e     d_result;
  logic [31:0] d_offset, d_seqid;
  logic [7:0]  d_msg_type, d_method;

  rx_deserializer u_rx_deserializer (
    .head_i     (head[15*8-1:0]),
    .avail_i    (avail),
    .len_i      (len_q),
    .split_i    (split),
    .err_lo_i   (err_lo),
    .err_hi_i   (err_hi),
    .stall_o    (d_stall),
    .dispatch_o (d_dispatch),
    .result_o   (d_result),
    .offset_o   (d_offset),
    .msg_type_o (d_msg_type),
    .method_o   (d_method),
    .seqid_o    (d_seqid)
  );

  // ---- recvFunction for Set ----
  logic        s_consume_valid, s_done;
  logic [6:0]  s_consume, s_len;
  logic [31:0] s_dst, s_offset;
  logic [LineBits-1:0] s_bytes;
  result_e     s_result;
  operands_t   s_ops;

  recv_set u_recv_set (
    .clk_i,
    .rst_ni,
    .clear_i     (start_i),
    .start_i     (state_q == EHeader && d_dispatch),
    .pos_i       (pos_q),
    .len_i       (len_q),
    .value_cap_i (vcap_q),
    .head_i      (head),
    .avail_i     (state_q == EFields ? avail : 8'd0),
    .split_i     (split),
    .err_lo_i    (err_lo),
    .err_hi_i    (err_hi),
    .consume_o   (s_consume),
    .out_valid_o (s_consume_valid),
    .out_ready_i (out_ready_i),
    .out_dst_o   (s_dst),
    .out_bytes_o (s_bytes),
    .out_len_o   (s_len),
    .done_o      (s_done),
    .result_o    (s_result),
    .offset_o    (s_offset),
    .operands_o  (s_ops)
  );

  // ---- The App.Recv header line: operand registers in host byte order ----
  // Byte i of a line is bits [8i+7:8i], so a little-endian field of the
  // header sits in the line as the plain value.
  // It is built from hdr_d: the cycle that ends the request writes it at once.
  logic [LineBits-1:0] header_line;
  assign header_line = {224'b0, hdr_d.offset, hdr_d.method, 3'b0, s_ops.present,
                        hdr_d.msg_type, hdr_d.result, hdr_d.seqid, s_ops.value_len,
                        s_ops.key_len, s_ops.exptime, s_ops.flags, s_ops.req_id};
  logic finish;   // the request ends this cycle: write the header line

  always_comb begin
    state_d     = state_q;
    len_d       = len_q;
    pos_d       = pos_q;
    vcap_d      = vcap_q;
    base_d      = base_q;
    hdr_d       = hdr_q;
    consume     = '0;
    out_valid_o = 1'b0;
    out_line_o  = base_q + LineAddrW'(s_dst[31:6]);
    out_off_o   = s_dst[5:0];
    out_len_o   = s_len;
    out_bytes_o = s_bytes;
    done_o      = 1'b0;
    lq_start_o  = 1'b0;
    finish      = 1'b0;

    unique case (state_q)
      EIdle: begin
        if (start_i) begin
          hdr_d  = '0;
          pos_d  = '0;
          base_d = app_base_line_i;
          vcap_d = {10'b0, app_cap_lines_i, 6'b0} - ValueOffset;
          if (len_i > MaxMessage) begin
            hdr_d.result = ResMsgTooLarge;
            state_d      = EWriteHeader;
          end else begin
            len_d      = len_i[31:0];
            lq_start_o = 1'b1;
            state_d    = EHeader;
          end
        end
      end

      EHeader: begin
        if (!d_stall) begin
          hdr_d.msg_type = d_msg_type;
          hdr_d.method   = d_method;
          hdr_d.seqid    = d_seqid;
          hdr_d.result   = d_result;
          hdr_d.offset   = d_offset;
          if (d_dispatch) begin
            consume = 7'd15;
            pos_d   = 32'd15;
            state_d = EFields;
          end else begin
            finish  = 1'b1;
          end
        end
      end

      EFields: begin
        consume     = s_consume;
        pos_d       = pos_q + {25'b0, s_consume};
        out_valid_o = s_consume_valid;
        if (s_done) begin   // recv_set offers no bytes in the cycle it ends
          hdr_d.result = s_result;
          hdr_d.offset = s_offset;
          finish       = 1'b1;
        end
      end

      EWriteHeader: finish = 1'b1;

      default: ;
    endcase

    // The header line goes out in the cycle the request ends, or waits in
    // EWriteHeader until the output buffer takes it.
    if (finish) begin
      out_valid_o = 1'b1;
      out_line_o  = base_q;
      out_off_o   = '0;
      out_len_o   = 7'd64;
      out_bytes_o = header_line;
      done_o      = out_ready_i;
      state_d     = out_ready_i ? EIdle : EWriteHeader;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= EIdle;
      len_q   <= '0;
      pos_q   <= '0;
      vcap_q  <= '0;
      base_q  <= '0;
      hdr_q   <= '0;
    end else begin
      state_q <= state_d;
      len_q   <= len_d;
      pos_q   <= pos_d;
      vcap_q  <= vcap_d;
      base_q  <= base_d;
      hdr_q   <= hdr_d;
    end
  end

  // Lines the message touches: from addr's line to (addr + len - 1)'s line.
  /* verilator lint_off UNUSEDSIGNAL */
  logic [AddrW-1:0] end_addr;   // only its line number is used
  /* verilator lint_on UNUSEDSIGNAL */
  assign end_addr   = addr_i + {4'b0, len_i} + 64'd63;
  assign lq_first_o = addr_i[AddrW-1:6];
  assign lq_count_o = (len_i == '0) ? '0 : (end_addr[AddrW-1:6] - addr_i[AddrW-1:6]);
  assign lq_stop_o  = finish || (state_q == EIdle && !start_i);

  // Read by the control FSM with done_o, in the cycle the header goes out.
  assign result_o      = result_e'(hdr_d.result);
  assign detail_o      = hdr_d.offset;
  assign seqid_o       = hdr_d.seqid;
  assign needs_reply_o = (hdr_d.result == ResOk) && (hdr_d.msg_type == MsgCall);
  assign phase_o       = state_q;

endmodule
