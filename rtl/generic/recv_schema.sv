// The generic recvFunction (issue 17): walks the args struct of a CALL of
// one of a service's methods and writes the App.Recv image of docs/idl.md
// ("App.Recv image of a generated service"), configured by the schema
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
  localparam int unsigned SpW   = $clog2(Depth + 1);

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
  // The required fields of a struct, bit k for its k-th field.
  function automatic logic [63:0] req_mask(input logic [StructIdxW-1:0] s);
    for (int k = 0; k < 64; k++)
      req_mask[k] = k < 32'(struct_count(s)) && field_req(FieldIdxW'(32'(struct_first(s)) + k)) == 1;
  endfunction

  // Big-endian words at window byte 0, 1 and 2 of a 64-bit capture.
  function automatic logic [31:0] be_at(input logic [63:0] w, input int unsigned b);
    be_at = {w[8*b +: 8], w[8*(b+1) +: 8], w[8*(b+2) +: 8], w[8*(b+3) +: 8]};
  endfunction

  // A fixed-size value's wire bytes at the head, as its slot holds them
  // (byte-swapped, zero-extended; a BOOL as Apache's ReadBool reads it).
  function automatic logic [63:0] fixed_value(input logic [63:0] w, input logic [4:0] wt);
    fixed_value = '0;
    unique case (wt)
      WireBool:             fixed_value[0] = w[7:0] == 8'd1;
      WireByte:             fixed_value[7:0] = w[7:0];
      WireI16:              fixed_value[15:0] = {w[7:0], w[15:8]};
      WireI32:              fixed_value[31:0] = be_at(w, 0);
      default:              fixed_value = {be_at(w, 0), be_at(w, 4)};
    endcase
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

  // Every step decides from registers. A step that reads the message reads
  // what the window showed two cycles earlier, through two capture stages:
  // c_* hold the window's first bytes and what the head offers, k_* what
  // they mean for the value at the head (lengths, types, overflows). It
  // may decide only when no take was shown in the last three cycles
  // (fresh): take_o and st_*_o are registers, shown the cycle after the
  // step that decided them. Table lookups (the comparator's field_find,
  // slots, sizes) take their own steps while a take is on its way.
  typedef enum logic [4:0] {
    SIdle, SArgs0, SArgs, SZero, SHdr, SFld1, SFld2, SFld3, SFld4, SReq, SMiss1, SMiss2, SMiss3,
    SVal, SMul, SArr1, SArr2, SElem, SStr, SPopP, SPopD
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
  localparam int unsigned TopW = $clog2(Depth);
  logic [Kept*KW-1:0]     fr_q;
  logic [Depth*SW-1:0]    sk_q;
  frame_t                 f_q, f_d;              // the top frame
  frame_t                 fb_q;                  // the frame below it, read ahead for a pop
  logic                   push_q;                // a push last cycle: the frame it replaced, and where it goes
  logic [KW-1:0]          p_kb_q;
  logic [SW-1:0]          p_sk_q;
  logic [TopW-1:0]        p_lvl_q;
  logic [SpW-1:0]         sp_q, sp_d;            // frames on the stack, the top one included
  logic                   sp_full_q, sp_one_q;   // sp_q is Depth, is 1
  logic [TopW-1:0]        lvl_q, lvl_d, lvlb_q, lvlb_d;  // the top's index, the one below's
  logic [MethodIdxW-1:0]  m_q;
  logic [AW-1:0]          cap_q, room_q;         // the capacity, and what it leaves above ptr_q
  logic [AW-1:0]          ar_q, cap64_q;         // the args record's size, the area's
  logic                   afit_q;                // ar_q <= cap64_q
  logic [AW-1:0]          ptr_q, ptr_d;          // the area's next free byte (a multiple of 8)
  logic [AW-1:0]          zaddr_q, zaddr_d, zn_q, zn_d;  // a record being zeroed: where, stores after this one
  logic                   zlast_q, zlast_d;      // zn_q is 0
  logic [GW-1:0]          zlm_q, zlm_d;          // the last store's mask
  logic [AW-1:0]          a_zn_q;                // the args record's zn and last mask
  logic [GW-1:0]          a_zlm_q;
  logic [AW-1:0]          pinc_q, pinc_d;        // added to ptr_q next cycle
  logic [1:0]             rw_q, rw_d;            // cycles until room_q and k_* follow ptr_q
  // The value at the head (operand registers): read into the image (keep)
  // as type v_ti_q at v_dest_q, or skipped as wire type v_wire_q, with what
  // the tables say of it. Written by SFld2/SFld3 or SElem; the k_* stage
  // reads them a cycle later (v_new_q).
  logic                   v_keep_q, v_keep_d, v_inline_q, v_inline_d, v_prec_q, v_prec_d, v_new_q;
  logic [TypeIdxW-1:0]    v_ti_q, v_ti_d;
  logic [4:0]             v_wire_q, v_wire_d;
  logic [AW-1:0]          v_dest_q, v_dest_d;
  logic [5:0]             v_pbit_q, v_pbit_d;
  logic [3:0]             v_size_q, v_size_d;    // schema_fixed_size(v_wire)
  logic                   v_str_q, v_str_d, v_struct_q, v_struct_d, v_cont_q, v_cont_d, v_map_q, v_map_d;
  logic [AW-1:0]          v_rsz_q, v_rsz_d;      // a struct value's record size
  logic [AW-1:0]          v_unit_q, v_unit_d;    // a container's bytes per element
  logic [AW-1:0]          v_zn_q, v_zn_d;        // a struct value's record: zn, and the last mask
  logic [GW-1:0]          v_zlm_q, v_zlm_d;
  // A field header (its type, its id, the comparator's answer, the slot),
  // a struct's missing required fields.
  logic [4:0]             h_typ_q, h_typ_d;
  logic [15:0]            h_id_q, h_id_d;
  logic [NumFields-1:0]   hit_q, hit_d;          // the comparator: field i has the struct and the id
  logic [FieldIdxW:0]     found_q, found_d;
  logic [15:0]            mid_n_q, mid_n_d;
  logic [AW-1:0]          slot_q, slot_d;
  logic [63:0]            miss_q;
  logic [5:0]             low_q, low_d;
  // A kept container: its count, its array's size by shift and add
  // (acc += count << i for each bit i of the unit), and whether it fits.
  logic [15:0]            n_q, n_d;
  logic [AW:0]            acc_q, acc_d, mb_q, mb_d;
  logic                   ovf_q, ovf_d, mbig_q, mbig_d, aovf_q;
  logic [AW-1:0]          mu_q, mu_d;
  // A string's bytes on their way: left, where the next chunk goes, where it began.
  logic [LenW-1:0]        s_left_q, s_left_d, s_len_q, s_len_d;
  logic [AW-1:0]          s_ptr_q, s_ptr_d, s_base_q, s_base_d;
  logic [7:0]             s_chunk_q;             // min(s_left_q, Width)
  logic                   s_zero_q;              // s_left_q == 0
  logic [Width-1:0]       s_dm_q;                // the chunk's bytes
  logic [Width/8-1:0]     s_cm_q;                // ... its slots (padded to 8)
  // ... and the chunk after it, ready for when this one goes (go_q).
  logic [LenW-1:0]        s_lw_q;                // s_left_q - Width
  logic                   s_last_q, s_l2_q;      // s_left_q <= Width, <= 2 Width
  // s_left_q in Width units (s_left_q >> LW) is 1, is 2 or more: set with
  // s_left_q, so the chunk masks compare only its low LW bits. A chunk
  // taken subtracts 1 unit: the new flags come from s_ue2_q, s_ug3_q
  // (units == 2, >= 3), which follow s_left_q a cycle late, as s_lw_q
  // does (chunks go every other cycle at most).
  logic                   s_u1_q, s_u1_d, s_u2_q, s_u2_d, s_ue2_q, s_ug3_q;
  logic [Width-1:0]       s_dm2_q;
  logic [Width/8-1:0]     s_cm2_q;
  // A chunk is taken when the window holds it (go_d, from avail_i): a
  // register (go_q) that shows it, and its bytes.
  logic                   go_d, go_q;
  logic [Width*8-1:0]     s_dat_q;
  // Capture stage 1: the window's first 8 bytes and what the head offers.
  logic [63:0]            c_win_q;
  logic [8:1]             c_av_q, c_rem_q;       // avail_i >= k, rem_i >= k
  logic [LenW-1:0]        c_remm4_q, c_pos_q;    // rem_i - 4, pos_i
  // Capture stage 2: what they mean.
  logic                   k_av1_q, k_av3_q, k_av4_q, k_rem1_q, k_rem3_q, k_rem4_q;  // c_av_q[k], c_rem_q[k]
  logic                   k_stop_q, k_skip0_q;   // byte 0: STOP, a type Apache skips
  logic [4:0]             k_typ_q, k_typ1_q;     // bytes 0 and 1 as wire types
  logic [15:0]            k_id_q;                // bytes 1-2: a field header's id
  logic                   k_rok_q, k_aok_q;      // a fixed value: in the message, in the window
  logic [63:0]            k_fix_q;               // ... as its slot holds it
  logic                   k_sneg_q, k_strunc_q, k_sovf_q;   // a string length: negative, past the message, past the area
  logic [LenW-1:0]        k_n0_q;
  logic                   k_nu1_q, k_nu2_q;      // ... in Width units: 1, 2 or more (s_u1_d, s_u2_d)
  logic [AW-1:0]          k_npad_q;              // ... padded to 8 (when it fits the area)
  logic                   k_hok_q, k_hav_q;      // a container's head: in the message, in the window
  logic                   k_cneg_q, k_cbig_q, k_cnz_q;      // its count: negative, over the limit, not 0
  logic [15:0]            k_cn_q;
  logic                   k_badk_q, k_bade_q;    // a skipped map's key type, a skipped container's element type: not skippable
  logic                   k_rovf_q;              // a struct's record does not fit
  logic [LenW-1:0]        k_pos_q, k_pos1_q, k_pos2_q, k_pos4_q;
  logic                   tk_q, tkp_q, tkpp_q;   // a take shown this cycle, the last, the one before
  // The actions, registered.
  logic [7:0]             take_q, take_d;
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
    for (int k = 0; k < Kept; k++) if (lvlb_q == TopW'(k)) b_kb = fr_q[k*KW +: KW];
    for (int k = 0; k < Depth; k++) if (lvlb_q == TopW'(k)) b_sk = sk_q[k*SW +: SW];
  end
  // The top frame's parts as the stack holds them.
  logic [KW-1:0]          f_kb;
  logic [SW-1:0]          f_sk;
  assign f_kb = {f_q.st, f_q.rec, f_q.pres, f_q.elem, f_q.key, f_q.cur, f_q.esz, f_q.ksz, f_q.hasdest, f_q.dest, f_q.doff, f_q.dlen, f_q.hasprec, f_q.pbit};
  assign f_sk = {f_q.kind, f_q.keep, f_q.left, f_q.isval, f_q.elemw, f_q.keyw};

  logic [AW-1:0]          cnext_q;               // a kept container's next item address after this one
  // Table lookups of registers, registered (a step reads them at least a
  // cycle after their index is set): Yosys would otherwise retime the
  // index register into the table, behind the step's muxes.
  logic [FieldIdxW:0]     f_first_q;             // struct_first(f_q.st) (up to NumFields)
  logic [StructIdxW-1:0]  v_st_q;                // type_struct(v_ti_q)
  logic [TypeIdxW-1:0]    a_elem_q, a_key_q;     // type_elem, type_key of v_ti_q
  logic [4:0]             a_elemw_q, a_keyw_q;   // ... their wire types
  logic [AW-1:0]          a_esz_q, a_ksz_q;      // ... their sizes
  logic                   f_new_q;               // f_q was pushed or popped last cycle
  logic  fresh;                                  // k_* describe the window at the head
  assign fresh = !tk_q && !tkp_q && !tkpp_q;
  walk_e item;                                   // the top frame's next item
  assign item = (f_q.kind == FStruct) ? SHdr : SElem;

  // The walk ends now with fail_code at message offset fail_off.
  logic            fail;
  schema_code_e    fail_code;
  logic [LenW-1:0] fail_off;

  // The step's intermediate values (module scope: Yosys 0.23 does not
  // resolve struct members of a block's local variables).
  logic [FieldIdxW-1:0]  fi;
  logic [TypeIdxW-1:0]   ti;
  logic [AW:0]           add;
  logic                  push, pop;
  frame_t                nf;                    // a frame pushed

  // SVal's decision, made a cycle before its action (d_*_q, one-hot, and
  // the fail code): from registers that hold while a value waits at the
  // head (fresh: no take on its way; avail_i only grows, which can delay
  // an action a cycle more). sv_go_q: the decision is for this cycle (SVal
  // decided last cycle with fresh k_*, and did not act). One cycle more
  // per value.
  logic            d_fail, d_fix, d_str, d_sct, d_mul, d_cnt;   // fail; a fixed value's take, a string's length, a struct's push, a kept container's size, a skipped container's push
  schema_code_e    d_code;
  logic [LenW-1:0] d_off;
  logic            d_fail_q, d_fix_q, d_str_q, d_sct_q, d_mul_q, d_cnt_q;
  schema_code_e    d_code_q;
  logic [LenW-1:0] d_off_q;
  logic            sv_go_q, sv_act;
  always_comb begin
    {d_fail, d_fix, d_str, d_sct, d_mul, d_cnt} = '0;
    d_code = ScNone;
    d_off  = k_pos_q;
    if (v_size_q != '0) begin
      if (!k_rok_q) begin
        d_fail = 1'b1; d_code = ScTruncated;
      end else if (k_aok_q) begin
        d_fix = 1'b1;
      end
    end else if (v_str_q) begin
      if (!k_rem4_q) begin
        d_fail = 1'b1; d_code = ScTruncated;
      end else if (k_av4_q) begin
        if (k_sneg_q) begin
          d_fail = 1'b1; d_code = ScBadLength;
        end else if (k_strunc_q) begin
          d_fail = 1'b1; d_code = ScTruncated; d_off = k_pos4_q;
        end else if (v_keep_q && k_sovf_q) begin
          d_fail = 1'b1; d_code = ScAreaOverflow;
        end else begin
          d_str = 1'b1;
        end
      end
    end else if (v_struct_q) begin
      if (sp_full_q) begin
        d_fail = 1'b1; d_code = ScDepthExceeded;
      end else if (v_keep_q && !v_inline_q && k_rovf_q) begin
        d_fail = 1'b1; d_code = ScAreaOverflow;
      end else begin
        d_sct = 1'b1;
      end
    end else if (v_cont_q) begin
      if (sp_full_q) begin
        d_fail = 1'b1; d_code = ScDepthExceeded;
      end else if (!k_hok_q) begin
        d_fail = 1'b1; d_code = ScTruncated;
      end else if (k_hav_q) begin
        if (k_cneg_q) begin
          d_fail = 1'b1; d_code = ScBadLength; d_off = v_map_q ? k_pos2_q : k_pos1_q;
        end else if (k_cbig_q) begin
          d_fail = 1'b1; d_code = ScTooManyElements; d_off = v_map_q ? k_pos2_q : k_pos1_q;
        end else if (v_keep_q) begin
          d_mul = 1'b1;
        end else if (k_cnz_q && k_badk_q) begin
          d_fail = 1'b1; d_code = ScBadType;
        end else if (k_cnz_q && k_bade_q) begin
          d_fail = 1'b1; d_code = ScBadType; d_off = v_map_q ? k_pos1_q : k_pos_q;
        end else begin
          d_cnt = 1'b1;
        end
      end
    end else begin
      // Only a kept element can get here (a header's type was
      // checked): a UUID element, which the image cannot hold.
      d_fail = 1'b1; d_code = ScBadType;
    end
  end
  assign sv_act = state_q == SVal && sv_go_q && !stall_i && !start_i &&
                  (d_fail_q || d_fix_q || d_str_q || d_sct_q || d_mul_q || d_cnt_q);

  always_comb begin
    state_d  = state_q;
    f_d      = f_q;
    {sp_d, lvl_d, lvlb_d} = {sp_q, lvl_q, lvlb_q};
    {zaddr_d, zn_d, zlast_d, zlm_d} = {zaddr_q, zn_q, zlast_q, zlm_q};
    ptr_d  = ptr_q + pinc_q;
    pinc_d = '0;
    rw_d   = (rw_q != '0) ? rw_q - 1'b1 : '0;
    {v_keep_d, v_inline_d, v_prec_d, v_ti_d, v_wire_d, v_dest_d, v_pbit_d} =
      {v_keep_q, v_inline_q, v_prec_q, v_ti_q, v_wire_q, v_dest_q, v_pbit_q};
    {v_size_d, v_str_d, v_struct_d, v_cont_d, v_map_d, v_rsz_d, v_unit_d, v_zn_d, v_zlm_d} =
      {v_size_q, v_str_q, v_struct_q, v_cont_q, v_map_q, v_rsz_q, v_unit_q, v_zn_q, v_zlm_q};
    {h_typ_d, h_id_d, hit_d, found_d, slot_d, low_d, mid_n_d, n_d} = {h_typ_q, h_id_q, hit_q, found_q, slot_q, low_q, mid_n_q, n_q};
    {acc_d, mb_d, ovf_d, mbig_d, mu_d} = {acc_q, mb_q, ovf_q, mbig_q, mu_q};
    {s_left_d, s_len_d, s_ptr_d, s_base_d} = {s_left_q, s_len_q, s_ptr_q, s_base_q};
    {s_u1_d, s_u2_d} = {s_u1_q, s_u2_q};
    {done_d, code_d, off_d, aend_d, depth_d, mst_d, mid_d} =
      {done_q, code_q, off_q, aend_q, depth_q, mst_q, mid_q};
    asize_d = afit_q ? ar_q : '0;                 // ar_q, afit_q hold from start_i on
    take_d = '0;
    {stv_d, sta_d, std_d, stm_d} = '0;
    // A string's registers: outside SStr they follow the k_* stage and
    // ptr_q (SVal's string goes to SStr with them, no decision behind);
    // in SStr a chunk taken last cycle (go_q) moves them on.
    if (state_q != SStr) begin
      s_left_d = k_n0_q;
      s_len_d  = k_n0_q;
      s_ptr_d  = ptr_q;
      s_base_d = ptr_q;
      {s_u1_d, s_u2_d} = {k_nu1_q, k_nu2_q};
    end else if (go_q) begin
      s_left_d = s_last_q ? '0 : s_lw_q;
      s_u1_d   = !s_last_q && s_ue2_q;
      s_u2_d   = !s_last_q && s_ug3_q;
      s_ptr_d  = s_ptr_q + AW'(Width);
    end
    // So do a kept container's count and shift-and-add start outside
    // SMul and SArr*: no reset or enable behind SVal's decision.
    if (state_q != SMul && state_q != SArr1 && state_q != SArr2) begin
      n_d    = k_cn_q;
      acc_d  = '0;
      ovf_d  = 1'b0;
      mb_d   = (AW+1)'(k_cn_q) << 3;
      mbig_d = 1'b0;
      mu_d   = v_unit_q >> 3;
    end
    fail      = 1'b0;
    fail_code = ScNone;
    fail_off  = k_pos_q;
    push      = 1'b0;
    pop       = 1'b0;
    nf        = '0;
    fi = '0; ti = '0; add = '0;

    // start_i wins below, after the step: it gates only what leaves the
    // module and the state, not the step's pushes and pops (the walk it
    // starts sets its own stack).
    if (!stall_i) begin
      unique case (state_q)
        SIdle: ;

        // The args record at SchemaAreaStart (if it fits: afit_q, a cycle
        // after start_i), zeroed, then its fields.
        SArgs0: begin
          {sp_d, lvl_d, lvlb_d} = '0;
          state_d = SArgs;
        end
        SArgs: begin
          if (!afit_q) begin
            fail = 1'b1; fail_code = ScAreaOverflow;
            ptr_d = AW'(SchemaAreaStart);
          end else begin
            f_d      = '0;
            f_d.kind = FStruct; f_d.keep = 1'b1; f_d.st = method_args(m_q); f_d.rec = AW'(SchemaAreaStart);
            sp_d     = SpW'(1);
            ptr_d    = AW'(SchemaAreaStart);
            pinc_d   = ar_q;
            rw_d     = 2'd3;
            zaddr_d  = AW'(SchemaAreaStart);
            zn_d     = a_zn_q;
            zlast_d  = a_zn_q == '0;
            zlm_d    = a_zlm_q;
            state_d  = SZero;
          end
        end

        // A record being zeroed, Width bytes a cycle.
        SZero: begin
          stv_d = 1'b1;
          sta_d = zaddr_q;
          stm_d = zlast_q ? zlm_q : '1;
          zaddr_d = zaddr_q + AW'(Width);
          zn_d    = zn_q - 1'b1;
          zlast_d = zn_q == AW'(1);
          if (zlast_q) state_d = SHdr;
        end

        // A struct's next field header, or its STOP.
        SHdr: if (fresh) begin
          if (!k_rem1_q) begin
            fail = 1'b1; fail_code = ScTruncated;
          end else if (k_av1_q && k_stop_q) begin
            state_d = SReq;
          end else if (k_av1_q && !k_rem3_q) begin
            fail = 1'b1; fail_code = ScTruncated;
          end else if (k_av3_q) begin
            if (!k_skip0_q) begin
              fail = 1'b1; fail_code = ScBadType;
            end else begin
              take_d  = 8'd3;
              h_typ_d = k_typ_q;
              h_id_d  = k_id_q;
              state_d = SFld1;
            end
          end
        end
        // The comparator: the field of that id, if the struct has one
        // (one compare per field of the service), then its index.
        SFld1: begin
          for (int i = 0; i < NumFields; i++) hit_d[i] = f_q.st == field_owner(FieldIdxW'(i)) && h_id_q == field_id(FieldIdxW'(i));
          state_d = SFld2;
        end
        SFld2: begin
          found_d = '0;
          for (int i = 0; i < NumFields; i++) if (hit_q[i]) found_d = found_d | {1'b1, FieldIdxW'(i)};
          state_d = SFld3;
        end
        // The schema table: what the field is and where it goes.
        SFld3: begin
          fi         = found_q[FieldIdxW-1:0];
          ti         = field_type(fi);
          v_keep_d   = f_q.keep && found_q[FieldIdxW] && field_wire(fi) == h_typ_q;
          v_ti_d     = ti;
          v_wire_d   = h_typ_q;
          v_size_d   = schema_fixed_size(8'(h_typ_q));
          v_str_d    = h_typ_q == WireString;
          v_struct_d = h_typ_q == WireStruct;
          v_cont_d   = h_typ_q == WireList || h_typ_q == WireSet || h_typ_q == WireMap;
          v_map_d    = h_typ_q == WireMap;
          v_rsz_d    = AW'(type_record_size(ti));
          v_unit_d   = AW'(type_array_unit(ti));
          v_zn_d     = type_zn(ti);
          v_zlm_d    = type_zlm(ti);
          v_inline_d = 1'b0;
          v_prec_d   = 1'b1;
          v_pbit_d   = 6'(32'(fi) - 32'(f_first_q));
          slot_d     = AW'(field_offset(fi));
          state_d    = SFld4;
        end
        // The address adder: the slot in the record.
        SFld4: begin
          v_dest_d = f_q.rec + slot_q;
          state_d  = SVal;
        end
        // A STOP: a kept struct's required fields must all be there.
        SReq: begin
          if (f_q.keep && miss_q != '0) begin
            state_d = SMiss1;
          end else begin
            take_d  = 8'd1;
            state_d = SPopP;
          end
        end
        SMiss1: begin
          for (int k = 63; k >= 0; k--) if (miss_q[k]) low_d = 6'(k);
          state_d = SMiss2;
        end
        SMiss2: begin
          mid_n_d = field_id(FieldIdxW'(32'(f_first_q) + 32'(low_q)));
          state_d = SMiss3;
        end
        SMiss3: begin                                  // mst_q, mid_q: below
          fail = 1'b1; fail_code = ScRequiredMissing;
        end

        // A container's next element (a map's key or value), or its end.
        SElem: if (!f_new_q) begin
          if (f_q.left == '0) begin
            state_d = SPopP;
          end else begin
            f_d.left   = f_q.left - 1'b1;
            v_keep_d   = f_q.keep;
            v_inline_d = 1'b1;
            v_prec_d   = 1'b0;
            v_dest_d   = f_q.cur;
            if (f_q.kind == FMap && !f_q.isval) begin
              ti       = f_q.key;
              v_wire_d = f_q.keyw;
            end else begin
              ti       = f_q.elem;
              v_wire_d = f_q.elemw;
            end
            f_d.cur    = cnext_q;
            v_ti_d     = ti;
            v_size_d   = schema_fixed_size(8'(v_wire_d));
            v_str_d    = v_wire_d == WireString;
            v_struct_d = v_wire_d == WireStruct;
            v_cont_d   = v_wire_d == WireList || v_wire_d == WireSet || v_wire_d == WireMap;
            v_map_d    = v_wire_d == WireMap;
            v_rsz_d    = AW'(type_record_size(ti));
            v_unit_d   = AW'(type_array_unit(ti));
            v_zn_d     = type_zn(ti);
            v_zlm_d    = type_zlm(ti);
            f_d.isval  = f_q.kind == FMap && !f_q.isval;
            state_d    = SVal;
          end
        end

        // The value at the head: the action decided a cycle earlier
        // (d_*_q, below), so its muxes see only flags.
        SVal: if (sv_go_q) begin
          if (d_fail_q) begin
            fail = 1'b1; fail_code = d_code_q; fail_off = d_off_q;
          end
          if (d_fix_q) begin
            take_d  = 8'(v_size_q);
            state_d = item;
            if (v_keep_q) begin
              stv_d = 1'b1;
              sta_d = v_dest_q;
              stm_d = GW'(1);
              std_d = k_fix_q;
              if (v_prec_q) f_d.pres = f_q.pres | (64'd1 << v_pbit_q);
            end
          end
          if (d_str_q) begin
            take_d  = 8'd4;                            // s_*: loaded outside SStr
            if (v_keep_q) begin pinc_d = k_npad_q; rw_d = 2'd3; end
            state_d = SStr;
          end
          if (d_sct_q) begin
            nf.kind = FStruct;
            nf.keep = v_keep_q;
            if (v_keep_q) begin
              nf.st      = v_st_q;
              nf.rec     = v_inline_q ? v_dest_q : ptr_q;
              nf.hasdest = !v_inline_q;
              nf.dest    = v_dest_q;
              nf.doff    = ptr_q;
              nf.dlen    = 24'(v_rsz_q);
              nf.hasprec = v_prec_q;
              nf.pbit    = v_pbit_q;
              if (!v_inline_q) begin pinc_d = v_rsz_q; rw_d = 2'd3; end
              zaddr_d = v_inline_q ? v_dest_q : ptr_q;
              zn_d    = v_zn_q;
              zlast_d = v_zn_q == '0;
              zlm_d   = v_zlm_q;
            end
            push    = 1'b1;
            state_d = v_keep_q ? SZero : SHdr;
          end
          // A kept container's array: count times unit, one bit of the
          // unit a cycle (the unit is a multiple of 8; n_d, acc_d, ...
          // loaded above).
          if (d_mul_q) state_d = SMul;
          if (d_cnt_q) begin
            nf.kind  = v_map_q ? FMap : FList;
            nf.left  = v_map_q ? {k_cn_q, 1'b0} : {1'b0, k_cn_q};
            nf.keyw  = k_typ_q;
            nf.elemw = v_map_q ? k_typ1_q : k_typ_q;
            push     = 1'b1;
            take_d   = v_map_q ? 8'd6 : 8'd5;
            state_d  = SElem;
          end
        end
        SMul: begin
          add    = mu_q[0] ? mb_q : '0;
          {ovf_d, acc_d} = {1'b0, acc_q} + {1'b0, add};
          ovf_d  = ovf_d || ovf_q || (mu_q[0] && mbig_q);
          mb_d   = mb_q << 1;
          mbig_d = mbig_q || mb_q[AW];
          mu_d   = mu_q >> 1;
          if (mu_q[AW-1:1] == '0) state_d = SArr1;
        end
        // Whether it fits (aovf_q, a cycle later); the window has not
        // moved since SVal.
        SArr1: state_d = SArr2;
        SArr2: begin
          if (aovf_q) begin
            fail = 1'b1; fail_code = ScAreaOverflow;
          end else begin
            nf.kind    = v_map_q ? FMap : FList;
            nf.keep    = 1'b1;
            nf.left    = v_map_q ? {n_q, 1'b0} : {1'b0, n_q};
            nf.elem    = a_elem_q;
            nf.key     = a_key_q;
            nf.elemw   = a_elemw_q;
            nf.keyw    = a_keyw_q;
            nf.cur     = ptr_q;
            nf.esz     = a_esz_q;
            nf.ksz     = v_map_q ? a_ksz_q : '0;
            nf.hasdest = 1'b1;
            nf.dest    = v_dest_q;
            nf.doff    = ptr_q;
            nf.dlen    = 24'(n_q);
            nf.hasprec = v_prec_q;
            nf.pbit    = v_pbit_q;
            pinc_d     = acc_q[AW-1:0];
            rw_d       = 2'd3;
            push       = 1'b1;
            take_d     = v_map_q ? 8'd6 : 8'd5;
            state_d    = SElem;
          end
        end

        // A string's bytes, Width a cycle, straight from the window (its
        // last chunk's padding zeroed), every other cycle; then its
        // descriptor.
        SStr: if (!tk_q) begin
          if (s_zero_q) begin
            if (v_keep_q) begin
              stv_d = 1'b1;
              sta_d = v_dest_q;
              stm_d = GW'(1);
              std_d = {8'(0), s_len_q, 10'(0), s_base_q};
              if (v_prec_q) f_d.pres = f_q.pres | (64'd1 << v_pbit_q);
            end
            state_d = item;
          end
        end

        // A frame ends: a kept struct's presence word, then (SPopD) a kept
        // value's descriptor and its presence bit in the frame below.
        SPopP: begin
          if (f_q.keep && f_q.kind == FStruct) begin
            stv_d = 1'b1;
            sta_d = f_q.rec;
            stm_d = GW'(1);
            std_d = f_q.pres;
          end
          state_d = SPopD;
        end
        SPopD: begin
          if (f_q.keep && f_q.hasdest) begin
            stv_d = 1'b1;
            sta_d = f_q.dest;
            stm_d = GW'(1);
            std_d = {8'(0), f_q.dlen, 10'(0), f_q.doff};
          end
          if (sp_one_q) begin                          // the args struct's STOP (the result: below)
            state_d = SIdle;
            done_d  = 1'b1;
          end else begin
            pop = 1'b1;
            f_d = fb_q;
            if (f_q.keep && f_q.hasprec) f_d.pres = fb_q.pres | (64'd1 << f_q.pbit);
            sp_d    = sp_q - 1'b1;
            lvl_d   = lvlb_q;
            lvlb_d  = lvlb_q - 1'b1;
            state_d = (fb_q.kind == FStruct) ? SHdr : SElem;
          end
        end
        default: ;
      endcase
    end

    if (push) begin
      f_d    = nf;
      sp_d   = sp_q + 1'b1;
      lvl_d  = TopW'(sp_q);
      lvlb_d = lvl_q;
    end

    // A step that fails sets no take, store or push (its branches).
    if (fail) begin
      state_d = SIdle;
      done_d  = 1'b1;
    end
    if (start_i) begin
      done_d  = 1'b0;
      state_d = SArgs0;
      take_d  = '0;
      stv_d   = 1'b0;
    end

    // The result registers follow the step until done_q is set: what it
    // would say if it ended now (at SPopD: the args struct's STOP, its take
    // applied; else fail_code). Then they hold, so only done_d waits for
    // the step's decision. (Not state_q != SIdle: Yosys's fsm pass does
    // not re-encode a state register compared with 0.)
    if (!done_q) begin
      code_d  = (state_q == SPopD) ? ScOk : fail_code;
      off_d   = (state_q == SPopD) ? pos_i : fail_off;
      aend_d  = (state_q == SArgs) ? AW'(SchemaAreaStart) : ptr_q;
      depth_d = (state_q == SArgs || state_q == SPopD) ? '0 : 4'(sp_q);
      {mst_d, mid_d} = (state_q == SMiss3) ? {16'(f_q.st), mid_n_q} : '0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= SIdle;
      sp_q    <= '0;
      done_q  <= 1'b0;
      code_q  <= ScNone;
      take_q  <= '0;
      stv_q   <= 1'b0;
      {tk_q, tkp_q, tkpp_q} <= '0;
      push_q  <= 1'b0;
      go_q    <= 1'b0;
      rw_q    <= '0;
      sv_go_q <= 1'b0;
    end else begin
      state_q <= state_d;
      sp_q    <= sp_d;
      done_q  <= done_d;
      code_q  <= code_d;
      take_q  <= take_d;
      stv_q   <= stv_d;
      {tk_q, tkp_q, tkpp_q} <= {take_d != '0 || go_d, tk_q, tkp_q};
      push_q  <= push;
      go_q    <= go_d;
      rw_q    <= rw_d;
      sv_go_q <= state_q == SVal && fresh && !v_new_q && rw_q == '0 && !start_i && !sv_act;
    end
  end
  always_ff @(posedge clk_i) begin
    // A push puts the top frame on the stack (the new one goes to f_q),
    // a cycle later, from registers: the stack is not read before.
    {p_kb_q, p_sk_q, p_lvl_q} <= {f_kb, f_sk, lvl_q};
    for (int k = 0; k < Kept; k++)
      if (push_q && p_lvl_q == TopW'(k)) fr_q[k*KW +: KW] <= p_kb_q;
    for (int k = 0; k < Depth; k++)
      if (push_q && p_lvl_q == TopW'(k)) sk_q[k*SW +: SW] <= p_sk_q;
    f_q  <= f_d;
    fb_q <= {b_sk[30:28], b_kb[KW-1 -: KA], b_sk[27:10], b_kb[KB+KC-1 -: KB], b_sk[9:0], b_kb[KC-1:0]};
    {lvl_q, lvlb_q} <= {lvl_d, lvlb_d};
    sp_full_q <= sp_q == SpW'(Depth);
    sp_one_q  <= sp_q == SpW'(1);
    if (start_i) begin
      a_zn_q  <= zero_more(AW'(struct_size(method_args(MethodIdxW'(method_i)))));
      a_zlm_q <= zero_last(LW'(struct_size(method_args(MethodIdxW'(method_i)))));
      m_q     <= MethodIdxW'(method_i);
      cap_q   <= cap_i;
      ar_q    <= AW'(struct_size(method_args(MethodIdxW'(method_i))));
      cap64_q <= cap_i - AW'(SchemaAreaStart);
    end
    afit_q  <= ar_q <= cap64_q;
    room_q  <= cap_q - ptr_q;
    ptr_q   <= ptr_d;
    pinc_q  <= pinc_d;
    {zaddr_q, zn_q, zlast_q, zlm_q} <= {zaddr_d, zn_d, zlast_d, zlm_d};
    f_first_q <= (FieldIdxW+1)'(struct_first(f_q.st));
    v_st_q    <= type_struct(v_ti_q);
    {a_elem_q, a_key_q}   <= {type_elem(v_ti_q), type_key(v_ti_q)};
    {a_elemw_q, a_keyw_q} <= {type_wire(type_elem(v_ti_q)), type_wire(type_key(v_ti_q))};
    a_esz_q   <= AW'(type_elem_size(type_elem(v_ti_q)));
    a_ksz_q   <= AW'(type_elem_size(type_key(v_ti_q)));
    cnext_q <= f_q.cur + ((f_q.kind == FMap && !f_q.isval) ? f_q.ksz : f_q.esz);
    f_new_q <= push || pop;
    {v_keep_q, v_inline_q, v_prec_q, v_ti_q, v_wire_q, v_dest_q, v_pbit_q} <=
      {v_keep_d, v_inline_d, v_prec_d, v_ti_d, v_wire_d, v_dest_d, v_pbit_d};
    {v_size_q, v_str_q, v_struct_q, v_cont_q, v_map_q, v_rsz_q, v_unit_q, v_zn_q, v_zlm_q} <=
      {v_size_d, v_str_d, v_struct_d, v_cont_d, v_map_d, v_rsz_d, v_unit_d, v_zn_d, v_zlm_d};
    v_new_q <= state_q == SFld4 || state_q == SElem;
    {h_typ_q, h_id_q, hit_q, found_q, slot_q, low_q, mid_n_q, n_q} <= {h_typ_d, h_id_d, hit_d, found_d, slot_d, low_d, mid_n_d, n_d};
    miss_q  <= req_mask(f_q.st) & ~f_q.pres;
    {acc_q, mb_q, ovf_q, mbig_q, mu_q} <= {acc_d, mb_d, ovf_d, mbig_d, mu_d};
    {d_fail_q, d_fix_q, d_str_q, d_sct_q, d_mul_q, d_cnt_q} <= {d_fail, d_fix, d_str, d_sct, d_mul, d_cnt};
    {d_code_q, d_off_q} <= {d_code, d_off};
    aovf_q  <= ovf_q || acc_q > (AW+1)'(room_q);
    {s_left_q, s_len_q, s_ptr_q, s_base_q} <= {s_left_d, s_len_d, s_ptr_d, s_base_d};
    if (go_q) begin                              // from the chunk after
      s_chunk_q <= s_l2_q ? 8'(s_lw_q) : 8'(Width);
      s_zero_q  <= s_last_q;
      s_dm_q    <= s_l2_q ? s_dm2_q : '1;
      s_cm_q    <= s_l2_q ? s_cm2_q : '1;
    end else begin                               // from the flags and the low bits
      s_chunk_q <= (s_u1_q || s_u2_q) ? 8'(Width) : 8'(s_left_q[LW-1:0]);
      s_zero_q  <= !s_u1_q && !s_u2_q && s_left_q[LW-1:0] == '0;
      for (int k = 0; k < Width; k++) s_dm_q[k] <= s_u1_q || s_u2_q || s_left_q[LW-1:0] > LW'(k);
      for (int k = 0; k < Width / 8; k++) s_cm_q[k] <= s_u1_q || s_u2_q || s_left_q[LW-1:0] > LW'(8 * k);
    end
    {s_u1_q, s_u2_q} <= {s_u1_d, s_u2_d};
    s_lw_q   <= s_left_q - LenW'(Width);
    s_last_q <= !s_u2_q && (!s_u1_q || s_left_q[LW-1:0] == '0);
    s_l2_q   <= !s_u2_q || (s_left_q[LenW-1:LW] == (LenW-LW)'(2) && s_left_q[LW-1:0] == '0);
    s_ue2_q  <= s_left_q[LenW-1:LW] == (LenW-LW)'(2);
    s_ug3_q  <= s_left_q[LenW-1:LW+2] != '0 || (s_left_q[LW+1] && s_left_q[LW]);
    for (int k = 0; k < Width; k++) s_dm2_q[k] <= s_u2_q || (s_u1_q && s_left_q[LW-1:0] > LW'(k));
    for (int k = 0; k < Width / 8; k++) s_cm2_q[k] <= s_u2_q || (s_u1_q && s_left_q[LW-1:0] > LW'(8 * k));
    for (int k = 0; k < Width; k++) s_dat_q[8*k +: 8] <= s_dm_q[k] ? win_i[8*k +: 8] : 8'd0;
    // Capture stage 1.
    c_win_q <= win_i[63:0];
    for (int k = 1; k <= 8; k++) begin
      c_av_q[k]  <= avail_i >= 8'(k);
      c_rem_q[k] <= rem_i >= LenW'(k);
    end
    c_remm4_q <= rem_i - LenW'(4);
    c_pos_q   <= pos_i;
    // Capture stage 2.
    {k_av1_q, k_av3_q, k_av4_q}    <= {c_av_q[1], c_av_q[3], c_av_q[4]};
    {k_rem1_q, k_rem3_q, k_rem4_q} <= {c_rem_q[1], c_rem_q[3], c_rem_q[4]};
    k_stop_q  <= c_win_q[7:0] == 8'd0;
    k_skip0_q <= schema_skippable(c_win_q[7:0]);
    k_typ_q   <= c_win_q[4:0];
    k_typ1_q  <= c_win_q[12:8];
    k_id_q    <= {c_win_q[15:8], c_win_q[23:16]};
    k_rok_q   <= c_rem_q[8] || (v_size_q != '0 && c_rem_q[v_size_q]);
    k_aok_q   <= c_av_q[8] || (v_size_q != '0 && c_av_q[v_size_q]);
    k_fix_q   <= fixed_value(c_win_q, v_wire_q);
    k_sneg_q  <= c_win_q[7];
    k_strunc_q <= be_at(c_win_q, 0) > 32'(c_remm4_q);
    k_sovf_q  <= be_at(c_win_q, 0) > 32'(room_q);      // room_q is a multiple of 8
    k_n0_q    <= LenW'(be_at(c_win_q, 0));
    k_nu1_q   <= LenW'(be_at(c_win_q, 0)) >> LW == LenW'(1);
    k_nu2_q   <= LenW'(be_at(c_win_q, 0)) >> (LW + 1) != '0;
    k_npad_q  <= (AW'(be_at(c_win_q, 0)) + AW'(7)) & ~AW'(7);
    k_hok_q   <= v_map_q ? c_rem_q[6] : c_rem_q[5];
    k_hav_q   <= v_map_q ? c_av_q[6] : c_av_q[5];
    k_cneg_q  <= v_map_q ? c_win_q[23] : c_win_q[15];
    k_cbig_q  <= v_map_q ? (c_win_q[23:16] != '0 || c_win_q[31:24] != '0) : (c_win_q[15:8] != '0 || c_win_q[23:16] != '0);
    k_cnz_q   <= v_map_q ? be_at(c_win_q, 2) != '0 : be_at(c_win_q, 1) != '0;
    k_cn_q    <= v_map_q ? {c_win_q[39:32], c_win_q[47:40]} : {c_win_q[31:24], c_win_q[39:32]};
    k_badk_q  <= v_map_q && !schema_skippable(c_win_q[7:0]);
    k_bade_q  <= !schema_skippable(v_map_q ? c_win_q[15:8] : c_win_q[7:0]);
    k_rovf_q  <= v_rsz_q > room_q;
    k_pos_q   <= c_pos_q;
    k_pos1_q  <= c_pos_q + LenW'(1);
    k_pos2_q  <= c_pos_q + LenW'(2);
    k_pos4_q  <= c_pos_q + LenW'(4);
    {sta_q, std_q, stm_q} <= {sta_d, std_d, stm_d};
    {off_q, aend_q, asize_q, depth_q, mst_q, mid_q} <= {off_d, aend_d, asize_d, depth_d, mst_d, mid_d};
  end

  assign go_d = state_q == SStr && !tk_q && !stall_i && !start_i && !s_zero_q && avail_i >= s_chunk_q;

  // The actions: the step's registers, or a string chunk's.
  logic [Width-1:0] st_mask;
  always_comb for (int k = 0; k < Width; k++) st_mask[k] = go_q ? s_cm_q[k/8] : stm_q[k/8];
  assign take_o     = go_q ? s_chunk_q : take_q;
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
  // A kept value above the kept levels would lose its frame.
  always_ff @(posedge clk_i) begin
    if (push && nf.keep) assert (32'(sp_q) < Kept) else $error("recv_schema: a kept value at level %0d, above the service's %0d", sp_q + 1, Kept);
  end
  initial begin
    for (int i = 0; i < NumStructs; i++)
      if (32'(struct_count(StructIdxW'(i))) > 64)
        $fatal(1, "recv_schema: struct %0d has %0d fields: one presence word holds 64", i, struct_count(StructIdxW'(i)));
  end
`endif

endmodule
