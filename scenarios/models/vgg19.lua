-- vgg19.lua — VGG-19 (Simonyan & Zisserman 2015, configuration E), 224x224.
-- 16 3x3 convolutions with bias, then three fully connected layers (as
-- vgg16.lua, with four convs in each of the last three stages).
-- Published: 144M params (Table 2); torchvision's vgg19: 143,667,240
-- parameters in 38 tensors, 19.63 GFLOPS (multiply-adds).
local layers = {}
-- Every layer has two parameter tensors, weight and bias (38 in all).
local function add(name, params, flops)
  layers[#layers + 1] = { name = name, params = params, fwd_flops = flops, bwd_flops = 2 * flops, tensors = 2 }
end
local cfg = { {64, 2, 224}, {128, 2, 112}, {256, 4, 56}, {512, 4, 28}, {512, 4, 14} }
local cin = 3
for s, st in ipairs(cfg) do
  local cout, n, hw = st[1], st[2], st[3]
  for i = 1, n do
    add(string.format("conv%d_%d", s, i), 9 * cin * cout + cout, 2 * 9 * cin * cout * hw * hw)
    cin = cout
  end
end
add("fc6", 512 * 7 * 7 * 4096 + 4096, 2 * 512 * 7 * 7 * 4096)
add("fc7", 4096 * 4096 + 4096, 2 * 4096 * 4096)
add("fc8", 4096 * 1000 + 1000, 2 * 4096 * 1000)
return { name = "vgg19", published_params = 143.67e6, layers = layers }
