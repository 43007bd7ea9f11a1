// requester is the line memory's test design (linemem_equiv_test.go): a
// random source of line loads and stores on a cache-line memory port, as
// Arcalís has, and a fold of every answer it gets. A 64-bit xorshift
// generator, seeded from seed_i in reset, picks each cycle whether to
// load, to store, and where: one of 32 lines of a 2 KiB region, the same
// line for both on about a quarter of the edges that issue both; now and
// then (with odd_i) a line past the region, an address not line aligned,
// or a page far off. Requests are offered for one cycle only, so a port that is not
// ready drops them.
module requester (
  input  logic         clk_i,
  input  logic         rst_ni,
  input  logic [63:0]  seed_i,
  input  logic [63:0]  base_i,     // the region's first line
  input  logic         odd_i,      // some requests outside the region
  // load port
  output logic         ld_req_valid_o,
  output logic [63:0]  ld_req_addr_o,
  output logic [7:0]   ld_req_tag_o,
  input  logic         ld_req_ready_i,
  input  logic         ld_rsp_valid_i,
  input  logic [7:0]   ld_rsp_tag_i,
  input  logic [511:0] ld_rsp_data_i,
  input  logic         ld_rsp_err_i,
  // store port
  output logic         st_req_valid_o,
  output logic [63:0]  st_req_addr_o,
  output logic [7:0]   st_req_tag_o,
  output logic [511:0] st_req_data_o,
  output logic [63:0]  st_req_strb_o,
  input  logic         st_req_ready_i,
  input  logic         st_ack_valid_i,
  input  logic [7:0]   st_ack_tag_i,
  // what it got
  output logic [63:0]  sum_o,      // every load answer, in order
  output logic [63:0]  acks_o,     // every acknowledgement, in order
  output logic [3:0]   state_o     // loads in flight, mod 16
);

  logic [63:0] x_q, x_d, y_d;
  logic [7:0]  ld_tag_q, st_tag_q;
  logic [63:0] sum_q, acks_q;
  logic [3:0]  inflight_q;

  // Two draws per cycle: x_d steers the requests, y_d fills the store.
  function automatic logic [63:0] xorshift(logic [63:0] v);
    v = v ^ (v << 13);
    v = v ^ (v >> 7);
    v = v ^ (v << 17);
    return v;
  endfunction

  assign x_d = xorshift(x_q);
  assign y_d = xorshift(x_d);

  // Where a request goes: a line of the region, or (rarely) elsewhere.
  function automatic logic [63:0] place(logic [63:0] base, logic [4:0] line, logic [2:0] odd);
    unique case (odd)
      3'd0:    return base + 64'd2048 + {53'd0, line, 6'd0};  // past the region
      3'd1:    return base + {53'd0, line, 6'd0} + 64'd8;     // not line aligned
      3'd2:    return base + 64'h10_0000 + {53'd0, line, 6'd0}; // a page far off
      default: return base + {53'd0, line, 6'd0};
    endcase
  endfunction

  logic [2:0] ld_odd, st_odd;
  assign ld_odd = odd_i && x_q[20:18] == 3'd7 ? x_q[23:21] : 3'd7;
  assign st_odd = odd_i && x_q[26:24] == 3'd7 ? x_q[29:27] : 3'd7;

  assign ld_req_valid_o = rst_ni && x_q[0] | x_q[1];
  assign ld_req_addr_o  = place(base_i, x_q[8:4], ld_odd);
  assign ld_req_tag_o   = ld_tag_q;
  assign st_req_valid_o = rst_ni && x_q[2] | x_q[3];
  assign st_req_addr_o  = x_q[31:30] == 2'd0 ? ld_req_addr_o : place(base_i, x_q[13:9], st_odd);
  assign st_req_tag_o   = st_tag_q;
  assign st_req_data_o  = {y_d, ~y_d, y_d ^ x_q, x_q, y_d + x_q, y_d - x_q, {y_d[31:0], y_d[63:32]}, ~x_q};
  assign st_req_strb_o  = x_q[32] ? 64'hFFFF_FFFF_FFFF_FFFF : x_d;

  // A 512-bit answer folded to 64 bits, position by position.
  function automatic logic [63:0] fold(logic [511:0] d);
    logic [63:0] f = '0;
    for (int i = 0; i < 8; i++) f = {f[62:0], f[63]} ^ d[64*i +: 64];
    return f;
  endfunction

  logic ld_fire, st_fire;
  assign ld_fire = ld_req_valid_o && ld_req_ready_i;
  assign st_fire = st_req_valid_o && st_req_ready_i;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      x_q        <= seed_i | 64'd1;
      ld_tag_q   <= '0;
      st_tag_q   <= '0;
      sum_q      <= '0;
      acks_q     <= '0;
      inflight_q <= '0;
    end else begin
      x_q <= y_d;
      if (ld_fire) ld_tag_q <= ld_tag_q + 8'd1;
      if (st_fire) st_tag_q <= st_tag_q + 8'd1;
      if (ld_rsp_valid_i) sum_q <= {sum_q[62:0], sum_q[63]} ^ fold(ld_rsp_data_i) ^ {55'd0, ld_rsp_err_i, ld_rsp_tag_i};
      if (st_ack_valid_i) acks_q <= acks_q * 64'd31 + {56'd0, st_ack_tag_i};
      inflight_q <= inflight_q + {3'd0, ld_fire} - {3'd0, ld_rsp_valid_i};
    end
  end

  assign sum_o   = sum_q;
  assign acks_o  = acks_q;
  assign state_o = inflight_q;

endmodule
