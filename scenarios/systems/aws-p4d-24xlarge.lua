-- aws-p4d-24xlarge.lua — Amazon EC2 p4d.24xlarge: 8 A100 SXM4 40 GB on
-- NVSwitch (dgx-a100.lua's node, taken from it), Intel hosts, and four
-- 100 Gb/s Elastic Fabric Adapters (EFA v1) with GPUDirect RDMA, each
-- shared by two GPUs. p4de.24xlarge is the same node with A100 80 GB
-- (set gpu.memory_bandwidth = "2039GBps").
--
-- EFA is taken as RDMA (NCCL through aws-ofi-nccl moves GPU memory
-- without the host, as over InfiniBand) at the transport's published
-- efficiency, with AWS's own figure for a step across it: aws-ofi-nccl's
-- tuner charges 20 us a network step (TUNER_NET_LATENCY; 3 us more on
-- Simple for a completion, "~2usec cost in the device and ~1usec cost to
-- write that completion up to the host stack", aws/aws-ofi-nccl
-- include/nccl_ofi_tuner.h at 3d55c1c) where NCCL's model charges 5.0
-- for its tree's LL step over InfiniBand, so inter.latency carries the
-- 15 us more. Measured 8 B allreduces on two nodes take longer still,
-- by the plugin's version (docs/validation.md, "Amazon EC2 over EFA");
-- fit inter.latency to one's own nccl-tests output with
-- `hearsay calibrate`.
local s = hearsay.system("dgx-a100")
s.name = "aws-p4d-24xlarge"
s.description = "Amazon EC2 p4d.24xlarge: 8 A100 SXM4 40GB (NVLink 3, NVSwitch), 4x 100 Gb/s EFA with GPUDirect RDMA"
s.sources = {
  "8x A100 40GB, NVSwitch 600 GB/s, 400 Gbps of EFA networking with GPUDirect RDMA, Intel Xeon Scalable "
    .. "(Cascade Lake) hosts: Amazon EC2 P4d instance page and launch post (AWS News Blog, 2 Nov 2020)",
  "'p4de.24xlarge | 400 Gbps EFAv1': aws-samples/awsome-distributed-training 1.architectures/2.aws-parallelcluster "
    .. "(vanilla-pcluster.md); 'GPUDirect RDMA backed with 4x100 Gbps EFA': aws-samples/aws-efa-eks README",
  "300 GB/s NVLink each way per GPU, 312 TFLOPS BF16 dense: as dgx-a100.lua",
}
s.cpu = "intel"
s.inter = { bandwidth = "100Gbps", nics_per_node = 4, latency = "15us" }
return s
