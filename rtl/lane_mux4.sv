// One 4:1 step of the byte selector: output lane i is input lane
// i + k * Step for select k. A module of its own so that synthesis maps
// every output bit to one LUT6 (four data inputs, two select inputs) and
// cannot merge it with the next step into wider functions.
module lane_mux4 #(
  parameter int unsigned N    = 16,    // output lanes
  parameter int unsigned Step = 1,     // lanes per select step
  parameter int unsigned L    = 8,     // bits per lane
  localparam int unsigned M   = N + 3 * Step
) (
  input  logic [M*L-1:0] lanes_i,
  input  logic [4*2-1:0] sel_i,        // lane i's select is sel_i[2*(i%4) +: 2], inverted when i%4 is odd
  output logic [N*L-1:0] lanes_o
);
  always_comb begin
    for (int unsigned i = 0; i < N; i++) begin
      logic [1:0] k;
      k = (i % 2 == 1) ? ~sel_i[2*(i%4) +: 2] : sel_i[2*(i%4) +: 2];
      unique case (k)
        2'd0:    lanes_o[i*L +: L] = lanes_i[(i           )*L +: L];
        2'd1:    lanes_o[i*L +: L] = lanes_i[(i +     Step)*L +: L];
        2'd2:    lanes_o[i*L +: L] = lanes_i[(i + 2 * Step)*L +: L];
        default: lanes_o[i*L +: L] = lanes_i[(i + 3 * Step)*L +: L];
      endcase
    end
  end
endmodule
