// Arcalís receive path: the FLR (command interface, control FSM, load and
// store queues) around the RxEngine with its Set recvFunction and a TxEngine
// for Set's reply. Memory and the cores are outside: the testbench's. Every
// output port is driven from registers (docs/abi.md section 10).
module arcalis_top
  import arcalis_pkg::*;
#(
  // Bytes the parser moves per cycle (8, 16, 32 or 64; docs/abi.md section 10).
  parameter int unsigned DataBytes = 16,
  parameter int unsigned LdqDepth  = 32,
  parameter int unsigned StqDepth  = 32,
  localparam int unsigned Lanes   = LineBytes / DataBytes,
  localparam int unsigned LdTagW  = $clog2(LdqDepth),
  localparam int unsigned StTagW  = $clog2(StqDepth)
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,

  input  logic                 cfg_valid_i,
  input  logic [AddrW-1:0]     cfg_base_i,
  input  logic [AddrW-1:0]     cfg_size_i,

  input  logic                 uc_valid_i,
  input  logic                 uc_write_i,
  input  logic [AddrW-1:0]     uc_addr_i,
  input  logic [63:0]          uc_wdata_i,
  output logic                 uc_rsp_valid_o,
  output logic                 uc_rsp_hit_o,
  output logic [63:0]          uc_rsp_rdata_o,

  output logic                 ld_req_valid_o,
  input  logic                 ld_req_ready_i,
  output logic [AddrW-1:0]     ld_req_addr_o,
  output logic [LdTagW-1:0]    ld_req_tag_o,
  input  logic                 ld_rsp_valid_i,
  input  logic [LdTagW-1:0]    ld_rsp_tag_i,
  input  logic [LineBits-1:0]  ld_rsp_data_i,
  input  logic                 ld_rsp_err_i,

  output logic                 st_req_valid_o,
  input  logic                 st_req_ready_i,
  output logic [AddrW-1:0]     st_req_addr_o,
  output logic [LineBits-1:0]  st_req_data_o,
  output logic [LineBytes-1:0] st_req_strb_o,
  output logic [StTagW-1:0]    st_req_tag_o,
  input  logic                 st_ack_valid_i,
  input  logic [StTagW-1:0]    st_ack_tag_i,

  output logic [3:0]           state_o,       // control FSM state, for coverage
  output logic [2:0]           rx_phase_o
);

  // ---- Command interface and control FSM ----
  logic        cmd_valid, stat_rd, cmd_resp_bad, cmd_cap_low, cmd_unaligned;
  logic [CmdNetReadyFlag:CmdSendNetBuf] cmd_is;
  logic [59:0] cmd_payload;
  logic [63:0] status;
  state_e      state;

  cmd_interface u_cmd_interface (
    .clk_i,
    .rst_ni,
    .cfg_valid_i,
    .cfg_base_i,
    .cfg_size_i,
    .state_i       (state),
    .uc_valid_i,
    .uc_write_i,
    .uc_addr_i,
    .uc_wdata_i,
    .uc_rsp_valid_o,
    .uc_rsp_hit_o,
    .uc_rsp_rdata_o,
    .cmd_valid_o   (cmd_valid),
    .cmd_is_o      (cmd_is),
    .cmd_payload_o (cmd_payload),
    .cmd_resp_bad_o (cmd_resp_bad),
    .cmd_cap_low_o (cmd_cap_low),
    .cmd_unaligned_o (cmd_unaligned),
    .stat_rd_o     (stat_rd),
    .status_i      (status)
  );

  logic                 rx_start, rx_tx, rx_done, rx_needs_reply, rx_get, tx_start, tx_done, mem_idle;
  logic [AddrW-1:0]     rx_addr;
  logic [59:0]          rx_len;
  logic [LineAddrW-1:0] app_base_line;
  logic [15:0]          app_cap_lines;
  result_e              rx_result, tx_result;
  logic [31:0]          rx_detail, rx_seqid, tx_seqid, tx_detail;
  logic [AppRespLenBits-1:0] tx_lm64;
  logic [AppRespCapBits-1:0] tx_cap;
  logic                 tx_framed, tx_get;

  ctrl_fsm u_ctrl_fsm (
    .clk_i,
    .rst_ni,
    .cmd_valid_i      (cmd_valid),
    .cmd_is_i         (cmd_is),
    .cmd_payload_i    (cmd_payload),
    .cmd_resp_bad_i   (cmd_resp_bad),
    .cmd_cap_low_i    (cmd_cap_low),
    .cmd_unaligned_i  (cmd_unaligned),
    .stat_rd_i        (stat_rd),
    .status_o         (status),
    .rx_start_o       (rx_start),
    .rx_tx_o          (rx_tx),
    .rx_addr_o        (rx_addr),
    .rx_len_o         (rx_len),
    .app_base_line_o  (app_base_line),
    .app_cap_lines_o  (app_cap_lines),
    .rx_done_i        (rx_done),
    .rx_result_i      (rx_result),
    .rx_detail_i      (rx_detail),
    .rx_needs_reply_i (rx_needs_reply),
    .rx_seqid_i       (rx_seqid),
    .rx_get_i         (rx_get),
    .tx_start_o       (tx_start),
    .tx_lm64_o        (tx_lm64),
    .tx_cap_o         (tx_cap),
    .tx_framed_o      (tx_framed),
    .tx_get_o         (tx_get),
    .tx_seqid_o       (tx_seqid),
    .tx_done_i        (tx_done),
    .tx_result_i      (tx_result),
    .tx_detail_i      (tx_detail),
    .mem_idle_i       (mem_idle),
    .state_o          (state)
  );

  // ---- Load queue ----
  logic                 lq_start, lq_stop, lq_idle, lq_drop, lq_some, lq_two;
  logic                 lq_v0, lq_v1, lq_v2, lq_e0, lq_e1;
  logic [LineAddrW-1:0] lq_first;
  logic [LineAddrW-LinesW-1:0] lq_hi1;
  logic [LinesW-1:0]    lq_count;
  logic [LineBits-1:0]  lq_line0, lq_line1;

  load_queue #(.Depth(LdqDepth)) u_load_queue (
    .clk_i,
    .rst_ni,
    .start_i        (lq_start),
    .first_i        (lq_first),
    .hi1_i          (lq_hi1),
    .count_i        (lq_count),
    .some_i         (lq_some),
    .two_i          (lq_two),
    .stop_i         (lq_stop),
    .ld_req_valid_o,
    .ld_req_ready_i,
    .ld_req_addr_o,
    .ld_req_tag_o,
    .ld_rsp_valid_i,
    .ld_rsp_tag_i,
    .ld_rsp_data_i,
    .ld_rsp_err_i,
    .line0_o        (lq_line0),
    .line1_o        (lq_line1),
    .v0_o           (lq_v0),
    .v1_o           (lq_v1),
    .v2_o           (lq_v2),
    .e0_o           (lq_e0),
    .e1_o           (lq_e1),
    .drop_i         (lq_drop),
    .idle_o         (lq_idle)
  );

  // ---- RxEngine and TxEngine share the output buffer, through the
  // output stage of registers the RxEngine keeps for both (os_*) ----
  logic                 sq_pop;
  logic                 os_valid, os_discard, os_last;
  logic [LineAddrW-1:0] os_line;
  logic [Lanes-1:0]     os_lanes;
  logic [DataBytes*8-1:0] os_bytes;
  logic [DataBytes-1:0] os_mask;

  localparam int unsigned LaneW = (Lanes > 1) ? $clog2(Lanes) : 1;
  logic                 tx_valid, tx_last, tx_gen, tx_take, credit_ok;
  logic [LinesW:0]      tx_lo, tail_lo;
  logic [Lanes-1:0]     tx_lanes;
  logic [DataBytes*8-1:0] tx_bytes;
  logic [DataBytes-1:0] tx_mask;
  logic                 rh_valid, rh_err, copy_go, copy_stop, copy_gtw, copy_le2w, stream_end, stream_fault;
  logic [47:0]          rh;
  logic [5:0]           copy_skip;
  logic [LenW-1:0]      copy_cnt;
  logic [LaneW-1:0]     tail_lane;
  logic [LinesW-1:0]    base_lo;

  tx_engine #(.Width(DataBytes)) u_tx_engine (
    .clk_i,
    .rst_ni,
    .start_i         (tx_start),
    .lm64_i          (tx_lm64),
    .cap_i           (tx_cap),
    .framed_i        (tx_framed),
    .get_i           (tx_get),
    .seqid_i         (tx_seqid),
    .hdr_valid_i     (rh_valid),
    .hdr_i           (rh),
    .hdr_err_i       (rh_err),
    .copy_go_o       (copy_go),
    .copy_stop_o     (copy_stop),
    .copy_skip_o     (copy_skip),
    .copy_cnt_o      (copy_cnt),
    .copy_gtw_o      (copy_gtw),
    .copy_le2w_o     (copy_le2w),
    .stream_end_i    (stream_end),
    .stream_fault_i  (stream_fault),
    .tail_lo_i       (tail_lo),
    .tail_lane_i     (tail_lane),
    .base_lo_i       (base_lo),
    .credit_ok_i     (credit_ok),
    .take_o          (tx_take),
    .gen_o           (tx_gen),
    .out_valid_o     (tx_valid),
    .out_lo_o        (tx_lo),
    .out_lanes_o     (tx_lanes),
    .out_bytes_o     (tx_bytes),
    .out_mask_o      (tx_mask),
    .out_last_o      (tx_last),
    .done_o          (tx_done),
    .result_o        (tx_result),
    .detail_o        (tx_detail)
  );

  rx_engine #(.Width(DataBytes)) u_rx_engine (
    .clk_i,
    .rst_ni,
    .start_i         (rx_start),
    .tx_i            (rx_tx),
    .addr_i          (rx_addr),
    .len_i           (rx_len),
    .app_base_line_i (app_base_line),
    .app_cap_lines_i (app_cap_lines),
    .lq_start_o      (lq_start),
    .lq_first_o      (lq_first),
    .lq_hi1_o        (lq_hi1),
    .lq_count_o      (lq_count),
    .lq_some_o       (lq_some),
    .lq_two_o        (lq_two),
    .lq_stop_o       (lq_stop),
    .line0_i         (lq_line0),
    .line1_i         (lq_line1),
    .v0_i            (lq_v0),
    .v1_i            (lq_v1),
    .v2_i            (lq_v2),
    .e0_i            (lq_e0),
    .e1_i            (lq_e1),
    .drop_o          (lq_drop),
    .resp_hdr_valid_o (rh_valid),
    .resp_hdr_o      (rh),
    .resp_hdr_err_o  (rh_err),
    .copy_go_i       (copy_go),
    .copy_stop_i     (copy_stop),
    .copy_skip_i     (copy_skip),
    .copy_cnt_i      (copy_cnt),
    .copy_gtw_i      (copy_gtw),
    .copy_le2w_i     (copy_le2w),
    .stream_end_o    (stream_end),
    .stream_fault_o  (stream_fault),
    .tail_lo_o       (tail_lo),
    .tail_lane_o     (tail_lane),
    .base_lo_o       (base_lo),
    .tx_take_i       (tx_take),
    .credit_ok_o     (credit_ok),
    .tx_gen_i        (tx_gen),
    .tx_valid_i      (tx_valid),
    .tx_lo_i         (tx_lo),
    .tx_lanes_i      (tx_lanes),
    .tx_bytes_i      (tx_bytes),
    .tx_mask_i       (tx_mask),
    .tx_last_i       (tx_last),
    .pop_i           (sq_pop),
    .out_valid_o     (os_valid),
    .out_discard_o   (os_discard),
    .out_line_o      (os_line),
    .out_lanes_o     (os_lanes),
    .out_bytes_o     (os_bytes),
    .out_mask_o      (os_mask),
    .out_last_o      (os_last),
    .done_o          (rx_done),
    .result_o        (rx_result),
    .detail_o        (rx_detail),
    .needs_reply_o   (rx_needs_reply),
    .seqid_o         (rx_seqid),
    .get_o           (rx_get),
    .phase_o         (rx_phase_o)
  );

  logic                 ob_valid, ob_idle, sq_idle;
  logic [LineAddrW-1:0] ob_line;
  logic [LineBits-1:0]  ob_data;
  logic [LineBytes-1:0] ob_strb;

  output_buffer #(.Width(DataBytes)) u_output_buffer (
    .clk_i,
    .rst_ni,
    .in_valid_i   (os_valid),
    .in_discard_i (os_discard),
    .in_line_i    (os_line),
    .in_lanes_i   (os_lanes),
    .in_bytes_i   (os_bytes),
    .in_mask_i    (os_mask),
    .in_last_i    (os_last),
    .out_valid_o  (ob_valid),
    .out_line_o   (ob_line),
    .out_data_o   (ob_data),
    .out_strb_o   (ob_strb),
    .idle_o       (ob_idle)
  );

  store_queue #(.Depth(StqDepth)) u_store_queue (
    .clk_i,
    .rst_ni,
    .in_valid_i     (ob_valid),
    .in_line_i      (ob_line),
    .in_data_i      (ob_data),
    .in_strb_i      (ob_strb),
    .pop_o          (sq_pop),
    .st_req_valid_o,
    .st_req_ready_i,
    .st_req_addr_o,
    .st_req_data_o,
    .st_req_strb_o,
    .st_req_tag_o,
    .st_ack_valid_i,
    .st_ack_tag_i,
    .idle_o         (sq_idle)
  );

  // Nothing in flight: queues, the output buffer and the engines' output
  // stage (all registers, so this is one LUT).
  assign mem_idle = lq_idle && sq_idle && ob_idle && !os_valid;
  assign state_o  = state;

endmodule
