-- issue 16: SimGrid aborts on this platform value
cluster {
  nodes = 4, gpus_per_node = 2,
  gpu = { flops = "10TF" },
  inter = { bandwidth = "10Gbps", latency = "5us", topology = "fat_tree", rack_size = 2, uplink_latency = 1e308 },
}
workload { model = "resnet50", batch = 8 }
algorithm { name = "gradient_allreduce" }
run { iterations = 3 }
