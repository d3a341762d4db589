-- vgg16.lua — VGG (Simonyan & Zisserman 2015), 224x224: 3x3 convolutions
-- with bias in five stages of 64, 128, 256, 512 and 512 filters, then
-- three fully connected layers; by default VGG-16 (configuration D: 2, 2,
-- 3, 3, 3 convs a stage), VGG-19 (E) as a variant (vgg19.lua).
-- workload.model_options: depth (11, 13, 16 or 19: configurations A, B, D,
-- E). FLOPs count a multiply-add as 2 and backward as twice forward.
-- Published: 138M params.
local options = { depth = 16 }
local depth = (... or {}).depth or options.depth
local cfg = ({ [11] = { 1, 1, 2, 2, 2 }, [13] = { 2, 2, 2, 2, 2 }, [16] = { 2, 2, 3, 3, 3 },
               [19] = { 2, 2, 4, 4, 4 } })[depth]
if not cfg then error("model_options.depth must be 11, 13, 16 or 19, got " .. tostring(depth), 0) end
local layers = {}
-- Every layer has two parameter tensors, weight and bias.
-- weight and bias; the weight, (out, in) or (out, in, 3, 3), a matrix of out rows
local function add(name, params, flops, rows, cols)
  layers[#layers + 1] = { name = name, params = params, fwd_flops = flops, bwd_flops = 2 * flops, tensors = 2,
                          matrices = { { rows, cols } } }
end
local widths, sides = { 64, 128, 256, 512, 512 }, { 224, 112, 56, 28, 14 }
local cin = 3
for s, n in ipairs(cfg) do
  local cout, hw = widths[s], sides[s]
  for i = 1, n do
    add(string.format("conv%d_%d", s, i), 9 * cin * cout + cout, 2 * 9 * cin * cout * hw * hw, cout, 9 * cin)
    cin = cout
  end
end
add("fc6", 512 * 7 * 7 * 4096 + 4096, 2 * 512 * 7 * 7 * 4096, 4096, 512 * 7 * 7)
add("fc7", 4096 * 4096 + 4096, 2 * 4096 * 4096, 4096, 4096)
add("fc8", 4096 * 1000 + 1000, 2 * 4096 * 1000, 1000, 4096)
return { name = "vgg", layers = layers, options = options }
