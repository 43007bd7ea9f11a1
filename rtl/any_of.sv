// An OR of up to six flags in a module of its own, so that synthesis maps
// it to one LUT and cannot build it from another OR of some of the same
// flags: two LUT levels in front of the wide enables it drives.
module any_of #(
  parameter int unsigned N = 2
) (
  input  logic [N-1:0] flags_i,
  output logic         any_o
);
  if (N > 6) begin : g_check
    $error("any_of: more flags than one LUT6 takes");
  end
  assign any_o = |flags_i;
endmodule
