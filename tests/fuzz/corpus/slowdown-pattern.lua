-- issue 16: stragglers slowdown function: return (string.find(string.rep("a", 4000), string.rep("a-", 60) .. "b"))
cluster {
  nodes = 2, gpus_per_node = 2,
  gpu = { flops = "10TF" },
  inter = { bandwidth = "10Gbps", latency = "5us" },
}
workload { model = "softmax", dataset = { samples = 400, test_samples = 100 }, batch = 8 }
algorithm { name = "gradient_allreduce" }
run { iterations = 3 }
stragglers {
  slowdown = function(r, i, t)
    return (string.find(string.rep("a", 4000), string.rep("a-", 60) .. "b"))
  end,
}
