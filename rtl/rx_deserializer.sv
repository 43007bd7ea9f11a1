// RxEngine Deserializer: checks the strict Thrift message header in one step
// (version, type, method name, seqid) and dispatches on the method name:
// Set goes to its recvFunction, Get is handed to software (docs/abi.md 5.1-5.5).
module rx_deserializer
  import arcalis_pkg::*;
(
  input  logic [15*8-1:0] head_i,       // message bytes 0..14
  input  logic [7:0]      avail_i,      // bytes of head_i that have arrived
  input  logic [31:0]     len_i,        // message length N
  input  logic [6:0]      split_i,      // bytes of the head in the first buffered line
  input  logic            err_lo_i,
  input  logic            err_hi_i,

  output logic            stall_o,      // wait for more lines
  output logic            dispatch_o,   // header done, start the Set recvFunction
  output result_e         result_o,     // ResNone unless the request ends here
  output logic [31:0]     offset_o,
  output logic [7:0]      msg_type_o,   // 0 until the version check passed
  output logic [7:0]      method_o,
  output logic [31:0]     seqid_o
);

  localparam int unsigned HdrBytes = 15;   // 4 version + 4 name length + "Set" + 4 seqid

  function automatic logic [7:0] hb(input int unsigned i);
    return head_i[i*8 +: 8];
  endfunction

  logic [31:0] ver, name_len, need;
  logic        fault, ver_ok, type_ok, is_set, is_get;

  assign ver      = {hb(0), hb(1), hb(2), hb(3)};
  assign name_len = {hb(4), hb(5), hb(6), hb(7)};
  assign need     = (len_i < HdrBytes) ? len_i : HdrBytes;
  assign stall_o  = {24'b0, avail_i} < need;
  assign fault    = (need != 0 && err_lo_i) || (need > {25'b0, split_i} && err_hi_i);

  assign ver_ok  = (ver[31:16] == 16'h8001) && (ver[15:8] == 8'h00);
  assign type_ok = (ver[7:0] == MsgCall) || (ver[7:0] == MsgOneway);
  assign is_set  = {hb(8), hb(9), hb(10)} == "Set";
  assign is_get  = {hb(8), hb(9), hb(10)} == "Get";

  always_comb begin
    dispatch_o = 1'b0;
    result_o   = ResNone;
    offset_o   = '0;
    msg_type_o = '0;
    method_o   = '0;
    seqid_o    = '0;
    // Header fields are recorded only once the checks before them passed.
    if (!stall_o && !fault && len_i >= 4 && ver_ok) begin
      msg_type_o = ver[7:0];
      if (type_ok && len_i >= 11 && name_len == 32'd3) begin
        method_o = is_set ? 8'd1 : is_get ? 8'd2 : 8'd0;
        if (len_i >= HdrBytes && (is_set || is_get)) seqid_o = {hb(11), hb(12), hb(13), hb(14)};
      end
    end
    if (!stall_o) begin
      if (fault) begin
        result_o = ResLoadFault;
      end else if (len_i < 4) begin
        result_o = ResTruncated;
      end else if (!ver_ok) begin
        result_o = ResBadVersion;
      end else if (!type_ok) begin
        result_o = ResBadMsgType;
      end else if (len_i < 8) begin
        result_o = ResTruncated;
        offset_o = 32'd4;
      end else if (name_len[31]) begin
        result_o = ResBadLength;
        offset_o = 32'd4;
      end else if (name_len != 32'd3) begin
        result_o = ResUnknownMethod;
        offset_o = 32'd4;
      end else if (len_i < 11) begin
        result_o = ResTruncated;
        offset_o = 32'd8;
      end else if (!is_set && !is_get) begin
        result_o = ResUnknownMethod;
        offset_o = 32'd8;
      end else if (len_i < HdrBytes) begin
        result_o = ResTruncated;
        offset_o = 32'd11;
      end else if (is_get) begin
        result_o = ResPassToSw;
        offset_o = HdrBytes;
      end else begin
        dispatch_o = 1'b1;
      end
    end
  end

endmodule
