-- dgx1-v100.lua — NVIDIA DGX-1 with V100: 8 V100 SXM2 on an NVLink 2.0
-- hybrid cube-mesh, 4 EDR InfiniBand NICs. Every value is a line rate or a
-- peak from the sources below; what NCCL reaches of them is the protocol's
-- and the transport's business (docs/fidelity.md). The cube-mesh is
-- modelled as the star every hearsay node is (each GPU's 6 links to a
-- switch): a ring over it sees the same 150 GB/s a GPU, pairs without a
-- direct link do not pay their extra hop, and a node of fewer GPUs
-- (gpus_per_node = 2 or 4) keeps each GPU's six links, where on the
-- cube-mesh GPUs 0 and 1 share one (25 GB/s; set intra.bandwidth for such
-- a subset). Latencies keep the schema's
-- defaults (NCCL's per-hop latencies are charged by the protocol).
return {
  name = "dgx1-v100",
  description = "NVIDIA DGX-1 with 8 V100 SXM2 (NVLink 2.0 hybrid cube-mesh), 4x EDR InfiniBand 100 Gb/s",
  sources = {
    "8x V100-SXM2-16GB, 4x ConnectX-4 EDR 100 Gb/s, 2x Xeon E5-2698 v4: NVIDIA's MLPerf Training v0.6 system "
      .. "description, mlcommons/training_results_v0.6 NVIDIA/systems/dgx1_n130_ngc19.05_mxnet.json",
    "6 NVLink links per V100 at 25 GB/s each way (300 GB/s both ways): NVIDIA NVLink page; DGX-1 System "
      .. "Architecture whitepaper (WP-08437-001)",
    "125 TFLOPS FP16 tensor peak: NVIDIA, 'Programming Tensor Cores in CUDA 9'",
  },
  gpus_per_node = 8,
  cpu = "intel",
  gpu = { flops = "125TF", arch = "volta" },
  intra = { bandwidth = "150GBps" },
  inter = { bandwidth = "100Gbps", nics_per_node = 4 },
}
