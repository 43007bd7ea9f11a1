// The generic respFunction (unit level): reads the result struct of an
// App.Resp image (docs/idl.md, "App.Resp image of a generated service")
// and writes its Thrift binary encoding, everything after the REPLY's
// message header (field headers, values, nested structs, lists, sets,
// maps, STOPs), configured by the schema package `arcalis idl compile`
// generates for the service (compile with +define+SCHEMA_PKG=<pkg>).
// golden/schemagold.Serialize is its reference, rule for rule: field
// order, zero values of absent fields, presence, descriptor bounds,
// alignment and overlap, depth and element limits, codes and offsets.
//
// Unit-level: the image is a read port (one 8-byte word per request,
// answers in order, any latency), the bytes leave Width a beat at most
// (one item a beat: a field header, a value, a string length, up to 8
// string bytes, a container header, a STOP). The header line's checks
// and the message header (version, name, seqid) are the caller's, before
// start_i. Every output is a register; out_stall_i (a cycle ahead, as
// recv_schema's stall_i) holds back the beat of the next cycle.
`ifndef SCHEMA_PKG
`define SCHEMA_PKG define_SCHEMA_PKG_as_a_generated_schema_package
`endif
module resp_schema
  import arcalis_pkg::*;
  import `SCHEMA_PKG::*;
#(
  parameter int unsigned Width = 16,          // output bytes a beat, 8 or more
  localparam int unsigned AW = 22             // image byte addresses: capacity up to 0xFFFF lines
) (
  input  logic               clk_i,
  input  logic               rst_ni,

  input  logic               start_i,         // walk method_i's result record at 64 (done_o holds until then)
  /* verilator lint_off UNUSEDSIGNAL */      // (the bits above the package's MethodIdxW)
  input  logic [7:0]         method_i,        // index in the tables' methods
  /* verilator lint_on UNUSEDSIGNAL */
  input  logic [AW-1:0]      area_end_i,      // the header line's area end (checked: 8-aligned, past the result record)

  output logic               rd_req_o,        // an image read: the 8 bytes at rd_addr_o
  output logic [AW-1:0]      rd_addr_o,
  input  logic [63:0]        rd_data_i,       // an answer, in request order, byte 0 in bits 7:0
  input  logic               rd_valid_i,

  output logic               out_valid_o,     // a beat of the reply: out_len_o bytes from byte 0 (bits 7:0)
  output logic [Width*8-1:0] out_data_o,
  output logic [7:0]         out_len_o,
  input  logic               out_stall_i,     // no beat next cycle

  output logic               done_o,          // the walk has ended: code_o and offset_o hold
  output logic [7:0]         code_o,          // RESP_OK or the fault's code
  output logic [31:0]        offset_o         // RESP_OK: bytes written; else the image offset at fault
);

  localparam int unsigned MaxLevels = SchemaStackDepth;          // schemagold.MaxDepth
  // Frames: the service's deepest nesting, at most MaxLevels; the top one
  // in f_q, those below in stk_q (at least one entry, unused at depth 1).
  localparam int unsigned NF = (MaxDepth < MaxLevels) ? MaxDepth : MaxLevels;
  localparam int unsigned NB = (NF > 1) ? NF - 1 : 1;
  localparam int unsigned SpW = 4;
  localparam int unsigned NW = 40;                               // byte counts and sizes of descriptors

  // ---- Schema table lookups ----
  // The sizes and offsets are the package's (generated from
  // golden/schemagold's layout rules), the wire rules arcalis_pkg's.
  // The presence bits of a struct's fields (the others must be 0).
  function automatic logic [63:0] pres_mask(input logic [StructIdxW-1:0] s);
    for (int k = 0; k < 64; k++) pres_mask[k] = k < 32'(struct_count(s));
  endfunction
  // Two or more bits of w set: per byte, then over the bytes (LUT trees,
  // no carry chain).
  function automatic logic two_or_more(input logic [63:0] w);
    logic [7:0] any, two;
    logic       seen, m;
    for (int g = 0; g < 8; g++) begin
      seen = 1'b0; m = 1'b0;
      for (int b = 0; b < 8; b++) begin
        m    = m | (seen & w[8*g+b]);
        seen = seen | w[8*g+b];
      end
      any[g] = seen; two[g] = m;
    end
    seen = 1'b0; m = 1'b0;
    for (int g = 0; g < 8; g++) begin
      m    = m | (seen & any[g]);
      seen = seen | any[g];
    end
    two_or_more = m | (two != '0);
  endfunction
  // A big-endian 32-bit count as wire bytes (byte 0 in bits 7:0).
  function automatic logic [31:0] be32(input logic [31:0] n);
    be32 = {n[7:0], n[15:8], n[23:16], n[31:24]};
  endfunction

  // ---- The stack ----
  // A frame: a struct being written (its record, presence word, next
  // field) or a list, set or map (its next item's address, items left, a
  // map's entries being two items each).
  typedef struct packed {
    logic                  cont;      // a container (else a struct)
    logic                  ismap;
    logic                  isval;     // map: the next item is a value
    logic [StructIdxW-1:0] st;        // struct: its index
    logic [AW-1:0]         rec;       // struct: its record; container: the next item
    logic [63:0]           pres;      // struct: its presence word, shifted right a field at a time
    logic [6:0]            k;         // struct: its next field
    logic [16:0]           left;      // container: items left
    logic [TypeIdxW-1:0]   elem, key; // container: element (map: value) and key types
    logic [AW-1:0]         esz, ksz;  // container: their sizes in the array
  } frame_t;
  // $bits(frame_t), which Yosys 0.23 does not read (checked below).
  localparam int unsigned FW = 3 + StructIdxW + 3 * AW + 64 + 7 + 17 + 2 * TypeIdxW;

  // Every step decides from registers: a table lookup or a compare takes
  // its own step, an image read waits for its answer in a register.
  typedef enum logic [4:0] {
    SIdle, SStart, SPres, SPresW, SPresK, SPresD, SField, SFld2, SFld3, SHdr, SStop,
    SZero, SVal, SValW, SValK, SValD, SMul, SMul2, SBlk1, SBlk1b, SBlk2, SStrL, SStr,
    SElem, SElem2, SElem3, SPop0, SPop1
  } walk_e;
  typedef enum logic [1:0] {BStr, BStruct, BCont} blk_e;

  walk_e                state_q, state_d;
  frame_t                f_q, f_d, fb_q, nf;
  logic [NB*FW-1:0]      stk_q;
  logic [SpW-1:0]        sp_q, sp_d;             // frames, the top one included (its nesting level)
  logic                  sp_full_q;              // sp_q is MaxLevels: no level below it may nest
  logic                  push;
  logic [MethodIdxW-1:0] m_q;
  logic [AW-1:0]         aend_q;
  logic [AW-1:0]         ptr_q, ptr_d;           // every block read so far lies below it
  // The field at hand: its index, whether it is the struct's end, present,
  // skipped (absent optional or union member), its header and slot.
  logic [FieldIdxW-1:0]  fi_q, fi_d;
  logic                  end_q, end_d, has_q, has_d, skip_q, skip_d;
  logic [4:0]            h_wire_q, h_wire_d;
  logic [15:0]           h_id_q, h_id_d;
  logic [AW-1:0]         slot_q, slot_d;
  // The value at hand (operand registers): its type and slot, and what
  // the tables say of the type, a cycle after v_ti_q.
  logic [TypeIdxW-1:0]   v_ti_q, v_ti_d;
  logic [AW-1:0]         v_at_q, v_at_d;
  logic [4:0]            d_wire_q, d_ew_q, d_kw_q;
  logic [3:0]            d_size_q;
  logic [StructIdxW-1:0] d_st_q;
  logic [TypeIdxW-1:0]   d_elem_q, d_key_q;
  logic [AW-1:0]         d_rsz_q, d_unit_q, d_esz_q, d_ksz_q;
  logic                  d_nest_q, d_cont_q, d_map_q;   // a struct or container; a container; a map
  logic [63:0]           rdat_q, rdat_d;         // the word read
  logic                  r_zero_q, r_big_q, r_rszne_q;  // its count: 0, above MaxElements, not the record's size
  // A presence word's checks.
  logic                  p_hi_q, p_zero_q, p_multi_q, p_void_q;
  logic [2:0]            p_kind_q;
  // A block (record, array, string) its descriptor gives: where, how big, what.
  logic [31:0]           b_off_q, b_off_d;
  logic [NW-1:0]         b_size_q, b_size_d;
  blk_e                  b_kind_q, b_kind_d;
  logic                  b_bad_q, b_ovl_q, b_out_q;
  logic [32:0]           b_room_q;               // area end - offset
  // An array's size: count times unit by shift and add.
  logic [15:0]           n_q, n_d;
  logic [NW-1:0]         acc_q, acc_d, mb_q, mb_d;
  logic [AW-1:0]         mu_q, mu_d;
  // A string's bytes: words left to write, to request, the next
  // word's address, and up to four words on their way or waiting (fifo).
  logic [AW-4:0]         s_words_q, s_words_d;   // words left to write out
  logic [2:0]            s_tail_q, s_tail_d;     // the last word's bytes mod 8
  logic [AW-4:0]         s_req_q, s_req_d;
  logic [AW-1:0]         s_raddr_q, s_raddr_d;
  logic [2:0]            s_occ_q, s_occ_d;       // requested and not yet written out
  logic [2:0]            s_cnt_q, s_cnt_d;       // words in the fifo
  logic [1:0]            s_wp_q, s_rp_q, s_rp_d;
  logic [4*64-1:0]       s_fifo_q;
  logic [63:0]           s_head;
  logic                  s_emit, s_req;
  // The outputs, registered.
  logic                  rd_req_q, rd_req_d;
  logic [AW-1:0]         rd_addr_q, rd_addr_d;
  logic                  ov_q, ov_d;
  logic [63:0]           od_q, od_d;
  logic [7:0]            ol_q, ol_d;
  logic [31:0]           cnt_q;                  // bytes written (the beats so far)
  logic                  done_q, done_d;
  schema_code_e          code_q, code_d;
  logic [31:0]           off_q, off_d;

  // The walk ends now with fail_code at image offset fail_off.
  logic                  fail;
  schema_code_e          fail_code;
  logic [AW-1:0]         fail_off;
  // Module-scope temporaries (Yosys 0.23).
  logic [FieldIdxW-1:0]  fi;
  logic [31:0]           n32;
  walk_e                nxt;                    // the top frame's next step
  assign nxt = f_q.cont ? SElem : SField;

  // The frame below the top, as the stack holds it (level sp_q - 1).
  logic [FW-1:0]         fbv;
  always_comb begin
    fbv = '0;
    for (int k = 0; k < NB; k++) if (sp_q == SpW'(k + 2)) fbv = stk_q[k*FW +: FW];
  end
  assign s_head = s_fifo_q[64*s_rp_q +: 64];

  always_comb begin
    state_d = state_q;
    f_d     = f_q;
    sp_d    = sp_q;
    ptr_d   = ptr_q;
    {fi_d, end_d, has_d, skip_d, h_wire_d, h_id_d, slot_d} = {fi_q, end_q, has_q, skip_q, h_wire_q, h_id_q, slot_q};
    {v_ti_d, v_at_d, rdat_d} = {v_ti_q, v_at_q, rdat_q};
    {b_off_d, b_size_d, b_kind_d} = {b_off_q, b_size_q, b_kind_q};
    {n_d, acc_d, mb_d, mu_d} = {n_q, acc_q, mb_q, mu_q};
    {s_words_d, s_tail_d, s_req_d, s_raddr_d, s_occ_d, s_cnt_d, s_rp_d} = {s_words_q, s_tail_q, s_req_q, s_raddr_q, s_occ_q, s_cnt_q, s_rp_q};
    {done_d, code_d, off_d} = {done_q, code_q, off_q};
    rd_req_d  = 1'b0;
    rd_addr_d = rd_addr_q;
    ov_d = 1'b0; od_d = '0; ol_d = '0;
    fail = 1'b0; fail_code = ScNone; fail_off = v_at_q;
    push = 1'b0; nf = '0;
    fi = '0; n32 = rdat_q[63:32];
    s_emit = 1'b0; s_req = 1'b0;

    if (start_i) begin
      done_d  = 1'b0;
      state_d = SStart;
    end else begin
      unique case (state_q)
        SIdle: ;

        // The result record at 64, its presence word first.
        SStart: begin
          f_d      = '0;
          f_d.st   = method_result(m_q);
          f_d.rec  = AW'(SchemaAreaStart);
          sp_d     = SpW'(1);
          ptr_d    = AW'(SchemaAreaStart) + AW'(struct_size(method_result(m_q)));
          state_d  = SPres;
        end

        // A struct's presence word: read, checked (bits of no field, a
        // result's or a union's count), then its fields.
        SPres: begin
          rd_req_d  = 1'b1;
          rd_addr_d = f_q.rec;
          state_d   = SPresW;
        end
        SPresW: if (rd_valid_i) begin
          f_d.pres = rd_data_i;
          state_d  = SPresK;
        end
        SPresK: state_d = SPresD;
        SPresD: begin
          if (p_hi_q || (p_kind_q == KindResult && p_multi_q) || (p_kind_q == KindUnion && (p_zero_q || p_multi_q))) begin
            fail = 1'b1; fail_code = ScBadPresence; fail_off = f_q.rec;
          end else if (p_kind_q == KindResult && p_zero_q && !p_void_q) begin
            fail = 1'b1; fail_code = ScNoResult; fail_off = f_q.rec;
          end else begin
            f_d.k   = '0;
            state_d = SField;
          end
        end

        // A struct's next field (ascending id order), or its STOP.
        SField: begin
          fi_d    = FieldIdxW'(32'(struct_first(f_q.st)) + 32'(f_q.k));   // unused at the struct's end
          end_d   = 32'(f_q.k) == 32'(struct_count(f_q.st));
          has_d   = f_q.pres[0];
          state_d = SFld2;
        end
        SFld2: begin
          if (end_q) begin
            state_d = SStop;
          end else begin
            fi       = fi_q;
            h_wire_d = field_wire(fi);
            h_id_d   = field_id(fi);
            v_ti_d   = field_type(fi);
            // Apache writes an optional field, or a union's, only when set.
            skip_d   = !has_q && (field_req(fi) == 2'd2 || struct_kind(f_q.st) == KindUnion);
            slot_d   = AW'(field_offset(fi));
            f_d.k    = f_q.k + 1'b1;
            f_d.pres = f_q.pres >> 1;
            state_d  = SFld3;
          end
        end
        SFld3: begin
          v_at_d  = f_q.rec + slot_q;
          state_d = skip_q ? SField : SHdr;
        end
        SHdr: if (!out_stall_i) begin
          ov_d = 1'b1; ol_d = 8'd3;
          od_d = 64'({h_id_q[7:0], h_id_q[15:8], 3'b000, h_wire_q});
          state_d = has_q ? SVal : SZero;
        end
        SStop: if (!out_stall_i) begin
          ov_d = 1'b1; ol_d = 8'd1;
          state_d = SPop0;
        end

        // An absent field that is not optional: the Go zero value (a
        // struct: its STOP; a container: its header, count 0).
        SZero: begin
          if (d_nest_q && sp_full_q) begin
            fail = 1'b1; fail_code = ScDepthExceeded;
          end else if (d_size_q == '0 && d_wire_q != WireString && !d_nest_q) begin
            fail = 1'b1; fail_code = ScBadType;
          end else if (!out_stall_i) begin
            ov_d = 1'b1;
            if (d_size_q != '0)          ol_d = 8'(d_size_q);
            else if (d_wire_q == WireString) ol_d = 8'd4;
            else if (!d_cont_q)          ol_d = 8'd1;
            else if (d_map_q) begin      ol_d = 8'd6; od_d[15:0] = {3'b000, d_ew_q, 3'b000, d_kw_q}; end
            else begin                   ol_d = 8'd5; od_d[7:0] = {3'b000, d_ew_q}; end
            state_d = nxt;
          end
        end

        // A present value: its slot or descriptor.
        SVal: begin
          if (d_nest_q && sp_full_q) begin
            fail = 1'b1; fail_code = ScDepthExceeded;
          end else if (d_size_q == '0 && d_wire_q != WireString && !d_nest_q) begin
            fail = 1'b1; fail_code = ScBadType;       // UUID: no slot holds one
          end else begin
            rd_req_d  = 1'b1;
            rd_addr_d = v_at_q;
            state_d   = SValW;
          end
        end
        SValW: if (rd_valid_i) begin
          rdat_d  = rd_data_i;
          state_d = SValK;
        end
        SValK: state_d = SValD;                       // r_*_q: what the descriptor's count says
        SValD: begin
          b_off_d = rdat_q[31:0];
          if (d_size_q != '0) begin
            if (!out_stall_i) begin
              ov_d = 1'b1; ol_d = 8'(d_size_q);
              unique case (d_size_q)
                4'd1:    od_d[7:0]  = (d_wire_q == WireBool) ? 8'(rdat_q[7:0] != '0) : rdat_q[7:0];
                4'd2:    od_d[15:0] = {rdat_q[7:0], rdat_q[15:8]};
                4'd4:    od_d[31:0] = be32(rdat_q[31:0]);
                default: od_d       = {be32(rdat_q[31:0]), be32(rdat_q[63:32])};
              endcase
              state_d = nxt;
            end
          end else if (d_wire_q == WireString) begin
            if (r_zero_q) begin
              if (!out_stall_i) begin
                ov_d = 1'b1; ol_d = 8'd4;
                state_d = nxt;
              end
            end else begin
              b_size_d = (NW'(n32) + NW'(7)) & ~NW'(7);
              b_kind_d = BStr;
              state_d  = SBlk1;
            end
          end else if (!d_cont_q) begin
            if (r_rszne_q) begin
              fail = 1'b1; fail_code = ScBadDescriptor;
            end else begin
              b_size_d = NW'(n32);
              b_kind_d = BStruct;
              state_d  = SBlk1;
            end
          end else if (r_big_q) begin
            fail = 1'b1; fail_code = ScTooManyElements;
          end else if (!out_stall_i) begin
            // The container's header; its array if it has items (an
            // empty container's offset is not read).
            ov_d = 1'b1;
            if (d_map_q) begin ol_d = 8'd6; od_d[47:0] = {be32(n32), 3'b000, d_ew_q, 3'b000, d_kw_q}; end
            else begin         ol_d = 8'd5; od_d[39:0] = {be32(n32), 3'b000, d_ew_q}; end
            n_d   = n32[15:0];
            acc_d = '0;
            mb_d  = NW'(n32) << 3;
            mu_d  = d_unit_q >> 3;
            state_d = r_zero_q ? nxt : SMul;
          end
        end
        // count * unit, one bit of unit / 8 a cycle.
        SMul: begin
          if (mu_q[0]) acc_d = acc_q + mb_q;
          mb_d = mb_q << 1;
          mu_d = mu_q >> 1;
          if (mu_q[AW-1:1] == '0) state_d = SMul2;
        end
        SMul2: begin
          b_size_d = acc_q;
          b_kind_d = BCont;
          state_d  = SBlk1;
        end

        // A block's descriptor: 8-aligned, inside [64, area end), not
        // before the pointer (schemagold's block).
        SBlk1:  state_d = SBlk1b;                    // b_room_q
        SBlk1b: state_d = SBlk2;                     // b_bad_q, b_ovl_q
        SBlk2: begin
          if (b_bad_q) begin
            fail = 1'b1; fail_code = ScBadDescriptor;
          end else if (b_ovl_q) begin
            fail = 1'b1; fail_code = ScOverlap;
          end else begin
            ptr_d = b_off_q[AW-1:0] + b_size_q[AW-1:0];
            unique case (b_kind_q)
              BStr: state_d = SStrL;
              BStruct: begin
                nf.st   = d_st_q;
                nf.rec  = b_off_q[AW-1:0];
                push    = 1'b1;
                state_d = SPres;
              end
              default: begin
                nf.cont  = 1'b1;
                nf.ismap = d_map_q;
                nf.rec   = b_off_q[AW-1:0];
                nf.left  = d_map_q ? {n_q, 1'b0} : {1'b0, n_q};
                nf.elem  = d_elem_q;
                nf.key   = d_key_q;
                nf.esz   = d_esz_q;
                nf.ksz   = d_ksz_q;
                push     = 1'b1;
                state_d  = SElem;
              end
            endcase
          end
        end

        // A string: its length, then its bytes, 8 a beat, read ahead up to
        // four words.
        SStrL: if (!out_stall_i) begin
          ov_d = 1'b1; ol_d = 8'd4;
          od_d[31:0] = be32(n32);
          s_words_d = b_size_q[AW-1:3];
          s_tail_d  = n32[2:0];
          s_req_d   = b_size_q[AW-1:3];
          s_raddr_d = b_off_q[AW-1:0];
          s_occ_d   = '0;
          s_cnt_d   = '0;
          s_rp_d    = '0;
          state_d   = SStr;
        end
        SStr: begin
          s_req  = s_req_q != '0 && s_occ_q != 3'd4;
          s_emit = s_cnt_q != '0 && !out_stall_i;
          if (s_req) begin
            rd_req_d  = 1'b1;
            rd_addr_d = s_raddr_q;
            s_raddr_d = s_raddr_q + AW'(8);
            s_req_d   = s_req_q - 1'b1;
          end
          if (s_emit) begin
            ov_d     = 1'b1;
            od_d     = s_head;
            ol_d      = (s_words_q == (AW-3)'(1) && s_tail_q != '0) ? 8'(s_tail_q) : 8'd8;
            s_words_d = s_words_q - 1'b1;
            s_rp_d    = s_rp_q + 1'b1;
            if (s_words_q == (AW-3)'(1)) state_d = nxt;
          end
          s_occ_d = s_occ_q + 3'(s_req) - 3'(s_emit);
          s_cnt_d = s_cnt_q + 3'(rd_valid_i) - 3'(s_emit);
        end

        // A container's next item (a map's key, then its value), or its end.
        SElem: begin
          if (f_q.left == '0) begin
            state_d = SPop0;
          end else begin
            v_ti_d    = (f_q.ismap && !f_q.isval) ? f_q.key : f_q.elem;
            v_at_d    = f_q.rec;
            f_d.rec   = f_q.rec + ((f_q.ismap && !f_q.isval) ? f_q.ksz : f_q.esz);
            f_d.left  = f_q.left - 1'b1;
            f_d.isval = f_q.ismap && !f_q.isval;
            state_d   = SElem2;
          end
        end
        SElem2: state_d = SElem3;
        // A struct element's record lies in the array.
        SElem3: begin
          if (d_wire_q == WireStruct) begin
            if (sp_full_q) begin
              fail = 1'b1; fail_code = ScDepthExceeded;
            end else begin
              nf.st   = d_st_q;
              nf.rec  = v_at_q;
              push    = 1'b1;
              state_d = SPres;
            end
          end else begin
            state_d = SVal;
          end
        end

        // A frame ends (a struct's STOP is out): the one below goes on.
        SPop0: state_d = SPop1;
        SPop1: begin
          if (sp_q == SpW'(1)) begin
            state_d = SIdle;
            done_d  = 1'b1;
            code_d  = ScRespOk;
            off_d   = cnt_q;                         // the STOP's beat counted (SPop0)
          end else begin
            f_d     = fb_q;
            sp_d    = sp_q - 1'b1;
            state_d = fb_q.cont ? SElem : SField;
          end
        end
        default: ;
      endcase
    end

    if (push) begin
      f_d  = nf;
      sp_d = sp_q + 1'b1;
    end
    if (fail) begin
      state_d  = SIdle;
      done_d   = 1'b1;
      code_d   = fail_code;
      off_d    = 32'(fail_off);
      ov_d     = 1'b0;
      rd_req_d = 1'b0;
      push     = 1'b0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q  <= SIdle;
      sp_q     <= '0;
      done_q   <= 1'b0;
      code_q   <= ScNone;
      ov_q     <= 1'b0;
      rd_req_q <= 1'b0;
      s_wp_q   <= '0;
    end else begin
      state_q  <= state_d;
      sp_q     <= sp_d;
      done_q   <= done_d;
      code_q   <= code_d;
      ov_q     <= ov_d;
      rd_req_q <= rd_req_d;
      // The fifo's write side follows the answers; SStrL empties it.
      if (state_q == SStrL) s_wp_q <= '0;
      else if (rd_valid_i && state_q == SStr) s_wp_q <= s_wp_q + 1'b1;
    end
  end
  always_ff @(posedge clk_i) begin
    // A push puts the top frame on the stack at its level.
    for (int k = 0; k < NB; k++)
      if (push && sp_q == SpW'(k + 1)) stk_q[k*FW +: FW] <= f_q;
    fb_q      <= fbv;
    f_q       <= f_d;
    sp_full_q <= sp_d == SpW'(MaxLevels);
    if (start_i) begin
      m_q    <= MethodIdxW'(method_i);
      aend_q <= area_end_i;
    end
    ptr_q <= ptr_d;
    {fi_q, end_q, has_q, skip_q, h_wire_q, h_id_q, slot_q} <= {fi_d, end_d, has_d, skip_d, h_wire_d, h_id_d, slot_d};
    {v_ti_q, v_at_q, rdat_q} <= {v_ti_d, v_at_d, rdat_d};
    r_zero_q  <= rdat_q[63:32] == '0;
    r_big_q   <= rdat_q[63:32] > 32'(SchemaMaxElements);
    r_rszne_q <= rdat_q[63:32] != 32'(d_rsz_q);
    // The bytes written, from the beats (registers).
    cnt_q <= (state_q == SStart) ? '0 : cnt_q + (ov_q ? 32'(ol_q) : '0);
    // What the tables say of v_ti_q.
    d_wire_q <= type_wire(v_ti_q);
    d_size_q <= schema_fixed_size(8'(type_wire(v_ti_q)));
    d_ew_q   <= type_wire(type_elem(v_ti_q));
    d_kw_q   <= type_wire(type_key(v_ti_q));
    d_st_q   <= type_struct(v_ti_q);
    d_elem_q <= type_elem(v_ti_q);
    d_key_q  <= type_key(v_ti_q);
    d_rsz_q  <= AW'(type_record_size(v_ti_q));
    d_unit_q <= AW'(type_array_unit(v_ti_q));
    d_esz_q  <= AW'(type_elem_size(type_elem(v_ti_q)));
    d_ksz_q  <= AW'(type_elem_size(type_key(v_ti_q)));
    d_cont_q <= type_wire(v_ti_q) == WireList || type_wire(v_ti_q) == WireSet || type_wire(v_ti_q) == WireMap;
    d_nest_q <= type_wire(v_ti_q) == WireList || type_wire(v_ti_q) == WireSet || type_wire(v_ti_q) == WireMap ||
                type_wire(v_ti_q) == WireStruct;
    d_map_q  <= type_wire(v_ti_q) == WireMap;
    // A presence word's checks, from f_q (SPresK).
    p_hi_q    <= (f_q.pres & ~pres_mask(f_q.st)) != '0;
    p_zero_q  <= f_q.pres == '0;
    p_multi_q <= two_or_more(f_q.pres);
    p_kind_q  <= struct_kind(f_q.st);
    p_void_q  <= struct_void(f_q.st);
    {b_off_q, b_size_q, b_kind_q} <= {b_off_d, b_size_d, b_kind_d};
    b_out_q  <= b_off_q[2:0] != '0 || b_off_q < 32'(SchemaAreaStart) || b_off_q > 32'(aend_q);
    b_room_q <= 33'(aend_q) - 33'(b_off_q);          // meaningful when !b_out_q
    b_bad_q  <= b_out_q || b_size_q > NW'(b_room_q);
    b_ovl_q <= b_off_q < 32'(ptr_q);
    {n_q, acc_q, mb_q, mu_q} <= {n_d, acc_d, mb_d, mu_d};
    {s_words_q, s_tail_q, s_req_q, s_raddr_q, s_occ_q, s_cnt_q, s_rp_q} <= {s_words_d, s_tail_d, s_req_d, s_raddr_d, s_occ_d, s_cnt_d, s_rp_d};
    for (int k = 0; k < 4; k++)
      if (rd_valid_i && state_q == SStr && s_wp_q == 2'(k)) s_fifo_q[64*k +: 64] <= rd_data_i;
    rd_addr_q <= rd_addr_d;
    {od_q, ol_q, off_q} <= {od_d, ol_d, off_d};
  end

  assign rd_req_o    = rd_req_q;
  assign rd_addr_o   = rd_addr_q;
  assign out_valid_o = ov_q;
  assign out_data_o  = (Width*8)'(od_q);
  assign out_len_o   = ol_q;
  assign done_o      = done_q;
  assign code_o      = code_q;
  assign offset_o    = off_q;

`ifndef SYNTHESIS
  if (FW != $bits(frame_t)) begin : g_check_fw
    $error("resp_schema: FW is %0d, frame_t has %0d bits", FW, $bits(frame_t));
  end
  if (Width < 8) begin : g_check_width
    $error("resp_schema: Width %0d: a beat must hold 8 bytes", Width);
  end
  // The types bound the nesting: a push beyond NF frames would lose one.
  always_ff @(posedge clk_i) begin
    if (push) assert (32'(sp_q) < NF) else $error("resp_schema: a frame at level %0d, above the service's %0d", sp_q + 1, NF);
  end
  initial begin
    for (int i = 0; i < NumStructs; i++)
      if (32'(struct_count(StructIdxW'(i))) > 64)
        $fatal(1, "resp_schema: struct %0d has %0d fields: one presence word holds 64", i, struct_count(StructIdxW'(i)));
  end
`endif

endmodule
