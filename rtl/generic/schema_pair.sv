// The generic units of one service, schema_rx (the header's check, then
// the args' walk: rx_ ports) and resp_schema (tx_ ports), on one clock and
// reset, and nothing else: VPI holds one Verilated model per process, so
// `arcalis run --service` and `serve --service` need both in one model
// until they sit in arcalis_top. Wiring only: no logic of its own. Compile
// with +define+SCHEMA_PKG=<pkg>, as the units.
`ifndef SCHEMA_PKG
`define SCHEMA_PKG define_SCHEMA_PKG_as_a_generated_schema_package
`endif
module schema_pair
  import arcalis_pkg::*;
  import `SCHEMA_PKG::*;
#(
  parameter int unsigned Width = 16,
  localparam int unsigned AW = 22            // the units' image byte addresses
) (
  input  logic               clk_i,
  input  logic               rst_ni,

  // schema_rx: the header's check, then the args' walk
  input  logic               rx_start_i,
  input  logic               rx_big_i,
  input  logic [AW-1:0]      rx_cap_i,
  input  logic               rx_stall_i,
  input  logic [Width*8-1:0] rx_win_i,
  input  logic [7:0]         rx_avail_i,
  input  logic [LenW-1:0]    rx_rem_i,
  input  logic [LenW-1:0]    rx_pos_i,
  output logic [7:0]         rx_hd_take_o,
  output logic [7:0]         rx_take_o,
  output logic               rx_st_valid_o,
  output logic [AW-1:0]      rx_st_addr_o,
  output logic [Width*8-1:0] rx_st_data_o,
  output logic [Width-1:0]   rx_st_mask_o,
  output logic               rx_done_o,
  output logic               rx_hd_done_o,
  output logic [7:0]         rx_hd_code_o,
  output logic [LenW-1:0]    rx_hd_offset_o,
  output logic [7:0]         rx_hd_msg_type_o,
  output logic [7:0]         rx_hd_method_o,
  output logic [31:0]        rx_hd_seqid_o,
  output logic [7:0]         rx_code_o,
  output logic [LenW-1:0]    rx_offset_o,
  output logic [AW-1:0]      rx_area_end_o,
  output logic [3:0]         rx_depth_o,
  output logic [15:0]        rx_miss_struct_o,
  output logic [15:0]        rx_miss_id_o,
  output logic [AW-1:0]      rx_args_size_o,

  // resp_schema
  input  logic               tx_start_i,
  input  logic [7:0]         tx_method_i,
  input  logic [AW-1:0]      tx_area_end_i,
  output logic               tx_rd_req_o,
  output logic [AW-1:0]      tx_rd_addr_o,
  input  logic [63:0]        tx_rd_data_i,
  input  logic               tx_rd_valid_i,
  output logic               tx_out_valid_o,
  output logic [Width*8-1:0] tx_out_data_o,
  output logic [7:0]         tx_out_len_o,
  input  logic               tx_out_stall_i,
  output logic               tx_done_o,
  output logic [7:0]         tx_code_o,
  output logic [31:0]        tx_offset_o
);

  schema_rx #(.Width(Width)) u_rx (
    .clk_i,
    .rst_ni,
    .start_i       (rx_start_i),
    .big_i         (rx_big_i),
    .cap_i         (rx_cap_i),
    .stall_i       (rx_stall_i),
    .win_i         (rx_win_i),
    .avail_i       (rx_avail_i),
    .rem_i         (rx_rem_i),
    .pos_i         (rx_pos_i),
    .hd_take_o     (rx_hd_take_o),
    .take_o        (rx_take_o),
    .st_valid_o    (rx_st_valid_o),
    .st_addr_o     (rx_st_addr_o),
    .st_data_o     (rx_st_data_o),
    .st_mask_o     (rx_st_mask_o),
    .done_o        (rx_done_o),
    .hd_done_o     (rx_hd_done_o),
    .hd_code_o     (rx_hd_code_o),
    .hd_offset_o   (rx_hd_offset_o),
    .hd_msg_type_o (rx_hd_msg_type_o),
    .hd_method_o   (rx_hd_method_o),
    .hd_seqid_o    (rx_hd_seqid_o),
    .code_o        (rx_code_o),
    .offset_o      (rx_offset_o),
    .area_end_o    (rx_area_end_o),
    .depth_o       (rx_depth_o),
    .miss_struct_o (rx_miss_struct_o),
    .miss_id_o     (rx_miss_id_o),
    .args_size_o   (rx_args_size_o)
  );

  resp_schema #(.Width(Width)) u_tx (
    .clk_i,
    .rst_ni,
    .start_i     (tx_start_i),
    .method_i    (tx_method_i),
    .area_end_i  (tx_area_end_i),
    .rd_req_o    (tx_rd_req_o),
    .rd_addr_o   (tx_rd_addr_o),
    .rd_data_i   (tx_rd_data_i),
    .rd_valid_i  (tx_rd_valid_i),
    .out_valid_o (tx_out_valid_o),
    .out_data_o  (tx_out_data_o),
    .out_len_o   (tx_out_len_o),
    .out_stall_i (tx_out_stall_i),
    .done_o      (tx_done_o),
    .code_o      (tx_code_o),
    .offset_o    (tx_offset_o)
  );

endmodule
