-- dgx-b200.lua — an NVIDIA DGX/HGX B200 node: 8 B200 SXM on fifth-generation
-- NVLink through NVSwitch chips that reduce in the switch (NVLS), 8 NDR
-- InfiniBand NICs for compute. Every value is a line rate or a peak from
-- the sources below; what NCCL reaches of them is the protocol's and the
-- transport's business (docs/fidelity.md). Latencies keep the schema's
-- defaults (NCCL's per-hop latencies are charged by the protocol).
return {
  name = "dgx-b200",
  description = "NVIDIA DGX/HGX B200: 8 B200 SXM (NVLink 5, NVSwitch with NVLS), 8x NDR InfiniBand 400 Gb/s",
  sources = {
    "8x B200-SXM-180GB, '18x 5th Gen NVLink, 14.4 TB/s aggregated bandwidth', '8x ConnectX-7 IB NDR 400Gb/s', "
      .. "2x Xeon Platinum 8580: an HGX B200 node's MLPerf system description, mlcommons/inference_results_v6.0 "
      .. "closed/Nebius/systems/nebius_b200_n1.json",
    "1.8 TB/s NVLink both ways per GPU (900 GB/s line rate each way; 14.4 TB/s for 8 GPUs): NVIDIA HGX B200 "
      .. "specifications ('5th Generation NVLink: 1.8TB/s', 'Total NVLink Bandwidth 14.4TB/s')",
    "2250 TFLOPS BF16 tensor peak, dense (4500 with sparsity; NVIDIA lists 'FP16/BF16 Tensor Core 4.5 PFLOPS' "
      .. "with sparsity for HGX B200 at 1000 W): NVIDIA HGX B200 specifications; G. Lockwood, 'B200' "
      .. "(glennklockwood.com/garden/processors/B200)",
    "7.7 TB/s HBM3e per GPU (180 GB): NVIDIA HGX B200 specifications",
  },
  gpus_per_node = 8,
  cpu = "intel",
  nvls = true,
  gpu = { flops = "2250TF", arch = "blackwell", memory_bandwidth = "7.7TBps" },
  intra = { bandwidth = "900GBps" },
  inter = { bandwidth = "400Gbps", nics_per_node = 8 },
}
