// Arcalís receive path: the FLR (command interface, control FSM, load and
// store queues) around the RxEngine with its Set recvFunction and a TxEngine
// for Set's reply. Memory and the cores are outside: the testbench's.
module arcalis_top
  import arcalis_pkg::*;
#(
  parameter int unsigned LdqDepth = 32,
  parameter int unsigned StqDepth = 32,
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
  logic        cmd_valid, stat_rd, cfg_allow;
  logic [3:0]  cmd_op;
  logic [59:0] cmd_payload;
  logic [63:0] status;
  state_e      state;
  logic        tx_active;

  cmd_interface u_cmd_interface (
    .clk_i,
    .rst_ni,
    .cfg_valid_i,
    .cfg_base_i,
    .cfg_size_i,
    .cfg_allow_i   (cfg_allow),
    .uc_valid_i,
    .uc_write_i,
    .uc_addr_i,
    .uc_wdata_i,
    .uc_rsp_valid_o,
    .uc_rsp_hit_o,
    .uc_rsp_rdata_o,
    .cmd_valid_o   (cmd_valid),
    .cmd_op_o      (cmd_op),
    .cmd_payload_o (cmd_payload),
    .stat_rd_o     (stat_rd),
    .status_i      (status)
  );

  logic                 rx_start, rx_done, rx_needs_reply, tx_start, tx_done, mem_idle;
  logic [AddrW-1:0]     rx_addr;
  logic [59:0]          rx_len;
  logic [LineAddrW-1:0] app_base_line, net_resp_line;
  logic [15:0]          app_cap_lines;
  result_e              rx_result;
  logic [31:0]          rx_detail, rx_seqid, tx_seqid;

  ctrl_fsm u_ctrl_fsm (
    .clk_i,
    .rst_ni,
    .cmd_valid_i      (cmd_valid),
    .cmd_op_i         (cmd_op),
    .cmd_payload_i    (cmd_payload),
    .stat_rd_i        (stat_rd),
    .status_o         (status),
    .cfg_allow_o      (cfg_allow),
    .rx_start_o       (rx_start),
    .rx_addr_o        (rx_addr),
    .rx_len_o         (rx_len),
    .app_base_line_o  (app_base_line),
    .app_cap_lines_o  (app_cap_lines),
    .rx_done_i        (rx_done),
    .rx_result_i      (rx_result),
    .rx_detail_i      (rx_detail),
    .rx_needs_reply_i (rx_needs_reply),
    .rx_seqid_i       (rx_seqid),
    .tx_start_o       (tx_start),
    .net_resp_line_o  (net_resp_line),
    .tx_seqid_o       (tx_seqid),
    .tx_done_i        (tx_done),
    .mem_idle_i       (mem_idle),
    .state_o          (state),
    .tx_active_o      (tx_active)
  );

  // ---- Load queue ----
  logic                 lq_start, lq_stop, lq_valid, lq_err, lq_ready, lq_idle;
  logic [LineAddrW-1:0] lq_first, lq_count;
  logic [LineBits-1:0]  lq_data;

  load_queue #(.Depth(LdqDepth)) u_load_queue (
    .clk_i,
    .rst_ni,
    .start_i        (lq_start),
    .first_i        (lq_first),
    .count_i        (lq_count),
    .stop_i         (lq_stop),
    .ld_req_valid_o,
    .ld_req_ready_i,
    .ld_req_addr_o,
    .ld_req_tag_o,
    .ld_rsp_valid_i,
    .ld_rsp_tag_i,
    .ld_rsp_data_i,
    .ld_rsp_err_i,
    .out_valid_o    (lq_valid),
    .out_data_o     (lq_data),
    .out_err_o      (lq_err),
    .out_ready_i    (lq_ready),
    .idle_o         (lq_idle)
  );

  // ---- RxEngine and TxEngine share the output buffer ----
  logic                 rx_out_valid, ob_ready;
  logic [LineAddrW-1:0] rx_out_line;
  logic [5:0]           rx_out_off;
  logic [6:0]           rx_out_len;
  logic [LineBits-1:0]  rx_out_bytes;

  rx_engine u_rx_engine (
    .clk_i,
    .rst_ni,
    .start_i         (rx_start),
    .addr_i          (rx_addr),
    .len_i           (rx_len),
    .app_base_line_i (app_base_line),
    .app_cap_lines_i (app_cap_lines),
    .lq_start_o      (lq_start),
    .lq_first_o      (lq_first),
    .lq_count_o      (lq_count),
    .lq_stop_o       (lq_stop),
    .lq_valid_i      (lq_valid),
    .lq_data_i       (lq_data),
    .lq_err_i        (lq_err),
    .lq_ready_o      (lq_ready),
    .out_valid_o     (rx_out_valid),
    .out_ready_i     (ob_ready && !tx_active),
    .out_line_o      (rx_out_line),
    .out_off_o       (rx_out_off),
    .out_len_o       (rx_out_len),
    .out_bytes_o     (rx_out_bytes),
    .done_o          (rx_done),
    .result_o        (rx_result),
    .detail_o        (rx_detail),
    .needs_reply_o   (rx_needs_reply),
    .seqid_o         (rx_seqid),
    .phase_o         (rx_phase_o)
  );

  logic                 tx_out_valid;
  logic [LineAddrW-1:0] tx_out_line;
  logic [LineBits-1:0]  tx_out_bytes;

  tx_engine u_tx_engine (
    .clk_i,
    .rst_ni,
    .start_i         (tx_start),
    .net_resp_line_i (net_resp_line),
    .seqid_i         (tx_seqid),
    .out_valid_o     (tx_out_valid),
    .out_ready_i     (ob_ready && tx_active),
    .out_line_o      (tx_out_line),
    .out_bytes_o     (tx_out_bytes),
    .done_o          (tx_done)
  );

  logic                 ob_valid, sq_ready, sq_idle;
  logic [LineAddrW-1:0] ob_line;
  logic [LineBits-1:0]  ob_data;
  logic [LineBytes-1:0] ob_strb;

  output_buffer u_output_buffer (
    .clk_i,
    .rst_ni,
    .in_valid_i  (tx_active ? tx_out_valid : rx_out_valid),
    .in_ready_o  (ob_ready),
    .in_line_i   (tx_active ? tx_out_line : rx_out_line),
    .in_off_i    (tx_active ? 6'd0 : rx_out_off),
    .in_len_i    (tx_active ? 7'd16 : rx_out_len),
    .in_bytes_i  (tx_active ? tx_out_bytes : rx_out_bytes),
    .out_valid_o (ob_valid),
    .out_ready_i (sq_ready),
    .out_line_o  (ob_line),
    .out_data_o  (ob_data),
    .out_strb_o  (ob_strb)
  );

  store_queue #(.Depth(StqDepth)) u_store_queue (
    .clk_i,
    .rst_ni,
    .in_valid_i     (ob_valid),
    .in_ready_o     (sq_ready),
    .in_line_i      (ob_line),
    .in_data_i      (ob_data),
    .in_strb_i      (ob_strb),
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

  assign mem_idle = lq_idle && sq_idle && !ob_valid;
  assign state_o  = state;

endmodule
