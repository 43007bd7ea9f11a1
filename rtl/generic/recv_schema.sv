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
// image stores are ports, and take_o and st_*_o are the action of the
// coming clock edge (combinational), for tb/schemarx. The header (method
// name, seqid) is checked before start_i, outside this module.
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
  input  logic               stall_i,         // do nothing this cycle

  input  logic [Width*8-1:0] win_i,           // message bytes from the head, byte 0 in bits 7:0
  input  logic [7:0]         avail_i,         // how many of them are there (<= Width, <= rem_i)
  input  logic [LenW-1:0]    rem_i,           // message bytes from the head to the end
  input  logic [LenW-1:0]    pos_i,           // the head's offset in the message
  output logic [7:0]         take_o,          // bytes consumed at this edge

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

  // ---- Field extractor: big-endian words at the head ----
  logic [31:0] be0, be1, be2;                 // at window bytes 0, 1, 2
  logic [15:0] id_be;                         // a field header's id
  always_comb begin
    be0   = {win_i[7:0], win_i[15:8], win_i[23:16], win_i[31:24]};
    be1   = {win_i[15:8], win_i[23:16], win_i[31:24], win_i[39:32]};
    be2   = {win_i[23:16], win_i[31:24], win_i[39:32], win_i[47:40]};
    id_be = {win_i[15:8], win_i[23:16]};
  end

  // ---- The stack: one frame per level; frame sp_q - 1 is the top ----
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

  typedef enum logic [2:0] {SIdle, SZero, SItem, SVal, SStr, SPopP, SPopD} walk_e;

  walk_e                 state_q, state_d;
  // A value is kept only within the service's deepest nesting (MaxDepth
  // levels): every frame has a skip part (sk_q[k*SW +: SW]: kind, keep,
  // items left, element types), only those levels a kept part too
  // (fr_q[k*KW +: KW]). Flat vectors: Yosys 0.23 reads no packed array of
  // more than one dimension, and silently drops a write to an element of
  // one by a variable index; each part is written whole, by a constant one.
  localparam int unsigned Kept = (MaxDepth < Depth) ? MaxDepth : Depth;
  // $bits(frame_t), which Yosys 0.23 does not read (checked below).
  localparam int unsigned FW = 127 + 6 * AW + StructIdxW + 2 * TypeIdxW;
  localparam int unsigned SW = 31;     // kind, keep, left, isval, elemw, keyw
  localparam int unsigned KW = FW - SW; // the rest, in three runs of frame_t:
  localparam int unsigned KA = StructIdxW + AW + 64, KB = 2 * TypeIdxW, KC = 5 * AW + 32;
  logic [Kept*KW-1:0]     fr_q;
  logic [Depth*SW-1:0]    sk_q;
  logic [SpW-1:0]         sp_q, sp_d;
  logic [AW-1:0]          ptr_q, ptr_d;          // the area's next free byte (a multiple of 8)
  logic [AW-1:0]          zaddr_q, zaddr_d, zend_q, zend_d;  // a record being zeroed
  // The value at the head (operand registers): read into the image (keep)
  // as type v_ti_q at v_dest_q, or skipped as wire type v_wire_q.
  logic                   v_keep_q, v_keep_d, v_inline_q, v_inline_d, v_prec_q, v_prec_d;
  logic [TypeIdxW-1:0]    v_ti_q, v_ti_d;
  logic [4:0]             v_wire_q, v_wire_d;
  logic [AW-1:0]          v_dest_q, v_dest_d;
  logic [5:0]             v_pbit_q, v_pbit_d;
  // A string's bytes on their way: left, where the next chunk goes, where it began.
  logic [LenW-1:0]        s_left_q, s_left_d, s_len_q, s_len_d;
  logic [AW-1:0]          s_ptr_q, s_ptr_d, s_base_q, s_base_d;
  // The result.
  logic                   done_q, done_d;
  schema_code_e           code_q, code_d;
  logic [LenW-1:0]        off_q, off_d;
  logic [AW-1:0]          aend_q, aend_d, asize_q, asize_d;
  logic [3:0]             depth_q, depth_d;
  logic [15:0]            mst_q, mst_d, mid_q, mid_d;

  localparam int unsigned TopW = $clog2(Depth);
  logic [TopW-1:0]        top, below;            // the top frame, the one below it
  frame_t                 f;                 // the top frame
  logic [KW-1:0]          f_kb, b_kb;        // its kept part (0 above Kept), and the one below's
  logic [SW-1:0]          f_sk;              // its skip part: {kind, keep}, {left, isval}, {elemw, keyw}
  assign top   = TopW'(sp_q - 1'b1);
  assign below = top - 1'b1;
  assign f_kb  = (32'(top) < Kept) ? fr_q[top*KW +: KW] : '0;
  assign b_kb  = (32'(below) < Kept) ? fr_q[below*KW +: KW] : '0;
  assign f_sk  = sk_q[top*SW +: SW];
  assign f = {f_sk[30:28], f_kb[KW-1 -: KA], f_sk[27:10], f_kb[KB+KC-1 -: KB], f_sk[9:0], f_kb[KC-1:0]};

  // The walk ends now with fail_code at message offset fail_off.
  logic         fail;
  schema_code_e fail_code;
  logic [LenW-1:0] fail_off;

  // The walk step's intermediate values (module scope: Yosys 0.23 does
  // not resolve struct members of a block's local variables).
  logic [7:0]            typ;
  logic [FieldIdxW:0]    found;
  logic [FieldIdxW-1:0]  fi;
  logic [StructIdxW-1:0] s;
  logic [AW-1:0]         r, room, esz, ksz;
  logic [3:0]            size;
  logic [2:0]            head;
  logic [31:0]           n;
  logic [47:0]           need;
  logic [63:0]           missing;
  logic [5:0]            lowest;
  logic [7:0]            chunk;
  logic [TopW-1:0]       t, nt;
  frame_t                nf;                  // a frame pushed (at nt)
  frame_t                ft;                  // the top frame, updated
  logic                  push, upd_top, upd_below;  // ... and the one below's presence bit f.pbit set
  logic [KW-1:0]         nf_k, ft_k, fb_k;    // kept parts, as fr_q holds them
  assign nf_k = {nf.st, nf.rec, nf.pres, nf.elem, nf.key, nf.cur, nf.esz, nf.ksz, nf.hasdest, nf.dest, nf.doff, nf.dlen, nf.hasprec, nf.pbit};
  assign ft_k = {ft.st, ft.rec, ft.pres, ft.elem, ft.key, ft.cur, ft.esz, ft.ksz, ft.hasdest, ft.dest, ft.doff, ft.dlen, ft.hasprec, ft.pbit};
  logic [63:0]           pbit_b;              // the presence bit f.pbit, in the frame below's word
  assign pbit_b = 64'd1 << f.pbit;
  assign fb_k   = b_kb | (KW'(pbit_b) << (KW - KA));   // pres: the kept part's bits KW-KA+63:KW-KA

  always_comb begin
    state_d  = state_q;
    sp_d     = sp_q;
    ptr_d    = ptr_q;
    zaddr_d  = zaddr_q;
    zend_d   = zend_q;
    {v_keep_d, v_inline_d, v_prec_d, v_ti_d, v_wire_d, v_dest_d, v_pbit_d} =
      {v_keep_q, v_inline_q, v_prec_q, v_ti_q, v_wire_q, v_dest_q, v_pbit_q};
    {s_left_d, s_len_d, s_ptr_d, s_base_d} = {s_left_q, s_len_q, s_ptr_q, s_base_q};
    {done_d, code_d, off_d, aend_d, asize_d, depth_d, mst_d, mid_d} =
      {done_q, code_q, off_q, aend_q, asize_q, depth_q, mst_q, mid_q};
    take_o     = '0;
    st_valid_o = 1'b0;
    st_addr_o  = '0;
    st_data_o  = '0;
    st_mask_o  = '0;
    fail       = 1'b0;
    fail_code  = ScNone;
    fail_off   = pos_i;
    t          = top;
    nt         = start_i ? '0 : TopW'(sp_q);
    room       = cap_i - ptr_q;
    nf         = '0;
    ft         = f;
    push       = 1'b0;
    upd_top    = 1'b0;
    upd_below  = 1'b0;
    typ = '0; found = '0; fi = '0; s = '0; r = '0; esz = '0; ksz = '0; size = '0; head = '0;
    n = '0; need = '0; missing = '0; lowest = '0; chunk = '0;

    if (start_i) begin
      // The args record at SchemaAreaStart, zeroed, then its fields.
      s = method_args(MethodIdxW'(method_i));
      r = rec_size(s);
      {done_d, code_d, mst_d, mid_d, asize_d} = '0;
      sp_d = '0;
      if (r > cap_i - AW'(SchemaAreaStart)) begin
        fail = 1'b1; fail_code = ScAreaOverflow;
        ptr_d = AW'(SchemaAreaStart);
      end else begin
        nf.kind = FStruct; nf.keep = 1'b1; nf.st = s; nf.rec = AW'(SchemaAreaStart);
        push    = 1'b1;
        sp_d    = SpW'(1);
        ptr_d   = AW'(SchemaAreaStart) + r;
        asize_d = r;
        zaddr_d = AW'(SchemaAreaStart);
        zend_d  = AW'(SchemaAreaStart) + r;
        state_d = SZero;
      end
    end else if (!stall_i) begin
      unique case (state_q)
        SIdle: ;

        // A record being zeroed, Width bytes a cycle.
        SZero: begin
          st_valid_o = 1'b1;
          st_addr_o  = zaddr_q;
          for (int k = 0; k < Width; k++) st_mask_o[k] = zaddr_q + AW'(k) < zend_q;
          zaddr_d = zaddr_q + AW'(Width);
          if (zaddr_q + AW'(Width) >= zend_q) state_d = SItem;
        end

        // The top frame's next item: a field header or STOP, or a
        // container's next element.
        SItem: begin
          unique case (f.kind)
            FStruct: begin
              typ = win_i[7:0];
              missing = req_mask(f.st) & ~f.pres;
              for (int k = 63; k >= 0; k--) if (missing[k]) lowest = 6'(k);
              if (rem_i < LenW'(1)) begin
                fail = 1'b1; fail_code = ScTruncated;
              end else if (avail_i >= 8'd1 && typ == 8'd0) begin
                if (f.keep && missing != '0) begin
                  fail = 1'b1; fail_code = ScRequiredMissing;
                  mst_d = 16'(f.st);
                  mid_d = field_id(FieldIdxW'(32'(struct_first(f.st)) + 32'(lowest)));
                end else begin
                  take_o  = 8'd1;
                  state_d = SPopP;
                end
              end else if (avail_i >= 8'd1 && rem_i < LenW'(3)) begin
                fail = 1'b1; fail_code = ScTruncated;
              end else if (avail_i >= 8'd3) begin
                if (!skippable(typ)) begin
                  fail = 1'b1; fail_code = ScBadType;
                end else begin
                  found = field_find(f.st, id_be);
                  fi    = found[FieldIdxW-1:0];
                  take_o     = 8'd3;
                  v_keep_d   = f.keep && found[FieldIdxW] && field_wire(fi) == typ[4:0];
                  v_ti_d     = field_type(fi);
                  v_wire_d   = typ[4:0];
                  v_inline_d = 1'b0;
                  v_dest_d   = f.rec + slot_offset(f.st, fi);
                  v_prec_d   = 1'b1;
                  v_pbit_d   = 6'(32'(fi) - 32'(struct_first(f.st)));
                  state_d    = SVal;
                end
              end
            end
            default: begin                               // FList, FMap
              if (f.left == '0) begin
                state_d = SPopP;
              end else begin
                ft.left = f.left - 1'b1;
                v_keep_d   = f.keep;
                v_inline_d = 1'b1;
                v_prec_d   = 1'b0;
                v_dest_d   = f.cur;
                if (f.kind == FMap && !f.isval) begin
                  v_ti_d   = f.key;
                  v_wire_d = f.keep ? type_wire(f.key) : f.keyw;
                  ft.cur = f.cur + f.ksz;
                end else begin
                  v_ti_d   = f.elem;
                  v_wire_d = f.keep ? type_wire(f.elem) : f.elemw;
                  ft.cur = f.cur + f.esz;
                end
                ft.isval = f.kind == FMap && !f.isval;
                upd_top  = 1'b1;
                state_d = SVal;
              end
            end
          endcase
        end

        // The value at the head.
        SVal: begin
          size = fixed_size(v_wire_q);
          if (size != '0) begin
            if (rem_i < LenW'(size)) begin
              fail = 1'b1; fail_code = ScTruncated;
            end else if (avail_i >= 8'(size)) begin
              take_o  = 8'(size);
              state_d = SItem;
              if (v_keep_q) begin
                st_valid_o = 1'b1;
                st_addr_o  = v_dest_q;
                st_mask_o  = Width'(8'hFF);
                if (v_wire_q == WireBool) st_data_o[0] = win_i[7:0] == 8'd1;   // Apache's ReadBool
                else for (int k = 0; k < 8; k++) if (k < 32'(size)) st_data_o[8*k +: 8] = win_i[8*(32'(size)-1-k) +: 8];
                if (v_prec_q) begin ft.pres = f.pres | (64'd1 << v_pbit_q); upd_top = 1'b1; end
              end
            end
          end else if (v_wire_q == WireString) begin
            n = be0;
            need = (48'(n) + 48'd7) & ~48'd7;   // padded to 8 bytes
            if (rem_i < LenW'(4)) begin
              fail = 1'b1; fail_code = ScTruncated;
            end else if (avail_i >= 8'd4) begin
              if (n[31]) begin
                fail = 1'b1; fail_code = ScBadLength;
              end else if (48'(n) > 48'(rem_i) - 48'd4) begin
                fail = 1'b1; fail_code = ScTruncated; fail_off = pos_i + LenW'(4);
              end else if (v_keep_q && need > 48'(room)) begin
                fail = 1'b1; fail_code = ScAreaOverflow;
              end else begin
                take_o   = 8'd4;
                s_left_d = LenW'(n);
                s_len_d  = LenW'(n);
                s_ptr_d  = ptr_q;
                s_base_d = ptr_q;
                if (v_keep_q) ptr_d = ptr_q + AW'(need);
                state_d  = SStr;
              end
            end
          end else if (v_wire_q == WireStruct) begin
            s = type_struct(v_ti_q);
            r = rec_size(s);
            if (sp_q == SpW'(Depth)) begin
              fail = 1'b1; fail_code = ScDepthExceeded;
            end else if (v_keep_q && !v_inline_q && r > room) begin
              fail = 1'b1; fail_code = ScAreaOverflow;
            end else begin
              nf.kind = FStruct;
              nf.keep = v_keep_q;
              if (v_keep_q) begin
                nf.st      = s;
                nf.rec     = v_inline_q ? v_dest_q : ptr_q;
                nf.hasdest = !v_inline_q;
                nf.dest    = v_dest_q;
                nf.doff    = ptr_q;
                nf.dlen    = 24'(r);
                nf.hasprec = v_prec_q;
                nf.pbit    = v_pbit_q;
                if (!v_inline_q) ptr_d = ptr_q + r;
                zaddr_d = nf.rec;
                zend_d  = nf.rec + r;
              end
              push     = 1'b1;
              sp_d     = sp_q + 1'b1;
              state_d  = v_keep_q ? SZero : SItem;
            end
          end else if (v_wire_q == WireList || v_wire_q == WireSet || v_wire_q == WireMap) begin
            head = (v_wire_q == WireMap) ? 3'd6 : 3'd5;
            n    = (v_wire_q == WireMap) ? be2 : be1;
            esz  = elem_size(type_elem(v_ti_q));
            ksz  = (v_wire_q == WireMap) ? elem_size(type_key(v_ti_q)) : '0;
            need = array_bytes(v_ti_q, n[15:0]);
            if (sp_q == SpW'(Depth)) begin
              fail = 1'b1; fail_code = ScDepthExceeded;
            end else if (rem_i < LenW'(head)) begin
              fail = 1'b1; fail_code = ScTruncated;
            end else if (avail_i >= 8'(head)) begin
              if (n[31]) begin
                fail = 1'b1; fail_code = ScBadLength; fail_off = pos_i + LenW'(head) - LenW'(4);
              end else if (n > 32'(SchemaMaxElements)) begin
                fail = 1'b1; fail_code = ScTooManyElements; fail_off = pos_i + LenW'(head) - LenW'(4);
              end else if (v_keep_q && need > 48'(room)) begin
                fail = 1'b1; fail_code = ScAreaOverflow;
              end else if (!v_keep_q && n != '0 && v_wire_q == WireMap && !skippable(win_i[7:0])) begin
                fail = 1'b1; fail_code = ScBadType;
              end else if (!v_keep_q && n != '0 && !skippable(v_wire_q == WireMap ? win_i[15:8] : win_i[7:0])) begin
                fail = 1'b1; fail_code = ScBadType; fail_off = pos_i + LenW'(v_wire_q == WireMap);
              end else begin
                nf.kind  = (v_wire_q == WireMap) ? FMap : FList;
                nf.keep  = v_keep_q;
                nf.left  = (v_wire_q == WireMap) ? {n[15:0], 1'b0} : {1'b0, n[15:0]};
                nf.keyw  = win_i[4:0];
                nf.elemw = (v_wire_q == WireMap) ? win_i[12:8] : win_i[4:0];
                if (v_keep_q) begin
                  nf.elem    = type_elem(v_ti_q);
                  nf.key     = type_key(v_ti_q);
                  nf.cur     = ptr_q;
                  nf.esz     = esz;
                  nf.ksz     = ksz;
                  nf.hasdest = 1'b1;
                  nf.dest    = v_dest_q;
                  nf.doff    = ptr_q;
                  nf.dlen    = 24'(n[15:0]);
                  nf.hasprec = v_prec_q;
                  nf.pbit    = v_pbit_q;
                  ptr_d      = ptr_q + AW'(need);
                end
                push     = 1'b1;
                sp_d     = sp_q + 1'b1;
                take_o   = 8'(head);
                state_d  = SItem;
              end
            end
          end else begin
            // Only a kept element can get here (a header's type was
            // checked): a UUID element, which the image cannot hold.
            fail = 1'b1; fail_code = ScBadType;
          end
        end

        // A string's bytes, Width a cycle, the last chunk's padding zeroed;
        // then its descriptor.
        SStr: begin
          if (s_left_q == '0) begin
            if (v_keep_q) begin
              st_valid_o = 1'b1;
              st_addr_o  = v_dest_q;
              st_mask_o  = Width'(8'hFF);
              st_data_o[63:0] = {8'(0), s_len_q, 10'(0), s_base_q};
              if (v_prec_q) begin ft.pres = f.pres | (64'd1 << v_pbit_q); upd_top = 1'b1; end
            end
            state_d = SItem;
          end else begin
            chunk = (s_left_q < LenW'(Width)) ? 8'(s_left_q) : 8'(Width);
            if (avail_i >= chunk) begin
              take_o   = chunk;
              s_left_d = s_left_q - LenW'(chunk);
              s_ptr_d  = s_ptr_q + AW'(Width);
              if (v_keep_q) begin
                st_valid_o = 1'b1;
                st_addr_o  = s_ptr_q;
                for (int k = 0; k < Width; k++) begin
                  st_mask_o[k] = k < ((32'(chunk) + 7) & ~7);
                  if (k < 32'(chunk)) st_data_o[8*k +: 8] = win_i[8*k +: 8];
                end
              end
            end
          end
        end

        // A frame ends: a kept struct's presence word, then (SPopD) a kept
        // value's descriptor and its presence bit in the frame below.
        SPopP: begin
          if (f.keep && f.kind == FStruct) begin
            st_valid_o = 1'b1;
            st_addr_o  = f.rec;
            st_mask_o  = Width'(8'hFF);
            st_data_o[63:0] = f.pres;
          end
          state_d = SPopD;
        end
        SPopD: begin
          if (f.keep && f.hasdest) begin
            st_valid_o = 1'b1;
            st_addr_o  = f.dest;
            st_mask_o  = Width'(8'hFF);
            st_data_o[63:0] = {8'(0), f.dlen, 10'(0), f.doff};
          end
          if (f.keep && f.hasprec && t != '0) upd_below = 1'b1;
          sp_d    = sp_q - 1'b1;
          state_d = SItem;
          if (sp_q == SpW'(1)) begin                    // the args struct's STOP
            state_d = SIdle;
            done_d  = 1'b1;
            code_d  = ScOk;
            off_d   = pos_i;
            aend_d  = ptr_q;
            depth_d = '0;
          end
        end
        default: ;
      endcase
    end

    if (fail) begin
      state_d = SIdle;
      done_d  = 1'b1;
      code_d  = fail_code;
      off_d   = fail_off;
      aend_d  = start_i ? AW'(SchemaAreaStart) : ptr_q;
      depth_d = 4'(sp_q);
      if (start_i) depth_d = '0;
      if (fail_code != ScRequiredMissing) {mst_d, mid_d} = '0;
      take_o     = '0;
      st_valid_o = 1'b0;
      {push, upd_top, upd_below} = '0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= SIdle;
      sp_q    <= '0;
      done_q  <= 1'b0;
      code_q  <= ScNone;
    end else begin
      state_q <= state_d;
      sp_q    <= sp_d;
      done_q  <= done_d;
      code_q  <= code_d;
    end
  end
  always_ff @(posedge clk_i) begin
    for (int k = 0; k < Kept; k++) begin
      if (push && nt == TopW'(k))         fr_q[k*KW +: KW] <= nf_k;
      if (upd_top && t == TopW'(k))       fr_q[k*KW +: KW] <= ft_k;
      if (upd_below && below == TopW'(k)) fr_q[k*KW +: KW] <= fb_k;
    end
    for (int k = 0; k < Depth; k++) begin
      if (push && nt == TopW'(k))           sk_q[k*SW +: SW] <= {nf.kind, nf.keep, nf.left, nf.isval, nf.elemw, nf.keyw};
      if (upd_top && t == TopW'(k))         sk_q[k*SW +: SW] <= {ft.kind, ft.keep, ft.left, ft.isval, ft.elemw, ft.keyw};
    end
    ptr_q   <= ptr_d;
    zaddr_q <= zaddr_d;
    zend_q  <= zend_d;
    {v_keep_q, v_inline_q, v_prec_q, v_ti_q, v_wire_q, v_dest_q, v_pbit_q} <=
      {v_keep_d, v_inline_d, v_prec_d, v_ti_d, v_wire_d, v_dest_d, v_pbit_d};
    {s_left_q, s_len_q, s_ptr_q, s_base_q} <= {s_left_d, s_len_d, s_ptr_d, s_base_d};
    {off_q, aend_q, asize_q, depth_q, mst_q, mid_q} <= {off_d, aend_d, asize_d, depth_d, mst_d, mid_d};
  end

  assign done_o        = done_q;
  assign code_o        = code_q;
  assign offset_o      = off_q;
  assign area_end_o    = aend_q;
  assign depth_o       = depth_q;
  assign miss_struct_o = mst_q;
  assign miss_id_o     = mid_q;
  assign args_size_o   = asize_q;

`ifndef SYNTHESIS
  if (FW != $bits(frame_t) || SW != $bits({f.kind, f.keep, f.left, f.isval, f.elemw, f.keyw})) begin : g_check_fw
    $error("recv_schema: FW is %0d, frame_t has %0d bits; SW is %0d", FW, $bits(frame_t), SW);
  end
  // A kept value above the kept levels would lose its frame.
  always_ff @(posedge clk_i) begin
    if (push && nf.keep) assert (32'(nt) < Kept) else $error("recv_schema: a kept value at level %0d, above the service's %0d", nt + 1, Kept);
  end
  initial begin
    for (int i = 0; i < NumStructs; i++)
      if (32'(struct_count(StructIdxW'(i))) > 64)
        $fatal(1, "recv_schema: struct %0d has %0d fields: one presence word holds 64", i, struct_count(StructIdxW'(i)));
  end
`endif

endmodule
