// FLR load queue with its reorder buffer: issues the line loads of one
// message in order, up to Depth in flight, takes the answers in any order
// (tag = ROB slot) and shows the line buffer the two lines at the ROB head.
// The request port is driven from registers; a slot the line buffer frees
// is offered again one cycle later.
module load_queue
  import arcalis_pkg::*;
#(
  parameter int unsigned Depth = 32,
  localparam int unsigned TagW = $clog2(Depth)
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,

  input  logic                 start_i,       // load lines first_i .. first_i + count_i - 1
  input  logic [LineAddrW-1:0] first_i,
  input  logic [LinesW-1:0]    count_i,
  input  logic                 stop_i,        // the request ended: issue nothing more

  output logic                 ld_req_valid_o,
  input  logic                 ld_req_ready_i,
  output logic [AddrW-1:0]     ld_req_addr_o,
  output logic [TagW-1:0]      ld_req_tag_o,
  input  logic                 ld_rsp_valid_i,
  input  logic [TagW-1:0]      ld_rsp_tag_i,
  input  logic [LineBits-1:0]  ld_rsp_data_i,
  input  logic                 ld_rsp_err_i,

  // The two lines at the ROB head, for the line buffer.
  output logic [LineBits-1:0]  line0_o,
  output logic [LineBits-1:0]  line1_o,
  output logic                 v0_o,
  output logic                 v1_o,
  output logic                 e0_o,
  output logic                 e1_o,
  input  logic                 drop_i,        // the line buffer is done with the head line

  output logic                 idle_o         // no load in flight after this edge
);

  if (Depth < 4 || (Depth & (Depth - 1)) != 0) begin : g_check_depth
    $error("load_queue: Depth must be a power of two >= 4, not %0d", Depth);
  end

  logic [LineAddrW-1:0] next_q, next_d;       // next line to load
  logic [LinesW-1:0]    left_q, left_d;       // lines not yet issued
  logic                 active_q, active_d;
  logic [TagW:0]        issued_q, issued_d;   // ROB tail (issue order)
  logic [TagW:0]        head_q, head_d;       // ROB head (delivery order)
  logic [TagW:0]        inflight_q, inflight_d;
  logic                 req_q, req_d;         // ld_req_valid_o
  logic [Depth-1:0]     filled_q, filled_d;
  logic [Depth-1:0]     err_q, err_d;
  logic                 v0_q, v0_d, v1_q, v1_d;
  logic [LineBits-1:0]  rob_q [Depth];

  logic            issue, held;
  logic [TagW-1:0] slot0, slot1, slot2;
  logic [2:0]      here;                      // slots head+k filled by this edge

  assign slot0 = head_q[TagW-1:0];
  assign slot1 = slot0 + 1'b1;
  assign slot2 = slot0 + TagW'(2);
  assign issue = req_q && ld_req_ready_i;
  assign held  = req_q && !ld_req_ready_i;    // offered, not taken: stays offered

  always_comb begin
    here[0] = filled_q[slot0] || (ld_rsp_valid_i && ld_rsp_tag_i == slot0);
    here[1] = filled_q[slot1] || (ld_rsp_valid_i && ld_rsp_tag_i == slot1);
    here[2] = filled_q[slot2] || (ld_rsp_valid_i && ld_rsp_tag_i == slot2);
  end

  always_comb begin
    next_d     = next_q;
    left_d     = left_q;
    active_d   = active_q;
    issued_d   = issued_q;
    head_d     = head_q;
    filled_d   = filled_q;
    err_d      = err_q;
    inflight_d = inflight_q + (TagW+1)'(issue) - (TagW+1)'(ld_rsp_valid_i);

    if (issue) begin
      next_d   = next_q + 1'b1;
      left_d   = left_q - 1'b1;
      issued_d = issued_q + 1'b1;
    end
    if (ld_rsp_valid_i) begin
      filled_d[ld_rsp_tag_i] = 1'b1;
      err_d[ld_rsp_tag_i]    = ld_rsp_err_i;
    end
    if (drop_i) begin
      filled_d[slot0] = 1'b0;
      head_d          = head_q + 1'b1;
    end
    v0_d = drop_i ? here[1] : here[0];
    v1_d = drop_i ? here[2] : here[1];

    // Offer the next line while lines are left and its slot is free by the
    // head as it is now (not as this edge moves it: that keeps the port off
    // the line buffer's decision).
    req_d = held || (active_q && !stop_i && (issue ? left_q > 1 : left_q != '0) &&
                     ((issue ? issued_q + 1'b1 : issued_q) - head_q) < (TagW+1)'(Depth));
    if (stop_i) left_d = '0;

    if (start_i) begin
      next_d   = first_i;
      left_d   = count_i;
      active_d = 1'b1;
      issued_d = '0;
      head_d   = '0;
      filled_d = '0;
      req_d    = 1'b0;
      v0_d     = 1'b0;
      v1_d     = 1'b0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      next_q     <= '0;
      left_q     <= '0;
      active_q   <= 1'b0;
      issued_q   <= '0;
      head_q     <= '0;
      inflight_q <= '0;
      req_q      <= 1'b0;
      filled_q   <= '0;
      err_q      <= '0;
      v0_q       <= 1'b0;
      v1_q       <= 1'b0;
    end else begin
      next_q     <= next_d;
      left_q     <= left_d;
      active_q   <= active_d;
      issued_q   <= issued_d;
      head_q     <= head_d;
      inflight_q <= inflight_d;
      req_q      <= req_d;
      filled_q   <= filled_d;
      err_q      <= err_d;
      v0_q       <= v0_d;
      v1_q       <= v1_d;
    end
  end

  // ROB storage (distributed RAM): written where an answer lands, read at
  // the head and the slot after it.
  always_ff @(posedge clk_i) begin
    if (ld_rsp_valid_i) rob_q[ld_rsp_tag_i] <= ld_rsp_data_i;
  end

  assign line0_o = rob_q[slot0];
  assign line1_o = rob_q[slot1];
  assign v0_o    = v0_q;
  assign v1_o    = v1_q;
  assign e0_o    = err_q[slot0];
  assign e1_o    = err_q[slot1];

  assign ld_req_valid_o = req_q;
  assign ld_req_addr_o  = {next_q, 6'b0};
  assign ld_req_tag_o   = issued_q[TagW-1:0];

  // No load in flight once this edge has taken its request and answer, and
  // none offered and not taken (DRAIN waits for its answer too).
  assign idle_o = (inflight_d == '0) && !held;

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (rst_ni && ld_rsp_valid_i) assert (inflight_q != '0)
      else $error("load_queue: response with tag %0d and no load in flight", ld_rsp_tag_i);
  end

  // A load offered and not taken stays offered, unchanged.
  logic             held_q;
  logic [AddrW-1:0] held_addr_q;
  logic [TagW-1:0]  held_tag_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      held_q <= 1'b0;
    end else begin
      if (held_q) assert (ld_req_valid_o && ld_req_addr_o == held_addr_q && ld_req_tag_o == held_tag_q)
        else $error("load_queue: load request changed or withdrawn before it was taken");
      held_q      <= held;
      held_addr_q <= ld_req_addr_o;
      held_tag_q  <= ld_req_tag_o;
    end
  end
`endif

endmodule
