// The generic recvFunction (issue 17): walks the args struct of a CALL of
// one of a service's methods and writes the App.Recv image of docs/idl.md
// ("App.Recv image of a generated service"), configured by the schema
// package `arcalis idl compile` generates for the service (compile with
// +define+SCHEMA_PKG=<service>_schema_pkg). golden/schemagold is its
// reference, item for item.
//
// The Figure 11 blocks, driven by the schema table: the window is the line
// buffer's (message bytes from the head), the comparator is the package's
// field_find, the operand registers are the value registers (v_*), the
// address adder makes slot and element addresses from a record's or an
// array's base, and the hardware stack holds one frame per nesting level
// (a struct being read or skipped, a list, set or map being read or
// skipped). Strings move Width bytes a cycle. A record is zeroed when it
// is reserved; its presence word stays in its frame and is written at its
// STOP, its descriptor after it.
//
// Unit-level for now: the head, the message's remaining length and the
// image stores are ports, for tb/schemarx. take_o and st_*_o are
// registers: the action at the coming edge, decided a cycle earlier, when
// stall_i was 0 (stall_i is a cycle ahead: it holds back the action of the
// next cycle). The window must not lose bytes it showed (avail_i falls
// only by takes). The header (method name, seqid) is checked before
// start_i, outside this module.
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
  // A record: the presence word, the fixed slots, the descriptors.
  function automatic logic [AW-1:0] rec_size(input logic [StructIdxW-1:0] s);
    rec_size = AW'(SchemaSlotSize * (1 + 32'(struct_fixed_slots(s)) + 32'(struct_var_slots(s))));
  endfunction
  function automatic logic [AW-1:0] elem_size(input logic [TypeIdxW-1:0] t);
    elem_size = (type_wire(t) == WireStruct) ? rec_size(type_struct(t)) : AW'(SchemaSlotSize);
  endfunction
  // A kept container's array: n elements (map: entries) of type t's
  // element (and key) size, a constant per type: one constant multiplier
  // (adders) per container type, no DSP.
  function automatic logic [47:0] array_bytes(input logic [TypeIdxW-1:0] t, input logic [15:0] n);
    array_bytes = '0;
    for (int i = 0; i < NumTypes; i++) begin
      if (t == TypeIdxW'(i) && type_wire(TypeIdxW'(i)) == WireMap)
        array_bytes = 48'(n) * (48'(elem_size(type_elem(TypeIdxW'(i)))) + 48'(elem_size(type_key(TypeIdxW'(i)))));
      else if (t == TypeIdxW'(i) && (type_wire(TypeIdxW'(i)) == WireList || type_wire(TypeIdxW'(i)) == WireSet))
        array_bytes = 48'(n) * 48'(elem_size(type_elem(TypeIdxW'(i))));
    end
  endfunction
  // A field's slot or descriptor in its struct's record.
  function automatic logic [AW-1:0] slot_offset(input logic [StructIdxW-1:0] s, input logic [FieldIdxW-1:0] f);
    slot_offset = AW'(SchemaSlotSize * (1 + 32'(field_slot(f)) + (field_var(f) ? 32'(struct_fixed_slots(s)) : 0)));
  endfunction
  // The required fields of a struct, bit k for its k-th field.
  function automatic logic [63:0] req_mask(input logic [StructIdxW-1:0] s);
    for (int k = 0; k < 64; k++)
      req_mask[k] = k < 32'(struct_count(s)) && field_req(FieldIdxW'(32'(struct_first(s)) + k)) == 1;
  endfunction
  // Type ids Apache's Go library skips (0.17.0).
  function automatic logic skippable(input logic [7:0] t);
    unique case (t)
      8'd2, 8'd3, 8'd4, 8'd6, 8'd8, 8'd10, 8'd11, 8'd12, 8'd13, 8'd14, 8'd15: skippable = 1'b1;
      default: skippable = 1'b0;
    endcase
  endfunction
  // Wire bytes of a fixed-size type (0: not one).
  function automatic logic [3:0] fixed_size(input logic [4:0] w);
    unique case (w)
      WireBool, WireByte:   fixed_size = 4'd1;
      WireI16:              fixed_size = 4'd2;
      WireI32:              fixed_size = 4'd4;
      WireI64, WireDouble:  fixed_size = 4'd8;
      default:              fixed_size = 4'd0;
    endcase
  endfunction

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
    logic [4:0]            elemw, keyw; // skipped container: their wire types
    logic [AW-1:0]         cur;       // kept container: the next item's address
    logic [AW-1:0]         esz, ksz;  // kept container: element (value) and key sizes
    logic                  hasdest;   // kept: a descriptor to write at its end
    logic [AW-1:0]         dest;
    logic [AW-1:0]         doff;
    logic [23:0]           dlen;
    logic                  hasprec;   // kept: a presence bit to set in the frame below at its end
    logic [5:0]            pbit;
  } frame_t;

  // Each step reads registers only. A step that reads the message does so
  // from the capture registers (c_*), taken one cycle earlier, when no take
  // was on its way since (fresh); take_o and st_*_o are registers, shown
  // the cycle after the step that decided them. So a field header or a
  // value is a check cycle, a cycle while its take is shown, a capture
  // cycle: recv_set's read, wait, check.
  typedef enum logic [3:0] {
    SIdle, SArgs, SZero, SHdr, SFld, SReq, SMiss, SVal, SArr1, SArr2, SElem, SStr, SPopP, SPopD
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
  logic [SpW-1:0]         sp_q, sp_d;            // frames on the stack, the top one included
  logic [TopW-1:0]        lvl_q, lvl_d, lvlb_q, lvlb_d;  // the top's index, the one below's
  logic [MethodIdxW-1:0]  m_q;
  logic [AW-1:0]          cap_q, room_q;         // the capacity, and what it leaves above ptr_q
  logic [AW-1:0]          ptr_q, ptr_d;          // the area's next free byte (a multiple of 8)
  logic [AW-1:0]          zaddr_q, zaddr_d, zleft_q, zleft_d;  // a record being zeroed
  // The value at the head (operand registers): read into the image (keep)
  // as type v_ti_q at v_dest_q, or skipped as wire type v_wire_q; d_* are
  // what the tables say of it, registered the cycle after (v_new_q).
  logic                   v_keep_q, v_keep_d, v_inline_q, v_inline_d, v_prec_q, v_prec_d, v_new_q;
  logic [TypeIdxW-1:0]    v_ti_q, v_ti_d;
  logic [4:0]             v_wire_q, v_wire_d;
  logic [AW-1:0]          v_dest_q, v_dest_d;
  logic [5:0]             v_pbit_q, v_pbit_d;
  logic [3:0]             d_size_q;              // fixed_size(v_wire_q)
  logic [AW-1:0]          d_rsz_q;               // a struct value's record size
  logic                   d_str_q, d_struct_q, d_cont_q, d_map_q;
  // A field header's type and lookup, a kept container's count and array.
  logic [4:0]             h_typ_q, h_typ_d;
  logic [FieldIdxW:0]     found_q, found_d;
  logic [63:0]            miss_q, miss_d;
  logic [15:0]            n_q, n_d;
  logic [47:0]            need_q;
  // A string's bytes on their way: left, where the next chunk goes, where it began.
  logic [LenW-1:0]        s_left_q, s_left_d, s_len_q, s_len_d;
  logic [AW-1:0]          s_ptr_q, s_ptr_d, s_base_q, s_base_d;
  // The capture: the window's first 8 bytes and what the head offers.
  logic [63:0]            c_win_q;
  logic [8:1]             c_av_q, c_rem_q;       // avail_i >= k, rem_i >= k
  logic [LenW-1:0]        c_remm4_q;             // rem_i - 4
  logic [AW-1:0]          c_npad_q;              // a string length at byte 0, padded to 8 (when it fits the area)
  logic                   tk_q, tkp_q;           // a take shown this cycle, the last
  // The actions, registered.
  logic [7:0]             take_q, take_d;
  logic                   stv_q, stv_d;
  logic [AW-1:0]          sta_q, sta_d;
  logic [Width*8-1:0]     std_q, std_d;
  logic [Width-1:0]       stm_q, stm_d;
  // The result.
  logic                   done_q, done_d;
  schema_code_e           code_q, code_d;
  logic [LenW-1:0]        off_q, off_d;
  logic [AW-1:0]          aend_q, aend_d, asize_q, asize_d;
  logic [3:0]             depth_q, depth_d;
  logic [15:0]            mst_q, mst_d, mid_q, mid_d;

  // The frame below the top, as a pop finds it.
  frame_t                 fb;
  logic [KW-1:0]          b_kb;
  logic [SW-1:0]          b_sk;
  assign b_kb = (32'(lvlb_q) < Kept) ? fr_q[lvlb_q*KW +: KW] : '0;
  assign b_sk = sk_q[lvlb_q*SW +: SW];
  assign fb   = {b_sk[30:28], b_kb[KW-1 -: KA], b_sk[27:10], b_kb[KB+KC-1 -: KB], b_sk[9:0], b_kb[KC-1:0]};
  // The top frame's parts as the stack holds them.
  logic [KW-1:0]          f_kb;
  logic [SW-1:0]          f_sk;
  assign f_kb = {f_q.st, f_q.rec, f_q.pres, f_q.elem, f_q.key, f_q.cur, f_q.esz, f_q.ksz, f_q.hasdest, f_q.dest, f_q.doff, f_q.dlen, f_q.hasprec, f_q.pbit};
  assign f_sk = {f_q.kind, f_q.keep, f_q.left, f_q.isval, f_q.elemw, f_q.keyw};

  logic  fresh;                                  // c_* hold the window at the head
  assign fresh = !tk_q && !tkp_q;
  walk_e item;                                   // the top frame's next item
  assign item = (f_q.kind == FStruct) ? SHdr : SElem;

  // The walk ends now with fail_code at message offset fail_off.
  logic            fail;
  schema_code_e    fail_code;
  logic [LenW-1:0] fail_off;

  // The step's intermediate values (module scope: Yosys 0.23 does not
  // resolve struct members of a block's local variables).
  logic [7:0]            typ;
  logic [FieldIdxW-1:0]  fi;
  logic [StructIdxW-1:0] s;
  logic [AW-1:0]         r;
  logic [2:0]            head;
  logic [31:0]           n;
  logic [5:0]            lowest;
  logic [7:0]            chunk;
  logic                  push;
  frame_t                nf;                    // a frame pushed

  always_comb begin
    state_d  = state_q;
    f_d      = f_q;
    {sp_d, lvl_d, lvlb_d} = {sp_q, lvl_q, lvlb_q};
    ptr_d    = ptr_q;
    {zaddr_d, zleft_d} = {zaddr_q, zleft_q};
    {v_keep_d, v_inline_d, v_prec_d, v_ti_d, v_wire_d, v_dest_d, v_pbit_d} =
      {v_keep_q, v_inline_q, v_prec_q, v_ti_q, v_wire_q, v_dest_q, v_pbit_q};
    {h_typ_d, found_d, miss_d, n_d} = {h_typ_q, found_q, miss_q, n_q};
    {s_left_d, s_len_d, s_ptr_d, s_base_d} = {s_left_q, s_len_q, s_ptr_q, s_base_q};
    {done_d, code_d, off_d, aend_d, asize_d, depth_d, mst_d, mid_d} =
      {done_q, code_q, off_q, aend_q, asize_q, depth_q, mst_q, mid_q};
    take_d = '0;
    {stv_d, sta_d, std_d, stm_d} = '0;
    fail      = 1'b0;
    fail_code = ScNone;
    fail_off  = pos_i;
    push      = 1'b0;
    nf        = '0;
    typ = '0; fi = '0; s = '0; r = '0; head = '0; n = '0; lowest = '0; chunk = '0;

    if (start_i) begin
      {done_d, code_d, mst_d, mid_d, asize_d} = '0;
      {sp_d, lvl_d, lvlb_d} = '0;
      state_d = SArgs;
    end else if (!stall_i) begin
      unique case (state_q)
        SIdle: ;

        // The args record at SchemaAreaStart, zeroed, then its fields.
        SArgs: begin
          s = method_args(m_q);
          r = rec_size(s);
          if (r > cap_q - AW'(SchemaAreaStart)) begin
            fail = 1'b1; fail_code = ScAreaOverflow;
            ptr_d = AW'(SchemaAreaStart);
          end else begin
            f_d      = '0;
            f_d.kind = FStruct; f_d.keep = 1'b1; f_d.st = s; f_d.rec = AW'(SchemaAreaStart);
            sp_d     = SpW'(1);
            ptr_d    = AW'(SchemaAreaStart) + r;
            asize_d  = r;
            zaddr_d  = AW'(SchemaAreaStart);
            zleft_d  = r;
            state_d  = SZero;
          end
        end

        // A record being zeroed, Width bytes a cycle.
        SZero: begin
          stv_d = 1'b1;
          sta_d = zaddr_q;
          for (int k = 0; k < Width; k++) stm_d[k] = zleft_q > AW'(k);
          zaddr_d = zaddr_q + AW'(Width);
          zleft_d = zleft_q - AW'(Width);
          if (zleft_q <= AW'(Width)) state_d = SHdr;
        end

        // A struct's next field header, or its STOP.
        SHdr: if (fresh) begin
          typ = c_win_q[7:0];
          if (!c_rem_q[1]) begin
            fail = 1'b1; fail_code = ScTruncated;
          end else if (c_av_q[1] && typ == 8'd0) begin
            state_d = SReq;
          end else if (c_av_q[1] && !c_rem_q[3]) begin
            fail = 1'b1; fail_code = ScTruncated;
          end else if (c_av_q[3]) begin
            if (!skippable(typ)) begin
              fail = 1'b1; fail_code = ScBadType;
            end else begin
              take_d  = 8'd3;
              h_typ_d = typ[4:0];
              found_d = field_find(f_q.st, {c_win_q[15:8], c_win_q[23:16]});
              state_d = SFld;
            end
          end
          miss_d = req_mask(f_q.st) & ~f_q.pres;
        end
        // The field found (or not): the value's operands.
        SFld: begin
          fi         = found_q[FieldIdxW-1:0];
          v_keep_d   = f_q.keep && found_q[FieldIdxW] && field_wire(fi) == h_typ_q;
          v_ti_d     = field_type(fi);
          v_wire_d   = h_typ_q;
          v_inline_d = 1'b0;
          v_dest_d   = f_q.rec + slot_offset(f_q.st, fi);
          v_prec_d   = 1'b1;
          v_pbit_d   = 6'(32'(fi) - 32'(struct_first(f_q.st)));
          state_d    = SVal;
        end
        // A STOP: a kept struct's required fields must all be there.
        SReq: begin
          if (f_q.keep && miss_q != '0) begin
            state_d = SMiss;
          end else begin
            take_d  = 8'd1;
            state_d = SPopP;
          end
        end
        SMiss: begin
          for (int k = 63; k >= 0; k--) if (miss_q[k]) lowest = 6'(k);
          fail = 1'b1; fail_code = ScRequiredMissing;
          mst_d = 16'(f_q.st);
          mid_d = field_id(FieldIdxW'(32'(struct_first(f_q.st)) + 32'(lowest)));
        end

        // A container's next element (a map's key or value), or its end.
        SElem: begin
          if (f_q.left == '0) begin
            state_d = SPopP;
          end else begin
            f_d.left   = f_q.left - 1'b1;
            v_keep_d   = f_q.keep;
            v_inline_d = 1'b1;
            v_prec_d   = 1'b0;
            v_dest_d   = f_q.cur;
            if (f_q.kind == FMap && !f_q.isval) begin
              v_ti_d   = f_q.key;
              v_wire_d = f_q.keep ? type_wire(f_q.key) : f_q.keyw;
              f_d.cur  = f_q.cur + f_q.ksz;
            end else begin
              v_ti_d   = f_q.elem;
              v_wire_d = f_q.keep ? type_wire(f_q.elem) : f_q.elemw;
              f_d.cur  = f_q.cur + f_q.esz;
            end
            f_d.isval = f_q.kind == FMap && !f_q.isval;
            state_d   = SVal;
          end
        end

        // The value at the head.
        SVal: if (fresh && !v_new_q) begin
          if (d_size_q != '0) begin
            if (!c_rem_q[d_size_q]) begin
              fail = 1'b1; fail_code = ScTruncated;
            end else if (c_av_q[d_size_q]) begin
              take_d  = 8'(d_size_q);
              state_d = item;
              if (v_keep_q) begin
                stv_d = 1'b1;
                sta_d = v_dest_q;
                stm_d = Width'(8'hFF);
                if (v_wire_q == WireBool) std_d[0] = c_win_q[7:0] == 8'd1;   // Apache's ReadBool
                else for (int k = 0; k < 8; k++) if (k < 32'(d_size_q)) std_d[8*k +: 8] = c_win_q[8*(32'(d_size_q)-1-k) +: 8];
                if (v_prec_q) f_d.pres = f_q.pres | (64'd1 << v_pbit_q);
              end
            end
          end else if (d_str_q) begin
            n = be_at(c_win_q, 0);
            if (!c_rem_q[4]) begin
              fail = 1'b1; fail_code = ScTruncated;
            end else if (c_av_q[4]) begin
              if (n[31]) begin
                fail = 1'b1; fail_code = ScBadLength;
              end else if (n > 32'(c_remm4_q)) begin
                fail = 1'b1; fail_code = ScTruncated; fail_off = pos_i + LenW'(4);
              end else if (v_keep_q && n > 32'(room_q)) begin   // room_q is a multiple of 8
                fail = 1'b1; fail_code = ScAreaOverflow;
              end else begin
                take_d   = 8'd4;
                s_left_d = LenW'(n);
                s_len_d  = LenW'(n);
                s_ptr_d  = ptr_q;
                s_base_d = ptr_q;
                if (v_keep_q) ptr_d = ptr_q + c_npad_q;
                state_d  = SStr;
              end
            end
          end else if (d_struct_q) begin
            if (sp_q == SpW'(Depth)) begin
              fail = 1'b1; fail_code = ScDepthExceeded;
            end else if (v_keep_q && !v_inline_q && d_rsz_q > room_q) begin
              fail = 1'b1; fail_code = ScAreaOverflow;
            end else begin
              nf.kind = FStruct;
              nf.keep = v_keep_q;
              if (v_keep_q) begin
                nf.st      = type_struct(v_ti_q);
                nf.rec     = v_inline_q ? v_dest_q : ptr_q;
                nf.hasdest = !v_inline_q;
                nf.dest    = v_dest_q;
                nf.doff    = ptr_q;
                nf.dlen    = 24'(d_rsz_q);
                nf.hasprec = v_prec_q;
                nf.pbit    = v_pbit_q;
                if (!v_inline_q) ptr_d = ptr_q + d_rsz_q;
                zaddr_d = v_inline_q ? v_dest_q : ptr_q;
                zleft_d = d_rsz_q;
              end
              push    = 1'b1;
              state_d = v_keep_q ? SZero : SHdr;
            end
          end else if (d_cont_q) begin
            head = d_map_q ? 3'd6 : 3'd5;
            n    = d_map_q ? be_at(c_win_q, 2) : be_at(c_win_q, 1);
            if (sp_q == SpW'(Depth)) begin
              fail = 1'b1; fail_code = ScDepthExceeded;
            end else if (!c_rem_q[head]) begin
              fail = 1'b1; fail_code = ScTruncated;
            end else if (c_av_q[head]) begin
              if (n[31]) begin
                fail = 1'b1; fail_code = ScBadLength; fail_off = pos_i + LenW'(head) - LenW'(4);
              end else if (n > 32'(SchemaMaxElements)) begin
                fail = 1'b1; fail_code = ScTooManyElements; fail_off = pos_i + LenW'(head) - LenW'(4);
              end else if (v_keep_q) begin
                n_d     = n[15:0];
                state_d = SArr1;                  // its array's size, then its room
              end else if (n != '0 && d_map_q && !skippable(c_win_q[7:0])) begin
                fail = 1'b1; fail_code = ScBadType;
              end else if (n != '0 && !skippable(d_map_q ? c_win_q[15:8] : c_win_q[7:0])) begin
                fail = 1'b1; fail_code = ScBadType; fail_off = pos_i + LenW'(d_map_q);
              end else begin
                nf.kind  = d_map_q ? FMap : FList;
                nf.left  = d_map_q ? {n[15:0], 1'b0} : {1'b0, n[15:0]};
                nf.keyw  = c_win_q[4:0];
                nf.elemw = d_map_q ? c_win_q[12:8] : c_win_q[4:0];
                push     = 1'b1;
                take_d   = 8'(head);
                state_d  = SElem;
              end
            end
          end else begin
            // Only a kept element can get here (a header's type was
            // checked): a UUID element, which the image cannot hold.
            fail = 1'b1; fail_code = ScBadType;
          end
        end
        // A kept container: its array (a constant multiple of the count),
        // then whether it fits; the window has not moved since SVal.
        SArr1: state_d = SArr2;
        SArr2: begin
          if (need_q > 48'(room_q)) begin
            fail = 1'b1; fail_code = ScAreaOverflow;
          end else begin
            nf.kind    = d_map_q ? FMap : FList;
            nf.keep    = 1'b1;
            nf.left    = d_map_q ? {n_q, 1'b0} : {1'b0, n_q};
            nf.elem    = type_elem(v_ti_q);
            nf.key     = type_key(v_ti_q);
            nf.cur     = ptr_q;
            nf.esz     = elem_size(type_elem(v_ti_q));
            nf.ksz     = d_map_q ? elem_size(type_key(v_ti_q)) : '0;
            nf.hasdest = 1'b1;
            nf.dest    = v_dest_q;
            nf.doff    = ptr_q;
            nf.dlen    = 24'(n_q);
            nf.hasprec = v_prec_q;
            nf.pbit    = v_pbit_q;
            ptr_d      = ptr_q + AW'(need_q);
            push       = 1'b1;
            take_d     = d_map_q ? 8'd6 : 8'd5;
            state_d    = SElem;
          end
        end

        // A string's bytes, Width a cycle, straight from the window (its
        // last chunk's padding zeroed); then its descriptor.
        SStr: begin
          if (s_left_q == '0) begin
            if (v_keep_q) begin
              stv_d = 1'b1;
              sta_d = v_dest_q;
              stm_d = Width'(8'hFF);
              std_d[63:0] = {8'(0), s_len_q, 10'(0), s_base_q};
              if (v_prec_q) f_d.pres = f_q.pres | (64'd1 << v_pbit_q);
            end
            state_d = item;
          end else if (!tk_q) begin
            chunk = (s_left_q < LenW'(Width)) ? 8'(s_left_q) : 8'(Width);
            if (avail_i >= chunk) begin
              take_d   = chunk;
              s_left_d = s_left_q - LenW'(chunk);
              s_ptr_d  = s_ptr_q + AW'(Width);
              if (v_keep_q) begin
                stv_d = 1'b1;
                sta_d = s_ptr_q;
                for (int k = 0; k < Width; k++) begin
                  stm_d[k] = k < ((32'(chunk) + 7) & ~7);
                  if (k < 32'(chunk)) std_d[8*k +: 8] = win_i[8*k +: 8];
                end
              end
            end
          end
        end

        // A frame ends: a kept struct's presence word, then (SPopD) a kept
        // value's descriptor and its presence bit in the frame below.
        SPopP: begin
          if (f_q.keep && f_q.kind == FStruct) begin
            stv_d = 1'b1;
            sta_d = f_q.rec;
            stm_d = Width'(8'hFF);
            std_d[63:0] = f_q.pres;
          end
          state_d = SPopD;
        end
        SPopD: begin
          if (f_q.keep && f_q.hasdest) begin
            stv_d = 1'b1;
            sta_d = f_q.dest;
            stm_d = Width'(8'hFF);
            std_d[63:0] = {8'(0), f_q.dlen, 10'(0), f_q.doff};
          end
          if (sp_q == SpW'(1)) begin                    // the args struct's STOP
            state_d = SIdle;
            done_d  = 1'b1;
            code_d  = ScOk;
            off_d   = pos_i;
            aend_d  = ptr_q;
            depth_d = '0;
          end else begin
            f_d = fb;
            if (f_q.keep && f_q.hasprec) f_d.pres = fb.pres | (64'd1 << f_q.pbit);
            sp_d    = sp_q - 1'b1;
            lvl_d   = lvlb_q;
            lvlb_d  = lvlb_q - 1'b1;
            state_d = (fb.kind == FStruct) ? SHdr : SElem;
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

    if (fail) begin
      state_d = SIdle;
      done_d  = 1'b1;
      code_d  = fail_code;
      off_d   = fail_off;
      aend_d  = (state_q == SArgs) ? AW'(SchemaAreaStart) : ptr_q;
      depth_d = (state_q == SArgs) ? '0 : 4'(sp_q);
      if (fail_code != ScRequiredMissing) {mst_d, mid_d} = '0;
      take_d = '0;
      stv_d  = 1'b0;
      push   = 1'b0;
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
      tk_q    <= 1'b0;
      tkp_q   <= 1'b0;
    end else begin
      state_q <= state_d;
      sp_q    <= sp_d;
      done_q  <= done_d;
      code_q  <= code_d;
      take_q  <= take_d;
      stv_q   <= stv_d;
      tk_q    <= take_d != '0;
      tkp_q   <= tk_q;
    end
  end
  always_ff @(posedge clk_i) begin
    // A push puts the top frame on the stack (the new one goes to f_q).
    for (int k = 0; k < Kept; k++)
      if (push && lvl_q == TopW'(k)) fr_q[k*KW +: KW] <= f_kb;
    for (int k = 0; k < Depth; k++)
      if (push && lvl_q == TopW'(k)) sk_q[k*SW +: SW] <= f_sk;
    f_q <= f_d;
    {lvl_q, lvlb_q} <= {lvl_d, lvlb_d};
    if (start_i) begin
      m_q   <= MethodIdxW'(method_i);
      cap_q <= cap_i;
    end
    room_q  <= cap_q - ptr_q;
    ptr_q   <= ptr_d;
    {zaddr_q, zleft_q} <= {zaddr_d, zleft_d};
    {v_keep_q, v_inline_q, v_prec_q, v_ti_q, v_wire_q, v_dest_q, v_pbit_q} <=
      {v_keep_d, v_inline_d, v_prec_d, v_ti_d, v_wire_d, v_dest_d, v_pbit_d};
    v_new_q    <= state_q == SFld || state_q == SElem;
    d_size_q   <= fixed_size(v_wire_q);
    d_rsz_q    <= rec_size(type_struct(v_ti_q));
    d_str_q    <= v_wire_q == WireString;
    d_struct_q <= v_wire_q == WireStruct;
    d_cont_q   <= v_wire_q == WireList || v_wire_q == WireSet || v_wire_q == WireMap;
    d_map_q    <= v_wire_q == WireMap;
    {h_typ_q, found_q, miss_q, n_q} <= {h_typ_d, found_d, miss_d, n_d};
    need_q     <= array_bytes(v_ti_q, n_q);
    {s_left_q, s_len_q, s_ptr_q, s_base_q} <= {s_left_d, s_len_d, s_ptr_d, s_base_d};
    c_win_q   <= win_i[63:0];
    for (int k = 1; k <= 8; k++) begin
      c_av_q[k]  <= avail_i >= 8'(k);
      c_rem_q[k] <= rem_i >= LenW'(k);
    end
    c_remm4_q <= rem_i - LenW'(4);
    c_npad_q  <= (AW'(be_at(win_i[63:0], 0)) + AW'(7)) & ~AW'(7);
    {sta_q, std_q, stm_q} <= {sta_d, std_d, stm_d};
    {off_q, aend_q, asize_q, depth_q, mst_q, mid_q} <= {off_d, aend_d, asize_d, depth_d, mst_d, mid_d};
  end

  assign take_o     = take_q;
  assign st_valid_o = stv_q;
  assign st_addr_o  = sta_q;
  assign st_data_o  = std_q;
  assign st_mask_o  = stm_q;
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
