-- an endless __gc after a refusal: the state is closed after the message
setmetatable({}, { __gc = function() while true do end end })
cluster {
  nodes = 0, gpus_per_node = 2,
  gpu = { flops = "10TF" },
  inter = { bandwidth = "10Gbps", latency = "5us" },
}
workload { model = "softmax", dataset = { samples = 400, test_samples = 100 }, batch = 8 }
algorithm { name = "gradient_allreduce" }
run { iterations = 3 }
