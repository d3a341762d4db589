-- an endless __index on workload.dataset
cluster {
  nodes = 2, gpus_per_node = 2,
  gpu = { flops = "10TF" },
  inter = { bandwidth = "10Gbps", latency = "5us" },
}
workload { model = "softmax", dataset = setmetatable({ samples = 400 }, { __index = function() while true do end end }) , batch = 8 }
algorithm { name = "gradient_allreduce" }
run { iterations = 3 }
