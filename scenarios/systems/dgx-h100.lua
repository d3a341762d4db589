-- dgx-h100.lua — NVIDIA DGX H100: 8 H100 SXM5 on four third-generation
-- NVSwitches that reduce in the switch (NVLink SHARP, NVLS), 8 NDR
-- InfiniBand NICs for compute. Every value is a line rate or a peak from
-- the sources below; what NCCL reaches of them is the protocol's and the
-- transport's business (docs/fidelity.md). Latencies keep the schema's
-- defaults (NCCL's per-hop latencies are charged by the protocol).
return {
  name = "dgx-h100",
  description = "NVIDIA DGX H100: 8 H100 SXM5 (NVLink 4, NVSwitch 3 with NVLS), 8x NDR InfiniBand 400 Gb/s",
  sources = {
    "8x H100-SXM5-80GB, compute 8x ConnectX-7 IB NDR 400 Gb/s, 2x Xeon Platinum 8480C, NVLink Gen4 900 GB/s + "
      .. "NVSwitch Gen3: NVIDIA's MLPerf Training v3.0 system description, mlcommons/training_results_v3.0 "
      .. "NVIDIA/systems/dgxh100_n64_ngc23.04_pytorch.json",
    "900 GB/s NVLink both ways per GPU (450 GB/s line rate each way): NVIDIA Hopper architecture page; "
      .. "NVIDIA/nccl-tests#212 (maintainer)",
    "NVSwitch multicast and in-switch reduction (NVLS): NVIDIA, 'Upgrading Multi-GPU Interconnectivity with the "
      .. "Third-Generation NVIDIA NVSwitch'",
    "989 TFLOPS BF16 tensor peak, dense (1979 with sparsity): NVIDIA H100 datasheet",
  },
  gpus_per_node = 8,
  cpu = "intel",
  nvls = true,
  gpu = { flops = "989TF", arch = "hopper" },
  intra = { bandwidth = "450GBps" },
  inter = { bandwidth = "400Gbps", nics_per_node = 8 },
}
