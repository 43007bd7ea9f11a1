// The receive of a generated service in hardware: recv_header checks the
// message's header and dispatches it, then recv_schema walks the args of
// the method the header named, from where the header ended, on the same
// window. This is the RxEngine's header parsing and dispatch in front of
// the recvFunction (Figure 11); golden/schemagold.CheckHeader, then
// Deserialize, is its reference. Compile with +define+SCHEMA_PKG=<pkg>, as
// the units.
//
// The window, stall_i and the stores are the units' (recv_schema's
// comments). Each unit's take is an output, hd_take_o and take_o: the
// bytes consumed at an edge are their sum (one is 0), an add the window
// makes, as an OR here would put a third LUT behind recv_schema's take.
// start_i comes when no receive runs (after done_o, or a reset).
//
// The sequencing is registers only: the cycle after recv_header's done_o
// shows OK, go_q starts the walk a cycle later with the method's index
// (midx_q). done_o (one LUT of registers) ends the receive: a header
// fault (hd_code_o, a cycle after hd_done_o) or the walk's end (code_o and
// the walk's other results).
`ifndef SCHEMA_PKG
`define SCHEMA_PKG define_SCHEMA_PKG_as_a_generated_schema_package
`endif
module schema_rx
  import arcalis_pkg::*;
  import `SCHEMA_PKG::*;
#(
  parameter int unsigned Width = 16,
  localparam int unsigned AW = 22            // the walk's image byte addresses
) (
  input  logic               clk_i,
  input  logic               rst_ni,

  input  logic               start_i,         // a new message; the window is at its byte 0
  input  logic               big_i,           // with start_i: the message is longer than MaxMessage
  input  logic [AW-1:0]      cap_i,           // image capacity in bytes (read at the walk's start)
  input  logic               stall_i,         // no action next cycle: decide nothing now
  input  logic [Width*8-1:0] win_i,           // message bytes from the head, byte 0 in bits 7:0
  input  logic [7:0]         avail_i,         // how many of them are there
  input  logic [LenW-1:0]    rem_i,           // message bytes from the head to the end
  input  logic [LenW-1:0]    pos_i,           // the head's offset in the message
  output logic [7:0]         hd_take_o,       // bytes recv_header consumes at this edge
  output logic [7:0]         take_o,          // bytes recv_schema consumes at this edge

  output logic               st_valid_o,      // an image store at this edge (the walk's)
  output logic [AW-1:0]      st_addr_o,
  output logic [Width*8-1:0] st_data_o,
  output logic [Width-1:0]   st_mask_o,

  output logic               done_o,          // the receive has ended

  // recv_header's result, from hd_done_o on
  output logic               hd_done_o,
  output logic [7:0]         hd_code_o,
  output logic [LenW-1:0]    hd_offset_o,
  output logic [7:0]         hd_msg_type_o,
  output logic [7:0]         hd_method_o,     // 1 + the method's index
  output logic [31:0]        hd_seqid_o,

  // recv_schema's result, with done_o when hd_code_o is OK
  output logic [7:0]         code_o,
  output logic [LenW-1:0]    offset_o,
  output logic [AW-1:0]      area_end_o,
  output logic [3:0]         depth_o,
  output logic [15:0]        miss_struct_o,
  output logic [15:0]        miss_id_o,
  output logic [AW-1:0]      args_size_o
);

  logic       rx_done;

  // The phases, each a register: the header check runs (from start_i to
  // its done_o), the walk's start, the walk runs (from its start to
  // done_o), the header failed.
  logic       hdr_q, go_q, args_q, hfail_q;
  logic [7:0] midx_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      hdr_q   <= 1'b0;
      go_q    <= 1'b0;
      args_q  <= 1'b0;
      hfail_q <= 1'b0;
    end else begin
      hdr_q   <= start_i || (hdr_q && !hd_done_o);
      go_q    <= !start_i && hdr_q && hd_done_o && hd_code_o == 8'(ScOk);
      args_q  <= !start_i && (args_q || go_q);
      hfail_q <= !start_i && (hfail_q || (hdr_q && hd_done_o && hd_code_o != 8'(ScOk)));
    end
  end
  always_ff @(posedge clk_i) midx_q <= hd_method_o - 8'd1;

  recv_header #(.Width(Width)) u_hd (
    .clk_i,
    .rst_ni,
    .start_i,
    .big_i,
    .stall_i,
    .win_i,
    .avail_i,
    .rem_i,
    .take_o     (hd_take_o),
    .done_o     (hd_done_o),
    .code_o     (hd_code_o),
    .offset_o   (hd_offset_o),
    .msg_type_o (hd_msg_type_o),
    .method_o   (hd_method_o),
    .seqid_o    (hd_seqid_o)
  );

  recv_schema #(.Width(Width)) u_rx (
    .clk_i,
    .rst_ni,
    .start_i       (go_q),
    .method_i      (midx_q),
    .cap_i,
    .stall_i,
    .win_i,
    .avail_i,
    .rem_i,
    .pos_i,
    .take_o,
    .st_valid_o,
    .st_addr_o,
    .st_data_o,
    .st_mask_o,
    .done_o        (rx_done),
    .code_o,
    .offset_o,
    .area_end_o,
    .depth_o,
    .miss_struct_o,
    .miss_id_o,
    .args_size_o
  );

  assign done_o = hfail_q || (args_q && rx_done);

endmodule
