-- aws-p3dn-24xlarge.lua — Amazon EC2 p3dn.24xlarge: 8 V100 SXM2 32 GB on
-- the NVLink 2.0 hybrid cube-mesh, 100 Gb/s of ENA networking, NCCL over
-- its socket transport with AWS's 2 helper threads a connection (see
-- aws-p3-16xlarge.lua). Its EFA (libfabric SRD, through the aws-ofi-nccl
-- plugin) is not modelled: a scenario that runs NCCL over EFA sets
-- inter.transport itself.
return {
  name = "aws-p3dn-24xlarge",
  description = "Amazon EC2 p3dn.24xlarge: 8 V100 SXM2 32GB (NVLink 2.0 hybrid cube-mesh), 100 Gb/s ENA, NCCL over TCP",
  sources = {
    "8x V100 (32 GiB each), 96 vCPUs (Intel Xeon Platinum 8175M), 100 Gbps networking: AWS News Blog, "
      .. "'New - EC2 P3dn GPU Instances with 100 Gbps Networking & Local NVMe Storage', December 2018",
    "NCCL on an ENA: 2 socket threads a connection, 8 sockets each (autoNt = 2, autoNs = 8 for vendor 0x1d0f): "
      .. "NVIDIA/nccl src/transport/net_socket.cc, 2.4.8 to 2.30",
    "6 NVLink links per V100 at 25 GB/s each way; 125 TFLOPS FP16 tensor peak: as dgx1-v100.lua",
  },
  gpus_per_node = 8,
  cpu = "intel",
  gpu = { flops = "125TF", arch = "volta" },
  intra = { bandwidth = "150GBps" },
  inter = { bandwidth = "100Gbps", nics_per_node = 1, transport = "tcp", socket_threads = 2 },
}
