// Snooping Command Interface of the FLR: claims the UC loads and stores that
// fall inside the command-page window and turns them into commands and status
// reads. Everything outside the window is ignored (docs/abi.md section 2).
// The window is one aligned 4 KiB command page, so a claim is an equality
// compare of the page number; the access is registered here and acts on the control FSM the
// cycle after it, and its answer (the status word as the FSM shows it then)
// goes out the cycle after the access.
module cmd_interface
  import arcalis_pkg::*;
(
  input  logic             clk_i,
  input  logic             rst_ni,

  // Configuration channel, programmed by the kernel driver.
  input  logic             cfg_valid_i,
  input  logic [AddrW-1:0] cfg_base_i,
  input  logic [AddrW-1:0] cfg_size_i,
  input  logic [3:0]       state_i,       // the control FSM's state: reprogramming is safe in IDLE_RECV

  // UC accesses snooped on the interconnect port.
  input  logic             uc_valid_i,
  input  logic             uc_write_i,
  input  logic [AddrW-1:0] uc_addr_i,
  input  logic [63:0]      uc_wdata_i,
  output logic             uc_rsp_valid_o,
  output logic             uc_rsp_hit_o,
  output logic [63:0]      uc_rsp_rdata_o,

  // To the control FSM, one cycle after the access.
  output logic             cmd_valid_o,
  output logic [CmdNetReadyFlag:CmdSendNetBuf] cmd_is_o, // the opcode, one-hot; none set: unknown
  output logic [59:0]      cmd_payload_o,
  output logic             cmd_resp_bad_o, // payload[20:0], an App.Resp length, is outside [RespDataOffset, RespImageMax]
  output logic             cmd_cap_low_o, // payload[15:0] below the smallest App.Recv
  output logic             cmd_unaligned_o, // payload[5:0] != 0
  output logic             stat_rd_o,
  input  logic [63:0]      status_i       // the word a load in this cycle answers
);

  localparam int unsigned PageW = 12;          // the command page: 4 KiB
  logic [47:PageW]   page_q;
  logic             off_q;                     // the window is off (its size is 0)
  logic             rsp_valid_q;
  logic [63:0]      rsp_rdata_q;
  logic             cmd_valid_q, stat_rd_q;
  logic [CmdNetReadyFlag:CmdSendNetBuf] cmd_is_q;
  logic [59:0]      cmd_payload_q;
  logic             cmd_resp_bad_q, cmd_cap_low_q, cmd_unaligned_q;

  // The page compare on carry chains, one for stores and one for loads, so
  // that each ends in its register: a chain's carry out is the AND of its
  // inputs (a LUT tree would be two levels deeper). The access's valid and
  // kind are one chain bit; the address LUTs take three bits each, grouped
  // one bit apart in the two chains, so no LUT is shared between them
  // (a shared LUT is routed). Physical addresses are 48 bits: bits 63:48
  // are not compared.
  localparam int unsigned PhysW = 48;
  localparam int unsigned Trips = (PhysW - PageW) / 3;        // 12
  logic [Trips+1:0] st_s;   // valid && write, en, (12..14)..(45..47)
  logic [Trips+1:0] ld_s;   // valid, [12]+en, (13..15)..(43..45), (46,47)+!write
  logic [Trips+3:0] st_c, ld_c;
  logic             st, ld;
  always_comb begin
    st_s[0] = uc_valid_i && uc_write_i;
    st_s[1] = !off_q;
    ld_s[0] = uc_valid_i;
    ld_s[1] = (uc_addr_i[PageW] == page_q[PageW]) && !off_q;
    for (int unsigned g = 0; g < Trips; g++) begin
      st_s[g+2] = uc_addr_i[PageW + 3*g +: 3] == page_q[PageW + 3*g +: 3];
    end
    for (int unsigned g = 0; g + 1 < Trips; g++) begin
      ld_s[g+2] = uc_addr_i[PageW+1 + 3*g +: 3] == page_q[PageW+1 + 3*g +: 3];
    end
    // (with !write here, not in ld_s[0]: a LUT that st_s[Trips+1], bits
    // 45..47, could not take as a part of its own)
    ld_s[Trips+1] = uc_addr_i[PhysW-2 +: 2] == page_q[PhysW-2 +: 2] && !uc_write_i;
  end
  // The constant 1 at the bottom starts the carry without a gate.
  assign st_c = {1'b0, st_s, 1'b1} + 1'b1;
  assign ld_c = {1'b0, ld_s, 1'b1} + 1'b1;
  assign st   = st_c[Trips+3];
  assign ld   = ld_c[Trips+3];

  // Wide zero tests the same way: a chain bit per six bits, the carry out
  // is the AND. The configured size.
  logic [10:0] sz_s;
  logic [12:0] sz_c;
  always_comb begin
    for (int unsigned g = 0; g < 10; g++) sz_s[g] = cfg_size_i[6*g +: 6] == '0;
    sz_s[10] = cfg_size_i[63:60] == '0;
  end
  assign sz_c = {1'b0, sz_s, 1'b1} + 1'b1;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      page_q      <= '0;
      off_q       <= 1'b1;
      rsp_valid_q <= 1'b0;
      cmd_valid_q <= 1'b0;
      stat_rd_q   <= 1'b0;
    end else begin
      if (cfg_valid_i && state_i == StIdleRecv) begin
        page_q <= cfg_base_i[47:PageW];
        off_q  <= sz_c[12];
      end
      rsp_valid_q <= uc_valid_i;
      cmd_valid_q <= st;
      stat_rd_q   <= ld;
    end
  end



  // CMD_SEND_APP_RESP's App.Resp length L is outside [RespDataOffset,
  // RespImageMax] = [64, 2**20 + 64]: bit tests, no compare chain (the
  // payload comes from an input port).
  if (MinCapLines >= 8 || RespDataOffset != 64 || RespImageMax != (1 << 20) + 64 || AppRespLenBits != 21) begin : g_check_len
    $error("cmd_interface: the App.Resp length's bounds are not the ones its bit tests are written for");
  end
  logic [AppRespLenBits-1:0] resp_len;
  logic                      resp_bad;
  assign resp_len = uc_wdata_i[4 +: AppRespLenBits];
  assign resp_bad = resp_len[20:6] == '0 ||
                    (resp_len[20] && (resp_len[19:7] != '0 || (resp_len[6] && resp_len[5:0] != '0)));

  // Command word registers and the status word answered: read only under
  // their valid bits.
  always_ff @(posedge clk_i) begin
    // Taken with any write (the valid is the compare chain's): read only
    // under cmd_valid_q.
    // Taken with any write (the claim's valid stays alone in its compare
    // chain): read only under cmd_valid_q.
    if (uc_write_i) begin
      // Decoded here, so the control FSM's enables are one LUT deep.
      for (int unsigned k = 32'(CmdSendNetBuf); k <= 32'(CmdNetReadyFlag); k++) cmd_is_q[k] <= uc_wdata_i[3:0] == 4'(k);
      cmd_payload_q   <= uc_wdata_i[63:4];
      cmd_resp_bad_q  <= resp_bad;
      cmd_cap_low_q   <= uc_wdata_i[19:7] == '0 && uc_wdata_i[6:4] < 3'(MinCapLines);   // (bit tests: MinCapLines < 8)
      cmd_unaligned_q <= uc_wdata_i[9:4] != '0;
    end
    rsp_rdata_q <= status_i;
  end

  assign cmd_valid_o     = cmd_valid_q;
  assign cmd_is_o        = cmd_is_q;
  assign cmd_payload_o   = cmd_payload_q;
  assign cmd_resp_bad_o  = cmd_resp_bad_q;
  assign cmd_cap_low_o   = cmd_cap_low_q;
  assign cmd_unaligned_o = cmd_unaligned_q;
  assign stat_rd_o       = stat_rd_q;

  // Every access is answered the cycle after it; a load outside the window
  // reads 0.
  assign uc_rsp_valid_o = rsp_valid_q;
  assign uc_rsp_hit_o   = cmd_valid_q || stat_rd_q;
  assign uc_rsp_rdata_o = stat_rd_q ? rsp_rdata_q : '0;

  // Any byte of the page is the same command port; bits above 47 are not
  // part of a physical address.
  logic unused_offsets;
  assign unused_offsets = ^{cfg_base_i[AddrW-1:48], cfg_base_i[PageW-1:0],
                            uc_addr_i[AddrW-1:48], uc_addr_i[PageW-1:0],
                            st_c[Trips+2:0], ld_c[Trips+2:0], sz_c[11:0]};

endmodule
