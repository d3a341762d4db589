-- issue 16: an endless loop in a metamethod
do local declare = run; run = function(t) return declare(setmetatable(t, { __index = function() while true do end end })) end end
cluster {
  nodes = 2, gpus_per_node = 2,
  gpu = { flops = "10TF" },
  inter = { bandwidth = "10Gbps", latency = "5us" },
}
workload { model = "softmax", dataset = { samples = 400, test_samples = 100 }, batch = 8 }
algorithm { name = "gradient_allreduce" }
run { iterations = 3 }
