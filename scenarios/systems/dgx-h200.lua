-- dgx-h200.lua — NVIDIA DGX H200: dgx-h100's node with H200 SXM5 GPUs,
-- which keep the H100's compute, NVLink 4 and NVSwitch (with NVLink
-- SHARP) and carry 141 GB of HBM3e at 4.8 TB/s, 43% more memory bandwidth:
-- what memory-bound kernels (optimizer steps, compression, averaging)
-- move (docs/algorithms.md, "GPU kernels cost time"). Every value is a
-- line rate or a peak from the sources below; what NCCL reaches of them
-- is the protocol's and the transport's business (docs/fidelity.md).
return {
  name = "dgx-h200",
  description = "NVIDIA DGX H200: 8 H200 SXM5 141GB (NVLink 4, NVSwitch 3 with NVLS), 8x NDR InfiniBand 400 Gb/s",
  sources = {
    "141 GB HBM3e at 4.8 TB/s, NVLink 900 GB/s, BF16 989 TFLOPS dense (1979 with sparsity), the H100's "
      .. "Hopper die: NVIDIA H200 Tensor Core GPU datasheet",
    "8x H200-SXM-141GB, compute 8x ConnectX-7 IB NDR 400 Gb/s, NVLINK Gen4 900 GB/s + NVSWITCH Gen3: NVIDIA's "
      .. "MLPerf Training system description 'NVIDIA H200 (8x H200-SXM-141GB-CTS)' (NeMo 24.09 submission)",
  },
  gpus_per_node = 8,
  cpu = "intel",
  nvls = true,
  gpu = { flops = "989TF", arch = "hopper", memory_bandwidth = "4.8TBps" },
  intra = { bandwidth = "450GBps" },
  inter = { bandwidth = "400Gbps", nics_per_node = 8 },
}
