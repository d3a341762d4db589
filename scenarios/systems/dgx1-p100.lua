-- dgx1-p100.lua — NVIDIA DGX-1 with P100: 8 Tesla P100 SXM2 on an NVLink
-- 1.0 hybrid cube-mesh, 4 EDR InfiniBand NICs. As dgx1-v100.lua, the
-- cube-mesh is modelled as the star every hearsay node is (each GPU's 4
-- links to a switch). gpu.flops is the FP32 peak: TensorFlow's published
-- DGX-1 benchmarks of 2017 trained in FP32 (the P100 has no tensor
-- cores; FP16 runs at twice the rate, 21.2 TF).
return {
  name = "dgx1-p100",
  description = "NVIDIA DGX-1 with 8 Tesla P100 SXM2 (NVLink 1.0 hybrid cube-mesh), 4x EDR InfiniBand 100 Gb/s",
  sources = {
    "P100 SXM2: 10.6 TFLOPS FP32, 21.2 FP16, 732 GB/s HBM2, 4 NVLink links of 20 GB/s each way (160 GB/s both "
      .. "ways): NVIDIA Tesla P100 datasheet; 'NVIDIA Tesla P100' whitepaper (WP-08019-001)",
    "8 P100 in a hybrid cube-mesh, 4x EDR InfiniBand 100 Gb/s, 2x Xeon E5-2698 v3: NVIDIA DGX-1 System "
      .. "Architecture whitepaper (WP-08437-001)",
  },
  gpus_per_node = 8,
  cpu = "intel",
  gpu = { flops = "10.6TF", arch = "pascal" },
  intra = { bandwidth = "80GBps" },
  inter = { bandwidth = "100Gbps", nics_per_node = 4 },
}
