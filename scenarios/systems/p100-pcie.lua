-- p100-pcie.lua — a server of 4 Tesla P100 PCIe (16 GB) on PCIe 3.0, one
-- 25 Gb/s Ethernet NIC: the kind of node of Horovod's published benchmarks
-- ("4 servers with 4 Pascal GPUs each connected by RoCE-capable 25 Gbit/s
-- network", horovod/horovod README.md of Sep 2017; "128 servers with 4
-- Pascal GPUs", docs/benchmarks.rst). Horovod names the generation, not
-- the board: PCIe boards are what a server of 4 with one NIC held (DGX-1
-- is the SXM2 system, dgx1-p100). The GPUs reach each other through the
-- host's PCIe switch, modelled as hearsay's non-blocking node switch.
-- gpu.flops is the FP32 peak: TensorFlow trained in FP32 then (the P100
-- has no tensor cores; FP16 runs at twice the rate, 18.7 TF).
return {
  name = "p100-pcie",
  description = "4x Tesla P100 PCIe 16 GB on PCIe 3.0 x16, one 25 GbE NIC (RoCE-capable)",
  sources = {
    "P100 PCIe: 9.3 TFLOPS FP32, 18.7 FP16, 732 GB/s HBM2, PCIe Gen3 x16 at 32 GB/s both ways: NVIDIA Tesla P100 "
      .. "datasheet (PCIe), 2016",
    "PCIe 3.0: 8 GT/s a lane, 128b/130b encoding, 15.754 GB/s each way on 16 lanes: PCI-SIG, PCI Express Base 3.0",
    "4 Pascal GPUs a server, 25 Gbit/s RoCE-capable network: horovod/horovod README.md (commit d54e3a8, Sep 2017) "
      .. "and docs/benchmarks.rst",
  },
  gpus_per_node = 4,
  cpu = "intel",
  gpu = { flops = "9.3TF", arch = "pascal" },
  intra = { bandwidth = "15.754GBps", link = "pcie" },
  inter = { bandwidth = "25Gbps", nics_per_node = 1 },
}
