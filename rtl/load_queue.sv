// FLR load queue with its reorder buffer: issues the line loads of one message
// in order, up to Depth in flight, accepts responses in any order (tag = ROB
// slot) and hands the lines to the line buffer in message order.
module load_queue
  import arcalis_pkg::*;
#(
  parameter int unsigned Depth = 16,
  localparam int unsigned TagW = $clog2(Depth)
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,

  input  logic                 start_i,       // load lines first_i .. first_i + count_i - 1
  input  logic [LineAddrW-1:0] first_i,
  input  logic [LineAddrW-1:0] count_i,
  input  logic                 stop_i,        // the request ended: issue nothing more

  output logic                 ld_req_valid_o,
  input  logic                 ld_req_ready_i,
  output logic [AddrW-1:0]     ld_req_addr_o,
  output logic [TagW-1:0]      ld_req_tag_o,
  input  logic                 ld_rsp_valid_i,
  input  logic [TagW-1:0]      ld_rsp_tag_i,
  input  logic [LineBits-1:0]  ld_rsp_data_i,
  input  logic                 ld_rsp_err_i,

  output logic                 out_valid_o,
  output logic [LineBits-1:0]  out_data_o,
  output logic                 out_err_o,
  input  logic                 out_ready_i,

  output logic                 idle_o         // no load in flight after this edge
);

  logic [LineAddrW-1:0] next_q, next_d;       // next line to load
  logic [LineAddrW-1:0] left_q, left_d;       // lines not yet issued
  logic                 active_q, active_d;
  logic [TagW:0]        issued_q, issued_d;   // ROB tail (issue order)
  logic [TagW:0]        head_q, head_d;       // ROB head (delivery order)
  logic [TagW:0]        inflight_q, inflight_d;
  logic [Depth-1:0]     filled_q, filled_d;
  logic [Depth-1:0]     err_q, err_d;
  logic [LineBits-1:0]  rob_q [Depth];

  logic issue, pop, bypass;
  logic [TagW-1:0] head_slot;

  assign head_slot = head_q[TagW-1:0];

  // A response for the head slot goes straight out (bypass) and a slot the
  // line buffer takes this cycle is free for a load issued in the same
  // cycle: a slot turns around in latency + 1 cycles, so Depth loads in
  // flight keep one line per cycle coming up to latency Depth - 1.
  assign bypass = ld_rsp_valid_i && (ld_rsp_tag_i == head_slot) &&
                  (head_q != issued_q) && !filled_q[head_slot];

  assign ld_req_valid_o = active_q && (left_q != '0) &&
                          ((issued_q - head_q) - (TagW+1)'(pop) < (TagW+1)'(Depth));
  assign ld_req_addr_o  = {next_q, 6'b0};
  assign ld_req_tag_o   = issued_q[TagW-1:0];
  assign issue          = ld_req_valid_o && ld_req_ready_i;

  assign out_valid_o = active_q && !stop_i && (head_q != issued_q) && (filled_q[head_slot] || bypass);
  assign out_data_o  = filled_q[head_slot] ? rob_q[head_slot] : ld_rsp_data_i;
  assign out_err_o   = filled_q[head_slot] ? err_q[head_slot] : ld_rsp_err_i;
  assign pop         = out_valid_o && out_ready_i;

  always_comb begin
    next_d     = next_q;
    left_d     = left_q;
    active_d   = active_q;
    issued_d   = issued_q;
    head_d     = head_q;
    inflight_d = inflight_q;
    filled_d   = filled_q;
    err_d      = err_q;

    if (issue) begin
      next_d   = next_q + 1'b1;
      left_d   = left_q - 1'b1;
      issued_d = issued_q + 1'b1;
    end
    if (pop) begin
      filled_d[head_slot] = 1'b0;
      head_d = head_q + 1'b1;
    end
    if (ld_rsp_valid_i && !(bypass && pop)) begin
      filled_d[ld_rsp_tag_i] = 1'b1;
      err_d[ld_rsp_tag_i]    = ld_rsp_err_i;
    end
    inflight_d = inflight_q + (TagW+1)'(issue) - (TagW+1)'(ld_rsp_valid_i);

    // Stop issuing, but a request already offered stays offered until taken.
    if (stop_i) left_d = (ld_req_valid_o && !ld_req_ready_i) ? (LineAddrW)'(1) : '0;
    if (start_i) begin
      next_d   = first_i;
      left_d   = count_i;
      active_d = 1'b1;
      issued_d = '0;
      head_d   = '0;
      filled_d = '0;
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
      filled_q   <= '0;
      err_q      <= '0;
    end else begin
      next_q     <= next_d;
      left_q     <= left_d;
      active_q   <= active_d;
      issued_q   <= issued_d;
      head_q     <= head_d;
      inflight_q <= inflight_d;
      filled_q   <= filled_d;
      err_q      <= err_d;
    end
  end

  // ROB storage: no reset, written only where a response lands.
  always_ff @(posedge clk_i) begin
    if (ld_rsp_valid_i) rob_q[ld_rsp_tag_i] <= ld_rsp_data_i;
  end

  // No load in flight once this edge has taken its request and response,
  // and none offered and not taken: an offered load stays offered after the
  // request ends (a handshake is never withdrawn), and DRAIN must wait for
  // its answer too, or the answer lands in the next request.
  assign idle_o = (inflight_d == '0) && !(ld_req_valid_o && !ld_req_ready_i);

`ifndef SYNTHESIS
  // A response must answer a load that is in flight.
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
      held_q      <= ld_req_valid_o && !ld_req_ready_i;
      held_addr_q <= ld_req_addr_o;
      held_tag_q  <= ld_req_tag_o;
    end
  end
`endif

endmodule
