-- alexnet.lua — AlexNet as torchvision writes it (after Krizhevsky's "One
-- weird trick", arXiv 1404.5997: one tower, 64-192-384-256-256 filters),
-- 224x224: five convolutions with bias and three fully connected layers,
-- the first of them 9216 -> 4096. FLOPs count a multiply-add as 2 and
-- backward as twice forward. Published: torchvision's alexnet, 61,100,840
-- parameters in 16 tensors, 0.71 GFLOPS (multiply-adds). Its 58M of fully
-- connected weights against 1.4 GFLOPs made it the classic
-- communication-bound case of data-parallel studies.
local layers = {}
-- Every layer has two parameter tensors, weight and bias (16 in all).
-- the weight, (out, in) or (out, in, k, k), a matrix of out rows
local function add(name, params, flops, rows, cols)
  layers[#layers + 1] = { name = name, params = params, fwd_flops = flops, bwd_flops = 2 * flops, tensors = 2,
                          matrices = { { rows, cols } } }
end
local function conv(name, k, cin, cout, hw_out)
  add(name, k * k * cin * cout + cout, 2 * k * k * cin * cout * hw_out * hw_out, cout, k * k * cin)
end
conv("features.0", 11, 3, 64, 55)  -- stride 4, padding 2; max-pool to 27
conv("features.3", 5, 64, 192, 27) -- max-pool to 13
conv("features.6", 3, 192, 384, 13)
conv("features.8", 3, 384, 256, 13)
conv("features.10", 3, 256, 256, 13) -- max-pool to 6
add("classifier.1", 256 * 6 * 6 * 4096 + 4096, 2 * 256 * 6 * 6 * 4096, 4096, 256 * 6 * 6)
add("classifier.4", 4096 * 4096 + 4096, 2 * 4096 * 4096, 4096, 4096)
add("classifier.6", 4096 * 1000 + 1000, 2 * 4096 * 1000, 1000, 4096)
return { name = "alexnet", published_params = 61.1e6, layers = layers }
