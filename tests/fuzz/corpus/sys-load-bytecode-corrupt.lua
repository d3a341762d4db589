-- the system from a scenario: load(string.dump(function(a) return a + 1 end):sub(1, 40) .. string.re
cluster {
  nodes = 2, gpus_per_node = 2,
  gpu = { flops = "10TF" },
  inter = { bandwidth = "10Gbps", latency = "5us" },
}
workload { model = "softmax", dataset = { samples = 400, test_samples = 100 }, batch = 8 }
algorithm { name = "gradient_allreduce" }
run { iterations = 3 }
load(string.dump(function(a) return a + 1 end):sub(1, 40) .. string.rep("\255", 64), "x", "b")()
