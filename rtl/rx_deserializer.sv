// RxEngine Deserializer: reads the strict Thrift message header as four
// parser steps (version word, name length, name, seqid) and dispatches on
// the method name to the recvFunction, which reads Set's or Get's arguments
// (docs/abi.md 5.1-5.5). A step is a read cycle (the bytes leave the
// window), a wait cycle and a check cycle; its result is a register. As in
// recv_set, a read state's first cycle registers whether the read can go,
// and it fires the cycle after from that register.
module rx_deserializer
  import arcalis_pkg::*;
(
  input  logic            clk_i,
  input  logic            rst_ni,
  input  logic            clear_i,      // a new request: header fields back to 0
  input  logic            start_i,      // the message's first byte is at the head

  // The window (line buffer) and what the message has left.
  input  logic [4*8-1:0]  win_i,        // window bytes 0..3
  input  logic [3:0]      win_err_i,
  input  logic            ready3_i,     // a 3-byte read can go now
  input  logic            ready4_i,     // a 4-byte read can go now
  input  logic            short3_i,     // fewer than 3 message bytes left (valid with the readies)
  input  logic            short4_i,
  output logic [6:0]      amt_o,        // a read step's bytes (from a register)
  output logic            go_o,         // a read step takes its bytes now (a register)

  output logic            done_o,       // the header ended the request, or dispatched it
  output logic            dispatch_o,   // with done_o: start the recvFunction
  output logic            end_o,        // done_o without dispatch_o (a register of its own: an enable's input)
  output result_e         result_o,     // with done_o and not dispatch_o
  output logic [3:0]      offset_o,     // with done_o: the failing item's offset (0, 4, 8, 11 or 15)
  output logic [7:0]      msg_type_o,   // 0 until the version check passed
  output logic [7:0]      method_o,
  output logic            get_o,        // the method is Get (a register of its own: the schema table's input)
  output logic [31:0]     seqid_o
);

  typedef enum logic [3:0] {
    DIdle, DVerA, DVerW, DVerB, DLenA, DLenW, DLenB, DNameA, DNameW, DNameB, DSeqA, DSeqW, DSeqB
  } dstate_e;

  (* fsm_encoding = "one-hot" *)    // Yosys: recode it as an FSM whatever its heuristic says
  dstate_e     state_q;
  logic [31:0] word_q;                 // the word the last read step took, big-endian
  // The checks: compares of six bits each as a read fires, joined in its
  // wait cycle into whether each kind of check cycle ends the request, and
  // with what result.
  logic [3:0]  ver_g_q, set_g_q, get_g_q;
  logic [5:0]  len_g_q;
  logic        vbad_q, lbad_q, nbad_q;
  result_e     eres_q;                 // the result its check cycle writes (if the check fails; DSeqB: always)
  logic        fault_q;                // a byte it took came from a faulty line
  logic        ver_ok_q, type_ok_q, len_neg_q, is_set_q;
  logic [7:0]  msg_type_q, method_q;
  logic        get_q;
  logic [31:0] seqid_q;
  logic        done_q, dispatch_q, end_q;
  result_e     result_q;
  logic [2:0]  item_q;                 // the item that ended the header: 0 version .. 4 fields

  logic read_step, name_step;
  assign name_step = (state_q == DNameA);
  assign read_step = (state_q == DVerA) || (state_q == DLenA) || name_step || (state_q == DSeqA);
  // By the cycle a read fires its amount (three_q) is the state's.
  logic       three_q;                 // the read is the 3-byte name
  logic [2:0] amt_q;                   // its bytes: 3 or 4
  logic       go_q, short_q;           // a read takes its bytes now; the message is too short for it
  assign amt_o     = {4'b0, amt_q};
  assign go_o      = go_q;

  // Each read step's next state: its wait cycle, then its check cycle.
  dstate_e succ;
  always_comb begin
    unique case (state_q)
      DVerA:   succ = DVerW;
      DVerW:   succ = DVerB;
      DLenA:   succ = DLenW;
      DLenW:   succ = DLenB;
      DNameA:  succ = DNameW;
      DNameW:  succ = DNameB;
      DSeqA:   succ = DSeqW;
      default: succ = DSeqB;
    endcase
  end

  // The item each state reads.
  logic [2:0] item;
  always_comb begin
    unique case (state_q)
      DLenA, DLenW, DLenB:    item = 3'd1;
      DNameA, DNameW, DNameB: item = 3'd2;
      DSeqA, DSeqW, DSeqB:    item = 3'd3;
      default:                item = 3'd0;
    endcase
  end

  // A check cycle that fails (a single LUT: the result's enable is one more).
  (* keep *) logic check_end;
  assign check_end = (state_q == DVerB && vbad_q) || (state_q == DLenB && lbad_q) || (state_q == DNameB && nbad_q);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q    <= DIdle;
      msg_type_q <= '0;
      method_q   <= '0;
      get_q      <= 1'b0;
      done_q     <= 1'b0;
      dispatch_q <= 1'b0;
      end_q      <= 1'b0;
      result_q   <= ResNone;
      item_q     <= '0;
      go_q       <= 1'b0;
      short_q    <= 1'b0;
    end else begin
      done_q     <= 1'b0;
      dispatch_q <= 1'b0;
      end_q      <= 1'b0;
      go_q       <= !start_i && read_step && !go_q && !short_q && (name_step ? ready3_i : ready4_i);
      short_q    <= !start_i && read_step && !go_q && !short_q && (name_step ? short3_i : short4_i);
      item_q     <= item;
      // The result: a check cycle's is worked out in its wait cycle.
      if (short_q)                        result_q <= ResTruncated;
      else if (check_end || state_q == DSeqB) result_q <= eres_q;
      if (short_q) begin
        done_q   <= 1'b1;
        end_q    <= 1'b1;
        state_q  <= DIdle;
      end else if (go_q) begin
        state_q <= succ;                        // the wait cycle
      end
      unique case (state_q)
        DVerW, DLenW, DNameW, DSeqW: state_q <= succ;
        // A check cycle acts on its wait cycle's verdict.
        DVerB: begin
          if (vbad_q) begin
            done_q   <= 1'b1;
            end_q    <= 1'b1;
            state_q  <= DIdle;
          end else begin
            state_q  <= DLenA;
          end
          if (!fault_q && ver_ok_q) msg_type_q <= word_q[7:0];
        end
        DLenB: begin
          if (lbad_q) begin
            done_q   <= 1'b1;
            end_q    <= 1'b1;
            state_q  <= DIdle;
          end else begin
            state_q  <= DNameA;
          end
        end
        DNameB: begin
          if (nbad_q) begin
            done_q   <= 1'b1;
            end_q    <= 1'b1;
            state_q  <= DIdle;
          end else begin
            method_q <= is_set_q ? 8'd1 : 8'd2;
            get_q    <= !is_set_q;
            state_q  <= DSeqA;
          end
        end
        DSeqB: begin
          done_q     <= 1'b1;
          state_q    <= DIdle;
          dispatch_q <= !fault_q;
          end_q      <= fault_q;
          if (!fault_q) item_q <= 3'd4;
        end
        default: ;
      endcase
      if (clear_i) begin
        msg_type_q <= '0;
        method_q   <= '0;
        get_q      <= 1'b0;
      end
      if (start_i) state_q <= DVerA;
    end
  end

  // The seqid, taken in DSeqB unless its bytes faulted (decided in DSeqW,
  // so the enable is a register); the request's clear is a synchronous
  // reset (it is read only after it).
  logic seq_take_q;
  always_ff @(posedge clk_i) begin
    seq_take_q <= (state_q == DSeqW) && !fault_q;
    if (clear_i)         seqid_q <= '0;
    else if (seq_take_q) seqid_q <= word_q;
  end

  always_ff @(posedge clk_i) begin
    three_q <= name_step;
    amt_q   <= name_step ? 3'd3 : 3'd4;
  end

  // What a read step took, and compares of its bytes, as it fires (the
  // window's bytes are registers; the window is little-endian in a word);
  // in its wait cycle, the verdicts its check cycle reads.
  localparam logic [23:0] VerWant = {8'h00, VersionWin};   // the version word's first three bytes
  localparam logic [31:0] LenWant = NameLenWin;
  localparam logic [23:0] SetWant = NameSetWin;
  localparam logic [23:0] GetWant = NameGetWin;
  always_ff @(posedge clk_i) begin
    if (go_q) begin
      // (read only after a four-byte step: the name's three are compared below)
      word_q    <= {win_i[7:0], win_i[15:8], win_i[23:16], win_i[31:24]};
      fault_q   <= three_q ? |win_err_i[2:0] : |win_err_i;
      for (int unsigned g = 0; g < 4; g++) begin
        ver_g_q[g] <= win_i[6*g +: 6] == VerWant[6*g +: 6];
        set_g_q[g] <= win_i[6*g +: 6] == SetWant[6*g +: 6];
        get_g_q[g] <= win_i[6*g +: 6] == GetWant[6*g +: 6];
      end
      for (int unsigned g = 0; g < 5; g++) len_g_q[g] <= win_i[6*g +: 6] == LenWant[6*g +: 6];
      len_g_q[5] <= win_i[31:30] == LenWant[31:30];
      type_ok_q <= (win_i[31:24] == MsgCall) || (win_i[31:24] == MsgOneway);
      len_neg_q <= win_i[7];
    end
    ver_ok_q    <= &ver_g_q;
    is_set_q    <= &set_g_q;
    vbad_q      <= fault_q || !(&ver_g_q) || !type_ok_q;
    lbad_q      <= fault_q || len_neg_q || !(&len_g_q);
    // In a wait cycle item_q is the read's item.
    if (fault_q)                            eres_q <= ResLoadFault;
    else if (item_q[1:0] == 2'd0)           eres_q <= !(&ver_g_q) ? ResBadVersion : ResBadMsgType;
    else if (item_q[1:0] == 2'd1)           eres_q <= len_neg_q ? ResBadLength : ResUnknownMethod;
    else if (item_q[1:0] == 2'd2)           eres_q <= ResUnknownMethod;
    else                                    eres_q <= ResNone;
    nbad_q      <= fault_q || (!(&set_g_q) && !(&get_g_q));
  end

  assign done_o     = done_q;
  assign dispatch_o = dispatch_q;
  assign end_o      = end_q;
`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (rst_ni) assert (end_q == (done_q && !dispatch_q)) else $error("rx_deserializer: end_q disagrees with done_q, dispatch_q");
  end
`endif
  assign result_o   = result_q;
  // Each item's offset in the message (abi.md 5.2-5.5).
  always_comb begin
    unique case (item_q)
      3'd1:    offset_o = 4'd4;
      3'd2:    offset_o = 4'd8;
      3'd3:    offset_o = 4'd11;
      3'd4:    offset_o = 4'd15;
      default: offset_o = 4'd0;
    endcase
  end
  assign msg_type_o = msg_type_q;
  assign method_o   = method_q;
  assign get_o      = get_q;
  assign seqid_o    = seqid_q;

endmodule
