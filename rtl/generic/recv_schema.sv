// The generic recvFunction (issue 17): walks the args struct of a CALL of
// one of a service's methods and writes the App.Recv image of docs/abi.md
// section 12, configured by the schema
// package `arcalis idl compile` generates for the service (compile with
// +define+SCHEMA_PKG=<service>_schema_pkg). golden/schemagold is its
// reference, item for item.
//
// The Figure 11 blocks, driven by the schema table: the window is the line
// buffer's (message bytes from the head), the field extractor its capture
// stages (c_*, k_*), the comparator one compare per field of the service
// (hit_q) and an encoder, the operand registers are the value registers
// (v_*), the address adder makes slot and element addresses from a
// record's or an array's base, and the hardware stack holds one frame per
// nesting level (a struct being read or skipped, a list, set or map being
// read or skipped). Strings move Width bytes every other cycle. A record is
// zeroed when it is reserved; its presence word stays in its frame and is
// written at its STOP, its descriptor after it.
//
// Unit-level for now: the head, the message's remaining length and the
// image stores are ports, for tb/schemarx. take_o and st_*_o come from
// registers: the action at the coming edge, decided a cycle earlier, when
// stall_i was 0 (stall_i is a cycle ahead: it holds back the action of the
// next cycle). The window must not lose bytes it showed (avail_i falls
// only by takes). The header (method name, seqid) is checked before
// start_i, outside this module; start_i comes when no walk runs (after
// done_o or a reset): it holds back take_o, the stores and the state,
// not the stack. A value's step (SVal) acts a cycle after it decides.
`ifndef SCHEMA_PKG
`define SCHEMA_PKG define_SCHEMA_PKG_as_a_generated_schema_package
`endif
module recv_schema
  import arcalis_pkg::*;
  import `SCHEMA_PKG::*;
#(
  parameter int unsigned Width = 16,
  localparam int unsigned AW = 22            // image byte addresses: capacity up to 0xFFFF lines
) (
  input  logic               clk_i,
  input  logic               rst_ni,

  input  logic               start_i,         // walk method_i's args struct from the head
  /* verilator lint_off UNUSEDSIGNAL */      // (the bits above the package's MethodIdxW)
  input  logic [7:0]         method_i,        // index in the tables' methods
  /* verilator lint_on UNUSEDSIGNAL */
  input  logic [AW-1:0]      cap_i,           // image capacity C in bytes
  input  logic               stall_i,         // no action next cycle: decide nothing now

  input  logic [Width*8-1:0] win_i,           // message bytes from the head, byte 0 in bits 7:0
  input  logic [7:0]         avail_i,         // how many of them are there (<= Width, <= rem_i)
  input  logic [LenW-1:0]    rem_i,           // message bytes from the head to the end
  input  logic [LenW-1:0]    pos_i,           // the head's offset in the message
  output logic [7:0]         take_o,          // bytes consumed at this edge (a register)

  output logic               st_valid_o,      // an image store at this edge
  output logic [AW-1:0]      st_addr_o,       // its first byte (a multiple of 8)
  output logic [Width*8-1:0] st_data_o,
  output logic [Width-1:0]   st_mask_o,

  output logic               done_o,          // the walk has ended: the fields below hold
  output logic [7:0]         code_o,
  output logic [LenW-1:0]    offset_o,
  output logic [AW-1:0]      area_end_o,
  output logic [3:0]         depth_o,
  output logic [15:0]        miss_struct_o,
  output logic [15:0]        miss_id_o,
  output logic [AW-1:0]      args_size_o
);

  localparam int unsigned Depth = SchemaStackDepth;
  // A record's zeroing stores: a record has at most 64 fields (checked
  // below), so 8 * 65 bytes, at least 8 a store.
  localparam int unsigned ZW    = 8;

  // ---- Schema table lookups built on the package's columns ----
  // The sizes and offsets are the package's (generated from
  // golden/schemagold's layout rules), the wire rules arcalis_pkg's.
  // Zeroing a record of r bytes, Width a store: the stores after the
  // first, and the last one's mask.
  localparam int unsigned LW = $clog2(Width);
  localparam int unsigned GW = Width / 8;        // a store's mask: one bit per 8-byte slot
  function automatic logic [AW-1:0] zero_more(input logic [AW-1:0] r);
    zero_more = (r == '0) ? '0 : (r - 1'b1) >> LW;
  endfunction
  function automatic logic [GW-1:0] zero_last(input logic [LW-1:0] r);   // r mod Width
    for (int g = 0; g < GW; g++) zero_last[g] = r == '0 || LW'(8 * g) < r;
  endfunction
  // Per struct type, folded at elaboration: a lookup is a LUT of the
  // index, with no adder behind it.
  function automatic logic [AW-1:0] type_zn(input logic [TypeIdxW-1:0] t);
    type_zn = '0;
    for (int i = 0; i < NumTypes; i++) if (t == TypeIdxW'(i)) type_zn = zero_more(AW'(type_record_size(TypeIdxW'(i))));
  endfunction
  function automatic logic [GW-1:0] type_zlm(input logic [TypeIdxW-1:0] t);
    type_zlm = '0;
    for (int i = 0; i < NumTypes; i++) if (t == TypeIdxW'(i)) type_zlm = zero_last(LW'(type_record_size(TypeIdxW'(i))));
  endfunction
  // A kept container's shift-and-add steps for a type: the bits of its
  // array unit over 8 (at least one step).
  function automatic logic [4:0] type_msteps(input logic [TypeIdxW-1:0] t);
    type_msteps = 5'd1;
    for (int i = 0; i < NumTypes; i++)
      if (t == TypeIdxW'(i))
        for (int b = 1; b < AW; b++) if ((AW'(type_array_unit(TypeIdxW'(i))) >> 3) >> b != '0) type_msteps = 5'(b + 1);
  endfunction
  // The comparator's encoder, in two steps: the index of the field that
  // hit and a hit bit, each an OR of the hits, first by groups of six
  // fields (NG groups), then of the groups.
  localparam int unsigned NG = (NumFields + 5) / 6;
  function automatic logic [(FieldIdxW+1)*NG-1:0] hit_parts(input logic [NumFields-1:0] h);
    hit_parts = '0;
    for (int i = 0; i < NumFields; i++)
      for (int j = 0; j <= FieldIdxW; j++)
        if (j == FieldIdxW || ((i >> j) & 1) == 1) hit_parts[j*NG + i/6] = hit_parts[j*NG + i/6] | h[i];
  endfunction
  function automatic logic [FieldIdxW:0] hit_index(input logic [(FieldIdxW+1)*NG-1:0] p);
    for (int j = 0; j <= FieldIdxW; j++) hit_index[j] = p[j*NG +: NG] != '0;
  endfunction
  // The lowest bit set.
  function automatic logic [5:0] lowest(input logic [63:0] m);
    lowest = '0;
    for (int k = 63; k >= 0; k--) if (m[k]) lowest = 6'(k);
  endfunction
  // x - 1 as LUTs, no carry chain (a bit flips when the bits below it are 0).
  function automatic logic [7:0] dec_lut(input logic [7:0] x);
    for (int k = 0; k < 8; k++) dec_lut[k] = x[k] ^ ((x & 8'((1 << k) - 1)) == '0);
  endfunction
  // a > b as the borrow of b - a: a carry chain's end, no LUT after it.
  function automatic logic gt14(input logic [13:0] a, input logic [13:0] b);
    /* verilator lint_off UNUSEDSIGNAL */  // (only the borrow is read)
    logic [14:0] d;
    /* verilator lint_on UNUSEDSIGNAL */
    d = {1'b0, b} - {1'b0, a};
    gt14 = d[14];
  endfunction
  // How many frames a one-hot stack pointer says.
  function automatic logic [3:0] sp_count(input logic [Depth:0] sph);
    sp_count = '0;
    for (int n = 0; n <= Depth; n++) if (sph[n]) sp_count = sp_count | 4'(n);
  endfunction
  // The required fields of a struct, bit k for its k-th field.
  function automatic logic [63:0] req_mask(input logic [StructIdxW-1:0] s);
    for (int k = 0; k < 64; k++)
      req_mask[k] = k < 32'(struct_count(s)) && field_req(FieldIdxW'(32'(struct_first(s)) + k)) == 1;
  endfunction

  // The tables the walk reads from registers, as constant vectors: bit b
  // of entry i at b * entries + i. A lookup is an AND with the index
  // decoded, then an OR: a function of the index (a case, or a shift)
  // is a mux tree with constant leaves, which Yosys makes into resets and
  // sets of the registers that take it, two LUT levels before the pin.
  localparam int unsigned NT = 2 ** TypeIdxW, NFd = 2 ** FieldIdxW, NS = 2 ** StructIdxW;
  // A type: record size, array unit, zeroing stores and last mask,
  // shift-and-add steps, struct, element and key (types, wire types, sizes).
  localparam int unsigned TIW = 4 * AW + ZW + GW + 5 + StructIdxW + 2 * TypeIdxW + 10;
  // A field: type, wire type, slot offset.
  localparam int unsigned FIW = TypeIdxW + 5 + AW;
  // A struct: first field, required fields.
  localparam int unsigned SIW = FieldIdxW + 1 + 64;
  function automatic logic [NT*TIW-1:0] t_table(input int n);
    logic [TIW-1:0] e;
    t_table = '0;
    for (int i = 0; i < n; i++) begin
      e = {AW'(type_record_size(TypeIdxW'(i))), AW'(type_array_unit(TypeIdxW'(i))),
           ZW'(type_zn(TypeIdxW'(i))), type_zlm(TypeIdxW'(i)), type_msteps(TypeIdxW'(i)), type_struct(TypeIdxW'(i)),
           type_elem(TypeIdxW'(i)), type_key(TypeIdxW'(i)),
           type_wire(type_elem(TypeIdxW'(i))), type_wire(type_key(TypeIdxW'(i))),
           AW'(type_elem_size(type_elem(TypeIdxW'(i)))), AW'(type_elem_size(type_key(TypeIdxW'(i))))};
      for (int b = 0; b < TIW; b++) t_table[b*NT + i] = e[b];
    end
  endfunction
  function automatic logic [NFd*FIW-1:0] fl_table(input int n);
    logic [FIW-1:0] e;
    fl_table = '0;
    for (int i = 0; i < n; i++) begin
      e = {field_type(FieldIdxW'(i)), field_wire(FieldIdxW'(i)), AW'(field_offset(FieldIdxW'(i)))};
      for (int b = 0; b < FIW; b++) fl_table[b*NFd + i] = e[b];
    end
  endfunction
  function automatic logic [NS*SIW-1:0] s_table(input int n);
    logic [SIW-1:0] e;
    s_table = '0;
    for (int i = 0; i < n; i++) begin
      e = {(FieldIdxW+1)'(struct_first(StructIdxW'(i))), req_mask(StructIdxW'(i))};
      for (int b = 0; b < SIW; b++) s_table[b*NS + i] = e[b];
    end
  endfunction
  localparam logic [NT*TIW-1:0]  TTab  = t_table(NT);
  localparam logic [NFd*FIW-1:0] FlTab = fl_table(NFd);
  localparam logic [NS*SIW-1:0]  STab  = s_table(NS);
  // A method: its args record's zeroing stores and last mask, its size.
  localparam int unsigned NM = 2 ** MethodIdxW, MIW = ZW + GW + AW;
  function automatic logic [NM*MIW-1:0] m_table(input int n);
    logic [MIW-1:0] e;
    m_table = '0;
    for (int i = 0; i < n; i++) begin
      e = {ZW'(zero_more(AW'(struct_size(method_args(MethodIdxW'(i)))))),
           zero_last(LW'(struct_size(method_args(MethodIdxW'(i))))), AW'(struct_size(method_args(MethodIdxW'(i))))};
      for (int b = 0; b < MIW; b++) m_table[b*NM + i] = e[b];
    end
  endfunction
  localparam logic [NM*MIW-1:0]  MTab  = m_table(NM);

  // Big-endian words at window byte 0, 1 and 2 of a 64-bit capture.
  function automatic logic [31:0] be_at(input logic [63:0] w, input int unsigned b);
    be_at = {w[8*b +: 8], w[8*(b+1) +: 8], w[8*(b+2) +: 8], w[8*(b+3) +: 8]};
  endfunction


  // ---- The stack: the top frame in f_q, the ones below in sk_q / fr_q ----
  typedef enum logic [1:0] {FStruct, FList, FMap} fkind_e;
  typedef struct packed {
    fkind_e                kind;
    logic                  keep;      // written to the image (else skipped)
    logic [StructIdxW-1:0] st;        // struct: its index
    logic [AW-1:0]         rec;       // struct: its record
    logic [63:0]           pres;      // struct: its presence word
    logic [16:0]           left;      // container: items left (a map entry is two)
    logic                  isval;     // map: the next item is a value
    logic [TypeIdxW-1:0]   elem, key; // kept container: element (map: value) and key types
    logic [4:0]            elemw, keyw; // container: their wire types
    logic [AW-1:0]         cur;       // kept container: the next item's address
    logic [AW-1:0]         esz, ksz;  // kept container: element (value) and key sizes
    logic                  hasdest;   // kept: a descriptor to write at its end
    logic [AW-1:0]         dest;
    logic [AW-1:0]         doff;
    logic [23:0]           dlen;
    logic                  hasprec;   // kept: a presence bit to set in the frame below at its end
    logic [5:0]            pbit;
  } frame_t;

  // Every decision is taken from registers, and every register's enable
  // and select from a few of them (state bits, one-hot after Yosys's FSM
  // pass; registered flags) and stall_i: two LUT levels at most. A step
  // that reads the message reads what the window showed two cycles
  // earlier, through two capture stages: c_* hold the window's first bytes
  // and what the head offers, k_* what they mean for the value at the head
  // (lengths, types, overflows, a field header's decision kh_*). It may
  // decide only when no take was shown in the last three cycles (fresh):
  // take_o and st_*_o are registers, shown the cycle after the step that
  // decided them. Table lookups, sums and the frame's views (cn_*_q,
  // left_z_q, miss_q, ...) are registers that follow their sources every
  // cycle; the steps that read them wait until they are current (the SFld
  // chain, v_new*, fok_q). Steps with no take, store or result (SArgsW,
  // SArgs0, SFld*, SMiss1-2, SElem, SMul, SArr1-2b, SPush, SPop) skip
  // stall_i. For the 20 % margin (docs/timing.md): sums in halves at bit
  // 12, compares as a chain's borrow, lookups and constants ANDed in, and
  // the enables that would be two levels deep decided a cycle ahead.
  typedef enum logic [4:0] {
    SIdle, SArgsW, SArgs0, SArgs, SZero, SHdr, SFld1, SFld2, SFld3, SFld4, SFld5, SFld6, SReq, SMiss1, SMiss2, SMiss3,
    SVal, SMul, SArr1, SArr2, SArr2b, SArr3, SPush, SElem, SStr, SStrE, SPopP, SPopD, SPop
  } walk_e;

  walk_e                 state_q, state_d;
  // A value is kept only within the service's deepest nesting (MaxDepth
  // levels): every frame below the top has a skip part (sk_q[k*SW +: SW]:
  // kind, keep, items left, element types), only those levels a kept part
  // too (fr_q[k*KW +: KW]). Flat vectors: Yosys 0.23 reads no packed array
  // of more than one dimension, and silently drops a write to an element of
  // one by a variable index; each part is written whole, by a constant one.
  localparam int unsigned Kept = (MaxDepth < Depth) ? MaxDepth : Depth;
  // $bits(frame_t), which Yosys 0.23 does not read (checked below).
  localparam int unsigned FW = 127 + 6 * AW + StructIdxW + 2 * TypeIdxW;
  localparam int unsigned SW = 31;     // kind, keep, left, isval, elemw, keyw
  localparam int unsigned KW = FW - SW; // the rest, in three runs of frame_t:
  localparam int unsigned KA = StructIdxW + AW + 64, KB = 2 * TypeIdxW, KC = 5 * AW + 32;
  logic [Kept*KW-1:0]     fr_q;
  logic [Depth*SW-1:0]    sk_q;
  frame_t                 f_q, f_n;              // the top frame; f_n: its next value (enables applied)
  frame_t                 nf, nf_q;              // the frame a push or SArgs puts on top
  logic                   np_hdr_q;              // nf_q is a skipped struct's
  frame_t                 fb_q;                  // the frame below it, read ahead for a pop
  logic                   push_q;                // a push last cycle: the frame it replaced, and where it goes
  logic [KW-1:0]          p_kb_q;
  logic [SW-1:0]          p_sk_q;
  logic [Depth-1:0]       p_ot_q;
  logic [Depth:0]         sph_q, sph_d;          // frames on the stack, the top one included (one-hot)
  logic [Depth-1:0]       ot, ob;                // the top's level, the one below's (one-hot)
  assign ot = sph_q[Depth:1];
  assign ob = {1'b0, sph_q[Depth:2]};            // (none when the top is the args struct)
  logic [MethodIdxW-1:0]  m_q;
  logic [AW-1:0]          cap_q, room_q;         // the capacity, and what it leaves above ptr_q
  logic [11:0]            rm_lo_q;               // ... its bits 11:0 and their borrow, a cycle ahead
  logic                   rm_b_q;
  logic [AW-1:0]          ar_q, cap64_q;         // the args record's size, the area's
  logic                   afit_q;                // ar_q <= cap64_q (SArgs reads it)
  logic                   af_gt_q, af_eq_q, af_lt_q;   // its halves (SArgs0)
  logic [AW-12:0]         af_hd;
  /* verilator lint_off UNUSEDSIGNAL */  // (only the borrow is read)
  logic [12:0]            af_ld;
  /* verilator lint_on UNUSEDSIGNAL */
  assign af_hd = {1'b0, ar_q[AW-1:12]} - {1'b0, cap64_q[AW-1:12]};
  assign af_ld = {1'b0, cap64_q[11:0]} - {1'b0, ar_q[11:0]};
  logic [AW-1:0]          ptr_q;                 // the area's next free byte (a multiple of 8)
  logic                   res_q, res2_q;         // a reservation last cycle: ptr_q moves by psrc_q (bits 11:0, then the rest)
  logic                   ptr_c_q;
  logic [AW-1:12]         psh_q;                 // psrc_q's bits AW-1:12, for res2_q
  logic [AW-1:0]          psrc_q;                // what a reservation now would add
  logic [6:0]             rw_q, rw_d;            // cycles until room_q, k_* and sovf_q follow ptr_q (a thermometer)
  // A record being zeroed: where, stores after this one, zn_q is 0, the
  // last store's mask; zs_*: what a struct's or the args' reservation now
  // would load into them.
  logic [AW-1:0]          zs_addr_q;
  // zaddr in halves: bits 11:0 step with their carry (zc_q), the rest takes
  // zhp_q (itself + 1) in a cycle of its own after a carry (zfix: no store).
  logic [11:0]            zlo_q, zlo_d;
  logic                   zc_q, zc_d, zstep_q, zfix;
  logic [AW-1:12]         zhi_q, zhp_q;
  logic [ZW-1:0]          zn_q, zn_d, zs_zn_q;
  logic                   zlast_q, zlast_d, zs_last_q;
  logic [GW-1:0]          zlm_q, zlm_d, zs_zlm_q;
  logic [ZW-1:0]          a_zn_q;                // the args record's zn and last mask
  logic [GW-1:0]          a_zlm_q;
  // The value at the head (operand registers): read into the image (keep)
  // as type v_ti_q at v_dest_q, or skipped as wire type v_wire_q. Loaded
  // by SFld6 or SElem (v_new_q, v_new2_q the two cycles after); what the
  // tables say of v_wire_q and v_ti_q follows a cycle later, and the k_*
  // stage a cycle after that.
  logic                   v_keep_q, v_keep_d, v_inline_q, v_inline_d, v_prec_q, v_prec_d, v_new_q, v_new2_q, v_new3_q;
  logic [TypeIdxW-1:0]    v_ti_q, v_ti_d, v_ti2_q;   // v_ti2_q: v_ti_q a cycle late, the tables' index
  logic [4:0]             v_wire_q, v_wire_d;
  logic [AW-1:0]          v_dest_q, v_dest_d;
  logic [5:0]             v_pbit_q, v_pbit_d;
  logic [3:0]             v_size_q;              // schema_fixed_size(v_wire)
  logic                   v_fix_q, v_str_q, v_struct_q, v_cont_q, v_none_q, v_map_q, v_kp_q;
  logic                   v_sz1_q, v_sz2_q, v_sz4_q;          // its wire size is 1, 2, 4
  logic                   v_wbool_q, v_wbyte_q, v_wi16_q, v_wi32_q, v_wi64_q;  // how its slot holds it
  logic [AW-1:0]          v_rsz_q;               // a struct value's record size
  logic [AW-1:0]          v_unit_q;              // a container's bytes per element
  logic [ZW-1:0]          v_zn_q;                // a struct value's record: zn, and the last mask
  logic [GW-1:0]          v_zlm_q;
  logic [4:0]             v_ms_q;                // a container's shift-and-add steps
  // A field header (its type and id, followed in SHdr, held after it), the
  // comparator's answer and the schema table's, a struct's missing
  // required fields.
  logic [4:0]             h_typ_q;
  logic [15:0]            h_id_q;
  logic [NumFields-1:0]   hit_q;                 // the comparator: field i has the struct and the id
  logic [NumStructs-1:0]  st_m_q;                // f_q.st decoded, a cycle late
  // The id compares by 6, 6 and 4 bits, a LUT each: kept, or abc maps a
  // field's compare as one wide LUT (LUT6 and MUXF7/F8), too slow here.
  function automatic logic [16*NumFields-1:0] id_table(input int n);
    for (int i = 0; i < n; i++) id_table[16*i +: 16] = field_id(FieldIdxW'(i));
  endfunction
  localparam logic [16*NumFields-1:0] FIds = id_table(NumFields);
  (* keep *) logic [3*NumFields-1:0] hk;
  always_comb
    for (int i = 0; i < NumFields; i++)
      {hk[3*i+2], hk[3*i+1], hk[3*i]} = {h_id_q[15:12] == FIds[16*i+12 +: 4], h_id_q[11:6] == FIds[16*i+6 +: 6],
                                         h_id_q[5:0] == FIds[16*i +: 6]};
  logic [(FieldIdxW+1)*NG-1:0] hp_q;           // the encoder's first step
  logic [FieldIdxW:0]     found_q;
  logic [FieldIdxW-1:0]   fi;
  logic [TypeIdxW-1:0]    l_ti_q;                // the found field's type, kept, place, slot, address
  logic                   l_keep_q, l_hit_q;
  logic [4:0]             l_wire_q;
  logic [5:0]             l_pbit_q;
  logic [AW-1:0]          slot_q;
  logic [11:0]            ds_lo_q;               // record + slot: bits 11:0, their carry, the rest without and with it
  logic                   ds_c_q;
  logic [AW-1:12]         ds_h0_q, ds_h1_q;
  logic [15:0]            mid_n_q;
  logic [63:0]            miss_q;
  logic                   miss_nz_q;
  logic [5:0]             low_q;
  // A kept container: its count, its array's size by shift and add
  // (acc += count << i for each bit i of the unit, the addend registered),
  // and whether it fits.
  logic [15:0]            n_q;
  logic [AW+1:0]          acc_q;
  logic                   acc_c_q;               // its bits 11:0's carry, added to the rest a cycle later
  logic [AW:0]            mb_q, add_q;
  logic                   ovf_q, mbig_q, addbig_q, aovf_q, ao_lgt_q;   // ao_lgt_q: acc_q's bits 11:0 above room_q's
  logic [AW-1:0]          mu_q;
  logic [4:0]             mc_q;                  // steps left
  // A string's bytes on their way: left, where the next chunk goes, where it began.
  logic [LenW-1:0]        s_left_q, s_left_d, s_len_q, s_len_d;
  logic [AW-1:0]          s_ptr_q, s_ptr_d, s_base_q, s_base_d;
  logic [11:0]            pn_lo_q;               // s_ptr_q + Width: bits 11:0, their carry, the rest without and with it
  logic                   pn_c_q;
  logic [AW-1:12]         pn_h0_q, pn_h1_q;
  logic [7:0]             s_chunk_q;             // min(s_left_q, Width)
  logic                   s_zero_q;              // s_left_q == 0
  logic [Width-1:0]       s_dm_q;                // the chunk's bytes
  logic [Width/8-1:0]     s_cm_q;                // ... its slots (padded to 8)
  // ... and the chunk after it, ready for when this one goes (go_q).
  logic [11:0]            lw_lo_q;               // s_left_q - Width: bits 11:0, their borrow, the rest without and with it
  logic                   lw_b_q;
  logic [LenW-1:12]       lw_h0_q, lw_h1_q;
  logic [LenW-1:0]        s_lw;
  logic                   s_last_q, s_l2_q;      // s_left_q <= Width, <= 2 Width
  // s_left_q in Width units (s_left_q >> LW) is 1, is 2 or more: set with
  // s_left_q, so the chunk masks compare only its low LW bits. A chunk
  // taken subtracts 1 unit: the new flags come from s_ue2_q, s_ug3_q, s_ug4_q
  // (units == 2, >= 3), which follow s_left_q a cycle late, as s_lw_q
  // does (chunks go every other cycle at most).
  logic                   s_u1_q, s_u1_d, s_u2_q, s_u2_d, s_u3_q, s_u3_d, s_ue2_q, s_ug3_q, s_ug4_q;
  logic [Width-1:0]       s_dm2_q;
  logic [Width/8-1:0]     s_cm2_q;
  // A chunk is taken when the window holds it (go_d, from avail_i): a
  // register (go_q) that shows it, and its bytes.
  logic                   go_d, go_q;
  logic [Width*8-1:0]     s_dat_q;
  // Capture stage 1: the window's first 8 bytes and what the head offers.
  logic [63:0]            c_win_q;
  /* verilator lint_off UNUSEDSIGNAL */      // (k = 7: no step reads it)
  logic [8:1]             c_av_q, c_rem_q;       // avail_i >= k, rem_i >= k
  /* verilator lint_on UNUSEDSIGNAL */
  logic [LenW-1:0]        c_pos_q;               // pos_i
  logic [11:0]            c_rlo_q;               // rem_i - 4: bits 11:0, their borrow, bits 23:12 without and with it
  logic                   c_rb_q;
  logic [LenW-1:12]       c_rhi_q, c_rhim_q;
  logic [11:0]            c_p1lo_q, c_p2lo_q, c_p4lo_q;   // pos_i + 1, 2, 4: bits 11:0
  logic [11:3]            c_nplo_q;              // a string length + 7: bits 11:3
  logic                   c_npc_q;
  logic                   c_p1c_q, c_p2c_q, c_p4c_q;      // and their carries
  logic                   c_z0_q, c_b1_q, c_sk0_q, c_sk1_q;   // byte 0 is 0, is 1, a type Apache skips; byte 1 too
  // rem_i >= k as LUT-sized parts (kept, or abc maps each as one wide LUT
  // with MUXF7/F8 after the port): bits 20:3 by six, and bits 23:21 with
  // the low three's compare per k.
  (* keep *) logic [2:0]  rg;
  (* keep *) logic [8:1]  rgk;
  always_comb begin
    rg = {rem_i[20:15] != '0, rem_i[14:9] != '0, rem_i[8:3] != '0};
    for (int k = 1; k <= 8; k++) rgk[k] = rem_i[LenW-1:21] != '0 || (k < 8 && rem_i[2:0] >= 3'(k % 8));
  end
  logic [5:1]             c_nzb_q;
  logic                   c_nuhz_q;              // a string length's bits 23:LW+2 are 0               // bytes 1 to 5 are not 0 (a list's count is bytes 1-4, a map's 2-5)
  // Capture stage 2: what they mean.
  logic                   k_av4_q, k_rem4_q;     // c_av_q[4], c_rem_q[4]
  logic                   k_av4p_q;              // k_av4_q a cycle late: the window strunc and sovf were taken from held the length
  logic                   kh_take_q, kh_stop_q, kh_fail_q;  // a field header: its take, a STOP, a fault
  logic                   kh_any_q;                         // ... one of them
  schema_code_e           kh_code_q;
  logic [4:0]             k_typ_q, k_typ1_q;     // bytes 0 and 1 as wire types
  logic [15:0]            k_id_q;                // bytes 1-2: a field header's id
  logic                   k_rok_q, k_aok_q;      // a fixed value: in the message, in the window
  logic [63:0]            k_fix_q;               // ... as its slot holds it
  logic                   k_sneg_q, k_shi_q;     // a string length: negative, 2^24 or more
  // The length's low half against rem_i - 4's and room_q's (k_tgl_q,
  // k_ogl_q), its high half (k_lh_q) and rem_i - 4's (k_rh_q): strunc and
  // sovf are each one compare of {2^24 or more, high half, low half's
  // verdict} (a carry chain's end).
  logic                   k_tgl_q, k_ogl_q;
  logic [11:0]            k_lh_q, k_rh_q;
  logic                   strunc, sovf;          // a stage later (SVal waits a cycle more for a string)
  logic                   fresh_p_q;             // fresh last cycle
  logic [LenW-1:0]        k_n0_q;
  logic                   k_nu1_q, k_nu2_q, k_nu3_q;  // ... in Width units: 1, 2 or more, 3 or more (s_u*_d)
  logic [AW-1:0]          k_npad_q;              // ... padded to 8 (when it fits the area)
  logic                   k_hok_q, k_hav_q;      // a container's head: in the message, in the window
  logic                   k_cneg_q, k_cbig_q;               // its count: negative, over the limit (negative too)
  logic [15:0]            k_cn_q;
  logic                   k_badk_q;              // a skipped map's key type: not skippable
  logic                   k_cbad_q;              // its count is not 0 and its key or element type is not skippable (one register: d_fail's inputs stay few)
  logic                   k_rovf_q;              // a struct's record does not fit
  logic                   rm_hz_q;               // room_q's bits AW-1:12 are 0
  logic [LenW-1:0]        k_pos_q, k_pos1_q, k_pos2_q, k_pos4_q;
  logic                   tkp_q, fresh_q;        // a take shown last cycle; none but a chunk's shown in this one, none in the two before
  logic                   gpre_q;                // in SStr with bytes left and no take shown but a chunk's: a chunk may go
  logic                   s_zero_d;
  logic                   f_chg_q, fok_q;        // f_q changed a cycle ago; not in the last two
  logic                   el_ok_q;               // fok_q and items left (left_z_q is 0)
  logic                   pset_q;                // a value's presence bit to set in f_q now
  logic                   el_q;                  // SElem took an item: f_q moves to the next one now
  logic [AW-1:0]          pa_q;                  // SPopP's store address (the record), then SPopD's (the descriptor)
  logic                   ns_a_q, ns_s_q, ns_k_q, ns_c_q;    // nf: the args', a struct's, a kept or a skipped container's
  // The actions, registered.
  logic [7:0]             take_q, take_d;        // a value's (SVal, SArr3)
  logic                   th_q, th_d, tr_q, tr_d; // a field header's 3 bytes, a STOP's 1
  logic                   tv_q;                  // take_q != 0
  logic [3:0]             t_amt_q;               // the value's take by its kind
  logic                   d_tk_q;                // SVal's decision takes
  logic                   stv_q, stv_d;
  logic [AW-1:0]          sta_q, sta_d;
  logic [63:0]            std_q, std_d;          // a slot (a string's chunks: s_dat_q)
  logic [GW-1:0]          stm_q, stm_d;          // by 8-byte slots
  // The result.
  logic                   done_q, done_d;
  schema_code_e           code_q, code_d;
  logic [LenW-1:0]        off_q, off_d;
  logic [AW-1:0]          aend_q, aend_d, asize_q, asize_d;
  logic [3:0]             depth_q, depth_d;
  logic [15:0]            mst_q, mst_d, mid_q, mid_d;

  // The frame below the top, as the stack holds it.
  logic [KW-1:0]          b_kb;
  logic [SW-1:0]          b_sk;
  always_comb begin
    b_kb = '0;
    b_sk = '0;
    for (int k = 0; k < Kept; k++) b_kb = b_kb | ({KW{ob[k]}} & fr_q[k*KW +: KW]);
    for (int k = 0; k < Depth; k++) b_sk = b_sk | ({SW{ob[k]}} & sk_q[k*SW +: SW]);
  end
  // The top frame's parts as the stack holds them.
  logic [KW-1:0]          f_kb;
  logic [SW-1:0]          f_sk;
  assign f_kb = {f_q.st, f_q.rec, f_q.pres, f_q.elem, f_q.key, f_q.cur, f_q.esz, f_q.ksz, f_q.hasdest, f_q.dest, f_q.doff, f_q.dlen, f_q.hasprec, f_q.pbit};
  assign f_sk = {f_q.kind, f_q.keep, f_q.left, f_q.isval, f_q.elemw, f_q.keyw};

  // Views of the top frame, a cycle late (fok_q: the steps
  // that read them wait two cycles after a change).
  logic [AW-1:0]          inc_q;                 // a kept container's item size
  logic [11:0]            cn_lo_q;               // its next item's address: bits 11:0, their carry, the rest
  logic                   cn_c_q;
  logic [AW-1:12]         cn_h0_q, cn_h1_q, incn_q;   // incn_q: ~inc_q[AW-1:12]
  logic                   left_z_q;              // f_q.left == 0
  logic [16:0]            left_m1_q;             // f_q.left - 1
  logic [63:0]            poh_q, soh_q;          // the presence bit a pop sets below, a value sets in f_q
  logic [FieldIdxW:0]     f_first_q;             // struct_first(f_q.st) (up to NumFields)
  // Table lookups of v_ti_q (a step reads them at least a cycle after
  // their index is set).
  logic [StructIdxW-1:0]  v_st_q;                // type_struct(v_ti_q)
  logic [TypeIdxW-1:0]    a_elem_q, a_key_q;     // type_elem, type_key of v_ti_q
  logic [4:0]             a_elemw_q, a_keyw_q;   // ... their wire types
  logic [AW-1:0]          a_esz_q, a_ksz_q;      // ... their sizes
  // The lookups (tables above) of v_ti2_q, fi and f_q.st.
  logic [NT-1:0]  t_oh;
  logic [NFd-1:0] fl_oh;
  logic [NS-1:0]  st_oh;
  logic [TIW-1:0] t_info;
  logic [FIW-1:0] fl_info;
  logic [SIW-1:0] st_info;
  logic [NM-1:0]  m_oh;
  logic [MIW-1:0] m_info;
  always_comb begin
    for (int i = 0; i < NT; i++)  t_oh[i]  = v_ti2_q == TypeIdxW'(i);
    for (int i = 0; i < NFd; i++) fl_oh[i] = fi == FieldIdxW'(i);
    for (int i = 0; i < NS; i++)  st_oh[i] = f_q.st == StructIdxW'(i);
    for (int i = 0; i < NM; i++)  m_oh[i]  = MethodIdxW'(method_i) == MethodIdxW'(i);
    for (int b = 0; b < MIW; b++) m_info[b] = |(MTab[b*NM +: NM] & m_oh);
    for (int b = 0; b < TIW; b++) t_info[b]  = |(TTab[b*NT +: NT] & t_oh);
    for (int b = 0; b < FIW; b++) fl_info[b] = |(FlTab[b*NFd +: NFd] & fl_oh);
    for (int b = 0; b < SIW; b++) st_info[b] = |(STab[b*NS +: NS] & st_oh);
  end
  logic [AW-1:0]         t_rsz, t_unit, t_esz, t_ksz, fl_off;
  logic [ZW-1:0]         t_zn;
  logic [GW-1:0]         t_zlm;
  logic [4:0]            t_ms, t_elemw, t_keyw, fl_wire;
  logic [StructIdxW-1:0] t_st;
  logic [TypeIdxW-1:0]   t_elem, t_key, fl_type;
  logic [FieldIdxW:0]    st_first;
  logic [63:0]           st_req;
  assign {t_rsz, t_unit, t_zn, t_zlm, t_ms, t_st, t_elem, t_key, t_elemw, t_keyw, t_esz, t_ksz} = t_info;
  assign {fl_type, fl_wire, fl_off} = fl_info;
  assign {st_first, st_req} = st_info;
  logic  tk_now, tk_d, tv_d, fresh, f_ok;
  assign tk_now = th_q || tr_q || tv_q || go_q;  // a take shown this cycle
  assign fresh  = fresh_q && !go_q;              // k_* describe the window at the head
  assign f_ok   = fok_q;                         // f_q's views are current
  walk_e item;                                   // the top frame's next item
  logic  item_s_q;                               // f_q.kind == FStruct, a cycle late
  assign item = item_s_q ? SHdr : SElem;          // (f_q.kind stands still around a value's end)

  // SVal's decision, made a cycle before its action (d_*_q, one-hot, and
  // the fail code): from registers that hold while a value waits at the
  // head (fresh: no take on its way; avail_i only grows, which can delay
  // an action a cycle more). sv_go_q: the decision is for this cycle (SVal
  // decided last cycle with fresh k_*, and did not act). One cycle more
  // per value.
  logic            d_fail, d_fix, d_str, d_sct, d_mul, d_cnt;   // fail; a fixed value's take, a string's length, a struct's push, a kept container's size, a skipped container's push
  logic            d_wait;                                      // the value's head not yet in the window
  schema_code_e    d_code;
  logic            d_o1, d_o2, d_o4;                            // the fault's offset: k_pos1_q, k_pos2_q, k_pos4_q (else k_pos_q)
  logic            d_fail_q, d_fix_q, d_str_q, d_sct_q, d_mul_q, d_cnt_q;
  logic            d_any_q, d_res_q;                              // decided; area reserved (a kept string or record)
  schema_code_e    d_code_q;
  logic            d_o1_q, d_o2_q, d_o4_q, d_oany_q;
  logic            sv_go_q, sv_go_d;
  // One term per kind of value (v_fix_q, v_str_q, v_struct_q, v_cont_q
  // are exclusive; none of them: a UUID element, which the image cannot
  // hold). A value fails unless it acts or waits.
  logic c_ok;                                    // a container's head is there and its count is good
  assign c_ok = v_cont_q && !sph_q[Depth] && k_hok_q && k_hav_q && !k_cbig_q;
  always_comb begin
    d_wait = (v_fix_q && k_rok_q && !k_aok_q) || (v_str_q && k_rem4_q && !k_av4p_q) ||
             (v_cont_q && !sph_q[Depth] && k_hok_q && !k_hav_q);
    d_fix  = v_fix_q && k_rok_q && k_aok_q;
    d_str  = v_str_q && k_rem4_q && k_av4p_q && !k_sneg_q && !strunc && !(v_keep_q && sovf);
    d_sct  = v_struct_q && !sph_q[Depth] && !(v_keep_q && !v_inline_q && k_rovf_q);
    d_mul  = c_ok && v_keep_q;
    d_cnt  = c_ok && !v_keep_q && !k_cbad_q;
    d_fail = (v_fix_q && !k_rok_q) ||
             (v_str_q && (!k_rem4_q || (k_av4p_q && (k_sneg_q || strunc || (v_keep_q && sovf))))) ||
             (v_struct_q && (sph_q[Depth] || (v_keep_q && !v_inline_q && k_rovf_q))) ||
             (v_cont_q && (sph_q[Depth] || !k_hok_q || (k_hav_q && (k_cbig_q ||
                                                                   (!v_keep_q && k_cbad_q))))) ||
             v_none_q;
    // The fault's code and offset (read only with d_fail).
    if (v_fix_q)
      d_code = ScTruncated;
    else if (v_str_q)
      d_code = !k_rem4_q ? ScTruncated : k_sneg_q ? ScBadLength : strunc ? ScTruncated : ScAreaOverflow;
    else if (v_struct_q)
      d_code = sph_q[Depth] ? ScDepthExceeded : ScAreaOverflow;
    else if (v_cont_q)
      d_code = sph_q[Depth] ? ScDepthExceeded : !k_hok_q ? ScTruncated : k_cneg_q ? ScBadLength :
               k_cbig_q ? ScTooManyElements : ScBadType;
    else
      d_code = ScBadType;
    d_o4 = v_str_q && k_rem4_q && !k_sneg_q && strunc;
    d_o2 = v_cont_q && !sph_q[Depth] && k_hok_q && k_cbig_q && v_map_q;
    d_o1 = v_cont_q && !sph_q[Depth] && k_hok_q && (v_map_q ? !k_cbig_q && !k_badk_q : k_cbig_q);
  end

  // ---- The steps that act at this edge ----
  // Each is a state bit and a few registered flags, and !stall_i where the
  // step takes, stores or ends the walk.
  logic go;
  assign go = !stall_i;
  logic hdr, req, elem, val;
  logic x_args, x_args_fail, x_hdr_take, x_hdr_fail, x_req_take, x_miss3;
  logic x_elem, x_fix, x_arr, x_arr_fail, x_zero, str_end, x_popp, x_popd, x_done;
  logic x_fail, x_pset, x_res, x_vload, f_ce_frame, f_ce_item, f_ce_pres;
  logic s_popd, s_elem, s_push, s_pop, s_zero, zs_a, ce_frame_q;
  logic str_q;                                   // SStr or SStrE, a register (the string registers' enable)
  assign zs_a = state_q == SArgs0 || state_q == SArgs;
  logic ps_a_q, ps_arr_q;                        // psrc_q's selects: SArgs0 or SArgs, SArr2b or SArr3
  assign s_popd      = state_q == SPopD;
  assign s_elem      = state_q == SElem;
  assign s_push      = state_q == SPush;
  assign s_pop       = state_q == SPop;
  assign s_zero      = state_q == SZero;
  assign x_args      = state_q == SArgs && afit_q;
  assign x_args_fail = state_q == SArgs && go && !afit_q;
  assign zfix        = zc_q && zstep_q;
  assign x_zero      = s_zero && go && !zfix;
  assign hdr         = state_q == SHdr && go && fresh_q;   // (fresh: no chunk shows in SHdr, asserted)
  assign x_hdr_take  = hdr && kh_take_q;
  assign x_hdr_fail  = hdr && kh_fail_q;
  assign req         = state_q == SReq && go && f_ok;
  assign x_req_take  = req && !(f_q.keep && miss_nz_q);
  assign x_miss3     = state_q == SMiss3 && go;
  assign elem        = s_elem && f_ok;
  assign x_elem      = s_elem && el_ok_q;          // (el_ok_q: f_ok && !left_z_q)
  assign val         = sv_go_q && go;            // sv_go_q is set only in SVal
  assign sv_go_d     = state_q == SVal && fresh && (!v_str_q || fresh_p_q) && !v_new_q && !v_new2_q && !v_new3_q &&
                       !rw_q[0] && !start_i && !(val && d_any_q);
  assign x_fix       = val && d_fix_q;
  assign x_arr       = state_q == SArr3 && go && !aovf_q;
  assign x_arr_fail  = state_q == SArr3 && go && aovf_q;
  assign str_end     = state_q == SStrE && go;   // (SStr's last chunk shown, SStrE stores the descriptor)
  assign x_popp      = state_q == SPopP && go;
  assign x_popd      = s_popd && go;
  assign x_done      = x_popd && sph_q[1];
  assign x_fail      = x_args_fail || x_hdr_fail || x_miss3 || (val && d_fail_q) || x_arr_fail;
  assign x_pset      = (x_fix || str_end) && v_kp_q;
  assign x_res       = (x_args || (val && d_res_q && d_any_q) || x_arr) && !start_i;
  assign tk_d        = th_d || tr_d || tv_d;
  // (Every SElem cycle loads the item at hand: only SVal, after x_elem,
  // reads the operands, so the enable is two state bits.)
  assign x_vload     = state_q == SFld6 || s_elem;
  // The top frame changes in steps of their own, a cycle after the step
  // that decided (SPush, SPop, pset_q, el_q), with no take or store.
  assign f_ce_frame  = ce_frame_q;                // s_push || s_pop || state_q == SArgs, decided a cycle ahead
  assign f_ce_item   = f_ce_frame || el_q;
  assign f_ce_pres   = f_ce_frame || pset_q;

  // The next state. A failing step names SIdle itself.
  always_comb begin
    state_d = state_q;
    unique case (state_q)
      SIdle:  ;
      SArgsW: state_d = SArgs0;                    // af_*_q, then afit_q
      SArgs0: state_d = SArgs;
      SArgs:  if (afit_q) state_d = SZero; else if (go) state_d = SIdle;
      SZero:  if (x_zero && zlast_q) state_d = SHdr;
      // (SHdr stays on kh_any_q alone: one of kh_take_q, kh_stop_q and
      // kh_fail_q. SVal's d_*_q are one-hot: no priority between them.)
      SHdr:   if (hdr && kh_any_q) begin
        if (kh_take_q)      state_d = SFld1;
        else if (kh_stop_q) state_d = SReq;
        else                state_d = SIdle;   // kh_fail_q
      end
      SFld1:  state_d = SFld2;
      SFld2:  state_d = SFld3;
      SFld3:  state_d = SFld4;
      SFld4:  state_d = SFld5;
      SFld5:  state_d = SFld6;
      SFld6:  state_d = SVal;
      SReq:   if (req) state_d = (f_q.keep && miss_nz_q) ? SMiss1 : SPopP;
      SMiss1: state_d = SMiss2;
      SMiss2: state_d = SMiss3;
      SMiss3: if (go) state_d = SIdle;
      SElem:  if (elem) state_d = left_z_q ? SPopP : SVal;
      SVal:   if (val) begin
        unique case (1'b1)                       // (one-hot: no priority terms)
          d_fix_q:          state_d = item;
          d_fail_q:         state_d = SIdle;
          d_str_q:          state_d = SStr;
          d_sct_q, d_cnt_q: state_d = SPush;
          d_mul_q:          state_d = SMul;
          default: ;
        endcase
      end
      SMul:   if (mc_q == 5'd1) state_d = SArr1;
      SArr1:  state_d = SArr2;
      SArr2:  state_d = SArr2b;                    // the sum's high half
      SArr2b: state_d = SArr3;
      SArr3:  if (go) state_d = aovf_q ? SIdle : SPush;
      SPush:  state_d = np_hdr_q ? SHdr : (nf_q.kind != FStruct) ? SElem : SZero;
      SStr:   if (!tv_q && !go_q && s_zero_q) state_d = SStrE;   // (no other take shows in SStr)
      SStrE:  if (go) state_d = item;
      SPopP:  if (go) state_d = SPopD;
      SPopD:  if (go) state_d = sph_q[1] ? SIdle : SPop;
      SPop:   state_d = (fb_q.kind == FStruct) ? SHdr : SElem;
      default: ;
    endcase
    if (start_i) state_d = SArgsW;
  end

  // The actions shown at the next edge, and the result.
  always_comb begin
    th_d   = x_hdr_take && !start_i;
    tr_d   = x_req_take && !start_i;
    tv_d   = ((val && d_tk_q) || x_arr) && !start_i;
    take_d = tv_d ? 8'(t_amt_q) : '0;
    stv_d = !start_i && (x_zero || ((x_fix || str_end) && v_keep_q) ||
                         (x_popp && f_q.keep && f_q.kind == FStruct) || (x_popd && f_q.keep && f_q.hasdest));
    // What is stored, chosen by the state alone (stv_d says whether).
    unique case (state_q)
      SZero:        sta_d = {zhi_q, zlo_q};
      SPopP, SPopD: sta_d = pa_q;
      default:      sta_d = v_dest_q;            // SVal, SStr
    endcase
    unique case (state_q)
      SVal:    std_d = k_fix_q;
      SStrE:   std_d = {8'(0), s_len_q, 10'(0), s_base_q};
      SPopP:   std_d = f_q.pres;
      SPopD:   std_d = {8'(0), f_q.dlen, 10'(0), f_q.doff};
      default: std_d = '0;                       // SZero
    endcase
    stm_d = !s_zero ? GW'(1) : zlast_q ? zlm_q : '1;
    done_d = !start_i && (done_q || x_fail || x_done);
    // The result registers follow the step until done_q is set: what it
    // would say if it ended now (at SPopD: the args struct's STOP, its take
    // applied). Then they hold.
    {code_d, off_d, aend_d, depth_d, mst_d, mid_d} = {code_q, off_q, aend_q, depth_q, mst_q, mid_q};
    if (!done_q) begin
      unique case (state_q)
        SPopD:        code_d = ScOk;
        SVal:         code_d = d_code_q;
        SHdr:         code_d = kh_code_q;
        SMiss3:       code_d = ScRequiredMissing;
        SArgs, SArr3: code_d = ScAreaOverflow;
        default:      code_d = ScNone;
      endcase
      off_d = ({LenW{s_popd}} & pos_i) | ({LenW{d_o1_q}} & k_pos1_q) | ({LenW{d_o2_q}} & k_pos2_q) |
              ({LenW{d_o4_q}} & k_pos4_q) | ({LenW{!s_popd && !d_oany_q}} & k_pos_q);
      aend_d  = (state_q == SArgs) ? AW'(SchemaAreaStart) : ptr_q;
      depth_d = (state_q == SArgs || s_popd) ? '0 : sp_count(sph_q);
      {mst_d, mid_d} = (state_q == SMiss3) ? {16'(f_q.st), mid_n_q} : '0;
    end
    asize_d = afit_q ? ar_q : '0;                 // ar_q, afit_q hold from start_i on
  end

  // The area's pointer: a reservation adds psrc_q (its choice made a cycle
  // earlier from registers that hold while the step waits), a cycle later.
  always_comb begin
    rw_d  = x_res ? 7'b1111111 : rw_q >> 1;
  end

  // A record's zeroing: a store a cycle in SZero. Outside SZero the
  // registers follow zs_*, which hold from the reservation (SArgs, or a
  // kept struct's SVal) to SZero: no enable waits for the decision.
  always_comb begin
    {zlo_d, zn_d, zlast_d, zlm_d} = {zlo_q, zn_q, zlast_q, zlm_q};
    // (Every cycle, so that zc_d is the carry out of a chain, no LUT after.)
    {zc_d, zlo_d} = {1'b0, s_zero ? zlo_q : zs_addr_q[11:0]} + (s_zero ? 13'(Width) : '0);
    if (s_zero && !x_zero) zlo_d = zlo_q;
    if (!s_zero || x_zero) begin
      zn_d    = s_zero ? ZW'(dec_lut(8'(zn_q))) : zs_zn_q;
      zlast_d = s_zero ? zn_q == ZW'(1) : zs_last_q;
      zlm_d   = s_zero ? zlm_q : zs_zlm_q;
    end
  end

  // The operand registers: a field's (SFld6, from the registered lookups)
  // or a container item's (SElem, from the top frame).
  always_comb begin
    {v_keep_d, v_inline_d, v_prec_d, v_ti_d, v_wire_d, v_dest_d, v_pbit_d} =
      {v_keep_q, v_inline_q, v_prec_q, v_ti_q, v_wire_q, v_dest_q, v_pbit_q};
    if (x_vload) begin
      if (s_elem) begin
        v_keep_d   = f_q.keep;
        v_inline_d = 1'b1;
        v_prec_d   = 1'b0;
        v_dest_d   = f_q.cur;
        v_ti_d     = (f_q.kind == FMap && !f_q.isval) ? f_q.key : f_q.elem;
        v_wire_d   = (f_q.kind == FMap && !f_q.isval) ? f_q.keyw : f_q.elemw;
      end else begin
        v_keep_d   = l_keep_q;
        v_inline_d = 1'b0;
        v_prec_d   = 1'b1;
        v_dest_d   = {ds_c_q ? ds_h1_q : ds_h0_q, ds_lo_q};
        v_ti_d     = l_ti_q;
        v_wire_d   = h_typ_q;
      end
      v_pbit_d = l_pbit_q;                        // read only with v_prec_q
    end
  end

  // The stack pointer (one-hot): SPush moves it up, SPop down.
  always_comb begin
    // (SArgs, SPush and SPop are ce_frame_q: the enable is one LUT.)
    sph_d = sph_q;
    if (state_q == SArgs0)  sph_d = (Depth+1)'(1);
    else if (ce_frame_q)    sph_d = s_pop ? sph_q >> 1 : s_push ? sph_q << 1 : (Depth+1)'(2);
  end

  // The frame a push or SArgs puts on top, from registers that hold while
  // the step waits (a struct value's, a kept container's after SArr3, a
  // skipped container's from the k_* stage, the args').
  frame_t nf_a, nf_s, nf_k, nf_c;
  always_comb begin
    {nf_a, nf_s, nf_k, nf_c} = '0;
    nf_a.kind    = FStruct;
    nf_a.keep    = 1'b1;
    nf_a.st      = method_args(m_q);
    nf_a.rec     = AW'(SchemaAreaStart);
    nf_s.kind    = FStruct;
    nf_s.keep    = v_keep_q;
    nf_s.st      = v_st_q;
    nf_s.rec     = v_inline_q ? v_dest_q : ptr_q;
    nf_s.hasdest = !v_inline_q;
    nf_s.dlen    = 24'(v_rsz_q);
    nf_k.kind    = v_map_q ? FMap : FList;
    nf_k.keep    = 1'b1;
    nf_k.left    = v_map_q ? {n_q, 1'b0} : {1'b0, n_q};
    nf_k.elem    = a_elem_q;
    nf_k.key     = a_key_q;
    nf_k.elemw   = a_elemw_q;
    nf_k.keyw    = a_keyw_q;
    nf_k.cur     = ptr_q;
    nf_k.esz     = a_esz_q;
    nf_k.ksz     = v_map_q ? a_ksz_q : '0;
    nf_k.hasdest = 1'b1;
    nf_k.dlen    = 24'(n_q);
    nf_c.kind    = v_map_q ? FMap : FList;
    nf_c.left    = v_map_q ? {k_cn_q, 1'b0} : {1'b0, k_cn_q};
    nf_c.keyw    = k_typ_q;
    nf_c.elemw   = v_map_q ? k_typ1_q : k_typ_q;
    nf = ({FW{ns_a_q}} & nf_a) | ({FW{ns_s_q}} & nf_s) | ({FW{ns_k_q}} & nf_k) | ({FW{ns_c_q}} & nf_c);
    // A kept value's descriptor and presence bit, the same for a struct and
    // a container (read only under keep, hasdest and hasprec).
    {nf.dest, nf.doff, nf.hasprec, nf.pbit} = {v_dest_q, ptr_q, v_prec_q, v_pbit_q};
  end

  // The top frame's next value: each part through its own enable, its
  // choice by the state alone (a pop takes the frame below, SElem moves to
  // the next item, a value sets its presence bit, anything else loads
  // nf_q). f_n: one write of the whole f_q below.
  always_comb begin
    f_n = f_q;
    if (f_ce_frame) begin
      {f_n.kind, f_n.keep, f_n.st, f_n.rec, f_n.elem, f_n.key, f_n.elemw, f_n.keyw, f_n.esz, f_n.ksz} = s_pop ?
        {fb_q.kind, fb_q.keep, fb_q.st, fb_q.rec, fb_q.elem, fb_q.key, fb_q.elemw, fb_q.keyw, fb_q.esz, fb_q.ksz} :
        {nf_q.kind, nf_q.keep, nf_q.st, nf_q.rec, nf_q.elem, nf_q.key, nf_q.elemw, nf_q.keyw, nf_q.esz, nf_q.ksz};
      {f_n.hasdest, f_n.dest, f_n.doff, f_n.dlen, f_n.hasprec, f_n.pbit} = s_pop ?
        {fb_q.hasdest, fb_q.dest, fb_q.doff, fb_q.dlen, fb_q.hasprec, fb_q.pbit} :
        {nf_q.hasdest, nf_q.dest, nf_q.doff, nf_q.dlen, nf_q.hasprec, nf_q.pbit};
    end
    if (f_ce_item)
      {f_n.left, f_n.isval, f_n.cur} = s_pop ? {fb_q.left, fb_q.isval, fb_q.cur} :
        el_q ? {left_m1_q, f_q.kind == FMap && !f_q.isval, cn_c_q ? cn_h1_q : cn_h0_q, cn_lo_q} : {nf_q.left, nf_q.isval, nf_q.cur};
    if (f_ce_pres)
      f_n.pres = s_pop ? (fb_q.pres | poh_q) : pset_q ? (f_q.pres | soh_q) : nf_q.pres;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= SIdle;
      done_q  <= 1'b0;
      code_q  <= ScNone;
      {take_q, th_q, tr_q, tv_q} <= '0;
      stv_q   <= 1'b0;
      {tkp_q, fresh_q, gpre_q} <= '0;
      push_q  <= 1'b0;
      go_q    <= 1'b0;
      rw_q    <= '0;
      sv_go_q <= 1'b0;
    end else begin
      state_q <= state_d;
      done_q  <= done_d;
      code_q  <= code_d;
      {take_q, th_q, tr_q, tv_q} <= {take_d, th_d, tr_d, tv_d};
      stv_q   <= stv_d;
      tkp_q   <= tk_now;
      fresh_q <= !tk_d && !tk_now && !tkp_q;
      gpre_q  <= !start_i && state_q == SStr && !s_zero_d;
      push_q  <= s_push;
      go_q    <= go_d;
      rw_q    <= rw_d;
      sv_go_q <= sv_go_d;
    end
  end
  always_ff @(posedge clk_i) begin
    // A push puts the top frame on the stack (the new one goes to f_q),
    // a cycle later, from registers: the stack is not read before.
    {p_kb_q, p_sk_q, p_ot_q} <= {f_kb, f_sk, ot};
    for (int k = 0; k < Kept; k++)
      if (push_q && p_ot_q[k]) fr_q[k*KW +: KW] <= p_kb_q;
    for (int k = 0; k < Depth; k++)
      if (push_q && p_ot_q[k]) sk_q[k*SW +: SW] <= p_sk_q;
    f_q  <= f_n;
    nf_q <= nf;
    np_hdr_q <= nf.kind == FStruct && !nf.keep;  // SPush goes to SHdr
    fb_q <= {b_sk[30:28], b_kb[KW-1 -: KA], b_sk[27:10], b_kb[KB+KC-1 -: KB], b_sk[9:0], b_kb[KC-1:0]};
    item_s_q <= f_q.kind == FStruct;
    sph_q   <= sph_d;
    f_chg_q <= f_ce_item || f_ce_pres;
    fok_q   <= !(f_ce_item || f_ce_pres) && !f_chg_q;
    el_ok_q <= !(f_ce_item || f_ce_pres) && !f_chg_q && f_q.left != '0;
    pset_q  <= x_pset;
    str_q   <= !start_i && ((val && d_str_q) || state_q == SStr || (state_q == SStrE && !go));
    // SPush, SPop or SArgs next: SVal's push, SArr3's, SPopD's pop, SArgs0.
    ce_frame_q <= !start_i && ((sv_go_q && go && (d_sct_q || d_cnt_q)) || (state_q == SArr3 && go && !aovf_q) ||
                               (s_popd && go && !sph_q[1]) || state_q == SArgs0);
    el_q    <= x_elem;
    pa_q    <= (x_popp || s_popd) ? f_q.dest : f_q.rec;
    ns_a_q  <= start_i || state_q == SArgsW || state_q == SArgs0 || state_q == SArgs;
    ns_s_q  <= !(start_i || state_q == SArgsW || state_q == SArgs0 || state_q == SArgs) && v_struct_q;
    ns_k_q  <= !(start_i || state_q == SArgsW || state_q == SArgs0 || state_q == SArgs) && !v_struct_q && v_keep_q;
    ns_c_q  <= !(start_i || state_q == SArgsW || state_q == SArgs0 || state_q == SArgs) && !v_struct_q && !v_keep_q;
    if (start_i) begin
      {a_zn_q, a_zlm_q, ar_q} <= m_info;
      m_q     <= MethodIdxW'(method_i);
      cap_q   <= cap_i;
      cap64_q <= cap_i - AW'(SchemaAreaStart);
    end
    af_gt_q <= af_hd[AW-12];                     // (borrows: carry chains, no LUT after)
    af_eq_q <= cap64_q[AW-1:12] == ar_q[AW-1:12];
    af_lt_q <= af_ld[12];
    afit_q  <= af_gt_q || (af_eq_q && !af_lt_q);
    // (Two halves, the high one a cycle later: rw_q waits for both.)
    {rm_b_q, rm_lo_q} <= {1'b0, cap_q[11:0]} - {1'b0, ptr_q[11:0]};
    room_q  <= {(AW-12)'(({cap_q[AW-1:12], !rm_b_q} + {~ptr_q[AW-1:12], 1'b1}) >> 1), rm_lo_q};
    // A reservation moves bits 11:0 (with their carry), then the rest.
    if (state_q == SArgs0) begin
      ptr_q  <= AW'(SchemaAreaStart);
      res2_q <= 1'b0;
    end else begin
      if (res_q) {ptr_c_q, ptr_q[11:0]} <= {1'b0, ptr_q[11:0]} + {1'b0, psrc_q[11:0]};
      if (res2_q) ptr_q[AW-1:12] <= (AW-12)'(({ptr_q[AW-1:12], ptr_c_q} + {psh_q, ptr_c_q}) >> 1);
      res2_q <= res_q;
    end
    psh_q   <= psrc_q[AW-1:12];
    res_q   <= x_res;
    // (ANDed, not muxed: a service's constant bits would become resets.)
    psrc_q  <= ({AW{ps_a_q}} & ar_q) | ({AW{ps_arr_q}} & acc_q[AW-1:0]) |
               ({AW{!ps_a_q && !ps_arr_q && v_str_q}} & k_npad_q) | ({AW{!ps_a_q && !ps_arr_q && !v_str_q}} & v_rsz_q);
    // Its selects, a cycle ahead: SArgs0 or SArgs next; SArr2b or SArr3 next.
    ps_a_q   <= state_q == SArgsW || state_q == SArgs0;
    ps_arr_q <= state_q == SArr2 || state_q == SArr2b || (state_q == SArr3 && !go);
    {zlo_q, zn_q, zlast_q, zlm_q} <= {zlo_d, zn_d, zlast_d, zlm_d};
    zc_q    <= zc_d;
    zstep_q <= x_zero;
    zhp_q   <= zhi_q + 1'b1;                     // (current by a carry: a carry comes a cycle after the first step)
    if (!s_zero)   zhi_q <= zs_addr_q[AW-1:12];
    else if (zfix) zhi_q <= zhp_q;
    // (ANDed, not muxed: the constant would become resets of zs_addr_q.)
    zs_addr_q <= ({AW{zs_a}} & AW'(SchemaAreaStart)) | ({AW{!zs_a && v_inline_q}} & v_dest_q) |
                 ({AW{!zs_a && !v_inline_q}} & ptr_q);
    zs_zn_q   <= ({ZW{zs_a}} & a_zn_q) | ({ZW{!zs_a}} & v_zn_q);
    zs_last_q <= (zs_a && a_zn_q == '0) || (!zs_a && v_zn_q == '0);
    zs_zlm_q  <= ({GW{zs_a}} & a_zlm_q) | ({GW{!zs_a}} & v_zlm_q);
    // The top frame's views.
    f_first_q <= st_first;
    inc_q     <= (f_q.kind == FMap && !f_q.isval) ? f_q.ksz : f_q.esz;
    // (In halves, the high one without and with the low one's carry.)
    {cn_c_q, cn_lo_q} <= {1'b0, f_q.cur[11:0]} + {1'b0, inc_q[11:0]};
    cn_h0_q   <= f_q.cur[AW-1:12] + inc_q[AW-1:12];
    // cur + inc + 1 as cur - ~inc, from an inverted copy of inc_q's bits:
    // its first LUTs are not cn_h0_q's (a shared LUT would be routed).
    cn_h1_q   <= f_q.cur[AW-1:12] - incn_q;
    incn_q    <= ~((f_q.kind == FMap && !f_q.isval) ? f_q.ksz[AW-1:12] : f_q.esz[AW-1:12]);
    left_z_q  <= f_q.left == '0;
    left_m1_q <= f_q.left - 1'b1;
    for (int k = 0; k < 64; k++) poh_q[k] <= f_q.keep && f_q.hasprec && f_q.pbit == 6'(k);   // (a decode: no resets)
    miss_q    <= st_req & ~f_q.pres;
    miss_nz_q <= miss_q != '0;
    low_q     <= lowest(miss_q);
    mid_n_q   <= field_id(FieldIdxW'(32'(f_first_q) + 32'(low_q)));
    // A field header, followed while SHdr waits, held after it; the
    // comparator (one compare per field of the service), its encoder, the
    // schema table and the address adder, a cycle each (SFld1 to SFld5).
    if (state_q == SHdr) {h_typ_q, h_id_q} <= {k_typ_q, k_id_q};
    for (int i = 0; i < NumFields; i++) hit_q[i] <= st_m_q[field_owner(FieldIdxW'(i))] && hk[3*i] && hk[3*i+1] && hk[3*i+2];
    st_m_q  <= st_oh[NumStructs-1:0];            // (f_q.st stands still from SHdr to SFld1)
    hp_q    <= hit_parts(hit_q);
    found_q <= hit_index(hp_q);
    l_ti_q   <= fl_type;
    l_wire_q <= fl_wire;
    l_hit_q  <= found_q[FieldIdxW];
    l_keep_q <= f_q.keep && l_hit_q && l_wire_q == h_typ_q;   // (SFld5: the lookup, then the compare)
    l_pbit_q <= 6'(32'(fi) - 32'(f_first_q));
    slot_q   <= fl_off;
    {ds_c_q, ds_lo_q} <= {1'b0, f_q.rec[11:0]} + {1'b0, slot_q[11:0]};
    ds_h0_q  <= f_q.rec[AW-1:12] + slot_q[AW-1:12];
    ds_h1_q  <= (AW-12)'(({f_q.rec[AW-1:12], 1'b1} + {slot_q[AW-1:12], 1'b1}) >> 1);   // (+ 1 in the chain)
    // The operand registers, and what the tables say of them.
    {v_keep_q, v_inline_q, v_prec_q, v_ti_q, v_wire_q, v_dest_q, v_pbit_q} <=
      {v_keep_d, v_inline_d, v_prec_d, v_ti_d, v_wire_d, v_dest_d, v_pbit_d};
    {v_new_q, v_new2_q, v_new3_q} <= {x_vload, v_new_q, v_new2_q};
    v_ti2_q    <= v_ti_q;
    v_size_q   <= schema_fixed_size(8'(v_wire_q));
    v_fix_q    <= schema_fixed_size(8'(v_wire_q)) != '0;
    {v_sz1_q, v_sz2_q, v_sz4_q} <= {schema_fixed_size(8'(v_wire_q)) == 4'd1, schema_fixed_size(8'(v_wire_q)) == 4'd2,
                                    schema_fixed_size(8'(v_wire_q)) == 4'd4};
    {v_wbool_q, v_wbyte_q, v_wi16_q, v_wi32_q} <= {v_wire_q == WireBool, v_wire_q == WireByte, v_wire_q == WireI16, v_wire_q == WireI32};
    v_wi64_q   <= !(v_wire_q == WireBool || v_wire_q == WireByte || v_wire_q == WireI16 || v_wire_q == WireI32);
    v_str_q    <= v_wire_q == WireString;
    v_struct_q <= v_wire_q == WireStruct;
    v_cont_q   <= v_wire_q == WireList || v_wire_q == WireSet || v_wire_q == WireMap;
    v_map_q    <= v_wire_q == WireMap;
    v_none_q   <= !(schema_fixed_size(8'(v_wire_q)) != '0 || v_wire_q == WireString || v_wire_q == WireStruct ||
                    v_wire_q == WireList || v_wire_q == WireSet || v_wire_q == WireMap);
    v_kp_q     <= v_keep_q && v_prec_q;
    for (int k = 0; k < 64; k++) soh_q[k] <= v_keep_q && v_prec_q && v_pbit_q == 6'(k);
    {v_rsz_q, v_unit_q, v_zn_q, v_zlm_q, v_ms_q, v_st_q} <= {t_rsz, t_unit, t_zn, t_zlm, t_ms, t_st};
    {a_elem_q, a_key_q, a_elemw_q, a_keyw_q, a_esz_q, a_ksz_q} <= {t_elem, t_key, t_elemw, t_keyw, t_esz, t_ksz};
    // A kept container's count and shift-and-add: loaded outside SMul and
    // SArr*, so no enable waits for SVal's decision; a step a cycle in
    // SMul, its addend added a cycle later.
    if (state_q == SVal) begin
      n_q    <= k_cn_q;
      mb_q   <= (AW+1)'(k_cn_q) << 3;
      mbig_q <= 1'b0;
      mu_q   <= v_unit_q >> 3;
      mc_q   <= v_ms_q;
    end else if (state_q == SMul) begin
      mb_q   <= mb_q << 1;
      mbig_q <= mbig_q || mb_q[AW];
      mu_q   <= mu_q >> 1;
      mc_q   <= 5'(dec_lut(8'(mc_q)));
    end
    add_q    <= (state_q == SMul && mu_q[0]) ? mb_q : '0;
    addbig_q <= state_q == SMul && mu_q[0] && mbig_q;
    // (In halves: bits 11:0 with their carry, the rest a cycle later.)
    if (state_q == SVal) begin
      {acc_c_q, acc_q} <= '0;
    end else begin
      {acc_c_q, acc_q[11:0]} <= {1'b0, acc_q[11:0]} + {1'b0, add_q[11:0]};
      acc_q[AW+1:12] <= (AW-10)'(({1'b0, acc_q[AW:12], acc_c_q} + {1'b0, add_q[AW:12], acc_c_q}) >> 1);
    end
    ovf_q <= !(state_q == SVal) && (ovf_q || addbig_q || acc_q[AW+1]);
    // (Past room_q: the low halves compared in SArr2, when acc_q's are
    // final, then one chain of {the top, the high half, that verdict}.)
    ao_lgt_q <= acc_q[11:0] > room_q[11:0];
    aovf_q   <= gt14({1'b0, ovf_q || acc_q[AW+1], acc_q[AW:12], ao_lgt_q}, {2'b00, 11'(room_q[AW-1:12]), 1'b0});
    {d_fail_q, d_fix_q, d_str_q, d_sct_q, d_mul_q, d_cnt_q} <= {d_fail, d_fix, d_str, d_sct, d_mul, d_cnt};
    d_res_q  <= v_keep_q && (v_str_q || (v_struct_q && !v_inline_q));
    d_any_q  <= !d_wait;
    d_tk_q   <= d_fix || d_str || d_cnt;
    t_amt_q  <= v_fix_q ? v_size_q : v_str_q ? 4'd4 : v_map_q ? 4'd6 : 4'd5;
    // (The offsets' picks only in SVal: off_d then needs no state term.)
    d_code_q <= d_code;
    {d_o1_q, d_o2_q, d_o4_q} <= {3{state_q == SVal}} & {d_o1, d_o2, d_o4};
    d_oany_q <= state_q == SVal && (d_o1 || d_o2 || d_o4);
    // A string: outside SStr its registers follow the k_* stage and ptr_q
    // (SVal's string goes to SStr with them, no decision behind); in SStr
    // a chunk taken last cycle (go_q) moves them on.
    {s_left_q, s_len_q, s_ptr_q, s_base_q} <= {s_left_d, s_len_d, s_ptr_d, s_base_d};
    {s_u1_q, s_u2_q, s_u3_q} <= {s_u1_d, s_u2_d, s_u3_d};
    {pn_c_q, pn_lo_q} <= {1'b0, s_ptr_q[11:0]} + 13'(Width);
    pn_h0_q  <= s_ptr_q[AW-1:12];
    pn_h1_q  <= s_ptr_q[AW-1:12] + 1'b1;
    s_zero_q <= s_zero_d;
    if (go_q) begin                              // from the chunk after
      s_chunk_q <= s_l2_q ? 8'(lw_lo_q) : 8'(Width);
      s_dm_q    <= s_l2_q ? s_dm2_q : '1;
      s_cm_q    <= s_l2_q ? s_cm2_q : '1;
    end else begin                               // from the flags and the low bits
      s_chunk_q <= (s_u1_q || s_u2_q) ? 8'(Width) : 8'(s_left_q[LW-1:0]);
      for (int k = 0; k < Width; k++) s_dm_q[k] <= s_u1_q || s_u2_q || s_left_q[LW-1:0] > LW'(k);
      for (int k = 0; k < Width / 8; k++) s_cm_q[k] <= s_u1_q || s_u2_q || s_left_q[LW-1:0] > LW'(8 * k);
    end
    {lw_b_q, lw_lo_q} <= {1'b0, s_left_q[11:0]} - 13'(Width);
    lw_h0_q  <= s_left_q[LenW-1:12];
    lw_h1_q  <= s_left_q[LenW-1:12] - 1'b1;
    s_last_q <= !s_u2_q && (!s_u1_q || s_left_q[LW-1:0] == '0);
    s_l2_q   <= !s_u2_q || (!s_u3_q && s_left_q[LW-1:0] == '0);
    s_ue2_q  <= s_left_q[LenW-1:LW] == (LenW-LW)'(2);
    s_ug3_q  <= s_left_q[LenW-1:LW+2] != '0 || (s_left_q[LW+1] && s_left_q[LW]);
    s_ug4_q  <= s_left_q[LenW-1:LW+2] != '0;
    for (int k = 0; k < Width; k++) s_dm2_q[k] <= s_u2_q || (s_u1_q && s_left_q[LW-1:0] > LW'(k));
    for (int k = 0; k < Width / 8; k++) s_cm2_q[k] <= s_u2_q || (s_u1_q && s_left_q[LW-1:0] > LW'(8 * k));
    for (int k = 0; k < Width; k++) s_dat_q[8*k +: 8] <= s_dm_q[k] ? win_i[8*k +: 8] : 8'd0;
    // Capture stage 1 (a compare with a small constant is a test of the
    // high bits and one of the low ones).
    c_win_q <= win_i[63:0];
    for (int k = 1; k <= 8; k++) begin
      c_av_q[k]  <= avail_i[7:3] != '0 || (k < 8 && avail_i[2:0] >= 3'(k % 8));
      c_rem_q[k] <= rg != '0 || rgk[k];
    end
    // rem_i - 4: bits 11:0 and their borrow; the rest, and the rest less one.
    {c_rb_q, c_rlo_q} <= {1'b0, rem_i[11:0]} - 13'd4;
    c_rhi_q   <= rem_i[LenW-1:12];
    c_rhim_q  <= rem_i[LenW-1:12] - 1'b1;
    c_z0_q    <= win_i[7:0] == 8'd0;
    c_b1_q    <= win_i[7:0] == 8'd1;
    c_sk0_q   <= schema_skippable(win_i[7:0]);
    c_sk1_q   <= schema_skippable(win_i[15:8]);
    for (int k = 1; k <= 5; k++) c_nzb_q[k] <= win_i[8*k +: 8] != '0;
    c_nuhz_q  <= 24'({win_i[15:8], win_i[23:16], win_i[31:24]}) >> (LW + 2) == '0;
    c_pos_q   <= pos_i;
    // A string length + 7 (padded to 8 in stage 2): bits 11:3 and the carry.
    {c_npc_q, c_nplo_q} <= 10'(({1'b0, win_i[19:16], win_i[31:24]} + 13'd7) >> 3);
    // pos_i + 1, 2, 4: the low 12 bits and their carry here, the rest in stage 2.
    {c_p1c_q, c_p1lo_q} <= {1'b0, pos_i[11:0]} + 13'd1;
    {c_p2c_q, c_p2lo_q} <= {1'b0, pos_i[11:0]} + 13'd2;
    {c_p4c_q, c_p4lo_q} <= {1'b0, pos_i[11:0]} + 13'd4;
    // Capture stage 2.
    {k_av4_q, k_rem4_q} <= {c_av_q[4], c_rem_q[4]};
    k_av4p_q  <= k_av4_q;
    // A field header: a fault (TRUNCATED, BAD_TYPE), a STOP, or its take.
    kh_fail_q <= !c_rem_q[1] || (c_av_q[1] && !c_z0_q && (!c_rem_q[3] || (c_av_q[3] && !c_sk0_q)));
    kh_code_q <= (!c_rem_q[1] || !c_rem_q[3]) ? ScTruncated : ScBadType;
    kh_stop_q <= c_rem_q[1] && c_av_q[1] && c_z0_q;
    kh_take_q <= c_rem_q[1] && c_rem_q[3] && c_av_q[3] && !c_z0_q && c_sk0_q;
    kh_any_q  <= !c_rem_q[1] || (c_av_q[1] && !c_z0_q && (!c_rem_q[3] || (c_av_q[3] && !c_sk0_q))) ||
                 (c_rem_q[1] && c_av_q[1] && c_z0_q) || (c_rem_q[1] && c_rem_q[3] && c_av_q[3] && !c_z0_q && c_sk0_q);
    k_typ_q   <= c_win_q[4:0];
    k_typ1_q  <= c_win_q[12:8];
    k_id_q    <= {c_win_q[15:8], c_win_q[23:16]};
    k_rok_q   <= c_rem_q[8] || (v_sz1_q && c_rem_q[1]) || (v_sz2_q && c_rem_q[2]) || (v_sz4_q && c_rem_q[4]);
    k_aok_q   <= c_av_q[8] || (v_sz1_q && c_av_q[1]) || (v_sz2_q && c_av_q[2]) || (v_sz4_q && c_av_q[4]);
    // A fixed-size value's wire bytes as its slot holds them (byte-swapped,
    // zero-extended; a BOOL as Apache's ReadBool reads it).
    k_fix_q   <= ({64{v_wbool_q}} & 64'(c_b1_q)) | ({64{v_wbyte_q}} & 64'(c_win_q[7:0])) |
                 ({64{v_wi16_q}} & 64'({c_win_q[7:0], c_win_q[15:8]})) | ({64{v_wi32_q}} & 64'(be_at(c_win_q, 0))) |
                 ({64{v_wi64_q}} & {be_at(c_win_q, 0), be_at(c_win_q, 4)});
    k_sneg_q  <= c_win_q[7];
    k_shi_q   <= !c_z0_q;
    k_lh_q    <= slen[23:12];
    k_rh_q    <= c_rb_q ? c_rhim_q : c_rhi_q;
    k_tgl_q   <= slen[11:0] > c_rlo_q;
    k_ogl_q   <= slen[11:0] > room_q[11:0];      // room_q is a multiple of 8
    k_n0_q    <= LenW'(be_at(c_win_q, 0));
    k_nu1_q   <= c_nuhz_q && slen[LW+1:LW] == 2'b01;
    k_nu2_q   <= !c_nuhz_q || slen[LW+1];
    k_nu3_q   <= !c_nuhz_q || (slen[LW+1] && slen[LW]);
    k_npad_q  <= {slen[AW-1:12] + (AW-12)'(c_npc_q), c_nplo_q, 3'b000};
    k_hok_q   <= v_map_q ? c_rem_q[6] : c_rem_q[5];
    k_hav_q   <= v_map_q ? c_av_q[6] : c_av_q[5];
    k_cneg_q  <= v_map_q ? c_win_q[23] : c_win_q[15];
    k_cbig_q  <= v_map_q ? c_nzb_q[2] || c_nzb_q[3] : c_nzb_q[1] || c_nzb_q[2];
    k_cn_q    <= v_map_q ? {c_win_q[39:32], c_win_q[47:40]} : {c_win_q[31:24], c_win_q[39:32]};
    k_badk_q  <= v_map_q && !c_sk0_q;
    k_cbad_q  <= (v_map_q ? c_nzb_q[5:2] != '0 : c_nzb_q[4:1] != '0) && (v_map_q ? !c_sk0_q || !c_sk1_q : !c_sk0_q);
    // (A record is below 4,096 bytes: 64 fields at most. One chain, with
    // room_q's high bits as one, registered a cycle ahead: rw_q waits.)
    rm_hz_q   <= room_q[AW-1:12] == '0;
    k_rovf_q  <= gt14({2'b00, v_rsz_q[11:0]}, {1'b0, !rm_hz_q, room_q[11:0]});
    strunc    <= gt14({k_shi_q, k_lh_q, k_tgl_q}, {1'b0, k_rh_q, 1'b0});
    sovf      <= gt14({k_shi_q, k_lh_q, k_ogl_q}, {1'b0, 12'(room_q[AW-1:12]), 1'b0});
    fresh_p_q <= fresh;
    k_pos_q   <= c_pos_q;
    k_pos1_q  <= {c_pos_q[LenW-1:12] + (LenW-12)'(c_p1c_q), c_p1lo_q};
    k_pos2_q  <= {c_pos_q[LenW-1:12] + (LenW-12)'(c_p2c_q), c_p2lo_q};
    k_pos4_q  <= {c_pos_q[LenW-1:12] + (LenW-12)'(c_p4c_q), c_p4lo_q};
    {sta_q, std_q, stm_q} <= {sta_d, std_d, stm_d};
    {off_q, aend_q, asize_q, depth_q, mst_q, mid_q} <= {off_d, aend_d, asize_d, depth_d, mst_d, mid_d};
  end
  assign fi = found_q[FieldIdxW-1:0];
  assign s_lw = {lw_b_q ? lw_h1_q : lw_h0_q, lw_lo_q};
  logic [23:0] slen;                             // a string length's low 24 bits
  assign slen = {c_win_q[15:8], c_win_q[23:16], c_win_q[31:24]};

  // A string's registers: outside SStr they load from the k_* stage and
  // ptr_q; in SStr a chunk shown this cycle (go_q) moves them on.
  always_comb begin
    {s_left_d, s_len_d, s_ptr_d, s_base_d} = {s_left_q, s_len_q, s_ptr_q, s_base_q};
    {s_u1_d, s_u2_d, s_u3_d} = {s_u1_q, s_u2_q, s_u3_q};
    if (!str_q) begin
      s_left_d = k_n0_q;
      s_len_d  = k_n0_q;
      s_ptr_d  = ptr_q;
      s_base_d = ptr_q;
      {s_u1_d, s_u2_d, s_u3_d} = {k_nu1_q, k_nu2_q, k_nu3_q};
    end else if (go_q) begin
      s_left_d = s_last_q ? '0 : s_lw;
      s_u1_d   = !s_last_q && s_ue2_q;
      s_u2_d   = !s_last_q && s_ug3_q;
      s_u3_d   = !s_last_q && s_ug4_q;
      s_ptr_d  = {pn_c_q ? pn_h1_q : pn_h0_q, pn_lo_q};
    end
  end

  // A chunk goes when the window holds it: gpre_q (from registers a cycle
  // earlier) and, this cycle, no chunk shown, no stall and avail_i.
  // (One carry chain: {ok, avail_i} >= {1, s_chunk_q} as the sign of
  // {1, s_chunk_q} - {ok, avail_i} - 1, ok's LUT the chain's last.)
  logic       go_ok;
  /* verilator lint_off UNUSEDSIGNAL */  // (only the sign is read)
  logic [9:0] go_sum;
  /* verilator lint_on UNUSEDSIGNAL */
  assign go_ok  = gpre_q && !go_q && go && !start_i;
  assign go_sum = {1'b0, 1'b1, s_chunk_q} + ~{1'b0, go_ok, avail_i};
  assign go_d   = go_sum[9];
  assign s_zero_d = go_q ? s_last_q : !s_u1_q && !s_u2_q && s_left_q[LW-1:0] == '0;

  // The actions: the step's registers, or a string chunk's.
  logic [Width-1:0] st_mask;
  always_comb for (int k = 0; k < Width; k++) st_mask[k] = go_q ? s_cm_q[k/8] : stm_q[k/8];
  assign take_o     = go_q ? s_chunk_q : th_q ? 8'd3 : tr_q ? 8'd1 : take_q;
  assign st_valid_o = stv_q || (go_q && v_keep_q);
  assign st_addr_o  = go_q ? s_ptr_q : sta_q;
  assign st_data_o  = go_q ? s_dat_q : (Width*8)'(std_q);
  assign st_mask_o  = st_mask;
  assign done_o        = done_q;
  assign code_o        = code_q;
  assign offset_o      = off_q;
  assign area_end_o    = aend_q;
  assign depth_o       = depth_q;
  assign miss_struct_o = mst_q;
  assign miss_id_o     = mid_q;
  assign args_size_o   = asize_q;

`ifndef SYNTHESIS
  if (FW != $bits(frame_t) || SW != $bits(f_sk)) begin : g_check_fw
    $error("recv_schema: FW is %0d, frame_t has %0d bits; SW is %0d", FW, $bits(frame_t), SW);
  end
  // A kept value above the kept levels would lose its frame. The frame's
  // enable, decided a cycle ahead, is its steps.
  always_ff @(posedge clk_i) begin
    if (rst_ni && state_q != SIdle) assert (ce_frame_q == (s_push || s_pop || state_q == SArgs)) else $error("recv_schema: ce_frame_q %b", ce_frame_q);
    if (rst_ni && state_q != SIdle) assert (str_q == (state_q == SStr || state_q == SStrE)) else $error("recv_schema: str_q %b", str_q);
    if (rst_ni && state_q == SHdr) assert (!go_q) else $error("recv_schema: a string chunk shown in SHdr");
    if (state_q == SPush && nf_q.keep) assert (sph_q[Depth:Kept] == '0) else $error("recv_schema: a kept value at level %0d, above the service's %0d", sp_count(sph_q) + 1, Kept);
  end
  initial begin
    for (int i = 0; i < NumStructs; i++)
      if (32'(struct_count(StructIdxW'(i))) > 64)
        $fatal(1, "recv_schema: struct %0d has %0d fields: one presence word holds 64", i, struct_count(StructIdxW'(i)));
  end
`endif

endmodule
