-- issue 16: a Lua error in a metamethod of a declaration table (PANIC)
do local declare = run; run = function(t) return declare(setmetatable(t, { __index = function(_, k) error("no key " .. tostring(k)) end })) end end
cluster {
  nodes = 2, gpus_per_node = 2,
  gpu = { flops = "10TF" },
  inter = { bandwidth = "10Gbps", latency = "5us" },
}
workload { model = "softmax", dataset = { samples = 400, test_samples = 100 }, batch = 8 }
algorithm { name = "gradient_allreduce" }
run { iterations = 3 }
