// The message header's check and the dispatch of a generated service
// (unit level): reads a CALL's strict binary header from the window (version
// and type, the method name's length and bytes, the seqid) and finds the
// method in the schema package's names, with golden/schemagold.CheckHeader
// as its reference, code for code and offset for offset: MSG_TOO_LARGE,
// TRUNCATED, BAD_VERSION, BAD_MSG_TYPE, BAD_LENGTH and UNKNOWN_METHOD. On OK
// it has taken the header's 12 + name length bytes, where recv_schema's args
// walk starts. Compile with +define+SCHEMA_PKG=<service>_schema_pkg.
//
// The window, take_o and stall_i are recv_schema's: take_o is a register,
// the bytes consumed at this edge, decided a cycle earlier when stall_i was
// 0; the window never loses bytes it showed. Every output is a register.
//
// The name's compare is the comparator of Figure 11 on a whole chunk: the
// name is read Width bytes at a time (fewer for its last chunk), each byte
// compared with every method's byte at that place, whose expected bytes are
// constants picked by the chunk's one-hot number; a method stays a
// candidate while its length and every chunk so far match. Each step reads
// registers only, at most two LUT levels or a short carry chain.
`ifndef SCHEMA_PKG
`define SCHEMA_PKG define_SCHEMA_PKG_as_a_generated_schema_package
`endif
module recv_header
  import arcalis_pkg::*;
  import `SCHEMA_PKG::*;
#(
  parameter int unsigned Width = 16            // window bytes, 8 or more
) (
  input  logic               clk_i,
  input  logic               rst_ni,

  input  logic               start_i,         // a new message; the window is at its byte 0
  input  logic               big_i,           // with start_i: the message is longer than MaxMessage
  input  logic               stall_i,         // no action next cycle: decide nothing now
  input  logic [Width*8-1:0] win_i,           // message bytes from the head, byte 0 in bits 7:0
  input  logic [7:0]         avail_i,         // how many of them are there (<= Width, <= rem_i)
  input  logic [LenW-1:0]    rem_i,           // message bytes from the head to the end
  output logic [7:0]         take_o,          // bytes consumed at this edge (a register)

  output logic               done_o,          // the check has ended: the fields below hold
  output logic [7:0]         code_o,          // OK (the args follow) or the fault's code
  output logic [LenW-1:0]    offset_o,        // the fault's message offset; OK: 12 + the name's length
  output logic [7:0]         msg_type_o,      // the header's type byte, once the version is good
  output logic [7:0]         method_o,        // 1 + the method's index, once the name matched
  output logic [31:0]        seqid_o          // OK only
);

  localparam int unsigned NM  = NumMethods;
  localparam int unsigned NL  = MaxNameLen;
  localparam int unsigned NC  = (NL + Width - 1) / Width;  // name chunks at most
  localparam int unsigned LW  = NameLenW;                   // bits of a name's length
  localparam int unsigned GN  = (Width + 5) / 6;            // a chunk's compare in six-byte groups
  localparam int unsigned MW  = $clog2(NM + 1);             // bits of 1 + a method's index
  localparam int unsigned WLg = $clog2(Width);
  localparam int unsigned HZ  = (32 - LW + 5) / 6;          // groups of six of a length's bits above a name's

  // Which groups of six of x's bits above a name's length are 0: one LUT
  // each, so that their AND is one more wherever it is read (a register
  // of the whole 26-bit compare was mapped with MUXFs in one context).
  function automatic logic [HZ-1:0] hi_zero(input logic [31:0] x);
    for (int g = 0; g < HZ; g++) begin
      hi_zero[g] = 1'b1;
      for (int b = 0; b < 6; b++)
        if (LW + 6 * g + b < 32) hi_zero[g] = hi_zero[g] & !x[LW + 6 * g + b];
    end
  endfunction

  // The names by chunk: byte j of chunk c of method m at ((m * NC + c) *
  // Width + j) * 8 (0 past the name's end, where the chunk's mask is 0).
  function automatic logic [NM*NC*Width*8-1:0] name_tab();
    logic [NL*8-1:0] n;
    name_tab = '0;
    for (int m = 0; m < NM; m++) begin
      n = method_name(MethodIdxW'(m));
      for (int b = 0; b < NC * Width; b++)
        if (b < NL) name_tab[((m * NC) * Width + b) * 8 +: 8] = n[b * 8 +: 8];
    end
  endfunction
  localparam logic [NM*NC*Width*8-1:0] NameTab = name_tab();

  // x plus or minus 1 in LUTs, one per bit (its lower bits' AND or OR): a
  // constant's add would be a carry chain behind an inverter, a route
  // longer than the margin allows.
  function automatic logic [8:0] inc9(input logic [8:0] x);
    for (int k = 0; k < 9; k++) inc9[k] = x[k] ^ ((k == 0) ? 1'b1 : &(x | ~9'((1 << k) - 1)));
  endfunction
  function automatic logic [8:0] dec9(input logic [8:0] x);
    for (int k = 0; k < 9; k++) dec9[k] = x[k] ^ ((k == 0) ? 1'b1 : !(|(x & 9'((1 << k) - 1))));
  endfunction

  typedef enum logic [16:0] {
    SIdle  = 17'b00000000000000001,
    S0     = 17'b00000000000000010,   // the length's flags
    S1     = 17'b00000000000000100,   // too large, or under 4 bytes
    SHd    = 17'b00000000000001000,   // waiting for the first 8 bytes (all of a shorter message)
    SChk   = 17'b00000000000010000,   // bytes 0..7 against the constants
    SChk2  = 17'b00000000000100000,   // the name's length against the names' and the message's
    SChk3  = 17'b00000000001000000,   // the verdicts on bytes 0..7
    SVer   = 17'b00000000010000000,   // a fault, or take 8
    STk    = 17'b00000000100000000,   // the take's cycle: the window moves after it
    SName  = 17'b00000001000000000,   // waiting for the chunk's bytes
    SNameK = 17'b00000010000000000,   // the chunk's bytes against every name's; take them
    SNameA = 17'b00000100000000000,   // six-byte groups; the bytes left
    SNameB = 17'b00001000000000000,   // the candidates
    SMethW = 17'b00010000000000000,   // the first candidate
    SMeth  = 17'b00100000000000000,   // the verdict on the name and the message's end
    SSeq   = 17'b01000000000000000,   // waiting for the seqid; take 4
    SEnd   = 17'b10000000000000000    // the seqid's take
  } hdr_state_e;
  hdr_state_e state_q, state_d;
  logic       was_hd_q, was_name_q, was_seq_q; // the step's state held last cycle too

  // The message's length and bytes 0..7, and what their compares found.
  logic [8:0]            n_q;                    // the length's low bits (the rest: n_hi0_q)
  logic                  n_hi0_q, big_q, n_lt4_q, n_lt8_q, n_lt12_q;
  logic [8:0]            nm8_q, nm12_q;          // the length minus 8, minus 12
  logic [3:0]            need_hd_q;              // bytes 0..7, or all of a shorter message
  logic [63:0]           hd_q;
  logic                  ver_bad_q, type_bad_q, l_neg_q, hit_any_q;
  logic [HZ-1:0]         l_hz_q;                 // the length's high bits by six: group g is 0 (hi_zero)
  logic [NM-1:0]         l_hit_q;                // the length is method m's
  logic [7:0]            lq_q;                   // the length's low byte (a name's length is below 256)
  logic [8:0]            l8_q, l12_q;            // 8 + length, 12 + length
  logic                  gt8_q, gt12_q;          // length > n - 8, > n - 12 (one chain each)
  // The verdicts on bytes 0..7, one-hot in the reference's order, and any.
  logic                  v_ver_q, v_type_q, v_t4_q, v_neg_q, v_unk4_q, v_t8_q, v_any_q;
  logic                  t12_q;                  // the message ends before the seqid's end
  // The name: the chunk (one-hot), bytes left, the chunk's size, mask and bytes.
  logic [NC-1:0]         c_q;
  logic [8:0]            left_q;
  logic                  gtw_q;                  // left_q > Width, a cycle later
  logic [7:0]            need_q;                 // min(Width, left_q) two cycles later; never less in between
  logic [Width-1:0]      msk_q;                  // byte j is the name's: j < left_q, a cycle later
  logic [Width*8-1:0]    nw_q;
  logic [NM*Width*8-1:0] exp_q;                  // the chunk's bytes of every name, a cycle after c_q
  // (Flat vectors: Yosys 0.23 reads no multi-dimensional packed array.)
  logic [NM*Width-1:0]   beq_q;                  // bit m * Width + j: byte j is method m's, or masked
  logic [NM*GN-1:0]      geq_q;                  // six-byte groups of them
  logic [NM-1:0]         cand_q;                 // still a candidate
  logic [MW-1:0]         meth_q;                 // 1 + the first candidate
  logic                  none_q;
  // What the window holds, as a step waits for it (last cycle's avail_i:
  // the window never loses bytes it showed).
  logic                  rdy_hd_q, rdy_nm_q, rdy_seq_q;
  // The action, the end (a cycle before the result shows it) and the result.
  logic [7:0]            take_q, take_d;
  logic                  fin_q;
  logic [7:0]            fcode_q;
  logic [8:0]            foff_q;
  logic                  done_q;
  logic [7:0]            code_q, type_q;
  logic [MW-1:0]         meth_out_q;
  logic [8:0]            off_q;                  // at most 12 + 255
  logic [31:0]           seq_q;

  logic [31:0] l;                                // the name's length: bytes 4..7, big-endian
  assign l = {hd_q[39:32], hd_q[47:40], hd_q[55:48], hd_q[63:56]};

  // A step's end: a fault, or OK; the fault's code and offset, each step's
  // ANDed in (registered: the result shows them a cycle later).
  logic            fail, ok_end;
  logic [7:0]      f_code;
  logic [8:0]      f_off;
  always_comb begin
    state_d = state_q;
    take_d  = '0;
    fail    = 1'b0;
    ok_end  = 1'b0;
    unique case (state_q)
      SIdle: ;
      S0:    state_d = S1;
      S1:    if (big_q || n_lt4_q) fail = 1'b1; else state_d = SHd;
      SHd:   if (was_hd_q && rdy_hd_q) state_d = SChk;
      SChk:  state_d = SChk2;
      SChk2: state_d = SChk3;
      SChk3: state_d = SVer;
      SVer: begin
        if (v_any_q) begin
          fail = 1'b1;
        end else if (!stall_i) begin
          take_d  = 8'd8;
          state_d = STk;
        end
      end
      STk:    state_d = SName;
      SName:  if (was_name_q && rdy_nm_q) state_d = SNameK;
      SNameK: if (!stall_i) begin
        take_d  = need_q;
        state_d = SNameA;
      end
      SNameA: state_d = SNameB;
      SNameB: state_d = (left_q == '0) ? SMethW : SName;
      SMethW: state_d = SMeth;
      SMeth:  if (none_q || t12_q) fail = 1'b1; else state_d = SSeq;
      SSeq: if (was_seq_q && rdy_seq_q && !stall_i) begin
        take_d  = 8'd4;
        state_d = SEnd;
      end
      SEnd: ok_end = 1'b1;
      default: ;
    endcase
    if (fail || ok_end) state_d = SIdle;
    f_code = ({8{state_q == S1 && big_q}} & 8'(ScMsgTooLarge)) |
             ({8{state_q == S1 && !big_q}} & 8'(ScTruncated)) |
             ({8{state_q == SVer}} & (({8{v_ver_q}} & 8'(ScBadVersion)) | ({8{v_type_q}} & 8'(ScBadMsgType)) |
                                       ({8{v_t4_q || v_t8_q}} & 8'(ScTruncated)) | ({8{v_neg_q}} & 8'(ScBadLength)) |
                                       ({8{v_unk4_q}} & 8'(ScUnknownMethod)))) |
             ({8{state_q == SMeth && none_q}} & 8'(ScUnknownMethod)) |
             ({8{state_q == SMeth && !none_q}} & 8'(ScTruncated)) |
             ({8{state_q == SEnd}} & 8'(ScOk));
    f_off  = ({9{state_q == SVer && (v_t4_q || v_neg_q || v_unk4_q)}} & 9'd4) |
             ({9{state_q == SVer && v_t8_q}} & 9'd8) |
             ({9{state_q == SMeth && none_q}} & 9'd8) |
             ({9{state_q == SMeth && !none_q}} & l8_q) |
             ({9{state_q == SEnd}} & l12_q);
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= SIdle;
      take_q  <= '0;
      fin_q   <= 1'b0;
      done_q  <= 1'b0;
    end else if (start_i) begin
      state_q <= S0;
      take_q  <= '0;
      fin_q   <= 1'b0;
      done_q  <= 1'b0;
    end else begin
      state_q <= state_d;
      take_q  <= take_d;
      fin_q   <= fail || ok_end;
      done_q  <= done_q || fin_q;
    end
  end

  // The result: cleared at start_i, each field written once.
  always_ff @(posedge clk_i) begin
    fcode_q <= f_code;
    foff_q  <= f_off;
    if (start_i) begin
      code_q     <= '0;
      off_q      <= '0;
      type_q     <= '0;
      meth_out_q <= '0;
      seq_q      <= '0;
    end else begin
      if (fin_q) begin
        code_q <= fcode_q;
        off_q  <= foff_q;
      end
      // The type byte once the version is good; the method once the name matched.
      if (state_q == SVer && !ver_bad_q) type_q <= hd_q[31:24];
      if (state_q == SMeth && !none_q) meth_out_q <= meth_q;
      if (state_q == SSeq) seq_q <= {win_i[7:0], win_i[15:8], win_i[23:16], win_i[31:24]};
    end
  end

  // The chunk's expected bytes, its groups' verdicts, the first candidate.
  logic [NM*Width*8-1:0] exp_b;                  // byte m * Width + j
  logic [NM*GN-1:0]      grp;
  logic [NM-1:0]         cand_ok;
  logic [MW-1:0]         first;
  always_comb begin
    for (int m = 0; m < NM; m++)
      for (int j = 0; j < Width; j++) begin
        exp_b[(m * Width + j) * 8 +: 8] = '0;
        for (int c = 0; c < NC; c++)
          exp_b[(m * Width + j) * 8 +: 8] = exp_b[(m * Width + j) * 8 +: 8] |
                                            ({8{c_q[c]}} & NameTab[((m * NC + c) * Width + j) * 8 +: 8]);
      end
    for (int m = 0; m < NM; m++) begin
      for (int g = 0; g < GN; g++) begin
        grp[m * GN + g] = 1'b1;
        for (int j = g * 6; j < g * 6 + 6; j++)
          if (j < Width) grp[m * GN + g] = grp[m * GN + g] & beq_q[m * Width + j];
      end
      cand_ok[m] = &geq_q[m * GN +: GN];
    end
    first = '0;
    for (int m = NM - 1; m >= 0; m--)
      if (cand_q[m]) first = MW'(m + 1);
  end

  // The constant adds below, bit by bit: n - 8 and - 12, l + 8 and + 12,
  // left_q - Width.
  /* verilator lint_off UNUSEDSIGNAL */      // (the bits above each operand's are not read)
  logic [8:0] dn8, dn12, il8, il12, dleft;
  /* verilator lint_on UNUSEDSIGNAL */
  assign dn8   = dec9(9'(n_q[8:3]));
  assign dn12  = dec9(9'(nm8_q[8:2]));
  assign il8   = inc9(9'(lq_q[7:3]));
  assign il12  = inc9(9'(l8_q[8:2]));
  assign dleft = dec9(9'(left_q[8:WLg]));

  // A byte's compare in kept parts of at most six inputs, two LUT levels
  // with the AND (ABC would otherwise build it of muxes, a level deeper).
  (* keep *) logic [NM*Width*3-1:0] part;
  always_comb
    for (int m = 0; m < NM; m++)
      for (int j = 0; j < Width; j++) begin
        part[(m * Width + j) * 3]     = nw_q[j*8 +: 3] == exp_q[(m * Width + j) * 8 +: 3];
        part[(m * Width + j) * 3 + 1] = nw_q[j*8 + 3 +: 3] == exp_q[(m * Width + j) * 8 + 3 +: 3];
        part[(m * Width + j) * 3 + 2] = nw_q[j*8 + 6 +: 2] == exp_q[(m * Width + j) * 8 + 6 +: 2];
      end

  // The datapath: captures, compares and counts, each from registers.
  always_ff @(posedge clk_i) begin
    was_hd_q   <= state_q == SHd;
    was_name_q <= state_q == SName;
    was_seq_q  <= state_q == SSeq;
    rdy_hd_q   <= avail_i >= 8'(need_hd_q);
    rdy_nm_q   <= avail_i >= need_q;
    rdy_seq_q  <= avail_i[7:2] != '0;
    if (start_i) begin
      n_q     <= rem_i[8:0];
      n_hi0_q <= rem_i[LenW-1:9] == '0;
      big_q   <= big_i;
    end
    // S0: the length's flags (n < 512 below these).
    if (state_q == S0) begin
      n_lt4_q   <= n_hi0_q && n_q[8:2] == '0;
      n_lt8_q   <= n_hi0_q && n_q[8:3] == '0;
      n_lt12_q  <= n_hi0_q && n_q[8:4] == '0 && !(n_q[3] && n_q[2]);
      nm8_q     <= {dn8[5:0], n_q[2:0]};
    end
    if (state_q == S1) need_hd_q <= {!n_lt8_q, {3{n_lt8_q}} & n_q[2:0]};   // min(8, n)
    nm12_q <= {dn12[6:0], nm8_q[1:0]};
    if (state_q == SHd) hd_q <= win_i[63:0];
    // SChk: bytes 0..7 against the constants.
    ver_bad_q  <= hd_q[23:0] != {8'h00, VersionWin};
    type_bad_q <= hd_q[31:24] != 8'd1 && hd_q[31:24] != 8'd4;      // CALL, ONEWAY
    l_neg_q    <= l[31];
    l_hz_q     <= hi_zero(l);
    for (int m = 0; m < NM; m++)                                     // (the method byte names 255 at most)
      l_hit_q[m] <= l[LW-1:0] == method_name_len(MethodIdxW'(m)) && m < 255;
    lq_q <= l[7:0];
    // SChk2: the name's length against the message's end and the names'.
    gt8_q     <= 9'(lq_q) > nm8_q;
    gt12_q    <= 9'(lq_q) > nm12_q;
    hit_any_q <= &l_hz_q && l_hit_q != '0;
    l8_q      <= {il8[5:0], lq_q[2:0]};
    l12_q     <= {il12[6:0], l8_q[1:0]};
    // SChk3: the verdicts, in the reference's order (n < 8 + l: n >= 8 here).
    v_ver_q  <= ver_bad_q;
    v_type_q <= !ver_bad_q && type_bad_q;
    v_t4_q   <= !ver_bad_q && !type_bad_q && n_lt8_q;
    v_neg_q  <= !ver_bad_q && !type_bad_q && !n_lt8_q && l_neg_q;
    v_unk4_q <= !ver_bad_q && !type_bad_q && !n_lt8_q && !l_neg_q && !hit_any_q;
    v_t8_q   <= !ver_bad_q && !type_bad_q && !n_lt8_q && !l_neg_q && hit_any_q && n_hi0_q && gt8_q;
    v_any_q  <= ver_bad_q || type_bad_q || n_lt8_q || l_neg_q || !hit_any_q || (n_hi0_q && gt8_q);
    t12_q    <= n_hi0_q && (n_lt12_q || gt12_q);
    // The name, a chunk at a time: left_q loaded in SVer, less a chunk in
    // SNameA; the chunk's size and mask follow it (SName waits for them).
    if (state_q == SVer) begin
      c_q    <= NC'(1);
      left_q <= 9'(lq_q);
      cand_q <= {NM{&l_hz_q}} & l_hit_q;
    end
    if (state_q == SNameA)
      left_q <= {9{gtw_q}} & {dleft[8-WLg:0], left_q[WLg-1:0]};
    gtw_q  <= left_q > 9'(Width);
    need_q <= gtw_q ? 8'(Width) : 8'(left_q);
    for (int j = 0; j < Width; j++) msk_q[j] <= 9'(j) < left_q;
    if (state_q == SName) nw_q <= win_i;
    for (int m = 0; m < NM; m++)
      for (int j = 0; j < Width; j++)
        beq_q[m * Width + j] <= !msk_q[j] || &part[(m * Width + j) * 3 +: 3];
    exp_q <= exp_b;
    geq_q <= grp;
    if (state_q == SNameB) begin
      cand_q <= cand_q & cand_ok;
      c_q    <= NC'(c_q << 1);
    end
    none_q <= cand_q == '0;
    meth_q <= first;
  end

  assign take_o     = take_q;
  assign done_o     = done_q;
  assign code_o     = code_q;
  assign offset_o   = LenW'(off_q);
  assign msg_type_o = type_q;
  assign method_o   = 8'(meth_out_q);
  assign seqid_o    = seq_q;

  // A name of 256 bytes or more would need wider counts than these.
  if (NL > 255) begin : g_name_len
    $error("recv_header: a method name of %0d bytes: at most 255", NL);
  end

endmodule
