// A small design for TestReadVerilatorXML (state.xml is its
// `verilator --xml-only -DSYNTHESIS --top-module state_top` output).
module state_fifo (
  input  logic       clk_i,
  input  logic       rst_ni,
  input  logic       we_i,
  input  logic [7:0] d_i,
  output logic [7:0] q_o
);
  typedef struct packed { logic [7:0] data; logic last; } entry_t;
  entry_t     mem_q [2];   // 2 x 9 bits
  logic [3:0] cnt_q;       // 4 bits
  logic       wr_q;        // 1 bit
  logic [7:0] sum;         // combinational: not state
  always_comb sum = mem_q[0].data + mem_q[1].data;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cnt_q <= '0;
      wr_q  <= 1'b0;
    end else if (we_i) begin
      mem_q[wr_q] <= '{data: d_i, last: 1'b0};
      {cnt_q, wr_q} <= {cnt_q + 4'd1, ~wr_q};
      for (int i = 0; i < 2; i++) begin  // i is a loop local, not state
        if (cnt_q == 4'(i)) cnt_q <= cnt_q;
      end
    end
  end
  assign q_o = sum;
endmodule

module state_top #(parameter int unsigned Lanes = 1) (
  input  logic       clk_i,
  input  logic       rst_ni,
  input  logic       we_i,
  input  logic [7:0] d_i,
  output logic [7:0] q_o
);
  state_fifo u_fifo (.*);
endmodule
