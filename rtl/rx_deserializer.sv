// RxEngine Deserializer: reads the strict Thrift message header as four
// parser steps (version word, name length, name, seqid), each a read cycle
// and a check cycle, and dispatches on the method name: Set goes to its
// recvFunction, Get is handed to software (docs/abi.md 5.1-5.5).
module rx_deserializer
  import arcalis_pkg::*;
(
  input  logic            clk_i,
  input  logic            rst_ni,
  input  logic            clear_i,      // a new request: header fields back to 0
  input  logic            start_i,      // the message's first byte is at the head

  // The window (line buffer) and the message's remaining bytes.
  input  logic            fresh_i,      // the window shows the current head
  input  logic [4*8-1:0]  win_i,        // window bytes 0..3
  input  logic [3:0]      win_err_i,
  input  logic [4:1]      win_has_i,
  input  logic [4:1]      rem_has_i,    // rem_has_i[k]: at least k bytes of the message left
  output logic [6:0]      consume_o,

  output logic            done_o,       // the header ended the request, or dispatched it
  output logic            dispatch_o,   // with done_o: start the Set recvFunction
  output result_e         result_o,     // with done_o and not dispatch_o
  output logic [3:0]      offset_o,     // with done_o: the failing item's offset (0, 4, 8, 11 or 15)
  output logic [7:0]      msg_type_o,   // 0 until the version check passed
  output logic [7:0]      method_o,
  output logic [31:0]     seqid_o
);

  typedef enum logic [3:0] {
    DIdle, DVerA, DVerB, DLenA, DLenB, DNameA, DNameB, DSeqA, DSeqB
  } dstate_e;

  dstate_e     state_q, state_d;
  logic [31:0] word_q;                 // the word the last read step took, big-endian
  logic        fault_q;                // a byte it took came from a faulty line
  logic [7:0]  msg_type_q, msg_type_d;
  logic [7:0]  method_q, method_d;
  logic [31:0] seqid_q, seqid_d;

  // Read steps: bytes, the item's offset, and what comes after.
  logic [2:0] k;
  logic [3:0] item;
  always_comb begin
    unique case (state_q)
      DNameA, DNameB: begin k = 3'd3; item = 4'd8;  end
      DLenA, DLenB:   begin k = 3'd4; item = 4'd4;  end
      DSeqA, DSeqB:   begin k = 3'd4; item = 4'd11; end
      default:        begin k = 3'd4; item = 4'd0;  end
    endcase
  end

  logic read_step, can_read, has_bytes, faulty;
  assign read_step = (state_q == DVerA) || (state_q == DLenA) || (state_q == DNameA) || (state_q == DSeqA);
  assign has_bytes = (k == 3'd3) ? rem_has_i[3] : rem_has_i[4];
  assign can_read  = (k == 3'd3) ? win_has_i[3] : win_has_i[4];
  assign faulty    = (k == 3'd3) ? |win_err_i[2:0] : |win_err_i;

  logic ver_ok, type_ok, is_set, is_get;
  assign ver_ok  = (word_q[31:16] == 16'h8001) && (word_q[15:8] == 8'h00);
  assign type_ok = (word_q[7:0] == MsgCall) || (word_q[7:0] == MsgOneway);
  assign is_set  = word_q[23:0] == "Set";
  assign is_get  = word_q[23:0] == "Get";

  always_comb begin
    state_d    = state_q;
    msg_type_d = msg_type_q;
    method_d   = method_q;
    seqid_d    = seqid_q;
    consume_o  = '0;
    done_o     = 1'b0;
    dispatch_o = 1'b0;
    result_o   = ResNone;
    offset_o   = item;

    if (read_step && fresh_i) begin
      if (!has_bytes) begin
        done_o   = 1'b1;
        result_o = ResTruncated;
      end else if (can_read) begin
        consume_o = {4'b0, k};
        state_d   = dstate_e'(state_q + 1'b1);   // the step's check cycle
      end
    end

    unique case (state_q)
      DVerB: begin
        if (fault_q)       begin done_o = 1'b1; result_o = ResLoadFault; end
        else if (!ver_ok)  begin done_o = 1'b1; result_o = ResBadVersion; end
        else begin
          msg_type_d = word_q[7:0];
          if (!type_ok) begin done_o = 1'b1; result_o = ResBadMsgType; end
          else state_d = DLenA;
        end
      end
      DLenB: begin
        if (fault_q)                  begin done_o = 1'b1; result_o = ResLoadFault; end
        else if (word_q[31])          begin done_o = 1'b1; result_o = ResBadLength; end
        else if (word_q != 32'd3)     begin done_o = 1'b1; result_o = ResUnknownMethod; end
        else state_d = DNameA;
      end
      DNameB: begin
        if (fault_q)                  begin done_o = 1'b1; result_o = ResLoadFault; end
        else if (!is_set && !is_get)  begin done_o = 1'b1; result_o = ResUnknownMethod; end
        else begin
          method_d = is_set ? 8'd1 : 8'd2;
          state_d  = DSeqA;
        end
      end
      DSeqB: begin
        done_o = 1'b1;
        if (fault_q) begin
          result_o = ResLoadFault;
        end else begin
          seqid_d  = word_q;
          offset_o = 4'd15;
          if (method_q == 8'd2) result_o = ResPassToSw;
          else dispatch_o = 1'b1;
        end
      end
      default: ;
    endcase

    if (done_o) state_d = DIdle;
    if (clear_i) begin
      msg_type_d = '0;
      method_d   = '0;
      seqid_d    = '0;
    end
    if (start_i) state_d = DVerA;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q    <= DIdle;
      msg_type_q <= '0;
      method_q   <= '0;
      seqid_q    <= '0;
      word_q     <= '0;
      fault_q    <= 1'b0;
    end else begin
      state_q    <= state_d;
      msg_type_q <= msg_type_d;
      method_q   <= method_d;
      seqid_q    <= seqid_d;
      if (consume_o != '0) begin
        // The name is three bytes: right-align it.
        word_q  <= (k == 3'd3) ? {8'b0, win_i[7:0], win_i[15:8], win_i[23:16]}
                               : {win_i[7:0], win_i[15:8], win_i[23:16], win_i[31:24]};
        fault_q <= faulty;
      end
    end
  end

  assign msg_type_o = msg_type_q;
  assign method_o   = method_q;
  assign seqid_o    = seqid_q;

  // Reads are 3 or 4 bytes.
  logic unused_has;
  assign unused_has = ^{win_has_i[2:1], rem_has_i[2:1]};

endmodule
