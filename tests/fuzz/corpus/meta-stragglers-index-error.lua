-- stragglers { } with an erroring __index
cluster {
  nodes = 2, gpus_per_node = 2,
  gpu = { flops = "10TF" },
  inter = { bandwidth = "10Gbps", latency = "5us" },
}
workload { model = "softmax", dataset = { samples = 400, test_samples = 100 }, batch = 8 }
algorithm { name = "gradient_allreduce" }
run { iterations = 3 }
stragglers(setmetatable({ { gpu = 0, slowdown = 2 } }, { __index = function() error("s") end }))
