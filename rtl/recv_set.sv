// recvFunction for Memcached Set (paper Figure 11): walks the argument
// fields at the head of the line buffer's window. A field header, a fixed
// value and a binary length are each a read step (read cycle, check
// cycle): the field extractor byte-swaps what was read, the schema table
// and the comparator check (id, type), scalars go to the operand
// registers. Key and value bytes stream out Width bytes a cycle to App.Recv
// offsets from the address adder, unknown fields are skipped at the same
// rate, and T_STOP ends the request (docs/abi.md section 5.6).
module recv_set
  import arcalis_pkg::*;
#(
  parameter int unsigned Width = 16
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,

  input  logic                 clear_i,       // a new request: operands back to 0
  input  logic                 start_i,       // dispatched by the Deserializer

  // The window (line buffer) and the message's remaining bytes.
  input  logic                 fresh_i,
  input  logic [8*8-1:0]       win_i,         // window bytes 0..7
  input  logic [Width-1:0]     win_err_i,
  input  logic [8:1]           win_has_i,
  input  logic [8:1]           rem_has_i,     // at least k bytes of the message left
  input  logic                 rem_has19_i,   // room for a field header and a UUID
  input  logic [LenW-1:0]      rem_i,
  input  logic [LenW-1:0]      pos_i,         // message bytes consumed so far
  input  logic [LenW-1:0]      value_cap_i,   // bytes in the App.Recv value region
  output logic [6:0]           consume_o,
  output logic [6:0]           want_o,        // the next data or skip chunk
  input  logic                 has_want_i,    // ... is at the head now

  // Key and value chunks to the output buffer: len_o bytes of the window
  // land at App.Recv offset dst_o (a multiple of Width).
  input  logic                 credit_i,
  output logic                 take_o,
  output logic                 give_o,        // a chunk that took a credit was squashed
  output logic                 out_valid_o,
  output logic                 out_discard_o, // forget the line gathered so far (after a fault)
  output logic [LenW-1:0]      out_dst_o,
  output logic [6:0]           out_len_o,
  output logic                 out_last_o,

  output logic                 done_o,
  output result_e              result_o,
  output logic [LenW-1:0]      offset_o,
  output operands_t            operands_o
);

  typedef enum logic [3:0] {
    FIdle, FHdrA, FHdrB, FValA, FValB, FLenA, FLenB, FData, FSkip
  } fstate_e;

  fstate_e        state_q, state_d;
  operands_t      ops_q, ops_d;          // operand registers
  logic [LenW-1:0] item_q;               // offset of the field header (p)
  logic [LenW-1:0] lenpos_q;             // offset of the binary length word (p + 3)
  logic [7:0]     type_q;                // the field header read
  logic [15:0]    id_q;
  logic [63:0]    val_q;                 // the value or length read
  logic           err0_q, err_q;         // faulty type byte; any other faulty byte read
  logic           rem3_q;                // the field header had 3 bytes to read
  logic           rem19_q;               // ... and 16 more after it
  logic [3:0]     size_q;                // one-hot fixed size: 1, 2, 4, 8
  logic           is_req_id_q, is_key_q, is_value_q, is_flags_q, is_exptime_q;

  // ---- Field extractor, schema table, comparator ----
  logic [7:0]  x_type;
  logic [15:0] x_id;
  logic [31:0] x_u32;
  logic [63:0] x_u64;

  field_extractor u_field_extractor (
    .bytes_i (win_i),
    .type_o  (x_type),
    .id_o    (x_id),
    .u32_o   (x_u32),
    .u64_o   (x_u64)
  );

  logic       type_valid, type_nested, type_binary, type_uuid, field_known;
  logic [3:0] type_size;
  ttype_e     field_type;

  schema_table u_schema_table (
    .type_i        (type_q),
    .id_i          (id_q),
    .type_valid_o  (type_valid),
    .type_nested_o (type_nested),
    .type_binary_o (type_binary),
    .type_uuid_o   (type_uuid),
    .type_size_o   (type_size),
    .field_known_o (field_known),
    .field_type_o  (field_type)
  );

  logic match;                           // comparator: (id, type) is what the schema says
  assign match = field_known && (type_q == field_type);

  // ---- The read step of each state ----
  logic       read_step, can_read, has_bytes;
  logic [3:0] k;                         // one-hot bytes: 1, 2, 4, 8 (a field header: 3)
  logic [7:0] kmask;
  always_comb begin
    read_step = 1'b1;
    has_bytes = 1'b1;
    can_read  = 1'b0;
    k         = 4'b0000;
    kmask     = 8'h00;
    unique case (state_q)
      FHdrA: begin
        // Need 1 byte to see T_STOP, 3 for a field header.
        has_bytes = rem_has_i[1];
        can_read  = rem_has_i[3] ? win_has_i[3] : win_has_i[1];
        kmask     = 8'h07;
      end
      FValA: begin
        has_bytes = |(size_q & {rem_has_i[8], rem_has_i[4], rem_has_i[2], rem_has_i[1]});
        can_read  = |(size_q & {win_has_i[8], win_has_i[4], win_has_i[2], win_has_i[1]});
        k         = size_q;
        kmask     = {{4{size_q[3]}}, {2{size_q[3] | size_q[2]}}, ~size_q[0], 1'b1};
      end
      FLenA: begin
        has_bytes = rem_has_i[4];
        can_read  = win_has_i[4];
        k         = 4'b0100;
        kmask     = 8'h0F;
      end
      default: read_step = 1'b0;
    endcase
  end

  // ---- Data and skip chunks: Width bytes, or the field's tail ----
  logic [LenW-1:0] count_q, count_d;     // bytes left in the field being copied or skipped
  logic            big_q, big_d;         // count_q > Width
  logic [LenW-1:0] dst_q, dst_d;         // address adder: next App.Recv offset to write
  logic [6:0]      chunk;
  logic            streaming, lane_last, needs_credit, fire;

  assign streaming    = (state_q == FData) || (state_q == FSkip);
  assign chunk        = big_q ? 7'(Width) : count_q[6:0];
  assign want_o       = chunk;
  assign lane_last    = (dst_q[5:0] | 6'(Width - 1)) == 6'h3F;   // the chunk ends its line
  assign needs_credit = lane_last || !big_q;
  assign fire         = streaming && has_want_i &&
                        (state_q == FSkip || !needs_credit || credit_i);

  // A chunk leaves the window the cycle after it was consumed: its bytes
  // are checked for faults then, and dropped if a fault ended the request.
  logic            c_valid_q, c_data_q, c_last_q, dead_q;
  logic [6:0]      c_len_q;
  logic [LenW-1:0] c_dst_q;
  logic [Width-1:0] c_mask;
  logic            c_fault;
  always_comb begin
    for (int unsigned i = 0; i < Width; i++) c_mask[i] = 7'(i) < c_len_q;
  end
  assign c_fault = c_valid_q && |(win_err_i & c_mask);

  // ---- Results: the offsets of abi.md section 5 ----
  logic [LenW-1:0] item_plus1;
  assign item_plus1 = item_q + 1'b1;

  // A binary length n (in val_q's top word) against the limits.
  logic [31:0] n;
  logic        key_long, value_long, past_end;
  assign n          = val_q[63:32];
  assign past_end   = (n[31:LenW] != '0) || (n[LenW-1:0] > rem_i);
  assign key_long   = n > KeyMax;
  assign value_long = (n[31:LenW] != '0) || (n[LenW-1:0] > value_cap_i);

  always_comb begin
    state_d   = state_q;
    ops_d     = ops_q;
    count_d   = count_q;
    big_d     = big_q;
    dst_d     = dst_q;
    consume_o = '0;
    done_o    = 1'b0;
    result_o  = ResNone;
    offset_o  = pos_i;

    if (read_step && fresh_i) begin
      if (!has_bytes) begin
        done_o   = 1'b1;
        result_o = ResTruncated;
      end else if (can_read) begin
        // A field header short of 3 bytes is read without consuming: it
        // ends the request either way.
        consume_o = (state_q == FHdrA) ? (rem_has_i[3] ? 7'd3 : 7'd0) : {3'b0, k};
        state_d   = fstate_e'(state_q + 1'b1);   // the step's check cycle
      end
    end

    unique case (state_q)
      FHdrB: begin
        if (err0_q) begin
          done_o = 1'b1; result_o = ResLoadFault;
        end else if (type_q == TStop) begin      // T_STOP
          done_o = 1'b1; result_o = ResOk; offset_o = item_plus1;
        end else if (!rem3_q) begin
          done_o = 1'b1; result_o = ResTruncated; offset_o = item_q;
        end else if (err_q) begin
          done_o = 1'b1; result_o = ResLoadFault;
        end else if (!type_valid) begin
          done_o = 1'b1; result_o = ResBadType; offset_o = item_q;
        end else if (type_nested) begin
          done_o = 1'b1; result_o = ResNestedUnsupported; offset_o = item_q;
        end else if (type_uuid) begin
          if (!rem19_q) begin
            done_o = 1'b1; result_o = ResTruncated;
          end else begin
            count_d = LenW'(16);
            big_d   = 16 > Width;
            state_d = FSkip;
          end
        end else if (type_binary) begin
          state_d = FLenA;
        end else begin
          state_d = FValA;
        end
      end

      FValB: begin
        if (err_q) begin
          done_o = 1'b1; result_o = ResLoadFault;
        end else begin
          // Operand registers: a scalar's value is its first size bytes, big-endian.
          if (is_req_id_q)  begin ops_d.req_id  = val_q;         ops_d.present[0] = 1'b1; end
          if (is_flags_q)   begin ops_d.flags   = val_q[63:32];  ops_d.present[3] = 1'b1; end
          if (is_exptime_q) begin ops_d.exptime = val_q[63:32];  ops_d.present[4] = 1'b1; end
          state_d = FHdrA;
        end
      end

      FLenB: begin
        if (err_q) begin
          done_o = 1'b1; result_o = ResLoadFault;
        end else if (val_q[63]) begin
          done_o = 1'b1; result_o = ResBadLength; offset_o = lenpos_q;
        end else if (past_end) begin
          done_o = 1'b1; result_o = ResTruncated;
        end else if (is_key_q && key_long) begin
          done_o = 1'b1; result_o = ResKeyTooLong; offset_o = lenpos_q;
        end else if (is_value_q && value_long) begin
          done_o = 1'b1; result_o = ResValueTooLong; offset_o = lenpos_q;
        end else begin
          count_d = n[LenW-1:0];
          big_d   = n > 32'(Width);
          if (is_key_q) begin
            ops_d.key_len    = n;
            ops_d.present[1] = 1'b1;
            dst_d            = LenW'(KeyOffset);
          end
          if (is_value_q) begin
            ops_d.value_len  = n;
            ops_d.present[2] = 1'b1;
            dst_d            = LenW'(ValueOffset);
          end
          if (n == '0) state_d = FHdrA;
          else state_d = (is_key_q || is_value_q) ? FData : FSkip;
        end
      end

      FData, FSkip: begin
        if (fire) begin
          consume_o = chunk;
          count_d   = count_q - LenW'(Width);
          big_d     = count_q > LenW'(2 * Width);
          dst_d     = dst_q + LenW'(Width);
          if (!big_q) state_d = FHdrA;
        end
      end

      default: ;
    endcase

    // A chunk read from a faulty line ends the request, whatever the state.
    if (c_fault && !dead_q) begin
      done_o   = 1'b1;
      result_o = ResLoadFault;
    end
    if (done_o) state_d = FIdle;
    if (clear_i) ops_d = '0;
    if (start_i) state_d = FHdrA;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q   <= FIdle;
      ops_q     <= '0;
      count_q   <= '0;
      big_q     <= 1'b0;
      dst_q     <= '0;
      c_valid_q <= 1'b0;
      c_data_q  <= 1'b0;
      c_last_q  <= 1'b0;
      dead_q    <= 1'b1;
    end else begin
      state_q   <= state_d;
      ops_q     <= ops_d;
      count_q   <= count_d;
      big_q     <= big_d;
      dst_q     <= dst_d;
      c_valid_q <= fire;
      c_data_q  <= fire && (state_q == FData);
      c_last_q  <= fire && needs_credit;
      dead_q    <= start_i ? 1'b0 : (dead_q || done_o);
    end
  end

  // Read registers: each read step keeps what it took.
  always_ff @(posedge clk_i) begin
    if (fire) begin
      c_len_q <= chunk;
      c_dst_q <= dst_q;
    end
    if (read_step && fresh_i && can_read) begin
      err0_q <= win_err_i[0];
      err_q  <= |(win_err_i[7:0] & kmask & ((state_q == FHdrA) ? 8'hFE : 8'hFF));
    end
    if (state_q == FHdrA && fresh_i && can_read) begin
      item_q <= pos_i;
      type_q <= x_type;
      id_q   <= x_id;
      rem3_q <= rem_has_i[3];
      rem19_q <= rem_has19_i;
    end
    if (state_q == FHdrB) begin
      size_q       <= type_size;
      is_req_id_q  <= match && id_q == 16'd1;
      is_key_q     <= match && id_q == 16'd2;
      is_value_q   <= match && id_q == 16'd3;
      is_flags_q   <= match && id_q == 16'd4;
      is_exptime_q <= match && id_q == 16'd5;
    end
    if ((state_q == FValA || state_q == FLenA) && fresh_i && can_read) begin
      // A value of size bytes sits in the top bytes of val_q.
      val_q <= (state_q == FLenA) ? {x_u32, 32'b0} : x_u64;
      if (state_q == FLenA) lenpos_q <= pos_i;
    end
  end

  // Chunks: the squashed ones give back their credit and the line they
  // were gathering.
  logic squash;
  assign squash        = c_fault || dead_q;
  assign out_valid_o   = c_valid_q && c_data_q && !squash;
  assign out_discard_o = c_valid_q && c_data_q && squash;
  assign give_o        = c_valid_q && c_data_q && c_last_q && squash;
  assign take_o        = fire && state_q == FData && needs_credit;
  assign out_dst_o     = c_dst_q;
  assign out_len_o     = c_len_q;
  assign out_last_o    = c_last_q;
  assign operands_o    = ops_q;

  // Reads are 1, 2, 3, 4 or 8 bytes.
  logic unused_has;
  assign unused_has = ^{win_has_i[7:5], rem_has_i[7:5]};

endmodule
