-- azure-ndv4.lua — Microsoft Azure ND96amsr_A100_v4 (NDm A100 v4): 8 A100
-- SXM4 80 GB on NVSwitch, 8 HDR InfiniBand NICs for compute, as a VM. The
-- same node as dgx-a100.lua but for the GPUs' 80 GB of faster HBM2e and
-- the VM (ND96asr_v4 has the 40 GB A100: set gpu.memory_bandwidth to
-- 1555GBps). Every value is a line rate or a peak from the sources below;
-- latencies keep the schema's defaults.
return {
  name = "azure-ndv4",
  description = "Azure ND96amsr_A100_v4: 8 A100 SXM4 80GB (NVLink 3, NVSwitch), 8x HDR InfiniBand 200 Gb/s",
  sources = {
    "8x A100-SXM4-80GB, 'NVLINK 3.0, NVSWITCH 2.0 600GB/s', '8x ConnectX-6 IB HDR 200Gb/Sec', 2x AMD EPYC 7V12: "
      .. "Azure's MLPerf Training v2.0 system description, mlcommons/training_results_v2.0 "
      .. "Azure/systems/ND96amsr_A100_v4_n16_pytorch.json",
    "600 GB/s NVLink both ways per A100 (300 each way); 312 TFLOPS BF16/FP16 tensor peak, dense: as dgx-a100.lua",
    "2039 GB/s HBM2e on the 80 GB SXM4 A100: NVIDIA A100 datasheet",
  },
  gpus_per_node = 8,
  cpu = "amd",
  gpu = { flops = "312TF", arch = "ampere", memory_bandwidth = "2039GBps" },
  intra = { bandwidth = "300GBps" },
  inter = { bandwidth = "200Gbps", nics_per_node = 8 },
}
