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
  output logic [4:0]  type_size_o,     // wire size of a fixed-size type
  output ttype_e      field_type_o,    // the type the schema declares for id_i
  output logic        field_known_o    // id_i is one of Set's fields
);

  // Set(1: i64 req_id, 2: binary key, 3: binary value, 4: i32 flags, 5: i32 exptime)
  localparam int unsigned NumFields = 5;
  localparam ttype_e FieldTypes [NumFields] = '{TI64, TString, TString, TI32, TI32};

  always_comb begin
    type_valid_o  = 1'b1;
    type_nested_o = 1'b0;
    type_binary_o = 1'b0;
    type_size_o   = 5'd0;
    unique case (type_i)
      TBool, TByte: type_size_o = 5'd1;
      TI16:         type_size_o = 5'd2;
      TI32:         type_size_o = 5'd4;
      TDouble, TI64: type_size_o = 5'd8;
      TUuid:        type_size_o = 5'd16;
      TString:      type_binary_o = 1'b1;
      TStruct, TMap, TSet, TList: type_nested_o = 1'b1;
      default:      type_valid_o = 1'b0;
    endcase
  end

  assign field_known_o = (id_i >= 16'd1) && (id_i <= 16'(NumFields));
  assign field_type_o  = field_known_o ? FieldTypes[id_i[2:0] - 3'd1] : TStop;

endmodule
