// counter is the vpi package's test design: an accumulator with an enable
// (counter_acc), a comparator, a 512-bit line register, a free-running
// 48-bit cycle counter and a $finish request.
module counter (
  input  logic         clk_i,
  input  logic         rst_ni,
  input  logic         en_i,
  input  logic [31:0]  step_i,
  input  logic [31:0]  limit_i,
  input  logic         load_i,
  input  logic [511:0] line_i,
  input  logic [11:0]  tag_i,
  input  logic         halt_i,
  output logic [31:0]  count_o,
  output logic         hit_o,
  output logic [511:0] line_o,
  output logic [11:0]  tag_o,
  output logic [47:0]  cycles_o
);

  logic [511:0] line_q, line_d;
  logic [11:0]  tag_q;
  logic [47:0]  cycles_q;

  counter_acc u_acc (
    .clk_i,
    .rst_ni,
    .en_i,
    .step_i,
    .acc_o (count_o)
  );

  always_comb line_d = load_i ? line_i : line_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      line_q   <= '0;
      tag_q    <= '0;
      cycles_q <= '0;
    end else begin
      line_q   <= line_d;
      tag_q    <= tag_i;
      cycles_q <= cycles_q + 48'd1;
    end
  end

  // The comparator is combinational: its pre-edge sample already sees a
  // limit_i set for the same cycle.
  assign hit_o    = count_o >= limit_i;
  assign line_o   = line_q;
  assign tag_o    = tag_q;
  assign cycles_o = cycles_q;

  always_ff @(posedge clk_i) begin
    if (halt_i) $finish;
  end

endmodule
