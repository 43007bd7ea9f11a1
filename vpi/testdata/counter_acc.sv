// counter_acc is counter's accumulator: acc_q advances by step_i when en_i
// is set. A submodule, so the tests can reach a signal below the top.
module counter_acc (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        en_i,
  input  logic [31:0] step_i,
  output logic [31:0] acc_o
);

  logic [31:0] acc_q, acc_d;

  always_comb acc_d = en_i ? acc_q + step_i : acc_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) acc_q <= '0;
    else         acc_q <= acc_d;
  end

  assign acc_o = acc_q;

endmodule
