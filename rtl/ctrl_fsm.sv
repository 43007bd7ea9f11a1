// Central control FSM (IDLE_RECV, BUSY, DRAIN, DONE, IDLE_RESP): takes the
// commands of Table III, starts the Rx/Tx engines, waits in DRAIN until no
// memory request is in flight, and builds the status word (docs/abi.md 3-4).
// A command or status load reaches it a cycle after the access; the status
// word already shows the effect of a load from the cycle before, so only
// the first load in DONE ever reports ready.
module ctrl_fsm
  import arcalis_pkg::*;
(
  input  logic                 clk_i,
  input  logic                 rst_ni,

  input  logic                 cmd_valid_i,
  input  logic [CmdNetReadyFlag:CmdSendNetBuf] cmd_is_i, // the opcode, one-hot; none set: unknown
  input  logic [59:0]          cmd_payload_i,
  input  logic                 cmd_resp_bad_i, // CMD_SEND_APP_RESP's App.Resp length is outside its range
  input  logic                 cmd_cap_low_i,
  input  logic                 cmd_unaligned_i,
  input  logic                 stat_rd_i,
  output logic [63:0]          status_o,

  // RxEngine: a request's message, or for the TxEngine the App.Resp image
  // (rx_tx_o), whose data it streams to Net.Resp.
  output logic                 rx_start_o,
  output logic                 rx_tx_o,
  output logic [AddrW-1:0]     rx_addr_o,
  output logic [59:0]          rx_len_o,
  output logic [LineAddrW-1:0] app_base_line_o, // App.Recv's line, or Net.Resp's for the TxEngine
  output logic [15:0]          app_cap_lines_o,
  input  logic                 rx_done_i,
  input  logic [7:0]           rx_result_i,
  input  logic [31:0]          rx_detail_i,
  input  logic                 rx_needs_reply_i,
  input  logic [31:0]          rx_seqid_i,
  input  logic                 rx_get_i,

  // TxEngine.
  output logic                 tx_start_o,
  output logic [AppRespLenBits-1:0] tx_lm64_o,  // the App.Resp length less its header line (L >= 64)
  output logic [AppRespCapBits-1:0] tx_cap_o,
  output logic                 tx_framed_o,
  output logic                 tx_get_o,
  output logic [31:0]          tx_seqid_o,
  input  logic                 tx_done_i,
  input  logic [7:0]           tx_result_i,
  input  logic [31:0]          tx_detail_i,

  // MemReqInFlight == 0 (registers of the queues and the output buffer).
  input  logic                 mem_idle_i,

  output state_e               state_o
);

  state_e               state_q, state_d;       // state_d: bit equations of the flags, below
  logic [AddrW-1:0]     net_buf_q, net_buf_d;
  logic                 net_buf_set_q, net_buf_set_d;
  logic [LineAddrW-1:0] app_base_q, app_base_d;
  logic [15:0]          app_cap_q, app_cap_d;
  logic                 app_set_q, app_set_d;
  logic [AddrW-1:0]     app_resp_q, app_resp_d;
  logic                 app_resp_set_q, app_resp_set_d;
  logic [LineAddrW-1:0] net_resp_q, net_resp_d;
  logic                 net_resp_set_q, net_resp_set_d;
  logic [7:0]           result_q, result_d;
  logic [31:0]          detail_q, detail_d;
  // The command error, a cycle behind the command: err_q says which of
  // the four exclusive errors the last cycle's command had, sr_q whether
  // a status load cleared the code, and held_q is the code shown last
  // cycle. The code shown now is one LUT of those registers.
  logic [3:0]           err_q;                  // unknown, state, not ready, bad argument
  logic                 sr_q;
  logic [2:0]           held_q, cmderr;
  logic                 reply_q, reply_d;       // the finished request waits for a reply
  logic [31:0]          seqid_q, seqid_d;
  logic                 get_q, get_d;           // ... and was a Get
  logic                 mem_idle_q;
  logic                 drained_q;              // DRAIN is past its first cycle
  logic                 rx_start_d, rx_start_q, tx_start_d, tx_start_q;
  logic [59:0]          rx_len_q;
  logic                 saw_ready_q;            // last cycle's status word said ready
  logic                 ack;                    // ... and a load read it: leave DONE
  state_e               shown;                  // the state a load sees

  // A command is taken only in the states docs/abi.md section 2 lists.
  // IDLE_RECV and IDLE_RESP are also kept as flags of their own, set and
  // cleared by the transitions into and out of them, so that a command's
  // enables are one LUT of the flag, its opcode bit and its checks.
  logic    idle_recv_q, idle_resp_q, idle_recv_d, idle_resp_d;
  // The command interface decodes the opcode as it takes the word.
  logic    net_buf, net_len, app_ready, app_resp, app_buf, net_ready;
  assign net_buf   = cmd_is_i[CmdSendNetBuf];
  assign net_len   = cmd_is_i[CmdSendNetLen];
  assign app_ready = cmd_is_i[CmdAppReadyFlag];
  assign app_resp  = cmd_is_i[CmdSendAppResp];
  assign app_buf   = cmd_is_i[CmdSendAppBuf];
  assign net_ready = cmd_is_i[CmdNetReadyFlag];
  // Each command in a state that takes it; then what it does, if its
  // checks pass.
  logic    ok_net_buf, ok_net_len, ok_app_ready, ok_app_resp, ok_app_buf, ok_net_ready, state_ok;
  assign ok_net_buf   = cmd_valid_i && net_buf && idle_recv_q;
  assign ok_net_len   = cmd_valid_i && net_len && idle_recv_q;
  assign ok_app_ready = cmd_valid_i && app_ready && idle_recv_q;
  assign ok_app_resp  = cmd_valid_i && app_resp && idle_resp_q;
  assign ok_app_buf   = cmd_valid_i && app_buf && (idle_recv_q || idle_resp_q);
  assign ok_net_ready = cmd_valid_i && net_ready && (idle_recv_q || idle_resp_q);
  assign state_ok     = ok_net_buf || ok_net_len || ok_app_ready || ok_app_resp || ok_app_buf || ok_net_ready;
  logic    err_unknown, err_state, err_not_ready, err_bad_arg;
  assign err_unknown   = cmd_valid_i && cmd_is_i == '0;
  assign err_state     = cmd_valid_i && cmd_is_i != '0 && !state_ok;
  assign err_not_ready = (ok_net_len && !(net_buf_set_q && app_set_q)) || (ok_app_resp && !(net_resp_set_q && app_resp_set_q));
  assign err_bad_arg   = (ok_app_ready && cmd_cap_low_i) || (ok_app_resp && net_resp_set_q && app_resp_set_q && cmd_resp_bad_i) ||
                         ((ok_net_ready || ok_app_buf) && cmd_unaligned_i);
  logic    go_rx, go_tx;                  // a command starts an engine
  assign go_rx = ok_net_len && net_buf_set_q && app_set_q;
  assign go_tx = ok_app_resp && net_resp_set_q && app_resp_set_q && !cmd_resp_bad_i;
  // BUSY with the RxEngine or with the TxEngine, as flags of their own.
  logic    rx_busy_q, tx_busy_q, rx_busy_d, tx_busy_d, rx_end, tx_end;
  assign rx_end = rx_busy_q && rx_done_i;
  assign tx_end = tx_busy_q && tx_done_i;

  always_comb begin
    net_buf_d      = net_buf_q;
    net_buf_set_d  = net_buf_set_q;
    app_base_d     = app_base_q;
    app_cap_d      = app_cap_q;
    app_set_d      = app_set_q;
    app_resp_d     = app_resp_q;
    app_resp_set_d = app_resp_set_q;
    net_resp_d     = net_resp_q;
    net_resp_set_d = net_resp_set_q;
    result_d       = result_q;
    detail_d       = detail_q;
    reply_d        = reply_q;
    seqid_d        = seqid_q;
    get_d          = get_q;
    rx_start_d     = 1'b0;
    tx_start_d     = 1'b0;

    if (ok_net_buf) begin
      net_buf_d     = {4'b0, cmd_payload_i};
      net_buf_set_d = 1'b1;
    end
    if (go_rx) begin
      net_buf_set_d = 1'b0;
      rx_start_d    = 1'b1;
    end
    if (ok_app_ready && !cmd_cap_low_i) begin
      app_base_d = {14'b0, cmd_payload_i[59:16]};
      app_cap_d  = cmd_payload_i[15:0];
      app_set_d  = 1'b1;
    end
    if (go_tx) begin
      rx_start_d = 1'b1;             // the RxEngine reads App.Resp for the TxEngine
      tx_start_d = 1'b1;
    end
    if (ok_app_buf && !cmd_unaligned_i) begin
      app_resp_d     = {4'b0, cmd_payload_i};
      app_resp_set_d = 1'b1;
    end
    if (ok_net_ready && !cmd_unaligned_i) begin
      net_resp_d     = {4'b0, cmd_payload_i[59:6]};
      net_resp_set_d = 1'b1;
    end
    // An engine's end, from BUSY's flags (the enables are one LUT).
    if (rx_end) begin
      result_d = rx_result_i;
      detail_d = rx_detail_i;
      reply_d  = rx_needs_reply_i;
      seqid_d  = rx_seqid_i;
      get_d    = rx_get_i;
    end else if (tx_end) begin
      result_d = tx_result_i;
      detail_d = tx_detail_i;
      reply_d  = 1'b0;
    end
    rx_busy_d = go_rx || (rx_busy_q && !rx_done_i);
    tx_busy_d = go_tx || (tx_busy_q && !tx_done_i);
    // The flags follow the state: BUSY after a start, IDLE_* after DONE's
    // acknowledgement (the only transitions into or out of them).
    idle_recv_d = (idle_recv_q && !go_rx) || (state_q == StDone && ack && !reply_q);
    idle_resp_d = (idle_resp_q && !go_tx) || (state_q == StDone && ack && reply_q);
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q        <= StIdleRecv;
      net_buf_q      <= '0;
      net_buf_set_q  <= 1'b0;
      app_base_q     <= '0;
      app_cap_q      <= '0;
      app_set_q      <= 1'b0;
      app_resp_q     <= '0;
      app_resp_set_q <= 1'b0;
      net_resp_q     <= '0;
      net_resp_set_q <= 1'b0;
      result_q       <= ResNone;
      detail_q       <= '0;
      err_q          <= '0;
      sr_q           <= 1'b0;
      held_q         <= '0;
      reply_q        <= 1'b0;
      seqid_q        <= '0;
      get_q          <= 1'b0;
      idle_recv_q    <= 1'b1;
      idle_resp_q    <= 1'b0;
      rx_busy_q      <= 1'b0;
      tx_busy_q      <= 1'b0;
      mem_idle_q     <= 1'b0;
      saw_ready_q    <= 1'b0;
      drained_q      <= 1'b0;
      rx_start_q     <= 1'b0;
      tx_start_q     <= 1'b0;
    end else begin
      drained_q      <= state_q == StDrain;
      rx_start_q     <= rx_start_d;
      tx_start_q     <= tx_start_d;
      saw_ready_q    <= shown == StDone;
      mem_idle_q     <= mem_idle_i;
      state_q        <= state_d;
      net_buf_q      <= net_buf_d;
      net_buf_set_q  <= net_buf_set_d;
      app_base_q     <= app_base_d;
      app_cap_q      <= app_cap_d;
      app_set_q      <= app_set_d;
      app_resp_q     <= app_resp_d;
      app_resp_set_q <= app_resp_set_d;
      net_resp_q     <= net_resp_d;
      net_resp_set_q <= net_resp_set_d;
      result_q       <= result_d;
      detail_q       <= detail_d;
      err_q          <= {err_bad_arg, err_not_ready, err_state, err_unknown};
      sr_q           <= stat_rd_i;
      held_q         <= cmderr;
      reply_q        <= reply_d;
      seqid_q        <= seqid_d;
      get_q          <= get_d;
      idle_recv_q    <= idle_recv_d;
      idle_resp_q    <= idle_resp_d;
      rx_busy_q      <= rx_busy_d;
      tx_busy_q      <= tx_busy_d;
    end
  end

  // The message (or the App.Resp image) goes to the RxEngine with its
  // (registered) start; CMD_SEND_APP_RESP's fields to the TxEngine with its.
  logic                 rx_tx_q;                // the start is the TxEngine's
  logic [AddrW-1:0]     rx_addr_q;
  logic [LineAddrW-1:0] rx_base_q;
  logic [AppRespLenBits-1:0] tx_len_q;
  logic [AppRespCapBits-1:0] tx_cap_q;
  logic                 tx_framed_q;
  always_ff @(posedge clk_i) begin
    // Every cycle, from the last command word: an engine takes them as it
    // starts, the cycle after its command (the next access comes later).
    rx_tx_q     <= app_resp;
    rx_len_q    <= {cmd_payload_i[59:AppRespLenBits] & {(60-AppRespLenBits){!app_resp}}, cmd_payload_i[AppRespLenBits-1:0]};
    rx_addr_q   <= app_resp ? app_resp_q : net_buf_q;
    rx_base_q   <= app_resp ? net_resp_q : app_base_q;
    tx_len_q    <= cmd_payload_i[AppRespLenBits-1:0] - AppRespLenBits'(RespDataOffset);
    tx_cap_q    <= cmd_payload_i[AppRespCapShift +: AppRespCapBits];
    tx_framed_q <= cmd_payload_i[AppRespFramedBit];
  end

  // The next state as bit equations of the flags (IDLE_RECV 0, BUSY 1,
  // DRAIN 2, DONE 3, IDLE_RESP 4): BUSY after a start until the engine's
  // end, then DRAIN until no memory request is in flight (the queues' idle
  // registers lag a cycle: the first DRAIN cycle's sample is from BUSY,
  // when the last chunk was still on its way), then DONE until a status
  // load acknowledges it, then IDLE_RESP or IDLE_RECV as the request asks.
  // Bit 1 is DRAIN or DONE, so an engine's end reaches it through two LUTs.
  logic in_drain, in_done;
  assign in_drain = state_q[1] && !state_q[0];
  assign in_done  = state_q[1] && state_q[0];
  assign state_d  = state_e'({1'b0, idle_resp_d,
                                rx_end || tx_end || (state_q[1] && !(state_q[0] && ack)),
                                rx_busy_d || tx_busy_d || (in_drain && mem_idle_q && drained_q) || (in_done && !ack)});

  // The word a UC load in this cycle sees: the state before it acknowledges
  // DONE, after a load of last cycle did (that one is acting now).
  assign ack      = stat_rd_i && saw_ready_q;
  assign shown    = ack ? (reply_q ? StIdleResp : StIdleRecv) : state_q;
  // The command error: the code of last cycle's error (the four are
  // exclusive: an AND-OR, no priority), else what was shown, unless a
  // status load cleared it.
  assign cmderr   = ({3{err_q[0]}} & 3'(CmdErrUnknownOpcode)) | ({3{err_q[1]}} & 3'(CmdErrWrongState)) |
                    ({3{err_q[2]}} & 3'(CmdErrNotReady)) | ({3{err_q[3]}} & 3'(CmdErrBadArg)) |
                    ({3{err_q == '0 && !sr_q}} & held_q);
  assign status_o = {detail_q, 8'b0, stat_rd_i ? CmdErrNone : {5'b0, cmderr}, result_q, 3'b0,
                     shown == StDone, shown};

  assign rx_addr_o       = rx_addr_q;
  assign rx_len_o        = rx_len_q;
  assign rx_start_o      = rx_start_q;
  assign rx_tx_o         = rx_tx_q;
  assign tx_start_o      = tx_start_q;
  assign app_base_line_o = rx_base_q;
  assign app_cap_lines_o = app_cap_q;
  assign tx_lm64_o       = tx_len_q;
  assign tx_cap_o        = tx_cap_q;
  assign tx_framed_o     = tx_framed_q;
  assign tx_get_o        = get_q;
  assign tx_seqid_o      = seqid_q;
  assign state_o         = state_q;

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (rst_ni) assert (idle_recv_q == (state_q == StIdleRecv) && idle_resp_q == (state_q == StIdleResp) &&
                        (rx_busy_q || tx_busy_q) == (state_q == StBusy) && !(rx_busy_q && tx_busy_q))
      else $error("ctrl_fsm: the state flags disagree with the state %0d", state_q);
  end
`endif

endmodule
