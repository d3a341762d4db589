-- azure-nd-h100-v5.lua — Microsoft Azure ND H100 v5: 8 H100 SXM 80 GB on
-- third-generation NVSwitches, 8 NDR InfiniBand NICs for compute, as a VM:
-- dgx-h100.lua's node, taken from it (hearsay.system) with this machine's
-- own name and sources. NVLS (reduction in the switch) is the baseboard's
-- NVSwitch's; that the VM offers NVLink multicast to NCCL is assumed here,
-- not sourced (the MLPerf description does not say): where it does not,
-- set nvls = false. Every value is a line rate or a peak from the sources
-- below; latencies keep the schema's defaults.
local s = hearsay.system("dgx-h100")
s.name = "azure-nd-h100-v5"
s.description = "Azure ND H100 v5: 8 H100 SXM 80GB (NVLink 4, NVSwitch 3 with NVLS), 8x NDR InfiniBand 400 Gb/s"
s.sources = {
  "8x H100-SXM-80GB, 'NVLINK 4.0', '8x NVIDIA NDR (400Gb/s)', 2x Xeon Platinum 8480C, NCCL 2.17.1: Azure's "
    .. "MLPerf Training v3.0 system description, mlcommons/training_results_v3.0 "
    .. "Azure/systems/ND_H100_v5_pytorch.json",
  "450 GB/s NVLink each way per GPU, NVSwitch multicast and reduction, 989 TFLOPS BF16 dense: as dgx-h100.lua",
}
-- the same node as dgx-h100's: 8 GPUs, Intel hosts, NVLS, 989 TF, 450 GB/s, 8 x 400 Gb/s
return s
