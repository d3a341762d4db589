-- resnet50.lua — ResNet (He et al. 2016, Table 1) as torchvision writes it
-- (v1.5: a bottleneck's stride on its 3x3 conv), as a layer list; by
-- default ResNet-50, ImageNet 224x224, and the others as variants of it:
-- resnet18, resnet101, resnet152, and CIFAR-10's ResNet-18
-- (resnet18-cifar10). workload.model_options: depth (18, 34: basic blocks
-- of two 3x3 convs; 50, 101, 152: bottlenecks), image (pixels a side),
-- classes, stem ("imagenet": a 7x7 conv at stride 2 and a max-pool;
-- "cifar": a 3x3 conv at stride 1, no pool), and for bottlenecks groups and
-- width_per_group (ResNeXt, Xie et al. 2017, as torchvision writes it: a
-- bottleneck's 3x3 conv is grouped, width = planes * width_per_group / 64
-- * groups; resnext50_32x4d and resnext101_32x8d are variants). Each conv
-- is k*k*cin/groups*cout weights plus its batch-norm (2*cout); FLOPs count a
-- multiply-add as 2 and backward as twice forward. Published: 25.6M
-- params; torchvision's resnet50 has 161 parameter tensors (53 convs x 3,
-- fc 2).
local options = { depth = 50, image = 224, classes = 1000, stem = "imagenet", groups = 1, width_per_group = 64 }
local given = ... or {}
local function whole(name, lo, hi) return hearsay.option(given, options, name, lo, hi) end
local depth, image, classes = whole("depth", 18, 152), whole("image", 8, 4096), whole("classes", 1, 1000000)
local stem = hearsay.option(given, options, "stem")
local groups, width_per_group = whole("groups", 1, 1024), whole("width_per_group", 1, 4096)
local stages = ({ [18] = { 2, 2, 2, 2 }, [34] = { 3, 4, 6, 3 }, [50] = { 3, 4, 6, 3 }, [101] = { 3, 4, 23, 3 },
                  [152] = { 3, 8, 36, 3 } })[depth]
if not stages then error("model_options.depth must be 18, 34, 50, 101 or 152, got " .. tostring(depth), 0) end
if stem ~= "imagenet" and stem ~= "cifar" then
  error("model_options.stem must be \"imagenet\" or \"cifar\", got " .. tostring(stem), 0)
end
local bottleneck = depth >= 50
-- torchvision's BasicBlock refuses both ("only supports groups=1 and base_width=64")
if not bottleneck and (groups ~= 1 or width_per_group ~= 64) then
  error("model_options.groups and width_per_group need a bottleneck depth (50, 101 or 152), got depth " .. depth, 0)
end
local layers = {}
local function conv(name, k, cin, cout, hw_out, g)
  local per_group = cin // (g or 1) -- a grouped conv's filters each see cin / groups channels
  local params = k * k * per_group * cout + 2 * cout
  local flops = 2 * k * k * per_group * cout * hw_out * hw_out
  -- tensors: the conv's weight, the batch-norm's weight and bias; buffers:
  -- its running_mean and running_var (fp32, cout each) and
  -- num_batches_tracked (int64), torch.nn.BatchNorm2d's; kernels: the
  -- convolution, the batch-norm and the ReLU forward, the ReLU's, the
  -- batch-norm's, the input's and the weight's gradients backward
  -- the weight (cout, cin / groups, k, k) as a matrix of cout rows
  layers[#layers + 1] = { name = name, params = params, fwd_flops = flops, bwd_flops = 2 * flops, tensors = 3,
                          buffers = 3, buffer_bytes = 2 * 4 * cout + 8, int64_buffers = 1,
                          kernels = 3, bwd_kernels = 4, matrices = { { cout, per_group * k * k } } }
end
-- a 3x3 (or 7x7) conv or pool at stride 2 with its padding: ceil(h / 2)
local function halve(h) return (h - 1) // 2 + 1 end

local hw
if stem == "imagenet" then
  conv("conv1", 7, 3, 64, halve(image))
  hw = halve(halve(image)) -- the max-pool
else
  conv("conv1", 3, 3, 64, image)
  hw = image
end
local cin = 64
for s, blocks in ipairs(stages) do
  local planes = 64 << (s - 1)
  local width = bottleneck and planes * width_per_group // 64 * groups or planes
  local out_hw = s == 1 and hw or halve(hw)
  local out = bottleneck and 4 * planes or planes
  for b = 1, blocks do
    local p = string.format("layer%d.%d.", s, b - 1)
    local in_hw = b == 1 and hw or out_hw
    if bottleneck then
      conv(p .. "conv1", 1, cin, width, in_hw)
      conv(p .. "conv2", 3, width, width, out_hw, groups)
      conv(p .. "conv3", 1, width, out, out_hw)
    else
      conv(p .. "conv1", 3, cin, width, out_hw)
      conv(p .. "conv2", 3, width, width, out_hw)
    end
    if b == 1 and cin ~= out then conv(p .. "downsample", 1, cin, out, out_hw) end
    cin = out
  end
  hw = out_hw
end
local fc = 2 * cin * classes
layers[#layers + 1] = { name = "fc", params = cin * classes + classes, fwd_flops = fc, bwd_flops = 2 * fc, tensors = 2,
                        matrices = { { classes, cin } } }

return { name = "resnet", layers = layers, options = options }
