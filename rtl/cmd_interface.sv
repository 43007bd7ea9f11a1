// Snooping Command Interface of the FLR: claims the UC loads and stores that
// fall inside the command-page window and turns them into commands and status
// reads. Everything outside the window is ignored (docs/abi.md section 2).
module cmd_interface
  import arcalis_pkg::*;
(
  input  logic             clk_i,
  input  logic             rst_ni,

  // Configuration channel, programmed by the kernel driver.
  input  logic             cfg_valid_i,
  input  logic [AddrW-1:0] cfg_base_i,
  input  logic [AddrW-1:0] cfg_size_i,
  input  logic             cfg_allow_i,   // the FSM is idle: reprogramming is safe

  // UC accesses snooped on the interconnect port.
  input  logic             uc_valid_i,
  input  logic             uc_write_i,
  input  logic [AddrW-1:0] uc_addr_i,
  input  logic [63:0]      uc_wdata_i,
  output logic             uc_rsp_valid_o,
  output logic             uc_rsp_hit_o,
  output logic [63:0]      uc_rsp_rdata_o,

  // To the control FSM.
  output logic             cmd_valid_o,
  output logic [3:0]       cmd_op_o,
  output logic [59:0]      cmd_payload_o,
  output logic             stat_rd_o,
  input  logic [63:0]      status_i
);

  logic [AddrW-1:0] base_q, size_q;
  logic             hit;

  // Unsigned offset compare: no overflow at the top of the address space.
  assign hit = uc_valid_i && (uc_addr_i >= base_q) && ((uc_addr_i - base_q) < size_q);

  assign cmd_valid_o   = hit && uc_write_i;
  assign cmd_op_o      = uc_wdata_i[3:0];
  assign cmd_payload_o = uc_wdata_i[63:4];
  assign stat_rd_o     = hit && !uc_write_i;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      base_q         <= '0;
      size_q         <= '0;
      uc_rsp_valid_o <= 1'b0;
      uc_rsp_hit_o   <= 1'b0;
      uc_rsp_rdata_o <= '0;
    end else begin
      if (cfg_valid_i && cfg_allow_i) begin
        base_q <= cfg_base_i;
        size_q <= cfg_size_i;
      end
      uc_rsp_valid_o <= uc_valid_i;
      uc_rsp_hit_o   <= hit;
      uc_rsp_rdata_o <= (hit && !uc_write_i) ? status_i : '0;
    end
  end

endmodule
