// The generic respFunction (unit level): reads the result struct of an
// App.Resp image (docs/abi.md section 13)
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
//
// Timing (docs/timing.md's margin: two LUT levels a path, one into a
// reset, carry chains of 16 bits at most): every decision reads flags
// registered a step or more earlier (the tables' view of a type, a
// descriptor's checks, the next field's and item's index, count and
// address); the top frame's enables are registers decided a cycle ahead;
// address sums (on words: addresses and sizes are multiples of 8) are
// split at bit 13, the high part a cycle later or both ways at once;
// lookups and constants are ANDed in rather than muxed, so that Yosys
// makes no reset of them; and the stack's top slot is rewritten every
// cycle so that a push is a mux.
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
  localparam int unsigned NW = 40;                               // byte counts and sizes of descriptors
  // A container's count (at most SchemaMaxElements) times its unit (below
  // 2^SizeW): AccW bits; the sum is split at bit ALo over two cycles.
  localparam int unsigned CntW = $clog2(SchemaMaxElements + 1);
  localparam int unsigned AccW = CntW + SizeW;
  localparam int unsigned ALo = 13;
  localparam int unsigned NeC = (AW + 2) / 3;                    // 3-bit groups of a count compare

  // ---- Schema table lookups ----
  // The sizes and offsets are the package's (generated from
  // golden/schemagold's layout rules), the wire rules arcalis_pkg's.
  // The presence bits of a struct's fields (the others must be 0).
  function automatic logic [63:0] pres_mask(input logic [StructIdxW-1:0] s);
    for (int k = 0; k < 64; k++) pres_mask[k] = k < 32'(struct_count(s));
  endfunction
  // Two or more bits of w set (a LUT tree, no carry chain).
  function automatic logic two_of8(input logic [7:0] w);
    logic seen, m;
    seen = 1'b0; m = 1'b0;
    for (int b = 0; b < 8; b++) begin
      m    = m | (seen & w[b]);
      seen = seen | w[b];
    end
    two_of8 = m;
  endfunction
  // A 3-bit count up (u), down (d) or kept, as LUTs (no carry chain).
  function automatic logic [2:0] step3(input logic [2:0] c, input logic u, input logic d);
    if (u && !d)      step3 = {c[2] ^ (c[1] & c[0]), c[1] ^ c[0], !c[0]};
    else if (d && !u) step3 = {c[2] ^ (!c[1] & !c[0]), c[1] ^ !c[0], !c[0]};
    else              step3 = c;
  endfunction
  // A big-endian 32-bit count as wire bytes (byte 0 in bits 7:0).
  function automatic logic [31:0] be32(input logic [31:0] n);
    be32 = {n[7:0], n[15:8], n[23:16], n[31:24]};
  endfunction

  // ---- The stack ----
  // A frame: a struct being written (its record, presence word, next
  // field, fields left) or a list, set or map (its next item's address,
  // items left, a map's entries being two items each).
  typedef struct packed {
    logic                  cont;      // a container (else a struct)
    logic                  ismap;
    logic                  iskey;     // map: the next item is a key
    logic [StructIdxW-1:0] st;        // struct: its index
    logic [AW-1:0]         rec;       // struct: its record; container: the next item
    logic [63:0]           pres;      // struct: its presence word, shifted right a field at a time
    logic [FieldIdxW-1:0]  fi;        // struct: its next field's index in the tables
    logic [16:0]           left;      // struct: fields left; container: items left
    logic [TypeIdxW-1:0]   elem, key; // container: element (map: value) and key types
    logic [AW-1:0]         esz, ksz;  // container: their sizes in the array
  } frame_t;
  // $bits(frame_t), which Yosys 0.23 does not read (checked below).
  localparam int unsigned FW = 3 + StructIdxW + 3 * AW + 64 + FieldIdxW + 17 + 2 * TypeIdxW;

  // Every step decides from registers: a table lookup or a compare takes
  // its own step, an image read waits for its answer in a register.
  typedef enum logic [5:0] {
    SIdle, SStart, SPres, SPresW, SPresK, SPresK2, SPresD, SField, SFld2, SFld3, SHdr, SStop,
    SZero, SVal, SValW, SValK, SValD, SMul, SMul2, SMul3, SBlk1, SBlk1b, SBlk1c, SBlk2, SStrL, SStr,
    SElemW, SElemW2, SElem, SElem2, SElem3, SPop0, SPop1, SDone0, SDone, SFail
  } walk_e;
  typedef enum logic [1:0] {BStr, BStruct, BCont} blk_e;

  (* fsm_encoding = "one-hot" *)                // (auto picks binary above 31 states)
  walk_e                 state_q;
  walk_e                 state_d;
  frame_t                f_q, f_d, f_n, fb_q;   // f_n: f_d where enabled, else f_q
  logic [NB*FW-1:0]      stk_q;
  logic [NB:0]           lvl_q;                  // the top frame's level, one-hot (bit k: level k + 1)
  logic                  sp_full_q, sp1_q;       // it is MaxLevels (no level below it may nest); it is 1
  logic                  spinc;                  // a push: the level's increment
  logic                  bk_st_q, bk_ct_q;       // SBlk2 (next) loads a struct's, a container's frame
  logic                  e3_rec_q, e3_push_q;    // SElem3 (next) loads a struct element's frame; within the levels
  // The result record's struct, its first field and count, the pointer past it (start_i).
  logic [StructIdxW-1:0] m_st_q;
  logic [FieldIdxW-1:0]  m_fi_q;
  logic [16:0]           m_left_q;
  logic [AW-1:0]         m_ptr_q;
  /* verilator lint_off UNUSEDSIGNAL */      // (bits 2:0: the area end is 8-aligned)
  logic [AW-1:0]         aend_q;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [AW-1:0]         ptr_q, ptr_d;           // every block read so far lies below it
  // The top frame's next field index, count left, item address (a cycle
  // after the frame: the steps that use them follow a step that keeps it).
  logic [FieldIdxW-1:0]  fi_nx_q;
  logic [16:0]           l_dec_q;
  logic                  l_zero_q;
  // + the key's, + the element's size: bits 12:3 and their carry, then the rest.
  logic [12:3]           esk_lo_q, ese_lo_q;
  logic                  esk_c_q, ese_c_q;
  logic [AW-1:13]        esk_hi_q, ese_hi_q;
  // The field at hand: its index, whether it is the struct's end, present,
  // skipped (absent optional or union member), its header and slot.
  logic [FieldIdxW-1:0]  fi_q, fi_d;
  logic                  end_q, end_d, has_q, has_d, skip_q;
  logic [4:0]            h_wire_q;
  logic [15:0]           h_id_q;
  logic [AW-1:3]         slot_q;                 // (offsets are multiples of 8)
  // The field's slot, record + slot_q: bits 12:3 and their carry, the
  // rest without and with it (picked as SHdr writes v_at_q).
  logic [12:3]           va_lo_q;
  logic                  va_c_q;
  logic [AW-1:13]        va_h0_q, va_h1_q;
  // The value at hand (operand registers): its type and slot, and what
  // the tables say of the type, a cycle after v_ti_q.
  logic [TypeIdxW-1:0]   v_ti_q, v_ti_d;
  logic [AW-1:0]         v_at_q, v_at_d;
  logic [4:0]            d_ew_q, d_kw_q;
  logic [StructIdxW-1:0] d_st_q;
  logic [FieldIdxW-1:0]  d_fi_q;                 // a struct type's first field and count
  logic [16:0]           d_left_q;
  logic [TypeIdxW-1:0]   d_elem_q, d_key_q;
  logic [AW-1:0]         d_rsz_q, d_unit_q, d_esz_q, d_ksz_q;
  // Its class: fixed size (1 byte, bool, 2, 4, 8), string, struct, container, map.
  logic                  d_f1_q, d_fb_q, d_f2_q, d_f4_q, d_f8_q, d_str_q, d_rec_q, d_cont_q, d_map_q;
  logic                  d_vfail_q, d_deep_q, d_sdeep_q;   // SVal/SZero fail, its code; SElem3's
  logic [3:0]            d_vol_q, z_ol_q;        // the value's beat length; the zero value's
  logic [15:0]           z_od_q;                 // the zero value's bytes
  logic [63:0]           rdat_q, rdat_d;         // the word read
  // The word's count, checked in two steps: from the answer (with rdat_q),
  // then from those registers.
  logic [5:0]            r1_z_q;                 // 6-bit groups of it are 0
  logic [NeC-1:0]        r1_ne_q;                // 3-bit groups differ from the record size
  logic                  r1_nhi_q, r1_big_q, r1_bnz_q;   // bits at AW and above; above MaxElements; byte 0 not 0
  logic [11:3]           rp_lo_q;                // the count + 7, bits 11:3 (a string's words, rounded up)
  logic                  rp_c_q;                 // and its carry
  logic                  r_fail_q, r_blk_q, r_nx_q;   // r_nx_q: no fault, no block, no container with items (SMul)
  logic [AW-3:0]         r_pad_q;                // the count's words (rounded up), carry at the top
  logic [63:0]           v_od_q;                 // the value's beat
  // A presence word's checks: per byte (from the answer), over the bytes, the verdict.
  logic [63:0]           mask_q;
  logic [7:0]            p1_any_q, p1_two_q, p1_hi_q;
  logic                  p_hi_q, p_zero_q, p_m1_q, p_m2_q, p_res_q, p_uni_q;   // p_m*: two bits set (in a byte, in two)
  logic                  p_bad_q;
  logic                  p_bad;                  // bits of no field, a result's or a union's count
  assign p_bad = p_hi_q || (p_res_q && (p_m1_q || p_m2_q)) || (p_uni_q && (p_zero_q || p_m1_q || p_m2_q));
  // A block (record, array, string) its descriptor gives: where, how big, what.
  logic [31:0]           b_off_q, b_off_d;
  logic [NW-1:0]         b_size_q, b_size_d;
  blk_e                  b_kind_q, b_kind_d;
  logic                  ba_hi_q, ba_mis_q, ba_lo_q, ba_gt_q, ba_ovl_q, ba_shi_q;
  // The block's end (offset + size, in words): bits 12:3 and their
  // carry, then the rest and its carry a cycle later.
  logic [12:3]           bp_lo_q;
  logic                  bp_c_q, bp_top_q;
  logic [AW-1:13]        bp_hi_q;
  logic                  bb_out_q, bb_big_q, bb_ovl_q;
  // An array's size: count times unit by shift and add, the upper part a cycle late.
  logic [16:0]           nl_q;                   // the container's items (a map's: two an entry)
  logic [AccW-1:3]       acc_q, mb_q, ad_q;     // ad_q: this cycle's addend, mb_q if mu_q[0]
  logic                  acc_c_q;
  logic [AW-1:0]         mu_q;
  // A string's bytes: words to request (count, address: low two bits and
  // the rest, the rest less or plus one a cycle later), fifo occupancy,
  // and up to four words on their way or waiting (fifo).
  logic [3:0]            s_tl_q, s_tl_d;         // the last word's bytes (1 to 8)
  logic [AW-6:0]         s_rh_q, s_rh_d, s_rhm_q;
  logic [1:0]            s_rl_q, s_rl_d;
  logic                  s_rhz_q;
  logic [AW-6:0]         s_ah_q, s_ah_d, s_ahp_q;
  logic [1:0]            s_al_q, s_al_d;
  logic                  s_first_q, s_first_d;   // SStr's first cycle: the above not yet valid
  logic                  s_more_q;               // words left to request (0 outside SStrL and SStr)
  logic                  s_done_q;               // SStr's last beat was out
  logic [2:0]            s_occ_q, s_occ_d;       // requested and not yet written out
  logic [2:0]            s_cnt_q, s_cnt_d;       // words in the fifo
  logic [1:0]            s_wp_q, s_rp_q, s_rp_d;
  logic [4*64-1:0]       s_fifo_q;
  logic [63:0]           s_head;
  logic                  s_emit, s_req, s_last;
  // The outputs, registered; a field header, STOP or zero value's beat a cycle ahead.
  logic                  rd_req_q, rd_req_d;
  logic [AW-1:0]         rd_addr_q, rd_addr_d;
  logic                  ov_q, ov_d;
  logic [63:0]           od_q, od_d;
  logic [7:0]            ol_q, ol_d;
  logic [23:0]           fz_od_q;
  logic [3:0]            fz_ol_q;
  logic [15:0]           cnt_lo_q, cnt_hi_q;     // bytes written (the beats so far), the upper half a cycle late
  logic                  cnt_c_q;
  logic [3:0]            cnt_add_q;
  logic                  done_q, done_d;
  schema_code_e          code_q, code_d;
  logic [31:0]           off_q, off_d;

  // The walk ends (SFail) with fc_q at image offset fo_q: both registered
  // in the failing step, whatever it decides.
  schema_code_e          fc_q, fc_d;
  logic [AW-1:0]         fo_q;
  logic [3:0]            tl_q;                   // a string's last word's bytes (1 to 8), from n32
  // Module-scope temporaries (Yosys 0.23).
  logic [31:0]           n32;
  walk_e                 nxt;                    // the top frame's next step
  assign nxt = f_q.cont ? SElem : SField;
  assign n32 = rdat_q[63:32];

  // The frame below the top, as the stack holds it.
  logic [FW-1:0]         fbv;
  always_comb begin
    fbv = '0;
    for (int k = 0; k < NB; k++) if (lvl_q[k+1]) fbv = fbv | stk_q[k*FW +: FW];
  end
  assign s_head = s_fifo_q[64*s_rp_q +: 64];

  // The answer's count in 6-bit groups; its bits that differ from the record size.
  logic [35:0]           r_n36;
  logic [3*NeC-1:0]      r_nx;
  assign r_n36 = 36'(rd_data_i[63:32]);
  assign r_nx  = (3*NeC)'(rd_data_i[32 +: AW]) ^ (3*NeC)'(d_rsz_q);

  // ---- The tables as constant vectors ----
  // Each lookup below is a constant vector indexed by a register: logic
  // that reads only that register. (A package function called on a
  // register becomes a ROM, and Yosys may then move the register behind
  // it, lengthening the path into it.)
  localparam int unsigned NT  = 2 ** TypeIdxW;
  localparam int unsigned NS  = 2 ** StructIdxW;
  localparam int unsigned NFd = 2 ** FieldIdxW;
  localparam int unsigned NM  = 2 ** MethodIdxW;
  // A type: wire type, fixed size, struct, element and key (types, wire
  // types, sizes), record size, array unit, the struct's first field and count.
  // What the walk does with a value of the type: its class (t_class
  // below), its beat length, its zero value's length and bytes.
  localparam int unsigned TCW = 11 + 4 + 4 + 16;
  localparam int unsigned TIW = StructIdxW + 2 * TypeIdxW + 2 * 5 + 4 * AW + FieldIdxW + 17 + TCW;
  // A field: wire type, id, type, requiredness, slot offset.
  localparam int unsigned FIW = 5 + 16 + TypeIdxW + 2 + AW - 3;
  // A struct: presence mask, result, union.
  localparam int unsigned SIW = 64 + 2;
  // A method: its result struct, its first field and count, the pointer past its record.
  localparam int unsigned MIW = StructIdxW + FieldIdxW + 17 + AW;
  function automatic logic [TCW-1:0] t_class(input logic [TypeIdxW-1:0] i);
    logic [4:0] w, ew, kw;
    logic [3:0] sz, vol, zol;
    logic       cont, map, rec, str;
    w    = type_wire(i);
    ew   = type_wire(type_elem(i));
    kw   = type_wire(type_key(i));
    sz   = schema_fixed_size(8'(w));
    cont = w == WireList || w == WireSet || w == WireMap;
    map  = w == WireMap;
    rec  = w == WireStruct;
    str  = sz == '0 && w == WireString;
    vol  = (sz != '0) ? sz : str ? 4'd4 : map ? 4'd6 : 4'd5;
    zol  = (sz != '0) ? sz : str ? 4'd4 : !cont ? 4'd1 : map ? 4'd6 : 4'd5;
    t_class = {sz == 4'd1 && w != WireBool, sz == 4'd1 && w == WireBool, sz == 4'd2, sz == 4'd4,
               sz != '0 && sz != 4'd1 && sz != 4'd2 && sz != 4'd4, str, rec, cont, map, cont || rec,
               sz == '0 && w != WireString && !cont && !rec,       // UUID: no slot holds one
               vol, zol,
               map ? {3'b000, ew, 3'b000, kw} : cont ? 16'({3'b000, ew}) : 16'd0};
  endfunction
  function automatic logic [NT*TIW-1:0] t_table(input int n);
    logic [TIW-1:0] e;
    t_table = '0;
    for (int i = 0; i < n; i++)
      begin
        e = {
        type_struct(TypeIdxW'(i)),
        type_elem(TypeIdxW'(i)), type_key(TypeIdxW'(i)),
        type_wire(type_elem(TypeIdxW'(i))), type_wire(type_key(TypeIdxW'(i))),
        AW'(type_elem_size(type_elem(TypeIdxW'(i)))), AW'(type_elem_size(type_key(TypeIdxW'(i)))),
        AW'(type_record_size(TypeIdxW'(i))), AW'(type_array_unit(TypeIdxW'(i))),
        FieldIdxW'(struct_first(type_struct(TypeIdxW'(i)))), 17'(struct_count(type_struct(TypeIdxW'(i)))),
        t_class(TypeIdxW'(i))};
        for (int b = 0; b < TIW; b++) t_table[b*NT + i] = e[b];
      end
  endfunction
  function automatic logic [NFd*FIW-1:0] fl_table(input int n);
    logic [FIW-1:0] e;
    fl_table = '0;
    for (int i = 0; i < n; i++)
      begin
        e = {field_wire(FieldIdxW'(i)), field_id(FieldIdxW'(i)), field_type(FieldIdxW'(i)),
                                field_req(FieldIdxW'(i)), (AW-3)'(AW'(field_offset(FieldIdxW'(i))) >> 3)};
        for (int b = 0; b < FIW; b++) fl_table[b*NFd + i] = e[b];
      end
  endfunction
  function automatic logic [NS*SIW-1:0] s_table(input int n);
    logic [SIW-1:0] e;
    s_table = '0;
    for (int i = 0; i < n; i++)
      begin
        e = {pres_mask(StructIdxW'(i)), struct_kind(StructIdxW'(i)) == KindResult,
                               struct_kind(StructIdxW'(i)) == KindUnion};
        for (int b = 0; b < SIW; b++) s_table[b*NS + i] = e[b];
      end
  endfunction
  // (One cast around the sum: Yosys 0.23 sizes a sum of two constant
  // casts in a concatenation as 32 bits, which pushed the other fields out.)
  function automatic logic [NM*MIW-1:0] m_table(input int n);
    logic [MIW-1:0] e;
    m_table = '0;
    for (int i = 0; i < n; i++)
      begin
        e = {method_result(MethodIdxW'(i)), FieldIdxW'(struct_first(method_result(MethodIdxW'(i)))),
                               17'(struct_count(method_result(MethodIdxW'(i)))),
                               AW'(SchemaAreaStart + 32'(struct_size(method_result(MethodIdxW'(i)))))};
        for (int b = 0; b < MIW; b++) m_table[b*NM + i] = e[b];
      end
  endfunction
  localparam logic [NT*TIW-1:0]  TTab  = t_table(NT);
  localparam logic [NFd*FIW-1:0] FlTab = fl_table(NFd);
  localparam logic [NS*SIW-1:0]  STab  = s_table(NS);
  localparam logic [NM*MIW-1:0]  MTab  = m_table(NM);

  // What the tables say of v_ti_q (registered below).
  logic [4:0]            t_ew, t_kw;
  logic [StructIdxW-1:0] t_st;
  logic [TypeIdxW-1:0]   t_elem, t_key;
  logic [AW-1:0]         t_esz, t_ksz, t_rsz, t_unit;
  logic [FieldIdxW-1:0]  t_fi;
  logic [16:0]           t_left;
  logic                  t_f1, t_fb, t_f2, t_f4, t_f8, t_str, t_rec, t_cont, t_map, t_nest, t_bad;
  logic [3:0]            t_vol, t_zol;
  logic [15:0]           t_zod;
  // (Bit b of entry i at b * entries + i. A lookup is an AND with the
  // index decoded, then an OR: a shift would be a mux tree with constant
  // leaves, which Yosys makes into resets and sets of the registers that
  // take it, a LUT level deeper than their D.)
  logic [TIW-1:0]        t_info;
  logic [FIW-1:0]        fl_info;
  logic [SIW-1:0]        st_info;
  logic [MIW-1:0]        m_info;
  logic [NT-1:0]         t_oh;
  logic [NFd-1:0]        fl_oh;
  logic [NS-1:0]         st_oh;
  logic [NM-1:0]         m_oh;
  always_comb begin
    for (int i = 0; i < NT; i++)  t_oh[i]  = v_ti_q == TypeIdxW'(i);
    for (int i = 0; i < NFd; i++) fl_oh[i] = fi_q == FieldIdxW'(i);
    for (int i = 0; i < NS; i++)  st_oh[i] = f_q.st == StructIdxW'(i);
    for (int i = 0; i < NM; i++)  m_oh[i]  = MethodIdxW'(method_i) == MethodIdxW'(i);
    for (int b = 0; b < TIW; b++) t_info[b]  = |(TTab[b*NT +: NT] & t_oh);
    for (int b = 0; b < FIW; b++) fl_info[b] = |(FlTab[b*NFd +: NFd] & fl_oh);
    for (int b = 0; b < SIW; b++) st_info[b] = |(STab[b*NS +: NS] & st_oh);
    for (int b = 0; b < MIW; b++) m_info[b]  = |(MTab[b*NM +: NM] & m_oh);
  end
  assign {t_st, t_elem, t_key, t_ew, t_kw, t_esz, t_ksz, t_rsz, t_unit, t_fi, t_left,
          t_f1, t_fb, t_f2, t_f4, t_f8, t_str, t_rec, t_cont, t_map, t_nest, t_bad, t_vol, t_zol, t_zod} = t_info;
  // What they say of fi_q, of the top frame's struct, of method_i.
  logic [4:0]            fl_wire;
  logic [15:0]           fl_id;
  logic [TypeIdxW-1:0]   fl_type;
  logic [1:0]            fl_req;
  logic [AW-1:3]         fl_off;                 // (offsets are multiples of 8)
  assign {fl_wire, fl_id, fl_type, fl_req, fl_off} = fl_info;
  logic [63:0]           st_mask;
  logic                  st_res, st_uni;
  assign {st_mask, st_res, st_uni} = st_info;

  // The string's request side: the next request is the last one, the fifo has room.
  assign s_req  = !s_first_q && s_more_q && s_occ_q != 3'd4;   // (s_more_q: SStr's)
  assign s_emit = state_q == SStr && s_cnt_q != '0 && !out_stall_i;
  assign s_last = !s_more_q && s_occ_q == 3'd1;  // all requested, one word left

  always_comb begin
    state_d = state_q;
    ptr_d   = ptr_q;
    {fi_d, end_d, has_d} = {fi_q, end_q, has_q};
    {v_ti_d, v_at_d, rdat_d} = {v_ti_q, v_at_q, rdat_q};
    {b_off_d, b_size_d, b_kind_d} = {b_off_q, b_size_q, b_kind_q};
    {s_tl_d, s_rh_d, s_rl_d, s_ah_d, s_al_d, s_first_d} = {s_tl_q, s_rh_q, s_rl_q, s_ah_q, s_al_q, 1'b0};
    {s_occ_d, s_cnt_d, s_rp_d} = {s_occ_q, s_cnt_q, s_rp_q};
    {done_d, code_d, off_d} = {done_q, code_q, off_q};
    rd_req_d  = 1'b0;
    // Only a request's cycle needs the address: chosen by the step alone.
    rd_addr_d = (state_q == SPres) ? f_q.rec : (state_q == SStr) ? {s_ah_q, s_al_q, 3'b000} : v_at_q;
    // Only a beat's cycle needs its bytes and length: chosen by the step alone.
    ov_d = 1'b0;
    if (state_q == SStr) begin
      od_d = s_head;
      ol_d = s_last ? 8'(s_tl_q) : 8'd8;
    end else if (state_q == SValD || state_q == SStrL) begin
      od_d = v_od_q;
      ol_d = 8'(d_vol_q);
    end else begin
      od_d = 64'(fz_od_q);
      ol_d = 8'(fz_ol_q);
    end
    // The code a failure of this step reports (SFail), each step's ANDed
    // in (a mux with a constant default would become a reset of fc_q, a
    // level deeper than its D).
    fc_d = schema_code_e'(({8{state_q == SPresD}} & 8'(ScBadPresence)) |
                          ({8{state_q == SZero || state_q == SVal}} & 8'(d_deep_q ? ScDepthExceeded : ScBadType)) |
                          ({8{state_q == SValD}} & 8'(d_rec_q ? ScBadDescriptor : ScTooManyElements)) |
                          ({8{state_q == SBlk2}} & 8'((bb_out_q || bb_big_q) ? ScBadDescriptor : ScOverlap)) |
                          ({8{state_q == SElem3}} & 8'(ScDepthExceeded)));

    unique case (state_q)
      SIdle: ;

      // The result record at 64, its presence word first.
      SStart: begin                                   // (f_d below)
        ptr_d     = m_ptr_q;
        state_d   = SPres;
      end

      // A struct's presence word: read, checked (bits of no field, a
      // result's or a union's count) in three steps, then its fields.
      SPres: begin
        rd_req_d = 1'b1;
        state_d  = SPresW;
      end
      SPresW: if (rd_valid_i) state_d = SPresK;     // f_d.pres: the answer's cycle is the last
      SPresK:  state_d = SPresK2;                     // p_hi_q, p_zero_q, p_m1_q, p_m2_q
      SPresK2: state_d = SPresD;                      // p_bad_q
      SPresD: begin
        state_d = p_bad_q ? SFail : SField;
      end

      // A struct's next field (ascending id order), or its STOP.
      SField: begin
        fi_d    = f_q.fi;                             // unused at the struct's end
        end_d   = f_q.left == '0;
        has_d   = f_q.pres[0];
        state_d = SFld2;
      end
      SFld2: begin
        // (f_d below: the frame moves on at the end too, it is popped then.)
        v_ti_d   = fl_type;
        state_d  = end_q ? SStop : SFld3;
      end
      SFld3: state_d = skip_q ? SField : SHdr;        // h_*, skip_q, slot_q from fi_q
      SHdr: begin
        v_at_d = {va_c_q ? va_h1_q : va_h0_q, va_lo_q, f_q.rec[2:0]};
        if (!out_stall_i) begin
          ov_d    = 1'b1;
          state_d = has_q ? SVal : SZero;
        end
      end
      SStop: if (!out_stall_i) begin
        ov_d    = 1'b1;
        state_d = SPop0;
      end

      // An absent field that is not optional: the Go zero value (a
      // struct: its STOP; a container: its header, count 0).
      SZero: begin
        if (d_vfail_q) begin
          state_d = SFail;
        end else if (!out_stall_i) begin
          ov_d    = 1'b1;
          state_d = nxt;
        end
      end

      // A present value: its slot or descriptor.
      SVal: begin
        if (d_vfail_q) begin
          state_d = SFail;
        end else begin
          rd_req_d = 1'b1;
          state_d  = SValW;
        end
      end
      SValW: if (rd_valid_i) begin
        rdat_d  = rd_data_i;
        state_d = SValK;
      end
      SValK: state_d = SValD;                         // r_*_q, v_od_q: what the word says
      SValD: begin
        b_off_d  = rdat_q[31:0];
        // (ANDed, not a mux: a constant's bits would become a reset of b_size_q.)
        b_size_d = ({NW{d_str_q}} & NW'({r1_nhi_q, r_pad_q, 3'b000})) | ({NW{!d_str_q}} & NW'(n32));
        b_kind_d = d_str_q ? BStr : BStruct;
        // A fixed value's beat, an empty string's length, a container's
        // header (then its array if it has items: an empty container's
        // offset is not read); a block to check; a fault (r_*_q).
        // (The next item's condition one register: r_nx_q.)
        if (r_nx_q) begin
          if (!out_stall_i) begin
            ov_d    = 1'b1;
            state_d = nxt;
          end
        end else if (r_fail_q) begin
          state_d = SFail;
        end else if (r_blk_q) begin
          state_d = SBlk1;
        end else if (!out_stall_i) begin
          ov_d    = 1'b1;
          state_d = SMul;
        end
      end
      // count * unit, one bit of unit / 8 a cycle (acc_q below), then the
      // upper part's last carry.
      SMul:  if (mu_q[AW-1:1] == '0) state_d = SMul2;
      SMul2: state_d = SMul3;
      SMul3: begin
        b_size_d = NW'({acc_q, 3'b000});
        b_kind_d = BCont;
        state_d  = SBlk1;
      end

      // A block's descriptor: 8-aligned, inside [64, area end), not
      // before the pointer (schemagold's block), in two steps (ba_*, bb_*).
      SBlk1:  state_d = SBlk1b;
      SBlk1b: state_d = SBlk1c;
      SBlk1c: state_d = SBlk2;
      SBlk2: begin
        // A failure ends the walk: the frame and pointer do not matter then.
        ptr_d = {bp_hi_q, bp_lo_q, 3'b000};
        // (f_d below: a struct's or a container's frame.)
        if (bb_out_q || bb_big_q || bb_ovl_q) state_d = SFail;
        else unique case (b_kind_q)
          BStr:    state_d = SStrL;
          BStruct: state_d = SPres;
          default: state_d = SElemW;
        endcase
      end

      // A string: its length, then its bytes, 8 a beat, read ahead up to
      // four words.
      SStrL: begin
        s_tl_d    = tl_q;
        s_rh_d    = b_size_q[AW-1:5];
        s_rl_d    = b_size_q[4:3];
        s_ah_d    = b_off_q[AW-1:5];
        s_al_d    = b_off_q[4:3];
        s_first_d = 1'b1;
        s_occ_d   = '0;
        s_cnt_d   = '0;
        s_rp_d    = '0;
        if (!out_stall_i) begin
          ov_d    = 1'b1;
          state_d = SStr;
        end
      end
      // (The requests below the case. The walk goes on the cycle after
      // the last beat: s_done_q.)
      SStr: begin
        if (s_emit) begin
          ov_d   = 1'b1;
          s_rp_d = {s_rp_q[1] ^ s_rp_q[0], !s_rp_q[0]};
        end
        if (s_done_q) state_d = nxt;
        s_occ_d = step3(s_occ_q, s_req, s_emit);
        s_cnt_d = step3(s_cnt_q, rd_valid_i, s_emit);
      end

      // A container's next item (a map's key, then its value), or its end.
      SElemW:  state_d = SElemW2;                     // l_zero_q, l_dec_q, es*_lo_q
      SElemW2: state_d = SElem;                       // es*_hi_q
      SElem: begin
        // (f_d below: the frame moves on at the end too, it is popped then.)
        v_ti_d    = f_q.iskey ? f_q.key : f_q.elem;
        v_at_d    = f_q.rec;
        state_d   = l_zero_q ? SPop0 : SElem2;
      end
      SElem2: state_d = SElem3;
      // A struct element's record lies in the array.
      SElem3: begin
        if (d_rec_q) begin                            // (f_d below)
          state_d = d_sdeep_q ? SFail : SPres;
        end else begin
          state_d = SVal;
        end
      end

      // A frame ends (a struct's STOP is out): the one below goes on.
      SPop0: state_d = SPop1;
      SPop1: begin                                    // (f_d below)
        if (sp1_q) state_d = SDone0;
        else       state_d = fb_q.cont ? SElemW : SField;
      end
      SDone0: state_d = SDone;                        // the STOP's beat counted (cnt_*)
      SDone: begin
        state_d = SIdle;
        done_d  = 1'b1;
        code_d  = ScRespOk;
        off_d   = {cnt_hi_q, cnt_lo_q};
      end
      SFail: begin
        state_d = SIdle;
        done_d  = 1'b1;
        code_d  = fc_q;
        off_d   = 32'(fo_q);
      end
      default: ;
    endcase

    // A string's word requests (SStr's only: s_more_q).
    if (s_req) begin
      rd_req_d = 1'b1;
      s_rl_d   = s_rl_q - 1'b1;
      if (s_rl_q == '0) s_rh_d = s_rhm_q;
      s_al_d   = s_al_q + 1'b1;
      if (s_al_q == 2'd3) s_ah_d = s_ahp_q;
    end

    if (start_i) begin
      done_d   = 1'b0;
      state_d  = SStart;
      ov_d     = 1'b0;
      rd_req_d = 1'b0;
    end
  end

  // The top frame's next value: one exclusive choice a field, its selects
  // single registers (the FSM is one-hot; a push's kind and level are
  // registered a step ahead), with no hold term: that is the enable below.
  logic s_start, s_pop, s_bst, s_bct, s_ep, s_fld, s_el, s_pw, s_push;
  logic el_q, s_fld3;
  assign s_start = state_q == SStart;
  assign s_pop   = state_q == SPop1;
  assign s_fld   = state_q == SFld2;
  assign s_fld3  = state_q == SFld3;
  assign s_el    = el_q;                         // SElem's item step, a cycle later
  assign s_pw    = state_q == SPresW;
  assign s_bst   = bk_st_q;                      // SBlk2, a struct's record
  assign s_bct   = bk_ct_q;                      // SBlk2, a container's array
  assign s_ep    = e3_rec_q;                     // SElem3, a struct element
  assign s_push  = s_bst || s_bct || s_ep;
  assign spinc   = s_bst || s_bct || e3_push_q;
  always_comb begin
    f_d.cont  = (s_pop & fb_q.cont) | s_bct;
    f_d.ismap = (s_pop & fb_q.ismap) | (s_bct & d_map_q);
    f_d.iskey = (s_pop & fb_q.iskey) | (s_bct & d_map_q) | (s_el & f_q.ismap & !f_q.iskey);
    f_d.st    = ({StructIdxW{s_start}} & m_st_q) | ({StructIdxW{s_pop}} & fb_q.st) | ({StructIdxW{s_push}} & d_st_q);
    f_d.rec   = ({AW{s_start}} & AW'(SchemaAreaStart)) | ({AW{s_pop}} & fb_q.rec) |
                ({AW{s_bst || s_bct}} & b_off_q[AW-1:0]) | ({AW{s_ep}} & v_at_q) | ({AW{s_el && f_q.iskey}} & {esk_hi_q, esk_lo_q, f_q.rec[2:0]}) |
                ({AW{s_el && !f_q.iskey}} & {ese_hi_q, ese_lo_q, f_q.rec[2:0]});
    f_d.pres  = ({64{s_pw}} & rd_data_i) | ({64{s_fld}} & (f_q.pres >> 1)) | ({64{s_pop}} & fb_q.pres);
    f_d.fi    = ({FieldIdxW{s_start}} & m_fi_q) | ({FieldIdxW{s_pop}} & fb_q.fi) | ({FieldIdxW{s_push}} & d_fi_q) |
                ({FieldIdxW{s_fld}} & fi_nx_q);
    f_d.left  = ({17{s_start}} & m_left_q) | ({17{s_pop}} & fb_q.left) | ({17{s_bst || s_ep}} & d_left_q) |
                ({17{s_bct}} & nl_q) | ({17{s_fld || s_el}} & l_dec_q);
    f_d.elem  = ({TypeIdxW{s_pop}} & fb_q.elem) | ({TypeIdxW{s_push}} & d_elem_q);
    f_d.key   = ({TypeIdxW{s_pop}} & fb_q.key)  | ({TypeIdxW{s_push}} & d_key_q);
    f_d.esz   = ({AW{s_pop}} & fb_q.esz) | ({AW{s_push}} & d_esz_q);
    f_d.ksz   = ({AW{s_pop}} & fb_q.ksz) | ({AW{s_push}} & d_ksz_q);
  end
  // Each field kept unless one of its selects is set: a flip-flop enable,
  // a register decided a cycle ahead from the step before (ce_*_q below).
  // (f_n: one write of the whole f_q below.)
  logic ce_new_q, ce_rec_q, ce_pres_q, ce_fi_q, ce_left_q;
  always_comb begin
    f_n = f_q;
    if (ce_new_q)  {f_n.cont, f_n.ismap, f_n.st} = {f_d.cont, f_d.ismap, f_d.st};   // start, pop, push
    if (ce_rec_q)  {f_n.iskey, f_n.rec} = {f_d.iskey, f_d.rec};                      // and the item step
    if (ce_pres_q) f_n.pres = f_d.pres;                                              // SPresW, SFld2, pop
    if (ce_fi_q)   f_n.fi   = f_d.fi;                                                // start, pop, push, SFld2
    if (ce_left_q) f_n.left = f_d.left;                                              // and the item step
    // (A start loads zeros: a struct's frame does not read these.)
    if (ce_new_q)  {f_n.elem, f_n.key, f_n.esz, f_n.ksz} = {f_d.elem, f_d.key, f_d.esz, f_d.ksz};
  end
  // The selects of the next cycle: a start, SPop1, a push (SBlk2 of a
  // struct or container, SElem3 of a struct element), SElem's item step,
  // SFld2, SPresW.
  logic new_n, el_n, fld_n, pw_n, pop_n;
  always_comb begin
    pop_n  = state_q == SPop0 && !start_i;
    new_n  = start_i || pop_n || (!start_i && ((state_q == SBlk1c && b_kind_q != BStr) || (state_q == SElem2 && t_rec)));
    el_n   = state_q == SElem && !start_i;
    fld_n  = state_q == SField && !start_i;
    pw_n   = (state_q == SPres || (state_q == SPresW && !rd_valid_i)) && !start_i;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q  <= SIdle;
      lvl_q    <= '0;
      done_q   <= 1'b0;
      code_q   <= ScNone;
      ov_q     <= 1'b0;
      rd_req_q <= 1'b0;
      s_wp_q   <= '0;
    end else begin
      state_q  <= state_d;
      // SStart, a push, SPop1.
      if (s_start)     lvl_q <= (NB+1)'(1);
      else if (spinc)  lvl_q <= lvl_q << 1;
      else if (s_pop)  lvl_q <= lvl_q >> 1;
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
    // The top frame's slot follows it: a push leaves it there.
    for (int k = 0; k < NB; k++)
      if (lvl_q[k]) stk_q[k*FW +: FW] <= f_q;
    fb_q      <= fbv;
    f_q       <= f_n;
    sp_full_q <= |(lvl_q >> (MaxLevels - 1));
    bk_st_q   <= state_q == SBlk1c && b_kind_q == BStruct && !start_i;
    bk_ct_q   <= state_q == SBlk1c && b_kind_q == BCont && !start_i;
    e3_rec_q  <= state_q == SElem2 && t_rec && !start_i;
    el_q      <= el_n;
    ce_new_q  <= new_n;
    ce_rec_q  <= new_n || el_n;
    ce_pres_q <= pw_n || fld_n || pop_n;
    ce_fi_q   <= new_n || fld_n;
    ce_left_q <= new_n || fld_n || el_n;
    e3_push_q <= state_q == SElem2 && t_rec && !sp_full_q && !start_i;
    sp1_q     <= lvl_q[0];
    if (start_i) begin
      {m_st_q, m_fi_q, m_left_q, m_ptr_q} <= m_info;
      aend_q   <= area_end_i;
    end
    ptr_q <= ptr_d;
    // The top frame's next field, count and item address, a cycle late.
    fi_nx_q  <= f_q.fi + 1'b1;
    l_dec_q  <= f_q.left - 1'b1;
    l_zero_q <= f_q.left == '0;
    // (16-bit carry chains at most: the margin's, docs/timing.md.)
    {esk_c_q, esk_lo_q} <= {1'b0, f_q.rec[12:3]} + {1'b0, f_q.ksz[12:3]};
    {ese_c_q, ese_lo_q} <= {1'b0, f_q.rec[12:3]} + {1'b0, f_q.esz[12:3]};
    esk_hi_q <= f_q.rec[AW-1:13] + f_q.ksz[AW-1:13] + (AW-13)'(esk_c_q);
    ese_hi_q <= f_q.rec[AW-1:13] + f_q.esz[AW-1:13] + (AW-13)'(ese_c_q);
    {fi_q, end_q, has_q} <= {fi_d, end_d, has_d};
    // What the tables say of fi_q (SField sets it), and its slot's address.
    h_wire_q <= fl_wire;
    h_id_q   <= fl_id;
    // Apache writes an optional field, or a union's, only when set.
    skip_q   <= !has_q && (fl_req == 2'd2 || st_uni);
    slot_q   <= fl_off;
    {va_c_q, va_lo_q} <= {1'b0, f_q.rec[12:3]} + {1'b0, slot_q[12:3]};
    va_h0_q  <= f_q.rec[AW-1:13] + slot_q[AW-1:13];
    va_h1_q  <= (AW-13)'(({f_q.rec[AW-1:13], 1'b1} + {slot_q[AW-1:13], 1'b1}) >> 1);   // (+ 1 in the chain)
    {v_ti_q, v_at_q, rdat_q} <= {v_ti_d, v_at_d, rdat_d};
    // The descriptor's count, from the answer.
    if (state_q == SValW && rd_valid_i) begin
      for (int g = 0; g < 6; g++) r1_z_q[g] <= r_n36[6*g +: 6] == '0;
      for (int g = 0; g < NeC; g++) r1_ne_q[g] <= r_nx[3*g +: 3] != '0;
      r1_nhi_q <= rd_data_i[63:32+AW] != '0;
      r1_big_q <= rd_data_i[63:32+CntW] != '0;
      r1_bnz_q <= rd_data_i[7:0] != '0;
      {rp_c_q, rp_lo_q} <= 10'(({1'b0, rd_data_i[43:32]} + 13'd7) >> 3);
    end
    // SValD's way: a fault, a block, a beat then SMul, a beat then the next item.
    r_fail_q <= (d_rec_q && (r1_nhi_q || r1_ne_q != '0)) || (d_cont_q && r1_big_q);
    r_blk_q  <= (d_str_q && r1_z_q != '1) || d_rec_q;
    r_nx_q   <= !d_rec_q && !(d_cont_q && (r1_big_q || r1_z_q != '1)) && !(d_str_q && r1_z_q != '1);
    r_pad_q  <= {{1'b0, n32[AW-1:12]} + (AW-11)'(rp_c_q), rp_lo_q};
    tl_q     <= (n32[2:0] == '0) ? 4'd8 : {1'b0, n32[2:0]};
    nl_q     <= d_map_q ? {n32[15:0], 1'b0} : {1'b0, n32[15:0]};
    // The value's beat (SValD; SStrL: the string's length).
    v_od_q <= ({64{d_f1_q}} & 64'(rdat_q[7:0])) |
              ({64{d_fb_q}} & 64'(r1_bnz_q)) |
              ({64{d_f2_q}} & 64'({rdat_q[7:0], rdat_q[15:8]})) |
              ({64{d_f4_q}} & 64'(be32(rdat_q[31:0]))) |
              ({64{d_f8_q}} & {be32(rdat_q[31:0]), be32(rdat_q[63:32])}) |
              ({64{d_str_q}} & 64'(be32(n32))) |
              ({64{d_cont_q && !d_map_q}} & 64'({be32(n32), 3'b000, d_ew_q})) |
              ({64{d_map_q}} & 64'({be32(n32), 3'b000, d_ew_q, 3'b000, d_kw_q}));
    // What the tables say of v_ti_q.
    d_ew_q   <= t_ew;
    d_kw_q   <= t_kw;
    d_st_q   <= t_st;
    d_fi_q   <= t_fi;
    d_left_q <= t_left;
    d_elem_q <= t_elem;
    d_key_q  <= t_key;
    d_rsz_q  <= t_rsz;
    d_unit_q <= t_unit;
    d_esz_q  <= t_esz;
    d_ksz_q  <= t_ksz;
    {d_f1_q, d_fb_q, d_f2_q, d_f4_q, d_f8_q} <= {t_f1, t_fb, t_f2, t_f4, t_f8};
    d_str_q  <= t_str;
    d_rec_q  <= t_rec;
    d_cont_q <= t_cont;
    d_map_q  <= t_map;
    d_vfail_q <= (t_nest && sp_full_q) || t_bad;
    d_deep_q  <= t_nest && sp_full_q;
    d_sdeep_q <= t_rec && sp_full_q;
    {d_vol_q, z_ol_q, z_od_q} <= {t_vol, t_zol, t_zod};
    // The next beat of SHdr (the field header), SStop (STOP) or SZero,
    // from the step before it.
    // A stalled SHdr or SStop keeps its beat. ANDed, not a mux: a constant
    // would become a reset of fz_*, a level deeper than its D. (Not
    // state_q != SFld2: that is an OR of every other state.)
    if (!(out_stall_i && (state_q == SHdr || state_q == SStop))) begin
      fz_od_q <= ({24{s_fld3}} & {h_id_q[7:0], h_id_q[15:8], 3'b000, h_wire_q}) |
                 ({24{!s_fld3 && !s_fld}} & 24'(z_od_q));
      fz_ol_q <= ({4{s_fld3}} & 4'd3) | ({4{s_fld}} & 4'd1) | ({4{!s_fld3 && !s_fld}} & z_ol_q);
    end
    // A presence word's checks: per byte from the answer (SPresW), over
    // the bytes (SPresK), the verdict (SPresK2).
    mask_q <= st_mask;
    if (state_q == SPresW && rd_valid_i) begin
      for (int g = 0; g < 8; g++) begin
        p1_any_q[g] <= rd_data_i[8*g +: 8] != '0;
        p1_two_q[g] <= two_of8(rd_data_i[8*g +: 8]);
        p1_hi_q[g]  <= (rd_data_i[8*g +: 8] & ~mask_q[8*g +: 8]) != '0;
      end
    end
    p_hi_q    <= p1_hi_q != '0;
    p_zero_q  <= p1_any_q == '0;
    p_m1_q    <= p1_two_q != '0;
    p_m2_q    <= two_of8(p1_any_q);
    p_res_q   <= st_res;
    p_uni_q   <= st_uni;
    p_bad_q   <= p_bad;
    {b_off_q, b_size_q, b_kind_q} <= {b_off_d, b_size_d, b_kind_d};
    // A block's checks over 19-bit words (offsets and sizes are multiples
    // of 8: an offset that is not fails, a size always is), then the verdict.
    ba_hi_q   <= b_off_q[31:AW] != '0;
    ba_mis_q  <= b_off_q[2:0] != '0;
    ba_lo_q   <= b_off_q[AW-1:3] < (AW-3)'(SchemaAreaStart / 8);
    ba_gt_q   <= b_off_q[AW-1:3] > aend_q[AW-1:3];    // past the end
    ba_ovl_q  <= b_off_q[AW-1:3] < ptr_q[AW-1:3];
    ba_shi_q  <= b_size_q[NW-1:AW] != '0;
    // The block's end in two 16-bit-or-less chains (SBlk1, SBlk1b), then
    // past the area end (SBlk1c; with no size bits above AW - 1 and an
    // offset inside the area, the sum has one bit more).
    {bp_c_q, bp_lo_q} <= {1'b0, b_off_q[12:3]} + {1'b0, b_size_q[12:3]};
    {bp_top_q, bp_hi_q} <= {1'b0, b_off_q[AW-1:13]} + {1'b0, b_size_q[AW-1:13]} + (AW-12)'(bp_c_q);
    bb_out_q  <= ba_hi_q || ba_mis_q || ba_lo_q || ba_gt_q || ba_shi_q;
    bb_big_q  <= {bp_top_q, bp_hi_q, bp_lo_q} > {1'b0, aend_q[AW-1:3]};
    bb_ovl_q  <= ba_ovl_q;
    // The shift and add: loaded outside SMul, the lower part's carry
    // added to the upper part a cycle later (SMul2 adds the last).
    if (state_q == SMul) begin
      mb_q <= mb_q << 1;
      mu_q <= mu_q >> 1;
      ad_q <= mu_q[1] ? mb_q << 1 : '0;
    end else begin
      mb_q <= (AccW-3)'(n32[CntW-1:0]);
      mu_q <= d_unit_q >> 3;
      ad_q <= d_unit_q[3] ? (AccW-3)'(n32[CntW-1:0]) : '0;
    end
    if (state_q == SValD) begin                    // (SMul follows SValD only)
      acc_q   <= '0;
      acc_c_q <= 1'b0;
    end else if (state_q == SMul || state_q == SMul2) begin
      {acc_c_q, acc_q[ALo-1:3]} <= {1'b0, acc_q[ALo-1:3]} + {1'b0, ad_q[ALo-1:3]};
      acc_q[AccW-1:ALo] <= acc_q[AccW-1:ALo] + ad_q[AccW-1:ALo] + (AccW-ALo)'(acc_c_q);
    end
    {s_tl_q, s_rh_q, s_rl_q, s_ah_q, s_al_q, s_first_q} <= {s_tl_d, s_rh_d, s_rl_d, s_ah_d, s_al_d, s_first_d};
    {s_occ_q, s_cnt_q, s_rp_q} <= {s_occ_d, s_cnt_d, s_rp_d};
    // The upper words' count less one, address plus one, a cycle late:
    // they change every fourth request at most.
    s_rhm_q <= s_rh_q - 1'b1;
    s_rhz_q <= s_rh_q == '0;
    if (start_i)               s_more_q <= 1'b0;
    else if (state_q == SStrL) s_more_q <= 1'b1;  // a string here has a word
    else if (s_req)            s_more_q <= !(s_rhz_q && s_rl_q == 2'd1);
    s_done_q <= s_emit && s_last;
    s_ahp_q <= s_ah_q + 1'b1;
    // Any answer may land in the fifo (only SStr's are counted and read).
    for (int k = 0; k < 4; k++)
      if (rd_valid_i && s_wp_q == 2'(k)) s_fifo_q[64*k +: 64] <= rd_data_i;
    rd_addr_q <= rd_addr_d;
    {od_q, ol_q, off_q} <= {od_d, ol_d, off_d};
    fc_q <= fc_d;
    fo_q <= (state_q == SPresD) ? f_q.rec : v_at_q;
    // The bytes written, from the beats (registers), the upper half a cycle late.
    cnt_add_q <= ov_q ? ol_q[3:0] : 4'd0;           // a beat's length, counted a cycle later
    if (state_q == SStart) begin
      {cnt_c_q, cnt_lo_q, cnt_hi_q} <= '0;
    end else begin
      {cnt_c_q, cnt_lo_q} <= {1'b0, cnt_lo_q} + {13'd0, cnt_add_q};
      cnt_hi_q <= cnt_hi_q + 16'(cnt_c_q);
    end
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
  if (SchemaMaxElements != 2 ** CntW - 1 || CntW > 16) begin : g_check_max
    $error("resp_schema: MaxElements %0d: the count check wants 2^n - 1, n <= 16", SchemaMaxElements);
  end
  // The types bound the nesting: a push beyond NF frames would lose one.
  // The frame's enables, decided a cycle ahead, are its selects.
  always_ff @(posedge clk_i) begin
    if (rst_ni && state_q != SIdle) begin
      assert (ce_new_q == (s_start || s_pop || s_push)) else $error("resp_schema: ce_new_q %b", ce_new_q);
      assert (ce_rec_q == (s_start || s_pop || s_push || s_el)) else $error("resp_schema: ce_rec_q %b", ce_rec_q);
      assert (ce_pres_q == (s_pw || s_fld || s_pop)) else $error("resp_schema: ce_pres_q %b", ce_pres_q);
      assert (ce_fi_q == (s_start || s_pop || s_push || s_fld)) else $error("resp_schema: ce_fi_q %b", ce_fi_q);
      assert (ce_left_q == (s_start || s_pop || s_push || s_fld || s_el)) else $error("resp_schema: ce_left_q %b", ce_left_q);
    end
    if (spinc) assert (!lvl_q[NF-1]) else $error("resp_schema: a push at level %0d, the service's deepest", NF);
  end
  initial begin
    for (int i = 0; i < NumStructs; i++)
      if (32'(struct_count(StructIdxW'(i))) > 64)
        $fatal(1, "resp_schema: struct %0d has %0d fields: one presence word holds 64", i, struct_count(StructIdxW'(i)));
  end
`endif

endmodule
