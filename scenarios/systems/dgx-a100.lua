-- dgx-a100.lua — NVIDIA DGX A100: 8 A100 SXM4 on six NVSwitches, 8 HDR
-- InfiniBand NICs for compute. Every value is a line rate or a peak from
-- the sources below; what NCCL reaches of them is the protocol's and the
-- transport's business (docs/fidelity.md). Latencies keep the schema's
-- defaults (NCCL's per-hop latencies are charged by the protocol).
return {
  name = "dgx-a100",
  description = "NVIDIA DGX A100: 8 A100 SXM4 (NVLink 3, NVSwitch), 8x HDR InfiniBand 200 Gb/s",
  sources = {
    "8x A100-SXM4-40GB, compute 8x ConnectX-6 IB HDR 200 Gb/s, 2x AMD EPYC 7742, NVLink 3.0 + NVSwitch 600 GB/s: "
      .. "NVIDIA's MLPerf Training v0.7 system description, mlcommons/training_results_v0.7 "
      .. "NVIDIA/systems/dgxa100_n32_ngc20.06_pytorch.json",
    "12 NVLink links per A100, 600 GB/s both ways to any other GPU: NVIDIA, 'Introducing NVIDIA HGX A100'",
    "312 TFLOPS BF16/FP16 tensor peak, dense: NVIDIA A100 Tensor Core GPU architecture, Table 3",
  },
  gpus_per_node = 8,
  cpu = "amd",
  gpu = { flops = "312TF", arch = "ampere" },
  intra = { bandwidth = "300GBps" },
  inter = { bandwidth = "200Gbps", nics_per_node = 8 },
}
