-- resnext50_32x4d.lua — ResNeXt-50 (Xie et al. 2017, 32x4d: 32 groups of
-- 4 channels in the first stage's 3x3 convs), ImageNet 224x224: resnet50.lua's
-- bottlenecks with their 3x3 convs grouped and twice as wide.
-- Published: torchvision's resnext50_32x4d, 25,028,904 parameters in 161
-- tensors, 4.23 GFLOPS (multiply-adds).
return { variant_of = "resnet50", options = { depth = 50, groups = 32, width_per_group = 4 } }
