// FLR store queue: a two-entry FIFO in front of the memory port (passed
// through when empty) that tags each line store and counts stores in flight
// until their acknowledgements return, so DRAIN can wait for
// MemReqInFlight == 0.
module store_queue
  import arcalis_pkg::*;
#(
  parameter int unsigned Depth = 16,
  localparam int unsigned TagW = $clog2(Depth)
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,

  input  logic                 in_valid_i,
  output logic                 in_ready_o,
  input  logic [LineAddrW-1:0] in_line_i,
  input  logic [LineBits-1:0]  in_data_i,
  input  logic [LineBytes-1:0] in_strb_i,

  output logic                 st_req_valid_o,
  input  logic                 st_req_ready_i,
  output logic [AddrW-1:0]     st_req_addr_o,
  output logic [LineBits-1:0]  st_req_data_o,
  output logic [LineBytes-1:0] st_req_strb_o,
  output logic [TagW-1:0]      st_req_tag_o,
  input  logic                 st_ack_valid_i,
  input  logic [TagW-1:0]      st_ack_tag_i,

  output logic                 idle_o          // FIFO empty, no store in flight after this edge
);

  typedef struct packed {
    logic [LineAddrW-1:0] line;
    logic [LineBits-1:0]  data;
    logic [LineBytes-1:0] strb;
  } entry_t;

  entry_t          fifo_q [2];
  logic [1:0]      count_q, count_d;
  logic            rd_q, rd_d, wr_q, wr_d;     // FIFO pointers
  logic [TagW:0]   inflight_q, inflight_d;
  logic [TagW-1:0] tag_q, tag_d;
  logic            push, issue, direct;

  // An empty FIFO passes its input straight to the port; a store offered
  // that way and not taken is pushed and offered again from the FIFO.
  assign direct         = (count_q == 2'd0);
  assign in_ready_o     = (count_q != 2'd2);
  assign push           = in_valid_i && in_ready_o && !(direct && issue);
  // An acknowledgement arriving this cycle frees its credit for this cycle's
  // store: a credit turns around in latency + 1 cycles, as a load slot does.
  assign st_req_valid_o = (!direct || in_valid_i) &&
                          ((inflight_q < (TagW+1)'(Depth)) || st_ack_valid_i);
  assign st_req_addr_o  = direct ? {in_line_i, 6'b0} : {fifo_q[rd_q].line, 6'b0};
  assign st_req_data_o  = direct ? in_data_i : fifo_q[rd_q].data;
  assign st_req_strb_o  = direct ? in_strb_i : fifo_q[rd_q].strb;
  assign st_req_tag_o   = tag_q;
  assign issue          = st_req_valid_o && st_req_ready_i;

  always_comb begin
    count_d    = count_q + 2'(push) - 2'(issue && !direct);
    wr_d       = wr_q ^ push;
    rd_d       = rd_q ^ (issue && !direct);
    tag_d      = tag_q + TagW'(issue);
    inflight_d = inflight_q + (TagW+1)'(issue) - (TagW+1)'(st_ack_valid_i);
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      count_q    <= '0;
      rd_q       <= 1'b0;
      wr_q       <= 1'b0;
      inflight_q <= '0;
      tag_q      <= '0;
    end else begin
      count_q    <= count_d;
      rd_q       <= rd_d;
      wr_q       <= wr_d;
      inflight_q <= inflight_d;
      tag_q      <= tag_d;
    end
  end

  always_ff @(posedge clk_i) begin
    if (push) fifo_q[wr_q] <= '{line: in_line_i, data: in_data_i, strb: in_strb_i};
  end

  // Nothing queued or in flight once this edge has taken its store and
  // acknowledgement, so DRAIN ends at the edge of the last answer.
  assign idle_o = (count_d == 2'd0) && (inflight_d == '0);

  // Tags are handed out in order; the acknowledgement's tag is for the memory model.
  logic unused_ack_tag;
  assign unused_ack_tag = ^st_ack_tag_i;

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (rst_ni && st_ack_valid_i) assert (inflight_q != '0)
      else $error("store_queue: acknowledgement with no store in flight");
  end

  // A store offered and not taken stays offered, unchanged.
  logic                 held_q;
  logic [AddrW-1:0]     held_addr_q;
  logic [LineBits-1:0]  held_data_q;
  logic [LineBytes-1:0] held_strb_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      held_q <= 1'b0;
    end else begin
      if (held_q) assert (st_req_valid_o && st_req_addr_o == held_addr_q &&
                          st_req_data_o == held_data_q && st_req_strb_o == held_strb_q)
        else $error("store_queue: store request changed or withdrawn before it was taken");
      held_q      <= st_req_valid_o && !st_req_ready_i;
      held_addr_q <= st_req_addr_o;
      held_data_q <= st_req_data_o;
      held_strb_q <= st_req_strb_o;
    end
  end
`endif

endmodule
