// Schema table of Figure 11: a read-only table filled at elaboration from
// memcached.thrift. It maps each Thrift type id to its wire size class, and
// each field id of Set's arguments to the type the schema declares.
module schema_table
  import arcalis_pkg::*;
(
  input  logic [7:0]  type_i,
  input  logic [15:0] id_i,
  output logic        type_valid_o,    // a Thrift type id at all
  output logic        type_nested_o,   // STRUCT, MAP, SET, LIST
  output logic        type_binary_o,   // length-prefixed
  output logic        type_uuid_o,     // 16 bytes, skipped
  output logic [3:0]  type_size_o,     // one-hot wire size of BOOL..I64: 1, 2, 4, 8 bytes
  output logic        field_known_o,   // id_i is one of Set's fields
  output ttype_e      field_type_o     // the type the schema declares for id_i
);

  // Set(1: i64 req_id, 2: binary key, 3: binary value, 4: i32 flags, 5: i32 exptime)
  always_comb begin
    field_known_o = 1'b1;
    unique case (id_i)
      16'd1:   field_type_o = TI64;
      16'd2:   field_type_o = TString;
      16'd3:   field_type_o = TString;
      16'd4:   field_type_o = TI32;
      16'd5:   field_type_o = TI32;
      default: begin
        field_known_o = 1'b0;
        field_type_o  = TStop;
      end
    endcase
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
