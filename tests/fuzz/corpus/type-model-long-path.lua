-- a 6000-character model path
cluster {
  nodes = 2, gpus_per_node = 2,
  gpu = { flops = "10TF" },
  inter = { bandwidth = "10Gbps", latency = "5us" },
}
workload { model = string.rep("a/", 3000) .. "x.lua", batch = 8 }
algorithm { name = "gradient_allreduce" }
run { iterations = 3 }
