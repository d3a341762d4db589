-- aws-p5-48xlarge.lua — Amazon EC2 p5.48xlarge: 8 H100 SXM 80 GB on
-- third-generation NVSwitches (dgx-h100.lua's node, taken from it, NVLS
-- included: one p5 measures what only NVLS reaches, 483 GB/s at 16 GiB),
-- AMD hosts, and 3200 Gb/s of Elastic Fabric Adapters (EFA v2): 32 of
-- 100 Gb/s, four a GPU, which aws-ofi-nccl offers NCCL as one 400 Gb/s
-- device a GPU (its rails), modelled as eight NICs of 400 Gb/s.
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
local s = hearsay.system("dgx-h100")
s.name = "aws-p5-48xlarge"
s.description = "Amazon EC2 p5.48xlarge: 8 H100 SXM 80GB (NVLink 4, NVSwitch 3 with NVLS), 32x 100 Gb/s EFA v2 "
  .. "(4 a GPU) with GPUDirect RDMA"
s.sources = {
  "8x H100 80GB, NVSwitch 900 GB/s, 3200 Gbps of EFA networking with GPUDirect RDMA, 3rd generation AMD EPYC "
    .. "hosts: Amazon EC2 P5 instance page and launch post (AWS News Blog, 26 Jul 2023)",
  "'p5.48xlarge | 3200 Gbps EFAv2': aws-samples/awsome-distributed-training 1.architectures/2.aws-parallelcluster "
    .. "(vanilla-pcluster.md); 'four Elastic Fabric Adapter (EFA) interfaces per GPU': "
    .. "crazyguitar/aws-gpu-communication-benchmark README",
  "450 GB/s NVLink each way per GPU, NVSwitch multicast and reduction, 989 TFLOPS BF16 dense: as dgx-h100.lua",
}
s.cpu = "amd"
s.inter = { bandwidth = "400Gbps", nics_per_node = 8, latency = "15us" }
return s
