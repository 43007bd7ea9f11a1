// Shared types, opcodes, result codes and widths of the Arcalís receive path.
// Every number here is fixed by docs/abi.md; change both together.
package arcalis_pkg;

  localparam int unsigned LineBytes  = 64;
  localparam int unsigned LineBits   = LineBytes * 8;
  localparam int unsigned AddrW      = 64;
  localparam int unsigned LineAddrW  = AddrW - 6;
  // Message lengths, positions and counts: MaxMessage < 2**24.
  localparam int unsigned LenW       = 24;
  // Lines of one message: ceil((63 + MaxMessage) / 64) < 2**18.
  localparam int unsigned LinesW     = 18;

  // App.Recv image (docs/abi.md section 6).
  localparam int unsigned KeyOffset   = 64;
  localparam int unsigned KeyMax      = 256;
  localparam int unsigned ValueOffset = 320;
  localparam int unsigned MinCapLines = ValueOffset / LineBytes;
  // Thrift's MaxFrameSize: the longest message the engine accepts.
  localparam logic [LenW-1:0] MaxMessage = 24'd16384000;
  // Lines the store queue holds: the output buffer's credits. A credit
  // comes back about eight cycles after the engine counts on it (output
  // buffer, FIFO, port, the registered pop and count), and at 64 bytes per
  // cycle a line ends every second cycle: four would be just enough, six
  // leave room (two kept up at 16 B/cycle only). Slots are LUT RAM.
  localparam int unsigned StoreSlots  = 6;
  localparam int unsigned CreditW     = 3;   // bits of a count 0..StoreSlots

  // A credit or slot count plus and minus one, bit by bit: one LUT a bit,
  // no carry chain, where the count feeds a handshake.
  function automatic logic [CreditW-1:0] count_up(input logic [CreditW-1:0] c);
    return {c[2] ^ (c[1] & c[0]), c[1] ^ c[0], ~c[0]};
  endfunction
  function automatic logic [CreditW-1:0] count_down(input logic [CreditW-1:0] c);
    return {c[2] ^ (~c[1] & ~c[0]), c[1] ^ ~c[0], ~c[0]};
  endfunction

  // Command opcodes, bits [3:0] of the UC store word (paper Table III).
  typedef enum logic [3:0] {
    CmdSendNetBuf   = 4'd1,
    CmdSendNetLen   = 4'd2,
    CmdAppReadyFlag = 4'd3,
    CmdSendAppResp  = 4'd4,
    CmdSendAppBuf   = 4'd5,
    CmdNetReadyFlag = 4'd6
  } opcode_e;

  // Central control FSM (paper Figure 10(a)).
  typedef enum logic [3:0] {
    StIdleRecv = 4'd0,
    StBusy     = 4'd1,
    StDrain    = 4'd2,
    StDone     = 4'd3,
    StIdleResp = 4'd4
  } state_e;

  typedef enum logic [7:0] {
    CmdErrNone          = 8'd0,
    CmdErrUnknownOpcode = 8'd1,
    CmdErrWrongState    = 8'd2,
    CmdErrNotReady      = 8'd3,
    CmdErrBadArg        = 8'd4
  } cmd_err_e;

  typedef enum logic [7:0] {
    ResNone              = 8'h00,
    ResOk                = 8'h01,
    // 8'h02 reserved: PASS_TO_SW, a Get before its recvFunction
    ResRespOk            = 8'h03,
    ResTruncated         = 8'h10,
    ResBadVersion        = 8'h11,
    ResBadMsgType        = 8'h12,
    ResUnknownMethod     = 8'h13,
    ResBadLength         = 8'h14,
    ResBadType           = 8'h15,
    ResNestedUnsupported = 8'h16,
    ResKeyTooLong        = 8'h17,
    ResValueTooLong      = 8'h18,
    ResMsgTooLarge       = 8'h19,
    ResLoadFault         = 8'h1A
  } result_e;

  // Thrift binary protocol type ids.
  typedef enum logic [7:0] {
    TStop   = 8'd0,
    TBool   = 8'd2,
    TByte   = 8'd3,
    TDouble = 8'd4,
    TI16    = 8'd6,
    TI32    = 8'd8,
    TI64    = 8'd10,
    TString = 8'd11,
    TStruct = 8'd12,
    TMap    = 8'd13,
    TSet    = 8'd14,
    TList   = 8'd15,
    TUuid   = 8'd16
  } ttype_e;

  // Message types in the strict header's low byte.
  localparam logic [7:0] MsgCall   = 8'd1;
  localparam logic [7:0] MsgOneway = 8'd4;

  // Operand registers of the Set recvFunction (App.Recv header bytes 0..23, 30).
  typedef struct packed {
    logic [4:0]  present;    // bit 0 req_id, 1 key, 2 value, 3 flags, 4 exptime
    logic [31:0] value_len;
    logic [31:0] key_len;
    logic [31:0] exptime;
    logic [31:0] flags;
    logic [63:0] req_id;
  } operands_t;

  // What the Deserializer and the end of the request add to the header line.
  typedef struct packed {
    logic [31:0] offset;
    logic [7:0]  method;
    logic [7:0]  msg_type;
    logic [7:0]  result;
    logic [31:0] seqid;
  } msg_info_t;

endpackage
