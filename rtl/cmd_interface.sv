// Snooping Command Interface of the FLR: claims the UC loads and stores that
// fall inside the command-page window and turns them into commands and status
// reads. Everything outside the window is ignored (docs/abi.md section 2).
// A command reaches the control FSM from a register, the cycle after its
// store; a status read acts in its own cycle, and its answer is registered.
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

  // The window as [base, end): end has a 65th bit, so a window reaching the
  // top of the address space does not wrap. Two compares side by side.
  logic [AddrW-1:0] base_q;
  logic [AddrW:0]   end_q;
  logic             rsp_valid_q, rsp_hit_q;
  logic [63:0]      rsp_rdata_q, rsp_rdata_d;
  logic             cmd_valid_q;
  logic [3:0]       cmd_op_q;
  logic [59:0]      cmd_payload_q;
  logic             hit;

  assign hit = uc_valid_i && (uc_addr_i >= base_q) && ({1'b0, uc_addr_i} < end_q);

  assign stat_rd_o     = hit && !uc_write_i;
  assign cmd_valid_o   = cmd_valid_q;
  assign cmd_op_o      = cmd_op_q;
  assign cmd_payload_o = cmd_payload_q;
  assign rsp_rdata_d   = stat_rd_o ? status_i : '0;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      base_q      <= '0;
      end_q       <= '0;
      rsp_valid_q <= 1'b0;
      rsp_hit_q   <= 1'b0;
      rsp_rdata_q <= '0;
      cmd_valid_q <= 1'b0;
    end else begin
      if (cfg_valid_i && cfg_allow_i) begin
        base_q <= cfg_base_i;
        end_q  <= {1'b0, cfg_base_i} + {1'b0, cfg_size_i};
      end
      rsp_valid_q <= uc_valid_i;
      rsp_hit_q   <= hit;
      rsp_rdata_q <= rsp_rdata_d;
      cmd_valid_q <= hit && uc_write_i;
    end
  end

  // Command word registers: read only with cmd_valid_o.
  always_ff @(posedge clk_i) begin
    if (hit && uc_write_i) begin
      cmd_op_q      <= uc_wdata_i[3:0];
      cmd_payload_q <= uc_wdata_i[63:4];
    end
  end

  // Every access is answered the cycle after it.
  assign uc_rsp_valid_o = rsp_valid_q;
  assign uc_rsp_hit_o   = rsp_hit_q;
  assign uc_rsp_rdata_o = rsp_rdata_q;

endmodule
