-- aws-p3-16xlarge.lua — Amazon EC2 p3.16xlarge: 8 V100 SXM2 16 GB on the
-- NVLink 2.0 hybrid cube-mesh of NVIDIA's HGX-1 board (DGX-1's), 25 Gb/s
-- of ENA networking. There is no RDMA on this instance: NCCL runs its
-- socket transport, and on an ENA (PCI vendor 0x1d0f) it gives each
-- connection 2 helper threads of 8 sockets. The cube-mesh is modelled as
-- the star every hearsay node is, as in dgx1-v100.lua.
return {
  name = "aws-p3-16xlarge",
  description = "Amazon EC2 p3.16xlarge: 8 V100 SXM2 16GB (NVLink 2.0 hybrid cube-mesh), 25 Gb/s ENA, NCCL over TCP",
  sources = {
    "8x V100 (16 GiB each), NVLink 300 GBps, 64 vCPUs (Intel Xeon E5-2686 v4), 25 Gbps network: AWS News Blog, "
      .. "'New - Amazon EC2 Instances with Up to 8 NVIDIA Tesla V100 GPUs (P3)', October 2017 (table of P3 sizes)",
    "NCCL on an ENA: 2 socket threads a connection, 8 sockets each (autoNt = 2, autoNs = 8 for vendor 0x1d0f): "
      .. "NVIDIA/nccl src/transport/net_socket.cc, 2.4.8 to 2.30",
    "6 NVLink links per V100 at 25 GB/s each way; 125 TFLOPS FP16 tensor peak: as dgx1-v100.lua",
  },
  gpus_per_node = 8,
  cpu = "intel",
  gpu = { flops = "125TF", arch = "volta" },
  intra = { bandwidth = "150GBps" },
  inter = { bandwidth = "25Gbps", nics_per_node = 1, transport = "tcp", socket_threads = 2 },
}
