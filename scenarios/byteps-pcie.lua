-- byteps-pcie.lua — timing-only: BytePS on 4 PCIe servers of 8 V100s (two
-- PCIe switches of four GPUs, one on each of two Intel sockets, the NIC on
-- a CPU) over 100 Gb/s RoCE, with 4 CPU server machines, training VGG-16:
-- the machine BytePS's own benchmark ran (bytedance/byteps
-- docs/performance.md, "PCIe + RDMA"). NCCL 2.3.7 joins GPUs peer to peer
-- up to their socket, so a reduce over the whole machine crosses between
-- the sockets through host memory; BytePS reduces inside each switch, copies
-- the two sums to host memory and adds them on the CPU
-- (BYTEPS_PCIE_SWITCH_SIZE = 4, docs/algorithms.md). Try:
--   hearsay run scenarios/byteps-pcie.lua
--   hearsay run scenarios/byteps-pcie.lua --set algorithm.pcie_switch_size=0   # the node's NCCL reduce
--   hearsay run scenarios/byteps-pcie.lua --set algorithm.pcie_switch_size=8   # one group: only the copies
--   hearsay run scenarios/byteps-pcie.lua --set algorithm.name=gradient_allreduce   # Horovod/DDP's ring

cluster {
  nodes = 4, gpus_per_node = 8, cpu = "intel",
  gpu   = { flops = "112TF", arch = "volta",                -- V100 PCIe tensor cores,
            efficiency = 0.165 },                          -- at BytePS's 195 images/s on one
  intra = { link = "pcie", bandwidth = "15.754GBps",        -- Gen3 x16 each way
            pcie_switches = 2, sockets = 2 },
  inter = { bandwidth = "100Gbps", nics_per_node = 1, transport = "rdma" },
}

workload { model = "vgg16", batch = 64 }

algorithm {
  name = "parameter_server", placement = "machines", servers = 4,
  aggregate = true, overlap = true, update = "workers", pcie_switch_size = 4,
}

run { iterations = 10, seed = 1, warmup_iterations = 2 }

sim { nccl_version = "2.3.7" }
