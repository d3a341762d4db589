-- dgx2.lua — NVIDIA DGX-2: 16 V100 SXM3 32 GB on twelve first-generation
-- NVSwitches (every GPU reaches every other at its full NVLink rate, the
-- star hearsay models a node as), 8 EDR InfiniBand NICs for compute. Every
-- value is a line rate or a peak from the sources below; what NCCL reaches
-- of them is the protocol's and the transport's business
-- (docs/fidelity.md). Latencies keep the schema's defaults. DGX-2H (the
-- 450 W parts at 1.7 GHz) is the same machine with faster GPUs: set
-- gpu.flops.
return {
  name = "dgx2",
  description = "NVIDIA DGX-2: 16 V100 SXM3 32GB (NVLink 2.0, NVSwitch), 8x EDR InfiniBand 100 Gb/s",
  sources = {
    "16x V100-SXM3-32GB, 8 ConnectX-5 NICs, 2x Xeon Platinum 8168: NVIDIA's MLPerf Training v0.6 system "
      .. "description, mlcommons/training_results_v0.6 NVIDIA/systems/dgx2_ngc19.05_pytorch.json",
    "'Compute: 8x ConnectX-5 IB EDR 100Gb/Sec', 'NVLINK 2.0, NVSWITCH 1.0 300GB/s' (both ways: 150 GB/s each "
      .. "way a GPU, its 6 links at 25): the DGX-2H's MLPerf Training v0.7 system description, "
      .. "mlcommons/training_results_v0.7 NVIDIA/systems/dgx2h_n16_ngc20.06_pytorch.json",
    "125 TFLOPS FP16 tensor peak a V100 ('2 petaFLOPS' for 16): NVIDIA DGX-2 datasheet",
  },
  gpus_per_node = 16,
  cpu = "intel",
  gpu = { flops = "125TF", arch = "volta" },
  intra = { bandwidth = "150GBps" },
  inter = { bandwidth = "100Gbps", nics_per_node = 8 },
}
