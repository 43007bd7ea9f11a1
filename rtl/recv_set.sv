// recvFunction for Memcached Set (paper Figure 11): walks the argument fields
// from the line buffer, validates each header against the schema table,
// byte-swaps scalars into the operand registers and streams key and value
// bytes to the output buffer until T_STOP (docs/abi.md section 5.6).
module recv_set
  import arcalis_pkg::*;
(
  input  logic                 clk_i,
  input  logic                 rst_ni,

  input  logic                 clear_i,       // a new request: operands back to 0
  input  logic                 start_i,       // dispatched by the Deserializer
  input  logic [31:0]          pos_i,         // message bytes consumed so far (p)
  input  logic [31:0]          len_i,         // message length N
  input  logic [31:0]          value_cap_i,   // bytes in the App.Recv value region

  // Line buffer head.
  input  logic [LineBits-1:0]  head_i,
  input  logic [7:0]           avail_i,
  input  logic [6:0]           split_i,
  input  logic                 err_lo_i,
  input  logic                 err_hi_i,
  output logic [6:0]           consume_o,

  // Key and value bytes to the output buffer: len_o bytes of bytes_o land at
  // App.Recv offset dst_o.
  output logic                 out_valid_o,
  input  logic                 out_ready_i,
  output logic [31:0]          out_dst_o,
  output logic [LineBits-1:0]  out_bytes_o,
  output logic [6:0]           out_len_o,

  output logic                 done_o,
  output result_e              result_o,
  output logic [31:0]          offset_o,
  output operands_t            operands_o
);

  typedef enum logic [1:0] {FIdle, FHeader, FData, FSkip} fstate_e;

  fstate_e     state_q, state_d;
  logic [31:0] count_q, count_d;     // bytes left in the field being copied or skipped
  logic [31:0] dst_q, dst_d;         // address adder: next App.Recv offset to write
  operands_t   ops_q, ops_d;

  logic [31:0] rem;
  assign rem = len_i - pos_i;

  // Bytes the current step needs at the head, and whether any came back faulty.
  function automatic logic faulty(input logic [31:0] k, input logic [6:0] split,
                                  input logic lo, input logic hi);
    return (k != 0 && lo) || (k > {25'b0, split} && hi);
  endfunction

  // ---- Field header: DeMUX, schema table, comparator, field extractor ----
  logic [7:0]  ftype;
  logic [15:0] fid;
  logic [63:0] u64;
  logic [31:0] u32;
  logic        type_valid, type_nested, type_binary, field_known;
  logic [4:0]  type_size;
  ttype_e      field_type;
  logic        match;            // comparator: (id, type) is what the schema says

  assign ftype = head_i[7:0];

  field_extractor u_field_extractor (
    .bytes_i (head_i[8 +: 80]),
    .id_o    (fid),
    .u64_o   (u64),
    .u32_o   (u32)
  );

  schema_table u_schema_table (
    .type_i        (ftype),
    .id_i          (fid),
    .type_valid_o  (type_valid),
    .type_nested_o (type_nested),
    .type_binary_o (type_binary),
    .type_size_o   (type_size),
    .field_type_o  (field_type),
    .field_known_o (field_known)
  );

  assign match = field_known && (ftype == field_type);

  logic [31:0] step, need;
  always_comb begin : step_size
    if (ftype == TStop)                        step = 32'd1;
    else if (!type_valid || type_nested)       step = 32'd3;
    else if (type_binary)                      step = 32'd7;
    else if (ftype == TUuid)                   step = 32'd3;
    else                                       step = 32'd3 + {27'b0, type_size};
  end
  assign need = (rem < step) ? rem : step;

  // ---- A short binary field whose header and bytes are all at the head ----
  // (at most 57 bytes: one step consumes at most 64) is taken in one step,
  // its bytes going out from head byte 7 on to the start of its region.
  logic whole;
  assign whole = type_binary && !u32[31] && (u32 != 0) && (u32 <= 32'd57) &&
                 ({24'b0, avail_i} >= u32 + 32'd7) && (u32 <= rem - 7) &&
                 !faulty(u32 + 32'd7, split_i, err_lo_i, err_hi_i) &&
                 (!match || out_ready_i);

  // ---- Data and skip steps: as many bytes as the head holds, up to the line end ----
  logic [31:0] chunk, room;
  assign room  = (state_q == FData) ? (32'd64 - {26'b0, dst_q[5:0]}) : 32'd64;
  always_comb begin : chunk_size
    chunk = count_q;
    if ({24'b0, avail_i} < chunk) chunk = {24'b0, avail_i};
    if (room < chunk)             chunk = room;
  end

  always_comb begin
    state_d     = state_q;
    count_d     = count_q;
    dst_d       = dst_q;
    ops_d       = ops_q;
    consume_o   = '0;
    out_valid_o = 1'b0;
    done_o      = 1'b0;
    result_o    = ResNone;
    offset_o    = '0;

    unique case (state_q)
      FHeader: begin
        if ({24'b0, avail_i} >= need) begin
          if (faulty(need, split_i, err_lo_i, err_hi_i)) begin
            result_o = ResLoadFault;
            offset_o = pos_i;
          end else if (rem == 0) begin
            result_o = ResTruncated;
            offset_o = pos_i;
          end else if (ftype == TStop) begin          // T_STOP detection
            result_o  = ResOk;
            offset_o  = pos_i + 1;
            consume_o = 7'd1;
          end else if (rem < 3) begin
            result_o = ResTruncated;
            offset_o = pos_i;
          end else if (!type_valid) begin
            result_o = ResBadType;
            offset_o = pos_i;
          end else if (type_nested) begin
            result_o = ResNestedUnsupported;
            offset_o = pos_i;
          end else if (ftype == TUuid) begin
            if (rem < 19) begin
              result_o = ResTruncated;
              offset_o = pos_i + 3;
            end else begin
              consume_o = 7'd3;
              count_d   = 32'd16;
              state_d   = FSkip;
            end
          end else if (!type_binary) begin
            if (rem < step) begin
              result_o = ResTruncated;
              offset_o = pos_i + 3;
            end else begin
              consume_o = step[6:0];
              if (match) begin
                unique case (fid[2:0])
                  3'd1:    begin ops_d.req_id  = u64;                ops_d.present[0] = 1'b1; end
                  3'd4:    begin ops_d.flags   = u64[63:32];         ops_d.present[3] = 1'b1; end
                  default: begin ops_d.exptime = u64[63:32];         ops_d.present[4] = 1'b1; end
                endcase
              end
            end
          end else begin                              // binary: length word, then bytes
            if (rem < 7) begin
              result_o = ResTruncated;
              offset_o = pos_i + 3;
            end else if (u32[31]) begin
              result_o = ResBadLength;
              offset_o = pos_i + 3;
            end else if (u32 > rem - 7) begin
              result_o = ResTruncated;
              offset_o = pos_i + 7;
            end else if (match && fid[2:0] == 3'd2 && u32 > KeyMax) begin
              result_o = ResKeyTooLong;
              offset_o = pos_i + 3;
            end else if (match && fid[2:0] == 3'd3 && u32 > value_cap_i) begin
              result_o = ResValueTooLong;
              offset_o = pos_i + 3;
            end else begin
              consume_o = 7'd7;
              count_d   = u32;
              if (match && fid[2:0] == 3'd2) begin
                ops_d.key_len    = u32;
                ops_d.present[1] = 1'b1;
                dst_d            = KeyOffset;
              end else if (match) begin
                ops_d.value_len  = u32;
                ops_d.present[2] = 1'b1;
                dst_d            = ValueOffset;
              end
              if (whole) begin            // header and bytes in this one step
                consume_o   = 7'd7 + u32[6:0];
                out_valid_o = match;
                count_d     = '0;
                dst_d       = dst_d + u32;
              end else if (u32 != 0) begin
                state_d = match ? FData : FSkip;
              end
            end
          end
        end
      end

      FData, FSkip: begin
        if (avail_i != 0 && (state_q == FSkip || out_ready_i)) begin
          if (faulty(chunk, split_i, err_lo_i, err_hi_i)) begin
            result_o = ResLoadFault;
            offset_o = pos_i;
          end else begin
            out_valid_o = (state_q == FData);
            consume_o   = chunk[6:0];
            count_d     = count_q - chunk;
            dst_d       = dst_q + chunk;
            if (count_q == chunk) state_d = FHeader;
          end
        end
      end

      default: ;
    endcase

    if (result_o != ResNone) begin
      done_o  = 1'b1;
      state_d = FIdle;
    end
    if (clear_i) ops_d = '0;
    if (start_i) state_d = FHeader;
  end

  // In a whole-field step the bytes start at head byte 7 and go to the start
  // of the field's region.
  logic head_step;
  assign head_step   = (state_q == FHeader);
  assign out_dst_o   = head_step ? ((fid[2:0] == 3'd2) ? KeyOffset : ValueOffset) : dst_q;
  assign out_bytes_o = head_step ? (head_i >> 56) : head_i;
  assign out_len_o   = head_step ? u32[6:0] : chunk[6:0];
  assign operands_o  = ops_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= FIdle;
      count_q <= '0;
      dst_q   <= '0;
      ops_q   <= '0;
    end else begin
      state_q <= state_d;
      count_q <= count_d;
      dst_q   <= dst_d;
      ops_q   <= ops_d;
    end
  end

endmodule
