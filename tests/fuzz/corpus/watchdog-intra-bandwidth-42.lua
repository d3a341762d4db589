-- GPU links of 42 B/s on several nodes: the watchdog must call the run
-- slow and name cluster.intra.bandwidth, not call it stuck, a bug in
-- hearsay, as an estimate of the NICs alone did (exit 70; scripts/fuzz,
-- seed 4444, case 986)
cluster {
  nodes = 2, gpus_per_node = 2,
  gpu = { flops = "10TF" },
  intra = { bandwidth = "42" },
  inter = { bandwidth = "10Gbps", latency = "5us" },
}
workload { model = "resnet50", batch = 8 }
algorithm { name = "gradient_allreduce" }
run { iterations = 3 }
