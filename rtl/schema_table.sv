// Schema table of Figure 11: a read-only table of idl/memcached.thrift's
// two methods. It maps each Thrift type id to its wire size class, and says
// which argument slot a field header (id, type) fills: the comparator is
// the table's match on both. Get's arguments are Set's first two.
module schema_table
  import arcalis_pkg::*;
(
  input  logic [7:0]  type_i,
  input  logic [15:0] id_i,
  input  logic        get_i,           // the method is Get: slots 3 to 5 are not its arguments
  output logic        type_valid_o,    // a Thrift type id at all
  output logic        type_nested_o,   // STRUCT, MAP, SET, LIST
  output logic        type_binary_o,   // length-prefixed
  output logic        type_uuid_o,     // 16 bytes, skipped
  output logic [3:0]  type_size_o,     // one-hot wire size of BOOL..I64: 1, 2, 4, 8 bytes
  output logic [5:1]  slot_o           // one-hot: the header is argument k with the declared type
);

  // Set(1: i64 req_id, 2: binary key, 3: binary value, 4: i32 flags, 5: i32 exptime)
  // Get(1: i64 req_id, 2: binary key)
  always_comb begin
    slot_o[1] = (id_i == 16'd1) && (type_i == TI64);
    slot_o[2] = (id_i == 16'd2) && (type_i == TString);
    slot_o[3] = (id_i == 16'd3) && (type_i == TString) && !get_i;
    slot_o[4] = (id_i == 16'd4) && (type_i == TI32) && !get_i;
    slot_o[5] = (id_i == 16'd5) && (type_i == TI32) && !get_i;
  end

  always_comb begin
    type_valid_o  = 1'b1;
    type_nested_o = 1'b0;
    type_binary_o = 1'b0;
    type_uuid_o   = 1'b0;
    type_size_o   = 4'b0000;
    unique case (type_i)
      TBool, TByte:  type_size_o = 4'b0001;
      TI16:          type_size_o = 4'b0010;
      TI32:          type_size_o = 4'b0100;
      TDouble, TI64: type_size_o = 4'b1000;
      TUuid:         type_uuid_o = 1'b1;
      TString:       type_binary_o = 1'b1;
      TStruct, TMap, TSet, TList: type_nested_o = 1'b1;
      default:       type_valid_o = 1'b0;
    endcase
  end

endmodule
